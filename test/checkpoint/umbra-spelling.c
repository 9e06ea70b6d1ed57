// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s plugin 3 %t
// Umbra's spellings (__umbra_checkpoint_for, umbra_scheme, umbra_checkpoint_region) through
// umbra.h and <umbra/checkpoint.h> together, two regions (the state lives in two arrays that
// each step overwrites), periodic checkpointing, a start index other than 0, and the gradient
// against finite differences.
#include <umbra.h>
#include <umbra/checkpoint.h>

#include "fdcheck.h"

#define N 3

__attribute__((noinline)) static void step(int64_t i, double *p, double *q, const double *w) {
  for (int j = 0; j < N; j++) {
    double pj = p[j];
    p[j] = pj + 0.05 * q[j] * w[j];
    q[j] = q[j] - 0.05 * sin(pj) * (1.0 + 0.01 * (double)i);
  }
}

static EnzymeCkptConfig config = {4, 0, NULL, 0, NULL};

static double energy(double *p, double *q, const double *w) {
  __umbra_checkpoint_for((void *)step, 10, 30, umbra_scheme, &EnzymeCkptPeriodic, &config,
                         umbra_checkpoint_region, p, (int64_t)sizeof(double) * N,
                         umbra_checkpoint_region, q, (int64_t)sizeof(double) * N, p, q, w);
  double e = 0;
  for (int j = 0; j < N; j++)
    e += p[j] * p[j] + q[j] * w[j];
  return e;
}

static double at(const double *x, void *ctx) {
  (void)ctx;
  double p[N], q[N], w[N];
  memcpy(p, x, sizeof(p));
  memcpy(q, x + N, sizeof(q));
  memcpy(w, x + 2 * N, sizeof(w));
  for (int64_t i = 10; i < 40; i++)
    step(i, p, q, w);
  double e = 0;
  for (int j = 0; j < N; j++)
    e += p[j] * p[j] + q[j] * w[j];
  return e;
}

int main(void) {
  double x[3 * N], fd[3 * N], g[3 * N] = {0};
  for (int j = 0; j < 3 * N; j++)
    x[j] = 0.2 + 0.15 * j;
  fd_grad(at, NULL, x, 3 * N, fd);
  double p[N], q[N], w[N];
  memcpy(p, x, sizeof(p));
  memcpy(q, x + N, sizeof(q));
  memcpy(w, x + 2 * N, sizeof(w));
  __umbra_autodiff((void *)energy, umbra_dup, p, g, umbra_dup, q, g + N, umbra_dup, w, g + 2 * N);
  fd_check_array("gradient", g, fd, 3 * N);
  return fd_finish();
}
