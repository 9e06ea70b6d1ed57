// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// A sparse Hessian through Enzyme's dense views (__enzyme_todense, C spelling): forward over
// reverse, the direction a view whose loads read column i of the identity, the gradient's
// shadow a view whose stores hand each entry to the user's accumulator, the gradient's primal
// a dummy pointer (enzyme_dupnoneed, never written). The entries summed per (row, col) must be
// the Hessian (central differences of the gradient written by hand); a chain couples
// neighbours only, so no entry may land off the tridiagonal, and the identity view is never
// stored to.
#include "fdcheck.h"
#include <stdint.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);
double *__enzyme_todense(void *, void *, ...);

enum { N = 7, MAX = 200 };

static double energy(const double *x, int n) {
  double e = 0;
  for (int i = 0; i + 1 < n; i++) {
    double d = x[i + 1] - x[i];
    e += d * d * d * d / 4 + sin(x[i]) * x[i + 1];
  }
  for (int i = 0; i < n; i++)
    e += exp(0.1 * x[i]) * x[i];
  return e;
}

static void grad(const double *x, double *dx, int n) {
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, n);
}

// The gradient by hand, for the finite differences.
static void grad_by_hand(const double *x, double *g, void *ctx) {
  (void)ctx;
  for (int i = 0; i < N; i++)
    g[i] = exp(0.1 * x[i]) * (1 + 0.1 * x[i]);
  for (int i = 0; i + 1 < N; i++) {
    double d = x[i + 1] - x[i];
    g[i + 1] += d * d * d + sin(x[i]);
    g[i] += -d * d * d + cos(x[i]) * x[i + 1];
  }
}

static int stores_to_identity = 0;

// Column `col` of the identity, by byte offset.
static double ident_load(int64_t off, int64_t col) {
  return off / (int64_t)sizeof(double) == col ? 1.0 : 0.0;
}
static void ident_store(double v, int64_t off, int64_t col) {
  (void)v, (void)off, (void)col;
  stores_to_identity++;
}

struct acc {
  int n;
  int row[MAX], col[MAX];
  double val[MAX];
};
// Reads of the output view see zero: each store then carries one contribution.
static double zero_load(int64_t off, int64_t row, struct acc *a) {
  (void)off, (void)row, (void)a;
  return 0;
}
static void acc_store(double v, int64_t off, int64_t row, struct acc *a) {
  if (v == 0 || a->n == MAX)
    return;
  a->row[a->n] = (int)row;
  a->col[a->n] = (int)(off / (int64_t)sizeof(double));
  a->val[a->n] = v;
  a->n++;
}

__attribute__((noinline)) static void hessian(const double *x, struct acc *a) {
  for (int64_t i = 0; i < N; i++) {
    double *dir = __enzyme_todense((void *)ident_load, (void *)ident_store, i);
    double *out = __enzyme_todense((void *)zero_load, (void *)acc_store, i, a);
    __enzyme_fwddiff((void *)grad, enzyme_dup, x, dir, enzyme_dupnoneed, (double *)0x1, out,
                     enzyme_const, N);
  }
}

int main(void) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.3 * i - 0.4 + 0.05 * i * i;
  static struct acc a;
  hessian(x, &a);
  double h[N][N] = {{0}};
  int off_band = 0;
  for (int k = 0; k < a.n; k++) {
    h[a.row[k]][a.col[k]] += a.val[k];
    off_band += abs(a.row[k] - a.col[k]) > 1;
  }
  for (int j = 0; j < N; j++) {
    double e[N] = {0}, col[N];
    e[j] = 1;
    fd_dir_vec(grad_by_hand, NULL, x, e, N, col, N);
    double row[N];
    for (int i = 0; i < N; i++)
      row[i] = h[j][i];
    char name[32];
    snprintf(name, sizeof name, "H[%d]", j);
    fd_check_array(name, row, col, N);
  }
  fd_check_exact("entries off the tridiagonal", off_band, 0);
  fd_check_exact("stores through the identity view", stores_to_identity, 0);
  fd_check_exact("accumulator not full", a.n < MAX, 1);
  return fd_finish();
}
