// RUN: %clang -O1 -g -DUNTRACED -c -emit-llvm %s -o %t1.bc
// RUN: not %umbra %t1.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=UNTRACED
// RUN: not %clang -O1 -g -DUNTRACED -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=UNTRACED
// RUN: %clang -O0 -g -DWIDTH -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: %clang -O1 -g -DLANE -c -emit-llvm %s -o %t3.bc
// RUN: not %umbra %t3.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=LANE
// RUN: %clang -O0 -g -DTWOSTORES -c -emit-llvm %s -o %t4.bc
// RUN: not %umbra %t4.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=TWOSTORES
// RUN: %clang -O1 -g -DLOCAL -c -emit-llvm %s -o %t5.bc
// RUN: not %umbra %t5.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=LOCAL
// RUN: %clang -O0 -g -DSTALE -c -emit-llvm %s -o %t6.bc
// RUN: %umbra %t6.bc -o %t6.o
// RUN: %clang %t6.o -lm -o %t6
// RUN: not --crash %t6 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: %clang -O1 -g -DSTALE -c -emit-llvm %s -o %t8.bc
// RUN: %umbra %t8.bc -o %t8.o
// RUN: %clang %t8.o -lm -o %t8
// RUN: not --crash %t8 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: %clang -O1 -g -DSPLIT -c -emit-llvm %s -o %t9.bc
// RUN: not %umbra %t9.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: %clang -O1 -g -DALONE -c -emit-llvm %s -o %t7.bc
// RUN: not %umbra %t7.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=ALONE
// Enzyme's run-time context of global shadows (__enzyme_context, __enzyme_shadow,
// __enzyme_zero_shadows): each context call site has shadows of its own, one per lane (before,
// a second call site, a width above 1 and a lane above 0 were refused). What Umbra cannot
// serve is a one-line error at the call: a context it cannot trace to one call site, a
// reverse-mode request with a wider context, a lane beyond the width; and at run time an
// abort when a context is used after its call site ran again (recursion keeps the older one).
extern void *__enzyme_context(int);
extern void *__enzyme_shadow(void *, void *, int);
extern double __enzyme_autodiff(double (*)(double), ...);
extern double __enzyme_fwddiff(double (*)(double), ...);
extern int enzyme_context;
double scale = 2.0;
double f(double x) { return scale * x * x; }

#ifdef UNTRACED
// The context comes out of another function: Umbra cannot tell which call made it.
__attribute__((noinline)) void *make(void) { return __enzyme_context(1); }
#endif

#ifdef STALE
// Each call of rec runs the context call again; the outer frame then passes its older one.
__attribute__((noinline)) double rec(int n, double x) {
  void *ctx = __enzyme_context(1);
  if (n > 0)
    x += rec(n - 1, x);
  // STALE: umbra: a context of global shadows used after its __enzyme_context call ran again
  return __enzyme_autodiff(f, enzyme_context, ctx, x);
}
#endif

#ifdef SPLIT
extern void __enzyme_augmentfwd(void *, ...);
extern void __enzyme_reverse(void *, ...);
extern int enzyme_allocated, enzyme_tape, enzyme_dup;
void h(double *y, const double *x) { *y = scale * *x * *x; }
#endif

int main(void) {
#if defined(SPLIT)
  // The two sweeps share one derived pair: they must see the same shadows.
  void *ctx = __enzyme_context(1);
  double x = 3.0, dx = 0.0, y, dy = 1.0, tape[8];
  __enzyme_augmentfwd((void *)h, enzyme_context, ctx, enzyme_allocated, 64, enzyme_tape, tape,
                      enzyme_dup, &y, &dy, enzyme_dup, &x, &dx);
  // SPLIT: global-shadow-context.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}the split-mode sweeps of 'h' use different global shadows
  __enzyme_reverse((void *)h, enzyme_allocated, 64, enzyme_tape, tape, enzyme_dup, &y, &dy,
                   enzyme_dup, &x, &dx);
  return dx > 0;
#elif defined(WIDTH)
  void *ctx = __enzyme_context(2);
  // WIDTH: global-shadow-context.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}the context passed after enzyme_context has width 2: a context wider than 1 serves forward mode only
  double dx = __enzyme_autodiff(f, enzyme_context, ctx, 3.0);
  return dx > 0;
#elif defined(LANE)
  void *ctx = __enzyme_context(1);
  // LANE: global-shadow-context.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}__enzyme_shadow of lane 1, but the width is 1
  double *d = (double *)__enzyme_shadow(ctx, &scale, 1);
  return __enzyme_autodiff(f, enzyme_context, ctx, 3.0) + *d > 0;
#elif defined(UNTRACED)
  void *ctx = make();
  // UNTRACED: global-shadow-context.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}does not come from one __enzyme_context call
  return __enzyme_autodiff(f, enzyme_context, ctx, 3.0) > 0;
#elif defined(TWOSTORES)
  // One variable holding the contexts of two calls: which one a use sees is not known.
  void *ctx = __enzyme_context(1);
  // TWOSTORES: global-shadow-context.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}does not come from one __enzyme_context call
  double a = __enzyme_autodiff(f, enzyme_context, ctx, 3.0);
  ctx = __enzyme_context(1);
  return a + __enzyme_autodiff(f, enzyme_context, ctx, 3.0) > 0;
#elif defined(LOCAL)
  void *ctx = __enzyme_context(1);
  double local = 1.0;
  // LOCAL: global-shadow-context.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}__enzyme_shadow: '{{.*}}' is not a constant address in a global with a shadow
  double *d = (double *)__enzyme_shadow(ctx, &local, 0);
  return __enzyme_autodiff(f, enzyme_context, ctx, 3.0) + *d > 0;
#elif defined(STALE)
  return rec(1, 3.0) > 0;
#elif defined(ALONE)
  // ALONE: global-shadow-context.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}Enzyme's global-shadow API in a module without derivative requests
  void *ctx = __enzyme_context(1);
  return ctx != 0;
#else
  return 0;
#endif
}
