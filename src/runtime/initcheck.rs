//! initcheck's state: which bytes of device memory have been written, and the uninitialised
//! reads a launch found.
//!
//! # The model
//! - Global memory: one bit per byte of the arena ([`ArenaShadow`], reserved only when the
//!   tool is on), set when the host writes the byte (copies, memsets, module variables'
//!   initial values, a case file's `init`) or kernel code stores to it (`st`, atomics,
//!   surface stores), cleared when an allocation hands the byte out. A kernel load that
//!   touches a byte whose bit is clear is an uninitialised read.
//! - Shared memory: one bit per byte of the CTA's shared memory, clear when the CTA starts
//!   (CUDA leaves shared memory undefined at CTA start), set by the CTA's stores.
//! - An atomic reads before it writes: on an unwritten byte it is an uninitialised read (what
//!   it returns, and what it adds to, is garbage on a GPU). Its result derives from that
//!   garbage, so it leaves the bytes unwritten (every later atomic there is reported too, and
//!   the findings do not depend on which thread came first); only `atom.exch`, whose new
//!   value is defined, writes them.
//! - Not tracked: local memory, parameters, texture and surface *reads*, the format strings
//!   `printf` reads.
//!
//! ⚠ Safety banner: the shadows are raw memory that kernel code on several host threads sets
//! and tests at once; every bit is set and read with atomic byte operations (relaxed: the
//! shadow orders nothing, as the bytes it describes are ordered by the kernel's own
//! synchronisation or not at all). An offset is always checked against the arena (or the
//! CTA's shared memory) by `env::translate` before it reaches a shadow.

use std::collections::BTreeMap;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

/// Set the bits of bytes `[off, off + len)` in the bitmap at `bits` (`set`), or clear them.
///
/// # Safety
/// `bits` points to at least `(off + len).div_ceil(8)` bytes valid for atomic access.
pub unsafe fn set_range(bits: *const AtomicU8, off: u64, len: u64, set: bool) {
    let end = off.saturating_add(len);
    let mut o = off;
    while o < end {
        let byte = o / 8;
        let first = (o % 8) as u32;
        let n = (end - o).min(8 - first as u64) as u32;
        let mask = if n == 8 {
            0xff
        } else {
            (((1u32 << n) - 1) << first) as u8
        };
        // SAFETY: `byte` < (off + len).div_ceil(8), inside the bitmap (caller's contract).
        let b = unsafe { &*bits.add(byte as usize) };
        if set {
            if mask == 0xff {
                b.store(0xff, Ordering::Relaxed);
            } else {
                b.fetch_or(mask, Ordering::Relaxed);
            }
        } else if mask == 0xff {
            b.store(0, Ordering::Relaxed);
        } else {
            b.fetch_and(!mask, Ordering::Relaxed);
        }
        o += n as u64;
    }
}

/// The first byte of `[off, off + len)` whose bit is clear in the bitmap at `bits`.
///
/// # Safety
/// As [`set_range`].
pub unsafe fn first_unset(bits: *const AtomicU8, off: u64, len: u64) -> Option<u64> {
    let end = off.saturating_add(len);
    let mut o = off;
    while o < end {
        let byte = o / 8;
        let first = (o % 8) as u32;
        let n = (end - o).min(8 - first as u64) as u32;
        // SAFETY: as in set_range.
        let b = unsafe { (*bits.add(byte as usize)).load(Ordering::Relaxed) };
        let missing = !(b >> first) & (((1u32 << n) - 1) as u8);
        if missing != 0 {
            return Some(o + missing.trailing_zeros() as u64);
        }
        o += n as u64;
    }
    None
}

/// The arena's shadow: one bit per byte of the arena's reserved address range, itself one
/// reserved range that the host's kernel backs with memory only where it is touched (an
/// eighth of the device memory used, at most).
pub struct ArenaShadow {
    bits: NonNull<AtomicU8>,
    /// Bytes of the bitmap (it covers `8 * bytes` arena bytes).
    bytes: u64,
}

// SAFETY: the bitmap is only accessed through atomic byte operations.
unsafe impl Send for ArenaShadow {}
// SAFETY: see above.
unsafe impl Sync for ArenaShadow {}

impl ArenaShadow {
    /// A shadow for an arena of up to `arena_bytes` bytes, every bit clear. Errors: the
    /// address range cannot be reserved.
    pub fn new(arena_bytes: u64) -> Result<ArenaShadow, String> {
        let bytes = arena_bytes.div_ceil(8).max(1);
        // SAFETY: an anonymous private mapping the kernel places; it reads as zero.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(format!(
                "initcheck: cannot reserve {bytes} bytes for the shadow of device memory: {}",
                std::io::Error::last_os_error()
            ));
        }
        let bits = NonNull::new(p.cast()).ok_or("mmap returned null")?;
        Ok(ArenaShadow { bits, bytes })
    }

    /// Whether arena bytes `[off, off + len)` lie inside the shadow.
    fn covers(&self, off: u64, len: u64) -> bool {
        off.checked_add(len)
            .is_some_and(|e| e.div_ceil(8) <= self.bytes)
    }

    /// Mark arena bytes `[off, off + len)` written (`true`) or never written.
    pub fn set(&self, off: u64, len: u64, written: bool) {
        if self.covers(off, len) {
            // SAFETY: inside the bitmap (checked just above).
            unsafe { set_range(self.bits.as_ptr(), off, len, written) };
        }
    }

    /// The first never-written byte of arena bytes `[off, off + len)` (bytes outside the
    /// shadow count as never written).
    pub fn first_unwritten(&self, off: u64, len: u64) -> Option<u64> {
        if !self.covers(off, len) {
            return Some(off);
        }
        // SAFETY: inside the bitmap (checked just above).
        unsafe { first_unset(self.bits.as_ptr(), off, len) }
    }
}

impl Drop for ArenaShadow {
    fn drop(&mut self) {
        // SAFETY: the mapping `new` made; nothing refers to it once the shadow is gone.
        unsafe { libc::munmap(self.bits.as_ptr().cast(), self.bytes as usize) };
    }
}

/// How an access uses the bytes it touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitAccess {
    /// A load: its bytes must have been written.
    Read,
    /// A store: its bytes are written from now on.
    Write,
    /// An atomic that computes its new value from the old one (`add`, `inc`, `cas`, …): a
    /// read; what it leaves is as unwritten as what it found (garbage in, garbage out), so
    /// on unwritten bytes every such atomic is a finding, whichever thread comes first.
    Atomic,
    /// `atom.exch`: a read (of the value it returns), then a write of a defined value.
    Exchange,
}

/// One uninitialised read, as kernel code finds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitRecord {
    /// The space the address resolved to (global or shared).
    pub space: crate::ir::Space,
    /// The address of the access (a global device address, or a shared offset).
    pub addr: u64,
    /// The first unwritten byte's address.
    pub first_unwritten: u64,
    /// Access size in bytes.
    pub size: u32,
    pub ctaid: [u32; 3],
    pub tid: [u32; 3],
    /// IR instruction index (mapped to PTX line and text by the host).
    pub inst: u32,
    /// Whether the access was an atomic.
    pub atomic: bool,
}

/// The uninitialised reads of one launch, one entry per instruction and space: the access of
/// the lowest thread (CTA linear index, then thread linear index) and how many thread
/// accesses read unwritten bytes there.
#[derive(Debug, Default)]
pub struct InitFindings {
    by_site: Mutex<BTreeMap<SiteKey, SiteFinding>>,
}

/// An instruction and the space its access resolved to (its code).
type SiteKey = (u32, u32);

/// The order of the lowest thread seen (CTA linear index << 32 | thread linear index), its
/// record, and the count of thread accesses.
type SiteFinding = (u64, InitRecord, u64);

impl InitFindings {
    /// Record an uninitialised read by thread `thread` (linear in its CTA) of CTA `cta`
    /// (linear in the grid).
    pub fn record(&self, r: InitRecord, cta: u64, thread: u32) {
        let Ok(mut g) = self.by_site.lock() else {
            return;
        };
        let order = cta << 32 | u64::from(thread);
        let key = (r.inst, crate::runtime::env::space_code(r.space));
        match g.get_mut(&key) {
            Some((first, rec, count)) => {
                *count += 1;
                if order < *first {
                    *first = order;
                    *rec = r;
                }
            }
            None => {
                g.insert(key, (order, r, 1));
            }
        }
    }

    /// The findings, by instruction: each site's record and its count of thread accesses.
    pub fn take(&self) -> Vec<(InitRecord, u64)> {
        let Ok(mut g) = self.by_site.lock() else {
            return vec![];
        };
        std::mem::take(&mut *g)
            .into_values()
            .map(|(_, r, n)| (r, n))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_track_partial_ranges() {
        let bits: Vec<AtomicU8> = (0..4).map(|_| AtomicU8::new(0)).collect();
        let p = bits.as_ptr();
        // SAFETY: 4 bytes cover offsets 0..32.
        unsafe {
            assert_eq!(first_unset(p, 0, 32), Some(0));
            set_range(p, 3, 14, true); // bytes 3..17
            assert_eq!(first_unset(p, 3, 14), None);
            assert_eq!(first_unset(p, 2, 4), Some(2));
            assert_eq!(first_unset(p, 10, 8), Some(17));
            assert_eq!(bits[1].load(Ordering::Relaxed), 0xff);
            set_range(p, 8, 2, false);
            assert_eq!(first_unset(p, 3, 14), Some(8));
            assert_eq!(first_unset(p, 10, 7), None);
        }
    }

    #[test]
    fn the_arena_shadow_starts_clear() {
        let s = ArenaShadow::new(1 << 20).unwrap();
        assert_eq!(s.first_unwritten(100, 4), Some(100));
        s.set(100, 2, true);
        assert_eq!(s.first_unwritten(100, 4), Some(102));
        s.set(96, 8, true);
        assert_eq!(s.first_unwritten(100, 4), None);
        assert_eq!(s.first_unwritten(1 << 20, 4), Some(1 << 20), "outside");
    }
}
