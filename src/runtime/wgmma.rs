//! Warpgroup matrix multiply-accumulate (`wgmma.mma_async`, PTX ISA §9.7.15): the shared-memory
//! matrix descriptors, the register fragments, and the multiply, one routine that both engines
//! call through `runtime::warp::exec`, so they agree by construction.
//!
//! # Execution
//! The ISA runs `wgmma.mma_async` asynchronously for a warpgroup (four consecutive warps, the
//! first one's rank a multiple of 4). ptxjit runs it synchronously, one warp at a time: warp
//! `w` (its rank in the CTA, `w % 4` in the group) computes rows `16·(w % 4)..+16` of the 64-row
//! D, which is all its registers hold, reading A's rows and all of B from shared memory as the
//! descriptors say. The ISA requires the shared-memory operands to be written before the
//! instruction (`fence.proxy.async` and a barrier when other threads wrote them) and left alone
//! until `wgmma.wait_group` says it is done; a program that keeps those rules gets the same
//! result from a synchronous multiply, and `wgmma.fence`, `commit_group` and `wait_group` only
//! wait for the warp.
//!
//! # Matrix descriptors (§9.7.15.5.1.1)
//! Bits 0-13: the start address in shared memory >> 4; 16-29: the leading dimension byte
//! offset (LBO) >> 4; 32-45: the stride dimension byte offset (SBO) >> 4; 49-51: the base
//! offset; 62-63: the swizzle mode (0 none, 1 128-byte, 2 64-byte, 3 32-byte). A non-zero base
//! offset (for a start address not aligned to the swizzle pattern's 1024/512/256 bytes) is not
//! implemented and faults.
//!
//! # Shared-memory layouts (§9.7.15.5.1.2, "Canonical Layouts")
//! With `T = 16 / element bytes` (elements per 16 bytes), `x` = 2, 4, 8 for the 32-, 64- and
//! 128-byte swizzles, `mn` the row of A (0..64) or column of B (0..N) and `kk` the index along
//! K, the byte offset from the start address is (the ISA's CuTe layouts, written out):
//! - K-major, no swizzle `((8,m),(T,2k)):((1T,SBO),(1,LBO))`:
//!   `(mn % 8)·16 + (mn / 8)·SBO + (kk % T)·e + (kk / T)·LBO`;
//! - K-major, swizzled `((8,m),(T,2k)):((xT,SBO),(1,T))`:
//!   `(mn % 8)·16x + (mn / 8)·SBO + kk·e` (LBO unused);
//! - MN-major, no swizzle `((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))`:
//!   `(mn % T)·e + (mn / T)·SBO + (kk % 8)·16 + (kk / 8)·LBO`;
//! - MN-major, swizzled `((T,x,m),(8,k)):((1,T,LBO),(xT,SBO))`:
//!   `(mn % xT)·e + (mn / xT)·LBO + (kk % 8)·16x + (kk / 8)·SBO`;
//!
//! and the swizzle `Swizzle<log2 x, 4, 3>` then XORs bits 4.. of the shared address with its
//! bits 7.. (`addr ^ ((addr >> 7) & (x - 1)) << 4`): the 16-byte chunk within a row of `16x`
//! bytes is exchanged by the row's index within the pattern.
//!
//! # Register fragments (§9.7.15.5.1.1, "Register Fragments")
//! With `g = %laneid >> 2`, `t = %laneid % 4`: D element `i` (`i = 0..N/2`, one per `.f32`/`.s32`
//! register, two per `.f16x2` register) is at row `16·(w % 4) + g + 8·((i >> 1) & 1)`, column
//! `8·(i >> 2) + 2t + (i & 1)` — `mma`'s m16n8 accumulator layout for each 8 columns. A from
//! registers: `mma`'s m16 A fragment of K = 16 (`.f16`/`.bf16`), 8 (`.tf32`) or 32 (8-bit),
//! moved down by the warp's 16 rows.
//!
//! # Sparse A (`wgmma.mma_async.sp`, §9.7.15.6)
//! A's operand (descriptor or registers) is the stored 64×K/2 half of A, in the layouts above
//! for a matrix of K/2 columns (the ISA: "similar to" `mma.sp`'s Figure 111 "with an
//! appropriate matrix size"). Each warp expands its 16 rows with `mma.sp`'s rule for an
//! m16 A of K columns (`runtime::mma`, "Sparse A"): 2:4 chunks (1:2 for `.tf32`), a 4-bit
//! field per chunk, the group of four lanes `g` giving rows g and g+8 from lanes
//! `4g + T·sp-sel + j` (T = 2 for 16-bit and `.tf32` inputs, 4 for 8-bit ones). The metadata
//! operand is the instruction's `sp-meta` register of each lane of the warp. A field the ISA
//! calls invalid (`0b0000`, `0b0101`, `0b1010`, `0b1111`, and for `.tf32` anything but `0b0100`
//! and `0b1110`) faults ([`FaultKind::SparseMetadata`], naming the warp, its rows and the
//! field's row among them) and nothing is written.
//!
//! # Arithmetic
//! As `mma` (`runtime::mma::multiply`, on each 16×8 block of the warp's rows): exact products,
//! the sum over k ascending from D, rounded in the accumulator type at each step.
//! `imm-scale-a/b = -1` negate A's/B's elements; `scale-d` false starts from 0 instead of D.

use super::env::{read_shared, CtaEnv, FaultKind};
use super::mma;
use super::warp::{lanes, WarpDesc};
use crate::ir::{MmaBitOp, MmaElem, MmaFamily, MmaFrag, MmaSparse, MmaSpec, WgmmaA, WgmmaSpec};

/// A decoded 64-bit shared-memory matrix descriptor (PTX ISA §9.7.15.5.1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Desc {
    /// The start address in shared memory (bytes).
    pub start: u64,
    /// Leading dimension byte offset.
    pub lbo: u64,
    /// Stride dimension byte offset.
    pub sbo: u64,
    /// The base offset field (bits 49-51).
    pub base: u32,
    /// The swizzle pattern's row width in 16-byte chunks: 1 (none), 2, 4 or 8 (32, 64, 128
    /// bytes).
    pub x: u64,
}

impl Desc {
    /// The descriptor's fields.
    pub fn decode(v: u64) -> Desc {
        Desc {
            start: (v & 0x3fff) << 4,
            lbo: ((v >> 16) & 0x3fff) << 4,
            sbo: ((v >> 32) & 0x3fff) << 4,
            base: ((v >> 49) & 7) as u32,
            x: match v >> 62 {
                0 => 1,
                1 => 8,
                2 => 4,
                _ => 2,
            },
        }
    }

    /// The shared-memory address of element (`mn`, `kk`) of a matrix of `ebytes`-byte elements,
    /// K-major or (`mn_major`) MN-major (see the module documentation).
    pub fn addr(&self, mn: u64, kk: u64, ebytes: u64, mn_major: bool) -> u64 {
        let t = 16 / ebytes;
        let x = self.x;
        let off = match (mn_major, x) {
            (false, 1) => {
                (mn % 8) * 16 + (mn / 8) * self.sbo + (kk % t) * ebytes + (kk / t) * self.lbo
            }
            (false, _) => (mn % 8) * 16 * x + (mn / 8) * self.sbo + kk * ebytes,
            (true, 1) => {
                (mn % t) * ebytes + (mn / t) * self.sbo + (kk % 8) * 16 + (kk / 8) * self.lbo
            }
            (true, _) => {
                (mn % (x * t)) * ebytes
                    + (mn / (x * t)) * self.lbo
                    + (kk % 8) * 16 * x
                    + (kk / 8) * self.sbo
            }
        };
        let a = self.start + off;
        a ^ (((a >> 7) & (x - 1)) << 4)
    }
}

/// The `mma` shape whose m16n8 fragments wgmma's use per 8 columns (see the module docs), with
/// K = `k` (the full K for the multiply; a sparse A's fragment follows the one of K/2).
fn block_spec(spec: &WgmmaSpec, k: u16) -> MmaSpec {
    MmaSpec {
        b: spec.b,
        satfinite: spec.satfinite,
        bop: if spec.a == MmaElem::B1 {
            MmaBitOp::And
        } else {
            MmaBitOp::None
        },
        ..MmaSpec::new(MmaFamily::Mma, (16, 8, k), spec.a, spec.d)
    }
}

/// The (row within the warp's 16, column) of D element `i` held by `lane`.
pub fn d_coord(lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane >> 2, lane & 3);
    (g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * t + (i & 1))
}

/// The element's bits with its sign flipped (a float input scaled by -1).
fn negate(e: MmaElem, x: u64) -> u64 {
    match e.bits() {
        8 if matches!(e, MmaElem::E4m3 | MmaElem::E5m2) => x ^ 0x80,
        16 => x ^ 0x8000,
        32 => x ^ 0x8000_0000,
        _ => x,
    }
}

/// A fault of the whole warp (every lane of `mask`) with `detail`.
fn fault_all(env: &CtaEnv, d: &WarpDesc, mask: u32, kind: FaultKind, detail: &str) {
    for l in lanes(mask) {
        env.fault_detail(l, d.inst, kind, detail.to_string());
    }
}

/// Argument `k`, which must be the same in every lane (a descriptor, `scale-d`).
fn uniform(d: &WarpDesc, s: &[u8], k: usize) -> Option<u64> {
    let v = d.arg(s, k, 0);
    (1..32).all(|l| d.arg(s, k, l) == v).then_some(v)
}

/// Read matrix element (`mn`, `kk`) through descriptor `desc` (lane 0 reports faults).
fn load(
    env: &CtaEnv,
    d: &WarpDesc,
    desc: &Desc,
    (mn, kk): (u64, u64),
    e: MmaElem,
    mn_major: bool,
) -> Result<u64, ()> {
    if e.bits() == 1 {
        // Single bits: the byte layout of a matrix of K / 8 bytes, element kk at bit kk % 8
        // of byte kk / 8 (little-endian bit order, as a `.b32` register holds 32 of them).
        let addr = desc.addr(mn, kk / 8, 1, mn_major);
        let byte = read_shared(env, addr, 1, 0, d.inst)
            .map_err(|err| env.access_fault(0, d.inst, err, addr, 1, 1, false))?;
        return Ok((byte >> (kk % 8)) & 1);
    }
    let eb = (e.bits() / 8) as u64;
    let addr = desc.addr(mn, kk, eb, mn_major);
    read_shared(env, addr, eb as u32, 0, d.inst)
        .map_err(|err| env.access_fault(0, d.inst, err, addr, eb as u32, eb as u32, false))
}

/// Execute `Op::Wgmma { spec }` (described by `d`) for the lanes of `mask`: the whole warp
/// must take part (`.aligned`); otherwise each lane faults and no result is written.
pub fn exec(d: &WarpDesc, spec: &WgmmaSpec, mask: u32, s: &mut [u8], env: &CtaEnv) {
    if !mma::whole_warp(d, mask, env) {
        return;
    }
    let (nd, _) = spec.d_regs();
    let nd = nd as usize;
    let na = match spec.a_src {
        WgmmaA::Desc { .. } => 1,
        WgmmaA::Regs => spec.a_regs() as usize,
    };
    let (Some(bdesc), Some(scale_d)) = (uniform(d, s, nd + na), uniform(d, s, nd + na + 1)) else {
        fault_all(
            env,
            d,
            mask,
            FaultKind::Wgmma,
            "the lanes of the warp give different descriptors or scale-d",
        );
        return;
    };
    let bdesc = Desc::decode(bdesc);
    let adesc = match spec.a_src {
        WgmmaA::Desc { .. } => match uniform(d, s, nd) {
            Some(v) => Some(Desc::decode(v)),
            None => {
                fault_all(
                    env,
                    d,
                    mask,
                    FaultKind::Wgmma,
                    "the lanes of the warp give different A descriptors",
                );
                return;
            }
        },
        WgmmaA::Regs => None,
    };
    if bdesc.base != 0 || adesc.is_some_and(|a| a.base != 0) {
        fault_all(
            env,
            d,
            mask,
            FaultKind::Wgmma,
            "matrix descriptors with a non-zero base offset are not supported",
        );
        return;
    }
    let (k, n) = (spec.k as u64, spec.n as u64);
    let row0 = 16 * (env.warp % 4) as u64;
    let blk = block_spec(spec, spec.k);
    // A's operand: the warp's 16 rows, row-major 16×`ka` (K, or the stored K/2 when sparse).
    let ka = spec.a_cols() as u64;
    let a_blk = block_spec(spec, spec.a_cols());
    let mut a = vec![0u64; 16 * ka as usize];
    match (spec.a_src, adesc) {
        (WgmmaA::Desc { trans }, Some(desc)) => {
            for r in 0..16u64 {
                for kk in 0..ka {
                    match load(env, d, &desc, (row0 + r, kk), spec.a, trans) {
                        Ok(v) => a[(r * ka + kk) as usize] = v,
                        Err(()) => return,
                    }
                }
            }
        }
        _ => {
            let p = spec.a.per_reg();
            let bits = spec.a.bits();
            for l in 0..32u32 {
                for i in 0..a_blk.elems(MmaFrag::A) {
                    let reg = d.arg(s, nd + (i / p) as usize, l);
                    let v = if p == 1 {
                        reg
                    } else {
                        (reg >> ((i % p) * bits)) & ((1u64 << bits) - 1)
                    };
                    let (r, c) = mma::coord(&a_blk, MmaFrag::A, l, i);
                    a[(r as u64 * ka + c as u64) as usize] = v;
                }
            }
        }
    }
    if let Some(selector) = spec.sparse {
        // The 16×K A from its stored half and the warp's metadata registers, as `mma.sp`'s
        // m16nNkK (module documentation).
        let sp = MmaSpec {
            sparse: Some(MmaSparse {
                selector,
                ordered: false,
            }),
            ..blk
        };
        let meta: Vec<u64> = (0..32u32).map(|l| d.arg(s, nd + na + 2, l)).collect();
        match mma::expand(&sp, &a, &meta) {
            Ok(full) => a = full,
            Err((lane, msg)) => {
                let rows = format!("rows {row0}..{} of A", row0 + 15);
                let msg = format!("wgmma.mma_async.sp, warp {} ({rows}): {msg}", env.warp);
                env.fault_detail(lane, d.inst, FaultKind::SparseMetadata, msg);
                return;
            }
        }
    }
    // B: K×N, row-major; `trans_b` means N-major.
    let mut b = vec![0u64; (k * n) as usize];
    for kk in 0..k {
        for col in 0..n {
            match load(env, d, &bdesc, (col, kk), spec.b, spec.trans_b) {
                Ok(v) => b[(kk * n + col) as usize] = v,
                Err(()) => return,
            }
        }
    }
    if spec.neg_a {
        a.iter_mut().for_each(|v| *v = negate(spec.a, *v));
    }
    if spec.neg_b {
        b.iter_mut().for_each(|v| *v = negate(spec.b, *v));
    }
    // C: the warp's 16×N rows of D (0 when scale-d is false).
    let p = spec.d.per_reg();
    let bits = spec.d.bits();
    let elem_mask = if bits == 32 {
        u32::MAX as u64
    } else {
        (1u64 << bits) - 1
    };
    let mut c = vec![0u64; 16 * n as usize];
    if scale_d != 0 {
        for l in 0..32u32 {
            for i in 0..(n as u32 / 2) {
                let reg = d.arg(s, (i / p) as usize, l);
                let (r, col) = d_coord(l, i);
                c[(r as u64 * n + col as u64) as usize] = (reg >> ((i % p) * bits)) & elem_mask;
            }
        }
    }
    // D, one 16×8 block of columns at a time.
    let mut out = vec![0u64; 16 * n as usize];
    for j in 0..(n / 8) as usize {
        let bj: Vec<u64> = (0..k as usize)
            .flat_map(|kk| b[kk * n as usize + 8 * j..kk * n as usize + 8 * j + 8].to_vec())
            .collect();
        let cj: Vec<u64> = (0..16)
            .flat_map(|r| c[r * n as usize + 8 * j..r * n as usize + 8 * j + 8].to_vec())
            .collect();
        let dj = mma::multiply(&blk, &a, &bj, &cj);
        for r in 0..16 {
            out[r * n as usize + 8 * j..r * n as usize + 8 * j + 8]
                .copy_from_slice(&dj[r * 8..r * 8 + 8]);
        }
    }
    for l in 0..32u32 {
        let mut regs = vec![0u64; nd];
        for i in 0..(n as u32 / 2) {
            let (r, col) = d_coord(l, i);
            let v = out[(r as u64 * n + col as u64) as usize];
            regs[(i / p) as usize] |= v << ((i % p) * bits);
        }
        for (kx, v) in regs.into_iter().enumerate() {
            d.set(s, kx, l, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ISA's descriptor example fields and Triton's descriptors (a 64-byte-swizzled K-major
    /// A with SBO 512, a 128-byte-swizzled N-major B with SBO 1024).
    #[test]
    fn descriptor_fields() {
        let a = Desc::decode(0x8000_0020_0000_0000);
        assert_eq!((a.start, a.lbo, a.sbo, a.base, a.x), (0, 0, 512, 0, 4));
        let b = Desc::decode(0x4000_0040_0000_0000 | 0x300 | (16 << 16));
        assert_eq!(
            (b.start, b.lbo, b.sbo, b.base, b.x),
            (0x3000, 256, 1024, 0, 8)
        );
        assert_eq!(Desc::decode(3 << 62).x, 2);
        assert_eq!(Desc::decode(7 << 49).base, 7);
    }

    /// The ISA's exact layouts for its examples (§9.7.15.5.1.2.1.3), as CuTe layouts over
    /// element offsets: the canonical formulas must give the same element for every index.
    #[test]
    fn canonical_layouts_match_the_isa_examples() {
        // (mn_major, swizzle x, element bytes, LBO bytes, SBO bytes, exact layout as
        // ((shape mn), (shape k)) : ((stride mn), (stride k)) in elements).
        type Case = (
            bool,
            u64,
            u64,
            u64,
            u64,
            [u64; 3],
            [u64; 2],
            [u64; 3],
            [u64; 2],
        );
        let cases: [Case; 4] = [
            // K-major, no swizzle, tf32: ((8,2),(4,4)):((4,32),(1,64)); LBO 64·4, SBO 32·4.
            (
                false,
                1,
                4,
                256,
                128,
                [8, 2, 1],
                [4, 4],
                [4, 32, 0],
                [1, 64],
            ),
            // K-major, 32B swizzle, tf32: ((8,2),(4,4)):((8,64),(1,4)); SBO 64·4.
            (false, 2, 4, 0, 256, [8, 2, 1], [4, 4], [8, 64, 0], [1, 4]),
            // MN-major, no swizzle, bf16: ((8,1,2),(8,2)):((1,8,64),(8,128)).
            (
                true,
                1,
                2,
                256,
                128,
                [8, 1, 2],
                [8, 2],
                [1, 8, 64],
                [8, 128],
            ),
            // MN-major, 64B swizzle, bf16: ((8,4,2),(8,2)):((1,8,256),(32,512)).
            (
                true,
                4,
                2,
                512,
                1024,
                [8, 4, 2],
                [8, 2],
                [1, 8, 256],
                [32, 512],
            ),
        ];
        for (mn_major, x, eb, lbo, sbo, smn, sk, dmn, dk) in cases {
            let desc = Desc {
                start: 0,
                lbo,
                sbo,
                base: 0,
                x,
            };
            for mn in 0..smn.iter().product::<u64>() {
                for kk in 0..sk.iter().product::<u64>() {
                    let (m0, m1, m2) =
                        (mn % smn[0], (mn / smn[0]) % smn[1], mn / (smn[0] * smn[1]));
                    let (k0, k1) = (kk % sk[0], kk / sk[0]);
                    let elem = m0 * dmn[0] + m1 * dmn[1] + m2 * dmn[2] + k0 * dk[0] + k1 * dk[1];
                    let a = elem * eb;
                    let want = a ^ (((a >> 7) & (x - 1)) << 4);
                    assert_eq!(
                        desc.addr(mn, kk, eb, mn_major),
                        want,
                        "mn_major {mn_major} x {x} ({mn}, {kk})"
                    );
                }
            }
        }
    }

    /// D's layout (§9.7.15.5.1.1, "WGMMA .m64nNk16 register fragment layout for accumulator
    /// matrix D"): lane 0 holds d0, d1 at (0, 0), (0, 1) and d2, d3 at (8, 0), (8, 1); lane 5
    /// holds d4 at (1, 10); every element of a 16×N block is held exactly once.
    #[test]
    fn d_layout() {
        assert_eq!(d_coord(0, 0), (0, 0));
        assert_eq!(d_coord(0, 1), (0, 1));
        assert_eq!(d_coord(0, 2), (8, 0));
        assert_eq!(d_coord(0, 3), (8, 1));
        assert_eq!(d_coord(5, 4), (1, 10));
        let n = 24;
        let mut seen = vec![0; 16 * n];
        for l in 0..32 {
            for i in 0..n as u32 / 2 {
                let (r, c) = d_coord(l, i);
                seen[r as usize * n + c as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&x| x == 1));
    }
}
