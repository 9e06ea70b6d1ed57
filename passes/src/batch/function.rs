//! [`BatchFn`]: the visitor that builds one batched function. Shared values (those
//! [`super::varying`] does not flag) are copied once through a [`Cloner`]; lane-varying ones
//! are copied once per lane, each lane's copy reading that lane's operands. Blocks are copied
//! as they are (every lane takes the same path), phis filled once every block exists.

use super::varying;
use crate::cache::{BatchJob, Session};
use crate::clone::Cloner;
use crate::diag::{short, Error, Result};
use crate::ir::{Builder, Opcode, Val};
use std::collections::{HashMap, HashSet};

/// Builds one batched function.
pub(super) struct BatchFn<'s> {
    session: &'s mut Session,
    src: Val,
    dst: Val,
    width: u32,
    varying: HashSet<Val>,
    b: Builder,
    /// Blocks and shared values.
    shared: Cloner,
    /// Each lane's copy of a lane-varying value.
    lanes: HashMap<Val, Vec<Val>>,
    /// (source phi, its copies: one, or one per lane) awaiting their incoming edges.
    phis: Vec<(Val, Vec<Val>)>,
}

impl<'s> BatchFn<'s> {
    pub(super) fn new(session: &'s mut Session, job: &BatchJob) -> BatchFn<'s> {
        let varying = varying::varying(job.function, &job.varies);
        let b = Builder::new(session.module);
        BatchFn {
            session,
            src: job.function,
            dst: job.batched,
            width: job.width,
            varying,
            b,
            shared: Cloner::default(),
            lanes: HashMap::new(),
            phis: Vec::new(),
        }
    }

    pub(super) fn run(mut self) -> Result<()> {
        let order = self.shared.create_blocks(self.src, self.dst);
        let Some(entry) = order.first().and_then(|&b| self.shared.block(b)) else {
            return Err(Error::in_function(
                self.src,
                "cannot batch a function without a body",
            ));
        };
        self.b.position_at_end(entry);
        for (p, dp) in self.src.params().into_iter().zip(self.dst.params()) {
            if self.varying.contains(&p) {
                let lanes = (0..self.width)
                    .map(|k| self.b.extract_value(dp, k))
                    .collect();
                self.lanes.insert(p, lanes);
            } else {
                self.shared.set_primal(p, dp);
            }
        }
        for b in order {
            let Some(nb) = self.shared.block(b) else {
                continue;
            };
            self.b.position_at_end(nb);
            for i in b.instructions() {
                self.visit(i)?;
            }
            self.shared.set_exit_block(b, nb);
        }
        self.fill_phis();
        Ok(())
    }

    /// Lane `k`'s value of source value `v`.
    fn value(&self, v: Val, k: u32) -> Val {
        match self.lanes.get(&v) {
            Some(lanes) => lanes[k as usize],
            None => self.shared.map(v),
        }
    }

    fn varies(&self, v: Val) -> bool {
        self.varying.contains(&v)
    }

    fn visit(&mut self, i: Val) -> Result<()> {
        use Opcode::*;
        match i.opcode() {
            LLVMPHI => {
                let n = if self.varies(i) { self.width } else { 1 };
                let copies: Vec<Val> = (0..n)
                    .map(|_| {
                        let p = self.b.phi(i.ty());
                        p.set_name(&i.name());
                        p
                    })
                    .collect();
                if self.varies(i) {
                    self.lanes.insert(i, copies.clone());
                } else {
                    self.shared.set_primal(i, copies[0]);
                }
                self.phis.push((i, copies));
                Ok(())
            }
            LLVMBr | LLVMSwitch => {
                if i.operands().iter().any(|&o| self.varies(o)) {
                    return Err(Error::at(
                        i,
                        format!(
                            "__enzyme_batch: this branch depends on a lane-varying value ('{}'); the lanes of a batched function must take the same path: compute both sides and select (fmax, fmin, a conditional expression the compiler turns into a select), or branch on an enzyme_scalar value",
                            short(i.operand(0))
                        ),
                    ));
                }
                self.shared.clone_primal(&mut self.b, i);
                Ok(())
            }
            LLVMRet => self.visit_ret(i),
            LLVMInvoke | LLVMLandingPad | LLVMResume | LLVMIndirectBr | LLVMCallBr
            | LLVMCleanupPad | LLVMCatchPad | LLVMCatchSwitch | LLVMCatchRet | LLVMCleanupRet => {
                Err(Error::at(
                    i,
                    "__enzyme_batch: exception handling and indirect branches cannot be batched",
                ))
            }
            LLVMStore | LLVMAtomicRMW | LLVMAtomicCmpXchg => self.visit_write(i),
            LLVMCall => self.visit_call(i),
            _ => {
                self.copy(i);
                Ok(())
            }
        }
    }

    /// A copy of `i` once (shared) or once per lane (lane-varying).
    fn copy(&mut self, i: Val) {
        if !self.varies(i) {
            self.shared.clone_primal(&mut self.b, i);
            return;
        }
        let ops = i.operands();
        let mut lanes = Vec::with_capacity(self.width as usize);
        for k in 0..self.width {
            let c = i.clone_instruction();
            for (j, &o) in ops.iter().enumerate() {
                let o = match self.lanes.get(&o) {
                    Some(lanes) => lanes[k as usize],
                    None => self.shared.map_operand(i, j as u32, o),
                };
                c.set_operand(j as u32, o);
            }
            self.b.insert(c);
            let c = crate::ir::with_defined_mask(&mut self.b, c);
            let c = crate::contraction::settle_copy(&mut self.b, c);
            c.strip_metadata_except_tbaa();
            if !c.ty().is_void() {
                c.set_name(&i.name());
            }
            lanes.push(c);
        }
        self.lanes.insert(i, lanes);
    }

    /// Stores and atomic updates: once per lane through lane-varying pointers; through a
    /// shared pointer only a shared value (lanes would overwrite each other's).
    fn visit_write(&mut self, i: Val) -> Result<()> {
        let ptr = if i.opcode() == Opcode::LLVMStore {
            i.operand(1)
        } else {
            i.operand(0)
        };
        let lane_value = i.operands().iter().any(|&o| o != ptr && self.varies(o));
        if lane_value && !self.varies(ptr) {
            return Err(Error::at(
                i,
                format!(
                    "__enzyme_batch: stores a lane-varying value to memory every lane shares ('{}': a global, or a pointer passed with enzyme_scalar); the lanes would overwrite each other's value: give each lane its own memory (enzyme_vector or enzyme_buffer)",
                    short(ptr)
                ),
            ));
        }
        if self.varies(ptr) {
            // Each lane's copy reads its own pointer and value.
            self.varying.insert(i);
        }
        self.copy(i);
        Ok(())
    }

    fn visit_call(&mut self, i: Val) -> Result<()> {
        if !self.varies(i) && !i.call_args().iter().any(|&a| self.varies(a)) {
            self.copy(i);
            return Ok(());
        }
        let Some(callee) = i.called_function() else {
            return Err(Error::at(
                i,
                "__enzyme_batch: an indirect call with lane-varying arguments cannot be batched",
            ));
        };
        if !callee.is_declaration() {
            return self.call_batched(i, callee);
        }
        // A declaration runs once per lane: it must not write lane-varying data through a
        // pointer every lane shares.
        for (k, a) in i.call_args().into_iter().enumerate() {
            if a.ty().is_ptr() && !self.varies(a) && may_write_through(i, k as u32, a) {
                return Err(Error::at(
                    i,
                    format!(
                        "__enzyme_batch: '{}' runs once per lane and may write through '{}', which every lane shares (a global, or a pointer passed with enzyme_scalar); give each lane its own memory",
                        callee.name(),
                        short(a)
                    ),
                ));
            }
        }
        self.varying.insert(i);
        self.copy(i);
        Ok(())
    }

    /// A call of a function with a body given lane-varying arguments: a call of its batched
    /// function, the lanes of each varying argument packed, the result's unpacked.
    fn call_batched(&mut self, i: Val, callee: Val) -> Result<()> {
        let args = i.call_args();
        let varies: Vec<bool> = args.iter().map(|&a| self.varies(a)).collect();
        let batched = super::declare(self.session, callee, &varies, self.width)?;
        let mut packed = Vec::with_capacity(args.len());
        for &a in &args {
            packed.push(if self.varies(a) {
                let mut agg = super::lanes(a.ty(), self.width).poison();
                for k in 0..self.width {
                    let v = self.value(a, k);
                    agg = self.b.insert_value(agg, v, k);
                }
                agg
            } else {
                self.shared.map(a)
            });
        }
        let call = self.b.call_function(batched, &packed);
        if !i.ty().is_void() {
            let lanes = (0..self.width)
                .map(|k| self.b.extract_value(call, k))
                .collect();
            self.varying.insert(i);
            self.lanes.insert(i, lanes);
        }
        Ok(())
    }

    /// `ret`: every lane's result, as the `[N x R]` the batched function returns.
    fn visit_ret(&mut self, i: Val) -> Result<()> {
        if i.num_operands() == 0 {
            self.b.ret_void();
            return Ok(());
        }
        let v = i.operand(0);
        let mut agg = self.dst.function_type().return_type().poison();
        for k in 0..self.width {
            let l = self.value(v, k);
            agg = self.b.insert_value(agg, l, k);
        }
        self.b.ret(agg);
        Ok(())
    }

    /// Adds the incoming edges of every phi (each lane's copy takes that lane's values),
    /// skipping edges from unreachable blocks.
    fn fill_phis(&mut self) {
        let phis = std::mem::take(&mut self.phis);
        for (src, copies) in phis {
            for (v, from) in src.incoming() {
                for pred in self.shared.edge_sources(from, src.parent_block()) {
                    for (k, &p) in copies.iter().enumerate() {
                        p.add_incoming(self.value(v, k as u32), pred);
                    }
                }
            }
        }
    }
}

/// True unless call `i` is known not to write through its argument `k` (`a`): a constant,
/// a `readonly` or `readnone` parameter, or a callee whose rule writes no memory.
fn may_write_through(i: Val, k: u32, a: Val) -> bool {
    if a.is_null_constant() || (a.is_global_variable() && a.is_global_constant()) {
        return false;
    }
    if i.call_arg_has_attr(k, "readonly") || i.call_arg_has_attr(k, "readnone") {
        return false;
    }
    crate::rules::lookup_call(i).is_none_or(|r| r.effects.writes)
}
