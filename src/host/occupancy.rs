//! Occupancy: how many CTAs of a kernel a multiprocessor holds at once, and so how large a
//! cooperative grid may be (CUDA C++ Programming Guide, "Technical Specifications per Compute
//! Capability" and "Grid Synchronization": a cooperative launch needs every CTA resident).
//!
//! ptxjit's device has one multiprocessor per host core ([`sm_count`]); the limits per
//! multiprocessor are those of the compute capabilities ptxjit reports (2048 threads and 32
//! CTAs per SM; shared memory per SM and per block as [`shared_limits`] gives them for the
//! reported compute capability, [`device_compute_capability`]).
//! The CPU scheduler itself has no residency limit (a cooperative grid's CTAs live in host
//! memory), but programs size their grids from these numbers and CUDA refuses larger ones.

use super::context::CompiledKernel;

/// Threads a multiprocessor holds at once (compute capability 8.0 and 9.0).
pub const THREADS_PER_SM: u32 = 2048;

/// CTAs a multiprocessor holds at once (compute capability 8.0 and 9.0).
pub const CTAS_PER_SM: u32 = 32;

/// Shared memory limits of one compute capability, in bytes (CUDA C++ Programming Guide,
/// "Technical Specifications per Compute Capability": maximum shared memory per
/// multiprocessor and per thread block; `cudaDevAttrMaxSharedMemoryPerBlockOptin` and
/// `cudaDevAttrMaxSharedMemoryPerMultiprocessor`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedLimits {
    /// Static and dynamic shared memory one CTA may use when its kernel opts in
    /// (`cudaFuncAttributeMaxDynamicSharedMemorySize`).
    pub per_block_optin: u64,
    /// Shared memory of one multiprocessor, for occupancy.
    pub per_sm: u64,
}

/// The shared memory limits of compute capability `major.minor`: this table is the one
/// definition both the host layer's launch checks and the drop-in driver's device attributes
/// use.
pub fn shared_limits((major, minor): (u32, u32)) -> SharedLimits {
    let (optin_kib, per_sm_kib) = match (major, minor) {
        (8, 0) | (8, 7) => (163, 164),
        (8, _) => (99, 100),
        (9..=12, _) => (227, 228),
        (7, 5) => (64, 64),
        (7, _) => (96, 96),
        _ => (48, 64),
    };
    SharedLimits {
        per_block_optin: optin_kib * 1024,
        per_sm: per_sm_kib * 1024,
    }
}

/// The compute capability ptxjit's device reports: `PTXJIT_CC=MAJOR.MINOR` (set by `ptxjit
/// exec --cc`), default 8.0; read once per process. A value that is no capability
/// ([`parse_compute_capability`](super::parse_compute_capability)) is reported once on
/// stderr and 8.0 used.
pub fn device_compute_capability() -> (u32, u32) {
    static CC: std::sync::OnceLock<(u32, u32)> = std::sync::OnceLock::new();
    *CC.get_or_init(|| {
        let v = std::env::var("PTXJIT_CC").unwrap_or_default();
        match super::parse_compute_capability(&v) {
            Ok(cc) => cc,
            Err(e) => {
                if !v.is_empty() {
                    eprintln!("ptxjit: PTXJIT_CC: {e}; reporting 8.0");
                }
                (8, 0)
            }
        }
    })
}

/// [`shared_limits`] of the reported capability ([`device_compute_capability`]).
pub fn device_shared_limits() -> SharedLimits {
    shared_limits(device_compute_capability())
}

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
