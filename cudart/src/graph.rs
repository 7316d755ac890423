//! Graphs built node by node (CUDA Runtime API: Graph Management), forwarded to the driver:
//! `cudaGraph_t` is `CUgraph`, `cudaGraphNode_t` is `CUgraphNode`, and the runtime's node
//! parameter structs used here have the driver's layouts (`cudaHostNodeParams` is
//! `CUDA_HOST_NODE_PARAMS`; `cudaMemsetParams` is `CUDA_MEMSET_NODE_PARAMS`;
//! `cudaMemAllocNodeParams`, whose `cudaMemPoolProps` matches `CUmemPoolProps`, is
//! `CUDA_MEM_ALLOC_NODE_PARAMS`; `cudaGraphEdgeData` is `CUgraphEdgeData`).
//!
//! Two names changed their ABI in CUDA 13: `cudaGraphAddDependencies` and
//! `cudaGraphGetEdges` took no edge data in CUDA 12 (which named the edge-data forms `_v2`).
//! One library serves both, so these two read their arguments by the version the program
//! was built for ([`crate::state::runtime_version`]: the name the library was loaded by).

use crate::state::context;
use crate::{cu, exports, Dim3, Fail};
use std::ffi::{c_char, c_int, c_uint, c_void};

exports! { cudaGraphAddEmptyNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize) {
    context()?;
    cu!(cuGraphAddEmptyNode(node, graph, deps, n))
}}

exports! { cudaGraphAddHostNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize, params: *const c_void) {
    context()?;
    cu!(cuGraphAddHostNode(node, graph, deps, n, params))
}}

exports! { cudaGraphAddChildGraphNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize, child: u64) {
    context()?;
    cu!(cuGraphAddChildGraphNode(node, graph, deps, n, child))
}}

exports! { cudaGraphAddEventRecordNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize, event: u64) {
    context()?;
    cu!(cuGraphAddEventRecordNode(node, graph, deps, n, event))
}}

exports! { cudaGraphAddEventWaitNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize, event: u64) {
    context()?;
    cu!(cuGraphAddEventWaitNode(node, graph, deps, n, event))
}}

exports! { cudaGraphAddMemAllocNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize, params: *mut c_void) {
    context()?;
    cu!(cuGraphAddMemAllocNode(node, graph, deps, n, params))
}}

exports! { cudaGraphAddMemFreeNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize, dptr: *mut c_void) {
    context()?;
    cu!(cuGraphAddMemFreeNode(node, graph, deps, n, dptr as u64))
}}

exports! { cudaGraphGetNodes => fn(graph: u64, nodes: *mut u64, count: *mut usize) {
    context()?;
    cu!(cuGraphGetNodes(graph, nodes, count))
}}

// cudaGraphNodeType and CUgraphNodeType share their values.
exports! { cudaGraphNodeGetType => fn(node: u64, ty: *mut std::ffi::c_uint) {
    context()?;
    cu!(cuGraphNodeGetType(node, ty))
}}

/// `cudaKernelNodeParams`: the kernel by host stub (or `cudaFunction_t`), its launch shape and
/// arguments.
#[repr(C)]
pub struct KernelNodeParams {
    pub func: *mut c_void,
    pub grid: Dim3,
    pub block: Dim3,
    pub shared_mem_bytes: c_uint,
    pub kernel_params: *mut *mut c_void,
    pub extra: *mut *mut c_void,
}

/// `CUDA_KERNEL_NODE_PARAMS_v2`: what `cudaKernelNodeParams` becomes for the driver.
#[repr(C)]
struct DriverKernelNodeParams {
    func: u64,
    grid: Dim3,
    block: Dim3,
    shared_mem_bytes: c_uint,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
    kern: u64,
    ctx: u64,
}

/// The driver's form of the runtime's kernel node parameters. Errors: a null pointer
/// (`cudaErrorInvalidValue`), an unknown kernel (`cudaErrorInvalidDeviceFunction`).
fn driver_params(p: *const KernelNodeParams) -> Result<DriverKernelNodeParams, Fail> {
    if p.is_null() {
        return Err(Fail::new(
            crate::errors::cudaErrorInvalidValue,
            "null kernel node parameters",
        ));
    }
    // SAFETY: a descriptor by the API's contract.
    let p = unsafe { &*p };
    Ok(DriverKernelNodeParams {
        func: crate::register::function(p.func)?,
        grid: p.grid,
        block: p.block,
        shared_mem_bytes: p.shared_mem_bytes,
        kernel_params: p.kernel_params,
        extra: p.extra,
        kern: 0,
        ctx: 0,
    })
}

exports! { cudaGraphAddKernelNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize, params: *const KernelNodeParams) {
    context()?;
    let d = driver_params(params)?;
    cu!(cuGraphAddKernelNode_v2(node, graph, deps, n, (&d as *const DriverKernelNodeParams).cast()))
}}

exports! { cudaGraphKernelNodeSetParams => fn(node: u64, params: *const KernelNodeParams) {
    context()?;
    let d = driver_params(params)?;
    cu!(cuGraphKernelNodeSetParams_v2(node, (&d as *const DriverKernelNodeParams).cast()))
}}

exports! { cudaGraphExecKernelNodeSetParams => fn(exec: u64, node: u64, params: *const KernelNodeParams) {
    context()?;
    let d = driver_params(params)?;
    cu!(cuGraphExecKernelNodeSetParams_v2(exec, node, (&d as *const DriverKernelNodeParams).cast()))
}}

exports! { cudaGraphKernelNodeGetParams => fn(node: u64, params: *mut KernelNodeParams) {
    context()?;
    if params.is_null() {
        return Err(Fail::new(crate::errors::cudaErrorInvalidValue, "null kernel node parameters"));
    }
    let mut d = std::mem::MaybeUninit::<DriverKernelNodeParams>::zeroed();
    cu!(cuGraphKernelNodeGetParams_v2(node, d.as_mut_ptr().cast()))?;
    // SAFETY: the driver wrote the whole struct (zeroed before: every bit pattern is valid).
    let d = unsafe { d.assume_init() };
    // The kernel as the program named it: its host stub where one resolved to this function,
    // else the driver's handle (a cudaFunction_t, which the runtime's calls accept too).
    let func = crate::register::host_stub(d.func).unwrap_or(d.func as *const c_void);
    let v = KernelNodeParams {
        func: func as *mut c_void,
        grid: d.grid,
        block: d.block,
        shared_mem_bytes: d.shared_mem_bytes,
        kernel_params: d.kernel_params,
        extra: d.extra,
    };
    // SAFETY: a descriptor by the API's contract.
    unsafe { params.write_unaligned(v) };
    Ok(())
}}

exports! { cudaGraphExecUpdate => fn(exec: u64, graph: u64, info: *mut c_void) {
    // cudaGraphExecUpdateResultInfo is CUgraphExecUpdateResultInfo (CUDA 12 and 13: the
    // result, the error node and the error's "from" node); the result values are the same.
    context()?;
    cu!(cuGraphExecUpdate_v2(exec, graph, info))
}}

exports! { cudaGraphClone => fn(clone: *mut u64, graph: u64) {
    context()?;
    cu!(cuGraphClone(clone, graph))
}}

/// Whether the program was built against CUDA 12, whose `cudaGraphAddDependencies` and
/// `cudaGraphGetEdges` take no edge data.
fn cuda12_abi() -> bool {
    crate::state::runtime_version() < 13000
}

exports! { cudaGraphAddDependencies => fn(graph: u64, from: *const u64, to: *const u64, edge_data: *const c_void, n: usize) {
    context()?;
    if cuda12_abi() {
        // CUDA 12: (graph, from, to, numDependencies); the fourth argument is the count and
        // the fifth register holds nothing of the program's.
        let n = edge_data as usize;
        return cu!(cuGraphAddDependencies_v2(graph, from, to, std::ptr::null(), n));
    }
    cu!(cuGraphAddDependencies_v2(graph, from, to, edge_data, n))
}}

exports! { cudaGraphAddDependencies_v2 => fn(graph: u64, from: *const u64, to: *const u64, edge_data: *const c_void, n: usize) {
    context()?;
    cu!(cuGraphAddDependencies_v2(graph, from, to, edge_data, n))
}}

exports! { cudaGraphGetEdges => fn(graph: u64, from: *mut u64, to: *mut u64, edge_data: *mut c_void, count: *mut usize) {
    context()?;
    if cuda12_abi() {
        // CUDA 12: (graph, from, to, numEdges).
        let count = edge_data.cast::<usize>();
        return cu!(cuGraphGetEdges_v2(graph, from, to, std::ptr::null_mut(), count));
    }
    cu!(cuGraphGetEdges_v2(graph, from, to, edge_data, count))
}}

exports! { cudaGraphGetEdges_v2 => fn(graph: u64, from: *mut u64, to: *mut u64, edge_data: *mut c_void, count: *mut usize) {
    context()?;
    cu!(cuGraphGetEdges_v2(graph, from, to, edge_data, count))
}}

exports! { cudaGraphAddMemcpyNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize, params: *const crate::memory3d::Memcpy3DParms) {
    context()?;
    let m = crate::memory3d::driver_copy(params)?;
    cu!(cuGraphAddMemcpyNode(node, graph, deps, n, (&m as *const crate::memory3d::DrvMemcpy3D).cast(), 0))
}}

exports! { cudaGraphAddMemcpyNode1D => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize, dst: *mut c_void, src: *const c_void, count: usize, kind: c_int) {
    context()?;
    let m = crate::memory3d::driver_linear_copy(dst, src, count, kind)?;
    cu!(cuGraphAddMemcpyNode(node, graph, deps, n, (&m as *const crate::memory3d::DrvMemcpy3D).cast(), 0))
}}

exports! { cudaGraphAddMemsetNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize, params: *const c_void) {
    context()?;
    cu!(cuGraphAddMemsetNode(node, graph, deps, n, params, 0))
}}

// cudaGraphDebugDotFlags and CUgraphDebugDot_flags share their values; the runtime's enum
// lacks the driver's CU_GRAPH_DEBUG_DOT_FLAGS_RUNTIME_TYPES (2, "use CUDA Runtime structures
// for output"), which the runtime sets itself so that parameters are named as its structures
// (cudaKernelNodeParams, cudaMemcpy3DParms) name them.
exports! { cudaGraphDebugDotPrint => fn(graph: u64, path: *const c_char, flags: c_uint) {
    const CU_GRAPH_DEBUG_DOT_FLAGS_RUNTIME_TYPES: c_uint = 1 << 1;
    context()?;
    cu!(cuGraphDebugDotPrint(graph, path, flags | CU_GRAPH_DEBUG_DOT_FLAGS_RUNTIME_TYPES))
}}
