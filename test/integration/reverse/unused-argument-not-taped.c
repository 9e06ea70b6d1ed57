// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// An argument a differentiated callee never uses is not kept for the callee's adjoint, which
// gets poison in its place: `alloc` ignores its memory kind, read from an `extern` global the
// program never defines (Enzyme's customglob.cpp). At -O0 the primal's load of it is dead and
// dropped, and the tape's copy was the only reference left: the link failed. A kept argument
// the callee does use (`scale`) still reaches its adjoint: checked against finite differences.
// (No plugin run at -O0: there the unoptimised primal itself still loads the global.)
#include "fdcheck.h"

extern int enzyme_out;
double __enzyme_autodiff(void *, ...);

extern int host_memory_kind; /* declared, never defined: the program never reads it */

__attribute__((noinline)) double *alloc(int n, int kind) {
  (void)kind;
  return (double *)malloc(n * sizeof(double));
}

__attribute__((noinline)) double scaled(double *d, double a, double scale, int kind) {
  (void)kind;
  d[0] = a * a * scale;
  return d[0];
}

double square(double a) {
  double *d = alloc(1, host_memory_kind);
  double r = scaled(d, a, 1.5, host_memory_kind);
  free(d);
  return r;
}

static double square_at(double a, void *ctx) {
  (void)ctx;
  return square(a);
}

int main(void) {
  double da = __enzyme_autodiff((void *)square, enzyme_out, 1.3);
  fd_check("d square / da", da, fd_deriv1(square_at, NULL, 1.3));
  return fd_finish();
}
