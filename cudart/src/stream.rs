//! Streams, events, host callbacks and stream capture (CUDA Runtime API: Stream Management,
//! Event Management, Graph Management), forwarded to the driver: `cudaStream_t` is
//! `CUstream`, `cudaEvent_t` is `CUevent`, `cudaGraph_t` is `CUgraph`, and the runtime's
//! stream handles 0 (legacy default) and `cudaStreamPerThread` (2) are the driver's too.

use crate::errors::*;
use crate::state::context;
use crate::{cu, exports, Fail};
use std::ffi::{c_float, c_int, c_uint, c_void};

exports! { cudaStreamCreate => fn(s: *mut u64) {
    context()?;
    cu!(cuStreamCreate(s, 0))
}}

exports! { cudaStreamCreateWithFlags => fn(s: *mut u64, flags: c_uint) {
    context()?;
    cu!(cuStreamCreate(s, flags))
}}

exports! { cudaStreamCreateWithPriority => fn(s: *mut u64, flags: c_uint, priority: c_int) {
    context()?;
    cu!(cuStreamCreateWithPriority(s, flags, priority))
}}

exports! { cudaStreamDestroy => fn(s: u64) {
    context()?;
    cu!(cuStreamDestroy_v2(s))
}}

exports! { cudaStreamSynchronize, cudaStreamSynchronize_ptsz => fn(s: u64) {
    context()?;
    cu!(cuStreamSynchronize(s))
}}

exports! { cudaStreamQuery, cudaStreamQuery_ptsz => fn(s: u64) {
    context()?;
    cu!(cuStreamQuery(s))
}}

exports! { cudaStreamWaitEvent, cudaStreamWaitEvent_ptsz => fn(s: u64, e: u64, flags: c_uint) {
    context()?;
    cu!(cuStreamWaitEvent(s, e, flags))
}}

exports! { cudaStreamGetFlags, cudaStreamGetFlags_ptsz => fn(s: u64, flags: *mut c_uint) {
    context()?;
    cu!(cuStreamGetFlags(s, flags))
}}

exports! { cudaStreamGetPriority, cudaStreamGetPriority_ptsz => fn(s: u64, priority: *mut c_int) {
    context()?;
    cu!(cuStreamGetPriority(s, priority))
}}

// cudaStreamAttrValue is CUstreamAttrValue and cudaStreamAttrID is CUstreamAttrID (one
// 64-byte union, one numbering): the L2 access-policy window and the other hints are kept by
// the driver and read back, with no effect on a CPU.
exports! { cudaStreamSetAttribute, cudaStreamSetAttribute_ptsz => fn(s: u64, attr: c_uint, value: *const c_void) {
    context()?;
    cu!(cuStreamSetAttribute(s, attr, value))
}}

exports! { cudaStreamGetAttribute, cudaStreamGetAttribute_ptsz => fn(s: u64, attr: c_uint, value: *mut c_void) {
    context()?;
    cu!(cuStreamGetAttribute(s, attr, value))
}}

exports! { cudaCtxResetPersistingL2Cache => fn() {
    context()?;
    cu!(cuCtxResetPersistingL2Cache())
}}

// cudaMemAttachGlobal/Host/Single are CU_MEM_ATTACH_GLOBAL/HOST/SINGLE.
exports! { cudaStreamAttachMemAsync, cudaStreamAttachMemAsync_ptsz => fn(s: u64, p: *mut c_void, length: usize, flags: c_uint) {
    context()?;
    cu!(cuStreamAttachMemAsync(s, p as u64, length, flags))
}}

// cudaStreamCallback_t takes (stream, cudaError_t, userData), CUstreamCallback (stream,
// CUresult, userData): one ABI, and the status passed is success (0) in both enums.
exports! { cudaStreamAddCallback, cudaStreamAddCallback_ptsz => fn(s: u64, callback: *mut c_void, data: *mut c_void, flags: c_uint) {
    context()?;
    cu!(cuStreamAddCallback(s, callback, data, flags))
}}

exports! { cudaLaunchHostFunc, cudaLaunchHostFunc_ptsz => fn(s: u64, f: *mut c_void, data: *mut c_void) {
    context()?;
    cu!(cuLaunchHostFunc(s, f, data))
}}

exports! { cudaEventCreate => fn(e: *mut u64) {
    context()?;
    cu!(cuEventCreate(e, 0))
}}

exports! { cudaEventCreateWithFlags => fn(e: *mut u64, flags: c_uint) {
    context()?;
    // cudaEventDefault, cudaEventBlockingSync 1, cudaEventDisableTiming 2, cudaEventInterprocess
    // 4; NVIDIA's runtime refuses other bits itself (cudaErrorInvalidValue).
    if flags & !7 != 0 {
        return Err(Fail::new(
            cudaErrorInvalidValue,
            format!("event flags {flags:#x}: only cudaEventBlockingSync, cudaEventDisableTiming and cudaEventInterprocess are valid"),
        ));
    }
    cu!(cuEventCreate(e, flags))
}}

exports! { cudaEventDestroy => fn(e: u64) {
    context()?;
    cu!(cuEventDestroy_v2(e))
}}

exports! { cudaEventRecord, cudaEventRecord_ptsz => fn(e: u64, s: u64) {
    context()?;
    cu!(cuEventRecord(e, s))
}}

exports! { cudaEventRecordWithFlags, cudaEventRecordWithFlags_ptsz => fn(e: u64, s: u64, flags: c_uint) {
    context()?;
    cu!(cuEventRecordWithFlags(e, s, flags))
}}

exports! { cudaEventQuery => fn(e: u64) {
    context()?;
    cu!(cuEventQuery(e))
}}

exports! { cudaEventSynchronize => fn(e: u64) {
    context()?;
    cu!(cuEventSynchronize(e))
}}

exports! { cudaEventElapsedTime, cudaEventElapsedTime_v2 => fn(ms: *mut c_float, start: u64, end: u64) {
    context()?;
    cu!(cuEventElapsedTime_v2(ms, start, end))
}}

exports! { cudaStreamBeginCapture, cudaStreamBeginCapture_ptsz => fn(s: u64, mode: c_int) {
    context()?;
    cu!(cuStreamBeginCapture_v2(s, mode))
}}

exports! { cudaStreamEndCapture, cudaStreamEndCapture_ptsz => fn(s: u64, graph: *mut u64) {
    context()?;
    cu!(cuStreamEndCapture(s, graph))
}}

exports! { cudaStreamIsCapturing, cudaStreamIsCapturing_ptsz => fn(s: u64, status: *mut c_int) {
    context()?;
    cu!(cuStreamIsCapturing(s, status))
}}

exports! { cudaStreamGetCaptureInfo, cudaStreamGetCaptureInfo_ptsz => fn(s: u64, status: *mut c_int, id: *mut u64, graph: *mut u64, deps: *mut *const u64, edges: *mut *const c_void, num_deps: *mut usize) {
    context()?;
    cu!(cuStreamGetCaptureInfo_v3(s, status, id, graph, deps, edges, num_deps))
}}

// cudaStreamCaptureMode and CUstreamCaptureMode share their values.
exports! { cudaThreadExchangeStreamCaptureMode => fn(mode: *mut c_int) {
    cu!(cuThreadExchangeStreamCaptureMode(mode))
}}

exports! { cudaStreamGetId, cudaStreamGetId_ptsz => fn(s: u64, id: *mut u64) {
    context()?;
    cu!(cuStreamGetId(s, id))
}}

exports! { cudaStreamGetDevice, cudaStreamGetDevice_ptsz => fn(s: u64, dev: *mut c_int) {
    context()?;
    // Checks the handle; the one device is the stream's device.
    let mut flags = 0;
    cu!(cuStreamGetFlags(s, &mut flags))?;
    unsafe { crate::out(dev, crate::state::device()) }
}}

exports! { cudaGraphCreate => fn(graph: *mut u64, flags: c_uint) {
    context()?;
    cu!(cuGraphCreate(graph, flags))
}}

exports! { cudaGraphInstantiate, cudaGraphInstantiateWithFlags => fn(exec: *mut u64, graph: u64, flags: u64) {
    context()?;
    cu!(cuGraphInstantiateWithFlags(exec, graph, flags))
}}

exports! { cudaGraphLaunch, cudaGraphLaunch_ptsz => fn(exec: u64, s: u64) {
    context()?;
    // A fault of the graph's kernels comes from the next synchronising call, as a launch's
    // (the driver's rule).
    cu!(cuGraphLaunch(exec, s))
}}

exports! { cudaGraphDestroy => fn(graph: u64) {
    context()?;
    cu!(cuGraphDestroy(graph))
}}

exports! { cudaGraphExecDestroy => fn(exec: u64) {
    context()?;
    cu!(cuGraphExecDestroy(exec))
}}
