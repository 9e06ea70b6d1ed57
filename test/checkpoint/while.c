// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 3 %t
// __enzyme_checkpoint_while: a damped oscillator integrated until its energy falls below a
// threshold (the number of steps is known only when the loop ends: 200-odd here), with the
// store-all scheme, which learns it through set_nsteps. The gradient equals the plain while
// loop's, fully taped, and finite differences (at points where the step count does not change
// under the perturbation); every step is differentiated once and none is recomputed but
// those store-all reruns.
#include <umbra/checkpoint.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

// One step of x'' = -k x - c x'; whether the energy is still above 1e-2.
__attribute__((noinline)) static int step(int64_t i, double *s, const double *k, double *path) {
  double x = s[0], v = s[1], h = 0.05;
  s[1] = v + h * (-k[0] * x - k[1] * v);
  s[0] = x + h * s[1];
  *path += fabs(s[0]) * h * (1.0 + 1e-3 * (double)i);
  return 0.5 * (s[0] * s[0] + s[1] * s[1]) > 1e-2;
}

static EnzymeCkptStats stats;
static EnzymeCkptConfig config = {0, 0, NULL, 0, &stats};

static double checkpointed(double *s, const double *k, double *path) {
  __enzyme_checkpoint_while((void *)step, enzyme_scheme, &EnzymeCkptStoreAll, &config,
                            enzyme_checkpoint_region, s, (int64_t)sizeof(double) * 2,
                            enzyme_checkpoint_region, path, (int64_t)sizeof(double), s, k, path);
  return *path + s[0];
}

static double plain(double *s, const double *k, double *path) {
  int64_t i = 0;
  while (step(i++, s, k, path))
    ;
  return *path + s[0];
}

static double at(const double *x, void *ctx) {
  (void)ctx;
  double s[2] = {x[0], x[1]}, k[2] = {x[2], x[3]}, path = 0;
  return plain(s, k, &path);
}

int main(void) {
  int failures = 0;
  double x[4] = {1.0, 0.0, 2.0, 0.3}, fd[4];
  fd_grad(at, NULL, x, 4, fd);
  double s[2] = {1.0, 0.0}, k[2] = {2.0, 0.3}, path = 0;
  double ds[2] = {0}, dk[2] = {0}, dpath = 0;
  __enzyme_autodiff((void *)checkpointed, enzyme_dup, s, ds, enzyme_dup, k, dk, enzyme_dup,
                    &path, &dpath);
  double s2[2] = {1.0, 0.0}, path2 = 0, ds2[2] = {0}, dk2[2] = {0}, dpath2 = 0;
  __enzyme_autodiff((void *)plain, enzyme_dup, s2, ds2, enzyme_dup, k, dk2, enzyme_dup, &path2,
                    &dpath2);
  double g[4] = {ds[0], ds[1], dk[0], dk[1]}, g2[4] = {ds2[0], ds2[1], dk2[0], dk2[1]};
  fd_check_array("gradient vs FD", g, fd, 4);
  for (int j = 0; j < 4; j++)
    if (fabs(g[j] - g2[j]) > 1e-13 * (1 + fabs(g2[j]))) {
      printf("FAIL d[%d] = %.17g, fully taped %.17g\n", j, g[j], g2[j]);
      failures++;
    }
  if (s[0] != s2[0] || s[1] != s2[1]) {
    printf("FAIL the state after the gradient differs from the plain loop's\n");
    failures++;
  }
  printf("%lld steps differentiated, %lld recomputed, %lld snapshots\n",
         (long long)stats.taped_steps, (long long)stats.forward_steps,
         (long long)stats.max_slots);
  if (stats.taped_steps < 100 || stats.max_slots != stats.taped_steps) {
    printf("FAIL statistics\n");
    failures++;
  }
  return fd_finish() | (failures != 0);
}
