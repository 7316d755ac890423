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

exports! { cudaGraphGetRootNodes => fn(graph: u64, nodes: *mut u64, count: *mut usize) {
    context()?;
    cu!(cuGraphGetRootNodes(graph, nodes, count))
}}

// cudaGraphNodeGetDependencies, cudaGraphNodeGetDependentNodes and
// cudaGraphRemoveDependencies took no edge data in CUDA 12 (which named the edge-data forms
// `_v2`): read by the version the program was built for, as cudaGraphAddDependencies.

exports! { cudaGraphNodeGetDependencies => fn(node: u64, deps: *mut u64, edge_data: *mut c_void, count: *mut usize) {
    context()?;
    if cuda12_abi() {
        // CUDA 12: (node, pDependencies, pNumDependencies).
        return cu!(cuGraphNodeGetDependencies_v2(node, deps, std::ptr::null_mut(), edge_data.cast()));
    }
    cu!(cuGraphNodeGetDependencies_v2(node, deps, edge_data, count))
}}

exports! { cudaGraphNodeGetDependencies_v2 => fn(node: u64, deps: *mut u64, edge_data: *mut c_void, count: *mut usize) {
    context()?;
    cu!(cuGraphNodeGetDependencies_v2(node, deps, edge_data, count))
}}

exports! { cudaGraphNodeGetDependentNodes => fn(node: u64, deps: *mut u64, edge_data: *mut c_void, count: *mut usize) {
    context()?;
    if cuda12_abi() {
        // CUDA 12: (node, pDependentNodes, pNumDependentNodes).
        return cu!(cuGraphNodeGetDependentNodes_v2(node, deps, std::ptr::null_mut(), edge_data.cast()));
    }
    cu!(cuGraphNodeGetDependentNodes_v2(node, deps, edge_data, count))
}}

exports! { cudaGraphNodeGetDependentNodes_v2 => fn(node: u64, deps: *mut u64, edge_data: *mut c_void, count: *mut usize) {
    context()?;
    cu!(cuGraphNodeGetDependentNodes_v2(node, deps, edge_data, count))
}}

exports! { cudaGraphRemoveDependencies => fn(graph: u64, from: *const u64, to: *const u64, edge_data: *const c_void, n: usize) {
    context()?;
    if cuda12_abi() {
        // CUDA 12: (graph, from, to, numDependencies).
        let n = edge_data as usize;
        return cu!(cuGraphRemoveDependencies_v2(graph, from, to, std::ptr::null(), n));
    }
    cu!(cuGraphRemoveDependencies_v2(graph, from, to, edge_data, n))
}}

exports! { cudaGraphRemoveDependencies_v2 => fn(graph: u64, from: *const u64, to: *const u64, edge_data: *const c_void, n: usize) {
    context()?;
    cu!(cuGraphRemoveDependencies_v2(graph, from, to, edge_data, n))
}}

exports! { cudaGraphNodeGetContainingGraph => fn(node: u64, graph: *mut u64) {
    context()?;
    cu!(cuGraphNodeGetContainingGraph(node, graph))
}}

exports! { cudaGraphChildGraphNodeGetGraph => fn(node: u64, graph: *mut u64) {
    context()?;
    cu!(cuGraphChildGraphNodeGetGraph(node, graph))
}}

exports! { cudaGraphNodeFindInClone => fn(node: *mut u64, original: u64, cloned: u64) {
    context()?;
    cu!(cuGraphNodeFindInClone(node, original, cloned))
}}

exports! { cudaGraphNodeGetEnabled => fn(exec: u64, node: u64, enabled: *mut c_uint) {
    context()?;
    cu!(cuGraphNodeGetEnabled(exec, node, enabled))
}}

exports! { cudaGraphNodeSetEnabled => fn(exec: u64, node: u64, enabled: c_uint) {
    context()?;
    cu!(cuGraphNodeSetEnabled(exec, node, enabled))
}}

exports! { cudaGraphDestroyNode => fn(node: u64) {
    context()?;
    cu!(cuGraphDestroyNode(node))
}}

exports! { cudaGraphMemcpyNodeGetParams => fn(node: u64, params: *mut crate::memory3d::Memcpy3DParms) {
    context()?;
    if params.is_null() {
        return Err(Fail::new(crate::errors::cudaErrorInvalidValue, "null cudaMemcpy3DParms"));
    }
    let mut m = crate::memory3d::DrvMemcpy3D::default();
    cu!(cuGraphMemcpyNodeGetParams(node, (&mut m as *mut crate::memory3d::DrvMemcpy3D).cast()))?;
    let v = crate::memory3d::runtime_copy(&m)?;
    // SAFETY: a cudaMemcpy3DParms by the API's contract.
    unsafe { params.write_unaligned(v) };
    Ok(())
}}

exports! { cudaGraphMemcpyNodeSetParams => fn(node: u64, params: *const crate::memory3d::Memcpy3DParms) {
    context()?;
    let m = crate::memory3d::driver_copy(params)?;
    cu!(cuGraphMemcpyNodeSetParams(node, (&m as *const crate::memory3d::DrvMemcpy3D).cast()))
}}

exports! { cudaGraphMemcpyNodeSetParams1D => fn(node: u64, dst: *mut c_void, src: *const c_void, count: usize, kind: c_int) {
    context()?;
    let m = crate::memory3d::driver_linear_copy(dst, src, count, kind)?;
    cu!(cuGraphMemcpyNodeSetParams(node, (&m as *const crate::memory3d::DrvMemcpy3D).cast()))
}}

exports! { cudaGraphExecMemcpyNodeSetParams => fn(exec: u64, node: u64, params: *const crate::memory3d::Memcpy3DParms) {
    context()?;
    let m = crate::memory3d::driver_copy(params)?;
    cu!(cuGraphExecMemcpyNodeSetParams(exec, node, (&m as *const crate::memory3d::DrvMemcpy3D).cast(), 0))
}}

exports! { cudaGraphExecMemcpyNodeSetParams1D => fn(exec: u64, node: u64, dst: *mut c_void, src: *const c_void, count: usize, kind: c_int) {
    context()?;
    let m = crate::memory3d::driver_linear_copy(dst, src, count, kind)?;
    cu!(cuGraphExecMemcpyNodeSetParams(exec, node, (&m as *const crate::memory3d::DrvMemcpy3D).cast(), 0))
}}

// cudaMemsetParams is CUDA_MEMSET_NODE_PARAMS and cudaHostNodeParams is
// CUDA_HOST_NODE_PARAMS (the module's note).

exports! { cudaGraphMemsetNodeGetParams => fn(node: u64, params: *mut c_void) {
    context()?;
    cu!(cuGraphMemsetNodeGetParams(node, params))
}}

exports! { cudaGraphMemsetNodeSetParams => fn(node: u64, params: *const c_void) {
    context()?;
    cu!(cuGraphMemsetNodeSetParams(node, params))
}}

exports! { cudaGraphExecMemsetNodeSetParams => fn(exec: u64, node: u64, params: *const c_void) {
    context()?;
    cu!(cuGraphExecMemsetNodeSetParams(exec, node, params, 0))
}}

exports! { cudaGraphHostNodeGetParams => fn(node: u64, params: *mut c_void) {
    context()?;
    cu!(cuGraphHostNodeGetParams(node, params))
}}

exports! { cudaGraphHostNodeSetParams => fn(node: u64, params: *const c_void) {
    context()?;
    cu!(cuGraphHostNodeSetParams(node, params))
}}

exports! { cudaGraphExecHostNodeSetParams => fn(exec: u64, node: u64, params: *const c_void) {
    context()?;
    cu!(cuGraphExecHostNodeSetParams(exec, node, params))
}}

exports! { cudaGraphExecChildGraphNodeSetParams => fn(exec: u64, node: u64, child: u64) {
    context()?;
    cu!(cuGraphExecChildGraphNodeSetParams(exec, node, child))
}}

/// `struct cudaGraphNodeParams`, and the driver's `CUgraphNodeParams` of the same size: the
/// node type, then its parameters in a 232-byte union. The members are the driver's but for
/// kernels (`cudaKernelNodeParamsV2` names the kernel by host stub) and copies
/// (`cudaMemcpyNodeParams` holds a `cudaMemcpy3DParms`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct NodeParams {
    pub ty: c_uint,
    pub reserved0: [c_int; 3],
    pub body: [u64; 29],
    pub reserved2: i64,
}

/// `struct cudaKernelNodeParamsV2` (CUDA 13; CUDA 12's ends after `extra`, and the union's
/// unused bytes are zero, so `function_type` reads as unspecified).
#[repr(C)]
struct KernelNodeParamsV2 {
    func: *mut c_void,
    grid: Dim3,
    block: Dim3,
    shared_mem_bytes: c_uint,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
    ctx: u64,
    /// A `cudaKernelFunctionType`.
    function_type: c_uint,
}

/// `cudaKernelFunctionTypeDeviceEntry`, `cudaKernelFunctionTypeKernel`,
/// `cudaKernelFunctionTypeFunction`.
const FUNCTION_TYPE_DEVICE_ENTRY: c_uint = 1;
const FUNCTION_TYPE_KERNEL: c_uint = 2;
const FUNCTION_TYPE_FUNCTION: c_uint = 3;

/// `struct cudaMemcpyNodeParams`.
#[repr(C)]
struct MemcpyNodeParams {
    flags: c_int,
    reserved: c_int,
    ctx: u64,
    copy: crate::memory3d::Memcpy3DParms,
}

/// `CUDA_MEMCPY_NODE_PARAMS`.
#[repr(C)]
struct DrvMemcpyNodeParams {
    flags: c_int,
    reserved: c_int,
    ctx: u64,
    copy: crate::memory3d::DrvMemcpy3D,
}

/// `cudaGraphNodeTypeKernel`, `cudaGraphNodeTypeMemcpy` (the driver's values).
const NODE_KERNEL: c_uint = 0;
const NODE_MEMCPY: c_uint = 1;

/// The driver's form of the runtime's node parameters `p`.
fn params_to_driver(p: *const NodeParams) -> Result<NodeParams, Fail> {
    if p.is_null() {
        return Err(Fail::new(
            crate::errors::cudaErrorInvalidValue,
            "null cudaGraphNodeParams",
        ));
    }
    // SAFETY: a cudaGraphNodeParams by the API's contract.
    let rt = unsafe { p.read_unaligned() };
    let mut d = rt;
    let body = d.body.as_mut_ptr();
    match rt.ty {
        NODE_KERNEL => {
            // SAFETY: the kernel member, within the union's words.
            let k = unsafe { &*rt.body.as_ptr().cast::<KernelNodeParamsV2>() };
            let func = match k.function_type {
                FUNCTION_TYPE_KERNEL | FUNCTION_TYPE_FUNCTION => k.func as u64,
                _ => crate::register::function(k.func)?,
            };
            d.body = [0; 29];
            // SAFETY: CUDA_KERNEL_NODE_PARAMS_v3 fits the union.
            unsafe {
                body.cast::<DriverKernelNodeParams>()
                    .write(DriverKernelNodeParams {
                        func,
                        grid: k.grid,
                        block: k.block,
                        shared_mem_bytes: k.shared_mem_bytes,
                        kernel_params: k.kernel_params,
                        extra: k.extra,
                        kern: 0,
                        ctx: 0,
                    })
            };
        }
        NODE_MEMCPY => {
            // SAFETY: the memcpy member, within the union's words.
            let m = unsafe { &*rt.body.as_ptr().cast::<MemcpyNodeParams>() };
            let copy = crate::memory3d::driver_copy(&m.copy)?;
            d.body = [0; 29];
            // SAFETY: CUDA_MEMCPY_NODE_PARAMS fits the union.
            unsafe {
                body.cast::<DrvMemcpyNodeParams>()
                    .write(DrvMemcpyNodeParams {
                        flags: m.flags,
                        reserved: m.reserved,
                        ctx: 0,
                        copy,
                    })
            };
        }
        _ => {}
    }
    Ok(d)
}

/// The runtime's form of the driver's node parameters `d`.
fn params_to_runtime(d: &NodeParams) -> Result<NodeParams, Fail> {
    let mut rt = *d;
    let body = rt.body.as_mut_ptr();
    match d.ty {
        NODE_KERNEL => {
            // SAFETY: the driver wrote the kernel member.
            let k = unsafe { &*d.body.as_ptr().cast::<DriverKernelNodeParams>() };
            let (func, function_type) = match crate::register::host_stub(k.func) {
                Some(stub) => (stub as *mut c_void, FUNCTION_TYPE_DEVICE_ENTRY),
                None => (k.func as *mut c_void, FUNCTION_TYPE_FUNCTION),
            };
            rt.body = [0; 29];
            // SAFETY: cudaKernelNodeParamsV2 fits the union.
            unsafe {
                body.cast::<KernelNodeParamsV2>().write(KernelNodeParamsV2 {
                    func,
                    grid: k.grid,
                    block: k.block,
                    shared_mem_bytes: k.shared_mem_bytes,
                    kernel_params: k.kernel_params,
                    extra: k.extra,
                    ctx: 0,
                    function_type,
                })
            };
        }
        NODE_MEMCPY => {
            // SAFETY: the driver wrote the memcpy member.
            let m = unsafe { &*d.body.as_ptr().cast::<DrvMemcpyNodeParams>() };
            let copy = crate::memory3d::runtime_copy(&m.copy)?;
            rt.body = [0; 29];
            // SAFETY: cudaMemcpyNodeParams fits the union.
            unsafe {
                body.cast::<MemcpyNodeParams>().write(MemcpyNodeParams {
                    flags: 0,
                    reserved: 0,
                    ctx: 0,
                    copy,
                })
            };
        }
        _ => {}
    }
    Ok(rt)
}

/// `cudaGraphAddNode`: the node, and the parameters' out members (an allocation's address)
/// written back.
fn add_node(
    node: *mut u64,
    graph: u64,
    deps: *const u64,
    edge_data: *const c_void,
    n: usize,
    params: *mut NodeParams,
) -> Result<(), Fail> {
    context()?;
    let mut d = params_to_driver(params)?;
    cu!(cuGraphAddNode_v2(
        node,
        graph,
        deps,
        edge_data,
        n,
        (&mut d as *mut NodeParams).cast()
    ))?;
    // cudaGraphNodeTypeMemAlloc: `alloc.dptr` is an out member (the union is the same).
    if d.ty == 10 {
        // SAFETY: non-null (checked above), a cudaGraphNodeParams by the API's contract.
        unsafe { (*params).body = d.body };
    }
    Ok(())
}

exports! { cudaGraphAddNode => fn(node: *mut u64, graph: u64, deps: *const u64, edge_data: *const c_void, n: usize, params: *mut NodeParams) {
    if cuda12_abi() {
        // CUDA 12: (pGraphNode, graph, pDependencies, numDependencies, nodeParams).
        let count = edge_data as usize;
        return add_node(node, graph, deps, std::ptr::null(), count, n as *mut NodeParams);
    }
    add_node(node, graph, deps, edge_data, n, params)
}}

exports! { cudaGraphAddNode_v2 => fn(node: *mut u64, graph: u64, deps: *const u64, edge_data: *const c_void, n: usize, params: *mut NodeParams) {
    add_node(node, graph, deps, edge_data, n, params)
}}

exports! { cudaGraphNodeGetParams => fn(node: u64, params: *mut NodeParams) {
    context()?;
    if params.is_null() {
        return Err(Fail::new(crate::errors::cudaErrorInvalidValue, "null cudaGraphNodeParams"));
    }
    let mut d = NodeParams { ty: 0, reserved0: [0; 3], body: [0; 29], reserved2: 0 };
    cu!(cuGraphNodeGetParams(node, (&mut d as *mut NodeParams).cast()))?;
    let rt = params_to_runtime(&d)?;
    // SAFETY: a cudaGraphNodeParams by the API's contract.
    unsafe { params.write_unaligned(rt) };
    Ok(())
}}

exports! { cudaGraphNodeSetParams => fn(node: u64, params: *mut NodeParams) {
    context()?;
    let mut d = params_to_driver(params)?;
    cu!(cuGraphNodeSetParams(node, (&mut d as *mut NodeParams).cast()))
}}

exports! { cudaGraphExecNodeSetParams => fn(exec: u64, node: u64, params: *mut NodeParams) {
    context()?;
    let mut d = params_to_driver(params)?;
    cu!(cuGraphExecNodeSetParams(exec, node, (&mut d as *mut NodeParams).cast()))
}}

exports! { cudaGraphEventRecordNodeGetEvent => fn(node: u64, event: *mut u64) {
    context()?;
    cu!(cuGraphEventRecordNodeGetEvent(node, event))
}}

exports! { cudaGraphEventWaitNodeGetEvent => fn(node: u64, event: *mut u64) {
    context()?;
    cu!(cuGraphEventWaitNodeGetEvent(node, event))
}}

exports! { cudaGraphEventRecordNodeSetEvent => fn(node: u64, event: u64) {
    context()?;
    cu!(cuGraphEventRecordNodeSetEvent(node, event))
}}

exports! { cudaGraphEventWaitNodeSetEvent => fn(node: u64, event: u64) {
    context()?;
    cu!(cuGraphEventWaitNodeSetEvent(node, event))
}}

exports! { cudaGraphExecEventRecordNodeSetEvent => fn(exec: u64, node: u64, event: u64) {
    context()?;
    cu!(cuGraphExecEventRecordNodeSetEvent(exec, node, event))
}}

exports! { cudaGraphExecEventWaitNodeSetEvent => fn(exec: u64, node: u64, event: u64) {
    context()?;
    cu!(cuGraphExecEventWaitNodeSetEvent(exec, node, event))
}}

exports! { cudaGraphMemAllocNodeGetParams => fn(node: u64, params: *mut c_void) {
    context()?;
    cu!(cuGraphMemAllocNodeGetParams(node, params))
}}

// The free node's device pointer, written as a `void*`.
exports! { cudaGraphMemFreeNodeGetParams => fn(node: u64, dptr: *mut c_void) {
    context()?;
    cu!(cuGraphMemFreeNodeGetParams(node, dptr.cast()))
}}

exports! { cudaGraphUpload, cudaGraphUpload_ptsz => fn(exec: u64, s: u64) {
    context()?;
    cu!(cuGraphUpload(exec, s))
}}

// cudaGraphInstantiateParams is CUDA_GRAPH_INSTANTIATE_PARAMS (flags, upload stream, error
// node and result out), and the result values are the same.
exports! { cudaGraphInstantiateWithParams, cudaGraphInstantiateWithParams_ptsz => fn(exec: *mut u64, graph: u64, params: *mut c_void) {
    context()?;
    cu!(cuGraphInstantiateWithParams(exec, graph, params))
}}
