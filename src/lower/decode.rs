//! Instruction decoding: one PTX instruction (opcode, modifiers, operands) → IR operations over
//! variables. This module holds what every decoder shares (the per-instruction context, operand
//! reading and writing, guards, the commit of destinations); the decoder's table
//! (`decode_table.rs`) sends each opcode to its one decoder, in the file of its PTX ISA chapter
//! (`decode_int.rs` §9.7.1-2, `decode_float.rs` §9.7.3 and §9.7.5, `decode_half.rs` §9.7.4 and
//! §9.7.7, `decode_cmp.rs` §9.7.6, `decode_logic.rs` §9.7.8, `decode_data.rs` and
//! `decode_cvt.rs` §9.7.9, `decode_memops.rs` §9.7.9.13-17, `decode_tex.rs` §9.7.10-11, `call.rs` and `control` here §9.7.12,
//! `decode_sync.rs`, `collective.rs` and `decode_mbarrier.rs` §9.7.13, `decode_mma.rs` §9.7.14,
//! `decode_wgmma.rs` §9.7.15, `decode_stack.rs` §9.7.17, `decode_video.rs` §9.7.18). Valid PTX
//! ptxjit does not decode is an "unsupported instruction" error naming the instruction and its
//! location; anything else that is not PTX is "invalid", as ptxas reports it.

use super::build::{Builder, PInst, PTerm, Sym, Var};
use super::opsize::{self, Fit, PtxTy};
use super::LowerError;
use crate::ir::{
    ApproxFn, AtomOp, CvtRound, CvtType, FCmp, HalfFmt, ICmp, MiniFmt, NarrowCvt, Op, PrmtMode,
    Round, SReg, ShflMode, Sign, Space, SrcLoc, TestProp, TfRound, Type,
};
use crate::ptx::ast::{self, Literal, Operand};
use crate::ptx::span::Span;

#[path = "decode_bulk.rs"]
mod bulk;
#[path = "decode_clc.rs"]
mod clc;
#[path = "decode_cluster.rs"]
mod cluster;
#[path = "decode_cmp.rs"]
mod cmp;
#[path = "decode_async.rs"]
mod copy_async;
#[path = "decode_cvt.rs"]
mod cvt;
#[path = "decode_data.rs"]
mod data;
#[path = "decode_float.rs"]
mod float;
#[path = "decode_half.rs"]
mod half;
#[path = "decode_int.rs"]
mod int;
#[path = "decode_kinds.rs"]
mod kinds;
#[path = "decode_logic.rs"]
mod logic;
#[path = "decode_mbarrier.rs"]
mod mbar;
#[path = "decode_memops.rs"]
mod memops;
#[path = "decode_mma.rs"]
mod mma;
#[path = "decode_names.rs"]
mod names;
#[path = "decode_stack.rs"]
mod stack;
#[path = "decode_sync.rs"]
mod sync;
#[path = "decode_table.rs"]
mod table;
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

type R = Result<(), LowerError>;

#[cfg(feature = "fuzz")]
pub(crate) use mma::{mma_forms, MoveTrans, MATRIX_MOVES};
#[cfg(feature = "fuzz")]
pub(crate) use mma::{wmma_accumulators, wmma_spec_of, WMMA_SHAPES};
#[cfg(feature = "fuzz")]
pub(crate) use table::admits;
#[cfg(test)]
pub(crate) use tcgen05::OPERATIONS as TCGEN05_OPERATIONS;
#[cfg(test)]
pub(crate) use wgmma::wgmma_operands;

/// (opcode or form, the forms a row takes, PTX ISA section) of every row of the decoder's
/// table (`decode_table.rs`) and of the forms the ISA describes apart (with an empty second
/// element): the sections the instructions are defined in.
pub(crate) fn decoder_table(
) -> impl Iterator<Item = (&'static str, &'static str, &'static str, String)> {
    let forms = table::FORM_SECTIONS
        .iter()
        .map(|&(f, s)| (f, "", s, String::new()));
    table::ROWS
        .iter()
        .map(|r| (r.op, r.family.label(), r.section, r.needs_text()))
        .chain(forms)
}

/// (opcode or form, PTX ISA section) pairs of [`decoder_table`].
#[cfg(test)]
pub(crate) fn instruction_sections() -> impl Iterator<Item = (&'static str, &'static str)> {
    decoder_table().map(|(op, _, s, _)| (op, s))
}

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

    /// The index in `words` (PTX words without the dot) of the one modifier among them, or
    /// `None` when there is none. Errors: more than one (the same word twice counts), naming
    /// the instruction, the words found, `what` they are and the words allowed.
    pub(super) fn word_index(
        &self,
        words: &[&str],
        what: &str,
    ) -> Result<Option<usize>, LowerError> {
        let found: Vec<usize> = self
            .mods
            .iter()
            .filter_map(|m| words.iter().position(|w| w == m))
            .collect();
        match found.as_slice() {
            [] => Ok(None),
            [k] => Ok(Some(*k)),
            [a, b, ..] => Err(self.bad(&format!(
                "takes one {what} ({}), found .{} and .{}",
                dotted(words),
                words[*a],
                words[*b]
            ))),
        }
    }

    /// The one modifier among `words`, or `None`; errors as [`Cx::word_index`].
    pub(super) fn word_of<'w>(
        &self,
        words: &[&'w str],
        what: &str,
    ) -> Result<Option<&'w str>, LowerError> {
        Ok(self.word_index(words, what)?.map(|k| words[k]))
    }

    /// The index in `words` (PTX words without the dot) of the one modifier among them.
    /// Errors: none or more than one, naming the instruction, `what` the words are and the
    /// words allowed.
    pub(super) fn one_index(&self, words: &[&str], what: &str) -> Result<usize, LowerError> {
        self.word_index(words, what)?
            .ok_or_else(|| self.bad(&format!("needs one {what} ({})", dotted(words))))
    }

    /// The one modifier among `words`; errors as [`Cx::one_index`].
    pub(super) fn one_word<'w>(
        &self,
        words: &[&'w str],
        what: &str,
    ) -> Result<&'w str, LowerError> {
        Ok(words[self.one_index(words, what)?])
    }

    /// The memory-order qualifier of an `ld`, `st`, `atom` or `red` (PTX ISA §8,
    /// [`crate::ir::MemSync`]); `.relaxed`, `.volatile` and `.mmio` accesses are strong but
    /// order nothing of their own, weak accesses neither.
    pub(super) fn mem_sync(&self) -> crate::ir::MemSync {
        use crate::ir::MemSync;
        match (
            self.has("acquire"),
            self.has("release"),
            self.has("acq_rel"),
        ) {
            (_, _, true) | (true, true, false) => MemSync::AcqRel,
            (true, false, false) => MemSync::Acquire,
            (false, true, false) => MemSync::Release,
            (false, false, false)
                if self.has("relaxed") || self.has("volatile") || self.has("mmio") =>
            {
                MemSync::Relaxed
            }
            (false, false, false) => MemSync::None,
        }
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

/// PTX words with their dots, space-separated: `.add .min`.
fn dotted(words: &[&str]) -> String {
    let w: Vec<String> = words.iter().map(|w| format!(".{w}")).collect();
    w.join(" ")
}

/// The PTX name of a type without its dot: `f16x2`.
fn ty_name(t: ast::ScalarType) -> String {
    format!("{t:?}").to_lowercase()
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
        ("%clock_hi", None) => SReg::ClockHi,
        ("%clock64", None) => SReg::Clock64,
        ("%globaltimer", None) => SReg::GlobalTimer,
        ("%globaltimer_lo", None) => SReg::GlobalTimerLo,
        ("%globaltimer_hi", None) => SReg::GlobalTimerHi,
        ("%smid", None) => SReg::SmId,
        ("%nsmid", None) => SReg::NSmId,
        ("%gridid", None) => SReg::GridId,
        ("%dynamic_smem_size", None) => SReg::DynamicSmemSize,
        ("%total_smem_size", None) => SReg::TotalSmemSize,
        ("%aggr_smem_size", None) => SReg::AggrSmemSize,
        ("%reserved_smem_offset_begin", None) => SReg::ReservedSmemBegin,
        ("%reserved_smem_offset_end", None) => SReg::ReservedSmemEnd,
        ("%reserved_smem_offset_cap", None) => SReg::ReservedSmemCap,
        ("%reserved_smem_offset_0", None) => SReg::ReservedSmemOffset0,
        ("%reserved_smem_offset_1", None) => SReg::ReservedSmemOffset1,
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
        ("%current_graph_exec", None) => SReg::CurrentGraphExec,
        ("%locality_domain_id", None) => SReg::LocalityDomainId,
        ("%locality_domain_supplemental_sm", None) => SReg::LocalityDomainSupplementalSm,
        (n, None) if n.starts_with("%envreg") => SReg::EnvReg(envreg(n)?),
        (n, None) => pm(n)?,
        _ => return None,
    })
}

/// What reading special register `r` needs of the module's header, as ptxas 12.9 checks it
/// ("Feature '%clusterid' requires .target sm_90 or higher", "Feature '%clock_hi' requires
/// PTX ISA .version 5.0 or later"); the registers not listed here are older than every
/// target ptxjit models a difference for.
fn sreg_needs(r: SReg) -> table::Needs {
    use crate::ptx::target::Version;
    use table::{Min, Needs};
    let needs = |major, minor, min| Needs {
        since: Version(major, minor),
        min,
    };
    match r {
        SReg::ClockHi => needs(5, 0, Min::Any),
        SReg::DynamicSmemSize | SReg::TotalSmemSize => needs(4, 1, Min::Any),
        SReg::ReservedSmemBegin
        | SReg::ReservedSmemEnd
        | SReg::ReservedSmemCap
        | SReg::ReservedSmemOffset0
        | SReg::ReservedSmemOffset1 => needs(7, 6, Min::Sm(80)),
        SReg::ClusterIdX
        | SReg::ClusterIdY
        | SReg::ClusterIdZ
        | SReg::NClusterIdX
        | SReg::NClusterIdY
        | SReg::NClusterIdZ
        | SReg::ClusterCtaidX
        | SReg::ClusterCtaidY
        | SReg::ClusterCtaidZ
        | SReg::ClusterNctaidX
        | SReg::ClusterNctaidY
        | SReg::ClusterNctaidZ
        | SReg::ClusterCtaRank
        | SReg::ClusterNctaRank
        | SReg::IsExplicitCluster => needs(7, 8, Min::Sm(90)),
        SReg::CurrentGraphExec => needs(8, 0, Min::Any),
        // ptxas 13.5: "Feature '%locality_domain_id' requires PTX ISA .version 9.5 or later",
        // "... requires .target sm_100 or higher".
        SReg::LocalityDomainId | SReg::LocalityDomainSupplementalSm => needs(9, 5, Min::Sm(100)),
        SReg::AggrSmemSize => needs(8, 1, Min::Sm(90)),
        SReg::TidX
        | SReg::TidY
        | SReg::TidZ
        | SReg::NtidX
        | SReg::NtidY
        | SReg::NtidZ
        | SReg::CtaidX
        | SReg::CtaidY
        | SReg::CtaidZ
        | SReg::NctaidX
        | SReg::NctaidY
        | SReg::NctaidZ
        | SReg::LaneId
        | SReg::WarpId
        | SReg::NWarpId
        | SReg::LanemaskEq
        | SReg::LanemaskLe
        | SReg::LanemaskLt
        | SReg::LanemaskGe
        | SReg::LanemaskGt
        | SReg::Clock
        | SReg::Clock64
        | SReg::GlobalTimer
        | SReg::GlobalTimerLo
        | SReg::GlobalTimerHi
        | SReg::EnvReg(_)
        | SReg::SmId
        | SReg::NSmId
        | SReg::GridId
        | SReg::Pm(_)
        | SReg::Pm64(_) => Needs::ANY,
    }
}

/// `%pm0`–`%pm7` (PTX ISA §10.25) and `%pm0_64`–`%pm7_64` (§10.26).
fn pm(name: &str) -> Option<SReg> {
    let d = name.strip_prefix("%pm")?;
    let (digit, wide) = match d.strip_suffix("_64") {
        Some(k) => (k, true),
        None => (d, false),
    };
    let k = match digit.as_bytes() {
        [c @ b'0'..=b'7'] => c - b'0',
        _ => return None,
    };
    Some(if wide { SReg::Pm64(k) } else { SReg::Pm(k) })
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
/// Whether literal `l` may stand for an operand of IR type `ty` in `cx`'s instruction, as
/// ptxas decides it (PTX ISA §4.5.1, §5.2.2; ptxas 12.9: "Arguments mismatch for
/// instruction"): an integer operand takes integer literals, and a floating-point literal
/// only where the instruction's type is the bit-size type of the literal's size (`.b32`
/// with `0fXXXXXXXX`; `.b64` with `0dXXXXXXXXXXXXXXXX` or a decimal literal, which is double
/// precision); a floating-point operand takes floating-point literals, and an integer one
/// only in an instruction with a `.bN` type (`mov.b32 %f1, 1`).
fn literal_fits(cx: &Cx, l: &Literal, ty: Type) -> Result<(), LowerError> {
    let has_b = |n: &str| cx.has(n);
    let any_b = ["b8", "b16", "b32", "b64", "b128"].iter().any(|n| has_b(n));
    let ok = match (l, ty) {
        (Literal::Int { .. }, Type::F32 | Type::F64) => any_b,
        (Literal::Int { .. }, _) => true,
        (Literal::F32Bits(_), Type::F32 | Type::F64) => true,
        (Literal::Float(_) | Literal::F64Bits(_), Type::F32 | Type::F64) => true,
        (Literal::F32Bits(_), Type::I32) => has_b("b32"),
        (Literal::Float(_) | Literal::F64Bits(_), Type::I64) => has_b("b64"),
        (Literal::F32Bits(_) | Literal::Float(_) | Literal::F64Bits(_), _) => false,
    };
    if ok {
        return Ok(());
    }
    let (lit, want) = match (l, ty) {
        (Literal::Int { .. }, _) => ("an integer literal", "a floating-point operand"),
        (_, _) => ("a floating-point literal", "an integer operand"),
    };
    Err(LowerError::new(
        cx.inst.span,
        format!(
            "{lit} for {want} of '{}' (ptxas: \"Arguments mismatch\"; a floating-point \
             literal fits only a float type or the .bN type of its size)",
            cx.ptx
        ),
    ))
}

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
    /// Store a 128-bit value as its halves `lo` (at `addr`, 16-byte aligned) and `hi` (at
    /// `addr + 8`) in `space`.
    pub(super) fn store_b128(&mut self, cx: &Cx, space: Space, addr: Var, lo: Var, hi: Var) {
        let at = self.vars[addr as usize];
        let eight = self.konst(cx, at, 8);
        let a8 = self.emit1(Op::IAdd {}, vec![addr, eight], at, cx.loc, &cx.ptx);
        let st16 = Op::Store { space, align: 16 };
        self.emit(st16, vec![addr, lo], vec![], cx.loc, &cx.ptx);
        let st8 = Op::Store { space, align: 8 };
        self.emit(st8, vec![a8, hi], vec![], cx.loc, &cx.ptx);
    }

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

    /// `v` (register `name`) unless it is a `.b128` register, which only ld, st, mov.b128,
    /// atom.cas/exch.b128 and `clusterlaunchcontrol.query_cancel` may use.
    fn not_wide(&self, cx: &Cx, name: &ast::Ident, v: Var) -> Result<Var, LowerError> {
        if self.wide.contains(&v) {
            return Err(LowerError::unsupported(
                name.span,
                format!(
                    "the .b128 register '{}' can only be used by ld, st, mov.b128, \
                     atom.cas.b128, atom.exch.b128 and clusterlaunchcontrol.query_cancel, not \
                     by '{}'",
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
                    if relaxed.is_none() {
                        self.check_kind(cx, name, v, ty)?;
                    }
                    return self.coerce(cx, v, ty, relaxed, name.span);
                }
                if let Some(r) = sreg(&name.name, *component) {
                    table::check_needs(
                        name.span,
                        &format!("special register '{}'", name.name),
                        sreg_needs(r),
                        self.header,
                    )?;
                    // A special register may be read narrower than it is, never wider
                    // (ptxas: "Arguments mismatch" for `mov.u64 %rd, %tid.x`).
                    if ty.bits() > r.ty().bits() {
                        return Err(LowerError::new(
                            name.span,
                            format!(
                                "special register '{}{}' has {} bits, '{}' reads {}",
                                name.name,
                                component.map(|c| format!(".{c}")).unwrap_or_default(),
                                r.ty().bits(),
                                cx.ptx,
                                ty.bits()
                            ),
                        ));
                    }
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
                            "aggr_smem_size",
                            "reserved_smem_offset",
                            "perctamemory",
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
                literal_fits(cx, l, ty)?;
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
            // A kernel's address is what a device-side launch (CUDA dynamic parallelism:
            // `<<<>>>` in a kernel, which nvcc -rdc=true turns into the device runtime's
            // parameter-buffer and launch calls) passes.
            if self.graph.entries.contains(&name.name) {
                return Err(LowerError::device_launch(
                    name.span,
                    format!(
                        "'{}' takes the address of kernel {} to launch it from device code \
                         (CUDA dynamic parallelism: a kernel launching a kernel, built with \
                         nvcc -rdc=true -lcudadevrt): ptxjit does not support device-side \
                         kernel launches; launch the kernel from the host instead",
                        cx.ptx,
                        crate::ptx::names::quoted(&name.name)
                    ),
                ));
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
                if relaxed.is_none() {
                    self.check_kind(cx, name, r, ty)?;
                }
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
        let (name, v, rt) = self.declared_reg(o)?;
        Some((name, v, rt, opsize::ptx_ty(inst)?, opsize::ptx_ty(rt)?))
    }

    /// The register operand `o` (no vector component): its name, variable and declared
    /// type, if it is one.
    pub(super) fn declared_reg<'o>(
        &self,
        o: &'o Operand,
    ) -> Option<(&'o ast::Ident, Var, ast::ScalarType)> {
        let Operand::Reg {
            name,
            component: None,
        } = o
        else {
            return None;
        };
        let v = self.reg(&name.name)?;
        let rt = self.decl.get(&v).copied()?;
        Some((name, v, rt))
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
        let fit = opsize::relaxed_src(it, r)
            .filter(|_| opsize::bf16_ok(inst, rt))
            .ok_or_else(|| {
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
        let fit = opsize::relaxed_dst(it, rp)
            .filter(|_| opsize::bf16_ok(inst, rt))
            .ok_or_else(|| {
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

    /// Checks that register `name` (variable `v`) may be an operand that the instruction
    /// reads or writes as IR type `ty`, by the kind of its declared type (PTX ISA §9.4: only
    /// bit-size types mix with other kinds; ptxas rejects the rest with "Arguments
    /// mismatch"):
    /// - a `.uN`/`.sN` register is no floating-point operand: not an `.f32`/`.f64` value
    ///   (`add.f32 %f1, %f2, %r1` with `%r1` a `.u32` register), nor the `.f16`/`.bf16` value
    ///   (16 bits) or `.f16x2`/`.bf16x2` value (32 bits) of an instruction whose types are all
    ///   floating-point ones (`add.f16`, `fma.rn.f16x2`), which the IR holds as integers;
    /// - an `.f16x2`/`.bf16x2` register, which ptxas takes where it takes a `.u32` one, is no
    ///   `.f32` value either;
    /// - a half value (`.f16`, `.bf16`, `.f16x2`, `.bf16x2`) of such an instruction takes a `.b`
    ///   register or one of its own type only: no `.f32` register as the `.f16x2` result of
    ///   `cvt.rn.f16x2.f32`, no `.f16x2` register as a `.bf16x2` value;
    /// - a `.fN` register is no integer operand of an instruction whose types are all
    ///   `.uN`/`.sN` (`add.u32 %r1, %r2, %f1`).
    ///
    /// Integer operands of other instructions (a `.b32` membermask or a size beside `.f16`
    /// data) are not judged here, nor `ld`/`st`/`cvt`, which `lower::opsize` checks.
    fn check_kind(&self, cx: &Cx, name: &ast::Ident, v: Var, ty: Type) -> Result<(), LowerError> {
        use ast::ScalarType as S;
        use opsize::Kind;
        let Some(rt) = self.decl.get(&v).copied() else {
            return Ok(());
        };
        let Some(r) = opsize::ptx_ty(rt) else {
            return Ok(());
        };
        let types = cx.types();
        let all = |f: fn(S) -> bool| !types.is_empty() && types.iter().all(|&t| f(t));
        let float_ty =
            |t: S| matches!(t, S::F16 | S::Bf16 | S::F16x2 | S::Bf16x2 | S::F32 | S::F64);
        let packed = types.iter().any(|t| matches!(t, S::F16x2 | S::Bf16x2));
        let halves = match ty {
            Type::I16 => all(float_ty),
            Type::I32 => packed && all(float_ty),
            _ => false,
        };
        // A half value takes a `.b` register or one of its own type only (ptxas rejects an
        // `.f32` register as the `.f16x2` destination of `cvt.rn.f16x2.f32`, and an `.f16x2`
        // register as a `.bf16x2` value).
        if halves && matches!(r.kind, Kind::F) || matches!(rt, S::F16x2 | S::Bf16x2) {
            let width = |t: S| match ty {
                Type::I16 => matches!(t, S::F16 | S::Bf16),
                _ => matches!(t, S::F16x2 | S::Bf16x2),
            };
            let mut own = types.iter().copied().filter(|&t| width(t));
            if let (true, Some(h), None) = (halves, own.next(), own.next()) {
                if rt != h {
                    return Err(self.kind_error(cx, name, rt, &format!("a .{}", ty_name(h))));
                }
                return Ok(());
            }
        }
        let wants = if matches!(rt, S::F16x2 | S::Bf16x2) {
            if !ty.is_float() {
                return Ok(());
            }
            "a floating-point"
        } else {
            match r.kind {
                Kind::U | Kind::S if ty.is_float() || halves => "a floating-point",
                Kind::F
                    if ty.is_int()
                        && all(|t| {
                            matches!(opsize::ptx_ty(t), Some(p) if matches!(p.kind, Kind::U | Kind::S))
                                && !matches!(t, S::F16x2 | S::Bf16x2)
                        }) =>
                {
                    "an integer"
                }
                _ => return Ok(()),
            }
        };
        Err(self.kind_error(cx, name, rt, wants))
    }

    /// The error of [`Builder::check_kind`]: register `name`, declared `rt`, where the
    /// instruction needs `wants` ("a floating-point") operand.
    fn kind_error(
        &self,
        cx: &Cx,
        name: &ast::Ident,
        rt: ast::ScalarType,
        wants: &str,
    ) -> LowerError {
        LowerError::new(
            name.span,
            format!(
                "operand '{}' of '{}': a .{} register where the instruction needs {wants} \
                 operand: only .b registers hold both integer and floating-point values (PTX \
                 ISA §9.4)",
                name.name,
                cx.ptx,
                ty_name(rt)
            ),
        )
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

    /// Checks that address register `name` (IR type `rt`) is wide enough for a `space`
    /// address. Modules are `.address_size 64`: a global or generic address is 64 bits
    /// (ptxas: "Program uses 32-bit address ... conflicting with .address_size 64", then
    /// "32-Bit compilation is no longer supported"); shared, local, const and param addresses
    /// may be 32-bit offsets in their window.
    pub(super) fn check_address_width(
        &self,
        cx: &Cx,
        name: &ast::Ident,
        rt: Type,
        space: Space,
    ) -> Result<(), LowerError> {
        if rt == Type::I32 && matches!(space, Space::Global | Space::Generic) {
            return Err(LowerError::new(
                name.span,
                format!(
                    "address register '{}' of '{}' has 32 bits: a {} address in an \
                     `.address_size 64` module needs a 64-bit register",
                    name.name, cx.ptx, space
                ),
            ));
        }
        Ok(())
    }

    /// The 64-bit const-space address of the 32-bit one in `r`. ptxjit keeps `.const`
    /// variables in the global arena, and a 64-bit const-space address is the global address
    /// of the byte (`mov.u64 %rd, ctab`); the 32-bit form that clang's short pointers
    /// (`-nvptx-short-ptr`: `mov.u32 %r, ctab`, `ld.const.f32 [%r]`) use is that address's
    /// low 32 bits, its offset from `GLOBAL_BASE` (whose low 32 bits are zero), as a 32-bit
    /// shared or local address is an offset in its window.
    pub(super) fn const_address_from_32(&mut self, cx: &Cx, r: Var) -> Var {
        let op = Op::Cvt {
            dst: CvtType::U64,
            src: CvtType::U32,
            rnd: CvtRound::None,
            sat: false,
            ftz: false,
        };
        let wide = self.emit1(op, vec![r], Type::I64, cx.loc, &cx.ptx);
        let base = self.konst(cx, Type::I64, crate::runtime::memory::GLOBAL_BASE);
        self.emit1(Op::IAdd {}, vec![wide, base], Type::I64, cx.loc, &cx.ptx)
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
                    self.check_address_width(cx, name, rt, space)?;
                    if rt == Type::I32 && space == Space::Const {
                        self.const_address_from_32(cx, r)
                    } else {
                        r
                    }
                } else {
                    let sym = self.syms.get(&name.name).copied();
                    match (sym, space) {
                        (Some(Sym::Param { .. }), Space::Param)
                        | (Some(Sym::Shared { .. }), Space::Shared | Space::Generic)
                        | (Some(Sym::Local { .. }), Space::Local | Space::Generic) => {}
                        // PTX ISA §6.4.1: a variable's name in an address is its address in
                        // its own state space (or, with generic addressing, its generic
                        // address); ptxas: "State space mismatch between instruction and
                        // address".
                        (
                            Some(Sym::Global {
                                space: declared, ..
                            }),
                            _,
                        ) if space == declared || space == Space::Generic => {}
                        (Some(s), _) => {
                            let declared = match s {
                                Sym::Param { .. } => Space::Param,
                                Sym::Shared { .. } => Space::Shared,
                                Sym::Local { .. } => Space::Local,
                                Sym::Global { space, .. } => space,
                            };
                            return Err(LowerError::new(
                                name.span,
                                format!(
                                    "symbol '{}' is a .{declared} variable, not in the {space} \
                                     state space of '{}'",
                                    name.name, cx.ptx
                                ),
                            ));
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
            "param" | "param::entry" | "param::func" => return Space::Param,
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

/// A 16-bit float type: (format, packed x2).
fn half_ty(t: ast::ScalarType) -> Option<(HalfFmt, bool)> {
    use ast::ScalarType::*;
    Some(match t {
        F16 => (HalfFmt::F16, false),
        F16x2 => (HalfFmt::F16, true),
        Bf16 => (HalfFmt::Bf16, false),
        Bf16x2 => (HalfFmt::Bf16, true),
        _ => return None,
    })
}

/// Whether the instruction's type modifier is a 16-bit float type.
fn half_of(cx: &Cx) -> Option<(HalfFmt, bool)> {
    cx.mods
        .iter()
        .rev()
        .find_map(|m| ast::ScalarType::from_suffix(m).and_then(half_ty))
}

/// `.u16x2` / `.s16x2` packed integer types.
fn int_x2(cx: &Cx) -> Option<Sign> {
    packed_sign(cx, "u16x2", "s16x2")
}

/// The sign of a packed integer type among the modifiers: `unsigned` (`u16x2`) or `signed`.
fn packed_sign(cx: &Cx, unsigned: &str, signed: &str) -> Option<Sign> {
    if cx.has(unsigned) {
        Some(Sign::Unsigned)
    } else if cx.has(signed) {
        Some(Sign::Signed)
    } else {
        None
    }
}

fn round_or(cx: &Cx, default: Round) -> Round {
    cx.round().unwrap_or(default)
}

const CC_NAME: &str = "CC.CF";

impl Builder<'_> {
    /// The hidden carry-flag variable (created on first use).
    fn cc_flag(&mut self) -> Var {
        if let Some(v) = self.reg(CC_NAME) {
            return v;
        }
        let v = self.new_var(Type::Pred);
        if self.scopes.is_empty() {
            self.scopes.push(Default::default());
        }
        self.scopes[0].insert(CC_NAME.to_string(), v);
        v
    }

    fn op1(&mut self, cx: &Cx, op: Op, args: Vec<Var>, ty: Type) -> Var {
        self.emit1(op, args, ty, cx.loc, &cx.ptx)
    }

    /// Halves of an i32: (bits 15..0, bits 31..16).
    fn split2(&mut self, cx: &Cx, v: Var) -> (Var, Var) {
        let lo = self.op1(cx, trunc16(), vec![v], Type::I16);
        let sh = self.konst(cx, Type::I32, 16);
        let h = self.op1(
            cx,
            Op::Shr {
                sign: Sign::Unsigned,
            },
            vec![v, sh],
            Type::I32,
        );
        let hi = self.op1(cx, trunc16(), vec![h], Type::I16);
        (lo, hi)
    }

    /// Pack two halves into an i32 (lo in bits 15..0).
    fn pack2(&mut self, cx: &Cx, lo: Var, hi: Var) -> Var {
        let l = self.op1(cx, zext16(), vec![lo], Type::I32);
        let h = self.op1(cx, zext16(), vec![hi], Type::I32);
        let sh = self.konst(cx, Type::I32, 16);
        let h = self.op1(cx, Op::Shl {}, vec![h, sh], Type::I32);
        self.op1(cx, Op::Or {}, vec![l, h], Type::I32)
    }

    /// The `.f32` halves of a `.f32x2` (an i64): (bits 31..0, bits 63..32).
    fn split_f32x2(&mut self, cx: &Cx, v: Var) -> (Var, Var) {
        let trunc = Op::Cvt {
            dst: CvtType::U32,
            src: CvtType::U64,
            rnd: CvtRound::None,
            sat: false,
            ftz: false,
        };
        let lo = self.op1(cx, trunc, vec![v], Type::I32);
        let sh = self.konst(cx, Type::I32, 32);
        let h = self.op1(
            cx,
            Op::Shr {
                sign: Sign::Unsigned,
            },
            vec![v, sh],
            Type::I64,
        );
        let hi = self.op1(cx, trunc, vec![h], Type::I32);
        let lo = self.op1(cx, Op::Bitcast {}, vec![lo], Type::F32);
        let hi = self.op1(cx, Op::Bitcast {}, vec![hi], Type::F32);
        (lo, hi)
    }

    /// Pack two `.f32` into a `.f32x2` (an i64, `lo` in bits 31..0).
    fn pack_f32x2(&mut self, cx: &Cx, lo: Var, hi: Var) -> Var {
        let zext = Op::Cvt {
            dst: CvtType::U64,
            src: CvtType::U32,
            rnd: CvtRound::None,
            sat: false,
            ftz: false,
        };
        let l = self.op1(cx, Op::Bitcast {}, vec![lo], Type::I32);
        let h = self.op1(cx, Op::Bitcast {}, vec![hi], Type::I32);
        let l = self.op1(cx, zext, vec![l], Type::I64);
        let h = self.op1(cx, zext, vec![h], Type::I64);
        let sh = self.konst(cx, Type::I32, 32);
        let h = self.op1(cx, Op::Shl {}, vec![h, sh], Type::I64);
        self.op1(cx, Op::Or {}, vec![l, h], Type::I64)
    }

    /// Apply `f` to one half (scalar) or to both halves of packed operands, writing operand 0.
    fn per_half(
        &mut self,
        cx: &mut Cx,
        x2: bool,
        nargs: usize,
        f: &dyn Fn(&mut Builder, &Cx, &[Var]) -> Var,
    ) -> R {
        cx.expect_operands(nargs + 1)?;
        if !x2 {
            let mut args = vec![];
            for k in 1..=nargs {
                args.push(self.src(cx, k, Type::I16)?);
            }
            let r = f(self, cx, &args);
            return self.write(cx, 0, r, Type::I16);
        }
        let mut los = vec![];
        let mut his = vec![];
        for k in 1..=nargs {
            let v = self.src(cx, k, Type::I32)?;
            let (l, h) = self.split2(cx, v);
            los.push(l);
            his.push(h);
        }
        let rl = f(self, cx, &los);
        let rh = f(self, cx, &his);
        let r = self.pack2(cx, rl, rh);
        self.write(cx, 0, r, Type::I32)
    }

    /// Copy `v` (type `ty`) to destination operand `k`.
    fn write(&mut self, cx: &mut Cx, k: usize, v: Var, ty: Type) -> R {
        if let Some(d) = self.dst(cx, k, ty)? {
            self.copy(d, v, cx.loc, &cx.ptx);
        }
        Ok(())
    }
}

fn trunc16() -> Op {
    Op::Cvt {
        dst: CvtType::U16,
        src: CvtType::U32,
        rnd: CvtRound::None,
        sat: false,
        ftz: false,
    }
}

fn zext16() -> Op {
    Op::Cvt {
        dst: CvtType::U32,
        src: CvtType::U16,
        rnd: CvtRound::None,
        sat: false,
        ftz: false,
    }
}

fn sign_of(t: ast::ScalarType) -> Sign {
    use ast::ScalarType::*;
    if matches!(t, S8 | S16 | S32 | S64) {
        Sign::Signed
    } else {
        Sign::Unsigned
    }
}

fn is_float(cx: &Cx) -> bool {
    matches!(cx.ty(), Ok(ast::ScalarType::F32 | ast::ScalarType::F64))
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

impl Builder<'_> {
    /// Whether `o` can be an opaque 64-bit cache policy or access property (PTX ISA
    /// §9.7.9.18): a 64-bit register (no wider one) or an integer constant, as ptxas 13.5
    /// takes them.
    pub(super) fn is_policy(&self, o: &Operand) -> bool {
        match o {
            Operand::Reg {
                name,
                component: None,
            } => {
                self.reg(&name.name)
                    .filter(|r| !self.wide.contains(r))
                    .map(|r| self.vars[r as usize])
                    == Some(Type::I64)
            }
            Operand::Imm(Literal::Int { .. }, _) => true,
            _ => false,
        }
    }
}

pub(crate) fn instruction(b: &mut Builder, i: &ast::Instruction) -> Result<(), LowerError> {
    // A branch's target is a label even where a register of its name is in scope (the label
    // scoping of `labels` decided that the label is the name seen there).
    let skip = usize::from(i.opcode.name == "bra");
    let ops = i.operands.get(skip..).unwrap_or_default();
    if has_bare_register(b, ops) {
        let mut j = i.clone();
        bare_registers(b, &mut j.operands[skip..]);
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
            // The policy is the last operand, except before `cp.async.bulk`'s `.cp_mask`
            // byteMask (§9.7.9.25.4.1: `..., size, cache-policy, byteMask`).
            let masked = plain.modifiers.iter().any(|m| m.text == "cp_mask");
            let policy = match plain.operands.len() {
                n if masked && n >= 2 => Some(plain.operands.remove(n - 2)),
                _ => plain.operands.pop(),
            };
            let ok = policy.as_ref().is_some_and(|o| b.is_policy(o));
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
    // A memory-order qualifier where the ISA has none (ptxas: "Illegal modifier '.relaxed'
    // for instruction 'add'").
    let op = i.opcode.name.as_str();
    if let Some(m) = cx
        .mods
        .iter()
        .find(|m| table::ORDER_WORDS.contains(m) && !table::order_ok(op, m))
    {
        return Err(cx.bad(&format!("illegal modifier '.{m}' for instruction '{op}'")));
    }
    // A `.volatile` access has no scope (PTX ISA §9.7.9.8, §9.7.9.11: `.volatile` stands
    // alone; ptxas: "Modifier '.volatile' cannot be combined with modifier '.gpu'").
    if cx.has("volatile") {
        if let Some(s) = cx
            .mods
            .iter()
            .find(|m| matches!(**m, "cta" | "cluster" | "gpu" | "sys"))
        {
            return Err(cx.bad(&format!(
                "modifier '.volatile' cannot be combined with modifier '.{s}'"
            )));
        }
    }
    b.check_vector_kinds(&cx, &i.operands)?;
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
    let row = table::lookup(&cx)?;
    table::check_modifiers(&cx, row)?;
    table::check_header(&cx, row, b.header)?;
    let (decode, pure) = match row.decode {
        table::Decoder::Guarded(f) => return f(b, &cx, guard),
        table::Decoder::Pure(f) => (f, true),
        table::Decoder::Effect(f) => (f, false),
    };
    // A guarded operation with effects runs in its own block, branched around.
    let mut cont = None;
    if let (Some((p, neg)), false) = (guard, pure) {
        cont = Some(b.begin_guarded(p, neg, cx.loc));
    }
    decode(b, &mut cx)?;
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
        b.join(after, cx.loc);
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
            sync: crate::ir::MemSync::None,
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
