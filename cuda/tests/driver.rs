//! The driver API as a C program calls it, through the library's exported functions.
//! Expected values come from host computations and CUDA's documented codes.
//!
//! The driver's state is per process and a kernel fault is sticky, so the fault checks run in
//! one test, one after the other, resetting the primary context between them.

use cuda::context::*;
use cuda::device::*;
use cuda::errors::*;
use cuda::launch::*;
use cuda::memory::*;
use cuda::module::*;
use cuda::stream::*;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

mod common;
use common::{arg, function, load, repo_file as ptx, setup};

#[test]
fn device_is_described() {
    setup();
    unsafe {
        let mut n = 0;
        assert_eq!(cuDeviceGetCount(&mut n), CUDA_SUCCESS);
        assert_eq!(n, 1);
        let mut name = [0i8; 64];
        assert_eq!(cuDeviceGetName(name.as_mut_ptr(), 64, 0), CUDA_SUCCESS);
        let name = std::ffi::CStr::from_ptr(name.as_ptr()).to_str().unwrap();
        assert_eq!(name, "ptxjit (CPU)");
        let (mut major, mut minor) = (0, 0);
        assert_eq!(
            cuDeviceComputeCapability(&mut major, &mut minor, 0),
            CUDA_SUCCESS
        );
        assert_eq!((major, minor), (8, 0));
        let mut warp = 0;
        assert_eq!(cuDeviceGetAttribute(&mut warp, 10, 0), CUDA_SUCCESS); // WARP_SIZE
        assert_eq!(warp, 32);
        let mut optin = 0;
        assert_eq!(cuDeviceGetAttribute(&mut optin, 97, 0), CUDA_SUCCESS);
        assert_eq!(optin, 163 * 1024, "sm_80's opt-in shared memory per block");
        assert_eq!(
            cuDeviceGetAttribute(&mut warp, 100_000, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuDeviceGet(&mut n, 1), CUDA_ERROR_INVALID_DEVICE);
        let mut version = 0;
        assert_eq!(cuDriverGetVersion(&mut version), CUDA_SUCCESS);
        assert!(version >= 12000);
        if std::env::var("PTXJIT_DRIVER_VERSION").is_err() {
            // CUDA_VERSION of CUDA 13.5's cuda.h: a CUDA 13.5 runtime needs a driver at
            // least as new.
            assert_eq!(version, 13050);
        }
    }
}

#[test]
fn saxpy_through_the_driver_api() {
    setup();
    let m = load(&ptx("ptx-tests/kernels/saxpy/saxpy.ptx"));
    let f = function(m, "saxpy");
    let n = 1000usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 1.0 - i as f32).collect();
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| 2.5 * a + b).collect();
    unsafe {
        let (mut dx, mut dy) = (0u64, 0u64);
        assert_eq!(cuMemAlloc_v2(&mut dx, 4 * n), CUDA_SUCCESS);
        assert_eq!(cuMemAlloc_v2(&mut dy, 4 * n), CUDA_SUCCESS);
        assert_eq!(cuMemcpyHtoD_v2(dx, x.as_ptr().cast(), 4 * n), CUDA_SUCCESS);
        assert_eq!(cuMemcpyHtoD_v2(dy, y.as_ptr().cast(), 4 * n), CUDA_SUCCESS);
        let (count, a) = (n as u32, 2.5f32);
        let mut params = [arg(&count), arg(&a), arg(&dx), arg(&dy)];
        let r = cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, 0, params.as_mut_ptr(), null_mut());
        assert_eq!(r, CUDA_SUCCESS);
        let mut got = vec![0f32; n];
        assert_eq!(
            cuMemcpyDtoH_v2(got.as_mut_ptr().cast(), dy, 4 * n),
            CUDA_SUCCESS
        );
        assert_eq!(got, want);

        // The same launch through `extra`: one buffer laid out as the .param list.
        assert_eq!(cuMemcpyHtoD_v2(dy, y.as_ptr().cast(), 4 * n), CUDA_SUCCESS);
        let mut buf = vec![0u8; 24];
        buf[0..4].copy_from_slice(&count.to_le_bytes());
        buf[4..8].copy_from_slice(&a.to_le_bytes());
        buf[8..16].copy_from_slice(&dx.to_le_bytes());
        buf[16..24].copy_from_slice(&dy.to_le_bytes());
        let mut size = buf.len();
        // CU_LAUNCH_PARAM_BUFFER_POINTER (1), …_SIZE (2), …_END (0) as pointers.
        let key = |k: usize| std::ptr::without_provenance_mut::<c_void>(k);
        let mut extra = [
            key(1),
            buf.as_mut_ptr().cast(),
            key(2),
            (&mut size as *mut usize).cast(),
            null_mut(),
        ];
        let r = cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, 0, null_mut(), extra.as_mut_ptr());
        assert_eq!(r, CUDA_SUCCESS);
        let mut got = vec![0f32; n];
        assert_eq!(
            cuMemcpyDtoH_v2(got.as_mut_ptr().cast(), dy, 4 * n),
            CUDA_SUCCESS
        );
        assert_eq!(got, want);
        // Both ways at once: CUDA_ERROR_INVALID_VALUE (the driver API's cuLaunchKernel).
        let r = cuLaunchKernel(
            f,
            4,
            1,
            1,
            256,
            1,
            1,
            0,
            0,
            params.as_mut_ptr(),
            extra.as_mut_ptr(),
        );
        assert_eq!(
            r, CUDA_ERROR_INVALID_VALUE,
            "kernelParams and extra both given"
        );
        assert_eq!(cuMemFree_v2(dx), CUDA_SUCCESS);
        assert_eq!(cuMemFree_v2(dy), CUDA_SUCCESS);
        assert_eq!(cuMemFree_v2(dy), CUDA_ERROR_INVALID_VALUE, "double free");
    }
}

#[test]
fn managed_and_mapped_memory_are_host_addresses() {
    setup();
    let m = load(&ptx("ptx-tests/kernels/saxpy/saxpy.ptx"));
    let f = function(m, "saxpy");
    unsafe {
        let n = 64usize;
        let mut x = 0u64;
        assert_eq!(cuMemAllocManaged(&mut x, 4 * n, 1), CUDA_SUCCESS);
        let mut y: *mut c_void = null_mut();
        assert_eq!(cuMemHostAlloc(&mut y, 4 * n, 2), CUDA_SUCCESS); // DEVICEMAP
        let mut dy = 0u64;
        assert_eq!(cuMemHostGetDevicePointer_v2(&mut dy, y, 0), CUDA_SUCCESS);
        let (xs, ys) = (
            std::slice::from_raw_parts_mut(x as *mut f32, n),
            std::slice::from_raw_parts_mut(y as *mut f32, n),
        );
        for i in 0..n {
            xs[i] = i as f32;
            ys[i] = 3.0;
        }
        let (count, a) = (n as u32, 2.0f32);
        let mut params = [arg(&count), arg(&a), arg(&x), arg(&dy)];
        let r = cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, 0, params.as_mut_ptr(), null_mut());
        assert_eq!(r, CUDA_SUCCESS);
        assert_eq!(cuCtxSynchronize(), CUDA_SUCCESS);
        for (i, v) in ys.iter().enumerate() {
            assert_eq!(*v, 2.0 * i as f32 + 3.0);
        }
        let mut memtype = 0u32;
        assert_eq!(
            cuPointerGetAttribute((&mut memtype as *mut u32).cast(), 2, x),
            CUDA_SUCCESS
        );
        assert_eq!(memtype, 2, "managed memory is device memory");
        assert_eq!(
            cuPointerGetAttribute((&mut memtype as *mut u32).cast(), 2, y as u64),
            CUDA_SUCCESS
        );
        assert_eq!(memtype, 1, "page-locked memory is host memory");
        // Device memory: the singular call refuses a host pointer, the plural one answers NULL
        // with the other attributes (CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2, HOST_POINTER 4).
        let mut d = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut d, 64), CUDA_SUCCESS);
        let mut host = 1u64;
        assert_eq!(
            cuPointerGetAttribute((&mut host as *mut u64).cast(), 4, d),
            CUDA_ERROR_INVALID_VALUE
        );
        let attrs = [2u32, 4];
        let mut data: [*mut c_void; 2] = [
            (&mut memtype as *mut u32).cast(),
            (&mut host as *mut u64).cast(),
        ];
        assert_eq!(
            cuPointerGetAttributes(2, attrs.as_ptr(), data.as_mut_ptr(), d),
            CUDA_SUCCESS
        );
        assert_eq!((memtype, host), (2, 0));
        // Prefetching and advice (CUDA 12.2's ABIs too) succeed and change nothing.
        let loc = CUmemLocation { kind: 1, id: 0 }; // CU_MEM_LOCATION_TYPE_DEVICE
        assert_eq!(cuMemPrefetchAsync_v2(x, 4 * n, loc, 0, 0), CUDA_SUCCESS);
        assert_eq!(cuMemAdvise(x, 4 * n, 1, 0), CUDA_SUCCESS); // SET_READ_MOSTLY
        assert_eq!(xs[1], 1.0);
        assert_eq!(cuMemFree_v2(d), CUDA_SUCCESS);
        assert_eq!(cuMemFreeHost(y), CUDA_SUCCESS);
        assert_eq!(cuMemFree_v2(x), CUDA_SUCCESS);
    }
}

#[test]
fn memset_copies_and_ranges() {
    setup();
    unsafe {
        let mut p = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut p, 1024), CUDA_SUCCESS);
        assert_eq!(cuMemsetD32_v2(p, 0xdead_beef, 256), CUDA_SUCCESS);
        assert_eq!(cuMemsetD16_v2(p + 8, 0x1234, 2), CUDA_SUCCESS);
        assert_eq!(cuMemsetD8_v2(p + 1020, 7, 4), CUDA_SUCCESS);
        let mut q = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut q, 1024), CUDA_SUCCESS);
        assert_eq!(cuMemcpyDtoD_v2(q, p, 1024), CUDA_SUCCESS);
        let mut host = vec![0u32; 256];
        assert_eq!(
            cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), q, 1024),
            CUDA_SUCCESS
        );
        assert_eq!(host[0], 0xdead_beef);
        assert_eq!(host[2], 0x1234_1234);
        assert_eq!(host[255], 0x0707_0707);
        let (mut base, mut size) = (0u64, 0usize);
        assert_eq!(
            cuMemGetAddressRange_v2(&mut base, &mut size, p + 100),
            CUDA_SUCCESS
        );
        assert_eq!((base, size), (p, 1024));
        // Past the end of the allocation, and memory nobody allocated.
        assert_eq!(
            cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), p + 1000, 100),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuMemsetD8_v2(0x1000, 0, 4), CUDA_ERROR_INVALID_VALUE);
        let (mut free, mut total) = (0usize, 0usize);
        assert_eq!(cuMemGetInfo_v2(&mut free, &mut total), CUDA_SUCCESS);
        assert!(free <= total && total > 0);
        assert_eq!(cuMemFree_v2(p), CUDA_SUCCESS);
        assert_eq!(cuMemFree_v2(q), CUDA_SUCCESS);
    }
}

#[test]
fn linker_joins_ptx_inputs() {
    setup();
    // A kernel calling an .extern .func defined in another input.
    let a = "//\n.version 7.0\n.target sm_80\n.address_size 64\n\
        .extern .func (.param .b32 r) twice(.param .b32 x);\n\
        .visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n\
        ld.param.u64 %rd1, [p];\nmov.u32 %r1, 21;\n\
        { .param .b32 a; .param .b32 r; st.param.b32 [a], %r1; call.uni (r), twice, (a); ld.param.b32 %r2, [r]; }\n\
        st.global.u32 [%rd1], %r2;\nret;\n}\n";
    let b = ".version 7.8\n.target sm_80\n.address_size 64\n\
        .visible .func (.param .b32 r) twice(.param .b32 x)\n{\n.reg .b32 %t<3>;\n\
        ld.param.b32 %t1, [x];\nadd.u32 %t2, %t1, %t1;\nst.param.b32 [r], %t2;\nret;\n}\n";
    unsafe {
        let mut state = 0u64;
        assert_eq!(
            cuLinkCreate_v2(0, std::ptr::null(), null_mut(), &mut state),
            CUDA_SUCCESS
        );
        for (text, name) in [(a, "a.ptx"), (b, "b.ptx")] {
            let n = CString::new(name).unwrap();
            let r = cuLinkAddData_v2(
                state,
                1,
                text.as_ptr() as *mut c_void,
                text.len(),
                n.as_ptr(),
                0,
                std::ptr::null(),
                null_mut(),
            );
            assert_eq!(r, CUDA_SUCCESS);
        }
        let (mut img, mut size) = (null_mut(), 0usize);
        assert_eq!(cuLinkComplete(state, &mut img, &mut size), CUDA_SUCCESS);
        assert!(size > 0);
        let mut m = 0u64;
        assert_eq!(cuModuleLoadData(&mut m, img), CUDA_SUCCESS);
        assert_eq!(cuLinkDestroy(state), CUDA_SUCCESS);
        let f = function(m, "k");
        let mut out = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut out, 4), CUDA_SUCCESS);
        let mut params = [arg(&out)];
        assert_eq!(
            cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, params.as_mut_ptr(), null_mut()),
            CUDA_SUCCESS
        );
        let mut v = 0u32;
        assert_eq!(
            cuMemcpyDtoH_v2((&mut v as *mut u32).cast(), out, 4),
            CUDA_SUCCESS
        );
        assert_eq!(v, 42);
    }
}

#[test]
fn streams_events_and_callbacks_run_in_order() {
    setup();
    unsafe {
        let mut s = 0u64;
        assert_eq!(cuStreamCreate(&mut s, 0), CUDA_SUCCESS);
        // The stream's device: the one device, ordinal 0; a handle that is no stream is refused.
        let mut dev = -1;
        assert_eq!(cuStreamGetDevice(s, &mut dev), CUDA_SUCCESS);
        assert_eq!(dev, 0);
        assert_ne!(cuStreamGetDevice(s ^ 0x5a5a_0000, &mut dev), CUDA_SUCCESS);
        let (mut e0, mut e1) = (0u64, 0u64);
        assert_eq!(cuEventCreate(&mut e0, 0), CUDA_SUCCESS);
        assert_eq!(cuEventCreate(&mut e1, 0), CUDA_SUCCESS);
        assert_eq!(cuEventRecord(e0, s), CUDA_SUCCESS);
        static mut CALLED: u32 = 0;
        unsafe extern "C" fn cb(_s: u64, status: CUresult, data: *mut c_void) {
            assert_eq!(status, CUDA_SUCCESS);
            unsafe { CALLED += *(data as *const u32) };
        }
        let mut add = 5u32;
        assert_eq!(
            cuStreamAddCallback(s, Some(cb), (&mut add as *mut u32).cast(), 0),
            CUDA_SUCCESS
        );
        assert_eq!(cuEventRecord(e1, s), CUDA_SUCCESS);
        assert_eq!(cuStreamSynchronize(s), CUDA_SUCCESS);
        assert_eq!(*std::ptr::addr_of!(CALLED), 5);
        let mut ms = -1f32;
        assert_eq!(cuEventElapsedTime(&mut ms, e0, e1), CUDA_SUCCESS);
        assert!(ms >= 0.0);
        assert_eq!(cuStreamQuery(s), CUDA_SUCCESS);
        assert_eq!(cuStreamDestroy_v2(s), CUDA_SUCCESS);
        assert_eq!(cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(cuEventDestroy_v2(e0), CUDA_SUCCESS);
        assert_eq!(cuEventDestroy_v2(e0), CUDA_ERROR_INVALID_HANDLE);
    }
}

#[test]
fn bad_input_gets_the_driver_codes() {
    setup();
    unsafe {
        let mut m = 0u64;
        // A cubin (ELF): SASS is never run.
        let elf = b"\x7fELF\x02\x01\x01\0garbage\0";
        assert_eq!(
            cuModuleLoadData(&mut m, elf.as_ptr().cast()),
            CUDA_ERROR_NO_BINARY_FOR_GPU
        );
        // Bytes that are no image and not text: not UTF-8, or control characters.
        for garbage in [
            &b"\x01\x02\x03garbage\xfe\xff\0"[..],
            b"\x13\x37\x42\x01\x02\x03\0",
        ] {
            assert_eq!(
                cuModuleLoadData(&mut m, garbage.as_ptr().cast()),
                CUDA_ERROR_INVALID_IMAGE,
                "{garbage:?}"
            );
        }
        // Text that is not PTX: it fails to compile.
        let junk = b"this is not ptx\0";
        assert_eq!(
            cuModuleLoadData(&mut m, junk.as_ptr().cast()),
            CUDA_ERROR_INVALID_PTX
        );
        // The error log option gets the message with its location.
        let mut log = vec![0u8; 512];
        let opts = [5u32, 6u32];
        let mut vals = [log.as_mut_ptr().cast::<c_void>(), 512usize as *mut c_void];
        let r = cuModuleLoadDataEx(
            &mut m,
            junk.as_ptr().cast(),
            2,
            opts.as_ptr(),
            vals.as_mut_ptr(),
        );
        assert_eq!(r, CUDA_ERROR_INVALID_PTX);
        let text = std::ffi::CStr::from_ptr(log.as_ptr().cast()).to_string_lossy();
        assert!(text.contains(":1:"), "{text}");
        assert_eq!(
            cuModuleLoadData(&mut m, std::ptr::null()),
            CUDA_ERROR_INVALID_VALUE
        );
        // A kernel launching a kernel (dynamic parallelism, nvcc -rdc=true): the driver's
        // code for a configuration without it.
        let cdp = ptx("ptx-tests/errors/dynamic_parallelism.ptx");
        assert_eq!(
            cuModuleLoadData(&mut m, cdp.as_ptr().cast()),
            CUDA_ERROR_CDP_NOT_SUPPORTED
        );
        // An unknown kernel, an unknown handle, a null output.
        let m = load(&ptx("ptx-tests/kernels/saxpy/saxpy.ptx"));
        let mut f = 0u64;
        let name = CString::new("nope").unwrap();
        assert_eq!(
            cuModuleGetFunction(&mut f, m, name.as_ptr()),
            CUDA_ERROR_NOT_FOUND
        );
        assert_eq!(
            cuModuleGetFunction(&mut f, 12345, name.as_ptr()),
            CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(cuMemAlloc_v2(null_mut(), 16), CUDA_ERROR_INVALID_VALUE);
        // A launch with a bad shape is an error but not sticky.
        let f = function(m, "saxpy");
        let (count, a, p) = (0u32, 1f32, 0u64);
        let mut params = [arg(&count), arg(&a), arg(&p), arg(&p)];
        let r = cuLaunchKernel(
            f,
            1,
            1,
            1,
            2048,
            1,
            1,
            0,
            0,
            params.as_mut_ptr(),
            null_mut(),
        );
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuCtxSynchronize(), CUDA_SUCCESS);
    }
}

#[test]
fn dynamic_shared_memory_above_48k_needs_the_opt_in() {
    setup();
    let m = load(&ptx("ptx-tests/kernels/saxpy/saxpy.ptx"));
    let f = function(m, "saxpy");
    unsafe {
        let (count, a, p) = (0u32, 1f32, 0u64);
        let mut params = [arg(&count), arg(&a), arg(&p), arg(&p)];
        let launch = |shared: u32, params: &mut [*mut c_void; 4]| {
            cuLaunchKernel(
                f,
                1,
                1,
                1,
                32,
                1,
                1,
                shared,
                0,
                params.as_mut_ptr(),
                null_mut(),
            )
        };
        assert_eq!(launch(60_000, &mut params), CUDA_ERROR_INVALID_VALUE);
        let mut v = 0;
        assert_eq!(cuFuncGetAttribute(&mut v, 8, f), CUDA_SUCCESS);
        assert_eq!(
            v,
            48 * 1024,
            "the default limit: 48 KiB less no static shared memory"
        );
        assert_eq!(cuFuncSetAttribute(f, 8, 60_000), CUDA_SUCCESS);
        assert_eq!(cuFuncGetAttribute(&mut v, 8, f), CUDA_SUCCESS);
        assert_eq!(v, 60_000);
        assert_eq!(launch(60_000, &mut params), CUDA_SUCCESS);
        // The attribute is the CUfunction's: another load of the same PTX (which shares the
        // compiled kernel) keeps the default.
        let g = function(load(&ptx("ptx-tests/kernels/saxpy/saxpy.ptx")), "saxpy");
        assert_eq!(cuFuncGetAttribute(&mut v, 8, g), CUDA_SUCCESS);
        assert_eq!(v, 48 * 1024);
        let r = cuLaunchKernel(
            g,
            1,
            1,
            1,
            32,
            1,
            1,
            60_000,
            0,
            params.as_mut_ptr(),
            null_mut(),
        );
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE);
        // Above sm_80's opt-in maximum of 163 KiB.
        assert_eq!(cuFuncSetAttribute(f, 8, 200_000), CUDA_ERROR_INVALID_VALUE);
    }
}

/// The two function attributes CUDA 13's cuda.h adds (NVIDIA's runtime reads both in
/// `cudaFuncGetAttributes`): `CU_FUNC_ATTRIBUTE_DEVICE_NODE_UPDATE_SUPPORTED` (16) is 0 (no
/// device graph launch) and not settable; `CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE` (17) is
/// `CU_SHARED_MEMORY_MODE_DEFAULT` (0), settable to that mode only. 18 is no attribute.
#[test]
fn cuda_13_function_attributes() {
    setup();
    let f = function(load(&ptx("ptx-tests/kernels/saxpy/saxpy.ptx")), "saxpy");
    unsafe {
        let mut v = -1;
        assert_eq!(cuFuncGetAttribute(&mut v, 16, f), CUDA_SUCCESS);
        assert_eq!(v, 0);
        v = -1;
        assert_eq!(cuFuncGetAttribute(&mut v, 17, f), CUDA_SUCCESS);
        assert_eq!(v, 0);
        v = -1;
        assert_eq!(cuKernelGetAttribute(&mut v, 17, f, 0), CUDA_SUCCESS);
        assert_eq!(v, 0);
        assert_eq!(cuFuncGetAttribute(&mut v, 18, f), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuFuncSetAttribute(f, 16, 1), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuFuncSetAttribute(f, 17, 0), CUDA_SUCCESS);
        assert_eq!(cuFuncSetAttribute(f, 17, 2), CUDA_ERROR_NOT_SUPPORTED);
        assert_eq!(cuKernelSetAttribute(17, 3, f, 0), CUDA_ERROR_NOT_SUPPORTED);
        assert_eq!(cuFuncSetAttribute(f, 17, 5), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuFuncGetAttribute(&mut v, 17, f), CUDA_SUCCESS);
        assert_eq!(v, 0);
    }
}

/// `CU_FUNC_ATTRIBUTE_PTX_VERSION` (5) is the architecture of the module's `.target` (PTX ISA
/// §11.1.3: `sm_52` → 52, the highest of a list), and `CU_FUNC_ATTRIBUTE_BINARY_VERSION` (6)
/// the device's compute capability (8.0 by default), for which the code that runs is built.
#[test]
fn ptx_version_is_the_module_target() {
    setup();
    for (target, want) in [
        ("sm_52", 52),
        ("sm_75, texmode_independent", 75),
        ("sm_90a", 90),
    ] {
        let text = format!(
            ".version 8.0\n.target {target}\n.address_size 64\n.visible .entry k() {{ ret; }}\n"
        );
        let f = function(load(&CString::new(text).unwrap()), "k");
        let (mut ptx_version, mut binary_version) = (-1, -1);
        unsafe {
            assert_eq!(cuFuncGetAttribute(&mut ptx_version, 5, f), CUDA_SUCCESS);
            assert_eq!(cuFuncGetAttribute(&mut binary_version, 6, f), CUDA_SUCCESS);
        }
        assert_eq!(ptx_version, want, ".target {target}");
        assert_eq!(binary_version, 80, ".target {target}");
    }
}

/// `cuModuleGetFunctionCount` and `cuModuleEnumerateFunctions` (CUDA 12.4): a module's
/// kernels (`.entry`, not `.func`), each handle the one `cuModuleGetFunction` gives.
#[test]
fn module_lists_its_kernels() {
    const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.func helper() { ret; }
.visible .entry first() { ret; }
.visible .entry second(.param .u32 n) { call helper, (); ret; }
.entry third() { ret; }
"#;
    setup();
    let m = load(&CString::new(PTX).unwrap());
    let want: Vec<u64> = ["first", "second", "third"]
        .iter()
        .map(|n| function(m, n))
        .collect();
    unsafe {
        let mut count = 0u32;
        assert_eq!(cuModuleGetFunctionCount(&mut count, m), CUDA_SUCCESS);
        assert_eq!(count, 3);
        let mut got = [0u64; 4];
        assert_eq!(
            cuModuleEnumerateFunctions(got.as_mut_ptr(), 3, m),
            CUDA_SUCCESS
        );
        let mut listed = got[..3].to_vec();
        listed.sort_unstable();
        let mut sorted = want.clone();
        sorted.sort_unstable();
        assert_eq!(listed, sorted);
        assert_eq!(got[3], 0, "nothing written past the count asked for");
        // A shorter buffer gets that many handles.
        let mut two = [0u64; 3];
        assert_eq!(
            cuModuleEnumerateFunctions(two.as_mut_ptr(), 2, m),
            CUDA_SUCCESS
        );
        assert!(two[..2].iter().all(|f| want.contains(f)) && two[2] == 0);
        assert_eq!(
            cuModuleGetFunctionCount(&mut count, 0xdead),
            CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(
            cuModuleEnumerateFunctions(null_mut(), 3, m),
            CUDA_ERROR_INVALID_VALUE
        );
    }
}

/// A `kernelParams` array one entry too short (what cuda-python's tuple form gives for a
/// missing argument: the driver reads a word past its end), or a value given where its
/// address belongs, hands the driver a small integer as a pointer. NVIDIA's driver reads
/// through it and the program crashes; here the launch is refused with
/// `CUDA_ERROR_INVALID_VALUE`, the context stays usable, and nothing was launched.
#[test]
fn kernel_params_that_are_no_host_addresses_are_refused() {
    setup();
    let m = load(&ptx("ptx-tests/kernels/saxpy/saxpy.ptx"));
    let f = function(m, "saxpy");
    let n = 256usize;
    let y: Vec<f32> = (0..n).map(|i| i as f32).collect();
    unsafe {
        let (mut dx, mut dy) = (0u64, 0u64);
        assert_eq!(cuMemAlloc_v2(&mut dx, 4 * n), CUDA_SUCCESS);
        assert_eq!(cuMemAlloc_v2(&mut dy, 4 * n), CUDA_SUCCESS);
        assert_eq!(cuMemcpyHtoD_v2(dx, y.as_ptr().cast(), 4 * n), CUDA_SUCCESS);
        assert_eq!(cuMemcpyHtoD_v2(dy, y.as_ptr().cast(), 4 * n), CUDA_SUCCESS);
        let (count, a) = (n as u32, 2.0f32);
        let small = |v: usize| std::ptr::without_provenance_mut::<c_void>(v);
        // saxpy(n, a, x, y): the fourth entry is the word after a three-entry array.
        let mut short = [arg(&count), arg(&a), arg(&dx), small(2)];
        let r = cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, 0, short.as_mut_ptr(), null_mut());
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE, "a kernelParams entry of 0x2");
        // The count itself where its address belongs.
        let mut value = [small(n), arg(&a), arg(&dx), arg(&dy)];
        let r = cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, 0, value.as_mut_ptr(), null_mut());
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE, "a kernelParams entry of 256");
        // An address past the user half of the address space.
        let mut high = [arg(&count), arg(&a), arg(&dx), small(usize::MAX - 3)];
        let r = cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, 0, high.as_mut_ptr(), null_mut());
        assert_eq!(
            r, CUDA_ERROR_INVALID_VALUE,
            "a kernelParams entry of 2^64 - 4"
        );
        // `extra` with a buffer pointer of 0x10.
        let mut size = 24usize;
        let mut extra = [
            small(1),
            small(0x10),
            small(2),
            (&mut size as *mut usize).cast(),
            null_mut(),
        ];
        let r = cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, 0, null_mut(), extra.as_mut_ptr());
        assert_eq!(
            r, CUDA_ERROR_INVALID_VALUE,
            "CU_LAUNCH_PARAM_BUFFER_POINTER 0x10"
        );
        // Nothing ran, and the context is not poisoned: the right launch works.
        let mut got = vec![0f32; n];
        assert_eq!(
            cuMemcpyDtoH_v2(got.as_mut_ptr().cast(), dy, 4 * n),
            CUDA_SUCCESS
        );
        assert_eq!(got, y);
        let mut params = [arg(&count), arg(&a), arg(&dx), arg(&dy)];
        let r = cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, 0, params.as_mut_ptr(), null_mut());
        assert_eq!(r, CUDA_SUCCESS);
        assert_eq!(
            cuMemcpyDtoH_v2(got.as_mut_ptr().cast(), dy, 4 * n),
            CUDA_SUCCESS
        );
        let want: Vec<f32> = y.iter().map(|v| 2.0 * v + v).collect();
        assert_eq!(got, want);
        assert_eq!(cuMemFree_v2(dx), CUDA_SUCCESS);
        assert_eq!(cuMemFree_v2(dy), CUDA_SUCCESS);
    }
}
