//! Where a `tcgen05.mma` keeps D in tensor memory: the data path layouts of PTX ISA
//! §9.7.16.10.5 ("Data Path Layout Organization", Layouts A, B, D, E, F and G).
//!
//! The ISA's table picks the layout by M and `.ws`; its figures place the rows. ptxjit reads
//! them as follows (CUTLASS's `tmem_frg` atoms for the same layouts agree), for row `r` and
//! column `j` of an M×N D whose address has lane `l0` and column `c0`:
//! - Layout D (M = 128, dense or `.ws`): lane `r`, column `c0 + j`; `l0` must be 0.
//! - Layout F (M = 64, not `.ws`; "4x1, 1/2 datapath utilized"): each warp's 32 lanes hold 16
//!   rows, lane `32·(r / 16) + l0 + r % 16`, column `c0 + j`; `l0` (the "lane alignment") is
//!   0 or 16, and an A in tensor memory must use the same alignment as D.
//! - Layout E (M = 64, `.ws`; "2x3"): N is folded in two halves, lane `r + 64·(j / (N/2))`,
//!   column `c0 + j % (N/2)`; `l0` must be 0.
//! - Layout G (M = 32, `.ws`; "1x4"): N is folded in four quarters, lane `r + 32·(j / (N/4))`,
//!   column `c0 + j % (N/4)`; `l0` must be 0.
//! - `.cta_group::2` ([`DataPath::pair`]): each CTA of the pair holds M/2 rows of D (the even
//!   rank rows `0..M/2`); Layout A (M = 256) places a CTA's row `r` as Layout D, Layout B
//!   (M = 128) as Layout E; `l0` must be 0.

/// One of the data path layouts (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DataPath {
    /// M = 128: row `r` in lane `r`.
    D,
    /// M = 64, `.ws`: N folded in two halves over lanes 0..63 and 64..127.
    E,
    /// M = 64, not `.ws`: 16 rows per 32-lane partition, from lane `align` of each.
    F { align: u32 },
    /// M = 32, `.ws`: N folded in four quarters over the four 32-lane partitions.
    G,
}

impl DataPath {
    /// The layout of an M-row D (M from a decoded instruction descriptor: 32, 64 or 128)
    /// for `.ws` or not, whose tensor-memory address has lane `lane`; an error names the
    /// lane the layout does not take.
    pub(super) fn of(m: u32, ws: bool, lane: u32) -> Result<DataPath, String> {
        let path = match (m, ws) {
            (128, _) => DataPath::D,
            (64, true) => DataPath::E,
            (64, false) if lane == 0 || lane == 16 => return Ok(DataPath::F { align: lane }),
            (64, false) => {
                return Err(format!(
                    "tcgen05.mma: D at lane {lane}; with M = 64 (Layout F) D starts at lane 0 \
                     or 16"
                ))
            }
            (32, true) => DataPath::G,
            _ => {
                return Err(format!(
                    "tcgen05.mma: M = {m} has no data path layout{}",
                    if ws { " for .ws" } else { "" }
                ))
            }
        };
        if lane != 0 {
            return Err(format!(
                "tcgen05.mma: D at lane {lane}; with M = {m}{} D starts at lane 0",
                if ws { " (.ws)" } else { "" }
            ));
        }
        Ok(path)
    }

    /// The layout of each CTA's half of a `.cta_group::2` D of `m` rows (128 or 256) whose
    /// address has lane `lane` (which must be 0): M = 256 is Layout A, each CTA's 128 rows
    /// as Layout D's; M = 128 is Layout B, each CTA's 64 rows as Layout E's (N folded in
    /// halves over lanes 0-63 and 64-127). ⚠ ptxjit's reading of the ISA's figures.
    pub(super) fn pair(m: u32, lane: u32) -> Result<DataPath, String> {
        let path = match m {
            256 => DataPath::D,
            128 => DataPath::E,
            _ => {
                return Err(format!(
                    "tcgen05.mma.cta_group::2: M = {m} has no data path layout"
                ))
            }
        };
        if lane != 0 {
            return Err(format!(
                "tcgen05.mma.cta_group::2: D at lane {lane}; D starts at lane 0 (Layout {})",
                if m == 256 { 'A' } else { 'B' }
            ));
        }
        Ok(path)
    }

    /// The tensor-memory columns an M×`n` D takes from its first column.
    pub(super) fn cols(self, n: u32) -> u32 {
        match self {
            DataPath::D | DataPath::F { .. } => n,
            DataPath::E => n / 2,
            DataPath::G => n / 4,
        }
    }

    /// The (lane, column offset) of row `r`, column `j` of an M×`n` D.
    pub(super) fn place(self, n: u32, r: u32, j: u32) -> (u32, u32) {
        match self {
            DataPath::D => (r, j),
            DataPath::F { align } => (32 * (r / 16) + align + r % 16, j),
            DataPath::E => (r + 64 * (j / (n / 2)), j % (n / 2)),
            DataPath::G => (r + 32 * (j / (n / 4)), j % (n / 4)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every layout puts the M×N elements in distinct cells of its lanes and columns (the
    /// ISA's figures fill the data path without overlap), and Layout F leaves the other
    /// alignment's lanes alone.
    #[test]
    fn layouts_are_one_to_one() {
        for (path, m) in [
            (DataPath::D, 128),
            (DataPath::E, 64),
            (DataPath::F { align: 0 }, 64),
            (DataPath::F { align: 16 }, 64),
            (DataPath::G, 32),
        ] {
            for n in [64, 128, 256] {
                let mut seen = std::collections::HashSet::new();
                for r in 0..m {
                    for j in 0..n {
                        let (l, c) = path.place(n, r, j);
                        assert!(l < 128 && c < path.cols(n), "{path:?} {r} {j}");
                        assert!(seen.insert((l, c)), "{path:?} N {n}: ({r}, {j}) twice");
                        if let DataPath::F { align } = path {
                            assert_eq!(l % 32 / 16, align / 16);
                        }
                    }
                }
            }
        }
        // Layout E: row 5, column N/2 + 3 is in lane 69, column 3; Layout G: row 7,
        // column 3N/4 + 1 in lane 103, column 1; Layout F: row 17 at lane 33 (+16).
        assert_eq!(DataPath::E.place(128, 5, 67), (69, 3));
        assert_eq!(DataPath::G.place(64, 7, 49), (103, 1));
        assert_eq!(DataPath::F { align: 0 }.place(64, 17, 9), (33, 9));
        assert_eq!(DataPath::F { align: 16 }.place(64, 17, 9), (49, 9));
    }

    /// `.cta_group::2`: M = 256 is Layout A (each CTA's rows as Layout D), M = 128 Layout B
    /// (each CTA's 64 rows as Layout E); D starts at lane 0.
    #[test]
    fn pair_layouts() {
        assert_eq!(DataPath::pair(256, 0), Ok(DataPath::D));
        assert_eq!(DataPath::pair(128, 0), Ok(DataPath::E));
        assert!(DataPath::pair(128, 16).is_err());
        assert!(DataPath::pair(64, 0).is_err());
        // Layout B: local row 3, column N/2 + 1 of N = 32 is lane 67, column 1.
        assert_eq!(
            DataPath::pair(128, 0).map(|p| p.place(32, 3, 17)),
            Ok((67, 1))
        );
    }

    /// The lane of D's address: 0 or 16 for Layout F, 0 for the others.
    #[test]
    fn lane_alignment() {
        assert_eq!(DataPath::of(64, false, 16), Ok(DataPath::F { align: 16 }));
        assert!(DataPath::of(64, false, 32).is_err());
        assert!(DataPath::of(64, true, 16).is_err());
        assert!(DataPath::of(128, false, 16).is_err());
        assert_eq!(DataPath::of(32, true, 0), Ok(DataPath::G));
        assert!(DataPath::of(32, false, 0).is_err());
    }
}
