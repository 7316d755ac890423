//! Occupancy: how many CTAs of a kernel a multiprocessor holds at once, and so how large a
//! cooperative grid may be (CUDA C++ Programming Guide, "Technical Specifications per Compute
//! Capability" and "Grid Synchronization": a cooperative launch needs every CTA resident).
//!
//! ptxjit's device has one multiprocessor per host core ([`sm_count`]); the limits per
//! multiprocessor are those of the compute capabilities ptxjit reports (2048 threads and 32
//! CTAs per SM; shared memory per SM as the caller says, [`SHARED_BYTES_PER_SM`] by default).
//! The CPU scheduler itself has no residency limit (a cooperative grid's CTAs live in host
//! memory), but programs size their grids from these numbers and CUDA refuses larger ones.

use super::context::CompiledKernel;

/// Threads a multiprocessor holds at once (compute capability 8.0 and 9.0).
pub const THREADS_PER_SM: u32 = 2048;

/// CTAs a multiprocessor holds at once (compute capability 8.0 and 9.0).
pub const CTAS_PER_SM: u32 = 32;

/// Shared memory per multiprocessor (bytes) the host layer assumes when its caller names
/// none: compute capability 9.0's 228 KB, the largest ptxjit reports (the driver library
/// passes the reported capability's own value).
pub const SHARED_BYTES_PER_SM: u64 = 228 * 1024;

/// Shared memory the driver reserves for each CTA (bytes; CUDA's
/// `cudaDevAttrReservedSharedMemoryPerBlock` on compute capability 8.0 and later): the CTA's
/// reserved region (`runtime::env::RESERVED_SMEM_BYTES`, PTX ISA §10.29).
pub const RESERVED_SHARED_PER_CTA: u64 = crate::runtime::env::RESERVED_SMEM_BYTES;

/// The unit in which a multiprocessor allocates shared memory to CTAs (bytes; 128 on compute
/// capability 8.x and later, `cuda_occupancy.h`'s `cudaOccSMemAllocationGranularity`).
pub const SHARED_ALLOC_UNIT: u64 = crate::runtime::env::SMEM_ALLOC_UNIT;

/// Multiprocessors of ptxjit's device: one per host core.
pub fn sm_count() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
}

/// CTAs of `k` with `block_threads` threads and `dynamic_shared` bytes of dynamic shared
/// memory that one multiprocessor with `shared_per_sm` bytes of shared memory holds at once
/// (`cuOccupancyMaxActiveBlocksPerMultiprocessor`): 0 when the block is larger than the
/// kernel allows (its `.maxntid`, or 1024 threads) or is empty. As CUDA's occupancy
/// calculator counts it, a CTA takes its static and dynamic shared memory plus the reserved
/// [`RESERVED_SHARED_PER_CTA`], rounded up to [`SHARED_ALLOC_UNIT`].
pub fn max_active_ctas_per_sm(
    k: &CompiledKernel,
    block_threads: u32,
    dynamic_shared: u64,
    shared_per_sm: u64,
) -> u32 {
    let max_threads = k.max_threads.unwrap_or(1024).min(1024);
    if block_threads == 0 || block_threads > max_threads {
        return 0;
    }
    // Threads are allocated to CTAs in whole warps.
    let warps = block_threads.div_ceil(32);
    let mut n = (THREADS_PER_SM / 32 / warps).min(CTAS_PER_SM);
    let shared = (k.static_shared_bytes + dynamic_shared + RESERVED_SHARED_PER_CTA)
        .next_multiple_of(SHARED_ALLOC_UNIT);
    if let Some(fit) = shared_per_sm.checked_div(shared) {
        n = n.min(fit.min(u64::from(u32::MAX)) as u32);
    }
    n
}

/// The most CTAs a cooperative launch of `k` with this block size and dynamic shared memory
/// may have: [`max_active_ctas_per_sm`] × [`sm_count`].
pub fn max_cooperative_ctas(
    k: &CompiledKernel,
    block_threads: u32,
    dynamic_shared: u64,
    shared_per_sm: u64,
) -> u64 {
    u64::from(max_active_ctas_per_sm(
        k,
        block_threads,
        dynamic_shared,
        shared_per_sm,
    )) * u64::from(sm_count())
}
