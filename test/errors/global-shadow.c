// RUN: %clang -O1 -g -fplugin=%clang-plugin -fplugin-arg-umbra-no-pass -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O1 -g -fplugin=%clang-plugin -c %s -o %t2.o 2>&1 | FileCheck %s
// RUN: not %clang -O1 -fplugin=%clang-plugin -DBAD_TYPE -c %s -o %t3.o 2>&1 | FileCheck --check-prefix=TYPE %s
// RUN: not %clang -O1 -fplugin=%clang-plugin -DBAD_SCOPE -c %s -o %t4.o 2>&1 | FileCheck --check-prefix=SCOPE %s
// A global with a shadow holds one tangent: batched forward mode, which needs one per lane, is
// an error naming the global, not every lane reading the same tangent. The plugin refuses a
// shadow of another type, and a namespaced spelling whose argument clang drops.
extern int enzyme_width;
double __enzyme_fwddiff(void *, ...);

double d_scale;
__attribute__((enzyme_shadow(d_scale))) double scale = 2;

// CHECK: global-shadow.c:[[@LINE+1]]:{{[0-9]+}}: in function 'f': '@scale' points into a global with a shadow (enzyme_shadow), which holds one tangent: batched forward mode (width 2) needs one per lane
double f(double x) { return scale * x; }

typedef struct { double a, b; } pair;
pair __enzyme_fwddiff_pair(void *, ...);

pair tangents(double x) {
  return __enzyme_fwddiff_pair((void *)f, enzyme_width, 2, x, 1.0, 0.0);
}

#ifdef BAD_TYPE
float d_offset;
// TYPE: error: the shadow named by 'enzyme_shadow' must be another global of the same type
__attribute__((enzyme_shadow(d_offset))) double offset;
#endif
#ifdef BAD_SCOPE
// SCOPE: error: clang passes no arguments to a plugin attribute written with a scope: spell it __attribute__((enzyme_shadow(...))) or {{\[\[}}enzyme_shadow(...)]]
[[enzyme::shadow(d_scale)]] double other;
#endif
