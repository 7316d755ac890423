//! Blackwell's tensor memory and the `tcgen05` instructions that use it (PTX ISA §9.7.16): one
//! routine that both engines call through `runtime::warp::exec`, so they agree by
//! construction.
//!
//! # Tensor memory (§9.7.16.1)
//! Each CTA has its own [`TensorMemory`]: 128 lanes × 512 columns of 32-bit cells, addressed by
//! a 32-bit value with the lane in bits 31-16 and the column in bits 15-0. Its contents at CTA
//! start are zero (the ISA leaves them undefined; ptxjit picks a fixed value so runs repeat).
//!
//! # Allocation (§9.7.16.7.1)
//! `tcgen05.alloc` takes a power of two of columns from 32 to 512 for all lanes and writes the
//! allocation's address (lane 0, its first column) to shared memory. ptxjit places it at the
//! lowest free column that is a multiple of its size. Where no such room is left the ISA's
//! `alloc` blocks until another warp deallocates; ptxjit faults instead (a warp does not wait
//! for another warp's `dealloc`). After `tcgen05.relinquish_alloc_permit` an `alloc` by the CTA
//! faults. `dealloc` must name exactly an allocation `alloc` returned.
//!
//! # CTA pairs (`.cta_group::2`, §9.7.16.5)
//! The CTAs of a cluster whose `%cluster_ctarank` differ in bit 0 form a pair. One warp of
//! each issues `alloc`/`dealloc .cta_group::2`; the first to come waits (the decoder loops
//! around the operation, [`Tc05Op::waits`]) until the peer's comes, which then allocates the
//! same columns in both tensor memories (or frees them in both) and releases both warps
//! ([`Pairs`], kept in the cluster's state, which one host thread runs). `mma .cta_group::2`
//! is one multiply over the pair: the even rank holds rows `0..M/2` of A and D and columns
//! `0..N/2` of B, the odd rank the rest, at the same shared-memory descriptors and
//! tensor-memory address in each (⚠ ptxjit's reading of the ISA's figures); each CTA's half
//! of D is Layout A (M = 256) or B (M = 128) (`layout`). The peer's shared memory is read
//! through `.shared::cluster` addresses. `cp .cta_group::2` copies in each CTA of the pair
//! from its own shared memory at s-desc's offsets into its own tensor memory at `taddr` (⚠
//! the same reading). docs/isa-notes.md has the details.
//!
//! # Access (§9.7.16.2.3, §9.7.16.8.3-4)
//! Warp `w` of the CTA reaches lanes `32·(w % 4)..+32` only. `.32x32b` starts at the warp's
//! first lane; the 16-lane shapes (`.16x64b`, `.16x128b`, `.16x256b`, each access of
//! `.16x32bx2`) anywhere their 16 lanes stay inside the warp's 32. Which lane and column
//! thread `t`'s register `i` reaches is [`crate::ir::Tc05Shape::cell`] (the ISA's fragment
//! figures); `.16x32bx2`'s threads 16..31 use its second access at `taddr +
//! immHalfSplitoff`. `.pack::16b` puts the low 16 bits of the register's two adjacent
//! columns into its low and high halves (`.unpack::16b` stores them back, upper 16 bits
//! zero). Every cell reached must be in an allocation, else the warp faults and nothing
//! moves. `tcgen05.ld.red` also writes each thread's `.min`/`.max` over its loaded registers
//! (f32 as `min`/`max.f32`, with `.abs` on magnitudes and `.NaN`; u32; s32) to `redval`.
//! ptxjit runs `ld`/`st` synchronously, so `tcgen05.wait::ld`/`wait::st` only wait for the
//! warp.
//!
//! # Matrix multiply (§9.7.16.10)
//! `tcgen05.mma.cta_group::1` computes `D = A·B (+ D when enable-input-d)` with D (M×N) in
//! tensor memory, A (M×K) from shared memory through a matrix descriptor or from tensor
//! memory, and B (K×N) from shared memory, as the 32-bit instruction descriptor says (Table 42:
//! bits 4-5 D type, 7-9 A type, 10-12 B type, 13/14 negate A/B, 15/16 transpose A/B (MN-major),
//! 17-22 N >> 3, 24-28 M >> 4, bit 2 sparsity, bit 3 saturate). M and N are Table 39's
//! (`check_shape`): M = 64 or 128, N from 8 to 256 in steps of 8. D has an f32, f16 or s32
//! accumulator; where its row `i`, column `j` is in tensor memory is the data path layout of
//! §9.7.16.10.5 (`layout`): with M = 128 (Layout D) lane `i`, column `base + j`; with M = 64
//! (Layout F) each 32-lane partition holds 16 rows from lane 0 or 16 of it (the address's
//! lane), and an A in tensor memory must use the same lane. An f16 element is the low 16 bits of its cell (§9.7.16.10.4.1;
//! ptxjit writes the upper 16 bits as zero and ignores them when it reads D). An f16 D takes
//! f16 inputs of `.kind::f16` (Table 39) or any `.kind::f8f6f4` inputs. A from tensor memory
//! uses D's row-to-lane map with K elements packed into 32-bit columns (row `i`'s lane,
//! column `base + k·bits/32`); a 4- or 6-bit A of `.kind::f8f6f4`/`::mxf8f6f4` there takes one
//! byte per element (a 4-bit one at bits 2-5, a 6-bit one at bits 0-5: the containers
//! `tcgen05.cp`'s decompression writes, docs/isa-notes.md); a 4-bit A of `.kind::mxf4`/
//! `::mxf4nvf4` there faults as not supported yet.
//!
//! `.kind::f8f6f4` (K = 32) takes A and B types from the instruction descriptor: E4M3 0, E5M2
//! 1, E2M3 3, E3M2 4, E2M1 5 (Table 42), each its own. In shared memory 8-bit elements are
//! laid out as `.kind::i8`'s; 4- and 6-bit ones occupy the same places, 16 of them packed into
//! the first 8 or 12 bytes of each 16-byte group of K, the rest padding (§9.7.16.10.4.4, the
//! format `cp.async.bulk.tensor`'s `.b4x16_p64`/`.b6x16_p32` write, §5.5.1.1.1), and must be
//! K-major (Table 52: a transposed 4- or 6-bit matrix faults). The values widen exactly to
//! the accumulator format (every one is an f16). The multiply is done when the
//! instruction executes (like `wgmma` here): `tcgen05.commit` arrives on its mbarrier at
//! once. Arithmetic as `mma` (`runtime::mma::multiply`): exact products, the sum over k
//! ascending from D, rounded in the accumulator type at each step.
//!
//! `scale-input-d` (an immediate 0..15, `.kind::f16` and `.kind::tf32`) multiplies the input
//! D by 2^-s first, rounded to nearest in the accumulator format (exact unless it
//! underflows); `disable-output-lane` (four 32-bit words, lane `l` at bit `l % 32` of word
//! `l / 32`) keeps the lanes whose bit is set as they were.
//!
//! # Block scaling (§9.7.16.10.7)
//! `.kind::mxf8f6f4` (`.kind::f8f6f4`'s types and layouts, K = 32), `.kind::mxf4` and
//! `.kind::mxf4nvf4` (e2m1, type code 1, two to a byte in shared memory with no padding,
//! element `2j` in the low half of byte `j`, K-major, K = 64) compute `D = (A·scale_A)·
//! (B·scale_B) + D` with an f32 D: each row of A (column of B) is cut along K into
//! `.scale_vec::NX` chunks, each multiplied by its own factor, ue8m0 (`2^(e − 127)`, `0xff`
//! NaN) or, for `.kind::mxf4nvf4` with `::4X`, ue4m3 (instruction descriptor bit 23 clear).
//! The descriptor of these kinds has the scale factor B ID at bits 4-5 and A ID at 29-30
//! (CUTLASS's `InstrDescriptorBlockScaled`; the ISA's table); K = 96 (bit 31) faults as not
//! supported. The factors of row `i` of A (column `i` of B) are bytes `ID..ID + N` of the
//! cell at lane `i % 32`, column `col + i / 32` of the scale address, and the ISA requires
//! them "duplicated to all 32 lane partitions": ptxjit reads all four and faults where they
//! differ (`scale`; docs/isa-notes.md). With `.cta_group::2` each CTA reads its own rows'
//! scale_A and all N columns' scale_B from its own tensor memory (M = 128: scale_B "2x2", the
//! two halves of N in partitions 0-1 and 2-3; ⚠ public sm_100 code's layout). Each element widens exactly to f32 and is
//! multiplied by its factor (rounded to nearest, exact unless it overflows), then one
//! `fma.rn.f32` per k ascending from D.
//!
//! `tcgen05.mma.sp` (§9.7.16.10.9.2; `.kind::f16`, `::tf32`, `::i8` and `::f8f6f4`) and
//! `tcgen05.mma.ws.sp` (§9.7.16.10.9.3) double K: A's operand (descriptor or tensor memory)
//! holds the stored M×K/2 half, laid out as a dense A of K/2 columns, and the metadata at the
//! `[sp-meta]` address places it (`sparse`); the instruction descriptor's bit 2 must be set,
//! and bits 0-1 are the sparsity selector. `.sp` takes M = 128 and 64 (Layout F, ⚠ ptxjit's
//! reading of the metadata's figures), with `.cta_group::2` M = 256 (each CTA's 128 rows and
//! their metadata in its own tensor memory; M = 128 faults as not supported yet), and the
//! block-scaled kinds (`.kind::mxf8f6f4` 2:4 with K = 64, `.kind::mxf4`/`::mxf4nvf4` 4:8 in
//! pairs with K = 128; the metadata address then follows scale_B's among the arguments).
//!
//! # Weight-stationary multiply (§9.7.16.10.9.3)
//! `tcgen05.mma.ws` (`.kind::f16`, `::tf32`, `::f8f6f4`, `::i8`) is the dense multiply with
//! M = 128 (Layout D, as above), 64 (Layout E: N folded in halves, columns `N/2..N` in lanes
//! 64-127) or 32 (Layout G: N folded in quarters over the four 32-lane partitions) and N = 64,
//! 128 or 256. An A in tensor memory with M = 32 or 64 faults (the ISA gives D's layout only). Its `.collector::bN::…` qualifier names one of four per-CTA collector buffers
//! for B: `fill` reads B through `b-desc` and keeps it, `use` multiplies by the kept B (not
//! reading `b-desc`) and keeps it, `lastuse` does so and empties the buffer, `discard` (the
//! default, as `b0`) reads B and empties the buffer. Using an empty buffer, or one whose B
//! has another type or shape than the instruction descriptor says, faults.
//!
//! # Collector buffer for A and `.ashift` (§9.7.16.10.9.1-2)
//! Each CTA has one collector buffer for A. `tcgen05.mma{.sp}.collector::a::fill` reads A
//! (through `a-desc` or from tensor memory) and keeps it; `::use` multiplies by the kept A
//! (not reading the operand, even if A's memory has changed since) and keeps it; `::lastuse`
//! does so and empties the buffer; `::discard`, the default, reads A and empties the buffer.
//! The kept A is A as read (for `.sp` the stored half; negation, the sparse expansion and
//! block scaling apply per instruction); with `.cta_group::2` it is the pair's whole A, kept
//! by the issuing CTA. Using an empty buffer, or one whose A has another type or shape than
//! the instruction descriptor says, faults. `.ashift` (A in tensor memory, M = 128 or 256,
//! else a fault) moves the rows of A in tensor memory one row down once the multiply has
//! read A: row `r + 1` takes row `r`'s words for `r` in `0..M - 1`; row 0 keeps its words
//! (the ISA does not say what it holds), as `tcgen05.shift` leaves its first lane. The ISA
//! does not say whether the multiply sees A before or after the shift; ptxjit's order
//! (before) is the one under which its rule that `.ashift` excludes `::fill` and `::use`
//! keeps the buffer from holding an A that tensor memory no longer has (docs/isa-notes.md).
//!
//! # Copies and shifts (§9.7.16.9.2-3)
//! `tcgen05.cp` copies a matrix of the shape's rows (128, 4, 64 or 32) of 32 or 16 bytes from
//! shared memory, read through its descriptor in the K-major canonical layout (row `r` is the
//! M/N index, its bytes K), into tensor memory: 32-bit word `w` of row `r` to column
//! `col + w` of each lane the shape sends the row to ([`crate::ir::Tc05CpShape::lanes`]);
//! with `.b8x16.b4x16_p64`/`.b8x16.b6x16_p32` each 16-byte group of a row is first expanded
//! into sixteen 8-bit containers ([`crate::ir::Tc05CpUnpack::expand`]).
//! `tcgen05.shift.down` moves the 8 columns (256 bits) of lanes `l..l + 31` one lane down
//! (`l`, a multiple of 32, keeps its value). Both are done when they execute; every lane and
//! column they touch must be in one allocation, else the issuing thread faults and nothing
//! moves.
//!
//! # Shared-memory descriptors (§9.7.16.4.1)
//! As `wgmma`'s (`runtime::wgmma::Desc`, the same canonical layouts) with the fields moved:
//! start address bits 0-13, LBO 16-29, SBO 32-45 (each >> 4), bits 46-48 the fixed value
//! 0b001, base offset 49-51, LBO mode bit 52, swizzle 61-63 (0 none, 2 128-byte, 4 64-byte,
//! 6 32-byte; 1, 128-byte with 32-byte atoms, is not implemented). A base offset, the
//! absolute LBO mode and an invalid swizzle fault.

use super::cluster::{ClusterState, CLUSTER_BIT, RANK_SHIFT};
use super::env::{read_shared, translate, CtaEnv, FaultKind};
use super::fp::{self, Arith, Fmt};
use super::initcheck::InitAccess;
use super::mma::{self, scaled};
use super::warp::{lanes, WarpDesc};
use super::wgmma::Desc;
use crate::ir::{
    MmaElem, MmaFamily, MmaSpec, Round, Space, Tc05Collector, Tc05CpShape, Tc05CpUnpack, Tc05Kind,
    Tc05Op, Tc05Red, Tc05RedType, Tc05Shape,
};
use std::cell::RefCell;

mod layout;
mod scale;
mod sparse;

use layout::DataPath;
use scale::{block_scales, SfLanes};
use sparse::MetaLanes;

/// Lanes of the tensor memory.
pub const LANES: u32 = 128;
/// 32-bit columns of the tensor memory.
pub const COLS: u32 = 512;

/// One CTA's tensor memory and its allocator (see the module documentation). The cells are
/// created at the first `alloc`; a CTA that never allocates costs nothing.
#[derive(Debug, Default)]
pub struct TensorMemory {
    st: RefCell<TmemState>,
}

#[derive(Debug, Default)]
struct TmemState {
    /// `LANES × COLS` cells, lane-major; empty until the first allocation.
    cells: Vec<u32>,
    /// Live allocations: (first column, columns).
    allocs: Vec<(u32, u32)>,
    /// `relinquish_alloc_permit` was executed.
    relinquished: bool,
    /// The collector buffers `b0`..`b3` of `tcgen05.mma.ws` (B, kept by `::fill`).
    collectors: [Option<Collected>; 4],
    /// The collector buffer for A of `tcgen05.mma{.sp}` (`.collector::a::fill`).
    collector_a: Option<Collected>,
}

/// A matrix kept in a collector buffer: its element type, K, N and the K×N elements' bits
/// (row-major, before any negation) for B; for A, the element type, A's stored K columns
/// (`.sp`: K/2), M in `n`, and A's M×K elements (row-major, as read: before negation,
/// sparse expansion or scaling).
#[derive(Debug, Clone)]
struct Collected {
    elem: MmaElem,
    k: u64,
    n: u64,
    b: Vec<u64>,
}

impl TensorMemory {
    /// Ready for a new CTA: nothing allocated, every cell zero.
    pub fn reset(&self) {
        let mut s = self.st.borrow_mut();
        s.allocs.clear();
        s.relinquished = false;
        s.cells.fill(0);
        s.collectors = Default::default();
        s.collector_a = None;
    }

    /// Allocate `ncols` columns: the first column, or why not.
    pub fn alloc(&self, ncols: u32) -> Result<u32, String> {
        alloc_in(&[self], ncols)
    }

    /// Free the allocation at `taddr` of `ncols` columns.
    pub fn dealloc(&self, taddr: u32, ncols: u32) -> Result<(), String> {
        dealloc_in(&[self], taddr, ncols)
    }

    /// Mark the CTA's allocation permit given up.
    pub fn relinquish(&self) {
        self.st.borrow_mut().relinquished = true;
    }

    /// Check that lanes `lane..lane + nlanes` and columns `col..col + ncols` are inside the
    /// memory and inside one allocation.
    pub fn check(&self, lane: u32, nlanes: u32, col: u32, ncols: u32) -> Result<(), String> {
        let s = self.st.borrow();
        let lanes_ok = lane + nlanes <= LANES;
        let in_alloc = s
            .allocs
            .iter()
            .any(|&(a, n)| a <= col && col + ncols <= a + n);
        if lanes_ok && in_alloc {
            Ok(())
        } else {
            Err(format!(
                "tensor memory lanes {lane}..{} columns {col}..{} are not inside one \
                 allocation (live: {:?})",
                lane + nlanes,
                col + ncols,
                s.allocs
            ))
        }
    }

    /// The cell at (`lane`, `col`) (checked by [`TensorMemory::check`] first; 0 outside).
    pub fn get(&self, lane: u32, col: u32) -> u32 {
        let s = self.st.borrow();
        s.cells
            .get((lane * COLS + col) as usize)
            .copied()
            .unwrap_or(0)
    }

    /// Set the cell at (`lane`, `col`) (checked first; nothing happens outside).
    pub fn set(&self, lane: u32, col: u32, v: u32) {
        let mut s = self.st.borrow_mut();
        if let Some(c) = s.cells.get_mut((lane * COLS + col) as usize) {
            *c = v;
        }
    }
}

/// Allocate `ncols` columns at the same place in each of `tms` (one CTA's tensor memory, or
/// a CTA pair's for `.cta_group::2`): the lowest multiple of `ncols` free in all of them.
fn alloc_in(tms: &[&TensorMemory], ncols: u32) -> Result<u32, String> {
    if !(32..=COLS).contains(&ncols) || !ncols.is_power_of_two() {
        return Err(format!(
            "tcgen05.alloc of {ncols} columns (a power of two from 32 to 512)"
        ));
    }
    if tms.iter().any(|t| t.st.borrow().relinquished) {
        return Err(format!(
            "tcgen05.alloc after tcgen05.relinquish_alloc_permit{} (undefined in PTX)",
            if tms.len() > 1 {
                " by a CTA of the pair"
            } else {
                ""
            }
        ));
    }
    let free = |c: u32| {
        tms.iter().all(|t| {
            let s = t.st.borrow();
            s.allocs.iter().all(|&(a, n)| c + ncols <= a || a + n <= c)
        })
    };
    let Some(col) = (0..COLS / ncols).map(|i| i * ncols).find(|&c| free(c)) else {
        let used: Vec<u32> = tms
            .iter()
            .map(|t| t.st.borrow().allocs.iter().map(|a| a.1).sum::<u32>())
            .collect();
        return Err(format!(
            "tcgen05.alloc of {ncols} columns: no room left ({used:?} of 512 allocated); the \
             GPU would wait for a dealloc, ptxjit does not"
        ));
    };
    for t in tms {
        let mut s = t.st.borrow_mut();
        if s.cells.is_empty() {
            s.cells = vec![0; (LANES * COLS) as usize];
        }
        s.allocs.push((col, ncols));
    }
    Ok(col)
}

/// Free the allocation at `taddr` of `ncols` columns in each of `tms`; nothing is freed
/// unless every one has it.
fn dealloc_in(tms: &[&TensorMemory], taddr: u32, ncols: u32) -> Result<(), String> {
    let col = taddr & 0xffff;
    let has = |t: &&TensorMemory| t.st.borrow().allocs.contains(&(col, ncols));
    if taddr >> 16 != 0 || !tms.iter().all(has) {
        return Err(format!(
            "tcgen05.dealloc of address {taddr:#x}, {ncols} columns: not an allocation of this \
             CTA{}",
            if tms.len() > 1 { " pair" } else { "" }
        ));
    }
    for t in tms {
        t.st.borrow_mut().allocs.retain(|&a| a != (col, ncols));
    }
    Ok(())
}

/// The `.cta_group::2` state of a cluster (PTX ISA §9.7.16.5, §9.7.16.7.1), kept in its
/// [`ClusterState`]: each CTA's tensor memory (registered by the CTA's `.cta_group::2`
/// operations; null until then) and, per CTA, the `alloc` or `dealloc` one of its warps
/// waits in for the peer CTA. Only the host thread that runs the cluster touches it.
#[derive(Debug, Default)]
pub struct Pairs {
    tmems: Vec<*const TensorMemory>,
    asks: Vec<Option<Ask>>,
}

/// A warp's `.cta_group::2` `alloc`/`dealloc` waiting for the peer CTA's, and its result
/// (the first column allocated, 0 for a dealloc) once the peer's has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ask {
    warp: u32,
    what: AskKind,
    done: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AskKind {
    Alloc { ncols: u32 },
    Dealloc { taddr: u32, ncols: u32 },
}

impl Pairs {
    /// Ready for a cluster of `ctas` CTAs: nothing registered, nothing waiting.
    pub(super) fn reset(&mut self, ctas: usize) {
        self.tmems.clear();
        self.tmems.resize(ctas, std::ptr::null());
        self.asks.clear();
        self.asks.resize(ctas, None);
    }
}

/// The executing CTA's pair: its cluster's state, its rank and the peer's (rank ^ 1), or
/// why it has none.
fn pair_of(env: &CtaEnv) -> Result<(&ClusterState, u32, u32), String> {
    let size: u32 = env.cluster_dims.iter().product();
    let rank = env.cluster_rank();
    let peer = rank ^ 1;
    match env.cluster_state() {
        Some(c) if peer < size => Ok((c, rank, peer)),
        _ => Err(format!(
            ".cta_group::2 pairs the CTAs of ranks {} and {} of a cluster; this CTA (rank \
             {rank}) is in a cluster of {size}",
            rank & !1,
            rank | 1
        )),
    }
}

/// The pair state of `cluster`, locked, with `tm` registered as `rank`'s tensor memory.
fn pairs_with<'a>(
    cluster: &'a ClusterState,
    rank: u32,
    tm: &TensorMemory,
) -> Result<std::sync::MutexGuard<'a, Pairs>, String> {
    let mut p = cluster.pairs.lock().unwrap_or_else(|e| e.into_inner());
    match p.tmems.get_mut(rank as usize) {
        Some(slot) => *slot = tm,
        None => return Err(format!("rank {rank} is outside the cluster's pair state")),
    }
    Ok(p)
}

/// The tensor memory of `rank`, registered in `p`.
///
/// SAFETY (of the returned reference): a registered pointer is a CTA's tensor memory of the
/// cluster now running (`Pairs::reset` clears them when the next cluster starts), which the
/// worker running the cluster owns and keeps alive while it runs, on this host thread.
fn registered<'a>(p: &Pairs, rank: u32) -> Option<&'a TensorMemory> {
    let t = *p.tmems.get(rank as usize)?;
    // SAFETY: see above; null (not registered yet) gives `None`.
    unsafe { t.as_ref() }
}

/// A `.cta_group::2` `alloc` or `dealloc` (`what`) by warp `warp` of the executing CTA
/// (tensor memory `tm`): `Ok(Some(result))` once it and the peer CTA's have both been
/// asked (the first column allocated, or 0 for a dealloc, done in both tensor memories
/// when the second comes), `Ok(None)` while this warp waits for the peer (or behind another
/// warp of its CTA that waits). The two must agree (both `alloc` of the same columns, or
/// both `dealloc` of the same allocation), else an error.
fn pair_ask(
    env: &CtaEnv,
    tm: &TensorMemory,
    warp: u32,
    what: AskKind,
) -> Result<Option<u32>, String> {
    let (cluster, rank, peer) = pair_of(env)?;
    let mut p = pairs_with(cluster, rank, tm)?;
    let (r, o) = (rank as usize, peer as usize);
    match p.asks[r] {
        Some(a) if a.warp == warp => {
            if let Some(v) = a.done {
                p.asks[r] = None;
                return Ok(Some(v));
            }
            return Ok(None);
        }
        Some(_) => return Ok(None),
        None => {}
    }
    let Some(Ask {
        warp: pwarp,
        what: pwhat,
        done: None,
    }) = p.asks[o]
    else {
        p.asks[r] = Some(Ask {
            warp,
            what,
            done: None,
        });
        return Ok(None);
    };
    let Some(ptm) = registered(&p, peer) else {
        return Err(format!("the peer CTA (rank {peer}) has no tensor memory"));
    };
    let tms = [tm, ptm];
    let v = match (what, pwhat) {
        (AskKind::Alloc { ncols }, AskKind::Alloc { ncols: pn }) if ncols == pn => {
            alloc_in(&tms, ncols)?
        }
        (
            AskKind::Dealloc { taddr, ncols },
            AskKind::Dealloc {
                taddr: pt,
                ncols: pn,
            },
        ) if (taddr, ncols) == (pt, pn) => {
            dealloc_in(&tms, taddr, ncols)?;
            0
        }
        _ => {
            let say = |k: AskKind| match k {
                AskKind::Alloc { ncols } => format!("tcgen05.alloc of {ncols} columns"),
                AskKind::Dealloc { taddr, ncols } => {
                    format!("tcgen05.dealloc of {taddr:#x}, {ncols} columns")
                }
            };
            return Err(format!(
                "{} .cta_group::2 while the peer CTA (rank {peer}) waits in {} (the pair's \
                 warps must issue the same operation)",
                say(what),
                say(pwhat)
            ));
        }
    };
    p.asks[o] = Some(Ask {
        warp: pwarp,
        what: pwhat,
        done: Some(v),
    });
    Ok(Some(v))
}

/// The tensor memories of the executing CTA's pair, the even rank's first, and their ranks,
/// for a `.cta_group::2` `mma`, `cp` or `shift` issued by a CTA with tensor memory `tm`.
fn pair_tmems<'a>(
    env: &CtaEnv,
    tm: &'a TensorMemory,
) -> Result<([&'a TensorMemory; 2], [u32; 2]), String> {
    let (cluster, rank, peer) = pair_of(env)?;
    let p = pairs_with(cluster, rank, tm)?;
    let Some(ptm) = registered(&p, peer) else {
        return Err(format!(
            "the peer CTA (rank {peer}) has no tensor memory (no tcgen05.alloc.cta_group::2 \
             of the pair)"
        ));
    };
    Ok(if rank & 1 == 0 {
        ([tm, ptm], [rank, peer])
    } else {
        ([ptm, tm], [peer, rank])
    })
}

/// Set the pred result of a `.cta_group::2` `alloc`/`dealloc` in every lane of `mask`.
fn set_done(d: &WarpDesc, s: &mut [u8], mask: u32, done: bool) {
    for l in lanes(mask) {
        d.set(s, 0, l, u64::from(done));
    }
}

/// A fault of every lane of `mask` with `detail`.
fn fault_all(env: &CtaEnv, d: &WarpDesc, mask: u32, detail: &str) {
    for l in lanes(mask) {
        env.fault_detail(l, d.inst, FaultKind::TensorMemory, detail.to_string());
    }
}

/// Argument `k`, the same in every lane of `mask`.
fn uniform(d: &WarpDesc, s: &[u8], k: usize, mask: u32) -> Option<u64> {
    let first = mask.trailing_zeros();
    let v = d.arg(s, k, first);
    lanes(mask).all(|l| d.arg(s, k, l) == v).then_some(v)
}

/// Execute `Op::Tcgen05 { op }` (described by `d`) for the lanes of `mask`.
pub fn exec(d: &WarpDesc, op: Tc05Op, mask: u32, s: &mut [u8], env: &CtaEnv) {
    // SAFETY: `env.tmem` is null or points to the CTA's tensor memory, which outlives the
    // CTA's run (`runtime::launch` owns it with the CTA's other buffers).
    let Some(tm) = (unsafe { env.tmem.as_ref() }) else {
        fault_all(env, d, mask, "no tensor memory in this launch");
        return;
    };
    if op.aligned() && !mma::whole_warp(d, mask, env) {
        return;
    }
    let all_args = d.args.len();
    if op.aligned() && !(0..all_args).all(|k| uniform(d, s, k, mask).is_some()) {
        // `ld`/`st` registers differ by lane; only the address must agree.
        let addr_only = matches!(op, Tc05Op::St { .. });
        if !(addr_only && uniform(d, s, 0, mask).is_some()) {
            fault_all(
                env,
                d,
                mask,
                &format!("tcgen05.{op}: the lanes of the warp give different operands"),
            );
            return;
        }
    }
    match op {
        Tc05Op::Alloc { shared, pair } => {
            let addr = d.arg(s, 0, 0);
            let ncols = d.arg(s, 1, 0) as u32;
            let space = if shared {
                Space::Shared
            } else {
                Space::Generic
            };
            let p = match translate(env, space, addr, 4, 4, 0) {
                Ok(p) => p,
                Err(err) => {
                    env.access_fault(0, d.inst, err, addr, 4, 4, true);
                    return;
                }
            };
            let got = if pair {
                match pair_ask(env, tm, env.warp, AskKind::Alloc { ncols }) {
                    Ok(Some(col)) => Ok(col),
                    Ok(None) => return set_done(d, s, mask, false),
                    Err(e) => Err(e),
                }
            } else {
                tm.alloc(ncols)
            };
            match got {
                Ok(col) => {
                    super::env::init_access(env, space, addr, 4, 0, d.inst, InitAccess::Write);
                    // SAFETY: `translate` checked 4 bytes at `p`, aligned to 4, inside the
                    // CTA's shared memory (or the arena); the CTA's warps run on this host
                    // thread.
                    unsafe { (p as *mut u32).write(col) };
                }
                Err(e) => fault_all(env, d, mask, &e),
            }
            if pair {
                set_done(d, s, mask, true);
            }
        }
        Tc05Op::Dealloc { pair } => {
            let (taddr, ncols) = (d.arg(s, 0, 0) as u32, d.arg(s, 1, 0) as u32);
            let done = if pair {
                match pair_ask(env, tm, env.warp, AskKind::Dealloc { taddr, ncols }) {
                    Ok(Some(_)) => Ok(()),
                    Ok(None) => return set_done(d, s, mask, false),
                    Err(e) => Err(e),
                }
            } else {
                tm.dealloc(taddr, ncols)
            };
            if let Err(e) = done {
                fault_all(env, d, mask, &e);
            }
            if pair {
                set_done(d, s, mask, true);
            }
        }
        Tc05Op::Relinquish { .. } => tm.relinquish(),
        Tc05Op::Ld { .. } | Tc05Op::St { .. } => {
            let cells = match ld_st_cells(tm, env.warp, op, d.arg(s, 0, 0) as u32) {
                Ok(c) => c,
                Err(e) => {
                    fault_all(env, d, mask, &format!("tcgen05.{op}: {e}"));
                    return;
                }
            };
            let n = op.regs() as usize;
            let packed = matches!(
                op,
                Tc05Op::Ld { pack: true, .. } | Tc05Op::St { unpack: true, .. }
            );
            for t in 0..32u32 {
                let row = &cells[t as usize * n..(t as usize + 1) * n];
                if let Tc05Op::Ld { red, .. } = op {
                    let vals: Vec<u32> = row
                        .iter()
                        .map(|&(lane, col)| {
                            if packed {
                                tm.get(lane, col) & 0xffff | (tm.get(lane, col + 1) & 0xffff) << 16
                            } else {
                                tm.get(lane, col)
                            }
                        })
                        .collect();
                    for (i, v) in vals.iter().enumerate() {
                        d.set(s, i, t, u64::from(*v));
                    }
                    if let Some(r) = red {
                        d.set(s, n, t, u64::from(reduce(r, &vals)));
                    }
                } else {
                    for (i, &(lane, col)) in row.iter().enumerate() {
                        let v = d.arg(s, 1 + i, t) as u32;
                        if packed {
                            tm.set(lane, col, v & 0xffff);
                            tm.set(lane, col + 1, v >> 16);
                        } else {
                            tm.set(lane, col, v);
                        }
                    }
                }
            }
        }
        Tc05Op::Mma {
            kind,
            a_tmem,
            sparse,
            mask: lane_mask,
            scale_d,
            scale_vec,
            pair,
            collector,
            ashift,
        } => {
            for l in lanes(mask) {
                let form = MmaForm {
                    kind,
                    a_tmem,
                    sparse,
                    ws: None,
                    lane_mask,
                    scale_d,
                    scale_vec,
                    zero_mask: false,
                    pair,
                    collector_a: Some(collector),
                    ashift,
                };
                if let Err((fk, e)) = mma_lane(d, s, env, tm, l, form) {
                    env.fault_detail(l, d.inst, fk, e);
                    return;
                }
            }
        }
        Tc05Op::MmaWs {
            kind,
            a_tmem,
            sparse,
            buffer,
            collector,
            zero_mask,
        } => {
            for l in lanes(mask) {
                let ws = Some((buffer, collector));
                let form = MmaForm {
                    kind,
                    a_tmem,
                    sparse,
                    ws,
                    lane_mask: false,
                    scale_d: 0,
                    scale_vec: 0,
                    zero_mask,
                    pair: false,
                    collector_a: None,
                    ashift: false,
                };
                if let Err((fk, e)) = mma_lane(d, s, env, tm, l, form) {
                    env.fault_detail(l, d.inst, fk, e);
                    return;
                }
            }
        }
        Tc05Op::Cp {
            shape,
            unpack,
            pair,
        } => {
            for l in lanes(mask) {
                let (t, desc) = (d.arg(s, 0, l) as u32, d.arg(s, 1, l));
                let r = if pair {
                    // Each CTA of the pair from its own shared memory into its own tensor
                    // memory (through `.shared::cluster` addresses of the same offsets).
                    pair_tmems(env, tm).and_then(|(tms, ranks)| {
                        let dsts = [(tms[0], Some(ranks[0])), (tms[1], Some(ranks[1]))];
                        cp_lane(env, d.inst, &dsts, l, shape, unpack, t, desc)
                    })
                } else {
                    cp_lane(env, d.inst, &[(tm, None)], l, shape, unpack, t, desc)
                };
                if let Err(e) = r {
                    env.fault_detail(l, d.inst, FaultKind::TensorMemory, e);
                    return;
                }
            }
        }
        Tc05Op::Shift { pair } => {
            for l in lanes(mask) {
                let t = d.arg(s, 0, l) as u32;
                let r = if pair {
                    // The pair's tensor memories, each shifted at `taddr` (the pair's
                    // allocations hold the same columns in both).
                    pair_tmems(env, tm)
                        .and_then(|(tms, _)| tms.iter().try_for_each(|m| shift(m, t)))
                } else {
                    shift(tm, t)
                };
                if let Err(e) = r {
                    env.fault_detail(l, d.inst, FaultKind::TensorMemory, e);
                    return;
                }
            }
        }
    }
}

/// The cells a `tcgen05.ld`/`st` (`op`) at `taddr` by warp `warp` reaches: (lane, column) of
/// thread `t`'s register `i` at index `t·regs + i` (with `.pack::16b`/`.unpack::16b`, the first
/// of its two columns). Each access (two for `.16x32bx2`, the second at `taddr +
/// immHalfSplitoff`) must lie in the warp's 32 lanes (`32·(warp % 4)`; `.32x32b` starts at
/// the first, a 16-lane shape anywhere its 16 lanes fit) and inside one allocation.
fn ld_st_cells(
    tm: &TensorMemory,
    warp: u32,
    op: Tc05Op,
    taddr: u32,
) -> Result<Vec<(u32, u32)>, String> {
    let (shape, split, packed) = match op {
        Tc05Op::Ld {
            shape, split, pack, ..
        } => (shape, split, pack),
        Tc05Op::St {
            shape,
            split,
            unpack,
            ..
        } => (shape, split, unpack),
        Tc05Op::Alloc { .. }
        | Tc05Op::Dealloc { .. }
        | Tc05Op::Relinquish { .. }
        | Tc05Op::Mma { .. }
        | Tc05Op::MmaWs { .. }
        | Tc05Op::Cp { .. }
        | Tc05Op::Shift { .. } => return Err("not a tcgen05.ld/st".into()),
    };
    let quarter = 32 * (warp % 4);
    let nlanes = shape.lanes();
    let bases = if shape == Tc05Shape::S16x32bx2 {
        vec![taddr, taddr.wrapping_add(split)]
    } else {
        vec![taddr]
    };
    for &base in &bases {
        let (lane0, col0) = (base >> 16, base & 0xffff);
        let fits = if nlanes == 32 {
            lane0 == quarter
        } else {
            (quarter..=quarter + 32 - nlanes).contains(&lane0)
        };
        if !fits {
            return Err(format!(
                "an access at lane {lane0}: warp {warp} reaches lanes {quarter}..{} (.{shape} \
                 takes {nlanes} lanes{})",
                quarter + 32,
                if nlanes == 32 {
                    " from the first"
                } else {
                    " inside them"
                }
            ));
        }
        tm.check(lane0, nlanes, col0, op.columns())?;
    }
    let n = op.regs();
    let step = if packed { 2 } else { 1 };
    let mut cells = Vec::with_capacity(32 * n as usize);
    for t in 0..32 {
        for i in 0..n {
            let (l, c, second) = shape.cell(t, i);
            let base = bases[usize::from(second) % bases.len()];
            cells.push(((base >> 16) + l, (base & 0xffff) + step * c));
        }
    }
    Ok(cells)
}

/// `tcgen05.ld.red`'s reduction of one thread's loaded registers (§9.7.16.8.3): `.min` or
/// `.max` over them, as f32 (`.abs` compares magnitudes; NaN as `min`/`max.f32`: a NaN loses
/// to a number, with `.NaN` it wins and the result is the canonical NaN; -0 < +0), u32 or s32.
fn reduce(r: Tc05Red, vals: &[u32]) -> u32 {
    let mut it = vals.iter().copied();
    let first = it.next().unwrap_or(0);
    match r.ty {
        Tc05RedType::F32 { abs, nan } => {
            let m = |x: u32| if abs { x & 0x7fff_ffff } else { x };
            let mut acc = u64::from(m(first));
            for v in it {
                acc = fp::minmax(Fmt::F32, acc, u64::from(m(v)), r.max, false, nan, false);
            }
            acc as u32
        }
        Tc05RedType::U32 => it.fold(first, |a, v| if r.max { a.max(v) } else { a.min(v) }),
        Tc05RedType::S32 => it.fold(first, |a, v| {
            let (a, v) = (a as i32, v as i32);
            (if r.max { a.max(v) } else { a.min(v) }) as u32
        }),
    }
}

/// `tcgen05.shift.cta_group::1.down [taddr]` (§9.7.16.9.3, shape `.31x256b`): the lane of
/// `taddr` is a multiple of 32; for the 8 columns (256 bits) from its column, lane
/// `lane0 + i + 1` takes the value lane `lane0 + i` held, for `i` in `0..31`. The first lane
/// keeps its value (the ISA does not say what it holds; ptxjit leaves it).
fn shift(tm: &TensorMemory, taddr: u32) -> Result<(), String> {
    let (lane0, col0) = (taddr >> 16, taddr & 0xffff);
    if lane0 % 32 != 0 {
        return Err(format!(
            "tcgen05.shift at lane {lane0}: the lane must be a multiple of 32"
        ));
    }
    tm.check(lane0, 32, col0, 8)
        .map_err(|e| format!("tcgen05.shift: {e}"))?;
    for i in (0..31).rev() {
        for c in 0..8 {
            tm.set(lane0 + i + 1, col0 + c, tm.get(lane0 + i, col0 + c));
        }
    }
    Ok(())
}

/// Read the 32-bit word at shared address `addr` for `what`.
fn smem_u32(env: &CtaEnv, inst: u32, lane: u32, addr: u64, what: &str) -> Result<u32, String> {
    read_shared(env, addr, 4, lane, inst)
        .map(|v| v as u32)
        .map_err(|_| {
            format!(
                "{what} reads shared address {addr:#x} (4 bytes), outside shared memory or \
                 misaligned"
            )
        })
}

/// `tcgen05.cp.cta_group.shape [taddr], s-desc` (§9.7.16.9.2) issued by `lane`, copying into
/// each of `dsts`: a tensor memory and the CTA whose shared memory it copies from (`None`:
/// the executing CTA; with `.cta_group::2` each CTA of the pair copies from its own shared
/// memory at s-desc's offsets into its own tensor memory at `taddr`, ⚠ ptxjit's reading). The
/// source matrix has the shape's rows, each of 16 or 32 bytes, in the K-major canonical
/// layout of the descriptor (row `r` as the M/N index, its bytes as K: `wgmma::Desc::addr`
/// with 1-byte elements); 32-bit word `w` of row `r` goes to column `col0 + w` of each lane
/// the shape sends row `r` to ([`Tc05CpShape::lanes`], relative to the lane of `taddr`). With
/// `unpack` (§9.7.16.9.1) each 16-byte group of a row is expanded to 16 bytes first
/// ([`Tc05CpUnpack::expand`]); the addressing is the same. Everything (both CTAs' sources and
/// destinations with `.cta_group::2`) is read and checked before anything is written.
#[allow(clippy::too_many_arguments)]
fn cp_lane(
    env: &CtaEnv,
    inst: u32,
    dsts: &[(&TensorMemory, Option<u32>)],
    lane: u32,
    shape: Tc05CpShape,
    unpack: Option<Tc05CpUnpack>,
    taddr: u32,
    desc: u64,
) -> Result<(), String> {
    let (lane0, col0) = (taddr >> 16, taddr & 0xffff);
    let desc = smem_desc(desc)?;
    let (rows, cols) = (shape.rows(), shape.columns());
    let what = match unpack {
        None => format!("tcgen05.cp.{shape}"),
        Some(u) => format!("tcgen05.cp.{shape}.{u}"),
    };
    let span = (0..rows)
        .flat_map(|r| shape.lanes(r))
        .max()
        .map_or(0, |l| l + 1);
    let mut all = Vec::with_capacity(dsts.len());
    for &(tm, cta) in dsts {
        let whose = match cta {
            Some(r) => format!("{what} (CTA rank {r} of the pair)"),
            None => what.clone(),
        };
        tm.check(lane0, span, col0, cols)
            .map_err(|e| format!("{whose}: {e}"))?;
        let mut vals = Vec::with_capacity((rows * cols) as usize);
        for r in 0..rows {
            for w in 0..cols {
                let addr = in_cta(desc.addr(r as u64, 4 * w as u64, 1, false), cta);
                vals.push(smem_u32(env, inst, lane, addr, &whose)?);
            }
            if let Some(u) = unpack {
                // Each 16-byte group (four words) of the row, expanded in place.
                let row = &mut vals[(r * cols) as usize..];
                for g in 0..(cols / 4) as usize {
                    let mut group = [0u8; 16];
                    for k in 0..4 {
                        group[4 * k..4 * k + 4].copy_from_slice(&row[4 * g + k].to_le_bytes());
                    }
                    let out = u.expand(group);
                    for k in 0..4 {
                        row[4 * g + k] =
                            u32::from_le_bytes(out[4 * k..4 * k + 4].try_into().expect("4 bytes"));
                    }
                }
            }
        }
        all.push(vals);
    }
    for (&(tm, _), vals) in dsts.iter().zip(&all) {
        for r in 0..rows {
            for l in shape.lanes(r) {
                for w in 0..cols {
                    tm.set(lane0 + l, col0 + w, vals[(r * cols + w) as usize]);
                }
            }
        }
    }
    Ok(())
}

/// A decoded instruction descriptor (§9.7.16.4.2, Table 42) of a `tcgen05.mma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstrDesc {
    pub d: MmaElem,
    pub a: MmaElem,
    pub b: MmaElem,
    pub neg_a: bool,
    pub neg_b: bool,
    /// A is M-major (transposed), else K-major.
    pub trans_a: bool,
    /// B is N-major (transposed), else K-major.
    pub trans_b: bool,
    pub m: u32,
    pub n: u32,
    /// Saturate (`.kind::i8`).
    pub satfinite: bool,
    /// Bit 2: A is structured sparse (`tcgen05.mma.sp` only).
    pub sparse: bool,
    /// Bits 0-1: the sparsity selector (when `sparse`).
    pub selector: u32,
    /// Block scaling (§9.7.16.10.7): the scale factor A ID (bits 29-30) and B ID (bits 4-5),
    /// and the scale type (bit 23: 1 ue8m0, 0 ue4m3); 0, 0, true for the other kinds.
    pub sfa_id: u32,
    pub sfb_id: u32,
    pub ue8m0: bool,
}

impl InstrDesc {
    /// Decode `v` for `kind`, or say why it is not a form ptxjit runs.
    ///
    /// `ws`: the descriptor of a `tcgen05.mma.ws` (its own shapes; bits 30-31, the maximum
    /// B-reuse shift, are a hint ptxjit ignores).
    pub fn decode(v: u32, kind: Tc05Kind, ws: bool) -> Result<InstrDesc, String> {
        InstrDesc::decode_in(v, kind, ws, false)
    }

    /// [`InstrDesc::decode`] for a `.cta_group::1` (`pair` false) or `.cta_group::2`
    /// multiply, whose shapes differ ([`check_shape`]).
    pub fn decode_in(v: u32, kind: Tc05Kind, ws: bool, pair: bool) -> Result<InstrDesc, String> {
        let bit = |k: u32| (v >> k) & 1 == 1;
        let field = |lo: u32, n: u32| (v >> lo) & ((1 << n) - 1);
        let (dt, at, bt) = (field(4, 2), field(7, 3), field(10, 3));
        use MmaElem::*;
        let elem = |t: u32| -> Option<MmaElem> {
            match (kind, t) {
                (Tc05Kind::F16, 0) => Some(F16),
                (Tc05Kind::F16, 1) => Some(Bf16),
                (Tc05Kind::Tf32, 2) => Some(Tf32),
                (Tc05Kind::I8, 0) => Some(U8),
                (Tc05Kind::I8, 1) => Some(S8),
                (Tc05Kind::F8f6f4 | Tc05Kind::Mxf8f6f4, 0) => Some(E4m3),
                (Tc05Kind::F8f6f4 | Tc05Kind::Mxf8f6f4, 1) => Some(E5m2),
                (Tc05Kind::F8f6f4 | Tc05Kind::Mxf8f6f4, 3) => Some(E2m3),
                (Tc05Kind::F8f6f4 | Tc05Kind::Mxf8f6f4, 4) => Some(E3m2),
                (Tc05Kind::F8f6f4 | Tc05Kind::Mxf8f6f4, 5) => Some(E2m1),
                (Tc05Kind::Mxf4 | Tc05Kind::Mxf4nvf4, 1) => Some(E2m1),
                _ => None,
            }
        };
        let (Some(a), Some(b)) = (elem(at), elem(bt)) else {
            return Err(format!(
                "instruction descriptor A type {at} / B type {bt} is not a .kind::{kind} type"
            ));
        };
        let scaled = kind.block_scaled();
        let d = match (kind, dt) {
            // Block-scaled kinds accumulate in f32; bits 4-5 are the scale factor B ID.
            _ if scaled => F32,
            (Tc05Kind::F16 | Tc05Kind::Tf32 | Tc05Kind::F8f6f4, 1) => F32,
            (Tc05Kind::I8, 2) => S32,
            (Tc05Kind::F16, 0) if a == F16 => F16,
            (Tc05Kind::F16, 0) => {
                return Err(format!(
                    "instruction descriptor: an f16 accumulator (D type 0) takes f16 inputs, \
                     not .{a} (Table 39)"
                ))
            }
            (Tc05Kind::F8f6f4, 0) => F16,
            _ => {
                return Err(format!(
                    "instruction descriptor D type {dt} is not a .kind::{kind} accumulator"
                ))
            }
        };
        if kind == Tc05Kind::F16 && a != b {
            return Err(format!(
                "instruction descriptor: A is .{a} and B .{b} (.kind::f16 takes one type)"
            ));
        }
        let (m, n) = (field(24, 5) << 4, field(17, 6) << 3);
        if pair {
            check_pair_shape(kind, m, n)?;
        } else {
            check_shape(kind, ws, m, n)?;
        }
        let sub_byte = |e: MmaElem| e.bits() < 8;
        if (bit(15) && sub_byte(a)) || (bit(16) && sub_byte(b)) {
            return Err(format!(
                "instruction descriptor: a transposed (MN-major) .{} matrix; 4- and 6-bit types \
                 are K-major only (Table 52)",
                if bit(15) && sub_byte(a) { a } else { b }
            ));
        }
        let satfinite = bit(3) && !scaled;
        if satfinite && kind != Tc05Kind::I8 {
            return Err("instruction descriptor: saturate (bit 3) is for .kind::i8 only".into());
        }
        if kind == Tc05Kind::I8 && (bit(13) || bit(14)) {
            return Err("instruction descriptor: .kind::i8 has no negation (bits 13-14)".into());
        }
        if scaled && bit(31) {
            return Err(format!(
                "instruction descriptor: K size bit 31 set (K = 96 for .kind::mxf4/::mxf4nvf4) \
                 is not supported for .kind::{kind} (K = {})",
                kind.k()
            ));
        }
        if scaled && !bit(23) && kind != Tc05Kind::Mxf4nvf4 {
            return Err(format!(
                "instruction descriptor: scale type (bit 23) 0 is ue4m3, which .kind::{kind} \
                 does not take (Table 55: ue8m0)"
            ));
        }
        if !ws && !scaled && field(30, 2) != 0 {
            return Err(
                "instruction descriptor: the B-reuse shift (bits 30-31) is for .ws only".into(),
            );
        }
        Ok(InstrDesc {
            d,
            a,
            b,
            neg_a: bit(13),
            neg_b: bit(14),
            trans_a: bit(15),
            trans_b: bit(16),
            m,
            n,
            satfinite,
            sparse: bit(2),
            selector: field(0, 2),
            sfa_id: if scaled { field(29, 2) } else { 0 },
            sfb_id: if scaled { field(4, 2) } else { 0 },
            ue8m0: !scaled || bit(23),
        })
    }
}

/// Check M and N of a `.cta_group::2` dense `tcgen05.mma`: M = 128 or 256, N from 16 to 256
/// in steps of 16 (`.kind::i8`: 32 to 256 in steps of 32). ⚠ The ISA's Table 39 rows for
/// `.cta_group::2` were not readable here; these are the ranges CUTLASS's `2x1SM` atoms
/// assert (`SM100_MMA_F16BF16_2x1SM_SS`, `SM100_MMA_S8_2x1SM_SS`), docs/isa-notes.md.
fn check_pair_shape(kind: Tc05Kind, m: u32, n: u32) -> Result<(), String> {
    if m != 128 && m != 256 {
        return Err(format!(
            "instruction descriptor M = {m}: .cta_group::2 .kind::{kind} takes M = 128 or 256"
        ));
    }
    let step = if kind == Tc05Kind::I8 { 32 } else { 16 };
    if !(step..=256).contains(&n) || !n.is_multiple_of(step) {
        return Err(format!(
            "instruction descriptor N = {n}: .cta_group::2 .kind::{kind} takes N from {step} to \
             256 in steps of {step}"
        ));
    }
    Ok(())
}

/// Check M and N of a `.cta_group::1` `tcgen05.mma` (`.ws` or not) against Table 39
/// (§9.7.16.2.1): without `.ws` M = 64 or 128 (block-scaled kinds: 128) and N from 8 to 256
/// in steps of 8 (`.kind::i8`: 8, 16, 24, 32, then steps of 16 to 256); with `.ws` M = 32,
/// 64 or 128 and N = 64, 128 or 256.
fn check_shape(kind: Tc05Kind, ws: bool, m: u32, n: u32) -> Result<(), String> {
    if ws {
        if !matches!(m, 32 | 64 | 128) {
            return Err(format!(
                "instruction descriptor M = {m}: tcgen05.mma.ws takes M = 32, 64 or 128"
            ));
        }
        if !matches!(n, 64 | 128 | 256) {
            return Err(format!(
                "instruction descriptor N = {n}: tcgen05.mma.ws takes N = 64, 128 or 256"
            ));
        }
        return Ok(());
    }
    let m_ok = if kind.block_scaled() {
        m == 128
    } else {
        m == 64 || m == 128
    };
    if !m_ok {
        return Err(format!(
            "instruction descriptor M = {m}: .cta_group::1 .kind::{kind} takes M = {}",
            if kind.block_scaled() {
                "128"
            } else {
                "64 or 128"
            }
        ));
    }
    let n_ok = match kind {
        Tc05Kind::I8 => {
            matches!(n, 8 | 16 | 24 | 32) || ((48..=256).contains(&n) && n.is_multiple_of(16))
        }
        Tc05Kind::F16
        | Tc05Kind::Tf32
        | Tc05Kind::F8f6f4
        | Tc05Kind::Mxf8f6f4
        | Tc05Kind::Mxf4
        | Tc05Kind::Mxf4nvf4 => (8..=256).contains(&n) && n.is_multiple_of(8),
    };
    if !n_ok {
        return Err(format!(
            "instruction descriptor N = {n}: .cta_group::1 .kind::{kind} takes N from 8 to 256 \
             in steps of 8{} (Table 39)",
            if kind == Tc05Kind::I8 {
                " up to 32, then steps of 16"
            } else {
                ""
            }
        ));
    }
    Ok(())
}

/// Decode a tcgen05 shared-memory descriptor (see the module documentation).
pub fn smem_desc(v: u64) -> Result<Desc, String> {
    if (v >> 46) & 7 != 1 {
        return Err(format!(
            "shared-memory descriptor {v:#x}: bits 46-48 must hold 0b001"
        ));
    }
    let x = match v >> 61 {
        0 => 1,
        2 => 8,
        4 => 4,
        6 => 2,
        1 => {
            return Err(format!(
                "shared-memory descriptor {v:#x}: 128-byte swizzling with 32-byte atoms is not \
                 supported yet"
            ))
        }
        m => {
            return Err(format!(
                "shared-memory descriptor {v:#x}: swizzle mode {m} is invalid"
            ))
        }
    };
    if (v >> 49) & 7 != 0 {
        return Err(format!(
            "shared-memory descriptor {v:#x}: a non-zero base offset is not supported"
        ));
    }
    if (v >> 52) & 1 != 0 {
        return Err(format!(
            "shared-memory descriptor {v:#x}: the absolute leading-dimension mode (bit 52) \
             is not supported"
        ));
    }
    Ok(Desc {
        start: (v & 0x3fff) << 4,
        lbo: ((v >> 16) & 0x3fff) << 4,
        sbo: ((v >> 32) & 0x3fff) << 4,
        base: 0,
        x,
    })
}

/// Read element (`mn`, `kk`) of a matrix in shared memory through `desc`.
///
/// 4- and 6-bit elements (`.kind::f8f6f4`, K-major only) sit in the descriptor's layout as
/// 8-bit elements would, 16 to a 16-byte group, but packed: the 16 elements of K from a
/// multiple of 16 fill the group's first 8 (4-bit) or 12 (6-bit) bytes, element `j` at bits
/// `w·j..w·j + w` of them (little-endian), and the rest of the group is padding (PTX ISA
/// §9.7.16.10.4.4, and §5.5.1.1.1's `.b4x16_p64`/`.b6x16_p32`, the tensor-copy types that
/// write this format).
#[allow(clippy::too_many_arguments)]
fn smem_elem(
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
fn smem_nibble(
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
fn in_cta(addr: u64, cta: Option<u32>) -> u64 {
    match cta {
        Some(r) => CLUSTER_BIT | u64::from(r) << RANK_SHIFT | addr,
        None => addr,
    }
}

/// The element's bits with its sign flipped (a float input negated; the instruction
/// descriptor of `.kind::i8` has no negation).
fn negate(e: MmaElem, x: u64) -> u64 {
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

/// A fault of `tcgen05.mma`: its kind and detail.
type MmaFault = (FaultKind, String);

fn tmem_fault(e: String) -> MmaFault {
    (FaultKind::TensorMemory, e)
}

/// Which multiply: its kind, whether A is in tensor memory, whether A is structured sparse
/// (`tcgen05.mma.sp`), for `.ws` the collector buffer and its use, whether a
/// disable-output-lane mask follows the other operands, and the scale-input-d exponent.
#[derive(Clone, Copy)]
struct MmaForm {
    kind: Tc05Kind,
    a_tmem: bool,
    sparse: bool,
    ws: Option<(u8, Tc05Collector)>,
    lane_mask: bool,
    scale_d: u8,
    scale_vec: u8,
    /// `.ws` with a zero-column-mask-desc (the operand after enable-input-d).
    zero_mask: bool,
    /// `.cta_group::2`: the multiply of the CTA pair (see [`Tc05Op::Mma`]).
    pair: bool,
    /// `tcgen05.mma{.sp}`'s use of the collector buffer for A (`None` for `.ws`).
    collector_a: Option<Tc05Collector>,
    /// `.ashift`: A's rows in tensor memory move one row down once read.
    ashift: bool,
}

/// The zero-column mask of a `tcgen05.mma.ws` (PTX ISA §9.7.16.4.3, Table 45) for an
/// `m`-row, `n`-column multiply: entry `j` is true when column `j` of B reads as zero. With
/// Non-Zero Mask (bit 39) clear no column is; else the mask is one sub-mask of N bits
/// (M = 128), two of N/2 (M = 64) or four of N/4 (M = 32). Sub-mask `i` is the periodic pattern
/// that starts with a span of ones when First Span `fs_i` (bit 32 + i) is 1 — Skip Span (bits
/// 40-47) + 1 zeroed columns — or with a span of zeros when it is 0 — Use Span (bits 48-55) + 1
/// columns of B — the two alternating, with its first Start Count `sc_i` (bits 8i..8i+7) bits
/// dropped (the ISA's examples 2-4; its table's descriptions of the two spans are the other
/// way round). Errors: reserved bits 36-38 or bits 62-63 set, or a Column Shift (bits 56-61)
/// other than 0 (the ISA does not say how a shift combines with the mask or the collector
/// buffers).
fn zero_columns(desc: u64, m: u32, n: u64) -> Result<Vec<bool>, String> {
    if desc & (0b111 << 36) != 0 || desc >> 62 != 0 {
        return Err(format!(
            "zero-column-mask-desc {desc:#x}: reserved bits (36-38, 62-63) are set"
        ));
    }
    let shift = (desc >> 56) & 63;
    if shift != 0 {
        return Err(format!(
            "zero-column-mask-desc {desc:#x}: Column Shift (bits 56-61) {shift} is not supported \
             (the ISA does not say how the shift combines with the mask and the collector buffers)"
        ));
    }
    if desc & (1 << 39) == 0 {
        return Ok(vec![false; n as usize]);
    }
    let parts = u64::from(128 / m.clamp(32, 128));
    let width = n / parts;
    let (skip, used) = (((desc >> 40) & 255) + 1, ((desc >> 48) & 255) + 1);
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..parts {
        let start = (desc >> (8 * i)) & 255;
        let ones_first = (desc >> (32 + i)) & 1 == 1;
        for j in 0..width {
            let p = (j + start) % (skip + used);
            out.push(if ones_first { p < skip } else { p >= used });
        }
    }
    Ok(out)
}

/// One `tcgen05.mma` (`.sp`, `.ws`) issued by `lane`.
fn mma_lane(
    d: &WarpDesc,
    s: &[u8],
    env: &CtaEnv,
    tm: &TensorMemory,
    lane: u32,
    form: MmaForm,
) -> Result<(), MmaFault> {
    let MmaForm {
        kind,
        a_tmem,
        sparse,
        ws,
        lane_mask,
        scale_d,
        scale_vec,
        zero_mask,
        pair,
        collector_a,
        ashift,
    } = form;
    let dt = d.arg(s, 0, lane) as u32;
    let a_op = d.arg(s, 1, lane);
    let id = InstrDesc::decode_in(d.arg(s, 3, lane) as u32, kind, ws.is_some(), pair)
        .map_err(tmem_fault)?;
    // The tensor memories D is in (with `.cta_group::2` the pair's, even rank first), the
    // CTAs A's rows and B's columns come from (`None`: the executing CTA), and the rows of
    // A and D (columns of B) each holds.
    let (tms, ctas) = if pair {
        let (t, r) = pair_tmems(env, tm).map_err(tmem_fault)?;
        (t.to_vec(), vec![Some(r[0]), Some(r[1])])
    } else {
        (vec![tm], vec![None])
    };
    let parts = tms.len() as u64;
    let enable_d = d.arg(s, 4, lane) != 0;
    if id.sparse != sparse {
        return Err(tmem_fault(if sparse {
            "tcgen05.mma.sp: the instruction descriptor's sparsity bit (2) is clear".into()
        } else {
            "the instruction descriptor asks for sparsity (bit 2) in a dense tcgen05.mma".into()
        }));
    }
    // A sparse A's K is twice the dense one; its operand holds the stored K/2 columns.
    let k = kind.k() as u64 * if sparse { 2 } else { 1 };
    let ka = if sparse { k / 2 } else { k };
    let (m, n) = (id.m as u64, id.n as u64);
    // `.kind::mxf4`/`::mxf4nvf4` pack two e2m1 to a byte with no padding (§9.7.16.10.4.6).
    let dense4 = matches!(kind, Tc05Kind::Mxf4 | Tc05Kind::Mxf4nvf4);
    let (dl, dc) = (dt >> 16, dt & 0xffff);
    let path = if pair {
        DataPath::pair(id.m, dl)
    } else {
        DataPath::of(id.m, ws.is_some(), dl)
    }
    .map_err(tmem_fault)?;
    for t in &tms {
        t.check(0, LANES, dc, path.cols(id.n))
            .map_err(|e| tmem_fault(format!("tcgen05.mma D: {e}")))?;
    }
    let (rows, cols) = (m / parts, n / parts);
    // Block scaling: each CTA's scale_A (its rows) and scale_B (all N columns, 2x2 for a
    // Layout B pair) from its own tensor memory (`scale`).
    let scales = if scale_vec != 0 {
        let (sa, sb) = (d.arg(s, 5, lane) as u32, d.arg(s, 6, lane) as u32);
        let sfb = if pair && id.m == 128 {
            SfLanes::TwoByTwo
        } else {
            SfLanes::FourByOne
        };
        let mut per_cta = Vec::with_capacity(tms.len());
        for t in &tms {
            per_cta.push(block_scales(
                t,
                &id,
                u32::from(scale_vec),
                (sa, rows as u32),
                (sb, sfb),
            )?);
        }
        Some(per_cta)
    } else {
        None
    };
    // The tensor memory (index into `tms`), lane and column of row `r`, column `j` of D.
    let cell = |r: u64, j: u64| {
        let (l, c) = path.place(id.n, (r % rows) as u32, j as u32);
        ((r / rows) as usize, l, dc + c)
    };
    if sparse && pair && id.m == 128 {
        return Err(tmem_fault(
            "tcgen05.mma.sp.cta_group::2 with M = 128: where each CTA of the pair keeps the \
             sparsity metadata of its 64 rows (Layout B) is given in figures only; not supported \
             yet (M = 256 is: each CTA's 128 rows as M = 128's)"
                .into(),
        ));
    }
    // `.collector::a::use`/`::lastuse`: A is the one the buffer keeps, not the operand's.
    let kept_a = match collector_a {
        Some(Tc05Collector::Use | Tc05Collector::LastUse) => {
            let st = tm.st.borrow();
            let Some(c) = &st.collector_a else {
                return Err(tmem_fault(
                    "tcgen05.mma uses the collector buffer for A, which holds no A (no \
                     .collector::a::fill since it was last used up or discarded)"
                        .into(),
                ));
            };
            if (c.elem, c.k, c.n) != (id.a, ka, m) {
                return Err(tmem_fault(format!(
                    "tcgen05.mma: the collector buffer for A holds a {}×{} .{} A, the \
                     instruction descriptor asks for {m}×{ka} .{}",
                    c.n, c.k, c.elem, id.a
                )));
            }
            Some(c.b.clone())
        }
        _ => None,
    };
    if ashift && !matches!(id.m, 128 | 256) {
        return Err(tmem_fault(format!(
            "tcgen05.mma.ashift with M = {}: .ashift is only allowed with M = 128 or M = 256 \
             (§9.7.16.10.9.1)",
            id.m
        )));
    }
    let mut a = vec![0u64; (m * ka) as usize];
    if a_tmem {
        let at = a_op as u32;
        let (al, ac) = (at >> 16, at & 0xffff);
        let bits = id.a.bits() as u64;
        // A 4- or 6-bit A of `.kind::f8f6f4`/`::mxf8f6f4` sits one element per 8-bit
        // container (§9.7.16.10.4.3), the one `tcgen05.cp`'s decompression writes: a 4-bit
        // element at bits 2-5, a 6-bit one at bits 0-5 (docs/isa-notes.md); the other bits
        // are not read.
        let (bits, shift) = match (bits, kind) {
            (8.., _) => (bits, 0),
            (4, Tc05Kind::F8f6f4 | Tc05Kind::Mxf8f6f4) => (8, 2),
            (6, Tc05Kind::F8f6f4 | Tc05Kind::Mxf8f6f4) => (8, 0),
            _ => {
                return Err(tmem_fault(format!(
                    "tcgen05.mma.kind::{kind}: a .{} A in tensor memory is not supported yet \
                     (the ISA does not say how the two-to-a-byte elements of this kind sit in \
                     tensor memory)",
                    id.a
                )))
            }
        };
        let elem_mask = (1u64 << id.a.bits()) - 1;
        let per = 32 / bits;
        let acols = ka.div_ceil(per) as u32;
        match path {
            DataPath::D if al != 0 => {
                return Err(tmem_fault(format!(
                    "tcgen05.mma A at lane {al}; with M = 128, A starts at lane 0"
                )))
            }
            DataPath::F { align } if al != align => {
                return Err(tmem_fault(format!(
                    "tcgen05.mma A at lane {al}, D at lane {align}: with M = 64 (Layout F) A and \
                     D must use the same lane alignment (§9.7.16.10.5)"
                )))
            }
            DataPath::E if pair => {}
            DataPath::E | DataPath::G => {
                return Err(tmem_fault(format!(
                    "tcgen05.mma.ws with M = {} and A in tensor memory: the ISA's figures give \
                     D's layout (Layout {}) but not A's; not supported",
                    id.m,
                    if id.m == 64 { 'E' } else { 'G' }
                )))
            }
            DataPath::D | DataPath::F { .. } => {}
        }
        // ⚠ A `.cta_group::2` M = 128 pair (Layout B) keeps each CTA's 64 rows of A twice,
        // local row r in lanes r and 64 + r (the lanes that compute the two halves of N; CUTLASS
        // `UMMA::TmemAllocMode::Duplicated`: "the input data must be duplicated between the
        // subpartitions [0,1]<->[2,3]"); the copies must agree.
        let copies: &[u32] = if pair && id.m == 128 { &[0, 64] } else { &[0] };
        for t in &tms {
            t.check(0, LANES, ac, acols)
                .map_err(|e| tmem_fault(format!("tcgen05.mma A: {e}")))?;
        }
        if kept_a.is_none() {
            for r in 0..m {
                // A's row r is in the lane of D's row r (Layouts A, B, D and F).
                let (t, lane, _) = cell(r, 0);
                for c in 0..acols {
                    let word = tms[t].get(lane, ac + c);
                    if let Some(q) = copies[1..]
                        .iter()
                        .find(|&&q| tms[t].get(lane + q, ac + c) != word)
                    {
                        return Err(tmem_fault(format!(
                            "tcgen05.mma.cta_group::2 A in tensor memory: row {r}'s column {} is \
                             {word:#x} at lane {lane} but {:#x} at lane {} of the same CTA: with \
                             M = 128 (Layout B) each CTA's rows of A are duplicated in lanes \
                             0-63 and 64-127",
                            ac + c,
                            tms[t].get(lane + q, ac + c),
                            lane + q
                        )));
                    }
                }
                for kk in 0..ka {
                    let cell = tms[t].get(lane, ac + (kk / per) as u32) as u64;
                    let v = (cell >> ((kk % per) * bits + shift)) & elem_mask;
                    a[(r * ka + kk) as usize] = v;
                }
            }
        }
        if ashift {
            // Once read, A's rows move one row down in tensor memory: row r + 1 takes row
            // r's words for r = M - 2 down to 0 (the last row's are overwritten, row 0 keeps
            // its own; with `.cta_group::2` row M/2, the odd CTA's first row, takes the even
            // CTA's last), in each copy of A.
            for r in (0..m - 1).rev() {
                let (t0, l0, _) = cell(r, 0);
                let (t1, l1, _) = cell(r + 1, 0);
                for q in copies {
                    for c in 0..acols {
                        tms[t1].set(l1 + q, ac + c, tms[t0].get(l0 + q, ac + c));
                    }
                }
            }
        }
    } else if kept_a.is_some() {
        // The descriptor is not read: A comes from the collector buffer.
    } else {
        let adesc = smem_desc(a_op).map_err(tmem_fault)?;
        for r in 0..m {
            let (cta, rl) = (ctas[(r / rows) as usize], r % rows);
            for kk in 0..ka {
                a[(r * ka + kk) as usize] = if dense4 {
                    smem_nibble(env, d.inst, lane, &adesc, (rl, kk), cta)
                } else {
                    smem_elem(env, d.inst, lane, &adesc, (rl, kk), id.a, id.trans_a, cta)
                }
                .map_err(tmem_fault)?;
            }
        }
    }
    if let Some(kept) = kept_a {
        a = kept;
    }
    if let Some(use_) = collector_a {
        let st = &mut tm.st.borrow_mut().collector_a;
        match use_ {
            Tc05Collector::Fill => {
                *st = Some(Collected {
                    elem: id.a,
                    k: ka,
                    n: m,
                    b: a.clone(),
                })
            }
            Tc05Collector::Use => {}
            Tc05Collector::LastUse | Tc05Collector::Discard => *st = None,
        }
    }
    if sparse {
        // The metadata address follows b-desc; with block scaling the operands after it are
        // appended after scale_B's address. A `.cta_group::2` pair (M = 256) keeps each CTA's
        // 128 rows' metadata in its own tensor memory at the same address.
        let meta = d.arg(s, if scale_vec != 0 { 7 } else { 5 }, lane) as u32;
        let lanes = match path {
            DataPath::F { align } => MetaLanes::LayoutF { align },
            DataPath::D | DataPath::E | DataPath::G => MetaLanes::Rows,
        };
        let mut full = Vec::with_capacity((m * k) as usize);
        for (t, tmt) in tms.iter().enumerate() {
            let part = &a[(t as u64 * rows * ka) as usize..((t as u64 + 1) * rows * ka) as usize];
            full.extend(sparse::expand(
                tmt,
                meta,
                kind,
                id.selector,
                part,
                rows,
                k,
                lanes,
            )?);
        }
        a = full;
    }
    let mut b = match ws {
        Some((buf, Tc05Collector::Use | Tc05Collector::LastUse)) => {
            let st = tm.st.borrow();
            let Some(c) = &st.collectors[buf as usize] else {
                return Err(tmem_fault(format!(
                    "tcgen05.mma.ws uses collector buffer b{buf}, which holds no B (no \
                     .collector::b{buf}::fill since it was last used up)"
                )));
            };
            if (c.elem, c.k, c.n) != (id.b, k, n) {
                return Err(tmem_fault(format!(
                    "tcgen05.mma.ws: collector buffer b{buf} holds a {}×{} .{} B, the \
                     instruction descriptor asks for {k}×{n} .{}",
                    c.k, c.n, c.elem, id.b
                )));
            }
            c.b.clone()
        }
        Some((_, Tc05Collector::Fill | Tc05Collector::Discard)) | None => {
            let bdesc = smem_desc(d.arg(s, 2, lane)).map_err(tmem_fault)?;
            let mut b = vec![0u64; (k * n) as usize];
            for kk in 0..k {
                for col in 0..n {
                    let (cta, cl) = (ctas[(col / cols) as usize], col % cols);
                    b[(kk * n + col) as usize] = if dense4 {
                        smem_nibble(env, d.inst, lane, &bdesc, (cl, kk), cta)
                    } else {
                        smem_elem(env, d.inst, lane, &bdesc, (cl, kk), id.b, id.trans_b, cta)
                    }
                    .map_err(tmem_fault)?;
                }
            }
            b
        }
    };
    if let Some((buf, use_)) = ws {
        let kept = match use_ {
            Tc05Collector::Fill => Some(Collected {
                elem: id.b,
                k,
                n,
                b: b.clone(),
            }),
            Tc05Collector::Use => tm.st.borrow().collectors[buf as usize].clone(),
            Tc05Collector::LastUse | Tc05Collector::Discard => None,
        };
        tm.st.borrow_mut().collectors[buf as usize] = kept;
    }
    if id.neg_a {
        a.iter_mut().for_each(|v| *v = negate(id.a, *v));
    }
    if id.neg_b {
        b.iter_mut().for_each(|v| *v = negate(id.b, *v));
    }
    if zero_mask {
        // The mask is this multiply's: the collector buffer above keeps B as read.
        let at = 5 + usize::from(sparse);
        let zeroed = zero_columns(d.arg(s, at, lane), id.m, n).map_err(tmem_fault)?;
        for kk in 0..k {
            for (col, _) in zeroed.iter().enumerate().filter(|(_, z)| **z) {
                b[(kk * n) as usize + col] = 0;
            }
        }
    }
    let mut c = vec![0u64; (m * n) as usize];
    if enable_d {
        for r in 0..m {
            for col in 0..n {
                // A 16-bit D is in the low half of its 32-bit cell (§9.7.16.10.4.1).
                let (t, l, cc) = cell(r, col);
                let cell = tms[t].get(l, cc) as u64;
                c[(r * n + col) as usize] = if id.d == MmaElem::F16 {
                    cell & 0xffff
                } else {
                    cell
                };
            }
        }
    }
    if enable_d && scale_d != 0 {
        // D · 2^-scale-input-d, rounded in the accumulator's format (exact unless it
        // underflows).
        let fmt = if id.d == MmaElem::F16 {
            Fmt::F16
        } else {
            Fmt::F32
        };
        let f = fp::convert(
            Fmt::F64,
            fmt,
            (-f64::from(scale_d)).exp2().to_bits(),
            Round::Nearest,
        );
        for v in c.iter_mut() {
            *v = fp::arith(fmt, Arith::Mul, [*v, f, 0], Round::Nearest, false, false);
        }
    }
    // disable-output-lane: bit `l % 32` of word `l / 32` keeps tensor-memory lane `l` of D
    // (the lane of row `r`: `r` with M = 128, Layout F's lane with M = 64).
    if pair && lane_mask && (5..13).any(|k| d.arg(s, k, lane) != 0) {
        return Err(tmem_fault(
            "tcgen05.mma.cta_group::2 with disable-output-lane bits set: which lanes of which \
             CTA each of the eight words names is not in the ISA's text; not supported (all \
             zero is)"
                .into(),
        ));
    }
    let kept = |r: u64| -> bool {
        !pair && lane_mask && {
            let l = cell(r, 0).1;
            let k = 5 + usize::from(sparse) + (l / 32) as usize;
            (d.arg(s, k, lane) >> (l % 32)) & 1 == 1
        }
    };
    if let Some(per_cta) = scales {
        let nv = scale_vec as usize;
        let (mu, nu, ku, rows) = (m as usize, n as usize, k as usize, rows as usize);
        let blk = ku / nv;
        // Row r of A uses its CTA's scale_A; each CTA's half of D its own scale_B.
        let av: Vec<u64> = (0..mu * ku)
            .map(|i| {
                let r = i / ku;
                let sa = &per_cta[r / rows].0;
                scaled(id.a, a[i], sa[(r % rows) * nv + (i % ku) / blk])
            })
            .collect();
        let bv: Vec<Vec<u64>> = per_cta
            .iter()
            .map(|(_, sb)| {
                (0..ku * nu)
                    .map(|i| scaled(id.b, b[i], sb[(i % nu) * nv + (i / nu) / blk]))
                    .collect()
            })
            .collect();
        for r in (0..mu).filter(|&r| !kept(r as u64)) {
            let bv = &bv[r / rows];
            for col in 0..nu {
                let mut acc = c[r * nu + col];
                for kk in 0..ku {
                    acc = fp::arith(
                        Fmt::F32,
                        Arith::Fma,
                        [av[r * ku + kk], bv[kk * nu + col], acc],
                        Round::Nearest,
                        false,
                        false,
                    );
                }
                let (t, l, c) = cell(r as u64, col as u64);
                tms[t].set(l, c, acc as u32);
            }
        }
        return Ok(());
    }
    // One block of at most 128 rows (M = 256 with `.cta_group::2`) by 8 columns at a time
    // (an `MmaSpec`'s M and N are at most 255).
    let (mu, nu, ku) = (m as usize, n as usize, k as usize);
    let mb = mu.min(128);
    let spec = MmaSpec {
        b: id.b,
        satfinite: id.satfinite,
        ..MmaSpec::new(MmaFamily::Mma, (mb as u8, 8, k as u16), id.a, id.d)
    };
    for r0 in (0..mu).step_by(mb) {
        let ab = &a[r0 * ku..(r0 + mb) * ku];
        for j in 0..nu / 8 {
            let bj: Vec<u64> = (0..ku)
                .flat_map(|kk| b[kk * nu + 8 * j..kk * nu + 8 * j + 8].to_vec())
                .collect();
            let cj: Vec<u64> = (r0..r0 + mb)
                .flat_map(|r| c[r * nu + 8 * j..r * nu + 8 * j + 8].to_vec())
                .collect();
            let dj = mma::multiply(&spec, ab, &bj, &cj);
            for r in (0..mb).filter(|&r| !kept((r0 + r) as u64)) {
                for col in 0..8 {
                    let (t, l, c) = cell((r0 + r) as u64, (8 * j + col) as u64);
                    tms[t].set(l, c, dj[r * 8 + col] as u32);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Allocation: powers of two from 32 to 512, aligned first fit, exact dealloc, the
    /// permit.
    #[test]
    fn allocator() {
        let t = TensorMemory::default();
        assert!(t.alloc(16).is_err());
        assert!(t.alloc(48).is_err());
        assert!(t.alloc(1024).is_err());
        assert_eq!(t.alloc(32), Ok(0));
        assert_eq!(t.alloc(64), Ok(64));
        assert_eq!(t.alloc(32), Ok(32));
        assert_eq!(t.alloc(256), Ok(256));
        assert!(t.alloc(256).is_err());
        assert!(t.check(0, 128, 64, 64).is_ok());
        assert!(t.check(0, 128, 60, 8).is_err(), "spans two allocations");
        assert!(t.check(0, 129, 0, 1).is_err());
        assert!(t.dealloc(64, 32).is_err(), "not the allocation's size");
        assert!(t.dealloc(1 << 16 | 64, 64).is_err(), "lane field set");
        assert_eq!(t.dealloc(64, 64), Ok(()));
        assert_eq!(t.alloc(64), Ok(64));
        t.relinquish();
        assert!(t.alloc(32).is_err());
        t.reset();
        assert_eq!(t.alloc(512), Ok(0));
    }

    /// Table 42's fields: f16 inputs, f32 D, M = 128, N = 64, transposed B, negated A.
    #[test]
    fn instruction_descriptor() {
        let v = 1 << 4 | 1 << 13 | 1 << 16 | (64 >> 3) << 17 | (128 >> 4) << 24;
        let id = InstrDesc::decode(v, Tc05Kind::F16, false).expect("valid");
        assert_eq!(
            (id.d, id.a, id.b),
            (MmaElem::F32, MmaElem::F16, MmaElem::F16)
        );
        assert_eq!((id.m, id.n), (128, 64));
        assert!(id.neg_a && !id.neg_b && !id.trans_a && id.trans_b);
        let bf = 1 << 4 | 1 << 7 | 1 << 10 | 2 << 17 | 8 << 24;
        assert_eq!(
            InstrDesc::decode(bf, Tc05Kind::F16, false).map(|i| i.a),
            Ok(MmaElem::Bf16)
        );
        // tf32: types 2; i8: D type 2, signed A, unsigned B.
        let tf = 1 << 4 | 2 << 7 | 2 << 10 | 2 << 17 | 8 << 24;
        assert_eq!(
            InstrDesc::decode(tf, Tc05Kind::Tf32, false).map(|i| i.a),
            Ok(MmaElem::Tf32)
        );
        let i8 = 2 << 4 | 1 << 7 | 2 << 17 | 8 << 24;
        let id = InstrDesc::decode(i8, Tc05Kind::I8, false).expect("valid");
        assert_eq!((id.d, id.a, id.b), (MmaElem::S32, MmaElem::S8, MmaElem::U8));
        assert!(InstrDesc::decode(tf, Tc05Kind::F16, false).is_err());
        assert!(
            InstrDesc::decode(v | 1 << 2 | 1, Tc05Kind::F16, false)
                .is_ok_and(|i| i.sparse && i.selector == 1),
            "sparse"
        );
        // Table 39: M = 64 or 128, N from 8 to 256 in steps of 8 (i8: 8, 16, 24, 32, 48, …).
        let mn = |m: u32, n: u32| 1 << 4 | (n >> 3) << 17 | (m >> 4) << 24;
        assert!(InstrDesc::decode(mn(64, 8), Tc05Kind::F16, false).is_ok_and(|i| i.m == 64));
        assert!(InstrDesc::decode(mn(128, 24), Tc05Kind::F16, false).is_ok());
        assert!(InstrDesc::decode(mn(32, 64), Tc05Kind::F16, false).is_err());
        assert!(InstrDesc::decode(mn(64, 264), Tc05Kind::F16, false).is_err());
        assert!(InstrDesc::decode(mn(64, 0), Tc05Kind::F16, false).is_err());
        let i8 = |m: u32, n: u32| 2 << 4 | 1 << 7 | (n >> 3) << 17 | (m >> 4) << 24;
        assert!(InstrDesc::decode(i8(64, 24), Tc05Kind::I8, false).is_ok());
        assert!(InstrDesc::decode(i8(64, 40), Tc05Kind::I8, false).is_err());
        assert!(InstrDesc::decode(i8(128, 48), Tc05Kind::I8, false).is_ok());
        assert!(InstrDesc::decode(i8(128, 56), Tc05Kind::I8, false).is_err());
    }

    /// Table 42's `.kind::f8f6f4` type codes (E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5; 2, 6 and
    /// 7 name nothing), its f16 and f32 accumulators; `.kind::f16`'s f16 accumulator with f16
    /// inputs only (Table 39); no transposed 4- or 6-bit matrix (Table 52).
    #[test]
    fn f8f6f4_and_f16_accumulator_descriptors() {
        let v = |d: u32, a: u32, b: u32| d << 4 | a << 7 | b << 10 | 8 << 17 | 8 << 24;
        let kind = Tc05Kind::F8f6f4;
        let id = InstrDesc::decode(v(1, 0, 1), kind, false).expect("valid");
        assert_eq!(
            (id.d, id.a, id.b),
            (MmaElem::F32, MmaElem::E4m3, MmaElem::E5m2)
        );
        let id = InstrDesc::decode(v(0, 3, 4), kind, false).expect("valid");
        assert_eq!(
            (id.d, id.a, id.b),
            (MmaElem::F16, MmaElem::E2m3, MmaElem::E3m2)
        );
        let id = InstrDesc::decode(v(1, 5, 5), kind, false).expect("valid");
        assert_eq!((id.a, id.b), (MmaElem::E2m1, MmaElem::E2m1));
        for bad in [2, 6, 7] {
            assert!(
                InstrDesc::decode(v(1, bad, 0), kind, false).is_err(),
                "A type {bad}"
            );
            assert!(
                InstrDesc::decode(v(1, 0, bad), kind, false).is_err(),
                "B type {bad}"
            );
        }
        assert!(InstrDesc::decode(v(2, 0, 0), kind, false).is_err(), "s32 D");
        assert!(InstrDesc::decode(v(1, 5, 0) | 1 << 15, kind, false).is_err());
        assert!(InstrDesc::decode(v(1, 0, 4) | 1 << 16, kind, false).is_err());
        assert!(InstrDesc::decode(v(1, 0, 1) | 3 << 15, kind, false).is_ok());
        let f16 = InstrDesc::decode(v(0, 0, 0), Tc05Kind::F16, false).expect("valid");
        assert_eq!(f16.d, MmaElem::F16);
        assert!(
            InstrDesc::decode(v(0, 1, 1), Tc05Kind::F16, false).is_err(),
            "bf16, f16 D"
        );
    }

    /// The block-scaled kinds' descriptor (§9.7.16.10.7, CUTLASS's `InstrDescriptorBlockScaled`):
    /// scale factor B ID at bits 4-5, A ID at 29-30, scale type at bit 23, f32 D; e2m1 is type 1
    /// for .kind::mxf4/::mxf4nvf4 and 5 for .kind::mxf8f6f4; ue4m3 only for .kind::mxf4nvf4;
    /// K = 96 (bit 31) not supported; no transposed 4-bit matrix.
    #[test]
    fn block_scaled_instruction_descriptor() {
        let v = |a: u32, b: u32| a << 7 | b << 10 | 8 << 17 | 1 << 23 | 8 << 24;
        let id = InstrDesc::decode(v(0, 5) | 3 << 4 | 2 << 29, Tc05Kind::Mxf8f6f4, false)
            .expect("valid");
        assert_eq!(
            (id.a, id.b, id.d),
            (MmaElem::E4m3, MmaElem::E2m1, MmaElem::F32)
        );
        assert_eq!((id.sfa_id, id.sfb_id, id.ue8m0), (2, 3, true));
        assert!(!id.satfinite);
        let id = InstrDesc::decode(v(1, 1), Tc05Kind::Mxf4, false).expect("valid");
        assert_eq!((id.a, id.b), (MmaElem::E2m1, MmaElem::E2m1));
        assert!(InstrDesc::decode(v(5, 5), Tc05Kind::Mxf4, false).is_err());
        assert!(InstrDesc::decode(v(1, 1) & !(1 << 23), Tc05Kind::Mxf4, false).is_err());
        let nv = InstrDesc::decode(v(1, 1) & !(1 << 23), Tc05Kind::Mxf4nvf4, false);
        assert!(nv.is_ok_and(|i| !i.ue8m0), "ue4m3");
        assert!(InstrDesc::decode(v(1, 1) | 1 << 31, Tc05Kind::Mxf4nvf4, false).is_err());
        assert!(InstrDesc::decode(v(1, 1) | 1 << 15, Tc05Kind::Mxf4, false).is_err());
        assert!(InstrDesc::decode(v(0, 1) | 3 << 15, Tc05Kind::Mxf8f6f4, false).is_ok());
    }

    /// `.cta_group::2` shapes: M = 128 or 256, N by 16 (`.kind::i8` by 32).
    #[test]
    fn pair_instruction_descriptor() {
        // .kind::f16, f32 D, f16 A and B, N = 64, M = 256: a .cta_group::2 shape only.
        let v = 1 << 4 | (64 >> 3) << 17 | (256 >> 4) << 24;
        assert!(InstrDesc::decode(v, Tc05Kind::F16, false).is_err());
        let d = InstrDesc::decode_in(v, Tc05Kind::F16, false, true).unwrap();
        assert_eq!((d.m, d.n), (256, 64));
        // M = 64 and N = 8 are .cta_group::1 shapes only; .kind::i8 takes N by 32.
        let v64 = 1 << 4 | (64 >> 3) << 17 | (64 >> 4) << 24;
        assert!(InstrDesc::decode_in(v64, Tc05Kind::F16, false, true).is_err());
        let n8 = 1 << 4 | 1 << 17 | (128 >> 4) << 24;
        assert!(InstrDesc::decode_in(n8, Tc05Kind::F16, false, true).is_err());
        let i8n48 = 2 << 4 | (48 >> 3) << 17 | (128 >> 4) << 24;
        assert!(InstrDesc::decode_in(i8n48, Tc05Kind::I8, false, true).is_err());
        let i8n64 = 2 << 4 | (64 >> 3) << 17 | (128 >> 4) << 24;
        assert!(InstrDesc::decode_in(i8n64, Tc05Kind::I8, false, true).is_ok());
    }

    /// `.ws` shapes (Table 39): M = 32, 64 or 128 with N = 64, 128 or 256; bits 30-31 allowed.
    #[test]
    fn ws_instruction_descriptor() {
        let v = |m: u32, n: u32| 1 << 4 | (n >> 3) << 17 | (m >> 4) << 24;
        assert!(InstrDesc::decode(v(128, 64), Tc05Kind::F16, true).is_ok());
        assert!(InstrDesc::decode(v(128, 128) | 3 << 30, Tc05Kind::F16, true).is_ok());
        assert!(InstrDesc::decode(v(128, 128) | 3 << 30, Tc05Kind::F16, false).is_err());
        assert!(InstrDesc::decode(v(128, 32), Tc05Kind::F16, true).is_err());
        assert!(InstrDesc::decode(v(128, 256), Tc05Kind::F16, true).is_ok());
        assert!(InstrDesc::decode(v(64, 64), Tc05Kind::F16, true).is_ok_and(|i| i.m == 64));
        assert!(InstrDesc::decode(v(32, 256), Tc05Kind::F16, true).is_ok_and(|i| i.m == 32));
        assert!(InstrDesc::decode(v(32, 192), Tc05Kind::F16, true).is_err());
        assert!(InstrDesc::decode(v(256, 64), Tc05Kind::F16, true).is_err());
    }

    /// Each `ld`/`st` shape's threads and registers reach every cell of its footprint (lanes ×
    /// columns per repetition, Table 49) exactly once, and `.16x64b` puts thread 1 on lane 8
    /// and thread 2 on column 1 (§9.7.16.2.3's figure).
    #[test]
    fn ld_st_shapes_cover_their_footprint() {
        use crate::ir::Tc05Shape::*;
        for shape in [S32x32b, S16x64b, S16x128b, S16x256b, S16x32bx2] {
            for num in [1u32, 2, 4] {
                let n = num * shape.regs_per_num();
                let mut hit = std::collections::HashSet::new();
                for t in 0..32 {
                    for i in 0..n {
                        let (l, c, second) = shape.cell(t, i);
                        assert!(
                            l < shape.lanes() && c < shape.columns(num),
                            "{shape} {t} {i}"
                        );
                        assert!(hit.insert((l, c, second)), "{shape}: cell reached twice");
                    }
                }
                let accesses = if shape == S16x32bx2 { 2 } else { 1 };
                assert_eq!(
                    hit.len() as u32,
                    shape.lanes() * shape.columns(num) * accesses
                );
            }
        }
        assert_eq!(S16x64b.cell(1, 0), (8, 0, false));
        assert_eq!(S16x64b.cell(2, 0), (0, 1, false));
        assert_eq!(S16x256b.cell(5, 7), (9, 11, false));
        assert_eq!(S16x32bx2.cell(17, 3), (1, 3, true));
    }

    /// `ld.red` (§9.7.16.8.3) as `min`/`max.f32` (§9.7.3.11-12): a NaN loses to a number
    /// unless `.NaN`; -0 < +0; `.abs` compares magnitudes; s32 and u32 compare as integers.
    #[test]
    fn ld_red_reduction() {
        use crate::ir::{Tc05Red, Tc05RedType};
        let f = |x: f32| x.to_bits();
        let red = |max, abs, nan| Tc05Red {
            max,
            ty: Tc05RedType::F32 { abs, nan },
        };
        let v = [f(1.5), f(-2.0), 0x7fc0_0000, f(0.25)];
        assert_eq!(reduce(red(false, false, false), &v), f(-2.0));
        assert_eq!(reduce(red(true, false, false), &v), f(1.5));
        assert_eq!(reduce(red(false, false, true), &v), 0x7fff_ffff);
        assert_eq!(reduce(red(true, true, false), &v), f(2.0));
        assert_eq!(reduce(red(false, true, false), &v), f(0.25));
        let zeros = [f(0.0), f(-0.0)];
        assert_eq!(reduce(red(false, false, false), &zeros), f(-0.0));
        assert_eq!(reduce(red(true, false, false), &zeros), f(0.0));
        let nans = [0x7fc0_0001, 0xffc0_0000];
        assert_eq!(reduce(red(true, false, false), &nans), 0x7fff_ffff);
        let ints = [5u32, 0xffff_fff0, 7];
        let s = |max| Tc05Red {
            max,
            ty: Tc05RedType::S32,
        };
        let u = |max| Tc05Red {
            max,
            ty: Tc05RedType::U32,
        };
        assert_eq!(reduce(s(false), &ints), 0xffff_fff0);
        assert_eq!(reduce(s(true), &ints), 7);
        assert_eq!(reduce(u(true), &ints), 0xffff_fff0);
        assert_eq!(reduce(u(false), &ints), 5);
    }

    /// The zero-column mask descriptor's examples 2-4 (PTX ISA §9.7.16.4.3), low bit first
    /// (example 4 without its shift), and the faults on a shift and on reserved bits.
    #[test]
    fn zero_column_masks() {
        let bits = |text: &str| -> Vec<bool> { text.chars().rev().map(|c| c == '1').collect() };
        let desc = |sc: [u64; 4], fs: [u64; 4], skip: u64, used: u64| {
            (0..4).fold(1 << 39 | skip << 40 | used << 48, |d, i| {
                d | sc[i] << (8 * i) | fs[i] << (32 + i)
            })
        };
        let m = zero_columns(desc([0; 4], [0; 4], 2, 3), 128, 64).expect("valid");
        assert_eq!(m[..14], bits("11100001110000")[..]);
        let m = zero_columns(desc([0; 4], [1, 0, 0, 0], 2, 3), 64, 64).expect("valid");
        assert_eq!(m[..17], bits("11100001110000111")[..]);
        assert_eq!(m[32..50], bits("000011100001110000")[..]);
        let m = zero_columns(desc([0, 1, 2, 1], [1, 1, 0, 0], 2, 3), 32, 64).expect("valid");
        assert_eq!(m[..14], bits("00001110000111")[..]);
        assert_eq!(m[16..29], bits("0000111000011")[..]);
        assert_eq!(m[32..44], bits("111000011100")[..]);
        assert_eq!(m[48..61], bits("1110000111000")[..]);
        assert_eq!(zero_columns(3 << 40, 128, 64), Ok(vec![false; 64]));
        let shifted = zero_columns(desc([0; 4], [0; 4], 2, 3) | 2 << 56, 32, 128);
        assert!(shifted.expect_err("shift").contains("Column Shift"));
        assert!(zero_columns(1 << 37, 128, 64).is_err());
    }

    /// `shift.down`: lanes 32..63, columns 4..11 move one lane down; lane 32 keeps its
    /// value; neighbours are untouched; an unaligned lane or a range past the allocation
    /// faults.
    #[test]
    fn shift_down() {
        let t = TensorMemory::default();
        assert_eq!(t.alloc(32), Ok(0));
        for l in 0..LANES {
            for c in 0..32 {
                t.set(l, c, l << 8 | c);
            }
        }
        assert_eq!(shift(&t, 32 << 16 | 4), Ok(()));
        for l in 0..LANES {
            for c in 0..32 {
                let moved = (33..64).contains(&l) && (4..12).contains(&c);
                let want = if moved { (l - 1) << 8 | c } else { l << 8 | c };
                assert_eq!(t.get(l, c), want, "lane {l} column {c}");
            }
        }
        assert!(shift(&t, 16 << 16).is_err());
        assert!(
            shift(&t, 28).is_err(),
            "columns 28..36 leave the allocation"
        );
    }

    /// The lanes each `cp` shape sends row r to (§9.7.16.2.3): every lane of the footprint
    /// once per copy of the data.
    #[test]
    fn cp_lanes() {
        use Tc05CpShape::*;
        for (shape, copies) in [
            (S128x256b, 1),
            (S128x128b, 1),
            (S4x256b, 1),
            (S64x128bW0213, 2),
            (S64x128bW0123, 2),
            (S32x128bW4, 4),
        ] {
            let mut hit: Vec<u32> = (0..shape.rows()).flat_map(|r| shape.lanes(r)).collect();
            hit.sort();
            hit.dedup();
            assert_eq!(hit.len() as u32, shape.rows() * copies, "{shape}");
            assert!(hit.iter().all(|&l| l < LANES), "{shape}");
        }
        assert_eq!(S64x128bW0123.lanes(33), vec![65, 97]);
        assert_eq!(S64x128bW0213.lanes(33), vec![33, 97]);
        assert_eq!(S4x256b.lanes(3), vec![96]);
    }

    /// Table 40's fields.
    #[test]
    fn shared_memory_descriptor() {
        let v = 1u64 << 46 | 2 << 61 | 0x40 | 2 << 16 | 64 << 32;
        let d = smem_desc(v).expect("valid");
        assert_eq!((d.start, d.lbo, d.sbo, d.x), (0x400, 32, 1024, 8));
        assert_eq!(smem_desc(1 << 46 | 6 << 61).map(|d| d.x), Ok(2));
        assert_eq!(smem_desc(1 << 46 | 4 << 61).map(|d| d.x), Ok(4));
        assert!(smem_desc(0).is_err(), "version bits");
        assert!(smem_desc(1 << 46 | 3 << 61).is_err());
        assert!(smem_desc(1 << 46 | 1 << 49).is_err());
    }
}
