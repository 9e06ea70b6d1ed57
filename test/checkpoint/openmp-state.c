// RUN: %clang -O1 -g -fopenmp -I%runtime-include -I%testinc -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O2 -g -fopenmp -I%runtime-include -I%testinc -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: env EXTRA_CFLAGS=-DMARKED %exec-test %s driver 0 %t
// RUN: env EXTRA_CFLAGS=-DMARKED %exec-test %s plugin 2 %t
// EXEC-CFLAGS: -fopenmp
// EXEC-LDFLAGS: -fopenmp
// A checkpointed step whose updates run in an OpenMP parallel loop: what the outlined region
// writes and reads counts as the step's own (w is written and read there, unmarked: refused,
// naming the store inside the region). Marked, the gradient equals the fully taped one and
// finite differences.
#include <umbra/checkpoint.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

#define N 8
#define STEPS 15

__attribute__((noinline)) static void step(int64_t i, double *u, double *w) {
  (void)i;
#pragma omp parallel for
  for (int j = 0; j < N; j++) {
    u[j] = u[j] + 0.1 * sin(w[j]);
    // CHECK: openmp-state.c:[[@LINE+1]]:{{.*}}checkpointed step 'step' writes memory that later steps read and no snapshot holds (the memory its argument 2 points to)
    w[j] = 0.8 * w[j] + 0.1 * u[j] * u[j];
  }
}

static EnzymeCkptConfig config = {4, 0, NULL, 0, NULL};
static const int64_t bytes = N * sizeof(double);

static double checkpointed(double *u, double *w) {
  __enzyme_checkpoint_for((void *)step, 0, STEPS, enzyme_scheme, &EnzymeCkptRevolve, &config,
                          enzyme_checkpoint_region, u, bytes,
#if defined(MARKED)
                          enzyme_checkpoint_region, w, bytes,
#endif
                          u, w);
  double e = 0;
  for (int j = 0; j < N; j++)
    e += u[j] * w[j];
  return e;
}

static double plain(double *u, double *w) {
  for (int64_t i = 0; i < STEPS; i++)
    step(i, u, w);
  double e = 0;
  for (int j = 0; j < N; j++)
    e += u[j] * w[j];
  return e;
}

static void init(double *u, double *w) {
  for (int j = 0; j < N; j++) {
    u[j] = 0.1 * j - 0.3;
    w[j] = 0.5 + 0.05 * j;
  }
}

static double at(const double *x, void *ctx) {
  (void)ctx;
  double u[N], w[N];
  init(u, w);
  memcpy(u, x, bytes);
  return plain(u, w);
}

// Apart: at -O2 clang would merge two requests into one call of a selected function.
__attribute__((noinline)) static void grad_checkpointed(double *u, double *du, double *w,
                                                        double *dw) {
  __enzyme_autodiff((void *)checkpointed, enzyme_dup, u, du, enzyme_dup, w, dw);
}

__attribute__((noinline)) static void grad_plain(double *u, double *du, double *w, double *dw) {
  __enzyme_autodiff((void *)plain, enzyme_dup, u, du, enzyme_dup, w, dw);
}

int main(void) {
  int failures = 0;
  double x[N], fd[N], taped[N];
  double *u = malloc(bytes), *w = malloc(bytes), *du = calloc(N, sizeof(double)),
         *dw = calloc(N, sizeof(double));
  init(x, w);
  fd_grad(at, NULL, x, N, fd);
  init(u, w);
  grad_plain(u, du, w, dw);
  memcpy(taped, du, bytes);
  init(u, w);
  memset(du, 0, bytes);
  memset(dw, 0, bytes);
  grad_checkpointed(u, du, w, dw);
  fd_check_array("taped", taped, fd, N);
  fd_check_array("checkpointed", du, fd, N);
  for (int j = 0; j < N; j++)
    if (fabs(du[j] - taped[j]) > 1e-12 * (1 + fabs(taped[j]))) {
      printf("FAIL du[%d] = %.17g, fully taped %.17g\n", j, du[j], taped[j]);
      failures++;
    }
  free(u);
  free(w);
  free(du);
  free(dw);
  return fd_finish() | (failures != 0);
}
