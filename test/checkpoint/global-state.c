// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 3 %t
// A step that advances a generator kept in a global (no derivative: an integer state) and
// scales the state by what it draws, and reads a global table no code writes: snapshots hold
// the generator without its being marked (as in Enzyme: globals a step writes are kept), so
// the recomputed steps draw the same numbers and the gradient equals the plain loop's, fully
// taped, and finite differences; the generator is left as the plain loop leaves it.
#include <umbra/checkpoint.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

#define N 4

static unsigned long long seed;
static double table[N] = {0.5, 0.25, 0.125, 0.0625}; // read only

static double draw(void) {
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(seed >> 40) / (double)(1ULL << 24);
}

__attribute__((noinline)) static void step(int64_t i, double *u) {
  (void)i;
  for (int k = 0; k < N; k++)
    u[k] = u[k] * (0.9 + 0.2 * draw()) + table[k] * sin(u[(k + 1) % N]);
}

static EnzymeCkptConfig config = {3, 0, NULL, 0, NULL};

static double checkpointed(double *u) {
  __enzyme_checkpoint_for((void *)step, 0, 25, enzyme_scheme, &EnzymeCkptRevolve, &config,
                          enzyme_checkpoint_region, u, (int64_t)sizeof(double) * N, u);
  return u[0] + 2 * u[1] + u[2] * u[3];
}

static double plain(double *u) {
  for (int64_t i = 0; i < 25; i++)
    step(i, u);
  return u[0] + 2 * u[1] + u[2] * u[3];
}

static double at(const double *x, void *ctx) {
  (void)ctx;
  double u[N];
  memcpy(u, x, sizeof(u));
  seed = 7;
  return plain(u);
}

int main(void) {
  int failures = 0;
  double x[N] = {0.3, 0.6, 0.9, 1.2}, fd[N];
  fd_grad(at, NULL, x, N, fd);
  double u[N], du[N] = {0}, u2[N], du2[N] = {0};
  memcpy(u, x, sizeof(u));
  memcpy(u2, x, sizeof(u));
  seed = 7;
  __enzyme_autodiff((void *)plain, enzyme_dup, u2, du2);
  unsigned long long after_plain = seed;
  seed = 7;
  __enzyme_autodiff((void *)checkpointed, enzyme_dup, u, du);
  fd_check_array("gradient vs FD", du, fd, N);
  for (int k = 0; k < N; k++)
    if (fabs(du[k] - du2[k]) > 1e-13 * (1 + fabs(du2[k]))) {
      printf("FAIL du[%d] = %.17g, fully taped %.17g\n", k, du[k], du2[k]);
      failures++;
    }
  if (seed != after_plain) {
    printf("FAIL the generator after the gradient differs from the plain loop's\n");
    failures++;
  }
  return fd_finish() | (failures != 0);
}
