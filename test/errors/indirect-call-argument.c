// RUN: rm -f %t.o
// RUN: %clang -O0 -g -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: %clang -O0 -g -DMANY -c -emit-llvm %s -o %t3.bc
// RUN: not %umbra %t3.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: %clang -O2 -g -DMANY -c -emit-llvm %s -o %t4.bc
// RUN: not %umbra %t4.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: test ! -e %t.o
// A call through a function pointer that arrives as an argument dispatches among the module's
// address-taken functions of the call's type. It stays a compile-time error, saying where the
// pointer came from and why there is no dispatch, when no such function has a body or a rule
// (here the only one is defined elsewhere), and when there are more than 16 of them.
double __enzyme_autodiff(void *, ...);
extern int enzyme_const;

#ifndef MANY
double defined_elsewhere(double x, int k);

__attribute__((noinline)) double apply(double (*op)(double, int), double x) {
  // NONE: indirect-call-argument.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}indirect call with differentiable arguments (reverse mode): the callee is not known at compile time (the function pointer: it is an argument of the calling function; no function of the call's type with a body or a rule has its address taken in this module, so it comes from elsewhere){{.*}}Ways out
  return op(x * x, 2);
}

int main(void) {
  double d = __enzyme_autodiff((void *)apply, enzyme_const, defined_elsewhere, 1.5);
  return d > 0;
}
#else
#define F(k) static double f##k(double x) { return x * (k + 1); }
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15) F(16)
double (*volatile table[17])(double) = {f0, f1, f2,  f3,  f4,  f5,  f6,  f7, f8,
                                        f9, f10, f11, f12, f13, f14, f15, f16};

__attribute__((noinline)) double apply(double (*op)(double), double x) {
  // MANY: indirect-call-argument.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}the callee is not known at compile time (the function pointer: it is an argument of the calling function; 17 functions of the call's type have their address taken in this module, more than the 16 Umbra dispatches among){{.*}}Ways out
  return op(x * x);
}

int main(void) {
  double d = __enzyme_autodiff((void *)apply, enzyme_const, table[3], 1.5);
  return d > 0;
}
#endif
