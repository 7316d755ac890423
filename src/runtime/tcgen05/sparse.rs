//! The sparse A of `tcgen05.mma.sp` (PTX ISA §9.7.16.10.8 "Sparse Matrices"): the stored half
//! of A and the metadata in tensor memory give the M×K A of the multiply.
//!
//! # Granularity and fields (§9.7.16.10.8.2)
//! `.kind::f16`, `.kind::i8` and `.kind::f8f6f4` are 2:4: each chunk of four elements of a row has two stored
//! elements, at the places the chunk's 4-bit field names (the first in its low 2 bits, the
//! second in its high 2 bits). The ISA lists the meaningful fields, `0b0100`, `0b1000`,
//! `0b1100`, `0b1001`, `0b1101`, `0b0110` and `0b1110`; any other field faults
//! ([`FaultKind::SparseMetadata`]) and nothing is written. (`0b0110` names places 2 and 1:
//! the first stored element goes to place 2, the second to place 1.)
//!
//! # Metadata in tensor memory (§9.7.16.10.8.4, M = 128)
//! The ISA gives the layouts as figures only; ptxjit reads them as public sm_100 code writes
//! them (docs/isa-notes.md). The metadata address must be at lane 0 (as D's, M = 128); `col`
//! is its column. For row `r` and chunk `c` of A:
//! - `.kind::f16` (8 chunks per row, K = 32): lane `16·(r / 16) + r % 8 + 8·(c / 4)`, column
//!   `col + selector`, bits `4·(4·((r % 16) / 8) + c % 4)..+4` — each block of 16 rows in 16
//!   lanes, the chunks 0-3 of rows `r` and `r + 8` in the low and high halves of one lane and
//!   chunks 4-7 eight lanes further on, `mma.sp`'s register layout in lanes. The sparsity
//!   selector (instruction descriptor bits 0-1) picks one of two columns: 0 or 1, else a
//!   fault.
//! - `.kind::i8` and `.kind::f8f6f4` (16 chunks per row, K = 64; one figure, Figure 267, for
//!   both): lane `r`, column `col + c / 8`, bits `4·(c % 8)..+4`; the selector must be 0
//!   (§9.7.16.10.8.4.6), else a fault.

use super::{FaultKind, MmaFault, TensorMemory};
use crate::ir::Tc05Kind;

/// The fields §9.7.16.10.8.2 calls meaningful for a 2:4 chunk.
const MEANINGFUL: [u32; 7] = [0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b0110, 0b1110];

/// The M×K A (`m` rows, row-major element bits) from its stored M×K/2 half `stored` and the
/// metadata at tensor-memory address `meta` (see the module documentation).
pub(super) fn expand(
    tm: &TensorMemory,
    meta: u32,
    kind: Tc05Kind,
    selector: u32,
    stored: &[u64],
    m: u64,
    k: u64,
) -> Result<Vec<u64>, MmaFault> {
    let tmem = |e: String| (FaultKind::TensorMemory, e);
    let (lane0, col) = (meta >> 16, meta & 0xffff);
    if lane0 != 0 {
        return Err(tmem(format!(
            "tcgen05.mma.sp metadata at lane {lane0}; with M = 128 it starts at lane 0"
        )));
    }
    let chunks = k / 4;
    // (first column, columns) of the metadata.
    let (first, ncols) = match kind {
        Tc05Kind::F16 if selector <= 1 => (col + selector, 1),
        Tc05Kind::I8 | Tc05Kind::F8f6f4 if selector == 0 => (col, (chunks / 8) as u32),
        Tc05Kind::F16 | Tc05Kind::I8 | Tc05Kind::F8f6f4 => {
            return Err((
                FaultKind::SparseMetadata,
                format!(
                    "tcgen05.mma.sp.kind::{kind}: sparsity selector {selector} (instruction \
                     descriptor bits 0-1) is not {}",
                    if kind == Tc05Kind::F16 { "0 or 1" } else { "0" }
                ),
            ))
        }
        Tc05Kind::Tf32 | Tc05Kind::Mxf8f6f4 | Tc05Kind::Mxf4 | Tc05Kind::Mxf4nvf4 => {
            return Err(tmem(format!(
                "tcgen05.mma.sp.kind::{kind} is not supported yet"
            )))
        }
    };
    tm.check(0, m as u32, first, ncols)
        .map_err(|e| tmem(format!("tcgen05.mma.sp metadata: {e}")))?;
    let mut a = vec![0u64; (m * k) as usize];
    for r in 0..m {
        for c in 0..chunks {
            let (lane, column, shift) = match kind {
                Tc05Kind::I8 | Tc05Kind::F8f6f4 => (r, first as u64 + c / 8, 4 * (c % 8)),
                Tc05Kind::F16
                | Tc05Kind::Tf32
                | Tc05Kind::Mxf8f6f4
                | Tc05Kind::Mxf4
                | Tc05Kind::Mxf4nvf4 => (
                    16 * (r / 16) + r % 8 + 8 * (c / 4),
                    first as u64,
                    4 * (4 * ((r % 16) / 8) + c % 4),
                ),
            };
            let field = (tm.get(lane as u32, column as u32) >> shift) & 0xf;
            if !MEANINGFUL.contains(&field) {
                return Err((
                    FaultKind::SparseMetadata,
                    format!(
                        "sparsity metadata {field:#06b} for row {r}, columns {}..{} of A is \
                         not a meaningful value (tensor memory lane {lane}, column {column}, \
                         bits {}..{})",
                        4 * c,
                        4 * c + 3,
                        shift + 3,
                        shift
                    ),
                ));
            }
            for (e, place) in [field & 3, field >> 2].into_iter().enumerate() {
                let v = stored[(r * k / 2 + 2 * c) as usize + e];
                a[(r * k + 4 * c + place as u64) as usize] = v;
            }
        }
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let tm = TensorMemory::default();
        assert_eq!(tm.alloc(32), Ok(0));
        for lane in 0..128 {
            tm.set(lane, 0, 0x6666_6666);
            tm.set(lane, 1, 0x6666_6666);
        }
        let stored: Vec<u64> = (0..128 * 32).collect();
        let a = expand(&tm, 0, Tc05Kind::I8, 0, &stored, 128, 64).expect("valid");
        // Row 1, chunk 0: stored elements 32, 33 at places 2 and 1.
        assert_eq!(&a[64..68], &[0, 33, 32, 0]);
        tm.set(5, 1, 0x6666_6566);
        let err = expand(&tm, 0, Tc05Kind::I8, 0, &stored, 128, 64).expect_err("0b0101");
        assert_eq!(err.0, FaultKind::SparseMetadata);
        assert!(
            err.1.contains("0b0101 for row 5, columns 40..43"),
            "{}",
            err.1
        );
        assert!(expand(&tm, 0, Tc05Kind::I8, 1, &stored, 128, 64).is_err());
    }
}
