//! Range checks of lane-strided accesses, and the branch conditions decided for whole warps,
//! once per call instead of once per warp.
//!
//! A lane-strided access (`affine.rs`) is fast when one test holds for its warp: virtual
//! lane 0's address replayed with the warp's `%tid.x`, the window test of its 32 lanes'
//! range, alignment, checked memory off, the launch fact and no wrap of widened operands.
//! In the kernel's first block, where the address depends only on `%tid.x` and values
//! computed before the warp loop (`preloop.rs`: `%ctaid`, `%ntid`, parameters), the tests of
//! every warp of a call follow from those of its first and last warps. The prologue makes
//! them once (the block `cta` between the hoisted instructions and the warp loop) and
//! passes one flag; a warp's block tests the flag and, where it is 0, makes its own tests as
//! before:
//!
//! ```text
//! pre → … hoisted values … → cta: flag = tests(first warp) && tests(last warp) && 1-D CTA
//!                                       && no widened operand wraps between them
//!                           → join(1, values, flag) → warp loop
//! first block, each warp:   replay lane 0's address (the pointers of the fast accesses)
//!                           flag ? all ok : the per-warp tests (unchanged)
//! ```
//!
//! # ⚠ Soundness: read before changing
//! The flag may be 1 only where every warp `w` of the call (`first ≤ w ≤ last`, warps of one
//! CTA) would pass its own tests in this block. This holds because:
//! - the flag is 1 only on the prologue's path that computed the hoisted values (the fail
//!   path passes 0), so the first block's scalar section takes exactly those values, and
//!   the next CTA of a batch runs the prologue again;
//! - the address's replay recipe ([`Lane0`]) is decided with the per-warp replay's own rules
//!   (`Gen::replay_lane0`), and accepted only where every leaf is a hoisted value, a
//!   constant, a CTA-constant special register or `%tid.x` (never a value read from a slot,
//!   nor `%laneid`): so virtual lane 0's address of warp `w` is a function of `tid0(w)`
//!   alone, the same function in the prologue and in the warp;
//! - in a 1-D CTA (`ntid.y = ntid.z = 1`, tested) `tid0(w) = 32 · w`, so the tids the
//!   warps' tests cover (lanes 0..31 of each, active or not) are the one progression
//!   `tid0(first) ..= tid0(last) + 31` of at most 1024 terms;
//! - linear operations are exact modulo their width, so only widenings (`mul.wide`, `cvt`
//!   to 64 bits) can break the progression: a widened operand's stride is at most
//!   [`CTA_MAX_STRIDE`] at compile time, so over 1024 terms it spans less than 2^31 and
//!   crosses its wrap-around point at most once; the first and last warps' own no-wrap
//!   tests cover their 32 lanes, and `x(last) ≥ x(first)` in the direction of the stride
//!   (signed or unsigned as the widening) covers the rest, a crossing in between putting
//!   `x(last)` on the wrong side;
//! - with the address then `a(first) + 32 · stride · (w − first)` exactly (modulo 2^64), the
//!   window offsets of the warps lie between the first's and the last's (both below the
//!   window's size, a difference below 2^35, so no wrap-around in between): their ranges
//!   lie inside the union of the first's and the last's, which lie in the window; and each
//!   warp's alignment follows from the first's, the distance `32 · stride` being a multiple
//!   of every tested alignment (the planner's rules, `affine.rs`);
//! - the launch fact and checked memory are the same for all warps of the call; both are
//!   part of the first and last warps' tests;
//! - a branch condition of the region (`Gen::warp_cond`: a threshold compare of a
//!   lane-affine value `x` against a uniform one) is covered the same way: `x` is replayed
//!   for the first and last warps, each warp's own test (no wrap across its lanes, the
//!   wanted value at the end lane that would differ first) is made for both, and `x(last) ≥
//!   x(first)` in the stride's direction (the compare's signedness, stride at most
//!   [`CTA_MAX_STRIDE`]) rules out a wrap in between; along that monotone progression the
//!   compare changes at most once, so having the wanted value in every lane of the first
//!   and of the last warp, it has it in every lane of every warp between.
//!
//! Stores still test the warp's full mask, and faults are unchanged: where the flag is 0
//! every warp makes its tests, and a failing one takes the general path that finds and
//! reports the lowest faulting thread, as without this file.
//!
//! In a region ([`Deferred`], `Gen::region_loops`) the per-warp tests the flag covers are
//! not merged with the flag where they are planned: the full-warp version is entered from
//! one test, `flag && mask == all lanes && the conditions the flag does not cover`, under
//! which each covered test would be 1 (a store's includes the full mask, tested there);
//! otherwise the per-warp tests are made, exactly as without the flag (for a partial warp
//! whose flag is 1 too, where they hold or are exact), and the usual full-warp test
//! follows. The full-warp version reads none of them (`Gen::branch_ok`). Not in a region
//! whose skipping version (`Gen::region_skip`), tested first, may need them.

use super::codegen::{Gen, FRAME_COUNT, FRAME_FIRST, TRUSTED};
use crate::ir::{self, Op};
use crate::runtime::env::CtaEnv;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, Value};
use std::collections::HashMap;
use std::mem::offset_of;

type CBlock = cranelift_codegen::ir::Block;

/// Largest stride magnitude of a widened operand in a per-call check: 1023 · 2^20 < 2^31,
/// so across a CTA's 1024 threads the operand crosses its wrap-around point at most once.
const CTA_MAX_STRIDE: i64 = 1 << 20;

/// Deepest definition chain followed (as `affine.rs`).
const MAX_DEPTH: u32 = 12;

/// The per-call range checks of the first block and what computes them (see the module
/// docs).
#[derive(Default)]
pub(super) struct CtaChecks {
    /// The join block's flag (`i8`, 1: every check asked for holds for every warp).
    pub(super) ok: Option<Value>,
    /// The block after the warp loop's prologue (`preloop.rs`).
    pub(super) join: Option<CBlock>,
    /// The block that computes the flag, between the hoisted instructions and `join`.
    pub(super) block: Option<CBlock>,
    /// The prologue's values of the hoisted instructions.
    pub(super) pre: HashMap<ir::Value, Value>,
    /// `join`'s arguments on the prologue's computing path, before the flag.
    pub(super) args: Vec<Value>,
    /// The checks asked for.
    ranges: Vec<CtaRange>,
    conds: Vec<CtaCond>,
    /// In a region whose full-warp version is entered from one test of the flag and the
    /// full mask (`Gen::region_loops`): the per-warp tests the flag covers, made only on
    /// the other path.
    pub(super) deferred: Option<Deferred>,
}

/// Per-warp tests that the per-call flag covers, made only where the flag is 0 or the warp
/// is partial (see [`Deferred::emit`]). Each test's result is a parameter of `block`, the
/// block after the tests, so the code planned before the tests are made (the general group
/// loop's accesses) can name it.
pub(super) struct Deferred {
    /// The block the tests' results enter, as its parameters in test order.
    pub(super) block: CBlock,
    tests: Vec<DeferredTest>,
}

/// One deferred per-warp test (`i8` 0/1).
pub(super) enum DeferredTest {
    /// `Gen::window_ok` of one group of lane-strided accesses, and the replay's run-time
    /// conditions.
    Window {
        a_lo: Value,
        space: ir::Space,
        lo: i64,
        hi: i64,
        elem: i64,
        stride: i64,
        aligns: Vec<(i64, i64)>,
        checks: Vec<Value>,
    },
    /// `Gen::warp_cond`'s per-warp test of the compare `d` in block `blk` (scalar section
    /// `sc`, first active lane `first`).
    Cond {
        d: ir::InstData,
        blk: ir::Block,
        sc: HashMap<ir::Value, Value>,
        first: Value,
        shape: CondShape,
    },
    /// An earlier test's result (by index) and `full` (a store's: all 32 lanes active).
    And { test: usize, full: Value },
}

impl Deferred {
    /// A new set of deferred tests entering `block`.
    pub(super) fn new(block: CBlock) -> Self {
        Deferred {
            block,
            tests: vec![],
        }
    }

    /// Whether `v` is a deferred test's result.
    pub(super) fn holds(&self, g: &Gen<'_, '_>, v: Value) -> bool {
        g.b.func.dfg.block_params(self.block).contains(&v)
    }

    /// Whether there is no test.
    pub(super) fn is_empty(&self) -> bool {
        self.tests.is_empty()
    }
}

impl Gen<'_, '_> {
    /// Defer `t` where the current region defers the flag's tests (returns its result, a
    /// parameter of the deferred block), else `None`.
    pub(super) fn defer(&mut self, t: DeferredTest) -> Option<Value> {
        let d = self.hoist.cta.deferred.as_mut()?;
        let v = self.b.append_block_param(d.block, types::I8);
        d.tests.push(t);
        Some(v)
    }

    /// [`Self::defer`] where the caller has checked that the current region defers the
    /// flag's tests.
    pub(super) fn defer_in_region(&mut self, t: DeferredTest) -> Result<Value, String> {
        self.defer(t)
            .ok_or_else(|| "internal: no deferred tests".to_string())
    }

    /// The per-call flag `cta_ok` merged with `n` per-warp tests (`i8` 0/1): where the flag
    /// is 1, constant 1s; else the results of `per_warp`, made only on that path. They meet
    /// as parameters of a new block, which becomes the current one; returns them.
    pub(super) fn or_per_warp(
        &mut self,
        cta_ok: Value,
        n: usize,
        per_warp: impl FnOnce(&mut Self) -> Result<Vec<Value>, String>,
    ) -> Result<Vec<Value>, String> {
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        let merge = self.b.create_block();
        for _ in 0..n {
            self.b.append_block_param(merge, types::I8);
        }
        self.b.ins().brif(cta_ok, fast, &[], slow, &[]);
        self.b.switch_to_block(slow);
        let oks = per_warp(self)?;
        if oks.len() != n {
            return Err("internal: per-warp tests and their merge disagree".into());
        }
        let oks: Vec<BlockArg> = oks.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(merge, &oks);
        self.b.switch_to_block(fast);
        let one = self.iconst(types::I8, 1);
        self.b.ins().jump(merge, &vec![BlockArg::Value(one); n]);
        self.b.switch_to_block(merge);
        Ok(self.b.block_params(merge).to_vec())
    }

    /// The index of the deferred test whose result is `v`.
    pub(super) fn deferred_index(&self, v: Value) -> Option<usize> {
        let d = self.hoist.cta.deferred.as_ref()?;
        self.b.block_params(d.block).iter().position(|&p| p == v)
    }

    /// Make the tests of `d` at the current position and jump with their results to its
    /// block, which becomes the current one.
    pub(super) fn emit_deferred(&mut self, d: Deferred) -> Result<(), String> {
        let mut vals: Vec<Value> = Vec::with_capacity(d.tests.len());
        for t in d.tests {
            let v = match t {
                DeferredTest::Window {
                    a_lo,
                    space,
                    lo,
                    hi,
                    elem,
                    stride,
                    aligns,
                    checks,
                } => {
                    let mut ok = self.window_ok(a_lo, space, lo, hi, elem, stride, &aligns)?;
                    for c in checks {
                        ok = self.b.ins().band(ok, c);
                    }
                    ok
                }
                DeferredTest::Cond {
                    d,
                    blk,
                    sc,
                    first,
                    shape,
                } => self.warp_cond_per_warp(&d, blk, &sc, first, shape)?,
                DeferredTest::And { test, full } => {
                    let ok = *vals.get(test).ok_or_else(|| {
                        "internal: a deferred test before its operand".to_string()
                    })?;
                    self.b.ins().band(ok, full)
                }
            };
            vals.push(v);
        }
        let args: Vec<BlockArg> = vals.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(d.block, &args);
        self.b.switch_to_block(d.block);
        Ok(())
    }
}

impl CtaChecks {
    /// How many range checks and branch conditions have been asked for.
    pub(super) fn counts(&self) -> (usize, usize) {
        (self.ranges.len(), self.conds.len())
    }

    /// Drop the checks asked for after `second` (counts, [`Self::counts`]) where they repeat
    /// those asked for between `first` and `second`: a second copy of the same region's code
    /// (`stream.rs`), planned by the same rules from the same IR, asks for the same checks in
    /// the same order. Where their numbers differ, all are kept (the flag then covers both
    /// sets, and is 1 no more often).
    pub(super) fn drop_repeats(&mut self, first: (usize, usize), second: (usize, usize)) {
        let now = self.counts();
        let once = (second.0 - first.0, second.1 - first.1);
        if now.0 - second.0 == once.0 && now.1 - second.1 == once.1 {
            self.ranges.truncate(second.0);
            self.conds.truncate(second.1);
        }
    }

    /// Ask for `ranges` to be checked (the flag then covers them).
    pub(super) fn add(&mut self, ranges: Vec<CtaRange>) {
        self.ranges.extend(ranges);
    }

    /// Ask for a branch condition to be checked (the flag then covers it).
    pub(super) fn add_cond(&mut self, c: CtaCond) {
        self.conds.push(c);
    }
}

/// The shape of a threshold compare that `Gen::warp_cond` decides for a whole warp: the
/// operand `k` varies across the lanes with stride `s`, the other is uniform.
#[derive(Clone, Copy)]
pub(super) struct CondShape {
    pub(super) k: usize,
    pub(super) s: i64,
    /// `gt`/`ge` (else `lt`/`le`).
    pub(super) greater: bool,
    pub(super) cc: ir::ICmp,
    pub(super) sign: ir::Sign,
    /// The value every lane must have.
    pub(super) want: bool,
}

/// A branch condition of the first block's region (`Gen::warp_cond`) whose per-warp test
/// the flag covers: the same value `want` in every lane of every warp of the call.
pub(super) struct CtaCond {
    a: Lane0,
    b: Lane0,
    shape: CondShape,
}

/// How virtual lane 0's value of an address is replayed, decided at compile time with the
/// per-warp replay's rules (`Gen::replay_lane0`).
enum Lane0 {
    /// A hoisted value: the prologue's.
    Pre(ir::Value),
    /// `%tid.x`: the warp's lane 0 from the `%tid` table.
    Tid,
    /// The instruction on its operands' replays; a widened operand `(index, stride,
    /// signed)` whose progression must not wrap.
    Op {
        inst: ir::Inst,
        args: Vec<Lane0>,
        widen: Option<(usize, i64, bool)>,
    },
}

/// One group of lane-strided accesses (`affine.rs`) whose per-warp test the flag covers.
pub(super) struct CtaRange {
    root: Lane0,
    /// The root is 32 bits wide (zero-extended, as the per-warp replay does).
    narrow: bool,
    space: ir::Space,
    lo: i64,
    hi: i64,
    elem: i64,
    stride: i64,
    aligns: Vec<(i64, i64)>,
}

/// A planner's group: (root, space, offset mod size, size, stride) and its members
/// (instruction, constant offset, store, alignment).
type Group<'a> = (
    (ir::Value, ir::Space, i64, i64, i64),
    &'a [(ir::Inst, i64, bool, i64)],
);

impl Gen<'_, '_> {
    /// The per-call checks that stand for the per-warp tests of `groups`, block `blk`'s
    /// planned accesses (`Gen::plan_fast_mem`, `sc`: its scalar section): `None` unless `blk`
    /// is the first block with a prologue and every group qualifies (see the module docs).
    pub(super) fn cta_ranges<'a>(
        &self,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        groups: impl Iterator<Item = Group<'a>>,
    ) -> Option<Vec<CtaRange>> {
        if !self.cta_block(blk) {
            return None;
        }
        let mut out = vec![];
        for ((root, space, _, elem, stride), members) in groups {
            let window = match space {
                ir::Space::Global | ir::Space::Const => true,
                ir::Space::Shared | ir::Space::Local | ir::Space::Param | ir::Space::Generic => {
                    false
                }
            };
            if !window || stride.abs() > CTA_MAX_STRIDE {
                return None;
            }
            let lo = members.iter().map(|m| m.1).min()?;
            let hi = members.iter().map(|m| m.1).max()?;
            out.push(CtaRange {
                root: self.lane0_recipe(root, blk, sc, 0)?,
                narrow: self.ty(root) == ir::Type::I32,
                space,
                lo,
                hi,
                elem,
                stride,
                aligns: super::affine::tested_aligns(members.iter().map(|m| (m.1, m.3)), elem),
            });
        }
        Some(out)
    }

    /// The per-call form of `Gen::warp_cond`'s test of `d` (a threshold compare of shape
    /// `shape`, block `blk`, scalar section `sc`): `None` unless `blk` is in the first
    /// block's region, both operands have recipes and the varying one's stride is at most
    /// [`CTA_MAX_STRIDE`] (so over a CTA's 1024 threads it spans less than half its range).
    pub(super) fn cta_cond(
        &self,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        d: &ir::InstData,
        shape: CondShape,
    ) -> Option<CtaCond> {
        if !self.cta_block(blk) || shape.s.abs() > CTA_MAX_STRIDE {
            return None;
        }
        let (&a, &b) = (d.args.first()?, d.args.get(1)?);
        Some(CtaCond {
            a: self.lane0_recipe(a, blk, sc, 0)?,
            b: self.lane0_recipe(b, blk, sc, 0)?,
            shape,
        })
    }

    /// Whether the per-call checks can cover block `blk`'s tests: the prologue computes
    /// them, and `blk` is the first block or in a region that holds it (whose scalar
    /// sections all run at its top, the first block's included).
    fn cta_block(&self, blk: ir::Block) -> bool {
        let first_block = blk == self.hoist.block
            || self
                .region
                .as_ref()
                .is_some_and(|r| r.blocks.contains(&self.hoist.block) && r.blocks.contains(&blk));
        self.hoist.cta.ok.is_some()
            && self.hoist.cta.block.is_some()
            && !self.hoist.is_empty()
            && first_block
    }

    /// `v`'s replay recipe at the top of `blk`, following `Gen::replay_lane0`'s order of
    /// rules; `None` where a leaf is not CTA-uniform or `%tid.x`.
    fn lane0_recipe(
        &self,
        v: ir::Value,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        depth: u32,
    ) -> Option<Lane0> {
        if depth > MAX_DEPTH || self.lane_stride(v, blk, 0).is_none() {
            return None;
        }
        let ir::ValueDef::Result(i, 0) = self.f.values[v.index()].def else {
            return None;
        };
        let hoisted =
            self.hoist.contains(i) && self.hoist.carries(v) && self.hoist.cta.pre.contains_key(&v);
        let d = self.f.inst(i);
        let leaf = matches!(d.op, Op::Const { .. })
            || matches!(d.op, Op::SReg { reg } if reg.is_cta_constant());
        // The scalar section's value (`sc`) or a uniform one: the prologue's where it is a
        // hoisted one, a constant or a CTA-constant special register made again.
        let in_sc = sc.contains_key(&v);
        if in_sc || self.leaf_uniform(v, blk) {
            if hoisted && in_sc {
                return Some(Lane0::Pre(v));
            }
            if leaf {
                return Some(Lane0::Op {
                    inst: i,
                    args: vec![],
                    widen: None,
                });
            }
            // A scalar-section value computed from such values by a linear operation
            // (`Gen::linear_stride`'s, e.g. `cvta` of a parameter): made again from them.
            let linear = self.linear_stride(d, self.ty(v), |_| Some(0)).is_some();
            if !(in_sc && linear) {
                return None;
            }
            let mut args = Vec::with_capacity(d.args.len());
            for &a in &d.args {
                match self.lane0_recipe(a, blk, sc, depth + 1)? {
                    Lane0::Tid => return None,
                    r => args.push(r),
                }
            }
            return Some(Lane0::Op {
                inst: i,
                args,
                widen: None,
            });
        }
        if self.affine_leaf(v, blk).is_some() {
            return None;
        }
        match d.op {
            Op::SReg {
                reg: ir::SReg::TidX,
            } => return Some(Lane0::Tid),
            Op::SReg {
                reg: ir::SReg::LaneId,
            } => return None,
            _ => {}
        }
        let mut args = Vec::with_capacity(d.args.len());
        for &a in &d.args {
            args.push(self.lane0_recipe(a, blk, sc, depth + 1)?);
        }
        let widen = match self.widened_operand(d) {
            Some((k, signed)) => {
                let s = self.lane_stride(d.args[k], blk, 0)?;
                if s.abs() > CTA_MAX_STRIDE {
                    return None;
                }
                (s != 0).then_some((k, s, signed))
            }
            None => None,
        };
        Some(Lane0::Op {
            inst: i,
            args,
            widen,
        })
    }

    /// Emit `r` for a warp whose lane 0 has `%tid.x` = `tid`, adding each widened operand
    /// `(value, stride, signed)` to `wide`.
    fn emit_lane0(
        &mut self,
        r: &Lane0,
        tid: Value,
        wide: &mut Vec<(Value, i64, bool)>,
    ) -> Result<Value, String> {
        match r {
            Lane0::Pre(v) => self
                .hoist
                .cta
                .pre
                .get(v)
                .copied()
                .ok_or_else(|| format!("internal: {v} not computed before the warp loop")),
            Lane0::Tid => Ok(tid),
            Lane0::Op { inst, args, widen } => {
                let mut argv = Vec::with_capacity(args.len());
                for a in args {
                    argv.push(self.emit_lane0(a, tid, wide)?);
                }
                if let Some((k, s, signed)) = *widen {
                    let x = *argv
                        .get(k)
                        .ok_or_else(|| format!("internal: {inst} has no operand {k}"))?;
                    wide.push((x, s, signed));
                }
                let zero = self.iconst(types::I32, 0);
                self.scalar_op(*inst, &argv, zero)?
                    .ok_or_else(|| format!("internal: {inst} has no result"))
            }
        }
    }

    /// Fill the prologue's check block (see the module docs) with the checks asked for
    /// while the warp loop's code was emitted, and end it with the jump to the join block.
    pub(super) fn gen_cta_checks(&mut self) -> Result<(), String> {
        let (Some(blk), Some(join)) = (self.hoist.cta.block, self.hoist.cta.join) else {
            return Ok(());
        };
        self.b.switch_to_block(blk);
        let ranges = std::mem::take(&mut self.hoist.cta.ranges);
        let conds = std::mem::take(&mut self.hoist.cta.conds);
        let flag = if ranges.is_empty() && conds.is_empty() {
            self.iconst(types::I8, 0)
        } else {
            self.cta_flag(&ranges, &conds)?
        };
        let mut args: Vec<BlockArg> = self
            .hoist
            .cta
            .args
            .iter()
            .map(|&x| BlockArg::Value(x))
            .collect();
        args.push(BlockArg::Value(flag));
        self.b.ins().jump(join, &args);
        Ok(())
    }

    /// The flag: every range's per-warp test for the call's first and last warps, the 1-D
    /// CTA and the launch fact, and no wrap of widened operands between them.
    fn cta_flag(&mut self, ranges: &[CtaRange], conds: &[CtaCond]) -> Result<Value, String> {
        let env = self.e.env;
        let ld32 =
            |g: &mut Self, off: usize| g.b.ins().load(types::I32, TRUSTED(), env, off as i32);
        let ntid = offset_of!(CtaEnv, ntid);
        let ny = ld32(self, ntid + 4);
        let nz = ld32(self, ntid + 8);
        let y1 = self.b.ins().icmp_imm_s(IntCC::Equal, ny, 1);
        let z1 = self.b.ins().icmp_imm_s(IntCC::Equal, nz, 1);
        let mut flag = self.b.ins().band(y1, z1);
        let fact = ld32(self, offset_of!(CtaEnv, tid_x_linear));
        let linear = self.b.ins().icmp_imm_s(IntCC::NotEqual, fact, 0);
        flag = self.b.ins().band(flag, linear);
        // The call's first and last warps (the prologue runs only when it has one).
        let frame = self.e.frame;
        let first = self
            .b
            .ins()
            .stack_load(self.ptr, types::I32, frame, FRAME_FIRST);
        let count = self
            .b
            .ins()
            .stack_load(self.ptr, types::I32, frame, FRAME_COUNT);
        let last = self.b.ins().iadd(first, count);
        let last = self.b.ins().iadd_imm_s(last, -1);
        let tbl = self.b.ins().load(
            self.ptr,
            TRUSTED(),
            env,
            offset_of!(CtaEnv, tid_table) as i32,
        );
        let mut tids = [first, last];
        for t in &mut tids {
            let w = self.b.ins().uextend(self.ptr, *t);
            let off = self.b.ins().ishl_imm_s(w, 7); // 32 lanes · 4 bytes
            let p = self.b.ins().iadd(tbl, off);
            *t = self.b.ins().load(types::I32, TRUSTED(), p, 0);
        }
        for r in ranges {
            let mut wides: Vec<Vec<(Value, i64, bool)>> = vec![];
            for &tid in &tids {
                let mut wide = vec![];
                let r0 = self.emit_lane0(&r.root, tid, &mut wide)?;
                let r0 = if r.narrow {
                    self.b.ins().uextend(types::I64, r0)
                } else {
                    r0
                };
                let a_lo = self.b.ins().iadd_imm_s(r0, r.lo);
                let ok = self.window_ok(a_lo, r.space, r.lo, r.hi, r.elem, r.stride, &r.aligns)?;
                flag = self.b.ins().band(flag, ok);
                for &(x, s, signed) in &wide {
                    let ok = self.no_wrap(x, s, signed, 31);
                    flag = self.b.ins().band(flag, ok);
                }
                wides.push(wide);
            }
            let [wf, wl] = wides.as_slice() else {
                return Err("internal: per-call check without two warps".into());
            };
            if wf.len() != wl.len() {
                return Err("internal: per-call check's replays differ".into());
            }
            for (&(xf, s, signed), &(xl, _, _)) in wf.iter().zip(wl) {
                let cc = match (signed, s > 0) {
                    (true, true) => IntCC::SignedGreaterThanOrEqual,
                    (true, false) => IntCC::SignedLessThanOrEqual,
                    (false, true) => IntCC::UnsignedGreaterThanOrEqual,
                    (false, false) => IntCC::UnsignedLessThanOrEqual,
                };
                let ok = self.b.ins().icmp(cc, xl, xf);
                flag = self.b.ins().band(flag, ok);
            }
        }
        for c in conds {
            let mut xs = vec![];
            let mut wides: Vec<Vec<(Value, i64, bool)>> = vec![];
            for &tid in &tids {
                let mut wide = vec![];
                let a0 = self.emit_lane0(&c.a, tid, &mut wide)?;
                let b0 = self.emit_lane0(&c.b, tid, &mut wide)?;
                let ok = self.cond_ends(a0, b0, c.shape);
                flag = self.b.ins().band(flag, ok);
                for &(x, s, signed) in &wide {
                    let ok = self.no_wrap(x, s, signed, 31);
                    flag = self.b.ins().band(flag, ok);
                }
                xs.push(if c.shape.k == 0 { a0 } else { b0 });
                wides.push(wide);
            }
            // The varying operand, and each widened one, on the stride's side from the
            // first warp to the last: no wrap-around in between.
            let [xf, xl] = xs.as_slice() else {
                return Err("internal: per-call check without two warps".into());
            };
            let mut sides = vec![(*xf, *xl, c.shape.s, c.shape.sign == ir::Sign::Signed)];
            let [wf, wl] = wides.as_slice() else {
                return Err("internal: per-call check without two warps".into());
            };
            if wf.len() != wl.len() {
                return Err("internal: per-call check's replays differ".into());
            }
            for (&(f, s, signed), &(l, _, _)) in wf.iter().zip(wl) {
                sides.push((f, l, s, signed));
            }
            for (f, l, s, signed) in sides {
                let cc = match (signed, s > 0) {
                    (true, true) => IntCC::SignedGreaterThanOrEqual,
                    (true, false) => IntCC::SignedLessThanOrEqual,
                    (false, true) => IntCC::UnsignedGreaterThanOrEqual,
                    (false, false) => IntCC::UnsignedLessThanOrEqual,
                };
                let ok = self.b.ins().icmp(cc, l, f);
                flag = self.b.ins().band(flag, ok);
            }
        }
        Ok(flag)
    }
}
