//! Host memory registered with `cuMemHostRegister` (CUDA driver API: Memory Management).
//!
//! ⚠ Kernels reach only the device arena, and a registered range is the program's own
//! memory, wherever it is. A range registered with `CU_MEMHOSTREGISTER_DEVICEMAP` therefore
//! gets a *shadow*: an arena allocation of the same size, whose address
//! `cuMemHostGetDevicePointer` answers. The two are kept equal at the points where either
//! side can look:
//! - before every kernel launch, each shadow is copied in from its host range, and after it
//!   (completed or faulted) the bytes the kernel changed are copied back out (not for
//!   `CU_MEMHOSTREGISTER_READ_ONLY` ranges), so a kernel sees what the host wrote and the
//!   host sees what the kernel wrote once the launch returns (every launch completes when
//!   enqueued), while bytes the kernel left alone keep whatever another host thread wrote
//!   there during the launch, as with a GPU writing through the mapping;
//! - a copy or memset whose device pointer lies in a shadow acts on the host range itself.
//!
//! Costs and limits: each launch copies every mapped range in, keeps a copy of what it
//! copied and compares the shadow with it after the launch; the host
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

/// What [`sync_in`] copied into each shadow: (host address, the bytes), for [`sync_out`] to
/// tell the bytes the kernel changed.
pub struct Snapshot(Vec<(u64, Vec<u8>)>);

/// Copies every mapped range into its shadow (before a launch) and returns what it copied
/// of the writable ones.
pub fn sync_in(d: &Driver) -> Result<Snapshot, Fail> {
    let mut copied = Vec::new();
    for (&host, r) in &d.registered {
        if let Some(shadow) = r.shadow {
            let to = crate::memory::device_range(d, shadow, r.bytes)?;
            // SAFETY: the shadow was checked; the host range is the program's promise
            // (registered and not yet unregistered).
            unsafe { std::ptr::copy_nonoverlapping(host as *const u8, to, r.bytes as usize) };
            crate::memory::written(d, to, r.bytes);
            if r.flags & READ_ONLY == 0 {
                // SAFETY: `to` holds `r.bytes` bytes (checked above), just written.
                let now = unsafe { std::slice::from_raw_parts(to, r.bytes as usize) };
                copied.push((host, now.to_vec()));
            }
        }
    }
    Ok(Snapshot(copied))
}

/// Copies back to the host (after a launch) the bytes of each writable mapped range's shadow
/// that differ from what [`sync_in`] put there: the kernel's writes, and nothing over what
/// another host thread wrote meanwhile to bytes the kernel did not change. A range
/// unregistered or registered anew in between (a host function, another thread) is left
/// alone.
pub fn sync_out(d: &Driver, before: Snapshot) -> Result<(), Fail> {
    for (host, old) in before.0 {
        let Some(r) = d.registered.get(&host) else {
            continue;
        };
        let (Some(shadow), false) = (r.shadow, r.flags & READ_ONLY != 0) else {
            continue;
        };
        if r.bytes as usize != old.len() {
            continue;
        }
        let from = crate::memory::device_range(d, shadow, r.bytes)?;
        // SAFETY: `from` holds `r.bytes` bytes (checked above).
        let now = unsafe { std::slice::from_raw_parts(from as *const u8, old.len()) };
        let mut i = 0;
        while i < now.len() {
            if now[i] == old[i] {
                i += 1;
                continue;
            }
            let start = i;
            while i < now.len() && now[i] != old[i] {
                i += 1;
            }
            // SAFETY: as in `sync_in`; `start..i` lies inside the range.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    now[start..i].as_ptr(),
                    (host as *mut u8).add(start),
                    i - start,
                )
            };
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

/// The device address of host address `p` in a range registered without
/// `CU_MEMHOSTREGISTER_DEVICEMAP`, whose shadow is made now (and kept until the range is
/// unregistered): `None` where `p` is in no registered range. On a device with unified
/// addressing, which ptxjit's is, registered memory is mapped whatever the flags
/// (`cudaHostRegisterDefault` is documented as "both mapped and portable" there), so
/// `cuMemHostGetDevicePointer` answers for it; the shadow waits for that request because
/// every mapped range is copied in and out at each launch, a cost that a program which
/// registers a buffer only for faster copies should not pay.
pub fn map_on_request(d: &mut Driver, p: u64) -> Option<Result<u64, Fail>> {
    let (&host, r) = d.registered.range(..=p).next_back()?;
    if p >= host + r.bytes || r.shadow.is_some() {
        return None;
    }
    let bytes = r.bytes;
    let made = (|| {
        let s = crate::memory::alloc(d, bytes as usize, "cuMemHostRegister")?;
        let to = crate::memory::device_range(d, s, bytes)?;
        // SAFETY: the shadow was just allocated and checked; the host range is the
        // program's promise (registered and not yet unregistered).
        unsafe { std::ptr::copy_nonoverlapping(host as *const u8, to, bytes as usize) };
        crate::memory::written(d, to, bytes);
        Ok(s)
    })();
    Some(made.map(|s| {
        if let Some(r) = d.registered.get_mut(&host) {
            r.shadow = Some(s);
        }
        s + (p - host)
    }))
}
