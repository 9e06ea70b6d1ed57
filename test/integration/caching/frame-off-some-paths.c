// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: %clang -O2 -g -c -emit-llvm -I %testinc %s -o %t.bc
// RUN: %umbra %t.bc -O2 --tape-stats -o %t.o
// RUN: %clang %t.o -lm -o %t.stats.exe
// RUN: %t.stats.exe tape
// A value computed once per call but not on every path to the return (the data pointers a
// function loads from its argument inside `if (n > 0)`) is kept once per call, in the frame,
// rather than at each use: kept at each use, the shadow of every element address of the loops
// that read through those pointers was taped once per iteration. With --tape-stats the
// gradient's tape is checked to hold nothing per iteration; the gradient is checked against
// finite differences.
#include "fdcheck.h"
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
enum { N = 2000 };
typedef struct {
  double *u, *w;
  int n;
} Grid;
__attribute__((noinline)) double energy(Grid *g, double k) {
  double s = 0;
  if (g->n > 0) {
    const double *u = g->u, *w = g->w;
    for (int i = 0; i < g->n; i++)
      s += k * u[i] * u[i] * w[i];
    for (int i = 0; i < g->n; i++)
      s += sin(u[i]) * w[i];
  }
  return s;
}
static long long tape_bytes;
void umbra_tape_stats(long long bytes) { tape_bytes = bytes; }
static double u0[N], w0[N], du[N], dw[N];
static double at_u(const double *u, void *c) {
  (void)c;
  Grid g = {(double *)u, w0, N};
  return energy(&g, 1.5);
}
static double at_w(const double *w, void *c) {
  (void)c;
  Grid g = {u0, (double *)w, N};
  return energy(&g, 1.5);
}
int main(int argc, char **argv) {
  double fd[N];
  for (int i = 0; i < N; i++) u0[i] = 0.5 + 0.3 * sin(0.1 * i), w0[i] = cos(0.07 * i);
  Grid g = {u0, w0, N}, dg = {du, dw, N};
  __enzyme_autodiff((void *)energy, enzyme_dup, &g, &dg, enzyme_const, 1.5);
  if (argc > 1 && strcmp(argv[1], "tape") == 0) {
    printf("tape bytes: %lld (one pointer per iteration: %d)\n", tape_bytes, 8 * N);
    fd_check_exact("nothing taped per iteration", tape_bytes < 8 * N / 8, 1);
    return fd_finish();
  }
  fd_grad(at_u, NULL, u0, N, fd);
  fd_check_array("d/du", du, fd, N);
  fd_grad(at_w, NULL, w0, N, fd);
  fd_check_array("d/dw", dw, fd, N);
  return fd_finish();
}
