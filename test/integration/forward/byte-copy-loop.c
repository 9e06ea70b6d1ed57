// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Hand-written byte-wise copies (unsigned char accesses) of an array of doubles and of an array
// of structs holding doubles, an int and a pointer (issue 11, case 4), in forward mode: the
// tangent bytes travel with the primal bytes (a loop of i8 accesses at -O0, an unrolled byte
// sequence or a vectorised loop of <16 x i8> at -O2 and -O3).
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_fwddiff_v(void *, ...);

typedef struct {
  double w;
  int count;
  double v[2];
  const double *scale;
} Item;

__attribute__((noinline)) static void byte_copy(void *dst, const void *src, unsigned long n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  for (unsigned long k = 0; k < n; k++) d[k] = s[k];
}

__attribute__((noinline)) static void item_copy(void *dst, const void *src, unsigned long n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  for (unsigned long k = 0; k < n; k++) d[k] = s[k];
}

void loss(const double *x, const Item *in, double *out) {
  double t[4];
  byte_copy(t, x, sizeof t);
  Item it[2], one;
  item_copy(it, in, sizeof it);
  item_copy(&one, &in[1], sizeof one);
  double s = 0;
  for (int i = 0; i < 4; i++) s += t[i] * t[i] * (i + 1);
  for (int i = 0; i < 2; i++)
    s += it[i].w * (it[i].v[0] + 2 * it[i].v[1]) * it[i].count * *it[i].scale;
  s += one.w * one.v[1] * *one.scale;
  *out = s;
}

enum { NP = 4 + 3 * 2 + 1 };

static void unpack(const double *p, double *x, Item *it, double *sc) {
  for (int k = 0; k < 4; k++) x[k] = p[k];
  *sc = p[NP - 1];
  for (int i = 0; i < 2; i++) {
    it[i].w = p[4 + 3 * i];
    it[i].count = i + 2;
    it[i].v[0] = p[5 + 3 * i];
    it[i].v[1] = p[6 + 3 * i];
    it[i].scale = sc;
  }
}

static double loss_at(const double *p, void *ctx) {
  (void)ctx;
  double x[4], sc, out;
  Item it[2];
  unpack(p, x, it, &sc);
  loss(x, it, &out);
  return out;
}

int main(void) {
  double p[NP], dir[NP];
  for (int k = 0; k < NP; k++) {
    p[k] = 0.5 + 0.25 * k - (k % 3) * 0.4;
    dir[k] = 0.3 - 0.1 * k;
  }
  double x[4], dx[4], sc, dsc;
  Item in[2], din[2];
  unpack(p, x, in, &sc);
  memset(din, 0, sizeof din);
  unpack(dir, dx, din, &dsc);
  for (int i = 0; i < 2; i++) din[i].count = 0;
  double out, dout = 0;
  __enzyme_fwddiff_v((void *)loss, enzyme_dup, x, dx, enzyme_dup, in, din, enzyme_dup, &out,
                     &dout);
  fd_check("directional derivative", dout, fd_dir(loss_at, NULL, p, dir, NP));
  return fd_finish();
}
