//! Kernel launches (CUDA Runtime API: Execution Control, Occupancy): by the kernel's host
//! stub address (`cudaLaunchKernel`, what CUDA 12's `<<<...>>>` stubs call) or by the
//! `cudaKernel_t` CUDA 13's stubs get from `__cudaGetKernel` (here: the host stub address
//! itself, so both forms meet in one lookup). Parameters are passed as the driver takes
//! them (`void **args`, sizes from the kernel's PTX).

use crate::errors::*;
use crate::{cu, exports, register, Dim3, Fail, RtResult};
use std::ffi::{c_int, c_uint, c_void};

fn launch(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: u64,
    cooperative: bool,
) -> RtResult {
    let call = if cooperative {
        "cudaLaunchCooperativeKernel"
    } else {
        "cudaLaunchKernel"
    };
    let f = register::function(func).map_err(|e| no_kernel(call, func, e))?;
    check_configuration(grid, block).map_err(|e| refused(call, func, e))?;
    let shared = c_uint::try_from(shared).map_err(|_| {
        refused(
            call,
            func,
            Fail::new(
                cudaErrorInvalidValue,
                format!("{shared} bytes of dynamic shared memory"),
            ),
        )
    })?;
    check_shared(f, shared).map_err(|e| refused(call, func, e))?;
    check_stream(stream).map_err(|e| refused(call, func, e))?;
    // A fault of the kernel is not the launch's result: ptxjit's driver, as NVIDIA's, returns
    // it from the next call that waits for the work (`cudaDeviceSynchronize`,
    // `cudaStreamSynchronize`, `cudaMemcpy` …), so `cudaGetLastError` right after the launch
    // is `cudaSuccess` (CUDA Runtime API, `cudaLaunchKernel`: "this function may also return
    // error codes from previous, asynchronous launches").
    if cooperative {
        cu!(cuLaunchCooperativeKernel(
            f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared, stream, args
        ))
    } else {
        cu!(cuLaunchKernel(
            f,
            grid.x,
            grid.y,
            grid.z,
            block.x,
            block.y,
            block.z,
            shared,
            stream,
            args,
            std::ptr::null_mut()
        ))
    }
}

/// How a launch refusal names the kernel whose host stub is at `func`: `kernel
/// 'scale(float*, int)' (_Z5scalePfi)` as the driver's messages do (demangled, then the
/// mangled name the PTX spells), `kernel 'saxpy'` for an `extern "C"` kernel, or the address
/// for a pointer no registration named (a `cudaKernel_t` handle).
fn kernel_label(func: *const c_void) -> String {
    let Some(name) = register::function_name(func) else {
        return format!("kernel at {func:?}");
    };
    // SAFETY: a registered name is a NUL-terminated string that lives as long as the process.
    let name = unsafe { std::ffi::CStr::from_ptr(name) }.to_string_lossy();
    let demangled = name
        .starts_with("_Z")
        .then(|| cpp_demangle::Symbol::new(name.as_bytes()).ok())
        .flatten()
        .and_then(|s| {
            s.demangle_with_options(&cpp_demangle::DemangleOptions::new().no_return_type())
                .ok()
        })
        .filter(|d| *d != name);
    match demangled {
        Some(d) => format!("kernel '{d}' ({name})"),
        None => format!("kernel '{name}'"),
    }
}

/// A launch that the runtime refused before the driver saw it (`call`, the runtime function
/// the program called, of the kernel at `func`), with its reason naming the kernel. The
/// reason goes to stderr once per distinct reason (`ptxjit: cudaLaunchKernel: kernel 'k(int*)'
/// (_Z1kPi): blockDim.x = 2048 (1 to 1024) (cudaErrorInvalidConfiguration)`), as ptxjit's
/// driver says why it refuses a launch, unless tracing (which prints it with the call) or
/// under a tool (which reports it with the call). Only the runtime's own refusals: a code from
/// elsewhere (a sticky error, no device) passes through unchanged.
fn refused(call: &str, func: *const c_void, f: Fail) -> Fail {
    if f.code != cudaErrorInvalidConfiguration
        && f.code != cudaErrorInvalidValue
        && f.code != cudaErrorInvalidDeviceFunction
        && f.code != cudaErrorInvalidResourceHandle
    {
        return f;
    }
    let f = Fail::new(f.code, format!("{}: {}", kernel_label(func), f.message));
    crate::say_refused(call, &f);
    f
}

/// [`refused`] for a failed look-up of the kernel at `func` when it is no kernel
/// (`cudaErrorInvalidDeviceFunction`); any other failure (no device, a sticky error, a module
/// that does not load, which the driver reports) passes through unchanged.
fn no_kernel(call: &str, func: *const c_void, f: Fail) -> Fail {
    if f.code == cudaErrorInvalidDeviceFunction {
        refused(call, func, f)
    } else {
        f
    }
}

/// The stream of a launch: a handle the program made that is no longer (or never was) a
/// live stream is `cudaErrorInvalidResourceHandle`, checked here so that the refusal names
/// the runtime call the program made, not the driver's `cuLaunchKernel`. The default
/// streams (`0`, `cudaStreamLegacy`, `cudaStreamPerThread`) are always there.
fn check_stream(stream: u64) -> RtResult {
    if stream <= 2 {
        return Ok(());
    }
    let mut flags: c_uint = 0;
    cu!(cuStreamGetFlags(stream, &mut flags)).map_err(|_| {
        Fail::new(
            cudaErrorInvalidResourceHandle,
            format!("stream {stream:#x} is not a live stream (destroyed, or never created)"),
        )
    })
}

/// The launch shape against the device's limits: a zero or too large grid or block
/// dimension, or more threads per block than the device runs, is
/// `cudaErrorInvalidConfiguration` (the runtime's code; the driver answers
/// `CUDA_ERROR_INVALID_VALUE`).
fn check_configuration(grid: Dim3, block: Dim3) -> RtResult {
    // The device's limits, read once (they are fixed for the process): max threads per
    // block, then CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X..Z (2..4) and MAX_GRID_DIM_X..Z (5..7).
    static LIMITS: std::sync::OnceLock<[u64; 7]> = std::sync::OnceLock::new();
    let limits = match LIMITS.get() {
        Some(l) => *l,
        None => {
            let device = crate::state::device();
            let mut l = [0u64; 7];
            for (a, v) in l.iter_mut().enumerate() {
                *v = crate::device::attr(a as c_int + 1, device)?.max(0) as u64;
            }
            *LIMITS.get_or_init(|| l)
        }
    };
    let dims = [
        ("blockDim.x", block.x, limits[1]),
        ("blockDim.y", block.y, limits[2]),
        ("blockDim.z", block.z, limits[3]),
        ("gridDim.x", grid.x, limits[4]),
        ("gridDim.y", grid.y, limits[5]),
        ("gridDim.z", grid.z, limits[6]),
    ];
    for (what, v, max) in dims {
        if v == 0 || v as u64 > max {
            return Err(Fail::new(
                cudaErrorInvalidConfiguration,
                format!("{what} = {v} (1 to {max})"),
            ));
        }
    }
    let threads = block.x as u64 * block.y as u64 * block.z as u64;
    if threads > limits[0] {
        return Err(Fail::new(
            cudaErrorInvalidConfiguration,
            format!(
                "block ({}, {}, {}) has {threads} threads (at most {})",
                block.x, block.y, block.z, limits[0]
            ),
        ));
    }
    Ok(())
}

/// The dynamic shared memory of a launch of CUfunction `f` against the kernel's
/// `cudaFuncAttributeMaxDynamicSharedMemorySize` (by default 48 KiB less its static shared
/// memory): more is `cudaErrorInvalidValue`, as NVIDIA's runtime answers ("invalid
/// argument"). Checked here, not left to the driver, so that the refusal names the runtime
/// call the program made and the runtime's code, and says how to raise the limit.
fn check_shared(f: u64, shared: c_uint) -> RtResult {
    if shared == 0 {
        return Ok(());
    }
    let max = func_attribute(f, 8)?.max(0) as u64;
    if u64::from(shared) <= max {
        return Ok(());
    }
    let static_shared = func_attribute(f, 1)?.max(0) as u64;
    // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN.
    let optin = crate::device::attr(97, crate::state::device())?.max(0) as u64;
    let most = optin.saturating_sub(static_shared);
    let how = if u64::from(shared) <= most {
        format!(
            "call cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, \
             {shared}) before the launch to allow more (up to {most} bytes on this device)"
        )
    } else {
        format!(
            "the device allows at most {most} bytes even with \
             cudaFuncAttributeMaxDynamicSharedMemorySize raised \
             (cudaDevAttrMaxSharedMemoryPerBlockOptin, {optin}, less the static)"
        )
    };
    Err(Fail::new(
        cudaErrorInvalidValue,
        format!(
            "{shared} bytes of dynamic shared memory exceed the kernel's limit of {max} bytes \
             (its cudaFuncAttributeMaxDynamicSharedMemorySize; it has {static_shared} bytes of \
             static shared memory); {how}"
        ),
    ))
}

exports! { cudaLaunchKernel, cudaLaunchKernel_ptsz, __cudaLaunchKernel, __cudaLaunchKernel_ptsz => fn(func: *const c_void, grid: Dim3, block: Dim3, args: *mut *mut c_void, shared: usize, stream: u64) {
    launch(func, grid, block, args, shared, stream, false)
}}

exports! { cudaLaunchCooperativeKernel, cudaLaunchCooperativeKernel_ptsz => fn(func: *const c_void, grid: Dim3, block: Dim3, args: *mut *mut c_void, shared: usize, stream: u64) {
    launch(func, grid, block, args, shared, stream, true)
}}

/// `cudaLaunchConfig_t` (driver_types.h).
#[repr(C)]
pub struct LaunchConfig {
    pub grid: Dim3,
    pub block: Dim3,
    pub dynamic_smem_bytes: usize,
    pub stream: u64,
    pub attrs: *const LaunchAttribute,
    pub num_attrs: c_uint,
}

/// `cudaLaunchAttribute` (driver_types.h): an id, padding, and a 64-byte value union.
#[repr(C)]
pub struct LaunchAttribute {
    pub id: c_uint,
    pad: [u8; 4],
    pub val: [u8; 64],
}

/// `CUlaunchConfig` (cuda.h): what `cudaLaunchConfig_t` becomes for the driver. Its
/// attributes are passed through as they are: `cudaLaunchAttribute` and `CUlaunchAttribute`
/// have one layout and one numbering (cooperative 2, cluster dimension 4, …).
#[repr(C)]
struct DriverLaunchConfig {
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared_mem_bytes: c_uint,
    stream: u64,
    attrs: *const LaunchAttribute,
    num_attrs: c_uint,
}

impl DriverLaunchConfig {
    /// `c` for the driver, with `shared` bytes of dynamic shared memory (`c`'s, checked to
    /// fit the driver's `unsigned int`).
    fn new(c: &LaunchConfig, shared: c_uint) -> Self {
        DriverLaunchConfig {
            grid: [c.grid.x, c.grid.y, c.grid.z],
            block: [c.block.x, c.block.y, c.block.z],
            shared_mem_bytes: shared,
            stream: c.stream,
            attrs: c.attrs,
            num_attrs: c.num_attrs,
        }
    }
}

exports! { cudaLaunchKernelExC, cudaLaunchKernelExC_ptsz => fn(config: *const LaunchConfig, func: *const c_void, args: *mut *mut c_void) {
    if config.is_null() {
        return Err(Fail::new(cudaErrorInvalidValue, "null launch configuration"));
    }
    // SAFETY: non-null, the program's configuration.
    let c = unsafe { &*config };
    if c.num_attrs > 0 && c.attrs.is_null() {
        return Err(Fail::new(cudaErrorInvalidValue, "launch attributes: null array"));
    }
    let call = "cudaLaunchKernelExC";
    let f = register::function(func).map_err(|e| no_kernel(call, func, e))?;
    check_configuration(c.grid, c.block).map_err(|e| refused(call, func, e))?;
    let shared = c_uint::try_from(c.dynamic_smem_bytes).map_err(|_| {
        refused(
            call,
            func,
            Fail::new(
                cudaErrorInvalidValue,
                format!("{} bytes of dynamic shared memory", c.dynamic_smem_bytes),
            ),
        )
    })?;
    check_shared(f, shared).map_err(|e| refused(call, func, e))?;
    check_stream(c.stream).map_err(|e| refused(call, func, e))?;
    // The driver decides the attributes: the cluster shape (checked against the grid and
    // the kernel's own `__cluster_dims__`), cooperative launches; the rest are scheduling
    // hints for a GPU.
    let dc = DriverLaunchConfig::new(c, shared);
    cu!(cuLaunchKernelEx(
        (&dc as *const DriverLaunchConfig).cast(),
        f,
        args,
        std::ptr::null_mut()
    ))
}}

exports! { __cudaGetKernel, cudaGetKernel => fn(kernel: *mut *const c_void, func: *const c_void) {
    if register::function_name(func).is_none() {
        return Err(Fail::new(cudaErrorInvalidDeviceFunction, format!("{func:?} is not a registered kernel")));
    }
    unsafe { crate::out(kernel, func) }
}}

exports! { cudaGetFuncBySymbol => fn(f: *mut u64, func: *const c_void) {
    let h = register::function(func)?;
    unsafe { crate::out(f, h) }
}}

exports! { cudaFuncGetName => fn(name: *mut *const std::ffi::c_char, func: *const c_void) {
    let n = register::function_name(func)
        .ok_or_else(|| Fail::new(cudaErrorInvalidDeviceFunction, format!("{func:?} is not a registered kernel")))?;
    unsafe { crate::out(name, n) }
}}

exports! { cudaFuncGetParamCount => fn(func: *const c_void, count: *mut usize) {
    let f = register::function(func)?;
    cu!(cuFuncGetParamCount(f, count))
}}

exports! { cudaFuncGetParamInfo => fn(func: *const c_void, index: usize, offset: *mut usize, size: *mut usize) {
    let f = register::function(func)?;
    cu!(cuFuncGetParamInfo(f, index, offset, size))
}}

/// `struct cudaFuncAttributes` (driver_types.h, CUDA 13: 144 bytes).
#[repr(C)]
pub struct FuncAttributes {
    pub shared_size_bytes: usize,
    pub const_size_bytes: usize,
    pub local_size_bytes: usize,
    pub max_threads_per_block: c_int,
    pub num_regs: c_int,
    pub ptx_version: c_int,
    pub binary_version: c_int,
    pub cache_mode_ca: c_int,
    pub max_dynamic_shared_size_bytes: c_int,
    pub preferred_shmem_carveout: c_int,
    pub cluster_dim_must_be_set: c_int,
    pub required_cluster: [c_int; 3],
    pub cluster_scheduling_policy_preference: c_int,
    pub non_portable_cluster_size_allowed: c_int,
    pub device_node_update_status: c_int,
    pub shared_memory_mode: c_int,
    pub reserved: [c_int; 14],
}

fn func_attribute(f: u64, attrib: c_int) -> Result<c_int, Fail> {
    let mut v = 0;
    cu!(cuFuncGetAttribute(&mut v, attrib, f))?;
    Ok(v)
}

exports! { cudaFuncGetAttributes => fn(attr: *mut FuncAttributes, func: *const c_void) {
    let f = register::function(func)?;
    // CUfunction_attribute: 0 max threads, 1 shared, 2 const, 3 local, 4 regs, 5 PTX version,
    // 6 binary version, 7 cache mode CA, 8 max dynamic shared, 9 carveout, 10 cluster size
    // must be set, 11-13 required cluster width/height/depth, 14 non-portable cluster size
    // allowed, 15 cluster scheduling policy.
    let a = FuncAttributes {
        max_threads_per_block: func_attribute(f, 0)?,
        shared_size_bytes: func_attribute(f, 1)? as usize,
        const_size_bytes: func_attribute(f, 2)? as usize,
        local_size_bytes: func_attribute(f, 3)? as usize,
        num_regs: func_attribute(f, 4)?,
        ptx_version: func_attribute(f, 5)?,
        binary_version: func_attribute(f, 6)?,
        cache_mode_ca: func_attribute(f, 7)?,
        max_dynamic_shared_size_bytes: func_attribute(f, 8)?,
        preferred_shmem_carveout: func_attribute(f, 9)?,
        cluster_dim_must_be_set: func_attribute(f, 10)?,
        required_cluster: [func_attribute(f, 11)?, func_attribute(f, 12)?, func_attribute(f, 13)?],
        cluster_scheduling_policy_preference: func_attribute(f, 15)?,
        non_portable_cluster_size_allowed: func_attribute(f, 14)?,
        device_node_update_status: 0,
        shared_memory_mode: 0,
        reserved: [0; 14],
    };
    unsafe { crate::out(attr, a) }
}}

exports! { cudaFuncSetAttribute => fn(func: *const c_void, attrib: c_int, value: c_int) {
    // cudaFuncAttribute and CUfunction_attribute share these values (8, 9, ...).
    let f = register::function(func)?;
    cu!(cuFuncSetAttribute(f, attrib, value))?;
    // A success resets the thread's last error, as in NVIDIA's runtime.
    crate::state::clear_error();
    Ok(())
}}

exports! { cudaFuncSetCacheConfig => fn(func: *const c_void, config: c_int) {
    let f = register::function(func)?;
    cu!(cuFuncSetCacheConfig(f, config))
}}

exports! { cudaFuncSetSharedMemConfig => fn(func: *const c_void, _config: c_int) {
    register::function(func).map(|_| ())
}}

exports! { cudaOccupancyMaxActiveBlocksPerMultiprocessor => fn(n: *mut c_int, func: *const c_void, block: c_int, dyn_shared: usize) {
    let f = register::function(func)?;
    cu!(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, f, block, dyn_shared, 0))
}}

exports! { cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags => fn(n: *mut c_int, func: *const c_void, block: c_int, dyn_shared: usize, flags: c_uint) {
    let f = register::function(func)?;
    cu!(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, f, block, dyn_shared, flags))
}}

// How many clusters of the configuration's shape (its cudaLaunchAttributeClusterDimension,
// else the kernel's __cluster_dims__) can be resident at once: the driver's answer.
exports! { cudaOccupancyMaxActiveClusters => fn(n: *mut c_int, func: *const c_void, config: *const LaunchConfig) {
    if config.is_null() {
        return Err(Fail::new(cudaErrorInvalidValue, "null launch configuration"));
    }
    // SAFETY: non-null, the program's configuration.
    let c = unsafe { &*config };
    if c.num_attrs > 0 && c.attrs.is_null() {
        return Err(Fail::new(cudaErrorInvalidValue, "launch attributes: null array"));
    }
    let f = register::function(func)?;
    let shared = c_uint::try_from(c.dynamic_smem_bytes).map_err(|_| {
        Fail::new(
            cudaErrorInvalidValue,
            format!("{} bytes of dynamic shared memory", c.dynamic_smem_bytes),
        )
    })?;
    let dc = DriverLaunchConfig::new(c, shared);
    cu!(cuOccupancyMaxActiveClusters(n, f, (&dc as *const DriverLaunchConfig).cast()))
}}

exports! { cudaOccupancyAvailableDynamicSMemPerBlock => fn(size: *mut usize, func: *const c_void, blocks: c_int, block: c_int) {
    let f = register::function(func)?;
    cu!(cuOccupancyAvailableDynamicSMemPerBlock(size, f, blocks, block))
}}

/// `cudaEnableDefault` (0) / `cudaEnableLegacyStream` (1) / `cudaEnablePerThreadDefaultStream`
/// (2) are the driver's `CU_GET_PROC_ADDRESS_*` flags; the query result
/// (`cudaDriverEntryPointSuccess` 0, `SymbolNotFound` 1, `VersionNotSufficent` 2) is the
/// driver's `CUdriverProcAddressQueryResult`.
unsafe fn entry_point(
    symbol: *const std::ffi::c_char,
    f: *mut *mut c_void,
    version: c_int,
    flags: u64,
    status: *mut c_int,
) -> crate::RtResult {
    if symbol.is_null() || f.is_null() {
        return Err(Fail::new(
            cudaErrorInvalidValue,
            "null symbol or function pointer",
        ));
    }
    let mut s = 0;
    let r = cu!(cuGetProcAddress_v2(symbol, f, version, flags, &mut s));
    if !status.is_null() {
        // SAFETY: non-null, the program's output.
        unsafe { *status = s };
    }
    r
}

exports! { cudaGetDriverEntryPoint, cudaGetDriverEntryPoint_ptsz => fn(symbol: *const std::ffi::c_char, f: *mut *mut c_void, flags: u64, status: *mut c_int) {
    unsafe { entry_point(symbol, f, crate::state::runtime_version(), flags, status) }
}}

exports! { cudaGetDriverEntryPointByVersion, cudaGetDriverEntryPointByVersion_ptsz => fn(symbol: *const std::ffi::c_char, f: *mut *mut c_void, version: c_uint, flags: u64, status: *mut c_int) {
    unsafe { entry_point(symbol, f, version as c_int, flags, status) }
}}
