//! The requests' view of memory: a derivative request (`__enzyme_autodiff(f, enzyme_dup, x,
//! dx)`) is a call of the function it differentiates, and the caller's memory behind each
//! pointer argument has types of its own (the caller's stores, the allocas and globals it
//! passes, with their declared types). The analysis takes that view into the function's
//! parameters, like a direct call's, so a function that only copies its argument learns what it
//! copies; and it checks that the two views agree: a function reading the caller's doubles as
//! float (or 32-bit integer) bytes would otherwise write float adjoints into the caller's double
//! shadow, a silently wrong gradient. Reinterpreted bits have no meaningful derivative, so a
//! [`Clash`] is a clear error naming the request and the argument. The check compares the
//! caller's floats with the function's tree of the parameter (reads through copies and loops),
//! with its direct reads at constant offsets from the parameter (what `-O2` code does, where
//! the tree may have absorbed a partial read as the float's tail), and, with `-g`, the caller's
//! declared types take part ([`super::debug`]).
//!
//! The view flows one way, from the caller to the function: the caller's own trees stay what
//! its own code says, which is what the check compares against. Requests are no part of the
//! module's call graph otherwise (they are calls of a declaration), so nothing else changes
//! for their callers.

use super::queries::TypeInfo;
use super::seeds::{float_kind, RequestArg};
use super::tree::{FloatKind, Kind, Tree, MAX_DEPTH, MAX_OFFSET};
use crate::ir::{Module, Opcode, Ty, TyKind, Val};

/// Where the caller's view and the function's disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clash {
    /// Pointers followed from the argument to reach the memory (0: the memory it points to).
    pub depth: usize,
    /// The caller's float: its offset and format.
    pub offset: u64,
    /// The caller's float format there.
    pub caller: FloatKind,
    /// What the function sees overlapping it, and where (`Conflict`: another type at the
    /// same offset).
    pub callee: Kind,
    /// The offset of what the function sees.
    pub callee_offset: u64,
}

/// The first place where `caller` (the memory as the caller holds it) has a float that
/// `merged` (the function's view, the caller's merged in) sees differently: anything starting
/// inside the float, a float of the function's covering its start, or (where the function's
/// view is exact) another kind at the same offset. Both describe the memory a pointer points to; their
/// pointees are compared in turn.
pub fn clash(caller: &Tree, merged: &Tree) -> Option<Clash> {
    clash_at(caller, merged, 0)
}

fn clash_at(caller: &Tree, merged: &Tree, depth: usize) -> Option<Clash> {
    if depth >= MAX_DEPTH {
        return None;
    }
    // Exact offsets: a repeating pattern spelled out (offsets are bounded).
    let (c, m) = (caller.prefix(MAX_OFFSET - 1), merged.prefix(MAX_OFFSET - 1));
    for (&o, &k) in &c.at {
        let Kind::Float(f) = k else {
            continue;
        };
        let found = |callee: Kind, at: u64| Clash {
            depth,
            offset: o,
            caller: f,
            callee,
            callee_offset: at,
        };
        // Anything the function sees starting inside the float (a float tail is a pointer into
        // it, which the byte-copy checks judge). First: it names what the function reads.
        let inside =
            m.at.range(o + 1..o + f.size())
                .find(|(_, &g)| !matches!(g, Kind::Anything | Kind::FloatTail(_)));
        if let Some((&at, &g)) = inside {
            return Some(found(g, at));
        }
        // Another kind at the same offset (joined, it is a conflict). Only where the function's
        // view is at exact offsets: a repeating one folds a struct's fields together where an
        // index is computed (`p->x[p->id % 3]` makes a whole struct look like doubles), and
        // conflicts there are the analysis's own imprecision, not the function's reads.
        match m.at.get(&o) {
            Some(&g) if g != k && g != Kind::Anything && merged.stride.is_none() => {
                return Some(found(g, o))
            }
            _ => {}
        }
        // A float of the function's that starts before this one and covers its start.
        if let Some((&at, &Kind::Float(g))) = m.at.range(..o).next_back() {
            if at + g.size() > o {
                return Some(found(Kind::Float(g), at));
            }
        }
    }
    match (&caller.pointee, &merged.pointee) {
        (Some(c), Some(m)) => clash_at(c, m, depth + 1),
        _ => None,
    }
}

/// The loads and stores through `p` or constant GEPs of it, as (byte offset, accessed type):
/// what `-O2` code reads of an argument directly, where the analysis may have merged a partial
/// read into the caller's float (an `i32` at byte 4 of a double is the double's tail to it).
fn direct_accesses(m: Module, p: Val) -> Vec<(u64, Ty)> {
    let mut out = Vec::new();
    let mut work = vec![(p, 0u64)];
    while let Some((v, off)) = work.pop() {
        if work.len() + out.len() > 4096 {
            break;
        }
        for u in v.users() {
            if !u.is_instruction() {
                continue;
            }
            match u.opcode() {
                Opcode::LLVMGetElementPtr if u.operand(0) == v => {
                    if let Some(d) = super::bytes::const_offset(m, u) {
                        work.push((u, off + d));
                    }
                }
                Opcode::LLVMLoad => out.push((off, u.ty())),
                Opcode::LLVMStore if u.operand(1) == v => out.push((off, u.operand(0).ty())),
                _ => {}
            }
        }
    }
    out
}

/// The first direct access of the function ([`direct_accesses`]) that reads or writes part of
/// a float of `caller` as something else: a float of another format or offset, a pointer, or
/// an integer not covering the float whole (whole floats in an integer are copies; bytes are
/// judged by the byte-copy checks).
fn access_clash(m: Module, caller: &Tree, accesses: &[(u64, Ty)]) -> Option<Clash> {
    let c = caller.prefix(MAX_OFFSET - 1);
    for &(at, ty) in accesses {
        let (e, n) = match ty.kind() {
            TyKind::Vector if !ty.is_scalable_vector() => (ty.element(), ty.vector_len() as u64),
            _ => (ty, 1),
        };
        let size = m.store_size(e);
        for lane in 0..n {
            let lo = at + lane * size;
            let hi = lo + size;
            let kind = match e.kind() {
                TyKind::Float => float_kind(e).map(Kind::Float),
                TyKind::Int if size > 1 => Some(Kind::Integer),
                TyKind::Ptr => Some(Kind::Pointer),
                _ => None,
            };
            let Some(kind) = kind else {
                continue;
            };
            // The caller's floats overlapping [lo, hi): those starting inside, and one before.
            let before = c.at.range(..lo).next_back();
            let overlapping = before.into_iter().chain(c.at.range(lo..hi));
            for (&o, &k) in overlapping {
                let Kind::Float(f) = k else {
                    continue;
                };
                if o + f.size() <= lo {
                    continue;
                }
                let fits = match kind {
                    Kind::Float(g) => o == lo && g == f,
                    Kind::Integer => lo <= o && o + f.size() <= hi,
                    _ => false,
                };
                if !fits {
                    return Some(Clash {
                        depth: 0,
                        offset: o,
                        caller: f,
                        callee: kind,
                        callee_offset: lo,
                    });
                }
            }
        }
    }
    None
}

/// The view of the memory argument `a` of a request in `caller` points to: the caller's trees
/// of the primal and the shadow in each of its contexts, and the declared types of the
/// variables its debug records bind to them.
pub fn caller_view(info: TypeInfo, m: Module, caller: Val, a: &RequestArg) -> Tree {
    let mut t = Tree::default();
    for ctx in 0..info.contexts_of(caller) {
        let view = info.in_context(ctx);
        t.merge(&view.tree(m, a.primal));
        if let Some(s) = a.shadow {
            t.merge(&view.tree(m, s));
        }
    }
    // What the caller's variables were declared as (`-g`), for pointers its code only passes.
    let mut declared = super::debug::declared_pointee(caller, a.primal);
    if let Some(s) = a.shadow {
        declared.merge(&super::debug::declared_pointee(caller, s));
    }
    t.merge(&Tree::pointer_to(declared));
    t.pointee()
}

/// An error when the request `call` passes memory that the caller holds as floats the function
/// reads as something else ([`clash`]); `name` is the request's entry point.
pub fn check_request(info: TypeInfo, m: Module, call: Val, name: &str) -> crate::diag::Result<()> {
    if !info.converged {
        return Ok(());
    }
    let Some(site) = info.request(call) else {
        return Ok(());
    };
    let (f, ctx) = (site.function, info.callee_context(call));
    let Some(from) = call.parent_function() else {
        return Ok(());
    };
    for a in &site.args {
        let caller = caller_view(info, m, from, a);
        let Some(p) = f.params().get(a.param).copied() else {
            continue;
        };
        let merged = info.in_context(ctx).pointee(m, p);
        let found = access_clash(m, &caller, &direct_accesses(m, p));
        let Some(c) = found.or_else(|| clash(&caller, &merged)) else {
            continue;
        };
        let reads = match c.callee {
            Kind::Conflict => "another type".to_string(),
            k => k.to_string(),
        };
        let through = match c.depth {
            0 => String::new(),
            1 => " (through the pointer stored in it)".to_string(),
            d => format!(" ({d} pointers on)"),
        };
        return Err(crate::diag::Error::user_at(
            call,
            format!(
                "argument {} of '{name}' for '{}' points to memory the caller holds as {} at byte {}, but '{}' reads {reads} at byte {} of it{through}: the derivative of reinterpreted bytes is meaningless; pass memory of the types '{}' reads (convert the values) or mark the argument enzyme_const",
                a.param + 1,
                f.name(),
                c.caller.name(),
                c.offset,
                f.name(),
                c.callee_offset,
                f.name(),
            ),
        ));
    }
    Ok(())
}

/// The `--print-types` lines for the request `call`: each pointer argument's view as the caller
/// holds it, and the function's parameter in the context the request derives it in.
pub fn describe(info: TypeInfo, m: Module, call: Val, name: &str) -> Vec<String> {
    let Some(site) = info.request(call) else {
        return Vec::new();
    };
    let (f, ctx) = (site.function, info.callee_context(call));
    let Some(from) = call.parent_function() else {
        return Vec::new();
    };
    let mut out = vec![format!(
        "request '{name}' in @{} for @{} (context {ctx}):",
        from.name(),
        f.name()
    )];
    let params = f.params();
    for a in &site.args {
        let caller = caller_view(info, m, from, a);
        let callee = info.in_context(ctx).pointee(m, params[a.param]);
        out.push(format!("  argument {}: caller holds {caller}", a.param + 1));
        out.push(format!(
            "  argument {}: @{} sees {callee}",
            a.param + 1,
            f.name()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: Kind = Kind::Float(FloatKind::Double);
    const F: Kind = Kind::Float(FloatKind::Float);

    fn tree(entries: &[(u64, Kind)]) -> Tree {
        Tree::of_entries(entries)
    }

    fn merged(a: &Tree, b: &Tree) -> Tree {
        let mut t = a.clone();
        t.merge(b);
        t
    }

    #[test]
    fn doubles_read_as_floats_clash() {
        let caller = tree(&[(0, D), (8, D)]);
        let callee = tree(&[(0, F), (4, F), (8, F), (12, F)]);
        let c = clash(&caller, &merged(&caller, &callee)).expect("a clash");
        assert_eq!((c.offset, c.caller, c.callee), (0, FloatKind::Double, F));
        assert_eq!(c.callee_offset, 4);
    }

    #[test]
    fn halves_read_as_integers_clash_and_wholes_do_not() {
        let caller = tree(&[(0, D), (8, D)]);
        let halves = tree(&[(0, Kind::Integer), (4, Kind::Integer)]);
        let c = clash(&caller, &merged(&caller, &halves)).expect("a clash");
        assert_eq!((c.callee, c.callee_offset), (Kind::Integer, 4));
        // A whole int64 carries the double's bits: the same data.
        let wholes = tree(&[(0, Kind::Integer), (8, Kind::Integer)]);
        assert_eq!(clash(&caller, &merged(&caller, &wholes)), None);
    }

    #[test]
    fn a_float_covering_the_callers_start_clashes() {
        // The caller wrote a float at 4 only; the function reads a double at 0.
        let caller = tree(&[(4, F)]);
        let callee = tree(&[(0, D)]);
        let c = clash(&caller, &merged(&caller, &callee)).expect("a clash");
        assert_eq!((c.offset, c.callee, c.callee_offset), (4, D, 0));
    }

    #[test]
    fn agreeing_and_unknown_views_do_not_clash() {
        let caller = tree(&[(0, D), (8, Kind::Integer), (16, Kind::Pointer)]);
        let callee = tree(&[(0, D), (8, Kind::Integer), (12, Kind::Integer)]);
        assert_eq!(clash(&caller, &merged(&caller, &callee)), None);
        // Nothing known by the caller: today's behaviour.
        let floats = tree(&[(0, F), (4, F)]);
        assert_eq!(clash(&Tree::default(), &floats), None);
    }

    #[test]
    fn conflicts_of_a_repeating_view_at_the_callers_offsets_are_not_reads() {
        // An array of {int, double, float, double[3]} indexed through a computed index: the
        // function's own view folds the struct into doubles and conflicts at the float.
        let caller = tree(&[(0, Kind::Integer), (8, D), (16, F), (24, D)]);
        let mut own = tree(&[(0, D), (8, D), (16, D), (24, D)]);
        own.merge(&tree(&[(16, F)]));
        let own = own.repeated(48);
        assert_eq!(clash(&caller, &merged(&own, &caller)), None);
    }

    #[test]
    fn repeating_patterns_and_pointees_are_compared() {
        // The caller fills an array of doubles in a loop (a stride), the function reads floats.
        let caller = tree(&[(0, D)]).repeated(8);
        let callee = tree(&[(0, F), (4, F), (8, F), (12, F)]);
        assert!(clash(&caller, &merged(&caller, &callee)).is_some());
        // A struct holding a pointer to doubles, read as a pointer to floats.
        let caller = Tree::pointer_to(tree(&[(0, D)]));
        let callee = Tree::pointer_to(tree(&[(0, F), (4, F)]));
        let c = clash(&caller, &merged(&caller, &callee)).expect("a clash");
        assert_eq!(c.depth, 1);
    }
}
