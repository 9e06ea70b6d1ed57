// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// A struct holding a data pointer (a view) copied by value into a heap copy: the copy is a
// memcpy, and the augmented sweep must copy the source's shadow pointer into the copy's shadow,
// or the adjoint writes through a null shadow (issue 15). The copy's float field is overwritten
// after the copy, so its adjoint must not flow back into the source's.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff_v(void *, ...);

typedef struct {
  long n;
  double *data;
  double scale;
} View;

__attribute__((noinline)) static double total(const View *v) {
  double s = 0;
  for (long i = 0; i < v->n; i++) s += v->scale * v->data[i] * v->data[i];
  return s;
}

void loss(const View *in, double *out) {
  View *c = malloc(sizeof *c);
  *c = *in;
  c->scale = 2;
  *out = total(c) + in->scale * in->data[0];
  free(c);
}

enum { N = 4 };
static double loss_at(const double *p, void *ctx) {
  (void)ctx;
  double data[N];
  for (int i = 0; i < N; i++) data[i] = p[i];
  View in = {N, data, p[N]};
  double out;
  loss(&in, &out);
  return out;
}

int main(void) {
  double p[N + 1] = {0.5, -1.25, 2.0, 0.75, 1.5}, fd[N + 1], ad[N + 1];
  double data[N], ddata[N] = {0};
  for (int i = 0; i < N; i++) data[i] = p[i];
  View in = {N, data, p[N]}, din = {0, ddata, 0};
  double out, dout = 1;
  __enzyme_autodiff_v((void *)loss, enzyme_dup, &in, &din, enzyme_dup, &out, &dout);
  for (int i = 0; i < N; i++) ad[i] = ddata[i];
  ad[N] = din.scale;
  fd_check_exact("shadow n untouched", din.n, 0);
  fd_check_exact("shadow data untouched", din.data == ddata, 1);
  fd_grad(loss_at, NULL, p, N + 1, fd);
  fd_check_array("d(data, scale)", ad, fd, N + 1);
  return fd_finish();
}
