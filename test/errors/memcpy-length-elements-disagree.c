// RUN: %clang -O0 -g -I %testinc -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t0.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -I %testinc -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t2.o 2>&1 | FileCheck %s
// RUN: not %clang -O3 -g -I %testinc -fpass-plugin=%plugin -c %s -o %t3.o 2>&1 | FileCheck %s
// A helper copies `n * 16` bytes of 48-byte structs whose reads are unrolled (issue 25, item 4a):
// a length counting 16-byte units does not make the struct repeat every 16 bytes (a double and
// an int 16 bytes apart, which a join would call two floats). The copy stays refused, naming
// the layout and the period, instead of adding adjoints over the int and the pointer.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff_v(void *, ...);

typedef struct {
  double w;
  int count;
  double v[3];
  const double *scale;
} Item;

__attribute__((noinline)) void copy_units(void *dst, const void *src, long n) {
  // CHECK: memcpy-length-elements-disagree.c:[[@LINE+1]]:{{[0-9]+}}: in function 'copy_units': cannot tell what type of data this call moves: {{.*}} which does not repeat every 16 bytes as the length's elements would
  memcpy(dst, src, n * 16);
}

#define TERM(it) ((it).w * ((it).v[0] + 2 * (it).v[1] * (it).v[2]) * (it).count * *(it).scale)

// Read at run time: with the constant, the call into a stack slot goes to a copy of the helper
// for distinct arguments (distinct_args.rs), called only with that length, whose copy of three
// whole structs the type analysis then lays out (and differentiates right: 39 and 1557).
static volatile long units = 3 * sizeof(Item) / 16;

void loss(const Item *in, double *out) {
  Item tmp[3];
  copy_units(tmp, in, units);
  *out = TERM(tmp[0]) + TERM(tmp[1]) + TERM(tmp[2]);
}

static double scale = 1.5;

int main(void) {
  Item in[3] = {{1, 1, {2, 3, 4}, &scale}, {5, 2, {6, 7, 8}, &scale}, {9, 3, {1, 2, 3}, &scale}};
  Item din[3] = {0};
  double dscale = 0;
  for (int i = 0; i < 3; i++) din[i].scale = &dscale;
  double out, dout = 1;
  __enzyme_autodiff_v((void *)loss, enzyme_dup, in, din, enzyme_dup, &out, &dout);
  printf("%g %g\n", din[0].w, dscale);
  return 0;
}
