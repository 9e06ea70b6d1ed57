// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Enzyme's batch mode (issue 12): __enzyme_batch(f, enzyme_width, N, ...) runs f on N argument
// sets at once; each parameter takes N values (enzyme_vector, the default), one shared value
// (enzyme_scalar), or a byte stride and one pointer (enzyme_buffer). The N results come back as
// the aggregate the request is declared to return (a struct returned in memory or in registers,
// a vector, the ABI's coercions of small structs). Every result is checked against calling the
// primal once per lane.
#include "fdcheck.h"
#include <stdlib.h>

extern int enzyme_width, enzyme_vector, enzyme_scalar, enzyme_buffer;
typedef struct { double x1, x2, x3, x4; } Vector; /* returned through memory (sret) */
typedef struct { double a, b; } Pair;            /* returned in two registers */
typedef struct { float a, b, c, d; } Floats;      /* returned as two <2 x float> */
typedef struct { int a, b; } Ints;                /* returned as one i64 */
typedef double v2 __attribute__((ext_vector_type(2)));
Vector __enzyme_batch(void *, ...);
Pair __enzyme_batch_pair(void *, ...);
Floats __enzyme_batch_floats(void *, ...);
Ints __enzyme_batch_ints(void *, ...);
v2 __enzyme_batch_v2(void *, ...);
void __enzyme_batch_void(void *, ...);
double __enzyme_batch_one(void *, ...);

/* The Enzyme tutorial's example. */
double square(double x) { return x * x; }

/* A loop over shared coefficients and a shared length, libm, fmax. */
double poly(double x, const double *c, int n) {
  double s = 0;
  for (int i = n - 1; i >= 0; i--) s = s * x + c[i];
  return s + sin(x) + fmax(x, 0.5);
}

/* A callee given lane-varying arguments is batched too; one given only shared ones runs once. */
static double helper(double a, double b) { return a * exp(b) - b; }
double use_helper(double x, double y) { return helper(x, y) + helper(y, 2.0); }

/* Recursion on a shared count. */
double power(double x, int n) { return n == 0 ? 1.0 : x * power(x, n - 1); }

/* Each lane's own memory: a stack array indexed at run time and a heap buffer. */
double scratch(double x, int n) {
  double t[8];
  double *h = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) {
    t[i % 8] = x * (i + 1);
    h[i] = t[i % 8] + 1.0;
  }
  double s = 0;
  for (int i = 0; i < n; i++) s += h[i] * t[i % 8];
  free(h);
  return s;
}

/* Writes through each lane's pointer. */
void add_one(double *p, int n) {
  for (int i = 0; i < n; i++) p[i] += 1.0 + i * p[i];
}

float scale_f(float x, float k) { return x * k + 0.5f; }
int twice(int x, int k) { return 2 * x + k; }

#define CHECK(name, got, want) fd_check_tol(name, got, want, 1e-14, 0)

int main(void) {
  double v[4] = {23.1, 10.0, 100.0, 3.14};
  Vector r = __enzyme_batch((void *)square, enzyme_width, 4, enzyme_vector, v[0], v[1], v[2],
                            v[3]);
  CHECK("square lane 0", r.x1, square(v[0]));
  CHECK("square lane 1", r.x2, square(v[1]));
  CHECK("square lane 2", r.x3, square(v[2]));
  CHECK("square lane 3", r.x4, square(v[3]));

  /* One lane: the result itself, as Enzyme returns it at width 1. */
  double one = __enzyme_batch_one((void *)square, enzyme_width, 1, 3.0);
  CHECK("square, one lane", one, square(3.0));

  double c[3] = {1.5, -2.0, 0.25};
  /* Nothing varies: every lane gets the same result. */
  Pair same = __enzyme_batch_pair((void *)poly, enzyme_width, 2, enzyme_scalar, 0.3,
                                  enzyme_scalar, c, enzyme_scalar, 3);
  CHECK("poly, shared lane 0", same.a, poly(0.3, c, 3));
  CHECK("poly, shared lane 1", same.b, poly(0.3, c, 3));

  Pair p = __enzyme_batch_pair((void *)poly, enzyme_width, 2, 0.3, 1.7, enzyme_scalar, c,
                               enzyme_scalar, 3);
  CHECK("poly lane 0", p.a, poly(0.3, c, 3));
  CHECK("poly lane 1", p.b, poly(1.7, c, 3));

  v2 pv = __enzyme_batch_v2((void *)poly, enzyme_width, 2, 0.3, 1.7, enzyme_scalar, c,
                            enzyme_scalar, 3);
  CHECK("poly lane 0 (vector)", pv[0], poly(0.3, c, 3));
  CHECK("poly lane 1 (vector)", pv[1], poly(1.7, c, 3));

  Pair h = __enzyme_batch_pair((void *)use_helper, enzyme_width, 2, 0.3, -1.1, enzyme_scalar,
                               0.5);
  CHECK("use_helper lane 0", h.a, use_helper(0.3, 0.5));
  CHECK("use_helper lane 1", h.b, use_helper(-1.1, 0.5));

  Vector pw = __enzyme_batch((void *)power, enzyme_width, 4, 1.1, 0.9, -2.0, 3.0,
                             enzyme_scalar, 5);
  CHECK("power lane 0", pw.x1, power(1.1, 5));
  CHECK("power lane 1", pw.x2, power(0.9, 5));
  CHECK("power lane 2", pw.x3, power(-2.0, 5));
  CHECK("power lane 3", pw.x4, power(3.0, 5));

  Pair s = __enzyme_batch_pair((void *)scratch, enzyme_width, 2, enzyme_vector, 0.7, -1.3,
                               enzyme_scalar, 11);
  CHECK("scratch lane 0", s.a, scratch(0.7, 11));
  CHECK("scratch lane 1", s.b, scratch(-1.3, 11));

  /* Two rows of a matrix, one per lane: by a stride, and by one pointer per lane. */
  double rows[2][3] = {{1, 2, 3}, {4, 5, 6}}, want[2][3] = {{1, 2, 3}, {4, 5, 6}};
  __enzyme_batch_void((void *)add_one, enzyme_width, 2, enzyme_buffer, sizeof(rows[0]), rows,
                      enzyme_scalar, 3);
  add_one(want[0], 3);
  add_one(want[1], 3);
  fd_check_array("add_one row 0 (buffer)", rows[0], want[0], 3);
  fd_check_array("add_one row 1 (buffer)", rows[1], want[1], 3);
  __enzyme_batch_void((void *)add_one, enzyme_width, 2, rows[1], rows[0], enzyme_scalar, 3);
  add_one(want[0], 3);
  add_one(want[1], 3);
  fd_check_array("add_one row 0 (vector)", rows[0], want[0], 3);
  fd_check_array("add_one row 1 (vector)", rows[1], want[1], 3);

  Floats f = __enzyme_batch_floats((void *)scale_f, enzyme_width, 4, 1.0f, 2.5f, -3.0f, 0.125f,
                                   enzyme_scalar, 1.5f);
  CHECK("scale_f lane 0", f.a, scale_f(1.0f, 1.5f));
  CHECK("scale_f lane 1", f.b, scale_f(2.5f, 1.5f));
  CHECK("scale_f lane 2", f.c, scale_f(-3.0f, 1.5f));
  CHECK("scale_f lane 3", f.d, scale_f(0.125f, 1.5f));

  Ints k = __enzyme_batch_ints((void *)twice, enzyme_width, 2, 7, -4, enzyme_scalar, 3);
  CHECK("twice lane 0", k.a, twice(7, 3));
  CHECK("twice lane 1", k.b, twice(-4, 3));
  return fd_finish();
}
