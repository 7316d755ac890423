//! The host layer: what a program talks to. A [`Context`] owns device memory, texture and
//! surface objects and the device heap; a [`Module`] is loaded from PTX text for one
//! [`Engine`]; [`Context::launch`] runs a [`Kernel`] on the runtime's CTA scheduler.
//!
//! Two levels of API: the untyped one of the CUDA driver API ([`Context::alloc`],
//! [`Context::copy_htod`], [`Context::launch`] with [`KernelArg`]s), and a typed one for Rust
//! programs: [`DeviceBuffer<T>`] (freed on drop) and [`Context::launch_builder`], whose
//! arguments are plain Rust values and buffers. Both check the same things and can be mixed
//! ([`DeviceBuffer::as_device_ptr`]).
//!
//! Layering: the host layer sits above the front end (`ptx`, `lower`), both engines (`interp`,
//! `jit`) and the `runtime` they share; nothing below imports it. Every front end of ptxjit —
//! the CLI and case files, the Rust API, and the drop-in CUDA driver library (the `cuda`
//! crate of this workspace) — is a client of this layer, so CUDA's semantics live here once.

mod buffer;
mod cache;
mod context;
mod env_flag;
pub mod fatbin;
pub mod graph;
pub mod hang_note;
pub mod image;
pub mod initcheck;
pub mod kernel_name;
mod launch;
pub mod occupancy;
pub mod pool;
pub mod ptx_file;
pub mod race;
mod tiers;
pub mod tool;

pub use crate::runtime::launch::LaunchDims;
pub use crate::runtime::memory::DevicePtr;
pub use crate::runtime::printf::{DeviceStream, PrintfSink};
pub use crate::runtime::shuffle::Schedule;
pub use buffer::{ArenaId, DeviceBuffer, MemoryView};
pub use context::{
    front_end, CompiledKernel, Context, Cooperative, DeviceFrame, Engine, Error, FaultNeighbours,
    FaultReport, Kernel, KernelArg, LaunchOptions, LaunchPart, LaunchReport, Module, Tier,
    DEFAULT_STACK_BYTES, SHARED_BYTES_PER_BLOCK,
};
pub use env_flag::{env_flag, parse_compute_capability};
pub use launch::{Dim3, LaunchArg, LaunchBuilder};
pub use ptx_file::PtxFile;
#[doc(hidden)]
pub use tiers::{pause_optimizer, OptimizerPause};
