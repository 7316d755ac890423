//! `cuGraphDebugDotPrint`: a graph as a Graphviz DOT file (CUDA driver API: Graph
//! Management).
//!
//! One `digraph`; one box per node, labelled with its index (the order nodes were added),
//! its `CUgraphNodeType` name (`KERNEL`, `MEMCPY` …) and what the driver writes by default:
//! the kernel's name, the copy's direction (`HtoD`, `DtoH`, `DtoD`, `HtoH`, with `A` for a
//! CUDA array; a side given as unified memory is named by its address: device memory if an
//! allocation holds it, else host). One arrow per edge, from a dependency to its dependent.
//! `CUgraphDebugDot_flags` add lines: `VERBOSE` (1) all of them, `KERNEL_NODE_PARAMS` (4)
//! the launch shape, `MEMCPY_NODE_PARAMS` (8) extent and addresses, `MEMSET_NODE_PARAMS`
//! (16) the fill, `HOST_NODE_PARAMS` (32) function and data, `EVENT_NODE_PARAMS` (64) the
//! event, `HANDLES` (1024) node and function handles, `MEM_ALLOC_NODE_PARAMS` (2048) and
//! `MEM_FREE_NODE_PARAMS` (4096) the address and size, `EXTRA_TOPO_INFO` (16384) edge
//! numbers. Parameters are named as the driver's structures name them
//! (`CUDA_KERNEL_NODE_PARAMS`: `gridDimX`; `CUDA_MEMCPY3D`, which every copy node is:
//! `WidthInBytes`), or with `RUNTIME_TYPES` (2, "use CUDA Runtime structures") as the
//! runtime's do (`cudaKernelNodeParams`: `gridDim`; `cudaMemcpy3DParms`: `extent`, `srcPtr`,
//! `dstPtr`, `kind`); the memset, host, event and memory node structures name their fields
//! alike in both. `VERBOSE` adds every line but leaves the names the driver's. The other
//! flags name node kinds this library does not have (external semaphores, batch memory
//! operations, conditional nodes) or kernel node attributes, which it does not keep: they add
//! nothing.

use crate::errors::*;
use crate::graph::Op;
use crate::state::{with_context, Driver};
use crate::texture::{Memcpy2d, Memcpy3d};
use crate::{exports, Fail};
use std::ffi::{c_char, c_uint, CStr};
use std::fmt::Write;

const VERBOSE: c_uint = 1 << 0;
const RUNTIME_TYPES: c_uint = 1 << 1;
const KERNEL_NODE_PARAMS: c_uint = 1 << 2;
const MEMCPY_NODE_PARAMS: c_uint = 1 << 3;
const MEMSET_NODE_PARAMS: c_uint = 1 << 4;
const HOST_NODE_PARAMS: c_uint = 1 << 5;
const EVENT_NODE_PARAMS: c_uint = 1 << 6;
const HANDLES: c_uint = 1 << 10;
const MEM_ALLOC_NODE_PARAMS: c_uint = 1 << 11;
const MEM_FREE_NODE_PARAMS: c_uint = 1 << 12;
const EXTRA_TOPO_INFO: c_uint = 1 << 14;

/// `CUmemorytype` values.
const MEMORY_HOST: c_uint = 1;
const MEMORY_DEVICE: c_uint = 2;
const MEMORY_ARRAY: c_uint = 3;
const MEMORY_UNIFIED: c_uint = 4;

/// A string as a DOT quoted string's contents.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// `H` or `D` for an address: device memory if a live allocation holds it.
fn by_address(d: &Driver, p: u64) -> char {
    if d.host.memory().allocation_at(p).is_some() {
        'D'
    } else {
        'H'
    }
}

/// One side of a copy descriptor as `H`, `D` or `A`; `?` for a memory type CUDA does not
/// define (the copy itself fails when it runs).
fn side(d: &Driver, ty: c_uint, host: u64, device: u64) -> char {
    match ty {
        MEMORY_HOST => 'H',
        MEMORY_DEVICE => 'D',
        MEMORY_ARRAY => 'A',
        MEMORY_UNIFIED => by_address(d, device.max(host)),
        _ => '?',
    }
}

/// One end of a copy: its `CUmemorytype`, host and device addresses (one of them zero) and
/// pitch.
struct CopyEnd {
    ty: c_uint,
    host: u64,
    device: u64,
    pitch: usize,
}

impl CopyEnd {
    fn new(ty: c_uint, host: u64, device: u64, pitch: usize) -> CopyEnd {
        CopyEnd {
            ty,
            host,
            device,
            pitch,
        }
    }

    /// The address the end names.
    fn address(&self) -> u64 {
        self.device.max(self.host)
    }
}

/// The lines of a copy node (`ends`: source, destination; `extent`: bytes a row, rows,
/// slices): its direction, then with `MEMCPY_NODE_PARAMS` the extent and both ends, named as
/// `CUDA_MEMCPY3D` names them or, with `RUNTIME_TYPES`, as `cudaMemcpy3DParms` does.
fn pitched_copy_lines(
    d: &Driver,
    lines: &mut Vec<String>,
    ends: [CopyEnd; 2],
    extent: [usize; 3],
    flags: c_uint,
) {
    let [src, dst] = ends;
    let s = side(d, src.ty, src.host, src.device);
    let t = side(d, dst.ty, dst.host, dst.device);
    lines.push(format!("{s}to{t}"));
    if flags & (MEMCPY_NODE_PARAMS | VERBOSE) == 0 {
        return;
    }
    let [w, h, depth] = extent;
    if flags & RUNTIME_TYPES != 0 {
        lines.push(format!(
            "extent: {{width: {w}, height: {h}, depth: {depth}}}"
        ));
        for (name, end) in [("srcPtr", &src), ("dstPtr", &dst)] {
            let (ptr, pitch) = (end.address(), end.pitch);
            lines.push(format!("{name}: {{ptr: {ptr:#x}, pitch: {pitch}}}"));
        }
        lines.push(format!("kind: {}", memcpy_kind(s, t)));
    } else {
        lines.push(format!("WidthInBytes: {w}, Height: {h}, Depth: {depth}"));
        for (name, end) in [("src", &src), ("dst", &dst)] {
            let (ptr, pitch) = (end.address(), end.pitch);
            lines.push(format!("{name}: {ptr:#x} (pitch {pitch})"));
        }
    }
}

/// The `cudaMemcpyKind` of a copy between sides `s` and `t` of [`side`] (an array is device
/// memory); `cudaMemcpyDefault` where a side's memory type is not one CUDA defines.
fn memcpy_kind(s: char, t: char) -> &'static str {
    let on_device = |c: char| match c {
        'H' => Some(false),
        'D' | 'A' => Some(true),
        _ => None,
    };
    match (on_device(s), on_device(t)) {
        (Some(false), Some(false)) => "cudaMemcpyHostToHost",
        (Some(false), Some(true)) => "cudaMemcpyHostToDevice",
        (Some(true), Some(false)) => "cudaMemcpyDeviceToHost",
        (Some(true), Some(true)) => "cudaMemcpyDeviceToDevice",
        (None, _) | (_, None) => "cudaMemcpyDefault",
    }
}

/// The label lines of one node.
fn node_lines(d: &Driver, index: usize, handle: u64, op: &Op, flags: c_uint) -> Vec<String> {
    let want = |f: c_uint| flags & (f | VERBOSE) != 0;
    let name = match op {
        Op::Kernel { .. } => "KERNEL",
        Op::Copy { .. } | Op::Copy2d(_) | Op::Copy3d(_) => "MEMCPY",
        Op::Memset { .. } => "MEMSET",
        Op::Host { .. } => "HOST",
        Op::Empty => "EMPTY",
        Op::Child(_) => "GRAPH",
        Op::EventRecord { .. } => "EVENT_RECORD",
        Op::EventWait { .. } => "WAIT_EVENT",
        Op::MemAlloc { .. } => "MEM_ALLOC",
        Op::MemFree { .. } => "MEM_FREE",
    };
    let mut lines = vec![index.to_string(), name.to_string()];
    if want(HANDLES) {
        lines.push(format!("node handle: {handle:#x}"));
    }
    match op {
        Op::Kernel {
            f,
            dims,
            params,
            cooperative,
            cluster,
        } => {
            match d.function(*f) {
                Ok(fs) => lines.push(fs.kernel.compiled.name.clone()),
                Err(_) => lines.push("(a destroyed function)".into()),
            }
            if want(HANDLES) {
                lines.push(format!("function handle: {f:#x}"));
            }
            if want(KERNEL_NODE_PARAMS) {
                let ([gx, gy, gz], [bx, by, bz]) = (dims.grid, dims.block);
                if flags & RUNTIME_TYPES != 0 {
                    // cudaKernelNodeParams: dim3 gridDim, blockDim.
                    lines.push(format!("gridDim: ({gx}, {gy}, {gz})"));
                    lines.push(format!("blockDim: ({bx}, {by}, {bz})"));
                } else {
                    // CUDA_KERNEL_NODE_PARAMS: gridDimX … blockDimZ.
                    lines.push(format!("gridDimX: {gx}, gridDimY: {gy}, gridDimZ: {gz}"));
                    lines.push(format!("blockDimX: {bx}, blockDimY: {by}, blockDimZ: {bz}"));
                }
                lines.push(format!("sharedMemBytes: {}", dims.shared_bytes));
                lines.push(format!("parameter bytes: {}", params.len()));
                if *cooperative {
                    lines.push("cooperative".into());
                }
                if let Some(c) = cluster {
                    lines.push(format!("clusterDim: {c:?}"));
                }
            }
        }
        Op::Copy {
            dst,
            dst_dev,
            src,
            src_dev,
            n,
            ..
        } => {
            // A side not known to be device memory is named by its address, as unified memory.
            let ty = |dev: bool| if dev { MEMORY_DEVICE } else { MEMORY_UNIFIED };
            let ends = [
                CopyEnd::new(ty(*src_dev), 0, *src, 0),
                CopyEnd::new(ty(*dst_dev), 0, *dst, 0),
            ];
            pitched_copy_lines(d, &mut lines, ends, [*n, 1, 1], flags);
        }
        Op::Copy2d(words) => {
            // SAFETY: the words hold a CUDA_MEMCPY2D's bytes, 8-byte aligned.
            let c = unsafe { &*words.as_ptr().cast::<Memcpy2d>() };
            let ends = [
                CopyEnd::new(c.src_type, c.src_host as u64, c.src_device, c.src_pitch),
                CopyEnd::new(c.dst_type, c.dst_host as u64, c.dst_device, c.dst_pitch),
            ];
            pitched_copy_lines(d, &mut lines, ends, [c.width, c.height, 1], flags);
        }
        Op::Copy3d(words) => {
            // SAFETY: the words hold a CUDA_MEMCPY3D's bytes, 8-byte aligned.
            let c = unsafe { &*words.as_ptr().cast::<Memcpy3d>() };
            let ends = [
                CopyEnd::new(c.src_type, c.src_host as u64, c.src_device, c.src_pitch),
                CopyEnd::new(c.dst_type, c.dst_host as u64, c.dst_device, c.dst_pitch),
            ];
            pitched_copy_lines(d, &mut lines, ends, [c.width, c.height, c.depth], flags);
        }
        Op::Memset {
            dst,
            pitch,
            value,
            width,
            count,
            rows,
        } => {
            if want(MEMSET_NODE_PARAMS) {
                lines.push(format!("dst: {dst:#x}"));
                lines.push(format!("pitch: {pitch}"));
                lines.push(format!("value: {value:#x}"));
                lines.push(format!("elementSize: {width}"));
                lines.push(format!("width: {count}, height: {rows}"));
            }
        }
        Op::Host { f, data } => {
            if want(HOST_NODE_PARAMS) {
                lines.push(format!("fn: {:#x}", *f as usize));
                lines.push(format!("userData: {data:#x}"));
            }
        }
        Op::Empty => {}
        Op::Child(ops) => lines.push(format!("{} nodes", ops.len())),
        Op::EventRecord { e } | Op::EventWait { e } => {
            if want(EVENT_NODE_PARAMS) {
                lines.push(format!("event: {e:#x}"));
            }
        }
        Op::MemAlloc { ptr, bytes } => {
            if want(MEM_ALLOC_NODE_PARAMS) {
                lines.push(format!("dptr: {ptr:#x}"));
                lines.push(format!("bytesize: {bytes}"));
            }
        }
        Op::MemFree { ptr } => {
            if want(MEM_FREE_NODE_PARAMS) {
                lines.push(format!("dptr: {ptr:#x}"));
            }
        }
    }
    lines
}

/// The DOT text of graph `g`.
pub fn dot(d: &Driver, g: u64, flags: c_uint) -> Result<String, Fail> {
    let graph = crate::graph_nodes::graph_ref(d, g)?;
    let mut text = String::new();
    let _ = writeln!(text, "digraph \"CUgraph {g:#x}\" {{");
    let _ = writeln!(text, "  node [shape=rectangle];");
    let ids = graph.ids();
    // Node handle -> its index in the file.
    let mut index = std::collections::HashMap::new();
    for (i, id) in ids.iter().enumerate() {
        let Ok(node) = graph.get(*id) else {
            continue;
        };
        index.insert(node.handle, i);
        // A child-graph node's work as its own graph stands now.
        let op = crate::graph_nodes::node_work(d, node)?;
        let label = node_lines(d, i, node.handle, &op, flags)
            .iter()
            .map(|l| escape(l))
            .collect::<Vec<_>>()
            .join("\\n");
        let _ = writeln!(text, "  n{i} [label=\"{label}\"];");
    }
    for (k, (from, to)) in crate::graph_nodes::edges(d, g)?.into_iter().enumerate() {
        let (Some(a), Some(b)) = (index.get(&from), index.get(&to)) else {
            continue;
        };
        if flags & (EXTRA_TOPO_INFO | VERBOSE) != 0 {
            let _ = writeln!(text, "  n{a} -> n{b} [label=\"edge {k}\"];");
        } else {
            let _ = writeln!(text, "  n{a} -> n{b};");
        }
    }
    text.push_str("}\n");
    Ok(text)
}

exports! { cuGraphDebugDotPrint => fn(g: u64, path: *const c_char, flags: c_uint) {
    if path.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null path"));
    }
    // SAFETY: a NUL-terminated path by the API's contract.
    let path = unsafe { CStr::from_ptr(path) };
    let path = std::path::Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(path.to_bytes()));
    let text = with_context(|d| dot(d, g, flags))?;
    std::fs::write(path, text).map_err(|e| {
        Fail::new(CUDA_ERROR_OPERATING_SYSTEM, format!("writing {}: {e}", path.display()))
    })
}}
