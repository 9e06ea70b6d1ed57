// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck %s
// Enzyme's run-time context of global shadows (__enzyme_context, __enzyme_shadow,
// __enzyme_zero_shadows; its global_shadow_*.c tests) is not implemented: one line naming the
// entry point as Enzyme's, at the call. Before, the message said it was "neither an umbra nor
// an Enzyme function".
extern void *__enzyme_context(int);
extern void *__enzyme_shadow(void *, void *, int);
extern double __enzyme_autodiff(double (*)(double), ...);
extern int enzyme_context;
double scale = 2.0;
double f(double x) { return scale * x * x; }
int main(void) {
  // CHECK: global-shadow-context.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'__enzyme_context' is Enzyme's __enzyme_context, which umbra does not support yet
  void *ctx = __enzyme_context(1);
  double *dscale = (double *)__enzyme_shadow(ctx, &scale, 0);
  double dx = __enzyme_autodiff(f, enzyme_context, ctx, 3.0);
  return dx + *dscale > 0;
}
