// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O1 -g -DOTHER -c %s -o %t/other.o
// RUN: %clang -O0 -g -c -emit-llvm %s -o %t/o0.bc
// RUN: %umbra %t/o0.bc -o %t/o0.o
// RUN: %clang %t/o0.o %t/other.o -lm -o %t/o0.exe
// RUN: not --crash %t/o0.exe 2>&1 | FileCheck %s --check-prefixes=CHECK,FOREIGN
// RUN: not --crash %t/o0.exe measured 2>&1 | FileCheck %s --check-prefixes=CHECK,MEASURED
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t/o2.bc
// RUN: %umbra %t/o2.bc -o %t/o2.o
// RUN: %clang %t/o2.o %t/other.o -lm -o %t/o2.exe
// RUN: not --crash %t/o2.exe 2>&1 | FileCheck %s --check-prefixes=CHECK,FOREIGN
// RUN: not --crash %t/o2.exe measured 2>&1 | FileCheck %s --check-prefixes=CHECK,MEASURED
// RUN: not --crash %t/o2.exe forward 2>&1 | FileCheck %s --check-prefixes=CHECK,MEASURED-FWD
// RUN: %clang -O0 -g -fpass-plugin=%plugin %s %t/other.o -lm -o %t/p0.exe
// RUN: not --crash %t/p0.exe 2>&1 | FileCheck %s --check-prefixes=CHECK,FOREIGN
// RUN: not --crash %t/p0.exe measured 2>&1 | FileCheck %s --check-prefixes=CHECK,MEASURED
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s %t/other.o -lm -o %t/p3.exe
// RUN: not --crash %t/p3.exe 2>&1 | FileCheck %s --check-prefixes=CHECK,FOREIGN
// RUN: not --crash %t/p3.exe measured 2>&1 | FileCheck %s --check-prefixes=CHECK,MEASURED
// RUN: not --crash %t/p3.exe forward 2>&1 | FileCheck %s --check-prefixes=CHECK,MEASURED-FWD
// A callback of unknown origin dispatches among the functions of its type whose address the
// module takes. Two are left out: `foreign`, defined in another object file compiled without
// Umbra (it cannot be among them), and `measured`, whose address is taken here but which calls
// a function without body or rule, so it has no derivative (leaving it out keeps the program
// compiling: it only reaches the derivative if the gradient below asks for it). Derivatives
// through the known callback are right; reaching either of the others stops the derived code
// with an error naming the call site (or, for `measured`, the reason it has no derivative), in
// reverse and forward mode, never a wrong derivative, while the primal call works.
#include <stdio.h>
#include <math.h>

typedef double (*model_t)(double, const double *);
model_t foreign_model(void);
double table_lookup(double t);

#ifdef OTHER
static double foreign(double t, const double *p) { return p[0] * t * t; }
model_t foreign_model(void) { return foreign; }
double table_lookup(double t) { return 2 * t; }
#else
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double integrate(model_t f, const double *p, double a, double b, int n);

static double line(double t, const double *p) { return p[0] * t; }
static double measured(double t, const double *p);

static double with_line(const double *p) { return integrate(line, p, 0, 1, 4); }
static double with_measured(const double *p) { return integrate(measured, p, 0, 1, 4); }
static double with_foreign(const double *p) { return integrate(foreign_model(), p, 0, 1, 4); }

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  double p[1] = {3}, dp[1] = {0};
  printf("primal %g %g %g\n", with_line(p), with_measured(p), with_foreign(p));
  // CHECK: primal 1.5 3 1.03125
  __enzyme_autodiff((void *)with_line, enzyme_dup, p, dp);
  printf("derivative %g\n", dp[0]);
  // CHECK: derivative 0.5
  // Two requests the optimiser must not merge into one of a chosen function.
  if (argc > 1 && argv[1][0] == 'm') {
    __enzyme_autodiff((void *)with_measured, enzyme_dup, p, dp);
    printf("not reached %g\n", dp[0]);
  } else if (argc > 1) {
    double t = 1;
    printf("not reached %g\n", __enzyme_fwddiff((void *)with_measured, enzyme_dup, p, &t));
  } else {
    double q[1] = {4}, dq[1] = {0};
    __enzyme_autodiff((void *)with_foreign, enzyme_dup, q, dq);
    printf("not reached either %g\n", dq[0]);
  }
  return 0;
}

// The errors come last, after main's output.
__attribute__((noinline)) double integrate(model_t f, const double *p, double a, double b, int n) {
  // FOREIGN: umbra: error: {{.*}}indirect-call-foreign-function.c:[[@LINE+1]]:{{[0-9]+}}: indirect call through a function pointer of unknown origin reached a function that is none of
  double h = (b - a) / n, s = 0.5 * (f(a, p) + f(b, p));
  for (int i = 1; i < n; i++)
    s += f(a + i * h, p);
  return s * h;
}

// MEASURED: umbra: error: {{.*}}indirect-call-foreign-function.c:[[@LINE+2]]:{{[0-9]+}}: in function 'measured': no derivative rule for 'table_lookup' (reverse mode){{.*}}(reached through a function pointer of unknown origin, so this is an error when it runs)
// MEASURED-FWD: umbra: error: {{.*}}indirect-call-foreign-function.c:[[@LINE+1]]:{{[0-9]+}}: in function 'measured': no derivative rule for 'table_lookup' (forward mode){{.*}}(reached through a function pointer of unknown origin, so this is an error when it runs)
static double measured(double t, const double *p) { return table_lookup(t * p[0]); }
#endif
