// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s --check-prefixes=SHIFTED,NOTBAA
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s --check-prefixes=SHIFTED,TBAA
// RUN: not %clang -O2 -g -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s --check-prefixes=SHIFTED,TBAA
// RUN: %clang -O0 -g -DREINTERPRET -c -emit-llvm %s -o %t3.bc
// RUN: not %umbra %t3.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=REINTERPRET
// RUN: %clang -O2 -g -DREINTERPRET -c -emit-llvm %s -o %t4.bc
// RUN: not %umbra %t4.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=REINTERPRET
// Byte-wise copies (unsigned char accesses) of doubles that reverse mode cannot move as whole
// floats (issue 11, case 4; the ordinary byte-wise copy works, see
// integration/reverse/byte-copy-loop.c). Shifting the bytes by one splits every double between
// two; copying the bytes of doubles into floats reinterprets them (the type analysis sees both
// types because the function also reads the source as a double). Each stays a refusal naming
// the byte access and what to do, never a derivative moved in the wrong format.
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup;

#ifndef REINTERPRET
__attribute__((noinline)) static void shifted_copy(void *dst, const void *src, unsigned long n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  for (unsigned long k = 0; k + 1 < n; k++) d[k] = s[k + 1];
}
// SHIFTED: byte-copy.c:[[@LINE-2]]:{{[0-9]+}}: in function 'shifted_copy': copies differentiable memory through an integer ('{{.*}}load i8{{.*}}', i8), which may hold floating-point data or only part of it; {{.*}}reverse mode can only move whole floats (copy with memcpy or typed loads
// Compiling with TBAA is suggested only where the code has none (at -O2 it had, and the
// suggestion misled).
// NOTBAA-SAME: , or compile with TBAA, i.e. -O1 or higher without -fno-strict-aliasing)
// TBAA-NOT: compile with TBAA

void loss(const double *in, double *out) {
  double tmp[4];
  shifted_copy(tmp, in, sizeof tmp);
  double s = 0;
  for (int i = 0; i < 4; i++) s += tmp[i] * tmp[i] * (i + 1);
  *out = s;
}
#else
__attribute__((noinline)) static void byte_copy(void *dst, const void *src, unsigned long n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  for (unsigned long k = 0; k < n; k++) d[k] = s[k];
}
// REINTERPRET: byte-copy.c:[[@LINE-2]]:{{[0-9]+}}: in function 'byte_copy': copies memory byte by byte ('{{.*}}load i8{{.*}}', i8) that the program accesses with incompatible types ({{.*}}conflict{{.*}}); reverse mode cannot tell which bytes hold floats; copy with memcpy or typed loads

void loss(const double *in, double *out) {
  float tmp[4];
  byte_copy(tmp, in, sizeof tmp);
  double s = in[0];
  for (int i = 0; i < 4; i++) s += tmp[i] * tmp[i] * (i + 1);
  *out = s;
}
#endif

void dloss(const double *in, double *din, double *out, double *dout) {
  __enzyme_autodiff((void *)loss, enzyme_dup, in, din, enzyme_dup, out, dout);
}
