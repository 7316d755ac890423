//! Graphs built node by node, instantiated and launched (CUDA driver API: Graph
//! Management). The model is in [`crate::graph`].

use crate::errors::*;
use crate::graph::{descriptor_words, enqueue, ExecState, NodeData, Op};
use crate::state::{with_context, Driver, Kind};
use crate::{exports, out, DrvResult, Fail};
use ptxjit::host::graph::{Graph, NodeId};
use ptxjit::host::LaunchDims;
use std::ffi::{c_uint, c_void};

/// `CUDA_KERNEL_NODE_PARAMS_v2` (v1 is its prefix without `kern` and `ctx`).
#[repr(C)]
pub struct KernelNodeParams {
    pub func: u64,
    pub grid: [c_uint; 3],
    pub block: [c_uint; 3],
    pub shared_mem_bytes: c_uint,
    pub kernel_params: *mut *mut c_void,
    pub extra: *mut *mut c_void,
    /// A `CUkernel`, used when `func` is null (kernels and functions share handles here).
    pub kern: u64,
    pub ctx: u64,
}

/// `CUDA_MEMSET_NODE_PARAMS`.
#[repr(C)]
pub struct MemsetNodeParams {
    pub dst: u64,
    pub pitch: usize,
    pub value: c_uint,
    pub element_size: c_uint,
    pub width: usize,
    pub height: usize,
}

/// `CUDA_HOST_NODE_PARAMS`.
#[repr(C)]
pub struct HostNodeParams {
    pub f: Option<crate::graph::HostFnPtr>,
    pub data: *mut c_void,
}

fn no_graph(g: u64) -> Fail {
    Fail::new(
        CUDA_ERROR_INVALID_VALUE,
        format!("{g:#x} is not a live CUgraph"),
    )
}

pub(crate) fn graph_ref(d: &Driver, g: u64) -> Result<&Graph<NodeData>, Fail> {
    d.graphs.graphs.get(&g).ok_or_else(|| no_graph(g))
}

pub(crate) fn graph_mut(d: &mut Driver, g: u64) -> Result<&mut Graph<NodeData>, Fail> {
    d.graphs.graphs.get_mut(&g).ok_or_else(|| no_graph(g))
}

pub(crate) fn node_of(d: &Driver, n: u64) -> Result<(u64, NodeId), Fail> {
    d.graphs.nodes.get(&n).copied().ok_or_else(|| {
        Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{n:#x} is not a live CUgraphNode"),
        )
    })
}

pub(crate) fn gfail(e: ptxjit::host::graph::GraphError) -> Fail {
    Fail::new(CUDA_ERROR_INVALID_VALUE, e.to_string())
}

/// The nodes of graph `g` named by the `n` handles at `deps`.
///
/// # Safety
/// `deps` is null (then `n` must be 0) or holds `n` handles.
pub(crate) unsafe fn dep_ids(
    d: &Driver,
    g: u64,
    deps: *const u64,
    n: usize,
) -> Result<Vec<NodeId>, Fail> {
    if n > 0 && deps.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null dependency array"));
    }
    (0..n)
        .map(|i| {
            // SAFETY: `n` handles.
            let h = unsafe { deps.add(i).read_unaligned() };
            match node_of(d, h)? {
                (owner, id) if owner == g => Ok(id),
                _ => Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("node {h:#x} is in another graph"),
                )),
            }
        })
        .collect()
}

/// Adds a node to graph `g` and writes its handle to `pn`.
///
/// # Safety
/// As [`dep_ids`]; `pn` is null or writable.
pub(crate) unsafe fn add(
    pn: *mut u64,
    g: u64,
    deps: *const u64,
    n: usize,
    op: impl FnOnce(&mut Driver) -> Result<Op, Fail>,
) -> DrvResult {
    if pn.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null node output"));
    }
    let h = with_context(|d| {
        graph_ref(d, g)?;
        let ids = unsafe { dep_ids(d, g, deps, n)? };
        let op = op(d)?;
        let handle = d.handle(Kind::GraphNode);
        d.graphs.mem.retain([&op]);
        let data = NodeData::new(handle, op);
        let id = graph_mut(d, g)?.add(data, &ids).map_err(gfail)?;
        d.graphs.nodes.insert(handle, (g, id));
        Ok(handle)
    })?;
    unsafe { out(pn, h) }
}

/// The kernel launch a `CUDA_KERNEL_NODE_PARAMS` describes, parameters copied.
///
/// # Safety
/// `p` is null or a descriptor whose arrays follow the launch API's contract; `v2` says
/// whether it has the `kern` member.
pub(crate) unsafe fn kernel_op(
    d: &Driver,
    p: *const KernelNodeParams,
    v2: bool,
) -> Result<Op, Fail> {
    if p.is_null() {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            "null kernel node parameters",
        ));
    }
    // SAFETY: a descriptor by the API's contract (v1 callers' is never read past `extra`).
    let k = unsafe { &*p };
    let f = if k.func == 0 && v2 { k.kern } else { k.func };
    let params = unsafe { crate::launch::param_buffer(d, f, k.kernel_params, k.extra)? };
    Ok(Op::Kernel {
        f,
        dims: LaunchDims {
            grid: k.grid,
            block: k.block,
            shared_bytes: k.shared_mem_bytes,
        },
        params,
        cooperative: false,
        cluster: None,
    })
}

exports! { cuGraphCreate => fn(pg: *mut u64, flags: c_uint) {
    if flags != 0 {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "flags must be 0"));
    }
    let g = with_context(|d| {
        let g = d.handle(Kind::Graph);
        d.graphs.graphs.insert(g, Graph::new());
        Ok(g)
    })?;
    unsafe { out(pg, g) }
}}

exports! { cuGraphAddKernelNode_v2 => fn(pn: *mut u64, g: u64, deps: *const u64, n: usize, p: *const KernelNodeParams) {
    unsafe { add(pn, g, deps, n, |d| kernel_op(d, p, true)) }
}}

exports! { cuGraphAddMemcpyNode => fn(pn: *mut u64, g: u64, deps: *const u64, n: usize, p: *const crate::texture::Memcpy3d, _ctx: u64) {
    let words = unsafe { descriptor_words(p)? };
    unsafe { add(pn, g, deps, n, |_| Ok(Op::Copy3d(words))) }
}}

/// The memset a `CUDA_MEMSET_NODE_PARAMS` describes.
///
/// # Safety
/// `p` is null or points to a `CUDA_MEMSET_NODE_PARAMS`.
pub(crate) unsafe fn memset_op(p: *const MemsetNodeParams) -> Result<Op, Fail> {
    if p.is_null() {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            "null memset node parameters",
        ));
    }
    // SAFETY: a descriptor by the API's contract.
    let m = unsafe { &*p };
    if !matches!(m.element_size, 1 | 2 | 4) {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("element size {} is not 1, 2 or 4", m.element_size),
        ));
    }
    crate::memory::check_memset_pitch(m.pitch, m.element_size as usize, m.width, m.height.max(1))?;
    Ok(Op::Memset {
        dst: m.dst,
        pitch: m.pitch,
        value: m.value,
        width: m.element_size as usize,
        count: m.width,
        rows: m.height.max(1),
    })
}

/// The host function a `CUDA_HOST_NODE_PARAMS` (or the `fn` and `userData` prefix of its
/// v2) describes.
///
/// # Safety
/// `p` is null or points to a `CUDA_HOST_NODE_PARAMS`.
pub(crate) unsafe fn host_op(p: *const HostNodeParams) -> Result<Op, Fail> {
    if p.is_null() {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            "null host node parameters",
        ));
    }
    // SAFETY: a descriptor by the API's contract.
    let h = unsafe { &*p };
    let Some(f) = h.f else {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null host function"));
    };
    Ok(Op::Host {
        f,
        data: h.data as usize,
    })
}

exports! { cuGraphAddMemsetNode => fn(pn: *mut u64, g: u64, deps: *const u64, n: usize, p: *const MemsetNodeParams, _ctx: u64) {
    let op = unsafe { memset_op(p)? };
    unsafe { add(pn, g, deps, n, |_| Ok(op)) }
}}

exports! { cuGraphAddHostNode => fn(pn: *mut u64, g: u64, deps: *const u64, n: usize, p: *const HostNodeParams) {
    let op = unsafe { host_op(p)? };
    unsafe { add(pn, g, deps, n, |_| Ok(op)) }
}}

exports! { cuGraphAddEmptyNode => fn(pn: *mut u64, g: u64, deps: *const u64, n: usize) {
    unsafe { add(pn, g, deps, n, |_| Ok(Op::Empty)) }
}}

/// Adds `n` edges `from[i] -> to[i]` to graph `g`.
///
/// # Safety
/// `from` and `to` hold `n` handles each.
unsafe fn add_edges(g: u64, from: *const u64, to: *const u64, n: usize) -> DrvResult {
    with_context(|d| {
        let a = unsafe { dep_ids(d, g, from, n)? };
        let b = unsafe { dep_ids(d, g, to, n)? };
        let graph = graph_mut(d, g)?;
        for (x, y) in a.into_iter().zip(b) {
            graph.add_edge(x, y).map_err(gfail)?;
        }
        Ok(())
    })
}

exports! { cuGraphAddDependencies => fn(g: u64, from: *const u64, to: *const u64, n: usize) {
    unsafe { add_edges(g, from, to, n) }
}}

exports! { cuGraphAddDependencies_v2 => fn(g: u64, from: *const u64, to: *const u64, edge_data: *const c_void, n: usize) {
    // Edge data (programmatic dependent launch ports) is only meaningful with its default
    // value, all zeros, which a null array also means.
    let _ = edge_data;
    unsafe { add_edges(g, from, to, n) }
}}

exports! { cuGraphGetNodes => fn(g: u64, nodes: *mut u64, count: *mut usize) {
    if count.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null count"));
    }
    let handles: Vec<u64> = with_context(|d| {
        let graph = graph_ref(d, g)?;
        Ok(graph.ids().into_iter().filter_map(|n| graph.get(n).ok().map(|x| x.handle)).collect())
    })?;
    // SAFETY: non-null, by the API's contract a size_t.
    let room = unsafe { count.read_unaligned() };
    if !nodes.is_null() {
        for i in 0..room {
            // SAFETY: `room` slots by the API's contract; the ones past the nodes get null.
            unsafe { nodes.add(i).write_unaligned(handles.get(i).copied().unwrap_or(0)) };
        }
        return unsafe { out(count, handles.len().min(room)) };
    }
    unsafe { out(count, handles.len()) }
}}

/// The edges of graph `g` as `(from, to)` node handles: for each node in the order it was
/// added, its dependencies in the order they were added.
pub(crate) fn edges(d: &Driver, g: u64) -> Result<Vec<(u64, u64)>, Fail> {
    let graph = graph_ref(d, g)?;
    let handle = |id| graph.get(id).map(|x| x.handle).map_err(gfail);
    let mut out = Vec::new();
    for to in graph.ids() {
        for from in graph.deps(to).map_err(gfail)? {
            out.push((handle(from)?, handle(to)?));
        }
    }
    Ok(out)
}

/// `CUgraphEdgeData`: ports and type, one byte each, and 5 reserved bytes. Every edge here
/// has the default data, all zeros.
const EDGE_DATA_BYTES: usize = 8;

/// `cuGraphGetEdges(_v2)`: with `from` and `to` both null, the number of edges in `*count`;
/// else up to `*count` edges (`to[i]` depends on `from[i]`, `edge_data[i]` zeros where
/// given), slots past the last edge set to null, and `*count` the number written.
///
/// # Safety
/// Non-null arrays hold `*count` entries (the API's contract).
unsafe fn get_edges(
    g: u64,
    from: *mut u64,
    to: *mut u64,
    edge_data: *mut u8,
    count: *mut usize,
) -> DrvResult {
    if count.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null numEdges"));
    }
    if from.is_null() != to.is_null() || (!edge_data.is_null() && from.is_null()) {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            "from and to must both be null (to count the edges) or both be arrays, \
             and edgeData needs both",
        ));
    }
    let all = with_context(|d| edges(d, g))?;
    if from.is_null() {
        return unsafe { out(count, all.len()) };
    }
    // SAFETY: non-null, by the API's contract a size_t.
    let room = unsafe { count.read_unaligned() };
    for i in 0..room {
        let (a, b) = all.get(i).copied().unwrap_or((0, 0));
        // SAFETY: `room` slots in each array by the API's contract.
        unsafe {
            from.add(i).write_unaligned(a);
            to.add(i).write_unaligned(b);
            if !edge_data.is_null() {
                std::ptr::write_bytes(edge_data.add(i * EDGE_DATA_BYTES), 0, EDGE_DATA_BYTES);
            }
        }
    }
    unsafe { out(count, all.len().min(room)) }
}

exports! { cuGraphGetEdges => fn(g: u64, from: *mut u64, to: *mut u64, count: *mut usize) {
    unsafe { get_edges(g, from, to, std::ptr::null_mut(), count) }
}}

exports! { cuGraphGetEdges_v2 => fn(g: u64, from: *mut u64, to: *mut u64, edge_data: *mut c_void, count: *mut usize) {
    unsafe { get_edges(g, from, to, edge_data.cast(), count) }
}}

exports! { cuGraphNodeGetType => fn(n: u64, ty: *mut c_uint) {
    let t = with_context(|d| {
        let (g, id) = node_of(d, n)?;
        Ok(graph_ref(d, g)?.get(id).map_err(gfail)?.op.node_type())
    })?;
    unsafe { out(ty, t) }
}}

exports! { cuGraphDestroyNode => fn(n: u64) {
    with_context(|d| {
        let (g, id) = node_of(d, n)?;
        let data = graph_mut(d, g)?.remove(id).map_err(gfail)?;
        d.graphs.nodes.remove(&n);
        crate::graph::release_graph_mem(d, &[&data.op]);
        if let Some(c) = data.child {
            crate::graph::destroy_graph(d, c);
        }
        Ok(())
    })
}}

exports! { cuGraphDestroy => fn(g: u64) {
    let mut pending = Vec::new();
    with_context(|d| {
        graph_ref(d, g)?;
        if let Some(node) = d.graphs.owned.get(&g) {
            return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("graph {g:#x} belongs to child graph node {node:#x}: it goes with the node")));
        }
        crate::graph::destroy_graph(d, g);
        crate::user_object::release_all(d, g, &mut pending)
    })?;
    crate::user_object::run_pending(pending);
    Ok(())
}}

/// A copy of graph `g` with new node handles (the graphs its child-graph nodes own copied
/// too), recorded as a clone of `g` for `cuGraphNodeFindInClone`.
pub(crate) fn clone_graph(d: &mut Driver, g: u64) -> Result<u64, Fail> {
    let mut copy = graph_ref(d, g)?.clone();
    let ids = copy.ids();
    let bound = ids.last().map_or(0, |n| n.0 + 1);
    let h = d.handle(Kind::Graph);
    for id in ids {
        let handle = d.handle(Kind::GraphNode);
        let child = copy.get(id).map_err(gfail)?.child;
        let child = match child {
            Some(c) => {
                let c = clone_graph(d, c)?;
                d.graphs.clones.remove(&c);
                d.graphs.owned.insert(c, handle);
                Some(c)
            }
            None => None,
        };
        let node = copy.get_mut(id).map_err(gfail)?;
        node.set_handle(handle);
        node.child = child;
        d.graphs.mem.retain([&node.op]);
        d.graphs.nodes.insert(handle, (h, id));
    }
    d.graphs.graphs.insert(h, copy);
    d.graphs.clones.insert(h, (g, bound));
    Ok(h)
}

exports! { cuGraphClone => fn(pg: *mut u64, g: u64) {
    if pg.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null graph output"));
    }
    let h = with_context(|d| {
        let h = clone_graph(d, g)?;
        crate::user_object::copy_refs(d, g, h);
        Ok(h)
    })?;
    unsafe { out(pg, h) }
}}

fn instantiate(pe: *mut u64, g: u64) -> DrvResult {
    let h = with_context(|d| {
        let graph = graph_ref(d, g)?;
        let order = graph.topological_order().map_err(gfail)?;
        let mut ops = Vec::with_capacity(order.len());
        for id in order {
            let n = graph.get(id).map_err(gfail)?;
            ops.push((n.handle, node_work(d, n)?));
        }
        let shape = crate::graph_update::shape(graph).map_err(gfail)?;
        let h = d.handle(Kind::GraphExec);
        d.graphs.mem.retain(ops.iter().map(|(_, op)| op));
        d.graphs.execs.insert(
            h,
            ExecState {
                ops,
                shape,
                disabled: Default::default(),
            },
        );
        crate::user_object::copy_refs(d, g, h);
        Ok(h)
    })?;
    unsafe { out(pe, h) }
}

/// `CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH`.
const FLAG_DEVICE_LAUNCH: u64 = 4;
/// Every `CUgraphInstantiate_flags` bit: auto-free on launch (1), upload (2), device launch
/// (4), node priority (8).
const FLAGS_KNOWN: u64 = 0xf;

/// Checks instantiation flags. Auto-free on launch, upload and node priority change nothing
/// for a graph whose work runs when launched; a graph for device launch is refused with
/// `CUDA_ERROR_NOT_SUPPORTED` (no device runtime launches graphs, and its kernels would read
/// `%current_graph_exec` as 0 where a GPU gives the graph); unknown bits are
/// `CUDA_ERROR_INVALID_VALUE`.
fn check_instantiate_flags(flags: u64) -> Result<(), Fail> {
    if flags & !FLAGS_KNOWN != 0 {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("unknown graph instantiation flags {flags:#x}"),
        ));
    }
    if flags & FLAG_DEVICE_LAUNCH != 0 {
        return Err(Fail::new(
            CUDA_ERROR_NOT_SUPPORTED,
            "CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH: ptxjit has no device graph launch",
        ));
    }
    Ok(())
}

exports! { cuGraphInstantiateWithFlags => fn(pe: *mut u64, g: u64, flags: u64) {
    check_instantiate_flags(flags)?;
    instantiate(pe, g)
}}

/// `CUDA_GRAPH_INSTANTIATE_PARAMS`.
#[repr(C)]
pub struct InstantiateParams {
    pub flags: u64,
    pub upload_stream: u64,
    pub err_node_out: u64,
    pub result_out: c_uint,
}

exports! { cuGraphInstantiateWithParams, cuGraphInstantiateWithParams_ptsz => fn(pe: *mut u64, g: u64, p: *mut InstantiateParams) {
    if p.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null instantiate parameters"));
    }
    // SAFETY: a descriptor by the API's contract.
    let flags = unsafe { (*p).flags };
    if let Err(e) = check_instantiate_flags(flags) {
        // SAFETY: as above. CUDA_GRAPH_INSTANTIATE_ERROR: described by the return value.
        unsafe {
            (*p).err_node_out = 0;
            (*p).result_out = 1;
        }
        return Err(e);
    }
    instantiate(pe, g)?;
    // SAFETY: a descriptor by the API's contract. CUDA_GRAPH_INSTANTIATE_SUCCESS.
    unsafe {
        (*p).err_node_out = 0;
        (*p).result_out = 0;
    }
    Ok(())
}}

exports! { cuGraphLaunch, cuGraphLaunch_ptsz => fn(e: u64, s: u64) {
    let ops: Vec<Op> = with_context(|d| {
        d.check_stream(s)?;
        let x = d.graphs.execs.get(&e).ok_or_else(|| Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{e:#x} is not a live CUgraphExec")))?;
        // A disabled node runs as an empty node: nothing.
        Ok(x.ops.iter().filter(|(n, _)| !x.disabled.contains(n)).map(|(_, op)| op.clone()).collect())
    })?;
    for op in ops {
        enqueue(s, op)?;
    }
    Ok(())
}}

exports! { cuGraphUpload, cuGraphUpload_ptsz => fn(e: u64, s: u64) {
    with_context(|d| {
        d.check_stream(s)?;
        if d.graphs.execs.contains_key(&e) { Ok(()) } else { Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{e:#x} is not a live CUgraphExec"))) }
    })
}}

exports! { cuGraphExecDestroy => fn(e: u64) {
    let mut pending = Vec::new();
    with_context(|d| match d.graphs.execs.remove(&e) {
        Some(x) => {
            crate::graph::release_graph_mem(d, &x.ops.iter().map(|(_, op)| op).collect::<Vec<_>>());
            crate::user_object::release_all(d, e, &mut pending)
        }
        None => Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{e:#x} is not a live CUgraphExec"))),
    })?;
    crate::user_object::run_pending(pending);
    Ok(())
}}

exports! { cuGraphExecKernelNodeSetParams_v2 => fn(e: u64, n: u64, p: *const KernelNodeParams) {
    with_context(|d| {
        let op = unsafe { kernel_op(d, p, true)? };
        let x = d.graphs.execs.get_mut(&e).ok_or_else(|| Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{e:#x} is not a live CUgraphExec")))?;
        let slot = x.ops.iter_mut().find(|(h, _)| *h == n).ok_or_else(|| Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{n:#x} is not a node of the graph this CUgraphExec was instantiated from")))?;
        if !matches!(slot.1, Op::Kernel { .. }) {
            return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{n:#x} is not a kernel node")));
        }
        slot.1 = op;
        Ok(())
    })
}}

exports! { cuGraphKernelNodeSetParams_v2 => fn(n: u64, p: *const KernelNodeParams) {
    with_context(|d| {
        let op = unsafe { kernel_op(d, p, true)? };
        let (g, id) = node_of(d, n)?;
        let node = graph_mut(d, g)?.get_mut(id).map_err(gfail)?;
        if !matches!(node.op, Op::Kernel { .. }) {
            return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{n:#x} is not a kernel node")));
        }
        node.set_op(op);
        Ok(())
    })
}}

exports! { cuGraphKernelNodeGetParams_v2 => fn(n: u64, p: *mut KernelNodeParams) {
    if p.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null kernel node parameters"));
    }
    let v = with_context(|d| kernel_node_params(d, n))?;
    // SAFETY: a descriptor by the API's contract.
    unsafe { p.write_unaligned(v) };
    Ok(())
}}

/// Kernel node `n`'s launch as a `CUDA_KERNEL_NODE_PARAMS_v2` whose `kernelParams` point
/// into the node's copy of the parameters (valid until the node changes).
pub(crate) fn kernel_node_params(d: &mut Driver, n: u64) -> Result<KernelNodeParams, Fail> {
    {
        let (g, id) = node_of(d, n)?;
        let offsets: Vec<usize> = {
            let node = graph_ref(d, g)?.get(id).map_err(gfail)?;
            let Op::Kernel { f, .. } = &node.op else {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("{n:#x} is not a kernel node"),
                ));
            };
            d.function(*f)?
                .kernel
                .compiled
                .params
                .iter()
                .map(|p| p.offset as usize)
                .collect()
        };
        let node = graph_mut(d, g)?.get_mut(id).map_err(gfail)?;
        Ok(node.kernel_params(&offsets))
    }
}

/// `CUDA_MEM_ALLOC_NODE_PARAMS` (v1).
#[repr(C)]
pub struct MemAllocNodeParams {
    pub pool_props: crate::pool::CUmemPoolProps,
    pub access_descs: *const c_void,
    pub access_desc_count: usize,
    pub bytesize: usize,
    /// Out: the allocation's address.
    pub dptr: u64,
}

/// Errors when graph `g` belongs to a child-graph node, which may not hold memory nodes.
fn not_owned(d: &Driver, g: u64) -> DrvResult {
    match d.graphs.owned.get(&g) {
        Some(node) => Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("graph {g:#x} belongs to child graph node {node:#x}, which may not hold memory allocation or free nodes"),
        )),
        None => Ok(()),
    }
}

exports! { cuGraphAddMemAllocNode => fn(pn: *mut u64, g: u64, deps: *const u64, n: usize, p: *mut MemAllocNodeParams) {
    unsafe { add_mem_alloc(pn, g, deps, n, p) }
}}

/// Adds a memory-allocation node and writes the allocation's address to `p.dptr`.
///
/// # Safety
/// As [`add`]; `p` is null or a `CUDA_MEM_ALLOC_NODE_PARAMS`.
pub(crate) unsafe fn add_mem_alloc(
    pn: *mut u64,
    g: u64,
    deps: *const u64,
    n: usize,
    p: *mut MemAllocNodeParams,
) -> DrvResult {
    if p.is_null() {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            "null memory allocation node parameters",
        ));
    }
    // SAFETY: a descriptor by the API's contract.
    let (bytes, props) = unsafe { ((*p).bytesize, &(*p).pool_props) };
    // CU_MEM_ALLOCATION_TYPE_PINNED on CU_MEM_LOCATION_TYPE_DEVICE 0: the one memory there is.
    if props.alloc_type != 1 || props.location != [1, 0] {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!(
            "allocation type {} at location ({}, {}): only pinned device memory of device 0 can be allocated",
            props.alloc_type, props.location[0], props.location[1])));
    }
    let mut ptr = 0;
    unsafe {
        add(pn, g, deps, n, |d| {
            not_owned(d, g)?;
            let op = crate::graph::alloc_graph_mem(d, bytes, "cuGraphAddMemAllocNode")?;
            if let Op::MemAlloc { ptr: q, .. } = op {
                ptr = q;
            }
            Ok(op)
        })?;
        (*p).dptr = ptr;
    }
    Ok(())
}

exports! { cuGraphAddMemFreeNode => fn(pn: *mut u64, g: u64, deps: *const u64, n: usize, ptr: u64) {
    unsafe { add_mem_free(pn, g, deps, n, ptr) }
}}

/// Adds a memory-free node for graph allocation `ptr`.
///
/// # Safety
/// As [`add`].
pub(crate) unsafe fn add_mem_free(
    pn: *mut u64,
    g: u64,
    deps: *const u64,
    n: usize,
    ptr: u64,
) -> DrvResult {
    unsafe {
        add(pn, g, deps, n, |d| {
            not_owned(d, g)?;
            if d.graphs.mem.holds(ptr) {
                Ok(Op::MemFree { ptr })
            } else {
                Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("{ptr:#x} is not memory a graph allocated"),
                ))
            }
        })
    }
}

exports! { cuGraphMemAllocNodeGetParams => fn(node: u64, p: *mut MemAllocNodeParams) {
    if p.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null memory allocation node parameters"));
    }
    let (ptr, bytes) = with_context(|d| {
        let (g, id) = node_of(d, node)?;
        match graph_ref(d, g)?.get(id).map_err(gfail)?.op {
            Op::MemAlloc { ptr, bytes } => Ok((ptr, bytes)),
            _ => Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{node:#x} is not a memory allocation node"))),
        }
    })?;
    // SAFETY: a descriptor by the API's contract.
    unsafe {
        std::ptr::write_bytes(p, 0, 1);
        (*p).pool_props.alloc_type = 1;
        (*p).pool_props.location = [1, 0];
        (*p).bytesize = bytes;
        (*p).dptr = ptr;
    }
    Ok(())
}}

exports! { cuGraphMemFreeNodeGetParams => fn(node: u64, p: *mut u64) {
    let ptr = with_context(|d| {
        let (g, id) = node_of(d, node)?;
        match graph_ref(d, g)?.get(id).map_err(gfail)?.op {
            Op::MemFree { ptr } => Ok(ptr),
            _ => Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{node:#x} is not a memory free node"))),
        }
    })?;
    unsafe { out(p, ptr) }
}}

/// The event a node of `node` records or waits for (`record` says which kind).
fn node_event(node: u64, record: bool) -> Result<u64, Fail> {
    with_context(|d| {
        let (g, id) = node_of(d, node)?;
        match (graph_ref(d, g)?.get(id).map_err(gfail)?.op.clone(), record) {
            (Op::EventRecord { e }, true) | (Op::EventWait { e }, false) => Ok(e),
            _ => Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                format!(
                    "{node:#x} is not an event {} node",
                    if record { "record" } else { "wait" }
                ),
            )),
        }
    })
}

exports! { cuGraphAddEventRecordNode => fn(pn: *mut u64, g: u64, deps: *const u64, n: usize, e: u64) {
    unsafe { add(pn, g, deps, n, |d| { crate::stream::check_event(d, e)?; Ok(Op::EventRecord { e }) }) }
}}

exports! { cuGraphAddEventWaitNode => fn(pn: *mut u64, g: u64, deps: *const u64, n: usize, e: u64) {
    unsafe { add(pn, g, deps, n, |d| { crate::stream::check_event(d, e)?; Ok(Op::EventWait { e }) }) }
}}

exports! { cuGraphEventRecordNodeGetEvent => fn(node: u64, pe: *mut u64) {
    let e = node_event(node, true)?;
    unsafe { out(pe, e) }
}}

exports! { cuGraphEventWaitNodeGetEvent => fn(node: u64, pe: *mut u64) {
    let e = node_event(node, false)?;
    unsafe { out(pe, e) }
}}

/// The work node `n` does when its graph is instantiated: a child-graph node's is its
/// owned graph's work as that graph stands now.
pub(crate) fn node_work(d: &Driver, n: &NodeData) -> Result<Op, Fail> {
    match n.child {
        Some(c) => Ok(Op::Child(child_ops(d, c)?)),
        None => Ok(n.op.clone()),
    }
}

/// The work of graph `child` in a topological order, for a child-graph node. CUDA forbids
/// memory nodes in a child graph.
pub fn child_ops(d: &Driver, child: u64) -> Result<Vec<Op>, Fail> {
    let graph = graph_ref(d, child)?;
    let mut ops = Vec::new();
    for id in graph.topological_order().map_err(gfail)? {
        let op = node_work(d, graph.get(id).map_err(gfail)?)?;
        if matches!(op, Op::MemAlloc { .. } | Op::MemFree { .. }) {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                "a child graph may not hold memory allocation or free nodes",
            ));
        }
        ops.push(op);
    }
    Ok(ops)
}

/// Adds to graph `g` a child-graph node that owns a copy of graph `child`.
///
/// # Safety
/// As [`add`].
pub(crate) unsafe fn add_child(
    pn: *mut u64,
    g: u64,
    deps: *const u64,
    n: usize,
    child: u64,
) -> DrvResult {
    if child == g {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            "a graph cannot be its own child",
        ));
    }
    if pn.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null node output"));
    }
    let h = with_context(|d| {
        graph_ref(d, g)?;
        let ids = unsafe { dep_ids(d, g, deps, n)? };
        let ops = child_ops(d, child)?;
        let owned = clone_graph(d, child)?;
        d.graphs.clones.remove(&owned);
        let handle = d.handle(Kind::GraphNode);
        let mut data = NodeData::new(handle, Op::Child(ops));
        data.child = Some(owned);
        let id = graph_mut(d, g)?.add(data, &ids).map_err(gfail)?;
        d.graphs.nodes.insert(handle, (g, id));
        d.graphs.owned.insert(owned, handle);
        Ok(handle)
    })?;
    unsafe { out(pn, h) }
}

exports! { cuGraphAddChildGraphNode => fn(pn: *mut u64, g: u64, deps: *const u64, n: usize, child: u64) {
    unsafe { add_child(pn, g, deps, n, child) }
}}
