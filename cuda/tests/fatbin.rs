//! Fatbins that nvcc 13 made (cuda/tests/data/fatbin, see its README.md) loaded through the
//! driver API as a program does, with the kernels' results checked against host
//! computations. The device is the default compute capability 8.0.

use cuda::context::*;
use cuda::device::*;
use cuda::errors::*;
use cuda::launch::*;
use cuda::memory::*;
use cuda::module::*;
use std::ffi::{c_void, CStr, CString};
use std::ptr::{null, null_mut};

/// A fatbin of cuda/tests/data/fatbin, 8-byte aligned as in a program's data section.
fn fatbin(name: &str) -> Vec<u64> {
    let path = format!("{}/tests/data/fatbin/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut words = vec![0u64; bytes.len().div_ceil(8)];
    // SAFETY: the words span at least bytes.len() bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), words.as_mut_ptr().cast(), bytes.len())
    };
    words
}

fn file(name: &str) -> CString {
    CString::new(format!(
        "{}/tests/data/fatbin/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// `__fatBinC_Wrapper_t` of CUDA's fatbinary_section.h.
#[repr(C)]
struct Wrapper {
    magic: u32,
    version: u32,
    data: *const u64,
    filename_or_fatbins: *const c_void,
}

fn setup() {
    unsafe {
        assert_eq!(cuInit(0), CUDA_SUCCESS);
        let mut ctx = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), CUDA_SUCCESS);
        assert_eq!(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    }
}

fn function(m: u64, name: &str) -> u64 {
    let mut f = 0u64;
    let n = CString::new(name).unwrap();
    assert_eq!(
        unsafe { cuModuleGetFunction(&mut f, m, n.as_ptr()) },
        CUDA_SUCCESS
    );
    f
}

fn arg<T>(v: &T) -> *mut c_void {
    v as *const T as *mut c_void
}

/// Runs `axpy_sq` of module `m` and checks y = a x + y² against the host's.
fn check_axpy_sq(m: u64, what: &str) {
    let f = function(m, "axpy_sq");
    let n = 300usize;
    // Small integers: every product and sum is exact in f32, so a fused multiply-add and
    // separate ones agree.
    let x: Vec<f32> = (0..n).map(|i| (i % 17) as f32).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 5) as f32 - 2.0).collect();
    let a = 3.0f32;
    let want: Vec<f32> = x.iter().zip(&y).map(|(x, y)| a * x + y * y).collect();
    unsafe {
        let (mut dx, mut dy) = (0u64, 0u64);
        assert_eq!(cuMemAlloc_v2(&mut dx, 4 * n), CUDA_SUCCESS);
        assert_eq!(cuMemAlloc_v2(&mut dy, 4 * n), CUDA_SUCCESS);
        assert_eq!(cuMemcpyHtoD_v2(dx, x.as_ptr().cast(), 4 * n), CUDA_SUCCESS);
        assert_eq!(cuMemcpyHtoD_v2(dy, y.as_ptr().cast(), 4 * n), CUDA_SUCCESS);
        let count = n as u32;
        let mut params = [arg(&count), arg(&a), arg(&dx), arg(&dy)];
        let r = cuLaunchKernel(f, 3, 1, 1, 128, 1, 1, 0, 0, params.as_mut_ptr(), null_mut());
        assert_eq!(r, CUDA_SUCCESS, "{what}");
        let mut got = vec![0f32; n];
        assert_eq!(
            cuMemcpyDtoH_v2(got.as_mut_ptr().cast(), dy, 4 * n),
            CUDA_SUCCESS
        );
        assert_eq!(got, want, "{what}");
        assert_eq!(cuMemFree_v2(dx), CUDA_SUCCESS);
        assert_eq!(cuMemFree_v2(dy), CUDA_SUCCESS);
    }
}

/// The `__CUDA_ARCH__` of the PTX the driver chose from module `m`.
fn arch(m: u64) -> i32 {
    let f = function(m, "arch");
    unsafe {
        let mut out = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut out, 4), CUDA_SUCCESS);
        let mut params = [arg(&out)];
        let r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, params.as_mut_ptr(), null_mut());
        assert_eq!(r, CUDA_SUCCESS);
        let mut v = 0i32;
        assert_eq!(
            cuMemcpyDtoH_v2((&mut v as *mut i32).cast(), out, 4),
            CUDA_SUCCESS
        );
        assert_eq!(cuMemFree_v2(out), CUDA_SUCCESS);
        v
    }
}

const WITH_PTX: [&str; 6] = [
    "ptx-zstd.fatbin",
    "ptx-lz4.fatbin",
    "ptx-plain.fatbin",
    "sass-ptx.fatbin",
    "sass-ptx-all.fatbin",
    "multi.fatbin",
];

#[test]
fn fatbins_load_and_run() {
    setup();
    for name in WITH_PTX {
        let img = fatbin(name);
        let mut m = 0u64;
        unsafe {
            assert_eq!(
                cuModuleLoadData(&mut m, img.as_ptr().cast()),
                CUDA_SUCCESS,
                "{name}"
            );
        }
        check_axpy_sq(m, name);
        // The compute_80 entry, also where compute_75 and compute_90 are there.
        assert_eq!(arch(m), 800, "{name}");
        unsafe {
            assert_eq!(cuModuleUnload(m), CUDA_SUCCESS);
            assert_eq!(
                cuModuleLoadFatBinary(&mut m, img.as_ptr().cast()),
                CUDA_SUCCESS
            );
        }
        check_axpy_sq(m, name);
        unsafe {
            assert_eq!(
                cuModuleLoad(&mut m, file(name).as_ptr()),
                CUDA_SUCCESS,
                "{name}"
            );
        }
        assert_eq!(arch(m), 800, "{name}");
    }
}

#[test]
fn wrappers_point_to_their_fatbins() {
    setup();
    let img = fatbin("multi.fatbin");
    let wrapper = Wrapper {
        magic: 0x4662_43B1,
        version: 1,
        data: img.as_ptr(),
        filename_or_fatbins: null(),
    };
    let mut m = 0u64;
    unsafe {
        let p = (&wrapper as *const Wrapper).cast();
        assert_eq!(cuModuleLoadFatBinary(&mut m, p), CUDA_SUCCESS);
        assert_eq!(arch(m), 800);
        check_axpy_sq(m, "wrapper");
        let bad = Wrapper {
            version: 7,
            ..wrapper
        };
        let p = (&bad as *const Wrapper).cast();
        assert_eq!(cuModuleLoadData(&mut m, p), CUDA_ERROR_INVALID_IMAGE);
    }
}

/// A version-2 wrapper, as an `nvcc -rdc=true` program registers it: its fatbin is the
/// device linker's (SASS, or no entry at all for `code=compute_XX` alone) and it lists the
/// fatbins that were linked, NULL-terminated. The driver loads the PTX of the listed fatbins
/// that have PTX for the device (the device runtime's has none for compute capability 8.0:
/// `specific.fatbin` stands for it here) and leaves the others out; a wrapper's own PTX for
/// the device comes first, and without any PTX the load fails as for a SASS-only fatbin.
#[test]
fn prelinked_wrappers_load_the_ptx_of_their_listed_fatbins() {
    setup();
    let sass = fatbin("sass.fatbin");
    let specific = fatbin("specific.fatbin");
    let ptx = fatbin("ptx-zstd.fatbin");
    let multi = fatbin("multi.fatbin");
    // The device linker's output for code=compute_80 alone: a fatbin header, no entries.
    let empty: [u64; 2] = [u64::from(0xBA55_ED50u32) | (1 << 32) | (16 << 48), 0];
    let wrapper = |data: &[u64], list: &[*const u64]| Wrapper {
        magic: 0x4662_43B1,
        version: 2,
        data: data.as_ptr(),
        filename_or_fatbins: list.as_ptr().cast(),
    };
    let linked = [sass.as_ptr(), specific.as_ptr(), ptx.as_ptr(), null()];
    for (what, data) in [("SASS", &sass[..]), ("no entry", &empty[..])] {
        let w = wrapper(data, &linked);
        let mut m = 0u64;
        unsafe {
            let p = (&w as *const Wrapper).cast();
            assert_eq!(
                cuLibraryLoadData(
                    &mut m,
                    p,
                    null_mut(),
                    null_mut(),
                    0,
                    null_mut(),
                    null_mut(),
                    0
                ),
                CUDA_SUCCESS,
                "{what}"
            );
            check_axpy_sq(m, what);
            assert_eq!(arch(m), 800, "{what}");
            assert_eq!(cuModuleLoadData(&mut m, p), CUDA_SUCCESS, "{what}");
            check_axpy_sq(m, what);
        }
    }
    // Its own fatbin's PTX for the device (compute_80 of multi.fatbin) wins: the list, here
    // SASS only, is not read.
    let sass_only = [sass.as_ptr(), null()];
    let w = wrapper(&multi, &sass_only);
    let mut m = 0u64;
    unsafe {
        assert_eq!(
            cuModuleLoadData(&mut m, (&w as *const Wrapper).cast()),
            CUDA_SUCCESS
        );
    }
    assert_eq!(arch(m), 800);
    // No PTX for the device anywhere: the first listed fatbin's reason.
    for list in [
        &sass_only[..],
        &[specific.as_ptr(), sass.as_ptr(), null()][..],
    ] {
        let w = wrapper(&sass, list);
        let mut log = vec![0u8; 1024];
        let opts = [5u32, 6u32]; // CU_JIT_ERROR_LOG_BUFFER, its size
        let mut vals = [log.as_mut_ptr().cast::<c_void>(), 1024usize as *mut c_void];
        let r = unsafe {
            cuModuleLoadDataEx(
                &mut m,
                (&w as *const Wrapper).cast(),
                2,
                opts.as_ptr(),
                vals.as_mut_ptr(),
            )
        };
        assert_eq!(r, CUDA_ERROR_NO_BINARY_FOR_GPU);
        let text = unsafe { CStr::from_ptr(log.as_ptr().cast()) }.to_string_lossy();
        let first = if list.len() == 2 {
            "sm_80 SASS"
        } else {
            "compute_90a PTX"
        };
        assert!(text.contains(first), "{text}");
    }
    // A version-1 wrapper has no list: its second pointer (a file name) is never followed.
    let w = Wrapper {
        version: 1,
        ..wrapper(&sass, &linked)
    };
    let r = unsafe { cuModuleLoadData(&mut m, (&w as *const Wrapper).cast()) };
    assert_eq!(r, CUDA_ERROR_NO_BINARY_FOR_GPU);
}

#[test]
fn the_linker_takes_fatbins() {
    setup();
    let img = fatbin("ptx-lz4.fatbin");
    let path = file("ptx-lz4.fatbin");
    let bytes = std::fs::metadata(path.to_str().unwrap()).unwrap().len() as usize;
    // With its size, with only a pointer (size 0), and as a file.
    for way in ["size", "pointer", "file"] {
        unsafe {
            let mut state = 0u64;
            assert_eq!(
                cuLinkCreate_v2(0, null(), null_mut(), &mut state),
                CUDA_SUCCESS
            );
            let name = CString::new("kernels.fatbin").unwrap();
            let fatbinary = 2; // CU_JIT_INPUT_FATBINARY
            let r = match way {
                "file" => cuLinkAddFile_v2(state, fatbinary, path.as_ptr(), 0, null(), null_mut()),
                _ => cuLinkAddData_v2(
                    state,
                    fatbinary,
                    img.as_ptr() as *mut c_void,
                    if way == "size" { bytes } else { 0 },
                    name.as_ptr(),
                    0,
                    null(),
                    null_mut(),
                ),
            };
            assert_eq!(r, CUDA_SUCCESS, "{way}");
            let (mut out, mut out_size) = (null_mut(), 0usize);
            assert_eq!(cuLinkComplete(state, &mut out, &mut out_size), CUDA_SUCCESS);
            let mut m = 0u64;
            assert_eq!(cuModuleLoadData(&mut m, out), CUDA_SUCCESS);
            assert_eq!(cuLinkDestroy(state), CUDA_SUCCESS);
            check_axpy_sq(m, way);
        }
    }
}

#[test]
fn newer_ptx_stands_in_for_sass_the_device_would_run() {
    // sm_80 SASS and compute_100 PTX (as CuPy's wheels ship CUB's kernels): a GPU of
    // compute capability 8.0 runs the SASS; ptxjit runs the PTX in its place.
    setup();
    let img = fatbin("sass-newer-ptx.fatbin");
    let mut m = 0u64;
    unsafe {
        assert_eq!(cuModuleLoadData(&mut m, img.as_ptr().cast()), CUDA_SUCCESS);
    }
    check_axpy_sq(m, "sass-newer-ptx.fatbin");
    assert_eq!(arch(m), 1000);
    unsafe { assert_eq!(cuModuleUnload(m), CUDA_SUCCESS) };
}

#[test]
fn fatbins_without_ptx_for_the_device_are_refused() {
    setup();
    for (name, says) in [
        ("sass.fatbin", "sm_80 SASS"),
        (
            "specific.fatbin",
            "compute_90a PTX, compute_100f PTX, compute_90 PTX",
        ),
    ] {
        let img = fatbin(name);
        let mut log = vec![0u8; 1024];
        let opts = [5u32, 6u32]; // CU_JIT_ERROR_LOG_BUFFER, its size
        let mut vals = [log.as_mut_ptr().cast::<c_void>(), 1024usize as *mut c_void];
        let mut m = 0u64;
        let r = unsafe {
            cuModuleLoadDataEx(
                &mut m,
                img.as_ptr().cast(),
                2,
                opts.as_ptr(),
                vals.as_mut_ptr(),
            )
        };
        assert_eq!(r, CUDA_ERROR_NO_BINARY_FOR_GPU, "{name}");
        let text = unsafe { CStr::from_ptr(log.as_ptr().cast()) }.to_string_lossy();
        assert!(text.contains(says), "{name}: {text}");
        assert!(
            text.contains("arch=compute_80,code=compute_80"),
            "{name}: {text}"
        );
    }
    // Truncated: the header promises more than the file holds.
    let bytes = std::fs::read(file("ptx-zstd.fatbin").to_str().unwrap()).unwrap();
    let path = std::env::temp_dir().join(format!("ptxjit-cut-{}.fatbin", std::process::id()));
    std::fs::write(&path, &bytes[..bytes.len() - 8]).unwrap();
    let c = CString::new(path.to_str().unwrap()).unwrap();
    let mut m = 0u64;
    let r = unsafe { cuModuleLoad(&mut m, c.as_ptr()) };
    let _ = std::fs::remove_file(&path);
    assert_eq!(r, CUDA_ERROR_INVALID_IMAGE);
}
