//! Warp-level matrix instructions (PTX ISA §9.7.14): `mma.sync.aligned`, `wmma.load`,
//! `wmma.store`, `wmma.mma`, and the matrix moves `ldmatrix`, `stmatrix` and `movmatrix`.
//!
//! - `mma`, `mma.sp` and `wmma.mma` become one `mma` op, a warp collective over the fragment registers
//!   of all 32 lanes (`runtime::mma` holds the layouts and the arithmetic).
//! - `wmma.load`/`wmma.store` become per-lane loads and stores of the elements the lane's
//!   fragment holds, at the places ptxjit's WMMA layout gives (`runtime::mma` module
//!   documentation): lane `l`, element `e` ↔ element `(l·E + e) mod (rows·cols)` of the
//!   matrix in row-major order, at element offset `row·stride + col` (`.row`) or
//!   `col·stride + row` (`.col`) from the address.
//! - `ldmatrix`/`stmatrix`/`movmatrix` become shuffles (`shfl.idx` of the row addresses or the
//!   elements) and per-lane loads and stores, following the ISA's description: in each 8×8
//!   matrix of 16-bit elements, lane `l` holds row `l / 4`, elements `2·(l % 4)` and
//!   `2·(l % 4) + 1` (with `.trans`, those of the transposed matrix), and lanes `8i..8i+7`
//!   give the row addresses of matrix `i`.
//!
//! Every form first waits for the whole warp (as a `.sync` collective with a full
//! membermask); an `mma` run by part of a warp faults (`runtime::env::FaultKind::PartialWarp`).

use super::super::build::{Builder, Var};
use super::super::LowerError;
use super::{space_of, Cx};
use crate::ir::{
    MmaBitOp, MmaElem, MmaFamily, MmaFrag, MmaScale, MmaScaleKind, MmaSparse, MmaSpec, Op, Round,
    SReg, ShflMode, Sign, Space, Tc05CpUnpack, Type,
};
use crate::ptx::ast::{Literal, Operand};
use crate::ptx::target::Version;

type R = Result<(), LowerError>;

/// The shape `(m, n, k)` a modifier `mMnNkK` names.
pub(crate) fn parse_shape(m: &str) -> Option<(u8, u8, u16)> {
    let (ms, rest) = m.strip_prefix('m')?.split_once('n')?;
    let (ns, ks) = rest.split_once('k')?;
    Some((ms.parse().ok()?, ns.parse().ok()?, ks.parse().ok()?))
}

/// The `mMnNkK` shape modifier.
fn shape(cx: &Cx) -> Result<(u8, u8, u16), LowerError> {
    cx.mods
        .iter()
        .find_map(|m| parse_shape(m))
        .ok_or_else(|| cx.bad("missing matrix shape (.m16n8k16, ...)"))
}

/// The matrix element types among the modifiers, in order.
fn elem_types(cx: &Cx) -> Vec<MmaElem> {
    cx.mods
        .iter()
        .filter_map(|m| MmaElem::from_modifier(m))
        .collect()
}

/// Reject a modifier the instruction does not take: one not in `allowed`, not a shape when
/// `shapes`, not a matrix element type when `types`.
fn only(cx: &Cx, allowed: &[&str], shapes: bool, types: bool) -> R {
    for m in &cx.mods {
        let ok = allowed.contains(m)
            || (shapes && parse_shape(m).is_some())
            || (types && MmaElem::from_modifier(m).is_some());
        if !ok {
            return Err(cx.bad(&format!("modifier '.{m}' is not allowed here")));
        }
    }
    Ok(())
}

/// The `.row`/`.col` modifiers in order.
fn layouts<'a>(cx: &Cx<'a>) -> Vec<&'a str> {
    cx.mods
        .iter()
        .copied()
        .filter(|m| *m == "row" || *m == "col")
        .collect()
}

/// Require `.sync` and `.aligned`.
fn sync_aligned(cx: &Cx) -> R {
    if !cx.has("sync") || !cx.has("aligned") {
        return Err(cx.bad("needs .sync.aligned"));
    }
    Ok(())
}

/// `wmma`'s `.sync` and `.aligned`: `.aligned` is required from PTX ISA 6.3 and refused
/// before it (ptxas: ".aligned modifier required for instruction 'wmma.load.a'" from 6.3,
/// "Feature '.aligned modifier for wmma' requires PTX ISA .version 6.3" below; PTX 6.0-6.2
/// modules, as CUDA 9 and 10.0 wrote them, spell `wmma.load.a.sync.row…`).
fn wmma_sync_aligned(b: &Builder, cx: &Cx) -> R {
    if !cx.has("sync") {
        return Err(cx.bad("needs .sync"));
    }
    match (b.header.version >= Version(6, 3), cx.has("aligned")) {
        (true, false) => Err(cx.bad("needs .sync.aligned (PTX ISA 6.3 and later)")),
        (false, true) => Err(cx.bad(".aligned on wmma needs PTX ISA 6.3")),
        (true, true) | (false, false) => Ok(()),
    }
}

/// The registers of a vector operand (`{%r1, %r2}`, also `{%r1}` for a one-register
/// fragment), `n` of them.
pub(super) fn regs(cx: &Cx, k: usize, n: u32) -> Result<Vec<Operand>, LowerError> {
    let o = cx.opnd(k)?;
    // A fragment of one register is still a vector (`{%r1}`): ptxas 13.5 says "Vector
    // expected for argument 0" on `wmma.load.a.sync.aligned.row.m8n8k32.s4 %r1, [p]`, and
    // "Vector of size 1 is expected" on `ldmatrix….x1….b16 %r1, [p]`.
    let items = match o {
        Operand::Vector(e, _) => e.clone(),
        _ => {
            return Err(LowerError::new(
                o.span(),
                format!("'{}' needs a vector of {n} registers here", cx.ptx),
            ))
        }
    };
    if items.len() != n as usize {
        return Err(LowerError::new(
            o.span(),
            format!(
                "'{}' needs {n} registers in operand {}, found {}",
                cx.ptx,
                k + 1,
                items.len()
            ),
        ));
    }
    Ok(items)
}

/// Whether `(m, n, k)` with input type `a` (and `b`) and accumulator `c`/`d` is an `mma`
/// form of the PTX ISA (§9.7.14.5.14 "Syntax"; `f8f6f4`: with `.kind::f8f6f4`, `.m16n8k32`
/// with A and B each `.e4m3`, `.e5m2`, `.e3m2`, `.e2m3` or `.e2m1` and an `.f16` or `.f32`
/// accumulator); `Err` names what is wrong.
fn mma_form(spec: &MmaSpec, f8f6f4: bool) -> Result<(), String> {
    use MmaElem::*;
    let shape = (spec.m, spec.n, spec.k);
    let (a, b, c, d) = (spec.a, spec.b, spec.c, spec.d);
    let narrow = |e: MmaElem| matches!(e, E4m3 | E5m2 | E3m2 | E2m3 | E2m1);
    if let Some(sc) = spec.scale {
        // §9.7.14.5.14 "Alternate floating point type with block scaling".
        let (want, types) = match sc.kind {
            MmaScaleKind::Mxf8f6f4 => (32, narrow(a) && narrow(b)),
            MmaScaleKind::Mxf4 | MmaScaleKind::Mxf4nvf4 => (64, a == E2m1 && b == E2m1),
        };
        if !(types && c == F32 && d == F32 && shape == (16, 8, want)) {
            return Err(format!(
                "no block-scaled mma form .m{}n{}k{} with types .{d}.{a}.{b}.{c} (.kind::mxf8f6f4: \
                 .m16n8k32, A and B .e4m3/.e5m2/.e3m2/.e2m3/.e2m1; .kind::mxf4/::mxf4nvf4: \
                 .m16n8k64 .e2m1; C = D .f32)",
                spec.m, spec.n, spec.k
            ));
        }
        if spec.satfinite {
            return Err(".satfinite applies to integer mma only".into());
        }
        return Ok(());
    }
    if f8f6f4 {
        if !(narrow(a) && narrow(b) && matches!(c, F16 | F32) && c == d && shape == (16, 8, 32)) {
            return Err(format!(
                "no mma .kind::f8f6f4 form .m{}n{}k{} with types .{d}.{a}.{b}.{c} (.m16n8k32, \
                 A and B .e4m3/.e5m2/.e3m2/.e2m3/.e2m1, C = D .f16 or .f32)",
                spec.m, spec.n, spec.k
            ));
        }
        if spec.satfinite {
            return Err(".satfinite applies to integer mma only".into());
        }
        return Ok(());
    }
    if matches!(a, E3m2 | E2m3 | E2m1) || matches!(b, E3m2 | E2m3 | E2m1) {
        // ptxas 13.5: ".kind::f8f6f4 modifier required for instruction 'mma'".
        return Err(".kind::f8f6f4 modifier required for 6- and 4-bit inputs".into());
    }
    let ok = match a {
        // ptxas: "the .dtype must be .f32 when the .ctype is .f32"; the m16n8 shapes take
        // no .f32 result of an .f16 accumulator either (only .m8n8k4 mixes them that way).
        F16 => {
            b == F16
                && matches!(c, F16 | F32)
                && matches!(d, F16 | F32)
                && (c == d || (c == F16 && shape == (8, 8, 4)))
                && matches!(shape, (8, 8, 4) | (16, 8, 8) | (16, 8, 16))
        }
        Bf16 => b == Bf16 && c == F32 && d == F32 && matches!(shape, (16, 8, 8) | (16, 8, 16)),
        Tf32 => b == Tf32 && c == F32 && d == F32 && matches!(shape, (16, 8, 4) | (16, 8, 8)),
        F64 => {
            b == F64
                && c == F64
                && d == F64
                && matches!(shape, (8, 8, 4) | (16, 8, 4) | (16, 8, 8) | (16, 8, 16))
        }
        S8 | U8 => {
            matches!(b, S8 | U8)
                && c == S32
                && d == S32
                && matches!(shape, (8, 8, 16) | (16, 8, 16) | (16, 8, 32))
        }
        S4 | U4 => {
            matches!(b, S4 | U4)
                && c == S32
                && d == S32
                && matches!(shape, (8, 8, 32) | (16, 8, 32) | (16, 8, 64))
        }
        B1 => {
            b == B1
                && c == S32
                && d == S32
                && spec.bop != MmaBitOp::None
                && matches!(shape, (8, 8, 128) | (16, 8, 128) | (16, 8, 256))
        }
        E4m3 | E5m2 => {
            matches!(b, E4m3 | E5m2)
                && matches!(c, F16 | F32)
                && c == d
                && matches!(shape, (16, 8, 16) | (16, 8, 32))
        }
        F32 | S32 | E2m3 | E3m2 | E2m1 => false,
    };
    if !ok {
        return Err(format!(
            "no mma form .m{}n{}k{} with types .{d}.{a}.{b}.{c}",
            spec.m, spec.n, spec.k
        ));
    }
    if spec.satfinite && !a.is_int() {
        return Err(".satfinite applies to integer mma only".into());
    }
    // ptxas 13.5: "Illegal modifier '.satfinite' for instruction 'mma'" on every `.b1` shape
    // (a sum of popcounts cannot overflow).
    if spec.satfinite && a == B1 {
        return Err("illegal modifier '.satfinite' for instruction 'mma' with .b1 inputs".into());
    }
    if spec.bop != MmaBitOp::None && a != B1 {
        return Err(".xor.popc/.and.popc apply to .b1 only".into());
    }
    Ok(())
}

/// Every `mma` form this decoder takes, as the fuzz generator draws them: the instruction's
/// words after `mma.sync.aligned.` (or `mma.sp.sync.aligned.`), with the spec they decode to
/// (`sparse`: selector 0). The shapes and types are those [`mma_form`] and [`sparse_form`]
/// accept among every `.mMn8kK` of the ISA's K values and every element type, with the words
/// the decoder reads besides: a rounding for `.f64` (none, `.rn`, `.rz`, `.rm`, `.rp`), either
/// layout of A and B for the quad-pair `.m8n8k4` `.f16` form, `.satfinite` where it applies,
/// `.xor.popc`/`.and.popc` for `.b1`, `.kind::f8f6f4` for its forms.
#[cfg(feature = "fuzz")]
pub(crate) fn mma_forms() -> Vec<(String, MmaSpec)> {
    use MmaElem::*;
    const ELEMS: [MmaElem; 16] = [
        F16, Bf16, Tf32, F32, F64, S8, U8, S4, U4, B1, S32, E4m3, E5m2, E2m3, E3m2, E2m1,
    ];
    let mut out = Vec::new();
    for m in [8u8, 16] {
        for k in [4u16, 8, 16, 32, 64, 128, 256] {
            for (a, b, c, d) in ELEMS.iter().flat_map(|&a| {
                ELEMS.iter().flat_map(move |&b| {
                    ELEMS
                        .iter()
                        .flat_map(move |&c| ELEMS.iter().map(move |&d| (a, b, c, d)))
                })
            }) {
                let bops: &[MmaBitOp] = if a == B1 {
                    &[MmaBitOp::Xor, MmaBitOp::And]
                } else {
                    &[MmaBitOp::None]
                };
                let sats: &[bool] = if a.is_int() { &[false, true] } else { &[false] };
                for &bop in bops {
                    for &satfinite in sats {
                        let spec = MmaSpec {
                            b,
                            d,
                            satfinite,
                            bop,
                            ..MmaSpec::new(MmaFamily::Mma, (m, 8, k), a, c)
                        };
                        let dense = [false, true].map(|f8f6f4| mma_form(&spec, f8f6f4).is_ok());
                        let sparse = sparse_form(&spec, false).is_ok();
                        if !(dense[0] || dense[1] || sparse) {
                            continue;
                        }
                        let sat = if satfinite { ".satfinite" } else { "" };
                        let popc = match bop {
                            MmaBitOp::None => "",
                            MmaBitOp::Xor => ".xor.popc",
                            MmaBitOp::And => ".and.popc",
                        };
                        let tail = format!("{sat}.{d}.{a}.{b}.{c}{popc}");
                        for f8f6f4 in [false, true] {
                            if !dense[usize::from(f8f6f4)] {
                                continue;
                            }
                            let kind = if f8f6f4 { ".kind::f8f6f4" } else { "" };
                            let layouts: &[(&str, bool, bool)] = if spec.quad_pairs() {
                                &[
                                    ("row.col", false, false),
                                    ("row.row", false, true),
                                    ("col.col", true, false),
                                    ("col.row", true, true),
                                ]
                            } else {
                                &[("row.col", false, false)]
                            };
                            let rnds: &[(&str, Round)] = if a == F64 {
                                &[
                                    ("", Round::Nearest),
                                    (".rn", Round::Nearest),
                                    (".rz", Round::Zero),
                                    (".rm", Round::Down),
                                    (".rp", Round::Up),
                                ]
                            } else {
                                &[("", Round::Nearest)]
                            };
                            for &(lay, a_col, b_row) in layouts {
                                for &(rw, rnd) in rnds {
                                    out.push((
                                        format!("m{m}n8k{k}.{lay}{kind}{rw}{tail}"),
                                        MmaSpec {
                                            a_col,
                                            b_row,
                                            rnd,
                                            ..spec
                                        },
                                    ));
                                }
                            }
                        }
                        if sparse {
                            out.push((
                                format!("m{m}n8k{k}.row.col{tail}"),
                                MmaSpec {
                                    sparse: Some(MmaSparse {
                                        selector: 0,
                                        ordered: false,
                                    }),
                                    ..spec
                                },
                            ));
                        }
                    }
                }
            }
        }
    }
    out
}

/// Whether `.trans` is taken by a matrix move form ([`MATRIX_MOVES`]).
#[cfg(feature = "fuzz")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MoveTrans {
    Optional,
    Required,
    Refused,
}

/// A form of `ldmatrix`, `stmatrix` or `movmatrix` this decoder takes: opcode, shape,
/// element words (`b16`, `b8`, `b8x16.b6x16_p32`, …), the matrix counts (`.x1`/`.x2`/`.x4`;
/// empty for `movmatrix`, which has none), `.trans`, and the 32-bit registers per matrix.
#[cfg(feature = "fuzz")]
pub(crate) type MoveForm = (
    &'static str,
    &'static str,
    &'static str,
    &'static [u32],
    MoveTrans,
    u32,
);

/// Every matrix move form [`ldmatrix`], [`stmatrix`] and [`movmatrix`] take (PTX ISA
/// §9.7.14.5.15-17); a test of the fuzz generator checks it against the decoder, form by form.
#[cfg(feature = "fuzz")]
pub(crate) const MATRIX_MOVES: &[MoveForm] = &[
    (
        "ldmatrix",
        "m8n8",
        "b16",
        &[1, 2, 4],
        MoveTrans::Optional,
        1,
    ),
    ("ldmatrix", "m16n16", "b8", &[1, 2], MoveTrans::Required, 2),
    (
        "ldmatrix",
        "m16n16",
        "b8x16.b6x16_p32",
        &[1, 2],
        MoveTrans::Required,
        2,
    ),
    (
        "ldmatrix",
        "m16n16",
        "b8x16.b4x16_p64",
        &[1, 2],
        MoveTrans::Required,
        2,
    ),
    (
        "ldmatrix",
        "m8n16",
        "b8x16.b6x16_p32",
        &[1, 2, 4],
        MoveTrans::Refused,
        1,
    ),
    (
        "ldmatrix",
        "m8n16",
        "b8x16.b4x16_p64",
        &[1, 2, 4],
        MoveTrans::Refused,
        1,
    ),
    (
        "stmatrix",
        "m8n8",
        "b16",
        &[1, 2, 4],
        MoveTrans::Optional,
        1,
    ),
    (
        "stmatrix",
        "m16n8",
        "b8",
        &[1, 2, 4],
        MoveTrans::Required,
        1,
    ),
    ("movmatrix", "m8n8", "b16", &[], MoveTrans::Required, 1),
];

/// `.xor.popc` / `.and.popc`.
fn bit_op(cx: &Cx) -> Result<MmaBitOp, LowerError> {
    let op = match (cx.has("xor"), cx.has("and")) {
        (true, false) => MmaBitOp::Xor,
        (false, true) => MmaBitOp::And,
        (false, false) => return Ok(MmaBitOp::None),
        (true, true) => return Err(cx.bad("both .xor and .and")),
    };
    if !cx.has("popc") {
        return Err(cx.bad(".xor/.and needs .popc"));
    }
    Ok(op)
}

/// PTX ISA §9.7.14.5.14: `mma.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype
/// d, a, b, c` (`.b1`: `….s32.b1.b1.s32.{xor,and}.popc`), and §9.7.14.6.3:
/// `mma.sp{::ordered_metadata}.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype
/// d, a, b, c, e, f` (e the metadata register, f the sparsity selector, an immediate).
pub(super) fn mma(b: &mut Builder, cx: &mut Cx) -> R {
    sync_aligned(cx)?;
    // PTX ISA 8.7's `sm_120a` forms: `.kind::f8f6f4` (FP8/FP6/FP4 inputs in 8-bit
    // containers) and the block-scaled `.kind::mxf8f6f4`/`::mxf4`/`::mxf4nvf4` with
    // `.block_scale` (§9.7.14.3).
    let f8f6f4 = cx.has("kind::f8f6f4");
    if let Some(kind) = cx.mods.iter().find(|m| {
        m.starts_with("kind::")
            && !matches!(
                **m,
                "kind::f8f6f4" | "kind::mxf8f6f4" | "kind::mxf4" | "kind::mxf4nvf4"
            )
    }) {
        return Err(cx.unsupported(&format!(
            "mma with .{kind} (the .kind::f16/.kind::i8 spellings) is not supported yet"
        )));
    }
    let sparse = match (cx.has("sp"), cx.has("sp::ordered_metadata")) {
        (false, false) => None,
        (true, false) => Some(false),
        (false, true) => Some(true),
        (true, true) => return Err(cx.bad("both .sp and .sp::ordered_metadata")),
    };
    let scale = block_scale(cx)?;
    if (f8f6f4 || scale.is_some()) && sparse == Some(false) {
        // ptxas 13.5: "Illegal modifier '.sp' for instruction 'mma'".
        return Err(cx.bad(".kind:: forms of mma.sp need .sp::ordered_metadata, not .sp"));
    }
    let (m, n, k) = shape(cx)?;
    let types = elem_types(cx);
    let [d, a, bt, c] = types[..] else {
        return Err(cx.bad("needs four types: .dtype.atype.btype.ctype"));
    };
    only(
        cx,
        &[
            "sync",
            "aligned",
            "row",
            "col",
            "satfinite",
            "xor",
            "and",
            "popc",
            "sp",
            "sp::ordered_metadata",
            "rn",
            "rz",
            "rm",
            "rp",
            "kind::f8f6f4",
            "kind::mxf8f6f4",
            "kind::mxf4",
            "kind::mxf4nvf4",
            "block_scale",
            "scale_vec::1X",
            "scale_vec::2X",
            "scale_vec::4X",
            "ue8m0",
            "ue4m3",
        ],
        true,
        true,
    )?;
    let rnd = f64_rounding(cx, a)?;
    let mut spec = MmaSpec {
        b: bt,
        d,
        satfinite: cx.has("satfinite"),
        bop: bit_op(cx)?,
        rnd,
        scale,
        ..MmaSpec::new(MmaFamily::Mma, (m, n, k), a, c)
    };
    match layouts(cx)[..] {
        // The quad-pair form takes either layout for A and for B.
        [la, lb] if spec.quad_pairs() => {
            spec.a_col = la == "col";
            spec.b_row = lb == "row";
        }
        ["row", "col"] => {}
        _ => return Err(cx.bad("this mma shape needs .row.col (A row-major, B column-major)")),
    }
    if let Some(ordered) = sparse {
        sparse_form(&spec, f8f6f4).map_err(|e| cx.bad(&e))?;
        // ptxas 13.5: "Illegal modifier '.sp' for instruction 'mma'" (on every target).
        if !ordered && matches!(a, MmaElem::E4m3 | MmaElem::E5m2) && c == MmaElem::F16 {
            return Err(cx.bad(
                "mma.sp with .e4m3/.e5m2 inputs and an .f16 accumulator needs \
                 .sp::ordered_metadata, not .sp",
            ));
        }
        cx.expect_operands(6 + scale_operands(&spec))?;
        let max = 4
            / (MmaSpec {
                sparse: Some(MmaSparse {
                    selector: 0,
                    ordered,
                }),
                ..spec
            })
            .meta_threads();
        let allowed: Vec<i64> = (0..max as i64).collect();
        let selector = super::wgmma::imm(cx, 5, "the sparsity selector", &allowed)? as u8;
        spec.sparse = Some(MmaSparse { selector, ordered });
    } else {
        mma_form(&spec, f8f6f4).map_err(|e| cx.bad(&e))?;
        for (k, which, e) in [(0, "D", d), (1, "A", a), (2, "B", bt), (3, "C", c)] {
            typed_fragment(b, cx, k, which, e)?;
        }
    }
    emit_mma(b, cx, spec)
}

/// The register types ptxas 13.5 takes for a fragment (operand `k`, `which` in errors) of
/// elements `e`: `.f16` elements in `.b32` or `.f16x2` registers, `.bf16` and `.tf32` ones in
/// `.b32` registers (a `.tf32` `mma` A fragment of `.f32` registers: "Arguments mismatch for
/// instruction 'mma'"; of `.u32`, `.s32`, `.f16x2` ones too), on `mma` (not `mma.sp`, which
/// ptxas 13.5 does not type) and on `wmma.load`/`wmma.store`/`wmma.mma`. A vector whose
/// registers all have one other type is refused; one mixing a `.b32` register with others is
/// taken, as ptxas takes it (mixing other types is `Builder::check_vector_kinds`'s error).
/// The other element types (integers, `.f64`, `.f32`, FP8) take any register of the
/// fragment's width.
fn typed_fragment(b: &Builder, cx: &Cx, k: usize, which: &str, e: MmaElem) -> R {
    use crate::ptx::ast::ScalarType as S;
    let accepted: &[S] = match e {
        MmaElem::F16 => &[S::B32, S::F16x2],
        MmaElem::Bf16 | MmaElem::Tf32 => &[S::B32],
        _ => return Ok(()),
    };
    // A scalar operand is `regs`'s error.
    let Operand::Vector(items, span) = cx.opnd(k)? else {
        return Ok(());
    };
    let types: Vec<S> = items
        .iter()
        .filter_map(|o| b.declared_reg(o).map(|(_, _, t)| t))
        .collect();
    let Some(&first) = types.first() else {
        return Ok(());
    };
    if types.len() == items.len() && types.iter().all(|t| *t == first) && !accepted.contains(&first)
    {
        let lower = |t: &S| format!(".{}", format!("{t:?}").to_lowercase());
        let names: Vec<String> = accepted.iter().map(lower).collect();
        return Err(LowerError::new(
            *span,
            format!(
                "'{}': the {which} fragment (operand {}) of .{e} elements needs {} registers, \
                 not {}",
                cx.ptx,
                k + 1,
                names.join(" or "),
                lower(&first)
            ),
        ));
    }
    Ok(())
}

/// Whether `spec` is an `mma.sp` form of the PTX ISA (§9.7.14.6.3 "Syntax": A sparse, of
/// twice the dense K for the same fragment size; `.kind::f8f6f4` and `.kind::mxf8f6f4`
/// `.m16n8k64`, `.kind::mxf4`/`::mxf4nvf4` `.m16n8k128` `.e2m1`, as ptxas 13.5 takes them);
/// `Err` names what is wrong.
fn sparse_form(spec: &MmaSpec, f8f6f4: bool) -> Result<(), String> {
    use MmaElem::*;
    let shape = (spec.m, spec.n, spec.k);
    let (a, b, c, d) = (spec.a, spec.b, spec.c, spec.d);
    let narrow = |e: MmaElem| matches!(e, E4m3 | E5m2 | E3m2 | E2m3 | E2m1);
    if let Some(MmaScale {
        kind: MmaScaleKind::Mxf4 | MmaScaleKind::Mxf4nvf4,
        ..
    }) = spec.scale
    {
        // ptxas 13.5 takes `.m16n8k128 .f32.e2m1.e2m1.f32` only.
        if (a, b, c, d, shape) != (E2m1, E2m1, F32, F32, (16, 8, 128)) {
            return Err(format!(
                "no mma.sp .kind::mxf4/::mxf4nvf4 form .m{}n{}k{} with types .{d}.{a}.{b}.{c} \
                 (.m16n8k128 .f32.e2m1.e2m1.f32)",
                spec.m, spec.n, spec.k
            ));
        }
        if spec.satfinite {
            return Err(".satfinite applies to integer mma.sp only".into());
        }
        return Ok(());
    }
    if f8f6f4 || spec.scale.is_some() {
        let accs: &[MmaElem] = if f8f6f4 { &[F16, F32] } else { &[F32] };
        if !(narrow(a) && narrow(b) && accs.contains(&c) && c == d && shape == (16, 8, 64)) {
            return Err(format!(
                "no mma.sp {} form .m{}n{}k{} with types .{d}.{a}.{b}.{c} (.m16n8k64, A and B \
                 .e4m3/.e5m2/.e3m2/.e2m3/.e2m1, C = D {})",
                if f8f6f4 {
                    ".kind::f8f6f4"
                } else {
                    ".kind::mxf8f6f4"
                },
                spec.m,
                spec.n,
                spec.k,
                if f8f6f4 { ".f16 or .f32" } else { ".f32" }
            ));
        }
        if spec.satfinite {
            return Err(".satfinite applies to integer mma.sp only".into());
        }
        return Ok(());
    }
    if matches!(a, E3m2 | E2m3 | E2m1) || matches!(b, E3m2 | E2m3 | E2m1) {
        return Err(".kind::f8f6f4 modifier required for 6- and 4-bit inputs".into());
    }
    let ok = spec.bop == MmaBitOp::None
        && match a {
            // ptxas takes no mixed .f16/.f32 accumulators here.
            F16 => {
                b == F16
                    && matches!(c, F16 | F32)
                    && c == d
                    && matches!(shape, (16, 8, 16) | (16, 8, 32))
            }
            Bf16 => b == Bf16 && c == F32 && d == F32 && matches!(shape, (16, 8, 16) | (16, 8, 32)),
            Tf32 => b == Tf32 && c == F32 && d == F32 && matches!(shape, (16, 8, 8) | (16, 8, 16)),
            S8 | U8 => {
                matches!(b, S8 | U8)
                    && c == S32
                    && d == S32
                    && matches!(shape, (16, 8, 32) | (16, 8, 64))
            }
            S4 | U4 => {
                matches!(b, S4 | U4)
                    && c == S32
                    && d == S32
                    && matches!(shape, (16, 8, 64) | (16, 8, 128))
            }
            E4m3 | E5m2 => {
                matches!(b, E4m3 | E5m2) && matches!(c, F16 | F32) && c == d && shape == (16, 8, 64)
            }
            F64 | B1 | F32 | S32 | E2m3 | E3m2 | E2m1 => false,
        };
    if !ok {
        return Err(format!(
            "no mma.sp form .m{}n{}k{} with types .{d}.{a}.{b}.{c}",
            spec.m, spec.n, spec.k
        ));
    }
    if spec.satfinite && !a.is_int() {
        return Err(".satfinite applies to integer mma.sp only".into());
    }
    Ok(())
}

/// Read the A, B and C fragments of operands 1-3 (and for `mma.sp` the metadata, operand
/// 4), wait for the warp, emit the `mma` op and write D (operand 0).
fn emit_mma(b: &mut Builder, cx: &mut Cx, spec: MmaSpec) -> R {
    let plain = if spec.sparse.is_some() { 6 } else { 4 };
    cx.expect_operands(plain + scale_operands(&spec))?;
    let mut args = vec![];
    for (k, f) in [(1, MmaFrag::A), (2, MmaFrag::B), (3, MmaFrag::C)] {
        let (count, ty) = spec.regs(f, false);
        for o in regs(cx, k, count)? {
            args.push(b.src_rel(cx, &o, ty, None)?);
        }
    }
    if spec.sparse.is_some() {
        let e = cx.opnd(4)?.clone();
        args.push(b.src_rel(cx, &e, Type::I32, None)?);
    }
    if let Some(sc) = spec.scale {
        for (k, which) in [(plain, 'a'), (plain + 2, 'b')] {
            let data = cx.opnd(k)?.clone();
            args.push(b.src_rel(cx, &data, Type::I32, None)?);
            let sel = regs(cx, k + 1, 2)?;
            let bytes = byte_ids(sc.vec);
            let threads: &[i64] = if which == 'a' { &[0, 1] } else { &[0, 1, 2, 3] };
            for (o, what, allowed) in [
                (&sel[0], format!("byte-id-{which}"), bytes),
                (&sel[1], format!("thread-id-{which}"), threads),
            ] {
                if let Operand::Imm(lit, span) = o {
                    let ok = matches!(lit, Literal::Int { value, .. } if allowed.contains(value));
                    if !ok {
                        return Err(LowerError::new(
                            *span,
                            format!(
                                "'{}': {what} must be in {allowed:?} with .scale_vec::{}X",
                                cx.ptx, sc.vec
                            ),
                        ));
                    }
                }
                // Unsigned 16-bit values (§9.7.14.5.14), passed zero-extended.
                let v = b.src_rel(cx, o, Type::I16, None)?;
                args.push(int_to(b, cx, v, Type::I32)?);
            }
        }
    }
    full_warp_wait(b, cx);
    let (nd, td) = spec.regs(MmaFrag::C, true);
    let outs: Vec<Var> = (0..nd).map(|_| b.new_var(td)).collect();
    b.emit(Op::Mma { spec }, args, outs.clone(), cx.loc, &cx.ptx);
    for (o, v) in regs(cx, 0, nd)?.iter().zip(outs) {
        if let Some(t) = b.dst_rel(cx, o, td, None)? {
            b.copy(t, v, cx.loc, &cx.ptx);
        }
    }
    Ok(())
}

/// The operands a block-scaled `mma` adds after C (and `mma.sp`'s metadata and selector):
/// `scale-a-data, {byte-id-a, thread-id-a}, scale-b-data, {byte-id-b, thread-id-b}`.
fn scale_operands(spec: &MmaSpec) -> usize {
    if spec.scale.is_some() {
        4
    } else {
        0
    }
}

/// The byte-id values ptxas 13.5 takes with `.scale_vec::NX` ("value '4' out of range,
/// expected to be in range [0..3]", "expected to be 0 or 2", "expected to be 0"): the first
/// of the N bytes of the scale register that hold a row's (column's) factors.
fn byte_ids(vec: u8) -> &'static [i64] {
    match vec {
        1 => &[0, 1, 2, 3],
        2 => &[0, 2],
        _ => &[0],
    }
}

/// `.block_scale{.scale_vec::NX}` with `.kind::mxf8f6f4`/`::mxf4`/`::mxf4nvf4` and the scale
/// type `.ue8m0`/`.ue4m3` (PTX ISA §9.7.14.3 Table 36, §9.7.14.5.14): the valid
/// combinations, as ptxas 13.5 checks them (its words in the comments); `None` for the other
/// forms.
fn block_scale(cx: &Cx) -> Result<Option<MmaScale>, LowerError> {
    let kind = match (
        cx.has("kind::mxf8f6f4"),
        cx.has("kind::mxf4"),
        cx.has("kind::mxf4nvf4"),
    ) {
        (false, false, false) => None,
        (true, false, false) => Some(MmaScaleKind::Mxf8f6f4),
        (false, true, false) => Some(MmaScaleKind::Mxf4),
        (false, false, true) => Some(MmaScaleKind::Mxf4nvf4),
        _ => return Err(cx.bad("more than one .kind")),
    };
    let scaled_words = [
        "block_scale",
        "scale_vec::1X",
        "scale_vec::2X",
        "scale_vec::4X",
    ];
    let Some(kind) = kind else {
        if let Some(w) = cx
            .mods
            .iter()
            .find(|m| scaled_words.contains(m) || **m == "ue8m0" || **m == "ue4m3")
        {
            // ptxas: "Illegal modifier '.block_scale' for instruction 'mma'".
            return Err(cx.bad(&format!(
                ".{w} needs .kind::mxf8f6f4, .kind::mxf4 or .kind::mxf4nvf4"
            )));
        }
        return Ok(None);
    };
    if cx.has("kind::f8f6f4") {
        return Err(cx.bad("more than one .kind"));
    }
    if !cx.has("block_scale") {
        // ptxas: ".block_scale modifier required for instruction 'mma'".
        return Err(cx.bad(".block_scale modifier required with this .kind"));
    }
    let vecs: Vec<u8> = [
        (1, "scale_vec::1X"),
        (2, "scale_vec::2X"),
        (4, "scale_vec::4X"),
    ]
    .iter()
    .filter(|(_, w)| cx.has(w))
    .map(|(v, _)| *v)
    .collect();
    let ue4m3 = match (cx.has("ue8m0"), cx.has("ue4m3")) {
        (true, false) => false,
        (false, true) => true,
        (false, false) => return Err(cx.bad("needs the scale type .ue8m0 or .ue4m3 after .ctype")),
        (true, true) => return Err(cx.bad("both .ue8m0 and .ue4m3")),
    };
    let vec = match (kind, &vecs[..]) {
        (_, [_, _, ..]) => return Err(cx.bad("more than one .scale_vec")),
        (MmaScaleKind::Mxf8f6f4, [] | [1]) => 1,
        (MmaScaleKind::Mxf4, [] | [2]) => 2,
        (MmaScaleKind::Mxf4nvf4, [v]) if *v != 1 => *v,
        // ptxas: ".scale_vec_size modifier required for instruction 'mma'".
        (MmaScaleKind::Mxf4nvf4, []) => {
            return Err(cx.bad(".kind::mxf4nvf4 needs .scale_vec::2X or .scale_vec::4X"))
        }
        // ptxas: "Modifier '.scale_vec::4X' cannot be combined with modifier '.kind::mxf4'".
        (_, [v]) => {
            return Err(cx.bad(&format!(
                ".scale_vec::{v}X does not go with this .kind (Table 36: .kind::mxf8f6f4 \
                 1X, .kind::mxf4 2X, .kind::mxf4nvf4 2X or 4X)"
            )))
        }
    };
    // ptxas: "Illegal modifier '.kind::mxf4' for instruction 'mma' with type '.ue4m3'".
    if ue4m3 && !(kind == MmaScaleKind::Mxf4nvf4 && vec == 4) {
        return Err(cx.bad(".ue4m3 scale factors need .kind::mxf4nvf4 with .scale_vec::4X"));
    }
    Ok(Some(MmaScale { kind, vec, ue4m3 }))
}

/// The wait of a `.sync` collective over the whole warp.
pub(super) fn full_warp_wait(b: &mut Builder, cx: &Cx) {
    let m = b.konst(cx, Type::I32, 0xffff_ffff);
    super::super::collective::warp_wait(b, cx, m, false);
}

// ---- Small IR helpers. ----

fn lane(b: &mut Builder, cx: &Cx) -> Var {
    b.emit1(
        Op::SReg { reg: SReg::LaneId },
        vec![],
        Type::I32,
        cx.loc,
        &cx.ptx,
    )
}

fn bin(b: &mut Builder, cx: &Cx, op: Op, x: Var, y: Var) -> Var {
    let t = b.vars[x as usize];
    b.emit1(op, vec![x, y], t, cx.loc, &cx.ptx)
}

/// `x op constant` in `x`'s type (an i32 constant for shifts).
fn bin_k(b: &mut Builder, cx: &Cx, op: Op, x: Var, k: u64) -> Var {
    // Shift counts are i32 whatever the value's type.
    let t = match op {
        Op::Shl {} | Op::Shr { .. } => Type::I32,
        _ => b.vars[x as usize],
    };
    let kv = b.konst(cx, t, k);
    bin(b, cx, op, x, kv)
}

const UDIV: Op = Op::IDiv {
    sign: Sign::Unsigned,
};
const UREM: Op = Op::IRem {
    sign: Sign::Unsigned,
};
const SHR: Op = Op::Shr {
    sign: Sign::Unsigned,
};

/// Integer conversion (truncation or zero extension) of `v` to `to`.
fn int_to(b: &mut Builder, cx: &Cx, v: Var, to: Type) -> Result<Var, LowerError> {
    b.coerce(cx, v, to, Some(Sign::Unsigned), cx.inst.span)
}

/// `shfl.sync.idx.b32` of a 32-bit value from lane `src` (the warp has already waited).
fn shfl32(b: &mut Builder, cx: &Cx, v: Var, src: Var) -> Var {
    let c = b.konst(cx, Type::I32, 0x1f);
    let mask = b.konst(cx, Type::I32, 0xffff_ffff);
    let r = b.new_var(Type::I32);
    let p = b.new_var(Type::Pred);
    b.emit(
        Op::Shfl {
            mode: ShflMode::Idx,
        },
        vec![v, src, c, mask],
        vec![r, p],
        cx.loc,
        &cx.ptx,
    );
    r
}

/// Lane `src`'s value of an address (i32 or i64).
fn shfl_addr(b: &mut Builder, cx: &Cx, addr: Var, src: Var) -> Result<Var, LowerError> {
    if b.vars[addr as usize] == Type::I32 {
        return Ok(shfl32(b, cx, addr, src));
    }
    let lo = int_to(b, cx, addr, Type::I32)?;
    let hi64 = bin_k(b, cx, SHR, addr, 32);
    let hi = int_to(b, cx, hi64, Type::I32)?;
    let lo = shfl32(b, cx, lo, src);
    let hi = shfl32(b, cx, hi, src);
    let lo = int_to(b, cx, lo, Type::I64)?;
    let hi = int_to(b, cx, hi, Type::I64)?;
    let hi = bin_k(b, cx, Op::Shl {}, hi, 32);
    Ok(bin(b, cx, Op::Or {}, hi, lo))
}

/// `addr + off` (off an i32 byte offset), in the address's type.
fn offset(b: &mut Builder, cx: &Cx, addr: Var, off: Var) -> Result<Var, LowerError> {
    let at = b.vars[addr as usize];
    let o = if at == Type::I64 {
        b.coerce(cx, off, Type::I64, Some(Sign::Signed), cx.inst.span)?
    } else {
        off
    };
    Ok(bin(b, cx, Op::IAdd {}, addr, o))
}

// ---- ldmatrix / stmatrix / movmatrix. ----

/// `.x1`, `.x2`, `.x4`: the number of 8×8 matrices.
fn matrices(cx: &Cx) -> Result<u32, LowerError> {
    match (cx.has("x1"), cx.has("x2"), cx.has("x4")) {
        (true, false, false) => Ok(1),
        (false, true, false) => Ok(2),
        (false, false, true) => Ok(4),
        _ => Err(cx.bad("needs one of .x1, .x2, .x4")),
    }
}

/// Check the `.m8n8` shape and `.b16` type of `movmatrix`.
fn m8n8_b16(cx: &Cx) -> R {
    if !cx.has("m8n8") {
        return Err(cx.unsupported("only the .m8n8 shape is supported"));
    }
    if !cx.has("b16") {
        return Err(cx.unsupported("only .b16 elements are supported"));
    }
    Ok(())
}

/// The modifiers of `ldmatrix`/`stmatrix` (the state space: `.shared{::cta}` or none).
const MOVE_MODS: &[&str] = &[
    "sync",
    "aligned",
    "m8n8",
    "m16n16",
    "m8n16",
    "m16n8",
    "x1",
    "x2",
    "x4",
    "trans",
    "shared",
    "shared::cta",
    "b16",
    "b8",
    "b8x16",
    "b6x16_p32",
    "b4x16_p64",
];

/// The elements of a matrix move (PTX ISA §9.7.14.5.15-16 `.type`, `.dst_fmt.src_fmt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MoveElems {
    /// `.b16`.
    B16,
    /// `.b8`.
    B8,
    /// `.b8x16.b6x16_p32` / `.b8x16.b4x16_p64` (`ldmatrix` only): each 16-byte row of
    /// shared memory holds sixteen packed 6- or 4-bit elements then 32 or 64 bits of
    /// padding; each element lands in the low bits of its own byte of the registers.
    Packed(Tc05CpUnpack),
}

/// The element type or format of a matrix move: exactly one of `.b16`, `.b8` and
/// `.b8x16` followed by its source format.
fn move_elems(cx: &Cx) -> Result<MoveElems, LowerError> {
    let pos = |w: &str| cx.mods.iter().position(|m| *m == w);
    // The source formats, as the one names table spells them after `b8x16.`.
    let sources = || {
        Tc05CpUnpack::ALL
            .iter()
            .map(|u| u.name().strip_prefix("b8x16.").unwrap_or(u.name()))
    };
    let packed = match pos("b8x16") {
        None => {
            if let Some(m) = cx.mods.iter().find(|m| sources().any(|s| s == **m)) {
                return Err(cx.bad(&format!(".{m} needs .b8x16 directly before it")));
            }
            None
        }
        Some(i) => {
            let u = cx
                .mods
                .get(i + 1)
                .and_then(|o| Tc05CpUnpack::from_name(&format!("b8x16.{o}")));
            let Some(u) = u else {
                let list: Vec<String> = sources().map(|s| format!(".{s}")).collect();
                return Err(cx.bad(&format!(
                    ".b8x16 needs a source format {} directly after it",
                    list.join(" or ")
                )));
            };
            Some(u)
        }
    };
    match (cx.has("b16"), cx.has("b8"), packed) {
        (true, false, None) => Ok(MoveElems::B16),
        (false, true, None) => Ok(MoveElems::B8),
        (false, false, Some(u)) => Ok(MoveElems::Packed(u)),
        (false, false, None) => Err(cx.bad("needs an element type (.b16, .b8, .b8x16.…)")),
        _ => Err(cx.bad("more than one element type")),
    }
}

/// The one shape modifier among `shapes` (in errors: `what`).
fn move_shape<'a>(cx: &Cx<'a>, shapes: &[&'static str]) -> Result<&'static str, LowerError> {
    let found: Vec<&'static str> = shapes.iter().copied().filter(|s| cx.has(s)).collect();
    match found[..] {
        [s] => Ok(s),
        _ => Err(cx.bad(&format!(
            "needs one shape of {}",
            shapes
                .iter()
                .map(|s| format!(".{s}"))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Lane-uniform 8-bit element `col` (an i32, `0..16`) of the 16-byte row at `row` of shared
/// memory, as `elems` stores it, zero-extended to i32: byte `col` (`.b8`), or element `col`
/// of the packed row (bits `w·col .. w·col + w - 1` of its bytes, little-endian; `w` 4 or 6).
fn move_elem(
    b: &mut Builder,
    cx: &Cx,
    space: Space,
    row: Var,
    col: Var,
    elems: MoveElems,
) -> Result<Var, LowerError> {
    let byte = |b: &mut Builder, off: Var| -> Result<Var, LowerError> {
        let a = offset(b, cx, row, off)?;
        let v = b.emit1(
            Op::Load { space, align: 1 },
            vec![a],
            Type::I8,
            cx.loc,
            &cx.ptx,
        );
        int_to(b, cx, v, Type::I32)
    };
    match elems {
        MoveElems::B16 | MoveElems::B8 => byte(b, col),
        MoveElems::Packed(Tc05CpUnpack::B4x16P64) => {
            let at = bin_k(b, cx, SHR, col, 1);
            let v = byte(b, at)?;
            let odd = bin_k(b, cx, Op::And {}, col, 1);
            let sh = bin_k(b, cx, Op::Shl {}, odd, 2);
            let v = bin(b, cx, SHR, v, sh);
            Ok(bin_k(b, cx, Op::And {}, v, 0xf))
        }
        MoveElems::Packed(Tc05CpUnpack::B6x16P32) => {
            // Bits 6·col .. 6·col + 5: the bytes of the first and of the last bit (one
            // byte when they are the same; never the padding after byte 11).
            let bit = bin_k(b, cx, Op::IMul {}, col, 6);
            let first = bin_k(b, cx, SHR, bit, 3);
            let last = bin_k(b, cx, Op::IAdd {}, bit, 5);
            let last = bin_k(b, cx, SHR, last, 3);
            let lo = byte(b, first)?;
            let hi = byte(b, last)?;
            let hi = bin_k(b, cx, Op::Shl {}, hi, 8);
            let v = bin(b, cx, Op::Or {}, lo, hi);
            let sh = bin_k(b, cx, Op::And {}, bit, 7);
            let v = bin(b, cx, SHR, v, sh);
            Ok(bin_k(b, cx, Op::And {}, v, 0x3f))
        }
    }
}

/// Four i32 bytes (low first) as one 32-bit register value.
fn pack_bytes(b: &mut Builder, cx: &Cx, bytes: &[Var]) -> Var {
    let mut v = bytes[0];
    for (k, &e) in bytes.iter().enumerate().skip(1) {
        let e = bin_k(b, cx, Op::Shl {}, e, 8 * k as u64);
        v = bin(b, cx, Op::Or {}, v, e);
    }
    v
}

/// PTX ISA §9.7.14.5.15: `ldmatrix.sync.aligned.m8n8.num{.trans}{.ss}.b16 r, [p]`,
/// `ldmatrix.sync.aligned.m16n16.num.trans{.ss}.b8 r, [p]` and the unpacking
/// `….m8n16.num{.ss}.b8x16.src_fmt` / `….m16n16.num.trans{.ss}.b8x16.src_fmt` forms.
///
/// - `.m8n8` (`.b16`): matrix `i` is 8 rows of 16 bytes at the addresses of lanes
///   `8i..8i+7`; lane `l`'s register `i` holds row `l/4`, elements `2(l%4)`, `2(l%4)+1`
///   (`.trans`: those of the transposed matrix).
/// - `.m8n16` (packed, no `.trans`): as `.m8n8` with the row unpacked into 16 bytes; lane
///   `l`'s register `i` holds elements `4(l%4)..4(l%4)+3` of row `l/4` of matrix `i`.
/// - `.m16n16` (`.trans`, `.x1`/`.x2`): matrix `i` is 16 rows of 16 (unpacked) bytes at the
///   addresses of lanes `16i..16i+15`; lane `l`'s registers `2i + h` hold, byte `v + 2u`,
///   element (row `4(l%4) + 2h + v`, column `l/4 + 8u`) of matrix `i` (ptxjit's reading,
///   docs/isa-notes.md).
pub(super) fn ldmatrix(b: &mut Builder, cx: &mut Cx) -> R {
    sync_aligned(cx)?;
    only(cx, MOVE_MODS, false, false)?;
    let shape = move_shape(cx, &["m8n8", "m16n16", "m8n16"])?;
    let elems = move_elems(cx)?;
    let num = matrices(cx)?;
    let trans = cx.has("trans");
    match (shape, elems) {
        ("m8n8", MoveElems::B16) => {}
        ("m8n8", _) => return Err(cx.bad("the .m8n8 shape takes .b16 elements")),
        ("m16n16", MoveElems::B16) => {
            return Err(cx.bad("the .m16n16 shape takes .b8 or .b8x16.… elements"))
        }
        ("m8n16", MoveElems::Packed(_)) => {}
        ("m8n16", _) => {
            return Err(
                cx.bad("the .m8n16 shape takes .b8x16.b6x16_p32 or .b8x16.b4x16_p64 elements")
            )
        }
        _ => {}
    }
    if shape == "m16n16" && !trans {
        return Err(cx.bad("the .m16n16 shape needs .trans"));
    }
    if shape == "m8n16" && trans {
        return Err(cx.bad(".trans is not allowed with the .m8n16 shape"));
    }
    if shape == "m16n16" && num == 4 {
        return Err(cx.bad("the .m16n16 shape takes .x1 or .x2"));
    }
    cx.expect_operands(2)?;
    let space = space_of(cx); // .shared{::cta} or generic (MOVE_MODS)
    let per = if shape == "m16n16" { 2 } else { 1 };
    let dests = regs(cx, 0, num * per)?;
    let addr = b.address(cx, 1, space)?;
    full_warp_wait(b, cx);
    let l = lane(b, cx);
    let q = bin_k(b, cx, UDIV, l, 4); // l / 4
    let r = bin_k(b, cx, UREM, l, 4); // l % 4
    let mut vals = vec![];
    match shape {
        "m8n8" => {
            for j in 0..num {
                let base = (8 * j) as u64;
                vals.push(if !trans {
                    // Row l/4 of matrix j, bytes 4·(l%4)..: one 32-bit load.
                    let src = bin_k(b, cx, Op::IAdd {}, q, base);
                    let a = shfl_addr(b, cx, addr, src)?;
                    let off = bin_k(b, cx, Op::Shl {}, r, 2);
                    let a = offset(b, cx, a, off)?;
                    b.emit1(
                        Op::Load { space, align: 4 },
                        vec![a],
                        Type::I32,
                        cx.loc,
                        &cx.ptx,
                    )
                } else {
                    // Column l/4 of matrix j, rows 2·(l%4) and 2·(l%4)+1: two 16-bit loads.
                    let mut halves = vec![];
                    for h in 0..2u64 {
                        let r2 = bin_k(b, cx, Op::Shl {}, r, 1);
                        let src = bin_k(b, cx, Op::IAdd {}, r2, base + h);
                        let a = shfl_addr(b, cx, addr, src)?;
                        let off = bin_k(b, cx, Op::Shl {}, q, 1);
                        let a = offset(b, cx, a, off)?;
                        let e = b.emit1(
                            Op::Load { space, align: 2 },
                            vec![a],
                            Type::I16,
                            cx.loc,
                            &cx.ptx,
                        );
                        halves.push(int_to(b, cx, e, Type::I32)?);
                    }
                    let hi = bin_k(b, cx, Op::Shl {}, halves[1], 16);
                    bin(b, cx, Op::Or {}, halves[0], hi)
                });
            }
        }
        "m8n16" => {
            // Row l/4 of matrix j, elements 4·(l%4)..4·(l%4)+3.
            for j in 0..num {
                let src = bin_k(b, cx, Op::IAdd {}, q, (8 * j) as u64);
                let a = shfl_addr(b, cx, addr, src)?;
                let c0 = bin_k(b, cx, Op::Shl {}, r, 2);
                let mut bytes = vec![];
                for e in 0..4u64 {
                    let c = bin_k(b, cx, Op::IAdd {}, c0, e);
                    bytes.push(move_elem(b, cx, space, a, c, elems)?);
                }
                vals.push(pack_bytes(b, cx, &bytes));
            }
        }
        _ => {
            // .m16n16: register 2j + h, byte v + 2u ← (row 4(l%4) + 2h + v, column l/4 + 8u).
            let r4 = bin_k(b, cx, Op::Shl {}, r, 2);
            let cols = [q, bin_k(b, cx, Op::IAdd {}, q, 8)];
            for j in 0..num {
                for h in 0..2u64 {
                    let mut rows = vec![];
                    for v in 0..2u64 {
                        let src = bin_k(b, cx, Op::IAdd {}, r4, 16 * j as u64 + 2 * h + v);
                        rows.push(shfl_addr(b, cx, addr, src)?);
                    }
                    let mut bytes = vec![];
                    for k in 0..4usize {
                        let (v, u) = (k % 2, k / 2);
                        bytes.push(move_elem(b, cx, space, rows[v], cols[u], elems)?);
                    }
                    vals.push(pack_bytes(b, cx, &bytes));
                }
            }
        }
    }
    for (dop, v) in dests.iter().zip(vals) {
        if let Some(t) = b.dst_rel(cx, dop, Type::I32, None)? {
            b.copy(t, v, cx.loc, &cx.ptx);
        }
    }
    Ok(())
}

/// PTX ISA §9.7.14.5.16: `stmatrix.sync.aligned.m8n8.num{.trans}{.ss}.b16 [p], r` and
/// `stmatrix.sync.aligned.m16n8.num.trans{.ss}.b8 [p], r`.
///
/// - `.m8n8` (`.b16`): the layout of `ldmatrix`'s `.m8n8`.
/// - `.m16n8` (`.trans`): matrix `i` is 8 rows of 16 bytes at the addresses of lanes
///   `8i..8i+7`; byte `v + 2u` of lane `l`'s register `i` goes to row `2(l%4) + v`, byte
///   `l/4 + 8u` (the register matrix, 16×8, is the fragment of `mma`'s m16n8 accumulator
///   with 8-bit elements, stored transposed; ptxjit's reading, docs/isa-notes.md).
pub(super) fn stmatrix(b: &mut Builder, cx: &mut Cx) -> R {
    sync_aligned(cx)?;
    only(cx, MOVE_MODS, false, false)?;
    let shape = move_shape(cx, &["m8n8", "m16n8"])?;
    let elems = move_elems(cx)?;
    match (shape, elems) {
        ("m8n8", MoveElems::B16) | ("m16n8", MoveElems::B8) => {}
        ("m8n8", _) => return Err(cx.bad("the .m8n8 shape takes .b16 elements")),
        _ => return Err(cx.bad("the .m16n8 shape takes .b8 elements")),
    }
    cx.expect_operands(2)?;
    let num = matrices(cx)?;
    let trans = cx.has("trans");
    if shape == "m16n8" && !trans {
        return Err(cx.bad("the .m16n8 shape needs .trans"));
    }
    let space = space_of(cx); // .shared{::cta} or generic (MOVE_MODS)
    let srcs = regs(cx, 1, num)?;
    let mut vals = vec![];
    for o in &srcs {
        vals.push(b.src_rel(cx, o, Type::I32, None)?);
    }
    let addr = b.address(cx, 0, space)?;
    full_warp_wait(b, cx);
    let l = lane(b, cx);
    let q = bin_k(b, cx, UDIV, l, 4);
    let r = bin_k(b, cx, UREM, l, 4);
    for (j, &v) in vals.iter().enumerate() {
        let base = (8 * j) as u64;
        if shape == "m16n8" {
            let r2 = bin_k(b, cx, Op::Shl {}, r, 1);
            for vv in 0..2u64 {
                let src = bin_k(b, cx, Op::IAdd {}, r2, base + vv);
                let row = shfl_addr(b, cx, addr, src)?;
                for u in 0..2u64 {
                    let col = bin_k(b, cx, Op::IAdd {}, q, 8 * u);
                    let a = offset(b, cx, row, col)?;
                    let e = bin_k(b, cx, SHR, v, 8 * (vv + 2 * u));
                    let e = int_to(b, cx, e, Type::I8)?;
                    b.emit(
                        Op::Store { space, align: 1 },
                        vec![a, e],
                        vec![],
                        cx.loc,
                        &cx.ptx,
                    );
                }
            }
        } else if !trans {
            let src = bin_k(b, cx, Op::IAdd {}, q, base);
            let a = shfl_addr(b, cx, addr, src)?;
            let off = bin_k(b, cx, Op::Shl {}, r, 2);
            let a = offset(b, cx, a, off)?;
            b.emit(
                Op::Store { space, align: 4 },
                vec![a, v],
                vec![],
                cx.loc,
                &cx.ptx,
            );
        } else {
            // The lane's two elements are (row 2·(l%4)+h, column l/4) of the stored matrix.
            for h in 0..2u64 {
                let r2 = bin_k(b, cx, Op::Shl {}, r, 1);
                let src = bin_k(b, cx, Op::IAdd {}, r2, base + h);
                let a = shfl_addr(b, cx, addr, src)?;
                let off = bin_k(b, cx, Op::Shl {}, q, 1);
                let a = offset(b, cx, a, off)?;
                let e = if h == 0 { v } else { bin_k(b, cx, SHR, v, 16) };
                let e = int_to(b, cx, e, Type::I16)?;
                b.emit(
                    Op::Store { space, align: 2 },
                    vec![a, e],
                    vec![],
                    cx.loc,
                    &cx.ptx,
                );
            }
        }
    }
    Ok(())
}

/// PTX ISA §9.7.14.5.17: `movmatrix.sync.aligned.m8n8.trans.b16 d, a`: the transpose of the
/// 8×8 matrix the warp holds in `a` (element (i, j) in lane 4i + j/2, half j % 2).
pub(super) fn movmatrix(b: &mut Builder, cx: &mut Cx) -> R {
    sync_aligned(cx)?;
    m8n8_b16(cx)?;
    only(
        cx,
        &["sync", "aligned", "m8n8", "trans", "b16"],
        false,
        false,
    )?;
    if !cx.has("trans") {
        return Err(cx.bad("needs .trans"));
    }
    cx.expect_operands(2)?;
    let a = b.src(cx, 1, Type::I32)?;
    full_warp_wait(b, cx);
    let l = lane(b, cx);
    let q = bin_k(b, cx, UDIV, l, 4);
    let r = bin_k(b, cx, UREM, l, 4);
    // d half h = source element (2·(l%4) + h, l/4): lane 4·(2·(l%4)+h) + (l/4)/2, half (l/4)%2.
    let q2 = bin_k(b, cx, UDIV, q, 2);
    let sel = bin_k(b, cx, UREM, q, 2);
    let shift = bin_k(b, cx, Op::Shl {}, sel, 4);
    let mut halves = vec![];
    for h in 0..2u64 {
        let r8 = bin_k(b, cx, Op::Shl {}, r, 3);
        let row = bin_k(b, cx, Op::IAdd {}, r8, 4 * h);
        let src = bin(b, cx, Op::IAdd {}, row, q2);
        let w = shfl32(b, cx, a, src);
        let e = bin(b, cx, SHR, w, shift);
        halves.push(bin_k(b, cx, Op::And {}, e, 0xffff));
    }
    let hi = bin_k(b, cx, Op::Shl {}, halves[1], 16);
    let v = bin(b, cx, Op::Or {}, halves[0], hi);
    if let Some(t) = b.dst(cx, 0, Type::I32)? {
        b.copy(t, v, cx.loc, &cx.ptx);
    }
    Ok(())
}

// ---- wmma. ----

/// Which WMMA matrix a `wmma.load` names (`.a`, `.b`, `.c`).
fn wmma_frag(cx: &Cx) -> Result<MmaFrag, LowerError> {
    match (cx.has("a"), cx.has("b"), cx.has("c")) {
        (true, false, false) => Ok(MmaFrag::A),
        (false, true, false) => Ok(MmaFrag::B),
        (false, false, true) => Ok(MmaFrag::C),
        _ => Err(cx.bad("needs one of .a, .b, .c")),
    }
}

/// A matrix shape `(m, n, k)`.
pub(crate) type Shape = (u8, u8, u16);

/// The WMMA shapes `(m, n, k)` of each input type ptxjit supports (PTX ISA §9.7.14.4.1); the
/// decoder's one list, which the fuzz generator draws its `wmma` forms from.
pub(crate) const WMMA_SHAPES: &[(MmaElem, &[Shape])] = {
    use MmaElem::*;
    const HALF_BYTE: &[Shape] = &[(16, 16, 16), (32, 8, 16), (8, 32, 16)];
    &[
        (F16, HALF_BYTE),
        (Bf16, HALF_BYTE),
        (S8, HALF_BYTE),
        (U8, HALF_BYTE),
        (Tf32, &[(16, 16, 8)]),
        (F64, &[(8, 8, 4)]),
        (S4, &[(8, 8, 32)]),
        (U4, &[(8, 8, 32)]),
        (B1, &[(8, 8, 128)]),
    ]
};

/// Whether ptxjit supports WMMA shape `(m, n, k)` with inputs `a` ([`WMMA_SHAPES`]).
fn wmma_shape_ok(m: u8, n: u8, k: u16, a: MmaElem) -> bool {
    WMMA_SHAPES
        .iter()
        .any(|(e, shapes)| *e == a && shapes.contains(&(m, n, k)))
}

/// The types C and D of a `wmma.mma` with inputs `a` may have (PTX ISA §9.7.14.4.4: `.f16`
/// inputs accumulate in `.f16` or `.f32`, each of C and D apart; `.bf16`/`.tf32` in `.f32`,
/// `.f64` in `.f64`, the integer ones in `.s32`); empty for types `wmma` does not take.
pub(crate) fn wmma_accumulators(a: MmaElem) -> &'static [MmaElem] {
    use MmaElem::*;
    match a {
        F16 => &[F16, F32],
        Bf16 | Tf32 => &[F32],
        F64 => &[F64],
        S8 | U8 | S4 | U4 | B1 => &[S32],
        F32 | S32 | E4m3 | E5m2 | E2m3 | E3m2 | E2m1 => &[],
    }
}

/// The spec of a WMMA fragment of shape `(m, n, k)` with inputs `input` and accumulators `acc`
/// (C and D alike): what `wmma.load`/`wmma.store` and the fuzz generator need of it.
pub(crate) fn wmma_spec_of((m, n, k): (u8, u8, u16), input: MmaElem, acc: MmaElem) -> MmaSpec {
    MmaSpec::new(MmaFamily::Wmma, (m, n, k), input, acc)
}

/// A WMMA spec for loads and stores: only the shape and the element type of the fragment
/// matter (`which` gets `ty`; the accumulator types follow from it).
fn wmma_spec(cx: &Cx, which: MmaFrag, ty: MmaElem) -> Result<MmaSpec, LowerError> {
    let (m, n, k) = shape(cx)?;
    let input = match which {
        MmaFrag::A | MmaFrag::B => ty,
        // The input type does not change C's layout; pick one valid for the shape.
        MmaFrag::C => match (m, n, k) {
            (16, 16, 8) => MmaElem::Tf32,
            (8, 8, 4) => MmaElem::F64,
            (8, 8, 32) => MmaElem::S4,
            (8, 8, 128) => MmaElem::B1,
            _ => MmaElem::F16,
        },
    };
    if !wmma_shape_ok(m, n, k, input) {
        return Err(cx.unsupported(&format!(
            "wmma .m{m}n{n}k{k} with .{ty} is not supported (shapes: .m16n16k16, .m32n8k16, \
             .m8n32k16 with .f16/.bf16/.s8/.u8; .m16n16k8 .tf32; .m8n8k4 .f64; .m8n8k32 \
             .s4/.u4; .m8n8k128 .b1)"
        )));
    }
    Ok(wmma_spec_of((m, n, k), input, ty))
}

/// The IR type of one element in memory.
fn mem_type(e: MmaElem) -> Type {
    match e {
        MmaElem::F16 | MmaElem::Bf16 => Type::I16,
        MmaElem::S8 | MmaElem::U8 | MmaElem::E4m3 | MmaElem::E5m2 => Type::I8,
        MmaElem::F64 => Type::F64,
        MmaElem::Tf32 | MmaElem::F32 | MmaElem::S32 => Type::I32,
        MmaElem::S4 | MmaElem::U4 | MmaElem::B1 | MmaElem::E2m3 | MmaElem::E3m2 | MmaElem::E2m1 => {
            Type::I32
        }
    }
}

/// `.row` or `.col` (the memory layout of a `wmma.load`/`wmma.store`): true for `.col`.
fn wmma_col(cx: &Cx) -> Result<bool, LowerError> {
    match layouts(cx)[..] {
        ["row"] => Ok(false),
        ["col"] => Ok(true),
        _ => Err(cx.bad("needs one of .row, .col")),
    }
}

/// The byte addresses of the elements lane holds: `addr + esize·(row·stride + col)` (`.row`)
/// or `esize·(col·stride + row)` (`.col`), with (row, col) from the WMMA layout.
fn wmma_addrs(
    b: &mut Builder,
    cx: &Cx,
    spec: &MmaSpec,
    f: MmaFrag,
    addr: Var,
    stride: Var,
    col_major: bool,
) -> Result<Vec<Var>, LowerError> {
    let esize = mem_type(spec.elem(f)).bytes() as u64;
    let (rows, cols) = spec.dims(f);
    let e = spec.elems(f) as u64;
    let total = (rows * cols) as u64;
    let l = lane(b, cx);
    let first = bin_k(b, cx, Op::IMul {}, l, e);
    let mut out = vec![];
    for i in 0..e {
        let lin = bin_k(b, cx, Op::IAdd {}, first, i);
        let lin = bin_k(b, cx, UREM, lin, total);
        let row = bin_k(b, cx, UDIV, lin, cols as u64);
        let col = bin_k(b, cx, UREM, lin, cols as u64);
        let (major, minor) = if col_major { (col, row) } else { (row, col) };
        let m = bin(b, cx, Op::IMul {}, major, stride);
        let el = bin(b, cx, Op::IAdd {}, m, minor);
        let bytes = bin_k(b, cx, Op::IMul {}, el, esize);
        out.push(offset(b, cx, addr, bytes)?);
    }
    Ok(out)
}

/// The stride operand `k` (elements between rows or columns), or the matrix's own leading
/// dimension when there is none.
fn wmma_stride(
    b: &mut Builder,
    cx: &Cx,
    k: usize,
    dims: (u32, u32),
    col_major: bool,
) -> Result<Var, LowerError> {
    if cx.inst.operands.len() > k {
        return b.src(cx, k, Type::I32);
    }
    let ld = if col_major { dims.0 } else { dims.1 };
    Ok(b.konst(cx, Type::I32, ld as u64))
}

pub(super) fn wmma(b: &mut Builder, cx: &mut Cx) -> R {
    match cx.mods.first().copied() {
        Some("load") => wmma_load(b, cx),
        Some("store") => wmma_store(b, cx),
        Some("mma") => wmma_mma(b, cx),
        _ => Err(cx.bad("needs .load, .store or .mma")),
    }
}

/// PTX ISA §9.7.14.4.2: `wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p]{, stride}`.
fn wmma_load(b: &mut Builder, cx: &mut Cx) -> R {
    wmma_sync_aligned(b, cx)?;
    only(
        cx,
        &[
            "load",
            "a",
            "b",
            "c",
            "sync",
            "aligned",
            "row",
            "col",
            "global",
            "shared",
            "shared::cta",
        ],
        true,
        true,
    )?;
    let f = wmma_frag(cx)?;
    let [ty] = elem_types(cx)[..] else {
        return Err(cx.bad("needs one element type"));
    };
    let spec = wmma_spec(cx, f, ty)?;
    let col_major = wmma_col(cx)?;
    let sub_byte = ty.bits() < 8;
    // PTX ISA §9.7.14.4.2: sub-byte A is `.row` and B `.col` (ptxas: "Illegal alayout").
    match (sub_byte, f, col_major) {
        (true, MmaFrag::A, true) => return Err(cx.bad(".s4/.u4/.b1 A needs .row")),
        (true, MmaFrag::B, false) => return Err(cx.bad(".s4/.u4/.b1 B needs .col")),
        _ => {}
    }
    if cx.inst.operands.len() != 2 && cx.inst.operands.len() != 3 {
        return Err(cx.bad("expects 2 or 3 operands"));
    }
    let (nregs, rty) = spec.regs(f, false);
    typed_fragment(b, cx, 0, "loaded", ty)?;
    let dests = regs(cx, 0, nregs)?;
    let space = space_of(cx);
    let addr = b.address(cx, 1, space)?;
    let stride = wmma_stride(b, cx, 2, spec.dims(f), col_major)?;
    full_warp_wait(b, cx);
    if sub_byte && f != MmaFrag::C {
        return wmma_load_sub_byte(b, cx, &spec, f, &dests, addr, stride, space);
    }
    let mt = mem_type(ty);
    let addrs = wmma_addrs(b, cx, &spec, f, addr, stride, col_major)?;
    let mut elems = vec![];
    for a in addrs {
        elems.push(b.emit1(
            Op::Load {
                space,
                align: mt.bytes() as u8,
            },
            vec![a],
            mt,
            cx.loc,
            &cx.ptx,
        ));
    }
    let p = ty.per_reg() as usize;
    for (r, dop) in dests.iter().enumerate() {
        let v = if p == 1 {
            b.coerce(cx, elems[r], rty, None, cx.inst.span)?
        } else {
            let mut acc = None;
            for j in 0..p {
                let e = int_to(b, cx, elems[r * p + j], Type::I32)?;
                let e = bin_k(b, cx, Op::Shl {}, e, (j as u64) * ty.bits() as u64);
                acc = Some(match acc {
                    None => e,
                    Some(x) => bin(b, cx, Op::Or {}, x, e),
                });
            }
            acc.ok_or_else(|| cx.bad("empty fragment"))?
        };
        if let Some(t) = b.dst_rel(cx, dop, rty, None)? {
            b.copy(t, v, cx.loc, &cx.ptx);
        }
    }
    Ok(())
}

/// A sub-byte (`.s4`/`.u4`/`.b1`) A or B fragment: one 32-bit register per lane holding the
/// 32 consecutive bits of one row of A (`.row`) or one column of B (`.col`) that the lane's
/// elements `l·E .. l·E + E` of the fragment map ([`crate::runtime::mma::coord`]) name, the
/// first element in the low bits. Element `(major, minor)` is at bit `(major·stride + minor)`
/// × the element's bits from `addr`, `stride` in elements; a row or column start that is not
/// at a 32-bit boundary gives a misaligned address (the load faults) rather than a word
/// shifted by part of an element.
#[allow(clippy::too_many_arguments)]
fn wmma_load_sub_byte(
    b: &mut Builder,
    cx: &mut Cx,
    spec: &MmaSpec,
    f: MmaFrag,
    dests: &[Operand],
    addr: Var,
    stride: Var,
    space: Space,
) -> R {
    let bits = spec.elem(f).bits() as u64;
    let k = spec.k as u64;
    let l = lane(b, cx);
    let first = bin_k(b, cx, Op::IMul {}, l, spec.elems(f) as u64);
    let major = bin_k(b, cx, UDIV, first, k);
    let minor = bin_k(b, cx, UREM, first, k);
    let m = bin(b, cx, Op::IMul {}, major, stride);
    let el = bin(b, cx, Op::IAdd {}, m, minor);
    let bit = bin_k(b, cx, Op::IMul {}, el, bits);
    let words = bin_k(b, cx, SHR, bit, 5);
    let bytes = bin_k(b, cx, Op::Shl {}, words, 2);
    let part = bin_k(b, cx, Op::And {}, bit, 31);
    let part = bin_k(b, cx, Op::IAdd {}, part, 31);
    let odd = bin_k(b, cx, SHR, part, 5);
    let bytes = bin(b, cx, Op::IAdd {}, bytes, odd);
    let a = offset(b, cx, addr, bytes)?;
    let v = b.emit1(
        Op::Load { space, align: 4 },
        vec![a],
        Type::I32,
        cx.loc,
        &cx.ptx,
    );
    if let Some(t) = b.dst_rel(cx, &dests[0], Type::I32, None)? {
        b.copy(t, v, cx.loc, &cx.ptx);
    }
    Ok(())
}

/// PTX ISA §9.7.14.4.3: `wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride}`.
fn wmma_store(b: &mut Builder, cx: &mut Cx) -> R {
    wmma_sync_aligned(b, cx)?;
    only(
        cx,
        &[
            "store",
            "d",
            "sync",
            "aligned",
            "row",
            "col",
            "global",
            "shared",
            "shared::cta",
        ],
        true,
        true,
    )?;
    if !cx.has("d") {
        return Err(cx.bad("needs .d"));
    }
    let [ty] = elem_types(cx)[..] else {
        return Err(cx.bad("needs one element type"));
    };
    if !matches!(
        ty,
        MmaElem::F16 | MmaElem::F32 | MmaElem::S32 | MmaElem::F64
    ) {
        return Err(cx.bad(&format!("no wmma.store of .{ty}")));
    }
    let f = MmaFrag::C;
    let spec = wmma_spec(cx, f, ty)?;
    let col_major = wmma_col(cx)?;
    if cx.inst.operands.len() != 2 && cx.inst.operands.len() != 3 {
        return Err(cx.bad("expects 2 or 3 operands"));
    }
    let (nregs, rty) = spec.regs(f, false);
    typed_fragment(b, cx, 1, "stored", ty)?;
    let srcs = regs(cx, 1, nregs)?;
    let mut vals = vec![];
    for o in &srcs {
        vals.push(b.src_rel(cx, o, rty, None)?);
    }
    let space = space_of(cx);
    let addr = b.address(cx, 0, space)?;
    let stride = wmma_stride(b, cx, 2, spec.dims(f), col_major)?;
    full_warp_wait(b, cx);
    let mt = mem_type(ty);
    let addrs = wmma_addrs(b, cx, &spec, f, addr, stride, col_major)?;
    let p = ty.per_reg() as usize;
    for (i, a) in addrs.into_iter().enumerate() {
        let reg = vals[i / p];
        let v = if p == 1 {
            b.coerce(cx, reg, mt, None, cx.inst.span)?
        } else {
            let sh = bin_k(b, cx, SHR, reg, ((i % p) as u64) * ty.bits() as u64);
            int_to(b, cx, sh, mt)?
        };
        b.emit(
            Op::Store {
                space,
                align: mt.bytes() as u8,
            },
            vec![a, v],
            vec![],
            cx.loc,
            &cx.ptx,
        );
    }
    Ok(())
}

/// The rounding modifier of an `mma`/`wmma.mma` (PTX ISA §9.7.14.4.4, §9.7.14.5.14): `.rn`
/// (the default), `.rz`, `.rm`, `.rp`, each only with `.f64` inputs.
fn f64_rounding(cx: &Cx, a: MmaElem) -> Result<Round, LowerError> {
    let mut rnd = None;
    for m in &cx.mods {
        let r = match *m {
            "rn" => Round::Nearest,
            "rz" => Round::Zero,
            "rm" => Round::Down,
            "rp" => Round::Up,
            _ => continue,
        };
        if rnd.replace(r).is_some() {
            return Err(cx.bad("more than one rounding modifier"));
        }
    }
    if rnd.is_some() && a != MmaElem::F64 {
        return Err(cx.bad(&format!(
            "a rounding modifier (.rn/.rz/.rm/.rp) needs .f64 inputs, not .{a}"
        )));
    }
    Ok(rnd.unwrap_or(Round::Nearest))
}

/// PTX ISA §9.7.14.4.4: `wmma.mma.sync.aligned.alayout.blayout.shape.dtype.ctype d, a, b, c`
/// (`.f16` inputs), `….shape.dtype.atype.btype.ctype` (others; `.satfinite` for integers,
/// `.rn` for `.f64`).
fn wmma_mma(b: &mut Builder, cx: &mut Cx) -> R {
    wmma_sync_aligned(b, cx)?;
    only(
        cx,
        &[
            "mma",
            "sync",
            "aligned",
            "row",
            "col",
            "satfinite",
            "rn",
            "rz",
            "rm",
            "rp",
            "xor",
            "and",
            "popc",
        ],
        true,
        true,
    )?;
    let lay = layouts(cx);
    if lay.len() != 2 {
        return Err(cx.bad("needs .alayout.blayout (.row or .col each)"));
    }
    let (m, n, k) = shape(cx)?;
    let (d, a, bt, c) = match elem_types(cx)[..] {
        [d, c] => (d, MmaElem::F16, MmaElem::F16, c),
        [d, a, bt, c] => (d, a, bt, c),
        _ => return Err(cx.bad("needs .dtype.ctype or .dtype.atype.btype.ctype")),
    };
    if !wmma_shape_ok(m, n, k, a) {
        return Err(cx.unsupported(&format!(
            "wmma.mma .m{m}n{n}k{k} with .{a} inputs is not supported"
        )));
    }
    use MmaElem::*;
    // PTX ISA §9.7.14.4.4: A and B have one type (sub-byte inputs are both `.s4` or both
    // `.u4`: ptxas refuses `.s4.u4`).
    let accs = wmma_accumulators(a);
    let types_ok = bt == a && accs.contains(&c) && accs.contains(&d);
    if !types_ok {
        return Err(cx.bad(&format!("no wmma.mma with types .{d}.{a}.{bt}.{c}")));
    }
    // PTX ISA §9.7.14.4.4: sub-byte multiplies are `.row.col`; `.b1` needs `.xor.popc` or
    // `.and.popc` (its "multiplication"), which no other type takes.
    if a.bits() < 8 && lay[..] != ["row", "col"] {
        return Err(cx.bad(".s4/.u4/.b1 wmma.mma needs .row.col"));
    }
    let bop = bit_op(cx)?;
    match (a == B1, bop) {
        (true, MmaBitOp::None) => return Err(cx.bad(".b1 wmma.mma needs .xor.popc or .and.popc")),
        (false, MmaBitOp::Xor | MmaBitOp::And) => {
            return Err(cx.bad(".xor/.and.popc is for .b1 wmma.mma only"))
        }
        (true, MmaBitOp::Xor | MmaBitOp::And) | (false, MmaBitOp::None) => {}
    }
    let satfinite = cx.has("satfinite");
    if satfinite && a == B1 {
        return Err(cx.bad(".satfinite is not for .b1 wmma.mma"));
    }
    if satfinite && !a.is_int() && a != F16 {
        return Err(cx.bad(".satfinite is for integer (or .f16) wmma.mma"));
    }
    let spec = MmaSpec {
        b: bt,
        d,
        satfinite: satfinite && a.is_int(),
        bop,
        ..MmaSpec::new(MmaFamily::Wmma, (m, n, k), a, c)
    };
    if satfinite && a == F16 {
        // ptxas 13.5: "'wmma.mma' with floating point type with '.satfinite' is not supported
        // starting from PTX ISA version 6.5".
        if b.header.version >= Version(6, 5) {
            return Err(
                cx.bad(".satfinite with floating-point wmma.mma was removed in PTX ISA 6.5")
            );
        }
        return Err(
            cx.unsupported("wmma.mma .satfinite with floating-point results is not supported yet")
        );
    }
    let spec = MmaSpec {
        rnd: f64_rounding(cx, a)?,
        ..spec
    };
    for (k, which, e) in [(0, "D", d), (1, "A", a), (2, "B", bt), (3, "C", c)] {
        typed_fragment(b, cx, k, which, e)?;
    }
    emit_mma(b, cx, spec)
}

#[cfg(test)]
mod tests {
    /// Forms the ISA rejects, or that ptxjit does not implement, are load errors with the
    /// instruction's location and a message naming what is wrong.
    #[test]
    fn invalid_matrix_forms_are_rejected() {
        let f4 = "{%f1, %f2, %f3, %f4}";
        for (inst, want) in [
            (
                format!("mma.sync.aligned.m16n8k8.col.row.f32.f16.f16.f32 {f4}, {{%r1, %r2}}, {{%r3}}, {f4}"),
                "needs .row.col",
            ),
            (
                format!("mma.sync.aligned.m16n8k8.row.col.ftz.f32.f16.f16.f32 {f4}, {{%r1, %r2}}, {{%r3}}, {f4}"),
                "illegal modifier '.ftz' for instruction 'mma'",
            ),
            (
                format!("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {f4}, {{%r1}}, {{%r3}}, {f4}"),
                "needs 2 registers in operand 2",
            ),
            (
                format!("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f16 {f4}, {{%r1, %r2}}, {{%r3}}, {{%r1, %r2}}"),
                "no mma form",
            ),
            // ptxas: ".dtype must be '.f32' when .ctype is '.f32'"; on the m16n8 shapes an
            // .f16 accumulator gives no .f32 result either.
            (
                format!("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32 {{%r1, %r2}}, {{%r1, %r2, %r3, %r4}}, {{%r1, %r2}}, {f4}"),
                "no mma form",
            ),
            (
                format!("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f16 {f4}, {{%r1, %r2}}, {{%r3}}, {{%r1, %r2}}"),
                "no mma form",
            ),
            (
                "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f32 {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%r3, %r4}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}".into(),
                "no mma form",
            ),
            (
                format!("mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 {f4}, {{%r1, %r2, %r3, %r4}}, {{%r1, %r2}}, {f4}"),
                ".satfinite applies to integer mma only",
            ),
            (
                "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32 {%r1, %r2}, {%r3}, {%r4}, {%r1, %r2}".into(),
                "no mma form",
            ),
            // ptxas 13.5: "Illegal modifier '.satfinite' for instruction 'mma'" on every .b1
            // shape.
            (
                "mma.sync.aligned.m16n8k256.row.col.satfinite.s32.b1.b1.s32.and.popc {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%r1, %r2, %r3, %r4}".into(),
                "illegal modifier '.satfinite' for instruction 'mma' with .b1 inputs",
            ),
            (
                format!("mma.aligned.m16n8k8.row.col.f32.f16.f16.f32 {f4}, {{%r1, %r2}}, {{%r3}}, {f4}"),
                "needs .sync.aligned",
            ),
            (
                format!("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {f4}, {{%r1, %r2, %r3, %r4}}, {{%r3, %r4, %r1, %r2}}, {f4}, %r5, 2"),
                "the sparsity selector must be an integer constant in [0, 1]",
            ),
            (
                format!("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {f4}, {{%r1, %r2}}, {{%r3, %r4}}, {f4}, %r5, %r6"),
                "the sparsity selector must be an integer constant",
            ),
            (
                format!("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 {f4}, {{%r1, %r2}}, {{%r3, %r4}}, {{%r1, %r2}}, %r5, 0"),
                "no mma.sp form",
            ),
            (
                format!("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {f4}, {{%r1, %r2}}, {{%r3, %r4}}, {f4}"),
                "expects 6 operands",
            ),
            (
                "ldmatrix.sync.aligned.m8n8.shared.b16 {%r1}, [%r2]".into(),
                "needs one of .x1, .x2, .x4",
            ),
            (
                "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1}, [%r2]".into(),
                "needs 2 registers",
            ),
            (
                "ldmatrix.sync.aligned.m8n8.x1.global.b16 {%r1}, [%rd2]".into(),
                "modifier '.global' is not allowed",
            ),
            (
                "movmatrix.sync.aligned.m8n8.b16 %r1, %r2".into(),
                "needs .trans",
            ),
            (
                "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1, %r2, %r3, %r4}, [%rd1]".into(),
                "needs 8 registers",
            ),
            (
                "wmma.load.a.sync.aligned.m16n16k16.f16 {%r1, %r2, %r3, %r4, %r1, %r2, %r3, %r4}, [%rd1]".into(),
                "needs one of .row, .col",
            ),
            // ptxas: "Illegal alayout '.col' for instruction 'wmma.load.a'".
            (
                "wmma.load.a.sync.aligned.col.m8n8k32.s4 {%r1}, [%rd1]".into(),
                "A needs .row",
            ),
            (
                "wmma.load.b.sync.aligned.row.m8n8k128.b1 {%r1}, [%rd1]".into(),
                "B needs .col",
            ),
            // ptxas: "Boolean operation is required for instruction 'wmma.mma'".
            (
                "wmma.mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r1, %r2}, {%r3}, {%r4}, {%r1, %r2}".into(),
                "needs .xor.popc or .and.popc",
            ),
            (
                "wmma.mma.xor.popc.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32 {%r1, %r2}, {%r3}, {%r4}, {%r1, %r2}".into(),
                "for .b1 wmma.mma only",
            ),
            // ptxas: "Illegal blayout '.row' for instruction 'wmma.mma'".
            (
                "wmma.mma.sync.aligned.row.row.m8n8k32.s32.u4.u4.s32 {%r1, %r2}, {%r3}, {%r4}, {%r1, %r2}".into(),
                "needs .row.col",
            ),
            // ptxas: "Unexpected instruction types specified for 'wmma.mma'".
            (
                "wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.u4.s32 {%r1, %r2}, {%r3}, {%r4}, {%r1, %r2}".into(),
                "no wmma.mma with types",
            ),
            (
                "wmma.load.a.sync.aligned.row.m8n8k16.s4 {%r1}, [%rd1]".into(),
                "not supported",
            ),
            (
                "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e2m1.e2m1.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4}".into(),
                // The block-scaled kinds need PTX ISA 8.7 (the example kernel is .version 8.5).
                ".block_scale ('mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e2m1.e2m1.f32') requires PTX ISA 8.7",
            ),
        ] {
            let err = crate::host::front_end(&crate::coverage::example_kernel(&inst), "bad.ptx")
                .err()
                .unwrap_or_else(|| panic!("`{inst}` was accepted"))
                .to_string();
            assert!(err.contains(want), "`{inst}`: {err}");
            assert!(err.contains("bad.ptx:18:"), "`{inst}`: no location in {err}");
        }
    }

    /// Sparse forms of the sm_120a narrow floats that ptxas 13.5 refuses on sm_120a itself:
    /// load errors at the instruction naming what is wrong.
    #[test]
    fn invalid_sparse_narrow_float_forms_are_rejected() {
        let f4 = "{%f1, %f2, %f3, %f4}";
        let r4 = "{%r1, %r2, %r3, %r4}";
        for (inst, want) in [
            // ptxas: "Illegal modifier '.sp' for instruction 'mma'" (only
            // ::ordered_metadata takes an .f16 accumulator with FP8 inputs).
            (
                format!("mma.sp.sync.aligned.m16n8k64.row.col.f16.e4m3.e4m3.f16 {{%r1, %r2}}, {r4}, {r4}, {{%r1, %r2}}, %r5, 0"),
                "needs .sp::ordered_metadata, not .sp",
            ),
            (
                format!("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0 {f4}, {r4}, {r4}, {f4}, %r5, 0, %r2, {{0, 0}}, %r3, {{0, 0}}"),
                "no mma.sp .kind::mxf4/::mxf4nvf4 form .m16n8k64",
            ),
            (
                format!("mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 {f4}, {r4}, {r4}, {f4}, %r5, 1, %r2, {{0, 0}}, %r3, {{0, 0}}"),
                "the sparsity selector must be an integer constant in [0]",
            ),
        ] {
            let ptx = crate::coverage::example_kernel_for(&inst, "9.1", "sm_120a");
            let err = crate::host::front_end(&ptx, "bad.ptx")
                .err()
                .unwrap_or_else(|| panic!("`{inst}` was accepted"))
                .to_string();
            assert!(err.contains(want), "`{inst}`: {err}");
            assert!(err.contains("bad.ptx:18:"), "`{inst}`: no location in {err}");
        }
    }
}
