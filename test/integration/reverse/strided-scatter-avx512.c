// REQUIRES: avx512f
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -mavx512f
// A Kronecker product written into a heap buffer: with AVX-512 the vectoriser stores K with
// llvm.masked.scatter at a constant stride (its lanes provably apart), so the adjoint reads
// and clears the shadow with one gather and one scatter for all lanes. A second, in-place
// pass over K gathers and scatters the same strided lanes.
#include "fdcheck.h"
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { NA = 4, NB = 8, NK = NA * NB };

double kron_weighted(const double *A, const double *B) {
  double *K = malloc(sizeof *K * NK * NK);
  for (int i = 0; i < NA; i++)
    for (int k = 0; k < NB; k++)
      for (int j = 0; j < NA; j++)
        for (int l = 0; l < NB; l++)
          K[(i * NB + k) * NK + j * NB + l] = A[i * NA + j] * B[k * NB + l];
  for (int l = 0; l < NB; l++)
    for (int p = 0; p < NK; p++)
      K[p * NK + l] *= K[p * NK + l] + A[l % (NA * NA)];
  double s = 0;
  for (int p = 0; p < NK * NK; p++)
    s += K[p] * (1 + p % 7);
  free(K);
  return s;
}

static double f_at(const double *x, void *c) {
  (void)c;
  return kron_weighted(x, x + NA * NA);
}

int main(void) {
  enum { N = NA * NA + NB * NB };
  double x[N], dx[N] = {0}, fd[N];
  for (int i = 0; i < N; i++)
    x[i] = -0.8 + (i * 37 % 100) / 60.0;
  fd_grad(f_at, NULL, x, N, fd);
  __enzyme_autodiff((void *)kron_weighted, enzyme_dup, x, dx, enzyme_dup, x + NA * NA,
                    dx + NA * NA);
  fd_check_array("grad", dx, fd, N);
  return fd_finish();
}
