! RUN: %exec-test %s driver 0 %t
! RUN: %exec-test %s driver 1 %t
! RUN: %exec-test %s driver 2 %t
! RUN: %exec-test %s driver 3 %t
! RUN: %exec-test %s plugin 0 %t
! RUN: %exec-test %s plugin 2 %t
! Reverse mode through the array intrinsics sum and dot_product on assumed-shape arrays, with
! whole-array expressions, strided array sections, and a 2-D array's sum and column sums. At -O1 and
! above flang inlines sum and dot_product as loops; at -O0 it calls its runtime library
! (`_FortranASumReal8`, `_FortranADotProductReal8`), which rules/fortran.rs differentiates.
! The -O3 run is the regression test for a false refusal: `base + 3 * byte_stride` (flang's
! address of an assumed-shape array's fourth element) made the type analysis see a double at
! every byte.
module shaped
  implicit none
contains
  function energy(x) result(y)
    real(8), intent(in) :: x(:)
    real(8) :: y
    y = sum(x * x) + dot_product(x, sin(x)) + sum(exp(x(2:size(x):2))) + sqrt(sum(x**2) + 1)
  end function

  function weighted(x, w) result(y)
    real(8), intent(in) :: x(:), w(:)
    real(8) :: y
    y = dot_product(w, x)**2 + sum(w * log(1 + x * x))
  end function

  ! A 2-D array: a quadratic form with a loop nest and a column sum.
  function frob(a) result(y)
    real(8), intent(in) :: a(:, :)
    real(8) :: y
    integer :: i, j
    y = 0
    do j = 1, size(a, 2)
      do i = 1, size(a, 1)
        y = y + a(i, j) * a(j, i) * i + cos(a(i, j))
      end do
      y = y + sum(a(:, j))**2
    end do
    y = y + 0.5d0 * sum(a * sin(a)) ! a rank-2 sum
  end function

  function energy_at(x) result(y)
    real(8), intent(in) :: x(:)
    real(8) :: y
    y = energy(x)
  end function

  function weighted_at(xw) result(y)
    real(8), intent(in) :: xw(:) ! packed [x, w]
    real(8) :: y
    integer :: n
    n = size(xw) / 2
    y = weighted(xw(1:n), xw(n + 1:))
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
  real(8) :: x(6), dx(6), w(6), dw(6), fd(12), a(3, 3), da(3, 3), fda(9)
  integer :: i

  do i = 1, 6
    x(i) = 0.4d0 + 0.3d0 * sin(1.7d0 * i)
    w(i) = 1.1d0 - 0.2d0 * i
  end do
  a = reshape([(0.2d0 * i - 0.9d0 + 0.05d0 * mod(i, 4), i = 1, 9)], [3, 3])

  dx = 0
  call grad1(x, dx)
  call fd_grad(energy_at, x, fd(1:6))
  call fd_check_array('energy dx', dx, fd(1:6))

  dx = 0
  dw = 0
  call grad2(x, dx, w, dw)
  call fd_grad(weighted_at, [x, w], fd)
  call fd_check_array('weighted dx', dx, fd(1:6))
  call fd_check_array('weighted dw', dw, fd(7:12))

  da = 0
  call grad2d(a, da)
  call fd_grad(frob_at, reshape(a, [9]), fda)
  call fd_check_array('frob da', reshape(da, [9]), fda)

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

  subroutine grad2(x, dx, w, dw)
    real(8) :: x(:), dx(:), w(:), dw(:)
    interface
      subroutine autodiff(f, x, dx, w, dw) bind(C, name="__enzyme_autodiff")
        import :: weighted
        procedure(weighted) :: f
        real(8) :: x(:), dx(:), w(:), dw(:)
      end subroutine
    end interface
    call autodiff(weighted, x, dx, w, dw)
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
