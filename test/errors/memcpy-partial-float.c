// RUN: %clang -O0 -g -I %testinc -c -emit-llvm %s -o %t0.bc
// RUN: %umbra %t0.bc -o %t0.o
// RUN: %clang %t0.o -lm -o %t0.exe
// RUN: not --crash %t0.exe 2>&1 | FileCheck %s --check-prefix=RUNTIME
// RUN: %clang -O2 -g -I %testinc -c -emit-llvm %s -o %t2.bc
// RUN: %umbra %t2.bc -o %t2.o
// RUN: %clang %t2.o -lm -o %t2.exe
// RUN: not --crash %t2.exe 2>&1 | FileCheck %s --check-prefix=RUNTIME
// RUN: %clang -O3 -g -I %testinc -fpass-plugin=%plugin %s -lm -o %t3p.exe
// RUN: not --crash %t3p.exe 2>&1 | FileCheck %s --check-prefix=RUNTIME
// RUN: %clang -O0 -g -I %testinc -DCONSTANT -c -emit-llvm %s -o %tc0.bc
// RUN: not %umbra %tc0.bc -o %tc0.o 2>&1 | FileCheck %s --check-prefix=CONST
// RUN: %clang -O2 -g -I %testinc -DCONSTANT -c -emit-llvm %s -o %tc2.bc
// RUN: not %umbra %tc2.bc -o %tc2.o 2>&1 | FileCheck %s --check-prefix=CONST
// RUN: not %clang -O2 -g -I %testinc -DCONSTANT -fpass-plugin=%plugin -c %s -o %tc.o 2>&1 | FileCheck %s --check-prefix=CONST
// A memcpy whose length ends inside a double (12 bytes of doubles, issue 11): its adjoint moves
// whole floats, so the half-copied double's adjoint was silently dropped. A constant length is
// refused when compiling; a length known only at run time (a helper copying n bytes) is checked
// when the adjoint runs: whole doubles (n = 16) differentiate, checked against finite
// differences, and 12 bytes stop the program naming the copy, before a gradient is returned.
#include "fdcheck.h"
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

#ifdef CONSTANT
__attribute__((noinline)) void copy(double *d, const double *s, long n) {
  (void)n;
  // CONST: memcpy-partial-float.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}copies a length that ends inside a 'double' of the {{[0-9]+}}-byte elements it moves; reverse mode moves each float's adjoint whole
  memcpy(d, s, 12);
}
#else
// Not static: no caller's constant reaches the length. The typed access tells what the copy
// moves (doubles).
__attribute__((noinline)) void copy(double *d, const double *s, long n) {
  memcpy(d, s, n);
  d[0] = 2 * d[0];
}
#endif

double f(const double *x, long n) {
  double t[3] = {0, 0, 0};
  copy(t, x, n);
  return t[0] * t[0] + 3 * t[1] + t[2];
}
static long bytes;
static double f_at(const double *x, void *c) {
  (void)c;
  return f(x, bytes);
}

int main(void) {
  double x[3] = {0.5, -1.0, 2.0}, d[3] = {0}, fd[3];
  bytes = 16;
  __enzyme_autodiff((void *)f, enzyme_dup, x, d, enzyme_const, 16L);
  fd_grad(f_at, NULL, x, 3, fd);
  fd_check_array("16 bytes: whole doubles", d, fd, 3);
  // RUNTIME: ok 16 bytes: whole doubles
  fflush(stdout);
  d[0] = d[1] = d[2] = 0;
  // RUNTIME: umbra: error: {{.*}}memcpy-partial-float.c:{{[0-9]+}}:{{[0-9]+}}: {{.*}}copies a length that ends inside a 'double' of the {{[0-9]+}}-byte elements it moves
  __enzyme_autodiff((void *)f, enzyme_dup, x, d, enzyme_const, 12L);
  printf("not reached: d = %g %g %g\n", d[0], d[1], d[2]);
  return fd_finish();
}
