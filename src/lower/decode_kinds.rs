//! Register kinds against the instruction (PTX ISA §9.4 "Type Information for Instructions and
//! Operands"): only `.b` registers hold values of every kind, so a register whose declared
//! kind disagrees with the operand is an error, as ptxas reports it. `ld`, `st` and `cvt`
//! follow the relaxed rules of `lower::opsize` instead.

use super::super::build::Builder;
use super::Cx;
use crate::lower::LowerError;
use crate::ptx::ast::{self, Operand};

/// The class a register's declared type puts it in when it is an element of a vector operand
/// (`{%f1, %f2, %f3, %f4}`); ptxas 12.9 rejects a vector whose elements are of two classes
/// ("Vector with elements of different types are not allowed in tex instruction").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ElementClass {
    /// `.uN`/`.sN`: `.u32` and `.s32` elements mix.
    Integer,
    /// `.f16`/`.bf16`/`.f32`/`.f64`.
    Float,
    /// `.f16x2`/`.bf16x2`: mixes with neither integers nor floats.
    Packed,
}

impl ElementClass {
    /// The class of a register declared `t`; `None` for `.bN` (which mixes with every class),
    /// `.pred` and the opaque types, which other rules judge.
    fn of(t: ast::ScalarType) -> Option<ElementClass> {
        use ast::ScalarType::*;
        match t {
            U8 | U16 | U32 | U64 | S8 | S16 | S32 | S64 => Some(ElementClass::Integer),
            F16 | Bf16 | F32 | F64 => Some(ElementClass::Float),
            F16x2 | Bf16x2 => Some(ElementClass::Packed),
            B8 | B16 | B32 | B64 | B128 | Pred | TexRef | SamplerRef | SurfRef => None,
        }
    }
}

/// Whether the instruction is a `tex` or `tld4` of an arrayed geometry (`.a1d`, `.a2d`,
/// `.acube`), whose coordinate vector starts with the array index.
fn arrayed_texture(cx: &Cx) -> bool {
    matches!(cx.inst.opcode.name.as_str(), "tex" | "tld4")
        && cx
            .mods
            .iter()
            .any(|m| matches!(*m, "a1d" | "a2d" | "acube"))
}

impl Builder<'_> {
    /// Checks that no vector operand of the instruction (`{a, b, …}`, also inside the brackets
    /// of a texture or surface operand and before a residency predicate) mixes registers of
    /// two classes: integer (`.uN`/`.sN`), floating-point (`.fN`) and packed half
    /// (`.f16x2`); `.bN` registers mix with all. ptxas 12.9 rejects such a vector in every
    /// instruction ("Vector with elements of different types are not allowed in mov
    /// instruction": `mov`, `ld`, `st`, `tex`, `tld4`, `suld`, `sust`, `ldmatrix`, `atom`).
    pub(super) fn check_vector_kinds(&self, cx: &Cx, ops: &[Operand]) -> Result<(), LowerError> {
        for o in ops {
            match o {
                Operand::Vector(items, _) | Operand::VecPred(items, _, _) => {
                    self.check_vector_kinds(cx, items)?;
                    let mut first: Option<(&ast::Ident, ast::ScalarType, ElementClass)> = None;
                    for item in items {
                        let Operand::Reg {
                            name,
                            component: None,
                        } = item
                        else {
                            continue;
                        };
                        let Some(t) = self
                            .reg(&name.name)
                            .and_then(|v| self.decl.get(&v).copied())
                        else {
                            continue;
                        };
                        let Some(class) = ElementClass::of(t) else {
                            continue;
                        };
                        match first {
                            None => first = Some((name, t, class)),
                            Some((a, at, ac)) if ac != class => {
                                return Err(LowerError::new(
                                    name.span,
                                    format!(
                                        "vector operand of '{}' mixes element types: '{}' is \
                                         .{} and '{}' is .{} (only .b registers mix with other \
                                         kinds, PTX ISA §9.4; ptxas: \"Vector with elements \
                                         of different types are not allowed\")",
                                        cx.ptx,
                                        a.name,
                                        format!("{at:?}").to_lowercase(),
                                        name.name,
                                        format!("{t:?}").to_lowercase()
                                    ),
                                ));
                            }
                            Some(_) => {}
                        }
                    }
                }
                // The array index of an arrayed `tex`/`tld4` is a `.u32` before `.f32`
                // coordinates: ptxas 12.9 lets its kind differ from theirs
                // (`tex.a1d.v4.f32.f32 d, [t, {%r1, %f1}]` with `%r1` a `.u32`).
                Operand::Bracketed(items, _) if arrayed_texture(cx) => {
                    for item in items {
                        match item {
                            Operand::Vector(coords, span) if !coords.is_empty() => self
                                .check_vector_kinds(
                                    cx,
                                    &[Operand::Vector(coords[1..].to_vec(), *span)],
                                )?,
                            other => self.check_vector_kinds(cx, std::slice::from_ref(other))?,
                        }
                    }
                }
                Operand::Bracketed(items, _) | Operand::List(items, _) => {
                    self.check_vector_kinds(cx, items)?
                }
                Operand::Reg { .. }
                | Operand::Not(..)
                | Operand::Neg(..)
                | Operand::Imm(..)
                | Operand::Symbol { .. }
                | Operand::Indexed { .. }
                | Operand::Address { .. }
                | Operand::PredPair(..)
                | Operand::Sink(_)
                | Operand::Select { .. } => {}
            }
        }
        Ok(())
    }
}

impl Builder<'_> {
    /// Checks operand `k`, which the PTX ISA types `.u32` whatever the instruction's own type
    /// (a shift amount of `shl`/`shr`/`shf`, a `membermask`, a barrier id or thread count, a
    /// bit position or length of `bfe`/`bfi`/`bmsk`, the result of `popc`/`clz`): a register
    /// of a floating-point type (`.f16` … `.f64`, `.f16x2`, `.bf16x2`) is an error there,
    /// as ptxas 12.9 says ("Arguments mismatch for instruction 'shl'"); `.b32`, `.u32` and
    /// `.s32` registers pass, and other sizes are the operand-size rules' to judge.
    pub(in crate::lower) fn check_u32_operand(&self, cx: &Cx, k: usize) -> Result<(), LowerError> {
        use ast::ScalarType::*;
        let Some((name, t)) = self.declared(cx.opnd(k)?) else {
            return Ok(());
        };
        match t {
            F16 | Bf16 | F32 | F64 | F16x2 | Bf16x2 => Err(self.kind_error(cx, name, t, "a .u32")),
            B8 | B16 | B32 | B64 | B128 | U8 | U16 | U32 | U64 | S8 | S16 | S32 | S64 | Pred
            | TexRef | SamplerRef | SurfRef => Ok(()),
        }
    }
}

impl Builder<'_> {
    /// Checks register operand `o`, a surface coordinate of `suld`/`sust`/`sured` (PTX ISA
    /// §9.7.11): an `.f16x2`/`.bf16x2` register there is "Arguments mismatch" to ptxas 12.9,
    /// as a scalar floating-point one is (`check_texel_kind`).
    pub(in crate::lower) fn check_surface_coordinate(
        &self,
        cx: &Cx,
        o: &Operand,
    ) -> Result<(), LowerError> {
        use ast::ScalarType::*;
        match self.declared(o) {
            Some((name, r @ (F16x2 | Bf16x2))) => Err(self.kind_error(cx, name, r, "a .s32")),
            _ => Ok(()),
        }
    }

    /// The register operand `o` (no vector component) and its declared type, if it is one.
    fn declared<'o>(&self, o: &'o Operand) -> Option<(&'o ast::Ident, ast::ScalarType)> {
        self.declared_reg(o).map(|(name, _, t)| (name, t))
    }

    /// Checks register operand `o` of `tex`/`tld4`/`suld`/`sust`, which the instruction types
    /// `t` (a destination of dtype `t`, a coordinate of ctype `t`, an `.s32` texel offset or
    /// surface coordinate, a `.u32` array index), by the kinds ptxas 12.9 rejects there
    /// ("Arguments mismatch"): no floating-point register (`.f16` … `.f64`) for an integer
    /// `t`; no `.f16x2`/`.bf16x2` register for `.f32` (an integer one passes, as ptxas lets
    /// it); only a `.b32` or `.f16x2` register for `.f16x2`. Other types pass (their sizes
    /// are checked when the operand is read or written).
    pub(in crate::lower) fn check_texel_kind(
        &self,
        cx: &Cx,
        o: &Operand,
        t: ast::ScalarType,
    ) -> Result<(), LowerError> {
        use ast::ScalarType::*;
        let Some((name, r)) = self.declared(o) else {
            return Ok(());
        };
        let scalar_float = matches!(r, F16 | Bf16 | F32 | F64);
        let packed = matches!(r, F16x2 | Bf16x2);
        let bad = match t {
            U32 | S32 | B32 => scalar_float,
            F32 => packed,
            F16x2 => !matches!(r, B32 | F16x2),
            Pred | B8 | B16 | B64 | B128 | U8 | U16 | U64 | S8 | S16 | S64 | F16 | Bf16
            | Bf16x2 | F64 | TexRef | SamplerRef | SurfRef => false,
        };
        if bad {
            return Err(self.kind_error(cx, name, r, &format!("a .{}", super::ty_name(t))));
        }
        Ok(())
    }
}
