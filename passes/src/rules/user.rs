//! User rules: what the user tells Umbra about particular functions, in the source (Enzyme's
//! registration globals and `annotate("umbra_inactive")`) or in a TOML file (`--rules FILE`).
//! They override built-in rules and apply even to functions with a body.
//!
//! In source (the globals must not be `static`: unused internal globals vanish before Umbra
//! runs):
//! - `__enzyme_register_derivative_NAME = {f, f_fwd}`: forward mode calls `f_fwd`;
//! - `__enzyme_register_gradient_NAME = {f, f_aug, f_grad}`: reverse mode calls `f_aug` in the
//!   forward sweep and `f_grad` in the adjoint sweep;
//! - `__enzyme_function_like* = {f, "log1p"}`: `f` is differentiated by the built-in rule named;
//! - `__enzyme_inactivefn* = {f, g, ...}` and `annotate("umbra_inactive")` on a function: no
//!   derivative flows through calls to them;
//! - `__enzyme_inactive_global* = {&g, ...}` and `annotate("umbra_inactive")` on a global: its
//!   contents carry no derivative (storing a differentiable value there drops the derivative).
//!
//! The calling conventions of registered derivatives are documented in `umbra.h`; they are
//! checked against the primal's signature here, so a mismatch is an error naming the function,
//! never a malformed call.

use super::lookup;
use crate::diag::{Error, Result};
use crate::ir::{Module, Ty, TyKind, Val};
use crate::options::Options;
use serde::Deserialize;
use std::collections::{HashMap, HashSet};

/// The user's rules for one module: from the options (`--inactive`), the rules files and the
/// registrations in the module itself. Built once per module by [`collect`]; the session holds it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserRules {
    /// Functions without a derivative: calls to them run in the primal only.
    pub inactive: Vec<String>,
    /// Function name → the built-in rule it behaves like.
    pub function_like: HashMap<String, String>,
    /// Function name → its registered forward derivative.
    pub derivatives: HashMap<String, Val>,
    /// Function name → its registered (augmented forward, gradient) pair.
    pub gradients: HashMap<String, (Val, Val)>,
    /// Globals whose contents carry no derivative.
    pub inactive_globals: HashSet<String>,
}

impl UserRules {
    /// Only the options' `--inactive` functions (no rules files, no module): what a module
    /// without registrations gets.
    pub fn from_options(opts: &Options) -> UserRules {
        UserRules {
            inactive: opts.inactive.clone(),
            ..UserRules::default()
        }
    }

    /// True when `name` was declared inactive.
    pub fn is_inactive(&self, name: &str) -> bool {
        self.inactive.iter().any(|n| n == name)
    }
}

/// A call's user rule: the registered halves (either may be missing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserRule {
    /// The function the rule is for.
    pub primal: Val,
    /// Its forward derivative.
    pub forward: Option<Val>,
    /// Its augmented forward and gradient functions.
    pub gradient: Option<(Val, Val)>,
}

/// The `--rules FILE` format.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    /// Functions without a derivative.
    #[serde(default)]
    inactive: Vec<String>,
    /// Globals without a derivative.
    #[serde(default)]
    inactive_globals: Vec<String>,
    /// Function → built-in rule it behaves like.
    #[serde(default)]
    function_like: HashMap<String, String>,
}

/// The user's rules for `module`: the options' inactive functions, the rules files they name,
/// and the registrations in the module.
pub fn collect(module: Module, opts: &Options) -> Result<UserRules> {
    let mut rules = UserRules::from_options(opts);
    for path in &opts.rules_files {
        load_file(path, &mut rules)?;
    }
    for g in module.globals() {
        collect_global(g, &mut rules)?;
    }
    collect_annotations(module, &mut rules);
    for (f, like) in &rules.function_like {
        if lookup(like).is_none() {
            return Err(Error::general(format!(
                "'{f}' is declared function-like '{like}', but there is no built-in rule '{like}' (see `umbra rules`)"
            )));
        }
    }
    Ok(rules)
}

fn load_file(path: &str, rules: &mut UserRules) -> Result<()> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::general(format!("cannot read rules file '{path}': {e}")))?;
    let file: RulesFile = toml::from_str(&text).map_err(|e| {
        let msg = e.message().to_string();
        let line = e
            .span()
            .map(|s| text[..s.start].matches('\n').count() + 1)
            .unwrap_or(0);
        Error::general(format!("{path}:{line}: bad rules file: {msg}"))
    })?;
    rules.inactive.extend(file.inactive);
    rules.inactive_globals.extend(file.inactive_globals);
    rules.function_like.extend(file.function_like);
    Ok(())
}

/// The entries of a registration global's initializer (an array or struct of pointers).
fn entries(g: Val) -> Vec<Val> {
    match g.initializer().map(Val::without_asan_redzone) {
        Some(init) if matches!(init.ty().kind(), TyKind::Array | TyKind::Struct) => init.operands(),
        Some(init) => vec![init],
        None => Vec::new(),
    }
}

fn bad_registration(g: Val, what: &str) -> Error {
    Error::general(format!("malformed registration '{}': {what}", g.name()))
}

/// The function entry `k` of registration `g`.
fn function_entry(g: Val, es: &[Val], k: usize) -> Result<Val> {
    match es.get(k) {
        Some(&f) if f.is_function() => Ok(f),
        _ => Err(bad_registration(
            g,
            &format!("entry {} is not a function", k + 1),
        )),
    }
}

fn collect_global(g: Val, rules: &mut UserRules) -> Result<()> {
    let name = g.name();
    if name.starts_with("__enzyme_register_derivative") {
        let es = entries(g);
        if es.len() != 2 {
            return Err(bad_registration(g, "expected {function, derivative}"));
        }
        let (f, fwd) = (function_entry(g, &es, 0)?, function_entry(g, &es, 1)?);
        check_forward_signature(f, fwd)?;
        rules.derivatives.insert(f.name(), fwd);
    } else if name.starts_with("__enzyme_register_gradient") {
        let es = entries(g);
        if es.len() != 3 {
            return Err(bad_registration(
                g,
                "expected {function, augmented forward, gradient}",
            ));
        }
        let f = function_entry(g, &es, 0)?;
        let (aug, grad) = (function_entry(g, &es, 1)?, function_entry(g, &es, 2)?);
        check_gradient_signatures(f, aug, grad)?;
        rules.gradients.insert(f.name(), (aug, grad));
    } else if name.starts_with("__enzyme_function_like") {
        let es = entries(g);
        let f = function_entry(g, &es, 0)?;
        let Some(like) = es.get(1).and_then(|s| s.const_string()) else {
            return Err(bad_registration(g, "expected {function, \"rule name\"}"));
        };
        rules.function_like.insert(f.name(), like);
    } else if name.starts_with("__enzyme_inactivefn") {
        for f in entries(g).into_iter().filter(|f| f.is_function()) {
            rules.inactive.push(f.name());
        }
    } else if name.starts_with("__enzyme_inactive_global") {
        for v in entries(g).into_iter().filter(|v| v.is_global_variable()) {
            rules.inactive_globals.insert(v.name());
        }
    }
    Ok(())
}

/// What a registration says about the function it names, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegisteredAs {
    /// `__enzyme_register_derivative_*`.
    Derivative,
    /// `__enzyme_register_gradient_*`.
    Gradient,
    /// `__enzyme_function_like*`.
    FunctionLike,
    /// `__enzyme_inactivefn*` or `annotate("umbra_inactive")`.
    Inactive,
}

impl RegisteredAs {
    /// "a registered gradient", ... as in "'f' has a registered gradient".
    pub fn describe(self) -> &'static str {
        match self {
            RegisteredAs::Derivative => "a registered derivative",
            RegisteredAs::Gradient => "a registered gradient",
            RegisteredAs::FunctionLike => "a function-like registration",
            RegisteredAs::Inactive => "an inactive registration",
        }
    }
}

/// The functions that the module's registrations and annotations give a rule, each once (its
/// first registration), read leniently: a malformed registration names what it can and is
/// reported by [`collect`] when the module has requests. The rule replaces the function's
/// body only while calls to it survive, which inlining defeats.
pub fn registered_functions(module: Module) -> Vec<(Val, RegisteredAs)> {
    let mut out: Vec<(Val, RegisteredAs)> = Vec::new();
    let mut add = |f: Val, what| {
        if f.is_function() && !out.iter().any(|&(g, _)| g == f) {
            out.push((f, what));
        }
    };
    for g in module.globals() {
        let name = g.name();
        let es = entries(g);
        let what = if name.starts_with("__enzyme_register_derivative") {
            RegisteredAs::Derivative
        } else if name.starts_with("__enzyme_register_gradient") {
            RegisteredAs::Gradient
        } else if name.starts_with("__enzyme_function_like") {
            RegisteredAs::FunctionLike
        } else if name.starts_with("__enzyme_inactivefn") {
            for &f in &es {
                add(f, RegisteredAs::Inactive);
            }
            continue;
        } else {
            continue;
        };
        // The primal is the first entry; the others are its derivatives or a rule name.
        if let Some(&f) = es.first() {
            add(f, what);
        }
    }
    for f in annotated_inactive_functions(module) {
        add(f, RegisteredAs::Inactive);
    }
    out
}

/// Keeps the calls to functions that have rules: marks the functions `noinline` (dropping an
/// `alwaysinline` that would contradict it) and `nobuiltin`. The latter because LLVM treats a
/// `nobuiltin` definition as one that may be replaced at link time, so it infers nothing
/// interprocedurally from the body: without it, `double f(double x) { return x; }` gets a
/// `returned` parameter and its callers use `x` instead of the call. The body itself is still
/// optimised. Run early in the pipeline (the plugin does, at pipeline start) so the rules still
/// find calls to replace. Returns how many functions it changed.
pub fn protect_from_inlining(module: Module) -> usize {
    let mut changed = 0;
    for (f, _) in registered_functions(module) {
        if f.is_declaration() || (f.has_fn_attr("noinline") && f.has_fn_attr("nobuiltin")) {
            continue;
        }
        f.set_fn_attr("alwaysinline", false);
        f.set_fn_attr("noinline", true);
        f.set_fn_attr("nobuiltin", true);
        changed += 1;
    }
    changed
}

/// One warning per function that has a rule but no calls left while its body is still here and
/// not `noinline`: the optimiser has most likely inlined it before Umbra ran, so the
/// derivative comes from the inlined body rather than from the rule.
pub fn inlined_rule_warnings(module: Module) -> Vec<String> {
    let mut out = Vec::new();
    for (f, what) in registered_functions(module) {
        if f.is_declaration() || f.has_fn_attr("noinline") {
            continue;
        }
        let called = f
            .users()
            .into_iter()
            .any(|u| u.is_call() && u.called_value() == f);
        if !called {
            out.push(format!(
                "'{}' has {}, but no calls to it remain: the optimiser probably inlined it (or folded its calls away), so derivatives come from its body, not from the rule; compile with the umbra plugin (-fpass-plugin), which keeps such functions out of line, or mark it __attribute__((noinline))",
                f.name(),
                what.describe()
            ));
        }
    }
    out
}

/// The functions carrying `annotate("umbra_inactive")` (or `"enzyme_inactive"`).
fn annotated_inactive_functions(module: Module) -> Vec<Val> {
    let mut out = Vec::new();
    let Some(ann) = module.global("llvm.global.annotations") else {
        return out;
    };
    for e in entries(ann) {
        let fields = e.operands();
        let (Some(&target), Some(text)) = (fields.first(), fields.get(1)) else {
            continue;
        };
        if target.is_function()
            && matches!(
                text.const_string().as_deref(),
                Some("umbra_inactive" | "enzyme_inactive")
            )
        {
            out.push(target);
        }
    }
    out
}

/// `__attribute__((annotate("umbra_inactive")))` on functions and globals (clang collects them
/// in `llvm.global.annotations` as `{ptr value, ptr text, ptr file, i32 line, ptr args}`).
fn collect_annotations(module: Module, rules: &mut UserRules) {
    let Some(ann) = module.global("llvm.global.annotations") else {
        return;
    };
    for e in entries(ann) {
        let fields = e.operands();
        let (Some(&target), Some(text)) = (fields.first(), fields.get(1)) else {
            continue;
        };
        if !matches!(
            text.const_string().as_deref(),
            Some("umbra_inactive" | "enzyme_inactive")
        ) {
            continue;
        }
        if target.is_function() {
            rules.inactive.push(target.name());
        } else if target.is_global_variable() {
            rules.inactive_globals.insert(target.name());
        }
    }
}

/// True when pointer `p` points into a global the user declared inactive: storing a
/// differentiable value there drops its derivative instead of being an error.
pub fn is_inactive_memory(p: Val, rules: &UserRules) -> bool {
    use crate::ir::Opcode::*;
    let mut v = p;
    for _ in 0..64 {
        if v.is_global_variable() {
            return rules.inactive_globals.contains(&v.name());
        }
        let op = if v.is_instruction() {
            v.opcode()
        } else if v.is_constant_expr() {
            v.const_opcode()
        } else {
            return false;
        };
        if !matches!(op, LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast) {
            return false;
        }
        v = v.operand(0);
    }
    false
}

/// True for types whose values carry a derivative of their own (passed by value).
pub fn is_float_value(t: Ty) -> bool {
    t.contains_float() && !t.contains_ptr()
}

/// The parameters of a derivative function: each primal parameter, followed by its tangent or
/// shadow when it is floating-point (`with_floats`) or a pointer.
pub fn interleaved_params(f: Val, with_floats: bool) -> Vec<Ty> {
    let mut out = Vec::new();
    for t in f.function_type().param_types() {
        out.push(t);
        if t.is_ptr() || (with_floats && is_float_value(t)) {
            out.push(t);
        }
    }
    out
}

fn signature_error(f: Val, what: &str, d: Val, expected: &[Ty]) -> Error {
    let shown: Vec<String> = expected.iter().map(|t| t.print()).collect();
    Error::general(format!(
        "the {what} registered for '{}' ('{}') has the wrong parameters: expected ({})",
        f.name(),
        d.name(),
        shown.join(", ")
    ))
}

fn check_forward_signature(f: Val, fwd: Val) -> Result<()> {
    let expected = interleaved_params(f, true);
    if fwd.function_type().param_types() != expected {
        return Err(signature_error(f, "derivative", fwd, &expected));
    }
    let (ret, fret) = (
        f.function_type().return_type(),
        fwd.function_type().return_type(),
    );
    let pair = fret.kind() == TyKind::Struct && fret.struct_fields() == [ret, ret];
    if !(fret == ret || pair) {
        return Err(Error::general(format!(
            "the derivative registered for '{}' ('{}') must return the tangent of the result ({}), or {{result, tangent}}",
            f.name(),
            fwd.name(),
            ret.print()
        )));
    }
    Ok(())
}

/// Where an augmented forward function's return value puts the tape, the primal result and
/// the shadow of a pointer result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AugmentLayout {
    /// Field index of the tape (or `Some(usize::MAX)`: the whole return value is the tape).
    pub tape: Option<usize>,
    /// Field index of the result (`usize::MAX`: the whole return value).
    pub result: Option<usize>,
    /// Field index of a pointer result's shadow.
    pub shadow: Option<usize>,
}

/// Whole-value marker in an [`AugmentLayout`].
pub const WHOLE: usize = usize::MAX;

/// Reads the augmented forward function's return convention (Enzyme's): `void`; the tape
/// (`void*`, when the primal returns no pointer); the result; or a struct of
/// `{tape, result[, shadow]}` / `{result, shadow}`.
pub fn augment_layout(f: Val, aug: Val) -> Option<AugmentLayout> {
    let ret = f.function_type().return_type();
    let aret = aug.function_type().return_type();
    let none = AugmentLayout::default();
    if aret.is_void() {
        return Some(none);
    }
    if aret == ret {
        return Some(AugmentLayout {
            result: Some(WHOLE),
            ..none
        });
    }
    if aret.is_ptr() {
        return Some(AugmentLayout {
            tape: Some(WHOLE),
            ..none
        });
    }
    if aret.kind() != TyKind::Struct {
        return None;
    }
    let fields = aret.struct_fields();
    let ptr_ret = ret.is_ptr();
    match fields.as_slice() {
        [t, r] if t.is_ptr() && *r == ret && !ptr_ret => Some(AugmentLayout {
            tape: Some(0),
            result: Some(1),
            ..none
        }),
        [r, s] if ptr_ret && *r == ret && *s == ret => Some(AugmentLayout {
            result: Some(0),
            shadow: Some(1),
            ..none
        }),
        [t, r, s] if t.is_ptr() && ptr_ret && *r == ret && *s == ret => Some(AugmentLayout {
            tape: Some(0),
            result: Some(1),
            shadow: Some(2),
        }),
        _ => None,
    }
}

/// The parameters of the gradient function: the interleaved primal parameters, the result's
/// adjoint when the primal returns a floating-point value, then the tape if there is one.
pub fn gradient_params(f: Val, layout: AugmentLayout) -> Vec<Ty> {
    let mut ps = interleaved_params(f, false);
    let ret = f.function_type().return_type();
    if is_float_value(ret) {
        ps.push(ret);
    }
    if layout.tape.is_some() {
        ps.push(Ty::ptr(ret.context()));
    }
    ps
}

/// The gradient function's return: nothing, the adjoint of the one floating-point parameter,
/// or a struct of the adjoints of all of them, in order.
pub fn gradient_return(f: Val) -> Vec<Ty> {
    f.function_type()
        .param_types()
        .into_iter()
        .filter(|&t| is_float_value(t))
        .collect()
}

fn check_gradient_signatures(f: Val, aug: Val, grad: Val) -> Result<()> {
    let aug_params = interleaved_params(f, false);
    if aug.function_type().param_types() != aug_params {
        return Err(signature_error(
            f,
            "augmented forward function",
            aug,
            &aug_params,
        ));
    }
    let Some(layout) = augment_layout(f, aug) else {
        return Err(Error::general(format!(
            "the augmented forward function registered for '{}' ('{}') must return void, a tape (void*), the result, or {{tape, result}}",
            f.name(),
            aug.name()
        )));
    };
    let params = gradient_params(f, layout);
    if grad.function_type().param_types() != params {
        return Err(signature_error(f, "gradient", grad, &params));
    }
    let adjoints = gradient_return(f);
    let gret = grad.function_type().return_type();
    let ok = match adjoints.as_slice() {
        [] => gret.is_void(),
        [one] => gret == *one,
        many => gret.kind() == TyKind::Struct && gret.struct_fields() == many,
    };
    if !ok {
        return Err(Error::general(format!(
            "the gradient registered for '{}' ('{}') must return the adjoints of its {} floating-point parameter(s) (void, one value, or a struct in parameter order)",
            f.name(),
            grad.name(),
            adjoints.len()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_file_lists_inactive_functions_and_function_like_mappings() {
        let dir = std::env::temp_dir().join(format!("umbra-rules-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rules.toml");
        std::fs::write(
            &path,
            "inactive = [\"log_msg\"]\ninactive_globals = [\"counter\"]\n[function_like]\nmy_log1p = \"log1p\"\n",
        )
        .unwrap();
        let mut rules = UserRules::default();
        load_file(path.to_str().unwrap(), &mut rules).unwrap();
        assert!(rules.is_inactive("log_msg"));
        assert!(rules.inactive_globals.contains("counter"));
        assert_eq!(rules.function_like["my_log1p"], "log1p");
        std::fs::write(&path, "inactive = [\"a\"]\nbogus = 1\n").unwrap();
        let err = load_file(path.to_str().unwrap(), &mut UserRules::default()).unwrap_err();
        assert!(err.to_string().contains(":2: bad rules file"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
