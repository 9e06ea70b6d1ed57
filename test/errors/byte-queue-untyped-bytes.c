// RUN: %clang -O2 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -c -emit-llvm -DTAIL_FIRST %s -o %t1.bc
// RUN: not %umbra %t1.bc -o %t.o 2>&1 | FileCheck %s
// A byte queue {char data[64]; long head, tail}: doubles go in and out as bytes at a variable
// offset, and the whole queue is copied. The type analysis knows only the two longs; the copy's
// other 64 bytes were taken to hold no floats, so their shadow was not moved and the gradient
// came out 0 0 instead of 4 3 at every level (found by a helper writing the type-hint tests).
// Bytes the analysis knows nothing about, where no padding can be, are now refused like a copy
// it knows nothing about (the data after the indices, with -DTAIL_FIRST, as well).
// CHECK: umbra: error: {{.*}}byte-queue-untyped-bytes.c:{{[0-9]+}}:{{[0-9]+}}: in function 'move_all': cannot tell what type of data bytes {{[0-9]+}}..{{[0-9]+}} of what this call moves hold{{.*}}__enzyme_double
#include <stdlib.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

#ifdef TAIL_FIRST
typedef struct { long head, tail; char data[64]; } Queue;
#else
typedef struct { char data[64]; long head, tail; } Queue;
#endif

__attribute__((noinline)) void push(Queue *q, const void *item, long size) {
  memcpy(q->data + q->tail, item, size);
  q->tail += size;
}
__attribute__((noinline)) void pop(Queue *q, void *item, long size) {
  memcpy(item, q->data + q->head, size);
  q->head += size;
}
__attribute__((noinline)) void move_all(Queue *to, const Queue *from) {
  memcpy(to, from, sizeof *from);
}

void f(const double *x, double *out) {
  Queue *q = malloc(sizeof(Queue)), *r = malloc(sizeof(Queue));
  q->head = q->tail = 0;
  push(q, x, 2 * sizeof(double));
  move_all(r, q);
  double y[2];
  pop(r, y, sizeof y);
  *out = y[0] * y[1];
  free(q);
  free(r);
}

void g(const double *x, double *dx, double *out, double *dout) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, out, dout);
}
