// RUN: %clang -O0 -g -I%runtime-include -I%testinc -c -emit-llvm %s -o %t.0.bc
// RUN: not %umbra %t.0.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -I%runtime-include -I%testinc -c -emit-llvm %s -o %t.2.bc
// RUN: not %umbra %t.2.bc -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O1 -g -I%runtime-include -I%testinc -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O3 -g -I%runtime-include -I%testinc -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: env EXTRA_CFLAGS=-DMARKED %exec-test %s driver 0 %t
// RUN: env EXTRA_CFLAGS=-DMARKED %exec-test %s driver 3 %t
// RUN: env EXTRA_CFLAGS=-DMARKED %exec-test %s plugin 1 %t
// RUN: env EXTRA_CFLAGS=-DMARKED %exec-test %s plugin 2 %t
// RUN: env EXTRA_CFLAGS=-DAUTO %exec-test %s driver 0 %t
// RUN: env EXTRA_CFLAGS=-DAUTO %exec-test %s driver 2 %t
// RUN: env EXTRA_CFLAGS=-DAUTO %exec-test %s plugin 1 %t
// RUN: env EXTRA_CFLAGS=-DAUTO %exec-test %s plugin 3 %t
// A checkpointed step that updates heap memory in place besides its marked state u: w, which
// every step reads and writes, and a table of coefficients c (no derivative) it advances; it
// also records a trajectory it never reads (which needs no snapshot).
// Snapshots that held u alone would let recomputed steps read w and c as the reverse sweep
// finds them (after the last step): a silently wrong gradient (before Umbra checked this,
// this program gave dE/du0[4] = 13.6 against 6.18 by finite differences, and the AUTO one
// 9.15). Umbra refuses it at compile time, naming the step and the store into w with its
// source line, at every level through the driver and the plugin. Marked (MARKED), the
// gradient equals the fully taped one and finite differences; a global passed to the step by
// pointer (c in AUTO) has a known size and is kept without a mark.
#include <umbra/checkpoint.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

#define N 5
#define STEPS 30

static double coef[N];

__attribute__((noinline)) static void step(int64_t i, double *u, double *w, double *c,
                                           double *traj) {
  traj[i] = u[0]; // written, never read: no snapshot needs it
  for (int j = 0; j < N; j++) {
    u[j] = u[j] + 0.1 * sin(w[j]) * c[j] + 0.01 * (double)(i % 4);
    // CHECK: unmarked-state.c:[[@LINE+1]]:{{.*}}checkpointed step 'step' writes memory that later steps read and no snapshot holds{{.*}}enzyme_checkpoint_region
    w[j] = 0.9 * w[j] + 0.2 * u[j] * u[(j + 1) % N];
    c[j] = 0.5 * c[j] + 0.25;
  }
}

static EnzymeCkptConfig config = {4, 0, NULL, 0, NULL};
static const int64_t bytes = N * sizeof(double);

static double checkpointed(double *u, double *w, double *traj) {
#if defined(MARKED)
  __enzyme_checkpoint_for((void *)step, 0, STEPS, enzyme_scheme, &EnzymeCkptRevolve, &config,
                          enzyme_checkpoint_region, u, bytes, enzyme_checkpoint_region, w,
                          bytes, enzyme_checkpoint_region, coef, bytes, u, w, coef, traj);
#elif defined(AUTO)
  // w is marked; coef, a global passed by pointer, is kept without a mark.
  __enzyme_checkpoint_for((void *)step, 0, STEPS, enzyme_scheme, &EnzymeCkptRevolve, &config,
                          enzyme_checkpoint_region, u, bytes, enzyme_checkpoint_region, w,
                          bytes, u, w, coef, traj);
#else
  __enzyme_checkpoint_for((void *)step, 0, STEPS, enzyme_scheme, &EnzymeCkptRevolve, &config,
                          enzyme_checkpoint_region, u, bytes, u, w, coef, traj);
#endif
  double e = 0;
  for (int j = 0; j < N; j++)
    e += u[j] * u[j] + w[j];
  return e;
}

static double plain(double *u, double *w, double *traj) {
  for (int64_t i = 0; i < STEPS; i++)
    step(i, u, w, coef, traj);
  double e = 0;
  for (int j = 0; j < N; j++)
    e += u[j] * u[j] + w[j];
  return e;
}

static void init(double *u, double *w) {
  for (int j = 0; j < N; j++) {
    u[j] = 0.3 + 0.2 * j;
    w[j] = 1.0 - 0.1 * j;
    coef[j] = 1.0 + 0.5 * j;
  }
}

// E(u0) for finite differences (w0 fixed).
static double at(const double *x, void *ctx) {
  (void)ctx;
  double *u = malloc(bytes), *w = malloc(bytes);
  init(u, w);
  memcpy(u, x, bytes);
  double traj[STEPS];
  double e = plain(u, w, traj);
  free(u);
  free(w);
  return e;
}

int main(void) {
  int failures = 0;
  double x[N], fd[N];
  double *u = malloc(bytes), *w = malloc(bytes), *du = calloc(N, sizeof(double)),
         *dw = calloc(N, sizeof(double));
  double *traj = malloc(STEPS * sizeof(double)), *dtraj = calloc(STEPS, sizeof(double));
  init(x, w);
  fd_grad(at, NULL, x, N, fd);
  double taped[N];
  init(u, w);
  __enzyme_autodiff((void *)plain, enzyme_dup, u, du, enzyme_dup, w, dw, enzyme_dup, traj,
                    dtraj);
  memcpy(taped, du, bytes);
  fd_check_array("taped", taped, fd, N);
  init(u, w);
  memset(du, 0, bytes);
  memset(dw, 0, bytes);
  __enzyme_autodiff((void *)checkpointed, enzyme_dup, u, du, enzyme_dup, w, dw, enzyme_dup,
                    traj, dtraj);
  fd_check_array("checkpointed", du, fd, N);
  for (int j = 0; j < N; j++)
    if (fabs(du[j] - taped[j]) > 1e-13 * (1 + fabs(taped[j]))) {
      printf("FAIL du[%d] = %.17g, fully taped %.17g\n", j, du[j], taped[j]);
      failures++;
    }
  printf("dE/du0[0] = %.12f (fully taped %.12f)\n", du[0], taped[0]);
  free(u);
  free(w);
  free(du);
  free(dw);
  free(traj);
  free(dtraj);
  return fd_finish() | (failures != 0);
}
