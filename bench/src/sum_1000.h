/* sum_1000: the sum of x. */
#ifdef SMALL
#define N 10
#else
#define N 1000
#endif

static real sum(const real *x, int n) {
  real s = 0;
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

static real bench_flat(const real *x) { return sum(x, N); }
