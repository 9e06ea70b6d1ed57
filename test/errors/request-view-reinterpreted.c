// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O1 -g -c -emit-llvm %s -o %t1.bc
// RUN: not %umbra %t1.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O3 -g -c -emit-llvm %s -o %t3.bc
// RUN: not %umbra %t3.bc -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O0 -g -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O1 -g -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O2 -g -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O3 -g -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s
// Forward mode, the caller's struct of doubles, and 32-bit integers read from the doubles:
// RUN: %clang -O0 -g -c -emit-llvm -DFORWARD %s -o %tf0.bc
// RUN: not %umbra %tf0.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=FWD
// RUN: %clang -O2 -g -c -emit-llvm -DFORWARD %s -o %tf2.bc
// RUN: not %umbra %tf2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=FWD
// RUN: not %clang -O3 -g -c -DFORWARD -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s --check-prefix=FWD
// RUN: %clang -O0 -g -c -emit-llvm -DSTRUCT %s -o %ts0.bc
// RUN: not %umbra %ts0.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -c -emit-llvm -DSTRUCT %s -o %ts2.bc
// RUN: not %umbra %ts2.bc -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O3 -g -c -DSTRUCT -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O0 -g -c -emit-llvm -DU32 %s -o %tu0.bc
// RUN: not %umbra %tu0.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=U32
// RUN: %clang -O2 -g -c -emit-llvm -DU32 %s -o %tu2.bc
// RUN: not %umbra %tu2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=U32
// RUN: not %clang -O3 -g -c -DU32 -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s --check-prefix=U32
// A request in an exported function whose pointers come from outside the module: only the debug
// information says they point to doubles (without -g, nothing does, and the function's own
// reads decide):
// RUN: %clang -O0 -g -c -emit-llvm -DEXPORTED %s -o %te0.bc
// RUN: not %umbra %te0.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=DI
// RUN: %clang -O2 -g -c -emit-llvm -DEXPORTED %s -o %te2.bc
// RUN: not %umbra %te2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=DI
// RUN: not %clang -O3 -g -c -DEXPORTED -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s --check-prefix=DI
// A function that reads the caller's doubles as float bytes (issue 11): the function's own
// accesses say four floats, so reverse mode wrote float adjoints into the caller's double
// shadow (printing 5.3e-315 at -O0 and -O2), and forward mode read the double tangents' bytes
// as float tangents. The derivative of reinterpreted bits is meaningless: the request's view
// of the memory (what the caller stores there) conflicts with the function's, a clear error.
#include <stdint.h>
#include <stdio.h>
#include <string.h>
extern void __enzyme_autodiff(void *, ...);
extern double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup;

#ifdef STRUCT
typedef struct {
  double a, b;
} Pair;
#define ARG Pair
#define INIT {{1.5, 2.5}}
#define SEED {{1, 0}}
#else
#define ARG double
#define INIT {1.5, 2.5}
#define SEED {1, 0}
#endif

#ifdef U32
// 32-bit integers holding halves of the caller's doubles, used as numbers.
__attribute__((noinline)) static double f(ARG *x) {
  uint32_t a[4];
  memcpy(a, x, 16);
  double s = 0;
  for (int k = 0; k < 4; k++)
    s += (double)a[k] * 1e-9;
  return s * s;
}
#else
__attribute__((noinline)) static double f(ARG *x) {
  float a[4];
  memcpy(a, x, 16);
  return a[0] * a[1] + a[2] * a[3];
}
#endif

#ifdef EXPORTED
void g(ARG *x, ARG *dx) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  // DI: request-view-reinterpreted.c:[[@LINE-1]]:{{[0-9]+}}: in function 'g': {{.*}}argument 1 of '__enzyme_autodiff' for 'f' points to memory the caller holds as double at byte 0, but 'f' reads float at byte {{[04]}} of it
}
#else
int main(void) {
  ARG x[16 / sizeof(ARG)] = INIT;
#ifdef FORWARD
  // The tangent in direction x[0].
  ARG dx[16 / sizeof(ARG)] = SEED;
  double r = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx);
  // FWD: request-view-reinterpreted.c:[[@LINE-1]]:{{[0-9]+}}: in function 'main': {{.*}}argument 1 of '__enzyme_fwddiff' for 'f' points to memory the caller holds as double at byte 0, but 'f' reads float at byte {{[04]}} of it: the derivative of reinterpreted bytes is meaningless
#else
  ARG dx[16 / sizeof(ARG)] = {0};
  double r = 0;
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  // CHECK: request-view-reinterpreted.c:[[@LINE-1]]:{{[0-9]+}}: in function 'main': {{.*}}argument 1 of '__enzyme_autodiff' for 'f' points to memory the caller holds as double at byte 0, but 'f' reads float at byte {{[04]}} of it: the derivative of reinterpreted bytes is meaningless
  // U32: request-view-reinterpreted.c:[[@LINE-2]]:{{[0-9]+}}: in function 'main': {{.*}}argument 1 of '__enzyme_autodiff' for 'f' points to memory the caller holds as double at byte 0, but 'f' reads integer at byte {{[04]}} of it
#endif
  double d[2];
  memcpy(d, dx, 16);
  printf("%g %g %g\n", r, d[0], d[1]);
  return 0;
}
#endif
