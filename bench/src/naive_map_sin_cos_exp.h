/* naive_map_sin_cos_exp: y[i] = sin(cos(exp(x[i]))) into a heap buffer, then the sum of y. */
#ifdef SMALL
#define N 9
#else
#define N 100 /* x is 10 x 10 */
#endif

static real map_sin_cos_exp(const real *x, int n) {
  real *y = REAL_ALLOC(n);
  for (int i = 0; i < n; i++)
    y[i] = sin(cos(exp(x[i])));
  real s = 0;
  for (int i = 0; i < n; i++)
    s += y[i];
  REAL_FREE(y);
  return s;
}

static real bench_flat(const real *x) { return map_sin_cos_exp(x, N); }
