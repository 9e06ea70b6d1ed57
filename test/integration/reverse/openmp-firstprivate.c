// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -fopenmp
// EXEC-LDFLAGS: -fopenmp
// Variables captured by value (`firstprivate`, and the scalars clang passes to the outlined
// function in pointer-sized integers): an `int` (issue 28: refused as "captured by value,
// which carries a derivative" although an integer never does), a `double` (the outlined
// function receives its bits in an i64), the int loaded from differentiable memory. The gradient with respect to a
// captured double sums every thread's contribution; its tangent reaches every thread.
// Reverse and forward mode, 1, 2 and 3 threads, against finite differences, each other and
// the same functions without OpenMP.
#include "fdcheck.h"
#include <omp.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

// The pattern of the issue: an integer firstprivate sizing the work of each iteration.
#define BODY(PRAGMA)                                                                           \
  int numNode = d->numNode;                                                                    \
  double s = 0;                                                                                \
  PRAGMA                                                                                       \
  for (int i = 0; i < n; i++) {                                                                \
    y[i] = c * sin(x[i]) + (i % numNode) * x[i];                                               \
    s += c * c * x[i] + d->scale * x[i] * x[i];                                                       \
  }                                                                                            \
  return s + y[n - 1];

// The integer came from a structure holding differentiable data too.
struct domain { double scale; int numNode; };

double captured(const double *x, double *y, int n, double c, struct domain *d) {
  BODY(_Pragma("omp parallel for firstprivate(numNode, c) reduction(+ : s)"))
}

double serial(const double *x, double *y, int n, double c, struct domain *d) { BODY() }

// `in` is private to each thread, and only each thread's first iteration sees its value:
// its derivative counts the threads that ran an iteration (Enzyme's omp_firstprivate.c).
void first_only(double *a, double in, int n) {
#pragma omp parallel for firstprivate(in)
  for (int i = 0; i < n; i++) {
    a[i] = in * in;
    in = 0;
  }
}

enum { N = 23 };
static double ybuf[N];
// The function of all inputs at once, for finite differences: x, then c, then the scale.
static double at(const double *v, void *ctx) {
  struct domain d = {v[N + 1], *(int *)ctx};
  return captured(v, ybuf, N, v[N], &d);
}

typedef double (*grad1_t)(void *, ...);
typedef void (*fwd_void_t)(void *, ...);

int main(void) {
  double v[N + 2], fd[N + 2], dx[N], y[N], dy[N], first_dx[N], serial_dx[N], dir[N + 2];
  for (int i = 0; i < N; i++) {
    v[i] = 0.3 + 0.07 * i - 0.02 * (i % 4);
    dir[i] = 0.1 * (i % 5) - 0.2;
  }
  v[N] = 1.3, v[N + 1] = 0.75;
  dir[N] = 0.7, dir[N + 1] = -0.4;
  const double c = v[N];
  int numNode = 5;
  struct domain d = {v[N + 1], numNode}, dd, serial_dd;
  fd_grad(at, &numNode, v, N + 2, fd);
  // The same function without OpenMP, for comparison.
  memset(serial_dx, 0, sizeof serial_dx);
  memset(dy, 0, sizeof dy);
  memset(&serial_dd, 0, sizeof serial_dd);
  double serial_dc = ((grad1_t)__enzyme_autodiff)((void *)serial, enzyme_dup, v, serial_dx,
                                                  enzyme_dup, y, dy, enzyme_const, N, enzyme_out,
                                                  c, enzyme_dup, &d, &serial_dd);
  fd_check_array("serial dx", serial_dx, fd, N);
  fd_check("serial dc", serial_dc, fd[N]);
  fd_check("serial dscale", serial_dd.scale, fd[N + 1]);
  double first_dc = 0;
  for (int k = 0; k < 3; k++) {
    omp_set_num_threads(k + 1);
    memset(dx, 0, sizeof dx);
    memset(dy, 0, sizeof dy);
    memset(&dd, 0, sizeof dd);
    // Reverse mode: c active by value (its adjoint returned), numNode read from d.
    double dc = ((grad1_t)__enzyme_autodiff)((void *)captured, enzyme_dup, v, dx, enzyme_dup, y,
                                             dy, enzyme_const, N, enzyme_out, c, enzyme_dup, &d,
                                             &dd);
    fd_check_array("captured dx", dx, fd, N);
    fd_check("captured dc", dc, fd[N]);
    fd_check("captured dscale", dd.scale, fd[N + 1]);
    fd_check_array("captured dx as serial", dx, serial_dx, N);
    fd_check("captured dc as serial", dc, serial_dc);
    fd_check("captured dscale as serial", dd.scale, serial_dd.scale);
    if (k == 0) {
      memcpy(first_dx, dx, sizeof dx);
      first_dc = dc;
    }
    fd_check_array("same dx with more threads", dx, first_dx, N);
    fd_check("same dc with more threads", dc, first_dc);
    // Forward mode: the tangent of c reaches every thread, as x's and the scale's do.
    memset(dy, 0, sizeof dy);
    memset(&dd, 0, sizeof dd);
    dd.scale = dir[N + 1];
    double t = __enzyme_fwddiff((void *)captured, enzyme_dup, v, dir, enzyme_dup, y, dy,
                                enzyme_const, N, c, dir[N], enzyme_dup, &d, &dd);
    double want = 0;
    for (int i = 0; i < N + 2; i++)
      want += fd[i] * dir[i];
    fd_check("captured tangent", t, want);
    // Enzyme's omp_firstprivate.c: d(sum a)/d(in) is 2 in per thread that ran an iteration.
    double a[N], da[N];
    for (int i = 0; i < N; i++)
      da[i] = 1;
    double din = ((grad1_t)__enzyme_autodiff)((void *)first_only, enzyme_dup, a, da,
                                               enzyme_out, 1.5, enzyme_const, N);
    fd_check_exact("first_only d in", din, 2 * 1.5 * (k + 1));
    ((fwd_void_t)__enzyme_fwddiff)((void *)first_only, enzyme_dup, a, da, 1.5, 1.0,
                                   enzyme_const, N);
    int seen = 0;
    for (int i = 0; i < N; i++)
      seen += da[i] == 3.0;
    fd_check_exact("first_only tangents (one per thread)", seen, k + 1);
  }
  return fd_finish();
}
