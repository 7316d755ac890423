//! The sparse A of `tcgen05.mma.sp` and `tcgen05.mma.ws.sp` (PTX ISA §9.7.16.10.8 "Sparse
//! Matrices"): the stored half of A and the metadata in tensor memory give the M×K A of the
//! multiply.
//!
//! # Granularity and fields (§9.7.16.10.8.2)
//! `.kind::f16`, `.kind::i8` and `.kind::f8f6f4` are 2:4: each chunk of four elements of a row has two stored
//! elements, at the places the chunk's 4-bit field names (the first in its low 2 bits, the
//! second in its high 2 bits). The ISA lists the meaningful fields, `0b0100`, `0b1000`,
//! `0b1100`, `0b1001`, `0b1101`, `0b0110` and `0b1110`; any other field faults
//! ([`FaultKind::SparseMetadata`]) and nothing is written. (`0b0110` names places 2 and 1:
//! the first stored element goes to place 2, the second to place 1.)
//! `.kind::tf32` is 1:2: each pair of elements has one stored element, and the pair's 4-bit
//! field names 16-bit halves as `mma.sp`'s `.tf32` does (`runtime::mma`): `0b0100` puts it
//! at the pair's first place, `0b1110` at its second; any other field faults.
//!
//! # Metadata in tensor memory (§9.7.16.10.8.4)
//! The ISA gives the layouts as figures only; ptxjit reads them as public sm_100 code writes
//! them (docs/isa-notes.md; ⚠ not checked on a GPU). The metadata address must be at lane 0;
//! `col` is its column. For row `r` and field `g` of A (chunk `g` for 2:4, pair `g` for
//! `.kind::tf32`), M = 128:
//! - `.kind::f16` (8 chunks per row, K = 32) and `.kind::tf32` (8 pairs per row, K = 16):
//!   lane `16·(r / 16) + r % 8 + 8·(g / 4)`, column `col + selector`, bits
//!   `4·(4·((r % 16) / 8) + g % 4)..+4` — each block of 16 rows in 16 lanes, the fields 0-3
//!   of rows `r` and `r + 8` in the low and high halves of one lane and fields 4-7 eight
//!   lanes further on, `mma.sp`'s register layout in lanes. The sparsity selector
//!   (instruction descriptor bits 0-1) picks one of two columns: 0 or 1, else a fault.
//! - `.kind::i8` and `.kind::f8f6f4` (16 chunks per row, K = 64; one figure, Figure 267, for
//!   both): lane `r`, column `col + g / 8`, bits `4·(g % 8)..+4`; the selector must be 0
//!   (§9.7.16.10.8.4.6), else a fault.
//!
//! `tcgen05.mma.ws.sp` with M = 64 or 32 places rows `0..M` as M = 128 does, and repeats the
//! metadata `128 / M` times, `M` lanes apart (each of the `.ws` layouts' lane groups computes
//! its part of N for the same rows from its own lanes); a copy that differs from the first
//! faults (a program that does not repeat it has no defined result here).
//!
//! ⚠ `tcgen05.mma.sp` with M = 64 (Layout F, Figures 262, 264, 266, not seen): each block of 16
//! rows sits in the lanes of D's rows, as with M = 128 — rows `16·b..16·b + 16` from lane
//! `32·b + a` of partition `b`, `a` the lane alignment (0 or 16) — with the M = 128 places
//! inside the block: `.kind::f16`/`::tf32` row `r`, field `g` at lane `32·(r / 16) + a + r % 8 +
//! 8·(g / 4)`, the 8-bit kinds row `r` at lane `32·(r / 16) + a + r % 16`, the columns and bits
//! as above. The ISA's one rule in text (§9.7.16.10.8.5): Layout F "must use the same alignment
//! across matrices A, D and the sparsity metadata matrix", so the metadata address's lane is
//! `a`. No public code writes this layout (CUTLASS's `tmem_e_frg` asserts M = 128): ptxjit's
//! reading, to check on a GPU.
//!
//! # Block-scaled kinds (§9.7.16.10.8.2-3, §9.7.16.10.8.4.5-6)
//! `.kind::mxf8f6f4` is 2:4 as `.kind::f8f6f4` (K = 64); `.kind::mxf4` and `::mxf4nvf4` are
//! "pair-wise structured sparse at a granularity of 4:8" (K = 128): each chunk of eight
//! elements keeps two pairs, and the 4-bit field names the pairs' places (0-3) as a 2:4 field
//! names elements. All three share Figure 267 with `.kind::i8`/`::f8f6f4` (16 fields per row,
//! lane `r`, columns `col`, `col + 1`); their sparsity selector "is assumed to be 0"
//! (instruction descriptor bits 0-1 are not read).

use super::multiply::MmaFault;
use super::{FaultKind, TensorMemory};
use crate::ir::Tc05Kind;

/// The fields §9.7.16.10.8.2 calls meaningful for a 2:4 chunk.
const MEANINGFUL: [u32; 7] = [0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b0110, 0b1110];

/// The tensor-memory lane (of the first copy), column and bit of field `g` of row `r` (see
/// the module documentation); `first` is the metadata's first column and `base` the lane of
/// the first row of `r`'s block of 16 rows.
fn place(kind: Tc05Kind, first: u32, base: u32, r: u64, g: u64) -> (u32, u32, u64) {
    match kind {
        Tc05Kind::I8
        | Tc05Kind::F8f6f4
        | Tc05Kind::Mxf8f6f4
        | Tc05Kind::Mxf4
        | Tc05Kind::Mxf4nvf4 => (base + (r % 16) as u32, first + (g / 8) as u32, 4 * (g % 8)),
        Tc05Kind::F16 | Tc05Kind::Tf32 => (
            base + (r % 8 + 8 * (g / 4)) as u32,
            first,
            4 * (4 * ((r % 16) / 8) + g % 4),
        ),
    }
}

/// Which lanes the metadata of an M-row multiply takes (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MetaLanes {
    /// M = 128 (one CTA, or each CTA of a `.cta_group::2` M = 256 pair), or `.ws` with
    /// M = 64 or 32: the block of row `r` from lane `16·(r / 16)`, repeated every M lanes.
    Rows,
    /// M = 64 without `.ws` (Layout F): the block of row `r` from lane `32·(r / 16) + align`.
    LayoutF { align: u32 },
}

/// The M×K A (`m` rows, row-major element bits) from its stored M×K/2 half `stored` and the
/// metadata at tensor-memory address `meta` (see the module documentation); `m` is 128, 64
/// (Layout F, or `.ws`) or 32 (`.ws`; the `.ws` metadata repeated `128 / m` times).
#[allow(clippy::too_many_arguments)]
pub(super) fn expand(
    tm: &TensorMemory,
    meta: u32,
    kind: Tc05Kind,
    selector: u32,
    stored: &[u64],
    m: u64,
    k: u64,
    lanes: MetaLanes,
) -> Result<Vec<u64>, MmaFault> {
    let tmem = |e: String| (FaultKind::TensorMemory, e);
    let (lane0, col) = (meta >> 16, meta & 0xffff);
    let align = match lanes {
        MetaLanes::Rows => 0,
        MetaLanes::LayoutF { align } => align,
    };
    if lane0 != align {
        return Err(tmem(match lanes {
            MetaLanes::Rows => {
                format!("tcgen05.mma.sp metadata at lane {lane0}; it starts at lane 0")
            }
            MetaLanes::LayoutF { .. } => format!(
                "tcgen05.mma.sp metadata at lane {lane0}, D at lane {align}: with M = 64 \
                 (Layout F) A, D and the metadata use the same lane alignment (§9.7.16.10.8.5)"
            ),
        }));
    }
    // Elements per unit (a pair for the 4:8 kinds), fields per row and the elements each
    // covers.
    let unit: u64 = if matches!(kind, Tc05Kind::Mxf4 | Tc05Kind::Mxf4nvf4) {
        2
    } else {
        1
    };
    let (fields, width) = if kind == Tc05Kind::Tf32 {
        (k / 2, 2)
    } else {
        (k / (4 * unit), 4 * unit)
    };
    // (first column, columns) of the metadata.
    let (first, ncols) = match kind {
        Tc05Kind::F16 | Tc05Kind::Tf32 if selector <= 1 => (col + selector, 1),
        Tc05Kind::I8 | Tc05Kind::F8f6f4 if selector == 0 => (col, (fields / 8) as u32),
        // "Assumed to be 0" (§9.7.16.10.8.4.6): the selector is not read.
        Tc05Kind::Mxf8f6f4 | Tc05Kind::Mxf4 | Tc05Kind::Mxf4nvf4 => (col, (fields / 8) as u32),
        Tc05Kind::F16 | Tc05Kind::Tf32 | Tc05Kind::I8 | Tc05Kind::F8f6f4 => {
            return Err((
                FaultKind::SparseMetadata,
                format!(
                    "tcgen05.mma.sp.kind::{kind}: sparsity selector {selector} (instruction \
                     descriptor bits 0-1) is not {}",
                    if matches!(kind, Tc05Kind::F16 | Tc05Kind::Tf32) {
                        "0 or 1"
                    } else {
                        "0"
                    }
                ),
            ))
        }
    };
    tm.check(0, 128, first, ncols)
        .map_err(|e| tmem(format!("tcgen05.mma.sp metadata: {e}")))?;
    let copies = match lanes {
        MetaLanes::Rows => (128 / m) as u32,
        MetaLanes::LayoutF { .. } => 1,
    };
    let mut a = vec![0u64; (m * k) as usize];
    for r in 0..m {
        for g in 0..fields {
            let base = match lanes {
                MetaLanes::Rows => 16 * (r / 16) as u32,
                MetaLanes::LayoutF { align } => 32 * (r / 16) as u32 + align,
            };
            let (lane, column, shift) = place(kind, first, base, r, g);
            let field = (tm.get(lane, column) >> shift) & 0xf;
            let bad = |what: &str| {
                (
                    FaultKind::SparseMetadata,
                    format!(
                        "sparsity metadata {field:#06b} for row {r}, columns {}..{} of A {what} \
                         (tensor memory lane {lane}, column {column}, bits {}..{})",
                        width * g,
                        width * g + width - 1,
                        shift + 3,
                        shift
                    ),
                )
            };
            for c in 1..copies {
                let other = (tm.get(lane + c * m as u32, column) >> shift) & 0xf;
                if other != field {
                    return Err(bad(&format!(
                        "differs from its copy {other:#06b} in lane {} (with M = {m} the \
                         metadata is repeated every {m} lanes)",
                        lane + c * m as u32
                    )));
                }
            }
            let places: &[u32] = match (kind, field) {
                (Tc05Kind::Tf32, 0b0100) => &[0],
                (Tc05Kind::Tf32, 0b1110) => &[1],
                (Tc05Kind::Tf32, _) => {
                    return Err(bad(
                        "is not 0b0100 or 0b1110 (.kind::tf32 takes only these)",
                    ))
                }
                _ if MEANINGFUL.contains(&field) => &[field & 3, field >> 2],
                _ => return Err(bad("is not a meaningful value")),
            };
            // Stored unit `e` of the field goes to place `p` (a unit is an element, or a pair
            // of elements for the 4:8 kinds).
            for (e, &p) in places.iter().enumerate() {
                for x in 0..unit {
                    let v = stored[(r * k / 2 + g * width / 2 + e as u64 * unit + x) as usize];
                    a[(r * k + g * width + u64::from(p) * unit + x) as usize] = v;
                }
            }
        }
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tensor memory with 32 columns allocated and `word` in columns `cols` of every lane.
    fn filled(cols: std::ops::Range<u32>, word: u32) -> TensorMemory {
        let tm = TensorMemory::default();
        assert_eq!(tm.alloc(32), Ok(0));
        for lane in 0..128 {
            for col in cols.clone() {
                tm.set(lane, col, word);
            }
        }
        tm
    }

    /// Check that `err` is a metadata fault whose detail contains each of `parts`.
    fn fault_names(err: (FaultKind, String), parts: &[&str]) {
        assert_eq!(err.0, FaultKind::SparseMetadata);
        assert!(parts.iter().all(|p| err.1.contains(p)), "{}", err.1);
    }

    /// The `.kind::f16` map puts each (row, chunk) field in its own 4 bits of the 128 lanes of
    /// one column, and the `.kind::i8` map in lane `row` of two columns.
    #[test]
    fn metadata_places_are_distinct() {
        let mut seen = std::collections::HashSet::new();
        for r in 0..128u64 {
            for c in 0..8u64 {
                let lane = 16 * (r / 16) + r % 8 + 8 * (c / 4);
                let shift = 4 * (4 * ((r % 16) / 8) + c % 4);
                assert!(lane < 128 && shift < 32);
                assert!(seen.insert((lane, shift)), "row {r} chunk {c}");
            }
        }
        assert_eq!(seen.len(), 128 * 8);
    }

    /// A row of all-`0b0110` fields (places 2 and 1) and a bad field.
    #[test]
    fn expand_places_and_faults() {
        let tm = filled(0..2, 0x6666_6666);
        let stored: Vec<u64> = (0..128 * 32).collect();
        let a = expand(&tm, 0, Tc05Kind::I8, 0, &stored, 128, 64, MetaLanes::Rows).expect("valid");
        // Row 1, chunk 0: stored elements 32, 33 at places 2 and 1.
        assert_eq!(&a[64..68], &[0, 33, 32, 0]);
        tm.set(5, 1, 0x6666_6566);
        let err =
            expand(&tm, 0, Tc05Kind::I8, 0, &stored, 128, 64, MetaLanes::Rows).expect_err("0b0101");
        fault_names(err, &["0b0101 for row 5, columns 40..43"]);
        assert!(expand(&tm, 0, Tc05Kind::I8, 1, &stored, 128, 64, MetaLanes::Rows).is_err());
    }

    /// `.kind::tf32` (1:2): one stored element per pair, `0b0100` at the pair's first place
    /// and `0b1110` at its second, in the `.kind::f16` places; other fields fault.
    #[test]
    fn tf32_pairs() {
        // Lane 0 holds pairs 0-3 of rows 0 (bits 0-15) and 8 (bits 16-31); lane 8 pairs 4-7.
        let tm = filled(1..2, 0x4444_4444);
        tm.set(0, 1, 0x4444_44e4);
        tm.set(8, 1, 0xe444_4444);
        let stored: Vec<u64> = (1..=128 * 8).collect();
        let a =
            expand(&tm, 0, Tc05Kind::Tf32, 1, &stored, 128, 16, MetaLanes::Rows).expect("valid");
        // Row 0: pair 0 at place 0, pair 1 at place 1 (0b1110), the rest at place 0.
        assert_eq!(&a[0..6], &[1, 0, 0, 2, 3, 0]);
        // Row 8, pair 7 (lane 8, bits 28-31): stored element 8·8 + 7 + 1 at place 1.
        assert_eq!(&a[8 * 16 + 14..8 * 16 + 16], &[0, 72]);
        tm.set(3, 1, 0x4444_4c44);
        let err = expand(&tm, 0, Tc05Kind::Tf32, 1, &stored, 128, 16, MetaLanes::Rows)
            .expect_err("0b1100");
        fault_names(err, &["0b1100 for row 3, columns 4..5"]);
        assert!(expand(&tm, 0, Tc05Kind::Tf32, 2, &stored, 128, 16, MetaLanes::Rows).is_err());
    }

    /// `.ws` with M = 32: the metadata of rows 0..32 repeated in each 32-lane partition; a
    /// copy that differs faults.
    #[test]
    fn ws_copies() {
        let tm = filled(0..2, 0x4444_4444);
        let stored: Vec<u64> = (0..32 * 32).collect();
        assert!(expand(&tm, 0, Tc05Kind::I8, 0, &stored, 32, 64, MetaLanes::Rows).is_ok());
        tm.set(96 + 5, 1, 0x4444_4944);
        let err =
            expand(&tm, 0, Tc05Kind::I8, 0, &stored, 32, 64, MetaLanes::Rows).expect_err("copy");
        fault_names(err, &["row 5, columns 40..43", "lane 101"]);
    }

    /// M = 64 (Layout F) at lane alignment 16: row r's 8-bit fields at lane 32·(r / 16) + 16 +
    /// r % 16; the metadata address must be at the same lane.
    #[test]
    fn layout_f_rows() {
        let tm = filled(0..2, 0x4444_4444);
        // Row 17 (partition 1, lane 32 + 16 + 1 = 49), chunk 3: 0b1000 (places 0 and 2).
        tm.set(49, 0, 0x4444_8444);
        let stored: Vec<u64> = (0..64 * 32).collect();
        let f = MetaLanes::LayoutF { align: 16 };
        let a = expand(&tm, 16 << 16, Tc05Kind::I8, 0, &stored, 64, 64, f).expect("valid");
        let row = &a[17 * 64 + 12..17 * 64 + 16];
        assert_eq!(row, &[17 * 32 + 6, 0, 17 * 32 + 7, 0]);
        assert!(
            expand(&tm, 0, Tc05Kind::I8, 0, &stored, 64, 64, f).is_err(),
            "lane 0"
        );
        // .kind::f16: row 17, field 5 at lane 48 + 1 + 8, bits 4..8 of the low half.
        tm.set(57, 2, 0x4444_4484);
        for lane in (0..128).filter(|&l| l != 57) {
            tm.set(lane, 2, 0x4444_4444);
        }
        let stored: Vec<u64> = (0..64 * 16).collect();
        let a = expand(&tm, 16 << 16 | 2, Tc05Kind::F16, 0, &stored, 64, 32, f).expect("f16");
        assert_eq!(
            &a[17 * 32 + 20..17 * 32 + 24],
            &[17 * 16 + 10, 0, 17 * 16 + 11, 0]
        );
    }

    /// `.kind::mxf4` (4:8 in pairs): a field names the places of two pairs of elements.
    #[test]
    fn mxf4_pairs() {
        let tm = filled(0..2, 0x4444_4444);
        // Row 2, chunk 0: 0b1101 (pair places 1 and 3); the selector is not read.
        tm.set(2, 0, 0x4444_444d);
        let stored: Vec<u64> = (0..128 * 64).collect();
        let a = expand(
            &tm,
            0,
            Tc05Kind::Mxf4,
            3,
            &stored,
            128,
            128,
            MetaLanes::Rows,
        )
        .expect("valid");
        let s0 = 2 * 64;
        assert_eq!(
            &a[2 * 128..2 * 128 + 8],
            &[0, 0, s0, s0 + 1, 0, 0, s0 + 2, s0 + 3]
        );
        // Chunk 1 (0b0100: pairs 0 and 1) takes stored elements 4..8.
        assert_eq!(
            &a[2 * 128 + 8..2 * 128 + 12],
            &[s0 + 4, s0 + 5, s0 + 6, s0 + 7]
        );
    }
}
