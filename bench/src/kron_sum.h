/* kron_sum: the sum of kron(A, B), the Kronecker product formed in a heap buffer. */
#ifdef SMALL /* big enough that the loops are vectorised as at full size */
#define NA 4
#define NB 8
#else
#define NA 20
#define NB 40
#endif
#define NK (NA * NB) /* kron(A, B) is NK x NK */

/* A is NA x NA, B is NB x NB, both row-major. */
static real kron_sum(const real *A, const real *B) {
  real *K = REAL_ALLOC(NK * NK);
  for (int i = 0; i < NA; i++)
    for (int k = 0; k < NB; k++)
      for (int j = 0; j < NA; j++)
        for (int l = 0; l < NB; l++)
          K[(i * NB + k) * NK + j * NB + l] = A[i * NA + j] * B[k * NB + l];
  real s = 0;
  for (int p = 0; p < NK * NK; p++)
    s += K[p];
  REAL_FREE(K);
  return s;
}

static real bench_flat(const real *x) { return kron_sum(x, x + NA * NA); }
