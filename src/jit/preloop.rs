//! CTA-uniform values once per call, before the warp loop.
//!
//! The instructions of the kernel's first block (the first one with instructions that
//! every thread runs once, at its start) whose results are the same in every thread of the
//! CTA (`analysis::uniform::cta_uniform_entry`: `%ntid`/`%ctaid`/`%nctaid`-derived values,
//! `ld.param` from a CTA-uniform address, pure operations on them) would otherwise be
//! computed again by every warp's scalar section of that block. They are computed once in the call's
//! prologue instead, and reach the warp loop as SSA values (parameters of the block before
//! the loop, which dominates the loop's body):
//!
//! ```text
//! entry:  env fields
//! pre:    count == 0 or no lane of table[0] pending at the entry block → join(0, zeros, 0)
//!         the hoisted instructions; each ld.param tests its bounds inline, and a failing
//!         test → join(0, zeros, 0) (nothing is reported here)
//!         → cta: the per-call range checks (`ctacheck.rs`) → join(1, values, their flag)
//! join:   → warp loop
//! …
//! first block's scalar section (each warp):
//!         ok → the values from join; otherwise the instructions as before (`slow`), with
//!         their checks and fault reports for this warp's lanes
//! ```
//!
//! A check that fails before the loop therefore leaves every warp on the path it took
//! without the prologue: the fault names the same warp, lanes and instruction. Calls that run
//! no warp's entry block (the rounds after a barrier) skip the computation. Constants are
//! not carried (each use makes its own), nor are values that only other hoisted
//! instructions use.
//!
//! Such a value is *hidden* ([`Hoist::hides`]): it is in no register of the block's scalar
//! section and in no slot (its slot is shared scratch that other values of the warp state
//! overwrite, possibly in an earlier CTA whose state this one reuses). The memory-access
//! planners (`affine.rs`, `group.rs`) walk address definitions past the instructions'
//! operands (`Gen::const_offset_root`: `root + constant` chains) and read a scalar-section
//! value of the block from the section, else from its slot (`Gen::leaf_uniform`); both
//! treat a hidden value as not computed there (a hidden value read from its slot is another
//! value's bits: under lockstep order, where a block's segments keep their values in
//! slots, an address that a store of the previous CTA left there, and the accesses it
//! planned read the wrong memory without any fault). To keep accesses at constant offsets
//! from one root in one bounds check, the roots of those chains are carried too.

use super::codegen::{ctype, Gen};
use crate::analysis::uniform;
use crate::ir::{self, Effect, Op, Terminator};
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;
use std::collections::HashMap;

type CBlock = cranelift_codegen::ir::Block;

/// What is computed before the warp loop, and the values that carry it into the loop.
pub(super) struct Hoist {
    /// The block the instructions are in (`uniform::cta_uniform_entry`).
    pub(super) block: ir::Block,
    /// The hoisted instructions in program order (constants excluded).
    insts: Vec<ir::Inst>,
    /// Indexed by instruction: hoisted.
    hoisted: Vec<bool>,
    /// Results read by instructions or terminators that are not hoisted, and the roots of
    /// their `root + constant` chains: carried into the loop, in this order.
    out: Vec<ir::Value>,
    /// Indexed by value: in `out`.
    carried: Vec<bool>,
    /// The join block's flag (`i8`, 1: every value was computed) and values (one per `out`).
    ok: Option<Value>,
    vals: Vec<Value>,
    /// The per-call range checks of the first block's lane-strided accesses
    /// (`ctacheck.rs`): the join block's flag (`i8`, 1: they hold for every warp of the
    /// call), the block that computes it (filled after the warp loop's code, when the checks
    /// are known), the prologue's values of the hoisted instructions, and the checks asked
    /// for.
    pub(super) cta: super::ctacheck::CtaChecks,
}

impl Hoist {
    /// The join block's values of the carried results (one per result, in their order).
    pub(super) fn vals(&self) -> &[Value] {
        &self.vals
    }
}

impl Default for Hoist {
    fn default() -> Hoist {
        Hoist {
            block: ir::Block(0),
            insts: vec![],
            hoisted: vec![],
            out: vec![],
            carried: vec![],
            ok: None,
            vals: vec![],
            cta: Default::default(),
        }
    }
}

impl Hoist {
    /// Decide what to hoist: the CTA-uniform instructions of the first block that its scalar
    /// section computes (`scalar`, by instruction), taken in program order while their
    /// operands are hoisted too. A load is taken only while no other scalar-section
    /// instruction that can fault comes before it, so the in-loop path reports faults in
    /// program order as without the prologue.
    pub(super) fn plan(f: &ir::Function, scalar: &[bool]) -> Hoist {
        let Some((block, cand)) = uniform::cta_uniform_entry(f) else {
            return Hoist::default();
        };
        let cand: Vec<ir::Inst> = cand
            .into_iter()
            .filter(|i| scalar.get(i.index()).copied().unwrap_or(false))
            .collect();
        if cand.is_empty() {
            return Hoist::default();
        }
        let mut is_cand = vec![false; f.insts.len()];
        for i in &cand {
            is_cand[i.index()] = true;
        }
        let mut avail = vec![false; f.values.len()];
        let mut hoisted = vec![false; f.insts.len()];
        let mut insts = vec![];
        let mut fault_before = false;
        for &i in &f.block(block).insts {
            let d = f.inst(i);
            let load = matches!(d.op, Op::Load { .. });
            if is_cand[i.index()]
                && d.args.iter().all(|a| avail[a.index()])
                && !(load && fault_before)
            {
                for &r in &d.results {
                    avail[r.index()] = true;
                }
                if !matches!(d.op, Op::Const { .. }) {
                    hoisted[i.index()] = true;
                    insts.push(i);
                }
            } else if scalar[i.index()] && d.op.effect() != Effect::Pure {
                fault_before = true;
            }
        }
        // Values read outside the hoisted instructions.
        let mut used = vec![false; f.values.len()];
        for blk in &f.blocks {
            for &i in &blk.insts {
                if !hoisted[i.index()] {
                    for &a in &f.inst(i).args {
                        used[a.index()] = true;
                    }
                }
            }
            if let Terminator::Branch { cond, .. } = &blk.term {
                used[cond.index()] = true;
            }
            for c in blk.term.targets() {
                for &a in &c.args {
                    used[a.index()] = true;
                }
            }
        }
        // The roots of the `root + constant` chains of those values (the planners'
        // `Gen::const_offset_root` merges accesses at constant offsets from one root), in
        // reverse program order so that a chain's every link is marked before its root.
        for &i in insts.iter().rev() {
            let d = f.inst(i);
            if !d.results.iter().any(|r| used[r.index()]) {
                continue;
            }
            if let Some(root) = const_offset_operand(f, i) {
                used[root.index()] = true;
            }
        }
        let out: Vec<ir::Value> = insts
            .iter()
            .flat_map(|&i| f.inst(i).results.iter().copied())
            .filter(|r| used[r.index()])
            .collect();
        if out.is_empty() {
            return Hoist::default();
        }
        let mut carried = vec![false; f.values.len()];
        for v in &out {
            carried[v.index()] = true;
        }
        Hoist {
            block,
            insts,
            hoisted,
            out,
            carried,
            ok: None,
            vals: vec![],
            cta: Default::default(),
        }
    }

    /// Nothing to compute before the loop.
    pub(super) fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    /// Whether instruction `i` is computed before the loop (and skipped by the first
    /// block's scalar section, which takes its value from there).
    pub(super) fn contains(&self, i: ir::Inst) -> bool {
        self.hoisted.get(i.index()).copied().unwrap_or(false)
    }

    /// Whether `v` is the result of a hoisted instruction that is not carried into the loop
    /// (see the module comment): neither the scalar section nor its slot holds it.
    pub(super) fn hides(&self, v: ir::Value, f: &ir::Function) -> bool {
        match f.values[v.index()].def {
            ir::ValueDef::Result(i, _) => {
                self.contains(i) && !self.carried.get(v.index()).copied().unwrap_or(false)
            }
            ir::ValueDef::Param(..) => false,
        }
    }

    /// Give `join` its parameters: the flag, one per carried value, then the per-call range
    /// checks' flag (`ctacheck.rs`).
    pub(super) fn add_params(&mut self, b: &mut FunctionBuilder, f: &ir::Function, join: CBlock) {
        self.ok = Some(b.append_block_param(join, types::I8));
        self.vals = self
            .out
            .iter()
            .map(|&v| b.append_block_param(join, ctype(f.value_type(v))))
            .collect();
        self.cta.ok = Some(b.append_block_param(join, types::I8));
        self.cta.join = Some(join);
    }

    /// Whether `v` is carried into the warp loop (a hoisted result the first block's
    /// scalar section takes from the prologue).
    pub(super) fn carries(&self, v: ir::Value) -> bool {
        self.carried.get(v.index()).copied().unwrap_or(false)
    }
}

/// The non-constant operand of `i` when `i` is a 64-bit `iadd` of a compile-time constant
/// (a link of a `root + constant` chain, `Gen::const_offset_root`).
fn const_offset_operand(f: &ir::Function, i: ir::Inst) -> Option<ir::Value> {
    let d = f.inst(i);
    let (Op::IAdd {}, [r], [a, b]) = (&d.op, d.results.as_slice(), d.args.as_slice()) else {
        return None;
    };
    if f.value_type(*r) != ir::Type::I64 {
        return None;
    }
    let is_const = |v: ir::Value| match f.values[v.index()].def {
        ir::ValueDef::Result(c, 0) => matches!(f.inst(c).op, Op::Const { .. }),
        _ => false,
    };
    match (is_const(*a), is_const(*b)) {
        (_, true) => Some(*a),
        (true, false) => Some(*b),
        (false, false) => None,
    }
}

impl Gen<'_, '_> {
    /// An operand of a hoisted instruction: computed before (`local`), or a constant, made
    /// here.
    fn hoist_arg(
        &mut self,
        v: ir::Value,
        local: &HashMap<ir::Value, Value>,
        lane: Value,
    ) -> Result<Value, String> {
        if let Some(&x) = local.get(&v) {
            return Ok(x);
        }
        match self.f.values[v.index()].def {
            ir::ValueDef::Result(i, 0) if matches!(self.f.inst(i).op, Op::Const { .. }) => self
                .scalar_op(i, &[], lane)?
                .ok_or_else(|| format!("internal: constant {v} without a value")),
            ir::ValueDef::Result(..) | ir::ValueDef::Param(..) => Err(format!(
                "internal: operand {v} of a hoisted instruction is not hoisted"
            )),
        }
    }

    /// Fill `pre` (see the module comment): compute the hoisted instructions once and jump
    /// to `join` with the flag and the carried values. `table` and `count` are the call's
    /// warp-state table and warp count.
    pub(super) fn gen_preloop(
        &mut self,
        pre: CBlock,
        join: CBlock,
        table: Value,
        count: Value,
    ) -> Result<(), String> {
        self.b.switch_to_block(pre);
        let fail = self.b.create_block();
        let check = self.b.create_block();
        let compute = self.b.create_block();
        self.b.ins().brif(count, check, &[], fail, &[]);
        // Only a call whose first warp has lanes pending at the entry block runs it (the
        // first round of a CTA, where every warp starts there).
        self.b.switch_to_block(check);
        let state0 = self
            .b
            .ins()
            .load(self.ptr, super::codegen::TRUSTED(), table, 0);
        let prio = self.layout.prio[self.f.entry.index()];
        let pend = self.b.ins().load(
            types::I32,
            super::codegen::TRUSTED(),
            state0,
            self.layout.pending(prio) as i32,
        );
        self.b.ins().brif(pend, compute, &[], fail, &[]);

        self.b.switch_to_block(compute);
        let lane = self.b.ins().iconst(types::I32, 0);
        let mut local: HashMap<ir::Value, Value> = HashMap::new();
        for i in self.hoist.insts.clone() {
            let d = self.f.inst(i).clone();
            let mut argv = Vec::with_capacity(d.args.len());
            for &a in &d.args {
                argv.push(self.hoist_arg(a, &local, lane)?);
            }
            let r = match d.op {
                // `access_ptr`'s inline test for parameter memory; a failing one leaves the
                // access to each warp's own path.
                Op::Load {
                    space: ir::Space::Param,
                    align,
                } => {
                    let t = self.ty(d.results[0]);
                    let a0 = *argv.first().ok_or("ld.param without an address")?;
                    let a = self.addr64(a0, d.args[0]);
                    let ok = self.in_window(a, self.e.param_size, a, t.bytes(), u32::from(align));
                    let next = self.b.create_block();
                    self.b.ins().brif(ok, next, &[], fail, &[]);
                    self.b.switch_to_block(next);
                    let p = self.b.ins().iadd(self.e.param_base, a);
                    self.b
                        .ins()
                        .load(ctype(t), MemFlagsData::new().with_notrap(), p, 0)
                }
                _ => self
                    .scalar_op(i, &argv, lane)?
                    .ok_or_else(|| format!("internal: hoisted {i} without a result"))?,
            };
            let res = *d
                .results
                .first()
                .ok_or("hoisted instruction without a result")?;
            local.insert(res, r);
        }
        let one = self.b.ins().iconst(types::I8, 1);
        let mut args = vec![one];
        for v in self.hoist.out.clone() {
            let x = *local
                .get(&v)
                .ok_or_else(|| format!("internal: hoisted {v} not computed"))?;
            args.push(x);
        }
        // The per-call range checks' block ends the path (`ctacheck.rs`): it is filled,
        // and jumps to `join` with these values and its flag, once the warp loop's code has
        // asked for its checks.
        let cta = self.b.create_block();
        self.b.ins().jump(cta, &[]);
        self.hoist.cta.block = Some(cta);
        self.hoist.cta.pre = local;
        self.hoist.cta.args = args;

        self.b.switch_to_block(fail);
        let zero = self.b.ins().iconst(types::I8, 0);
        let mut args = vec![BlockArg::Value(zero)];
        for v in self.hoist.out.clone() {
            let x = match ctype(self.f.value_type(v)) {
                types::F32 => self.b.ins().f32const(0.0),
                types::F64 => self.b.ins().f64const(0.0),
                t => self.b.ins().iconst(t, 0),
            };
            args.push(BlockArg::Value(x));
        }
        args.push(BlockArg::Value(zero));
        self.b.ins().jump(join, &args);
        Ok(())
    }

    /// The hoisted part of the first block's scalar section: the values from before the loop
    /// when they were all computed there, else the instructions for this warp as without
    /// the prologue (`first`: the first active lane; the caller has set `uniform_mask`).
    /// Results go to `sc`, and those other blocks read to their slots (or to `defer`, as
    /// `scalar_section` does).
    pub(super) fn hoisted_section(
        &mut self,
        first: Value,
        sc: &mut HashMap<ir::Value, Value>,
        defer: Option<&mut Vec<(ir::Value, Value)>>,
    ) -> Result<(), String> {
        let ok = self
            .hoist
            .ok
            .ok_or("internal: hoisted values without a prologue")?;
        if self.stream.is_some() {
            // The stream loop's copy (`stream.rs`) runs only where the per-call flag is 1,
            // which it is only on the prologue's path that computed these values; the loop's
            // entry loaded them back from a slot of their own, once per loop.
            let out = self.hoist.out.clone();
            if self.hoist.vals.len() != out.len() {
                return Err("internal: hoisted values and their outputs disagree".into());
            }
            if self.stream_hoisted.len() != out.len() {
                return Err("internal: a stream loop's hoisted values not loaded".into());
            }
            let vals = self.stream_hoisted.clone();
            return self.hoisted_results(out.into_iter().zip(vals), sc, defer);
        }
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        let merge = self.b.create_block();
        let out = self.hoist.out.clone();
        let params: Vec<Value> = out
            .iter()
            .map(|&v| {
                let t = ctype(self.f.value_type(v));
                self.b.append_block_param(merge, t)
            })
            .collect();
        self.b.ins().brif(ok, fast, &[], slow, &[]);

        self.b.switch_to_block(slow);
        let mut local: HashMap<ir::Value, Value> = HashMap::new();
        for i in self.hoist.insts.clone() {
            let d = self.f.inst(i).clone();
            let mut argv = Vec::with_capacity(d.args.len());
            for &a in &d.args {
                argv.push(self.hoist_arg(a, &local, first)?);
            }
            let r = self
                .scalar_op(i, &argv, first)?
                .ok_or_else(|| format!("internal: hoisted {i} without a result"))?;
            let res = *d
                .results
                .first()
                .ok_or("hoisted instruction without a result")?;
            local.insert(res, r);
        }
        let mut args = Vec::with_capacity(out.len());
        for v in &out {
            let x = *local
                .get(v)
                .ok_or_else(|| format!("internal: hoisted {v} not computed"))?;
            args.push(BlockArg::Value(x));
        }
        self.b.ins().jump(merge, &args);

        self.b.switch_to_block(fast);
        let vals: Vec<BlockArg> = self
            .hoist
            .vals
            .iter()
            .map(|&x| BlockArg::Value(x))
            .collect();
        self.b.ins().jump(merge, &vals);

        self.b.switch_to_block(merge);
        self.hoisted_results(out.into_iter().zip(params), sc, defer)
    }

    /// The hoisted section's results `vals` (IR value, its value here) to `sc`, and those
    /// other blocks read to their slots (or to `defer`).
    fn hoisted_results(
        &mut self,
        vals: impl Iterator<Item = (ir::Value, Value)>,
        sc: &mut HashMap<ir::Value, Value>,
        mut defer: Option<&mut Vec<(ir::Value, Value)>>,
    ) -> Result<(), String> {
        for (v, x) in vals {
            sc.insert(v, x);
            if self.scalar_slot[v.index()] {
                match defer.as_deref_mut() {
                    Some(list) => list.push((v, x)),
                    None => self.splat_store(v, x)?,
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::segment::WarpOrder;
    use crate::ir::{self, Op};

    /// hoisted_root.ptx loads at constant offsets from `%pin` (an `ld.param`) and from
    /// `gtab` (a `symaddr`), which only the hoisted `root + constant` additions read: the
    /// roots are carried into the warp loop, so that the planners never read them from
    /// their (scratch) slots.
    #[test]
    fn constant_offset_roots_are_carried() {
        let ptx = include_str!("../../ptx-tests/kernels/hoisted_root/hoisted_root.ptx");
        let (_, fs) = crate::host::front_end(ptx, "hoisted_root.ptx").expect("front end");
        let f = fs.first().expect("kernel");
        let roots: Vec<ir::Value> = (0..f.insts.len())
            .map(|i| f.inst(ir::Inst(i as u32)))
            .filter(|d| {
                matches!(
                    d.op,
                    Op::SymAddr { .. }
                        | Op::Load {
                            space: ir::Space::Param,
                            ..
                        }
                )
            })
            .flat_map(|d| d.results.iter().copied())
            .collect();
        assert_eq!(roots.len(), 3, "%pin, %pout and gtab");
        for order in [WarpOrder::GroupMajor, WarpOrder::Lockstep] {
            let plan = crate::jit::codegen::plan(f, order);
            let h = &plan.hoist;
            assert!(!h.is_empty(), "{order:?}: nothing hoisted");
            for &v in &roots {
                let ir::ValueDef::Result(i, _) = f.values[v.index()].def else {
                    panic!("{v} is no result");
                };
                assert!(h.contains(i), "{order:?}: {v} not hoisted");
                assert!(!h.hides(v, f), "{order:?}: root {v} not carried");
            }
        }
    }
}
