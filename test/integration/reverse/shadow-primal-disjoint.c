// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: %clang -O2 -c -emit-llvm %s -I%testinc -o %t.bc
// RUN: opt -load-pass-plugin=%plugin -passes=umbra %t.bc -S -o - | FileCheck %s --check-prefix=SCOPES
// RUN: %umbra -O3 %t.bc --emit=llvm-ir -o - | FileCheck %s --check-prefix=VECTOR
// A gradient's accesses through primal pointers, through shadows and into the tape carry
// scoped-noalias metadata saying they never overlap (reverse/alias_scopes.rs): without it the adjoint of a
// sum of squares, `d.x[i] += 2 * w * x[i]`, was vectorised only behind a run-time check that
// d.x and x do not overlap (`vector.memcheck`), and stayed scalar where the loop had been
// unrolled before (the benchmark sum_squares_1e6), as each add into d.x might change the
// x[i + 1] read next.
// SCOPES-LABEL: define internal void @adjoint.weighted_squares.
// SCOPES:       load double, ptr {{.*}}!alias.scope ![[PL:[0-9]+]], !noalias ![[PN:[0-9]+]]
// SCOPES:       store double {{.*}}!alias.scope ![[SL:[0-9]+]], !noalias ![[SN:[0-9]+]]
// SCOPES:       ![[PL]] = !{![[P:[0-9]+]]}
// SCOPES-NEXT:  ![[P]] = distinct !{![[P]], ![[D:[0-9]+]], !"primal memory"}
// SCOPES-NEXT:  ![[D]] = distinct !{![[D]], !"umbra: adjoint.weighted_squares.{{.*}}"}
// SCOPES-NEXT:  ![[PN]] = !{![[S:[0-9]+]], ![[T:[0-9]+]]}
// SCOPES-NEXT:  ![[S]] = distinct !{![[S]], ![[D]], !"shadow memory"}
// SCOPES-NEXT:  ![[T]] = distinct !{![[T]], ![[D]], !"tape"}
// SCOPES-NEXT:  ![[SL]] = !{![[S]]}
// SCOPES-NEXT:  ![[SN]] = !{![[P]], ![[T]]}
// VECTOR-LABEL: define internal {{.*}}void @adjoint.weighted_squares.
// VECTOR-NOT:   memcheck
// VECTOR:       store <{{[0-9]+}} x double>
// VECTOR-NOT:   memcheck
// VECTOR:       ret void
//
// The claim holds within one call, not between two: `gradient_of_gradient` asks for a gradient
// at the gradient just computed, so the second request's primal is the first one's shadow.
// Inlined side by side, the second's loads of g must stay after the first's adds into g (the
// inliner gives every inlined copy scopes of its own); checked against finite differences.
#include "fdcheck.h"
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 1003 };

double weighted_squares(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += (1.0 + 0.001 * i) * x[i] * x[i] * (x[i] + 2.0);
  return s;
}

void gradient(const double *x, double *g, int n) {
  memset(g, 0, sizeof *g * n);
  __enzyme_autodiff((void *)weighted_squares, enzyme_dup, x, g, enzyme_const, n);
}

void gradient_of_gradient(const double *x, double *g, double *gg, int n) {
  memset(g, 0, sizeof *g * n);
  memset(gg, 0, sizeof *gg * n);
  __enzyme_autodiff((void *)weighted_squares, enzyme_dup, x, g, enzyme_const, n);
  __enzyme_autodiff((void *)weighted_squares, enzyme_dup, g, gg, enzyme_const, n);
}

/* f at `at` with entry k replaced by v (ctx: {at, k}). */
struct point {
  double *at;
  int k;
};
static double f_along(double v, void *ctx) {
  struct point *p = ctx;
  double keep = p->at[p->k];
  p->at[p->k] = v;
  double r = weighted_squares(p->at, N);
  p->at[p->k] = keep;
  return r;
}

static double x[N], g[N], gg[N], h[N], at_g[N];

int main(void) {
  for (int i = 0; i < N; i++) x[i] = 0.3 + 0.7 * sin(0.37 * i);
  gradient(x, h, N);
  gradient_of_gradient(x, g, gg, N);
  memcpy(at_g, g, sizeof at_g);
  for (int k = 0; k < N; k += 17) {
    struct point px = {x, k}, pg = {at_g, k};
    fd_check("gradient", h[k], fd_deriv1(f_along, &px, x[k]));
    fd_check("first request", g[k], fd_deriv1(f_along, &px, x[k]));
    fd_check("second request, at the first's gradient", gg[k], fd_deriv1(f_along, &pg, at_g[k]));
  }
  return fd_finish();
}
