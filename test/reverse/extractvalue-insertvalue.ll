; Aggregates: the adjoint of extractvalue is the adjoint placed at that index of a zero
; aggregate; the adjoint of insertvalue splits into the inserted element's part and the rest. g
; returns a struct, so its adjoint takes a struct dret.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare { double, double } @__enzyme_autodiff(ptr, ...)

; g(x, y) = { x * y, x - y }
define { double, double } @g(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  %s = fsub double %x, %y
  %a = insertvalue { double, double } poison, double %m, 0
  %b = insertvalue { double, double } %a, double %s, 1
  ret { double, double } %b
}

; f(x, y) = g.0 / g.1
define double @f(double %x, double %y) {
entry:
  %c = call { double, double } @g(double %x, double %y)
  %e0 = extractvalue { double, double } %c, 0
  %e1 = extractvalue { double, double } %c, 1
  %q = fdiv double %e0, %e1
  ret double %q
}

define { double, double } @caller(double %x, double %y) {
entry:
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %r
}

; f: g's result c cannot be rebuilt (a call), so it is kept in the frame (pushed at the
; return); e1 and q are rebuilt from it in the adjoint.
; CHECK-LABEL: define internal double @augfwd.f.aa{{[.a-z]*}}(ptr %tape, double %x, double %y)
; CHECK-NEXT:    %c = call { double, double } @augfwd.g.aa{{[.a-z]*}}(ptr %tape, double %x, double %y)
; CHECK-NEXT:    %e0 = extractvalue { double, double } %c, 0
; CHECK-NEXT:    %e1 = extractvalue { double, double } %c, 1
; CHECK-NEXT:    %q = fdiv double %e0, %e1
; CHECK-NEXT:    [[P1:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 16)
; CHECK-NEXT:    store { double, double } %c, ptr [[P1]]
; CHECK-NEXT:    ret double %q

; CHECK-LABEL: define internal { double, double } @adjoint.f.aa{{[.a-z]*}}(ptr %tape, double %x, double %y, double %dret)
; CHECK:       reverse:
; CHECK-NEXT:    [[TC:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 16)
; CHECK-NEXT:    [[C:%[0-9]+]] = load { double, double }, ptr [[TC]]
; CHECK:         [[S0:%[0-9]+]] = load double, ptr [[SQ:%[0-9]+]]
; CHECK-NEXT:    [[S1:%[0-9]+]] = fadd reassoc double [[S0]], %dret
; CHECK-NEXT:    store double [[S1]], ptr [[SQ]]
; CHECK-NEXT:    [[D:%[0-9]+]] = load double, ptr [[SQ]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SQ]]
; CHECK-NEXT:    [[E1:%[0-9]+]] = extractvalue { double, double } [[C]], 1
; CHECK-NEXT:    [[E0:%[0-9]+]] = extractvalue { double, double } [[C]], 0
; CHECK-NEXT:    [[Q:%[0-9]+]] = fdiv double [[E0]], [[E1]]
; q = e0 / e1: adj(e0) += d / e1; adj(e1) -= q (d / e1), sharing the division
; CHECK-NEXT:    [[T0Q:%[0-9]+]] = fdiv arcp double [[D]], [[E1]]
; CHECK-NEXT:    [[T0Z:%[0-9]+]] = fcmp oeq double [[D]], 0.000000e+00
; CHECK-NEXT:    [[T0:%[0-9]+]] = select i1 [[T0Z]], double 0.000000e+00, double [[T0Q]]
; CHECK-NEXT:    [[O0:%[0-9]+]] = load double, ptr [[SE0:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], [[T0]]
; CHECK-NEXT:    store double [[N0]], ptr [[SE0]]
; CHECK-NEXT:    [[QD:%[0-9]+]] = fmul double [[Q]], [[T0]]
; CHECK-NEXT:    [[QDEZ:%[0-9]+]] = fcmp oeq double [[D]], 0.000000e+00
; CHECK-NEXT:    [[QDE:%[0-9]+]] = select i1 [[QDEZ]], double 0.000000e+00, double [[QD]]
; CHECK-NEXT:    [[NQ:%[0-9]+]] = fneg arcp double [[QDE]]
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SE1:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc double [[O1]], [[NQ]]
; CHECK-NEXT:    store double [[N1]], ptr [[SE1]]
; e1 = extractvalue c, 1: adj(c) += { 0, de1 }, added field by field
; CHECK-NEXT:    [[DE1:%[0-9]+]] = load double, ptr [[SE1]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SE1]]
; CHECK-NEXT:    [[P1:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double [[DE1]], 1
; CHECK-NEXT:    [[C0:%[0-9]+]] = load { double, double }, ptr [[SC:%[0-9]+]]
; CHECK-NEXT:    [[C0A:%[0-9]+]] = extractvalue { double, double } [[C0]], 0
; CHECK-NEXT:    [[P1A:%[0-9]+]] = extractvalue { double, double } [[P1]], 0
; CHECK-NEXT:    [[SA:%[0-9]+]] = fadd double [[C0A]], [[P1A]]
; CHECK-NEXT:    [[C1:%[0-9]+]] = insertvalue { double, double } [[C0]], double [[SA]], 0
; CHECK-NEXT:    [[C0B:%[0-9]+]] = extractvalue { double, double } [[C0]], 1
; CHECK-NEXT:    [[P1B:%[0-9]+]] = extractvalue { double, double } [[P1]], 1
; CHECK-NEXT:    [[SB:%[0-9]+]] = fadd double [[C0B]], [[P1B]]
; CHECK-NEXT:    [[C2:%[0-9]+]] = insertvalue { double, double } [[C1]], double [[SB]], 1
; CHECK-NEXT:    store { double, double } [[C2]], ptr [[SC]]
; e0 = extractvalue c, 0: adj(c) += { de0, 0 }
; CHECK-NEXT:    [[DE0:%[0-9]+]] = load double, ptr [[SE0]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SE0]]
; CHECK-NEXT:    [[P0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double [[DE0]], 0
; CHECK-NEXT:    [[C3:%[0-9]+]] = load { double, double }, ptr [[SC]]
; CHECK-NEXT:    [[C3A:%[0-9]+]] = extractvalue { double, double } [[C3]], 0
; CHECK-NEXT:    [[P0A:%[0-9]+]] = extractvalue { double, double } [[P0]], 0
; CHECK-NEXT:    [[SA2:%[0-9]+]] = fadd double [[C3A]], [[P0A]]
; CHECK-NEXT:    [[C4:%[0-9]+]] = insertvalue { double, double } [[C3]], double [[SA2]], 0
; CHECK-NEXT:    [[C3B:%[0-9]+]] = extractvalue { double, double } [[C3]], 1
; CHECK-NEXT:    [[P0B:%[0-9]+]] = extractvalue { double, double } [[P0]], 1
; CHECK-NEXT:    [[SB2:%[0-9]+]] = fadd double [[C3B]], [[P0B]]
; CHECK-NEXT:    [[C5:%[0-9]+]] = insertvalue { double, double } [[C4]], double [[SB2]], 1
; CHECK-NEXT:    store { double, double } [[C5]], ptr [[SC]]
; c = g(x, y): adjoint.g with dret = adj(c); its two 'out' adjoints go to x and y.
; CHECK-NEXT:    [[DC:%[0-9]+]] = load { double, double }, ptr [[SC]]
; CHECK-NEXT:    store { double, double } { double -0.000000e+00, double -0.000000e+00 }, ptr [[SC]]
; CHECK-NEXT:    [[G:%[0-9]+]] = call { double, double } @adjoint.g.aa{{[.a-z]*}}(ptr %tape, double %x, double %y, { double, double } [[DC]])
; CHECK-NEXT:    [[GX:%[0-9]+]] = extractvalue { double, double } [[G]], 0
; CHECK-NEXT:    [[OX:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[NX:%[0-9]+]] = fadd reassoc double [[OX]], [[GX]]
; CHECK-NEXT:    store double [[NX]], ptr [[SX]]
; CHECK-NEXT:    [[GY:%[0-9]+]] = extractvalue { double, double } [[G]], 1
; CHECK-NEXT:    [[OY:%[0-9]+]] = load double, ptr [[SY:%[0-9]+]]
; CHECK-NEXT:    [[NY:%[0-9]+]] = fadd reassoc double [[OY]], [[GY]]
; CHECK-NEXT:    store double [[NY]], ptr [[SY]]
; CHECK:       exit:
; CHECK-NEXT:    [[FX:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[FXZ:%[0-9]+]] = fadd double [[FX]], 0.000000e+00
; CHECK-NEXT:    [[FR:%[0-9]+]] = insertvalue { double, double } poison, double [[FXZ]], 0
; CHECK-NEXT:    [[FY:%[0-9]+]] = load double, ptr [[SY]]
; CHECK-NEXT:    [[FYZ:%[0-9]+]] = fadd double [[FY]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double, double } [[FR]], double [[FYZ]], 1

; CHECK-LABEL: define internal { double, double } @augfwd.g.aa{{[.a-z]*}}(ptr %tape, double %x, double %y)
; CHECK-NEXT:    %m = fmul double %x, %y
; CHECK-NEXT:    %s = fsub double %x, %y
; CHECK-NEXT:    %a = insertvalue { double, double } poison, double %m, 0
; CHECK-NEXT:    %b = insertvalue { double, double } %a, double %s, 1
; CHECK-NEXT:    ret { double, double } %b

; g returns an aggregate: its adjoint takes a struct dret.
; CHECK-LABEL: define internal { double, double } @adjoint.g.aa{{[.a-z]*}}(ptr %tape, double %x, double %y, { double, double } %dret)
; CHECK:         [[B0:%[0-9]+]] = load { double, double }, ptr [[SB:%[0-9]+]]
; CHECK-NEXT:    [[B0A:%[0-9]+]] = extractvalue { double, double } [[B0]], 0
; CHECK-NEXT:    [[RA:%[0-9]+]] = extractvalue { double, double } %dret, 0
; CHECK-NEXT:    [[SUMA:%[0-9]+]] = fadd double [[B0A]], [[RA]]
; CHECK-NEXT:    [[B1:%[0-9]+]] = insertvalue { double, double } [[B0]], double [[SUMA]], 0
; CHECK-NEXT:    [[B0B:%[0-9]+]] = extractvalue { double, double } [[B0]], 1
; CHECK-NEXT:    [[RB:%[0-9]+]] = extractvalue { double, double } %dret, 1
; CHECK-NEXT:    [[SUMB:%[0-9]+]] = fadd double [[B0B]], [[RB]]
; CHECK-NEXT:    [[B2:%[0-9]+]] = insertvalue { double, double } [[B1]], double [[SUMB]], 1
; CHECK-NEXT:    store { double, double } [[B2]], ptr [[SB]]
; b = insertvalue a, s, 1: adj(s) += db.1, adj(a) += db with field 1 cleared
; CHECK-NEXT:    [[DB:%[0-9]+]] = load { double, double }, ptr [[SB]]
; CHECK-NEXT:    store { double, double } { double -0.000000e+00, double -0.000000e+00 }, ptr [[SB]]
; CHECK-NEXT:    [[DS1:%[0-9]+]] = extractvalue { double, double } [[DB]], 1
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SS:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc double [[O1]], [[DS1]]
; CHECK-NEXT:    store double [[N1]], ptr [[SS]]
; CHECK-NEXT:    [[REST:%[0-9]+]] = insertvalue { double, double } [[DB]], double 0.000000e+00, 1
; CHECK-NEXT:    [[A0:%[0-9]+]] = load { double, double }, ptr [[SA:%[0-9]+]]
; CHECK-NEXT:    [[A0A:%[0-9]+]] = extractvalue { double, double } [[A0]], 0
; CHECK-NEXT:    [[RESTA:%[0-9]+]] = extractvalue { double, double } [[REST]], 0
; CHECK-NEXT:    [[SUMA2:%[0-9]+]] = fadd double [[A0A]], [[RESTA]]
; CHECK-NEXT:    [[A1:%[0-9]+]] = insertvalue { double, double } [[A0]], double [[SUMA2]], 0
; CHECK-NEXT:    [[A0B:%[0-9]+]] = extractvalue { double, double } [[A0]], 1
; CHECK-NEXT:    [[RESTB:%[0-9]+]] = extractvalue { double, double } [[REST]], 1
; CHECK-NEXT:    [[SUMB2:%[0-9]+]] = fadd double [[A0B]], [[RESTB]]
; CHECK-NEXT:    [[A2:%[0-9]+]] = insertvalue { double, double } [[A1]], double [[SUMB2]], 1
; CHECK-NEXT:    store { double, double } [[A2]], ptr [[SA]]
; a = insertvalue poison, m, 0: adj(m) += da.0 (poison takes nothing)
; CHECK-NEXT:    [[DA:%[0-9]+]] = load { double, double }, ptr [[SA]]
; CHECK-NEXT:    store { double, double } { double -0.000000e+00, double -0.000000e+00 }, ptr [[SA]]
; CHECK-NEXT:    [[DM0:%[0-9]+]] = extractvalue { double, double } [[DA]], 0
; CHECK-NEXT:    [[O2:%[0-9]+]] = load double, ptr [[SM:%[0-9]+]]
; CHECK-NEXT:    [[N2:%[0-9]+]] = fadd reassoc double [[O2]], [[DM0]]
; CHECK-NEXT:    store double [[N2]], ptr [[SM]]
; CHECK-NEXT:    insertvalue { double, double } [[DA]], double 0.000000e+00, 0
; s = x - y
; CHECK-NEXT:    [[DS:%[0-9]+]] = load double, ptr [[SS]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SS]]
; CHECK-NEXT:    [[O3:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[N3:%[0-9]+]] = fadd reassoc double [[O3]], [[DS]]
; CHECK-NEXT:    store double [[N3]], ptr [[SX]]
; CHECK-NEXT:    [[NDS:%[0-9]+]] = fneg arcp double [[DS]]
; CHECK-NEXT:    [[O4:%[0-9]+]] = load double, ptr [[SY:%[0-9]+]]
; CHECK-NEXT:    [[N4:%[0-9]+]] = fadd reassoc double [[O4]], [[NDS]]
; CHECK-NEXT:    store double [[N4]], ptr [[SY]]
; m = x * y
; CHECK-NEXT:    [[DM:%[0-9]+]] = load double, ptr [[SM]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SM]]
; CHECK-NEXT:    [[T5:%[0-9]+]] = fmul double [[DM]], %y
; CHECK-NEXT:    [[O5:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[N5:%[0-9]+]] = fadd reassoc double [[O5]], [[T5]]
; CHECK-NEXT:    store double [[N5]], ptr [[SX]]
; CHECK-NEXT:    [[T6:%[0-9]+]] = fmul double %x, [[DM]]
; CHECK-NEXT:    [[O6:%[0-9]+]] = load double, ptr [[SY]]
; CHECK-NEXT:    [[N6:%[0-9]+]] = fadd reassoc double [[O6]], [[T6]]
; CHECK-NEXT:    store double [[N6]], ptr [[SY]]
; CHECK:       exit:
; CHECK-NEXT:    [[AX:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[AXZ:%[0-9]+]] = fadd double [[AX]], 0.000000e+00
; CHECK-NEXT:    [[R:%[0-9]+]] = insertvalue { double, double } poison, double [[AXZ]], 0
; CHECK-NEXT:    [[AY:%[0-9]+]] = load double, ptr [[SY]]
; CHECK-NEXT:    [[AYZ:%[0-9]+]] = fadd double [[AY]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[AYZ]], 1
