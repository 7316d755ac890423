//! Graphs built node by node (CUDA Runtime API: Graph Management), forwarded to the driver:
//! `cudaGraph_t` is `CUgraph`, `cudaGraphNode_t` is `CUgraphNode`, and the runtime's node
//! parameter structs used here have the driver's layouts (`cudaHostNodeParams` is
//! `CUDA_HOST_NODE_PARAMS`; `cudaMemAllocNodeParams`, whose `cudaMemPoolProps` matches
//! `CUmemPoolProps`, is `CUDA_MEM_ALLOC_NODE_PARAMS`).

use crate::state::context;
use crate::{cu, exports};
use std::ffi::c_void;

exports! { cudaGraphAddEmptyNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize) {
    context()?;
    cu!(cuGraphAddEmptyNode(node, graph, deps, n))
}}

exports! { cudaGraphAddHostNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize, params: *const c_void) {
    context()?;
    cu!(cuGraphAddHostNode(node, graph, deps, n, params))
}}

exports! { cudaGraphAddChildGraphNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize, child: u64) {
    context()?;
    cu!(cuGraphAddChildGraphNode(node, graph, deps, n, child))
}}

exports! { cudaGraphAddEventRecordNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize, event: u64) {
    context()?;
    cu!(cuGraphAddEventRecordNode(node, graph, deps, n, event))
}}

exports! { cudaGraphAddEventWaitNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize, event: u64) {
    context()?;
    cu!(cuGraphAddEventWaitNode(node, graph, deps, n, event))
}}

exports! { cudaGraphAddMemAllocNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize, params: *mut c_void) {
    context()?;
    cu!(cuGraphAddMemAllocNode(node, graph, deps, n, params))
}}

exports! { cudaGraphAddMemFreeNode => fn(node: *mut u64, graph: u64, deps: *const u64, n: usize, dptr: *mut c_void) {
    context()?;
    cu!(cuGraphAddMemFreeNode(node, graph, deps, n, dptr as u64))
}}

exports! { cudaGraphGetNodes => fn(graph: u64, nodes: *mut u64, count: *mut usize) {
    context()?;
    cu!(cuGraphGetNodes(graph, nodes, count))
}}

// cudaGraphNodeType and CUgraphNodeType share their values.
exports! { cudaGraphNodeGetType => fn(node: u64, ty: *mut std::ffi::c_uint) {
    context()?;
    cu!(cuGraphNodeGetType(node, ty))
}}
