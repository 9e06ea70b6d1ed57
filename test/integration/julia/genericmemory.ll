; Julia 1.11 memory (jl_alloc_genericmemory and jl_genericmemory_owner, as the `ijl_` names
; Julia emits), in a loop, in both modes. The shadow memory comes from the same call; its
; `length * elsz` data bytes are zeroed, with `elsz` read from the memory type's layout
; (`mtype->layout`, the sixth pointer of jl_datatype_t; `size` at 0 and the isboxed flag, bit 3
; of the flags at 18, of jl_datatype_layout_t). The owner of the shadow is asked of the shadow.
; Linked with the C stubs (new memory full of NaN bytes) and checked against finite differences.
;
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s --check-prefixes=FWD,REV
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s --check-prefixes=FWD,REV
; RUN: %umbra %s -O2 -o %t.driver.o
; RUN: %clang -O1 -I %testinc %t.driver.o %S/Inputs/julia-stubs.c -lm -o %t.driver.exe
; RUN: %t.driver.exe
; RUN: opt -load-pass-plugin=%plugin -passes='umbra<reopt=O2>' %s -o %t.plugin.bc
; RUN: %clang -O1 -I %testinc %t.plugin.bc %S/Inputs/julia-stubs.c -lm -o %t.plugin.exe
; RUN: %t.plugin.exe

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128-ni:10:11:12:13"

; The `Memory{Float64}` type object.
@jl_memory_float64_type = external global i8

declare i64 @ijl_get_world_counter()
declare noalias nonnull ptr addrspace(10) @ijl_alloc_genericmemory(ptr, i64)
declare nonnull ptr addrspace(10) @ijl_genericmemory_owner(ptr addrspace(10))
declare double @__enzyme_fwddiff(ptr, ...)
declare void @__enzyme_autodiff(ptr, ...)

; function f(x, n)
;     s = 0.0
;     for i in 1:n
;         m = Memory{Float64}(undef, 2)
;         d = owner(m).ptr              # m itself: it owns its data
;         d[1] = x[i] * x[i]
;         d[2] = d[1] * x[i] + length(m) * world counter   (2 * 1 in the stubs)
;         d[1] += d[2]
;         s += d[1] * d[2]
;     end
;     return s
; end
define double @julia_f(ptr %x, i64 %n) {
top:
  br label %loop

loop:
  %i = phi i64 [ 0, %top ], [ %i.next, %loop ]
  %s = phi double [ 0.000000e+00, %top ], [ %s.next, %loop ]
  %w = call i64 @ijl_get_world_counter()
  %m = call noalias nonnull ptr addrspace(10) @ijl_alloc_genericmemory(ptr @jl_memory_float64_type, i64 2)
  %o = call nonnull ptr addrspace(10) @ijl_genericmemory_owner(ptr addrspace(10) %m)
  %o11 = addrspacecast ptr addrspace(10) %o to ptr addrspace(11)
  %pp = getelementptr inbounds i8, ptr addrspace(11) %o11, i64 8
  %d = load ptr, ptr addrspace(11) %pp, align 8
  %m11 = addrspacecast ptr addrspace(10) %m to ptr addrspace(11)
  %len = load i64, ptr addrspace(11) %m11, align 8
  %xp = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %xp, align 8
  %sq = fmul double %xi, %xi
  store double %sq, ptr %d, align 8
  %d1p = getelementptr inbounds double, ptr %d, i64 1
  %d0 = load double, ptr %d, align 8
  %lw = mul i64 %len, %w
  %lwf = sitofp i64 %lw to double
  %e = fmul double %d0, %xi
  %e1 = fadd double %e, %lwf
  store double %e1, ptr %d1p, align 8
  %d0b = load double, ptr %d, align 8
  %d1 = load double, ptr %d1p, align 8
  %d0n = fadd double %d0b, %d1
  store double %d0n, ptr %d, align 8
  %d0c = load double, ptr %d, align 8
  %t = fmul double %d0c, %d1
  %s.next = fadd double %s, %t
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret double %s.next
}

define double @tangent(ptr %x, ptr %dx, i64 %n) {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @julia_f, ptr %x, ptr %dx, i64 %n)
  ret double %r
}

define void @gradient(ptr %x, ptr %dx, i64 %n) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @julia_f, ptr %x, ptr %dx, i64 %n)
  ret void
}

; In both modes: the shadow memory from the same call, then `elsz` from the type's layout
; (boxed elements are pointer-sized), then `length * elsz` bytes zeroed at the shadow's `ptr`;
; the owner of the shadow is asked of the shadow.
; FWD-LABEL: define internal {{.*}} @fwddiffe.julia_f.dc{{.*}}(
; FWD:         %w = call i64 @ijl_get_world_counter()
; FWD-NEXT:    %m = call noalias nonnull ptr addrspace(10) @ijl_alloc_genericmemory(ptr @jl_memory_float64_type, i64 2)
; FWD-NEXT:    [[SM:%[0-9]+]] = call noalias nonnull ptr addrspace(10) @ijl_alloc_genericmemory(ptr @jl_memory_float64_type, i64 2)
; FWD-NEXT:    [[LAYOUT:%[0-9]+]] = load ptr, ptr getelementptr inbounds (i8, ptr @jl_memory_float64_type, i64 40), align 8
; FWD-NEXT:    [[SIZE:%[0-9]+]] = load i32, ptr [[LAYOUT]], align 4
; FWD-NEXT:    [[SIZE64:%[0-9]+]] = zext i32 [[SIZE]] to i64
; FWD-NEXT:    [[FP:%[0-9]+]] = getelementptr inbounds i8, ptr [[LAYOUT]], i64 18
; FWD-NEXT:    [[F:%[0-9]+]] = load i16, ptr [[FP]], align 2
; FWD-NEXT:    [[BOX:%[0-9]+]] = and i16 [[F]], 8
; FWD-NEXT:    [[ISBOX:%[0-9]+]] = icmp ne i16 [[BOX]], 0
; FWD-NEXT:    [[ELSZ:%[0-9]+]] = select i1 [[ISBOX]], i64 8, i64 [[SIZE64]]
; FWD-NEXT:    [[LEN:%[0-9]+]] = load i64, ptr addrspace(10) [[SM]], align 8
; FWD-NEXT:    [[PP:%[0-9]+]] = getelementptr inbounds i8, ptr addrspace(10) [[SM]], i64 8
; FWD-NEXT:    [[DATA:%[0-9]+]] = load ptr, ptr addrspace(10) [[PP]], align 8
; FWD-NEXT:    [[BYTES:%[0-9]+]] = mul i64 [[LEN]], [[ELSZ]]
; FWD-NEXT:    call void @llvm.memset.p0.i64(ptr align 1 [[DATA]], i8 0, i64 [[BYTES]], i1 false)
; FWD-NEXT:    %o = call nonnull ptr addrspace(10) @ijl_genericmemory_owner(ptr addrspace(10) %m)
; FWD-NEXT:    {{%[0-9]+}} = call nonnull ptr addrspace(10) @ijl_genericmemory_owner(ptr addrspace(10) [[SM]])
; FWD-NOT:     @ijl_get_world_counter
; FWD:         ret { double, double }
; REV-LABEL: define internal {{.*}} @augfwd.julia_f.dc{{.*}}(
; REV:         %w = call i64 @ijl_get_world_counter()
; REV-NEXT:    %m = call noalias nonnull ptr addrspace(10) @ijl_alloc_genericmemory(ptr @jl_memory_float64_type, i64 2)
; REV-NEXT:    [[SM:%[0-9]+]] = call noalias nonnull ptr addrspace(10) @ijl_alloc_genericmemory(ptr @jl_memory_float64_type, i64 2)
; REV-NEXT:    [[LAYOUT:%[0-9]+]] = load ptr, ptr getelementptr inbounds (i8, ptr @jl_memory_float64_type, i64 40), align 8
; REV-NEXT:    [[SIZE:%[0-9]+]] = load i32, ptr [[LAYOUT]], align 4
; REV-NEXT:    [[SIZE64:%[0-9]+]] = zext i32 [[SIZE]] to i64
; REV-NEXT:    [[FP:%[0-9]+]] = getelementptr inbounds i8, ptr [[LAYOUT]], i64 18
; REV-NEXT:    [[F:%[0-9]+]] = load i16, ptr [[FP]], align 2
; REV-NEXT:    [[BOX:%[0-9]+]] = and i16 [[F]], 8
; REV-NEXT:    [[ISBOX:%[0-9]+]] = icmp ne i16 [[BOX]], 0
; REV-NEXT:    [[ELSZ:%[0-9]+]] = select i1 [[ISBOX]], i64 8, i64 [[SIZE64]]
; REV-NEXT:    [[LEN:%[0-9]+]] = load i64, ptr addrspace(10) [[SM]], align 8
; REV-NEXT:    [[PP:%[0-9]+]] = getelementptr inbounds i8, ptr addrspace(10) [[SM]], i64 8
; REV-NEXT:    [[DATA:%[0-9]+]] = load ptr, ptr addrspace(10) [[PP]], align 8
; REV-NEXT:    [[BYTES:%[0-9]+]] = mul i64 [[LEN]], [[ELSZ]]
; REV-NEXT:    call void @llvm.memset.p0.i64(ptr align 1 [[DATA]], i8 0, i64 [[BYTES]], i1 false)
; REV-NEXT:    %o = call nonnull ptr addrspace(10) @ijl_genericmemory_owner(ptr addrspace(10) %m)
; REV-NEXT:    {{%[0-9]+}} = call nonnull ptr addrspace(10) @ijl_genericmemory_owner(ptr addrspace(10) [[SM]])
; REV-NOT:     @ijl_get_world_counter
; REV:         ret double
; The adjoint sweep releases nothing and calls nothing of the runtime.
; REV-LABEL: define internal void @adjoint.julia_f.dc.s(
; REV-NOT:     @ijl_
; REV-NOT:     @free(
; REV:         ret void
