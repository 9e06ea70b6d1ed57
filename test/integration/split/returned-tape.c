// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 3 %t
// Split mode without a caller buffer: __enzyme_augmentfwd returns the tape with f's result
// ({tape, result}, Enzyme's order) and __enzyme_reverse takes the result's adjoint and then the
// tape after the arguments, returning the `out` adjoints. Two tapes are alive at once (two
// forward sweeps, then their reverse sweeps in the other order), and the pointer-only variant
// keeps the tape's address in a slot (enzyme_tape without enzyme_allocated).
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_tape;
struct fwd { void *tape; double y; };
struct fwd __enzyme_augmentfwd(void *, ...);
struct grad2 { double da, db; };
struct grad2 __enzyme_reverse(void *, ...);
double __enzyme_reverse_1(void *, ...);
double __enzyme_augmentfwd_d(void *, ...);

enum { N = 5 };

// A loop whose trip count and branch depend on the data: the tape records which way it went.
__attribute__((noinline)) double g(const double *x, int n, double a, double b) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double v = a * x[i] + b;
    s += v > 0 ? v * v : sin(v) * b;
  }
  return s * a;
}

static double g_at(const double *p, void *ctx) {
  (void)ctx;
  return g(p, N, p[N], p[N + 1]);
}

__attribute__((noinline)) double h(double a) { return a * exp(-a) + log(a); }

int main(void) {
  double p[N + 2], q[N + 2], dx1[N] = {0}, dx2[N] = {0}, fd1[N + 2], fd2[N + 2];
  for (int i = 0; i < N; i++) {
    p[i] = 0.7 - 0.35 * i;
    q[i] = -0.2 + 0.3 * i;
  }
  p[N] = 0.9, p[N + 1] = -0.4;
  q[N] = -1.3, q[N + 1] = 0.6;
  double x1[N], x2[N];
  for (int i = 0; i < N; i++) x1[i] = p[i], x2[i] = q[i];

  struct fwd r1 = __enzyme_augmentfwd((void *)g, enzyme_dup, x1, dx1, enzyme_const, N,
                                      enzyme_out, p[N], enzyme_out, p[N + 1]);
  struct fwd r2 = __enzyme_augmentfwd((void *)g, enzyme_dup, x2, dx2, enzyme_const, N,
                                      enzyme_out, q[N], enzyme_out, q[N + 1]);
  fd_check("g(p)", r1.y, g_at(p, NULL));
  fd_check("g(q)", r2.y, g_at(q, NULL));
  for (int i = 0; i < N; i++) x1[i] = x2[i] = 0;  // the sweeps must not re-read x
  struct grad2 d2 = __enzyme_reverse((void *)g, enzyme_dup, x2, dx2, enzyme_const, N,
                                     enzyme_out, q[N], enzyme_out, q[N + 1], 2.0, r2.tape);
  struct grad2 d1 = __enzyme_reverse((void *)g, enzyme_dup, x1, dx1, enzyme_const, N,
                                     enzyme_out, p[N], enzyme_out, p[N + 1], 1.0, r1.tape);
  fd_grad(g_at, NULL, p, N + 2, fd1);
  fd_grad(g_at, NULL, q, N + 2, fd2);
  for (int i = 0; i < N + 2; i++) fd2[i] *= 2.0;
  fd_check_array("dx1", dx1, fd1, N);
  fd_check("da1", d1.da, fd1[N]);
  fd_check("db1", d1.db, fd1[N + 1]);
  fd_check_array("dx2", dx2, fd2, N);
  fd_check("da2", d2.da, fd2[N]);
  fd_check("db2", d2.db, fd2[N + 1]);

  // The tape's address in a slot; the result's adjoint defaults to 1.0.
  void *slot;
  double a = 1.7;
  double y = __enzyme_augmentfwd_d((void *)h, enzyme_tape, &slot, a);
  fd_check("h(a)", y, h(a));
  double da = __enzyme_reverse_1((void *)h, enzyme_tape, &slot, a);
  fd_check("dh", da, (h(a + 1e-6) - h(a - 1e-6)) / 2e-6);
  return fd_finish();
}
