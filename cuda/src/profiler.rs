//! Profiler control (CUDA driver API: Profiler Control, `cudaProfiler.h`).
//!
//! No profiler attaches to ptxjit: starting and stopping collection succeed and do nothing,
//! as the driver's calls do when no profiling tool is running. Each still needs a current
//! context, as the driver's does.

use crate::exports;
use crate::state::with_context;

exports! { cuProfilerStart => fn() {
    with_context(|_| Ok(()))
}}

exports! { cuProfilerStop => fn() {
    with_context(|_| Ok(()))
}}
