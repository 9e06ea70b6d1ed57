// RUN: %clang -O1 -g -c -emit-llvm -DCASE=1 %s -o %t.1.bc
// RUN: not %umbra %t.1.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=NOWIDTH
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -DCASE=1 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=NOWIDTH
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=2 %s -o %t.2.bc
// RUN: not %umbra %t.2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=FEW
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=3 %s -o %t.3.bc
// RUN: not %umbra %t.3.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -DCASE=3 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=4 %s -o %t.4.bc
// RUN: not %umbra %t.4.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=BRANCH
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -DCASE=4 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=BRANCH
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=5 %s -o %t.5.bc
// RUN: not %umbra %t.5.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=6 %s -o %t.6.bc
// RUN: not %umbra %t.6.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=CALLSHARED
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=7 %s -o %t.7.bc
// RUN: not %umbra %t.7.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=MARKER
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=8 %s -o %t.8.bc
// RUN: not %umbra %t.8.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=RESULT
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -DCASE=8 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=RESULT
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=9 %s -o %t.9.bc
// RUN: not %umbra %t.9.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=BUFFER
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=10 %s -o %t.10.bc
// RUN: not %umbra %t.10.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=VOID
// RUN: %clang -O0 -g -c -emit-llvm -DCASE=4 %s -o %t.4o.bc
// RUN: not %umbra %t.4o.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=BRANCH
// Malformed or unbatchable __enzyme_batch requests, each a one-line error at the call site (or
// at the instruction that cannot run in lockstep): no enzyme_width, too few and too many
// values, a branch on a lane-varying value, a lane-varying value stored to memory every lane
// shares (directly, or by a declaration called once per lane), a derivative marker, a result
// type that cannot hold the lanes, enzyme_buffer on a non-pointer, a used void result.
#include <string.h>
extern int enzyme_width, enzyme_vector, enzyme_scalar, enzyme_buffer, enzyme_dup;
double __enzyme_batch(void *, ...);
typedef struct { double a, b; } Pair;
Pair __enzyme_batch_pair(void *, ...);

double f(double x, double y) { return x * y; }
double halve(double x) {
  // BRANCH: enzyme-batch.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}in function 'halve': __enzyme_batch: this branch depends on a lane-varying value
  while (x > 1.0) x = x / 2;
  return x;
}
double total;
double accumulate(double x) {
  // SHARED: enzyme-batch.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}__enzyme_batch: stores a lane-varying value to memory every lane shares ('@total
  total = x;
  return x;
}
void fill(double *dst, double x) {
  // CALLSHARED: enzyme-batch.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}__enzyme_batch: 'llvm.memset.p0.i64' runs once per lane and may write through 'ptr %{{[0-9a-z]+}}', which every lane shares
  memset(dst, (int)x, 8);
}
void g(double *p) { p[0] += 1; }

#if CASE == 1
Pair c1(double x) {
  // NOWIDTH: enzyme-batch.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}needs enzyme_width and the number of lanes right after the function
  return __enzyme_batch_pair((void *)f, enzyme_vector, x, x, enzyme_scalar, 1.0);
}
#elif CASE == 2
Pair c2(double x) {
  // FEW: enzyme-batch.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}too few arguments in '__enzyme_batch_pair' for 'f': parameter 2 of 2 has no value
  return __enzyme_batch_pair((void *)f, enzyme_width, 2, x, x, 1.0);
}
#elif CASE == 3
Pair c3(double x) {
  // MANY: enzyme-batch.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}too many arguments in '__enzyme_batch_pair' for 'f': it takes 2 parameter(s), 2 value(s) per lane-varying parameter; 1 value(s) left over
  return __enzyme_batch_pair((void *)f, enzyme_width, 2, x, x, enzyme_scalar, 1.0, 3.0);
}
#elif CASE == 4
Pair c4(double x) {
  return __enzyme_batch_pair((void *)halve, enzyme_width, 2, x, 2 * x);
}
#elif CASE == 5
Pair c5(double x) {
  return __enzyme_batch_pair((void *)accumulate, enzyme_width, 2, x, 2 * x);
}
#elif CASE == 6
void c6(double *p, double x) {
  __enzyme_batch((void *)fill, enzyme_width, 2, enzyme_scalar, p, x, 2 * x);
}
#elif CASE == 7
Pair c7(double x) {
  // MARKER: enzyme-batch.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}marker 'enzyme_dup' (argument 4 of '__enzyme_batch_pair') is not a batch marker
  return __enzyme_batch_pair((void *)f, enzyme_width, 2, enzyme_dup, x, x, x, x);
}
#elif CASE == 8
double c8(double x) {
  // RESULT: enzyme-batch.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'__enzyme_batch' is declared to return double, but with enzyme_width 2 it returns 2 values of type double; declare it to return a struct of 2 such fields
  return __enzyme_batch((void *)f, enzyme_width, 2, x, x, enzyme_scalar, 1.0);
}
#elif CASE == 9
Pair c9(double x) {
  // BUFFER: enzyme-batch.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}enzyme_buffer for parameter 1 of 'f' (double) must be followed by an integer byte stride and a pointer
  return __enzyme_batch_pair((void *)f, enzyme_width, 2, enzyme_buffer, 8, x, enzyme_scalar, 1.0);
}
#elif CASE == 10
double c10(double *p, double *q) {
  // VOID: enzyme-batch.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'g' returns void, but the result of '__enzyme_batch' is used
  return __enzyme_batch((void *)g, enzyme_width, 2, p, q);
}
#endif
