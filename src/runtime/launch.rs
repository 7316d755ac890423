//! The grid/CTA/warp scheduler shared by both engines.
//!
//! A launch runs its CTAs in parallel on a thread pool (rayon: one worker per core). Each worker
//! runs whole CTAs: it allocates the CTA's shared memory and one warp state per warp
//! ([`WarpLayout`]), then runs rounds of its warps ([`WarpEngine::run_round`]: each warp in
//! turn, until it has no pending lanes). When every warp has stopped, lanes parked at
//! barriers are released if every non-exited thread of the CTA is parked; the CTA ends when
//! all threads have exited.

use super::env::{AbortControl, CtaEnv, FaultRecord, FaultSink};
use super::memory::DeviceMemory;
use super::synccheck::{check_barrier, stuck_findings, SyncCheck, SyncKind};
use super::warp::{rd32, wr32};
use crate::analysis::schedule::{
    bar_field, WarpLayout, BAR_ALIGNED, BAR_ARRIVED, BAR_COUNT, BAR_FLAGS, BAR_INST, BAR_INST2,
    BAR_LANES2, BAR_PRED, BAR_REC, BAR_RESULT_OFF, BAR_SPLIT, BAR_THREADS, BAR_WAITING, EXITED_OFF,
    LIVE_OFF, WARP_SIZE, WSYNC_INST_OFF, WSYNC_MASK_OFF, WSYNC_WAIT_OFF,
};
use crate::ir::{BarKind, SrcLoc};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Launch sequence numbers (`%gridid`).
static GRID_ID: AtomicU64 = AtomicU64::new(1);

/// CTAs whose warps a time-limit report lists.
const TIMEOUT_REPORT_CTAS: usize = 4;

/// What a call to [`WarpEngine::run_warp`] ended with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpStatus {
    /// No lane is pending: every lane has exited or is parked at a barrier.
    Stopped,
    /// The launch's abort flag was seen (a fault, or the time limit).
    Aborted,
}

/// An engine that runs one warp of a compiled kernel.
pub trait WarpEngine: Sync + Send {
    /// The warp-state layout the engine was built for.
    fn layout(&self) -> &WarpLayout;
    /// Run the warp whose state is `state` (`layout().size` bytes, 16-byte aligned) until no
    /// lane is pending or the launch aborts.
    fn run_warp(&self, state: &mut [u8], env: &CtaEnv) -> WarpStatus;
    /// The byte ranges `(offset, len)` of a warp state that must be zero when a CTA starts,
    /// if the engine never reads the rest before writing it (in the lanes that read it);
    /// `None`: all of it. A state reused from a previous CTA keeps its other bytes.
    fn zeroed_ranges(&self) -> Option<&[(u32, u32)]> {
        None
    }
    /// One round of a CTA's warps: run warp 0, 1, … of `states` (each `layout().size` bytes,
    /// 16-byte aligned) in that order, each as [`run_warp`](Self::run_warp) runs it, with
    /// `env.warp` set to the running warp's index. Returns how the round ended and how many
    /// warps ran: all of them when it ended `Stopped`; up to and including the warp that
    /// saw the abort flag when `Aborted` (the warps after it did not run). The default
    /// calls `run_warp` for each warp; an engine may run the whole round in one call.
    /// Where `env.complete_in_call` is set, an engine may also complete a uniform barrier
    /// itself, as `complete_barriers` would, and run the next round in the same call; the
    /// count then includes the warps of those rounds.
    fn run_round(&self, states: &mut [Vec<u128>], env: &mut CtaEnv) -> (WarpStatus, u32) {
        for (w, st) in states.iter_mut().enumerate() {
            env.warp = w as u32;
            if self.run_warp(bytes(st), env) == WarpStatus::Aborted {
                return (WarpStatus::Aborted, w as u32 + 1);
            }
        }
        (WarpStatus::Stopped, states.len() as u32)
    }
    /// Whether [`run_round`](Self::run_round) runs the later CTAs of a batch itself when
    /// `env.batch` is set (`runtime::batch`): once the round of a CTA has stopped it calls
    /// `batch::cta_batch_next`, and while that starts another CTA, sets up the warp states
    /// as `start_cta` would and runs that CTA's round in the same call. The count returned
    /// is then the last CTA's (the batch counts the CTAs before it). The scheduler sets
    /// `env.batch` only for kernels whose CTAs end in their first round.
    fn runs_batches(&self) -> bool {
        false
    }
    /// The native stack, in bytes, one call of the engine's code uses beyond the runtime's
    /// own frames (`runtime::workers::RUNTIME_RESERVE`), where it is known. A launch whose
    /// CTAs all go to one worker runs them on the calling thread when its stack has room
    /// for it (`runtime::workers::fits_on_this_thread`). `None` (the default): not known;
    /// such launches run on a pool worker.
    fn frame_bytes(&self) -> Option<usize> {
        None
    }
}

/// Launch geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchDims {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes.
    pub shared_bytes: u32,
}

/// Why a launch did not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchFailure {
    /// A kernel thread faulted; the first fault is reported.
    Fault(FaultRecord, u64),
    /// The launch ran past its time limit; where the warps were.
    Timeout(Stopped),
    /// The launch was stopped by [`INTERRUPT`]; where the warps were, as for `Timeout`.
    Interrupted(Stopped),
    /// A CTA can make no progress: threads wait at barriers that can never complete, or lanes
    /// of a warp wait at different `.aligned` barriers. The message names the barriers (PTX
    /// lines) and the warps; the instruction (fault-record index, [`Sites`]' indexing) is the
    /// barrier the first waiting warp waits at, for the report's first line, where known.
    Deadlock(String, Option<u32>),
}

/// Where the warps of a launch stopped by its time limit or [`INTERRUPT`] were.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stopped {
    /// Each stopped CTA's warps (PTX lines), one CTA per paragraph.
    pub at: String,
    /// The first warp (lowest CTA, then lowest warp) that was running an instruction, for the
    /// report's first line; `None` when no warp of a stopped CTA had started.
    pub first: Option<StopSite>,
}

/// A warp of a stopped launch and the instruction where its first lanes were
/// ([`Stopped::first`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StopSite {
    pub ctaid: [u32; 3],
    /// The warp's index in its CTA.
    pub warp: u32,
    /// The lanes at `site`.
    pub lanes: u32,
    /// The instruction, as a fault-record index ([`Sites`]' indexing).
    pub site: u32,
    /// Whether the lanes were spinning in a loop (at a yield point), or waiting at the
    /// barrier `site` (or before `site`, where no record names the barrier), rather than
    /// about to run it.
    pub state: StopState,
}

/// What the lanes of a [`StopSite`] were doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopState {
    /// About to run the instruction.
    At,
    /// Spinning in a loop whose yield point is the instruction.
    Spinning,
    /// Waiting at the instruction, a barrier (`bar.sync`, `barrier.cta`, `bar.warp.sync` or
    /// a `.sync` warp collective).
    Waiting,
    /// Waiting at a barrier no record names, before the instruction (the first of the block
    /// the barrier continues at).
    WaitingBefore,
}

/// PTX locations for reports, indexed like fault records (instructions, then terminators:
/// `env::terminator_fault_index`). Empty slices report IR indices instead.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sites<'a> {
    pub locs: &'a [SrcLoc],
    pub ptx: &'a [String],
    /// The source location (`.loc` line info) of each, where the PTX has one (may be empty).
    pub sources: &'a [Option<crate::ptx::lineinfo::SourceLoc>],
    /// The kernel's `.shared` variables, which mbarrier deadlock reports name (may be empty).
    pub shared_vars: &'a [crate::ir::SharedVar],
    /// The module's PTX text, where it was linked from several inputs (`nvcc -rdc=true`'s
    /// translation units): a location is then named by its input and that input's own line
    /// ([`PtxFile::locate`](crate::host::PtxFile::locate)), as fault reports name it, not by
    /// a line of the linked text, which the user never sees. `None`: `line N` of the module.
    pub file: Option<&'a crate::host::PtxFile>,
}

impl Sites<'_> {
    /// `line 12` of the module, or `INPUT:12` of the input of a linked module ([`Sites::file`])
    /// that linked line `line` came from.
    fn place(&self, line: u32) -> String {
        match self.file.filter(|f| f.is_linked()) {
            Some(f) => {
                let (input, line) = f.locate(line);
                format!("{input}:{line}")
            }
            None => format!("line {line}"),
        }
    }

    /// `'bar.sync' at line 12` for fault-record index `i`.
    pub(super) fn describe(&self, i: u32) -> String {
        match (self.locs.get(i as usize), self.ptx.get(i as usize)) {
            (Some(l), Some(t)) => match self.sources.get(i as usize) {
                Some(Some(src)) => format!("'{t}' at {} ({src})", self.place(l.line)),
                _ => format!("'{t}' at {}", self.place(l.line)),
            },
            (Some(l), None) => self.place(l.line),
            _ => format!("IR instruction {i}"),
        }
    }

    /// Whether fault-record index `i` is an instruction of a yield point (`lower::yields`).
    fn is_yield(&self, i: u32) -> bool {
        self.ptx
            .get(i as usize)
            .is_some_and(|t| t == crate::ir::YIELD_POINT_PTX)
    }

    /// `` (variable 'bar')``, or `` (variable 'buf' + 8)``, for shared offset `off`; empty
    /// where no variable holds it.
    fn shared_var(&self, off: u64) -> String {
        // The last variable starting at or before it that reaches it (an extern array,
        // size 0, reaches the end).
        match self
            .shared_vars
            .iter()
            .filter(|v| v.offset <= off && (v.size == 0 || off - v.offset < v.size))
            .max_by_key(|v| v.offset)
        {
            Some(v) if v.offset == off => format!(" (variable '{}')", v.name),
            Some(v) => format!(" (variable '{}' + {})", v.name, off - v.offset),
            None => String::new(),
        }
    }

    /// `line 12` (of a linked module: `INPUT:12`) for fault-record index `i`.
    pub(super) fn line(&self, i: u32) -> String {
        match self.locs.get(i as usize) {
            Some(l) => self.place(l.line),
            None => format!("IR instruction {i}"),
        }
    }
}

/// Inputs of one launch that the scheduler needs besides the engine.
pub struct LaunchInput<'a> {
    pub dims: LaunchDims,
    pub static_shared: u64,
    /// Local memory bytes per thread (the call stack included).
    pub local_bytes: u64,
    /// Bytes of each thread's local memory before its call stack (`local_bytes` for a kernel
    /// without one): what every CTA zero-fills at least ([`CtaEnv::clear_local`]).
    pub stack_base: u64,
    pub params: &'a mut [u8],
    pub symbols: &'a [u64],
    pub memory: &'a DeviceMemory,
    /// The context's texture, sampler and surface objects.
    pub textures: &'a super::texture::TextureTable,
    /// The context's device heap, when the kernel uses `malloc`/`free`.
    pub heap: Option<&'a super::heap::DeviceHeap>,
    /// Where device `printf` and failed-`assert` text goes.
    pub printf: &'a super::printf::PrintfOutput,
    pub memcheck: bool,
    /// Where synccheck's findings go (`runtime::synccheck`); `None`: the tool is off.
    pub synccheck: Option<&'a super::synccheck::SyncSink>,
    /// The order of CTAs and warps (`runtime::shuffle`): with a shuffled schedule the CTAs
    /// run one at a time in the seeded order.
    pub schedule: super::shuffle::Schedule,
    /// initcheck: where the launch's uninitialised reads go (global accesses use the arena's
    /// shadow, which must be on: `DeviceMemory::set_initcheck`).
    pub initcheck: Option<&'a super::initcheck::InitFindings>,
    /// Stop the launch after this long (`None`, or a time past what `Instant` can hold: no
    /// limit).
    pub timeout: Option<Duration>,
    /// PTX locations for time-limit and deadlock reports.
    pub sites: Sites<'a>,
    /// A cooperative launch (`cuLaunchCooperativeKernel`): the device address of its grid
    /// workspace (zeroed device memory, 16 bytes, which `%envreg1`/`%envreg2` read as CUDA's
    /// cooperative groups expect). Every CTA of the grid is then resident at once: the
    /// scheduler keeps all their states and rotates among them whenever a CTA's lanes spin
    /// in a loop that waits on memory, so a grid-wide barrier completes however many host
    /// threads there are. The caller bounds the grid (CUDA: max active blocks per SM × SMs).
    pub cooperative: Option<u64>,
    /// racecheck: where the launch's shared-memory races go (`runtime::race`); `None`: the
    /// tool is off and nothing is tracked.
    pub race: Option<&'a super::race::RaceSink>,
    /// The launch's cluster shape (`runtime::cluster`): the CTAs of a cluster of more than
    /// one run co-resident on one worker, taking turns. Not with `cooperative`.
    pub cluster: super::cluster::ClusterShape,
    /// Which per-CTA state the kernel can touch ([`CtaStateUse::of`] its IR): what it
    /// cannot is neither reset when a CTA starts nor judged after a round.
    pub uses: CtaStateUse,
}

/// The per-CTA state a kernel can touch beyond its shared memory and warp states, decided
/// once per kernel from its IR (device functions are inlined there, so every operation a
/// thread can execute is in it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtaStateUse {
    /// Tensor memory (`tcgen05`, PTX ISA §9.7.16): a kernel without `tcgen05` operations
    /// gets no tensor memory (`CtaEnv::tmem` null), and none is reset per CTA.
    pub tensor_memory: bool,
    /// mbarrier waits (`mbarrier.test_wait`/`try_wait`, PTX ISA §9.7.13.15): a kernel
    /// without `mbarrier` operations has no failing waits to record
    /// (`runtime::mbarrier::MbarWaits`; `CtaEnv::mbar_waits` null), so its rounds are not
    /// judged for mbarrier deadlocks.
    pub mbarrier: bool,
    /// The reserved shared-memory region (`runtime::env::RESERVED_SMEM_BEGIN`, PTX ISA
    /// §10.29): a kernel that reads none of `%reserved_smem_offset_begin`, `_end`, `_0`,
    /// `_1` cannot locate it, and its CTAs get none (`CtaEnv::reserved_base` null).
    pub reserved_shared: bool,
    /// `barrier.cluster` operations (PTX ISA §9.7.13.3): only their arrivals mark the
    /// cluster's barrier used (`runtime::cluster::ClusterState::used`), which a round's end
    /// then judges for a deadlock.
    pub cluster_barrier: bool,
}

impl CtaStateUse {
    /// Every kind of state: what a launch whose kernel was not looked at must assume.
    pub const ALL: CtaStateUse = CtaStateUse {
        tensor_memory: true,
        mbarrier: true,
        reserved_shared: true,
        cluster_barrier: true,
    };

    /// What kernel `f` can touch: tensor memory is read and written only by the `tcgen05`
    /// routine (`runtime::tcgen05::exec`, the one reader of `CtaEnv::tmem`), and failing
    /// waits are recorded only by the `mbarrier` routine (`runtime::mbarrier`); the reserved
    /// region's address comes only from the special registers that locate it.
    pub fn of(f: &crate::ir::Function) -> CtaStateUse {
        use crate::ir::{Op, SReg};
        CtaStateUse {
            tensor_memory: f.insts.iter().any(|d| matches!(d.op, Op::Tcgen05 { .. })),
            mbarrier: f.insts.iter().any(|d| matches!(d.op, Op::MBarrier { .. })),
            reserved_shared: f.insts.iter().any(|d| {
                matches!(
                    d.op,
                    Op::SReg {
                        reg: SReg::ReservedSmemBegin
                            | SReg::ReservedSmemEnd
                            | SReg::ReservedSmemOffset0
                            | SReg::ReservedSmemOffset1
                    }
                )
            }),
            cluster_barrier: f
                .insts
                .iter()
                .any(|d| matches!(d.op, Op::ClusterBarrier { .. })),
        }
    }
}

struct SendPtr(*mut u8);
// SAFETY: the pointer targets the parameter buffer, which outlives the launch and is only read
// by kernel code.
unsafe impl Sync for SendPtr {}
// SAFETY: as above.
unsafe impl Send for SendPtr {}

impl SendPtr {
    fn get(&self) -> *mut u8 {
        self.0
    }
}

struct SendConstPtr(*const u32);
// SAFETY: the pointer targets the launch's `%tid` table, which outlives the launch and is
// only read.
unsafe impl Sync for SendConstPtr {}
// SAFETY: as above.
unsafe impl Send for SendConstPtr {}

impl SendConstPtr {
    fn get(&self) -> *const u32 {
        self.0
    }
}

/// Per-launch statistics.
#[derive(Clone, Copy, Debug, Default)]
pub struct LaunchStats {
    /// Warp calls into the engine.
    pub warp_runs: u64,
    /// How many distinct worker threads ran CTAs of this launch.
    pub workers: u32,
    /// Thread-instructions executed, for engines that count them (the interpreter).
    pub thread_instructions: u64,
}

/// Memory a worker reuses from one CTA to the next.
#[derive(Default)]
struct CtaBuffers {
    shared: Vec<u128>,
    /// initcheck: the shadow of `shared`, a bit per byte (empty when initcheck is off).
    shared_init: Vec<std::sync::atomic::AtomicU8>,
    local: Vec<u128>,
    states: Vec<Vec<u128>>,
    /// racecheck's shadow of the shared memory (used only with the tool on).
    race: super::race::RaceCta,
    /// The CTA's tensor memory (`tcgen05`; its cells exist once a kernel allocates).
    tmem: super::tcgen05::TensorMemory,
    /// The state of the CTA's cluster when it is a cluster of one.
    cluster: super::cluster::ClusterState,
    /// The CTA's failing mbarrier waits (`runtime::mbarrier::MbarWaits`).
    mbar: super::mbarrier::MbarWaits,
}

/// The most bytes of CTA buffers a thread keeps from one launch for its next (1 MiB).
const SPARE_MAX_BYTES: usize = 1 << 20;

thread_local! {
    /// The CTA buffers of this thread's last launch (`CtaBuffers::keep_spare`).
    static SPARE: std::cell::RefCell<Option<Box<CtaBuffers>>> = const { std::cell::RefCell::new(None) };
}

impl CtaBuffers {
    /// The buffers this thread kept from its last launch (when `reuse`), else new ones. Every
    /// CTA sets up what it uses of them as it does for buffers reused from the worker's
    /// previous CTA (`fresh`, `start_cta`, `ClusterState::reset`). Boxed, so that taking and
    /// keeping them moves a pointer, not the buffers' headers and tools' states.
    fn take_spare(reuse: bool) -> Box<CtaBuffers> {
        reuse
            .then(|| SPARE.with(|s| s.borrow_mut().take()))
            .flatten()
            .unwrap_or_default()
    }

    /// Keep these buffers for this thread's next launch, unless they hold more than
    /// [`SPARE_MAX_BYTES`] (a large shared memory or warp states are not kept alive between
    /// launches). Only for buffers without tensor memory or sanitizer shadows. The warp
    /// states keep their allocations but not their bytes: emptied, they are zero-filled
    /// whole by `start_cta`, since a state reused within a launch may keep bytes that only
    /// that kernel's code leaves as it needs them (`WarpEngine::zeroed_ranges`). The local
    /// memory is dropped: within a launch only what its CTAs wrote is cleared
    /// (`CtaEnv::clear_local`).
    fn keep_spare(mut self: Box<Self>) {
        self.local = Vec::new();
        for st in &mut self.states {
            st.clear();
        }
        let bytes =
            16 * (self.shared.capacity() + self.states.iter().map(Vec::capacity).sum::<usize>());
        if bytes <= SPARE_MAX_BYTES {
            SPARE.with(|s| *s.borrow_mut() = Some(self));
        }
    }
}

/// Set (by a front end's Ctrl-C handler) to stop the launches in progress: each ends with
/// [`LaunchFailure::Interrupted`], naming where its warps were. Cleared when it has stopped
/// them (it stays set while no launch is in progress, and stops the next one). Launches watch
/// it only once [`INTERRUPTIBLE`] is set.
pub static INTERRUPT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Set by a front end that installs an interrupt handler: launches then register with the
/// process's interrupt watcher, one thread that polls [`INTERRUPT`] every
/// `INTERRUPT_POLL` (50 ms) for every launch (a thread per launch would add its start to
/// each launch's time).
pub static INTERRUPTIBLE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// How often the watchdogs look at [`INTERRUPT`] and the time limit.
const INTERRUPT_POLL: Duration = Duration::from_millis(50);

/// The launches in progress that [`INTERRUPT`] stops: (launch id, address of its
/// [`AbortControl`], address of its stop reason), each removed by its [`Watched`] guard
/// before either is dropped.
static WATCHED: Mutex<Vec<(u64, usize, usize)>> = Mutex::new(vec![]);

/// A launch's registration with the interrupt watcher; dropping it ends the registration.
struct Watched(u64);

impl Watched {
    /// Registers the launch `id` (its stop flags and its stop reason, which must outlive the
    /// guard), starting the watcher thread on the first call.
    fn new(id: u64, control: &AbortControl, reason: &AtomicU32) -> Watched {
        static WATCHER: std::sync::Once = std::sync::Once::new();
        WATCHER.call_once(|| {
            let spawned = std::thread::Builder::new()
                .name("ptxjit-interrupt".into())
                .spawn(|| loop {
                    std::thread::sleep(INTERRUPT_POLL);
                    if !INTERRUPT.load(Ordering::SeqCst) {
                        continue;
                    }
                    let Ok(list) = WATCHED.lock() else { return };
                    if list.is_empty() {
                        continue;
                    }
                    INTERRUPT.store(false, Ordering::SeqCst);
                    for &(_, control, reason) in list.iter() {
                        // SAFETY: a registered launch's control and reason live until its
                        // guard has removed them, which takes this lock.
                        let (control, reason) = unsafe {
                            (
                                &*(control as *const AbortControl),
                                &*(reason as *const AtomicU32),
                            )
                        };
                        let _ = reason.compare_exchange(0, 2, Ordering::SeqCst, Ordering::SeqCst);
                        control.stop_all();
                    }
                });
            // Without the thread (it could not be started) no launch sees an interrupt; the
            // front ends' handlers still end the program on a second Ctrl-C.
            drop(spawned);
        });
        if let Ok(mut list) = WATCHED.lock() {
            list.push((
                id,
                control as *const AbortControl as usize,
                reason as *const AtomicU32 as usize,
            ));
        }
        Watched(id)
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        let mut list = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
        list.retain(|w| w.0 != self.0);
    }
}

/// Run a whole grid. Returns statistics, or the failure.
pub fn run_grid(engine: &dyn WarpEngine, input: LaunchInput) -> Result<LaunchStats, LaunchFailure> {
    let sink = FaultSink::default();
    let printf_out = input.printf;
    let [gx, gy, gz] = input.dims.grid;
    let ctas = gx as u64 * gy as u64 * gz as u64;
    let shared_size = input.static_shared.div_ceil(16) * 16 + input.dims.shared_bytes as u64;
    // The reserved region's host bytes follow the user's shared memory in the CTA's buffer
    // (at a 16-byte boundary), where the kernel can locate the region.
    let reserved_at = shared_size.div_ceil(16) * 16;
    let buffer_bytes = if input.uses.reserved_shared {
        reserved_at + super::env::RESERVED_SMEM_BYTES
    } else {
        shared_size
    };
    let params = SendPtr(input.params.as_mut_ptr());
    let param_size = input.params.len() as u64;
    // A limit past what the clock can hold (`Duration::MAX`, 1e19 s) is no limit.
    let deadline = input.timeout.and_then(|t| Instant::now().checked_add(t));
    let timed_out = AtomicU32::new(0);
    let runs = AtomicU64::new(0);
    let thread_insts = AtomicU64::new(0);
    // Bit k: pool worker k ran a CTA (bit 63: a thread outside the pool).
    let worker_bits = AtomicU64::new(0);
    let mem = input.memory;
    let gridid = GRID_ID.fetch_add(1, Ordering::Relaxed);
    let launch_start = Instant::now();
    let nsmid = rayon::current_num_threads() as u32;
    // One stop-flag slot per pool worker, and one for a caller outside the pool.
    let control = AbortControl::new(nsmid as usize + 1);
    // Declared after what it points to, so dropped (unregistered) before them.
    let _watched = INTERRUPTIBLE
        .load(Ordering::Relaxed)
        .then(|| Watched::new(gridid, &control, &timed_out));
    let shuffle = match input.schedule {
        super::shuffle::Schedule::Fixed => None,
        super::shuffle::Schedule::Shuffle(seed) => Some(seed),
    };
    let grid = GridShared {
        shuffle,
        timed_out: &timed_out,
        sites: input.sites,
        deadlock: Mutex::new(None),
        positions: Mutex::new(vec![]),
    };
    let (tids, tid_stride) = super::env::tid_table_shared(input.dims.block);
    let tid_ptr = SendConstPtr(tids.as_ptr());
    // The watchdog's end signal (a launch without a time limit has no watchdog).
    let (done_tx, done_rx) = match deadline {
        Some(_) => {
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            (Some(tx), Some(rx))
        }
        None => (None, None),
    };
    let coop_ctas = if input.cooperative.is_some() { ctas } else { 0 };
    // A shuffled cooperative grid starts its CTAs in the seeded order (such a grid is small:
    // every CTA is resident at once).
    let coop_order: Vec<u64> = match shuffle {
        Some(seed) if coop_ctas <= super::shuffle::MAX_SHUFFLED_CTAS => {
            super::shuffle::cta_block_order(seed, 0, coop_ctas as usize)
        }
        _ => (0..coop_ctas).collect(),
    };
    // A cooperative grid: the CTAs that ended (for the report), how many, and whether the
    // CTAs left are deadlocked.
    let coop_ended = Mutex::new(Vec::<u64>::new());
    let coop_n_ended = AtomicU64::new(0);
    let coop_deadlock = AtomicBool::new(false);
    // Per CTA: (CTAs ended when it last yielded, yields in a row since that count changed);
    // `u64::MAX` once the CTA has ended.
    let coop_turns = Mutex::new(vec![
        (0u64, 0u64);
        if input.cooperative.is_some() {
            ctas as usize
        } else {
            0
        }
    ]);
    // CTA `c` yielded with `n_ended` CTAs ended: whether every CTA not ended has now
    // yielded `COOP_SPIN_ROUNDS` times in a row since the last CTA ended (a CTA that is
    // computing has not, so it is never passed over).
    let coop_yielded = |c: u64, n_ended: u64| {
        let Ok(mut turns) = coop_turns.lock() else {
            return false;
        };
        let Some(t) = turns.get_mut(c as usize) else {
            return false;
        };
        *t = if t.0 == n_ended {
            (n_ended, t.1 + 1)
        } else {
            (n_ended, 1)
        };
        if t.1 < COOP_SPIN_ROUNDS {
            return false;
        }
        turns
            .iter()
            .all(|&(e, n)| e == u64::MAX || (e == n_ended && n >= COOP_SPIN_ROUNDS))
    };
    // The CTA id of linear CTA index `c` (x fastest).
    let ctaid_of = |c: u64| {
        [
            (c % gx as u64) as u32,
            ((c / gx as u64) % gy as u64) as u32,
            (c / (gx as u64 * gy as u64)) as u32,
        ]
    };
    let queue = std::sync::Mutex::new(
        coop_order
            .into_iter()
            .map(|c| (c, None::<CtaBuffers>))
            .collect::<std::collections::VecDeque<_>>(),
    );
    std::thread::scope(|scope| {
        // Watchdog: raise the abort flag when the time limit passes (engines check it at
        // every block dispatch, so even an infinite loop stops); an interrupt is the
        // watcher's (`Watched`).
        if let (Some(deadline), Some(done_rx)) = (deadline, done_rx) {
            let (control, timed_out) = (&control, &timed_out);
            scope.spawn(move || loop {
                let wait = deadline
                    .saturating_duration_since(Instant::now())
                    .min(INTERRUPT_POLL);
                match done_rx.recv_timeout(wait) {
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                    _ => return,
                }
                if Instant::now() < deadline {
                    continue;
                }
                let _ = timed_out.compare_exchange(0, 1, Ordering::SeqCst, Ordering::SeqCst);
                control.stop_all();
                return;
            });
        }
        // CTAs are handed out in increasing linear order from one counter, in batches of
        // consecutive CTAs (at least 16 batches per worker, at most 32 CTAs each: one shared
        // counter update per batch, not per CTA; CTAs that end in their first round take
        // longer runs, `batch_worker`), one worker per pool thread, each running
        // its batch in order and reusing its CTA buffers (shared, local, warp states). A
        // worker stops once everything stopped or a lower CTA faulted (every lower CTA is
        // then in some worker's batch or done, and still runs), so even a grid of 2^63 CTAs
        // ends promptly.
        // (The counter is the launch control's: `clusterlaunchcontrol.try_cancel` claims
        // single slots from it, never one of a batch already taken; `runtime::clc`.)
        let launch_control = super::clc::LaunchControl::new(
            input.dims.grid,
            input.cluster.dims,
            shuffle,
            input.cooperative.is_none(),
        );
        let batch = (ctas / (u64::from(nsmid.max(1)) * 16)).clamp(1, 32);
        // Workers of a grid without clusters: one per pool thread, no more than it has
        // batches of `batch` CTAs.
        let pool = u64::from(nsmid.max(1));
        let batch_workers = pool.min(ctas.div_ceil(batch).max(1));
        let threads = (input.dims.block[0] * input.dims.block[1] * input.dims.block[2]) as usize;
        let state_init = StateInit::new(engine, threads as u32);
        // The environment of CTA `c` over its shared and local memory.
        let race_sink = input.race;
        // initcheck's shadow of a CTA's shared memory as the cluster state keeps it (null:
        // the tool is off).
        let initcheck_on = input.initcheck.is_some();
        let init_of = |s: &[std::sync::atomic::AtomicU8]| -> *const std::sync::atomic::AtomicU8 {
            if initcheck_on {
                s.as_ptr()
            } else {
                std::ptr::null()
            }
        };
        // racecheck's state of a CTA as the cluster state keeps it (null: the tool is off).
        let race_of = |r: &super::race::RaceCta| -> *const super::race::RaceCta {
            if race_sink.is_some() {
                r
            } else {
                std::ptr::null()
            }
        };
        let checks = if input.memcheck {
            super::env::CHECK_BOUNDS
        } else {
            0
        } | if input.initcheck.is_some() {
            super::env::CHECK_INIT
        } else {
            0
        } | if race_sink.is_some_and(|s| s.global()) {
            super::env::CHECK_RACE_GLOBAL
        } else {
            0
        };
        let uses = input.uses;
        // A CTA's tensor memory and mbarrier-wait record, where its kernel has them.
        let tmem_of = |t: &super::tcgen05::TensorMemory| -> *const super::tcgen05::TensorMemory {
            if uses.tensor_memory {
                t
            } else {
                std::ptr::null()
            }
        };
        let mbar_of = |m: &super::mbarrier::MbarWaits| -> *const super::mbarrier::MbarWaits {
            if uses.mbarrier {
                m
            } else {
                std::ptr::null()
            }
        };
        // The host pointer of the reserved region in a CTA's buffer (null: none).
        let reserved_of = |shared: &mut Vec<u128>| -> *mut u8 {
            if input.uses.reserved_shared && shared.len() * 16 >= buffer_bytes as usize {
                // SAFETY: the buffer holds `buffer_bytes` = `reserved_at` + the region's bytes.
                unsafe { (shared.as_mut_ptr() as *mut u8).add(reserved_at as usize) }
            } else {
                std::ptr::null_mut()
            }
        };
        let make_env = |c: u64,
                        shared: &mut Vec<u128>,
                        shared_init: &[std::sync::atomic::AtomicU8],
                        local: &mut Vec<u128>,
                        race: &super::race::RaceCta,
                        flag: *const AtomicU32,
                        cluster: &super::cluster::ClusterState,
                        tmem: &super::tcgen05::TensorMemory,
                        mbar: Option<&super::mbarrier::MbarWaits>| CtaEnv {
            global_base: mem.base(),
            global_top: mem.top(),
            shared_base: shared.as_mut_ptr() as *mut u8,
            shared_size,
            param_base: params.get(),
            param_size,
            local_base: local.as_mut_ptr() as *mut u8,
            local_size: input.local_bytes,
            symbols: input.symbols.as_ptr(),
            nsymbols: input.symbols.len() as u64,
            abort: flag,
            control: &control,
            sink: &sink,
            memory: mem,
            ctaid: ctaid_of(c),
            nctaid: input.dims.grid,
            ntid: input.dims.block,
            warp: 0,
            nwarps: 0,
            memcheck: checks,
            init: input.initcheck.map_or(std::ptr::null(), |f| {
                f as *const super::initcheck::InitFindings
            }),
            shared_init: if input.initcheck.is_some() {
                shared_init.as_ptr()
            } else {
                std::ptr::null()
            },
            dynamic_smem: input.dims.shared_bytes,
            nsmid,
            gridid,
            grid_workspace: input.cooperative.unwrap_or(0),
            launch_start,
            thread_instructions: &thread_insts,
            tid_table: tid_ptr.get(),
            tid_stride,
            tid_x_linear: tid_x_linear(input.dims.block),
            textures: input.textures,
            heap: input
                .heap
                .map_or(std::ptr::null(), |h| h as *const super::heap::DeviceHeap),
            printf: input.printf,
            race: race_sink.map_or(std::ptr::null(), |_| race as *const super::race::RaceCta),
            race_sink: race_sink.map_or(std::ptr::null(), |s| s as *const super::race::RaceSink),
            synccheck: input
                .synccheck
                .map_or(std::ptr::null(), |s| s as *const super::synccheck::SyncSink),
            synccheck_lanes: if input.synccheck.is_some() {
                u32::MAX
            } else {
                0
            },
            tmem: tmem_of(tmem),
            cluster_dims: input.cluster.dims,
            cluster_explicit: u32::from(input.cluster.explicit),
            cluster,
            launch_control: &launch_control,
            mbar_waits: mbar.map_or(std::ptr::null(), mbar_of),
            complete_in_call: 0,
            rounds_in_call: 0,
            reserved_base: reserved_of(shared),
            batch: std::ptr::null_mut(),
            stack_base: input.stack_base.min(input.local_bytes),
            stack_high: std::sync::atomic::AtomicU64::new(input.stack_base.min(input.local_bytes)),
            red_table: super::redcombine::table(),
        };
        // `keep_local`: leave a local buffer of the right size as it is (the caller zero-fills
        // what the last CTA used, `CtaEnv::clear_local`); otherwise zero-fill all of it.
        let fresh = |shared: &mut Vec<u128>,
                     shared_init: &mut Vec<std::sync::atomic::AtomicU8>,
                     local: &mut Vec<u128>,
                     keep_local: bool| {
            shared.clear();
            shared.resize((buffer_bytes as usize).div_ceil(16), 0);
            if input.initcheck.is_some() {
                // Nothing of the CTA's shared memory is written when it starts.
                shared_init.clear();
                shared_init.resize_with((shared_size as usize).div_ceil(8), Default::default);
            }
            let n = (threads * input.local_bytes as usize).div_ceil(16);
            if local.len() != n {
                // A new zeroed allocation: a large one gets pages the OS zero-fills when a
                // thread first touches them, so a large call stack costs what is used.
                *local = vec![0; n];
            } else if !keep_local {
                local.fill(0);
            }
        };
        let past_deadline = || {
            let late = deadline.is_some_and(|d| Instant::now() > d);
            if late {
                timed_out.store(1, Ordering::Relaxed);
                control.stop_all();
            }
            late
        };
        let note_worker = |ran: bool, my_runs: u64| {
            runs.fetch_add(my_runs, Ordering::Relaxed);
            if ran {
                let w = rayon::current_thread_index().map_or(63, |i| i.min(63));
                worker_bits.fetch_or(1 << w, Ordering::Relaxed);
            }
        };
        // The per-CTA resets of a CTA's tensor memory and mbarrier-wait record, where its
        // kernel has them.
        let reset_uses = |t: &super::tcgen05::TensorMemory, m: &mut super::mbarrier::MbarWaits| {
            if uses.tensor_memory {
                t.reset();
            }
            if uses.mbarrier {
                m.reset(threads as u32);
            }
        };
        // Whether a worker's buffers may outlive the launch on its thread, for the thread's
        // next launch (`CtaBuffers::keep_spare`): not with state only some kernels or tools
        // fill (tensor memory, sanitizer shadows), which the next launch need not reset.
        let keep_spare = !uses.tensor_memory && race_sink.is_none() && !initcheck_on;
        let worker = || {
            let mut buf = CtaBuffers::take_spare(keep_spare);
            // Counted here and added once at the end (no shared counter updates per CTA).
            let mut my_runs = 0u64;
            let mut ran = false;
            let (mut c_next, mut c_end) = (0u64, 0u64);
            // A shuffled grid: the seeded order of the current block of CTAs (one worker).
            let mut shuffled: (u64, Vec<u64>) = (u64::MAX, vec![]);
            // The worker's stop-flag slot: its pool thread's (the worker runs on one thread
            // from start to end), looked up once rather than per CTA.
            let slot = rayon::current_thread_index().unwrap_or(nsmid as usize);
            // The CTA whose claim the slot holds (`None`: released).
            let mut held: Option<u64> = None;
            // The shared buffer's and initcheck shadow's addresses the cluster state was
            // last reset for (null: not yet). `ClusterState::reset` runs for the worker's first CTA, when those addresses
            // change, and after a CTA that may have written the state: one whose threads
            // arrived on the cluster barrier (`ClusterState::used`) or one of a kernel with
            // `tcgen05` operations (the CTA pairs' state). Otherwise the previous CTA left
            // the state as its reset did (the buffers' addresses are those of this CTA: `fresh`
            // keeps their allocations), so kernels without clusters skip it per CTA.
            let mut cluster_for: (*mut u8, *const std::sync::atomic::AtomicU8) =
                (std::ptr::null_mut(), std::ptr::null());
            // The environment, built once per worker (the buffers it points into stay in
            // `buf`); each CTA sets its own fields (`ctaid`, the abort flag, where `fresh`
            // left its shared and local memory) before it starts.
            let mut env = {
                let CtaBuffers {
                    shared,
                    shared_init,
                    local,
                    race,
                    tmem,
                    cluster,
                    mbar,
                    ..
                } = &mut *buf;
                make_env(
                    0,
                    shared,
                    shared_init,
                    local,
                    race,
                    std::ptr::null(),
                    cluster,
                    tmem,
                    Some(mbar),
                )
            };
            loop {
                if c_next >= c_end {
                    c_next = launch_control.take(batch);
                    c_end = c_next.saturating_add(batch).min(ctas);
                }
                let mut c = c_next;
                c_next += 1;
                if c >= ctas || control.stopped_all() || past_deadline() {
                    break;
                }
                if let Some(seed) = shuffle {
                    let block = c / super::shuffle::MAX_SHUFFLED_CTAS;
                    if shuffled.0 != block {
                        let start = block * super::shuffle::MAX_SHUFFLED_CTAS;
                        let n = (ctas - start).min(super::shuffle::MAX_SHUFFLED_CTAS);
                        shuffled = (
                            block,
                            super::shuffle::cta_block_order(seed, start, n as usize),
                        );
                    }
                    c = shuffled.1[(c % super::shuffle::MAX_SHUFFLED_CTAS) as usize];
                }
                // The CTA after the one the slot holds takes its flag without a fence
                // (`AbortControl::next`); the slot is released once, when the worker ends.
                // Its `%ctaid` is the previous CTA's stepped (`batch::next_ctaid`), without
                // the divisions of `ctaid_of`.
                let (claimed, ctaid) = match held {
                    Some(p) if shuffle.is_none() && p.checked_add(1) == Some(c) => (
                        control.next(slot, c),
                        super::batch::next_ctaid(env.ctaid, input.dims.grid),
                    ),
                    _ => (control.begin(slot, c), ctaid_of(c)),
                };
                let Some(flag) = claimed else {
                    break;
                };
                held = Some(c);
                let CtaBuffers {
                    shared,
                    shared_init,
                    local,
                    states,
                    race,
                    tmem,
                    cluster,
                    mbar,
                } = &mut *buf;
                fresh(shared, shared_init, local, true);
                reset_uses(tmem, mbar);
                if race_sink.is_some() {
                    race.start(c, ctaid, threads as u32, shared_size);
                }
                let ptrs = (shared.as_mut_ptr() as *mut u8, init_of(shared_init));
                if cluster_for != ptrs || cluster.used() || uses.tensor_memory {
                    cluster.reset(&[ptrs.0], &[race_of(race)], &[ptrs.1], threads as u32);
                    cluster_for = ptrs;
                }
                env.shared_base = shared.as_mut_ptr() as *mut u8;
                env.reserved_base = reserved_of(shared);
                env.local_base = local.as_mut_ptr() as *mut u8;
                env.clear_local();
                if initcheck_on {
                    env.shared_init = shared_init.as_ptr();
                }
                env.ctaid = ctaid;
                env.abort = flag;
                env.warp = 0;
                start_cta(engine, &state_init, states);
                let (n, _) = run_cta(engine, &mut env, c, &grid, states, false);
                my_runs += n;
                ran = true;
            }
            if held.is_some() {
                control.end(slot);
            }
            note_worker(ran, my_runs);
            if keep_spare {
                buf.keep_spare();
            }
        };
        // A kernel whose CTAs end in their first round: without barrier terminators no lane
        // ever parks (`layout.barrier_targets` empty), so a round that stops has every lane
        // exited and `complete_barriers` finds the CTA done; without mbarrier,
        // `barrier.cluster` or tensor-memory operations there is nothing else `run_cta` would
        // judge after it or reset before it. On the fixed schedule, without sanitizers (their
        // per-CTA state and hooks stay in the general worker), such CTAs run from a tight
        // loop (`batch_worker`): per CTA only its stop flag, `%ctaid` (advanced, x fastest),
        // the warp states' start and one round; the buffers, the cluster state and the
        // environment's pointers are set once per worker (a buffer of non-zero size is
        // cleared again per CTA, as `fresh` does), and the time limit is checked per batch
        // (the watchdog raises the stop flags in between). Between the CTAs of a batch,
        // `CtaBatch::advance` (`runtime::batch`); an engine that runs batches (the JIT) calls
        // it from its code and runs the whole batch in one call.
        let one_round = engine.layout().barrier_targets.is_empty()
            && !uses.mbarrier
            && !uses.cluster_barrier
            && !uses.tensor_memory
            && shuffle.is_none()
            && input.cooperative.is_none()
            && !input.memcheck
            && input.synccheck.is_none()
            && input.initcheck.is_none()
            && race_sink.is_none();
        // The batches of these CTAs are runs of consecutive CTAs whose length shrinks with
        // what is left (`LaunchControl::take_guided`): `left / (2 × workers)` CTAs, no more
        // than 256 per worker (POCL's pthread device hands its threads chunks of up to 256
        // work-groups per thread) and no fewer than `batch`. A worker streams through long
        // runs (a streaming kernel's accesses stay in one part of its buffers, not switching
        // to the other worker's every `batch` CTAs; fewer hand-offs), and the runs left at the
        // end are short, for the balance of kernels whose CTAs cost more or less.
        let guided_share = 2 * batch_workers;
        let guided_max = 256 * batch_workers;
        let batch_worker = || {
            let mut buf = CtaBuffers::take_spare(keep_spare);
            let (mut my_runs, mut ran) = (0u64, false);
            let slot = rayon::current_thread_index().unwrap_or(nsmid as usize);
            let CtaBuffers {
                shared,
                shared_init,
                local,
                states,
                race,
                tmem,
                cluster,
                mbar,
            } = &mut *buf;
            fresh(shared, shared_init, local, false);
            cluster.reset(
                &[shared.as_mut_ptr() as *mut u8],
                &[race_of(race)],
                &[init_of(shared_init)],
                threads as u32,
            );
            let mut env = make_env(
                0,
                shared,
                shared_init,
                local,
                race,
                std::ptr::null(),
                cluster,
                tmem,
                Some(mbar),
            );
            // Buffers of non-zero size are cleared per CTA (`fresh` keeps their allocation,
            // so the pointers in `env` stay valid): before every CTA but the worker's first,
            // the first of each later batch included (the later CTAs of a batch:
            // `CtaBatch::advance`).
            let clear = shared.len() + local.len() != 0;
            let clear_bufs = [
                (shared.as_mut_ptr() as *mut u8, shared.len() * 16),
                (local.as_mut_ptr() as *mut u8, local.len() * 16),
            ];
            let mut dirty = false;
            // An engine that runs the CTAs of a batch in one call gets the batch in `env`.
            let native = engine.runs_batches();
            let nwarps = state_init.nwarps as u64;
            'batches: loop {
                let (first, n) = launch_control.take_guided(batch, guided_share, guided_max);
                if n == 0 || control.stopped_all() || past_deadline() {
                    break;
                }
                let end = first.saturating_add(n).min(ctas);
                let Some(flag) = control.begin(slot, first) else {
                    break;
                };
                if clear && dirty {
                    // (The local buffer keeps its size, so `env.local_base` stays valid.)
                    fresh(shared, shared_init, local, true);
                    env.clear_local();
                }
                dirty = true;
                env.ctaid = ctaid_of(first);
                env.abort = flag;
                env.warp = 0;
                let mut cursor = super::batch::CtaBatch::new(slot, first, end, clear_bufs);
                loop {
                    start_cta(engine, &state_init, states);
                    env.nwarps = states.len() as u32;
                    if native {
                        env.batch = &mut cursor;
                    }
                    let (status, n) = engine.run_round(states, &mut env);
                    env.batch = std::ptr::null_mut();
                    my_runs += u64::from(n);
                    if native {
                        my_runs += cursor.take_ended() * nwarps;
                    }
                    ran = true;
                    if status == WarpStatus::Aborted {
                        if timed_out.load(Ordering::Relaxed) != 0 {
                            let text = positions(engine.layout(), states, env.ctaid, grid.sites);
                            let first = stop_site(engine.layout(), states, env.ctaid);
                            if let Ok(mut p) = grid.positions.lock() {
                                p.push((cursor.current(), text, first));
                            }
                        }
                        control.end(slot);
                        break 'batches;
                    }
                    // (An engine that runs batches has run every CTA it could.)
                    if native || !cursor.advance(&mut env) {
                        break;
                    }
                }
                control.end(slot);
                if cursor.stopped() {
                    break;
                }
            }
            note_worker(ran, my_runs);
            if keep_spare {
                buf.keep_spare();
            }
        };
        // A cooperative grid: every CTA keeps its state from start to end, and workers take
        // turns at them from one queue. A worker runs a CTA until it ends or its lanes yield
        // in a loop that waits on memory (`lower::yields`: a grid-wide barrier spins so),
        // then puts it at the back of the queue and takes the next one, so a CTA waiting for
        // the others lets them run even on one host thread.
        //
        // A grid-wide barrier waits for every CTA of the grid, so one that a CTA exited
        // before (or a spin loop waiting for such a CTA) can never complete: once some CTA
        // has ended and every CTA still live has yielded `COOP_SPIN_ROUNDS` times in a row
        // since a CTA last ended (`coop_yielded`), the launch stops with a deadlock report
        // naming the CTAs that ended and where the others spin, instead of spinning until
        // the time limit.
        // (Spinning CTAs that wait for each other with no CTA ended, and spin loops that
        // the host or a timer would end, are not judged.)
        let coop_worker = || {
            let (mut my_runs, mut ran) = (0u64, false);
            // (A function, so that the queue's lock is released before the CTA runs.)
            let pop = || queue.lock().ok().and_then(|mut q| q.pop_front());
            // (The deadlock flag is checked before taking a CTA, so that every waiting CTA
            // is back in the queue for the report.)
            while let Some((c, held)) = (!coop_deadlock.load(Ordering::Relaxed)).then(pop).flatten()
            {
                if control.stopped_all() || past_deadline() {
                    break;
                }
                let slot = rayon::current_thread_index().unwrap_or(nsmid as usize);
                let Some(flag) = control.begin(slot, c) else {
                    // A fault stopped this CTA: nothing of it runs again.
                    continue;
                };
                let started = held.is_some();
                let mut buf = held.unwrap_or_default();
                let CtaBuffers {
                    shared,
                    shared_init,
                    local,
                    states,
                    race,
                    tmem,
                    cluster,
                    mbar,
                } = &mut buf;
                if !started {
                    fresh(shared, shared_init, local, false);
                    reset_uses(tmem, mbar);
                    if race_sink.is_some() {
                        race.start(c, ctaid_of(c), threads as u32, shared_size);
                    }
                    cluster.reset(
                        &[shared.as_mut_ptr() as *mut u8],
                        &[race_of(race)],
                        &[init_of(shared_init)],
                        threads as u32,
                    );
                }
                let mut env = make_env(
                    c,
                    shared,
                    shared_init,
                    local,
                    race,
                    flag,
                    cluster,
                    tmem,
                    Some(mbar),
                );
                if !started {
                    start_cta(engine, &state_init, states);
                }
                let (n, finished) = run_cta(engine, &mut env, c, &grid, states, true);
                control.end(slot);
                my_runs += n;
                ran = true;
                if control.faulted() {
                    // The other CTAs would wait for the stopped one at their next grid-wide
                    // barrier forever.
                    control.stop_all();
                }
                if finished {
                    if !control.faulted() {
                        if let Ok(mut e) = coop_ended.lock() {
                            e.push(c);
                        }
                        if let Some(t) = coop_turns
                            .lock()
                            .ok()
                            .as_mut()
                            .and_then(|t| t.get_mut(c as usize))
                        {
                            *t = (u64::MAX, 0);
                        }
                        coop_n_ended.fetch_add(1, Ordering::Relaxed);
                    }
                    continue;
                }
                let n_ended = coop_n_ended.load(Ordering::Relaxed);
                if n_ended > 0 && coop_yielded(c, n_ended) {
                    coop_deadlock.store(true, Ordering::Relaxed);
                }
                if let Ok(mut q) = queue.lock() {
                    q.push_back((c, Some(buf)));
                }
            }
            note_worker(ran, my_runs);
        };
        // A grid of clusters of more than one CTA (`runtime::cluster`): each worker takes
        // whole clusters from one counter, holds the states of all CTAs of its cluster and
        // takes turns at them, each turn running a CTA until it ends or its lanes yield in a
        // loop that waits (`barrier.cluster.wait` is one), so the CTAs of a cluster are
        // co-resident and one host thread runs them all.
        let csize = u64::from(input.cluster.size());
        let [dx, dy, dz] = input.cluster.dims.map(|d| d.max(1));
        let (ngx, ngy) = (gx / dx, gy / dy);
        let clusters = ctas / csize.max(1);
        // The linear CTA index of rank `r` of cluster `k`.
        let cta_of = |k: u64, r: u64| {
            let (kx, ky, kz) = (
                k % u64::from(ngx),
                (k / u64::from(ngx)) % u64::from(ngy),
                k / (u64::from(ngx) * u64::from(ngy)),
            );
            let (rx, ry, rz) = (
                r % u64::from(dx),
                (r / u64::from(dx)) % u64::from(dy),
                r / (u64::from(dx) * u64::from(dy)),
            );
            let (x, y, z) = (
                kx * u64::from(dx) + rx,
                ky * u64::from(dy) + ry,
                kz * u64::from(dz) + rz,
            );
            (z * u64::from(gy) + y) * u64::from(gx) + x
        };
        // A CTA of a cluster between its turns (its worker runs them one at a time) when the
        // launch stopped (time limit, interrupt): where it waits, as a CTA stopped during its
        // turn reports itself (`run_cta`).
        let waiting_at_stop = |c: u64, states: &mut [Vec<u128>]| {
            if timed_out.load(Ordering::Relaxed) == 0 {
                return;
            }
            let (layout, ctaid) = (engine.layout(), ctaid_of(c));
            let text = positions(layout, states, ctaid, grid.sites);
            let first = stop_site(layout, states, ctaid);
            if let Ok(mut p) = grid.positions.lock() {
                p.push((c, text, first));
            }
        };
        // A CTA of a running cluster that had no turn yet when the launch stopped (a peer
        // kept the worker, e.g. in an endless loop): listed as not started, so that the
        // report names every CTA of the cluster.
        let not_started_at_stop = |c: u64| {
            if timed_out.load(Ordering::Relaxed) == 0 {
                return;
            }
            let [x, y, z] = ctaid_of(c);
            if let Ok(mut p) = grid.positions.lock() {
                p.push((c, format!("CTA ({x},{y},{z}): not started"), None));
            }
        };
        let cluster_worker = || {
            let (mut my_runs, mut ran) = (0u64, false);
            let mut bufs: Vec<CtaBuffers> = vec![];
            let mut state = super::cluster::ClusterState::default();
            loop {
                let k = launch_control.take(1);
                if k >= clusters || control.stopped_all() || past_deadline() {
                    break;
                }
                let slot = rayon::current_thread_index().unwrap_or(nsmid as usize);
                bufs.resize_with(csize as usize, Default::default);
                let mut ptrs = Vec::with_capacity(bufs.len());
                let mut races = Vec::with_capacity(bufs.len());
                let mut inits = Vec::with_capacity(bufs.len());
                for (r, b) in bufs.iter_mut().enumerate() {
                    let c = cta_of(k, r as u64);
                    fresh(&mut b.shared, &mut b.shared_init, &mut b.local, false);
                    if race_sink.is_some() {
                        b.race.start(c, ctaid_of(c), threads as u32, shared_size);
                    }
                    ptrs.push(b.shared.as_mut_ptr() as *mut u8);
                    races.push(race_of(&b.race));
                    inits.push(init_of(&b.shared_init));
                }
                state.reset(&ptrs, &races, &inits, threads as u32);
                let mut started = vec![false; bufs.len()];
                let mut finished = vec![false; bufs.len()];
                // Whether a CTA of the cluster was stopped (a fault in it or before it in
                // launch order, a deadlock, the launch's stop): then none of its CTAs runs
                // again, lower ranks included, since one may wait for the stopped CTA (an
                // mbarrier it completes, the cluster barrier) and would otherwise spin until
                // the time limit. The CTAs of a cluster are co-scheduled and a GPU ends the
                // whole grid at a fault; which CTAs stop depends only on this cluster's turns
                // (one host thread runs them in a fixed order), so the report does not depend
                // on the spread of clusters over workers (`AbortControl`).
                let mut cluster_stopped = false;
                while !finished.iter().all(|&f| f)
                    && !cluster_stopped
                    && !control.stopped_all()
                    && !past_deadline()
                {
                    for (r, b) in bufs.iter_mut().enumerate() {
                        if finished[r] {
                            continue;
                        }
                        let c = cta_of(k, r as u64);
                        // The CTA's index in launch order (`CtaEnv::cta_order`), which orders
                        // faults and stops CTAs.
                        let order = k * csize + r as u64;
                        let Some(flag) = control.begin(slot, order) else {
                            cluster_stopped = true;
                            break;
                        };
                        let CtaBuffers {
                            shared,
                            shared_init,
                            local,
                            states,
                            race,
                            tmem,
                            cluster: _,
                            mbar: _,
                        } = b;
                        if !started[r] && uses.tensor_memory {
                            tmem.reset();
                        }
                        // (Not judged: other CTAs of the cluster can arrive on its mbarriers.)
                        let mut env = make_env(
                            c,
                            shared,
                            shared_init,
                            local,
                            race,
                            flag,
                            &state,
                            tmem,
                            None,
                        );
                        if !started[r] {
                            start_cta(engine, &state_init, states);
                            started[r] = true;
                        }
                        let (n, done) = run_cta(engine, &mut env, order, &grid, states, true);
                        let stopped = flag.load(Ordering::SeqCst) != 0;
                        control.end(slot);
                        my_runs += n;
                        ran = true;
                        finished[r] = done;
                        if stopped {
                            // Stopped by a fault (its own or an earlier CTA's), a deadlock or
                            // the launch's stop.
                            cluster_stopped = true;
                            break;
                        }
                    }
                }
                for (r, b) in bufs.iter_mut().enumerate() {
                    match (started[r], finished[r]) {
                        (true, false) => waiting_at_stop(cta_of(k, r as u64), &mut b.states),
                        (false, false) => not_started_at_stop(cta_of(k, r as u64)),
                        _ => {}
                    }
                }
            }
            note_worker(ran, my_runs);
        };
        // A shuffled grid runs its CTAs one at a time, so that the seed fixes the order of
        // their memory accesses too. Otherwise one worker per pool thread, but no more than
        // the grid has batches of CTAs (a cooperative grid: CTAs; its workers take turns at
        // them however many there are): a worker beyond them would find nothing to take
        // and cost a wake-up.
        let workers = if shuffle.is_some() && input.cooperative.is_none() {
            1
        } else if input.cooperative.is_some() {
            pool.min(ctas.max(1))
        } else if csize > 1 {
            pool
        } else {
            batch_workers
        };
        let run_worker = || {
            if input.cooperative.is_some() {
                coop_worker();
            } else if csize > 1 {
                cluster_worker();
            } else if one_round {
                batch_worker();
            } else {
                worker();
            }
        };
        // One worker runs on the calling thread when the engine's frame is known to fit its
        // stack (`runtime::workers::fits_on_this_thread`), the others on the pool: a grid
        // of one batch needs no hand-off to the pool and no wake-up of the caller when it is
        // done, and a larger one starts on the caller while the pool's workers wake up. The
        // caller's stop-flag slot is the one for a thread outside the pool (a pool thread
        // keeps its own); the watchdog and the interrupt watcher reach it as they reach a
        // pool worker.
        let inline = engine
            .frame_bytes()
            .is_some_and(super::workers::fits_on_this_thread);
        if inline && workers == 1 {
            run_worker();
        } else if inline {
            // The pool's workers as helpers the caller does not wait for unless they started
            // in time to take work (`run_with_helpers`): the caller's worker ends when the
            // counter has nothing left, so a helper that starts later would find nothing.
            super::workers::run_with_helpers(workers as usize - 1, &run_worker);
        } else {
            rayon::scope(|s| {
                for _ in 0..workers {
                    s.spawn(|_| run_worker());
                }
            });
        }
        if let Some(done_tx) = done_tx {
            let _ = done_tx.send(());
        }
    });
    // The failed assertions' lines, in order of CTA and thread, once the launch has ended (a
    // GPU's host prints them on stderr at its next synchronization).
    let asserts = sink.take_assert_text();
    if !asserts.is_empty() {
        printf_out.write_assert(&asserts);
    }
    if coop_deadlock.load(Ordering::Relaxed) && timed_out.load(Ordering::Relaxed) == 0 {
        let ended: Vec<[u32; 3]> = coop_ended
            .into_inner()
            .unwrap_or_default()
            .into_iter()
            .map(ctaid_of)
            .collect();
        let waiting: Vec<(u64, CtaBuffers)> = queue
            .lock()
            .map(|mut q| q.drain(..).filter_map(|(c, b)| Some((c, b?))).collect())
            .unwrap_or_default();
        let text = grid_barrier_report(&ended, waiting, |c, states| {
            positions(engine.layout(), states, ctaid_of(c), grid.sites)
        });
        if let Ok(mut d) = grid.deadlock.lock() {
            d.get_or_insert((0, text, None));
        }
    }
    // CTAs of a cooperative grid waiting in the queue when the launch stopped: where they were.
    if timed_out.load(Ordering::Relaxed) != 0 {
        for (c, held) in queue.into_inner().unwrap_or_default() {
            if let (Some(mut buf), Ok(mut p)) = (held, grid.positions.lock()) {
                let ctaid = ctaid_of(c);
                p.push((
                    c,
                    positions(engine.layout(), &mut buf.states, ctaid, grid.sites),
                    stop_site(engine.layout(), &mut buf.states, ctaid),
                ));
            }
        }
    }
    let stopped = timed_out.load(Ordering::Relaxed);
    // After a failed assertion the threads that wait on (for the thread it ended, or in an
    // endless loop) are not the launch's error, the assertion is (a GPU's trap ends the grid).
    let asserted = sink.asserted();
    if stopped == 2 || (stopped == 1 && !asserted) {
        let mut pos = grid.positions.into_inner().unwrap_or_default();
        pos.sort_by_key(|(c, ..)| *c);
        let n = pos.len();
        let first = pos.iter().find_map(|(.., f)| *f);
        let mut text: Vec<String> = pos
            .into_iter()
            .take(TIMEOUT_REPORT_CTAS)
            .map(|(_, t, _)| t)
            .collect();
        if n > TIMEOUT_REPORT_CTAS {
            text.push(format!("… and {} more CTAs", n - TIMEOUT_REPORT_CTAS));
        }
        if text.is_empty() {
            text.push("(no CTA was running: the limit passed before or between CTAs)".into());
        }
        let at = Stopped {
            at: text.join("\n"),
            first,
        };
        return Err(if stopped == 2 {
            LaunchFailure::Interrupted(at)
        } else {
            LaunchFailure::Timeout(at)
        });
    }
    // A deadlock and a fault stop the CTAs after their own alike: the lower CTA's is reported.
    if let Some((c, d, site)) = grid.deadlock.into_inner().ok().flatten() {
        if !asserted && sink.first_cta().is_none_or(|f| c < f) {
            return Err(LaunchFailure::Deadlock(d, site));
        }
    }
    if let Some((f, threads)) = sink.take() {
        return Err(LaunchFailure::Fault(f, threads));
    }
    Ok(LaunchStats {
        warp_runs: runs.load(Ordering::Relaxed),
        workers: worker_bits.load(Ordering::Relaxed).count_ones(),
        thread_instructions: thread_insts.load(Ordering::Relaxed),
    })
}

/// Mark block priority `p` as possibly pending in a warp state.
pub fn set_active(layout: &WarpLayout, s: &mut [u8], p: u32) {
    let o = (layout.active_off + 8 * (p / 64)) as usize;
    let mut w = u64::from_le_bytes(s[o..o + 8].try_into().unwrap_or([0; 8]));
    w |= 1 << (p % 64);
    s[o..o + 8].copy_from_slice(&w.to_le_bytes());
}

/// Rounds over the live CTAs of a cooperative grid, each CTA only yielding again, after which
/// a grid with an ended CTA is deadlocked (see `coop_worker` in [`run_grid`]).
const COOP_SPIN_ROUNDS: u64 = 1000;

/// CTAs of a deadlock report listed by position, at most.
const DEADLOCK_REPORT_CTAS: usize = 8;

/// The report of a cooperative grid whose CTAs spin for CTAs that ended: `ended` (their
/// ids), and where the `waiting` ones (linear index, buffers) spin, each rendered by `at`.
fn grid_barrier_report(
    ended: &[[u32; 3]],
    mut waiting: Vec<(u64, CtaBuffers)>,
    mut at: impl FnMut(u64, &mut [Vec<u128>]) -> String,
) -> String {
    waiting.sort_by_key(|(c, _)| *c);
    let mut ended_text: Vec<String> = ended
        .iter()
        .take(DEADLOCK_REPORT_CTAS)
        .map(|[x, y, z]| format!("({x},{y},{z})"))
        .collect();
    if ended.len() > DEADLOCK_REPORT_CTAS {
        ended_text.push(format!("… {} in all", ended.len()));
    }
    let n = waiting.len();
    let mut text = format!(
        "grid-wide deadlock in a cooperative launch: CTA{} {} ended while {n} other CTA{} \
         wait{} in a loop on memory (each {COOP_SPIN_ROUNDS} turns in a row since a CTA last \
         ended); a grid-wide \
         barrier (cooperative_groups' grid.sync(), numba's this_grid().sync()) needs every \
         CTA of the grid, so it can never complete. Waiting:",
        if ended.len() == 1 { "" } else { "s" },
        ended_text.join(", "),
        if n == 1 { "" } else { "s" },
        if n == 1 { "s" } else { "" },
    );
    for (c, buf) in waiting.iter_mut().take(DEADLOCK_REPORT_CTAS) {
        text.push('\n');
        text.push_str(&at(*c, &mut buf.states));
    }
    if n > DEADLOCK_REPORT_CTAS {
        text.push_str(&format!("\n… and {} more CTAs", n - DEADLOCK_REPORT_CTAS));
    }
    text
}

/// What the CTAs of a launch share besides the engine.
struct GridShared<'a> {
    /// The seed of a shuffled schedule (`runtime::shuffle`): warps run in its order.
    shuffle: Option<u64>,
    timed_out: &'a AtomicU32,
    sites: Sites<'a>,
    /// The first deadlock (by linear CTA index), its report and, for a barrier deadlock, the
    /// barrier instruction (fault-record index) the report's first line names
    /// ([`GridShared::note_deadlock`]).
    deadlock: Mutex<Option<(u64, String, Option<u32>)>>,
    /// Where the warps of CTAs stopped by the time limit were, by linear CTA index, with
    /// the first warp's instruction ([`stop_site`]).
    positions: Mutex<Vec<(u64, String, Option<StopSite>)>>,
}

impl GridShared<'_> {
    /// Keep the deadlock report `text` of CTA `cta` (linear index; `site`: the barrier its
    /// first line names) if no lower CTA's is kept: the lowest deadlocked CTA is the one
    /// reported however CTAs are spread over workers.
    fn note_deadlock(&self, cta: u64, text: String, site: Option<u32>) {
        if let Ok(mut d) = self.deadlock.lock() {
            if d.as_ref().is_none_or(|(c, ..)| cta < *c) {
                *d = Some((cta, text, site));
            }
        }
    }
}

/// View a warp state (`Vec<u128>`) as bytes, read-only.
pub(super) fn bytes_ref(v: &[u128]) -> &[u8] {
    let len = std::mem::size_of_val(v);
    // SAFETY: a slice of n u128 is 16n initialized bytes; u8 has no alignment or validity
    // requirements, and the borrow is carried over.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, len) }
}

/// View a warp state (`Vec<u128>`) as bytes.
pub(super) fn bytes(v: &mut [u128]) -> &mut [u8] {
    let len = std::mem::size_of_val(v);
    // SAFETY: a slice of n u128 is 16n initialized bytes; u8 has no alignment or validity
    // requirements, and the borrow is carried over.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, len) }
}

/// [`CtaEnv::tid_x_linear`] of a CTA shape `[ntid.x, ntid.y, ntid.z]`: 1 when every warp's
/// `%tid.x` are consecutive (threads are numbered x fastest, so a warp stays in one row when
/// rows are whole warps, and a one-row CTA has no row to leave), else 0.
fn tid_x_linear(block: [u32; 3]) -> u32 {
    u32::from(block[0].is_multiple_of(32) || (block[1] | block[2]) == 1)
}

/// `0-7,12,30-31`: the lanes of a mask as ranges.
pub fn fmt_lanes(m: u32) -> String {
    let mut parts = vec![];
    let mut l = 0;
    while l < 32 {
        if m & (1 << l) == 0 {
            l += 1;
            continue;
        }
        let start = l;
        while l < 32 && m & (1 << l) != 0 {
            l += 1;
        }
        parts.push(if l - 1 == start {
            format!("{start}")
        } else {
            format!("{start}-{}", l - 1)
        });
    }
    parts.join(",")
}

/// How the warp states of a CTA that starts are set up ([`start_cta`]), worked out once per
/// launch from the engine's layout and [`WarpEngine::zeroed_ranges`] (without a heap
/// allocation: this runs at every launch).
struct StateInit {
    /// Warps per CTA.
    nwarps: usize,
    /// Threads per CTA.
    threads: u32,
    /// `u128` words per warp state.
    words: usize,
    /// For a full warp whose state is reused from the previous CTA, when the ranges to zero
    /// are whole words and few ([`StateInit::words_to_write`]): every word to write, with its
    /// value (zeros, but for the words of the live mask, the entry block's pending mask and
    /// the active bitset's first word). Copied run by run, it sets the state as zeroing the
    /// ranges and then writing those fields would. Built in place (it is about 1 KiB).
    template: WordTemplate,
}

/// The most words [`StateInit::template`] holds; past it, ranges are zeroed by `fill`.
const MAX_WORDS_TO_WRITE: usize = 32;

/// The most words of one run of a [`WordTemplate`]: consecutive words past it start another
/// run, so that every run is a fixed-size copy (`copy_run`; a longer one would be a `memcpy`
/// call per warp).
const MAX_RUN_WORDS: usize = 8;

/// One run of a [`WordTemplate`]: `len` words (1 to [`MAX_RUN_WORDS`]) written at word
/// `first` of a state, whose values are the template's `values[at..at + len]`.
#[derive(Clone, Copy, Debug, Default)]
struct TemplateRun {
    first: usize,
    len: usize,
    at: usize,
}

/// [`StateInit::template`]: runs of consecutive words of a warp state, in increasing order,
/// and their values, in fixed arrays; `ok`: whether the template applies (its runs are
/// complete).
#[derive(Debug)]
struct WordTemplate {
    ok: bool,
    runs: [TemplateRun; MAX_WORDS_TO_WRITE],
    nruns: usize,
    values: [u128; MAX_WORDS_TO_WRITE],
}

impl WordTemplate {
    /// The runs with their values.
    fn runs(&self) -> impl Iterator<Item = (usize, &[u128])> {
        self.runs[..self.nruns]
            .iter()
            .map(|r| (r.first, &self.values[r.at..r.at + r.len]))
    }
}

impl StateInit {
    fn new(engine: &dyn WarpEngine, threads: u32) -> StateInit {
        let layout = engine.layout();
        let words = (layout.size as usize).div_ceil(16);
        let mut init = StateInit {
            nwarps: threads.div_ceil(WARP_SIZE) as usize,
            threads,
            words,
            template: WordTemplate {
                ok: false,
                runs: [TemplateRun::default(); MAX_WORDS_TO_WRITE],
                nruns: 0,
                values: [0; MAX_WORDS_TO_WRITE],
            },
        };
        if let Some(ranges) = engine.zeroed_ranges() {
            init.template.ok =
                Self::full_warp_words(layout, ranges, words, &mut init.template).is_some();
        }
        init
    }

    /// The words a full warp's reused state gets, where the template applies.
    fn words_to_write(&self) -> Option<&WordTemplate> {
        self.template.ok.then_some(&self.template)
    }

    /// Build in `t` the words a full warp's reused state gets ([`StateInit::template`]);
    /// `None` where a range is not whole words, the fields set at start lie outside the
    /// ranges (their words keep other bytes), or there are more than [`MAX_WORDS_TO_WRITE`]
    /// words (`t` is then partly written, and not to be used).
    fn full_warp_words(
        layout: &WarpLayout,
        ranges: &[(u32, u32)],
        words: usize,
        t: &mut WordTemplate,
    ) -> Option<()> {
        // The words the ranges cover, each once, in no order yet.
        let mut covered = [0usize; MAX_WORDS_TO_WRITE];
        let mut n = 0;
        for &(off, len) in ranges {
            let (off, len) = (off as usize, len as usize);
            // (A range past the state's end is not cleared, as in `start_cta`'s other path.)
            if off + len > 16 * words {
                continue;
            }
            if off % 16 != 0 || len % 16 != 0 {
                return None;
            }
            for w in off / 16..(off + len) / 16 {
                if covered[..n].contains(&w) {
                    continue;
                }
                *covered.get_mut(n)? = w;
                n += 1;
            }
        }
        let covered = &mut covered[..n];
        covered.sort_unstable();
        let active = layout.active_off as usize;
        let pending = layout.pending(0) as usize;
        if [LIVE_OFF as usize, pending, active]
            .iter()
            .any(|&f| f + 8 > 16 * words || covered.binary_search(&(f / 16)).is_err())
        {
            return None;
        }
        // Word `w` of a zeroed state after the start's writes: the live mask and the entry
        // block's pending mask all ones, the active bit of priority 0 (`set_active`) set.
        let value = |w: usize| {
            let mut b = [0u8; 16];
            let fields: [(usize, &[u8]); 3] = [
                (LIVE_OFF as usize, &[0xff; 4]),
                (pending, &[0xff; 4]),
                (active, &[1, 0, 0, 0, 0, 0, 0, 0]),
            ];
            for (off, field) in fields {
                for (k, &v) in field.iter().enumerate() {
                    if let Some(d) = (off + k).checked_sub(16 * w).and_then(|j| b.get_mut(j)) {
                        *d |= v;
                    }
                }
            }
            u128::from_le_bytes(b)
        };
        t.nruns = 0;
        for (at, &w) in covered.iter().enumerate() {
            t.values[at] = value(w);
            match t.runs[..t.nruns].last_mut() {
                Some(r) if r.first + r.len == w && r.len < MAX_RUN_WORDS => r.len += 1,
                _ => {
                    t.runs[t.nruns] = TemplateRun {
                        first: w,
                        len: 1,
                        at,
                    };
                    t.nruns += 1;
                }
            }
        }
        Some(())
    }
}

/// Set up the warp states of a CTA that starts: one per warp, reused from the worker's
/// previous CTA where the engine allows it ([`WarpEngine::zeroed_ranges`]), every live lane
/// pending at the entry block.
fn start_cta(engine: &dyn WarpEngine, init: &StateInit, buffers: &mut Vec<Vec<u128>>) {
    let layout = engine.layout();
    let (threads, words) = (init.threads, init.words);
    if buffers.len() != init.nwarps {
        buffers.resize_with(init.nwarps, Vec::new);
    }
    // The leading full warps whose state is reused (all of them but in a worker's first
    // CTA) take the word template, run by run over the warps: one decision per run and CTA,
    // not per run and warp. The others take the general path below.
    let mut reused = 0;
    if let Some(write) = init.words_to_write() {
        let full = ((threads / WARP_SIZE) as usize).min(buffers.len());
        reused = buffers[..full]
            .iter()
            .take_while(|st| st.len() == words)
            .count();
        for (first, run) in write.runs() {
            copy_run(&mut buffers[..reused], first, run);
        }
    }
    let ranges = engine.zeroed_ranges();
    for (w, st) in buffers.iter_mut().enumerate().skip(reused) {
        let lanes = (threads - w as u32 * WARP_SIZE).min(WARP_SIZE);
        match ranges {
            Some(ranges) if st.len() == words => {
                let s = bytes(st);
                for &(off, len) in ranges {
                    if let Some(r) = s.get_mut(off as usize..(off + len) as usize) {
                        r.fill(0);
                    }
                }
            }
            _ => {
                st.clear();
                st.resize(words, 0);
            }
        }
        let s = bytes(st);
        let live = if lanes == 32 {
            u32::MAX
        } else {
            (1u32 << lanes) - 1
        };
        wr32(s, LIVE_OFF, live);
        wr32(s, layout.pending(0), live);
        set_active(layout, s, 0);
    }
}

/// Write `run` at word `first` of each state of `states` (a run of
/// [`StateInit::template`]; a state too short for it is left alone). The template's
/// runs have at most [`MAX_RUN_WORDS`] (eight) words, each a fixed-size copy in a loop over
/// the warps rather than a `memcpy` call per warp, whose call and size dispatch cost more
/// than the copy of a few words (a longer run, which the template does not make, is a
/// `memcpy` per warp).
fn copy_run(states: &mut [Vec<u128>], first: usize, run: &[u128]) {
    fn fixed<const N: usize>(states: &mut [Vec<u128>], first: usize, run: &[u128]) {
        let Ok(src) = <&[u128; N]>::try_from(run) else {
            return;
        };
        let src = *src;
        for st in states {
            if let Some(Ok(d)) = st.get_mut(first..first + N).map(<&mut [u128; N]>::try_from) {
                *d = src;
            }
        }
    }
    match run.len() {
        0 => {}
        1 => fixed::<1>(states, first, run),
        2 => fixed::<2>(states, first, run),
        3 => fixed::<3>(states, first, run),
        4 => fixed::<4>(states, first, run),
        5 => fixed::<5>(states, first, run),
        6 => fixed::<6>(states, first, run),
        7 => fixed::<7>(states, first, run),
        8 => fixed::<8>(states, first, run),
        n => {
            for st in states {
                if let Some(d) = st.get_mut(first..first + n) {
                    d.copy_from_slice(run);
                }
            }
        }
    }
}

/// Run a CTA whose warp states `states` were set up by [`start_cta`]; returns the number of
/// warp runs and whether the CTA is over (ended, stopped or deadlocked). Barriers complete
/// between rounds (every warp has stopped); a round that completes none while lanes wait is
/// a deadlock, reported in `shared`, and stops the launch. With `pause_at_yield` (a
/// cooperative grid), a round in which lanes yielded (`lower::yields`) ends the call with the
/// CTA not over, so that the caller can run other CTAs before resuming it.
///
/// The common case takes a short path: warps in index order, no mbarrier waits judged, no
/// synccheck or racecheck, and a first round (one engine call, which may complete uniform
/// barriers itself) that stops with every lane exited and the cluster barrier unused. Then
/// the CTA is done, as [`run_rounds`] would find it after that round (`complete_uniform`'s
/// all-exited test; the cluster's turn is noted only where the barrier was used), without
/// its set-up per CTA. Every other case, from the first round's result, is [`run_rounds`]'s.
fn run_cta(
    engine: &dyn WarpEngine,
    env: &mut CtaEnv,
    cta: u64,
    shared: &GridShared,
    states: &mut [Vec<u128>],
    pause_at_yield: bool,
) -> (u64, bool) {
    let layout = engine.layout();
    env.nwarps = states.len() as u32;
    // The engine may complete a uniform `bar.sync` inside its call for the whole CTA
    // (`WarpEngine::run_round`) where no per-round work of this loop can be needed: warps in
    // index order, no synccheck or racecheck hooks (only the general completion calls
    // them), and no pausing at yields (a cooperative or cluster schedule). Kernels with
    // mbarrier or cluster-barrier operations, whose rounds this loop judges, are excluded by
    // the engine (`jit::ctabar`).
    let plain = shared.shuffle.is_none() && env.synccheck().is_none() && env.race.is_null();
    env.complete_in_call =
        u32::from(!layout.barrier_targets.is_empty() && plain && !pause_at_yield);
    if !plain || env.mbar_waits().is_some() {
        return run_rounds(engine, env, cta, shared, states, pause_at_yield, None);
    }
    let (status, ran) = engine.run_round(states, env);
    if status == WarpStatus::Stopped
        && env.cluster_state().is_none_or(|c| !c.used())
        && all_exited(states)
    {
        return (u64::from(ran), true);
    }
    let first = Some((status, ran));
    run_rounds(engine, env, cta, shared, states, pause_at_yield, first)
}

/// [`run_cta`]'s rounds, after its set-up (`env.nwarps`, `env.complete_in_call`); `first`:
/// the result of a first round [`run_cta`] ran already (warps in index order), which this
/// judges before running the next.
#[inline(never)]
fn run_rounds(
    engine: &dyn WarpEngine,
    env: &mut CtaEnv,
    cta: u64,
    shared: &GridShared,
    states: &mut [Vec<u128>],
    pause_at_yield: bool,
    mut first: Option<(WarpStatus, u32)>,
) -> (u64, bool) {
    let layout = engine.layout();
    let mut runs = 0u64;
    // A shuffled schedule: this round's order of the warps (`runtime::shuffle`).
    let mut order: Vec<u32> = vec![];
    let mut round = 0u64;
    loop {
        if let Some(seed) = shared.shuffle {
            order = super::shuffle::warp_order(seed, cta, round, states.len());
            round += 1;
        }
        if let Some(m) = env.mbar_waits() {
            m.next_round();
        }
        // Warps in index order (every schedule but a shuffled one) run as one round
        // (`WarpEngine::run_round`: one call for the CTA's warps where the engine has it).
        let status = if let Some((status, ran)) = first.take() {
            runs += u64::from(ran);
            status
        } else if order.is_empty() {
            let (status, ran) = engine.run_round(states, env);
            runs += u64::from(ran);
            status
        } else {
            let mut status = WarpStatus::Stopped;
            for &w in &order {
                env.warp = w;
                runs += 1;
                status = engine.run_warp(bytes(&mut states[w as usize]), env);
                if status == WarpStatus::Aborted {
                    break;
                }
            }
            status
        };
        if status == WarpStatus::Aborted {
            if shared.timed_out.load(Ordering::Relaxed) != 0 {
                let text = positions(layout, states, env.ctaid, shared.sites);
                let first = stop_site(layout, states, env.ctaid);
                if let Ok(mut p) = shared.positions.lock() {
                    p.push((cta, text, first));
                }
            }
            return (runs, true);
        }
        let yielded = pause_at_yield
            && states
                .iter()
                .any(|st| super::warp::yielded_lanes(bytes_ref(st)).0 != 0);
        if let Some(dl) = env.mbar_waits().and_then(|m| {
            let warps = states.iter().map(|st| {
                let s = bytes_ref(st);
                let alive = rd32(s, LIVE_OFF) & !rd32(s, EXITED_OFF);
                (alive, super::warp::yielded_lanes(s).0)
            });
            m.judge(warps, |off| {
                if off % 8 != 0 || u64::from(off) + 8 > env.shared_size {
                    return None;
                }
                // SAFETY: 8 bytes at an 8-byte aligned offset inside the CTA's shared
                // memory, which only this host thread accesses while the CTA runs.
                Some(unsafe { (env.shared_base.add(off as usize) as *const u64).read() })
            })
        }) {
            let text = mbar_deadlock_report(env.ctaid, &dl, shared.sites);
            shared.note_deadlock(cta, text, None);
            // Stopped as a fault stops: this CTA and the ones after it, so that the lowest
            // deadlocked CTA is the one reported however CTAs are spread over workers.
            // SAFETY: `control` points to the launch's stop flags, alive for the whole
            // launch.
            unsafe { (*env.control).fault(cta) };
            return (runs, true);
        }
        let check = env.synccheck().map(|sink| SyncCheck {
            sink,
            who: env.sync_who(),
            sites: shared.sites,
        });
        // SAFETY: null or this CTA's racecheck state, alive for the launch (see CtaEnv).
        let race = unsafe { env.race.as_ref() };
        let round = complete_barriers(layout, states, check.as_ref(), race);
        if let Some(c) = env.cluster_state().filter(|c| c.used()) {
            if c.note_turn(env.cluster_rank(), layout, states) {
                let text = format!(
                    "deadlock at the cluster barrier: threads of the cluster of CTA ({}, {}, {}) \
                     wait at barrier.cluster.wait, and every other thread of the cluster has \
                     exited or waits at a barrier that needs them; this CTA's warps:\n{}",
                    env.ctaid[0],
                    env.ctaid[1],
                    env.ctaid[2],
                    positions(layout, states, env.ctaid, shared.sites)
                );
                shared.note_deadlock(cta, text, None);
                // SAFETY: `control` points to the launch's stop flags, alive for the whole
                // launch.
                unsafe { (*env.control).stop_all() };
                return (runs, true);
            }
        }
        match round {
            Round::Done => return (runs, true),
            Round::Released if yielded => return (runs, false),
            Round::Released => {}
            Round::Stuck(why) => {
                if let Some(c) = &check {
                    stuck_findings(layout, states, c);
                }
                let (text, site) = deadlock_report(layout, states, env.ctaid, shared.sites, why);
                shared.note_deadlock(cta, text, site);
                // Stopped as a fault stops: this CTA and the ones after it, so that the lowest
                // deadlocked CTA is the one reported however CTAs are spread over workers.
                // SAFETY: `control` points to the launch's stop flags, alive for the whole
                // launch.
                unsafe { (*env.control).fault(cta) };
                return (runs, true);
            }
        }
    }
}

/// The outcome of a round of the CTA scheduler.
#[derive(Debug)]
enum Round {
    /// No lane waits: the CTA has finished.
    Done,
    /// Some barrier completed and released lanes.
    Released,
    /// Lanes wait and no barrier can complete.
    Stuck(Stuck),
}

#[derive(Debug)]
enum Stuck {
    /// Barriers wait for arrivals that cannot come.
    Incomplete,
    /// Lanes of warp `.0` wait at different instructions of an `.aligned` barrier.
    Divergent(usize),
}

/// The set bits of `m`, ascending.
fn ids(m: u32) -> impl Iterator<Item = u32> {
    let mut m = m;
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let id = m.trailing_zeros();
            m &= m - 1;
            id
        })
    })
}

pub(super) fn rec(s: &[u8], id: u32, field: u32) -> u32 {
    rd32(s, bar_field(id, field))
}

/// The barrier instruction (fault-record index) lane `l` of a warp waits at: the warp-level
/// synchronization or the CTA barrier record it arrived at; `None` where no record names
/// one (lanes parked without a barrier record).
fn wait_site(s: &[u8], l: u32) -> Option<u32> {
    if rd32(s, WSYNC_WAIT_OFF) & 1 << l != 0 {
        return rd32(s, WSYNC_INST_OFF + 4 * l).checked_sub(1);
    }
    (0..BAR_COUNT)
        .find(|&id| rec(s, id, BAR_WAITING) & 1 << l != 0)
        .and_then(|id| {
            let second = rec(s, id, BAR_LANES2) & 1 << l != 0 && rec(s, id, BAR_INST2) != 0;
            rec(s, id, if second { BAR_INST2 } else { BAR_INST }).checked_sub(1)
        })
}

/// Lanes `waiting` of a warp grouped by the barrier each waits at ([`wait_site`]), lowest
/// lane's group first.
fn wait_groups(s: &[u8], waiting: u32) -> Vec<(u32, Option<u32>)> {
    let mut groups = vec![];
    let mut m = waiting;
    while m != 0 {
        let site = wait_site(s, m.trailing_zeros());
        let group = super::warp::lanes(m)
            .filter(|&l| wait_site(s, l) == site)
            .fold(0u32, |g, l| g | 1 << l);
        m &= !group;
        groups.push((group, site));
    }
    groups
}

/// Lanes of a warp parked at any block.
pub(super) fn parked_lanes(layout: &WarpLayout, s: &[u8]) -> u32 {
    layout
        .barrier_targets
        .iter()
        .fold(0, |m, &p| m | rd32(s, layout.parked(p)))
}

/// Complete every barrier whose arrivals are complete (PTX ISA §9.7.13.1): a barrier for all
/// threads completes when every warp with non-exited threads has them all arrived (threads
/// that exited do not hold it up, `exit` §9.7.19.4); a barrier for `n` threads completes when
/// `n / 32` warps have all their non-exited threads arrived (a warp counts whole, in warp
/// order). Waiting lanes of the completing warps go from parked to pending, with their
/// `bar.red` results.
///
/// racecheck (`race`): each completing barrier orders the accesses of its warps
/// (`race::RaceCta::barrier`), and each released warp-level synchronization those of its
/// lanes.
fn complete_barriers(
    layout: &WarpLayout,
    states: &mut [Vec<u128>],
    check: Option<&SyncCheck>,
    race: Option<&super::race::RaceCta>,
) -> Round {
    if check.is_none() && race.is_none() {
        if let Some(round) = complete_uniform(layout, states) {
            return round;
        }
    }
    complete_general(layout, states, check, race)
}

/// [`complete_barriers`] without its fast path ([`complete_uniform`]).
fn complete_general(
    layout: &WarpLayout,
    states: &mut [Vec<u128>],
    check: Option<&SyncCheck>,
    race: Option<&super::race::RaceCta>,
) -> Round {
    // No lane parked anywhere (every kernel without barriers): the CTA has finished.
    if states
        .iter_mut()
        .all(|st| parked_lanes(layout, bytes(st)) == 0)
    {
        return Round::Done;
    }
    let nw = states.len();
    // Warp-level synchronizations first: they need no other warp. The CTA's barriers are
    // completed in the same round: a warp that parks at a warp-level synchronization (or a
    // spin loop's yield point) every round must not keep other warps' barriers from
    // completing (a warp-specialized kernel's producer spins while its consumers wait at a
    // named barrier, `bar.sync 2, 128`).
    let mut released = false;
    for (w, st) in states.iter_mut().enumerate() {
        released |= release_warp_syncs(
            layout,
            bytes(st),
            check.map(|c| (c, w as u32)),
            race.map(|r| (r, w as u32)),
        );
    }
    let mut any_parked = false;
    // Barriers some warp has arrived at (bit per id): only those can complete.
    let mut pending_ids = 0u32;
    // The first warp whose lanes wait at different `.aligned` barriers.
    let mut divergent = None;
    // Non-exited lanes per warp, and per barrier the lanes arrived per warp (on the stack
    // for CTAs of up to 1024 threads: this runs once per barrier round).
    let (mut alive_buf, mut arrived_buf) = ([0u32; 32], [0u32; 32]);
    let (mut alive_vec, mut arrived_vec) = (vec![], vec![]);
    let (alive, arrived): (&mut [u32], &mut [u32]) = if nw <= 32 {
        (&mut alive_buf[..nw], &mut arrived_buf[..nw])
    } else {
        alive_vec.resize(nw, 0);
        arrived_vec.resize(nw, 0);
        (&mut alive_vec, &mut arrived_vec)
    };
    for (w, st) in states.iter_mut().enumerate() {
        let s = bytes(st);
        alive[w] = rd32(s, LIVE_OFF) & !rd32(s, EXITED_OFF);
        let parked = parked_lanes(layout, s);
        any_parked |= parked != 0;
        let mut waiting = [0u32; BAR_COUNT as usize];
        // Parked lanes without a record (IR built without a `barrier` op) wait at barrier 0
        // for all threads. (Accumulated here: folding the array afterwards reads it back as
        // vectors right after scalar stores, a store-forwarding stall on every round.)
        let mut registered = rd32(s, WSYNC_WAIT_OFF);
        for id in ids(layout.bar_ids) {
            let w = rec(s, id, BAR_WAITING);
            waiting[id as usize] = w;
            registered |= w;
        }
        let extra = parked & !registered;
        if extra != 0 {
            let arrived = rec(s, 0, BAR_ARRIVED);
            if arrived == 0 {
                wr32(s, bar_field(0, BAR_FLAGS), BarKind::Sync.code());
            }
            wr32(s, bar_field(0, BAR_ARRIVED), arrived | extra);
            waiting[0] |= extra;
            wr32(s, bar_field(0, BAR_WAITING), waiting[0]);
        }
        // `.aligned` barriers: all lanes of a warp wait at the same instruction.
        let (mut nwait, mut aligned, mut split) = (0u32, false, false);
        for id in ids(layout.bar_ids) {
            if waiting[id as usize] != 0 {
                nwait += 1;
                let flags = rec(s, id, BAR_FLAGS);
                aligned |= flags & BAR_ALIGNED != 0;
                split |= flags & BAR_SPLIT != 0;
            }
            if rec(s, id, BAR_ARRIVED) != 0 {
                pending_ids |= 1 << id;
            }
        }
        if aligned && (split || nwait > 1) && divergent.is_none() {
            divergent = Some(w);
        }
    }
    if !any_parked {
        // Lanes released from warp-level synchronizations above are pending, not done.
        return if released {
            Round::Released
        } else {
            Round::Done
        };
    }
    if let Some(w) = divergent {
        return Round::Stuck(Stuck::Divergent(w));
    }
    // Warps taking part in a completing barrier, as a list of indices in `parts[..np]`.
    let mut parts_buf = [0usize; 32];
    let mut parts_vec = vec![];
    let parts: &mut [usize] = if nw <= 32 {
        &mut parts_buf[..nw]
    } else {
        parts_vec.resize(nw, 0);
        &mut parts_vec
    };
    for id in (0..BAR_COUNT).filter(|&id| pending_ids >> id & 1 != 0) {
        let mut expect = 0u32;
        for (w, st) in states.iter_mut().enumerate() {
            let s = bytes(st);
            arrived[w] = rec(s, id, BAR_ARRIVED);
            if arrived[w] != 0 && expect == 0 {
                expect = rec(s, id, BAR_THREADS);
            }
        }
        if arrived.iter().all(|&a| a == 0) {
            continue;
        }
        let full = |w: usize| arrived[w] != 0 && alive[w] & !arrived[w] == 0;
        let mut np = 0;
        if expect == 0 {
            if !(0..nw).all(|w| alive[w] == 0 || full(w)) {
                continue;
            }
            for w in (0..nw).filter(|&w| arrived[w] != 0) {
                parts[np] = w;
                np += 1;
            }
        } else {
            let need = (expect / WARP_SIZE) as usize;
            for w in (0..nw).filter(|&w| full(w)).take(need) {
                parts[np] = w;
                np += 1;
            }
            if np < need {
                continue;
            }
        }
        if let Some(c) = check {
            check_barrier(states, id, &parts[..np], c);
        }
        if let Some(r) = race {
            // Warps that only arrived (`bar.arrive`) give their accesses, learn nothing.
            let waited: Vec<(usize, bool)> = parts[..np]
                .iter()
                .map(|&w| {
                    let s = bytes(&mut states[w]);
                    let kind = BarKind::from_code(rec(s, id, BAR_FLAGS) & 0xff);
                    (w, kind != BarKind::Arrive)
                })
                .collect();
            r.barrier(waited.into_iter());
        }
        // Reductions over the arrived threads of the completing warps.
        let mut popc = 0u32;
        let mut all = true;
        for &w in parts[..np].iter() {
            let s = bytes(&mut states[w]);
            let (a, p) = (rec(s, id, BAR_ARRIVED), rec(s, id, BAR_PRED));
            popc += (a & p).count_ones();
            all &= a & p == a;
        }
        for &w in parts[..np].iter() {
            let s = bytes(&mut states[w]);
            let waiting = rec(s, id, BAR_WAITING);
            let result = match BarKind::from_code(rec(s, id, BAR_FLAGS) & 0xff) {
                BarKind::RedPopc => Some(popc),
                BarKind::RedAnd => Some(all as u32),
                BarKind::RedOr => Some((popc != 0) as u32),
                // No result: only `bar.red` is followed by a read of it (`BarResult`).
                BarKind::Sync | BarKind::Arrive => None,
            };
            let mut m = if result.is_some() { waiting } else { 0 };
            let result = result.unwrap_or(0);
            while m != 0 {
                let l = m.trailing_zeros();
                m &= m - 1;
                wr32(s, BAR_RESULT_OFF + 4 * l, result);
            }
            for &p in &layout.barrier_targets {
                let parked = rd32(s, layout.parked(p));
                let m = parked & waiting;
                if m != 0 {
                    let pend = rd32(s, layout.pending(p));
                    wr32(s, layout.pending(p), pend | m);
                    wr32(s, layout.parked(p), parked & !m);
                    set_active(layout, s, p);
                }
            }
            for f in (0..BAR_REC).step_by(4) {
                wr32(s, bar_field(id, f), 0);
            }
            released = true;
        }
    }
    if released {
        Round::Released
    } else {
        Round::Stuck(Stuck::Incomplete)
    }
}

/// The common case of [`complete_barriers`], in two passes over the warps: every non-exited
/// lane of the CTA is parked and waits (`bar.sync`, `bar.red`) at the same barrier, with a
/// record and without a second instruction (`BAR_SPLIT`); the barrier is for all threads or
/// for exactly the threads of the warps with non-exited lanes; no lane waits at a
/// warp-level synchronization; and no warp has a record of another barrier, nor exited
/// after arriving. Then that barrier completes for every warp with non-exited lanes, which
/// is what the general path decides in that state, with the same `bar.red` results,
/// released lanes and cleared records. `None` where a condition fails: the general path
/// decides. Not used with synccheck or racecheck, whose hooks only the general path calls.
fn complete_uniform(layout: &WarpLayout, states: &mut [Vec<u128>]) -> Option<Round> {
    // The CTA's last round (every warp's lanes exited, which the JIT's calls end with):
    // `Done`, as the pass below finds, from two words of each warp's state.
    if all_exited(states) {
        return Some(Round::Done);
    }
    // (id, thread count) of the barrier, taken from the first warp with non-exited lanes.
    let mut bar: Option<(u32, u32)> = None;
    let (mut warps, mut popc, mut all, mut exited) = (0u32, 0u32, true, false);
    for st in states.iter_mut() {
        let s = bytes_ref(st);
        if rd32(s, WSYNC_WAIT_OFF) != 0 {
            return None;
        }
        let alive = rd32(s, LIVE_OFF) & !rd32(s, EXITED_OFF);
        if alive == 0 {
            exited = true;
            continue;
        }
        let (id, threads) = match bar {
            Some(b) => b,
            None => {
                let id = ids(layout.bar_ids).find(|&id| rec(s, id, BAR_ARRIVED) != 0)?;
                *bar.insert((id, rec(s, id, BAR_THREADS)))
            }
        };
        let arrived = rec(s, id, BAR_ARRIVED);
        if arrived != alive
            || rec(s, id, BAR_WAITING) != alive
            || parked_lanes(layout, s) != alive
            || rec(s, id, BAR_THREADS) != threads
            || rec(s, id, BAR_FLAGS) & BAR_SPLIT != 0
            || ids(layout.bar_ids & !(1 << id))
                .any(|o| rec(s, o, BAR_ARRIVED) | rec(s, o, BAR_WAITING) != 0)
        {
            return None;
        }
        let pred = rec(s, id, BAR_PRED);
        popc += (arrived & pred).count_ones();
        all &= arrived & pred == arrived;
        warps += 1;
    }
    // No non-exited lane in the CTA, so none parked: it has finished.
    let Some((id, threads)) = bar else {
        return Some(Round::Done);
    };
    if threads != 0 && threads / WARP_SIZE != warps {
        return None;
    }
    // (A warp that arrived and then exited takes part in the completion: general path.)
    if exited
        && states.iter().any(|st| {
            let s = bytes_ref(st);
            rd32(s, LIVE_OFF) & !rd32(s, EXITED_OFF) == 0
                && ids(layout.bar_ids).any(|id| rec(s, id, BAR_ARRIVED) != 0)
        })
    {
        return None;
    }
    for st in states.iter_mut() {
        let s = bytes(st);
        let waiting = rec(s, id, BAR_WAITING);
        if waiting == 0 {
            continue;
        }
        let result = match BarKind::from_code(rec(s, id, BAR_FLAGS) & 0xff) {
            BarKind::RedPopc => Some(popc),
            BarKind::RedAnd => Some(all as u32),
            BarKind::RedOr => Some((popc != 0) as u32),
            BarKind::Sync | BarKind::Arrive => None,
        };
        if let Some(result) = result {
            for l in ids(waiting) {
                wr32(s, BAR_RESULT_OFF + 4 * l, result);
            }
        }
        for &p in &layout.barrier_targets {
            let parked = rd32(s, layout.parked(p));
            if parked != 0 {
                let pend = rd32(s, layout.pending(p));
                wr32(s, layout.pending(p), pend | parked);
                wr32(s, layout.parked(p), 0);
                set_active(layout, s, p);
            }
        }
        for f in (0..BAR_REC).step_by(4) {
            wr32(s, bar_field(id, f), 0);
        }
    }
    Some(Round::Released)
}

/// Whether every warp of `states` has no non-exited lane (`LIVE & !EXITED` is 0) and no
/// lane waiting at a warp-level synchronization (`WSYNC_WAIT_OFF`): the state in which
/// [`complete_uniform`] finds the CTA done. Reads the header's first word and the word of
/// the waiting lanes as `u128` values (one bounds check each, no byte slices); a state too
/// short to hold them answers `false` (the caller's pass decides).
fn all_exited(states: &[Vec<u128>]) -> bool {
    const _: () = assert!(EXITED_OFF + 4 <= 16 && LIVE_OFF + 4 <= 16);
    const _: () = assert!(WSYNC_WAIT_OFF % 16 + 4 <= 16);
    const WAIT_WORD: usize = (WSYNC_WAIT_OFF / 16) as usize;
    states.iter().all(|st| {
        let (Some(&head), Some(&wait)) = (st.first(), st.get(WAIT_WORD)) else {
            return false;
        };
        // (The words as the bytes `rd32` reads: little-endian.)
        let (head, wait) = (u128::to_le(head), u128::to_le(wait));
        let exited = (head >> (8 * EXITED_OFF)) as u32;
        let live = (head >> (8 * LIVE_OFF)) as u32;
        live & !exited == 0 && (wait >> (8 * (WSYNC_WAIT_OFF % 16))) as u32 == 0
    })
}

/// Release the lanes of a warp waiting at warp-level synchronizations (`runtime::warp`,
/// `Op::WarpSync`) whose membermask's non-exited lanes all wait too: they go from parked to
/// pending (lanes that exited count as arrived). Returns whether any were released.
///
/// With synccheck (`check`: the CTA's and this warp's index), a released lane whose
/// membermask names lanes that have exited is a finding (lanes that do not exist are not).
///
/// racecheck (`race`: the CTA's state and this warp's index): each released lane
/// synchronizes with the non-exited lanes of its membermask.
fn release_warp_syncs(
    layout: &WarpLayout,
    s: &mut [u8],
    check: Option<(&SyncCheck, u32)>,
    race: Option<(&super::race::RaceCta, u32)>,
) -> bool {
    let waiting = rd32(s, WSYNC_WAIT_OFF);
    if waiting == 0 {
        return false;
    }
    let live = rd32(s, LIVE_OFF);
    let exited = rd32(s, EXITED_OFF) & live;
    let alive = live & !exited;
    // A lane parked at a yield point (a loop that waits on memory) has not arrived at any
    // warp-level synchronization: the lanes waiting there for it wait on (it is released
    // alone, its membermask being its own bit).
    let (yielded, _) = super::warp::yielded_lanes(s);
    let arrived = waiting & !yielded;
    let mut free = 0u32;
    let mut m = waiting;
    while m != 0 {
        let l = m.trailing_zeros();
        m &= m - 1;
        let mm = rd32(s, WSYNC_MASK_OFF + 4 * l);
        if mm & alive & !(arrived | 1 << l) == 0 {
            free |= 1 << l;
        }
    }
    if free == 0 {
        return false;
    }
    if let Some((c, w)) = check {
        super::synccheck::check_released_apart(s, free, w, c);
        // Grouped by instruction: one finding per synchronization.
        let mut m = free;
        while m != 0 {
            let l = m.trailing_zeros();
            let inst = rd32(s, WSYNC_INST_OFF + 4 * l);
            let group = super::warp::lanes(m)
                .filter(|&k| rd32(s, WSYNC_INST_OFF + 4 * k) == inst)
                .fold(0u32, |g, k| g | 1 << k);
            m &= !group;
            let gone_lanes = super::warp::lanes(group)
                .filter(|&k| rd32(s, WSYNC_MASK_OFF + 4 * k) & exited != 0)
                .fold(0u32, |g, k| g | 1 << k);
            if gone_lanes != 0 {
                let first = gone_lanes.trailing_zeros();
                let mm = rd32(s, WSYNC_MASK_OFF + 4 * first);
                c.sink.record(
                    &c.who,
                    SyncKind::MaskExited,
                    inst.saturating_sub(1),
                    w,
                    gone_lanes,
                    || super::warp::mask_exited_detail(w, gone_lanes, mm, mm & exited),
                );
            }
        }
    }
    if let Some((r, w)) = race {
        let mut m = free;
        while m != 0 {
            let l = m.trailing_zeros();
            m &= m - 1;
            r.warp_sync(w, rd32(s, WSYNC_MASK_OFF + 4 * l) & alive);
        }
    }
    for p in 0..layout.order.len() as u32 {
        let parked = rd32(s, layout.parked(p));
        let m = parked & free;
        if m != 0 {
            let pend = rd32(s, layout.pending(p));
            wr32(s, layout.pending(p), pend | m);
            wr32(s, layout.parked(p), parked & !m);
            set_active(layout, s, p);
        }
    }
    wr32(s, WSYNC_WAIT_OFF, waiting & !free);
    true
}

/// The report of a CTA that can make no progress, and the barrier instruction (fault-record
/// index) the first waiting warp waits at, where a record names it.
fn deadlock_report(
    layout: &WarpLayout,
    states: &mut [Vec<u128>],
    ctaid: [u32; 3],
    sites: Sites,
    why: Stuck,
) -> (String, Option<u32>) {
    let mut first = None;
    let [x, y, z] = ctaid;
    let mut out = match why {
        Stuck::Incomplete => format!(
            "barrier deadlock in CTA ({x},{y},{z}): threads wait at barriers that can never \
             complete"
        ),
        Stuck::Divergent(w) => format!(
            "divergent barrier in CTA ({x},{y},{z}): lanes of warp {w} wait at different \
             .aligned barriers (bar.sync needs every non-exited lane of a warp at the same \
             instruction)"
        ),
    };
    for (w, st) in states.iter_mut().enumerate() {
        let s = bytes(st);
        let alive = rd32(s, LIVE_OFF) & !rd32(s, EXITED_OFF);
        if alive == 0 {
            out.push_str(&format!("\n  warp {w}: exited"));
            continue;
        }
        let mut waits = vec![];
        for id in 0..BAR_COUNT {
            let waiting = rec(s, id, BAR_WAITING);
            if waiting == 0 {
                continue;
            }
            let inst = rec(s, id, BAR_INST);
            first = first.or(inst.checked_sub(1));
            let site = if inst == 0 {
                // No record: find the parked block.
                (0..layout.order.len() as u32)
                    .find(|&p| rd32(s, layout.parked(p)) & waiting != 0)
                    .map(|p| sites.describe(layout.block_site[p as usize]))
                    .unwrap_or_default()
            } else {
                sites.describe(inst - 1)
            };
            let threads = match rec(s, id, BAR_THREADS) {
                0 => "all threads".to_string(),
                n => format!("{n} threads"),
            };
            let lanes2 = rec(s, id, BAR_LANES2) & waiting;
            let inst2 = rec(s, id, BAR_INST2);
            if lanes2 != 0 && inst2 != 0 {
                waits.push(format!(
                    "lanes {} wait at barrier {id} ({site}, for {threads}) and lanes {} at \
                     barrier {id} ({})",
                    fmt_lanes(waiting & !lanes2),
                    fmt_lanes(lanes2),
                    sites.describe(inst2 - 1)
                ));
            } else {
                waits.push(format!(
                    "lanes {} wait at barrier {id} ({site}, for {threads})",
                    fmt_lanes(waiting)
                ));
            }
        }
        let wsync = rd32(s, WSYNC_WAIT_OFF);
        let mut ws = wsync;
        while ws != 0 {
            // Group the waiting lanes by instruction and membermask.
            let l = ws.trailing_zeros();
            let key = |k: u32| {
                (
                    rd32(s, WSYNC_INST_OFF + 4 * k),
                    rd32(s, WSYNC_MASK_OFF + 4 * k),
                )
            };
            let (inst, mm) = key(l);
            first = first.or(inst.checked_sub(1));
            let mut group = 0u32;
            let mut g = ws;
            while g != 0 {
                let k = g.trailing_zeros();
                g &= g - 1;
                if key(k) == (inst, mm) {
                    group |= 1 << k;
                }
            }
            ws &= !group;
            waits.push(format!(
                "lanes {} wait for the lanes of membermask {mm:#010x} ({})",
                fmt_lanes(group),
                sites.describe(inst.saturating_sub(1))
            ));
        }
        let parked = parked_lanes(layout, s);
        let other = alive & !parked;
        if other != 0 {
            waits.push(format!("lanes {} not at a barrier", fmt_lanes(other)));
        }
        out.push_str(&format!("\n  warp {w}: {}", waits.join("; ")));
    }
    (out, first)
}

/// The report of a CTA whose threads all spin on mbarrier waits that cannot complete
/// (`runtime::mbarrier::MbarWaits::judge`): each object waited on, with its expected and
/// arrived counts, and where each warp's lanes wait on it.
fn mbar_deadlock_report(
    ctaid: [u32; 3],
    dl: &super::mbarrier::MbarDeadlock,
    sites: Sites,
) -> String {
    use super::mbarrier::{MbarState, MBAR_SPIN_ROUNDS};
    let [x, y, z] = ctaid;
    let mut out = format!(
        "mbarrier deadlock in CTA ({x},{y},{z}): every non-exited thread spins on an mbarrier \
         wait whose phase can never complete (no thread is left to arrive on the object; \
         {MBAR_SPIN_ROUNDS} scheduler rounds in a row without a change to it)"
    );
    for &(off, word) in &dl.objects {
        let st = MbarState::decode(word);
        out.push_str(&format!(
            "\n  mbarrier at shared address {off:#x}{}: expected arrival count {}, arrived {}, \
             pending {}, tx-count {}, phase {}",
            sites.shared_var(u64::from(off)),
            st.expected,
            st.expected.saturating_sub(st.pending),
            st.pending,
            st.tx,
            st.phase,
        ));
    }
    for &(w, lanes, off, inst) in &dl.waits {
        out.push_str(&format!(
            "\n  warp {w}: lanes {} wait on the mbarrier at {off:#x} ({})",
            fmt_lanes(lanes),
            sites.describe(inst)
        ));
    }
    out
}

/// Where the warps of a CTA stopped by the time limit were: per warp, the blocks its lanes
/// were about to run, were waiting in at a barrier, or were paused in at the yield point of
/// a loop that waits on memory (`lower::yields`: "spinning in a loop"), as PTX locations;
/// lanes still pending at the entry block (priority 0, which no edge re-enters: the
/// schedule rejects a loop through it) have not started. Consecutive warps in the same
/// state share a line (`warps 2-31: not started`).
fn positions(
    layout: &WarpLayout,
    states: &mut [Vec<u128>],
    ctaid: [u32; 3],
    sites: Sites,
) -> String {
    let [x, y, z] = ctaid;
    let mut out = format!("CTA ({x},{y},{z}):");
    // (first warp, last warp, state) runs.
    let mut runs: Vec<(usize, usize, String)> = vec![];
    for (w, st) in states.iter_mut().enumerate() {
        let text = warp_position(layout, bytes(st), sites);
        match runs.last_mut() {
            Some((_, last, t)) if *t == text => *last = w,
            _ => runs.push((w, w, text)),
        }
    }
    for (first, last, text) in runs {
        if first == last {
            out.push_str(&format!("\n  warp {first}: {text}"));
        } else {
            out.push_str(&format!("\n  warps {first}-{last}: {text}"));
        }
    }
    out
}

/// The first warp of a stopped CTA that was running (lowest warp), and where its first lanes
/// were, in the order [`warp_position`] names them; `None` when every warp had exited or not
/// started.
fn stop_site(layout: &WarpLayout, states: &mut [Vec<u128>], ctaid: [u32; 3]) -> Option<StopSite> {
    for (w, st) in states.iter_mut().enumerate() {
        let s = bytes(st);
        let alive = rd32(s, LIVE_OFF) & !rd32(s, EXITED_OFF);
        if alive == 0 || rd32(s, layout.pending(0)) == alive {
            continue;
        }
        let (yielded, yield_inst) = super::warp::yielded_lanes(s);
        let found = |lanes: u32, site: u32, state: StopState| StopSite {
            ctaid,
            warp: w as u32,
            lanes,
            site,
            state,
        };
        for p in 1..layout.order.len() as u32 {
            let site = layout.block_site[p as usize];
            let pend = rd32(s, layout.pending(p));
            if pend != 0 {
                return Some(found(pend, site, StopState::At));
            }
            let parked = rd32(s, layout.parked(p));
            let spin = parked & yielded;
            if spin != 0 {
                let y = yield_inst[spin.trailing_zeros() as usize];
                let group = super::warp::lanes(spin)
                    .filter(|&l| yield_inst[l as usize] == y)
                    .fold(0u32, |m, l| m | 1 << l);
                return Some(found(group, y, StopState::Spinning));
            }
            if let Some(&(group, at)) = wait_groups(s, parked & !yielded).first() {
                return Some(match at {
                    Some(bar) => found(group, bar, StopState::Waiting),
                    None => found(group, site, StopState::WaitingBefore),
                });
            }
        }
    }
    None
}

/// One warp's line of [`positions`].
fn warp_position(layout: &WarpLayout, s: &[u8], sites: Sites) -> String {
    let alive = rd32(s, LIVE_OFF) & !rd32(s, EXITED_OFF);
    if alive == 0 {
        return "exited".into();
    }
    let (yielded, yield_inst) = super::warp::yielded_lanes(s);
    let mut at = vec![];
    let entry = rd32(s, layout.pending(0));
    if entry == alive {
        return "not started".into();
    }
    if entry != 0 {
        at.push(format!("lanes {} not started", fmt_lanes(entry)));
    }
    for p in 0..layout.order.len() as u32 {
        let site = layout.block_site[p as usize];
        let pend = rd32(s, layout.pending(p));
        if p == 0 {
            // Reported above.
        } else if pend != 0 && sites.is_yield(site) {
            at.push(format!(
                "lanes {} spinning in a loop at {}",
                fmt_lanes(pend),
                sites.line(site)
            ));
        } else if pend != 0 {
            at.push(format!(
                "lanes {} at {}",
                fmt_lanes(pend),
                sites.describe(site)
            ));
        }
        let parked = rd32(s, layout.parked(p));
        // Yielded lanes, one group per yield point (loops can nest).
        let mut spin = parked & yielded;
        while spin != 0 {
            let y = yield_inst[spin.trailing_zeros() as usize];
            let group = super::warp::lanes(spin)
                .filter(|&l| yield_inst[l as usize] == y)
                .fold(0u32, |m, l| m | 1 << l);
            spin &= !group;
            at.push(format!(
                "lanes {} spinning in a loop at {}, before {}",
                fmt_lanes(group),
                sites.line(y),
                sites.describe(site)
            ));
        }
        for (group, bar) in wait_groups(s, parked & !yielded) {
            at.push(match bar {
                Some(bar) => format!(
                    "lanes {} waiting at {}",
                    fmt_lanes(group),
                    sites.describe(bar)
                ),
                None => format!(
                    "lanes {} waiting at a barrier before {}",
                    fmt_lanes(group),
                    sites.describe(site)
                ),
            });
        }
    }
    if at.is_empty() {
        at.push("running".into());
    }
    at.join("; ")
}

/// A launch of `dims` with parameter bytes `params` over `memory`, every tool and option off
/// (for the unit tests' hand-made engines).
#[cfg(test)]
impl<'a> LaunchInput<'a> {
    pub(crate) fn bare(dims: LaunchDims, params: &'a mut [u8], memory: &'a DeviceMemory) -> Self {
        LaunchInput {
            dims,
            static_shared: 0,
            local_bytes: 0,
            stack_base: 0,
            params,
            symbols: &[],
            memory,
            // Leaked: a test's few bytes, for the launch's borrows.
            textures: Box::leak(Box::default()),
            heap: None,
            printf: Box::leak(Box::default()),
            memcheck: false,
            synccheck: None,
            schedule: Default::default(),
            initcheck: None,
            timeout: None,
            sites: Default::default(),
            cooperative: None,
            race: None,
            cluster: Default::default(),
            uses: CtaStateUse::ALL,
        }
    }
}

#[cfg(test)]
#[path = "launch_tests.rs"]
mod tests;
