//! A graph's edges (`cuGraphGetEdges`, `cuGraphGetEdges_v2`, as cuda.h documents them: a
//! count with null arrays, unused slots set to null, zeroed edge data) and its DOT file
//! (`cuGraphDebugDotPrint`: node types, the kernel's name, the copy's direction, one arrow
//! per edge). The graph: a memset, then the `axpc` kernel, then a device-to-host copy, with
//! an empty node depending on the memset too. Expected values come from the graph as built.

use cuda::errors::*;
use cuda::graph_dot::*;
use cuda::graph_nodes::*;
use cuda::memory::*;
use cuda::texture::Memcpy3d;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};

mod common;
use common::{add_axpc_node, add_memset_node, function, load, setup, AXPC_N as N, AXPC_PTX as PTX};

#[test]
fn edges_and_dot_file() {
    setup();
    let m = load(&CString::new(PTX).unwrap());
    let f = function(m, "axpc");
    let mut host = vec![0u32; N as usize];
    unsafe {
        let mut x = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut x, 4 * N as usize), CUDA_SUCCESS);
        let mut g = 0u64;
        assert_eq!(cuda::graph_nodes::cuGraphCreate(&mut g, 0), CUDA_SUCCESS);
        let memset = add_memset_node(g, &[], x, 3);
        let kernel = add_axpc_node(g, &[memset], f, x, 5, 2, 64);
        let mut copy_desc: Memcpy3d = std::mem::zeroed();
        copy_desc.src_type = 2; // CU_MEMORYTYPE_DEVICE
        copy_desc.src_device = x;
        copy_desc.dst_type = 1; // CU_MEMORYTYPE_HOST
        copy_desc.dst_host = host.as_mut_ptr().cast::<c_void>();
        copy_desc.width = 4 * N as usize;
        copy_desc.height = 1;
        copy_desc.depth = 1;
        let mut copy = 0u64;
        assert_eq!(
            cuda::graph_nodes::cuGraphAddMemcpyNode(&mut copy, g, &kernel, 1, &copy_desc, 0),
            CUDA_SUCCESS
        );
        let mut empty = 0u64;
        assert_eq!(cuGraphAddEmptyNode(&mut empty, g, &memset, 1), CUDA_SUCCESS);

        // The count alone.
        let mut count = 0usize;
        assert_eq!(
            cuGraphGetEdges(g, null_mut(), null_mut(), &mut count),
            CUDA_SUCCESS
        );
        assert_eq!(count, 3);
        // Room for five: three edges, two null slots, the count written back.
        let (mut from, mut to) = ([7u64; 5], [7u64; 5]);
        count = 5;
        assert_eq!(
            cuGraphGetEdges(g, from.as_mut_ptr(), to.as_mut_ptr(), &mut count),
            CUDA_SUCCESS
        );
        assert_eq!(count, 3);
        let mut got: Vec<(u64, u64)> = (0..3).map(|i| (from[i], to[i])).collect();
        got.sort();
        let mut want = vec![(memset, kernel), (kernel, copy), (memset, empty)];
        want.sort();
        assert_eq!(got, want);
        assert_eq!((from[3], to[3], from[4], to[4]), (0, 0, 0, 0));
        // Room for one: one edge of the three.
        count = 1;
        let (mut f1, mut t1) = (0u64, 0u64);
        assert_eq!(
            cuGraphGetEdges(g, &mut f1, &mut t1, &mut count),
            CUDA_SUCCESS
        );
        assert_eq!(count, 1);
        assert!(want.contains(&(f1, t1)));
        // _v2 with edge data: each edge's data is the default, all zeros.
        let mut data = [0xffu8; 8 * 3];
        count = 3;
        assert_eq!(
            cuGraphGetEdges_v2(
                g,
                from.as_mut_ptr(),
                to.as_mut_ptr(),
                data.as_mut_ptr().cast(),
                &mut count
            ),
            CUDA_SUCCESS
        );
        assert_eq!(count, 3);
        assert!(data.iter().all(|&b| b == 0));
        // One array without the other, edge data without the arrays, no count.
        assert_eq!(
            cuGraphGetEdges(g, from.as_mut_ptr(), null_mut(), &mut count),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphGetEdges_v2(
                g,
                null_mut(),
                null_mut(),
                data.as_mut_ptr().cast(),
                &mut count
            ),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphGetEdges(g, null_mut(), null_mut(), null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );

        // The DOT file, by default and with the kernel's parameters.
        let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let path = dir.join("graph_inspect.dot");
        let cpath = CString::new(path.to_str().unwrap()).unwrap();
        assert_eq!(cuGraphDebugDotPrint(g, cpath.as_ptr(), 0), CUDA_SUCCESS);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("digraph "), "{text}");
        assert!(text.trim_end().ends_with('}'), "{text}");
        // Nodes in the order they were added: memset 0, kernel 1, copy 2, empty 3.
        for line in [
            r#"n0 [label="0\nMEMSET"];"#,
            r#"n1 [label="1\nKERNEL\naxpc"];"#,
            r#"n2 [label="2\nMEMCPY\nDtoH"];"#,
            r#"n3 [label="3\nEMPTY"];"#,
            "n0 -> n1;",
            "n1 -> n2;",
            "n0 -> n3;",
        ] {
            assert!(
                text.lines().any(|l| l.trim() == line),
                "no {line} in\n{text}"
            );
        }
        assert_eq!(text.matches("->").count(), 3, "{text}");
        let kernel_params = 1 << 2;
        assert_eq!(
            cuGraphDebugDotPrint(g, cpath.as_ptr(), kernel_params),
            CUDA_SUCCESS
        );
        let text = std::fs::read_to_string(&path).unwrap();
        // Named as CUDA_KERNEL_NODE_PARAMS names them.
        let grid = N.div_ceil(64);
        let want = format!(
            r#"gridDimX: {grid}, gridDimY: 1, gridDimZ: 1\nblockDimX: 64, blockDimY: 1, blockDimZ: 1\nsharedMemBytes: 0"#
        );
        assert!(text.contains(&want), "{text}");
        assert!(!text.contains("WidthInBytes"), "{text}");
        // CU_GRAPH_DEBUG_DOT_FLAGS_RUNTIME_TYPES (2): as cudaKernelNodeParams names them.
        let runtime_types = 1 << 1;
        assert_eq!(
            cuGraphDebugDotPrint(g, cpath.as_ptr(), kernel_params | runtime_types),
            CUDA_SUCCESS
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let want = format!(r#"gridDim: ({grid}, 1, 1)\nblockDim: (64, 1, 1)\nsharedMemBytes: 0"#);
        assert!(text.contains(&want), "{text}");
        // The copy node (a CUDA_MEMCPY3D of 4 * N bytes from x to `host`) with
        // CU_GRAPH_DEBUG_DOT_FLAGS_MEMCPY_NODE_PARAMS (8), by the driver's and the runtime's names.
        let memcpy_params = 1 << 3;
        let (bytes, dst) = (4 * N, host.as_ptr() as u64);
        assert_eq!(
            cuGraphDebugDotPrint(g, cpath.as_ptr(), memcpy_params),
            CUDA_SUCCESS
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let want = format!(
            r#"DtoH\nWidthInBytes: {bytes}, Height: 1, Depth: 1\nsrc: {x:#x} (pitch 0)\ndst: {dst:#x} (pitch 0)"#
        );
        assert!(text.contains(&want), "{text}");
        assert!(!text.contains("gridDim"), "{text}");
        assert_eq!(
            cuGraphDebugDotPrint(g, cpath.as_ptr(), memcpy_params | runtime_types),
            CUDA_SUCCESS
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let want = format!(
            r#"DtoH\nextent: {{width: {bytes}, height: 1, depth: 1}}\nsrcPtr: {{ptr: {x:#x}, pitch: 0}}\ndstPtr: {{ptr: {dst:#x}, pitch: 0}}\nkind: cudaMemcpyDeviceToHost"#
        );
        assert!(text.contains(&want), "{text}");
        assert_eq!(cuGraphDebugDotPrint(g, null(), 0), CUDA_ERROR_INVALID_VALUE);
        let bad = CString::new(dir.join("no/such/dir/g.dot").to_str().unwrap()).unwrap();
        assert_eq!(
            cuGraphDebugDotPrint(g, bad.as_ptr(), 0),
            CUDA_ERROR_OPERATING_SYSTEM
        );
    }
}
