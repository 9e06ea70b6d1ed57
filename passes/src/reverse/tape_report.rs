//! `--tape-report`: what a gradient keeps on its tape, where, and why. For each augmented
//! sweep: the values kept once per call (its frame) and, block by block, those kept where
//! they are needed, grouped by the innermost loop they are kept in (bytes per iteration of that
//! loop), each with its source location and the reason the adjoint cannot get it back
//! otherwise; and the 4-byte records of which way a join was entered where the branches
//! cannot be decided again. It reads the same plan and batches as the two sweeps, so it
//! reports what they do.

use super::batch;
use super::cfg::ReverseCfg;
use super::needs::Need;
use super::plan::{cheap_to_recompute, ReversePlan, StructuredLoop};
use crate::analysis::activity::ActiveSet;
use crate::clone::is_math_value;
use crate::diag::short;
use crate::ir::{Block, Module, Opcode, Val};
use crate::rules::user::UserRules;
use std::collections::BTreeMap;

/// The report's lines for the augmented sweep `name` of `f`.
pub fn describe(
    m: Module,
    f: Val,
    name: &str,
    cfg: &ReverseCfg,
    plan: &ReversePlan,
    active: &ActiveSet,
    rules: &UserRules,
) -> Vec<String> {
    // Where → (bytes, lines); "where" orders once-per-call first, then loops by location.
    let mut groups: BTreeMap<String, (u64, Vec<String>)> = BTreeMap::new();
    let once = "once per call".to_string();
    let (frame, frame_bytes) = plan.frame_layout(m);
    if frame_bytes > 0 {
        let g = groups.entry(once.clone()).or_default();
        g.0 += frame_bytes;
        for (v, shadow, _) in frame {
            let what = if shadow { "shadow of" } else { "value" };
            g.1.push(format!(
                "    {what} {} ({}), {} bytes: computed once per call, kept for the adjoint",
                short(v),
                location(v),
                m.alloc_size(v.ty())
            ));
        }
    }
    for &b in &cfg.order {
        let at = loop_of(plan.loops(), b).map_or(once.clone(), |l| {
            format!("per iteration of the loop at {}", loop_location(l))
        });
        if plan.records_predecessor(cfg, b) {
            let g = groups.entry(at.clone()).or_default();
            g.0 += 4;
            g.1.push(format!(
                "    which way {} was entered ({}), 4 bytes: its branches cannot be decided again in the adjoint",
                block_name(b),
                block_location(b)
            ));
        }
        let (batches, _) = batch::batches(m, b, active, rules, plan);
        for batch in batches {
            let g = groups.entry(at.clone()).or_default();
            g.0 += batch.bytes;
            let mut seen = std::collections::HashSet::new();
            for (user, needs) in &batch.layout {
                for (n, _) in needs {
                    if !seen.insert(*n) {
                        continue;
                    }
                    let (v, what) = match *n {
                        Need::Primal(v) => (v, "value"),
                        Need::Shadow(v) => (v, "shadow of"),
                        Need::Saved(v) => (v, "what the rule saved for"),
                    };
                    let why = match *n {
                        Need::Primal(v) => why_kept(plan, v, user.parent_block(), 0),
                        _ => "the adjoint needs it as it was".to_string(),
                    };
                    g.1.push(format!(
                        "    {what} {} ({}), {} bytes: {why}",
                        short(v),
                        location(v),
                        if v.ty().is_void() {
                            8
                        } else {
                            m.alloc_size(v.ty())
                        }
                    ));
                }
            }
        }
    }
    let mut out = Vec::new();
    let total: u64 = groups.values().map(|g| g.0).sum();
    if total == 0 {
        out.push(format!("tape of @{name} (for @{}): nothing kept", f.name()));
        return out;
    }
    out.push(format!("tape of @{name} (for @{}):", f.name()));
    for (at, (bytes, lines)) in groups {
        out.push(format!("  {at}: {bytes} bytes"));
        out.extend(lines);
    }
    out
}

/// Why the adjoint cannot rebuild `v` at a use in `at` (`depth`: how far along a chain of
/// operands this is).
fn why_kept(plan: &ReversePlan, v: Val, at: Block, depth: usize) -> String {
    if plan.primal_recomputable(v, at) {
        return "rebuilt".to_string();
    }
    if plan.rebuilds_somewhere(v) {
        return "it depends on the counter of a loop it is used after".to_string();
    }
    match v.opcode() {
        Opcode::LLVMLoad => match plan.overwrite_reason(v) {
            Some(r) => format!("a load of memory that may change before the adjoint runs ({r})"),
            None => "a load the adjoint cannot read again".to_string(),
        },
        Opcode::LLVMPHI => {
            "a phi: the value it took depends on the path (a loop-carried value or a join)"
                .to_string()
        }
        // A cheap intrinsic (`fmuladd`, `sqrt`) is rebuilt like arithmetic: kept, it is the
        // cheaper side of the cut between it and its operands, as below.
        Opcode::LLVMCall if is_math_value(v) && !cheap_to_recompute(v) => {
            "a math library call in an innermost loop (computed again, it would cost a call per use)"
                .to_string()
        }
        Opcode::LLVMCall | Opcode::LLVMInvoke if !cheap_to_recompute(v) => {
            "the result of a call".to_string()
        }
        _ => {
            let kept = v
                .operands()
                .into_iter()
                .find(|o| o.is_instruction() && !plan.primal_recomputable(*o, at));
            match kept {
                Some(o) if depth < 3 => format!(
                    "computed from {} ({}), which is not rebuilt: {}",
                    short(o),
                    location(o),
                    why_kept(plan, o, at, depth + 1)
                ),
                Some(o) => format!("computed from {}, which is not rebuilt", short(o)),
                None => "not rebuilt (an instruction the adjoint does not compute again)".into(),
            }
        }
    }
}

/// The innermost structured loop holding `b`.
fn loop_of(loops: &[StructuredLoop], b: Block) -> Option<&StructuredLoop> {
    loops
        .iter()
        .filter(|l| l.body.contains(&b))
        .min_by_key(|l| l.body.len())
}

fn location(v: Val) -> String {
    v.debug_location()
        .or_else(|| v.users().into_iter().find_map(|u| u.debug_location()))
        .unwrap_or_else(|| "no debug location".to_string())
}

fn block_location(b: Block) -> String {
    b.instructions()
        .into_iter()
        .find_map(|i| i.debug_location())
        .unwrap_or_else(|| "no debug location".to_string())
}

fn loop_location(l: &StructuredLoop) -> String {
    // The header's code is the loop's test; its location is the `for`/`while`.
    let mut blocks: Vec<Block> = vec![l.header, l.latch];
    blocks.extend(l.body.iter().copied());
    blocks
        .into_iter()
        .find_map(|b| {
            b.instructions()
                .into_iter()
                .find_map(|i| i.debug_location())
        })
        .unwrap_or_else(|| format!("{} (no debug location)", block_name(l.header)))
}

/// `block 'name'`, or for an unnamed block its number as the textual IR shows it (`block
/// %12`): without debug locations that is what tells two loops of one function apart.
fn block_name(b: Block) -> String {
    let n = b.as_value().name();
    if !n.is_empty() {
        return format!("block '{n}'");
    }
    // An unnamed block prints as `12:    ; preds = ...` followed by its instructions (the
    // entry block has no label line).
    let text = b.as_value().print();
    match text.lines().next().and_then(|l| l.split_once(':')) {
        Some((label, _)) if !label.is_empty() && label.bytes().all(|c| c.is_ascii_digit()) => {
            format!("block %{label}")
        }
        _ => "a block".to_string(),
    }
}
