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
    /// The swizzle's atomicity (PTX ISA 8.6; §5.5.7 "Swizzling Modes").
    SwizzleAtomicity,
    FillMode,
}

impl TmapField {
    /// Every field, in the ISA's order.
    pub const ALL: [TmapField; 11] = [
        TmapField::GlobalAddress,
        TmapField::Rank,
        TmapField::BoxDim,
        TmapField::GlobalDim,
        TmapField::GlobalStride,
        TmapField::ElementStride,
        TmapField::ElemType,
        TmapField::InterleaveLayout,
        TmapField::SwizzleMode,
        TmapField::SwizzleAtomicity,
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
            TmapField::SwizzleAtomicity => "swizzle_atomicity",
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

    /// The largest new value of an enumerated field (`.field3`, an immediate: PTX ISA
    /// §9.7.9.26 Table 33); `None` for the others, which take any register or immediate.
    pub fn enum_max(self) -> Option<u32> {
        match self {
            TmapField::ElemType => Some(15),
            TmapField::InterleaveLayout => Some(2),
            TmapField::SwizzleMode => Some(4),
            TmapField::SwizzleAtomicity => Some(3),
            TmapField::FillMode => Some(1),
            TmapField::GlobalAddress
            | TmapField::Rank
            | TmapField::BoxDim
            | TmapField::GlobalDim
            | TmapField::GlobalStride
            | TmapField::ElementStride => None,
        }
    }

    /// Whether the new value is a `.b64` (else `.b32`).
    pub fn is_64(self) -> bool {
        matches!(self, TmapField::GlobalAddress | TmapField::GlobalStride)
    }
}

/// The load mode of a copy into shared memory or a prefetch (PTX ISA §9.7.9.25.5.1
/// `.load_mode`; the modes are described in §5.5 "Tensors").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoadMode {
    /// `.tile` (or no mode): one box from the coordinates.
    Tile,
    /// `.tile::gather4` (`.2d` only): four rows of a 2d tensor, each one box row wide; the
    /// coordinates are the column and the four row indices.
    Gather4,
    /// `.im2col`: pixels × channels from a `cuTensorMapEncodeIm2col` map, with `dims − 2`
    /// im2col offsets.
    Im2col,
    /// `.im2col::w` (§5.5.5): pixels per column pixels along W only (H and D fixed), then
    /// `wHalo` halo pixels, from a `cuTensorMapEncodeIm2colWide` map in W mode; the im2col
    /// info is `{wHalo, wOffset}`.
    Im2colW,
    /// `.im2col::w::128` (§5.5.5): 128 pixels along W, `wHalo` halo pixels after each 32,
    /// from a W128-mode map; the im2col info is `{wHalo, wOffset}`.
    Im2colW128,
}

impl LoadMode {
    /// Its PTX modifier (without the dot).
    pub fn name(self) -> &'static str {
        match self {
            LoadMode::Tile => "tile",
            LoadMode::Gather4 => "tile::gather4",
            LoadMode::Im2col => "im2col",
            LoadMode::Im2colW => "im2col::w",
            LoadMode::Im2colW128 => "im2col::w::128",
        }
    }

    /// Whether the mode is one of the im2col modes (a 3d to 5d tensor, an im2col map, the
    /// im2col info operand).
    pub fn is_im2col(self) -> bool {
        match self {
            LoadMode::Im2col | LoadMode::Im2colW | LoadMode::Im2colW128 => true,
            LoadMode::Tile | LoadMode::Gather4 => false,
        }
    }
}

/// Which tensor operation. Operands of [`crate::ir::Op::Tensor`], in order; `dims` is the
/// `.1d`..`.5d` of the instruction, coordinates are [`TensorOp::coords`] signed `i32` element
/// offsets (`dims` of them, five for `.tile::gather4` / `.tile::scatter4`: the column, then
/// four row indices), the tensor map an `i64` generic address (of a kernel parameter, a
/// `.const` or a `.global` object), shared-memory addresses `i64` shared-space offsets:
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorOp {
    /// Global → shared (`.mbarrier::complete_tx::bytes`): args (dst, tensor map,
    /// coordinates, mbarrier, then with `.im2col` the `dims − 2` im2col offsets, with
    /// `.im2col::w` / `.im2col::w::128` `wHalo` and `wOffset`, as `i32` zero-extended from
    /// their 16 bits). The box (tile mode), the four rows (gather4) or
    /// the pixels × channels (im2col mode, §5.5.4) land densely at dst (swizzled as the map
    /// says), out-of-bound elements read as the map's fill, then complete-tx of their bytes.
    Load { dims: u8, mode: LoadMode },
    /// Shared → global (`.bulk_group`; `.tile`, `.tile::scatter4` with `scatter4`, or
    /// `.im2col_no_offs` with `im2col`): args (tensor map, coordinates, src); out-of-bound
    /// elements are not written. `.im2col_no_offs` (3d..5d, an im2col map) writes the
    /// pixels × channels an `.im2col` load with zero im2col offsets reads, from the same
    /// shared-memory layout.
    Store {
        dims: u8,
        scatter4: bool,
        im2col: bool,
    },
    /// `cp.reduce.async.bulk.tensor` (`.bulk_group`; `.tile`, `.tile::scatter4` or
    /// `.im2col_no_offs`): args as `Store`; each in-bound element is combined atomically with
    /// `op` (element type from the map).
    Reduce {
        dims: u8,
        op: AtomOp,
        scatter4: bool,
        im2col: bool,
    },
    /// `cp.async.bulk.prefetch.tensor`: args (tensor map, coordinates, then the im2col info
    /// as for `Load`); checks the map only.
    Prefetch { dims: u8, mode: LoadMode },
    /// `tensormap.replace`: args (address i64 in `space`: `Global`, `Shared` or `Generic`,
    /// ord i32, value i64).
    Replace { field: TmapField, space: Space },
}

impl TensorOp {
    /// The `.Nd` of the instruction (0 for `Replace`).
    pub fn dims(self) -> usize {
        match self {
            TensorOp::Load { dims, .. }
            | TensorOp::Store { dims, .. }
            | TensorOp::Reduce { dims, .. }
            | TensorOp::Prefetch { dims, .. } => dims as usize,
            TensorOp::Replace { .. } => 0,
        }
    }

    /// Whether the copy moves four rows (`.tile::gather4` / `.tile::scatter4`).
    pub fn four_rows(self) -> bool {
        match self {
            TensorOp::Load { mode, .. } | TensorOp::Prefetch { mode, .. } => {
                mode == LoadMode::Gather4
            }
            TensorOp::Store { scatter4, .. } | TensorOp::Reduce { scatter4, .. } => scatter4,
            TensorOp::Replace { .. } => false,
        }
    }

    /// Coordinates taken: the dimensions, or five (column and four rows) for the four-row
    /// modes; 0 for `Replace`.
    pub fn coords(self) -> usize {
        if self.four_rows() {
            5
        } else {
            self.dims()
        }
    }

    /// Whether a store or reduction is in `.im2col_no_offs` mode.
    pub fn im2col_store(self) -> bool {
        matches!(
            self,
            TensorOp::Store { im2col: true, .. } | TensorOp::Reduce { im2col: true, .. }
        )
    }

    /// The load mode of a load or prefetch (`None` for the others).
    pub fn load_mode(self) -> Option<LoadMode> {
        match self {
            TensorOp::Load { mode, .. } | TensorOp::Prefetch { mode, .. } => Some(mode),
            TensorOp::Store { .. } | TensorOp::Reduce { .. } | TensorOp::Replace { .. } => None,
        }
    }

    /// im2col info values taken: `dims − 2` offsets for the `.im2col` load mode, two
    /// (`wHalo`, `wOffset`) for `.im2col::w` and `.im2col::w::128`, else 0.
    pub fn offsets(self) -> usize {
        match self.load_mode() {
            Some(LoadMode::Im2col) => self.dims().saturating_sub(2),
            Some(LoadMode::Im2colW | LoadMode::Im2colW128) => 2,
            Some(LoadMode::Tile | LoadMode::Gather4) | None => 0,
        }
    }
}

impl fmt::Display for TensorOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rows = |s: bool, i: bool| match (s, i) {
            (true, _) => ".scatter4",
            (false, true) => ".im2col_no_offs",
            (false, false) => "",
        };
        let mode = |m: LoadMode| match m {
            LoadMode::Tile => String::new(),
            m => format!(".{}", m.name()),
        };
        match self {
            TensorOp::Load { dims, mode: m } => write!(f, "load.{dims}d{}", mode(*m)),
            TensorOp::Store {
                dims,
                scatter4,
                im2col,
            } => write!(f, "store.{dims}d{}", rows(*scatter4, *im2col)),
            TensorOp::Reduce {
                dims,
                op,
                scatter4,
                im2col,
            } => {
                write!(f, "reduce.{dims}d{}.{op:?}", rows(*scatter4, *im2col))
            }
            TensorOp::Prefetch { dims, mode: m } => write!(f, "prefetch.{dims}d{}", mode(*m)),
            TensorOp::Replace { field, space } => write!(f, "replace.{}.{space}", field.name()),
        }
    }
}
