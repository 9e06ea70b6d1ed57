; Julia 1.10 arrays (jl_alloc_array_1d/2d/3d, as the `ijl_` names Julia emits) and the world
; counter, in a loop, in both modes. Each allocation's shadow comes from the same call with the
; same arguments and has its `length * elsize` data bytes zeroed; the world counter stays an
; inactive primal call. The program is then linked with C stubs of the runtime, which fill new
; arrays with NaN bytes as an uninitialised bits-type array may hold: a shadow left unzeroed
; makes the gradient NaN. Derivatives are checked against finite differences.
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

; The type objects Julia passes as the first argument (addresses it bakes into the code).
@jl_array_float64_1d_type = external global i8
@jl_array_float64_2d_type = external global i8
@jl_array_float64_3d_type = external global i8

declare i64 @ijl_get_world_counter()
declare noalias nonnull ptr addrspace(10) @ijl_alloc_array_1d(ptr, i64)
declare noalias nonnull ptr addrspace(10) @ijl_alloc_array_2d(ptr, i64, i64)
declare noalias nonnull ptr addrspace(10) @ijl_alloc_array_3d(ptr, i64, i64, i64)
declare double @__enzyme_fwddiff(ptr, ...)
declare void @__enzyme_autodiff(ptr, ...)

; function f(x, n)
;     m = zeros(2, 2)                   # m[1] accumulates a sum
;     c = Array{Float64}(undef, 1, 2, 1); c[1] = 1.0  # c[1] a product
;     for i in 1:n
;         w = world counter             # 1 in the stubs
;         a = Vector{Float64}(undef, 3)
;         for k in 1:length(a); a[k] = x[i] * (k - 1 + w); end
;         a[2] += a[1] * a[3]
;         m[1] += a[2] * x[i]
;         c[1] *= 1 + 0.5 * x[i]
;     end
;     return m[1] + c[1]
; end
define double @julia_f(ptr %x, i64 %n) {
top:
  %m = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_2d(ptr @jl_array_float64_2d_type, i64 2, i64 2)
  %m11 = addrspacecast ptr addrspace(10) %m to ptr addrspace(11)
  %md = load ptr addrspace(13), ptr addrspace(11) %m11, align 8
  call void @llvm.memset.p13.i64(ptr addrspace(13) align 8 %md, i8 0, i64 32, i1 false)
  %c = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_3d(ptr @jl_array_float64_3d_type, i64 1, i64 2, i64 1)
  %c11 = addrspacecast ptr addrspace(10) %c to ptr addrspace(11)
  %cd = load ptr addrspace(13), ptr addrspace(11) %c11, align 8
  store double 1.000000e+00, ptr addrspace(13) %cd, align 8
  br label %loop

loop:
  %i = phi i64 [ 0, %top ], [ %i.next, %tail ]
  %w = call i64 @ijl_get_world_counter()
  %a = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_1d(ptr @jl_array_float64_1d_type, i64 3)
  %a11 = addrspacecast ptr addrspace(10) %a to ptr addrspace(11)
  %ad = load ptr addrspace(13), ptr addrspace(11) %a11, align 8
  %lenp = getelementptr inbounds i8, ptr addrspace(11) %a11, i64 8
  %len = load i64, ptr addrspace(11) %lenp, align 8
  %xp = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %xp, align 8
  br label %fill

fill:
  %k = phi i64 [ 0, %loop ], [ %k.next, %fill ]
  %kw = add i64 %k, %w
  %kf = sitofp i64 %kw to double
  %v = fmul double %xi, %kf
  %ap = getelementptr inbounds double, ptr addrspace(13) %ad, i64 %k
  store double %v, ptr addrspace(13) %ap, align 8
  %k.next = add nuw i64 %k, 1
  %more = icmp ult i64 %k.next, %len
  br i1 %more, label %fill, label %tail

tail:
  %a1p = getelementptr inbounds double, ptr addrspace(13) %ad, i64 1
  %a2p = getelementptr inbounds double, ptr addrspace(13) %ad, i64 2
  %a0 = load double, ptr addrspace(13) %ad, align 8
  %a1 = load double, ptr addrspace(13) %a1p, align 8
  %a2 = load double, ptr addrspace(13) %a2p, align 8
  %p = fmul double %a0, %a2
  %a1n = fadd double %a1, %p
  store double %a1n, ptr addrspace(13) %a1p, align 8
  %b = load double, ptr addrspace(13) %a1p, align 8
  %t = fmul double %b, %xi
  %mo = load double, ptr addrspace(13) %md, align 8
  %mn = fadd double %mo, %t
  store double %mn, ptr addrspace(13) %md, align 8
  %h = fmul double %xi, 5.000000e-01
  %g = fadd double %h, 1.000000e+00
  %co = load double, ptr addrspace(13) %cd, align 8
  %cn = fmul double %co, %g
  store double %cn, ptr addrspace(13) %cd, align 8
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  %mr = load double, ptr addrspace(13) %md, align 8
  %cr = load double, ptr addrspace(13) %cd, align 8
  %r = fadd double %mr, %cr
  ret double %r
}

declare void @llvm.memset.p13.i64(ptr addrspace(13), i8, i64, i1)

define double @tangent(ptr %x, ptr %dx, i64 %n) {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @julia_f, ptr %x, ptr %dx, i64 %n)
  ret double %r
}

define void @gradient(ptr %x, ptr %dx, i64 %n) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @julia_f, ptr %x, ptr %dx, i64 %n)
  ret void
}

; Forward mode: every allocation is followed by its shadow, made by the same call, whose
; `length * elsize` bytes at `data` are zeroed (header: data at 0, length at 8, elsize at 18).
; FWD-LABEL: define internal { double, double } @fwddiffe.julia_f.dc(ptr %x, ptr %d.x, i64 %n)
; FWD-NEXT:    %m = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_2d(ptr @jl_array_float64_2d_type, i64 2, i64 2)
; FWD-NEXT:    [[SM:%[0-9]+]] = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_2d(ptr @jl_array_float64_2d_type, i64 2, i64 2)
; FWD-NEXT:    [[D:%[0-9]+]] = load ptr, ptr addrspace(10) [[SM]], align 8
; FWD-NEXT:    [[LP:%[0-9]+]] = getelementptr inbounds i8, ptr addrspace(10) [[SM]], i64 8
; FWD-NEXT:    [[L:%[0-9]+]] = load i64, ptr addrspace(10) [[LP]], align 8
; FWD-NEXT:    [[EP:%[0-9]+]] = getelementptr inbounds i8, ptr addrspace(10) [[SM]], i64 18
; FWD-NEXT:    [[E:%[0-9]+]] = load i16, ptr addrspace(10) [[EP]], align 2
; FWD-NEXT:    [[E64:%[0-9]+]] = zext i16 [[E]] to i64
; FWD-NEXT:    [[BYTES:%[0-9]+]] = mul i64 [[L]], [[E64]]
; FWD-NEXT:    call void @llvm.memset.p0.i64(ptr align 1 [[D]], i8 0, i64 [[BYTES]], i1 false)
; FWD:         %c = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_3d(ptr @jl_array_float64_3d_type, i64 1, i64 2, i64 1)
; FWD-NEXT:    [[SC:%[0-9]+]] = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_3d(ptr @jl_array_float64_3d_type, i64 1, i64 2, i64 1)
; FWD-NEXT:    [[D:%[0-9]+]] = load ptr, ptr addrspace(10) [[SC]], align 8
; FWD:         call void @llvm.memset.p0.i64(ptr align 1 [[D]], i8 0, i64 {{%[0-9]+}}, i1 false)
; The world counter is an inactive call: it runs once, with nothing derived from it.
; FWD:         %w = call i64 @ijl_get_world_counter()
; FWD-NEXT:    %a = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_1d(ptr @jl_array_float64_1d_type, i64 3)
; FWD-NEXT:    [[SA:%[0-9]+]] = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_1d(ptr @jl_array_float64_1d_type, i64 3)
; FWD-NEXT:    [[D:%[0-9]+]] = load ptr, ptr addrspace(10) [[SA]], align 8
; FWD:         call void @llvm.memset.p0.i64(ptr align 1 [[D]], i8 0, i64 {{%[0-9]+}}, i1 false)
; FWD-NOT:     @ijl_get_world_counter
; FWD:         ret { double, double }

; Reverse mode: the augmented sweep allocates and zeroes shadows the same way ...
; REV-LABEL: define internal double @augfwd.julia_f.dc.s(ptr %tape, ptr %x, ptr %d.x, i64 %n)
; REV-NEXT:    %m = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_2d(ptr @jl_array_float64_2d_type, i64 2, i64 2)
; REV-NEXT:    [[SM:%[0-9]+]] = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_2d(ptr @jl_array_float64_2d_type, i64 2, i64 2)
; REV-NEXT:    [[D:%[0-9]+]] = load ptr, ptr addrspace(10) [[SM]], align 8
; REV:         call void @llvm.memset.p0.i64(ptr align 1 [[D]], i8 0, i64 {{%[0-9]+}}, i1 false)
; REV:         %c = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_3d(
; REV-NEXT:    [[SC:%[0-9]+]] = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_3d(
; REV-NEXT:    [[D:%[0-9]+]] = load ptr, ptr addrspace(10) [[SC]], align 8
; REV:         call void @llvm.memset.p0.i64(ptr align 1 [[D]], i8 0, i64 {{%[0-9]+}}, i1 false)
; REV:         %w = call i64 @ijl_get_world_counter()
; REV-NEXT:    %a = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_1d(ptr @jl_array_float64_1d_type, i64 3)
; REV-NEXT:    [[SA:%[0-9]+]] = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_1d(ptr @jl_array_float64_1d_type, i64 3)
; REV-NEXT:    [[D:%[0-9]+]] = load ptr, ptr addrspace(10) [[SA]], align 8
; REV:         call void @llvm.memset.p0.i64(ptr align 1 [[D]], i8 0, i64 {{%[0-9]+}}, i1 false)
; REV:         ret double
; ... and the adjoint sweep releases nothing (the collector owns both objects), calls nothing
; of the runtime, and does not query the world counter again.
; REV-LABEL: define internal void @adjoint.julia_f.dc.s(ptr %tape, ptr %x, ptr %d.x, i64 %n, double %dret)
; REV-NOT:     @ijl_
; REV-NOT:     @free(
; REV:         ret void
