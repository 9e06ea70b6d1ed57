// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// qsort on differentiable data, in both modes: a sort is a permutation, so the derivative is
// the same permutation of the shadows. Doubles sorted in a scratch copy (order statistics),
// the input sorted in place (the adjoint moves back to where each element came from), and
// records sorted by a key that carry a pointer to another array (in reverse mode the
// pointer's shadow must move with its record); and a gradient through qsort differentiated
// again (forward over reverse). Before, 'qsort' had no rule: an error.
#include "fdcheck.h"
#include <stdlib.h>
#include <string.h>
#include "umbra.h"

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct {
  double key;
  const double *weight;
  int id;
} rec;

static int by_key_descending(const void *a, const void *b) {
  double x = ((const rec *)a)->key, y = ((const rec *)b)->key;
  return (x < y) - (x > y);
}

/* A trimmed, rank-weighted mean of a scratch copy: the order statistics of x. */
__attribute__((noinline)) double ranked(const double *x, int n) {
  double *s = malloc(n * sizeof(double));
  memcpy(s, x, n * sizeof(double));
  qsort(s, n, sizeof(double), by_value);
  double r = 0;
  for (int i = 1; i < n - 1; i++) r += (i + 1) * s[i] * s[i];
  free(s);
  return r;
}

/* Sorts x itself, then reads it in sorted order. */
__attribute__((noinline)) double in_place(double *x, int n) {
  double before = x[0] * x[1];
  qsort(x, n, sizeof(double), by_value);
  double r = before;
  for (int i = 0; i < n; i++) r += sin(x[i]) * (i + 1);
  return r;
}

/* Records keyed by k[i] with a pointer to w[i]: sorted by key, the weights are read through
   the sorted records' pointers. */
__attribute__((noinline)) double records(const double *k, const double *w, int n) {
  rec *r = malloc(n * sizeof(rec));
  for (int i = 0; i < n; i++) {
    r[i].key = k[i];
    r[i].weight = &w[i];
    r[i].id = i;
  }
  qsort(r, n, sizeof(rec), by_key_descending);
  double s = 0;
  for (int i = 0; i < n; i++) s += (i + 1) * r[i].key * *r[i].weight + 0.01 * r[i].id;
  free(r);
  return s;
}

enum { N = 7 };

/* Forward over reverse: a gradient through qsort differentiated again. */
__attribute__((noinline)) double ranked_slope(const double *x, int n) {
  double dx[N] = {0};
  __enzyme_autodiff((void *)ranked, enzyme_dup, x, dx, enzyme_const, n);
  return dx[0] + 0.5 * dx[n - 1] + dx[2] * dx[3];
}
static double slope_at(const double *p, void *c) { (void)c; return ranked_slope(p, N); }
static double ranked_at(const double *p, void *c) { (void)c; return ranked(p, N); }
static double in_place_at(const double *p, void *c) {
  (void)c;
  double y[N];
  memcpy(y, p, sizeof y);
  return in_place(y, N);
}
static double records_at(const double *p, void *c) { (void)c; return records(p, p + N, N); }

int main(void) {
  double x[2 * N], fd[2 * N], v[2 * N];
  for (int i = 0; i < 2 * N; i++) {
    x[i] = 0.9 * sin(2.3 * i + 0.4) + 0.05 * i; /* distinct values */
    v[i] = 0.3 - 0.11 * i;
  }

  double dx[2 * N] = {0};
  fd_grad(ranked_at, NULL, x, N, fd);
  __enzyme_autodiff((void *)ranked, enzyme_dup, x, dx, enzyme_const, N);
  fd_check_array("ranked: gradient", dx, fd, N);
  double t = __enzyme_fwddiff((void *)ranked, enzyme_dup, x, v, enzyme_const, N);
  double jv = 0;
  for (int i = 0; i < N; i++) jv += fd[i] * v[i];
  fd_check("ranked: tangent", t, jv);

  fd_grad(in_place_at, NULL, x, N, fd);
  double y[N], dy[N] = {0}, ty[N];
  memcpy(y, x, sizeof y);
  __enzyme_autodiff((void *)in_place, enzyme_dup, y, dy, enzyme_const, N);
  fd_check_array("in place: gradient", dy, fd, N);
  memcpy(y, x, sizeof y);
  memcpy(ty, v, sizeof ty);
  t = __enzyme_fwddiff((void *)in_place, enzyme_dup, y, ty, enzyme_const, N);
  jv = 0;
  for (int i = 0; i < N; i++) jv += fd[i] * v[i];
  fd_check("in place: tangent", t, jv);
  for (int i = 1; i < N; i++)
    if (y[i - 1] > y[i]) fd_check("in place: sorted", y[i - 1], y[i]);

  fd_grad(records_at, NULL, x, 2 * N, fd);
  memset(dx, 0, sizeof dx);
  __enzyme_autodiff((void *)records, enzyme_dup, x, dx, enzyme_dup, x + N, dx + N,
                    enzyme_const, N);
  fd_check_array("records: gradient", dx, fd, 2 * N);
  t = __enzyme_fwddiff((void *)records, enzyme_dup, x, v, enzyme_dup, x + N, v + N,
                       enzyme_const, N);
  jv = 0;
  for (int i = 0; i < 2 * N; i++) jv += fd[i] * v[i];
  fd_check("records: tangent", t, jv);

  fd_grad(slope_at, NULL, x, N, fd);
  t = __enzyme_fwddiff((void *)ranked_slope, enzyme_dup, x, v, enzyme_const, N);
  jv = 0;
  for (int i = 0; i < N; i++) jv += fd[i] * v[i];
  fd_check("ranked: second order", t, jv);
  return fd_finish();
}
