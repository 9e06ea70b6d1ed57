// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Split mode where the tape __enzyme_augmentfwd returns (a bare pointer: f returns void) goes
// straight into __enzyme_reverse, as it does from -O1 on (no stack slot in between). Lowering
// the forward sweep replaces its call, and the reverse sweep must use the replacement, not the
// call decoded before. f updates x in place through loops entered by goto from two places (an
// irreducible control flow graph, the shape of Enzyme's loopsnested.c), so the tape records
// how many times each ran.
#include "fdcheck.h"

void *__enzyme_augmentfwd(void *, double *, double *);
void __enzyme_reverse(void *, double *, double *, void *);

static inline void step_a(double x[2]) {
  double t = 1.5 * cos(x[0] - 0.5 * x[1]);
  x[0] = 1.2 * sin(0.8 * x[0] + x[1]) + 0.3;
  x[1] = t;
}

static inline void step_b(double x[2]) {
  double t = 1.1 * sin(x[0] + 0.7 * x[1]);
  x[0] = 0.9 * cos(0.6 * x[0] - x[1]) - 0.2;
  x[1] = t;
}

// The count bounds the trips whatever the values do.
__attribute__((noinline)) void f(double x[2]) {
  int n = 0;
A:
  step_a(x);
  if (++n > 7 || x[0] * x[0] > x[1] + 1.5)
    return;
  else if (x[0] > 0.1)
    goto A;
  else
    goto B;
B:
  step_b(x);
  if (++n > 7 || x[0] * x[0] > x[1] + 1.5)
    return;
  else if (x[1] > 0.2)
    goto A;
  else
    goto B;
}

static const double seed[2] = {1.0, 2.0};

// seed . f(p): its gradient is what the reverse sweep leaves in the shadow.
static double weighted(const double *p, void *ctx) {
  (void)ctx;
  double x[2] = {p[0], p[1]};
  f(x);
  return seed[0] * x[0] + seed[1] * x[1];
}

int main(void) {
  const double p[2] = {0.9, 0.7};
  double x[2] = {p[0], p[1]}, dx[2] = {seed[0], seed[1]}, fd[2];
  double y[2] = {p[0], p[1]};
  f(y);
  void *tape = __enzyme_augmentfwd((void *)f, x, dx);
  fd_check("x after the forward sweep", x[0], y[0]);
  fd_check("x[1] after the forward sweep", x[1], y[1]);
  __enzyme_reverse((void *)f, x, dx, tape);
  fd_grad(weighted, NULL, p, 2, fd);
  fd_check_array("dx", dx, fd, 2);
  return fd_finish();
}
