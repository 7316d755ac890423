//! Warp collectives as inline SIMD code: `vote` (`all`, `any`, `uni`, `ballot`), `activemask`,
//! `elect` and `shfl.sync` with a warp-uniform membermask, instead of a call of
//! `helpers::warp_helper` / `helpers::shfl_helper` per warp.
//!
//! ⚠ Each form must equal `runtime::warp::exec` (and `helpers::shfl_helper`) bit for bit, which
//! the interpreter runs; `ptxjit check`, the fuzzer and the `vote_*`/`shfl_*` ptx-tests compare
//! the engines. What the argument rests on:
//! - A `.sync` collective is lowered after its `warpsync` (`lower::collective::warp_wait`),
//!   which makes lanes wait, or reports a membermask that names lanes that cannot arrive; the
//!   collective itself is a pure function of the lanes of the execution mask `mask` that reach
//!   it. Lane `l` takes part with `group(l) = membermask(l) & mask` (`runtime::semantics`,
//!   "Warp collectives"). Only a membermask that is warp-uniform here
//!   (`Uniformity::uniform_at`, read once as a scalar) is inlined: then every lane has the same
//!   group, `x & mask`. A membermask that differs between lanes takes the helper.
//! - Operands are read from their 32-lane slots, as the helper reads them; lanes outside
//!   `mask` hold stale values there, and every formula masks them out through `group`.
//! - Results are written for the lanes of `mask` only where the value is read in another
//!   block (`cross_block`: another lane may still need its earlier value in that slot); a
//!   value used only in this block lives in a scratch slot that no other lane reads.
//! - The JIT's predicate slots are 32-bit lanes holding 0 or 1 (`schedule_with`'s
//!   `pred_bytes`); any other layout takes the helper.
//! - `shfl.sync` is inlined when its lane operand `b` and clamp operand `c` are constants: the
//!   source lane `j(l)` and the predicate `p(l)` of every lane then follow from
//!   `semantics::shfl` at compile time, and the one run-time input, whether `j(l)` is in the
//!   group, is a bit test of `x & mask`. `semantics::shfl` reads lane `j` when `p(l)` and `j`
//!   is a member, and the lane's own value otherwise; `p(l)` alone is the predicate.

use super::codegen::{Gen, TRUSTED};
use crate::analysis::segment::{GROUPS as GROUP_COUNT, GROUP_LANES};
use crate::ir::{self, Op, ShflMode, VoteMode};
use crate::runtime::semantics;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, ConstantData, InstBuilder, Value};
use std::collections::HashMap;

/// Lanes per 128-bit vector of 32-bit lanes (a group, `analysis::segment`).
const LANES: u32 = GROUP_LANES;
/// Vectors of 32-bit lanes per warp.
const GROUPS: usize = GROUP_COUNT as usize;

impl Gen<'_, '_> {
    /// Emit warp op `i` inline when its form allows (see the module comment); `Ok(false)`
    /// when it must go through its runtime helper.
    pub(super) fn gen_collective_inline(
        &mut self,
        i: ir::Inst,
        mask: Value,
        sc: &HashMap<ir::Value, Value>,
        first: Value,
        blk: ir::Block,
    ) -> Result<bool, String> {
        if self.layout.pred_bytes != 4 || LANES != 4 || GROUPS != 8 {
            return Ok(false);
        }
        let d = self.f.inst(i).clone();
        let slots_ok = d
            .args
            .iter()
            .chain(&d.results)
            .all(|v| self.layout.slot[v.index()] != u32::MAX);
        if !slots_ok {
            return Ok(false);
        }
        // The warp-uniform membermask operand `k`, as a scalar.
        let mut member = |g: &mut Self, k: usize| -> Result<Option<Value>, String> {
            match d.args.get(k) {
                Some(&m) => g.uniform_operand(m, blk, sc, first),
                None => Ok(None),
            }
        };
        match d.op {
            Op::Vote { mode } => {
                if d.args.len() != 2 || d.results.len() != 1 {
                    return Ok(false);
                }
                let Some(x) = member(self, 1)? else {
                    return Ok(false);
                };
                let preds = self.pred_bits(d.args[0]);
                let group = self.b.ins().band(x, mask);
                let t = self.b.ins().band(preds, group);
                let r = match mode {
                    VoteMode::Ballot => t,
                    VoteMode::All => self.b.ins().icmp(IntCC::Equal, t, group),
                    VoteMode::Any => self.b.ins().icmp_imm_s(IntCC::NotEqual, t, 0),
                    VoteMode::Uni => {
                        let none = self.b.ins().icmp_imm_s(IntCC::Equal, t, 0);
                        let all = self.b.ins().icmp(IntCC::Equal, t, group);
                        self.b.ins().bor(none, all)
                    }
                };
                let r = if mode == VoteMode::Ballot {
                    r
                } else {
                    self.b.ins().uextend(types::I32, r)
                };
                let v = self.b.ins().splat(types::I32X4, r);
                self.lanes_store(d.results[0], [v; GROUPS], mask);
                Ok(true)
            }
            Op::Activemask {} => {
                if d.results.len() != 1 {
                    return Ok(false);
                }
                let v = self.b.ins().splat(types::I32X4, mask);
                self.lanes_store(d.results[0], [v; GROUPS], mask);
                Ok(true)
            }
            Op::Elect {} => {
                if d.args.len() != 1 || d.results.len() != 2 {
                    return Ok(false);
                }
                let Some(x) = member(self, 0)? else {
                    return Ok(false);
                };
                // semantics::elect: the leader is the lowest lane of the group (0 for an
                // empty group), and a lane is elected when it is that lane of a non-empty
                // group: its bit of `group & -group`.
                let group = self.b.ins().band(x, mask);
                let tz = self.b.ins().ctz(group);
                let leader = self.b.ins().band_imm_s(tz, 31);
                let neg = self.b.ins().ineg(group);
                let low = self.b.ins().band(group, neg);
                let lv = self.b.ins().splat(types::I32X4, leader);
                self.lanes_store(d.results[0], [lv; GROUPS], mask);
                let me = self.bit_lanes(low, std::array::from_fn(|l| l as u32));
                let one = self.vconst_i32([1; 4]);
                let me = me.map(|m| self.b.ins().band(m, one));
                self.lanes_store(d.results[1], me, mask);
                Ok(true)
            }
            Op::Shfl { mode } => self.shfl_inline(&d, mode, mask, &mut member),
            _ => Ok(false),
        }
    }

    /// Operand `v` of an instruction in block `blk` as one scalar for the warp, when it is the
    /// same in every lane: a constant, or a value `Uniformity::uniform_at` that block (from
    /// the block's scalar section `sc`, or read at lane `first`). `None` when lanes may differ.
    /// A 32-bit constant is made in place.
    pub(super) fn uniform_operand(
        &mut self,
        v: ir::Value,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        first: Value,
    ) -> Result<Option<Value>, String> {
        if let Some(bits) = self.f.const_bits(v) {
            let t = self.ty(v);
            if matches!(t, ir::Type::I32) {
                return Ok(Some(self.b.ins().iconst(types::I32, bits as u32 as i64)));
            }
        }
        if !self.uni.uniform_at(v, blk) {
            return Ok(None);
        }
        Ok(Some(match sc.get(&v) {
            Some(&x) => x,
            None => self.uniform_get(v, first)?,
        }))
    }

    /// `shfl.sync` with constant `b` and `c` and a warp-uniform membermask (module comment).
    fn shfl_inline(
        &mut self,
        d: &ir::InstData,
        mode: ShflMode,
        mask: Value,
        member: &mut impl FnMut(&mut Self, usize) -> Result<Option<Value>, String>,
    ) -> Result<bool, String> {
        if d.args.len() != 4 || d.results.len() != 2 || self.ty(d.args[0]).bytes() != 4 {
            return Ok(false);
        }
        let (Some(b), Some(c)) = (self.f.const_bits(d.args[1]), self.f.const_bits(d.args[2]))
        else {
            return Ok(false);
        };
        let Some(x) = member(self, 3)? else {
            return Ok(false);
        };
        // Source lane and predicate of every lane with every lane a member: (j, true) when
        // lane j is read, (lane, p) when the lane keeps its own value.
        let mut src = [0u32; 32];
        let mut pred = [0i32; 32];
        for l in 0..32u32 {
            let (j, p) = semantics::shfl(mode, l, b as u32, c as u32, u32::MAX);
            src[l as usize] = j & 31;
            pred[l as usize] = p as i32;
        }
        let members = self.b.ins().band(x, mask);
        let ok = self.bit_lanes(members, src);
        let val_slot = self.layout.slot[d.args[0].index()];
        let s = self.state();
        let mut res = [ok[0]; GROUPS];
        for (g, r) in res.iter_mut().enumerate() {
            let k = g * LANES as usize;
            let own = self.b.ins().load(
                types::I32X4,
                TRUSTED(),
                s,
                (val_slot + 16 * g as u32) as i32,
            );
            let from: [u32; 4] = std::array::from_fn(|q| src[k + q]);
            let got = if from == [k as u32, k as u32 + 1, k as u32 + 2, k as u32 + 3] {
                own
            } else {
                self.gather_lanes(val_slot, from)
            };
            *r = self.b.ins().bitselect(ok[g], got, own);
        }
        self.lanes_store(d.results[0], res, mask);
        let p: [Value; GROUPS] = std::array::from_fn(|g| {
            let k = g * LANES as usize;
            [pred[k], pred[k + 1], pred[k + 2], pred[k + 3]]
        })
        .map(|v| self.vconst_i32(v));
        self.lanes_store(d.results[1], p, mask);
        Ok(true)
    }

    /// The four 32-bit lanes `from` (lane indices 0..32) of the slot at `slot`, as an `i32x4`:
    /// one load when they are consecutive, one load and a byte shuffle when they lie in one
    /// aligned vector, lane loads otherwise.
    fn gather_lanes(&mut self, slot: u32, from: [u32; 4]) -> Value {
        let s = self.state();
        let k0 = from[0];
        if (0..4).all(|q| from[q as usize] == k0 + q) {
            return self
                .b
                .ins()
                .load(types::I32X4, TRUSTED(), s, (slot + 4 * k0) as i32);
        }
        let g0 = from[0] / LANES;
        if from.iter().all(|&j| j / LANES == g0) {
            let v = self
                .b
                .ins()
                .load(types::I32X4, TRUSTED(), s, (slot + 16 * g0) as i32);
            let v8 = self.vbitcast(v, types::I8X16);
            let mut idx = [0u8; 16];
            for (q, &j) in from.iter().enumerate() {
                for k in 0..4 {
                    idx[4 * q + k] = (4 * (j % LANES) + k as u32) as u8;
                }
            }
            let imm = self
                .b
                .func
                .dfg
                .immediates
                .push(ConstantData::from(idx.to_vec()));
            let r = self.b.ins().shuffle(v8, v8, imm);
            return self.vbitcast(r, types::I32X4);
        }
        let lanes = from.map(|j| {
            self.b
                .ins()
                .load(types::I32, TRUSTED(), s, (slot + 4 * j) as i32)
        });
        let mut v = self.b.ins().scalar_to_vector(types::I32X4, lanes[0]);
        for (q, &x) in lanes.iter().enumerate().skip(1) {
            v = self.b.ins().insertlane(v, x, q as u8);
        }
        v
    }

    /// The predicates of the 32 lanes of predicate value `v`'s slot as a mask (bit `l` set
    /// when lane `l`'s predicate is true).
    fn pred_bits(&mut self, v: ir::Value) -> Value {
        let slot = self.layout.slot[v.index()];
        let s = self.state();
        let zero = self.vconst_i32([0; 4]);
        let mut acc = self.b.ins().iconst(types::I32, 0);
        for g in 0..GROUPS as u32 {
            let p = self
                .b
                .ins()
                .load(types::I32X4, TRUSTED(), s, (slot + 16 * g) as i32);
            let t = self.b.ins().icmp(IntCC::NotEqual, p, zero);
            let bits = self.b.ins().vhigh_bits(types::I32, t);
            let bits = self.b.ins().ishl_imm_s(bits, (LANES * g) as i64);
            acc = self.b.ins().bor(acc, bits);
        }
        acc
    }

    /// For each group of four lanes, an `i32x4` that is all ones in lane `q` when bit
    /// `bit[4g + q]` of the scalar `m` is set, else 0.
    fn bit_lanes(&mut self, m: Value, bit: [u32; 32]) -> [Value; GROUPS] {
        let sm = self.b.ins().splat(types::I32X4, m);
        let zero = self.vconst_i32([0; 4]);
        std::array::from_fn(|g| {
            let k = g * LANES as usize;
            let sel = self.vconst_i32(std::array::from_fn(|q| (1u32 << (bit[k + q] & 31)) as i32));
            let t = self.b.ins().band(sm, sel);
            self.b.ins().icmp(IntCC::NotEqual, t, zero)
        })
    }

    /// Store eight `i32x4` (lanes 0..32) to the slot of `v`, a 32-bit or predicate value; when
    /// `v` is read in other blocks, only the lanes of `mask` change.
    fn lanes_store(&mut self, v: ir::Value, vals: [Value; GROUPS], mask: Value) {
        let slot = self.layout.slot[v.index()];
        let blend = self.cross_block[v.index()];
        let lm = blend.then(|| self.bit_lanes(mask, std::array::from_fn(|l| l as u32)));
        let s = self.state();
        for (g, &x) in vals.iter().enumerate() {
            let off = (slot + 16 * g as u32) as i32;
            let x = match &lm {
                Some(lm) => {
                    let old = self.b.ins().load(types::I32X4, TRUSTED(), s, off);
                    self.b.ins().bitselect(lm[g], x, old)
                }
                None => x,
            };
            self.b.ins().store(TRUSTED(), x, s, off);
        }
    }
}
