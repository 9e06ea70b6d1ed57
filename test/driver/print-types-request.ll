; --print-types shows each request's view of memory (issue 11): what the caller holds behind each
; pointer argument (here bytes filled from a constant global of doubles: the global's type
; says what they are) and what the function sees in the type context the request derives it
; in. The copy helper is also called on a struct holding a pointer and an int, so the request
; gets a context of its own instead of the helper's context 0.
; RUN: %umbra %s --print-types --emit=llvm-ir -O0 -o %t.ll 2>&1 | FileCheck %s
; RUN: %opt-umbra '-passes=umbra<print-types>' %s -o %t.opt.ll 2>&1 | FileCheck %s

%View = type { ptr, i32 }

@enzyme_dup = external global i32
@enzyme_const = external global i32
@init = private constant [2 x double] [double 1.5, double 2.5]

declare void @__enzyme_autodiff(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define internal void @copy(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  ret void
}

define i32 @use(ptr %v) {
  %w = alloca %View
  call void @copy(ptr %w, ptr %v, i64 16)
  %p = getelementptr inbounds %View, ptr %w, i32 0, i32 1
  %n = load i32, ptr %p
  ret i32 %n
}

define void @caller(ptr %dy, ptr %dx) {
  %x = alloca [16 x i8]
  call void @llvm.memcpy.p0.p0.i64(ptr %x, ptr @init, i64 16, i1 false)
  %y = alloca [16 x i8]
  %dup = load i32, ptr @enzyme_dup
  %const = load i32, ptr @enzyme_const
  call void (ptr, ...) @__enzyme_autodiff(ptr @copy, i32 %dup, ptr %y, ptr %dy, i32 %dup, ptr %x, ptr %dx, i32 %const, i64 16)
  ret void
}

; CHECK: request '__enzyme_autodiff' in @caller for @copy (context 1):
; CHECK-NEXT:   argument 1: caller holds {}
; CHECK-NEXT:   argument 1: @copy sees {0: double, 8: double}
; CHECK-NEXT:   argument 2: caller holds {0: double, 8: double}
; CHECK-NEXT:   argument 2: @copy sees {0: double, 8: double}
; CHECK: type trees of @copy (call-site context 1):
; CHECK-NEXT:   param %d: {0: pointer -> {0: double, 8: double}}
; CHECK-NEXT:   param %s: {0: pointer -> {0: double, 8: double}}
