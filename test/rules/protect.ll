; The plugin's pipeline-start pass umbra-protect keeps functions with user rules out of line:
; noinline (alwaysinline dropped) and nobuiltin (so no `returned` or other interprocedural
; facts replace their calls). Declarations and functions without rules are left alone.
; "umbra-protected" lists what was changed, so that it can be undone once the module's
; requests are differentiated (rules/protect.rs; integration/rules/rules-inlined-after.c).
; RUN: %opt-umbra -passes=umbra-protect %s | FileCheck %s

@__enzyme_register_gradient_g = global [3 x ptr] [ptr @g, ptr @g_aug, ptr @g_grad]
@__enzyme_register_derivative_h = global [2 x ptr] [ptr @h, ptr @h_fwd]
@__enzyme_function_like_k = global [2 x ptr] [ptr @k, ptr @.str]
@__enzyme_inactivefn_1 = global [2 x ptr] [ptr @log_it, ptr @ext]
@.str = private constant [6 x i8] c"log1p\00"
@.ann = private constant [15 x i8] c"umbra_inactive\00"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @annotated, ptr @.ann, ptr null, i32 0, ptr null }], section "llvm.metadata"

; CHECK: define double @g(double %x) #[[A:[0-9]+]]
define double @g(double %x) alwaysinline {
  ret double %x
}
; CHECK: define double @g_aug(double %x) {
define double @g_aug(double %x) {
  ret double %x
}
define double @g_grad(double %x, double %d) {
  ret double %d
}
; CHECK: define double @h(double %x) #[[P:[0-9]+]]
define double @h(double %x) {
  ret double %x
}
define double @h_fwd(double %x, double %dx) {
  ret double %dx
}
; CHECK: define double @k(double %x) #[[P]]
define double @k(double %x) {
  ret double %x
}
; CHECK: define void @log_it(double %x) #[[P]]
define void @log_it(double %x) {
  ret void
}
; CHECK: declare void @ext(double)
declare void @ext(double)
; CHECK: define void @annotated() #[[P]]
define void @annotated() {
  ret void
}
; CHECK: define double @plain(double %x) {
define double @plain(double %x) {
  ret double %x
}

; CHECK-DAG: attributes #[[A]] = { nobuiltin noinline "umbra-protected"="alwaysinline,noinline,nobuiltin" }
; CHECK-DAG: attributes #[[P]] = { nobuiltin noinline "umbra-protected"="noinline,nobuiltin" }
