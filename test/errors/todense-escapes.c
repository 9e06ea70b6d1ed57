// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck %s
// A dense view (__enzyme_todense) handed to a function without a body cannot be lowered to
// calls of the user's load and store functions: an error naming the call and the view, not a
// null pointer the callee would dereference. (The module has no derivative request: views
// are lowered all the same.)
double *__enzyme_todense(void *, void *, ...);
void keep(double *p);

static double load_at(long off, long k) { return (double)(off + k); }
static void store_at(double v, long off, long k) { (void)v, (void)off, (void)k; }

double use(long k) {
  double *p = __enzyme_todense((void *)load_at, (void *)store_at, k);
  double x = p[3];
  // CHECK: todense-escapes.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}cannot lower the __enzyme_todense view created at {{.*}}todense-escapes.c:[[@LINE-2]]:{{[0-9]+}}: the view is passed to 'keep', which has no body
  keep(p);
  return x;
}
