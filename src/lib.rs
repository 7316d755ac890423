//! ptxjit: run NVIDIA PTX kernels on the CPU.
//!
//! Pipeline: PTX text → [`ptx`] (AST with spans) → [`lower`] → [`ir`] (typed SSA, verified) →
//! an engine: the JIT ([`jit`], Cranelift, one native call runs a warp) or the reference
//! interpreter ([`interp`]), both over the shared [`runtime`] (memory, launch, faults). The
//! host API ([`host`]: contexts, memory, modules, launches) sits above all of them.
//! [`nvrtc`] turns CUDA C++ into PTX with NVIDIA's NVRTC, loaded at run time when present.
//!
//! Cargo features (all on by default): `case` (case files, module `case`), `fuzz`
//! (differential fuzzing, module `fuzz`) and `cli` (the `ptxjit` command, module `cli`;
//! implies the other two). With
//! `default-features = false` the crate is the library alone: the front end, both engines,
//! the runtime and the host API, without the command line's dependencies.

pub mod analysis;
#[cfg(feature = "case")]
pub mod case;
#[cfg(feature = "cli")]
pub mod cli;
pub mod coverage;
#[cfg(feature = "fuzz")]
pub mod fuzz;
pub mod host;
pub mod interp;
pub mod ir;
pub mod jit;
pub mod lower;
pub mod nvrtc;
pub mod ptx;
pub mod runtime;
pub mod switches;
