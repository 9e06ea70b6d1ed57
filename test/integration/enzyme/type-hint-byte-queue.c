// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 3 %t
// The byte queue of test/errors/byte-queue-untyped-bytes.c ({char data[64]; long head, tail},
// doubles in and out at variable offsets, the queue copied whole), which reverse mode refuses
// without help, with `__enzyme_double` saying what the data bytes hold: the gradient matches
// finite differences (it was silently 0 0 once, before such copies were refused).
#include "fdcheck.h"
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_double(void *, unsigned long);

typedef struct { char data[64]; long head, tail; } Queue;

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
  __enzyme_double(q->data, sizeof q->data);
  push(q, x, 3 * sizeof(double));
  move_all(r, q);
  double y[3];
  pop(r, y, sizeof y);
  *out = y[0] * y[1] + sin(y[2]);
  free(q);
  free(r);
}

static double f_at(const double *p, void *ctx) {
  (void)ctx;
  double o;
  f(p, &o);
  return o;
}

int main(void) {
  double x[3] = {3, 4, 0.5}, dx[3] = {0}, out, dout = 1, g[3];
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, &out, &dout);
  fd_grad(f_at, NULL, x, 3, g);
  fd_check_array("dx", dx, g, 3);
  return fd_finish();
}
