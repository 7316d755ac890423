//! Global integer reductions whose result is not used, combined in the worker thread's
//! pending table (`runtime::redcombine`) instead of one host atomic each.
//!
//! A kernel qualifies ([`eligible`]) when it has such a reduction (`red.global` or a dead
//! `atom.global` of add, and, or, xor, min, max on 32/64-bit integers, no memory-order
//! qualifier, no `.sys` scope: a `.relaxed` atomic, PTX ISA §8) and nothing that reaches
//! memory outside the paths below (no texture, surface, tensor, matrix, bulk or mbarrier
//! operation, no CTA barrier, no call stack). A kernel that does not qualify gets the code
//! it had before. In one that does:
//! - the group fast path of such a reduction (every active lane in the window, aligned,
//!   memcheck off: the same test as before, so a bad address faults at the instruction as
//!   before) adds each lane's operand into the table ([`Gen::combine_lane`]: a direct-mapped
//!   slot, key compare and the operation inline, `runtime::redcombine::red_miss` on a miss;
//!   a group whose lanes all lie in the operation's dense window, [`Gen::in_dense_window`],
//!   adds without the key compares);
//! - before a fence, a strong access (`inst_sync`), a 16-byte atomic access and any atomic
//!   that is not combined here (its lane-by-lane path included), the table is flushed when
//!   it holds anything ([`Gen::flush_if_pending`]);
//! - the inline global and const fast paths of other loads and stores also test that their
//!   bytes miss the pending range `[lo, hi)` ([`Gen::pending_clear`]); when they may not,
//!   they take the runtime's path, whose translation flushes first
//!   (`runtime::env::translate`). A check made once for a warp's or a CTA's accesses
//!   (`affine.rs`'s `window_ok`, for the affine and CTA plans) tests its whole range
//!   against the pending range and adds it to the table's checked hull, inside which a
//!   reduction is performed at once (`red_miss`), never made pending: a reduction between
//!   the check and the accesses cannot make it stale. The group-level plans (`group.rs`),
//!   whose checks are per group, leave global and const accesses alone;
//! - every call into the code ends with a flush (`JitKernel`), so nothing is pending when a
//!   CTA, a round or a batch ends, a fault stops it, or a spin loop yields; the checked
//!   hull is forgotten then too (`runtime::redcombine::end_call`).

use super::codegen::{EnvField, Gen};
use crate::ir::{self, Op};
use crate::runtime::redcombine::{self as rc, RedOp};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};

/// The operation and type of atomic `i` when it can be combined: a global integer add, and,
/// or, xor, min or max of 32 or 64 bits whose result has no use (`uses`), without memory
/// order or `.sys` scope.
pub(super) fn combinable(f: &ir::Function, uses: &[u32], i: ir::Inst) -> Option<(RedOp, ir::Type)> {
    use ir::{AtomOp, Sign};
    let d = f.inst(i);
    let Op::Atom {
        op,
        space: ir::Space::Global,
    } = d.op
    else {
        return None;
    };
    let &res = d.results.first()?;
    if uses[res.index()] != 0 {
        return None;
    }
    let t = f.value_type(res);
    if !matches!(t, ir::Type::I32 | ir::Type::I64)
        || d.args[1..].iter().any(|&a| f.value_type(a) != t)
    {
        return None;
    }
    if !matches!(
        f.inst_sync.get(i.index()).copied().unwrap_or_default(),
        ir::MemSync::None | ir::MemSync::Relaxed
    ) || f
        .inst_ptx
        .get(i.index())
        .is_some_and(|p| p.contains(".sys"))
    {
        return None;
    }
    let r = match op {
        AtomOp::Add => RedOp::Add,
        AtomOp::And => RedOp::And,
        AtomOp::Or => RedOp::Or,
        AtomOp::Xor => RedOp::Xor,
        AtomOp::Min(Sign::Unsigned) => RedOp::UMin,
        AtomOp::Max(Sign::Unsigned) => RedOp::UMax,
        AtomOp::Min(Sign::Signed) => RedOp::SMin,
        AtomOp::Max(Sign::Signed) => RedOp::SMax,
        AtomOp::Exch
        | AtomOp::Inc
        | AtomOp::Dec
        | AtomOp::FAdd
        | AtomOp::HAdd { .. }
        | AtomOp::HMinMax { .. } => return None,
    };
    Some((r, t))
}

/// Whether a kernel's code combines reductions (the module's comment): it has a
/// [`combinable`] one, no CTA barrier, no call stack, and no operation beyond the loads,
/// stores, atomics and fences whose paths flush or test the pending range (of the warp
/// operations, only the register-only ones). `PTXJIT_RED_COMBINE=0` turns it off.
pub(super) fn eligible(f: &ir::Function, uses: &[u32]) -> bool {
    if std::env::var("PTXJIT_RED_COMBINE").is_ok_and(|v| v.trim() == "0") {
        return false;
    }
    if f.call_stack.is_some() {
        return false;
    }
    let mut any = false;
    for blk in &f.blocks {
        if matches!(blk.term, ir::Terminator::Barrier { .. }) {
            return false;
        }
        for &i in &blk.insts {
            match f.inst(i).op {
                Op::Atom { .. } | Op::AtomCas { .. } => {
                    any |= combinable(f, uses, i).is_some();
                }
                Op::Load { .. } | Op::Store { .. } | Op::Fence {} => {}
                Op::Shfl { .. } => {}
                Op::Const { .. } | Op::SReg { .. } | Op::SymAddr { .. } | crate::lane_ops!() => {}
                crate::warp_ops!() => {
                    // Of the warp operations, those on registers only.
                    let regs = matches!(
                        f.inst(i).op,
                        Op::Vote { .. }
                            | Op::Activemask {}
                            | Op::Match { .. }
                            | Op::Redux { .. }
                            | Op::Elect {}
                    );
                    if !regs {
                        return false;
                    }
                }
            }
        }
    }
    any
}

impl Gen<'_, '_> {
    /// Whether instruction `i` must see every pending reduction before it runs (the module's
    /// comment): a fence, a strong access, a 16-byte atomic access, an atomic on global or
    /// generic memory or with a memory order, except (`group`: in the group code, whose
    /// fast path combines it) a [`combinable`] one.
    pub(super) fn needs_flush(&self, i: ir::Inst, group: bool) -> bool {
        if !self.combine {
            return false;
        }
        let strong = self
            .f
            .inst_sync
            .get(i.index())
            .is_some_and(|&s| s != ir::MemSync::None);
        match self.f.inst(i).op {
            Op::Fence {} | Op::Strong128 { .. } | Op::Atom128 { .. } => true,
            Op::Load { .. } | Op::Store { .. } => strong,
            Op::Atom { space, .. } | Op::AtomCas { space } => {
                if group && combinable(self.f, &self.uses, i).is_some() {
                    return false;
                }
                strong
                    || matches!(
                        space,
                        ir::Space::Global | ir::Space::Generic | ir::Space::Const
                    )
            }
            _ => false,
        }
    }

    /// The table of pending reductions (pointer).
    fn red_table(&mut self) -> Value {
        self.env_val(EnvField::RedTable)
    }

    /// Flush the pending reductions if there are any (a call on a cold path).
    pub(super) fn flush_if_pending(&mut self) {
        let t = self.red_table();
        let fl = MemFlagsData::new().with_notrap();
        let n = self.b.ins().load(types::I64, fl, t, rc::OFF_COUNT);
        let call = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(n, call, &[], join, &[]);
        self.b.switch_to_block(call);
        self.b.set_cold_block(call);
        let sig = self.red_sigs().0;
        let callee = self.fn_ptr(rc::red_flush as *const () as usize);
        self.b.ins().call_indirect(sig, callee, &[self.e.env]);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
    }

    /// An `i8` condition: `span` bytes from device address `a` (`i64`) miss every pending
    /// reduction's bytes (`a >= hi || a + span <= lo`).
    pub(super) fn pending_clear(&mut self, a: Value, span: i64) -> Value {
        let end = self.b.ins().iadd_imm_s(a, span);
        self.pending_clear_to(a, end)
    }

    /// [`Gen::pending_clear`] of the device addresses `a .. end` (`i64`, `end` not below `a`).
    pub(super) fn pending_clear_to(&mut self, a: Value, end: Value) -> Value {
        let t = self.red_table();
        let fl = MemFlagsData::new().with_notrap();
        let lo = self.b.ins().load(types::I64, fl, t, rc::OFF_LO);
        let hi = self.b.ins().load(types::I64, fl, t, rc::OFF_HI);
        let above = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, a, hi);
        let below = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, lo);
        self.b.ins().bor(above, below)
    }

    /// Add `span` bytes from device address `a` to the hull of ranges checked once for many
    /// accesses (`RedTable::alo`): reductions inside it are performed at once from now on.
    pub(super) fn approve(&mut self, a: Value, span: i64) {
        let end = self.b.ins().iadd_imm_s(a, span);
        self.approve_to(a, end);
    }

    /// [`Gen::approve`] of the device addresses `a .. end` (`i64`, `end` not below `a`).
    pub(super) fn approve_to(&mut self, a: Value, end: Value) {
        let t = self.red_table();
        let fl = MemFlagsData::new().with_notrap();
        let alo = self.b.ins().load(types::I64, fl, t, rc::OFF_ALO);
        let ahi = self.b.ins().load(types::I64, fl, t, rc::OFF_AHI);
        let nlo = self.b.ins().umin(alo, a);
        let nhi = self.b.ins().umax(ahi, end);
        self.b.ins().store(fl, nlo, t, rc::OFF_ALO);
        self.b.ins().store(fl, nhi, t, rc::OFF_AHI);
    }

    /// The signatures of `red_flush` and `red_miss`, imported once per function.
    fn red_sigs(&mut self) -> (cranelift_codegen::ir::SigRef, cranelift_codegen::ir::SigRef) {
        if let Some(s) = self.red_sig {
            return s;
        }
        let ptr = self.ptr;
        let mk = |params: &[cranelift_codegen::ir::Type]| {
            let mut s =
                cranelift_codegen::ir::Signature::new(cranelift_codegen::isa::CallConv::SystemV);
            for &p in params {
                s.params.push(cranelift_codegen::ir::AbiParam::new(p));
            }
            s
        };
        let flush = self.b.import_signature(mk(&[ptr]));
        let miss = self.b.import_signature(mk(&[ptr, types::I64, types::I64]));
        self.red_sig = Some((flush, miss));
        (flush, miss)
    }

    /// An `i8` condition: every active lane of the group (`grp.m64`) has its device address
    /// (`addr`, two `i64x2` halves, not yet checked) in the dense window of `op` on `t`
    /// (`RedTable::win`), aligned: `(a - lo) & mask == 0` for all of them, two
    /// subtractions, an OR and one vector test. Such a group needs no window check (the
    /// window lies in the accessible arena, `runtime::redcombine::make_dense`). With no window
    /// the low end is 0 and the mask all ones: only the null address would pass the
    /// subtraction's test, so the condition also requires a low end other than 0 (a null
    /// reduction takes the checked path and faults).
    pub(super) fn in_dense_window(
        &mut self,
        op: RedOp,
        t: ir::Type,
        addr: (Value, Value),
        grp: &super::vector::Grp,
    ) -> Value {
        let (lo, mask) = self.dense_window(op, t);
        let lov = self.b.ins().splat(types::I64X2, lo);
        let maskv = self.b.ins().splat(types::I64X2, mask);
        let mut d = [
            self.b.ins().isub(addr.0, lov),
            self.b.ins().isub(addr.1, lov),
        ];
        if !grp.full {
            for (k, x) in d.iter_mut().enumerate() {
                *x = self.b.ins().band(*x, grp.m64[k]);
            }
        }
        let both = self.b.ins().bor(d[0], d[1]);
        let out = self.b.ins().band(both, maskv);
        let any = self.b.ins().vany_true(out);
        let inside = self.b.ins().icmp_imm_s(IntCC::Equal, any, 0);
        self.window_set(lo, inside)
    }

    /// The dense window of `op` on `t` from the worker's table (`RedTable::win`): its low end
    /// and mask, two `i64` loads.
    fn dense_window(&mut self, op: RedOp, t: ir::Type) -> (Value, Value) {
        let code = rc::op_code(op, t.bytes()) as i32;
        let tbl = self.red_table();
        let fl = MemFlagsData::new().with_notrap();
        let at = rc::OFF_WIN + 16 * code;
        let lo = self.b.ins().load(types::I64, fl, tbl, at);
        let mask = self.b.ins().load(types::I64, fl, tbl, at + 8);
        (lo, mask)
    }

    /// `inside` (an `i8` window test) and a window set: `lo`, the window's low end, is 0 only
    /// when the operation has none (`RedTable::win`), where the test alone would pass a
    /// null address.
    fn window_set(&mut self, lo: Value, inside: Value) -> Value {
        let set = self.b.ins().icmp_imm_s(IntCC::NotEqual, lo, 0);
        self.b.ins().band(inside, set)
    }

    /// An `i8` condition: every device address in `base ..= base + hi` that is `base` plus
    /// a multiple of `t`'s size lies in the dense window of `op` on `t`, aligned
    /// ([`Gen::in_dense_window`]'s test for the span's two ends: the window is one aligned
    /// power-of-two range, so its ends inside put every aligned address between them inside;
    /// `hi` below 2^62, so `base - lo + hi` does not wrap for a `base - lo` in the window).
    /// One scalar test for a group whose lanes' addresses are known to lie in the span.
    pub(super) fn in_dense_span(&mut self, op: RedOp, t: ir::Type, base: Value, hi: i64) -> Value {
        let (lo, mask) = self.dense_window(op, t);
        let d0 = self.b.ins().isub(base, lo);
        let d1 = self.b.ins().iadd_imm_s(d0, hi);
        let both = self.b.ins().bor(d0, d1);
        let out = self.b.ins().band(both, mask);
        let inside = self.b.ins().icmp_imm_s(IntCC::Equal, out, 0);
        self.window_set(lo, inside)
    }

    /// Combine the group's active lanes' reductions (`op` on `t`, device addresses
    /// `lane_addr`, operands `bv`) in lane order with [`Gen::combine_lane`] (`keyed` as
    /// there).
    pub(super) fn combine_lanes(
        &mut self,
        op: RedOp,
        t: ir::Type,
        lane_addr: [Value; 4],
        bv: [Value; 4],
        grp: &super::vector::Grp,
        keyed: bool,
    ) {
        for (j, &a) in lane_addr.iter().enumerate() {
            if grp.full {
                self.combine_lane(op, t, a, bv[j], keyed);
                continue;
            }
            let run = self.b.create_block();
            let next = self.b.create_block();
            let bit = self.b.ins().band_imm_s(grp.bits, 1 << j);
            self.b.ins().brif(bit, run, &[], next, &[]);
            self.b.switch_to_block(run);
            self.combine_lane(op, t, a, bv[j], keyed);
            self.b.ins().jump(next, &[]);
            self.b.switch_to_block(next);
        }
    }

    /// Combine one lane's reduction `op` of type `t` with operand `bv` at device address
    /// `a` (`i64`, already checked: in the global window, aligned, memcheck off) into the
    /// pending table: with `keyed`, the slot's key compared inline, the operand combined in
    /// place on a hit, `red_miss` otherwise; without, `a` is in the dense window
    /// ([`Gen::in_dense_window`]), whose slots hold its key.
    pub(super) fn combine_lane(
        &mut self,
        op: RedOp,
        t: ir::Type,
        a: Value,
        bv: Value,
        keyed: bool,
    ) {
        let t_bytes = t.bytes();
        let code = rc::op_code(op, t_bytes) as i64;
        let tbl = self.red_table();
        let fl = MemFlagsData::new().with_notrap();
        // Slot (a / 4) % SLOTS, 16 bytes each (the address is a multiple of 4).
        let low = self.b.ins().band_imm_s(a, 4 * rc::SLOTS as i64 - 4);
        let off = self.b.ins().ishl_imm_s(low, 2);
        let ent = self.b.ins().iadd(tbl, off);
        let ct = super::codegen::ctype(t);
        let in_place = |g: &mut Self| {
            let v = g.b.ins().load(ct, fl, ent, rc::OFF_SLOTS + 8);
            let nv = match op {
                RedOp::Add => g.b.ins().iadd(v, bv),
                RedOp::And => g.b.ins().band(v, bv),
                RedOp::Or => g.b.ins().bor(v, bv),
                RedOp::Xor => g.b.ins().bxor(v, bv),
                RedOp::UMin => g.b.ins().umin(v, bv),
                RedOp::UMax => g.b.ins().umax(v, bv),
                RedOp::SMin => g.b.ins().smin(v, bv),
                RedOp::SMax => g.b.ins().smax(v, bv),
            };
            g.b.ins().store(fl, nv, ent, rc::OFF_SLOTS + 8);
        };
        if !keyed {
            in_place(self);
            return;
        }
        let key = self.b.ins().bor_imm_s(a, code << rc::KEY_SHIFT);
        let k = self.b.ins().load(types::I64, fl, ent, rc::OFF_SLOTS);
        let hit = self.b.ins().icmp(IntCC::Equal, k, key);
        let hit_b = self.b.create_block();
        let miss_b = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(hit, hit_b, &[], miss_b, &[]);

        self.b.switch_to_block(hit_b);
        in_place(self);
        self.b.ins().jump(join, &[]);

        self.b.switch_to_block(miss_b);
        self.b.set_cold_block(miss_b);
        let val = if t_bytes == 8 {
            bv
        } else {
            self.b.ins().uextend(types::I64, bv)
        };
        let sig = self.red_sigs().1;
        let callee = self.fn_ptr(rc::red_miss as *const () as usize);
        self.b
            .ins()
            .call_indirect(sig, callee, &[self.e.env, key, val]);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
    }
}
