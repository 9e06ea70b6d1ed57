// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// String streams, strings and a heap-allocated file buffer inside differentiated code, at every
// level: from -O1 on, clang inlines parts of their constructors and destructors, which store
// vtable and buffer pointers into the local stream object and call the library's members on it
// (`std::string::_M_create`, `std::ios_base::ios_base`, `basic_ios::init`) and its virtual
// functions through the vtable. Before, every local object got a shadow, so these calls looked
// like calls that receive a derivative: a compile-time error (Enzyme's cin.cpp from -O1 on,
// fbuff.cpp at every level). Now a local object whose memory no derivative can reach gets no
// shadow and the calls on it run in the primal only (analysis/primal_objects.rs).
// Real derivatives stay: a local struct of doubles that holds an active value, or that a
// user function given an active value writes into, is differentiated (`pair_terms`), against
// finite differences in both modes.
// EXEC-CFLAGS: -std=c++11
#include "fdcheck.h"
#include "umbra.h"
#include <fstream>
#include <sstream>
#include <string>

struct Pair {
  double a, b;
};

// A user function writing an active value into a local object whose own contents are
// constants: the object must keep its shadow.
__attribute__((noinline)) void accumulate(Pair *p, double v) {
  p->a += v * v;
  p->b *= v;
}

__attribute__((noinline)) double scaled(const Pair *p, double s) { return p->a * s + p->b; }

static double pair_terms(const double *x) {
  Pair held = {x[0], 2.0};  // holds an active value
  Pair consts = {1.0, 3.0}; // constants only, then written by `accumulate` with x[1]
  accumulate(&consts, x[1]);
  return scaled(&held, x[1]) + consts.a * consts.b;
}

__attribute__((noinline)) double f(const double *x) {
  // Numbers read from text: constants.
  std::stringstream in("14 1.5 somerandomextrachars");
  double a;
  float b;
  in >> a >> b;
  in.ignore();
  char ch;
  in.get(ch);
  // Output of an active value: consumed, no derivative comes back.
  std::ostringstream out;
  out << "x0 = " << x[0] << ", x1 = " << x[1];
  std::string text = out.str();
  // A heap-allocated buffer, released through its virtual destructor.
  std::filebuf *fb = new std::filebuf();
  char buffer[64];
  fb->pubsetbuf(buffer, sizeof buffer);
  delete fb;
  return x[0] * x[0] * a * b + x[1] * (text.size() > 10 ? 1.0 : 2.0) + pair_terms(x) +
         (ch == 's' ? x[0] : 0.0);
}

static double f_at(const double *p, void *) { return f(p); }

int main() {
  double x[2] = {0.7, -1.2};
  double fd[2];
  fd_grad(f_at, nullptr, x, 2, fd);
  double dx[2] = {0, 0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  fd_check_array("grad", dx, fd, 2);
  for (int k = 0; k < 2; k++) {
    double t[2] = {0, 0};
    t[k] = 1;
    fd_check("tangent", __enzyme_fwddiff((void *)f, enzyme_dup, x, t), fd[k]);
  }
  return fd_finish();
}
