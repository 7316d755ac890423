//! Inspecting and editing graphs through the C ABI, with expectations from cuda.h's
//! descriptions: roots, dependencies and dependents (null array → count; unused slots null;
//! a short array filled and the count written back), removing edges (all or none), the graph
//! a node belongs to, a child graph node's own graph (changes to it reach the node), a node's
//! counterpart in a clone, disabled nodes of an instantiated graph (they run as empty nodes),
//! per-type node parameters read and changed in a graph and in an instantiated graph (a 2D
//! memset there keeps its shape; empty copies and memsets are refused; event nodes take
//! another event), and the
//! generic `CUgraphNodeParams` calls. Results are checked against the arithmetic of the
//! `axpc` kernel (`x * m + c`) on the host.

use cuda::errors::*;
use cuda::graph_edit::*;
use cuda::graph_nodes::*;
use cuda::graph_params::*;
use cuda::texture::Memcpy3d;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

mod common;
use common::{add_axpc_node, add_memset_node, axpc_fixture, memset_u32s, read_u32s, AXPC_N as N};

fn graph() -> u64 {
    let mut g = 0u64;
    assert_eq!(unsafe { cuGraphCreate(&mut g, 0) }, CUDA_SUCCESS);
    g
}

fn empty_node(g: u64, deps: &[u64]) -> u64 {
    let mut n = 0u64;
    let p = if deps.is_empty() {
        null()
    } else {
        deps.as_ptr()
    };
    assert_eq!(
        unsafe { cuGraphAddEmptyNode(&mut n, g, p, deps.len()) },
        CUDA_SUCCESS
    );
    n
}

/// Instantiates `g`, launches it once on `s`, waits, and destroys the instantiation.
fn run_once(g: u64, s: u64) {
    let mut e = 0u64;
    unsafe {
        assert_eq!(cuGraphInstantiateWithFlags(&mut e, g, 0), CUDA_SUCCESS);
        assert_eq!(cuGraphLaunch(e, s), CUDA_SUCCESS);
        assert_eq!(cuda::stream::cuStreamSynchronize(s), CUDA_SUCCESS);
        assert_eq!(cuGraphExecDestroy(e), CUDA_SUCCESS);
    }
}

fn launch(e: u64, s: u64) {
    unsafe {
        assert_eq!(cuGraphLaunch(e, s), CUDA_SUCCESS);
        assert_eq!(cuda::stream::cuStreamSynchronize(s), CUDA_SUCCESS);
    }
}

fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort();
    v
}

#[test]
fn roots_dependencies_dependents_and_removed_edges() {
    let (f, s, _, x, _) = axpc_fixture();
    let g = graph();
    // memset → kernel → tail, memset → side → tail; lone has no edges.
    let memset = add_memset_node(g, &[], x, 3);
    let kernel = add_axpc_node(g, &[memset], f, x, 5, 2, 64);
    let side = empty_node(g, &[memset]);
    let tail = empty_node(g, &[kernel, side]);
    let lone = empty_node(g, &[]);
    unsafe {
        let mut count = 0usize;
        assert_eq!(cuGraphGetRootNodes(g, null_mut(), &mut count), CUDA_SUCCESS);
        assert_eq!(count, 2);
        let mut roots = [7u64; 3];
        count = 3;
        assert_eq!(
            cuGraphGetRootNodes(g, roots.as_mut_ptr(), &mut count),
            CUDA_SUCCESS
        );
        assert_eq!(count, 2);
        assert_eq!(sorted(roots[..2].to_vec()), sorted(vec![memset, lone]));
        assert_eq!(roots[2], 0);

        // Dependencies of tail: the count, then a short array (one of the two).
        assert_eq!(
            cuGraphNodeGetDependencies(tail, null_mut(), &mut count),
            CUDA_SUCCESS
        );
        assert_eq!(count, 2);
        let mut one = 0u64;
        count = 1;
        assert_eq!(
            cuGraphNodeGetDependencies(tail, &mut one, &mut count),
            CUDA_SUCCESS
        );
        assert_eq!(count, 1);
        assert!(one == kernel || one == side);
        // _v2 with edge data: default data, all zeros.
        let mut deps = [0u64; 2];
        let mut data = [0xffu8; 16];
        count = 2;
        assert_eq!(
            cuGraphNodeGetDependencies_v2(
                tail,
                deps.as_mut_ptr(),
                data.as_mut_ptr().cast(),
                &mut count
            ),
            CUDA_SUCCESS
        );
        assert_eq!(sorted(deps.to_vec()), sorted(vec![kernel, side]));
        assert_eq!(data, [0u8; 16]);
        // Edge data without the node array is refused.
        assert_eq!(
            cuGraphNodeGetDependencies_v2(tail, null_mut(), data.as_mut_ptr().cast(), &mut count),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphNodeGetDependencies(tail, null_mut(), null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );

        // Dependents of memset.
        let mut dents = [9u64; 3];
        count = 3;
        assert_eq!(
            cuGraphNodeGetDependentNodes(memset, dents.as_mut_ptr(), &mut count),
            CUDA_SUCCESS
        );
        assert_eq!(count, 2);
        assert_eq!(sorted(dents[..2].to_vec()), sorted(vec![kernel, side]));
        assert_eq!(dents[2], 0);
        count = 5;
        assert_eq!(
            cuGraphNodeGetDependentNodes_v2(lone, null_mut(), null_mut(), &mut count),
            CUDA_SUCCESS
        );
        assert_eq!(count, 0);

        // Removing memset → side and a missing edge at once: refused, nothing removed.
        let (from, to) = ([memset, lone], [side, tail]);
        assert_eq!(
            cuGraphRemoveDependencies(g, from.as_ptr(), to.as_ptr(), 2),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphNodeGetDependencies(side, null_mut(), &mut count),
            CUDA_SUCCESS
        );
        assert_eq!(count, 1);
        // Non-default edge data names no edge.
        let odd = [1u8, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(
            cuGraphRemoveDependencies_v2(g, &memset, &side, odd.as_ptr().cast(), 1),
            CUDA_ERROR_INVALID_VALUE
        );
        // Zero edges: nothing to do, the arrays ignored.
        assert_eq!(
            cuGraphRemoveDependencies(g, null(), null(), 0),
            CUDA_SUCCESS
        );
        assert_eq!(
            cuGraphRemoveDependencies(g, &memset, &side, 1),
            CUDA_SUCCESS
        );
        assert_eq!(
            cuGraphNodeGetDependencies(side, null_mut(), &mut count),
            CUDA_SUCCESS
        );
        assert_eq!(count, 0);
        assert_eq!(cuGraphGetRootNodes(g, null_mut(), &mut count), CUDA_SUCCESS);
        assert_eq!(count, 3);
        // Removing it again: no such edge.
        assert_eq!(
            cuGraphRemoveDependencies(g, &memset, &side, 1),
            CUDA_ERROR_INVALID_VALUE
        );

        let mut owner = 0u64;
        assert_eq!(
            cuGraphNodeGetContainingGraph(kernel, &mut owner),
            CUDA_SUCCESS
        );
        assert_eq!(owner, g);
        assert_eq!(
            cuGraphNodeGetContainingGraph(0xdead, &mut owner),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphNodeGetContainingGraph(kernel, null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphGetRootNodes(0xdead, null_mut(), &mut count),
            CUDA_ERROR_INVALID_VALUE
        );
    }
    // The memset still runs before the kernel: 3 * 5 + 2.
    run_once(g, s);
    assert_eq!(read_u32s(x), vec![17; N as usize]);
    assert_eq!(unsafe { cuGraphDestroy(g) }, CUDA_SUCCESS);
}

#[test]
fn child_graph_node_owns_a_graph_that_can_change() {
    let (f, s, _, x, _) = axpc_fixture();
    let child = graph();
    let m = add_memset_node(child, &[], x, 4);
    add_axpc_node(child, &[m], f, x, 5, 2, 64);
    let parent = graph();
    let mut node = 0u64;
    unsafe {
        assert_eq!(
            cuGraphAddChildGraphNode(&mut node, parent, null(), 0, child),
            CUDA_SUCCESS
        );
        // The node owns a copy: destroying the original changes nothing.
        assert_eq!(cuGraphDestroy(child), CUDA_SUCCESS);
        let mut owned = 0u64;
        assert_eq!(
            cuGraphChildGraphNodeGetGraph(node, &mut owned),
            CUDA_SUCCESS
        );
        assert_ne!(owned, child);
        let mut again = 0u64;
        assert_eq!(
            cuGraphChildGraphNodeGetGraph(node, &mut again),
            CUDA_SUCCESS
        );
        assert_eq!(again, owned);
        let mut roots = [0u64; 1];
        let mut count = 1usize;
        assert_eq!(
            cuGraphGetRootNodes(owned, roots.as_mut_ptr(), &mut count),
            CUDA_SUCCESS
        );
        let mut ty = 99;
        assert_eq!(cuGraphNodeGetType(roots[0], &mut ty), CUDA_SUCCESS);
        assert_eq!(ty, 2); // CU_GRAPH_NODE_TYPE_MEMSET
        let mut within = 0u64;
        assert_eq!(
            cuGraphNodeGetContainingGraph(roots[0], &mut within),
            CUDA_SUCCESS
        );
        assert_eq!(within, owned);
        // Not a child graph node; the owned graph is the node's to destroy.
        assert_eq!(
            cuGraphChildGraphNodeGetGraph(roots[0], &mut within),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuGraphDestroy(owned), CUDA_ERROR_INVALID_VALUE);
        // Memory nodes cannot join it.
        let mut free = 0u64;
        assert_eq!(
            cuGraphAddMemFreeNode(&mut free, owned, null(), 0, x),
            CUDA_ERROR_INVALID_VALUE
        );
        // A change to the owned graph reaches the node: (4 * 5 + 2) * 2 + 1.
        let mut leaves = [0u64; 2];
        count = 2;
        assert_eq!(
            cuGraphGetNodes(owned, leaves.as_mut_ptr(), &mut count),
            CUDA_SUCCESS
        );
        let kernel = leaves.iter().copied().find(|&n| n != roots[0]).unwrap();
        add_axpc_node(owned, &[kernel], f, x, 2, 1, 64);
        // The DOT file describes the node as it now is.
        let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("graph_edit_child.dot");
        let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        assert_eq!(
            cuda::graph_dot::cuGraphDebugDotPrint(parent, c_path.as_ptr(), 0),
            CUDA_SUCCESS
        );
        let dot = std::fs::read_to_string(&path).unwrap();
        assert!(dot.contains("3 nodes"), "{dot}");
    }
    run_once(parent, s);
    assert_eq!(read_u32s(x), vec![45; N as usize]);

    // An instantiated graph's child node takes another graph of the same shape.
    let mut e = 0u64;
    unsafe {
        assert_eq!(cuGraphInstantiateWithFlags(&mut e, parent, 0), CUDA_SUCCESS);
    }
    let same = graph();
    let m = add_memset_node(same, &[], x, 1);
    let k = add_axpc_node(same, &[m], f, x, 3, 1, 64);
    add_axpc_node(same, &[k], f, x, 1, 1, 64);
    let smaller = graph();
    add_memset_node(smaller, &[], x, 1);
    unsafe {
        assert_eq!(
            cuGraphExecChildGraphNodeSetParams(e, node, smaller),
            CUDA_ERROR_INVALID_VALUE
        );
        launch(e, s);
        assert_eq!(read_u32s(x), vec![45; N as usize]);
        assert_eq!(
            cuGraphExecChildGraphNodeSetParams(e, node, same),
            CUDA_SUCCESS
        );
        launch(e, s);
        // (1 * 3 + 1) * 1 + 1.
        assert_eq!(read_u32s(x), vec![5; N as usize]);
        assert_eq!(cuGraphExecDestroy(e), CUDA_SUCCESS);
        assert_eq!(cuGraphDestroy(parent), CUDA_SUCCESS);
        let mut n = 0usize;
        // The owned graph went with its node's graph.
        let mut owned = 0u64;
        assert_eq!(
            cuGraphChildGraphNodeGetGraph(node, &mut owned),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuGraphGetNodes(same, null_mut(), &mut n), CUDA_SUCCESS);
        assert_eq!(n, 3);
    }
}

#[test]
fn clones_and_disabled_nodes() {
    let (f, s, _, x, _) = axpc_fixture();
    let g = graph();
    let memset = add_memset_node(g, &[], x, 3);
    let kernel = add_axpc_node(g, &[memset], f, x, 5, 2, 64);
    let mut c = 0u64;
    unsafe {
        assert_eq!(cuGraphClone(&mut c, g), CUDA_SUCCESS);
        let mut k2 = 0u64;
        assert_eq!(cuGraphNodeFindInClone(&mut k2, kernel, c), CUDA_SUCCESS);
        assert_ne!(k2, kernel);
        let mut owner = 0u64;
        assert_eq!(cuGraphNodeGetContainingGraph(k2, &mut owner), CUDA_SUCCESS);
        assert_eq!(owner, c);
        let mut ty = 99;
        assert_eq!(cuGraphNodeGetType(k2, &mut ty), CUDA_SUCCESS);
        assert_eq!(ty, 0); // CU_GRAPH_NODE_TYPE_KERNEL
                           // A node added after cloning has no counterpart; g is no clone of c.
        let later = empty_node(g, &[]);
        let mut none = 0u64;
        assert_eq!(
            cuGraphNodeFindInClone(&mut none, later, c),
            CUDA_ERROR_INVALID_VALUE
        );
        let mut m2 = 0u64;
        assert_eq!(cuGraphNodeFindInClone(&mut m2, memset, c), CUDA_SUCCESS);
        assert_eq!(
            cuGraphNodeFindInClone(&mut none, m2, g),
            CUDA_ERROR_INVALID_VALUE
        );
        // A node of the clone added later does not answer for the original either.
        empty_node(c, &[]);
        assert_eq!(
            cuGraphNodeFindInClone(&mut none, later, c),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphNodeFindInClone(null_mut(), kernel, c),
            CUDA_ERROR_INVALID_VALUE
        );

        // Disabling the clone's kernel in its instantiation: only the memset runs.
        let mut e = 0u64;
        assert_eq!(cuGraphInstantiateWithFlags(&mut e, c, 0), CUDA_SUCCESS);
        let mut on = 7;
        assert_eq!(cuGraphNodeGetEnabled(e, k2, &mut on), CUDA_SUCCESS);
        assert_eq!(on, 1);
        assert_eq!(cuGraphNodeSetEnabled(e, k2, 0), CUDA_SUCCESS);
        assert_eq!(cuGraphNodeGetEnabled(e, k2, &mut on), CUDA_SUCCESS);
        assert_eq!(on, 0);
        launch(e, s);
        assert_eq!(read_u32s(x), vec![3; N as usize]);
        assert_eq!(cuGraphNodeSetEnabled(e, k2, 1), CUDA_SUCCESS);
        launch(e, s);
        assert_eq!(read_u32s(x), vec![17; N as usize]);
        // Empty nodes cannot be disabled; the original's nodes are not the clone's.
        let mut added = [0u64; 3];
        let mut n = 3usize;
        assert_eq!(cuGraphGetNodes(c, added.as_mut_ptr(), &mut n), CUDA_SUCCESS);
        assert_eq!(
            cuGraphNodeSetEnabled(e, added[2], 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphNodeSetEnabled(e, kernel, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphNodeGetEnabled(e, k2, null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuGraphExecDestroy(e), CUDA_SUCCESS);
        assert_eq!(cuGraphDestroy(c), CUDA_SUCCESS);
        assert_eq!(cuGraphDestroy(g), CUDA_SUCCESS);
    }
}

static HOST_CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

unsafe extern "C" fn add_to(data: *mut c_void) {
    HOST_CALLS.fetch_add(data as u32, std::sync::atomic::Ordering::SeqCst);
}

#[test]
fn node_parameters_in_graphs_and_instantiated_graphs() {
    let (f, s, _, x, _) = axpc_fixture();
    let g = graph();
    let memset = add_memset_node(g, &[], x, 3);
    let kernel = add_axpc_node(g, &[memset], f, x, 5, 2, 64);
    let mut host_out = vec![0u32; N as usize];
    let mut copy_desc: Memcpy3d = unsafe { std::mem::zeroed() };
    copy_desc.src_type = 2; // CU_MEMORYTYPE_DEVICE
    copy_desc.src_device = x;
    copy_desc.dst_type = 1; // CU_MEMORYTYPE_HOST
    copy_desc.dst_host = host_out.as_mut_ptr().cast();
    copy_desc.width = 4 * N as usize;
    copy_desc.height = 1;
    copy_desc.depth = 1;
    let hp = HostNodeParams {
        f: Some(add_to),
        data: 3 as *mut c_void,
    };
    let (mut copy, mut host) = (0u64, 0u64);
    unsafe {
        assert_eq!(
            cuGraphAddMemcpyNode(&mut copy, g, &kernel, 1, &copy_desc, 0),
            CUDA_SUCCESS
        );
        assert_eq!(
            cuGraphAddHostNode(&mut host, g, &copy, 1, &hp),
            CUDA_SUCCESS
        );

        // Read back as given.
        let mut m: MemsetNodeParams = std::mem::zeroed();
        assert_eq!(cuGraphMemsetNodeGetParams(memset, &mut m), CUDA_SUCCESS);
        let want = memset_u32s(x, 3);
        assert_eq!(
            (m.dst, m.value, m.element_size, m.width, m.height),
            (want.dst, 3, 4, want.width, 1)
        );
        let mut c: Memcpy3d = std::mem::zeroed();
        assert_eq!(cuGraphMemcpyNodeGetParams(copy, &mut c), CUDA_SUCCESS);
        assert_eq!(
            (c.src_type, c.src_device, c.dst_type, c.dst_host, c.width),
            (2, x, 1, host_out.as_mut_ptr().cast(), 4 * N as usize)
        );
        let mut h = HostNodeParams {
            f: None,
            data: null_mut(),
        };
        assert_eq!(cuGraphHostNodeGetParams(host, &mut h), CUDA_SUCCESS);
        assert_eq!(
            (h.f.map(|f| f as usize), h.data as usize),
            (Some(add_to as *const () as usize), 3)
        );
        // Another type's parameters are refused.
        assert_eq!(
            cuGraphMemsetNodeGetParams(kernel, &mut m),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphMemsetNodeSetParams(kernel, &want),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphHostNodeGetParams(copy, &mut h),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphMemcpyNodeGetParams(memset, null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );

        // Changed in the graph: memset to 9, host adds 10.
        assert_eq!(
            cuGraphMemsetNodeSetParams(memset, &memset_u32s(x, 9)),
            CUDA_SUCCESS
        );
        let hp10 = HostNodeParams {
            f: Some(add_to),
            data: 10 as *mut c_void,
        };
        assert_eq!(cuGraphHostNodeSetParams(host, &hp10), CUDA_SUCCESS);
        let before = HOST_CALLS.load(std::sync::atomic::Ordering::SeqCst);
        let mut e = 0u64;
        assert_eq!(cuGraphInstantiateWithFlags(&mut e, g, 0), CUDA_SUCCESS);
        launch(e, s);
        assert_eq!(host_out, vec![47; N as usize]); // 9 * 5 + 2
        assert_eq!(
            HOST_CALLS.load(std::sync::atomic::Ordering::SeqCst) - before,
            10
        );

        // Changed in the instantiated graph only: memset to 1, the copy into another
        // buffer, the host node adds 100.
        let mut other = vec![0u32; N as usize];
        let mut c2 = copy_desc_clone(&copy_desc);
        c2.dst_host = other.as_mut_ptr().cast();
        assert_eq!(
            cuGraphExecMemsetNodeSetParams(e, memset, &memset_u32s(x, 1), 0),
            CUDA_SUCCESS
        );
        assert_eq!(
            cuGraphExecMemcpyNodeSetParams(e, copy, &c2, 0),
            CUDA_SUCCESS
        );
        let hp100 = HostNodeParams {
            f: Some(add_to),
            data: 100 as *mut c_void,
        };
        assert_eq!(cuGraphExecHostNodeSetParams(e, host, &hp100), CUDA_SUCCESS);
        let before = HOST_CALLS.load(std::sync::atomic::Ordering::SeqCst);
        launch(e, s);
        assert_eq!(other, vec![7; N as usize]); // 1 * 5 + 2
        assert_eq!(host_out, vec![47; N as usize]);
        assert_eq!(
            HOST_CALLS.load(std::sync::atomic::Ordering::SeqCst) - before,
            100
        );
        // The graph's own node is unchanged.
        assert_eq!(cuGraphMemsetNodeGetParams(memset, &mut m), CUDA_SUCCESS);
        assert_eq!(m.value, 9);
        // Changing a side's memory type, a 2D memset, another type: refused.
        let mut c3 = copy_desc_clone(&copy_desc);
        c3.dst_type = 2;
        c3.dst_device = x;
        assert_eq!(
            cuGraphExecMemcpyNodeSetParams(e, copy, &c3, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        let mut two_d = memset_u32s(x, 1);
        two_d.width = 10;
        two_d.height = 2;
        two_d.pitch = 64;
        assert_eq!(
            cuGraphExecMemsetNodeSetParams(e, memset, &two_d, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        // A zero-length copy or memset is refused too.
        let mut c0 = copy_desc_clone(&c2);
        c0.width = 0;
        assert_eq!(
            cuGraphExecMemcpyNodeSetParams(e, copy, &c0, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        let mut m0 = memset_u32s(x, 1);
        m0.width = 0;
        assert_eq!(
            cuGraphExecMemsetNodeSetParams(e, memset, &m0, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphExecHostNodeSetParams(e, memset, &hp100),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphExecHostNodeSetParams(0xdead, host, &hp100),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphExecHostNodeSetParams(e, host, null()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuGraphExecDestroy(e), CUDA_SUCCESS);
        assert_eq!(cuGraphDestroy(g), CUDA_SUCCESS);
    }
}

fn copy_desc_clone(c: &Memcpy3d) -> Memcpy3d {
    // SAFETY: a plain C struct, copied bytewise.
    unsafe { std::ptr::read(c) }
}

fn node_params(ty: u32) -> GraphNodeParams {
    GraphNodeParams {
        ty,
        reserved0: [0; 3],
        body: [0; 29],
        reserved2: 0,
    }
}

#[test]
fn generic_node_parameters() {
    let (f, s, _, x, _) = axpc_fixture();
    let g = graph();
    unsafe {
        // A memset node and an empty node through cuGraphAddNode.
        let mut p = node_params(2);
        p.body
            .as_mut_ptr()
            .cast::<MemsetNodeParamsV2>()
            .write(MemsetNodeParamsV2 {
                base: memset_u32s(x, 6),
                ctx: 0,
            });
        let mut memset = 0u64;
        assert_eq!(
            cuGraphAddNode(&mut memset, g, null(), 0, &mut p),
            CUDA_SUCCESS
        );
        let mut ty = 99;
        assert_eq!(cuGraphNodeGetType(memset, &mut ty), CUDA_SUCCESS);
        assert_eq!(ty, 2);
        let mut empty = 0u64;
        let mut pe = node_params(5);
        assert_eq!(
            cuGraphAddNode_v2(&mut empty, g, &memset, null(), 1, &mut pe),
            CUDA_SUCCESS
        );
        let kernel = add_axpc_node(g, &[empty], f, x, 5, 2, 64);

        // Read back: the memset's fields, the kernel's function and shape.
        let mut q = node_params(99);
        assert_eq!(cuGraphNodeGetParams(memset, &mut q), CUDA_SUCCESS);
        assert_eq!(q.ty, 2);
        let m = &*q.body.as_ptr().cast::<MemsetNodeParamsV2>();
        assert_eq!(
            (m.base.dst, m.base.value, m.base.element_size, m.base.width),
            (x, 6, 4, N as usize)
        );
        assert_eq!(cuGraphNodeGetParams(kernel, &mut q), CUDA_SUCCESS);
        assert_eq!(q.ty, 0);
        let k = &*q.body.as_ptr().cast::<KernelNodeParams>();
        assert_eq!(
            (k.func, k.grid, k.block),
            (f, [N.div_ceil(64), 1, 1], [64, 1, 1])
        );
        // The third parameter, c, as given.
        assert_eq!(*(*k.kernel_params.add(2)).cast::<u32>(), 2);
        assert_eq!(cuGraphNodeGetParams(empty, &mut q), CUDA_SUCCESS);
        assert_eq!(q.ty, 5);

        // Set: the memset's value; a type change is refused.
        p.body
            .as_mut_ptr()
            .cast::<MemsetNodeParamsV2>()
            .write(MemsetNodeParamsV2 {
                base: memset_u32s(x, 2),
                ctx: 0,
            });
        assert_eq!(cuGraphNodeSetParams(memset, &p), CUDA_SUCCESS);
        assert_eq!(cuGraphNodeSetParams(empty, &p), CUDA_ERROR_INVALID_VALUE);
        run_once(g, s);
        assert_eq!(read_u32s(x), vec![12; N as usize]); // 2 * 5 + 2

        // In an instantiated graph.
        let mut e = 0u64;
        assert_eq!(cuGraphInstantiateWithFlags(&mut e, g, 0), CUDA_SUCCESS);
        p.body
            .as_mut_ptr()
            .cast::<MemsetNodeParamsV2>()
            .write(MemsetNodeParamsV2 {
                base: memset_u32s(x, 4),
                ctx: 0,
            });
        assert_eq!(cuGraphExecNodeSetParams(e, memset, &p), CUDA_SUCCESS);
        launch(e, s);
        assert_eq!(read_u32s(x), vec![22; N as usize]); // 4 * 5 + 2
        assert_eq!(
            cuGraphExecNodeSetParams(e, kernel, &p),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuGraphExecDestroy(e), CUDA_SUCCESS);

        // A child graph node by the generic call: its graph is a copy, read back as the
        // node's own graph.
        let mut pc = node_params(4);
        pc.body
            .as_mut_ptr()
            .cast::<ChildGraphNodeParams>()
            .write(ChildGraphNodeParams {
                graph: g,
                ownership: 0,
            });
        let parent = graph();
        let mut child = 0u64;
        assert_eq!(
            cuGraphAddNode(&mut child, parent, null(), 0, &mut pc),
            CUDA_SUCCESS
        );
        assert_eq!(cuGraphNodeGetParams(child, &mut q), CUDA_SUCCESS);
        let owned = (*q.body.as_ptr().cast::<ChildGraphNodeParams>()).graph;
        let mut via = 0u64;
        assert_eq!(cuGraphChildGraphNodeGetGraph(child, &mut via), CUDA_SUCCESS);
        assert_eq!((q.ty, owned), (4, via));
        assert_ne!(owned, g);
        // Moving the graph in is not supported.
        pc.body
            .as_mut_ptr()
            .cast::<ChildGraphNodeParams>()
            .write(ChildGraphNodeParams {
                graph: g,
                ownership: 1,
            });
        assert_eq!(
            cuGraphAddNode(&mut child, parent, null(), 0, &mut pc),
            CUDA_ERROR_NOT_SUPPORTED
        );

        // Types ptxjit does not run, and no parameters at all.
        let mut cond = node_params(13); // CU_GRAPH_NODE_TYPE_CONDITIONAL
        let mut none = 0u64;
        assert_eq!(
            cuGraphAddNode(&mut none, g, null(), 0, &mut cond),
            CUDA_ERROR_NOT_SUPPORTED
        );
        assert_eq!(
            cuGraphAddNode(&mut none, g, null(), 0, null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphNodeGetParams(memset, null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuGraphDestroy(parent), CUDA_SUCCESS);
        assert_eq!(cuGraphDestroy(g), CUDA_SUCCESS);
    }
}

#[test]
fn two_dimensional_memset_in_an_instantiated_graph() {
    let (_, s, _, _, y) = axpc_fixture();
    common::write_u32s(y, &vec![0u32; N as usize]);
    let g = graph();
    // Two rows of 10 u32s, 64 bytes (16 elements) apart.
    let mut p = memset_u32s(y, 7);
    p.width = 10;
    p.height = 2;
    p.pitch = 64;
    let mut node = 0u64;
    let mut e = 0u64;
    unsafe {
        assert_eq!(
            cuGraphAddMemsetNode(&mut node, g, null(), 0, &p, 0),
            CUDA_SUCCESS
        );
        assert_eq!(cuGraphInstantiateWithFlags(&mut e, g, 0), CUDA_SUCCESS);
        // The value may change; the shape may not.
        p.value = 5;
        assert_eq!(cuGraphExecMemsetNodeSetParams(e, node, &p, 0), CUDA_SUCCESS);
        let mut wider = memset_u32s(y, 5);
        wider.width = 12;
        wider.height = 2;
        wider.pitch = 64;
        assert_eq!(
            cuGraphExecMemsetNodeSetParams(e, node, &wider, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        launch(e, s);
        assert_eq!(cuGraphExecDestroy(e), CUDA_SUCCESS);
        assert_eq!(cuGraphDestroy(g), CUDA_SUCCESS);
    }
    let got = read_u32s(y);
    let want: Vec<u32> = (0..N as usize)
        .map(|i| {
            if i < 10 || (16..26).contains(&i) {
                5
            } else {
                0
            }
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn event_nodes_take_another_event() {
    let (_, s, _, _, _) = axpc_fixture();
    use cuda::stream::*;
    let (mut e0, mut e1, mut e2) = (0u64, 0u64, 0u64);
    let g = graph();
    let (mut rec, mut wait) = (0u64, 0u64);
    let mut x = 0u64;
    unsafe {
        for e in [&mut e0, &mut e1, &mut e2] {
            assert_eq!(cuEventCreate(e, 0), CUDA_SUCCESS);
        }
        assert_eq!(cuEventRecord(e0, s), CUDA_SUCCESS);
        assert_eq!(
            cuGraphAddEventRecordNode(&mut rec, g, null(), 0, e1),
            CUDA_SUCCESS
        );
        assert_eq!(
            cuGraphAddEventWaitNode(&mut wait, g, &rec, 1, e0),
            CUDA_SUCCESS
        );
        assert_eq!(cuGraphInstantiateWithFlags(&mut x, g, 0), CUDA_SUCCESS);
        // In the instantiated graph only: the node records e2, and e1 stays unrecorded.
        assert_eq!(cuGraphExecEventRecordNodeSetEvent(x, rec, e2), CUDA_SUCCESS);
        assert_eq!(cuGraphExecEventWaitNodeSetEvent(x, wait, e2), CUDA_SUCCESS);
        launch(x, s);
        let mut ms = 0f32;
        assert_eq!(cuEventElapsedTime(&mut ms, e0, e2), CUDA_SUCCESS);
        assert_eq!(
            cuEventElapsedTime(&mut ms, e0, e1),
            CUDA_ERROR_INVALID_HANDLE
        );
        let mut got = 0u64;
        assert_eq!(cuGraphEventRecordNodeGetEvent(rec, &mut got), CUDA_SUCCESS);
        assert_eq!(got, e1);
        // In the graph.
        assert_eq!(cuGraphEventRecordNodeSetEvent(rec, e2), CUDA_SUCCESS);
        assert_eq!(cuGraphEventRecordNodeGetEvent(rec, &mut got), CUDA_SUCCESS);
        assert_eq!(got, e2);
        assert_eq!(cuGraphEventWaitNodeSetEvent(wait, e1), CUDA_SUCCESS);
        assert_eq!(cuGraphEventWaitNodeGetEvent(wait, &mut got), CUDA_SUCCESS);
        assert_eq!(got, e1);
        // A node of the other kind, a dead event.
        assert_eq!(
            cuGraphEventWaitNodeSetEvent(rec, e1),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphExecEventRecordNodeSetEvent(x, wait, e1),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphEventRecordNodeSetEvent(rec, 0xdead),
            CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(cuGraphExecDestroy(x), CUDA_SUCCESS);
        assert_eq!(cuGraphDestroy(g), CUDA_SUCCESS);
    }
}
