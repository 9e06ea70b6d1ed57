// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// C++ objects holding data pointers: a span-like view copied into the heap (a memcpy), an
// iterator-like wrapper of one pointer copied by value (an 8-byte memcpy), and an array of them
// moved with std::copy (a memmove of a run-time length). Issue 15: their shadows were lost and
// the adjoint crashed.
#include "fdcheck.h"
#include <algorithm>

extern "C" int enzyme_dup, enzyme_const;
extern "C" double __enzyme_autodiff(void *, ...);

struct Span {
  double *data;
  long n;
  double weight;
};

struct Iter {
  double *p;
};

__attribute__((noinline)) static double weighted(Span s) {
  double t = 0;
  for (long i = 0; i < s.n; i++) t += s.weight * s.data[i] * (i + 1);
  return t;
}

__attribute__((noinline)) static double walk(Iter it, long n) {
  double t = 0;
  for (long i = 0; i < n; i++) t += it.p[i] * it.p[i];
  return t;
}

static void move_iters(const Iter *from, Iter *to, long k) {
  std::copy(from, from + k, to);
}

double f(double *x, long n, double w) {
  Span s{x, n, w};
  Span *heap = new Span(s);
  heap->weight = w * w;
  Iter it{x};
  Iter it2 = it;
  Iter its[3] = {{x + 2}, {x + 1}, {x}};
  Iter *moved = new Iter[3];
  move_iters(its, moved, 3);
  double t = weighted(*heap) + walk(it2, n);
  for (int k = 0; k < 3; k++) t += walk(moved[k], 2) * (k + 1);
  delete heap;
  delete[] moved;
  return t;
}

enum { N = 5 };
static double f_at(const double *p, void *ctx) {
  (void)ctx;
  double x[N];
  for (int i = 0; i < N; i++) x[i] = p[i];
  return f(x, N, p[N]);
}

int main() {
  double p[N + 1] = {0.5, -1.25, 2.0, 0.75, 1.5, 0.8}, fd[N + 1], ad[N + 1];
  double x[N], dx[N] = {0};
  for (int i = 0; i < N; i++) x[i] = p[i];
  double dw = __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (long)N, p[N]);
  for (int i = 0; i < N; i++) ad[i] = dx[i];
  ad[N] = dw;
  fd_grad(f_at, NULL, p, N + 1, fd);
  fd_check_array("d(x, w)", ad, fd, N + 1);
  return fd_finish();
}
