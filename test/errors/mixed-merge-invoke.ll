; A phi of { double, ptr } structs whose incoming value is an invoke's result on its normal
; edge: the struct's fields cannot be taken in the invoke's block (they would come before the
; invoke defines it), so the phi is left whole and refused with the message for such values,
; naming the function and the instruction; never invalid IR. A phi merging ordinary calls'
; results is split per field (reverse/struct-return-merged.ll). The invoke is quoted on one
; line (LLVM prints it over two: the plugin's error spanned two lines, the driver's joined
; them with "; ").
; RUN: rm -f %t.o
; RUN: not %umbra %s -o %t.o 2>&1 | FileCheck %s
; RUN: test ! -e %t.o
; RUN: not %opt-umbra -passes=umbra %s -o /dev/null 2>&1 | FileCheck %s
; CHECK: umbra: error: in function 'h': at '%a = invoke { double, ptr } @f(ptr %p) to label %join unwind label %lp': reverse mode cannot differentiate a value that holds both pointers and floating-point data
; CHECK-NOT: umbra.out

declare void @__enzyme_autodiff(ptr, ...)
declare i32 @__gxx_personality_v0(...)

define { double, ptr } @f(ptr %p) noinline {
  %x = load double, ptr %p
  %r = insertvalue { double, ptr } poison, double %x, 0
  %r1 = insertvalue { double, ptr } %r, ptr %p, 1
  ret { double, ptr } %r1
}

define double @h(ptr %p, i1 %c) personality ptr @__gxx_personality_v0 {
entry:
  br i1 %c, label %call, label %join
call:
  %a = invoke { double, ptr } @f(ptr %p) to label %join unwind label %lp
join:
  %m = phi { double, ptr } [ %a, %call ], [ { double 0.0, ptr null }, %entry ]
  %v = extractvalue { double, ptr } %m, 0
  ret double %v
lp:
  %l = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %l
}

define void @dh(ptr %p, ptr %dp, i1 %c) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @h, ptr %p, ptr %dp, i1 %c)
  ret void
}
