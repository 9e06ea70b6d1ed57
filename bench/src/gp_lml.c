#include "../bench.h"
#include "gp_lml.h"
#include "umbra.h"
#include <string.h>

const char bench_name[] = "gp_lml";
const int bench_n = 2 * NP + 1;
double *bench_data;

void bench_init(double *x) {
  for (int i = 0; i < NP; i++)
    x[i] = 0.2 * i;
  bench_fill(x + NP, NP, 8, -1, 1);
  x[2 * NP] = 1.0;
}
double bench_primal(const double *x) { return bench_flat(x); }

/* The textbook gradient: with a = K^-1 y and G = (a a^T - K^-1) / 2, d lml = sum_ij G_ij dK_ij,
 * so d/dy = -a, d/ds = trace G and d/dx_i = -2 sum_j G_ij (x_i - x_j) exp(-(x_i - x_j)^2 / 2).
 * K^-1 = L^-T L^-1 from the Cholesky factor. */
void bench_hand_grad(const double *in, double *g) {
  const double *x = in, *y = in + NP;
  double s = in[2 * NP];
  double *L = malloc(sizeof *L * NP * NP), *Li = calloc(NP * NP, sizeof *Li);
  double *a = malloc(sizeof *a * NP);
  for (int i = 0; i < NP; i++) { /* K and its Cholesky factor, as the primal */
    for (int j = 0; j < i; j++)
      L[i * NP + j] = exp(-0.5 * (x[i] - x[j]) * (x[i] - x[j]));
    L[i * NP + i] = 1 + s;
  }
  for (int j = 0; j < NP; j++) {
    double djj = L[j * NP + j];
    for (int k = 0; k < j; k++)
      djj -= L[j * NP + k] * L[j * NP + k];
    L[j * NP + j] = sqrt(djj);
    for (int i = j + 1; i < NP; i++) {
      double lij = L[i * NP + j];
      for (int k = 0; k < j; k++)
        lij -= L[i * NP + k] * L[j * NP + k];
      L[i * NP + j] = lij / L[j * NP + j];
    }
  }
  for (int j = 0; j < NP; j++) /* Li = L^-1, column by column (lower triangular) */
    for (int i = j; i < NP; i++) {
      double t = i == j ? 1 : 0;
      for (int k = j; k < i; k++)
        t -= L[i * NP + k] * Li[k * NP + j];
      Li[i * NP + j] = t / L[i * NP + i];
    }
  for (int i = 0; i < NP; i++) { /* a = L^-T (L^-1 y) */
    double t = 0;
    for (int k = 0; k < NP; k++) {
      double u = 0;
      for (int j = 0; j <= k; j++)
        u += Li[k * NP + j] * y[j];
      t += Li[k * NP + i] * u;
    }
    a[i] = t;
  }
  double *gx = g, *gy = g + NP, gs = 0;
  for (int i = 0; i < NP; i++) {
    gy[i] = -a[i];
    gx[i] = 0;
  }
  for (int i = 0; i < NP; i++)
    for (int j = 0; j <= i; j++) {
      double kinv = 0; /* (K^-1)_ij = sum_k Li_ki Li_kj over k >= i */
      for (int k = i; k < NP; k++)
        kinv += Li[k * NP + i] * Li[k * NP + j];
      double G = 0.5 * (a[i] * a[j] - kinv);
      if (i == j) {
        gs += G;
      } else {
        double d = x[i] - x[j], dk = -d * exp(-0.5 * d * d); /* dK_ij / dx_i */
        gx[i] += 2 * G * dk;
        gx[j] -= 2 * G * dk;
      }
    }
  g[2 * NP] = gs;
  free(L);
  free(Li);
  free(a);
}

#ifndef NO_UMBRA_GRAD
void bench_umbra_grad(const double *x, double *g) {
  memset(g, 0, sizeof *g * (2 * NP));
  g[2 * NP] = __umbra_autodiff((void *)gp_lml, umbra_dup, x, g, umbra_dup, x + NP, g + NP,
                               umbra_out, x[2 * NP]);
}
#endif
#ifndef NO_UMBRA_TANGENT
double bench_umbra_tangent(const double *x, const double *v) {
  return __umbra_fwddiff((void *)gp_lml, umbra_dup, x, v, umbra_dup, x + NP, v + NP, umbra_dup,
                         x[2 * NP], v[2 * NP]);
}
#endif
