//! Unit tests of the handles: the checked preconditions (`erase`, `int_width`) and the queries
//! the analyses lean on most (operands, constants, sign-bit masks, metadata-free copies).

use super::{parse_test_module, Builder, Module, Opcode, Ty, TyKind};
use inkwell::context::Context;

const IR: &str = r#"
define i16 @f(i16 %x, double %d) {
entry:
  %a = and i16 %x, 32767
  %unused = add i16 %x, 1
  %c = fadd double %d, 1.0
  ret i16 %a
}
"#;

fn with_module(body: impl FnOnce(Module)) {
    let ctx = Context::create();
    let module = parse_test_module(&ctx, IR);
    let m = Module(module.as_mut_ptr());
    m.verify().expect("valid test IR");
    body(m);
}

fn named(m: Module, name: &str) -> super::Val {
    let f = m.function("f").expect("@f");
    f.blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .find(|i| i.name() == name)
        .unwrap_or_else(|| panic!("%{name}"))
}

#[test]
fn operands_constants_and_widths() {
    with_module(|m| {
        let a = named(m, "a");
        assert_eq!(a.opcode(), Opcode::LLVMAnd);
        assert_eq!(a.num_operands(), 2);
        assert!(a.operand(0).is_argument());
        assert_eq!(a.operand(1).const_int_value(), Some(0x7fff));
        assert_eq!(a.ty().int_width(), 16);
        assert_eq!(a.ty().kind(), TyKind::Int);
        let c = named(m, "c");
        assert_eq!(c.operand(1).const_float_splat(), Some(1.0));
        assert_eq!(c.operand(0).const_int_value(), None);
        assert!(a.parent_function().is_some_and(|f| f.name() == "f"));
    });
}

#[test]
fn erase_removes_an_unused_instruction() {
    with_module(|m| {
        let u = named(m, "unused");
        let block = u.parent_block();
        let before = block.instructions().len();
        u.erase();
        assert_eq!(block.instructions().len(), before - 1);
        m.verify().expect("still valid");
    });
}

#[test]
#[should_panic(expected = "still has uses")]
fn erase_refuses_an_instruction_with_uses() {
    with_module(|m| named(m, "a").erase());
}

#[test]
#[should_panic(expected = "not an instruction")]
fn erase_refuses_a_non_instruction() {
    with_module(|m| {
        let a = named(m, "a");
        a.operand(1).erase();
    });
}

#[test]
#[should_panic(expected = "non-integer")]
fn int_width_refuses_other_types() {
    with_module(|m| {
        let c = named(m, "c");
        c.ty().int_width();
    });
}

#[test]
fn built_instructions_land_in_the_block() {
    with_module(|m| {
        let f = m.function("f").expect("@f");
        let a = named(m, "a");
        let mut b = Builder::new(m);
        b.position_before(a);
        let i64t = Ty::int(m.context(), 64);
        let wide = b.cast(Opcode::LLVMZExt, f.params()[0], i64t);
        assert_eq!(wide.ty().int_width(), 64);
        assert_eq!(wide.parent_block(), a.parent_block());
        assert_eq!(wide.next_instruction(), Some(a));
        wide.erase();
        m.verify().expect("still valid");
    });
}
