//! Running a case: a [`Session`] holds a context with the modules loaded and the buffers
//! allocated; [`run_case`] prepares, runs every launch in order (the whole pipeline again for
//! each `repeat`), reads back and compares.

use super::compare::{compare_ordered, Comparison};
use super::spec::{Arg, Scalar, Tolerance};
use super::{Case, CaseError, DType, HostBuffer, Origin, Prepared};
use crate::host::{
    Context, DevicePtr, Engine, Kernel, KernelArg, LaunchDims, LaunchOptions, LaunchReport,
};
use std::time::Duration;

/// How many differences a result keeps per buffer.
pub const KEEP_MISMATCHES: usize = 10;

/// Options of one run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Check global accesses against exact allocation bounds. Also on when the case's
    /// `[expect_error]` says `memcheck = true`.
    pub memcheck: bool,
    /// Report loads of never-written global and shared memory (initcheck) as a `sanitizer`
    /// error. Also on when the case's `[expect_error]` says `tool = "initcheck"`.
    pub initcheck: bool,
    /// Run under racecheck (shared-memory races, `runtime::race`); races make the run's
    /// error a `sanitizer` one. Also on when the case's `[expect_error]` says
    /// `tool = "racecheck"`.
    pub racecheck: bool,
    /// With `racecheck`: also races on global memory between threads of one CTA
    /// ([`LaunchOptions::racecheck_global`]). Also on when the case's `[expect_error]` says
    /// `racecheck_global = true`.
    pub racecheck_global: bool,
    /// 0: one run of the pipeline (every launch once). N > 0: one warm-up run, then N timed
    /// runs; buffers are re-initialised before each run.
    pub repeat: u32,
    /// Abort a launch that runs longer than this.
    pub timeout: Option<Duration>,
    /// Run under synccheck ([`LaunchOptions::synccheck`]). Also on when the case's
    /// `[expect_error]` says `tool = "synccheck"`.
    pub synccheck: bool,
    /// The order of CTAs and warps ([`LaunchOptions::schedule`]).
    pub schedule: crate::host::Schedule,
    /// Lockstep order in every warp ([`LaunchOptions::lockstep`]). Also on when the case
    /// says `lockstep = true`.
    pub lockstep: bool,
    /// Send device `printf` output to stderr instead of stdout (`run --json`).
    pub printf_to_stderr: bool,
}

/// The result of comparing one buffer with the expected contents of its `[expect.NAME]`.
#[derive(Clone, Debug)]
pub struct ExpectResult {
    pub buffer: String,
    pub dtype: DType,
    pub tolerance: Tolerance,
    pub comparison: Comparison,
}

impl ExpectResult {
    pub fn passed(&self) -> bool {
        self.comparison.passed()
    }
}

/// Minimum, median (mean of the middle two for an even count) and maximum kernel time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeStats {
    pub min: Duration,
    pub median: Duration,
    pub max: Duration,
    pub launches: usize,
}

impl TimeStats {
    pub fn of(times: &[Duration]) -> Option<TimeStats> {
        let mut t = times.to_vec();
        t.sort();
        let n = t.len();
        let median = match n {
            0 => return None,
            _ if n % 2 == 1 => t[n / 2],
            _ => (t[n / 2 - 1] + t[n / 2]) / 2,
        };
        Some(TimeStats {
            min: t[0],
            median,
            max: t[n - 1],
            launches: n,
        })
    }
}

/// Each launch of a pipeline: its kernel and times.
#[derive(Clone, Debug)]
pub struct LaunchResult {
    pub kernel: String,
    /// Threads of the launch (grid × block).
    pub threads: u64,
    /// Each timed run of this launch (one without `repeat`).
    pub times: Vec<Duration>,
}

/// Everything a run produced. `error` is set when the case could not be run to the end; the
/// fields before the failing step are still filled in.
#[derive(Debug)]
pub struct CaseResult {
    pub case: String,
    /// The kernels launched, in order, separated by `, `.
    pub kernel: String,
    pub engine: Engine,
    /// Parse + lower + compile time of the modules.
    pub compile_time: Option<Duration>,
    /// How long NVRTC took to compile the case's `.cu` modules; `None` when it did not run
    /// (PTX files, or PTX from the cache).
    pub nvrtc_time: Option<Duration>,
    /// Each timed run of the whole pipeline (one without `repeat`): the sum of its launches'
    /// times.
    pub kernel_times: Vec<Duration>,
    /// Each launch's own times, in launch order.
    pub launches: Vec<LaunchResult>,
    /// The most worker threads (cores) that ran CTAs of one launch.
    pub workers: u32,
    /// Thread-instructions of one run of the pipeline, when the engine counts them (the
    /// interpreter).
    pub thread_instructions: u64,
    /// Threads of one run of the pipeline (the sum of grid × block over the launches).
    pub threads: u64,
    pub expectations: Vec<ExpectResult>,
    /// The buffers whose expectations were not compared because a launch stopped (a case
    /// without `[expect_error]` whose launch faulted, timed out, deadlocked or was stopped by
    /// a sanitizer: the buffers hold a partial result), and why: `the launch faulted`.
    pub unchecked: Vec<(String, &'static str)>,
    /// Every buffer's contents after the (last) launch, if they could be read back.
    pub buffers: Vec<HostBuffer>,
    /// initcheck's findings (of the first run of the pipeline), each distinct read once.
    pub init_reports: Vec<crate::host::initcheck::InitReport>,
    /// racecheck's races (of the first run of the pipeline), each pair of instructions once.
    pub race_reports: Vec<crate::host::race::RaceReport>,
    /// Notes on the kernels launched that do not stop the run (a kernel that looks written
    /// for warps in lockstep, run in group-major order: `Kernel::lockstep_note`).
    pub notes: Vec<String>,
    pub error: Option<CaseError>,
}

impl CaseResult {
    /// An empty result for `case` (nothing ran yet).
    pub fn new(case: &Case, engine: Engine) -> CaseResult {
        CaseResult {
            case: case.name.clone(),
            kernel: case.kernels(),
            engine,
            compile_time: None,
            nvrtc_time: None,
            kernel_times: vec![],
            launches: case
                .spec
                .launches
                .iter()
                .map(|l| LaunchResult {
                    kernel: l.kernel.clone(),
                    threads: l.threads(),
                    times: vec![],
                })
                .collect(),
            workers: 0,
            thread_instructions: 0,
            threads: case.threads(),
            expectations: vec![],
            unchecked: vec![],
            buffers: vec![],
            init_reports: vec![],
            race_reports: vec![],
            notes: vec![],
            error: None,
        }
    }

    /// A result for an error before anything ran (a bad case file or option).
    pub fn early_error(case: &str, engine: Engine, e: CaseError) -> CaseResult {
        CaseResult {
            case: case.to_string(),
            kernel: String::new(),
            engine,
            compile_time: None,
            nvrtc_time: None,
            kernel_times: vec![],
            launches: vec![],
            workers: 0,
            thread_instructions: 0,
            threads: 0,
            expectations: vec![],
            unchecked: vec![],
            buffers: vec![],
            init_reports: vec![],
            race_reports: vec![],
            notes: vec![],
            error: Some(e),
        }
    }

    /// No error and every expectation passed.
    pub fn passed(&self) -> bool {
        self.error.is_none() && self.expectations.iter().all(ExpectResult::passed)
    }

    /// Statistics of the whole pipeline's times.
    pub fn kernel_time(&self) -> Option<TimeStats> {
        TimeStats::of(&self.kernel_times)
    }
}

/// One launch of a [`Session`], ready to run.
pub struct SessionLaunch {
    pub kernel: Kernel,
    pub dims: LaunchDims,
    pub args: Vec<KernelArg>,
    /// A cooperative launch ([`LaunchOptions::cooperative`]).
    pub cooperative: bool,
    /// The cluster shape ([`LaunchOptions::cluster`]).
    pub cluster: Option<[u32; 3]>,
    /// How errors name the launch (`launch[2] (add_offsets)`); `None` outside a pipeline.
    pub at: Option<String>,
}

/// What one run of every launch of a session reports.
#[derive(Clone, Debug)]
pub struct PipelineReport {
    /// Each launch's report, in order.
    pub launches: Vec<LaunchReport>,
    /// The sum of the launches' wall times.
    pub elapsed: Duration,
    /// The sum of the launches' thread-instructions (counted by the interpreter; 0 from the
    /// JIT).
    pub thread_instructions: u64,
}

/// Loaded modules and allocated buffers, ready to launch repeatedly.
pub struct Session {
    pub ctx: Context,
    /// The launches, in order.
    pub launches: Vec<SessionLaunch>,
    /// Initial contents and device address of each buffer.
    pub buffers: Vec<(HostBuffer, DevicePtr)>,
    /// The front end's time for every module and the compilation of every launched kernel.
    pub compile_time: Duration,
}

impl Session {
    /// Load each PTX file for `engine`, allocate (label = buffer name) and fill every buffer,
    /// create the texture and surface objects (PNG sources get an allocation of their own,
    /// labelled `textures.NAME`), bind the texture references (in the case's own module), and
    /// build every launch's arguments.
    pub fn new(case: &Case, prepared: &Prepared, engine: Engine) -> Result<Session, CaseError> {
        Session::with_memcheck(case, prepared, engine, false)
    }

    /// As [`Session::with_memcheck`]; `initcheck`: track written bytes from before the
    /// first allocation ([`Context::set_initcheck`]), so that a buffer without `init` starts
    /// unwritten, as a `cudaMalloc`'d one does.
    /// `lockstep`: compile the kernels for launches in lockstep order
    /// ([`LaunchOptions::lockstep`]; also when the case says `lockstep = true`).
    pub fn with_tools(
        case: &Case,
        prepared: &Prepared,
        engine: Engine,
        memcheck: bool,
        initcheck: bool,
        lockstep: bool,
    ) -> Result<Session, CaseError> {
        Session::build(case, prepared, engine, memcheck, initcheck, lockstep)
    }

    /// As [`Session::new`]; `memcheck`: place everything with memcheck's red zones and
    /// quarantine ([`Context::set_memcheck`]).
    pub fn with_memcheck(
        case: &Case,
        prepared: &Prepared,
        engine: Engine,
        memcheck: bool,
    ) -> Result<Session, CaseError> {
        Session::build(case, prepared, engine, memcheck, false, false)
    }

    fn build(
        case: &Case,
        prepared: &Prepared,
        engine: Engine,
        memcheck: bool,
        initcheck: bool,
        lockstep: bool,
    ) -> Result<Session, CaseError> {
        let s = &case.spec;
        let lockstep = lockstep || s.lockstep;
        let mut ctx = Context::new();
        ctx.set_memcheck(memcheck);
        ctx.set_initcheck(initcheck)?;
        if let Some(bytes) = s.heap_bytes {
            ctx.set_heap_size(bytes)?;
        }
        let mut modules = Vec::with_capacity(prepared.modules.len());
        let mut compile_time = Duration::ZERO;
        for m in &prepared.modules {
            let module = ctx.load_module(&m.text, &m.name, engine)?;
            compile_time += module.compile_time;
            modules.push(module);
        }
        let module = &modules[0];
        let mut buffers = Vec::with_capacity(prepared.buffers.len());
        for b in &prepared.buffers {
            let symbol = s
                .buffers
                .get(&b.name)
                .and_then(|spec| spec.symbol.as_deref());
            let p = match symbol {
                None => ctx.alloc(b.bytes.len() as u64, Some(&b.name))?,
                Some(sym) => {
                    let at = case.place(&format!("buffers.{}.symbol", b.name));
                    let Some((p, size)) = module.global(sym) else {
                        let names: Vec<&str> =
                            module.globals.iter().map(|(n, _, _)| n.as_str()).collect();
                        return Err(CaseError::Case(format!(
                            "{at}: no .global or .const variable '{sym}' in {} (variables: {})",
                            prepared.modules[0].name,
                            names.join(", ")
                        )));
                    };
                    if b.bytes.len() as u64 > size {
                        return Err(CaseError::Case(format!(
                            "{at}: the buffer is {} bytes, more than the {size} bytes of '{sym}'",
                            b.bytes.len()
                        )));
                    }
                    p
                }
            };
            // Under initcheck a buffer without `init` is what a `cudaMalloc` without a copy or
            // memset is: allocated, never written (its bytes are zeros all the same).
            let no_init = s
                .buffers
                .get(&b.name)
                .is_some_and(|spec| spec.init.is_none());
            if !(initcheck && no_init && symbol.is_none()) {
                ctx.copy_htod(p, &b.bytes)?;
            }
            buffers.push((b.clone(), p));
        }
        let mut images = vec![];
        for img in &prepared.images {
            let p = ctx.alloc(img.bytes.len() as u64, Some(&img.key))?;
            ctx.copy_htod(p, &img.bytes)?;
            images.push((img.clone(), p));
        }
        let src = super::texture::Source {
            buffers: &buffers,
            images: &images,
        };
        let handles =
            super::texture::create_objects(&mut ctx, module, s, &src).map_err(|e| match e {
                CaseError::Case(m) => CaseError::Case(format!("{}: {m}", case.name)),
                other => other,
            })?;
        let mut tmaps = vec![];
        for (name, t) in &s.tensor_maps {
            let (_, p) = buffers
                .iter()
                .find(|(b, _)| b.name == t.buffer)
                .expect("validated: the buffer exists");
            let (dt, rank, dims, strides, bx, es, m) = t
                .encode_args()
                .map_err(|e| CaseError::Case(format!("{}: tensor_maps.{name}: {e}", case.name)))?;
            use crate::runtime::tensormap::TensorMap;
            let addr = p.offset(t.offset).0;
            let map = match &t.im2col {
                None => TensorMap::encode_tiled(
                    dt, rank, addr, &dims, &strides, &bx, &es, m[0], m[1], m[2], m[3],
                ),
                Some(ic) => match ic.wide.as_deref() {
                    None => TensorMap::encode_im2col(
                        dt,
                        rank,
                        addr,
                        &dims,
                        &strides,
                        &ic.lower,
                        &ic.upper,
                        ic.channels,
                        ic.pixels.unwrap_or(0),
                        &es,
                        m[0],
                        m[1],
                        m[2],
                        m[3],
                    ),
                    Some(w) => {
                        let mode = match w {
                            "w" => 0,
                            "w128" => 1,
                            _ => {
                                return Err(CaseError::Case(format!(
                                    "{}: tensor_maps.{name}: im2col.wide = \"{w}\": expected \"w\" or \"w128\"",
                                    case.name
                                )))
                            }
                        };
                        let ([lw], [uw]) = (ic.lower.as_slice(), ic.upper.as_slice()) else {
                            return Err(CaseError::Case(format!(
                                "{}: tensor_maps.{name}: im2col.lower and im2col.upper take one number each (W's corners) with wide",
                                case.name
                            )));
                        };
                        TensorMap::encode_im2col_wide(
                            dt,
                            rank,
                            addr,
                            &dims,
                            &strides,
                            *lw,
                            *uw,
                            ic.channels,
                            ic.pixels.unwrap_or(128),
                            &es,
                            m[0],
                            mode,
                            m[1],
                            m[2],
                            m[3],
                        )
                    }
                },
            }
            .map_err(|e| CaseError::Case(format!("{}: tensor_maps.{name}: {e}", case.name)))?;
            tmaps.push((name.clone(), map));
        }
        let handle = |what: &str, n: &str| {
            if what == "tensor_map" {
                return tmaps
                    .iter()
                    .find(|(k, _)| k == n)
                    .map(|(_, m)| KernelArg::TensorMap(*m));
            }
            handles
                .iter()
                .find(|(k, _)| *k == format!("{what}:{n}"))
                .map(|(_, h)| KernelArg::U64(*h))
        };
        fn kernel_arg(
            a: &Arg,
            at: &str,
            buffers: &[(HostBuffer, DevicePtr)],
            handle: &dyn Fn(&str, &str) -> Option<KernelArg>,
        ) -> Result<KernelArg, String> {
            Ok(match a {
                Arg::Scalar(v) => scalar_arg(*v),
                Arg::Buffer { name, offset } => {
                    let (_, p) = buffers
                        .iter()
                        .find(|(b, _)| &b.name == name)
                        .expect("validated: the buffer exists");
                    KernelArg::Ptr(p.offset(*offset))
                }
                Arg::Texture(n) | Arg::Surface(n) => {
                    let what = if matches!(a, Arg::Texture(_)) {
                        "texture"
                    } else {
                        "surface"
                    };
                    handle(what, n).ok_or_else(|| format!("{at}: no {what} named '{n}'"))?
                }
                Arg::TensorMap(n) => handle("tensor_map", n)
                    .ok_or_else(|| format!("{at}: no tensor map named '{n}'"))?,
                Arg::Struct(fields) => KernelArg::Struct(
                    fields
                        .iter()
                        .enumerate()
                        .map(|(j, f)| kernel_arg(f, &format!("{at}.struct[{j}]"), buffers, handle))
                        .collect::<Result<_, _>>()?,
                ),
            })
        }
        let mut launches = Vec::with_capacity(s.launches.len());
        for (li, (l, &mi)) in s.launches.iter().zip(&prepared.launch_modules).enumerate() {
            let at = s.pipeline.then(|| format!("launch[{li}] ({})", l.kernel));
            let lk = s.launch_key(li);
            let kernel = modules[mi].kernel(&l.kernel).map_err(|e| match e {
                // Named at the case's key (`case.toml: kernel`, `--kernel`), as other errors.
                e @ (crate::host::Error::UnknownKernel { .. }
                | crate::host::Error::AmbiguousKernel { .. }) => CaseError::InLaunch {
                    at: case.place(&format!("{lk}kernel")),
                    error: e,
                },
                e => in_launch(&at, e),
            })?;
            let mut args = Vec::with_capacity(l.args.len());
            for (i, a) in l.args.iter().enumerate() {
                let key = format!("{lk}args[{i}]");
                args.push(
                    kernel_arg(a, &key, &buffers, &handle)
                        .map_err(|m| CaseError::Case(format!("{}: {m}", case.name)))?,
                );
            }
            if let Some(bytes) = s.max_dynamic_shared_bytes {
                kernel
                    .set_max_dynamic_shared_bytes(bytes)
                    .map_err(|e| case.err("max_dynamic_shared_bytes", e))?;
            }
            let dims = LaunchDims {
                grid: l.grid.0,
                block: l.block.0,
                shared_bytes: l.shared_bytes,
            };
            // The arguments and the launch's shape are checked against the kernel's
            // signature and directives before it is compiled (as the launch would check
            // them): a mismatch is reported at once, even for a kernel that would not compile.
            kernel
                .check_args_at(&args)
                .map_err(|(i, e)| args_error(case, &lk, i, &at, e))?;
            let shape = LaunchOptions {
                cooperative: l.cooperative.then(Default::default),
                cluster: l.cluster.map(|d| d.0),
                ..LaunchOptions::default()
            };
            kernel
                .check_launch(dims, &shape)
                .map_err(|(part, e)| launch_shape_error(case, &format!("{lk}{}", part.key()), e))?;
            // Compile the kernel now (its first launch would), so the reported compile time
            // covers it and the kernel time does not. A case runs the JIT's optimized tier
            // from its first launch (`host::tiers`): a one-shot run of a long kernel would
            // otherwise run the quick tier's slower code to its end.
            let compiling = std::time::Instant::now();
            kernel
                .compile_optimized_for(&LaunchOptions {
                    lockstep,
                    ..LaunchOptions::default()
                })
                .map_err(|e| in_launch(&at, e))?;
            compile_time += compiling.elapsed();
            launches.push(SessionLaunch {
                kernel,
                dims,
                args,
                cooperative: l.cooperative,
                cluster: l.cluster.map(|d| d.0),
                at,
            });
        }
        Ok(Session {
            ctx,
            launches,
            buffers,
            compile_time,
        })
    }

    /// Copy every buffer's initial contents to the device again.
    pub fn reset(&mut self) -> Result<(), CaseError> {
        // Every launch starts with an empty device heap, as the first one did.
        self.ctx.reset_heap();
        for (b, p) in &self.buffers {
            self.ctx.copy_htod(*p, &b.bytes)?;
        }
        Ok(())
    }

    /// Run launch `i` alone. Errors in a pipeline name the launch
    /// ([`CaseError::InLaunch`]).
    pub fn launch_one(
        &mut self,
        i: usize,
        opts: &LaunchOptions,
    ) -> Result<LaunchReport, CaseError> {
        let l = &self.launches[i];
        let coop;
        let opts = if l.cooperative || l.cluster.is_some() {
            coop = LaunchOptions {
                cooperative: l.cooperative.then(Default::default).or(opts.cooperative),
                cluster: l.cluster.or(opts.cluster),
                ..opts.clone()
            };
            &coop
        } else {
            opts
        };
        self.ctx
            .launch(&l.kernel, l.dims, &l.args, opts)
            .map_err(|e| in_launch(&l.at, e))
    }

    /// Compile (or wait for) the JIT's optimized tier of every launch's kernel for launches
    /// with `opts` ([`Kernel::compile_optimized_for`]): launches after it run the optimized
    /// code. Errors: the first compiler error, naming its launch.
    pub fn compile_optimized(&self, opts: &LaunchOptions) -> Result<(), CaseError> {
        for l in &self.launches {
            l.kernel
                .compile_optimized_for(opts)
                .map_err(|e| in_launch(&l.at, e))?;
        }
        Ok(())
    }

    /// Run every launch in order (one run of the pipeline); stops at the first error.
    pub fn launch(&mut self, opts: &LaunchOptions) -> Result<PipelineReport, CaseError> {
        let mut launches = Vec::with_capacity(self.launches.len());
        for i in 0..self.launches.len() {
            launches.push(self.launch_one(i, opts)?);
        }
        Ok(PipelineReport {
            elapsed: launches.iter().map(|r| r.elapsed).sum(),
            thread_instructions: launches.iter().map(|r| r.thread_instructions).sum(),
            launches,
        })
    }

    /// Every buffer's current device contents.
    pub fn read_back(&self) -> Result<Vec<HostBuffer>, CaseError> {
        let mut out = Vec::with_capacity(self.buffers.len());
        for (b, p) in &self.buffers {
            let mut bytes = super::data::host_vec(b.bytes.len())
                .map_err(|e| CaseError::Case(format!("reading back buffer '{}': {e}", b.name)))?;
            bytes.resize(b.bytes.len(), 0);
            self.ctx.copy_dtoh(&mut bytes, *p)?;
            out.push(HostBuffer {
                name: b.name.clone(),
                dtype: b.dtype,
                bytes,
            });
        }
        Ok(out)
    }
}

/// A runtime error of one launch, naming the launch in a pipeline (`at`).
/// A launch-shape error of the runtime, with the case's place of that part of the launch
/// (`case.toml: launch[1].block: kernel 'k': invalid block …`, `--block: …` for an ad-hoc
/// launch); its kind stays the runtime's (`launch_config`).
/// An argument list that does not fit the kernel ([`crate::host::Kernel::check_args_at`]; `i`:
/// the argument at fault, `None` when some are missing). An ad-hoc launch's error names the
/// `--arg` (`--arg 4 (u64=32): kernel ... argument 4 ...`); a case file's names the launch
/// as before, and the command line points at the case's `args`.
fn args_error(
    case: &Case,
    lk: &str,
    i: Option<usize>,
    at: &Option<String>,
    e: crate::host::Error,
) -> CaseError {
    use crate::host::Error;
    match (&case.origin, e) {
        (Origin::AdHoc(_), Error::Argument(m)) => {
            let key = match i {
                Some(i) => format!("{lk}args[{i}]"),
                None => format!("{lk}args"),
            };
            CaseError::Runtime(Error::Argument(format!("{}: {m}", case.place(&key))))
        }
        (_, e) => in_launch(at, e),
    }
}

fn launch_shape_error(case: &Case, key: &str, e: crate::host::Error) -> CaseError {
    use crate::host::Error;
    let place = case.place(key);
    // The attribute that raises the dynamic shared memory limit, in the case's own terms.
    let how = match (&case.origin, key.ends_with("shared_bytes")) {
        (_, false) => "",
        (Origin::AdHoc(_), true) => " (set it with --max-dynamic-shared-bytes N)",
        (Origin::File, true) => " (set it with the case key max_dynamic_shared_bytes)",
    };
    CaseError::Runtime(match e {
        Error::LaunchConfig(m) if m.contains("cudaFuncAttributeMaxDynamicSharedMemorySize") => {
            Error::LaunchConfig(format!("{place}: {m}{how}"))
        }
        Error::LaunchConfig(m) => Error::LaunchConfig(format!("{place}: {m}")),
        Error::Unsupported(m) => Error::Unsupported(format!("{place}: {m}")),
        other => other,
    })
}

fn in_launch(at: &Option<String>, error: crate::host::Error) -> CaseError {
    match at {
        Some(at) => CaseError::InLaunch {
            at: at.clone(),
            error,
        },
        None => CaseError::Runtime(error),
    }
}

fn scalar_arg(v: Scalar) -> KernelArg {
    match v {
        Scalar::U8(x) => KernelArg::U8(x),
        Scalar::U16(x) => KernelArg::U16(x),
        Scalar::U32(x) => KernelArg::U32(x),
        Scalar::U64(x) => KernelArg::U64(x),
        Scalar::S8(x) => KernelArg::S8(x),
        Scalar::S16(x) => KernelArg::S16(x),
        Scalar::S32(x) => KernelArg::S32(x),
        Scalar::S64(x) => KernelArg::S64(x),
        Scalar::F32(x) => KernelArg::F32(x),
        Scalar::F64(x) => KernelArg::F64(x),
    }
}

/// Prepare and run `case` on `engine`. Never panics on bad input: every failure is in
/// [`CaseResult::error`].
pub fn run_case(case: &Case, engine: Engine, opts: &RunOptions) -> CaseResult {
    match case.prepare() {
        Ok(p) => run_prepared(case, &p, engine, opts),
        Err(e) => CaseResult {
            error: Some(e),
            ..CaseResult::new(case, engine)
        },
    }
}

/// Run an already prepared case (see [`run_case`]).
pub fn run_prepared(
    case: &Case,
    prepared: &Prepared,
    engine: Engine,
    opts: &RunOptions,
) -> CaseResult {
    let mut r = CaseResult::new(case, engine);
    if let Err(e) = run_into(case, prepared, engine, opts, &mut r) {
        r.error = Some(e);
    }
    r
}

fn run_into(
    case: &Case,
    prepared: &Prepared,
    engine: Engine,
    opts: &RunOptions,
    r: &mut CaseResult,
) -> Result<(), CaseError> {
    use crate::host::tool::Tool;
    let wants = |t: Tool| case.spec.expect_error.as_ref().is_some_and(|e| e.wants(t));
    let memcheck = opts.memcheck || wants(Tool::Memcheck);
    let synccheck = opts.synccheck || wants(Tool::Synccheck);
    let initcheck = opts.initcheck || wants(Tool::Initcheck);
    let racecheck = opts.racecheck || wants(Tool::Racecheck);
    let racecheck_global = racecheck
        && (opts.racecheck_global
            || case
                .spec
                .expect_error
                .as_ref()
                .is_some_and(|e| e.racecheck_global));
    let lockstep = opts.lockstep || case.spec.lockstep;
    let mut session = Session::with_tools(case, prepared, engine, memcheck, initcheck, lockstep)?;
    if opts.printf_to_stderr {
        session.ctx.set_printf_sink(crate::host::PrintfSink::Stderr);
    }
    r.compile_time = Some(session.compile_time);
    for l in &session.launches {
        if let Some(n) = l.kernel.lockstep_note(lockstep) {
            if !r.notes.contains(&n) {
                r.notes.push(n);
            }
        }
    }
    r.nvrtc_time = prepared
        .modules
        .iter()
        .filter_map(|m| m.nvrtc_time)
        .reduce(|a, b| a + b);
    let launch_opts = LaunchOptions {
        memcheck,
        synccheck,
        schedule: opts.schedule,
        initcheck,
        racecheck,
        lockstep,
        racecheck_global,
        timeout: opts.timeout,
        cooperative: None,
        cluster: None,
        cluster_non_portable: false,
        stack_bytes: case.spec.stack_bytes,
    };
    // racecheck's reports of the first run of the pipeline (the others repeat it).
    let mut races: Option<Vec<crate::host::race::RaceReport>> = None;
    // One run of the whole pipeline; `timed`: record its times.
    let mut pipeline = |session: &mut Session, timed: bool| -> Result<(), CaseError> {
        let mut total = Duration::ZERO;
        let mut instructions = 0;
        for i in 0..session.launches.len() {
            let rep = session.launch_one(i, &launch_opts)?;
            r.workers = r.workers.max(rep.workers);
            instructions += rep.thread_instructions;
            total += rep.elapsed;
            if timed {
                r.launches[i].times.push(rep.elapsed);
            }
        }
        if timed {
            r.thread_instructions = instructions;
            r.kernel_times.push(total);
        }
        let found = session.ctx.take_race_reports();
        races.get_or_insert(found);
        Ok(())
    };
    let mut init_reports = vec![];
    let launched = (|| -> Result<(), CaseError> {
        if opts.repeat == 0 {
            pipeline(&mut session, true)?;
        } else {
            pipeline(&mut session, false)?; // warm-up
                                            // initcheck's findings are those of the first run (later runs repeat them).
            init_reports = session.ctx.take_init_reports();
            // The timed runs measure the JIT's optimized tier (`host::tiers`).
            session.compile_optimized(&launch_opts)?;
            for _ in 0..opts.repeat {
                session.reset()?;
                pipeline(&mut session, true)?;
            }
        }
        Ok(())
    })();
    // Read back after a fault (`check` compares what both engines left behind), and compare
    // if the case expects the error: it may expect a fault *and* that the faulting accesses
    // changed nothing. Without `[expect_error]` the buffers hold a partial result: their
    // expectations are reported as not checked. A launch that never started (bad arguments
    // or launch shape) has nothing to compare.
    use crate::host::Error as E;
    let stopped = match &launched {
        Ok(()) => None,
        Err(e) => match e.runtime() {
            Some(E::Fault(_)) => Some("the launch faulted"),
            Some(E::Sanitizer(_)) => Some("a sanitizer stopped the launch"),
            Some(E::Timeout(..)) => Some("the launch timed out"),
            Some(E::Deadlock(_)) => Some("the launch deadlocked"),
            _ => None,
        },
    };
    let compare = launched.is_ok() || (stopped.is_some() && case.spec.expect_error.is_some());
    if let Some(why) = stopped.filter(|_| !compare) {
        r.unchecked = prepared
            .expects
            .iter()
            .filter(|e| e.bytes.is_some())
            .map(|e| (e.buffer.clone(), why))
            .collect();
    }
    if init_reports.is_empty() {
        init_reports = session.ctx.take_init_reports();
    }
    r.init_reports = init_reports;
    // (A launch that stopped the first run early left its races in the context.)
    r.race_reports = races.unwrap_or_else(|| session.ctx.take_race_reports());
    r.buffers = session.read_back()?;
    for e in prepared.expects.iter().filter(|_| compare) {
        let Some(want) = &e.bytes else { continue };
        let got = r
            .buffers
            .iter()
            .find(|b| b.name == e.buffer)
            .expect("every expectation names a buffer");
        r.expectations.push(super::ExpectResult {
            buffer: e.buffer.clone(),
            dtype: e.dtype,
            tolerance: e.tolerance,
            comparison: compare_ordered(
                e.dtype,
                &got.bytes,
                want,
                &e.tolerance,
                e.order,
                KEEP_MISMATCHES,
            ),
        });
    }
    launched?;
    // initcheck's and racecheck's findings do not stop the launches: the run ends, then they
    // are its error.
    if !r.init_reports.is_empty() || !r.race_reports.is_empty() {
        let mut text: Vec<String> = r.init_reports.iter().map(|x| x.to_string()).collect();
        text.extend(r.race_reports.iter().map(|x| x.sanitizer_text()));
        return Err(CaseError::Sanitizer(text.join("\n")));
    }
    Ok(())
}

/// Whether a result is what the case asks for: with `[expect_error]`, an error of that kind
/// whose message contains the substring; otherwise no error. In both cases every expectation
/// that could be checked must hold (after a fault: the buffers as the launch left them).
/// `Err` says what went wrong.
pub fn verdict(case: &Case, r: &CaseResult) -> Result<(), String> {
    match (&case.spec.expect_error, &r.error) {
        (Some(want), Some(got)) => {
            let msg = got.to_string();
            if got.kind() != want.kind {
                Err(format!(
                    "expected a '{}' error, got '{}': {msg}",
                    want.kind,
                    got.kind()
                ))
            } else if !msg.contains(&want.contains) {
                Err(format!(
                    "the '{}' error does not contain '{}': {msg}",
                    want.kind, want.contains
                ))
            } else {
                failed_expectations(r)
            }
        }
        (Some(want), None) => Err(format!(
            "expected a '{}' error containing '{}', but the run succeeded",
            want.kind, want.contains
        )),
        (None, Some(got)) => Err(format!("{} error: {got}", got.kind())),
        (None, None) => failed_expectations(r),
    }
}

fn failed_expectations(r: &CaseResult) -> Result<(), String> {
    let failed: Vec<String> = r
        .expectations
        .iter()
        .filter(|e| !e.passed())
        .map(|e| {
            let c = &e.comparison;
            let first = c.first.first().map(|m| {
                format!(
                    "; first at index {}: got {}, want {}",
                    m.index, m.got, m.want
                )
            });
            format!(
                "{}: {} of {} elements differ{}",
                e.buffer,
                c.mismatches,
                c.total,
                first.unwrap_or_default()
            )
        })
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("\n"))
    }
}
