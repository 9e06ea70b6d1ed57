// RUN: %clang -O1 -g -DNESTED -c -emit-llvm %s -o %t1.bc
// RUN: not %umbra %t1.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not %clang -O1 -g -DNESTED -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: %clang -O0 -g -DWIDTH -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: %clang -O1 -g -DLANE -c -emit-llvm %s -o %t3.bc
// RUN: not %umbra %t3.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=LANE
// RUN: %clang -O1 -g -DNOCTX -c -emit-llvm %s -o %t4.bc
// RUN: not %umbra %t4.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=NOCTX
// RUN: %clang -O1 -g -DLOCAL -c -emit-llvm %s -o %t5.bc
// RUN: not %umbra %t5.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=LOCAL
// RUN: %clang -O0 -g -DTWICE -c -emit-llvm %s -o %t6.bc
// RUN: %umbra %t6.bc -o %t6.o
// RUN: %clang %t6.o -lm -o %t6
// RUN: not --crash %t6 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: %clang -O1 -g -DALONE -c -emit-llvm %s -o %t7.bc
// RUN: not %umbra %t7.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=ALONE
// Enzyme's run-time context of global shadows (__enzyme_context, __enzyme_shadow,
// __enzyme_zero_shadows) with one shadow per global, which Umbra keeps (in a module, one set):
// what one set cannot serve is a one-line error at the call (before, every use of the API was
// refused as "not supported yet"), or at run time an abort naming the call made twice.
extern void *__enzyme_context(int);
extern void *__enzyme_shadow(void *, void *, int);
extern double __enzyme_autodiff(double (*)(double), ...);
extern double __enzyme_fwddiff(double (*)(double), ...);
extern int enzyme_context;
double scale = 2.0;
double f(double x) { return scale * x * x; }

#ifdef NESTED
double df(double x) {
  // NESTED: global-shadow-context.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}a second __enzyme_context: Umbra keeps one shadow of each global, so a program has one context
  void *inner = __enzyme_context(1);
  return __enzyme_autodiff(f, enzyme_context, inner, x);
}
#endif

int main(void) {
#if defined(WIDTH)
  void *ctx = __enzyme_context(2);
  // WIDTH: global-shadow-context.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}the context passed after enzyme_context has width 2: Umbra keeps one shadow of each global (width 1)
  double dx = __enzyme_autodiff(f, enzyme_context, ctx, 3.0);
  return dx > 0;
#elif defined(LANE)
  void *ctx = __enzyme_context(1);
  // LANE: global-shadow-context.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}__enzyme_shadow of lane other than a constant 0
  double *d = (double *)__enzyme_shadow(ctx, &scale, 1);
  return __enzyme_autodiff(f, enzyme_context, ctx, 3.0) + *d > 0;
#elif defined(NOCTX)
  void *ctx = __enzyme_context(1);
  double *d = (double *)__enzyme_shadow(ctx, &scale, 0);
  // NOCTX: global-shadow-context.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}this request of 'f' passes no enzyme_context, but the program creates one
  return __enzyme_autodiff(f, 3.0) + *d > 0;
#elif defined(LOCAL)
  void *ctx = __enzyme_context(1);
  double local = 1.0;
  // LOCAL: global-shadow-context.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}__enzyme_shadow: '{{.*}}' is not a constant address in a global with a shadow
  double *d = (double *)__enzyme_shadow(ctx, &local, 0);
  return __enzyme_autodiff(f, enzyme_context, ctx, 3.0) + *d > 0;
#elif defined(NESTED)
  void *outer = __enzyme_context(1);
  return __enzyme_fwddiff(df, enzyme_context, outer, 2.0, 1.0) > 0;
#elif defined(TWICE)
  double sum = 0;
  for (int i = 0; i < 2; i++) {
    // TWICE: umbra: __enzyme_context called a second time: Umbra keeps one shadow of each global, so a program has one context
    void *ctx = __enzyme_context(1);
    sum += __enzyme_autodiff(f, enzyme_context, ctx, 3.0);
  }
  return sum > 0;
#elif defined(ALONE)
  // ALONE: global-shadow-context.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}Enzyme's global-shadow API in a module without derivative requests
  void *ctx = __enzyme_context(1);
  return ctx != 0;
#else
  return 0;
#endif
}
