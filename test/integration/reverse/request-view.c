// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// The request's view of memory (issue 11): a request is a call of the function it
// differentiates, so the caller's memory (its stores, the allocas and globals it passes) types
// the function's pointer parameters.
// - A generic copy helper requested on doubles, and called elsewhere on a struct holding a
//   pointer and an int: the request gets a type context of its own (before, it used the
//   helper's context 0, whose types are the struct's, and was refused: "cannot tell what type
//   of data this call moves"), and the copy's length is the constant the request passes. The
//   same helper requested on floats gets another context (before, merged with the doubles,
//   it was refused as well).
// - Functions reading the caller's doubles as whole 64-bit integers (copied back, or with the
//   sign bit cleared): the integers carry the doubles' bits, in both modes. (Doubles read as
//   floats or as 32-bit halves: test/errors/request-view-reinterpreted.c.)
#include <stdint.h>
#include "fdcheck.h"

void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) static void copy(void *d, const void *s, long n) { memcpy(d, s, n); }

typedef struct {
  double *p;
  int n;
} View;

__attribute__((noinline)) double use(View *v) {
  View w;
  copy(&w, v, sizeof w);
  return w.p[0] * w.n;
}

static const double weights[3] = {3, 5, -2};

/* What the copy's gradient is checked against: the weighted sum of what it copies. */
static double copied_at(const double *x, void *c) {
  (void)c;
  double y[3];
  copy(y, x, sizeof y);
  return weights[0] * y[0] + weights[1] * y[1] + weights[2] * y[2];
}

__attribute__((noinline)) static double via_int64(const double *x) {
  int64_t u[2];
  memcpy(u, x, sizeof u);
  double d[2];
  memcpy(d, u, sizeof d);
  return d[0] * d[0] * d[1];
}

__attribute__((noinline)) static double abs_bits(const double *x) {
  uint64_t u;
  memcpy(&u, x, sizeof u);
  u &= 0x7fffffffffffffffull;
  double a;
  memcpy(&a, &u, sizeof a);
  return a * x[1];
}

static double via_int64_at(const double *x, void *c) {
  (void)c;
  return via_int64(x);
}

static double abs_bits_at(const double *x, void *c) {
  (void)c;
  return abs_bits(x);
}

/* The gradient of fn at p in reverse mode, and each direction's tangent in forward mode. */
#define CHECK_BOTH_MODES(fn, what, p)                                  \
  do {                                                                 \
    double dp[2] = {0, 0}, g[2], v0[2] = {1, 0}, v1[2] = {0, 1};       \
    __enzyme_autodiff((void *)fn, enzyme_dup, p, dp);                  \
    fd_grad(fn##_at, NULL, p, 2, g);                                   \
    fd_check_array(what ": reverse", dp, g, 2);                        \
    fd_check(what ": forward 0", __enzyme_fwddiff((void *)fn, enzyme_dup, p, v0), g[0]); \
    fd_check(what ": forward 1", __enzyme_fwddiff((void *)fn, enzyme_dup, p, v1), g[1]); \
  } while (0)

int main(void) {
  double x[3] = {1.5, -2.0, 0.75}, y[3], dx[3] = {0}, dy[3], fd[3];
  memcpy(dy, weights, sizeof dy);
  __enzyme_autodiff((void *)copy, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_const, 24L);
  fd_grad(copied_at, NULL, x, 3, fd);
  fd_check_array("copy helper: the request's own context", dx, fd, 3);
  View v = {x, 2};
  fd_check("copy helper on a struct", use(&v), 3.0);
  // The copy's gradient on floats: each element's adjoint moves to the source, as floats.
  float a[4] = {1, 2, 3, 4}, b[4], da[4] = {0}, db[4] = {0.5f, -1.5f, 2.25f, 4};
  __enzyme_autodiff((void *)copy, enzyme_dup, b, db, enzyme_dup, a, da, enzyme_const, 16L);
  fd_check("copy helper on floats[0]", da[0], 0.5);
  fd_check("copy helper on floats[1]", da[1], -1.5);
  fd_check("copy helper on floats[2]", da[2], 2.25);
  fd_check("copy helper on floats[3]", da[3], 4.0);

  double p[2] = {-1.25, 0.5};
  CHECK_BOTH_MODES(via_int64, "doubles as int64_t", p);
  CHECK_BOTH_MODES(abs_bits, "abs through uint64_t", p);
  return fd_finish();
}
