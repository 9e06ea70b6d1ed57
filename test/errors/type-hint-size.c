// RUN: %clang -O1 -g -c -emit-llvm %s -o %t1.bc
// RUN: not %umbra %t1.bc -o %t1.o 2>&1 | FileCheck %s --check-prefix=PART
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -c %s -o %t1.o 2>&1 | FileCheck %s --check-prefix=PART
// RUN: %clang -DVARIABLE -O1 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t2.o 2>&1 | FileCheck %s --check-prefix=VARIABLE
// RUN: %clang -DNO_POINTER -O1 -g -c -emit-llvm %s -o %t3.bc
// RUN: not %umbra %t3.bc -o %t3.o 2>&1 | FileCheck %s --check-prefix=NO-POINTER
// RUN: %clang -DGLOBAL -O0 -g -c -emit-llvm %s -o %t4.bc
// RUN: not %umbra %t4.bc -o %t4.o 2>&1 | FileCheck %s --check-prefix=GLOBAL
// Misused type hints, each a one-line error naming the call: a size that is not a whole number
// of doubles, a size that is not a constant (Enzyme's hints take constants only), a call
// without the pointer to the memory it describes, a hint on a global (the type analysis types a
// global by its declared type only).
#include <string.h>
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
#ifdef NO_POINTER
void __enzyme_double(unsigned long);
#else
void __enzyme_double(void *, unsigned long);
#endif

char buf[16];

void f(double *x, double *out, unsigned long n) {
#if defined(GLOBAL)
  // GLOBAL: type-hint-size.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'__enzyme_double' on a global's memory ('@buf')
  __enzyme_double(buf, 16);
  memcpy(buf, x, 16);
  memcpy(x, buf, 16);
#elif defined(VARIABLE)
  // VARIABLE: type-hint-size.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'__enzyme_double' needs a constant size in bytes
  __enzyme_double(x, n);
#elif defined(NO_POINTER)
  // NO-POINTER: type-hint-size.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'__enzyme_double' takes the pointer to the memory it describes and its size in bytes
  __enzyme_double(16);
#else
  // PART: type-hint-size.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'__enzyme_double' describes 12 bytes, not a whole number of doubles (8 bytes each)
  __enzyme_double(x, 12);
#endif
  *out = x[0] * x[1];
}

void df(double *x, double *dx, double *out, double *dout, unsigned long n) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, out, dout, n);
}
