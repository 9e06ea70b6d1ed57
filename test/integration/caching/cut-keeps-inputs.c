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
// What a loop body tapes is a minimum cut: when the memory a body reads is overwritten
// before the adjoint runs (here in place, one statement later), the values it read must be
// kept, but the many products computed from them need not be: the adjoint computes those
// again from the two kept inputs. Keeping each product its adjoint needs instead took six
// doubles per iteration. With --tape-stats the tape is checked to hold at most the two inputs
// (and the loop's bookkeeping) per iteration; the gradient, through memory that IS
// overwritten, is checked against finite differences.
#include "fdcheck.h"
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
enum { N = 1000 };
__attribute__((noinline)) double relax(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n - 1; i++) {
    double a = x[i], b = x[i + 1];
    double p = a * b, q = a + b, r = a - b, t = a * a + b;
    s += p * q * r * t + p * t;
    x[i] = 0.5 * a + 0.25 * b;
  }
  return s;
}
static long long tape_bytes;
void umbra_tape_stats(long long bytes) { tape_bytes = bytes; }
static double x0[N];
static double at_x(const double *x, void *c) {
  (void)c;
  double y[N];
  memcpy(y, x, sizeof y);
  return relax(y, N);
}
int main(int argc, char **argv) {
  double x[N], dx[N] = {0}, fd[N];
  for (int i = 0; i < N; i++) x0[i] = 0.8 + 0.2 * sin(0.3 * i);
  memcpy(x, x0, sizeof x);
  __enzyme_autodiff((void *)relax, enzyme_dup, x, dx, enzyme_const, N);
  if (argc > 1 && strcmp(argv[1], "tape") == 0) {
    printf("tape bytes: %lld (two inputs per iteration: %d)\n", tape_bytes, 16 * N);
    fd_check_exact("two inputs per iteration at most", tape_bytes <= 16 * N + 512, 1);
    return fd_finish();
  }
  fd_grad(at_x, NULL, x0, N, fd);
  fd_check_array("d/dx", dx, fd, N);
  return fd_finish();
}
