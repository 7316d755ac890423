//! The `ptxjit` command line: `run` (a case file or an ad-hoc launch), `check` (interpreter vs
//! JIT, bit for bit), `dump` (IR / AST), `compile` (CUDA C++ to PTX with NVRTC,
//! [`crate::nvrtc`]) and `fuzz` (differential fuzzing, [`crate::fuzz::cli`]).
//! `src/main.rs` only calls [`main`].
//!
//! Exit codes: 0 success (every expectation passed), 1 a mismatch (or, for `check`, a
//! difference between the engines), 2 an error (printed to stderr as `error: <message>`; with
//! `--json` in the `error` field instead).

mod adhoc;
mod check;
mod compile;
mod dump;
mod exec;
mod output;
mod run;

use crate::host::Engine;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// Run NVIDIA PTX kernels on the CPU: a Cranelift JIT and a reference interpreter.
#[derive(Parser, Debug)]
#[command(name = "ptxjit", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a case file (or an ad-hoc launch) and check its expectations.
    Run(RunArgs),
    /// Run a case on the interpreter and on the JIT and compare every buffer bit for bit.
    Check(CheckArgs),
    /// Print the verified IR (--ir) or the parsed AST (--ast) of a PTX file.
    Dump(DumpArgs),
    /// Compile CUDA C++ (a .cu file) to PTX with NVIDIA's NVRTC (from the pip wheel
    /// nvidia-cuda-nvrtc-cu12, loaded at run time).
    Compile(CompileArgs),
    /// Differential fuzzing: random kernels on the interpreter and the JIT, compared bit for
    /// bit; a failure is shrunk and written as a regression case.
    Fuzz(crate::fuzz::cli::FuzzArgs),
    /// Run an unmodified CUDA program (numba, cuda-python, a binary using the driver API) on
    /// ptxjit's drop-in libcuda.so.1.
    Exec(exec::ExecArgs),
    /// Print the PTX ISA coverage report (Markdown, as docs/coverage.md): every instruction,
    /// supported or not, with the forms supported, checked against the front end now.
    Coverage,
}

/// Which engine runs the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// The Cranelift JIT (one native call runs a warp).
    Jit,
    /// The reference interpreter.
    Interp,
}

impl From<EngineArg> for Engine {
    fn from(e: EngineArg) -> Engine {
        match e {
            EngineArg::Jit => Engine::Jit,
            EngineArg::Interp => Engine::Interp,
        }
    }
}

const ADHOC_HELP: &str = "\
Ad-hoc launch (instead of CASE.toml):
  ptxjit run --ptx FILE.ptx --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] [--shared-bytes N]
             [--max-dynamic-shared-bytes N] --arg SPEC ... [--dump NAME=PATH]
  --arg SPEC, one per kernel parameter, in declaration order:
    TYPE=VALUE                     a scalar; TYPE: u8 u16 u32 u64 s8 s16 s32 s64 f32 f64
                                   (VALUE: 42, -1, 0x2A, 2.5, 1e-3, nan, inf, 0f3F800000)
    buf:NAME:TYPE[:LEN][=INIT]     a new buffer and its device address; TYPE also f16 bf16
      INIT: zero (default) | fill:V | iota[:START[:STEP]] | random:SEED[:MIN:MAX]
            | values:V1,V2,... | file:PATH.npy|PATH.bin   (LEN may be omitted for values/file)
    ptr:NAME[+BYTES]               the address of an earlier buffer, plus an offset
  --expect NAME=FILE[:TOLERANCE]   buffer NAME must then equal FILE.npy|FILE.bin (exit 1 if not)
  Example:
    ptxjit run --ptx saxpy.ptx --kernel saxpy --grid 4 --block 256 --arg u32=1024 --arg f32=2.0 \\
               --arg buf:x:f32:1024=iota --arg buf:y:f32:1024=fill:1.5 --dump y=y.npy";

/// `ptxjit run`.
///
/// The ad-hoc launch options each conflict with `CASE.toml` as well as requiring `--ptx`:
/// clap does not check `requires` when the required argument (`--ptx`) conflicts with one
/// that was given (the case), so `run case.toml --grid 8` would otherwise ignore `--grid`.
#[derive(Args, Debug)]
#[command(after_help = ADHOC_HELP)]
pub struct RunArgs {
    /// The case file (see docs/case-format.md).
    #[arg(
        value_name = "CASE.toml",
        required_unless_present = "ptx",
        conflicts_with = "ptx"
    )]
    pub case: Option<PathBuf>,
    /// Engine to run on.
    #[arg(long, value_enum, default_value = "jit")]
    pub engine: EngineArg,
    /// One warm-up launch, then N timed launches (buffers re-initialised before each);
    /// reports min/median/max kernel time. 0 (the default): the one launch alone, so
    /// `--repeat 1` minus `--repeat 0` is the cost of one launch without compiling.
    #[arg(long, value_name = "N", default_value_t = 0, allow_negative_numbers = true,
          value_parser = parse_repeat)]
    pub repeat: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Check global accesses against exact allocation bounds (faults name the nearest buffer);
    /// the same as --tool memcheck.
    #[arg(long)]
    pub memcheck: bool,
    /// Run under a sanitizer tool: memcheck (out-of-bounds, misaligned, use after free,
    /// double and invalid free, with red zones between buffers); racecheck (data races on
    /// shared memory between threads of a block); synccheck (`__syncthreads` reached by part
    /// of a warp or block, mismatched barrier thread counts, `__syncwarp` and `*_sync`
    /// membermasks that name exited lanes or disagree); initcheck (loads of global and shared
    /// memory nobody wrote; a buffer without `init` starts unwritten). The report ends with
    /// `========= ERROR SUMMARY: N
    /// errors`; the exit status is 2 when there are errors.
    #[arg(long, value_name = "TOOL", value_parser = crate::host::tool::Tool::parse)]
    pub tool: Option<crate::host::tool::Tool>,
    /// With --tool racecheck: also report races on global memory between threads of one
    /// block (every global access is then checked, which costs more).
    #[arg(long)]
    pub racecheck_global: bool,
    /// Abort a launch that runs longer than this many seconds (more than 0, under 1e9).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// The order of CTAs and warps: fixed (default), or shuffle[:SEED] to run the CTAs one
    /// at a time and the CTAs and warps in an order drawn from SEED (a seed from the clock
    /// when none is given; it is printed on stderr), so that results that depend on the
    /// order show up; the same seed repeats the run.
    #[arg(long, value_name = "fixed|shuffle[:SEED]", default_value = "fixed", value_parser = crate::host::Schedule::parse)]
    pub schedule: crate::host::Schedule,
    /// Run every warp in lockstep order (each instruction for the whole warp before the
    /// next), for warp-synchronous code without `__syncwarp` in a module that targets sm_70 or
    /// later; modules for older targets always run so. Slower: see README's "Warp order".
    #[arg(long)]
    pub lockstep: bool,
    /// Write a buffer after the launch: NAME=PATH.npy or NAME=PATH.bin (repeatable).
    #[arg(long, value_name = "NAME=PATH")]
    pub dump: Vec<String>,
    /// Write a u8 (or f32 in [0, 1]) buffer as a PNG image (repeatable); CHANNELS is 1 to 4.
    #[arg(long, value_name = "NAME=PATH:WIDTHxHEIGHTxCHANNELS")]
    pub png: Vec<String>,
    /// Ad-hoc launch: the PTX file, or a CUDA C++ file (.cu) to compile with NVRTC (cached).
    #[arg(long, value_name = "FILE.ptx|FILE.cu", help_heading = "Ad-hoc launch")]
    pub ptx: Option<PathBuf>,
    /// Ad-hoc launch: the kernel (entry) name.
    #[arg(
        long,
        value_name = "NAME",
        requires = "ptx",
        conflicts_with = "case",
        help_heading = "Ad-hoc launch"
    )]
    pub kernel: Option<String>,
    /// Ad-hoc launch: CTAs per dimension.
    #[arg(
        long,
        value_name = "X[,Y[,Z]]",
        requires = "ptx",
        conflicts_with = "case",
        help_heading = "Ad-hoc launch"
    )]
    pub grid: Option<String>,
    /// Ad-hoc launch: threads per CTA.
    #[arg(
        long,
        value_name = "X[,Y[,Z]]",
        requires = "ptx",
        conflicts_with = "case",
        help_heading = "Ad-hoc launch"
    )]
    pub block: Option<String>,
    /// Ad-hoc launch: dynamic shared memory in bytes.
    #[arg(
        long,
        value_name = "N",
        requires = "ptx",
        conflicts_with = "case",
        help_heading = "Ad-hoc launch"
    )]
    pub shared_bytes: Option<u32>,
    /// Ad-hoc launch: the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize in bytes,
    /// needed for --shared-bytes above 48 KiB.
    #[arg(
        long,
        value_name = "N",
        requires = "ptx",
        conflicts_with = "case",
        help_heading = "Ad-hoc launch"
    )]
    pub max_dynamic_shared_bytes: Option<u32>,
    /// Ad-hoc launch: one kernel argument (see below; repeat in parameter order).
    #[arg(
        long = "arg",
        value_name = "SPEC",
        requires = "ptx",
        conflicts_with = "case",
        help_heading = "Ad-hoc launch",
        allow_hyphen_values = true
    )]
    pub args: Vec<String>,
    /// Ad-hoc launch: after the launch, buffer NAME must equal FILE (.npy or .bin), within
    /// TOLERANCE if given (exact, abs=A, rel=R, ulp=U, or several: abs=A,rel=R); repeatable.
    #[arg(
        long,
        value_name = "NAME=FILE[:TOLERANCE]",
        requires = "ptx",
        conflicts_with = "case",
        help_heading = "Ad-hoc launch"
    )]
    pub expect: Vec<String>,
    #[command(flatten)]
    pub cuda: CudaSourceArgs,
}

/// How `run` and `check` compile a `.cu` module (a case's `ptx`, or `--ptx FILE.cu`).
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "CUDA C++ modules (.cu)")]
pub struct CudaSourceArgs {
    /// Add a directory to NVRTC's include path for .cu modules (repeatable; searched first).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a macro for .cu modules (repeatable).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// A further NVRTC option for .cu modules, passed as it is after the others (repeatable):
    /// --nvrtc-opt=-use_fast_math --nvrtc-opt=--std=c++20.
    #[arg(long = "nvrtc-opt", value_name = "OPTION", allow_hyphen_values = true)]
    pub nvrtc_opt: Vec<String>,
}

impl CudaSourceArgs {
    /// The NVRTC options: [`crate::nvrtc::run_options`] (with `-lineinfo`) plus these.
    pub fn options(&self) -> crate::nvrtc::CompileOptions {
        crate::nvrtc::CompileOptions {
            include_dirs: self.include.clone(),
            defines: self.define.clone(),
            extra: self.nvrtc_opt.clone(),
            ..crate::nvrtc::run_options()
        }
    }
}

/// `--repeat N`: a count of timed launches, 0 to 4294967295 (clap's own message for `-1` would
/// be "unexpected argument", as if the number were an option).
fn parse_repeat(s: &str) -> Result<u32, String> {
    s.trim().parse::<u32>().map_err(|_| {
        format!(
            "'{s}' is not a count of launches: --repeat takes a whole number from 0 (the one \
             launch alone, the default) to {} (one warm-up launch, then N timed ones)",
            u32::MAX
        )
    })
}

/// Say which seed a shuffled schedule drew (on stderr), so that the run can be repeated.
fn print_schedule(s: crate::host::Schedule) {
    if s != crate::host::Schedule::Fixed {
        eprintln!("schedule: {s} (--schedule {s} repeats this order)");
    }
}

/// The error of `--racecheck-global` without `--tool racecheck`.
const RACECHECK_GLOBAL_ALONE: &str =
    "--racecheck-global needs --tool racecheck (it adds global memory to racecheck's checks)";

/// `ptxjit check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The case file.
    #[arg(value_name = "CASE.toml")]
    pub case: PathBuf,
    /// Check global accesses against exact allocation bounds.
    #[arg(long)]
    pub memcheck: bool,
    /// Abort a launch that runs longer than this many seconds (more than 0, under 1e9).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// The order of CTAs and warps on both engines: fixed, or shuffle[:SEED] (as for run).
    #[arg(long, value_name = "fixed|shuffle[:SEED]", default_value = "fixed", value_parser = crate::host::Schedule::parse)]
    pub schedule: crate::host::Schedule,
    /// Lockstep order in every warp on both engines (as for run).
    #[arg(long)]
    pub lockstep: bool,
    #[command(flatten)]
    pub cuda: CudaSourceArgs,
}

/// `ptxjit dump`.
#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("what").required(true).args(["ir", "ast"]))]
pub struct DumpArgs {
    /// Print the verified IR of every kernel.
    #[arg(long)]
    pub ir: bool,
    /// Print the parsed AST (Rust Debug form).
    #[arg(long)]
    pub ast: bool,
    /// The PTX file.
    #[arg(value_name = "FILE.ptx")]
    pub file: PathBuf,
}

/// `ptxjit compile`.
#[derive(Args, Debug)]
#[command(after_help = COMPILE_HELP)]
pub struct CompileArgs {
    /// The CUDA C++ source.
    #[arg(value_name = "KERNEL.cu")]
    pub source: PathBuf,
    /// Where to write the PTX (default: KERNEL.ptx beside the source; - for stdout).
    #[arg(short = 'o', value_name = "FILE.ptx")]
    pub output: Option<PathBuf>,
    /// The virtual GPU architecture the PTX is for.
    #[arg(long, value_name = "compute_XY", default_value = "compute_80")]
    pub arch: String,
    /// Emit line information (.file/.loc directives); also spelled -lineinfo.
    #[arg(long)]
    pub lineinfo: bool,
    /// Add a directory to the include path (repeatable; searched first).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a macro (repeatable).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// Further NVRTC options, passed as they are (after --), e.g. -- --device-int128.
    #[arg(last = true, value_name = "NVRTC_OPTION")]
    pub nvrtc: Vec<String>,
}

const COMPILE_HELP: &str = "\
NVRTC: libnvrtc.so.12 from PTXJIT_NVRTC=/path/to/libnvrtc.so.12, or else from the active Python
environment ($VIRTUAL_ENV, then python3's sys.path), where these install it and the headers:
  python3 -m pip install nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12 nvidia-cuda-cccl-cu12
Options given to NVRTC: --gpu-architecture=ARCH -default-device --std=c++17, the -D and -I
options, then -I for the source's directory, CCCL's headers (CUB, Thrust, libcu++) and the CUDA
runtime's (cooperative_groups.h, cuda_fp16.h, ...); the C standard headers device code uses
(<assert.h>, <stdio.h>, <stdint.h>, <stddef.h>, <limits.h>, <float.h>, <math.h>, <stdlib.h>
and their <c...> forms) are provided.
Errors print NVRTC's log (file:line: error: ...) and exit with code 2.
`ptxjit run` and `ptxjit check` compile a .cu file given as the case's ptx or as --ptx the
same way (with -lineinfo, so that faults name the CUDA line, and their own -I/-D), caching
the PTX in $PTXJIT_CACHE_DIR, $XDG_CACHE_HOME/ptxjit or ~/.cache/ptxjit.";

/// NVRTC spells some options with one dash (`-lineinfo`); clap takes `--lineinfo`. Rewrite
/// those before the first `--` (after it, options go to NVRTC as they are).
fn nvcc_style(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut passthrough = false;
    args.map(|a| {
        passthrough |= a == "--";
        if !passthrough && a == "-lineinfo" {
            "--lineinfo".into()
        } else {
            a
        }
    })
    .collect()
}

/// Parse the command line and run it; the process exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(nvcc_style(std::env::args_os())) {
        Ok(c) => c,
        Err(e) => {
            // Help and --version exit 0; usage errors exit 2 with clap's message.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    // The hang note names the command's own option for a time limit.
    crate::host::hang_note::set_front_end(crate::host::hang_note::FrontEnd {
        limit: "--timeout SECONDS",
        interrupt: None,
    });
    // Ctrl-C stops the launch in progress, which reports where its warps were (an
    // `interrupted` error); a second Ctrl-C exits at once.
    let presses = std::sync::atomic::AtomicU32::new(0);
    let installed = ctrlc::set_handler(move || {
        if presses.fetch_add(1, std::sync::atomic::Ordering::SeqCst) > 0 {
            std::process::exit(130);
        }
        crate::runtime::launch::INTERRUPT.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    if installed.is_ok() {
        crate::runtime::launch::INTERRUPTIBLE.store(true, std::sync::atomic::Ordering::SeqCst);
    }
    ExitCode::from(run_command(cli.command))
}

/// Run one command; the exit code (0, 1 or 2).
pub fn run_command(cmd: Command) -> u8 {
    match cmd {
        Command::Run(a) => run::run(&a),
        Command::Check(a) => check::check(&a),
        Command::Dump(a) => dump::dump(&a),
        Command::Compile(a) => compile::compile(&a),
        Command::Fuzz(a) => crate::fuzz::cli::run(&a),
        Command::Exec(a) => exec::exec(&a),
        Command::Coverage => {
            print!("{}", crate::coverage::report());
            0
        }
    }
}

/// Print `error: <message>` to stderr; exit code 2.
fn fail(msg: impl std::fmt::Display) -> u8 {
    eprintln!("error: {msg}");
    2
}

/// The longest `--timeout`, in seconds (about 31.7 years), as the drop-in library's
/// `PTXJIT_TIMEOUT`: a deadline this far ahead is still a valid point in time.
const MAX_TIMEOUT_S: f64 = 1e9;

/// `--timeout SECONDS` checked: more than 0 and less than [`MAX_TIMEOUT_S`].
fn timeout(secs: Option<f64>) -> Result<Option<std::time::Duration>, String> {
    secs.map(|s| {
        // Large values as written (`1e300`), not as 300 digits.
        let shown = if s.abs() >= 1e15 {
            format!("{s:e}")
        } else {
            s.to_string()
        };
        if s.is_nan() || s <= 0.0 {
            return Err(format!(
                "--timeout {shown}: expected a number of seconds > 0 (leave --timeout out for no limit)"
            ));
        }
        if s >= MAX_TIMEOUT_S {
            return Err(format!(
                "--timeout {shown}: too large: the limit must be under {MAX_TIMEOUT_S:e} seconds \
                 (about 31 years); leave --timeout out for no limit"
            ));
        }
        Ok(std::time::Duration::from_secs_f64(s))
    })
    .transpose()
}
