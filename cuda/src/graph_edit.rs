//! Inspecting and editing graphs node by node (CUDA driver API: Graph Management): roots,
//! dependencies and dependents, removing edges, the graph a node belongs to or owns, a
//! node's counterpart in a clone, enabling and disabling nodes of an instantiated graph, and
//! each node type's parameters (memcpy, memset, host, child graph, event record and wait),
//! read and changed in a graph or an instantiated graph.
//!
//! # Rules (cuda.h)
//! - Lists follow `cuGraphGetNodes`' convention: a null array asks for the count; otherwise
//!   `*count` slots are filled, those past the list set to null, and `*count` becomes the
//!   number written.
//! - Every edge here has the default (zeroed) edge data: it is what queries return, and an
//!   edge named with other data does not exist.
//! - A node's new parameters must keep its type (`CUDA_ERROR_INVALID_VALUE` otherwise).
//!   In an instantiated graph a memcpy node keeps its source and destination memory types
//!   and copies one non-empty row, before and after; a memset node sets at least one
//!   element, and a 2D one (or one whose height would change) changes only its address and
//!   value (the rules of `cuGraphExecUpdate`, [`crate::graph_update`]).
//! - A disabled node of an instantiated graph runs as an empty node; only kernel, memset and
//!   memcpy nodes can be disabled.

use crate::errors::*;
use crate::graph::{NodeData, Op};
use crate::graph_nodes::{
    gfail, graph_mut, graph_ref, host_op, memset_op, node_of, HostNodeParams, MemsetNodeParams,
};
use crate::state::{with_context, Driver, Kind};
use crate::texture::Memcpy3d;
use crate::{exports, out, DrvResult, Fail};
use ptxjit::host::graph::{Graph, NodeId};
use std::ffi::{c_uint, c_void};

/// `CUgraphEdgeData`'s size: every edge here has the default data, all zeros.
const EDGE_DATA_BYTES: usize = 8;

/// `CU_MEMORYTYPE_DEVICE`, `CU_MEMORYTYPE_UNIFIED`.
const MEM_DEVICE: c_uint = 2;
const MEM_UNIFIED: c_uint = 4;

/// Writes `list` by the count-query convention (see the module's rules); `edge_data`, when
/// not null, gets default data for each slot filled.
///
/// # Safety
/// `count` is null or a `size_t`; non-null arrays hold `*count` entries.
unsafe fn write_list(
    list: &[u64],
    arr: *mut u64,
    edge_data: *mut u8,
    count: *mut usize,
) -> DrvResult {
    if count.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null count"));
    }
    if !edge_data.is_null() && arr.is_null() {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            "edge data needs the node array too",
        ));
    }
    if arr.is_null() {
        return unsafe { out(count, list.len()) };
    }
    // SAFETY: non-null, a size_t by the API's contract.
    let room = unsafe { count.read_unaligned() };
    for i in 0..room {
        // SAFETY: `room` slots in each array by the API's contract.
        unsafe {
            arr.add(i)
                .write_unaligned(list.get(i).copied().unwrap_or(0));
            if !edge_data.is_null() {
                std::ptr::write_bytes(edge_data.add(i * EDGE_DATA_BYTES), 0, EDGE_DATA_BYTES);
            }
        }
    }
    unsafe { out(count, list.len().min(room)) }
}

/// The handles of `ids` in graph `graph`.
fn handles(graph: &Graph<NodeData>, ids: &[NodeId]) -> Result<Vec<u64>, Fail> {
    ids.iter()
        .map(|&id| graph.get(id).map(|n| n.handle).map_err(gfail))
        .collect()
}

exports! { cuGraphGetRootNodes => fn(g: u64, arr: *mut u64, count: *mut usize) {
    let roots = with_context(|d| {
        let graph = graph_ref(d, g)?;
        let mut ids = Vec::new();
        for id in graph.ids() {
            if graph.deps(id).map_err(gfail)?.is_empty() {
                ids.push(id);
            }
        }
        handles(graph, &ids)
    })?;
    unsafe { write_list(&roots, arr, std::ptr::null_mut(), count) }
}}

/// The nodes node `n` depends on (`dependents` false) or that depend on it (true), in the
/// order they were added.
fn neighbours(n: u64, dependents: bool) -> Result<Vec<u64>, Fail> {
    with_context(|d| {
        let (g, id) = node_of(d, n)?;
        let graph = graph_ref(d, g)?;
        let ids = if dependents {
            let mut v = Vec::new();
            for other in graph.ids() {
                if graph.deps(other).map_err(gfail)?.contains(&id) {
                    v.push(other);
                }
            }
            v
        } else {
            graph.deps(id).map_err(gfail)?
        };
        handles(graph, &ids)
    })
}

exports! { cuGraphNodeGetDependencies => fn(n: u64, arr: *mut u64, count: *mut usize) {
    let list = neighbours(n, false)?;
    unsafe { write_list(&list, arr, std::ptr::null_mut(), count) }
}}

exports! { cuGraphNodeGetDependencies_v2 => fn(n: u64, arr: *mut u64, edge_data: *mut c_void, count: *mut usize) {
    let list = neighbours(n, false)?;
    unsafe { write_list(&list, arr, edge_data.cast(), count) }
}}

exports! { cuGraphNodeGetDependentNodes => fn(n: u64, arr: *mut u64, count: *mut usize) {
    let list = neighbours(n, true)?;
    unsafe { write_list(&list, arr, std::ptr::null_mut(), count) }
}}

exports! { cuGraphNodeGetDependentNodes_v2 => fn(n: u64, arr: *mut u64, edge_data: *mut c_void, count: *mut usize) {
    let list = neighbours(n, true)?;
    unsafe { write_list(&list, arr, edge_data.cast(), count) }
}}

/// Removes the `n` edges `from[i] -> to[i]` from graph `g`: all or, on any error, none.
///
/// # Safety
/// With `n > 0`, `from` and `to` are null or hold `n` handles, and `edge_data` is null or
/// holds `n` `CUgraphEdgeData`.
unsafe fn remove_edges(
    g: u64,
    from: *const u64,
    to: *const u64,
    edge_data: *const u8,
    n: usize,
) -> DrvResult {
    with_context(|d| {
        graph_ref(d, g)?;
        if n == 0 {
            return Ok(());
        }
        let a = unsafe { crate::graph_nodes::dep_ids(d, g, from, n)? };
        let b = unsafe { crate::graph_nodes::dep_ids(d, g, to, n)? };
        if !edge_data.is_null() {
            // SAFETY: `n` entries by the API's contract.
            let data = unsafe { std::slice::from_raw_parts(edge_data, n * EDGE_DATA_BYTES) };
            if data.iter().any(|&x| x != 0) {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    "no edge has non-default edge data",
                ));
            }
        }
        let graph = graph_ref(d, g)?;
        for id in graph.ids() {
            if matches!(
                graph.get(id).map_err(gfail)?.op,
                Op::MemAlloc { .. } | Op::MemFree { .. }
            ) {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    "dependencies cannot be removed from a graph with memory allocation or free nodes",
                ));
            }
        }
        // Checked on a copy first, so that a missing edge leaves the graph as it was.
        let mut trial = graph.clone();
        for (&x, &y) in a.iter().zip(&b) {
            trial.remove_edge(x, y).map_err(gfail)?;
        }
        let graph = graph_mut(d, g)?;
        for (x, y) in a.into_iter().zip(b) {
            graph.remove_edge(x, y).map_err(gfail)?;
        }
        Ok(())
    })
}

exports! { cuGraphRemoveDependencies => fn(g: u64, from: *const u64, to: *const u64, n: usize) {
    unsafe { remove_edges(g, from, to, std::ptr::null(), n) }
}}

exports! { cuGraphRemoveDependencies_v2 => fn(g: u64, from: *const u64, to: *const u64, edge_data: *const c_void, n: usize) {
    unsafe { remove_edges(g, from, to, edge_data.cast(), n) }
}}

exports! { cuGraphNodeGetContainingGraph => fn(n: u64, pg: *mut u64) {
    let g = with_context(|d| node_of(d, n).map(|(g, _)| g))?;
    unsafe { out(pg, g) }
}}

/// The graph child-graph node `n` owns. A node recorded by capture (launching a graph with
/// child nodes into a capturing stream) holds only its work: its graph is made then, the work
/// as a chain of nodes in the order it runs.
pub(crate) fn owned_graph(d: &mut Driver, n: u64) -> Result<u64, Fail> {
    let (g, id) = node_of(d, n)?;
    let node = graph_ref(d, g)?.get(id).map_err(gfail)?;
    if let Some(c) = node.child {
        return Ok(c);
    }
    let Op::Child(ops) = node.op.clone() else {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{n:#x} is not a child graph node"),
        ));
    };
    let c = graph_of_ops(d, ops)?;
    d.graphs.owned.insert(c, n);
    graph_mut(d, g)?.get_mut(id).map_err(gfail)?.child = Some(c);
    Ok(c)
}

/// A new graph running `ops` one after another.
fn graph_of_ops(d: &mut Driver, ops: Vec<Op>) -> Result<u64, Fail> {
    let h = d.handle(Kind::Graph);
    let mut graph = Graph::new();
    let mut prev: Vec<NodeId> = Vec::new();
    let mut nodes = Vec::new();
    for op in ops {
        let handle = d.handle(Kind::GraphNode);
        let id = graph.add(NodeData::new(handle, op), &prev).map_err(gfail)?;
        nodes.push((handle, id));
        prev = vec![id];
    }
    d.graphs.graphs.insert(h, graph);
    for (handle, id) in nodes {
        d.graphs.nodes.insert(handle, (h, id));
    }
    Ok(h)
}

exports! { cuGraphChildGraphNodeGetGraph => fn(n: u64, pg: *mut u64) {
    if pg.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null graph output"));
    }
    let g = with_context(|d| owned_graph(d, n))?;
    unsafe { out(pg, g) }
}}

exports! { cuGraphNodeFindInClone => fn(pn: *mut u64, original: u64, cloned: u64) {
    let h = with_context(|d| {
        let (g, id) = node_of(d, original)?;
        let clone = graph_ref(d, cloned)?;
        match d.graphs.clones.get(&cloned) {
            Some(&(from, bound)) if from == g && id.0 < bound => {}
            Some(_) | None => {
                return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!(
                    "graph {cloned:#x} is not a clone of graph {g:#x} made while it held node {original:#x}")));
            }
        }
        clone.get(id).map(|n| n.handle).map_err(|_| Fail::new(CUDA_ERROR_INVALID_VALUE,
            format!("the clone of node {original:#x} was removed from graph {cloned:#x}")))
    })?;
    unsafe { out(pn, h) }
}}

/// The work of node `n` in instantiated graph `e`, to change.
pub(crate) fn exec_op(d: &mut Driver, e: u64, n: u64) -> Result<&mut Op, Fail> {
    // The node must still be in its graph (cuda.h: "must not have been removed").
    node_of(d, n)?;
    let x = d.graphs.execs.get_mut(&e).ok_or_else(|| {
        Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{e:#x} is not a live CUgraphExec"),
        )
    })?;
    x.ops
        .iter_mut()
        .find(|(h, _)| *h == n)
        .map(|(_, op)| op)
        .ok_or_else(|| {
            Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("{n:#x} is not a node of the graph {e:#x} was instantiated from"),
            )
        })
}

/// Checks that node `n` of instantiated graph `e` can be enabled or disabled.
fn check_can_disable(d: &mut Driver, e: u64, n: u64) -> DrvResult {
    match exec_op(d, e, n)? {
        Op::Kernel { .. } | Op::Copy { .. } | Op::Copy2d(_) | Op::Copy3d(_) | Op::Memset { .. } => {
            Ok(())
        }
        Op::Host { .. }
        | Op::Empty
        | Op::Child(_)
        | Op::EventRecord { .. }
        | Op::EventWait { .. }
        | Op::MemAlloc { .. }
        | Op::MemFree { .. } => Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{n:#x} is not a kernel, memset or memcpy node: only those can be enabled or disabled"),
        )),
    }
}

exports! { cuGraphNodeSetEnabled => fn(e: u64, n: u64, enabled: c_uint) {
    with_context(|d| {
        check_can_disable(d, e, n)?;
        if let Some(x) = d.graphs.execs.get_mut(&e) {
            if enabled != 0 {
                x.disabled.remove(&n);
            } else {
                x.disabled.insert(n);
            }
        }
        Ok(())
    })
}}

exports! { cuGraphNodeGetEnabled => fn(e: u64, n: u64, enabled: *mut c_uint) {
    let v = with_context(|d| {
        check_can_disable(d, e, n)?;
        Ok(d.graphs.execs.get(&e).is_some_and(|x| !x.disabled.contains(&n)))
    })?;
    unsafe { out(enabled, c_uint::from(v)) }
}}

/// The work of node `n` of a graph, to read.
fn node_op(n: u64) -> Result<Op, Fail> {
    with_context(|d| {
        let (g, id) = node_of(d, n)?;
        Ok(graph_ref(d, g)?.get(id).map_err(gfail)?.op.clone())
    })
}

/// Replaces the work of node `n` of a graph with `op`, of the same node type.
pub(crate) fn set_node_op(d: &mut Driver, n: u64, op: Op) -> DrvResult {
    let (g, id) = node_of(d, n)?;
    let node = graph_mut(d, g)?.get_mut(id).map_err(gfail)?;
    if node.op.node_type() != op.node_type() {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!(
                "node {n:#x} is of type {}, the parameters of type {}",
                node.op.node_type(),
                op.node_type()
            ),
        ));
    }
    node.set_op(op);
    Ok(())
}

/// Replaces the work of node `n` in instantiated graph `e` with `op`, by the rules of
/// `cuGraphExecUpdate` (same type; memory types and 2D shapes kept).
pub(crate) fn set_exec_op(d: &mut Driver, e: u64, n: u64, op: Op) -> DrvResult {
    let slot = exec_op(d, e, n)?;
    let new = crate::graph_update::updated(slot, &op)
        .map_err(|(_, why)| Fail::new(CUDA_ERROR_INVALID_VALUE, format!("node {n:#x}: {why}")))?;
    *slot = new;
    Ok(())
}

/// A memcpy node's work as a `CUDA_MEMCPY3D`.
pub(crate) fn memcpy3d_of(op: &Op) -> Option<Memcpy3d> {
    // SAFETY: all-zero bytes are a valid CUDA_MEMCPY3D (integers and null pointers).
    let mut m: Memcpy3d = unsafe { std::mem::zeroed() };
    match op {
        Op::Copy3d(words) => {
            // SAFETY: the words hold a whole CUDA_MEMCPY3D, 8-byte aligned.
            unsafe { std::ptr::copy_nonoverlapping(words.as_ptr().cast::<Memcpy3d>(), &mut m, 1) };
        }
        Op::Copy2d(words) => {
            // SAFETY: the words hold a whole CUDA_MEMCPY2D, 8-byte aligned.
            let c = unsafe { &*words.as_ptr().cast::<crate::texture::Memcpy2d>() };
            m.src_x = c.src_x;
            m.src_y = c.src_y;
            m.src_type = c.src_type;
            m.src_host = c.src_host;
            m.src_device = c.src_device;
            m.src_array = c.src_array;
            m.src_pitch = c.src_pitch;
            m.dst_x = c.dst_x;
            m.dst_y = c.dst_y;
            m.dst_type = c.dst_type;
            m.dst_host = c.dst_host;
            m.dst_device = c.dst_device;
            m.dst_array = c.dst_array;
            m.dst_pitch = c.dst_pitch;
            m.width = c.width;
            m.height = c.height;
            m.depth = 1;
        }
        Op::Copy {
            dst,
            dst_dev,
            src,
            src_dev,
            n,
            ..
        } => {
            // A side not known to be device memory is named by address (unified).
            m.src_type = if *src_dev { MEM_DEVICE } else { MEM_UNIFIED };
            m.src_device = *src;
            m.dst_type = if *dst_dev { MEM_DEVICE } else { MEM_UNIFIED };
            m.dst_device = *dst;
            m.src_pitch = *n;
            m.dst_pitch = *n;
            m.width = *n;
            m.height = 1;
            m.depth = 1;
        }
        Op::Kernel { .. }
        | Op::Memset { .. }
        | Op::Host { .. }
        | Op::Empty
        | Op::Child(_)
        | Op::EventRecord { .. }
        | Op::EventWait { .. }
        | Op::MemAlloc { .. }
        | Op::MemFree { .. } => return None,
    }
    Some(m)
}

/// A memset node's work as a `CUDA_MEMSET_NODE_PARAMS`.
pub(crate) fn memset_params_of(op: &Op) -> Option<MemsetNodeParams> {
    match *op {
        Op::Memset {
            dst,
            pitch,
            value,
            width,
            count,
            rows,
        } => Some(MemsetNodeParams {
            dst,
            pitch,
            value,
            element_size: width as c_uint,
            width: count,
            height: rows,
        }),
        _ => None,
    }
}

/// A host node's work as a `CUDA_HOST_NODE_PARAMS`.
pub(crate) fn host_params_of(op: &Op) -> Option<HostNodeParams> {
    match *op {
        Op::Host { f, data } => Some(HostNodeParams {
            f: Some(f),
            data: data as *mut c_void,
        }),
        _ => None,
    }
}

fn not_a(n: u64, what: &str) -> Fail {
    Fail::new(
        CUDA_ERROR_INVALID_VALUE,
        format!("{n:#x} is not a {what} node"),
    )
}

exports! { cuGraphMemcpyNodeGetParams => fn(n: u64, p: *mut Memcpy3d) {
    if p.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null copy descriptor"));
    }
    let m = memcpy3d_of(&node_op(n)?).ok_or_else(|| not_a(n, "memcpy"))?;
    // SAFETY: a CUDA_MEMCPY3D by the API's contract.
    unsafe { p.write_unaligned(m) };
    Ok(())
}}

exports! { cuGraphMemcpyNodeSetParams => fn(n: u64, p: *const Memcpy3d) {
    let words = unsafe { crate::graph::descriptor_words(p)? };
    with_context(|d| set_node_op(d, n, Op::Copy3d(words)))
}}

exports! { cuGraphMemsetNodeGetParams => fn(n: u64, p: *mut MemsetNodeParams) {
    if p.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null memset node parameters"));
    }
    let m = memset_params_of(&node_op(n)?).ok_or_else(|| not_a(n, "memset"))?;
    // SAFETY: a CUDA_MEMSET_NODE_PARAMS by the API's contract.
    unsafe { p.write_unaligned(m) };
    Ok(())
}}

exports! { cuGraphMemsetNodeSetParams => fn(n: u64, p: *const MemsetNodeParams) {
    let op = unsafe { memset_op(p)? };
    with_context(|d| set_node_op(d, n, op))
}}

exports! { cuGraphHostNodeGetParams => fn(n: u64, p: *mut HostNodeParams) {
    if p.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null host node parameters"));
    }
    let h = host_params_of(&node_op(n)?).ok_or_else(|| not_a(n, "host"))?;
    // SAFETY: a CUDA_HOST_NODE_PARAMS by the API's contract.
    unsafe { p.write_unaligned(h) };
    Ok(())
}}

exports! { cuGraphHostNodeSetParams => fn(n: u64, p: *const HostNodeParams) {
    let op = unsafe { host_op(p)? };
    with_context(|d| set_node_op(d, n, op))
}}

/// Checks that a copy of node `n` of an instantiated graph is one-dimensional and not
/// empty, as cuda.h requires of both the instantiated and the new parameters.
fn check_copy_1d(m: &Memcpy3d, n: u64) -> DrvResult {
    if m.height > 1 || m.depth > 1 {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("node {n:#x}: only one-dimensional copies can change in an instantiated graph"),
        ));
    }
    if m.width == 0 {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("node {n:#x}: a copy of 0 bytes cannot be set in an instantiated graph"),
        ));
    }
    Ok(())
}

exports! { cuGraphExecMemcpyNodeSetParams => fn(e: u64, n: u64, p: *const Memcpy3d, _ctx: u64) {
    unsafe { exec_memcpy(e, n, p) }
}}

/// Node `n` of instantiated graph `e` copies as `p` describes from now on: both copies
/// one-dimensional, the memory types kept.
///
/// # Safety
/// `p` is null or a `CUDA_MEMCPY3D`.
pub(crate) unsafe fn exec_memcpy(e: u64, n: u64, p: *const Memcpy3d) -> DrvResult {
    let words = unsafe { crate::graph::descriptor_words(p)? };
    let op = Op::Copy3d(words);
    let new = memcpy3d_of(&op).ok_or_else(|| not_a(n, "memcpy"))?;
    check_copy_1d(&new, n)?;
    with_context(|d| {
        let slot = exec_op(d, e, n)?;
        let old = memcpy3d_of(slot).ok_or_else(|| not_a(n, "memcpy"))?;
        check_copy_1d(&old, n)?;
        // A side the node names by address (unified) may be either memory type.
        let same = |a: c_uint, b: c_uint| a == b || a == MEM_UNIFIED;
        if !same(old.src_type, new.src_type) || !same(old.dst_type, new.dst_type) {
            return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!(
                "node {n:#x}: a memcpy node's source or destination memory type cannot change in an instantiated graph")));
        }
        *slot = op;
        Ok(())
    })
}

exports! { cuGraphExecMemsetNodeSetParams => fn(e: u64, n: u64, p: *const MemsetNodeParams, _ctx: u64) {
    unsafe { exec_memset(e, n, p) }
}}

/// Node `n` of instantiated graph `e` sets memory as `p` describes from now on: not empty,
/// and a 2D memset (or a change of height) may change only its address and value.
///
/// # Safety
/// `p` is null or a `CUDA_MEMSET_NODE_PARAMS`.
pub(crate) unsafe fn exec_memset(e: u64, n: u64, p: *const MemsetNodeParams) -> DrvResult {
    let op = unsafe { memset_op(p)? };
    if matches!(op, Op::Memset { count: 0, .. }) {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("node {n:#x}: a memset of 0 elements cannot be set in an instantiated graph"),
        ));
    }
    with_context(|d| set_exec_op(d, e, n, op))
}

exports! { cuGraphExecHostNodeSetParams => fn(e: u64, n: u64, p: *const HostNodeParams) {
    let op = unsafe { host_op(p)? };
    with_context(|d| set_exec_op(d, e, n, op))
}}

exports! { cuGraphExecChildGraphNodeSetParams => fn(e: u64, n: u64, child: u64) {
    with_context(|d| {
        let op = Op::Child(crate::graph_nodes::child_ops(d, child)?);
        set_exec_op(d, e, n, op)
    })
}}

/// The event-record (`record`) or event-wait node work for event `e`, a live event.
fn event_op(d: &Driver, e: u64, record: bool) -> Result<Op, Fail> {
    crate::stream::check_event(d, e)?;
    Ok(if record {
        Op::EventRecord { e }
    } else {
        Op::EventWait { e }
    })
}

exports! { cuGraphEventRecordNodeSetEvent => fn(n: u64, e: u64) {
    with_context(|d| {
        let op = event_op(d, e, true)?;
        set_node_op(d, n, op)
    })
}}

exports! { cuGraphEventWaitNodeSetEvent => fn(n: u64, e: u64) {
    with_context(|d| {
        let op = event_op(d, e, false)?;
        set_node_op(d, n, op)
    })
}}

exports! { cuGraphExecEventRecordNodeSetEvent => fn(x: u64, n: u64, e: u64) {
    with_context(|d| {
        let op = event_op(d, e, true)?;
        set_exec_op(d, x, n, op)
    })
}}

exports! { cuGraphExecEventWaitNodeSetEvent => fn(x: u64, n: u64, e: u64) {
    with_context(|d| {
        let op = event_op(d, e, false)?;
        set_exec_op(d, x, n, op)
    })
}}
