//! The runtime: what the GPU would supply. Device memory ([`memory`]), the per-CTA environment
//! and address translation ([`env`]), the semantics of every operation ([`semantics`]), the
//! grid/CTA/warp scheduler ([`launch`]). Both engines run on it and differ only in how they
//! execute a warp; the host API above them is [`crate::host`].

pub mod atom128;
pub mod batch;
pub mod bits;
pub mod clc;
pub mod cluster;
pub mod env;
pub mod fp;
pub mod heap;
pub mod initcheck;
pub mod launch;
pub mod mbarrier;
pub mod memory;
pub mod minifloat;
pub mod mma;
pub mod printf;
pub mod race;
pub mod redcombine;
pub mod semantics;
pub mod shuffle;
pub mod synccheck;
pub mod tcgen05;
pub mod tensormap;
pub mod texture;
pub mod texwarp;
pub mod tma;
pub mod video;
pub mod warp;
pub mod wgmma;
pub mod workers;

pub use launch::LaunchDims;
pub use memory::DevicePtr;
