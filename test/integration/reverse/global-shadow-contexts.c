// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Enzyme's global-shadow API beyond one context of width 1 (refused before: "Umbra keeps one
// shadow of each global"): each __enzyme_context call site and each width has shadows of its
// own, one per lane. Checked against central finite differences:
// - second derivatives through globals: forward mode over a reverse-mode request made in a
//   context of its own, in an outer context (d/dx of df/dx, d/dg of df/dx, d/dx of the
//   adjoint of g, d/dtable[2] of df/dx), and over one made without a context; third
//   derivatives (forward over forward over reverse, three contexts);
// - two contexts side by side keep their adjoints apart;
// - a context call run again is a fresh context (its shadows start at zero);
// - width 2: a context of width 2 and __enzyme_shadow(&g, 2, lane) without one, each lane
//   its own direction;
// - a global holding pointers to globals (a descriptor): its shadow points at the shadows.
#include "fdcheck.h"
#include <math.h>

typedef struct {
  double d1, d2;
} Tangents;

extern void *__enzyme_context(int);
extern void *__enzyme_shadow(void *, void *, int);
extern void *__enzyme_shadow_w(void *, int, int) __asm__("__enzyme_shadow");
extern double __enzyme_autodiff(double (*)(double), ...);
extern double __enzyme_fwddiff(double (*)(double), ...);
extern Tangents __enzyme_fwddiff2(double (*)(double), ...) __asm__("__enzyme_fwddiff");
extern int enzyme_context, enzyme_width;

enum { N = 4 };
double g = 1.3;
double table[N] = {0.5, -1.0, 2.0, 0.25};
struct {
  double *base;
  long n;
} desc = {table, N};

// Reads g, and the table through the descriptor.
double f(double x) {
  double s = 0;
  for (long i = 0; i < desc.n; i++)
    s += desc.base[i] * sin(x * (double)(i + 1));
  return g * s * x + g * g * cos(x);
}

// df/dx, by a reverse-mode request in a context of its own.
__attribute__((noinline)) double df(double x) {
  void *inner = __enzyme_context(1);
  return __enzyme_autodiff(f, enzyme_context, inner, x);
}

// df/dg: the adjoint of g the same request accumulates in its context.
__attribute__((noinline)) double dfdg(double x) {
  void *inner = __enzyme_context(1);
  __enzyme_autodiff(f, enzyme_context, inner, x);
  return *(double *)__enzyme_shadow(inner, &g, 0);
}

// df/dx by a request without a context (the shadows of its width, zeroed before it), of a
// function that also writes a global.
double acc;
double h(double x) {
  acc = g * x;
  return acc * sin(x);
}
__attribute__((noinline)) double dh(double x) { return __enzyme_autodiff(h, x); }
static double dh_x(double x, void *c) { (void)c; return dh(x); }
static double dh_at_g(double v, void *c) {
  double keep = g, x = *(double *)c;
  g = v;
  double y = dh(x);
  g = keep;
  return y;
}

// d2f/dx2, by forward mode over df in a context of its own (the inner one is df's).
__attribute__((noinline)) double d2f(double x) {
  void *middle = __enzyme_context(1);
  return __enzyme_fwddiff(df, enzyme_context, middle, x, 1.0);
}
static double d2f_x(double x, void *c) { (void)c; return d2f(x); }
static double d2f_at_g(double v, void *c) {
  double keep = g, x = *(double *)c;
  g = v;
  double y = d2f(x);
  g = keep;
  return y;
}

// Finite-difference helpers: a function at x, or at x with g or table[2] moved.
static double df_x(double x, void *c) { (void)c; return df(x); }
static double dfdg_x(double x, void *c) { (void)c; return dfdg(x); }
static double f_x(double x, void *c) { (void)c; return f(x); }
static double at_g(double v, void *c) {
  double keep = g, x = *(double *)c;
  g = v;
  double y = df(x);
  g = keep;
  return y;
}
static double f_at_g(double v, void *c) {
  double keep = g, x = *(double *)c;
  g = v;
  double y = f(x);
  g = keep;
  return y;
}
static double at_t2(double v, void *c) {
  double keep = table[2], x = *(double *)c;
  table[2] = v;
  double y = df(x);
  table[2] = keep;
  return y;
}
static double f_at_t(double v, void *c) {
  double keep = table[1], x = *(double *)c;
  table[1] = v;
  double y = f(x);
  table[1] = keep;
  return y;
}

int main(void) {
  double x = 0.7;
  // Nested: the outer context's shadows are tangents, the inner one's adjoints.
  void *outer = __enzyme_context(1);
  double *dg = (double *)__enzyme_shadow(outer, &g, 0);
  double *dtable = (double *)__enzyme_shadow(outer, &table, 0);
  for (int round = 0; round < 2; round++) {
    *dg = 0.0;
    double ddx = __enzyme_fwddiff(df, enzyme_context, outer, x, 1.0);
    fd_check("d2f/dx2", ddx, fd_deriv1(df_x, NULL, x));
    *dg = 1.0;
    double ddg = __enzyme_fwddiff(df, enzyme_context, outer, x, 0.0);
    fd_check("d2f/dxdg", ddg, fd_deriv1(at_g, &x, g));
    *dg = 0.0;
    double dgx = __enzyme_fwddiff(dfdg, enzyme_context, outer, x, 1.0);
    fd_check("d/dx of the adjoint of g", dgx, fd_deriv1(dfdg_x, NULL, x));
    dtable[2] = 1.0;
    double ddt = __enzyme_fwddiff(df, enzyme_context, outer, x, 0.0);
    fd_check("d2f/dxdtable2", ddt, fd_deriv1(at_t2, &x, table[2]));
    dtable[2] = 0.0;
  }

  // Third order: forward over forward over reverse, three contexts.
  *dg = 0.0;
  fd_check("d3f/dx3", __enzyme_fwddiff(d2f, enzyme_context, outer, x, 1.0),
           fd_deriv1(d2f_x, NULL, x));
  *dg = 1.0;
  fd_check("d3f/dx2dg", __enzyme_fwddiff(d2f, enzyme_context, outer, x, 0.0),
           fd_deriv1(d2f_at_g, &x, g));
  *dg = 0.0;

  // Nested, the inner request without a context: its shadows are the plain ones.
  *dg = 0.0;
  fd_check("d2h/dx2", __enzyme_fwddiff(dh, enzyme_context, outer, x, 1.0),
           fd_deriv1(dh_x, NULL, x));
  *dg = 1.0;
  fd_check("d2h/dxdg", __enzyme_fwddiff(dh, enzyme_context, outer, x, 0.0),
           fd_deriv1(dh_at_g, &x, g));
  *dg = 0.0;

  // Two contexts side by side: each accumulates its own adjoints.
  void *a = __enzyme_context(1);
  void *b = __enzyme_context(1);
  double *ga = (double *)__enzyme_shadow(a, &g, 0);
  double *gb = (double *)__enzyme_shadow(b, &g, 0);
  double *ta = (double *)__enzyme_shadow(a, &table, 0);
  __enzyme_autodiff(f, enzyme_context, a, x);
  __enzyme_autodiff(f, enzyme_context, a, x);
  __enzyme_autodiff(f, enzyme_context, b, 0.4);
  fd_check("context a: twice the adjoint of g", *ga, 2 * fd_deriv1(f_at_g, &x, g));
  double y = 0.4;
  fd_check("context b: the adjoint of g", *gb, fd_deriv1(f_at_g, &y, g));
  fd_check("context a: twice the adjoint of table[1]", ta[1],
           2 * fd_deriv1(f_at_t, &x, table[1]));

  // A context call run again makes a fresh context: the adjoint is that of one call.
  for (int round = 0; round < 3; round++)
    fd_check("adjoint of g in a fresh context", dfdg(x), fd_deriv1(f_at_g, &x, g));

  // Width 2 in a context: lane 0 moves x, lane 1 moves g.
  void *w2 = __enzyme_context(2);
  *(double *)__enzyme_shadow(w2, &g, 0) = 0.0;
  *(double *)__enzyme_shadow(w2, &g, 1) = 1.0;
  Tangents t = __enzyme_fwddiff2(f, enzyme_context, w2, x, 1.0, 0.0);
  fd_check("width 2 context, lane 0", t.d1, fd_deriv1(f_x, NULL, x));
  fd_check("width 2 context, lane 1", t.d2, fd_deriv1(f_at_g, &x, g));
  // ... its pointer shadows point at each lane's own shadows.
  double **base1 = (double **)__enzyme_shadow(w2, &desc.base, 1);
  fd_check_exact("lane 1 descriptor", *base1 == (double *)__enzyme_shadow(w2, &table, 1), 1);
  fd_check_exact("descriptor size", (double)*(long *)__enzyme_shadow(w2, &desc.n, 1), N);

  // Width 2 without a context: lane 0 moves table[1], lane 1 moves g and x.
  double *u0 = (double *)__enzyme_shadow_w(&table, 2, 0);
  double *g1 = (double *)__enzyme_shadow_w(&g, 2, 1);
  u0[1] = 1.0;
  *g1 = 1.0;
  Tangents p = __enzyme_fwddiff2(f, enzyme_width, 2, x, 0.0, 1.0);
  fd_check("width 2, lane 0", p.d1, fd_deriv1(f_at_t, &x, table[1]));
  fd_check("width 2, lane 1", p.d2, fd_deriv1(f_x, NULL, x) + fd_deriv1(f_at_g, &x, g));
  return fd_finish();
}
