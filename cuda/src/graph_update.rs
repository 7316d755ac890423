//! Updating an instantiated graph from a graph of the same topology (CUDA driver API: Graph
//! Management, `cuGraphExecUpdate`).
//!
//! # Rules
//! - The nodes of the two graphs are paired in the order they were added to their graphs
//!   (for captured graphs: the order of the captured calls). The update is refused with
//!   `CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED` when the node counts differ (no error
//!   node), when a node has another number of dependencies than its pair (the error node is
//!   the node of the new graph), or when a dependency is not the pair of its counterpart
//!   (the error node and the mismatched dependency, both of the new graph).
//! - A node whose type changed: `CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED`.
//! - Kernel nodes take the new function, launch shape, dynamic shared memory and parameters;
//!   a change between cooperative and not, or of the cluster shape, is
//!   `CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED`.
//! - Memcpy nodes take the new addresses and sizes; a change of either side's memory type
//!   (or between a linear copy and a 2D/3D descriptor) is
//!   `CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED`.
//! - Memset nodes: a 1D memset takes any new parameters; for a 2D memset only the address
//!   and the value may change (`CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED` otherwise).
//! - Host, event record, event wait and empty nodes take the new function and data, or
//!   event.
//! - A child graph node's work is compared node by node in its execution order, by the rules
//!   above (its internal edges are not compared).
//! - Memory allocation and free nodes cannot change (each graph reserves its own memory):
//!   `CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED` unless they are the very same allocation.
//! - A refused update changes nothing and answers `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE`; an
//!   unknown handle answers `CUDA_ERROR_INVALID_VALUE` with `CU_GRAPH_EXEC_UPDATE_ERROR`.

use crate::errors::*;
use crate::graph::{NodeData, Op};
use crate::state::{with_context, Driver};
use crate::{exports, Fail};
use ptxjit::host::graph::{Graph, GraphError, NodeId};
use std::ffi::c_uint;

/// `CUgraphExecUpdateResult` (the runtime's `cudaGraphExecUpdateResult` has the same values).
pub const UPDATE_SUCCESS: c_uint = 0;
pub const UPDATE_ERROR: c_uint = 1;
pub const UPDATE_ERROR_TOPOLOGY_CHANGED: c_uint = 2;
pub const UPDATE_ERROR_NODE_TYPE_CHANGED: c_uint = 3;
pub const UPDATE_ERROR_PARAMETERS_CHANGED: c_uint = 5;
pub const UPDATE_ERROR_NOT_SUPPORTED: c_uint = 6;
pub const UPDATE_ERROR_ATTRIBUTES_CHANGED: c_uint = 8;

/// `CUgraphExecUpdateResultInfo` (CUDA 12 and later; the runtime's
/// `cudaGraphExecUpdateResultInfo` has the same layout).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ExecUpdateResultInfo {
    /// A `CUgraphExecUpdateResult`.
    pub result: c_uint,
    /// The node of the new graph at fault (the "to" node of a mismatched edge); null when
    /// the error concerns no one node.
    pub error_node: u64,
    /// The mismatched dependency (a node of the new graph) when the topologies differ;
    /// otherwise null.
    pub error_from_node: u64,
}

/// The topology of `graph`: its nodes in the order they were added, each as its handle and
/// the positions (in that order) of the nodes it depends on, ascending.
pub fn shape(graph: &Graph<NodeData>) -> Result<Vec<(u64, Vec<usize>)>, GraphError> {
    let ids = graph.ids();
    let pos = |n: NodeId| {
        ids.iter()
            .position(|&x| x == n)
            .ok_or(GraphError::NoNode(n))
    };
    ids.iter()
        .map(|&id| {
            let deps = graph
                .deps(id)?
                .into_iter()
                .map(pos)
                .collect::<Result<Vec<_>, _>>()?;
            Ok((graph.get(id)?.handle, deps))
        })
        .collect()
}

/// A refused update: what the result info says and the call returns.
struct Refused {
    info: ExecUpdateResultInfo,
    fail: Fail,
}

fn refused(result: c_uint, node: u64, from: u64, why: String) -> Refused {
    Refused {
        info: ExecUpdateResultInfo {
            result,
            error_node: node,
            error_from_node: from,
        },
        fail: Fail::new(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, why),
    }
}

/// What node `node` (of the new graph) becomes in the instantiated graph, whose work there
/// is `old`, when the new graph's work is `new`; the refusal's result and reason otherwise.
pub(crate) fn updated(old: &Op, new: &Op) -> Result<Op, (c_uint, String)> {
    if old.node_type() != new.node_type() {
        return Err((
            UPDATE_ERROR_NODE_TYPE_CHANGED,
            format!(
                "the node's type changed from {} to {}",
                old.node_type(),
                new.node_type()
            ),
        ));
    }
    let params = |what: &str| Err((UPDATE_ERROR_PARAMETERS_CHANGED, what.to_string()));
    match (old, new) {
        (
            Op::Kernel {
                cooperative: c0,
                cluster: k0,
                ..
            },
            Op::Kernel {
                cooperative: c1,
                cluster: k1,
                ..
            },
        ) => {
            if c0 != c1 {
                return Err((
                    UPDATE_ERROR_ATTRIBUTES_CHANGED,
                    "a kernel node cannot change between cooperative and not".into(),
                ));
            }
            if k0 != k1 {
                return Err((
                    UPDATE_ERROR_ATTRIBUTES_CHANGED,
                    format!("a kernel node's cluster shape changed from {k0:?} to {k1:?}"),
                ));
            }
            Ok(new.clone())
        }
        (
            Op::Copy {
                dst_dev: d0,
                src_dev: s0,
                ..
            },
            Op::Copy {
                dst_dev: d1,
                src_dev: s1,
                ..
            },
        ) => {
            if (d0, s0) != (d1, s1) {
                return params("a memcpy node's source or destination memory type changed");
            }
            Ok(new.clone())
        }
        (Op::Copy2d(a), Op::Copy2d(b)) => {
            // SAFETY: the words hold a whole CUDA_MEMCPY2D, 8-byte aligned.
            let (a, b) = unsafe {
                (
                    &*a.as_ptr().cast::<crate::texture::Memcpy2d>(),
                    &*b.as_ptr().cast::<crate::texture::Memcpy2d>(),
                )
            };
            if (a.src_type, a.dst_type) != (b.src_type, b.dst_type) {
                return params("a memcpy node's source or destination memory type changed");
            }
            Ok(new.clone())
        }
        (Op::Copy3d(a), Op::Copy3d(b)) => {
            // SAFETY: the words hold a whole CUDA_MEMCPY3D, 8-byte aligned.
            let (a, b) = unsafe {
                (
                    &*a.as_ptr().cast::<crate::texture::Memcpy3d>(),
                    &*b.as_ptr().cast::<crate::texture::Memcpy3d>(),
                )
            };
            if (a.src_type, a.dst_type) != (b.src_type, b.dst_type) {
                return params("a memcpy node's source or destination memory type changed");
            }
            Ok(new.clone())
        }
        (Op::Copy { .. } | Op::Copy2d(_) | Op::Copy3d(_), _) => {
            params("a memcpy node changed between a linear copy and a 2D/3D copy")
        }
        (
            Op::Memset {
                pitch: p0,
                width: w0,
                count: n0,
                rows: r0,
                ..
            },
            Op::Memset {
                pitch: p1,
                width: w1,
                count: n1,
                rows: r1,
                ..
            },
        ) => {
            let two_d = *r0 > 1 || *r1 > 1;
            if two_d && (p0, w0, n0, r0) != (p1, w1, n1, r1) {
                return params("only the address and the value of a 2D memset node may change");
            }
            Ok(new.clone())
        }
        (Op::Host { .. }, _)
        | (Op::Empty, _)
        | (Op::EventRecord { .. }, _)
        | (Op::EventWait { .. }, _) => Ok(new.clone()),
        (Op::Child(a), Op::Child(b)) => {
            if a.len() != b.len() {
                return Err((
                    UPDATE_ERROR_TOPOLOGY_CHANGED,
                    format!(
                        "the child graph has {} nodes, the instantiated one {}",
                        b.len(),
                        a.len()
                    ),
                ));
            }
            let ops = a
                .iter()
                .zip(b)
                .map(|(x, y)| updated(x, y))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Op::Child(ops))
        }
        (Op::MemAlloc { ptr: p0, bytes: b0 }, Op::MemAlloc { ptr: p1, bytes: b1 })
            if (p0, b0) == (p1, b1) =>
        {
            Ok(new.clone())
        }
        (Op::MemFree { ptr: p0 }, Op::MemFree { ptr: p1 }) if p0 == p1 => Ok(new.clone()),
        (Op::MemAlloc { .. } | Op::MemFree { .. }, _) => Err((
            UPDATE_ERROR_NOT_SUPPORTED,
            "memory allocation and free nodes cannot be updated".into(),
        )),
        // Same node type, so the same variant group: only reached for pairs the arms above
        // split by variant (Kernel, Memset, Child), which share their type with no other.
        (Op::Kernel { .. } | Op::Memset { .. } | Op::Child(_), _) => {
            Err((UPDATE_ERROR, "the node's work is of another form".into()))
        }
    }
}

/// Updates instantiated graph `e` from graph `g`; changes nothing when refused.
fn update(d: &mut Driver, e: u64, g: u64) -> Result<(), Refused> {
    let invalid = |what: String| Refused {
        info: ExecUpdateResultInfo {
            result: UPDATE_ERROR,
            error_node: 0,
            error_from_node: 0,
        },
        fail: Fail::new(CUDA_ERROR_INVALID_VALUE, what),
    };
    let exec = d
        .graphs
        .execs
        .get(&e)
        .ok_or_else(|| invalid(format!("{e:#x} is not a live CUgraphExec")))?;
    let graph = d
        .graphs
        .graphs
        .get(&g)
        .ok_or_else(|| invalid(format!("{g:#x} is not a live CUgraph")))?;
    let new = shape(graph).map_err(|x| invalid(x.to_string()))?;
    if new.len() != exec.shape.len() {
        return Err(refused(
            UPDATE_ERROR_TOPOLOGY_CHANGED,
            0,
            0,
            format!(
                "the graph has {} nodes, the instantiated graph {}",
                new.len(),
                exec.shape.len()
            ),
        ));
    }
    let ids = graph.ids();
    let mut changes = Vec::with_capacity(new.len());
    for (i, ((handle, deps), (old_handle, old_deps))) in new.iter().zip(&exec.shape).enumerate() {
        if deps.len() != old_deps.len() {
            return Err(refused(
                UPDATE_ERROR_TOPOLOGY_CHANGED,
                *handle,
                0,
                format!(
                    "node {handle:#x} has {} dependencies, its pair in the instantiated graph {}",
                    deps.len(),
                    old_deps.len()
                ),
            ));
        }
        if let Some((&dep, _)) = deps.iter().zip(old_deps).find(|(a, b)| a != b) {
            let from = new[dep].0;
            return Err(refused(
                UPDATE_ERROR_TOPOLOGY_CHANGED,
                *handle,
                from,
                format!("node {handle:#x} depends on {from:#x}, whose pair is not a dependency of its pair in the instantiated graph"),
            ));
        }
        let slot = exec
            .ops
            .iter()
            .position(|(h, _)| h == old_handle)
            .ok_or_else(|| invalid(format!("the instantiated graph lost node {old_handle:#x}")))?;
        let node = graph.get(ids[i]).map_err(|x| invalid(x.to_string()))?;
        let new_op = crate::graph_nodes::node_work(d, node).map_err(|f| invalid(f.message))?;
        let op = updated(&exec.ops[slot].1, &new_op).map_err(|(result, why)| {
            refused(result, *handle, 0, format!("node {handle:#x}: {why}"))
        })?;
        changes.push((slot, op));
    }
    if let Some(exec) = d.graphs.execs.get_mut(&e) {
        for (slot, op) in changes {
            exec.ops[slot].1 = op;
        }
    }
    Ok(())
}

exports! { cuGraphExecUpdate_v2 => fn(e: u64, g: u64, info: *mut ExecUpdateResultInfo) {
    let outcome = with_context(|d| Ok(update(d, e, g)))
        .unwrap_or_else(|fail| Err(Refused { info: ExecUpdateResultInfo { result: UPDATE_ERROR, error_node: 0, error_from_node: 0 }, fail }));
    let written = match &outcome {
        Ok(()) => ExecUpdateResultInfo { result: UPDATE_SUCCESS, error_node: 0, error_from_node: 0 },
        Err(r) => r.info,
    };
    if !info.is_null() {
        // SAFETY: a CUgraphExecUpdateResultInfo by the API's contract.
        unsafe { info.write_unaligned(written) };
    }
    outcome.map_err(|r| r.fail)
}}
