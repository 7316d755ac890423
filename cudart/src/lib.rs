//! A drop-in `libcudart.so` (soname `libcudart.so.13`): the CUDA runtime API as a translation
//! onto the driver API, so programs built by nvcc (`--cudart shared`) run their kernels on the
//! CPU through ptxjit's `libcuda.so.1`.
//!
//! # Shape
//! - Like NVIDIA's runtime, this library loads `libcuda.so.1` at first use ([`driver`]) and
//!   calls its `cu*` functions; it shares no Rust state with the `cuda` crate, so programs
//!   that mix runtime and driver calls see one context, one address space and one set of
//!   modules.
//! - nvcc's host code registers each translation unit's fatbin and its kernels and variables
//!   at start-up ([`register`]); a module is loaded into the primary context when one of its
//!   kernels or variables is first used, and kernels are launched by their host stubs'
//!   addresses ([`launch`]).
//! - Every exported function is `extern "C"` under the runtime's ABI name and runs through
//!   [`entry`]: panics never unwind into C, the result becomes the thread's last error
//!   (`cudaGetLastError`), and `PTXJIT_TRACE=1` prints one line per call with its result.
//! - Functions that are not implemented exist (so programs load) and answer
//!   `cudaErrorNotSupported` (`stubs.rs`, generated with `docs/runtime-api.md` by
//!   `cudart/gen/gen_runtime.py`).
//! - Errors are the runtime's: a driver `CUresult` becomes the `cudaError_t` of the generated
//!   table ([`errors::FROM_DRIVER`], every code of `cuda.h` decided); the thread's last error
//!   and sticky errors are in [`state`].
//! - One library serves programs of CUDA 13 and 12 (`libcudart.so.13`, `libcudart.so.12`): the
//!   symbol versions of both are defined (cudart/libcudart.map), and where the two ABIs differ
//!   under one name the CUDA 12 function has its own symbol (`cudaGetDeviceProperties_v2`).
//!
//! # Environment
//! Read by the driver library (`PTXJIT_ENGINE`, `PTXJIT_MEMCHECK`, `PTXJIT_TIMEOUT`,
//! `PTXJIT_CC`), and `PTXJIT_TRACE=1`, which this library also follows: one line per runtime
//! call, and per driver call it makes, with the result on stderr. Under a sanitizer tool
//! (`PTXJIT_TOOL`) each runtime call tells ptxjit's driver where it begins and ends, so that
//! the tool reports a failed call under the runtime's name and not the driver calls made for
//! it ([`driver::runtime_call_end`]).

#![allow(non_snake_case, non_upper_case_globals)]
// Every exported function takes raw pointers from C and checks them as the runtime does (null
// is an error; anything else is the program's promise, as with NVIDIA's runtime).
#![allow(clippy::missing_safety_doc)]
// `cu!` calls a driver function inside `unsafe` with the caller's argument expressions; every
// use passes plain values and pointers, never an expression that needs `unsafe` itself.
#![allow(clippy::macro_metavars_in_unsafe)]

pub mod device;
pub mod driver;
pub mod errors;
pub mod graph;
pub mod launch;
pub mod library;
pub mod memory;
pub mod memory3d;
pub mod register;
pub mod state;
pub mod stream;
pub mod stubs;
pub mod texture;

use errors::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Exports one body under several ABI names (a function and its per-thread-default-stream
/// variants `_ptds`/`_ptsz`, which behave alike here because work completes when enqueued):
/// `exports! { cudaA, cudaA_ptsz => fn(x: T, ...) { body } }` defines each as an
/// `extern "C"` function returning `cudaError_t` through [`entry`].
#[macro_export]
macro_rules! exports {
    ($($name:ident),+ => fn $args:tt $body:block) => {
        $(
            #[no_mangle]
            pub unsafe extern "C" fn $name $args -> $crate::errors::cudaError_t {
                $crate::entry(stringify!($name), || $body)
            }
        )+
    };
}

/// A failed runtime call: the code the program gets and, for tracing, what went wrong.
#[derive(Debug)]
pub struct Fail {
    pub code: cudaError_t,
    pub message: String,
    /// Whether this is a driver call's failure passed on unchanged ([`driver::check`]), whose
    /// own message the driver keeps for a tool's report, rather than the runtime's reason.
    pub from_driver: bool,
}

impl Fail {
    /// The runtime's own failure with `code`, for `message`.
    pub fn new(code: cudaError_t, message: impl Into<String>) -> Fail {
        Fail {
            code,
            message: message.into(),
            from_driver: false,
        }
    }
}

/// The result of a runtime call's body.
pub type RtResult = Result<(), Fail>;

/// Whether `PTXJIT_TRACE` asks for a line per call.
pub fn tracing() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    // The spellings of ptxjit's `env_flag` (libcuda.so.1, which reads the variable too,
    // reports a value that is none of them).
    *ON.get_or_init(|| {
        std::env::var("PTXJIT_TRACE").is_ok_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            )
        })
    })
}

/// Runs the body of exported function `name`: catches a panic (a bug in ptxjit) so it never
/// unwinds into C, records a failure as the thread's last error, under a sanitizer tool
/// has the driver report it ([`driver::runtime_call_end`]), and traces the call under
/// `PTXJIT_TRACE`.
pub fn entry(name: &str, body: impl FnOnce() -> RtResult) -> cudaError_t {
    driver::runtime_call_begin();
    let result = catch_unwind(AssertUnwindSafe(body));
    if let Ok(Err(f)) = &result {
        if !f.from_driver {
            driver::runtime_call_reason(&f.message);
        }
    }
    let code = finish(name, result);
    driver::runtime_call_end(name, code);
    state::record_error(code);
    code
}

/// [`entry`] for the functions that read the last error, which they must not overwrite.
pub fn entry_quiet(name: &str, body: impl FnOnce() -> RtResult) -> cudaError_t {
    finish(name, catch_unwind(AssertUnwindSafe(body)))
}

/// Runs the body of an exported function that returns no `cudaError_t` (nvcc's registration
/// entries, which return handles or nothing): a panic (a bug in ptxjit) is reported and
/// `fallback` returned, never unwound into C.
pub fn guard<T>(name: &str, fallback: T, body: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(v) => v,
        Err(_) => {
            eprintln!("ptxjit: internal error in {name} (a bug in ptxjit; please report it)");
            fallback
        }
    }
}

/// Says why runtime call `call` refused what the program asked, once per distinct reason
/// (`ptxjit: cudaLaunchKernel: kernel 'k(int*)' (_Z1kPi): blockDim.x = 2048 (1 to 1024)
/// (cudaErrorInvalidConfiguration)`), where the program alone would see only the code;
/// nothing when tracing (which prints it with the call) or under a tool (which reports it
/// with the call).
pub(crate) fn say_refused(call: &str, f: &Fail) {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    if tracing() || driver::tool_reports() {
        return;
    }
    if let Ok(mut said) = SAID.lock() {
        if !said.contains(&f.message) {
            said.push(f.message.clone());
            eprintln!("ptxjit: {call}: {} ({})", f.message, errors::name(f.code));
        }
    }
}

fn finish(name: &str, result: std::thread::Result<RtResult>) -> cudaError_t {
    let (code, message) = match result {
        Ok(Ok(())) => (cudaSuccess, None),
        Ok(Err(f)) => (f.code, Some(f.message)),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            eprintln!(
                "ptxjit: internal error in {name}: {what} (a bug in ptxjit; please report it)"
            );
            (cudaErrorUnknown, None)
        }
    };
    if tracing() {
        match message {
            Some(m) if !m.is_empty() => {
                eprintln!("ptxjit: {name} -> {} ({m})", errors::name(code))
            }
            _ => eprintln!("ptxjit: {name} -> {}", errors::name(code)),
        }
    }
    code
}

/// Writes `value` through an output pointer of the C API. Errors: a null pointer is
/// `cudaErrorInvalidValue`, as the runtime answers.
///
/// # Safety
/// `p` is null or valid for a write of `T` (the caller's promise).
pub unsafe fn out<T>(p: *mut T, value: T) -> RtResult {
    if p.is_null() {
        return Err(Fail::new(cudaErrorInvalidValue, "null output pointer"));
    }
    // SAFETY: non-null, and valid by the caller's promise.
    unsafe { p.write_unaligned(value) };
    Ok(())
}

/// Refuses a null output pointer (`cudaErrorInvalidValue`, as [`out`] does) before a call
/// makes what it would write there, so that a refused allocation is not made and then lost.
pub fn non_null<T>(p: *mut T) -> RtResult {
    if p.is_null() {
        return Err(Fail::new(cudaErrorInvalidValue, "null output pointer"));
    }
    Ok(())
}

/// A `dim3` (`vector_types.h`): passed by value in launches and call configurations.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}
