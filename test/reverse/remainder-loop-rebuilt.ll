; A reduction unrolled by 2 with its remainder loop, in the shape clang gives every reduction
; at -O2 (gp_lml's inner products): the remainder's address counter j starts at a merge of 0
; (too short for the unrolled loop) and the unrolled loop's last i + 2. The adjoint rebuilds
; that start as a select on the guard, the unrolled loop's last value from its exit test
; (i + 2 == n & -2 leaves, so it is n & -2), and from them every address of the remainder:
; nothing is pushed per iteration, and no loop records its last counter value. What is still
; recorded is which way the final join was entered: the remainder loop is reached from both
; sides of the guard, which branch conditions alone cannot tell apart.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | grep -c "call ptr @umbra.tape.pop" | FileCheck --check-prefix=ONE-POP %s

declare void @__enzyme_autodiff(ptr, ...)

; s = sum of x[i]^2 for i < n
define double @f(ptr %x, i64 %n) {
entry:
  %n.vec = and i64 %n, -2
  %xtra = and i64 %n, 1
  %short = icmp ult i64 %n, 2
  br i1 %short, label %mid, label %vec.pre

vec.pre:
  br label %vec

vec:
  %i = phi i64 [ 0, %vec.pre ], [ %i.next, %vec ]
  %s = phi double [ 0.0, %vec.pre ], [ %s2, %vec ]
  %p0 = getelementptr inbounds double, ptr %x, i64 %i
  %a = load double, ptr %p0, align 8
  %aa = fmul double %a, %a
  %s1 = fadd double %s, %aa
  %p1 = getelementptr inbounds i8, ptr %p0, i64 8
  %b = load double, ptr %p1, align 8
  %bb = fmul double %b, %b
  %s2 = fadd double %s1, %bb
  %i.next = add nuw i64 %i, 2
  %done = icmp eq i64 %i.next, %n.vec
  br i1 %done, label %vec.exit, label %vec

vec.exit:
  %any = icmp ne i64 %xtra, 0
  br i1 %any, label %mid, label %exit

mid:
  %start = phi i64 [ 0, %entry ], [ %i.next, %vec.exit ]
  %s.mid = phi double [ 0.0, %entry ], [ %s2, %vec.exit ]
  br label %tail

tail:
  %j = phi i64 [ %start, %mid ], [ %j.next, %tail ]
  %k = phi i64 [ 0, %mid ], [ %k.next, %tail ]
  %t = phi double [ %s.mid, %mid ], [ %t1, %tail ]
  %pj = getelementptr inbounds double, ptr %x, i64 %j
  %c = load double, ptr %pj, align 8
  %cc = fmul double %c, %c
  %t1 = fadd double %t, %cc
  %j.next = add nuw i64 %j, 1
  %k.next = add nuw i64 %k, 1
  %tdone = icmp eq i64 %k.next, %xtra
  br i1 %tdone, label %exit, label %tail

exit:
  %r = phi double [ %s2, %vec.exit ], [ %t1, %tail ]
  ret double %r
}

define void @caller(ptr %x, ptr %dx, i64 %n) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, i64 %n)
  ret void
}

; CHECK-LABEL: define internal {{.*}} @augfwd.f.
; CHECK-NOT:     umbra.tape.push
; CHECK:         [[IDX:%[0-9]+]] = phi i32
; CHECK-NEXT:    [[T:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 4)
; CHECK-NEXT:    store i32 [[IDX]], ptr [[T]]
; CHECK-NEXT:    ret double

; The remainder's address counter j in the adjoint: its start, a select between 0 and the
; unrolled loop's last i + 2, which is n & -2 (the bound less the tested counter's start, 0,
; plus the start of i, 0), plus the iterations counted down. The adjoint pops the one index
; and nothing else.
; CHECK-LABEL: define internal {{.*}} @adjoint.f.
; CHECK:         [[ITER:%[0-9]+]] = sdiv i64
; CHECK-NEXT:    [[SHORT:%[0-9]+]] = icmp ult i64 %n, 2
; CHECK-NEXT:    [[NVEC:%[0-9]+]] = and i64 %n, -2
; CHECK-NEXT:    [[D:%[0-9]+]] = sub i64 [[NVEC]], 0
; CHECK-NEXT:    [[LAST:%[0-9]+]] = add i64 0, [[D]]
; CHECK-NEXT:    [[START:%[0-9]+]] = select i1 [[SHORT]], i64 0, i64 [[LAST]]
; CHECK-NEXT:    [[STEPS:%[0-9]+]] = mul i64 [[ITER]], 1
; CHECK-NEXT:    [[J:%[0-9]+]] = add i64 [[START]], [[STEPS]]
; CHECK-NEXT:    getelementptr inbounds double, ptr %x, i64 [[J]]
; CHECK:         ret void
; ONE-POP: {{^}}1{{$}}
