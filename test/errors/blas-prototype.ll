; A BLAS routine declared with another prototype than cblas.h's (or the reference BLAS's for
; the Fortran interface) is an error naming the call and the parameters the rule expects, in
; both modes, with no output file. It used to stop the driver with an internal error ("index
; out of bounds" in the BLAS rule) and the plugin with a crash.
; RUN: rm -f %t.o
; RUN: not %umbra %s -o %t.o 2>&1 | FileCheck %s
; RUN: not test -e %t.o
; RUN: not %opt-umbra -passes=umbra %s -o /dev/null 2>&1 | FileCheck %s
; RUN: sed 's/@__enzyme_autodiff(ptr @f/@__enzyme_fwddiff(ptr @f/; /@__enzyme_autodiff(ptr @g/d' %s > %t.fwd.ll
; RUN: not %umbra %t.fwd.ll -o %t.o 2>&1 | FileCheck %s
; RUN: sed '/@__enzyme_autodiff(ptr @f/d' %s > %t.g.ll
; RUN: not %umbra %t.g.ll -o %t.o 2>&1 | FileCheck %s --check-prefix=FORTRAN
; RUN: not %opt-umbra -passes=umbra %t.g.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORTRAN
; CHECK: umbra: error: in function 'f': at '%d = call double @cblas_ddot(i32 3, ptr %x, i32 1)': 'cblas_ddot' is called with 3 arguments that do not match the BLAS routine's 5 parameters (n, x, incx, y, incy); declare it as cblas.h does
; CHECK-NOT: internal error

; A Fortran routine given a value where it takes a pointer.
; FORTRAN: umbra: error: in function 'g': at '%d = call double @ddot_(i32 3, ptr %x, ptr %one, ptr %x, ptr %one)': 'ddot_' is called with 5 arguments that do not match the BLAS routine's 5 parameters (n, x, incx, y, incy, each by pointer); declare it as the reference BLAS (f77blas.h) does

declare void @__enzyme_autodiff(ptr, ...)
declare void @__enzyme_fwddiff(ptr, ...)
declare double @cblas_ddot(i32, ptr, i32)
declare double @ddot_(i32, ptr, ptr, ptr, ptr)

define double @f(ptr %x) {
  %d = call double @cblas_ddot(i32 3, ptr %x, i32 1)
  ret double %d
}

define double @g(ptr %x) {
  %one = alloca i32
  store i32 1, ptr %one
  %d = call double @ddot_(i32 3, ptr %x, ptr %one, ptr %x, ptr %one)
  ret double %d
}

define void @caller(ptr %x, ptr %dx) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx)
  call void (ptr, ...) @__enzyme_autodiff(ptr @g, ptr %x, ptr %dx)
  ret void
}
