//! The runtime's per-thread state: the last error (`cudaGetLastError`), the current device,
//! and the launch configurations `<<<...>>>` pushes; and the implicit primary context.
//!
//! Errors follow the runtime's rules: every failing call sets the calling thread's last
//! error; `cudaGetLastError` returns and clears it, `cudaPeekAtLastError` only returns it.
//! Sticky errors (a kernel fault, an assert, a launch failure) are never cleared from the
//! last error, and the driver answers them to every later call that needs a context, in any
//! context and on any thread: as CUDA documents `cudaErrorIllegalAddress`, the fault "leaves
//! the process in an inconsistent state and any further CUDA work will return the same
//! error" (NVIDIA's runtime must be ended with the process; `cudaDeviceReset` clears it
//! here).

use crate::errors::*;
use crate::{cu, exports, Dim3, Fail, RtResult};
use std::cell::{Cell, RefCell};
use std::ffi::c_void;

thread_local! {
    static LAST_ERROR: Cell<cudaError_t> = const { Cell::new(cudaSuccess) };
    static DEVICE: Cell<i32> = const { Cell::new(0) };
    static CONFIGS: RefCell<Vec<LaunchConfig>> = const { RefCell::new(Vec::new()) };
}

/// Whether `code` leaves the context unusable (CUDA Runtime API, "Error Handling": the
/// errors documented as leaving the process in an inconsistent state).
pub fn sticky(code: cudaError_t) -> bool {
    matches!(
        code,
        cudaErrorIllegalAddress
            | cudaErrorLaunchFailure
            | cudaErrorAssert
            | cudaErrorHardwareStackError
            | cudaErrorIllegalInstruction
            | cudaErrorMisalignedAddress
            | cudaErrorInvalidAddressSpace
            | cudaErrorInvalidPc
            | cudaErrorLaunchTimeout
    )
}

/// Records a call's result as the thread's last error (a success leaves it as it was).
pub fn record_error(code: cudaError_t) {
    if code != cudaSuccess {
        LAST_ERROR.with(|e| {
            if !sticky(e.get()) {
                e.set(code)
            }
        });
    }
}

/// Clears the thread's last error (not a sticky one), as a successful `cudaFuncSetAttribute`
/// does in NVIDIA's runtime: of the runtime's calls that succeed, it is the one that resets
/// the last error (NVIDIA's static runtime over ptxjit's driver: `cudaPeekAtLastError` after a
/// failed `cudaSetDevice` and then a successful `cudaFuncSetAttribute` is `cudaSuccess`; after
/// a successful `cudaFuncGetAttributes`, `cudaFuncSetCacheConfig`, `cudaMalloc`, `cudaMemcpy`,
/// `cudaMemset`, a launch, a synchronisation, a stream or event call … it is still the
/// error).
pub fn clear_error() {
    LAST_ERROR.with(|e| {
        if !sticky(e.get()) {
            e.set(cudaSuccess)
        }
    });
}

/// The launch configuration `<<<grid, block, shared, stream>>>` pushes for the host stub.
#[derive(Clone, Copy, Debug)]
pub struct LaunchConfig {
    pub grid: Dim3,
    pub block: Dim3,
    pub shared: usize,
    pub stream: u64,
}

/// The device of this host thread (`cudaSetDevice`).
pub fn device() -> i32 {
    DEVICE.with(|d| d.get())
}

/// Makes sure the thread has a current context: the one the program made current through the
/// driver API, or else the primary context of the thread's device (the runtime's implicit
/// initialisation).
pub fn context() -> RtResult {
    let mut ctx = 0u64;
    cu!(cuCtxGetCurrent(&mut ctx))?;
    if ctx == 0 {
        cu!(cuDevicePrimaryCtxRetain(&mut ctx, device()))?;
        cu!(cuCtxSetCurrent(ctx))?;
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cudaGetLastError() -> cudaError_t {
    let mut code = cudaSuccess;
    crate::entry_quiet("cudaGetLastError", || {
        code = LAST_ERROR.with(|e| {
            let c = e.get();
            if !sticky(c) {
                e.set(cudaSuccess);
            }
            c
        });
        last_error_result(code)
    });
    code
}

#[no_mangle]
pub unsafe extern "C" fn cudaPeekAtLastError() -> cudaError_t {
    let mut code = cudaSuccess;
    crate::entry_quiet("cudaPeekAtLastError", || {
        code = LAST_ERROR.with(|e| e.get());
        last_error_result(code)
    });
    code
}

/// What `cudaGetLastError`/`cudaPeekAtLastError` trace: the code they return (they succeed
/// either way; [`crate::entry_quiet`] records nothing).
fn last_error_result(code: cudaError_t) -> RtResult {
    if code == cudaSuccess {
        Ok(())
    } else {
        Err(Fail::new(code, "the thread's last error"))
    }
}

#[no_mangle]
pub unsafe extern "C" fn cudaGetErrorName(code: cudaError_t) -> *const std::ffi::c_char {
    match crate::errors::code(code) {
        Some(e) => e.1.as_ptr(),
        // NVIDIA's answer for a code it does not know, for the name as for the string.
        None => c"unrecognized error code".as_ptr(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn cudaGetErrorString(code: cudaError_t) -> *const std::ffi::c_char {
    match crate::errors::code(code) {
        Some(e) => e.2.as_ptr(),
        None => c"unrecognized error code".as_ptr(),
    }
}

/// `__cudaPushCallConfiguration` (crt/device_functions.h): what `kernel<<<grid, block,
/// shared, stream>>>(...)` calls before the kernel's host stub. Returns 0.
#[no_mangle]
pub unsafe extern "C" fn __cudaPushCallConfiguration(
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: u64,
) -> u32 {
    crate::guard("__cudaPushCallConfiguration", 0, || {
        let config = LaunchConfig {
            grid,
            block,
            shared,
            stream,
        };
        CONFIGS.with(|c| c.borrow_mut().push(config));
        if crate::tracing() {
            eprintln!(
                "ptxjit: __cudaPushCallConfiguration({grid:?}, {block:?}, {shared}, {stream:#x})"
            );
        }
        0
    })
}

exports! { __cudaPopCallConfiguration => fn(grid: *mut Dim3, block: *mut Dim3, shared: *mut usize, stream: *mut c_void) {
    let Some(c) = CONFIGS.with(|c| c.borrow_mut().pop()) else {
        return Err(Fail::new(cudaErrorMissingConfiguration, "no <<<...>>> configuration was pushed"));
    };
    unsafe {
        crate::out(grid, c.grid)?;
        crate::out(block, c.block)?;
        crate::out(shared, c.shared)?;
        crate::out(stream.cast::<u64>(), c.stream)
    }
}}

exports! { cudaGetDevice => fn(dev: *mut i32) {
    unsafe { crate::out(dev, device()) }
}}

exports! { cudaSetDevice => fn(dev: i32) {
    let mut n = 0;
    cu!(cuDeviceGetCount(&mut n))?;
    if dev < 0 || dev >= n {
        return Err(Fail::new(cudaErrorInvalidDevice, format!("device {dev} of {n}")));
    }
    DEVICE.with(|d| d.set(dev));
    let mut ctx = 0u64;
    cu!(cuDevicePrimaryCtxRetain(&mut ctx, dev))?;
    cu!(cuCtxSetCurrent(ctx))
}}

exports! { cudaInitDevice => fn(dev: i32, _device_flags: u32, _flags: u32) {
    let mut n = 0;
    cu!(cuDeviceGetCount(&mut n))?;
    if dev < 0 || dev >= n {
        return Err(Fail::new(cudaErrorInvalidDevice, format!("device {dev} of {n}")));
    }
    let mut ctx = 0u64;
    cu!(cuDevicePrimaryCtxRetain(&mut ctx, dev))
}}

// CUDA 12 programs (through the libcudart.so.12 name) may still call the cudaThread* names
// CUDA 13 removed; each is another name of its cudaDevice* successor.
exports! { cudaDeviceSynchronize, cudaThreadSynchronize => fn() {
    context()?;
    cu!(cuCtxSynchronize())
}}

exports! { cudaDeviceReset, cudaThreadExit => fn() {
    crate::register::forget_modules();
    cu!(cuDevicePrimaryCtxReset_v2(device()))?;
    LAST_ERROR.with(|e| e.set(cudaSuccess));
    Ok(())
}}

exports! { cudaSetDeviceFlags => fn(flags: u32) {
    // cudaDeviceSchedule*, cudaDeviceMapHost, cudaDeviceLmemResizeToMax are the CU_CTX_* flags.
    // Bits outside cudaDeviceMask (0xff) are refused, as NVIDIA's runtime refuses them.
    if flags & !0xff != 0 {
        return Err(Fail::new(
            cudaErrorInvalidValue,
            format!("device flags {flags:#x}: bits outside cudaDeviceMask (0xff)"),
        ));
    }
    cu!(cuDevicePrimaryCtxSetFlags_v2(device(), flags))
}}

// The current context's flags when there is one (a context the program made current through
// the driver API, or the primary context once the runtime initialised it), else the device's
// primary context flags, as CUDA documents cudaGetDeviceFlags. The driver reports
// cudaDeviceMapHost (CU_CTX_MAP_HOST) in both: every context maps host memory.
exports! { cudaGetDeviceFlags => fn(flags: *mut u32) {
    let (mut ctx, mut f, mut active) = (0u64, 0u32, 0);
    cu!(cuCtxGetCurrent(&mut ctx))?;
    if ctx != 0 {
        cu!(cuCtxGetFlags(&mut f))?;
    } else {
        cu!(cuDevicePrimaryCtxGetState(device(), &mut f, &mut active))?;
    }
    unsafe { crate::out(flags, f) }
}}

exports! { cudaDeviceSetLimit, cudaThreadSetLimit => fn(limit: u32, value: usize) {
    context()?;
    cu!(cuCtxSetLimit(limit, value))
}}

exports! { cudaDeviceGetLimit, cudaThreadGetLimit => fn(value: *mut usize, limit: u32) {
    context()?;
    cu!(cuCtxGetLimit(value, limit))
}}

exports! { cudaDeviceGetStreamPriorityRange => fn(least: *mut i32, greatest: *mut i32) {
    context()?;
    cu!(cuCtxGetStreamPriorityRange(least, greatest))
}}

exports! { cudaDeviceSetCacheConfig, cudaThreadSetCacheConfig => fn(config: i32) {
    context()?;
    cu!(cuCtxSetCacheConfig(config))
}}

exports! { cudaDeviceGetCacheConfig, cudaThreadGetCacheConfig => fn(config: *mut i32) {
    context()?;
    cu!(cuCtxGetCacheConfig(config))
}}

exports! { cudaRuntimeGetVersion => fn(v: *mut i32) {
    unsafe { crate::out(v, runtime_version()) }
}}

exports! { cudaDriverGetVersion => fn(v: *mut i32) {
    match crate::driver::api() {
        // No driver: the runtime answers 0 (CUDA Runtime API, cudaDriverGetVersion).
        Err(_) => unsafe { crate::out(v, 0) },
        Ok(_) => cu!(cuDriverGetVersion(v)),
    }
}}

/// The CUDA version of the runtime API this library implements (`CUDART_VERSION` of CUDA
/// 13.5's cuda_runtime_api.h).
pub const RUNTIME_VERSION: i32 = 13050;

/// The version reported to a program that loaded this library as `libcudart.so.12` (built
/// against CUDA 12: `CUDART_VERSION` of CUDA 12.9, the last CUDA 12 release).
pub const RUNTIME_VERSION_12: i32 = 12090;

/// The runtime version `cudaRuntimeGetVersion` reports, and the ABI version
/// `cudaGetDriverEntryPoint` asks the driver for: [`RUNTIME_VERSION_12`] when the loader
/// opened this library by the name `libcudart.so.12` (the `DT_NEEDED` of a program linked
/// against CUDA 12's libcudart, served by the link beside this library), else
/// [`RUNTIME_VERSION`]. NVIDIA's libcudart.so.12 reports its own 12.x version to such a
/// program, which may compare it with the `CUDART_VERSION` it was built with.
pub fn runtime_version() -> i32 {
    static VERSION: std::sync::OnceLock<i32> = std::sync::OnceLock::new();
    *VERSION.get_or_init(|| {
        let name = crate::driver::own_path();
        match name.as_deref().and_then(std::path::Path::file_name) {
            Some(n) if n == "libcudart.so.12" => RUNTIME_VERSION_12,
            _ => RUNTIME_VERSION,
        }
    })
}

// cuda_profiler_api.h: no profiler collects anything here; starting and stopping succeed, as
// the driver's cuProfilerStart/Stop do.
exports! { cudaProfilerStart => fn() { Ok(()) }}
exports! { cudaProfilerStop => fn() { Ok(()) }}
