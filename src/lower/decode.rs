//! Instruction decoding: one PTX instruction (opcode, modifiers, operands) → IR operations over
//! variables. Every supported form is listed here with its PTX ISA section; anything else is
//! an "unsupported instruction" error naming the instruction and its location.

use super::build::{Builder, PInst, PTerm, Sym, Var};
use super::opsize::{self, Fit, PtxTy};
use super::LowerError;
use crate::ir::{
    AtomOp, CvtRound, CvtType, FCmp, HalfFmt, ICmp, Op, Round, SReg, ShflMode, Sign, Space, SrcLoc,
    Type,
};
use crate::ptx::ast::{self, Literal, Operand};
use crate::ptx::span::Span;

#[path = "decode_bulk.rs"]
mod bulk;
#[path = "decode_cluster.rs"]
mod cluster;
#[path = "decode_async.rs"]
mod copy_async;
#[path = "decode_isa.rs"]
mod isa;
#[path = "decode_mbarrier.rs"]
mod mbar;
#[path = "decode_mma.rs"]
mod mma;
#[path = "decode_names.rs"]
mod names;
#[path = "decode_stack.rs"]
mod stack;
#[path = "decode_tcgen05.rs"]
mod tcgen05;
#[path = "decode_tex.rs"]
mod tex;
#[path = "decode_tma.rs"]
mod tma;
#[path = "decode_video.rs"]
mod video;
#[path = "decode_wgmma.rs"]
mod wgmma;

/// Per-instruction decoding context: destinations are written through temporaries and committed
/// at the end, so sources read before destinations change and guards apply uniformly.
pub(super) struct Cx<'i> {
    pub(super) inst: &'i ast::Instruction,
    pub(super) loc: SrcLoc,
    pub(super) ptx: String,
    pub(super) mods: Vec<&'i str>,
    /// (register, temporary) pairs to commit.
    pub(super) writes: Vec<(Var, Var)>,
}

impl Cx<'_> {
    pub(super) fn has(&self, m: &str) -> bool {
        self.mods.contains(&m)
    }

    /// The error for valid PTX that ptxjit does not implement: `what` says which part.
    pub(super) fn unsupported(&self, what: &str) -> LowerError {
        LowerError::unsupported(
            self.inst.span,
            format!("unsupported instruction '{}': {what}", self.ptx),
        )
    }

    /// A modifier that is no PTX word (ptxas: "Unknown modifier '.f33'").
    fn unknown_modifier(&self, m: &str) -> LowerError {
        // `.v3` looks like a vector width but is none (PTX ISA §5.4.2: .v2, .v4, .v8).
        if m == "v3" {
            self.bad(".v3 is not a PTX vector width (.v2, .v4 or .v8)")
        } else if names::bad_type(m) {
            self.bad(&format!("unknown modifier '.{m}' (not a PTX type)"))
        } else {
            self.bad(&format!("unknown modifier '.{m}'"))
        }
    }

    pub(super) fn bad(&self, what: &str) -> LowerError {
        LowerError::new(self.inst.span, format!("invalid '{}': {what}", self.ptx))
    }

    /// The operand at `k`, or an error naming the instruction.
    pub(super) fn opnd(&self, k: usize) -> Result<&Operand, LowerError> {
        self.inst
            .operands
            .get(k)
            .ok_or_else(|| self.bad(&format!("missing operand {}", k + 1)))
    }

    pub(super) fn expect_operands(&self, n: usize) -> Result<(), LowerError> {
        if self.inst.operands.len() != n {
            return Err(self.bad(&format!(
                "expects {n} operands, found {}",
                self.inst.operands.len()
            )));
        }
        Ok(())
    }

    /// The one type modifier among the modifiers (the last one that names a type).
    pub(super) fn ty(&self) -> Result<ast::ScalarType, LowerError> {
        self.mods
            .iter()
            .rev()
            .find_map(|m| ast::ScalarType::from_suffix(m))
            .ok_or_else(|| self.bad("missing type modifier"))
    }

    fn types(&self) -> Vec<ast::ScalarType> {
        self.mods
            .iter()
            .filter_map(|m| ast::ScalarType::from_suffix(m))
            .collect()
    }

    fn round(&self) -> Option<Round> {
        self.mods.iter().find_map(|m| match *m {
            "rn" => Some(Round::Nearest),
            "rz" => Some(Round::Zero),
            "rm" => Some(Round::Down),
            "rp" => Some(Round::Up),
            _ => None,
        })
    }
}

/// IR type and signedness of a PTX instruction type.
fn ir_ty(t: ast::ScalarType) -> Option<(Type, Sign, bool)> {
    use ast::ScalarType::*;
    Some(match t {
        B8 | U8 => (Type::I8, Sign::Unsigned, false),
        S8 => (Type::I8, Sign::Signed, false),
        B16 | U16 => (Type::I16, Sign::Unsigned, false),
        S16 => (Type::I16, Sign::Signed, false),
        B32 | U32 => (Type::I32, Sign::Unsigned, false),
        S32 => (Type::I32, Sign::Signed, false),
        B64 | U64 => (Type::I64, Sign::Unsigned, false),
        S64 => (Type::I64, Sign::Signed, false),
        F32 => (Type::F32, Sign::Signed, true),
        F64 => (Type::F64, Sign::Signed, true),
        Pred => (Type::Pred, Sign::Unsigned, false),
        _ => return None,
    })
}

fn cvt_ty(t: ast::ScalarType) -> Option<CvtType> {
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
        F32 => CvtType::F32,
        F64 => CvtType::F64,
        _ => return None,
    })
}

fn uint_cvt(t: Type) -> CvtType {
    match t {
        Type::I8 => CvtType::U8,
        Type::I16 => CvtType::U16,
        Type::I64 => CvtType::U64,
        _ => CvtType::U32,
    }
}

fn sint_cvt(t: Type) -> CvtType {
    match t {
        Type::I8 => CvtType::S8,
        Type::I16 => CvtType::S16,
        Type::I64 => CvtType::S64,
        _ => CvtType::S32,
    }
}

fn sreg(name: &str, comp: Option<char>) -> Option<SReg> {
    Some(match (name, comp) {
        ("%tid", Some('x')) => SReg::TidX,
        ("%tid", Some('y')) => SReg::TidY,
        ("%tid", Some('z')) => SReg::TidZ,
        ("%ntid", Some('x')) => SReg::NtidX,
        ("%ntid", Some('y')) => SReg::NtidY,
        ("%ntid", Some('z')) => SReg::NtidZ,
        ("%ctaid", Some('x')) => SReg::CtaidX,
        ("%ctaid", Some('y')) => SReg::CtaidY,
        ("%ctaid", Some('z')) => SReg::CtaidZ,
        ("%nctaid", Some('x')) => SReg::NctaidX,
        ("%nctaid", Some('y')) => SReg::NctaidY,
        ("%nctaid", Some('z')) => SReg::NctaidZ,
        ("%laneid", None) => SReg::LaneId,
        ("%warpid", None) => SReg::WarpId,
        ("%nwarpid", None) => SReg::NWarpId,
        ("%lanemask_eq", None) => SReg::LanemaskEq,
        ("%lanemask_le", None) => SReg::LanemaskLe,
        ("%lanemask_lt", None) => SReg::LanemaskLt,
        ("%lanemask_ge", None) => SReg::LanemaskGe,
        ("%lanemask_gt", None) => SReg::LanemaskGt,
        ("%clock", None) => SReg::Clock,
        ("%clock64", None) => SReg::Clock64,
        ("%globaltimer", None) => SReg::GlobalTimer,
        ("%globaltimer_lo", None) => SReg::GlobalTimerLo,
        ("%globaltimer_hi", None) => SReg::GlobalTimerHi,
        ("%smid", None) => SReg::SmId,
        ("%nsmid", None) => SReg::NSmId,
        ("%gridid", None) => SReg::GridId,
        ("%dynamic_smem_size", None) => SReg::DynamicSmemSize,
        ("%total_smem_size", None) => SReg::TotalSmemSize,
        ("%clusterid", Some('x')) => SReg::ClusterIdX,
        ("%clusterid", Some('y')) => SReg::ClusterIdY,
        ("%clusterid", Some('z')) => SReg::ClusterIdZ,
        ("%nclusterid", Some('x')) => SReg::NClusterIdX,
        ("%nclusterid", Some('y')) => SReg::NClusterIdY,
        ("%nclusterid", Some('z')) => SReg::NClusterIdZ,
        ("%cluster_ctaid", Some('x')) => SReg::ClusterCtaidX,
        ("%cluster_ctaid", Some('y')) => SReg::ClusterCtaidY,
        ("%cluster_ctaid", Some('z')) => SReg::ClusterCtaidZ,
        ("%cluster_nctaid", Some('x')) => SReg::ClusterNctaidX,
        ("%cluster_nctaid", Some('y')) => SReg::ClusterNctaidY,
        ("%cluster_nctaid", Some('z')) => SReg::ClusterNctaidZ,
        ("%cluster_ctarank", None) => SReg::ClusterCtaRank,
        ("%cluster_nctarank", None) => SReg::ClusterNctaRank,
        ("%is_explicit_cluster", None) => SReg::IsExplicitCluster,
        (n, None) => SReg::EnvReg(envreg(n)?),
        _ => return None,
    })
}

/// The number of `%envreg0`–`%envreg31` (PTX ISA §10.28).
fn envreg(name: &str) -> Option<u8> {
    let d = name.strip_prefix("%envreg")?;
    let digits = !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit());
    if !digits || (d.len() > 1 && d.starts_with('0')) {
        return None;
    }
    d.parse::<u8>().ok().filter(|&k| k < 32)
}

/// Bits of a literal as a value of IR type `ty` (PTX ISA §4.5: integer literals are
/// truncated to the operand width; float literals converted to the operand's float type).
fn literal_bits(l: Literal, ty: Type) -> u64 {
    let bits = match (l, ty) {
        (Literal::Int { value, .. }, Type::F32) => (value as f32).to_bits() as u64,
        (Literal::Int { value, .. }, Type::F64) => (value as f64).to_bits(),
        (Literal::Int { value, .. }, _) => value as u64,
        (Literal::Float(x), Type::F32) => (x as f32).to_bits() as u64,
        (Literal::Float(x), Type::F64) => x.to_bits(),
        (Literal::Float(x), _) => x as i64 as u64,
        (Literal::F32Bits(b), Type::F64) => (f32::from_bits(b) as f64).to_bits(),
        (Literal::F32Bits(b), _) => b as u64,
        (Literal::F64Bits(b), Type::F32) => (f64::from_bits(b) as f32).to_bits() as u64,
        (Literal::F64Bits(b), _) => b,
    };
    bits & ty.mask()
}

impl Builder<'_> {
    pub(super) fn konst(&mut self, cx: &Cx, ty: Type, bits: u64) -> Var {
        self.emit1(
            Op::Const {
                bits: bits & ty.mask(),
            },
            vec![],
            ty,
            cx.loc,
            &cx.ptx,
        )
    }

    /// Convert `v` (IR type `from`) to `to` where PTX allows it implicitly: same width
    /// (bit reinterpretation) or, with `relaxed`, a wider or narrower integer register
    /// (truncate, or extend by `sign`).
    pub(super) fn coerce(
        &mut self,
        cx: &Cx,
        v: Var,
        to: Type,
        relaxed: Option<Sign>,
        span: Span,
    ) -> Result<Var, LowerError> {
        let from = self.vars[v as usize];
        if from == to {
            return Ok(v);
        }
        if from.bits() == to.bits() && from != Type::Pred && to != Type::Pred {
            return Ok(self.emit1(Op::Bitcast {}, vec![v], to, cx.loc, &cx.ptx));
        }
        if let Some(sign) = relaxed {
            if from.is_int() && to.is_int() {
                let src = if sign == Sign::Signed && from.bits() < to.bits() {
                    sint_cvt(from)
                } else {
                    uint_cvt(from)
                };
                let dst = if sign == Sign::Signed {
                    sint_cvt(to)
                } else {
                    uint_cvt(to)
                };
                let op = Op::Cvt {
                    dst,
                    src,
                    rnd: CvtRound::None,
                    sat: false,
                    ftz: false,
                };
                return Ok(self.emit1(op, vec![v], to, cx.loc, &cx.ptx));
            }
            if from.is_int() && to.is_float() && from.bits() > to.bits() {
                let t = Type::int_of_bytes(to.bytes()).unwrap_or(Type::I32);
                let w = self.coerce(cx, v, t, relaxed, span)?;
                return self.coerce(cx, w, to, None, span);
            }
            if from.is_float() && to.is_int() && from.bits() < to.bits() {
                let t = Type::int_of_bytes(from.bytes()).unwrap_or(Type::I32);
                let w = self.coerce(cx, v, t, None, span)?;
                return self.coerce(cx, w, to, relaxed, span);
            }
        }
        Err(LowerError::new(
            span,
            format!(
                "operand of '{}' has type {from}, the instruction needs {to}",
                cx.ptx
            ),
        ))
    }

    /// A register by name, or an error.
    pub(super) fn reg_var(&self, cx: &Cx, name: &ast::Ident) -> Result<Var, LowerError> {
        let v = self.reg(&name.name).ok_or_else(|| {
            let msg = if super::vregs::is_vector(self, &name.name) {
                format!(
                    "'{}' is a vector register: name a component (.x) in '{}'",
                    name.name, cx.ptx
                )
            } else {
                format!("undeclared register '{}' in '{}'", name.name, cx.ptx)
            };
            LowerError::new(name.span, msg)
        })?;
        self.not_wide(cx, name, v)
    }

    /// `v` (register `name`) unless it is a `.b128` register, which only ld, st and mov.b128
    /// may use.
    fn not_wide(&self, cx: &Cx, name: &ast::Ident, v: Var) -> Result<Var, LowerError> {
        if self.wide.contains(&v) {
            return Err(LowerError::unsupported(
                name.span,
                format!(
                    "the .b128 register '{}' can only be used by ld, st and mov.b128, not by \
                     '{}'",
                    name.name, cx.ptx
                ),
            ));
        }
        Ok(v)
    }

    /// The (low, high) i64 halves of `.b128` register operand `o` (see `Builder::wide`).
    fn wide_reg(&self, cx: &Cx, o: &Operand) -> Result<(Var, Var), LowerError> {
        let found = match o {
            Operand::Reg {
                name,
                component: None,
            } => self
                .reg(&name.name)
                .filter(|v| self.wide.contains(v))
                .zip(self.reg(&format!("{}#hi", name.name))),
            _ => None,
        };
        found.ok_or_else(|| {
            LowerError::new(
                o.span(),
                format!("'{}' needs a .b128 register here", cx.ptx),
            )
        })
    }

    /// The value of a source operand as IR type `ty`.
    pub(super) fn src_rel(
        &mut self,
        cx: &Cx,
        o: &Operand,
        ty: Type,
        relaxed: Option<Sign>,
    ) -> Result<Var, LowerError> {
        match o {
            Operand::Reg { name, component } => {
                if let Some(v) = self.reg(&name.name) {
                    let v = self.not_wide(cx, name, v)?;
                    if component.is_some() {
                        return Err(LowerError::unsupported(
                            name.span,
                            format!("vector register component in '{}'", cx.ptx),
                        ));
                    }
                    return self.coerce(cx, v, ty, relaxed, name.span);
                }
                if let Some(r) = sreg(&name.name, *component) {
                    let v = self.emit1(Op::SReg { reg: r }, vec![], r.ty(), cx.loc, &cx.ptx);
                    if r == SReg::IsExplicitCluster {
                        // A `.pred` special register: read as 0/1, then made a predicate.
                        let zero = self.konst(cx, Type::I32, 0);
                        let p = self.emit1(
                            Op::ICmp {
                                cc: ICmp::Ne,
                                sign: Sign::Unsigned,
                            },
                            vec![v, zero],
                            Type::Pred,
                            cx.loc,
                            &cx.ptx,
                        );
                        return self.coerce(cx, p, ty, None, name.span);
                    }
                    return self.coerce(cx, v, ty, Some(Sign::Unsigned), name.span);
                }
                // Vector special registers (PTX ISA §10.1-10.4, `.sreg .v4 .u32`): the fourth
                // element is unused and reads 0; a scalar read needs a component.
                if [
                    "%tid",
                    "%ntid",
                    "%ctaid",
                    "%nctaid",
                    "%clusterid",
                    "%nclusterid",
                    "%cluster_ctaid",
                    "%cluster_nctaid",
                ]
                .contains(&name.name.as_str())
                {
                    if *component == Some('w') {
                        let z = self.konst(cx, Type::I32, 0);
                        return self.coerce(cx, z, ty, Some(Sign::Unsigned), name.span);
                    }
                    let what = match component {
                        Some(c) => format!("has no component '.{c}'"),
                        None => "needs a component".to_string(),
                    };
                    return Err(LowerError::new(
                        name.span,
                        format!(
                            "special register '{}' {what} (.x, .y, .z, or .w which reads 0) in '{}'",
                            name.name, cx.ptx
                        ),
                    ));
                }
                if name.name.starts_with('%') {
                    if let Some(s) = name.name.strip_prefix('%') {
                        let known = [
                            "clock",
                            "clock64",
                            "smid",
                            "nsmid",
                            "gridid",
                            "lanemask_eq",
                            "lanemask_le",
                            "lanemask_lt",
                            "lanemask_ge",
                            "lanemask_gt",
                            "globaltimer",
                            "dynamic_smem_size",
                            "total_smem_size",
                            "envreg",
                        ];
                        if known.iter().any(|k| s.starts_with(k)) {
                            return Err(LowerError::unsupported(
                                name.span,
                                format!("special register '{}' is not supported yet", name.name),
                            ));
                        }
                    }
                }
                // A bare symbol written as an operand (`mov.u64 %rd, smem`).
                self.symbol_addr(cx, name, 0, ty)
            }
            Operand::Imm(l, _) => {
                if ty == Type::Pred {
                    let bits = match l {
                        Literal::Int { value, .. } => (*value != 0) as u64,
                        _ => return Err(cx.bad("float literal used as a predicate")),
                    };
                    return Ok(self.konst(cx, Type::Pred, bits));
                }
                Ok(self.konst(cx, ty, literal_bits(*l, ty)))
            }
            Operand::Symbol { name, offset } => self.symbol_addr(cx, name, *offset, ty),
            Operand::Not(inner, span) => {
                if ty != Type::Pred {
                    return Err(LowerError::new(*span, "'!' applies only to predicates"));
                }
                let v = self.src_rel(cx, inner, Type::Pred, None)?;
                Ok(self.emit1(Op::Not {}, vec![v], Type::Pred, cx.loc, &cx.ptx))
            }
            Operand::Vector(_, span) => Err(LowerError::new(
                *span,
                format!(
                    "a vector operand is not allowed here in '{}' (a vector register needs a \
                     component such as .x)",
                    cx.ptx
                ),
            )),
            other => Err(LowerError::new(
                other.span(),
                format!("this operand form is not allowed here in '{}'", cx.ptx),
            )),
        }
    }

    pub(super) fn src(&mut self, cx: &Cx, k: usize, ty: Type) -> Result<Var, LowerError> {
        let o = cx.opnd(k)?.clone();
        self.src_rel(cx, &o, ty, None)
    }

    /// The address of a symbol plus `offset`, as a value of type `ty` (the space's address).
    fn symbol_addr(
        &mut self,
        cx: &Cx,
        name: &ast::Ident,
        offset: i64,
        ty: Type,
    ) -> Result<Var, LowerError> {
        let Some(sym) = self.syms.get(&name.name).copied() else {
            // A function's address (`mov.u64 %rd, f`): see `lower::recurse`.
            if let Some(&a) = self.graph.addr.get(&name.name) {
                if ty != Type::I64 {
                    return Err(LowerError::new(
                        name.span,
                        format!("the address of function '{}' needs 64 bits", name.name),
                    ));
                }
                return Ok(self.konst(cx, ty, a.wrapping_add(offset as u64)));
            }
            // PTX ISA §4.4 (Identifiers): the predefined constant WARP_SZ, the warp size.
            if name.name == "WARP_SZ" && ty.is_int() {
                let v = (crate::analysis::schedule::WARP_SIZE as u64).wrapping_add(offset as u64);
                return Ok(self.konst(cx, ty, v));
            }
            if super::vregs::is_vector(self, &name.name) {
                return Err(LowerError::new(
                    name.span,
                    format!(
                        "'{}' is a vector register: name a component (.x) in '{}'",
                        name.name, cx.ptx
                    ),
                ));
            }
            return Err(LowerError::new(
                name.span,
                format!("unknown symbol '{}' in '{}'", name.name, cx.ptx),
            ));
        };
        if !ty.is_int() || ty.bits() < 32 {
            return Err(LowerError::new(
                name.span,
                format!("address of '{}' needs a 32- or 64-bit integer", name.name),
            ));
        }
        let base = match sym {
            Sym::Param { offset, .. } => self.konst(cx, ty, offset as u64),
            Sym::Shared { offset } => self.konst(cx, ty, offset),
            Sym::Local { offset } => self.local_addr(cx, offset, ty)?,
            Sym::Global { index, space } => {
                let v = self.emit1(
                    Op::SymAddr { sym: index, space },
                    vec![],
                    Type::I64,
                    cx.loc,
                    &cx.ptx,
                );
                self.coerce(cx, v, ty, Some(Sign::Unsigned), name.span)?
            }
        };
        if offset == 0 {
            return Ok(base);
        }
        let o = self.konst(cx, ty, offset as u64);
        Ok(self.emit1(Op::IAdd {}, vec![base, o], ty, cx.loc, &cx.ptx))
    }

    /// A destination operand: returns a temporary of type `ty` that is committed to the
    /// register after decoding (with extension/truncation when `relaxed`).
    pub(super) fn dst_rel(
        &mut self,
        cx: &mut Cx,
        o: &Operand,
        ty: Type,
        relaxed: Option<Sign>,
    ) -> Result<Option<Var>, LowerError> {
        match o {
            Operand::Sink(_) => Ok(None),
            Operand::Reg {
                name,
                component: None,
            } => {
                let r = self.reg_var(cx, name)?;
                let t = self.new_var(ty);
                let rt = self.vars[r as usize];
                let ok = rt == ty
                    || (rt.bits() == ty.bits() && rt != Type::Pred && ty != Type::Pred)
                    || (relaxed.is_some() && rt.is_int() && ty.is_int());
                if !ok {
                    return Err(LowerError::new(
                        name.span,
                        format!(
                            "destination '{}' has type {rt}, '{}' produces {ty}",
                            name.name, cx.ptx
                        ),
                    ));
                }
                cx.writes.push((r, t));
                if relaxed.is_some() && rt.bits() != ty.bits() {
                    // Remember the extension kind in the var type: commit converts.
                    self.ext_sign.insert(t, relaxed.unwrap_or(Sign::Unsigned));
                }
                Ok(Some(t))
            }
            other => Err(LowerError::new(
                other.span(),
                format!("destination of '{}' must be a register", cx.ptx),
            )),
        }
    }

    /// The declared type of register operand `o` and the instruction type `inst` as the
    /// operand-size rules see them, when both are covered by them (`lower::opsize`).
    fn sized_reg<'o>(
        &self,
        o: &'o Operand,
        inst: ast::ScalarType,
    ) -> Option<(&'o ast::Ident, Var, ast::ScalarType, PtxTy, PtxTy)> {
        let Operand::Reg {
            name,
            component: None,
        } = o
        else {
            return None;
        };
        let v = self.reg(&name.name)?;
        let rt = self.decl.get(&v).copied()?;
        Some((name, v, rt, opsize::ptx_ty(inst)?, opsize::ptx_ty(rt)?))
    }

    /// A data source of `st` or `cvt` with instruction type `inst` (IR type `ty`): a register
    /// may be wider than `inst` and is then chopped to its low bits, under the rules of
    /// `lower::opsize`; other operands as [`Self::src_rel`] with `sign`.
    pub(super) fn src_sized(
        &mut self,
        cx: &Cx,
        o: &Operand,
        ty: Type,
        inst: ast::ScalarType,
        sign: Sign,
    ) -> Result<Var, LowerError> {
        let Some((name, v, rt, it, r)) = self.sized_reg(o, inst) else {
            return self.src_rel(cx, o, ty, Some(sign));
        };
        let v = self.not_wide(cx, name, v)?;
        let fit = opsize::relaxed_src(it, r).ok_or_else(|| {
            LowerError::new(
                name.span,
                format!(
                    "source '{}' of '{}': {}",
                    name.name,
                    cx.ptx,
                    opsize::mismatch(inst, rt)
                ),
            )
        })?;
        self.fit(cx, v, ty, fit, name.span)
    }

    /// A data destination of `ld` or `cvt` with instruction type `inst` (IR type `ty`): a
    /// register may be wider than `inst` and is then zero- or sign-extended, under the rules
    /// of `lower::opsize`; other operands as [`Self::dst_rel`] with `sign`.
    pub(super) fn dst_sized(
        &mut self,
        cx: &mut Cx,
        o: &Operand,
        ty: Type,
        inst: ast::ScalarType,
        sign: Sign,
    ) -> Result<Option<Var>, LowerError> {
        let Some((name, r, rt, it, rp)) = self.sized_reg(o, inst) else {
            return self.dst_rel(cx, o, ty, Some(sign));
        };
        let r = self.not_wide(cx, name, r)?;
        let fit = opsize::relaxed_dst(it, rp).ok_or_else(|| {
            LowerError::new(
                name.span,
                format!(
                    "destination '{}' of '{}': {}",
                    name.name,
                    cx.ptx,
                    opsize::mismatch(inst, rt)
                ),
            )
        })?;
        let t = self.new_var(ty);
        cx.writes.push((r, t));
        if fit != Fit::Exact {
            self.ext_fit.insert(t, fit);
        }
        Ok(Some(t))
    }

    /// Checks register operand `o` of an instruction of type `inst` against the general rule
    /// (`opsize::general_ok`: same size, agreeing kinds); other operands pass.
    pub(super) fn check_general(
        &self,
        cx: &Cx,
        o: &Operand,
        inst: ast::ScalarType,
    ) -> Result<(), LowerError> {
        match self.sized_reg(o, inst) {
            Some((name, _, rt, it, r)) if !opsize::general_ok(it, r) => Err(LowerError::new(
                name.span,
                format!(
                    "operand '{}' of '{}': {}",
                    name.name,
                    cx.ptx,
                    opsize::general_mismatch(inst, rt)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// `v` as IR type `to` by rule `fit` (`lower::opsize`): the same bits, the low bits, or
    /// the bits zero- or sign-extended; float values are taken as their bit patterns.
    pub(super) fn fit(
        &mut self,
        cx: &Cx,
        v: Var,
        to: Type,
        fit: Fit,
        span: Span,
    ) -> Result<Var, LowerError> {
        let from = self.vars[v as usize];
        if from == to {
            return Ok(v);
        }
        let as_int = |t: Type| {
            if t.is_float() {
                Type::int_of_bytes(t.bytes()).unwrap_or(t)
            } else {
                t
            }
        };
        let w = if from.is_float() {
            self.emit1(Op::Bitcast {}, vec![v], as_int(from), cx.loc, &cx.ptx)
        } else {
            v
        };
        let sign = if fit == Fit::Sext {
            Sign::Signed
        } else {
            Sign::Unsigned
        };
        let w = self.coerce(cx, w, as_int(to), Some(sign), span)?;
        if to.is_float() {
            return Ok(self.emit1(Op::Bitcast {}, vec![w], to, cx.loc, &cx.ptx));
        }
        Ok(w)
    }

    pub(super) fn dst(
        &mut self,
        cx: &mut Cx,
        k: usize,
        ty: Type,
    ) -> Result<Option<Var>, LowerError> {
        let o = cx.opnd(k)?.clone();
        self.dst_rel(cx, &o, ty, None)
    }

    /// Emit `op` with its single result going to destination operand 0.
    pub(super) fn unary_to_dst(
        &mut self,
        cx: &mut Cx,
        op: Op,
        args: Vec<Var>,
        ty: Type,
    ) -> Result<(), LowerError> {
        if let Some(t) = self.dst(cx, 0, ty)? {
            self.emit(op, args, vec![t], cx.loc, &cx.ptx);
        }
        Ok(())
    }

    /// An address operand `[base+off]` → (address value, its type).
    fn address(&mut self, cx: &Cx, k: usize, space: Space) -> Result<Var, LowerError> {
        let mut o = cx.opnd(k)?.clone();
        // `a[i]` is `[a + i * element size]` (PTX ISA §6.4.2).
        if let Operand::Indexed { name, index, span } = o {
            let size = match self.elem_size.get(&name.name) {
                Some(Some(s)) => *s,
                Some(None) => {
                    return Err(LowerError::new(
                        span,
                        format!(
                            "'{}[{index}]': '{}' is declared with different element sizes",
                            name.name, name.name
                        ),
                    ))
                }
                None => {
                    return Err(LowerError::new(
                        name.span,
                        format!("unknown variable '{}' in '{}'", name.name, cx.ptx),
                    ))
                }
            };
            o = Operand::Address {
                base: Some(name),
                offset: index.wrapping_mul(size as i64),
                span,
            };
        }
        let Operand::Address { base, offset, span } = o else {
            return Err(LowerError::new(
                o.span(),
                format!("'{}' needs an address operand [..]", cx.ptx),
            ));
        };
        let base_v = match &base {
            None => return Ok(self.konst(cx, Type::I64, offset as u64)),
            Some(name) => {
                if let Some(r) = self.reg(&name.name) {
                    let r = self.not_wide(cx, name, r)?;
                    let rt = self.vars[r as usize];
                    if !(rt == Type::I64 || rt == Type::I32) {
                        return Err(LowerError::new(
                            name.span,
                            format!("address register '{}' must be 32 or 64 bits", name.name),
                        ));
                    }
                    r
                } else {
                    let sym = self.syms.get(&name.name).copied();
                    match (sym, space) {
                        (Some(Sym::Param { .. }), Space::Param)
                        | (Some(Sym::Shared { .. }), Space::Shared | Space::Generic)
                        | (Some(Sym::Local { .. }), Space::Local | Space::Generic)
                        | (Some(Sym::Global { .. }), _) => {}
                        (Some(_), _) => {
                            return Err(LowerError::new(
                                name.span,
                                format!(
                                    "symbol '{}' is not in the {space} state space of '{}'",
                                    name.name, cx.ptx
                                ),
                            ))
                        }
                        (None, _) => {}
                    }
                    let v = self.symbol_addr(cx, name, 0, Type::I64)?;
                    let window = match sym {
                        Some(Sym::Shared { .. }) => Some(Space::Shared),
                        Some(Sym::Local { .. }) => Some(Space::Local),
                        _ => None,
                    };
                    if let (Some(w), Space::Generic) = (window, space) {
                        self.emit1(
                            Op::Cvta {
                                space: w,
                                to_generic: true,
                            },
                            vec![v],
                            Type::I64,
                            cx.loc,
                            &cx.ptx,
                        )
                    } else {
                        v
                    }
                }
            }
        };
        let _ = span; // the instruction's span is used for errors below
        if offset == 0 {
            return Ok(base_v);
        }
        let bt = self.vars[base_v as usize];
        let o = self.konst(cx, bt, offset as u64);
        Ok(self.emit1(Op::IAdd {}, vec![base_v, o], bt, cx.loc, &cx.ptx))
    }
}

fn space_of(cx: &Cx) -> Space {
    for m in &cx.mods {
        match *m {
            "global" => return Space::Global,
            // A `.shared::cluster` address may name another CTA's shared memory
            // (`runtime::cluster`); both are shared-space addresses.
            "shared" | "shared::cta" | "shared::cluster" => return Space::Shared,
            "local" => return Space::Local,
            "const" => return Space::Const,
            "param" | "param::entry" => return Space::Param,
            _ => {}
        }
    }
    Space::Generic
}

/// The vector width of ld/st (`.v2`, `.v4`, `.v8`); `.v8` only with 32-bit elements (the
/// 256-bit forms of PTX ISA 8.8, like `.v4` with 64-bit elements).
fn mem_vec_len(cx: &Cx, ty: Type) -> Result<u32, LowerError> {
    let n = vec_len(cx);
    if n == 8 && ty.bits() != 32 {
        return Err(cx.bad(".v8 needs a 32-bit element type"));
    }
    Ok(n)
}

fn vec_len(cx: &Cx) -> u32 {
    for m in &cx.mods {
        match *m {
            "v2" => return 2,
            "v4" => return 4,
            "v8" => return 8,
            _ => {}
        }
    }
    1
}

/// Decode one instruction into the builder's current block.
/// Registers named without `%` (`.reg .b32 r;`, `.func (.reg .u32 r) f`) parse as symbols:
/// rewrite every such operand (also inside lists and vectors) into a register operand when a
/// register of that name is in scope.
fn bare_registers(b: &Builder, ops: &mut [Operand]) {
    for o in ops {
        match o {
            Operand::Symbol { name, offset: 0 } if b.reg(&name.name).is_some() => {
                *o = Operand::Reg {
                    name: name.clone(),
                    component: None,
                };
            }
            Operand::List(items, _)
            | Operand::Vector(items, _)
            | Operand::Bracketed(items, _)
            | Operand::VecPred(items, _, _) => bare_registers(b, items),
            Operand::Not(inner, _) | Operand::Neg(inner, _) => {
                bare_registers(b, std::slice::from_mut(inner.as_mut()))
            }
            _ => {}
        }
    }
}

/// Whether [`bare_registers`] would change `ops` (checked without copying them).
fn has_bare_register(b: &Builder, ops: &[Operand]) -> bool {
    ops.iter().any(|o| match o {
        Operand::Symbol { name, offset: 0 } => b.reg(&name.name).is_some(),
        Operand::List(items, _)
        | Operand::Vector(items, _)
        | Operand::Bracketed(items, _)
        | Operand::VecPred(items, _, _) => has_bare_register(b, items),
        Operand::Not(inner, _) | Operand::Neg(inner, _) => {
            has_bare_register(b, std::slice::from_ref(inner.as_ref()))
        }
        _ => false,
    })
}

pub(crate) fn instruction(b: &mut Builder, i: &ast::Instruction) -> Result<(), LowerError> {
    if has_bare_register(b, &i.operands) {
        let mut j = i.clone();
        bare_registers(b, &mut j.operands);
        return instruction(b, &j);
    }
    // `.L2::cache_hint` adds a trailing 64-bit cache-policy operand to ld/st/atom/red/cp
    // (PTX ISA §9.7.9.8 and on): a hint only, so it is checked and dropped.
    if let Some(pos) = i.modifiers.iter().position(|m| m.text == "L2::cache_hint") {
        if matches!(
            i.opcode.name.as_str(),
            "ld" | "ldu" | "st" | "atom" | "red" | "cp"
        ) {
            let mut plain = i.clone();
            plain.modifiers.remove(pos);
            let policy = plain.operands.pop();
            let ok = match &policy {
                Some(Operand::Reg {
                    name,
                    component: None,
                }) => {
                    b.reg(&name.name)
                        .filter(|r| !b.wide.contains(r))
                        .map(|r| b.vars[r as usize])
                        == Some(Type::I64)
                }
                Some(Operand::Imm(Literal::Int { .. }, _)) => true,
                _ => false,
            };
            if !ok || plain.operands.is_empty() {
                return Err(LowerError::new(
                    policy.map(|o| o.span()).unwrap_or(i.span),
                    format!(
                        "'{}.L2::cache_hint' needs a 64-bit cache-policy register as its last operand",
                        i.opcode.name
                    ),
                ));
            }
            return instruction(b, &plain);
        }
    }
    let mut ptx = i.opcode.name.clone();
    for m in &i.modifiers {
        ptx.push('.');
        ptx.push_str(&m.text);
    }
    let mut cx = Cx {
        inst: i,
        loc: b.loc(i.span),
        ptx,
        mods: i.modifiers.iter().map(|m| m.text.as_str()).collect(),
        writes: vec![],
    };
    // A word that is no PTX modifier is an error in any instruction, even one whose decoder
    // would not look at it (`add.u31.f32`, `add.foo.f32`).
    if let Some(m) = cx.mods.iter().find(|m| !names::is_modifier(m)) {
        return Err(cx.unknown_modifier(m));
    }
    let guard = match &i.guard {
        None => None,
        Some(g) => {
            let p = b.reg_var(&cx, &g.pred)?;
            if b.vars[p as usize] != Type::Pred {
                return Err(LowerError::new(
                    g.pred.span,
                    format!("guard '{}' is not a predicate", g.pred.name),
                ));
            }
            Some((p, g.negated))
        }
    };
    let op = i.opcode.name.as_str();
    // Control flow.
    match op {
        "bra" | "ret" | "exit" | "trap" => {
            return control(b, &cx, guard);
        }
        "barrier" if cx.mods.first() == Some(&"cluster") => {}
        "bar" | "barrier" => return super::collective::barrier(b, &cx, guard),
        "call" => return super::call::call(b, &cx, guard),
        "brx" => return super::call::brx(b, &cx, guard),
        // Debugging and performance-monitor hints, and sleeps: accepted, no effect on the
        // CPU (PTX ISA §9.7.19: brkpt, nanosleep, pmevent).
        "brkpt" | "nanosleep" | "pmevent" => return Ok(()),
        _ => {}
    }
    let pure = matches!(
        op,
        "mov"
            | "add"
            | "sub"
            | "mul"
            | "mad"
            | "fma"
            | "div"
            | "rem"
            | "min"
            | "max"
            | "neg"
            | "abs"
            | "and"
            | "or"
            | "xor"
            | "not"
            | "shl"
            | "shr"
            | "setp"
            | "selp"
            | "cvt"
            | "cvta"
            | "popc"
            | "clz"
            | "sqrt"
            | "rcp"
    ) || isa::INSTRUCTIONS.contains(&op)
        || video::INSTRUCTIONS.contains(&op);
    // A guarded operation with effects runs in its own block, branched around.
    let mut cont = None;
    if let (Some((p, neg)), false) = (guard, pure) {
        let body = b.new_block();
        let after = b.new_block();
        let (t, e) = if neg { (after, body) } else { (body, after) };
        let cur = b.cur as usize;
        b.blocks[cur].term = PTerm::Branch(p, t, e);
        b.blocks[cur].term_loc = cx.loc;
        b.cur = body;
        cont = Some(after);
    }
    decode(b, &mut cx, op)?;
    // Commit destinations.
    let writes = std::mem::take(&mut cx.writes);
    for (reg, tmp) in writes {
        let rt = b.vars[reg as usize];
        let tt = b.vars[tmp as usize];
        let val = if rt == tt {
            tmp
        } else if let Some(fit) = b.ext_fit.get(&tmp).copied() {
            b.fit(&cx, tmp, rt, fit, i.span)?
        } else if let Some(sign) = b.ext_sign.get(&tmp).copied() {
            b.coerce(&cx, tmp, rt, Some(sign), i.span)?
        } else {
            b.coerce(&cx, tmp, rt, None, i.span)?
        };
        match (guard, pure) {
            (Some((p, neg)), true) => {
                let (a, c) = if neg { (reg, val) } else { (val, reg) };
                let sel = b.emit1(Op::Select {}, vec![a, c, p], rt, cx.loc, &cx.ptx);
                b.copy(reg, sel, cx.loc, &cx.ptx);
            }
            _ => b.copy(reg, val, cx.loc, &cx.ptx),
        }
    }
    if let Some(after) = cont {
        let cur = b.cur as usize;
        b.blocks[cur].term = PTerm::Jump(after);
        b.blocks[cur].term_loc = cx.loc;
        b.cur = after;
    }
    Ok(())
}

impl Builder<'_> {
    /// `reg := val` (a pre-SSA copy; disappears in SSA construction).
    pub(crate) fn copy(&mut self, reg: Var, val: Var, loc: SrcLoc, ptx: &str) {
        self.blocks[self.cur as usize].insts.push(PInst {
            op: Op::Bitcast {},
            args: vec![val],
            results: vec![reg],
            loc,
            ptx: ptx.to_string(),
            copy: true,
        });
    }
}

fn control(b: &mut Builder, cx: &Cx, guard: Option<(Var, bool)>) -> Result<(), LowerError> {
    let op = cx.inst.opcode.name.as_str();
    let target = match op {
        "bra" => {
            cx.expect_operands(1)?;
            let Operand::Symbol { name, offset: 0 } = cx.opnd(0)? else {
                return Err(cx.bad("branch target must be a label"));
            };
            let name = name.clone();
            Some(b.label_block(&name.name, name.span))
        }
        "ret" | "exit" => None,
        "trap" => None,
        _ => None,
    };
    let body_term = match op {
        "bra" => PTerm::Jump(target.unwrap_or(0)),
        // `ret` in an inlined function continues after the call.
        "ret" => match b.ret_target {
            Some(t) => PTerm::Jump(t),
            None => PTerm::Exit,
        },
        "exit" => PTerm::Exit,
        "trap" => PTerm::Trap,
        // `bar`/`barrier` are decoded by `collective::barrier`.
        _ => return Err(cx.bad("not a branch, return, exit or trap")),
    };
    let next_after = |b: &mut Builder, term: &PTerm| -> Option<u32> {
        match term {
            PTerm::Barrier(n) => Some(*n),
            _ => {
                let _ = b;
                None
            }
        }
    };
    match guard {
        None => {
            let after = next_after(b, &body_term);
            let cur = b.cur as usize;
            b.blocks[cur].term = body_term;
            b.blocks[cur].term_loc = cx.loc;
            b.cur = match after {
                Some(n) => n,
                None => b.new_block(),
            };
        }
        Some((p, neg)) => {
            let fall = b.new_block();
            let taken = match body_term {
                PTerm::Jump(t) => t,
                other => {
                    let blk = b.new_block();
                    let after = next_after(b, &other);
                    b.blocks[blk as usize].term = other;
                    b.blocks[blk as usize].term_loc = cx.loc;
                    if let Some(n) = after {
                        b.blocks[n as usize].term = PTerm::Jump(fall);
                    }
                    blk
                }
            };
            let (t, e) = if neg { (fall, taken) } else { (taken, fall) };
            let cur = b.cur as usize;
            b.blocks[cur].term = PTerm::Branch(p, t, e);
            b.blocks[cur].term_loc = cx.loc;
            b.cur = fall;
        }
    }
    Ok(())
}

fn int_or_float(cx: &Cx) -> Result<(Type, Sign, bool), LowerError> {
    let t = cx.ty()?;
    ir_ty(t)
        .ok_or_else(|| cx.unsupported(&format!("type .{t:?} is not supported yet").to_lowercase()))
}

fn float_flags(cx: &Cx, default_rn: bool) -> Result<(Round, bool, bool), LowerError> {
    let rnd = match cx.round() {
        Some(r) => r,
        None if default_rn => Round::Nearest,
        None => Round::Nearest,
    };
    if rnd != Round::Nearest {
        return Err(cx.unsupported(&format!("rounding modifier .{rnd} is not supported yet")));
    }
    Ok((rnd, cx.has("ftz"), cx.has("sat")))
}

fn decode(b: &mut Builder, cx: &mut Cx, op: &str) -> Result<(), LowerError> {
    if let Some(r) = tma::decode(b, cx, op) {
        return r;
    }
    if let Some(r) = cluster::decode(b, cx, op) {
        return r;
    }
    if let Some(r) = bulk::decode(b, cx, op) {
        return r;
    }
    if let Some(r) = stack::decode(b, cx, op) {
        return r;
    }
    if let Some(r) = isa::decode(b, cx, op) {
        return r;
    }
    if let Some(r) = video::decode(b, cx, op) {
        return r;
    }
    if let Some(r) = tex::decode(b, cx, op) {
        return r;
    }
    if let Some(r) = copy_async::decode(b, cx, op) {
        return r;
    }
    if let Some(r) = mma::decode(b, cx, op) {
        return r;
    }
    if let Some(r) = wgmma::decode(b, cx, op) {
        return r;
    }
    if let Some(r) = mbar::decode(b, cx, op) {
        return r;
    }
    if let Some(r) = tcgen05::decode(b, cx, op) {
        return r;
    }
    match op {
        "mov" if cx.ty().ok() == Some(ast::ScalarType::B128) => wide(b, cx, op),
        "mov" => mov(b, cx),
        "add" | "sub" => {
            cx.expect_operands(3)?;
            let (ty, _sign, float) = int_or_float(cx)?;
            let x = b.src(cx, 1, ty)?;
            let y = b.src(cx, 2, ty)?;
            let o = if float {
                let (rnd, ftz, sat) = float_flags(cx, true)?;
                if op == "add" {
                    Op::FAdd { rnd, ftz, sat }
                } else {
                    Op::FSub { rnd, ftz, sat }
                }
            } else {
                if cx.has("sat") || cx.has("cc") {
                    return Err(cx.unsupported(".sat/.cc integer forms are not supported yet"));
                }
                if cx.round().is_some() {
                    return Err(cx.bad("integer add/sub takes no rounding modifier"));
                }
                if op == "add" {
                    Op::IAdd {}
                } else {
                    Op::ISub {}
                }
            };
            b.unary_to_dst(cx, o, vec![x, y], ty)
        }
        "mul" | "mad" => {
            let n = if op == "mul" { 3 } else { 4 };
            cx.expect_operands(n)?;
            let (ty, sign, float) = int_or_float(cx)?;
            if float {
                let (rnd, ftz, sat) = float_flags(cx, true)?;
                let x = b.src(cx, 1, ty)?;
                let y = b.src(cx, 2, ty)?;
                if op == "mul" {
                    return b.unary_to_dst(cx, Op::FMul { rnd, ftz, sat }, vec![x, y], ty);
                }
                let z = b.src(cx, 3, ty)?;
                return b.unary_to_dst(cx, Op::FFma { rnd, ftz, sat }, vec![x, y, z], ty);
            }
            if cx.has("sat") || cx.has("cc") {
                return Err(cx.unsupported(".sat/.cc integer forms are not supported yet"));
            }
            // PTX ISA §9.7.1.3-4: the integer forms name the half of the product they keep.
            if !(cx.has("lo") || cx.has("hi") || cx.has("wide")) {
                return Err(cx.bad("integer mul/mad needs .lo, .hi or .wide"));
            }
            if cx.round().is_some() {
                return Err(cx.bad("integer mul/mad takes no rounding modifier"));
            }
            let x = b.src(cx, 1, ty)?;
            let y = b.src(cx, 2, ty)?;
            let (prod, pty) = if cx.has("wide") {
                let wt = match ty {
                    Type::I16 => Type::I32,
                    Type::I32 => Type::I64,
                    _ => return Err(cx.bad(".wide needs a 16- or 32-bit type")),
                };
                (
                    b.emit1(Op::IMulWide { sign }, vec![x, y], wt, cx.loc, &cx.ptx),
                    wt,
                )
            } else if cx.has("hi") {
                (
                    b.emit1(Op::IMulHi { sign }, vec![x, y], ty, cx.loc, &cx.ptx),
                    ty,
                )
            } else {
                (b.emit1(Op::IMul {}, vec![x, y], ty, cx.loc, &cx.ptx), ty)
            };
            if op == "mul" {
                let d = b.dst(cx, 0, pty)?;
                if let Some(d) = d {
                    b.copy(d, prod, cx.loc, &cx.ptx);
                }
                return Ok(());
            }
            let z = b.src(cx, 3, pty)?;
            b.unary_to_dst(cx, Op::IAdd {}, vec![prod, z], pty)
        }
        "fma" => {
            cx.expect_operands(4)?;
            let (ty, _, float) = int_or_float(cx)?;
            if !float {
                return Err(cx.bad("fma needs a float type"));
            }
            if cx.round().is_none() {
                return Err(cx.bad("fma needs a rounding modifier"));
            }
            let (rnd, ftz, sat) = float_flags(cx, true)?;
            let x = b.src(cx, 1, ty)?;
            let y = b.src(cx, 2, ty)?;
            let z = b.src(cx, 3, ty)?;
            b.unary_to_dst(cx, Op::FFma { rnd, ftz, sat }, vec![x, y, z], ty)
        }
        "div" | "rem" | "min" | "max" => {
            cx.expect_operands(3)?;
            let (ty, sign, float) = int_or_float(cx)?;
            let x = b.src(cx, 1, ty)?;
            let y = b.src(cx, 2, ty)?;
            let o = match (op, float) {
                ("div", false) => Op::IDiv { sign },
                ("rem", false) => Op::IRem { sign },
                ("min", false) => Op::IMin { sign },
                ("max", false) => Op::IMax { sign },
                ("div", true) => {
                    let approx = cx.has("approx") || cx.has("full");
                    let rnd = if approx {
                        Round::Nearest
                    } else {
                        let r = cx.round().ok_or_else(|| {
                            cx.bad("div.f needs .rn/.rz/.rm/.rp, .approx or .full")
                        })?;
                        if r != Round::Nearest {
                            return Err(cx.unsupported(&format!(
                                "rounding modifier .{r} is not supported yet"
                            )));
                        }
                        r
                    };
                    Op::FDiv {
                        rnd,
                        approx,
                        ftz: cx.has("ftz"),
                    }
                }
                ("min", true) => Op::FMin { ftz: cx.has("ftz") },
                ("max", true) => Op::FMax { ftz: cx.has("ftz") },
                _ => return Err(cx.bad("rem needs an integer type")),
            };
            if cx.has("NaN") || cx.has("relu") || cx.has("xorsign") {
                return Err(cx.unsupported("min/max .NaN/.relu/.xorsign are not supported yet"));
            }
            b.unary_to_dst(cx, o, vec![x, y], ty)
        }
        "neg" | "abs" => {
            cx.expect_operands(2)?;
            let (ty, _, float) = int_or_float(cx)?;
            let x = b.src(cx, 1, ty)?;
            let ftz = cx.has("ftz");
            let o = match (op, float) {
                ("neg", false) => Op::INeg {},
                ("abs", false) => Op::IAbs {},
                ("neg", true) => Op::FNeg { ftz },
                _ => Op::FAbs { ftz },
            };
            b.unary_to_dst(cx, o, vec![x], ty)
        }
        "sqrt" | "rcp" => {
            cx.expect_operands(2)?;
            let (ty, _, float) = int_or_float(cx)?;
            if !float {
                return Err(cx.bad("needs a float type"));
            }
            let approx = cx.has("approx");
            let rnd = match cx.round() {
                Some(Round::Nearest) => Round::Nearest,
                Some(r) => {
                    return Err(
                        cx.unsupported(&format!("rounding modifier .{r} is not supported yet"))
                    )
                }
                None if approx => Round::Nearest,
                None => return Err(cx.bad("needs .approx or a rounding modifier")),
            };
            let x = b.src(cx, 1, ty)?;
            let ftz = cx.has("ftz");
            let o = if op == "sqrt" {
                Op::FSqrt { rnd, approx, ftz }
            } else {
                Op::FRcp { rnd, approx, ftz }
            };
            b.unary_to_dst(cx, o, vec![x], ty)
        }
        "and" | "or" | "xor" | "not" => {
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
        "shl" | "shr" => {
            cx.expect_operands(3)?;
            let (ty, sign, float) = int_or_float(cx)?;
            if float || ty == Type::Pred {
                return Err(cx.bad("shifts need an integer type"));
            }
            let x = b.src(cx, 1, ty)?;
            let y = b.src(cx, 2, Type::I32)?;
            let o = if op == "shl" {
                Op::Shl {}
            } else {
                Op::Shr { sign }
            };
            b.unary_to_dst(cx, o, vec![x, y], ty)
        }
        "popc" | "clz" => {
            cx.expect_operands(2)?;
            let (ty, _, float) = int_or_float(cx)?;
            if float || ty == Type::Pred || ty.bits() < 32 {
                return Err(cx.bad("needs .b32 or .b64"));
            }
            let x = b.src(cx, 1, ty)?;
            let o = if op == "popc" {
                Op::Popc {}
            } else {
                Op::Clz {}
            };
            b.unary_to_dst(cx, o, vec![x], Type::I32)
        }
        "setp" => setp(b, cx),
        "selp" => {
            cx.expect_operands(4)?;
            let (ty, _, _) = int_or_float(cx)?;
            let x = b.src(cx, 1, ty)?;
            let y = b.src(cx, 2, ty)?;
            let p = b.src(cx, 3, Type::Pred)?;
            b.unary_to_dst(cx, Op::Select {}, vec![x, y, p], ty)
        }
        "cvt" => cvt(b, cx),
        "cvta" => {
            cx.expect_operands(2)?;
            let space = space_of(cx);
            if !matches!(
                space,
                Space::Global | Space::Shared | Space::Local | Space::Const | Space::Param
            ) {
                return Err(cx.bad("cvta needs a state space"));
            }
            let ty = if cx.has("u32") { Type::I32 } else { Type::I64 };
            let x = b.src(cx, 1, ty)?;
            let to_generic = !cx.has("to");
            b.unary_to_dst(cx, Op::Cvta { space, to_generic }, vec![x], ty)
        }
        "ld" | "ldu" | "st" if cx.ty().ok() == Some(ast::ScalarType::B128) => wide(b, cx, op),
        "ld" | "ldu" => load(b, cx),
        "st" => store(b, cx),
        "atom" | "red" => atom(b, cx, op == "red"),
        "shfl" => shfl(b, cx),
        "vote" | "activemask" | "match" | "redux" | "elect" => {
            super::collective::collective(b, cx, op)
        }
        "isspacep" => {
            cx.expect_operands(2)?;
            let space = space_of(cx);
            if space == Space::Generic || space == Space::Param {
                return Err(cx.bad("isspacep needs .global, .shared, .local or .const"));
            }
            let a = b.src(cx, 1, Type::I64)?;
            if space != Space::Const {
                return b.unary_to_dst(cx, Op::IsSpace { space }, vec![a], Type::Pred);
            }
            // Const banks live in the global arena: a generic address is in the const space
            // when it falls inside one of the module's `.const` variables.
            let mut acc = b.konst(cx, Type::Pred, 0);
            for (index, size) in b.const_vars.clone() {
                let base = b.emit1(
                    Op::SymAddr {
                        sym: index,
                        space: Space::Const,
                    },
                    vec![],
                    Type::I64,
                    cx.loc,
                    &cx.ptx,
                );
                let off = b.emit1(Op::ISub {}, vec![a, base], Type::I64, cx.loc, &cx.ptx);
                let n = b.konst(cx, Type::I64, size);
                let inside = b.emit1(
                    Op::ICmp {
                        cc: ICmp::Lt,
                        sign: Sign::Unsigned,
                    },
                    vec![off, n],
                    Type::Pred,
                    cx.loc,
                    &cx.ptx,
                );
                acc = b.emit1(Op::Or {}, vec![acc, inside], Type::Pred, cx.loc, &cx.ptx);
            }
            if let Some(d) = b.dst(cx, 0, Type::Pred)? {
                b.copy(d, acc, cx.loc, &cx.ptx);
            }
            Ok(())
        }
        // PTX ISA §9.7.13.4: membar/fence order memory accesses; with relaxed scopes.
        "membar" | "fence" => {
            // `fence.mbarrier_init.release.cluster` (PTX ISA §9.7.13.4) orders prior
            // `mbarrier.init`s: a release fence.
            let mbarrier_init = cx.mods == ["mbarrier_init", "release", "cluster"];
            if cx.mods.first() == Some(&"proxy") {
                return mbar::proxy_fence(b, cx);
            }
            if cx
                .mods
                .iter()
                .any(|m| m.starts_with("proxy") || m.contains("mbarrier"))
                && !mbarrier_init
            {
                return Err(cx.unsupported("this proxy fence is not supported yet"));
            }
            b.emit(Op::Fence {}, vec![], vec![], cx.loc, &cx.ptx);
            Ok(())
        }
        // `createpolicy` (PTX ISA §9.7.9, "createpolicy"): the cache eviction policy is an opaque 64-bit
        // value used only as a hint; ptxjit's policies are all 0 (see docs/isa-notes.md).
        // Source operands are still checked.
        "createpolicy" => {
            let n = cx.inst.operands.len();
            if !(2..=4).contains(&n) || !cx.has("b64") {
                return Err(cx.bad("expects createpolicy.*.b64 policy, ... (2 to 4 operands)"));
            }
            for k in 1..n {
                match cx.opnd(k)?.clone() {
                    Operand::Address { .. } => {
                        b.address(cx, k, Space::Global)?;
                    }
                    Operand::Imm(..) => {}
                    Operand::Reg {
                        name,
                        component: None,
                    } => {
                        b.reg_var(cx, &name)?;
                    }
                    o => {
                        return Err(LowerError::new(
                            o.span(),
                            format!("this operand form is not allowed here in '{}'", cx.ptx),
                        ))
                    }
                }
            }
            let z = b.konst(cx, Type::I64, 0);
            if let Some(d) = b.dst(cx, 0, Type::I64)? {
                b.copy(d, z, cx.loc, &cx.ptx);
            }
            Ok(())
        }
        // Cache hints have no effect on the CPU (PTX ISA §9.7.9.15); the address operand is
        // still checked for form.
        "prefetch" | "prefetchu" => {
            cx.expect_operands(1)?;
            match cx.opnd(0)? {
                Operand::Address { .. } => Ok(()),
                _ => Err(cx.bad("needs an address operand")),
            }
        }
        // ptxas: "Not a name of any known instruction: 'foo'".
        _ if !names::is_instruction(op) => Err(LowerError::new(
            cx.inst.span,
            format!("invalid '{}': '{op}' is not a PTX instruction", cx.ptx),
        )),
        _ => Err(LowerError::unsupported(
            cx.inst.span,
            format!("unsupported instruction '{}'", cx.ptx),
        )),
    }
}

fn mov(b: &mut Builder, cx: &mut Cx) -> Result<(), LowerError> {
    cx.expect_operands(2)?;
    let t = cx.ty()?;
    let (ty, _, _) = ir_ty(t).ok_or_else(|| cx.unsupported("type not supported yet"))?;
    let d = cx.opnd(0)?.clone();
    let s = cx.opnd(1)?.clone();
    // mov.v2/.v4: element-wise copy of vector operands (brace lists or vector registers).
    if let Some(n) = [("v2", 2), ("v4", 4)]
        .iter()
        .find(|(m, _)| cx.has(m))
        .map(|&(_, n)| n)
    {
        let (Operand::Vector(ds, _), Operand::Vector(ss, _)) = (&d, &s) else {
            return Err(cx.bad(&format!(
                "mov.v{n} needs two vector operands of {n} elements"
            )));
        };
        if ds.len() != n || ss.len() != n {
            return Err(cx.bad(&format!(
                "mov.v{n} needs two vector operands of {n} elements"
            )));
        }
        for e in ds.iter().chain(ss) {
            b.check_general(cx, e, t)?;
        }
        // Read every source before writing: `mov.v2.u32 {%a, %b}, {%b, %a}` swaps.
        let vals = ss
            .iter()
            .map(|e| b.src_rel(cx, e, ty, None))
            .collect::<Result<Vec<_>, _>>()?;
        for (e, v) in ds.iter().zip(vals) {
            if let Some(dv) = b.dst_rel(cx, e, ty, None)? {
                b.copy(dv, v, cx.loc, &cx.ptx);
            }
        }
        return Ok(());
    }
    match (&d, &s) {
        // Pack: mov.b64 %rd, {%r1, %r2} (element 0 in the low bits).
        (_, Operand::Vector(elems, _)) => {
            let n = elems.len() as u32;
            if n == 0 || ty.bits() % n != 0 || !ty.is_int() {
                return Err(cx.bad("vector pack needs .b16/.b32/.b64 and 2 or 4 elements"));
            }
            let et =
                Type::int_of_bytes(ty.bytes() / n).ok_or_else(|| cx.bad("bad element size"))?;
            let mut acc = b.konst(cx, ty, 0);
            for (k, e) in elems.iter().enumerate() {
                let v = b.src_rel(cx, e, et, None)?;
                let w = b.coerce(cx, v, ty, Some(Sign::Unsigned), e.span())?;
                let sh = b.konst(cx, Type::I32, (k as u64) * et.bits() as u64);
                let w = b.emit1(Op::Shl {}, vec![w, sh], ty, cx.loc, &cx.ptx);
                acc = b.emit1(Op::Or {}, vec![acc, w], ty, cx.loc, &cx.ptx);
            }
            let dst = b.dst_rel(cx, &d, ty, None)?;
            if let Some(dv) = dst {
                b.copy(dv, acc, cx.loc, &cx.ptx);
            }
            Ok(())
        }
        // Unpack: mov.b64 {%r1, %r2}, %rd.
        (Operand::Vector(elems, _), _) => {
            let n = elems.len() as u32;
            if n == 0 || ty.bits() % n != 0 || !ty.is_int() {
                return Err(cx.bad("vector unpack needs .b16/.b32/.b64 and 2 or 4 elements"));
            }
            let et =
                Type::int_of_bytes(ty.bytes() / n).ok_or_else(|| cx.bad("bad element size"))?;
            let v = b.src_rel(cx, &s, ty, None)?;
            for (k, e) in elems.iter().enumerate() {
                let sh = b.konst(cx, Type::I32, (k as u64) * et.bits() as u64);
                let w = b.emit1(
                    Op::Shr {
                        sign: Sign::Unsigned,
                    },
                    vec![v, sh],
                    ty,
                    cx.loc,
                    &cx.ptx,
                );
                let part = b.coerce(cx, w, et, Some(Sign::Unsigned), e.span())?;
                if let Some(dv) = b.dst_rel(cx, e, et, None)? {
                    b.copy(dv, part, cx.loc, &cx.ptx);
                }
            }
            Ok(())
        }
        _ => {
            b.check_general(cx, &s, t)?;
            b.check_general(cx, &d, t)?;
            let v = b.src_rel(cx, &s, ty, None)?;
            if let Some(dv) = b.dst_rel(cx, &d, ty, None)? {
                b.copy(dv, v, cx.loc, &cx.ptx);
            }
            Ok(())
        }
    }
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

fn setp(b: &mut Builder, cx: &mut Cx) -> Result<(), LowerError> {
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
        let (cc, sign) = match cmp {
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
            _ => return Err(cx.bad(&format!("unknown integer comparison '{cmp}'"))),
        };
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

fn cvt(b: &mut Builder, cx: &mut Cx) -> Result<(), LowerError> {
    cx.expect_operands(2)?;
    let tys = cx.types();
    if tys.len() != 2 {
        return Err(cx.bad("cvt needs a destination and a source type"));
    }
    let (dt, st) = (tys[0], tys[1]);
    let (Some(dst), Some(src)) = (cvt_ty(dt), cvt_ty(st)) else {
        return Err(cx.unsupported(&format!(
            "conversion .{}.{} is not supported yet",
            format!("{dt:?}").to_lowercase(),
            format!("{st:?}").to_lowercase()
        )));
    };
    let rnd = cvt_round_of(cx).unwrap_or(CvtRound::None);
    // PTX ISA §9.7.9.21: float→int needs an integer rounding; int→float and f64→f32 need a
    // float rounding; other conversions take none (or an integer rounding for float→float
    // round-to-integral).
    let needs = match (src.is_float(), dst.is_float()) {
        (true, false) => matches!(rnd, CvtRound::Int(_)),
        (false, true) => matches!(rnd, CvtRound::Float(_)),
        (true, true) if src == CvtType::F64 && dst == CvtType::F32 => {
            matches!(rnd, CvtRound::Float(_))
        }
        (true, true) => !matches!(rnd, CvtRound::Float(_)) || src != dst,
        (false, false) => rnd == CvtRound::None,
    };
    if !needs {
        return Err(cx.bad("rounding modifier missing or not allowed for these types"));
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

/// The modifiers of ld, ldu and st (PTX ISA §9.7.9.8 to §9.7.9.10): those ptxjit decodes
/// pass; those of the grammar it does not implement are "unsupported"; any other PTX modifier
/// is illegal here (ptxas: "Illegal modifier '.rn' for instruction 'ld'"). (A word that is no
/// PTX modifier at all was rejected before decoding.)
fn check_space_mods(cx: &Cx) -> Result<(), LowerError> {
    for m in &cx.mods {
        let decoded = matches!(
            *m,
            "global"
                | "shared"
                | "shared::cta"
                | "shared::cluster"
                | "cluster"
                | "local"
                | "const"
                | "param"
                | "param::entry"
                | "v2"
                | "v4"
                | "v8"
                | "nc"
                | "ca"
                | "cg"
                | "cs"
                | "lu"
                | "cv"
                | "wb"
                | "wt"
                | "volatile"
                | "relaxed"
                | "acquire"
                | "release"
                | "weak"
                | "cta"
                | "gpu"
                | "sys"
                | "L2::64B"
                | "L2::128B"
                | "L2::256B"
                | "L1::evict_normal"
                | "L1::evict_unchanged"
                | "L1::evict_first"
                | "L1::evict_last"
                | "L1::no_allocate"
                | "L2::evict_first"
                | "L2::evict_last"
                | "L2::evict_normal"
        ) || ast::ScalarType::from_suffix(m).is_some();
        if decoded {
            continue;
        }
        let unimplemented = matches!(
            *m,
            "mmio"
                | "param::func"
                | "L2::evict_unchanged"
                // `st.async`, `st.bulk` (PTX ISA §9.7.9.11, §9.7.9.12).
                | "async"
                | "bulk"
        );
        if unimplemented {
            return Err(cx.unsupported(&format!("modifier .{m} is not supported yet")));
        }
        return Err(cx.bad(&format!(
            "illegal modifier '.{m}' for '{}'",
            cx.inst.opcode.name
        )));
    }
    Ok(())
}

fn mem_ty(cx: &Cx) -> Result<(Type, Sign, ast::ScalarType), LowerError> {
    let t = cx.ty()?;
    if t == ast::ScalarType::Pred {
        return Err(cx.bad("memory operations cannot use .pred"));
    }
    let (ty, sign, _) = ir_ty(t).ok_or_else(|| {
        cx.unsupported(&format!(
            "type .{} is not supported yet",
            format!("{t:?}").to_lowercase()
        ))
    })?;
    Ok((ty, sign, t))
}

/// `ld.b128`, `st.b128` and `mov.b128` (PTX ISA §5.2.1, 128-bit data): a `.b128` register is
/// two i64 halves, accessed as two 8-byte accesses with the 16-byte alignment checked on the
/// first; `mov.b128` packs or unpacks `{lo, hi}` pairs of 64-bit registers.
fn wide(b: &mut Builder, cx: &mut Cx, op: &str) -> Result<(), LowerError> {
    cx.expect_operands(2)?;
    if vec_len(cx) != 1 {
        return Err(cx.bad(".b128 has no vector forms"));
    }
    let (d, s) = (cx.opnd(0)?.clone(), cx.opnd(1)?.clone());
    match op {
        "ld" | "ldu" => {
            check_space_mods(cx)?;
            let space = super::call::param_space(b, cx, 1, space_of(cx));
            let (lo, hi) = b.wide_reg(cx, &d)?;
            let addr = b.address(cx, 1, space)?;
            let at = b.vars[addr as usize];
            let eight = b.konst(cx, at, 8);
            let a8 = b.emit1(Op::IAdd {}, vec![addr, eight], at, cx.loc, &cx.ptx);
            let l = b.emit1(
                Op::Load { space, align: 16 },
                vec![addr],
                Type::I64,
                cx.loc,
                &cx.ptx,
            );
            let h = b.emit1(
                Op::Load { space, align: 8 },
                vec![a8],
                Type::I64,
                cx.loc,
                &cx.ptx,
            );
            for (r, v) in [(lo, l), (hi, h)] {
                let t = b.new_var(Type::I64);
                cx.writes.push((r, t));
                b.copy(t, v, cx.loc, &cx.ptx);
            }
            Ok(())
        }
        "st" => {
            check_space_mods(cx)?;
            let space = super::call::param_space(b, cx, 0, space_of(cx));
            if space == Space::Const || space == Space::Param {
                return Err(cx.bad(&format!("st to the read-only {space} state space")));
            }
            let (lo, hi) = b.wide_reg(cx, &s)?;
            let addr = b.address(cx, 0, space)?;
            let at = b.vars[addr as usize];
            let eight = b.konst(cx, at, 8);
            let a8 = b.emit1(Op::IAdd {}, vec![addr, eight], at, cx.loc, &cx.ptx);
            b.emit(
                Op::Store { space, align: 16 },
                vec![addr, lo],
                vec![],
                cx.loc,
                &cx.ptx,
            );
            b.emit(
                Op::Store { space, align: 8 },
                vec![a8, hi],
                vec![],
                cx.loc,
                &cx.ptx,
            );
            Ok(())
        }
        _ => {
            // mov.b128 d, {lo, hi} | mov.b128 {lo, hi}, s | mov.b128 d, s
            let halves = |b: &mut Builder, cx: &Cx, o: &Operand| match o {
                Operand::Vector(e, _) if e.len() == 2 => Ok(Err((e[0].clone(), e[1].clone()))),
                _ => b.wide_reg(cx, o).map(Ok),
            };
            let src = match halves(b, cx, &s)? {
                Ok(pair) => pair,
                Err((l, h)) => (
                    b.src_rel(cx, &l, Type::I64, None)?,
                    b.src_rel(cx, &h, Type::I64, None)?,
                ),
            };
            match halves(b, cx, &d)? {
                Ok((lo, hi)) => {
                    for (r, v) in [(lo, src.0), (hi, src.1)] {
                        let t = b.new_var(Type::I64);
                        cx.writes.push((r, t));
                        b.copy(t, v, cx.loc, &cx.ptx);
                    }
                }
                Err((l, h)) => {
                    for (o, v) in [(l, src.0), (h, src.1)] {
                        if let Some(t) = b.dst_rel(cx, &o, Type::I64, None)? {
                            b.copy(t, v, cx.loc, &cx.ptx);
                        }
                    }
                }
            }
            Ok(())
        }
    }
}

fn load(b: &mut Builder, cx: &mut Cx) -> Result<(), LowerError> {
    check_space_mods(cx)?;
    cx.expect_operands(2)?;
    let space = super::call::param_space(b, cx, 1, space_of(cx));
    let (ty, sign, pt) = mem_ty(cx)?;
    let n = mem_vec_len(cx, ty)?;
    let addr = b.address(cx, 1, space)?;
    let d = cx.opnd(0)?.clone();
    let dests: Vec<Operand> = match (&d, n) {
        (Operand::Vector(e, _), n) if e.len() as u32 == n && n > 1 => e.clone(),
        (_, 1) => vec![d.clone()],
        _ => return Err(cx.bad("vector width and destination list disagree")),
    };
    let at = b.vars[addr as usize];
    if let Some(wt) = packed_vector(space, ty, n) {
        // One access of the whole vector, split into its elements (element k in bits
        // k·w..(k+1)·w: little-endian memory).
        let whole = b.emit1(
            Op::Load {
                space,
                align: wt.bytes() as u8,
            },
            vec![addr],
            wt,
            cx.loc,
            &cx.ptx,
        );
        for (k, dop) in dests.iter().enumerate() {
            let part = if k == 0 {
                whole
            } else {
                let c = b.konst(cx, Type::I32, k as u64 * ty.bits() as u64);
                let op = Op::Shr {
                    sign: Sign::Unsigned,
                };
                b.emit1(op, vec![whole, c], wt, cx.loc, &cx.ptx)
            };
            // Truncate, then reinterpret as a float element.
            let v = b.coerce(cx, part, ty, Some(Sign::Unsigned), cx.inst.span)?;
            if let Some(t) = b.dst_sized(cx, dop, ty, pt, sign)? {
                b.copy(t, v, cx.loc, &cx.ptx);
            }
        }
        return Ok(());
    }
    for (k, dop) in dests.iter().enumerate() {
        let a = if k == 0 {
            addr
        } else {
            let o = b.konst(cx, at, (k as u64) * ty.bytes() as u64);
            b.emit1(Op::IAdd {}, vec![addr, o], at, cx.loc, &cx.ptx)
        };
        let align = if k == 0 { ty.bytes() * n } else { ty.bytes() } as u8;
        let v = b.emit1(Op::Load { space, align }, vec![a], ty, cx.loc, &cx.ptx);
        if let Some(t) = b.dst_sized(cx, dop, ty, pt, sign)? {
            b.copy(t, v, cx.loc, &cx.ptx);
        }
    }
    Ok(())
}

/// The integer type of a whole `ld`/`st` vector accessed at once: vectors of at most 8
/// bytes (`.v2/.v4` of 8- and 16-bit elements, `.v2` of 32-bit ones) in memory that threads
/// address directly (global, shared, local, generic). A vector access is one access of its
/// whole size, aligned to it (PTX ISA §6.4.2, §9.7.9.8): so it faults as a whole, and the
/// engines see one lane-consecutive access instead of strided element accesses.
fn packed_vector(space: Space, ty: Type, n: u32) -> Option<Type> {
    let direct = matches!(
        space,
        Space::Global | Space::Shared | Space::Local | Space::Generic
    );
    let total = ty.bytes() * n;
    if !direct || n < 2 || total > 8 || !matches!(ty.bits(), 8 | 16 | 32) {
        return None;
    }
    Type::int_of_bytes(total)
}

fn store(b: &mut Builder, cx: &mut Cx) -> Result<(), LowerError> {
    check_space_mods(cx)?;
    cx.expect_operands(2)?;
    let space = super::call::param_space(b, cx, 0, space_of(cx));
    if space == Space::Const || space == Space::Param {
        return Err(cx.bad(&format!("st to the read-only {space} state space")));
    }
    let (ty, _sign, pt) = mem_ty(cx)?;
    let n = mem_vec_len(cx, ty)?;
    let addr = b.address(cx, 0, space)?;
    let s = cx.opnd(1)?.clone();
    let srcs: Vec<Operand> = match (&s, n) {
        (Operand::Vector(e, _), n) if e.len() as u32 == n && n > 1 => e.clone(),
        (_, 1) => vec![s.clone()],
        _ => return Err(cx.bad("vector width and source list disagree")),
    };
    let at = b.vars[addr as usize];
    if let Some(wt) = packed_vector(space, ty, n) {
        // The elements packed into one integer (element k in bits k·w..(k+1)·w), one store.
        let mut acc = None;
        for (k, sop) in srcs.iter().enumerate() {
            let v = b.src_sized(cx, sop, ty, pt, Sign::Unsigned)?;
            // A float element's bits, zero-extended.
            let v = b.coerce(cx, v, wt, Some(Sign::Unsigned), cx.inst.span)?;
            let v = if k == 0 {
                v
            } else {
                let c = b.konst(cx, Type::I32, k as u64 * ty.bits() as u64);
                b.emit1(Op::Shl {}, vec![v, c], wt, cx.loc, &cx.ptx)
            };
            acc = Some(match acc {
                None => v,
                Some(a) => b.emit1(Op::Or {}, vec![a, v], wt, cx.loc, &cx.ptx),
            });
        }
        if let Some(v) = acc {
            let op = Op::Store {
                space,
                align: wt.bytes() as u8,
            };
            b.emit(op, vec![addr, v], vec![], cx.loc, &cx.ptx);
        }
        return Ok(());
    }
    for (k, sop) in srcs.iter().enumerate() {
        let v = b.src_sized(cx, sop, ty, pt, Sign::Unsigned)?;
        let a = if k == 0 {
            addr
        } else {
            let o = b.konst(cx, at, (k as u64) * ty.bytes() as u64);
            b.emit1(Op::IAdd {}, vec![addr, o], at, cx.loc, &cx.ptx)
        };
        let align = if k == 0 { ty.bytes() * n } else { ty.bytes() } as u8;
        b.emit(
            Op::Store { space, align },
            vec![a, v],
            vec![],
            cx.loc,
            &cx.ptx,
        );
    }
    Ok(())
}

/// `atom` and `red` (PTX ISA §9.7.13.5, §9.7.13.6): scalar forms on b16 (`cas`), b32/b64
/// integers, f32/f64 (`add`) and f16/bf16/f16x2/bf16x2 (`add.noftz`); vector forms (`.v2/.v4`
/// `.f32` `add`, `.v2/.v4/.v8` halves and `.v2/.v4` packed halves `add.noftz`), which are one
/// atomic operation per element.
fn atom(b: &mut Builder, cx: &mut Cx, red: bool) -> Result<(), LowerError> {
    let space = space_of(cx);
    if !matches!(space, Space::Global | Space::Shared | Space::Generic) {
        return Err(cx.bad("atom needs .global, .shared or generic addressing"));
    }
    let st = cx.ty()?;
    let half = match st {
        ast::ScalarType::F16 => Some((HalfFmt::F16, false)),
        ast::ScalarType::Bf16 => Some((HalfFmt::Bf16, false)),
        ast::ScalarType::F16x2 => Some((HalfFmt::F16, true)),
        ast::ScalarType::Bf16x2 => Some((HalfFmt::Bf16, true)),
        _ => None,
    };
    let (ty, sign, float) = match half {
        Some((_, pair)) => (
            if pair { Type::I32 } else { Type::I16 },
            Sign::Unsigned,
            true,
        ),
        None => int_or_float(cx)?,
    };
    let opname = cx
        .mods
        .iter()
        .copied()
        .find(|m| {
            matches!(
                *m,
                "add" | "and" | "or" | "xor" | "exch" | "cas" | "min" | "max" | "inc" | "dec"
            )
        })
        .ok_or_else(|| cx.bad("missing atomic operation"))?;
    let k0 = if red { 0 } else { 1 };
    let n = vec_len(cx);
    if opname == "cas" {
        if red {
            return Err(cx.bad("red has no .cas"));
        }
        cx.expect_operands(4)?;
        if float || n > 1 || ty.bits() < 16 {
            return Err(cx.bad("atom.cas needs .b16, .b32 or .b64"));
        }
        let addr = b.address(cx, k0, space)?;
        let c = b.src(cx, 2, ty)?;
        let nv = b.src(cx, 3, ty)?;
        return b.unary_to_dst(cx, Op::AtomCas { space }, vec![addr, c, nv], ty);
    }
    cx.expect_operands(if red { 2 } else { 3 })?;
    let aop = match (opname, half, float) {
        ("add" | "min" | "max", Some((fmt, pair)), _) => {
            if !cx.has("noftz") {
                return Err(cx.bad(&format!("{opname} on f16/bf16 types needs .noftz")));
            }
            match opname {
                "add" => AtomOp::HAdd { fmt, pair },
                _ if vec_len(cx) > 1 => AtomOp::HMinMax {
                    fmt,
                    pair,
                    max: opname == "max",
                },
                _ => return Err(cx.bad("min/max on halves exist only in the vector forms")),
            }
        }
        (_, Some(_), _) => {
            return Err(cx.unsupported(&format!(
                "atom.{opname} on a half type (only add, and min/max in vector forms)"
            )))
        }
        ("add", None, false) => AtomOp::Add,
        ("add", None, true) => AtomOp::FAdd,
        ("and", None, false) => AtomOp::And,
        ("or", None, false) => AtomOp::Or,
        ("xor", None, false) => AtomOp::Xor,
        ("exch", None, false) => AtomOp::Exch,
        ("min", None, false) => AtomOp::Min(sign),
        ("max", None, false) => AtomOp::Max(sign),
        ("inc", None, false) => AtomOp::Inc,
        ("dec", None, false) => AtomOp::Dec,
        _ => return Err(cx.unsupported(&format!("atom.{opname} on a float type"))),
    };
    if ty == Type::Pred || (half.is_none() && ty.bits() < 32) {
        return Err(cx.unsupported("atomics on types narrower than 32 bits"));
    }
    if n > 1 {
        let ok = space != Space::Shared
            && match half {
                Some((_, false)) => true,
                Some((_, true)) => n <= 4,
                None => ty == Type::F32 && n <= 4,
            };
        if !ok {
            return Err(cx.bad(
                "vector atomics are .v2/.v4 .f32 add, .v2/.v4/.v8 .f16/.bf16 or .v2/.v4 \
                 .f16x2/.bf16x2, on global or generic addresses",
            ));
        }
    }
    let addr = b.address(cx, k0, space)?;
    let elems = |cx: &Cx, k: usize| -> Result<Vec<Operand>, LowerError> {
        let o = cx.opnd(k)?.clone();
        match (&o, n) {
            (Operand::Vector(e, _), n) if e.len() as u32 == n && n > 1 => Ok(e.clone()),
            (_, 1) => Ok(vec![o]),
            _ => Err(cx.bad("vector width and operand list disagree")),
        }
    };
    let bs = elems(cx, k0 + 1)?;
    let ds = if red { vec![] } else { elems(cx, 0)? };
    let at = b.vars[addr as usize];
    for (k, bop) in bs.iter().enumerate() {
        let v = b.src_rel(cx, bop, ty, None)?;
        let a = if k == 0 {
            addr
        } else {
            let o = b.konst(cx, at, (k as u64) * ty.bytes() as u64);
            b.emit1(Op::IAdd {}, vec![addr, o], at, cx.loc, &cx.ptx)
        };
        let old = b.emit1(Op::Atom { op: aop, space }, vec![a, v], ty, cx.loc, &cx.ptx);
        if let Some(dop) = ds.get(k) {
            if let Some(t) = b.dst_rel(cx, dop, ty, None)? {
                b.copy(t, old, cx.loc, &cx.ptx);
            }
        }
    }
    Ok(())
}

fn shfl(b: &mut Builder, cx: &mut Cx) -> Result<(), LowerError> {
    let mode = cx
        .mods
        .iter()
        .find_map(|m| match *m {
            "up" => Some(ShflMode::Up),
            "down" => Some(ShflMode::Down),
            "bfly" => Some(ShflMode::Bfly),
            "idx" => Some(ShflMode::Idx),
            _ => None,
        })
        .ok_or_else(|| cx.bad("missing shuffle mode"))?;
    let sync = cx.has("sync");
    if !sync && b.sync_required {
        return Err(cx.bad(
            "shfl without .sync is not supported on .target sm_70 and higher from PTX ISA 6.4 \
             (shfl.sync takes a membermask)",
        ));
    }
    cx.expect_operands(if sync { 5 } else { 4 })?;
    let v = b.src(cx, 1, Type::I32)?;
    let lane = b.src(cx, 2, Type::I32)?;
    let c = b.src(cx, 3, Type::I32)?;
    let mask = if sync {
        let m = b.src(cx, 4, Type::I32)?;
        super::collective::warp_wait(b, cx, m, false);
        m
    } else {
        b.konst(cx, Type::I32, 0xffff_ffff)
    };
    let d = cx.opnd(0)?.clone();
    let (dv, dp) = match &d {
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
    let r = b.new_var(Type::I32);
    let p = b.new_var(Type::Pred);
    b.emit(
        Op::Shfl { mode },
        vec![v, lane, c, mask],
        vec![r, p],
        cx.loc,
        &cx.ptx,
    );
    if let Some(t) = b.dst_rel(cx, &dv, Type::I32, None)? {
        b.copy(t, r, cx.loc, &cx.ptx);
    }
    if let Some(q) = dp {
        if let Some(t) = b.dst_rel(cx, &q, Type::Pred, None)? {
            b.copy(t, p, cx.loc, &cx.ptx);
        }
    }
    Ok(())
}
