// RUN: %clang -O2 -g -fopenmp -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// RUN: %clang -O0 -g -fopenmp -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// OpenMP constructs Umbra does not mirror are clear errors naming the runtime call, never a
// gradient computed without the synchronisation the primal had: here a task
// (`__kmpc_omp_task_alloc`) in reverse mode; `ordered` is errors/openmp-ordered.c. (Dynamic
// and guided schedules, refused here before, are differentiated:
// integration/reverse/openmp-dynamic.c.)
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double sum_sq(const double *x, double *y, int n) {
  double s = 0;
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < n; i++) {
    // The error points at the task.
    // CHECK: openmp-unsupported.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}reverse mode cannot differentiate the OpenMP construct that calls '__kmpc_omp_task_alloc'{{.*}}dynamic and guided schedules
#pragma omp task firstprivate(i)
    y[i] = x[i] * x[i];
  }
  for (int i = 0; i < n; i++)
    s += y[i];
  return s;
}

int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0}, y[4], dy[4] = {0};
  __enzyme_autodiff((void *)sum_sq, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, 4);
  return dx[0] > 0;
}
