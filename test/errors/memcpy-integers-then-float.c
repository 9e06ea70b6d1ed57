// RUN: %clang -O1 -g -I %testinc -c -emit-llvm %s -o %t1.bc
// RUN: %umbra %t1.bc -o %t1.o
// RUN: %clang %t1.o -lm -o %t1.exe
// RUN: not --crash %t1.exe 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -I %testinc -c -emit-llvm %s -o %t2.bc
// RUN: %umbra %t2.bc -o %t2.o
// RUN: %clang %t2.o -lm -o %t2.exe
// RUN: not --crash %t2.exe 2>&1 | FileCheck %s
// RUN: %clang -O3 -g -I %testinc -fpass-plugin=%plugin %s -lm -o %t3p.exe
// RUN: not --crash %t3p.exe 2>&1 | FileCheck %s
// A byte copy of a length known only at run time into integers followed by a double (like a
// short std::string's characters copied into a map's node, issue 29): the type analysis finds
// integers in the first 16 bytes and a double after them, so the copy moves no adjoint while it
// copies at most 16 bytes (the gradient is checked against finite differences) and a longer one
// stops the program naming the copy, before its adjoint could be lost.
#include "fdcheck.h"
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

struct rec {
  long id, tag;
  double w;
};

// Not static: no caller's constant reaches the length.
__attribute__((noinline)) void set_head(struct rec *r, const char *s, unsigned long n) {
  memcpy(r, s, n);
}

double f(struct rec *r, const char *s, unsigned long n) {
  set_head(r, s, n);
  return r->w * r->w * (1 + (r->id & 1) + (r->tag & 2));
}

static const char text[32] = "abcdefghijklmnopqrstuvwxyz";
static unsigned long bytes;
static double f_at(const double *x, void *c) {
  (void)c;
  struct rec r = {0, 0, x[0]};
  return f(&r, text, bytes);
}

int main(void) {
  struct rec r = {0, 0, 1.5}, dr = {0, 0, 0};
  bytes = 8;
  __enzyme_autodiff((void *)f, enzyme_dup, &r, &dr, enzyme_const, text, enzyme_const, bytes);
  double x = 1.5, fd;
  fd_grad(f_at, NULL, &x, 1, &fd);
  // CHECK: ok 8 bytes: dw
  fd_check("8 bytes: dw", dr.w, fd);
  fflush(stdout);
  r.w = 1.5, r.id = r.tag = 0, dr.w = 0, bytes = 24;
  __enzyme_autodiff((void *)f, enzyme_dup, &r, &dr, enzyme_const, text, enzyme_const, bytes);
  // CHECK: error: {{.*}}memcpy-integers-then-float.c:{{[0-9]+}}:{{[0-9]+}}: in function 'set_head': copies more than 16 bytes, past the integer data the type analysis found at its start
  // CHECK-NOT: ok 24 bytes
  fd_check("24 bytes: dw", dr.w, 0);
  return fd_finish();
}
