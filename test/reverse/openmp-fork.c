// RUN: %clang -O2 -fopenmp -c -emit-llvm %s -o %t.bc
// RUN: %umbra %t.bc --emit=llvm-ir -O0 -o - | FileCheck %s
// The shape of a differentiated OpenMP region: the augmented sweep allocates one tape per
// thread and forks the outlined function's augmented sweep; the adjoint asks for a team of
// the recorded size and forks the outlined function's adjoint on those tapes. In the outlined
// adjoint, the shared x's adjoint is added atomically, and the reduction's critical section
// takes a ticket and is reversed in the reverse of the order the threads ran it; derived
// reductions pass no reduce_func (no tree method).
void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double sum_sq(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

void grad(const double *x, double *dx, int n) {
  __enzyme_autodiff((void *)sum_sq, enzyme_dup, x, dx, enzyme_const, n);
}

// CHECK-DAG: call i32 @omp_get_max_threads()
// CHECK-DAG: call ptr @calloc(
// CHECK-DAG: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr {{.*}}, i32 {{[0-9]+}}, ptr @augfwd.sum_sq.omp_outlined{{.*}}.omp, ptr
// CHECK-DAG: call void @__kmpc_push_num_threads(
// CHECK-DAG: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr {{.*}}, i32 {{[0-9]+}}, ptr @adjoint.sum_sq.omp_outlined{{.*}}.omp, ptr
// CHECK-DAG: call i32 @__kmpc_reduce_nowait(ptr {{.*}}, i32 {{.*}}, i32 1, i64 8, ptr null, ptr null, ptr
// CHECK-DAG: atomicrmw fadd ptr {{.*}} monotonic
// CHECK-DAG: atomicrmw add ptr @umbra.omp.turn..gomp_critical_user_.reduction.var, i64 1
// CHECK-DAG: call void @umbra.omp.wait.turn(ptr @umbra.omp.turn..gomp_critical_user_.reduction.var,
// CHECK-DAG: call void @umbra.omp.reduce.release(ptr @umbra.omp.turn..gomp_critical_user_.reduction.var,
