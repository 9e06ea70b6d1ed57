// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Non-inlined helpers memcpy `n` mixed structs (a double, an int, three doubles and a pointer)
// with `n * sizeof(Item)`, and nothing in the module indexes the array with a variable (the
// reads of the copy are unrolled), so the type analysis knows the layout only at exact offsets
// up to the array's end, with no period (issue 25, item 4a; -O2 and -O3 refused: "not what
// repeats over a length that is not a constant"). copy_items is external, so its `n` may be
// anything: the length, a multiple of 48, and the known bytes repeating every 48 say the
// elements. copy_fixed is static and always called with 3: its length is the constant 144.
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

__attribute__((noinline)) void copy_items(Item *dst, const Item *src, int n) {
  memcpy(dst, src, n * sizeof(Item));
}

__attribute__((noinline)) static void copy_fixed(Item *dst, const Item *src, int n) {
  memcpy(dst, src, n * sizeof(Item));
}

#define TERM(it) ((it).w * ((it).v[0] + 2 * (it).v[1] * (it).v[2]) * (it).count * *(it).scale)

void loss(const Item *in, double *out) {
  Item tmp[N];
  copy_items(tmp, in, N);
  *out = TERM(tmp[0]) + TERM(tmp[1]) + TERM(tmp[2]);
}

void loss_fixed(const Item *in, double *out) {
  Item tmp[N];
  copy_fixed(tmp, in, N);
  *out = TERM(tmp[0]) - TERM(tmp[1]) + 0.5 * TERM(tmp[2]);
}

static double scale = 1.5;

static void unpack(const double *p, Item *it) {
  it[0] = (Item){p[0], 1, {p[1], p[2], p[3]}, &scale};
  it[1] = (Item){p[4], 2, {p[5], p[6], p[7]}, &scale};
  it[2] = (Item){p[8], 3, {p[9], p[10], p[11]}, &scale};
}

static double loss_at(const double *p, void *ctx) {
  Item it[N];
  double out;
  unpack(p, it);
  if (ctx)
    loss_fixed(it, &out);
  else
    loss(it, &out);
  return out;
}

// Fills `din` with the gradient of `f` at `p` and compares it with finite differences (`ctx`
// picks the function there). A macro: each request names its function.
#define CHECK(f, ctx, name)                                                                \
  do {                                                                                     \
    double fd[4 * N], ad[4 * N];                                                           \
    Item in[N], din[N];                                                                    \
    unpack(p, in);                                                                         \
    memset(din, 0, sizeof din);                                                            \
    double dscale = 0;                                                                     \
    for (int i = 0; i < N; i++) din[i].scale = &dscale;                                    \
    double out, dout = 1;                                                                  \
    __enzyme_autodiff_v((void *)f, enzyme_dup, in, din, enzyme_dup, &out, &dout);          \
    for (int i = 0; i < N; i++) {                                                          \
      ad[4 * i] = din[i].w;                                                                \
      for (int j = 0; j < 3; j++) ad[4 * i + 1 + j] = din[i].v[j];                         \
      fd_check_exact("shadow count untouched", din[i].count, 0);                           \
      fd_check_exact("shadow pointer untouched", din[i].scale == &dscale, 1);              \
    }                                                                                      \
    /* out is linear in the shared *scale: its pointer's shadow was copied along */       \
    fd_check(name, dscale, loss_at(p, ctx) / scale);                                       \
    fd_grad(loss_at, ctx, p, 4 * N, fd);                                                   \
    fd_check_array(name, ad, fd, 4 * N);                                                   \
  } while (0)

int main(void) {
  double p[4 * N];
  for (int k = 0; k < 4 * N; k++) p[k] = 0.5 + 0.25 * k - (k % 3) * 0.4;
  CHECK(loss, NULL, "d(w, v)");
  CHECK(loss_fixed, (void *)1, "d(w, v), constant length");
  return fd_finish();
}
