// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// A finite-element style loop: each element's node numbers, `int` fields of a struct beside
// its doubles, are copied into a local array that then indexes the global load vector. At -O0
// (no TBAA) an `int` loaded from a struct field counts as integer data where the field is
// declared `int`; Umbra's clean-up had folded `&mesh[e].n0` into the address of `mesh[e]`, so
// the declared field went unseen and the copy was refused ("copies differentiable memory
// through an integer ... the type analysis found integer data there"). Both modes against
// finite differences.
#include "fdcheck.h"
#include "umbra.h"

typedef struct {
  int n0, n1;
  double xl, xr;
} element;

enum { NE = 4 };

__attribute__((noinline)) static void local_load(const element *e, double k, double *out) {
  *out = k * (e->xr - e->xl);
}

double assemble(const double *x) {
  element mesh[NE];
  double F[NE + 1] = {0};
  for (int e = 0; e < NE; e++) {
    mesh[e].n0 = e;
    mesh[e].n1 = e + 1;
    mesh[e].xl = e * 0.25;
    mesh[e].xr = (e + 1) * 0.25 + 0.1 * x[e];
  }
  for (int e = 0; e < NE; e++) {
    double fe;
    local_load(&mesh[e], x[e], &fe);
    int dofs[2] = {mesh[e].n0, mesh[e].n1};
    for (int a = 0; a < 2; a++)
      F[dofs[a]] += fe * (a + x[e]);
  }
  double s = 0;
  for (int i = 0; i <= NE; i++)
    s += F[i] * F[i];
  return s;
}

static double at(const double *x, void *c) {
  (void)c;
  return assemble(x);
}

int main(void) {
  double x[NE] = {1, 2, 3, 4}, dx[NE] = {0}, g[NE];
  fd_grad(at, NULL, x, NE, g);
  __enzyme_autodiff((void *)assemble, enzyme_dup, x, dx);
  fd_check_array("reverse", dx, g, NE);
  for (int k = 0; k < NE; k++) {
    double t[NE] = {0};
    t[k] = 1;
    fd_check("forward", __enzyme_fwddiff((void *)assemble, enzyme_dup, x, t), g[k]);
  }
  return fd_finish();
}
