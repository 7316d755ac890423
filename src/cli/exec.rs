//! `ptxjit exec`: run an unmodified CUDA program on ptxjit, as `compute-sanitizer ./app` runs
//! one under a tool. The program's loader finds ptxjit's `libcuda.so.1` (the `cuda` crate of
//! this workspace, built next to the `ptxjit` binary) and `libcudart.so.13`/`.12` (the
//! `cudart` crate, for programs built by nvcc) through `LD_LIBRARY_PATH`; the options
//! become the library's `PTXJIT_*` environment variables.

use super::{fail, EngineArg};
use clap::Args;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// `ptxjit exec`.
#[derive(Args, Debug)]
#[command(
    after_help = "Example:\n  ptxjit exec -- python3 my_numba_script.py\n  ptxjit exec --engine interp --memcheck -- ./app\n  ptxjit exec --tool memcheck -- ./app\n\nThe program also gets CUPY_COMPILE_WITH_PTX=1 unless its environment sets that variable:\nCuPy then compiles its kernels to PTX, which ptxjit runs (by default it asks NVRTC for\nSASS, machine code for a GPU)."
)]
pub struct ExecArgs {
    /// Engine that runs the program's kernels (sets PTXJIT_ENGINE; without it, PTXJIT_ENGINE
    /// as already set, else the JIT).
    #[arg(long, value_enum)]
    pub engine: Option<EngineArg>,
    /// Check global accesses against exact allocation bounds (PTXJIT_MEMCHECK=1).
    #[arg(long)]
    pub memcheck: bool,
    /// Run under a sanitizer tool (PTXJIT_TOOL): every tool reports failed CUDA API calls
    /// (see --report-api-errors); memcheck reports bad accesses and (with --leak-check full) leaked device allocations,
    /// synccheck barrier and membermask misuse, initcheck loads of
    /// never-written device and shared memory, racecheck shared-memory data races between
    /// threads of a block, as `=========` lines on stderr, ends with
    /// `========= ERROR SUMMARY: N errors`, and makes the program exit with status 2 when
    /// N > 0.
    #[arg(long, value_name = "TOOL", value_parser = crate::host::tool::Tool::parse)]
    pub tool: Option<crate::host::tool::Tool>,
    /// With --tool memcheck: report device allocations still live when their context is
    /// destroyed (`cudaDeviceReset`, `cuCtxDestroy`) or at exit, each an error, and a
    /// `LEAK SUMMARY` line (PTXJIT_LEAK_CHECK), as compute-sanitizer's --leak-check; `none`
    /// (the default) does not check.
    #[arg(long, value_name = "full|none", value_parser = ["full", "none"])]
    pub leak_check: Option<String>,
    /// With --tool: which failed CUDA API calls are errors of the tool
    /// (PTXJIT_REPORT_API_ERRORS), as compute-sanitizer's --report-api-errors: `explicit` (the
    /// default) the calls the program made, each as `Program hit CODE (error N) due to
    /// "DESCRIPTION" on CUDA API call to NAME.`; `all` also the driver calls that ptxjit's
    /// runtime makes for them; `no` none.
    #[arg(long, value_name = "all|explicit|no", value_parser = ["all", "explicit", "no"])]
    pub report_api_errors: Option<String>,
    /// With --tool racecheck: also races on global memory between threads of one block
    /// (PTXJIT_RACECHECK_GLOBAL=1).
    #[arg(long)]
    pub racecheck_global: bool,
    /// Abort a launch that runs longer than this many seconds (PTXJIT_TIMEOUT).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// The order of CTAs and warps (PTXJIT_SCHEDULE): fixed (default), or shuffle[:SEED] to run
    /// the CTAs one at a time and the CTAs and warps in an order drawn from SEED (a seed from
    /// the clock when none is given; it is printed on stderr), as for `ptxjit run`.
    #[arg(long, value_name = "fixed|shuffle[:SEED]", value_parser = crate::host::Schedule::parse)]
    pub schedule: Option<crate::host::Schedule>,
    /// Run every warp in lockstep order (PTXJIT_LOCKSTEP=1), for warp-synchronous code without
    /// `__syncwarp` in modules that target sm_70 or later, as for `ptxjit run`.
    #[arg(long)]
    pub lockstep: bool,
    /// Print one line per driver API call with its result on stderr (PTXJIT_TRACE=1).
    #[arg(long)]
    pub trace: bool,
    /// Compute capability the device reports (PTXJIT_CC), e.g. 9.0; default 8.0. From 5.0 to
    /// 12.9; another value is rejected here (exit 2).
    #[arg(long, value_name = "MAJOR.MINOR", value_parser = cc_arg)]
    pub cc: Option<String>,
    /// Directory holding ptxjit's libcuda.so.1 and libcudart.so (default: the ptxjit binary's directory).
    #[arg(long, value_name = "DIR")]
    pub lib_dir: Option<PathBuf>,
    /// The program and its arguments.
    #[arg(
        trailing_var_arg = true,
        required = true,
        value_name = "PROGRAM [ARGS]..."
    )]
    pub command: Vec<OsString>,
}

/// The directory to put first on the program's library path: one that holds `libcuda.so.1`
/// and, when the runtime library was built beside it, `libcudart.so.13` and `libcudart.so.12`.
fn library_dir(explicit: Option<&Path>) -> Result<PathBuf, String> {
    let dir = match explicit {
        Some(d) => d.to_path_buf(),
        None => std::env::current_exe()
            .map_err(|e| format!("cannot find the ptxjit binary's directory: {e}"))?
            .parent()
            .map(Path::to_path_buf)
            .ok_or("the ptxjit binary has no directory")?,
    };
    let cudart = dir.join("libcudart.so");
    let cudart_linked = !cudart.exists()
        || ["libcudart.so.13", "libcudart.so.12"]
            .iter()
            .all(|n| dir.join(n).exists());
    if dir.join("libcuda.so.1").exists() && cudart_linked {
        return Ok(dir);
    }
    let lib = dir.join("libcuda.so");
    if !lib.exists() && !dir.join("libcuda.so.1").exists() {
        return Err(format!(
            "no libcuda.so.1 or libcuda.so in {} (build the drop-in library with `cargo build --release`, or pass --lib-dir)",
            dir.display()
        ));
    }
    // Libraries without the names the loader asks for: give it those names in a directory
    // of our own.
    let own = std::env::temp_dir().join(format!("ptxjit-lib-{}", std::process::id()));
    std::fs::create_dir_all(&own).map_err(|e| format!("{}: {e}", own.display()))?;
    let mut links = vec![(
        "libcuda.so.1",
        if lib.exists() {
            lib
        } else {
            dir.join("libcuda.so.1")
        },
    )];
    if cudart.exists() {
        links.push(("libcudart.so.13", cudart.clone()));
        links.push(("libcudart.so.12", cudart));
    }
    for (name, target) in links {
        let link = own.join(name);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&target, &link)
            .map_err(|e| format!("{}: {e}", link.display()))?;
    }
    Ok(own)
}

/// Runs the program in place of this process; returns only on failure (exit code 2).
pub fn exec(a: &ExecArgs) -> u8 {
    use std::os::unix::process::CommandExt;
    let dir = match library_dir(a.lib_dir.as_deref()) {
        Ok(d) => d,
        Err(e) => return fail(e),
    };
    if let Err(e) = super::timeout(a.timeout) {
        return fail(e);
    }
    if a.racecheck_global && a.tool != Some(crate::host::tool::Tool::Racecheck) {
        return fail(super::RACECHECK_GLOBAL_ALONE);
    }
    if a.leak_check.as_deref() == Some("full") && a.tool != Some(crate::host::tool::Tool::Memcheck)
    {
        return fail("--leak-check full needs --tool memcheck (leaks are memcheck's errors)");
    }
    let Some((program, args)) = a.command.split_first() else {
        return fail("no program to run");
    };
    let mut path = OsString::from(&dir);
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|p| !p.is_empty()) {
        path.push(":");
        path.push(old);
    }
    let mut cmd = std::process::Command::new(program);
    // Ctrl-C stops the launch in progress with a report of where its warps were, then ends
    // the program (cuda/src/interrupt.rs).
    cmd.args(args)
        .env("LD_LIBRARY_PATH", path)
        .env("PTXJIT_INTERRUPT", "1");
    // CuPy compiles its kernels with NVRTC to SASS for the device's architecture unless this
    // variable asks for PTX; SASS does not run here, so a CuPy program would fail at its first
    // kernel with CUDA_ERROR_NO_BINARY_FOR_GPU. A user's own setting is kept.
    if std::env::var_os(CUPY_PTX).is_none() {
        cmd.env(CUPY_PTX, "1");
    }
    if let Some(e) = a.engine {
        let name = match e {
            EngineArg::Jit => "jit",
            EngineArg::Interp => "interp",
        };
        cmd.env("PTXJIT_ENGINE", name);
    }
    if a.memcheck {
        cmd.env("PTXJIT_MEMCHECK", "1");
    }
    if let Some(t) = a.tool {
        cmd.env("PTXJIT_TOOL", t.name());
    }
    if let Some(s) = a.schedule {
        // A seed drawn here is passed on, so the library repeats it (and prints it).
        cmd.env("PTXJIT_SCHEDULE", s.to_string());
    }
    if a.lockstep {
        cmd.env("PTXJIT_LOCKSTEP", "1");
    }
    if a.racecheck_global {
        cmd.env("PTXJIT_RACECHECK_GLOBAL", "1");
    }
    if let Some(l) = &a.leak_check {
        cmd.env("PTXJIT_LEAK_CHECK", l);
    }
    if let Some(r) = &a.report_api_errors {
        cmd.env("PTXJIT_REPORT_API_ERRORS", r);
    }
    if let Some(t) = a.timeout {
        cmd.env("PTXJIT_TIMEOUT", t.to_string());
    }
    if a.trace {
        cmd.env("PTXJIT_TRACE", "1");
    }
    if let Some(cc) = &a.cc {
        cmd.env("PTXJIT_CC", cc);
    }
    let err = cmd.exec();
    fail(format!(
        "cannot run {}: {err}",
        Path::new(program).display()
    ))
}

/// CuPy's variable that makes it compile kernels to PTX (`cupy/cuda/compiler.py`).
const CUPY_PTX: &str = "CUPY_COMPILE_WITH_PTX";

/// Checks `--cc` (the form the drop-in driver accepts in `PTXJIT_CC`) and keeps its text.
fn cc_arg(s: &str) -> Result<String, String> {
    crate::host::parse_compute_capability(s).map(|_| s.to_string())
}
