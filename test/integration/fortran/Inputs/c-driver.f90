! The Fortran half of c-driver.c: bind(C) procedures a C program differentiates.
module cfuncs
  use iso_c_binding, only: c_int, c_double
  implicit none
contains
  ! The Rosenbrock function: explicit-shape array, loop, integer powers.
  function rosen(x, n) result(y) bind(C, name="rosen")
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: y
    integer :: i
    y = 0
    do i = 1, n - 1
      y = y + 100 * (x(i + 1) - x(i)**2)**2 + (1 - x(i))**2
    end do
  end function

  ! Array intrinsics on explicit-shape arrays (descriptors built by flang at -O0).
  function softplus_dot(x, w, n) result(y) bind(C, name="softplus_dot")
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n), w(n)
    real(c_double) :: y
    y = sum(log(1 + exp(w * x))) + dot_product(w, x)**2
  end function

  ! A subroutine writing an output array, with a scalar passed by value.
  subroutine expscale(x, y, n, a) bind(C, name="expscale")
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double), intent(out) :: y(n)
    real(c_double), value :: a
    integer :: i
    do i = 1, n
      y(i) = a * exp(x(i)) + sqrt(1 + x(i)**2)
    end do
  end subroutine
end module
