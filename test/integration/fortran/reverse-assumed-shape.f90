! RUN: %exec-test %s driver 0 %t
! RUN: %exec-test %s driver 1 %t
! RUN: %exec-test %s driver 2 %t
! RUN: %exec-test %s driver 3 %t
! RUN: %exec-test %s plugin 0 %t
! RUN: %exec-test %s plugin 2 %t
! Reverse mode through assumed-shape arrays (`x(:)`, `a(:, :)`), which Fortran passes as array
! descriptors: the request's interface declares x and its shadow dx assumed-shape too, so both
! arrive as descriptors, and the shadow descriptor's base address is dx's. Loops, an automatic
! array, the whole array and a strided section passed on to a module procedure,
! and a 2-D array. The -O0 runs are the regression test for a false refusal: flang copies a
! descriptor's integer fields (extents, strides) into a local descriptor, which reverse mode
! took for floating-point data copied as integers.
module shaped
  implicit none
contains
  function energy(x) result(y)
    real(8), intent(in) :: x(:)
    real(8) :: y, t(size(x))
    integer :: i
    ! A whole-array assignment would call flang's runtime (_FortranAAssign) at -O0.
    do i = 1, size(x)
      t(i) = x(i) * sin(x(i)) + 1
    end do
    y = 0
    do i = 1, size(x)
      y = y + t(i)**2 + log(t(i))
    end do
    y = y + strided(x(2::2)) + 0.1d0 * strided(x)
  end function

  function strided(x) result(y)
    real(8), intent(in) :: x(:)
    real(8) :: y
    integer :: i
    y = 1
    do i = 1, size(x)
      y = y * (1 + 0.5d0 * x(i)**2)
    end do
  end function

  ! A 2-D array: a quadratic form and column sums in loop nests.
  function frob(a) result(y)
    real(8), intent(in) :: a(:, :)
    real(8) :: y, c
    integer :: i, j
    y = 0
    do j = 1, size(a, 2)
      c = 0
      do i = 1, size(a, 1)
        y = y + a(i, j) * a(j, i) * i + cos(a(i, j))
        c = c + a(i, j)
      end do
      y = y + c**2
    end do
  end function

  function frob_at(a) result(y)
    real(8), intent(in) :: a(:)
    real(8) :: y
    y = frob(reshape(a, [3, 3]))
  end function
end module

program main
  use shaped
  use fdcheck
  implicit none
  real(8) :: x(6), dx(6), fd(9), a(3, 3), da(3, 3)
  integer :: i

  do i = 1, 6
    x(i) = 0.4d0 + 0.3d0 * sin(1.7d0 * i)
  end do
  a = reshape([(0.2d0 * i - 0.9d0 + 0.05d0 * mod(i, 4), i = 1, 9)], [3, 3])

  dx = 0
  call grad1(x, dx)
  call fd_grad(energy, x, fd(1:6))
  call fd_check_array('energy dx', dx, fd(1:6))

  da = 0
  call grad2d(a, da)
  call fd_grad(frob_at, reshape(a, [9]), fd)
  call fd_check_array('frob da', reshape(da, [9]), fd)

  call fd_finish()

contains
  ! One interface per argument list; the request names the module procedure itself (a dummy
  ! procedure would be an indirect target, which Umbra refuses).
  subroutine grad1(x, dx)
    real(8) :: x(:), dx(:)
    interface
      subroutine autodiff(f, x, dx) bind(C, name="__enzyme_autodiff")
        import :: energy
        procedure(energy) :: f
        real(8) :: x(:), dx(:)
      end subroutine
    end interface
    call autodiff(energy, x, dx)
  end subroutine

  subroutine grad2d(a, da)
    real(8) :: a(:, :), da(:, :)
    interface
      subroutine autodiff(f, a, da) bind(C, name="__enzyme_autodiff")
        import :: frob
        procedure(frob) :: f
        real(8) :: a(:, :), da(:, :)
      end subroutine
    end interface
    call autodiff(frob, a, da)
  end subroutine
end program
