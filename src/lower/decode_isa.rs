//! Decoding of the scalar ISA beyond the basic forms in the parent module: integer `.sat`,
//! extended precision (`.cc`, `addc`, `subc`, `madc`), `mul24`/`mad24`, bit manipulation,
//! `lop3`/`shf`/`prmt`, floating point in every rounding mode, the `.approx` functions,
//! f16/bf16 and their packed x2 forms, `testp`, `copysign`, `set`, `slct` and the f16/bf16
//! conversions (PTX ISA §9.7.1-§9.7.9).
//!
//! [`decode`] returns `None` for forms the parent module handles.
//!
//! Packed `.f16x2`/`.bf16x2`/`.u16x2`/`.s16x2` operands are `i32` values; each half is split
//! off (element 0 in bits 15..0), computed as a scalar and packed again.
//!
//! PTX's condition code (CC.CF, PTX ISA §9.7.2) is a hidden predicate variable of the kernel,
//! named `CC.CF` (not a legal PTX identifier): `.cc` forms write it, `addc`/`subc`/`madc`
//! read it. Read before any write, it is 0.

use super::super::build::{Builder, Var};
use super::super::LowerError;
use super::{int_or_float, ir_ty, Cx};
use crate::ir::{
    ApproxFn, CvtRound, CvtType, FCmp, HalfFmt, ICmp, MiniFmt, NarrowCvt, Op, PrmtMode, Round,
    Sign, TestProp, TfRound, Type,
};
use crate::ptx::ast::{self, Literal, Operand};

type R = Result<(), LowerError>;

/// The PTX instructions decoded here (for the coverage report and the pure-instruction list).
pub(crate) const INSTRUCTIONS: &[&str] = &[
    "addc", "subc", "madc", "mul24", "mad24", "sad", "bfind", "fns", "brev", "bfe", "bfi", "bmsk",
    "szext", "dp4a", "dp2a", "cnot", "lop3", "shf", "prmt", "testp", "copysign", "rsqrt", "sin",
    "cos", "lg2", "ex2", "tanh", "set", "slct",
];

/// A 16-bit float type: (format, packed x2).
fn half_ty(t: ast::ScalarType) -> Option<(HalfFmt, bool)> {
    use ast::ScalarType::*;
    Some(match t {
        F16 => (HalfFmt::F16, false),
        F16x2 => (HalfFmt::F16, true),
        Bf16 => (HalfFmt::Bf16, false),
        Bf16x2 => (HalfFmt::Bf16, true),
        _ => return None,
    })
}

/// Whether the instruction's type modifier is a 16-bit float type.
fn half_of(cx: &Cx) -> Option<(HalfFmt, bool)> {
    cx.mods
        .iter()
        .rev()
        .find_map(|m| ast::ScalarType::from_suffix(m).and_then(half_ty))
}

/// `.u16x2` / `.s16x2` packed integer types.
fn int_x2(cx: &Cx) -> Option<Sign> {
    if cx.has("u16x2") {
        Some(Sign::Unsigned)
    } else if cx.has("s16x2") {
        Some(Sign::Signed)
    } else {
        None
    }
}

fn round_or(cx: &Cx, default: Round) -> Round {
    cx.round().unwrap_or(default)
}

const CC_NAME: &str = "CC.CF";

impl Builder<'_> {
    /// The hidden carry-flag variable (created on first use).
    fn cc_flag(&mut self) -> Var {
        if let Some(v) = self.reg(CC_NAME) {
            return v;
        }
        let v = self.new_var(Type::Pred);
        if self.scopes.is_empty() {
            self.scopes.push(Default::default());
        }
        self.scopes[0].insert(CC_NAME.to_string(), v);
        v
    }

    fn op1(&mut self, cx: &Cx, op: Op, args: Vec<Var>, ty: Type) -> Var {
        self.emit1(op, args, ty, cx.loc, &cx.ptx)
    }

    /// Halves of an i32: (bits 15..0, bits 31..16).
    fn split2(&mut self, cx: &Cx, v: Var) -> (Var, Var) {
        let lo = self.op1(cx, trunc16(), vec![v], Type::I16);
        let sh = self.konst(cx, Type::I32, 16);
        let h = self.op1(
            cx,
            Op::Shr {
                sign: Sign::Unsigned,
            },
            vec![v, sh],
            Type::I32,
        );
        let hi = self.op1(cx, trunc16(), vec![h], Type::I16);
        (lo, hi)
    }

    /// Pack two halves into an i32 (lo in bits 15..0).
    fn pack2(&mut self, cx: &Cx, lo: Var, hi: Var) -> Var {
        let l = self.op1(cx, zext16(), vec![lo], Type::I32);
        let h = self.op1(cx, zext16(), vec![hi], Type::I32);
        let sh = self.konst(cx, Type::I32, 16);
        let h = self.op1(cx, Op::Shl {}, vec![h, sh], Type::I32);
        self.op1(cx, Op::Or {}, vec![l, h], Type::I32)
    }

    /// Apply `f` to one half (scalar) or to both halves of packed operands, writing operand 0.
    fn per_half(
        &mut self,
        cx: &mut Cx,
        x2: bool,
        nargs: usize,
        f: &dyn Fn(&mut Builder, &Cx, &[Var]) -> Var,
    ) -> R {
        cx.expect_operands(nargs + 1)?;
        if !x2 {
            let mut args = vec![];
            for k in 1..=nargs {
                args.push(self.src(cx, k, Type::I16)?);
            }
            let r = f(self, cx, &args);
            return self.write(cx, 0, r, Type::I16);
        }
        let mut los = vec![];
        let mut his = vec![];
        for k in 1..=nargs {
            let v = self.src(cx, k, Type::I32)?;
            let (l, h) = self.split2(cx, v);
            los.push(l);
            his.push(h);
        }
        let rl = f(self, cx, &los);
        let rh = f(self, cx, &his);
        let r = self.pack2(cx, rl, rh);
        self.write(cx, 0, r, Type::I32)
    }

    /// Copy `v` (type `ty`) to destination operand `k`.
    fn write(&mut self, cx: &mut Cx, k: usize, v: Var, ty: Type) -> R {
        if let Some(d) = self.dst(cx, k, ty)? {
            self.copy(d, v, cx.loc, &cx.ptx);
        }
        Ok(())
    }
}

fn trunc16() -> Op {
    Op::Cvt {
        dst: CvtType::U16,
        src: CvtType::U32,
        rnd: CvtRound::None,
        sat: false,
        ftz: false,
    }
}

fn zext16() -> Op {
    Op::Cvt {
        dst: CvtType::U32,
        src: CvtType::U16,
        rnd: CvtRound::None,
        sat: false,
        ftz: false,
    }
}

fn sign_of(t: ast::ScalarType) -> Sign {
    use ast::ScalarType::*;
    if matches!(t, S8 | S16 | S32 | S64) {
        Sign::Signed
    } else {
        Sign::Unsigned
    }
}

/// Decode `op` if it is one of this module's forms; `None` leaves it to the parent.
pub(super) fn decode(b: &mut Builder, cx: &mut Cx, op: &str) -> Option<R> {
    let half = half_of(cx);
    Some(match op {
        "add" | "sub" | "fma" if cx.types().len() == 2 => mixed(b, cx, op),
        "add" | "sub" | "mul" if half.is_some() => half_arith(b, cx, op, half?),
        "fma" | "mad" if half.is_some() => half_fma(b, cx, half?),
        "min" | "max" if half.is_some() => half_minmax(b, cx, op == "max", half?),
        "neg" | "abs" if half.is_some() => half_sign(b, cx, op == "neg", half?),
        "ex2" | "tanh" if half.is_some() => half_approx(b, cx, op, half?),
        "setp" if half.is_some() => half_setp(b, cx, half?),
        "add" | "sub" if (cx.has("sat") || cx.has("cc")) && !is_float(cx) => int_addsub(b, cx, op),
        "addc" | "subc" => int_addsub(b, cx, op),
        "mad" | "madc" if cx.has("cc") || op == "madc" || (cx.has("sat") && !is_float(cx)) => {
            int_mad_cc(b, cx, op)
        }
        "mul24" | "mad24" => mul24(b, cx, op == "mad24"),
        "min" | "max" if int_x2(cx).is_some() => int_minmax_x2(b, cx, op == "max"),
        "min" | "max" if cx.has("relu") => int_minmax_relu(b, cx, op == "max"),
        "min" | "max" if is_float(cx) => float_minmax(b, cx, op == "max"),
        "add" | "sub" | "mul" | "fma" | "mad" | "div" if is_float(cx) => float_arith(b, cx, op),
        "sqrt" | "rcp" | "rsqrt" | "sin" | "cos" | "lg2" | "ex2" | "tanh" => float_unary(b, cx, op),
        "testp" => testp(b, cx),
        "copysign" => copysign(b, cx),
        "sad" => sad(b, cx),
        "bfind" | "brev" | "bfe" | "bfi" | "bmsk" | "szext" | "fns" => bitfield(b, cx, op),
        "dp4a" | "dp2a" => dot(b, cx, op == "dp2a"),
        "cnot" => cnot(b, cx),
        "lop3" => lop3(b, cx),
        "shf" => shf(b, cx),
        "prmt" => prmt(b, cx),
        "set" => set(b, cx),
        "slct" => slct(b, cx),
        "cvt" if cx.has("pack") => cvt_pack(b, cx),
        "cvt" if needs_isa_cvt(cx) => cvt(b, cx),
        _ => return None,
    })
}

fn copysign(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(3)?;
    let (ty, _, float) = int_or_float(cx)?;
    if !float {
        return Err(cx.bad("copysign needs .f32 or .f64"));
    }
    let x = b.src(cx, 1, ty)?;
    let y = b.src(cx, 2, ty)?;
    b.unary_to_dst(cx, Op::CopySign {}, vec![x, y], ty)
}

fn sad(b: &mut Builder, cx: &mut Cx) -> R {
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

fn cnot(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(2)?;
    let (ty, _, float) = int_or_float(cx)?;
    if float || ty == Type::Pred {
        return Err(cx.bad("cnot needs .b16/.b32/.b64"));
    }
    let x = b.src(cx, 1, ty)?;
    let z = b.konst(cx, ty, 0);
    let one = b.konst(cx, ty, 1);
    let p = b.op1(
        cx,
        Op::ICmp {
            cc: ICmp::Eq,
            sign: Sign::Unsigned,
        },
        vec![x, z],
        Type::Pred,
    );
    b.unary_to_dst(cx, Op::Select {}, vec![one, z, p], ty)
}

fn shf(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(4)?;
    let left = cx.has("l");
    if !left && !cx.has("r") {
        return Err(cx.bad("shf needs .l or .r"));
    }
    let clamp = cx.has("clamp");
    if !clamp && !cx.has("wrap") {
        return Err(cx.bad("shf needs .clamp or .wrap"));
    }
    let x = b.src(cx, 1, Type::I32)?;
    let y = b.src(cx, 2, Type::I32)?;
    let z = b.src(cx, 3, Type::I32)?;
    b.unary_to_dst(cx, Op::Shf { left, clamp }, vec![x, y, z], Type::I32)
}

fn prmt(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(4)?;
    let mode = cx
        .mods
        .iter()
        .find_map(|m| match *m {
            "f4e" => Some(PrmtMode::F4e),
            "b4e" => Some(PrmtMode::B4e),
            "rc8" => Some(PrmtMode::Rc8),
            "ecl" => Some(PrmtMode::Ecl),
            "ecr" => Some(PrmtMode::Ecr),
            "rc16" => Some(PrmtMode::Rc16),
            _ => None,
        })
        .unwrap_or(PrmtMode::Generic);
    let x = b.src(cx, 1, Type::I32)?;
    let y = b.src(cx, 2, Type::I32)?;
    let z = b.src(cx, 3, Type::I32)?;
    b.unary_to_dst(cx, Op::Prmt { mode }, vec![x, y, z], Type::I32)
}

fn is_float(cx: &Cx) -> bool {
    matches!(cx.ty(), Ok(ast::ScalarType::F32 | ast::ScalarType::F64))
}

// ---- Integer ----

fn int_addsub(b: &mut Builder, cx: &mut Cx, op: &str) -> R {
    cx.expect_operands(3)?;
    let (ty, sign, float) = int_or_float(cx)?;
    if float || ty == Type::Pred {
        return Err(cx.bad("needs an integer type"));
    }
    let x = b.src(cx, 1, ty)?;
    let y = b.src(cx, 2, ty)?;
    let sub = op.starts_with("sub");
    if cx.has("sat") {
        // PTX ISA §9.7.1.1: .sat applies to .s32 only.
        if ty != Type::I32 || sign != Sign::Signed || cx.has("cc") {
            return Err(cx.bad(".sat needs .s32"));
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
fn int_mad_cc(b: &mut Builder, cx: &mut Cx, op: &str) -> R {
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

fn mul24(b: &mut Builder, cx: &mut Cx, mad: bool) -> R {
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

fn int_minmax_relu(b: &mut Builder, cx: &mut Cx, max: bool) -> R {
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

fn int_minmax_x2(b: &mut Builder, cx: &mut Cx, max: bool) -> R {
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

fn bitfield(b: &mut Builder, cx: &mut Cx, op: &str) -> R {
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
            let p = b.src(cx, 2, Type::I32)?;
            let l = b.src(cx, 3, Type::I32)?;
            b.unary_to_dst(cx, Op::Bfe { sign }, vec![x, p, l], ty)
        }
        "bfi" => {
            cx.expect_operands(5)?;
            let x = b.src(cx, 1, ty)?;
            let y = b.src(cx, 2, ty)?;
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

fn dot(b: &mut Builder, cx: &mut Cx, two: bool) -> R {
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

fn lop3(b: &mut Builder, cx: &mut Cx) -> R {
    // lop3.b32 d, a, b, c, immLut;  lop3.BoolOp.b32 d|p, a, b, c, immLut, q;
    // With .BoolOp (.and/.or), p = (d != 0) BoolOp q (PTX ISA §9.7.8.6, PTX 8.2).
    let bool_op = if cx.has("and") {
        Some(Op::And {})
    } else if cx.has("or") {
        Some(Op::Or {})
    } else {
        None
    };
    let n = cx.inst.operands.len();
    match (bool_op.is_some(), n) {
        (false, 5) | (true, 6) => {}
        (false, 6) => return Err(cx.bad("lop3 with a predicate output needs .and or .or")),
        (true, _) => return Err(cx.bad("lop3.and/.or expects d|p, a, b, c, immLut, q")),
        _ => return Err(cx.bad("lop3 expects d, a, b, c, immLut")),
    }
    let (ty, _, float) = int_or_float(cx)?;
    if float || !(ty == Type::I32 || ty == Type::I64) {
        return Err(cx.bad("lop3 needs .b32"));
    }
    let lut = match cx.opnd(4)? {
        Operand::Imm(Literal::Int { value, .. }, _) => *value as u8,
        _ => return Err(cx.bad("immLut must be an integer constant")),
    };
    let x = b.src(cx, 1, ty)?;
    let y = b.src(cx, 2, ty)?;
    let z = b.src(cx, 3, ty)?;
    let Some(bool_op) = bool_op else {
        return b.unary_to_dst(cx, Op::Lop3 { lut }, vec![x, y, z], ty);
    };
    let q = b.src(cx, 5, Type::Pred)?;
    let (d, p) = match cx.opnd(0)?.clone() {
        Operand::PredPair(d, p) => (d, p),
        other => {
            return Err(LowerError::new(
                other.span(),
                format!("lop3.and/.or needs a d|p destination in '{}'", cx.ptx),
            ))
        }
    };
    let v = b.emit1(Op::Lop3 { lut }, vec![x, y, z], ty, cx.loc, &cx.ptx);
    let zero = b.konst(cx, ty, 0);
    let nz = b.emit1(
        Op::ICmp {
            cc: ICmp::Ne,
            sign: Sign::Unsigned,
        },
        vec![v, zero],
        Type::Pred,
        cx.loc,
        &cx.ptx,
    );
    let pv = b.emit1(bool_op, vec![nz, q], Type::Pred, cx.loc, &cx.ptx);
    let reg = |name: ast::Ident| Operand::Reg {
        name,
        component: None,
    };
    if let Some(dv) = b.dst_rel(cx, &reg(d), ty, None)? {
        b.copy(dv, v, cx.loc, &cx.ptx);
    }
    if let Some(dp) = b.dst_rel(cx, &reg(p), Type::Pred, None)? {
        b.copy(dp, pv, cx.loc, &cx.ptx);
    }
    Ok(())
}

// ---- Floating point ----

fn float_arith(b: &mut Builder, cx: &mut Cx, op: &str) -> R {
    let (ty, _, _) = int_or_float(cx)?;
    let rnd = round_or(cx, Round::Nearest);
    let (ftz, sat) = (cx.has("ftz"), cx.has("sat"));
    if ty == Type::F64 && (ftz || sat) {
        return Err(cx.bad(".ftz/.sat apply to .f32 only"));
    }
    match op {
        "add" | "sub" | "mul" => {
            cx.expect_operands(3)?;
            let x = b.src(cx, 1, ty)?;
            let y = b.src(cx, 2, ty)?;
            let o = match op {
                "add" => Op::FAdd { rnd, ftz, sat },
                "sub" => Op::FSub { rnd, ftz, sat },
                _ => Op::FMul { rnd, ftz, sat },
            };
            b.unary_to_dst(cx, o, vec![x, y], ty)
        }
        "fma" | "mad" => {
            cx.expect_operands(4)?;
            if op == "fma" && cx.round().is_none() {
                return Err(cx.bad("fma needs a rounding modifier"));
            }
            let x = b.src(cx, 1, ty)?;
            let y = b.src(cx, 2, ty)?;
            let z = b.src(cx, 3, ty)?;
            b.unary_to_dst(cx, Op::FFma { rnd, ftz, sat }, vec![x, y, z], ty)
        }
        _ => {
            cx.expect_operands(3)?;
            let approx = cx.has("approx") || cx.has("full");
            if approx && ty != Type::F32 {
                return Err(cx.bad("div.approx/.full need .f32"));
            }
            if !approx && cx.round().is_none() {
                return Err(cx.bad("div.f needs .rn/.rz/.rm/.rp, .approx or .full"));
            }
            let x = b.src(cx, 1, ty)?;
            let y = b.src(cx, 2, ty)?;
            // div.full is IEEE round-to-nearest here (within its stated 2 ulp); only
            // div.approx has the ISA's special range for huge divisors.
            let o = Op::FDiv {
                rnd,
                approx: cx.has("approx"),
                ftz,
            };
            b.unary_to_dst(cx, o, vec![x, y], ty)
        }
    }
}

fn float_unary(b: &mut Builder, cx: &mut Cx, op: &str) -> R {
    cx.expect_operands(2)?;
    let (ty, _, float) = int_or_float(cx)?;
    if !float {
        return Err(cx.bad("needs a float type"));
    }
    let approx = cx.has("approx");
    let ftz = cx.has("ftz");
    let x = b.src(cx, 1, ty)?;
    let o = match op {
        "sqrt" | "rcp" => {
            if op == "rcp" && approx && ty == Type::F64 {
                if !ftz {
                    return Err(cx.bad("rcp.approx.f64 needs .ftz"));
                }
                Op::FApprox {
                    f: ApproxFn::Rcp,
                    ftz,
                }
            } else {
                let rnd = match (cx.round(), approx) {
                    (Some(r), false) => r,
                    (None, true) if ty == Type::F32 => Round::Nearest,
                    _ => return Err(cx.bad("needs .approx (f32) or .rn/.rz/.rm/.rp")),
                };
                if ty == Type::F64 && ftz {
                    return Err(cx.bad(".ftz applies to .f32 only"));
                }
                if op == "sqrt" {
                    Op::FSqrt { rnd, approx, ftz }
                } else {
                    Op::FRcp { rnd, approx, ftz }
                }
            }
        }
        _ => {
            if !approx {
                return Err(cx.bad("needs .approx"));
            }
            let f = match op {
                "rsqrt" => ApproxFn::Rsqrt,
                "sin" => ApproxFn::Sin,
                "cos" => ApproxFn::Cos,
                "lg2" => ApproxFn::Lg2,
                "ex2" => ApproxFn::Ex2,
                _ => ApproxFn::Tanh,
            };
            if ty == Type::F64 && f != ApproxFn::Rsqrt {
                return Err(cx.bad("needs .f32"));
            }
            Op::FApprox { f, ftz }
        }
    };
    b.unary_to_dst(cx, o, vec![x], ty)
}

fn float_minmax(b: &mut Builder, cx: &mut Cx, max: bool) -> R {
    let (ty, _, _) = int_or_float(cx)?;
    let ftz = cx.has("ftz");
    let nan = cx.has("NaN");
    let xorsign = cx.has("xorsign");
    let abs = cx.has("abs");
    if xorsign && !abs {
        return Err(cx.bad(".xorsign needs .abs"));
    }
    let n = cx.inst.operands.len();
    if ty == Type::F64 && (ftz || nan || abs) {
        return Err(cx.bad("min/max.f64 takes no modifiers"));
    }
    let o = Op::FMinMax {
        max,
        ftz,
        nan,
        xorsign,
    };
    if n == 4 {
        // Three inputs (PTX ISA 8.8): optional .abs on each input, no .xorsign.
        if xorsign {
            return Err(cx.bad(".xorsign is not allowed with three inputs"));
        }
        let mut v = vec![];
        for k in 1..4 {
            let x = b.src(cx, k, ty)?;
            v.push(if abs {
                b.op1(cx, Op::FAbs { ftz }, vec![x], ty)
            } else {
                x
            });
        }
        let m = b.op1(cx, o, vec![v[0], v[1]], ty);
        return b.unary_to_dst(cx, o, vec![m, v[2]], ty);
    }
    cx.expect_operands(3)?;
    if abs && !xorsign {
        return Err(cx.bad(".abs needs .xorsign with two inputs"));
    }
    let x = b.src(cx, 1, ty)?;
    let y = b.src(cx, 2, ty)?;
    b.unary_to_dst(cx, o, vec![x, y], ty)
}

fn testp(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(2)?;
    let (ty, _, float) = int_or_float(cx)?;
    if !float {
        return Err(cx.bad("testp needs .f32 or .f64"));
    }
    let prop = cx
        .mods
        .iter()
        .find_map(|m| match *m {
            "finite" => Some(TestProp::Finite),
            "infinite" => Some(TestProp::Infinite),
            "number" => Some(TestProp::Number),
            "notanumber" => Some(TestProp::NotANumber),
            "normal" => Some(TestProp::Normal),
            "subnormal" => Some(TestProp::Subnormal),
            _ => None,
        })
        .ok_or_else(|| cx.bad("missing testp property"))?;
    let x = b.src(cx, 1, ty)?;
    b.unary_to_dst(cx, Op::TestP { prop }, vec![x], Type::Pred)
}

// ---- f16 / bf16 ----

fn half_arith(b: &mut Builder, cx: &mut Cx, op: &str, (fmt, x2): (HalfFmt, bool)) -> R {
    let rnd = round_or(cx, Round::Nearest);
    let (ftz, sat) = (cx.has("ftz"), cx.has("sat"));
    if fmt == HalfFmt::Bf16 && (ftz || sat) {
        return Err(cx.bad(".ftz/.sat are not allowed on .bf16"));
    }
    let o = match op {
        "add" => Op::HAdd { fmt, rnd, ftz, sat },
        "sub" => Op::HSub { fmt, rnd, ftz, sat },
        _ => Op::HMul { fmt, rnd, ftz, sat },
    };
    b.per_half(cx, x2, 2, &|b, cx, a| b.op1(cx, o, a.to_vec(), Type::I16))
}

fn half_fma(b: &mut Builder, cx: &mut Cx, (fmt, x2): (HalfFmt, bool)) -> R {
    let rnd = cx
        .round()
        .ok_or_else(|| cx.bad("fma on f16/bf16 needs a rounding modifier"))?;
    let (ftz, sat, relu) = (cx.has("ftz"), cx.has("sat"), cx.has("relu"));
    if sat && relu {
        return Err(cx.bad(".sat and .relu exclude each other"));
    }
    if cx.has("oob") {
        return Err(cx.unsupported("fma.oob is not supported yet"));
    }
    let o = Op::HFma {
        fmt,
        rnd,
        ftz,
        sat,
        relu,
    };
    b.per_half(cx, x2, 3, &|b, cx, a| b.op1(cx, o, a.to_vec(), Type::I16))
}

fn half_minmax(b: &mut Builder, cx: &mut Cx, max: bool, (fmt, x2): (HalfFmt, bool)) -> R {
    let ftz = cx.has("ftz");
    let nan = cx.has("NaN");
    let xorsign = cx.has("xorsign");
    if xorsign != cx.has("abs") {
        return Err(cx.bad(".xorsign and .abs go together"));
    }
    let o = Op::HMinMax {
        fmt,
        max,
        ftz,
        nan,
        xorsign,
    };
    b.per_half(cx, x2, 2, &|b, cx, a| b.op1(cx, o, a.to_vec(), Type::I16))
}

fn half_sign(b: &mut Builder, cx: &mut Cx, neg: bool, (fmt, x2): (HalfFmt, bool)) -> R {
    let ftz = cx.has("ftz");
    let o = if neg {
        Op::HNeg { fmt, ftz }
    } else {
        Op::HAbs { fmt, ftz }
    };
    b.per_half(cx, x2, 1, &|b, cx, a| b.op1(cx, o, a.to_vec(), Type::I16))
}

fn half_approx(b: &mut Builder, cx: &mut Cx, op: &str, (fmt, x2): (HalfFmt, bool)) -> R {
    if !cx.has("approx") {
        return Err(cx.bad("needs .approx"));
    }
    let f = if op == "ex2" {
        ApproxFn::Ex2
    } else {
        ApproxFn::Tanh
    };
    let o = Op::HApprox { fmt, f };
    b.per_half(cx, x2, 1, &|b, cx, a| b.op1(cx, o, a.to_vec(), Type::I16))
}

fn fcmp_of(cx: &Cx) -> Result<FCmp, LowerError> {
    let cmp = cx
        .mods
        .first()
        .copied()
        .ok_or_else(|| cx.bad("missing comparison"))?;
    super::fcmp_name(cmp).ok_or_else(|| cx.bad(&format!("unknown float comparison '{cmp}'")))
}

fn bool_op(cx: &Cx) -> Option<Op> {
    cx.mods.iter().find_map(|m| match *m {
        "and" => Some(Op::And {}),
        "or" => Some(Op::Or {}),
        "xor" => Some(Op::Xor {}),
        _ => None,
    })
}

/// `setp.cmp{.bool}{.ftz}.f16/bf16{x2} p[|q], a, b{, c}` (PTX ISA §9.7.7.2): for x2, p is the
/// lower half's result and q the upper's; for scalars q = !result.
fn half_setp(b: &mut Builder, cx: &mut Cx, (fmt, x2): (HalfFmt, bool)) -> R {
    let cc = fcmp_of(cx)?;
    let ftz = cx.has("ftz");
    let n = cx.inst.operands.len();
    let bop = bool_op(cx);
    if n == 4 && bop.is_none() || n != 3 && n != 4 {
        return Err(cx.bad("expects p[|q], a, b or p[|q], a, b, c with .and/.or/.xor"));
    }
    let c = if n == 4 {
        Some(b.src(cx, 3, Type::Pred)?)
    } else {
        None
    };
    let o = Op::HCmp { fmt, cc, ftz };
    let (r0, r1) = if x2 {
        let x = b.src(cx, 1, Type::I32)?;
        let y = b.src(cx, 2, Type::I32)?;
        let (xl, xh) = b.split2(cx, x);
        let (yl, yh) = b.split2(cx, y);
        let l = b.op1(cx, o, vec![xl, yl], Type::Pred);
        let h = b.op1(cx, o, vec![xh, yh], Type::Pred);
        (l, h)
    } else {
        let x = b.src(cx, 1, Type::I16)?;
        let y = b.src(cx, 2, Type::I16)?;
        let t = b.op1(cx, o, vec![x, y], Type::Pred);
        let nt = b.op1(cx, Op::Not {}, vec![t], Type::Pred);
        (t, nt)
    };
    let combine = |b: &mut Builder, cx: &Cx, v: Var| match (bop, c) {
        (Some(o), Some(c)) => b.op1(cx, o, vec![v, c], Type::Pred),
        _ => v,
    };
    let r0 = combine(b, cx, r0);
    let r1 = combine(b, cx, r1);
    let d = cx.opnd(0)?.clone();
    match &d {
        Operand::PredPair(p, q) => {
            let p = Operand::Reg {
                name: p.clone(),
                component: None,
            };
            let q = Operand::Reg {
                name: q.clone(),
                component: None,
            };
            if let Some(t) = b.dst_rel(cx, &p, Type::Pred, None)? {
                b.copy(t, r0, cx.loc, &cx.ptx);
            }
            if let Some(t) = b.dst_rel(cx, &q, Type::Pred, None)? {
                b.copy(t, r1, cx.loc, &cx.ptx);
            }
            Ok(())
        }
        _ if x2 => Err(cx.bad("setp on x2 types needs p|q")),
        other => {
            if let Some(t) = b.dst_rel(cx, other, Type::Pred, None)? {
                b.copy(t, r0, cx.loc, &cx.ptx);
            }
            Ok(())
        }
    }
}

// ---- Compare and select ----

/// A comparison of two sources of PTX type `st` → pred (integer, float or half).
fn compare(
    b: &mut Builder,
    cx: &Cx,
    st: ast::ScalarType,
    x: Var,
    y: Var,
) -> Result<Var, LowerError> {
    let cmp = cx.mods.first().copied().unwrap_or("");
    let ftz = cx.has("ftz");
    if let Some((fmt, _)) = half_ty(st) {
        let cc = fcmp_of(cx)?;
        return Ok(b.op1(cx, Op::HCmp { fmt, cc, ftz }, vec![x, y], Type::Pred));
    }
    let (_, sign, float) = ir_ty(st).ok_or_else(|| cx.bad("bad source type"))?;
    let op = if float {
        Op::FCmp {
            cc: fcmp_of(cx)?,
            ftz,
        }
    } else {
        let (cc, sign) = match cmp {
            "eq" => (ICmp::Eq, sign),
            "ne" => (ICmp::Ne, sign),
            "lt" => (ICmp::Lt, sign),
            "le" => (ICmp::Le, sign),
            "gt" => (ICmp::Gt, sign),
            "ge" => (ICmp::Ge, sign),
            "lo" => (ICmp::Lt, Sign::Unsigned),
            "ls" => (ICmp::Le, Sign::Unsigned),
            "hi" => (ICmp::Gt, Sign::Unsigned),
            "hs" => (ICmp::Ge, Sign::Unsigned),
            _ => return Err(cx.bad(&format!("unknown integer comparison '{cmp}'"))),
        };
        Op::ICmp { cc, sign }
    };
    Ok(b.op1(cx, op, vec![x, y], Type::Pred))
}

/// `set.cmp{.bool}{.ftz}.dtype.stype d, a, b{, {!}c}` (PTX ISA §9.7.6.1, §9.7.7.1): d is
/// 0xffffffff / 1.0 (f32) / 1.0 (f16, bf16) when true, 0 when false; packed x2 types compare
/// and produce per half (0xffff or 1.0 in each half).
fn set(b: &mut Builder, cx: &mut Cx) -> R {
    let tys = cx.types();
    if tys.len() != 2 {
        return Err(cx.bad("set needs .dtype.stype"));
    }
    let (dt, st) = (tys[0], tys[1]);
    let n = cx.inst.operands.len();
    let bop = bool_op(cx);
    if n == 4 && bop.is_none() || n != 3 && n != 4 {
        return Err(cx.bad("expects d, a, b or d, a, b, c with .and/.or/.xor"));
    }
    let c = if n == 4 {
        Some(b.src(cx, 3, Type::Pred)?)
    } else {
        None
    };
    let combine = |b: &mut Builder, cx: &Cx, v: Var| match (bop, c) {
        (Some(o), Some(c)) => b.op1(cx, o, vec![v, c], Type::Pred),
        _ => v,
    };
    let src_x2 = matches!(st, ast::ScalarType::F16x2 | ast::ScalarType::Bf16x2);
    let dst_half = half_ty(dt);
    // The value of "true" in one lane of the destination.
    let one = |dt: ast::ScalarType| -> Option<(Type, u64)> {
        use ast::ScalarType::*;
        Some(match dt {
            U32 | S32 | B32 => (Type::I32, 0xffff_ffff),
            F32 => (Type::F32, 0x3f80_0000),
            F16 | F16x2 => (Type::I16, 0x3c00),
            Bf16 | Bf16x2 => (Type::I16, 0x3f80),
            _ => return None,
        })
    };
    if src_x2 {
        let (lt, tv) = match (dt, dst_half) {
            (_, Some(_)) => one(dt).ok_or_else(|| cx.bad("bad destination type"))?,
            (ast::ScalarType::U32 | ast::ScalarType::S32 | ast::ScalarType::B32, _) => {
                (Type::I16, 0xffff)
            }
            _ => return Err(cx.bad("set on x2 sources needs a u32/s32 or x2 destination")),
        };
        let x = b.src(cx, 1, Type::I32)?;
        let y = b.src(cx, 2, Type::I32)?;
        let (xl, xh) = b.split2(cx, x);
        let (yl, yh) = b.split2(cx, y);
        let half1 = half_ty(st).map(|h| h.0).unwrap_or(HalfFmt::F16);
        let ty1 = if half1 == HalfFmt::F16 {
            ast::ScalarType::F16
        } else {
            ast::ScalarType::Bf16
        };
        let mut parts = vec![];
        for (p, q) in [(xl, yl), (xh, yh)] {
            let t = compare(b, cx, ty1, p, q)?;
            let t = combine(b, cx, t);
            let on = b.konst(cx, lt, tv);
            let off = b.konst(cx, lt, 0);
            parts.push(b.op1(cx, Op::Select {}, vec![on, off, t], lt));
        }
        let r = b.pack2(cx, parts[0], parts[1]);
        return b.write(cx, 0, r, Type::I32);
    }
    let sty = match half_ty(st) {
        Some(_) => Type::I16,
        None => ir_ty(st).ok_or_else(|| cx.bad("bad source type"))?.0,
    };
    if sty == Type::Pred {
        return Err(cx.bad("set cannot compare predicates"));
    }
    let x = b.src(cx, 1, sty)?;
    let y = b.src(cx, 2, sty)?;
    let t = compare(b, cx, st, x, y)?;
    let t = combine(b, cx, t);
    let (lt, tv) =
        one(dt).ok_or_else(|| cx.bad("set needs a .u32/.s32/.f32/.f16/.bf16 destination"))?;
    let on = b.konst(cx, lt, tv);
    let off = b.konst(cx, lt, 0);
    let r = b.op1(cx, Op::Select {}, vec![on, off, t], lt);
    if matches!(dt, ast::ScalarType::F16x2 | ast::ScalarType::Bf16x2) {
        return Err(cx.bad("an x2 destination needs an x2 source"));
    }
    b.write(cx, 0, r, lt)
}

/// `slct.dtype.s32 d, a, b, c` / `slct{.ftz}.dtype.f32 d, a, b, c` (PTX ISA §9.7.6.4):
/// `c >= 0 ? a : b` (-0.0 counts as ≥ 0; a NaN c selects b).
fn slct(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(4)?;
    let tys = cx.types();
    if tys.len() != 2 {
        return Err(cx.bad("slct needs .dtype.ctype"));
    }
    let (dty, _, _) = ir_ty(tys[0]).ok_or_else(|| cx.bad("bad destination type"))?;
    let (cty, _, cfloat) = ir_ty(tys[1]).ok_or_else(|| cx.bad("bad selector type"))?;
    if !(cty == Type::I32 || cty == Type::F32) || dty == Type::Pred {
        return Err(cx.bad("slct needs a .s32 or .f32 selector"));
    }
    let x = b.src(cx, 1, dty)?;
    let y = b.src(cx, 2, dty)?;
    let z = b.src(cx, 3, cty)?;
    let zero = b.konst(cx, cty, 0);
    let o = if cfloat {
        Op::FCmp {
            cc: FCmp::Ge,
            ftz: cx.has("ftz"),
        }
    } else {
        Op::ICmp {
            cc: ICmp::Ge,
            sign: Sign::Signed,
        }
    };
    let p = b.op1(cx, o, vec![z, zero], Type::Pred);
    b.unary_to_dst(cx, Op::Select {}, vec![x, y, p], dty)
}

// ---- Conversions with f16/bf16 ----

fn needs_isa_cvt(cx: &Cx) -> bool {
    cx.types().iter().any(|t| half_ty(*t).is_some())
        || cx.has("relu")
        || cx.has("satfinite")
        || cx.mods.iter().any(|m| narrow_name(m))
}

/// The instruction-only narrow float types of `cvt` (PTX ISA §9.7.9.21).
fn narrow_name(m: &str) -> bool {
    matches!(
        m,
        "tf32"
            | "e4m3x2"
            | "e5m2x2"
            | "e2m1x2"
            | "e2m3x2"
            | "e3m2x2"
            | "ue8m0x2"
            | "e4m3x4"
            | "e5m2x4"
            | "e2m1x4"
            | "e2m3x4"
            | "e3m2x4"
    )
}

/// `cvt` to and from the narrow formats (PTX ISA §9.7.9.21):
/// `.rn.satfinite{.relu}.{e4m3x2,e5m2x2,e2m3x2,e3m2x2,e2m1x2}.f32 d, a, b`,
/// `.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a`, `.rn{.relu}.f16x2.<those> d, a`,
/// `.{rz,rp}{.satfinite}.ue8m0x2.{f32 d, a, b | bf16x2 d, a}`, `.rn.bf16x2.ue8m0x2 d, a`, and
/// `.{rna,rn,rz}{.satfinite}{.relu}.tf32.f32 d, a`. The four-element forms exist only with
/// stochastic rounding (`.rs`): [`cvt_rs`].
fn cvt_narrow(b: &mut Builder, cx: &mut Cx) -> R {
    let mini = |m: &str| match m {
        "e4m3x2" => Some(MiniFmt::E4M3),
        "e5m2x2" => Some(MiniFmt::E5M2),
        "e2m3x2" => Some(MiniFmt::E2M3),
        "e3m2x2" => Some(MiniFmt::E3M2),
        "e2m1x2" => Some(MiniFmt::E2M1),
        _ => None,
    };
    let tys: Vec<&str> = cx
        .mods
        .iter()
        .copied()
        .filter(|m| narrow_name(m) || ast::ScalarType::from_suffix(m).is_some())
        .collect();
    if cx.has("rs") || tys.iter().any(|m| m.ends_with("x4")) {
        return cvt_rs(b, cx);
    }
    let [dt, st] = tys[..] else {
        return Err(cx.bad("cvt needs a destination and a source type"));
    };
    let relu = cx.has("relu");
    let satfinite = cx.has("satfinite");
    let rn = cx.has("rn");
    let op = |conv| Op::CvtNarrow { conv, relu };
    // The halves of an f16x2/bf16x2 register widened (exactly) to f32: (upper, lower).
    let widen_pair =
        |b: &mut Builder, cx: &mut Cx, src: CvtType| -> Result<(Var, Var), LowerError> {
            let v = b.src(cx, 1, Type::I32)?;
            let (lo, hi) = b.split2(cx, v);
            let widen = Op::Cvt {
                dst: CvtType::F32,
                src,
                rnd: CvtRound::None,
                sat: false,
                ftz: false,
            };
            let h = b.op1(cx, widen, vec![hi], Type::F32);
            let l = b.op1(cx, widen, vec![lo], Type::F32);
            Ok((h, l))
        };
    match (mini(dt), mini(st), dt, st) {
        (Some(f), None, _, "f32" | "f16x2") => {
            if !rn || !satfinite {
                return Err(cx.bad(&format!("conversions to .{dt} need .rn.satfinite")));
            }
            let (hi, lo) = if st == "f32" {
                cx.expect_operands(3)?;
                (b.src(cx, 1, Type::F32)?, b.src(cx, 2, Type::F32)?)
            } else if matches!(f, MiniFmt::E4M3 | MiniFmt::E5M2) {
                cx.expect_operands(2)?;
                widen_pair(b, cx, CvtType::F16)?
            } else {
                return Err(cx.bad(&format!(".{dt} converts from .f32 only")));
            };
            let t = f.pair_ty();
            let r = b.op1(cx, op(NarrowCvt::ToMiniX2(f)), vec![hi, lo], t);
            b.write(cx, 0, r, t)
        }
        (None, Some(f), "f16x2", _) => {
            cx.expect_operands(2)?;
            if !rn || satfinite {
                return Err(cx.bad(&format!("conversions from .{st} need .rn (no .satfinite)")));
            }
            let a = b.src(cx, 1, f.pair_ty())?;
            let r = b.op1(cx, op(NarrowCvt::FromMiniX2(f)), vec![a], Type::I32);
            b.write(cx, 0, r, Type::I32)
        }
        (None, None, "ue8m0x2", "f32" | "bf16x2") => {
            let rp = cx.has("rp");
            if !(rp || cx.has("rz")) || relu {
                return Err(cx.bad("conversions to .ue8m0x2 need .rz or .rp (no .relu)"));
            }
            let (hi, lo) = if st == "f32" {
                cx.expect_operands(3)?;
                (b.src(cx, 1, Type::F32)?, b.src(cx, 2, Type::F32)?)
            } else {
                cx.expect_operands(2)?;
                widen_pair(b, cx, CvtType::Bf16)?
            };
            let conv = NarrowCvt::ToUe8m0x2 { rp, satfinite };
            let r = b.op1(cx, op(conv), vec![hi, lo], Type::I16);
            b.write(cx, 0, r, Type::I16)
        }
        (None, None, "bf16x2", "ue8m0x2") => {
            cx.expect_operands(2)?;
            if !rn || relu || satfinite {
                return Err(cx.bad("cvt.bf16x2.ue8m0x2 needs .rn (only)"));
            }
            let a = b.src(cx, 1, Type::I16)?;
            let r = b.op1(cx, op(NarrowCvt::FromUe8m0x2), vec![a], Type::I32);
            b.write(cx, 0, r, Type::I32)
        }
        (None, None, "tf32", "f32") => {
            cx.expect_operands(2)?;
            let rnd = if cx.has("rna") {
                TfRound::NearestAway
            } else if rn {
                TfRound::Nearest
            } else if cx.has("rz") {
                TfRound::Zero
            } else {
                return Err(cx.bad("cvt.tf32.f32 needs .rna, .rn or .rz"));
            };
            if rnd == TfRound::NearestAway && relu {
                return Err(cx.bad(".relu is not allowed with .rna"));
            }
            let a = b.src(cx, 1, Type::F32)?;
            let r = b.op1(
                cx,
                op(NarrowCvt::ToTf32(rnd, satfinite)),
                vec![a],
                Type::I32,
            );
            b.write(cx, 0, r, Type::I32)
        }
        _ => Err(cx.bad(&format!("there is no conversion .{dt}.{st}"))),
    }
}

/// `cvt` with stochastic rounding (PTX ISA §9.7.9.21, `.rs`; semantics in
/// `runtime::minifloat::stochastic`):
/// `cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b, rbits` and
/// `cvt.rs{.relu}.satfinite.{e4m3x4,e5m2x4,e2m3x4,e3m2x4,e2m1x4}.f32 d, {a, b, e, f}, rbits`
/// (a to the most significant element of d). The x4 forms are two [`NarrowCvt::MiniX2Rs`]
/// halves joined.
fn cvt_rs(b: &mut Builder, cx: &mut Cx) -> R {
    let x4 = |m: &str| match m {
        "e4m3x4" => Some(MiniFmt::E4M3),
        "e5m2x4" => Some(MiniFmt::E5M2),
        "e2m3x4" => Some(MiniFmt::E2M3),
        "e3m2x4" => Some(MiniFmt::E3M2),
        "e2m1x4" => Some(MiniFmt::E2M1),
        _ => None,
    };
    let tys: Vec<&str> = cx
        .mods
        .iter()
        .copied()
        .filter(|m| {
            narrow_name(m) || ast::ScalarType::from_suffix(m).is_some() || m.ends_with("x2")
        })
        .collect();
    let [dt, "f32"] = tys[..] else {
        return Err(cx.bad("cvt.rs converts from .f32 to .f16x2, .bf16x2 or an x4 narrow type"));
    };
    if !cx.has("rs") {
        return Err(cx.bad(&format!("conversions to .{dt} need .rs")));
    }
    let relu = cx.has("relu");
    let satfinite = cx.has("satfinite");
    if let Some(fmt) = x4(dt) {
        cx.expect_operands(3)?;
        if !satfinite {
            return Err(cx.bad(&format!("conversions to .{dt} need .satfinite")));
        }
        let elems = match cx.opnd(1)? {
            Operand::Vector(e, _) if e.len() == 4 => e.clone(),
            o => {
                return Err(LowerError::new(
                    o.span(),
                    format!("cvt.rs.{dt} takes a vector of four .f32 sources {{a, b, e, f}}"),
                ))
            }
        };
        let mut xs = vec![];
        for e in &elems {
            xs.push(b.src_rel(cx, e, Type::F32, None)?);
        }
        let rbits = b.src(cx, 2, Type::I32)?;
        let pt = fmt.pair_ty();
        let mut halves = vec![];
        for (upper, pair) in [(true, &xs[0..2]), (false, &xs[2..4])] {
            let conv = NarrowCvt::MiniX2Rs { fmt, upper };
            let args = vec![pair[0], pair[1], rbits];
            halves.push(b.op1(cx, Op::CvtNarrow { conv, relu }, args, pt));
        }
        return if pt == Type::I8 {
            // e2m1x4: two 8-bit pairs into a .b16, (a, b) in the upper byte.
            let z = |b: &mut Builder, v| {
                let o = Op::Cvt {
                    dst: CvtType::U16,
                    src: CvtType::U8,
                    rnd: CvtRound::None,
                    sat: false,
                    ftz: false,
                };
                b.op1(cx, o, vec![v], Type::I16)
            };
            let hi = z(b, halves[0]);
            let lo = z(b, halves[1]);
            let sh = b.konst(cx, Type::I32, 8);
            let hi = b.op1(cx, Op::Shl {}, vec![hi, sh], Type::I16);
            let r = b.op1(cx, Op::Or {}, vec![hi, lo], Type::I16);
            b.write(cx, 0, r, Type::I16)
        } else {
            let r = b.pack2(cx, halves[1], halves[0]);
            b.write(cx, 0, r, Type::I32)
        };
    }
    let fmt = match dt {
        "f16x2" => HalfFmt::F16,
        "bf16x2" => HalfFmt::Bf16,
        _ => {
            return Err(cx.bad(&format!(
                "there is no stochastic-rounding conversion to .{dt}"
            )))
        }
    };
    cx.expect_operands(4)?;
    let a = b.src(cx, 1, Type::F32)?;
    let bb = b.src(cx, 2, Type::F32)?;
    let rbits = b.src(cx, 3, Type::I32)?;
    let conv = NarrowCvt::HalfX2Rs { fmt, satfinite };
    let r = b.op1(
        cx,
        Op::CvtNarrow { conv, relu },
        vec![a, bb, rbits],
        Type::I32,
    );
    b.write(cx, 0, r, Type::I32)
}

fn cvt_type(t: ast::ScalarType) -> Option<CvtType> {
    use ast::ScalarType::*;
    Some(match t {
        B8 | U8 => CvtType::U8,
        S8 => CvtType::S8,
        B16 | U16 => CvtType::U16,
        S16 => CvtType::S16,
        B32 | U32 => CvtType::U32,
        S32 => CvtType::S32,
        B64 | U64 => CvtType::U64,
        S64 => CvtType::S64,
        F16 => CvtType::F16,
        Bf16 => CvtType::Bf16,
        F32 => CvtType::F32,
        F64 => CvtType::F64,
        _ => return None,
    })
}

/// `cvt` forms with f16/bf16 (PTX ISA §9.7.9.21): scalar conversions between f16/bf16 and
/// every other type, and `cvt.rn{.relu}.f16x2.f32 d, a, b` / `.bf16x2` (a → upper half,
/// b → lower half).
fn cvt(b: &mut Builder, cx: &mut Cx) -> R {
    if cx.mods.iter().any(|m| narrow_name(m)) {
        return cvt_narrow(b, cx);
    }
    if cx.has("rs") {
        return cvt_rs(b, cx);
    }
    let tys = cx.types();
    if tys.len() != 2 {
        return Err(cx.bad("cvt needs a destination and a source type"));
    }
    let (dt, st) = (tys[0], tys[1]);
    // `.satfinite` (PTX ISA §9.7.9.21) with f16/bf16 results of an f32 source: a result that
    // would be ±∞ is the largest finite value instead (NaN stays NaN).
    let satfinite = cx.has("satfinite");
    if satfinite && !(st == ast::ScalarType::F32 && half_ty(dt).is_some()) {
        return Err(cx.bad(".satfinite needs an f16/bf16 result from f32 here"));
    }
    let relu = cx.has("relu");
    let rnd = super::cvt_round_of(cx);
    let (sat, ftz) = (cx.has("sat"), cx.has("ftz"));
    if let Some((fmt, true)) = half_ty(dt) {
        // cvt.rn{.relu}.f16x2.f32 d, a, b
        cx.expect_operands(3)?;
        if st != ast::ScalarType::F32 {
            return Err(cx.bad("packed conversion needs an .f32 source"));
        }
        let rnd = rnd.unwrap_or(CvtRound::None);
        if !matches!(rnd, CvtRound::Float(_)) {
            return Err(cx.bad("needs .rn/.rz/.rm/.rp"));
        }
        let dst = if fmt == HalfFmt::F16 {
            CvtType::F16
        } else {
            CvtType::Bf16
        };
        let mut parts = vec![];
        for k in [2, 1] {
            let x = b.src(cx, k, Type::F32)?;
            let o = Op::Cvt {
                dst,
                src: CvtType::F32,
                rnd,
                sat,
                ftz,
            };
            let mut h = b.op1(cx, o, vec![x], Type::I16);
            if satfinite {
                let conv = NarrowCvt::SatFinite(fmt);
                h = b.op1(cx, Op::CvtNarrow { conv, relu: false }, vec![h], Type::I16);
            }
            parts.push(if relu {
                b.op1(cx, Op::HRelu { fmt }, vec![h], Type::I16)
            } else {
                h
            });
        }
        let r = b.pack2(cx, parts[0], parts[1]);
        return b.write(cx, 0, r, Type::I32);
    }
    cx.expect_operands(2)?;
    let (Some(dst), Some(src)) = (cvt_type(dt), cvt_type(st)) else {
        return Err(cx.unsupported("this conversion is not supported yet"));
    };
    let rnd = rnd.unwrap_or(CvtRound::None);
    // PTX ISA §9.7.9.21: a narrowing float conversion or int → float needs .rn/.rz/.rm/.rp;
    // float → int needs .rni/.rzi/.rmi/.rpi; widening float conversions take none.
    let narrowing = |s: CvtType, d: CvtType| {
        let w = |t: CvtType| match t {
            CvtType::F16 | CvtType::Bf16 => 16,
            CvtType::F32 => 32,
            _ => 64,
        };
        w(d) < w(s) || (w(d) == w(s) && s != d)
    };
    let ok = match (src.is_float(), dst.is_float()) {
        (true, false) => matches!(rnd, CvtRound::Int(_)),
        (false, true) => matches!(rnd, CvtRound::Float(_)),
        (true, true) if narrowing(src, dst) => matches!(rnd, CvtRound::Float(_)),
        (true, true) => !matches!(rnd, CvtRound::Float(_)),
        (false, false) => rnd == CvtRound::None,
    };
    if !ok {
        return Err(cx.bad("rounding modifier missing or not allowed for these types"));
    }
    if relu && !matches!(dst, CvtType::F16 | CvtType::Bf16) {
        return Err(cx.bad(".relu needs an f16/bf16 destination"));
    }
    let sign = if src.is_signed() {
        Sign::Signed
    } else {
        Sign::Unsigned
    };
    let x = {
        let o = cx.opnd(1)?.clone();
        b.src_sized(cx, &o, src.ir(), st, sign)?
    };
    let o = Op::Cvt {
        dst,
        src,
        rnd,
        sat,
        ftz,
    };
    let mut r = b.op1(cx, o, vec![x], dst.ir());
    if satfinite {
        let fmt = if dst == CvtType::F16 {
            HalfFmt::F16
        } else {
            HalfFmt::Bf16
        };
        let conv = NarrowCvt::SatFinite(fmt);
        r = b.op1(cx, Op::CvtNarrow { conv, relu: false }, vec![r], Type::I16);
    }
    if relu {
        let fmt = if dst == CvtType::F16 {
            HalfFmt::F16
        } else {
            HalfFmt::Bf16
        };
        r = b.op1(cx, Op::HRelu { fmt }, vec![r], Type::I16);
    }
    let dsign = if dst.is_signed() {
        Sign::Signed
    } else {
        Sign::Unsigned
    };
    let d = cx.opnd(0)?.clone();
    if let Some(t) = b.dst_sized(cx, &d, dst.ir(), dt, dsign)? {
        b.copy(t, r, cx.loc, &cx.ptx);
    }
    Ok(())
}

/// Mixed precision (PTX ISA §9.7.5): `add/sub{.rnd}{.sat}.f32.atype d, a, c` and
/// `fma.rnd{.sat}.f32.abtype d, a, b, c` with f16/bf16 a (and b): the halves convert to f32
/// exactly (and their product is exact in f32), so one f32 operation gives the single
/// rounding the ISA specifies.
fn mixed(b: &mut Builder, cx: &mut Cx, op: &str) -> R {
    let tys = cx.types();
    let (dt, at) = (tys[0], tys[1]);
    let Some((fmt, false)) = half_ty(at) else {
        return Err(cx.bad("mixed precision needs .f32.f16 or .f32.bf16"));
    };
    if dt != ast::ScalarType::F32 {
        return Err(cx.bad("mixed precision needs an .f32 destination"));
    }
    let rnd = round_or(cx, Round::Nearest);
    let sat = cx.has("sat");
    let src = if fmt == HalfFmt::F16 {
        CvtType::F16
    } else {
        CvtType::Bf16
    };
    let widen = |b: &mut Builder, cx: &Cx, k: usize| -> Result<Var, LowerError> {
        let h = b.src(cx, k, Type::I16)?;
        let o = Op::Cvt {
            dst: CvtType::F32,
            src,
            rnd: CvtRound::None,
            sat: false,
            ftz: false,
        };
        Ok(b.op1(cx, o, vec![h], Type::F32))
    };
    if op == "fma" {
        cx.expect_operands(4)?;
        let x = widen(b, cx, 1)?;
        let y = widen(b, cx, 2)?;
        let z = b.src(cx, 3, Type::F32)?;
        let o = Op::FFma {
            rnd,
            ftz: false,
            sat,
        };
        return b.unary_to_dst(cx, o, vec![x, y, z], Type::F32);
    }
    cx.expect_operands(3)?;
    let x = widen(b, cx, 1)?;
    let y = b.src(cx, 2, Type::F32)?;
    let o = if op == "add" {
        Op::FAdd {
            rnd,
            ftz: false,
            sat,
        }
    } else {
        Op::FSub {
            rnd,
            ftz: false,
            sat,
        }
    };
    b.unary_to_dst(cx, o, vec![x, y], Type::F32)
}

/// `cvt.pack.sat.convertType.s32{.b32} d, a, b{, c}` (PTX ISA §9.7.9.23): a and b saturate to
/// the convert type; b goes to the low `size` bits, a to the next `size`, and for 8/4/2-bit
/// types the low bits of c fill the rest (`d = c << 2·size | a' << size | b'`).
fn cvt_pack(b: &mut Builder, cx: &mut Cx) -> R {
    if !cx.has("sat") {
        return Err(cx.bad("cvt.pack needs .sat"));
    }
    let (size, signed) = match cx.mods.iter().find_map(|m| match *m {
        "u16" => Some((16, false)),
        "s16" => Some((16, true)),
        "u8" => Some((8, false)),
        "s8" => Some((8, true)),
        "u4" => Some((4, false)),
        "s4" => Some((4, true)),
        "u2" => Some((2, false)),
        "s2" => Some((2, true)),
        _ => None,
    }) {
        Some(t) => t,
        None => return Err(cx.bad("cvt.pack needs a u16/s16/u8/s8/u4/s4/u2/s2 convert type")),
    };
    cx.expect_operands(if size == 16 { 3 } else { 4 })?;
    let (lo, hi): (i64, i64) = if signed {
        (-(1 << (size - 1)), (1 << (size - 1)) - 1)
    } else {
        (0, (1 << size) - 1)
    };
    let sat = |b: &mut Builder, cx: &Cx, k: usize| -> Result<Var, LowerError> {
        let v = b.src(cx, k, Type::I32)?;
        let l = b.konst(cx, Type::I32, lo as u64);
        let h = b.konst(cx, Type::I32, hi as u64);
        let sign = Sign::Signed;
        let v = b.op1(cx, Op::IMax { sign }, vec![v, l], Type::I32);
        let v = b.op1(cx, Op::IMin { sign }, vec![v, h], Type::I32);
        let m = b.konst(cx, Type::I32, (1u64 << size) - 1);
        Ok(b.op1(cx, Op::And {}, vec![v, m], Type::I32))
    };
    let ta = sat(b, cx, 1)?;
    let tb = sat(b, cx, 2)?;
    let sh = b.konst(cx, Type::I32, size);
    let ta = b.op1(cx, Op::Shl {}, vec![ta, sh], Type::I32);
    let mut d = b.op1(cx, Op::Or {}, vec![ta, tb], Type::I32);
    if size < 16 {
        let c = b.src(cx, 3, Type::I32)?;
        let sh2 = b.konst(cx, Type::I32, 2 * size);
        let c = b.op1(cx, Op::Shl {}, vec![c, sh2], Type::I32);
        d = b.op1(cx, Op::Or {}, vec![d, c], Type::I32);
    }
    b.write(cx, 0, d, Type::I32)
}
