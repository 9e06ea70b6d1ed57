// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Branches inside loops whose direction the adjoint works out again instead of reading it
// from the tape: conditions on induction variables (a triangular mask, as kron_view_sum's
// upper triangle; nested ifs; an if without else) and on inputs the function never writes.
// Beside them, a loop between constants a `break` may leave early, and a branch on a buffer the function overwrites afterwards, whose direction must
// still come from the tape: the adjoint would see the new values.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { NA = 6, NB = 5 };

// kron(A, upper-triangle(B)) summed with weights, the mask decided by the loop counters.
double masked_kron(const double *a, const double *b) {
  double *k = malloc(sizeof *k * NA * NB * NB);
  for (int i = 0; i < NA; i++)
    for (int r = 0; r < NB; r++)
      for (int c = 0; c < NB; c++) {
        if (c >= r)
          k[(i * NB + r) * NB + c] = a[i] * b[r * NB + c];
        else
          k[(i * NB + r) * NB + c] = 0;
      }
  double s = 0;
  for (int p = 0; p < NA * NB * NB; p++)
    s += k[p] * (1 + 0.01 * p);
  free(k);
  return s;
}

// Nested ifs and an if without else, on counters and on read-only data.
double piecewise(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double v = x[i];
    if (i % 3 == 0) {
      if (v > 0.5)
        v = v * v;
      else
        v = sin(v);
    } else if (i & 1) {
      v = exp(0.3 * v);
    }
    if (x[i] < x[(i + 1) % n])
      v = v * x[(i + 1) % n];
    s += v;
  }
  return s;
}

// The branch reads w[i], which the loop then overwrites: the direction is taped.
double overwritten_condition(const double *x, int n) {
  double *w = malloc(sizeof *w * n);
  for (int i = 0; i < n; i++)
    w[i] = x[i];
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (w[i] > 0.5)
      s += w[i] * x[i];
    else
      s += cos(w[i]);
    w[i] = 1.0 - w[i]; // flips the branch if it were decided again
  }
  for (int i = 0; i < n; i++)
    s += w[i] * w[i];
  free(w);
  return s;
}

// A loop between constants that a `break` may leave early: its last counter value is not
// known in advance, so it is recorded.
double early_exit(const double *x) {
  double s = 0;
  for (int i = 0; i < 10; i++) {
    if (x[i] > 0.9)
      break;
    s += x[i] * x[i] * (i + 1);
  }
  return s;
}

enum { N = 10 };
static double early_exit_at(const double *p, void *ctx) { (void)ctx; return early_exit(p); }
static double kron_at(const double *p, void *ctx) { (void)ctx; return masked_kron(p, p + NA); }
static double piecewise_at(const double *p, void *ctx) { (void)ctx; return piecewise(p, N); }
static double overwritten_at(const double *p, void *ctx) {
  (void)ctx;
  return overwritten_condition(p, N);
}

int main(void) {
  double ab[NA + NB * NB], dab[NA + NB * NB] = {0}, fdab[NA + NB * NB];
  for (int i = 0; i < NA + NB * NB; i++) ab[i] = 0.3 + 0.07 * i - 0.5 * (i % 3 == 1);
  __enzyme_autodiff((void *)masked_kron, enzyme_dup, ab, dab, enzyme_dup, ab + NA, dab + NA);
  fd_grad(kron_at, NULL, ab, NA + NB * NB, fdab);
  fd_check_array("masked_kron", dab, fdab, NA + NB * NB);

  double x[N], dx[N] = {0}, fd[N];
  for (int i = 0; i < N; i++) x[i] = 0.2 + 0.11 * i - 0.35 * (i % 2);
  __enzyme_autodiff((void *)piecewise, enzyme_dup, x, dx, enzyme_const, N);
  fd_grad(piecewise_at, NULL, x, N, fd);
  fd_check_array("piecewise", dx, fd, N);

  double dy[N] = {0};
  __enzyme_autodiff((void *)overwritten_condition, enzyme_dup, x, dy, enzyme_const, N);
  fd_grad(overwritten_at, NULL, x, N, fd);
  fd_check_array("overwritten_condition", dy, fd, N);

  double de[N] = {0};
  __enzyme_autodiff((void *)early_exit, enzyme_dup, x, de);
  fd_grad(early_exit_at, NULL, x, N, fd);
  fd_check_array("early_exit", de, fd, N);
  return fd_finish();
}
