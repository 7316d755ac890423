//! Register operands wider than the instruction type: the relaxed type checking of `ld`, `st`
//! and `cvt` (PTX ISA §9.4.1 "Operand Size Exceeding Instruction-Type Size", and the
//! "Relaxed Type-checking Rules" tables it gives for source and destination operands).
//!
//! `ld`, `st` and `cvt` may name a data register wider than the instruction type, so narrow
//! values can live in 32- or 64-bit registers. A register narrower than the instruction type
//! is an error. Which register types an instruction type accepts (`ok` = accepted, `-` =
//! rejected; the same table holds for `ld` destinations, `st` sources and both operands of
//! `cvt`, checked against ptxas 12.9 for every cell):
//!
//! | instruction type | `.bN` register  | `.uN`/`.sN` register | `.fN` register  |
//! |------------------|-----------------|----------------------|-----------------|
//! | `.bX`            | N ≥ X           | N ≥ X                | N ≥ X           |
//! | `.uX`, `.sX`     | N ≥ X           | N ≥ X                | -               |
//! | `.fX`            | N ≥ X           | -                    | N = X           |
//!
//! A `.f16x2` register is accepted exactly where a `.u32` register is (ptxas 12.9: `.bX`,
//! `.uX` and `.sX` instruction types of at most 32 bits, no `.fX` type), so it counts as
//! `.u32`. ptxas 12.9 does not parse `.bf16`/`.bf16x2` register declarations at all; ptxjit
//! accepts them and treats them as `.f16` and `.f16x2`.
//!
//! What happens to the value when the register is wider:
//! - a source is **chopped**: only the low X bits are used;
//! - a destination is **sign-extended** when the instruction type is signed (`.sX`) and
//!   **zero-extended** otherwise (`.bX`, `.uX`, `.fX`: an `ld.f32` into a `.b64` register
//!   leaves the upper 32 bits zero).
//!
//! Every other instruction follows the general rule (PTX ISA §9.4 "Type Information for
//! Instructions and Operands"): operand and instruction type have the same size.

use crate::ptx::ast::ScalarType;

/// The kind of a PTX type: bit-size, unsigned, signed or floating point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    B,
    U,
    S,
    F,
}

/// A PTX data type as the operand-size rules see it: kind and width in bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PtxTy {
    pub kind: Kind,
    pub bits: u32,
}

/// The kind and width of a scalar PTX type, or `None` for `.pred`, `.b128` and the opaque
/// handle types, which the relaxed rules do not cover.
pub(crate) fn ptx_ty(t: ScalarType) -> Option<PtxTy> {
    use ScalarType::*;
    let (kind, bits) = match t {
        B8 => (Kind::B, 8),
        B16 => (Kind::B, 16),
        B32 => (Kind::B, 32),
        B64 => (Kind::B, 64),
        U8 => (Kind::U, 8),
        U16 => (Kind::U, 16),
        U32 | F16x2 | Bf16x2 => (Kind::U, 32),
        U64 => (Kind::U, 64),
        S8 => (Kind::S, 8),
        S16 => (Kind::S, 16),
        S32 => (Kind::S, 32),
        S64 => (Kind::S, 64),
        F16 | Bf16 => (Kind::F, 16),
        F32 => (Kind::F, 32),
        F64 => (Kind::F, 64),
        Pred | B128 | TexRef | SamplerRef | SurfRef => return None,
    };
    Some(PtxTy { kind, bits })
}

/// How a register's value meets the instruction type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fit {
    /// Same width: the bits as they are.
    Exact,
    /// A wider source: its low bits.
    Chop,
    /// A wider destination, zero-extended.
    Zext,
    /// A wider destination, sign-extended.
    Sext,
}

/// Whether instruction type `inst` of `ld`/`st`/`cvt` accepts a register of type `reg`
/// (the table in the module doc).
fn relaxed_ok(inst: PtxTy, reg: PtxTy) -> bool {
    let float_size = inst.kind != Kind::F || reg.kind != Kind::F || reg.bits == inst.bits;
    reg.bits >= inst.bits && kinds_agree(inst.kind, reg.kind) && float_size
}

/// Whether a register of kind `reg` may be an operand of an instruction of kind `inst`: a
/// bit-size type agrees with every kind, signed and unsigned integers with each other, and
/// a float type with floats (PTX ISA §9.4).
fn kinds_agree(inst: Kind, reg: Kind) -> bool {
    match (inst, reg) {
        (Kind::B, _) | (_, Kind::B) => true,
        (Kind::U | Kind::S, Kind::U | Kind::S) => true,
        (Kind::F, Kind::F) => true,
        (Kind::U | Kind::S, Kind::F) | (Kind::F, Kind::U | Kind::S) => false,
    }
}

/// The general rule for a register operand of type `reg` of an instruction of type `inst`
/// (PTX ISA §9.4 "Type Information for Instructions and Operands"; applied to `mov`): the
/// same size, and kinds that agree. Checked against ptxas 12.9 for every pair.
pub(crate) fn general_ok(inst: PtxTy, reg: PtxTy) -> bool {
    reg.bits == inst.bits && kinds_agree(inst.kind, reg.kind)
}

/// A source register of type `reg` for an `ld`/`st`/`cvt` of type `inst`: how its value is
/// read, or `None` where the ISA (and ptxas) reject the pair.
pub(crate) fn relaxed_src(inst: PtxTy, reg: PtxTy) -> Option<Fit> {
    if !relaxed_ok(inst, reg) {
        return None;
    }
    Some(if reg.bits == inst.bits {
        Fit::Exact
    } else {
        Fit::Chop
    })
}

/// A destination register of type `reg` for an `ld`/`cvt` of type `inst`: how the result is
/// written into it, or `None` where the ISA (and ptxas) reject the pair.
pub(crate) fn relaxed_dst(inst: PtxTy, reg: PtxTy) -> Option<Fit> {
    if !relaxed_ok(inst, reg) {
        return None;
    }
    Some(if reg.bits == inst.bits {
        Fit::Exact
    } else if inst.kind == Kind::S {
        Fit::Sext
    } else {
        Fit::Zext
    })
}

/// Whether a register declared `reg` may hold the `.bf16` or `.f16` value of a `cvt` of type
/// `inst`, beyond the table of the module doc (which does not tell `.bf16` from `.f16`): a
/// `.bf16` value takes a `.b16` or `.bf16` register only (PTX ISA §9.7.9.21: "For `.bf16`
/// instruction type, operand d has `.b16` type"; ptxas 12.9 rejects `.f16`, `.b32` and
/// `.b64` registers there, and a `.bf16` register is an `.f16` value's no more than an
/// `.f16` register is a `.bf16` one's.
pub(crate) fn bf16_ok(inst: ScalarType, reg: ScalarType) -> bool {
    use ScalarType::*;
    match (inst, reg) {
        (Bf16, r) => matches!(r, B16 | Bf16),
        (F16, Bf16) => false,
        _ => true,
    }
}

/// Why instruction type `inst` rejects a register declared `reg` (for an error message).
pub(crate) fn mismatch(inst: ScalarType, reg: ScalarType) -> String {
    let name = |t: ScalarType| format!(".{}", format!("{t:?}").to_lowercase());
    let (i, r) = (name(inst), name(reg));
    let why = match (ptx_ty(inst), ptx_ty(reg)) {
        _ if !bf16_ok(inst, reg) => {
            format!("a {i} value takes a .b16 or {i} register, not {r}")
        }
        (Some(it), Some(rt)) if rt.bits < it.bits => {
            format!("a {r} register is narrower than the instruction type {i}")
        }
        (Some(it), Some(_)) if it.kind == Kind::F => {
            format!("a {i} instruction type takes .b registers or {i} registers, not {r}")
        }
        _ => format!("a {i} instruction type takes integer or .b registers, not {r}"),
    };
    format!("{why} (PTX ISA §9.4.1)")
}

/// Why instruction type `inst` of an instruction other than `ld`/`st`/`cvt` rejects a
/// register declared `reg` (for an error message).
pub(crate) fn general_mismatch(inst: ScalarType, reg: ScalarType) -> String {
    let name = |t: ScalarType| format!(".{}", format!("{t:?}").to_lowercase());
    format!(
        "a {} register does not agree with the instruction type {}: operands have the \
         instruction type's size, and only .b types mix with other kinds (PTX ISA §9.4)",
        name(reg),
        name(inst)
    )
}
