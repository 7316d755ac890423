//! The sanitizer tool of a drop-in program (`PTXJIT_TOOL=memcheck`, which `ptxjit exec
//! --tool memcheck` sets): memcheck's placement from `cuInit` on (red zones, quarantine), its
//! reports on stderr (racecheck, `PTXJIT_TOOL=racecheck`: each launch's shared-memory races,
//! the launch itself succeeding) in compute-sanitizer's shape (`=========` lines), failed
//! copies, memsets and frees as "Program hit ... on CUDA API call to ..." errors, with
//! `PTXJIT_LEAK_CHECK=full` (memcheck) a leak check of the program's device allocations when
//! a context is destroyed and at process exit, and, for every tool, the `ERROR SUMMARY` line.
//! When errors were found the process exits with status 2 (after flushing the program's
//! output), as compute-sanitizer's `--error-exitcode` does.
//!
//! `PTXJIT_TOOL=initcheck` tracks written bytes from `cuInit` on: each launch's loads of
//! never-written device or shared memory are reported after it (the kernel runs on), the
//! copies and memsets of this library mark what they write, and page-locked, managed and
//! registered host memory count as written (the program writes them directly).

use ptxjit::host::tool::{self, Tool};
use std::sync::atomic::{AtomicU64, Ordering};

/// Errors the tool has reported in this process.
static ERRORS: AtomicU64 = AtomicU64::new(0);

/// The labels of the program's own device allocations (what a leak check reports): module
/// variables, the device heap and page-locked host memory are not the program's to free.
/// The driver's names, and the runtime's that ptxjit's libcudart gives its allocations
/// (`PtxjitExports::set_allocation_label`).
pub const USER_ALLOCATIONS: [&str; 11] = [
    "cuMemAlloc",
    "cuMemAllocAsync",
    "cuMemAllocFromPoolAsync",
    "cuMemAllocPitch",
    "cuMemAllocManaged",
    "cudaMalloc",
    "cudaMallocAsync",
    "cudaMallocFromPoolAsync",
    "cudaMallocPitch",
    "cudaMalloc3D",
    "cudaMallocManaged",
];

/// `PTXJIT_TOOL`: the tool asked for, if any (unset or empty: none). Errors: an unknown or
/// unimplemented tool's name, with the list of tools — `cuInit` fails with it rather than run
/// the program unchecked (a typo would otherwise pass a CI job that meant to check).
pub fn tool_from_env() -> Result<Option<Tool>, String> {
    let Some(v) = std::env::var("PTXJIT_TOOL").ok().filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    Tool::parse(&v)
        .map(Some)
        .map_err(|e| format!("PTXJIT_TOOL={v}: {e}"))
}

/// Report one error of the tool: `text` as `=========` lines.
pub fn report(text: &str) {
    ERRORS.fetch_add(1, Ordering::Relaxed);
    eprint!("{}", tool::report_lines(text));
}

/// Whether leaks are reported: memcheck with `PTXJIT_LEAK_CHECK=full` only, as
/// compute-sanitizer checks leaks under memcheck with `--leak-check full` (its default is
/// `none`) and not under the other tools.
static LEAK_CHECK: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Leaks reported so far in this process: (allocations, bytes), for the `LEAK SUMMARY` line.
static LEAKED: std::sync::Mutex<(u64, u64)> = std::sync::Mutex::new((0, 0));

/// `PTXJIT_LEAK_CHECK`: `full` reports leaks (under memcheck), `none`, empty or unset does
/// not, as compute-sanitizer's `--leak-check full|none`. Errors: another value.
pub fn leak_check_from_env() -> Result<bool, String> {
    match std::env::var("PTXJIT_LEAK_CHECK").as_deref() {
        Ok("full") => Ok(true),
        Ok("none") | Ok("") | Err(_) => Ok(false),
        Ok(other) => Err(format!(
            "PTXJIT_LEAK_CHECK={other}: expected full or none (compute-sanitizer's --leak-check)"
        )),
    }
}

/// Reports `leaks` (address, bytes, the call that made it) as memcheck's leak errors when
/// the leak check is on: at a context's destruction (`cuCtxDestroy`,
/// `cuDevicePrimaryCtxReset`, `cudaDeviceReset`), which frees them, and at exit.
pub fn report_leaks(leaks: &[(u64, u64, String)]) {
    if !LEAK_CHECK.load(Ordering::Relaxed) {
        return;
    }
    for (addr, size, label) in leaks {
        report(&format!(
            "Leaked {size} bytes at {addr:#x} (allocated with {label}, never freed)"
        ));
        let mut l = LEAKED.lock().unwrap_or_else(|e| e.into_inner());
        l.0 += 1;
        l.1 += size;
    }
}

/// A failed call of the host API (a copy or memset out of range, a bad free) under a tool:
/// one error, as compute-sanitizer reports "Program hit cudaErrorInvalidValue ... on CUDA
/// API call to cudaMemcpy".
pub fn report_api_error(call: &str, f: &crate::Fail) {
    report(&format!(
        "Program hit {} on CUDA API call to {call}: {}",
        crate::errors::name(f.code),
        f.message
    ));
}

/// Register the exit-time summary (once, at `cuInit` with `tool` on), with a leak check of
/// the program's device allocations under memcheck when `leak_check` is on.
pub fn at_exit(tool: Tool, leak_check: bool) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    LEAK_CHECK.store(tool == Tool::Memcheck && leak_check, Ordering::Relaxed);
    ONCE.call_once(|| {
        // SAFETY: registers a plain `extern "C"` function with no arguments.
        unsafe { libc::atexit(finish) };
    });
}

/// At exit: report leaks (memcheck), print the summary, exit with status 2 if there were
/// errors.
extern "C" fn finish() {
    if LEAK_CHECK.load(Ordering::Relaxed) {
        report_leaks(&crate::state::live_user_allocations());
        let (n, bytes) = *LEAKED.lock().unwrap_or_else(|e| e.into_inner());
        eprintln!("========= LEAK SUMMARY: {bytes} bytes leaked in {n} allocations");
    }
    let n = ERRORS.load(Ordering::Relaxed);
    eprintln!("{}", tool::error_summary(n));
    if n > 0 {
        // SAFETY: flushes every C stdio stream, then ends the process (no unwinding).
        unsafe {
            libc::fflush(std::ptr::null_mut());
            libc::_exit(2);
        }
    }
}
