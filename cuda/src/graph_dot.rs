//! `cuGraphDebugDotPrint`: a graph as a Graphviz DOT file (CUDA driver API: Graph
//! Management).
//!
//! One `digraph`; one box per node, labelled with its index (the order nodes were added),
//! its `CUgraphNodeType` name (`KERNEL`, `MEMCPY` …) and what the driver writes by default:
//! the kernel's name, the copy's direction (`HtoD`, `DtoH`, `DtoD`, `HtoH`, with `A` for a
//! CUDA array; a side given as unified memory is named by its address: device memory if an
//! allocation holds it, else host). One arrow per edge, from a dependency to its dependent.
//! `CUgraphDebugDot_flags` add lines: `VERBOSE` (1) all of them, `KERNEL_NODE_PARAMS` (4)
//! the launch shape, `MEMCPY_NODE_PARAMS` (8) addresses and extent, `MEMSET_NODE_PARAMS`
//! (16) the fill, `HOST_NODE_PARAMS` (32) function and data, `EVENT_NODE_PARAMS` (64) the
//! event, `HANDLES` (1024) node and function handles, `MEM_ALLOC_NODE_PARAMS` (2048) and
//! `MEM_FREE_NODE_PARAMS` (4096) the address and size, `EXTRA_TOPO_INFO` (16384) edge
//! numbers. The other flags name node kinds this library does not have (external
//! semaphores, batch memory operations, conditional nodes) or ask for runtime type names
//! (`RUNTIME_TYPES`): they add nothing.

use crate::errors::*;
use crate::graph::Op;
use crate::state::{with_context, Driver};
use crate::texture::{Memcpy2d, Memcpy3d};
use crate::{exports, Fail};
use std::ffi::{c_char, c_uint, CStr};
use std::fmt::Write;

const VERBOSE: c_uint = 1 << 0;
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
                lines.push(format!("gridDim: {:?}", dims.grid));
                lines.push(format!("blockDim: {:?}", dims.block));
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
            let s = if *src_dev { 'D' } else { by_address(d, *src) };
            let t = if *dst_dev { 'D' } else { by_address(d, *dst) };
            lines.push(format!("{s}to{t}"));
            if want(MEMCPY_NODE_PARAMS) {
                lines.push(format!("src: {src:#x}"));
                lines.push(format!("dst: {dst:#x}"));
                lines.push(format!("bytes: {n}"));
            }
        }
        Op::Copy2d(words) => {
            // SAFETY: the words hold a CUDA_MEMCPY2D's bytes, 8-byte aligned.
            let c = unsafe { &*words.as_ptr().cast::<Memcpy2d>() };
            let s = side(d, c.src_type, c.src_host as u64, c.src_device);
            let t = side(d, c.dst_type, c.dst_host as u64, c.dst_device);
            lines.push(format!("{s}to{t}"));
            if want(MEMCPY_NODE_PARAMS) {
                lines.push(format!("WidthInBytes: {}, Height: {}", c.width, c.height));
                lines.push(format!(
                    "src: {:#x} (pitch {})",
                    c.src_device.max(c.src_host as u64),
                    c.src_pitch
                ));
                lines.push(format!(
                    "dst: {:#x} (pitch {})",
                    c.dst_device.max(c.dst_host as u64),
                    c.dst_pitch
                ));
            }
        }
        Op::Copy3d(words) => {
            // SAFETY: the words hold a CUDA_MEMCPY3D's bytes, 8-byte aligned.
            let c = unsafe { &*words.as_ptr().cast::<Memcpy3d>() };
            let s = side(d, c.src_type, c.src_host as u64, c.src_device);
            let t = side(d, c.dst_type, c.dst_host as u64, c.dst_device);
            lines.push(format!("{s}to{t}"));
            if want(MEMCPY_NODE_PARAMS) {
                lines.push(format!(
                    "WidthInBytes: {}, Height: {}, Depth: {}",
                    c.width, c.height, c.depth
                ));
                lines.push(format!(
                    "src: {:#x} (pitch {})",
                    c.src_device.max(c.src_host as u64),
                    c.src_pitch
                ));
                lines.push(format!(
                    "dst: {:#x} (pitch {})",
                    c.dst_device.max(c.dst_host as u64),
                    c.dst_pitch
                ));
            }
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
        let label = node_lines(d, i, node.handle, &node.op, flags)
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
