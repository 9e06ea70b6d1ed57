//! What a derived function's caller may write between the function's augmented sweep and its
//! adjoint ([`CallerWrites`]): part of the derived pair's key, so a callee whose caller writes
//! only `double` data after the call re-reads its `int` index arrays and the pointers in its
//! argument structs instead of taping them.
//!
//! # Guarantees
//! - [`CallerWrites::spares`] is true for a load only when no write the caller may make before
//!   the adjoint can change the load's bytes: the caller writes nothing
//!   ([`CallerWrites::Nothing`]), or every such write carries a TBAA access type disjoint from
//!   the load's ([`CallerWrites::Typed`], the same test LLVM's TBAA makes). Anything else
//!   ([`CallerWrites::Anything`]) spares nothing.
//! - The typed set is built only from writers whose every effect is a TBAA-tagged store or
//!   copy (a callee counts by its body's tagged writes); one untyped or freeing writer makes it
//!   `Anything` ([`CallerWrites::union`] keeps that absorbing).

use crate::ir::Val;

/// What the caller may write between a derived function's two sweeps.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CallerWrites {
    /// Nothing: the caller runs the adjoint right after the augmented sweep ("memory stable").
    Nothing,
    /// Only through stores and copies tagged with these TBAA access chains (access type first,
    /// then its ancestors up to the root; sorted, distinct, never empty).
    Typed(Vec<Vec<usize>>),
    /// Anything.
    Anything,
}

impl CallerWrites {
    /// `Nothing` when `stable`, else `Anything`: the two contexts without type information.
    pub fn stable(stable: bool) -> CallerWrites {
        if stable {
            CallerWrites::Nothing
        } else {
            CallerWrites::Anything
        }
    }

    /// True when the caller writes nothing at all.
    #[cfg(test)]
    pub fn is_nothing(&self) -> bool {
        *self == CallerWrites::Nothing
    }

    /// The writes of `chains` (TBAA access chains, one per write; `None`: some write is
    /// untyped).
    pub fn of_chains(chains: Option<Vec<Vec<usize>>>) -> CallerWrites {
        match chains {
            None => CallerWrites::Anything,
            Some(c) if c.is_empty() => CallerWrites::Nothing,
            Some(mut c) => {
                c.sort();
                c.dedup();
                CallerWrites::Typed(c)
            }
        }
    }

    /// Both sets of writes.
    pub fn union(&self, other: &CallerWrites) -> CallerWrites {
        match (self, other) {
            (CallerWrites::Anything, _) | (_, CallerWrites::Anything) => CallerWrites::Anything,
            (CallerWrites::Nothing, x) | (x, CallerWrites::Nothing) => x.clone(),
            (CallerWrites::Typed(a), CallerWrites::Typed(b)) => {
                CallerWrites::of_chains(Some(a.iter().chain(b).cloned().collect()))
            }
        }
    }

    /// True when no write of the caller can change the bytes `load` (a load or a memory-reading
    /// call) read.
    pub fn spares(&self, load: Val) -> bool {
        match self {
            CallerWrites::Nothing => true,
            CallerWrites::Anything => false,
            CallerWrites::Typed(ws) => load
                .tbaa_access_chain()
                .is_some_and(|l| ws.iter().all(|w| chains_disjoint(&l, w))),
        }
    }

    /// How `--print-types` names the context.
    pub fn describe(&self) -> String {
        match self {
            CallerWrites::Nothing => "memory stable".into(),
            CallerWrites::Anything => "caller may write".into(),
            CallerWrites::Typed(ws) => format!("caller may write {} TBAA access types", ws.len()),
        }
    }

    /// The suffix of the derived functions' names for this context (empty for `Anything`).
    pub fn name_suffix(&self, typed_id: impl FnOnce() -> usize) -> String {
        match self {
            CallerWrites::Nothing => ".s".into(),
            CallerWrites::Anything => String::new(),
            CallerWrites::Typed(_) => format!(".w{}", typed_id()),
        }
    }
}

/// True when TBAA access chains `a` and `b` (access type first) are of unrelated types: in
/// one type tree (same root), neither access type is an ancestor of the other.
pub(super) fn chains_disjoint(a: &[usize], b: &[usize]) -> bool {
    match (a.first(), b.first()) {
        (Some(fa), Some(fb)) => a.last() == b.last() && !a.contains(fb) && !b.contains(fa),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_is_absorbing_and_sorted() {
        let t =
            |c: &[&[usize]]| CallerWrites::of_chains(Some(c.iter().map(|x| x.to_vec()).collect()));
        let (a, b) = (t(&[&[3, 1]]), t(&[&[2, 1], &[3, 1]]));
        assert_eq!(a.union(&b), t(&[&[2, 1], &[3, 1]]));
        assert_eq!(a.union(&CallerWrites::Nothing), a);
        assert_eq!(a.union(&CallerWrites::Anything), CallerWrites::Anything);
        assert_eq!(t(&[]), CallerWrites::Nothing);
        assert_eq!(CallerWrites::of_chains(None), CallerWrites::Anything);
    }

    #[test]
    fn disjointness_needs_one_tree_and_no_ancestry() {
        // int = [10, 5, 1], double = [11, 5, 1], char = [5, 1], other tree = [20, 21].
        assert!(chains_disjoint(&[10, 5, 1], &[11, 5, 1]));
        assert!(!chains_disjoint(&[10, 5, 1], &[5, 1]));
        assert!(!chains_disjoint(&[5, 1], &[10, 5, 1]));
        assert!(!chains_disjoint(&[10, 5, 1], &[20, 21]));
        assert!(!chains_disjoint(&[10, 5, 1], &[10, 5, 1]));
        assert!(!chains_disjoint(&[], &[10, 5, 1]));
    }
}
