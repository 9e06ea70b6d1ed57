// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %clang -O2 -c -emit-llvm %s -I %testinc -o %t.bc
// RUN: %umbra %t.bc -O0 --emit=llvm-ir -o - | FileCheck %s
// Intrinsics that cost about an arithmetic instruction (sqrt, fabs, fmuladd, min/max, ...)
// are rebuilt in the adjoint from their operands like arithmetic, not taped: here the
// distance-like `r` is read again by the adjoint (the product's partials) and decides a branch.
// Before, `r` went on the tape every iteration (8 bytes), and so did the branch's direction
// (4 bytes), since it could not be rebuilt from `r`; now the forward sweep tapes nothing.
// CHECK-LABEL: define internal {{.*}}@augfwd.distance_sum
// CHECK-NOT:     @umbra.tape.push
// CHECK:         ret
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 37 };

__attribute__((noinline)) double distance_sum(const double *x, const double *w, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double r = sqrt(x[i] * x[i] + 1.0);
    if (r > 1.5)
      s += r * w[i];
    else
      s += fabs(x[i]) * fmax(r, w[i]);
  }
  return s;
}

static double at_x(const double *x, void *w) { return distance_sum(x, (const double *)w, N); }
static double at_w(const double *w, void *x) { return distance_sum((const double *)x, w, N); }

int main(void) {
  double x[N], w[N], dx[N] = {0}, dw[N] = {0}, fd[N];
  for (int i = 0; i < N; i++) {
    x[i] = 2.5 * sin(0.7 * i + 0.3);
    w[i] = 1.2 + 0.5 * cos(1.3 * i);
  }
  __enzyme_autodiff((void *)distance_sum, enzyme_dup, x, dx, enzyme_dup, w, dw, enzyme_const,
                    N);
  fd_grad(at_x, w, x, N, fd);
  fd_check_array("d/dx", dx, fd, N);
  fd_grad(at_w, x, w, N, fd);
  fd_check_array("d/dw", dw, fd, N);
  return fd_finish();
}
