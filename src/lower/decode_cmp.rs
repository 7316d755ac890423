//! Comparison and selection instructions (PTX ISA §9.7.6): `set`, `setp`, `selp`, `slct`
//! (the f16/bf16 forms of `set`/`setp`, §9.7.7, are in `decode_half.rs` and `set`).

use super::*;

/// `selp` (§9.7.6.3): `d = c ? a : b`.
pub(super) fn selp(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(4)?;
    let (ty, _, _) = int_or_float(cx)?;
    let x = b.src(cx, 1, ty)?;
    let y = b.src(cx, 2, ty)?;
    let p = b.src(cx, 3, Type::Pred)?;
    b.unary_to_dst(cx, Op::Select {}, vec![x, y, p], ty)
}

pub(super) fn setp(b: &mut Builder, cx: &mut Cx) -> Result<(), LowerError> {
    let (ty, sign, float) = int_or_float(cx)?;
    let n = cx.inst.operands.len();
    if n != 3 && n != 4 {
        return Err(cx.bad("expects 3 or 4 operands"));
    }
    let cmp = cx
        .mods
        .first()
        .copied()
        .ok_or_else(|| cx.bad("missing comparison"))?;
    let x = b.src(cx, 1, ty)?;
    let y = b.src(cx, 2, ty)?;
    let op = if float {
        let cc =
            fcmp_name(cmp).ok_or_else(|| cx.bad(&format!("unknown float comparison '{cmp}'")))?;
        Op::FCmp {
            cc,
            ftz: cx.has("ftz"),
        }
    } else {
        let (cc, sign) = icmp_name(cmp, sign)
            .ok_or_else(|| cx.bad(&format!("unknown integer comparison '{cmp}'")))?;
        Op::ICmp { cc, sign }
    };
    let t = b.emit1(op, vec![x, y], Type::Pred, cx.loc, &cx.ptx);
    let bool_op = cx.mods.iter().find_map(|m| match *m {
        "and" => Some(Op::And {}),
        "or" => Some(Op::Or {}),
        "xor" => Some(Op::Xor {}),
        _ => None,
    });
    let c = if n == 4 {
        if bool_op.is_none() {
            return Err(cx.bad("a fourth operand needs .and/.or/.xor"));
        }
        Some(b.src(cx, 3, Type::Pred)?)
    } else {
        None
    };
    let combine = |b: &mut Builder, cx: &Cx, v: Var| -> Var {
        match (bool_op, c) {
            (Some(o), Some(c)) => b.emit1(o, vec![v, c], Type::Pred, cx.loc, &cx.ptx),
            _ => v,
        }
    };
    let d = cx.opnd(0)?.clone();
    let (p, q) = match &d {
        Operand::PredPair(p, q) => (
            Operand::Reg {
                name: p.clone(),
                component: None,
            },
            Some(Operand::Reg {
                name: q.clone(),
                component: None,
            }),
        ),
        other => (other.clone(), None),
    };
    let pv = combine(b, cx, t);
    if let Some(dv) = b.dst_rel(cx, &p, Type::Pred, None)? {
        b.copy(dv, pv, cx.loc, &cx.ptx);
    }
    if let Some(q) = q {
        let nt = b.emit1(Op::Not {}, vec![t], Type::Pred, cx.loc, &cx.ptx);
        let qv = combine(b, cx, nt);
        if let Some(dv) = b.dst_rel(cx, &q, Type::Pred, None)? {
            b.copy(dv, qv, cx.loc, &cx.ptx);
        }
    }
    Ok(())
}

/// A float comparison by its PTX name (PTX ISA §9.7.6.1: `eq` … `geu`, `num`, `nan`).
pub(super) fn fcmp_name(cmp: &str) -> Option<FCmp> {
    Some(match cmp {
        "eq" => FCmp::Eq,
        "ne" => FCmp::Ne,
        "lt" => FCmp::Lt,
        "le" => FCmp::Le,
        "gt" => FCmp::Gt,
        "ge" => FCmp::Ge,
        "equ" => FCmp::Equ,
        "neu" => FCmp::Neu,
        "ltu" => FCmp::Ltu,
        "leu" => FCmp::Leu,
        "gtu" => FCmp::Gtu,
        "geu" => FCmp::Geu,
        "num" => FCmp::Num,
        "nan" => FCmp::Nan,
        _ => return None,
    })
}

pub(super) fn fcmp_of(cx: &Cx) -> Result<FCmp, LowerError> {
    let cmp = cx
        .mods
        .first()
        .copied()
        .ok_or_else(|| cx.bad("missing comparison"))?;
    fcmp_name(cmp).ok_or_else(|| cx.bad(&format!("unknown float comparison '{cmp}'")))
}

pub(super) fn bool_op(cx: &Cx) -> Option<Op> {
    cx.mods.iter().find_map(|m| match *m {
        "and" => Some(Op::And {}),
        "or" => Some(Op::Or {}),
        "xor" => Some(Op::Xor {}),
        _ => None,
    })
}

/// A comparison of two sources of PTX type `st` → pred (integer, float or half).
pub(super) fn compare(
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
        let (cc, sign) = icmp_name(cmp, sign)
            .ok_or_else(|| cx.bad(&format!("unknown integer comparison '{cmp}'")))?;
        Op::ICmp { cc, sign }
    };
    Ok(b.op1(cx, op, vec![x, y], Type::Pred))
}

/// `set.cmp{.bool}{.ftz}.dtype.stype d, a, b{, {!}c}` (PTX ISA §9.7.6.1, §9.7.7.1): d is
/// 0xffffffff / 1.0 (f32) / 1.0 (f16, bf16) when true, 0 when false; packed x2 types compare
/// and produce per half (0xffff or 1.0 in each half).
pub(super) fn set(b: &mut Builder, cx: &mut Cx) -> R {
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
pub(super) fn slct(b: &mut Builder, cx: &mut Cx) -> R {
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

/// The integer comparison `cmp` (PTX ISA §9.7.6.2 `setp`'s `.CmpOp`) on operands of
/// signedness `sign`: `.lo/.ls/.hi/.hs` compare unsigned whatever the type.
fn icmp_name(cmp: &str, sign: Sign) -> Option<(ICmp, Sign)> {
    Some(match cmp {
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
        _ => return None,
    })
}
