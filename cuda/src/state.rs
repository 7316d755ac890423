//! The driver's state: one device whose memory is one [`ptxjit::host::Context`], the handle
//! tables, the sticky error, and each host thread's stack of current contexts.
//!
//! Handles are numbers `kind << 56 | serial` (never 0, never reused): a handle of the wrong
//! kind or one that was destroyed is not in its table, so it is `CUDA_ERROR_INVALID_HANDLE`
//! (`CUDA_ERROR_INVALID_CONTEXT` for contexts) and never dereferenced.

use crate::errors::*;
use crate::{DrvResult, Fail};
use ptxjit::host::{Context, Engine, Kernel, LaunchOptions, Module};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// What a handle names; its tag is the handle's top byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Context = 1,
    Module = 2,
    Function = 3,
    Stream = 4,
    Event = 5,
    Link = 6,
    Array = 7,
    MemPool = 8,
    Graph = 9,
    GraphNode = 10,
    GraphExec = 11,
    UserObject = 12,
}

/// A context (`CUcontext`). All contexts share the device's address space, as unified
/// addressing makes them look to the program, but each owns what was made while it was
/// current ([`Owned`]): destroying it (`cuCtxDestroy`) or resetting the primary context
/// (`cuDevicePrimaryCtxReset`, `cudaDeviceReset`) frees that memory, unloads those modules
/// and destroys those streams and events, as on a GPU.
pub struct CtxState {
    pub primary: bool,
    pub flags: u32,
}

/// A resource a context owns: it lives until it is freed or destroyed, or until its context
/// is ([`Driver::destroy_owned`]). Handles are never reused; an address that is freed stops
/// being owned, so a later allocation at the same address is not freed with the old owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Owned {
    /// A device allocation of [`crate::memory`]'s `alloc` (`cuMemAlloc`, `cuMemAllocPitch`,
    /// `cuMemAllocManaged`, `cuMemHostAlloc`, a `cuMemHostRegister` shadow), by address.
    Memory(u64),
    /// A `CUmodule` (also a `CUlibrary`).
    Module(u64),
    /// A `CUstream`.
    Stream(u64),
    /// A `CUevent`.
    Event(u64),
}

/// A loaded module (`CUmodule`).
pub struct ModuleState {
    pub module: Module,
    /// Function handles already handed out, by kernel name (the same name gives the same
    /// handle, as in CUDA).
    pub functions: HashMap<String, u64>,
}

/// A kernel (`CUfunction`, also a `CUkernel`).
pub struct FuncState {
    pub kernel: Kernel,
    pub module: u64,
    /// The kernel's name as a C string (`cuFuncGetName`).
    pub c_name: std::ffi::CString,
    /// What `cuFuncSetAttribute` set (besides the dynamic shared memory limit, which the
    /// kernel holds).
    pub attrs: FuncAttrs,
}

/// The settable `CUfunction_attribute`s a function keeps (CUDA Driver API, Execution
/// Control, `cuFuncSetAttribute`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FuncAttrs {
    /// `CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT` (9): -1 (the default) or a
    /// percentage 0..=100. A hint only: shared memory here is not carved out of an L1.
    pub carveout: i32,
    /// `CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH` (11-13) in CTAs; 0: not set.
    /// Used as the cluster shape of launches that give none
    /// ([`required_cluster`](Self::required_cluster)).
    pub required_cluster: [u32; 3],
    /// `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED` (14): clusters of up to 16 CTAs
    /// instead of 8.
    pub non_portable_cluster: bool,
    /// `CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE` (15): 0 default, 1 spread,
    /// 2 load balancing. A hint only: it changes no result.
    pub cluster_scheduling_policy: i32,
}

impl Default for FuncAttrs {
    fn default() -> FuncAttrs {
        FuncAttrs {
            carveout: -1,
            required_cluster: [0; 3],
            non_portable_cluster: false,
            cluster_scheduling_policy: 0,
        }
    }
}

impl FuncAttrs {
    /// The cluster shape the required cluster attributes give: `None` while all three are 0,
    /// else the shape with a dimension left at 0 counted as 1 (a program that sets only the
    /// width gets clusters along x).
    pub fn required_cluster(&self) -> Option<[u32; 3]> {
        if self.required_cluster == [0; 3] {
            return None;
        }
        Some(self.required_cluster.map(|x| x.max(1)))
    }
}

/// A stream (`CUstream`). Work runs when enqueued, so a stream is always idle.
pub struct StreamState {
    pub flags: u32,
    pub priority: i32,
}

/// The stream attributes a program set (`cuStreamSetAttribute`): stream and attribute id →
/// the 64-byte `CUstreamAttrValue` as given. They are hints for the GPU's L2 and memory
/// synchronisation domains, which have no effect here; `cuStreamGetAttribute` reads them
/// back.
pub type StreamAttrs = HashMap<(u64, u32), [u8; 64]>;

/// An event (`CUevent`): when it was last recorded.
pub struct EventState {
    pub flags: u32,
    pub recorded: Option<Instant>,
}

/// A link in progress (`CUlinkState`): the PTX inputs and, once complete, the image.
pub struct LinkState {
    pub inputs: Vec<(String, String)>,
    pub image: Option<Vec<u8>>,
    /// The log buffers given to `cuLinkCreate`.
    pub logs: crate::module::JitLogs,
}

/// Options of kernel execution, from the environment.
#[derive(Clone, Debug)]
pub struct ExecConfig {
    pub engine: Engine,
    pub memcheck: bool,
    /// `PTXJIT_TOOL` (memcheck: implies `memcheck`).
    pub tool: Option<ptxjit::host::tool::Tool>,
    /// `PTXJIT_LEAK_CHECK=full`: memcheck reports leaked device allocations (when a context
    /// is destroyed and at exit), as compute-sanitizer's `--leak-check full`.
    pub leak_check: bool,
    /// `PTXJIT_REPORT_API_ERRORS`: which failed API calls a tool reports.
    pub api_errors: crate::sanitizer::ApiErrors,
    /// `PTXJIT_RACECHECK_GLOBAL=1`: racecheck also checks global memory (between threads of
    /// one block).
    pub racecheck_global: bool,
    pub timeout: Option<Duration>,
    /// `PTXJIT_SCHEDULE=shuffle[:SEED]`: the seeded order of CTAs and warps (the seed is
    /// printed on stderr so that a run can be repeated).
    pub schedule: ptxjit::host::Schedule,
    /// `PTXJIT_LOCKSTEP=1`: every warp in lockstep order (`LaunchOptions::lockstep`), for
    /// warp-synchronous code without `__syncwarp` built for sm_70 or later.
    pub lockstep: bool,
}

impl ExecConfig {
    /// The configuration from the environment. Errors: `PTXJIT_TOOL` names no tool
    /// ([`crate::sanitizer::tool_from_env`]); the other variables fall back to their defaults
    /// with a warning on stderr.
    fn from_env() -> Result<ExecConfig, String> {
        let engine = match std::env::var("PTXJIT_ENGINE").as_deref() {
            Ok("interp") => Engine::Interp,
            Ok("jit") | Ok("") | Err(_) => Engine::Jit,
            Ok(other) => {
                eprintln!("ptxjit: PTXJIT_ENGINE={other} is not jit or interp; using jit");
                Engine::Jit
            }
        };
        let tool = crate::sanitizer::tool_from_env()?;
        let memcheck = ptxjit::host::env_flag("PTXJIT_MEMCHECK")
            || tool == Some(ptxjit::host::tool::Tool::Memcheck);
        let leak_check = crate::sanitizer::leak_check_from_env()?;
        if leak_check && tool != Some(ptxjit::host::tool::Tool::Memcheck) {
            eprintln!(
                "ptxjit: PTXJIT_LEAK_CHECK=full needs PTXJIT_TOOL=memcheck (leaks are memcheck's \
                 errors); ignored"
            );
        }
        let api_errors = crate::sanitizer::api_errors_from_env()?;
        let racecheck_global = ptxjit::host::env_flag("PTXJIT_RACECHECK_GLOBAL");
        if racecheck_global && tool != Some(ptxjit::host::tool::Tool::Racecheck) {
            eprintln!(
                "ptxjit: PTXJIT_RACECHECK_GLOBAL needs PTXJIT_TOOL=racecheck (it adds global \
                 memory to racecheck's checks); ignored"
            );
        }
        let timeout = std::env::var("PTXJIT_TIMEOUT")
            .ok()
            .and_then(|v| match v.parse::<f64>() {
                Ok(s) if s > 0.0 && s.is_finite() && s < 1e9 => Some(Duration::from_secs_f64(s)),
                _ => {
                    eprintln!(
                        "ptxjit: PTXJIT_TIMEOUT={v} is not a positive number of seconds; ignored"
                    );
                    None
                }
            });
        let schedule = match std::env::var("PTXJIT_SCHEDULE") {
            Ok(v) if !v.is_empty() => match ptxjit::host::Schedule::parse(&v) {
                Ok(s) => {
                    if s != ptxjit::host::Schedule::Fixed {
                        eprintln!("ptxjit: schedule {s} (PTXJIT_SCHEDULE={s} repeats this order)");
                    }
                    s
                }
                Err(e) => {
                    eprintln!("ptxjit: PTXJIT_SCHEDULE={v}: {e}; using the fixed order");
                    ptxjit::host::Schedule::Fixed
                }
            },
            _ => ptxjit::host::Schedule::Fixed,
        };
        let lockstep = ptxjit::host::env_flag("PTXJIT_LOCKSTEP");
        Ok(ExecConfig {
            engine,
            memcheck,
            tool,
            leak_check,
            api_errors,
            racecheck_global,
            timeout,
            schedule,
            lockstep,
        })
    }

    pub fn launch_options(&self) -> LaunchOptions {
        LaunchOptions {
            memcheck: self.memcheck,
            synccheck: self.tool == Some(ptxjit::host::tool::Tool::Synccheck),
            schedule: self.schedule,
            initcheck: self.tool == Some(ptxjit::host::tool::Tool::Initcheck),
            racecheck: self.tool == Some(ptxjit::host::tool::Tool::Racecheck),
            lockstep: self.lockstep,
            racecheck_global: self.racecheck_global,
            timeout: self.timeout,
            cooperative: None,
            cluster: None,
            cluster_non_portable: false,
            stack_bytes: None,
        }
    }
}

/// The whole driver.
pub struct Driver {
    /// The device's memory, modules' globals and texture objects.
    pub host: Context,
    pub config: ExecConfig,
    /// The error that ended the context (a kernel fault) once a call waited for the faulting
    /// work ([`Driver::wait_for_work`]): every later call that needs the context returns it,
    /// as on a GPU.
    pub sticky: Option<CUresult>,
    /// The fault of a launch that no call has waited for yet. A GPU runs a launch after
    /// `cuLaunchKernel` returns, so the launch succeeds and the fault comes back from the next
    /// call that waits for the work (`cuCtxSynchronize`, `cuStreamSynchronize`,
    /// `cuEventSynchronize`, `cuStreamQuery`, `cuEventQuery`, a blocking copy or memset,
    /// `cuMemAlloc`, `cuMemFree` …), which makes it [`sticky`](Self::sticky). Launches until
    /// then are checked but do not run: the context's work stopped at the fault.
    pub pending: Option<CUresult>,
    next_serial: u64,
    pub contexts: HashMap<u64, CtxState>,
    /// The primary context's handle and how many retains hold it.
    pub primary: Option<u64>,
    pub primary_refs: u32,
    pub primary_flags: u32,
    pub modules: HashMap<u64, ModuleState>,
    pub functions: HashMap<u64, FuncState>,
    pub streams: HashMap<u64, StreamState>,
    pub stream_attrs: StreamAttrs,
    pub events: HashMap<u64, EventState>,
    pub links: HashMap<u64, LinkState>,
    /// CUDA arrays (`CUarray`).
    pub arrays: HashMap<u64, crate::texture::ArrayState>,
    /// Live texture and surface objects' descriptors, as created.
    pub object_descs: HashMap<u64, crate::texture::ObjectDescs>,
    /// Page-locked host allocations (`cuMemHostAlloc`, `cuMemAllocHost`): address → (bytes,
    /// flags). They live in the device arena, so they are mapped for kernels at the same
    /// address.
    pub host_allocs: BTreeMap<u64, (u64, u32)>,
    /// Managed allocations (`cuMemAllocManaged`): address → bytes.
    pub managed: BTreeMap<u64, u64>,
    /// What advice and prefetching asked for managed pages (`cuMemRangeGetAttribute`).
    pub advice: crate::memory::Advice,
    /// Host ranges registered with `cuMemHostRegister`, by start address.
    pub registered: BTreeMap<u64, crate::registered::Registered>,
    /// Device limits set by `cuCtxSetLimit` (`CUlimit` → value).
    pub limits: HashMap<u32, u64>,
    /// The preferred cache configuration set by `cuCtxSetCacheConfig` (`CUfunc_cache`).
    pub cache_config: i32,
    /// Memory pools (`CUmemoryPool`), the default one among them once asked for.
    pub pools: HashMap<u64, ptxjit::host::pool::MemPool>,
    /// The device's default pool (0 until [`Driver::ensure_default_pool`]).
    pub default_pool: u64,
    /// The device's current pool, which `cuMemAllocAsync` allocates from.
    pub current_pool: u64,
    /// Graphs, instantiated graphs and stream captures.
    pub graphs: crate::graph::Graphs,
    /// User objects and the graphs' references to them.
    pub user_objects: crate::user_object::UserObjects,
    /// Which context owns each resource made while a context was current.
    pub owners: HashMap<Owned, u64>,
}

static DRIVER: Mutex<Option<Driver>> = Mutex::new(None);

/// The process that initialized the driver (0 before `cuInit`).
static INIT_PID: AtomicU32 = AtomicU32::new(0);
/// Set in a child process forked after `cuInit` (`pthread_atfork`).
static FORKED: AtomicBool = AtomicBool::new(false);

extern "C" fn mark_forked() {
    FORKED.store(true, Ordering::Release);
}

/// Errors: `CUDA_ERROR_NOT_INITIALIZED` in a child forked after `cuInit`: as with NVIDIA's
/// driver, a forked child cannot use the parent's driver state (numba reports "CUDA
/// initialized before forking"). Checked before the lock, which another thread of the
/// parent may have held at the fork.
fn check_fork() -> DrvResult {
    // A flag the child's fork handler sets, not a getpid per call.
    if FORKED.load(Ordering::Acquire) {
        let pid = INIT_PID.load(Ordering::Acquire);
        return Err(Fail::new(
            CUDA_ERROR_NOT_INITIALIZED,
            format!(
                "the driver was initialized in process {pid}; a child forked after cuInit cannot use it"
            ),
        ));
    }
    Ok(())
}

thread_local! {
    /// This host thread's context stack (top = current), as handles.
    pub static CTX_STACK: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

fn lock() -> MutexGuard<'static, Option<Driver>> {
    // A panic inside a call (caught at the boundary) must not wedge the library.
    DRIVER.lock().unwrap_or_else(|e| e.into_inner())
}

/// `cuInit`: make the driver's state (once).
pub fn init() -> DrvResult {
    check_fork()?;
    let mut g = lock();
    if g.is_none() {
        INIT_PID.store(std::process::id(), Ordering::Release);
        // SAFETY: registers a plain `extern "C"` function (it only stores a flag) to run in
        // the child after a fork.
        unsafe { libc::pthread_atfork(None, None, Some(mark_forked)) };
        let memory = ptxjit::runtime::memory::DeviceMemory::with_identity_mapping()
            .map_err(|e| Fail::new(CUDA_ERROR_NO_DEVICE, e))?;
        let mut host = Context::with_memory(memory);
        let config = ExecConfig::from_env().map_err(|e| {
            eprintln!("ptxjit: {e}; cuInit fails rather than run the program without the tool");
            Fail::new(CUDA_ERROR_INVALID_VALUE, e)
        })?;
        host.set_memcheck(config.memcheck);
        if config.tool == Some(ptxjit::host::tool::Tool::Initcheck) {
            host.set_initcheck(true)
                .map_err(|e| Fail::new(CUDA_ERROR_NO_DEVICE, e.to_string()))?;
        }
        if let Some(tool) = config.tool {
            crate::sanitizer::at_exit(tool, config.leak_check, config.api_errors);
        }
        crate::interrupt::install_from_env();
        // The hang note names the environment variables that set a time limit and Ctrl-C.
        ptxjit::host::hang_note::set_front_end(ptxjit::host::hang_note::FrontEnd {
            limit: "PTXJIT_TIMEOUT=SECONDS (ptxjit exec --timeout SECONDS)",
            interrupt: Some("with PTXJIT_INTERRUPT=1"),
        });
        // Device printf text waits for the driver's flush points, as on a GPU (registered
        // after the tool's handler, so it runs before that one ends the process).
        host.set_printf_sink(ptxjit::host::PrintfSink::Capture);
        flush_printf_at_exit();
        *g = Some(Driver {
            host,
            config,
            sticky: None,
            pending: None,
            next_serial: 1,
            contexts: HashMap::new(),
            primary: None,
            primary_refs: 0,
            primary_flags: 0,
            modules: HashMap::new(),
            functions: HashMap::new(),
            streams: HashMap::new(),
            stream_attrs: HashMap::new(),
            events: HashMap::new(),
            links: HashMap::new(),
            arrays: HashMap::new(),
            host_allocs: BTreeMap::new(),
            managed: BTreeMap::new(),
            advice: Default::default(),
            object_descs: HashMap::new(),
            registered: BTreeMap::new(),
            limits: HashMap::new(),
            cache_config: 0,
            pools: HashMap::new(),
            default_pool: 0,
            current_pool: 0,
            graphs: Default::default(),
            user_objects: Default::default(),
            owners: HashMap::new(),
        });
    }
    Ok(())
}

extern "C" {
    /// C's standard output stream (glibc and musl name it so).
    static mut stdout: *mut libc::FILE;
    /// C's standard error stream.
    static mut stderr: *mut libc::FILE;
}

/// Writes `text` to the program's standard output (`to_stderr`: standard error) through C's
/// `stdout` (`stderr`) stream and flushes it, so device text keeps its order with the
/// program's own output on that stream.
fn write_c_stream(text: &str, to_stderr: bool) {
    // SAFETY: `stdout` and `stderr` are C's standard streams, valid for the life of the
    // process; `fwrite`/`fflush` lock them and read `text.len()` bytes of `text`.
    unsafe {
        let out = if to_stderr { stderr } else { stdout };
        libc::fwrite(text.as_ptr().cast(), 1, text.len(), out);
        libc::fflush(out);
    }
}

/// Registers [`flush_at_exit`] once.
fn flush_printf_at_exit() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: registers a plain `extern "C"` function with no arguments.
        unsafe { libc::atexit(flush_at_exit) };
    });
}

/// At exit: the device printf text no flush point has written yet.
extern "C" fn flush_at_exit() {
    if let Ok(mut g) = DRIVER.try_lock() {
        if let Some(d) = g.as_mut() {
            d.flush_printf();
        }
    }
}

/// The program's live device allocations (address, bytes, the call that made it), for the
/// exit-time leak check; empty when the driver is busy on another thread (or never started).
pub fn live_user_allocations() -> Vec<(u64, u64, String)> {
    let Ok(g) = DRIVER.try_lock() else {
        return vec![];
    };
    let Some(d) = g.as_ref() else {
        return vec![];
    };
    let m = d.host.memory();
    let live = m
        .allocations()
        .filter(|a| crate::sanitizer::USER_ALLOCATIONS.contains(&a.label.as_str()))
        .map(|a| {
            (
                ptxjit::runtime::memory::GLOBAL_BASE + a.offset,
                a.size,
                a.label.clone(),
            )
        })
        .collect();
    live
}

/// Runs `f` on the driver. Errors: `CUDA_ERROR_NOT_INITIALIZED` before `cuInit` and in a
/// child forked after it.
pub fn with_driver<T>(f: impl FnOnce(&mut Driver) -> Result<T, Fail>) -> Result<T, Fail> {
    check_fork()?;
    let mut g = lock();
    match g.as_mut() {
        Some(d) => f(d),
        None => Err(Fail::new(
            CUDA_ERROR_NOT_INITIALIZED,
            "cuInit has not been called",
        )),
    }
}

/// Runs `f` on the driver with a current context on this thread. Errors:
/// `CUDA_ERROR_NOT_INITIALIZED`, `CUDA_ERROR_INVALID_CONTEXT` (no current context), or the
/// sticky error of an earlier kernel fault.
pub fn with_context<T>(f: impl FnOnce(&mut Driver) -> Result<T, Fail>) -> Result<T, Fail> {
    let current = current_context();
    with_driver(|d| {
        match current {
            Some(c) if d.contexts.contains_key(&c) => {}
            Some(_) => {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_CONTEXT,
                    "the current context was destroyed",
                ))
            }
            None => {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_CONTEXT,
                    "no current context on this thread (cuCtxSetCurrent or cuDevicePrimaryCtxRetain + cuCtxPushCurrent)",
                ))
            }
        }
        d.check_sticky()?;
        f(d)
    })
}

/// Runs `f` on the driver for a call that releases `r` (`cuMemFree`, `cuStreamDestroy`,
/// `cuEventDestroy`, `cuModuleUnload`): as [`with_context`] when a context is current, and
/// also when none is but a live context owns `r`, since NVIDIA's driver finds what a handle
/// or an allocation's address belongs to (numba's `cuda.close()` pops every context, then
/// frees the arrays and destroys the streams and events the program dropped). With no
/// current context, anything else is `CUDA_ERROR_INVALID_CONTEXT`, as [`with_context`] says.
pub fn with_owner_context<T>(
    r: Owned,
    f: impl FnOnce(&mut Driver) -> Result<T, Fail>,
) -> Result<T, Fail> {
    let mut f = Some(f);
    if current_context().is_none() {
        let done = with_driver(|d| {
            let owned = d.owners.get(&r).is_some_and(|c| d.contexts.contains_key(c));
            match f.take() {
                Some(f) if owned => {
                    d.check_sticky()?;
                    f(d).map(Some)
                }
                other => {
                    f = other;
                    Ok(None)
                }
            }
        })?;
        if let Some(v) = done {
            return Ok(v);
        }
    }
    match f {
        Some(f) => with_context(f),
        None => Err(Fail::new(CUDA_ERROR_UNKNOWN, "the call's body ran already")),
    }
}

/// Runs `f` on the driver for a context-independent call (the library API: `cuLibraryLoadData`
/// and the calls on its `CUlibrary` and `CUkernel` handles need no current context, CUDA Driver
/// API "Library Management"): as [`with_context`] when a context is current, and on the driver
/// alone otherwise (what is made then belongs to no context and lives until unloaded). NVIDIA's
/// runtime loads its modules this way before making a context current, and unloads them at
/// exit after the thread's current context is gone.
pub fn with_any_context<T>(f: impl FnOnce(&mut Driver) -> Result<T, Fail>) -> Result<T, Fail> {
    if current_context().is_some() {
        return with_context(f);
    }
    with_driver(|d| {
        d.check_sticky()?;
        f(d)
    })
}

/// This thread's current context handle. None also once the thread's storage is gone: at
/// process exit glibc destroys the main thread's thread-locals before it runs `atexit`
/// handlers, where NVIDIA's statically linked runtime unloads its modules.
pub fn current_context() -> Option<u64> {
    CTX_STACK
        .try_with(|s| s.borrow().last().copied())
        .ok()
        .flatten()
}

impl Driver {
    /// Writes the device `printf` text of the launches since the last flush to the program's
    /// standard output, and the lines of failed device `assert`s to its standard error (CUDA
    /// C++ Programming Guide, "Assertion"), in the order the launches wrote them. CUDA flushes its printf buffer at the start of
    /// a kernel launch, at synchronisation (`cuCtxSynchronize`, `cuStreamSynchronize`,
    /// `cuEventSynchronize`), at blocking memory copies and memsets, at module load and
    /// unload and at context destruction (CUDA C++ Programming Guide, "Formatted Output");
    /// the driver calls this at each of them, and at process exit.
    pub fn flush_printf(&mut self) {
        for (stream, text) in self.host.take_printf_streams() {
            let to_stderr = match stream {
                ptxjit::host::DeviceStream::Printf => false,
                ptxjit::host::DeviceStream::Assert => true,
            };
            write_c_stream(&text, to_stderr);
        }
    }

    /// Records that `r` belongs to this thread's current context (nothing when none is
    /// current).
    pub fn own(&mut self, r: Owned) {
        if let Some(c) = current_context() {
            self.owners.insert(r, c);
        }
    }

    /// Frees, unloads and destroys what context `ctx` owns, as destroying or resetting a
    /// context does on a GPU (CUDA Driver API, `cuCtxDestroy`: "Destroys the CUDA context
    /// specified by ctx ... all the resources of the context are released";
    /// `cuDevicePrimaryCtxReset`: "Destroy all allocations and reset all state on the primary
    /// context"). A pointer freed this way is no longer an allocation: freeing it again is
    /// `CUDA_ERROR_INVALID_VALUE`, and a kernel touching it faults.
    ///
    /// Returns the user allocations freed (address, bytes, the call that made it), for
    /// memcheck's leak check, which runs when a context is destroyed.
    pub fn destroy_owned(&mut self, ctx: u64) -> Vec<(u64, u64, String)> {
        let mut mine: Vec<Owned> = self
            .owners
            .iter()
            .filter(|(_, &c)| c == ctx)
            .map(|(&r, _)| r)
            .collect();
        // In the order made (addresses and handles both grow), for a stable leak report.
        mine.sort_by_key(|r| match *r {
            Owned::Memory(a) | Owned::Module(a) | Owned::Stream(a) | Owned::Event(a) => a,
        });
        let mut freed = vec![];
        for r in mine {
            self.owners.remove(&r);
            match r {
                Owned::Memory(p) => {
                    let user = {
                        let m = self.host.memory();
                        m.allocation_at(p)
                            .filter(|(a, _)| ptxjit::runtime::memory::GLOBAL_BASE + a.offset == p)
                            .map(|(a, _)| (a.size, a.label.clone()))
                    };
                    self.host_allocs.remove(&p);
                    self.managed.remove(&p);
                    self.registered.retain(|_, reg| reg.shadow != Some(p));
                    if self.host.free(ptxjit::host::DevicePtr(p)).is_ok() {
                        if let Some((size, label)) = user {
                            if crate::sanitizer::USER_ALLOCATIONS.contains(&label.as_str()) {
                                freed.push((p, size, label));
                            }
                        }
                    }
                }
                Owned::Module(m) => {
                    if let Some(state) = self.modules.remove(&m) {
                        for f in state.functions.values() {
                            self.functions.remove(f);
                        }
                    }
                }
                Owned::Stream(s) => {
                    self.streams.remove(&s);
                    self.stream_attrs.retain(|(h, _), _| *h != s);
                }
                Owned::Event(e) => {
                    self.events.remove(&e);
                }
            }
        }
        freed
    }

    /// A new handle of `kind`.
    /// Make the device's default memory pool if there is none yet (it is also the current
    /// pool until `cuDeviceSetMemPool`).
    pub fn ensure_default_pool(&mut self) {
        if self.default_pool == 0 {
            let h = self.handle(Kind::MemPool);
            self.pools.insert(h, ptxjit::host::pool::MemPool::new());
            self.default_pool = h;
            self.current_pool = h;
        }
    }

    pub fn handle(&mut self, kind: Kind) -> u64 {
        let h = (kind as u64) << 56 | self.next_serial;
        self.next_serial += 1;
        h
    }

    /// The sticky error, if a kernel faulted: as on NVIDIA's driver, whose documentation of
    /// `CUDA_ERROR_ILLEGAL_ADDRESS` says the fault "leaves the process in an inconsistent
    /// state and any further CUDA work will return the same error", every later call that
    /// needs a context, in any context and on any thread, returns the fault's code. NVIDIA's
    /// driver must then be ended with the process; here `cuDevicePrimaryCtxReset`
    /// (`cudaDeviceReset`) also clears it. The call that reports it first writes the
    /// device `printf` text still held (the faulting kernel's included), as CUDA's flush at
    /// the synchronisation that returns the error does, so that text comes before what the
    /// program prints after it.
    pub fn check_sticky(&mut self) -> DrvResult {
        match self.sticky {
            Some(code) => {
                self.flush_printf();
                Err(Fail::new(
                    code,
                    format!(
                        "an earlier kernel fault ({}) left CUDA unusable in this process: \
                         every later call that needs a context returns it, as on NVIDIA's \
                         driver, where the process must be ended and started again; \
                         cuDevicePrimaryCtxReset (cudaDeviceReset) clears it here",
                        crate::errors::name(code)
                    ),
                ))
            }
            None => Ok(()),
        }
    }

    /// What a call that waits for the context's work does with a fault of that work: the
    /// fault of a launch that no call has waited for yet ([`pending`](Self::pending)) becomes
    /// the sticky error, and the sticky error is returned ([`check_sticky`](Self::check_sticky)).
    pub fn wait_for_work(&mut self) -> DrvResult {
        if let Some(code) = self.pending.take() {
            self.sticky = Some(code);
        }
        self.check_sticky()
    }

    /// The function behind handle `f`.
    pub fn function(&self, f: u64) -> Result<&FuncState, Fail> {
        self.functions.get(&f).ok_or_else(|| {
            Fail::new(
                CUDA_ERROR_INVALID_HANDLE,
                format!("{f:#x} is not a live CUfunction"),
            )
        })
    }

    /// Checks a stream handle (0 and the legacy/per-thread default streams 1 and 2 are
    /// always valid).
    pub fn check_stream(&self, s: u64) -> DrvResult {
        if s <= 2 || self.streams.contains_key(&s) {
            Ok(())
        } else {
            Err(Fail::new(
                CUDA_ERROR_INVALID_HANDLE,
                format!("{s:#x} is not a live CUstream"),
            ))
        }
    }
}
