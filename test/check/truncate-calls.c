// RUN: %clang -O0 -g -c -emit-llvm %s -o %t.bc
// RUN: %umbra check %t.bc 2>&1 | FileCheck %s
// A module that also calls Enzyme's truncation entry points: `umbra check` reads its requests
// (it used to stop at the truncation call, calling it an entry point umbra does not support).
// CHECK: 'f' ok
typedef double (*fn)(double);
fn __enzyme_truncate_op_func(fn, int, int);
double __enzyme_fwddiff(void *, ...);
double f(double x) { return x * x * x; }
int main(void) {
  double t = __enzyme_truncate_op_func(f, 64, 32)(1.5);
  return __enzyme_fwddiff((void *)f, 1.5, 1.0) > t;
}
