// RUN: %clang -O0 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// A call through a function pointer that arrives as an argument: no table or vtable tells its
// possible targets, so the error says where the pointer came from (no dispatch is guessed).
double __enzyme_autodiff(void *, ...);
extern int enzyme_const;

__attribute__((noinline)) double apply(double (*op)(double), double x) {
  // CHECK: indirect-call-argument.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}indirect call with differentiable arguments (reverse mode): the callee is not known at compile time (the function pointer: it is an argument of the calling function){{.*}}Ways out
  return op(x * x);
}

double square(double x) { return x * x; }

int main(void) {
  double d = __enzyme_autodiff((void *)apply, enzyme_const, square, 1.5);
  return d > 0;
}
