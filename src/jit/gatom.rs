//! Atomics (`atom`, PTX ISA §9.7.13.5) of a group of four lanes: one range check for the
//! group, then each active lane's operation without a check of its own.
//!
//! # Soundness
//! The per-lane path (`Gen::lane_by_lane` → `Gen::inline_atomic`) translates each lane's
//! address with `Gen::access_ptr`: in the state space's window, aligned to the operand's
//! size, and for global memory memcheck off (`CtaEnv::memcheck`, which initcheck and global
//! racecheck also set); any lane that fails goes to `helpers::access_helper`, which records
//! the fault. The group path makes the same tests for the four lanes at once and takes the
//! per-lane path, unchanged, for the whole group when any *active* lane fails one (or the
//! window is smaller than one operand or not below 2^63 bytes): a group with a fault,
//! memcheck or initcheck runs exactly as before, faults in lane order included. Where every active lane passes, each
//! lane's pointer is `base + (address - bias)`, the value `access_ptr`'s fast branch makes,
//! and the lanes' operations run in lane order with the same CLIF (`Gen::atomic_at`).
//! Inactive lanes' addresses are never tested or used (they may hold anything) and their
//! results are 0, as on the per-lane path.
//!
//! Only a global `atom.add` with all four lanes active on one address is combined (shared
//! memory's atomics are plain loads and stores, which cost less in lane order than the
//! test): the sum of the four operands is added by one operation, and lane j's result is
//! the old value plus the operands of lanes `0..j`. That is the outcome of the four lanes'
//! atomics performed back to back in lane order, with no other thread's access in between,
//! which is one of the orders the memory model allows (each atomic stays indivisible;
//! integer addition is exact and associative modulo 2^n), and the order the per-lane path
//! and the interpreter use.

use super::codegen::{ctype, EnvField, Gen};
use super::vector::{GVal, Grp};
use crate::ir;
use crate::runtime::memory::GLOBAL_BASE;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, BlockArg, InstBuilder, Value};

// The range check reads an operand's alignment from its offset in the window.
const _: () = assert!(GLOBAL_BASE.is_multiple_of(8));

impl Gen<'_, '_> {
    /// Atomic `i` for the group (the module's comment), or `None` (nothing emitted) where
    /// the lane-by-lane code must do it: a form `Gen::inline_atomic_form` leaves to the
    /// runtime, or an address not held as 64-bit vector halves.
    pub(super) fn group_atomic(
        &mut self,
        grp: &mut Grp,
        i: ir::Inst,
        args: &[GVal],
        arg_tys: &[ir::Type],
    ) -> Result<Option<GVal>, String> {
        // In a decided loop's fast groups, a combined reduction whose dense-span test was
        // made once before the loop and holds (`Gen::dloop_span`; nothing in those groups can
        // change the window since): each lane adds into its slot at once. Its address
        // `b + o_j` lies in `b ..= b + hi`, which the test put in the window, aligned.
        if let (Some(sp), Some((op, t))) = (
            self.dloop_span(i),
            self.combine
                .then(|| super::combine::combinable(self.f, &self.uses, i))
                .flatten(),
        ) {
            let ct = ctype(t);
            let bv = match self.f.const_bits(self.f.inst(i).args[1]) {
                Some(bits) => [self.iconst(ct, bits as i64); 4],
                None => self.lanes_of(args[1], t),
            };
            let lane_addr = match self.scalar_lanes(grp, sp.off, RANGE_DEPTH) {
                Some(Lanes::Made(offs)) => offs.map(|o| {
                    let o = self.addr64(o, sp.off);
                    self.b.ins().iadd(sp.base, o)
                }),
                _ => self.lanes_of(args[0], arg_tys[0]),
            };
            self.combine_lanes(op, t, lane_addr, bv, grp, false);
            return Ok(Some(GVal::S4([self.iconst(ct, 0); 4])));
        }
        let Some(form) = self.inline_atomic_form(i) else {
            return Ok(None);
        };
        let Some(&res) = self.f.inst(i).results.first() else {
            return Ok(None);
        };
        let Some(addr) = self.addr_v2(args[0], arg_tys[0]) else {
            return Ok(None);
        };
        // `inline_atomic_form` accepts global memory and shared memory without racecheck,
        // both with a window.
        let Some((base, limit, bias)) = self.window(form.space) else {
            return Ok(None);
        };
        let t = form.t;
        let ct = ctype(t);
        let size = i64::from(t.bytes());
        let cas = form.op.is_none();
        if args.len() != if cas { 3 } else { 2 } {
            return Err(format!("{i}: atomic with {} operands", args.len()));
        }

        // A combined reduction (`combine.rs`) whose active lanes all lie in its operation's
        // dense window: each adds into its slot, without the window check (the window lies
        // in the accessible arena and the test keeps the alignment) or a key compare.
        let combined = self
            .combine
            .then(|| super::combine::combinable(self.f, &self.uses, i))
            .flatten();
        let mut dense_join = None;
        if let Some((op, _)) = combined {
            let dense = self.b.create_block();
            let tested = self.b.create_block();
            let after = self.b.create_block();
            // A uniform base plus an offset of known range (`histogram_global`'s
            // `&bins[byte]`): the whole span tested on scalars, the lanes' addresses made
            // as scalars from the base and the bytes' word. A span the window does not
            // cover goes on to the lanes' own test below.
            if let Some((bs, hi, offs)) = self.uniform_base_lanes(grp, i, size as u64) {
                let span_dense = self.b.create_block();
                let lanes_test = self.b.create_block();
                let inside = self.in_dense_span(op, t, bs, hi);
                self.b.ins().brif(inside, span_dense, &[], lanes_test, &[]);
                self.b.switch_to_block(span_dense);
                let bv = match self.f.const_bits(self.f.inst(i).args[1]) {
                    Some(bits) => [self.iconst(ct, bits as i64); 4],
                    None => self.lanes_of(args[1], t),
                };
                let lane_addr = offs.map(|o| self.b.ins().iadd(bs, o));
                self.combine_lanes(op, t, lane_addr, bv, grp, false);
                self.b.ins().jump(after, &[]);
                self.b.switch_to_block(lanes_test);
            }
            let inside = self.in_dense_window(op, t, addr, grp);
            self.b.ins().brif(inside, dense, &[], tested, &[]);
            self.b.switch_to_block(dense);
            let bv = match self.f.const_bits(self.f.inst(i).args[1]) {
                Some(bits) => [self.iconst(ct, bits as i64); 4],
                None => self.lanes_of(args[1], t),
            };
            let lane_addr = self.address_lanes_or_held(grp, i, addr);
            self.combine_lanes(op, t, lane_addr, bv, grp, false);
            self.b.ins().jump(after, &[]);
            self.b.switch_to_block(tested);
            dense_join = Some(after);
        }

        // The range check (the module's comment): every active lane's offset `o` in
        // `0..=last` (`last = limit - size`), its low bits 0. With `0 <= last < 2^63` (the
        // signed test of `limit` below), `o` read as unsigned is at most `last` exactly when
        // neither `o` nor `last - o` (wrapping) has its sign bit set; the bias is a multiple
        // of every operand size, so the offset's low bits are the address's.
        let (o0, o1) = if bias == 0 {
            addr
        } else {
            let biasv = self.vconst_i64([bias, bias]);
            (
                self.b.ins().isub(addr.0, biasv),
                self.b.ins().isub(addr.1, biasv),
            )
        };
        // A shared address whose every possible value is known at compile time to lie in
        // `0..=hi` as a multiple of the operand's size (`atomicAdd(&bins[byte], 1)`): every
        // lane passes when the window reaches `hi + size`, one scalar compare before the
        // group's test (a window too small for the range, initcheck's of 0 bytes included,
        // goes on to the test).
        let known = self.shared_known_end(i);
        let fast = self.b.create_block();
        if let Some(end) = known {
            let tested = self.b.create_block();
            if self.dloop_fits(i) {
                // The decided loop's trip entered its fast groups with this compare made
                // once (`Gen::dloop_groups`): the test below is unreachable.
                self.b.ins().jump(fast, &[]);
            } else {
                let fits = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, limit, end);
                self.b.ins().brif(fits, fast, &[], tested, &[]);
            }
            self.b.switch_to_block(tested);
        }
        let last = self.b.ins().iadd_imm_s(limit, -size);
        let lastv = self.b.ins().splat(types::I64X2, last);
        let sign_low = self.vconst_i64([i64::MIN | (size - 1), i64::MIN | (size - 1)]);
        let sign = self.vconst_i64([i64::MIN, i64::MIN]);
        let mut bad = None;
        for (k, o) in [o0, o1].into_iter().enumerate() {
            let rest = self.b.ins().isub(lastv, o);
            let a = self.b.ins().band(o, sign_low);
            let r = self.b.ins().band(rest, sign);
            let fail = self.b.ins().bor(a, r);
            let fail = self.b.ins().band(fail, grp.m64[k]);
            bad = Some(match bad {
                None => fail,
                Some(x) => self.b.ins().bor(x, fail),
            });
        }
        let bad = bad.ok_or("internal: no address halves")?;
        let any_bad = self.b.ins().vany_true(bad);
        let none_bad = self.b.ins().icmp_imm_s(IntCC::Equal, any_bad, 0);
        let room = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, limit, size);
        let mut pass = self.b.ins().band(none_bad, room);
        if form.space == ir::Space::Global {
            let checks = self.env_val(EnvField::Memcheck);
            let off = self.b.ins().icmp_imm_s(IntCC::Equal, checks, 0);
            pass = self.b.ins().band(pass, off);
        }

        let used = self.uses[res.index()] != 0;
        let slow = self.b.create_block();
        let join = self.b.create_block();
        if used {
            for _ in 0..4 {
                self.b.append_block_param(join, ct);
            }
        }
        let to_join = |out: &[Value; 4]| -> Vec<BlockArg> {
            if used {
                out.iter().map(|&x| BlockArg::Value(x)).collect()
            } else {
                vec![]
            }
        };
        self.b.ins().brif(pass, fast, &[], slow, &[]);

        // A fault, memcheck or initcheck: lane by lane through the checked translation. Every
        // block of that path is cold (emitted after the function's other blocks), so the
        // checks and helper calls of the four lanes do not sit between a loop's fast groups.
        self.b.switch_to_block(slow);
        let first_slow = self.b.func.dfg.num_blocks();
        let out = self
            .lane_by_lane(grp, i, args, arg_tys)?
            .ok_or_else(|| format!("{i}: atomic without a result"))?;
        self.b.set_cold_block(slow);
        for k in first_slow..self.b.func.dfg.num_blocks() {
            self.b.set_cold_block(Block::from_u32(k as u32));
        }
        let jargs = to_join(&out);
        self.b.ins().jump(join, &jargs);

        self.b.switch_to_block(fast);
        // A constant operand (`atomicAdd(p, 1)`) as an immediate, not four lanes extracted.
        let bv = match self.f.const_bits(self.f.inst(i).args[1]) {
            Some(bits) => [self.iconst(ct, bits as i64); 4],
            None => self.lanes_of(args[1], t),
        };
        let cv = if cas {
            Some(self.lanes_of(args[2], t))
        } else {
            None
        };
        // The lanes' offsets: recomputed as scalars from a narrower definition where there
        // is one (`Gen::address_lanes`: `bins[byte]` from the bytes' packed word), else
        // extracted from the 64-bit halves.
        let offs = match self.address_lanes(grp, i) {
            Some(s) => s.map(|x| {
                if bias == 0 {
                    x
                } else {
                    self.b.ins().iadd_imm_s(x, bias.wrapping_neg())
                }
            }),
            None => [
                self.b.ins().extractlane(o0, 0),
                self.b.ins().extractlane(o0, 1),
                self.b.ins().extractlane(o1, 0),
                self.b.ins().extractlane(o1, 1),
            ],
        };
        let ptr = offs.map(|o| self.b.ins().iadd(base, o));
        if let Some((op, _)) = combined {
            // Into the thread's pending table, each active lane in lane order (`combine.rs`);
            // the result has no use.
            let lane_addr = self.address_lanes_or_held(grp, i, addr);
            self.combine_lanes(op, t, lane_addr, bv, grp, true);
            self.b.ins().jump(join, &[]);
            self.b.switch_to_block(join);
            if let Some(after) = dense_join {
                self.b.ins().jump(after, &[]);
                self.b.switch_to_block(after);
            }
            return Ok(Some(GVal::S4([self.iconst(ct, 0); 4])));
        }
        if form.op == Some(ir::AtomOp::Add) && form.space == ir::Space::Global {
            // All four lanes active on one address: one host atomic adds the operands' sum.
            // (Shared memory's atomics are plain loads and stores, `Gen::atomic_at`: four
            // of them in lane order cost less than the test.)
            let a0 = self.b.ins().extractlane(addr.0, 0);
            let sa = self.b.ins().splat(types::I64X2, a0);
            let e0 = self.b.ins().icmp(IntCC::Equal, sa, addr.0);
            let e1 = self.b.ins().icmp(IntCC::Equal, sa, addr.1);
            let e = self.b.ins().band(e0, e1);
            let same = self.b.ins().vall_true(e);
            let full = self.b.ins().icmp_imm_s(IntCC::Equal, grp.bits, 0xf);
            let one = self.b.ins().band(same, full);
            let combined = self.b.create_block();
            let each = self.b.create_block();
            self.b.ins().brif(one, combined, &[], each, &[]);
            self.b.switch_to_block(combined);
            let s01 = self.b.ins().iadd(bv[0], bv[1]);
            let s012 = self.b.ins().iadd(s01, bv[2]);
            let sum = self.b.ins().iadd(s012, bv[3]);
            let old = self.atomic_at(&form, ptr[0], sum, None)?;
            let out = [
                old,
                self.b.ins().iadd(old, bv[0]),
                self.b.ins().iadd(old, s01),
                self.b.ins().iadd(old, s012),
            ];
            let jargs = to_join(&out);
            self.b.ins().jump(join, &jargs);
            self.b.switch_to_block(each);
        }
        // Each active lane in lane order.
        let mut out = [bv[0]; 4];
        for (j, o) in out.iter_mut().enumerate() {
            let c = cv.map(|c| c[j]);
            if grp.full {
                *o = self.atomic_at(&form, ptr[j], bv[j], c)?;
                continue;
            }
            let run = self.b.create_block();
            let next = self.b.create_block();
            self.b.append_block_param(next, ct);
            let zero = self.iconst(ct, 0);
            let bit = self.b.ins().band_imm_s(grp.bits, 1 << j);
            self.b
                .ins()
                .brif(bit, run, &[], next, &[BlockArg::Value(zero)]);
            self.b.switch_to_block(run);
            let r = self.atomic_at(&form, ptr[j], bv[j], c)?;
            self.b.ins().jump(next, &[BlockArg::Value(r)]);
            self.b.switch_to_block(next);
            *o = self.b.block_params(next)[0];
        }
        let jargs = to_join(&out);
        self.b.ins().jump(join, &jargs);

        self.b.switch_to_block(join);
        let res = if used {
            let p = self.b.block_params(join).to_vec();
            [p[0], p[1], p[2], p[3]]
        } else {
            // Never read (the result has no use).
            [self.iconst(ct, 0); 4]
        };
        Ok(Some(GVal::S4(res)))
    }

    /// For a shared-memory atomic `i` that the group code runs inline, whose address's every
    /// possible value is known at compile time to lie in `0..=hi` as a multiple of the
    /// operand's size (`atomicAdd(&bins[byte], 1)`): `hi + size`, the window size from
    /// which every lane passes the range check. `None` otherwise.
    pub(super) fn shared_known_end(&self, i: ir::Inst) -> Option<i64> {
        let form = self.inline_atomic_form(i)?;
        if form.space != ir::Space::Shared {
            return None;
        }
        let size = u64::from(form.t.bytes());
        let &a = self.f.inst(i).args.first()?;
        let r = value_range(self.f, a, RANGE_DEPTH)?;
        let end = r.hi.checked_add(size)?;
        (r.mult % size == 0 && end < 1 << 62).then_some(end as i64)
    }
}

impl Gen<'_, '_> {
    /// For atomic `i` with its address `b + o` (`add.s64`, either order): `b` uniform where
    /// `i` runs (64-bit) and `o`'s every possible value known at compile time to lie in
    /// `0..=hi` as a multiple of `size` (`value_range`, `hi` below 2^62). Returns `b`, `o`
    /// and `hi`; `None` otherwise. Every lane's address then lies in `b ..= b + hi`.
    pub(super) fn span_form(&self, i: ir::Inst, size: u64) -> Option<(ir::Value, ir::Value, i64)> {
        self.span_forms(i, size).into_iter().flatten().next()
    }

    /// [`Gen::span_form`]'s readings of `b + o`, one per order of the `add.s64`'s operands
    /// (`None` where that order does not qualify, both `None` where the address is no such
    /// `add.s64`).
    fn span_forms(&self, i: ir::Inst, size: u64) -> [Option<(ir::Value, ir::Value, i64)>; 2] {
        let Some(&a) = self.f.inst(i).args.first() else {
            return [None, None];
        };
        if self.ty(a) != ir::Type::I64 {
            return [None, None];
        }
        let ir::ValueDef::Result(def, 0) = self.f.values[a.index()].def else {
            return [None, None];
        };
        let d = self.f.inst(def);
        let (ir::Op::IAdd {}, &[x, y]) = (&d.op, d.args.as_slice()) else {
            return [None, None];
        };
        let blk = ir::Block(self.inst_block[i.index()]);
        [(x, y), (y, x)].map(|(b, o)| {
            if self.ty(b) != ir::Type::I64 || !self.uni.uniform_at(b, blk) {
                return None;
            }
            let r = value_range(self.f, o, RANGE_DEPTH)?;
            (r.mult % size == 0 && r.hi < 1 << 62).then_some((b, o, r.hi as i64))
        })
    }

    /// For atomic `i` in a group whose four lanes are all active (`Grp::full`), with its
    /// address `b + o` (`add.s64`): `b` uniform where `i` runs and `o`'s every possible value
    /// known at compile time to lie in `0..=hi` as a multiple of `size` (`value_range`), its
    /// lanes recomputed as scalars (`Gen::scalar_lanes`). Returns lane 0's `b` (every
    /// lane's, the lanes all being active), `hi` and the four lanes of `o`; `None`
    /// otherwise. Every lane's address then lies in `b ..= b + hi`.
    fn uniform_base_lanes(
        &mut self,
        grp: &Grp,
        i: ir::Inst,
        size: u64,
    ) -> Option<(Value, i64, [Value; 4])> {
        if !grp.full {
            return None;
        }
        for (b, o, hi) in self.span_forms(i, size).into_iter().flatten() {
            let base = match grp.vals.get(&b) {
                Some(&GVal::S4(s)) => s[0],
                Some(&GVal::V2(v0, _)) => self.b.ins().extractlane(v0, 0),
                Some(&GVal::V1(_)) | None => continue,
            };
            let Some(Lanes::Made(offs)) = self.scalar_lanes(grp, o, RANGE_DEPTH) else {
                continue;
            };
            return Some((base, hi, offs));
        }
        None
    }
}

/// What [`Gen::scalar_lanes`] found for a value.
enum Lanes {
    /// The four lanes as scalars of the value's type, made from a narrower or scalar
    /// definition.
    Made([Value; 4]),
    /// The value is at hand only as vectors (nothing made): extracting their lanes costs no
    /// more than a recomputation would.
    Held,
}

impl Gen<'_, '_> {
    /// [`address_lanes`](Self::address_lanes), or else the four lanes taken out of `addr`,
    /// the group's address as the two 2-lane vectors it holds.
    fn address_lanes_or_held(
        &mut self,
        grp: &Grp,
        i: ir::Inst,
        addr: (Value, Value),
    ) -> [Value; 4] {
        match self.address_lanes(grp, i) {
            Some(s) => s,
            None => [
                self.b.ins().extractlane(addr.0, 0),
                self.b.ins().extractlane(addr.0, 1),
                self.b.ins().extractlane(addr.1, 0),
                self.b.ins().extractlane(addr.1, 1),
            ],
        }
    }

    /// The four lanes' device addresses of memory operation `i` (its first operand) as
    /// `i64` scalars recomputed by [`Gen::scalar_lanes`], or `None` where extracting them from
    /// the group's vectors is as cheap.
    fn address_lanes(&mut self, grp: &Grp, i: ir::Inst) -> Option<[Value; 4]> {
        let a = *self.f.inst(i).args.first()?;
        match self.scalar_lanes(grp, a, RANGE_DEPTH)? {
            Lanes::Made(s) => Some(s.map(|x| self.addr64(x, a))),
            Lanes::Held => None,
        }
    }

    /// The group's four lanes of IR integer `v` as scalars of its type, recomputed from its
    /// definitions (constants, integer conversions, adds, multiplies, left shifts by a
    /// constant, `and` with a constant: pure, so the same SSA arguments give the same values) down to values the
    /// group holds as scalars or as a packed narrow load (`Grp::packed`, whose lanes are the
    /// bytes or half-words of one word, taken out by shifts). Following at most `depth`
    /// definitions. An address such as `atomicAdd(&bins[byte], 1)`'s is then four byte
    /// shifts and masks feeding the scalar address mode, instead of zero-extensions to 64-bit
    /// vector halves and `pextrq` per lane. `Some(Lanes::Held)` where `v` itself is a vector
    /// of the group, `None` where no definition leads to a scalar or packed value. (A base
    /// held as a vector, such as a global histogram's parameter, is not taken as lane 0's
    /// scalar: for `histogram_global` that added instructions beside the combined
    /// reduction's vector window test and measured no faster.)
    fn scalar_lanes(&mut self, grp: &Grp, v: ir::Value, depth: u32) -> Option<Lanes> {
        let t = self.ty(v);
        if !matches!(
            t,
            ir::Type::I8 | ir::Type::I16 | ir::Type::I32 | ir::Type::I64
        ) {
            return None;
        }
        let ct = ctype(t);
        if grp.packed.contains_key(&v) {
            return Some(Lanes::Made(
                [0, 1, 2, 3].map(|j| self.packed_lane(grp, v, j, ct, false)),
            ));
        }
        match grp.vals.get(&v) {
            Some(GVal::S4(s)) => return Some(Lanes::Made(*s)),
            Some(GVal::V1(_) | GVal::V2(..)) if depth == 0 => return Some(Lanes::Held),
            _ => {}
        }
        let ir::ValueDef::Result(def, 0) = self.f.values[v.index()].def else {
            return grp.vals.contains_key(&v).then_some(Lanes::Held);
        };
        let f = self.f;
        let d = f.inst(def);
        let held = grp.vals.contains_key(&v);
        let made = |l: Option<Lanes>| match l {
            Some(Lanes::Made(s)) => Some(s),
            Some(Lanes::Held) | None => None,
        };
        let sub = |me: &mut Self, k: usize| match depth {
            0 => None,
            _ => made(me.scalar_lanes(grp, *d.args.get(k)?, depth - 1)),
        };
        let out = match d.op {
            ir::Op::Const { bits } => Some([self.iconst(ct, bits as i64); 4]),
            ir::Op::Cvt {
                dst,
                src,
                rnd: ir::CvtRound::None,
                sat: false,
                ..
            } if !src.is_float()
                && !dst.is_float()
                && dst.ir() == t
                && t.bytes() >= src.ir().bytes()
                && d.args.first().map(|&a| self.ty(a)) == Some(src.ir()) =>
            {
                let a = d.args[0];
                if !src.is_signed() && grp.packed.contains_key(&a) {
                    // Zero-extended lanes of a packed load: shifted and masked in the wider
                    // type directly.
                    Some([0, 1, 2, 3].map(|j| self.packed_lane(grp, a, j, ct, true)))
                } else {
                    sub(self, 0).map(|s| {
                        s.map(|x| {
                            if t == src.ir() {
                                x
                            } else if src.is_signed() {
                                self.b.ins().sextend(ct, x)
                            } else {
                                self.b.ins().uextend(ct, x)
                            }
                        })
                    })
                }
            }
            ir::Op::IAdd {} | ir::Op::IMul {} => {
                let add = matches!(d.op, ir::Op::IAdd {});
                let a = sub(self, 0);
                let b = a.and_then(|_| sub(self, 1));
                a.zip(b).map(|(a, b)| {
                    [0, 1, 2, 3].map(|j| {
                        if add {
                            self.b.ins().iadd(a[j], b[j])
                        } else {
                            self.b.ins().imul(a[j], b[j])
                        }
                    })
                })
            }
            ir::Op::IMulWide { sign }
                if t.bytes() == 2 * d.args.first().map(|&a| self.ty(a).bytes()).unwrap_or(0) =>
            {
                let a = sub(self, 0);
                let b = a.and_then(|_| sub(self, 1));
                a.zip(b).map(|(a, b)| {
                    [0, 1, 2, 3].map(|j| {
                        let (x, y) = match sign {
                            ir::Sign::Unsigned => (
                                self.b.ins().uextend(ct, a[j]),
                                self.b.ins().uextend(ct, b[j]),
                            ),
                            ir::Sign::Signed => (
                                self.b.ins().sextend(ct, a[j]),
                                self.b.ins().sextend(ct, b[j]),
                            ),
                        };
                        self.b.ins().imul(x, y)
                    })
                })
            }
            ir::Op::Shl {} => {
                // A constant count below the width (PTX clamps larger ones; left alone).
                let c = d.args.get(1).and_then(|&c| self.f.const_bits(c));
                match c {
                    Some(c) if c < u64::from(t.bytes()) * 8 => {
                        sub(self, 0).map(|s| s.map(|x| self.b.ins().ishl_imm_u(x, c as i64)))
                    }
                    _ => None,
                }
            }
            ir::Op::And {} => {
                // A constant mask below the type's sign bit (`byte & 15`).
                let c = d.args.get(1).and_then(|&c| self.f.const_bits(c));
                match c {
                    Some(c) if c < 1 << (t.bytes() * 8 - 1) => {
                        sub(self, 0).map(|s| s.map(|x| self.b.ins().band_imm_u(x, c as i64)))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        match out {
            Some(s) => Some(Lanes::Made(s)),
            None => held.then_some(Lanes::Held),
        }
    }

    /// Lane `j` of packed narrow load `v` (`Grp::packed`) as a scalar of type `ct`: its
    /// word shifted right by `j` lanes, zero-extended (`zext`, `ct` at least the lane's
    /// width) or reduced to the lane's type.
    fn packed_lane(
        &mut self,
        grp: &Grp,
        v: ir::Value,
        j: u8,
        ct: types::Type,
        zext: bool,
    ) -> Value {
        let lane_bits: u32 = if self.ty(v) == ir::Type::I8 { 8 } else { 16 };
        let (vt, wt) = if lane_bits == 8 {
            (types::I32X4, types::I32)
        } else {
            (types::I64X2, types::I64)
        };
        let p = grp.packed[&v];
        let word = match self.packed_words.get(&p) {
            Some(&w) => w,
            None => {
                let wv = self.vbitcast(p, vt);
                self.b.ins().extractlane(wv, 0)
            }
        };
        let shift = u32::from(j) * lane_bits;
        let x = if shift == 0 {
            word
        } else {
            self.b.ins().ushr_imm_u(word, i64::from(shift))
        };
        let x = match ct.bits().cmp(&wt.bits()) {
            std::cmp::Ordering::Greater => self.b.ins().uextend(ct, x),
            std::cmp::Ordering::Less => self.b.ins().ireduce(ct, x),
            std::cmp::Ordering::Equal => x,
        };
        if !zext || ct.bits() == lane_bits {
            return x;
        }
        // The top lane of the word needs no mask when the word fills the type.
        if shift + lane_bits == wt.bits() && ct.bits() >= wt.bits() {
            return x;
        }
        self.b.ins().band_imm_u(x, (1i64 << lane_bits) - 1)
    }
}

/// How deep [`value_range`] follows a value's definitions.
const RANGE_DEPTH: u32 = 8;

/// What is known at compile time of every value an IR integer may take, read as unsigned
/// in its type's width ([`value_range`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct URange {
    /// No value is below it.
    pub lo: u64,
    /// No value is above it.
    pub hi: u64,
    /// Every value is a multiple of it (a power of two; 2^63 for the constant 0).
    pub mult: u64,
}

/// The unsigned range and alignment of integer value `v` from its definition (constants,
/// zero-extending conversions, adds, multiplies and left shifts without wrap-around, `and`
/// with a constant), following at most `depth` definitions; any other integer is in its
/// type's full range. `None` for a predicate or a float.
pub(super) fn value_range(f: &ir::Function, v: ir::Value, depth: u32) -> Option<URange> {
    let bits: u32 = match f.value_type(v) {
        ir::Type::I8 => 8,
        ir::Type::I16 => 16,
        ir::Type::I32 => 32,
        ir::Type::I64 => 64,
        ir::Type::Pred | ir::Type::F32 | ir::Type::F64 => return None,
    };
    let max = u64::MAX >> (64 - bits);
    let full = URange {
        lo: 0,
        hi: max,
        mult: 1,
    };
    let pow2 = |x: u64| {
        if x == 0 {
            1 << 63
        } else {
            1u64 << x.trailing_zeros()
        }
    };
    let ir::ValueDef::Result(i, 0) = f.values[v.index()].def else {
        return Some(full);
    };
    let d = f.inst(i);
    let sub = |k: usize| match depth {
        0 => None,
        _ => d.args.get(k).and_then(|&a| value_range(f, a, depth - 1)),
    };
    // A result no wider than the type: the computed range, else the full one.
    let fits = |r: Option<URange>| Some(r.filter(|r| r.hi <= max).unwrap_or(full));
    match d.op {
        ir::Op::Const { bits } => Some(URange {
            lo: bits & max,
            hi: bits & max,
            mult: pow2(bits & max),
        }),
        ir::Op::Cvt {
            dst,
            src,
            sat: false,
            ..
        } if !src.is_float()
            && !src.is_signed()
            && !dst.is_float()
            && dst.ir().bytes() >= src.ir().bytes()
            && d.args.first().map(|&a| f.value_type(a)) == Some(src.ir()) =>
        {
            fits(sub(0))
        }
        ir::Op::IAdd {} => fits(sub(0).zip(sub(1)).and_then(|(a, b)| {
            Some(URange {
                lo: a.lo.checked_add(b.lo)?,
                hi: a.hi.checked_add(b.hi)?,
                mult: a.mult.min(b.mult),
            })
        })),
        ir::Op::IMul {}
        | ir::Op::IMulWide {
            sign: ir::Sign::Unsigned,
        } => fits(sub(0).zip(sub(1)).and_then(|(a, b)| {
            Some(URange {
                lo: a.lo.checked_mul(b.lo)?,
                hi: a.hi.checked_mul(b.hi)?,
                mult: a.mult.checked_mul(b.mult).unwrap_or(1 << 63).min(1 << 63),
            })
        })),
        ir::Op::Shl {} => fits(sub(0).zip(sub(1)).and_then(|(a, c)| {
            // A constant count below the width (a larger one gives 0, left to the full
            // range).
            if c.lo != c.hi || c.hi >= u64::from(bits) {
                return None;
            }
            let hi = a.hi.checked_mul(1 << c.hi)?;
            Some(URange {
                lo: a.lo << c.hi,
                hi,
                mult: a
                    .mult
                    .checked_mul(1 << c.hi)
                    .unwrap_or(1 << 63)
                    .min(1 << 63),
            })
        })),
        ir::Op::And {} => {
            let (Some(a), Some(m)) = (sub(0), sub(1)) else {
                return Some(full);
            };
            if m.lo != m.hi {
                return Some(full);
            }
            // The result's bits are among both operands'.
            Some(URange {
                lo: 0,
                hi: a.hi.min(m.hi),
                mult: a.mult.max(pow2(m.hi)),
            })
        }
        _ => Some(full),
    }
}
