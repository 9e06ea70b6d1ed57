! RUN: %exec-test %s driver 0 %t
! RUN: %exec-test %s driver 1 %t
! RUN: %exec-test %s driver 2 %t
! RUN: %exec-test %s driver 3 %t
! RUN: %exec-test %s plugin 0 %t
! RUN: %exec-test %s plugin 2 %t
! Reverse mode from Fortran, the way Enzyme documents it: an interface block binds a Fortran
! name to `__enzyme_autodiff`, and `enzyme_dup`/`enzyme_const` are `integer, bind(C)` globals.
! Covers explicit-shape arrays (`x(n)`) passed by a bind(C) function with `value` arguments and
! by a module procedure with Fortran's by-reference arguments, loops, and the scalar
! intrinsics exp, log, sin, sqrt, `**` with integer and real exponents, abs and max.
module explicit_funcs
  use iso_c_binding, only: c_int, c_double
  implicit none
  integer(c_int), bind(C, name="enzyme_dup") :: enzyme_dup
  integer(c_int), bind(C, name="enzyme_const") :: enzyme_const
contains
  ! A bind(C) function: x by reference, n by value.
  function intrinsics(x, n) result(y) bind(C)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: y
    integer :: i
    y = 0
    do i = 1, n
      y = y + sin(x(i)) * exp(x(i)) + sqrt(abs(x(i)) + 1d0) + x(i)**3 &
        + abs(x(i))**1.5d0 + max(x(i), 0.2d0) + log(1d0 + x(i)**2) + x(i)**(-2)
    end do
  end function

  ! A module procedure (Fortran linkage, every argument by reference): the scalar a is active
  ! through its address, like the array.
  function carried(x, n, a) result(p)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n), a
    real(8) :: p
    integer :: i
    p = 1
    do i = 1, n
      p = p * (1 + 0.1d0 * x(i)) + a * sin(p)
    end do
  end function

  ! The functions above as fdcheck's fd_fn, for the finite differences.
  function intrinsics_at(x) result(y)
    real(8), intent(in) :: x(:)
    real(8) :: y
    y = intrinsics(x, size(x))
  end function

  function carried_at(xa) result(y)
    real(8), intent(in) :: xa(:) ! packed [x, a]
    real(8) :: y
    y = carried(xa, size(xa) - 1, xa(size(xa)))
  end function
end module


program main
  use explicit_funcs
  use fdcheck
  use iso_c_binding, only: c_int, c_double
  implicit none
  integer, parameter :: n = 7
  real(8) :: x(n + 1), dx(n + 1), fd(n + 1), da
  integer :: i

  interface
    subroutine grad_intrinsics(f, x, dx, n) bind(C, name="__enzyme_autodiff")
      import :: c_int, c_double
      interface
        function f(x, n) result(y) bind(C)
          import :: c_int, c_double
          integer(c_int), value :: n
          real(c_double), intent(in) :: x(n)
          real(c_double) :: y
        end function
      end interface
      real(c_double) :: x(*), dx(*)
      integer(c_int), value :: n
    end subroutine
  end interface

  do i = 1, n + 1
    x(i) = 0.9d0 - 0.23d0 * i + 0.05d0 * mod(i, 3)
  end do
  x(n + 1) = 0.3d0

  dx = 0
  call grad_intrinsics(intrinsics, x, dx, n)
  call fd_grad(intrinsics_at, x(1:n), fd(1:n))
  call fd_check_array('intrinsics dx', dx(1:n), fd(1:n))

  dx = 0
  da = 0
  call grad_carried(x, dx, n, x(n + 1), da)
  call fd_grad(carried_at, x, fd)
  call fd_check_array('carried dx', dx(1:n), fd(1:n))
  call fd_check('carried da', da, fd(n + 1))

  call fd_finish()

contains
  ! A second request in another scope: each interface to `__enzyme_autodiff` declares the
  ! argument list of its own call.
  subroutine grad_carried(x, dx, n, a, da)
    real(8) :: x(:), dx(:), a, da
    integer :: n
    interface
      subroutine autodiff(f, d1, x, dx, c1, n, d2, a, da) bind(C, name="__enzyme_autodiff")
        import :: c_int, c_double
        interface
          function f(x, n, a) result(p)
            integer, intent(in) :: n
            real(8), intent(in) :: x(n), a
            real(8) :: p
          end function
        end interface
        integer(c_int), value :: d1, c1, d2
        real(c_double) :: x(*), dx(*), a, da
        integer :: n
      end subroutine
    end interface
    call autodiff(carried, enzyme_dup, x, dx, enzyme_const, n, enzyme_dup, a, da)
  end subroutine
end program
