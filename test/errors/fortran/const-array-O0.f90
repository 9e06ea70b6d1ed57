! RUN: rm -rf %t.mod && mkdir -p %t.mod
! RUN: %flang -O0 -g -J %t.mod -c -emit-llvm %s -o %t.bc
! RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
! RUN: not %flang -O0 -g -J %t.mod -fpass-plugin=%plugin -c %s -o %t2.o 2>&1 | FileCheck %s
! At -O0 flang passes an array on through a descriptor it builds on the stack; for an array
! marked enzyme_const that descriptor holds a pointer without shadow memory where reverse mode
! expects one (every stack slot may hold differentiable data). Refused with the way out (pass
! it dup with a zeroed shadow, or compile with -O1 or higher, where the descriptor is gone).
module m
  use iso_c_binding, only: c_int
  implicit none
  integer(c_int), bind(C, name="enzyme_const") :: enzyme_const
contains
  function f(x, w) result(y)
    ! The descriptor of w, rebuilt for dot_product, is reported at w's declaration.
    ! CHECK: const-array-O0.f90:[[@LINE+1]]:{{[0-9]+}}: {{.*}}has no shadow memory but flows where pointers with shadows are expected{{.*}}pass it as dup with a zeroed shadow
    real(8), intent(in) :: x(:), w(:)
    real(8) :: y
    y = dot_product(w, x)
  end function
end module

program main
  use m
  implicit none
  real(8) :: x(3), dx(3), w(3)
  interface
    subroutine autodiff(fn, x, dx, c, w) bind(C, name="__enzyme_autodiff")
      import :: f, c_int
      procedure(f) :: fn
      real(8) :: x(:), dx(:), w(:)
      integer(c_int), value :: c
    end subroutine
  end interface
  x = [1d0, -2d0, 3d0]
  w = 1
  dx = 0
  call autodiff(f, x, dx, enzyme_const, w)
  print *, dx
end program
