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
        let Operand::Reg {
            name,
            component: None,
        } = cx.opnd(k)?
        else {
            return Ok(());
        };
        let Some(t) = self
            .reg(&name.name)
            .and_then(|v| self.decl.get(&v).copied())
        else {
            return Ok(());
        };
        match t {
            F16 | Bf16 | F32 | F64 | F16x2 | Bf16x2 => Err(self.kind_error(cx, name, t, "a .u32")),
            B8 | B16 | B32 | B64 | B128 | U8 | U16 | U32 | U64 | S8 | S16 | S32 | S64 | Pred
            | TexRef | SamplerRef | SurfRef => Ok(()),
        }
    }
}
