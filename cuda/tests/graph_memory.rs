//! Stream capture of everything a program enqueues (stream-ordered allocation and free, host
//! functions, an event join between two streams, external event records) and the node API
//! for child-graph, event and memory nodes. Expected values come from host computations of
//! the kernel `x = x * m + c` (wrapping u32). One test: the driver's capture state is per
//! process.

use cuda::errors::*;
use cuda::graph::*;
use cuda::graph_nodes::*;
use cuda::memory::*;
use cuda::stream::*;
use std::ffi::{c_uint, c_void};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};

mod common;
use common::{
    add_axpc_node, add_memset_node, axpc_fixture, launch_axpc as launch, read_u32s as read,
    write_u32s as write, AXPC_N as N,
};

const BYTES: usize = N as usize * 4;

/// The host's `x * m + c`, element by element.
fn axpc(v: &[u32], m: u32, c: u32) -> Vec<u32> {
    v.iter()
        .map(|x| x.wrapping_mul(m).wrapping_add(c))
        .collect()
}

/// The nodes of graph `g`.
fn nodes(g: u64) -> Vec<u64> {
    let mut count = 0usize;
    assert_eq!(
        unsafe { cuGraphGetNodes(g, null_mut(), &mut count) },
        CUDA_SUCCESS
    );
    let mut nodes = vec![0u64; count];
    assert_eq!(
        unsafe { cuGraphGetNodes(g, nodes.as_mut_ptr(), &mut count) },
        CUDA_SUCCESS
    );
    nodes
}

/// The `CUgraphNodeType` of node `n`.
fn node_type(n: u64) -> c_uint {
    let mut t = 99;
    assert_eq!(unsafe { cuGraphNodeGetType(n, &mut t) }, CUDA_SUCCESS);
    t
}

fn node_types(g: u64) -> Vec<c_uint> {
    nodes(g).into_iter().map(node_type).collect()
}

fn nodes_of_type(g: u64, ty: c_uint) -> Vec<u64> {
    nodes(g)
        .into_iter()
        .filter(|&n| node_type(n) == ty)
        .collect()
}

/// Whether `p` lies in a live allocation.
fn live(p: u64) -> bool {
    let (mut base, mut size) = (0u64, 0usize);
    unsafe { cuMemGetAddressRange_v2(&mut base, &mut size, p) == CUDA_SUCCESS }
}

static HOST_CALLS: AtomicU32 = AtomicU32::new(0);

/// A host function that counts its calls into the counter it is given.
unsafe extern "C" fn count_call(data: *mut c_void) {
    // SAFETY: the tests pass `&HOST_CALLS`.
    unsafe { (*data.cast::<AtomicU32>()).fetch_add(1, SeqCst) };
}

unsafe extern "C" fn callback(_s: u64, _status: CUresult, _data: *mut c_void) {}

/// The pipeline: `tmp = cuMemAllocAsync`; fill it from the host; fork to `s2`, which runs
/// the kernel on `x`, while `s` runs a host function; join `s2` back; the kernel on `tmp`;
/// copy `tmp` to `y`; free `tmp`; record `done` as an external event. Launched three times.
fn capture_pipeline(f: u64, s: u64, s2: u64, x: u64, y: u64) {
    let input: Vec<u32> = (0..N).map(|i| i * 3 + 7).collect();
    let start: Vec<u32> = (0..N).map(|i| i ^ 0x55).collect();
    write(x, &start);
    write(y, &vec![0; N as usize]);
    let counter = (&raw const HOST_CALLS).cast_mut().cast::<c_void>();
    unsafe {
        let (mut fork, mut join, mut done) = (0u64, 0u64, 0u64);
        assert_eq!(cuEventCreate(&mut fork, 0), CUDA_SUCCESS);
        assert_eq!(cuEventCreate(&mut join, 0), CUDA_SUCCESS);
        assert_eq!(cuEventCreate(&mut done, 0), CUDA_SUCCESS);
        assert_eq!(
            cuEventRecordWithFlags(done, s, 1),
            CUDA_ERROR_INVALID_VALUE,
            "CU_EVENT_RECORD_EXTERNAL outside capture"
        );
        assert_eq!(cuStreamBeginCapture_v2(s, MODE_GLOBAL), CUDA_SUCCESS);
        let mut tmp = 0u64;
        assert_eq!(cuMemAllocAsync(&mut tmp, BYTES, s), CUDA_SUCCESS);
        assert_ne!(tmp, 0);
        assert_eq!(
            cuMemcpyHtoDAsync_v2(tmp, input.as_ptr().cast(), BYTES, s),
            CUDA_SUCCESS
        );
        assert_eq!(cuEventRecord(fork, s), CUDA_SUCCESS);
        assert_eq!(cuStreamWaitEvent(s2, fork, 0), CUDA_SUCCESS);
        assert_eq!(launch(f, s2, x, 5, 2), CUDA_SUCCESS);
        assert_eq!(cuLaunchHostFunc(s, Some(count_call), counter), CUDA_SUCCESS);
        assert_eq!(cuEventRecord(join, s2), CUDA_SUCCESS);
        assert_eq!(cuStreamWaitEvent(s, join, 0), CUDA_SUCCESS);
        assert_eq!(launch(f, s, tmp, 3, 1), CUDA_SUCCESS);
        assert_eq!(cuMemcpyDtoDAsync_v2(y, tmp, BYTES, s), CUDA_SUCCESS);
        assert_eq!(cuMemFreeAsync(tmp, s), CUDA_SUCCESS);
        assert_eq!(cuEventRecordWithFlags(done, s, 1), CUDA_SUCCESS);
        let mut graph = 0u64;
        assert_eq!(cuStreamEndCapture(s, &mut graph), CUDA_SUCCESS);

        assert_eq!(
            HOST_CALLS.load(SeqCst),
            0,
            "a captured host function does not run"
        );
        assert_eq!(read(x), start, "captured work does not run");
        assert_eq!(
            cuEventQuery(done),
            CUDA_SUCCESS,
            "an event never recorded is complete"
        );
        let mut types = node_types(graph);
        types.sort_unstable();
        // memcpy HtoD, kernel x2, memcpy DtoD, host, event record, mem alloc, mem free
        assert_eq!(types, [0, 0, 1, 1, 3, 7, 10, 11]);
        let alloc = nodes_of_type(graph, 10);
        let mut p: MemAllocNodeParams = std::mem::zeroed();
        assert_eq!(cuGraphMemAllocNodeGetParams(alloc[0], &mut p), CUDA_SUCCESS);
        assert_eq!((p.dptr, p.bytesize), (tmp, BYTES));
        let free_node = nodes_of_type(graph, 11);
        let mut freed = 0u64;
        assert_eq!(
            cuGraphMemFreeNodeGetParams(free_node[0], &mut freed),
            CUDA_SUCCESS
        );
        assert_eq!(freed, tmp);
        let record = nodes_of_type(graph, 7);
        let mut ev = 0u64;
        assert_eq!(
            cuGraphEventRecordNodeGetEvent(record[0], &mut ev),
            CUDA_SUCCESS
        );
        assert_eq!(ev, done);

        let mut exec = 0u64;
        assert_eq!(
            cuGraphInstantiateWithFlags(&mut exec, graph, 0),
            CUDA_SUCCESS
        );
        let mut want_x = start.clone();
        for launch_no in 1..=3 {
            assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
            want_x = axpc(&want_x, 5, 2);
            assert_eq!(read(x), want_x, "launch {launch_no}");
            assert_eq!(
                read(y),
                axpc(&input, 3, 1),
                "launch {launch_no}: tmp starts from the input each time"
            );
            assert_eq!(HOST_CALLS.load(SeqCst), launch_no);
        }
        assert_eq!(cuEventQuery(done), CUDA_SUCCESS);
        // The graph's memory outlives the graph while the instantiated graph holds it.
        assert!(live(tmp));
        assert_eq!(cuGraphDestroy(graph), CUDA_SUCCESS);
        assert!(
            live(tmp),
            "the instantiated graph still holds its allocation"
        );
        assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
        assert_eq!(read(y), axpc(&input, 3, 1));
        assert_eq!(cuGraphExecDestroy(exec), CUDA_SUCCESS);
        assert!(
            !live(tmp),
            "the last holder of the graph's allocation is gone"
        );
    }
}

/// What CUDA forbids while capturing: freeing memory no graph allocated, and the legacy
/// stream callback (the capture is invalidated).
fn capture_errors(s: u64, x: u64) {
    unsafe {
        assert_eq!(cuStreamBeginCapture_v2(s, MODE_GLOBAL), CUDA_SUCCESS);
        assert_eq!(cuMemFreeAsync(x, s), CUDA_ERROR_INVALID_VALUE);
        assert!(live(x), "a refused captured free frees nothing");
        assert_eq!(
            cuStreamAddCallback(s, Some(callback), null_mut(), 0),
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
        );
        let mut graph = 0u64;
        assert_eq!(
            cuStreamEndCapture(s, &mut graph),
            CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
        );
    }
}

/// A graph built node by node: a memory-allocation node, a child graph (a memset and the
/// kernel) working on that memory, an event-wait and an event-record node, a copy out and a
/// memory-free node.
fn built_by_hand(f: u64, s: u64, y: u64) {
    unsafe {
        let (mut g, mut child) = (0u64, 0u64);
        assert_eq!(cuGraphCreate(&mut g, 0), CUDA_SUCCESS);
        assert_eq!(cuGraphCreate(&mut child, 0), CUDA_SUCCESS);
        let mut p: MemAllocNodeParams = std::mem::zeroed();
        p.bytesize = BYTES;
        p.pool_props.alloc_type = 1;
        p.pool_props.location = [1, 0];
        let mut alloc = 0u64;
        assert_eq!(
            cuGraphAddMemAllocNode(&mut alloc, g, null_mut(), 0, &mut p),
            CUDA_SUCCESS
        );
        let buf = p.dptr;
        assert_ne!(buf, 0);

        // The child: memset buf to 4, then buf = buf * 6 + 1.
        let memset = add_memset_node(child, &[], buf, 4);
        let kernel = add_axpc_node(child, &[memset], f, buf, 6, 1, 128);
        let mut child_node = 0u64;
        assert_eq!(
            cuGraphAddChildGraphNode(&mut child_node, g, &alloc, 1, child),
            CUDA_SUCCESS
        );
        // The child was copied: changing it now does not change the parent.
        let mut extra = add_memset_node(child, &[kernel], buf, 4);

        let mut ev = 0u64;
        assert_eq!(cuEventCreate(&mut ev, 0), CUDA_SUCCESS);
        let (mut wait, mut record) = (0u64, 0u64);
        assert_eq!(
            cuGraphAddEventWaitNode(&mut wait, g, &child_node, 1, ev),
            CUDA_SUCCESS
        );
        assert_eq!(
            cuGraphAddEventRecordNode(&mut record, g, &wait, 1, ev),
            CUDA_SUCCESS
        );
        let mut got = 0u64;
        assert_eq!(cuGraphEventWaitNodeGetEvent(wait, &mut got), CUDA_SUCCESS);
        assert_eq!(got, ev);
        assert_eq!(
            cuGraphEventRecordNodeGetEvent(wait, &mut got),
            CUDA_ERROR_INVALID_VALUE
        );

        let mut host = 0u64;
        let counter = (&raw const HOST_CALLS).cast_mut().cast::<c_void>();
        let hp = HostNodeParams {
            f: Some(count_call),
            data: counter,
        };
        assert_eq!(
            cuGraphAddHostNode(&mut host, g, &record, 1, &hp),
            CUDA_SUCCESS
        );
        // The copy out, as a 3D descriptor of one row.
        let mut copy = 0u64;
        let mut d: cuda::texture::Memcpy3d = std::mem::zeroed();
        d.src_type = 2; // CU_MEMORYTYPE_DEVICE
        d.src_device = buf;
        d.dst_type = 2;
        d.dst_device = y;
        d.width = BYTES;
        d.height = 1;
        d.depth = 1;
        assert_eq!(
            cuGraphAddMemcpyNode(&mut copy, g, &host, 1, &d, 0),
            CUDA_SUCCESS
        );
        let mut free_node = 0u64;
        assert_eq!(
            cuGraphAddMemFreeNode(&mut free_node, g, &copy, 1, buf),
            CUDA_SUCCESS
        );
        assert_eq!(
            cuGraphAddMemFreeNode(&mut extra, g, &copy, 1, y),
            CUDA_ERROR_INVALID_VALUE,
            "y is not graph memory"
        );
        let mut types = node_types(g);
        types.sort_unstable();
        assert_eq!(types, [1, 3, 4, 6, 7, 10, 11]);

        // A graph holding memory nodes cannot be a child.
        let mut bad = 0u64;
        assert_eq!(
            cuGraphAddChildGraphNode(&mut bad, child, null_mut(), 0, g),
            CUDA_ERROR_INVALID_VALUE
        );

        let mut exec = 0u64;
        assert_eq!(cuGraphInstantiateWithFlags(&mut exec, g, 0), CUDA_SUCCESS);
        let before = HOST_CALLS.load(SeqCst);
        for _ in 0..2 {
            write(y, &vec![0; N as usize]);
            assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
            assert_eq!(read(y), vec![4 * 6 + 1; N as usize]);
        }
        assert_eq!(HOST_CALLS.load(SeqCst), before + 2);
        assert_eq!(cuEventQuery(ev), CUDA_SUCCESS);

        // Memory nodes hold the allocation: destroying the alloc node's graph and the exec
        // gives it back.
        assert_eq!(cuGraphExecDestroy(exec), CUDA_SUCCESS);
        assert!(live(buf));
        assert_eq!(cuGraphDestroy(g), CUDA_SUCCESS);
        assert!(!live(buf));
        assert_eq!(cuGraphDestroy(child), CUDA_SUCCESS);
    }
}

#[test]
fn capture_everything_and_memory_nodes() {
    let (f, s, s2, x, y) = axpc_fixture();
    capture_pipeline(f, s, s2, x, y);
    capture_errors(s, x);
    built_by_hand(f, s, y);
}
