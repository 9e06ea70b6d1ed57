// REQUIRES: avx512f
// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -mavx512f
// Scatters into scratch blocks (the vectoriser's strided stores with AVX-512): the adjoint of a
// scatter skips clearing the shadow it wrote only when nothing that ran before it touches those
// bytes. once: a Kronecker product written once and summed (clearing dead). twice: a second,
// in-place pass reads and rewrites strided entries the first wrote (its clearing is needed,
// the first pass's is not). rolling: pass r reads the column pass r - 1 wrote and writes the
// column pass r - 1 read, which pass r - 2 wrote (clearing needed).
#include "fdcheck.h"
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { NA = 4, NB = 8, NK = NA * NB, R = 6 };

__attribute__((noinline)) double once(const double *A, const double *B) {
  double *K = malloc(sizeof *K * NK * NK);
  for (int i = 0; i < NA; i++)
    for (int k = 0; k < NB; k++)
      for (int j = 0; j < NA; j++)
        for (int l = 0; l < NB; l++)
          K[(i * NB + k) * NK + j * NB + l] = A[i * NA + j] * B[k * NB + l];
  double s = 0;
  for (int p = 0; p < NK * NK; p++)
    s += K[p] * (1 + p % 5);
  free(K);
  return s;
}

__attribute__((noinline)) double twice(const double *A, const double *B) {
  double *K = malloc(sizeof *K * NK * NK);
  for (int i = 0; i < NA; i++)
    for (int k = 0; k < NB; k++)
      for (int j = 0; j < NA; j++)
        for (int l = 0; l < NB; l++)
          K[(i * NB + k) * NK + j * NB + l] = A[i * NA + j] * B[k * NB + l];
  for (int l = 0; l < NB; l++)
    for (int p = 0; p < NK; p++)
      K[p * NK + l] *= K[p * NK + l] * B[l] + A[p % (NA * NA)];
  double s = 0;
  for (int p = 0; p < NK * NK; p++)
    s += K[p] * (1 + p % 3);
  free(K);
  return s;
}

__attribute__((noinline)) double rolling(const double *A, const double *B) {
  double *K = malloc(sizeof *K * NK * 7);
  for (int p = 0; p < NK; p++)
    K[p * 7] = B[p];
  for (int r = 0; r < R; r++)
    for (int p = 0; p < NK; p++)
      K[p * 7 + ((r + 1) & 1)] = K[p * 7 + (r & 1)] * K[p * 7 + (r & 1)] * A[r] + B[p + r];
  double s = 0;
  for (int p = 0; p < NK; p++)
    s += K[p * 7] * (1 + p % 3) + K[p * 7 + 1];
  free(K);
  return s;
}

typedef double (*fn)(const double *, const double *);
static double f_at(const double *x, void *c) { return ((fn)c)(x, x + NA * NA); }

enum { N = NA * NA + NB * NB };
#define CHECK(f, x)                                                                          \
  do {                                                                                       \
    double dx[N] = {0}, fd[N];                                                               \
    fd_grad(f_at, (void *)f, x, N, fd);                                                      \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, x + NA * NA, dx + NA * NA); \
    fd_check_array(#f, dx, fd, N);                                                           \
  } while (0)

int main(void) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = -0.8 + (i * 37 % 100) / 60.0;
  CHECK(once, x);
  CHECK(twice, x);
  CHECK(rolling, x);
  return fd_finish();
}
