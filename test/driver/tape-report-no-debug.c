// --tape-report without debug information: each loop is named by its header block as the
// textual IR numbers it, so two loops of one function are reported apart (they were both
// "the loop at 'a block'", one line with the sum of their bytes).
// RUN: %clang -O1 -c -emit-llvm %s -o %t.bc
// RUN: %umbra %t.bc --tape-report -o %t.o 2>&1 | FileCheck %s
// RUN: opt -load-pass-plugin=%plugin '-passes=umbra<tape-report>' %t.bc -o %t.opt.bc 2>&1 | FileCheck %s
// CHECK-LABEL: tape of @augfwd.two_loops{{.*}} (for @two_loops):
// CHECK:       per iteration of the loop at block %[[#A:]] (no debug location): 8 bytes
// CHECK:       per iteration of the loop at block %[[#B:]] (no debug location): 8 bytes
// CHECK-NOT:   a block
void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) double two_loops(double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double t = x[i];
    x[i] = 0;
    s += t * t;
  }
  for (int i = 0; i < n; i++) {
    double t = y[i];
    y[i] = s;
    s += t * t * t;
  }
  return s;
}

void grad(double *x, double *dx, double *y, double *dy, int n) {
  __enzyme_autodiff((void *)two_loops, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);
}
