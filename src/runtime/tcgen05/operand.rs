//! Reading `tcgen05.mma` operands from shared memory (one element of A or B through its
//! matrix descriptor in the canonical layouts, PTX ISA §9.7.16.10.4) and their negation.

use crate::ir::MmaElem;
use crate::runtime::cluster::{CLUSTER_BIT, RANK_SHIFT};
use crate::runtime::env::{read_shared, CtaEnv};
use crate::runtime::wgmma::Desc;

/// Read element (`mn`, `kk`) of a matrix in shared memory through `desc`.
///
/// 4- and 6-bit elements (`.kind::f8f6f4`, K-major only) sit in the descriptor's layout as
/// 8-bit elements would, 16 to a 16-byte group, but packed: the 16 elements of K from a
/// multiple of 16 fill the group's first 8 (4-bit) or 12 (6-bit) bytes, element `j` at bits
/// `w·j..w·j + w` of them (little-endian), and the rest of the group is padding (PTX ISA
/// §9.7.16.10.4.4, and §5.5.1.1.1's `.b4x16_p64`/`.b6x16_p32`, the tensor-copy types that
/// write this format).
#[allow(clippy::too_many_arguments)]
pub(super) fn smem_elem(
    env: &CtaEnv,
    inst: u32,
    lane: u32,
    desc: &Desc,
    (mn, kk): (u64, u64),
    e: MmaElem,
    mn_major: bool,
    cta: Option<u32>,
) -> Result<u64, String> {
    let read = |addr: u64, n: u32| {
        let addr = in_cta(addr, cta);
        read_shared(env, addr, n, lane, inst).map_err(|_| {
            format!("tcgen05.mma reads shared address {addr:#x} ({n} bytes), outside shared memory")
        })
    };
    let w = e.bits() as u64;
    if w >= 8 {
        let eb = w / 8;
        return read(desc.addr(mn, kk, eb, mn_major), eb as u32);
    }
    // A packed element: the byte holding its first bit and, for a 6-bit one that crosses a
    // byte boundary, the next byte of the group.
    let (group, bit) = (kk & !15, (kk % 16) * w);
    let mut v = read(desc.addr(mn, group + bit / 8, 1, false), 1)?;
    if bit % 8 + w > 8 {
        v |= read(desc.addr(mn, group + bit / 8 + 1, 1, false), 1)? << 8;
    }
    Ok((v >> (bit % 8)) & ((1 << w) - 1))
}

/// Read element (`mn`, `kk`) of a `.kind::mxf4`/`::mxf4nvf4` matrix in shared memory
/// through `desc`: K-major, two e2m1 to a byte with no padding (§9.7.16.10.4.6), element `kk`
/// in the low (even `kk`) or high half of byte `kk / 2` of the row, the bytes placed as
/// 8-bit elements would be.
pub(super) fn smem_nibble(
    env: &CtaEnv,
    inst: u32,
    lane: u32,
    desc: &Desc,
    (mn, kk): (u64, u64),
    cta: Option<u32>,
) -> Result<u64, String> {
    let addr = in_cta(desc.addr(mn, kk / 2, 1, false), cta);
    let v = read_shared(env, addr, 1, lane, inst).map_err(|_| {
        format!("tcgen05.mma reads shared address {addr:#x} (1 byte), outside shared memory")
    })?;
    Ok((v >> (4 * (kk % 2))) & 0xf)
}

/// The shared address `addr` of the executing CTA, or (`Some(rank)`) the `.shared::cluster`
/// address of the same offset in CTA `rank` of the cluster (`runtime::cluster`'s encoding).
pub(super) fn in_cta(addr: u64, cta: Option<u32>) -> u64 {
    match cta {
        Some(r) => CLUSTER_BIT | u64::from(r) << RANK_SHIFT | addr,
        None => addr,
    }
}

/// The element's bits with its sign flipped (a float input negated; the instruction
/// descriptor of `.kind::i8` has no negation).
pub(super) fn negate(e: MmaElem, x: u64) -> u64 {
    match e {
        MmaElem::F16 | MmaElem::Bf16 => x ^ 0x8000,
        MmaElem::Tf32 | MmaElem::F32 => x ^ 0x8000_0000,
        MmaElem::E4m3 | MmaElem::E5m2 => x ^ 0x80,
        MmaElem::E2m3 | MmaElem::E3m2 => x ^ 0x20,
        MmaElem::E2m1 => x ^ 0x8,
        MmaElem::F64
        | MmaElem::S8
        | MmaElem::U8
        | MmaElem::S4
        | MmaElem::U4
        | MmaElem::B1
        | MmaElem::S32 => x,
    }
}
