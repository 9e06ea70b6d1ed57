// RUN: %clang -O0 -g -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// A gradient request declared to return double for a function without 'out' arguments stays
// an error when the result is read (integration/reverse/unread-result.c: unread, it is not).
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);
static void square(const double *x, double *y) { *y = *x * *x; }
int main(void) {
  double x = 2, dx = 0, y = 0, dy = 1;
  // CHECK: unread-result-read.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}is declared to return double, but 'square' has 0 'out' (active) argument(s); declare it to return void
  double r = __enzyme_autodiff((void *)square, enzyme_dup, &x, &dx, enzyme_dup, &y, &dy);
  return (int)(r + dx);
}
