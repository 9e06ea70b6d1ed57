/* lognormal_model: a 2-D log density. theta maps to mu, sigma = 0.1 + 9.9 sigmoid(theta)
 * (with the log-Jacobian of that map), truncated Normal(1, 2) priors on [0.1, 10] for both, and
 * the LogNormal(mu, sigma) log densities of ND data points (bench_data). */
#ifdef SMALL
#define ND 100
#else
#define ND 100000
#endif

static real sigmoid(real t) { return 1 / (1 + exp(-t)); }

/* log density of Normal(1, 2) truncated to [0.1, 10] */
static real truncated_normal_lpdf(real v) {
  const double m = 1, sd = 2, lo = 0.1, hi = 10;
  double mass = 0.5 * (erf((hi - m) / (sd * M_SQRT2)) - erf((lo - m) / (sd * M_SQRT2)));
  real z = (v - m) / sd;
  return -0.5 * z * z - log(sd * sqrt(2 * M_PI)) - log(mass);
}

static real lognormal_model(const real *theta, const double *data) {
  real s0 = sigmoid(theta[0]), s1 = sigmoid(theta[1]);
  real mu = 0.1 + 9.9 * s0, sigma = 0.1 + 9.9 * s1;
  real lp = log(9.9 * s0 * (1 - s0)) + log(9.9 * s1 * (1 - s1)); /* log |d(mu, sigma)/dtheta| */
  lp += truncated_normal_lpdf(mu) + truncated_normal_lpdf(sigma);
  real sq = 0, sum_log = 0;
  for (int i = 0; i < ND; i++) {
    real z = (log(data[i]) - mu) / sigma;
    sq += z * z;
    sum_log += log(data[i]);
  }
  return lp - 0.5 * sq - sum_log - ND * (log(sigma) + 0.5 * log(2 * M_PI));
}

static real bench_flat(const real *x) { return lognormal_model(x, bench_data); }
