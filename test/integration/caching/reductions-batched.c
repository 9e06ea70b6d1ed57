// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: %clang -O2 -ffast-math -g -c -emit-llvm -I %testinc %s -o %t.bc
// RUN: %umbra %t.bc -O2 --tape-stats -o %t.o
// RUN: %clang %t.o -lm -o %t.stats.exe
// RUN: %t.stats.exe tape
// EXEC-CFLAGS: -ffast-math
// With -ffast-math the two dot products of this loop body become vector reductions
// (llvm.vector.reduce.fadd). A reduction's hand-written rule tapes nothing of its own, yet it
// used to split the body's tape traffic into separate runs, and every run pushed again what
// it shared with the others (the input and the loop-carried value, twice per iteration), and
// the sums were taped instead of rebuilt. Now the body is one run whose minimum cut keeps the
// two inputs (one loaded, one carried from the previous iteration's store: the memory is
// overwritten) and rebuilds the rest, reductions included. --tape-stats checks the tape holds
// at most 16 bytes per element (48 before); the gradient is checked against finite
// differences at -O0..-O3.
#include "fdcheck.h"
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
enum { N = 1000 };
__attribute__((noinline)) double relax(double *restrict x, const double *restrict w, int n) {
  double s = 0;
  for (int i = 0; i < n - 1; i++) {
    double a = x[i], b = x[i + 1];
    double v[8] = {a * b, a + b, a - b, a * a, b * b, a * b * b, a / b, b - 2 * a};
    double d = 0;
    for (int k = 0; k < 8; k++) d += v[k] * w[k];
    double e = 0;
    for (int k = 0; k < 8; k++) e += v[k] * v[k] * w[k + 8];
    s += d * e * a + v[0] * e + v[6] * d;
    x[i + 1] = 0.5 * a + 0.25 * b;
  }
  return s;
}
static long long tape_bytes;
void umbra_tape_stats(long long bytes) { tape_bytes = bytes; }
static double x0[N], w[16];
static double at_x(const double *x, void *c) {
  (void)c;
  double y[N];
  memcpy(y, x, sizeof y);
  return relax(y, w, N);
}
int main(int argc, char **argv) {
  double x[N], dx[N] = {0}, fd[N];
  for (int k = 0; k < 16; k++) w[k] = 0.1 + 0.05 * k;
  for (int i = 0; i < N; i++) x0[i] = 0.8 + 0.2 * sin(0.3 * i);
  memcpy(x, x0, sizeof x);
  __enzyme_autodiff((void *)relax, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, N);
  if (argc > 1 && strcmp(argv[1], "tape") == 0) {
    printf("tape bytes: %lld (16 per element: %d)\n", tape_bytes, 16 * N);
    fd_check_exact("16 bytes per element at most", tape_bytes <= 16 * N + 512, 1);
    return fd_finish();
  }
  fd_grad(at_x, NULL, x0, N, fd);
  fd_check_array("d/dx", dx, fd, N);
  return fd_finish();
}
