// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CLANG-PLUGIN
// Mutable globals without a declared shadow that the differentiated code writes derivatives
// into get one Umbra creates (Enzyme's implicit global shadows; before, "globals get no
// shadow"): a scalar written by a callee and read by the caller, an external array written by
// one callee and read by another, a global read before it is written (its value at entry is a
// constant of the call), a function's static array written by a helper it is passed to. Globals holding inactive data keep none and still work: a constant
// table, a mutable table f only reads, an integer counter, and an inactive global
// (enzyme_inactive) that a pointer choice mixes with differentiable memory, through which the
// derivative is dropped. Checked against finite differences, in reverse and forward mode,
// twice in a row from the same state (the created shadows are zeroed before each request:
// without that, the adjoint the first gradient leaves in carry's shadow corrupts the second).
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { N = 4 };

static double state;
double hist[N];
static double carry = 0.25;
static const double coef[N] = {0.5, -1.5, 2.0, 0.75};
static double table[N] = {1.0, 2.0, -1.0, 0.5};
static int calls;
__attribute__((enzyme_inactive)) static double scratch = 1.0;

__attribute__((noinline)) static void fill(const double *x, int n) {
  for (int i = 0; i < n; i++)
    hist[i] = sin(x[i]) * coef[i] * table[i];
}

__attribute__((noinline)) static double sum_hist(int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += hist[i] * hist[i];
  return s;
}

__attribute__((noinline)) static void set_state(double v) { state = v * v; }

// Writes through its parameter: at -O0 the static array below is written only here.
static void squares(int n, double *a, const double *x) {
  for (int i = 0; i < n; i++)
    a[i] = x[i] * x[i];
}

// At -O1 and above the choice is a select of @scratch and %c.
__attribute__((noinline)) static void scale_into(int to_scratch, double a, double *c) {
  double *p = to_scratch ? &scratch : c;
  *p *= a;
}

double f(const double *x, int n) {
  calls++;
  double c = carry;
  fill(x, n);
  set_state(x[0] + x[1]);
  static double sq[N];
  squares(n, sq, x);
  double y = sum_hist(n) + state * c + sq[0] * sq[3] + sq[1];
  carry = y * 0.5 + x[2];
  double loc = x[3];
  scale_into(n > 100, x[2], &loc);
  scale_into(n < 100, x[1], &loc);
  return y + carry * x[3] + loc;
}

// f from the same state each time, so finite differences see one function.
static double f_at(const double *p, void *ctx) {
  (void)ctx;
  double keep = carry;
  double y = f(p, N);
  carry = keep;
  return y;
}

int main(void) {
  double x[N] = {0.3, -0.7, 1.1, 0.45}, fd[N], v[N] = {0.2, -1.0, 0.5, 0.3};
  fd_grad(f_at, NULL, x, N, fd);
  double fdt = fd_dir(f_at, NULL, x, v, N);
  scratch = 1.0;
  for (int round = 0; round < 2; round++) {
    double keep = carry;
    double dx[N] = {0};
    calls = 0;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
    fd_check_exact("calls per request", calls, 1);
    fd_check_array(round ? "dx (second gradient)" : "dx", dx, fd, N);
    carry = keep;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, N);
    fd_check(round ? "tangent (second)" : "tangent", t, fdt);
    carry = keep;
  }
  // The inactive global was scaled by the primal of each of the 4 requests, by x[1].
  fd_check("scratch", scratch, pow(x[1], 4));
  return fd_finish();
}
