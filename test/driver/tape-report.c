// --tape-report: per loop, the bytes each iteration keeps, each value with its source location
// and why the adjoint cannot get it back otherwise; through the driver and the plugin.
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t.bc
// RUN: %umbra %t.bc --tape-report -o %t.o 2>&1 | FileCheck %s
// RUN: opt -load-pass-plugin=%plugin '-passes=umbra<tape-report>' %t.bc -o %t.opt.bc 2>&1 | FileCheck %s
// CHECK-LABEL: tape of @augfwd.overwrites{{.*}} (for @overwrites):
// CHECK-NEXT:  per iteration of the loop at {{.*}}tape-report.c:[[#LOOP:]]:{{[0-9]+}}: 24 bytes
// CHECK-DAG:   value {{.*}} = load double{{.*}}tape-report.c:[[#LOOP]]{{.*}}, 8 bytes: a load of memory that may change before the adjoint runs (may be overwritten by store double
// CHECK-DAG:   value {{.*}} @exp({{.*}}, 8 bytes: a math library call in an innermost loop
// CHECK-DAG:   value {{.*}} = phi double {{.*}}, 8 bytes: a phi: the value it took depends on the path
// `sin(t)` is not kept: the adjoint computes its partner `cos(t)` from the kept `t` and
// rebuilds it beside it (one `sincos` call, plan/mod.rs `paired_in_adjoint`).
// CHECK-NOT:   @sin(
// The branch's condition `p > 3` is computed again from the kept `p` and `exp` (the minimum
// cut of plan/cut.rs), not kept itself.
// CHECK-NOT:   fcmp
#include <math.h>
void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) double overwrites(double *x, int n) {
  double s = 0, p = 1;
  for (int i = 0; i < n; i++) {
    double t = x[i];
    x[i] = sin(t);
    p = p * exp(x[i]);
    if (p > 3)
      s += t * x[i];
    else
      s -= p;
  }
  return s + p;
}

void gradients(double *x, double *dx, int n) {
  __enzyme_autodiff((void *)overwrites, enzyme_dup, x, dx, enzyme_const, n);
}
