/* large_single_block: x0 * x1^400 as 400 multiplications in one basic block. */
#define TIMES4(s) s s s s
#define TIMES10(s) s s s s s s s s s s
#define TIMES400(s) TIMES10(TIMES10(TIMES4(s)))

static real large_single_block(const real *x) {
  real y = x[0];
  TIMES400(y = y * x[1];)
  return y;
}

static real bench_flat(const real *x) { return large_single_block(x); }
