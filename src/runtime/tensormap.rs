//! Tensor maps: the 128-byte descriptors of the tensor memory accelerator (TMA), which
//! `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor` and `cp.async.bulk.prefetch.tensor`
//! (PTX ISA §9.7.9.25.5) take and `tensormap.replace` (§9.7.9.26) edits. The host builds one
//! as CUDA's `cuTensorMapEncodeTiled` ([`TensorMap::encode_tiled`]), `cuTensorMapEncodeIm2col`
//! ([`TensorMap::encode_im2col`]) or `cuTensorMapEncodeIm2colWide`
//! ([`TensorMap::encode_im2col_wide`]) does, with the same argument checks.
//!
//! # The object
//! CUDA calls a tensor map opaque (`CUtensorMap`: 16 × u64, 64-byte aligned). ptxjit's layout,
//! all fields little-endian (docs/tensor-maps.md gives the same table):
//!
//! | bytes   | field |
//! |---------|-------|
//! | 0–7     | global address (16-byte aligned) |
//! | 8–11    | magic `0x504d_5424` ("$TMP"): the bytes are a tensor map |
//! | 12      | rank, 1 ..= 5 |
//! | 13      | element type: `CUtensorMapDataType` (0 u8 … 12 tf32.ftz; 13–15 the packed types, from `tensormap.replace` only, refused by copies) |
//! | 14      | interleave: 0 none, 1 16B, 2 32B |
//! | 15      | swizzle: 0 none, 1 32B, 2 64B, 3 128B (4, the 96B swizzle, from `tensormap.replace` only, refused by copies) |
//! | 16      | L2 promotion: 0 none, 1 64B, 2 128B, 3 256B (a hint) |
//! | 17      | OOB fill: 0 zeros, 1 NaN (`NAN_REQUEST_ZERO_FMA`) |
//! | 18      | mode: 0 tiled, 1 im2col, 2 im2col-wide W, 3 im2col-wide W128 |
//! | 19      | swizzle atomicity (128B swizzle only): 0 16B, 1 32B, 2 32B with 8B flip, 3 64B |
//! | 20–23   | allocation class (PTX ISA 9.5 `tensormap.replace` `.alloc_small` 0, `.alloc_large` 1; `decode_tma.rs`): 0 here |
//! | 24–43   | global dims − 1, u32 × 5 (dim 0 innermost) |
//! | 44–47   | 0 |
//! | 48–79   | global strides in bytes of dims 1..=4, u64 × 4 |
//! | 80–89   | box dims − 1, u16 × 5 |
//! | 90–94   | element strides − 1, u8 × 5 |
//! | 95      | 0 |
//! | 96–101  | im2col: pixel box lower corner, i16 × 3 (W, H, D: dims 1 ..= rank − 2; W only when wide) |
//! | 102–107 | im2col: pixel box upper corner, i16 × 3 |
//! | 108–109 | im2col: channels per pixel − 1, u16 |
//! | 110–111 | im2col: pixels per column − 1, u16 (127 in W128 mode) |
//! | 112–127 | 0 |
//!
//! Dims beyond the rank hold dim 1, box 1, stride 1 (their fields 0); an im2col map's box
//! fields are 0 (box 1) and its corners beyond rank − 2 are 0.

use crate::ir::TmapField;

/// Size of a tensor map in bytes (`CU_TENSOR_MAP_NUM_QWORDS` × 8).
pub const TENSOR_MAP_BYTES: usize = 128;
/// The magic word at bytes 8..12.
pub const MAGIC: u32 = 0x504d_5424;

/// Element types of a tensor map (`CUtensorMapDataType` numbers; the `.elemtype` values of
/// `tensormap.replace` number them differently: [`TmapType::from_elemtype`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TmapType {
    U8,
    U16,
    U32,
    S32,
    U64,
    S64,
    F16,
    F32,
    F64,
    Bf16,
    F32Ftz,
    Tf32,
    Tf32Ftz,
    /// 13, `16U4_ALIGN8B` (`.b4x16`, PTX ISA §5.5.1.1.1): 4-bit elements packed in global
    /// and shared memory alike.
    B4x16,
    /// 14, `16U4_ALIGN16B` (`.b4x16_p64`): sixteen packed 4-bit elements (8 bytes) then 8
    /// bytes of padding per 16 elements in shared memory; loads only.
    B4x16P64,
    /// 15, `16U6_ALIGN16B`: `.b6x16_p32` in a load (sixteen packed 6-bit elements, 12 bytes,
    /// then 4 bytes of padding in shared memory), `.b6p2x16` in a store (one element per
    /// shared byte, bits 0-5, the two high bits dropped).
    B6x16P32,
}

/// Bit `w·j` of a little-endian run: where packed element `j` of `w` bits starts (PTX ISA
/// §5.5.1.1.1 packs the sub-byte types contiguously; lower elements in lower bits is
/// ptxjit's reading, the one its `tcgen05.mma` and `tcgen05.cp` decompression read back).
pub fn packed_bit(w: u64, j: u64) -> u64 {
    w * j
}

impl TmapType {
    /// The packed sub-byte types from their `CUtensorMapDataType` number (13–15), which a
    /// tensor map holds only when `tensormap.replace.elemtype` wrote it.
    pub fn packed_from_code(c: u32) -> Option<TmapType> {
        match c {
            13 => Some(TmapType::B4x16),
            14 => Some(TmapType::B4x16P64),
            15 => Some(TmapType::B6x16P32),
            _ => None,
        }
    }

    /// Whether this is one of the packed sub-byte types.
    pub fn is_packed(self) -> bool {
        matches!(
            self,
            TmapType::B4x16 | TmapType::B4x16P64 | TmapType::B6x16P32
        )
    }

    /// Bits of one element in global memory (4 or 6 for the packed types).
    pub fn global_bits(self) -> u64 {
        match self {
            TmapType::B4x16 | TmapType::B4x16P64 => 4,
            TmapType::B6x16P32 => 6,
            t => 8 * t.bytes(),
        }
    }

    /// Bits one element takes in shared memory, padding included (`.b4x16`: 4; `.b4x16_p64`
    /// and `.b6x16_p32`/`.b6p2x16`: 16 bytes per 16 elements).
    pub fn shared_bits(self) -> u64 {
        match self {
            TmapType::B4x16 => 4,
            TmapType::B4x16P64 | TmapType::B6x16P32 => 8,
            t => 8 * t.bytes(),
        }
    }

    /// The PTX name of a packed type in a copy's direction (`load`: into shared memory).
    pub fn packed_name(self, load: bool) -> &'static str {
        match self {
            TmapType::B4x16 => ".b4x16",
            TmapType::B4x16P64 => ".b4x16_p64",
            TmapType::B6x16P32 if load => ".b6x16_p32",
            TmapType::B6x16P32 => ".b6p2x16",
            _ => "",
        }
    }

    /// From its `CUtensorMapDataType` number; the packed sub-byte types (13–15) are `None`.
    pub fn from_code(c: u32) -> Option<TmapType> {
        use TmapType::*;
        Some(match c {
            0 => U8,
            1 => U16,
            2 => U32,
            3 => S32,
            4 => U64,
            5 => S64,
            6 => F16,
            7 => F32,
            8 => F64,
            9 => Bf16,
            10 => F32Ftz,
            11 => Tf32,
            12 => Tf32Ftz,
            _ => return None,
        })
    }

    /// From a `.elemtype` value of `tensormap.replace` (PTX ISA §9.7.9.26, Table 33: 0 u8,
    /// 1 u16, 2 u32, 3 s32, 4 u64, 5 s64, 6 f16, 7 f32, 8 f32.ftz, 9 f64, 10 bf16, 11 tf32,
    /// 12 tf32.ftz; "The values of .elemtype do not correspond to the values of the
    /// CUtensorMapDataType enum"); the packed sub-byte types (13–15) are `None`.
    pub fn from_elemtype(v: u32) -> Option<TmapType> {
        use TmapType::*;
        Some(match v {
            8 => F32Ftz,
            9 => F64,
            10 => Bf16,
            0..=7 | 11 | 12 => return TmapType::from_code(v),
            _ => return None,
        })
    }

    /// Its `CUtensorMapDataType` number.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// Bytes of one element (the packed types: 1, their shared-memory byte per element at
    /// most; their copies use [`TmapType::global_bits`] and [`TmapType::shared_bits`]).
    pub fn bytes(self) -> u64 {
        use TmapType::*;
        match self {
            U8 | B4x16 | B4x16P64 | B6x16P32 => 1,
            U16 | F16 | Bf16 => 2,
            U32 | S32 | F32 | F32Ftz | Tf32 | Tf32Ftz => 4,
            U64 | S64 | F64 => 8,
        }
    }

    /// Whether the elements are floating point (a NaN OOB fill is allowed).
    pub fn is_float(self) -> bool {
        use TmapType::*;
        match self {
            F16 | F32 | F64 | Bf16 | F32Ftz | Tf32 | Tf32Ftz => true,
            U8 | U16 | U32 | S32 | U64 | S64 | B4x16 | B4x16P64 | B6x16P32 => false,
        }
    }

    /// The bits out-of-bound elements read as with a NaN fill: ptxjit's choice of NaN (CUDA
    /// names "a special NaN constant" without its bits): the canonical quiet NaN with all
    /// payload bits set (`0x7fff` for 16-bit, `0x7fffffff`, `0x7fff_ffff_ffff_ffff`).
    pub fn nan_bits(self) -> u64 {
        match self.bytes() {
            2 => 0x7fff,
            4 => 0x7fff_ffff,
            _ => 0x7fff_ffff_ffff_ffff,
        }
    }
}

/// The W-only modes of an im2col map (`CUtensorMapIm2ColWideMode`; PTX ISA §5.5.5
/// "im2col::w and im2col::w::128 modes"): which of `.im2col::w` and `.im2col::w::128` copies
/// the map serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Im2colWide {
    /// `CU_TENSOR_MAP_IM2COL_WIDE_MODE_W` (0): pixels per column pixels along W.
    W,
    /// `CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128` (1): always 128 pixels along W.
    W128,
}

/// The im2col-mode fields of a tensor map (PTX ISA §5.5.4 "im2col mode";
/// `cuTensorMapEncodeIm2col`; §5.5.5 and `cuTensorMapEncodeIm2colWide` with `wide`).
/// Spatial dimension `k` (0 = W, 1 = H, 2 = D) is tensor dimension `k + 1`; only the first
/// `rank − 2` are meaningful (only W's in the wide modes, whose box is one H and D position).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Im2col {
    /// Bounding-box lower corner: the smallest filter-base coordinate, as an offset from 0.
    pub lower: [i32; 3],
    /// Bounding-box upper corner: the largest filter-base coordinate, as an offset from the
    /// dimension's last element (`dims[k + 1] − 1 + upper[k]`).
    pub upper: [i32; 3],
    /// Elements accessed along C (dimension 0) per pixel, 1 ..= 256.
    pub channels: u32,
    /// Pixels accessed in the N·D·H·W space, 1 ..= 1024 (128 in the W128 mode).
    pub pixels: u32,
    /// The W-only mode of a `cuTensorMapEncodeIm2colWide` map (`None`: plain im2col).
    pub wide: Option<Im2colWide>,
}

impl Im2col {
    /// The inclusive filter-base range `[lo, hi]` of spatial dimension `k` of a tensor whose
    /// tensor dimension `k + 1` holds `dim` elements.
    pub fn range(&self, k: usize, dim: u64) -> (i64, i64) {
        (self.lower[k] as i64, dim as i64 - 1 + self.upper[k] as i64)
    }
}

/// The limit of a pixel-box corner for a tensor of `rank` (3 ..= 5): 16-bit corners for 3D,
/// 8-bit for 4D, 5-bit for 5D (`cuTensorMapEncodeIm2col`; PTX ISA §5.5.4.1), as
/// (lowest, highest).
pub fn corner_limits(rank: u32) -> (i32, i32) {
    match rank {
        3 => (-32768, 32767),
        4 => (-128, 127),
        _ => (-16, 15),
    }
}

/// A decoded tensor map (tile or im2col mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorMap {
    pub global_address: u64,
    pub rank: u32,
    pub dtype: TmapType,
    /// 0 none, 1 16B, 2 32B (`CUtensorMapInterleave`).
    pub interleave: u8,
    /// 0 none, 1 32B, 2 64B, 3 128B (`CUtensorMapSwizzle` 0..=3).
    pub swizzle: u8,
    /// The swizzle's atomicity, as `tensormap.replace.swizzle_atomicity` numbers it (PTX ISA
    /// §9.7.9.26 Table 33): 0 16B, 1 32B, 2 32B with an 8B flip, 3 64B. Only the 128B swizzle
    /// takes one other than 16B (§5.5.7 Table 14; checked when a copy uses the map).
    /// `cuTensorMapEncodeTiled`'s `CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B`, `_ATOM_32B_FLIP_8B`
    /// and `_ATOM_64B` (4, 5, 6) are the 128B swizzle with atomicity 1, 2, 3.
    pub swizzle_atomicity: u8,
    /// 0 none .. 3 256B (`CUtensorMapL2promotion`).
    pub l2_promotion: u8,
    /// Out-of-bound float elements read as NaN (else zero).
    pub nan_fill: bool,
    /// Elements per dimension (dim 0 innermost), 1 ..= 2^32; 1 beyond the rank.
    pub dims: [u64; 5],
    /// Byte strides of dims 1..=4 (dim 0's stride is the element size).
    pub strides: [u64; 4],
    /// Box size per dimension, 1 ..= 256.
    pub box_dims: [u32; 5],
    /// Traversal strides per dimension, 1 ..= 8.
    pub element_strides: [u32; 5],
    /// The im2col-mode fields (`None`: tile mode).
    pub im2col: Option<Im2col>,
}

/// An argument `cuTensorMapEncodeTiled` rejects: the message names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError(pub String);

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EncodeError {}

/// The swizzle span in bytes of a swizzle mode (0 for none).
pub fn swizzle_bytes(swizzle: u8) -> u64 {
    match swizzle {
        1 => 32,
        2 => 64,
        3 => 128,
        4 => 96,
        _ => 0,
    }
}

/// The shared-memory byte address of byte address `addr` of a box written densely, under
/// swizzle mode `swizzle` with atomicity `atomicity` (PTX ISA §5.5.7 "Swizzling Modes"; CUDA
/// C++ Programming Guide, "Tensor Memory Access: swizzle"). With 16-byte atomicity the
/// 16-byte chunk index within each 128-byte row (address bits 4..) is XORed with the row
/// index within the pattern's repeat of 256, 512 or 1024 bytes (address bits 7..): 1, 2 or
/// 3 bits for 32B, 64B and 128B. The 128B swizzle's other atomicities keep larger units
/// whole (the ISA's tables): 32 bytes — the 32-byte unit index (bits 5–6) XORed with the row
/// within 4 rows (bits 7–8); 32 bytes with an 8-byte flip — the same, and in every other
/// row (odd rows: bit 7) the two 8-byte halves of each 16 bytes exchanged (bit 3); 64 bytes
/// — the 64-byte half (bit 6) XORed with the row within 2 (bit 7). The 96B swizzle (mode 4,
/// §5.5.7's table for it: rows of eight 16-byte chunks, the odd rows' chunks exchanged in
/// pairs, the pattern repeating every 256 bytes, base offset `(dstMem / 128) % 2`) is the
/// same permutation as 32B's: chunk bit 4 XORed with row bit 7. Elements are at most 8
/// bytes and aligned, so no element is split. An atomicity other than 16B with another mode
/// is not a pattern the ISA defines: [`swizzle_combination`] rejects it first.
pub fn swizzle(swizzle: u8, atomicity: u8, addr: u64) -> u64 {
    let row = addr >> 7;
    match (swizzle, atomicity) {
        (1, _) | (4, _) => addr ^ ((row & 1) << 4),
        (2, _) => addr ^ ((row & 3) << 4),
        (3, 1) => addr ^ ((row & 3) << 5),
        (3, 2) => addr ^ ((row & 3) << 5) ^ ((row & 1) << 3),
        (3, 3) => addr ^ ((row & 1) << 6),
        (3, _) => addr ^ ((row & 7) << 4),
        _ => addr,
    }
}

/// Checks a swizzle mode and atomicity against the ISA's valid combinations (PTX ISA §5.5.7
/// Table 14: 16B with every swizzle, 32B, 32B + 8B flip and 64B with the 128B swizzle only)
/// and the 8-byte flip's restrictions (§9.7.9.25.5.1: global → shared copies only, not in
/// the `.im2col::w` modes): `load` is a copy into shared memory, `wide` an `.im2col::w` one.
pub fn swizzle_combination(
    swizzle: u8,
    atomicity: u8,
    load: bool,
    wide: bool,
) -> Result<(), String> {
    let name = ["16B", "32B", "32B with an 8B flip", "64B"]
        .get(atomicity as usize)
        .copied()
        .unwrap_or("out of range");
    if atomicity > 3 || (atomicity != 0 && swizzle != 3) {
        return Err(format!(
            "swizzle atomicity {atomicity} ({name}) with swizzle mode {swizzle}: only the 128B \
             swizzle takes an atomicity other than 16B (PTX ISA §5.5.7, Table 14)"
        ));
    }
    if atomicity == 2 && (!load || wide) {
        return Err(
            "the 128B swizzle with 32B atomicity and an 8B flip is for global → shared \
                    copies only, not .im2col::w (PTX ISA §9.7.9.25.5.1)"
                .to_string(),
        );
    }
    Ok(())
}

fn err(s: String) -> Result<(), EncodeError> {
    Err(EncodeError(s))
}

impl TensorMap {
    /// Build a tile-mode tensor map as `cuTensorMapEncodeTiled` does (CUDA Driver API,
    /// "Tensor Map Object Management"), with its argument checks: `dtype` a
    /// `CUtensorMapDataType` (13 ..= 15: the packed 4- and 6-bit types, dimension 0 counted in
    /// their elements), `rank` 1 ..= 5 (≥ 3 when interleaved), `global_address` 16-byte
    /// aligned (32 with a 32B interleave or a padded packed type, 16U4_ALIGN16B and
    /// 16U6_ALIGN16B), `dims[..rank]` in 1 ..= 2^32 (`dims[0]` a multiple of 128 for a padded
    /// packed type, of 2 for 16U4_ALIGN8B), `strides[..rank-1]` multiples of 16 (32 with a 32B
    /// interleave or a padded packed type) below 2^40, `box_dims[..rank]` in 1 ..= 256 with
    /// `box_dims[0]` × element size a multiple of 16 bytes when not interleaved (128 elements
    /// for a padded packed type) and its shared-memory bytes at most the swizzle span when
    /// swizzled (a padded packed type takes the swizzles its documentation lists; 16U6_ALIGN16B
    /// no interleave), `element_strides[..rank]` in 1 ..= 8, `interleave` 0 ..= 2 (32B needs the 32B
    /// swizzle), `swizzle` 0 ..= 6 (4 ..= 6: the 128B swizzle with 32B, 32B + 8B-flip or 64B
    /// atomicity, [`TensorMap::swizzle_atomicity`]), `l2_promotion`
    /// 0 ..= 3, `oob_fill` 0 ..= 1 (1 only for float types). An error names the argument.
    #[allow(clippy::too_many_arguments)]
    pub fn encode_tiled(
        dtype: u32,
        rank: u32,
        global_address: u64,
        dims: &[u64],
        strides: &[u64],
        box_dims: &[u32],
        element_strides: &[u32],
        interleave: u32,
        swizzle: u32,
        l2_promotion: u32,
        oob_fill: u32,
    ) -> Result<TensorMap, EncodeError> {
        let Some(ty) = TmapType::from_code(dtype).or_else(|| TmapType::packed_from_code(dtype))
        else {
            return Err(EncodeError(format!(
                "tensorDataType {dtype} is not a CUtensorMapDataType (0..=15)"
            )));
        };
        if !(1..=5).contains(&rank) {
            err(format!("tensorRank {rank} is outside 1..=5"))?;
        }
        let r = rank as usize;
        if interleave > 2 {
            err(format!(
                "interleave {interleave} is not a CUtensorMapInterleave (0..=2)"
            ))?;
        }
        if interleave != 0 && rank < 3 {
            err(format!(
                "tensorRank {rank}: an interleaved layout needs a rank of at least 3"
            ))?;
        }
        if swizzle > 6 {
            err(format!(
                "swizzle {swizzle} is not a CUtensorMapSwizzle (0..=6: NONE, 32B, 64B, 128B, 128B_ATOM_32B, 128B_ATOM_32B_FLIP_8B, 128B_ATOM_64B)"
            ))?;
        }
        // The 128B-atom modes are the 128B swizzle with a larger atomicity.
        let (swizzle, atomicity) = match swizzle {
            4..=6 => (3, swizzle - 3),
            s => (s, 0),
        };
        if interleave == 2 && swizzle != 1 {
            err(
                "swizzle must be CU_TENSOR_MAP_SWIZZLE_32B with CU_TENSOR_MAP_INTERLEAVE_32B"
                    .into(),
            )?;
        }
        if l2_promotion > 3 {
            err(format!(
                "l2Promotion {l2_promotion} is not a CUtensorMapL2promotion (0..=3)"
            ))?;
        }
        if oob_fill > 1 {
            err(format!(
                "oobFill {oob_fill} is not a CUtensorMapFloatOOBfill (0..=1)"
            ))?;
        }
        if oob_fill == 1 && !ty.is_float() {
            err("oobFill CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA needs a floating-point tensorDataType".into())?;
        }
        // The padded packed types (16U4_ALIGN16B, 16U6_ALIGN16B) move 32-byte units.
        let padded = matches!(ty, TmapType::B4x16P64 | TmapType::B6x16P32);
        if ty == TmapType::B6x16P32 && interleave != 0 {
            err("tensorDataType CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B needs CU_TENSOR_MAP_INTERLEAVE_NONE".into())?;
        }
        if padded {
            // cuTensorMapEncodeTiled's documentation: 16U6_ALIGN16B takes NONE, 128B,
            // 128B_ATOM_32B and (stores only) 128B_ATOM_64B; 16U4_ALIGN16B NONE, 128B and
            // 128B_ATOM_32B (loads only, as the type is).
            let ok: &[u32] = if ty == TmapType::B6x16P32 {
                &[0, 3, 4, 6]
            } else {
                &[0, 3, 4]
            };
            if !ok.contains(&(swizzle + atomicity)) {
                err(format!(
                    "swizzle {} is not one tensorDataType {dtype} takes ({})",
                    swizzle + atomicity,
                    if ty == TmapType::B6x16P32 {
                        "NONE, 128B, 128B_ATOM_32B or 128B_ATOM_64B"
                    } else {
                        "NONE, 128B or 128B_ATOM_32B"
                    }
                ))?;
            }
        }
        let align = if interleave == 2 || padded { 32 } else { 16 };
        if !global_address.is_multiple_of(align) {
            err(format!(
                "globalAddress {global_address:#x} is not {align}-byte aligned"
            ))?;
        }
        if dims.len() < r || box_dims.len() < r || element_strides.len() < r {
            err(format!(
                "globalDim, boxDim and elementStrides need tensorRank ({rank}) entries"
            ))?;
        }
        if strides.len() < r - 1 {
            err(format!(
                "globalStrides needs tensorRank - 1 ({}) entries",
                r - 1
            ))?;
        }
        let mut m = TensorMap {
            global_address,
            rank,
            dtype: ty,
            interleave: interleave as u8,
            swizzle: swizzle as u8,
            swizzle_atomicity: atomicity as u8,
            l2_promotion: l2_promotion as u8,
            nan_fill: oob_fill == 1,
            dims: [1; 5],
            strides: [0; 4],
            box_dims: [1; 5],
            element_strides: [1; 5],
            im2col: None,
        };
        for i in 0..r {
            let d = dims[i];
            if d == 0 || d > 1 << 32 {
                err(format!("globalDim[{i}] = {d} is outside 1..=2^32"))?;
            }
            if i == 0 && padded && !d.is_multiple_of(128) {
                err(format!(
                    "globalDim[0] = {d} is not a multiple of 128 (tensorDataType {dtype})"
                ))?;
            }
            if i == 0 && ty == TmapType::B4x16 && !d.is_multiple_of(2) {
                err(format!(
                    "globalDim[0] = {d} is not a multiple of 2 (tensorDataType {dtype})"
                ))?;
            }
            m.dims[i] = d;
            let b = box_dims[i];
            if b == 0 || b > 256 {
                err(format!("boxDim[{i}] = {b} is outside 1..=256"))?;
            }
            m.box_dims[i] = b;
            let e = element_strides[i];
            if e == 0 || e > 8 {
                err(format!("elementStrides[{i}] = {e} is outside 1..=8"))?;
            }
            m.element_strides[i] = e;
        }
        let smult = if interleave == 2 || padded { 32 } else { 16 };
        for (i, &s) in strides.iter().enumerate().take(r - 1) {
            if !s.is_multiple_of(smult) || s >= 1 << 40 {
                err(format!(
                    "globalStrides[{i}] = {s} is not a multiple of {smult} below 2^40"
                ))?;
            }
            m.strides[i] = s;
        }
        for i in r - 1..4 {
            // Dimensions beyond the rank: one element; the stride of the last real one.
            m.strides[i] = m.strides.get(i.wrapping_sub(1)).copied().unwrap_or(0);
        }
        // A box row in global memory (packed) and in shared memory (padding included), in
        // bits: the packed types count 4- or 6-bit elements.
        let (gbits, sbits) = (
            m.box_dims[0] as u64 * ty.global_bits(),
            m.box_dims[0] as u64 * ty.shared_bits(),
        );
        let esize = if ty.is_packed() {
            format!("{} bits", ty.global_bits())
        } else {
            format!("{} bytes", ty.bytes())
        };
        if padded && m.box_dims[0] != 128 {
            err(format!(
                "boxDim[0] = {} is not 128 (tensorDataType {dtype})",
                m.box_dims[0]
            ))?;
        }
        if interleave == 0 && !gbits.is_multiple_of(128) {
            err(format!(
                "boxDim[0] = {} × {esize} is not a multiple of 16 bytes",
                m.box_dims[0]
            ))?;
        }
        let span = swizzle_bytes(m.swizzle);
        if interleave == 0 && span != 0 && sbits / 8 > span {
            err(format!(
                "boxDim[0] = {} × {esize} = {} bytes in shared memory is more than the swizzle's {span} bytes",
                m.box_dims[0],
                sbits / 8
            ))?;
        }
        Ok(m)
    }

    /// Build an im2col-mode tensor map as `cuTensorMapEncodeIm2col` does (CUDA Driver API,
    /// "Tensor Map Object Management"; PTX ISA §5.5.4): the arguments and checks of
    /// [`encode_tiled`](Self::encode_tiled) but the box, `rank` 3 ..= 5, `lower` and `upper`
    /// the pixel-box corners of the `rank − 2` spatial dimensions (W, H, D: tensor dimensions
    /// 1 ..) each in `corner_limits(rank)`, with a bounding box of at least one position
    /// (`lower[k] <= dims[k + 1] − 1 + upper[k]`), `channels` (channelsPerPixel) 1 ..= 256 and
    /// at most the swizzle span in bytes when swizzled, `pixels` (pixelsPerColumn)
    /// 1 ..= 1024. ptxjit also needs channels × element size to be a multiple of 16 bytes
    /// (the shared-memory row of a pixel; other sizes are not supported). An error names the
    /// argument.
    #[allow(clippy::too_many_arguments)]
    pub fn encode_im2col(
        dtype: u32,
        rank: u32,
        global_address: u64,
        dims: &[u64],
        strides: &[u64],
        lower: &[i32],
        upper: &[i32],
        channels: u32,
        pixels: u32,
        element_strides: &[u32],
        interleave: u32,
        swizzle: u32,
        l2_promotion: u32,
        oob_fill: u32,
    ) -> Result<TensorMap, EncodeError> {
        if !(3..=5).contains(&rank) {
            err(format!("tensorRank {rank} is outside 3..=5 (im2col)"))?;
        }
        let s = rank as usize - 2;
        if lower.len() < s || upper.len() < s {
            err(format!(
                "pixelBoxLowerCorner and pixelBoxUpperCorner need tensorRank - 2 ({s}) entries"
            ))?;
        }
        let corners = |c: &[i32]| std::array::from_fn(|k| if k < s { c[k] } else { 0 });
        let ic = Im2col {
            lower: corners(lower),
            upper: corners(upper),
            channels,
            pixels,
            wide: None,
        };
        let (lo, hi) = corner_limits(rank);
        TensorMap::encode_im2col_any(
            dtype,
            rank,
            global_address,
            dims,
            strides,
            ic,
            (lo, hi, ""),
            element_strides,
            [interleave, swizzle, l2_promotion, oob_fill],
        )
    }

    /// Build a W-only im2col map as `cuTensorMapEncodeIm2colWide` does (CUDA Driver API,
    /// "Tensor Map Object Management", CUDA 12.8; PTX ISA §5.5.5): the checks of
    /// [`encode_im2col`](Self::encode_im2col) with one pixel-box corner pair, `lower_w` and
    /// `upper_w` (the bounding box of W: `[lower_w, dims[1] − 1 + upper_w]`, non-empty), each
    /// in −32768 ..= 32767 whatever the rank; `mode` a `CUtensorMapIm2ColWideMode` (0 W:
    /// `pixels` pixels, 1 ..= 1024; 1 W128: 128 pixels, `pixels` ignored); `interleave` none
    /// (ISA §5.5.6: no interleaved layout in these modes); `swizzle` 64B, 128B or
    /// `128B_ATOM_32B` (2, 3, 4). An error names the argument.
    #[allow(clippy::too_many_arguments)]
    pub fn encode_im2col_wide(
        dtype: u32,
        rank: u32,
        global_address: u64,
        dims: &[u64],
        strides: &[u64],
        lower_w: i32,
        upper_w: i32,
        channels: u32,
        pixels: u32,
        element_strides: &[u32],
        interleave: u32,
        mode: u32,
        swizzle: u32,
        l2_promotion: u32,
        oob_fill: u32,
    ) -> Result<TensorMap, EncodeError> {
        if !(3..=5).contains(&rank) {
            err(format!("tensorRank {rank} is outside 3..=5 (im2col)"))?;
        }
        let wide = match mode {
            0 => Im2colWide::W,
            1 => Im2colWide::W128,
            _ => {
                return Err(EncodeError(format!(
                    "mode {mode} is not a CUtensorMapIm2ColWideMode (0 W, 1 W128)"
                )))
            }
        };
        if interleave != 0 {
            err(format!(
                "interleave {interleave}: the W-only im2col modes take no interleaved layout (CU_TENSOR_MAP_INTERLEAVE_NONE only)"
            ))?;
        }
        match swizzle {
            2..=4 => {}
            _ => err(format!(
                "swizzle {swizzle}: cuTensorMapEncodeIm2colWide takes CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_128B or CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B (2, 3, 4)"
            ))?,
        }
        let ic = Im2col {
            lower: [lower_w, 0, 0],
            upper: [upper_w, 0, 0],
            channels,
            pixels: if wide == Im2colWide::W128 {
                128
            } else {
                pixels
            },
            wide: Some(wide),
        };
        TensorMap::encode_im2col_any(
            dtype,
            rank,
            global_address,
            dims,
            strides,
            ic,
            (-32768, 32767, "Width"),
            element_strides,
            [interleave, swizzle, l2_promotion, oob_fill],
        )
    }

    /// The checks both im2col encoders make, then `encode_tiled`'s with a box of `channels`
    /// along C: the corners of `ic` (named `pixelBox{Lower,Upper}Corner{suffix}`) in
    /// `lo ..= hi` with a non-empty bounding box, channelsPerPixel and pixelsPerColumn in
    /// range, channels × element size within the swizzle span and a multiple of 16 bytes.
    /// `modes` are (interleave, swizzle, l2Promotion, oobFill).
    #[allow(clippy::too_many_arguments)]
    fn encode_im2col_any(
        dtype: u32,
        rank: u32,
        global_address: u64,
        dims: &[u64],
        strides: &[u64],
        ic: Im2col,
        (lo, hi, suffix): (i32, i32, &str),
        element_strides: &[u32],
        [interleave, swizzle, l2_promotion, oob_fill]: [u32; 4],
    ) -> Result<TensorMap, EncodeError> {
        if dims.len() < rank as usize {
            err(format!("globalDim needs tensorRank ({rank}) entries"))?;
        }
        let spatial = if ic.wide.is_some() {
            1
        } else {
            rank as usize - 2
        };
        for k in 0..spatial {
            let idx = |n: &str| {
                if suffix.is_empty() {
                    format!("{n}[{k}]")
                } else {
                    format!("{n}{suffix}")
                }
            };
            for (name, v) in [
                ("pixelBoxLowerCorner", ic.lower[k]),
                ("pixelBoxUpperCorner", ic.upper[k]),
            ] {
                if !(lo..=hi).contains(&v) {
                    err(format!(
                        "{} = {v} is outside {lo}..={hi} (tensorRank {rank})",
                        idx(name)
                    ))?;
                }
            }
            if ic.lower[k] as i64 > dims[k + 1] as i64 - 1 + ic.upper[k] as i64 {
                err(format!(
                    "{} = {} and {} = {} leave an empty bounding box (globalDim[{}] = {})",
                    idx("pixelBoxLowerCorner"),
                    ic.lower[k],
                    idx("pixelBoxUpperCorner"),
                    ic.upper[k],
                    k + 1,
                    dims[k + 1]
                ))?;
            }
        }
        let channels = ic.channels;
        if !(1..=256).contains(&channels) {
            err(format!("channelsPerPixel {channels} is outside 1..=256"))?;
        }
        if !(1..=1024).contains(&ic.pixels) {
            err(format!("pixelsPerColumn {} is outside 1..=1024", ic.pixels))?;
        }
        // A pixel's channels in shared memory (a packed type's padding included) and in
        // global memory, in bits.
        let ty = TmapType::from_code(dtype).or_else(|| TmapType::packed_from_code(dtype));
        let (sbits, gbits) = ty.map_or((8, 8), |t| (t.shared_bits(), t.global_bits()));
        let esize = match ty {
            Some(t) if t.is_packed() => format!("{gbits} bits"),
            _ => format!("{} bytes", gbits / 8),
        };
        let inner = channels as u64 * sbits / 8;
        // The 128B-atom modes (4..=6) span 128 bytes.
        let span = swizzle_bytes(swizzle.min(3) as u8);
        if interleave == 0 && span != 0 && inner > span {
            err(format!(
                "channelsPerPixel {channels} × {esize} = {inner} bytes in shared memory is more than the swizzle's {span} bytes"
            ))?;
        }
        if interleave == 0 && !(channels as u64 * gbits).is_multiple_of(128) {
            err(format!(
                "channelsPerPixel {channels} × {esize} is not a multiple of 16 bytes (not supported by ptxjit)"
            ))?;
        }
        let mut box_dims = [1u32; 5];
        box_dims[0] = channels;
        let mut m = TensorMap::encode_tiled(
            dtype,
            rank,
            global_address,
            dims,
            strides,
            &box_dims[..rank as usize],
            element_strides,
            interleave,
            swizzle,
            l2_promotion,
            oob_fill,
        )?;
        m.box_dims = [1; 5];
        m.im2col = Some(ic);
        Ok(m)
    }

    /// The 128 bytes of the object (the layout in the module docs).
    pub fn to_bytes(&self) -> [u8; TENSOR_MAP_BYTES] {
        let mut b = [0u8; TENSOR_MAP_BYTES];
        b[0..8].copy_from_slice(&self.global_address.to_le_bytes());
        b[8..12].copy_from_slice(&MAGIC.to_le_bytes());
        b[12] = self.rank as u8;
        b[13] = self.dtype.code() as u8;
        b[14] = self.interleave;
        b[15] = self.swizzle;
        b[16] = self.l2_promotion;
        b[19] = self.swizzle_atomicity;
        b[17] = self.nan_fill as u8;
        if let Some(ic) = &self.im2col {
            b[18] = match ic.wide {
                None => 1,
                Some(Im2colWide::W) => 2,
                Some(Im2colWide::W128) => 3,
            };
            for k in 0..3 {
                b[96 + 2 * k..98 + 2 * k].copy_from_slice(&(ic.lower[k] as i16).to_le_bytes());
                b[102 + 2 * k..104 + 2 * k].copy_from_slice(&(ic.upper[k] as i16).to_le_bytes());
            }
            b[108..110].copy_from_slice(&((ic.channels - 1) as u16).to_le_bytes());
            b[110..112].copy_from_slice(&((ic.pixels - 1) as u16).to_le_bytes());
        }
        for i in 0..5 {
            let o = 24 + 4 * i;
            b[o..o + 4].copy_from_slice(&((self.dims[i] - 1) as u32).to_le_bytes());
            let o = 80 + 2 * i;
            b[o..o + 2].copy_from_slice(&((self.box_dims[i] - 1) as u16).to_le_bytes());
            b[90 + i] = (self.element_strides[i] - 1) as u8;
        }
        for i in 0..4 {
            let o = 48 + 8 * i;
            b[o..o + 8].copy_from_slice(&self.strides[i].to_le_bytes());
        }
        b
    }

    /// Decode 128 bytes; an error says why they are no valid tensor map.
    pub fn from_bytes(b: &[u8; TENSOR_MAP_BYTES]) -> Result<TensorMap, String> {
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u64_at = |o: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[o..o + 8]);
            u64::from_le_bytes(w)
        };
        if u32_at(8) != MAGIC {
            return Err("the 128 bytes are not a tensor map (made by cuTensorMapEncodeTiled or a case's tensor_maps)".into());
        }
        let dtype = TmapType::from_code(b[13] as u32)
            .or_else(|| TmapType::packed_from_code(b[13] as u32))
            .ok_or_else(|| format!("element type {} is not supported", b[13]))?;
        let rank = b[12] as u32;
        if !(1..=5).contains(&rank) {
            return Err(format!("rank {rank} is outside 1..=5"));
        }
        if b[15] > 4 || b[14] > 2 || b[17] > 1 || b[18] > 3 || b[19] > 3 {
            return Err(format!(
                "swizzle {}, interleave {}, fill mode {}, mode {} or swizzle atomicity {} out of range",
                b[15], b[14], b[17], b[18], b[19]
            ));
        }
        let mut m = TensorMap {
            global_address: u64_at(0),
            rank,
            dtype,
            interleave: b[14],
            swizzle: b[15],
            swizzle_atomicity: b[19],
            l2_promotion: b[16] & 3,
            nan_fill: b[17] == 1,
            dims: [1; 5],
            strides: [0; 4],
            box_dims: [1; 5],
            element_strides: [1; 5],
            im2col: None,
        };
        for i in 0..5 {
            m.dims[i] = u32_at(24 + 4 * i) as u64 + 1;
            m.box_dims[i] = u16::from_le_bytes([b[80 + 2 * i], b[81 + 2 * i]]) as u32 + 1;
            m.element_strides[i] = b[90 + i] as u32 + 1;
            if m.box_dims[i] > 256 || m.element_strides[i] > 8 {
                return Err(format!(
                    "box dim {} or element stride {} of dim {i} out of range",
                    m.box_dims[i], m.element_strides[i]
                ));
            }
        }
        for i in 0..4 {
            m.strides[i] = u64_at(48 + 8 * i);
        }
        // The dimensions past the rank are none: a map whose rank `tensormap.replace.rank`
        // lowered keeps the old sizes in their fields, which a copy must not walk.
        for i in rank as usize..5 {
            m.dims[i] = 1;
            m.box_dims[i] = 1;
            m.element_strides[i] = 1;
        }
        if b[18] != 0 {
            let i16_at = |o: usize| i16::from_le_bytes([b[o], b[o + 1]]) as i32;
            let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]) as u32;
            let ic = Im2col {
                lower: std::array::from_fn(|k| i16_at(96 + 2 * k)),
                upper: std::array::from_fn(|k| i16_at(102 + 2 * k)),
                channels: u16_at(108) + 1,
                pixels: u16_at(110) + 1,
                wide: match b[18] {
                    2 => Some(Im2colWide::W),
                    3 => Some(Im2colWide::W128),
                    _ => None,
                },
            };
            if !(3..=5).contains(&rank) || ic.channels > 256 || ic.pixels > 1024 {
                return Err(format!(
                    "an im2col map of rank {rank} with {} channels per pixel and {} pixels per column is out of range",
                    ic.channels, ic.pixels
                ));
            }
            m.im2col = Some(ic);
        }
        Ok(m)
    }

    /// Elements the box holds along dimension `d`: ceil(box / element stride); dimension 0's
    /// element stride is ignored when the layout is not interleaved (`cuTensorMapEncodeTiled`).
    pub fn box_elems(&self, d: usize) -> u64 {
        let e = if d == 0 && self.interleave == 0 {
            1
        } else {
            self.element_strides[d]
        };
        (self.box_dims[d] as u64).div_ceil(e as u64)
    }

    /// The traversal step along dimension `d` (see [`box_elems`](Self::box_elems)).
    pub fn step(&self, d: usize) -> i64 {
        if d == 0 && self.interleave == 0 {
            1
        } else {
            self.element_strides[d] as i64
        }
    }

    /// Bytes of the box in shared memory (the complete-tx count of a load): in im2col mode,
    /// pixels per column × channels per pixel elements; a packed type's padding counts
    /// ([`TmapType::shared_bits`]).
    pub fn box_bytes(&self) -> u64 {
        if let Some(ic) = &self.im2col {
            return ic.pixels as u64 * ic.channels as u64 * self.dtype.shared_bits() / 8;
        }
        (0..self.rank as usize)
            .map(|d| self.box_elems(d))
            .product::<u64>()
            * self.dtype.shared_bits()
            / 8
    }
}

/// Write `value` into field `field` (dimension `ord`) of the tensor map bytes `b`, as
/// `tensormap.replace` does (PTX ISA §9.7.9.26): `rank` takes the rank minus one (the ISA's
/// encoding), the dimension fields the size itself, `global_stride` ordinal `ord` the byte
/// stride of dimension `ord + 1`, the enumerated fields their Table 33 values (`.elemtype`
/// translated to ptxjit's `CUtensorMapDataType` byte; `.swizzle_atomicity` 0 ..= 3 into byte
/// 19). The object must already be a tensor map (the magic word) or 128 zero bytes, which
/// become the map every field of whose hardware encoding is zero: rank 1, each dimension,
/// box and element stride 1, byte strides 0, `u8`, no interleave or swizzle, zero fill,
/// tile mode (Triton builds its device-side maps so: zeroes 128 bytes of shared memory,
/// then replaces the fields it needs; ⚠ docs/isa-notes.md). A value out of range is an
/// error.
pub fn replace_field(
    b: &mut [u8; TENSOR_MAP_BYTES],
    field: TmapField,
    ord: u32,
    value: u64,
) -> Result<(), String> {
    if u32::from_le_bytes([b[8], b[9], b[10], b[11]]) != MAGIC {
        if b.iter().any(|&x| x != 0) {
            return Err(
                "tensormap.replace on 128 bytes that are neither a tensor map nor zero".into(),
            );
        }
        // ptxjit's layout holds sizes minus one, so zero bytes are sizes of 1; only the
        // rank byte holds the rank itself.
        b[8..12].copy_from_slice(&MAGIC.to_le_bytes());
        b[12] = 1;
    }
    let range = |lo: u64, hi: u64| -> Result<u64, String> {
        if (lo..=hi).contains(&value) {
            Ok(value)
        } else {
            Err(format!(
                "tensormap.replace.{}: value {value} is outside {lo}..={hi}",
                field.name()
            ))
        }
    };
    let ord_max = match field {
        TmapField::GlobalStride => 3,
        _ => 4,
    };
    if field.has_ord() && ord > ord_max {
        return Err(format!(
            "tensormap.replace.{}: ordinal {ord} is outside 0..={ord_max}",
            field.name()
        ));
    }
    let o = ord as usize;
    match field {
        TmapField::GlobalAddress => {
            if !value.is_multiple_of(16) {
                return Err(format!(
                    "tensormap.replace.global_address: {value:#x} is not 16-byte aligned"
                ));
            }
            b[0..8].copy_from_slice(&value.to_le_bytes());
        }
        TmapField::Rank => b[12] = range(0, 4)? as u8 + 1,
        TmapField::BoxDim => {
            let v = range(1, 256)?;
            b[80 + 2 * o..82 + 2 * o].copy_from_slice(&((v - 1) as u16).to_le_bytes());
        }
        TmapField::GlobalDim => {
            let v = range(1, 1 << 32)?;
            b[24 + 4 * o..28 + 4 * o].copy_from_slice(&((v - 1) as u32).to_le_bytes());
        }
        TmapField::GlobalStride => {
            let v = range(0, (1 << 40) - 1)?;
            if !v.is_multiple_of(16) {
                return Err(format!(
                    "tensormap.replace.global_stride: {v} is not a multiple of 16"
                ));
            }
            b[48 + 8 * o..56 + 8 * o].copy_from_slice(&v.to_le_bytes());
        }
        TmapField::ElementStride => b[90 + o] = range(1, 8)? as u8 - 1,
        TmapField::ElemType => {
            // Table 33's 13-15 (.b4x16, .b4x16_p64, .b6x16_p32/.b6p2x16) are the driver's
            // 13-15 (16U4_ALIGN8B, 16U4_ALIGN16B, 16U6_ALIGN16B).
            let v = range(0, 15)? as u32;
            b[13] = TmapType::from_elemtype(v).map_or(v, TmapType::code) as u8;
        }
        TmapField::InterleaveLayout => b[14] = range(0, 2)? as u8,
        // 4 is the 96B swizzle (Table 33).
        TmapField::SwizzleMode => b[15] = range(0, 4)? as u8,
        TmapField::SwizzleAtomicity => b[19] = range(0, 3)? as u8,
        TmapField::FillMode => b[17] = range(0, 1)? as u8,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map_2d() -> TensorMap {
        // A 100 × 60 f32 matrix, rows padded to 112 floats (448 bytes), 32 × 8 boxes.
        TensorMap::encode_tiled(
            7,
            2,
            0x10_0000_0100,
            &[100, 60],
            &[448],
            &[32, 8],
            &[1, 1],
            0,
            0,
            0,
            0,
        )
        .expect("valid")
    }

    #[test]
    fn encode_round_trips_and_box_sizes() {
        let m = map_2d();
        assert_eq!(TensorMap::from_bytes(&m.to_bytes()), Ok(m));
        assert_eq!(m.box_bytes(), 32 * 8 * 4);
        // Element strides: ceil(box / stride) elements (dim 0's is ignored, not interleaved).
        let m = TensorMap::encode_tiled(
            1,
            3,
            0x1000,
            &[64, 9, 9],
            &[128, 1152],
            &[16, 5, 4],
            &[3, 2, 4],
            0,
            0,
            0,
            0,
        )
        .expect("valid");
        assert_eq!((m.box_elems(0), m.box_elems(1), m.box_elems(2)), (16, 3, 1));
        assert_eq!(m.box_bytes(), 16 * 3 * 2);
    }

    /// Each check of `cuTensorMapEncodeTiled`'s documentation, with the argument named.
    #[test]
    fn encode_checks_name_the_argument() {
        let e = |r: Result<TensorMap, EncodeError>| r.expect_err("rejected").0;
        let t = |dtype,
                 rank,
                 addr,
                 dims: &[u64],
                 strides: &[u64],
                 bx: &[u32],
                 es: &[u32],
                 il,
                 sw,
                 oob| {
            e(TensorMap::encode_tiled(
                dtype, rank, addr, dims, strides, bx, es, il, sw, 0, oob,
            ))
        };
        assert!(t(16, 1, 0, &[16], &[], &[16], &[1], 0, 0, 0).contains("tensorDataType"));
        assert!(t(7, 6, 0, &[16; 6], &[16; 5], &[4; 6], &[1; 6], 0, 0, 0).contains("tensorRank"));
        assert!(t(7, 2, 0, &[16, 4], &[64], &[4, 4], &[1, 1], 1, 0, 0).contains("tensorRank"));
        assert!(t(7, 1, 8, &[16], &[], &[4], &[1], 0, 0, 0).contains("globalAddress"));
        assert!(t(7, 1, 0, &[0], &[], &[4], &[1], 0, 0, 0).contains("globalDim[0]"));
        assert!(t(7, 1, 0, &[(1 << 32) + 1], &[], &[4], &[1], 0, 0, 0).contains("globalDim[0]"));
        assert!(t(7, 2, 0, &[16, 4], &[72], &[4, 4], &[1, 1], 0, 0, 0).contains("globalStrides[0]"));
        assert!(t(7, 2, 0, &[16, 4], &[1 << 40], &[4, 4], &[1, 1], 0, 0, 0)
            .contains("globalStrides[0]"));
        assert!(t(7, 2, 0, &[16, 4], &[64], &[4, 257], &[1, 1], 0, 0, 0).contains("boxDim[1]"));
        assert!(t(7, 1, 0, &[16], &[], &[3], &[1], 0, 0, 0).contains("boxDim[0]"));
        assert!(t(7, 1, 0, &[64], &[], &[16], &[1], 0, 1, 0).contains("swizzle"));
        assert!(
            t(7, 2, 0, &[16, 4], &[64], &[4, 4], &[1, 9], 0, 0, 0).contains("elementStrides[1]")
        );
        assert!(t(7, 1, 0, &[16], &[], &[4], &[1], 0, 7, 0).contains("swizzle"));
        assert!(t(
            7,
            3,
            0,
            &[16, 4, 4],
            &[64, 256],
            &[4, 4, 4],
            &[1; 3],
            2,
            0,
            0
        )
        .contains("swizzle"));
        assert!(t(3, 1, 0, &[16], &[], &[4], &[1], 0, 0, 1).contains("oobFill"));
        assert!(t(7, 1, 0, &[16], &[], &[4], &[1], 0, 0, 2).contains("oobFill"));
    }

    /// Each check of `cuTensorMapEncodeIm2col`'s documentation (corner ranges by rank, a
    /// non-empty bounding box, channelsPerPixel, pixelsPerColumn, the swizzle span), the
    /// round trip of the im2col fields, and the complete-tx count.
    #[test]
    fn encode_im2col_checks_and_round_trips() {
        // An N H W C f16 tensor 2 x 6 x 9 x 16, rows dense.
        let enc = |rank: u32, lower: &[i32], upper: &[i32], ch: u32, px: u32, sw: u32| {
            let dims = [16u64, 9, 6, 2, 2];
            let strides = [32u64, 288, 1728, 3456];
            TensorMap::encode_im2col(
                6,
                rank,
                0x1000,
                &dims[..rank as usize],
                &strides[..rank as usize - 1],
                lower,
                upper,
                ch,
                px,
                &[1; 5][..rank as usize],
                0,
                sw,
                0,
                0,
            )
        };
        let m = enc(4, &[-1, -1], &[-1, -1], 16, 64, 0).expect("valid");
        assert_eq!(TensorMap::from_bytes(&m.to_bytes()), Ok(m));
        let ic = m.im2col.expect("im2col");
        assert_eq!(
            (ic.lower, ic.upper, ic.channels, ic.pixels),
            ([-1, -1, 0], [-1, -1, 0], 16, 64)
        );
        assert_eq!(ic.range(0, 9), (-1, 7));
        assert_eq!(m.box_bytes(), 64 * 16 * 2);
        let e = |r: Result<TensorMap, EncodeError>| r.expect_err("rejected").0;
        assert!(e(enc(2, &[], &[], 16, 8, 0)).contains("tensorRank"));
        assert!(e(enc(4, &[-129, 0], &[0, 0], 16, 8, 0)).contains("pixelBoxLowerCorner[0]"));
        assert!(e(enc(4, &[0, 0], &[0, 128], 16, 8, 0)).contains("pixelBoxUpperCorner[1]"));
        assert!(enc(3, &[-32768], &[32767], 16, 8, 0).is_ok());
        assert!(e(enc(5, &[0, 0, -17], &[0, 0, 0], 16, 8, 0)).contains("pixelBoxLowerCorner[2]"));
        assert!(e(enc(5, &[0, 0, 0], &[0, 16, 0], 16, 8, 0)).contains("pixelBoxUpperCorner[1]"));
        // W has 9 elements: lower 5 and upper -4 leave [5, 4], an empty box.
        assert!(e(enc(4, &[5, 0], &[-4, 0], 16, 8, 0)).contains("empty bounding box"));
        assert!(e(enc(4, &[0, 0], &[0, 0], 0, 8, 0)).contains("channelsPerPixel"));
        assert!(e(enc(4, &[0, 0], &[0, 0], 257, 8, 0)).contains("channelsPerPixel"));
        assert!(e(enc(4, &[0, 0], &[0, 0], 16, 1025, 0)).contains("pixelsPerColumn"));
        assert!(enc(4, &[0, 0], &[0, 0], 16, 1024, 0).is_ok());
        // 16 f16 channels are 32 bytes: more than the 32B swizzle's span is rejected.
        assert!(enc(4, &[0, 0], &[0, 0], 16, 8, 1).is_ok());
        assert!(e(enc(4, &[0, 0], &[0, 0], 32, 8, 1)).contains("swizzle"));
    }

    /// Each check of `cuTensorMapEncodeIm2colWide`'s documentation (one W corner pair in
    /// ±32767 whatever the rank, a non-empty W box, the mode, swizzle 64B/128B only, no
    /// interleave, pixelsPerColumn ignored in W128 mode) and the round trip of the mode.
    #[test]
    fn encode_im2col_wide_checks_and_round_trips() {
        let enc = |rank: u32, lw: i32, uw: i32, px: u32, il: u32, mode: u32, sw: u32| {
            let dims = [16u64, 9, 6, 2, 2];
            let strides = [32u64, 288, 1728, 3456];
            TensorMap::encode_im2col_wide(
                6,
                rank,
                0x1000,
                &dims[..rank as usize],
                &strides[..rank as usize - 1],
                lw,
                uw,
                16,
                px,
                &[1; 5][..rank as usize],
                il,
                mode,
                sw,
                0,
                0,
            )
        };
        let m = enc(5, -300, 200, 64, 0, 0, 2).expect("valid");
        assert_eq!(TensorMap::from_bytes(&m.to_bytes()), Ok(m));
        let ic = m.im2col.expect("im2col");
        assert_eq!(
            (ic.lower, ic.upper, ic.pixels, ic.wide),
            ([-300, 0, 0], [200, 0, 0], 64, Some(Im2colWide::W))
        );
        let m = enc(4, 0, 0, 5000, 0, 1, 3).expect("pixelsPerColumn is ignored in W128 mode");
        assert_eq!(TensorMap::from_bytes(&m.to_bytes()), Ok(m));
        assert_eq!(
            m.im2col.map(|ic| (ic.pixels, ic.wide)),
            Some((128, Some(Im2colWide::W128)))
        );
        let e = |r: Result<TensorMap, EncodeError>| r.expect_err("rejected").0;
        assert!(e(enc(4, -32769, 0, 8, 0, 0, 2)).contains("pixelBoxLowerCornerWidth"));
        assert!(e(enc(4, 0, 32768, 8, 0, 0, 2)).contains("pixelBoxUpperCornerWidth"));
        assert!(e(enc(4, 5, -4, 8, 0, 0, 2)).contains("empty bounding box"));
        assert!(e(enc(4, 0, 0, 8, 0, 2, 2)).contains("CUtensorMapIm2ColWideMode"));
        assert!(e(enc(4, 0, 0, 8, 1, 0, 2)).contains("interleave"));
        assert!(e(enc(4, 0, 0, 8, 0, 0, 0)).contains("swizzle"));
        assert!(e(enc(4, 0, 0, 8, 0, 0, 1)).contains("swizzle"));
        // 128B_ATOM_32B is the 128B swizzle with 32-byte atomicity; the flip (5) and 64B (6)
        // are not among the modes the W-only encoder takes.
        let m = enc(4, 0, 0, 8, 0, 0, 4).expect("128B_ATOM_32B");
        assert_eq!((m.swizzle, m.swizzle_atomicity), (3, 1));
        assert!(e(enc(4, 0, 0, 8, 0, 0, 5)).contains("128B_ATOM_32B"));
        assert!(e(enc(4, 0, 0, 1025, 0, 0, 2)).contains("pixelsPerColumn"));
        assert!(e(enc(2, 0, 0, 8, 0, 0, 2)).contains("tensorRank"));
    }

    /// The CUDA guide's swizzle tables: with 128B, 16-byte chunk c of 128-byte row r lands in
    /// chunk c ^ (r % 8); 64B: c ^ ((r / 1) % 4) on chunk bits 4..5 only; 32B: bit 4 ^ bit 7.
    #[test]
    fn swizzle_patterns() {
        for row in 0..16u64 {
            for chunk in 0..8u64 {
                let a = row * 128 + chunk * 16 + 4;
                assert_eq!(swizzle(3, 0, a), row * 128 + (chunk ^ (row % 8)) * 16 + 4);
                assert_eq!(swizzle(2, 0, a), row * 128 + (chunk ^ (row % 4)) * 16 + 4);
                assert_eq!(swizzle(1, 0, a), row * 128 + (chunk ^ (row % 2)) * 16 + 4);
                // The 96B swizzle's table (§5.5.7): odd rows exchange chunks in pairs.
                let t96 = [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6]];
                assert_eq!(
                    swizzle(4, 0, a),
                    row * 128 + t96[(row % 2) as usize][chunk as usize] * 16 + 4
                );
                assert_eq!(swizzle(0, 0, a), a);
            }
        }
    }

    /// The ISA's tables of the 128B swizzle's atomicities (§5.5.7), as 16-byte chunk numbers
    /// per 128-byte row (the pattern repeating after the rows given): the chunk stored at
    /// position `p` of row `r` is `table[r % rows][p]`; with the 8-byte flip, odd rows also
    /// exchange the 8-byte halves of each chunk.
    #[test]
    fn swizzle_atomicity_tables() {
        let atom32: [[u64; 8]; 4] = [
            [0, 1, 2, 3, 4, 5, 6, 7],
            [2, 3, 0, 1, 6, 7, 4, 5],
            [4, 5, 6, 7, 0, 1, 2, 3],
            [6, 7, 4, 5, 2, 3, 0, 1],
        ];
        let atom64: [[u64; 8]; 2] = [[0, 1, 2, 3, 4, 5, 6, 7], [4, 5, 6, 7, 0, 1, 2, 3]];
        for row in 0..16u64 {
            for pos in 0..8u64 {
                for half in 0..2u64 {
                    let dst = |chunk: u64, h: u64| row * 128 + chunk * 16 + h * 8 + 4;
                    // Source byte: row `row`, chunk `table[row][pos]`; it lands at `pos`.
                    let src32 = dst(atom32[(row % 4) as usize][pos as usize], half);
                    assert_eq!(swizzle(3, 1, src32), dst(pos, half));
                    let flip = if row % 2 == 1 { 1 - half } else { half };
                    assert_eq!(swizzle(3, 2, src32), dst(pos, flip));
                    let src64 = dst(atom64[(row % 2) as usize][pos as usize], half);
                    assert_eq!(swizzle(3, 3, src64), dst(pos, half));
                }
            }
        }
        // Table 14: only the 128B swizzle takes a larger atomicity; the flip loads only.
        assert!(swizzle_combination(3, 3, false, false).is_ok());
        assert!(swizzle_combination(2, 1, true, false).is_err());
        assert!(swizzle_combination(3, 2, true, false).is_ok());
        assert!(swizzle_combination(3, 2, false, false).is_err());
        assert!(swizzle_combination(3, 2, true, true).is_err());
    }

    /// `cuTensorMapEncodeTiled`'s 128B-atom swizzles (4, 5, 6) are the 128B swizzle with
    /// atomicity 1, 2, 3; 7 is no `CUtensorMapSwizzle`; `.elemtype` uses Table 33's numbers.
    #[test]
    fn atom_swizzles_and_elemtype() {
        for (code, atom) in [(4u32, 1u8), (5, 2), (6, 3)] {
            let m = TensorMap::encode_tiled(
                7,
                2,
                0x1000,
                &[32, 8],
                &[128],
                &[32, 8],
                &[1, 1],
                0,
                code,
                0,
                0,
            )
            .expect("valid");
            assert_eq!((m.swizzle, m.swizzle_atomicity), (3, atom));
            assert_eq!(TensorMap::from_bytes(&m.to_bytes()), Ok(m));
        }
        assert!(TensorMap::encode_tiled(
            7,
            2,
            0x1000,
            &[32, 8],
            &[128],
            &[32, 8],
            &[1, 1],
            0,
            7,
            0,
            0
        )
        .is_err());
        let mut b = map_2d().to_bytes();
        replace_field(&mut b, TmapField::SwizzleAtomicity, 0, 3).expect("ok");
        assert_eq!(
            TensorMap::from_bytes(&b).map(|m| m.swizzle_atomicity),
            Ok(3)
        );
        assert!(replace_field(&mut b, TmapField::SwizzleAtomicity, 0, 4).is_err());
        for (v, t) in [
            (8, TmapType::F32Ftz),
            (9, TmapType::F64),
            (10, TmapType::Bf16),
        ] {
            replace_field(&mut b, TmapField::ElemType, 0, v).expect("ok");
            assert_eq!(TensorMap::from_bytes(&b).map(|m| m.dtype), Ok(t));
        }
        // A packed type is written and read back.
        replace_field(&mut b, TmapField::ElemType, 0, 13).expect("written");
        assert_eq!(
            TensorMap::from_bytes(&b).map(|m| m.dtype),
            Ok(TmapType::B4x16)
        );
    }

    #[test]
    fn replace_fields() {
        let mut b = map_2d().to_bytes();
        replace_field(&mut b, TmapField::GlobalAddress, 0, 0x10_0000_0200).expect("ok");
        replace_field(&mut b, TmapField::BoxDim, 1, 4).expect("ok");
        replace_field(&mut b, TmapField::GlobalDim, 0, 50).expect("ok");
        replace_field(&mut b, TmapField::GlobalStride, 0, 224).expect("ok");
        replace_field(&mut b, TmapField::SwizzleMode, 0, 3).expect("ok");
        replace_field(&mut b, TmapField::Rank, 0, 2).expect("ok");
        let m = TensorMap::from_bytes(&b).expect("valid");
        assert_eq!(m.global_address, 0x10_0000_0200);
        assert_eq!(
            (m.box_dims[1], m.dims[0], m.strides[0], m.swizzle, m.rank),
            (4, 50, 224, 3, 3)
        );
        assert!(replace_field(&mut b, TmapField::BoxDim, 0, 0).is_err());
        assert!(replace_field(&mut b, TmapField::GlobalStride, 4, 16).is_err());
        // 128 bytes that are neither a map nor zero.
        let mut junk = [0u8; 128];
        junk[100] = 1;
        assert!(replace_field(&mut junk, TmapField::Rank, 0, 1).is_err());
    }

    /// Zeroed bytes and replaced fields, as Triton builds a device-side 2D map: the fields
    /// it does not replace are those of a zero encoding (PTX ISA §9.7.9.26; ⚠
    /// docs/isa-notes.md).
    #[test]
    fn replace_fields_into_zero_bytes() {
        let mut b = [0u8; 128];
        replace_field(&mut b, TmapField::GlobalAddress, 0, 0x10_0000_0400).expect("ok");
        assert_eq!(TensorMap::from_bytes(&b).expect("a map").rank, 1);
        replace_field(&mut b, TmapField::Rank, 0, 1).expect("ok");
        for (f, ord, v) in [
            (TmapField::BoxDim, 0, 64),
            (TmapField::BoxDim, 1, 128),
            (TmapField::GlobalDim, 0, 96),
            (TmapField::GlobalDim, 1, 200),
            (TmapField::GlobalStride, 0, 192),
            (TmapField::ElementStride, 0, 1),
            (TmapField::ElementStride, 1, 1),
            (TmapField::ElemType, 0, 6),
            (TmapField::SwizzleMode, 0, 3),
        ] {
            replace_field(&mut b, f, ord, v).expect("ok");
        }
        let m = TensorMap::from_bytes(&b).expect("a map");
        assert_eq!(
            (m.global_address, m.rank, m.dims[0], m.dims[1], m.strides[0]),
            (0x10_0000_0400, 2, 96, 200, 192)
        );
        assert_eq!(
            (m.box_dims[0], m.box_dims[1], m.swizzle, m.interleave),
            (64, 128, 3, 0)
        );
        assert_eq!(m.dtype, TmapType::F16);
    }

    /// Every value of Table 33 (PTX ISA §9.7.9.26) is written and read back (the 96B swizzle,
    /// the packed element types included); values past the table are refused.
    #[test]
    fn replace_table_values() {
        let fresh = || map_2d().to_bytes();
        for (field, last) in [
            (TmapField::ElemType, 15),
            (TmapField::InterleaveLayout, 2),
            (TmapField::SwizzleMode, 4),
            (TmapField::SwizzleAtomicity, 3),
            (TmapField::FillMode, 1),
        ] {
            for v in 0..=last {
                let mut b = fresh();
                replace_field(&mut b, field, 0, v).unwrap_or_else(|e| panic!("{v}: {e}"));
            }
            let mut b = fresh();
            let e = replace_field(&mut b, field, 0, last + 1).expect_err("past the table");
            assert!(e.contains(&format!("outside 0..={last}")), "{e}");
        }
        let mut b = fresh();
        replace_field(&mut b, TmapField::SwizzleMode, 0, 4).expect("96B");
        assert_eq!(TensorMap::from_bytes(&b).map(|m| m.swizzle), Ok(4));
        // The ISA's elemtype numbers are not the driver's: the ISA's 9 is .f64 (the
        // driver's 9 is bf16), its 10 .bf16.
        let mut b = fresh();
        replace_field(&mut b, TmapField::ElemType, 0, 9).expect("f64");
        assert_eq!(
            TensorMap::from_bytes(&b).expect("f64 map").dtype,
            TmapType::F64
        );
        replace_field(&mut b, TmapField::ElemType, 0, 10).expect("bf16");
        assert_eq!(
            TensorMap::from_bytes(&b).expect("bf16 map").dtype,
            TmapType::Bf16
        );
        for (v, t) in [
            (13, TmapType::B4x16),
            (14, TmapType::B4x16P64),
            (15, TmapType::B6x16P32),
        ] {
            replace_field(&mut b, TmapField::ElemType, 0, v).expect("packed");
            assert_eq!(TensorMap::from_bytes(&b).map(|m| m.dtype), Ok(t));
        }
    }
}
