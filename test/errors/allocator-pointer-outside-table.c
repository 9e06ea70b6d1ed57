// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: %umbra %t.bc -o %t.o
// RUN: %clang %t.o -lm -o %t.exe
// RUN: not --crash %t.exe forward 2>&1 | FileCheck %s
// RUN: not --crash %t.exe reverse 2>&1 | FileCheck %s
// An allocator called through a mutable global pointer dispatches among the functions of the
// pointer's initializer. Once the program has stored another allocator there, the shadow of the
// block it returns is unknown: the derived code stops with an error naming the call site, in
// both modes, also when only the call's result (not its argument) carries derivatives (forward
// mode used to give that result no shadow at all).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static void *(*allocfn)(unsigned long) = malloc;
static void *other_alloc(unsigned long n) { return calloc(1, n); }
void *(*volatile other)(unsigned long) = other_alloc;

double f(double x);

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  int forward = argc > 1 && strcmp(argv[1], "forward") == 0;
  double d = forward ? __enzyme_fwddiff((void *)f, 1.5, 1.0) : __enzyme_autodiff((void *)f, 1.5);
  printf("derivative %g\n", d);
  // CHECK: derivative 3
  allocfn = other;
  printf("primal %g\n", f(3.0));
  // CHECK: primal 9
  d = forward ? __enzyme_fwddiff((void *)f, 1.5, 1.0) : __enzyme_autodiff((void *)f, 1.5);
  printf("not reached %g\n", d);
  return 0;
}

__attribute__((noinline)) double *get(void) { return (double *)allocfn(sizeof(double)); }

double f(double x) {
  double *m = get();
  *m = x * x;
  double r = *m;
  free(m);
  return r;
}
// CHECK-NOT: not reached
// CHECK: umbra: error: {{.*}}allocator-pointer-outside-table.c:37:{{[0-9]+}}: indirect call reached a function that is in none of the vtables or tables of functions
