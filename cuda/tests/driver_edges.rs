//! Edge cases of the driver API that CUDA programs (numba-cuda's test suite among them)
//! rely on. Expected values come from CUDA's documented behaviour and the PTX text.

use cuda::context::*;
use cuda::device::*;
use cuda::errors::*;
use cuda::memory::*;
use cuda::module::*;
use cuda::profiler::*;
use cuda::stream::*;
use std::ffi::CString;
use std::ptr::null_mut;

mod common;
use common::setup;

#[test]
fn copies_of_zero_bytes_succeed_whatever_the_pointers() {
    setup();
    unsafe {
        let host = [0u8; 4];
        // numba copies an empty array through a null device pointer.
        assert_eq!(cuMemcpyHtoD_v2(0, host.as_ptr().cast(), 0), CUDA_SUCCESS);
        assert_eq!(
            cuMemcpyHtoDAsync_v2(0, host.as_ptr().cast(), 0, 0),
            CUDA_SUCCESS
        );
        assert_eq!(cuMemcpyDtoH_v2(null_mut(), 0, 0), CUDA_SUCCESS);
        assert_eq!(cuMemcpyDtoD_v2(0, 0, 0), CUDA_SUCCESS);
        // One byte through the same null pointer is an error.
        assert_eq!(
            cuMemcpyHtoD_v2(0, host.as_ptr().cast(), 1),
            CUDA_ERROR_INVALID_VALUE
        );
    }
}

#[test]
fn profiler_start_and_stop_need_a_context() {
    setup();
    unsafe {
        assert_eq!(cuProfilerStart(), CUDA_SUCCESS);
        assert_eq!(cuProfilerStop(), CUDA_SUCCESS);
    }
    // A thread with no current context gets CUDA_ERROR_INVALID_CONTEXT.
    let codes = std::thread::spawn(|| unsafe { (cuProfilerStart(), cuProfilerStop()) })
        .join()
        .unwrap();
    assert_eq!(
        codes,
        (CUDA_ERROR_INVALID_CONTEXT, CUDA_ERROR_INVALID_CONTEXT)
    );
}

/// A kernel reading an 80-byte `.const` table (ten f64) and a module-scope `.global`.
const CONST_PTX: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.const .align 8 .b8 table[80];
.global .align 4 .b8 other[64];
.visible .entry k(.param .u64 out)
{
    .reg .b64 %rd<3>;
    .reg .f64 %fd<2>;
    ld.param.u64 %rd1, [out];
    ld.const.f64 %fd1, [table+8];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.f64 [%rd2], %fd1;
    ret;
}
"#;

#[test]
fn const_size_attribute_counts_the_const_bank() {
    setup();
    let text = CString::new(CONST_PTX).unwrap();
    let name = CString::new("k").unwrap();
    unsafe {
        let (mut m, mut f) = (0u64, 0u64);
        assert_eq!(cuModuleLoadData(&mut m, text.as_ptr().cast()), CUDA_SUCCESS);
        assert_eq!(cuModuleGetFunction(&mut f, m, name.as_ptr()), CUDA_SUCCESS);
        let mut v = -1;
        // CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2: the 80 bytes of `table`, not `other`.
        assert_eq!(cuFuncGetAttribute(&mut v, 2, f), CUDA_SUCCESS);
        assert_eq!(v, 80);
    }
}

#[test]
fn a_child_forked_after_init_cannot_use_the_driver() {
    setup();
    let mut p = 0u64;
    unsafe {
        assert_eq!(cuMemAlloc_v2(&mut p, 16), CUDA_SUCCESS);
        // SAFETY: the child only calls the driver (glibc keeps malloc usable after fork)
        // and leaves with _exit.
        let pid = libc::fork();
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let mut q = 0u64;
            let codes = [
                cuMemAlloc_v2(&mut q, 16),
                cuMemFree_v2(p),
                cuInit(0),
                cuCtxSynchronize(),
            ];
            let ok = codes.iter().all(|&c| c == CUDA_ERROR_NOT_INITIALIZED);
            libc::_exit(if ok { 0 } else { 1 });
        }
        let mut status = 0;
        assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
        assert!(libc::WIFEXITED(status), "the child did not exit");
        assert_eq!(
            libc::WEXITSTATUS(status),
            0,
            "the child got a code other than CUDA_ERROR_NOT_INITIALIZED"
        );
        // The parent still has its driver.
        assert_eq!(cuMemFree_v2(p), CUDA_SUCCESS);
    }
}

/// At the default compute capability 8.0 the device has no thread block clusters:
/// `CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH` is 0 and a launch given a cluster shape (here the
/// required cluster width) is `CUDA_ERROR_NOT_SUPPORTED`, while the same kernel launched
/// without one runs.
#[test]
fn clusters_need_compute_capability_9_0() {
    if std::env::var_os("PTXJIT_CC").is_some() {
        eprintln!("PTXJIT_CC is set; this test checks the default 8.0");
        return;
    }
    setup();
    let text = CString::new(common::AXPC_PTX).unwrap();
    let f = common::function(common::load(&text), "axpc");
    unsafe {
        let mut v = -1;
        assert_eq!(cuDeviceGetAttribute(&mut v, 120, 0), CUDA_SUCCESS);
        assert_eq!(v, 0);
        let mut x = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut x, 4 * 64), CUDA_SUCCESS);
        let (m, c, n) = (1u32, 0u32, 0u32);
        let mut params = [
            common::arg(&x),
            common::arg(&m),
            common::arg(&c),
            common::arg(&n),
        ];
        let launch = |params: &mut [*mut std::ffi::c_void; 4]| {
            cuda::launch::cuLaunchKernel(
                f,
                2,
                1,
                1,
                32,
                1,
                1,
                0,
                0,
                params.as_mut_ptr(),
                null_mut(),
            )
        };
        assert_eq!(launch(&mut params), CUDA_SUCCESS);
        // Setting the attribute succeeds (the driver checks the shape at launch) ...
        assert_eq!(cuFuncSetAttribute(f, 11, 2), CUDA_SUCCESS);
        // ... and the launch in clusters fails; the context stays usable.
        assert_eq!(launch(&mut params), CUDA_ERROR_NOT_SUPPORTED);
        assert_eq!(cuFuncSetAttribute(f, 11, 0), CUDA_SUCCESS);
        assert_eq!(launch(&mut params), CUDA_SUCCESS);
    }
}

#[test]
fn two_d_copies_outside_a_pitch_or_an_array_are_refused_and_write_nothing() {
    use cuda::texture::*;
    setup();
    unsafe {
        let mut d = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut d, 256), CUDA_SUCCESS);
        // 2 rows of 32 bytes into a host buffer of pitch 16: the driver's rule is
        // WidthInBytes <= both pitches; the canary after 2 x 16 bytes stays.
        let mut host = [0xabu8; 48];
        let mut m = Memcpy2d {
            src_x: 0,
            src_y: 0,
            src_type: 2, // CU_MEMORYTYPE_DEVICE
            src_host: std::ptr::null(),
            src_device: d,
            src_array: 0,
            src_pitch: 64,
            dst_x: 0,
            dst_y: 0,
            dst_type: 1, // CU_MEMORYTYPE_HOST
            dst_host: host.as_mut_ptr().cast(),
            dst_device: 0,
            dst_array: 0,
            dst_pitch: 16,
            width: 32,
            height: 2,
        };
        assert_eq!(cuMemcpy2D_v2(&m), CUDA_ERROR_INVALID_VALUE);
        assert!(host.iter().all(|&b| b == 0xab));
        m.dst_pitch = 32;
        m.src_pitch = 16;
        assert_eq!(cuMemcpy2D_v2(&m), CUDA_ERROR_INVALID_VALUE);
        m.src_pitch = 64;
        assert_eq!(cuMemcpy2D_v2(&m), CUDA_SUCCESS);
        // A 4 x 2 array of u32 (16-byte rows): a box one byte past a row, or one row past
        // the last, is refused.
        let desc = ArrayDescriptor {
            width: 4,
            height: 2,
            format: 0x03, // CU_AD_FORMAT_UNSIGNED_INT32
            channels: 1,
        };
        let mut a = 0u64;
        assert_eq!(cuArrayCreate_v2(&mut a, &desc), CUDA_SUCCESS);
        let src = [7u8; 64];
        let mut to_array = Memcpy2d {
            src_type: 1,
            src_host: src.as_ptr().cast(),
            src_pitch: 32,
            src_device: 0,
            dst_type: 3, // CU_MEMORYTYPE_ARRAY
            dst_host: null_mut(),
            dst_device: 0,
            dst_array: a,
            dst_pitch: 0,
            dst_x: 1,
            width: 16,
            height: 2,
            ..m
        };
        assert_eq!(cuMemcpy2D_v2(&to_array), CUDA_ERROR_INVALID_VALUE);
        to_array.dst_x = 0;
        to_array.dst_y = 1;
        assert_eq!(cuMemcpy2D_v2(&to_array), CUDA_ERROR_INVALID_VALUE);
        to_array.dst_y = 0;
        assert_eq!(cuMemcpy2D_v2(&to_array), CUDA_SUCCESS);
    }
}

#[test]
fn pitched_and_linear_textures_need_aligned_pointers_and_pitches() {
    use cuda::texture::*;
    setup();
    unsafe {
        // cuTexObjectCreate's documented rules: devPtr aligned to TEXTURE_ALIGNMENT (512),
        // pitchInBytes a multiple of TEXTURE_PITCH_ALIGNMENT (32); else INVALID_VALUE. An
        // allocation's start is aligned (cudaBindTexture2D: no offset for cudaMalloc's
        // pointers), so 512 bytes into it is too, and 4 or 256 bytes into it is not.
        let (mut align, mut pitch_align) = (0, 0);
        assert_eq!(
            cuDeviceGetAttribute(&mut align, 14, 0), // TEXTURE_ALIGNMENT
            CUDA_SUCCESS
        );
        assert_eq!(
            cuDeviceGetAttribute(&mut pitch_align, 51, 0), // TEXTURE_PITCH_ALIGNMENT
            CUDA_SUCCESS
        );
        assert_eq!((align, pitch_align), (512, 32));
        let mut d = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut d, 8192), CUDA_SUCCESS);
        let float1 = 0x20u64 | 1 << 32; // CU_AD_FORMAT_FLOAT, 1 channel
                                        // A 16 x 4 float image (64-byte rows).
        let pitched = |ptr: u64, width: u64, pitch: u64| {
            let mut res = [0u64; 16];
            res[..5].copy_from_slice(&[ptr, float1, width, 4, pitch]);
            ResourceDescC {
                res_type: 3, // CU_RESOURCE_TYPE_PITCH2D
                res,
                flags: 0,
            }
        };
        let mut tex: TextureDescC = std::mem::zeroed();
        tex.address = [1; 3]; // CU_TR_ADDRESS_MODE_CLAMP
        let mut t = 0u64;
        let create = |r: &ResourceDescC, t: &mut u64| cuTexObjectCreate(t, r, &tex, null_mut());
        assert_eq!(
            create(&pitched(d + 4, 16, 64), &mut t),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            create(&pitched(d + 256, 16, 64), &mut t),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            create(&pitched(d, 16, 72), &mut t),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            create(&pitched(d, 17, 64), &mut t),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(create(&pitched(d + 512, 16, 96), &mut t), CUDA_SUCCESS);
        assert_eq!(cuTexObjectDestroy(t), CUDA_SUCCESS);
        let mut res = [0u64; 16];
        res[..3].copy_from_slice(&[d + 16, float1, 1024]);
        let mut linear = ResourceDescC {
            res_type: 2, // CU_RESOURCE_TYPE_LINEAR
            res,
            flags: 0,
        };
        assert_eq!(create(&linear, &mut t), CUDA_ERROR_INVALID_VALUE);
        linear.res[0] = d;
        assert_eq!(create(&linear, &mut t), CUDA_SUCCESS);
        assert_eq!(cuTexObjectDestroy(t), CUDA_SUCCESS);
        assert_eq!(cuMemFree_v2(d), CUDA_SUCCESS);
    }
}

#[test]
fn stream_and_event_flags_outside_the_documented_ones_are_refused() {
    use cuda::stream::*;
    setup();
    unsafe {
        // cuStreamCreate: CU_STREAM_DEFAULT (0) and CU_STREAM_NON_BLOCKING (1) only.
        let mut s = 0u64;
        assert_eq!(cuStreamCreate(&mut s, 2), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuStreamCreate(&mut s, 77), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(
            cuStreamCreateWithPriority(&mut s, 4, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuStreamCreate(&mut s, 1), CUDA_SUCCESS);
        assert_eq!(cuStreamDestroy_v2(s), CUDA_SUCCESS);
        // cuEventCreate: BLOCKING_SYNC 1, DISABLE_TIMING 2, INTERPROCESS 4 with DISABLE_TIMING.
        let mut e = 0u64;
        assert_eq!(cuEventCreate(&mut e, 0x80), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuEventCreate(&mut e, 4), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuEventCreate(&mut e, 5), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuEventCreate(&mut e, 7), CUDA_SUCCESS);
        assert_eq!(cuEventDestroy_v2(e), CUDA_SUCCESS);
    }
}

/// Peer access (CUDA driver API: Peer Context Memory Access) on ptxjit's one device: a device
/// is not its own peer (`cuDeviceCanAccessPeer(0, 0)` is 0, as NVIDIA's drivers answer), so
/// enabling access between two contexts fails as documented for devices that cannot access
/// each other, and disabling what was never enabled is `CUDA_ERROR_PEER_ACCESS_NOT_ENABLED`.
#[test]
fn peer_access_on_the_one_device() {
    setup();
    unsafe {
        let mut can = -1;
        assert_eq!(cuDeviceCanAccessPeer(&mut can, 0, 0), CUDA_SUCCESS);
        assert_eq!(can, 0);
        assert_eq!(
            cuDeviceCanAccessPeer(&mut can, 0, 1),
            CUDA_ERROR_INVALID_DEVICE
        );
        assert_eq!(
            cuDeviceCanAccessPeer(&mut can, -1, 0),
            CUDA_ERROR_INVALID_DEVICE
        );
        let mut primary = null_mut();
        assert_eq!(cuCtxGetCurrent(&mut primary), CUDA_SUCCESS);
        let mut other = null_mut();
        assert_eq!(cuCtxCreate_v2(&mut other, 0, 0), CUDA_SUCCESS);
        let stale = 0x1234usize as CUcontext;
        // The current context itself, or no live context: CUDA_ERROR_INVALID_CONTEXT.
        assert_eq!(cuCtxEnablePeerAccess(other, 0), CUDA_ERROR_INVALID_CONTEXT);
        assert_eq!(cuCtxEnablePeerAccess(stale, 0), CUDA_ERROR_INVALID_CONTEXT);
        assert_eq!(cuCtxEnablePeerAccess(primary, 1), CUDA_ERROR_INVALID_VALUE);
        // Both contexts are on device 0.
        assert_eq!(
            cuCtxEnablePeerAccess(primary, 0),
            CUDA_ERROR_PEER_ACCESS_UNSUPPORTED
        );
        assert_eq!(
            cuCtxDisablePeerAccess(primary),
            CUDA_ERROR_PEER_ACCESS_NOT_ENABLED
        );
        assert_eq!(cuCtxDisablePeerAccess(stale), CUDA_ERROR_INVALID_CONTEXT);
        assert_eq!(cuCtxDestroy_v2(other), CUDA_SUCCESS);
        assert_eq!(cuCtxSetCurrent(primary), CUDA_SUCCESS);
    }
}

/// Releasing what a live context owns needs no current context: `cuMemFree` of an
/// allocation, `cuStreamDestroy`, `cuEventDestroy`, `cuModuleUnload` (NVIDIA's driver finds
/// the owner by the address or handle; numba's `cuda.close()` pops every context before it
/// frees the arrays and destroys the streams and events the program dropped). A pointer no
/// context allocated still needs one (`CUDA_ERROR_INVALID_CONTEXT`).
#[test]
fn releasing_what_a_context_owns_needs_no_current_context() {
    setup();
    let m = common::load(&CString::new(common::AXPC_PTX).unwrap());
    unsafe {
        let (mut p, mut q) = (0u64, 0u64);
        assert_eq!(cuMemAlloc_v2(&mut p, 4096), CUDA_SUCCESS);
        assert_eq!(cuMemAlloc_v2(&mut q, 64), CUDA_SUCCESS);
        let (mut s, mut e) = (0u64, 0u64);
        assert_eq!(cuStreamCreate(&mut s, 0), CUDA_SUCCESS);
        assert_eq!(cuEventCreate(&mut e, 0), CUDA_SUCCESS);
        let mut ctx = null_mut();
        assert_eq!(cuCtxPopCurrent_v2(&mut ctx), CUDA_SUCCESS);
        let mut current = null_mut();
        assert_eq!(cuCtxGetCurrent(&mut current), CUDA_SUCCESS);
        assert!(current.is_null(), "no context is current");
        assert_eq!(cuMemFree_v2(p), CUDA_SUCCESS);
        assert_eq!(cuMemFree_v2(q + 16), CUDA_ERROR_INVALID_CONTEXT);
        assert_eq!(cuEventDestroy_v2(e), CUDA_SUCCESS);
        assert_eq!(cuStreamDestroy_v2(s), CUDA_SUCCESS);
        assert_eq!(cuModuleUnload(m), CUDA_SUCCESS);
        assert_eq!(cuCtxPushCurrent_v2(ctx), CUDA_SUCCESS);
        // Released: a second release is of nothing; the other allocation is still there.
        assert_eq!(cuMemFree_v2(p), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuEventDestroy_v2(e), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(cuStreamDestroy_v2(s), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(cuModuleUnload(m), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(cuMemFree_v2(q), CUDA_SUCCESS);
    }
}

/// A copy whose host pointer cannot be host memory (a size or small integer given for it, as
/// a Python program passing `a.nbytes` where `a.ctypes.data` belongs does) is
/// `CUDA_ERROR_INVALID_VALUE`; NVIDIA's driver reads or writes through it and the program
/// crashes. The device memory is left as it was.
#[test]
fn copies_with_a_host_pointer_that_is_no_host_address_are_refused() {
    setup();
    unsafe {
        let mut d = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut d, 64), CUDA_SUCCESS);
        let fill = [7u8; 64];
        assert_eq!(cuMemcpyHtoD_v2(d, fill.as_ptr().cast(), 64), CUDA_SUCCESS);
        let small = std::ptr::without_provenance_mut::<std::ffi::c_void>(16);
        assert_eq!(cuMemcpyHtoD_v2(d, small, 16), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuMemcpyDtoH_v2(small, d, 16), CUDA_ERROR_INVALID_VALUE);
        let high = std::ptr::without_provenance_mut::<std::ffi::c_void>(usize::MAX - 8);
        assert_eq!(cuMemcpyDtoH_v2(high, d, 16), CUDA_ERROR_INVALID_VALUE);
        let mut back = [0u8; 64];
        assert_eq!(
            cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), d, 64),
            CUDA_SUCCESS
        );
        assert_eq!(back, fill);
        assert_eq!(cuMemFree_v2(d), CUDA_SUCCESS);
    }
}

/// `cuMemPrefetchAsync` and `cuMemAdvise` (CUDA Driver API, Unified Addressing): "the memory
/// range must refer to managed memory allocated via cuMemAllocManaged or declared via
/// __managed__ variables", else CUDA_ERROR_INVALID_VALUE; a device other than 0 or
/// CU_DEVICE_CPU (-1) is CUDA_ERROR_INVALID_DEVICE. A `.attribute(.managed)` global is
/// managed memory: prefetching accepts it, pointer attributes report it managed, and
/// cuLibraryGetManaged finds it (and only it: CUDA_ERROR_NOT_FOUND for a plain global).
#[test]
fn prefetch_and_advice_take_managed_memory_only() {
    setup();
    unsafe {
        let ptx = CString::new(
            ".version 7.0\n.target sm_80\n.address_size 64\n\
             .global .attribute(.managed) .align 4 .u32 counts[16];\n\
             .global .align 4 .u32 plain[16];\n\
             .visible .entry k()\n{\nret;\n}\n",
        )
        .unwrap();
        let mut m = 0u64;
        assert_eq!(cuModuleLoadData(&mut m, ptx.as_ptr().cast()), CUDA_SUCCESS);
        let global = |name: &str| {
            let (mut p, mut n) = (0u64, 0usize);
            let c = CString::new(name).unwrap();
            assert_eq!(
                cuModuleGetGlobal_v2(&mut p, &mut n, m, c.as_ptr()),
                CUDA_SUCCESS
            );
            assert_eq!(n, 64);
            p
        };
        let (counts, plain) = (global("counts"), global("plain"));
        let (mut d, mut managed) = (0u64, 0u64);
        assert_eq!(cuMemAlloc_v2(&mut d, 256), CUDA_SUCCESS);
        assert_eq!(cuMemAllocManaged(&mut managed, 256, 1), CUDA_SUCCESS);
        let host = [0u8; 64];
        let host = host.as_ptr() as u64;
        // CUDA 13's cuMemPrefetchAsync is the _v2 ABI: (ptr, count, location, flags, stream).
        let device0 = CUmemLocation { kind: 1, id: 0 };
        let on_host = CUmemLocation { kind: 2, id: 0 };
        for (p, n, ok) in [
            (managed, 256, true),
            (managed + 128, 128, true),
            (managed + 128, 129, false),
            (counts, 64, true),
            (counts + 4, 60, true),
            (counts, 65, false),
            (plain, 64, false),
            (d, 256, false),
            (host, 64, false),
        ] {
            let want = if ok {
                CUDA_SUCCESS
            } else {
                CUDA_ERROR_INVALID_VALUE
            };
            for loc in [device0, on_host] {
                assert_eq!(cuMemPrefetchAsync_v2(p, n, loc, 0, 0), want, "{p:#x}+{n}");
            }
            assert_eq!(cuMemPrefetchAsync(p, n, 0, 0), want, "{p:#x}+{n}");
            assert_eq!(cuMemPrefetchAsync(p, n, -1, 0), want, "{p:#x}+{n}");
            // CU_MEM_ADVISE_SET_READ_MOSTLY (1), SET_PREFERRED_LOCATION (3).
            assert_eq!(cuMemAdvise(p, n, 1, 0), want, "{p:#x}+{n}");
            assert_eq!(cuMemAdvise_v2(p, n, 3, device0), want, "{p:#x}+{n}");
        }
        // Devices and advice outside CUDA's values.
        assert_eq!(
            cuMemPrefetchAsync(managed, 256, 1, 0),
            CUDA_ERROR_INVALID_DEVICE
        );
        let device1 = CUmemLocation { kind: 1, id: 1 };
        assert_eq!(
            cuMemPrefetchAsync_v2(managed, 256, device1, 0, 0),
            CUDA_ERROR_INVALID_DEVICE
        );
        assert_eq!(cuMemAdvise(managed, 256, 7, 0), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuMemAdvise(managed, 256, 3, 2), CUDA_ERROR_INVALID_DEVICE);
        // Read-mostly ignores its device argument (cuMemAdvise's documentation).
        assert_eq!(cuMemAdvise(managed, 256, 1, 5), CUDA_SUCCESS);
        // The managed variable reads as managed memory (CU_POINTER_ATTRIBUTE_IS_MANAGED 8).
        let is_managed = |p: u64| {
            let mut v = 0u8;
            assert_eq!(
                cuPointerGetAttribute((&mut v as *mut u8).cast(), 8, p),
                CUDA_SUCCESS
            );
            v
        };
        assert_eq!((is_managed(counts), is_managed(plain)), (1, 0));
        let (mut p, mut n) = (0u64, 0usize);
        let name = CString::new("counts").unwrap();
        assert_eq!(
            cuLibraryGetManaged(&mut p, &mut n, m, name.as_ptr()),
            CUDA_SUCCESS
        );
        assert_eq!((p, n), (counts, 64));
        let name = CString::new("plain").unwrap();
        assert_eq!(
            cuLibraryGetManaged(&mut p, &mut n, m, name.as_ptr()),
            CUDA_ERROR_NOT_FOUND
        );
        assert_eq!(cuMemFree_v2(d), CUDA_SUCCESS);
        assert_eq!(cuMemFree_v2(managed), CUDA_SUCCESS);
        // A freed managed allocation is no longer managed memory.
        assert_eq!(
            cuMemPrefetchAsync(managed, 256, 0, 0),
            CUDA_ERROR_INVALID_VALUE
        );
    }
}

/// `cuTexObjectGetResourceDesc`/`TextureDesc`, `cuSurfObjectGetResourceDesc`: the descriptors
/// the object was created with, byte for byte; `cuTexObjectGetResourceViewDesc`: an object
/// created without a view has none (CUDA_ERROR_INVALID_VALUE); a destroyed object, or one of
/// the other kind, is CUDA_ERROR_INVALID_VALUE.
#[test]
fn texture_and_surface_objects_give_back_their_descriptors() {
    use cuda::texture::*;
    setup();
    unsafe {
        let mut d = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut d, 4096), CUDA_SUCCESS);
        let mut res = [0u64; 16];
        // Linear: devPtr, CU_AD_FORMAT_UNSIGNED_INT8 with 4 channels, 1024 bytes.
        res[..3].copy_from_slice(&[d, 0x01 | 4 << 32, 1024]);
        let linear = ResourceDescC {
            res_type: 2,
            res,
            flags: 0,
        };
        let mut tex: TextureDescC = std::mem::zeroed();
        tex.address = [1, 3, 1]; // CLAMP, BORDER, CLAMP
        tex.flags = 0x01; // CU_TRSF_READ_AS_INTEGER
        tex.border = [0.25, 0.5, 0.75, 1.0];
        tex.max_lod = 3.5;
        let mut t = 0u64;
        assert_eq!(
            cuTexObjectCreate(&mut t, &linear, &tex, null_mut()),
            CUDA_SUCCESS
        );
        let bytes = |p: *const u8, n: usize| std::slice::from_raw_parts(p, n).to_vec();
        let mut got_res: ResourceDescC = std::mem::zeroed();
        let mut got_tex: TextureDescC = std::mem::zeroed();
        assert_eq!(cuTexObjectGetResourceDesc(&mut got_res, t), CUDA_SUCCESS);
        assert_eq!(cuTexObjectGetTextureDesc(&mut got_tex, t), CUDA_SUCCESS);
        let n_tex = std::mem::size_of::<TextureDescC>();
        assert_eq!((got_res.res_type, got_res.res, got_res.flags), (2, res, 0));
        assert_eq!(
            bytes((&got_tex as *const TextureDescC).cast(), n_tex),
            bytes((&tex as *const TextureDescC).cast(), n_tex)
        );
        let mut view = [0u8; 256];
        assert_eq!(
            cuTexObjectGetResourceViewDesc(view.as_mut_ptr().cast(), t),
            CUDA_ERROR_INVALID_VALUE
        );
        // A texture object is not a surface object.
        assert_eq!(
            cuSurfObjectGetResourceDesc(&mut got_res, t),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuTexObjectGetResourceDesc(null_mut(), t),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuTexObjectDestroy(t), CUDA_SUCCESS);
        assert_eq!(
            cuTexObjectGetResourceDesc(&mut got_res, t),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuTexObjectGetTextureDesc(&mut got_tex, t),
            CUDA_ERROR_INVALID_VALUE
        );

        // A surface over a 16 x 8 float array made for surface load/store.
        let desc = Array3dDescriptor {
            width: 16,
            height: 8,
            depth: 0,
            format: 0x20,
            channels: 1,
            flags: 0x02, // CUDA_ARRAY3D_SURFACE_LDST
        };
        let mut a = 0u64;
        assert_eq!(cuArray3DCreate_v2(&mut a, &desc), CUDA_SUCCESS);
        let mut res = [0u64; 16];
        res[0] = a;
        let array = ResourceDescC {
            res_type: 0,
            res,
            flags: 0,
        };
        let mut s = 0u64;
        assert_eq!(cuSurfObjectCreate(&mut s, &array), CUDA_SUCCESS);
        let mut got: ResourceDescC = std::mem::zeroed();
        assert_eq!(cuSurfObjectGetResourceDesc(&mut got, s), CUDA_SUCCESS);
        assert_eq!((got.res_type, got.res, got.flags), (0, res, 0));
        assert_eq!(
            cuTexObjectGetResourceDesc(&mut got, s),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuSurfObjectDestroy(s), CUDA_SUCCESS);
        assert_eq!(
            cuSurfObjectGetResourceDesc(&mut got, s),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuArrayDestroy(a), CUDA_SUCCESS);
        assert_eq!(cuMemFree_v2(d), CUDA_SUCCESS);
    }
}

/// The 2D memsets refuse a row wider than the pitch (CUDA_ERROR_INVALID_VALUE) and write
/// nothing; a single row does not use the pitch ("dstPitch: unused if Height is 1").
#[test]
fn two_d_memsets_refuse_rows_wider_than_the_pitch() {
    setup();
    unsafe {
        let mut d = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut d, 1024), CUDA_SUCCESS);
        assert_eq!(cuMemsetD8_v2(d, 0, 1024), CUDA_SUCCESS);
        assert_eq!(cuMemsetD2D8_v2(d, 64, 1, 65, 2), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuMemsetD2D16_v2(d, 64, 1, 33, 2), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuMemsetD2D32_v2(d, 64, 1, 17, 2), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(
            cuMemsetD2D32Async(d, 64, 1, 17, 2, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        let mut back = [0u8; 1024];
        assert_eq!(
            cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), d, 1024),
            CUDA_SUCCESS
        );
        assert!(back.iter().all(|&b| b == 0), "a refused memset wrote");
        // Rows that fit: 16 u32 per 64-byte row, 2 rows.
        assert_eq!(cuMemsetD2D32_v2(d, 64, 7, 16, 2), CUDA_SUCCESS);
        assert_eq!(cuMemsetD2D8_v2(d, 64, 9, 200, 1), CUDA_SUCCESS);
        assert_eq!(cuMemFree_v2(d), CUDA_SUCCESS);
    }
}
