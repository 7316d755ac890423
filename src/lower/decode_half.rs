//! Half-precision instructions (PTX ISA §9.7.4) and comparisons (§9.7.7) on `.f16`, `.bf16`
//! and their packed x2 forms. Packed operands are `i32` values; each half is split off
//! (element 0 in bits 15..0), computed as a scalar and packed again.

use super::cmp::{bool_op, fcmp_of};
use super::*;

pub(super) fn half_arith(b: &mut Builder, cx: &mut Cx, op: &str, (fmt, x2): (HalfFmt, bool)) -> R {
    // `add{.rnd}` on .f16/.bf16 (PTX ISA §9.7.4.1-3): `.rnd = { .rn }` (ptxas 13.5: "Illegal
    // rounding modifier for instruction 'add'" on `add.rz.f16`).
    only_rn(cx)?;
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

pub(super) fn half_fma(b: &mut Builder, cx: &mut Cx, (fmt, x2): (HalfFmt, bool)) -> R {
    let rnd = cx
        .round()
        .ok_or_else(|| cx.bad("fma on f16/bf16 needs a rounding modifier"))?;
    let (ftz, sat, relu) = (cx.has("ftz"), cx.has("sat"), cx.has("relu"));
    // `fma.rnd{.relu}.bf16` (PTX ISA §9.7.4.4 syntax; ptxas: "Illegal modifier '.sat' for
    // instruction 'fma'").
    if fmt == HalfFmt::Bf16 && (ftz || sat) {
        return Err(cx.bad(".ftz/.sat are not allowed on .bf16"));
    }
    if sat && relu {
        return Err(cx.bad(".sat and .relu exclude each other"));
    }
    // `fma.rnd{.ftz}{.sat}.f16` (PTX ISA §9.7.4.4): `.rnd = { .rn }` on .f16/.f16x2 (ptxas
    // 13.5: "Illegal rounding modifier for instruction 'fma'"); .bf16/.bf16x2 take .rz, .rm
    // and .rp as well (ptxas 13.5 assembles `fma.rz.bf16`), rounded as the word says.
    if fmt == HalfFmt::F16 {
        only_rn(cx)?;
    }
    // `fma.rnd.oob{.relu}.type`: no `.ftz`/`.sat` (PTX ISA §9.7.4.4 syntax). The syntax
    // writes `.rn`; ptxas 13.5 also assembles `fma.rm.oob.bf16`, which rounds as `.rm` and
    // applies the out-of-bounds rule to its sources like any `.oob` (the rounding of the
    // product and the zero result for an out-of-bounds source are independent).
    let oob = cx.has("oob");
    if oob && (ftz || sat) {
        return Err(cx.bad(".oob takes no .ftz/.sat"));
    }
    let o = Op::HFma {
        fmt,
        rnd,
        ftz,
        sat,
        relu,
        oob,
    };
    b.per_half(cx, x2, 3, &|b, cx, a| b.op1(cx, o, a.to_vec(), Type::I16))
}

/// Refuses a rounding modifier other than `.rn` (the half-precision `add`, `sub`, `mul` and
/// the `.f16` `fma`, PTX ISA §9.7.4.1-4), naming it as ptxas does.
fn only_rn(cx: &Cx) -> R {
    match cx.mods.iter().find(|m| matches!(**m, "rz" | "rm" | "rp")) {
        Some(m) => Err(cx.bad(&format!(
            "illegal rounding modifier '.{m}' for instruction '{}' (only .rn rounds here)",
            cx.inst.opcode.name
        ))),
        None => Ok(()),
    }
}

pub(super) fn half_minmax(
    b: &mut Builder,
    cx: &mut Cx,
    max: bool,
    (fmt, x2): (HalfFmt, bool),
) -> R {
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

pub(super) fn half_sign(b: &mut Builder, cx: &mut Cx, neg: bool, (fmt, x2): (HalfFmt, bool)) -> R {
    let ftz = cx.has("ftz");
    let o = if neg {
        Op::HNeg { fmt, ftz }
    } else {
        Op::HAbs { fmt, ftz }
    };
    b.per_half(cx, x2, 1, &|b, cx, a| b.op1(cx, o, a.to_vec(), Type::I16))
}

pub(super) fn half_approx(b: &mut Builder, cx: &mut Cx, op: &str, (fmt, x2): (HalfFmt, bool)) -> R {
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

/// `setp.cmp{.bool}{.ftz}.f16/bf16{x2} p[|q], a, b{, c}` (PTX ISA §9.7.7.2): for x2, p is the
/// lower half's result and q the upper's; for scalars q = !result.
pub(super) fn half_setp(b: &mut Builder, cx: &mut Cx, (fmt, x2): (HalfFmt, bool)) -> R {
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
