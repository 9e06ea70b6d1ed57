// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t0.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t2.o 2>&1 | FileCheck %s
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -c %s -o %t1.o 2>&1 | FileCheck %s
// A type hint the program contradicts: __enzyme_integer says the 16 bytes hold integers, but the
// function reads doubles there. The hint is refused naming the call and the byte, never silently
// preferred to the accesses (or they to it).
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
void __enzyme_integer(void *, unsigned long);

void f(double *x, double *out) {
  // CHECK: type-hint-contradicted.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'__enzyme_integer' says the 16 bytes here hold integers, but the program also accesses byte 0 as double
  __enzyme_integer(x, 16);
  *out = x[0] * x[1];
}

void df(double *x, double *dx, double *out, double *dout) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, out, dout);
}
