//! ptxjit: run NVIDIA PTX kernels on the CPU.

pub mod ptx;
