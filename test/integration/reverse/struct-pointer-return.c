// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// A struct of two pointers returned by value (`{ptr, ptr}`, coerced by the ABI): the callee's
// augmented sweep must return the struct's shadow too, or the caller reads and writes through
// null shadows (issue 15). Also a struct of pointers passed by value and picked by a select.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

typedef struct {
  double *u, *v;
} Pair;

__attribute__((noinline)) Pair pick(double *a, double *b, int swap) {
  Pair p;
  if (swap) {
    p.u = b;
    p.v = a;
  } else {
    p.u = a;
    p.v = b;
  }
  return p;
}

__attribute__((noinline)) double dot(Pair p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += p.u[i] * p.v[i] * p.v[i];
  return s;
}

double f(double *a, double *b, int n) {
  Pair p = pick(a, b, 1);
  Pair q = pick(a, b, 0);
  p.u[0] *= 1.5; // through a returned pointer
  return dot(p, n) + 0.5 * dot(q, n);
}

enum { N = 3 };
static double f_at(const double *x, void *ctx) {
  (void)ctx;
  double a[N], b[N];
  for (int i = 0; i < N; i++) a[i] = x[i], b[i] = x[N + i];
  return f(a, b, N);
}

int main(void) {
  double x[2 * N] = {0.5, -1.25, 2.0, 0.75, 1.5, -0.5}, fd[2 * N], ad[2 * N];
  double a[N], b[N], da[N] = {0}, db[N] = {0};
  for (int i = 0; i < N; i++) a[i] = x[i], b[i] = x[N + i];
  __enzyme_autodiff((void *)f, enzyme_dup, a, da, enzyme_dup, b, db, enzyme_const, N);
  for (int i = 0; i < N; i++) ad[i] = da[i], ad[N + i] = db[i];
  fd_grad(f_at, NULL, x, 2 * N, fd);
  fd_check_array("d(a, b)", ad, fd, 2 * N);
  return fd_finish();
}
