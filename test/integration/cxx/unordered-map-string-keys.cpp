// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// std::unordered_map with std::string keys in differentiated code, both modes against finite
// differences (Enzyme's map.cpp and stl_umap.cpp, issue 29; like them, not std::map, whose
// insertion with a hint computes node pointers through integers: an error naming the cast). operator[] moves
// the key into the new node: a short key's characters are copied eight bytes at a time with
// `char`-typed loads and stores, and by a memcpy whose length (the key's) is known only at
// run time, into the node next to its double. Both move integer data (the type analysis sees
// the characters and the double after them); the memcpy is checked at run time to stay within
// the characters. Short literal keys only, up to fifteen characters (in the string's own
// buffer): a longer key, or one of a length unknown at compile time, may be allocated by
// std::string::_M_create, which libstdc++ keeps out of line and for which Umbra has no rule (an
// error naming it). -O0 is not run: under this C++17 the string's constructor from a pointer is
// a template defined in the module, whose body reaches the string's buffer management (an error
// naming `_M_local_data`); string-keys-o0.cpp runs -O0 under C++11.
#include "fdcheck.h"
#include "umbra.h"
#include <string>
#include <unordered_map>

enum { N = 6 };
// Literal keys: std::string's constructor from a pointer of unknown length would also hold
// the out-of-line allocation of a long string.
template <typename Map> static double through(const double *x) {
  Map m;
  m["x"] = x[0] * x[0];
  m["y1"] = x[1] * x[1];
  m["zed"] = x[2] * x[2];
  m["fifteen chars!!"] = x[3] * x[3];
  m["w"] = x[4] * x[4];
  m["k6"] = x[5] * x[5];
  m["x"] = m["x"] * m["fifteen chars!!"];
  m["sum"] = sin(m["x"]) + 2 * sin(m["y1"]) + 3 * sin(m["zed"]) +
             4 * sin(m["fifteen chars!!"]) + 5 * sin(m["w"]) + 6 * sin(m["k6"]);
  return m["sum"] + m["y1"] * x[5];
}

extern "C" __attribute__((noinline)) double hashed(const double *x) {
  return through<std::unordered_map<std::string, double>>(x);
}

typedef double (*Fn)(const double *);

static double at(const double *p, void *c) { return ((Fn)c)(p); }

static void check(const char *name, Fn f, const double *x, const double *dx, double t) {
  double fd[N];
  char label[64];
  fd_grad(at, (void *)f, x, N, fd);
  snprintf(label, sizeof label, "%s gradient", name);
  fd_check_array(label, dx, fd, N);
  double jv = 0;
  for (int i = 0; i < N; i++)
    jv += fd[i] * (0.3 - 0.05 * i);
  snprintf(label, sizeof label, "%s tangent", name);
  fd_check(label, t, jv);
}

#define CHECK(f)                                                                             \
  do {                                                                                       \
    double dx[N] = {0}, v[N];                                                                \
    for (int i = 0; i < N; i++)                                                              \
      v[i] = 0.3 - 0.05 * i;                                                                 \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx);                                         \
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v);                                \
    check(#f, f, x, dx, t);                                                                  \
  } while (0)

int main() {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.2 * i - 0.45;
  CHECK(hashed);
  return fd_finish();
}
