// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// A callee's adjoint re-reads what its caller's later writes cannot reach by TBAA type (issue
// 27: the caller's typed writes are part of the callee's derived key), and a loaded pointer's
// shadow from shadow memory where the pointer can be re-read. Each case here writes, after the
// call, exactly what the callee read (test/reverse/caller-typed-writes.c pins what is re-read):
// - `permuted`: the caller permutes the int index array the callee gathered through (only
//   `double`s are written in `scaled`, where the indices are re-read);
// - `repointed`: the caller points the struct's field at other memory after the call, whose
//   shadow then points at the other shadow: the callee's adjoint must use the old one;
// against finite differences.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 12 };

__attribute__((noinline)) double gather(const double *x, const int *idx, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[idx[i]] * x[idx[i]] * (1.0 + 0.1 * i);
  return s;
}

__attribute__((noinline)) double scaled(double *x, int *idx, int n) {
  double s = gather(x, idx, n);
  for (int i = 0; i < n; i++) x[i] *= 1.5; // doubles only: the indices may be re-read
  return s + gather(x, idx, n);
}

__attribute__((noinline)) double permuted(double *x, int *idx, int n) {
  double s = gather(x, idx, n);
  for (int i = 0; i < n; i++) idx[i] = n - 1 - i; // ints: the indices must be taped
  return s + 3.0 * gather(x, idx, n);
}

typedef struct {
  double *p;
  int n;
} vec;

__attribute__((noinline)) double norm2(vec *v) {
  double s = 0;
  for (int i = 0; i < v->n; i++) {
    v->p[i] = v->p[i] * 1.25;
    s += v->p[i] * v->p[i] * (2.0 + i);
  }
  return s;
}

__attribute__((noinline)) double repointed(vec *v, double *other) {
  double a = norm2(v);
  v->p = other; // a pointer: norm2's pointer loads (and their shadows) must be taped
  return a + 0.5 * norm2(v);
}

static double xs[N], ys[N];
static int perm[N];

static double scaled_at(double t, void *ctx) {
  int k = *(int *)ctx;
  double x[N];
  int idx[N];
  for (int i = 0; i < N; i++) x[i] = xs[i], idx[i] = perm[i];
  x[k] = t;
  return scaled(x, idx, N);
}

static double permuted_at(double t, void *ctx) {
  int k = *(int *)ctx;
  double x[N];
  int idx[N];
  for (int i = 0; i < N; i++) x[i] = xs[i], idx[i] = perm[i];
  x[k] = t;
  return permuted(x, idx, N);
}

static double repointed_at(double t, void *ctx) {
  int k = *(int *)ctx;
  double x[N], y[N];
  for (int i = 0; i < N; i++) x[i] = xs[i], y[i] = ys[i];
  if (k < N)
    x[k] = t;
  else
    y[k - N] = t;
  vec v = {x, N};
  return repointed(&v, y);
}

int main(void) {
  for (int i = 0; i < N; i++) {
    xs[i] = 0.4 + 0.07 * i;
    ys[i] = 1.3 - 0.05 * i;
    perm[i] = (5 * i + 3) % N;
  }
  {
    double x[N], dx[N];
    int idx[N], didx[N];
    for (int i = 0; i < N; i++) x[i] = xs[i], dx[i] = 0, idx[i] = perm[i], didx[i] = 0;
    __enzyme_autodiff((void *)scaled, enzyme_dup, x, dx, enzyme_dup, idx, didx, enzyme_const, N);
    for (int k = 0; k < N; k++) fd_check("scaled", dx[k], fd_deriv1(scaled_at, &k, xs[k]));
  }
  {
    double x[N], dx[N];
    int idx[N], didx[N];
    for (int i = 0; i < N; i++) x[i] = xs[i], dx[i] = 0, idx[i] = perm[i], didx[i] = 0;
    __enzyme_autodiff((void *)permuted, enzyme_dup, x, dx, enzyme_dup, idx, didx, enzyme_const,
                      N);
    for (int k = 0; k < N; k++) fd_check("permuted", dx[k], fd_deriv1(permuted_at, &k, xs[k]));
  }
  {
    double x[N], dx[N], y[N], dy[N];
    for (int i = 0; i < N; i++) x[i] = xs[i], dx[i] = 0, y[i] = ys[i], dy[i] = 0;
    vec v = {x, N}, dv = {dx, N};
    __enzyme_autodiff((void *)repointed, enzyme_dup, &v, &dv, enzyme_dup, y, dy);
    for (int k = 0; k < N; k++) {
      fd_check("repointed dx", dx[k], fd_deriv1(repointed_at, &k, xs[k]));
      int j = N + k;
      fd_check("repointed dy", dy[k], fd_deriv1(repointed_at, &j, ys[k]));
    }
  }
  return fd_finish();
}
