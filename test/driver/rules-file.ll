; --rules FILE (driver) and rules=FILE (plugin): a TOML file marks functions inactive and maps
; a function onto a built-in rule; a malformed file is a one-line error with its line number.
; RUN: printf 'inactive = ["trace"]\n[function_like]\nmy_exp = "exp"\n' > %t.toml
; RUN: %umbra %s --rules %t.toml -O0 -o - | FileCheck %s
; RUN: %opt-umbra '-passes=umbra<rules=%t.toml>' %s | FileCheck %s
; RUN: printf 'inactive = ["trace"]\nfunction_like = 3\n' > %t.bad.toml
; RUN: not %umbra %s --rules %t.bad.toml -o %t.o 2>&1 | FileCheck %s --check-prefix=BAD
; RUN: printf '[function_like]\nmy_exp = "no_such_rule"\n' > %t.unknown.toml
; RUN: not %umbra %s --rules %t.unknown.toml -o %t.o 2>&1 | FileCheck %s --check-prefix=UNKNOWN

declare double @trace(double)
declare double @__enzyme_fwddiff(ptr, ...)

define double @my_exp(double %x) noinline {
  %r = call double @llvm.exp.f64(double %x)
  ret double %r
}

define double @f(double %x) {
  %t = call double @trace(double %x)
  %e = call double @my_exp(double %x)
  ret double %e
}

define double @df(double %x) {
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)
  ret double %d
}

; The tangent of my_exp is my_exp's own result times the tangent (the exp rule), not a
; derivative of its body; trace is called in the primal only.
; CHECK-LABEL: define {{.*}}@fwddiffe.f.
; CHECK: call double @trace(
; CHECK: [[E:%.*]] = call double @my_exp(double
; CHECK-NOT: @fwddiffe.my_exp
; CHECK: fmul {{.*}}[[E]]
; BAD: umbra: error: {{.*}}bad.toml:2: bad rules file: invalid type
; UNKNOWN: umbra: error: 'my_exp' is declared function-like 'no_such_rule', but there is no built-in rule 'no_such_rule'
