//! The device heap: `malloc`, `free` and `__nv_aligned_device_malloc` in kernels (CUDA C++
//! Programming Guide, "Dynamic Global Memory Allocation and Operations").
//!
//! The heap is one allocation in the global arena (labelled `device heap` in fault reports),
//! made by the [`Context`](super::Context) before the first launch of a kernel that calls
//! `malloc` or `free`, of [`DEFAULT_HEAP_BYTES`] unless `Context::set_heap_size` says otherwise
//! (CUDA's `cudaLimitMallocHeapSize`, 8 MiB by default). It lives as long as the context, so
//! memory a kernel allocates stays valid for later launches until freed, as in CUDA.
//!
//! Blocks are handed out first fit at 16-byte alignment (or the requested power of two), and
//! freed blocks are merged with their free neighbours. `malloc` returns 0 (NULL) when no block
//! is large enough, and for a size of 0. `free(NULL)` does nothing; freeing anything else that
//! is not the start of a live block is a fault (see `runtime::warp`).
//!
//! With memcheck ([`DeviceHeap::new_checked`]) every block is followed by [`HEAP_RED_ZONE`]
//! bytes no block uses, freed blocks stay in a quarantine (poisoned, not reused) until
//! [`HEAP_QUARANTINE_BYTES`] of later frees push them out, and [`DeviceHeap::check`] tells
//! whether an access lies inside one live block.

use std::collections::BTreeMap;
use std::sync::Mutex;

/// CUDA's default device heap size (bytes).
pub const DEFAULT_HEAP_BYTES: u64 = 8 << 20;

/// The alignment of every block `malloc` returns (bytes).
pub const HEAP_ALIGN: u64 = 16;

/// With memcheck: bytes after each block that no block uses (a multiple of [`HEAP_ALIGN`]).
pub const HEAP_RED_ZONE: u64 = 16;

/// With memcheck: bytes of freed blocks kept poisoned before the oldest is reused.
pub const HEAP_QUARANTINE_BYTES: u64 = 1 << 20;

/// The device heap of a context: `size` bytes at device address `base`.
#[derive(Debug)]
pub struct DeviceHeap {
    base: u64,
    size: u64,
    /// Memcheck's placement: red zones and a quarantine.
    checked: bool,
    state: Mutex<HeapState>,
}

#[derive(Debug, Default)]
struct HeapState {
    /// Free ranges: offset → length, never adjacent (merged on free).
    free: BTreeMap<u64, u64>,
    /// Live blocks: offset → (length taken from the free ranges, bytes requested).
    used: BTreeMap<u64, (u64, u64)>,
    /// Freed blocks in quarantine (checked heap): offset → (length taken, bytes requested).
    quarantine: BTreeMap<u64, (u64, u64)>,
    /// Quarantined offsets, oldest first, and their total length.
    order: std::collections::VecDeque<u64>,
    quarantined: u64,
}

/// What memcheck finds at a heap address ([`DeviceHeap::check`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeapAccess {
    /// Inside one live block.
    Live,
    /// In a freed block still in quarantine: its device address and size (a use after free).
    Freed { block: u64, size: u64 },
    /// In no block (a red zone, or never allocated): the nearest live block before the
    /// address, as (device address, size), if there is one.
    Outside { before: Option<(u64, u64)> },
}

impl DeviceHeap {
    /// A heap over the `size` bytes at device address `base` (16-byte aligned).
    pub fn new(base: u64, size: u64) -> DeviceHeap {
        let mut state = HeapState::default();
        if size > 0 {
            state.free.insert(0, size);
        }
        DeviceHeap {
            base,
            size,
            checked: false,
            state: Mutex::new(state),
        }
    }

    /// As [`new`](Self::new), with memcheck's red zones and quarantine (see the module
    /// documentation).
    pub fn new_checked(base: u64, size: u64) -> DeviceHeap {
        DeviceHeap {
            checked: true,
            ..DeviceHeap::new(base, size)
        }
    }

    /// Whether the heap has memcheck's red zones and quarantine.
    pub fn is_checked(&self) -> bool {
        self.checked
    }

    /// Whether device address `addr` lies in the heap's range.
    pub fn contains(&self, addr: u64) -> bool {
        addr.wrapping_sub(self.base) < self.size
    }

    /// Memcheck's view of an access of `len` bytes at device address `addr` (inside the
    /// heap's range).
    pub fn check(&self, addr: u64, len: u64) -> HeapAccess {
        let Ok(s) = self.state.lock() else {
            return HeapAccess::Outside { before: None };
        };
        let off = addr.wrapping_sub(self.base);
        if let Some((&b, &(_, size))) = s.used.range(..=off).next_back() {
            if off.checked_add(len).is_some_and(|e| e <= b + size) {
                return HeapAccess::Live;
            }
        }
        if let Some((&b, &(_, size))) = s.quarantine.range(..=off).next_back() {
            if off < b + size.max(1) {
                return HeapAccess::Freed {
                    block: self.base + b,
                    size,
                };
            }
        }
        HeapAccess::Outside {
            before: s
                .used
                .range(..=off)
                .next_back()
                .map(|(&b, &(_, size))| (self.base + b, size)),
        }
    }

    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Device address of the heap's first byte.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Device address of a new block of `size` bytes aligned to `align` (a power of two, at
    /// least [`HEAP_ALIGN`] is used), or 0 when `size` is 0 or no free range fits.
    pub fn malloc(&self, size: u64, align: u64) -> u64 {
        if size == 0 || !align.is_power_of_two() {
            return 0;
        }
        let align = align.max(HEAP_ALIGN);
        let red_zone = if self.checked { HEAP_RED_ZONE } else { 0 };
        let Some(len) = size
            .checked_next_multiple_of(HEAP_ALIGN)
            .and_then(|l| l.checked_add(red_zone))
        else {
            return 0;
        };
        let Ok(mut s) = self.state.lock() else {
            return 0;
        };
        let base = self.base;
        let fit = s.free.iter().find_map(|(&off, &flen)| {
            let start = (base + off).checked_next_multiple_of(align)? - base;
            let pad = start - off;
            (flen >= pad && flen - pad >= len).then_some((off, flen, start))
        });
        let Some((off, flen, start)) = fit else {
            return 0;
        };
        s.free.remove(&off);
        if start > off {
            s.free.insert(off, start - off);
        }
        let end = start + len;
        if off + flen > end {
            s.free.insert(end, off + flen - end);
        }
        s.used.insert(start, (len, size));
        base + start
    }

    /// Free the block at device address `addr`. `Err(())` when `addr` is not the start of a
    /// live block (never allocated, already freed, or inside a block).
    #[allow(clippy::result_unit_err)]
    pub fn free(&self, addr: u64) -> Result<(), ()> {
        let Ok(mut s) = self.state.lock() else {
            return Err(());
        };
        let off = addr.checked_sub(self.base).ok_or(())?;
        let (len, size) = s.used.remove(&off).ok_or(())?;
        if self.checked {
            s.quarantine.insert(off, (len, size));
            s.order.push_back(off);
            s.quarantined += len;
            while s.quarantined > HEAP_QUARANTINE_BYTES {
                let Some(old) = s.order.pop_front() else {
                    break;
                };
                if let Some((olen, _)) = s.quarantine.remove(&old) {
                    s.quarantined -= olen;
                    release(&mut s.free, old, olen);
                }
            }
            return Ok(());
        }
        release(&mut s.free, off, len);
        Ok(())
    }

    /// Whether `addr` is the start of a quarantined (freed) block: a double free.
    pub fn freed_block(&self, addr: u64) -> bool {
        self.state
            .lock()
            .is_ok_and(|s| s.quarantine.contains_key(&addr.wrapping_sub(self.base)))
    }
}

/// Return `[off, off + len)` to the free ranges, merged with its free neighbours.
fn release(free: &mut BTreeMap<u64, u64>, off: u64, len: u64) {
    {
        let (mut start, mut end) = (off, off + len);
        if let Some((&p, &plen)) = free.range(..start).next_back() {
            if p + plen == start {
                free.remove(&p);
                start = p;
            }
        }
        if let Some(nlen) = free.remove(&end) {
            end += nlen;
        }
        free.insert(start, end - start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_alignment_merging_and_bad_frees() {
        let h = DeviceHeap::new(0x1000, 256);
        let a = h.malloc(10, 1);
        let b = h.malloc(16, 1);
        let c = h.malloc(100, 64);
        assert_eq!(a, 0x1000);
        assert_eq!(b, 0x1010);
        assert_eq!(c, 0x1040, "aligned to 64");
        assert_eq!(h.malloc(200, 1), 0, "no room");
        assert_eq!(h.malloc(0, 1), 0);
        assert_eq!(h.free(b + 4), Err(()), "inside a block");
        assert_eq!(h.free(b), Ok(()));
        assert_eq!(h.free(b), Err(()), "double free");
        // The 16-byte hole at 0x1010 merges with the 0x1020..0x1040 padding.
        assert_eq!(h.malloc(48, 1), 0x1010);
        assert_eq!(h.free(a), Ok(()));
        assert_eq!(h.free(0x1010), Ok(()));
        assert_eq!(h.free(c), Ok(()));
        assert_eq!(h.malloc(256, 1), 0x1000, "everything merged back");
    }

    #[test]
    fn checked_heap_has_red_zones_and_a_quarantine() {
        let h = DeviceHeap::new_checked(0x1000, 1024);
        let a = h.malloc(32, 1);
        let b = h.malloc(32, 1);
        assert_eq!(a, 0x1000);
        assert_eq!(
            b,
            0x1000 + 32 + HEAP_RED_ZONE,
            "a red zone after each block"
        );
        assert_eq!(h.check(a, 32), HeapAccess::Live);
        assert_eq!(h.check(a + 28, 4), HeapAccess::Live);
        assert_eq!(
            h.check(a + 32, 4),
            HeapAccess::Outside {
                before: Some((a, 32))
            },
            "one element past the end"
        );
        assert_eq!(h.free(a), Ok(()));
        assert_eq!(h.check(a + 4, 4), HeapAccess::Freed { block: a, size: 32 });
        assert!(h.freed_block(a));
        assert_eq!(h.free(a), Err(()), "double free");
        let c = h.malloc(16, 1);
        assert_ne!(c, a, "a quarantined block is not reused");
    }
}
