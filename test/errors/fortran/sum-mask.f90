! RUN: rm -rf %t.mod && mkdir -p %t.mod
! RUN: %flang -O0 -g -J %t.mod -c -emit-llvm %s -o %t.bc
! RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
! RUN: not %flang -O0 -g -J %t.mod -fpass-plugin=%plugin -c %s -o %t2.o 2>&1 | FileCheck %s
! sum with a mask at -O0 calls flang's runtime with the mask's descriptor; the sum rule
! (rules/fortran.rs) refuses it with a clear error instead of ignoring the mask.
module m
  implicit none
contains
  function f(x) result(y)
    real(8), intent(in) :: x(:)
    real(8) :: y
    ! CHECK: sum-mask.f90:[[@LINE+1]]:{{[0-9]+}}: {{.*}}cannot differentiate 'sum' with a 'mask' argument in flang's runtime
    y = sum(x * x, mask=x > 0)
  end function
end module

program main
  use m
  implicit none
  real(8) :: x(3), dx(3)
  interface
    subroutine autodiff(fn, x, dx) bind(C, name="__enzyme_autodiff")
      import :: f
      procedure(f) :: fn
      real(8) :: x(:), dx(:)
    end subroutine
  end interface
  x = [1d0, -2d0, 3d0]
  dx = 0
  call autodiff(f, x, dx)
  print *, dx
end program
