; A red-black tree node with a shadow inserted into a tree whose header has none (the map in
; memory passed as constant): the shadow tree cannot follow the tree, so the insertion is
; refused with one line naming the call, in both modes, and no output.
; RUN: rm -f %t.o
; RUN: not %umbra %s -o %t.o 2>&1 | FileCheck %s
; RUN: test ! -e %t.o
; RUN: sed 's/__enzyme_fwddiff/__enzyme_autodiff/g' %s > %t.rev.ll
; RUN: not %umbra %t.rev.ll -o %t.o 2>&1 | FileCheck %s
; RUN: test ! -e %t.o

@enzyme_const = external global i32
declare void @__enzyme_fwddiff(ptr, ...)
declare void @_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_(i1, ptr, ptr, ptr)

define void @f(ptr %hdr, ptr %node) {
entry:
  call void @_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_(i1 true, ptr %node, ptr %hdr, ptr %hdr)
  ret void
}

define void @caller(ptr %h, ptr %n, ptr %dn) {
entry:
  %c = load i32, ptr @enzyme_const
  call void (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %c, ptr %h, ptr %n, ptr %dn)
  ret void
}

; CHECK: umbra: error: in function 'f': at {{.*}}: cannot differentiate the call to '_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_': of the new node, its parent and the tree's header, some have a shadow and some do not
; CHECK-NOT: error
