#include "../bench.h"
#include "kron_sum.h"
#include "umbra.h"
#include <string.h>

const char bench_name[] = "kron_sum";
const int bench_n = NA * NA + NB * NB;
double *bench_data;

void bench_init(double *x) { bench_fill(x, bench_n, 4, -1, 1); }
double bench_primal(const double *x) { return bench_flat(x); }

/* The adjoint of kron_sum's loops (every entry of K has adjoint 1), not the closed form
 * sum(B), sum(A): hand gradients keep the program's algorithm, as AD does. */
void bench_hand_grad(const double *x, double *g) {
  const double *A = x, *B = x + NA * NA;
  double *gA = g, *gB = g + NA * NA;
  memset(g, 0, sizeof *g * bench_n);
  for (int i = 0; i < NA; i++)
    for (int k = 0; k < NB; k++)
      for (int j = 0; j < NA; j++)
        for (int l = 0; l < NB; l++) {
          gA[i * NA + j] += B[k * NB + l];
          gB[k * NB + l] += A[i * NA + j];
        }
}

#ifndef NO_UMBRA_GRAD
void bench_umbra_grad(const double *x, double *g) {
  memset(g, 0, sizeof *g * bench_n);
  __umbra_autodiff((void *)kron_sum, umbra_dup, x, g, umbra_dup, x + NA * NA, g + NA * NA);
}
#endif
#ifndef NO_UMBRA_TANGENT
double bench_umbra_tangent(const double *x, const double *v) {
  return __umbra_fwddiff((void *)kron_sum, umbra_dup, x, v, umbra_dup, x + NA * NA, v + NA * NA);
}
#endif
