/* sum_sin_1000: the sum of sin(x[i]). */
#ifdef SMALL
#define N 10
#else
#define N 1000
#endif

static real sum_sin(const real *x, int n) {
  real s = 0;
  for (int i = 0; i < n; i++)
    s += sin(x[i]);
  return s;
}

static real bench_flat(const real *x) { return sum_sin(x, N); }
