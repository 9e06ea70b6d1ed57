//! The augmented sweep's `inttoptr`: a pointer made from an integer offset of a pointer with a
//! shadow has its shadow at the same offset; a phi or select choosing among such offsets and
//! never-dereferenced constant addresses (rustc's `Vec::with_capacity` under `panic=unwind`)
//! gets the same choice among their shadows ([`crate::analysis::int_pointers`]). The adjoint
//! reads the shadow from the tape: it is no copy of one instruction on shadows, so the adjoint
//! cannot rebuild it ([`super::plan::shadow_operands`]).

use super::augmented::AugmentedFn;
use crate::analysis::int_pointers::{int_pointer, Alternative, IntPointer};
use crate::diag::{Error, Result};
use crate::ir::{Opcode, Val};

impl AugmentedFn<'_> {
    /// Copies active `inttoptr` `i` and sets its shadow; false (nothing emitted) when it is no
    /// pointer made from an integer [`int_pointer`] can follow.
    pub(super) fn visit_int_to_ptr(&mut self, i: Val) -> Result<bool> {
        let Some(shape) = int_pointer(i) else {
            return Ok(false);
        };
        self.vals.clone_primal(&mut self.b, i);
        let s = match shape {
            IntPointer::Offset(p) => {
                self.alternative_shadow(Alternative::Offset { p, x: i.operand(0) }, i)?
            }
            IntPointer::Merge(x, alts) if x.opcode() == Opcode::LLVMSelect => {
                let a = self.alternative_shadow(alts[0], i)?;
                let b = self.alternative_shadow(alts[1], i)?;
                let c = self.vals.map(x.operand(0));
                self.b.select(c, a, b)
            }
            IntPointer::Merge(x, alts) => {
                // A shadow phi beside `x`, its edges filled once every block exists: each
                // alternative's base is available only at the end of its own edge.
                let here = self.b.current_block();
                let Some(top) = self.vals.block(x.parent_block()) else {
                    return Err(Error::at(
                        i,
                        "pointer made from an integer phi in code the forward sweep does not copy",
                    ));
                };
                crate::clone::position_after_phis(&mut self.b, top);
                let s = self.b.phi(i.ty());
                self.b.position_at_end(here);
                self.int_phis.push((i, s, alts));
                s
            }
        };
        self.vals.set_shadow(i, Some(s));
        Ok(true)
    }

    /// The shadow of one alternative of an integer pointer, emitted at the builder's position;
    /// `at` is blamed when its base has no shadow.
    fn alternative_shadow(&mut self, a: Alternative, at: Val) -> Result<Val> {
        Ok(match a {
            Alternative::Offset { p, x } => {
                let sp = self.shadow(p, at)?;
                let (pb, x) = (self.vals.map(p), self.vals.map(x));
                crate::clone::offset_shadow(&mut self.b, sp, pb, x)
            }
            Alternative::Itself(c) if c.is_undef() => at.ty().poison(),
            Alternative::Itself(c) => self.b.cast(Opcode::LLVMIntToPtr, c, at.ty()),
        })
    }

    /// Adds the edges of the shadow phis of merged integer pointers: each alternative's
    /// shadow built at the end of the block its edge leaves from. Edges from handlers back
    /// into the normal path are skipped, as for other phis.
    pub(super) fn fill_int_phis(&mut self) -> Result<()> {
        for (i, s, alts) in std::mem::take(&mut self.int_phis) {
            let x = i.operand(0);
            let to = x.parent_block();
            for ((_, from), a) in x.incoming().into_iter().zip(alts) {
                if self.in_sweep(to) && !self.in_sweep(from) {
                    continue;
                }
                for pred in self.vals.edge_sources(from, to) {
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
