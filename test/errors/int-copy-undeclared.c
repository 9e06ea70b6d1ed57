// RUN: %clang -O0 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// An `int` read through a cast byte address at -O0 (no TBAA, no field declared `int` at the
// address): the type analysis saw only integer accesses there, which does not rule out a
// float's bits, so the copy stays refused. The message said "the type analysis found integer
// data there" and refused all the same, which read as a contradiction; it now says why the
// integer accesses are not enough.
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup;
typedef struct {
  double w;
  int tag, pad;
} rec;
void pick(const rec *in, rec *out, int n) {
  for (int i = 0; i < n; i++) {
    out[i].w = in[i].w * in[i].w;
    *(int *)((char *)&out[i] + 8) = *(const int *)((const char *)&in[i] + 8);
  }
}
// CHECK: int-copy-undeclared.c:[[@LINE-3]]:{{[0-9]+}}: in function 'pick': copies differentiable memory through an integer ('{{.*}}load i32{{.*}}', i32), which may hold floating-point data or only part of it; the type analysis saw only integer accesses there, which without TBAA or a field declared integer do not rule out a float's bits, and reverse mode
void dpick(const rec *in, rec *din, rec *out, rec *dout, int n) {
  __enzyme_autodiff((void *)pick, enzyme_dup, in, din, enzyme_dup, out, dout, n);
}
