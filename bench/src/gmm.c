#include "../bench.h"
#include "gmm.h"
#include "umbra.h"
#include <string.h>

const char bench_name[] = "gmm";
const int bench_n = GMM_N;
double *bench_data;

void bench_init(double *x) {
  bench_fill(x, K, 10, -1, 1);
  bench_fill(x + OFF_MEANS, K * D, 11, 0, 1);
  bench_fill(x + OFF_ICF, K * ICF, 12, -0.5, 0.5);
  bench_data = malloc(sizeof *bench_data * NPTS * D);
  bench_fill(bench_data, NPTS * D, 13, 0, 1);
}
double bench_primal(const double *x) { return bench_flat(x); }

/* Per point: main_k = alphas_k + sum_qs_k - |Q_k (x - mean_k)|^2 / 2 enters a logsumexp over k,
 * whose adjoint is w_k = softmax(main)_k; the rest is the chain rule through Q_k. */
void bench_hand_grad(const double *x, double *g) {
  const double *alphas = x, *means = x + OFF_MEANS, *icf = x + OFF_ICF;
  double *galphas = g, *gmeans = g + OFF_MEANS, *gicf = g + OFF_ICF;
  double qdiags[K * D], gqdiags[K * D], gsum_qs[K], main_term[K], xc[K][D], qxc[K][D];
  memset(g, 0, sizeof *g * GMM_N);
  memset(gqdiags, 0, sizeof gqdiags);
  memset(gsum_qs, 0, sizeof gsum_qs);
  for (int k = 0; k < K; k++)
    for (int i = 0; i < D; i++)
      qdiags[k * D + i] = exp(icf[k * ICF + i]);
  for (int p = 0; p < NPTS; p++) {
    for (int k = 0; k < K; k++) {
      const double *ltri = icf + k * ICF + D;
      double sum_q = 0, sq = 0;
      for (int i = 0; i < D; i++) {
        xc[k][i] = bench_data[p * D + i] - means[k * D + i];
        qxc[k][i] = qdiags[k * D + i] * xc[k][i];
        sum_q += icf[k * ICF + i];
      }
      int li = 0;
      for (int i = 0; i < D; i++)
        for (int j = i + 1; j < D; j++)
          qxc[k][j] += ltri[li++] * xc[k][i];
      for (int i = 0; i < D; i++)
        sq += qxc[k][i] * qxc[k][i];
      main_term[k] = alphas[k] + sum_q - 0.5 * sq;
    }
    double lse = logsumexp(main_term, K);
    for (int k = 0; k < K; k++) {
      const double *ltri = icf + k * ICF + D;
      double *gltri = gicf + k * ICF + D, w = exp(main_term[k] - lse), gxc[D], gqxc[D];
      galphas[k] += w;
      gsum_qs[k] += w;
      for (int i = 0; i < D; i++) {
        gqxc[i] = -w * qxc[k][i];
        gqdiags[k * D + i] += gqxc[i] * xc[k][i];
        gxc[i] = gqxc[i] * qdiags[k * D + i];
      }
      int li = 0;
      for (int i = 0; i < D; i++)
        for (int j = i + 1; j < D; j++, li++) {
          gltri[li] += gqxc[j] * xc[k][i];
          gxc[i] += gqxc[j] * ltri[li];
        }
      for (int i = 0; i < D; i++)
        gmeans[k * D + i] -= gxc[i];
    }
  }
  double lse_alphas = logsumexp(alphas, K);
  for (int k = 0; k < K; k++) {
    galphas[k] -= NPTS * exp(alphas[k] - lse_alphas);
    gsum_qs[k] -= WISHART_M;
    for (int i = 0; i < D; i++) /* prior on exp(q)^2, then q through exp and through sum_qs */
      gicf[k * ICF + i] = (gqdiags[k * D + i] + WISHART_GAMMA * WISHART_GAMMA * qdiags[k * D + i]) *
                              qdiags[k * D + i] +
                          gsum_qs[k];
    for (int i = D; i < ICF; i++)
      gicf[k * ICF + i] += WISHART_GAMMA * WISHART_GAMMA * icf[k * ICF + i];
  }
}

#ifndef NO_UMBRA_GRAD
void bench_umbra_grad(const double *x, double *g) {
  memset(g, 0, sizeof *g * GMM_N);
  __umbra_autodiff((void *)gmm_objective, umbra_dup, x, g, umbra_dup, x + OFF_MEANS,
                   g + OFF_MEANS, umbra_dup, x + OFF_ICF, g + OFF_ICF, umbra_const, bench_data);
}
#endif
#ifndef NO_UMBRA_TANGENT
double bench_umbra_tangent(const double *x, const double *v) {
  return __umbra_fwddiff((void *)gmm_objective, umbra_dup, x, v, umbra_dup, x + OFF_MEANS,
                         v + OFF_MEANS, umbra_dup, x + OFF_ICF, v + OFF_ICF, umbra_const,
                         bench_data);
}
#endif
