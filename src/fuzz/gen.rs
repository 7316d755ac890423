//! The kernel generator: random PTX kernels that are valid by construction, whose results are
//! fully determined by the PTX ISA (so the interpreter and the JIT must agree bit for bit), and
//! that `ptxas` accepts for their target: `sm_80`, or `sm_90` for about a third of them (the
//! `sm_90` flavour, [`Kernel::sm90`]: also the forms of [`FORMS_SM90`], `mbarrier`,
//! `cp.async.bulk` (shared to global too), `cp.async.bulk.tensor` loads through a tensor
//! map of rank 1 to 5 over the input buffer ([`Kernel::tmap`]), stores and
//! `cp.reduce.async.bulk.tensor` reductions through a second, writable one ([`Kernel::tmap_out`];
//! both in [`tma`]), cluster launches and distributed shared memory ([`Kernel::cluster`]),
//! `elect.sync`, `fence.proxy.async`, `mbarrier.arrive_drop`, bulk reductions and prefetches),
//! and `sm_100` for two fifths of those (the `sm_100` flavour, [`Kernel::sm100`]: also 256-bit
//! `ld`/`st`). Half the other `sm_90` kernels target `sm_90a` ([`Kernel::sm90a`]: also
//! `wgmma`, dense and `.sp`), half the `sm_100` ones `sm_100a` ([`Kernel::sm100a`]: also `tcgen05`); both of
//! these run whole warpgroups (blocks of 128 or 256 threads). Half the other `sm_100` kernels
//! target `sm_120a` ([`Kernel::sm120a`]: also `mma .kind::f8f6f4`, the block-scaled `mma` and
//! the sparse `.kind` forms, [`mma_kind`]). The matrix instructions
//! (`mma`, `mma.sp`, `ldmatrix`, `stmatrix`, `movmatrix`) are drawn from the decoder's own
//! lists of the forms it takes, those the kernel's header admits ([`matrix`]). About 30% of all kernels get a
//! texture of any kind but linear and multisample (1D to 3D, layered, cube, mipmapped at
//! times; [`tex`]) and a surface object ([`Kernel::tex`]).
//!
//! # The kernel model
//! A generated [`Kernel`] is a tree of [`Stmt`]s (straight-line code, `if`/`else`, loops,
//! barriers, shared-memory exchanges, early exits) between a fixed prologue and epilogue that
//! [`Kernel::render`] adds. The shrinker ([`super::shrink`]) edits the tree, not the text, and
//! every edit keeps the kernel valid: all registers are initialised in the prologue, labels are
//! made at render time (a statement's own local labels through `$ID$`, the CTA's thread count
//! through `$NT$`, so that both follow the shrinker's edits), and each construct carries its
//! own scratch computations. Two device functions, `fz_f0` (`.param` arguments and return
//! value) and `fz_f1` (`.reg` ones), with generated straight-line middles (a branch, a
//! `redux.sync` or ballot on the `activemask` lanes at times), are called from anywhere,
//! divergent code included (`call.uni` where the flow is CTA-uniform).
//!
//! # Why results are deterministic
//! - Every data register is initialised in the prologue (from the input buffer, thread indices
//!   and constants), so no value is undefined.
//! - Global memory: the input buffer, `.const` and `.global` tables are read-only; each thread
//!   stores only into its own 256-byte region of `out` (the first 128 bytes by random stores
//!   and thread-private atomics, the rest by the epilogue, which dumps every data register).
//!   Addresses are masked (`and.b32` with `size - elem`) so they are in bounds and aligned.
//! - Shared atomics and global atomics on the `atom` buffer use only commutative, associative
//!   operations (`add`/`and`/`or`/`xor`/`min`/`max` on integers; `add.f32` of small integers
//!   0..=3, whose sums stay exact below 2^24), one 64-byte region per (operation, type), and
//!   never read the returned old value into data registers, so the final memory is
//!   independent of the thread order. Atomics that return values (`cas`, `exch`,
//!   `inc`, `dec`, float `add`) target thread-private cells only.
//! - Shared memory: each thread owns 32 bytes; reading another thread's bytes happens only in
//!   an *exchange* (`st` own; `bar.sync 0`; `ld` any; `bar.sync 0`) in CTA-uniform control flow.
//!   The regions are zeroed (and a barrier passed) before the body. One exception, on purpose:
//!   a *warp exchange* (any control flow, divergent loops included) stores to the own slot
//!   and, before its `bar.warp.sync` on the `activemask` lanes, may read a neighbour lane's
//!   slot: that value depends on the order of the warp's lanes, which ptxjit defines
//!   (`analysis::segment`: group-major for `sm_80`, lockstep under `--lockstep`) and both
//!   engines must follow alike; after the synchronization it reads the lowest or highest
//!   active lane's slot, which the ISA orders. A *region race* does the same with the store
//!   inside a divergent `if` and the neighbour's load after its join, so the value read
//!   depends on the order across blocks (`analysis::region`).
//! - CTA-uniform address roots (`%ur0..%ur3`, [`UNIFORM_ROOTS`]) are computed once in the
//!   prologue's straight-line code and only read from later: loads of read-only memory at
//!   constant offsets from them, after warp operations, anywhere in the body.
//! - `bar.sync`, exchanges and `shfl.sync` with the full mask appear only in CTA-uniform control
//!   flow (top level, uniform `if`s on `%ctaid`/parameter/uniform counters, fixed-trip loops),
//!   before any early exit in program order; `shfl.sync` only when every warp is full (block
//!   size a multiple of 32). Early exits (`ret`, `exit`, a branch to the epilogue) may sit in
//!   nested `if`s and per-lane loops, never inside a uniform loop (whose next iteration could
//!   reach a collective with lanes gone).
//! - *Warp votes* (`vote.sync` of every mode, `shfl.sync` of every mode with a constant or
//!   register lane) run anywhere, divergent loops and after early exits included, with the
//!   `activemask` lanes as membermask (or the full mask where `shfl.sync` may appear): the
//!   lanes that vote together depend on the schedule, which both engines follow alike.
//! - Loops are bounded: a counter register per nesting level with a fixed trip count (uniform)
//!   or a per-lane one (`and.b32 lim, x, 7`: divergence, per-lane exits), optionally a `break`
//!   on a per-lane or uniform condition.
//! - Barriers beyond `bar.sync 0`, all in CTA-uniform control flow before any exit: a thread
//!   count (`$NT$`; only where every warp is full, so it is a multiple of the warp size) on
//!   barriers 0 to 3; `bar.red` (`popc`, `and`, `or`), whose result is the same for every
//!   thread; producers and consumers (`bar.arrive` in warp 0 after storing to its shared
//!   slots, `bar.sync` on the same barrier in the other warps, which then read warp 0's slots;
//!   a `bar.sync 0` before anything else). `brx.idx` switches on an index per lane or a
//!   uniform one (then `brx.idx.uni`, and the arms are as uniform as the code around).
//! - The vector registers ([`VECTOR_REGS`]: `.v4 .b32`, `.v2 .f64`, `.v2 .b32`, `.v4 .f32`,
//!   `.v2 .f32`, `.v2 .u64`, `.v4 .b16`) are loaded whole from the input buffer at the start of
//!   each statement that uses their components.
//! - Textures ([`TexSetup`]): the texture object reads the read-only input buffer, so any
//!   thread may sample anywhere (any coordinates: addressing, border colour and filtering are
//!   defined by `runtime::texture`, which both engines call); `tex`/`tld4` results are `.f32`
//!   (for `tex` also `.f16`, `.f16x2`) where the texture returns floats, `.s32`/`.u32`
//!   otherwise, as CUDA pairs them. Levels of detail, gradients, texel offsets, layer indices
//!   and depth compare values are inputs like coordinates ([`tex`]). The
//!   surface gives each thread of the grid its own [`SURF_ROW`]-byte row (`y` = the global
//!   linear id): `.trap` accesses are in the row and aligned, `.clamp` ones stay in the row
//!   (only `x` is clamped), `.zero` ones read 0 and drop stores out of it.
//! - `sm_90` mbarrier phases with fewer arrivals than threads: the threads that do not arrive
//!   wait by the phase parity (never by a stale arrive state); a counted `arrive` in a
//!   divergent branch brings the count to the CTA's threads; thread 0's `arrive.noComplete`
//!   comes alone before a `bar.sync 0`, so the pending count its state reports is known, and
//!   never completes the phase (half the CTA arrives after it).
//! - `cp.async.bulk` shared to global: the thread's own slot into its own `out` region, after
//!   `fence.proxy.async.shared::cta`, waited for (`wait_group 0`) at once.
//! - Clusters: a distributed-shared-memory exchange runs only at the top level before any
//!   exit, so every thread of every CTA of the cluster runs the same exchanges in the same
//!   order; each is a window between two `barrier.cluster.arrive`/`wait` pairs in which the
//!   thread loads any slot of the CTA `d` ranks on, or stores to its own index's slot there
//!   (one writer per slot), and no CTA exits while a peer may still read it. The case's
//!   cluster shape keeps only the dimensions that divide the grid.
//! - `st.async`/`red.async` ([`cluster_async`]): at the same places as cluster exchanges;
//!   each CTA's threads send to their own index's slot of the CTA `d` ranks on (one writer
//!   per byte), except commutative integer reductions of four threads into one word; the
//!   receiving CTA's mbarrier `fz_mbc` expects every byte, and its threads read only after
//!   the phase completes.
//! - `cp.async.bulk.tensor` loads: as `cp.async.bulk` into `fz_bulk` (thread 0 issues it with
//!   the box's bytes expected on `fz_mbar`, all wait, read, `bar.sync 0`); out-of-bounds
//!   elements read the map's fill. Stores and reductions (shared → global through
//!   [`Kernel::tmap_out`] over the `tout` buffer): each CTA writes only its own slab of the
//!   tensor's outermost dimension (`%cl` × slab + an offset that keeps the box inside), from
//!   a `fz_bulk` every thread filled before a `bar.sync 0`; thread 0 waits for each operation
//!   (`cp.async.bulk.wait_group 0`) before the next, so overlapping boxes (a float `add`
//!   included) apply in program order ([`tma`]'s docs).
//! - Carry chains (`add.cc`/`sub.cc`/`mad.cc`, then `addc`/`subc`/`madc`) are unguarded
//!   straight-line statements: the flag each link reads is the one its predecessor set.
//! - `activemask` into a data register and `redux.sync`, `match.sync`, `elect.sync` among the
//!   `activemask` lanes are warp votes (the lanes depend on the schedule, which both engines
//!   follow alike); `%nwarpid` is a constant of the implementation.
//! - `sm_90`: the `mbarrier` `fz_mbar` is initialised in the prologue by thread 0 for all the
//!   CTA's threads; its phases are passed in CTA-uniform control flow before any exit, every
//!   thread arriving once and waiting (by the CTA-uniform phase parity `%mbp` or by its arrive
//!   state), which orders shared stores before the phase and loads after it (exchanges
//!   through the own slots, with a second phase before the next store). `cp.async.bulk` from
//!   the input buffer into `fz_bulk` is issued by thread 0 with the transaction bytes expected
//!   on the mbarrier; every thread reads the copied bytes only after the phase, and a
//!   `bar.sync 0` comes before the next copy.
//! - `sm_90` `mbarrier.arrive_drop` runs on its own object `fz_mbd`, initialised by thread 0
//!   for the CTA's threads in the statement itself: the threads of a divergent condition
//!   (never thread 0, so a later phase has a count) drop out while arriving, the rest
//!   arrive; a second phase, which only the rest complete, starts after a `bar.sync 0` (a
//!   parity wait only tells the current phase from the one before, so nobody may still wait
//!   for the first); then `mbarrier.inval`. `cp.reduce.async.bulk` reduces the own shared
//!   slot into the thread's own `out` bytes (one writer, so the element order does not
//!   matter). `cp.async.bulk.prefetch` and `cp.async.bulk.prefetch.tensor` are hints.
//! - `wgmma` (`sm_90a`) and `tcgen05` (`sm_100a`) statements appear in CTA-uniform control
//!   flow before any exit, in blocks of whole warpgroups. Each fills the shared `fz_wg`
//!   (every thread its 16-byte units, all of it), fences it for the async proxy
//!   (`fence.proxy.async.shared::cta`) and passes `bar.sync 0` before the multiply reads it;
//!   every matrix a descriptor names (any canonical layout and swizzle, random LBO/SBO) lies
//!   inside `fz_wg`, swizzled ones at their pattern's alignment (base offset 0); descriptors,
//!   `scale-d`/`enable-input-d` and the instruction descriptor are CTA-uniform; accumulators
//!   are set before the multiply (`wgmma`: registers; `tcgen05`: `tcgen05.st` of the cells
//!   by the warps that own their lanes); the results are waited for (`wgmma.wait_group 0`;
//!   `tcgen05.commit` arriving on `fz_mbar`, where every other thread arrives, so the phase
//!   completes after the multiply) and folded into a data register. A `bar.sync 0` ends the
//!   statement before `fz_wg` is filled again. The sum order of both multiplies is
//!   unspecified by the ISA: ptxjit documents its own (docs/isa-notes.md, the "`wgmma` sum
//!   order and precision" row: products exact, the sum over k ascending, rounded at each
//!   step), which both engines
//!   share, so raw register bits (NaNs, infinities, subnormals) are inputs too, and at times
//!   small values with few significand bits whose sums are exact in any order.
//!   `wgmma.mma_async.sp`'s metadata has only fields the ISA defines (two different
//!   indices per 2:4 chunk; `0b0100` or `0b1110` for `.tf32`), in every lane, so no
//!   expansion faults; `sp-sel` is 0 or 1 (0 for 8-bit inputs). Tensor
//!   memory is allocated by warp 0 (`tcgen05.alloc`, a power of two of columns) and freed in
//!   the same statement (`tcgen05.dealloc`) after every warp has loaded its lanes; after a
//!   `tcgen05.relinquish_alloc_permit` (never inside a loop) no statement allocates again.
//!   Every cell a `tcgen05` statement reads (D, an A in tensor memory, the `.sp` metadata,
//!   what `tcgen05.ld` of any shape loads) was stored by that statement first (`tcgen05.st`
//!   by the warps that own the lanes, before the barrier); `.sp` metadata has only the 2:4
//!   fields the ISA calls meaningful; `tcgen05.mma`, `mma.ws`, `mma.sp`, `cp` and `shift` are
//!   issued by thread 0 and committed to `fz_mbar` before any thread loads ([`tcgen05`]). A
//!   `.ws` collector buffer, and the collector buffer for A (`.collector::a::use`/`::lastuse`),
//!   is used only after the same statement filled it; `.ashift` only with A in tensor memory
//!   and M = 128 or 256, never with `::fill` or `::use`. A `.ws` A in tensor memory with
//!   M = 64 or 32 has the same words in each of its 128/M lane groups (a function of the lane
//!   within the group), as the multiply requires.
//! - CTA pairs (`.cta_group::2`, a third of the `sm_100a` kernels): every `tcgen05` instruction
//!   of the kernel that takes the qualifier has `::2` (PTX ISA §9.7.16.5), the launch is a
//!   cluster of 2 or 4 CTAs along x (so every CTA has its peer), and the statements sit at the
//!   top level before any exit, as cluster exchanges do: warp 0 of each CTA allocates (the
//!   pair's `alloc` waits for the peer's), a cluster barrier ends both CTAs' `tcgen05.st`s
//!   before thread 0 of the even or the odd CTA issues the pair's multiply or shift and commits
//!   it to its `fz_mbar` (every other thread of both CTAs arrives on its own), and a second
//!   cluster barrier after the phase tells the other CTA that the operation is done.
//! - Video instructions ([`video`]), `fns` with a base in 0..=31 (a larger one is undefined),
//!   `set`, `slct` and `cvt.pack` are register-to-register: their results are the ISA's
//!   functions of the operands, anywhere.
//! - Stack statements ([`stack`]) save the stack pointer, `alloca`, store into the new bytes,
//!   read only those back and restore the pointer; the pointers (the implementation's values)
//!   stay in scratch registers. Hint statements ([`hints`]) change no result: the
//!   `createpolicy` policy goes only to `.L2::cache_hint` operands, `discard` (which leaves
//!   indeterminate bytes) runs on the first 128 bytes of the thread's own `out` region, which
//!   the statement then stores whole.
//! - Integer division by zero and `MIN / -1` are not guarded: ptxjit defines them (see the op
//!   table), and ptxas accepts them.
//! - Matrix instructions (`mma.sync` and `mma.sp` of every form the decoder takes and the
//!   header admits, `movmatrix`, and `ldmatrix` of rows in the warp's own shared slots after a
//!   `bar.warp.sync`; [`matrix`]) appear where
//!   `shfl.sync` may: CTA-uniform control flow, full warps. `cp.async` copies into the
//!   thread's own shared slot and is waited for at once. `wmma` ([`wmma`]) loads its
//!   fragments from the read-only input buffer and stores D only into the warp's own shared
//!   slots, where `shfl.sync` may appear.
//! - `multimem` ([`multimem`], `sm_90`): ptxjit's one device makes every global address a
//!   multicast object bound to it alone, so `ld_reduce` reads the input buffer, `st`, `red`
//!   and the bulk forms write the thread's own `out` bytes.
//! - Tensor-map edits ([`tmap_edit`], `sm_90a`/`sm_100`): copies of the kernel's tensor-map
//!   parameter in `fz_bulk` (thread 0, between `bar.sync 0`s) and in the thread's own `out`
//!   bytes (`tensormap.cp_fenceproxy`), edited by `tensormap.replace` with values the field
//!   allows; the bytes are the result.
//! - `trap` under a condition (the `k` parameter, the global id, a data predicate): where it
//!   runs, both engines must report the same fault. `brkpt` and `griddepcontrol` (one launch
//!   per case) have no effect ([`hints`]).
//!
//! # Not generated yet (TODO)
//! Supported by ptxjit but not generated: recursive calls, `brx.idx` inside
//! device functions, `bar.arrive` with partial warps (the count then is not the threads that
//! arrive), multisample and pitched textures, `tex.base`, `txq.level`, `.texref`/`.surfref` module variables and independent-mode samplers, `suld`/`sust` on
//! 1D/3D/layered surfaces, `mbarrier.arrive_drop` on the CTA's main mbarrier (it would change
//! every later phase's count), `expect_tx` beyond copies, `cp.async.bulk` between CTAs of a
//! cluster and with multicast, tensor maps with swizzles, interleaves, element strides,
//! padded rows and im2col or four-row (`gather4`/`scatter4`) modes, `tcgen05` with block scaling
//! (`.kind::mxf8f6f4`, `::mxf4`, `::mxf4nvf4`), `tcgen05.ld.red` (`sm_101a`/`sm_103a`
//! only: the generator's `tcgen05` target is `sm_100a`), `.ws` zero-column masks, `.sp` with
//! M = 64, `commit` with multicast, cluster exchanges in nested uniform code
//! (they would need cluster-uniform conditions), `f32` atomics of values other than small
//! integers (order-dependent rounding), the sub-byte `wmma` types, and `clusterlaunchcontrol` (the test's `NOT_GENERATED` list says why).

use std::fmt::Write as _;

use super::forms::{resolve, Class, Dst, Form, Opnd, FORMS, FORMS_SM90};
use super::rng::Rng;
use crate::ir::{MmaFrag, MmaSpec};
use crate::ptx::target::{parse_arch, Header, Version};

mod bulk_zero;
mod cluster_async;
mod hints;
mod matrix;
mod mma_kind;
mod mma_sp;
mod multimem;
mod stack;
mod stmatrix;
mod tcgen05;
mod tex;
mod tma;
mod tmap_edit;
mod video;
mod wgmma;
mod wmma;
pub use tex::TexSetup;
pub use tma::{TmapSetup, SLAB_BYTES};

/// Bytes of the input buffer (`in`, u32 words, read-only).
pub const IN_BYTES: u32 = 1024;
/// Bytes of each thread's region of `out`.
pub const OUT_REGION: u32 = 256;
/// Commutative atomic kinds: (operation, type, size); region `k` is `k * 64` bytes into the
/// `atom` buffer and into the shared atomic area.
pub const ATOM_KINDS: &[(&str, &str, u32)] = &[
    ("add", "u32", 4),
    ("add", "u64", 8),
    ("and", "b32", 4),
    ("or", "b32", 4),
    ("xor", "b32", 4),
    ("min", "u32", 4),
    ("max", "u32", 4),
    ("min", "s32", 4),
    ("max", "s32", 4),
    ("and", "b64", 8),
    ("or", "b64", 8),
    ("xor", "b64", 8),
    ("min", "u64", 8),
    ("max", "s64", 8),
    // Small integers in f32 (0..=3, converted): exact while a cell's sum stays below 2^24,
    // so the order of the adds does not matter.
    ("add", "f32", 4),
];
/// Bytes of the `atom` buffer and of the shared atomic area.
pub const ATOM_BYTES: u32 = ATOM_KINDS.len() as u32 * 64;
/// The CTA-uniform address roots the prologue computes in the kernel's first block (from the
/// parameters and `%ctaid`; `render.rs`), each with the bytes that may be read from it (all
/// read-only memory): `%ur0` = `in` + ((`%cl`·40 + `k`) & 504), `%ur1` = `%ur0` + 8, `%ur2` =
/// `%ur1` + 16 (`root + constant` chains), `%ur3` = `gtab` + (`k` & 24).
pub const UNIFORM_ROOTS: &[(&str, u32)] =
    &[("%ur0", 256), ("%ur1", 256), ("%ur2", 256), ("%ur3", 40)];
/// Bytes of shared memory each thread owns.
pub const SHARED_SLOT: u32 = 32;
/// Bytes of the `sm_90` kernels' shared destination of `cp.async.bulk` (`fz_bulk`).
pub const BULK_BYTES: u32 = 256;
/// Bytes of the `sm_90a` kernels' shared `fz_wg` (`.align 1024`), which every `wgmma`
/// statement fills ([`Gen::wgmma`]) and reads its matrices from.
pub const WG_BYTES: u32 = 8192;
/// The `sm_90a` kernels' `wgmma` accumulator registers: `%wf<WG_REGS>` (`.f32`) and
/// `%wi<WG_REGS>` (`.b32`: `.s32` and `.f16x2` accumulators).
pub const WG_REGS: u32 = 128;
/// Bytes of each thread's row of the surface `surf` ([`TexSetup`]): 16 `u32` texels, row `y`
/// belongs to the thread whose global linear id is `y`.
pub const SURF_ROW: u32 = 64;
/// The `.b32` registers of the device functions `fz_f0`/`fz_f1`: the middle part of each
/// ([`Kernel::funcs`]) computes on them after the fixed entry code sets all four from the
/// parameters; `%q2` is returned.
pub const FUNC_REGS: &[&str] = &["%q0", "%q1", "%q2", "%q3"];

/// The vector registers ([`Gen::vector_reg`]): name, type of their loads, stores and `mov`s,
/// component class, components, and binary operations on components.
#[allow(clippy::type_complexity)]
const VECTOR_REGS: &[(&str, &str, Class, &[&str], &[&str])] = &[
    (
        "%vv",
        "u32",
        Class::B32,
        &["x", "y", "z", "w"],
        &[
            "add.u32",
            "sub.u32",
            "min.s32",
            "max.u32",
            "mul.lo.u32",
            "xor.b32",
        ],
    ),
    (
        "%vd",
        "f64",
        Class::F64,
        &["x", "y"],
        &["add.f64", "sub.f64", "min.f64", "max.f64", "mul.rn.f64"],
    ),
    (
        "%vw",
        "u32",
        Class::B32,
        &["x", "y"],
        &["add.u32", "shl.b32", "max.s32", "and.b32"],
    ),
    (
        "%vf",
        "f32",
        Class::F32,
        &["x", "y", "z", "w"],
        &[
            "add.f32",
            "sub.rn.f32",
            "min.f32",
            "max.NaN.f32",
            "mul.f32",
            "copysign.f32",
        ],
    ),
    (
        "%vg",
        "f32",
        Class::F32,
        &["x", "y"],
        &["add.rz.f32", "div.rn.f32", "min.f32"],
    ),
    (
        "%vl",
        "u64",
        Class::B64,
        &["x", "y"],
        &["add.u64", "sub.u64", "min.s64", "mul.lo.u64", "or.b64"],
    ),
    (
        "%vh",
        "u16",
        Class::B16,
        &["x", "y", "z", "w"],
        &[
            "add.u16",
            "sub.u16",
            "min.s16",
            "max.u16",
            "mul.lo.u16",
            "xor.b16",
        ],
    ),
];

/// Data registers per class: `%r` b32, `%rd` b64, `%f` f32, `%fd` f64, `%h` b16, `%p` pred.
pub(super) const POOL: &[(Class, &str, u32)] = &[
    (Class::B32, "%r", 8),
    (Class::B64, "%rd", 4),
    (Class::F32, "%f", 4),
    (Class::F64, "%fd", 4),
    (Class::B16, "%h", 4),
    (Class::Pred, "%p", 4),
];
/// Read-only b32 registers set in the prologue: linear thread id in the CTA, global linear id,
/// linear CTA id (uniform), `%laneid`, `%warpid`, the `k` parameter (uniform), `%ntid.x`
/// (uniform).
pub(super) const FIXED: &[&str] = &["%tl", "%gl", "%cl", "%ln", "%wp", "%k", "%ntx"];
const UNIFORM_FIXED: &[&str] = &["%cl", "%k", "%ntx"];
/// Deepest loop nesting (one counter register pair per level).
pub(super) const MAX_LOOPS: usize = 3;
/// Deepest `if`/loop nesting overall.
const MAX_DEPTH: usize = 4;

/// How the kernel declares its shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharedMode {
    None,
    /// `.shared .align 16 .b8 smem[N];`
    Static,
    /// `.extern .shared .align 16 .b8 smem[];` with the launch's dynamic shared bytes.
    Dynamic,
}

/// A condition: `setup` lines compute `pred` (or `pred` is a data predicate); the branch is
/// taken where `pred` (negated if `negated`) holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Cond {
    pub setup: Vec<String>,
    pub pred: String,
    pub negated: bool,
}

/// A loop's trip count.
#[derive(Clone, Debug, PartialEq)]
pub enum Trip {
    /// The same for every thread.
    Fixed(u32),
    /// Lines computing this level's limit register `%ll{d}` per lane (at most 8).
    PerLane(Vec<String>),
}

/// One statement of the kernel tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// Straight-line instructions, self-contained (scratch registers set before use).
    Code(Vec<String>),
    If {
        cond: Cond,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    Loop {
        /// Nesting level: the loop counts in `%lc{level}` up to its limit (`%ll{level}` or
        /// an immediate).
        level: usize,
        trip: Trip,
        /// Test at the top (`while`) or at the bottom (`do … while`).
        test_first: bool,
        body: Vec<Stmt>,
        /// Leave the loop early where the condition holds (after the body).
        brk: Option<Cond>,
    },
    /// `bar.sync 0;` or an equivalent spelling.
    Barrier(String),
    /// Shared exchange: `store` (own slot), barrier, `load` (any thread's slot), barrier.
    Exchange {
        store: Vec<String>,
        load: Vec<String>,
    },
    /// Leave early where `cond` holds: `ret`, `exit`, or a jump to the epilogue.
    Exit { cond: Cond, how: ExitHow },
    /// `brx.idx` (PTX ISA §9.7.12.4) on `%t0`, which `setup` computes in `0..arms.len()`,
    /// through a `.branchtargets` list of one label per arm; every arm then jumps to the end.
    /// `uniform`: the index is the same for every thread of the CTA (`brx.idx.uni`).
    Switch {
        setup: Vec<String>,
        uniform: bool,
        arms: Vec<Vec<Stmt>>,
    },
}

/// How an early exit leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitHow {
    Ret,
    Exit,
    /// `bra` to the epilogue (the thread still dumps its registers).
    ToEpilogue,
}

/// A generated kernel and its launch.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// Entry name.
    pub name: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: SharedMode,
    /// The input buffer's words ([`IN_BYTES`] / 4).
    pub input: Vec<u32>,
    /// The `.u32` scalar parameter (uniform).
    pub k: u32,
    /// Contents of the `.const` table `ctab` (64 bytes).
    pub ctab: Vec<u8>,
    /// Contents of the `.global` table `gtab` (64 bytes).
    pub gtab: Vec<u8>,
    /// The `sm_90` flavour (`.target sm_90`): also the forms of [`FORMS_SM90`], `mbarrier`,
    /// `cp.async.bulk`, `elect.sync`, `fence.proxy.async`.
    pub sm90: bool,
    /// The `sm_100` flavour (`.target sm_100`, PTX ISA 8.8; only with [`sm90`](Self::sm90),
    /// whose forms it keeps): also 256-bit loads and stores (`.v4` of 64-bit types, `.v8` of
    /// 32-bit ones).
    pub sm100: bool,
    /// The `sm_90a` flavour (`.target sm_90a`; only with [`sm90`](Self::sm90) and not
    /// [`sm100`](Self::sm100): wgmma is `sm_90a` only): also `wgmma` ([`Gen::wgmma`]) on the
    /// shared `fz_wg`; the block's threads are a multiple of a warpgroup's 128.
    pub sm90a: bool,
    /// The `sm_100a` flavour (`.target sm_100a`; only with [`sm100`](Self::sm100)): also
    /// `tcgen05` ([`Gen::tcgen05`]) on the shared `fz_wg` and tensor memory; the block's
    /// threads are a multiple of 128 (the four warps that reach all 128 lanes).
    pub sm100a: bool,
    /// The `sm_120a` flavour (`.target sm_120a`, PTX ISA 8.8; only with
    /// [`sm100`](Self::sm100) and not [`sm100a`](Self::sm100a), whose forms it keeps): also the
    /// matrix forms only the `sm_120` family's targets take (`mma .kind::f8f6f4`).
    pub sm120a: bool,
    /// The straight-line middle parts of the two device functions `fz_f0` and `fz_f1` the
    /// body may call (see [`FUNC_REGS`]).
    pub funcs: [Vec<String>; 2],
    /// The texture object over the input buffer and the per-thread surface the kernel reads
    /// and writes (two more `.u64` parameters), or none.
    pub tex: Option<TexSetup>,
    /// The cluster shape the launch asks for (`sm_90` kernels; `[1, 1, 1]`: none). The case
    /// uses each dimension that divides the grid's, else 1 (so it follows the shrinker's
    /// grid edits).
    pub cluster: [u32; 3],
    /// The tile-mode tensor map over the input buffer (`sm_90` kernels; one more parameter,
    /// `.param .align 64 .b8 NAME_tmap[128]`), or none.
    pub tmap: Option<TmapSetup>,
    /// The writable tile-mode tensor map over the `tout` buffer (`sm_90` kernels; one more
    /// parameter after `tmap`'s, `NAME_tmapo`), whose last dimension here is one CTA's slab:
    /// the case's map has it times the CTAs ([`TmapSetup::times_outer`]), or none.
    pub tmap_out: Option<TmapSetup>,
    pub body: Vec<Stmt>,
}

/// Generation parameters.
#[derive(Clone, Copy, Debug)]
pub struct GenConfig {
    /// About how many statements the body has (the size knob; 1 to a few hundred).
    pub size: usize,
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig { size: 40 }
    }
}

impl Kernel {
    /// Threads per CTA.
    pub fn threads_per_cta(&self) -> u32 {
        self.block.iter().product()
    }

    /// Threads in the grid.
    pub fn threads(&self) -> u32 {
        self.threads_per_cta() * self.grid.iter().product::<u32>()
    }

    /// Bytes of shared memory the kernel uses (own slots, then the atomic area).
    pub fn shared_bytes(&self) -> u32 {
        self.threads_per_cta() * SHARED_SLOT + ATOM_BYTES
    }

    /// Dynamic shared memory to launch with.
    pub fn dynamic_shared_bytes(&self) -> u32 {
        match self.shared {
            SharedMode::Dynamic => self.shared_bytes(),
            _ => 0,
        }
    }
}

/// Generates a kernel from `rng` (see the module docs for what it contains).
pub fn generate(rng: &mut Rng, cfg: GenConfig) -> Kernel {
    const BLOCKS: &[[u32; 3]] = &[
        [32, 1, 1],
        [64, 1, 1],
        [96, 1, 1],
        [128, 1, 1],
        [16, 4, 1],
        [8, 4, 2],
        [32, 2, 2],
        [40, 1, 1],
        [33, 1, 1],
        [17, 3, 1],
        [1, 1, 1],
        [5, 2, 3],
        [100, 1, 1],
    ];
    let mut block = *rng.pick(BLOCKS);
    let mut grid = [
        rng.range(1, 3) as u32,
        rng.range(1, 2) as u32,
        if rng.chance(20) { 2 } else { 1 },
    ];
    let shared = *rng.pick(&[SharedMode::None, SharedMode::Static, SharedMode::Dynamic]);
    let input = (0..IN_BYTES / 4).map(|_| input_word(rng)).collect();
    let k = *rng.pick(&[0, 1, 2, 7, 31, 32, 1000, 0x8000_0000, 0xffff_ffff]);
    let ctab = (0..64).map(|_| rng.next_u32() as u8).collect();
    let gtab = (0..64).map(|_| rng.next_u32() as u8).collect();
    let sm90 = rng.chance(35);
    let sm100 = sm90 && rng.chance(40);
    let sm90a = sm90 && !sm100 && rng.chance(50);
    let sm100a = sm100 && rng.chance(50);
    let sm120a = sm100 && !sm100a && rng.chance(50);
    if sm90a || sm100a {
        // Whole warpgroups (four warps of 32 threads).
        block = *rng.pick(&[[128, 1, 1], [32, 2, 2], [64, 2, 1], [256, 1, 1], [16, 8, 2]]);
    }
    let nt: u32 = block.iter().product();
    let tex = rng.chance(30).then(|| TexSetup::random(rng));
    let tmap = (sm90 && rng.chance(40)).then(|| TmapSetup::random(rng, IN_BYTES));
    let tmap_out = (sm90 && rng.chance(40)).then(|| TmapSetup::random(rng, SLAB_BYTES));
    // A third of the `sm_100a` kernels run their `tcgen05` statements on CTA pairs
    // (`.cta_group::2`): clusters of 2 or 4 CTAs along x.
    let pair = sm100a && rng.chance(35);
    if pair {
        grid[0] = *rng.pick(&[2, 4]);
    }
    let cluster = if pair {
        [*rng.pick(&[2, grid[0]]), 1, 1]
    } else if sm90 && rng.chance(60) {
        *rng.pick(&[
            [grid[0], 1, 1],
            [grid[0], grid[1], 1],
            [1, grid[1], grid[2]],
            [1, 1, grid[2]],
        ])
    } else {
        [1, 1, 1]
    };
    let mut g = Gen {
        rng,
        budget: cfg.size.max(1),
        nt,
        full_warps: nt.is_multiple_of(32),
        shared: shared != SharedMode::None,
        exited: false,
        counters: Vec::new(),
        sm90,
        sm100,
        sm90a,
        sm100a,
        sm120a,
        pair,
        relinquished: false,
        tex,
        tmap,
        tmap_out,
        maxnreg: None,
    };
    let funcs = [g.func_body(), g.func_body()];
    let mut body = Vec::new();
    while g.budget > 0 {
        let s = g.stmt(Ctx {
            uniform: true,
            depth: 0,
        });
        body.push(s);
    }
    Kernel {
        name: "fuzz_kernel".to_string(),
        grid,
        block,
        shared,
        input,
        k,
        ctab,
        gtab,
        sm90,
        sm100,
        sm90a,
        sm100a,
        sm120a,
        funcs,
        tex,
        cluster,
        tmap,
        tmap_out,
        body,
    }
}

/// Interesting 32-bit patterns: float specials (zeros, ones, infinities, quiet and signalling
/// NaNs with payloads, subnormals, extremes) and integer edges.
const SPECIAL_WORDS: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x7fa0_0001,
    0xffc0_0123,
    0x0000_0001,
    0x807f_ffff,
    0x0080_0000,
    0x7f7f_ffff,
    0x3f80_0001,
    0x4b80_0000,
    0x3f00_0000,
    0x4f00_0000,
    0xcf00_0000,
    0x7fff_ffff,
    0xffff_ffff,
    0x0000_001f,
    0x0000_0020,
    0x0000_0021,
    0x4000_0000,
    0x0000_ffff,
    0x0000_8000,
];

fn input_word(rng: &mut Rng) -> u32 {
    match rng.below(4) {
        0 => *rng.pick(SPECIAL_WORDS),
        1 => rng.below(64) as u32,
        _ => rng.next_u32(),
    }
}

/// An `mma.sync`/`mma.sp` form the generator emits: its name (shape, layouts and types as the
/// instruction spells them after `mma.sync.aligned.`) and the register class and count of D,
/// A, B and C, which come from the decoder's fragment spec ([`MmaSpec::regs`], PTX ISA
/// §9.7.14.5.14 and §9.7.14.6.2).
#[derive(Clone, Copy)]
struct MmaForm {
    name: &'static str,
    spec: MmaSpec,
    d: (Class, usize),
    a: (Class, usize),
    b: (Class, usize),
    c: (Class, usize),
}

impl MmaForm {
    fn of(name: &'static str, spec: MmaSpec) -> MmaForm {
        let frag = |f: MmaFrag, out: bool| {
            let (count, ty) = spec.regs(f, out);
            let class = match ty {
                crate::ir::Type::F32 => Class::F32,
                crate::ir::Type::F64 => Class::F64,
                _ => Class::B32,
            };
            (class, count as usize)
        };
        MmaForm {
            name,
            spec,
            d: frag(MmaFrag::C, true),
            a: frag(MmaFrag::A, false),
            b: frag(MmaFrag::B, false),
            c: frag(MmaFrag::C, false),
        }
    }

    /// Whether this is a `.kind` form of `mma.sp`, which takes `.sp::ordered_metadata` only
    /// (ptxas 13.5: "Illegal modifier '.sp' for instruction 'mma'") and selector 0.
    fn ordered_only(&self) -> bool {
        self.spec.sparse.is_some() && self.name.contains(".kind::")
    }

    /// Whether this `mma.sp` form takes `.sp::ordered_metadata` only: the `.kind` forms
    /// ([`Self::ordered_only`]) and `.e4m3`/`.e5m2` inputs with an `.f16` accumulator (ptxas
    /// 13.5 refuses plain `.sp` there on every target: "Illegal modifier '.sp' for instruction
    /// 'mma'", and takes `::ordered_metadata` on the sm_120 family's targets only).
    fn needs_ordered(&self) -> bool {
        use crate::ir::MmaElem::{E4m3, E5m2, F16};
        self.ordered_only()
            || (self.spec.sparse.is_some()
                && matches!(self.spec.a, E4m3 | E5m2)
                && self.spec.c == F16)
    }

    /// The instruction's modifier words (without dots; `sparse`: `.sp` or
    /// `.sp::ordered_metadata`), as [`crate::lower::admits`] takes them.
    fn words(&self, sp: Option<&'static str>) -> Vec<&'static str> {
        let mut w: Vec<&'static str> = sp.into_iter().collect();
        w.extend(["sync", "aligned"]);
        w.extend(self.name.split('.'));
        w
    }
}

/// Every `mma` form the decoder takes ([`crate::lower::mma_forms`], computed once): dense
/// ones and `.sp` ones, and the block-scaled and sparse `.kind` forms that list leaves out
/// ([`mma_kind`]; a form both have is taken once). The generator draws from those its
/// kernel's header admits ([`Gen::mma_pool`]), so a form the decoder learns is fuzzed without
/// an edit here.
fn all_mma_forms() -> &'static [MmaForm] {
    static FORMS: std::sync::OnceLock<Vec<MmaForm>> = std::sync::OnceLock::new();
    FORMS.get_or_init(|| {
        let mut seen = std::collections::HashSet::new();
        crate::lower::mma_forms()
            .into_iter()
            .chain(mma_kind::kind_forms())
            .filter(|(name, spec)| seen.insert((name.clone(), spec.sparse.is_some())))
            .map(|(name, spec)| MmaForm::of(Box::leak(name.into_boxed_str()), spec))
            .collect()
    })
}

/// The module header of a kernel flavour (the version `render` writes without the
/// `multimem.cp` and `fabric` forms, which only raise it).
fn flavour_header(sm90: bool, sm100: bool, sm90a: bool, sm100a: bool, sm120a: bool) -> Header {
    let (version, arch) = if sm100a {
        (Version(8, 8), "sm_100a")
    } else if sm120a {
        (Version(8, 8), "sm_120a")
    } else if sm100 {
        (Version(8, 8), "sm_100")
    } else if sm90a {
        (Version(8, 4), "sm_90a")
    } else if sm90 {
        (Version(8, 1), "sm_90")
    } else {
        (Version(8, 0), "sm_80")
    };
    Header {
        version,
        arch: parse_arch(arch),
    }
}

#[derive(Clone, Copy)]
struct Ctx {
    /// Control flow here is the same for every thread of the CTA.
    uniform: bool,
    depth: usize,
}

struct Gen<'r> {
    rng: &'r mut Rng,
    /// Statements left to generate.
    budget: usize,
    nt: u32,
    full_warps: bool,
    shared: bool,
    /// An early exit has been generated: no barriers or warp collectives from here on.
    exited: bool,
    /// Enclosing loops, innermost last: whether each counter is uniform.
    counters: Vec<bool>,
    /// The `sm_90` flavour ([`Kernel::sm90`]).
    sm90: bool,
    /// The `sm_100` flavour ([`Kernel::sm100`]).
    sm100: bool,
    /// The `sm_90a` flavour ([`Kernel::sm90a`]).
    sm90a: bool,
    /// The `sm_100a` flavour ([`Kernel::sm100a`]).
    sm100a: bool,
    /// The `sm_120a` flavour ([`Kernel::sm120a`]).
    sm120a: bool,
    /// The kernel's `tcgen05` statements run on CTA pairs (`.cta_group::2` on every
    /// `tcgen05` instruction that takes it, as PTX ISA §9.7.16.5 requires of a kernel), in a
    /// cluster launch of an even number of CTAs; they then sit at the top level only, as
    /// their cluster barriers need every thread of the cluster.
    pair: bool,
    /// A `tcgen05.relinquish_alloc_permit` has been generated: no more allocations.
    relinquished: bool,
    /// The kernel's texture and surface ([`Kernel::tex`]).
    tex: Option<TexSetup>,
    /// The kernel's tensor map ([`Kernel::tmap`]).
    tmap: Option<TmapSetup>,
    /// The kernel's writable tensor map ([`Kernel::tmap_out`]).
    tmap_out: Option<TmapSetup>,
    /// The pivot of the kernel's `setmaxnreg` counts, drawn at the first: every `.inc` count
    /// at or above it, every `.dec` count at or below it. ptxas 13.5 refuses a `.dec` count
    /// above the largest `.inc` count of the kernel (or its `.maxnreg`; "(C7406)
    /// setmaxnreg.dec has register count (248) which is larger than the largest temporal
    /// register count in the program (128)", `lower::maxnreg`), and with every `.dec` at or
    /// below every `.inc` that holds however the shrinker cuts the kernel.
    maxnreg: Option<u64>,
}

/// Constructs, in the order of [`Gen::stmt`]'s weight table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    Form,
    LoadIn,
    StoreOut,
    Local,
    ConstTable,
    GlobalTable,
    Atomic,
    PrivateAtomic,
    SharedOwn,
    SharedAtomic,
    Shfl,
    WarpVote,
    Exchange,
    WarpExchange,
    Matrix,
    RegionRace,
    UniformRoot,
    Barrier,
    Misc,
    If,
    Loop,
    Exit,
    Carry,
    Call,
    Switch,
    BarrierRed,
    ArriveSync,
    Mbarrier,
    BulkCopy,
    VectorReg,
    Texture,
    Surface,
    MbarrierCount,
    BulkToGlobal,
    ClusterExchange,
    WideVector,
    TensorCopy,
    TensorStore,
    Wgmma,
    Tcgen05,
    MbarrierDrop,
    Video,
    Stack,
    Hint,
    StMatrix,
    MmaSp,
    BulkZero,
    Wmma,
    Multimem,
    TmapEdit,
    Trap,
    ClusterAsync,
}

const WHATS: &[(What, u32)] = &[
    (What::Form, 60),
    (What::LoadIn, 8),
    (What::StoreOut, 8),
    (What::Local, 3),
    (What::ConstTable, 2),
    (What::GlobalTable, 2),
    (What::Atomic, 4),
    (What::PrivateAtomic, 3),
    (What::SharedOwn, 3),
    (What::SharedAtomic, 3),
    (What::Shfl, 5),
    (What::WarpVote, 4),
    (What::Exchange, 4),
    (What::WarpExchange, 4),
    (What::Matrix, 3),
    (What::RegionRace, 3),
    (What::UniformRoot, 4),
    (What::Barrier, 2),
    (What::Misc, 2),
    (What::If, 7),
    (What::Loop, 5),
    (What::Exit, 1),
    (What::Carry, 4),
    (What::Call, 3),
    (What::Switch, 3),
    (What::BarrierRed, 2),
    (What::ArriveSync, 2),
    (What::Mbarrier, 3),
    (What::BulkCopy, 3),
    (What::VectorReg, 4),
    (What::Texture, 5),
    (What::Surface, 4),
    (What::MbarrierCount, 3),
    (What::BulkToGlobal, 2),
    (What::ClusterExchange, 3),
    (What::WideVector, 4),
    (What::TensorCopy, 3),
    (What::TensorStore, 5),
    (What::Wgmma, 8),
    (What::Tcgen05, 8),
    (What::MbarrierDrop, 2),
    (What::Video, 4),
    (What::Stack, 2),
    (What::Hint, 2),
    (What::StMatrix, 2),
    (What::MmaSp, 2),
    (What::BulkZero, 2),
    (What::Wmma, 2),
    (What::Multimem, 3),
    (What::TmapEdit, 2),
    (What::Trap, 1),
    (What::ClusterAsync, 3),
];

impl Gen<'_> {
    fn stmt(&mut self, ctx: Ctx) -> Stmt {
        self.budget = self.budget.saturating_sub(1);
        let collective_ok = ctx.uniform && !self.exited;
        let in_divergent_loop = self.counters.iter().any(|&uniform| !uniform);
        let weights: Vec<u32> = WHATS
            .iter()
            .map(|&(w, weight)| {
                let ok = match w {
                    What::SharedOwn | What::SharedAtomic => self.shared,
                    What::Shfl | What::Matrix => collective_ok && self.full_warps,
                    // Not beside `tcgen05`: ptxas 13.5 then fails register allocation (255
                    // registers) on kernels whose `tcgen05.ld` loads 128 registers.
                    What::MmaSp => collective_ok && self.full_warps && !self.sm100a,
                    What::StMatrix => collective_ok && self.full_warps && self.shared && self.sm90,
                    What::Exchange => collective_ok && self.shared,
                    // Anywhere, divergent loops included: its membermask is the lanes here.
                    What::WarpExchange => self.shared,
                    What::RegionRace => self.shared && self.full_warps,
                    What::Barrier => collective_ok,
                    What::If => ctx.depth < MAX_DEPTH && self.budget > 0,
                    What::Loop => {
                        ctx.depth < MAX_DEPTH && self.counters.len() < MAX_LOOPS && self.budget > 0
                    }
                    // Not inside a uniform loop: its body may hold collectives that a
                    // later iteration would then run with lanes missing.
                    What::Exit => self.counters.iter().all(|&uniform| !uniform),
                    What::Switch => ctx.depth < MAX_DEPTH && self.budget > 0,
                    What::BarrierRed => collective_ok,
                    // Producer and consumer warps: two full warps at least.
                    What::ArriveSync => {
                        collective_ok && self.shared && self.full_warps && self.nt >= 64
                    }
                    What::Mbarrier | What::BulkCopy => collective_ok && self.sm90,
                    What::MbarrierCount | What::MbarrierDrop => collective_ok && self.sm90,
                    What::BulkToGlobal => self.sm90 && self.shared,
                    What::Texture | What::Surface => self.tex.is_some(),
                    What::WideVector => self.sm100,
                    What::BulkZero => self.sm100 && self.shared,
                    // Not beside `tcgen05` either (the same register allocation failure, seen
                    // with an `.f64` `wmma` and two 128-register `tcgen05.ld`s).
                    What::Wmma => collective_ok && self.full_warps && !self.sm100a,
                    What::Multimem => self.sm90,
                    // PTX ISA 8.3 forms: not in the `sm_90` kernels (8.1).
                    What::TmapEdit => {
                        collective_ok && self.tmap.is_some() && (self.sm90a || self.sm100)
                    }
                    What::TensorCopy => collective_ok && self.tmap.is_some(),
                    What::TensorStore => collective_ok && self.tmap_out.is_some(),
                    What::Wgmma => collective_ok && self.sm90a,
                    What::Tcgen05 => {
                        collective_ok
                            && self.sm100a
                            && !self.relinquished
                            && (!self.pair || ctx.depth == 0)
                    }
                    What::ClusterExchange | What::ClusterAsync => {
                        collective_ok && ctx.depth == 0 && self.sm90 && self.shared
                    }
                    _ => true,
                };
                match (ok, w) {
                    (false, _) => 0,
                    // Warp-synchronous points inside loops that are not CTA-uniform (a
                    // per-lane trip count, a divergent `break`, divergent code around), where
                    // the lanes that meet there change from iteration to iteration: four
                    // times as often as elsewhere.
                    (true, What::WarpVote | What::WarpExchange) if in_divergent_loop => 4 * weight,
                    // The `sm_120a` kernels (3.5% of all) are the only ones with the
                    // block-scaled sparse forms: twice the `mma.sp` there.
                    (true, What::MmaSp) if self.sm120a => 2 * weight,
                    (true, _) => weight,
                }
            })
            .collect();
        match WHATS[self.rng.weighted(&weights)].0 {
            What::Form => Stmt::Code(vec![self.form_inst()]),
            What::LoadIn => self.load_in(),
            What::StoreOut => self.store_out(),
            What::Local => self.local(),
            What::ConstTable => self.table(true),
            What::GlobalTable => self.table(false),
            What::Atomic => self.atomic(),
            What::PrivateAtomic => self.private_atomic(),
            What::SharedOwn => self.shared_own(),
            What::SharedAtomic => self.shared_atomic(),
            What::Shfl => self.shfl(),
            What::WarpVote => self.warp_vote(collective_ok && self.full_warps),
            What::Exchange => self.exchange(),
            What::WarpExchange => self.warp_exchange(),
            What::Matrix => self.matrix(),
            What::RegionRace => self.region_race(),
            What::UniformRoot => self.uniform_root(collective_ok && self.full_warps),
            What::Barrier => self.barrier(),
            What::Misc => self.misc(),
            What::If => self.if_stmt(ctx),
            What::Loop => self.loop_stmt(ctx),
            What::Exit => self.exit(),
            What::Carry => self.carry_chain(),
            What::Call => self.call(ctx),
            What::Switch => self.switch(ctx),
            What::BarrierRed => self.barrier_red(),
            What::ArriveSync => self.arrive_sync(),
            What::Mbarrier => self.mbarrier(),
            What::BulkCopy => self.bulk_copy(),
            What::VectorReg => self.vector_reg(),
            What::Texture => self.texture(),
            What::Surface => self.surface(),
            What::MbarrierCount => self.mbarrier_count(),
            What::BulkToGlobal => self.bulk_to_global(),
            What::ClusterExchange => self.cluster_exchange(),
            What::WideVector => self.wide_vector(),
            What::TensorCopy => self.tensor_copy(),
            What::TensorStore => self.tensor_store(),
            What::Wgmma => self.wgmma(),
            What::Tcgen05 => self.tcgen05(),
            What::MbarrierDrop => self.mbarrier_drop(),
            What::Video => self.video(),
            What::Stack => self.stack(),
            What::Hint => self.hint(),
            What::StMatrix => self.stmatrix(),
            What::MmaSp => self.mma_sp(),
            What::BulkZero => self.bulk_zero(),
            What::Wmma => self.wmma(),
            What::Multimem => self.multimem(),
            What::TmapEdit => self.tmap_edit(),
            What::Trap => self.trap(),
            What::ClusterAsync => self.cluster_async(),
        }
    }

    fn block(&mut self, ctx: Ctx, max: u64) -> Vec<Stmt> {
        let n = self.rng.range(1, max);
        let mut out = Vec::new();
        for _ in 0..n {
            if self.budget == 0 {
                break;
            }
            out.push(self.stmt(ctx));
        }
        out
    }

    // ---- registers and immediates ---------------------------------------------------------

    fn data_reg(&mut self, c: Class) -> String {
        let (_, prefix, n) = POOL
            .iter()
            .find(|(pc, _, _)| *pc == c)
            .copied()
            .unwrap_or(POOL[0]);
        format!("{prefix}{}", self.rng.below(n as u64))
    }

    /// `n` distinct data registers of class `c`.
    fn distinct_regs(&mut self, c: Class, n: usize) -> Vec<String> {
        let (_, prefix, count) = POOL
            .iter()
            .find(|(pc, _, _)| *pc == c)
            .copied()
            .unwrap_or(POOL[0]);
        let mut idx: Vec<u32> = (0..count).collect();
        for i in 0..idx.len() {
            let j = i + self.rng.below((idx.len() - i) as u64) as usize;
            idx.swap(i, j);
        }
        idx.iter().take(n).map(|i| format!("{prefix}{i}")).collect()
    }

    /// A source register of class `c`: a data register, or for `.b32` sometimes a read-only
    /// one (thread ids, parameters, enclosing loop counters).
    fn src_reg(&mut self, c: Class) -> String {
        if c == Class::B32 && self.rng.chance(25) {
            let mut opts: Vec<String> = FIXED.iter().map(|s| s.to_string()).collect();
            for level in 0..self.counters.len() {
                opts.push(format!("%lc{level}"));
            }
            return self.rng.pick(&opts).clone();
        }
        self.data_reg(c)
    }

    fn imm(&mut self, c: Class) -> String {
        match c {
            Class::F32 => {
                if self.rng.chance(70) {
                    format!("0f{:08X}", self.f32_bits())
                } else {
                    let v = *self
                        .rng
                        .pick(&[0.5f64, 1.0, -2.0, 0.1, 3.75, -0.0, 1e-3, 65504.0]);
                    format!("{v:?}")
                }
            }
            Class::F64 => {
                if self.rng.chance(70) {
                    let bits = if self.rng.chance(50) {
                        (f32::from_bits(self.f32_bits()) as f64).to_bits()
                    } else {
                        self.rng.next_u64()
                    };
                    format!("0d{bits:016X}")
                } else {
                    let v = *self
                        .rng
                        .pick(&[0.5f64, 1.0, -2.0, 0.1, 3.75, -0.0, 1e-300, 1e300]);
                    format!("{v:?}")
                }
            }
            Class::B16 => self.int_imm(16),
            Class::B32 => self.int_imm(32),
            Class::B64 => self.int_imm(64),
            Class::Pred => self.data_reg(Class::Pred),
        }
    }

    fn f32_bits(&mut self) -> u32 {
        if self.rng.chance(60) {
            *self.rng.pick(SPECIAL_WORDS)
        } else {
            self.rng.next_u32()
        }
    }

    /// An integer literal that fits in `bits` (decimal, hex, or negative decimal).
    fn int_imm(&mut self, bits: u32) -> String {
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let v = match self.rng.below(4) {
            0 => *self
                .rng
                .pick(&[0u64, 1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64]),
            1 => mask,
            2 => 1u64 << (bits - 1),
            _ => self.rng.next_u64() & mask,
        };
        match self.rng.below(3) {
            0 => format!("0x{v:X}"),
            1 if v >> (bits - 1) & 1 == 1 => {
                // Negative decimal of the same bit pattern.
                let neg = (!v & mask) + 1;
                format!("-{neg}")
            }
            _ => format!("{v}"),
        }
    }

    fn guard(&mut self) -> String {
        if self.rng.chance(12) {
            let p = self.data_reg(Class::Pred);
            if self.rng.chance(50) {
                format!("@!{p} ")
            } else {
                format!("@{p} ")
            }
        } else {
            String::new()
        }
    }

    // ---- straight-line instructions from the form table ------------------------------------

    fn form_inst(&mut self) -> String {
        let table: Vec<&Form> = if self.sm90 {
            FORMS.iter().chain(FORMS_SM90).collect()
        } else {
            FORMS.iter().collect()
        };
        let weights: Vec<u32> = table.iter().map(|f| f.weight).collect();
        let f = table[self.rng.weighted(&weights)];
        let ty = *self.rng.pick(f.tys);
        let mods: Vec<&str> = f.mods.iter().map(|g| *self.rng.pick::<&str>(g)).collect();
        let g = self.guard();
        // `lop3.BoolOp` needs PTX ISA 8.2: the `sm_90a` and `sm_100` flavours' headers.
        if f.op == "lop3" && (self.sm90a || self.sm100) && self.rng.chance(40) {
            return format!("{g}{}", self.lop3_bool());
        }
        format!("{g}{}", self.form_instance(f, ty, &mods))
    }

    /// `lop3.BoolOp.b32 d|p, a, b, c, immLut, q` (PTX ISA §9.7.8.6, PTX ISA 8.2): `d` is the
    /// table's function of `a`, `b`, `c`; `p` is `(d != 0) BoolOp q`.
    fn lop3_bool(&mut self) -> String {
        let op = *self.rng.pick(&["and", "or"]);
        let d = self.data_reg(Class::B32);
        let p = self.data_reg(Class::Pred);
        let a = self.src_reg(Class::B32);
        let mut bc = Vec::new();
        for _ in 0..2 {
            bc.push(if self.rng.chance(30) {
                self.imm(Class::B32)
            } else {
                self.src_reg(Class::B32)
            });
        }
        let lut = self.rng.range(0, 255);
        let q = self.src_reg(Class::Pred);
        format!(
            "lop3.{op}.b32 {d}|{p}, {a}, {}, {}, 0x{lut:02x}, {q};",
            bc[0], bc[1]
        )
    }

    /// One instruction of form `f` with type `ty` and one modifier per group (`mods`), with
    /// random operands.
    fn form_instance(&mut self, f: &Form, ty: &str, mods: &[&str]) -> String {
        let mut text = f.op.to_string();
        for m in mods {
            text.push_str(m);
        }
        let _ = write!(text, ".{ty} ");
        match f.dst {
            Dst::R(k) => text.push_str(&self.data_reg(resolve(k, ty))),
            Dst::PredPair => {
                if self.rng.chance(30) {
                    let ps = self.distinct_regs(Class::Pred, 2);
                    let _ = write!(text, "{}|{}", ps[0], ps[1]);
                } else {
                    text.push_str(&self.data_reg(Class::Pred));
                }
            }
            Dst::Vec(k, n) => {
                let regs = self.distinct_regs(resolve(k, ty), n as usize);
                let _ = write!(text, "{{{}}}", regs.join(", "));
            }
        }
        for s in f.srcs {
            text.push_str(", ");
            let o = match *s {
                Opnd::R(k) => self.src_reg(resolve(k, ty)),
                Opnd::RI(k) => {
                    let c = resolve(k, ty);
                    if c != Class::Pred && self.rng.chance(30) {
                        self.imm(c)
                    } else {
                        self.src_reg(c)
                    }
                }
                Opnd::Sh => {
                    if self.rng.chance(50) {
                        format!("{}", self.rng.range(0, 70))
                    } else {
                        self.src_reg(Class::B32)
                    }
                }
                Opnd::NP => {
                    let p = self.data_reg(Class::Pred);
                    if self.rng.chance(40) {
                        format!("!{p}")
                    } else {
                        p
                    }
                }
                Opnd::Vec(k, n) => {
                    let c = resolve(k, ty);
                    let regs: Vec<String> = (0..n).map(|_| self.src_reg(c)).collect();
                    format!("{{{}}}", regs.join(", "))
                }
                Opnd::Imm8 => format!("0x{:02x}", self.rng.range(0, 255)),
                Opnd::Bit => {
                    if self.rng.chance(50) {
                        format!("{}", self.rng.range(0, 31))
                    } else {
                        "%ln".to_string()
                    }
                }
            };
            text.push_str(&o);
        }
        text.push(';');
        text
    }

    // ---- memory ----------------------------------------------------------------------------

    /// Lines computing `%td0 = base + (src & mask)`.
    fn masked(&mut self, base: &str, mask: u32, lines: &mut Vec<String>) {
        let src = self.src_reg(Class::B32);
        lines.push(format!("and.b32 %t0, {src}, {mask};"));
        if self.rng.chance(50) {
            lines.push("cvt.u64.u32 %td0, %t0;".to_string());
        } else {
            lines.push("mul.wide.u32 %td0, %t0, 1;".to_string());
        }
        lines.push(format!("add.s64 %td0, {base}, %td0;"));
    }

    /// A data type for memory access: (type, element bytes, register class), and a vector
    /// width such that the access is at most 16 bytes.
    fn mem_type(&mut self, allow_vec: bool) -> (&'static str, u32, Class, u32) {
        const TYS: &[(&str, u32, Class)] = &[
            ("u8", 1, Class::B16),
            ("s8", 1, Class::B32),
            ("u16", 2, Class::B16),
            ("s16", 2, Class::B32),
            ("u32", 4, Class::B32),
            ("s32", 4, Class::B32),
            ("b32", 4, Class::B32),
            ("f32", 4, Class::F32),
            ("u64", 8, Class::B64),
            ("b64", 8, Class::B64),
            ("f64", 8, Class::F64),
        ];
        let (ty, size, mut class) = *self.rng.pick(TYS);
        if size <= 2 && self.rng.chance(50) {
            class = if class == Class::B16 {
                Class::B32
            } else {
                Class::B16
            };
        }
        let mut n = 1;
        if allow_vec && self.rng.chance(30) {
            n = if size <= 4 && self.rng.chance(50) {
                4
            } else {
                2
            };
        }
        (ty, size, class, n)
    }

    fn vec_dst(&mut self, class: Class, n: u32) -> String {
        if n == 1 {
            self.data_reg(class)
        } else {
            format!("{{{}}}", self.distinct_regs(class, n as usize).join(", "))
        }
    }

    fn vec_src(&mut self, class: Class, n: u32) -> String {
        if n == 1 {
            self.src_reg(class)
        } else {
            let regs: Vec<String> = (0..n).map(|_| self.src_reg(class)).collect();
            format!("{{{}}}", regs.join(", "))
        }
    }

    fn vprefix(n: u32) -> String {
        if n == 1 {
            String::new()
        } else {
            format!(".v{n}")
        }
    }

    /// `ld` from the input buffer: global, `.nc`, `ldu`, or generic.
    fn load_in(&mut self) -> Stmt {
        let (ty, size, class, n) = self.mem_type(true);
        let total = size * n;
        let mut lines = Vec::new();
        let generic = self.rng.chance(25);
        let base = if generic { "%pin" } else { "%gin" };
        self.masked(base, IN_BYTES / 2 - total, &mut lines);
        let off = self.rng.pick(&[0, 256, 512]);
        let op = if generic {
            "ld".to_string()
        } else {
            self.rng
                .pick(&["ld.global", "ld.global.nc", "ldu.global", "ld.global.ca"])
                .to_string()
        };
        let g = self.guard();
        let dst = self.vec_dst(class, n);
        lines.push(format!(
            "{g}{op}{}.{ty} {dst}, [%td0+{off}];",
            Self::vprefix(n)
        ));
        Stmt::Code(lines)
    }

    /// `st` into the thread's own region of `out` (global or generic).
    fn store_out(&mut self) -> Stmt {
        let (ty, size, class, n) = self.mem_type(true);
        let total = size * n;
        let mut lines = Vec::new();
        let generic = self.rng.chance(25);
        let base = if generic { "%odp" } else { "%od" };
        self.masked(base, 64 - total, &mut lines);
        let off = self.rng.pick(&[0, 32, 64]);
        let op = if generic { "st" } else { "st.global" };
        let g = self.guard();
        let src = self.vec_src(class, n);
        lines.push(format!(
            "{g}{op}{}.{ty} [%td0+{off}], {src};",
            Self::vprefix(n)
        ));
        Stmt::Code(lines)
    }

    /// `st.local`/`ld.local` (or generic through `cvta.local`) on the thread's local array.
    fn local(&mut self) -> Stmt {
        let (ty, size, class, n) = self.mem_type(true);
        let total = size * n;
        let mut lines = Vec::new();
        self.masked("%lb", 32 - total, &mut lines);
        let off = self.rng.pick(&[0, 16, 32]);
        let space = if self.rng.chance(30) {
            lines.push("cvta.local.u64 %td0, %td0;".to_string());
            ""
        } else {
            ".local"
        };
        let g = self.guard();
        let v = Self::vprefix(n);
        if self.rng.chance(50) {
            let src = self.vec_src(class, n);
            lines.push(format!("{g}st{space}{v}.{ty} [%td0+{off}], {src};"));
        } else {
            let dst = self.vec_dst(class, n);
            lines.push(format!("{g}ld{space}{v}.{ty} {dst}, [%td0+{off}];"));
        }
        Stmt::Code(lines)
    }

    /// A load from the `.const` table `ctab` or the `.global` table `gtab`.
    fn table(&mut self, constant: bool) -> Stmt {
        let (ty, size, class, n) = self.mem_type(true);
        let total = size * n;
        let (sym, space) = if constant {
            ("ctab", "const")
        } else {
            ("gtab", "global")
        };
        let g = self.guard();
        let dst = self.vec_dst(class, n);
        let v = Self::vprefix(n);
        if self.rng.chance(30) {
            // Direct symbol address with an aligned constant offset.
            let off = self.rng.below((64 / total) as u64) as u32 * total;
            return Stmt::Code(vec![format!("{g}ld.{space}{v}.{ty} {dst}, [{sym}+{off}];")]);
        }
        let mut lines = vec![format!("mov.u64 %td1, {sym};")];
        let mut space = format!(".{space}");
        if !constant && self.rng.chance(30) {
            lines.push("cvta.global.u64 %td1, %td1;".to_string());
            space.clear();
        }
        self.masked("%td1", 64 - total, &mut lines);
        lines.push(format!("{g}ld{space}{v}.{ty} {dst}, [%td0];"));
        Stmt::Code(lines)
    }

    /// A commutative atomic on the `atom` buffer (`red`, or `atom` into a scratch register).
    fn atomic(&mut self) -> Stmt {
        let kind = self.rng.below(ATOM_KINDS.len() as u64) as u32;
        let (op, ty, size) = ATOM_KINDS[kind as usize];
        let mut lines = Vec::new();
        // Sometimes with `.L2::cache_hint` and a policy from `createpolicy` (a hint: no
        // effect on the result).
        let (hint, policy) = if self.rng.chance(25) {
            self.policy_td1(&mut lines);
            (".L2::cache_hint", ", %td1")
        } else {
            ("", "")
        };
        let generic = self.rng.chance(25);
        let base = if generic { "%patm" } else { "%gatm" };
        self.masked(base, 64 - size, &mut lines);
        let space = if generic { "" } else { ".global" };
        let v = self.atom_value(ty, size, true, &mut lines);
        let g = self.guard();
        let off = kind * 64;
        if self.rng.chance(50) {
            lines.push(format!(
                "{g}red{space}.{op}{hint}.{ty} [%td0+{off}], {v}{policy};"
            ));
        } else {
            let scratch = atom_scratch(ty, size);
            lines.push(format!(
                "{g}atom{space}.{op}{hint}.{ty} {scratch}, [%td0+{off}], {v}{policy};"
            ));
        }
        Stmt::Code(lines)
    }

    /// The value operand of a commutative atomic of type `ty` (`size` bytes): a register or
    /// (with `imm_ok`) an immediate; for `f32`, a small integer `%tf` = `src & 3` converted
    /// (lines added to `lines`), so that the sums are exact and independent of the order.
    fn atom_value(&mut self, ty: &str, size: u32, imm_ok: bool, lines: &mut Vec<String>) -> String {
        if ty == "f32" {
            let src = self.src_reg(Class::B32);
            lines.push(format!("and.b32 %t1, {src}, 3;"));
            lines.push("cvt.rn.f32.u32 %tf, %t1;".to_string());
            return "%tf".to_string();
        }
        let class = if size == 8 { Class::B64 } else { Class::B32 };
        if imm_ok && self.rng.chance(25) {
            self.imm(class)
        } else {
            self.src_reg(class)
        }
    }

    /// An atomic on a cell of the thread's own `out` region (or own shared slot): any
    /// operation, and the old value goes into a data register.
    fn private_atomic_on(&mut self, base: &str, region: u32, space: &str) -> Stmt {
        const OPS: &[(&str, &str, u32, Class)] = &[
            ("add", "u32", 4, Class::B32),
            ("add", "u64", 8, Class::B64),
            ("add", "f32", 4, Class::F32),
            ("add", "f64", 8, Class::F64),
            ("exch", "b32", 4, Class::B32),
            ("exch", "b64", 8, Class::B64),
            ("cas", "b32", 4, Class::B32),
            ("cas", "b64", 8, Class::B64),
            ("inc", "u32", 4, Class::B32),
            ("dec", "u32", 4, Class::B32),
            ("min", "s32", 4, Class::B32),
            ("max", "u64", 8, Class::B64),
            ("and", "b32", 4, Class::B32),
            ("xor", "b64", 8, Class::B64),
        ];
        let (op, ty, size, class) = *self.rng.pick(OPS);
        let mut lines = Vec::new();
        self.masked(base, region - size, &mut lines);
        let g = self.guard();
        let dst = self.data_reg(class);
        let a = self.src_reg(class);
        if op == "cas" {
            let b = self.src_reg(class);
            lines.push(format!("{g}atom{space}.{op}.{ty} {dst}, [%td0], {a}, {b};"));
        } else {
            lines.push(format!("{g}atom{space}.{op}.{ty} {dst}, [%td0], {a};"));
        }
        Stmt::Code(lines)
    }

    fn private_atomic(&mut self) -> Stmt {
        if self.rng.chance(50) {
            self.private_atomic_on("%odp", 128, "")
        } else {
            self.private_atomic_on("%od", 128, ".global")
        }
    }

    /// A load or store on the thread's own shared slot, or a private shared atomic.
    fn shared_own(&mut self) -> Stmt {
        if self.rng.chance(25) {
            return self.private_atomic_on("%so", SHARED_SLOT, ".shared");
        }
        if self.rng.chance(20) {
            return self.async_copy();
        }
        let (ty, size, class, n) = self.mem_type(true);
        let total = size * n;
        let mut lines = Vec::new();
        self.masked("%so", SHARED_SLOT - total, &mut lines);
        // Generic, 64-bit shared, or 32-bit shared addressing.
        let (space, addr) = match self.rng.below(3) {
            0 => {
                lines.push("cvta.shared.u64 %td0, %td0;".to_string());
                ("", "%td0")
            }
            1 => {
                lines.push("cvt.u32.u64 %t2, %td0;".to_string());
                (".shared", "%t2")
            }
            _ => (".shared", "%td0"),
        };
        let g = self.guard();
        let v = Self::vprefix(n);
        if self.rng.chance(50) {
            let src = self.vec_src(class, n);
            lines.push(format!("{g}st{space}{v}.{ty} [{addr}], {src};"));
        } else {
            let dst = self.vec_dst(class, n);
            lines.push(format!("{g}ld{space}{v}.{ty} {dst}, [{addr}];"));
        }
        Stmt::Code(lines)
    }

    /// `cp.async` (PTX ISA §9.7.9.25.3) of 4, 8 or 16 bytes of the input buffer into the
    /// thread's own shared slot, sometimes with a smaller source size (the rest zero-filled),
    /// waited for at once (`cp.async.wait_all`, or `commit_group` + `wait_group 0`): the
    /// slot is written before any later access of the thread reads it.
    fn async_copy(&mut self) -> Stmt {
        let (cache, size) = *self
            .rng
            .pick(&[(".ca", 4u32), (".ca", 8), (".ca", 16), (".cg", 16)]);
        let mut lines = Vec::new();
        self.masked("%gin", IN_BYTES - size, &mut lines);
        let off = self.rng.below((SHARED_SLOT / size) as u64) as u32 * size;
        let src_size = if self.rng.chance(30) {
            format!(", {}", self.rng.below(size as u64 + 1))
        } else {
            String::new()
        };
        let g = self.guard();
        lines.push(format!(
            "{g}cp.async{cache}.shared.global [%so+{off}], [%td0], {size}{src_size};"
        ));
        if self.rng.chance(50) {
            lines.push("cp.async.wait_all;".to_string());
        } else {
            lines.push("cp.async.commit_group;".to_string());
            lines.push("cp.async.wait_group 0;".to_string());
        }
        Stmt::Code(lines)
    }

    /// A commutative atomic on the shared atomic area.
    fn shared_atomic(&mut self) -> Stmt {
        let kind = self.rng.below(ATOM_KINDS.len() as u64) as u32;
        let (op, ty, size) = ATOM_KINDS[kind as usize];
        let mut lines = Vec::new();
        self.masked("%sacc", 64 - size, &mut lines);
        let v = self.atom_value(ty, size, false, &mut lines);
        let g = self.guard();
        let off = kind * 64;
        if self.rng.chance(50) {
            lines.push(format!("{g}red.shared.{op}.{ty} [%td0+{off}], {v};"));
        } else {
            let scratch = atom_scratch(ty, size);
            lines.push(format!(
                "{g}atom.shared.{op}.{ty} {scratch}, [%td0+{off}], {v};"
            ));
        }
        Stmt::Code(lines)
    }

    /// A `shfl.sync`'s mode, destination (with its predicate in `pred_percent` of cases),
    /// source and lane operand (a constant lane in `const_lane_percent` of cases, else a
    /// register).
    fn shfl_operands(
        &mut self,
        pred_percent: u32,
        const_lane_percent: u32,
    ) -> (&'static str, String, String, String) {
        let mode = *self.rng.pick(&["up", "down", "bfly", "idx"]);
        let dst = if self.rng.chance(pred_percent) {
            let r = self.data_reg(Class::B32);
            let p = self.data_reg(Class::Pred);
            format!("{r}|{p}")
        } else {
            self.data_reg(Class::B32)
        };
        let a = self.src_reg(Class::B32);
        let b = if self.rng.chance(const_lane_percent) {
            format!("{}", self.rng.below(32))
        } else {
            self.src_reg(Class::B32)
        };
        (mode, dst, a, b)
    }

    /// `shfl.sync` with the full member mask (convergent code, full warps only).
    fn shfl(&mut self) -> Stmt {
        let (mode, dst, a, b) = self.shfl_operands(40, 60);
        let c = if self.rng.chance(70) {
            let v = *self
                .rng
                .pick(&[0x1fu32, 0, 0x1c1f, 0x181f, 0x101f, 0x1f00, 0x3, 0x1e1f]);
            format!("{v}")
        } else if self.rng.chance(50) {
            format!("{}", self.rng.below(0x2000))
        } else {
            self.src_reg(Class::B32)
        };
        let mask = self.rng.pick(&["-1", "0xFFFFFFFF"]);
        Stmt::Code(vec![format!(
            "shfl.sync.{mode}.b32 {dst}, {a}, {b}, {c}, {mask};"
        )])
    }

    /// A vote or shuffle among the lanes that run it (any control flow, divergent loops
    /// included): membermask `activemask`, or the full mask where `full_mask_ok`
    /// (convergent code, full warps). The shuffles' lane operands are constants or
    /// registers, so sources outside the membermask and out-of-range lanes both occur.
    fn warp_vote(&mut self, full_mask_ok: bool) -> Stmt {
        let mut lines = vec![];
        let mask = if full_mask_ok && self.rng.chance(30) {
            "-1".to_string()
        } else {
            lines.push("activemask.b32 %t2;".to_string());
            "%t2".to_string()
        };
        match self.rng.below(if self.sm90 { 6 } else { 5 }) {
            0 => {
                let mode = *self.rng.pick(&["all", "any", "uni"]);
                let d = self.data_reg(Class::Pred);
                let a = self.src_reg(Class::Pred);
                let not = if self.rng.chance(30) { "!" } else { "" };
                lines.push(format!("vote.sync.{mode}.pred {d}, {not}{a}, {mask};"));
            }
            1 => {
                let d = self.data_reg(Class::B32);
                let a = self.src_reg(Class::Pred);
                lines.push(format!("vote.sync.ballot.b32 {d}, {a}, {mask};"));
            }
            3 => {
                // `redux.sync` (§9.7.13.12, sm_80).
                let (op, ty) = *self.rng.pick(&[
                    ("add", "u32"),
                    ("add", "s32"),
                    ("min", "u32"),
                    ("min", "s32"),
                    ("max", "u32"),
                    ("max", "s32"),
                    ("and", "b32"),
                    ("or", "b32"),
                    ("xor", "b32"),
                ]);
                let d = self.data_reg(Class::B32);
                let a = self.src_reg(Class::B32);
                lines.push(format!("redux.sync.{op}.{ty} {d}, {a}, {mask};"));
            }
            4 => {
                // `match.sync` (§9.7.13.10): the lanes holding the same value.
                let (ty, class) = *self.rng.pick(&[("b32", Class::B32), ("b64", Class::B64)]);
                let a = self.src_reg(class);
                let d = self.data_reg(Class::B32);
                if self.rng.chance(50) {
                    lines.push(format!("match.any.sync.{ty} {d}, {a}, {mask};"));
                } else {
                    let p = self.data_reg(Class::Pred);
                    lines.push(format!("match.all.sync.{ty} {d}|{p}, {a}, {mask};"));
                }
            }
            5 => {
                // `elect.sync` (§9.7.13.14, sm_90): the lowest lane of the membermask.
                let d = self.data_reg(Class::B32);
                let p = self.data_reg(Class::Pred);
                lines.push(format!("elect.sync {d}|{p}, {mask};"));
            }
            _ => {
                let (mode, dst, a, b) = self.shfl_operands(50, 75);
                let c = *self
                    .rng
                    .pick(&[0x1fu32, 0, 0x1c1f, 0x181f, 0x101f, 0x1f00, 0x3]);
                lines.push(format!(
                    "shfl.sync.{mode}.b32 {dst}, {a}, {b}, {c}, {mask};"
                ));
            }
        }
        Stmt::Code(lines)
    }

    /// A shared-memory exchange between threads of the CTA.
    fn exchange(&mut self) -> Stmt {
        let (ty, size, class) = *self.rng.pick(&[
            ("u32", 4u32, Class::B32),
            ("f32", 4, Class::F32),
            ("u64", 8, Class::B64),
            ("f64", 8, Class::F64),
        ]);
        let slot_off = self.rng.below((SHARED_SLOT / size) as u64) as u32 * size;
        let src = self.src_reg(class);
        let store = vec![format!("st.shared.{ty} [%so+{slot_off}], {src};")];
        let who = self.src_reg(Class::B32);
        let within = self.src_reg(Class::B32);
        let mut load = vec![
            format!("rem.u32 %t0, {who}, {};", self.nt),
            "shl.b32 %t0, %t0, 5;".to_string(),
            format!("and.b32 %t1, {within}, {};", SHARED_SLOT - size),
            "add.u32 %t0, %t0, %t1;".to_string(),
            "cvt.u64.u32 %td0, %t0;".to_string(),
            "add.s64 %td0, %sb, %td0;".to_string(),
        ];
        let dst = self.data_reg(class);
        if self.rng.chance(30) {
            load.push("cvta.shared.u64 %td0, %td0;".to_string());
            load.push(format!("ld.{ty} {dst}, [%td0];"));
        } else {
            load.push(format!("ld.shared.{ty} {dst}, [%td0];"));
        }
        Stmt::Exchange { store, load }
    }

    /// A shared-memory exchange inside the warp, between the lanes that run it (any control
    /// flow, divergent loops included): `activemask`; store to the own slot; (full warps, at
    /// times) a load of another lane's slot *before* the warp synchronizes, whose value
    /// depends on the order of the warp's lanes (`analysis::segment`: group-major for the
    /// generated `sm_80` kernels, lockstep with `--lockstep`), which both engines must
    /// follow alike; `bar.warp.sync` on the active lanes; a load of the lowest or highest
    /// active lane's slot (ordered after its store by the warp synchronization);
    /// `bar.warp.sync` again, so later stores do not race with the load.
    fn warp_exchange(&mut self) -> Stmt {
        let (ty, class, off, src) = self.slot_word();
        let mut lines = vec![
            "activemask.b32 %t2;".to_string(),
            format!("st.shared.{ty} [%so+{off}], {src};"),
        ];
        // `%td0` = `%so` + 32 · (lane `%t0` − own lane): lane `%t0`'s slot.
        let slot_of_t0 = |lines: &mut Vec<String>| {
            lines.push("sub.s32 %t0, %t0, %ln;".to_string());
            lines.push(format!("mul.wide.s32 %td0, %t0, {SHARED_SLOT};"));
            lines.push("add.s64 %td0, %so, %td0;".to_string());
        };
        if self.full_warps && self.rng.chance(50) {
            // Racy on purpose: the neighbour may not have stored yet.
            let d = self.rng.range(1, 31);
            lines.push(format!("add.u32 %t0, %ln, {d};"));
            lines.push("and.b32 %t0, %t0, 31;".to_string());
            slot_of_t0(&mut lines);
            let dst = self.data_reg(class);
            lines.push(format!("ld.volatile.shared.{ty} {dst}, [%td0+{off}];"));
        }
        lines.push("bar.warp.sync %t2;".to_string());
        if self.rng.chance(50) {
            // The lowest active lane: 31 − clz(m & −m).
            lines.push("neg.s32 %t0, %t2;".to_string());
            lines.push("and.b32 %t0, %t0, %t2;".to_string());
            lines.push("clz.b32 %t0, %t0;".to_string());
        } else {
            lines.push("clz.b32 %t0, %t2;".to_string());
        }
        lines.push("sub.u32 %t0, %t0, 31;".to_string());
        lines.push("neg.s32 %t0, %t0;".to_string());
        slot_of_t0(&mut lines);
        let dst = self.data_reg(class);
        lines.push(format!("ld.shared.{ty} {dst}, [%td0+{off}];"));
        lines.push("bar.warp.sync %t2;".to_string());
        Stmt::Code(lines)
    }

    /// Loads through the CTA-uniform address roots `%ur0..%ur3` that the prologue computes
    /// in the kernel's first block ([`UNIFORM_ROOTS`]), after a warp operation (`shfl.sync`
    /// with the full mask where `full_mask_ok`, else `vote.sync` or `bar.warp.sync` on the
    /// `activemask` lanes): the roots must stay in the warp state across warp operations and
    /// into later blocks, and be used as addresses with constant offsets (`[%ur1+8]`), directly
    /// or through another `root + constant` link. This is the shape of values the JIT
    /// computes once before its warp loop (`jit/preloop.rs`) and its access planners reach
    /// through `root + constant` chains.
    fn uniform_root(&mut self, full_mask_ok: bool) -> Stmt {
        let mut lines = vec![];
        match self.rng.below(3) {
            0 if full_mask_ok => {
                let (d, a) = (self.data_reg(Class::B32), self.src_reg(Class::B32));
                let lane = self.rng.below(32);
                lines.push(format!("shfl.sync.idx.b32 {d}, {a}, {lane}, 31, -1;"));
            }
            1 => {
                let (d, a) = (self.data_reg(Class::Pred), self.src_reg(Class::Pred));
                lines.push("activemask.b32 %t2;".to_string());
                lines.push(format!("vote.sync.any.pred {d}, {a}, %t2;"));
            }
            _ => {
                lines.push("activemask.b32 %t2;".to_string());
                lines.push("bar.warp.sync %t2;".to_string());
            }
        }
        for _ in 0..self.rng.range(1, 3) {
            let &(root, room) = self.rng.pick(UNIFORM_ROOTS);
            let (ty, size, class) = *self.rng.pick(&[
                ("u32", 4u32, Class::B32),
                ("f32", 4, Class::F32),
                ("u64", 8, Class::B64),
                ("f64", 8, Class::F64),
            ]);
            let slots = u64::from((room - size) / size + 1);
            let off = self.rng.below(slots) as u32 * size;
            let dst = self.data_reg(class);
            if off >= 8 && self.rng.chance(40) {
                // Another `root + constant` link, then the rest as the access's offset.
                let link = self.rng.below(u64::from(off / 8) + 1) as u32 * 8;
                lines.push(format!("add.s64 %td1, {root}, {link};"));
                lines.push(format!("ld.global.{ty} {dst}, [%td1+{}];", off - link));
            } else {
                lines.push(format!("ld.global.{ty} {dst}, [{root}+{off}];"));
            }
        }
        Stmt::Code(lines)
    }

    /// A word for a warp exchange through the own shared slot: its type, register class,
    /// offset in the slot (aligned) and a source register.
    fn slot_word(&mut self) -> (&'static str, Class, u32, String) {
        let (ty, size, class) = *self.rng.pick(&[
            ("u32", 4u32, Class::B32),
            ("f32", 4, Class::F32),
            ("u64", 8, Class::B64),
        ]);
        let off = self.rng.below((SHARED_SLOT / size) as u64) as u32 * size;
        let src = self.src_reg(class);
        (ty, class, off, src)
    }

    /// A race across the blocks of a region (`analysis::region`): a store to the own shared
    /// slot inside a divergent `if`, then, after the join and before `bar.warp.sync` on the
    /// lanes active before the `if`, a `volatile` load of a neighbour lane's slot. Whether the
    /// neighbour has stored yet depends on the order of the warp's lanes across blocks
    /// (group by group through a region for the generated `sm_80` kernels, block by block
    /// with `--lockstep`), which both engines must follow alike.
    fn region_race(&mut self) -> Stmt {
        let (ty, class, off, src) = self.slot_word();
        let store = Stmt::Code(vec![format!("st.shared.{ty} [%so+{off}], {src};")]);
        let cond = self.divergent_cond();
        let d = self.rng.range(1, 31);
        let dst = self.data_reg(class);
        let post = vec![
            format!("add.u32 %t0, %ln, {d};"),
            "and.b32 %t0, %t0, 31;".to_string(),
            "sub.s32 %t0, %t0, %ln;".to_string(),
            format!("mul.wide.s32 %td0, %t0, {SHARED_SLOT};"),
            "add.s64 %td0, %so, %td0;".to_string(),
            format!("ld.volatile.shared.{ty} {dst}, [%td0+{off}];"),
            "bar.warp.sync %t2;".to_string(),
        ];
        // An `if` every lane takes holds the sequence together (the shrinker edits trees).
        Stmt::If {
            cond: Cond {
                setup: vec!["setp.eq.u32 %pu, %ln, %ln;".to_string()],
                pred: "%pu".to_string(),
                negated: false,
            },
            then: vec![
                Stmt::Code(vec!["activemask.b32 %t2;".to_string()]),
                Stmt::If {
                    cond,
                    then: vec![store],
                    els: vec![],
                },
                Stmt::Code(post),
            ],
            els: vec![],
        }
    }

    /// Fences, prefetches and `isspacep`.
    fn misc(&mut self) -> Stmt {
        match self.rng.below(5) {
            3 => {
                // The lanes running here (the schedule, which both engines follow alike),
                // or the warps per CTA the implementation has.
                let d = self.data_reg(Class::B32);
                let what = if self.rng.chance(70) {
                    format!("activemask.b32 {d};")
                } else {
                    format!("mov.u32 {d}, %nwarpid;")
                };
                Stmt::Code(vec![what])
            }
            4 if self.sm90 && self.rng.chance(50) => {
                // `cp.async.bulk.prefetch` (§9.7.9.25.4.3): a cache hint, no effect on results.
                let bytes = *self.rng.pick(&[16u32, 32, 64, 256]);
                let mut lines = Vec::new();
                self.masked("%gin", (IN_BYTES - bytes) & !15, &mut lines);
                lines.push(format!("cp.async.bulk.prefetch.L2.global [%td0], {bytes};"));
                Stmt::Code(lines)
            }
            4 if self.sm90 => Stmt::Code(vec![self
                .rng
                .pick(&[
                    "fence.proxy.async;",
                    "fence.proxy.async.shared::cta;",
                    "fence.proxy.async.global;",
                ])
                .to_string()]),
            0 => Stmt::Code(vec![self
                .rng
                .pick(&[
                    "membar.gl;",
                    "membar.cta;",
                    "membar.sys;",
                    "fence.acq_rel.gpu;",
                    "fence.sc.cta;",
                ])
                .to_string()]),
            1 | 4 => {
                let mut lines = Vec::new();
                self.masked("%gin", IN_BYTES - 4, &mut lines);
                lines.push("prefetch.global.L2 [%td0];".to_string());
                Stmt::Code(lines)
            }
            _ => {
                let p = self.data_reg(Class::Pred);
                let mut ptrs = vec!["%pin", "%pout", "%lgen"];
                if self.shared {
                    ptrs.push("%sgen");
                }
                let ptr = *self.rng.pick(&ptrs);
                let space = self.rng.pick(&["global", "shared", "local"]);
                Stmt::Code(vec![format!("isspacep.{space} {p}, {ptr};")])
            }
        }
    }

    /// A vector register (one of [`VECTOR_REGS`], PTX ISA §5.4.2.1): loaded whole from the
    /// input buffer, then its components (`%vv.x` … `%vv.w`) written and read by scalar
    /// instructions, and at times stored whole into the thread's region of `out`.
    fn vector_reg(&mut self) -> Stmt {
        let (reg, ty, class, comps, ops) = *self.rng.pick(VECTOR_REGS);
        let mut lines = Vec::new();
        self.masked("%gin", IN_BYTES / 2 - 16, &mut lines);
        let v = comps.len();
        lines.push(format!("ld.global.v{v}.{ty} {reg}, [%td0];"));
        for _ in 0..self.rng.range(1, 3) {
            let c = self.rng.pick(comps);
            match self.rng.below(3) {
                0 => {
                    let src = self.src_reg(class);
                    lines.push(format!("mov.{ty} {reg}.{c}, {src};"));
                }
                1 => {
                    let d = self.data_reg(class);
                    lines.push(format!("mov.{ty} {d}, {reg}.{c};"));
                }
                _ => {
                    let op = self.rng.pick(ops);
                    let d = self.data_reg(class);
                    let c2 = self.rng.pick(comps);
                    lines.push(format!("{op} {d}, {reg}.{c}, {reg}.{c2};"));
                }
            }
        }
        if self.rng.chance(40) {
            self.masked("%od", 64 - 16, &mut lines);
            let off = self.rng.pick(&[0, 32, 64]);
            lines.push(format!("st.global.v{v}.{ty} [%td0+{off}], {reg};"));
        }
        Stmt::Code(lines)
    }

    // ---- barriers, carry chains, calls, sm_90 synchronization --------------------------------

    /// `bar.sync`/`barrier.sync` on barrier 0, or (full warps: the count is a multiple of the
    /// warp size) on barrier 0 to 3 with the CTA's thread count (`$NT$`, filled in at render
    /// time, so it follows the shrinker's block size).
    fn barrier(&mut self) -> Stmt {
        let op = *self.rng.pick(&[
            "bar.sync",
            "barrier.sync",
            "barrier.sync.aligned",
            "bar.cta.sync",
        ]);
        if self.full_warps && self.rng.chance(40) {
            let id = self.rng.below(4);
            return Stmt::Barrier(format!("{op} {id}, $NT$;"));
        }
        Stmt::Barrier(format!("{op} 0;"))
    }

    /// `bar.red` (PTX ISA §9.7.13.1): `popc` of a predicate over the CTA, or its `and`/`or`,
    /// on barrier 0 to 3 (with the thread count where every warp is full).
    fn barrier_red(&mut self) -> Stmt {
        let id = self.rng.below(4);
        let count = if self.full_warps && self.rng.chance(30) {
            ", $NT$"
        } else {
            ""
        };
        let op = *self.rng.pick(&["bar.red", "barrier.red", "bar.cta.red"]);
        let not = if self.rng.chance(30) { "!" } else { "" };
        let c = self.src_reg(Class::Pred);
        let line = match self.rng.below(3) {
            0 => {
                let d = self.data_reg(Class::B32);
                format!("{op}.popc.u32 {d}, {id}{count}, {not}{c};")
            }
            k => {
                let d = self.data_reg(Class::Pred);
                let red = if k == 1 { "and" } else { "or" };
                format!("{op}.{red}.pred {d}, {id}{count}, {not}{c};")
            }
        };
        Stmt::Code(vec![line])
    }

    /// Producer and consumer warps (PTX ISA §9.7.13.1's `bar.arrive` example): every thread
    /// stores to its shared slot; warp 0 (the producers, `%tl < 32`) passes `bar.arrive` on
    /// barrier 1 to 3 with the CTA's thread count, the other warps wait in `bar.sync` on it and
    /// then read a producer's slot; a `bar.sync 0` ends it (no later store races with the
    /// reads). Predicated barriers, warp-uniform predicates.
    fn arrive_sync(&mut self) -> Stmt {
        let (ty, class, off, src) = self.slot_word();
        let id = self.rng.range(1, 3);
        let who = self.src_reg(Class::B32);
        let dst = self.data_reg(class);
        let (arrive, sync) = *self.rng.pick(&[
            ("bar.arrive", "bar.sync"),
            ("barrier.arrive", "barrier.sync"),
            ("bar.cta.arrive", "barrier.sync.aligned"),
        ]);
        Stmt::Code(vec![
            format!("st.shared.{ty} [%so+{off}], {src};"),
            "setp.lt.u32 %pb, %tl, 32;".to_string(),
            format!("@%pb {arrive} {id}, $NT$;"),
            format!("@!%pb {sync} {id}, $NT$;"),
            format!("and.b32 %t0, {who}, 31;"),
            format!("mul.wide.u32 %td0, %t0, {SHARED_SLOT};"),
            "add.s64 %td0, %sb, %td0;".to_string(),
            format!("@!%pb ld.shared.{ty} {dst}, [%td0+{off}];"),
            "bar.sync 0;".to_string(),
        ])
    }

    /// An extended-precision chain (PTX ISA §9.7.2): `add.cc`/`sub.cc`/`mad.lo.cc`/`mad.hi.cc`
    /// sets the carry flag, then one to three `addc`/`subc`/`madc` (the last one may leave the
    /// flag alone), all of one type. No guards: every link runs, so the flag a link reads is
    /// always the one its predecessor set.
    fn carry_chain(&mut self) -> Stmt {
        let (ty, class) = *self.rng.pick(&[
            ("u32", Class::B32),
            ("s32", Class::B32),
            ("u64", Class::B64),
            ("s64", Class::B64),
        ]);
        let n = self.rng.range(2, 4);
        let mut lines = Vec::new();
        for i in 0..n {
            let kind = self.rng.below(4);
            let cc = if i + 1 == n && self.rng.chance(50) {
                ""
            } else {
                ".cc"
            };
            let op = match (i == 0, kind) {
                (true, 0) => "add.cc".to_string(),
                (true, 1) => "sub.cc".to_string(),
                (true, 2) => "mad.lo.cc".to_string(),
                (true, _) => "mad.hi.cc".to_string(),
                (false, 0) => format!("addc{cc}"),
                (false, 1) => format!("subc{cc}"),
                (false, 2) => format!("madc.lo{cc}"),
                (false, _) => format!("madc.hi{cc}"),
            };
            let d = self.data_reg(class);
            let a = self.src_reg(class);
            let last = if self.rng.chance(30) {
                self.imm(class)
            } else {
                self.src_reg(class)
            };
            if kind >= 2 {
                let b = self.src_reg(class);
                lines.push(format!("{op}.{ty} {d}, {a}, {b}, {last};"));
            } else {
                lines.push(format!("{op}.{ty} {d}, {a}, {last};"));
            }
        }
        Stmt::Code(lines)
    }

    /// The middle part of a device function (PTX ISA §9.7.12.5): straight-line `.b32`
    /// arithmetic on [`FUNC_REGS`], at times a branch around some of it (divergent where the
    /// caller's lanes differ) and a warp reduction or ballot on the `activemask` lanes (the
    /// caller's lanes that run the call).
    fn func_body(&mut self) -> Vec<String> {
        const OPS: &[&str] = &[
            "add.u32",
            "sub.u32",
            "mul.lo.u32",
            "mul.hi.s32",
            "xor.b32",
            "and.b32",
            "or.b32",
            "min.u32",
            "max.s32",
            "shl.b32",
            "shr.u32",
            "shr.s32",
            "rem.u32",
            "div.s32",
        ];
        let mut lines = Vec::new();
        let mut labels = 0;
        let n = self.rng.range(2, 8);
        for _ in 0..n {
            match self.rng.below(8) {
                0 => {
                    labels += 1;
                    let (a, b) = (self.rng.pick(FUNC_REGS), self.rng.pick(FUNC_REGS));
                    lines.push(format!("setp.lt.u32 %qp, {a}, {b};"));
                    lines.push(format!("@%qp bra $L__fzf_{labels};"));
                    let (d, a) = (self.rng.pick(FUNC_REGS), self.rng.pick(FUNC_REGS));
                    lines.push(format!("popc.b32 {d}, {a};"));
                    lines.push(format!("$L__fzf_{labels}:"));
                }
                1 => {
                    let (a, d) = (self.rng.pick(FUNC_REGS), self.rng.pick(FUNC_REGS));
                    lines.push("activemask.b32 %q3;".to_string());
                    if self.rng.chance(50) {
                        lines.push(format!("redux.sync.add.u32 {d}, {a}, %q3;"));
                    } else {
                        lines.push(format!("setp.ne.u32 %qp, {a}, 0;"));
                        lines.push(format!("vote.sync.ballot.b32 {d}, %qp, %q3;"));
                    }
                }
                _ => {
                    let op = self.rng.pick(OPS);
                    let (d, a) = (self.rng.pick(FUNC_REGS), self.rng.pick(FUNC_REGS));
                    let b = if self.rng.chance(30) {
                        self.int_imm(32)
                    } else {
                        self.rng.pick(FUNC_REGS).to_string()
                    };
                    lines.push(format!("{op} {d}, {a}, {b};"));
                }
            }
        }
        lines
    }

    /// A call of `fz_f0` (`.param` arguments and return value, in a `{ }` scope as nvcc
    /// writes them) or `fz_f1` (`.reg` arguments and return value), `call.uni` where the
    /// control flow is CTA-uniform and no lane has left.
    fn call(&mut self, ctx: Ctx) -> Stmt {
        let uni = if ctx.uniform && !self.exited && self.rng.chance(50) {
            ".uni"
        } else {
            ""
        };
        let d = self.data_reg(Class::B32);
        if self.rng.chance(50) {
            let (a, b) = (self.src_reg(Class::B32), self.src_reg(Class::B32));
            Stmt::Code(vec![
                "{".to_string(),
                ".param .b32 fz_pa;".to_string(),
                ".param .b32 fz_pb;".to_string(),
                ".param .b32 fz_pr;".to_string(),
                format!("st.param.b32 [fz_pa], {a};"),
                format!("st.param.b32 [fz_pb], {b};"),
                format!("call{uni} (fz_pr), fz_f0, (fz_pa, fz_pb);"),
                format!("ld.param.b32 {d}, [fz_pr];"),
                "}".to_string(),
            ])
        } else {
            let (a, b) = (self.src_reg(Class::B64), self.src_reg(Class::B32));
            Stmt::Code(vec![format!("call{uni} ({d}), fz_f1, ({a}, {b});")])
        }
    }

    /// `brx.idx` over two to four arms on an index per lane, or a CTA-uniform one
    /// (`brx.idx.uni`; the arms are then as uniform as the code around).
    fn switch(&mut self, ctx: Ctx) -> Stmt {
        let n = self.rng.range(2, 4) as usize;
        let uniform = ctx.uniform && self.rng.chance(40);
        let src = if uniform {
            let mut srcs: Vec<String> = UNIFORM_FIXED.iter().map(|s| s.to_string()).collect();
            for (level, &u) in self.counters.iter().enumerate() {
                if u {
                    srcs.push(format!("%lc{level}"));
                }
            }
            self.rng.pick(&srcs).clone()
        } else if self.rng.chance(50) {
            self.rng.pick(&["%tl", "%ln", "%gl"]).to_string()
        } else {
            self.data_reg(Class::B32)
        };
        let inner = Ctx {
            uniform,
            depth: ctx.depth + 1,
        };
        let arms = (0..n).map(|_| self.block(inner, 3)).collect();
        Stmt::Switch {
            setup: vec![format!("rem.u32 %t0, {src}, {n};")],
            uniform,
            arms,
        }
    }

    /// An `mbarrier` wait (PTX ISA §9.7.13.15.16) for the phase the thread just arrived
    /// on: `try_wait.parity` on the CTA-uniform phase parity `%mbp`, or `try_wait`/`test_wait`
    /// on the arrive's state `%tdm`, in a loop; then `%mbp` flips.
    fn mbarrier_wait(&mut self, lines: &mut Vec<String>, tag: &str) {
        self.mbarrier_wait_by(lines, tag, false);
    }

    /// As [`Gen::mbarrier_wait`]; with `parity_only` always by the phase parity (the thread
    /// did not arrive itself, so `%tdm` holds an older phase's state).
    fn mbarrier_wait_by(&mut self, lines: &mut Vec<String>, tag: &str, parity_only: bool) {
        let wait = match if parity_only { 0 } else { self.rng.below(3) } {
            0 => "mbarrier.try_wait.parity.shared::cta.b64 %pb, [fz_mbar], %mbp;",
            1 => "mbarrier.try_wait.shared::cta.b64 %pb, [fz_mbar], %tdm;",
            _ => "mbarrier.test_wait.shared.b64 %pb, [fz_mbar], %tdm;",
        };
        lines.push(format!("$L__mw$ID${tag}:"));
        lines.push(wait.to_string());
        lines.push(format!("@!%pb bra $L__mw$ID${tag};"));
        lines.push("xor.b32 %mbp, %mbp, 1;".to_string());
    }

    fn mbarrier_arrive(&mut self) -> String {
        self.rng
            .pick(&[
                "mbarrier.arrive.shared::cta.b64 %tdm, [fz_mbar];",
                "mbarrier.arrive.shared.b64 %tdm, [fz_mbar];",
                "mbarrier.arrive.release.cta.shared::cta.b64 %tdm, [fz_mbar];",
            ])
            .to_string()
    }

    /// A CTA-wide exchange through the `mbarrier` `fz_mbar` (`sm_90`; initialised in the
    /// prologue for all the CTA's threads): with shared memory, a store to the own slot (or a
    /// `cp.async` of 16 input bytes into it whose completion `cp.async.mbarrier.arrive`
    /// (§9.7.13.15.15) ties to the phase: without `.noinc` a net-zero pending count, the
    /// thread still arrives itself; with `.noinc` that arrival is the thread's only one, and
    /// it waits by parity); every thread arrives and waits for the phase; a load of any
    /// thread's slot; a second phase (so no later store races with the load).
    fn mbarrier(&mut self) -> Stmt {
        let mut lines = Vec::new();
        let exchange = self.shared && self.rng.chance(80);
        let mut load = Vec::new();
        let mut noinc = false;
        if exchange {
            let (ty, class, off, src) = self.slot_word();
            if self.rng.chance(30) {
                self.masked("%gin", IN_BYTES - 16, &mut lines);
                let cache = self.rng.pick(&["ca", "cg"]);
                lines.push(format!(
                    "cp.async.{cache}.shared.global [%so+{}], [%td0], 16;",
                    off & !15
                ));
                // The word and the state space are picked apart: the wait below must
                // follow the form actually written (with `.noinc` the thread does not
                // arrive itself).
                noinc = self.rng.chance(50);
                let word = if noinc { ".noinc" } else { "" };
                let space = *self.rng.pick(&[".shared::cta", ".shared", ""]);
                lines.push(format!(
                    "cp.async.mbarrier.arrive{word}{space}.b64 [fz_mbar];"
                ));
            } else {
                lines.push(format!("st.shared.{ty} [%so+{off}], {src};"));
            }
            let who = self.src_reg(Class::B32);
            let dst = self.data_reg(class);
            load = vec![
                format!("rem.u32 %t0, {who}, $NT$;"),
                format!("mul.wide.u32 %td0, %t0, {SHARED_SLOT};"),
                "add.s64 %td0, %sb, %td0;".to_string(),
                format!("ld.shared.{ty} {dst}, [%td0+{off}];"),
            ];
        }
        if !noinc {
            let arrive = self.mbarrier_arrive();
            lines.push(arrive);
        }
        self.mbarrier_wait_by(&mut lines, "a", noinc);
        if exchange {
            lines.extend(load);
            let arrive = self.mbarrier_arrive();
            lines.push(arrive);
            self.mbarrier_wait(&mut lines, "b");
        }
        Stmt::Code(lines)
    }

    /// `cp.async.bulk` (PTX ISA §9.7.9.25.4.1, `sm_90`) of 16 to 256 bytes of the input
    /// buffer into the shared `fz_bulk`, completing on `fz_mbar`: thread 0 arrives with the
    /// expected transaction bytes and issues the copy, the others arrive; all wait for the
    /// phase, read from the copied bytes, and pass `bar.sync 0` before another copy may
    /// overwrite them.
    fn bulk_copy(&mut self) -> Stmt {
        let bytes = *self.rng.pick(&[16u32, 32, 64, 128, 256]);
        let mut srcs: Vec<String> = UNIFORM_FIXED.iter().map(|s| s.to_string()).collect();
        for (level, &u) in self.counters.iter().enumerate() {
            if u {
                srcs.push(format!("%lc{level}"));
            }
        }
        let src = self.rng.pick(&srcs).clone();
        let mut lines = vec![
            format!("and.b32 %t0, {src}, {};", (IN_BYTES - bytes) & !15),
            "cvt.u64.u32 %td1, %t0;".to_string(),
            "add.s64 %td1, %gin, %td1;".to_string(),
            "setp.eq.u32 %pb, %tl, 0;".to_string(),
            "@%pb fence.proxy.async.shared::cta;".to_string(),
        ];
        if self.rng.chance(50) {
            lines.push(format!(
                "@%pb mbarrier.arrive.expect_tx.shared::cta.b64 %tdm, [fz_mbar], {bytes};"
            ));
            lines.push("@!%pb mbarrier.arrive.shared::cta.b64 %tdm, [fz_mbar];".to_string());
        } else {
            lines.push(format!(
                "@%pb mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [fz_mbar], {bytes};"
            ));
            lines.push("mbarrier.arrive.shared::cta.b64 %tdm, [fz_mbar];".to_string());
        }
        lines.push(format!(
            "@%pb cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [fz_bulk], [%td1], {bytes}, [fz_mbar];"
        ));
        self.mbarrier_wait(&mut lines, "c");
        for _ in 0..self.rng.range(1, 2) {
            let (ty, size, class) = *self.rng.pick(&[
                ("u32", 4u32, Class::B32),
                ("f32", 4, Class::F32),
                ("u64", 8, Class::B64),
                ("u16", 2, Class::B16),
            ]);
            let within = self.src_reg(Class::B32);
            let dst = self.data_reg(class);
            lines.push("mov.u64 %td0, fz_bulk;".to_string());
            lines.push(format!("and.b32 %t0, {within}, {};", bytes - size));
            lines.push("cvt.u64.u32 %td1, %t0;".to_string());
            lines.push("add.s64 %td0, %td0, %td1;".to_string());
            lines.push(format!("ld.shared.{ty} {dst}, [%td0];"));
        }
        lines.push("bar.sync 0;".to_string());
        Stmt::Code(lines)
    }

    /// Phases of `fz_mbar` with fewer arrivals than threads (`sm_90`, CTA-uniform control
    /// flow, every thread waiting by the phase parity `%mbp`): either the even threads arrive
    /// in a divergent branch with a count of two each (one for the last thread of an odd
    /// CTA), or thread 0 arrives with `.noComplete` and a count of half the CTA, reads the
    /// pending count of its state (determined: it arrives alone before a `bar.sync 0`), and
    /// the threads 1 ..= `$NT$` - count arrive once each. With shared memory, the phase orders
    /// a store to the own slot before a load of any slot, and a second (ordinary) phase
    /// follows.
    fn mbarrier_count(&mut self) -> Stmt {
        let mut lines = Vec::new();
        let exchange = self.shared && self.rng.chance(70);
        let mut load = Vec::new();
        if exchange {
            let (ty, class, off, src) = self.slot_word();
            lines.push(format!("st.shared.{ty} [%so+{off}], {src};"));
            let who = self.src_reg(Class::B32);
            let dst = self.data_reg(class);
            load = vec![
                format!("rem.u32 %t0, {who}, $NT$;"),
                format!("mul.wide.u32 %td0, %t0, {SHARED_SLOT};"),
                "add.s64 %td0, %sb, %td0;".to_string(),
                format!("ld.shared.{ty} {dst}, [%td0+{off}];"),
            ];
        }
        let arrive = if self.rng.chance(50) {
            "mbarrier.arrive.shared::cta.b64"
        } else {
            "mbarrier.arrive.release.cta.shared::cta.b64"
        };
        if self.nt >= 2 && self.rng.chance(50) {
            let dst = self.data_reg(Class::B32);
            lines.extend([
                "setp.eq.u32 %pb, %tl, 0;".to_string(),
                "mov.u32 %t1, $NT$;".to_string(),
                "shr.u32 %t1, %t1, 1;".to_string(),
                "@%pb mbarrier.arrive.noComplete.shared::cta.b64 %tdm, [fz_mbar], %t1;".to_string(),
                format!("@%pb mbarrier.pending_count.b64 {dst}, %tdm;"),
                "bar.sync 0;".to_string(),
                "mov.u32 %t2, $NT$;".to_string(),
                "sub.u32 %t1, %t2, %t1;".to_string(),
                "setp.eq.u32 %pb, %tl, 0;".to_string(),
                "setp.gt.or.u32 %pb, %tl, %t1, %pb;".to_string(),
                format!("@!%pb {arrive} %tdm, [fz_mbar];"),
            ]);
        } else {
            lines.extend([
                "and.b32 %t0, %tl, 1;".to_string(),
                "setp.ne.u32 %pb, %t0, 0;".to_string(),
                "@%pb bra $L__mc$ID$;".to_string(),
                "mov.u32 %t1, $NT$;".to_string(),
                "sub.u32 %t1, %t1, %tl;".to_string(),
                "min.u32 %t1, %t1, 2;".to_string(),
                format!("{arrive} %tdm, [fz_mbar], %t1;"),
                "$L__mc$ID$:".to_string(),
            ]);
        }
        lines.push("$L__mw$ID$a:".to_string());
        lines.push("mbarrier.try_wait.parity.shared::cta.b64 %pb, [fz_mbar], %mbp;".to_string());
        lines.push("@!%pb bra $L__mw$ID$a;".to_string());
        lines.push("xor.b32 %mbp, %mbp, 1;".to_string());
        if exchange {
            lines.extend(load);
            let arrive = self.mbarrier_arrive();
            lines.push(arrive);
            self.mbarrier_wait(&mut lines, "b");
        }
        Stmt::Code(lines)
    }

    /// `mbarrier.arrive_drop` (PTX ISA §9.7.13.15.13, `sm_90`) on the second mbarrier
    /// `fz_mbd` (CTA-uniform control flow before any exit): thread 0 initialises it for all
    /// the CTA's threads and `bar.sync 0` follows; the threads where a divergent condition
    /// holds (never thread 0) drop out while arriving, the others arrive; all wait for the
    /// phase by its parity. At times a second phase follows (after a `bar.sync 0`, so that no
    /// thread is still waiting for the first by its parity), which only the threads that did
    /// not drop complete (its count is the CTA's threads less the dropped ones). After a
    /// `bar.sync 0` thread 0 invalidates the object (`mbarrier.inval`) for the next
    /// initialisation.
    fn mbarrier_drop(&mut self) -> Stmt {
        let cond = self.divergent_cond();
        let mut lines = vec![
            "setp.eq.u32 %pb, %tl, 0;".to_string(),
            "@%pb mbarrier.init.shared::cta.b64 [fz_mbd], $NT$;".to_string(),
            "bar.sync 0;".to_string(),
        ];
        lines.extend(cond.setup.iter().cloned());
        let bang = if cond.negated { "!" } else { "" };
        lines.push(format!("setp.ne.and.u32 %pu, %tl, 0, {bang}{};", cond.pred));
        let drop = *self.rng.pick(&[
            "mbarrier.arrive_drop.shared::cta.b64",
            "mbarrier.arrive_drop.release.cta.shared::cta.b64",
            "mbarrier.arrive_drop.shared.b64",
        ]);
        lines.push(format!("@%pu {drop} %tdm, [fz_mbd];"));
        lines.push("@!%pu mbarrier.arrive.shared::cta.b64 %tdm, [fz_mbd];".to_string());
        let phases = if self.rng.chance(60) { 2 } else { 1 };
        for phase in 0..phases {
            if phase == 1 {
                // Every thread has seen phase 0 complete before phase 1 can (a parity wait
                // only tells the current phase from the one before).
                lines.push("bar.sync 0;".to_string());
                lines.push("@!%pu mbarrier.arrive.shared::cta.b64 %tdm, [fz_mbd];".to_string());
            }
            lines.push(format!("$L__md$ID${phase}:"));
            lines.push(format!(
                "mbarrier.try_wait.parity.shared::cta.b64 %pb, [fz_mbd], {phase};"
            ));
            lines.push(format!("@!%pb bra $L__md$ID${phase};"));
        }
        lines.extend([
            "bar.sync 0;".to_string(),
            "setp.eq.u32 %pb, %tl, 0;".to_string(),
            "@%pb mbarrier.inval.shared::cta.b64 [fz_mbd];".to_string(),
        ]);
        Stmt::Code(lines)
    }

    /// `cp.async.bulk` (PTX ISA §9.7.9.25.4.1, `sm_90`) of the thread's own shared slot (16 or
    /// 32 bytes) into its own region of `out`, or `cp.reduce.async.bulk` of it into them, after `fence.proxy.async.shared::cta` (the
    /// slot's generic-proxy stores before the async-proxy read), as a bulk group waited for at
    /// once; anywhere (thread-private).
    fn bulk_to_global(&mut self) -> Stmt {
        let bytes = *self.rng.pick(&[16u32, 32]);
        let off = *self.rng.pick(&[0u32, 32, 64, 96]);
        let wait = if self.rng.chance(70) {
            "cp.async.bulk.wait_group 0;"
        } else {
            "cp.async.bulk.wait_group.read 0;\n\tcp.async.bulk.wait_group 0;"
        };
        let g = self.guard();
        let copy = if self.rng.chance(40) {
            // `cp.reduce.async.bulk` (§9.7.9.25.4.2): element-wise into the thread's own
            // bytes, so the order of elements does not matter.
            let (op, ty) = *self.rng.pick(&[
                ("add", "u32"),
                ("add", "s32"),
                ("add", "u64"),
                ("add", "f32"),
                ("add", "f64"),
                ("add.noftz", "f16"),
                ("add.noftz", "bf16"),
                ("min", "u32"),
                ("max", "s32"),
                ("min", "s64"),
                ("max", "u64"),
                ("min", "bf16"),
                ("max", "f16"),
                ("inc", "u32"),
                ("dec", "u32"),
                ("and", "b32"),
                ("or", "b64"),
                ("xor", "b32"),
            ]);
            let (op, noftz) = match op.split_once('.') {
                Some((op, m)) => (op, format!(".{m}")),
                None => (op, String::new()),
            };
            format!(
                "{g}cp.reduce.async.bulk.global.shared::cta.bulk_group.{op}{noftz}.{ty} [%od+{off}], [%so], {bytes};"
            )
        } else {
            format!("{g}cp.async.bulk.global.shared::cta.bulk_group [%od+{off}], [%so], {bytes};")
        };
        let mut lines = vec![
            "fence.proxy.async.shared::cta;".to_string(),
            copy,
            "cp.async.bulk.commit_group;".to_string(),
        ];
        lines.extend(wait.split("\n\t").map(str::to_string));
        if self.rng.chance(50) {
            lines.push("fence.proxy.async.global;".to_string());
        }
        Stmt::Code(lines)
    }

    /// A distributed-shared-memory exchange between the CTAs of a cluster (`sm_90`, shared
    /// memory, top level only, before any exit: every thread of every CTA of the cluster runs
    /// it, in the same order): the thread reads `%cluster_ctarank`/`%cluster_nctarank`, stores
    /// to its own slot, passes `barrier.cluster.arrive`/`wait` (PTX ISA §9.7.13.2), then loads
    /// from any thread's slot of the CTA `d` ranks further (`mapa`, `ld.shared::cluster`) or
    /// stores into its own index's slot there (`st.shared::cluster`: each slot of the cluster
    /// gets one writer, as rank + `d` is a bijection); a second cluster barrier ends the
    /// window, so no later access races with a remote one and no CTA exits while peers read
    /// it. Without a cluster launch, the cluster is the CTA alone.
    fn cluster_exchange(&mut self) -> Stmt {
        let (ty, class, off, src) = self.slot_word();
        let d = self.rng.below(4);
        let mut lines = Vec::new();
        if self.rng.chance(50) {
            let r = self.data_reg(Class::B32);
            let reg = *self.rng.pick(&[
                "%cluster_ctarank",
                "%cluster_nctarank",
                "%cluster_ctaid.x",
                "%cluster_nctaid.y",
                "%clusterid.x",
                "%nclusterid.x",
                "%is_explicit_cluster",
            ]);
            if reg == "%is_explicit_cluster" {
                let p = self.data_reg(Class::Pred);
                lines.push(format!("mov.pred {p}, {reg};"));
            } else {
                lines.push(format!("mov.u32 {r}, {reg};"));
            }
        }
        let remote_store = self.rng.chance(35);
        if !remote_store {
            lines.push(format!("st.shared.{ty} [%so+{off}], {src};"));
        }
        let (arrive, wait) = *self.rng.pick(&[
            ("barrier.cluster.arrive", "barrier.cluster.wait"),
            (
                "barrier.cluster.arrive.aligned",
                "barrier.cluster.wait.aligned",
            ),
            (
                "barrier.cluster.arrive.release",
                "barrier.cluster.wait.acquire",
            ),
            (
                "barrier.cluster.arrive.release.aligned",
                "barrier.cluster.wait.acquire.aligned",
            ),
        ]);
        lines.push(format!("{arrive};"));
        lines.push(format!("{wait};"));
        lines.push("mov.u32 %t0, %cluster_ctarank;".to_string());
        lines.push("mov.u32 %t1, %cluster_nctarank;".to_string());
        lines.push(format!("add.u32 %t0, %t0, {d};"));
        lines.push("rem.u32 %t0, %t0, %t1;".to_string());
        if remote_store {
            lines.push("mapa.shared::cluster.u64 %td0, %so, %t0;".to_string());
            lines.push(format!("st.shared::cluster.{ty} [%td0+{off}], {src};"));
        } else {
            let who = self.src_reg(Class::B32);
            let dst = self.data_reg(class);
            lines.push(format!("rem.u32 %t2, {who}, $NT$;"));
            lines.push(format!("mul.wide.u32 %td0, %t2, {SHARED_SLOT};"));
            lines.push("add.s64 %td0, %sb, %td0;".to_string());
            // The rank a mapped address belongs to (`getctarank`, §9.7.9.24) is the peer's.
            let rank = self.rng.chance(30).then(|| self.data_reg(Class::B32));
            if self.rng.chance(50) {
                lines.push("mapa.shared::cluster.u64 %td0, %td0, %t0;".to_string());
                if let Some(r) = &rank {
                    lines.push(format!("getctarank.shared::cluster.u64 {r}, %td0;"));
                }
                lines.push(format!("ld.shared::cluster.{ty} {dst}, [%td0+{off}];"));
            } else {
                // Through the generic address of the peer's window.
                lines.push("cvta.shared.u64 %td0, %td0;".to_string());
                lines.push("mapa.u64 %td0, %td0, %t0;".to_string());
                if let Some(r) = &rank {
                    lines.push(format!("getctarank.u64 {r}, %td0;"));
                }
                lines.push(format!("ld.{ty} {dst}, [%td0+{off}];"));
            }
        }
        lines.push(format!("{arrive};"));
        lines.push(format!("{wait};"));
        Stmt::Code(lines)
    }

    /// A 256-bit access (`sm_100`, PTX ISA 8.8): `ld.global{.nc}.v4` of a 64-bit type or
    /// `.v8` of a 32-bit one from the input buffer into distinct data registers, or `st.global`
    /// of the same shapes into the thread's region of `out`; 32-byte aligned.
    fn wide_vector(&mut self) -> Stmt {
        let (ty, class, n) = *self.rng.pick(&[
            ("u64", Class::B64, 4u32),
            ("b64", Class::B64, 4),
            ("s64", Class::B64, 4),
            ("f64", Class::F64, 4),
            ("u32", Class::B32, 8),
            ("b32", Class::B32, 8),
            ("s32", Class::B32, 8),
        ]);
        let mut lines = Vec::new();
        let g = self.guard();
        if self.rng.chance(60) {
            self.masked("%gin", IN_BYTES / 2 - 32, &mut lines);
            let off = self.rng.pick(&[0, 256, 480]);
            let op = self
                .rng
                .pick(&["ld.global", "ld.global.nc", "ld.global.L1::no_allocate"]);
            let dst = self.distinct_regs(class, n as usize).join(", ");
            lines.push(format!("{g}{op}.v{n}.{ty} {{{dst}}}, [%td0+{off}];"));
        } else {
            self.masked("%od", 32, &mut lines);
            let off = self.rng.pick(&[0, 32, 64]);
            let src: Vec<String> = (0..n).map(|_| self.src_reg(class)).collect();
            lines.push(format!(
                "{g}st.global.v{n}.{ty} [%td0+{off}], {{{}}};",
                src.join(", ")
            ));
        }
        Stmt::Code(lines)
    }

    // ---- textures and surfaces (Kernel::tex) -------------------------------------------------

    /// A surface instruction on the kernel's surface `%hsurf` (PTX ISA §9.7.11), always in
    /// the thread's own row (`y` = `%gl`): `suld.b`/`sust.b` of 1 to 16 bytes at a byte
    /// offset `x` that is in the row and aligned (`.trap`) or only aligned (`.clamp` clamps
    /// into the row, `.zero` reads 0 and drops stores), `sust.p` of `u32` texels, `sured.b`,
    /// or `suq`.
    fn surface(&mut self) -> Stmt {
        const TYS: &[(&str, u32, Class)] = &[
            ("b8", 1, Class::B16),
            ("b8", 1, Class::B32),
            ("b16", 2, Class::B16),
            ("b32", 4, Class::B32),
            ("b64", 8, Class::B64),
        ];
        let mut lines = Vec::new();
        let g = self.guard();
        let src = self.src_reg(Class::B32);
        let clamp = *self.rng.pick(&["trap", "trap", "clamp", "zero"]);
        let x_for = |size: u32, lines: &mut Vec<String>| {
            if clamp == "trap" {
                lines.push(format!("and.b32 %t0, {src}, {};", SURF_ROW - size));
            } else {
                lines.push(format!("and.b32 %t0, {src}, {};", !(size - 1)));
            }
        };
        match self.rng.below(10) {
            0..=6 => {
                let (ty, size, class) = *self.rng.pick(TYS);
                let n = match (size, self.rng.below(3)) {
                    (8, 0) | (1..=4, 0) => 2,
                    (1..=4, 1) => 4,
                    _ => 1,
                };
                x_for(size * n, &mut lines);
                let v = Self::vprefix(n);
                if self.rng.chance(50) {
                    let dst = self.distinct_regs(class, n as usize).join(", ");
                    lines.push(format!(
                        "{g}suld.b.2d{v}.{ty}.{clamp} {{{dst}}}, [%hsurf, {{%t0, %gl}}];"
                    ));
                } else {
                    let vals: Vec<String> = (0..n).map(|_| self.src_reg(class)).collect();
                    lines.push(format!(
                        "{g}sust.b.2d{v}.{ty}.{clamp} [%hsurf, {{%t0, %gl}}], {{{}}};",
                        vals.join(", ")
                    ));
                }
            }
            7 => {
                // Formatted: x in texels (16 per row).
                if clamp == "trap" {
                    lines.push(format!("and.b32 %t0, {src}, {};", SURF_ROW / 4 - 1));
                } else {
                    lines.push(format!("mov.u32 %t0, {src};"));
                }
                let n = *self.rng.pick(&[1u32, 4]);
                let vals: Vec<String> = (0..n).map(|_| self.src_reg(Class::B32)).collect();
                lines.push(format!(
                    "{g}sust.p.2d{}.b32.{clamp} [%hsurf, {{%t0, %gl}}], {{{}}};",
                    Self::vprefix(n),
                    vals.join(", ")
                ));
            }
            8 => {
                let (op, ty, size) = *self.rng.pick(&[
                    ("add", "u32", 4u32),
                    ("min", "u32", 4),
                    ("max", "s32", 4),
                    ("and", "b32", 4),
                    ("or", "b32", 4),
                    ("add", "u64", 8),
                ]);
                x_for(size, &mut lines);
                let class = if size == 8 { Class::B64 } else { Class::B32 };
                let v = self.src_reg(class);
                lines.push(format!(
                    "{g}sured.b.{op}.2d.{ty}.{clamp} [%hsurf, {{%t0, %gl}}], {v};"
                ));
            }
            _ => {
                let attr = self.rng.pick(&[
                    "width",
                    "height",
                    "depth",
                    "channel_data_type",
                    "channel_order",
                    "array_size",
                ]);
                let dst = self.data_reg(Class::B32);
                lines.push(format!("{g}suq.{attr}.b32 {dst}, [%hsurf];"));
            }
        }
        Stmt::Code(lines)
    }

    // ---- control flow ----------------------------------------------------------------------

    /// A condition that may differ between threads.
    fn divergent_cond(&mut self) -> Cond {
        let negated = self.rng.chance(50);
        if self.rng.chance(40) {
            return Cond {
                setup: vec![],
                pred: self.data_reg(Class::Pred),
                negated,
            };
        }
        let src = if self.rng.chance(50) {
            self.rng.pick(&["%tl", "%ln", "%gl"]).to_string()
        } else {
            self.data_reg(Class::B32)
        };
        let cmp = self.rng.pick(&["lt", "ge", "eq", "ne", "hi", "ls"]);
        let v = self.rng.below(40);
        let mut setup = Vec::new();
        if self.rng.chance(50) {
            let m = self.rng.range(1, 31);
            setup.push(format!("and.b32 %t0, {src}, {m};"));
            setup.push(format!("setp.{cmp}.u32 %pu, %t0, {v};"));
        } else {
            setup.push(format!("setp.{cmp}.u32 %pu, {src}, {v};"));
        }
        Cond {
            setup,
            pred: "%pu".to_string(),
            negated,
        }
    }

    /// A condition that is the same for every thread of the CTA.
    fn uniform_cond(&mut self) -> Cond {
        let mut srcs: Vec<String> = UNIFORM_FIXED.iter().map(|s| s.to_string()).collect();
        for (level, &uniform) in self.counters.iter().enumerate() {
            if uniform {
                srcs.push(format!("%lc{level}"));
            }
        }
        let src = self.rng.pick(&srcs).clone();
        let cmp = self.rng.pick(&["lt", "ge", "eq", "ne", "hi", "ls"]);
        let v = *self.rng.pick(&[0u32, 1, 2, 3, 32, 64, 1000]);
        Cond {
            setup: vec![format!("setp.{cmp}.u32 %pu, {src}, {v};")],
            pred: "%pu".to_string(),
            negated: self.rng.chance(50),
        }
    }

    fn if_stmt(&mut self, ctx: Ctx) -> Stmt {
        let uniform = ctx.uniform && self.rng.chance(40);
        let cond = if uniform {
            self.uniform_cond()
        } else {
            self.divergent_cond()
        };
        let inner = Ctx {
            uniform,
            depth: ctx.depth + 1,
        };
        let then = self.block(inner, 5);
        let els = if self.rng.chance(50) {
            self.block(inner, 4)
        } else {
            vec![]
        };
        Stmt::If { cond, then, els }
    }

    fn loop_stmt(&mut self, ctx: Ctx) -> Stmt {
        let level = self.counters.len();
        let fixed = self.rng.chance(50);
        let trip = if fixed {
            Trip::Fixed(self.rng.range(0, 5) as u32)
        } else {
            let src = if self.rng.chance(50) {
                self.rng.pick(&["%tl", "%ln", "%gl"]).to_string()
            } else {
                self.data_reg(Class::B32)
            };
            let line = match self.rng.below(3) {
                0 => format!("and.b32 %ll{level}, {src}, 7;"),
                1 => format!("rem.u32 %ll{level}, {src}, 6;"),
                _ => format!("shr.u32 %ll{level}, {src}, 29;"),
            };
            Trip::PerLane(vec![line])
        };
        let brk_kind = self.rng.below(4);
        let uniform_so_far = ctx.uniform && fixed;
        self.counters.push(uniform_so_far);
        let brk = match brk_kind {
            0 => Some(self.divergent_cond()),
            1 if uniform_so_far => Some(self.uniform_cond()),
            _ => None,
        };
        let uniform = uniform_so_far && brk_kind != 0;
        if let Some(u) = self.counters.last_mut() {
            *u = uniform;
        }
        let body = self.block(
            Ctx {
                uniform,
                depth: ctx.depth + 1,
            },
            5,
        );
        self.counters.pop();
        Stmt::Loop {
            level,
            trip,
            test_first: self.rng.chance(50),
            body,
            brk,
        }
    }

    /// `trap` (PTX ISA §9.7.19.4) where a condition holds: the `k` parameter is one value
    /// (every thread, or none), the global linear id is one (at most one thread), or a data
    /// predicate holds. A trap that runs aborts the launch, and the fuzzer compares the fault
    /// reports of both engines (`diff`): kind, CTA, thread, PTX line.
    fn trap(&mut self) -> Stmt {
        let mut lines = Vec::new();
        let pred = match self.rng.below(3) {
            0 => {
                let k = *self.rng.pick(&[0u32, 1, 7, 32, 0xffff_ffff]);
                lines.push(format!("setp.eq.u32 %pb, %k, {k};"));
                "%pb".to_string()
            }
            1 => {
                let id = self.rng.below(256);
                lines.push(format!("setp.eq.u32 %pb, %gl, {id};"));
                "%pb".to_string()
            }
            _ => self.data_reg(Class::Pred),
        };
        lines.push(format!("@{pred} trap;"));
        Stmt::Code(lines)
    }

    fn exit(&mut self) -> Stmt {
        let how = *self
            .rng
            .pick(&[ExitHow::Ret, ExitHow::Exit, ExitHow::ToEpilogue]);
        self.exited = true;
        Stmt::Exit {
            cond: self.divergent_cond(),
            how,
        }
    }
}

/// The scratch register an `atom` of type `ty` (`size` bytes) returns its old value into.
fn atom_scratch(ty: &str, size: u32) -> &'static str {
    match (ty, size) {
        ("f32", _) => "%tf",
        (_, 8) => "%td1",
        _ => "%t1",
    }
}

/// A kernel whose body is every combination of type and modifiers of `FORMS[form]`, one
/// instruction each with random operands (to check the table against ptxas and the lowering).
pub fn form_coverage_kernel(form: usize, seed: u64) -> String {
    form_coverage_kernel_of(&FORMS[form], false, seed)
}

/// [`form_coverage_kernel`] for `FORMS_SM90[form]`, in an `sm_90` kernel.
pub fn form_coverage_kernel_sm90(form: usize, seed: u64) -> String {
    form_coverage_kernel_of(&FORMS_SM90[form], true, seed)
}

fn form_coverage_kernel_of(f: &Form, sm90: bool, seed: u64) -> String {
    let mut rng = Rng::seeded(seed);
    let mut k = generate(&mut rng, GenConfig { size: 1 });
    k.body.clear();
    k.sm90 = sm90;
    // The flavour is the one asked for: no sm_100 target, no sm_90 launch features on sm_80.
    k.sm100 = false;
    k.sm90a = false;
    k.sm100a = false;
    k.sm120a = false;
    if !sm90 {
        k.tmap = None;
        k.tmap_out = None;
        k.cluster = [1, 1, 1];
    }
    let mut g = Gen {
        rng: &mut rng,
        budget: 0,
        nt: 32,
        full_warps: true,
        shared: false,
        exited: false,
        counters: Vec::new(),
        sm90,
        sm100: false,
        sm90a: false,
        sm100a: false,
        sm120a: false,
        pair: false,
        relinquished: false,
        tex: None,
        tmap: None,
        tmap_out: None,
        maxnreg: None,
    };
    let mut combos: Vec<Vec<&str>> = vec![vec![]];
    for group in f.mods {
        combos = combos
            .iter()
            .flat_map(|c| {
                group.iter().map(move |m| {
                    let mut c = c.clone();
                    c.push(*m);
                    c
                })
            })
            .collect();
    }
    let mut lines = Vec::new();
    for ty in f.tys {
        for c in &combos {
            lines.push(g.form_instance(f, ty, c));
        }
    }
    k.body.push(Stmt::Code(lines));
    k.render()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproducible() {
        let a = generate(&mut Rng::seeded(42), GenConfig::default()).render();
        let b = generate(&mut Rng::seeded(42), GenConfig::default()).render();
        assert_eq!(a, b);
        let c = generate(&mut Rng::seeded(43), GenConfig::default()).render();
        assert_ne!(a, c);
    }

    /// Opcodes and forms of the decoder's table ([`crate::lower::decoder_table`]) that the
    /// generator does not emit, each with why. [`every_opcode_is_generated`] fails when an
    /// opcode or form of the table is neither generated nor listed here, and when one listed
    /// here is generated after all (drop it from the list) or is not in the table.
    const NOT_GENERATED: &[(&str, &str)] = &[(
        "clusterlaunchcontrol",
        "which cluster a try_cancel cancels (or whether it cancels one) depends on how many \
             CTAs the launch's worker threads have already taken from the shared counter \
             (runtime::clc): it differs from run to run, so the two engines' buffers cannot be \
             compared",
    )];

    /// (name, header admits it) of every matrix form of the decoder's lists, for `header`:
    /// `mma.sync.aligned.NAME`, `mma.sp.sync.aligned.NAME`, `ldmatrix.sync.aligned.…`.
    fn matrix_form_names(header: Option<Header>) -> Vec<(String, bool)> {
        let mut out = Vec::new();
        for sparse in [false, true] {
            let pool: Vec<&str> = header.map_or(Vec::new(), |h| {
                matrix::mma_pool(h, sparse).iter().map(|f| f.name).collect()
            });
            for f in all_mma_forms() {
                if f.spec.sparse.is_some() == sparse {
                    out.push((matrix::form_name(f), pool.contains(&f.name)));
                }
            }
        }
        for op in ["ldmatrix", "stmatrix", "movmatrix"] {
            let pool = header.map_or(Vec::new(), |h| matrix::move_pool(h, op));
            for m in matrix::all_moves().into_iter().filter(|m| m.0 == op) {
                out.push((
                    format!("{op} {}", matrix::move_words(&m).join(".")),
                    pool.contains(&m),
                ));
            }
        }
        out
    }

    /// Every matrix form of the decoder's lists is drawn by some kernel flavour (its header
    /// admits it: [`Gen::mma_pool`], [`matrix::move_pool`]), unless a pattern of
    /// [`matrix::MATRIX_NOT_GENERATED`] says why not (and then none draws it); a new form the
    /// decoder takes fails here until a flavour's target takes it or it is listed.
    #[test]
    fn every_matrix_form_is_drawn() {
        let flavours = [
            (false, false, false, false, false),
            (true, false, false, false, false),
            (true, false, true, false, false),
            (true, true, false, false, false),
            (true, true, false, true, false),
            (true, true, false, false, true),
        ];
        let mut drawn = std::collections::BTreeMap::new();
        for (sm90, sm100, sm90a, sm100a, sm120a) in flavours {
            let h = flavour_header(sm90, sm100, sm90a, sm100a, sm120a);
            for (name, ok) in matrix_form_names(Some(h)) {
                *drawn.entry(name).or_insert(false) |= ok;
            }
        }
        let mut missing = Vec::new();
        let mut stale = Vec::new();
        let excused = |name: &str| {
            matrix::MATRIX_NOT_GENERATED
                .iter()
                .any(|(p, _)| name.contains(p))
        };
        for (name, ok) in &drawn {
            match (ok, excused(name)) {
                (true, true) => stale.push(format!("{name} is drawn now")),
                (false, false) => missing.push(name.clone()),
                _ => {}
            }
        }
        for (p, _) in matrix::MATRIX_NOT_GENERATED {
            if !drawn.keys().any(|n| n.contains(p)) {
                stale.push(format!("{p} matches no form of the decoder's lists"));
            }
        }
        assert!(
            missing.is_empty() && stale.is_empty(),
            "matrix forms no flavour draws (give one a target that takes them, or say why \
             in MATRIX_NOT_GENERATED): {missing:?}; stale entries: {stale:?}"
        );
        // The lists hold the forms the generator drew by hand before, and the later ones.
        for name in [
            "mma.sync m16n8k16.row.col.f32.f16.f16.f32",
            "mma.sync m16n8k256.row.col.s32.b1.b1.s32.xor.popc",
            "mma.sync m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e2m1.e5m2.f32.ue8m0",
            "mma.sync m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0",
            "mma.sp m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e4m3.f32.ue8m0",
            "mma.sp m16n8k64.row.col.kind::f8f6f4.f16.e2m3.e2m1.f16",
            "mma.sync m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32",
            "mma.sync m16n8k16.row.col.f16.e4m3.e5m2.f16",
            "mma.sync m16n8k32.row.col.f32.e5m2.e4m3.f32",
            "mma.sp m16n8k128.row.col.satfinite.s32.s4.u4.s32",
            "mma.sp m16n8k64.row.col.f32.e4m3.e5m2.f32",
            "mma.sp m16n8k64.row.col.f16.e5m2.e4m3.f16",
            "mma.sp m16n8k128.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0",
            "mma.sp m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
            "ldmatrix sync.aligned.m16n16.x2.trans.shared.b8x16.b6x16_p32",
            "ldmatrix sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64",
            "ldmatrix sync.aligned.m16n16.x1.trans.shared.b8",
            "stmatrix sync.aligned.m16n8.x4.trans.shared.b8",
            "movmatrix sync.aligned.m8n8.trans.b16",
        ] {
            assert!(drawn.get(name) == Some(&true), "{name} is not drawn");
        }
    }

    /// Kernels of every flavour (and 300 of the `sm_120a` flavour) contain each later matrix
    /// form at least once: the 8-bit and packed matrix moves, the FP8 `mma` shapes, the
    /// `.kind::f8f6f4` types, the sparse FP8 and 4-bit forms. Each needle is the parts one
    /// instruction line has.
    #[test]
    fn new_matrix_forms_are_generated() {
        let mut lines = std::collections::BTreeSet::new();
        let (mut sm120a, mut seed) = (0, 0u64);
        while seed < 600 || sm120a < 300 {
            let k = generate(&mut Rng::seeded(seed), GenConfig { size: 60 });
            if seed < 600 || k.sm120a || k.sm100a {
                sm120a += usize::from(k.sm120a);
                let text = k.render();
                lines.extend(
                    text.lines()
                        .filter(|l| {
                            l.contains("mma") || l.contains("matrix") || l.contains(".target")
                        })
                        .map(str::to_string),
                );
            }
            seed += 1;
        }
        for needle in [
            &["ldmatrix.sync.aligned.m16n16.x", ".trans.shared.b8 {"][..],
            &[
                "ldmatrix.sync.aligned.m16n16.x",
                ".trans.shared.b8x16.b6x16_p32 {",
            ],
            &[
                "ldmatrix.sync.aligned.m16n16.x",
                ".trans.shared.b8x16.b4x16_p64 {",
            ],
            &["ldmatrix.sync.aligned.m8n16.x", ".shared.b8x16.b6x16_p32 {"],
            &["ldmatrix.sync.aligned.m8n16.x", ".shared.b8x16.b4x16_p64 {"],
            &["stmatrix.sync.aligned.m16n8.x", ".trans.shared", ".b8 ["],
            &["mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e"],
            &["mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e"],
            &[".kind::f8f6f4.", ".e2m1.e"],
            &[".kind::f8f6f4.", ".e3m2.e"],
            &[".kind::f8f6f4.", ".e2m3.e"],
            &["mma.sync.aligned.m16n8k16.row.col.f32.e4m3."],
            &["mma.sync.aligned.m16n8k16.row.col.f16.e5m2."],
            &["mma.sync.aligned.m16n8k32.row.col.f32.e5m2."],
            &["mma.sync.aligned.m16n8k8.row.col.", "f64.f64.f64.f64"],
            &["mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f16"],
            &["mma.sync.aligned.m8n8k4.row.col.rz.f64"],
            &["mma.sp.sync.aligned.m16n8k64.row.col.", ".u4."],
            &["mma.sp", ".sync.aligned.m16n8k128.row.col."],
            &["mma.sp::ordered_metadata.sync.aligned.m16n8k"],
            &[".target sm_120a"],
            &["mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e"],
            &["mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X."],
            &["mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1"],
            &["mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X."],
            &[".kind::mxf4nvf4.block_scale.scale_vec::2X.", ".ue8m0 {"],
            &[".kind::mxf4nvf4.block_scale.scale_vec::4X.", ".ue8m0 {"],
            &[".kind::mxf4nvf4.block_scale.scale_vec::4X.", ".ue4m3 {"],
            &[".block_scale.", ", {%h"],
            &[".block_scale.", ", {0, 0}"],
            &["mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f16.e"],
            &["mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e"],
            &["mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale."],
            &["mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4.block_scale."],
            &["mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale."],
            &["mma.sp.sync.aligned.m16n8k64.row.col.f32.e"],
        ] {
            assert!(
                lines.iter().any(|l| needle.iter().all(|p| l.contains(p))),
                "no generated kernel has a line with {needle:?}"
            );
        }
    }

    /// Operations of `tcgen05` ([`crate::lower::TCGEN05_OPERATIONS`]) that the generator does
    /// not emit, each with why (checked as [`NOT_GENERATED`] is).
    const TCGEN05_NOT_GENERATED: &[(&str, &str)] = &[];

    /// The first token of every instruction line of `texts` (guards removed), e.g.
    /// `tcgen05.mma.cta_group::1.kind::f16`.
    fn instruction_tokens(texts: &[String]) -> std::collections::BTreeSet<String> {
        let mut tokens = std::collections::BTreeSet::new();
        for t in texts {
            for line in t.lines() {
                let line = line.trim();
                if line.is_empty()
                    || line.starts_with(['.', '/', '{', '}', '$'])
                    || line.ends_with(':')
                {
                    continue;
                }
                let line = match line.strip_prefix('@') {
                    Some(rest) => rest.split_once(char::is_whitespace).map_or("", |p| p.1),
                    None => line,
                };
                if let Some(tok) = line.split_whitespace().next() {
                    tokens.insert(tok.trim_end_matches(';').to_string());
                }
            }
        }
        tokens
    }

    /// A few hundred kernels, and enough more for 400 of the `sm_100a` flavour (whose `tcgen05`
    /// statements are a small share of all).
    fn sample() -> Vec<String> {
        let mut texts = Vec::new();
        let mut sm100a = 0;
        let mut seed = 0;
        while seed < 400 || sm100a < 400 {
            let k = generate(&mut Rng::seeded(seed), GenConfig { size: 60 });
            if seed < 400 || k.sm100a {
                sm100a += usize::from(k.sm100a);
                texts.push(k.render());
            }
            seed += 1;
        }
        texts
    }

    /// Every opcode of the decoder's table, every form the table lists apart and every
    /// `tcgen05` operation the decoder dispatches shows up in the sample, unless
    /// [`NOT_GENERATED`] or [`TCGEN05_NOT_GENERATED`] says why not (and then it must not).
    #[test]
    fn every_opcode_is_generated() {
        let tokens = instruction_tokens(&sample());
        let has = |name: &str| {
            tokens
                .iter()
                .any(|t| t == name || t.starts_with(&format!("{name}.")))
        };
        let mut missing = Vec::new();
        let mut stale = Vec::new();
        let table: Vec<&str> = crate::lower::decoder_table().map(|r| r.0).collect();
        let tc05: Vec<String> = crate::lower::TCGEN05_OPERATIONS
            .iter()
            .map(|op| format!("tcgen05.{op}"))
            .collect();
        let lists = [
            (
                table.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                NOT_GENERATED,
                "",
            ),
            (tc05, TCGEN05_NOT_GENERATED, "tcgen05."),
        ];
        for (names, excused, prefix) in lists {
            for name in &names {
                let why = excused
                    .iter()
                    .find(|(n, _)| format!("{prefix}{n}") == *name);
                match (has(name), why) {
                    (true, Some(_)) => stale.push(format!("{name} is generated now")),
                    (false, None) => missing.push(name.clone()),
                    _ => {}
                }
            }
            for (n, _) in excused {
                if !names.contains(&format!("{prefix}{n}")) {
                    stale.push(format!("{prefix}{n} is not in the decoder's list"));
                }
            }
        }
        assert!(
            missing.is_empty() && stale.is_empty(),
            "never generated (generate it, or say why in NOT_GENERATED): {missing:?}; \
             stale NOT_GENERATED entries: {stale:?}"
        );
    }

    /// Forms finer than an opcode that the generator promises (its module documentation)
    /// show up in the sample (a zero weight or an impossible condition would silently drop
    /// one).
    #[test]
    fn every_construct_is_generated() {
        let texts = sample();
        for needle in [
            "tex.1d.",
            "tex.2d.",
            "tex.3d.",
            "tex.a1d.",
            "tex.a2d.",
            "tex.cube.",
            "tex.acube.",
            "tex.grad.",
            ".v4.f16.f32",
            ".v2.f16x2.",
            "tex.level.",
            "tld4.",
            "txq.",
            "suld.b.",
            "sust.b.",
            "sust.p.",
            "sured.b.",
            "suq.",
            "arrive.noComplete",
            "mbarrier.pending_count",
            "cp.async.bulk.global.shared::cta",
            "cp.async.bulk.tensor.2d",
            "mapa.shared::cluster",
            "st.shared::cluster",
            "barrier.cluster.wait",
            "st.async.mbarrier::complete_tx::bytes.v4.",
            "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.",
            "st.async.weak.",
            "st.async.cluster.",
            "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.u32",
            "red.async.relaxed.cluster.mbarrier::complete_tx::bytes.add.u64 [%td0+24]",
            "fence.mbarrier_init.release.cluster",
            "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %pb, [fz_mbc], 0;",
            ".target sm_100",
            "ld.global.v8.",
            "st.global.v4.f64",
            "%vh.",
            "%vl.",
            "%vf.",
            ".target sm_90a",
            "wgmma.fence.sync.aligned",
            "wgmma.mma_async.sync.aligned.m64n",
            ".f32.tf32.tf32",
            ".s32.b1.b1.and.popc",
            ".satfinite.s32.",
            "wgmma.wait_group.sync.aligned 1",
            ".target sm_100a",
            "tcgen05.mma.cta_group::1.kind::f16",
            "tcgen05.mma.cta_group::1.kind::tf32",
            "tcgen05.mma.cta_group::1.kind::i8",
            "tcgen05.mma.cta_group::1.kind::f8f6f4",
            "tcgen05.mma.ws.cta_group::1.kind::",
            ".collector::b",
            "::use [%tma]",
            "::lastuse [%tma]",
            "tcgen05.mma.sp.cta_group::1.kind::",
            "[%tma], [%t0], %wdb0",
            "tcgen05.cp.cta_group::1.128x256b",
            "tcgen05.cp.cta_group::1.4x256b",
            "tcgen05.cp.cta_group::1.128x128b",
            "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13",
            "tcgen05.cp.cta_group::1.64x128b.warpx2::01_23",
            "tcgen05.cp.cta_group::1.32x128b.warpx4",
            "tcgen05.shift.cta_group::1.down",
            "tcgen05.alloc.cta_group::2.sync.aligned",
            "tcgen05.mma.cta_group::2.kind::",
            "tcgen05.shift.cta_group::2.down",
            "tcgen05.commit.cta_group::2.",
            "tcgen05.dealloc.cta_group::2.",
            ".collector::a::fill [%tma]",
            ".collector::a::use [%tma]",
            ".collector::a::lastuse",
            ".collector::a::discard",
            ".ashift",
            "tcgen05.ld.sync.aligned.16x64b.",
            "tcgen05.ld.sync.aligned.16x128b.",
            "tcgen05.ld.sync.aligned.16x256b.",
            "tcgen05.ld.sync.aligned.16x32bx2.",
            ".pack::16b.b32",
            "tcgen05.st.sync.aligned.16x64b.",
            ".unpack::16b.b32",
            "tcgen05.relinquish_alloc_permit",
            "mbarrier.arrive_drop",
            "cp.reduce.async.bulk.global.shared::cta",
            "cp.async.bulk.prefetch.L2.global",
            "cp.async.bulk.prefetch.tensor.2d",
            "cp.async.bulk.tensor.1d.shared",
            "cp.async.bulk.tensor.3d.shared",
            "cp.async.bulk.tensor.5d.shared",
            "cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group",
            "cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group",
            "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile",
            "cp.reduce.async.bulk.tensor.3d.global",
            ".global.shared::cta.min.tile.bulk_group",
            "wgmma.mma_async.sp.sync.aligned.m64n",
            "k16.f32.tf32.tf32",
            "k64.satfinite.s32.",
            "vmad.",
            "32.po",
            "vset4.",
            ".b3210",
            ".h10,",
            "alloca.u32",
            "alloca.u64 %td0, %td0;",
            "cvta.local.u64 %td0, %td0;",
            "createpolicy.range.",
            "createpolicy.fractional.",
            "L2::cache_hint.",
            ".L2::cache_hint.u32 [%td0+",
            "cp.async.mbarrier.arrive.noinc",
            "cp.async.mbarrier.arrive.b64",
            "setmaxnreg.inc.sync.aligned.u32",
            "setmaxnreg.dec.sync.aligned.u32",
            ".L2::cache_hint.b32 %t1, [%td0+",
            "discard.global.L2 [%od], 128;",
            "cvt.pack.sat.u4.s32.b32",
            "cvt.pack.sat.s16.s32",
            "istypep.texref",
            "istypep.surfref",
            "getctarank.shared::cluster.u64",
            "slct.ftz.",
            "wmma.load.a.sync.aligned.",
            "wmma.mma.sync.aligned.",
            "wmma.store.d.sync.aligned.",
            ".m16n16k8.global.tf32",
            ".m8n8k4.global.f64",
            ".m32n8k16.global.",
            ".m8n32k16.global.",
            "multimem.ld_reduce",
            "multimem.st",
            "multimem.red",
            "multimem.cp.async.bulk.global",
            "multimem.cp.reduce.async.bulk.global",
            ".version 9.1",
            "tensormap.cp_fenceproxy.global.shared::cta",
            "tensormap.replace.tile.",
            ".shared::cta.b1024.",
            "fence.proxy.tensormap::generic.acquire",
            "griddepcontrol.wait",
            "griddepcontrol.launch_dependents",
            "brkpt;",
            "trap;",
        ] {
            assert!(
                texts.iter().any(|t| t.contains(needle)),
                "no generated kernel has '{needle}'"
            );
        }
        // `tcgen05.mma.ws` with A in tensor memory at M = 64 and 32: the lane within the
        // M-lane group its A words are a function of, and the multiply reading A at `[%t0]`.
        for m in [32, 64] {
            let group = format!("and.b32 %t2, %tl, {};", m - 1);
            assert!(
                texts.iter().any(|t| t.contains(&group)
                    && t.lines()
                        .any(|l| l.contains("tcgen05.mma.ws.cta_group::1.kind::")
                            && l.contains("[%tma], [%t0], %wdb0"))),
                "no generated kernel has tcgen05.mma.ws with A in tensor memory at M = {m}"
            );
        }
    }

    #[test]
    fn generated_kernels_parse_and_lower() {
        for seed in 0..200 {
            let k = generate(&mut Rng::seeded(seed), GenConfig { size: 30 });
            let text = k.render();
            if let Err(e) = crate::host::front_end(&text, "gen.ptx") {
                panic!("seed {seed}: {e}\n{text}");
            }
        }
    }
}
