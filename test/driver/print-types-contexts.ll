; --print-types shows a helper's type trees once per call-site context: a generic copy helper
; called on doubles and on a struct holding a pointer and an int conflicts when its callers are
; merged (issue 11, per-call-site specialisation), so each call site gets its own context, and
; its own derived function (".t1"). A byte-wise copy loop makes both of its bases hold the same
; data.
; RUN: %umbra %s --print-types --emit=llvm-ir -O0 -o %t.ll 2>&1 | FileCheck %s
; RUN: %opt-umbra '-passes=umbra<print-types>' %s -o %t.opt.ll 2>&1 | FileCheck %s

%View = type { ptr, i32 }

declare void @__enzyme_autodiff(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define internal void @copy(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  ret void
}

define internal void @bytes(ptr %d, ptr %s, i64 %n) {
entry:
  br label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %k1, %loop ]
  %ps = getelementptr inbounds i8, ptr %s, i64 %k
  %b = load i8, ptr %ps
  %pd = getelementptr inbounds i8, ptr %d, i64 %k
  store i8 %b, ptr %pd
  %k1 = add i64 %k, 1
  %more = icmp ult i64 %k1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}

define double @f(ptr %x) {
  %t = alloca [2 x double]
  call void @copy(ptr %t, ptr %x, i64 16)
  %v = alloca %View
  store ptr %t, ptr %v
  %vn = getelementptr inbounds %View, ptr %v, i32 0, i32 1
  store i32 2, ptr %vn
  %w = alloca %View
  call void @copy(ptr %w, ptr %v, i64 16)
  %p = load ptr, ptr %w
  %a = load double, ptr %p
  %u = alloca [2 x double]
  call void @bytes(ptr %u, ptr %t, i64 16)
  %q = getelementptr inbounds double, ptr %u, i64 1
  %b = load double, ptr %q
  %r = fmul double %a, %b
  ret double %r
}

define void @caller(ptr %x, ptr %dx) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx)
  ret void
}

; CHECK-DAG: memory types of @copy in @augfwd.copy.ddc:
; CHECK-DAG: memory types of @copy in @augfwd.copy.ddc.t1:
; CHECK-DAG: type trees of @copy:
; CHECK-DAG:   param %d: {0: pointer -> {0: double, 8: double}}
; CHECK-DAG: type trees of @copy (call-site context 1):
; CHECK-DAG:   param %d: {0: pointer -> {0: pointer, 8: integer -> {0: double, 8: double}}}
; CHECK-DAG: type trees of @bytes:
; CHECK-DAG:   param %s: {0: pointer -> {0: double, 8: double}}
