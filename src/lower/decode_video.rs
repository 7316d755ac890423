//! Decoding of the video instructions (PTX ISA §9.7.18): scalar `vadd vsub vabsdiff vmin vmax
//! vshl vshr vset vmad` with operand selectors, saturation, secondary operations and data
//! merge, and the SIMD `vadd2 … vset2` / `vadd4 … vset4` forms with lane selectors, masks and
//! accumulation, and `vmad` with operand negation (`-a`, `-b`, `-c`).

use super::super::build::{Builder, Var};
use super::super::LowerError;
use super::Cx;
use crate::ir::{ICmp, Op, Sign, Type, VideoOp, VideoSec, VideoTypes};
use crate::ptx::ast::{self, Operand};

type R = Result<(), LowerError>;

fn sign_of(t: ast::ScalarType) -> Result<Sign, ()> {
    match t {
        ast::ScalarType::U32 => Ok(Sign::Unsigned),
        ast::ScalarType::S32 => Ok(Sign::Signed),
        _ => Err(()),
    }
}

fn cmp_of(cx: &Cx) -> Option<ICmp> {
    cx.mods.iter().find_map(|m| match *m {
        "eq" => Some(ICmp::Eq),
        "ne" => Some(ICmp::Ne),
        "lt" => Some(ICmp::Lt),
        "le" => Some(ICmp::Le),
        "gt" => Some(ICmp::Gt),
        "ge" => Some(ICmp::Ge),
        _ => None,
    })
}

/// An operand's register and its selector text (empty when none).
fn reg_sel(b: &mut Builder, cx: &Cx, o: &Operand) -> Result<(Var, String), LowerError> {
    match o {
        Operand::Select { name, sel, .. } => {
            let r = b.reg_var(cx, name)?;
            let v = b.coerce(cx, r, Type::I32, None, name.span)?;
            Ok((v, sel.clone()))
        }
        other => Ok((b.src_rel(cx, other, Type::I32, None)?, String::new())),
    }
}

/// A scalar selector: `.b0-.b3` → 0-3, `.h0/.h1` → 4/5, none → 6.
fn scalar_sel(cx: &Cx, s: &str) -> Result<u8, LowerError> {
    Ok(match s {
        "" => 6,
        "b0" => 0,
        "b1" => 1,
        "b2" => 2,
        "b3" => 3,
        "h0" => 4,
        "h1" => 5,
        _ => return Err(cx.bad(&format!("selector .{s} is not a scalar video selector"))),
    })
}

/// A SIMD lane selector (`.h10`, `.b3210`; PTX ISA §9.7.18.2, §9.7.18.3): one digit per lane, lane 0
/// last, each naming a half (`.h`: 0-3) or byte (`.b`: 0-7) of the pair `{b, a}`; the digits
/// as nibbles. As ptxas: another kind or count of digits, or a digit out of range, is an
/// error.
fn lane_sel(cx: &Cx, s: &str, lanes: u8, default: u16) -> Result<u16, LowerError> {
    if s.is_empty() {
        return Ok(default);
    }
    let (kind, top) = if lanes == 2 { ('h', 3) } else { ('b', 7) };
    let digits = s.strip_prefix(kind).unwrap_or("");
    let ok = digits.len() == lanes as usize
        && digits
            .chars()
            .all(|c| c.to_digit(10).is_some_and(|d| d <= top));
    if !ok {
        return Err(cx.bad(&format!(
            "selector .{s} is not a lane selector here: .{kind} and {lanes} digits 0-{top}"
        )));
    }
    Ok(digits.chars().fold(0u16, |acc, c| {
        acc << 4 | c.to_digit(10).map_or(0, |d| d as u16)
    }))
}

/// A SIMD destination mask (`.h10`, `.b20`; PTX ISA §9.7.18.2, §9.7.18.3): the lanes written, listed
/// from the highest down (as ptxas requires), `.h` lanes 0-1 or `.b` lanes 0-3; none → all.
fn lane_mask(cx: &Cx, s: &str, lanes: u8) -> Result<u8, LowerError> {
    if s.is_empty() {
        return Ok((1u8 << lanes) - 1);
    }
    let kind = if lanes == 2 { 'h' } else { 'b' };
    let bad = || {
        cx.bad(&format!(
            "mask .{s} is not a destination mask here: .{kind} and distinct lanes 0-{} \
             from the highest down",
            lanes - 1
        ))
    };
    let digits = s
        .strip_prefix(kind)
        .filter(|d| !d.is_empty())
        .ok_or_else(bad)?;
    let mut m = 0u8;
    let mut prev = lanes as u32;
    for c in digits.chars() {
        let k = c.to_digit(10).filter(|&k| k < prev).ok_or_else(bad)?;
        m |= 1 << k;
        prev = k;
    }
    Ok(m)
}

/// An error at operand `o` of `cx`'s instruction.
fn bad_at(cx: &Cx, o: &Operand, what: &str) -> LowerError {
    LowerError::new(o.span(), format!("invalid '{}': {what}", cx.ptx))
}

pub(super) fn video(b: &mut Builder, cx: &mut Cx, op: &str) -> R {
    let (base, lanes) = match op.strip_suffix('2') {
        Some(s) => (s, 2u8),
        None => match op.strip_suffix('4') {
            Some(s) => (s, 4u8),
            None => (op, 1u8),
        },
    };
    let tys = cx.types();
    let is_set = base == "vset";
    let bad_types = || cx.bad("video instructions take .u32/.s32 types (dtype.atype.btype)");
    let ty = if is_set {
        if tys.len() != 2 {
            return Err(bad_types());
        }
        VideoTypes {
            d: Sign::Unsigned,
            a: sign_of(tys[0]).map_err(|_| bad_types())?,
            b: sign_of(tys[1]).map_err(|_| bad_types())?,
        }
    } else {
        if tys.len() != 3 {
            return Err(bad_types());
        }
        VideoTypes {
            d: sign_of(tys[0]).map_err(|_| bad_types())?,
            a: sign_of(tys[1]).map_err(|_| bad_types())?,
            b: sign_of(tys[2]).map_err(|_| bad_types())?,
        }
    };
    let clamp = cx.has("clamp");
    let vop = match base {
        "vadd" => VideoOp::Add,
        "vsub" => VideoOp::Sub,
        "vavrg" => VideoOp::Avrg,
        "vabsdiff" => VideoOp::AbsDiff,
        "vmin" => VideoOp::Min,
        "vmax" => VideoOp::Max,
        "vshl" | "vshr" => {
            if !clamp && !cx.has("wrap") {
                return Err(cx.bad("vshl/vshr need .clamp or .wrap"));
            }
            if base == "vshl" {
                VideoOp::Shl { clamp }
            } else {
                VideoOp::Shr { clamp }
            }
        }
        "vset" => VideoOp::Set(cmp_of(cx).ok_or_else(|| cx.bad("vset needs a comparison"))?),
        _ => VideoOp::Add, // vmad, handled below
    };
    let sat = cx.has("sat");
    let n = cx.inst.operands.len();
    let d_op = cx.opnd(0)?.clone();
    let (dname, dsel_s) = match &d_op {
        Operand::Select { name, sel, .. } => (
            Operand::Reg {
                name: name.clone(),
                component: None,
            },
            sel.clone(),
        ),
        other => (other.clone(), String::new()),
    };
    // `-a`, `-b`, `-c` are allowed in vmad only (PTX ISA §9.7.18.1.3), and not with .po.
    let negs_ok = base == "vmad" && !cx.has("po");
    let mut negs = [false; 3];
    let mut opnds = Vec::with_capacity(3);
    for (k, neg) in negs.iter_mut().enumerate().take(n.saturating_sub(1).min(3)) {
        let o = cx.opnd(k + 1)?.clone();
        opnds.push(match o {
            Operand::Neg(inner, span) => {
                if !negs_ok {
                    return Err(LowerError::new(
                        span,
                        format!(
                            "operand negation is allowed only in vmad without .po, in '{}'",
                            cx.ptx
                        ),
                    ));
                }
                *neg = true;
                *inner
            }
            other => other,
        });
    }
    if negs[0] != negs[1] && negs[2] {
        return Err(cx.bad("vmad negates either the product (-a or -b) or c, not both"));
    }
    if opnds.len() < 2 {
        return Err(cx.bad("expects d, a, b"));
    }
    // Operand forms as ptxas checks them: the SIMD forms take registers only for a, b and c
    // (PTX ISA §9.7.18.2, §9.7.18.3: a, b and c are registers; ptxas: "Incorrect video selector"); no
    // form takes a selector on c.
    for (k, o) in opnds.iter().enumerate() {
        let name = ["a", "b", "c"][k];
        let reg = matches!(o, Operand::Reg { .. });
        if k == 2 && matches!(o, Operand::Select { .. }) {
            return Err(bad_at(cx, o, "operand c takes no selector"));
        }
        if lanes > 1 && !reg && !matches!(o, Operand::Select { .. }) {
            return Err(bad_at(
                cx,
                o,
                &format!("operand {name} of the SIMD video instruction {op} must be a register"),
            ));
        }
    }
    let (a, asel_s) = reg_sel(b, cx, &opnds[0])?;
    let (bv, bsel_s) = reg_sel(b, cx, &opnds[1])?;
    let c = if n >= 4 {
        b.src_rel(cx, &opnds[2], Type::I32, None)?
    } else {
        b.konst(cx, Type::I32, 0)
    };
    let o = if base == "vmad" {
        if n != 4 {
            return Err(cx.bad("vmad expects d, a, b, c"));
        }
        if !dsel_s.is_empty() {
            return Err(bad_at(cx, &d_op, "vmad takes no destination selector"));
        }
        let shr = if cx.has("shr7") {
            7
        } else if cx.has("shr15") {
            15
        } else {
            0
        };
        Op::VMad {
            ty,
            sat,
            asel: scalar_sel(cx, &asel_s)?,
            bsel: scalar_sel(cx, &bsel_s)?,
            po: cx.has("po"),
            shr,
            neg_ab: negs[0] != negs[1],
            neg_c: negs[2],
        }
    } else if lanes == 1 {
        let sec = if cx.has("add") {
            VideoSec::Add
        } else if cx.has("min") {
            VideoSec::Min
        } else if cx.has("max") {
            VideoSec::Max
        } else {
            VideoSec::None
        };
        let dsel = scalar_sel(cx, &dsel_s)?;
        let needs_c = sec != VideoSec::None || dsel != 6;
        if needs_c != (n == 4) || !(3..=4).contains(&n) {
            return Err(
                cx.bad("a third source is used with a secondary operation or a .dsel merge")
            );
        }
        Op::Video {
            op: vop,
            ty,
            sat,
            asel: scalar_sel(cx, &asel_s)?,
            bsel: scalar_sel(cx, &bsel_s)?,
            dsel,
            sec,
        }
    } else {
        if n != 4 {
            return Err(cx.bad("SIMD video instructions expect d, a, b, c"));
        }
        let add = cx.has("add");
        if add && sat {
            return Err(cx.bad(".sat cannot be used with .add"));
        }
        let (da, db) = if lanes == 2 {
            (0x10, 0x32)
        } else {
            (0x3210, 0x7654)
        };
        Op::VideoSimd {
            op: vop,
            lanes,
            ty,
            sat,
            asel: lane_sel(cx, &asel_s, lanes, da)?,
            bsel: lane_sel(cx, &bsel_s, lanes, db)?,
            mask: lane_mask(cx, &dsel_s, lanes)?,
            add,
        }
    };
    let r = b.emit1(o, vec![a, bv, c], Type::I32, cx.loc, &cx.ptx);
    if let Some(t) = b.dst_rel(cx, &dname, Type::I32, None)? {
        b.copy(t, r, cx.loc, &cx.ptx);
    }
    Ok(())
}
