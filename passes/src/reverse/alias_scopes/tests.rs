//! The accesses [`mark_pair`] marks, and the ones it must leave alone.

use super::*;
use crate::ir::{parse_test_module, Module, Val};
use inkwell::context::Context;

/// `@f(x, y)` differentiated with `x` duplicated and `y` constant: `@aug` and `@adj` stand for
/// its pair (tape, x, d.x, y).
const PAIR: &str = r#"
define void @f(ptr %x, ptr %y) {
  ret void
}
define void @aug(ptr %tape, ptr %x, ptr %dx, ptr %y) {
  ret void
}
declare ptr @umbra.tape.pop(ptr, i64)
define void @adj(ptr %tape, ptr %x, ptr %dx, ptr %y, i1 %c, i64 %n) {
entry:
  %px = getelementptr double, ptr %x, i64 1
  %a = load double, ptr %px
  %pdx = getelementptr double, ptr %dx, i64 1
  %d = load double, ptr %pdx
  %s = fadd double %a, %d
  store double %s, ptr %pdx
  %b = load double, ptr %y
  %either = select i1 %c, ptr %x, ptr %dx
  %e = load double, ptr %either
  %inner = load ptr, ptr %x
  %g = load double, ptr %inner
  %popped = load ptr, ptr %tape
  %h = load double, ptr %popped
  %slot = call ptr @umbra.tape.pop(ptr %tape, i64 16)
  %at = getelementptr i8, ptr %slot, i64 8
  %t = load double, ptr %at
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %q = phi ptr [ %dx, %entry ], [ %q1, %loop ]
  %m = phi ptr [ %x, %entry ], [ %m1, %loop ]
  %v = load double, ptr %q
  store double %v, ptr %q
  %w = load double, ptr %m
  %q1 = getelementptr double, ptr %q, i64 1
  %m1 = select i1 %c, ptr %x, ptr %dx
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}
"#;

/// The scope of each load and store of `@adj` after marking, as `name: primal`, `name:
/// shadow` or `name: none` (stores named after their value: `store s`).
fn scopes_after() -> Vec<String> {
    let ctx = Context::create();
    let module = parse_test_module(&ctx, PAIR);
    let m = Module(module.as_mut_ptr());
    let f = m.function("f").expect("@f");
    let (aug, adj) = (
        m.function("aug").expect("@aug"),
        m.function("adj").expect("@adj"),
    );
    mark_pair(f, &[Activity::Dup, Activity::Const], aug, adj);
    m.verify().expect("valid IR after marking");
    let accesses: Vec<Val> = adj
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| matches!(i.opcode(), Opcode::LLVMLoad | Opcode::LLVMStore))
        .collect();
    // `%a` loads the primal x[1], `%d` the shadow d.x[1].
    let primal = accesses[0].alias_scopes();
    let shadow = accesses[1].alias_scopes();
    assert_eq!((primal.0.len(), primal.1.len()), (1, 2));
    assert!(
        shadow.1.contains(&primal.0[0]),
        "a primal access does not alias a shadow one"
    );
    assert!(primal.1.contains(&shadow.0[0]), "and the other way round");
    assert_ne!(primal.0, shadow.0);
    accesses
        .into_iter()
        .map(|i| {
            let name = match i.opcode() {
                Opcode::LLVMLoad => i.name(),
                _ => format!("store {}", i.operand(0).name()),
            };
            let got = i.alias_scopes();
            let scope = if got == primal {
                "primal"
            } else if got == shadow {
                "shadow"
            } else if got.0.len() == 1
                && primal.1.contains(&got.0[0])
                && shadow.1.contains(&got.0[0])
            {
                "tape"
            } else if got.0.is_empty() && got.1.is_empty() {
                "none"
            } else {
                "other"
            };
            format!("{name}: {scope}")
        })
        .collect()
}

#[test]
fn accesses_through_one_class_of_parameter_are_marked_others_are_not() {
    let got = scopes_after();
    assert_eq!(
        got,
        [
            "a: primal",       // x[1]
            "d: shadow",       // d.x[1]
            "store s: shadow", // into d.x[1]
            "b: none",         // y is constant: no shadow, no class
            "e: none",         // x or d.x
            "inner: primal",   // the load of a pointer from x is a primal access...
            "g: none",         // ...but the pointer it loads is not followed
            "popped: none",    // the tape's header (a parameter of no class)
            "h: none",         // a pointer loaded from it
            "t: tape",         // what a tape helper returned
            "v: shadow",       // d.x walked along a loop
            "store v: shadow",
            "w: none", // the loop's phi takes x or d.x
        ]
    );
}

#[test]
fn without_shadow_parameters_only_the_tape_is_marked() {
    let ctx = Context::create();
    let module = parse_test_module(&ctx, PAIR);
    let m = Module(module.as_mut_ptr());
    let f = m.function("f").expect("@f");
    let (aug, adj) = (
        m.function("aug").expect("@aug"),
        m.function("adj").expect("@adj"),
    );
    // Both constant: the derived functions would take (tape, x, y), so no parameter is a
    // shadow and none is classed; the tape helper's result still is.
    mark_pair(f, &[Activity::Const, Activity::Const], aug, adj);
    let marked: Vec<String> = adj
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| i.has_alias_scopes())
        .map(|i| i.name())
        .collect();
    assert_eq!(marked, ["t"]);
}
