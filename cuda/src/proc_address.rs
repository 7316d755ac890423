//! Driver entry point access (`cuGetProcAddress`, CUDA Driver API "Driver Entry Point Access"),
//! the private export tables (`cuGetExportTable`) and the error strings (`cuGetErrorName`,
//! `cuGetErrorString`, "Error Handling").
//!
//! # How `cuGetProcAddress` chooses
//! A program asks for a base name (`cuMemAlloc`), the CUDA version whose ABI it was compiled
//! for, and flags. The table ([`procs::PROCS`], generated from `cudaTypedefs.h`) lists the
//! ABIs of each function with the version that introduced each; the answer is the newest ABI
//! at or below the requested version (`cuMemAlloc` at 12000 is `cuMemAlloc_v2`, introduced by
//! 3.2). With `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM` the ABI's per-thread default
//! stream twin is chosen when it exists at that version (`cuStreamQuery_ptsz`, from 7.0), and
//! the ABI itself otherwise, as the driver documents. `CU_GET_PROC_ADDRESS_DEFAULT` means
//! legacy stream: the per-thread choice is made in the program by cuda.h's
//! `cuGetProcAddress_v2_ptsz` wrapper, which sets the flag.
//!
//! Where the per-thread twin is a stub but the ABI itself is implemented, the ABI is returned:
//! work runs when it is enqueued, so the legacy and the per-thread default streams behave alike.
//!
//! A version above the driver version this library reports still resolves (to the newest ABI):
//! NVIDIA's driver answers `CUDA_ERROR_INVALID_VALUE` there, but a program built with a newer
//! toolkit then runs wherever the ABIs it uses are the ones this library knows.
//!
//! Misses answer `CUDA_ERROR_NOT_FOUND` with `*pfn = NULL` and the reason in `symbolStatus`:
//! `CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND` for a name that is no driver function,
//! `CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT` for a version below the function's first ABI,
//! or one selecting a legacy symbol this library does not export (the pre-3.2 32-bit
//! `cuMemAlloc`; see [`procs::LEGACY`]).

use crate::errors::*;
use crate::procs::{self, Abi};
use crate::{entry, out, DrvResult, Fail};
use std::ffi::{c_char, c_int, c_void, CStr};

/// `CUdriverProcAddressQueryResult`: the symbol was found (`CU_GET_PROC_ADDRESS_SUCCESS`).
pub const CU_GET_PROC_ADDRESS_SUCCESS: c_int = 0;
/// `CUdriverProcAddressQueryResult`: no driver function has that name.
pub const CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND: c_int = 1;
/// `CUdriverProcAddressQueryResult`: the function exists, but not at the requested version.
pub const CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT: c_int = 2;

/// `CUdriverProcAddress_flags`: legacy default stream unless the program asks otherwise.
pub const CU_GET_PROC_ADDRESS_DEFAULT: u64 = 0;
/// `CUdriverProcAddress_flags`: the legacy default stream variants.
pub const CU_GET_PROC_ADDRESS_LEGACY_STREAM: u64 = 1;
/// `CUdriverProcAddress_flags`: the per-thread default stream variants where they exist.
pub const CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM: u64 = 2;

/// Why [`resolve`] found nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Miss {
    /// No driver function has that name (`CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND`).
    Symbol,
    /// The function's first ABI is newer than the requested version, or the ABI at that version
    /// is a legacy symbol this library does not export (`CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT`).
    Version,
}

impl Miss {
    /// The `CUdriverProcAddressQueryResult` value.
    pub fn status(self) -> c_int {
        match self {
            Miss::Symbol => CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND,
            Miss::Version => CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,
        }
    }
}

/// The symbol `cuGetProcAddress` answers for base name `name` at `cuda_version`
/// (`1000 * major + 10 * minor`), with the per-thread default stream variant if `per_thread`,
/// and its address in this library. See the module documentation for the rules.
pub fn resolve(
    name: &str,
    cuda_version: i32,
    per_thread: bool,
) -> Result<(&'static str, *mut c_void), Miss> {
    let i = procs::PROCS
        .binary_search_by(|p| p.name.cmp(name))
        .map_err(|_| Miss::Symbol)?;
    let abi: &Abi = procs::PROCS[i]
        .abis
        .iter()
        .rev()
        .find(|a| i64::from(a.version) <= i64::from(cuda_version))
        .ok_or(Miss::Version)?;
    if per_thread {
        if let Some(twin) = &abi.per_thread {
            let twin_is_stub = !is_hand_written(twin.symbol) && is_hand_written(abi.symbol);
            if i64::from(twin.version) <= i64::from(cuda_version) && !twin_is_stub {
                if let Some(f) = procs::address(twin.symbol) {
                    return Ok((twin.symbol, f));
                }
            }
        }
    }
    match procs::address(abi.symbol) {
        Some(f) => Ok((abi.symbol, f)),
        None => Err(Miss::Version),
    }
}

fn is_hand_written(symbol: &str) -> bool {
    procs::HAND_WRITTEN.binary_search(&symbol).is_ok()
}

/// The body shared by both `cuGetProcAddress` ABIs.
///
/// # Safety
/// `symbol` is null or a NUL-terminated string; `pfn` and `status` are null or valid for a write.
unsafe fn get_proc_address(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cuda_version: c_int,
    flags: u64,
    status: *mut c_int,
) -> DrvResult {
    if symbol.is_null() || pfn.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null symbol or pfn"));
    }
    let known = CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    if flags & !known != 0 {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("flags {flags:#x} are not CUdriverProcAddress_flags"),
        ));
    }
    // SAFETY: non-null, and NUL-terminated by the caller's promise.
    let name = unsafe { CStr::from_ptr(symbol) }.to_string_lossy();
    let per_thread = flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM != 0;
    let set_status = |value: c_int| -> DrvResult {
        if status.is_null() {
            return Ok(());
        }
        // SAFETY: non-null, valid for a write by the caller's promise.
        unsafe { out(status, value) }
    };
    match resolve(&name, cuda_version, per_thread) {
        Ok((_, f)) => {
            // SAFETY: non-null (checked above), valid by the caller's promise.
            unsafe { out(pfn, f)? };
            set_status(CU_GET_PROC_ADDRESS_SUCCESS)
        }
        Err(miss) => {
            // SAFETY: as above.
            unsafe { out(pfn, std::ptr::null_mut())? };
            set_status(miss.status())?;
            let why = match miss {
                Miss::Symbol => format!("{name} is no driver API function"),
                Miss::Version => {
                    format!("{name} has no exported ABI at CUDA version {cuda_version}")
                }
            };
            Err(Fail::new(CUDA_ERROR_NOT_FOUND, why))
        }
    }
}

/// `cuGetProcAddress` (CUDA 12.0 ABI, `cuGetProcAddress_v2`): the driver function `symbol`
/// (a base name, `cuMemAlloc`) at ABI version `cudaVersion` with `flags`
/// (`CUdriverProcAddress_flags`), in `*pfn`; `*symbolStatus` (may be null) says why a lookup
/// failed. Errors: `CUDA_ERROR_INVALID_VALUE` (null `symbol` or `pfn`, unknown flags),
/// `CUDA_ERROR_NOT_FOUND` (no such function at that version: `*pfn` is set to null). Needs no
/// `cuInit`.
#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cudaVersion: c_int,
    flags: u64,
    symbolStatus: *mut c_int,
) -> CUresult {
    // SAFETY: the pointers are the caller's, passed on with the same promise.
    entry("cuGetProcAddress_v2", || unsafe {
        get_proc_address(symbol, pfn, cudaVersion, flags, symbolStatus)
    })
}

/// `cuGetProcAddress` (CUDA 11.3 ABI): [`cuGetProcAddress_v2`] without `symbolStatus`.
#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cudaVersion: c_int,
    flags: u64,
) -> CUresult {
    // SAFETY: the pointers are the caller's, passed on with the same promise.
    entry("cuGetProcAddress", || unsafe {
        get_proc_address(symbol, pfn, cudaVersion, flags, std::ptr::null_mut())
    })
}

/// `CUuuid`: 16 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUuuid {
    pub bytes: [c_char; 16],
}

/// The id of ptxjit's own export table ([`PtxjitExports`]): the 16 ASCII bytes
/// `ptxjit-exports-1`. NVIDIA's driver answers it with an error, so a runtime that asks for it
/// works on both drivers.
pub const PTXJIT_EXPORT_TABLE_ID: [u8; 16] = *b"ptxjit-exports-1";

/// ptxjit's export table, what [`cuGetExportTable`] gives for [`PTXJIT_EXPORT_TABLE_ID`]:
/// calls between ptxjit's drop-in runtime (`libcudart`) and this library that the driver API
/// has no function for. The layout is an ABI: fields are only ever appended, and `size` says
/// how many a caller may read; these field docs are its specification.
#[repr(C)]
pub struct PtxjitExports {
    /// The size of this struct in bytes.
    pub size: usize,
    /// `(dptr, label)`: name the live allocation that starts at `dptr` `label` (a
    /// NUL-terminated UTF-8 string of at most [`MAX_LABEL`] bytes) in fault, memcheck and
    /// leak reports: the runtime API call that made it (`cudaMalloc`) instead of the driver
    /// call that the runtime made (`cuMemAlloc`). Errors: `CUDA_ERROR_INVALID_VALUE` for a
    /// null or over-long or non-UTF-8 label or an address where no allocation starts.
    pub set_allocation_label: unsafe extern "C" fn(u64, *const c_char) -> CUresult,
    /// `()`: the runtime enters one of its API functions, so that the driver calls it makes
    /// are told from the program's (a tool's reports, a refused launch's reason printed
    /// under the runtime function's name: [`crate::sanitizer::runtime_call_begin`]).
    pub runtime_call_begin: unsafe extern "C" fn(),
    /// `(name, name_len, code, code_name, description)`: the runtime leaves API function
    /// `name` with `cudaError_t` `code`; the tool reports it when it failed, and without a
    /// tool the reason a driver launch inside it was refused is printed under `name` and
    /// `code_name` ([`crate::sanitizer::runtime_call_end`]).
    pub runtime_call_end: unsafe extern "C" fn(*const u8, usize, u32, *const c_char, *const c_char),
    /// `(reason, reason_len)`: the runtime's own reason (UTF-8, not NUL-terminated) for
    /// failing the runtime call in progress on this thread, called just before
    /// `runtime_call_end` when the runtime refused the call itself (a launch shape, a copy
    /// kind, a symbol's size, a driver probe's failure it turned into its own reason): the
    /// tool's report of the call gives it on the line after "Program hit …", in place of the
    /// message of a driver call that failed inside the call
    /// ([`crate::sanitizer::runtime_call_reason`]). Not called for a driver call's failure
    /// the runtime passes on unchanged, whose message the report keeps. Called only under a
    /// tool.
    pub runtime_call_reason: unsafe extern "C" fn(*const u8, usize),
    /// `(buf, cap) -> len`: the message of the driver call that failed inside the runtime
    /// call in progress on this thread (`cuModuleLoadData returned CUDA_ERROR_…: why`), the
    /// detail a tool's report of the runtime call gives: its first `cap` bytes of UTF-8 are
    /// copied to `buf` (not NUL-terminated) and its whole length returned; 0 when there is
    /// none (no tool runs, or no driver call failed). The runtime keeps it for a failure it
    /// answers again later (a fatbin that did not load) ([`crate::sanitizer::runtime_call_detail`]).
    pub runtime_call_detail: unsafe extern "C" fn(*mut u8, usize) -> usize,
}

/// The longest label [`PtxjitExports::set_allocation_label`] takes, in bytes.
pub const MAX_LABEL: usize = 64;

unsafe extern "C" fn set_allocation_label(dptr: u64, label: *const c_char) -> CUresult {
    entry("ptxjit set_allocation_label", || {
        if label.is_null() {
            return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null label"));
        }
        // SAFETY: non-null and NUL-terminated by the caller's promise; read up to the NUL.
        let text = unsafe { CStr::from_ptr(label) };
        let text = text
            .to_str()
            .ok()
            .filter(|t| !t.is_empty() && t.len() <= MAX_LABEL)
            .ok_or_else(|| {
                Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("an allocation label is 1 to {MAX_LABEL} bytes of UTF-8"),
                )
            })?;
        crate::state::with_context(|d| {
            d.host
                .set_label(ptxjit::host::DevicePtr(dptr), text)
                .map_err(|e| Fail::new(CUDA_ERROR_INVALID_VALUE, e.to_string()))
        })
    })
}

/// The one [`PtxjitExports`] table.
static PTXJIT_EXPORTS: PtxjitExports = PtxjitExports {
    size: std::mem::size_of::<PtxjitExports>(),
    set_allocation_label,
    runtime_call_begin: crate::sanitizer::runtime_call_begin,
    runtime_call_end: crate::sanitizer::runtime_call_end,
    runtime_call_reason: crate::sanitizer::runtime_call_reason,
    runtime_call_detail: crate::sanitizer::runtime_call_detail,
};

/// `cuGetExportTable` (undocumented: the CUDA runtime and NVIDIA's libraries fetch private
/// function tables by UUID). This library has its own ([`PTXJIT_EXPORT_TABLE_ID`], for
/// ptxjit's runtime) and those NVIDIA's statically linked CUDA 13 runtime needs
/// ([`crate::export_tables`]); every other id answers `CUDA_ERROR_INVALID_VALUE` with
/// `*ppExportTable = NULL`, so a caller that probes falls back and one that needs a table
/// fails cleanly.
#[no_mangle]
pub unsafe extern "C" fn cuGetExportTable(
    ppExportTable: *mut *const c_void,
    pExportTableId: *const CUuuid,
) -> CUresult {
    entry("cuGetExportTable", || {
        if !ppExportTable.is_null() {
            // SAFETY: non-null, valid for a write by the caller's promise.
            unsafe { out(ppExportTable, std::ptr::null())? };
        }
        if pExportTableId.is_null() {
            return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null export table id"));
        }
        // SAFETY: non-null, points to a CUuuid by the caller's promise.
        let id = unsafe { pExportTableId.read_unaligned() };
        if id.bytes.map(|b| b as u8) == PTXJIT_EXPORT_TABLE_ID {
            if ppExportTable.is_null() {
                return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null ppExportTable"));
            }
            let table: *const PtxjitExports = &PTXJIT_EXPORTS;
            // SAFETY: non-null, valid for a write by the caller's promise.
            return unsafe { out(ppExportTable, table.cast()) };
        }
        if let Some((name, table)) = crate::export_tables::lookup(&id.bytes.map(|b| b as u8)) {
            if ppExportTable.is_null() {
                return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null ppExportTable"));
            }
            if crate::tracing() {
                eprintln!("ptxjit: cuGetExportTable: the {name} table");
            }
            // SAFETY: non-null, valid for a write by the caller's promise.
            return unsafe { out(ppExportTable, table) };
        }
        let hex: String = id
            .bytes
            .iter()
            .map(|b| format!("{:02x}", *b as u8))
            .collect();
        let asker = match calling_object() {
            Some(path) => format!(" (asked for by {path})"),
            None => String::new(),
        };
        let message = format!("no export table {hex}{asker}: ptxjit has the private tables that NVIDIA's CUDA 13 runtime asks for (the copy nvcc's default --cudart static links into a program; see crate::export_tables), not this one: a program or library linking another version of NVIDIA's runtime may fail here (build with `nvcc --cudart shared` and run on ptxjit's libcudart)");
        // NVIDIA's runtime fails every later call with cudaErrorInvalidValue and says
        // nothing, so the reason is printed once per process even without PTXJIT_TRACE;
        // a table whose caller goes on without it is not announced (nor uses up the once).
        static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        let optional = OPTIONAL_TABLES.contains(&id.bytes.map(|b| b as u8));
        if !optional && !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
            eprintln!("ptxjit: cuGetExportTable: {message}");
        }
        Err(Fail::new(CUDA_ERROR_INVALID_VALUE, message))
    })
}

/// Private tables that NVIDIA's libraries ask for and work without, so that a miss is no
/// news: answered like any other miss, but printed only under `PTXJIT_TRACE`. NVRTC 12.9
/// (`libnvrtc.so.12`) asks for the first when it compiles, and compiles without it; NVIDIA's
/// CUDA 13 runtime asks for the second (`f8cff951-2146-8b4e-b9e2-fb469e7c0dd9`) before
/// `cuInit` and works without it.
const OPTIONAL_TABLES: [[u8; 16]; 2] = [
    [
        0xda, 0x91, 0x51, 0xd3, 0x3a, 0xe6, 0xcc, 0x41, 0xa5, 0xc0, 0x4f, 0x26, 0xd5, 0x33, 0xe3,
        0x28,
    ],
    [
        0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e, 0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d,
        0xd9,
    ],
];

/// The file of the loaded object that called into this library: the object of the first
/// return address on the call stack (glibc's `backtrace`) that lies outside the object holding
/// this function, as `dladdr` names it (the program's own `argv[0]` for the main program).
/// `None` when the stack cannot be read or no frame lies outside.
pub(crate) fn calling_object() -> Option<String> {
    extern "C" {
        /// glibc's `backtrace(3)` (`<execinfo.h>`): up to `size` return addresses of the
        /// calling thread's stack, innermost first; returns how many it wrote.
        fn backtrace(buffer: *mut *mut c_void, size: c_int) -> c_int;
    }
    let own = object_of(calling_object as *const c_void)?;
    let mut frames = [std::ptr::null_mut::<c_void>(); 64];
    // SAFETY: backtrace writes at most `size` pointers into the buffer, which holds that many.
    let n = unsafe { backtrace(frames.as_mut_ptr(), frames.len() as c_int) };
    let n = usize::try_from(n).unwrap_or(0).min(frames.len());
    frames[..n]
        .iter()
        .filter_map(|&a| object_of(a))
        .find(|o| *o != own)
}

/// The file name `dladdr` gives for the loaded object holding `addr`, if any.
fn object_of(addr: *const c_void) -> Option<String> {
    let mut info = std::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    // SAFETY: dladdr only reads the loader's tables; it fills `info` when it returns non-zero.
    if unsafe { libc::dladdr(addr, info.as_mut_ptr()) } == 0 {
        return None;
    }
    // SAFETY: dladdr succeeded, so `info` is initialized (dli_fname possibly null).
    let fname = unsafe { info.assume_init() }.dli_fname;
    if fname.is_null() {
        return None;
    }
    // SAFETY: a NUL-terminated path owned by the loader, alive while the object is loaded.
    let name = unsafe { CStr::from_ptr(fname) }.to_string_lossy();
    (!name.is_empty()).then(|| name.into_owned())
}

/// Writes the name or description of `error` to `*pStr`. Errors: `CUDA_ERROR_INVALID_VALUE`
/// for a null `pStr` or a number that is no `CUresult` (then `*pStr = NULL`, as the driver does).
///
/// # Safety
/// `p_str` is null or valid for a write.
unsafe fn error_string(
    error: CUresult,
    p_str: *mut *const c_char,
    pick: fn(&Code) -> &'static CStr,
) -> DrvResult {
    if p_str.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null pStr"));
    }
    match code(error) {
        // SAFETY: non-null, valid for a write by the caller's promise.
        Some(c) => unsafe { out(p_str, pick(c).as_ptr()) },
        None => {
            // SAFETY: as above.
            unsafe { out(p_str, std::ptr::null())? };
            Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("{error} is no CUresult"),
            ))
        }
    }
}

/// `cuGetErrorName`: the name of `error` (`CUDA_ERROR_INVALID_VALUE`) in `*pStr`, a static
/// NUL-terminated string. Errors: `CUDA_ERROR_INVALID_VALUE` (null `pStr`; unknown code, then
/// `*pStr = NULL`).
#[no_mangle]
pub unsafe extern "C" fn cuGetErrorName(error: CUresult, pStr: *mut *const c_char) -> CUresult {
    // SAFETY: the pointer is the caller's, passed on with the same promise.
    entry("cuGetErrorName", || unsafe {
        error_string(error, pStr, |c| c.c_name)
    })
}

/// `cuGetErrorString`: the description of `error` (`invalid argument`) in `*pStr`, a static
/// NUL-terminated string. Errors: `CUDA_ERROR_INVALID_VALUE` (null `pStr`; unknown code, then
/// `*pStr = NULL`).
#[no_mangle]
pub unsafe extern "C" fn cuGetErrorString(error: CUresult, pStr: *mut *const c_char) -> CUresult {
    // SAFETY: the pointer is the caller's, passed on with the same promise.
    entry("cuGetErrorString", || unsafe {
        error_string(error, pStr, |c| c.c_description)
    })
}
