//! SIMD code for groups of four lanes, and the code of whole blocks (scalar section, group
//! loops, terminators). See `codegen.rs` for the overall shape.
//!
//! A value of a group is a [`GVal`]: one 128-bit vector of four 32-bit lanes (`i32`, `f32`,
//! and predicates as `i32x4` masks of all-ones/zero), two vectors of two 64-bit lanes (`i64`,
//! `f64`), or four scalars (`i8`, `i16`, and anything built lane by lane).

use super::codegen::{ctype, nan_blind, EnvField, Gen, StayVals, TRUSTED};
use super::group::UniformRuns;
use crate::analysis::schedule::{EXITED_OFF, LIVE_OFF};
use crate::ir::{self, Effect, Op, Terminator};
use crate::runtime::env::CtaEnv;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, BlockArg, ConstantData, Endianness, InstBuilder, MemFlagsData, Value,
};
use std::collections::HashMap;
use std::mem::offset_of;

type CType = cranelift_codegen::ir::Type;

/// Loads issued in a segment between two pure operations kept in place by a store to a
/// scratch slot (`Gen::pin`): the operations between are computed at the next one, so up
/// to this many loaded values are live at once (fewer than the 16 vector registers, with
/// room for an accumulator and the loop's constants). Pinning every consumer cost one store
/// per operation: sgemm_tiled's chain of 16 `fma` per group stored each result.
const PIN_LOADS: u32 = 6;

/// A value for the four lanes of a group.
#[derive(Clone, Copy, Debug)]
pub(super) enum GVal {
    V1(Value),
    V2(Value, Value),
    S4([Value; 4]),
}

/// The current group inside a group loop.
pub(super) struct Grp {
    /// Group index 0..8 (`i32`).
    pub(super) g: Value,
    /// The group's four lane-mask bits (`i32`, bit j = lane 4g+j active).
    pub(super) bits: Value,
    /// Active-lane masks: `i32x4`, and the two `i64x2` halves.
    pub(super) m32: Value,
    pub(super) m64: [Value; 2],
    /// `state + g * 4 * size` for lane sizes 1, 2, 4, 8.
    base: [Value; 4],
    pub(super) vals: HashMap<ir::Value, GVal>,
    /// Each `u8`/`u16` load's four lanes packed in the low lanes of one `i8x16`/`i16x8`
    /// vector (`Gen::vec_load`), from which a conversion to 32 bits widens all four at once.
    pub(super) packed: HashMap<ir::Value, Value>,
    /// Group-affine addresses replayed for this group (`group.rs`).
    pub(super) gcache: super::group::GroupCache,
    /// All four lanes are active (a loop of `group_loop` over a full warp): stores to slots
    /// need no blend.
    pub(super) full: bool,
    /// Struct members loaded ahead by their run, and stores kept for their run (`wide.rs`).
    pub(super) wide: super::wide::WideGrp,
}

impl Grp {
    /// Group `g` with lane bits `bits`, masks `m32`/`m64`, slot bases `base` (see the
    /// fields), nothing computed yet.
    fn new(
        g: Value,
        bits: Value,
        m32: Value,
        m64: [Value; 2],
        base: [Value; 4],
        full: bool,
    ) -> Grp {
        Grp {
            g,
            bits,
            m32,
            m64,
            base,
            vals: HashMap::new(),
            packed: HashMap::new(),
            gcache: Default::default(),
            full,
            wide: Default::default(),
        }
    }

    /// Where lane `4g`'s element of a slot of `t`-typed values is, less the slot's offset
    /// (`state + g · 4 · size`).
    pub(super) fn slot_base(&self, t: ir::Type) -> Value {
        self.base[size_index(lane_bytes(t))]
    }
}

/// How a lane of a value is stored: bytes per lane in its slot.
fn lane_bytes(t: ir::Type) -> u32 {
    match t {
        ir::Type::Pred => 4,
        t => t.bytes(),
    }
}

fn size_index(bytes: u32) -> usize {
    match bytes {
        1 => 0,
        2 => 1,
        4 => 2,
        _ => 3,
    }
}

/// The vector type of a 32-bit (V1) or 64-bit (V2) IR type.
pub(super) fn vty(t: ir::Type) -> Option<CType> {
    match t {
        ir::Type::I32 | ir::Type::Pred => Some(types::I32X4),
        ir::Type::F32 => Some(types::F32X4),
        ir::Type::I64 => Some(types::I64X2),
        ir::Type::F64 => Some(types::F64X2),
        _ => None,
    }
}

fn is_v1(t: ir::Type) -> bool {
    matches!(t, ir::Type::I32 | ir::Type::F32 | ir::Type::Pred)
}

fn is_v2(t: ir::Type) -> bool {
    matches!(t, ir::Type::I64 | ir::Type::F64)
}

fn vflags() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

impl Gen<'_, '_> {
    fn vconst_bytes(&mut self, t: CType, bytes: Vec<u8>) -> Value {
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        self.b.ins().vconst(t, c)
    }

    pub(super) fn vconst_i32(&mut self, v: [i32; 4]) -> Value {
        let bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.vconst_bytes(types::I32X4, bytes)
    }

    /// An `i64x2` constant.
    pub(super) fn vconst_i64(&mut self, v: [i64; 2]) -> Value {
        let bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.vconst_bytes(types::I64X2, bytes)
    }

    pub(super) fn vbitcast(&mut self, x: Value, to: CType) -> Value {
        if self.b.func.dfg.value_type(x) == to {
            x
        } else {
            self.b.ins().bitcast(to, vflags(), x)
        }
    }

    /// Lane `lane` of the 32-bit lanes of `v` in all four lanes, as `to` (one `pshufd`).
    fn lane_splat32(&mut self, v: Value, lane: u8, to: CType) -> Value {
        let v8 = self.vbitcast(v, types::I8X16);
        let idx: Vec<u8> = (0..16u8).map(|k| lane * 4 + k % 4).collect();
        let imm = self.b.func.dfg.immediates.push(ConstantData::from(idx));
        let r = self.b.ins().shuffle(v8, v8, imm);
        self.vbitcast(r, to)
    }

    /// Lanes 0 of `a`, `b` and 1 of each → the low 32 bits of four 64-bit lanes (truncation
    /// of two `i64x2` into one `i32x4`).
    fn narrow64(&mut self, a: Value, b: Value) -> Value {
        let a8 = self.vbitcast(a, types::I8X16);
        let b8 = self.vbitcast(b, types::I8X16);
        let idx: Vec<u8> = [0u8, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27].to_vec();
        let imm = self.b.func.dfg.immediates.push(ConstantData::from(idx));
        let r = self.b.ins().shuffle(a8, b8, imm);
        self.vbitcast(r, types::I32X4)
    }

    /// Open a loop over the groups of `mask` that have an active lane. The closure emits the
    /// body for one group and returns the new accumulator (`i32`, starting at 0). Returns the
    /// final accumulator. `full`: the caller has tested that `mask` has all 32 lanes, so every
    /// group runs with all four lanes active (constant lane masks, no test per group).
    pub(super) fn group_loop(
        &mut self,
        mask: Value,
        full: bool,
        body: impl FnMut(&mut Self, &mut Grp, Value) -> Result<Value, String>,
    ) -> Result<Value, String> {
        if full && std::mem::take(&mut self.unroll_groups) {
            return self.group_straight(body);
        }
        self.group_loop_from(mask, full, None, body)
    }

    /// [`Self::group_loop`] (not unrolled) starting at group index `start.0` (`i32`) with
    /// accumulator `start.1`, or at group 0 with 0.
    pub(super) fn group_loop_from(
        &mut self,
        mask: Value,
        full: bool,
        start: Option<(Value, Value)>,
        mut body: impl FnMut(&mut Self, &mut Grp, Value) -> Result<Value, String>,
    ) -> Result<Value, String> {
        let head = self.b.create_block();
        self.b.append_block_param(head, types::I32);
        self.b.append_block_param(head, types::I32);
        let check = self.b.create_block();
        let run = self.b.create_block();
        let next = self.b.create_block();
        self.b.append_block_param(next, types::I32);
        let exit = self.b.create_block();
        self.b.append_block_param(exit, types::I32);
        let (g0, acc0) = match start {
            Some(s) => s,
            None => {
                let zero = self.b.ins().iconst(types::I32, 0);
                (zero, zero)
            }
        };
        let enter = self
            .b
            .ins()
            .jump(head, &[BlockArg::Value(g0), BlockArg::Value(acc0)]);
        // The per-call values the loop uses are loaded before `enter`, once per loop.
        let outer = (
            self.env_loop.replace(enter),
            std::mem::take(&mut self.env_loop_cache),
        );
        self.b.switch_to_block(head);
        let g = self.b.block_params(head)[0];
        let acc = self.b.block_params(head)[1];
        let done =
            self.b
                .ins()
                .icmp_imm_s(IntCC::Equal, g, crate::analysis::segment::GROUPS as i64);
        self.b
            .ins()
            .brif(done, exit, &[BlockArg::Value(acc)], check, &[]);
        self.b.switch_to_block(check);
        let bits = if full {
            self.b.ins().jump(run, &[]);
            None
        } else {
            let sh = self.b.ins().ishl_imm_s(g, 2);
            let shifted = self.b.ins().ushr(mask, sh);
            let bits = self.b.ins().band_imm_s(shifted, 0xf);
            self.b
                .ins()
                .brif(bits, run, &[], next, &[BlockArg::Value(acc)]);
            Some(bits)
        };
        self.b.switch_to_block(run);
        let bits = match bits {
            Some(b) => b,
            None => self.b.ins().iconst(types::I32, 0xf),
        };
        let base = self.group_bases(g);
        let (m32, m64) = if full {
            let m32 = self.vconst_i32([-1; 4]);
            let m64 = self.vconst_bytes(types::I64X2, vec![0xff; 16]);
            (m32, [m64, m64])
        } else {
            let m32 = self.lane_mask(bits);
            (
                m32,
                [self.b.ins().swiden_low(m32), self.b.ins().swiden_high(m32)],
            )
        };
        let mut grp = Grp::new(g, bits, m32, m64, base, full);
        let acc2 = body(self, &mut grp, acc)?;
        self.b.ins().jump(next, &[BlockArg::Value(acc2)]);
        self.b.switch_to_block(next);
        let acc3 = self.b.block_params(next)[0];
        let g1 = self.b.ins().iadd_imm_s(g, 1);
        self.b
            .ins()
            .jump(head, &[BlockArg::Value(g1), BlockArg::Value(acc3)]);
        (self.env_loop, self.env_loop_cache) = outer;
        self.b.switch_to_block(exit);
        Ok(self.b.block_params(exit)[0])
    }

    /// Group `g`'s (`i32`) slot bases: `state + g · 4 · size` for lane sizes 1, 2, 4, 8.
    fn group_bases(&mut self, g: Value) -> [Value; 4] {
        let g64 = self.b.ins().uextend(self.ptr, g);
        let state = self.state();
        let mut base = [state; 4];
        for (k, slot) in base.iter_mut().enumerate() {
            let off = self.b.ins().ishl_imm_s(g64, 2 + k as i64);
            *slot = self.b.ins().iadd(state, off);
        }
        base
    }

    /// A non-full group `g` (`i32`) with lanes `bits` (its four bits of the mask).
    pub(super) fn group_at(&mut self, g: Value, bits: Value) -> Grp {
        let base = self.group_bases(g);
        let m32 = self.lane_mask(bits);
        let m64 = [self.b.ins().swiden_low(m32), self.b.ins().swiden_high(m32)];
        Grp::new(g, bits, m32, m64, base, false)
    }

    /// The groups of `mask` `n` at a time (`n` divides 8): `body` gets groups `c·n ..
    /// c·n + n` side by side, each with its own lanes of the mask (possibly none), for each
    /// chunk `c` with a lane in the mask; chunks without one are skipped. With `n` = 8 one
    /// chunk, no loop. The per-call values the chunks use are loaded once, before the loop.
    pub(super) fn group_chunks(
        &mut self,
        mask: Value,
        n: usize,
        mut body: impl FnMut(&mut Self, &mut [Grp]) -> Result<(), String>,
    ) -> Result<(), String> {
        let groups = crate::analysis::segment::GROUPS;
        let head = self.b.create_block();
        self.b.append_block_param(head, types::I32);
        let run = self.b.create_block();
        let next = self.b.create_block();
        let exit = self.b.create_block();
        let zero = self.b.ins().iconst(types::I32, 0);
        let enter = self.b.ins().jump(head, &[BlockArg::Value(zero)]);
        let outer = (
            self.env_loop.replace(enter),
            std::mem::take(&mut self.env_loop_cache),
        );
        self.b.switch_to_block(head);
        // `c`: the chunk's first group.
        let c = self.b.block_params(head)[0];
        let done = self.b.ins().icmp_imm_s(IntCC::Equal, c, groups as i64);
        let check = self.b.create_block();
        self.b.ins().brif(done, exit, &[], check, &[]);
        self.b.switch_to_block(check);
        let sh = self.b.ins().ishl_imm_s(c, 2);
        let shifted = self.b.ins().ushr(mask, sh);
        let lanes = match n {
            8 => shifted,
            _ => self.b.ins().band_imm_s(shifted, (1i64 << (4 * n)) - 1),
        };
        self.b.ins().brif(lanes, run, &[], next, &[]);
        self.b.switch_to_block(run);
        let mut grps = vec![];
        for j in 0..n {
            let g = self.b.ins().iadd_imm_s(c, j as i64);
            let s = self.b.ins().ushr_imm_s(lanes, 4 * j as i64);
            let bits = self.b.ins().band_imm_s(s, 0xf);
            grps.push(self.group_at(g, bits));
        }
        body(self, &mut grps)?;
        self.b.ins().jump(next, &[]);
        self.b.switch_to_block(next);
        let c1 = self.b.ins().iadd_imm_s(c, n as i64);
        self.b.ins().jump(head, &[BlockArg::Value(c1)]);
        (self.env_loop, self.env_loop_cache) = outer;
        self.b.switch_to_block(exit);
        Ok(())
    }

    /// The full-warp group loop unrolled: `body` for groups 0..8 in straight-line code, each
    /// with all four lanes active and its group index a constant (so slot and element
    /// offsets fold into the accesses). The per-call values it uses are loaded once, before
    /// it, as for a loop. Returns the last group's accumulator.
    fn group_straight(
        &mut self,
        mut body: impl FnMut(&mut Self, &mut Grp, Value) -> Result<Value, String>,
    ) -> Result<Value, String> {
        let start = self.b.create_block();
        let enter = self.b.ins().jump(start, &[]);
        let outer = (
            self.env_loop.replace(enter),
            std::mem::take(&mut self.env_loop_cache),
        );
        self.b.switch_to_block(start);
        let mut acc = self.b.ins().iconst(types::I32, 0);
        let state = self.state();
        for k in 0..crate::analysis::segment::GROUPS {
            let g = self.b.ins().iconst(types::I32, k as i64);
            let bits = self.b.ins().iconst(types::I32, 0xf);
            let mut base = [state; 4];
            for (j, slot) in base.iter_mut().enumerate() {
                let off = (k as i64) << (2 + j);
                *slot = self.b.ins().iadd_imm_s(state, off);
            }
            let m32 = self.vconst_i32([-1; 4]);
            let m64 = self.vconst_bytes(types::I64X2, vec![0xff; 16]);
            let mut grp = Grp::new(g, bits, m32, [m64, m64], base, true);
            self.cur_group = Some(k as usize);
            let r = body(self, &mut grp, acc);
            self.cur_group = None;
            acc = r?;
        }
        (self.env_loop, self.env_loop_cache) = outer;
        Ok(acc)
    }

    /// The group's lane mask (`i32x4`, all ones in the lanes whose bit is set) from its 4
    /// lane bits (`i32`): lane `j` of `splat(bits) & [1, 2, 4, 8]` is either 0 or `2^j`, so
    /// comparing it with `[1, 2, 4, 8]` for equality needs no second constant (a compare
    /// with zero did, and both stayed live in stack slots across a group loop).
    pub(super) fn lane_mask(&mut self, bits: Value) -> Value {
        let sb = self.b.ins().splat(types::I32X4, bits);
        let sel = self.vconst_i32([1, 2, 4, 8]);
        let anded = self.b.ins().band(sb, sel);
        self.b.ins().icmp(IntCC::Equal, anded, sel)
    }

    /// Broadcast a scalar (predicates as `i8` 0/1) to a group value.
    pub(super) fn splat_val(&mut self, x: Value, t: ir::Type) -> GVal {
        match t {
            ir::Type::Pred => {
                let w = self.b.ins().uextend(types::I32, x);
                let m = self.b.ins().ineg(w);
                GVal::V1(self.b.ins().splat(types::I32X4, m))
            }
            ir::Type::I32 | ir::Type::F32 => {
                GVal::V1(self.b.ins().splat(vty(t).unwrap_or(types::I32X4), x))
            }
            ir::Type::I64 | ir::Type::F64 => {
                let v = self.b.ins().splat(vty(t).unwrap_or(types::I64X2), x);
                GVal::V2(v, v)
            }
            _ => GVal::S4([x; 4]),
        }
    }

    /// The constant `bits` (`Op::Const`) of type `t` in all four lanes.
    ///
    /// In the slow version of a group body (`group_versions`), a vector constant is stored
    /// to a scratch stack slot and loaded back where it is used: a `splat` of a constant is
    /// pure and loop-invariant, so Cranelift's egraph would hoist it out of the group loop,
    /// where it is made and spilled on every block execution although the slow version
    /// rarely runs (sgemm_tiled: 30 address offsets, docs/performance.md). The stores and
    /// the load stay in the slow version.
    fn const_group(&mut self, bits: u64, t: ir::Type) -> GVal {
        if self.group_slow_body {
            let lane = match t {
                ir::Type::I32 | ir::Type::F32 => Some((bits & 0xffff_ffff) * 0x1_0000_0001),
                ir::Type::I64 | ir::Type::F64 => Some(bits),
                _ => None,
            };
            if let (Some(half), Some(vt)) = (lane, vty(t)) {
                let ss = match self.const_slot {
                    Some(ss) => ss,
                    None => {
                        let ss = self.b.create_sized_stack_slot(
                            cranelift_codegen::ir::StackSlotData::new(
                                cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                                16,
                                4,
                            ),
                        );
                        self.const_slot = Some(ss);
                        ss
                    }
                };
                let h = self.b.ins().iconst(types::I64, half as i64);
                self.b.ins().stack_store(self.ptr, h, ss, 0);
                self.b.ins().stack_store(self.ptr, h, ss, 8);
                let v = self.b.ins().stack_load(self.ptr, vt, ss, 0);
                return match t {
                    ir::Type::I64 | ir::Type::F64 => GVal::V2(v, v),
                    _ => GVal::V1(v),
                };
            }
        }
        let x = match t {
            ir::Type::F32 => self.b.ins().f32const(f32::from_bits(bits as u32)),
            ir::Type::F64 => self.b.ins().f64const(f64::from_bits(bits)),
            ir::Type::Pred => self.b.ins().iconst(types::I8, (bits & 1) as i64),
            t => self.b.ins().iconst(ctype(t), bits as i64),
        };
        self.splat_val(x, t)
    }

    /// The four lanes as scalars (predicates as `i8` 0/1).
    pub(super) fn lanes_of(&mut self, v: GVal, t: ir::Type) -> [Value; 4] {
        match v {
            GVal::S4(s) => s,
            GVal::V1(x) => {
                let mut out = [x; 4];
                for (j, o) in out.iter_mut().enumerate() {
                    let e = self.b.ins().extractlane(x, j as u8);
                    *o = if t == ir::Type::Pred {
                        let one = self.b.ins().band_imm_s(e, 1);
                        self.b.ins().ireduce(types::I8, one)
                    } else {
                        e
                    };
                }
                out
            }
            GVal::V2(a, b) => [
                self.b.ins().extractlane(a, 0),
                self.b.ins().extractlane(a, 1),
                self.b.ins().extractlane(b, 0),
                self.b.ins().extractlane(b, 1),
            ],
        }
    }

    /// Pack four scalars into the group representation of `t`.
    pub(super) fn pack_lanes(&mut self, s: [Value; 4], t: ir::Type) -> GVal {
        match t {
            ir::Type::Pred => {
                let mut lanes = s;
                for l in lanes.iter_mut() {
                    let w = self.b.ins().uextend(types::I32, *l);
                    *l = self.b.ins().ineg(w);
                }
                let mut v = self.b.ins().splat(types::I32X4, lanes[0]);
                for (j, &l) in lanes.iter().enumerate().skip(1) {
                    v = self.b.ins().insertlane(v, l, j as u8);
                }
                GVal::V1(v)
            }
            ir::Type::I32 | ir::Type::F32 => {
                let vt = vty(t).unwrap_or(types::I32X4);
                let mut v = self.b.ins().splat(vt, s[0]);
                for (j, &l) in s.iter().enumerate().skip(1) {
                    v = self.b.ins().insertlane(v, l, j as u8);
                }
                GVal::V1(v)
            }
            ir::Type::I64 | ir::Type::F64 => {
                let vt = vty(t).unwrap_or(types::I64X2);
                let a = self.b.ins().splat(vt, s[0]);
                let a = self.b.ins().insertlane(a, s[1], 1);
                let b = self.b.ins().splat(vt, s[2]);
                let b = self.b.ins().insertlane(b, s[3], 1);
                GVal::V2(a, b)
            }
            _ => GVal::S4(s),
        }
    }

    /// Read a value for the group: computed in this group, a scalar of this block's scalar
    /// section (broadcast), or its slot.
    pub(super) fn gget(
        &mut self,
        grp: &mut Grp,
        sc: &HashMap<ir::Value, Value>,
        v: ir::Value,
    ) -> Result<GVal, String> {
        if let Some(&x) = grp.vals.get(&v) {
            return Ok(x);
        }
        if let Some(x) = self.dloop_read(v)? {
            grp.vals.insert(v, x);
            return Ok(x);
        }
        let t = self.ty(v);
        if let (true, Some(bits)) = (self.group_slow_body, self.f.const_bits(v)) {
            // Made in place (see `const_group`), the scalar section's copy notwithstanding.
            let r = self.const_group(bits, t);
            grp.vals.insert(v, r);
            return Ok(r);
        }
        if let Some(&x) = sc.get(&v) {
            let r = self.splat_val(x, t);
            grp.vals.insert(v, r);
            return Ok(r);
        }
        // A constant defined in another block: made again rather than read from its slot.
        // Every lane that reads `v` ran its definition (SSA dominance), so the slot holds
        // the constant in each lane whose value is used.
        if let Some(bits) = self.f.const_bits(v) {
            let r = self.const_group(bits, t);
            grp.vals.insert(v, r);
            return Ok(r);
        }
        let slot = self.layout.slot[v.index()];
        if slot == u32::MAX {
            return Err(format!("value {v} has no slot"));
        }
        let lb = lane_bytes(t);
        let base = grp.base[size_index(lb)];
        let off = slot as i32;
        let r = match t {
            ir::Type::Pred => {
                let x = self.b.ins().load(types::I32X4, TRUSTED(), base, off);
                let z = self.vconst_i32([0; 4]);
                GVal::V1(self.b.ins().icmp(IntCC::NotEqual, x, z))
            }
            ir::Type::I32 | ir::Type::F32 => GVal::V1(self.b.ins().load(
                vty(t).unwrap_or(types::I32X4),
                TRUSTED(),
                base,
                off,
            )),
            ir::Type::I64 | ir::Type::F64 => {
                let vt = vty(t).unwrap_or(types::I64X2);
                let a = self.b.ins().load(vt, TRUSTED(), base, off);
                let b = self.b.ins().load(vt, TRUSTED(), base, off + 16);
                GVal::V2(a, b)
            }
            _ => {
                let ct = ctype(t);
                let mut s = [base; 4];
                for (j, x) in s.iter_mut().enumerate() {
                    *x = self
                        .b
                        .ins()
                        .load(ct, TRUSTED(), base, off + (j as u32 * lb) as i32);
                }
                GVal::S4(s)
            }
        };
        grp.vals.insert(v, r);
        Ok(r)
    }

    /// Store a group's vector value (one vector, or two for 64-bit lanes) at `p`; the
    /// per-lane form `S4` is never stored this way.
    fn store_vector(&mut self, fl: MemFlagsData, x: &GVal, p: Value) {
        match *x {
            GVal::V1(a) => {
                self.b.ins().store(fl, a, p, 0);
            }
            GVal::V2(a, b) => {
                self.b.ins().store(fl, a, p, 0);
                self.b.ins().store(fl, b, p, 16);
            }
            GVal::S4(_) => {}
        }
    }

    /// Store a group value to the slot of `v`; with `blend`, only active lanes change.
    pub(super) fn gstore(
        &mut self,
        grp: &Grp,
        v: ir::Value,
        x: GVal,
        blend: bool,
    ) -> Result<(), String> {
        let blend = blend && !grp.full;
        let t = self.ty(v);
        let slot = self.layout.slot[v.index()];
        if slot == u32::MAX {
            return Err(format!("value {v} has no slot"));
        }
        let lb = lane_bytes(t);
        let base = grp.base[size_index(lb)];
        let off = slot as i32;
        match (x, t) {
            (GVal::V1(m), ir::Type::Pred) => {
                let one = self.vconst_i32([1; 4]);
                let val = self.b.ins().band(m, one);
                let val = if blend {
                    let old = self.b.ins().load(types::I32X4, TRUSTED(), base, off);
                    self.b.ins().bitselect(grp.m32, val, old)
                } else {
                    val
                };
                self.b.ins().store(TRUSTED(), val, base, off);
            }
            (GVal::V1(val), _) => {
                let val = if blend {
                    let vt = self.b.func.dfg.value_type(val);
                    let old = self.b.ins().load(vt, TRUSTED(), base, off);
                    let m = self.vbitcast(grp.m32, vt);
                    self.b.ins().bitselect(m, val, old)
                } else {
                    val
                };
                self.b.ins().store(TRUSTED(), val, base, off);
            }
            (GVal::V2(a, b), _) => {
                for (k, val) in [a, b].into_iter().enumerate() {
                    let o = off + 16 * k as i32;
                    let val = if blend {
                        let vt = self.b.func.dfg.value_type(val);
                        let old = self.b.ins().load(vt, TRUSTED(), base, o);
                        let m = self.vbitcast(grp.m64[k], vt);
                        self.b.ins().bitselect(m, val, old)
                    } else {
                        val
                    };
                    self.b.ins().store(TRUSTED(), val, base, o);
                }
            }
            (GVal::S4(s), _) => {
                for (j, &val) in s.iter().enumerate() {
                    let o = off + (j as u32 * lb) as i32;
                    let val = if t == ir::Type::Pred {
                        self.b.ins().uextend(types::I32, val)
                    } else {
                        val
                    };
                    let val = if blend {
                        let old = self.b.ins().load(ctype_lane(t), TRUSTED(), base, o);
                        let bit = self.b.ins().band_imm_s(grp.bits, 1 << j);
                        self.b.ins().select(bit, val, old)
                    } else {
                        val
                    };
                    self.b.ins().store(TRUSTED(), val, base, o);
                }
            }
        }
        Ok(())
    }

    /// Define `v` for the group (stored to its slot when used outside this segment).
    fn gdef(&mut self, grp: &mut Grp, v: ir::Value, x: GVal) -> Result<(), String> {
        let t = self.ty(v);
        // Normalize the representation: 32/64-bit types are always vectors.
        let x = match x {
            GVal::S4(s) if vty(t).is_some() => self.pack_lanes(s, t),
            x => x,
        };
        grp.vals.insert(v, x);
        if self.escapes[v.index()] && !self.stay.unstored.contains(&v) {
            let blend = self.cross_block[v.index()];
            self.gstore(grp, v, x, blend)?;
        }
        Ok(())
    }

    /// Keep a pure group value where it is computed: Cranelift places pure instructions at
    /// their first use, so a chain such as `acc = fma(ld, ld, acc)` interleaved with loads
    /// would be computed after the last load, with every loaded value live (and spilled)
    /// until then. A store to a scratch stack slot is a use in place. Only in straight-line
    /// bodies (`group_versions`): elsewhere the calls of the slow paths spill the chain's
    /// value anyway.
    pub(super) fn pin(&mut self, x: GVal) {
        if matches!(x, GVal::S4(_)) {
            return;
        }
        let ss = match self.pin_slot {
            Some(ss) => ss,
            None => {
                let ss = self
                    .b
                    .create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
                        cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                        32,
                        4,
                    ));
                self.pin_slot = Some(ss);
                ss
            }
        };
        let p = self.b.ins().stack_addr(self.ptr, ss, 0);
        let fl = MemFlagsData::new().with_notrap();
        self.store_vector(fl, &x, p);
    }

    /// Lane index `4g + j` as `i32`.
    pub(super) fn lane_of(&mut self, grp: &Grp, j: u32) -> Value {
        let g4 = self.b.ins().ishl_imm_s(grp.g, 2);
        self.b.ins().iadd_imm_s(g4, j as i64)
    }

    /// Emit instruction `i` for the group.
    pub(super) fn ginst(
        &mut self,
        grp: &mut Grp,
        sc: &HashMap<ir::Value, Value>,
        i: ir::Inst,
    ) -> Result<(), String> {
        if self.needs_flush(i, true) {
            self.flush_if_pending();
        }
        let d = self.f.inst(i).clone();
        let args = d
            .args
            .iter()
            .map(|&a| self.gget(grp, sc, a))
            .collect::<Result<Vec<_>, _>>()?;
        let arg_tys: Vec<ir::Type> = d.args.iter().map(|&a| self.ty(a)).collect();
        let rt = d.results.first().map(|&r| self.ty(r));
        if let Some(r) = self.vec_op(grp, i, &args, &arg_tys)? {
            if let Some(&res) = d.results.first() {
                self.gdef(grp, res, r)?;
                if (self.group_fast_body || self.warp_fast_body) && self.pinned.contains(&i) {
                    let r = grp.vals.get(&res).copied().unwrap_or(r);
                    self.pin(r);
                }
            }
            return Ok(());
        }
        let out = self.lane_by_lane(grp, i, &args, &arg_tys)?;
        if let (Some(&res), Some(t), Some(s)) = (d.results.first(), rt, out) {
            let gv = if t == ir::Type::Pred {
                self.pack_lanes(s, t)
            } else {
                GVal::S4(s)
            };
            self.gdef(grp, res, gv)?;
        }
        Ok(())
    }

    /// Instruction `i` for the group's lanes one after another (lanes `0..4`; with side
    /// effects only the active ones, an inactive lane's result 0). Returns the four lanes'
    /// results, `None` for an instruction without one.
    pub(super) fn lane_by_lane(
        &mut self,
        grp: &Grp,
        i: ir::Inst,
        args: &[GVal],
        arg_tys: &[ir::Type],
    ) -> Result<Option<[Value; 4]>, String> {
        let d = self.f.inst(i).clone();
        let rt = d.results.first().map(|&r| self.ty(r));
        let lanes: Vec<[Value; 4]> = args
            .iter()
            .zip(arg_tys)
            .map(|(&a, &t)| self.lanes_of(a, t))
            .collect();
        let effect = d.op.effect();
        let mut out: [Option<Value>; 4] = [None; 4];
        for (j, o) in out.iter_mut().enumerate() {
            let lane = self.lane_of(grp, j as u32);
            let argv: Vec<Value> = lanes.iter().map(|l| l[j]).collect();
            if effect == Effect::Pure {
                *o = self.scalar_op(i, &argv, lane)?;
            } else {
                // Only active lanes touch memory.
                let run = self.b.create_block();
                let join = self.b.create_block();
                let bit = self.b.ins().band_imm_s(grp.bits, 1 << j);
                match rt {
                    Some(t) => {
                        let ct = ctype(t);
                        self.b.append_block_param(join, ct);
                        let zero = zero_of(self, ct);
                        self.b
                            .ins()
                            .brif(bit, run, &[], join, &[BlockArg::Value(zero)]);
                        self.b.switch_to_block(run);
                        let r = self.scalar_op(i, &argv, lane)?.unwrap_or(zero);
                        self.b.ins().jump(join, &[BlockArg::Value(r)]);
                        self.b.switch_to_block(join);
                        *o = Some(self.b.block_params(join)[0]);
                    }
                    None => {
                        self.b.ins().brif(bit, run, &[], join, &[]);
                        self.b.switch_to_block(run);
                        self.scalar_op(i, &argv, lane)?;
                        self.b.ins().jump(join, &[]);
                        self.b.switch_to_block(join);
                    }
                }
            }
        }
        if rt.is_none() {
            return Ok(None);
        }
        Ok(Some([
            out[0].ok_or("missing lane result")?,
            out[1].ok_or("missing lane result")?,
            out[2].ok_or("missing lane result")?,
            out[3].ok_or("missing lane result")?,
        ]))
    }

    /// `(k, x)` when operand `x` of a two-operand multiply is the compile-time constant
    /// `2^k` (`k <= max`; the constant read as signed with `signed`, so a negative one never
    /// qualifies), the other operand being the one to shift. Operand 1 is tried first.
    fn pow2_operand(&self, args: &[ir::Value], signed: bool, max: u32) -> Option<(i64, usize)> {
        if args.len() != 2 {
            return None;
        }
        [1usize, 0].into_iter().find_map(|x| {
            let c = self.const_of(args[x], signed)?;
            (c > 0 && (c as u64).is_power_of_two() && (c as u64).trailing_zeros() <= max)
                .then(|| (i64::from((c as u64).trailing_zeros()), x))
        })
    }

    /// The value of the group's first active lane (the group runs only with some lane active).
    pub(super) fn first_active(&mut self, grp: &Grp, x: GVal) -> Value {
        let l = match x {
            GVal::V1(v) => [0u8, 1, 2, 3].map(|j| self.b.ins().extractlane(v, j)),
            GVal::V2(a, b) => {
                [(a, 0u8), (a, 1), (b, 0), (b, 1)].map(|(v, j)| self.b.ins().extractlane(v, j))
            }
            GVal::S4(s) => s,
        };
        let mut n = l[3];
        for j in (0..3).rev() {
            let bit = self.b.ins().band_imm_s(grp.bits, 1 << j);
            n = self.b.ins().select(bit, l[j], n);
        }
        n
    }

    /// The SIMD form of an operation, if it has one here.
    fn vec_op(
        &mut self,
        grp: &mut Grp,
        i: ir::Inst,
        args: &[GVal],
        arg_tys: &[ir::Type],
    ) -> Result<Option<GVal>, String> {
        let d = self.f.inst(i).clone();
        let Some(&res) = d.results.first() else {
            return match d.op {
                Op::Store { space, align } => self.vec_store(grp, i, space, align, args, arg_tys),
                _ => Ok(None),
            };
        };
        let rt = self.ty(res);
        let all = |p: fn(ir::Type) -> bool| arg_tys.iter().all(|&t| p(t));
        let v1 = |k: usize| match args[k] {
            GVal::V1(x) => x,
            _ => args[k].v1_or_panic_free(),
        };
        // Binary lane-wise op on V1 or V2 operands of the result type.
        macro_rules! lanewise {
            ($f:ident) => {{
                match (args[0], args[1]) {
                    (GVal::V1(a), GVal::V1(b)) => GVal::V1(self.b.ins().$f(a, b)),
                    (GVal::V2(a0, a1), GVal::V2(b0, b1)) => {
                        GVal::V2(self.b.ins().$f(a0, b0), self.b.ins().$f(a1, b1))
                    }
                    _ => return Ok(None),
                }
            }};
        }
        let r = match d.op {
            Op::Const { bits } => self.const_group(bits, rt),
            Op::SReg {
                reg: r @ (ir::SReg::TidX | ir::SReg::TidY | ir::SReg::TidZ),
            } => {
                // Four lanes of the launch's `%tid` table (`CtaEnv::tid_table`), at thread
                // `32 warp + 4 g` of component k.
                // The table and its address do not change during the call (`readonly`:
                // `can_move`: Cranelift may drop an unused load and hoist a loop-invariant one).
                let env = self.e.env;
                let tbl = self.b.ins().load(
                    self.ptr,
                    TRUSTED().with_readonly().with_can_move(),
                    env,
                    offset_of!(CtaEnv, tid_table) as i32,
                );
                let warp = self.env_val(EnvField::Warp);
                let w32 = self.b.ins().ishl_imm_s(warp, 5);
                let g4 = self.b.ins().ishl_imm_s(grp.g, 2);
                let mut idx = self.b.ins().iadd(w32, g4);
                let k = match r {
                    ir::SReg::TidX => 0,
                    ir::SReg::TidY => 1,
                    _ => 2,
                };
                if k > 0 {
                    let stride = self.b.ins().load(
                        types::I32,
                        TRUSTED(),
                        env,
                        offset_of!(CtaEnv, tid_stride) as i32,
                    );
                    let ks = self.b.ins().imul_imm_s(stride, k);
                    idx = self.b.ins().iadd(idx, ks);
                }
                let idx64 = self.b.ins().uextend(self.ptr, idx);
                let off = self.b.ins().ishl_imm_s(idx64, 2);
                let p = self.b.ins().iadd(tbl, off);
                // The table is 4-byte aligned only.
                let fl = MemFlagsData::new()
                    .with_notrap()
                    .with_readonly()
                    .with_can_move();
                GVal::V1(self.b.ins().load(types::I32X4, fl, p, 0))
            }
            Op::SReg {
                reg: ir::SReg::LaneId,
            } => {
                let g4 = self.b.ins().ishl_imm_s(grp.g, 2);
                let s = self.b.ins().splat(types::I32X4, g4);
                let steps = self.vconst_i32([0, 1, 2, 3]);
                GVal::V1(self.b.ins().iadd(s, steps))
            }
            // `x + 0` is `x` (a variable at address 0 of its window, `mov.u64 %rd, sym`, added
            // to an offset): no vector addition of a constant zero.
            Op::IAdd {} if d.args.iter().any(|&a| self.f.const_bits(a) == Some(0)) => {
                let k = usize::from(self.f.const_bits(d.args[0]) == Some(0));
                *args
                    .get(k)
                    .ok_or_else(|| format!("{i}: iadd without two operands"))?
            }
            Op::IAdd {} if all(|t| is_v1(t) || is_v2(t)) => lanewise!(iadd),
            Op::ISub {} if all(|t| is_v1(t) || is_v2(t)) => lanewise!(isub),
            // A 64-bit product by a power of two is a shift (`psllq`): x86 has no 64-bit
            // SIMD multiply, and Cranelift's `i64x2` `imul` takes about ten instructions.
            Op::IMul {} if is_v2(rt) && self.pow2_operand(&d.args, false, 63).is_some() => {
                let (k, x) = self.pow2_operand(&d.args, false, 63).unwrap_or((0, 0));
                match args[1 - x] {
                    GVal::V2(a0, a1) => GVal::V2(
                        self.b.ins().ishl_imm_s(a0, k),
                        self.b.ins().ishl_imm_s(a1, k),
                    ),
                    _ => return Ok(None),
                }
            }
            Op::IMul {} if all(|t| is_v1(t) || is_v2(t)) => lanewise!(imul),
            Op::And {} | Op::Or {} | Op::Xor {} if all(|t| is_v1(t) || is_v2(t)) => match d.op {
                Op::And {} => lanewise!(band),
                Op::Or {} => lanewise!(bor),
                _ => lanewise!(bxor),
            },
            Op::Not {} if is_v1(rt) || is_v2(rt) => match args[0] {
                GVal::V1(a) => GVal::V1(self.b.ins().bnot(a)),
                GVal::V2(a, b) => GVal::V2(self.b.ins().bnot(a), self.b.ins().bnot(b)),
                _ => return Ok(None),
            },
            Op::INeg {} if is_v1(rt) || is_v2(rt) => match args[0] {
                GVal::V1(a) => GVal::V1(self.b.ins().ineg(a)),
                GVal::V2(a, b) => GVal::V2(self.b.ins().ineg(a), self.b.ins().ineg(b)),
                _ => return Ok(None),
            },
            Op::IMin { sign } | Op::IMax { sign } if rt == ir::Type::I32 => {
                let (a, b) = (v1(0), v1(1));
                GVal::V1(match (d.op, sign) {
                    (Op::IMin { .. }, ir::Sign::Signed) => self.b.ins().smin(a, b),
                    (Op::IMin { .. }, ir::Sign::Unsigned) => self.b.ins().umin(a, b),
                    (_, ir::Sign::Signed) => self.b.ins().smax(a, b),
                    (_, ir::Sign::Unsigned) => self.b.ins().umax(a, b),
                })
            }
            // `mul.wide` by a power of two (`mul.wide.u32 %rd, %r, 4`, the usual index ×
            // element size): the widened operand shifted, exact since the product fits in 64
            // bits. Cranelift folds the widened constant, so the general form below would
            // not become `pmuludq` but its ten-instruction `i64x2` multiply.
            Op::IMulWide { sign }
                if rt == ir::Type::I64
                    && arg_tys[0] == ir::Type::I32
                    && self
                        .pow2_operand(&d.args, sign == ir::Sign::Signed, 31)
                        .is_some() =>
            {
                let signed = sign == ir::Sign::Signed;
                let (k, x) = self.pow2_operand(&d.args, signed, 31).unwrap_or((0, 0));
                let a = v1(1 - x);
                let (lo, hi) = if signed {
                    (self.b.ins().swiden_low(a), self.b.ins().swiden_high(a))
                } else {
                    (self.b.ins().uwiden_low(a), self.b.ins().uwiden_high(a))
                };
                GVal::V2(
                    self.b.ins().ishl_imm_s(lo, k),
                    self.b.ins().ishl_imm_s(hi, k),
                )
            }
            Op::IMulWide { sign } if rt == ir::Type::I64 && arg_tys[0] == ir::Type::I32 => {
                let (a, b) = (v1(0), v1(1));
                let (a0, a1, b0, b1) = match sign {
                    ir::Sign::Signed => (
                        self.b.ins().swiden_low(a),
                        self.b.ins().swiden_high(a),
                        self.b.ins().swiden_low(b),
                        self.b.ins().swiden_high(b),
                    ),
                    ir::Sign::Unsigned => (
                        self.b.ins().uwiden_low(a),
                        self.b.ins().uwiden_high(a),
                        self.b.ins().uwiden_low(b),
                        self.b.ins().uwiden_high(b),
                    ),
                };
                GVal::V2(self.b.ins().imul(a0, b0), self.b.ins().imul(a1, b1))
            }
            Op::Shl {} | Op::Shr { .. }
                if (is_v1(rt) || is_v2(rt))
                    && rt != ir::Type::Pred
                    && self.uni.uniform_at(d.args[1], self.block_of(i)) =>
            {
                // A uniform count: one vector shift, with PTX's clamping. Uniform means equal
                // in the *active* lanes: an inactive lane's slot may be stale (a lane that left
                // a loop early keeps its last counter), so take the first active lane's count.
                let n = self.first_active(grp, args[1]);
                let bits = rt.bits() as i64;
                let big = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, n, bits);
                let one = |g: &mut Self, x: Value| -> Value {
                    match d.op {
                        Op::Shl {} => g.b.ins().ishl(x, n),
                        Op::Shr {
                            sign: ir::Sign::Unsigned,
                        } => g.b.ins().ushr(x, n),
                        _ => {
                            let lim = g.b.ins().iconst(types::I32, bits - 1);
                            let c = g.b.ins().umin(n, lim);
                            g.b.ins().sshr(x, c)
                        }
                    }
                };
                let signed = matches!(
                    d.op,
                    Op::Shr {
                        sign: ir::Sign::Signed
                    }
                );
                let fix = |g: &mut Self, x: Value, s: Value| -> Value {
                    if signed {
                        s
                    } else {
                        let vt = g.b.func.dfg.value_type(x);
                        let z = g.b.ins().iconst(types::I64, 0);
                        let zs = if vt == types::I32X4 {
                            let z32 = g.b.ins().ireduce(types::I32, z);
                            g.b.ins().splat(vt, z32)
                        } else {
                            g.b.ins().splat(vt, z)
                        };
                        g.b.ins().select(big, zs, s)
                    }
                };
                match args[0] {
                    GVal::V1(a) => {
                        let s = one(self, a);
                        GVal::V1(fix(self, a, s))
                    }
                    GVal::V2(a, b) => {
                        let (sa, sb) = (one(self, a), one(self, b));
                        GVal::V2(fix(self, a, sa), fix(self, b, sb))
                    }
                    _ => return Ok(None),
                }
            }
            Op::FAdd { rnd, ftz, sat }
            | Op::FSub { rnd, ftz, sat }
            | Op::FMul { rnd, ftz, sat }
                if rnd == ir::Round::Nearest && !ftz && !sat =>
            {
                let r = match d.op {
                    Op::FAdd { .. } => lanewise!(fadd),
                    Op::FSub { .. } => lanewise!(fsub),
                    _ => lanewise!(fmul),
                };
                self.vcanon_unless_blind(res, r)
            }
            Op::FDiv {
                rnd,
                ftz,
                approx: false,
            } if rnd == ir::Round::Nearest && !ftz => {
                let r = lanewise!(fdiv);
                self.vcanon_unless_blind(res, r)
            }
            Op::FFma { rnd, ftz, sat } if rnd == ir::Round::Nearest && !ftz && !sat => {
                let r = match (args[0], args[1], args[2]) {
                    (GVal::V1(a), GVal::V1(b), GVal::V1(c)) => GVal::V1(self.b.ins().fma(a, b, c)),
                    (GVal::V2(a0, a1), GVal::V2(b0, b1), GVal::V2(c0, c1)) => {
                        GVal::V2(self.b.ins().fma(a0, b0, c0), self.b.ins().fma(a1, b1, c1))
                    }
                    _ => return Ok(None),
                };
                self.vcanon_unless_blind(res, r)
            }
            Op::FSqrt { rnd, ftz, .. } if rnd == ir::Round::Nearest && !ftz => {
                let r = match args[0] {
                    GVal::V1(a) => GVal::V1(self.b.ins().sqrt(a)),
                    GVal::V2(a, b) => GVal::V2(self.b.ins().sqrt(a), self.b.ins().sqrt(b)),
                    _ => return Ok(None),
                };
                self.vcanon_unless_blind(res, r)
            }
            Op::FMinMax {
                max,
                ftz: false,
                nan: false,
                xorsign: false,
            } => {
                // `fp::minmax`: a NaN operand yields the other one, two NaNs the canonical
                // NaN; otherwise the larger (smaller), with -0 < +0 as Cranelift's
                // `fmax`/`fmin` order them.
                let one = |g: &mut Self, a: Value, b: Value| -> Value {
                    let vt = g.b.func.dfg.value_type(a);
                    let r = if max {
                        g.b.ins().fmax(a, b)
                    } else {
                        g.b.ins().fmin(a, b)
                    };
                    let an = g.b.ins().fcmp(FloatCC::Unordered, a, a);
                    let bn = g.b.ins().fcmp(FloatCC::Unordered, b, b);
                    let an = g.vbitcast(an, vt);
                    let bn = g.vbitcast(bn, vt);
                    let r = g.b.ins().bitselect(an, b, r);
                    g.b.ins().bitselect(bn, a, r)
                };
                let r = match (args[0], args[1]) {
                    (GVal::V1(a), GVal::V1(b)) => GVal::V1(one(self, a, b)),
                    (GVal::V2(a0, a1), GVal::V2(b0, b1)) => {
                        GVal::V2(one(self, a0, b0), one(self, a1, b1))
                    }
                    _ => return Ok(None),
                };
                self.vcanon_unless_blind(res, r)
            }
            Op::FNeg { ftz: false } => match args[0] {
                GVal::V1(a) => GVal::V1(self.b.ins().fneg(a)),
                GVal::V2(a, b) => GVal::V2(self.b.ins().fneg(a), self.b.ins().fneg(b)),
                _ => return Ok(None),
            },
            Op::FAbs { ftz: false } => match args[0] {
                GVal::V1(a) => GVal::V1(self.b.ins().fabs(a)),
                GVal::V2(a, b) => GVal::V2(self.b.ins().fabs(a), self.b.ins().fabs(b)),
                _ => return Ok(None),
            },
            Op::ICmp { cc, sign } if arg_tys[0] == ir::Type::I32 => {
                let c = int_cc(cc, sign);
                GVal::V1(self.b.ins().icmp(c, v1(0), v1(1)))
            }
            Op::ICmp { cc, sign }
                if arg_tys[0] == ir::Type::I64
                    && (sign == ir::Sign::Signed || matches!(cc, ir::ICmp::Eq | ir::ICmp::Ne)) =>
            {
                let c = int_cc(cc, sign);
                match (args[0], args[1]) {
                    (GVal::V2(a0, a1), GVal::V2(b0, b1)) => {
                        let m0 = self.b.ins().icmp(c, a0, b0);
                        let m1 = self.b.ins().icmp(c, a1, b1);
                        GVal::V1(self.narrow64(m0, m1))
                    }
                    _ => return Ok(None),
                }
            }
            Op::FCmp { cc, ftz: false } => match (args[0], args[1]) {
                (GVal::V1(a), GVal::V1(b)) => {
                    let m = self.vector_fcmp(cc, a, b);
                    GVal::V1(self.vbitcast(m, types::I32X4))
                }
                (GVal::V2(a0, a1), GVal::V2(b0, b1)) => {
                    let m0 = self.vector_fcmp(cc, a0, b0);
                    let m1 = self.vector_fcmp(cc, a1, b1);
                    GVal::V1(self.narrow64(m0, m1))
                }
                _ => return Ok(None),
            },
            Op::Select {} if is_v1(rt) || is_v2(rt) => {
                let GVal::V1(m) = args[2] else {
                    return Ok(None);
                };
                match (args[0], args[1]) {
                    (GVal::V1(a), GVal::V1(b)) => {
                        let vt = self.b.func.dfg.value_type(a);
                        let m = self.vbitcast(m, vt);
                        GVal::V1(self.b.ins().bitselect(m, a, b))
                    }
                    (GVal::V2(a0, a1), GVal::V2(b0, b1)) => {
                        let vt = self.b.func.dfg.value_type(a0);
                        let ml = self.b.ins().swiden_low(m);
                        let mh = self.b.ins().swiden_high(m);
                        let ml = self.vbitcast(ml, vt);
                        let mh = self.vbitcast(mh, vt);
                        GVal::V2(
                            self.b.ins().bitselect(ml, a0, b0),
                            self.b.ins().bitselect(mh, a1, b1),
                        )
                    }
                    _ => return Ok(None),
                }
            }
            Op::Bitcast {}
                if (is_v1(rt) && is_v1(arg_tys[0])) || (is_v2(rt) && is_v2(arg_tys[0])) =>
            {
                let to = vty(rt).unwrap_or(types::I32X4);
                match args[0] {
                    GVal::V1(a) => GVal::V1(self.vbitcast(a, to)),
                    GVal::V2(a, b) => GVal::V2(self.vbitcast(a, to), self.vbitcast(b, to)),
                    _ => return Ok(None),
                }
            }
            // `cvt.sat.f32.f32` (PTX ISA §9.7.9.21, `semantics::cvt`): NaN and negative
            // numbers give +0.0 (-0.0 stays), numbers above 1.0 give 1.0, the rest is exact.
            Op::Cvt {
                dst: ir::CvtType::F32,
                src: ir::CvtType::F32,
                rnd: ir::CvtRound::None | ir::CvtRound::Float(_),
                sat: true,
                ftz: false,
            } => {
                let GVal::V1(a) = args[0] else {
                    return Ok(None);
                };
                let zero = self.b.ins().f32const(0.0);
                let zero = self.b.ins().splat(types::F32X4, zero);
                let one = self.b.ins().f32const(1.0);
                let one = self.b.ins().splat(types::F32X4, one);
                let above = self.b.ins().fcmp(FloatCC::GreaterThan, a, one);
                let below = self.b.ins().fcmp(FloatCC::LessThan, a, zero);
                let nan = self.b.ins().fcmp(FloatCC::Unordered, a, a);
                let to_zero = self.b.ins().bor(below, nan);
                // `bitselect` takes its mask in the operands' type (Cranelift's verifier).
                let above = self.vbitcast(above, types::F32X4);
                let to_zero = self.vbitcast(to_zero, types::F32X4);
                let r = self.b.ins().bitselect(above, one, a);
                GVal::V1(self.b.ins().bitselect(to_zero, zero, r))
            }
            // f32 → 32-bit integer with an integer rounding (`cvt.rni.s32.f32` …): round, then
            // convert saturating, NaN → 0, as `semantics::cvt` (`.sat` changes nothing there).
            Op::Cvt {
                dst: dst @ (ir::CvtType::S32 | ir::CvtType::U32),
                src: ir::CvtType::F32,
                rnd: ir::CvtRound::Int(r),
                sat: _,
                ftz: false,
            } => {
                let GVal::V1(a) = args[0] else {
                    return Ok(None);
                };
                let y = match r {
                    ir::Round::Nearest => self.b.ins().nearest(a),
                    ir::Round::Zero => self.b.ins().trunc(a),
                    ir::Round::Down => self.b.ins().floor(a),
                    ir::Round::Up => self.b.ins().ceil(a),
                };
                GVal::V1(if dst == ir::CvtType::S32 {
                    self.b.ins().fcvt_to_sint_sat(types::I32X4, y)
                } else {
                    self.b.ins().fcvt_to_uint_sat(types::I32X4, y)
                })
            }
            Op::Cvt {
                dst,
                src,
                rnd,
                sat: false,
                ftz: false,
            } => match (src, dst, rnd, args[0]) {
                (
                    ir::CvtType::S32,
                    ir::CvtType::F32,
                    ir::CvtRound::Float(ir::Round::Nearest),
                    GVal::V1(a),
                ) => GVal::V1(self.b.ins().fcvt_from_sint(types::F32X4, a)),
                (
                    ir::CvtType::S32 | ir::CvtType::U32,
                    ir::CvtType::S64 | ir::CvtType::U64,
                    ir::CvtRound::None,
                    GVal::V1(a),
                ) => {
                    if src == ir::CvtType::S32 {
                        GVal::V2(self.b.ins().swiden_low(a), self.b.ins().swiden_high(a))
                    } else {
                        GVal::V2(self.b.ins().uwiden_low(a), self.b.ins().uwiden_high(a))
                    }
                }
                (
                    ir::CvtType::S64 | ir::CvtType::U64,
                    ir::CvtType::S32 | ir::CvtType::U32,
                    ir::CvtRound::None,
                    GVal::V2(a, b),
                ) => GVal::V1(self.narrow64(a, b)),
                (s, t, ir::CvtRound::None, GVal::V1(a))
                    if s.ir() == ir::Type::I32 && t.ir() == ir::Type::I32 =>
                {
                    GVal::V1(a)
                }
                // A `u8`/`u16` load's lanes widened to 32 bits in one vector, extended as the
                // source type says (`semantics::cvt`: integer to integer without `.sat`).
                (
                    ir::CvtType::U8 | ir::CvtType::S8 | ir::CvtType::U16 | ir::CvtType::S16,
                    ir::CvtType::U32 | ir::CvtType::S32,
                    ir::CvtRound::None,
                    GVal::S4(_),
                ) if grp.packed.contains_key(&d.args[0]) => {
                    let Some(&x) = grp.packed.get(&d.args[0]) else {
                        return Ok(None);
                    };
                    let mut x = x;
                    let steps = if src.ir() == ir::Type::I8 { 2 } else { 1 };
                    for _ in 0..steps {
                        x = if src.is_signed() {
                            self.b.ins().swiden_low(x)
                        } else {
                            self.b.ins().uwiden_low(x)
                        };
                    }
                    GVal::V1(x)
                }
                _ => return Ok(None),
            },
            Op::Cvta { space, to_generic } if is_v1(rt) || is_v2(rt) => {
                let w = crate::runtime::env::cvta(space, true, 0);
                let w = if to_generic { w } else { w.wrapping_neg() };
                let w = (w & rt.mask()) as i64;
                match args[0] {
                    GVal::V1(a) => {
                        let c = self.b.ins().iconst(types::I32, w);
                        let s = self.b.ins().splat(types::I32X4, c);
                        GVal::V1(self.b.ins().iadd(a, s))
                    }
                    GVal::V2(a, b) => {
                        let c = self.b.ins().iconst(types::I64, w);
                        let s = self.b.ins().splat(types::I64X2, c);
                        GVal::V2(self.b.ins().iadd(a, s), self.b.ins().iadd(b, s))
                    }
                    _ => return Ok(None),
                }
            }
            Op::Load { space, align } => return self.vec_load(grp, i, space, align, args, rt),
            Op::Atom { .. } | Op::AtomCas { .. } => {
                return self.group_atomic(grp, i, args, arg_tys);
            }
            _ => return self.vec_bits(grp, i, args),
        };
        Ok(Some(r))
    }

    /// [`Self::vcanon`], except for a value only NaN-blind operations read (`Gen::nan_blind`).
    fn vcanon_unless_blind(&mut self, v: ir::Value, r: GVal) -> GVal {
        if self.nan_blind[v.index()] || self.stay.blind.contains(&v) {
            r
        } else {
            self.vcanon(r)
        }
    }

    /// Canonical NaN for every NaN lane.
    fn vcanon(&mut self, r: GVal) -> GVal {
        let one = |g: &mut Self, x: Value| -> Value {
            let vt = g.b.func.dfg.value_type(x);
            let uno = g.b.ins().fcmp(FloatCC::Unordered, x, x);
            let c = if vt == types::F32X4 {
                let f =
                    g.b.ins()
                        .f32const(f32::from_bits(crate::runtime::semantics::F32_CANONICAL_NAN));
                g.b.ins().splat(vt, f)
            } else {
                let f =
                    g.b.ins()
                        .f64const(f64::from_bits(crate::runtime::semantics::F64_CANONICAL_NAN));
                g.b.ins().splat(vt, f)
            };
            let m = g.vbitcast(uno, vt);
            g.b.ins().bitselect(m, c, x)
        };
        match r {
            GVal::V1(x) => GVal::V1(one(self, x)),
            GVal::V2(a, b) => GVal::V2(one(self, a), one(self, b)),
            s => s,
        }
    }

    /// The IR block defining `v`.
    pub(super) fn def_block(&self, v: ir::Value) -> Option<ir::Block> {
        match self.f.values[v.index()].def {
            ir::ValueDef::Param(b, _) => Some(b),
            ir::ValueDef::Result(i, _) => Some(self.block_of(i)),
        }
    }

    /// The IR block holding instruction `i`.
    pub(super) fn block_of(&self, i: ir::Inst) -> ir::Block {
        ir::Block(self.inst_block[i.index()])
    }

    /// The address operand of a memory op as two `i64x2` vectors.
    pub(super) fn addr_v2(&mut self, a: GVal, t: ir::Type) -> Option<(Value, Value)> {
        match (a, t) {
            (GVal::V2(x, y), ir::Type::I64) => Some((x, y)),
            (GVal::V1(x), ir::Type::I32) => {
                Some((self.b.ins().uwiden_low(x), self.b.ins().uwiden_high(x)))
            }
            _ => None,
        }
    }

    /// Fast-path tests for a group access with all four lanes active. Returns
    /// `(consecutive, same, p)`: `consecutive` when the addresses are `a, a+s, a+2s, a+3s`
    /// (s = element size) and the whole range passes the inline bounds check of `space`;
    /// `same` when all four lanes use address `a` and its element passes the check (a
    /// broadcast such as `As[ty][k]`); `p` is the host pointer of lane 0's element. Each
    /// test is built only where the caller branches on it (`want_consecutive`, `want_same`,
    /// else `None`): an unread test would be removed again by the dead-code pass, after its
    /// building and the pass's own work on it.
    #[allow(clippy::too_many_arguments)]
    fn contiguous(
        &mut self,
        grp: &Grp,
        i: ir::Inst,
        space: ir::Space,
        addr: (Value, Value),
        elem: u32,
        align: u32,
        (want_consecutive, want_same): (bool, bool),
    ) -> Option<(Option<Value>, Option<Value>, Value)> {
        // A big kernel's quick tier (`Gen::big`): not where the shape cannot be
        // consecutive or one address but by the data's chance (a data-dependent address),
        // nor after a hoisted check that failed (a warp's range past a bound: its tail).
        if self.big
            && (!self.affine.is_uniform(self.f.inst(i).args[0])
                || self.fast.access.contains_key(&i))
        {
            return None;
        }
        let (base, limit, bias) = self.window(space)?;
        let a0 = self.b.ins().extractlane(addr.0, 0);
        let sa = self.b.ins().splat(types::I64X2, a0);
        let s = elem as i64;
        let consecutive = want_consecutive.then(|| {
            let c0 = self.vconst_i64([0, s]);
            let c1 = self.vconst_i64([2 * s, 3 * s]);
            let e0 = self.b.ins().iadd(sa, c0);
            let e1 = self.b.ins().iadd(sa, c1);
            let q0 = self.b.ins().icmp(IntCC::Equal, e0, addr.0);
            let q1 = self.b.ins().icmp(IntCC::Equal, e1, addr.1);
            let q = self.b.ins().band(q0, q1);
            self.b.ins().vall_true(q)
        });
        let same = want_same.then(|| {
            let r0 = self.b.ins().icmp(IntCC::Equal, sa, addr.0);
            let r1 = self.b.ins().icmp(IntCC::Equal, sa, addr.1);
            let r = self.b.ins().band(r0, r1);
            self.b.ins().vall_true(r)
        });
        let full = self.b.ins().icmp_imm_s(IntCC::Equal, grp.bits, 0xf);
        let off = self.b.ins().iadd_imm_s(a0, -bias);
        let lt = self.b.ins().icmp(IntCC::UnsignedLessThan, off, limit);
        let room = self.b.ins().isub(limit, off);
        let fits4 = want_consecutive.then(|| {
            self.b
                .ins()
                .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, room, 4 * s)
        });
        let fits1 = want_same.then(|| {
            self.b
                .ins()
                .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, room, s)
        });
        // Common to both: lane 0 in bounds and aligned, all lanes active, memcheck off.
        let mut ok = self.b.ins().band(lt, full);
        let al = align.max(elem) as i64;
        if al > 1 {
            let low = self.b.ins().band_imm_s(a0, al - 1);
            let z = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
            ok = self.b.ins().band(ok, z);
        }
        if matches!(space, ir::Space::Global | ir::Space::Const) {
            let checks = self.env_val(EnvField::Memcheck);
            let nm = self.b.ins().icmp_imm_s(IntCC::Equal, checks, 0);
            ok = self.b.ins().band(ok, nm);
            if self.combine {
                // The four elements' bytes miss the pending reductions (`combine.rs`).
                let clear = self.pending_clear(a0, 4 * s);
                ok = self.b.ins().band(ok, clear);
            }
        }
        let c = consecutive.zip(fits4).map(|(consecutive, fits4)| {
            let c = self.b.ins().band(consecutive, fits4);
            self.b.ins().band(ok, c)
        });
        let m = same.zip(fits1).map(|(same, fits1)| {
            let m = self.b.ins().band(same, fits1);
            self.b.ins().band(ok, m)
        });
        let p = self.b.ins().iadd(base, off);
        Some((c, m, p))
    }

    /// The general path (gathers, scatters, generic addresses, faults, memcheck): one helper
    /// call translates and performs the active lanes' accesses, faults recorded per lane.
    /// The addresses go to the helper as the two `i64x2` halves; `vals` is the group value to
    /// store (stores) or `None` (loads, returning the loaded group value of type `t`). Values
    /// travel packed, `size` bytes per lane (`helpers::group_access_helper`).
    #[allow(clippy::too_many_arguments)]
    fn group_helper(
        &mut self,
        grp: &Grp,
        i: ir::Inst,
        space: ir::Space,
        addr: (Value, Value),
        vals: Option<GVal>,
        t: ir::Type,
        size: u32,
        align: u32,
    ) -> GVal {
        let ss = match self.group_slot {
            Some(ss) => ss,
            None => {
                let ss = self
                    .b
                    .create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
                        cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                        64,
                        4,
                    ));
                self.group_slot = Some(ss);
                ss
            }
        };
        let io = self.b.ins().stack_addr(self.ptr, ss, 0);
        let fl = MemFlagsData::new().with_notrap();
        self.b.ins().store(fl, addr.0, io, 0);
        self.b.ins().store(fl, addr.1, io, 16);
        let lb = size as i32;
        match vals {
            Some(GVal::V1(v)) => {
                self.b.ins().store(fl, v, io, 32);
            }
            Some(GVal::V2(a, b)) => {
                self.b.ins().store(fl, a, io, 32);
                self.b.ins().store(fl, b, io, 48);
            }
            Some(GVal::S4(s)) => {
                for (j, &x) in s.iter().enumerate() {
                    self.b.ins().store(fl, x, io, 32 + lb * j as i32);
                }
            }
            None => {}
        }
        let info = super::helpers::access_info(space, size, align, vals.is_some());
        let infov = self.b.ins().iconst(types::I32, info as i64);
        let lane0 = self.b.ins().ishl_imm_s(grp.g, 2);
        let instv = self.b.ins().iconst(types::I32, i.0 as i64);
        let callee = self.fn_ptr(super::helpers::group_access_helper as *const () as usize);
        let state = self.state();
        self.b.ins().call_indirect(
            self.sig_group,
            callee,
            &[self.e.env, state, io, grp.bits, infov, lane0, instv],
        );
        if vals.is_some() {
            return GVal::S4([infov; 4]);
        }
        match vty(t).filter(|_| t != ir::Type::Pred) {
            Some(vt) if is_v2(t) => {
                let a = self.b.ins().load(vt, fl, io, 32);
                let b = self.b.ins().load(vt, fl, io, 48);
                GVal::V2(a, b)
            }
            Some(vt) => GVal::V1(self.b.ins().load(vt, fl, io, 32)),
            None => {
                let ct = ctype(t);
                GVal::S4([0, 1, 2, 3].map(|j| self.b.ins().load(ct, fl, io, 32 + lb * j)))
            }
        }
    }

    fn vec_load(
        &mut self,
        grp: &mut Grp,
        i: ir::Inst,
        space: ir::Space,
        align: u8,
        args: &[GVal],
        rt: ir::Type,
    ) -> Result<Option<GVal>, String> {
        let at = self.ty(self.f.inst(i).args[0]);
        let Some(addr) = self.addr_v2(args[0], at) else {
            return Ok(None);
        };
        let size = lane_bytes(rt);
        let vector = vty(rt).filter(|_| rt != ir::Type::Pred);
        let ct = ctype(rt);
        // `u8`/`u16` lanes travel packed in the low lanes of one vector (`Grp::packed`): a
        // fast path's one 32- or 64-bit load becomes the vector without being split.
        let packed = match rt {
            ir::Type::I8 => Some(types::I8X16),
            ir::Type::I16 => Some(types::I16X8),
            _ => None,
        };
        // The join takes the group value: one vector (32-bit types, packed narrow lanes),
        // two (64-bit), or four scalars.
        let join = self.b.create_block();
        let (nparams, jt) = match (vector, packed) {
            (Some(vt), _) if is_v2(rt) => (2, vt),
            (Some(vt), _) => (1, vt),
            (None, Some(pt)) => (1, pt),
            (None, None) => (4, ct),
        };
        for _ in 0..nparams {
            self.b.append_block_param(join, jt);
        }
        let to_args = |g: &mut Self, v: GVal| -> Vec<BlockArg> {
            match v {
                GVal::V1(x) => vec![BlockArg::Value(x)],
                GVal::V2(a, b) => vec![BlockArg::Value(a), BlockArg::Value(b)],
                GVal::S4(s) => match (vector, packed) {
                    (Some(_), _) => to_vec_args(g.pack_lanes(s, rt)),
                    (None, Some(pt)) => {
                        let mut v = g.b.ins().splat(pt, s[0]);
                        for (j, &x) in s.iter().enumerate().skip(1) {
                            v = g.b.ins().insertlane(v, x, j as u8);
                        }
                        vec![BlockArg::Value(v)]
                    }
                    (None, None) => s.iter().map(|&x| BlockArg::Value(x)).collect(),
                },
            }
        };
        fn to_vec_args(v: GVal) -> Vec<BlockArg> {
            match v {
                GVal::V1(x) => vec![BlockArg::Value(x)],
                GVal::V2(a, b) => vec![BlockArg::Value(a), BlockArg::Value(b)],
                GVal::S4(s) => s.iter().map(|&x| BlockArg::Value(x)).collect(),
            }
        }
        let fl = MemFlagsData::new().with_notrap();
        // In the fast version of a group body (`group_versions`: every group-level condition
        // holds), a group-affine address (`group.rs`): one vector load, or one scalar load
        // broadcast; `join` stays unused. Elsewhere the tiers below serve, as without the
        // group tier.
        if let (true, Some(vt)) = (self.group_fast_body, vector) {
            if let Some((_, p, stride)) = self.group_access(grp, i)? {
                if let Some(&(h, lane)) = self.uniform_runs.get(&i) {
                    // One 16-byte load for a run of group-uniform words (`plan_uniform_runs`),
                    // each word broadcast from its lane.
                    let got = self.uniform_vecs.get(&h).copied();
                    let w = match got {
                        Some(w) if h != i => Some(w),
                        _ if h == i => {
                            let w = self.b.ins().load(vt, fl, p, 0);
                            self.uniform_vecs.insert(i, w);
                            Some(w)
                        }
                        _ => None,
                    };
                    if let Some(w) = w {
                        return Ok(Some(GVal::V1(self.lane_splat32(w, lane, vt))));
                    }
                }
                return Ok(Some(if stride == 0 {
                    let x = self.b.ins().load(ct, fl, p, 0);
                    let v = self.b.ins().splat(vt, x);
                    if is_v2(rt) {
                        GVal::V2(v, v)
                    } else {
                        GVal::V1(v)
                    }
                } else if is_v2(rt) {
                    let a = self.b.ins().load(vt, fl, p, 0);
                    let b = self.b.ins().load(vt, fl, p, 16);
                    GVal::V2(a, b)
                } else {
                    GVal::V1(self.b.ins().load(vt, fl, p, 0))
                }));
            }
        }
        // In the full-warp version, a member of a struct read whole (`wide.rs`).
        if self.warp_fast_body {
            if let Some(g) = self.wide_load(grp, i)? {
                return Ok(Some(g));
            }
        }
        // 0. An address with a compile-time lane stride whose whole warp range passed the
        //    bounds check at the top of the block (`affine.rs`): no per-group tests.
        let narrow = matches!(rt, ir::Type::I8 | ir::Type::I16);
        let warp = self.fast.access.get(&i).copied();
        // Whether the access can fail its fast paths: not after a full-warp version's hoisted
        // check, which holds there (`Gen::branch_ok`).
        let mut fallback = true;
        // The word of the fast access where it is the join's only way in.
        let mut word = None;
        if let (Some(fa), Some(vt)) = (warp, vector) {
            let fast = self.b.create_block();
            let slow = self.branch_ok(fa.ok, fast);
            self.b.switch_to_block(fast);
            let g = if fa.stride == 0 {
                let x = self.b.ins().load(ct, fl, fa.p, 0);
                let v = self.b.ins().splat(vt, x);
                if is_v2(rt) {
                    GVal::V2(v, v)
                } else {
                    GVal::V1(v)
                }
            } else if fa.stride != size {
                // A member of lane-strided structs (32-bit): the four lanes' elements, one
                // load each.
                let p = self.group_elem(grp, fa.p, fa.stride);
                let x = self.b.ins().load(ct, fl, p, 0);
                let mut v = self.b.ins().splat(vt, x);
                for j in 1..4u8 {
                    let off = (u32::from(j) * fa.stride) as i32;
                    let x = self.b.ins().load(ct, fl, p, off);
                    v = self.b.ins().insertlane(v, x, j);
                }
                GVal::V1(v)
            } else {
                let p = self.group_elem(grp, fa.p, fa.stride);
                if is_v2(rt) {
                    let a = self.b.ins().load(vt, fl, p, 0);
                    let b = self.b.ins().load(vt, fl, p, 16);
                    GVal::V2(a, b)
                } else {
                    GVal::V1(self.b.ins().load(vt, fl, p, 0))
                }
            };
            let bargs = to_args(self, g);
            self.b.ins().jump(join, &bargs);
            match slow {
                Some(slow) => self.b.switch_to_block(slow),
                None => fallback = false,
            }
        } else if let (Some(fa), true) = (warp, narrow) {
            let fast = self.b.create_block();
            let slow = self.branch_ok(fa.ok, fast);
            self.b.switch_to_block(fast);
            let l = if fa.stride == 0 {
                let x = self.b.ins().load(ct, fl, fa.p, 0);
                GVal::V1(self.b.ins().splat(jt, x))
            } else {
                // Four consecutive bytes or halves: one 32- or 64-bit load.
                let p = self.group_elem(grp, fa.p, fa.stride);
                let (w, v) = self.narrow_word(rt, p);
                word = Some(w);
                v
            };
            let bargs = to_args(self, l);
            self.b.ins().jump(join, &bargs);
            match slow {
                Some(slow) => {
                    word = None;
                    self.b.switch_to_block(slow)
                }
                None => fallback = false,
            }
        }
        if fallback {
            // 1. Consecutive and in bounds: one vector load; one address for the whole group
            //    and in bounds: one scalar load, broadcast.
            let next = self.b.create_block();
            // An address with a compile-time lane stride (`affine.rs`) that failed its
            // hoisted check: only the test of its own shape (the helper takes the rest).
            let hint = self.fast.access.get(&i).map(|fa| fa.stride);
            let want = (
                (vector.is_some() || narrow) && hint != Some(0),
                !matches!(hint, Some(s) if s != 0),
            );
            if let Some((consec, same, p)) =
                self.contiguous(grp, i, space, addr, rt.bytes(), align as u32, want)
            {
                let test_same = self.b.create_block();
                let fast = self.b.create_block();
                let bcast = self.b.create_block();
                match consec {
                    Some(consec) => self.b.ins().brif(consec, fast, &[], test_same, &[]),
                    None => self.b.ins().jump(test_same, &[]),
                };
                self.b.switch_to_block(test_same);
                match same {
                    Some(same) => self.b.ins().brif(same, bcast, &[], next, &[]),
                    None => self.b.ins().jump(next, &[]),
                };
                // The block of a test not made is not built (no branch reaches it); a
                // consecutive test is made only for a vector or narrow load.
                if consec.is_some() {
                    self.b.switch_to_block(fast);
                    let g = match vector {
                        Some(vt) if is_v2(rt) => {
                            let a = self.b.ins().load(vt, fl, p, 0);
                            let b = self.b.ins().load(vt, fl, p, 16);
                            GVal::V2(a, b)
                        }
                        Some(vt) => GVal::V1(self.b.ins().load(vt, fl, p, 0)),
                        // Four consecutive bytes or halves: one 32- or 64-bit load.
                        None => self.narrow_word(rt, p).1,
                    };
                    let bargs = to_args(self, g);
                    self.b.ins().jump(join, &bargs);
                }
                if same.is_some() {
                    self.b.switch_to_block(bcast);
                    let x = self.b.ins().load(ct, fl, p, 0);
                    let g = match vector {
                        Some(vt) => {
                            let v = self.b.ins().splat(vt, x);
                            if is_v2(rt) {
                                GVal::V2(v, v)
                            } else {
                                GVal::V1(v)
                            }
                        }
                        None if packed.is_some() => GVal::V1(self.b.ins().splat(jt, x)),
                        None => GVal::S4([x; 4]),
                    };
                    let bargs = to_args(self, g);
                    self.b.ins().jump(join, &bargs);
                }
            } else {
                self.b.ins().jump(next, &[]);
            }
            // 2. Anything else (gathers, generic addresses, faults, memcheck): the runtime, lane
            //    by lane.
            self.b.set_cold_block(next);
            self.b.switch_to_block(next);
            let g = self.group_helper(grp, i, space, addr, None, rt, size, align as u32);
            let bargs = to_args(self, g);
            self.b.ins().jump(join, &bargs);
        }
        self.b.switch_to_block(join);
        let ps = self.b.block_params(join).to_vec();
        Ok(Some(match (vector, packed, ps.len()) {
            (Some(_), _, 1) => GVal::V1(ps[0]),
            (Some(_), _, 2) => GVal::V2(ps[0], ps[1]),
            (None, Some(_), 1) => {
                // The lanes as scalars too (left unused where only a widening reads them).
                if let Some(&res) = self.f.inst(i).results.first() {
                    grp.packed.insert(res, ps[0]);
                }
                if let Some(w) = word {
                    self.packed_words.insert(ps[0], w);
                }
                GVal::S4([0u8, 1, 2, 3].map(|j| self.b.ins().extractlane(ps[0], j)))
            }
            (None, None, 4) => GVal::S4([ps[0], ps[1], ps[2], ps[3]]),
            (v, p, n) => {
                return Err(format!(
                    "internal: {i}: a load's join of {n} values (vector {v:?}, packed {p:?})"
                ))
            }
        }))
    }

    /// Four consecutive `u8` (`rt` = `I8`) or `u16` lanes at host pointer `p`: one 32- or
    /// 64-bit load, the word, and the word as the packed vector of `Grp::packed`
    /// (little-endian: lane j is the word's bytes from `j` times the lane size).
    fn narrow_word(&mut self, rt: ir::Type, p: Value) -> (Value, GVal) {
        let fl = MemFlagsData::new().with_notrap();
        let (wt, vt, pt) = if rt == ir::Type::I8 {
            (types::I32, types::I32X4, types::I8X16)
        } else {
            (types::I64, types::I64X2, types::I16X8)
        };
        let w = self.b.ins().load(wt, fl, p, 0);
        let v = self.b.ins().scalar_to_vector(vt, w);
        (w, GVal::V1(self.vbitcast(v, pt)))
    }

    fn vec_store(
        &mut self,
        grp: &mut Grp,
        i: ir::Inst,
        space: ir::Space,
        align: u8,
        args: &[GVal],
        arg_tys: &[ir::Type],
    ) -> Result<Option<GVal>, String> {
        let vt_t = arg_tys[1];
        let Some(addr) = self.addr_v2(args[0], arg_tys[0]) else {
            return Ok(None);
        };
        let size = vt_t.bytes();
        let fl = MemFlagsData::new().with_notrap();
        let join = self.b.create_block();
        let next = self.b.create_block();
        let vector = matches!(args[1], GVal::V1(_) | GVal::V2(..)) && vt_t != ir::Type::Pred;
        // In the fast version of a group body (`group_versions`: every group-level condition
        // holds, all four lanes active), a group-affine address (`group.rs`): one vector store.
        if vector && self.group_fast_body {
            if let Some((_, p, _)) = self.group_access(grp, i)? {
                self.store_vector(fl, &args[1], p);
                return Ok(Some(GVal::S4([addr.0; 4])));
            }
        }
        // In the full-warp version, a member of a struct written whole (`wide.rs`).
        if self.warp_fast_body && self.wide_store(grp, i, args[1], vt_t)? {
            return Ok(Some(GVal::S4([addr.0; 4])));
        }
        // A hoisted check (`affine.rs`; all 32 lanes active): store without per-group tests.
        let warp = self.fast.access.get(&i).copied();
        // Whether the store can fail its fast path: not after a full-warp version's hoisted
        // check, which holds there (`Gen::branch_ok`).
        let mut fallback = true;
        if let (Some(fa), true) = (warp, vector) {
            let fast = self.b.create_block();
            let mut slow = None;
            // In a region's block after its lead, the plan does not know the block's lanes:
            // all four of the group's must be active (`region.rs`). In the full-warp loop,
            // where every hoisted check holds, a partial group stores lane by lane.
            if self.region_store_check && self.warp_fast_body {
                let full = self.b.ins().icmp_imm_s(IntCC::Equal, grp.bits, 0xf);
                let partial = self.b.create_block();
                self.b.ins().brif(full, fast, &[], partial, &[]);
                self.b.switch_to_block(partial);
                let p = self.group_elem(grp, fa.p, fa.stride);
                let lanes = self.lanes_of(args[1], vt_t);
                for (j, &x) in lanes.iter().enumerate() {
                    let bit = self.b.ins().band_imm_s(grp.bits, 1 << j);
                    let st = self.b.create_block();
                    let next = self.b.create_block();
                    self.b.ins().brif(bit, st, &[], next, &[]);
                    self.b.switch_to_block(st);
                    let off = (j as u32 * fa.stride) as i32;
                    self.b.ins().store(fl, x, p, off);
                    self.b.ins().jump(next, &[]);
                    self.b.switch_to_block(next);
                }
                self.b.ins().jump(join, &[]);
            } else {
                // In the full-warp version `branch_ok` does not read the condition (which
                // may be a deferred test's, made only on the other path: `ctacheck.rs`).
                let ok = if self.region_store_check && !self.warp_fast_body {
                    let full = self.b.ins().icmp_imm_s(IntCC::Equal, grp.bits, 0xf);
                    self.b.ins().band(fa.ok, full)
                } else {
                    fa.ok
                };
                slow = self.branch_ok(ok, fast);
            }
            self.b.switch_to_block(fast);
            let p = self.group_elem(grp, fa.p, fa.stride);
            match args[1] {
                // A member of lane-strided structs (32-bit): one store per lane.
                GVal::V1(x) if fa.stride != size => {
                    for j in 0..4u8 {
                        let e = self.b.ins().extractlane(x, j);
                        let off = (u32::from(j) * fa.stride) as i32;
                        self.b.ins().store(fl, e, p, off);
                    }
                }
                _ => self.store_vector(fl, &args[1], p),
            }
            self.b.ins().jump(join, &[]);
            match slow {
                Some(slow) => self.b.switch_to_block(slow),
                None => fallback = false,
            }
        }
        if fallback {
            // Only a vector store has a fast path here (no `same` test: four lanes storing to
            // one address are not one store).
            let tests = if vector {
                self.contiguous(grp, i, space, addr, size, align as u32, (true, false))
            } else {
                None
            };
            match tests {
                Some((Some(ok), _, p)) => {
                    let fast = self.b.create_block();
                    self.b.ins().brif(ok, fast, &[], next, &[]);
                    self.b.switch_to_block(fast);
                    self.store_vector(fl, &args[1], p);
                    self.b.ins().jump(join, &[]);
                }
                _ => {
                    self.b.ins().jump(next, &[]);
                }
            }
            self.b.set_cold_block(next);
            self.b.switch_to_block(next);
            // Only where every lane stores to one address (`out[blockIdx.x]`): a store many
            // lanes make there is a race, so one lane makes it, in code written for that.
            // (On every partial group's path, sgemm_tiled's register allocation moved: +1.4%.)
            let one_addr = self.uni.is_uniform(self.f.inst(i).args[0]);
            if vector && one_addr && !grp.full && !self.racecheck {
                self.single_lane_store(grp, i, space, addr, args[1], size, align, join);
            }
            let v = match args[1] {
                GVal::S4(s) if vty(vt_t).is_some() && vt_t != ir::Type::Pred => {
                    self.pack_lanes(s, vt_t)
                }
                v => v,
            };
            self.group_helper(grp, i, space, addr, Some(v), vt_t, size, align as u32);
            self.b.ins().jump(join, &[]);
        }
        self.b.switch_to_block(join);
        // A store has no result; report it handled.
        Ok(Some(GVal::S4([addr.0; 4])))
    }

    /// A group store by exactly one active lane to a warp-uniform address (the
    /// `if (tid == 0) out[b] = x` of a reduction; the caller tests the address), on the
    /// path where the four-lane store does not apply: that lane's address
    /// and value stored as one scalar access with the inline bounds, alignment and memcheck
    /// test of the scalar code (`Gen::access_ptr`, whose slow path translates, records a
    /// fault and reports it for that lane as the group helper would), then on to `join`.
    /// With more lanes active, nothing is stored and the code goes on (to the group helper).
    /// Not under racecheck, whose group helper records the stored value (`race_store`).
    #[allow(clippy::too_many_arguments)]
    fn single_lane_store(
        &mut self,
        grp: &Grp,
        i: ir::Inst,
        space: ir::Space,
        addr: (Value, Value),
        val: GVal,
        size: u32,
        align: u8,
        join: cranelift_codegen::ir::Block,
    ) {
        let one = self.b.create_block();
        let more = self.b.create_block();
        let below = self.b.ins().iadd_imm_s(grp.bits, -1);
        let rest = self.b.ins().band(grp.bits, below);
        self.b.ins().brif(rest, more, &[], one, &[]);
        self.b.switch_to_block(one);
        let j = self.b.ins().ctz(grp.bits);
        let odd = self.b.ins().band_imm_s(j, 1);
        let high = self.b.ins().band_imm_s(j, 2);
        // Lane j of four values: (j & 1) picks within a pair, (j & 2) the pair.
        let pick = |g: &mut Self, e: [Value; 4]| -> Value {
            let lo = g.b.ins().select(odd, e[1], e[0]);
            let hi = g.b.ins().select(odd, e[3], e[2]);
            g.b.ins().select(high, hi, lo)
        };
        let lanes2 = |g: &mut Self, x: Value, y: Value| -> [Value; 4] {
            [
                g.b.ins().extractlane(x, 0),
                g.b.ins().extractlane(x, 1),
                g.b.ins().extractlane(y, 0),
                g.b.ins().extractlane(y, 1),
            ]
        };
        let ae = lanes2(self, addr.0, addr.1);
        let a = pick(self, ae);
        let ve = match val {
            GVal::V1(x) => [0u8, 1, 2, 3].map(|k| self.b.ins().extractlane(x, k)),
            GVal::V2(x, y) => lanes2(self, x, y),
            GVal::S4(s) => s,
        };
        let x = pick(self, ve);
        let g4 = self.b.ins().ishl_imm_s(grp.g, 2);
        let lane = self.b.ins().iadd(g4, j);
        let p = self.access_ptr(lane, i, space, a, size, u32::from(align), true, 0);
        self.b
            .ins()
            .store(MemFlagsData::new().with_notrap(), x, p, 0);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(more);
    }

    /// `p + 4 g · stride`: the first element of the current group, for lane 0's element `p`.
    pub(super) fn group_elem(&mut self, grp: &Grp, p: Value, stride: u32) -> Value {
        let g64 = self.b.ins().uextend(self.ptr, grp.g);
        let off = self.b.ins().imul_imm_s(g64, 4 * stride as i64);
        self.b.ins().iadd(p, off)
    }

    /// Read a uniform value from another block (or this block's parameter) as a scalar: the
    /// value of the first active lane, from its slot in the warp state.
    ///
    /// # Errors
    /// An internal error naming the value when it has no slot, or when it is computed before
    /// the warp loop and not carried into it (`preloop.rs`, `Hoist::hides`): its slot is
    /// shared scratch that holds other values, so reading it would give another value's
    /// bits (a wrong answer without any fault) instead of failing the compilation.
    pub(super) fn uniform_get(&mut self, v: ir::Value, first: Value) -> Result<Value, String> {
        if self.hoist.hides(v, self.f) {
            let at = match self.f.values[v.index()].def {
                ir::ValueDef::Result(i, _) => format!(
                    " (PTX line {}: '{}')",
                    self.f.inst_locs[i.index()].line,
                    self.f.inst_ptx[i.index()]
                ),
                ir::ValueDef::Param(..) => String::new(),
            };
            return Err(format!(
                "internal: value {v}{at} is computed before the warp loop and not carried \
                 into it: its slot holds other values"
            ));
        }
        if let Some(&(_, x)) = self.carried.iter().find(|&&(c, _)| c == v) {
            // A parameter the block was entered with (`Gen::carry_params`).
            return Ok(x);
        }
        if let Some(x) = self.dloop_lane0(v) {
            return Ok(x);
        }
        let t = self.ty(v);
        let slot = self.layout.slot[v.index()];
        if slot == u32::MAX {
            return Err(format!("value {v} has no slot"));
        }
        let lb = lane_bytes(t);
        let f64v = self.b.ins().uextend(self.ptr, first);
        let off = self.b.ins().imul_imm_s(f64v, lb as i64);
        let state = self.state();
        let addr = self.b.ins().iadd(state, off);
        let x = self
            .b
            .ins()
            .load(ctype_lane(t), TRUSTED(), addr, slot as i32);
        Ok(if t == ir::Type::Pred {
            self.b.ins().ireduce(types::I8, x)
        } else {
            x
        })
    }

    /// A warp op; the collectives `collective.rs` inlines are emitted there; `warpsync` with a uniform membermask first checks inline whether any lane
    /// must wait or fault (`runtime::warp`'s rules: a lane outside the membermask, a
    /// non-exited lane of it not executing; with synccheck, a lane of it that exited). When
    /// none does — converged code — every lane's result is false without a helper call;
    /// otherwise the helper decides, as for any other warp op.
    fn gen_warp_op_fast(
        &mut self,
        i: ir::Inst,
        mask: Value,
        sc: &HashMap<ir::Value, Value>,
        first: Value,
        blk: ir::Block,
    ) -> Result<(), String> {
        if self.gen_collective_inline(i, mask, sc, first, blk)? {
            return Ok(());
        }
        let d = self.f.inst(i).clone();
        let Op::WarpSync { fence } = d.op else {
            return self.gen_warp_op(i, mask, sc);
        };
        if self.racecheck {
            // The helper tells racecheck which lanes synchronized.
            return self.gen_warp_op(i, mask, sc);
        }
        let (Some(&m), Some(&res)) = (d.args.first(), d.results.first()) else {
            return self.gen_warp_op(i, mask, sc);
        };
        let Some(x) = self.uniform_operand(m, blk, sc, first)? else {
            return self.gen_warp_op(i, mask, sc);
        };
        let s = self.state();
        let live = self.b.ins().load(types::I32, TRUSTED(), s, LIVE_OFF as i32);
        let exited = self
            .b
            .ins()
            .load(types::I32, TRUSTED(), s, EXITED_OFF as i32);
        let alive = self.b.ins().band_not(live, exited);
        let bad = self.b.ins().band_not(mask, x);
        let members = self.b.ins().band(x, alive);
        let need = self.b.ins().band_not(members, mask);
        // synccheck (`CtaEnv::synccheck_lanes` all ones): members that exited are the
        // runtime's to report.
        let check = self.b.ins().load(
            types::I32,
            TRUSTED(),
            self.e.env,
            std::mem::offset_of!(CtaEnv, synccheck_lanes) as i32,
        );
        let gone = self.b.ins().band(x, exited);
        let gone = self.b.ins().band(gone, check);
        let need = self.b.ins().bor(need, gone);
        let any = self.b.ins().bor(bad, need);
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(any, slow, &[], fast, &[]);
        self.b.switch_to_block(fast);
        if fence {
            self.b.ins().fence();
        }
        let no = self.b.ins().iconst(types::I8, 0);
        self.splat_store(res, no)?;
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(slow);
        self.gen_warp_op(i, mask, sc)?;
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        Ok(())
    }

    /// Store a scalar to all 32 lanes of `v`'s slot.
    pub(super) fn splat_store(&mut self, v: ir::Value, x: Value) -> Result<(), String> {
        let t = self.ty(v);
        let slot = self.layout.slot[v.index()];
        if slot == u32::MAX {
            return Err(format!("value {v} has no slot"));
        }
        let (vt, x) = match t {
            ir::Type::Pred => (types::I32X4, self.b.ins().uextend(types::I32, x)),
            ir::Type::I8 => (types::I8X16, x),
            ir::Type::I16 => (types::I16X8, x),
            _ => (vty(t).unwrap_or(types::I32X4), x),
        };
        let s = self.b.ins().splat(vt, x);
        let total = 32 * lane_bytes(t);
        let state = self.state();
        let mut o = 0;
        while o < total {
            self.b.ins().store(TRUSTED(), s, state, (slot + o) as i32);
            o += 16;
        }
        Ok(())
    }

    /// Write a block call's arguments that are scalar-section values (`sc`) to the target's
    /// parameter slots for the lanes `lanes` (a `u32` lane mask), as the per-group
    /// `write_args` would for those lanes (the other arguments are written per group,
    /// `Gen::group_terminator`). When `lanes` holds every lane that is live and not exited,
    /// all 32 lanes of each slot are written (`splat_store`): the others never run again, so
    /// nothing reads their slots; otherwise lane by lane, since a lane parked or pending
    /// elsewhere may hold its own argument in the slot already.
    pub(super) fn scalar_args_store(
        &mut self,
        call: &ir::BlockCall,
        lanes: Value,
        sc: &HashMap<ir::Value, Value>,
    ) -> Result<(), String> {
        if call.args.is_empty() {
            return Ok(());
        }
        let params = self.f.block(call.block).params.clone();
        let mut vals = Vec::with_capacity(call.args.len());
        for (&a, &p) in call.args.iter().zip(&params) {
            let Some(&x) = sc.get(&a) else {
                continue;
            };
            let slot = self.layout.slot[p.index()];
            if slot == u32::MAX {
                return Err(format!("value {p} has no slot"));
            }
            vals.push((p, x, slot));
        }
        if vals.is_empty() {
            return Ok(());
        }
        let s = self.state();
        let live = self.b.ins().load(types::I32, TRUSTED(), s, LIVE_OFF as i32);
        let exited = self
            .b
            .ins()
            .load(types::I32, TRUSTED(), s, EXITED_OFF as i32);
        let alive = self.b.ins().band_not(live, exited);
        let rest = self.b.ins().band_not(alive, lanes);
        let all = self.b.create_block();
        let head = self.b.create_block();
        let body = self.b.create_block();
        let join = self.b.create_block();
        let m = self.b.append_block_param(head, types::I32);
        self.b
            .ins()
            .brif(rest, head, &[BlockArg::Value(lanes)], all, &[]);

        self.b.switch_to_block(all);
        for &(p, x, _) in &vals {
            self.splat_store(p, x)?;
        }
        self.b.ins().jump(join, &[]);

        // Lane by lane: the lowest lane of `m`, then the rest.
        self.b.switch_to_block(head);
        self.b.ins().brif(m, body, &[], join, &[]);
        self.b.switch_to_block(body);
        let lane = self.b.ins().ctz(m);
        let lane = self.b.ins().uextend(self.ptr, lane);
        for &(p, x, slot) in &vals {
            let t = self.ty(p);
            let off = self.b.ins().imul_imm_s(lane, i64::from(lane_bytes(t)));
            let addr = self.b.ins().iadd(s, off);
            let x = if t == ir::Type::Pred {
                self.b.ins().uextend(types::I32, x)
            } else {
                x
            };
            self.b.ins().store(TRUSTED(), x, addr, slot as i32);
        }
        let less = self.b.ins().iadd_imm_s(m, -1);
        let next = self.b.ins().band(m, less);
        self.b.ins().jump(head, &[BlockArg::Value(next)]);
        self.b.switch_to_block(join);
        Ok(())
    }

    /// The values of `call`'s target's carried parameters (`Gen::carry_params`, in their
    /// order) where each is a scalar-section value in `sc` (so `Gen::scalar_args_store`
    /// has just written it for the jump's lanes) of the parameter's type; `None` when the
    /// target carries none or one is not such a value.
    fn carried_args(
        &self,
        call: &ir::BlockCall,
        sc: &HashMap<ir::Value, Value>,
    ) -> Option<Vec<Value>> {
        let carry = self.carry_params(self.layout.prio[call.block.index()]);
        if carry.is_empty() {
            return None;
        }
        let params = &self.f.block(call.block).params;
        carry
            .iter()
            .map(|q| {
                let k = params.iter().position(|p| p == q)?;
                let x = *sc.get(call.args.get(k)?)?;
                (self.b.func.dfg.value_type(x) == ctype(self.ty(*q))).then_some(x)
            })
            .collect()
    }

    /// The scalar section of block `blk` (`codegen::plan`): its scalar instructions, with
    /// results added to `sc`. Results other blocks read go to their slots: all 32 lanes at
    /// once, or with `defer`, appended there for the caller to store later.
    pub(super) fn scalar_section(
        &mut self,
        blk: ir::Block,
        first: Value,
        sc: &mut HashMap<ir::Value, Value>,
        mut defer: Option<&mut Vec<(ir::Value, Value)>>,
    ) -> Result<(), String> {
        // The first block's CTA-uniform values, computed before the warp loop (`preloop.rs`).
        if blk == self.hoist.block && !self.hoist.is_empty() {
            self.hoisted_section(first, sc, defer.as_deref_mut())?;
        }
        let insts = self.f.block(blk).insts.clone();
        for i in insts {
            if !self.scalar[i.index()] || self.hoist.contains(i) {
                continue;
            }
            let d = self.f.inst(i).clone();
            let mut argv = vec![];
            for &a in &d.args {
                let x = match sc.get(&a) {
                    Some(&x) => x,
                    None => self.uniform_get(a, first)?,
                };
                argv.push(x);
            }
            let r = self.scalar_op(i, &argv, first)?;
            if let (Some(r), Some(&res)) = (r, d.results.first()) {
                sc.insert(res, r);
                if self.scalar_slot[res.index()] {
                    match defer.as_deref_mut() {
                        Some(list) => list.push((res, r)),
                        None => self.splat_store(res, r)?,
                    }
                }
            }
        }
        Ok(())
    }

    /// Emit the code of block `blk` (entered with its pending mask).
    pub(super) fn gen_block_body(&mut self, blk: ir::Block, mask: Value) -> Result<(), String> {
        let first = self.b.ins().ctz(mask);
        let mut sc: HashMap<ir::Value, Value> = HashMap::new();
        self.uniform_mask = Some(mask);
        self.scalar_section(blk, first, &mut sc, None)?;
        self.uniform_mask = None;
        // A loop's divergent exit test whose lanes all take the back edge on this execution
        // (decided by scalar tests, `Gen::block_warp_cond`): a version of the body with the
        // branch decided when the code is generated (no per-group condition, no lane masks,
        // nothing written for the exit edge), beside the general one.
        if let Some((stay, dir)) = self.branch_stays(blk, &sc, first)? {
            let (decided, general) = (self.b.create_block(), self.b.create_block());
            self.b.ins().brif(stay, decided, &[], general, &[]);
            self.b.switch_to_block(decided);
            self.one_way = Some(dir);
            let r = self.decided_loop(blk, mask, first, &sc, dir, general);
            self.dloop = None;
            self.one_way = None;
            self.stay = Default::default();
            r?;
            self.b.switch_to_block(general);
        }
        self.gen_block_rest(blk, mask, first, &sc, false)
    }

    /// For block `blk` (scalar section `sc`, first active lane `first`) whose terminator is
    /// a divergent branch with one edge back to itself or an earlier block and the other
    /// forward (a loop's exit test): where [`Gen::block_warp_cond`] decides for a warp that
    /// every lane takes the back edge, emits that test and returns it (`i8` 0/1) with the
    /// back edge's direction (`true`: the then-edge); `None` (nothing emitted) otherwise, or
    /// for a big kernel's quick tier (one version per block).
    fn branch_stays(
        &mut self,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        first: Value,
    ) -> Result<Option<(Value, bool)>, String> {
        let Terminator::Branch { cond, then_, else_ } = &self.f.block(blk).term else {
            return Ok(None);
        };
        let cur = self.layout.prio[blk.index()];
        let (tp, ep) = (
            self.layout.prio[then_.block.index()],
            self.layout.prio[else_.block.index()],
        );
        let dir = match (tp <= cur, ep <= cur) {
            (true, false) => true,
            (false, true) => false,
            _ => return Ok(None),
        };
        if self.big || self.uni.uniform_at(*cond, blk) || sc.contains_key(cond) {
            return Ok(None);
        }
        self.block_warp_cond(*cond, blk, sc, first, dir)
            .map(|t| t.map(|t| (t, dir)))
    }

    /// For the version of block `blk`'s body in which every lane takes the back edge
    /// ([`Gen::one_way`]), emitted as one segment: when that edge goes to `blk` itself, the
    /// results it need not store or make canonical ([`StayVals`]); nothing otherwise.
    ///
    /// Every lane of the mask enters `blk` again, which defines its results anew before any
    /// of its lanes reaches another block, so another block's reads never see this
    /// execution's values: only the back edge's arguments and the block's own instructions
    /// read them (in registers, one segment). A result is blind when each of those readers
    /// is a NaN-blind operation of the block, or a parameter of the block that only such
    /// operations read (no block call, no other block: `Gen::body_params`).
    fn stay_values(&self, blk: ir::Block) -> StayVals {
        let bd = self.f.block(blk);
        let Terminator::Branch { cond, then_, else_ } = &bd.term else {
            return StayVals::default();
        };
        let back = match self.one_way {
            Some(true) => then_,
            Some(false) => else_,
            None => return StayVals::default(),
        };
        if back.block != blk {
            return StayVals::default();
        }
        // Whether every reader of `v` among the block's instructions is NaN-blind, and it
        // is not the branch condition.
        let blind_reads = |v: ir::Value| {
            *cond != v
                && bd.insts.iter().all(|&i| {
                    let d = self.f.inst(i);
                    !d.args.contains(&v) || (!self.scalar[i.index()] && nan_blind(&d.op))
                })
        };
        let mut stay = StayVals::default();
        for &i in &bd.insts {
            if self.scalar[i.index()] {
                continue;
            }
            for &r in &self.f.inst(i).results {
                if self.cross_block[r.index()] {
                    stay.unstored.insert(r);
                }
                let through = back
                    .args
                    .iter()
                    .zip(&bd.params)
                    .filter(|(a, _)| **a == r)
                    .all(|(_, &p)| {
                        self.body_params[p.index()] && !back.args.contains(&p) && blind_reads(p)
                    });
                if blind_reads(r) && through && self.ty(r) != ir::Type::Pred {
                    stay.blind.insert(r);
                }
            }
        }
        stay
    }

    /// [`Gen::gen_block_body`] after the scalar section `sc` (first active lane `first`):
    /// the group loops and the mask-level terminator; with `decided`, the version in which
    /// every lane of the mask takes the branch's edge [`Gen::one_way`], emitted as for a
    /// uniform condition with that value.
    pub(super) fn gen_block_rest(
        &mut self,
        blk: ir::Block,
        mask: Value,
        first: Value,
        sc: &HashMap<ir::Value, Value>,
        decided: bool,
    ) -> Result<(), String> {
        let mut sc = sc.clone();
        let bd = self.f.block(blk).clone();
        self.fast = self.plan_fast_mem(blk, &bd.insts, &sc, first, Some(mask))?;
        self.gfast = self.plan_group_mem(blk, &bd.insts, &sc, first)?;
        // Segments between warp operations and, in lockstep order, between memory accesses
        // whose order across lanes matters (`analysis::segment`; the escape analysis in
        // `codegen::plan` splits the same way).
        let mut runs: Vec<(Vec<ir::Inst>, Option<ir::Inst>)> = vec![(vec![], None)];
        let mut split = crate::analysis::segment::SegmentSplit::new(self.order);
        for &i in &bd.insts {
            if self.scalar[i.index()] {
                continue;
            }
            if self.f.inst(i).op.effect() == Effect::Warp {
                if let Some(last) = runs.last_mut() {
                    last.1 = Some(i);
                }
                runs.push((vec![], None));
                split.reset();
            } else {
                if split.before(&self.f.inst(i).op) {
                    runs.push((vec![], None));
                }
                if let Some(last) = runs.last_mut() {
                    last.0.push(i);
                }
            }
        }
        // Pure group operations that consume a loaded value while more loads follow in
        // their segment stay in place (`pin`), so the loaded values die early: one such
        // operation once [`PIN_LOADS`] loads have been issued since the last one kept in
        // place (the operations between are computed at the next pin, their loaded operands
        // live until then).
        self.pinned.clear();
        // Per segment, its group-uniform load runs (`plan_uniform_runs`), planned once here
        // for the pins and handed to the segment's fast version (`group_versions`).
        let mut uniform_plans: Vec<UniformRuns> = Vec::with_capacity(runs.len());
        for (insts, _) in &runs {
            let is_load = |i: ir::Inst| matches!(self.f.inst(i).op, Op::Load { .. });
            let Some(last) = insts.iter().rposition(|&i| is_load(i)) else {
                // No load: no run either.
                uniform_plans.push(UniformRuns::new());
                continue;
            };
            let mut loaded: std::collections::HashSet<ir::Value> = Default::default();
            let mut since = 0;
            // A load served by an earlier one's 16-byte value (`plan_uniform_runs`, in the
            // fast version) issues none: its lane broadcast is computed where it is used.
            let runs_of = self.plan_uniform_runs(insts);
            for &i in insts.iter().take(last) {
                let d = self.f.inst(i);
                if is_load(i) {
                    loaded.extend(d.results.iter().copied());
                    if runs_of.get(&i).is_none_or(|&(h, _)| h == i) {
                        since += 1;
                    }
                } else if d.op.effect() == Effect::Pure
                    && d.results.len() == 1
                    && d.args.iter().any(|a| loaded.contains(a))
                    && since >= PIN_LOADS
                {
                    self.pinned.insert(i);
                    since = 0;
                }
            }
            uniform_plans.push(runs_of);
        }
        // A branch is decided once when its condition is uniform and available as a scalar:
        // from the scalar section, or from a slot written elsewhere.
        let uniform_branch = decided
            || match &bd.term {
                Terminator::Branch { cond, .. } => {
                    self.uni.uniform_at(*cond, blk)
                        && (sc.contains_key(cond) || self.def_block(*cond) != Some(blk))
                }
                _ => false,
            };
        let term_args = bd.term.targets().iter().any(|c| !c.args.is_empty());
        // Arguments that are scalar-section values, on an edge every lane of the mask takes
        // together (a jump, a barrier, a uniform branch), are written once for those lanes
        // (`Gen::scalar_args_store`) instead of per group; the edge's other arguments, if
        // any, per group (`Gen::group_terminator`). A loop's back edge on a uniform
        // condition writes its counters and uniform pointers that way.
        let together_args =
            term_args && (uniform_branch || !matches!(bd.term, Terminator::Branch { .. }));
        // Arguments that are uniform values of other blocks (a block that only passes on a
        // value computed before it) count as such values too when every argument of the
        // edges is one or the other: each is read once from its slot, at the block's first
        // lane, as a scalar section reads it (`Gen::uniform_get`), before any slot is
        // written.
        let passed = |g: &Self, a: ir::Value| {
            g.def_block(a) != Some(blk)
                && g.uni.uniform_at(a, blk)
                && g.layout.slot[a.index()] != u32::MAX
                && !g.hoist.hides(a, g.f)
        };
        let mask_args = together_args
            && bd.term.targets().iter().all(|c| {
                c.args
                    .iter()
                    .all(|&a| sc.contains_key(&a) || passed(self, a))
            });
        let term_in_loop = term_args && !mask_args
            || matches!(bd.term, Terminator::Branch { .. }) && !uniform_branch;
        // Uniform branch: decide once.
        let ucond = match (&bd.term, uniform_branch) {
            (Terminator::Branch { cond, .. }, true) => Some(match (self.one_way, sc.get(cond)) {
                (Some(d), _) => self.iconst(types::I8, i64::from(d)),
                (None, Some(&c)) => c,
                (None, None) => self.uniform_get(*cond, first)?,
            }),
            _ => None,
        };
        let nruns = runs.len();
        if decided && nruns == 1 {
            self.stay = self.stay_values(blk);
        }
        let mut cbits = None;
        for (k, ((insts, warp_op), mut uniform_plan)) in
            runs.into_iter().zip(uniform_plans).enumerate()
        {
            let with_term = k + 1 == nruns && term_in_loop;
            if !insts.is_empty() || with_term {
                let term = bd.term.clone();
                let term = with_term.then_some((&term, ucond));
                // Whether the loop writes values for other blocks with its lane mask blended
                // in, which a full-warp version writes whole: the results its instructions
                // define for later blocks, and the terminator's arguments it writes per
                // group on an edge all of the block's lanes take together (a divergent
                // branch's arguments keep the blend with its condition in either version).
                let blends = insts.iter().any(|&i| {
                    self.f
                        .inst(i)
                        .results
                        .iter()
                        .any(|r| self.escapes[r.index()] && self.cross_block[r.index()])
                }) || with_term
                    && (ucond.is_some() || !matches!(bd.term, Terminator::Branch { .. }))
                    && bd.term.targets().iter().any(|c| {
                        c.args
                            .iter()
                            .any(|a| !(together_args && sc.contains_key(a)))
                    });
                let mut body = |g: &mut Self, grp: &mut Grp, acc| {
                    g.group_versions(grp, &sc, &insts, &mut uniform_plan, term, acc)
                };
                let acc = self.full_warp_versions(blk, mask, &insts, blends, &mut body)?;
                if with_term {
                    cbits = Some(acc);
                }
            }
            if let Some(w) = warp_op {
                self.gen_warp_op_fast(w, mask, &sc, first, blk)?;
            }
        }
        if mask_args {
            for c in bd.term.targets() {
                for &a in &c.args {
                    if let std::collections::hash_map::Entry::Vacant(e) = sc.entry(a) {
                        e.insert(self.uniform_get(a, first)?);
                    }
                }
            }
        }
        // Mask-level work.
        match &bd.term {
            Terminator::Jump(c) => {
                let p = self.layout.prio[c.block.index()];
                if together_args {
                    self.scalar_args_store(c, mask, &sc)?;
                    if let Some(vals) = self.carried_args(c, &sc) {
                        self.goto_prio_args(p, mask, &vals);
                        return Ok(());
                    }
                }
                self.goto_prio(p, mask);
                return Ok(());
            }
            Terminator::Branch { then_, else_, .. } => {
                let tp = self.layout.prio[then_.block.index()];
                let ep = self.layout.prio[else_.block.index()];
                if let Some(dir) = self.one_way {
                    // Every lane of the mask takes the back edge `dir`: its scalar arguments
                    // for the whole mask, then straight into its block where no block up
                    // to it is active (`Gen::goto_prio_first`: the exit's bit may be left
                    // set by an earlier split, with or without lanes; the dispatcher would
                    // still pick the back edge's block first).
                    let (call, p) = if dir { (then_, tp) } else { (else_, ep) };
                    if together_args {
                        self.scalar_args_store(call, mask, &sc)?;
                    }
                    if let Some(head) = self.dloop.as_ref().map(|l| l.head) {
                        // The decided loop's next trip (`Gen::decided_loop`), unless the
                        // launch stops or a block up to this one is active: then the
                        // carried values go to their slots and the back edge goes the
                        // dispatcher's way, as from the decided version.
                        self.dloop_step();
                        let busy = self.busy_upto(p);
                        let leave = self.b.create_block();
                        self.b.ins().brif(busy, leave, &[], head, &[]);
                        self.b.switch_to_block(leave);
                        self.dloop_store();
                        self.goto_prio_first(p, mask, false);
                        return Ok(());
                    }
                    self.goto_prio_first(p, mask, false);
                    return Ok(());
                }
                if let Some(c) = ucond {
                    // Decided once: every lane of the mask takes one edge, so each direction
                    // writes that edge's scalar arguments for the whole mask and goes on to
                    // its target with it (no lane mask per edge, nothing written for the
                    // edge no lane takes).
                    let (tb, eb) = (self.b.create_block(), self.b.create_block());
                    self.b.ins().brif(c, tb, &[], eb, &[]);
                    for (cb, call, p) in [(tb, then_, tp), (eb, else_, ep)] {
                        self.b.switch_to_block(cb);
                        let vals = if together_args {
                            self.scalar_args_store(call, mask, &sc)?;
                            self.carried_args(call, &sc)
                        } else {
                            None
                        };
                        match vals {
                            Some(vals) => self.goto_prio_args(p, mask, &vals),
                            None => self.goto_prio(p, mask),
                        }
                    }
                    return Ok(());
                }
                let tmask = match cbits {
                    Some(bits) => self.b.ins().band(mask, bits),
                    None => return Err("branch condition not evaluated".into()),
                };
                let emask = self.b.ins().band_not(mask, tmask);
                if together_args {
                    self.scalar_args_store(then_, tmask, &sc)?;
                    self.scalar_args_store(else_, emask, &sc)?;
                }
                self.state_or32(self.layout.pending(tp), tmask);
                self.state_or32(self.layout.pending(ep), emask);
                // A loop's back edge keeps both bits: its exit is entered once, when the
                // loop is done, so testing the masks on every iteration would cost more.
                let cur = self.layout.prio[blk.index()];
                if tp > cur && ep > cur {
                    self.set_active_when(&[(tp, tmask), (ep, emask)]);
                } else {
                    self.set_active(tp);
                    self.set_active(ep);
                }
            }
            Terminator::Barrier { next } => {
                if together_args {
                    self.scalar_args_store(next, mask, &sc)?;
                }
                let p = self.layout.prio[next.block.index()];
                self.state_or32(self.layout.parked(p), mask);
            }
            Terminator::Exit => self.state_or32(EXITED_OFF, mask),
            Terminator::Trap => {
                let fi = crate::runtime::env::terminator_fault_index(self.f.insts.len(), blk);
                let callee = self.fn_ptr(super::helpers::trap_helper as *const () as usize);
                let fiv = self.b.ins().iconst(types::I32, fi as i64);
                self.b
                    .ins()
                    .call_indirect(self.sig_trap, callee, &[self.e.env, mask, fiv]);
                self.state_or32(EXITED_OFF, mask);
            }
        }
        self.b.ins().jump(self.dispatch, &[]);
        Ok(())
    }

    /// The body of a group loop for one group: the segment's instructions and, with `term`,
    /// the per-group part of the terminator. Returns the new accumulator.
    ///
    /// When the segment has group-affine accesses (`group.rs`), the body comes in two
    /// versions: where all of their conditions hold for this group (tested once), one without
    /// any per-access test or fallback, so no call and no cold path breaks its straight-line
    /// code; otherwise the code as without the group tier (the warp-wide plans, the per-group
    /// tests and the runtime helper).
    fn group_versions(
        &mut self,
        grp: &mut Grp,
        sc: &HashMap<ir::Value, Value>,
        insts: &[ir::Inst],
        uniform_plan: &mut UniformRuns,
        term: Option<(&Terminator, Option<Value>)>,
        acc: Value,
    ) -> Result<Value, String> {
        let body = |g: &mut Self, grp: &mut Grp| -> Result<Value, String> {
            for &i in insts {
                g.ginst(grp, sc, i)?;
            }
            match term {
                Some((t, ucond)) => g.group_terminator(grp, sc, t, ucond, acc),
                None => Ok(acc),
            }
        };
        let Some(has_store) = self.group_planned(insts) else {
            return body(self, grp);
        };
        if self.big {
            return body(self, grp);
        }
        // Values made after this point dominate neither the slow version nor the merge.
        let before = (grp.vals.clone(), grp.gcache.clone());
        let slow = self.b.create_block();
        // Whether the body writes slots with the group's lane mask blended in: the results
        // it defines for later blocks, and the terminator's arguments. Where it does, the
        // fast version is also for full groups only, and writes them whole.
        let blends = term.is_some_and(|(t, _)| t.targets().iter().any(|c| !c.args.is_empty()))
            || insts.iter().any(|&i| {
                self.f
                    .inst(i)
                    .results
                    .iter()
                    .any(|r| self.escapes[r.index()] && self.cross_block[r.index()])
            });
        let full_only = !grp.full && (has_store || blends);
        let mut full = None;
        // Where the fast version runs, lane 4g is active: the loop runs whole warps, or its
        // conditions include all four lanes active (tested first, or below).
        grp.gcache
            .set_lead_active(grp.full || has_store || full_only);
        if has_store && !grp.full {
            // A group-level store needs all four lanes active: test that first, before any
            // replay (blocks entered by a few lanes at a time go straight to the slow version).
            let go = self.b.create_block();
            let f = self.b.ins().icmp_imm_s(IntCC::Equal, grp.bits, 0xf);
            self.b.ins().brif(f, go, &[], slow, &[]);
            self.b.switch_to_block(go);
            // Known from here on: the conditions below need not test it again.
            grp.gcache.set_full(self.b.ins().iconst(types::I8, 1));
        } else if full_only {
            full = Some(self.b.ins().icmp_imm_s(IntCC::Equal, grp.bits, 0xf));
        }
        // Every condition on the body's main line (replays cached for the fast version).
        let mut ok = self
            .group_all_ok(grp, insts)?
            .ok_or("internal: a planned segment without conditions")?;
        if let Some(f) = full {
            ok = self.b.ins().band(ok, f);
        }
        let fast = self.b.create_block();
        let merge = self.b.create_block();
        self.b.append_block_param(merge, types::I32);
        self.b.ins().brif(ok, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        self.group_fast_body = true;
        // The segment's plan (`gen_block_body`), lent to the fast version and given back.
        std::mem::swap(&mut self.uniform_runs, uniform_plan);
        // With all four lanes tested active, the fast version's lane masks are constants and
        // its writes to slots need no blend (as in a full-warp loop).
        let saved = (grp.m32, grp.m64, grp.bits, grp.full);
        if full_only {
            grp.m32 = self.vconst_i32([-1; 4]);
            let m64 = self.vconst_bytes(types::I64X2, vec![0xff; 16]);
            grp.m64 = [m64, m64];
            grp.bits = self.b.ins().iconst(types::I32, 0xf);
            grp.full = true;
        }
        let a = body(self, grp);
        (grp.m32, grp.m64, grp.bits, grp.full) = saved;
        self.group_fast_body = false;
        std::mem::swap(&mut self.uniform_runs, uniform_plan);
        self.uniform_runs.clear();
        self.uniform_vecs.clear();
        self.b.ins().jump(merge, &[BlockArg::Value(a?)]);
        // The slow version is the code as without the group tier: it uses nothing made for
        // the plan. In the first loop of a split group loop, the second loop runs it, from
        // this group on.
        (grp.vals, grp.gcache) = before.clone();
        self.b.switch_to_block(slow);
        if let Some((bail, ss)) = self.group_bail {
            self.b.ins().stack_store(self.ptr, grp.g, ss, 0);
            self.b.ins().stack_store(self.ptr, acc, ss, 4);
            self.b.ins().jump(bail, &[]);
        } else {
            self.group_slow_body = true;
            let a = body(self, grp);
            self.group_slow_body = false;
            self.b.ins().jump(merge, &[BlockArg::Value(a?)]);
        }
        (grp.vals, grp.gcache) = before;
        self.b.switch_to_block(merge);
        Ok(self.b.block_params(merge)[0])
    }

    /// The per-group part of a terminator: evaluate a divergent condition (accumulating its
    /// lane bits into `acc`) and write block-call arguments into the targets' parameter slots
    /// for the lanes going there.
    fn group_terminator(
        &mut self,
        grp: &mut Grp,
        sc: &HashMap<ir::Value, Value>,
        term: &Terminator,
        ucond: Option<Value>,
        acc: Value,
    ) -> Result<Value, String> {
        // The scalar-section arguments of an edge that all of the block's lanes take
        // together (a jump, a barrier, a uniform branch) are written once, for the block's
        // lanes, after its group loops (`Gen::gen_block_body`).
        match term {
            Terminator::Jump(c) | Terminator::Barrier { next: c } => {
                self.write_args_some(grp, sc, c, None, true)?;
                Ok(acc)
            }
            Terminator::Branch { cond, then_, else_ } => {
                if let (Some(dir), Some(_)) = (self.one_way, ucond) {
                    // Every lane takes edge `dir` (`Gen::gen_block_body`): its arguments
                    // only, written whole in a full group, for the group's lanes otherwise.
                    let call = if dir { then_ } else { else_ };
                    let vals = self.args_vals(grp, sc, call, true)?;
                    let vals = self.dloop_def(vals)?;
                    self.store_args(grp, vals, None)?;
                    return Ok(acc);
                }
                if let (Some(u), true) = (ucond, grp.full) {
                    // Decided once for the warp, in a full-warp loop: every lane of the group
                    // goes the same way, so the arguments of the taken edge are written whole
                    // under a branch, not blended with a condition mask. Both edges'
                    // arguments are read first, on the main line. (In the general loop the
                    // blend with the group's lane mask stays, and the condition joins it.)
                    let tv = self.args_vals(grp, sc, then_, true)?;
                    let ev = self.args_vals(grp, sc, else_, true)?;
                    if tv.is_empty() && ev.is_empty() {
                        return Ok(acc);
                    }
                    let (tb, eb, join) = (
                        self.b.create_block(),
                        self.b.create_block(),
                        self.b.create_block(),
                    );
                    self.b.ins().brif(u, tb, &[], eb, &[]);
                    for (blk, vals) in [(tb, tv), (eb, ev)] {
                        self.b.switch_to_block(blk);
                        self.store_args(grp, vals, None)?;
                        self.b.ins().jump(join, &[]);
                    }
                    self.b.switch_to_block(join);
                    return Ok(acc);
                }
                let (tm, acc) = match ucond {
                    Some(u) => {
                        let w = self.b.ins().uextend(types::I32, u);
                        let m = self.b.ins().ineg(w);
                        (self.b.ins().splat(types::I32X4, m), acc)
                    }
                    None => {
                        let GVal::V1(m) = self.gget(grp, sc, *cond)? else {
                            return Err("branch condition representation".into());
                        };
                        let hb = self.b.ins().vhigh_bits(types::I32, m);
                        let sh = self.b.ins().ishl_imm_s(grp.g, 2);
                        let placed = self.b.ins().ishl(hb, sh);
                        (m, self.b.ins().bor(acc, placed))
                    }
                };
                let skip = ucond.is_some();
                // A parameter read only by its own block's instructions is dead for the
                // lanes that take the other edge (they reach it again only through an edge
                // into its block, which writes it): it is written for all of the group's
                // lanes, without the condition (no blend at all in a full group). Not when
                // both edges go to one block, whose parameters each edge writes, nor for a
                // condition decided for the warp (all lanes go one way; the few partial
                // groups there gained nothing and moved sgemm_naive's register allocation).
                let own = then_.block != else_.block && ucond.is_none();
                if !then_.args.is_empty() {
                    let vals = self.args_vals(grp, sc, then_, skip)?;
                    self.store_args_own(grp, vals, Some((tm, false)), own)?;
                }
                if !else_.args.is_empty() {
                    let vals = self.args_vals(grp, sc, else_, skip)?;
                    self.store_args_own(grp, vals, Some((tm, true)), own)?;
                }
                Ok(acc)
            }
            Terminator::Exit | Terminator::Trap => Ok(acc),
        }
    }

    /// Copy a block call's arguments to the target's parameter slots for the group's active
    /// lanes (restricted to lanes where `cond` is true, or false with `negate`). All arguments
    /// are read before any parameter is written.
    pub(super) fn write_args(
        &mut self,
        grp: &mut Grp,
        sc: &HashMap<ir::Value, Value>,
        call: &ir::BlockCall,
        cond: Option<(Value, bool)>,
    ) -> Result<(), String> {
        self.write_args_some(grp, sc, call, cond, false)
    }

    /// [`Gen::write_args`], without the arguments that are scalar-section values (`sc`)
    /// when `skip_scalar` is set: the caller writes those once for the block's lanes
    /// (`Gen::scalar_args_store`).
    fn write_args_some(
        &mut self,
        grp: &mut Grp,
        sc: &HashMap<ir::Value, Value>,
        call: &ir::BlockCall,
        cond: Option<(Value, bool)>,
        skip_scalar: bool,
    ) -> Result<(), String> {
        let vals = self.args_vals(grp, sc, call, skip_scalar)?;
        self.store_args(grp, vals, cond)
    }

    /// The target's parameters of block call `call` with the group values of their
    /// arguments (read now), without those whose arguments are scalar-section values (`sc`)
    /// when `skip_scalar` is set.
    fn args_vals(
        &mut self,
        grp: &mut Grp,
        sc: &HashMap<ir::Value, Value>,
        call: &ir::BlockCall,
        skip_scalar: bool,
    ) -> Result<Vec<(ir::Value, GVal)>, String> {
        let (args, params): (Vec<ir::Value>, Vec<ir::Value>) = call
            .args
            .iter()
            .zip(&self.f.block(call.block).params)
            .filter(|(a, _)| !(skip_scalar && sc.contains_key(*a)))
            .map(|(&a, &p)| (a, p))
            .unzip();
        let vals = args
            .iter()
            .map(|&a| self.gget(grp, sc, a))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(params.into_iter().zip(vals).collect())
    }

    /// Write `vals` (parameters and their group values, from [`Gen::args_vals`]) into the
    /// parameters' slots for the group's active lanes, restricted to lanes where `cond` is
    /// true (or false with `negate`).
    pub(super) fn store_args(
        &mut self,
        grp: &mut Grp,
        vals: Vec<(ir::Value, GVal)>,
        cond: Option<(Value, bool)>,
    ) -> Result<(), String> {
        self.store_args_own(grp, vals, cond, false)
    }

    /// [`Gen::store_args`]; with `own`, the parameters that only their own block's
    /// instructions read ([`Gen::body_params`]) are written for all of the group's active
    /// lanes, whatever `cond` says: the caller knows that the lanes outside `cond` go to
    /// another block than the parameters' and that no argument read after this reads them.
    fn store_args_own(
        &mut self,
        grp: &mut Grp,
        vals: Vec<(ir::Value, GVal)>,
        cond: Option<(Value, bool)>,
        own: bool,
    ) -> Result<(), String> {
        let (whole, vals): (Vec<_>, Vec<_>) = vals
            .into_iter()
            .partition(|(p, _)| own && cond.is_some() && self.body_params[p.index()]);
        for (p, x) in whole {
            self.store_arg(grp, p, x)?;
        }
        if vals.is_empty() {
            return Ok(());
        }
        let saved = (grp.m32, grp.m64, grp.bits, grp.full);
        if let Some((c, negate)) = cond {
            grp.full = false;
            let m = if negate {
                self.b.ins().band_not(grp.m32, c)
            } else {
                self.b.ins().band(grp.m32, c)
            };
            grp.m32 = m;
            grp.m64 = [self.b.ins().swiden_low(m), self.b.ins().swiden_high(m)];
            let hb = self.b.ins().vhigh_bits(types::I32, m);
            grp.bits = hb;
        }
        for (p, x) in vals {
            self.store_arg(grp, p, x)?;
        }
        (grp.m32, grp.m64, grp.bits, grp.full) = saved;
        Ok(())
    }

    /// Write parameter `p`'s group value `x` to its slot for the lanes of `grp`'s mask.
    fn store_arg(&mut self, grp: &mut Grp, p: ir::Value, x: GVal) -> Result<(), String> {
        let t = self.ty(p);
        let x = match x {
            GVal::S4(s) if vty(t).is_some() => self.pack_lanes(s, t),
            x => x,
        };
        self.gstore(grp, p, x, true)
    }
}

/// The CLIF type of one lane of a slot.
fn ctype_lane(t: ir::Type) -> CType {
    match t {
        ir::Type::Pred => types::I32,
        t => ctype(t),
    }
}

fn zero_of(g: &mut Gen<'_, '_>, ct: CType) -> Value {
    if ct == types::F32 {
        g.b.ins().f32const(0.0)
    } else if ct == types::F64 {
        g.b.ins().f64const(0.0)
    } else {
        g.b.ins().iconst(ct, 0)
    }
}

/// The Cranelift condition of an integer comparison.
pub(super) fn int_cc(cc: ir::ICmp, sign: ir::Sign) -> IntCC {
    use ir::ICmp::*;
    use ir::Sign::*;
    match (cc, sign) {
        (Eq, _) => IntCC::Equal,
        (Ne, _) => IntCC::NotEqual,
        (Lt, Signed) => IntCC::SignedLessThan,
        (Le, Signed) => IntCC::SignedLessThanOrEqual,
        (Gt, Signed) => IntCC::SignedGreaterThan,
        (Ge, Signed) => IntCC::SignedGreaterThanOrEqual,
        (Lt, Unsigned) => IntCC::UnsignedLessThan,
        (Le, Unsigned) => IntCC::UnsignedLessThanOrEqual,
        (Gt, Unsigned) => IntCC::UnsignedGreaterThan,
        (Ge, Unsigned) => IntCC::UnsignedGreaterThanOrEqual,
    }
}

impl Gen<'_, '_> {
    /// A lane-wise float compare of two vectors. x86-64 has no single SSE compare for
    /// "ordered and not equal" (`one`) or "unordered or equal" (`ueq`), and Cranelift does not
    /// lower them for vectors, so they are built from two compares.
    fn vector_fcmp(&mut self, cc: ir::FCmp, a: Value, b: Value) -> Value {
        match cc {
            ir::FCmp::Ne => {
                let ord = self.b.ins().fcmp(FloatCC::Ordered, a, b);
                let ne = self.b.ins().fcmp(FloatCC::NotEqual, a, b);
                self.b.ins().band(ord, ne)
            }
            ir::FCmp::Equ => {
                let uno = self.b.ins().fcmp(FloatCC::Unordered, a, b);
                let eq = self.b.ins().fcmp(FloatCC::Equal, a, b);
                self.b.ins().bor(uno, eq)
            }
            _ => self.b.ins().fcmp(float_cc(cc), a, b),
        }
    }
}

/// The Cranelift condition of a float comparison (ordered forms false on NaN).
pub(super) fn float_cc(cc: ir::FCmp) -> FloatCC {
    use ir::FCmp::*;
    match cc {
        Eq => FloatCC::Equal,
        Ne => FloatCC::OrderedNotEqual,
        Lt => FloatCC::LessThan,
        Le => FloatCC::LessThanOrEqual,
        Gt => FloatCC::GreaterThan,
        Ge => FloatCC::GreaterThanOrEqual,
        Equ => FloatCC::UnorderedOrEqual,
        Neu => FloatCC::NotEqual,
        Ltu => FloatCC::UnorderedOrLessThan,
        Leu => FloatCC::UnorderedOrLessThanOrEqual,
        Gtu => FloatCC::UnorderedOrGreaterThan,
        Geu => FloatCC::UnorderedOrGreaterThanOrEqual,
        Num => FloatCC::Ordered,
        Nan => FloatCC::Unordered,
    }
}

impl GVal {
    /// The single vector of a V1 value (V2/S4 callers check types first; this returns the
    /// first component rather than panicking).
    fn v1_or_panic_free(self) -> Value {
        match self {
            GVal::V1(x) | GVal::V2(x, _) => x,
            GVal::S4(s) => s[0],
        }
    }
}
