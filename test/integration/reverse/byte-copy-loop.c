// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Under AddressSanitizer, whose checks put blocks between a load and its store (the failing
// side ends in `unreachable`): the byte copy is still recognised (before: refused as a copy
// through an integer).
// RUN: env "EXTRA_CFLAGS=-fsanitize=address -mllvm -asan-stack=0" EXTRA_LDFLAGS=-fsanitize=address %exec-test %s driver 2 %t
// RUN: env "EXTRA_CFLAGS=-fsanitize=address -mllvm -asan-stack=0" EXTRA_LDFLAGS=-fsanitize=address %exec-test %s plugin 2 %t
// Hand-written byte-wise copies (unsigned char accesses, legal C) of an array of doubles and of
// an array of structs holding doubles, an int and a pointer (issue 11, case 4). The adjoint must
// move whole doubles with the bytes and the augmented sweep must copy the pointer's shadow
// bytes. Clang emits a loop of i8 accesses at -O0, a fully unrolled byte sequence at -O2 where
// the length is a constant (byte_copy), and a vectorised loop of <16 x i8> and <4 x i8>
// accesses behind overlap checks where it is not (item_copy, called with two lengths). Reverse
// mode refused all of them: "copies differentiable memory through an integer".
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff_v(void *, ...);

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

static double scale = 1.5;

// p: x[0..4], then (w, v0, v1) for each item, then the scale.
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
  double p[NP], fd[NP], ad[NP];
  for (int k = 0; k < NP; k++) p[k] = 0.5 + 0.25 * k - (k % 3) * 0.4;
  double x[4], dx[4] = {0}, sc;
  Item in[2], din[2];
  unpack(p, x, in, &sc);
  memset(din, 0, sizeof din);
  double dsc = 0;
  for (int i = 0; i < 2; i++) din[i].scale = &dsc;
  double out, dout = 1;
  __enzyme_autodiff_v((void *)loss, enzyme_dup, x, dx, enzyme_dup, in, din, enzyme_dup, &out,
                      &dout);
  for (int k = 0; k < 4; k++) ad[k] = dx[k];
  for (int i = 0; i < 2; i++) {
    ad[4 + 3 * i] = din[i].w;
    ad[5 + 3 * i] = din[i].v[0];
    ad[6 + 3 * i] = din[i].v[1];
    fd_check_exact("shadow count untouched", din[i].count, 0);
    fd_check_exact("shadow pointer untouched", din[i].scale == &dsc, 1);
  }
  ad[NP - 1] = dsc;
  fd_grad(loss_at, NULL, p, NP, fd);
  fd_check_array("d(x, w, v, scale)", ad, fd, NP);
  return fd_finish();
}
