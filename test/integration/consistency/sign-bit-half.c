// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// A _Float16's sign bit cleared, set and flipped through a 16-bit integer (unsigned
// _BitInt(16): uint16_t would be promoted to int, and the operation done on i32), both modes.
// The type analysis did not show half-precision bits in an integer (float_bits answered for
// float and wider only), so reverse mode dropped the derivative, silently: a zero gradient
// (and forward mode, once the sign-bit predicate took 16-bit integers, refused). Half and
// bfloat bits in an integer are now float bits like any other. Derivatives 1.5 is exact in
// half precision; the functions multiply by x so that the primal is not piecewise linear.
#include "fdcheck.h"

double __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff(void *, ...);

typedef union {
  _Float16 h;
  unsigned _BitInt(16) u;
} half_bits;

double clear16(double x) {
  half_bits v;
  v.h = (_Float16)x;
  v.u &= (unsigned _BitInt(16))0x7fff;
  return (double)v.h * x;
}

double set16(double x) {
  half_bits v;
  v.h = (_Float16)x;
  v.u |= (unsigned _BitInt(16))0x8000;
  return (double)v.h * x;
}

double flip16(double x) {
  half_bits v;
  v.h = (_Float16)x;
  v.u ^= (unsigned _BitInt(16))0x8000;
  return (double)v.h * x;
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
    double x = k ? 1.5 : -1.5; /* exact in half precision */
    double ax = 1.5;
    /* clear: |x| x, set: -|x| x, flip: -x x */
    CHECK(clear16, x, 2 * ax);
    CHECK(set16, x, -2 * ax);
    CHECK(flip16, x, -2 * x);
  }
  return fd_finish();
}
