//! The scale factors of a block-scaled `tcgen05.mma` (PTX ISA §9.7.16.10.7 "Block Scaling"):
//! where scale_A and scale_B sit in tensor memory.
//!
//! The ISA's text: the factors are "duplicated to all 32 lane partitions"; the scale factor ID
//! (instruction descriptor bits 29-30 for A, 4-5 for B) is a byte offset in the word with
//! `.scale_vec::1X`, a half-word one (0 or 2) with `::2X`, 0 with `::4X`. Which lane and column
//! hold which row is given in figures only (Figures 231-242); ptxjit reads them as public sm_100
//! code writes them (⚠ docs/isa-notes.md), with `nv` factors per row of A (column of B) in
//! bytes `ID..ID + nv` of one cell:
//! - 4x1 ([`SfLanes::FourByOne`], scale_A always, scale_B of `.cta_group::1` and of a
//!   `.cta_group::2` M = 256 pair): entry `i` (a row of A, a column of B) at lane `i % 32`,
//!   column `col + i / 32` of each of the four 32-lane partitions, which must all hold the
//!   same bytes (CUTLASS `UMMA::tmem_sf_frg`, `ScaleFactorDuplicated4by1`).
//! - 2x2 ([`SfLanes::TwoByTwo`], scale_B of a `.cta_group::2` M = 128 pair, whose D is Layout
//!   B: lanes 0-63 compute columns `0..N/2`, lanes 64-127 the rest): column `j` of B, `h = j /
//!   (N/2)`, `i = j % (N/2)`, at lane `64·h + i % 32` and 32 lanes further, column `col + i /
//!   32`; the two must agree (CUTLASS's `ScaleFactorDuplicated2by2` atom; Apache TVM's tirx
//!   CTA-pair probe of `.kind::mxf8f6f4` M = 128 writes scale_B's two N halves to partitions
//!   0-1 and 2-3).
//!
//! With `.cta_group::2` each CTA reads its own tensor memory at the same addresses: scale_A
//! holds the CTA's own M/2 rows, scale_B all N columns (the CTA's half of D needs them all).

use super::multiply::{tmem_fault, MmaFault};
use super::{InstrDesc, TensorMemory, LANES};
use crate::runtime::mma::scale_value;

/// How a scale-factor vector's entries sit in the 32-lane partitions (see the module
/// documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SfLanes {
    /// Each entry in all four partitions.
    FourByOne,
    /// Entries `0..n/2` in partitions 0 and 1, the rest in partitions 2 and 3.
    TwoByTwo,
}

impl SfLanes {
    /// The lanes (all holding the same bytes) and the column offset of entry `i` of `count`.
    fn place(self, i: u32, count: u32) -> (Vec<u32>, u32) {
        match self {
            SfLanes::FourByOne => ((0..4).map(|q| 32 * q + i % 32).collect(), i / 32),
            SfLanes::TwoByTwo => {
                let (h, i) = (i / (count / 2), i % (count / 2));
                ((0..2).map(|d| 64 * h + 32 * d + i % 32).collect(), i / 32)
            }
        }
    }

    /// The columns `count` entries take.
    fn cols(self, count: u32) -> u32 {
        match self {
            SfLanes::FourByOne => count.div_ceil(32),
            SfLanes::TwoByTwo => (count / 2).div_ceil(32),
        }
    }
}

/// The scale factors of a block-scaled `tcgen05.mma` as f32 bits, read from `tm`: scale_A
/// (`rows` rows × `nv`, row-major) at `sa` and scale_B (N columns × `nv`) at `sb`, scale_B
/// placed as `sfb` says (see the module documentation). The addresses' lane (bits 16-29) must
/// be 0; bits 30-31 are not read (CUTLASS keeps its byte index there and passes the ID in the
/// descriptor). Errors (tensor-memory faults): an ID that does not fit the vector size, ue4m3
/// factors with `::1X`/`::2X` or with bit 7 set, a lane other than 0, columns outside the
/// allocations, copies that differ.
pub(super) fn block_scales(
    tm: &TensorMemory,
    id: &InstrDesc,
    nv: u32,
    (sa, rows): (u32, u32),
    (sb, sfb): (u32, SfLanes),
) -> Result<(Vec<u64>, Vec<u64>), MmaFault> {
    let one = |which: char, addr: u32, sfid: u32, count: u32, lanes: SfLanes| {
        let field = if which == 'A' { "29-30" } else { "4-5" };
        let valid = match nv {
            1 => sfid <= 3,
            2 => sfid == 0 || sfid == 2,
            _ => sfid == 0,
        };
        if !valid {
            return Err(tmem_fault(format!(
                "tcgen05.mma: scale factor {which} ID {sfid} (instruction descriptor bits \
                 {field}) does not select {nv} byte(s) of a word with .scale_vec::{nv}X \
                 (1X: 0-3, 2X: 0 or 2, 4X: 0)"
            )));
        }
        if !id.ue8m0 && nv != 4 {
            return Err(tmem_fault(format!(
                "tcgen05.mma: ue4m3 scale factors (instruction descriptor bit 23 clear) need \
                 .scale_vec::4X, not ::{nv}X (Table 55)"
            )));
        }
        let (lane, col) = ((addr >> 16) & 0x3fff, addr & 0xffff);
        if lane != 0 {
            return Err(tmem_fault(format!(
                "tcgen05.mma: scale_{which} at lane {lane}; the scale factors start at lane 0"
            )));
        }
        tm.check(0, LANES, col, lanes.cols(count))
            .map_err(|e| tmem_fault(format!("tcgen05.mma scale_{which}: {e}")))?;
        let mut out = Vec::with_capacity((count * nv) as usize);
        for i in 0..count {
            let (copies, c) = lanes.place(i, count);
            for j in 0..nv {
                let byte = |l: u32| (tm.get(l, col + c) >> (8 * (sfid + j))) as u8;
                let code = byte(copies[0]);
                if let Some(&q) = copies[1..].iter().find(|&&q| byte(q) != code) {
                    return Err(tmem_fault(format!(
                        "tcgen05.mma: scale_{which} factor {j} of {} {i} is {code:#04x} at \
                         tensor-memory lane {} but {:#04x} at lane {q} (column {}): the scale \
                         factors must be duplicated to {}",
                        if which == 'A' { "row" } else { "column" },
                        copies[0],
                        byte(q),
                        col + c,
                        match lanes {
                            SfLanes::FourByOne => "all four 32-lane partitions",
                            SfLanes::TwoByTwo =>
                                "both 32-lane partitions of their half of N (2x2, Layout B)",
                        }
                    )));
                }
                out.push(
                    scale_value(code, id.ue8m0)
                        .map_err(|e| tmem_fault(format!("tcgen05.mma scale_{which}: {e}")))?,
                );
            }
        }
        Ok(out)
    };
    Ok((
        one('A', sa, id.sfa_id, rows, SfLanes::FourByOne)?,
        one('B', sb, id.sfb_id, id.n, sfb)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Tc05Kind;

    /// Scale factors in tensor memory: row i at lane i % 32, column col + i / 32, bytes from the
    /// ID; all four 32-lane partitions must agree; IDs must fit the vector size.
    #[test]
    fn block_scale_factors_in_tensor_memory() {
        let t = TensorMemory::default();
        assert_eq!(t.alloc(32), Ok(0));
        // Word c of lane l: bytes [l, c, 0x7f, 0x80 + l] in every partition.
        for l in 0..LANES {
            for c in 0..8 {
                let i = l % 32;
                t.set(l, c, i | c << 8 | 0x7f << 16 | (0x80 + i) << 24);
            }
        }
        let v = 8 << 17 | 1 << 23 | 8 << 24;
        let id = InstrDesc::decode(v | 1 << 29 | 3 << 4, Tc05Kind::Mxf8f6f4, false).expect("ok");
        let (sa, sb) =
            block_scales(&t, &id, 1, (0, 128), (4, SfLanes::FourByOne)).expect("duplicated");
        // Row 37 of A: lane 5, column 1, byte 1 = 1: 2^(1 - 127). Column 40 of B: lane 8,
        // column 4 + 1, byte 3 = 0x88: 2^(0x88 - 127).
        let f32_bits = |x: f64| u64::from((x as f32).to_bits());
        assert_eq!(sa[37], f32_bits((-126f64).exp2()));
        assert_eq!(sb[40], f32_bits(9f64.exp2()));
        assert_eq!((sa.len(), sb.len()), (128, 64));
        // ::2X with ID 2: bytes 2 and 3 (0x7f: 1.0 in ue8m0).
        let id2 =
            InstrDesc::decode(v | 2 << 29 | 1 << 7 | 1 << 10, Tc05Kind::Mxf4, false).expect("ok");
        let (sa, _) = block_scales(&t, &id2, 2, (0, 128), (0, SfLanes::FourByOne)).expect("ok");
        assert_eq!(
            (sa[2 * 3], sa[2 * 3 + 1]),
            (f32_bits(1.0), f32_bits(4f64.exp2()))
        );
        let bad =
            InstrDesc::decode(v | 1 << 29 | 1 << 7 | 1 << 10, Tc05Kind::Mxf4, false).expect("ok");
        let e = block_scales(&t, &bad, 2, (0, 128), (0, SfLanes::FourByOne))
            .expect_err("ID 1 with ::2X");
        assert!(e.1.contains("scale factor A ID 1"), "{}", e.1);
        t.set(64 + 5, 1, 0);
        let e = block_scales(&t, &id, 1, (0, 128), (4, SfLanes::FourByOne))
            .expect_err("not duplicated");
        assert!(
            e.1.contains("duplicated") && e.1.contains("lane 69"),
            "{}",
            e.1
        );
        assert!(
            block_scales(&t, &id, 1, (1 << 16, 128), (4, SfLanes::FourByOne)).is_err(),
            "lane 1"
        );
        assert!(
            block_scales(&t, &id, 1, (30, 128), (4, SfLanes::FourByOne)).is_err(),
            "past the allocation"
        );
        assert!(scale_value(0xff, true).is_ok_and(|v| f32::from_bits(v as u32).is_nan()));
        assert_eq!(scale_value(0x38, false), Ok(f32_bits(1.0)));
        assert!(scale_value(0x80, false).is_err());
    }

    /// The 2x2 scale_B of a `.cta_group::2` M = 128 pair: columns `0..N/2` in partitions 0-1,
    /// the rest in 2-3; the two partitions of a half must agree. scale_A of a CTA's 64 rows.
    #[test]
    fn two_by_two_scale_b() {
        let t = TensorMemory::default();
        assert_eq!(t.alloc(32), Ok(0));
        // N = 64: column j's factor 100 + j at lane 64·(j / 32) + j % 32 (and + 32), column 0.
        for l in 0..LANES {
            let j = 32 * (l / 64) + l % 32;
            t.set(l, 0, 100 + j);
            t.set(l, 1, 120 + l % 32);
        }
        let v = 8 << 17 | 1 << 23 | 8 << 24;
        let id = InstrDesc::decode_in(v, Tc05Kind::Mxf8f6f4, false, true).expect("pair M = 128");
        let (sa, sb) =
            block_scales(&t, &id, 1, (1, 64), (0, SfLanes::TwoByTwo)).expect("duplicated");
        let f32_bits = |x: f64| u64::from((x as f32).to_bits());
        assert_eq!((sa.len(), sb.len()), (64, 64));
        assert_eq!(sb[40], f32_bits((140f64 - 127.0).exp2()));
        assert_eq!(sa[8], f32_bits((128f64 - 127.0).exp2()));
        // Lane 96 + 3 holds column 35's second copy.
        t.set(99, 0, 7);
        let e = block_scales(&t, &id, 1, (1, 64), (0, SfLanes::TwoByTwo)).expect_err("copy");
        assert!(
            e.1.contains("column 35") && e.1.contains("lane 99"),
            "{}",
            e.1
        );
    }
}
