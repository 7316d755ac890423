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
//! `::mxf4nvf4` there keeps the packed format of shared memory, eight e2m1 to a column,
//! element `k` at bits `4·(k % 8)` of column `base + k / 8` (⚠ docs/isa-notes.md).
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
//! `l / 32`) keeps the lanes whose bit is set as they were; with `.cta_group::2` its eight
//! words are the pair's 256 lanes, words 0-3 the even rank's and 4-7 the odd rank's (⚠
//! ptxjit's reading, docs/isa-notes.md).
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
//!
//! # Where things are
//! This file holds the tensor memory and [`exec`], the dispatch of every `tcgen05`
//! operation; `alloc` the allocator and the CTA pairs, `access` `ld`/`st`/`cp`/`shift`,
//! `desc` the instruction and shared-memory descriptors, `multiply` one `tcgen05.mma` with
//! `operand` (shared-memory elements), `layout` (D's data paths), `scale` (block scales)
//! and `sparse` (the metadata).

use super::env::{translate, CtaEnv, FaultKind};
use super::initcheck::InitAccess;
use super::mma;
use super::warp::{lanes, WarpDesc};
use crate::ir::{MmaElem, Space, Tc05Op};
use std::cell::RefCell;

mod access;
mod alloc;
mod desc;
mod layout;
mod multiply;
mod operand;
mod scale;
mod sparse;

use access::{cp_lane, ld_st_cells, reduce, shift};
pub use alloc::Pairs;
use alloc::{alloc_in, dealloc_in, pair_ask, pair_tmems, AskKind};
pub use desc::{smem_desc, InstrDesc};
use multiply::mma_lane;

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
            let packed = op.ld_st().is_some_and(|a| a.packed);
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
        Tc05Op::Mma { .. } | Tc05Op::MmaWs { .. } => {
            let Some(form) = op.mma() else {
                return;
            };
            for l in lanes(mask) {
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
