// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-CFLAGS: -ffast-math
// two-results.c under -ffast-math, where clang emits `sincos` as `llvm.sincos` (both results in
// a struct) besides `llvm.modf` and `llvm.frexp`.
#include "two-results.c"
