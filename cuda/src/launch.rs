//! Kernel launches and occupancy (CUDA driver API: Execution Control, Occupancy).
//!
//! A launch runs to completion before the call returns (every stream is always complete). A
//! kernel fault prints ptxjit's located report on stderr when it happens; the launch itself
//! succeeds, as on a GPU, where the kernel runs after `cuLaunchKernel` returns. The fault's
//! code (`CUDA_ERROR_ILLEGAL_ADDRESS`, misaligned: `CUDA_ERROR_MISALIGNED_ADDRESS`, an
//! `assert` `CUDA_ERROR_ASSERT`, a `trap` `CUDA_ERROR_LAUNCH_FAILED`, a timeout
//! `CUDA_ERROR_LAUNCH_TIMEOUT`) comes back from the next call that waits for the work
//! ([`crate::state::Driver::wait_for_work`]: `cuCtxSynchronize`, `cuStreamSynchronize`, a
//! blocking copy …), and launches until then do not run. A launch-configuration error is
//! still the launch's own. From that call on the code is sticky: as on NVIDIA's driver,
//! every later call that needs a context, in any context and on any thread, returns that
//! code (NVIDIA documents that the process must be ended and started again;
//! `cuDevicePrimaryCtxReset` clears it here: [`crate::state::Driver::check_sticky`]). A cooperative launch
//! (`cuLaunchCooperativeKernel`, `cuLaunchKernelEx` with `CU_LAUNCH_ATTRIBUTE_COOPERATIVE`)
//! may have at most max-active-blocks-per-SM × SM count CTAs
//! (`CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`); the host layer runs it with every CTA resident.

use crate::errors::*;
use crate::exports;
use crate::graph::Op;
use crate::state::{with_context, Driver};
use crate::{out, DrvResult, Fail};
use ptxjit::host::kernel_name::{param_label, quoted};
use ptxjit::host::{occupancy, Cooperative, Error, LaunchDims, LaunchPart};
use std::ffi::{c_int, c_uint, c_void};

/// `CU_LAUNCH_PARAM_*` keys of the `extra` array.
const PARAM_END: usize = 0;
const PARAM_BUFFER_POINTER: usize = 1;
const PARAM_BUFFER_SIZE: usize = 2;

/// The parameter buffer of a launch of `f` from `kernelParams` or `extra`.
///
/// Errors (`CUDA_ERROR_INVALID_VALUE`): both or (for a kernel with parameters) neither
/// given, a null `kernelParams` entry, an entry or `extra` pointer that cannot be a host
/// address ([`crate::maybe_host_address`]), an `extra` buffer
/// smaller than the parameters.
///
/// # Safety
/// `params` is null or holds one pointer per kernel parameter, each to a value of that
/// parameter's size; `extra` is null or a `CU_LAUNCH_PARAM_END`-terminated key/value array
/// (the API's contract).
pub(crate) unsafe fn param_buffer(
    d: &Driver,
    f: u64,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> Result<Vec<u8>, Fail> {
    let k = &d.function(f)?.kernel.compiled;
    let mut buf = vec![0u8; k.param_bytes as usize];
    // The driver API: "CUDA_ERROR_INVALID_VALUE will be returned if kernel parameters are
    // specified with both kernelParams and extra".
    if !params.is_null() && !extra.is_null() {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!(
                "kernel '{}': kernelParams and extra are both given; pass the parameters in one of them",
                k.name
            ),
        ));
    }
    if !params.is_null() {
        for (i, p) in k.params.iter().enumerate() {
            // SAFETY: one pointer per parameter.
            let src = unsafe { *params.add(i) };
            if src.is_null() {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!(
                        "kernel {}: kernelParams[{i}] ('{}') is null",
                        quoted(&k.name),
                        param_label(&k.name, &p.name)
                    ),
                ));
            }
            if !crate::maybe_host_address(src as usize, p.size as usize) {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!(
                        "kernel {}: kernelParams[{i}] ('{}', {} bytes) is {src:p}, which is no \
                         host address: kernelParams must hold one pointer per kernel \
                         parameter ({} here), each to that parameter's value",
                        quoted(&k.name),
                        param_label(&k.name, &p.name),
                        p.size,
                        k.params.len()
                    ),
                ));
            }
            let (o, n) = (p.offset as usize, p.size as usize);
            // SAFETY: the value has the parameter's size.
            unsafe {
                std::ptr::copy_nonoverlapping(src.cast::<u8>(), buf[o..o + n].as_mut_ptr(), n)
            };
        }
        return Ok(buf);
    }
    if extra.is_null() {
        if k.params.is_empty() {
            return Ok(buf);
        }
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!(
                "kernel {} takes {} parameters; kernelParams and extra are both null",
                quoted(&k.name),
                k.params.len()
            ),
        ));
    }
    let (mut ptr, mut size) = (std::ptr::null::<u8>(), None::<usize>);
    let mut i = 0;
    loop {
        // SAFETY: a terminated key/value array.
        let key = unsafe { *extra.add(i) } as usize;
        match key {
            PARAM_END => break,
            PARAM_BUFFER_POINTER => ptr = unsafe { *extra.add(i + 1) }.cast(),
            PARAM_BUFFER_SIZE => {
                let sp = unsafe { *extra.add(i + 1) }.cast::<usize>();
                if sp.is_null() {
                    return Err(Fail::new(
                        CUDA_ERROR_INVALID_VALUE,
                        "CU_LAUNCH_PARAM_BUFFER_SIZE points to null",
                    ));
                }
                if !crate::maybe_host_address(sp as usize, std::mem::size_of::<usize>()) {
                    return Err(Fail::new(
                        CUDA_ERROR_INVALID_VALUE,
                        format!("CU_LAUNCH_PARAM_BUFFER_SIZE points to {sp:p}, which is no host address"),
                    ));
                }
                size = Some(unsafe { sp.read_unaligned() });
            }
            other => {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("unknown key {other:#x} in the launch's extra array"),
                ))
            }
        }
        i += 2;
    }
    let (Some(size), false) = (size, ptr.is_null()) else {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            "extra needs CU_LAUNCH_PARAM_BUFFER_POINTER and CU_LAUNCH_PARAM_BUFFER_SIZE",
        ));
    };
    if !crate::maybe_host_address(ptr as usize, buf.len()) {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!(
                "kernel {}: CU_LAUNCH_PARAM_BUFFER_POINTER is {ptr:p}, which is no host address",
                quoted(&k.name)
            ),
        ));
    }
    if size < buf.len() {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!(
                "kernel {} takes {} bytes of parameters; the buffer has {size}",
                quoted(&k.name),
                buf.len()
            ),
        ));
    }
    // SAFETY: the buffer holds `size` >= buf.len() bytes.
    unsafe { std::ptr::copy_nonoverlapping(ptr, buf.as_mut_ptr(), buf.len()) };
    Ok(buf)
}

/// Reports a launch that `call` refused before it ran (a launch shape or shared memory size
/// outside the limits, parameters that cannot be read, a bad handle): under a tool it is one
/// of its API errors, reported with every failed call ("Program hit … on CUDA API call to
/// cuLaunchKernel", `sanitizer::driver_call`); else its reason goes to stderr once per
/// distinct reason, unless tracing (which prints it with every failed call): a program usually
/// shows only the code (`CUDA_ERROR_INVALID_VALUE`), and NVIDIA's driver says no more. Inside
/// a call of ptxjit's runtime (`cudaLaunchKernelExC` calling `cuLaunchKernelEx`) the reason
/// waits for the end of that call, which prints it under the runtime function's name and
/// code (`crate::sanitizer::refused_in_runtime`). A launch that faulted, timed out or was
/// interrupted made its error sticky and has printed its report already.
fn say_refused<T>(d: &Driver, call: &str, r: Result<T, Fail>) -> Result<T, Fail> {
    let Err(f) = &r else {
        return r;
    };
    if d.sticky.is_some() {
        return r;
    }
    // A tool reports the call (with this reason), tracing prints it with the call.
    let say = d.config.tool.is_none() && !crate::tracing();
    if !crate::sanitizer::refused_in_runtime(&f.message, say) && say {
        crate::sanitizer::say_once(call, &f.message, crate::errors::name(f.code));
    }
    r
}

/// For a fault located only in PTX the program handed over from memory, with no source line
/// (an nvcc program built without `-lineinfo`: `cuModuleLoadData image (compute_80 PTX):57:3`),
/// what that name is and how to get a source line or a file to look at.
fn in_memory_note(e: &Error) -> Option<String> {
    let Error::Fault(r) = e else {
        return None;
    };
    let name = r.ptx_file.name();
    if r.source.is_some() || !(crate::module::in_memory(name) || r.ptx_file.is_linked()) {
        return None;
    }
    Some(format!(
        "'{name}' is the PTX the program loaded from memory (there is no such file), \
         and the kernel has no line information: rebuild with \
         `nvcc -lineinfo` (numba: `@cuda.jit(lineinfo=True)`) to have the report name the \
         source line, or run with PTXJIT_DUMP_PTX=DIR to have ptxjit write each PTX text it \
         loads to a file in DIR, which the report then names"
    ))
}

/// Launches `f` on `stream`, or records the launch (parameters copied) if the stream is
/// capturing.
fn launch_or_capture(
    d: &mut Driver,
    f: u64,
    dims: LaunchDims,
    stream: u64,
    params: Vec<u8>,
    cooperative: bool,
    cluster: Option<[u32; 3]>,
) -> DrvResult {
    if crate::graph::capturing(d, stream)? {
        let op = Op::Kernel {
            f,
            dims,
            params,
            cooperative,
            cluster,
        };
        return crate::graph::record(d, stream, op);
    }
    launch(d, f, dims, stream, params, cooperative, cluster)
}

/// The cluster shape of a launch: the launch attribute's, else the function's required
/// cluster attributes (`cuFuncSetAttribute`), else none (the runtime then uses the kernel's
/// `.reqnctapercluster`). The two, where both are given, must agree. Below compute capability
/// 9.0 (`CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH` 0) a shape of more than one CTA, from either or
/// from the kernel's `.reqnctapercluster`, is `CUDA_ERROR_NOT_SUPPORTED`: the device has no
/// clusters (a shape of 1x1x1 is the launch without clusters and runs).
fn launch_cluster(
    kernel: &ptxjit::host::Kernel,
    launch: Option<[u32; 3]>,
    required: Option<[u32; 3]>,
) -> Result<Option<[u32; 3]>, Fail> {
    let name = quoted(&kernel.compiled.name);
    let shape = match (launch, required) {
        (Some(l), Some(r)) if l != r => {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_CLUSTER_SIZE,
                format!(
                    "kernel {name}: the launch's cluster shape {l:?} differs from the \
                     required cluster shape {r:?} set with cuFuncSetAttribute"
                ),
            ))
        }
        (Some(l), _) => Some(l),
        (None, r) => r,
    };
    if !crate::device::cluster_launch() {
        let (major, minor) = crate::device::compute_capability();
        let given = shape.or(kernel.compiled.cluster.reqnctapercluster);
        let what = match given {
            Some(s) if s != [1, 1, 1] => Some(format!("clusters of {s:?} CTAs")),
            _ if kernel.compiled.cluster.explicit => Some("clusters (.explicitcluster)".into()),
            _ => None,
        };
        if let Some(what) = what {
            return Err(Fail::new(
                CUDA_ERROR_NOT_SUPPORTED,
                format!(
                    "kernel {name}: a launch in thread block {what} needs \
                     compute capability 9.0 or higher; the device reports {major}.{minor} \
                     (ptxjit exec --cc 9.0, PTXJIT_CC=9.0)"
                ),
            ));
        }
    }
    Ok(shape)
}

/// A block the device runs (each dimension within `CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_*`, at
/// most `CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK` threads) but with more threads than the
/// kernel's `.maxntid` allows (`CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`) is
/// `CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES`, as NVIDIA's driver answers: the kernel was compiled
/// for at most that many threads. A block beyond the device's limits, or one that differs
/// from `.reqntid`, stays `CUDA_ERROR_INVALID_VALUE` (the host layer's launch check). The
/// error is not sticky.
fn over_max_threads(kernel: &ptxjit::host::Kernel, dims: LaunchDims) -> DrvResult {
    let k = &kernel.compiled;
    let Some(max) = k.max_threads else {
        return Ok(());
    };
    let [bx, by, bz] = dims.block;
    let dim_limits = [2, 3, 4].map(|a| crate::device::attribute(a).unwrap_or(0).max(0) as u32);
    let fits_device = dims
        .block
        .iter()
        .zip(dim_limits)
        .all(|(&v, m)| v >= 1 && v <= m);
    let threads = bx as u64 * by as u64 * bz as u64;
    let device_max = crate::device::attribute(1).unwrap_or(0).max(0) as u64;
    let shape_required = k.req_ntid.is_some_and(|r| r != dims.block);
    if fits_device && !shape_required && threads <= device_max && threads > u64::from(max) {
        return Err(Fail::new(
            CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
            format!(
                "kernel {}: block [{bx}, {by}, {bz}] has {threads} threads; the kernel's \
                 .maxntid (__launch_bounds__) allows at most {max} threads per block",
                quoted(&k.name)
            ),
        ));
    }
    Ok(())
}

/// Print, once per function handle, the note for a kernel that looks written for warps in
/// lockstep and runs in group-major order (`Kernel::lockstep_note`) on stderr.
fn lockstep_note_once(f: u64, kernel: &ptxjit::host::Kernel, lockstep: bool) {
    static NOTED: std::sync::Mutex<Vec<u64>> = std::sync::Mutex::new(Vec::new());
    let Some(note) = kernel.lockstep_note(lockstep) else {
        return;
    };
    let Ok(mut noted) = NOTED.lock() else {
        return;
    };
    if !noted.contains(&f) {
        noted.push(f);
        eprintln!("ptxjit: {note}");
    }
}

/// Launches `f` (cooperatively when `cooperative`); a fault's report goes to stderr, the
/// launch succeeds and the fault waits for the next call that waits for the work
/// ([`Driver::pending`]). A Ctrl-C during the launch ([`crate::interrupt`]) ends the process
/// after the launch's report.
pub fn launch(
    d: &mut Driver,
    f: u64,
    dims: LaunchDims,
    stream: u64,
    params: Vec<u8>,
    cooperative: bool,
    cluster: Option<[u32; 3]>,
) -> DrvResult {
    crate::interrupt::begin();
    let r = launch_now(d, f, dims, stream, params, cooperative, cluster);
    if crate::interrupt::end() {
        d.flush_printf();
        crate::interrupt::end_process();
    }
    r
}

/// [`launch`] itself.
fn launch_now(
    d: &mut Driver,
    f: u64,
    dims: LaunchDims,
    stream: u64,
    params: Vec<u8>,
    cooperative: bool,
    cluster: Option<[u32; 3]>,
) -> DrvResult {
    d.check_stream(stream)?;
    d.flush_printf();
    let fs = d.function(f)?;
    let kernel = fs.kernel.clone();
    let attrs = fs.attrs;
    over_max_threads(&kernel, dims)?;
    let mut opts = d.config.launch_options();
    opts.stack_bytes = Some(crate::context::launch_stack_bytes(d));
    lockstep_note_once(f, &kernel, opts.lockstep);
    opts.cluster = launch_cluster(&kernel, cluster, attrs.required_cluster())?;
    opts.cluster_non_portable = attrs.non_portable_cluster;
    if cooperative {
        let (_, per_sm) = crate::device::shared_limits();
        opts.cooperative = Some(Cooperative {
            shared_per_sm: per_sm as u64,
        });
    }
    // A cluster shape the launch cannot use (the grid not a whole number of clusters, more
    // CTAs than the limit, a zero dimension, one that differs from the kernel's
    // .reqnctapercluster) is CUDA_ERROR_INVALID_CLUSTER_SIZE, "a kernel launch error due to
    // cluster misconfiguration", as NVIDIA's driver answers. A launch with no shape at all
    // (an .explicitcluster kernel launched without one) and the other launch-shape errors
    // keep the launch's codes.
    let has_shape = opts.cluster.is_some() || kernel.compiled.cluster.reqnctapercluster.is_some();
    let checked = kernel.check_launch(dims, &opts);
    if let Err((LaunchPart::Cluster, e @ Error::LaunchConfig(_))) = &checked {
        if has_shape {
            return Err(Fail::new(CUDA_ERROR_INVALID_CLUSTER_SIZE, e.to_string()));
        }
    }
    // After a fault that no call has waited for yet, the context's work has stopped: a launch
    // the device would take is queued behind the fault and never runs, and succeeds, as on a
    // GPU; the next call that waits returns the fault.
    if d.pending.is_some() {
        return checked.map_err(|(_, e)| crate::host_fail(e));
    }
    // Registered host ranges mapped for kernels: shadows in before, out after.
    let mapped = crate::registered::sync_in(d)?;
    let result = d.host.launch_with_params(&kernel, dims, params, &opts);
    // initcheck's and racecheck's findings do not stop the kernel: reported, the program
    // goes on (each is one error of the tool).
    for r in d.host.take_init_reports() {
        crate::sanitizer::report(&r.sanitizer_text());
    }
    for r in d.host.take_race_reports() {
        crate::sanitizer::report(&r.sanitizer_text());
    }
    crate::registered::sync_out(d, mapped)?;
    // A tool's findings that did not stop the kernel are reported, and the launch succeeded.
    let result = match result {
        Err(Error::Sanitizer(rep)) => {
            for f in &rep.findings {
                crate::sanitizer::report(&f.sanitizer_text());
            }
            match &rep.stopped {
                None => return Ok(()),
                Some(_) => Err(Error::Sanitizer(rep)),
            }
        }
        other => other,
    };
    match result {
        Ok(_) => Ok(()),
        Err(e) => {
            let sticky = matches!(
                e,
                Error::Fault(_)
                    | Error::Timeout(..)
                    | Error::Deadlock(_)
                    | Error::Interrupted(..)
                    | Error::Sanitizer(_)
            );
            let tool_text = match &e {
                Error::Fault(r) => r.sanitizer_text(),
                // The findings were reported above: what stopped the launch.
                Error::Sanitizer(rep) => rep.stopped.clone().unwrap_or_default(),
                other => other.to_string(),
            };
            let note = in_memory_note(&e);
            let fail = crate::host_fail(e);
            if !sticky {
                return Err(fail);
            }
            if d.config.tool.is_some() {
                crate::sanitizer::report(&tool_text);
            } else {
                eprintln!("ptxjit: {}", fail.message);
                if let Some(note) = note {
                    eprintln!("ptxjit: {note}");
                }
                eprintln!("ptxjit: {}", comes_back_note(fail.code));
            }
            d.pending = Some(fail.code);
            Ok(())
        }
    }
}

/// The `cudaError_t` name NVIDIA's runtime gives the code of a launch that failed after it
/// was taken (a fault, a time limit, a deadlock: the codes [`crate::host_fail`] gives them);
/// the numbers are the driver's (CUDA Runtime API, `cudaError`). `None` for a code no such
/// launch ends with.
fn runtime_name_of_launch_failure(code: CUresult) -> Option<&'static str> {
    Some(match code {
        CUDA_ERROR_ILLEGAL_ADDRESS => "cudaErrorIllegalAddress",
        CUDA_ERROR_MISALIGNED_ADDRESS => "cudaErrorMisalignedAddress",
        CUDA_ERROR_LAUNCH_FAILED => "cudaErrorLaunchFailure",
        CUDA_ERROR_ASSERT => "cudaErrorAssert",
        CUDA_ERROR_ILLEGAL_INSTRUCTION => "cudaErrorIllegalInstruction",
        CUDA_ERROR_LAUNCH_TIMEOUT => "cudaErrorLaunchTimeout",
        CUDA_ERROR_UNKNOWN => "cudaErrorUnknown",
        _ => return None,
    })
}

/// The line after a taken launch's failure report: the launch succeeded and `code` comes
/// back from the next call that waits, sticky. In the words of the API the program called:
/// the runtime's (`cudaErrorAssert (710)`, `cudaDeviceSynchronize` …) when the launch came
/// from a runtime call (`cudaLaunchKernel`, `<<<...>>>`, `cudaGraphLaunch`), else the
/// driver's.
fn comes_back_note(code: CUresult) -> String {
    let runtime = crate::sanitizer::in_runtime_call()
        .then(|| runtime_name_of_launch_failure(code))
        .flatten();
    match runtime {
        Some(name) => format!(
            "the launch succeeded, as on a GPU, where the kernel runs after it returns; \
             {name} ({code}) comes back from the next call that waits for the work \
             (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, a blocking \
             cudaMemcpy …) and is sticky: every CUDA call in this process returns it from \
             then on, as on NVIDIA's runtime, where the process must be ended and started \
             again (cudaDeviceReset clears it here)"
        ),
        None => format!(
            "the launch succeeded, as on a GPU, where the kernel runs after it returns; \
             {} ({code}) comes back from the next call that waits for the work \
             (cuCtxSynchronize, cuStreamSynchronize, a blocking cuMemcpy …) and is sticky: \
             every CUDA call in this process that needs a context returns it from then on, \
             as on NVIDIA's driver, where the process must be ended and started again \
             (cuDevicePrimaryCtxReset, cudaDeviceReset clear it here)",
            crate::errors::name(code)
        ),
    }
}

exports! { cuLaunchKernel, cuLaunchKernel_ptsz => fn(f: u64, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: u64, params: *mut *mut c_void, extra: *mut *mut c_void) {
    with_context(|d| {
        let r = unsafe { param_buffer(d, f, params, extra) }.and_then(|buf| {
            let dims = LaunchDims { grid: [gx, gy, gz], block: [bx, by, bz], shared_bytes: shared };
            launch_or_capture(d, f, dims, stream, buf, false, None)
        });
        say_refused(d, "cuLaunchKernel", r)
    })
}}

exports! { cuLaunchCooperativeKernel, cuLaunchCooperativeKernel_ptsz => fn(f: u64, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: u64, params: *mut *mut c_void) {
    with_context(|d| {
        let r = unsafe { param_buffer(d, f, params, std::ptr::null_mut()) }.and_then(|buf| {
            let dims = LaunchDims { grid: [gx, gy, gz], block: [bx, by, bz], shared_bytes: shared };
            launch_or_capture(d, f, dims, stream, buf, true, None)
        });
        say_refused(d, "cuLaunchCooperativeKernel", r)
    })
}}

/// `CU_LAUNCH_ATTRIBUTE_COOPERATIVE`.
const LAUNCH_ATTRIBUTE_COOPERATIVE: c_uint = 2;
/// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION` (value: `struct { unsigned x, y, z; }`).
const LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: c_uint = 4;

/// `CUlaunchAttribute`: the id, padding to 8 bytes, and a 64-byte value union.
#[repr(C)]
pub struct CUlaunchAttribute {
    pub id: c_uint,
    pub pad: [u8; 4],
    pub value: [u64; 8],
}

/// `CUlaunchConfig`.
#[repr(C)]
pub struct CUlaunchConfig {
    pub grid: [c_uint; 3],
    pub block: [c_uint; 3],
    pub shared_mem_bytes: c_uint,
    pub stream: u64,
    pub attrs: *mut c_void,
    pub num_attrs: c_uint,
}

/// The launch attributes of `c` that change what runs: whether the launch is cooperative, and
/// its cluster shape. The others (priority, access policy, cluster scheduling policy …) are
/// scheduling hints for a GPU; none changes what a kernel computes here.
///
/// # Safety
/// `c.attrs` holds `c.num_attrs` attributes (checked non-null when there are any).
unsafe fn launch_attributes(c: &CUlaunchConfig) -> (bool, Option<[u32; 3]>) {
    let mut cooperative = false;
    let mut cluster = None;
    for i in 0..c.num_attrs as usize {
        // SAFETY: `num_attrs` attributes by the API's contract.
        let a = unsafe { &*c.attrs.cast::<CUlaunchAttribute>().add(i) };
        if a.id == LAUNCH_ATTRIBUTE_COOPERATIVE {
            // The value's `int cooperative` member: its first 4 bytes.
            cooperative = a.value[0] as u32 != 0;
        }
        if a.id == LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION {
            // The value's `clusterDim { unsigned x, y, z; }`: three 4-byte members.
            cluster = Some([
                a.value[0] as u32,
                (a.value[0] >> 32) as u32,
                a.value[1] as u32,
            ]);
        }
    }
    (cooperative, cluster)
}

exports! { cuOccupancyMaxActiveClusters => fn(n: *mut c_int, f: u64, config: *const CUlaunchConfig) {
    if config.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null launch configuration"));
    }
    // SAFETY: a CUlaunchConfig by the API's contract.
    let c = unsafe { &*config };
    if c.num_attrs > 0 && c.attrs.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "launch attributes: null array"));
    }
    let (_, cluster) = unsafe { launch_attributes(c) };
    let v = with_context(|d| max_active_clusters(d, f, c, cluster))?;
    unsafe { out(n, v) }
}}

/// `cuOccupancyMaxActiveClusters`: how many clusters of the launch's shape (`cluster`, its
/// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`, else the kernel's required shape from
/// `cuFuncSetAttribute` or `__cluster_dims__`) with `c`'s block and dynamic shared memory are
/// resident at once: the CTAs that fit on one multiprocessor times the multiprocessors, in
/// whole clusters, and at least one cluster when a CTA fits on a multiprocessor at all.
/// A GPU keeps each cluster within one GPC (a group of multiprocessors: about 16 to 18 in
/// each of an H100's), so its answer is the sum over its GPCs and can be lower; ptxjit has no GPCs
/// (its multiprocessors count as one), and one worker of its CTA scheduler holds a whole
/// cluster and takes turns at its CTAs (docs/clusters.md), so a cluster of any allowed size
/// runs even where its CTAs outnumber what the multiprocessors hold, which on a GPU would be
/// an answer of 0 and a refused launch. Errors,
/// as CUDA documents them: no shape anywhere, or one of more CTAs than a cluster may have (8,
/// 16 with `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED`), is
/// `CUDA_ERROR_INVALID_CLUSTER_SIZE`; [`launch_cluster`]'s checks (a shape other than the
/// required one, a device below compute capability 9.0).
fn max_active_clusters(
    d: &Driver,
    f: u64,
    c: &CUlaunchConfig,
    cluster: Option<[u32; 3]>,
) -> Result<c_int, Fail> {
    let fs = d.function(f)?;
    let name = quoted(&fs.kernel.compiled.name);
    let shape = launch_cluster(&fs.kernel, cluster, fs.attrs.required_cluster())?
        .or(fs.kernel.compiled.cluster.reqnctapercluster)
        .ok_or_else(|| {
            Fail::new(
                CUDA_ERROR_INVALID_CLUSTER_SIZE,
                format!(
                    "kernel {name}: no cluster shape: give one with \
                     CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (or __cluster_dims__)"
                ),
            )
        })?;
    let ctas = shape.iter().map(|&x| u64::from(x)).product::<u64>();
    let most = if fs.attrs.non_portable_cluster {
        ptxjit::runtime::cluster::MAX_CLUSTER_CTAS
    } else {
        ptxjit::runtime::cluster::PORTABLE_CLUSTER_CTAS
    };
    if ctas == 0 || ctas > u64::from(most) {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_CLUSTER_SIZE,
            format!("kernel {name}: a cluster of {shape:?} CTAs (1 to {most})"),
        ));
    }
    let block = c.block.iter().map(|&x| u64::from(x)).product::<u64>();
    let block = c_int::try_from(block).unwrap_or(c_int::MAX);
    let per_sm = blocks_per_sm(d, f, block, c.shared_mem_bytes as usize)?;
    let resident = per_sm as u64 * crate::device::sm_count().max(0) as u64 / ctas;
    let resident = if per_sm > 0 { resident.max(1) } else { 0 };
    Ok(resident.min(c_int::MAX as u64) as c_int)
}

exports! { cuLaunchKernelEx, cuLaunchKernelEx_ptsz => fn(config: *const CUlaunchConfig, f: u64, params: *mut *mut c_void, extra: *mut *mut c_void) {
    if config.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null launch configuration"));
    }
    // SAFETY: a CUlaunchConfig by the API's contract.
    let c = unsafe { &*config };
    if c.num_attrs > 0 && c.attrs.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "launch attributes: null array"));
    }
    let (cooperative, cluster) = unsafe { launch_attributes(c) };
    with_context(|d| {
        let r = unsafe { param_buffer(d, f, params, extra) }.and_then(|buf| {
            let dims = LaunchDims { grid: c.grid, block: c.block, shared_bytes: c.shared_mem_bytes };
            launch_or_capture(d, f, dims, c.stream, buf, cooperative, cluster)
        });
        say_refused(d, "cuLaunchKernelEx", r)
    })
}}

/// Blocks of `f` with `block` threads and `dyn_shared` bytes that fit on one multiprocessor.
fn blocks_per_sm(d: &Driver, f: u64, block: c_int, dyn_shared: usize) -> Result<c_int, Fail> {
    let k = &d.function(f)?.kernel.compiled;
    if block <= 0 {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            "block size must be positive",
        ));
    }
    let (_, per_sm) = crate::device::shared_limits();
    let n = occupancy::max_active_ctas_per_sm(k, block as u32, dyn_shared as u64, per_sm as u64);
    Ok(n as c_int)
}

exports! { cuOccupancyMaxActiveBlocksPerMultiprocessor => fn(n: *mut c_int, f: u64, block: c_int, dyn_shared: usize) {
    let v = with_context(|d| blocks_per_sm(d, f, block, dyn_shared))?;
    unsafe { out(n, v) }
}}

exports! { cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags => fn(n: *mut c_int, f: u64, block: c_int, dyn_shared: usize, _flags: c_uint) {
    let v = with_context(|d| blocks_per_sm(d, f, block, dyn_shared))?;
    unsafe { out(n, v) }
}}

/// `size_t (*)(int blockSize)`: dynamic shared memory a block size needs.
type SmemFn = Option<unsafe extern "C" fn(c_int) -> usize>;

fn potential_block_size(
    d: &Driver,
    f: u64,
    smem_fn: SmemFn,
    dyn_shared: usize,
    limit: c_int,
) -> Result<(c_int, c_int), Fail> {
    let k = &d.function(f)?.kernel.compiled;
    let mut top = k.max_threads.unwrap_or(1024).min(1024) as c_int;
    if limit > 0 {
        top = top.min(limit);
    }
    let (mut best_block, mut best_threads) = (0, 0);
    let mut b = top / 32 * 32;
    while b >= 32 {
        // SAFETY: the program's callback, called as the driver calls it.
        let smem = match smem_fn {
            Some(cb) => unsafe { cb(b) },
            None => dyn_shared,
        };
        let n = blocks_per_sm(d, f, b, smem)?;
        if n * b > best_threads {
            best_threads = n * b;
            best_block = b;
        }
        b -= 32;
    }
    if best_block == 0 {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            "no block size fits the kernel's resources",
        ));
    }
    let per_sm = best_threads / best_block;
    Ok((per_sm * crate::device::sm_count(), best_block))
}

exports! { cuOccupancyMaxPotentialBlockSize => fn(min_grid: *mut c_int, block: *mut c_int, f: u64, smem_fn: SmemFn, dyn_shared: usize, limit: c_int) {
    let (g, b) = with_context(|d| potential_block_size(d, f, smem_fn, dyn_shared, limit))?;
    unsafe {
        out(min_grid, g)?;
        out(block, b)
    }
}}

exports! { cuOccupancyMaxPotentialBlockSizeWithFlags => fn(min_grid: *mut c_int, block: *mut c_int, f: u64, smem_fn: SmemFn, dyn_shared: usize, limit: c_int, _flags: c_uint) {
    let (g, b) = with_context(|d| potential_block_size(d, f, smem_fn, dyn_shared, limit))?;
    unsafe {
        out(min_grid, g)?;
        out(block, b)
    }
}}

exports! { cuOccupancyAvailableDynamicSMemPerBlock => fn(size: *mut usize, f: u64, blocks: c_int, block: c_int) {
    let v = with_context(|d| {
        let k = &d.function(f)?.kernel.compiled;
        if blocks <= 0 || block <= 0 {
            return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "block count and size must be positive"));
        }
        // As cuda_occupancy.h's cudaOccAvailableDynamicSMemPerBlock: the multiprocessor's
        // share per block in whole allocation units, at most the per-block limit, less the
        // static and the reserved shared memory.
        let (optin, per_sm) = crate::device::shared_limits();
        let unit = occupancy::SHARED_ALLOC_UNIT as usize;
        let reserved = crate::device::reserved_shared() as usize;
        let each = (per_sm as usize / blocks as usize / unit * unit).min(optin as usize + reserved);
        Ok(each.saturating_sub(k.static_shared_bytes as usize + reserved))
    })?;
    unsafe { out(size, v) }
}}
