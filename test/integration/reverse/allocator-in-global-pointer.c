// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// The allocator is called through a function pointer kept in a mutable global (a struct field
// and a plain pointer, initialised to malloc and calloc; Enzyme's ReverseMode/metamalloc.c). The
// call dispatches among the initial functions, with the fallback for any other target, whose
// result has no shadow: derived code stops before it (a run-time error), so the fallback's
// result must not be refused at compile time as a pointer without shadow (issue 29). Both modes
// against finite differences.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct {
  int count;
  void *(*allocfn)(unsigned long);
} tup = {0, malloc};
static void *(*zeroing)(unsigned long, unsigned long) = calloc;

__attribute__((noinline)) void *metamalloc(unsigned long size) { return tup.allocfn(size); }
__attribute__((noinline)) double *zeroed(int n) { return (double *)zeroing(n, sizeof(double)); }

__attribute__((noinline)) void square(double *x) { *x *= *x; }

static double f(double x, double y) {
  double *mem = (double *)metamalloc(2 * sizeof(double));
  double *acc = zeroed(2);
  mem[0] = x;
  mem[1] = sin(y) * x;
  square(mem);
  acc[0] += mem[0] * mem[1];
  acc[1] += acc[0] * y;
  double r = acc[1] + mem[1];
  free(mem);
  free(acc);
  return r;
}
static double f_at(const double *p, void *ctx) {
  (void)ctx;
  return f(p[0], p[1]);
}

int main(void) {
  double p[2] = {0.7, -1.3}, g[2];
  fd_grad(f_at, 0, p, 2, g);
  fd_check("reverse dx", __enzyme_autodiff((void *)f, p[0], enzyme_const, p[1]), g[0]);
  fd_check("reverse dy", __enzyme_autodiff((void *)f, enzyme_const, p[0], p[1]), g[1]);
  fd_check("forward dx", __enzyme_fwddiff((void *)f, p[0], 1.0, p[1], 0.0), g[0]);
  fd_check("forward dy", __enzyme_fwddiff((void *)f, p[0], 0.0, p[1], 1.0), g[1]);
  return fd_finish();
}
