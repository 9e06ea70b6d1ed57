/* gp_lml: the log marginal likelihood of a Gaussian process with kernel
 * K_ij = exp(-(x_i - x_j)^2 / 2) + s [i == j], by Cholesky factorisation K = L L^T:
 *   -y^T K^-1 y / 2 - log det K / 2 - n log(2 pi) / 2. */
#ifdef SMALL
#define NP 8
#else
#define NP 128
#endif

static real gp_lml(const real *x, const real *y, real s) {
  real *L = REAL_ALLOC(NP * NP); /* K, factorised in place (lower triangle) */
  real *z = REAL_ALLOC(NP);
  for (int i = 0; i < NP; i++) {
    for (int j = 0; j < i; j++) {
      real d = x[i] - x[j];
      L[i * NP + j] = exp(-0.5 * d * d);
    }
    L[i * NP + i] = 1 + s;
  }
  for (int j = 0; j < NP; j++) {
    real djj = L[j * NP + j];
    for (int k = 0; k < j; k++)
      djj -= L[j * NP + k] * L[j * NP + k];
    L[j * NP + j] = sqrt(djj);
    for (int i = j + 1; i < NP; i++) {
      real lij = L[i * NP + j];
      for (int k = 0; k < j; k++)
        lij -= L[i * NP + k] * L[j * NP + k];
      L[i * NP + j] = lij / L[j * NP + j];
    }
  }
  real quad = 0, logdet = 0; /* y^T K^-1 y = |z|^2 with L z = y */
  for (int i = 0; i < NP; i++) {
    real zi = y[i];
    for (int k = 0; k < i; k++)
      zi -= L[i * NP + k] * z[k];
    z[i] = zi / L[i * NP + i];
    quad += z[i] * z[i];
    logdet += 2 * log(L[i * NP + i]);
  }
  REAL_FREE(L);
  REAL_FREE(z);
  return -0.5 * quad - 0.5 * logdet - 0.5 * NP * log(2 * M_PI);
}

/* x = (x, y, s) */
static real bench_flat(const real *x) { return gp_lml(x, x + NP, x[2 * NP]); }
