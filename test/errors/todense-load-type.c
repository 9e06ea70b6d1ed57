// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck %s
// A load through a dense view must read what the user's load function returns (here a
// double): an int read through it is an error at the load, not a reinterpreted value.
float *__enzyme_todense(void *, void *, ...);

static double load_at(long off) { return (double)off; }
static void store_at(double v, long off) { (void)v, (void)off; }

int use(void) {
  int *p = (int *)__enzyme_todense((void *)load_at, (void *)store_at);
  // CHECK: todense-load-type.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}cannot lower the __enzyme_todense view {{.*}}: it loads i32 but 'load_at' returns double
  return p[5];
}
