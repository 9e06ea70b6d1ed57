// --debug-checks in vectorised code: at -O3 (without errno, so sqrt becomes llvm.sqrt) the loop
// runs on vectors of doubles, and a lane gone infinite is caught in both modes and named (the
// checks looked at scalars only before: the derivative ran on with the infinity).
// RUN: %clang -O3 -g -fno-math-errno -c -emit-llvm %s -o %t.bc
// RUN: llvm-dis %t.bc -o - | FileCheck --check-prefix=VEC %s
// VEC: call <{{[0-9]+}} x double> @llvm.sqrt.v{{[0-9]+}}f64
// RUN: %umbra %t.bc -O3 --debug-checks -o %t.o
// RUN: %clang %t.o -lm -o %t
// RUN: not --crash %t r 2>&1 | FileCheck --check-prefix=REV %s
// RUN: not --crash %t f 2>&1 | FileCheck --check-prefix=FWD %s
// RUN: %t n 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: env UMBRA_OPTIONS=debug-checks %clang -O3 -g -fno-math-errno -fpass-plugin=%plugin %s -lm -o %t.plugin
// RUN: not --crash %t.plugin r 2>&1 | FileCheck --check-prefix=REV %s
// RUN: not --crash %t.plugin f 2>&1 | FileCheck --check-prefix=FWD %s
// CLEAN-NOT: umbra:
// CLEAN: gradient 0.353553 tangent 0.353553
#include <math.h>
#include <stdio.h>

void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);
extern int enzyme_dup;

__attribute__((noinline)) void roots(double *restrict y, const double *restrict x) {
  for (int i = 0; i < 8; i++)
    y[i] = sqrt(x[i]); // REV: umbra: non-finite adjoint of 'sqrt' at {{.*}}vectorized.c:[[@LINE]]:{{[0-9]+}} in 'roots' (reverse mode){{$}}
  // FWD: umbra: non-finite tangent of 'sqrt' at {{.*}}vectorized.c:[[@LINE-1]]:{{[0-9]+}} in 'roots' (forward mode){{$}}
}

int main(int argc, char **argv) {
  char what = argc > 1 ? argv[1][0] : 'n';
  double x[8] = {1, 2, 3, 4, 5, what == 'n' ? 2 : 0, 7, 8}, dx[8] = {0}, y[8];
  double dy[8] = {1, 1, 1, 1, 1, 1, 1, 1}, vx[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  if (what != 'f') {
    __enzyme_autodiff((void *)roots, enzyme_dup, y, dy, enzyme_dup, x, dx);
    printf("gradient %g", dx[5]);
  }
  if (what != 'r') {
    __enzyme_fwddiff((void *)roots, enzyme_dup, y, dy, enzyme_dup, x, vx);
    printf(" tangent %g\n", dy[5]);
  }
  return 0;
}
