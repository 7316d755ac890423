//! The fixed modifiers of the tensor-memory-accelerator operations (PTX ISA §9.7.9.25.5
//! `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor`, `cp.async.bulk.prefetch.tensor`;
//! §9.7.9.26 `tensormap.replace`). The tensor map's layout is ptxjit's
//! (`runtime::tensormap`); the copies run in `runtime::tma`.

use super::types::{AtomOp, Space};
use std::fmt;

/// A `tensormap.replace` field (PTX ISA §9.7.9.26).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmapField {
    GlobalAddress,
    Rank,
    BoxDim,
    GlobalDim,
    GlobalStride,
    ElementStride,
    ElemType,
    InterleaveLayout,
    SwizzleMode,
    FillMode,
}

impl TmapField {
    /// Every field, in the ISA's order.
    pub const ALL: [TmapField; 10] = [
        TmapField::GlobalAddress,
        TmapField::Rank,
        TmapField::BoxDim,
        TmapField::GlobalDim,
        TmapField::GlobalStride,
        TmapField::ElementStride,
        TmapField::ElemType,
        TmapField::InterleaveLayout,
        TmapField::SwizzleMode,
        TmapField::FillMode,
    ];

    /// Its PTX name.
    pub fn name(self) -> &'static str {
        match self {
            TmapField::GlobalAddress => "global_address",
            TmapField::Rank => "rank",
            TmapField::BoxDim => "box_dim",
            TmapField::GlobalDim => "global_dim",
            TmapField::GlobalStride => "global_stride",
            TmapField::ElementStride => "element_stride",
            TmapField::ElemType => "elemtype",
            TmapField::InterleaveLayout => "interleave_layout",
            TmapField::SwizzleMode => "swizzle_mode",
            TmapField::FillMode => "fill_mode",
        }
    }

    /// Whether the field takes an ordinal (dimension) operand.
    pub fn has_ord(self) -> bool {
        matches!(
            self,
            TmapField::BoxDim
                | TmapField::GlobalDim
                | TmapField::GlobalStride
                | TmapField::ElementStride
        )
    }

    /// Whether the new value is a `.b64` (else `.b32`).
    pub fn is_64(self) -> bool {
        matches!(self, TmapField::GlobalAddress | TmapField::GlobalStride)
    }
}

/// Which tensor operation. Operands of [`crate::ir::Op::Tensor`], in order; `dims` is the
/// `.1d`..`.5d` of the instruction, coordinates are `dims` signed `i32` element offsets, the
/// tensor map an `i64` generic address (of a kernel parameter, a `.const` or a `.global`
/// object), shared-memory addresses `i64` shared-space offsets:
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorOp {
    /// Global → shared (`.mbarrier::complete_tx::bytes`): args (dst, tensor map,
    /// coordinates, mbarrier, then with `.im2col` the `dims − 2` im2col offsets as `i32`
    /// zero-extended from their 16 bits). The box (tile mode) or the pixels × channels
    /// (im2col mode, §5.5.4) land densely at dst (swizzled as the map says), out-of-bound
    /// elements read as the map's fill, then complete-tx of their bytes.
    Load { dims: u8, im2col: bool },
    /// Shared → global (`.tile.bulk_group`): args (tensor map, coordinates, src);
    /// out-of-bound elements are not written.
    Store { dims: u8 },
    /// `cp.reduce.async.bulk.tensor` (`.tile.bulk_group`): args as `Store`; each in-bound
    /// element is combined atomically with `op` (element type from the map).
    Reduce { dims: u8, op: AtomOp },
    /// `cp.async.bulk.prefetch.tensor`: args (tensor map, coordinates, then with `.im2col`
    /// the `dims − 2` im2col offsets as for `Load`); checks the map only.
    Prefetch { dims: u8, im2col: bool },
    /// `tensormap.replace`: args (address i64 in `space`: `Global`, `Shared` or `Generic`,
    /// ord i32, value i64).
    Replace { field: TmapField, space: Space },
}

impl TensorOp {
    /// Coordinates taken (0 for `Replace`).
    pub fn dims(self) -> usize {
        match self {
            TensorOp::Load { dims, .. }
            | TensorOp::Store { dims }
            | TensorOp::Reduce { dims, .. }
            | TensorOp::Prefetch { dims, .. } => dims as usize,
            TensorOp::Replace { .. } => 0,
        }
    }

    /// im2col offsets taken: `dims − 2` for the `.im2col` load mode, else 0.
    pub fn offsets(self) -> usize {
        match self {
            TensorOp::Load { dims, im2col: true } | TensorOp::Prefetch { dims, im2col: true } => {
                (dims as usize).saturating_sub(2)
            }
            TensorOp::Load { im2col: false, .. }
            | TensorOp::Prefetch { im2col: false, .. }
            | TensorOp::Store { .. }
            | TensorOp::Reduce { .. }
            | TensorOp::Replace { .. } => 0,
        }
    }
}

impl fmt::Display for TensorOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TensorOp::Load { dims, im2col } => {
                write!(f, "load.{dims}d{}", if *im2col { ".im2col" } else { "" })
            }
            TensorOp::Store { dims } => write!(f, "store.{dims}d"),
            TensorOp::Reduce { dims, op } => write!(f, "reduce.{dims}d.{op:?}"),
            TensorOp::Prefetch { dims, im2col } => {
                write!(
                    f,
                    "prefetch.{dims}d{}",
                    if *im2col { ".im2col" } else { "" }
                )
            }
            TensorOp::Replace { field, space } => write!(f, "replace.{}.{space}", field.name()),
        }
    }
}
