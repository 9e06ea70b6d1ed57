; An error at an instruction LLVM prints over several lines (an invoke's `to label ... unwind
; label ...`, a switch's cases) quotes it on one line, through the driver and the plugin alike
; (the plugin's message spanned two lines, the driver's joined them with "; ").
; RUN: not %umbra %s -o %t.o 2>&1 | FileCheck %s
; RUN: not %opt-umbra -passes=umbra %s -o /dev/null 2>&1 | FileCheck %s
; CHECK: umbra: error: in function 'h': at '%y = invoke double @mystery(double %x) to label %ok unwind label %lp': {{.+}}

declare void @__enzyme_autodiff(ptr, ...)
declare i32 @__gxx_personality_v0(...)
declare double @mystery(double)

define double @h(double %x) personality ptr @__gxx_personality_v0 {
entry:
  %y = invoke double @mystery(double %x) to label %ok unwind label %lp
ok:
  ret double %y
lp:
  %l = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %l
}

define void @dh(double %x) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @h, double %x)
  ret void
}
