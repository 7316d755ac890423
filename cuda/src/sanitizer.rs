//! The sanitizer tool of a drop-in program (`PTXJIT_TOOL=memcheck`, which `ptxjit exec
//! --tool memcheck` sets): memcheck's placement from `cuInit` on (red zones, quarantine), its
//! reports on stderr (racecheck, `PTXJIT_TOOL=racecheck`: each launch's shared-memory races,
//! the launch itself succeeding) in compute-sanitizer's shape (`=========` lines), failed
//! API calls as "Program hit ... on CUDA API call to ..." errors ([`driver_call`],
//! [`runtime_call_end`]: `PTXJIT_REPORT_API_ERRORS`), with
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

/// Which failed API calls are errors of the tool (`PTXJIT_REPORT_API_ERRORS`, which `ptxjit
/// exec --report-api-errors` sets), as compute-sanitizer's `--report-api-errors`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApiErrors {
    /// None (`no`).
    No,
    /// The calls the program made (`explicit`, the default): a runtime call that fails is
    /// reported under its own name, and the driver calls that ptxjit's runtime makes for it
    /// are not (those it expects to fail, as `cudaPointerGetAttributes` probing a host
    /// pointer, included); the failed driver call's message is the report's detail.
    Explicit,
    /// Also each failed driver call that ptxjit's runtime makes (`all`), expected ones too.
    All,
}

/// `PTXJIT_REPORT_API_ERRORS`: `all`, `explicit` (also empty or unset) or `no`. Errors:
/// another value.
pub fn api_errors_from_env() -> Result<ApiErrors, String> {
    match std::env::var("PTXJIT_REPORT_API_ERRORS").as_deref() {
        Ok("explicit") | Ok("") | Err(_) => Ok(ApiErrors::Explicit),
        Ok("all") => Ok(ApiErrors::All),
        Ok("no") => Ok(ApiErrors::No),
        Ok(other) => Err(format!(
            "PTXJIT_REPORT_API_ERRORS={other}: expected all, explicit or no \
             (compute-sanitizer's --report-api-errors)"
        )),
    }
}

/// The API errors reported: 0 none (no tool, or `no`), else `ApiErrors::Explicit` as 1 and
/// `ApiErrors::All` as 2. Set once at `cuInit`.
static API_ERRORS: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// The API calls in progress on this thread, for telling the program's calls from the ones
/// ptxjit makes on its behalf.
#[derive(Default)]
struct Calls {
    /// Driver entry points entered and not yet left (an entry point that calls another
    /// counts twice; only the outermost one's failure is the program's).
    driver: u32,
    /// Runtime calls entered and not yet left ([`runtime_call_begin`]).
    runtime: u32,
    /// The message of the last driver call that failed inside the runtime call in progress,
    /// else the runtime's own reason for failing it ([`runtime_call_reason`]): the detail of
    /// the runtime call's report.
    detail: Option<String>,
    /// The reason a driver launch inside the runtime call in progress was refused
    /// ([`refused_in_runtime`]), and whether it goes to stderr when that call ends (not under
    /// a tool, whose report gives it as the call's detail, nor when tracing).
    refusal: Option<(String, bool)>,
}

thread_local! {
    static CALLS: std::cell::RefCell<Calls> = std::cell::RefCell::new(Calls::default());
}

/// Whether failed API calls are reported at all (a tool runs and `PTXJIT_REPORT_API_ERRORS`
/// is not `no`).
pub fn api_errors_reported() -> bool {
    API_ERRORS.load(Ordering::Relaxed) != 0
}

/// Whether a failure is an answer rather than an error: `CUDA_ERROR_NOT_READY` (a query of
/// unfinished work), the look-ups runtimes and loaders make of functions and tables the
/// driver may lack (`cuGetProcAddress`, `cuGetExportTable`: NVIDIA's runtime probes both),
/// and the functions of the private tables NVIDIA's runtime calls for itself (its context
/// storage answers "nothing stored" as it expects; traced as `cuGetExportTable …`).
fn is_answer(call: &str, code: crate::errors::CUresult) -> bool {
    code == crate::errors::CUDA_ERROR_NOT_READY
        || call.starts_with("cuGetProcAddress")
        || call.starts_with("cuGetExportTable")
        // ptxjit's own export-table functions, which only its runtime calls.
        || call.starts_with("ptxjit ")
}

/// The report line of a failed API call, compute-sanitizer's: `Program hit
/// CUDA_ERROR_INVALID_VALUE (error 1) due to "invalid argument" on CUDA API call to
/// cuMemFree_v2.`, then ptxjit's reason on the next line.
fn api_error_text(code_name: &str, code: u32, description: &str, call: &str, why: &str) -> String {
    let mut text = format!(
        "Program hit {code_name} (error {code}) due to \"{description}\" on CUDA API call to {call}."
    );
    if !why.is_empty() {
        text.push_str("\n    ");
        text.push_str(why);
    }
    text
}

/// Around the body of driver entry point `call` (from [`crate::entry`], only while
/// [`api_errors_reported`]): runs it and, when it fails and is the program's own call,
/// reports it as one error of the tool. A call inside a runtime call keeps its message for
/// the runtime call's report (and is reported itself under `all`).
pub fn driver_call(call: &str, body: impl FnOnce() -> crate::DrvResult) -> crate::DrvResult {
    // A call while the thread's storage is being destroyed (a runtime's thread-exit handler
    // releasing its context) runs unchecked.
    if CALLS.try_with(|c| c.borrow_mut().driver += 1).is_err() {
        return body();
    }
    // Decrements the depth however the body ends (a panic unwinds through here to `entry`).
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            let _ = CALLS.try_with(|c| c.borrow_mut().driver -= 1);
        }
    }
    let leave = Leave;
    let r = body();
    drop(leave);
    let Err(f) = &r else {
        return r;
    };
    if is_answer(call, f.code) {
        return r;
    }
    let Ok((outermost, in_runtime)) = CALLS.try_with(|c| {
        let c = c.borrow();
        (c.driver == 0, c.runtime > 0)
    }) else {
        return r;
    };
    if !outermost {
        return r;
    }
    if in_runtime {
        let why = if f.message.is_empty() {
            format!("{call} returned {}", crate::errors::name(f.code))
        } else {
            format!(
                "{call} returned {}: {}",
                crate::errors::name(f.code),
                f.message
            )
        };
        let _ = CALLS.try_with(|c| c.borrow_mut().detail = Some(why));
        if API_ERRORS.load(Ordering::Relaxed) == 2 {
            report(&api_error_text(
                crate::errors::name(f.code),
                f.code,
                crate::errors::description(f.code),
                &format!("{call} (made by the runtime)"),
                &f.message,
            ));
        }
    } else {
        report(&api_error_text(
            crate::errors::name(f.code),
            f.code,
            crate::errors::description(f.code),
            call,
            &f.message,
        ));
    }
    r
}

/// `PtxjitExports::runtime_call_begin`: ptxjit's runtime enters one of its API functions.
pub unsafe extern "C" fn runtime_call_begin() {
    let _ = CALLS.try_with(|c| {
        let mut c = c.borrow_mut();
        if c.runtime == 0 {
            c.detail = None;
            c.refusal = None;
        }
        c.runtime += 1;
    });
}

/// `PtxjitExports::runtime_call_reason`: ptxjit's runtime fails the runtime call in progress
/// on this thread for `len` bytes of UTF-8 at `reason` (its own check, no driver call's
/// failure passed on): the detail of the call's report, in place of the message of a driver
/// call that failed inside it (a probe the runtime made, such as `cuStreamGetFlags` for a
/// launch's stream, whose failure the runtime turned into its own reason). Null or
/// non-UTF-8 text is ignored; nothing here unwinds.
pub unsafe extern "C" fn runtime_call_reason(reason: *const u8, len: usize) {
    if reason.is_null() {
        return;
    }
    // SAFETY: `len` bytes at `reason`, by the caller's promise.
    let bytes = unsafe { std::slice::from_raw_parts(reason, len) };
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    if text.is_empty() {
        return;
    }
    let _ = CALLS.try_with(|c| {
        let mut c = c.borrow_mut();
        if c.runtime > 0 {
            c.detail = Some(text.to_string());
        }
    });
}

/// `PtxjitExports::runtime_call_detail`: the message of the driver call that failed inside
/// the runtime call in progress on this thread (or the runtime's own reason given so far),
/// its first `cap` bytes copied to `buf` (null: none copied); returns its length in bytes, 0
/// when there is none. Nothing here unwinds.
pub unsafe extern "C" fn runtime_call_detail(buf: *mut u8, cap: usize) -> usize {
    let detail = CALLS
        .try_with(|c| c.borrow().detail.clone())
        .ok()
        .flatten()
        .unwrap_or_default();
    if !buf.is_null() {
        let n = detail.len().min(cap);
        // SAFETY: `buf` holds `cap` bytes by the caller's promise, and `n` <= `cap`.
        unsafe { std::ptr::copy_nonoverlapping(detail.as_ptr(), buf, n) };
    }
    detail.len()
}

/// `PtxjitExports::runtime_call_end`: ptxjit's runtime leaves API function `name` (`len`
/// bytes of UTF-8, not NUL-terminated) with `code`, a `cudaError_t` named `code_name`
/// (`cudaErrorInvalidValue`) and described by `description` (`cudaGetErrorString`'s text;
/// both NUL-terminated). When it fails with an error and is the outermost runtime call, the
/// tool reports it (with the message of the driver call that failed inside it, if one did);
/// without a tool, the reason a driver launch inside it was refused goes to stderr under
/// `name` and `code_name` (`ptxjit: cudaLaunchKernelExC: kernel … (cudaErrorInvalidClusterSize)`),
/// once per distinct reason. Null or non-UTF-8 strings are reported as `?`; nothing here
/// unwinds.
pub unsafe extern "C" fn runtime_call_end(
    name: *const u8,
    len: usize,
    code: u32,
    code_name: *const std::ffi::c_char,
    description: *const std::ffi::c_char,
) {
    let r = std::panic::catch_unwind(|| {
        let Ok(left) = CALLS.try_with(|c| {
            let mut c = c.borrow_mut();
            c.runtime = c.runtime.saturating_sub(1);
            if c.runtime == 0 {
                Some((c.detail.take(), c.refusal.take()))
            } else {
                None
            }
        }) else {
            return;
        };
        // Not the outermost runtime call, a success, or cudaErrorNotReady (600, a query of
        // unfinished work: an answer, not an error).
        let Some((detail, refusal)) = left else {
            return;
        };
        if code == 0 || code == 600 {
            return;
        }
        let name = if name.is_null() {
            "?"
        } else {
            // SAFETY: `len` bytes at `name`, by the caller's promise.
            std::str::from_utf8(unsafe { std::slice::from_raw_parts(name, len) }).unwrap_or("?")
        };
        let text_of = |p: *const std::ffi::c_char| {
            if p.is_null() {
                "?".to_string()
            } else {
                // SAFETY: non-null and NUL-terminated by the caller's promise.
                unsafe { std::ffi::CStr::from_ptr(p) }
                    .to_str()
                    .unwrap_or("?")
                    .to_string()
            }
        };
        if let Some((refusal, true)) = &refusal {
            say_once(name, refusal, &text_of(code_name));
        }
        if !api_errors_reported() {
            return;
        }
        // A refused launch's reason is the runtime call's detail as it is (it names the
        // kernel), not as the driver call's failure (`cuLaunchKernel returned …`): the
        // program called the runtime.
        let detail = refusal.map(|(r, _)| r).or(detail);
        report(&api_error_text(
            &text_of(code_name),
            code,
            &text_of(description),
            name,
            detail.as_deref().unwrap_or(""),
        ));
    });
    if r.is_err() {
        eprintln!("ptxjit: internal error in runtime_call_end (a bug in ptxjit; please report it)");
    }
}

/// Keeps `message`, why a driver launch was refused, for the end of the runtime call in
/// progress on this thread ([`runtime_call_end`] prints it under the runtime function's
/// name when `say`, and a tool's report of the call gives it as its detail); false when no
/// runtime call is in progress (the program called the driver itself).
pub fn refused_in_runtime(message: &str, say: bool) -> bool {
    CALLS
        .try_with(|c| {
            let mut c = c.borrow_mut();
            if c.runtime == 0 {
                return false;
            }
            c.refusal = Some((message.to_string(), say));
            true
        })
        .unwrap_or(false)
}

/// Whether a runtime call (ptxjit's libcudart) is in progress on this thread: what the
/// driver does now, it does for the runtime, and its messages use the runtime's words.
pub fn in_runtime_call() -> bool {
    CALLS.try_with(|c| c.borrow().runtime > 0).unwrap_or(false)
}

/// Prints `ptxjit: CALL: MESSAGE (CODE)` on stderr, the reason API function `call` was
/// refused, unless the same message was printed before (a loop of refused launches says why
/// once).
pub fn say_once(call: &str, message: &str, code: &str) {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    if let Ok(mut said) = SAID.lock() {
        if !said.iter().any(|m| m == message) {
            said.push(message.to_string());
            eprintln!("ptxjit: {call}: {message} ({code})");
        }
    }
}

/// Register the exit-time summary (once, at `cuInit` with `tool` on), with a leak check of
/// the program's device allocations under memcheck when `leak_check` is on, and failed API
/// calls reported as `api_errors` says.
pub fn at_exit(tool: Tool, leak_check: bool, api_errors: ApiErrors) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    LEAK_CHECK.store(tool == Tool::Memcheck && leak_check, Ordering::Relaxed);
    let mode = match api_errors {
        ApiErrors::No => 0,
        ApiErrors::Explicit => 1,
        ApiErrors::All => 2,
    };
    API_ERRORS.store(mode, Ordering::Relaxed);
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
