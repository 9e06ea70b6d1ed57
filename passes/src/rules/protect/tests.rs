//! Protection and its release: exactly the attributes added are removed again.

use super::*;

const RULES: &str = r#"
@__enzyme_register_gradient_g = global [3 x ptr] [ptr @g, ptr @g_aug, ptr @g_grad]
@__enzyme_function_like_k = global [2 x ptr] [ptr @k, ptr @.str]
@__enzyme_inactivefn_1 = global [3 x ptr] [ptr @user_noinline, ptr @at_o0, ptr @ext]
@.str = private constant [6 x i8] c"log1p\00"

define double @g(double %x) alwaysinline {
  ret double %x
}
define double @g_aug(double %x) {
  ret double %x
}
define double @g_grad(double %x, double %d) {
  ret double %d
}
define double @k(double %x) {
  ret double %x
}
define void @user_noinline() noinline {
  ret void
}
define void @at_o0() noinline nobuiltin optnone {
  ret void
}
declare void @ext()
define double @caller(double %x) {
  %y = call double @k(double %x)
  ret double %y
}
"#;

fn attrs(f: Val) -> [bool; 4] {
    ["alwaysinline", "noinline", "nobuiltin", "optnone"].map(|a| f.has_fn_attr(a))
}

#[test]
fn release_undoes_exactly_what_protection_did() {
    let ctx = inkwell::context::Context::create();
    let module = crate::ir::parse_test_module(&ctx, RULES);
    let m = Module(module.as_mut_ptr());
    let names = ["g", "k", "user_noinline", "at_o0", "g_aug", "caller"];
    let before: Vec<[bool; 4]> = names
        .iter()
        .map(|n| attrs(m.function(n).unwrap()))
        .collect();
    // g, k, user_noinline (gains nobuiltin); at_o0 already has both.
    assert_eq!(protect_from_inlining(m), 3);
    let f = |n: &str| m.function(n).unwrap();
    assert_eq!(attrs(f("g")), [false, true, true, false]);
    assert_eq!(attrs(f("user_noinline")), [false, true, true, false]);
    assert_eq!(
        f("g").string_fn_attr(MARK).as_deref(),
        Some("alwaysinline,noinline,nobuiltin")
    );
    assert_eq!(
        f("user_noinline").string_fn_attr(MARK).as_deref(),
        Some("nobuiltin")
    );
    assert_eq!(f("at_o0").string_fn_attr(MARK), None);
    // Protecting again changes nothing (the pipeline-start pass may run twice).
    assert_eq!(protect_from_inlining(m), 0);
    let mut released: Vec<String> = release_protection(m).iter().map(|f| f.name()).collect();
    released.sort();
    assert_eq!(released, ["g", "k", "user_noinline"]);
    let after: Vec<[bool; 4]> = names.iter().map(|n| attrs(f(n))).collect();
    assert_eq!(before, after);
    assert!(names.iter().all(|n| f(n).string_fn_attr(MARK).is_none()));
    assert!(release_protection(m).is_empty());
}

#[test]
fn callers_of_released_functions_are_found() {
    let ctx = inkwell::context::Context::create();
    let module = crate::ir::parse_test_module(&ctx, RULES);
    let m = Module(module.as_mut_ptr());
    let k = m.function("k").unwrap();
    let g = m.function("g").unwrap();
    assert!(calls_any(m.function("caller").unwrap(), &[k]));
    assert!(!calls_any(m.function("caller").unwrap(), &[g]));
    assert!(!calls_any(m.function("g_grad").unwrap(), &[k, g]));
}
