//! Type trees from debug information: what the variables bound to a value were declared as
//! ([`crate::ir::debug_types`]), for the requests' view of memory ([`super::requests`]) where the
//! caller's code says nothing about it (a `double *` parameter the caller only passes on).

use super::tree::{FloatKind, Kind, Tree, MAX_OFFSET};
use crate::ir::debug_types::{bindings_of, DiBinding, DiType};
use crate::ir::Val;

/// The tree of the memory `v` (a pointer in function `f`) points to, as the debug records
/// binding variables to `v` declare it; empty without debug information.
pub fn declared_pointee(f: Val, v: Val) -> Tree {
    let mut t = Tree::default();
    for b in bindings_of(f, v) {
        match b {
            DiBinding::Declare(d) => {
                t.merge(&tree_of(&d));
            }
            DiBinding::Value(DiType::Pointer(Some(d))) => {
                t.merge(&tree_of(&d));
            }
            DiBinding::Value(_) => {}
        }
    }
    // A variable kept in memory (`-O0`'s `x.addr`): the value loaded from it is the variable's.
    if v.is_instruction() && v.opcode() == crate::ir::Opcode::LLVMLoad {
        for b in bindings_of(f, v.operand(0)) {
            if let DiBinding::Declare(DiType::Pointer(Some(d))) = b {
                t.merge(&tree_of(&d));
            }
        }
    }
    t
}

/// True when a variable bound to pointer `p` (in function `f`) is declared to point to an
/// integer of `bytes` bytes (`const int &v`, `long *n`, or a local `int` kept in memory):
/// what an integer load of that width reads there is integer data, as an integer TBAA type
/// would say (`-O0` has none): the language's aliasing rules let no `int` lvalue read a
/// `double`. Not for one-byte integers: `char` and `unsigned char` lvalues may read any
/// object (the byte-wise copies of [`super::bytes`]). Unions and anything else say nothing.
pub fn declared_integer_target(f: Val, p: Val, bytes: u64) -> bool {
    if bytes < 2 {
        return false;
    }
    bindings_of(f, p).into_iter().any(|b| match b {
        DiBinding::Declare(DiType::Integer(n)) => n == bytes,
        DiBinding::Value(DiType::Pointer(Some(d))) => *d == DiType::Integer(bytes),
        _ => false,
    })
}

/// The tree of a value of the declared type `d`: its floats and pointers at their offsets (a
/// pointer at offset 0 keeps what it points to).
pub fn tree_of(d: &DiType) -> Tree {
    match d {
        DiType::Float(4) => Tree::scalar(Kind::Float(FloatKind::Float)),
        DiType::Float(8) => Tree::scalar(Kind::Float(FloatKind::Double)),
        DiType::Pointer(Some(p)) => Tree::pointer_to(tree_of(p)),
        DiType::Pointer(None) => Tree::scalar(Kind::Pointer),
        DiType::Array(e, n, stride) => {
            let e = tree_of(e);
            let mut t = Tree::default();
            for k in 0..*n {
                if k * stride >= MAX_OFFSET {
                    break;
                }
                let part = if k == 0 {
                    e.clone()
                } else {
                    e.shift_up(k * stride)
                };
                t.merge(&part);
            }
            t
        }
        DiType::Struct(members) => {
            let mut t = Tree::default();
            for (off, m) in members {
                if *off >= MAX_OFFSET {
                    continue;
                }
                let part = tree_of(m);
                let part = if *off == 0 { part } else { part.shift_up(*off) };
                t.merge(&part);
            }
            t
        }
        // Other float sizes (long double) and everything else: nothing compared.
        _ => Tree::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{parse_test_module, Module};

    #[test]
    fn a_pointer_parameter_declared_double_points_to_doubles() {
        // clang -O2 -g of `void g(double *x) { h(x); }`.
        let ctx = inkwell::context::Context::create();
        let llm = parse_test_module(
            &ctx,
            r#"
            define void @g(ptr %0) !dbg !14 {
                #dbg_value(ptr %0, !20, !DIExpression(), !21)
              call void @h(ptr %0), !dbg !21
              ret void, !dbg !21
            }
            declare void @h(ptr)
            !llvm.dbg.cu = !{!0}
            !llvm.module.flags = !{!3}
            !0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)
            !1 = !DIFile(filename: "di2.c", directory: "/tmp")
            !3 = !{i32 2, !"Debug Info Version", i32 3}
            !14 = distinct !DISubprogram(name: "g", scope: !1, file: !1, line: 2, type: !15, scopeLine: 2, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !19)
            !15 = !DISubroutineType(types: !16)
            !16 = !{null, !17}
            !17 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !18, size: 64)
            !18 = !DIBasicType(name: "double", size: 64, encoding: DW_ATE_float)
            !19 = !{!20}
            !20 = !DILocalVariable(name: "x", arg: 1, scope: !14, file: !1, line: 2, type: !17)
            !21 = !DILocation(line: 2, column: 21, scope: !14)
            "#,
        );
        let m = Module(llm.as_mut_ptr());
        let g = m.function("g").unwrap();
        let t = declared_pointee(g, g.params()[0]);
        assert_eq!(t.get(0), Some(Kind::Float(FloatKind::Double)), "{t}");
    }

    #[test]
    fn declared_types_give_their_floats_and_pointers() {
        let d = DiType::Float(8);
        let pair = DiType::Struct(vec![(0, d.clone()), (8, DiType::Float(4))]);
        let t = tree_of(&DiType::Array(Box::new(pair), 2, 16));
        assert_eq!(t.get(16), Some(Kind::Float(FloatKind::Double)), "{t}");
        assert_eq!(t.get(24), Some(Kind::Float(FloatKind::Float)), "{t}");
        let p = tree_of(&DiType::Pointer(Some(Box::new(d))));
        assert_eq!(p.pointee().get(0), Some(Kind::Float(FloatKind::Double)));
        assert!(tree_of(&DiType::Other).is_unknown());
    }
}
