// Gradient logging with Umbra's spelling, umbra_log_grad: one call per adjoint of a
// floating-point instruction or math function, in the adjoint sweep's order, with the adjoint
// and the instruction's opcode and callee; through the driver and the plugin. A logger with
// the wrong type is refused, naming it.
// RUN: %clang -O2 -c -emit-llvm %s -o %t.bc
// RUN: %umbra %t.bc -o %t.o
// RUN: %clang %t.o -lm -o %t
// RUN: %t | FileCheck %s
// RUN: %clang -O2 -fpass-plugin=%plugin %s -lm -o %t.plugin
// RUN: %t.plugin | FileCheck %s
// RUN: %clang -O2 -DBAD_LOGGER -c -emit-llvm %s -o %t.bad.bc
// RUN: not %umbra %t.bad.bc -o %t.bad.o 2>&1 | FileCheck --check-prefix=BAD %s
// BAD: umbra: error: 'umbra_log_grad' is the gradient logger's name, but its type is void (double, ptr){{.*}}; a logger is void umbra_log_grad(double grad, const char *opcode, const char *callee, const char *module, const char *function, unsigned block, unsigned inst)
//
// f(x) = sqrt(x) * 3 at x = 4: the adjoint of the product is 1, of the sqrt 3.
// CHECK: log 1 fmul '' in f
// CHECK-NEXT: log 3 call 'sqrt' in f
// CHECK-NEXT: gradient 0.75 calls 2
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

int calls;
#ifdef BAD_LOGGER
void umbra_log_grad(double grad, const char *opcode) { ++calls; }
#else
void umbra_log_grad(double grad, const char *opcode, const char *callee, const char *module,
                    const char *function, unsigned block, unsigned inst) {
  ++calls;
  printf("log %g %s '%s' in %s\n", grad, opcode, callee, function);
}
#endif

__attribute__((noinline)) double f(double x) { return sqrt(x) * 3; }

int main(void) {
  double g = __enzyme_autodiff((void *)f, 4.0);
  printf("gradient %g calls %d\n", g, calls);
  return 0;
}
