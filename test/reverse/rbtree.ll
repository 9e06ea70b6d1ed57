; Reverse mode of libstdc++'s red-black tree functions: the augmented sweep does what forward
; mode does (the same calls on the shadow tree, colours synced first, before the primal
; insertion and erasure), and the adjoint sweep has nothing to do for them: they move no
; floats. The adjoint of the load through the decremented iterator adds into the shadow node
; the shadow calls found.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)
declare void @_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_(i1, ptr, ptr, ptr)
declare ptr @_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base(ptr)
declare ptr @_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base(ptr)
declare ptr @_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_(ptr, ptr)

define double @f(ptr %hdr, ptr %node, ptr %parent, i1 %left) {
entry:
  call void @_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_(i1 %left, ptr %node, ptr %parent, ptr %hdr)
  %next = call ptr @_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base(ptr %parent)
  %back = call ptr @_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base(ptr %next)
  %at = getelementptr inbounds i8, ptr %back, i64 40
  %v = load double, ptr %at, align 8
  %m = fmul double %v, %v
  %gone = call ptr @_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_(ptr %node, ptr %hdr)
  ret double %m
}

define double @caller(ptr %h, ptr %dh, ptr %n, ptr %dn, ptr %p, ptr %dp) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %h, ptr %dh, ptr %n, ptr %dn, ptr %p, ptr %dp, i1 true)
  ret double 0.0
}


; The colour walk: each node on the path to the header and its sibling's subtree.

; CHECK-LABEL: define internal double @augfwd.f.dddc.s(ptr %tape, ptr %hdr, ptr %d.hdr, ptr %node, ptr %d.node, ptr %parent, ptr %d.parent, i1 %left)
; CHECK:         call void @umbra.rbtree.sync_path(ptr %parent, ptr %d.parent, ptr %hdr, i32 0)
; CHECK-NEXT:    call void @_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_(i1 %left, ptr %d.node, ptr %d.parent, ptr %d.hdr)
; CHECK-NEXT:    call void @_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_(i1 %left, ptr %node, ptr %parent, ptr %hdr)
; CHECK-NEXT:    %next = call ptr @_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base(ptr %parent)
; CHECK-NEXT:    [[DNEXT:%.*]] = call ptr @_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base(ptr %d.parent)
; CHECK-NEXT:    %back = call ptr @_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base(ptr %next)
; CHECK-NEXT:    [[COLOUR:%.*]] = load i32, ptr %next, align 4
; CHECK-NEXT:    store i32 [[COLOUR]], ptr [[DNEXT]], align 4
; CHECK-NEXT:    [[DBACK:%.*]] = call ptr @_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base(ptr [[DNEXT]])
; CHECK:         call void @umbra.rbtree.sync_erase(ptr %node, ptr %d.node, ptr %hdr)
; CHECK-NEXT:    call ptr @_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_(ptr %d.node, ptr %d.hdr)
; CHECK-NEXT:    %gone = call ptr @_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_(ptr %node, ptr %hdr)
; CHECK:         store ptr [[DBACK]]

; CHECK-LABEL: define internal void @adjoint.f.dddc.s(
; CHECK-NOT:     _Rb_tree
; CHECK-NOT:     umbra.rbtree
; CHECK:         ret void
