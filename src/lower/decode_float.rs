//! Floating-point instructions (PTX ISA §9.7.3) on `.f32` and `.f64`, in every rounding mode,
//! with the `.approx` functions, and mixed-precision `add`/`sub`/`fma` (§9.7.5: `.f32`
//! results of `.f16`/`.bf16` sources).

use super::*;

/// `neg`, `abs` on `.f32`/`.f64` (§9.7.3.9-10): a sign flip or clear, NaN included.
pub(super) fn neg_abs(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(2)?;
    let (ty, _, _) = int_or_float(cx)?;
    let x = b.src(cx, 1, ty)?;
    let ftz = cx.has("ftz");
    let o = if cx.inst.opcode.name == "neg" {
        Op::FNeg { ftz }
    } else {
        Op::FAbs { ftz }
    };
    b.unary_to_dst(cx, o, vec![x], ty)
}

/// `add`, `sub`, `mul` and `fma` on `.f32x2` (§9.7.3.3-6, PTX ISA 8.6): the two `.f32`
/// halves of the `.b64` operands (bits 31..0 and 63..32) each computed as the `.f32` form
/// with the same rounding (`.rn` by default; `fma` needs one) and `.ftz`; no `.sat` (ptxas
/// rejects it). The halves never mix, so which is `.x` does not matter.
fn float_arith_x2(b: &mut Builder, cx: &mut Cx, op: &str) -> R {
    let n = match op {
        "add" | "sub" | "mul" => 2,
        "fma" => 3,
        _ => return Err(cx.bad(".f32x2 takes add, sub, mul and fma only")),
    };
    if cx.has("sat") {
        return Err(cx.bad(".sat does not apply to .f32x2"));
    }
    if op == "fma" && cx.round().is_none() {
        return Err(cx.bad("fma needs a rounding modifier"));
    }
    cx.expect_operands(n + 1)?;
    for k in 0..=n {
        // A pair lives in a 64-bit bit or integer register; ptxas rejects an immediate or an
        // `.f64` register ("Arguments mismatch").
        let reg = match cx.opnd(k)? {
            Operand::Reg {
                name,
                component: None,
            } => Some(name),
            _ => None,
        };
        let declared = reg
            .and_then(|n| b.reg(&n.name))
            .and_then(|v| b.decl.get(&v).copied());
        use ast::ScalarType as S;
        if !matches!(declared, Some(S::B64 | S::U64 | S::S64)) {
            return Err(LowerError::new(
                cx.opnd(k)?.span(),
                format!(
                    "operand {k} of '{}' must be a .b64 register (a .f32x2 pair)",
                    cx.ptx
                ),
            ));
        }
    }
    let (rnd, ftz) = (round_or(cx, Round::Nearest), cx.has("ftz"));
    let o = match op {
        "add" => Op::FAdd {
            rnd,
            ftz,
            sat: false,
        },
        "sub" => Op::FSub {
            rnd,
            ftz,
            sat: false,
        },
        "mul" => Op::FMul {
            rnd,
            ftz,
            sat: false,
        },
        _ => Op::FFma {
            rnd,
            ftz,
            sat: false,
        },
    };
    let (mut lo, mut hi) = (vec![], vec![]);
    for k in 1..=n {
        let v = b.src(cx, k, Type::I64)?;
        let (l, h) = b.split_f32x2(cx, v);
        lo.push(l);
        hi.push(h);
    }
    let l = b.op1(cx, o, lo, Type::F32);
    let h = b.op1(cx, o, hi, Type::F32);
    let r = b.pack_f32x2(cx, l, h);
    b.write(cx, 0, r, Type::I64)
}

pub(super) fn float_arith(b: &mut Builder, cx: &mut Cx, op: &str) -> R {
    if cx.has("f32x2") {
        return float_arith_x2(b, cx, op);
    }
    let (ty, _, _) = int_or_float(cx)?;
    // The integer forms' halves are no float modifiers (ptxas: "Unexpected instruction types
    // specified for 'mul.lo'").
    if let Some(m) = ["lo", "hi", "wide"].into_iter().find(|m| cx.has(m)) {
        return Err(cx.bad(&format!(
            ".{m} selects part of an integer product; '{op}' on floats takes no .{m}"
        )));
    }
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
            // `mad.f32` takes a rounding modifier from sm_20 on, `mad.f64` always (PTX ISA
            // §9.7.3.7); ptxas requires one for every target it builds for.
            if cx.round().is_none() {
                return Err(cx.bad(&format!("{op} needs a rounding modifier")));
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

pub(super) fn float_unary(b: &mut Builder, cx: &mut Cx, op: &str) -> R {
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
                // ptxas 13.5 takes `.ftz` on `rcp.rnd.f64` (not in the ISA's syntax, which
                // lists `rcp.rnd.f64` without it) and emits the same code as without it: the
                // cubins of `rcp.{rn,rz,rm,rp}.ftz.f64` and `rcp.{rn,rz,rm,rp}.f64` are byte
                // for byte equal on sm_80, sm_90a and sm_100a. So it flushes nothing here.
                // `sqrt.rnd.ftz.f64` it refuses ("Illegal modifier '.ftz' for instruction
                // 'sqrt'").
                if ty == Type::F64 && ftz && op == "sqrt" {
                    return Err(cx.bad(".ftz applies to .f32 only (sqrt.rnd.f64 takes none)"));
                }
                if op == "sqrt" {
                    Op::FSqrt { rnd, approx, ftz }
                } else {
                    Op::FRcp {
                        rnd,
                        approx,
                        ftz: ftz && ty == Type::F32,
                    }
                }
            }
        }
        _ => {
            if !approx {
                return Err(cx.bad("needs .approx"));
            }
            let two_pi = cx.has("2pi");
            if two_pi && !ftz {
                // ptxas: ".ftz modifier required for instruction 'sin' with modifier '.2pi'".
                return Err(cx.bad(".2pi needs .ftz"));
            }
            let f = match op {
                "rsqrt" => ApproxFn::Rsqrt,
                "sin" if two_pi => ApproxFn::Sin2Pi,
                "cos" if two_pi => ApproxFn::Cos2Pi,
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

pub(super) fn float_minmax(b: &mut Builder, cx: &mut Cx, max: bool) -> R {
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

pub(super) fn testp(b: &mut Builder, cx: &mut Cx) -> R {
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

pub(super) fn copysign(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(3)?;
    let (ty, _, float) = int_or_float(cx)?;
    if !float {
        return Err(cx.bad("copysign needs .f32 or .f64"));
    }
    let x = b.src(cx, 1, ty)?;
    let y = b.src(cx, 2, ty)?;
    b.unary_to_dst(cx, Op::CopySign {}, vec![x, y], ty)
}

/// Mixed precision (PTX ISA §9.7.5): `add/sub{.rnd}{.sat}.f32.atype d, a, c` and
/// `fma.rnd{.sat}.f32.abtype d, a, b, c` with f16/bf16 a (and b): the halves convert to f32
/// exactly (and their product is exact in f32), so one f32 operation gives the single
/// rounding the ISA specifies.
pub(super) fn mixed(b: &mut Builder, cx: &mut Cx, op: &str) -> R {
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
