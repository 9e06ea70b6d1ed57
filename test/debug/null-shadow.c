// --debug-checks names the load that produced a null shadow pointer for a non-null pointer
// (a shadow array of pointers with an entry forgotten), in both modes, through the driver and
// the plugin, before the derivative code dereferences it. argv[1]: r = reverse, f = forward,
// n = every shadow given.
// RUN: %clang -O0 -g -c -emit-llvm %s -o %t.O0.bc
// RUN: %umbra %t.O0.bc -O0 --debug-checks -o %t.O0.o
// RUN: %clang %t.O0.o -lm -o %t.O0
// RUN: not --crash %t.O0 r 2>&1 | FileCheck --check-prefix=REV %s
// RUN: not --crash %t.O0 f 2>&1 | FileCheck --check-prefix=FWD %s
// RUN: %t.O0 n 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t.O2.bc
// RUN: %umbra %t.O2.bc --debug-checks -o %t.O2.o
// RUN: %clang %t.O2.o -lm -o %t.O2
// RUN: not --crash %t.O2 r 2>&1 | FileCheck --check-prefix=REV %s
// RUN: not --crash %t.O2 f 2>&1 | FileCheck --check-prefix=FWD %s
// RUN: %t.O2 n 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: env UMBRA_OPTIONS=debug-checks %clang -O2 -g -fpass-plugin=%plugin %s -lm -o %t.clang
// RUN: not --crash %t.clang r 2>&1 | FileCheck --check-prefix=REV %s
// RUN: not --crash %t.clang f 2>&1 | FileCheck --check-prefix=FWD %s
// RUN: %t.clang n 2>&1 | FileCheck --check-prefix=CLEAN %s
// CLEAN-NOT: umbra:
// CLEAN: gradient 3 2 tangent 5
#include <stdio.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double product(double **rows) {
  double *second = rows[1]; // REV: umbra: null shadow pointer of 'load' at {{.*}}null-shadow.c:[[@LINE]]:{{[0-9]+}} in 'product' (reverse mode){{$}}
  // FWD: umbra: null shadow pointer of 'load' at {{.*}}null-shadow.c:[[@LINE-1]]:{{[0-9]+}} in 'product' (forward mode){{$}}
  return rows[0][0] * second[0];
}

int main(int argc, char **argv) {
  char what = argc > 1 ? argv[1][0] : 'n';
  double a = 2, b = 3, da = 0, db = 0;
  double *rows[2] = {&a, &b};
  double *drows[2] = {&da, what == 'n' ? &db : NULL}; /* the second shadow forgotten */
  if (what != 'f') {
    __enzyme_autodiff((void *)product, enzyme_dup, rows, drows);
    printf("gradient %g %g", da, db);
  }
  if (what != 'r') {
    da = 1, db = 1;
    double t = __enzyme_fwddiff((void *)product, enzyme_dup, rows, drows);
    printf(" tangent %g\n", t);
  }
  return 0;
}
