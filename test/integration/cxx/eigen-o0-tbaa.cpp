// RUN: env EXTRA_CFLAGS="-Xclang -disable-llvm-passes" %exec-test %s driver 1 %t
// RUN: %clangxx -O1 -Xclang -disable-llvm-passes -fno-exceptions -I/usr/include/eigen3 -I %S/../../include -c -emit-llvm %s -o %t.bc
// RUN: opt -load-pass-plugin=%plugin -passes=umbra %t.bc -o %t.d.bc
// RUN: %clangxx %t.d.bc -lm -o %t.exe
// RUN: %t.exe
// EXEC-CFLAGS: -I/usr/include/eigen3 -fno-exceptions
// Eigen's fixed-size expressions unoptimised but with TBAA (`-O1 -Xclang
// -disable-llvm-passes`, Enzyme's "O0TBAA" runs of eigensumsq.cpp and friends). Two refusals
// stood in the way:
// - the module's type analysis did not settle: `derived()` returns its parameter and is called
//   on an expression and on its member 8 bytes in, and `MapBase` constructs its two empty
//   members at bytes 8 and 9 through one constructor, so one function context passed what it
//   learnt from each caller back to the other, shifted, a step further every round ("cannot
//   tell what type of data this call moves ... the module's type analysis did not settle");
//   call sites of a context that keeps climbing now get contexts of their own;
// - the default evaluator constructs its data member from a null pointer, passed constant, into
//   an evaluator that later holds the matrix's data ("pointer parameter 2 ... passed as
//   constant, has no shadow memory"); a null pointer the callee may store is now duplicated.
// Gradient and tangent against finite differences, through the driver and the plugin (opt:
// -disable-llvm-passes also leaves out clang's -fpass-plugin). (A row-column dot product in the same
// function, `diff.row(1).dot(diff.col(2))`, is still refused at this level: its
// Transpose<Block> copy moves memory the type analysis sees in conflict.)
#define EIGEN_DONT_VECTORIZE 1
#define EIGEN_UNROLLING_LIMIT 0
#include "fdcheck.h"
#include <Eigen/Dense>

extern "C" {
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
}
extern int enzyme_dup, enzyme_const;

typedef Eigen::Matrix<double, 3, 3> M3;

__attribute__((noinline)) static double loss(const M3 *__restrict W, const M3 *__restrict M) {
  M3 diff = *W - *M;
  return (diff * diff).sum();
}

static M3 fixed;
static double at(const double *x, void *c) {
  (void)c;
  M3 w;
  for (int i = 0; i < 9; i++) w.data()[i] = x[i];
  return loss(&w, &fixed);
}

int main() {
  M3 W, dW = M3::Zero(), V;
  for (int i = 0; i < 9; i++) {
    W.data()[i] = 0.3 * i - 1.0;
    fixed.data()[i] = 0.1 * i * i;
    V.data()[i] = 1.0 - 0.2 * i;
  }
  M3 dM = M3::Zero();
  __enzyme_autodiff((void *)loss, enzyme_dup, &W, &dW, enzyme_dup, &fixed, &dM);
  double fd[9];
  fd_grad(at, NULL, W.data(), 9, fd);
  fd_check_array("dW", dW.data(), fd, 9);
  M3 zero = M3::Zero();
  double t = __enzyme_fwddiff((void *)loss, enzyme_dup, &W, &V, enzyme_dup, &fixed, &zero);
  fd_check("tangent", t, fd_dir(at, NULL, W.data(), V.data(), 9));
  return fd_finish();
}
