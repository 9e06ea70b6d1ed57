// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// memcpy / memmove / memset on double arrays: shadows must be copied, moved
// and cleared alongside the primal memory.
#include "fdcheck.h"
#include "umbra.h"

double mem(const double *x, int n) {
  double buf[32];
  memset(buf, 0, sizeof buf);
  memcpy(buf + 4, x, n * sizeof(double));        // buf[4..4+n)
  memmove(buf + 1, buf + 3, (n + 1) * sizeof(double)); // overlapping, leftwards
  memmove(buf + 6, buf + 2, n * sizeof(double)); // overlapping, rightwards
  memset(buf + 8, 0, 2 * sizeof(double));        // kill two entries
  double s = 0;
  for (int i = 0; i < 32; i++)
    s += buf[i] * buf[i] * (1.0 + 0.1 * i);
  return s;
}

// output through a dup pointer: out = copy of x, doubled, first entry cleared
void copy_out(double *out, const double *x, int n) {
  memcpy(out, x, n * sizeof(double));
  for (int i = 0; i < n; i++)
    out[i] *= 2.0 * x[i];
  memset(out, 0, sizeof(double));
}

enum { N = 12 };
static double mem_at(const double *x, void *ctx) { (void)ctx; return mem(x, N); }
static void copy_out_at(const double *x, double *y, void *ctx) { (void)ctx; copy_out(y, x, N); }

int main(void) {
  double x[N], v[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.3 * i - 1.1;
    v[i] = 1.0 / (1.0 + i);
  }
  double ad = __umbra_fwddiff((void *)mem, umbra_dup, x, v, umbra_const, N);
  fd_check("mem", ad, fd_dir(mem_at, NULL, x, v, N));

  double out[N], dout[N], fd[N];
  for (int i = 0; i < N; i++) out[i] = dout[i] = 99.0; // garbage, overwritten
  __umbra_fwddiff((void *)copy_out, umbra_dup, out, dout, umbra_dup, x, v, umbra_const, N);
  fd_dir_vec(copy_out_at, NULL, x, v, N, fd, N);
  fd_check_array("copy_out dout", dout, fd, N);
  return fd_finish();
}
