/* gmm: the ADBench Gaussian mixture objective (negative log likelihood of NPTS points in D
 * dimensions under K components, with a Wishart prior on the inverse covariances).
 * Component k has weight logit alphas[k], mean means[k*D..], and inverse-covariance factor
 * Q_k = diag(exp(icf[k*ICF..][0..D])) + the strictly lower triangle icf[k*ICF..][D..], column by
 * column. The points are bench_data (NPTS x D). */
#ifdef SMALL /* the full D: the triangular loops are vectorised as at full size */
#define D 10
#define K 4
#define NPTS 10
#else
#define D 10
#define K 25
#define NPTS 1000
#endif
#define ICF (D * (D + 1) / 2)
#define WISHART_GAMMA 1.0
#define WISHART_M 0

static real logsumexp(const real *v, int n) {
  real mx = v[0];
  for (int i = 1; i < n; i++)
    mx = fmax(mx, v[i]);
  real s = 0;
  for (int i = 0; i < n; i++)
    s += exp(v[i] - mx);
  return log(s) + mx;
}

/* log of the multivariate gamma function Gamma_p(a) */
static double log_gamma_distrib(double a, int p) {
  double out = 0.25 * p * (p - 1) * log(M_PI);
  for (int j = 1; j <= p; j++)
    out += lgamma(a + 0.5 * (1 - j));
  return out;
}

static real gmm_objective(const real *alphas, const real *means, const real *icf,
                          const double *pts) {
  real *qdiags = REAL_ALLOC(K * D), *sum_qs = REAL_ALLOC(K);
  real *xc = REAL_ALLOC(D), *qxc = REAL_ALLOC(D), *main_term = REAL_ALLOC(K);
  for (int k = 0; k < K; k++) {
    sum_qs[k] = 0;
    for (int i = 0; i < D; i++) {
      sum_qs[k] += icf[k * ICF + i];
      qdiags[k * D + i] = exp(icf[k * ICF + i]);
    }
  }
  real slse = 0;
  for (int p = 0; p < NPTS; p++) {
    for (int k = 0; k < K; k++) {
      const real *ltri = icf + k * ICF + D;
      for (int i = 0; i < D; i++)
        xc[i] = pts[p * D + i] - means[k * D + i];
      for (int i = 0; i < D; i++)
        qxc[i] = qdiags[k * D + i] * xc[i];
      int li = 0;
      for (int i = 0; i < D; i++)
        for (int j = i + 1; j < D; j++)
          qxc[j] += ltri[li++] * xc[i];
      real sq = 0;
      for (int i = 0; i < D; i++)
        sq += qxc[i] * qxc[i];
      main_term[k] = alphas[k] + sum_qs[k] - 0.5 * sq;
    }
    slse += logsumexp(main_term, K);
  }
  real err = -NPTS * D * 0.5 * log(2 * M_PI) + slse - NPTS * logsumexp(alphas, K);
  int wn = D + WISHART_M + 1; /* the Wishart prior */
  double c = wn * D * (log(WISHART_GAMMA) - 0.5 * log(2)) - log_gamma_distrib(0.5 * wn, D);
  for (int k = 0; k < K; k++) {
    real frobenius = 0;
    for (int i = 0; i < D; i++)
      frobenius += qdiags[k * D + i] * qdiags[k * D + i];
    for (int i = D; i < ICF; i++)
      frobenius += icf[k * ICF + i] * icf[k * ICF + i];
    err += 0.5 * WISHART_GAMMA * WISHART_GAMMA * frobenius - WISHART_M * sum_qs[k] - c;
  }
  REAL_FREE(qdiags);
  REAL_FREE(sum_qs);
  REAL_FREE(xc);
  REAL_FREE(qxc);
  REAL_FREE(main_term);
  return err;
}

/* x = (alphas, means, icf) */
#define OFF_MEANS K
#define OFF_ICF (K + K * D)
#define GMM_N (OFF_ICF + K * ICF)

static real bench_flat(const real *x) {
  return gmm_objective(x, x + OFF_MEANS, x + OFF_ICF, bench_data);
}
