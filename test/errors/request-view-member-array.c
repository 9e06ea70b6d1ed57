// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O1 -g -c -emit-llvm %s -o %t1.bc
// RUN: not %umbra %t1.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O3 -g -c -emit-llvm %s -o %t3.bc
// RUN: not %umbra %t3.bc -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O1 -g -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O3 -g -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s
// The function reads the caller's {double, int, float, double[3]} as {double, double[4]}: its
// counted loop over the member array reads bytes 8..15 (the caller's int and float) as a
// double. Bounding that loop's index to the array (so that a loop over v[3] of the caller's
// own struct covers only v) must not let this real reinterpretation through.
extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

typedef struct {
  double m;
  int id;
  float pad;
  double v[3];
} Body;
typedef struct {
  double m;
  double w[4];
} Seen;

__attribute__((noinline)) double energy(const Seen *b, int n) {
  double e = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 4; k++) e += b[i].m * b[i].w[k] * b[i].w[k];
  return e;
}

int main(void) {
  Body b[4], db[4] = {0};
  for (int i = 0; i < 4; i++) {
    b[i].m = 1 + i;
    b[i].id = i;
    b[i].pad = 0;
    for (int k = 0; k < 3; k++) b[i].v[k] = 0.5 * k + i;
  }
  // CHECK: argument 1 of '__enzyme_autodiff' for 'energy' points to memory the caller holds as {{float at byte 12, but 'energy' reads double at byte 8|double at byte 8, but 'energy' reads float at byte 12}} of it
  __enzyme_autodiff((void *)energy, enzyme_dup, b, db, enzyme_const, 4);
  return (int)db[0].m;
}
