// RUN: not %clang -fplugin=%clang-plugin -fplugin-arg-umbra-no-pass -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -fplugin=%clang-plugin -fplugin-arg-umbra-no-pass -DVALID -Werror -c %s -o %t.o
// Enzyme's enzyme_sparse_accumulate (Sparse/matrix.h) through Umbra's clang plugin: accepted on
// a function without a warning (it steers Enzyme's sparsity optimisation, which Umbra does not
// have), misplaced or given arguments it is diagnosed like the plugin's other attributes.
__attribute__((enzyme_sparse_accumulate)) void store_entry(long row, long col, double v) {
  (void)row, (void)col, (void)v;
}
#ifndef VALID
// CHECK: sparse-accumulate-attribute.c:[[@LINE+1]]:{{[0-9]+}}: warning: 'enzyme_sparse_accumulate' attribute only applies to functions
__attribute__((enzyme_sparse_accumulate)) int counter;
// CHECK: sparse-accumulate-attribute.c:[[@LINE+1]]:{{[0-9]+}}: error: 'enzyme_sparse_accumulate' attribute takes no arguments
__attribute__((enzyme_sparse_accumulate(1))) void other(void) {}
#endif
