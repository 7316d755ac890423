//! Stream capture and CUDA graphs (CUDA driver API: Stream Management, Graph Management).
//!
//! # Model
//! - Work enqueued on a stream is an [`Op`]. A stream that is not capturing runs it at once
//!   (work runs when enqueued); a capturing stream appends it to its capture's graph as a
//!   node that depends on the stream's *frontier* (the nodes last added on that stream), which
//!   then becomes that node alone. Kernel parameters are copied when the node is made.
//! - Other streams join a capture through events: recording an event on a capturing stream
//!   marks it with the stream's frontier (no node); a stream that waits on a marked event
//!   joins the capture (or, if it already captures into the same graph, adds the event's
//!   nodes to its frontier). `cuStreamEndCapture` on the stream that began the capture ends
//!   it for every joined stream; a joined stream whose last work does not lead into the origin
//!   stream's frontier is `CUDA_ERROR_STREAM_CAPTURE_UNJOINED`.
//! - Everything else a program enqueues becomes a node too: `cuMemAllocAsync`/`cuMemFreeAsync`
//!   memory-allocation and memory-free nodes (the memory is reserved when captured, at the
//!   address the program gets, and kept while a graph holds the node: [`GraphMem`]), host
//!   functions, and event record/wait nodes for `CU_EVENT_RECORD_EXTERNAL` /
//!   `CU_EVENT_WAIT_EXTERNAL`. `cuStreamAddCallback` is refused during capture, as CUDA does.
//! - Calls CUDA forbids during capture: beginning a capture on the legacy default stream,
//!   synchronizing or querying a capturing stream (`CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`,
//!   and the capture is invalidated: `cuStreamEndCapture` then answers
//!   `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED`), and "potentially unsafe" calls (synchronous
//!   copies and memsets, `cuMemAlloc`, `cuCtxSynchronize`) while a capture is in a mode that
//!   prohibits them for this thread ([`check_unsafe_call`]; the same error and invalidation).
//! - A graph ([`ptxjit::host::graph::Graph`]) holds [`NodeData`]; `cuGraphInstantiate` takes
//!   a topological order of its nodes, and `cuGraphLaunch` enqueues them in that order on the
//!   stream (so launching into a capturing stream records them there).

use crate::errors::*;
use crate::state::{with_context, Driver, Kind};
use crate::{exports, out, DrvResult, Fail};
use ptxjit::host::graph::{Graph, GraphError, NodeId};
use ptxjit::host::LaunchDims;
use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::{c_uint, c_void};
use std::thread::ThreadId;

/// `void (*)(void*)`.
pub type HostFnPtr = unsafe extern "C" fn(*mut c_void);

/// One piece of stream work, as run or as a graph node holds it.
#[derive(Clone, Debug)]
pub enum Op {
    /// A kernel launch with its parameter buffer (copied at capture).
    Kernel {
        f: u64,
        dims: LaunchDims,
        params: Vec<u8>,
        cooperative: bool,
        /// The cluster shape (`CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`), if given.
        cluster: Option<[u32; 3]>,
    },
    /// A linear copy of `n` bytes; a side flagged `_dev` must be device memory, the other
    /// may be either.
    Copy {
        dst: u64,
        dst_dev: bool,
        src: u64,
        src_dev: bool,
        n: usize,
        what: &'static str,
    },
    /// A `CUDA_MEMCPY2D` descriptor, its bytes kept in words (8-byte aligned).
    Copy2d(Vec<u64>),
    /// A `CUDA_MEMCPY3D` descriptor, its bytes kept in words.
    Copy3d(Vec<u64>),
    /// `rows` rows `pitch` bytes apart of `count` elements of `width` bytes set to `value`.
    Memset {
        dst: u64,
        pitch: usize,
        value: u32,
        width: usize,
        count: usize,
        rows: usize,
    },
    /// A host function and its argument (an address).
    Host { f: HostFnPtr, data: usize },
    /// Nothing (a node that only orders others).
    Empty,
    /// A graph embedded as one node (`cuGraphAddChildGraphNode`): a copy of its work, in a
    /// topological order of its nodes.
    Child(Vec<Op>),
    /// Records event `e` (an event-record node: `cuGraphAddEventRecordNode`, or
    /// `cuEventRecordWithFlags(CU_EVENT_RECORD_EXTERNAL)` during capture).
    EventRecord { e: u64 },
    /// Waits for event `e` (an event-wait node). Work completes when enqueued, so the
    /// event's work is already done: nothing to wait for.
    EventWait { e: u64 },
    /// A graph's allocation of `bytes` at `ptr` (a memory-allocation node: `cuMemAllocAsync`
    /// during capture, `cuGraphAddMemAllocNode`). The memory is reserved when the node is
    /// made and kept while a graph or instantiated graph holds the node ([`GraphMem`]), so
    /// its address is fixed for the graph's life as CUDA promises; running it does nothing.
    MemAlloc { ptr: u64, bytes: usize },
    /// A graph's free of `ptr` (a memory-free node: `cuMemFreeAsync` during capture,
    /// `cuGraphAddMemFreeNode`): the memory stays reserved for the graph's next launch, so
    /// running it does nothing.
    MemFree { ptr: u64 },
}

/// `CUgraphNodeType` values.
const NODE_KERNEL: c_uint = 0;
const NODE_MEMCPY: c_uint = 1;
const NODE_MEMSET: c_uint = 2;
const NODE_HOST: c_uint = 3;
const NODE_GRAPH: c_uint = 4;
const NODE_EMPTY: c_uint = 5;
const NODE_WAIT_EVENT: c_uint = 6;
const NODE_EVENT_RECORD: c_uint = 7;
const NODE_MEM_ALLOC: c_uint = 10;
const NODE_MEM_FREE: c_uint = 11;

impl Op {
    /// The node's `CUgraphNodeType`.
    pub fn node_type(&self) -> c_uint {
        match self {
            Op::Kernel { .. } => NODE_KERNEL,
            Op::Copy { .. } | Op::Copy2d(_) | Op::Copy3d(_) => NODE_MEMCPY,
            Op::Memset { .. } => NODE_MEMSET,
            Op::Host { .. } => NODE_HOST,
            Op::Empty => NODE_EMPTY,
            Op::Child(_) => NODE_GRAPH,
            Op::EventRecord { .. } => NODE_EVENT_RECORD,
            Op::EventWait { .. } => NODE_WAIT_EVENT,
            Op::MemAlloc { .. } => NODE_MEM_ALLOC,
            Op::MemFree { .. } => NODE_MEM_FREE,
        }
    }

    /// Runs the work now. Each form takes the driver lock itself (a host function runs
    /// without it, as with `cuLaunchHostFunc`).
    pub fn run(&self) -> DrvResult {
        match self {
            Op::Kernel {
                f,
                dims,
                params,
                cooperative,
                cluster,
            } => with_context(|d| {
                crate::launch::launch(d, *f, *dims, 0, params.clone(), *cooperative, *cluster)
            }),
            Op::Copy {
                dst,
                dst_dev,
                src,
                src_dev,
                n,
                what,
            } => crate::memory::copy_checked(*dst, *dst_dev, *src, *src_dev, *n, what),
            Op::Copy2d(words) => crate::texture::memcpy2d(words.as_ptr().cast()),
            Op::Copy3d(words) => crate::texture::memcpy3d(words.as_ptr().cast()),
            Op::Memset {
                dst,
                pitch,
                value,
                width,
                count,
                rows,
            } => crate::memory::memset(*dst, *pitch, *value, *width, *count, *rows),
            Op::Host { f, data } => {
                // A host function queued behind a kernel that faulted is not called (CUDA
                // Runtime API, cudaStreamAddCallback: "If you do not require the callback to
                // execute in case of a device error, consider using cudaLaunchHostFunc"),
                // unlike a stream callback, which gets the error as its status.
                let faulted = crate::state::with_driver(|d| Ok(d.pending.or(d.sticky)))?;
                if faulted.is_none() {
                    // SAFETY: the program's host function with its own argument.
                    unsafe { f(*data as *mut c_void) };
                }
                Ok(())
            }
            Op::Empty | Op::EventWait { .. } | Op::MemAlloc { .. } | Op::MemFree { .. } => Ok(()),
            Op::Child(ops) => ops.iter().try_for_each(Op::run),
            Op::EventRecord { e } => with_context(|d| crate::stream::mark_recorded(d, *e)),
        }
    }

    /// The graph allocations this work holds (its memory-allocation nodes, child graphs
    /// included).
    fn allocations(&self, into: &mut Vec<u64>) {
        match self {
            Op::MemAlloc { ptr, .. } => into.push(*ptr),
            Op::Child(ops) => ops.iter().for_each(|op| op.allocations(into)),
            Op::Kernel { .. }
            | Op::Copy { .. }
            | Op::Copy2d(_)
            | Op::Copy3d(_)
            | Op::Memset { .. }
            | Op::Host { .. }
            | Op::Empty
            | Op::EventRecord { .. }
            | Op::EventWait { .. }
            | Op::MemFree { .. } => {}
        }
    }
}

/// The memory of graphs' memory-allocation nodes: allocation → how many graphs and
/// instantiated graphs hold a node that allocates it. The memory goes back to the device when
/// the last holder is destroyed; until then `cuMemFree`/`cuMemFreeAsync` of it outside a
/// graph are accepted and do nothing (the next launch of the graph allocates it again, at the
/// same address, as CUDA's graph memory does).
#[derive(Default)]
pub struct GraphMem {
    refs: HashMap<u64, usize>,
}

impl GraphMem {
    /// Whether `p` is the start of a graph allocation.
    pub fn holds(&self, p: u64) -> bool {
        self.refs.contains_key(&p)
    }

    /// One more holder of each allocation of `ops`.
    pub fn retain<'a>(&mut self, ops: impl IntoIterator<Item = &'a Op>) {
        let mut ptrs = Vec::new();
        ops.into_iter().for_each(|op| op.allocations(&mut ptrs));
        for p in ptrs {
            *self.refs.entry(p).or_insert(0) += 1;
        }
    }
}

/// One holder fewer of each allocation of `ops`; frees those no one holds any more.
pub fn release_graph_mem(d: &mut Driver, ops: &[&Op]) {
    let mut ptrs = Vec::new();
    ops.iter().for_each(|op| op.allocations(&mut ptrs));
    for p in ptrs {
        let last = match d.graphs.mem.refs.get_mut(&p) {
            Some(n) if *n > 1 => {
                *n -= 1;
                false
            }
            Some(_) => true,
            None => false,
        };
        if last {
            d.graphs.mem.refs.remove(&p);
            // The allocation was the graph's alone: a failure here is a driver bug, and
            // there is no caller to report it to.
            let _ = d.host.free(ptxjit::host::DevicePtr(p));
        }
    }
}

/// Reserves `bytes` of device memory for a graph's memory-allocation node.
pub fn alloc_graph_mem(d: &mut Driver, bytes: usize, label: &str) -> Result<Op, Fail> {
    if bytes == 0 {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            "cannot allocate 0 bytes",
        ));
    }
    let p = d
        .host
        .alloc(bytes as u64, Some(label))
        .map_err(crate::host_fail)?;
    Ok(Op::MemAlloc { ptr: p.0, bytes })
}

/// The bytes of a C descriptor `T`, kept in 8-byte words.
///
/// # Safety
/// `p` is null or points to a `T` (the API's contract).
pub unsafe fn descriptor_words<T>(p: *const T) -> Result<Vec<u64>, Fail> {
    if p.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null copy descriptor"));
    }
    let n = std::mem::size_of::<T>();
    let mut words = vec![0u64; n.div_ceil(8)];
    // SAFETY: `p` holds `n` bytes; the words hold at least `n`.
    unsafe { std::ptr::copy_nonoverlapping(p.cast::<u8>(), words.as_mut_ptr().cast::<u8>(), n) };
    Ok(words)
}

/// A node's payload: its handle (`CUgraphNode`) and work.
#[derive(Clone, Debug)]
pub struct NodeData {
    pub handle: u64,
    pub op: Op,
    /// Pointers into `op`'s parameter buffer, one per kernel parameter, handed out by
    /// `cuGraphKernelNodeGetParams` (valid until the node changes).
    param_ptrs: Vec<usize>,
    /// For a child-graph node: the graph the node owns (`cuGraphChildGraphNodeGetGraph`),
    /// whose work the node runs. `None` for other nodes, and for a child-graph node
    /// recorded by capture until its graph is asked for.
    pub child: Option<u64>,
}

impl NodeData {
    pub fn new(handle: u64, op: Op) -> NodeData {
        NodeData {
            handle,
            op,
            param_ptrs: Vec::new(),
            child: None,
        }
    }

    /// Gives the node (a clone's copy) a new handle.
    pub fn set_handle(&mut self, handle: u64) {
        self.handle = handle;
    }

    /// Replaces the node's work (pointers handed out before are stale).
    pub fn set_op(&mut self, op: Op) {
        self.op = op;
        self.param_ptrs.clear();
    }

    /// The node's launch as a `CUDA_KERNEL_NODE_PARAMS_v2` whose `kernelParams` point into
    /// the node's copy of the parameters (at `offsets`); a non-kernel node gives zeros.
    pub fn kernel_params(&mut self, offsets: &[usize]) -> crate::graph_nodes::KernelNodeParams {
        let mut k = crate::graph_nodes::KernelNodeParams {
            func: 0,
            grid: [0; 3],
            block: [0; 3],
            shared_mem_bytes: 0,
            kernel_params: std::ptr::null_mut(),
            extra: std::ptr::null_mut(),
            kern: 0,
            ctx: crate::state::current_context().unwrap_or(0),
        };
        if let Op::Kernel {
            f, dims, params, ..
        } = &self.op
        {
            let base = params.as_ptr() as usize;
            self.param_ptrs = offsets.iter().map(|o| base + o).collect();
            k.func = *f;
            // A CUkernel is a CUfunction here: the library kernel the launch is of.
            k.kern = *f;
            k.grid = dims.grid;
            k.block = dims.block;
            k.shared_mem_bytes = dims.shared_bytes;
            k.kernel_params = self.param_ptrs.as_mut_ptr().cast();
        }
        k
    }
}

/// An instantiated graph (`CUgraphExec`): the work in a topological order, each with the
/// handle of the node it came from.
pub struct ExecState {
    pub ops: Vec<(u64, Op)>,
    /// The topology of the graph it was instantiated from, which `cuGraphExecUpdate`
    /// compares: its nodes in the order they were added, each as its handle and the
    /// positions (in that order) of the nodes it depends on, ascending.
    pub shape: Vec<(u64, Vec<usize>)>,
    /// The nodes disabled by `cuGraphNodeSetEnabled` (by handle): they run as empty nodes.
    pub disabled: std::collections::HashSet<u64>,
}

/// `CUstreamCaptureMode`.
pub const MODE_GLOBAL: c_uint = 0;
pub const MODE_THREAD_LOCAL: c_uint = 1;
pub const MODE_RELAXED: c_uint = 2;

/// A stream's part in a capture.
pub struct Capture {
    /// The capture sequence's id (shared by every stream that joined it).
    pub id: u64,
    /// The graph being built.
    pub graph: u64,
    pub mode: c_uint,
    /// The thread that began the capture.
    pub thread: ThreadId,
    /// The stream that began the capture.
    pub origin: u64,
    /// The nodes the stream's next work depends on.
    pub frontier: Vec<NodeId>,
    /// The frontier as node handles, for `cuStreamGetCaptureInfo` (valid until the next
    /// call).
    dep_handles: Vec<u64>,
}

/// The driver's graphs, instantiated graphs, node handles and captures.
#[derive(Default)]
pub struct Graphs {
    pub graphs: HashMap<u64, Graph<NodeData>>,
    /// `CUgraphNode` → (graph, node).
    pub nodes: HashMap<u64, (u64, NodeId)>,
    pub execs: HashMap<u64, ExecState>,
    /// Capturing streams.
    pub captures: HashMap<u64, Capture>,
    /// Capture sequences that were invalidated (by id).
    pub invalidated: std::collections::HashSet<u64>,
    /// Events recorded on a capturing stream: event → (capture id, the stream's frontier).
    pub event_marks: HashMap<u64, (u64, Vec<NodeId>)>,
    /// The memory of memory-allocation nodes.
    pub mem: GraphMem,
    /// Graphs made by `cuGraphClone`: clone → (original, the original's node ids below
    /// this bound were its nodes when cloned), for `cuGraphNodeFindInClone`.
    pub clones: HashMap<u64, (u64, u32)>,
    /// Graphs owned by a child-graph node: graph → that node's handle.
    pub owned: HashMap<u64, u64>,
    next_capture_id: u64,
}

thread_local! {
    /// This thread's capture interaction mode (`cuThreadExchangeStreamCaptureMode`).
    static THREAD_MODE: Cell<c_uint> = const { Cell::new(MODE_GLOBAL) };
}

fn graph_fail(e: GraphError) -> Fail {
    Fail::new(CUDA_ERROR_INVALID_VALUE, e.to_string())
}

fn graph_mut(d: &mut Driver, g: u64) -> Result<&mut Graph<NodeData>, Fail> {
    d.graphs.graphs.get_mut(&g).ok_or_else(|| {
        Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{g:#x} is not a live CUgraph"),
        )
    })
}

fn node_of(d: &Driver, n: u64) -> Result<(u64, NodeId), Fail> {
    d.graphs.nodes.get(&n).copied().ok_or_else(|| {
        Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{n:#x} is not a live CUgraphNode"),
        )
    })
}

/// Adds `op` to graph `g` after `deps` (node ids); returns its handle.
fn add_node(d: &mut Driver, g: u64, op: Op, deps: &[NodeId]) -> Result<u64, Fail> {
    let handle = d.handle(Kind::GraphNode);
    d.graphs.mem.retain([&op]);
    let data = NodeData::new(handle, op);
    let id = graph_mut(d, g)?.add(data, deps).map_err(graph_fail)?;
    d.graphs.nodes.insert(handle, (g, id));
    Ok(handle)
}

/// Whether `stream`'s capture (if any) was invalidated; errors with
/// `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED` then.
fn check_valid(d: &Driver, stream: u64) -> DrvResult {
    match d.graphs.captures.get(&stream) {
        Some(c) if d.graphs.invalidated.contains(&c.id) => Err(Fail::new(
            CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
            format!("the capture on stream {stream:#x} was invalidated by an earlier error"),
        )),
        _ => Ok(()),
    }
}

/// Whether `stream` (a live stream) is capturing; an invalidated capture is an error.
pub fn capturing(d: &mut Driver, stream: u64) -> Result<bool, Fail> {
    d.check_stream(stream)?;
    check_valid(d, stream)?;
    Ok(d.graphs.captures.contains_key(&stream))
}

/// Records `op` as the next node of `stream`'s capture, after the capture's frontier.
pub fn record(d: &mut Driver, stream: u64, op: Op) -> DrvResult {
    let Some(c) = d.graphs.captures.get(&stream) else {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("stream {stream:#x} is not capturing"),
        ));
    };
    let (g, deps) = (c.graph, c.frontier.clone());
    let h = add_node(d, g, op, &deps)?;
    let (_, id) = node_of(d, h)?;
    if let Some(c) = d.graphs.captures.get_mut(&stream) {
        c.frontier = vec![id];
    }
    Ok(())
}

/// Enqueues `op` on `stream`: recorded if the stream captures, run now otherwise.
pub fn enqueue(stream: u64, op: Op) -> DrvResult {
    let op = with_context(|d| {
        if capturing(d, stream)? {
            record(d, stream, op).map(|()| None)
        } else {
            Ok(Some(op))
        }
    })?;
    op.map_or(Ok(()), |op| op.run())
}

/// Errors with `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED` (and invalidates the capture) when
/// `stream` is capturing: synchronizing or querying it is not allowed during capture.
pub fn check_not_capturing(d: &mut Driver, stream: u64, what: &str) -> DrvResult {
    if let Some(c) = d.graphs.captures.get(&stream) {
        let id = c.id;
        d.graphs.invalidated.insert(id);
        return Err(Fail::new(
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            format!(
                "{what} on stream {stream:#x}, which is capturing (the capture is now invalidated)"
            ),
        ));
    }
    Ok(())
}

/// Errors with `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED` (invalidating the captures that
/// prohibit it) when this thread may not make a potentially unsafe call (`what`): in mode
/// global, while this thread has a capture not begun in relaxed mode or another thread has
/// one begun in global mode; in mode thread-local, while this thread has a capture not begun
/// in relaxed mode; never in relaxed mode (CUDA: cuThreadExchangeStreamCaptureMode).
pub fn check_unsafe_call(d: &mut Driver, what: &str) -> DrvResult {
    let me = std::thread::current().id();
    let mode = THREAD_MODE.with(Cell::get);
    let prohibits = |c: &Capture| match mode {
        MODE_RELAXED => false,
        MODE_THREAD_LOCAL => c.thread == me && c.mode != MODE_RELAXED,
        _ => {
            (c.thread == me && c.mode != MODE_RELAXED) || (c.thread != me && c.mode == MODE_GLOBAL)
        }
    };
    let ids: Vec<u64> = d
        .graphs
        .captures
        .values()
        .filter(|c| prohibits(c))
        .map(|c| c.id)
        .collect();
    if ids.is_empty() {
        return Ok(());
    }
    d.graphs.invalidated.extend(ids);
    Err(Fail::new(
        CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
        format!("{what} is not permitted while a stream is capturing in a mode that prohibits it (the capture is now invalidated)"),
    ))
}

/// Event `e` recorded on `stream`: if the stream captures, the event marks its frontier
/// (and `Ok(true)`: nothing else happens); otherwise any mark is cleared.
pub fn record_event(d: &mut Driver, e: u64, stream: u64) -> Result<bool, Fail> {
    check_valid(d, stream)?;
    match d.graphs.captures.get(&stream) {
        Some(c) => {
            let mark = (c.id, c.frontier.clone());
            d.graphs.event_marks.insert(e, mark);
            Ok(true)
        }
        None => {
            d.graphs.event_marks.remove(&e);
            Ok(false)
        }
    }
}

/// `stream` waits on event `e`: joins the capture the event was recorded in, if it is live.
pub fn wait_event(d: &mut Driver, stream: u64, e: u64) -> DrvResult {
    check_valid(d, stream)?;
    let Some((id, nodes)) = d.graphs.event_marks.get(&e).cloned() else {
        return Ok(());
    };
    let Some(template) = d.graphs.captures.values().find(|c| c.id == id) else {
        // The capture has ended; the event is an ordinary completed event.
        return Ok(());
    };
    let (graph, mode, thread, origin) = (
        template.graph,
        template.mode,
        template.thread,
        template.origin,
    );
    match d.graphs.captures.get_mut(&stream) {
        Some(c) if c.id == id => {
            for n in nodes {
                if !c.frontier.contains(&n) {
                    c.frontier.push(n);
                }
            }
            Ok(())
        }
        Some(_) => Err(Fail::new(
            CUDA_ERROR_STREAM_CAPTURE_MERGE,
            "the stream captures another sequence than the one the event was recorded in",
        )),
        None => {
            d.graphs.captures.insert(
                stream,
                Capture {
                    id,
                    graph,
                    mode,
                    thread,
                    origin,
                    frontier: nodes,
                    dep_handles: Vec::new(),
                },
            );
            Ok(())
        }
    }
}

exports! { cuStreamBeginCapture_v2, cuStreamBeginCapture_v2_ptsz => fn(s: u64, mode: c_uint) {
    if mode > MODE_RELAXED {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("unknown capture mode {mode}")));
    }
    with_context(|d| {
        d.check_stream(s)?;
        if s == 0 || s == 1 {
            return Err(Fail::new(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "the legacy default stream cannot capture"));
        }
        if d.graphs.captures.contains_key(&s) {
            return Err(Fail::new(CUDA_ERROR_ILLEGAL_STATE, format!("stream {s:#x} is already capturing")));
        }
        let graph = d.handle(Kind::Graph);
        d.graphs.graphs.insert(graph, Graph::new());
        d.graphs.next_capture_id += 1;
        let id = d.graphs.next_capture_id;
        d.graphs.captures.insert(s, Capture {
            id, graph, mode, thread: std::thread::current().id(), origin: s,
            frontier: Vec::new(), dep_handles: Vec::new(),
        });
        Ok(())
    })
}}

/// Removes graph `g`, its node handles and the graphs its child-graph nodes own.
pub fn destroy_graph(d: &mut Driver, g: u64) {
    d.graphs.clones.remove(&g);
    d.graphs.owned.remove(&g);
    if let Some(graph) = d.graphs.graphs.remove(&g) {
        let mut ops = Vec::new();
        let mut children = Vec::new();
        for n in graph.ids() {
            if let Ok(data) = graph.get(n) {
                d.graphs.nodes.remove(&data.handle);
                ops.push(&data.op);
                children.extend(data.child);
            }
        }
        release_graph_mem(d, &ops);
        for c in children {
            destroy_graph(d, c);
        }
    }
}

exports! { cuStreamEndCapture, cuStreamEndCapture_ptsz => fn(s: u64, pg: *mut u64) {
    if pg.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null graph output"));
    }
    let g = with_context(|d| {
        d.check_stream(s)?;
        let c = d.graphs.captures.get(&s).ok_or_else(|| Fail::new(CUDA_ERROR_ILLEGAL_STATE, format!("stream {s:#x} is not capturing")))?;
        if c.origin != s {
            return Err(Fail::new(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, format!("the capture on stream {s:#x} was begun on stream {:#x}", c.origin)));
        }
        if c.mode != MODE_RELAXED && c.thread != std::thread::current().id() {
            return Err(Fail::new(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, "the capture was begun on another thread"));
        }
        let (id, graph, frontier) = (c.id, c.graph, c.frontier.clone());
        let members: Vec<u64> = d.graphs.captures.iter().filter(|(_, c)| c.id == id).map(|(&k, _)| k).collect();
        let others: Vec<Vec<NodeId>> = members.iter().filter(|&&k| k != s).filter_map(|k| d.graphs.captures.get(k)).map(|c| c.frontier.clone()).collect();
        for k in &members {
            d.graphs.captures.remove(k);
        }
        d.graphs.event_marks.retain(|_, (i, _)| *i != id);
        if d.graphs.invalidated.remove(&id) {
            destroy_graph(d, graph);
            return Err(Fail::new(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the capture was invalidated by an earlier error"));
        }
        let g = d.graphs.graphs.get(&graph).ok_or_else(|| Fail::new(CUDA_ERROR_UNKNOWN, "the capture's graph is gone"))?;
        let mut joined = g.ancestors(&frontier).map_err(graph_fail)?;
        joined.extend(frontier.iter().copied());
        if others.iter().flatten().any(|n| !joined.contains(n)) {
            destroy_graph(d, graph);
            return Err(Fail::new(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "a stream forked from the capture has work that the origin stream never waited for"));
        }
        Ok(graph)
    })?;
    unsafe { out(pg, g) }
}}

/// `CUstreamCaptureStatus`.
const STATUS_NONE: c_uint = 0;
const STATUS_ACTIVE: c_uint = 1;
const STATUS_INVALIDATED: c_uint = 2;

fn status_of(d: &Driver, s: u64) -> c_uint {
    match d.graphs.captures.get(&s) {
        None => STATUS_NONE,
        Some(c) if d.graphs.invalidated.contains(&c.id) => STATUS_INVALIDATED,
        Some(_) => STATUS_ACTIVE,
    }
}

exports! { cuStreamIsCapturing, cuStreamIsCapturing_ptsz => fn(s: u64, status: *mut c_uint) {
    let v = with_context(|d| { d.check_stream(s)?; Ok(status_of(d, s)) })?;
    unsafe { out(status, v) }
}}

/// The capture state of stream `s` through the optional outputs of
/// `cuStreamGetCaptureInfo`: status, sequence id, graph, frontier (node handles, valid until
/// the next call) and its length; `edge_data` (v3) is null (no edge data).
///
/// # Safety
/// Each output is null or points to a value of its type (the API's contract).
unsafe fn capture_info(
    s: u64,
    status: *mut c_uint,
    id: *mut u64,
    graph: *mut u64,
    deps: *mut *const u64,
    edge_data: *mut *const c_void,
    ndeps: *mut usize,
) -> DrvResult {
    let (st, i, g, dp, n) = with_context(|d| {
        d.check_stream(s)?;
        let st = status_of(d, s);
        let handles: Option<Vec<u64>> = d.graphs.captures.get(&s).map(|c| {
            let g = d.graphs.graphs.get(&c.graph);
            c.frontier
                .iter()
                .filter_map(|&n| g.and_then(|g| g.get(n).ok()).map(|x| x.handle))
                .collect()
        });
        match (d.graphs.captures.get_mut(&s), handles) {
            (Some(c), Some(h)) => {
                c.dep_handles = h;
                Ok((
                    st,
                    c.id,
                    c.graph,
                    c.dep_handles.as_ptr(),
                    c.dep_handles.len(),
                ))
            }
            _ => Ok((st, 0, 0, std::ptr::null(), 0)),
        }
    })?;
    unsafe {
        out(status, st)?;
        if !id.is_null() {
            id.write_unaligned(i);
        }
        if !graph.is_null() {
            graph.write_unaligned(g);
        }
        if !deps.is_null() {
            deps.write_unaligned(if n == 0 { std::ptr::null() } else { dp });
        }
        if !edge_data.is_null() {
            edge_data.write_unaligned(std::ptr::null());
        }
        if !ndeps.is_null() {
            ndeps.write_unaligned(n);
        }
    }
    Ok(())
}

exports! { cuStreamGetCaptureInfo_v2, cuStreamGetCaptureInfo_v2_ptsz => fn(s: u64, status: *mut c_uint, id: *mut u64, graph: *mut u64, deps: *mut *const u64, ndeps: *mut usize) {
    unsafe { capture_info(s, status, id, graph, deps, std::ptr::null_mut(), ndeps) }
}}

exports! { cuStreamGetCaptureInfo_v3, cuStreamGetCaptureInfo_v3_ptsz => fn(s: u64, status: *mut c_uint, id: *mut u64, graph: *mut u64, deps: *mut *const u64, edge_data: *mut *const c_void, ndeps: *mut usize) {
    unsafe { capture_info(s, status, id, graph, deps, edge_data, ndeps) }
}}

exports! { cuThreadExchangeStreamCaptureMode => fn(mode: *mut c_uint) {
    if mode.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null mode"));
    }
    // SAFETY: non-null, a CUstreamCaptureMode by the API's contract.
    let new = unsafe { mode.read_unaligned() };
    if new > MODE_RELAXED {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("unknown capture mode {new}")));
    }
    let old = THREAD_MODE.with(|m| m.replace(new));
    unsafe { out(mode, old) }
}}
