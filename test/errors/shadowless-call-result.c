// RUN: %clang -O2 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o --inactive scratch 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// A pointer returned by a function declared inactive, stored into a struct that holds
// differentiable data: its shadow would need one for the pointer too, and the call gives none.
// The message named it "a constant argument or a mutable global" and advised passing it as
// dup; it now says where the pointer comes from and what can be done about it.
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double *scratch(void);
struct S {
  double *p;
  double v;
};
void f(struct S *s, double x) {
  // CHECK: shadowless-call-result.c:[[@LINE+1]]:{{[0-9]+}}: in function 'f': pointer '{{.*}}call ptr @scratch(){{.*}}', returned by 'scratch', which gives it no shadow (an inactive function or one without a rule for it), has no shadow memory but flows where pointers with shadows are expected {{.*}}; keep pointers without derivatives apart from differentiable ones, or register a rule for 'scratch'
  s->p = scratch();
  s->v = x * x;
}
void g(struct S *s, struct S *ds, double x) { __enzyme_autodiff((void *)f, enzyme_dup, s, ds, x); }
