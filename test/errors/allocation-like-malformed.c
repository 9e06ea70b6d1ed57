// RUN: %clang -O0 -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=INDICES
// RUN: %clang -O0 -DBAD_SIZE -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t2.o 2>&1 | FileCheck %s --check-prefix=SIZE
// An __enzyme_allocation_like registration whose deallocator indices do not fit the
// deallocator's parameters, or whose size index names no integer parameter of the allocator,
// is refused with an error naming the registration, never a malformed call.
#include <stdlib.h>
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void *alloc(void *ctx, unsigned long n) {
  (void)ctx;
  return malloc(n);
}
static void dealloc(void *p) { free(p); }

#ifdef BAD_SIZE
void *__enzyme_allocation_like[4] = {(void *)alloc, (void *)0, (void *)"-1", (void *)dealloc};
// SIZE: umbra: error: malformed allocation-like registration '__enzyme_allocation_like': entry 2 must be the index of an integer parameter of 'alloc'
#else
void *__enzyme_allocation_like[4] = {(void *)alloc, (void *)1, (void *)"0,-1", (void *)dealloc};
// INDICES: umbra: error: malformed allocation-like registration '__enzyme_allocation_like': '0,-1' does not fit the parameters of 'dealloc'
#endif

double f(double x) {
  double *p = (double *)alloc(0, sizeof(double));
  *p = x * x;
  double r = *p;
  free(p);
  return r;
}

int main(void) { return __enzyme_autodiff((void *)f, 2.0) != 4.0; }
