// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// The size a gradient's first tape chunk starts with (the hint) is learnt between the sweeps,
// where the tape is at its peak, so the third call of the same gradient already fits one
// chunk, the pool's spare, and faults in no fresh pages. Before, the hint was raised only
// where a chunk overflowed, trailing a tape that went on growing (callees pushing after it):
// here calls 3 to 5 still faulted pages in, a hydrodynamics step's first ten calls did.
#include "fdcheck.h"
#include <stdlib.h>
#include <sys/resource.h>

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

static long faults(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

__attribute__((noinline)) void stage(double *x, double *t, int n, double c) {
  for (int i = 0; i < n; i++) t[i] = sin(x[i]) * x[i] + c;
}
__attribute__((noinline)) void back(double *x, const double *t, int n) {
  for (int i = 0; i < n; i++) x[i] = t[i] * t[i];
}

double f(double *x, int n) {
  double *t = malloc(n * sizeof *t); /* a temporary, as a std::vector in a kernel */
  for (int r = 0; r < 4; r++) {
    stage(x, t, n, 0.1 * r);
    back(x, t, n);
  }
  free(t);
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i];
  return s;
}

enum { N = 1000000 };

int main(void) {
  double *x0 = malloc(N * sizeof *x0), *x = malloc(N * sizeof *x), *dx = malloc(N * sizeof *dx);
  for (int i = 0; i < N; i++) x0[i] = 0.5 + 1e-7 * i;
  long worst = 0;
  for (int call = 1; call <= 6; call++) {
    for (int i = 0; i < N; i++) x[i] = x0[i], dx[i] = 0;
    long f0 = faults();
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
    long got = faults() - f0;
    printf("call %d: %ld page faults\n", call, got);
    if (call >= 3 && got > worst) worst = got;
  }
  fd_check_exact("calls from the third on fault in under 64 pages", worst < 64, 1);
  return fd_finish();
}
