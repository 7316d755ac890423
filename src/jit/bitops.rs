//! Bit-manipulation operations as inline CLIF: `lop3`, `prmt` (every mode), `bfe`, `bfi`,
//! `shf`, `brev`, `bfind`, `bmsk`, `szext` for one lane (the scalar section and the lanes the
//! SIMD code runs one by one), and SIMD forms of `lop3`, `popc`, `prmt` with a constant
//! selector, `shf`/`bfe` with warp-uniform counts and `bfi` with a warp-uniform position and
//! length.
//!
//! ⚠ Each form must equal its definition in `runtime::bits` bit for bit (the interpreter
//! calls those; `ptx-tests/isa/{bitfield,logic}.isa` and `ptxjit check` compare the engines).
//! The arguments are in CLIF terms:
//! - every shift amount emitted here is in `0..width` (Cranelift takes shift amounts modulo
//!   the width; PTX clamps), so each formula first clamps or selects;
//! - 32-bit operands arrive as `i32`, 64-bit as `i64`; an op on any other width (or a
//!   vector operand of another shape) is not inlined and goes to `semantics::eval_pure`.
//!
//! A constant `prmt` selector takes its byte table from `runtime::bits::prmt` itself, applied
//! to the byte indices 0..7, so the table is written once.

use super::codegen::{ctype, Gen};
use super::vector::{GVal, Grp};
use crate::ir::{self, Op, PrmtMode, Sign};
use crate::runtime::bits;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, ConstantData, InstBuilder, Value};

type CType = cranelift_codegen::ir::Type;

/// The byte (0..7 of the 64-bit `b:a`) and the sign-replication flag of each of the four
/// result bytes of `prmt` with the constant selector `c`.
fn prmt_table(c: u64, mode: PrmtMode) -> [(u8, bool); 4] {
    // bits::prmt applied to sources whose byte k holds k gives the selected indices; a
    // sign-replicated byte reads 0 there (no index has its msb set), and its index is the
    // selector nibble's low three bits.
    let idx = bits::prmt(0x0302_0100, 0x0706_0504, c, mode);
    let mut t = [(0u8, false); 4];
    for (i, e) in t.iter_mut().enumerate() {
        let nib = (c >> (4 * i)) & 0xf;
        *e = match mode {
            PrmtMode::Generic if nib & 8 != 0 => ((nib & 7) as u8, true),
            PrmtMode::Generic
            | PrmtMode::F4e
            | PrmtMode::B4e
            | PrmtMode::Rc8
            | PrmtMode::Ecl
            | PrmtMode::Ecr
            | PrmtMode::Rc16 => (((idx >> (8 * i)) & 0xff) as u8, false),
        };
    }
    t
}

impl Gen<'_, '_> {
    /// `bfi`'s field (PTX ISA §9.7.1.20) from the `i32` `pl` holding the position in bits
    /// 0-7 and the length in bits 8-15, for a `bits`-wide operand of CLIF type `ct`: the
    /// shift `p` (the position clamped to the msb), the field mask `m` (the low
    /// min(len, bits - p) bits, shifted to `p`), and the flag `same` (position past the msb or
    /// length 0: the result is `b` unchanged).
    fn bfi_field(&mut self, pl: Value, bits: u64, ct: CType) -> (Value, Value, Value) {
        let pos = self.b.ins().band_imm_s(pl, 0xff);
        let len = self.b.ins().ushr_imm_s(pl, 8);
        let len = self.b.ins().band_imm_s(len, 0xff);
        let msb = self.kconst(types::I32, bits - 1);
        let p = self.b.ins().umin(pos, msb);
        let bw = self.kconst(types::I32, bits);
        let room = self.b.ins().isub(bw, p);
        let w = self.b.ins().umin(len, room);
        let sh = self.b.ins().isub(bw, w);
        let ones = self.kconst(ct, u64::MAX);
        let m = self.b.ins().ushr(ones, sh);
        let m = self.b.ins().ishl(m, p);
        let past = self.b.ins().icmp(IntCC::UnsignedGreaterThan, pos, msb);
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, len, 0);
        let same = self.b.ins().bor(past, none);
        (p, m, same)
    }

    /// `v` of type `t` masked to the type's width (Cranelift's `iconst` wants the bits of the
    /// type only).
    fn kconst(&mut self, t: CType, v: u64) -> Value {
        let m = if t.bits() >= 64 {
            u64::MAX
        } else {
            (1u64 << t.bits()) - 1
        };
        self.b.ins().iconst(t, (v & m) as i64)
    }

    /// Whether [`Self::gen_bits`] emits instruction `i` inline (op and operand widths).
    pub(super) fn bits_inline(&self, i: ir::Inst) -> bool {
        let d = self.f.inst(i);
        let Some(&res) = d.results.first() else {
            return false;
        };
        let rt = self.ty(res);
        let at = |k: usize| d.args.get(k).map(|&a| self.ty(a));
        let i32_ = Some(ir::Type::I32);
        let wide = |t: Option<ir::Type>| matches!(t, Some(ir::Type::I32 | ir::Type::I64));
        match d.op {
            Op::Lop3 { .. } => wide(Some(rt)) && (0..3).all(|k| at(k) == Some(rt)),
            Op::Brev {} => wide(Some(rt)) && at(0) == Some(rt),
            Op::Bfind { .. } => rt == ir::Type::I32 && wide(at(0)),
            Op::Bfe { .. } => wide(Some(rt)) && at(0) == Some(rt) && at(1) == i32_ && at(2) == i32_,
            Op::Bfi {} => wide(Some(rt)) && at(0) == Some(rt) && at(1) == Some(rt) && at(2) == i32_,
            Op::Shf { .. } | Op::Prmt { .. } => {
                rt == ir::Type::I32 && (0..3).all(|k| at(k) == i32_)
            }
            Op::Bmsk { .. } | Op::Szext { .. } => {
                rt == ir::Type::I32 && at(0) == i32_ && at(1) == i32_
            }
            _ => false,
        }
    }

    /// `lop3` with truth table `lut` on scalars or vectors: a select by `a` between the two
    /// functions of (b, c) that the table's halves give.
    fn lop3_val(&mut self, lut: u8, a: Value, b: Value, c: Value) -> Value {
        let hi = self.lut2(lut >> 4, b, c);
        let lo = self.lut2(lut & 0xf, b, c);
        match (hi, lo) {
            (Ok(h), Ok(l)) if h == l => h,
            (Err(true), Err(false)) => a,
            (Err(false), Err(true)) => self.b.ins().bnot(a),
            (Err(false), Err(false)) => self.zero_like(a),
            (Err(true), Err(true)) => {
                let z = self.zero_like(a);
                self.b.ins().bnot(z)
            }
            (Err(false), Ok(l)) => self.b.ins().band_not(l, a),
            (Ok(h), Err(false)) => self.b.ins().band(h, a),
            (Err(true), Ok(l)) => self.b.ins().bor(a, l),
            (Ok(h), Err(true)) => {
                let na = self.b.ins().bnot(a);
                self.b.ins().bor(na, h)
            }
            (Ok(h), Ok(l)) => {
                let x = self.b.ins().band(h, a);
                let y = self.b.ins().band_not(l, a);
                self.b.ins().bor(x, y)
            }
        }
    }

    /// A zero of `x`'s type (scalar or vector).
    fn zero_like(&mut self, x: Value) -> Value {
        let t = self.b.func.dfg.value_type(x);
        if t.is_vector() {
            let c = self
                .b
                .func
                .dfg
                .constants
                .insert(ConstantData::from(vec![0u8; 16]));
            self.b.ins().vconst(t, c)
        } else {
            self.b.ins().iconst(t, 0)
        }
    }

    /// The function of (b, c) with the 4-bit truth table `t` (bit `b << 1 | c`); `Err(k)` for
    /// the constants all-zeros (`false`) and all-ones (`true`).
    fn lut2(&mut self, t: u8, b: Value, c: Value) -> Result<Value, bool> {
        Ok(match t & 0xf {
            0x0 => return Err(false),
            0xf => return Err(true),
            0xa => c,
            0xc => b,
            0x5 => self.b.ins().bnot(c),
            0x3 => self.b.ins().bnot(b),
            0x8 => self.b.ins().band(b, c),
            0xe => self.b.ins().bor(b, c),
            0x6 => self.b.ins().bxor(b, c),
            0x9 => {
                let x = self.b.ins().bxor(b, c);
                self.b.ins().bnot(x)
            }
            0x7 => {
                let x = self.b.ins().band(b, c);
                self.b.ins().bnot(x)
            }
            0x1 => {
                let x = self.b.ins().bor(b, c);
                self.b.ins().bnot(x)
            }
            0x2 => self.b.ins().band_not(c, b),
            0x4 => self.b.ins().band_not(b, c),
            0xb => {
                let nb = self.b.ins().bnot(b);
                self.b.ins().bor(nb, c)
            }
            // 0xd: b | !c
            _ => {
                let nc = self.b.ins().bnot(c);
                self.b.ins().bor(b, nc)
            }
        })
    }

    /// The shift amounts of `bfe` on a `bits`-wide value: `(left, right, zero)` such that the
    /// result is `(a << left) >> right` (arithmetic when signed), or 0 where `zero` (`i8`).
    /// `pos`, `len` are `i32` (their low 8 bits count, `bits::bfe`).
    ///
    /// With p = min(pos, msb) and w = min(len, bits - p): the field is bits p..p+w-1, its top
    /// bit the sign bit `bits::bfe` replicates (position min(pos + len - 1, msb)); a position
    /// past the msb gives w = 1 at the msb, which is the replicated sign (and 0 when unsigned).
    fn bfe_amounts(&mut self, pos: Value, len: Value, bits: u32, sign: Sign) -> [Value; 3] {
        let pos = self.b.ins().band_imm_s(pos, 0xff);
        let len = self.b.ins().band_imm_s(len, 0xff);
        let msb = self.kconst(types::I32, bits as u64 - 1);
        let p = self.b.ins().umin(pos, msb);
        let bw = self.kconst(types::I32, bits as u64);
        let room = self.b.ins().isub(bw, p);
        let w = self.b.ins().umin(len, room);
        let pw = self.b.ins().iadd(p, w);
        let left = self.b.ins().isub(bw, pw);
        let right = self.b.ins().isub(bw, w);
        let mut zero = self.b.ins().icmp_imm_s(IntCC::Equal, len, 0);
        if sign == Sign::Unsigned {
            let past = self.b.ins().icmp(IntCC::UnsignedGreaterThan, pos, msb);
            zero = self.b.ins().bor(zero, past);
        }
        [left, right, zero]
    }

    /// The count of `shf` (`i32`): min(c, 32) with `.clamp`, c & 31 with `.wrap`.
    fn shf_count(&mut self, c: Value, clamp: bool) -> Value {
        if clamp {
            let k = self.kconst(types::I32, 32);
            self.b.ins().umin(c, k)
        } else {
            self.b.ins().band_imm_s(c, 31)
        }
    }

    /// Instruction `i` for one lane, inline (only where [`Self::bits_inline`] holds).
    pub(super) fn gen_bits(&mut self, i: ir::Inst, argv: &[Value]) -> Result<Value, String> {
        let d = self.f.inst(i).clone();
        let res = *d.results.first().ok_or("bit op without a result")?;
        let rt = self.ty(res);
        let ct = ctype(rt);
        let bits = rt.bits();
        let arg = |k: usize| -> Result<Value, String> {
            argv.get(k)
                .copied()
                .ok_or_else(|| format!("{i}: missing operand {k}"))
        };
        Ok(match d.op {
            Op::Lop3 { lut } => self.lop3_val(lut, arg(0)?, arg(1)?, arg(2)?),
            Op::Brev {} => self.b.ins().bitrev(arg(0)?),
            Op::Bfind { sign, shiftamt } => {
                let a = arg(0)?;
                let at = self.ty(d.args[0]);
                let x = match sign {
                    // A negative number: the highest clear bit, i.e. the highest set bit of !a.
                    Sign::Signed => {
                        let s = self.b.ins().sshr_imm_s(a, at.bits() as i64 - 1);
                        self.b.ins().bxor(a, s)
                    }
                    Sign::Unsigned => a,
                };
                let lz = self.b.ins().clz(x);
                let lz = if at == ir::Type::I64 {
                    self.b.ins().ireduce(types::I32, lz)
                } else {
                    lz
                };
                let r = if shiftamt {
                    lz
                } else {
                    let msb = self.kconst(types::I32, at.bits() as u64 - 1);
                    self.b.ins().isub(msb, lz)
                };
                let none = self.b.ins().icmp_imm_s(IntCC::Equal, x, 0);
                let ones = self.kconst(types::I32, u64::MAX);
                self.b.ins().select(none, ones, r)
            }
            Op::Bfe { sign } => {
                let a = arg(0)?;
                let [l, r, zero] = self.bfe_amounts(arg(1)?, arg(2)?, bits, sign);
                let x = self.b.ins().ishl(a, l);
                let y = match sign {
                    Sign::Signed => self.b.ins().sshr(x, r),
                    Sign::Unsigned => self.b.ins().ushr(x, r),
                };
                let z = self.kconst(ct, 0);
                self.b.ins().select(zero, z, y)
            }
            Op::Bfi {} => {
                // pos > msb or len = 0: b; else the low w = min(len, bits - pos) bits of a
                // replace bits pos..pos+w-1 of b.
                let (a, b, pl) = (arg(0)?, arg(1)?, arg(2)?);
                let (p, m, same) = self.bfi_field(pl, bits as u64, ct);
                let ap = self.b.ins().ishl(a, p);
                let ins = self.b.ins().band(ap, m);
                let keep = self.b.ins().band_not(b, m);
                let f = self.b.ins().bor(keep, ins);
                self.b.ins().select(same, b, f)
            }
            Op::Shf { left, clamp } => {
                // The 64-bit b:a shifted by n ≤ 32.
                let (a, b, c) = (arg(0)?, arg(1)?, arg(2)?);
                let n = self.shf_count(c, clamp);
                let a64 = self.b.ins().uextend(types::I64, a);
                let b64 = self.b.ins().uextend(types::I64, b);
                let hi = self.b.ins().ishl_imm_s(b64, 32);
                let v = self.b.ins().bor(hi, a64);
                let r = if left {
                    let s = self.b.ins().ishl(v, n);
                    self.b.ins().ushr_imm_s(s, 32)
                } else {
                    self.b.ins().ushr(v, n)
                };
                self.b.ins().ireduce(types::I32, r)
            }
            Op::Prmt { mode } => {
                let (a, b) = (arg(0)?, arg(1)?);
                let a64 = self.b.ins().uextend(types::I64, a);
                let b64 = self.b.ins().uextend(types::I64, b);
                let hi = self.b.ins().ishl_imm_s(b64, 32);
                let v = self.b.ins().bor(hi, a64);
                match self.const_of(d.args[2], false) {
                    Some(c) => self.prmt_const(v, prmt_table(c as u64, mode)),
                    None => {
                        let c = arg(2)?;
                        self.prmt_var(v, c, mode)
                    }
                }
            }
            Op::Bmsk { clamp } => {
                // bits::bmsk: mask0 & !mask1 with mask0 = ones << a1 and mask1 = ones << (a1 +
                // b1), where a sum past 31 (or, with .clamp, a or b past 31) clears mask1 and
                // b1 = 0 sets it.
                let (a, b) = (arg(0)?, arg(1)?);
                let a1 = self.b.ins().band_imm_s(a, 31);
                let b1 = self.b.ins().band_imm_s(b, 31);
                let ones = self.kconst(types::I32, u64::MAX);
                let zero = self.kconst(types::I32, 0);
                let mut mask0 = self.b.ins().ishl(ones, a1);
                let sum = self.b.ins().iadd(a1, b1);
                let mut kill = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, sum, 32);
                if clamp {
                    let pa = self
                        .b
                        .ins()
                        .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, a, 32);
                    let pb = self
                        .b
                        .ins()
                        .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, b, 32);
                    mask0 = self.b.ins().select(pa, zero, mask0);
                    let k = self.b.ins().bor(pa, pb);
                    kill = self.b.ins().bor(kill, k);
                }
                let m1 = self.b.ins().ishl(ones, sum);
                let b0 = self.b.ins().icmp_imm_s(IntCC::Equal, b1, 0);
                let m1 = self.b.ins().select(b0, ones, m1);
                let m1 = self.b.ins().select(kill, zero, m1);
                self.b.ins().band_not(mask0, m1)
            }
            Op::Szext { clamp, sign } => {
                // bits::szext: the low b1 = b & 31 bits of a, the rest zero or copies of bit
                // b1 - 1 (a width of 0, or with .clamp one past 31, extends nothing).
                let (a, b) = (arg(0)?, arg(1)?);
                let b1 = self.b.ins().band_imm_s(b, 31);
                let ones = self.kconst(types::I32, u64::MAX);
                let zero = self.kconst(types::I32, 0);
                let mut mask = self.b.ins().ishl(ones, b1);
                let mut none = self.b.ins().icmp_imm_s(IntCC::Equal, b1, 0);
                if clamp {
                    let big = self
                        .b
                        .ins()
                        .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, b, 32);
                    mask = self.b.ins().select(big, zero, mask);
                    none = self.b.ins().bor(none, big);
                }
                let low = self.b.ins().band_not(a, mask);
                match sign {
                    Sign::Unsigned => low,
                    Sign::Signed => {
                        let sp = self.b.ins().iadd_imm_s(b1, -1);
                        let sp = self.b.ins().band_imm_s(sp, 31);
                        let s = self.b.ins().ushr(a, sp);
                        let s = self.b.ins().band_imm_s(s, 1);
                        let s = self.b.ins().select(none, zero, s);
                        let fill = self.b.ins().ineg(s);
                        let fill = self.b.ins().band(fill, mask);
                        self.b.ins().bor(low, fill)
                    }
                }
            }
            _ => return Err(format!("{i}: not an inline bit operation")),
        })
    }

    /// `prmt` of the 64-bit `v` = b:a with a known byte table.
    fn prmt_const(&mut self, v: Value, t: [(u8, bool); 4]) -> Value {
        let mut r: Option<Value> = None;
        for (i, &(k, sign)) in t.iter().enumerate() {
            let x = self.b.ins().ushr_imm_s(v, 8 * k as i64);
            let x = self.b.ins().ireduce(types::I32, x);
            let x = if sign {
                // 0xff or 0 by the byte's msb.
                let s = self.b.ins().ishl_imm_s(x, 24);
                self.b.ins().sshr_imm_s(s, 31)
            } else {
                x
            };
            let x = self.b.ins().band_imm_s(x, 0xff);
            let x = if i > 0 {
                self.b.ins().ishl_imm_s(x, 8 * i as i64)
            } else {
                x
            };
            r = Some(match r {
                Some(acc) => self.b.ins().bor(acc, x),
                None => x,
            });
        }
        r.unwrap_or(v)
    }

    /// `prmt` of the 64-bit `v` = b:a with a run-time selector `c` (`i32`): each result
    /// byte's source index as `bits::prmt` computes it.
    fn prmt_var(&mut self, v: Value, c: Value, mode: PrmtMode) -> Value {
        let sel = self.b.ins().band_imm_s(c, 3);
        let mut r: Option<Value> = None;
        for i in 0..4i64 {
            let (idx, sign) = match mode {
                PrmtMode::Generic => {
                    let n = self.b.ins().ushr_imm_s(c, 4 * i);
                    (
                        self.b.ins().band_imm_s(n, 7),
                        Some(self.b.ins().band_imm_s(n, 8)),
                    )
                }
                PrmtMode::F4e => (self.b.ins().iadd_imm_s(sel, i), None),
                PrmtMode::B4e => {
                    let x = self.b.ins().iadd_imm_s(sel, -i);
                    (self.b.ins().band_imm_s(x, 7), None)
                }
                PrmtMode::Rc8 => (sel, None),
                PrmtMode::Ecl => {
                    let k = self.kconst(types::I32, i as u64);
                    (self.b.ins().umax(sel, k), None)
                }
                PrmtMode::Ecr => {
                    let k = self.kconst(types::I32, i as u64);
                    (self.b.ins().umin(sel, k), None)
                }
                PrmtMode::Rc16 => {
                    let x = self.b.ins().band_imm_s(sel, 1);
                    let x = self.b.ins().ishl_imm_s(x, 1);
                    (self.b.ins().iadd_imm_s(x, i & 1), None)
                }
            };
            let sh = self.b.ins().ishl_imm_s(idx, 3);
            let x = self.b.ins().ushr(v, sh);
            let x = self.b.ins().ireduce(types::I32, x);
            let x = self.b.ins().band_imm_s(x, 0xff);
            let x = match sign {
                Some(s) => {
                    let t = self.b.ins().ishl_imm_s(x, 24);
                    let t = self.b.ins().sshr_imm_s(t, 31);
                    let t = self.b.ins().band_imm_s(t, 0xff);
                    self.b.ins().select(s, t, x)
                }
                None => x,
            };
            let x = if i > 0 {
                self.b.ins().ishl_imm_s(x, 8 * i)
            } else {
                x
            };
            r = Some(match r {
                Some(acc) => self.b.ins().bor(acc, x),
                None => x,
            });
        }
        r.unwrap_or(v)
    }

    /// The SIMD form of a bit operation for a group, where it has one: `lop3` (32/64-bit),
    /// `popc` (32-bit), `prmt` with a constant selector, `shf` and `bfe` (32-bit) with counts
    /// uniform in the block, `bfi` (32/64-bit) with a position and length uniform there. `None`: the caller runs the lanes one by one (inline still).
    pub(super) fn vec_bits(
        &mut self,
        grp: &mut Grp,
        i: ir::Inst,
        args: &[GVal],
    ) -> Result<Option<GVal>, String> {
        let d = self.f.inst(i).clone();
        let Some(&res) = d.results.first() else {
            return Ok(None);
        };
        let rt = self.ty(res);
        let blk = self.block_of(i);
        let uniform = |g: &Self, k: usize| g.uni.uniform_at(d.args[k], blk);
        match d.op {
            Op::Lop3 { lut } if self.bits_inline(i) => {
                Ok(Some(match (args[0], args[1], args[2]) {
                    (GVal::V1(a), GVal::V1(b), GVal::V1(c)) => {
                        GVal::V1(self.lop3_val(lut, a, b, c))
                    }
                    (GVal::V2(a0, a1), GVal::V2(b0, b1), GVal::V2(c0, c1)) => GVal::V2(
                        self.lop3_val(lut, a0, b0, c0),
                        self.lop3_val(lut, a1, b1, c1),
                    ),
                    _ => return Ok(None),
                }))
            }
            Op::Popc {} if self.ty(d.args[0]) == ir::Type::I32 => {
                // Bytes' counts (`popcnt` on i8x16), summed into each 32-bit lane's top byte
                // by a multiply with 0x01010101 (at most 32: no carry between bytes).
                let GVal::V1(a) = args[0] else {
                    return Ok(None);
                };
                let a8 = self.vbitcast(a, types::I8X16);
                let c8 = self.b.ins().popcnt(a8);
                let c32 = self.vbitcast(c8, types::I32X4);
                let k = self.kconst(types::I32, 0x0101_0101);
                let k = self.b.ins().splat(types::I32X4, k);
                let s = self.b.ins().imul(c32, k);
                Ok(Some(GVal::V1(self.b.ins().ushr_imm_s(s, 24))))
            }
            Op::Prmt { mode } if self.bits_inline(i) => {
                let Some(c) = self.const_of(d.args[2], false) else {
                    return Ok(None);
                };
                let (GVal::V1(a), GVal::V1(b)) = (args[0], args[1]) else {
                    return Ok(None);
                };
                Ok(Some(GVal::V1(self.vprmt_const(
                    a,
                    b,
                    prmt_table(c as u64, mode),
                ))))
            }
            Op::Shf { left, clamp } if self.bits_inline(i) && uniform(self, 2) => {
                let (GVal::V1(a), GVal::V1(b)) = (args[0], args[1]) else {
                    return Ok(None);
                };
                let c = self.first_active(grp, args[2]);
                let n = self.shf_count(c, clamp);
                // n in 1..31: (b << n | a >> 32 - n) to the left, (a >> n | b << 32 - n) to
                // the right; n = 0 and n = 32 pick b or a whole.
                let k32 = self.kconst(types::I32, 32);
                let m = self.b.ins().isub(k32, n);
                let (hi, lo) = if left { (b, a) } else { (a, b) };
                let x = if left {
                    self.b.ins().ishl(hi, n)
                } else {
                    self.b.ins().ushr(hi, n)
                };
                let y = if left {
                    self.b.ins().ushr(lo, m)
                } else {
                    self.b.ins().ishl(lo, m)
                };
                let mid = self.b.ins().bor(x, y);
                let z = self.b.ins().icmp_imm_s(IntCC::Equal, n, 0);
                let f = self.b.ins().icmp_imm_s(IntCC::Equal, n, 32);
                let r = self.b.ins().select(z, hi, mid);
                Ok(Some(GVal::V1(self.b.ins().select(f, lo, r))))
            }
            Op::Bfi {} if self.bits_inline(i) && uniform(self, 2) => {
                // The scalar form's field mask and position, once; then per vector
                // (b & !m) | (a << p & m), or b where the field is empty.
                let bits = rt.bits();
                let ct = ctype(rt);
                let pl = self.first_active(grp, args[2]);
                let (p, m, same) = self.bfi_field(pl, bits as u64, ct);
                let one = |g: &mut Self, a: Value, b: Value| -> Value {
                    let vt = g.b.func.dfg.value_type(a);
                    let mv = g.b.ins().splat(vt, m);
                    let ap = g.b.ins().ishl(a, p);
                    let ins = g.b.ins().band(ap, mv);
                    let keep = g.b.ins().band_not(b, mv);
                    let f = g.b.ins().bor(keep, ins);
                    g.b.ins().select(same, b, f)
                };
                Ok(Some(match (args[0], args[1]) {
                    (GVal::V1(a), GVal::V1(b)) if rt == ir::Type::I32 => GVal::V1(one(self, a, b)),
                    (GVal::V2(a0, a1), GVal::V2(b0, b1)) if rt == ir::Type::I64 => {
                        GVal::V2(one(self, a0, b0), one(self, a1, b1))
                    }
                    _ => return Ok(None),
                }))
            }
            Op::Bfe { sign } if rt == ir::Type::I32 && self.bits_inline(i) => {
                if !uniform(self, 1) || !uniform(self, 2) {
                    return Ok(None);
                }
                let GVal::V1(a) = args[0] else {
                    return Ok(None);
                };
                let pos = self.first_active(grp, args[1]);
                let len = self.first_active(grp, args[2]);
                let [l, r, zero] = self.bfe_amounts(pos, len, 32, sign);
                let x = self.b.ins().ishl(a, l);
                let y = match sign {
                    Sign::Signed => self.b.ins().sshr(x, r),
                    Sign::Unsigned => self.b.ins().ushr(x, r),
                };
                let z = self.zero_like(y);
                Ok(Some(GVal::V1(self.b.ins().select(zero, z, y))))
            }
            _ => Ok(None),
        }
    }

    /// `prmt` of four lanes (`i32x4` a and b) with a known byte table: one byte shuffle of
    /// the two vectors, then the sign-replicated bytes.
    fn vprmt_const(&mut self, a: Value, b: Value, t: [(u8, bool); 4]) -> Value {
        let a8 = self.vbitcast(a, types::I8X16);
        let b8 = self.vbitcast(b, types::I8X16);
        let mut idx = [0u8; 16];
        let mut signs = [0u8; 16];
        for l in 0..4u8 {
            for (i, &(k, s)) in t.iter().enumerate() {
                let src = if k < 4 { 4 * l + k } else { 16 + 4 * l + k - 4 };
                idx[4 * l as usize + i] = src;
                signs[4 * l as usize + i] = if s { 0xff } else { 0 };
            }
        }
        let imm = self
            .b
            .func
            .dfg
            .immediates
            .push(ConstantData::from(idx.to_vec()));
        let mut r = self.b.ins().shuffle(a8, b8, imm);
        if signs.iter().any(|&s| s != 0) {
            let ext = self.b.ins().sshr_imm_s(r, 7);
            let c = self
                .b
                .func
                .dfg
                .constants
                .insert(ConstantData::from(signs.to_vec()));
            let m = self.b.ins().vconst(types::I8X16, c);
            r = self.b.ins().bitselect(m, ext, r);
        }
        self.vbitcast(r, types::I32X4)
    }
}
