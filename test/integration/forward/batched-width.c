// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Batched forward mode (issue 12): enzyme_width N, then N shadows per duplicated argument
// (enzyme_dup), or a byte stride and one pointer (enzyme_dupv); the request returns the N
// tangents as a struct of N doubles or a vector. A whole Jacobian of a 2-output function in
// one call, through loops, calls to defined functions, libm rules and memcpy (a hand-written
// rule, run once per lane), against finite differences.
#include "fdcheck.h"
#include <stdint.h>
#include <string.h>

extern int enzyme_width, enzyme_dup, enzyme_dupv, enzyme_const, enzyme_dupnoneed;
typedef struct { double a, b; } Pair;
typedef struct { double a, b, c; } Triple;
typedef double v2 __attribute__((ext_vector_type(2)));
Pair __enzyme_fwddiff_pair(void *, ...);
Triple __enzyme_fwddiff_triple(void *, ...);
v2 __enzyme_fwddiff_v2(void *, ...);
void __enzyme_fwddiff(void *, ...);

double f(double x, double y) { return x * y + sin(x) * exp(y); }

static double sq(double t) { return t * t; }

/* two outputs, through memory, a loop, a callee and memcpy */
void g(const double *x, double *out, int n) {
  double tmp[4];
  memcpy(tmp, x, sizeof(double) * 2);
  double s = 0;
  for (int i = 0; i < n; i++) s += sq(tmp[0]) * pow(tmp[1], 1.5) / (i + 1);
  out[0] = s + cos(tmp[0] * tmp[1]);
  out[1] = tmp[0] > 0 ? log(tmp[0]) * tmp[1] : tmp[1];
}

double h3(double x, double y, double z) { return x * y * z + fabs(x - z) * y; }

/* fabs by hand on the bits (at -O0 an integer `and` clearing the sign bit): per lane. */
double bits_abs(double x, double y) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  u &= 0x7fffffffffffffffULL;
  double a;
  memcpy(&a, &u, sizeof a);
  return a * y;
}
static double bits_abs_at(const double *x, void *c) { (void)c; return bits_abs(x[0], x[1]); }

static double f_at(const double *x, void *c) { (void)c; return f(x[0], x[1]); }
static double h3_at(const double *x, void *c) { (void)c; return h3(x[0], x[1], x[2]); }
static void g_at(const double *x, double *y, void *c) { (void)c; g(x, y, 3); }

int main(void) {
  double p[2] = {0.7, -0.4}, e1[2] = {1, 0}, e2[2] = {0, 1}, fd[3];

  Pair d = __enzyme_fwddiff_pair((void *)f, enzyme_width, 2, p[0], 1.0, 0.0, p[1], 0.0, 1.0);
  fd_grad(f_at, NULL, p, 2, fd);
  fd_check("f gradient [0] (struct)", d.a, fd[0]);
  fd_check("f gradient [1] (struct)", d.b, fd[1]);

  v2 dv = __enzyme_fwddiff_v2((void *)f, enzyme_width, 2, p[0], 1.0, 0.0, p[1], 0.0, 1.0);
  fd_check("f gradient [0] (vector)", dv[0], fd[0]);
  fd_check("f gradient [1] (vector)", dv[1], fd[1]);

  double q[3] = {0.3, 1.2, -0.8};
  Triple t = __enzyme_fwddiff_triple((void *)h3, enzyme_width, 3, q[0], 1.0, 0.0, 0.0,
                                     enzyme_dup, q[1], 0.0, 1.0, 0.0, q[2], 0.0, 0.0, 1.0);
  fd_grad(h3_at, NULL, q, 3, fd);
  fd_check("h3 gradient [0]", t.a, fd[0]);
  fd_check("h3 gradient [1]", t.b, fd[1]);
  fd_check("h3 gradient [2]", t.c, fd[2]);

  double b[2] = {-1.5, 0.75};
  Pair db = __enzyme_fwddiff_pair((void *)bits_abs, enzyme_width, 2, b[0], 1.0, 0.0, b[1], 0.0,
                                  1.0);
  fd_grad(bits_abs_at, NULL, b, 2, fd);
  fd_check("bits_abs gradient [0]", db.a, fd[0]);
  fd_check("bits_abs gradient [1]", db.b, fd[1]);

  /* The Jacobian of g, one column per lane, in one call. */
  double x[2] = {0.9, 1.4}, out[2], c1[2] = {0, 0}, c2[2] = {0, 0}, col[2];
  __enzyme_fwddiff((void *)g, enzyme_width, 2, enzyme_dup, x, e1, e2, enzyme_dupnoneed, out,
                   c1, c2, enzyme_const, 3);
  fd_dir_vec(g_at, NULL, x, e1, 2, col, 2);
  fd_check_array("J[:,0] (dup)", c1, col, 2);
  fd_dir_vec(g_at, NULL, x, e2, 2, col, 2);
  fd_check_array("J[:,1] (dup)", c2, col, 2);

  /* The same with strided shadows: seeds and columns stored row by row. */
  double seeds[2][2] = {{1, 0}, {0, 1}}, cols[2][2] = {{0, 0}, {0, 0}};
  __enzyme_fwddiff((void *)g, enzyme_width, 2, enzyme_dupv, sizeof(seeds[0]), x, seeds,
                   enzyme_dupv, sizeof(cols[0]), out, cols, enzyme_const, 3);
  fd_check_array("J[:,0] (dupv)", cols[0], c1, 2);
  fd_check_array("J[:,1] (dupv)", cols[1], c2, 2);
  return fd_finish();
}
