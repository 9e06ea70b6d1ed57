// RUN: %clang -O1 -fplugin=%clang-plugin -fplugin-arg-umbra-no-pass -c -emit-llvm %s -o %t.bc
// RUN: %umbra %t.bc --emit=llvm-ir -O0 -o - | FileCheck %s
// RUN: %clang -O0 -fplugin=%clang-plugin -fplugin-arg-umbra-no-pass -c -emit-llvm %s -o %t0.bc
// RUN: %umbra %t0.bc --emit=llvm-ir -O0 -o - | FileCheck %s
// Which globals get a shadow Umbra creates: those the differentiated code stores
// floating-point values into (state, hist), named like Enzyme's and internal; not a constant
// table, a mutable table only read, an integer counter, a pointer to constant data, a global
// only main writes, nor an inactive one (a zero sink only where a pointer choice mixes it with differentiable
// memory: global-implicit-shadow.c). Before
// each request the created shadows and sinks are zeroed.
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

// CHECK-DAG: @state_shadow = internal global double 0.000000e+00
// CHECK-DAG: @hist_shadow = internal global [3 x double] zeroinitializer
// CHECK-NOT: @coef_shadow
// CHECK-NOT: @table_shadow
// CHECK-NOT: @calls_shadow
// CHECK-NOT: @name_shadow
// CHECK-NOT: @set_by_main_shadow
// CHECK-NOT: @scratch_shadow
// CHECK-NOT: @scratch.umbra_sink
double state;
double hist[3];
static const double coef[3] = {1, 2, 3};
double table[3] = {4, 5, 6};
int calls;
const char *name = "f";
double set_by_main;
__attribute__((enzyme_inactive)) double scratch;

double f(const double *x) {
  calls++;
  for (int i = 0; i < 3; i++)
    hist[i] = x[i] * coef[i] * table[i] * set_by_main;
  state = hist[0] + hist[1] * hist[2];
  scratch = state;
  return state * (name[0] == 'f');
}

// CHECK-LABEL: define {{.*}}@main(
// CHECK: call void @llvm.memset.{{.*}}(ptr {{.*}}@hist_shadow, i8 0, i64 24
// CHECK-NEXT: call void @llvm.memset.{{.*}}(ptr {{.*}}@state_shadow, i8 0, i64 8
// CHECK: call {{.*}}@augfwd.f
int main(void) {
  double x[3] = {1, 2, 3}, dx[3] = {0};
  set_by_main = 2;
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  return dx[0] > 0;
}
