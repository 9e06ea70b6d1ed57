// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// Sign-bit operations on a float and a double through a union with an integer (clear: an
// integer fabs, set: -fabs, flip: a negation), in both modes: one predicate decides in both
// which integer bit operations have a derivative of their own (analysis/opcodes.rs,
// sign_bit_op). At -O0 the integer operations survive (LLVM rewrites them to fabs/fneg from -O1
// on). Before, a sign *set* (an 'or' with the sign bit) was a bit operation to forward mode,
// which returned -|dx| (-1 at x = -1.5, where the derivative of -|x| is +1), while reverse mode
// refused it as packing floats into an integer. (For _Float16 through a 16-bit integer see
// sign-bit-half.c.)
#include <stdint.h>
#include "fdcheck.h"

double __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff(void *, ...);

typedef union {
  float f;
  uint32_t u;
} float_bits;

typedef union {
  double d;
  uint64_t u;
} double_bits;

double clear32(double x) {
  float_bits v;
  v.f = (float)x;
  v.u &= 0x7fffffffu;
  return v.f;
}

double set32(double x) {
  float_bits v;
  v.f = (float)x;
  v.u |= 0x80000000u;
  return v.f;
}

double flip32(double x) {
  float_bits v;
  v.f = (float)x;
  v.u ^= 0x80000000u;
  return v.f;
}

double clear64(double x) {
  double_bits v;
  v.d = x;
  v.u &= 0x7fffffffffffffffull;
  return v.d;
}

double set64(double x) {
  double_bits v;
  v.d = x;
  v.u |= 0x8000000000000000ull;
  return v.d;
}

double flip64(double x) {
  double_bits v;
  v.d = x;
  v.u ^= 0x8000000000000000ull;
  return v.d;
}

/* A macro, not a function: each request must name its function. */
#define CHECK(fn, x, expect)                                                  \
  do {                                                                        \
    char name[64];                                                            \
    snprintf(name, sizeof name, "fwd %s at %g", #fn, x);                      \
    fd_check(name, __enzyme_fwddiff((void *)fn, x, 1.0), expect);             \
    snprintf(name, sizeof name, "rev %s at %g", #fn, x);                      \
    fd_check(name, __enzyme_autodiff((void *)fn, x), expect);                 \
  } while (0)

int main(void) {
  for (int k = 0; k < 2; k++) {
    double x = k ? 1.5 : -1.5; /* exact in single precision */
    double sign = k ? 1.0 : -1.0;
    CHECK(clear32, x, sign);
    CHECK(set32, x, -sign);
    CHECK(flip32, x, -1.0);
    CHECK(clear64, x, sign);
    CHECK(set64, x, -sign);
    CHECK(flip64, x, -1.0);
  }
  return fd_finish();
}
