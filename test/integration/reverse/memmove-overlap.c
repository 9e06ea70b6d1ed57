// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// Overlapping memmove within one buffer, to lower and to higher addresses, of doubles and of
// records holding a double and a pointer, and of pairs of doubles by half a pair. The copy's adjoint moves each element's adjoint back
// to its source and zeroes the destination; done from the first element up, a shift to a lower
// address carried every adjoint along the whole buffer (d[1..4] came out zero, d[5] too large).
#include "fdcheck.h"
#include "umbra.h"
#include <stdlib.h>
#include <string.h>

struct rec {
  double w;
  const double *p;
};
struct pair {
  double re, im;
};

__attribute__((noinline)) double f(const double *x, int n) {
  double *a = malloc(n * sizeof *a);
  memcpy(a, x, n * sizeof *a);
  for (int r = 0; r < 3; r++) {
    double first = a[0];
    memmove(a, a + 1, (n - 1) * sizeof *a); /* to a lower address */
    a[n - 1] = first * 0.5 + a[n - 2];
    memmove(a + 1, a, (n - 2) * sizeof *a); /* to a higher address */
    a[0] = sin(a[1]);
  }
  struct rec *q = malloc(n * sizeof *q);
  for (int i = 0; i < n; i++)
    q[i] = (struct rec){a[i] * a[i], x + (n - 1 - i)};
  memmove(q, q + 2, (n - 2) * sizeof *q);
  memmove(q + 1, q, (n - 1) * sizeof *q);
  /* Pairs moved down by half a pair: each double lands in the other field. */
  struct pair *c = malloc(n * sizeof *c);
  for (int i = 0; i < n; i++)
    c[i] = (struct pair){x[i], x[i] * a[i]};
  memmove((char *)c, (char *)c + 8, (2 * n - 1) * 8);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * a[i] * a[i] + (i + 2) * q[i].w * q[i].p[0] + (i + 3) * c[i].re * c[i].im;
  free(a);
  free(q);
  free(c);
  return s;
}

enum { N = 6 };
static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, N); }

int main(void) {
  double x[N], dx[N] = {0}, fd[N], v[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.3 + 0.17 * i - 0.4 * (i % 2);
    v[i] = 1 - 0.2 * i;
  }
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  fd_grad(f_at, NULL, x, N, fd);
  fd_check_array("dx", dx, fd, N);
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, N);
  double jv = 0;
  for (int i = 0; i < N; i++)
    jv += fd[i] * v[i];
  fd_check("tangent", t, jv);
  return fd_finish();
}
