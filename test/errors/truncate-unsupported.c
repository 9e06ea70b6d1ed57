// RUN: %clang -O1 -g -c -emit-llvm -DCASE=1 %s -o %t.1.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.1.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=MPFR
// RUN: test ! -e %t.o
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -DCASE=1 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=MPFR
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=2 %s -o %t.2.bc
// RUN: not %umbra %t.2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=ESCAPE
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=3 %s -o %t.3.bc
// RUN: not %umbra %t.3.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=WIDER
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=4 %s -o %t.4.bc
// RUN: not %umbra %t.4.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=MEMGRAD
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -DCASE=4 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=MEMGRAD
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=5 %s -o %t.5.bc
// RUN: not %umbra %t.5.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=LIBM
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=6 %s -o %t.6.bc
// RUN: not %umbra %t.6.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=GLOBAL
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=7 %s -o %t.7.bc
// RUN: not %umbra %t.7.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=ATOMIC
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=0 %s -o %t.0.bc
// RUN: not %umbra %t.0.bc --truncate-all=11-52to3-7 -o %t.o 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: not %umbra %t.0.bc --truncate-all=64 -o %t.o 2>&1 | FileCheck %s --check-prefix=SPEC
// RUN: env UMBRA_OPTIONS=truncate-all=64to3-7 not %clang -O1 -fpass-plugin=%plugin -DCASE=0 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=ALL
// Enzyme's floating-point truncation where umbra cannot follow: formats without a native type
// (Enzyme emulates them with MPFR), a "truncation" to a wider type, a mem-mode value escaping
// to a function without a body, a gradient of mem-mode code, a libm function with neither an
// intrinsic nor a variant in the target format, a mem-mode read of the program's constant
// doubles (not in the truncated representation), an atomic addition (arithmetic in memory). Each is one line at the call or instruction.
#include <math.h>
#include <stdio.h>
typedef double (*fn)(double);
fn __enzyme_truncate_op_func(fn, ...);
fn __enzyme_truncate_mem_func(fn, ...);
double __enzyme_autodiff(void *, ...);

double f(double x) { return x * x + 1.0; }
// ESCAPE: truncate-unsupported.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}a double in memory-mode truncated representation escapes to 'printf', which has no body to truncate
double p(double x) { printf("%g\n", x); return x * 2; }
// LIBM: truncate-unsupported.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}cannot compute 'cbrt' in f16
double c(double x) { return cbrt(x) * 2; }
double table[3] = {1.5, 2.5, 3.5};
// GLOBAL: truncate-unsupported.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}memory-mode truncation cannot read the global 'table': its initial double values are not in the truncated representation
double tg(double x) { return x * table[(int)x & 1]; }
double total;
// ATOMIC: truncate-unsupported.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}cannot truncate an atomic read-modify-write of a double
double acc(double x) { return __atomic_fetch_add(&total, x * 2, __ATOMIC_RELAXED); }

int main(void) {
#if CASE == 1
  // MPFR: truncate-unsupported.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'__enzyme_truncate_op_func': TO with 3 exponent and 7 significand bits is not a native format; {{.*}}MPFR
  return __enzyme_truncate_op_func(f, 64, 3, 7)(1.5) > 0;
#elif CASE == 2
  return __enzyme_truncate_mem_func(p, 64, 32)(1.5) > 0;
#elif CASE == 3
  // WIDER: truncate-unsupported.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}a truncation from f32 to f64 does not narrow the format
  return __enzyme_truncate_op_func(f, 32, 64)(1.5) > 0;
#elif CASE == 4
  // MEMGRAD: truncate-unsupported.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}this request differentiates the memory-mode truncated 'f.umbra_trunc_mem_f64tof32'{{.*}}op-mode truncation
  return __enzyme_autodiff((void *)__enzyme_truncate_mem_func(f, 64, 32), 1.5) > 0;
#elif CASE == 5
  return __enzyme_truncate_op_func(c, 64, 16)(1.5) > 0;
#elif CASE == 6
  return __enzyme_truncate_mem_func(tg, 64, 32)(1.5) > 0;
#elif CASE == 7
  return __enzyme_truncate_op_func(acc, 64, 32)(1.5) > 0;
#else
  // ALL: umbra{{.*}}: error: {{.*}}'3-7' is not a native format; {{.*}}MPFR
  // SPEC: umbra: error: --truncate-all=64: '64' is not a truncation: expected FROMtoTO
  return f(1.5) > 0;
#endif
}
