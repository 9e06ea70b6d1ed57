#include "../bench.h"
#include "simple_mlp.h"
#include "umbra.h"
#include <string.h>

const char bench_name[] = "simple_mlp";
const int bench_n = MLP_N;
double *bench_data;

void bench_init(double *x) { bench_fill(x, MLP_N, 7, -0.5, 0.5); }
double bench_primal(const double *x) { return bench_flat(x); }

/* Backpropagation: the forward pass keeps the pre-activation P = W1 X and H = relu(P). */
void bench_hand_grad(const double *x, double *g) {
  const double *W2 = x, *W1 = x + OFF_W1, *X = x + OFF_X, *Y = x + OFF_Y;
  double *gW2 = g, *gW1 = g + OFF_W1, *gX = g + OFF_X, *gY = g + OFF_Y;
  double *P = malloc(sizeof *P * NH * NS), *H = malloc(sizeof *H * NH * NS);
  double *dZ = malloc(sizeof *dZ * NO * NS), *dP = malloc(sizeof *dP * NH * NS);
  matmul(NH, NI, NS, W1, X, P);
  for (int i = 0; i < NH * NS; i++)
    H[i] = fmax(P[i], 0.0);
  matmul(NO, NH, NS, W2, H, dZ);
  for (int i = 0; i < NO * NS; i++) { /* dZ = d/dZ sum (Y - Z)^2 = 2 (Z - Y) */
    dZ[i] = 2 * (dZ[i] - Y[i]);
    gY[i] = -dZ[i];
  }
  for (int i = 0; i < NO; i++) /* gW2 = dZ H^T */
    for (int k = 0; k < NH; k++) {
      double s = 0;
      for (int j = 0; j < NS; j++)
        s += dZ[i * NS + j] * H[k * NS + j];
      gW2[i * NH + k] = s;
    }
  memset(dP, 0, sizeof *dP * NH * NS); /* dH = W2^T dZ, then through relu */
  for (int i = 0; i < NO; i++)
    for (int k = 0; k < NH; k++)
      for (int j = 0; j < NS; j++)
        dP[k * NS + j] += W2[i * NH + k] * dZ[i * NS + j];
  for (int i = 0; i < NH * NS; i++)
    dP[i] = P[i] > 0 ? dP[i] : 0;
  for (int i = 0; i < NH; i++) /* gW1 = dP X^T */
    for (int k = 0; k < NI; k++) {
      double s = 0;
      for (int j = 0; j < NS; j++)
        s += dP[i * NS + j] * X[k * NS + j];
      gW1[i * NI + k] = s;
    }
  memset(gX, 0, sizeof *gX * NI * NS); /* gX = W1^T dP */
  for (int i = 0; i < NH; i++)
    for (int k = 0; k < NI; k++)
      for (int j = 0; j < NS; j++)
        gX[k * NS + j] += W1[i * NI + k] * dP[i * NS + j];
  free(P);
  free(H);
  free(dZ);
  free(dP);
}

#ifndef NO_UMBRA_GRAD
void bench_umbra_grad(const double *x, double *g) {
  memset(g, 0, sizeof *g * MLP_N);
  __umbra_autodiff((void *)simple_mlp, umbra_dup, x, g, umbra_dup, x + OFF_W1, g + OFF_W1,
                   umbra_dup, x + OFF_X, g + OFF_X, umbra_dup, x + OFF_Y, g + OFF_Y);
}
#endif
#ifndef NO_UMBRA_TANGENT
double bench_umbra_tangent(const double *x, const double *v) {
  return __umbra_fwddiff((void *)simple_mlp, umbra_dup, x, v, umbra_dup, x + OFF_W1, v + OFF_W1,
                         umbra_dup, x + OFF_X, v + OFF_X, umbra_dup, x + OFF_Y, v + OFF_Y);
}
#endif
