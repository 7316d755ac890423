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

use std::collections::BTreeMap;
use std::sync::Mutex;

/// CUDA's default device heap size (bytes).
pub const DEFAULT_HEAP_BYTES: u64 = 8 << 20;

/// The alignment of every block `malloc` returns (bytes).
pub const HEAP_ALIGN: u64 = 16;

/// The device heap of a context: `size` bytes at device address `base`.
#[derive(Debug)]
pub struct DeviceHeap {
    base: u64,
    size: u64,
    state: Mutex<HeapState>,
}

#[derive(Debug, Default)]
struct HeapState {
    /// Free ranges: offset → length, never adjacent (merged on free).
    free: BTreeMap<u64, u64>,
    /// Live blocks: offset → length.
    used: BTreeMap<u64, u64>,
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
            state: Mutex::new(state),
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
        let Some(len) = size.checked_next_multiple_of(HEAP_ALIGN) else {
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
        s.used.insert(start, len);
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
        let len = s.used.remove(&off).ok_or(())?;
        let (mut start, mut end) = (off, off + len);
        if let Some((&p, &plen)) = s.free.range(..start).next_back() {
            if p + plen == start {
                s.free.remove(&p);
                start = p;
            }
        }
        if let Some(nlen) = s.free.remove(&end) {
            end += nlen;
        }
        s.free.insert(start, end - start);
        Ok(())
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
}
