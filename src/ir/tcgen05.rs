//! The fixed modifiers of Blackwell's fifth-generation tensor-core instructions (PTX ISA
//! §9.7.16, "TensorCore 5th Generation Family Instructions": `tcgen05.*`) and the operands of
//! their IR op, [`crate::ir::Op::Tcgen05`].
//!
//! # Tensor memory (§9.7.16.1)
//! Each CTA has 128 lanes × 512 columns of 32-bit cells. A tensor-memory address is 32 bits:
//! the lane in bits 31-16, the column in bits 15-0. Columns are allocated (`tcgen05.alloc`)
//! in powers of two from 32 to 512, for all 128 lanes at once; warp `w` of a CTA reaches only
//! lanes `32·(w % 4)..+32` with `tcgen05.ld`/`tcgen05.st`. The memory, its allocator and the
//! arithmetic are in `runtime::tcgen05`.
//!
//! `.sync.aligned` forms (alloc, dealloc, relinquish, ld, st) are warp collectives; `mma`,
//! `cp` and `shift` are issued by single threads: every active lane that executes one issues
//! its own (CUDA code elects one lane first).

use std::fmt;

/// The one table of a modifier's PTX spellings (without the leading dot) for a fieldless
/// enum: `ALL` (every value, in the order the PTX ISA lists them), `name`, `from_name` and
/// `Display` (the name) all read it, so the decoder, its error messages and the IR printer
/// cannot disagree.
macro_rules! ptx_names {
    ($ty:ident { $($v:ident => $s:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in the order the PTX ISA lists them.
            pub const ALL: &'static [$ty] = &[$($ty::$v),+];

            /// The PTX spelling, without the leading dot.
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$v => $s),+
                }
            }

            /// The value spelled `s` (without the leading dot).
            pub fn from_name(s: &str) -> Option<$ty> {
                $ty::ALL.iter().copied().find(|v| v.name() == s)
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

/// The data-movement shape of `tcgen05.ld` / `tcgen05.st` (§9.7.16.2.3, "Matrix fragments for
/// tcgen05.ld/st"): which lane and 32-bit column thread `t`'s register `i` reaches
/// ([`Tc05Shape::cell`]), relative to the address (for `.16x32bx2`, to the address of its
/// half). A `.num` of `.xN` repeats the shape N times along the columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tc05Shape {
    /// `.32x32b`: 32 lanes, 32 bits per lane and repetition: thread `t`, register `i` → lane
    /// `t`, column `i`.
    S32x32b,
    /// `.16x64b`: 16 lanes × 64 bits: thread `t`, register `i` → lane `t / 4 + 8·(t % 2)`,
    /// column `(t / 2) % 2 + 2i`.
    S16x64b,
    /// `.16x128b`: 16 lanes × 128 bits, 2 registers per repetition: thread `t`, register `i`
    /// → lane `t / 4 + 8·(i % 2)`, column `t % 4 + 4·(i / 2)`.
    S16x128b,
    /// `.16x256b`: 16 lanes × 256 bits, 4 registers per repetition: thread `t`, register `i`
    /// → lane `t / 4 + 8·((i / 2) % 2)`, column `2·(t % 4) + i % 2 + 8·(i / 4)`.
    S16x256b,
    /// `.16x32bx2`: two `.16x32b` accesses, the second at `taddr + immHalfSplitoff`: thread
    /// `t`, register `i` → lane `t % 16`, column `i` of the first access (`t < 16`) or the
    /// second.
    S16x32bx2,
}

impl Tc05Shape {
    /// Registers per repetition (Table 49: `.x1`'s count).
    pub fn regs_per_num(self) -> u32 {
        match self {
            Tc05Shape::S32x32b | Tc05Shape::S16x64b | Tc05Shape::S16x32bx2 => 1,
            Tc05Shape::S16x128b => 2,
            Tc05Shape::S16x256b => 4,
        }
    }

    /// The largest `.num` (Table 49: at most 128 registers).
    pub fn max_num(self) -> u32 {
        128 / self.regs_per_num()
    }

    /// Lanes one access reaches: 32 for `.32x32b`, 16 for the others.
    pub fn lanes(self) -> u32 {
        match self {
            Tc05Shape::S32x32b => 32,
            Tc05Shape::S16x64b
            | Tc05Shape::S16x128b
            | Tc05Shape::S16x256b
            | Tc05Shape::S16x32bx2 => 16,
        }
    }

    /// 32-bit columns per lane that one access with `num` repetitions reaches (before
    /// `.pack::16b` doubles them).
    pub fn columns(self, num: u32) -> u32 {
        num * match self {
            Tc05Shape::S32x32b | Tc05Shape::S16x32bx2 => 1,
            Tc05Shape::S16x64b => 2,
            Tc05Shape::S16x128b => 4,
            Tc05Shape::S16x256b => 8,
        }
    }

    /// Where thread `t` (0..32) finds register `i`: (lane, 32-bit column, whether it is the
    /// second access of `.16x32bx2`), relative to the access's address.
    pub fn cell(self, t: u32, i: u32) -> (u32, u32, bool) {
        match self {
            Tc05Shape::S32x32b => (t, i, false),
            Tc05Shape::S16x64b => (t / 4 + 8 * (t % 2), (t / 2) % 2 + 2 * i, false),
            Tc05Shape::S16x128b => (t / 4 + 8 * (i % 2), t % 4 + 4 * (i / 2), false),
            Tc05Shape::S16x256b => (
                t / 4 + 8 * ((i / 2) % 2),
                2 * (t % 4) + i % 2 + 8 * (i / 4),
                false,
            ),
            Tc05Shape::S16x32bx2 => (t % 16, i, t >= 16),
        }
    }
}

/// The reduction of `tcgen05.ld.red` (§9.7.16.8.3): `.min`/`.max` over the loaded registers of
/// each thread, as `.f32` (with `.abs` and `.NaN`), `.u32` or `.s32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tc05Red {
    /// `.max` (else `.min`).
    pub max: bool,
    /// The element type.
    pub ty: Tc05RedType,
}

/// The element type of a `tcgen05.ld.red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tc05RedType {
    /// `.f32`: `abs` compares magnitudes (`.abs`), `nan` makes a NaN win (`.NaN`).
    F32 { abs: bool, nan: bool },
    /// `.u32`.
    U32,
    /// `.s32`.
    S32,
}

/// The kind of a `tcgen05.mma` (§9.7.16.10.9.1, `.kind::…`): which input types the
/// instruction descriptor may name, and K (the reduction depth of one instruction).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tc05Kind {
    /// `.kind::f16`: f16 or bf16 inputs, K = 16; an f32 accumulator, or an f16 one with f16
    /// inputs.
    F16,
    /// `.kind::tf32`: tf32 inputs, f32 accumulator, K = 8.
    Tf32,
    /// `.kind::i8`: s8/u8 inputs, s32 accumulator, K = 32.
    I8,
    /// `.kind::f8f6f4`: e4m3, e5m2, e2m3, e3m2 or e2m1 inputs (A and B each its own, named by
    /// the instruction descriptor), f32 or f16 accumulator, K = 32.
    F8f6f4,
    /// `.kind::mxf8f6f4` (block scaling, §9.7.16.10.7): `.kind::f8f6f4`'s inputs, each row of
    /// A and column of B scaled by one ue8m0 factor per 32 elements of K (`.scale_vec::1X`),
    /// f32 accumulator, K = 32.
    Mxf8f6f4,
    /// `.kind::mxf4`: e2m1 inputs packed two to a byte, ue8m0 factors per 32 elements of K
    /// (`.scale_vec::2X`), f32 accumulator, K = 64.
    Mxf4,
    /// `.kind::mxf4nvf4`: as `.kind::mxf4`, with ue8m0 factors per 32 elements
    /// (`.scale_vec::2X`) or ue8m0 or ue4m3 factors per 16 (`.scale_vec::4X`).
    Mxf4nvf4,
}

impl Tc05Kind {
    /// K of one instruction (32 bytes of the input type).
    pub fn k(self) -> u32 {
        match self {
            Tc05Kind::F16 => 16,
            Tc05Kind::Tf32 => 8,
            Tc05Kind::I8 | Tc05Kind::F8f6f4 | Tc05Kind::Mxf8f6f4 => 32,
            Tc05Kind::Mxf4 | Tc05Kind::Mxf4nvf4 => 64,
        }
    }

    /// Whether the kind scales A and B by blocks (`.block_scale`, §9.7.16.10.7).
    pub fn block_scaled(self) -> bool {
        match self {
            Tc05Kind::F16 | Tc05Kind::Tf32 | Tc05Kind::I8 | Tc05Kind::F8f6f4 => false,
            Tc05Kind::Mxf8f6f4 | Tc05Kind::Mxf4 | Tc05Kind::Mxf4nvf4 => true,
        }
    }
}

/// The shape and multicast of a `tcgen05.cp` (§9.7.16.9.2, §9.7.16.2.3): rows of the source
/// matrix × bits per row, and where row `r` lands relative to the address's lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tc05CpShape {
    /// `.128x256b`: 128 rows of 32 bytes; row `r` to lane `r`.
    S128x256b,
    /// `.4x256b`: 4 rows of 32 bytes; row `r` to lane `32·r`.
    S4x256b,
    /// `.128x128b`: 128 rows of 16 bytes; row `r` to lane `r`.
    S128x128b,
    /// `.64x128b.warpx2::02_13`: 64 rows of 16 bytes; row `r` to lanes `r` and `64 + r`.
    S64x128bW0213,
    /// `.64x128b.warpx2::01_23`: 64 rows of 16 bytes; row `r` to lanes
    /// `64·(r / 32) + r % 32` and 32 lanes further.
    S64x128bW0123,
    /// `.32x128b.warpx4`: 32 rows of 16 bytes; row `r` to lanes `r`, `32 + r`, `64 + r`,
    /// `96 + r`.
    S32x128bW4,
}

impl Tc05CpShape {
    /// Rows of the source matrix.
    pub fn rows(self) -> u32 {
        match self {
            Tc05CpShape::S128x256b | Tc05CpShape::S128x128b => 128,
            Tc05CpShape::S4x256b => 4,
            Tc05CpShape::S64x128bW0213 | Tc05CpShape::S64x128bW0123 => 64,
            Tc05CpShape::S32x128bW4 => 32,
        }
    }

    /// 32-bit columns of each row (256 bits: 8, 128 bits: 4).
    pub fn columns(self) -> u32 {
        match self {
            Tc05CpShape::S128x256b | Tc05CpShape::S4x256b => 8,
            Tc05CpShape::S128x128b
            | Tc05CpShape::S64x128bW0213
            | Tc05CpShape::S64x128bW0123
            | Tc05CpShape::S32x128bW4 => 4,
        }
    }

    /// The lanes (relative to the address's lane) that row `r` is written to.
    pub fn lanes(self, r: u32) -> Vec<u32> {
        match self {
            Tc05CpShape::S128x256b | Tc05CpShape::S128x128b => vec![r],
            Tc05CpShape::S4x256b => vec![32 * r],
            Tc05CpShape::S64x128bW0213 => vec![r, 64 + r],
            Tc05CpShape::S64x128bW0123 => {
                let l = 64 * (r / 32) + r % 32;
                vec![l, l + 32]
            }
            Tc05CpShape::S32x128bW4 => vec![r, 32 + r, 64 + r, 96 + r],
        }
    }
}

/// The decompression of a `tcgen05.cp` (`.b8x16.b4x16_p64` or `.b8x16.b6x16_p32`, PTX ISA
/// §9.7.16.9.1): each 16-byte group of the source holds sixteen 4-bit elements (8 bytes,
/// then 8 bytes of padding) or sixteen 6-bit ones (12 bytes, then 4), element `j` at bits
/// `w·j` (little-endian); it becomes sixteen bytes, byte `j` holding element `j` in the
/// 8-bit container `tcgen05.mma` reads: a 4-bit element at bits 2-5, a 6-bit one at bits
/// 0-5, the other bits zero (docs/isa-notes.md gives the sources).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tc05CpUnpack {
    /// `.b8x16.b4x16_p64`.
    B4x16P64,
    /// `.b8x16.b6x16_p32`.
    B6x16P32,
}

impl Tc05CpUnpack {
    /// The 16 container bytes of one 16-byte source group.
    pub fn expand(self, group: [u8; 16]) -> [u8; 16] {
        let mut out = [0u8; 16];
        match self {
            Tc05CpUnpack::B4x16P64 => {
                for (j, o) in out.iter_mut().enumerate() {
                    *o = ((group[j / 2] >> (4 * (j % 2))) & 0xf) << 2;
                }
            }
            Tc05CpUnpack::B6x16P32 => {
                let mut bits = [0u8; 16];
                bits[..12].copy_from_slice(&group[..12]);
                let v = u128::from_le_bytes(bits);
                for (j, o) in out.iter_mut().enumerate() {
                    *o = ((v >> (6 * j)) & 0x3f) as u8;
                }
            }
        }
        out
    }
}

/// How a multiply uses a collector buffer: `tcgen05.mma.ws`'s buffer `bN` for B
/// (§9.7.16.10.9.3, `.collector::bN::…`), or `tcgen05.mma{.sp}`'s buffer for A
/// (§9.7.16.10.9.1-2, `.collector::a::…`; below, "the matrix" is B or A).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tc05Collector {
    /// `::fill`: read the matrix from memory and keep it in the buffer.
    Fill,
    /// `::use`: take the matrix from the buffer (kept).
    Use,
    /// `::lastuse`: take the matrix from the buffer, which is then empty.
    LastUse,
    /// `::discard` (also the default): read the matrix from memory, keep nothing.
    Discard,
}

/// Which `tcgen05` operation. Operands of [`crate::ir::Op::Tcgen05`], in order; tensor-memory
/// addresses (`taddr`) are `i32`, shared-memory descriptors `i64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tc05Op {
    /// `tcgen05.alloc.cta_group::N.sync.aligned{.shared::cta}.b32 [dst], nCols`: args (dst: a
    /// shared (`shared`) or generic address, i32 or i64; nCols i32). Allocates nCols columns
    /// (a power of two, 32..=512) and writes the address of column 0, lane 0 of the
    /// allocation to `dst` (4 bytes). With `pair` (`.cta_group::2`) the same columns are
    /// allocated in the tensor memory of both CTAs of the pair once both have asked; one pred
    /// result says whether that has happened (the decoder loops until it has).
    Alloc { shared: bool, pair: bool },
    /// `tcgen05.dealloc.cta_group::N.sync.aligned.b32 taddr, nCols`: args (taddr i32, nCols
    /// i32); the allocation must be exactly the one `alloc` returned. With `pair` the columns
    /// are freed in both CTAs once both have asked, and one pred result says whether that
    /// has happened (as for [`Tc05Op::Alloc`]).
    Dealloc { pair: bool },
    /// `tcgen05.relinquish_alloc_permit.cta_group::N.sync.aligned`: no args; a later `alloc`
    /// by the CTA (with `pair`, by either CTA of the pair) faults.
    Relinquish { pair: bool },
    /// `tcgen05.ld.sync.aligned.shape.num{.pack::16b}.b32 r, [taddr]{, immHalfSplitoff}` and
    /// `tcgen05.ld.red.sync.aligned.shape.num.redOp….type r, redval, [taddr]{, …}`: args
    /// (taddr i32) → [`Tc05Op::regs`] i32 registers, then (`red`) the i32 `redval`. `split`
    /// is `.16x32bx2`'s immHalfSplitoff (0 for the other shapes), added to taddr for the
    /// second access.
    Ld {
        shape: Tc05Shape,
        num: u8,
        pack: bool,
        split: u32,
        red: Option<Tc05Red>,
    },
    /// `tcgen05.st.sync.aligned.shape.num{.unpack::16b}.b32 [taddr]{, immHalfSplitoff}, r`:
    /// args (taddr i32, [`Tc05Op::regs`] i32 registers); `split` as for [`Tc05Op::Ld`].
    St {
        shape: Tc05Shape,
        num: u8,
        unpack: bool,
        split: u32,
    },
    /// `tcgen05.mma{.sp}.cta_group::N.kind [d-tmem], a-desc|[a-tmem], b-desc, {[sp-meta],}
    /// idesc, {disable-output-lane,} enable-input-d{, scale-input-d}`: args (d taddr i32, A:
    /// descriptor i64 or (`a_tmem`) taddr i32, B descriptor i64, idesc i32, enable-input-d
    /// pred, for `.sp` (`sparse`: A holds the stored half of a structured-sparse matrix, PTX
    /// ISA §9.7.16.10.8) the metadata's taddr i32, then with `mask` the four i32 words of
    /// disable-output-lane: bit `l % 32` of word `l / 32` set keeps tensor-memory lane `l` of
    /// D unchanged). `scale_d` is the scale-input-d immediate (0..=15, 0 when absent): the
    /// input D is multiplied by 2^-scale_d. Single-thread: each active lane issues one.
    ///
    /// Block scaling (`.kind::mxf8f6f4`, `::mxf4`, `::mxf4nvf4` with `.block_scale`, PTX ISA
    /// §9.7.16.10.7): `scale_vec` is the scale factors per row of A and column of B (1, 2 or 4:
    /// `.scale_vec::NX`, or what `.block32`/`.block16` alias; 0 without block scaling), and
    /// the operands end with the i32 tensor-memory addresses of scale_A and scale_B (no
    /// disable-output-lane, no scale-input-d); with `.sp` too, the metadata's taddr follows
    /// them (args d, A, B, idesc, enable-input-d, scale_A, scale_B, sp-meta).
    ///
    /// `pair` (`.cta_group::2`, PTX ISA §9.7.16.5): one multiply over the CTA pair (the
    /// CTAs whose `%cluster_ctarank` differ in bit 0): the even CTA holds rows `0..M/2` of A
    /// and D and columns `0..N/2` of B, the odd CTA the rest, each at the same addresses;
    /// disable-output-lane is then eight words.
    ///
    /// `collector` is the `.collector::a::…` use of the CTA's collector buffer for A
    /// (`Discard`, the default, when none is named); `ashift` (`.ashift`, A in tensor
    /// memory only) moves the rows of A in tensor memory one row down after the multiply
    /// has read them (`runtime::tcgen05`, "Collector buffer for A and `.ashift`").
    Mma {
        kind: Tc05Kind,
        a_tmem: bool,
        sparse: bool,
        mask: bool,
        scale_d: u8,
        scale_vec: u8,
        pair: bool,
        collector: Tc05Collector,
        ashift: bool,
    },
    /// `tcgen05.mma.ws{.sp}.cta_group::1.kind{.collector::bN::use} [d-tmem], a-desc|[a-tmem],
    /// b-desc, {[sp-meta],} idesc, enable-input-d{, zero-column-mask-desc}`: operands as
    /// [`Tc05Op::Mma`] (with `sparse`, `.ws.sp`, the metadata's taddr i32 after
    /// enable-input-d), then with `zero_mask` the i64 zero-column mask descriptor (PTX ISA
    /// §9.7.16.4.3); `buffer` is the collector buffer `N` (0..=3, 0 when none is named) and
    /// `collector` its use. Single-thread.
    MmaWs {
        kind: Tc05Kind,
        a_tmem: bool,
        sparse: bool,
        buffer: u8,
        collector: Tc05Collector,
        zero_mask: bool,
    },
    /// `tcgen05.cp.cta_group.shape{.multicast} [taddr], s-desc`: args (taddr i32, s-desc
    /// i64). Copies the shape's matrix from shared memory into tensor memory, each 16-byte
    /// group expanded by `unpack` when given. With `pair` (`.cta_group::2`, PTX ISA
    /// §9.7.16.9.2: "into the Tensor Memory of both the current and the peer CTAs") each CTA
    /// of the pair copies from its own shared memory at s-desc's offsets into its own tensor
    /// memory at `taddr`. Single-thread.
    Cp {
        shape: Tc05CpShape,
        unpack: Option<Tc05CpUnpack>,
        pair: bool,
    },
    /// `tcgen05.shift.cta_group.down [taddr]`: args (taddr i32). Moves rows `0..31` of the
    /// 32 lanes at `taddr` (8 columns) one lane down. Single-thread. With `pair`
    /// (`.cta_group::2`, PTX ISA §9.7.16.9.3: "the shift operation is performed in the Tensor
    /// Memory of both the current and the peer CTAs") the same shift at `taddr` in both.
    Shift { pair: bool },
}

/// The fixed modifiers that place a `tcgen05.ld`/`st`'s cells (PTX ISA §9.7.16.8.3-4):
/// the shape, `.num`, `.pack::16b`/`.unpack::16b` (`packed`: each register holds two 16-bit
/// cells of adjacent columns) and `.16x32bx2`'s immHalfSplitoff (`split`, 0 for the other
/// shapes). [`Tc05Op::ld_st`] gives them for either operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tc05LdSt {
    pub shape: Tc05Shape,
    pub num: u8,
    pub packed: bool,
    pub split: u32,
}

/// The fixed modifiers of a multiply, `tcgen05.mma{.sp}` or `tcgen05.mma.ws{.sp}`, in one
/// shape ([`Tc05Op::mma`] gives them for either): the kind, whether A is in tensor memory,
/// whether A is structured sparse (`.sp`), for `.ws` the collector buffer for B and its use,
/// whether a disable-output-lane mask follows the other operands, the scale-input-d exponent,
/// the block-scaling factors per row (0 without), whether a zero-column mask descriptor
/// follows (`.ws`), whether the multiply is the CTA pair's (`.cta_group::2`), the use of the
/// collector buffer for A (`None` for `.ws`) and `.ashift`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tc05Mma {
    pub kind: Tc05Kind,
    pub a_tmem: bool,
    pub sparse: bool,
    pub ws: Option<(u8, Tc05Collector)>,
    pub lane_mask: bool,
    pub scale_d: u8,
    pub scale_vec: u8,
    pub zero_mask: bool,
    pub pair: bool,
    pub collector_a: Option<Tc05Collector>,
    pub ashift: bool,
}

impl Tc05Op {
    /// The modifiers of an `mma` or `mma.ws`; `None` for the other operations. The one place
    /// that says which operations multiply.
    pub fn mma(&self) -> Option<Tc05Mma> {
        match *self {
            Tc05Op::Mma {
                kind,
                a_tmem,
                sparse,
                mask,
                scale_d,
                scale_vec,
                pair,
                collector,
                ashift,
            } => Some(Tc05Mma {
                kind,
                a_tmem,
                sparse,
                ws: None,
                lane_mask: mask,
                scale_d,
                scale_vec,
                zero_mask: false,
                pair,
                collector_a: Some(collector),
                ashift,
            }),
            Tc05Op::MmaWs {
                kind,
                a_tmem,
                sparse,
                buffer,
                collector,
                zero_mask,
            } => Some(Tc05Mma {
                kind,
                a_tmem,
                sparse,
                ws: Some((buffer, collector)),
                lane_mask: false,
                scale_d: 0,
                scale_vec: 0,
                zero_mask,
                pair: false,
                collector_a: None,
                ashift: false,
            }),
            Tc05Op::Alloc { .. }
            | Tc05Op::Dealloc { .. }
            | Tc05Op::Relinquish { .. }
            | Tc05Op::Ld { .. }
            | Tc05Op::St { .. }
            | Tc05Op::Cp { .. }
            | Tc05Op::Shift { .. } => None,
        }
    }

    /// The data-path modifiers of an `ld` or `st`; `None` for the other operations. The one
    /// place that says which operations move registers to or from tensor memory.
    pub fn ld_st(&self) -> Option<Tc05LdSt> {
        match *self {
            Tc05Op::Ld {
                shape,
                num,
                pack: packed,
                split,
                ..
            }
            | Tc05Op::St {
                shape,
                num,
                unpack: packed,
                split,
            } => Some(Tc05LdSt {
                shape,
                num,
                packed,
                split,
            }),
            Tc05Op::Alloc { .. }
            | Tc05Op::Dealloc { .. }
            | Tc05Op::Relinquish { .. }
            | Tc05Op::Mma { .. }
            | Tc05Op::MmaWs { .. }
            | Tc05Op::Cp { .. }
            | Tc05Op::Shift { .. } => None,
        }
    }

    /// The 32-bit data registers of an `ld`/`st` (0 for the others): `.num` times the
    /// shape's registers per repetition (Table 49; with `.pack::16b`/`.unpack::16b` each holds
    /// two 16-bit cells of adjacent columns). `ld.red`'s `redval` is not counted.
    pub fn regs(&self) -> u32 {
        self.ld_st()
            .map_or(0, |a| a.num as u32 * a.shape.regs_per_num())
    }

    /// The 32-bit columns of each lane one access of an `ld`/`st` reaches (0 for the
    /// others): [`Tc05Shape::columns`], twice that with `.pack::16b`/`.unpack::16b`.
    pub fn columns(&self) -> u32 {
        self.ld_st().map_or(0, |a| {
            a.shape.columns(a.num as u32) * if a.packed { 2 } else { 1 }
        })
    }

    /// Whether the operation waits for the peer CTA (the `.cta_group::2` `alloc`/`dealloc`,
    /// whose pred result says whether the peer's warp has asked too): the decoder loops
    /// around it, and such a loop's lanes yield every time round (`lower::yields`).
    pub fn waits(&self) -> bool {
        matches!(
            self,
            Tc05Op::Alloc { pair: true, .. } | Tc05Op::Dealloc { pair: true }
        )
    }

    /// Whether the operation is a `.sync.aligned` warp collective (the whole warp executes
    /// it together) rather than a single-thread issue.
    pub fn aligned(&self) -> bool {
        match self {
            Tc05Op::Alloc { .. }
            | Tc05Op::Dealloc { .. }
            | Tc05Op::Relinquish { .. }
            | Tc05Op::Ld { .. }
            | Tc05Op::St { .. } => true,
            Tc05Op::Mma { .. }
            | Tc05Op::MmaWs { .. }
            | Tc05Op::Cp { .. }
            | Tc05Op::Shift { .. } => false,
        }
    }
}

ptx_names!(Tc05Shape {
    S32x32b => "32x32b",
    S16x64b => "16x64b",
    S16x128b => "16x128b",
    S16x256b => "16x256b",
    S16x32bx2 => "16x32bx2",
});

ptx_names!(Tc05Kind {
    F16 => "f16",
    Tf32 => "tf32",
    I8 => "i8",
    F8f6f4 => "f8f6f4",
    Mxf8f6f4 => "mxf8f6f4",
    Mxf4 => "mxf4",
    Mxf4nvf4 => "mxf4nvf4",
});

ptx_names!(Tc05CpShape {
    S128x256b => "128x256b",
    S4x256b => "4x256b",
    S128x128b => "128x128b",
    S64x128bW0213 => "64x128b.warpx2::02_13",
    S64x128bW0123 => "64x128b.warpx2::01_23",
    S32x128bW4 => "32x128b.warpx4",
});

ptx_names!(Tc05CpUnpack {
    B4x16P64 => "b8x16.b4x16_p64",
    B6x16P32 => "b8x16.b6x16_p32",
});

ptx_names!(Tc05Collector {
    Fill => "fill",
    Use => "use",
    LastUse => "lastuse",
    Discard => "discard",
});

impl fmt::Display for Tc05Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tc05Op::Alloc { shared, pair } => write!(
                f,
                "alloc{}{}",
                if *pair { ".cta_group::2" } else { "" },
                if *shared { ".shared::cta" } else { "" }
            ),
            Tc05Op::Dealloc { pair } => {
                write!(f, "dealloc{}", if *pair { ".cta_group::2" } else { "" })
            }
            Tc05Op::Relinquish { pair } => write!(
                f,
                "relinquish_alloc_permit{}",
                if *pair { ".cta_group::2" } else { "" }
            ),
            Tc05Op::Ld { .. } | Tc05Op::St { .. } => {
                let Some(a) = self.ld_st() else {
                    return Ok(());
                };
                // `Some(red)` for `ld`.
                let load = if let Tc05Op::Ld { red, .. } = self {
                    Some(*red)
                } else {
                    None
                };
                let op = match load {
                    Some(Some(_)) => "ld.red",
                    Some(None) => "ld",
                    None => "st",
                };
                write!(f, "{op}.{}.x{}", a.shape, a.num)?;
                if a.packed {
                    f.write_str(if load.is_some() {
                        ".pack::16b"
                    } else {
                        ".unpack::16b"
                    })?;
                }
                if let Some(Some(r)) = load {
                    f.write_str(if r.max { ".max" } else { ".min" })?;
                    f.write_str(match r.ty {
                        Tc05RedType::F32 { abs, nan } => match (abs, nan) {
                            (false, false) => ".f32",
                            (true, false) => ".abs.f32",
                            (false, true) => ".NaN.f32",
                            (true, true) => ".abs.NaN.f32",
                        },
                        Tc05RedType::U32 => ".u32",
                        Tc05RedType::S32 => ".s32",
                    })?;
                }
                if a.shape == Tc05Shape::S16x32bx2 {
                    write!(f, " split={}", a.split)?;
                }
                Ok(())
            }
            Tc05Op::Mma { .. } | Tc05Op::MmaWs { .. } => {
                let Some(m) = self.mma() else {
                    return Ok(());
                };
                let sp = if m.sparse { ".sp" } else { "" };
                let a = if m.a_tmem { " a=tmem" } else { " a=desc" };
                let kind = m.kind;
                if let Some((buffer, collector)) = m.ws {
                    let zero = if m.zero_mask { " zero-column-mask" } else { "" };
                    return write!(
                        f,
                        "mma.ws{sp}.kind::{kind}.collector::b{buffer}::{collector}{a}{zero}"
                    );
                }
                let pair = if m.pair { ".cta_group::2" } else { "" };
                write!(f, "mma{sp}{pair}.kind::{kind}")?;
                if m.scale_vec != 0 {
                    write!(f, ".block_scale.scale_vec::{}X", m.scale_vec)?;
                }
                if let Some(c) = m.collector_a.filter(|c| *c != Tc05Collector::Discard) {
                    write!(f, ".collector::a::{c}")?;
                }
                if m.ashift {
                    f.write_str(".ashift")?;
                }
                f.write_str(a)?;
                if m.lane_mask {
                    f.write_str(" disable-output-lane")?;
                }
                if m.scale_d != 0 {
                    write!(f, " scale-input-d={}", m.scale_d)?;
                }
                Ok(())
            }
            Tc05Op::Cp {
                shape,
                unpack,
                pair,
            } => {
                write!(f, "cp.cta_group::{}.{shape}", if *pair { 2 } else { 1 })?;
                match unpack {
                    None => Ok(()),
                    Some(u) => write!(f, ".{u}"),
                }
            }
            Tc05Op::Shift { pair } => {
                write!(f, "shift.cta_group::{}.down", if *pair { 2 } else { 1 })
            }
        }
    }
}
