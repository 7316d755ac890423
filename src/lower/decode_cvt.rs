//! Conversions (PTX ISA §9.7.9.21 `cvt`, §9.7.9.22 `cvt.pack`): between the integer and
//! floating-point types, to and from f16/bf16 (and their packed x2 forms), the narrow
//! formats (`.e4m3x2` … `.tf32`), stochastic rounding, and the packing conversions.

use super::*;

/// `cvt` and `cvt.pack`, by form.
pub(super) fn cvt(b: &mut Builder, cx: &mut Cx) -> R {
    // `.scaled::n2::ue8m0` scales only the `.rn` conversions of the narrow formats and
    // `.s2f6x2` ([`cvt_narrow`] checks which); ptxas 13.5 refuses it on every other `cvt`
    // ("Arguments mismatch for instruction 'cvt'" on `cvt.rn.scaled::n2::ue8m0.bf16x2.f32`,
    // `cvt.rs.satfinite.scaled::n2::ue8m0.e4m3x4.f32` with or without a scale operand;
    // "Illegal modifier '.scaled::n2::ue8m0' for instruction 'cvt.pack'").
    if cx.has("scaled::n2::ue8m0") && (cx.has("rs") || !cx.mods.iter().any(|m| narrow_name(m))) {
        return Err(cx.bad(
            "illegal modifier '.scaled::n2::ue8m0' here: it scales only the .rn conversions \
             between .bf16x2 and the narrow formats (.e2m1x2 … .e5m2x2, .s2f6x2) and to .s2f6x2",
        ));
    }
    if cx.has("pack") {
        return cvt_pack(b, cx);
    }
    if needs_isa_cvt(cx) {
        return cvt_half(b, cx);
    }
    cvt_basic(b, cx)
}

pub(super) fn cvt_basic(b: &mut Builder, cx: &mut Cx) -> Result<(), LowerError> {
    cx.expect_operands(2)?;
    let tys = cx.types();
    if tys.len() != 2 {
        return Err(cx.bad("cvt needs a destination and a source type"));
    }
    let (dt, st) = (tys[0], tys[1]);
    let (Some(dst), Some(src)) = (cvt_ty(dt), cvt_ty(st)) else {
        return Err(no_conversion(cx, dt, st));
    };
    let rnd = cvt_round_of(cx).unwrap_or(CvtRound::None);
    if !rounding_ok(src, dst, rnd) {
        return Err(cx.bad("rounding modifier missing or not allowed for these types"));
    }
    if !src.is_float() && !dst.is_float() {
        int_cvt_modifiers(cx, dst, src, dt, st)?;
    } else {
        float_cvt_modifiers(cx, dst, src, dt, st)?;
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
    let op = Op::Cvt {
        dst,
        src,
        rnd,
        sat: cx.has("sat"),
        ftz: cx.has("ftz"),
    };
    let dsign = if dst.is_signed() {
        Sign::Signed
    } else {
        Sign::Unsigned
    };
    let d = cx.opnd(0)?.clone();
    if let Some(t) = b.dst_sized(cx, &d, dst.ir(), dt, dsign)? {
        b.emit(op, vec![x], vec![t], cx.loc, &cx.ptx);
    }
    Ok(())
}

/// The modifiers of an integer-to-integer `cvt` (PTX ISA §9.7.9.21): `.ftz` never (it is for
/// floating-point operands), and `.sat` only where the destination type's range does not hold
/// every value of the source type ("the .sat modifier is illegal in cases where saturation is
/// not possible based on the source and destination types"): a narrowing, a signed source into
/// an unsigned destination, or an unsigned source into a signed destination no wider than it.
/// ptxas 13.5 accepts exactly these 38 of the 64 pairs.
fn int_cvt_modifiers(
    cx: &Cx,
    dst: CvtType,
    src: CvtType,
    dt: ast::ScalarType,
    st: ast::ScalarType,
) -> Result<(), LowerError> {
    let (dt, st) = (ty_name(dt), ty_name(st));
    if cx.has("ftz") {
        return Err(cx.bad(&format!(
            "modifier .ftz is not allowed on an integer conversion (cvt.{dt}.{st})"
        )));
    }
    let (db, sb) = (dst.ir().bits(), src.ir().bits());
    let holds_every_source_value = match (dst.is_signed(), src.is_signed()) {
        (false, false) | (true, true) => db >= sb,
        (true, false) => db > sb,
        (false, true) => false,
    };
    if cx.has("sat") && holds_every_source_value {
        return Err(cx.bad(&format!(
            "modifier .sat is not allowed on cvt.{dt}.{st}: .{dt} holds every .{st} value, \
             so nothing saturates"
        )));
    }
    Ok(())
}

/// Whether `rnd` is the rounding a `cvt` from `src` to `dst` takes (PTX ISA §9.7.9.21, "Rounding
/// modifiers"): float→int needs an integer rounding; int→float and a narrowing float conversion
/// (`.f32.f64`, `.f16.f32`, `.bf16.f16`) a float rounding; a float conversion to its own type
/// takes an integer rounding or none; a widening one takes none ("illegal in all other
/// instances"; ptxas 13.5: "Illegal rounding modifier for instruction 'cvt'" on `cvt.rn.f64.f32`
/// and `cvt.rni.f32.f16`), except that ptxas 13.5 takes an optional float rounding on a widening
/// from `.bf16` (`cvt.rn.f32.bf16`, `cvt.rz.f64.bf16`), where it changes nothing: the result is
/// exact. An integer conversion takes none.
fn rounding_ok(src: CvtType, dst: CvtType, rnd: CvtRound) -> bool {
    let width = |t: CvtType| match t {
        CvtType::F16 | CvtType::Bf16 => 16,
        CvtType::F32 => 32,
        _ => 64,
    };
    let float = matches!(rnd, CvtRound::Float(_));
    match (src.is_float(), dst.is_float()) {
        (true, false) => matches!(rnd, CvtRound::Int(_)),
        (false, true) => float,
        (false, false) => rnd == CvtRound::None,
        (true, true) if src == dst => !float,
        (true, true) if width(dst) <= width(src) => float,
        (true, true) if src == CvtType::Bf16 => !matches!(rnd, CvtRound::Int(_)),
        (true, true) => rnd == CvtRound::None,
    }
}

/// The modifiers of a `cvt` with a floating-point source or destination, as ptxas 13.5 checks
/// them (PTX ISA §9.7.9.21 gives `.ftz` for `.f32` operands and `.sat` per conversion):
/// `.ftz` needs an `.f32` source or destination ("Modifier '.ftz' does not apply to this type
/// of convert operation" on `cvt.rzi.ftz.s32.f64`, "Illegal modifier '.ftz'" on
/// `cvt.ftz.f64.bf16`); `.sat` is refused on every conversion from or to `.bf16` ("Illegal
/// modifier '.sat' for instruction 'cvt'" on `cvt.sat.f32.bf16`, `cvt.rn.sat.bf16.f32`).
fn float_cvt_modifiers(
    cx: &Cx,
    dst: CvtType,
    src: CvtType,
    dt: ast::ScalarType,
    st: ast::ScalarType,
) -> Result<(), LowerError> {
    let (dn, sn) = (ty_name(dt), ty_name(st));
    let bf16 = src == CvtType::Bf16 || dst == CvtType::Bf16;
    if cx.has("ftz") && src != CvtType::F32 && dst != CvtType::F32 {
        return Err(cx.bad(&format!(
            "illegal modifier '.ftz' for instruction 'cvt': .ftz needs an .f32 source or \
             destination (cvt.{dn}.{sn})"
        )));
    }
    if cx.has("sat") && bf16 {
        return Err(cx.bad(&format!(
            "illegal modifier '.sat' for instruction 'cvt': no conversion from or to .bf16 \
             takes it (cvt.{dn}.{sn})"
        )));
    }
    Ok(())
}

/// The rounding modifier of a `cvt` (PTX ISA §9.7.9.21): `.rn .rz .rm .rp` round the value,
/// `.rni .rzi .rmi .rpi` round to an integer; `None` without one.
pub(super) fn cvt_round_of(cx: &Cx) -> Option<CvtRound> {
    cx.mods.iter().find_map(|m| match *m {
        "rn" => Some(CvtRound::Float(Round::Nearest)),
        "rz" => Some(CvtRound::Float(Round::Zero)),
        "rm" => Some(CvtRound::Float(Round::Down)),
        "rp" => Some(CvtRound::Float(Round::Up)),
        "rni" => Some(CvtRound::Int(Round::Nearest)),
        "rzi" => Some(CvtRound::Int(Round::Zero)),
        "rmi" => Some(CvtRound::Int(Round::Down)),
        "rpi" => Some(CvtRound::Int(Round::Up)),
        _ => None,
    })
}

pub(super) fn needs_isa_cvt(cx: &Cx) -> bool {
    cx.types().iter().any(|t| half_ty(*t).is_some())
        || cx.has("relu")
        || cx.has("satfinite")
        || cx.mods.iter().any(|m| narrow_name(m))
}

/// The instruction-only narrow float types of `cvt` (PTX ISA §9.7.9.21).
pub(super) fn narrow_name(m: &str) -> bool {
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
            | "s2f6x2"
    )
}

/// `cvt` to and from the narrow formats (PTX ISA §9.7.9.21):
/// `.rn.satfinite{.relu}.{e4m3x2,e5m2x2,e2m3x2,e3m2x2,e2m1x2}.{f32 d, a, b | f16x2 d, a |
/// bf16x2 d, a}`, `.rn{.relu}.f16x2.<those> d, a`,
/// `.rn{.relu}{.satfinite}{.scaled::n2::ue8m0}.bf16x2.<those> d, a{, scale}`,
/// `.rn.satfinite{.relu}{.scaled::n2::ue8m0}.s2f6x2.{f32 d, a, b | bf16x2 d, a}{, scale}`,
/// `.rn{.satfinite}{.relu}{.scaled::n2::ue8m0}.bf16x2.s2f6x2 d, a{, scale}`,
/// `.{rz,rp}{.satfinite}.ue8m0x2.{f32 d, a, b | bf16x2 d, a}`, `.rn.bf16x2.ue8m0x2 d, a`, and
/// `.{rna,rn,rz}{.satfinite}{.relu}.tf32.f32 d, a`. The four-element forms exist only with
/// stochastic rounding (`.rs`): [`cvt_rs`].
pub(super) fn cvt_narrow(b: &mut Builder, cx: &mut Cx) -> R {
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
    // `.scaled::n2::ue8m0` and its scale-factor operand come together (PTX ISA §9.7.9.21).
    let scaled = cx.has("scaled::n2::ue8m0");
    let scalable = dt == "s2f6x2" || (dt == "bf16x2" && (mini(st).is_some() || st == "s2f6x2"));
    if scaled && !scalable {
        return Err(cx.bad(&format!(
            ".scaled::n2::ue8m0 is not allowed with cvt .{dt}.{st}"
        )));
    }
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
    // The scale-factor operand at `k` (then the last), or two scales of 1 without
    // `.scaled::n2::ue8m0`.
    let scale = |b: &mut Builder, cx: &mut Cx, k: usize| -> Result<Var, LowerError> {
        if scaled {
            cx.expect_operands(k + 1)?;
            b.src(cx, k, Type::I16)
        } else {
            cx.expect_operands(k)?;
            Ok(b.konst(cx, Type::I16, 0x7f7f))
        }
    };
    let half_src = |t: &str| match t {
        "f16x2" => Some(CvtType::F16),
        "bf16x2" => Some(CvtType::Bf16),
        _ => None,
    };
    match (mini(dt), mini(st), dt, st) {
        (Some(f), None, _, "f32" | "f16x2" | "bf16x2") => {
            if !rn || !satfinite {
                return Err(cx.bad(&format!("conversions to .{dt} need .rn.satfinite")));
            }
            let (hi, lo) = match half_src(st) {
                None => {
                    cx.expect_operands(3)?;
                    (b.src(cx, 1, Type::F32)?, b.src(cx, 2, Type::F32)?)
                }
                // f16/bf16 → f32 is exact, so one rounding from f32 is the direct one.
                Some(h) => {
                    cx.expect_operands(2)?;
                    widen_pair(b, cx, h)?
                }
            };
            let t = f.pair_ty();
            let r = b.op1(cx, op(NarrowCvt::ToMiniX2(f)), vec![hi, lo], t);
            b.write(cx, 0, r, t)
        }
        (None, Some(f), "f16x2", _) => {
            cx.expect_operands(2)?;
            if !rn || satfinite {
                return Err(cx.bad(&format!(
                    "conversions from .{st} to .f16x2 need .rn (no .satfinite)"
                )));
            }
            let a = b.src(cx, 1, f.pair_ty())?;
            let r = b.op1(cx, op(NarrowCvt::FromMiniX2(f)), vec![a], Type::I32);
            b.write(cx, 0, r, Type::I32)
        }
        (None, Some(f), "bf16x2", _) => {
            if !rn {
                return Err(cx.bad(&format!("conversions from .{st} need .rn")));
            }
            let sc = scale(b, cx, 2)?;
            let a = b.src(cx, 1, f.pair_ty())?;
            let conv = NarrowCvt::FromMiniX2Bf16 { fmt: f, satfinite };
            let r = b.op1(cx, op(conv), vec![a, sc], Type::I32);
            b.write(cx, 0, r, Type::I32)
        }
        (None, None, "s2f6x2", "f32" | "bf16x2") => {
            if !rn || !satfinite {
                return Err(cx.bad("conversions to .s2f6x2 need .rn.satfinite"));
            }
            let (hi, lo, sc) = if st == "f32" {
                let sc = scale(b, cx, 3)?;
                (b.src(cx, 1, Type::F32)?, b.src(cx, 2, Type::F32)?, sc)
            } else {
                let sc = scale(b, cx, 2)?;
                let (hi, lo) = widen_pair(b, cx, CvtType::Bf16)?;
                (hi, lo, sc)
            };
            let r = b.op1(cx, op(NarrowCvt::ToS2f6x2), vec![hi, lo, sc], Type::I16);
            b.write(cx, 0, r, Type::I16)
        }
        (None, None, "bf16x2", "s2f6x2") => {
            if !rn {
                return Err(cx.bad("conversions from .s2f6x2 need .rn"));
            }
            let sc = scale(b, cx, 2)?;
            let a = b.src(cx, 1, Type::I16)?;
            let conv = NarrowCvt::FromS2f6x2 { satfinite };
            let r = b.op1(cx, op(conv), vec![a, sc], Type::I32);
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
pub(super) fn cvt_rs(b: &mut Builder, cx: &mut Cx) -> R {
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

pub(super) fn cvt_type(t: ast::ScalarType) -> Option<CvtType> {
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

/// The error for a `cvt` between types it has no conversion for (`.pred`, `.b128`, the opaque
/// types, a packed `.f16x2`/`.bf16x2` source): ptxas says "Unexpected instruction types
/// specified for 'cvt'".
fn no_conversion(cx: &Cx, dt: ast::ScalarType, st: ast::ScalarType) -> LowerError {
    cx.bad(&format!(
        "unexpected instruction types .{}.{} for 'cvt': PTX ISA §9.7.9.21 has no such conversion",
        ty_name(dt),
        ty_name(st)
    ))
}

/// `cvt` forms with f16/bf16 (PTX ISA §9.7.9.21): scalar conversions between f16/bf16 and
/// every other type, and `cvt.rn{.relu}.f16x2.f32 d, a, b` / `.bf16x2` (a → upper half,
/// b → lower half).
pub(super) fn cvt_half(b: &mut Builder, cx: &mut Cx) -> R {
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
    let rnd = cvt_round_of(cx);
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
        return Err(no_conversion(cx, dt, st));
    };
    let mut rnd = rnd.unwrap_or(CvtRound::None);
    // Between `.f16` and `.bf16` (either way) the float rounding is optional to ptxas 13.5,
    // and its absence means `.rn`: the cubins of `cvt.bf16.f16` and `cvt.rn.bf16.f16` (and of
    // `cvt.f16.bf16` and `cvt.rn.f16.bf16`) are byte for byte equal on sm_90a, where `.rz`
    // gives other code. Integer roundings stay refused ("Illegal rounding modifier").
    let half_pair = matches!(
        (src, dst),
        (CvtType::F16, CvtType::Bf16) | (CvtType::Bf16, CvtType::F16)
    );
    if half_pair && rnd == CvtRound::None {
        rnd = CvtRound::Float(Round::Nearest);
    }
    if !rounding_ok(src, dst, rnd) {
        return Err(cx.bad("rounding modifier missing or not allowed for these types"));
    }
    // A widening from `.bf16` (to `.f32`/`.f64`) is exact: its optional float rounding
    // changes nothing. `.bf16` → `.f16` is not a widening: it keeps its rounding.
    if src == CvtType::Bf16 && matches!(dst, CvtType::F32 | CvtType::F64) {
        rnd = CvtRound::None;
    }
    if src.is_float() || dst.is_float() {
        float_cvt_modifiers(cx, dst, src, dt, st)?;
    } else {
        int_cvt_modifiers(cx, dst, src, dt, st)?;
    }
    // ptxas 13.5: "Unexpected instruction types specified for 'cvt'" on `cvt.rn.relu.f16.f64`,
    // `cvt.rn.relu.bf16.f16`, `cvt.relu.f16.f16`.
    if relu && !(src == CvtType::F32 && matches!(dst, CvtType::F16 | CvtType::Bf16)) {
        return Err(cx.bad(&format!(
            "unexpected instruction types .{}.{} for 'cvt' with .relu: it converts .f32 to \
             .f16/.bf16",
            ty_name(dt),
            ty_name(st)
        )));
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

/// `cvt.pack.sat.convertType.s32{.b32} d, a, b{, c}` (PTX ISA §9.7.9.23): a and b saturate to
/// the convert type; b goes to the low `size` bits, a to the next `size`, and for 8/4/2-bit
/// types the low bits of c fill the rest (`d = c << 2·size | a' << size | b'`).
pub(super) fn cvt_pack(b: &mut Builder, cx: &mut Cx) -> R {
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
