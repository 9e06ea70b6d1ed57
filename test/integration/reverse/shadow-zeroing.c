// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Scratch blocks of the function: the adjoint of a store clears the shadow it wrote only when
// something read before the store (in the primal) reads those bytes' shadow afterwards (in the
// adjoint). kron: every entry written once, then summed and freed (the clearing is dead; the
// vectorised loop broadcasts A[i][j], whose adjoint sums the lanes). rewritten: each entry is
// read, then overwritten; running: one slot updated in every iteration; shifted: iteration i+1
// overwrites what iteration i wrote and read. The last three need the clearing.
#include "fdcheck.h"
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { NA = 4, NB = 6, NK = NA * NB, N = 12 };

__attribute__((noinline)) double kron(const double *A, const double *B) {
  double *K = malloc(sizeof *K * NK * NK);
  for (int i = 0; i < NA; i++)
    for (int k = 0; k < NB; k++)
      for (int j = 0; j < NA; j++)
        for (int l = 0; l < NB; l++)
          K[(i * NB + k) * NK + j * NB + l] = A[i * NA + j] * B[k * NB + l];
  double s = 0;
  for (int p = 0; p < NK * NK; p++)
    s += K[p] * K[p];
  free(K);
  return s;
}

__attribute__((noinline)) double rewritten(const double *x) {
  double *t = malloc(sizeof *t * N);
  for (int i = 0; i < N; i++)
    t[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < N; i++) {
    s += t[i] * x[(i + 1) % N];
    t[i] = s * x[i];
  }
  for (int i = 0; i < N; i++)
    s += t[i];
  free(t);
  return s;
}

__attribute__((noinline)) double running(const double *x) {
  double *t = malloc(sizeof *t * 2);
  t[0] = 1;
  t[1] = 0;
  for (int i = 0; i < N; i++) {
    t[0] = t[0] * x[i] + 0.5;
    t[1] += t[0];
  }
  double s = t[1];
  free(t);
  return s;
}

__attribute__((noinline)) double shifted(const double *x) {
  double *t = malloc(sizeof *t * (N + 1));
  t[0] = x[0];
  for (int i = 0; i < N; i++) {
    t[i + 1] = t[i] * x[i];
    t[i] = t[i] + x[(i + 3) % N];
  }
  double s = 0;
  for (int i = 0; i <= N; i++)
    s += t[i] * t[i];
  free(t);
  return s;
}

static double kron_at(const double *x, void *c) {
  (void)c;
  return kron(x, x + NA * NA);
}
static double rewritten_at(const double *x, void *c) {
  (void)c;
  return rewritten(x);
}
static double running_at(const double *x, void *c) {
  (void)c;
  return running(x);
}
static double shifted_at(const double *x, void *c) {
  (void)c;
  return shifted(x);
}

int main(void) {
  enum { M = NA * NA + NB * NB };
  static double x[M], dx[M], fd[M];
  for (int i = 0; i < M; i++)
    x[i] = -0.8 + (i * 37 % 100) / 60.0;
  fd_grad(kron_at, NULL, x, M, fd);
  __enzyme_autodiff((void *)kron, enzyme_dup, x, dx, enzyme_dup, x + NA * NA, dx + NA * NA);
  fd_check_array("kron", dx, fd, M);

  static double y[N], dy[N], fy[N];
  for (int i = 0; i < N; i++)
    y[i] = 0.6 + (i * 13 % 10) / 25.0;
  fd_grad(rewritten_at, NULL, y, N, fy);
  __enzyme_autodiff((void *)rewritten, enzyme_dup, y, dy);
  fd_check_array("rewritten", dy, fy, N);

  for (int i = 0; i < N; i++)
    dy[i] = 0;
  fd_grad(running_at, NULL, y, N, fy);
  __enzyme_autodiff((void *)running, enzyme_dup, y, dy);
  fd_check_array("running", dy, fy, N);

  for (int i = 0; i < N; i++)
    dy[i] = 0;
  fd_grad(shifted_at, NULL, y, N, fy);
  __enzyme_autodiff((void *)shifted, enzyme_dup, y, dy);
  fd_check_array("shifted", dy, fy, N);
  return fd_finish();
}
