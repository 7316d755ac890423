//! The per-CTA environment both engines execute against, the fault sink, and address
//! translation for every state space.
//!
//! ⚠ Safety banner: [`translate`] is the one place that turns a kernel's address into a host
//! pointer. Everything that reaches memory (interpreter, JIT helpers, and the inline checks the
//! JIT emits, which must mirror this function exactly) goes through its rules:
//! - global: `GLOBAL_BASE <= addr` and `addr - GLOBAL_BASE + size <= global_top` (and, with
//!   memcheck, inside one live allocation, and inside one live block where the allocation
//!   is a checked device heap);
//! - shared: `offset + size <= shared_size`, or inside the CTA's reserved region
//!   ([`RESERVED_SMEM_BEGIN`]); param: `offset + size <= param_size`;
//! - local: `offset + size <= local_size`, in the area of the accessing thread;
//! - const: module constant banks live in the global arena, so const addresses follow the
//!   global rules;
//! - generic: the shared, local and param windows map to those spaces, everything else is global;
//! - every access: `addr % align == 0`.
//!
//! A failing check never forms a pointer.

use super::memory::{
    DeviceMemory, GLOBAL_BASE, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE,
};
use crate::ir::Space;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

/// Everything kernel code needs to know about the CTA it runs in. `#[repr(C)]`: the JIT reads
/// fields at their `offset_of!` offsets.
#[repr(C)]
#[derive(Debug)]
pub struct CtaEnv {
    /// Host pointer of global arena offset 0.
    pub global_base: *mut u8,
    /// Accessible bytes of the arena (see [`DeviceMemory::top`]).
    pub global_top: u64,
    /// Host pointer of this CTA's shared memory (static then dynamic).
    pub shared_base: *mut u8,
    pub shared_size: u64,
    /// Host pointer of the kernel's parameter buffer.
    pub param_base: *mut u8,
    pub param_size: u64,
    /// Host pointer of this CTA's local memory: `local_size` bytes per thread, thread `t`'s
    /// area at `t * local_size`.
    pub local_base: *mut u8,
    pub local_size: u64,
    /// Device addresses of the module's variables, indexed by `SymAddr`'s `sym`.
    pub symbols: *const u64,
    pub nsymbols: u64,
    /// Non-zero: stop as soon as possible (a fault anywhere in the launch, or a timeout).
    /// This CTA's stop flag (non-zero: return as soon as possible), raised by its own fault,
    /// a fault in a CTA earlier in launch order ([`CtaEnv::cta_order`]), a time limit or a
    /// deadlock ([`AbortControl`]).
    pub abort: *const AtomicU32,
    /// The launch's stop flags, which a fault raises for the CTAs after the faulting one.
    pub control: *const AbortControl,
    /// Where faults are recorded.
    pub sink: *const FaultSink,
    /// With memcheck, global accesses must also fall inside a live allocation.
    pub memory: *const DeviceMemory,
    pub ctaid: [u32; 3],
    pub nctaid: [u32; 3],
    pub ntid: [u32; 3],
    /// Index of the warp being run within its CTA (set before each call).
    pub warp: u32,
    pub nwarps: u32,
    /// The checks that send accesses to the runtime instead of the JIT's inline fast paths
    /// (0: none, the plain path): [`CHECK_BOUNDS`] (memcheck: global accesses must fall
    /// inside a live allocation) and [`CHECK_INIT`] (initcheck: global and shared accesses
    /// test and set the written-bytes shadows), [`CHECK_RACE_GLOBAL`] (racecheck on global
    /// memory). The JIT's global fast paths run only when this is 0, its shared ones only
    /// without [`CHECK_INIT`] (and racecheck's code has none).
    pub memcheck: u32,
    /// initcheck's findings for the launch (null when initcheck is off).
    pub init: *const super::initcheck::InitFindings,
    /// initcheck: the CTA's shared-memory shadow, one bit per byte of `shared_size`, clear at
    /// CTA start (null when initcheck is off).
    pub shared_init: *const std::sync::atomic::AtomicU8,
    /// Dynamic shared memory bytes of the launch (`%dynamic_smem_size`).
    pub dynamic_smem: u32,
    /// Host worker threads (`%nsmid`).
    pub nsmid: u32,
    /// The launch's sequence number in this process (`%gridid`).
    pub gridid: u64,
    /// Device address of a cooperative launch's grid workspace, which `%envreg1` (high 32
    /// bits) and `%envreg2` (low 32 bits) read (CUDA's `load_env_reg64<1, 2>`, high register
    /// first); 0 for other launches (see
    /// [`super::launch::LaunchInput::cooperative`]).
    pub grid_workspace: u64,
    /// When the launch began (`%clock64` counts nanoseconds from here).
    pub launch_start: std::time::Instant,
    /// Where an engine that counts them adds the thread-instructions it executed (the
    /// interpreter does; the JIT does not).
    pub thread_instructions: *const std::sync::atomic::AtomicU64,
    /// Thread indices of the CTA's threads, one `u32` per thread in linear order (padded to
    /// whole warps): `%tid.x` at `[0, tid_stride)`, `%tid.y` at `[tid_stride, 2 tid_stride)`,
    /// `%tid.z` after that ([`tid_table`]). The JIT reads a warp's lanes as vectors.
    pub tid_table: *const u32,
    /// Entries per component of `tid_table` (threads rounded up to a multiple of 32).
    pub tid_stride: u32,
    /// 1 when every warp's `%tid.x` are consecutive (lane `l` has the warp's first `%tid.x`
    /// plus `l`): `ntid.x` is a multiple of 32 or the CTA is one row (`ntid.y | ntid.z` is
    /// 1); else 0. Set once per launch; the JIT's lane-affine fast paths test it
    /// (`jit::affine`).
    pub tid_x_linear: u32,
    /// The context's texture, sampler and surface objects (`runtime::texture`).
    pub textures: *const super::texture::TextureTable,
    /// The context's device heap (`runtime::heap`); null when the kernel does not use it.
    pub heap: *const super::heap::DeviceHeap,
    /// Where `printf` and failed-`assert` text goes (the context's sink); null: stdout.
    pub printf: *const super::printf::PrintfOutput,
    /// racecheck: this CTA's shadow of shared memory (`runtime::race`); null when the tool
    /// is off.
    pub race: *const super::race::RaceCta,
    /// racecheck: where the launch's races are recorded; null when the tool is off.
    pub race_sink: *const super::race::RaceSink,
    /// synccheck's findings (`runtime::synccheck`); null when the tool is off.
    pub synccheck: *const super::synccheck::SyncSink,
    /// `u32::MAX` when synccheck is on, else 0: the JIT's inline warp-sync check takes the
    /// runtime's path when a membermask names lanes that are not alive and this is set.
    pub synccheck_lanes: u32,
    /// The CTA's tensor memory (`runtime::tcgen05`); null where the launch has none.
    pub tmem: *const super::tcgen05::TensorMemory,
    /// CTAs per cluster along x, y, z (`[1, 1, 1]` in a launch without clusters).
    pub cluster_dims: [u32; 3],
    /// 1 when the launch gave a cluster shape (`%is_explicit_cluster`), else 0.
    pub cluster_explicit: u32,
    /// The state of this CTA's cluster (`runtime::cluster`): the barrier and every CTA's
    /// shared memory; null before the scheduler sets it.
    pub cluster: *const super::cluster::ClusterState,
    /// The launch's work counter, which `clusterlaunchcontrol.try_cancel` claims from
    /// (`runtime::clc`); null: every request fails.
    pub launch_control: *const super::clc::LaunchControl,
    /// The CTA's failing mbarrier waits, for the scheduler's deadlock judgement
    /// (`runtime::mbarrier::MbarWaits`); null: not judged (a cluster of more than one CTA).
    pub mbar_waits: *const super::mbarrier::MbarWaits,
    /// 1 when the call that runs the CTA's warps may complete a uniform `bar.sync` itself
    /// and run the next round without returning (`jit::ctabar`); 0: every barrier completes
    /// in the CTA scheduler. Set by the scheduler for a call that covers the whole CTA in
    /// warp order, without synccheck, racecheck or a cooperative (pausing) schedule.
    pub complete_in_call: u32,
    /// Barriers the last such call completed itself (each one a scheduler round of every
    /// warp), written by the generated code; the scheduler counts their warp runs.
    pub rounds_in_call: u32,
    /// Host pointer of the CTA's reserved shared-memory region ([`RESERVED_SMEM_BYTES`] at
    /// shared offset [`RESERVED_SMEM_BEGIN`]); null where the kernel reads none of the
    /// registers that locate it (`launch::CtaStateUse::reserved_shared`).
    pub reserved_base: *mut u8,
    /// The rest of the batch of consecutive CTAs this call may run after the current one
    /// (`runtime::batch`): set by the scheduler only around a call of an engine that
    /// [runs batches](super::launch::WarpEngine::runs_batches); null otherwise.
    pub batch: *mut super::batch::CtaBatch,
    /// Bytes of each thread's local memory before its call stack (`ir::Function::call_stack`;
    /// all of `local_size` for a kernel without one).
    pub stack_base: u64,
    /// The highest call-stack top (per-thread local offset) a call of this environment's
    /// CTAs reached since its local memory was last zero-filled, at least `stack_base`:
    /// how much of each thread's local memory [`CtaEnv::clear_local`] must zero-fill, so that
    /// a large call stack costs a CTA only what it used.
    pub stack_high: std::sync::atomic::AtomicU64,
    /// The running thread's pending combined reductions (`runtime::redcombine`): the
    /// table of the thread that made the environment (which runs it).
    pub red_table: *mut super::redcombine::RedTable,
}

/// The reserved shared-memory region of a CTA (PTX ISA §10.29 "Special Registers:
/// `%reserved_smem_offset_begin` …"): shared memory "reserved for the NVIDIA system
/// software use", which CUDA's cooperative groups use as the scratch of multi-warp tiles
/// (`cooperative_groups/details/memory.h`, `reserved_shared_ptr`: `cvta.shared` of
/// `%reserved_smem_offset_1`).
///
/// ⚠ The ISA says only that the region exists and that the registers give its start, end,
/// size and two offsets in it; CUDA reserves 1 KiB per CTA on compute capability 8.0 and
/// later (`cudaDevAttrReservedSharedMemoryPerBlock`). Where a GPU puts it differs by
/// architecture (ptxas 13 reads the start as 0 for sm_90 and as the user's size for
/// sm_80), so ptxjit chooses: the region lies at the top of the CTA's 16 MiB of shared
/// offsets (the `.shared::cluster` offset range, `runtime::cluster`), far from the user's
/// static and dynamic shared memory at `0 .. shared_size`. A user access past the end of its
/// shared memory therefore still faults (memcheck stays exact), while an access inside the
/// region is valid shared memory of the CTA for every engine and tool ([`translate`]):
/// - memory: `RESERVED_SMEM_BYTES` host bytes after the user's shared memory (zero when the
///   CTA starts), present where the kernel reads a register that locates the region;
/// - the JIT's inline shared window covers `0 .. shared_size` only, so accesses to the
///   region take the runtime's path;
/// - racecheck and initcheck do not track the region's bytes (the system software's data:
///   CUDA's own code initializes and synchronizes it); racecheck does follow the releases and
///   acquires made there, which order the user's accesses (`race::RaceCta::sync_only`).
pub const RESERVED_SMEM_BEGIN: u64 = super::cluster::MAX_CLUSTER_SHARED - RESERVED_SMEM_BYTES;
/// Bytes of the reserved region (`%reserved_smem_offset_cap`): 1 KiB, what CUDA reserves per
/// CTA on compute capability 8.0 and later.
pub const RESERVED_SMEM_BYTES: u64 = 1024;
/// `%reserved_smem_offset_0`: the start of the region.
pub const RESERVED_SMEM_OFFSET_0: u64 = RESERVED_SMEM_BEGIN;
/// `%reserved_smem_offset_1`: the second half of the region (cooperative groups need 288
/// bytes there, `multi_warp_scratch`).
pub const RESERVED_SMEM_OFFSET_1: u64 = RESERVED_SMEM_BEGIN + RESERVED_SMEM_BYTES / 2;
/// The shared-memory allocation unit of sm_8x and later (PTX ISA §10.30): `%total_smem_size`
/// and `%aggr_smem_size` are multiples of it.
pub const SMEM_ALLOC_UNIT: u64 = 128;

/// [`CtaEnv::memcheck`]: memcheck's exact allocation bounds.
pub const CHECK_BOUNDS: u32 = 1;
/// [`CtaEnv::memcheck`]: initcheck's shadows of written bytes.
pub const CHECK_INIT: u32 = 2;
/// [`CtaEnv::memcheck`]: racecheck on global memory (every global access through the runtime,
/// [`CtaEnv::race_access`]).
pub const CHECK_RACE_GLOBAL: u32 = 4;

/// The `%tid` table of a CTA of `ntid` threads (see [`CtaEnv::tid_table`]): the same value as
/// [`CtaEnv::tid`] for every thread, once per launch instead of divisions per lane.
pub fn tid_table(ntid: [u32; 3]) -> (Vec<u32>, u32) {
    let threads = ntid[0] * ntid[1] * ntid[2];
    let stride = threads.div_ceil(32) * 32;
    let (nx, ny) = (ntid[0].max(1), ntid[1].max(1));
    let mut t = vec![0u32; 3 * stride as usize];
    // Thread `linear` is (linear % nx, linear / nx % ny, linear / (nx ny)): counted up in x,
    // carried into y and z, without a division per thread.
    let (tx, rest) = t.split_at_mut(stride as usize);
    let (ty, tz) = rest.split_at_mut(stride as usize);
    let (mut x, mut y, mut z) = (0u32, 0u32, 0u32);
    for ((px, py), pz) in tx
        .iter_mut()
        .zip(ty.iter_mut())
        .zip(tz.iter_mut())
        .take(threads as usize)
    {
        (*px, *py, *pz) = (x, y, z);
        x += 1;
        if x == nx {
            x = 0;
            y += 1;
            if y == ny {
                y = 0;
                z += 1;
            }
        }
    }
    (t, stride)
}

/// [`tid_table`] of `ntid`, shared: the table this thread made for its last launch when that
/// launch's CTA shape was the same (the common case of a kernel launched again and again),
/// else a new one, kept for the next launch. Only read while a launch runs, so one table
/// serves any number of launches; a launch keeps its `Arc` until it ends.
pub fn tid_table_shared(ntid: [u32; 3]) -> (std::sync::Arc<[u32]>, u32) {
    type Last = Option<([u32; 3], std::sync::Arc<[u32]>, u32)>;
    thread_local! {
        static LAST: std::cell::RefCell<Last> = const { std::cell::RefCell::new(None) };
    }
    LAST.with(|last| {
        // (A borrow that fails, which nothing here makes, only loses the reuse.)
        let Ok(mut last) = last.try_borrow_mut() else {
            let (t, stride) = tid_table(ntid);
            return (t.into(), stride);
        };
        if let Some((n, t, stride)) = &*last {
            if *n == ntid {
                return (t.clone(), *stride);
            }
        }
        let (t, stride) = tid_table(ntid);
        let t: std::sync::Arc<[u32]> = t.into();
        *last = Some((ntid, t.clone(), stride));
        (t, stride)
    })
}

/// Why an access faulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// Outside the state space (or the arena for global).
    OutOfBounds,
    /// Not aligned to the access size (or the vector size).
    Misaligned,
    /// Global address inside the arena but in no live allocation (memcheck).
    Unallocated,
    /// A generic address in a window whose space is not available yet (local); with a detail
    /// ([`CtaEnv::fault_detail`]), an operation ptxjit does not take, which the detail names.
    Unsupported,
    /// The thread executed `trap` (PTX ISA §9.7.19.2); the record's address and size are 0.
    Trap,
    /// A barrier operand out of range (PTX ISA §9.7.13.1: an id above 15, or a thread count
    /// that is not a multiple of the warp size); the record's address holds the value.
    Barrier,
    /// A texture, sampler or surface handle that is not live (forged, or destroyed): the
    /// record's address holds the handle.
    BadHandle,
    /// A surface access out of range with `.trap` (PTX ISA §9.7.11.1): the record's address
    /// holds the x coordinate in bytes.
    SurfaceBounds,
    /// A warp-level synchronization (`bar.warp.sync`, a `.sync` collective) by a thread that
    /// is not in its own membermask (undefined in PTX ISA §9.7.13); the record's address holds
    /// the membermask.
    MemberMask,
    /// A `call` that would overflow the thread's call stack (recursion too deep); the
    /// record's address holds the call depth, its size the stack size in bytes.
    StackOverflow,
    /// An indirect `call` through a value that is the address of no function the call may
    /// reach (PTX ISA §9.7.12.5: undefined); the record's address holds the value.
    BadCallTarget,
    /// A failed device-side `assert` (CUDA's `__assertfail`, which traps the kernel); the
    /// record's detail holds the assertion, file, line and function.
    Assert,
    /// `free` of a pointer that is not a live device-heap block (never allocated, already
    /// freed, or not the block's start; undefined in CUDA): the record's address holds it.
    BadFree,
    /// A warp-wide matrix instruction (`mma.sync.aligned`, `wmma.*.sync.aligned`) executed by
    /// part of a warp only (undefined in PTX ISA §9.7.14: every thread of the warp must
    /// execute the same instruction); the record's address holds the executing lanes' mask.
    PartialWarp,
    /// An `mbarrier` operation the PTX ISA leaves undefined (§9.7.13.15): on an object that
    /// is not initialized (or was invalidated), not in shared memory, with a count out of
    /// range, with more arrivals than pending, a `.noComplete` arrival that completes the
    /// phase, or a state token that is none; the record's detail says which, and where.
    MBarrier,
    /// A `wgmma.mma_async` whose operands ptxjit cannot use (PTX ISA §9.7.15): descriptors or
    /// `scale-d` that differ across the lanes of a warp (the ISA has one per warpgroup), or a
    /// matrix descriptor with a base offset (not implemented); the record's detail says which.
    Wgmma,
    /// A `tcgen05` operation on tensor memory the PTX ISA leaves undefined or ptxjit does not
    /// implement (§9.7.16): an access outside the allocations or the warp's lanes, a bad
    /// column count or `dealloc`, an `alloc` with no room or after the permit was given up,
    /// an instruction or shared-memory descriptor of a form not supported; the record's
    /// detail says which.
    TensorMemory,
    /// A tensor-memory-accelerator operation ptxjit cannot perform where the PTX ISA leaves
    /// the result undefined (§9.7.9.25.5, §9.7.9.26): bytes that are no tensor map, a rank
    /// that differs from the instruction's, a misaligned shared address, a reduction the
    /// ISA's table lacks, or a layout not supported yet; the record's detail says which.
    TensorMap,
    /// A cluster operation the PTX ISA leaves undefined (`barrier.cluster` §9.7.13.2, `mapa`
    /// §9.7.9.23, `getctarank` §9.7.9.24, `.shared::cluster` accesses): an arrive twice in
    /// one phase, a wait without an arrive, a rank outside the cluster, or an address in no
    /// CTA's shared memory window; the record's detail says which.
    Cluster,
    /// An `mma.sp` whose sparsity metadata the PTX ISA leaves undefined (§9.7.14.6.1: a chunk
    /// whose two indices are equal, or not increasing with `::ordered_metadata`; a `.tf32`
    /// field other than `0b0100`/`0b1110`); the record's detail names the field and the lane.
    SparseMetadata,
}

impl FaultKind {
    pub fn code(self) -> u32 {
        match self {
            FaultKind::OutOfBounds => 1,
            FaultKind::Misaligned => 2,
            FaultKind::Unallocated => 3,
            FaultKind::Unsupported => 4,
            FaultKind::Trap => 5,
            FaultKind::Barrier => 6,
            FaultKind::BadHandle => 7,
            FaultKind::SurfaceBounds => 8,
            FaultKind::MemberMask => 9,
            FaultKind::StackOverflow => 11,
            FaultKind::BadCallTarget => 12,
            FaultKind::Assert => 13,
            FaultKind::BadFree => 14,
            FaultKind::PartialWarp => 15,
            FaultKind::MBarrier => 16,
            FaultKind::Wgmma => 17,
            FaultKind::TensorMemory => 30,
            FaultKind::TensorMap => 18,
            FaultKind::Cluster => 19,
            FaultKind::SparseMetadata => 20,
        }
    }

    pub fn from_code(c: u32) -> FaultKind {
        match c {
            2 => FaultKind::Misaligned,
            3 => FaultKind::Unallocated,
            4 => FaultKind::Unsupported,
            5 => FaultKind::Trap,
            6 => FaultKind::Barrier,
            7 => FaultKind::BadHandle,
            8 => FaultKind::SurfaceBounds,
            9 => FaultKind::MemberMask,
            11 => FaultKind::StackOverflow,
            12 => FaultKind::BadCallTarget,
            13 => FaultKind::Assert,
            14 => FaultKind::BadFree,
            15 => FaultKind::PartialWarp,
            16 => FaultKind::MBarrier,
            17 => FaultKind::Wgmma,
            30 => FaultKind::TensorMemory,
            18 => FaultKind::TensorMap,
            19 => FaultKind::Cluster,
            20 => FaultKind::SparseMetadata,
            _ => FaultKind::OutOfBounds,
        }
    }
}

/// Numeric codes for spaces in fault records (JIT helpers pass them).
pub fn space_code(s: Space) -> u32 {
    match s {
        Space::Generic => 0,
        Space::Global => 1,
        Space::Shared => 2,
        Space::Local => 3,
        Space::Const => 4,
        Space::Param => 5,
    }
}

pub fn space_from_code(c: u32) -> Space {
    match c {
        1 => Space::Global,
        2 => Space::Shared,
        3 => Space::Local,
        4 => Space::Const,
        5 => Space::Param,
        _ => Space::Generic,
    }
}

/// One recorded fault, in kernel terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultRecord {
    pub kind: FaultKind,
    /// The space the address resolved to (or was given in).
    pub space: Space,
    pub addr: u64,
    /// Access size in bytes: of the whole access, even where the front end splits it (a
    /// misaligned `ld.v4.f32` is a misaligned access of 16 bytes, see
    /// [`CtaEnv::access_fault`]).
    pub size: u32,
    pub ctaid: [u32; 3],
    /// Thread index within the CTA.
    pub tid: [u32; 3],
    /// IR instruction index (mapped to PTX line and text by the launch).
    pub inst: u32,
    /// Whether it was a write.
    pub write: bool,
    /// Text the fault carries ([`FaultKind::Assert`]: the assertion and where it is).
    pub detail: Option<String>,
}

/// The instruction index a fault record uses for the *terminator* of block `b` in a function
/// of `n_insts` instructions: terminators are numbered after all instructions
/// (`n_insts + b`), and the launch's location tables hold the terminators' locations there
/// (see `host::CompiledKernel::inst_locs`).
pub fn terminator_fault_index(n_insts: usize, b: crate::ir::Block) -> u32 {
    (n_insts + b.index()) as u32
}

/// The index in launch order of CTA `ctaid` of a grid of `nctaid` CTAs in clusters of
/// `cluster_dims` CTAs ([`CtaEnv::cta_order`]).
pub fn cta_order(ctaid: [u32; 3], nctaid: [u32; 3], cluster_dims: [u32; 3]) -> u64 {
    let [x, y, z] = ctaid.map(u64::from);
    let [gx, gy, _] = nctaid.map(u64::from);
    let [dx, dy, dz] = cluster_dims.map(|d| u64::from(d.max(1)));
    let (ngx, ngy) = ((gx / dx).max(1), (gy / dy).max(1));
    let k = ((z / dz) * ngy + y / dy) * ngx + x / dx;
    let rank = ((z % dz) * dy + y % dy) * dx + x % dx;
    k * (dx * dy * dz) + rank
}

/// The stop flags of a launch. A fault ends a launch (PTX's faults are fatal to the grid), and
/// ptxjit reports the fault of the lowest CTA (in launch order, [`CtaEnv::cta_order`]: the
/// linear index but in a grid of clusters not along x) that faults: so that the report does
/// not depend on how CTAs happened to be spread over host threads, a fault stops only its own
/// CTA and the CTAs after it; CTAs before it run on until they end or fault themselves. A
/// cluster is the exception: its CTAs are co-scheduled and may wait for each other (a
/// cluster barrier, an mbarrier completed by another CTA's `st.async`), so when one of its
/// CTAs is stopped the cluster scheduler stops all of them, lower ranks included (a GPU ends
/// the whole grid; launch order keeps each cluster a run of consecutive indices, so no
/// cluster is partly stopped by a fault in another). A barrier or mbarrier deadlock stops
/// CTAs the same way (the lowest deadlocked CTA is reported); time limits, cluster and
/// grid-wide deadlocks stop everything. A failed `assert` stops nothing but its thread (see
/// [`CtaEnv::assert_failed`]).
#[derive(Debug)]
pub struct AbortControl {
    /// Linear index of the lowest CTA that has faulted (`u64::MAX`: none yet).
    min_fault_cta: std::sync::atomic::AtomicU64,
    /// Raised by a time limit or a deadlock: no CTA starts or continues.
    all: AtomicU32,
    /// Per host worker: the linear index of the CTA it runs (`u64::MAX`: none) and that CTA's
    /// stop flag (what [`CtaEnv::abort`] points to).
    slots: Vec<WorkerSlot>,
    /// Whether the launch was handed to the assertion grace watcher ([`assert_grace`]),
    /// which must forget it before it is dropped.
    grace_watched: std::sync::atomic::AtomicBool,
}

/// One worker's slot, alone in its cache lines: compiled code reads the stop flag at every
/// block dispatch, and another worker's per-CTA writes to a neighbouring slot would otherwise
/// take the line away each time.
#[derive(Debug)]
#[repr(align(128))]
struct WorkerSlot(std::sync::atomic::AtomicU64, AtomicU32);

impl AbortControl {
    /// Stop flags for up to `workers` CTAs running at once.
    pub fn new(workers: usize) -> AbortControl {
        AbortControl {
            min_fault_cta: std::sync::atomic::AtomicU64::new(u64::MAX),
            all: AtomicU32::new(0),
            slots: (0..workers.max(1))
                .map(|_| {
                    WorkerSlot(
                        std::sync::atomic::AtomicU64::new(u64::MAX),
                        AtomicU32::new(0),
                    )
                })
                .collect(),
            grace_watched: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Claim worker slot `worker` for CTA `cta`: its stop flag, or `None` when the CTA must
    /// not run (a lower or equal CTA has faulted, or everything stopped).
    pub fn begin(&self, worker: usize, cta: u64) -> Option<&AtomicU32> {
        let WorkerSlot(id, flag) = &self.slots[worker % self.slots.len()];
        flag.store(0, Ordering::SeqCst);
        id.store(cta, Ordering::SeqCst);
        // Checked after registering: a fault recorded meanwhile either is seen here or sees
        // this CTA in its scan.
        if self.all.load(Ordering::SeqCst) != 0 || cta >= self.min_fault_cta.load(Ordering::SeqCst)
        {
            id.store(u64::MAX, Ordering::SeqCst);
            return None;
        }
        Some(flag)
    }

    /// Claim worker slot `worker` for CTA `cta`, which must be the next CTA (`cta - 1` + 1)
    /// after the one the slot holds now (claimed by [`begin`](Self::begin) or `next`, and
    /// not released since): its stop flag, or `None` when the CTA must not run. The same
    /// answer as `begin`, without `begin`'s two sequentially consistent stores (each a full
    /// fence on x86, which waits for the previous CTA's stores to reach the cache: 5–8% of
    /// the CPU time of a C model of a streaming copy with 1 KiB CTAs on an AMD EPYC,
    /// docs/performance.md).
    ///
    /// # ⚠ Why no fence is needed
    /// A stop raises the flag of every slot whose CTA must stop and is never undone but by
    /// `begin`: [`stop_all`](Self::stop_all) raises every flag after `all`, and
    /// [`fault`](Self::fault)`(c)` lowers `min_fault_cta` to at most `c` before it raises the
    /// flag of each slot whose id it reads as at least `c`. Here the flag is not cleared:
    /// - A raised flag means the slot's CTA, `cta - 1` (or an earlier one of this worker, all
    ///   lower), was at least some faulting `c`, or everything stopped: then `cta`, higher,
    ///   must stop too, and `None` is the answer `begin` would give (`min_fault_cta` ≤ `c` <
    ///   `cta`, or `all` raised).
    /// - The id is stored relaxed, so a fault in CTA `c` on another worker may read the
    ///   slot's old id `cta - 1` or the new `cta`. `c` is neither `cta` (it runs here) nor
    ///   `cta - 1` (it ran here: its own fault was recorded by this thread, before this
    ///   call, which then reads `min_fault_cta` ≤ `cta - 1`). For any other `c`, `c ≤ cta - 1`
    ///   exactly when `c ≤ cta`, so either id gives the same decision: the flag is raised
    ///   when `cta` must stop, and the running CTA sees it as it sees any raised flag.
    /// - A flag or `min_fault_cta` not yet seen here is seen by the CTA's code at its next
    ///   flag check (the launch's stop is never missed, only seen some instructions later,
    ///   as with `begin`).
    pub fn next(&self, worker: usize, cta: u64) -> Option<&AtomicU32> {
        let WorkerSlot(id, flag) = &self.slots[worker % self.slots.len()];
        if flag.load(Ordering::Relaxed) != 0 {
            return None;
        }
        id.store(cta, Ordering::Relaxed);
        if self.all.load(Ordering::Relaxed) != 0
            || cta >= self.min_fault_cta.load(Ordering::Relaxed)
        {
            return None;
        }
        Some(flag)
    }

    /// Release worker slot `worker`.
    pub fn end(&self, worker: usize) {
        self.slots[worker % self.slots.len()]
            .0
            .store(u64::MAX, Ordering::SeqCst);
    }

    /// A fault in CTA `cta`: stop it and every running CTA after it.
    pub fn fault(&self, cta: u64) {
        self.min_fault_cta.fetch_min(cta, Ordering::SeqCst);
        for WorkerSlot(id, flag) in &self.slots {
            // (A released slot, `u64::MAX`, runs no CTA: its worker's next `begin` clears the
            // flag and reads `min_fault_cta`, and a flag raised after that clearing would stop
            // a CTA lower than `cta`.)
            let id = id.load(Ordering::SeqCst);
            if id != u64::MAX && id >= cta {
                flag.store(1, Ordering::SeqCst);
            }
        }
    }

    /// Stop every CTA (a time limit or a deadlock).
    pub fn stop_all(&self) {
        self.all.store(1, Ordering::SeqCst);
        for WorkerSlot(_, flag) in &self.slots {
            flag.store(1, Ordering::SeqCst);
        }
    }

    /// Whether some CTA has faulted.
    pub fn faulted(&self) -> bool {
        self.min_fault_cta.load(Ordering::SeqCst) != u64::MAX
    }

    /// Whether everything was stopped.
    pub fn stopped_all(&self) -> bool {
        self.all.load(Ordering::SeqCst) != 0
    }
}

impl Drop for AbortControl {
    fn drop(&mut self) {
        if self.grace_watched.load(Ordering::SeqCst) {
            let me = self as *const AbortControl as usize;
            grace_list().retain(|&(c, _)| c != me);
        }
    }
}

/// How long a launch runs on after its first failed device `assert` unless
/// `PTXJIT_ASSERT_GRACE` says otherwise ([`assert_grace`]).
pub const ASSERT_GRACE_DEFAULT: std::time::Duration = std::time::Duration::from_secs(1);

/// How long a launch runs on after its first failed device `assert` before every CTA still
/// running is stopped: `PTXJIT_ASSERT_GRACE` in seconds (a decimal number, 0 or more), else
/// [`ASSERT_GRACE_DEFAULT`]; a value that is not one is reported once on stderr and the
/// default used. Read once per process.
///
/// On a GPU the failing thread's trap ends the whole grid (CUDA C++ Programming Guide,
/// "Assertion": it "stops the kernel execution"), while other threads that reached their own
/// failing `assert` by then print their lines. Here the failing thread ends and the launch runs
/// on so that those threads print theirs too; threads that wait for the ended one (a spin on a
/// flag it would have set, a barrier it never reaches) would otherwise wait forever. After the
/// grace the launch ends with the assertion as its error (`cudaErrorAssert`), the lines of the
/// threads that failed an assertion by then printed.
pub fn assert_grace() -> std::time::Duration {
    static GRACE: std::sync::OnceLock<std::time::Duration> = std::sync::OnceLock::new();
    *GRACE.get_or_init(|| match std::env::var("PTXJIT_ASSERT_GRACE") {
        Err(_) => ASSERT_GRACE_DEFAULT,
        Ok(v) => match v.trim().parse::<f64>() {
            Ok(s) if (0.0..1e9).contains(&s) => std::time::Duration::from_secs_f64(s),
            _ => {
                eprintln!(
                    "ptxjit: PTXJIT_ASSERT_GRACE={v} is not a number of seconds (0 or more); \
                     using {} s",
                    ASSERT_GRACE_DEFAULT.as_secs_f64()
                );
                ASSERT_GRACE_DEFAULT
            }
        },
    })
}

/// The launches with a failed assertion still running: (address of the launch's
/// [`AbortControl`], when its grace ends). An entry is removed by the watcher when it stops
/// the launch, or by the control's `Drop`, under this lock, so the watcher never touches a
/// control that is gone.
static GRACE_LIST: Mutex<Vec<(usize, std::time::Instant)>> = Mutex::new(vec![]);

/// Wakes the grace watcher when a launch is added.
static GRACE_WAKE: std::sync::Condvar = std::sync::Condvar::new();

fn grace_list() -> std::sync::MutexGuard<'static, Vec<(usize, std::time::Instant)>> {
    GRACE_LIST
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Hands the launch of `control` to the grace watcher (one thread for the process, started at
/// the first failed assertion), which stops all its CTAs once [`assert_grace`] has passed.
/// Without the thread (it could not be started) the launch runs on as before.
fn watch_assert_grace(control: &AbortControl) {
    static WATCHER: std::sync::Once = std::sync::Once::new();
    WATCHER.call_once(|| {
        let _ = std::thread::Builder::new()
            .name("ptxjit-assert-grace".into())
            .spawn(|| {
                let mut list = grace_list();
                loop {
                    let now = std::time::Instant::now();
                    list.retain(|&(c, at)| {
                        if at > now {
                            return true;
                        }
                        // SAFETY: a listed control is alive: its `Drop` removes it from the
                        // list under this lock, and a launch's control does not move while
                        // its CTAs run (they point to it), which is when it is listed.
                        unsafe { (*(c as *const AbortControl)).stop_all() };
                        false
                    });
                    let next = list.iter().map(|&(_, at)| at).min();
                    list = match next {
                        None => GRACE_WAKE
                            .wait(list)
                            .unwrap_or_else(std::sync::PoisonError::into_inner),
                        Some(at) => {
                            GRACE_WAKE
                                .wait_timeout(list, at.saturating_duration_since(now))
                                .unwrap_or_else(std::sync::PoisonError::into_inner)
                                .0
                        }
                    };
                }
            });
    });
    let at = std::time::Instant::now() + assert_grace();
    control.grace_watched.store(true, Ordering::SeqCst);
    grace_list().push((control as *const AbortControl as usize, at));
    GRACE_WAKE.notify_all();
}

/// Collects faults from all workers; the first one (lowest CTA, then thread, in the order
/// recorded) is reported. Recording sets the launch's abort flag.
///
/// It also counts the threads of the reported fault's CTA that faulted. That number is the
/// same on every run and on both engines, where a count over the grid would not be: a fault
/// stops its own CTA at the end of the block being run (both engines check the stop flag
/// when they dispatch a block, and run a block for all its lanes) and the CTAs after it
/// whenever their workers next look, while the CTAs before it run on and — if one faults —
/// become the reported CTA.
#[derive(Debug, Default)]
pub struct FaultSink {
    state: Mutex<SinkState>,
}

#[derive(Debug, Default)]
struct SinkState {
    first: Option<FaultRecord>,
    /// Linear index of the CTA of `first`.
    cta: u64,
    /// The threads (linear index in the CTA, a bit each) of CTA `cta` that faulted.
    threads: Vec<u64>,
    /// The lines of the failed device `assert`s, (CTA, thread) linear indices first, the
    /// lowest [`ASSERT_LINES_MAX`] kept, in order.
    asserts: Vec<(u64, u32, String)>,
    /// Linear index of the lowest CTA with a fault other than a failed assertion (`None`:
    /// none): it stopped the CTAs after it, whose assertion lines are not printed.
    hard: Option<u64>,
    /// Whether a thread failed an assertion.
    asserted: bool,
}

/// The failed-assertion lines one launch prints at most (those of the lowest CTAs and
/// threads): a GPU prints one per failing thread through its 1 MiB printf buffer, which drops
/// what does not fit; here the CTAs past the last kept line stop once there are this many.
pub const ASSERT_LINES_MAX: usize = 1024;

impl FaultSink {
    /// Record a fault of thread `thread` (linear index in its CTA) of CTA `cta` (index in
    /// launch order, [`CtaEnv::cta_order`]).
    pub fn record(&self, r: FaultRecord, cta: u64, thread: u32) {
        self.record_inner(r, cta, thread, true);
    }

    /// [`record`](Self::record); `hard`: a fault that stops the CTAs after its own (every
    /// fault but a failed assertion).
    fn record_inner(&self, r: FaultRecord, cta: u64, thread: u32, hard: bool) {
        let Ok(mut g) = self.state.lock() else {
            return;
        };
        if hard {
            g.hard = Some(g.hard.map_or(cta, |h| h.min(cta)));
        }
        if g.first.is_some() {
            if cta > g.cta {
                return;
            }
            if cta < g.cta {
                g.first = None;
                g.threads.clear();
            }
        }
        g.cta = cta;
        let (word, bit) = ((thread / 64) as usize, thread % 64);
        if g.threads.len() <= word {
            g.threads.resize(word + 1, 0);
        }
        g.threads[word] |= 1 << bit;
        let key = |t: &[u32; 3]| (t[2], t[1], t[0]);
        if g.first
            .as_ref()
            .is_none_or(|old| key(&r.tid) < key(&old.tid))
        {
            g.first = Some(r);
        }
    }

    /// Record the failed assertion of thread `thread` of CTA `cta` (linear indices), `r` its
    /// fault and `line` CUDA's message for it. Gives whether it is the launch's first failed
    /// assertion, and the linear index of the first CTA whose lines can no longer be printed
    /// (the [`ASSERT_LINES_MAX`] kept are all before it), which the caller stops, or `None`.
    pub fn record_assert(
        &self,
        r: FaultRecord,
        cta: u64,
        thread: u32,
        line: String,
    ) -> (bool, Option<u64>) {
        self.record_inner(r, cta, thread, false);
        let Ok(mut g) = self.state.lock() else {
            return (false, None);
        };
        let first = !g.asserted;
        g.asserted = true;
        let key = (cta, thread);
        let at = g.asserts.partition_point(|(c, t, _)| (*c, *t) <= key);
        if at >= ASSERT_LINES_MAX {
            return (first, g.asserts.last().map(|(c, _, _)| c + 1));
        }
        g.asserts.insert(at, (cta, thread, line));
        g.asserts.truncate(ASSERT_LINES_MAX);
        let stop = (g.asserts.len() == ASSERT_LINES_MAX)
            .then(|| g.asserts.last().map(|(c, _, _)| c + 1))
            .flatten();
        (first, stop)
    }

    /// The failed-assertion lines to print, in order of CTA and thread (at most
    /// [`ASSERT_LINES_MAX`], then a line saying so), less those of the CTAs that another
    /// fault stopped (whether they ran that far depends on timing); clears them.
    pub fn take_assert_text(&self) -> String {
        let Ok(mut g) = self.state.lock() else {
            return String::new();
        };
        let hard = g.hard.unwrap_or(u64::MAX);
        let lines = std::mem::take(&mut g.asserts);
        let full = lines.len() == ASSERT_LINES_MAX;
        let mut text: String = lines
            .into_iter()
            .filter(|(c, _, _)| *c <= hard)
            .map(|(_, _, l)| l)
            .collect();
        if full {
            text += &format!(
                "ptxjit: at most {ASSERT_LINES_MAX} failed-assertion lines are printed per \
                 launch (the first threads, in order of CTA and thread); the CTAs after the \
                 last of them were stopped\n"
            );
        }
        text
    }

    /// Whether a thread failed an assertion in this launch: its trap would have ended the
    /// grid on a GPU, so a deadlock or time limit of threads that waited on after it is not
    /// the launch's error.
    pub fn asserted(&self) -> bool {
        self.state.lock().is_ok_and(|g| g.asserted)
    }

    /// Linear index of the reported fault's CTA (`None`: no fault recorded).
    pub fn first_cta(&self) -> Option<u64> {
        let g = self.state.lock().ok()?;
        g.first.as_ref().map(|_| g.cta)
    }

    /// The reported fault and how many threads of its CTA faulted.
    pub fn take(&self) -> Option<(FaultRecord, u64)> {
        let mut g = self.state.lock().ok()?;
        let threads = g.threads.iter().map(|w| u64::from(w.count_ones())).sum();
        g.first.take().map(|r| (r, threads))
    }
}

impl CtaEnv {
    /// Zero-fill the CTA's local memory for its next CTA: each thread's first
    /// [`stack_high`](Self::stack_high) bytes, which hold everything a CTA may have written
    /// but for a store past its thread's call-stack top (undefined in CUDA); the rest has
    /// stayed zero since the buffer was last zero-filled whole. Resets `stack_high`.
    // (Not inlined: `CtaBatch::advance`, which calls it only for kernels with local memory,
    // stays small enough to be inlined into the per-CTA path of the JIT's batches.)
    #[inline(never)]
    pub fn clear_local(&self) {
        let used = self
            .stack_high
            .swap(self.stack_base, Ordering::Relaxed)
            .min(self.local_size) as usize;
        if used == 0 || self.local_base.is_null() {
            return;
        }
        let size = self.local_size as usize;
        let threads = self.ntid.iter().map(|&n| n as usize).product::<usize>();
        if used == size {
            // SAFETY: the CTA's local area holds `local_size` bytes for each of its threads.
            unsafe { std::ptr::write_bytes(self.local_base, 0, threads * size) };
            return;
        }
        for t in 0..threads {
            // SAFETY: thread `t`'s area is `local_size` bytes at `t * local_size` of the
            // CTA's local area, and `used` < `local_size`.
            unsafe { std::ptr::write_bytes(self.local_base.add(t * size), 0, used) };
        }
    }

    /// Thread index (x, y, z) of `lane` in the current warp.
    pub fn tid(&self, lane: u32) -> [u32; 3] {
        let linear = self.warp * 32 + lane;
        let (nx, ny) = (self.ntid[0].max(1), self.ntid[1].max(1));
        [linear % nx, (linear / nx) % ny, linear / (nx * ny)]
    }

    /// Record a fault of `lane` at IR instruction `inst` and raise the abort flag.
    #[allow(clippy::too_many_arguments)]
    pub fn fault(
        &self,
        lane: u32,
        inst: u32,
        kind: FaultKind,
        space: Space,
        addr: u64,
        size: u32,
        write: bool,
    ) {
        self.record(FaultRecord {
            kind,
            space,
            addr,
            size,
            ctaid: self.ctaid,
            tid: self.tid(lane),
            inst,
            write,
            detail: None,
        });
    }

    /// Record a fault of `kind` carrying `detail` (no address) for `lane` at IR instruction
    /// `inst`, and raise the abort flag.
    pub fn fault_detail(&self, lane: u32, inst: u32, kind: FaultKind, detail: String) {
        self.record(self.detail_record(lane, inst, kind, detail));
    }

    /// The record of a fault of `kind` carrying `detail` (no address) for `lane` at IR
    /// instruction `inst`.
    fn detail_record(&self, lane: u32, inst: u32, kind: FaultKind, detail: String) -> FaultRecord {
        FaultRecord {
            kind,
            space: Space::Generic,
            addr: 0,
            size: 0,
            ctaid: self.ctaid,
            tid: self.tid(lane),
            inst,
            write: false,
            detail: Some(detail),
        }
    }

    /// Record the failed device `assert` of `lane` at IR instruction `inst` (`detail`: the
    /// assertion and where it is; `line`: CUDA's message, printed when the launch ends). The
    /// launch runs on (the lane has ended: `__assertfail` does not return), so that every
    /// thread that fails an assertion prints its line, as on a GPU, up to
    /// [`ASSERT_LINES_MAX`] lines; then the CTAs after the last kept line stop. The launch's
    /// first failed assertion starts its grace ([`assert_grace`]), after which every CTA
    /// still running stops (threads that wait for the ended one would otherwise wait forever).
    pub fn assert_failed(&self, lane: u32, inst: u32, detail: String, line: String) {
        let r = self.detail_record(lane, inst, FaultKind::Assert, detail);
        let (cta, thread) = self.linear_ids(lane);
        // SAFETY: as in `record`.
        unsafe {
            let (first, stop) = (*self.sink).record_assert(r, cta, thread, line);
            if let Some(stop) = stop {
                (*self.control).fault(stop);
            }
            if first {
                watch_assert_grace(&*self.control);
            }
        }
    }

    /// Record the fault of an access that [`translate`] refused (`err`: its kind and the
    /// resolved space) for `lane` at IR instruction `inst`. `size` and `align` are the
    /// access's: where `align` is larger, the access is the first element of a vector the
    /// front end split into element accesses (`ld.v4.f32`: four 4-byte loads, the first
    /// carrying the vector's 16-byte alignment, PTX ISA §9.7.9.8), and a misaligned one is
    /// reported as the vector access it is, of `align` bytes.
    #[allow(clippy::too_many_arguments)]
    pub fn access_fault(
        &self,
        lane: u32,
        inst: u32,
        err: (FaultKind, Space),
        addr: u64,
        size: u32,
        align: u32,
        write: bool,
    ) {
        let (kind, space) = err;
        let size = match kind {
            FaultKind::Misaligned => size.max(align),
            _ => size,
        };
        self.fault(lane, inst, kind, space, addr, size, write);
    }

    /// The index of this CTA in launch order ([`Self::cta_order`]) and the linear index of
    /// `lane`'s thread in the CTA.
    pub fn linear_ids(&self, lane: u32) -> (u64, u32) {
        (self.cta_order(), self.warp * 32 + lane)
    }

    /// The index of this CTA in launch order, which orders faults, deadlocks and findings
    /// ([`AbortControl`]): clusters in linear order of their cluster index (`%clusterid`),
    /// and in each cluster its CTAs in order of `%cluster_ctarank` (`k * size + rank`, as the
    /// cluster scheduler numbers them). Without clusters (`cluster_dims` `[1, 1, 1]`), and
    /// wherever every cluster is a run of consecutive CTAs (clusters along x only, or as wide
    /// as the grid), this is the CTA's linear index in the grid (`ctaid.x` fastest).
    pub fn cta_order(&self) -> u64 {
        cta_order(self.ctaid, self.nctaid, self.cluster_dims)
    }

    fn record(&self, r: FaultRecord) {
        let linear = self.cta_order();
        let [tx, ty, tz] = r.tid;
        let [nx, ny, _] = self.ntid;
        let thread = (tz * ny + ty) * nx + tx;
        // SAFETY: `sink` and `control` point to values owned by the launch, alive for the
        // whole launch (the CTA scheduler builds every CtaEnv from them).
        unsafe {
            (*self.sink).record(r, linear, thread);
            (*self.control).fault(linear);
        }
    }

    /// The state of this CTA's cluster, if the scheduler gave one.
    pub fn cluster_state(&self) -> Option<&super::cluster::ClusterState> {
        // SAFETY: null, or the cluster's state, which the worker running this CTA keeps
        // alive while the CTA runs.
        unsafe { self.cluster.as_ref() }
    }

    /// The CTA's record of failing mbarrier waits, if its deadlocks are judged.
    pub fn mbar_waits(&self) -> Option<&super::mbarrier::MbarWaits> {
        // SAFETY: null, or the state the worker running this CTA keeps with its buffers,
        // alive while the CTA runs.
        unsafe { self.mbar_waits.as_ref() }
    }

    /// The launch's work counter for `clusterlaunchcontrol.try_cancel`, if it has one.
    pub fn launch_control(&self) -> Option<&super::clc::LaunchControl> {
        // SAFETY: null, or the launch's control, which `launch::run_grid` keeps alive until
        // every CTA has ended.
        unsafe { self.launch_control.as_ref() }
    }

    /// This CTA's position in its cluster (`%cluster_ctaid`).
    pub fn cluster_ctaid(&self) -> [u32; 3] {
        std::array::from_fn(|k| self.ctaid[k] % self.cluster_dims[k].max(1))
    }

    /// This CTA's rank in its cluster (`%cluster_ctarank`, x fastest).
    pub fn cluster_rank(&self) -> u32 {
        let [x, y, z] = self.cluster_ctaid();
        let [dx, dy, _] = self.cluster_dims;
        x + dx * (y + dy * z)
    }

    /// The value of special register `reg` for `lane` of the current warp (PTX ISA §10),
    /// zero-extended. Both engines read the clocks through this (once per warp instruction).
    pub fn sreg(&self, reg: crate::ir::SReg, lane: u32) -> u64 {
        use crate::ir::SReg::*;
        match reg {
            TidX => self.tid(lane)[0] as u64,
            TidY => self.tid(lane)[1] as u64,
            TidZ => self.tid(lane)[2] as u64,
            NtidX => self.ntid[0] as u64,
            NtidY => self.ntid[1] as u64,
            NtidZ => self.ntid[2] as u64,
            CtaidX => self.ctaid[0] as u64,
            CtaidY => self.ctaid[1] as u64,
            CtaidZ => self.ctaid[2] as u64,
            NctaidX => self.nctaid[0] as u64,
            NctaidY => self.nctaid[1] as u64,
            NctaidZ => self.nctaid[2] as u64,
            LaneId => lane as u64,
            WarpId => self.warp as u64,
            NWarpId => self.nwarps as u64,
            LanemaskEq | LanemaskLe | LanemaskLt | LanemaskGe | LanemaskGt => {
                super::semantics::lanemask(reg, lane) as u64
            }
            Clock => self.launch_start.elapsed().as_nanos() as u32 as u64,
            ClockHi => (self.launch_start.elapsed().as_nanos() as u64) >> 32,
            Clock64 => self.launch_start.elapsed().as_nanos() as u64,
            GlobalTimer => global_timer(),
            GlobalTimerLo => global_timer() & 0xffff_ffff,
            GlobalTimerHi => global_timer() >> 32,
            EnvReg(1) => self.grid_workspace >> 32,
            EnvReg(2) => self.grid_workspace & 0xffff_ffff,
            EnvReg(_) => 0,
            SmId => {
                let [x, y, z] = self.ctaid;
                let [nx, ny, _] = self.nctaid;
                let linear = x as u64 + nx as u64 * (y as u64 + ny as u64 * z as u64);
                linear % self.nsmid.max(1) as u64
            }
            NSmId => self.nsmid.max(1) as u64,
            GridId => self.gridid,
            DynamicSmemSize => self.dynamic_smem as u64,
            TotalSmemSize => self.shared_size.next_multiple_of(SMEM_ALLOC_UNIT),
            AggrSmemSize => {
                self.shared_size.next_multiple_of(SMEM_ALLOC_UNIT) + RESERVED_SMEM_BYTES
            }
            ReservedSmemBegin => RESERVED_SMEM_BEGIN,
            ReservedSmemEnd => RESERVED_SMEM_BEGIN + RESERVED_SMEM_BYTES,
            ReservedSmemCap => RESERVED_SMEM_BYTES,
            ReservedSmemOffset0 => RESERVED_SMEM_OFFSET_0,
            ReservedSmemOffset1 => RESERVED_SMEM_OFFSET_1,
            Pm(_) | Pm64(_) | CurrentGraphExec => 0,
            // One locality domain, holding every SM (docs/isa-notes.md).
            LocalityDomainId | LocalityDomainSupplementalSm => 0,
            ClusterIdX => (self.ctaid[0] / self.cluster_dims[0].max(1)) as u64,
            ClusterIdY => (self.ctaid[1] / self.cluster_dims[1].max(1)) as u64,
            ClusterIdZ => (self.ctaid[2] / self.cluster_dims[2].max(1)) as u64,
            NClusterIdX => (self.nctaid[0] / self.cluster_dims[0].max(1)) as u64,
            NClusterIdY => (self.nctaid[1] / self.cluster_dims[1].max(1)) as u64,
            NClusterIdZ => (self.nctaid[2] / self.cluster_dims[2].max(1)) as u64,
            ClusterCtaidX => self.cluster_ctaid()[0] as u64,
            ClusterCtaidY => self.cluster_ctaid()[1] as u64,
            ClusterCtaidZ => self.cluster_ctaid()[2] as u64,
            ClusterNctaidX => self.cluster_dims[0] as u64,
            ClusterNctaidY => self.cluster_dims[1] as u64,
            ClusterNctaidZ => self.cluster_dims[2] as u64,
            ClusterCtaRank => self.cluster_rank() as u64,
            ClusterNctaRank => self.cluster_dims.iter().product::<u32>() as u64,
            IsExplicitCluster => self.cluster_explicit as u64,
        }
    }

    /// racecheck: an access of `size` bytes at host pointer `p` (what [`translate`] returned)
    /// by `lane` at IR instruction `inst`. Shared memory is checked, and global memory when
    /// the launch asks for it ([`super::race::RaceSink::global`]); nothing happens when the
    /// tool is off (a null [`CtaEnv::race`]) or `p` is in neither.
    #[inline]
    pub fn race_access(
        &self,
        lane: u32,
        inst: u32,
        p: *const u8,
        size: u32,
        kind: super::race::AccessKind,
    ) {
        self.race_access_with(lane, inst, p, size, kind, false);
    }

    /// racecheck: a plain store of the bytes `new` (`size` bytes) at host pointer `p`, before
    /// it is made; a store of the bytes memory holds already does not race with an earlier
    /// plain write ([`super::race::RaceCta::access_with`]). Stores wider than `new` count as
    /// changing memory.
    ///
    /// # Safety
    /// `p` is what [`translate`] returned for this `size`-byte access: `size` readable bytes.
    #[inline]
    pub unsafe fn race_store(&self, lane: u32, inst: u32, p: *const u8, size: u32, new: &[u8]) {
        if self.race.is_null() {
            return;
        }
        let same = size as usize <= new.len() && {
            // SAFETY: the caller's promise.
            let old = unsafe { std::slice::from_raw_parts(p, size as usize) };
            old == &new[..size as usize]
        };
        self.race_access_with(lane, inst, p, size, super::race::AccessKind::Write, same);
    }

    fn race_access_with(
        &self,
        lane: u32,
        inst: u32,
        p: *const u8,
        size: u32,
        kind: super::race::AccessKind,
        same: bool,
    ) {
        if self.race.is_null() {
            return;
        }
        // SAFETY: `race` and `race_sink` are non-null together (the scheduler sets both),
        // point to this CTA's state and the launch's sink, alive for the launch, and the CTA
        // runs on this host thread only.
        let (race, sink) = unsafe { (&*self.race, &*self.race_sink) };
        let t = self.warp * 32 + lane;
        let off = (p as usize).wrapping_sub(self.shared_base as usize) as u64;
        if off < self.shared_size {
            race.access_with(sink, t, inst, off, size, kind, same);
            return;
        }
        let res = (p as usize).wrapping_sub(self.reserved_base as usize) as u64;
        if !self.reserved_base.is_null() && res < RESERVED_SMEM_BYTES {
            // The reserved region is not checked for races (see `RESERVED_SMEM_BEGIN`), but
            // the releases and acquires that cooperative groups make there order accesses.
            race.sync_only(sink, t, inst, RESERVED_SMEM_BEGIN + res, kind);
            return;
        }
        let off = (p as usize).wrapping_sub(self.global_base as usize) as u64;
        if sink.global() && off < self.global_top {
            race.access_global_with(sink, t, inst, GLOBAL_BASE + off, size, kind, same);
        }
    }

    /// racecheck: global bytes `[addr, addr + size)` are a new allocation (device `malloc`):
    /// nothing done to them before races with what is done after.
    pub fn race_fresh(&self, addr: u64, size: u64) {
        // SAFETY: as in `race_access`.
        if let Some(r) = unsafe { self.race.as_ref() } {
            r.forget_global(addr, size);
        }
    }

    /// racecheck: `lane` arrived on the mbarrier object at shared offset `obj`, completing
    /// the phase of parity `completed` if it did ([`super::race::RaceCta::mbar_arrive`]).
    pub fn race_mbar_arrive(&self, lane: u32, obj: u64, completed: Option<u32>) {
        // SAFETY: as in `race_access`.
        if let Some(r) = unsafe { self.race.as_ref() } {
            r.mbar_arrive(obj, self.warp * 32 + lane, completed);
        }
    }

    /// racecheck: `lane` waited successfully for the phase of parity `parity` of the mbarrier
    /// object at shared offset `obj` ([`super::race::RaceCta::mbar_waited`]).
    pub fn race_mbar_waited(&self, lane: u32, obj: u64, parity: u32) {
        // SAFETY: as in `race_access`.
        if let Some(r) = unsafe { self.race.as_ref() } {
            r.mbar_waited(obj, self.warp * 32 + lane, parity);
        }
    }

    /// racecheck: the lanes of `lanes` of the current warp synchronized with each other.
    #[inline]
    pub fn race_warp_sync(&self, lanes: u32) {
        // SAFETY: as in `race_access`.
        if let Some(r) = unsafe { self.race.as_ref() } {
            r.warp_sync(self.warp, lanes);
        }
    }

    /// synccheck's sink, when the tool is on.
    pub fn synccheck(&self) -> Option<&super::synccheck::SyncSink> {
        // SAFETY: null, or the launch's sink, alive for the whole launch.
        unsafe { self.synccheck.as_ref() }
    }

    /// Who synccheck findings of this CTA name.
    pub fn sync_who(&self) -> super::synccheck::CtaWho {
        super::synccheck::CtaWho {
            ctaid: self.ctaid,
            nctaid: self.nctaid,
            ntid: self.ntid,
        }
    }

    /// Record a synccheck finding of `kind` at instruction `inst` for the lanes `lanes` of
    /// the current warp (nothing when the tool is off).
    pub fn sync_finding(
        &self,
        kind: super::synccheck::SyncKind,
        inst: u32,
        lanes: u32,
        detail: impl FnOnce() -> String,
    ) {
        if let Some(s) = self.synccheck() {
            s.record(&self.sync_who(), kind, inst, self.warp, lanes, detail);
        }
    }

    /// Add `n` executed thread-instructions to the launch's count.
    pub fn count_thread_instructions(&self, n: u64) {
        // SAFETY: points to the launch's counter, alive for the whole launch.
        unsafe { (*self.thread_instructions).fetch_add(n, Ordering::Relaxed) };
    }

    /// The context's texture table.
    pub fn textures(&self) -> &super::texture::TextureTable {
        // SAFETY: points to the launching context's table, alive and unchanged for the whole
        // launch (`Context::launch` holds `&mut self`).
        unsafe { &*self.textures }
    }

    /// Whether the launch is being stopped.
    pub fn aborted(&self) -> bool {
        // SAFETY: as in fault().
        unsafe { (*self.abort).load(Ordering::Relaxed) != 0 }
    }
}

/// `%globaltimer` (PTX ISA §10.29): nanoseconds since the Unix epoch, from the host's clock.
fn global_timer() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// Translate an address in `space` to a host pointer for an access of `size` bytes aligned to
/// `align` (PTX ISA §5.1 state spaces, §6.4.1 generic addressing). Returns the fault kind and
/// the resolved space on failure.
#[inline]
pub fn translate(
    env: &CtaEnv,
    space: Space,
    addr: u64,
    size: u32,
    align: u32,
    lane: u32,
) -> Result<*mut u8, (FaultKind, Space)> {
    let space = if space == Space::Generic {
        if addr.wrapping_sub(SHARED_WINDOW) < WINDOW_SIZE {
            return translate(env, Space::Shared, addr - SHARED_WINDOW, size, align, lane);
        }
        if addr.wrapping_sub(LOCAL_WINDOW) < WINDOW_SIZE {
            return translate(env, Space::Local, addr - LOCAL_WINDOW, size, align, lane);
        }
        if let Some(off) = param_offset(addr) {
            return translate(env, Space::Param, off, size, align, lane);
        }
        Space::Global
    } else {
        space
    };
    if align > 1 && !addr.is_multiple_of(align as u64) {
        return Err((FaultKind::Misaligned, space));
    }
    let size = size as u64;
    match space {
        Space::Global | Space::Const => {
            // The thread's own pending reductions first (`runtime::redcombine`).
            super::redcombine::flush_overlap(env, addr, size);
            let off = addr.wrapping_sub(GLOBAL_BASE);
            if addr < GLOBAL_BASE || off >= env.global_top || env.global_top - off < size {
                return Err((FaultKind::OutOfBounds, space));
            }
            if env.memcheck & CHECK_BOUNDS != 0 {
                // SAFETY: `memory` outlives the launch and is not mutated during it.
                let ok = unsafe { (*env.memory).in_allocation(addr, size) };
                if !ok {
                    return Err((FaultKind::Unallocated, space));
                }
                // Inside the device heap, the access must also lie in one live block.
                // SAFETY: `heap` is null or points to the context's heap, alive for the launch.
                if let Some(h) = unsafe { env.heap.as_ref() } {
                    if h.is_checked()
                        && h.contains(addr)
                        && h.check(addr, size) != super::heap::HeapAccess::Live
                    {
                        return Err((FaultKind::Unallocated, space));
                    }
                }
            }
            // SAFETY: off + size <= global_top <= arena capacity.
            Ok(unsafe { env.global_base.add(off as usize) })
        }
        Space::Shared => {
            if addr >= env.shared_size || env.shared_size - addr < size {
                if let Some(p) = reserved_smem(env, addr, size) {
                    return Ok(p);
                }
                // Another CTA's shared memory, through a `.shared::cluster` address.
                return super::cluster::translate(env, addr, size)
                    .ok_or((FaultKind::OutOfBounds, space));
            }
            // SAFETY: addr + size <= shared_size.
            Ok(unsafe { env.shared_base.add(addr as usize) })
        }
        Space::Param => {
            if addr >= env.param_size || env.param_size - addr < size {
                return Err((FaultKind::OutOfBounds, space));
            }
            // SAFETY: addr + size <= param_size.
            Ok(unsafe { env.param_base.add(addr as usize) })
        }
        Space::Local => {
            if addr >= env.local_size || env.local_size - addr < size {
                return Err((FaultKind::OutOfBounds, space));
            }
            let thread = (env.warp * 32 + lane) as u64;
            // SAFETY: the CTA's local area holds local_size bytes for each of its threads, and
            // `thread` is a thread of this CTA.
            Ok(unsafe {
                env.local_base
                    .add((thread * env.local_size + addr) as usize)
            })
        }
        Space::Generic => Err((FaultKind::Unsupported, space)),
    }
}

/// [`translate`]'s common cases without a call: a `size`-byte access aligned to `align` (a
/// power of two) at `addr` of `space` that lies inside this CTA's own shared memory, the
/// kernel's parameters, or the global arena while memcheck's allocation check is off (a
/// generic address resolved through the shared or parameter window, or taken as global
/// outside the three windows). `None` for everything else (misaligned, an alignment that is
/// not a power of two, out of bounds, the reserved region, another CTA's shared memory through
/// a `.shared::cluster` address, local space, memcheck on), where the caller goes to
/// [`translate`], which returns the same pointer for every access this returns one for and
/// decides and reports the rest. Like [`translate`], a global access first performs the
/// thread's pending reductions it may overlap (`runtime::redcombine`). Tools' hooks
/// ([`init_access`], racecheck) are the caller's. Inlined into its caller (the group
/// helper's lane loop), where the call cost about a third of its work per lane.
#[inline(always)]
pub fn translate_plain(
    env: &CtaEnv,
    space: Space,
    addr: u64,
    size: u32,
    align: u32,
) -> Option<*mut u8> {
    let (space, addr) = match space {
        Space::Generic if addr.wrapping_sub(SHARED_WINDOW) < WINDOW_SIZE => {
            (Space::Shared, addr - SHARED_WINDOW)
        }
        Space::Generic if addr.wrapping_sub(LOCAL_WINDOW) < WINDOW_SIZE => return None,
        Space::Generic => match param_offset(addr) {
            Some(off) => (Space::Param, off),
            None => (Space::Global, addr),
        },
        s => (s, addr),
    };
    // (A mask for the alignments accesses have; any other goes to `translate`.)
    if align > 1 && (!align.is_power_of_two() || addr & (align as u64 - 1) != 0) {
        return None;
    }
    let size = size as u64;
    match space {
        Space::Shared => {
            if addr >= env.shared_size || env.shared_size - addr < size {
                return None;
            }
            // SAFETY: addr + size <= shared_size.
            Some(unsafe { env.shared_base.add(addr as usize) })
        }
        Space::Global | Space::Const => {
            if env.memcheck & CHECK_BOUNDS != 0 {
                return None;
            }
            super::redcombine::flush_overlap(env, addr, size);
            let off = addr.wrapping_sub(GLOBAL_BASE);
            if addr < GLOBAL_BASE || off >= env.global_top || env.global_top - off < size {
                return None;
            }
            // SAFETY: off + size <= global_top <= arena capacity.
            Some(unsafe { env.global_base.add(off as usize) })
        }
        Space::Param => {
            if addr >= env.param_size || env.param_size - addr < size {
                return None;
            }
            // SAFETY: addr + size <= param_size.
            Some(unsafe { env.param_base.add(addr as usize) })
        }
        Space::Local | Space::Generic => None,
    }
}

/// The host pointer of a `size`-byte access at shared offset `addr` inside the CTA's reserved
/// region ([`RESERVED_SMEM_BEGIN`]), or `None` where the access is not wholly inside it or
/// the CTA has no region.
#[inline]
fn reserved_smem(env: &CtaEnv, addr: u64, size: u64) -> Option<*mut u8> {
    let off = addr.wrapping_sub(RESERVED_SMEM_BEGIN);
    if env.reserved_base.is_null() || off >= RESERVED_SMEM_BYTES || RESERVED_SMEM_BYTES - off < size
    {
        return None;
    }
    // SAFETY: off + size <= RESERVED_SMEM_BYTES, the region's host bytes.
    Some(unsafe { env.reserved_base.add(off as usize) })
}

/// Read an aligned 1-, 2- or 4-byte shared-memory value at `addr` for `lane` (a tensor-core
/// operand through a matrix descriptor, a word of a source matrix): [`translate`] checks it,
/// initcheck records the read at IR instruction `inst`, and the bytes are returned
/// zero-extended. Errors are [`translate`]'s.
pub fn read_shared(
    env: &CtaEnv,
    addr: u64,
    bytes: u32,
    lane: u32,
    inst: u32,
) -> Result<u64, (FaultKind, Space)> {
    let p = translate(env, Space::Shared, addr, bytes, bytes, lane)?;
    init_access(
        env,
        Space::Shared,
        addr,
        bytes,
        lane,
        inst,
        super::initcheck::InitAccess::Read,
    );
    // SAFETY: `translate` checked `bytes` bytes at `p` inside the CTA's shared memory, aligned
    // to `bytes`; the CTA's warps run on this host thread.
    Ok(unsafe {
        match bytes {
            1 => *p as u64,
            2 => (p as *const u16).read() as u64,
            _ => (p as *const u32).read() as u64,
        }
    })
}

/// initcheck, for an access that [`translate`] accepted (a no-op unless [`CHECK_INIT`] is
/// on): a read of bytes nobody has written is recorded as a finding of `lane` at IR
/// instruction `inst`; a write marks its bytes written. Global (and const) addresses use the
/// arena's shadow, shared ones the CTA's; local and param accesses are not tracked.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn init_access(
    env: &CtaEnv,
    space: Space,
    addr: u64,
    size: u32,
    lane: u32,
    inst: u32,
    access: super::initcheck::InitAccess,
) {
    if env.memcheck & CHECK_INIT == 0 {
        return;
    }
    init_access_slow(env, space, addr, size, lane, inst, access);
}

#[allow(clippy::too_many_arguments)]
fn init_access_slow(
    env: &CtaEnv,
    space: Space,
    addr: u64,
    size: u32,
    lane: u32,
    inst: u32,
    access: super::initcheck::InitAccess,
) {
    use super::initcheck::{first_unset, set_range, InitAccess, InitRecord};
    let (space, off) = match space {
        Space::Generic if addr.wrapping_sub(SHARED_WINDOW) < WINDOW_SIZE => {
            (Space::Shared, addr - SHARED_WINDOW)
        }
        Space::Generic if addr.wrapping_sub(LOCAL_WINDOW) < WINDOW_SIZE => return,
        Space::Generic if param_offset(addr).is_some() => return,
        Space::Generic | Space::Global => (Space::Global, addr.wrapping_sub(GLOBAL_BASE)),
        Space::Const => (Space::Const, addr.wrapping_sub(GLOBAL_BASE)),
        Space::Shared => (Space::Shared, addr),
        Space::Local | Space::Param => return,
    };
    // A `.shared::cluster` address: the shadow of the CTA it names.
    let (shadow, off) = if space == Space::Shared && off >= env.shared_size {
        match super::cluster::init_shadow(env, off) {
            Some(x) => x,
            None => return,
        }
    } else {
        (env.shared_init, off)
    };
    let len = u64::from(size);
    let unwritten = |off: u64| -> Option<u64> {
        if space == Space::Shared {
            if shadow.is_null() {
                return None;
            }
            // SAFETY: translate checked off + len <= shared_size, and the shadow has a bit
            // for each of the (target) CTA's shared bytes.
            unsafe { first_unset(shadow, off, len) }
        } else {
            // SAFETY: `memory` outlives the launch; the shadow is only read and set
            // atomically during it.
            let shadow = unsafe { (*env.memory).init_shadow() };
            shadow.and_then(|s| s.first_unwritten(off, len))
        }
    };
    if access != InitAccess::Write {
        if let Some(first) = unwritten(off) {
            // SAFETY: `init` is null or the launch's findings, alive for the launch.
            if let Some(f) = unsafe { env.init.as_ref() } {
                let base = if space == Space::Shared {
                    0
                } else {
                    GLOBAL_BASE
                };
                let (cta, thread) = env.linear_ids(lane);
                f.record(
                    InitRecord {
                        space,
                        addr: off.wrapping_add(base),
                        first_unwritten: first.wrapping_add(base),
                        size,
                        ctaid: env.ctaid,
                        tid: env.tid(lane),
                        inst,
                        atomic: access != InitAccess::Read,
                    },
                    cta,
                    thread,
                );
            }
        }
    }
    if matches!(access, InitAccess::Write | InitAccess::Exchange) {
        if space == Space::Shared {
            if !shadow.is_null() {
                // SAFETY: as above.
                unsafe { set_range(shadow, off, len, true) };
            }
        } else {
            // SAFETY: as above.
            if let Some(s) = unsafe { (*env.memory).init_shadow() } {
                s.set(off, len, true);
            }
        }
    }
}

/// Whether an access to `addr` in `space` reaches the global state space (directly, or as a
/// generic address outside the shared and local windows).
#[inline]
pub fn resolves_to_global(space: Space, addr: u64) -> bool {
    match space {
        Space::Global => true,
        Space::Generic => {
            addr.wrapping_sub(SHARED_WINDOW) >= WINDOW_SIZE
                && addr.wrapping_sub(LOCAL_WINDOW) >= WINDOW_SIZE
                && param_offset(addr).is_none()
        }
        _ => false,
    }
}

/// The kernel-parameter offset of a generic address in the parameter window (`cvta.param`).
#[inline]
pub fn param_offset(addr: u64) -> Option<u64> {
    (addr.wrapping_sub(PARAM_WINDOW) < WINDOW_SIZE).then(|| addr - PARAM_WINDOW)
}

/// `cvta` (PTX ISA §9.7.9.22): shared/local offsets to generic addresses and back; global
/// addresses are the same in both.
pub fn cvta(space: Space, to_generic: bool, addr: u64) -> u64 {
    let window = match space {
        Space::Shared => SHARED_WINDOW,
        Space::Local => LOCAL_WINDOW,
        Space::Param => PARAM_WINDOW,
        _ => 0,
    };
    if to_generic {
        addr.wrapping_add(window)
    } else {
        addr.wrapping_sub(window)
    }
}

/// `isspacep` (PTX ISA §9.7.9.20): whether generic address `addr` lies in `space`'s window.
/// Global is everything outside the shared, local and param windows (const banks live in the
/// global arena, so their addresses are global too); the lowering of `isspacep.global` adds
/// the param window, which the ISA places inside the global one. The lowering implements `isspacep.const` itself,
/// by the module's `.const` variables' address ranges; here `Const` answers as global.
pub fn is_space(space: Space, addr: u64) -> bool {
    let shared = addr.wrapping_sub(SHARED_WINDOW) < WINDOW_SIZE;
    let local = addr.wrapping_sub(LOCAL_WINDOW) < WINDOW_SIZE;
    let param = param_offset(addr).is_some();
    match space {
        Space::Shared => shared,
        Space::Local => local,
        Space::Param => param,
        Space::Global | Space::Const => !shared && !local && !param,
        Space::Generic => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `%tid` table against the PTX ISA's numbering (§10.4: x fastest, then y, then z)
    /// computed with divisions, for blocks with ragged last warps and each dimension 1.
    #[test]
    fn tid_table_numbers_threads_x_fastest() {
        for ntid in [
            [1, 1, 1],
            [32, 1, 1],
            [5, 3, 2],
            [7, 1, 9],
            [1, 6, 7],
            [3, 4, 5],
            [33, 2, 1],
        ] {
            let (t, stride) = tid_table(ntid);
            let threads = ntid[0] * ntid[1] * ntid[2];
            assert_eq!(stride, threads.div_ceil(32) * 32);
            assert_eq!(t.len(), 3 * stride as usize);
            // The shared table of the same shape, made new or kept from the last call.
            for _ in 0..2 {
                let (shared, shared_stride) = tid_table_shared(ntid);
                assert_eq!((&shared[..], shared_stride), (&t[..], stride), "{ntid:?}");
            }
            let s = stride as usize;
            for linear in 0..stride {
                let l = linear as usize;
                let want = if linear < threads {
                    [
                        linear % ntid[0],
                        linear / ntid[0] % ntid[1],
                        linear / (ntid[0] * ntid[1]),
                    ]
                } else {
                    [0, 0, 0]
                };
                assert_eq!(
                    [t[l], t[s + l], t[2 * s + l]],
                    want,
                    "{ntid:?} thread {linear}"
                );
            }
        }
    }

    fn rec(ctaid: [u32; 3], tid: [u32; 3], addr: u64) -> FaultRecord {
        FaultRecord {
            kind: FaultKind::OutOfBounds,
            space: Space::Global,
            addr,
            size: 4,
            ctaid,
            tid,
            inst: 0,
            write: false,
            detail: None,
        }
    }

    /// Launch order: without clusters and with clusters along x, the linear CTA index; with
    /// 1x2 clusters in a 2x2 grid (`%clusterid.x` = `%ctaid.x`, `%cluster_ctarank` =
    /// `%ctaid.y`, PTX ISA §10.14-10.19), cluster (0,0,0) is CTAs (0,0,0) and (0,1,0), then
    /// cluster (1,0,0); 2x1x2 clusters in a 4x1x2 grid likewise.
    #[test]
    fn cta_order_keeps_clusters_whole() {
        let all = |g: [u32; 3], c: [u32; 3]| {
            let mut v = vec![];
            for z in 0..g[2] {
                for y in 0..g[1] {
                    for x in 0..g[0] {
                        v.push(cta_order([x, y, z], g, c));
                    }
                }
            }
            v
        };
        // CTAs in linear order (x fastest).
        assert_eq!(all([3, 2, 2], [1, 1, 1]), (0..12).collect::<Vec<_>>());
        assert_eq!(all([4, 2, 1], [2, 1, 1]), (0..8).collect::<Vec<_>>());
        assert_eq!(all([2, 4, 1], [2, 2, 1]), (0..8).collect::<Vec<_>>());
        // (0,0) (1,0) (0,1) (1,1): ranks 0 and 1 of cluster 0 are (0,0) and (0,1).
        assert_eq!(all([2, 2, 1], [1, 2, 1]), vec![0, 2, 1, 3]);
        // 4x1x2 in 2x1x2 clusters: cluster 0 is x 0-1, z 0-1 (ranks x + 2z), cluster 1 x 2-3.
        assert_eq!(all([4, 1, 2], [2, 1, 2]), vec![0, 1, 4, 5, 2, 3, 6, 7]);
    }

    /// The sink reports the lowest CTA's lowest thread's first fault, and counts the threads
    /// of that CTA that faulted, each once; faults of later CTAs are not counted, and a fault
    /// of an earlier CTA starts the count over.
    #[test]
    fn sink_counts_the_faulting_threads_of_the_reported_cta() {
        let sink = FaultSink::default();
        sink.record(rec([1, 0, 0], [5, 0, 0], 1), 1, 5);
        sink.record(rec([1, 0, 0], [5, 0, 0], 2), 1, 5);
        sink.record(rec([1, 0, 0], [3, 0, 0], 3), 1, 3);
        sink.record(rec([2, 0, 0], [0, 0, 0], 4), 2, 0);
        sink.record(rec([1, 0, 0], [70, 0, 0], 5), 1, 70);
        let (r, n) = sink.take().expect("a fault");
        assert_eq!((r.addr, n), (3, 3));

        let sink = FaultSink::default();
        sink.record(rec([3, 0, 0], [0, 0, 0], 1), 3, 0);
        sink.record(rec([3, 0, 0], [1, 0, 0], 2), 3, 1);
        sink.record(rec([0, 1, 0], [9, 0, 0], 3), 2, 9);
        let (r, n) = sink.take().expect("a fault");
        assert_eq!((r.addr, n), (3, 1));
    }

    /// `next` gives the answer `begin` gives for the CTA after the slot's: it runs unless a
    /// lower or equal CTA faulted or everything stopped, whether the fault came before the
    /// claim (read from `min_fault_cta`) or while the slot held the previous CTA (its raised
    /// flag); a fault of a higher CTA stops neither.
    #[test]
    fn next_claims_stop_as_begin_claims_do() {
        let running = |f: Option<&AtomicU32>| f.map(|f| f.load(Ordering::SeqCst));
        // No fault: consecutive CTAs run, each with a clear flag.
        let c = AbortControl::new(2);
        assert_eq!(running(c.begin(0, 10)), Some(0));
        assert_eq!(running(c.next(0, 11)), Some(0));
        // A fault of a higher CTA on the other worker: the slot's CTA 11 goes on, and so
        // does 12 (the fault's own worker stops at its next claim).
        assert_eq!(running(c.begin(1, 20)), Some(0));
        c.fault(20);
        assert_eq!(running(c.next(0, 12)), Some(0));
        assert!(c.next(1, 21).is_none());
        // A fault of a lower CTA while the slot holds 12: its flag is raised, 13 must not run.
        c.fault(5);
        assert!(c.next(0, 13).is_none());
        // A fault read from `min_fault_cta` alone (the flag not raised: the slot had been
        // released when the fault scanned it).
        let c = AbortControl::new(1);
        c.fault(7);
        assert_eq!(running(c.begin(0, 3)), Some(0));
        assert_eq!(running(c.next(0, 4)), Some(0));
        assert_eq!(running(c.next(0, 5)), Some(0));
        assert_eq!(running(c.next(0, 6)), Some(0));
        assert!(c.next(0, 7).is_none());
        // Everything stopped.
        let c = AbortControl::new(1);
        assert_eq!(running(c.begin(0, 0)), Some(0));
        c.stop_all();
        assert!(c.next(0, 1).is_none());
    }

    /// A fault does not raise the flag of a released slot: the slot's next `begin` clears
    /// its flag before it reads `min_fault_cta`, and a flag raised after that clearing would
    /// stop the lower CTA the slot then runs.
    #[test]
    fn a_fault_leaves_released_slots_alone() {
        let c = AbortControl::new(2);
        assert!(c.begin(0, 4).is_some());
        c.end(0);
        c.fault(9);
        assert_eq!(c.slots[0].1.load(Ordering::SeqCst), 0);
        let flag = c.begin(0, 5).expect("CTA 5 is below the fault");
        assert_eq!(flag.load(Ordering::SeqCst), 0);
        // A slot that holds a CTA at or above the fault is stopped.
        assert!(c.begin(1, 12).is_none());
        let c = AbortControl::new(1);
        assert!(c.begin(0, 12).is_some());
        c.fault(9);
        assert_eq!(c.slots[0].1.load(Ordering::SeqCst), 1);
    }
}
