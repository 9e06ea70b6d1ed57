// --debug-checks names the source line where a derivative first becomes NaN or infinite from
// finite values, and aborts; UMBRA_DEBUG=warn prints every such place and goes on. Through the
// driver (-O0 and -O2) and the plugin. argv[1]: r = reverse (sqrt of a zero distance in the
// adjoint), f = forward (sqrt at 0 with a non-zero tangent), n = nothing wrong.
// RUN: %clang -O0 -g -c -emit-llvm %s -o %t.O0.bc
// RUN: %umbra %t.O0.bc -O0 --debug-checks -o %t.O0.o
// RUN: %clang %t.O0.o -lm -o %t.O0
// RUN: not --crash %t.O0 r 2>&1 | FileCheck --check-prefix=REV %s
// RUN: not --crash %t.O0 f 2>&1 | FileCheck --check-prefix=FWD %s
// RUN: %t.O0 n 2>&1 | FileCheck --check-prefix=CLEAN %s
// RUN: env UMBRA_DEBUG=warn %t.O0 r 2>&1 | FileCheck --check-prefix=WARN %s
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t.O2.bc
// RUN: %umbra %t.O2.bc --debug-checks -o %t.O2.o
// RUN: %clang %t.O2.o -lm -o %t.O2
// RUN: not --crash %t.O2 r 2>&1 | FileCheck --check-prefix=REV %s
// RUN: not --crash %t.O2 f 2>&1 | FileCheck --check-prefix=FWD %s
// RUN: %t.O2 n 2>&1 | FileCheck --check-prefix=CLEAN %s
// Plugin: the pass parameter, and UMBRA_OPTIONS for clang.
// RUN: %clang -O1 -g -Xclang -disable-llvm-passes -S -emit-llvm %s -o %t.ll
// RUN: %opt-umbra -passes='umbra<debug-checks>' %t.ll -o %t.plugin.ll
// RUN: %clang -O2 %t.plugin.ll -lm -o %t.plugin
// RUN: not --crash %t.plugin r 2>&1 | FileCheck --check-prefix=REV %s
// RUN: not --crash %t.plugin f 2>&1 | FileCheck --check-prefix=FWD %s
// RUN: env UMBRA_OPTIONS=debug-checks %clang -O2 -g -fpass-plugin=%plugin %s -lm -o %t.clang
// RUN: not --crash %t.clang r 2>&1 | FileCheck --check-prefix=REV %s
// Without the flag: no checks, the NaN goes through silently.
// RUN: %umbra %t.O2.bc -o %t.plain.o
// RUN: %clang %t.plain.o -lm -o %t.plain
// RUN: %t.plain r 2>&1 | FileCheck --check-prefix=PLAIN %s
//
// CLEAN-NOT: umbra:
// CLEAN: gradient 1 -1 tangent 0.5
// PLAIN-NOT: umbra:
// PLAIN: gradient {{-?nan}}
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
typedef struct { double da, db; } Pair;
Pair __enzyme_autodiff_pair(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double distance(double a, double b) {
  double d = a - b;
  return sqrt(d * d); // REV: umbra: non-finite adjoint of 'sqrt' at {{.*}}nonfinite.c:[[@LINE]]:{{[0-9]+}} in 'distance' (reverse mode){{$}}
  // WARN: umbra: non-finite adjoint of 'sqrt' at {{.*}}nonfinite.c:[[@LINE-1]]:{{[0-9]+}} in 'distance' (reverse mode)
  // WARN: gradient {{-?nan}}
  // REV-NOT: gradient
}

__attribute__((noinline)) double root(double x) {
  return sqrt(x); // FWD: umbra: non-finite tangent of 'sqrt' at {{.*}}nonfinite.c:[[@LINE]]:{{[0-9]+}} in 'root' (forward mode){{$}}
  // FWD-NOT: tangent
}

int main(int argc, char **argv) {
  char what = argc > 1 ? argv[1][0] : 'n';
  double b = what == 'r' ? 1.0 : 0.0;
  double x = what == 'f' ? 0.0 : 1.0;
  Pair g = __enzyme_autodiff_pair((void *)distance, enzyme_out, 1.0, enzyme_out, b);
  printf("gradient %g %g", g.da, g.db);
  double t = __enzyme_fwddiff((void *)root, x, 1.0);
  printf(" tangent %g\n", t);
  return 0;
}
