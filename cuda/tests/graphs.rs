//! Stream capture and CUDA graphs through the driver API: captured work is recorded, not run,
//! and replays on each launch; graphs built node by node run in dependency order; the calls
//! CUDA forbids during capture fail as documented. Expected values come from host
//! computations. One test: the driver's capture state is per process, and a global-mode
//! capture forbids other threads' unsafe calls.

use cuda::errors::*;
use cuda::graph::*;
use cuda::graph_edit::cuGraphNodeFindInClone;
use cuda::graph_nodes::*;
use cuda::graph_update::*;
use cuda::launch::*;
use cuda::memory::*;
use cuda::stream::*;
use cuda::user_object::*;
use std::ffi::{c_uint, c_void};
use std::ptr::{null, null_mut};

mod common;
use common::{
    add_axpc_node, add_memset_node, arg, axpc_fixture, launch_axpc, memset_u32s, read_u32s as read,
    write_u32s as write, AXPC_N as N,
};

fn status(s: u64) -> c_uint {
    let mut st = 99;
    assert_eq!(unsafe { cuStreamIsCapturing(s, &mut st) }, CUDA_SUCCESS);
    st
}

/// Two kernels and a device-to-device copy captured on a stream, launched three times.
fn capture_and_replay(f: u64, s: u64, x: u64, y: u64) {
    let start: Vec<u32> = (0..N).map(|i| i * 7 + 1).collect();
    write(x, &start);
    write(y, &vec![0; N as usize]);
    unsafe {
        assert_eq!(status(s), 0);
        assert_eq!(cuStreamBeginCapture_v2(s, MODE_GLOBAL), CUDA_SUCCESS);
        assert_eq!(status(s), 1, "CU_STREAM_CAPTURE_STATUS_ACTIVE");
        // Parameters are copied at capture: the values the parameter pointers point to are
        // overwritten once the launch is recorded, and the replays still use m = 3, c = 5.
        let (mut m, mut c, n) = (3u32, 5u32, N);
        let (pm, pc) = (&raw mut m, &raw mut c);
        let mut params = [arg(&x), pm.cast(), pc.cast(), arg(&n)];
        let r = cuLaunchKernel(
            f,
            N.div_ceil(128),
            1,
            1,
            128,
            1,
            1,
            0,
            s,
            params.as_mut_ptr(),
            null_mut(),
        );
        assert_eq!(r, CUDA_SUCCESS);
        pm.write(1000);
        pc.write(1000);
        assert_eq!(launch_axpc(f, s, x, 2, 1), CUDA_SUCCESS);
        assert_eq!(cuMemcpyDtoDAsync_v2(y, x, N as usize * 4, s), CUDA_SUCCESS);
        let (mut st, mut id, mut g, mut deps, mut nd) = (0, 0u64, 0u64, null::<u64>(), 0usize);
        assert_eq!(
            cuStreamGetCaptureInfo_v2(s, &mut st, &mut id, &mut g, &mut deps, &mut nd),
            CUDA_SUCCESS
        );
        assert_eq!(
            (st, nd),
            (1, 1),
            "one node (the copy) ends the stream's work"
        );
        assert_ne!(id, 0);
        let mut graph = 0u64;
        assert_eq!(cuStreamEndCapture(s, &mut graph), CUDA_SUCCESS);
        assert_eq!(status(s), 0);
        assert_eq!(read(x), start, "captured work is not run");
        let mut count = 0usize;
        assert_eq!(cuGraphGetNodes(graph, null_mut(), &mut count), CUDA_SUCCESS);
        assert_eq!(count, 3);
        let mut nodes = [0u64; 3];
        assert_eq!(
            cuGraphGetNodes(graph, nodes.as_mut_ptr(), &mut count),
            CUDA_SUCCESS
        );
        let types: Vec<c_uint> = nodes
            .iter()
            .map(|&n| {
                let mut t = 99;
                assert_eq!(cuGraphNodeGetType(n, &mut t), CUDA_SUCCESS);
                t
            })
            .collect();
        assert_eq!(types, [0, 0, 1], "kernel, kernel, memcpy");
        let mut exec = 0u64;
        // A graph for device launch is refused (no device runtime), unknown flags too.
        assert_eq!(
            cuGraphInstantiateWithFlags(&mut exec, graph, 4),
            CUDA_ERROR_NOT_SUPPORTED
        );
        assert_eq!(
            cuGraphInstantiateWithFlags(&mut exec, graph, 0x10),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphInstantiateWithFlags(&mut exec, graph, 1 | 2 | 8),
            CUDA_SUCCESS
        );
        assert_eq!(cuGraphExecDestroy(exec), CUDA_SUCCESS);
        assert_eq!(
            cuGraphInstantiateWithFlags(&mut exec, graph, 0),
            CUDA_SUCCESS
        );
        let mut want = start.clone();
        for _ in 0..3 {
            assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
            for v in &mut want {
                *v = (v.wrapping_mul(3).wrapping_add(5))
                    .wrapping_mul(2)
                    .wrapping_add(1);
            }
        }
        assert_eq!(cuStreamSynchronize(s), CUDA_SUCCESS);
        assert_eq!(read(x), want);
        assert_eq!(read(y), want);

        // A kernel node's parameters, read back and changed in the instantiated graph.
        let mut kp: KernelNodeParams = std::mem::zeroed();
        assert_eq!(
            cuGraphKernelNodeGetParams_v2(nodes[0], &mut kp),
            CUDA_SUCCESS
        );
        assert_eq!(
            (kp.func, kp.grid, kp.block),
            (f, [N.div_ceil(128), 1, 1], [128, 1, 1])
        );
        // `kern`, the CUkernel, names the same kernel (a CUkernel is a CUfunction here):
        // NVIDIA's runtime maps it back to the host function for cudaGraphKernelNodeGetParams.
        let mut kernel_function = 0u64;
        assert_eq!(
            cuda::module::cuKernelGetFunction(&mut kernel_function, kp.kern),
            CUDA_SUCCESS
        );
        assert_eq!(kernel_function, f);
        assert_eq!(
            *(*kp.kernel_params.add(1)).cast::<u32>(),
            3,
            "m as captured"
        );
        let (m2, c2, n) = (1u32, 0u32, N);
        let mut params = [arg(&x), arg(&m2), arg(&c2), arg(&n)];
        kp.kernel_params = params.as_mut_ptr();
        assert_eq!(
            cuGraphExecKernelNodeSetParams_v2(exec, nodes[0], &kp),
            CUDA_SUCCESS
        );
        assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
        for v in &mut want {
            *v = v.wrapping_mul(2).wrapping_add(1);
        }
        assert_eq!(read(x), want);
        assert_eq!(cuGraphExecDestroy(exec), CUDA_SUCCESS);
        assert_eq!(cuGraphDestroy(graph), CUDA_SUCCESS);
        assert_eq!(
            cuGraphNodeGetType(nodes[0], &mut 0),
            CUDA_ERROR_INVALID_VALUE,
            "nodes die with the graph"
        );
    }
}

static HOST_LOG: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

unsafe extern "C" fn host_note(data: *mut c_void) {
    HOST_LOG
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(data as usize as u32);
}

/// A graph built node by node: a memset, then a kernel that depends on it, then a host node,
/// with a dependency added afterwards; cloned, and the clone launched.
fn built_by_hand(f: u64, s: u64, x: u64) {
    unsafe {
        let mut g = 0u64;
        assert_eq!(cuGraphCreate(&mut g, 0), CUDA_SUCCESS);
        // Added in reverse order of execution: the edges decide the order.
        let hp = HostNodeParams {
            f: Some(host_note),
            data: 7 as *mut c_void,
        };
        let mut host = 0u64;
        assert_eq!(
            cuGraphAddHostNode(&mut host, g, null(), 0, &hp),
            CUDA_SUCCESS
        );
        let kernel = add_axpc_node(g, &[], f, x, 5, 2, 64);
        let memset = add_memset_node(g, &[], x, 9);
        let from = [memset, kernel];
        let to = [kernel, host];
        assert_eq!(
            cuGraphAddDependencies(g, from.as_ptr(), to.as_ptr(), 2),
            CUDA_SUCCESS
        );
        assert_eq!(
            cuGraphAddDependencies(g, &host, &memset, 1),
            CUDA_ERROR_INVALID_VALUE,
            "a cycle"
        );
        let mut empty = 0u64;
        assert_eq!(cuGraphAddEmptyNode(&mut empty, g, &host, 1), CUDA_SUCCESS);
        let mut t = 0;
        assert_eq!(cuGraphNodeGetType(empty, &mut t), CUDA_SUCCESS);
        assert_eq!(t, 5);
        let mut clone = 0u64;
        assert_eq!(cuGraphClone(&mut clone, g), CUDA_SUCCESS);
        assert_eq!(cuGraphDestroy(g), CUDA_SUCCESS);
        write(x, &vec![1; N as usize]);
        HOST_LOG.lock().unwrap_or_else(|e| e.into_inner()).clear();
        let mut exec = 0u64;
        assert_eq!(
            cuGraphInstantiateWithFlags(&mut exec, clone, 0),
            CUDA_SUCCESS
        );
        assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
        assert_eq!(
            read(x),
            vec![9 * 5 + 2; N as usize],
            "memset before the kernel"
        );
        assert_eq!(*HOST_LOG.lock().unwrap_or_else(|e| e.into_inner()), [7]);
        assert_eq!(cuGraphExecDestroy(exec), CUDA_SUCCESS);
        assert_eq!(cuGraphDestroy(clone), CUDA_SUCCESS);
    }
}

/// A graph of `memsets` 1D memsets of `x` to `value`, then a kernel x = x * m + c after the
/// memset at position `after`: returns the graph and its nodes in the order they were added.
fn memsets_then_kernel(
    f: u64,
    x: u64,
    memsets: usize,
    after: usize,
    value: u32,
    m: u32,
    c: u32,
) -> (u64, Vec<u64>) {
    unsafe {
        let mut g = 0u64;
        assert_eq!(cuGraphCreate(&mut g, 0), CUDA_SUCCESS);
        let mut nodes = Vec::new();
        for _ in 0..memsets {
            nodes.push(add_memset_node(g, &[], x, value));
        }
        let kernel = add_axpc_node(g, &[nodes[after]], f, x, m, c, 64);
        nodes.push(kernel);
        (g, nodes)
    }
}

/// An instantiated graph updated from graphs of the same topology (kernel and memset
/// parameters), and updates refused as CUDA documents them (topology, node type, a
/// mismatched dependency), which leave it unchanged.
fn exec_update(f: u64, s: u64, x: u64) {
    let launch_and_read = |exec: u64| unsafe {
        assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
        assert_eq!(cuStreamSynchronize(s), CUDA_SUCCESS);
        read(x)
    };
    let refused = |exec: u64, g: u64| unsafe {
        let mut info = ExecUpdateResultInfo {
            result: 99,
            error_node: 1,
            error_from_node: 1,
        };
        assert_eq!(
            cuGraphExecUpdate_v2(exec, g, &mut info),
            CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE
        );
        (info.result, info.error_node, info.error_from_node)
    };
    unsafe {
        let (g1, _) = memsets_then_kernel(f, x, 1, 0, 9, 5, 2);
        let mut exec = 0u64;
        assert_eq!(cuGraphInstantiateWithFlags(&mut exec, g1, 0), CUDA_SUCCESS);
        assert_eq!(launch_and_read(exec), vec![9 * 5 + 2; N as usize]);

        let (g2, _) = memsets_then_kernel(f, x, 1, 0, 4, 3, 1);
        let mut info = ExecUpdateResultInfo {
            result: 99,
            error_node: 1,
            error_from_node: 1,
        };
        assert_eq!(cuGraphExecUpdate_v2(exec, g2, &mut info), CUDA_SUCCESS);
        assert_eq!(
            (info.result, info.error_node, info.error_from_node),
            (0, 0, 0),
            "CU_GRAPH_EXEC_UPDATE_SUCCESS"
        );
        assert_eq!(
            launch_and_read(exec),
            vec![4 * 3 + 1; N as usize],
            "the new memset value and kernel arguments"
        );

        // Three nodes instead of two: CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, no node.
        let (g3, _) = memsets_then_kernel(f, x, 2, 0, 1, 1, 1);
        assert_eq!(refused(exec, g3), (2, 0, 0));
        assert_eq!(
            launch_and_read(exec),
            vec![13; N as usize],
            "a refused update changes nothing"
        );

        // Two memsets: the second node's type changed (CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED).
        let mut g4 = 0u64;
        assert_eq!(cuGraphCreate(&mut g4, 0), CUDA_SUCCESS);
        let mp = memset_u32s(x, 1);
        let (mut a, mut b) = (0u64, 0u64);
        assert_eq!(
            cuGraphAddMemsetNode(&mut a, g4, null(), 0, &mp, 0),
            CUDA_SUCCESS
        );
        assert_eq!(
            cuGraphAddMemsetNode(&mut b, g4, &a, 1, &mp, 0),
            CUDA_SUCCESS
        );
        assert_eq!(refused(exec, g4), (3, b, 0));

        // The same node counts and dependency counts, but the kernel waits on the other
        // memset: the error node is the kernel, the mismatched dependency the memset.
        let (g5, _) = memsets_then_kernel(f, x, 2, 0, 2, 1, 0);
        let mut exec2 = 0u64;
        assert_eq!(cuGraphInstantiateWithFlags(&mut exec2, g5, 0), CUDA_SUCCESS);
        let (g6, n6) = memsets_then_kernel(f, x, 2, 1, 3, 1, 0);
        assert_eq!(refused(exec2, g6), (2, n6[2], n6[1]));
        let mut info = ExecUpdateResultInfo {
            result: 99,
            error_node: 1,
            error_from_node: 1,
        };
        assert_eq!(
            cuGraphExecUpdate_v2(exec, 0xdead_beef, &mut info),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            info.result, 1,
            "CU_GRAPH_EXEC_UPDATE_ERROR for an invalid handle"
        );
        for e in [exec, exec2] {
            assert_eq!(cuGraphExecDestroy(e), CUDA_SUCCESS);
        }
        for g in [g1, g2, g3, g4, g5, g6] {
            assert_eq!(cuGraphDestroy(g), CUDA_SUCCESS);
        }
    }
}

/// Two streams joined through events into one capture; an unjoined fork fails.
fn fork_and_join(f: u64, s: u64, s2: u64, x: u64, y: u64) {
    unsafe {
        let (mut e1, mut e2) = (0u64, 0u64);
        assert_eq!(cuEventCreate(&mut e1, 0), CUDA_SUCCESS);
        assert_eq!(cuEventCreate(&mut e2, 0), CUDA_SUCCESS);
        write(x, &vec![1; N as usize]);
        write(y, &vec![2; N as usize]);
        assert_eq!(cuStreamBeginCapture_v2(s, MODE_GLOBAL), CUDA_SUCCESS);
        assert_eq!(cuEventRecord(e1, s), CUDA_SUCCESS);
        assert_eq!(cuStreamWaitEvent(s2, e1, 0), CUDA_SUCCESS);
        assert_eq!(status(s2), 1, "the waiting stream joined the capture");
        assert_eq!(launch_axpc(f, s, x, 10, 0), CUDA_SUCCESS);
        assert_eq!(launch_axpc(f, s2, y, 10, 0), CUDA_SUCCESS);
        assert_eq!(cuEventRecord(e2, s2), CUDA_SUCCESS);
        assert_eq!(cuStreamWaitEvent(s, e2, 0), CUDA_SUCCESS);
        assert_eq!(cuMemcpyDtoDAsync_v2(x, y, 8, s), CUDA_SUCCESS);
        let mut g = 0u64;
        assert_eq!(cuStreamEndCapture(s, &mut g), CUDA_SUCCESS);
        assert_eq!(status(s2), 0);
        assert_eq!(read(x), vec![1; N as usize], "nothing ran");
        let mut exec = 0u64;
        assert_eq!(cuGraphInstantiateWithFlags(&mut exec, g, 0), CUDA_SUCCESS);
        assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
        let mut want = vec![10; N as usize];
        want[0] = 20;
        want[1] = 20;
        assert_eq!(read(x), want, "the copy ran after both kernels");
        assert_eq!(cuGraphExecDestroy(exec), CUDA_SUCCESS);
        assert_eq!(cuGraphDestroy(g), CUDA_SUCCESS);

        // A fork never joined back.
        assert_eq!(cuStreamBeginCapture_v2(s, MODE_GLOBAL), CUDA_SUCCESS);
        assert_eq!(cuEventRecord(e1, s), CUDA_SUCCESS);
        assert_eq!(cuStreamWaitEvent(s2, e1, 0), CUDA_SUCCESS);
        assert_eq!(launch_axpc(f, s2, y, 10, 0), CUDA_SUCCESS);
        assert_eq!(
            cuStreamEndCapture(s, &mut g),
            CUDA_ERROR_STREAM_CAPTURE_UNJOINED
        );
        assert_eq!(status(s2), 0);
    }
}

/// Calls CUDA forbids during capture.
fn capture_errors(f: u64, s: u64, x: u64) {
    unsafe {
        let mut g = 0u64;
        assert_eq!(
            cuStreamBeginCapture_v2(0, MODE_GLOBAL),
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            "legacy stream"
        );
        assert_eq!(
            cuStreamEndCapture(s, &mut g),
            CUDA_ERROR_ILLEGAL_STATE,
            "not capturing"
        );
        assert_eq!(cuStreamBeginCapture_v2(s, 7), CUDA_ERROR_INVALID_VALUE);

        // Synchronizing the capturing stream invalidates the capture.
        assert_eq!(cuStreamBeginCapture_v2(s, MODE_GLOBAL), CUDA_SUCCESS);
        assert_eq!(
            cuStreamBeginCapture_v2(s, MODE_GLOBAL),
            CUDA_ERROR_ILLEGAL_STATE
        );
        assert_eq!(launch_axpc(f, s, x, 2, 0), CUDA_SUCCESS);
        assert_eq!(
            cuStreamSynchronize(s),
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
        );
        assert_eq!(status(s), 2, "CU_STREAM_CAPTURE_STATUS_INVALIDATED");
        assert_eq!(
            launch_axpc(f, s, x, 2, 0),
            CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
        );
        assert_eq!(
            cuStreamEndCapture(s, &mut g),
            CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
        );
        assert_eq!(status(s), 0);

        // A synchronous copy during a global-mode capture is prohibited ...
        let host = vec![0u32; N as usize];
        assert_eq!(cuStreamBeginCapture_v2(s, MODE_GLOBAL), CUDA_SUCCESS);
        assert_eq!(
            cuMemcpyHtoD_v2(x, host.as_ptr().cast(), 4),
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
        );
        assert_eq!(
            cuStreamEndCapture(s, &mut g),
            CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
        );

        // ... but allowed in a relaxed thread, and in a relaxed capture.
        assert_eq!(cuStreamBeginCapture_v2(s, MODE_GLOBAL), CUDA_SUCCESS);
        let mut mode = MODE_RELAXED;
        assert_eq!(cuThreadExchangeStreamCaptureMode(&mut mode), CUDA_SUCCESS);
        assert_eq!(mode, MODE_GLOBAL, "the thread's previous mode");
        assert_eq!(cuMemcpyHtoD_v2(x, host.as_ptr().cast(), 4), CUDA_SUCCESS);
        assert_eq!(cuThreadExchangeStreamCaptureMode(&mut mode), CUDA_SUCCESS);
        assert_eq!(mode, MODE_RELAXED);
        assert_eq!(cuStreamEndCapture(s, &mut g), CUDA_SUCCESS);
        assert_eq!(cuGraphDestroy(g), CUDA_SUCCESS);
        assert_eq!(cuStreamBeginCapture_v2(s, MODE_RELAXED), CUDA_SUCCESS);
        assert_eq!(cuMemcpyHtoD_v2(x, host.as_ptr().cast(), 4), CUDA_SUCCESS);
        assert_eq!(cuStreamEndCapture(s, &mut g), CUDA_SUCCESS);
        assert_eq!(cuGraphDestroy(g), CUDA_SUCCESS);
    }
}

static DESTROYED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

unsafe extern "C" fn destroy_note(data: *mut c_void) {
    DESTROYED.fetch_add(data as usize, std::sync::atomic::Ordering::SeqCst);
}

/// A user object lives while the graph or an instantiation of it holds a reference.
fn user_objects() {
    use std::sync::atomic::Ordering::SeqCst;
    unsafe {
        let mut o = 0u64;
        assert_eq!(
            cuUserObjectCreate(&mut o, 3 as *mut c_void, Some(destroy_note), 1, 1),
            CUDA_SUCCESS
        );
        let mut g = 0u64;
        assert_eq!(cuGraphCreate(&mut g, 0), CUDA_SUCCESS);
        // CU_GRAPH_USER_OBJECT_MOVE: the graph takes over the caller's reference.
        assert_eq!(cuGraphRetainUserObject(g, o, 1, 1), CUDA_SUCCESS);
        let mut exec = 0u64;
        assert_eq!(cuGraphInstantiateWithFlags(&mut exec, g, 0), CUDA_SUCCESS);
        assert_eq!(cuGraphDestroy(g), CUDA_SUCCESS);
        assert_eq!(
            DESTROYED.load(SeqCst),
            0,
            "the instantiated graph still holds it"
        );
        assert_eq!(cuGraphExecDestroy(exec), CUDA_SUCCESS);
        assert_eq!(
            DESTROYED.load(SeqCst),
            3,
            "the destructor ran once with its pointer"
        );
        assert_eq!(
            cuUserObjectRelease(o, 1),
            CUDA_ERROR_INVALID_VALUE,
            "already gone"
        );
    }
}

/// The values of kernel node `n`'s four parameters (x, m, c, n), read through the
/// `kernelParams` pointers `cuGraphKernelNodeGetParams` hands out.
fn axpc_node_params(n: u64) -> (u64, u32, u32, u32) {
    unsafe {
        let mut p: KernelNodeParams = std::mem::zeroed();
        assert_eq!(cuGraphKernelNodeGetParams_v2(n, &mut p), CUDA_SUCCESS);
        let a = p.kernel_params;
        (
            (*a).cast::<u64>().read_unaligned(),
            (*a.add(1)).cast::<u32>().read_unaligned(),
            (*a.add(2)).cast::<u32>().read_unaligned(),
            (*a.add(3)).cast::<u32>().read_unaligned(),
        )
    }
}

/// A clone's kernel nodes hold their own copies of the parameters: the original's node
/// changed (`cuGraphKernelNodeSetParams`) and the original destroyed, the clone still reads
/// back and runs with the values it was cloned with.
fn clone_owns_kernel_parameters(f: u64, s: u64, x: u64) {
    unsafe {
        let mut g = 0u64;
        assert_eq!(cuGraphCreate(&mut g, 0), CUDA_SUCCESS);
        let kernel = add_axpc_node(g, &[], f, x, 3, 4, 64);
        // Handed-out parameter pointers into the original's node before cloning.
        assert_eq!(axpc_node_params(kernel), (x, 3, 4, N));
        let mut clone = 0u64;
        assert_eq!(cuGraphClone(&mut clone, g), CUDA_SUCCESS);
        let mut cloned = 0u64;
        assert_eq!(
            cuGraphNodeFindInClone(&mut cloned, kernel, clone),
            CUDA_SUCCESS
        );
        let (m, c, n) = (1000u32, 2000u32, N);
        let mut params = [arg(&x), arg(&m), arg(&c), arg(&n)];
        let mut p: KernelNodeParams = std::mem::zeroed();
        assert_eq!(cuGraphKernelNodeGetParams_v2(kernel, &mut p), CUDA_SUCCESS);
        p.kernel_params = params.as_mut_ptr();
        assert_eq!(cuGraphKernelNodeSetParams_v2(kernel, &p), CUDA_SUCCESS);
        assert_eq!(axpc_node_params(kernel), (x, 1000, 2000, N));
        assert_eq!(cuGraphDestroy(g), CUDA_SUCCESS);
        assert_eq!(axpc_node_params(cloned), (x, 3, 4, N));
        write(x, &(0..N).collect::<Vec<u32>>());
        let mut exec = 0u64;
        assert_eq!(
            cuGraphInstantiateWithFlags(&mut exec, clone, 0),
            CUDA_SUCCESS
        );
        assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
        assert_eq!(cuStreamSynchronize(s), CUDA_SUCCESS);
        assert_eq!(read(x), (0..N).map(|i| i * 3 + 4).collect::<Vec<u32>>());
        assert_eq!(cuGraphExecDestroy(exec), CUDA_SUCCESS);
        assert_eq!(cuGraphDestroy(clone), CUDA_SUCCESS);
    }
}

#[test]
fn capture_and_graphs() {
    let (f, s, s2, x, y) = axpc_fixture();
    capture_and_replay(f, s, x, y);
    built_by_hand(f, s, x);
    clone_owns_kernel_parameters(f, s, x);
    exec_update(f, s, x);
    fork_and_join(f, s, s2, x, y);
    capture_errors(f, s, x);
    user_objects();
}
