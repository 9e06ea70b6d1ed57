// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// A directional derivative that extracts only the tangent (kron_sum's shape): the primal fills
// a heap block, sums it and frees it. The vectorisers write the block with scatters at -O2 and
// -O3; once the primal result is known unread, the forward function drops the primal block
// with its writes (reverse/unread_primal.rs) and keeps the tangent's.
#include "fdcheck.h"
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

enum { NA = 4, NB = 6, NK = NA * NB };

double kron(const double *A, const double *B) {
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

static double kron_at(const double *x, void *c) {
  (void)c;
  return kron(x, x + NA * NA);
}

int main(void) {
  enum { M = NA * NA + NB * NB };
  static double x[M], v[M];
  for (int i = 0; i < M; i++) {
    x[i] = -0.8 + (i * 37 % 100) / 60.0;
    v[i] = 0.3 - (i * 11 % 17) / 20.0;
  }
  double fd = fd_dir(kron_at, NULL, x, v, M);
  double t = __enzyme_fwddiff((void *)kron, enzyme_dup, x, v, enzyme_dup, x + NA * NA,
                              v + NA * NA);
  fd_check("tangent", t, fd);
  return fd_finish();
}
