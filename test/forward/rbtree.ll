; libstdc++'s red-black tree functions (std::map, std::set) have no body in the module: the
; shadow tree follows the tree by the same calls on the shadow pointers. Before the insertion,
; the colours its rebalancing reads are copied into the shadow tree (umbra.rbtree.sync_path),
; and both happen before the primal call, which changes them; a decrement copies the colour
; of its node; the shadows of the iterators are the calls on the shadows.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)
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
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %h, ptr %dh, ptr %n, ptr %dn, ptr %p, ptr %dp, i1 true)
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dddc(ptr %hdr, ptr %d.hdr, ptr %node, ptr %d.node, ptr %parent, ptr %d.parent, i1 %left)
; CHECK:         call void @umbra.rbtree.sync_path(ptr %parent, ptr %d.parent, ptr %hdr, i32 0)
; CHECK-NEXT:    call void @_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_(i1 %left, ptr %d.node, ptr %d.parent, ptr %d.hdr)
; CHECK-NEXT:    call void @_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_(i1 %left, ptr %node, ptr %parent, ptr %hdr)
; CHECK-NEXT:    %next = call ptr @_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base(ptr %parent)
; CHECK-NEXT:    [[DNEXT:%.*]] = call ptr @_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base(ptr %d.parent)
; CHECK-NEXT:    %back = call ptr @_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base(ptr %next)
; CHECK-NEXT:    [[COLOUR:%.*]] = load i32, ptr %next, align 4
; CHECK-NEXT:    store i32 [[COLOUR]], ptr [[DNEXT]], align 4
; CHECK-NEXT:    [[DBACK:%.*]] = call ptr @_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base(ptr [[DNEXT]])
; CHECK:         getelementptr inbounds i8, ptr [[DBACK]], i64 40
; CHECK:         call void @umbra.rbtree.sync_erase(ptr %node, ptr %d.node, ptr %hdr)
; CHECK-NEXT:    call ptr @_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_(ptr %d.node, ptr %d.hdr)
; CHECK-NEXT:    %gone = call ptr @_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_(ptr %node, ptr %hdr)

; The colour walk: each node on the path to the header and its sibling's subtree.
; CHECK-LABEL: define internal void @umbra.rbtree.sync_path(ptr %0, ptr %1, ptr %2, i32 %3)
; CHECK:         call void @umbra.rbtree.sync_down(
