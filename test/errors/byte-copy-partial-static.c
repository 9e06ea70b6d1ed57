// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=CONST
// RUN: %clang -O3 -g -c -emit-llvm %s -o %t3.bc
// RUN: not %umbra %t3.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=CONST
// RUN: not %clang -O2 -g -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s --check-prefix=CONST
// RUN: %clang -O0 -g -DMIDDLE -c -emit-llvm %s -o %t4.bc
// RUN: not %umbra %t4.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=MIDDLE
// RUN: %clang -O2 -g -DMIDDLE -c -emit-llvm %s -o %t5.bc
// RUN: not %umbra %t5.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=MIDDLE
// RUN: not %clang -O0 -g -DMIDDLE -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s --check-prefix=MIDDLE
// RUN: not %clang -O3 -g -DMIDDLE -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s --check-prefix=MIDDLE
// Byte-wise copies of part of a double that are refused at compile time (issue 11; where only
// the run time knows, the derived code checks: byte-copy-partial.c). Reverse mode moves the
// adjoint of every double a copied byte belongs to whole, so these gave silently wrong
// gradients (checked by the prefixes CONST and MIDDLE):
// - a constant length of 12 bytes, which clang propagates into the helper and unrolls
//   at -O2 into twelve byte copies at constant offsets: their union covers only half of the
//   second double.
// - a copy through pointers into the middle of a double ((char *)x + 4): the type
//   analysis saw only the bytes from the pointer on, so the first four bytes belonged to no
//   float and the adjoint of the first double was dropped.
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) static void copy(void *dst, const void *src, unsigned long n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  for (unsigned long k = 0; k < n; k++) d[k] = s[k];
}
// CONST: byte-copy-partial-static.c:[[@LINE-2]]:{{[0-9]+}}: in function 'copy': copies only part of a double byte by byte ('{{.*}}load i8{{.*}}', i8): bytes 8..12 of the double at bytes 8..16 of the copied memory; reverse mode moves each float's adjoint whole and cannot differentiate part of one; copy whole elements (a length that is a multiple of the element size, from the start of an element) or use memcpy
// MIDDLE: byte-copy-partial-static.c:[[@LINE-3]]:{{[0-9]+}}: in function 'copy': copies memory byte by byte ('{{.*}}load {{.*}}', {{.*}}) through a pointer into the middle of a double (its bytes from offset 0 on are the rest of a double that starts before it), so it may copy only part of that double; reverse mode moves each float's adjoint whole

#ifndef MIDDLE
double f(const double *x, unsigned long n) {
  (void)n;
  double t[3] = {0.25, 0.5, 0.75};
  copy(t, x, 12);
  return t[0] * t[0] + 3 * t[1] + t[2];
}
#else
double f(const double *x, unsigned long n) {
  double t[3] = {0.25, 0.5, 0.75};
  copy((char *)t + 4, (const char *)x + 4, n);
  return t[0] * t[0] + 3 * t[1] + t[2];
}
#endif

void df(const double *x, double *dx, unsigned long n) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
