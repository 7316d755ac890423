//! Helpers the driver API tests share: a current primary context, modules from PTX text,
//! kernels by name, `kernelParams` entries, and the memset and `axpc` nodes of graph tests.
#![allow(dead_code)] // each test binary uses its own subset

use cuda::context::*;
use cuda::device::*;
use cuda::errors::*;
use cuda::graph_nodes::*;
use cuda::launch::*;
use cuda::memory::*;
use cuda::module::*;
use cuda::stream::*;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};

/// Initializes the driver and makes the primary context current on this thread.
pub fn setup() {
    unsafe {
        assert_eq!(cuInit(0), CUDA_SUCCESS);
        let mut ctx = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), CUDA_SUCCESS);
        assert_eq!(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    }
}

/// A command running this test binary's test `name` alone (`--exact`, one thread, output not
/// captured) in a child process: the caller adds the environment and runs it.
pub fn test_child(name: &str) -> std::process::Command {
    let exe = std::env::current_exe().expect("the test binary");
    let mut cmd = std::process::Command::new(exe);
    cmd.args(["--exact", name, "--test-threads", "1", "--nocapture"]);
    cmd
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

/// Kernel `axpc`: `x[i] = x[i] * m + c` for `i < n` (u32, wrapping).
pub const AXPC_PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry axpc(.param .u64 x, .param .u32 m, .param .u32 c, .param .u32 n)
{
    .reg .u32 %r<8>;
    .reg .u64 %rd<4>;
    .reg .pred %p;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.u32 %r1, %r1, %r2, %r3;
    ld.param.u32 %r4, [n];
    setp.ge.u32 %p, %r1, %r4;
    @%p ret;
    ld.param.u64 %rd1, [x];
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd1, %rd1, %rd2;
    ld.global.u32 %r5, [%rd1];
    ld.param.u32 %r6, [m];
    ld.param.u32 %r7, [c];
    mad.lo.u32 %r5, %r5, %r6, %r7;
    st.global.u32 [%rd1], %r5;
    ret;
}
"#;

/// Elements of the `u32` buffers the `axpc` tests use.
pub const AXPC_N: u32 = 300;

/// Launches `axpc` (from [`AXPC_PTX`]) on stream `s` over [`AXPC_N`] elements of `x`, 128
/// threads a CTA; the launch's result.
pub fn launch_axpc(f: u64, s: u64, x: u64, m: u32, c: u32) -> CUresult {
    let n = AXPC_N;
    let mut params = [arg(&x), arg(&m), arg(&c), arg(&n)];
    unsafe {
        cuLaunchKernel(
            f,
            AXPC_N.div_ceil(128),
            1,
            1,
            128,
            1,
            1,
            0,
            s,
            params.as_mut_ptr(),
            null_mut(),
        )
    }
}

/// [`AXPC_N`] `u32`s copied from device address `x`; the copy must succeed.
pub fn read_u32s(x: u64) -> Vec<u32> {
    let mut v = vec![0u32; AXPC_N as usize];
    let r = unsafe { cuMemcpyDtoH_v2(v.as_mut_ptr().cast(), x, v.len() * 4) };
    assert_eq!(r, CUDA_SUCCESS);
    v
}

/// `v` copied to device address `x`; the copy must succeed.
pub fn write_u32s(x: u64, v: &[u32]) {
    let r = unsafe { cuMemcpyHtoD_v2(x, v.as_ptr().cast(), v.len() * 4) };
    assert_eq!(r, CUDA_SUCCESS);
}

/// What the graph tests run on: the primary context current ([`setup`]), the `axpc` function
/// from [`AXPC_PTX`], two non-blocking streams and two buffers of [`AXPC_N`] `u32`s:
/// `(f, s, s2, x, y)`.
pub fn axpc_fixture() -> (u64, u64, u64, u64, u64) {
    setup();
    let f = function(load(&CString::new(AXPC_PTX).unwrap()), "axpc");
    let (mut s, mut s2, mut x, mut y) = (0u64, 0u64, 0u64, 0u64);
    let bytes = AXPC_N as usize * 4;
    unsafe {
        assert_eq!(cuStreamCreate(&mut s, 1), CUDA_SUCCESS);
        assert_eq!(cuStreamCreate(&mut s2, 1), CUDA_SUCCESS);
        assert_eq!(cuMemAlloc_v2(&mut x, bytes), CUDA_SUCCESS);
        assert_eq!(cuMemAlloc_v2(&mut y, bytes), CUDA_SUCCESS);
    }
    (f, s, s2, x, y)
}

/// The dependencies argument of the `cuGraphAdd*Node` functions: null when there are none.
fn deps_ptr(deps: &[u64]) -> *const u64 {
    if deps.is_empty() {
        null()
    } else {
        deps.as_ptr()
    }
}

/// A 1-D memset of [`AXPC_N`] `u32`s at device address `dst` to `value`.
pub fn memset_u32s(dst: u64, value: u32) -> MemsetNodeParams {
    MemsetNodeParams {
        dst,
        pitch: 0,
        value,
        element_size: 4,
        width: AXPC_N as usize,
        height: 1,
    }
}

/// Adds to graph `g`, after the nodes `deps`, the memset [`memset_u32s`]`(dst, value)`; must
/// succeed. The node.
pub fn add_memset_node(g: u64, deps: &[u64], dst: u64, value: u32) -> u64 {
    let p = memset_u32s(dst, value);
    let mut node = 0u64;
    let r = unsafe { cuGraphAddMemsetNode(&mut node, g, deps_ptr(deps), deps.len(), &p, 0) };
    assert_eq!(r, CUDA_SUCCESS);
    node
}

/// Adds to graph `g`, after the nodes `deps`, a node running `axpc` (function `f` from
/// [`AXPC_PTX`]) over [`AXPC_N`] elements of `x`, `block` threads a CTA; must succeed. The node.
pub fn add_axpc_node(g: u64, deps: &[u64], f: u64, x: u64, m: u32, c: u32, block: u32) -> u64 {
    let n = AXPC_N;
    let mut params = [arg(&x), arg(&m), arg(&c), arg(&n)];
    let p = KernelNodeParams {
        func: f,
        grid: [AXPC_N.div_ceil(block), 1, 1],
        block: [block, 1, 1],
        shared_mem_bytes: 0,
        kernel_params: params.as_mut_ptr(),
        extra: null_mut(),
        kern: 0,
        ctx: 0,
    };
    let mut node = 0u64;
    let r = unsafe { cuGraphAddKernelNode_v2(&mut node, g, deps_ptr(deps), deps.len(), &p) };
    assert_eq!(r, CUDA_SUCCESS);
    node
}
