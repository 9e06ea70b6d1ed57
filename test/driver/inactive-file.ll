; --inactive-file FILE (driver), inactive-file=FILE (plugin, in -passes and UMBRA_OPTIONS):
; Enzyme's --enzyme-load-inactive-file, one function name per line (blank lines and `#`
; comment lines say nothing; a name the module lacks is no error, as one list may serve every
; file of a program). Calls to the listed functions run in the primal only: f's tangent is
; 0 with both inactive, through mycos's derivative with mysin alone (each with a warning
; that a derivative flowing into an inactive function is dropped).
; An unreadable file is a one-line error.
; RUN: printf 'mysin\n\n# a comment\nmycos\nnot_in_this_module\n' > %t.both.list
; RUN: printf 'mysin\n' > %t.sin.list
; RUN: %umbra %s --inactive-file %t.both.list -O0 -o - | FileCheck %s --check-prefix=BOTH
; RUN: %opt-umbra '-passes=umbra<inactive-file=%t.both.list>' %s | FileCheck %s --check-prefix=BOTH
; RUN: env UMBRA_OPTIONS="inactive-file=%t.sin.list" %opt-umbra -passes=umbra %s | FileCheck %s --check-prefix=SIN
; RUN: %umbra %s --inactive-file=%t.sin.list -O0 -o - | FileCheck %s --check-prefix=SIN
; RUN: not %umbra %s --inactive-file %t.missing.list -o %t.o 2>&1 | FileCheck %s --check-prefix=MISSING
; RUN: not test -e %t.o

declare double @__enzyme_fwddiff(ptr, ...)
declare double @llvm.sin.f64(double)
declare double @llvm.cos.f64(double)

define double @mysin(double %x) noinline {
  %r = call double @llvm.sin.f64(double %x)
  ret double %r
}

define double @mycos(double %x) noinline {
  %r = call double @llvm.cos.f64(double %x)
  ret double %r
}

define double @f(double %x) {
  %s = call double @mysin(double %x)
  %c = call double @mycos(double %x)
  %p = fmul double %s, %c
  ret double %p
}

define double @df(double %x) {
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)
  ret double %d
}

; BOTH-LABEL: define {{.*}}@fwddiffe.f.
; BOTH-NOT: @fwddiffe.my
; BOTH: insertvalue { double, double } %{{.*}}, double 0.000000e+00, 1
; SIN-LABEL: define {{.*}}@fwddiffe.f.
; SIN-NOT: @fwddiffe.mysin
; SIN: call {{.*}}@fwddiffe.mycos
; MISSING: umbra: error: cannot read inactive-functions file '{{.*}}missing.list': No such file
