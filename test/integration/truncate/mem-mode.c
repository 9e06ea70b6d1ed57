// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -ffp-contract=off
// Enzyme's mem-mode truncation, __enzyme_truncate_mem_func(f, FROM, TO): doubles hold the
// truncated representation (umbra's encoding: the float's 32 bits, zero-extended into the
// double's 64), in arguments, returns, memory and phis; every
// operation decodes, computes in float (comparisons and conversions too) and encodes.
// __enzyme_truncate_mem_value / __enzyme_expand_mem_value convert in and out. Results must
// be bit for bit the computation written in float by hand.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef double (*fn2)(double, double);
typedef double (*fnk)(double, int);
typedef double (*fns)(const double *, int);
fn2 __enzyme_truncate_mem_func(fn2, int, int);
fnk __enzyme_truncate_mem_func_k(fnk, int, int);
fns __enzyme_truncate_mem_func_s(fns, int, int, int);
double __enzyme_truncate_mem_value(double, int, int);
double __enzyme_expand_mem_value(double, int, int);

__attribute__((noinline)) static double helper(double a) { return a * 0.5 + 0.25; }

double h(double a, double b) {
  double t = a * b - 1.5;
  if (t < a) // compared in float
    t = t * t + helper(a);
  return sqrt(t) + 2.0;
}
static float h_by_hand(float a, float b) {
  float t = a * b - 1.5f;
  if (t < a)
    t = t * t + (a * 0.5f + 0.25f);
  return sqrtf(t) + 2.0f;
}

// Conversions: int -> value, value -> int.
double k(double a, int n) { return a * n + (int)(a * 3.0); }
static float k_by_hand(float a, int n) { return a * (float)n + (float)(int)(a * 3.0f); }

// Memory holds encodings; the sum starts from a constant (a phi's incoming encoding).
double sum(const double *x, int n) {
  double s = 1.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

static int same(const char *what, double got, double want) {
  if (memcmp(&got, &want, sizeof got) != 0) {
    printf("FAIL %s: %.17g, by hand %.17g\n", what, got, want);
    return 1;
  }
  printf("ok %s: %.9g\n", what, got);
  return 0;
}

#define IN(x) __enzyme_truncate_mem_value(x, 64, 32)
#define OUT(x) __enzyme_expand_mem_value(x, 64, 32)

int main(void) {
  int bad = 0;
  // The encoding: the float's bits in the low half, zeros above.
  double e = IN(1.1);
  float f11 = 1.1f;
  uint64_t bits;
  uint32_t fbits;
  memcpy(&bits, &e, 8);
  memcpy(&fbits, &f11, 4);
  if (bits != (uint64_t)fbits) {
    printf("FAIL encoding of 1.1: %016llx\n", (unsigned long long)bits);
    bad = 1;
  }
  bad |= same("round trip", OUT(IN(1.1)), (double)1.1f);
  double as[] = {0.7, 1.3, 2.9}, bs[] = {0.3, 1.7, 4.1};
  for (int i = 0; i < 3; i++) {
    double a = as[i], b = bs[i];
    bad |= same("h", OUT(__enzyme_truncate_mem_func(h, 64, 32)(IN(a), IN(b))),
                (double)h_by_hand((float)a, (float)b));
    bad |= same("k", OUT(__enzyme_truncate_mem_func_k(k, 64, 32)(IN(a), 7)),
                (double)k_by_hand((float)a, 7));
  }
  double x[4] = {0.1, -2.5, 3.3, 0.01}, ex[4];
  float by_hand = 1.0f;
  for (int i = 0; i < 4; i++) {
    ex[i] = IN(x[i]);
    by_hand += (float)x[i] * (float)x[i];
  }
  bad |= same("sum 64to8-23", OUT(__enzyme_truncate_mem_func_s(sum, 64, 8, 23)(ex, 4)),
              (double)by_hand);
  return bad;
}
