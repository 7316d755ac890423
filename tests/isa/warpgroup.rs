//! Warp-group tables: the parts of the `>>>` format (`tests/isa/harness.rs`) that CTAs of
//! several warps, shared-memory matrix descriptors and tensor memory need (`wgmma.*`,
//! `tcgen05.*`, `mbarrier.*` across warps).
//!
//! - `; warps N` (1 ≤ N ≤ 32): each case runs as one CTA of N warps; lane rows are numbered
//!   0 … 32·N − 1 (thread `%tid.x`), so warp w's lanes are rows 32w … 32w + 31. A warpgroup
//!   (`wgmma`) is `; warps 4`. The image copies and `bar.sync 0` around the PTX take the whole
//!   CTA; a lane without a row still skips the PTX.
//! - Input type `sdesc`: a 64-bit shared-memory matrix descriptor (PTX ISA "Matrix Descriptor
//!   Format", the same start-address field for `wgmma` and `tcgen05`: bits 0-13 hold the
//!   address divided by 16). The row gives the whole descriptor with the start-address field
//!   holding the matrix's offset into the case's `.shared` image divided by 16; the harness adds
//!   the image's shared address divided by 16 (a group with an `sdesc` input aligns its image to
//!   1024 bytes, the 128-byte swizzle's repeat, so the base-offset field stays 0).
//! - Tensor memory: a snippet allocates its own columns (`tcgen05.alloc` writes the address to
//!   a word of the `.shared` image, the snippet loads it into a scratch register and frees the
//!   columns with `tcgen05.dealloc` and `tcgen05.relinquish_alloc_permit` at its end), so no
//!   tensor-memory image is needed: values go in and come out through `tcgen05.st`/`tcgen05.ld`
//!   of the `.32x32b` shape (lane = the thread's row within its warp's 32-lane partition,
//!   column = the register's index: PTX ISA "Matrix fragments for tcgen05.ld/st", Figure
//!   `32x32b`), and the other shapes, `tcgen05.cp`, `tcgen05.shift` and `tcgen05.mma` are
//!   checked against that layout. A word of the image that holds the allocated address is
//!   expected as `*` (its value is the allocator's).

use crate::harness::WarpGroup;

/// `warps N` in a `>>>` header's clauses: `Some(N)`; another clause: `None`.
pub fn warps_clause(clause: &str, line: usize) -> Result<Option<usize>, String> {
    let Some(n) = clause.strip_prefix("warps ") else {
        return Ok(None);
    };
    n.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=32).contains(n))
        .map(Some)
        .ok_or_else(|| {
            format!(
                "line {line}: 'warps N' needs 1 <= N <= 32, not '{}'",
                n.trim()
            )
        })
}

/// The alignment of a group's `.shared` image: 1024 bytes where a descriptor points into it
/// (a swizzle pattern's start), else 128.
pub fn shared_align(w: &WarpGroup) -> usize {
    if w.ins.iter().any(|(_, t)| *t == crate::harness::Ty::SDesc) {
        1024
    } else {
        128
    }
}

/// PTX adding the `.shared` image's address (`%isa_s`) >> 4 to descriptor `name`'s start
/// address field.
pub fn desc_fixup(name: &str) -> String {
    format!(
        "cvt.u64.u32 %isa_off, %isa_s;\nshr.u64 %isa_off, %isa_off, 4;\nadd.u64 %{name}, %{name}, %isa_off;\n"
    )
}
