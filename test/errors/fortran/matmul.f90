! RUN: rm -rf %t.mod && mkdir -p %t.mod
! RUN: %flang -O0 -g -J %t.mod -c -emit-llvm %s -o %t.bc
! RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
! RUN: not %flang -O0 -g -J %t.mod -fpass-plugin=%plugin -c %s -o %t2.o 2>&1 | FileCheck %s
! At -O0 matmul is a call of flang's runtime (inlined from -O1 on), and Umbra has no rule for it:
! a one-line error names the runtime function and the source line, never a wrong gradient.
module m
  implicit none
contains
  function f(a) result(y)
    real(8), intent(in) :: a(:, :)
    real(8) :: y, p(size(a, 1), size(a, 2))
    ! CHECK: matmul.f90:[[@LINE+1]]:{{[0-9]+}}: {{.*}}no derivative rule for '_FortranAMatmulReal8Real8' (reverse mode){{.*}}flang's runtime implementation of a Fortran intrinsic
    p = matmul(a, a)
    y = sum(p)
  end function
end module

program main
  use m
  implicit none
  real(8) :: a(2, 2), da(2, 2)
  interface
    subroutine autodiff(fn, a, da) bind(C, name="__enzyme_autodiff")
      import :: f
      procedure(f) :: fn
      real(8) :: a(:, :), da(:, :)
    end subroutine
  end interface
  a = 1
  da = 0
  call autodiff(f, a, da)
  print *, da
end program
