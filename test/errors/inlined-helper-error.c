// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O2 -g -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s
// A loop-free helper given a stack array of its caller is inlined before differentiation
// (distinct_args.rs, inline_leaf_helpers); what reverse mode refuses in its body is still
// reported in the helper, the function the user wrote it in, not in the caller.
double mystery(double);

__attribute__((cold)) double nudge(const double *xe, double *out) {
  double v0 = xe[0] * xe[1] + xe[2] * xe[3], v1 = xe[1] * xe[2] - xe[3] * xe[0];
  double w0 = xe[0] * v0 - xe[2] / (1.0 + v1 * v1), w1 = xe[3] * v1 + xe[1] / (2.0 + v0 * v0);
  out[0] = v0 * w1;
  out[1] = v1 * w0 + mystery(w0 * w1);
  out[2] = w0 * xe[2] - v1;
  out[3] = w1 * xe[3] + v0;
  return v0 * v1 + w0 * w1;
}
// CHECK: inlined-helper-error.c:[[@LINE-5]]:{{[0-9]+}}: in function 'nudge': no derivative rule for 'mystery'

double elements(const double *x, int n) {
  double s = 0;
  for (int k = 0; k + 4 <= n; k++) {
    double xe[4], out[4];
    for (int i = 0; i < 4; i++) xe[i] = x[k + i];
    s += nudge(xe, out) * out[1];
    for (int i = 0; i < 4; i++) xe[i] *= out[i];
    s += nudge(xe, out);
    for (int i = 0; i < 4; i++) xe[i] += out[i] * xe[i];
    s += nudge(xe, out) * out[2];
  }
  return s;
}

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;
void grad(const double *x, double *dx, int n) {
  __enzyme_autodiff((void *)elements, enzyme_dup, x, dx, enzyme_const, n);
}
