// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// RUN: %clang -O1 -g -DSTRUCT -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=STRUCT
// Differentiable values stored through a pointer that a global holds: Umbra gives globals that
// hold floating-point data shadows (a static array written by a helper it is passed to now
// works: test/integration/reverse/global-implicit-shadow.c), but not one holding a pointer,
// whose shadow would have to point at shadow memory. The error names the global; before, it
// said the address "is a constant argument or a global" and to "pass the destination as dup".
// Nor does a global holding a pointer next to floating-point data: its zeroed shadow would hold
// a null pointer, through which the derivative code would write.
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

#ifdef STRUCT
struct {
  const double *data;
  double last;
} cache;

double f(const double *x) {
  // STRUCT: static-array-store.c:[[@LINE+1]]:{{[0-9]+}}: in function 'f': {{.*}}stores a value with a derivative into memory without a shadow ('{{.*}}' is in the global 'cache', which has no shadow: Umbra gives one to a global the differentiated code stores floating-point values into, not to one holding pointers
  cache.data = x;
  cache.last = x[0] * x[0];
  return cache.last + cache.data[1];
}
#else
static double *buf;
void setup(double *b) { buf = b; }

double f(const double *x) {
  for (int i = 0; i < 4; i++)
    // CHECK: static-array-store.c:[[@LINE+1]]:{{[0-9]+}}: in function 'f': {{.*}}stores a value with a derivative into memory without a shadow ('{{.*}}' is a pointer loaded from the global 'buf': Umbra gives no shadow to a global holding pointers
    buf[i] = x[i] * x[i];
  return buf[0] * buf[3] + buf[1];
}
#endif

void grad(const double *x, double *dx) { __enzyme_autodiff((void *)f, enzyme_dup, x, dx); }
