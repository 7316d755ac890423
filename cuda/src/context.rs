//! Contexts (CUDA driver API: Primary Context Management, Context Management).
//!
//! Each host thread has a stack of current contexts ([`state::CTX_STACK`]). All contexts share
//! the device's address space, as unified addressing lets a program see it; each context owns
//! the memory, modules, streams and events made while it was current, and destroying it
//! (`cuCtxDestroy`, `cuDevicePrimaryCtxReset`) frees them ([`state::Driver::destroy_owned`]).

use crate::device::CUdevice;
use crate::errors::*;
use crate::state::{self, with_context, with_driver, CtxState, Kind, CTX_STACK};
use crate::{entry, out, DrvResult, Fail};
use std::ffi::{c_int, c_uint, c_void};

/// `CUcontext`: an opaque handle.
pub type CUcontext = *mut c_void;

fn ctx_of(c: CUcontext) -> u64 {
    c as u64
}

fn check_ctx(d: &state::Driver, c: u64) -> DrvResult {
    if d.contexts.contains_key(&c) {
        Ok(())
    } else {
        Err(Fail::new(
            CUDA_ERROR_INVALID_CONTEXT,
            format!("{c:#x} is not a live CUcontext"),
        ))
    }
}

fn create(flags: c_uint, dev: CUdevice) -> Result<u64, Fail> {
    crate::device::check_device(dev)?;
    let h = with_driver(|d| {
        let h = d.handle(Kind::Context);
        d.contexts.insert(
            h,
            CtxState {
                primary: false,
                flags,
            },
        );
        Ok(h)
    })?;
    CTX_STACK.with(|s| s.borrow_mut().push(h));
    Ok(h)
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v2(
    pctx: *mut CUcontext,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    entry("cuCtxCreate_v2", || {
        let h = create(flags, dev)?;
        unsafe { out(pctx, h as CUcontext) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v3(
    pctx: *mut CUcontext,
    _params: *mut c_void,
    _num_params: c_int,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    entry("cuCtxCreate_v3", || {
        // Execution-affinity parameters (SM counts) do not restrict a CPU device.
        let h = create(flags, dev)?;
        unsafe { out(pctx, h as CUcontext) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v4(
    pctx: *mut CUcontext,
    _params: *mut c_void,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    entry("cuCtxCreate_v4", || {
        let h = create(flags, dev)?;
        unsafe { out(pctx, h as CUcontext) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxDestroy_v2(ctx: CUcontext) -> CUresult {
    entry("cuCtxDestroy_v2", || {
        let c = ctx_of(ctx);
        with_driver(|d| {
            check_ctx(d, c)?;
            if d.contexts.get(&c).is_some_and(|s| s.primary) {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_CONTEXT,
                    "a primary context is released with cuDevicePrimaryCtxRelease, not destroyed",
                ));
            }
            d.contexts.remove(&c);
            d.flush_printf();
            let freed = d.destroy_owned(c);
            crate::sanitizer::report_leaks(&freed);
            Ok(())
        })?;
        CTX_STACK.with(|s| s.borrow_mut().retain(|&x| x != c));
        crate::export_tables::context_gone(c);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxPushCurrent_v2(ctx: CUcontext) -> CUresult {
    entry("cuCtxPushCurrent_v2", || {
        let c = ctx_of(ctx);
        with_driver(|d| check_ctx(d, c))?;
        CTX_STACK.with(|s| s.borrow_mut().push(c));
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxPopCurrent_v2(pctx: *mut CUcontext) -> CUresult {
    entry("cuCtxPopCurrent_v2", || {
        with_driver(|_| Ok(()))?;
        let c = CTX_STACK
            .with(|s| s.borrow_mut().pop())
            .ok_or_else(|| Fail::new(CUDA_ERROR_INVALID_CONTEXT, "no current context to pop"))?;
        if !pctx.is_null() {
            unsafe { out(pctx, c as CUcontext)? };
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxSetCurrent(ctx: CUcontext) -> CUresult {
    entry("cuCtxSetCurrent", || {
        let c = ctx_of(ctx);
        with_driver(|d| if c == 0 { Ok(()) } else { check_ctx(d, c) })?;
        CTX_STACK.with(|s| {
            let mut s = s.borrow_mut();
            s.pop();
            if c != 0 {
                s.push(c);
            }
        });
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCurrent(pctx: *mut CUcontext) -> CUresult {
    entry("cuCtxGetCurrent", || {
        with_driver(|_| Ok(()))?;
        let c = state::current_context().unwrap_or(0);
        unsafe { out(pctx, c as CUcontext) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice(dev: *mut CUdevice) -> CUresult {
    entry("cuCtxGetDevice", || {
        with_context(|_| Ok(()))?;
        unsafe { out(dev, 0) }
    })
}

/// `cuCtxGetDevice` (CUDA 13.0 ABI, `cuCtxGetDevice_v2`): the device of context `ctx`, or
/// of the current context when `ctx` is null. Errors: `CUDA_ERROR_INVALID_CONTEXT` (no such
/// context, or none current).
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice_v2(dev: *mut CUdevice, ctx: CUcontext) -> CUresult {
    entry("cuCtxGetDevice_v2", || {
        if ctx.is_null() {
            with_context(|_| Ok(()))?;
        } else {
            with_driver(|d| check_ctx(d, ctx_of(ctx)))?;
        }
        // SAFETY: valid for a write by the caller's promise.
        unsafe { out(dev, 0) }
    })
}

/// `CU_CTX_MAP_HOST`: every context can map pinned host memory ("All contexts as of CUDA
/// 3.2 behave as though the flag is enabled", CUDA Driver API, deprecated list), so the flags
/// a context or the primary context reports always include it, whatever it was created or set
/// with; NVIDIA's runtime passes them on as `cudaGetDeviceFlags`' `cudaDeviceMapHost`.
const CU_CTX_MAP_HOST: c_uint = 0x8;

/// `cuCtxGetFlags`: the current context's flags, with [`CU_CTX_MAP_HOST`].
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetFlags(flags: *mut c_uint) -> CUresult {
    entry("cuCtxGetFlags", || {
        let c = state::current_context().unwrap_or(0);
        let f = with_context(|d| Ok(d.contexts.get(&c).map_or(0, |s| s.flags)))?;
        unsafe { out(flags, f | CU_CTX_MAP_HOST) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxSetFlags(flags: c_uint) -> CUresult {
    entry("cuCtxSetFlags", || {
        let c = state::current_context().unwrap_or(0);
        with_context(|d| {
            if let Some(s) = d.contexts.get_mut(&c) {
                s.flags = flags;
            }
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetId(ctx: CUcontext, id: *mut u64) -> CUresult {
    entry("cuCtxGetId", || {
        let c = if ctx.is_null() {
            state::current_context().unwrap_or(0)
        } else {
            ctx_of(ctx)
        };
        with_driver(|d| check_ctx(d, c))?;
        unsafe { out(id, c & 0x00ff_ffff_ffff_ffff) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxSynchronize() -> CUresult {
    // Work completes when it is enqueued; the fault of earlier work is reported here.
    entry("cuCtxSynchronize", || {
        with_context(|d| {
            crate::graph::check_unsafe_call(d, "cuCtxSynchronize")?;
            d.wait_for_work()?;
            d.flush_printf();
            Ok(())
        })
    })
}

/// `cuCtxSynchronize` (CUDA 13.0 ABI, `cuCtxSynchronize_v2`): waits for the work of context
/// `ctx`, or of the current context when `ctx` is null. Work completes when it is enqueued, so
/// this reports a sticky error and flushes device `printf`, as `cuCtxSynchronize` does.
#[no_mangle]
pub unsafe extern "C" fn cuCtxSynchronize_v2(ctx: CUcontext) -> CUresult {
    entry("cuCtxSynchronize_v2", || {
        let sync = |d: &mut state::Driver| {
            crate::graph::check_unsafe_call(d, "cuCtxSynchronize_v2")?;
            d.wait_for_work()?;
            d.flush_printf();
            Ok(())
        };
        if ctx.is_null() {
            with_context(sync)
        } else {
            // The named context need not be current; a sticky error is reported all the same.
            with_driver(|d| {
                check_ctx(d, ctx_of(ctx))?;
                d.check_sticky()?;
                sync(d)
            })
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxResetPersistingL2Cache() -> CUresult {
    // No lines of a CPU cache are held for the program: nothing to reset.
    entry("cuCtxResetPersistingL2Cache", || with_context(|_| Ok(())))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetApiVersion(ctx: CUcontext, version: *mut c_uint) -> CUresult {
    entry("cuCtxGetApiVersion", || {
        let c = if ctx.is_null() {
            state::current_context().unwrap_or(0)
        } else {
            ctx_of(ctx)
        };
        with_driver(|d| check_ctx(d, c))?;
        unsafe { out(version, 3020) }
    })
}

/// `CUlimit` values.
const LIMIT_STACK_SIZE: u32 = 0;
const LIMIT_PRINTF_FIFO_SIZE: u32 = 1;
const LIMIT_MALLOC_HEAP_SIZE: u32 = 2;
const LIMIT_DEV_RUNTIME_SYNC_DEPTH: u32 = 3;
const LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: u32 = 4;
const LIMIT_MAX_L2_FETCH_GRANULARITY: u32 = 5;
const LIMIT_PERSISTING_L2_CACHE_SIZE: u32 = 6;

fn default_limit(limit: u32) -> Option<u64> {
    match limit {
        LIMIT_STACK_SIZE => Some(1024),
        LIMIT_PRINTF_FIFO_SIZE => Some(1 << 20),
        LIMIT_MALLOC_HEAP_SIZE => Some(ptxjit::runtime::heap::DEFAULT_HEAP_BYTES),
        LIMIT_DEV_RUNTIME_SYNC_DEPTH => Some(2),
        LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT => Some(2048),
        LIMIT_MAX_L2_FETCH_GRANULARITY => Some(64),
        LIMIT_PERSISTING_L2_CACHE_SIZE => Some(0),
        _ => None,
    }
}

/// The per-thread call stack of a launch in context `d`: its `CU_LIMIT_STACK_SIZE`, and at
/// least ptxjit's default of 16 KiB (CUDA's default limit, 1 KiB, is for code that keeps most
/// of its frame in registers; ptxjit's frames hold every register of the caller).
pub(crate) fn launch_stack_bytes(d: &state::Driver) -> u64 {
    let set = d.limits.get(&LIMIT_STACK_SIZE).copied().unwrap_or_default();
    set.max(ptxjit::host::DEFAULT_STACK_BYTES)
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetLimit(value: *mut usize, limit: c_uint) -> CUresult {
    entry("cuCtxGetLimit", || {
        let v = with_context(|d| {
            let def = default_limit(limit).ok_or_else(|| {
                Fail::new(
                    CUDA_ERROR_UNSUPPORTED_LIMIT,
                    format!("unknown limit {limit}"),
                )
            })?;
            Ok(d.limits.get(&limit).copied().unwrap_or(def))
        })?;
        unsafe { out(value, v as usize) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxSetLimit(limit: c_uint, value: usize) -> CUresult {
    entry("cuCtxSetLimit", || {
        with_context(|d| {
            default_limit(limit).ok_or_else(|| {
                Fail::new(
                    CUDA_ERROR_UNSUPPORTED_LIMIT,
                    format!("unknown limit {limit}"),
                )
            })?;
            if limit == LIMIT_STACK_SIZE && value as u64 > ptxjit::ir::MAX_LOCAL_BYTES {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!(
                        "a stack of {value} bytes per thread is more than the {}-byte limit \
                         of local memory per thread",
                        ptxjit::ir::MAX_LOCAL_BYTES
                    ),
                ));
            }
            if limit == LIMIT_PRINTF_FIFO_SIZE && d.host.printf_used() {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    "the printf buffer size can only be set before a kernel using printf runs",
                ));
            }
            if limit == LIMIT_MALLOC_HEAP_SIZE {
                d.host
                    .set_heap_size(value as u64)
                    .map_err(crate::host_fail)?;
            }
            d.limits.insert(limit, value as u64);
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCacheConfig(config: *mut c_int) -> CUresult {
    // The preference last set: the device's compute capability (8.0 by default) shares one
    // memory between L1 and shared memory, where CUDA documents that the preference is
    // returned (only devices with fixed sizes always answer CU_FUNC_CACHE_PREFER_NONE).
    entry("cuCtxGetCacheConfig", || {
        let c = with_context(|d| Ok(d.cache_config))?;
        unsafe { out(config, c) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxSetCacheConfig(config: c_int) -> CUresult {
    // A preference only; the CPU has one cache configuration. CU_FUNC_CACHE_PREFER_NONE (0),
    // _SHARED (1), _L1 (2) and _EQUAL (3) are the values CUDA defines.
    entry("cuCtxSetCacheConfig", || {
        if !(0..=3).contains(&config) {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("cache configuration {config}: must be a CUfunc_cache (0 to 3)"),
            ));
        }
        with_context(|d| {
            d.cache_config = config;
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetStreamPriorityRange(
    least: *mut c_int,
    greatest: *mut c_int,
) -> CUresult {
    entry("cuCtxGetStreamPriorityRange", || {
        with_context(|_| Ok(()))?;
        if !least.is_null() {
            unsafe { out(least, 0)? };
        }
        if !greatest.is_null() {
            unsafe { out(greatest, -5)? };
        }
        Ok(())
    })
}

fn primary_handle(d: &mut state::Driver) -> u64 {
    match d.primary {
        Some(h) => h,
        None => {
            let h = d.handle(Kind::Context);
            d.contexts.insert(
                h,
                CtxState {
                    primary: true,
                    flags: d.primary_flags,
                },
            );
            d.primary = Some(h);
            h
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(pctx: *mut CUcontext, dev: CUdevice) -> CUresult {
    entry("cuDevicePrimaryCtxRetain", || {
        crate::device::check_device(dev)?;
        let h = with_driver(|d| {
            let h = primary_handle(d);
            d.primary_refs += 1;
            Ok(h)
        })?;
        unsafe { out(pctx, h as CUcontext) }
    })
}

/// `cuDevicePrimaryCtxRelease`, `cuDevicePrimaryCtxReset` and `cuDevicePrimaryCtxSetFlags` as
/// CUDA 7.0 exported them (the same parameters as their CUDA 11.0 `_v2` ABIs, which they call):
/// NVIDIA's runtime linked into a program asks `cuGetProcAddress` for these ABIs, at version
/// 7000, and its `cudaDeviceReset` fails with `cudaErrorCallRequiresNewerDriver` without them.
#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRelease(dev: CUdevice) -> CUresult {
    // SAFETY: no pointers.
    unsafe { cuDevicePrimaryCtxRelease_v2(dev) }
}

/// See [`cuDevicePrimaryCtxRelease`].
#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxReset(dev: CUdevice) -> CUresult {
    // SAFETY: no pointers.
    unsafe { cuDevicePrimaryCtxReset_v2(dev) }
}

/// See [`cuDevicePrimaryCtxRelease`].
#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxSetFlags(dev: CUdevice, flags: c_uint) -> CUresult {
    // SAFETY: no pointers.
    unsafe { cuDevicePrimaryCtxSetFlags_v2(dev, flags) }
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult {
    entry("cuDevicePrimaryCtxRelease_v2", || {
        crate::device::check_device(dev)?;
        with_driver(|d| {
            if d.primary_refs == 0 {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_CONTEXT,
                    "the primary context is not retained",
                ));
            }
            d.primary_refs -= 1;
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) -> CUresult {
    entry("cuDevicePrimaryCtxReset_v2", || {
        crate::device::check_device(dev)?;
        // Destroys the primary context's allocations, modules, streams and events and clears
        // the sticky error. The handle stays valid: the context is made again on next use
        // (CUDA Driver API, cuDevicePrimaryCtxReset).
        let primary = with_driver(|d| {
            d.sticky = None;
            d.pending = None;
            d.flush_printf();
            // The limits are the process's (every context shares them); when the primary
            // context is the only one, the new one starts as a new context does: default
            // limits and cache preference, no device heap yet, no printf kernel launched (so
            // the printf buffer and heap sizes may be set again).
            if d.contexts.values().all(|c| c.primary) {
                d.limits.clear();
                d.cache_config = 0;
                d.host.clear_printf_used();
                d.host.drop_heap().map_err(crate::host_fail)?;
            }
            if let Some(p) = d.primary {
                let freed = d.destroy_owned(p);
                crate::sanitizer::report_leaks(&freed);
            }
            Ok(d.primary)
        })?;
        if let Some(p) = primary {
            crate::export_tables::context_gone(p);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxGetState(
    dev: CUdevice,
    flags: *mut c_uint,
    active: *mut c_int,
) -> CUresult {
    entry("cuDevicePrimaryCtxGetState", || {
        crate::device::check_device(dev)?;
        let (f, a) = with_driver(|d| Ok((d.primary_flags, (d.primary_refs > 0) as c_int)))?;
        unsafe {
            out(flags, f | CU_CTX_MAP_HOST)?;
            out(active, a)
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxSetFlags_v2(dev: CUdevice, flags: c_uint) -> CUresult {
    entry("cuDevicePrimaryCtxSetFlags_v2", || {
        crate::device::check_device(dev)?;
        with_driver(|d| {
            d.primary_flags = flags;
            if let Some(s) = d.primary.and_then(|h| d.contexts.get_mut(&h)) {
                s.flags = flags;
            }
            Ok(())
        })
    })
}

/// Whether contexts on `dev` can access memory of contexts on `peer` directly (the answer of
/// `cuDeviceCanAccessPeer`, CUDA driver API: Peer Context Memory Access). ptxjit has one
/// device, and NVIDIA's documents leave open what a device answers about itself; NVIDIA's
/// drivers answer 0, and so does ptxjit: there is never a peer to enable.
pub fn can_access_peer(dev: CUdevice, peer: CUdevice) -> Result<bool, Fail> {
    crate::device::check_device(dev)?;
    crate::device::check_device(peer)?;
    Ok(false)
}

/// `cuCtxEnablePeerAccess` (CUDA driver API: Peer Context Memory Access): lets the current
/// context access `peer`'s memory. Errors, in the order checked (the documents give no order):
/// `CUDA_ERROR_INVALID_CONTEXT` when no context is current, `peer` is no live context or is
/// the current one; `CUDA_ERROR_INVALID_VALUE` for `flags` other than 0;
/// `CUDA_ERROR_PEER_ACCESS_UNSUPPORTED` when `cuDeviceCanAccessPeer` answers 0 for the two
/// contexts' devices, which with ptxjit's one device it always does (so
/// `CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED` never happens here).
#[no_mangle]
pub unsafe extern "C" fn cuCtxEnablePeerAccess(peer: CUcontext, flags: c_uint) -> CUresult {
    entry("cuCtxEnablePeerAccess", || {
        let current = state::current_context();
        with_context(|d| check_ctx(d, ctx_of(peer)))?;
        if current == Some(ctx_of(peer)) {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_CONTEXT,
                "the peer context is the current context",
            ));
        }
        if flags != 0 {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("flags {flags:#x}: must be 0"),
            ));
        }
        // Every context is on device 0.
        if !can_access_peer(0, 0)? {
            return Err(Fail::new(
                CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
                "both contexts are on device 0, and a device is not its own peer \
                 (cuDeviceCanAccessPeer(0, 0) is 0; ptxjit has one device)",
            ));
        }
        Ok(())
    })
}

/// `cuCtxDisablePeerAccess` (CUDA driver API: Peer Context Memory Access): ends the current
/// context's access to `peer`'s memory. Errors: `CUDA_ERROR_INVALID_CONTEXT` when no context
/// is current or `peer` is no live context; `CUDA_ERROR_PEER_ACCESS_NOT_ENABLED` otherwise,
/// since [`cuCtxEnablePeerAccess`] never succeeds on ptxjit's one device.
#[no_mangle]
pub unsafe extern "C" fn cuCtxDisablePeerAccess(peer: CUcontext) -> CUresult {
    entry("cuCtxDisablePeerAccess", || {
        with_context(|d| check_ctx(d, ctx_of(peer)))?;
        Err(Fail::new(
            CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
            "peer access to that context was never enabled (ptxjit has one device, which is \
             not its own peer)",
        ))
    })
}
