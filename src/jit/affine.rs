//! Lane-stride (affine) addresses: memory accesses whose address is, across the 32 lanes of a
//! warp, `a0 + stride · lane` with `stride` known at compile time get one bounds check per
//! block execution instead of run-time shape tests per group of four lanes.
//!
//! ```text
//! v = u                      (uniform here)                   stride 0
//! v = %laneid                                                 stride 1
//! v = %tid.x                 (launch fact: a warp's %tid.x    stride 1
//!                             are consecutive, checked)
//! v = a + b, a - b           s(a) ± s(b)
//! v = a * c, a << c          (c a compile-time constant)      s(a) · c, s(a) << c
//! v = mul.wide a, c          (sign/zero-extends a: checked)   s(a) · c
//! v = cvt a                  (int widening: checked; truncation or same width: exact)
//! v = cvta a                 (adds a constant window)         s(a)
//! ```
//! Everything else (block parameters, loads, other operations, strides not known statically)
//! has no stride, and its accesses keep the general per-group path — or, where the address
//! is affine within each group of four lanes (2D blocks with rows shorter than a warp), the
//! group-level tier of `group.rs`, tried when this one does not apply.
//!
//! # ⚠ Soundness: read before changing
//!
//! The fast path computes the address of a *virtual* lane 0 once, as a scalar, by replaying
//! the operations of the address's definition with lane 0's `%tid.x`, and then accesses
//! `p0 + stride · lane` for every lane **without** looking at the lanes' own addresses. This is
//! only correct because:
//! - every leaf is the same in all active lanes *as seen from this block* (`uniform_at`:
//!   temporal divergence included) or is `%tid.x`/`%laneid`; by SSA, the leaves' latest values
//!   in a lane are exactly those its own definition of the address used, so replaying the
//!   definition chain gives each active lane's address;
//! - `%tid.x` is `tid0 + lane` in every warp only when `ntid.x` is a multiple of 32 or the
//!   block is one row (`ntid.y = ntid.z = 1`): checked per block execution from the launch
//!   shape, otherwise the fast path is off;
//! - arithmetic is exact modulo the value's width, so only widenings (`cvt` to 64 bits,
//!   `mul.wide`) can break the progression: each widened operand is checked at run time to
//!   stay on one side of its wrap-around point between lanes 0 and 31 (an arithmetic
//!   progression of 32 terms spans less than 2^31 with the stride bound below, so checking
//!   the last term suffices);
//! - the whole range `[a0, a0 + 31 · stride + size)` (all 32 lanes, active or not) must pass
//!   the space's bounds check and alignment, and checked-memory mode must be off; otherwise
//!   the general path runs, so faults are reported exactly as before (lowest faulting lane);
//! - a stride larger than the element (32-bit members of `float3`/`float4`-like structs) is a
//!   multiple of the element size and of the access's alignment, so lane 0's address being
//!   aligned (checked) makes every lane's aligned;
//! - stores take the fast path only when all 32 lanes are active (inactive lanes must not
//!   write); loads may read inactive lanes' in-bounds elements and discard them.

use super::codegen::{EnvField, Gen, TRUSTED};
use crate::analysis::uniform::Uniformity;
use crate::ir::{self, Op};
use crate::runtime::env::CtaEnv;
use cranelift_codegen::ir::condcodes::{CondCode, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, Value};
use std::collections::HashMap;
use std::mem::offset_of;

/// Largest stride magnitude tracked: 31 · 2^24 < 2^31, so a widened operand's 32 lanes can
/// cross its wrap-around point at most once (the check of lane 31 then covers all).
const MAX_STRIDE: i64 = 1 << 24;

/// Largest lane stride of 32-bit accesses that are not consecutive (members of small structs
/// and vectors, each lane's element loaded or stored on its own).
const MAX_STRUCT: i64 = 32;

/// Largest constant offset folded into a shared bounds check.
const MAX_MERGE: i64 = 1 << 20;

/// Deepest definition chain followed (compile time stays bounded).
const MAX_DEPTH: u32 = 12;

/// A block's fast memory accesses: per instruction, the run-time condition (`i8`) and the
/// host pointer of virtual lane 0's element.
#[derive(Default)]
pub(super) struct FastMem {
    pub(super) access: HashMap<ir::Inst, FastAccess>,
    /// Within the full-warp version of a segment's group loop: the members of lane-strided
    /// structs accessed whole (`wide.rs`).
    pub(super) wide: super::wide::WidePlan,
}

#[derive(Clone, Copy)]
pub(super) struct FastAccess {
    /// All conditions hold (`i8` 0/1).
    pub(super) ok: Value,
    /// Host address of lane 0's element.
    pub(super) p: Value,
    /// Bytes between lanes: the element size (consecutive), 0 (one address for all), or
    /// (32-bit elements only) a larger multiple of the element size up to `MAX_STRUCT`.
    pub(super) stride: u32,
    /// The address the bounds check covers (`root + off` for the access): accesses with the
    /// same root have pointers `off` apart.
    pub(super) root: ir::Value,
    /// The access's constant byte offset from `root`.
    pub(super) off: i64,
    /// A member of lane-strided structs (`stride` larger than the element): outside
    /// `wide.rs`, one scalar access per lane.
    pub(super) member: bool,
}

/// The stride of `t`-typed value bits `s`, wrapped to the type's width (signed).
fn wrap(s: i64, t: ir::Type) -> i64 {
    match t {
        ir::Type::I32 => s as i32 as i64,
        _ => s,
    }
}

/// The compile-time lane stride of each value that `uniform::analyze_affine` finds affine
/// but the plain analysis divergent (`None`: not affine, or the stride is not a constant;
/// `Some(0)` for really uniform values). A loop-carried block parameter has a stride when
/// every incoming argument has that same stride (assumed while its own back edges are
/// evaluated, dropped if they disagree).
pub(super) fn static_strides(f: &ir::Function, real: &Uniformity) -> Vec<Option<i64>> {
    let mut incoming: HashMap<ir::Value, Vec<ir::Value>> = HashMap::new();
    for b in &f.blocks {
        for c in b.term.targets() {
            let params = &f.block(c.block).params;
            for (&p, &a) in params.iter().zip(&c.args) {
                incoming.entry(p).or_default().push(a);
            }
        }
    }
    let mut st = Strides {
        f,
        real,
        incoming,
        memo: HashMap::new(),
    };
    (0..f.values.len())
        .map(|v| st.get(ir::Value(v as u32), 0))
        .collect()
}

struct Strides<'a> {
    f: &'a ir::Function,
    real: &'a Uniformity,
    incoming: HashMap<ir::Value, Vec<ir::Value>>,
    memo: HashMap<ir::Value, Option<i64>>,
}

impl Strides<'_> {
    fn get(&mut self, v: ir::Value, depth: u32) -> Option<i64> {
        if let Some(&s) = self.memo.get(&v) {
            return s;
        }
        let t = self.f.value_type(v);
        if !matches!(t, ir::Type::I32 | ir::Type::I64) {
            return None;
        }
        if self.real.is_uniform(v) {
            return Some(0);
        }
        if depth > MAX_DEPTH {
            return None;
        }
        let r = match self.f.values[v.index()].def {
            ir::ValueDef::Param(_, _) => {
                let args = self.incoming.get(&v).cloned().unwrap_or_default();
                // Assume the first argument's stride, check the others under it.
                let saved = self.memo.clone();
                let s0 = args.first().and_then(|&a| self.get(a, depth + 1));
                let Some(s0) = s0 else {
                    self.memo = saved;
                    self.memo.insert(v, None);
                    return None;
                };
                self.memo.insert(v, Some(s0));
                if args.iter().all(|&a| self.get(a, depth + 1) == Some(s0)) {
                    return Some(s0);
                }
                self.memo = saved;
                self.memo.insert(v, None);
                return None;
            }
            ir::ValueDef::Result(i, _) => {
                let d = self.f.inst(i);
                let args = d.args.clone();
                let konst = |v: ir::Value| const_value(self.f, v, true);
                match d.op {
                    Op::SReg {
                        reg: ir::SReg::TidX | ir::SReg::LaneId,
                    } => Some(1),
                    Op::IAdd {} => {
                        let a = self.get(args[0], depth + 1);
                        let b = self.get(args[1], depth + 1);
                        a.zip(b).map(|(a, b)| a.wrapping_add(b))
                    }
                    Op::ISub {} => {
                        let a = self.get(args[0], depth + 1);
                        let b = self.get(args[1], depth + 1);
                        a.zip(b).map(|(a, b)| a.wrapping_sub(b))
                    }
                    Op::IMul {} => match (konst(args[0]), konst(args[1])) {
                        (_, Some(c)) => self.get(args[0], depth + 1).and_then(|s| s.checked_mul(c)),
                        (Some(c), None) => {
                            self.get(args[1], depth + 1).and_then(|s| s.checked_mul(c))
                        }
                        (None, None) => {
                            let a = self.get(args[0], depth + 1);
                            let b = self.get(args[1], depth + 1);
                            (a == Some(0) && b == Some(0)).then_some(0)
                        }
                    },
                    Op::Shl {} => match konst(args[1]) {
                        Some(c) if (0..t.bits() as i64).contains(&c) => self
                            .get(args[0], depth + 1)
                            .and_then(|s| s.checked_mul(1i64 << c)),
                        _ => None,
                    },
                    Op::Cvt {
                        dst,
                        src,
                        rnd: ir::CvtRound::None,
                        sat: false,
                        ftz: false,
                    } if matches!(src.ir(), ir::Type::I32 | ir::Type::I64)
                        && dst.ir().bits() <= src.ir().bits() =>
                    {
                        self.get(args[0], depth + 1)
                    }
                    Op::Cvta { .. } => self.get(args[0], depth + 1),
                    Op::Bitcast {} if self.f.value_type(args[0]) == t => {
                        self.get(args[0], depth + 1)
                    }
                    _ => None,
                }
            }
        };
        let r = r.map(|s| wrap(s, t)).filter(|s| s.abs() <= MAX_STRIDE);
        self.memo.insert(v, r);
        r
    }
}

/// The compile-time constant defining `v`, if any (32-bit: sign- or zero-extended).
fn const_value(f: &ir::Function, v: ir::Value, signed: bool) -> Option<i64> {
    let bits = f.const_bits(v)?;
    Some(match f.value_type(v) {
        ir::Type::I32 if signed => bits as u32 as i32 as i64,
        ir::Type::I32 => bits as u32 as i64,
        ir::Type::I64 => bits as i64,
        _ => return None,
    })
}

/// The alignment tests of a group of accesses (`(offset, alignment)` per member, elements
/// of `elem` bytes): each distinct alignment beyond the element once.
pub(super) fn tested_aligns(
    members: impl Iterator<Item = (i64, i64)>,
    elem: i64,
) -> Vec<(i64, i64)> {
    let mut tested: Vec<(i64, i64)> = vec![];
    for (off, align) in members {
        if align > elem && !tested.contains(&(off, align)) {
            tested.push((off, align));
        }
    }
    tested
}

/// Scalar values produced while replaying definitions for lane 0.
struct Replay {
    lane0: HashMap<ir::Value, Value>,
    /// Run-time conditions collected (`i8` 0/1).
    checks: Vec<Value>,
    /// `%tid.x` of lane 0, loaded once.
    tid0: Option<Value>,
    /// The launch fact is among the checks.
    linear: bool,
}

impl Gen<'_, '_> {
    /// The compile-time constant defining `v`, if any (32-bit: sign- or zero-extended).
    pub(super) fn const_of(&self, v: ir::Value, signed: bool) -> Option<i64> {
        const_value(self.f, v, signed)
    }

    /// `v` as `root + off` through 64-bit additions of constants (`(v, 0)` otherwise).
    pub(super) fn const_offset_root(&self, v: ir::Value) -> (ir::Value, i64) {
        self.const_offset_root_until(v, |_| false)
    }

    /// As [`Self::const_offset_root`], stopping at the first value (`v` included) that
    /// `stop` accepts.
    pub(super) fn const_offset_root_until(
        &self,
        v: ir::Value,
        stop: impl Fn(ir::Value) -> bool,
    ) -> (ir::Value, i64) {
        let (mut root, mut off) = (v, 0i64);
        while self.ty(root) == ir::Type::I64 && !stop(root) {
            let ir::ValueDef::Result(i, 0) = self.f.values[root.index()].def else {
                break;
            };
            let d = self.f.inst(i);
            let Op::IAdd {} = d.op else { break };
            let (next, c) = match (
                self.const_of(d.args[0], true),
                self.const_of(d.args[1], true),
            ) {
                (_, Some(c)) => (d.args[0], c),
                (Some(c), None) => (d.args[1], c),
                (None, None) => break,
            };
            // A root the block's scalar section does not hold (`preloop.rs`).
            if self.hoist.hides(next, self.f) {
                break;
            }
            match off.checked_add(c) {
                Some(o) if o.abs() <= MAX_MERGE => {
                    off = o;
                    root = next;
                }
                _ => break,
            }
        }
        (root, off)
    }

    /// A value affine across the active lanes at the top of block `blk`
    /// (`uniform::analyze_affine`), with a compile-time stride, whose slot holds every
    /// lane's latest value: virtual lane 0's value is the first active lane's minus
    /// `stride · first`. Returns the stride.
    pub(super) fn affine_leaf(&self, v: ir::Value, blk: ir::Block) -> Option<i64> {
        if !self.affine.uniform_at(v, blk) || self.layout.slot[v.index()] == u32::MAX {
            return None;
        }
        // In a region, the plans are made at its top: only slots written before it count.
        if let Some(r) = &self.region {
            if r.hides(self, v) || !self.affine.uniform_at(v, r.head) {
                return None;
            }
        }
        let in_slot = match self.f.values[v.index()].def {
            ir::ValueDef::Param(_, _) => true,
            ir::ValueDef::Result(i, _) => {
                self.inst_block[i.index()] != blk.0 && self.cross_block[v.index()]
            }
        };
        if !in_slot {
            return None;
        }
        self.strides[v.index()]
    }

    /// Whether `v` can be read as a scalar at the top of block `blk`: uniform there, and
    /// computed in its scalar section or available in its slot before the block runs.
    pub(super) fn leaf_uniform(&self, v: ir::Value, blk: ir::Block) -> bool {
        if !self.uni.uniform_at(v, blk) {
            return false;
        }
        let this_scalar = match self.f.values[v.index()].def {
            ir::ValueDef::Param(_, _) => false,
            ir::ValueDef::Result(i, _) => {
                let b = self.inst_block[i.index()];
                // A region's scalar sections all run at its top (`region.rs`).
                let here = b == blk.0
                    || self
                        .region
                        .as_ref()
                        .is_some_and(|r| r.blocks.contains(&ir::Block(b)));
                // A hoisted value not carried into the warp loop is in neither the
                // section nor its slot (`preloop.rs`, `Hoist::hides`).
                self.scalar[i.index()] && here && !self.hoist.hides(v, self.f)
            }
        };
        if let Some(r) = &self.region {
            if !this_scalar && (r.hides(self, v) || !self.uni.uniform_at(v, r.head)) {
                return false;
            }
        }
        // In a slot of its own that holds every lane's latest value: block parameters, and
        // values some other block reads (stored by their block; other values may live in
        // shared scratch slots).
        let in_slot = match self.f.values[v.index()].def {
            ir::ValueDef::Param(_, _) => true,
            ir::ValueDef::Result(i, _) => {
                self.inst_block[i.index()] != blk.0 && self.cross_block[v.index()]
            }
        };
        this_scalar || in_slot && self.layout.slot[v.index()] != u32::MAX
    }

    /// The lane stride of `v` as used in block `blk` (see the module docs), in the value's
    /// own units and width; `None` when not affine. No code is emitted.
    pub(super) fn lane_stride(&self, v: ir::Value, blk: ir::Block, depth: u32) -> Option<i64> {
        let t = self.ty(v);
        if !matches!(t, ir::Type::I32 | ir::Type::I64) || depth > MAX_DEPTH {
            return None;
        }
        if self.leaf_uniform(v, blk) {
            return Some(0);
        }
        if let Some(s) = self.affine_leaf(v, blk) {
            return Some(s);
        }
        let ir::ValueDef::Result(i, 0) = self.f.values[v.index()].def else {
            return None;
        };
        let d = self.f.inst(i);
        let s = |k: usize| -> Option<i64> { self.lane_stride(d.args[k], blk, depth + 1) };
        let r = match d.op {
            Op::SReg {
                reg: ir::SReg::TidX | ir::SReg::LaneId,
            } => 1,
            // Replayed as they are (uniform, and the same when read again).
            Op::Const { .. } => 0,
            Op::SReg { reg } if reg.is_cta_constant() => 0,
            _ => self.linear_stride(d, t, s)?,
        };
        let r = wrap(r, t);
        (r.abs() <= MAX_STRIDE).then_some(r)
    }

    /// The linear rules shared by the warp-wide and the group tiers (`group.rs`): the stride
    /// of `d`'s result from its operands' strides `s(k)`, for add, sub, mul or shl by a
    /// compile-time constant, integer `cvt`, `cvta` and same-width bitcasts; `None` for any
    /// other operation or an operand without a stride. Not yet wrapped to the result type.
    pub(super) fn linear_stride(
        &self,
        d: &ir::InstData,
        t: ir::Type,
        mut s: impl FnMut(usize) -> Option<i64>,
    ) -> Option<i64> {
        Some(match d.op {
            Op::IAdd {} => s(0)?.wrapping_add(s(1)?),
            Op::ISub {} => s(0)?.wrapping_sub(s(1)?),
            Op::IMul {} | Op::IMulWide { .. } => {
                // mul.wide.u zero-extends its constant; mul.lo wraps either way.
                let signed = !matches!(
                    d.op,
                    Op::IMulWide {
                        sign: ir::Sign::Unsigned
                    }
                );
                let c0 = self.const_of(d.args[0], signed);
                match (c0, self.const_of(d.args[1], signed)) {
                    (_, Some(c)) => s(0)?.checked_mul(c)?,
                    (Some(c), None) => s(1)?.checked_mul(c)?,
                    (None, None) => return None,
                }
            }
            Op::Shl {} => {
                let c = self.const_of(d.args[1], true)?;
                if !(0..t.bits() as i64).contains(&c) {
                    return None;
                }
                s(0)?.checked_mul(1i64 << c)?
            }
            Op::Cvt {
                dst,
                src,
                rnd: ir::CvtRound::None,
                sat: false,
                ftz: false,
            } if matches!(src.ir(), ir::Type::I32 | ir::Type::I64)
                && matches!(dst.ir(), ir::Type::I32 | ir::Type::I64) =>
            {
                s(0)?
            }
            Op::Cvta { .. } => s(0)?,
            Op::Bitcast {} if self.ty(d.args[0]) == t => s(0)?,
            _ => return None,
        })
    }

    /// Replay `v`'s definition for virtual lane 0 as scalar code at the top of block `blk`
    /// (only for values [`Self::lane_stride`] accepts), adding the run-time conditions.
    fn replay_lane0(
        &mut self,
        v: ir::Value,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        first: Value,
        rp: &mut Replay,
    ) -> Result<Value, String> {
        if let Some(&x) = sc.get(&v) {
            return Ok(x);
        }
        if let Some(&x) = rp.lane0.get(&v) {
            return Ok(x);
        }
        if self.leaf_uniform(v, blk) {
            let x = self.uniform_get(v, first)?;
            rp.lane0.insert(v, x);
            return Ok(x);
        }
        if let Some(s) = self.affine_leaf(v, blk) {
            // Affine only where the warp's %tid.x are consecutive.
            self.launch_fact(rp);
            let x = self.uniform_get(v, first)?;
            let t = self.b.func.dfg.value_type(x);
            let f = if t == types::I32 {
                first
            } else {
                self.b.ins().uextend(t, first)
            };
            let back = self.b.ins().imul_imm_s(f, s);
            let x0 = self.b.ins().isub(x, back);
            rp.lane0.insert(v, x0);
            return Ok(x0);
        }
        let ir::ValueDef::Result(i, 0) = self.f.values[v.index()].def else {
            return Err(format!("internal: {v} has no lane stride"));
        };
        let d = self.f.inst(i).clone();
        let x = match d.op {
            Op::SReg {
                reg: ir::SReg::LaneId,
            } => self.iconst(types::I32, 0),
            Op::SReg {
                reg: ir::SReg::TidX,
            } => self.tid0(rp),
            _ => {
                let mut argv = Vec::with_capacity(d.args.len());
                for &a in &d.args {
                    argv.push(self.replay_lane0(a, blk, sc, first, rp)?);
                }
                // A widened operand must not wrap between lanes 0 and 31.
                if let Some((k, signed)) = self.widened_operand(&d) {
                    let s = self
                        .lane_stride(d.args[k], blk, 0)
                        .ok_or("internal: widened operand without a stride")?;
                    if s != 0 {
                        let ok = self.no_wrap(argv[k], s, signed, 31);
                        rp.checks.push(ok);
                    }
                }
                let zero = self.iconst(types::I32, 0);
                self.scalar_op(i, &argv, zero)?
                    .ok_or_else(|| format!("internal: {i} has no result"))?
            }
        };
        rp.lane0.insert(v, x);
        Ok(x)
    }

    /// Whether the 32-bit progression `w0 + s · l`, l = 0..=last, extended to 64 bits, stays
    /// on one side of its wrap-around point (`i8`): checking the last term suffices while
    /// `|last · s| < 2^31`. `last` is 31 for a warp, 3 for a group (`group.rs`).
    ///
    /// One compare: the last term `wl = w0 + last · s` (wrapping) lies strictly beyond `w0`
    /// in the direction of `last · s`, in the extension's order (signed for a sign
    /// extension). Without a wrap, `wl` is the exact sum and so beyond `w0`; with one (the
    /// sum left the 32-bit range, by less than 2^31), `wl` is the sum minus (or plus) 2^32,
    /// on the other side of `w0`. (The same compare as `Gen::warp_cond`'s `beyond` test of a
    /// guard on the same value, which Cranelift then computes once.)
    pub(super) fn no_wrap(&mut self, w0: Value, s: i64, signed: bool, last: i64) -> Value {
        let d = last * s;
        if d == 0 {
            return self.iconst(types::I8, 1);
        }
        let wl = self.b.ins().iadd_imm_s(w0, d);
        let cc = match (signed, d > 0) {
            (true, true) => IntCC::SignedGreaterThan,
            (true, false) => IntCC::SignedLessThan,
            (false, true) => IntCC::UnsignedGreaterThan,
            (false, false) => IntCC::UnsignedLessThan,
        };
        self.b.ins().icmp(cc, wl, w0)
    }

    /// The operand an instruction widens from 32 to 64 bits (`mul.wide` of a non-constant,
    /// `cvt` to 64 bits), with whether it is sign-extended: a progression through it must not
    /// cross its wrap-around point (`no_wrap`).
    pub(super) fn widened_operand(&self, d: &ir::InstData) -> Option<(usize, bool)> {
        match d.op {
            Op::IMulWide { sign } => {
                let k = usize::from(self.const_of(d.args[0], true).is_some());
                Some((k, sign == ir::Sign::Signed))
            }
            Op::Cvt { src, dst, .. } if src.ir() == ir::Type::I32 && dst.ir() == ir::Type::I64 => {
                Some((0, src.is_signed()))
            }
            _ => None,
        }
    }

    /// The launch fact that every warp's `%tid.x` are consecutive (`CtaEnv::tid_x_linear`,
    /// worked out once per launch from the CTA shape), added to the checks once.
    fn launch_fact(&mut self, rp: &mut Replay) {
        if rp.linear {
            return;
        }
        rp.linear = true;
        let env = self.e.env;
        let off = offset_of!(CtaEnv, tid_x_linear) as i32;
        let fact = self.b.ins().load(types::I32, TRUSTED(), env, off);
        let linear = self.b.ins().icmp_imm_s(IntCC::NotEqual, fact, 0);
        rp.checks.push(linear);
    }

    /// `%tid.x` of the warp's lane 0 (and the launch fact).
    fn tid0(&mut self, rp: &mut Replay) -> Value {
        if let Some(t) = rp.tid0 {
            return t;
        }
        self.launch_fact(rp);
        // In the stream loop's copy of the region (`stream.rs`) the per-call flag holds: a
        // 1-D CTA, so lane 0's `%tid.x` is 32 · the warp's index.
        if let Some(s) = self.stream {
            rp.tid0 = Some(s.tid0);
            return s.tid0;
        }
        let env = self.e.env;
        let tbl = self.b.ins().load(
            self.ptr,
            TRUSTED(),
            env,
            offset_of!(CtaEnv, tid_table) as i32,
        );
        let warp = self.env_val(EnvField::Warp);
        let w = self.b.ins().uextend(self.ptr, warp);
        let off = self.b.ins().ishl_imm_s(w, 7); // 32 lanes · 4 bytes
        let p = self.b.ins().iadd(tbl, off);
        let t = self.b.ins().load(types::I32, TRUSTED(), p, 0);
        rp.tid0 = Some(t);
        t
    }

    /// Whether a branch condition of block `blk` has the value `want` in all 32 lanes of a
    /// warp, decided by scalar tests: an ordered integer `setp` (PTX ISA §9.7.6.1; `lt`,
    /// `le`, `gt`, `ge`, signed or unsigned) of a lane-affine value `x0 + s · lane` (`s` a
    /// nonzero compile-time stride) against a uniform one `u`. Emits, at the current position
    /// (the region's top, after the scalar sections), that test (`i8` 0/1); `None` (nothing
    /// emitted) for any other condition.
    ///
    /// The test holds when the replay's run-time conditions hold (the launch fact, no wrap of
    /// widened operands), `x31 = x0 + 31 · s` lies strictly beyond `x0` in the compare's
    /// order (`beyond`: no wrap-around between the lanes, as `|31 · s| < 2^31` would put
    /// `x31` on the wrong side), and one end lane's condition is `want`. On a strictly
    /// monotone sequence a threshold compare changes its value at most once, so the lanes'
    /// conditions are monotone too: rising (false in the first lanes, true in the last) or
    /// falling. All of them are `want` exactly when the end that would differ first is:
    /// lane 0 for `want = true` on a rising sequence (or `false` on a falling one), lane 31
    /// otherwise. The condition rises when `x` is the left operand of `gt`/`ge` or the right
    /// one of `lt`/`le` and the lanes' `x` increase (`s > 0`); each opposite flips it.
    ///
    /// An `eq`/`ne` compare of such operands is true in at most one lane, so only "no lane
    /// equal" can hold in all 32 (`want` false for `eq`, true for `ne`; `None` for the other
    /// `want`): decided per warp by [`Self::warp_unequal`], never by the per-call flag
    /// (`ctacheck.rs`, whose first-and-last-warp argument needs a monotone compare).
    pub(super) fn warp_cond(
        &mut self,
        cond: ir::Value,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        first: Value,
        want: bool,
    ) -> Result<Option<Value>, String> {
        let (d, shape) = match self.cond_form(cond, blk, want) {
            None => return Ok(None),
            Some(CondForm::Unequal { d, k, s }) => {
                return Ok(Some(self.warp_unequal(&d, blk, sc, first, k, s)?));
            }
            Some(CondForm::Ordered { d, shape }) => (d, shape),
        };
        let per_warp = |g: &mut Self| g.warp_cond_per_warp(&d, blk, sc, first, shape);
        // Decided once per call where the flag covers it (`ctacheck.rs`).
        match (self.cta_cond(blk, sc, &d, shape), self.hoist.cta.ok) {
            (Some(c), Some(cta_ok)) => {
                self.hoist.cta.add_cond(c);
                // The per-warp test only where the region's full-warp version is not
                // entered from the flag (`Gen::region_loops`).
                let t = super::ctacheck::DeferredTest::Cond {
                    d: d.clone(),
                    blk,
                    sc: sc.clone(),
                    first,
                    shape,
                };
                if self.hoist.cta.deferred.is_some() {
                    return Ok(self.defer(t));
                }
                let oks = self.or_per_warp(cta_ok, 1, |g| Ok(vec![per_warp(g)?]))?;
                Ok(oks.first().copied())
            }
            _ => Ok(Some(per_warp(self)?)),
        }
    }

    /// The form of branch condition `cond` of block `blk` that [`Self::warp_cond`] decides
    /// for a warp with the value `want` (emits nothing): an ordered compare of a lane-affine
    /// value against a uniform one, or an `eq`/`ne` compare where `want` is "no lane equal";
    /// `None` for any other condition.
    fn cond_form(&self, cond: ir::Value, blk: ir::Block, want: bool) -> Option<CondForm> {
        let ir::ValueDef::Result(i, 0) = self.f.values[cond.index()].def else {
            return None;
        };
        let d = self.f.inst(i).clone();
        let Op::ICmp { cc, sign } = d.op else {
            return None;
        };
        let greater = match cc {
            ir::ICmp::Eq | ir::ICmp::Ne => None,
            ir::ICmp::Lt | ir::ICmp::Le => Some(false),
            ir::ICmp::Gt | ir::ICmp::Ge => Some(true),
        };
        let sa = self.lane_stride(d.args[0], blk, 0)?;
        let sb = self.lane_stride(d.args[1], blk, 0)?;
        // One side varies across the lanes, the other is uniform.
        let (k, s) = match (sa, sb) {
            (0, 0) => return None,
            (s, 0) => (0, s),
            (0, s) => (1, s),
            _ => return None,
        };
        let Some(greater) = greater else {
            // `eq`/`ne`: only "no lane equal" can hold in all 32 lanes.
            return (want == (cc == ir::ICmp::Ne)).then_some(CondForm::Unequal { d, k, s });
        };
        let shape = super::ctacheck::CondShape {
            k,
            s,
            greater,
            cc,
            sign,
            want,
        };
        Some(CondForm::Ordered { d, shape })
    }

    /// [`Self::warp_cond`]'s test for one warp alone, never the per-call flag
    /// (`ctacheck.rs`): for the branch of a block emitted on its own (`Gen::gen_block_body`),
    /// whose test runs at the block's top on every execution.
    pub(super) fn block_warp_cond(
        &mut self,
        cond: ir::Value,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        first: Value,
        want: bool,
    ) -> Result<Option<Value>, String> {
        Ok(match self.cond_form(cond, blk, want) {
            None => None,
            Some(CondForm::Unequal { d, k, s }) => {
                Some(self.warp_unequal(&d, blk, sc, first, k, s)?)
            }
            Some(CondForm::Ordered { d, shape }) => {
                Some(self.warp_cond_per_warp(&d, blk, sc, first, shape)?)
            }
        })
    }

    /// [`Self::warp_cond`]'s test for one warp of an `eq`/`ne` compare `d` of block `blk`
    /// whose operand `k` varies across the lanes with the nonzero stride `s` and the other
    /// is uniform: no lane's operands are equal (`i8` 0/1), and the replay's run-time
    /// conditions hold (the launch fact, no wrap of widened operands).
    ///
    /// Lane `l`'s varying operand is `x0 + s · l` modulo `2^w` (`w` its width: the linear
    /// operations are exact modulo the width, and the replay's checks rule out a widened
    /// operand wrapping between lanes 0 and 31), so no monotonicity is needed. With
    /// `m = |s|` and `d = u − x0` (`x0 − u` for a negative stride, wrapping), lane `l`
    /// equals `u` exactly when `m · l ≡ d`; as `31 · m < 2^29` the values `m · l`,
    /// `l = 0..=31`, are distinct residues below `2^w`, so some lane equals `u` exactly
    /// when `d` (unsigned) is at most `31 · m` and a multiple of `m`.
    fn warp_unequal(
        &mut self,
        d: &ir::InstData,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        first: Value,
        k: usize,
        s: i64,
    ) -> Result<Value, String> {
        let (a0, b0, checks) = self.replay_operands(d, blk, sc, first)?;
        let (x0, u) = if k == 0 { (a0, b0) } else { (b0, a0) };
        let m = s.unsigned_abs() as i64;
        let dist = if s > 0 {
            self.b.ins().isub(u, x0)
        } else {
            self.b.ins().isub(x0, u)
        };
        let mut ok = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThan, dist, 31 * m);
        if m > 1 {
            let rem = if m & (m - 1) == 0 {
                self.b.ins().band_imm_s(dist, m - 1)
            } else {
                let t = self.b.func.dfg.value_type(dist);
                let mv = self.iconst(t, m);
                self.b.ins().urem(dist, mv)
            };
            let off = self.b.ins().icmp_imm_s(IntCC::NotEqual, rem, 0);
            ok = self.b.ins().bor(ok, off);
        }
        for chk in checks {
            ok = self.b.ins().band(ok, chk);
        }
        Ok(ok)
    }

    /// The two operands of the compare `d` replayed for virtual lane 0 (block `blk`, scalar
    /// section `sc`, first active lane `first`), with the replay's run-time conditions
    /// (`i8` 0/1) that must hold for them to be lane 0's.
    fn replay_operands(
        &mut self,
        d: &ir::InstData,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        first: Value,
    ) -> Result<(Value, Value, Vec<Value>), String> {
        let mut rp = Replay {
            lane0: HashMap::new(),
            checks: vec![],
            tid0: None,
            linear: false,
        };
        let a0 = self.replay_lane0(d.args[0], blk, sc, first, &mut rp)?;
        let b0 = self.replay_lane0(d.args[1], blk, sc, first, &mut rp)?;
        Ok((a0, b0, rp.checks))
    }

    /// The direction a full-warp version can decide the branch on `cond` in where it is an
    /// `eq`/`ne` compare (`Gen::warp_cond`: no lane equal, so `false` for `eq`, `true` for
    /// `ne`); `None` for any other condition.
    pub(super) fn unequal_direction(&self, cond: ir::Value) -> Option<bool> {
        let ir::ValueDef::Result(i, 0) = self.f.values[cond.index()].def else {
            return None;
        };
        match self.f.inst(i).op {
            Op::ICmp {
                cc: ir::ICmp::Eq, ..
            } => Some(false),
            Op::ICmp {
                cc: ir::ICmp::Ne, ..
            } => Some(true),
            _ => None,
        }
    }

    /// [`Self::warp_cond`]'s test for one warp of the compare `d` (shape `shape`, block
    /// `blk`, scalar section `sc`, first active lane `first`): its operands replayed for
    /// virtual lane 0, [`Self::cond_ends`] and the replay's run-time conditions.
    pub(super) fn warp_cond_per_warp(
        &mut self,
        d: &ir::InstData,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        first: Value,
        shape: super::ctacheck::CondShape,
    ) -> Result<Value, String> {
        let (a0, b0, checks) = self.replay_operands(d, blk, sc, first)?;
        let mut ok = self.cond_ends(a0, b0, shape);
        for chk in checks {
            ok = self.b.ins().band(ok, chk);
        }
        Ok(ok)
    }

    /// The per-warp part of [`Self::warp_cond`]'s test, from virtual lane 0's operands `a0`
    /// and `b0`: no wrap-around across the 32 lanes, and the end lane that would differ
    /// first has the wanted value (`i8` 0/1).
    pub(super) fn cond_ends(
        &mut self,
        a0: Value,
        b0: Value,
        sh: super::ctacheck::CondShape,
    ) -> Value {
        let (k, s) = (sh.k, sh.s);
        let x0 = if k == 0 { a0 } else { b0 };
        let x31 = self.b.ins().iadd_imm_s(x0, 31 * s);
        let beyond = match (sh.sign, s > 0) {
            (ir::Sign::Signed, true) => IntCC::SignedGreaterThan,
            (ir::Sign::Signed, false) => IntCC::SignedLessThan,
            (ir::Sign::Unsigned, true) => IntCC::UnsignedGreaterThan,
            (ir::Sign::Unsigned, false) => IntCC::UnsignedLessThan,
        };
        let ok = self.b.ins().icmp(beyond, x31, x0);
        let rising = sh.greater ^ (k == 1) ^ (s < 0);
        let end = if rising == sh.want { x0 } else { x31 };
        let c = super::vector::int_cc(sh.cc, sh.sign);
        let c = if sh.want { c } else { c.complement() };
        let at_end = if k == 0 {
            self.b.ins().icmp(c, end, b0)
        } else {
            self.b.ins().icmp(c, a0, end)
        };
        self.b.ins().band(ok, at_end)
    }

    /// Whether the 32 lanes of one warp's accesses of a group at constant offsets `lo..=hi`
    /// from a root (`a_lo`: virtual lane 0's address of `root + lo`; elements of `elem`
    /// bytes, `stride` bytes between lanes) lie in `space`'s window, with the alignments
    /// `aligns` ([`tested_aligns`]), and checked memory is off (`i8` 0/1).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn window_ok(
        &mut self,
        a_lo: Value,
        space: ir::Space,
        lo: i64,
        hi: i64,
        elem: i64,
        stride: i64,
        aligns: &[(i64, i64)],
    ) -> Result<Value, String> {
        let (_, limit, bias) = self.strided_window(space)?;
        // Lane 31's element of the last member ends the range.
        let span = (hi - lo) + 31 * stride + elem;
        let off = self.b.ins().iadd_imm_s(a_lo, -bias);
        let lt = self.b.ins().icmp(IntCC::UnsignedLessThan, off, limit);
        let room = self.b.ins().isub(limit, off);
        let fits = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, room, span);
        let mut ok = self.b.ins().band(lt, fits);
        // A member aligned beyond its element (the first element of a `.v4` access): lane
        // 0's address; the stride, a multiple of the alignment, keeps it.
        for &(off, align) in aligns {
            let a = self.b.ins().iadd_imm_s(a_lo, off - lo);
            let low = self.b.ins().band_imm_s(a, align - 1);
            let z = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
            ok = self.b.ins().band(ok, z);
        }
        // Every member's offset is lo modulo the element size (the group key), so one
        // member's test of an alignment beyond the element (a multiple of it) covers the
        // element's alignment.
        if elem > 1 && aligns.is_empty() {
            let low = self.b.ins().band_imm_s(a_lo, elem - 1);
            let z = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
            ok = self.b.ins().band(ok, z);
        }
        if space != ir::Space::Shared {
            let checks = self.env_val(EnvField::Memcheck);
            let nm = self.b.ins().icmp_imm_s(IntCC::Equal, checks, 0);
            ok = self.b.ins().band(ok, nm);
            if self.combine {
                // The accesses this check serves test nothing more: their bytes miss the
                // pending reductions now, and reductions inside them are performed at once
                // from now on (`combine.rs`). (Lane 31's element with a negative stride
                // lies below lane 0's.)
                let ext = 31 * stride;
                let from = ext.min(0);
                let to = (hi - lo) + ext.max(0) + elem;
                let a = self.b.ins().iadd_imm_s(a_lo, from);
                let clear = self.pending_clear(a, to - from);
                ok = self.b.ins().band(ok, clear);
                self.approve(a, to - from);
            }
        }
        Ok(ok)
    }

    /// The test of [`Self::window_ok`] for one warp's access of `elem`-byte elements at
    /// consecutive addresses `addr` (a value [`Self::lane_stride`] gives stride `elem` in
    /// block `blk`), replayed for virtual lane 0 at the current point (scalar section `sc`,
    /// first active lane `first`), with the replay's run-time conditions (`i8` 0/1). Made
    /// before a decided loop for its first trip (`Gen::loop_ranges`).
    pub(super) fn lane0_window_ok(
        &mut self,
        addr: ir::Value,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        first: Value,
        space: ir::Space,
        elem: i64,
    ) -> Result<Value, String> {
        let mut rp = Replay {
            lane0: HashMap::new(),
            checks: vec![],
            tid0: None,
            linear: false,
        };
        let a0 = self.replay_lane0(addr, blk, sc, first, &mut rp)?;
        let mut ok = self.window_ok(a0, space, 0, 0, elem, elem, &[])?;
        for c in rp.checks {
            ok = self.b.ins().band(ok, c);
        }
        Ok(ok)
    }

    /// Decide the fast accesses of block `blk` (at its top, after the scalar section).
    pub(super) fn plan_fast_mem(
        &mut self,
        blk: ir::Block,
        insts: &[ir::Inst],
        sc: &HashMap<ir::Value, Value>,
        first: Value,
        mask: Option<Value>,
    ) -> Result<FastMem, String> {
        let mut out = FastMem::default();
        // Candidate accesses by (root, space, offset mod size, size, stride): members
        // (instruction, constant offset, store, alignment).
        type Key = (ir::Value, ir::Space, i64, i64, i64);
        type Members = Vec<(ir::Inst, i64, bool, i64)>;
        let mut groups: Vec<(Key, Members)> = vec![];
        for &i in insts {
            if self.scalar[i.index()] {
                continue;
            }
            let d = self.f.inst(i).clone();
            let (space, align, et, store) = match d.op {
                Op::Load { space, align } => match d.results.first() {
                    Some(&r) => (space, align, self.ty(r), false),
                    None => continue,
                },
                Op::Store { space, align } => match d.args.get(1) {
                    Some(&x) => (space, align, self.ty(x), true),
                    None => continue,
                },
                _ => continue,
            };
            let narrow = matches!(et, ir::Type::I8 | ir::Type::I16);
            if !(matches!(
                et,
                ir::Type::I32 | ir::Type::F32 | ir::Type::I64 | ir::Type::F64
            ) || narrow && !store)
                || !matches!(
                    space,
                    ir::Space::Global | ir::Space::Const | ir::Space::Shared
                )
                || self.racecheck && space == ir::Space::Shared
            {
                continue;
            }
            let elem = et.bytes() as i64;
            let addr = d.args[0];
            let Some(stride) = self.lane_stride(addr, blk, 0) else {
                continue;
            };
            // Consecutive elements, or (loads) one element for all lanes; `align` beyond
            // the element size would fault in some lane. Or 32-bit elements of small structs
            // or vectors (`float3`, `float4`): a stride that is a multiple of the element
            // size (so each lane's element is aligned when lane 0's is) up to MAX_STRUCT, with
            // an alignment the stride keeps (checked for lane 0 below).
            let align = i64::from(align);
            let strided = matches!(et, ir::Type::I32 | ir::Type::F32)
                && stride > elem
                && stride <= MAX_STRUCT
                && stride % elem == 0
                && stride % align.max(1) == 0;
            let plain = align <= elem && (stride == elem || stride == 0 && !store);
            if !(plain || strided) {
                continue;
            }
            // Accesses at constant offsets from one root share its replay and one bounds
            // check over their union (`root + off`, 64-bit addresses only).
            let (root, off) = match self.const_offset_root(addr) {
                // The root must itself be replayable with the same stride (the address may
                // be a leaf whose definition is not).
                (r, o) if self.lane_stride(r, blk, 0) == Some(stride) => (r, o),
                _ => (addr, 0),
            };
            let key = (root, space, off.rem_euclid(elem), elem, stride);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push((i, off, store, align)),
                None => groups.push((key, vec![(i, off, store, align)])),
            }
        }
        if groups.is_empty() {
            return Ok(out);
        }
        let mut rp = Replay {
            lane0: HashMap::new(),
            checks: vec![],
            tid0: None,
            linear: false,
        };
        // The range checks made once per call instead (`ctacheck.rs`), when every group
        // has one.
        // In a decided loop's trip, loads whose every trip lies in a range tested once
        // before the loop (`Gen::dloop_ranged`) take that test instead of their own.
        let looped = self.dloop_ranged(groups.iter().map(|((root, space, _, elem, stride), m)| {
            (
                *root,
                *space,
                *elem,
                *stride,
                m.iter().map(|x| (x.0, x.1, x.2)).collect(),
            )
        }));
        let cta = if looped.is_some() {
            None
        } else {
            self.cta_ranges(blk, sc, groups.iter().map(|(k, m)| (*k, m.as_slice())))
        };
        // Per group: virtual lane 0's address of `root + lo` and its host pointer.
        let mut addrs = Vec::with_capacity(groups.len());
        for ((root, space, _, _, _), members) in &groups {
            let r0 = self.replay_lane0(*root, blk, sc, first, &mut rp)?;
            let r0 = if self.ty(*root) == ir::Type::I32 {
                self.b.ins().uextend(types::I64, r0)
            } else {
                r0
            };
            let lo = members.iter().map(|m| m.1).min().unwrap_or(0);
            let (base, _, bias) = self.strided_window(*space)?;
            let a_lo = self.b.ins().iadd_imm_s(r0, lo);
            // In the stream loop's copy the host pointer is (base − bias) + a_lo: the base is
            // loaded once for the loop (`Gen::env_val`), so the egraph hoists the moved
            // start out of it and each turn adds its address in the access's addressing
            // mode, not the bias (a 64-bit constant for global memory). Elsewhere the
            // moved start, one value for the whole block, made other kernels' register
            // allocation worse (histogram_global +0.6% instructions), so it stays
            // base + (a_lo − bias) there.
            let p = if bias != 0 && self.stream.is_some() {
                let start = self.b.ins().iadd_imm_s(base, -bias);
                self.b.ins().iadd(start, a_lo)
            } else {
                let off = self.b.ins().iadd_imm_s(a_lo, -bias);
                self.b.ins().iadd(base, off)
            };
            addrs.push((a_lo, p, lo));
        }
        // Each group's bounds/alignment test and the run-time conditions of all replays
        // (launch fact, no wrap), which hold for the block or the fast paths are all off.
        let per_warp = |g: &mut Self| -> Result<Vec<Value>, String> {
            let mut common = None;
            for &c in &rp.checks {
                common = Some(match common {
                    None => c,
                    Some(x) => g.b.ins().band(x, c),
                });
            }
            let mut oks = Vec::with_capacity(groups.len());
            for (((_, space, _, elem, stride), members), &(a_lo, _, lo)) in
                groups.iter().zip(&addrs)
            {
                let hi = members.iter().map(|m| m.1).max().unwrap_or(0);
                let aligns = tested_aligns(members.iter().map(|m| (m.1, m.3)), *elem);
                let ok = g.window_ok(a_lo, *space, lo, hi, *elem, *stride, &aligns)?;
                oks.push(match common {
                    Some(c) => g.b.ins().band(ok, c),
                    None => ok,
                });
            }
            Ok(oks)
        };
        let oks = match (looped, cta, self.hoist.cta.ok) {
            (Some(oks), _, _) => oks,
            (None, Some(ranges), Some(_)) if self.hoist.cta.deferred.is_some() => {
                // Made only where the region's full-warp version is not entered from the
                // flag (`Gen::region_loops`).
                self.hoist.cta.add(ranges);
                let mut oks = Vec::with_capacity(groups.len());
                for (((_, space, _, elem, stride), members), &(a_lo, _, lo)) in
                    groups.iter().zip(&addrs)
                {
                    let hi = members.iter().map(|m| m.1).max().unwrap_or(0);
                    let t = super::ctacheck::DeferredTest::Window {
                        a_lo,
                        space: *space,
                        lo,
                        hi,
                        elem: *elem,
                        stride: *stride,
                        aligns: tested_aligns(members.iter().map(|m| (m.1, m.3)), *elem),
                        checks: rp.checks.clone(),
                    };
                    oks.push(self.defer_in_region(t)?);
                }
                oks
            }
            (None, Some(ranges), Some(cta_ok)) => {
                self.hoist.cta.add(ranges);
                self.or_per_warp(cta_ok, groups.len(), per_warp)?
            }
            (None, _, _) => per_warp(self)?,
        };
        let mut full: Option<Value> = None;
        for (((root, _, _, elem, stride), members), (ok, (_, p, lo))) in
            groups.iter().zip(oks.into_iter().zip(addrs))
        {
            let mut ok_store = None;
            for &(i, off, store, _) in members {
                let ok = if store {
                    match ok_store {
                        Some(o) => o,
                        None => {
                            // Without a mask (a region's block after its head), the store
                            // tests its group's lanes itself (`region.rs`).
                            let f = match (full, mask) {
                                (Some(f), _) => Some(f),
                                (None, Some(mask)) => {
                                    let f = self.b.ins().icmp_imm_s(IntCC::Equal, mask, -1);
                                    full = Some(f);
                                    Some(f)
                                }
                                (None, None) => None,
                            };
                            let o = match (f, self.deferred_index(ok)) {
                                (Some(full), Some(test)) => {
                                    let t = super::ctacheck::DeferredTest::And { test, full };
                                    self.defer_in_region(t)?
                                }
                                (Some(f), None) => self.b.ins().band(ok, f),
                                (None, _) => ok,
                            };
                            ok_store = Some(o);
                            o
                        }
                    }
                } else {
                    ok
                };
                let p = if off == lo {
                    p
                } else {
                    self.b.ins().iadd_imm_s(p, off - lo)
                };
                out.access.insert(
                    i,
                    FastAccess {
                        ok,
                        p,
                        stride: *stride as u32,
                        root: *root,
                        off,
                        member: stride > elem,
                    },
                );
            }
        }
        Ok(out)
    }
}

/// A branch condition [`Gen::warp_cond`] can decide for a warp (`Gen::cond_form`): the
/// compare and which operand varies across the lanes, with what stride.
enum CondForm {
    /// An `eq`/`ne` compare, decided as "no lane equal".
    Unequal { d: ir::InstData, k: usize, s: i64 },
    /// An ordered compare, monotone across the lanes.
    Ordered {
        d: ir::InstData,
        shape: super::ctacheck::CondShape,
    },
}
