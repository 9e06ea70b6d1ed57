// EXEC-CFLAGS: -march=x86-64-v3
// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: %clang -O2 -march=x86-64-v3 -c -emit-llvm %s -I %testinc -o %t.fma.bc
// RUN: %umbra -O0 %t.fma.bc --emit=llvm-ir -o - | FileCheck %s --check-prefix=FMA
// RUN: %clang -O2 -march=x86-64 -c -emit-llvm %s -I %testinc -o %t.nofma.bc
// RUN: %umbra -O0 %t.nofma.bc --emit=llvm-ir -o - | FileCheck %s --check-prefix=NOFMA
// The adjoint's own arithmetic (a partial times an adjoint, added to an adjoint) is `contract`
// where the target has FMA, so code generation fuses it into multiply-adds, as it does a
// hand-written adjoint compiled with C's default `-ffp-contract=on` (gmm of `make bench`: its
// adjoint block's 131 vmulpd and 112 vaddpd became 86, 67 and 90 vfmadd; 13.24 -> 13.14 M
// instructions per gradient). Copies of the primal's operations stay as the program rounds
// them (no `contract`); without FMA in the target nothing changes.
// FMA-LABEL: define internal {{.*}} @augfwd.energy
// FMA-NOT:     contract
// FMA:         ret
// FMA-LABEL: define internal {{.*}} @adjoint.energy
// FMA:         fmul contract double
// FMA:         fadd contract double
// NOFMA-LABEL: define internal {{.*}} @adjoint.energy
// NOFMA-NOT:     contract
// NOFMA:         ret void
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 19 };

// x[i] appears in several products: its adjoint accumulates partial * adjoint terms.
__attribute__((noinline)) double energy(const double *x, const double *w, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++) {
    double d = x[i + 1] - x[i];
    s += w[i] * d * d + x[i] * x[i] * x[i + 1];
  }
  return s;
}

static double at_x(const double *x, void *w) { return energy(x, (const double *)w, N); }
static double at_w(const double *w, void *x) { return energy((const double *)x, w, N); }

int main(void) {
  double x[N], w[N], dx[N] = {0}, dw[N] = {0}, fd[N];
  for (int i = 0; i < N; i++) {
    x[i] = 1.3 * sin(0.9 * i + 0.2);
    w[i] = 0.7 + 0.4 * cos(1.7 * i);
  }
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_dup, w, dw, enzyme_const, N);
  fd_grad(at_x, w, x, N, fd);
  fd_check_array("d/dx", dx, fd, N);
  fd_grad(at_w, x, w, N, fd);
  fd_check_array("d/dw", dw, fd, N);
  return fd_finish();
}
