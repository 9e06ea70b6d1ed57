// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// An expression-template object copied field by field (issue 25, item 4(c), reduced from
// Eigen's product_evaluator): a product of two binary expressions, each holding two references
// and an empty functor, rebuilt from its operands by a non-inlined constructor. At -O1 and above
// the copy is one memcpy per operand, the second into bytes 24..48 of the local product: the
// shadow of those bytes must receive the shadows of the two references it moves (pointers),
// although the copy does not start at the product. It was refused ("may not start a Product").
#include "fdcheck.h"
#include "umbra.h"

struct Vec {
  double *data;
  long n;
};
// Empty, as Eigen's functors: a user-provided constructor keeps it from being an aggregate,
// and its byte is tail padding that a copy of the expression does not move.
struct Sub {
  Sub() {}
  double operator()(double a, double b) const { return a - b; }
};
// An empty base, as Eigen's expressions have: clang then copies one without `!tbaa.struct`,
// which would otherwise say where its pointers are.
struct ExprBase {};
template <class Op> struct Binary : ExprBase {
  const Vec &lhs;
  const Vec &rhs;
  const Op op;
  Binary(const Vec &l, const Vec &r) : lhs(l), rhs(r) {}
  double coeff(long i) const { return op(lhs.data[i], rhs.data[i]); }
};
template <class L, class R> struct Product {
  L lhs;
  R rhs;
  Product(const L &l, const R &r) : lhs(l), rhs(r) {}
};
using Expr = Product<Binary<Sub>, Binary<Sub>>;

// One operand's sum of squares, called on both operands of one product (bytes 0 and 24 of it),
// as Eigen evaluates each side of an expression with the same non-inlined function.
__attribute__((noinline)) double sumsq(const Binary<Sub> &b) {
  double s = 0;
  for (long i = 0; i < b.lhs.n; i++)
    s += b.coeff(i) * b.coeff(i);
  return s;
}

// Writes through a pointer that may alias the expression, so the copy stays a copy.
__attribute__((noinline)) void dot_into(double *out, const Expr &e) {
  double s = 0;
  for (long i = 0; i < e.lhs.lhs.n; i++)
    s += e.lhs.coeff(i) * e.rhs.coeff(i) * e.rhs.lhs.data[i];
  *out = s + sumsq(e.lhs) * sumsq(e.rhs);
}

struct Evaluator {
  double value;
  // Reads a size through each operand (pointer loads in the bytes each copy moves), then
  // rebuilds the product from its operands: one copy per operand, at offsets 0 and 24.
  __attribute__((noinline)) Evaluator(const Expr &e) {
    if (e.lhs.rhs.n + e.rhs.rhs.n == 0) {
      value = 0;
      return;
    }
    Expr copy(e.lhs, e.rhs);
    dot_into(&value, copy);
  }
};

__attribute__((noinline)) double f(double *x, double *y, long n) {
  Vec a{x, n}, b{y, n};
  Expr e(Binary<Sub>(a, b), Binary<Sub>(b, a));
  Evaluator ev(e);
  return ev.value;
}

enum { N = 5 };
static double f_at(const double *p, void *ctx) {
  (void)ctx;
  double x[N], y[N];
  memcpy(x, p, sizeof x);
  memcpy(y, p + N, sizeof y);
  return f(x, y, N);
}

int main() {
  double x[N], y[N], dx[N] = {0}, dy[N] = {0}, p[2 * N], fd[2 * N], g[2 * N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.3 + 0.2 * i;
    y[i] = 1.1 - 0.15 * i * i;
    p[i] = x[i];
    p[N + i] = y[i];
  }
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, (long)N);
  fd_grad(f_at, NULL, p, 2 * N, fd);
  memcpy(g, dx, sizeof dx);
  memcpy(g + N, dy, sizeof dy);
  fd_check_array("dx dy", g, fd, 2 * N);
  double vx[N], vy[N];
  for (int i = 0; i < N; i++) {
    vx[i] = 1 - 0.1 * i;
    vy[i] = 0.5 + 0.2 * i;
  }
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, vx, enzyme_dup, y, vy, enzyme_const,
                              (long)N);
  double jv = 0;
  for (int i = 0; i < N; i++)
    jv += fd[i] * vx[i] + fd[N + i] * vy[i];
  fd_check("tangent", t, jv);
  return fd_finish();
}
