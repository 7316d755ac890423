//! `cuGetProcAddress`, `cuGetExportTable`, `cuGetErrorName` and `cuGetErrorString` as a program
//! sees them: through the built `libcuda.so` (dlopen + dlsym), comparing each answer with the
//! address the dynamic linker gives for the symbol NVIDIA's headers name.
//!
//! Expected symbols and versions come from NVIDIA's headers (`cudaTypedefs.h`: one
//! `PFN_<name>_v<version>` typedef per ABI; `cuda.h`: the `#define`s naming each ABI's symbol);
//! expected error strings from NVIDIA's driver as public logs print them (`NAME: string`), or
//! from `cuda.h`'s comments where the library falls back to them.

use libloading::Library;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::PathBuf;
use std::sync::OnceLock;

const CUDA_SUCCESS: u32 = 0;
const CUDA_ERROR_INVALID_VALUE: u32 = 1;
const CUDA_ERROR_NOT_FOUND: u32 = 500;
const CUDA_ERROR_NOT_SUPPORTED: u32 = 801;

const DEFAULT: u64 = 0;
const LEGACY_STREAM: u64 = 1;
const PER_THREAD: u64 = 2;

const STATUS_SUCCESS: c_int = 0;
const STATUS_SYMBOL_NOT_FOUND: c_int = 1;
const STATUS_VERSION_NOT_SUFFICIENT: c_int = 2;

type GetProcAddressV2 =
    unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int) -> u32;
type GetProcAddress = unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64) -> u32;
type GetErrorString = unsafe extern "C" fn(u32, *mut *const c_char) -> u32;
type GetExportTable = unsafe extern "C" fn(*mut *const c_void, *const [u8; 16]) -> u32;

/// The `libcuda.so` cargo built with this test (`target/<profile>/deps/`, beside the test
/// executable; `target/<profile>/libcuda.so` is updated only by `cargo build`).
fn lib() -> &'static Library {
    static LIB: OnceLock<Library> = OnceLock::new();
    LIB.get_or_init(|| {
        let exe = std::env::current_exe().expect("test executable path");
        let dir: PathBuf = exe.parent().expect("target/<profile>/deps").into();
        let path = dir.join("libcuda.so");
        // SAFETY: our own library; loading it runs no initializers with preconditions.
        unsafe { Library::new(&path) }.unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    })
}

/// The address of `symbol` in the library, if it exports it.
fn dlsym(symbol: &str) -> Option<*mut c_void> {
    let name = CString::new(symbol).expect("symbol");
    // SAFETY: the value is only compared, never called or dereferenced.
    unsafe { lib().get::<*mut c_void>(name.as_bytes_with_nul()) }
        .ok()
        .map(|s| *s)
}

fn func<T: Copy>(symbol: &str) -> T {
    let name = CString::new(symbol).expect("symbol");
    // SAFETY: the caller names T as the symbol's C signature from cuda.h.
    unsafe { *lib().get::<T>(name.as_bytes_with_nul()).expect(symbol) }
}

/// `cuGetProcAddress_v2(name, &pfn, version, flags, &status)`: (result, pfn, status).
fn get(name: &str, version: c_int, flags: u64) -> (u32, *mut c_void, c_int) {
    let f: GetProcAddressV2 = func("cuGetProcAddress_v2");
    let name = CString::new(name).expect("name");
    let mut pfn = std::ptr::dangling_mut::<c_void>(); // must be overwritten, also on failure
    let mut status: c_int = -1;
    // SAFETY: valid name, pfn and status.
    let r = unsafe { f(name.as_ptr(), &mut pfn, version, flags, &mut status) };
    (r, pfn, status)
}

fn found(symbol: &str) -> (u32, *mut c_void, c_int) {
    let addr = dlsym(symbol).unwrap_or_else(|| panic!("{symbol} is not exported"));
    (CUDA_SUCCESS, addr, STATUS_SUCCESS)
}

#[test]
fn picks_the_newest_abi_at_or_below_the_version() {
    // PFN_cuMemAlloc_v2000 (cuMemAlloc, 32-bit) and PFN_cuMemAlloc_v3020 (cuMemAlloc_v2).
    assert_eq!(get("cuMemAlloc", 12000, DEFAULT), found("cuMemAlloc_v2"));
    assert_eq!(get("cuMemAlloc", 3020, DEFAULT), found("cuMemAlloc_v2"));
    // PFN_cuCtxCreate_v3020/_v11040/_v12050: cuCtxCreate_v2, _v3, _v4.
    assert_eq!(get("cuCtxCreate", 11030, DEFAULT), found("cuCtxCreate_v2"));
    assert_eq!(get("cuCtxCreate", 11040, DEFAULT), found("cuCtxCreate_v3"));
    assert_eq!(get("cuCtxCreate", 12050, DEFAULT), found("cuCtxCreate_v4"));
    // PFN_cuStreamGetCaptureInfo_v10010/_v11030/_v12030, cuda.h: the first is declared only for
    // the driver's build, so 10.1's ABI is not exported.
    assert_eq!(
        get("cuStreamGetCaptureInfo", 11030, DEFAULT),
        found("cuStreamGetCaptureInfo_v2")
    );
    assert_eq!(
        get("cuStreamGetCaptureInfo", 12030, DEFAULT),
        found("cuStreamGetCaptureInfo_v3")
    );
    // cuda.h: #define cuGraphInstantiate cuGraphInstantiateWithFlags;
    // cudaTypedefs.h: #define PFN_cuGraphInstantiate PFN_cuGraphInstantiateWithFlags_v11040.
    assert_eq!(
        get("cuGraphInstantiate", 12000, DEFAULT),
        found("cuGraphInstantiateWithFlags")
    );
    // PFN_cuGetProcAddress_v11030 (cuGetProcAddress) and _v12000 (cuGetProcAddress_v2).
    assert_eq!(
        get("cuGetProcAddress", 12000, DEFAULT),
        found("cuGetProcAddress_v2")
    );
    assert_eq!(
        get("cuGetProcAddress", 11030, DEFAULT),
        found("cuGetProcAddress")
    );
}

#[test]
fn a_version_above_the_driver_still_resolves() {
    assert_eq!(get("cuCtxCreate", 99990, DEFAULT), found("cuCtxCreate_v4"));
    assert_eq!(
        get("cuGetErrorName", 13000, DEFAULT),
        found("cuGetErrorName")
    );
}

#[test]
fn per_thread_default_stream_variants() {
    // cuda.h: #define cuStreamQuery __CUDA_API_PTSZ(cuStreamQuery);
    // cudaTypedefs.h: __API_TYPEDEF_PTSZ(PFN_cuStreamQuery, 2000, 7000).
    assert_eq!(
        get("cuStreamQuery", 12000, PER_THREAD),
        found("cuStreamQuery_ptsz")
    );
    assert_eq!(get("cuStreamQuery", 12000, DEFAULT), found("cuStreamQuery"));
    assert_eq!(
        get("cuStreamQuery", 12000, LEGACY_STREAM),
        found("cuStreamQuery")
    );
    // Before 7.0 there was no per-thread twin: the legacy ABI, as the driver documents.
    assert_eq!(
        get("cuStreamQuery", 6050, PER_THREAD),
        found("cuStreamQuery")
    );
    // __API_TYPEDEF_PTDS(PFN_cuMemcpyHtoD, 3020, 7000) and #define cuMemcpyHtoD
    // __CUDA_API_PTDS(cuMemcpyHtoD_v2).
    assert_eq!(
        get("cuMemcpyHtoD", 7000, PER_THREAD),
        found("cuMemcpyHtoD_v2_ptds")
    );
    assert_eq!(
        get("cuMemcpyHtoD", 3020, PER_THREAD),
        found("cuMemcpyHtoD_v2")
    );
    // A function without a per-thread twin answers its ABI.
    assert_eq!(get("cuMemAlloc", 12000, PER_THREAD), found("cuMemAlloc_v2"));
}

#[test]
fn misses_are_not_found_with_the_reason() {
    let null = std::ptr::null_mut();
    assert_eq!(
        get("cuNoSuchFunction", 12000, DEFAULT),
        (CUDA_ERROR_NOT_FOUND, null, STATUS_SYMBOL_NOT_FOUND)
    );
    // PFN_cuDeviceGetUuid_v9020: nothing before 9.2.
    assert_eq!(
        get("cuDeviceGetUuid", 9010, DEFAULT),
        (CUDA_ERROR_NOT_FOUND, null, STATUS_VERSION_NOT_SUFFICIENT)
    );
    // Below 3.2 cuMemAlloc is the 32-bit legacy symbol, which this library does not export.
    assert_eq!(
        get("cuMemAlloc", 3000, DEFAULT),
        (CUDA_ERROR_NOT_FOUND, null, STATUS_VERSION_NOT_SUFFICIENT)
    );
    assert_eq!(dlsym("cuMemAlloc"), None);
    assert_eq!(dlsym("cuCtxDestroy"), None);
}

#[test]
fn bad_arguments_are_invalid_value() {
    let f: GetProcAddressV2 = func("cuGetProcAddress_v2");
    let name = CString::new("cuInit").expect("name");
    let mut pfn = std::ptr::null_mut();
    // SAFETY: null pointers where the API allows checking them.
    unsafe {
        assert_eq!(
            f(
                std::ptr::null(),
                &mut pfn,
                12000,
                DEFAULT,
                std::ptr::null_mut()
            ),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            f(
                name.as_ptr(),
                std::ptr::null_mut(),
                12000,
                DEFAULT,
                std::ptr::null_mut()
            ),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            f(name.as_ptr(), &mut pfn, 12000, 4, std::ptr::null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );
        // symbolStatus may be null.
        assert_eq!(
            f(
                name.as_ptr(),
                &mut pfn,
                12000,
                DEFAULT,
                std::ptr::null_mut()
            ),
            CUDA_SUCCESS
        );
    }
    assert_eq!(Some(pfn), dlsym("cuInit"));
}

#[test]
fn the_cuda_11_abi_has_no_status() {
    let f: GetProcAddress = func("cuGetProcAddress");
    let name = CString::new("cuMemFree").expect("name");
    let mut pfn = std::ptr::null_mut();
    // SAFETY: valid arguments.
    assert_eq!(
        unsafe { f(name.as_ptr(), &mut pfn, 12000, DEFAULT) },
        CUDA_SUCCESS
    );
    assert_eq!(Some(pfn), dlsym("cuMemFree_v2"));
    let name = CString::new("cuMemFreeX").expect("name");
    // SAFETY: valid arguments.
    assert_eq!(
        unsafe { f(name.as_ptr(), &mut pfn, 12000, DEFAULT) },
        CUDA_ERROR_NOT_FOUND
    );
    assert!(pfn.is_null());
}

/// Every ABI in the table resolves, at its own version, to the exported symbol; every legacy
/// symbol not written by hand is absent, every other symbol of the table exported.
#[test]
fn every_table_symbol_resolves() {
    use cuda::procs::{HAND_WRITTEN, LEGACY, PROCS};
    let exported = |s: &str| !LEGACY.contains(&s) || HAND_WRITTEN.contains(&s);
    let mut checked = 0;
    for p in PROCS {
        for abi in p.abis {
            assert_eq!(
                dlsym(abi.symbol).is_some(),
                exported(abi.symbol),
                "{}",
                abi.symbol
            );
            let v = abi.version as c_int;
            if exported(abi.symbol) {
                assert_eq!(
                    get(p.name, v, DEFAULT),
                    found(abi.symbol),
                    "{} at {v}",
                    p.name
                );
                checked += 1;
            } else {
                let miss = (
                    CUDA_ERROR_NOT_FOUND,
                    std::ptr::null_mut(),
                    STATUS_VERSION_NOT_SUFFICIENT,
                );
                assert_eq!(get(p.name, v, DEFAULT), miss, "{} at {v}", p.name);
            }
            if let Some(t) = &abi.per_thread {
                assert_eq!(
                    dlsym(t.symbol).is_some(),
                    exported(t.symbol),
                    "{}",
                    t.symbol
                );
                // A stub twin of a hand-written ABI yields to the ABI (see proc_address.rs).
                let yields =
                    !HAND_WRITTEN.contains(&t.symbol) && HAND_WRITTEN.contains(&abi.symbol);
                let want = if exported(t.symbol) && !yields {
                    t.symbol
                } else {
                    abi.symbol
                };
                if exported(want) {
                    let v = t.version as c_int;
                    assert_eq!(get(p.name, v, PER_THREAD), found(want), "{} at {v}", p.name);
                    checked += 1;
                }
            }
        }
    }
    // cuda.h 12.9 and 13.5 together have about 490 functions with 610 current symbols.
    assert!(checked > 570, "{checked}");
}

/// CUDA 13's ABIs (cudaTypedefs.h of CUDA 13.5) resolve beside CUDA 12's.
#[test]
fn cuda_13_abis() {
    // PFN_cuCtxGetDevice_v2000 and _v13000 (cuCtxGetDevice_v2, which takes the context).
    assert_eq!(
        get("cuCtxGetDevice", 12090, DEFAULT),
        found("cuCtxGetDevice")
    );
    assert_eq!(
        get("cuCtxGetDevice", 13000, DEFAULT),
        found("cuCtxGetDevice_v2")
    );
    // PFN_cuCtxSynchronize_v13000.
    assert_eq!(
        get("cuCtxSynchronize", 13000, DEFAULT),
        found("cuCtxSynchronize_v2")
    );
    // PFN_cuLaunchHostFunc_v13010 and _v13010_ptsz; cuda.h: #define cuLaunchHostFunc_v2
    // __CUDA_API_PTSZ(cuLaunchHostFunc_v2).
    assert_eq!(
        get("cuLaunchHostFunc", 13000, DEFAULT),
        found("cuLaunchHostFunc")
    );
    assert_eq!(
        get("cuLaunchHostFunc", 13010, DEFAULT),
        found("cuLaunchHostFunc_v2")
    );
    assert_eq!(
        get("cuLaunchHostFunc", 13010, PER_THREAD),
        found("cuLaunchHostFunc_v2_ptsz")
    );
    // PFN_cuMemGetDefaultMemPool_v13000: nothing before CUDA 13.
    assert_eq!(
        get("cuMemGetDefaultMemPool", 13000, DEFAULT),
        found("cuMemGetDefaultMemPool")
    );
    assert_eq!(
        get("cuMemGetDefaultMemPool", 12090, DEFAULT),
        (
            CUDA_ERROR_NOT_FOUND,
            std::ptr::null_mut(),
            STATUS_VERSION_NOT_SUFFICIENT
        )
    );
    // PFN_cuGraphAddNode_v12030 and _v13040 share one parameter list: cuGraphAddNode_v2 and
    // cuGraphAddNode_v3 (cuda.h declares both).
    assert_eq!(
        get("cuGraphAddNode", 13030, DEFAULT),
        found("cuGraphAddNode_v2")
    );
    assert_eq!(
        get("cuGraphAddNode", 13040, DEFAULT),
        found("cuGraphAddNode_v3")
    );
    // A CUDA 13 function ptxjit lacks resolves to a stub that answers CUDA_ERROR_NOT_SUPPORTED,
    // as CUDA 12's do (PFN_cuGraphNodeGetLocalId_v13010).
    let (r, pfn, status) = get("cuGraphNodeGetLocalId", 13010, DEFAULT);
    assert_eq!((r, status), (CUDA_SUCCESS, STATUS_SUCCESS));
    assert_eq!(Some(pfn), dlsym("cuGraphNodeGetLocalId"));
    // SAFETY: a stub reads no arguments.
    let stub: unsafe extern "C" fn() -> u32 = unsafe { std::mem::transmute(pfn) };
    assert_eq!(unsafe { stub() }, CUDA_ERROR_NOT_SUPPORTED);
    // CUDA 13's cuda.h declares cuCtxCreate_v2 for the driver's own build only, but programs
    // built with CUDA 12 link to it: still exported.
    assert_eq!(get("cuCtxCreate", 11030, DEFAULT), found("cuCtxCreate_v2"));
    // cuda.h 13.5: CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36.
    assert_eq!(
        error_string("cuGetErrorName", 36),
        (
            CUDA_SUCCESS,
            Some("CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER".into())
        )
    );
}

/// `CUmemLocation`.
#[repr(C)]
struct MemLocation {
    kind: u32,
    id: c_int,
}

extern "C" fn set_flag(data: *mut c_void) {
    // SAFETY: the test passes an AtomicBool that outlives the stream's work.
    unsafe { &*(data as *const std::sync::atomic::AtomicBool) }
        .store(true, std::sync::atomic::Ordering::SeqCst);
}

/// The CUDA 13 ABIs ptxjit implements do what cuda.h 13.5 documents.
#[test]
fn cuda_13_functions_run() {
    const CUDA_ERROR_INVALID_CONTEXT: u32 = 201;
    const LOCATION_DEVICE: u32 = 1;
    const LOCATION_HOST: u32 = 2;
    const ALLOCATION_PINNED: c_int = 1;
    let init: unsafe extern "C" fn(u32) -> u32 = func("cuInit");
    let ctx_create: unsafe extern "C" fn(*mut *mut c_void, u32, c_int) -> u32 =
        func("cuCtxCreate_v2");
    let get_device: unsafe extern "C" fn(*mut c_int, *mut c_void) -> u32 =
        func("cuCtxGetDevice_v2");
    let sync: unsafe extern "C" fn(*mut c_void) -> u32 = func("cuCtxSynchronize_v2");
    let host_fn: unsafe extern "C" fn(
        *mut c_void,
        extern "C" fn(*mut c_void),
        *mut c_void,
        u32,
    ) -> u32 = func("cuLaunchHostFunc_v2");
    let default_pool: unsafe extern "C" fn(*mut u64, *const MemLocation, c_int) -> u32 =
        func("cuMemGetDefaultMemPool");
    let device_default_pool: unsafe extern "C" fn(*mut u64, c_int) -> u32 =
        func("cuDeviceGetDefaultMemPool");
    let get_pool: unsafe extern "C" fn(*mut u64, *const MemLocation, c_int) -> u32 =
        func("cuMemGetMemPool");
    let set_pool: unsafe extern "C" fn(*const MemLocation, c_int, u64) -> u32 =
        func("cuMemSetMemPool");
    let flag = std::sync::atomic::AtomicBool::new(false);
    let device0 = MemLocation {
        kind: LOCATION_DEVICE,
        id: 0,
    };
    let host = MemLocation {
        kind: LOCATION_HOST,
        id: 0,
    };
    // SAFETY: arguments as cuda.h 13.5 declares them; the flag outlives the synchronize.
    unsafe {
        assert_eq!(init(0), CUDA_SUCCESS);
        let mut ctx = std::ptr::null_mut();
        assert_eq!(ctx_create(&mut ctx, 0, 0), CUDA_SUCCESS);
        let mut dev: c_int = -1;
        assert_eq!(get_device(&mut dev, ctx), CUDA_SUCCESS);
        assert_eq!(dev, 0);
        dev = -1;
        assert_eq!(get_device(&mut dev, std::ptr::null_mut()), CUDA_SUCCESS);
        assert_eq!(dev, 0);
        let bogus = 0x7777_0000_usize as *mut c_void;
        assert_eq!(get_device(&mut dev, bogus), CUDA_ERROR_INVALID_CONTEXT);
        assert_eq!(sync(bogus), CUDA_ERROR_INVALID_CONTEXT);

        // CUhostTaskSyncMode is 0 (blocking) or 1 (spin-wait).
        let data = &flag as *const _ as *mut c_void;
        assert_eq!(
            host_fn(std::ptr::null_mut(), set_flag, data, 2),
            CUDA_ERROR_INVALID_VALUE
        );
        assert!(!flag.load(std::sync::atomic::Ordering::SeqCst));
        assert_eq!(
            host_fn(std::ptr::null_mut(), set_flag, data, 1),
            CUDA_SUCCESS
        );
        assert_eq!(sync(ctx), CUDA_SUCCESS);
        assert!(flag.load(std::sync::atomic::Ordering::SeqCst));
        // The context named need not be current; a null one means the current one.
        let set_current: unsafe extern "C" fn(*mut c_void) -> u32 = func("cuCtxSetCurrent");
        assert_eq!(set_current(std::ptr::null_mut()), CUDA_SUCCESS);
        assert_eq!(sync(ctx), CUDA_SUCCESS);
        assert_eq!(get_device(&mut dev, ctx), CUDA_SUCCESS);
        assert_eq!(sync(std::ptr::null_mut()), CUDA_ERROR_INVALID_CONTEXT);
        assert_eq!(
            get_device(&mut dev, std::ptr::null_mut()),
            CUDA_ERROR_INVALID_CONTEXT
        );
        assert_eq!(set_current(ctx), CUDA_SUCCESS);

        let (mut a, mut b) = (0u64, 1u64);
        assert_eq!(
            default_pool(&mut a, &device0, ALLOCATION_PINNED),
            CUDA_SUCCESS
        );
        assert_eq!(device_default_pool(&mut b, 0), CUDA_SUCCESS);
        assert_eq!(a, b);
        assert_ne!(a, 0);
        // A location's current pool is its default pool until one is set.
        assert_eq!(get_pool(&mut b, &device0, ALLOCATION_PINNED), CUDA_SUCCESS);
        assert_eq!(a, b);
        assert_eq!(set_pool(&device0, ALLOCATION_PINNED, a), CUDA_SUCCESS);
        assert_eq!(
            set_pool(&device0, ALLOCATION_PINNED, 0x1234),
            CUDA_ERROR_INVALID_VALUE
        );
        // Host pools are not implemented.
        assert_eq!(
            default_pool(&mut a, &host, ALLOCATION_PINNED),
            CUDA_ERROR_NOT_SUPPORTED
        );
        assert_eq!(
            default_pool(&mut a, std::ptr::null(), ALLOCATION_PINNED),
            CUDA_ERROR_INVALID_VALUE
        );
    }
}

#[test]
fn stubs_answer_not_supported() {
    // Graphics interop: no CPU counterpart, so a stub whatever else gets implemented.
    let f: unsafe extern "C" fn() -> u32 = func("cuGraphicsUnregisterResource");
    // SAFETY: a stub reads no arguments.
    assert_eq!(unsafe { f() }, CUDA_ERROR_NOT_SUPPORTED);
}

#[test]
fn export_tables_are_absent() {
    let f: GetExportTable = func("cuGetExportTable");
    let id = [
        0x6e, 0x16, 0x3f, 0xbe, 0xb9, 0x58, 0x44, 0x4d, 0x83, 0x5c, 0xe1, 0x82, 0xaf, 0xf1, 0x99,
        0x1e,
    ];
    let mut table = std::ptr::dangling::<c_void>();
    // SAFETY: valid pointers; then nulls, which the function checks.
    unsafe {
        assert_eq!(f(&mut table, &id), CUDA_ERROR_INVALID_VALUE);
        assert!(table.is_null());
        assert_eq!(f(std::ptr::null_mut(), &id), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(f(&mut table, std::ptr::null()), CUDA_ERROR_INVALID_VALUE);
    }
}

/// A miss prints its reason once, naming the loaded object that asked: here this test
/// program, which calls the dlopen'ed library (NVIDIA's runtime inside a Python extension,
/// such as CuPy's, in real use). The table NVRTC 12.9 asks for, and compiles without, is not
/// announced and does not use up the once. Run in a child process: the reason is printed once
/// per process.
#[test]
fn export_table_miss_names_the_asking_object() {
    const CHILD: &str = "PTXJIT_TEST_EXPORT_TABLE_CHILD";
    if std::env::var_os(CHILD).is_some() {
        let f: GetExportTable = func("cuGetExportTable");
        let mut table = std::ptr::dangling::<c_void>();
        // NVRTC's (da9151d3-3ae6-cc41-a5c0-4f26d533e328, as NVRTC 12.9 passes it), then another.
        let nvrtc = [
            0xda, 0x91, 0x51, 0xd3, 0x3a, 0xe6, 0xcc, 0x41, 0xa5, 0xc0, 0x4f, 0x26, 0xd5, 0x33,
            0xe3, 0x28,
        ];
        for id in [nvrtc, [0x5a; 16]] {
            // SAFETY: valid pointers.
            assert_eq!(unsafe { f(&mut table, &id) }, CUDA_ERROR_INVALID_VALUE);
            assert!(table.is_null());
        }
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let out = std::process::Command::new(&exe)
        .args(["--exact", "export_table_miss_names_the_asking_object"])
        .args(["--test-threads", "1", "--nocapture"])
        .env(CHILD, "1")
        .output()
        .expect("run the test binary");
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let want = format!("no export table {} (asked for by ", "5a".repeat(16));
    let line = stderr
        .lines()
        .find(|l| l.contains(&want))
        .unwrap_or_else(|| panic!("no line with {want:?} in {stderr}"));
    let name = exe.file_name().expect("a file name").to_string_lossy();
    assert!(line.contains(&*name), "{line}");
    assert!(!line.contains("libcuda.so"), "{line}");
    assert!(
        !stderr.contains("da9151d3"),
        "NVRTC's table announced: {stderr}"
    );
}

fn error_string(symbol: &str, code: u32) -> (u32, Option<String>) {
    let f: GetErrorString = func(symbol);
    let mut s: *const c_char = c"not written".as_ptr();
    // SAFETY: valid out pointer.
    let r = unsafe { f(code, &mut s) };
    // SAFETY: a static NUL-terminated string when not null.
    (
        r,
        (!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()),
    )
}

#[test]
fn error_names_and_strings() {
    let ok = |s: &str| (CUDA_SUCCESS, Some(s.to_string()));
    // Names: cuda.h's enumerators.
    assert_eq!(
        error_string("cuGetErrorName", 1),
        ok("CUDA_ERROR_INVALID_VALUE")
    );
    assert_eq!(error_string("cuGetErrorName", 0), ok("CUDA_SUCCESS"));
    assert_eq!(
        error_string("cuGetErrorName", 700),
        ok("CUDA_ERROR_ILLEGAL_ADDRESS")
    );
    assert_eq!(
        error_string("cuGetErrorName", 999),
        ok("CUDA_ERROR_UNKNOWN")
    );
    // Strings as NVIDIA's driver gives them, from logs of programs on it, e.g. TensorFlow's
    // "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected" and
    // CuPy's "CUDADriverError: CUDA_ERROR_INVALID_VALUE: invalid argument".
    assert_eq!(error_string("cuGetErrorString", 1), ok("invalid argument"));
    assert_eq!(error_string("cuGetErrorString", 2), ok("out of memory"));
    assert_eq!(
        error_string("cuGetErrorString", 100),
        ok("no CUDA-capable device is detected")
    );
    assert_eq!(
        error_string("cuGetErrorString", 500),
        ok("named symbol not found")
    );
    assert_eq!(
        error_string("cuGetErrorString", 700),
        ok("an illegal memory access was encountered")
    );
    assert_eq!(
        error_string("cuGetErrorString", 719),
        ok("unspecified launch failure")
    );
    // Without a public trace of the driver's string: the first sentence of cuda.h's comment.
    assert_eq!(
        error_string("cuGetErrorString", 600),
        ok("This indicates that asynchronous operations issued previously have not completed yet.")
    );
    // Not a CUresult: CUDA_ERROR_INVALID_VALUE and a null string, as the driver documents.
    assert_eq!(
        error_string("cuGetErrorName", 12345),
        (CUDA_ERROR_INVALID_VALUE, None)
    );
    assert_eq!(
        error_string("cuGetErrorString", 12345),
        (CUDA_ERROR_INVALID_VALUE, None)
    );
    let f: GetErrorString = func("cuGetErrorString");
    // SAFETY: a null out pointer, which the function checks.
    assert_eq!(
        unsafe { f(1, std::ptr::null_mut()) },
        CUDA_ERROR_INVALID_VALUE
    );
}

/// A library that loads modules through the driver and cannot run here (cuBLAS, whose
/// failure is its own `CUBLAS_STATUS_INTERNAL_ERROR`) is named, with why, by the line ptxjit
/// prints when it first loads a module; other objects get no line.
#[test]
fn libraries_that_cannot_run_are_named() {
    let site = "/venv/lib/python3.11/site-packages/nvidia/cublas/lib";
    for file in ["libcublas.so.12", "libcublasLt.so.12"] {
        let note = cuda::module::cannot_run_note(&format!("{site}/{file}")).expect(file);
        assert!(
            note.starts_with(&format!("ptxjit: cuBLAS ({file}) does not run on ptxjit: ")),
            "{note}"
        );
        assert!(note.contains("SASS alone"), "{note}");
        assert!(note.contains("CUBLAS_STATUS_INTERNAL_ERROR"), "{note}");
    }
    let fft =
        cuda::module::cannot_run_note("/venv/nvidia/cufft/lib/libcufft.so.11").expect("cuFFT");
    assert!(
        fft.starts_with("ptxjit: cuFFT (libcufft.so.11) does not run on ptxjit: "),
        "{fft}"
    );
    for other in [
        "/venv/lib/python3.11/site-packages/cupy_backends/cuda/api/runtime.cpython-311-x86_64-linux-gnu.so",
        "/usr/bin/python3.11",
        "libcurand.so.10",
        "",
    ] {
        assert_eq!(cuda::module::cannot_run_note(other), None, "{other}");
    }
}
