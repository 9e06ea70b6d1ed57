// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 3 %t
// Forward mode through __enzyme_checkpoint_for is the plain loop's tangent (the scheme is not
// consulted): equal to the tangent of the same loop written out, and to finite differences.
#include <umbra/checkpoint.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

#define M 5

__attribute__((noinline)) static void step(int64_t i, double *u, const double *k) {
  double next[M];
  for (int j = 0; j < M; j++)
    next[j] = u[j] + 0.1 * k[j] * sin(u[(j + 1) % M]) + 0.01 * (double)i;
  memcpy(u, next, sizeof(next));
}

static EnzymeCkptConfig config = {2, 0, NULL, 0, NULL};

static double checkpointed(double *u, const double *k, int64_t n) {
  __enzyme_checkpoint_for((void *)step, 3, n, enzyme_scheme, &EnzymeCkptRevolve, &config,
                          enzyme_checkpoint_region, u, (int64_t)sizeof(double) * M, u, k);
  return u[0] * u[2];
}

static double plain(double *u, const double *k, int64_t n) {
  for (int64_t i = 3; i < 3 + n; i++)
    step(i, u, k);
  return u[0] * u[2];
}

static double at(const double *x, void *ctx) {
  (void)ctx;
  double u[M], k[M];
  memcpy(u, x, sizeof(u));
  memcpy(k, x + M, sizeof(k));
  return plain(u, k, 20);
}

int main(void) {
  double x[2 * M], v[2 * M];
  for (int j = 0; j < 2 * M; j++) {
    x[j] = 0.3 + 0.1 * j;
    v[j] = cos(j);
  }
  double u[M], k[M], du[M], dk[M], u2[M], du2[M];
  memcpy(u, x, sizeof(u));
  memcpy(u2, x, sizeof(u));
  memcpy(k, x + M, sizeof(k));
  memcpy(du, v, sizeof(du));
  memcpy(du2, v, sizeof(du));
  memcpy(dk, v + M, sizeof(dk));
  double t = __enzyme_fwddiff((void *)checkpointed, enzyme_dup, u, du, enzyme_dup, k, dk,
                              enzyme_const, (int64_t)20);
  double t2 = __enzyme_fwddiff((void *)plain, enzyme_dup, u2, du2, enzyme_dup, k, dk,
                               enzyme_const, (int64_t)20);
  fd_check("tangent", t, fd_dir(at, NULL, x, v, 2 * M));
  fd_check("tangent = plain loop's", t, t2);
  fd_check_array("state tangent = plain loop's", du, du2, M);
  return fd_finish();
}
