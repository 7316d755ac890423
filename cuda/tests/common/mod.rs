//! Helpers the driver API tests share: a current primary context, modules from PTX text,
//! kernels by name, and `kernelParams` entries.
#![allow(dead_code)] // each test binary uses its own subset

use cuda::context::*;
use cuda::device::*;
use cuda::errors::*;
use cuda::module::*;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

/// Initializes the driver and makes the primary context current on this thread.
pub fn setup() {
    unsafe {
        assert_eq!(cuInit(0), CUDA_SUCCESS);
        let mut ctx = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), CUDA_SUCCESS);
        assert_eq!(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    }
}

/// A file of the repository (path from its root) as a C string.
pub fn repo_file(rel: &str) -> CString {
    let path = format!("{}/../{rel}", env!("CARGO_MANIFEST_DIR"));
    CString::new(std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))).unwrap()
}

/// `cuModuleLoadData` of PTX text; must succeed.
pub fn load(text: &CString) -> u64 {
    let mut m = 0u64;
    let r = unsafe { cuModuleLoadData(&mut m, text.as_ptr().cast()) };
    assert_eq!(r, CUDA_SUCCESS);
    m
}

/// `cuModuleGetFunction`; must succeed.
pub fn function(m: u64, name: &str) -> u64 {
    let mut f = 0u64;
    let n = CString::new(name).unwrap();
    assert_eq!(
        unsafe { cuModuleGetFunction(&mut f, m, n.as_ptr()) },
        CUDA_SUCCESS
    );
    f
}

/// A `kernelParams` entry: the address of the argument's value.
pub fn arg<T>(v: &T) -> *mut c_void {
    v as *const T as *mut c_void
}
