//! Nodes of any type through one tagged union, `CUgraphNodeParams` (CUDA driver API: Graph
//! Management: `cuGraphAddNode`, `cuGraphNodeGetParams`, `cuGraphNodeSetParams`,
//! `cuGraphExecNodeSetParams`).
//!
//! The node types ptxjit runs are accepted: kernel, memcpy, memset, host, child graph (its
//! graph cloned into the node; moving it in, `CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE`, is not
//! supported), empty, event wait, event record, memory allocation and memory free. The
//! others (external semaphores, batch memory operations, conditional, batch and fabric
//! copies) answer `CUDA_ERROR_NOT_SUPPORTED` naming the type. Setting parameters follows
//! [`crate::graph_edit`]'s rules; memory allocation and free nodes cannot change (cuda.h).
//! Edge data given with the dependencies is accepted and ignored: a programmatic edge orders
//! less than a full dependency, and work here runs in a full dependency's order anyway.

use crate::errors::*;
use crate::graph::Op;
use crate::graph_edit::{
    exec_op, host_params_of, memcpy3d_of, memset_params_of, owned_graph, set_exec_op, set_node_op,
};
use crate::graph_nodes::{
    add, add_child, add_mem_alloc, add_mem_free, child_ops, gfail, graph_ref, host_op,
    kernel_node_params, kernel_op, memset_op, node_of, HostNodeParams, KernelNodeParams,
    MemAllocNodeParams, MemsetNodeParams,
};
use crate::state::{with_context, Driver};
use crate::texture::Memcpy3d;
use crate::{exports, DrvResult, Fail};
use std::ffi::{c_int, c_uint, c_void};

/// `CUgraphNodeParams`: the node type, then its parameters in a 232-byte union.
#[repr(C)]
pub struct GraphNodeParams {
    pub ty: c_uint,
    pub reserved0: [c_int; 3],
    /// The union, read as the member `ty` selects.
    pub body: [u64; 29],
    pub reserved2: i64,
}

/// `CUDA_MEMCPY_NODE_PARAMS`.
#[repr(C)]
pub struct MemcpyNodeParams {
    pub flags: c_int,
    pub reserved: c_int,
    pub copy_ctx: u64,
    pub copy: Memcpy3d,
}

/// `CUDA_MEMSET_NODE_PARAMS_v2`: v1 and a context.
#[repr(C)]
pub struct MemsetNodeParamsV2 {
    pub base: MemsetNodeParams,
    pub ctx: u64,
}

/// `CUDA_HOST_NODE_PARAMS_v2`: v1, a sync mode and a context.
#[repr(C)]
pub struct HostNodeParamsV2 {
    pub base: HostNodeParams,
    pub sync_mode: c_uint,
    pub ctx: u64,
}

/// `CUDA_CHILD_GRAPH_NODE_PARAMS`.
#[repr(C)]
pub struct ChildGraphNodeParams {
    pub graph: u64,
    /// A `CUgraphChildGraphNodeOwnership`.
    pub ownership: c_uint,
}

/// `CUDA_EVENT_RECORD_NODE_PARAMS` (`CUDA_EVENT_WAIT_NODE_PARAMS` is its first member).
#[repr(C)]
pub struct EventNodeParams {
    pub event: u64,
    pub ctx: u64,
}

/// `CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE`.
const OWNERSHIP_CLONE: c_uint = 0;

/// `CUgraphNodeType` names, for the types this library does not run.
fn type_name(ty: c_uint) -> String {
    match ty {
        8 => "CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL".into(),
        9 => "CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT".into(),
        12 => "CU_GRAPH_NODE_TYPE_BATCH_MEM_OP".into(),
        13 => "CU_GRAPH_NODE_TYPE_CONDITIONAL".into(),
        14 => "CU_GRAPH_NODE_TYPE_MEMCPY_BATCH".into(),
        17 => "CU_GRAPH_NODE_TYPE_EXTERNAL_ENGINE".into(),
        18 => "CU_GRAPH_NODE_TYPE_FABRIC_CPY_BATCH".into(),
        t => format!("CUgraphNodeType {t}"),
    }
}

fn unsupported(ty: c_uint) -> Fail {
    Fail::new(
        CUDA_ERROR_NOT_SUPPORTED,
        format!("{} nodes are not supported by ptxjit", type_name(ty)),
    )
}

/// The union member of `p`, as a `T`.
fn member<T>(p: &GraphNodeParams) -> *const T {
    p.body.as_ptr().cast()
}

/// Checks a child-graph node's ownership: only cloning is supported.
fn check_clone(c: &ChildGraphNodeParams) -> DrvResult {
    if c.ownership != OWNERSHIP_CLONE {
        return Err(Fail::new(
            CUDA_ERROR_NOT_SUPPORTED,
            format!(
                "child graph ownership {}: only CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE is supported by ptxjit",
                c.ownership
            ),
        ));
    }
    Ok(())
}

/// The work of a node of type `p.ty` that is neither a child graph nor a memory node.
///
/// # Safety
/// `p`'s member for its type is initialized as cuda.h describes.
unsafe fn plain_op(d: &Driver, p: &GraphNodeParams) -> Result<Op, Fail> {
    match p.ty {
        0 => unsafe { kernel_op(d, member::<KernelNodeParams>(p), true) },
        1 => {
            // SAFETY: the memcpy member.
            let m = unsafe { &*member::<MemcpyNodeParams>(p) };
            if m.flags != 0 {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    "CUDA_MEMCPY_NODE_PARAMS.flags must be 0",
                ));
            }
            Ok(Op::Copy3d(unsafe {
                crate::graph::descriptor_words(&m.copy)?
            }))
        }
        2 => unsafe { memset_op(member::<MemsetNodeParams>(p)) },
        3 => unsafe { host_op(member::<HostNodeParams>(p)) },
        5 => Ok(Op::Empty),
        6 | 7 => {
            // SAFETY: the event member (its first field for both types).
            let e = unsafe { (*member::<EventNodeParams>(p)).event };
            crate::stream::check_event(d, e)?;
            Ok(if p.ty == 6 {
                Op::EventWait { e }
            } else {
                Op::EventRecord { e }
            })
        }
        4 | 10 | 11 => Err(Fail::new(
            CUDA_ERROR_UNKNOWN,
            "child graph and memory nodes are made apart",
        )),
        t => Err(unsupported(t)),
    }
}

/// `cuGraphAddNode`: a node of the type `p` names.
///
/// # Safety
/// As `cuGraphAddNode`'s contract.
unsafe fn add_node(
    pn: *mut u64,
    g: u64,
    deps: *const u64,
    n: usize,
    p: *mut GraphNodeParams,
) -> DrvResult {
    if p.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null node parameters"));
    }
    // SAFETY: a CUgraphNodeParams by the API's contract.
    let params = unsafe { &mut *p };
    match params.ty {
        4 => {
            // SAFETY: the graph member.
            let c = unsafe { &*member::<ChildGraphNodeParams>(params) };
            check_clone(c)?;
            unsafe { add_child(pn, g, deps, n, c.graph) }
        }
        10 => unsafe {
            add_mem_alloc(
                pn,
                g,
                deps,
                n,
                params.body.as_mut_ptr().cast::<MemAllocNodeParams>(),
            )
        },
        11 => {
            // SAFETY: the free member: a CUdeviceptr.
            let ptr = params.body[0];
            unsafe { add_mem_free(pn, g, deps, n, ptr) }
        }
        _ => unsafe { add(pn, g, deps, n, |d| plain_op(d, params)) },
    }
}

exports! { cuGraphAddNode => fn(pn: *mut u64, g: u64, deps: *const u64, n: usize, p: *mut GraphNodeParams) {
    unsafe { add_node(pn, g, deps, n, p) }
}}

exports! { cuGraphAddNode_v2, cuGraphAddNode_v3 => fn(pn: *mut u64, g: u64, deps: *const u64, _edge_data: *const c_void, n: usize, p: *mut GraphNodeParams) {
    unsafe { add_node(pn, g, deps, n, p) }
}}

/// Node `n`'s parameters as a `CUgraphNodeParams`.
fn node_params(d: &mut Driver, n: u64) -> Result<GraphNodeParams, Fail> {
    let (g, id) = node_of(d, n)?;
    let op = graph_ref(d, g)?.get(id).map_err(gfail)?.op.clone();
    let ctx = crate::state::current_context().unwrap_or(0);
    let mut p = GraphNodeParams {
        ty: op.node_type(),
        reserved0: [0; 3],
        body: [0; 29],
        reserved2: 0,
    };
    let body = p.body.as_mut_ptr();
    // SAFETY: each member fits the 232-byte union, whose words are 8-byte aligned.
    unsafe {
        match &op {
            Op::Kernel { .. } => body
                .cast::<KernelNodeParams>()
                .write(kernel_node_params(d, n)?),
            Op::Copy { .. } | Op::Copy2d(_) | Op::Copy3d(_) => {
                if let Some(m) = memcpy3d_of(&op) {
                    body.cast::<MemcpyNodeParams>().write(MemcpyNodeParams {
                        flags: 0,
                        reserved: 0,
                        copy_ctx: ctx,
                        copy: m,
                    });
                }
            }
            Op::Memset { .. } => {
                if let Some(m) = memset_params_of(&op) {
                    body.cast::<MemsetNodeParamsV2>()
                        .write(MemsetNodeParamsV2 { base: m, ctx });
                }
            }
            Op::Host { .. } => {
                if let Some(h) = host_params_of(&op) {
                    body.cast::<HostNodeParamsV2>().write(HostNodeParamsV2 {
                        base: h,
                        sync_mode: 0,
                        ctx: 0,
                    });
                }
            }
            Op::Child(_) => body
                .cast::<ChildGraphNodeParams>()
                .write(ChildGraphNodeParams {
                    graph: owned_graph(d, n)?,
                    ownership: OWNERSHIP_CLONE,
                }),
            Op::Empty => {}
            Op::EventRecord { e } | Op::EventWait { e } => body
                .cast::<EventNodeParams>()
                .write(EventNodeParams { event: *e, ctx: 0 }),
            Op::MemAlloc { ptr, bytes } => {
                let m = body.cast::<MemAllocNodeParams>();
                (*m).pool_props.alloc_type = 1;
                (*m).pool_props.location = [1, 0];
                (*m).bytesize = *bytes;
                (*m).dptr = *ptr;
            }
            Op::MemFree { ptr } => *body = *ptr,
        }
    }
    Ok(p)
}

exports! { cuGraphNodeGetParams => fn(n: u64, p: *mut GraphNodeParams) {
    if p.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null node parameters"));
    }
    let v = with_context(|d| node_params(d, n))?;
    // SAFETY: a CUgraphNodeParams by the API's contract.
    unsafe { p.write_unaligned(v) };
    Ok(())
}}

/// Errors unless node `n` (of type `have`) is of type `want`.
fn check_type(n: u64, have: c_uint, want: c_uint) -> DrvResult {
    if have != want {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("node {n:#x} is of type {have}, the parameters of type {want}"),
        ));
    }
    Ok(())
}

fn memory_node_fixed(ty: c_uint) -> Fail {
    Fail::new(
        CUDA_ERROR_INVALID_VALUE,
        format!("the parameters of a node of type {ty} (memory allocation or free) cannot change"),
    )
}

/// `cuGraphNodeSetParams`.
///
/// # Safety
/// `p` is null or a `CUgraphNodeParams`.
unsafe fn set_params(n: u64, p: *const GraphNodeParams) -> DrvResult {
    if p.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null node parameters"));
    }
    // SAFETY: a CUgraphNodeParams by the API's contract.
    let params = unsafe { &*p };
    with_context(|d| {
        let (g, id) = node_of(d, n)?;
        let have = graph_ref(d, g)?.get(id).map_err(gfail)?.op.node_type();
        check_type(n, have, params.ty)?;
        match params.ty {
            4 => {
                // SAFETY: the graph member.
                let c = unsafe { &*member::<ChildGraphNodeParams>(params) };
                check_clone(c)?;
                set_child_graph(d, n, c.graph)
            }
            10 | 11 => Err(memory_node_fixed(params.ty)),
            _ => {
                let op = unsafe { plain_op(d, params)? };
                set_node_op(d, n, op)
            }
        }
    })
}

/// Child-graph node `n` takes a copy of graph `child` in place of the graph it owned.
fn set_child_graph(d: &mut Driver, n: u64, child: u64) -> DrvResult {
    let (g, id) = node_of(d, n)?;
    if child == g {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            "a graph cannot be its own child",
        ));
    }
    let ops = child_ops(d, child)?;
    let owned = crate::graph_nodes::clone_graph(d, child)?;
    d.graphs.clones.remove(&owned);
    d.graphs.owned.insert(owned, n);
    let node = crate::graph_nodes::graph_mut(d, g)?
        .get_mut(id)
        .map_err(gfail)?;
    let old = node.child.replace(owned);
    node.set_op(Op::Child(ops));
    if let Some(old) = old {
        crate::graph::destroy_graph(d, old);
    }
    Ok(())
}

exports! { cuGraphNodeSetParams, cuGraphNodeSetParams_v2 => fn(n: u64, p: *const GraphNodeParams) {
    unsafe { set_params(n, p) }
}}

exports! { cuGraphExecNodeSetParams => fn(e: u64, n: u64, p: *const GraphNodeParams) {
    if p.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null node parameters"));
    }
    // SAFETY: a CUgraphNodeParams by the API's contract.
    let params = unsafe { &*p };
    match params.ty {
        // The one-dimensional and memory-type rules of the per-type calls.
        1 => {
            // SAFETY: the memcpy member.
            let m = unsafe { &*member::<MemcpyNodeParams>(params) };
            unsafe { crate::graph_edit::exec_memcpy(e, n, &m.copy) }
        }
        2 => unsafe { crate::graph_edit::exec_memset(e, n, member::<MemsetNodeParams>(params)) },
        10 | 11 => {
            with_context(|d| exec_op(d, e, n).map(|_| ()))?;
            Err(memory_node_fixed(params.ty))
        }
        4 => {
            // SAFETY: the graph member.
            let c = unsafe { &*member::<ChildGraphNodeParams>(params) };
            check_clone(c)?;
            with_context(|d| {
                let op = Op::Child(child_ops(d, c.graph)?);
                set_exec_op(d, e, n, op)
            })
        }
        _ => with_context(|d| {
            let op = unsafe { plain_op(d, params)? };
            set_exec_op(d, e, n, op)
        }),
    }
}}
