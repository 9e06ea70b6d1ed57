//! The code `umbra check` adds to the module under test: per checked function, entry points of
//! one uniform C type, `void (u64 *args, u64 *shadows, u64 *results)`, that call the primal, or
//! request its derivatives the way a user would (`__enzyme_fwddiff` / `__enzyme_autodiff` with
//! explicit activity markers), so what is checked is exactly what Umbra generates for users.
//!
//! Slot k of `args` holds parameter k (a double, a float in the low 4 bytes, an integer in the
//! low bytes, or a pointer); slot k of `shadows` its tangent or shadow pointer when it is
//! active. `results`: slot 0 the primal result or its tangent; for a gradient, the adjoints of
//! the active scalar parameters in order (the result is seeded with 1, as `__enzyme_autodiff`
//! does). A registered rule replaces *calls* to its function, so the rule's variants request
//! the derivative of a wrapper that calls the function out of line; the body's variants
//! request the function itself, whose body Umbra differentiates.

use super::signature::{Param, Signature};
use std::fmt::Write;

/// Which entry points one function gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variants {
    /// The function has a body: forward and reverse derivatives of it.
    pub body: bool,
    /// A derivative is registered: forward mode through it.
    pub derivative: bool,
    /// A gradient is registered: reverse mode through it.
    pub gradient: bool,
}

/// What an entry point computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Entry {
    /// The function itself.
    Primal,
    /// `__enzyme_fwddiff` of the body.
    Forward,
    /// `__enzyme_autodiff` of the body.
    Reverse,
    /// Forward mode through the registered derivative.
    ForwardRule,
    /// Reverse mode through the registered gradient.
    ReverseRule,
}

impl Entry {
    /// The entry point's symbol for checked function number `index`.
    pub fn symbol(self, index: usize) -> String {
        let what = match self {
            Entry::Primal => "primal",
            Entry::Forward => "fwd",
            Entry::Reverse => "rev",
            Entry::ForwardRule => "fwd_rule",
            Entry::ReverseRule => "rev_rule",
        };
        format!("umbra_check_{index}_{what}")
    }

    /// The entries a function with `v` gets, the primal first.
    pub fn all(v: Variants) -> Vec<Entry> {
        let mut out = vec![Entry::Primal];
        if v.body {
            out.extend([Entry::Forward, Entry::Reverse]);
        }
        if v.derivative {
            out.push(Entry::ForwardRule);
        }
        if v.gradient {
            out.push(Entry::ReverseRule);
        }
        out
    }
}

/// An LLVM identifier for `name`, quoted and escaped.
pub fn ident(name: &str) -> String {
    let mut s = String::from("@\"");
    for b in name.bytes() {
        if b == b'"' || b == b'\\' || !(0x20..0x7f).contains(&b) {
            let _ = write!(s, "\\{b:02X}");
        } else {
            s.push(b as char);
        }
    }
    s.push('"');
    s
}

fn param_ty(p: &Param) -> String {
    match p {
        Param::Scalar { ty, .. } => ty.ir().to_string(),
        Param::Array { .. } => "ptr".to_string(),
        Param::Int { bits, .. } => format!("i{bits}"),
    }
}

fn ret_ty(sig: &Signature) -> &'static str {
    sig.ret.map_or("void", |f| f.ir())
}

/// The adjoints `__enzyme_autodiff` returns: one per active scalar parameter.
fn reverse_ret(sig: &Signature) -> (String, usize) {
    let tys: Vec<&str> = sig
        .params
        .iter()
        .filter_map(|p| match p {
            Param::Scalar { ty, active: true } => Some(ty.ir()),
            _ => None,
        })
        .collect();
    let text = match tys.len() {
        0 => "void".to_string(),
        1 => tys[0].to_string(),
        _ => format!("{{ {} }}", tys.join(", ")),
    };
    (text, tys.len())
}

/// The IR text of every entry point for `functions` (each with its index, signature and
/// variants), ready to be parsed and linked into the module under test.
pub fn text(functions: &[(usize, &Signature, Variants)], layout: &str, triple: &str) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "target datalayout = \"{layout}\"");
    let _ = writeln!(t, "target triple = \"{triple}\"");
    for m in ["enzyme_dup", "enzyme_const", "enzyme_out"] {
        let _ = writeln!(t, "@{m} = external global i32");
    }
    for &(index, sig, v) in functions {
        let f = ident(&sig.name);
        let params: Vec<String> = sig.params.iter().map(param_ty).collect();
        let ret = ret_ty(sig);
        let _ = writeln!(t, "declare {ret} {f}({})", params.join(", "));
        if v.derivative || v.gradient {
            // The rule applies to calls: a wrapper that calls the function out of line.
            let formals: Vec<String> = params
                .iter()
                .enumerate()
                .map(|(k, ty)| format!("{ty} %p{k}"))
                .collect();
            let actuals: Vec<String> = params
                .iter()
                .enumerate()
                .map(|(k, ty)| format!("{ty} %p{k}"))
                .collect();
            let _ = writeln!(
                t,
                "define internal {ret} @umbra_check_{index}_wrap({}) noinline {{",
                formals.join(", ")
            );
            if ret == "void" {
                let _ = writeln!(
                    t,
                    "  call void {f}({}) #0\n  ret void\n}}",
                    actuals.join(", ")
                );
            } else {
                let _ = writeln!(
                    t,
                    "  %r = call {ret} {f}({}) #0\n  ret {ret} %r\n}}",
                    actuals.join(", ")
                );
            }
        }
        for entry in Entry::all(v) {
            entry_point(&mut t, index, sig, entry);
        }
    }
    let _ = writeln!(t, "attributes #0 = {{ noinline }}");
    t
}

fn entry_point(t: &mut String, index: usize, sig: &Signature, entry: Entry) {
    let symbol = entry.symbol(index);
    let _ = writeln!(t, "define void @{symbol}(ptr %a, ptr %s, ptr %r) {{");
    let _ = writeln!(
        t,
        "  %mdup = load i32, ptr @enzyme_dup\n  %mconst = load i32, ptr @enzyme_const\n  %mout = load i32, ptr @enzyme_out"
    );
    for (k, p) in sig.params.iter().enumerate() {
        let ty = param_ty(p);
        let _ = writeln!(t, "  %a{k}p = getelementptr i64, ptr %a, i64 {k}");
        let _ = writeln!(t, "  %a{k} = load {ty}, ptr %a{k}p");
        if p.active() {
            let _ = writeln!(t, "  %s{k}p = getelementptr i64, ptr %s, i64 {k}");
            let _ = writeln!(t, "  %s{k} = load {ty}, ptr %s{k}p");
        }
    }
    let ret = ret_ty(sig);
    let target = match entry {
        Entry::ForwardRule | Entry::ReverseRule => format!("@umbra_check_{index}_wrap"),
        _ => ident(&sig.name),
    };
    let reverse = matches!(entry, Entry::Reverse | Entry::ReverseRule);
    let mut args = Vec::new();
    for (k, p) in sig.params.iter().enumerate() {
        let ty = param_ty(p);
        if entry == Entry::Primal {
            args.push(format!("{ty} %a{k}"));
        } else if !p.active() {
            args.push(format!("i32 %mconst, {ty} %a{k}"));
        } else if reverse && matches!(p, Param::Scalar { .. }) {
            args.push(format!("i32 %mout, {ty} %a{k}"));
        } else {
            args.push(format!("i32 %mdup, {ty} %a{k}, {ty} %s{k}"));
        }
    }
    let args = args.join(", ");
    match entry {
        Entry::Primal => call_and_store(t, ret, &format!("{target}({args})"), 1),
        Entry::Forward | Entry::ForwardRule => {
            let request = format!(
                "@__enzyme_fwddiff_umbra_check_{index}_{}",
                symbol_tail(entry)
            );
            call_and_store(
                t,
                ret,
                &format!("({ret} (ptr, ...) {request}(ptr {target}, {args})"),
                1,
            );
            let _ = writeln!(t, "}}\ndeclare {ret} {request}(ptr, ...)");
            return;
        }
        Entry::Reverse | Entry::ReverseRule => {
            let (rty, n) = reverse_ret(sig);
            let request = format!(
                "@__enzyme_autodiff_umbra_check_{index}_{}",
                symbol_tail(entry)
            );
            call_and_store(
                t,
                &rty,
                &format!("({rty} (ptr, ...) {request}(ptr {target}, {args})"),
                n,
            );
            let _ = writeln!(t, "}}\ndeclare {rty} {request}(ptr, ...)");
            return;
        }
    }
    let _ = writeln!(t, "}}");
}

fn symbol_tail(entry: Entry) -> &'static str {
    match entry {
        Entry::ForwardRule | Entry::ReverseRule => "rule",
        _ => "body",
    }
}

/// `call`s `callee` (text after the type, `@f(...)` or `(T (ptr, ...) @g(...)`), storing a
/// result of type `ty` holding `n` scalars into the result slots, then `ret void`.
fn call_and_store(t: &mut String, ty: &str, callee: &str, n: usize) {
    // `(T (ptr, ...) @g(...)`: the leading '(' marks an explicit function type.
    let call = match callee.strip_prefix('(') {
        Some(rest) => format!("call {rest}"),
        None => format!("call {ty} {callee}"),
    };
    if ty == "void" {
        let _ = writeln!(t, "  {call}\n  ret void");
        return;
    }
    let _ = writeln!(t, "  %res = {call}");
    if n <= 1 {
        let _ = writeln!(t, "  store {ty} %res, ptr %r\n  ret void");
        return;
    }
    let elems: Vec<&str> = ty
        .trim_matches(|c| c == '{' || c == '}' || c == ' ')
        .split(", ")
        .collect();
    for (j, e) in elems.iter().enumerate() {
        let _ = writeln!(t, "  %res{j} = extractvalue {ty} %res, {j}");
        let _ = writeln!(t, "  %r{j}p = getelementptr i64, ptr %r, i64 {j}");
        let _ = writeln!(t, "  store {e} %res{j}, ptr %r{j}p");
    }
    let _ = writeln!(t, "  ret void");
}
