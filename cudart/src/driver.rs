//! The driver library this runtime translates onto: `libcuda.so.1`, loaded at first use as
//! NVIDIA's runtime loads it — first by its soname (so `LD_LIBRARY_PATH` wins), then from the
//! directory this library was loaded from (ptxjit builds both into one directory). Functions
//! are resolved by their exported ABI names; one the driver lacks answers
//! `cudaErrorNotSupported` when called. No driver gives `cudaErrorInsufficientDriver`.

use crate::errors::*;
use crate::Fail;
use std::ffi::{c_char, c_float, c_int, c_uint, c_void, CStr};
use std::sync::OnceLock;

/// A device pointer, context, module, function, stream, event, array or graph handle: the
/// driver's handles are pointers or 64-bit values, passed alike on x86-64 and AArch64.
pub type H = u64;

macro_rules! driver_api {
    ($($name:ident($($arg:ty),* $(,)?);)*) => {
        /// The driver functions this runtime calls, each `None` when the driver lacks it.
        pub struct Api {
            $(pub $name: Option<unsafe extern "C" fn($($arg),*) -> CUresult>,)*
        }

        impl Api {
            /// # Safety
            /// `lib` is a CUDA driver library: each symbol has the signature written here.
            unsafe fn resolve(lib: &libloading::Library) -> Api {
                Api {
                    $($name: unsafe {
                        lib.get::<unsafe extern "C" fn($($arg),*) -> CUresult>(
                            concat!(stringify!($name), "\0").as_bytes(),
                        )
                    }
                    .ok()
                    .map(|f| *f),)*
                }
            }
        }
    };
}

driver_api! {
    cuInit(c_uint);
    cuGetExportTable(*mut *const c_void, *const [u8; 16]);
    cuDriverGetVersion(*mut c_int);
    cuDeviceGetCount(*mut c_int);
    cuDeviceGet(*mut c_int, c_int);
    cuDevicePrimaryCtxRelease_v2(c_int);
    cuCtxEnablePeerAccess(H, c_uint);
    cuCtxDisablePeerAccess(H);
    cuDeviceGetName(*mut c_char, c_int, c_int);
    cuDeviceGetUuid_v2(*mut [u8; 16], c_int);
    cuDeviceTotalMem_v2(*mut usize, c_int);
    cuDeviceGetPCIBusId(*mut c_char, c_int, c_int);
    cuDeviceGetByPCIBusId(*mut c_int, *const c_char);
    cuDeviceCanAccessPeer(*mut c_int, c_int, c_int);
    cuDeviceGetP2PAttribute(*mut c_int, c_int, c_int, c_int);
    cuDeviceGetAttribute(*mut c_int, c_int, c_int);
    cuDevicePrimaryCtxRetain(*mut H, c_int);
    cuDevicePrimaryCtxReset_v2(c_int);
    cuDevicePrimaryCtxSetFlags_v2(c_int, c_uint);
    cuDevicePrimaryCtxGetState(c_int, *mut c_uint, *mut c_int);
    cuCtxGetCurrent(*mut H);
    cuCtxGetFlags(*mut c_uint);
    cuCtxGetDevice(*mut c_int);
    cuCtxSetCurrent(H);
    cuCtxSynchronize();
    cuCtxGetLimit(*mut usize, c_uint);
    cuCtxSetLimit(c_uint, usize);
    cuCtxGetCacheConfig(*mut c_int);
    cuCtxSetCacheConfig(c_int);
    cuCtxGetStreamPriorityRange(*mut c_int, *mut c_int);
    cuModuleLoadData(*mut H, *const c_void);
    cuModuleGetFunction(*mut H, H, *const c_char);
    cuModuleGetGlobal_v2(*mut H, *mut usize, H, *const c_char);
    cuLibraryLoadData(*mut H, *const c_void, *mut c_uint, *mut *mut c_void, c_uint, *mut c_uint, *mut *mut c_void, c_uint);
    cuLibraryLoadFromFile(*mut H, *const c_char, *mut c_uint, *mut *mut c_void, c_uint, *mut c_uint, *mut *mut c_void, c_uint);
    cuLibraryUnload(H);
    cuLibraryGetKernel(*mut H, H, *const c_char);
    cuLibraryGetGlobal(*mut H, *mut usize, H, *const c_char);
    cuLibraryGetKernelCount(*mut c_uint, H);
    cuLibraryEnumerateKernels(*mut H, c_uint, H);
    cuKernelSetAttribute(c_int, c_int, H, c_int);
    cuFuncGetAttribute(*mut c_int, c_int, H);
    cuFuncSetAttribute(H, c_int, c_int);
    cuFuncSetCacheConfig(H, c_int);
    cuLaunchKernel(H, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, H, *mut *mut c_void, *mut *mut c_void);
    cuLaunchCooperativeKernel(H, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, H, *mut *mut c_void);
    cuLaunchKernelEx(*const c_void, H, *mut *mut c_void, *mut *mut c_void);
    cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(*mut c_int, H, c_int, usize, c_uint);
    cuOccupancyMaxActiveClusters(*mut c_int, H, *const c_void);
    cuOccupancyAvailableDynamicSMemPerBlock(*mut usize, H, c_int, c_int);
    cuMemAlloc_v2(*mut H, usize);
    cuMemAllocPitch_v2(*mut H, *mut usize, usize, usize, c_uint);
    cuMemFree_v2(H);
    cuMemAllocAsync(*mut H, usize, H);
    cuMemFreeAsync(H, H);
    cuMemAllocManaged(*mut H, usize, c_uint);
    cuDeviceGetDefaultMemPool(*mut H, c_int);
    cuDeviceGetMemPool(*mut H, c_int);
    cuDeviceSetMemPool(c_int, H);
    cuMemPoolCreate(*mut H, *const c_void);
    cuMemPoolDestroy(H);
    cuMemAllocFromPoolAsync(*mut H, usize, H, H);
    cuMemPoolTrimTo(H, usize);
    cuMemPoolSetAttribute(H, c_int, *mut c_void);
    cuMemPoolGetAttribute(H, c_int, *mut c_void);
    cuMemHostAlloc(*mut *mut c_void, usize, c_uint);
    cuMemFreeHost(*mut c_void);
    cuMemHostRegister_v2(*mut c_void, usize, c_uint);
    cuMemHostUnregister(*mut c_void);
    cuMemHostGetDevicePointer_v2(*mut H, *mut c_void, c_uint);
    cuMemHostGetFlags(*mut c_uint, *mut c_void);
    cuMemGetInfo_v2(*mut usize, *mut usize);
    cuMemcpy(H, H, usize);
    cuMemcpyAsync(H, H, usize, H);
    cuMemcpyHtoD_v2(H, *const c_void, usize);
    cuMemGetAddressRange_v2(*mut H, *mut usize, H);
    cuMemcpyDtoH_v2(*mut c_void, H, usize);
    cuMemcpyDtoD_v2(H, H, usize);
    cuMemcpyHtoDAsync_v2(H, *const c_void, usize, H);
    cuMemcpyDtoHAsync_v2(*mut c_void, H, usize, H);
    cuMemcpyDtoDAsync_v2(H, H, usize, H);
    cuMemsetD8_v2(H, u8, usize);
    cuMemsetD8Async(H, u8, usize, H);
    cuMemPrefetchAsync_v2(H, usize, crate::memory::MemLocation, c_uint, H);
    cuMemAdvise_v2(H, usize, c_uint, crate::memory::MemLocation);
    cuMemRangeGetAttribute(*mut c_void, usize, c_uint, H, usize);
    cuMemRangeGetAttributes(*mut *mut c_void, *const usize, *const c_uint, usize, H, usize);
    cuMemsetD2D8_v2(H, usize, u8, usize, usize);
    cuMemsetD2D8Async(H, usize, u8, usize, usize, H);
    cuMemcpy2D_v2(*const c_void);
    cuMemcpy2DAsync_v2(*const c_void, H);
    cuMemcpy3D_v2(*const c_void);
    cuMemcpy3DAsync_v2(*const c_void, H);
    cuPointerGetAttribute(*mut c_void, c_int, H);
    cuStreamCreate(*mut H, c_uint);
    cuStreamCreateWithPriority(*mut H, c_uint, c_int);
    cuStreamDestroy_v2(H);
    cuStreamSynchronize(H);
    cuStreamQuery(H);
    cuStreamWaitEvent(H, H, c_uint);
    cuStreamGetFlags(H, *mut c_uint);
    cuStreamGetPriority(H, *mut c_int);
    cuStreamAddCallback(H, *mut c_void, *mut c_void, c_uint);
    cuLaunchHostFunc(H, *mut c_void, *mut c_void);
    cuEventCreate(*mut H, c_uint);
    cuEventDestroy_v2(H);
    cuEventRecord(H, H);
    cuEventRecordWithFlags(H, H, c_uint);
    cuEventQuery(H);
    cuEventSynchronize(H);
    cuEventElapsedTime_v2(*mut c_float, H, H);
    cuArray3DCreate_v2(*mut H, *const c_void);
    cuArrayDestroy(H);
    cuArray3DGetDescriptor_v2(*mut c_void, H);
    cuTexObjectCreate(*mut u64, *const c_void, *const c_void, *const c_void);
    cuTexObjectDestroy(u64);
    cuSurfObjectCreate(*mut u64, *const c_void);
    cuSurfObjectDestroy(u64);
    cuGetProcAddress_v2(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int);
    cuStreamBeginCapture_v2(H, c_int);
    cuStreamEndCapture(H, *mut H);
    cuStreamIsCapturing(H, *mut c_int);
    cuStreamGetCaptureInfo_v3(H, *mut c_int, *mut u64, *mut H, *mut *const H, *mut *const c_void, *mut usize);
    cuThreadExchangeStreamCaptureMode(*mut c_int);
    cuStreamGetId(H, *mut u64);
    cuGraphInstantiateWithFlags(*mut H, H, u64);
    cuGraphLaunch(H, H);
    cuGraphDestroy(H);
    cuGraphExecDestroy(H);
    cuGraphCreate(*mut H, c_uint);
    cuGraphAddEmptyNode(*mut H, H, *const H, usize);
    cuGraphAddHostNode(*mut H, H, *const H, usize, *const c_void);
    cuGraphAddChildGraphNode(*mut H, H, *const H, usize, H);
    cuGraphAddEventRecordNode(*mut H, H, *const H, usize, H);
    cuGraphAddEventWaitNode(*mut H, H, *const H, usize, H);
    cuGraphAddMemAllocNode(*mut H, H, *const H, usize, *mut c_void);
    cuGraphAddMemFreeNode(*mut H, H, *const H, usize, u64);
    cuGraphGetNodes(H, *mut H, *mut usize);
    cuGraphNodeGetType(H, *mut c_uint);
    cuGraphAddKernelNode_v2(*mut H, H, *const H, usize, *const c_void);
    cuGraphKernelNodeGetParams_v2(H, *mut c_void);
    cuGraphKernelNodeSetParams_v2(H, *const c_void);
    cuGraphExecKernelNodeSetParams_v2(H, H, *const c_void);
    cuGraphExecUpdate_v2(H, H, *mut c_void);
    cuGraphAddDependencies_v2(H, *const H, *const H, *const c_void, usize);
    cuGraphGetEdges_v2(H, *mut H, *mut H, *mut c_void, *mut usize);
    cuGraphClone(*mut H, H);
    cuGraphAddMemcpyNode(*mut H, H, *const H, usize, *const c_void, H);
    cuGraphAddMemsetNode(*mut H, H, *const H, usize, *const c_void, H);
    cuGraphDebugDotPrint(H, *const c_char, c_uint);
    cuGraphGetRootNodes(H, *mut H, *mut usize);
    cuGraphNodeGetDependencies_v2(H, *mut H, *mut c_void, *mut usize);
    cuGraphNodeGetDependentNodes_v2(H, *mut H, *mut c_void, *mut usize);
    cuGraphRemoveDependencies_v2(H, *const H, *const H, *const c_void, usize);
    cuGraphNodeGetContainingGraph(H, *mut H);
    cuGraphChildGraphNodeGetGraph(H, *mut H);
    cuGraphNodeFindInClone(*mut H, H, H);
    cuGraphNodeGetEnabled(H, H, *mut c_uint);
    cuGraphNodeSetEnabled(H, H, c_uint);
    cuGraphDestroyNode(H);
    cuGraphMemcpyNodeGetParams(H, *mut c_void);
    cuGraphMemcpyNodeSetParams(H, *const c_void);
    cuGraphMemsetNodeGetParams(H, *mut c_void);
    cuGraphMemsetNodeSetParams(H, *const c_void);
    cuGraphHostNodeGetParams(H, *mut c_void);
    cuGraphHostNodeSetParams(H, *const c_void);
    cuGraphExecMemcpyNodeSetParams(H, H, *const c_void, H);
    cuGraphExecMemsetNodeSetParams(H, H, *const c_void, H);
    cuGraphExecHostNodeSetParams(H, H, *const c_void);
    cuGraphExecChildGraphNodeSetParams(H, H, H);
    cuGraphAddNode_v2(*mut H, H, *const H, *const c_void, usize, *mut c_void);
    cuGraphNodeGetParams(H, *mut c_void);
    cuGraphNodeSetParams(H, *mut c_void);
    cuGraphExecNodeSetParams(H, H, *mut c_void);
    cuFuncGetParamCount(H, *mut usize);
    cuGraphUpload(H, H);
    cuGraphInstantiateWithParams(*mut H, H, *mut c_void);
    cuGraphEventRecordNodeGetEvent(H, *mut H);
    cuGraphEventWaitNodeGetEvent(H, *mut H);
    cuGraphEventRecordNodeSetEvent(H, H);
    cuGraphEventWaitNodeSetEvent(H, H);
    cuGraphExecEventRecordNodeSetEvent(H, H, H);
    cuGraphExecEventWaitNodeSetEvent(H, H, H);
    cuGraphMemAllocNodeGetParams(H, *mut c_void);
    cuGraphMemFreeNodeGetParams(H, *mut u64);
    cuFuncGetParamInfo(H, usize, *mut usize, *mut usize);
    cuStreamSetAttribute(H, c_uint, *const c_void);
    cuStreamGetAttribute(H, c_uint, *mut c_void);
    cuStreamAttachMemAsync(H, H, usize, c_uint);
    cuCtxResetPersistingL2Cache();
}

struct Loaded {
    api: Api,
    /// The library stays loaded for the life of the process.
    _lib: libloading::Library,
}

static DRIVER: OnceLock<Result<Loaded, String>> = OnceLock::new();

/// The path this library was loaded by, as the loader opened it (found with `dladdr` on one
/// of its functions): a link's own name, `libcudart.so.12`, not the file it points to. The
/// program's path when this crate is linked in as an rlib.
pub(crate) fn own_path() -> Option<std::path::PathBuf> {
    let mut info = std::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    // SAFETY: dladdr fills `info` for an address inside a loaded object (ours).
    let ok = unsafe { libc::dladdr(own_path as *const c_void, info.as_mut_ptr()) };
    if ok == 0 {
        return None;
    }
    // SAFETY: dladdr succeeded, so dli_fname is set (possibly null).
    let fname = unsafe { info.assume_init() }.dli_fname;
    if fname.is_null() {
        return None;
    }
    // SAFETY: a NUL-terminated path owned by the loader.
    let path = unsafe { std::ffi::CStr::from_ptr(fname) };
    Some(std::path::PathBuf::from(
        <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(path.to_bytes()),
    ))
}

/// The directory holding this library (links resolved).
fn own_dir() -> Option<std::path::PathBuf> {
    std::fs::canonicalize(own_path()?)
        .ok()?
        .parent()
        .map(|p| p.to_path_buf())
}

fn load() -> Result<Loaded, String> {
    // SAFETY: loading the CUDA driver runs its initialisers, which have no preconditions.
    let lib = match unsafe { libloading::Library::new("libcuda.so.1") } {
        Ok(lib) => lib,
        Err(first) => {
            let beside = own_dir().map(|d| d.join("libcuda.so.1"));
            match beside {
                // SAFETY: as above.
                Some(p) if p.exists() => unsafe { libloading::Library::new(&p) }
                    .map_err(|e| format!("cannot load {}: {e}", p.display()))?,
                _ => return Err(format!("cannot load libcuda.so.1: {first}")),
            }
        }
    };
    // SAFETY: a CUDA driver library exports these functions with these signatures.
    let api = unsafe { Api::resolve(&lib) };
    let Some(init) = api.cuInit else {
        return Err("libcuda.so.1 has no cuInit".into());
    };
    // SAFETY: cuInit takes flags (0).
    let r = unsafe { init(0) };
    if r != 0 {
        return Err(format!("cuInit failed: {}", driver_name(r)));
    }
    Ok(Loaded { api, _lib: lib })
}

/// The driver's functions, loading and initialising it at first use. Errors:
/// `cudaErrorInsufficientDriver` when no driver library loads or `cuInit` fails.
pub fn api() -> Result<&'static Api, Fail> {
    match DRIVER.get_or_init(load) {
        Ok(l) => Ok(&l.api),
        Err(m) => Err(Fail::new(cudaErrorInsufficientDriver, m.clone())),
    }
}

/// ptxjit's export table id: libcuda's `PTXJIT_EXPORT_TABLE_ID` (cuda/src/proc_address.rs;
/// docs/driver-api.md).
const PTXJIT_EXPORT_TABLE_ID: [u8; 16] = *b"ptxjit-exports-1";

/// ptxjit's export table as libcuda lays it out (`PtxjitExports` there; fields are only
/// appended, `size` says how many there are).
#[repr(C)]
struct PtxjitExports {
    size: usize,
    set_allocation_label: unsafe extern "C" fn(u64, *const c_char) -> CUresult,
    runtime_call_begin: unsafe extern "C" fn(),
    runtime_call_end: unsafe extern "C" fn(*const u8, usize, u32, *const c_char, *const c_char),
    runtime_call_reason: unsafe extern "C" fn(*const u8, usize),
    runtime_call_detail: unsafe extern "C" fn(*mut u8, usize) -> usize,
}

/// The size of the table's first version, which has only `set_allocation_label`.
const PTXJIT_EXPORTS_V1_SIZE: usize = 2 * std::mem::size_of::<usize>();

/// The size of the table's second version, up to `runtime_call_end`: what the runtime-call
/// functions need ([`call_exports`]); `runtime_call_reason` came after it.
const PTXJIT_EXPORTS_V2_SIZE: usize = 4 * std::mem::size_of::<usize>();

/// The size of the table's third version, up to `runtime_call_reason`;
/// `runtime_call_detail` came after it.
const PTXJIT_EXPORTS_V3_SIZE: usize = 5 * std::mem::size_of::<usize>();

/// ptxjit's export table, when the loaded driver is ptxjit's (NVIDIA's has none).
fn ptxjit_exports() -> Option<&'static PtxjitExports> {
    static TABLE: OnceLock<usize> = OnceLock::new();
    let addr = *TABLE.get_or_init(|| {
        let Some(get) = api().ok().and_then(|a| a.cuGetExportTable) else {
            return 0;
        };
        let mut table: *const c_void = std::ptr::null();
        // SAFETY: cuGetExportTable writes a pointer to `table` and reads the 16-byte id.
        let r = unsafe { get(&mut table, &PTXJIT_EXPORT_TABLE_ID) };
        if r != 0 || table.is_null() {
            return 0;
        }
        // SAFETY: a table for this id starts with its size in bytes.
        let size = unsafe { (table as *const usize).read() };
        if size < PTXJIT_EXPORTS_V1_SIZE {
            return 0;
        }
        table as usize
    });
    // SAFETY: a non-zero address is ptxjit's static table, at least as large as its first
    // version; the fields after it are read only when its size says they are there.
    (addr != 0).then(|| unsafe { &*(addr as *const PtxjitExports) })
}

/// ptxjit's export table when it has the runtime-call functions (its second version on),
/// the driver being ptxjit's.
fn call_exports() -> Option<&'static PtxjitExports> {
    let t = ptxjit_exports()?;
    // SAFETY: `size` is the table's first field, always there.
    (t.size >= PTXJIT_EXPORTS_V2_SIZE).then_some(t)
}

/// Whether the tool's calls of ptxjit's export table are there: a sanitizer tool runs
/// (`PTXJIT_TOOL`) and the driver is ptxjit's with the runtime-call functions.
fn tool_exports() -> Option<&'static PtxjitExports> {
    static TOOL: OnceLock<bool> = OnceLock::new();
    let on = *TOOL.get_or_init(|| std::env::var("PTXJIT_TOOL").is_ok_and(|v| !v.is_empty()));
    if !on {
        return None;
    }
    call_exports()
}

/// Whether a sanitizer tool reports the runtime's failed calls (`PTXJIT_TOOL`, on ptxjit's
/// driver): then a failure's reason goes into the tool's report, not to stderr on its own.
pub fn tool_reports() -> bool {
    tool_exports().is_some()
}

/// Under a tool, tells ptxjit's driver why the runtime call in progress fails when the
/// runtime refused it itself (no driver call failed): the tool's report of the call gives it
/// as its reason. Nothing without a tool or with a driver whose table lacks the function.
pub fn runtime_call_reason(reason: &str) {
    if let Some(t) = tool_exports() {
        if t.size >= PTXJIT_EXPORTS_V3_SIZE {
            // SAFETY: the table has the field (its size says so); `reason` is `len` bytes.
            unsafe { (t.runtime_call_reason)(reason.as_ptr(), reason.len()) };
        }
    }
}

/// Under a tool, the message of the driver call that failed inside the runtime call in
/// progress (`cuModuleLoadData returned CUDA_ERROR_INVALID_PTX: …`), for a failure the
/// runtime answers again later without calling the driver; `None` without a tool, without
/// one, or with a driver whose table lacks the function.
pub fn runtime_call_detail() -> Option<String> {
    let t = tool_exports()?;
    if t.size < std::mem::size_of::<PtxjitExports>() {
        return None;
    }
    // SAFETY: the table has the field (its size says so); a null buffer copies nothing.
    let len = unsafe { (t.runtime_call_detail)(std::ptr::null_mut(), 0) };
    if len == 0 {
        return None;
    }
    let mut buf = vec![0u8; len];
    // SAFETY: `buf` holds `len` bytes.
    let n = unsafe { (t.runtime_call_detail)(buf.as_mut_ptr(), len) };
    buf.truncate(n.min(len));
    String::from_utf8(buf).ok()
}

/// Tells ptxjit's driver that a runtime API function begins, so that the driver calls made
/// for it are not reported as the program's (compute-sanitizer's `--report-api-errors
/// explicit`) and a launch the driver refuses inside it is reported under the runtime
/// function's name. Nothing with another driver.
pub fn runtime_call_begin() {
    if let Some(t) = call_exports() {
        // SAFETY: the table's function takes no arguments.
        unsafe { (t.runtime_call_begin)() };
    }
}

/// Tells ptxjit's driver that runtime API function `name` ends with `code`, which a tool
/// reports when it is an error ("Program hit cudaErrorInvalidValue (error 1) due to
/// \"invalid argument\" on CUDA API call to cudaMalloc."), and under which name and code the
/// driver says why it refused a launch inside the call (`ptxjit: cudaLaunchKernelExC: kernel
/// … (cudaErrorInvalidClusterSize)`). Nothing with another driver.
pub fn runtime_call_end(name: &str, code: cudaError_t) {
    if let Some(t) = call_exports() {
        let name = reported_name(name);
        let (code_name, description) = match crate::errors::code(code) {
            Some(e) => (e.1.as_ptr(), e.2.as_ptr()),
            None => (std::ptr::null(), std::ptr::null()),
        };
        // SAFETY: `name` is `len` bytes; the strings are NUL-terminated statics or null.
        unsafe { (t.runtime_call_end)(name.as_ptr(), name.len(), code, code_name, description) };
    }
}

/// The name a tool reports runtime function `name` under: the documented API function for
/// the entry point nvcc's `<<<...>>>` stubs call (`__cudaLaunchKernel` is
/// `cudaLaunchKernel`, as compute-sanitizer names it), else `name` itself.
fn reported_name(name: &str) -> &str {
    match name {
        "__cudaLaunchKernel" => "cudaLaunchKernel",
        "__cudaLaunchKernel_ptsz" => "cudaLaunchKernel_ptsz",
        _ => name,
    }
}

/// Names the allocation that starts at `dptr` after the runtime call that made it
/// (`cudaMalloc`) in ptxjit's fault, memcheck and leak reports, when the driver is ptxjit's;
/// nothing with another driver. Best effort: a failure changes only a report's wording.
pub fn label_allocation(dptr: u64, label: &'static CStr) {
    if let Some(t) = ptxjit_exports() {
        // SAFETY: the table's function takes an address and a NUL-terminated string.
        let _ = unsafe { (t.set_allocation_label)(dptr, label.as_ptr()) };
    }
}

/// The name of a driver code (`CUDA_ERROR_INVALID_VALUE`), or its number if unknown.
pub fn driver_name(r: CUresult) -> String {
    match FROM_DRIVER.binary_search_by_key(&r, |c| c.0) {
        Ok(i) => FROM_DRIVER[i].1.to_string(),
        Err(_) => format!("CUresult {r}"),
    }
}

/// The runtime code for a driver code (the generated table; an unknown code, from a newer
/// driver, is `cudaErrorUnknown`).
pub fn runtime_code(r: CUresult) -> cudaError_t {
    match FROM_DRIVER.binary_search_by_key(&r, |c| c.0) {
        Ok(i) => FROM_DRIVER[i].2,
        Err(_) => cudaErrorUnknown,
    }
}

/// Turns a driver call's result into the runtime's.
pub fn check(name: &str, r: CUresult) -> Result<(), Fail> {
    if r == 0 {
        return Ok(());
    }
    Err(Fail {
        from_driver: true,
        ..Fail::new(runtime_code(r), format!("{name} -> {}", driver_name(r)))
    })
}

/// The error for a driver function the loaded driver lacks.
pub fn missing(name: &str) -> Fail {
    Fail::new(
        cudaErrorNotSupported,
        format!("the loaded libcuda.so.1 has no {name}"),
    )
}

/// Calls a driver function by name: `cu!(cuMemAlloc_v2(&mut p, n))?`, a `Result<(), Fail>`.
#[macro_export]
macro_rules! cu {
    ($name:ident($($arg:expr),* $(,)?)) => {{
        match $crate::driver::api() {
            Err(e) => Err(e),
            Ok(api) => match api.$name {
                // SAFETY: the arguments follow the driver function's C signature; pointers
                // are the program's or point into live locals.
                Some(f) => $crate::driver::check(stringify!($name), unsafe { f($($arg),*) }),
                None => Err($crate::driver::missing(stringify!($name))),
            },
        }
    }};
}
