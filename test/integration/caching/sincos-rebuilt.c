// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: %clang -O3 -c -emit-llvm %s -I %testinc -o %t.bc
// RUN: %umbra -O0 %t.bc --emit=llvm-ir -o - | FileCheck %s
// RUN: %umbra -O3 %t.bc --emit=asm -o - | FileCheck %s --check-prefix=ASM
// The adjoint of `cos(e)` computes `sin(e)`, so `cos(e)` itself is rebuilt there rather than
// kept: code generation makes the two one `sincos` call (LLVM pairs `sin` and `cos` of one
// operand in one block; at -O0 the adjoint reads `e` twice, the sine's copy later). For
// `y[i] = sin(cos(exp(x[i])))` into a heap buffer (naive_map_sin_cos_exp of `make bench`)
// the forward sweep keeps `exp(x)` alone (8 bytes per element, 16 before), and the adjoint
// calls `sincos(e)` and `cos(cos(e))` where it popped `cos(e)` and called `cos` and `sin`
// separately (31,461 -> 27,602 instructions per gradient of the benchmark; its hand gradient
// 28,999). `float` (`sinf`, `cosf`) the same. A cosine whose operand has no derivative
// computes no sine in the adjoint: nothing to pair it with, it is not rebuilt. Nor is a sine
// between needed values: in the recurrence `s = sin(s + x[i])` (unrolled by the optimiser)
// each step's operand stays kept; rebuilding it from the first step's would make every step's
// `cos` a `sincos` to save 8 bytes.
// CHECK-LABEL: define internal {{.*}} @augfwd.map_sin_cos_exp.
// CHECK-NOT:     define
// CHECK:         call ptr @umbra.tape.push(ptr %tape, i64 8)
// CHECK-NOT:     define
// CHECK:         tail call double @exp(
// CHECK-LABEL: define internal {{.*}} @adjoint.map_sin_cos_exp.
// CHECK:         [[C:%[0-9]+]] = tail call double @cos(double noundef [[E:%[0-9]+]])
// CHECK-NEXT:    call double @llvm.cos.f64(double [[C]])
// CHECK-NOT:     define
// CHECK:         call double @llvm.sin.f64(
// CHECK-LABEL: define internal {{.*}} @adjoint.map_sin_cos_expf.
// CHECK:         [[C:%[0-9]+]] = tail call float @cosf(float noundef [[E:%[0-9]+]])
// CHECK-NEXT:    call float @llvm.cos.f32(float [[C]])
// CHECK-NOT:     define
// CHECK:         call float @llvm.sin.f32(
// CHECK-LABEL: define internal {{.*}} @adjoint.chain.
// CHECK-NOT:     @sin(
// CHECK:         ret void
// ASM:           sincosf
#include "fdcheck.h"
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 23 };

__attribute__((noinline)) double map_sin_cos_exp(const double *x, int n) {
  double *y = malloc(sizeof *y * n);
  for (int i = 0; i < n; i++)
    y[i] = sin(cos(exp(x[i])));
  double s = 0;
  for (int i = 0; i < n; i++)
    s += y[i];
  free(y);
  return s;
}

__attribute__((noinline)) float map_sin_cos_expf(const float *x, int n) {
  float *y = malloc(sizeof *y * n);
  for (int i = 0; i < n; i++)
    y[i] = sinf(cosf(expf(x[i])));
  float s = 0;
  for (int i = 0; i < n; i++)
    s += y[i];
  free(y);
  return s;
}

// `cos(w[i])` has no derivative (w is constant): its value is needed by the adjoint of the
// product, and kept (no sine is computed there to pair it with).
__attribute__((noinline)) double weighted(const double *x, const double *w, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += cos(w[i]) * sin(x[i]) * cos(x[i]);
  return s;
}

__attribute__((noinline)) double chain(const double *x, int n) {
  double s = 0.5;
  for (int i = 0; i < n; i++)
    s = sin(s + x[i]);
  return s;
}

static double at_map(const double *x, void *ctx) {
  (void)ctx;
  return map_sin_cos_exp(x, N);
}
static double at_chain(const double *x, void *ctx) {
  (void)ctx;
  return chain(x, N);
}
static double at_weighted(const double *x, void *w) { return weighted(x, (const double *)w, N); }

int main(void) {
  double x[N], w[N], dx[N] = {0}, fd[N];
  float xf[N], dxf[N] = {0};
  double dxf_d[N];
  for (int i = 0; i < N; i++) {
    x[i] = 1.5 * sin(0.7 * i + 0.3);
    xf[i] = (float)x[i];
    w[i] = 0.4 + 0.5 * cos(1.3 * i);
  }
  __enzyme_autodiff((void *)map_sin_cos_exp, enzyme_dup, x, dx, enzyme_const, N);
  fd_grad(at_map, 0, x, N, fd);
  fd_check_array("map d/dx", dx, fd, N);

  __enzyme_autodiff((void *)map_sin_cos_expf, enzyme_dup, xf, dxf, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    x[i] = (double)xf[i];
    dxf_d[i] = dxf[i];
  }
  // Against the double function's differences at the same (float) points: differences of the
  // float function itself carry its rounding.
  fd_grad(at_map, 0, x, N, fd);
  for (int i = 0; i < N; i++)
    fd_check_f("mapf d/dx", dxf_d[i], fd[i]);

  for (int i = 0; i < N; i++)
    dx[i] = 0;
  __enzyme_autodiff((void *)chain, enzyme_dup, x, dx, enzyme_const, N);
  fd_grad(at_chain, 0, x, N, fd);
  fd_check_array("chain d/dx", dx, fd, N);

  for (int i = 0; i < N; i++)
    dx[i] = 0;
  __enzyme_autodiff((void *)weighted, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, N);
  fd_grad(at_weighted, w, x, N, fd);
  fd_check_array("weighted d/dx", dx, fd, N);
  return fd_finish();
}
