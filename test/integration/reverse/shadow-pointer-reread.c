// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: %clang -O2 -c -emit-llvm %s -I%testinc -o %t.bc
// RUN: %umbra %t.bc --tape-report -o %t.o 2>&1 | FileCheck %s
// RUN: opt -load-pass-plugin=%plugin '-passes=umbra<tape-report>' %t.bc -o %t.opt.bc 2>&1 | FileCheck %s
// The shadow of a pointer loaded in a loop is read again from shadow memory where the pointer
// load can be read again (issue 27: it was taped per iteration, 16 bytes here), and taped where
// the pointer is overwritten before the adjoint: `reread` against `repoint`, which points
// every box at other memory after reading through it (the first loop's adjoint must add into
// the old shadows, not the new ones), against finite differences.
// CHECK-LABEL: tape of @augfwd.reread
// CHECK-NOT: shadow of
// CHECK-LABEL: tape of @augfwd.repoint
// CHECK: per iteration of the loop
// CHECK: shadow of {{.*}} = load ptr
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

typedef struct {
  double *p;
  int n;
} box;

enum { N = 6 };

__attribute__((noinline)) double reread(box **bs, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double *p = bs[i]->p;
    s += p[0] * p[0] * p[1];
  }
  return s;
}

__attribute__((noinline)) double repoint(box **bs, double **alt, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double *p = bs[i]->p;
    s += p[0] * p[0] * p[1];
  }
  for (int i = 0; i < n; i++) bs[i]->p = alt[i];
  for (int i = 0; i < n; i++) {
    double *p = bs[i]->p;
    s += 3.0 * p[0] * p[1] * p[1];
  }
  return s;
}

static double vals[2 * N][2], dvals[2 * N][2];
static box boxes[N], dboxes[N];
static box *bp[N], *dbp[N];
static double *alt[N], *dalt[N];

static void setup(void) {
  for (int i = 0; i < N; i++) {
    boxes[i].p = vals[i], dboxes[i].p = dvals[i];
    boxes[i].n = dboxes[i].n = 2;
    bp[i] = &boxes[i], dbp[i] = &dboxes[i];
    alt[i] = vals[N + i], dalt[i] = dvals[N + i];
  }
}

static void init(void) {
  for (int k = 0; k < 2 * N; k++)
    for (int j = 0; j < 2; j++) vals[k][j] = 0.5 + 0.1 * k - 0.07 * j, dvals[k][j] = 0;
  setup();
}

static double reread_at(double v, void *ctx) {
  int k = *(int *)ctx;
  init();
  vals[k / 2][k % 2] = v;
  return reread(bp, N);
}

static double repoint_at(double v, void *ctx) {
  int k = *(int *)ctx;
  init();
  vals[k / 2][k % 2] = v;
  return repoint(bp, alt, N);
}

int main(void) {
  for (int k = 0; k < 2 * N; k++) {
    init();
    double x = vals[k / 2][k % 2];
    __enzyme_autodiff((void *)reread, enzyme_dup, bp, dbp, enzyme_const, N);
    double g = dvals[k / 2][k % 2];
    fd_check("reread", g, fd_deriv1(reread_at, &k, x));
  }
  for (int k = 0; k < 4 * N; k++) {
    init();
    double x = vals[k / 2][k % 2];
    __enzyme_autodiff((void *)repoint, enzyme_dup, bp, dbp, enzyme_dup, alt, dalt, enzyme_const,
                      N);
    double g = dvals[k / 2][k % 2];
    fd_check("repoint", g, fd_deriv1(repoint_at, &k, x));
  }
  return fd_finish();
}
