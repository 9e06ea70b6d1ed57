// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %clang -O2 -ffast-math -fveclib=libmvec -I %S/../../include -I %S/../../../runtime/include -S -emit-llvm %s -o - | FileCheck %s --check-prefix=VECLIB
// EXEC-CFLAGS: -ffast-math -fno-finite-math-only -fveclib=libmvec
// EXEC-LDFLAGS: -lmvec
// Loops of math calls vectorised onto glibc's vector math library (-fveclib=libmvec): the
// vectoriser calls _ZGVbN2v_sin for two sins at once, which had no rule ("no derivative
// rule for '_ZGVbN2v_sin'"); such a call takes the scalar function's rule lane by lane.
// VECLIB-DAG: call {{.*}}<2 x double> @_ZGVbN2v_sin(
// VECLIB-DAG: call {{.*}}<2 x double> @_ZGVbN2vv_pow(
// VECLIB-DAG: call {{.*}}<4 x float> @_ZGVbN4v_expf(
#include "fdcheck.h"
#include "umbra.h"
__attribute__((noinline)) double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += sin(x[i]) * exp(0.5 * x[i]) + log(1 + x[i] * x[i]) + cos(x[i]) * tanh(x[i]) + pow(x[i] * x[i] + 1, 0.3);
  return s;
}
float g(const float *x, int n) {
  float s = 0;
  for (int i = 0; i < n; i++) s += sinf(x[i]) * expf(x[i]) + sqrtf(1 + x[i] * x[i]);
  return s;
}
enum { N = 37 };
static double at(const double *p, void *c) { (void)c; return f(p, N); }
int main(void) {
  double x[N], dx[N] = {0}, fd[N], v[N];
  for (int i = 0; i < N; i++) { x[i] = 0.33 + 0.071 * i - 0.43 * (i % 2); v[i] = 1 - 0.03 * i; }
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  fd_grad(at, NULL, x, N, fd);
  fd_check_array("d", dx, fd, N);
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, N);
  double jv = 0; for (int i = 0; i < N; i++) jv += fd[i] * v[i];
  fd_check("tangent", t, jv);
  float xf[N], dxf[N] = {0};
  for (int i = 0; i < N; i++) xf[i] = (float)x[i];
  __enzyme_autodiff((void *)g, enzyme_dup, xf, dxf, enzyme_const, N);
  for (int i = 0; i < N; i++) { double e = cos(xf[i]) * exp(xf[i]) + sin(xf[i]) * exp(xf[i]) + xf[i] / sqrt(1 + (double)xf[i] * xf[i]); fd_check_f("dg", dxf[i], e); }
  return fd_finish();
}
