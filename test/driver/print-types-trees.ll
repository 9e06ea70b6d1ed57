; --print-types also prints the type trees the differentiation used: for each parameter and
; return value, byte offset -> float format / integer / pointer (what a pointer points to after
; "->", "every N" for a pattern repeating every N bytes), and each integer that carries float
; bits. A helper that only memcpys learns its layout from its caller (issue 11, case 3); the
; union-style integer fabs is float data (case 2).
; RUN: %umbra %s --print-types --emit=llvm-ir -O0 -o %t.ll 2>&1 | FileCheck %s
; RUN: %opt-umbra '-passes=umbra<print-types>' %s -o %t.opt.ll 2>&1 | FileCheck %s

%Item = type { double, i32, [3 x double], ptr }

declare void @__enzyme_autodiff(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define internal void @copy(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  ret void
}

define internal double @scaled(double %x) {
  %b = bitcast double %x to i64
  %a = and i64 %b, 9223372036854775807
  %r = bitcast i64 %a to double
  ret double %r
}

define void @f(ptr %in, ptr %out, i64 %i) {
  %t = alloca [3 x %Item]
  call void @copy(ptr %t, ptr %in, i64 144)
  %p = getelementptr inbounds %Item, ptr %t, i64 %i, i32 2, i64 1
  %v = load double, ptr %p
  %w = call double @scaled(double %v)
  store double %w, ptr %out
  ret void
}

define void @caller(ptr %in, ptr %din, ptr %out, ptr %dout) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %in, ptr %din, ptr %out, ptr %dout, i64 1)
  ret void
}

; CHECK-LABEL: type trees of @f:
; CHECK-NEXT:    param %in: {0: pointer -> {0: double, 8: integer, 16: double, 24: double, 32: double, 40: pointer every 48}}
; CHECK-NEXT:    param %out: {0: pointer -> {0: double}}
; CHECK-NEXT:    param %i: {0: integer}
; CHECK-LABEL: type trees of @scaled:
; CHECK-NEXT:    param %x: {0: double}
; CHECK-NEXT:    return: {0: double}
; CHECK-NEXT:    float bits: %b = bitcast double %x to i64: {0: double}
; CHECK-NEXT:    float bits: %a = and i64 %b, 9223372036854775807: {0: double}
; CHECK-LABEL: memory types of @copy in @augfwd.copy.ddc:
; CHECK-NEXT:    call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false): elements of 48 bytes with floats at {0: double, 16: double, 24: double, 32: double} and pointers at [40] (from the type analysis)
; CHECK-NEXT:  type trees of @copy:
; CHECK-NEXT:    param %d: {0: pointer -> {0: double, 8: integer, 16: double, 24: double, 32: double, 40: pointer every 48}}
; CHECK-NEXT:    param %s: {0: pointer -> {0: double, 8: integer, 16: double, 24: double, 32: double, 40: pointer every 48}}
; CHECK-NEXT:    param %n: {0: integer}
