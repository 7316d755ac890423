//! The runtime: what the GPU would supply. Device memory ([`memory`]), the per-CTA environment
//! and address translation ([`env`]), the semantics of every operation ([`semantics`]), the
//! grid/CTA/warp scheduler ([`launch`]) and the host API ([`context`]). Both engines run on it
//! and differ only in how they execute a warp.

pub mod bits;
pub mod context;
pub mod env;
pub mod fp;
pub mod heap;
pub mod launch;
pub mod memory;
pub mod minifloat;
pub mod printf;
pub mod semantics;
pub mod texture;
pub mod texwarp;
pub mod video;
pub mod warp;

pub use context::{
    front_end, Context, Engine, Error, FaultReport, Kernel, KernelArg, LaunchOptions, LaunchReport,
    Module,
};
pub use launch::LaunchDims;
pub use memory::DevicePtr;
