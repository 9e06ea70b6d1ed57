/* simple_mlp: the sum of squares of (Y - W2 * relu(W1 * X)), row-major matrices. */
#ifdef SMALL
#define NO 3 /* outputs: W2 is NO x NH */
#define NH 5 /* hidden: W1 is NH x NI */
#define NI 4 /* inputs: X is NI x NS */
#define NS 2 /* samples: Y is NO x NS */
#else
#define NO 128
#define NH 256
#define NI 128
#define NS 70
#endif

/* C (m x n) = A (m x p) * B (p x n), i-k-j order so the inner loop runs along rows. */
static void matmul(int m, int p, int n, const real *A, const real *B, real *C) {
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < n; j++)
      C[i * n + j] = 0;
    for (int k = 0; k < p; k++)
      for (int j = 0; j < n; j++)
        C[i * n + j] += A[i * p + k] * B[k * n + j];
  }
}

static real simple_mlp(const real *W2, const real *W1, const real *X, const real *Y) {
  real *H = REAL_ALLOC(NH * NS), *Z = REAL_ALLOC(NO * NS);
  matmul(NH, NI, NS, W1, X, H);
  for (int i = 0; i < NH * NS; i++)
    H[i] = fmax(H[i], 0.0);
  matmul(NO, NH, NS, W2, H, Z);
  real s = 0;
  for (int i = 0; i < NO * NS; i++)
    s += (Y[i] - Z[i]) * (Y[i] - Z[i]);
  REAL_FREE(H);
  REAL_FREE(Z);
  return s;
}

/* x = (W2, W1, X, Y) */
#define OFF_W1 (NO * NH)
#define OFF_X (OFF_W1 + NH * NI)
#define OFF_Y (OFF_X + NI * NS)
#define MLP_N (OFF_Y + NO * NS)

static real bench_flat(const real *x) {
  return simple_mlp(x, x + OFF_W1, x + OFF_X, x + OFF_Y);
}
