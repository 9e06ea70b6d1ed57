; A virtual call reaches the functions in its slot of the module's vtables: the slot is the
; load's offset from the vtable pointer, counted from each address point the module's
; constructors store into objects. B's `other` has the call's type but sits in another slot, so
; it is no candidate (before, every function of the right type in any vtable was one: a
; destructor's call reached std::shared_ptr's `_M_dispose` too, and the type analysis took the
; control block for the model). A vtable whose address points are not known (no constructor
; in this module) keeps all its functions. The slot counts getelementptrs past a `select` of
; two objects' vtable pointers too (`g`): before, their offset was dropped there, and the call
; reached slot 0.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)
@enzyme_const = external global i32

; Class A: slot 0 a destructor, slot 1 `scale`. Class B: slot 0 a destructor, slot 1 `scale`,
; slot 2 `other`, of the same type as `scale`.
@_ZTV1A = linkonce_odr unnamed_addr constant { [4 x ptr] } { [4 x ptr] [ptr null, ptr null, ptr @A_dtor, ptr @A_scale] }
@_ZTV1B = linkonce_odr unnamed_addr constant { [5 x ptr] } { [5 x ptr] [ptr null, ptr null, ptr @B_dtor, ptr @B_scale, ptr @B_other] }
; Class C's vtable is defined here (its key function is), but its objects are made in another
; module: where they point into it is not known, so each of its functions is a candidate.
@_ZTV1C = unnamed_addr constant { [4 x ptr] } { [4 x ptr] [ptr null, ptr null, ptr @C_other, ptr @C_scale] }

define void @A_dtor(ptr %this) {
  ret void
}
define double @A_scale(ptr %this, double %x) {
  %r = fmul double %x, 2.0
  ret double %r
}
define void @B_dtor(ptr %this) {
  ret void
}
define double @B_scale(ptr %this, double %x) {
  %r = fmul double %x, 3.0
  ret double %r
}
define double @B_other(ptr %this, double %x) {
  %r = fmul double %x, %x
  ret double %r
}
define double @C_other(ptr %this, double %x) {
  %r = fadd double %x, %x
  ret double %r
}
define double @C_scale(ptr %this, double %x) {
  %r = fmul double %x, 4.0
  ret double %r
}

; The constructors: what gives objects their vtable pointers (address points 16 bytes in).
define void @make_A(ptr %obj) {
  store ptr getelementptr inbounds (i8, ptr @_ZTV1A, i64 16), ptr %obj
  ret void
}
define void @make_B(ptr %obj) {
  store ptr getelementptr inbounds (i8, ptr @_ZTV1B, i64 16), ptr %obj
  ret void
}

; obj->scale(x): the function pointer 8 bytes past the address point (slot 1).
define double @f(ptr %obj, double %x) {
  %vtable = load ptr, ptr %obj
  %slot = getelementptr inbounds i8, ptr %vtable, i64 8
  %fn = load ptr, ptr %slot
  %r = call double %fn(ptr %obj, double %x)
  ret double %r
}

; (c ? a : b)->scale(x), the optimiser having chosen between the two vtable pointers.
define double @g(ptr %a, ptr %b, i1 %c, double %x) {
  %vta = load ptr, ptr %a
  %vtb = load ptr, ptr %b
  %vtable = select i1 %c, ptr %vta, ptr %vtb
  %slot = getelementptr inbounds i8, ptr %vtable, i64 8
  %fn = load ptr, ptr %slot
  %obj = select i1 %c, ptr %a, ptr %b
  %r = call double %fn(ptr %obj, double %x)
  ret double %r
}

define double @caller_g(ptr %a, ptr %b, i1 %c, double %x) {
  %const = load i32, ptr @enzyme_const
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, i32 %const, ptr %a, i32 %const, ptr %b, i32 %const, i1 %c, double %x, double 1.0)
  ret double %r
}

define double @caller(ptr %obj, double %x) {
  %const = load i32, ptr @enzyme_const
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %const, ptr %obj, double %x, double 1.0)
  ret double %r
}

; CHECK-LABEL: define internal double @umbra.dispatch.f.{{[0-9]+}}(
; CHECK:         icmp eq ptr %2, @A_scale
; CHECK:         icmp eq ptr %2, @B_scale
; CHECK:         icmp eq ptr %2, @C_other
; CHECK:         icmp eq ptr %2, @C_scale
; CHECK-NOT:     @B_other
; CHECK:       }
; CHECK-NOT:   @fwddiffe.B_other

; CHECK-LABEL: define internal double @umbra.dispatch.g.{{[0-9]+}}(
; CHECK:         icmp eq ptr %2, @A_scale
; CHECK:         icmp eq ptr %2, @B_scale
; CHECK:         icmp eq ptr %2, @C_other
; CHECK:         icmp eq ptr %2, @C_scale
; CHECK-NOT:     @B_other
; CHECK:       }
