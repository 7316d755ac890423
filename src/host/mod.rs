//! The host layer: what a program talks to. A [`Context`] owns device memory, texture and
//! surface objects and the device heap; a [`Module`] is loaded from PTX text for one
//! [`Engine`]; [`Context::launch`] runs a [`Kernel`] on the runtime's CTA scheduler.
//!
//! Layering: the host layer sits above the front end (`ptx`, `lower`), both engines (`interp`,
//! `jit`) and the `runtime` they share; nothing below imports it. Every front end of ptxjit —
//! the CLI and case files, the Rust API, and the drop-in CUDA driver library (the `cuda`
//! crate of this workspace) — is a client of this layer, so CUDA's semantics live here once.

mod context;
pub mod fatbin;
pub mod image;
mod kernel_name;

pub use crate::runtime::launch::LaunchDims;
pub use crate::runtime::memory::DevicePtr;
pub use context::{
    front_end, CompiledKernel, Context, Engine, Error, FaultReport, Kernel, KernelArg,
    LaunchOptions, LaunchReport, Module,
};
