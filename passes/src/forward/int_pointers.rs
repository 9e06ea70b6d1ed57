//! Forward mode's `inttoptr`: a pointer made from an integer offset of a pointer with a shadow
//! has its shadow at the same offset; a phi or select choosing among such offsets and
//! never-dereferenced constant addresses (rustc's `Vec::with_capacity` under `panic=unwind`)
//! gets the same choice among their shadows ([`crate::analysis::int_pointers`]). Any other
//! `inttoptr` moves the integer's tangent bits.

use super::function::ForwardFn;
use crate::analysis::int_pointers::{int_pointer, Alternative, IntPointer};
use crate::diag::Result;
use crate::ir::{Opcode, Val};

impl ForwardFn<'_> {
    pub(super) fn visit_int_to_ptr(&mut self, i: Val, operands: &[u32]) -> Result<()> {
        let shape = int_pointer(i);
        let has_shadow =
            |s: &Self, ip: &IntPointer| ip.bases().into_iter().any(|p| s.tangent(p).is_some());
        let Some(shape) = shape.filter(|ip| has_shadow(self, ip)) else {
            return self.visit_structural(i, operands);
        };
        self.clone_primal(i);
        let s = match shape {
            IntPointer::Offset(base) => self.alternative_shadow(
                Alternative::Offset {
                    p: base,
                    x: i.operand(0),
                },
                i,
            )?,
            IntPointer::Merge(x, alts) if x.opcode() == Opcode::LLVMSelect => {
                let a = self.alternative_shadow(alts[0], i)?;
                let b = self.alternative_shadow(alts[1], i)?;
                let c = self.map(x.operand(0));
                self.b.select(c, a, b)
            }
            IntPointer::Merge(x, alts) => {
                // A shadow phi beside `x`, its edges filled once every block exists: each
                // alternative's base is available only at the end of its own edge.
                let here = self.b.current_block();
                let Some(top) = self.block_of(x.parent_block()) else {
                    return self.visit_structural(i, operands);
                };
                crate::clone::position_after_phis(&mut self.b, top);
                let s = self.b.phi(crate::signature::wide(i.ty(), self.width));
                self.b.position_at_end(here);
                self.int_phis.push((i, s, alts));
                s
            }
        };
        self.set_tangent(i, Some(s));
        Ok(())
    }

    /// The shadow (all lanes) of one alternative of an integer pointer, emitted at the
    /// builder's position; `at` is blamed when its base has no shadow.
    fn alternative_shadow(&mut self, a: Alternative, at: Val) -> Result<Val> {
        let lanes = match a {
            Alternative::Offset { p, x } => {
                let t = self.require_shadow(p, at)?;
                let (pb, x) = (self.map(p), self.map(x));
                (0..self.width)
                    .map(|k| {
                        let l = self.lane(t, k);
                        crate::clone::offset_shadow(&mut self.b, l, pb, x)
                    })
                    .collect()
            }
            Alternative::Itself(c) => {
                let ptr = at.ty();
                let v = if c.is_undef() {
                    ptr.poison()
                } else {
                    self.b.cast(Opcode::LLVMIntToPtr, c, ptr)
                };
                vec![v; self.width as usize]
            }
        };
        Ok(self.gather(lanes))
    }

    /// Adds the edges of the shadow phis of merged integer pointers: each alternative's
    /// shadow built at the end of the block its edge leaves from.
    pub(super) fn fill_int_phis(&mut self) -> Result<()> {
        for (i, s, alts) in std::mem::take(&mut self.int_phis) {
            let x = i.operand(0);
            let to = x.parent_block();
            for ((_, from), a) in x.incoming().into_iter().zip(alts) {
                for pred in self.edge_sources(from, to) {
                    match pred.terminator() {
                        Some(t) => self.b.position_before(t),
                        None => self.b.position_at_end(pred),
                    }
                    let v = self.alternative_shadow(a, i)?;
                    s.add_incoming(v, pred);
                }
            }
        }
        Ok(())
    }
}
