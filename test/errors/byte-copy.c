// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=O0
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=O2
// RUN: not %clang -O2 -g -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s --check-prefix=O2
// A hand-written byte-wise copy (unsigned char accesses) of differentiable doubles (issue 11,
// case 4). Adjoints add up whole floats; a byte of a double has no adjoint of its own, so this
// stays a refusal, but it names the byte load, says what the type analysis found (at -O2 it
// sees the doubles through the caller; at -O0 the byte pointer walk hides them) and what to do.
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup;

__attribute__((noinline)) static void byte_copy(void *dst, const void *src, unsigned long n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  for (unsigned long k = 0; k < n; k++) d[k] = s[k];
}

// O0: byte-copy.c:[[@LINE-3]]:{{[0-9]+}}: in function 'byte_copy': copies differentiable memory through an integer ('{{.*}}load i8{{.*}}', i8), which may hold floating-point data or only part of it; the type analysis cannot tell what it holds, and reverse mode can only move whole floats (copy with memcpy or typed loads
// O2: byte-copy.c:[[@LINE-4]]:{{[0-9]+}}: in function 'byte_copy': copies differentiable memory through an integer ('{{.*}}load i8{{.*}}', i8), which may hold floating-point data or only part of it; the type analysis found double data there, and reverse mode can only move whole floats

void loss(const double *in, double *out) {
  double tmp[4];
  byte_copy(tmp, in, sizeof tmp);
  double s = 0;
  for (int i = 0; i < 4; i++) s += tmp[i] * tmp[i] * (i + 1);
  *out = s;
}

void dloss(const double *in, double *din, double *out, double *dout) {
  __enzyme_autodiff((void *)loss, enzyme_dup, in, din, enzyme_dup, out, dout);
}
