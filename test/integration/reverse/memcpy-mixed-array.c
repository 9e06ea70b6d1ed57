// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 3 %t
// A non-inlined helper memcpys an array of mixed structs (a double, an int, three doubles and
// a pointer): the adjoint must move lane by lane at the float offsets and leave the int and
// pointer bytes alone (issue 11, case 3). The helper never touches the memory itself, so what it
// moves comes from the type analysis of its callers (it was refused: "cannot tell what type of
// data this call moves"). At -O3 the vectorizer reads a pointer field as the unused lane of a
// double pair, which must not make the layout conflict.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff_v(void *, ...);

typedef struct {
  double w;
  int count;
  double v[3];
  const double *scale;
} Item;

enum { N = 3 };

__attribute__((noinline)) static void copy_items(Item *dst, const Item *src, int n) {
  memcpy(dst, src, n * sizeof *src);
}

void loss(const Item *in, double *out) {
  Item tmp[N];
  copy_items(tmp, in, N);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += tmp[i].w * (tmp[i].v[0] + 2 * tmp[i].v[1] * tmp[i].v[2]) * tmp[i].count * *tmp[i].scale;
  *out = s;
}

static double scale = 1.5;

static void unpack(const double *p, Item *it) {
  for (int i = 0; i < N; i++) {
    it[i].w = p[4 * i];
    it[i].count = i + 1;
    for (int j = 0; j < 3; j++) it[i].v[j] = p[4 * i + 1 + j];
    it[i].scale = &scale;
  }
}

static double loss_at(const double *p, void *ctx) {
  (void)ctx;
  Item it[N];
  double out;
  unpack(p, it);
  loss(it, &out);
  return out;
}

int main(void) {
  double p[4 * N], fd[4 * N], ad[4 * N];
  for (int k = 0; k < 4 * N; k++) p[k] = 0.5 + 0.25 * k - (k % 3) * 0.4;
  Item in[N], din[N];
  unpack(p, in);
  memset(din, 0, sizeof din);
  double dscale = 0;
  for (int i = 0; i < N; i++) din[i].scale = &dscale;
  double out, dout = 1;
  __enzyme_autodiff_v((void *)loss, enzyme_dup, in, din, enzyme_dup, &out, &dout);
  for (int i = 0; i < N; i++) {
    ad[4 * i] = din[i].w;
    for (int j = 0; j < 3; j++) ad[4 * i + 1 + j] = din[i].v[j];
    fd_check_exact("shadow count untouched", din[i].count, 0);
    fd_check_exact("shadow pointer untouched", din[i].scale == &dscale, 1);
  }
  fd_grad(loss_at, NULL, p, 4 * N, fd);
  fd_check_array("d(w, v)", ad, fd, 4 * N);
  return fd_finish();
}
