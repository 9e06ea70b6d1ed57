//! The rule reference: every built-in rule as a row (name, area, modes, matched names), printed
//! by `umbra rules` and kept in README.md, where a test checks the two never drift apart.

use super::all;
use super::rule::{Area, Reverse, Rule, RuleKind};

/// One rule as the user sees it.
pub struct RuleRow {
    /// Canonical name.
    pub name: &'static str,
    /// Area (`math`, `memory`, ...).
    pub area: &'static str,
    /// The modes it differentiates in (`forward, reverse`; `no derivative` for inactive rules).
    pub modes: String,
    /// Every other name it matches (libm `f`/`l` spellings, intrinsics, mangled names).
    pub variants: Vec<String>,
}

fn area_name(a: Area) -> &'static str {
    match a {
        Area::Math => "math",
        Area::Vector => "vector",
        Area::Complex => "complex",
        Area::Memory => "memory",
        Area::Alloc => "alloc",
        Area::Inactive => "inactive",
        Area::Julia => "julia",
        Area::Blas => "blas",
        Area::OpenMp => "openmp",
        Area::Sort => "sort",
        Area::Fortran => "fortran",
        Area::Tree => "rbtree",
        Area::List => "list",
    }
}

fn modes(r: &Rule) -> String {
    match r.kind {
        RuleKind::Math(_) => "forward, reverse".into(),
        RuleKind::Inactive => "no derivative".into(),
        RuleKind::Forward(_, Reverse::NotYet(_)) => "forward (reverse: not yet)".into(),
        RuleKind::Forward(..) => "forward, reverse".into(),
    }
}

/// Every built-in rule, in table order.
pub fn rows() -> Vec<RuleRow> {
    let calls = all()
        .map(|r| {
            let mut variants = r.names();
            variants.retain(|n| n != r.name);
            let variants = variants
                .into_iter()
                .map(|n| {
                    if n.starts_with("llvm.") {
                        format!("{n}.*")
                    } else {
                        n
                    }
                })
                .collect();
            RuleRow {
                name: r.name,
                area: area_name(r.area),
                modes: modes(r),
                variants,
            }
        })
        .collect::<Vec<_>>();
    let instructions = super::instructions::INSTRUCTIONS.iter().map(|r| RuleRow {
        name: r.name,
        area: "instruction",
        modes: "forward, reverse".into(),
        variants: Vec::new(),
    });
    instructions.chain(calls).collect()
}

/// The reference as plain text, one rule per line.
pub fn text() -> String {
    let rows = rows();
    let mut out = format!("{} rules\n", rows.len());
    for r in rows {
        out += &format!(
            "{:<28} {:<9} {:<27} {}\n",
            r.name,
            r.area,
            r.modes,
            r.variants.join(" ")
        );
    }
    out
}

/// The reference as a markdown table (the README's rule reference).
pub fn markdown() -> String {
    let rows = rows();
    let mut out = format!(
        "{} rules.\n\n| rule | area | modes | also matches |\n|---|---|---|---|\n",
        rows.len()
    );
    for r in rows {
        let variants: Vec<String> = r.variants.iter().map(|v| format!("`{v}`")).collect();
        out += &format!(
            "| `{}` | {} | {} | {} |\n",
            r.name,
            r.area,
            r.modes,
            variants.join(" ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    /// The effects say everything the analyses used to read off a rule's area (which file it
    /// lives in): what a writer writes besides its pointer arguments, whether its allocations
    /// are collected, whether it captures its arguments, whether it synchronises threads.
    #[test]
    fn effects_say_what_areas_used_to() {
        use super::super::rule::{Area, Hidden, RuleKind};
        for r in super::all() {
            let e = r.effects;
            if e.writes {
                let hidden = match r.area {
                    Area::Math => Hidden::Global("signgam"),
                    Area::Memory | Area::Blas | Area::Vector => Hidden::None,
                    _ => Hidden::Anything,
                };
                assert_eq!(e.hidden, hidden, "{}", r.name);
            }
            if e.allocates && !e.writes && !e.frees {
                assert_eq!(e.collected, r.area != Area::Alloc, "{}", r.name);
            }
            assert_eq!(
                e.captures && e.writes,
                r.area == Area::Inactive && e.writes,
                "{}",
                r.name
            );
            if e.touches_memory() {
                assert_eq!(e.synchronises, r.area == Area::OpenMp, "{}", r.name);
            }
            // The type analysis's "pointer arguments receive floats" was the writing
            // hand-written rules of the math area.
            assert_eq!(
                e.float_outputs,
                r.area == Area::Math && e.writes && matches!(r.kind, RuleKind::Forward(..)),
                "{}",
                r.name
            );
        }
    }

    /// The effects say everything the analyses used to read off callee names
    /// (`analysis/overwrite/`, `analysis/dead_shadow.rs`, `reverse/unread_primal.rs`): the
    /// names those lists held keep their meaning through the effects of their rules.
    #[test]
    fn effects_say_what_name_lists_used_to() {
        use super::super::rule::{ArgBytes, Extent};
        let effects = |n: &str| {
            super::super::lookup(n)
                .unwrap_or_else(|| panic!("{n}"))
                .effects
        };
        // Copies and sets write a counted number of bytes at one argument.
        let counted: Vec<&str> = super::all()
            .filter(|r| {
                matches!(
                    r.effects.writes_arg,
                    Some(ArgBytes {
                        bytes: Extent::CountIn(_),
                        ..
                    })
                )
            })
            .map(|r| r.name)
            .collect();
        assert_eq!(counted, ["llvm.memcpy", "llvm.memmove", "llvm.memset"]);
        // Bookkeeping intrinsics are inert; lifetime markers also mark a lifetime.
        for n in [
            "llvm.lifetime.start.p0",
            "llvm.lifetime.end.p0",
            "llvm.assume",
            "llvm.dbg.declare",
            "llvm.dbg.value",
            "llvm.experimental.noalias.scope.decl",
            "llvm.invariant.start.p0",
            "llvm.invariant.end.p0",
            "llvm.prefetch.p0",
            "llvm.pseudoprobe",
            "llvm.donothing",
        ] {
            let e = effects(n);
            assert!(e.inert && !e.writes && !e.captures, "{n}");
            assert_eq!(e.lifetime, n.starts_with("llvm.lifetime."), "{n}");
        }
        assert!(!effects("llvm.memcpy.p0.p0.i64").inert);
        // Masked accesses: the vector they move, through the argument that addresses it.
        let vector = |arg, v| ArgBytes {
            arg,
            bytes: Extent::VectorOf(v),
        };
        for n in ["llvm.masked.load.v4f64.p0", "llvm.masked.gather.v4f64.v4p0"] {
            assert_eq!(effects(n).reads_arg, Some(vector(0, None)), "{n}");
        }
        for n in [
            "llvm.masked.store.v4f64.p0",
            "llvm.masked.scatter.v4f64.v4p0",
        ] {
            let e = effects(n);
            assert_eq!(e.writes_arg, Some(vector(1, Some(0))), "{n}");
            assert_eq!(e.reads_arg, None, "{n}");
        }
        assert!(effects("llvm.memset.p0.i64").reads_arg.is_none());
        assert!(effects("llvm.memcpy.p0.p0.i64").reads_arg.is_some());
        // Allocators and deallocators that do nothing else.
        for n in ["malloc", "calloc", "aligned_alloc", "_Znwm", "_Znam"] {
            assert!(effects(n).only_allocates(), "{n}");
        }
        for n in [
            "realloc",
            "posix_memalign",
            "free",
            "jl_alloc_genericmemory",
        ] {
            assert!(
                super::super::lookup(n).is_none_or(|r| !r.effects.only_allocates()),
                "{n}"
            );
        }
        for n in ["free", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm"] {
            assert!(effects(n).only_frees(), "{n}");
        }
        assert!(!effects("realloc").only_frees());
    }

    #[test]
    fn every_rule_is_listed_once_and_names_are_unique() {
        let rows = super::rows();
        assert!(rows.len() >= 120, "{} rules", rows.len());
        let mut seen = std::collections::HashSet::new();
        for r in super::all() {
            for n in r.names() {
                assert!(seen.insert(n.clone()), "'{n}' is matched by two rules");
            }
        }
    }
}
