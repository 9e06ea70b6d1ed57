//! Control flow: phis get tangent phis (edges filled once every block exists), `ret` returns
//! `{primal, tangent}`. Branches and switches are copied as they are: the tangent code runs on
//! the primal's path.

use super::function::ForwardFn;
use crate::diag::Result;
use crate::ir::Val;

impl ForwardFn<'_> {
    /// `phi`: a primal phi and, when active, a tangent phi, both filled later.
    pub(super) fn visit_phi(&mut self, i: Val) -> Result<()> {
        let p = self.b.phi(i.ty());
        p.set_name(&i.name());
        self.set_primal(i, p);
        let t = if self.is_active(i) {
            let t = self.b.phi(crate::signature::wide(i.ty(), self.width));
            self.set_tangent(i, Some(t));
            Some(t)
        } else {
            None
        };
        self.phis.push((i, p, t));
        Ok(())
    }

    /// Adds the incoming edges of every phi, skipping edges from unreachable blocks.
    pub(super) fn fill_phis(&mut self) -> Result<()> {
        let phis = std::mem::take(&mut self.phis);
        for (src, p, t) in phis {
            for (v, from) in src.incoming() {
                for pred in self.edge_sources(from, src.parent_block()) {
                    let pv = self.map(v);
                    p.add_incoming(pv, pred);
                    if let Some(t) = t {
                        // Substitute shadows (zero copies of constants) are constants, so they
                        // can be used on any edge; the builder is not needed here.
                        let tv = self.tangent_or_zero(v, src)?;
                        t.add_incoming(tv, pred);
                    }
                }
            }
        }
        Ok(())
    }

    /// `ret`: returns `{primal, tangent}` when the function's return carries a derivative.
    pub(super) fn visit_ret(&mut self, i: Val) -> Result<()> {
        if i.num_operands() == 0 {
            self.b.ret_void();
            return Ok(());
        }
        let v = i.operand(0);
        let bits = self.session.float_bits_of(self.src, self.session.context());
        if v.ty().is_int() && self.is_active(v) && bits.ret.is_none() {
            let (info, m) = (self.session.types(), self.session.module);
            crate::analysis::types::check_no_float_bits(info, m, v, i, "returns")?;
        }
        let pv = self.map(v);
        if !super::returns_tangent(self.src, &bits) {
            self.b.ret(pv);
            return Ok(());
        }
        let mut tv = self.tangent_or_zero(v, i)?;
        if let Some(fty) = bits.ret {
            tv = self.cast_lanes(tv, fty);
        }
        let ret_ty = self.dst.function_type().return_type();
        let agg = ret_ty.poison();
        let agg = self.b.insert_value(agg, pv, 0);
        let agg = self.b.insert_value(agg, tv, 1);
        self.b.ret(agg);
        Ok(())
    }
}
