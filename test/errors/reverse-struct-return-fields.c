// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// A reverse-mode request declared to return a struct of two doubles for a
// function with three 'out' (active) arguments.
extern int enzyme_out;
typedef struct {
  double a, b;
} two;
two __enzyme_autodiff_two(void *, ...);

double f(double x, double y, double z) { return x * y * z; }

int main(void) {
  // CHECK: reverse-struct-return-fields.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}3 'out' (active) argument
  two r = __enzyme_autodiff_two((void *)f, 1.0, 2.0, enzyme_out, 3.0);
  return r.a > r.b;
}
