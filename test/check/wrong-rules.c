// `umbra check` against registered rules: a wrong registered derivative is caught by finite
// differences and by the derivative of the body it replaces, a wrong registered gradient by
// forward mode and by the body's gradient; correct rules pass. Each failure names its
// function, the check, the argument and the worst point, and the exit status is 3.
// RUN: %clang -O0 -I %runtime-include -c -emit-llvm %s -o %t.O0.bc
// RUN: bash -c '%umbra check %t.O0.bc; echo "status $?"' > %t.O0.out
// RUN: FileCheck %s < %t.O0.out
// RUN: %clang -O2 -I %runtime-include -c -emit-llvm %s -o %t.O2.bc
// RUN: bash -c '%umbra check %t.O2.bc; echo "status $?"' > %t.O2.out
// RUN: FileCheck %s < %t.O2.out
// Only the correct function, named: passes, exit status 0.
// RUN: %umbra check %t.O2.bc --function 'good' | FileCheck --check-prefix=GOOD %s
// Described: the names given label the table.
// RUN: not %umbra check %t.O2.bc --function 'bad_grad(x: double, y: double)' --points 2 --seed 7 | FileCheck --check-prefix=NAMED %s
// NAMED: umbra check: 'bad_grad' FAILED: worst relative error {{.*}}2 points
// NAMED: registered gradient vs forward {{ *}}y {{ *}}{{[12]}} {{.*}}
// NAMED: worst point: bad_grad(x = {{[0-9.]+}}, y = {{[0-9.]+}}) [point {{[12]}}
// NAMED-NOT: {{ x }}
// GOOD: umbra check: 'good' ok: worst relative error {{.*}}registered derivative vs finite differences{{.*}}registered gradient vs forward

// CHECK-DAG: umbra check: 'good' ok:
// CHECK-DAG: umbra check: 'bad_fwd' FAILED: worst relative error
// CHECK-DAG: registered derivative vs finite differences {{ *}}arg1 {{.*}}
// CHECK-DAG: registered derivative vs body {{ *}}arg1 {{.*}}
// CHECK-DAG: worst point: bad_fwd(arg0 = {{[0-9.]+}}, arg1 = {{[0-9.]+}})
// CHECK-DAG: umbra check: 'bad_grad' FAILED: worst relative error
// CHECK-DAG: registered gradient vs forward {{ *}}arg1 {{.*}}
// CHECK-DAG: registered gradient vs body {{ *}}arg1 {{.*}}
// CHECK-DAG: worst point: bad_grad(arg0 = {{[0-9.]+}}, arg1 = {{[0-9.]+}})
// CHECK: status 3
#include "umbra.h"
#include <math.h>

// x * sin(y), with both rules right.
__attribute__((noinline)) double good(double x, double y) { return x * sin(y); }
double good_fwd(double x, double dx, double y, double dy) {
  return dx * sin(y) + x * cos(y) * dy;
}
double good_aug(double x, double y) { return x * sin(y); }
typedef struct { double dx, dy; } Pair;
Pair good_grad(double x, double y, double d) {
  Pair p = {d * sin(y), d * x * cos(y)};
  return p;
}
UMBRA_DERIVATIVE(good, good_fwd);
UMBRA_GRADIENT(good, good_aug, good_grad);

// The derivative forgets the product rule's second term.
__attribute__((noinline)) double bad_fwd(double x, double y) { return x * exp(y); }
double bad_fwd_fwd(double x, double dx, double y, double dy) { return dx * exp(y); }
UMBRA_DERIVATIVE(bad_fwd, bad_fwd_fwd);

// The gradient has the wrong sign for y.
__attribute__((noinline)) double bad_grad(double x, double y) { return x * cos(y); }
double bad_grad_aug(double x, double y) { return x * cos(y); }
Pair bad_grad_grad(double x, double y, double d) {
  Pair p = {d * cos(y), d * x * sin(y)};
  return p;
}
UMBRA_GRADIENT(bad_grad, bad_grad_aug, bad_grad_grad);
