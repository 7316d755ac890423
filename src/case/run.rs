//! Running a case: a [`Session`] holds a context with the module loaded and the buffers
//! allocated; [`run_case`] prepares, launches (with `repeat`), reads back and compares.

use super::compare::{compare, Comparison};
use super::spec::{Arg, Scalar, Tolerance};
use super::{Case, CaseError, DType, HostBuffer, Prepared};
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
    /// 0: one launch. N > 0: one warm-up launch, then N timed launches; buffers are
    /// re-initialised before each launch.
    pub repeat: u32,
    /// Abort a launch that runs longer than this.
    pub timeout: Option<Duration>,
}

/// The result of comparing one buffer with its `[expect.NAME]`.
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

/// Everything a run produced. `error` is set when the case could not be run to the end; the
/// fields before the failing step are still filled in.
#[derive(Debug)]
pub struct CaseResult {
    pub case: String,
    pub kernel: String,
    pub engine: Engine,
    /// Parse + lower + compile time of the module.
    pub compile_time: Option<Duration>,
    /// Each timed launch (one without `repeat`).
    pub kernel_times: Vec<Duration>,
    /// The most worker threads (cores) that ran CTAs of one launch.
    pub workers: u32,
    /// Thread-instructions of one launch, when the engine counts them (the interpreter).
    pub thread_instructions: u64,
    /// Threads per launch (grid × block).
    pub threads: u64,
    pub expectations: Vec<ExpectResult>,
    /// Every buffer's contents after the (last) launch, if they could be read back.
    pub buffers: Vec<HostBuffer>,
    pub error: Option<CaseError>,
}

impl CaseResult {
    fn new(case: &Case, engine: Engine) -> CaseResult {
        CaseResult {
            case: case.name.clone(),
            kernel: case.spec.kernel.clone(),
            engine,
            compile_time: None,
            kernel_times: vec![],
            workers: 0,
            thread_instructions: 0,
            threads: case.threads(),
            expectations: vec![],
            buffers: vec![],
            error: None,
        }
    }

    /// No error and every expectation passed.
    pub fn passed(&self) -> bool {
        self.error.is_none() && self.expectations.iter().all(ExpectResult::passed)
    }

    pub fn kernel_time(&self) -> Option<TimeStats> {
        TimeStats::of(&self.kernel_times)
    }
}

/// A loaded module and allocated buffers, ready to launch repeatedly.
pub struct Session {
    pub ctx: Context,
    pub kernel: Kernel,
    pub dims: LaunchDims,
    pub args: Vec<KernelArg>,
    /// Initial contents and device address of each buffer.
    pub buffers: Vec<(HostBuffer, DevicePtr)>,
    /// The front end's time and the kernel's compilation.
    pub compile_time: Duration,
}

impl Session {
    /// Load the PTX for `engine`, allocate (label = buffer name) and fill every buffer, create
    /// the texture and surface objects (PNG sources get an allocation of their own, labelled
    /// `textures.NAME`), bind the texture references, and build the arguments.
    pub fn new(case: &Case, prepared: &Prepared, engine: Engine) -> Result<Session, CaseError> {
        let s = &case.spec;
        let mut ctx = Context::new();
        if let Some(bytes) = s.heap_bytes {
            ctx.set_heap_size(bytes)?;
        }
        let module = ctx.load_module(&prepared.ptx_text, &prepared.ptx_name, engine)?;
        let kernel = module.kernel(&s.kernel)?;
        // Compile the kernel now (its first launch would), so the reported compile time
        // covers it and the kernel time does not.
        let compiling = std::time::Instant::now();
        kernel.compile()?;
        let compile_time = module.compile_time + compiling.elapsed();
        let mut buffers = Vec::with_capacity(prepared.buffers.len());
        for b in &prepared.buffers {
            let symbol = s
                .buffers
                .get(&b.name)
                .and_then(|spec| spec.symbol.as_deref());
            let p = match symbol {
                None => ctx.alloc(b.bytes.len() as u64, Some(&b.name))?,
                Some(sym) => {
                    let at = format!("{}: buffers.{}.symbol", case.name, b.name);
                    let Some((p, size)) = module.global(sym) else {
                        let names: Vec<&str> =
                            module.globals.iter().map(|(n, _, _)| n.as_str()).collect();
                        return Err(CaseError::Case(format!(
                            "{at}: no .global or .const variable '{sym}' in {} (variables: {})",
                            prepared.ptx_name,
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
            ctx.copy_htod(p, &b.bytes)?;
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
            super::texture::create_objects(&mut ctx, &module, s, &src).map_err(|e| match e {
                CaseError::Case(m) => CaseError::Case(format!("{}: {m}", case.name)),
                other => other,
            })?;
        let handle = |what: &str, n: &str| {
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
                Arg::Struct(fields) => KernelArg::Struct(
                    fields
                        .iter()
                        .enumerate()
                        .map(|(j, f)| kernel_arg(f, &format!("{at}.struct[{j}]"), buffers, handle))
                        .collect::<Result<_, _>>()?,
                ),
            })
        }
        let mut args = Vec::with_capacity(s.args.len());
        for (i, a) in s.args.iter().enumerate() {
            args.push(
                kernel_arg(a, &format!("args[{i}]"), &buffers, &handle)
                    .map_err(|m| CaseError::Case(format!("{}: {m}", case.name)))?,
            );
        }
        let dims = LaunchDims {
            grid: s.grid.0,
            block: s.block.0,
            shared_bytes: s.shared_bytes,
        };
        Ok(Session {
            ctx,
            kernel,
            dims,
            args,
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

    /// One launch.
    pub fn launch(&mut self, opts: &LaunchOptions) -> Result<LaunchReport, CaseError> {
        Ok(self.ctx.launch(&self.kernel, self.dims, &self.args, opts)?)
    }

    /// Every buffer's current device contents.
    pub fn read_back(&self) -> Result<Vec<HostBuffer>, CaseError> {
        let mut out = Vec::with_capacity(self.buffers.len());
        for (b, p) in &self.buffers {
            let mut bytes = vec![0u8; b.bytes.len()];
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
    let mut session = Session::new(case, prepared, engine)?;
    r.compile_time = Some(session.compile_time);
    let launch_opts = LaunchOptions {
        memcheck: opts.memcheck || case.spec.expect_error.as_ref().is_some_and(|e| e.memcheck),
        timeout: opts.timeout,
    };
    let launched = (|| -> Result<(), CaseError> {
        if opts.repeat == 0 {
            let rep = session.launch(&launch_opts)?;
            r.workers = r.workers.max(rep.workers);
            r.thread_instructions = rep.thread_instructions;
            r.kernel_times.push(rep.elapsed);
        } else {
            session.launch(&launch_opts)?; // warm-up
            for _ in 0..opts.repeat {
                session.reset()?;
                let rep = session.launch(&launch_opts)?;
                r.workers = r.workers.max(rep.workers);
                r.thread_instructions = rep.thread_instructions;
                r.kernel_times.push(rep.elapsed);
            }
        }
        Ok(())
    })();
    // Read back and compare even after a fault: a case may expect a fault *and* that the
    // faulting accesses changed nothing, and `check` compares what both engines left behind.
    // A launch that never started (bad arguments or launch shape) has nothing to compare.
    use crate::host::Error as E;
    let ran = matches!(
        &launched,
        Ok(())
            | Err(CaseError::Runtime(
                E::Fault(_) | E::Timeout(..) | E::Deadlock(_)
            ))
    );
    r.buffers = session.read_back()?;
    for e in prepared.expects.iter().filter(|_| ran) {
        let got = r
            .buffers
            .iter()
            .find(|b| b.name == e.buffer)
            .expect("every expectation names a buffer");
        r.expectations.push(super::ExpectResult {
            buffer: e.buffer.clone(),
            dtype: e.dtype,
            tolerance: e.tolerance,
            comparison: compare(e.dtype, &got.bytes, &e.bytes, &e.tolerance, KEEP_MISMATCHES),
        });
    }
    launched?;
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
