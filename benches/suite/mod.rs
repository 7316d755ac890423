//! The benchmark suite (the kernels, their native Rust and OpenCL versions), shared by the criterion
//! bench `benches/compare.rs` and the table command `examples/bench_table.rs`.
//!
//! Each [`Bench`] is a real kernel of `ptx-tests/kernels` (same CUDA source, same NVRTC PTX)
//! launched at a realistic size by a case file in `benches/cases/` (generated inputs, no data
//! files), plus an idiomatic native Rust version of the same computation (rayon over all cores,
//! release build, for the default target CPU and for this machine's vector extensions:
//! [`machine_isa`]) and, where `benches/opencl/NAME.cl` exists, the kernel in OpenCL C for
//! POCL ([`pocl`]); their results are checked against the JIT's, so the comparison is between
//! programs that compute the same thing.
//!
//! Timing: an engine's time is [`ptxjit::host::LaunchReport::elapsed`] (the whole launch:
//! argument packing, CTA scheduling over the worker threads, every warp), with every buffer
//! re-initialised before each launch outside the timing. A native time is the wall time of the
//! rayon computation, its outputs likewise reset outside the timing.

#![allow(dead_code)] // each includer uses a different part

pub mod empty;
pub mod pocl;

use ptxjit::case::{Arg, Case, HostBuffer, LaunchSpec, Prepared, Scalar, Session};
use ptxjit::host::{Context, Engine, LaunchOptions};
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Which target of the issue a kernel counts towards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// JIT within 2× of native Rust built for the machine.
    Memory,
    /// JIT within 3× of native Rust built for the default target.
    Compute,
}

impl Bound {
    pub fn name(self) -> &'static str {
        match self {
            Bound::Memory => "memory",
            Bound::Compute => "compute",
        }
    }
    /// The JIT ÷ native ratio aimed for: memory-bound kernels against the native version
    /// built for the machine, compute-bound ones against the default target's (128-bit
    /// vectors, as Cranelift's).
    pub fn target(self) -> f64 {
        match self {
            Bound::Memory => 2.0,
            Bound::Compute => 3.0,
        }
    }
}

/// One benchmark kernel.
pub struct Bench {
    /// Short name (`saxpy`); also the case file `benches/cases/NAME.toml`.
    pub name: &'static str,
    pub bound: Bound,
    /// How closely the OpenCL version's outputs (`benches/opencl/NAME.cl` through POCL) must
    /// match the JIT's.
    pub pocl_agree: Agree,
    /// Work of one full-size launch, in `unit`s (the criterion throughput).
    pub work: u64,
    pub unit: &'static str,
    /// Shrink the case for the interpreter's criterion runs and `--quick` tables; returns the
    /// fraction of the full work the shrunk launch does (exact unless the doc says otherwise).
    pub shrink: fn(&mut LaunchSpec) -> f64,
    /// Build the native version from the case's prepared inputs.
    pub native: fn(&Loaded) -> Box<dyn Native>,
}

/// How closely two device results of one kernel (the JIT's and POCL's) must agree: the
/// programs compute the same thing but may round differently (a fused multiply-add here and
/// not there, another summation order, filter weights of another precision).
#[derive(Clone, Copy, Debug)]
pub enum Agree {
    /// Every byte equal.
    Exact,
    /// f32 elements within this relative error, |a - b| / max(|b|, 1).
    F32(f64),
    /// u8 elements within this many steps.
    U8Steps(u8),
    /// u32 elements: at most this fraction of them differ.
    U32Fraction(f64),
}

/// Compare each buffer of `other` with the JIT's buffer of the same name under `how`.
/// `Ok` says how close they are; `Err` what differs beyond the tolerance.
pub fn agree(jit: &[HostBuffer], other: &[HostBuffer], how: Agree) -> Result<String, String> {
    let mut notes = vec![];
    let mut bad = false;
    for o in other {
        let j = found(jit, &o.name)?;
        if j.bytes.len() != o.bytes.len() {
            return Err(format!(
                "{}: {} bytes, JIT {}",
                o.name,
                o.bytes.len(),
                j.bytes.len()
            ));
        }
        if j.bytes == o.bytes {
            continue;
        }
        let (ok, note) = match how {
            Agree::Exact => {
                let n = j.bytes.iter().zip(&o.bytes).filter(|(a, b)| a != b).count();
                (false, format!("{}: {n} bytes differ", o.name))
            }
            Agree::F32(tol) => {
                let (e, i) = max_rel_err(&f32s(o), &f32s(j));
                (
                    e <= tol && !e.is_nan(),
                    format!(
                        "{}: max rel err {e:.1e} at {i}, tolerance {tol:.0e}",
                        o.name
                    ),
                )
            }
            Agree::U8Steps(steps) => {
                let worst = j
                    .bytes
                    .iter()
                    .zip(&o.bytes)
                    .map(|(&a, &b)| a.abs_diff(b))
                    .max()
                    .unwrap_or(0);
                (
                    worst <= steps,
                    format!("{}: max difference {worst}/255, tolerance {steps}", o.name),
                )
            }
            Agree::U32Fraction(f) => {
                let (a, b) = (u32s(j), u32s(o));
                let n = a.iter().zip(&b).filter(|(x, y)| x != y).count();
                (
                    n as f64 <= f * a.len() as f64,
                    format!("{}: {n} of {} differ, tolerance {f}", o.name, a.len()),
                )
            }
        };
        bad |= !ok;
        notes.push(note);
    }
    let msg = if notes.is_empty() {
        "same bytes".to_string()
    } else {
        notes.join("; ")
    };
    if bad {
        Err(msg)
    } else {
        Ok(msg)
    }
}

/// A native Rust version of a kernel, holding its inputs and outputs.
pub trait Native {
    /// Put the outputs back in their initial state (outside the timing).
    fn reset(&mut self);
    /// The computation (timed), built for the default target.
    fn run(&mut self);
    /// The same computation built for this machine's vector extensions ([`machine_isa`]);
    /// only called when that is `Some`.
    fn run_machine(&mut self);
    /// Compare with the buffers a JIT launch left (after one launch from the initial state).
    /// `Ok` says how close they are; `Err` what differs beyond the tolerance.
    fn check(&self, jit: &[HostBuffer]) -> Result<String, String>;
}

/// The suite, in table order.
pub fn benches() -> Vec<Bench> {
    vec![
        Bench {
            name: "saxpy",
            bound: Bound::Memory,
            pocl_agree: Agree::F32(1e-6),
            work: 1 << 24,
            unit: "elements",
            shrink: |s| shrink_grid(s, 0, 16),
            native: Saxpy::boxed,
        },
        Bench {
            name: "sgemm_naive",
            bound: Bound::Compute,
            pocl_agree: Agree::F32(1e-4),
            work: 512 * 512 * 512,
            unit: "FMAs",
            shrink: |s| shrink_grid(s, 1, 16),
            native: |l| Sgemm::boxed(l, false),
        },
        Bench {
            name: "sgemm_tiled",
            bound: Bound::Compute,
            pocl_agree: Agree::F32(1e-4),
            work: 512 * 512 * 512,
            unit: "FMAs",
            shrink: |s| shrink_grid(s, 1, 16),
            native: |l| Sgemm::boxed(l, true),
        },
        Bench {
            name: "reduce_shared",
            bound: Bound::Memory,
            pocl_agree: Agree::F32(1e-5),
            work: 1 << 24,
            unit: "elements",
            shrink: |s| shrink_grid(s, 0, 16),
            native: ReduceBlocks::boxed,
        },
        Bench {
            name: "reduce_shfl",
            bound: Bound::Memory,
            pocl_agree: Agree::F32(1e-5),
            work: 1 << 24,
            unit: "elements",
            shrink: |s| shrink_u32_arg(s, 2, 16),
            native: ReduceTotal::boxed,
        },
        Bench {
            name: "histogram_global",
            bound: Bound::Memory,
            pocl_agree: Agree::Exact,
            work: 1 << 24,
            unit: "bytes",
            shrink: |s| shrink_u32_arg(s, 1, 16),
            native: Histogram::boxed,
        },
        Bench {
            name: "histogram_shared",
            bound: Bound::Memory,
            pocl_agree: Agree::Exact,
            work: 1 << 24,
            unit: "bytes",
            shrink: |s| shrink_u32_arg(s, 1, 16),
            native: Histogram::boxed,
        },
        Bench {
            name: "mandelbrot",
            bound: Bound::Compute,
            pocl_agree: Agree::U32Fraction(0.01),
            work: 1024 * 768,
            unit: "pixels",
            // The same picture at a quarter of the resolution in each direction: about 1/16
            // of the iterations (not exact: the escape counts are sampled, not scaled).
            shrink: |s| {
                s.grid.0 = [16, 12, 1];
                s.args[1] = Arg::Scalar(Scalar::U32(256));
                s.args[2] = Arg::Scalar(Scalar::U32(192));
                for i in [5, 6] {
                    if let Arg::Scalar(Scalar::F32(d)) = &mut s.args[i] {
                        *d *= 4.0;
                    }
                }
                1.0 / 16.0
            },
            native: Mandelbrot::boxed,
        },
        Bench {
            name: "bilinear",
            bound: Bound::Memory,
            pocl_agree: Agree::U8Steps(1),
            work: 2048 * 2048,
            unit: "pixels",
            // A quarter of the output in each direction (a 2x downscale of the same source).
            shrink: |s| {
                s.grid.0 = [32, 32, 1];
                s.args[2] = Arg::Scalar(Scalar::U32(512));
                s.args[3] = Arg::Scalar(Scalar::U32(512));
                1.0 / 16.0
            },
            native: Bilinear::boxed,
        },
        Bench {
            name: "copy_float",
            bound: Bound::Memory,
            pocl_agree: Agree::Exact,
            work: 1 << 24,
            unit: "floats",
            shrink: |s| shrink_grid(s, 0, 16),
            native: Copy::boxed,
        },
        Bench {
            name: "copy_float4",
            bound: Bound::Memory,
            pocl_agree: Agree::Exact,
            work: 1 << 24,
            unit: "floats",
            shrink: |s| shrink_grid(s, 0, 16),
            native: Copy::boxed,
        },
        Bench {
            name: "copy_float3",
            bound: Bound::Memory,
            pocl_agree: Agree::Exact,
            work: (1 << 24) - 1,
            unit: "floats",
            // 1365 of 21846 blocks: 1/16 of the elements to within 0.02%.
            shrink: |s| shrink_grid(s, 0, 16),
            native: Copy::boxed,
        },
    ]
}

fn shrink_grid(s: &mut LaunchSpec, dim: usize, by: u32) -> f64 {
    s.grid.0[dim] /= by;
    1.0 / by as f64
}

fn shrink_u32_arg(s: &mut LaunchSpec, index: usize, by: u32) -> f64 {
    if let Arg::Scalar(Scalar::U32(n)) = &mut s.args[index] {
        *n /= by;
    }
    1.0 / by as f64
}

/// The case file of `name`.
pub fn case_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("benches/cases/{name}.toml"))
}

/// A bench's case, loaded and prepared (inputs generated).
pub struct Loaded {
    pub case: Case,
    pub prepared: Prepared,
}

impl Bench {
    /// The full-size case.
    pub fn load(&self) -> Result<Loaded, String> {
        let case = Case::load(&case_path(self.name)).map_err(|e| e.to_string())?;
        let prepared = case.prepare().map_err(|e| e.to_string())?;
        Ok(Loaded { case, prepared })
    }

    /// The shrunk case and the fraction of the full work it does.
    pub fn load_shrunk(&self) -> Result<(Loaded, f64), String> {
        let full = Case::load(&case_path(self.name)).map_err(|e| e.to_string())?;
        let mut spec = full.spec.clone();
        let fraction = (self.shrink)(&mut spec.launches[0]);
        let case = Case::from_spec(spec, &full.name, &full.dir, ptxjit::case::Origin::File)
            .map_err(|e| e.to_string())?;
        let prepared = case.prepare().map_err(|e| e.to_string())?;
        Ok((Loaded { case, prepared }, fraction))
    }
}

impl Loaded {
    /// A session (module loaded, buffers filled) on `engine`.
    pub fn session(&self, engine: Engine) -> Result<Session, String> {
        Session::new(&self.case, &self.prepared, engine).map_err(|e| e.to_string())
    }
}

/// Whether the timed functions below measure CPU time ([`use_cpu_time`]) instead of wall time.
static CPU_TIME: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Make [`timed_launch`], [`timed_native`], [`timed_native_machine`] and POCL's
/// `timed_launch` return the CPU time every thread of the process spent during the run
/// (`CLOCK_PROCESS_CPUTIME_ID`) instead of its wall time: on a machine other programs load,
/// wall time counts the time the workers waited for a core, CPU time does not. A worker that
/// waits for work by spinning counts (rayon's idle workers spin a little before they sleep).
pub fn use_cpu_time(on: bool) {
    CPU_TIME.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// The CPU time of every thread of this process so far.
fn process_cpu_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write; the clock id is a constant Linux knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// A stopwatch for one timed run: wall time, or CPU time after [`use_cpu_time`].
pub struct Stopwatch {
    wall: Instant,
    cpu: Option<Duration>,
}

impl Stopwatch {
    pub fn start() -> Stopwatch {
        let cpu = CPU_TIME
            .load(std::sync::atomic::Ordering::Relaxed)
            .then(process_cpu_time);
        Stopwatch {
            wall: Instant::now(),
            cpu,
        }
    }
    /// The time since [`start`](Self::start), wall or CPU.
    pub fn elapsed(&self) -> Duration {
        match self.cpu {
            Some(c) => process_cpu_time().saturating_sub(c),
            None => self.wall.elapsed(),
        }
    }
    /// Whether this measures CPU time.
    pub fn is_cpu(&self) -> bool {
        self.cpu.is_some()
    }
}

/// Reset every buffer, launch once, and return the launch's own wall time (with
/// [`use_cpu_time`], the process's CPU time over the launch).
pub fn timed_launch(s: &mut Session) -> Result<Duration, String> {
    s.reset().map_err(|e| e.to_string())?;
    let t = Stopwatch::start();
    let r = s
        .launch(&LaunchOptions::default())
        .map_err(|e| e.to_string())?;
    Ok(if t.is_cpu() { t.elapsed() } else { r.elapsed })
}

/// Reset, then time one native run.
pub fn timed_native(n: &mut dyn Native) -> Duration {
    n.reset();
    let t = Stopwatch::start();
    n.run();
    t.elapsed()
}

/// Reset, then time one run of the version built for the machine ([`machine_isa`]).
pub fn timed_native_machine(n: &mut dyn Native) -> Duration {
    n.reset();
    let t = Stopwatch::start();
    n.run_machine();
    t.elapsed()
}

/// Time of one `Context::load_module` (parse, lower, verify) of the case's PTX and the
/// compilation of its kernels (`Module::compile_all`, which their first launches would do).
pub fn timed_load(ptx: &str, file: &str, engine: Engine) -> Result<Duration, String> {
    let ptx = uncached(ptx);
    let t = Instant::now();
    let m = Context::new()
        .load_module(&ptx, file, engine)
        .and_then(|m| m.compile_all().map(|()| m))
        .map_err(|e| e.to_string())?;
    let elapsed = t.elapsed();
    // The JIT's optimized tier, compiling on a background thread meanwhile, is waited for
    // outside the time, so that it does not run during the next measurement.
    m.compile_all_optimized().map_err(|e| e.to_string())?;
    Ok(elapsed)
}

/// As [`timed_load`], the JIT's optimized tier alone (`Module::compile_all_optimized` on a
/// module not compiled yet: no quick tier first).
pub fn timed_load_optimized(ptx: &str, file: &str, engine: Engine) -> Result<Duration, String> {
    let ptx = uncached(ptx);
    let t = Instant::now();
    Context::new()
        .load_module(&ptx, file, engine)
        .and_then(|m| m.compile_all_optimized())
        .map_err(|e| e.to_string())?;
    Ok(t.elapsed())
}

/// `ptx` with a comment no earlier call added: a module of the same text still alive (a
/// bench's launch session) would otherwise lend its compiled kernels (`host::cache`), and
/// nothing would compile.
pub fn uncached(ptx: &str) -> String {
    static LOADS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = LOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{ptx}\n// load {n}\n")
}

/// Median of some durations (mean of the middle two for an even count).
pub fn median(times: &[Duration]) -> Duration {
    let mut t = times.to_vec();
    t.sort();
    let n = t.len();
    match n {
        0 => Duration::ZERO,
        _ if n % 2 == 1 => t[n / 2],
        _ => (t[n / 2 - 1] + t[n / 2]) / 2,
    }
}

// ---- host data helpers ----

fn buffer<'a>(p: &'a Prepared, name: &str) -> &'a HostBuffer {
    p.buffers
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("the bench case declares buffer '{name}'"))
}

fn f32s(b: &HostBuffer) -> Vec<f32> {
    b.bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn u32s(b: &HostBuffer) -> Vec<u32> {
    b.bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn found<'a>(jit: &'a [HostBuffer], name: &str) -> Result<&'a HostBuffer, String> {
    jit.iter()
        .find(|b| b.name == name)
        .ok_or_else(|| format!("no buffer '{name}' in the JIT's results"))
}

fn arg_f32(l: &Loaded, i: usize) -> f32 {
    match l.case.spec.launches[0].args[i] {
        Arg::Scalar(Scalar::F32(v)) => v,
        ref a => panic!("argument {i} of the bench case is {a:?}, not an f32"),
    }
}

fn arg_u32(l: &Loaded, i: usize) -> u32 {
    match l.case.spec.launches[0].args[i] {
        Arg::Scalar(Scalar::U32(v)) => v,
        ref a => panic!("argument {i} of the bench case is {a:?}, not a u32"),
    }
}

/// Largest |got - want| / max(|want|, 1) over two float slices, and where.
fn max_rel_err(got: &[f32], want: &[f32]) -> (f64, usize) {
    let mut worst = (0.0f64, 0);
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let e = (g as f64 - w as f64).abs() / (w as f64).abs().max(1.0);
        if e > worst.0 || e.is_nan() {
            worst = (e, i);
        }
    }
    worst
}

fn check_close(got: &[f32], want: &[f32], tol: f64, what: &str) -> Result<String, String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} elements, native {}",
            got.len(),
            want.len()
        ));
    }
    let (e, i) = max_rel_err(got, want);
    let msg = format!(
        "{what}: max rel err {e:.1e} (at {i}: JIT {}, native {})",
        got[i], want[i]
    );
    if e <= tol && !e.is_nan() {
        Ok(msg)
    } else {
        Err(format!("{msg}, tolerance {tol:.0e}"))
    }
}

// ---- the native kernels ----

/// The x86-64 microarchitecture level the native kernels' "machine" versions are built for:
/// the highest of x86-64-v4 (AVX-512 F/BW/CD/DQ/VL) and x86-64-v3 (AVX2, FMA, BMI1/2, F16C,
/// LZCNT, MOVBE) whose features this CPU has; `None` below v3 or on another architecture.
///
/// Those versions are the same Rust source compiled a second time inside a
/// `#[target_feature]` function (the closures given to rayon inherit its features), picked at
/// run time, so one ordinary `cargo build --release` measures both the default target (SSE2:
/// 128-bit vectors, Cranelift's width) and the machine's widest vectors, which is what
/// `-C target-cpu=native` would give these loops (Rust contracts no `a * b + c` into an FMA
/// either way). A separate `RUSTFLAGS` build of the whole crate would cost a second build of
/// every dependency.
pub fn machine_isa() -> Option<Isa> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let v3 = has!("avx2")
            && has!("fma")
            && has!("bmi1")
            && has!("bmi2")
            && has!("f16c")
            && has!("lzcnt")
            && has!("movbe");
        let v4 = v3
            && has!("avx512f")
            && has!("avx512bw")
            && has!("avx512cd")
            && has!("avx512dq")
            && has!("avx512vl");
        if v4 {
            return Some(Isa::V4);
        }
        if v3 {
            return Some(Isa::V3);
        }
    }
    None
}

/// An x86-64 microarchitecture level ([`machine_isa`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    V3,
    V4,
}

impl Isa {
    pub fn name(self) -> &'static str {
        match self {
            Isa::V3 => "x86-64-v3 (AVX2)",
            Isa::V4 => "x86-64-v4 (AVX-512)",
        }
    }
}

/// `run` and `run_machine` of a [`Native`] from one body (`this` is `&mut $ty`): the body is
/// compiled three times, for the default target and inside `#[target_feature]` functions for
/// the two levels of [`machine_isa`].
macro_rules! native_run {
    ($ty:ty, |$this:ident| $body:block) => {
        fn run(&mut self) {
            let $this = self;
            $body
        }
        fn run_machine(&mut self) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2,fma,bmi1,bmi2,f16c,lzcnt,movbe")]
                fn v3($this: &mut $ty) {
                    $body
                }
                #[target_feature(
                    enable = "avx2,fma,bmi1,bmi2,f16c,lzcnt,movbe,avx512f,avx512bw,avx512cd,avx512dq,avx512vl"
                )]
                fn v4($this: &mut $ty) {
                    $body
                }
                match machine_isa() {
                    // SAFETY: machine_isa found every feature the function is built with.
                    Some(Isa::V4) => unsafe { v4(self) },
                    // SAFETY: as above.
                    Some(Isa::V3) => unsafe { v3(self) },
                    None => self.run(),
                }
            }
            #[cfg(not(target_arch = "x86_64"))]
            self.run();
        }
    };
}

/// Bilinear upscaling (upscale.cu): the CUDA guide's filter on u8 RGBA texels read as
/// normalized floats (texel centres at +0.5, weights in 1/256 steps, clamp to the edge), then
/// back to 8 bits; rows of the output in parallel.
struct Bilinear {
    src: Vec<u8>,
    sw: usize,
    sh: usize,
    w: usize,
    h: usize,
    out: Vec<u8>,
}

impl Bilinear {
    fn boxed(l: &Loaded) -> Box<dyn Native> {
        let (w, h) = (arg_u32(l, 2) as usize, arg_u32(l, 3) as usize);
        Box::new(Bilinear {
            src: buffer(&l.prepared, "img").bytes.clone(),
            sw: 1024,
            sh: 1024,
            w,
            h,
            out: vec![0; w * h * 4],
        })
    }
}

impl Native for Bilinear {
    fn reset(&mut self) {
        self.out.fill(0);
    }
    native_run!(Bilinear, |this| {
        let (src, sw, sh, w, h) = (&this.src, this.sw, this.sh, this.w, this.h);
        let tap = |x: f32, n: usize| {
            let xb = x * n as f32 - 0.5;
            let i = xb.floor();
            let a = ((xb - i) * 256.0).round() / 256.0;
            let i = i as i64;
            let c = |k: i64| k.clamp(0, n as i64 - 1) as usize;
            (c(i), c(i + 1), a)
        };
        this.out
            .par_chunks_mut(w * 4)
            .enumerate()
            .for_each(|(y, row)| {
                let v = (y as f32 + 0.5) / h as f32;
                let (j0, j1, b) = tap(v, sh);
                for x in 0..w {
                    let u = (x as f32 + 0.5) / w as f32;
                    let (i0, i1, a) = tap(u, sw);
                    for k in 0..4 {
                        let t = |i: usize, j: usize| src[(j * sw + i) * 4 + k] as f32 / 255.0;
                        let c = (1.0 - a) * (1.0 - b) * t(i0, j0)
                            + a * (1.0 - b) * t(i1, j0)
                            + (1.0 - a) * b * t(i0, j1)
                            + a * b * t(i1, j1);
                        row[x * 4 + k] = (c.clamp(0.0, 1.0) * 255.0).round_ties_even() as u8;
                    }
                }
            });
    });
    fn check(&self, jit: &[HostBuffer]) -> Result<String, String> {
        let got = &found(jit, "out")?.bytes;
        if got.len() != self.out.len() {
            return Err(format!(
                "out: {} bytes, native {}",
                got.len(),
                self.out.len()
            ));
        }
        // The sums' rounding may differ in the last place: allow one step of 8 bits.
        let worst = got
            .iter()
            .zip(&self.out)
            .map(|(&g, &n)| (g as i32 - n as i32).abs())
            .max()
            .unwrap_or(0);
        if worst <= 1 {
            Ok(format!("out: max difference {worst}/255"))
        } else {
            Err(format!("out: max difference {worst}/255, tolerance 1"))
        }
    }
}

/// y = x (copy_float.cu, copy_float4.cu, copy_float3.cu: the same bytes as float, float4 or
/// float3 elements),
/// `par_chunks_mut` over y.
struct Copy {
    x: Vec<f32>,
    y0: Vec<f32>,
    y: Vec<f32>,
}

impl Copy {
    fn boxed(l: &Loaded) -> Box<dyn Native> {
        let p = &l.prepared;
        let y0 = f32s(buffer(p, "y"));
        Box::new(Copy {
            x: f32s(buffer(p, "x")),
            y: y0.clone(),
            y0,
        })
    }
}

impl Native for Copy {
    fn reset(&mut self) {
        self.y.copy_from_slice(&self.y0);
    }
    native_run!(Copy, |this| {
        this.y
            .par_chunks_mut(1 << 16)
            .zip(this.x.par_chunks(1 << 16))
            .for_each(|(y, x)| y.copy_from_slice(x));
    });
    fn check(&self, jit: &[HostBuffer]) -> Result<String, String> {
        let got = f32s(found(jit, "y")?);
        let same = got.len() == self.y.len()
            && got
                .iter()
                .zip(&self.y)
                .all(|(a, b)| a.to_bits() == b.to_bits());
        if same {
            Ok("y: identical bit for bit".into())
        } else {
            Err("y: differs from the copy".into())
        }
    }
}

/// y = a·x + y (saxpy.cu), `par_chunks_mut` over y.
struct Saxpy {
    a: f32,
    x: Vec<f32>,
    y0: Vec<f32>,
    y: Vec<f32>,
}

impl Saxpy {
    fn boxed(l: &Loaded) -> Box<dyn Native> {
        let p = &l.prepared;
        let a = arg_f32(l, 1);
        let y0 = f32s(buffer(p, "y"));
        Box::new(Saxpy {
            a,
            x: f32s(buffer(p, "x")),
            y: y0.clone(),
            y0,
        })
    }
}

impl Native for Saxpy {
    fn reset(&mut self) {
        self.y.copy_from_slice(&self.y0);
    }
    native_run!(Saxpy, |this| {
        let a = this.a;
        this.y
            .par_chunks_mut(1 << 16)
            .zip(this.x.par_chunks(1 << 16))
            .for_each(|(y, x)| {
                for (y, x) in y.iter_mut().zip(x) {
                    *y += a * x;
                }
            });
    });
    fn check(&self, jit: &[HostBuffer]) -> Result<String, String> {
        // The PTX fuses (fma.rn.f32); `a * x + y` rounds twice.
        check_close(&f32s(found(jit, "y")?), &self.y, 1e-6, "y")
    }
}

/// C = A·B, 512³. `tiled == false`: the straightforward triple loop, rows in parallel (what
/// sgemm_naive.cu does per thread). `tiled == true`: cache-blocked i-k-j loops over 16-row
/// bands in parallel, 64-deep k blocks, the j loop auto-vectorised.
struct Sgemm {
    tiled: bool,
    n: usize,
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
}

impl Sgemm {
    fn boxed(l: &Loaded, tiled: bool) -> Box<dyn Native> {
        let p = &l.prepared;
        let n = arg_u32(l, 3) as usize; // M = N = K
        Box::new(Sgemm {
            tiled,
            n,
            a: f32s(buffer(p, "A")),
            b: f32s(buffer(p, "B")),
            c: vec![0.0; n * n],
        })
    }
}

impl Native for Sgemm {
    fn reset(&mut self) {
        self.c.fill(0.0);
    }
    native_run!(Sgemm, |this| {
        let (n, a, b) = (this.n, &this.a, &this.b);
        if !this.tiled {
            this.c.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
                for (j, c) in row.iter_mut().enumerate() {
                    let mut acc = 0.0f32;
                    for k in 0..n {
                        acc += a[i * n + k] * b[k * n + j];
                    }
                    *c = acc;
                }
            });
        } else {
            const BI: usize = 16;
            const BK: usize = 64;
            this.c
                .par_chunks_mut(n * BI)
                .enumerate()
                .for_each(|(bi, band)| {
                    band.fill(0.0);
                    for k0 in (0..n).step_by(BK) {
                        for (ii, crow) in band.chunks_mut(n).enumerate() {
                            let arow = &a[(bi * BI + ii) * n..][..n];
                            for k in k0..(k0 + BK).min(n) {
                                let aik = arow[k];
                                for (c, b) in crow.iter_mut().zip(&b[k * n..][..n]) {
                                    *c += aik * b;
                                }
                            }
                        }
                    }
                });
        }
    });
    fn check(&self, jit: &[HostBuffer]) -> Result<String, String> {
        // Same k order; the PTX fuses each step. Sums of 512 products of [-1, 1] values.
        check_close(&f32s(found(jit, "C")?), &self.c, 1e-4, "C")
    }
}

/// out[b] = sum of in[512·b .. 512·b + 512] (reduce_shared.cu's blocks): `par_chunks` + `sum`.
struct ReduceBlocks {
    input: Vec<f32>,
    out: Vec<f32>,
}

impl ReduceBlocks {
    fn boxed(l: &Loaded) -> Box<dyn Native> {
        let p = &l.prepared;
        let input = f32s(buffer(p, "in"));
        Box::new(ReduceBlocks {
            out: vec![0.0; input.len() / 512],
            input,
        })
    }
}

impl Native for ReduceBlocks {
    fn reset(&mut self) {
        self.out.fill(0.0);
    }
    native_run!(ReduceBlocks, |this| {
        this.out
            .par_iter_mut()
            .zip(this.input.par_chunks(512))
            .for_each(|(o, c)| *o = c.iter().sum());
    });
    fn check(&self, jit: &[HostBuffer]) -> Result<String, String> {
        // Tree order on the device, sequential here: sums of 512 values in [0, 1).
        check_close(&f32s(found(jit, "out")?), &self.out, 1e-5, "out")
    }
}

/// The total of 16M floats, `par_iter().sum()` (reduce_shfl.cu computes per-CTA partial
/// sums of a grid-stride slice; their total is compared).
struct ReduceTotal {
    input: Vec<f32>,
    total: f32,
}

impl ReduceTotal {
    fn boxed(l: &Loaded) -> Box<dyn Native> {
        let p = &l.prepared;
        Box::new(ReduceTotal {
            input: f32s(buffer(p, "in")),
            total: 0.0,
        })
    }
}

impl Native for ReduceTotal {
    fn reset(&mut self) {
        self.total = 0.0;
    }
    native_run!(ReduceTotal, |this| {
        this.total = this.input.par_iter().sum();
    });
    fn check(&self, jit: &[HostBuffer]) -> Result<String, String> {
        let jit_total: f64 = f32s(found(jit, "out")?).iter().map(|&v| v as f64).sum();
        let want = self.total as f64;
        let e = (jit_total - want).abs() / want.abs().max(1.0);
        let msg = format!("total: rel err {e:.1e} (JIT {jit_total}, native {want})");
        if e <= 1e-4 {
            Ok(msg)
        } else {
            Err(msg)
        }
    }
}

/// 256-bin histogram of bytes: per-task local histograms (`fold`) merged (`reduce`). The same
/// native code stands for both the global- and the shared-atomics kernel.
struct Histogram {
    data: Vec<u8>,
    bins: [u32; 256],
}

impl Histogram {
    fn boxed(l: &Loaded) -> Box<dyn Native> {
        let p = &l.prepared;
        Box::new(Histogram {
            data: buffer(p, "data").bytes.clone(),
            bins: [0; 256],
        })
    }
}

impl Native for Histogram {
    fn reset(&mut self) {
        self.bins = [0; 256];
    }
    native_run!(Histogram, |this| {
        this.bins = this
            .data
            .par_chunks(1 << 16)
            .fold(
                || [0u32; 256],
                |mut h, c| {
                    for &b in c {
                        h[b as usize] += 1;
                    }
                    h
                },
            )
            .reduce(
                || [0u32; 256],
                |mut a, b| {
                    for (a, b) in a.iter_mut().zip(b) {
                        *a += b;
                    }
                    a
                },
            );
    });
    fn check(&self, jit: &[HostBuffer]) -> Result<String, String> {
        let got = u32s(found(jit, "bins")?);
        let bad = got.iter().zip(&self.bins).filter(|(g, w)| g != w).count();
        if bad == 0 {
            Ok("bins: exact".into())
        } else {
            Err(format!("bins: {bad} of 256 bins differ"))
        }
    }
}

/// Escape counts of a 1024 × 768 Mandelbrot image, `par_chunks_mut` over rows.
struct Mandelbrot {
    w: usize,
    x0: f32,
    y0: f32,
    dx: f32,
    dy: f32,
    max_iter: u32,
    out: Vec<u32>,
}

impl Mandelbrot {
    fn boxed(l: &Loaded) -> Box<dyn Native> {
        let (w, h) = (arg_u32(l, 1) as usize, arg_u32(l, 2) as usize);
        Box::new(Mandelbrot {
            w,
            x0: arg_f32(l, 3),
            y0: arg_f32(l, 4),
            dx: arg_f32(l, 5),
            dy: arg_f32(l, 6),
            max_iter: arg_u32(l, 7),
            out: vec![0; w * h],
        })
    }
}

impl Native for Mandelbrot {
    fn reset(&mut self) {
        self.out.fill(0);
    }
    native_run!(Mandelbrot, |this| {
        let (x0, y0, dx, dy, max_iter) = (this.x0, this.y0, this.dx, this.dy, this.max_iter);
        this.out
            .par_chunks_mut(this.w)
            .enumerate()
            .for_each(|(py, row)| {
                let ci = y0 + py as f32 * dy;
                for (px, o) in row.iter_mut().enumerate() {
                    let cr = x0 + px as f32 * dx;
                    let (mut zr, mut zi) = (0.0f32, 0.0f32);
                    let mut it = 0;
                    while it < max_iter {
                        let (zr2, zi2) = (zr * zr, zi * zi);
                        if zr2 + zi2 > 4.0 {
                            break;
                        }
                        zi = 2.0 * zr * zi + ci;
                        zr = zr2 - zi2 + cr;
                        it += 1;
                    }
                    *o = it;
                }
            });
    });
    fn check(&self, jit: &[HostBuffer]) -> Result<String, String> {
        // The PTX fuses c = x0 + p·d and the zi update (fma.rn.f32); a few boundary pixels
        // then escape one iteration apart. Allow 1% of the pixels to differ.
        let got = u32s(found(jit, "out")?);
        let bad = got.iter().zip(&self.out).filter(|(g, w)| g != w).count();
        let msg = format!("out: {bad} of {} pixels differ", got.len());
        if got.len() == self.out.len() && bad * 100 <= got.len() {
            Ok(msg)
        } else {
            Err(msg)
        }
    }
}
