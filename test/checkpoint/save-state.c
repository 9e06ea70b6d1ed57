// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: %clang -O1 -I%runtime-include -I%testinc -DNEITHER -c -emit-llvm %s -o %t.n.bc
// RUN: %umbra %t.n.bc -o %t.n.o
// RUN: %clang %t.n.o -lm -o %t.n
// RUN: not --crash %t.n 2>&1 | FileCheck %s --check-prefix=NEITHER
// A scheme that copies the state itself (Enzyme's save_state/load_state hooks, store and
// restore NULL): Umbra hands it the step's arguments after the index, each followed by its
// shadow (env), and the scheme keeps the array the first one points to. Binomial schedule
// (the reference Revolve's actions): the gradient equals the fully taped one and finite
// differences, and the hooks did the copying. A scheme with neither pair stops the program
// with a message (NEITHER).
#include <umbra/checkpoint.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

#define N 4
#define STEPS 23
#define SLOTS 64

__attribute__((noinline)) static void step(int64_t i, double *u, const double *k) {
  double next[N];
  for (int j = 0; j < N; j++)
    next[j] = u[j] + 0.1 * k[j] * sin(u[(j + 1) % N]) - 0.01 * u[j] * (double)(i % 3);
  memcpy(u, next, sizeof(next));
}

// The scheme: Revolve's schedule, the scheme's own copies of u (env[0]) per slot.
static double held[SLOTS + 2][N];
static int saves, loads;

static void save(void *state, int64_t slot, int64_t i, void *env) {
  (void)state;
  (void)i;
  const double *u = ((double *const *)env)[0];
  memcpy(held[slot + 2], u, sizeof(held[0]));
  saves++;
}

static void load(void *state, int64_t slot, int64_t i, void *env) {
  (void)state;
  (void)i;
  double *u = ((double **)env)[0];
  memcpy(u, held[slot + 2], sizeof(held[0]));
  loads++;
}

static EnzymeCheckpointScheme by_state = {ENZYME_CKPT_ABI_VERSION,
                                          umbra_ckpt_revolve_init,
                                          umbra_ckpt_revolve_next,
                                          NULL,
                                          NULL,
                                          NULL,
                                          umbra_ckpt_revolve_finalize,
#if defined(NEITHER)
                                          NULL,
                                          NULL,
#else
                                          save,
                                          load,
#endif
                                          NULL};

static EnzymeCkptConfig config = {3, 0, NULL, 0, NULL};

static double checkpointed(double *u, const double *k) {
  __enzyme_checkpoint_for((void *)step, 0, STEPS, enzyme_scheme, &by_state, &config,
                          enzyme_checkpoint_region, u, (int64_t)sizeof(double) * N, u, k);
  return u[0] * u[1] + u[2] - u[3] * u[3];
}

static double plain(double *u, const double *k) {
  for (int64_t i = 0; i < STEPS; i++)
    step(i, u, k);
  return u[0] * u[1] + u[2] - u[3] * u[3];
}

static const double k0[N] = {1.0, 0.5, -0.7, 1.3};

static double at(const double *x, void *ctx) {
  (void)ctx;
  double u[N];
  memcpy(u, x, sizeof(u));
  return plain(u, k0);
}

int main(void) {
  int failures = 0;
  double x[N] = {0.2, -0.4, 0.9, 0.3}, fd[N];
  fd_grad(at, NULL, x, N, fd);
  double u[N], du[N] = {0}, u2[N], du2[N] = {0}, k[N], dk[N] = {0}, k2[N], dk2[N] = {0};
  memcpy(u, x, sizeof(u));
  memcpy(u2, x, sizeof(u));
  memcpy(k, k0, sizeof(k));
  memcpy(k2, k0, sizeof(k));
  __enzyme_autodiff((void *)plain, enzyme_dup, u2, du2, enzyme_dup, k2, dk2);
  // NEITHER: umbra checkpoint: the scheme has neither store/restore nor save_state/load_state
  __enzyme_autodiff((void *)checkpointed, enzyme_dup, u, du, enzyme_dup, k, dk);
  fd_check_array("gradient vs FD", du, fd, N);
  for (int j = 0; j < N; j++)
    if (fabs(du[j] - du2[j]) > 1e-13 * (1 + fabs(du2[j])) ||
        fabs(dk[j] - dk2[j]) > 1e-13 * (1 + fabs(dk2[j]))) {
      printf("FAIL d[%d] = %.17g %.17g, fully taped %.17g %.17g\n", j, du[j], dk[j], du2[j],
             dk2[j]);
      failures++;
    }
  if (saves < 3 || loads < 3) {
    printf("FAIL the hooks copied %d and %d times\n", saves, loads);
    failures++;
  }
  printf("%d saves, %d loads\n", saves, loads);
  return fd_finish() | (failures != 0);
}
