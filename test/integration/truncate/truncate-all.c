// Enzyme's `-mllvm --enzyme-truncate-all=SPEC` as umbra's --truncate-all=SPEC (driver) and
// truncate-all=SPEC (plugin: pass parameter or UMBRA_OPTIONS, `:` between truncations): the
// double operations of every defined function, main included, computed in float or half. The
// hand-written float and _Float16 versions are not double code, so they stay as written and
// the results must agree bit for bit; with an empty SPEC nothing changes.
// RUN: %clang -O0 -ffp-contract=off -c -emit-llvm %s -o %t0.bc
// RUN: %umbra %t0.bc --truncate-all= -o %t.o && %clang %t.o -lm -o %t && %t full
// RUN: %umbra %t0.bc --truncate-all=64to32 -o %t.o && %clang %t.o -lm -o %t && %t float
// RUN: %umbra %t0.bc --truncate-all=11-52to8-23 -o %t.o && %clang %t.o -lm -o %t && %t float
// RUN: %umbra %t0.bc --truncate-all=64to16 -o %t.o && %clang %t.o -lm -o %t && %t half
// RUN: %umbra %t0.bc '--truncate-all=64to32;32to16' -o %t.o && %clang %t.o -lm -o %t && %t half
// RUN: %clang -O2 -ffp-contract=off -c -emit-llvm %s -o %t2.bc
// RUN: %umbra %t2.bc --truncate-all=64to32 -o %t.o && %clang %t.o -lm -o %t && %t float
// RUN: %umbra %t2.bc --truncate-all=64to16 -o %t.o && %clang %t.o -lm -o %t && %t half
// RUN: %clang -O1 -ffp-contract=off -c -emit-llvm %s -o %t1.bc
// RUN: %umbra %t1.bc --truncate-all=64to32 -O1 -o %t.o && %clang %t.o -lm -o %t && %t float
// RUN: %clang -O3 -ffp-contract=off -c -emit-llvm %s -o %t3.bc
// RUN: %umbra %t3.bc --truncate-all=64to32 -O3 -o %t.o && %clang %t.o -lm -o %t && %t float
// RUN: env UMBRA_OPTIONS=truncate-all=64to32 %clang -O0 -ffp-contract=off -fpass-plugin=%plugin %s -lm -o %t && %t float
// RUN: env UMBRA_OPTIONS=truncate-all=64to32:32to16 %clang -O2 -ffp-contract=off -fpass-plugin=%plugin %s -lm -o %t && %t half
// RUN: %clang -O3 -ffp-contract=off -fpass-plugin=%plugin %s -lm -o %t && %t full
// RUN: opt -load-pass-plugin=%plugin '-passes=umbra<truncate-all=64to32>' %t2.bc -o %t.d.bc && %clang %t.d.bc -lm -o %t && %t float
#include <math.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) double add(double a, double b) { return a + b; }
__attribute__((noinline)) double compute(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s = add(s, x[i] * x[i] / 3.0);
  return sqrt(s) * 1.5;
}

__attribute__((noinline)) float compute_f(const double *x, int n) {
  float s = 0;
  for (int i = 0; i < n; i++)
    s = s + (float)x[i] * (float)x[i] / 3.0f;
  return sqrtf(s) * 1.5f;
}

__attribute__((noinline)) _Float16 compute_h(const double *x, int n) {
  _Float16 s = 0;
  for (int i = 0; i < n; i++) {
    _Float16 xi = (_Float16)x[i];
    _Float16 p = xi * xi;
    _Float16 q = p / (_Float16)3.0f;
    s = s + q;
  }
  _Float16 r = (_Float16)sqrtf((float)s);
  _Float16 out = r * (_Float16)1.5f;
  return out;
}

// The double computation, written out again: compared to the full-precision result.
__attribute__((noinline)) double compute_d(const double *x, int n) {
  volatile double s = 0;
  for (int i = 0; i < n; i++)
    s = s + x[i] * x[i] / 3.0;
  return sqrt(s) * 1.5;
}

int main(int argc, char **argv) {
  double x[6] = {0.7, -1.3, 2.9, 0.3, 1.7, 4.1};
  double got = compute(x, 6);
  const char *want = argc > 1 ? argv[1] : "full";
  double expect = !strcmp(want, "float") ? (double)compute_f(x, 6)
                  : !strcmp(want, "half") ? (double)compute_h(x, 6)
                                          : compute_d(x, 6);
  printf("%s: %.17g (expected %.17g)\n", want, got, expect);
  return memcmp(&got, &expect, sizeof got) != 0;
}
