// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t0.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t2.o 2>&1 | FileCheck %s
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -c %s -o %t1.o 2>&1 | FileCheck %s
// __enzyme_call_inactive passes its arguments as they are (a variadic call promotes nothing to
// the callee's types): an int where the callee takes a double is a one-line error naming the
// call, its source location, the types given and the callee's type, not a call with garbage.
double __enzyme_autodiff(void *, ...);
double __enzyme_call_inactive(void *, ...);

__attribute__((noinline)) double scale(double x, double s) { return x * s; }

double f(double x) {
  // CHECK: call-inactive-args.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'__enzyme_call_inactive' calls 'scale' with (double, i32) returning double, but 'scale' is double (double, double)
  return x * x + __enzyme_call_inactive((void *)scale, x, 5);
}

double df(double x) { return __enzyme_autodiff((void *)f, x); }
