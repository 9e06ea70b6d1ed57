; The caller's side of a gradient request: a zeroed tape, the augmented forward call, the
; adjoint call seeded with 1.0, the tape's buffer freed, and the 'out' adjoint extracted;
; markers and the request declaration go away.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)
@enzyme_dup = external global i32
@enzyme_const = external global i32
@enzyme_out = external global i32

; f(x, n, s) = x[0] * s
define double @f(ptr %x, i32 %n, double %s) {
entry:
  %v = load double, ptr %x, align 8
  %m = fmul double %v, %s
  ret double %m
}

define double @caller(ptr %x, ptr %dx, i32 %n, double %s, i1 %go) {
entry:
  br i1 %go, label %grad, label %done

grad:
  %md = load i32, ptr @enzyme_dup
  %mc = load i32, ptr @enzyme_const
  %mo = load i32, ptr @enzyme_out
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %md, ptr %x, ptr %dx, i32 %mc, i32 %n, i32 %mo, double %s)
  br label %done

done:
  %p = phi double [ %r, %grad ], [ 0.0, %entry ]
  ret double %p
}

; CHECK-NOT:   __enzyme_autodiff
; CHECK-NOT:   @enzyme_dup
; CHECK-NOT:   @enzyme_const
; CHECK-NOT:   @enzyme_out

; The primal is left as it was.
; CHECK-LABEL: define double @f(ptr %x, i32 %n, double %s) {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %v = load double, ptr %x, align 8
; CHECK-NEXT:    %m = fmul double %v, %s
; CHECK-NEXT:    ret double %m
; CHECK-NEXT:  }

; The tape and its first chunk (1 KiB, in this frame) are allocated at the top of the entry
; block and the tape is zeroed where the request was; the
; marker loads are gone; dup passes the pointer and its shadow, const the value alone, out the
; value (its adjoint comes back); the adjoint is seeded with 1.0; the tape's buffer is freed;
; the result is the 'out' adjoint.
; CHECK-LABEL: define double @caller(ptr %x, ptr %dx, i32 %n, double %s, i1 %go) {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %tape = alloca { ptr, i64, i64 }, align 8
; CHECK-NEXT:    %tape.stack = alloca [4096 x i8], align 16
; CHECK-NEXT:    br i1 %go, label %grad, label %done
; CHECK:       grad:
; CHECK-NEXT:    store { ptr, i64, i64 } zeroinitializer, ptr %tape, align 8
; CHECK-NEXT:    call void @umbra.tape.start(ptr %tape, ptr %tape.stack)
; CHECK-NEXT:    {{%[0-9]+}} = call double @augfwd.f.dca[[SFX:[.a-z]*]](ptr %tape, ptr %x, ptr %dx, i32 %n, double %s)
; CHECK-NEXT:    call void @umbra.tape.settle(ptr %tape, ptr @umbra.tape.hint)
; CHECK-NEXT:    [[ADJ:%[0-9]+]] = call { double } @adjoint.f.dca[[SFX]](ptr %tape, ptr %x, ptr %dx, i32 %n, double %s, double 1.000000e+00)
; CHECK-NEXT:    call void @umbra.tape.free(ptr %tape)
; CHECK-NEXT:    [[DS:%[0-9]+]] = extractvalue { double } [[ADJ]], 0
; CHECK-NEXT:    br label %done
; CHECK:       done:
; CHECK-NEXT:    %p = phi double [ [[DS]], %grad ], [ 0.000000e+00, %entry ]
; CHECK-NEXT:    ret double %p

; The derived pair's signatures: tape first, each dup followed by its shadow (d.<name>), the
; adjoint taking dret last and returning the 'out' adjoints as a struct.
; CHECK-LABEL: define internal double @augfwd.f.dca{{[.a-z]*}}(ptr %tape, ptr %x, ptr %d.x, i32 %n, double %s)
; CHECK-NEXT:    %v = load double, ptr %x, align 8
; CHECK-NEXT:    %m = fmul double %v, %s
; CHECK-NEXT:    ret double %m

; CHECK-LABEL: define internal { double } @adjoint.f.dca{{[.a-z]*}}(ptr %tape, ptr %x, ptr %d.x, i32 %n, double %s, double %dret)
; m = v * s: adj(s) += v * d, with v replayed from x (memory is stable between the sweeps);
; adj(v) += d * s goes into shadow(x).
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SM:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SM]]
; CHECK-NEXT:    [[D:%[0-9]+]] = load double, ptr [[SM]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SM]]
; CHECK-NEXT:    [[V:%[0-9]+]] = load double, ptr %x, align 8
; CHECK-NEXT:    [[T1:%[0-9]+]] = fmul double [[D]], %s
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SV:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc double [[O1]], [[T1]]
; CHECK-NEXT:    store double [[N1]], ptr [[SV]]
; CHECK-NEXT:    [[T2:%[0-9]+]] = fmul double [[V]], [[D]]
; CHECK-NEXT:    [[O2:%[0-9]+]] = load double, ptr [[SS:%[0-9]+]]
; CHECK-NEXT:    [[N2:%[0-9]+]] = fadd reassoc double [[O2]], [[T2]]
; CHECK-NEXT:    store double [[N2]], ptr [[SS]]
; CHECK-NEXT:    [[DV:%[0-9]+]] = load double, ptr [[SV]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SV]]
; CHECK-NEXT:    [[O3:%[0-9]+]] = load double, ptr %d.x, align 8
; CHECK-NEXT:    [[N3:%[0-9]+]] = fadd double [[O3]], [[DV]]
; CHECK-NEXT:    store double [[N3]], ptr %d.x, align 8
; CHECK:       exit:
; CHECK-NEXT:    [[AS:%[0-9]+]] = load double, ptr [[SS]]
; CHECK-NEXT:    [[ASZ:%[0-9]+]] = fadd double [[AS]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double } poison, double [[ASZ]], 0
