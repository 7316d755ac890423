//! The runtime version a program gets depends on the name the loader opened this library by:
//! a program linked against CUDA 12's libcudart needs `libcudart.so.12` and gets 12090
//! (`CUDART_VERSION` of CUDA 12.9's cuda_runtime_api.h); one linked against CUDA 13's gets
//! 13050 (CUDA 13.5's), which examples/cuda/vector_add.cu checks against the header it was
//! built with. This binary loads only the `libcudart.so.12` link: the loader shares one
//! library among the names of one file, so the first name decides for the process.
//!
//! Needs the library built (`cargo build --release`); skipped with a message when it is
//! missing, except under CI=true, where that is a failure.

use std::ffi::c_int;
use std::path::PathBuf;

/// `<profile>/libcudart.so.12` (the test binary is in `<profile>/deps`), if built.
fn so12() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let p = exe.parent()?.parent()?.join("libcudart.so.12");
    p.exists().then_some(p)
}

#[test]
fn loaded_as_libcudart_so_12_it_reports_cuda_12_9() {
    let Some(path) = so12() else {
        assert!(
            !std::env::var("CI").is_ok_and(|v| v == "true"),
            "libcudart.so.12 is not built (required under CI=true)"
        );
        eprintln!("skipped: libcudart.so.12 is not built (cargo build --release)");
        return;
    };
    // SAFETY: loading the runtime runs no initialiser that needs the driver.
    let lib = unsafe { libloading::Library::new(&path) }.expect("load libcudart.so.12");
    type GetVersion = unsafe extern "C" fn(*mut c_int) -> c_int;
    // SAFETY: cudaRuntimeGetVersion has this signature (cuda_runtime_api.h).
    let get: libloading::Symbol<GetVersion> =
        unsafe { lib.get(b"cudaRuntimeGetVersion\0") }.expect("cudaRuntimeGetVersion");
    let mut v = 0;
    // SAFETY: a valid out pointer.
    assert_eq!(unsafe { get(&mut v) }, 0);
    assert_eq!(v, 12090);
    // A null pointer is cudaErrorInvalidValue (1), not a crash.
    // SAFETY: the function checks its pointer.
    assert_eq!(unsafe { get(std::ptr::null_mut()) }, 1);
}
