// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Without the hints the same program is refused: nothing types the buffers' bytes.
// RUN: %clang -DNO_HINTS -O0 -g -I %testinc -c -emit-llvm %s -o %t.nohint0.bc
// RUN: not %umbra %t.nohint0.bc -o %t.nohint0.o 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: %clang -DNO_HINTS -O2 -g -I %testinc -c -emit-llvm %s -o %t.nohint2.bc
// RUN: not %umbra %t.nohint2.bc -o %t.nohint2.o 2>&1 | FileCheck %s --check-prefix=REFUSED
// Enzyme's type hints __enzyme_double(p, n), __enzyme_float(p, n), __enzyme_integer(p, n) and
// __enzyme_pointer(p, n): the n bytes at p hold that type. Values (doubles, floats, pointers
// into x) go through byte buffers at offsets kept elsewhere, and a helper copies a whole buffer:
// no access anywhere says what its bytes are, so reverse mode could not tell where the adjoints
// (and the pointers' shadows) go ("cannot tell what type of data this call moves"; the hints were
// refused as unsupported entry points before). With the hints, the gradient matches central
// finite differences.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_double(void *, unsigned long);
void __enzyme_float(void *, unsigned long);
void __enzyme_integer(void *, unsigned long);
void __enzyme_pointer(void *, unsigned long);

typedef struct { char bytes[64]; } Blob;
typedef struct { long head, tail; } Cursor;

__attribute__((noinline)) void push(Blob *b, Cursor *c, const void *item, long size) {
  memcpy(b->bytes + c->tail, item, size);
  c->tail += size;
}
__attribute__((noinline)) void pop(Blob *b, Cursor *c, void *item, long size) {
  memcpy(item, b->bytes + c->head, size);
  c->head += size;
}
__attribute__((noinline)) void move_all(Blob *to, const Blob *from) {
  // REFUSED: type-hints.c:[[@LINE+1]]:{{[0-9]+}}: in function 'move_all': cannot tell what type of data this call moves
  memcpy(to, from, sizeof *from);
}

void loss(const double *x, const float *w, double *out) {
  Blob *q = malloc(sizeof(Blob)), *r = malloc(sizeof(Blob));
  Blob fq, fr, pq, pr;
  Cursor cq = {0, 0}, cr = {0, 0}, fc = {0, 0}, fd = {0, 0}, pc = {0, 0}, pd = {0, 0};
#ifndef NO_HINTS
  __enzyme_double(q, sizeof *q);
  __enzyme_float(&fq, sizeof fq);
  __enzyme_integer(&cq, sizeof cq);
  __enzyme_pointer(&pq, sizeof pq);
#endif
  push(q, &cq, x, 3 * sizeof(double));
  move_all(r, q);
  double y[3];
  pop(r, &cr, y, sizeof y);
  push(&fq, &fc, w, 2 * sizeof(float));
  move_all(&fr, &fq);
  float v[2];
  pop(&fr, &fd, v, sizeof v);
  // Pointers into x, moved as bytes too: their shadows must follow them.
  const double *p0 = x + 2, *p1;
  push(&pq, &pc, &p0, sizeof p0);
  move_all(&pr, &pq);
  pop(&pr, &pd, &p1, sizeof p1);
  *out = y[0] * y[1] + sin(y[2]) * v[0] + (double)v[1] * v[1] * y[0] + exp(*p1) * x[1];
  free(q);
  free(r);
}

static double at(const double *p, void *c) {
  (void)c;
  float w[2] = {(float)p[3], (float)p[4]};
  double out;
  loss(p, w, &out);
  return out;
}

int main(void) {
  double x[3] = {0.5, -1.25, 2.0}, dx[3] = {0, 0, 0};
  float w[2] = {1.5f, -0.75f}, dw[2] = {0, 0};
  double out, dout = 1;
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_dup, w, dw, enzyme_dup, &out, &dout);
  double p[5] = {x[0], x[1], x[2], w[0], w[1]}, g[5], gf[5];
  fd_grad(at, NULL, p, 5, g);
  fd_check_array("dx", dx, g, 3);
  // The floats' partials by the float step (w is rounded to float inside `at`).
  fd_grad_f(at, NULL, p, 5, gf);
  g[3] = gf[3];
  g[4] = gf[4];
  fd_check_f("dw[0]", dw[0], g[3]);
  fd_check_f("dw[1]", dw[1], g[4]);
  return fd_finish();
}
