// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Enzyme's __enzyme_virtualreverse(p): the shadow to store for a function or vtable pointer
// (Enzyme's virtualshadow2/3.cpp). In Umbra that shadow is the pointer itself: derived code
// dispatches on the primal target. A shadow object whose vtable pointer and function-pointer
// field are set with it differentiates like one built as a copy of the primal, in both modes.
// Also __enzyme_augmentfwd declared to return `struct { double x; void *tape; }` (Enzyme's
// virtualshadow.cpp): the primal result lands in the double, the tape in the pointer, whatever
// their order. Before: "'__enzyme_virtualreverse' is Enzyme's __enzyme_virtualreverse, which
// umbra does not support yet", and "is declared to return double, but the tangent of
// '_Z6squared' has type ptr".
#include "fdcheck.h"
#include <math.h>
#include <new>

extern "C" {
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_virtualreverse(void *);
extern int enzyme_dup, enzyme_const, enzyme_out;
}

struct Shape {
  virtual double area(double s) = 0;
  double scale;
  double (*warp)(double);
};
struct Square : Shape {
  double area(double s) { return scale * s * s; }
};
struct Circle : Shape {
  double area(double s) { return scale * 3.14159 * s * s * sin(s); }
};
static double twist(double v) { return v * cos(v); }

// The object's area through its vtable, warped through its function pointer.
__attribute__((noinline)) double energy(Shape *sh, double s) { return sh->warp(sh->area(s)); }

struct DoubleAndTape {
  double x;
  void *tape;
};
extern "C" DoubleAndTape __enzyme_augmentfwd(void *, double);
extern "C" double __enzyme_reverse(void *, double, double, void *);
static double cube(double x) { return x * x * sin(x); }

struct Ctx {
  int kind;
  double scale;
};
static Shape *make(int kind) {
  if (kind == 0)
    return new Square();
  return new Circle();
}
static double energy_of(double s, void *c) {
  Ctx *ctx = (Ctx *)c;
  Shape *sh = make(ctx->kind);
  sh->scale = ctx->scale;
  sh->warp = twist;
  double e = energy(sh, s);
  delete sh;
  return e;
}
static double energy_of_scale(double scale, void *c) {
  Ctx ctx = *(Ctx *)c;
  ctx.scale = scale;
  return energy_of(0.9, &ctx);
}
static double cube_fd(double x, void *) { return cube(x); }

int main(int argc, char **argv) {
  (void)argv;
  for (int kind = 0; kind < 2; kind++) {
    // argc keeps the class unknown to the optimiser.
    int k = (kind + argc - 1) % 2;
    Ctx ctx = {k, 1.7};
    double s = 0.9;
    Shape *sh = make(k);
    sh->scale = ctx.scale;
    sh->warp = twist;
    Shape *d_sh = make(k);
    // The shadow's vtable pointer and function pointer, as Enzyme's users write them.
    *(void **)d_sh = __enzyme_virtualreverse(*(void **)d_sh);
    d_sh->warp = (double (*)(double))__enzyme_virtualreverse((void *)twist);
    d_sh->scale = 0;
    double ds = __enzyme_autodiff((void *)energy, enzyme_dup, sh, d_sh, enzyme_out, s);
    fd_check(k ? "circle dE/ds (reverse)" : "square dE/ds (reverse)", ds,
             fd_deriv1(energy_of, &ctx, s));
    fd_check(k ? "circle dE/dscale (reverse)" : "square dE/dscale (reverse)", d_sh->scale,
             fd_deriv1(energy_of_scale, &ctx, ctx.scale));
    d_sh->scale = 1.0; // tangent of scale
    double t = __enzyme_fwddiff((void *)energy, enzyme_dup, sh, d_sh, enzyme_const, s);
    fd_check(k ? "circle dE/dscale (forward)" : "square dE/dscale (forward)", t,
             fd_deriv1(energy_of_scale, &ctx, ctx.scale));
    delete sh;
    delete d_sh;
  }
  // Split mode, the result's field declared before the tape's.
  double x = 1.3;
  DoubleAndTape fwd = __enzyme_augmentfwd((void *)cube, x);
  fd_check("augmentfwd primal in the double field", fwd.x, cube(x));
  double dx = __enzyme_reverse((void *)cube, x, 1.0, fwd.tape);
  fd_check("reverse with the tape from the pointer field", dx, fd_deriv1(cube_fd, NULL, x));
  return fd_finish();
}
