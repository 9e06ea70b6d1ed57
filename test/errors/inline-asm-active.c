// RUN: %clang -O2 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=REV
// RUN: test ! -e %t.o
// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=REV
// RUN: %clang -O2 -g -DFORWARD -c -emit-llvm %s -o %tf.bc
// RUN: not %umbra %tf.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=FWD
// Inline assembly that a differentiable value flows through (an optimisation barrier): Umbra
// cannot see what it does, so both modes refuse it, saying it is inline assembly. Before, the
// error called it an indirect call whose function pointer "is computed".
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;
double sin(double);

double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double t = sin(x[i]);
    // REV: inline-asm-active.c:[[@LINE+2]]:{{[0-9]+}}: in function 'f': inline assembly with differentiable operands (reverse mode){{.*}}keep differentiable values out of asm statements
    // FWD: inline-asm-active.c:[[@LINE+1]]:{{[0-9]+}}: in function 'f': inline assembly with differentiable operands (forward mode)
    __asm__ volatile("" : "+x"(t));
    s += t * x[i];
  }
  return s;
}

int main(void) {
  double x[3] = {0.3, 0.5, -0.7}, d[3] = {0};
#ifdef FORWARD
  return __enzyme_fwddiff((void *)f, enzyme_dup, x, d, enzyme_const, 3) > 0;
#else
  __enzyme_autodiff((void *)f, enzyme_dup, x, d, enzyme_const, 3);
  return d[0] > 0;
#endif
}
