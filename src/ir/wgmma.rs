//! The fixed modifiers of the warpgroup matrix multiply-accumulate `wgmma.mma_async` (PTX ISA
//! §9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions") and the
//! number and IR type of its register operands.
//!
//! A warpgroup is four consecutive warps of a CTA (the first one's rank a multiple of 4); it
//! computes `D = A·B + D` (or `A·B` when `scale-d` is false) with D of 64×N, A of 64×K and B of
//! K×N. Each warp holds 16 rows of D (warp `w % 4` of the group: rows `16·(w % 4)..+16`) and, when
//! A comes from registers, the same 16 rows of A. A comes from shared memory through a
//! 64-bit matrix descriptor or from registers; B always through a descriptor.

use super::mma::MmaElem;
use super::types::Type;
use std::fmt;

/// Where the A matrix of a `wgmma.mma_async` comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WgmmaA {
    /// Shared memory, through a 64-bit matrix descriptor (`a-desc`). `trans` is
    /// `imm-trans-a`: A is M-major (only for `.f16`/`.bf16`; else false, K-major).
    Desc { trans: bool },
    /// Registers: each warp's 16×K rows in the layout of `mma`'s m16 A fragment.
    Regs,
}

/// The shape, types and immediate operands of one `wgmma.mma_async` (PTX ISA §9.7.15.5.2):
/// `.m64nNkK.dtype.atype.btype`, A's source, `imm-scale-a`/`imm-scale-b` (±1: negate the
/// matrix's elements) and `imm-trans-b` (B is N-major).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WgmmaSpec {
    /// N: 8 to 256 in steps of 8 (16-bit and tf32 inputs), or the ISA's list for 8-bit inputs.
    pub n: u16,
    /// K: 32 bytes of the input type (16 for `.f16`/`.bf16`, 8 for `.tf32`, 32 for 8-bit),
    /// twice that for a sparse A (whose operand then holds K/2 columns).
    pub k: u16,
    pub a: MmaElem,
    pub b: MmaElem,
    /// The accumulator type (`.f32`, `.f16`, `.s32`).
    pub d: MmaElem,
    pub a_src: WgmmaA,
    pub trans_b: bool,
    /// `imm-scale-a == -1`: A's elements are negated.
    pub neg_a: bool,
    /// `imm-scale-b == -1`.
    pub neg_b: bool,
    /// `.satfinite` (integer inputs): clamp the s32 result instead of wrapping.
    pub satfinite: bool,
    /// `wgmma.mma_async.sp` (PTX ISA §9.7.15.6): A is structured sparse (2:4, or 1:2 for
    /// `.tf32`) and its operand holds only the stored 64×K/2 half; the value is the sparsity
    /// selector `sp-sel` (which lanes of each group of four give the metadata). `None` for a
    /// dense multiply.
    pub sparse: Option<u8>,
}

impl WgmmaSpec {
    /// The registers of each lane's D fragment and their IR type: N/2 elements per lane, one
    /// per `.f32`/`.s32` register or two per `.f16x2` register.
    pub fn d_regs(&self) -> (u32, Type) {
        let elems = self.n as u32 / 2;
        (elems.div_ceil(self.d.per_reg()), self.d.reg_type())
    }

    /// The columns of A's operand: K, or K/2 for a sparse A (the stored half of each row).
    pub fn a_cols(&self) -> u16 {
        match self.sparse {
            Some(_) => self.k / 2,
            None => self.k,
        }
    }

    /// The registers of each lane's A fragment when A comes from registers: 16×K / 32
    /// elements (16×K/2 for a sparse A) packed into `.b32` registers (always four).
    pub fn a_regs(&self) -> u32 {
        (16 * self.a_cols() as u32 / 32).div_ceil(self.a.per_reg())
    }

    /// The IR operands of the op, in order: D's registers (the accumulator input), A (a
    /// descriptor i64, or [`WgmmaSpec::a_regs`] i32 registers), B's descriptor (i64),
    /// `scale-d` (pred), and for a sparse A the metadata `sp-meta` (i32).
    pub fn operand_types(&self) -> Vec<Type> {
        let (nd, td) = self.d_regs();
        let mut v = vec![td; nd as usize];
        match self.a_src {
            WgmmaA::Desc { .. } => v.push(Type::I64),
            WgmmaA::Regs => v.extend(std::iter::repeat_n(Type::I32, self.a_regs() as usize)),
        }
        v.push(Type::I64);
        v.push(Type::Pred);
        if self.sparse.is_some() {
            v.push(Type::I32);
        }
        v
    }
}

impl fmt::Display for WgmmaSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(sel) = self.sparse {
            write!(f, ".sp.selector{sel}")?;
        }
        write!(f, ".m64n{}k{}", self.n, self.k)?;
        if self.satfinite {
            f.write_str(".satfinite")?;
        }
        write!(f, ".{}.{}.{}", self.d, self.a, self.b)?;
        match self.a_src {
            WgmmaA::Desc { trans } => write!(f, " a=desc{}", if trans { ".trans" } else { "" })?,
            WgmmaA::Regs => f.write_str(" a=regs")?,
        }
        if self.trans_b {
            f.write_str(" b.trans")?;
        }
        if self.neg_a {
            f.write_str(" -a")?;
        }
        if self.neg_b {
            f.write_str(" -b")?;
        }
        Ok(())
    }
}
