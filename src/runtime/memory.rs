//! Device global memory: one arena of host memory that kernels address with *device
//! addresses*.
//!
//! # Address map (generic addresses, PTX ISA §6.4.1 "Generic Addressing")
//! ```text
//! 0x0000_0000_0000_0000 ..            invalid (null and low addresses always fault)
//! SHARED_WINDOW .. + 4 GiB            generic window onto the CTA's shared memory
//! LOCAL_WINDOW  .. + 4 GiB            generic window onto the thread's local memory
//! GLOBAL_BASE   .. + arena capacity   global memory: device address = GLOBAL_BASE + arena offset
//! ```
//! A device pointer handed to the host API is a global address. `cvta.shared` adds
//! `SHARED_WINDOW` to a shared-space offset, `cvta.to.shared` subtracts it.
//!
//! ⚠ Safety banner: the arena is raw memory written concurrently by kernel code (JIT code and
//! interpreter) on several threads. It is never exposed as a Rust reference while a launch
//! runs; every kernel access is bounds-checked against `[GLOBAL_BASE, GLOBAL_BASE + top)`
//! before the host pointer `base + (addr - GLOBAL_BASE)` is formed.

use std::alloc::{self, Layout};
use std::collections::BTreeMap;
use std::ptr::NonNull;

/// Generic address of shared offset 0.
pub const SHARED_WINDOW: u64 = 0x0000_0001_0000_0000;
/// Generic address of local offset 0.
pub const LOCAL_WINDOW: u64 = 0x0000_0002_0000_0000;
/// Device address of arena offset 0.
pub const GLOBAL_BASE: u64 = 0x0000_0010_0000_0000;
/// Size of each of the shared and local windows.
pub const WINDOW_SIZE: u64 = 0x1_0000_0000;

/// Allocation granularity and alignment in bytes (as `cudaMalloc`'s 256-byte alignment).
pub const ALLOC_ALIGN: u64 = 256;

/// A device pointer: a global-space device address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DevicePtr(pub u64);

impl DevicePtr {
    /// The pointer `bytes` further on.
    pub fn offset(self, bytes: u64) -> DevicePtr {
        DevicePtr(self.0.wrapping_add(bytes))
    }
}

/// One live allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocation {
    /// Arena offset.
    pub offset: u64,
    /// Requested size in bytes.
    pub size: u64,
    /// A label for reports (the case file's buffer name, or `alloc#N`).
    pub label: String,
}

/// The global-memory arena with a first-fit allocator.
pub struct DeviceMemory {
    base: NonNull<u8>,
    capacity: u64,
    /// Live allocations by arena offset.
    allocs: BTreeMap<u64, Allocation>,
    /// End of the highest live allocation (rounded up to [`ALLOC_ALIGN`]): accesses at or past
    /// it fault.
    top: u64,
    next_label: u64,
}

// SAFETY: the arena is plain bytes owned by this value; sharing it across threads is sound
// because every access is through raw pointers (never references) and races between kernel
// threads have PTX's (not Rust's) semantics by design.
unsafe impl Send for DeviceMemory {}
// SAFETY: see above.
unsafe impl Sync for DeviceMemory {}

/// The largest arena ptxjit will ever grow to (bytes); see [`device_memory_limit`].
pub const MAX_ARENA: u64 = 16 << 30;

/// The device memory size (bytes): half of the host's physical memory (`MemTotal` of
/// `/proc/meminfo`), at most [`MAX_ARENA`]; [`MAX_ARENA`] where the host's memory is unknown.
/// Half, because growing the arena holds the old and the new copy at once and the host keeps
/// its own copies of case buffers: a larger arena would let one launch exhaust the host.
pub fn device_memory_limit() -> u64 {
    static LIMIT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            kib.checked_mul(1024)
        });
        match total {
            Some(t) if t > 0 => (t / 2).min(MAX_ARENA),
            _ => MAX_ARENA,
        }
    })
}

impl Default for DeviceMemory {
    fn default() -> Self {
        Self::new()
    }
}

impl DeviceMemory {
    pub fn new() -> DeviceMemory {
        DeviceMemory {
            base: NonNull::dangling(),
            capacity: 0,
            allocs: BTreeMap::new(),
            top: 0,
            next_label: 0,
        }
    }

    /// Host pointer of arena offset 0 (dangling when the capacity is 0).
    pub fn base(&self) -> *mut u8 {
        self.base.as_ptr()
    }

    /// Bytes from arena offset 0 that kernel code may access (the end of the highest live
    /// allocation).
    pub fn top(&self) -> u64 {
        self.top
    }

    /// Live allocations in address order.
    pub fn allocations(&self) -> impl Iterator<Item = &Allocation> {
        self.allocs.values()
    }

    fn grow(&mut self, need: u64) -> Result<(), String> {
        if need <= self.capacity {
            return Ok(());
        }
        let limit = device_memory_limit();
        if need > limit {
            return Err(format!(
                "out of device memory: {need} bytes needed, the device memory is {limit} bytes \
                 (half the host's memory, at most 16 GiB)"
            ));
        }
        let mut cap = self.capacity.max(1 << 20);
        while cap < need {
            cap *= 2;
        }
        let cap = cap.min(limit);
        let layout = Layout::from_size_align(cap as usize, 4096).map_err(|e| e.to_string())?;
        // SAFETY: layout has non-zero size.
        let p = unsafe { alloc::alloc_zeroed(layout) };
        let Some(p) = NonNull::new(p) else {
            return Err(format!("out of host memory allocating a {cap}-byte arena"));
        };
        if self.capacity > 0 {
            // SAFETY: both regions are valid for `capacity` bytes and distinct allocations.
            unsafe {
                std::ptr::copy_nonoverlapping(self.base.as_ptr(), p.as_ptr(), self.top as usize)
            };
            let old =
                Layout::from_size_align(self.capacity as usize, 4096).map_err(|e| e.to_string())?;
            // SAFETY: allocated by us with this layout.
            unsafe { alloc::dealloc(self.base.as_ptr(), old) };
        }
        self.base = p;
        self.capacity = cap;
        Ok(())
    }

    fn recompute_top(&mut self) {
        self.top = self
            .allocs
            .values()
            .next_back()
            .map(|a| (a.offset + a.size).div_ceil(ALLOC_ALIGN) * ALLOC_ALIGN)
            .unwrap_or(0);
    }

    /// Allocate `size` bytes (zero-filled), aligned to [`ALLOC_ALIGN`]. `label` names it in
    /// fault reports (`None`: `alloc#N`).
    ///
    /// Errors: `size` is 0 or the device memory ([`device_memory_limit`]) is exhausted.
    pub fn alloc(&mut self, size: u64, label: Option<&str>) -> Result<DevicePtr, String> {
        if size == 0 {
            return Err("cannot allocate 0 bytes".into());
        }
        let rounded = size
            .checked_add(ALLOC_ALIGN - 1)
            .ok_or("allocation size overflows")?
            / ALLOC_ALIGN
            * ALLOC_ALIGN;
        // First fit between live allocations.
        let mut cursor = 0u64;
        for a in self.allocs.values() {
            if a.offset >= cursor + rounded {
                break;
            }
            cursor = (a.offset + a.size).div_ceil(ALLOC_ALIGN) * ALLOC_ALIGN;
        }
        let end = cursor
            .checked_add(rounded)
            .ok_or("allocation size overflows")?;
        self.grow(end)?;
        // SAFETY: [cursor, end) is inside the arena; zero it (it may hold freed data).
        unsafe {
            std::ptr::write_bytes(self.base.as_ptr().add(cursor as usize), 0, rounded as usize)
        };
        self.next_label += 1;
        let label = label
            .map(str::to_string)
            .unwrap_or_else(|| format!("alloc#{}", self.next_label));
        self.allocs.insert(
            cursor,
            Allocation {
                offset: cursor,
                size,
                label,
            },
        );
        self.recompute_top();
        Ok(DevicePtr(GLOBAL_BASE + cursor))
    }

    /// Free an allocation made by [`alloc`](Self::alloc). Errors: not the start of a live
    /// allocation.
    pub fn free(&mut self, p: DevicePtr) -> Result<(), String> {
        let off = p.0.wrapping_sub(GLOBAL_BASE);
        if self.allocs.remove(&off).is_none() {
            return Err(format!("free of {:#x}: not a live allocation", p.0));
        }
        self.recompute_top();
        Ok(())
    }

    /// The allocation containing `[p, p+len)`, as (allocation, offset in it).
    fn range(&self, p: DevicePtr, len: u64) -> Result<(&Allocation, u64), String> {
        let off = p.0.wrapping_sub(GLOBAL_BASE);
        let a = self
            .allocs
            .range(..=off)
            .next_back()
            .map(|(_, a)| a)
            .filter(|a| off < a.offset + a.size.max(1))
            .ok_or_else(|| format!("{:#x} is not inside a live allocation", p.0))?;
        let within = off - a.offset;
        if within.checked_add(len).is_none_or(|e| e > a.size) {
            return Err(format!(
                "copy of {len} bytes at {:#x} runs past the end of '{}' ({} bytes)",
                p.0, a.label, a.size
            ));
        }
        Ok((a, within))
    }

    /// Copy host bytes to device memory (`cuMemcpyHtoD`). Errors: the range is not inside one
    /// live allocation.
    pub fn write(&mut self, dst: DevicePtr, src: &[u8]) -> Result<(), String> {
        let (a, within) = self.range(dst, src.len() as u64)?;
        let off = a.offset + within;
        // SAFETY: range() proved [off, off+len) lies in a live allocation inside the arena.
        unsafe {
            std::ptr::copy_nonoverlapping(
                src.as_ptr(),
                self.base.as_ptr().add(off as usize),
                src.len(),
            )
        };
        Ok(())
    }

    /// Copy device memory to host bytes (`cuMemcpyDtoH`). Errors as [`write`](Self::write).
    pub fn read(&self, src: DevicePtr, dst: &mut [u8]) -> Result<(), String> {
        let (a, within) = self.range(src, dst.len() as u64)?;
        let off = a.offset + within;
        // SAFETY: as in write().
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.base.as_ptr().add(off as usize),
                dst.as_mut_ptr(),
                dst.len(),
            )
        };
        Ok(())
    }

    /// For a faulting global address: the nearest allocation and the address's offset from
    /// its start (negative: before it), as memcheck reports it.
    pub fn nearest(&self, addr: u64) -> Option<(&Allocation, i64)> {
        let off = addr.wrapping_sub(GLOBAL_BASE) as i64;
        self.allocs
            .values()
            .min_by_key(|a| {
                let start = a.offset as i64;
                let end = (a.offset + a.size) as i64;
                if off < start {
                    start - off
                } else if off >= end {
                    off - end + 1
                } else {
                    0
                }
            })
            .map(|a| (a, off - a.offset as i64))
    }

    /// Whether `[addr, addr+len)` lies inside one live allocation (memcheck's test).
    pub fn in_allocation(&self, addr: u64, len: u64) -> bool {
        let off = addr.wrapping_sub(GLOBAL_BASE);
        self.allocs
            .range(..=off)
            .next_back()
            .is_some_and(|(_, a)| off.checked_add(len).is_some_and(|e| e <= a.offset + a.size))
    }
}

impl Drop for DeviceMemory {
    fn drop(&mut self) {
        if self.capacity > 0 {
            if let Ok(l) = Layout::from_size_align(self.capacity as usize, 4096) {
                // SAFETY: allocated by grow() with this layout.
                unsafe { alloc::dealloc(self.base.as_ptr(), l) };
            }
        }
    }
}
