; An untyped i64 copy of bytes the type analysis finds a pointer in (a tagged slot holding a
; pointer or a count, as a Rust enum's variants or a C union's members share bytes; no TBAA),
; from one offset to another: the forward sweep copies the shadow's bytes along, loaded from
; the shadow of the source and stored to the shadow of the destination, so that the later load
; of the pointer from the destination finds its shadow. Before, it was refused ("the type
; analysis found pointer data there"). test/errors/pointer-bits-clobbered.ll: refused when
; something may write the source in between.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)

; %s = {i64 tag, ptr-or-i64 payload}; %d = {ptr-or-i64 payload, i64 tag}
define double @f(ptr %x, ptr %s, ptr %d, i1 %which) {
entry:
  %sp = getelementptr inbounds i8, ptr %s, i64 8
  br i1 %which, label %ptr, label %count

ptr:
  store ptr %x, ptr %sp, align 8
  br label %copy

count:
  store i64 3, ptr %sp, align 8
  br label %copy

copy:
  %bits = load i64, ptr %sp, align 8
  %tmp = alloca i64, align 8
  store i64 0, ptr %tmp, align 8
  store i64 %bits, ptr %d, align 8
  %p = load ptr, ptr %d, align 8
  %v = load double, ptr %p, align 8
  %sq = fmul double %v, %v
  ret double %sq
}

; CHECK-LABEL: define internal {{.*}}@augfwd.f.
; CHECK:         %[[SSP:[0-9]+]] = getelementptr inbounds i8, ptr %d.s, i64 8
; CHECK:         store i64 %bits, ptr %d, align 8
; CHECK-NEXT:    %[[SB:[0-9]+]] = load i64, ptr %[[SSP]], align 8
; CHECK-NEXT:    store i64 %[[SB]], ptr %d.d, align 8
; CHECK:         %p = load ptr, ptr %d, align 8
; CHECK-NEXT:    load ptr, ptr %d.d, align 8

define void @caller(ptr %x, ptr %dx, ptr %s, ptr %ds, ptr %d, ptr %dd) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, ptr %s, ptr %ds, ptr %d, ptr %dd, i1 true)
  ret void
}
