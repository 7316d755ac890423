//! Integer arithmetic (PTX ISA §9.7.1) and extended-precision arithmetic (§9.7.2): the
//! integer forms of `add`, `sub`, `mul`, `mad`, `div`, `rem`, `min`, `max`, `abs`, `neg`, and
//! `mul24`, `mad24`, `sad`, `popc`, `clz`, the bit-field instructions, `dp4a`/`dp2a`, and the
//! carry forms (`.cc`, `addc`, `subc`, `madc`).
//!
//! PTX's condition code (CC.CF, §9.7.2) is a hidden predicate variable of the kernel, named
//! `CC.CF` (not a legal PTX identifier): `.cc` forms write it, `addc`/`subc`/`madc` read it.
//! Read before any write, it is 0.

use super::*;

/// The integer type kinds an instruction takes, from its type list in the PTX ISA
/// (§9.7.1-2, §9.7.8): `.u`/`.s` for arithmetic, `.s` alone for `neg`/`abs`, `.b` for bit
/// operations (with `.pred` for the boolean ones), any of them for `shr`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum IntKinds {
    /// `.uN`, `.sN` (`add`, `mul`, `div`, `min`, `sad`, `bfind`, `bfe` ...).
    Arith,
    /// `.sN` (`neg`, `abs`).
    Signed,
    /// `.bN` (`shl`, `cnot`, `popc`, `clz`, `brev`, `bfi`).
    Bits,
    /// `.bN`, `.pred` (`and`, `or`, `xor`, `not`).
    BitsPred,
    /// `.bN`, `.uN`, `.sN` (`shr`).
    All,
}

/// Rejects an integer type of a kind the instruction does not take, as ptxas 12.9 does
/// ("Unexpected instruction types specified for 'add'"): `add.b32`, `and.u32`, `shl.s32`,
/// `neg.u32` are load errors, not silently the same bits. Float and half types are left to
/// the instruction's other checks.
pub(super) fn check_int_kinds(cx: &Cx, kinds: IntKinds) -> Result<(), LowerError> {
    use ast::ScalarType::*;
    let t = cx.ty()?;
    let ok = match t {
        B8 | B16 | B32 | B64 | B128 => {
            matches!(kinds, IntKinds::Bits | IntKinds::BitsPred | IntKinds::All)
        }
        U8 | U16 | U32 | U64 => matches!(kinds, IntKinds::Arith | IntKinds::All),
        S8 | S16 | S32 | S64 => kinds != IntKinds::Bits && kinds != IntKinds::BitsPred,
        Pred => kinds == IntKinds::BitsPred,
        F16 | Bf16 | F32 | F64 | F16x2 | Bf16x2 | TexRef | SamplerRef | SurfRef => true,
    };
    if ok {
        return Ok(());
    }
    let takes = match kinds {
        IntKinds::Arith => "unsigned (.u) and signed (.s) integer types",
        IntKinds::Signed => "signed integer types (.s16, .s32, .s64)",
        IntKinds::Bits => "bit types (.b16, .b32, .b64)",
        IntKinds::BitsPred => "bit types (.b16, .b32, .b64) and .pred",
        IntKinds::All => "integer types",
    };
    let op = cx.inst.opcode.name.as_str();
    let t = format!("{t:?}").to_lowercase();
    Err(cx.bad(&format!("'{op}' takes {takes}, not .{t}")))
}

/// `add`/`sub` on integer types (§9.7.1.1-2): wrapping, or saturating with `.sat.s32`
/// (and, from PTX ISA 9.2, `add.sat.u32`); `add.u16x2`/`add.s16x2` (PTX ISA 8.0, sm_90) add
/// the two 16-bit halves of `.b32` operands each on its own, wrapping (the same bits for
/// either sign; `sub` has no such form), and `add.sat.u16x2`/`add.sat.s16x2` (PTX ISA 9.2)
/// clamp each half's sum to the half's range ("`.sat` limits result to MININT..MAXINT (no
/// overflow) for the size and signedness of the operation"). `.u8x4`/`.s8x4` (PTX ISA 9.2)
/// work the same on four bytes, with or without `.sat`, for `add` and `sub`. Rounding and the
/// other float modifiers are rejected before (`table::check_modifiers`).
pub(super) fn add_sub(b: &mut Builder, cx: &mut Cx) -> R {
    let op = cx.inst.opcode.name.as_str();
    if let Some(sign) = int_x4(cx) {
        let (lo, hi) = byte_range(sign);
        let sat = cx.has("sat");
        let o = if op == "add" {
            Op::IAdd {}
        } else {
            Op::ISub {}
        };
        return per_byte(b, cx, 2, sign, &|b, cx, a| {
            let r = b.op1(cx, o, vec![a[0], a[1]], Type::I32);
            if sat {
                clamp_i32(b, cx, r, lo, hi)
            } else {
                r
            }
        });
    }
    if let Some(sign) = int_x2(cx) {
        if op != "add" {
            return Err(cx.bad(".u16x2/.s16x2 apply to add, not sub"));
        }
        x2_registers(cx, 2)?;
        if cx.has("sat") {
            return b.per_half(cx, true, 2, &|b, cx, a| {
                add_sat_narrow(b, cx, a[0], a[1], sign)
            });
        }
        return b.per_half(cx, true, 2, &|b, cx, a| {
            b.op1(cx, Op::IAdd {}, vec![a[0], a[1]], Type::I16)
        });
    }
    if cx.has("sat") {
        return int_addsub(b, cx, op);
    }
    check_int_kinds(cx, IntKinds::Arith)?;
    cx.expect_operands(3)?;
    let (ty, _, _) = int_or_float(cx)?;
    let x = b.src(cx, 1, ty)?;
    let y = b.src(cx, 2, ty)?;
    let o = if op == "add" {
        Op::IAdd {}
    } else {
        Op::ISub {}
    };
    b.unary_to_dst(cx, o, vec![x, y], ty)
}

/// `mul`/`mad` on integer types (§9.7.1.3-4): `.lo`, `.hi`, `.wide`; `mad.hi.sat.s32`.
pub(super) fn mul_mad(b: &mut Builder, cx: &mut Cx) -> R {
    let op = cx.inst.opcode.name.as_str();
    if op == "mad" && cx.has("sat") {
        return int_mad_cc(b, cx, op);
    }
    check_int_kinds(cx, IntKinds::Arith)?;
    let n = if op == "mul" { 3 } else { 4 };
    cx.expect_operands(n)?;
    let (ty, sign, _) = int_or_float(cx)?;
    if cx.has("sat") {
        return Err(cx.bad("integer mul takes no .sat"));
    }
    // The integer forms name the half of the product they keep.
    if !(cx.has("lo") || cx.has("hi") || cx.has("wide")) {
        return Err(cx.bad("integer mul/mad needs .lo, .hi or .wide"));
    }
    let x = b.src(cx, 1, ty)?;
    let y = b.src(cx, 2, ty)?;
    let (prod, pty) = if cx.has("wide") {
        let wt = match ty {
            Type::I16 => Type::I32,
            Type::I32 => Type::I64,
            _ => return Err(cx.bad(".wide needs a 16- or 32-bit type")),
        };
        (
            b.emit1(Op::IMulWide { sign }, vec![x, y], wt, cx.loc, &cx.ptx),
            wt,
        )
    } else if cx.has("hi") {
        (
            b.emit1(Op::IMulHi { sign }, vec![x, y], ty, cx.loc, &cx.ptx),
            ty,
        )
    } else {
        (b.emit1(Op::IMul {}, vec![x, y], ty, cx.loc, &cx.ptx), ty)
    };
    if op == "mul" {
        let d = b.dst(cx, 0, pty)?;
        if let Some(d) = d {
            b.copy(d, prod, cx.loc, &cx.ptx);
        }
        return Ok(());
    }
    let z = b.src(cx, 3, pty)?;
    b.unary_to_dst(cx, Op::IAdd {}, vec![prod, z], pty)
}

/// `div`, `rem`, `min`, `max` on integer types (§9.7.1.8-9, §9.7.1.12-13); `min`/`max` also
/// `.relu.s32` and the packed `.u16x2`/`.s16x2` forms.
pub(super) fn div_rem_min_max(b: &mut Builder, cx: &mut Cx) -> R {
    let op = cx.inst.opcode.name.as_str();
    let minmax = matches!(op, "min" | "max");
    if let (true, Some(sign)) = (minmax, int_x4(cx)) {
        return int_minmax_x4(b, cx, sign, op == "max");
    }
    if minmax && int_x2(cx).is_some() {
        return int_minmax_x2(b, cx, op == "max");
    }
    if minmax && cx.has("relu") {
        return int_minmax_relu(b, cx, op == "max");
    }
    check_int_kinds(cx, IntKinds::Arith)?;
    cx.expect_operands(3)?;
    let (ty, sign, _) = int_or_float(cx)?;
    let x = b.src(cx, 1, ty)?;
    let y = b.src(cx, 2, ty)?;
    let o = match op {
        "div" => Op::IDiv { sign },
        "rem" => Op::IRem { sign },
        "min" => Op::IMin { sign },
        _ => Op::IMax { sign },
    };
    b.unary_to_dst(cx, o, vec![x, y], ty)
}

/// `neg`, `abs` on signed integers (§9.7.1.10-11), wrapping.
pub(super) fn neg_abs(b: &mut Builder, cx: &mut Cx) -> R {
    if let Some(sign) = int_x4(cx) {
        if cx.inst.opcode.name != "neg" {
            return Err(cx.bad("abs takes no .u8x4/.s8x4 (neg.s8x4 does)"));
        }
        return neg_x4(b, cx, sign);
    }
    check_int_kinds(cx, IntKinds::Signed)?;
    cx.expect_operands(2)?;
    let (ty, _, _) = int_or_float(cx)?;
    let x = b.src(cx, 1, ty)?;
    let o = if cx.inst.opcode.name == "neg" {
        Op::INeg {}
    } else {
        Op::IAbs {}
    };
    b.unary_to_dst(cx, o, vec![x], ty)
}

/// `popc`, `clz` (§9.7.1.14-15): `.b32`, `.b64`; the result is 32 bits.
pub(super) fn popc_clz(b: &mut Builder, cx: &mut Cx) -> R {
    check_int_kinds(cx, IntKinds::Bits)?;
    cx.expect_operands(2)?;
    let (ty, _, float) = int_or_float(cx)?;
    if float || ty == Type::Pred || ty.bits() < 32 {
        return Err(cx.bad("needs .b32 or .b64"));
    }
    let x = b.src(cx, 1, ty)?;
    b.check_u32_operand(cx, 0)?;
    let o = if cx.inst.opcode.name == "popc" {
        Op::Popc {}
    } else {
        Op::Clz {}
    };
    b.unary_to_dst(cx, o, vec![x], Type::I32)
}

pub(super) fn int_addsub(b: &mut Builder, cx: &mut Cx, op: &str) -> R {
    check_int_kinds(cx, IntKinds::Arith)?;
    cx.expect_operands(3)?;
    let (ty, sign, float) = int_or_float(cx)?;
    if float || ty == Type::Pred {
        return Err(cx.bad("needs an integer type"));
    }
    let x = b.src(cx, 1, ty)?;
    let y = b.src(cx, 2, ty)?;
    let sub = op.starts_with("sub");
    if cx.has("sat") {
        if ty == Type::I32 && sign == Sign::Unsigned && !sub && !cx.has("cc") {
            // `add.sat.u32` (PTX ISA 9.2): the sum of the zero-extended operands, clamped
            // to 0..=0xffffffff.
            let x = b.op1(cx, ext_op(CvtType::U64, CvtType::U32), vec![x], Type::I64);
            let y = b.op1(cx, ext_op(CvtType::U64, CvtType::U32), vec![y], Type::I64);
            let s = b.op1(cx, Op::IAdd {}, vec![x, y], Type::I64);
            let r = b.op1(cx, sat_op(CvtType::U32, CvtType::U64), vec![s], Type::I32);
            return b.write(cx, 0, r, Type::I32);
        }
        // PTX ISA §9.7.1.1-2: .sat applies to .s32, and for add also to .u32 (above).
        if ty != Type::I32 || sign != Sign::Signed || cx.has("cc") {
            return Err(cx.bad(if sub {
                ".sat needs .s32"
            } else {
                ".sat needs .s32 or .u32"
            }));
        }
        let o = if sub { Op::ISubSat {} } else { Op::IAddSat {} };
        return b.unary_to_dst(cx, o, vec![x, y], ty);
    }
    if ty.bits() < 32 {
        return Err(cx.bad("extended-precision arithmetic needs a 32- or 64-bit type"));
    }
    let carry_in = op == "addc" || op == "subc";
    let cf = b.cc_flag();
    // `sub.cc` is `subc` with the carry set (a + !b + 1): see `runtime::bits::add_carry`.
    let cin = if carry_in {
        cf
    } else {
        b.konst(cx, Type::Pred, sub as u64)
    };
    let r = b.op1(cx, Op::AddCarry { sub }, vec![x, y, cin], ty);
    if cx.has("cc") {
        let c = b.op1(cx, Op::CarryOut { sub }, vec![x, y, cin], Type::Pred);
        cx.writes.push((cf, c));
    }
    b.write(cx, 0, r, ty)
}

/// `mad.cc`, `madc`, `mad.hi.sat.s32` (PTX ISA §9.7.1.4, §9.7.2.5-6).
pub(super) fn int_mad_cc(b: &mut Builder, cx: &mut Cx, op: &str) -> R {
    check_int_kinds(cx, IntKinds::Arith)?;
    cx.expect_operands(4)?;
    let (ty, sign, float) = int_or_float(cx)?;
    if float || ty == Type::Pred {
        return Err(cx.bad("needs an integer type"));
    }
    let x = b.src(cx, 1, ty)?;
    let y = b.src(cx, 2, ty)?;
    let z = b.src(cx, 3, ty)?;
    let hi = cx.has("hi");
    let prod = if hi {
        b.op1(cx, Op::IMulHi { sign }, vec![x, y], ty)
    } else {
        b.op1(cx, Op::IMul {}, vec![x, y], ty)
    };
    if cx.has("sat") {
        if !(hi && ty == Type::I32 && sign == Sign::Signed) || op == "madc" || cx.has("cc") {
            return Err(cx.bad(".sat needs mad.hi.sat.s32"));
        }
        return b.unary_to_dst(cx, Op::IAddSat {}, vec![prod, z], ty);
    }
    if ty.bits() < 32 {
        return Err(cx.bad("extended-precision arithmetic needs a 32- or 64-bit type"));
    }
    let cf = b.cc_flag();
    let cin = if op == "madc" {
        cf
    } else {
        b.konst(cx, Type::Pred, 0)
    };
    let r = b.op1(cx, Op::AddCarry { sub: false }, vec![prod, z, cin], ty);
    if cx.has("cc") {
        let c = b.op1(
            cx,
            Op::CarryOut { sub: false },
            vec![prod, z, cin],
            Type::Pred,
        );
        cx.writes.push((cf, c));
    }
    b.write(cx, 0, r, ty)
}

pub(super) fn mul24(b: &mut Builder, cx: &mut Cx, mad: bool) -> R {
    cx.expect_operands(if mad { 4 } else { 3 })?;
    let t = cx.ty()?;
    let sign = match t {
        ast::ScalarType::U32 => Sign::Unsigned,
        ast::ScalarType::S32 => Sign::Signed,
        _ => return Err(cx.bad("mul24/mad24 need .u32 or .s32")),
    };
    let hi = cx.has("hi");
    if !hi && !cx.has("lo") {
        return Err(cx.bad("mul24/mad24 need .hi or .lo"));
    }
    let x = b.src(cx, 1, Type::I32)?;
    let y = b.src(cx, 2, Type::I32)?;
    let p = b.op1(cx, Op::IMul24 { hi, sign }, vec![x, y], Type::I32);
    if !mad {
        return b.write(cx, 0, p, Type::I32);
    }
    let z = b.src(cx, 3, Type::I32)?;
    let o = if cx.has("sat") {
        if !(hi && sign == Sign::Signed) {
            return Err(cx.bad(".sat needs mad24.hi.sat.s32"));
        }
        Op::IAddSat {}
    } else {
        Op::IAdd {}
    };
    b.unary_to_dst(cx, o, vec![p, z], Type::I32)
}

pub(super) fn sad(b: &mut Builder, cx: &mut Cx) -> R {
    check_int_kinds(cx, IntKinds::Arith)?;
    cx.expect_operands(4)?;
    let (ty, sign, float) = int_or_float(cx)?;
    if float || ty == Type::Pred {
        return Err(cx.bad("sad needs an integer type"));
    }
    let x = b.src(cx, 1, ty)?;
    let y = b.src(cx, 2, ty)?;
    let z = b.src(cx, 3, ty)?;
    b.unary_to_dst(cx, Op::Sad { sign }, vec![x, y, z], ty)
}

pub(super) fn int_minmax_relu(b: &mut Builder, cx: &mut Cx, max: bool) -> R {
    cx.expect_operands(3)?;
    if cx.ty()? != ast::ScalarType::S32 {
        return Err(cx.bad(".relu needs .s32 or .s16x2"));
    }
    let x = b.src(cx, 1, Type::I32)?;
    let y = b.src(cx, 2, Type::I32)?;
    let sign = Sign::Signed;
    let m = if max {
        b.op1(cx, Op::IMax { sign }, vec![x, y], Type::I32)
    } else {
        b.op1(cx, Op::IMin { sign }, vec![x, y], Type::I32)
    };
    let z = b.konst(cx, Type::I32, 0);
    b.unary_to_dst(cx, Op::IMax { sign }, vec![m, z], Type::I32)
}

/// A 16-bit half of `add.sat.u16x2`/`add.sat.s16x2`: `x + y` in 32 bits (each extended by
/// `sign`, so the sum cannot overflow), then clamped to the half's range (`cvt.sat`).
fn add_sat_narrow(b: &mut Builder, cx: &Cx, x: Var, y: Var, sign: Sign) -> Var {
    let (narrow, wide) = match sign {
        Sign::Signed => (CvtType::S16, CvtType::S32),
        Sign::Unsigned => (CvtType::U16, CvtType::U32),
    };
    let x = b.op1(cx, ext_op(wide, narrow), vec![x], Type::I32);
    let y = b.op1(cx, ext_op(wide, narrow), vec![y], Type::I32);
    let s = b.op1(cx, Op::IAdd {}, vec![x, y], Type::I32);
    // The sum of two u16 is below 2^17, so reading it as .s32 keeps its value.
    b.op1(cx, sat_op(narrow, CvtType::S32), vec![s], Type::I16)
}

/// `cvt.dst.src` between integer types: extension by the source's signedness (or truncation).
fn ext_op(dst: CvtType, src: CvtType) -> Op {
    Op::Cvt {
        dst,
        src,
        rnd: CvtRound::None,
        sat: false,
        ftz: false,
    }
}

/// `cvt.sat.dst.src` between integer types: the source's value clamped to `dst`'s range.
fn sat_op(dst: CvtType, src: CvtType) -> Op {
    Op::Cvt {
        dst,
        src,
        rnd: CvtRound::None,
        sat: true,
        ftz: false,
    }
}

/// The sources of a `.u16x2`/`.s16x2` instruction are registers (ptxas: "Arguments mismatch"
/// for an immediate).
fn x2_registers(cx: &Cx, n: usize) -> R {
    packed_registers(cx, n, "a .u16x2/.s16x2 pair")
}

/// The `n` sources of a packed integer instruction are registers; `what` names the value in
/// the error.
fn packed_registers(cx: &Cx, n: usize, what: &str) -> R {
    for k in 1..=n {
        let op = cx.opnd(k)?;
        if !matches!(op, Operand::Reg { .. }) {
            return Err(LowerError::new(
                op.span(),
                format!("operand {k} of '{}' must be a register ({what})", cx.ptx),
            ));
        }
    }
    Ok(())
}

/// `.u8x4`/`.s8x4` (PTX ISA 9.2, §9.7.1.1-2, §9.7.1.11-13): the sign of the four bytes.
fn int_x4(cx: &Cx) -> Option<Sign> {
    packed_sign(cx, "u8x4", "s8x4")
}

/// The range of one byte of a `.u8x4`/`.s8x4` value.
fn byte_range(sign: Sign) -> (i64, i64) {
    match sign {
        Sign::Signed => (-128, 127),
        Sign::Unsigned => (0, 255),
    }
}

/// `x` (an i32, signed) clamped to `lo..=hi`.
fn clamp_i32(b: &mut Builder, cx: &Cx, x: Var, lo: i64, hi: i64) -> Var {
    let l = b.konst(cx, Type::I32, lo as u64);
    let h = b.konst(cx, Type::I32, hi as u64);
    let sign = Sign::Signed;
    let m = b.op1(cx, Op::IMax { sign }, vec![x, l], Type::I32);
    b.op1(cx, Op::IMin { sign }, vec![m, h], Type::I32)
}

/// A `.u8x4`/`.s8x4` instruction with `nargs` register sources: `f` computes each of the four
/// bytes on its own from the sources' bytes, each sign- or zero-extended to an i32 by `sign`;
/// the low 8 bits of each result are packed into the destination's `.b32` (byte `k` in bits
/// `8k+7..8k`, no carry between the bytes).
fn per_byte(
    b: &mut Builder,
    cx: &mut Cx,
    nargs: usize,
    sign: Sign,
    f: &dyn Fn(&mut Builder, &Cx, &[Var]) -> Var,
) -> R {
    let packed = cx
        .mods
        .iter()
        .filter(|m| matches!(**m, "u8x4" | "s8x4" | "u16x2" | "s16x2"))
        .count();
    if packed + cx.types().len() != 1 {
        return Err(cx.bad("a .u8x4/.s8x4 instruction takes one type"));
    }
    cx.expect_operands(nargs + 1)?;
    packed_registers(cx, nargs, "a .u8x4/.s8x4 value")?;
    let mut srcs = vec![];
    for k in 1..=nargs {
        srcs.push(b.src(cx, k, Type::I32)?);
    }
    let mask = b.konst(cx, Type::I32, 0xff);
    let mut out = None;
    for byte in 0..4u64 {
        let args: Vec<Var> = srcs
            .iter()
            .map(|&v| {
                // Byte `byte` to bits 31..24, then back down with the sign's shift.
                let up = b.konst(cx, Type::I32, 24 - 8 * byte);
                let t = b.op1(cx, Op::Shl {}, vec![v, up], Type::I32);
                let down = b.konst(cx, Type::I32, 24);
                b.op1(cx, Op::Shr { sign }, vec![t, down], Type::I32)
            })
            .collect();
        let r = f(b, cx, &args);
        let r = b.op1(cx, Op::And {}, vec![r, mask], Type::I32);
        let at = b.konst(cx, Type::I32, 8 * byte);
        let r = b.op1(cx, Op::Shl {}, vec![r, at], Type::I32);
        out = Some(match out {
            None => r,
            Some(acc) => b.op1(cx, Op::Or {}, vec![acc, r], Type::I32),
        });
    }
    let r = out.expect("four bytes");
    b.write(cx, 0, r, Type::I32)
}

/// `min`/`max` (§9.7.1.12-13) on `.u8x4`/`.s8x4` (PTX ISA 9.2): each byte's minimum or
/// maximum, with `.relu` (`.s8x4` only) clamping a negative one to 0.
fn int_minmax_x4(b: &mut Builder, cx: &mut Cx, sign: Sign, max: bool) -> R {
    let relu = cx.has("relu");
    if relu && sign != Sign::Signed {
        return Err(cx.bad(".relu needs .s8x4 (not .u8x4)"));
    }
    per_byte(b, cx, 2, sign, &|b, cx, a| {
        let m = if max {
            b.op1(cx, Op::IMax { sign }, vec![a[0], a[1]], Type::I32)
        } else {
            b.op1(cx, Op::IMin { sign }, vec![a[0], a[1]], Type::I32)
        };
        if relu {
            let z = b.konst(cx, Type::I32, 0);
            b.op1(cx, Op::IMax { sign }, vec![m, z], Type::I32)
        } else {
            m
        }
    })
}

/// `neg.s8x4` (§9.7.1.11, PTX ISA 9.2): each byte negated on its own, wrapping (-128 stays
/// -128), as `neg.s32` wraps.
fn neg_x4(b: &mut Builder, cx: &mut Cx, sign: Sign) -> R {
    if sign != Sign::Signed {
        return Err(cx.bad("neg takes .s8x4, not .u8x4"));
    }
    per_byte(b, cx, 1, sign, &|b, cx, a| {
        let z = b.konst(cx, Type::I32, 0);
        b.op1(cx, Op::ISub {}, vec![z, a[0]], Type::I32)
    })
}

pub(super) fn int_minmax_x2(b: &mut Builder, cx: &mut Cx, max: bool) -> R {
    x2_registers(cx, 2)?;
    let sign = int_x2(cx).unwrap_or(Sign::Unsigned);
    let relu = cx.has("relu");
    if relu && sign != Sign::Signed {
        return Err(cx.bad(".relu needs .s16x2"));
    }
    b.per_half(cx, true, 2, &|b, cx, a| {
        let m = if max {
            b.op1(cx, Op::IMax { sign }, vec![a[0], a[1]], Type::I16)
        } else {
            b.op1(cx, Op::IMin { sign }, vec![a[0], a[1]], Type::I16)
        };
        if relu {
            let z = b.konst(cx, Type::I16, 0);
            b.op1(cx, Op::IMax { sign }, vec![m, z], Type::I16)
        } else {
            m
        }
    })
}

/// An immediate bit position or length of `bfe`/`bfi` (PTX ISA §9.7.1.19-20: only bits 0-7
/// of a register operand count) must be in 0..=255, as ptxas requires ("value '300' out of
/// range, expected to be in range [0..255]"); registers are masked when the kernel runs.
fn check_bitfield_imm(cx: &Cx, k: usize, what: &str) -> Result<(), LowerError> {
    match cx.opnd(k)? {
        Operand::Imm(Literal::Int { value, .. }, _) if !(0..=255).contains(value) => Err(cx.bad(
            &format!("the bit {what} (operand {k}) must be in 0..=255, found {value}"),
        )),
        _ => Ok(()),
    }
}

pub(super) fn bitfield(b: &mut Builder, cx: &mut Cx, op: &str) -> R {
    let kinds = match op {
        "bfind" | "bfe" => IntKinds::Arith,
        "brev" | "bfi" => IntKinds::Bits,
        _ => IntKinds::All,
    };
    check_int_kinds(cx, kinds)?;
    let t = cx.ty()?;
    let (ty, _, float) = int_or_float(cx)?;
    if float || ty == Type::Pred || ty.bits() < 32 {
        return Err(cx.bad("needs a 32- or 64-bit integer type"));
    }
    let sign = sign_of(t);
    match op {
        "bfind" => {
            cx.expect_operands(2)?;
            let x = b.src(cx, 1, ty)?;
            let shiftamt = cx.has("shiftamt");
            b.unary_to_dst(cx, Op::Bfind { sign, shiftamt }, vec![x], Type::I32)
        }
        "brev" => {
            cx.expect_operands(2)?;
            let x = b.src(cx, 1, ty)?;
            b.unary_to_dst(cx, Op::Brev {}, vec![x], ty)
        }
        "bfe" => {
            cx.expect_operands(4)?;
            let x = b.src(cx, 1, ty)?;
            b.check_u32_operand(cx, 2)?;
            b.check_u32_operand(cx, 3)?;
            check_bitfield_imm(cx, 2, "position")?;
            check_bitfield_imm(cx, 3, "length")?;
            let p = b.src(cx, 2, Type::I32)?;
            let l = b.src(cx, 3, Type::I32)?;
            b.unary_to_dst(cx, Op::Bfe { sign }, vec![x, p, l], ty)
        }
        "bfi" => {
            cx.expect_operands(5)?;
            let x = b.src(cx, 1, ty)?;
            let y = b.src(cx, 2, ty)?;
            b.check_u32_operand(cx, 3)?;
            b.check_u32_operand(cx, 4)?;
            check_bitfield_imm(cx, 3, "position")?;
            check_bitfield_imm(cx, 4, "length")?;
            let p = b.src(cx, 3, Type::I32)?;
            let l = b.src(cx, 4, Type::I32)?;
            // poslen = (pos & 0xff) | (len & 0xff) << 8.
            let ff = b.konst(cx, Type::I32, 0xff);
            let p = b.op1(cx, Op::And {}, vec![p, ff], Type::I32);
            let l = b.op1(cx, Op::And {}, vec![l, ff], Type::I32);
            let eight = b.konst(cx, Type::I32, 8);
            let l = b.op1(cx, Op::Shl {}, vec![l, eight], Type::I32);
            let pl = b.op1(cx, Op::Or {}, vec![p, l], Type::I32);
            b.unary_to_dst(cx, Op::Bfi {}, vec![x, y, pl], ty)
        }
        "bmsk" | "szext" => {
            cx.expect_operands(3)?;
            if ty != Type::I32 {
                return Err(cx.bad("needs a 32-bit type"));
            }
            let clamp = cx.has("clamp");
            if !clamp && !cx.has("wrap") {
                return Err(cx.bad("needs .clamp or .wrap"));
            }
            if op == "bmsk" {
                b.check_u32_operand(cx, 1)?;
                b.check_u32_operand(cx, 2)?;
            }
            let x = b.src(cx, 1, ty)?;
            let y = b.src(cx, 2, ty)?;
            let o = if op == "bmsk" {
                Op::Bmsk { clamp }
            } else {
                Op::Szext { clamp, sign }
            };
            b.unary_to_dst(cx, o, vec![x, y], ty)
        }
        _ => {
            // fns.b32 d, mask, base, offset
            cx.expect_operands(4)?;
            if ty != Type::I32 {
                return Err(cx.bad("fns needs .b32"));
            }
            let x = b.src(cx, 1, ty)?;
            let y = b.src(cx, 2, ty)?;
            let z = b.src(cx, 3, ty)?;
            b.unary_to_dst(cx, Op::Fns {}, vec![x, y, z], ty)
        }
    }
}

pub(super) fn dot(b: &mut Builder, cx: &mut Cx, two: bool) -> R {
    cx.expect_operands(4)?;
    let tys = cx.types();
    if tys.len() != 2 {
        return Err(cx.bad("needs .atype.btype"));
    }
    let (sa, sb) = (sign_of(tys[0]), sign_of(tys[1]));
    let x = b.src(cx, 1, Type::I32)?;
    let y = b.src(cx, 2, Type::I32)?;
    let z = b.src(cx, 3, Type::I32)?;
    let o = if two {
        let hi = cx.has("hi");
        if !hi && !cx.has("lo") {
            return Err(cx.bad("dp2a needs .lo or .hi"));
        }
        Op::Dp2a { sa, sb, hi }
    } else {
        Op::Dp4a { sa, sb }
    };
    b.unary_to_dst(cx, o, vec![x, y, z], Type::I32)
}
