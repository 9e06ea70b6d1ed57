! RUN: %exec-test %s driver 0 %t
! RUN: %exec-test %s driver 1 %t
! RUN: %exec-test %s driver 2 %t
! RUN: %exec-test %s driver 3 %t
! RUN: %exec-test %s plugin 0 %t
! RUN: %exec-test %s plugin 2 %t
! Forward mode from Fortran: an interface block binds a function returning real(8) to
! `__enzyme_fwddiff`, which returns the directional derivative along the tangents passed after
! each active argument. Explicit-shape arrays (`x(n)`) through a bind(C) function with a `value`
! size and through a module procedure with by-reference arguments (its scalar `a` active
! through its address), loops, and the scalar intrinsics exp, log, sin, sqrt, `**` with integer
! and real exponents, abs and max.
module explicit_funcs
  use iso_c_binding, only: c_int, c_double
  implicit none
  integer(c_int), bind(C, name="enzyme_dup") :: enzyme_dup
  integer(c_int), bind(C, name="enzyme_const") :: enzyme_const
contains
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
  real(8) :: x(n + 1), v(n + 1), ad
  integer :: i

  interface
    function fwd_intrinsics(f, x, dx, n) result(d) bind(C, name="__enzyme_fwddiff")
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
      real(c_double) :: d
    end function
  end interface

  do i = 1, n + 1
    x(i) = 0.9d0 - 0.23d0 * i + 0.05d0 * mod(i, 3) + 0.1d0
    v(i) = 0.5d0 + 0.3d0 * cos(2.1d0 * i)
  end do
  x(n + 1) = 0.3d0

  ad = fwd_intrinsics(intrinsics, x, v, n)
  call fd_check('intrinsics along v', ad, fd_dir(intrinsics_at, x(1:n), v(1:n)))

  ad = fwd_carried(x, v, n, x(n + 1), v(n + 1))
  call fd_check('carried along v', ad, fd_dir(carried_at, x, v))

  ! a constant: the derivative along x's tangent only.
  ad = fwd_carried_const_a(x, v, n, x(n + 1))
  call fd_check('carried along v, a const', ad, fd_dir(carried_at, x, [v(1:n), 0d0]))

  call fd_finish()

contains
  function fwd_carried(x, dx, n, a, da) result(d)
    real(8) :: x(:), dx(:), a, da, d
    integer :: n
    interface
      function fwddiff(f, d1, x, dx, c1, n, d2, a, da) result(d) bind(C, name="__enzyme_fwddiff")
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
        real(c_double) :: d
      end function
    end interface
    d = fwddiff(carried, enzyme_dup, x, dx, enzyme_const, n, enzyme_dup, a, da)
  end function

  function fwd_carried_const_a(x, dx, n, a) result(d)
    real(8) :: x(:), dx(:), a, d
    integer :: n
    interface
      function fwddiff(f, d1, x, dx, c1, n, c2, a) result(d) bind(C, name="__enzyme_fwddiff")
        import :: c_int, c_double
        interface
          function f(x, n, a) result(p)
            integer, intent(in) :: n
            real(8), intent(in) :: x(n), a
            real(8) :: p
          end function
        end interface
        integer(c_int), value :: d1, c1, c2
        real(c_double) :: x(*), dx(*), a
        integer :: n
        real(c_double) :: d
      end function
    end interface
    d = fwddiff(carried, enzyme_dup, x, dx, enzyme_const, n, enzyme_const, a)
  end function
end program
