// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: %clang -O2 -g -c -emit-llvm -I %testinc %s -o %t.bc
// RUN: %umbra %t.bc -O2 --tape-stats -o %t.o
// RUN: %clang %t.o -lm -o %t.stats.exe
// RUN: %t.stats.exe tape
// A helper without loops keeps what its adjoint needs in its frame, once per call. Its
// products fuse into llvm.fmuladd (clang contracts `a * b + c`), which the frame kept beside
// the six coordinates they are computed from, as if they were costly libm calls; they cost
// what arithmetic costs and are now computed again from the kept coordinates. The helper is
// called once per element of a loop that overwrites the coordinates, so its frame is taped
// per element: the six coordinates (48 bytes), 120 before with the products. The gradient is
// checked against finite differences.
#include "fdcheck.h"
#include <string.h>
void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;
enum { N = 500 };
__attribute__((noinline)) double span(const double *p) {
  double a = p[0] * p[1] + p[2] * p[3] + p[4] * p[5];
  double b = p[0] * p[3] + p[1] * p[4] + p[2] * p[5];
  double c = p[0] * p[5] + p[1] * p[3] + p[2] * p[4];
  return sqrt(a * a + b * b + c * c);
}
__attribute__((noinline)) double sweep(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += span(&x[i]);
    x[i] = 0.01 * s;
  }
  return s;
}
static long long tape_bytes;
void umbra_tape_stats(long long bytes) { tape_bytes = bytes; }
static double x0[N + 5];
static double at_x(const double *x, void *c) {
  (void)c;
  double y[N + 5];
  memcpy(y, x, sizeof y);
  return sweep(y, N);
}
int main(int argc, char **argv) {
  double x[N + 5], dx[N + 5] = {0}, fd[N + 5];
  for (int i = 0; i < N + 5; i++) x0[i] = 0.6 + 0.3 * sin(0.9 * i);
  memcpy(x, x0, sizeof x);
  __enzyme_autodiff((void *)sweep, enzyme_dup, x, dx, enzyme_const, N);
  if (argc > 1 && strcmp(argv[1], "tape") == 0) {
    printf("tape bytes: %lld (48 per element: %d)\n", tape_bytes, 48 * N);
    fd_check_exact("the coordinates per element, not their products", tape_bytes <= 48 * N + 512, 1);
    return fd_finish();
  }
  fd_grad(at_x, NULL, x0, N + 5, fd);
  fd_check_array("d/dx", dx, fd, N + 5);
  return fd_finish();
}
