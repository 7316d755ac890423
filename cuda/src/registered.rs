//! Host memory registered with `cuMemHostRegister` (CUDA driver API: Memory Management).
//!
//! ⚠ Kernels reach only the device arena, and a registered range is the program's own
//! memory, wherever it is. A range registered with `CU_MEMHOSTREGISTER_DEVICEMAP` therefore
//! gets a *shadow*: an arena allocation of the same size, whose address
//! `cuMemHostGetDevicePointer` answers. The two are kept equal at the points where either
//! side can look:
//! - before every kernel launch, each shadow is copied in from its host range, and after it
//!   (completed or faulted) copied back out (not for `CU_MEMHOSTREGISTER_READ_ONLY` ranges),
//!   so a kernel sees what the host wrote and the host sees what the kernel wrote once the
//!   launch returns (every launch completes when enqueued);
//! - a copy or memset whose device pointer lies in a shadow acts on the host range itself.
//!
//! Costs and limits: each launch copies every mapped range twice (in and out); the host
//! pointer itself is not a device address (only the pointer `cuMemHostGetDevicePointer`
//! gives is); a kernel and the host writing the same range concurrently is a race here as on
//! a GPU.

use crate::state::Driver;
use crate::Fail;

/// `CU_MEMHOSTREGISTER_DEVICEMAP`.
pub const DEVICEMAP: u32 = 2;
/// `CU_MEMHOSTREGISTER_READ_ONLY`.
pub const READ_ONLY: u32 = 8;

/// One registered host range.
#[derive(Clone, Copy, Debug)]
pub struct Registered {
    pub bytes: u64,
    pub flags: u32,
    /// The shadow's device address (for `DEVICEMAP` ranges).
    pub shadow: Option<u64>,
}

/// Copies every mapped range into its shadow (before a launch).
pub fn sync_in(d: &Driver) -> Result<(), Fail> {
    for (&host, r) in &d.registered {
        if let Some(shadow) = r.shadow {
            let to = crate::memory::device_range(d, shadow, r.bytes)?;
            // SAFETY: the shadow was checked; the host range is the program's promise
            // (registered and not yet unregistered).
            unsafe { std::ptr::copy_nonoverlapping(host as *const u8, to, r.bytes as usize) };
            crate::memory::written(d, to, r.bytes);
        }
    }
    Ok(())
}

/// Copies every writable mapped range's shadow back to the host (after a launch).
pub fn sync_out(d: &Driver) -> Result<(), Fail> {
    for (&host, r) in &d.registered {
        if let (Some(shadow), false) = (r.shadow, r.flags & READ_ONLY != 0) {
            let from = crate::memory::device_range(d, shadow, r.bytes)?;
            // SAFETY: as in `sync_in`.
            unsafe { std::ptr::copy_nonoverlapping(from, host as *mut u8, r.bytes as usize) };
        }
    }
    Ok(())
}

/// The host address behind `p` if `p` lies in a shadow with `len` bytes after it inside it.
pub fn host_of_shadow(d: &Driver, p: u64, len: u64) -> Option<u64> {
    d.registered.iter().find_map(|(&host, r)| {
        let s = r.shadow?;
        (p >= s && p.checked_add(len)? <= s + r.bytes).then(|| host + (p - s))
    })
}

/// The shadow address of host pointer `p` inside a mapped registered range.
pub fn device_of_host(d: &Driver, p: u64) -> Option<u64> {
    let (&host, r) = d.registered.range(..=p).next_back()?;
    let s = r.shadow?;
    (p < host + r.bytes).then(|| s + (p - host))
}
