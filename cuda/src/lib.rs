//! A drop-in `libcuda.so.1`: the CUDA driver API over ptxjit's host layer, so unmodified CUDA
//! programs (numba-cuda, cuda-python, cudarc, programs linked against the driver) run their
//! kernels on the CPU.
//!
//! # Shape
//! - Every exported function is `extern "C"` under the driver's ABI name (`cuMemAlloc_v2`,
//!   `cuCtxCreate_v2`, …: the names `cuda.h` maps the API to, never an unsuffixed legacy name
//!   whose ABI is the old 32-bit one). Each converts its arguments, calls the host layer
//!   ([`ptxjit::host`]) and turns the result into a [`CUresult`](errors::CUresult). Nothing
//!   unwinds into the caller: [`entry`] catches panics and answers `CUDA_ERROR_UNKNOWN`.
//! - One device (ordinal 0), described in [`device`]. All contexts of the process share its
//!   memory: one [`ptxjit::host::Context`] whose arena is reserved at a fixed host address, so
//!   device addresses are host addresses (managed and mapped host memory need that).
//! - Handles (`CUcontext`, `CUmodule`, `CUfunction`, `CUstream`, `CUevent`, `CUlinkState`)
//!   are opaque non-null numbers that index tables in [`state`]; a stale or foreign handle is
//!   `CUDA_ERROR_INVALID_HANDLE`, never a dereference.
//! - Work runs when it is enqueued, so every stream is always complete; events take the time
//!   at which they are recorded.
//!
//! # Environment
//! `PTXJIT_ENGINE=jit|interp`, `PTXJIT_TOOL=memcheck|initcheck` (see [`sanitizer`]), `PTXJIT_MEMCHECK=1`
//! (memcheck's checks without the exit-time report), `PTXJIT_LEAK_CHECK=full` (memcheck's leak
//! check), `PTXJIT_REPORT_API_ERRORS=all|explicit|no` (which failed API calls a tool reports), `PTXJIT_INTERRUPT=1` (Ctrl-C reports where a launch's warps were: [`interrupt`]),
//! `PTXJIT_TIMEOUT=SECONDS`, `PTXJIT_ASSERT_GRACE=SECONDS` (how long a launch runs on after a
//! failed device `assert`; default 1),
//! `PTXJIT_TRACE=1` (one line per driver call with its result on stderr), `PTXJIT_CC=8.0`
//! (the compute capability reported), `PTXJIT_DRIVER_VERSION=13050` (the version reported; 13050 by default).

#![allow(non_snake_case)]
// Every exported function takes raw pointers from C and checks them as the driver does (null
// is an error; anything else is the program's promise, as with the real driver).
#![allow(clippy::missing_safety_doc)]

pub mod context;
pub mod device;
pub mod errors;
pub mod export_tables;
pub mod graph;
pub mod graph_dot;
pub mod graph_edit;
pub mod graph_nodes;
pub mod graph_params;
pub mod graph_update;
pub mod interrupt;
pub mod launch;
pub mod memory;
pub mod module;
pub mod pool;
pub mod proc_address;
pub mod procs;
pub mod profiler;
pub mod registered;
pub mod sanitizer;
pub mod state;
pub mod stream;
mod stubs;
pub mod tensormap;
pub mod texture;
pub mod user_object;

use errors::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Exports one body under several ABI names (a function and its per-thread-default-stream
/// variants `_ptds`/`_ptsz`, which behave alike here because work completes when enqueued):
/// `exports! { cuA, cuA_ptsz => fn(x: T, ...) { body } }` defines each as an `extern "C"`
/// function returning `CUresult` through [`entry`].
#[macro_export]
macro_rules! exports {
    ($($name:ident),+ => fn $args:tt $body:block) => {
        $(
            #[no_mangle]
            pub unsafe extern "C" fn $name $args -> $crate::errors::CUresult {
                $crate::entry(stringify!($name), || $body)
            }
        )+
    };
}

/// A failed driver call: the code the program gets and, for tracing and for errors the
/// driver would print, what went wrong.
#[derive(Debug)]
pub struct Fail {
    pub code: CUresult,
    pub message: String,
}

impl Fail {
    pub fn new(code: CUresult, message: impl Into<String>) -> Fail {
        Fail {
            code,
            message: message.into(),
        }
    }
}

/// The result of a driver call's body.
pub type DrvResult = Result<(), Fail>;

/// Below this no host memory is mapped: Linux's default `vm.mmap_min_addr` (64 KiB), under
/// which neither the loader nor an allocator places anything. A "pointer" there is a small
/// integer: what a `kernelParams` array one entry too short, a value given where its address
/// belongs, or a size given where a host pointer belongs, hands the driver.
pub const LOWEST_HOST_ADDRESS: usize = 64 << 10;

/// Whether `len` bytes at `addr` may be host memory of this process: not in the lowest
/// 64 KiB ([`LOWEST_HOST_ADDRESS`]) and, on x86-64, below the end of the user half of the
/// largest (57-bit, 5-level paging) address space, past which addresses are the kernel's or
/// non-canonical. A cheap filter, not a proof: a wild pointer that passes it may still point
/// to unmapped memory (NVIDIA's driver reads every pointer unchecked). Checked for
/// `cuLaunchKernel`'s parameter pointers and the host side of copies.
pub fn maybe_host_address(addr: usize, len: usize) -> bool {
    let Some(end) = addr.checked_add(len) else {
        return false;
    };
    let user_end = if cfg!(target_arch = "x86_64") {
        1usize << 56
    } else {
        usize::MAX
    };
    addr >= LOWEST_HOST_ADDRESS && end <= user_end
}

/// Whether `PTXJIT_TRACE` asks for a line per call.
pub fn tracing() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| ptxjit::host::env_flag("PTXJIT_TRACE"))
}

/// Runs the body of exported function `name`: catches a panic (a bug in ptxjit) so it never
/// unwinds into C, reports a failure of the program's own call under a tool
/// ([`sanitizer::driver_call`]), and traces the call under `PTXJIT_TRACE`.
pub fn entry(name: &str, body: impl FnOnce() -> DrvResult) -> CUresult {
    let result = if sanitizer::api_errors_reported() {
        catch_unwind(AssertUnwindSafe(|| sanitizer::driver_call(name, body)))
    } else {
        catch_unwind(AssertUnwindSafe(body))
    };
    let (code, message) = match result {
        Ok(Ok(())) => (CUDA_SUCCESS, None),
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
            (CUDA_ERROR_UNKNOWN, None)
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
/// `CUDA_ERROR_INVALID_VALUE`, as the driver answers.
///
/// # Safety
/// `p` is null or valid for a write of `T` (the caller's promise, as with the driver).
pub unsafe fn out<T>(p: *mut T, value: T) -> DrvResult {
    if p.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null output pointer"));
    }
    // SAFETY: non-null, and valid by the caller's promise.
    unsafe { p.write_unaligned(value) };
    Ok(())
}

/// Maps a host-layer error to the driver's code, with its message.
pub fn host_fail(e: ptxjit::host::Error) -> Fail {
    use ptxjit::host::Error as E;
    let code = match &e {
        E::Parse(_) | E::Invalid(_) => CUDA_ERROR_INVALID_PTX,
        E::Unsupported(_) => CUDA_ERROR_NOT_SUPPORTED,
        E::DeviceLaunch(_) => CUDA_ERROR_CDP_NOT_SUPPORTED,
        E::UnknownKernel { .. } | E::AmbiguousKernel { .. } => CUDA_ERROR_NOT_FOUND,
        E::Argument(_) | E::LaunchConfig(_) => CUDA_ERROR_INVALID_VALUE,
        E::CooperativeTooLarge(_) => CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
        E::Memory(m) if m.starts_with("out of device memory") => CUDA_ERROR_OUT_OF_MEMORY,
        E::Memory(_) => CUDA_ERROR_INVALID_VALUE,
        E::Fault(r) => {
            use ptxjit::runtime::env::FaultKind as K;
            match r.kind {
                K::OutOfBounds
                | K::Unallocated
                | K::Unsupported
                | K::BadHandle
                | K::SurfaceBounds
                | K::BadFree
                | K::StackOverflow => CUDA_ERROR_ILLEGAL_ADDRESS,
                K::Misaligned => CUDA_ERROR_MISALIGNED_ADDRESS,
                K::Trap => CUDA_ERROR_LAUNCH_FAILED,
                K::Assert => CUDA_ERROR_ASSERT,
                K::Barrier
                | K::MemberMask
                | K::BadCallTarget
                | K::PartialWarp
                | K::MBarrier
                | K::Wgmma
                | K::TensorMemory
                | K::TensorMap
                | K::Cluster
                | K::SparseMetadata => CUDA_ERROR_ILLEGAL_INSTRUCTION,
            }
        }
        E::Timeout(..) => CUDA_ERROR_LAUNCH_TIMEOUT,
        E::Interrupted(..) | E::Deadlock(_) => CUDA_ERROR_LAUNCH_FAILED,
        E::Internal(_) => CUDA_ERROR_UNKNOWN,
        // Only a report that a stopped launch ends with reaches here.
        E::Sanitizer(_) => CUDA_ERROR_LAUNCH_FAILED,
    };
    Fail::new(code, e.to_string())
}
