//! The fixed modifiers of the warp-wide matrix multiply-accumulate operations (PTX ISA §9.7.14
//! "Warp Level Matrix Multiply-Accumulate Instructions": `mma.sync`, and `wmma.mma`), and the
//! number and IR type of the registers that hold each fragment.
//!
//! A fragment is the part of a matrix one lane holds: a list of elements, packed low to high
//! into 32-bit registers (`.f16x2`, `.b32` with four `.s8`, eight `.s4` or 32 `.b1`) or one per
//! register (`.f32`, `.s32`, `.f64`, `.tf32` in a `.b32`). Which lane holds which element is
//! the layout: the ISA's tables for `mma` (`runtime::mma`), and ptxjit's own for `wmma`, whose
//! layout the ISA leaves to the implementation (docs/isa-notes.md).

use super::types::{Round, Type};
use std::fmt;

/// The element type of an `mma`/`wmma` matrix (PTX ISA §9.7.14.1, "Matrix data types").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaElem {
    F16,
    Bf16,
    /// `.tf32`: an `.f32` bit pattern of which the matrix unit uses the sign, the exponent and
    /// the upper 10 mantissa bits (the low 13 bits are ignored).
    Tf32,
    F32,
    F64,
    S8,
    U8,
    S4,
    U4,
    /// Single bits (`.b1`), combined with [`MmaBitOp`].
    B1,
    S32,
    /// `.e4m3`: 8-bit float, 4 exponent bits (PTX ISA §5.2.5; `runtime::minifloat`).
    E4m3,
    /// `.e5m2`: 8-bit float, 5 exponent bits.
    E5m2,
    /// `.e2m3`: 6-bit float, 2 exponent bits, 3 mantissa bits (PTX ISA §5.2.5; only in
    /// `tcgen05.mma.kind::f8f6f4`, where shared memory holds it in a 16-element group padded to
    /// 16 bytes: `runtime::tcgen05`).
    E2m3,
    /// `.e3m2`: 6-bit float, 3 exponent bits, 2 mantissa bits (as [`MmaElem::E2m3`]).
    E3m2,
    /// `.e2m1`: 4-bit float, 2 exponent bits, 1 mantissa bit (as [`MmaElem::E2m3`]).
    E2m1,
}

impl MmaElem {
    /// The type named by a PTX modifier (`f16`, `tf32`, `s4`, …).
    pub fn from_modifier(m: &str) -> Option<MmaElem> {
        Some(match m {
            "f16" => MmaElem::F16,
            "bf16" => MmaElem::Bf16,
            "tf32" => MmaElem::Tf32,
            "f32" => MmaElem::F32,
            "f64" => MmaElem::F64,
            "s8" => MmaElem::S8,
            "u8" => MmaElem::U8,
            "s4" => MmaElem::S4,
            "u4" => MmaElem::U4,
            "b1" => MmaElem::B1,
            "s32" => MmaElem::S32,
            "e4m3" => MmaElem::E4m3,
            "e5m2" => MmaElem::E5m2,
            "e2m3" => MmaElem::E2m3,
            "e3m2" => MmaElem::E3m2,
            "e2m1" => MmaElem::E2m1,
            _ => return None,
        })
    }

    /// Width of one element in bits.
    pub fn bits(self) -> u32 {
        match self {
            MmaElem::B1 => 1,
            MmaElem::S4 | MmaElem::U4 | MmaElem::E2m1 => 4,
            MmaElem::E2m3 | MmaElem::E3m2 => 6,
            MmaElem::S8 | MmaElem::U8 | MmaElem::E4m3 | MmaElem::E5m2 => 8,
            MmaElem::F16 | MmaElem::Bf16 => 16,
            MmaElem::Tf32 | MmaElem::F32 | MmaElem::S32 => 32,
            MmaElem::F64 => 64,
        }
    }

    /// Whether the type is an integer (or `.b1`) type.
    pub fn is_int(self) -> bool {
        matches!(
            self,
            MmaElem::S8 | MmaElem::U8 | MmaElem::S4 | MmaElem::U4 | MmaElem::B1 | MmaElem::S32
        )
    }

    /// Elements per register: 64/32-bit elements one per register, narrower ones packed into
    /// a 32-bit register.
    pub fn per_reg(self) -> u32 {
        match self.bits() {
            64 => 1,
            b => 32 / b,
        }
    }

    /// The IR type of a register holding elements of this type.
    pub fn reg_type(self) -> Type {
        match self {
            MmaElem::F32 => Type::F32,
            MmaElem::F64 => Type::F64,
            MmaElem::F16
            | MmaElem::Bf16
            | MmaElem::Tf32
            | MmaElem::S8
            | MmaElem::U8
            | MmaElem::S4
            | MmaElem::U4
            | MmaElem::B1
            | MmaElem::S32
            | MmaElem::E4m3
            | MmaElem::E5m2
            | MmaElem::E2m3
            | MmaElem::E3m2
            | MmaElem::E2m1 => Type::I32,
        }
    }
}

impl fmt::Display for MmaElem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MmaElem::F16 => "f16",
            MmaElem::Bf16 => "bf16",
            MmaElem::Tf32 => "tf32",
            MmaElem::F32 => "f32",
            MmaElem::F64 => "f64",
            MmaElem::S8 => "s8",
            MmaElem::U8 => "u8",
            MmaElem::S4 => "s4",
            MmaElem::U4 => "u4",
            MmaElem::B1 => "b1",
            MmaElem::S32 => "s32",
            MmaElem::E4m3 => "e4m3",
            MmaElem::E5m2 => "e5m2",
            MmaElem::E2m3 => "e2m3",
            MmaElem::E3m2 => "e3m2",
            MmaElem::E2m1 => "e2m1",
        })
    }
}

/// The bit operation of a `.b1` multiply (PTX ISA §9.7.14.5.14: `.xor.popc`, `.and.popc`):
/// each product is `popc(a op b)` over the bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaBitOp {
    /// Not a `.b1` operation.
    None,
    Xor,
    And,
}

/// Which layout the fragments follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaFamily {
    /// `mma.sync`: the ISA's fragment tables (PTX ISA §9.7.14.5.x "Matrix Fragments for mma").
    Mma,
    /// `wmma.mma`: ptxjit's layout for WMMA fragments, which `wmma.load`/`wmma.store` follow
    /// too (docs/isa-notes.md).
    Wmma,
}

/// One of the three matrices a fragment belongs to (C and D share their layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaFrag {
    A,
    B,
    C,
}

/// The shape, types and modifiers of one matrix multiply-accumulate `D = A·B + C`, with A of
/// `m`×`k`, B of `k`×`n`, C and D of `m`×`n` (PTX ISA §9.7.14.5.14 `mma`, §9.7.14.4.4 `wmma.mma`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MmaSpec {
    pub family: MmaFamily,
    pub m: u8,
    pub n: u8,
    pub k: u16,
    pub a: MmaElem,
    pub b: MmaElem,
    pub c: MmaElem,
    pub d: MmaElem,
    /// A is column-major (`.col` for A): only the quad-pair form ([`MmaSpec::quad_pairs`])
    /// has a layout that depends on it; elsewhere A is `.row` (or, for `wmma`, the fragment
    /// does not depend on the memory layout) and this is false.
    pub a_col: bool,
    /// B is row-major (`.row` for B); as `a_col`.
    pub b_row: bool,
    /// `.satfinite` on an integer result: clamp to the s32 range instead of wrapping.
    pub satfinite: bool,
    pub bop: MmaBitOp,
    /// `mma.sp` / `mma.sp::ordered_metadata` (PTX ISA §9.7.14.6): A is structured sparse and
    /// its fragment holds only the non-zero half of each row ([`MmaSparse`]); `None` for a
    /// dense multiply.
    pub sparse: Option<MmaSparse>,
    /// The rounding of each fused multiply-add step of an `.f64` multiply (`.rn`, `.rz`, `.rm`,
    /// `.rp`; PTX ISA §9.7.14.4.4 `wmma.mma`, §9.7.14.5.14 `mma`); [`Round::Nearest`] for
    /// every other form.
    pub rnd: Round,
    /// `.block_scale` (PTX ISA §9.7.14.3 "Block Scaling for mma.sync"): A and B are scaled
    /// per block of K by factors from the `scale-a-data`/`scale-b-data` operands
    /// ([`MmaScale`]); `None` for an unscaled multiply.
    pub scale: Option<MmaScale>,
}

/// The `.kind` of a block-scaled `mma` (PTX ISA §9.7.14.5.14, Table 36).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaScaleKind {
    /// `.kind::mxf8f6f4`: `.kind::f8f6f4`'s inputs in 8-bit containers, `.ue8m0` factors.
    Mxf8f6f4,
    /// `.kind::mxf4`: `.e2m1` inputs packed eight to a register, `.ue8m0` factors.
    Mxf4,
    /// `.kind::mxf4nvf4`: as `.kind::mxf4`, `.ue8m0` or `.ue4m3` factors.
    Mxf4nvf4,
}

/// The block scaling of a `.block_scale` `mma`: each row of A (column of B) is cut along K
/// into `vec` blocks (`.scale_vec::1X/2X/4X`), each multiplied by its own factor of type
/// `.ue8m0` (2^(e − 127)) or `.ue4m3` (an e4m3 without sign). The operands after C (after the
/// sparsity selector for `mma.sp`) are `scale-a-data`, `byte-id-a`, `thread-id-a`,
/// `scale-b-data`, `byte-id-b`, `thread-id-b`, six 32-bit values (`runtime::mma`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MmaScale {
    pub kind: MmaScaleKind,
    /// Factors per row of A and column of B: 1, 2 or 4.
    pub vec: u8,
    /// `.ue4m3` factors (else `.ue8m0`).
    pub ue4m3: bool,
}

/// The sparsity of a sparse `mma.sp` (PTX ISA §9.7.14.6.1 "Sparse matrix storage"): in each
/// chunk of [`MmaSparse::chunk`] consecutive elements of a row of A, half are zero (2:4 for
/// 16-bit, 8-bit and `.e4m3`/`.e5m2` inputs, 1:2 for `.tf32`, 4:8 in pairs for 4-bit inputs);
/// the A fragment holds the non-zero half (the layout of a dense A of K/2 columns) and a
/// metadata register (an extra `.b32` operand after C) gives their places.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MmaSparse {
    /// The sparsity selector: which thread (or pair) of each group of four consecutive lanes
    /// supplies the metadata (0..4 / [`MmaSpec::meta_threads`]).
    pub selector: u8,
    /// `::ordered_metadata`: the two indices of each chunk must be in increasing order.
    pub ordered: bool,
}

impl MmaSpec {
    /// The dense multiply of `family` with shape `(m, n, k)`, inputs A and B of type `a` and
    /// accumulators C and D of type `c`, A `.row` and B `.col`, no `.satfinite`, no bit
    /// operation, rounding to nearest: the defaults every form starts from (set the other
    /// fields with `MmaSpec { b, satfinite, .. MmaSpec::new(..) }`).
    pub fn new(family: MmaFamily, (m, n, k): (u8, u8, u16), a: MmaElem, c: MmaElem) -> MmaSpec {
        MmaSpec {
            family,
            m,
            n,
            k,
            a,
            b: a,
            c,
            d: c,
            a_col: false,
            b_row: false,
            satfinite: false,
            bop: MmaBitOp::None,
            sparse: None,
            rnd: Round::Nearest,
            scale: None,
        }
    }

    /// Whether this is `mma.m8n8k4` with `.f16` inputs: four independent 8×8×4 products,
    /// each by one "quad pair" of lanes (4q..4q+3 and 16+4q..16+4q+3; PTX ISA §9.7.14.5.1).
    pub fn quad_pairs(&self) -> bool {
        self.family == MmaFamily::Mma
            && (self.m, self.n, self.k) == (8, 8, 4)
            && self.a == MmaElem::F16
    }

    /// Elements per sparsity chunk of A's rows (4 for 2:4, 2 for `.tf32`'s 1:2, 8 for the
    /// 4-bit types' 4:8 in pairs). Each chunk has a 4-bit field of metadata.
    pub fn chunk(&self) -> u32 {
        // Elements in 8-bit containers (`.kind::f8f6f4`) are 2:4 as 8-bit inputs are.
        match self.slot_bits(self.a) {
            32 => 2,
            4 => 8,
            _ => 4,
        }
    }

    /// For `mma.sp`: the lanes of each group of four that hold metadata (1, 2 or 4): each
    /// lane's 32-bit register holds 8 four-bit chunk fields, and a group covers two rows of A.
    pub fn meta_threads(&self) -> u32 {
        (2 * self.k as u32 / self.chunk() * 4) / 32
    }

    /// The spec whose A fragment layout a sparse A fragment follows: the dense one with K/2
    /// columns (the stored, non-zero half; PTX ISA §9.7.14.6.2). `self` when dense.
    pub fn stored(&self) -> MmaSpec {
        match self.sparse {
            Some(_) => MmaSpec {
                k: self.k / 2,
                sparse: None,
                ..*self
            },
            None => *self,
        }
    }

    /// Rows and columns of a matrix.
    pub fn dims(&self, f: MmaFrag) -> (u32, u32) {
        let (m, n, k) = (self.m as u32, self.n as u32, self.k as u32);
        match f {
            MmaFrag::A => (m, k),
            MmaFrag::B => (k, n),
            MmaFrag::C => (m, n),
        }
    }

    /// The element type of a fragment (`C` here means the accumulator input).
    pub fn elem(&self, f: MmaFrag) -> MmaElem {
        match f {
            MmaFrag::A => self.a,
            MmaFrag::B => self.b,
            MmaFrag::C => self.c,
        }
    }

    /// Elements of a fragment one lane holds. For `wmma` with `.f16` inputs the A and B
    /// fragments hold 16 elements (eight `.f16x2` registers, PTX ISA §9.7.14.4.2) whatever
    /// the share of the matrix, so some elements are held by several lanes.
    pub fn elems(&self, f: MmaFrag) -> u32 {
        if self.quad_pairs() {
            return if f == MmaFrag::C { 8 } else { 4 };
        }
        if f == MmaFrag::A && self.sparse.is_some() {
            return self.stored().elems(f);
        }
        let (r, c) = self.dims(f);
        let share = r * c / 32;
        match (self.family, f, self.elem(f)) {
            (MmaFamily::Wmma, MmaFrag::A | MmaFrag::B, MmaElem::F16) => 16,
            _ => share,
        }
    }

    /// Whether elements of type `e` sit one to an 8-bit container in this multiply's
    /// registers: the 6- and 4-bit inputs of `mma`'s `.kind::f8f6f4` (PTX ISA §9.7.14.5.14;
    /// `.e2m3`/`.e3m2` at bits 0-5, `.e2m1` at bits 2-5 of the byte, docs/isa-notes.md).
    /// `.kind::mxf4`/`::mxf4nvf4` pack their `.e2m1` elements eight to a register instead.
    pub fn in_container(&self, e: MmaElem) -> bool {
        let packed = self.scale.is_some_and(|s| s.kind != MmaScaleKind::Mxf8f6f4);
        self.family == MmaFamily::Mma
            && !packed
            && matches!(e, MmaElem::E2m3 | MmaElem::E3m2 | MmaElem::E2m1)
    }

    /// Bits one element of type `e` takes in a register: [`MmaElem::bits`], or 8 for an
    /// element in a container ([`MmaSpec::in_container`]).
    pub fn slot_bits(&self, e: MmaElem) -> u32 {
        if self.in_container(e) {
            8
        } else {
            e.bits()
        }
    }

    /// Elements of type `e` per register: [`MmaElem::per_reg`], or 4 for elements in
    /// containers.
    pub fn per_reg(&self, e: MmaElem) -> u32 {
        if self.in_container(e) {
            4
        } else {
            e.per_reg()
        }
    }

    /// The number of registers of a fragment and their IR type (`D` as `C` with its own
    /// element type: pass `out` for the result).
    pub fn regs(&self, f: MmaFrag, out: bool) -> (u32, Type) {
        let e = if out { self.d } else { self.elem(f) };
        (self.elems(f).div_ceil(self.per_reg(e)), e.reg_type())
    }
}

impl fmt::Display for MmaSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fam = match self.family {
            MmaFamily::Mma => "mma",
            MmaFamily::Wmma => "wmma",
        };
        write!(f, ".{fam}")?;
        if let Some(sp) = self.sparse {
            let o = if sp.ordered { "::ordered_metadata" } else { "" };
            write!(f, ".sp{o}.selector{}", sp.selector)?;
        }
        write!(f, ".m{}n{}k{}", self.m, self.n, self.k)?;
        if let Some(sc) = self.scale {
            let kind = match sc.kind {
                MmaScaleKind::Mxf8f6f4 => "mxf8f6f4",
                MmaScaleKind::Mxf4 => "mxf4",
                MmaScaleKind::Mxf4nvf4 => "mxf4nvf4",
            };
            let st = if sc.ue4m3 { "ue4m3" } else { "ue8m0" };
            write!(f, ".kind::{kind}.block_scale.scale_vec::{}X.{st}", sc.vec)?;
        }
        if self.quad_pairs() {
            let l = |col: bool| if col { "col" } else { "row" };
            write!(f, ".{}.{}", l(self.a_col), l(!self.b_row))?;
        }
        if self.satfinite {
            f.write_str(".satfinite")?;
        }
        match self.rnd {
            Round::Nearest => {}
            Round::Zero => f.write_str(".rz")?,
            Round::Down => f.write_str(".rm")?,
            Round::Up => f.write_str(".rp")?,
        }
        write!(f, ".{}.{}.{}.{}", self.d, self.a, self.b, self.c)?;
        match self.bop {
            MmaBitOp::None => Ok(()),
            MmaBitOp::Xor => f.write_str(".xor.popc"),
            MmaBitOp::And => f.write_str(".and.popc"),
        }
    }
}
