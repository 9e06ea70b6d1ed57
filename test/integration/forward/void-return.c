// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// A function returning void, outputs through dup pointers; the request is
// declared void as an Enzyme user would.
#define FD_FWDDIFF_VOID // (only matters for -DFD_SELFTEST stubs)
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_fwddiff(void *, ...);

void polar(double r, double th, double *x, double *y) {
  *x = r * cos(th);
  *y = r * sin(th);
}

// stats of an array: mean and variance written through pointers
void stats(const double *a, int n, double *out) {
  double m = 0, v = 0;
  for (int i = 0; i < n; i++) m += a[i];
  m /= n;
  for (int i = 0; i < n; i++) v += (a[i] - m) * (a[i] - m);
  out[0] = m;
  out[1] = v / (n - 1);
}

static void polar_at(const double *p, double *o, void *c) { (void)c; polar(p[0], p[1], &o[0], &o[1]); }
enum { N = 6 };
static void stats_at(const double *a, double *o, void *c) { (void)c; stats(a, N, o); }

int main(void) {
  double x, y, dx = 0, dy = 0, p[2] = {1.5, 0.6}, v[2] = {0.3, -1.2}, fd[2];
  __enzyme_fwddiff((void *)polar, p[0], v[0], p[1], v[1], enzyme_dup, &x, &dx,
                   enzyme_dup, &y, &dy);
  fd_dir_vec(polar_at, NULL, p, v, 2, fd, 2);
  fd_check("polar dx", dx, fd[0]);
  fd_check("polar dy", dy, fd[1]);

  double a[N] = {1.0, 2.5, -0.5, 0.75, 3.0, 1.25}, da[N] = {1, 0, -1, 0.5, 0.25, 2};
  double out[2], dout[2] = {0, 0};
  __enzyme_fwddiff((void *)stats, enzyme_dup, a, da, enzyme_const, N, enzyme_dup, out, dout);
  fd_dir_vec(stats_at, NULL, a, da, N, fd, 2);
  fd_check_array("stats dout", dout, fd, 2);
  return fd_finish();
}
