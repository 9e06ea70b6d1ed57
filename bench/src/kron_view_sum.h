/* kron_view_sum: the sum of kron(A[0:NV, 0:NV], upper-triangle(B)), formed in a heap buffer,
 * with the view of A strided (row stride AC). */
/* No smaller size for make test: smaller ones are vectorised differently, and the full size
 * checks in under a second. */
#define AR 40 /* A is AR x AC */
#define AC 30
#define NV 20 /* the view: A's first NV rows and columns */
#define NB 40 /* B is NB x NB */
#define NK (NV * NB)

static real kron_view_sum(const real *A, const real *B) {
  real *K = REAL_ALLOC(NK * NK);
  for (int i = 0; i < NV; i++)
    for (int k = 0; k < NB; k++)
      for (int j = 0; j < NV; j++)
        for (int l = 0; l < NB; l++) {
          if (l >= k)
            K[(i * NB + k) * NK + j * NB + l] = A[i * AC + j] * B[k * NB + l];
          else
            K[(i * NB + k) * NK + j * NB + l] = 0;
        }
  real s = 0;
  for (int p = 0; p < NK * NK; p++)
    s += K[p];
  REAL_FREE(K);
  return s;
}

static real bench_flat(const real *x) { return kron_view_sum(x, x + AR * AC); }
