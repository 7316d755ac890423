//! Library management (CUDA Runtime API: Library Management): images a program loads itself
//! (PTX, fatbins) as `cudaLibrary_t`, forwarded to the driver's `cuLibrary*`. A
//! `cudaKernel_t` from a library is the driver's kernel handle, which the launch and attribute
//! calls accept in place of a host stub ([`crate::register::function`]).

use crate::state::context;
use crate::{cu, exports};
use std::ffi::{c_char, c_int, c_uint, c_void};

// cudaJitOption and cudaLibraryOption share their values with CUjit_option and
// CUlibraryOption.
exports! { cudaLibraryLoadData => fn(lib: *mut u64, code: *const c_void, jit_opts: *mut c_uint, jit_vals: *mut *mut c_void, n_jit: c_uint, lib_opts: *mut c_uint, lib_vals: *mut *mut c_void, n_lib: c_uint) {
    context()?;
    cu!(cuLibraryLoadData(lib, code, jit_opts, jit_vals, n_jit, lib_opts, lib_vals, n_lib))
}}

exports! { cudaLibraryLoadFromFile => fn(lib: *mut u64, path: *const c_char, jit_opts: *mut c_uint, jit_vals: *mut *mut c_void, n_jit: c_uint, lib_opts: *mut c_uint, lib_vals: *mut *mut c_void, n_lib: c_uint) {
    context()?;
    cu!(cuLibraryLoadFromFile(lib, path, jit_opts, jit_vals, n_jit, lib_opts, lib_vals, n_lib))
}}

exports! { cudaLibraryUnload => fn(lib: u64) {
    context()?;
    cu!(cuLibraryUnload(lib))
}}

exports! { cudaLibraryGetKernel => fn(kernel: *mut u64, lib: u64, name: *const c_char) {
    context()?;
    cu!(cuLibraryGetKernel(kernel, lib, name))
}}

exports! { cudaLibraryGetGlobal => fn(dptr: *mut u64, bytes: *mut usize, lib: u64, name: *const c_char) {
    context()?;
    cu!(cuLibraryGetGlobal(dptr, bytes, lib, name))
}}

exports! { cudaLibraryGetKernelCount => fn(count: *mut c_uint, lib: u64) {
    context()?;
    cu!(cuLibraryGetKernelCount(count, lib))
}}

exports! { cudaLibraryEnumerateKernels => fn(kernels: *mut u64, n: c_uint, lib: u64) {
    context()?;
    cu!(cuLibraryEnumerateKernels(kernels, n, lib))
}}

exports! { cudaKernelSetAttributeForDevice => fn(kernel: *const c_void, attr: c_int, value: c_int, dev: c_int) {
    let k = crate::register::function(kernel)?;
    cu!(cuKernelSetAttribute(attr, value, k, dev))
}}
