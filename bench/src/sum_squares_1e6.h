/* sum_squares_1e6: the sum of x[i]^2 over 10^6 elements (the gradient's tape must stay O(1)). */
#ifdef SMALL
#define N 1000
#else
#define N 1000000
#endif

static real sum_squares(const real *x, int n) {
  real s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

static real bench_flat(const real *x) { return sum_squares(x, N); }
