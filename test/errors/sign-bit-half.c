// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// A _Float16's sign bit cleared through a 16-bit integer (unsigned _BitInt(16): uint16_t would
// be promoted to int, and the 'and' done on i32). Forward mode used to treat the i16 'and' as a
// bit operation on the tangent and returned |dx| (+1 at x = -1.5, where the derivative is -1):
// the sign-bit predicate both modes share (analysis/opcodes.rs, sign_bit_op) now takes 16-bit
// integers too, and the type analysis does not show half-precision bits in an integer
// (float_bits answers for float and wider), so forward mode refuses rather than guess.
// CHECK: error: {{.*}}sign-bit-half.c:{{[0-9]+}}:{{[0-9]+}}: in function 'clear16': integer 'and' clearing the sign bit of data the type analysis cannot show to be one floating-point value

double __enzyme_fwddiff(void *, ...);

typedef union {
  _Float16 h;
  unsigned _BitInt(16) u;
} half_bits;

double clear16(double x) {
  half_bits v;
  v.h = (_Float16)x;
  v.u &= (unsigned _BitInt(16))0x7fff;
  return (double)v.h;
}

double dclear16(double x) { return __enzyme_fwddiff((void *)clear16, x, 1.0); }
