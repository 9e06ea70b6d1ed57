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
// A libm value computed in a loop around an inner loop (a rotation's sine and cosine, per
// angle) is rebuilt where the inner loop's adjoint needs it, which the optimiser hoists out of
// that loop, rather than taped: taped, everything computed from it in the inner loop (the
// rotated points, their distance, the branch on it) had to be taped too, per inner iteration
// (a docking kernel kept 1 MB per pose so). With --tape-stats the gradient's tape is checked
// to hold no per-inner-iteration bytes; the gradient is checked against finite differences.
#include "fdcheck.h"
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 24, M = 200 };

__attribute__((noinline)) double rotated(const double *ang, const double *p, int n, int m) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double c = cos(ang[i]), sn = sin(ang[i]);
    for (int j = 0; j < m; j++) {
      double x = c * p[2 * j] - sn * p[2 * j + 1];
      double y = sn * p[2 * j] + c * p[2 * j + 1];
      double d = sqrt(x * x + y * y + 1.0);
      s += d > 1.5 ? d * x : y * y;
    }
  }
  return s;
}

static long long tape_bytes;
void umbra_tape_stats(long long bytes) { tape_bytes = bytes; }

static double p[2 * M];
static double at_ang(const double *ang, void *c) {
  (void)c;
  return rotated(ang, p, N, M);
}
static double ang0[N];
static double at_p(const double *q, void *c) {
  (void)c;
  return rotated(ang0, q, N, M);
}

int main(int argc, char **argv) {
  double dang[N] = {0}, dp[2 * M] = {0}, fd[2 * M];
  for (int i = 0; i < N; i++) ang0[i] = 0.3 * i + 0.1;
  for (int j = 0; j < 2 * M; j++) p[j] = 1.7 * sin(0.37 * j + 0.2);
  __enzyme_autodiff((void *)rotated, enzyme_dup, ang0, dang, enzyme_dup, p, dp, enzyme_const,
                    N, enzyme_const, M);
  if (argc > 1 && strcmp(argv[1], "tape") == 0) {
    printf("tape bytes: %lld (one inner iteration's value each: %d)\n", tape_bytes, 8 * N * M);
    fd_check_exact("nothing taped per inner iteration", tape_bytes < 8 * N * M / 4, 1);
    return fd_finish();
  }
  fd_grad(at_ang, NULL, ang0, N, fd);
  fd_check_array("d/dang", dang, fd, N);
  fd_grad(at_p, NULL, p, 2 * M, fd);
  fd_check_array("d/dp", dp, fd, 2 * M);
  return fd_finish();
}
