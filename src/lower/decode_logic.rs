//! Logic and shift instructions (PTX ISA §9.7.8): `and`, `or`, `xor`, `not`, `cnot`, `lop3`,
//! `shf`, `shl`, `shr`.

use super::*;

/// `and`, `or`, `xor`, `not` (§9.7.8.1-4) on `.pred` and `.b16`-`.b64`.
pub(super) fn bitwise(b: &mut Builder, cx: &mut Cx) -> R {
    let op = cx.inst.opcode.name.as_str();
    int::check_int_kinds(cx, int::IntKinds::BitsPred)?;
    let (ty, _, float) = int_or_float(cx)?;
    if float {
        return Err(cx.bad("bitwise operations need .b/.pred types"));
    }
    if op == "not" {
        cx.expect_operands(2)?;
        let x = b.src(cx, 1, ty)?;
        return b.unary_to_dst(cx, Op::Not {}, vec![x], ty);
    }
    cx.expect_operands(3)?;
    let x = b.src(cx, 1, ty)?;
    let y = b.src(cx, 2, ty)?;
    let o = match op {
        "and" => Op::And {},
        "or" => Op::Or {},
        _ => Op::Xor {},
    };
    b.unary_to_dst(cx, o, vec![x, y], ty)
}

/// `shl`, `shr` (§9.7.8.8-9): the count is an unsigned 32-bit value.
pub(super) fn shift(b: &mut Builder, cx: &mut Cx) -> R {
    let kinds = if cx.inst.opcode.name == "shl" {
        int::IntKinds::Bits
    } else {
        int::IntKinds::All
    };
    int::check_int_kinds(cx, kinds)?;
    cx.expect_operands(3)?;
    let (ty, sign, float) = int_or_float(cx)?;
    if float || ty == Type::Pred {
        return Err(cx.bad("shifts need an integer type"));
    }
    let x = b.src(cx, 1, ty)?;
    b.check_u32_operand(cx, 2)?;
    let y = b.src(cx, 2, Type::I32)?;
    let o = if cx.inst.opcode.name == "shl" {
        Op::Shl {}
    } else {
        Op::Shr { sign }
    };
    b.unary_to_dst(cx, o, vec![x, y], ty)
}

pub(super) fn cnot(b: &mut Builder, cx: &mut Cx) -> R {
    int::check_int_kinds(cx, int::IntKinds::Bits)?;
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

pub(super) fn lop3(b: &mut Builder, cx: &mut Cx) -> R {
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

pub(super) fn shf(b: &mut Builder, cx: &mut Cx) -> R {
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
    b.check_u32_operand(cx, 3)?;
    let z = b.src(cx, 3, Type::I32)?;
    b.unary_to_dst(cx, Op::Shf { left, clamp }, vec![x, y, z], Type::I32)
}
