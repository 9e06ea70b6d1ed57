// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: env EXTRA_CFLAGS=-fsanitize=address EXTRA_LDFLAGS=-fsanitize=address %exec-test %s driver 1 %t
// RUN: env EXTRA_CFLAGS=-fsanitize=address EXTRA_LDFLAGS=-fsanitize=address %exec-test %s plugin 2 %t
// Under AddressSanitizer: the cell is freed after the loop, and the reverse sweep reads it.
// A plain `for` loop checkpointed in place: umbra_checkpoint_next_loop just before it, the body
// outlined by Umbra. The loop carries state in two heap arrays (marked regions), in a scalar
// sum (a register, moved into the outlined loop's cell) and in its counter; it reads a
// floating-point parameter by value (dt, whose derivative is asked for). The gradient must equal
// the same loop's without the marker (fully taped) and finite differences, and the scheme must
// have run (statistics).
#include <umbra/checkpoint.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_out, enzyme_const;
double __enzyme_autodiff(void *, ...);

#define N 8
#define STEPS 60

static EnzymeCkptStats stats;
static EnzymeCkptConfig config = {5, 0, NULL, 0, &stats};

#define LOOP_BODY                                                                             \
  for (int j = 0; j < N; j++)                                                                 \
    v[j] += dt * (u[(j + 1) % N] - 2 * u[j] + u[(j + N - 1) % N]) - dt * 0.1 * sin(u[j]);     \
  for (int j = 0; j < N; j++)                                                                 \
    u[j] += dt * v[j];                                                                        \
  acc += dt * u[0] * u[0] + 0.001 * t;

static double finish(const double *u, const double *v, double acc) {
  double e = acc;
  for (int j = 0; j < N; j++)
    e += u[j] * u[j] + 0.5 * v[j] * v[j];
  return e;
}

__attribute__((noinline)) double marked(double *u, double *v, double dt, int steps) {
  double acc = 0;
  umbra_checkpoint_next_loop(&EnzymeCkptRevolve, &config, umbra_checkpoint_region, u,
                             (int64_t)sizeof(double) * N, umbra_checkpoint_region, v,
                             (int64_t)sizeof(double) * N);
  for (int t = 0; t < steps; t++) {
    LOOP_BODY
  }
  return finish(u, v, acc);
}

__attribute__((noinline)) double taped(double *u, double *v, double dt, int steps) {
  double acc = 0;
  for (int t = 0; t < steps; t++) {
    LOOP_BODY
  }
  return finish(u, v, acc);
}

static double at(const double *x, void *ctx) {
  (void)ctx;
  double u[N], v[N];
  memcpy(u, x, sizeof(u));
  memcpy(v, x + N, sizeof(v));
  return taped(u, v, x[2 * N], STEPS);
}

int main(void) {
  double x[2 * N + 1], fd[2 * N + 1], g[2 * N + 1] = {0}, h[2 * N + 1] = {0};
  for (int j = 0; j < N; j++) {
    x[j] = exp(-0.3 * (j - 3) * (j - 3));
    x[N + j] = 0.01 * j;
  }
  x[2 * N] = 0.05;
  fd_grad(at, NULL, x, 2 * N + 1, fd);
  double u[N], v[N], u2[N], v2[N];
  memcpy(u, x, sizeof(u));
  memcpy(v, x + N, sizeof(v));
  memcpy(u2, u, sizeof(u));
  memcpy(v2, v, sizeof(v));
  g[2 * N] = __enzyme_autodiff((void *)marked, enzyme_dup, u, g, enzyme_dup, v, g + N, enzyme_out,
                               x[2 * N], enzyme_const, STEPS);
  h[2 * N] = __enzyme_autodiff((void *)taped, enzyme_dup, u2, h, enzyme_dup, v2, h + N, enzyme_out,
                               x[2 * N], enzyme_const, STEPS);
  fd_check_array("gradient (marked loop)", g, fd, 2 * N + 1);
  fd_check_array("gradient (fully taped)", h, fd, 2 * N + 1);
  for (int j = 0; j < 2 * N + 1; j++)
    fd_check_tol("marked = taped", g[j], h[j], 1e-12, 1e-14);
  // The scheme ran: every step differentiated once, some recomputed, at most 5 slots.
  fd_check_tol("steps differentiated", (double)stats.taped_steps, STEPS, 0, 0);
  if (stats.forward_steps <= STEPS || stats.max_slots > 5 || stats.max_slots < 2) {
    printf("FAIL: statistics %lld recomputed, %lld slots\n", (long long)stats.forward_steps,
           (long long)stats.max_slots);
    return 1;
  }
  return fd_finish();
}
