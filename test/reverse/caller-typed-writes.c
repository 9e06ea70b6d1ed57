// RUN: %clang -O2 -c -emit-llvm %s -o %t.bc
// RUN: %umbra %t.bc --print-types -o %t.o 2>&1 | FileCheck %s
// RUN: %opt-umbra '-passes=umbra<print-types>' %t.bc -o %t.opt.bc 2>&1 | FileCheck %s
// What a callee's adjoint re-reads when its caller writes, after the call, only memory of
// other TBAA types (issue 27; the gradients: integration/reverse/caller-typed-writes.c). The
// caller's typed writes are part of the callee's derived key (`.wN`): doubles written after
// the call leave the int indices re-read, ints written leave the doubles re-read, a pointer
// stored leaves the pointer field taped and the int field and the doubles re-read.
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double gather(const double *x, const int *idx, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[idx[i]] * x[idx[i]];
  return s;
}

__attribute__((noinline)) double scaled(double *x, int *idx, int n) {
  double s = gather(x, idx, n);
  for (int i = 0; i < n; i++) x[i] *= 1.5;
  return s + gather(x, idx, n);
}

__attribute__((noinline)) double permuted(double *x, int *idx, int n) {
  double s = gather(x, idx, n);
  for (int i = 0; i < n; i++) idx[i] = n - 1 - i;
  return s + gather(x, idx, n);
}

typedef struct {
  double *p;
  int n;
} vec;

__attribute__((noinline)) double norm2(vec *v) {
  double s = 0;
  for (int i = 0; i < v->n; i++) s += v->p[i] * v->p[i];
  return s;
}

__attribute__((noinline)) double repointed(vec *v, double *other) {
  double a = norm2(v);
  v->p = other;
  return a + norm2(v);
}

void grads(double *x, double *dx, int *idx, int *didx, vec *v, vec *dv, double *o, double *d) {
  __enzyme_autodiff((void *)scaled, enzyme_dup, x, dx, enzyme_dup, idx, didx, enzyme_const, 8);
  __enzyme_autodiff((void *)permuted, enzyme_dup, x, dx, enzyme_dup, idx, didx, enzyme_const, 8);
  __enzyme_autodiff((void *)repointed, enzyme_dup, v, dv, enzyme_dup, o, d);
}

// CHECK-LABEL: overwrites of @gather (caller may write 1 TBAA access types):
// CHECK: load i32, {{.*}}: re-read
// CHECK: load double, {{.*}}: cached: the caller may write argument #0 before the adjoint
// CHECK: memory types of @gather in @augfwd.gather.ddc.w[[DOUBLES:[0-9]+]]:
// CHECK-LABEL: overwrites of @gather (caller may write 1 TBAA access types):
// CHECK: load i32, {{.*}}: cached: the caller may write argument #1 before the adjoint
// CHECK: load double, {{.*}}: re-read
// CHECK-NOT: memory types of @gather in @augfwd.gather.ddc.w[[DOUBLES]]:
// CHECK-LABEL: overwrites of @norm2 (caller may write 1 TBAA access types):
// CHECK: load i32, {{.*}}: re-read
// CHECK: load ptr, {{.*}}: cached: the caller may write argument #0 before the adjoint
// CHECK: load double, {{.*}}: re-read
