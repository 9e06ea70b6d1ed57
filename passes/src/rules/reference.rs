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
        use super::super::rule::{Area, Hidden};
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
        }
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
