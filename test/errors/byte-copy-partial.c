// RUN: %clang -O0 -g -I %testinc -c -emit-llvm %s -o %t0.bc
// RUN: %umbra %t0.bc -o %t0.o
// RUN: %clang %t0.o -lm -o %t0.exe
// RUN: not --crash %t0.exe end 2>&1 | FileCheck %s --check-prefixes=WHOLE,END
// RUN: not --crash %t0.exe start 2>&1 | FileCheck %s --check-prefixes=WHOLE,START
// RUN: %clang -O1 -g -I %testinc -c -emit-llvm %s -o %t1.bc
// RUN: %umbra %t1.bc -o %t1.o
// RUN: %clang %t1.o -lm -o %t1.exe
// RUN: not --crash %t1.exe end 2>&1 | FileCheck %s --check-prefixes=WHOLE,END
// RUN: not --crash %t1.exe start 2>&1 | FileCheck %s --check-prefixes=WHOLE,START
// RUN: %clang -O2 -g -I %testinc -c -emit-llvm %s -o %t2.bc
// RUN: %umbra %t2.bc -o %t2.o
// RUN: %clang %t2.o -lm -o %t2.exe
// RUN: not --crash %t2.exe end 2>&1 | FileCheck %s --check-prefixes=WHOLE,END
// RUN: not --crash %t2.exe start 2>&1 | FileCheck %s --check-prefixes=WHOLE,START
// RUN: %clang -O3 -g -I %testinc -c -emit-llvm %s -o %t3.bc
// RUN: %umbra %t3.bc -o %t3.o
// RUN: %clang %t3.o -lm -o %t3.exe
// RUN: not --crash %t3.exe end 2>&1 | FileCheck %s --check-prefixes=WHOLE,END
// RUN: not --crash %t3.exe start 2>&1 | FileCheck %s --check-prefixes=WHOLE,START
// RUN: %clang -O0 -g -I %testinc -fpass-plugin=%plugin %s -lm -o %t0p.exe
// RUN: not --crash %t0p.exe end 2>&1 | FileCheck %s --check-prefixes=WHOLE,END
// RUN: not --crash %t0p.exe start 2>&1 | FileCheck %s --check-prefixes=WHOLE,START
// RUN: %clang -O1 -g -I %testinc -fpass-plugin=%plugin %s -lm -o %t1p.exe
// RUN: not --crash %t1p.exe end 2>&1 | FileCheck %s --check-prefixes=WHOLE,END
// RUN: not --crash %t1p.exe start 2>&1 | FileCheck %s --check-prefixes=WHOLE,START
// RUN: %clang -O2 -g -I %testinc -fpass-plugin=%plugin %s -lm -o %t2p.exe
// RUN: not --crash %t2p.exe end 2>&1 | FileCheck %s --check-prefixes=WHOLE,END
// RUN: not --crash %t2p.exe start 2>&1 | FileCheck %s --check-prefixes=WHOLE,START
// RUN: %clang -O3 -g -I %testinc -fpass-plugin=%plugin %s -lm -o %t3p.exe
// RUN: not --crash %t3p.exe end 2>&1 | FileCheck %s --check-prefixes=WHOLE,END
// RUN: not --crash %t3p.exe start 2>&1 | FileCheck %s --check-prefixes=WHOLE,START
// A byte-wise copy loop (unsigned char accesses) in a helper that is not inlined, copying part
// of a double (issue 11): reverse mode moves the adjoint of every float a copied byte belongs
// to whole, so a copy whose length ends inside a double (12 bytes of doubles) or that starts
// inside one moved the double's whole adjoint, a silently wrong gradient (d/dx[1] was 3; finite
// differences say 0). The lengths and starts are known only at run time, so the derived code
// checks as it runs: whole doubles (lengths n * sizeof(double)) still differentiate, checked
// against finite differences, and a partial double stops the program with an error naming the
// copy, before any gradient is returned.
#include <string.h>
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) static void copy(void *dst, const void *src, unsigned long from,
                                           unsigned long to);

double f(const double *x, unsigned long from, unsigned long to) {
  double t[3] = {0.25, 0.5, 0.75};
  copy(t, x, from, to);
  return t[0] * t[0] + 3 * t[1] + t[2] * t[1];
}

// Read at run time, so that no length is a constant the compiler could see.
static volatile unsigned long first = 0, count = 3;
static unsigned long from_, to_;
static double f_at(const double *p, void *ctx) {
  (void)ctx;
  return f(p, from_, to_);
}

static void gradient(unsigned long from, unsigned long to) {
  double x[3] = {0.5, -1.25, 2.0}, dx[3] = {0}, fd[3];
  from_ = from, to_ = to;
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, from, enzyme_const, to);
  fd_grad(f_at, NULL, x, 3, fd);
  fd_check_array("dx", dx, fd, 3);
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  // Whole doubles: all three, the first two, the last two.
  gradient(first, count * sizeof(double));
  gradient(first, (count - 1) * sizeof(double));
  gradient(first + sizeof(double), count * sizeof(double));
  printf("whole: %d of %d checks failed\n", fd_failures_, fd_checks_);
  // WHOLE: whole: 0 of 9 checks failed
  if (argc > 1 && strcmp(argv[1], "end") == 0)
    gradient(first, count * sizeof(double) - 12); /* 12 bytes: a double and a half */
  else
    gradient(first + 4, count * sizeof(double)); /* from the middle of x[0] */
  printf("not reached\n");
  return 0;
}

static void copy(void *dst, const void *src, unsigned long from, unsigned long to) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  for (unsigned long k = from; k < to; k++) d[k] = s[k];
}
// END: byte-copy-partial.c:[[@LINE-2]]:{{[0-9]+}}: in function 'copy': this byte-wise copy copied only part of a floating-point value (or a float's bytes out of order); reverse mode moves each float's adjoint whole and cannot differentiate part of one; copy whole elements (a length that is a multiple of the element size, from the start of an element) or use memcpy
// START: byte-copy-partial.c:[[@LINE-3]]:{{[0-9]+}}: in function 'copy': this byte-wise copy copied only part of a floating-point value
// WHOLE-NOT: not reached
