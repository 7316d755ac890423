//! Device global memory: one arena of host memory that kernels address with *device
//! addresses*.
//!
//! # Address map (generic addresses, PTX ISA §6.4.1 "Generic Addressing")
//! ```text
//! 0x0000_0000_0000_0000 ..            invalid (null and low addresses always fault)
//! SHARED_WINDOW .. + 4 GiB            generic window onto the CTA's shared memory
//! LOCAL_WINDOW  .. + 4 GiB            generic window onto the thread's local memory
//! PARAM_WINDOW  .. + 4 GiB            generic window onto the kernel's parameters (`cvta.param`)
//! GLOBAL_BASE   .. + arena capacity   global memory: device address = GLOBAL_BASE + arena offset
//! ```
//! A device pointer handed to the host API is a global address. `cvta.shared` adds
//! `SHARED_WINDOW` to a shared-space offset, `cvta.to.shared` subtracts it.
//!
//! The host bytes of global memory are one address range reserved once per arena (it never
//! moves). An arena made by [`DeviceMemory::with_identity_mapping`] sits at host address
//! `GLOBAL_BASE`, so its device addresses are host addresses too: the drop-in CUDA libraries
//! use that for managed and mapped host memory, which the program dereferences directly.
//!
//! ⚠ Safety banner: the arena is raw memory written concurrently by kernel code (JIT code and
//! interpreter) on several threads. It is never exposed as a Rust reference while a launch
//! runs; every kernel access is bounds-checked against `[GLOBAL_BASE, GLOBAL_BASE + top)`
//! before the host pointer `base + (addr - GLOBAL_BASE)` is formed.

use std::collections::BTreeMap;
use std::ptr::NonNull;

/// Generic address of shared offset 0.
pub const SHARED_WINDOW: u64 = 0x0000_0001_0000_0000;
/// Generic address of local offset 0.
pub const LOCAL_WINDOW: u64 = 0x0000_0002_0000_0000;
/// Generic address of kernel-parameter offset 0 (`cvta.param`, PTX ISA §9.7.9.21).
pub const PARAM_WINDOW: u64 = 0x0000_0003_0000_0000;
/// Device address of arena offset 0.
pub const GLOBAL_BASE: u64 = 0x0000_0010_0000_0000;
/// Size of each of the shared and local windows.
pub const WINDOW_SIZE: u64 = 0x1_0000_0000;

/// Allocation granularity and alignment in bytes (as `cudaMalloc`'s 256-byte alignment).
pub const ALLOC_ALIGN: u64 = 256;

/// With memcheck's placement ([`DeviceMemory::set_checked`]): the unallocated bytes kept
/// before every allocation and after its last byte (at least), so that an access just past
/// the end or before the start of a buffer lands in no allocation and faults, even where
/// another buffer follows.
pub const RED_ZONE: u64 = 256;

/// With memcheck's placement: freed allocations stay poisoned (never handed out again, and
/// named in reports as freed) until more than this many bytes of later frees push them out,
/// oldest first. Their pages go back to the host at the free all the same.
pub const QUARANTINE_BYTES: u64 = 256 << 20;

/// With the plain placement: how many of the latest frees are remembered (label, place,
/// size, nothing poisoned) so that a fault at an address in one of them that no later
/// allocation took, or a second free of one, names it ([`DeviceMemory::freed_at`]).
pub const RECENT_FREES: usize = 64;

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
    /// What it holds: a buffer of the program's, or a module's variable
    /// ([`DeviceMemory::set_module_variable`]), which reports name only for an address in
    /// or right next to it ([`DeviceMemory::nearest_for_report`]).
    pub kind: AllocKind,
}

/// What an [`Allocation`] holds, for reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocKind {
    /// Memory the program (or a case file) allocated.
    Buffer,
    /// A module-scope `.global` (`__device__`) or `.const` (`__constant__`) variable, which
    /// the module's load placed in the arena; nvcc's string literals (`$str`, `$str$1`, …)
    /// are `.global` variables.
    ModuleVariable {
        /// In the `.const` state space.
        constant: bool,
    },
}

impl Allocation {
    /// The allocation as a report names it: `'x'` for a buffer, `module variable '$str$1'
    /// (const string)` (or `(__device__)`, `(__constant__)`) for a module's variable.
    pub fn report_name(&self) -> String {
        match self.kind {
            AllocKind::Buffer => format!("'{}'", self.label),
            AllocKind::ModuleVariable { constant } => {
                let what = if self.label.starts_with("$str") {
                    "const string"
                } else if constant {
                    "__constant__"
                } else {
                    "__device__"
                };
                format!("module variable '{}' ({what})", self.label)
            }
        }
    }
}

/// How far outside an allocation (bytes) a faulting address may be for a report to name it
/// as "N bytes after the end of" / "before the start of" that allocation: the allocation's
/// own size or this, whichever is larger ([`is_near`]). Farther, the address belongs to no
/// allocation in any useful sense (a wild pointer, an index of another buffer's scale), and
/// the report says so and gives the allocations on either side ([`DeviceMemory::neighbours`]).
pub const NEAR_BYTES: u64 = 4096;

/// Whether an address `off` bytes from the start of allocation `a` (negative: before it) is
/// close enough to `a` to be reported relative to it: inside it, or less than `max(a.size,
/// NEAR_BYTES)` bytes after its end (`off - size`, 0 for the first byte past it) or before
/// its start (`-off`).
pub fn is_near(a: &Allocation, off: i64) -> bool {
    let size = i128::from(a.size);
    let off = i128::from(off);
    let outside = if off < 0 { -off } else { (off - size).max(0) };
    outside < i128::from(a.size.max(NEAR_BYTES))
}

/// The allocations on either side of an address ([`DeviceMemory::neighbours`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Neighbours<'a> {
    /// The closest allocation at or below the address, and the bytes from its end to the
    /// address (0: the first byte past its end, or inside it).
    pub below: Option<(&'a Allocation, u64)>,
    /// The closest allocation above the address, and the bytes from the address to its start.
    pub above: Option<(&'a Allocation, u64)>,
}

/// The global-memory arena with a first-fit allocator.
///
/// The arena's address range is reserved once, on the first allocation, as one anonymous
/// mapping of [`device_memory_limit`] bytes that the host's kernel backs with memory only where
/// it is touched; it never moves, so device pointers and the host pointers behind them stay
/// valid for the arena's life. An allocation is refused (an error, never the OOM killer) when
/// the memory it would newly touch exceeds what the host can give now ([`available_memory`]).
pub struct DeviceMemory {
    /// Host address of arena offset 0 (dangling until the range is reserved).
    base: NonNull<u8>,
    /// Bytes reserved at `base` (0: not reserved yet).
    capacity: u64,
    /// Reserve the range at host address [`GLOBAL_BASE`], so that device addresses are host
    /// addresses (see [`DeviceMemory::with_identity_mapping`]).
    identity: bool,
    /// Live allocations by arena offset.
    allocs: BTreeMap<u64, Allocation>,
    /// End of the highest live allocation (rounded up to [`ALLOC_ALIGN`]): accesses at or past
    /// it fault.
    top: u64,
    /// End of the highest byte ever handed out: the pages past it were never touched and read
    /// as zero without being backed by host memory.
    high_water: u64,
    next_label: u64,
    /// Memcheck's placement: red zones around allocations and a quarantine of freed ones.
    checked: bool,
    /// Freed allocations still poisoned (checked placement only), by arena offset.
    quarantine: BTreeMap<u64, Allocation>,
    /// Offsets of the quarantined allocations in the order they were freed.
    quarantine_order: std::collections::VecDeque<u64>,
    /// Bytes in `quarantine`.
    quarantine_bytes: u64,
    /// The plain placement's latest frees, newest last ([`RECENT_FREES`]); an allocation
    /// that overlaps one drops it.
    recent_frees: std::collections::VecDeque<Allocation>,
    /// The last reading of [`available_memory`] and `granted` then: allocations of less than
    /// [`AVAILABLE_SLACK`] bytes together since are checked against it without reading the
    /// system's files again ([`DeviceMemory::host_can_back`]).
    avail_seen: Option<(u64, u64)>,
    /// Bytes allocated over the arena's life (each allocation rounded up to
    /// [`ALLOC_ALIGN`]; frees do not subtract).
    granted: u64,
    /// initcheck's shadow: which bytes have been written ([`set_initcheck`](Self::set_initcheck)).
    init_shadow: Option<super::initcheck::ArenaShadow>,
}

/// Why a pointer given to [`DeviceMemory::free`] is not an allocation's start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BadFree {
    /// The allocation was freed already (still in memcheck's quarantine, or among the plain
    /// placement's [`RECENT_FREES`] latest frees): its label and size.
    Double { label: String, size: u64 },
    /// The pointer is inside a live allocation, not at its start: label, size, offset.
    Interior {
        label: String,
        size: u64,
        offset: u64,
    },
    /// The pointer is in no allocation, live or recently freed.
    Unknown,
}

impl std::fmt::Display for BadFree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadFree::Double { label, size } => {
                write!(f, "double free: '{label}' ({size} bytes) was freed already")
            }
            BadFree::Interior {
                label,
                size,
                offset,
            } => write!(
                f,
                "invalid free: the pointer is {offset} bytes inside '{label}' ({size} bytes), \
                 not its start"
            ),
            BadFree::Unknown => f.write_str("invalid free: not a live allocation"),
        }
    }
}

// SAFETY: the arena is plain bytes owned by this value; sharing it across threads is sound
// because every access is through raw pointers (never references) and races between kernel
// threads have PTX's (not Rust's) semantics by design.
unsafe impl Send for DeviceMemory {}
// SAFETY: see above.
unsafe impl Sync for DeviceMemory {}

/// The largest address range an arena reserves (bytes); see [`device_memory_limit`].
pub const MAX_ARENA: u64 = 64 << 30;

/// The alignment of the arena's host address range (bytes): the size of a transparent huge
/// page on x86-64 (and on AArch64 with 4 KiB pages), 2 MiB. The host backs a 2 MiB-aligned
/// stretch of the range with one huge page only when the whole stretch lies inside the
/// mapping, so with an aligned start every 2 MiB of the arena can be one, from offset 0 on
/// (a GPU's large pages likewise start at its allocations' 2 MiB granularity).
pub const ARENA_ALIGN: u64 = 2 << 20;

/// Memory the host keeps for itself when ptxjit decides whether an allocation can be backed
/// (bytes): the process's own code, host copies of buffers, the page cache it needs.
const HOST_RESERVE: u64 = 256 << 20;

/// Reads one `Key:   N kB` line of `/proc/meminfo` in bytes.
fn meminfo(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The memory limit of this process's cgroup (v2 `memory.max`) and its current usage, where
/// there is one.
fn cgroup_memory() -> Option<(u64, u64)> {
    let cg = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cg.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = std::path::Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    let max = std::fs::read_to_string(dir.join("memory.max")).ok()?;
    let max: u64 = max.trim().parse().ok()?; // "max": no limit
    let cur: u64 = std::fs::read_to_string(dir.join("memory.current"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some((max, cur))
}

/// The device memory size (bytes): the host's physical memory (`MemTotal` of `/proc/meminfo`,
/// or the cgroup's limit when lower), at most [`MAX_ARENA`]; [`MAX_ARENA`] where the host's
/// memory is unknown. It is the size of the address range an arena reserves; what can be
/// allocated at a given moment is bounded by [`available_memory`] as well.
pub fn device_memory_limit() -> u64 {
    static LIMIT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        let total = meminfo("MemTotal:");
        let total = match (total, cgroup_memory()) {
            (Some(t), Some((max, _))) => Some(t.min(max)),
            (t, _) => t,
        };
        match total {
            Some(t) if t > 0 => (t / ALLOC_ALIGN * ALLOC_ALIGN).min(MAX_ARENA),
            _ => MAX_ARENA,
        }
    })
}

/// How many bytes the arena may grow by on one reading of [`available_memory`] before it
/// reads again (also at most a quarter of what that reading said was available).
pub const AVAILABLE_SLACK: u64 = 64 << 20;

/// Bytes of memory the host can give right now (`MemAvailable`, or what the cgroup's limit
/// leaves when lower), less a reserve the process keeps for itself, rounded down to
/// [`ALLOC_ALIGN`] (so that an allocation of exactly this many bytes fits); `None` when
/// unknown.
pub fn available_memory() -> Option<u64> {
    let avail = meminfo("MemAvailable:");
    let avail = match (avail, cgroup_memory()) {
        (Some(a), Some((max, cur))) => Some(a.min(max.saturating_sub(cur))),
        (Some(a), None) => Some(a),
        (None, Some((max, cur))) => Some(max.saturating_sub(cur)),
        (None, None) => None,
    };
    avail.map(|a| a.saturating_sub(HOST_RESERVE) / ALLOC_ALIGN * ALLOC_ALIGN)
}

impl Default for DeviceMemory {
    fn default() -> Self {
        Self::new()
    }
}

impl DeviceMemory {
    /// An arena whose range the host's kernel places (not yet reserved: the first allocation
    /// reserves it).
    pub fn new() -> DeviceMemory {
        DeviceMemory {
            base: NonNull::dangling(),
            capacity: 0,
            identity: false,
            allocs: BTreeMap::new(),
            top: 0,
            high_water: 0,
            next_label: 0,
            checked: false,
            quarantine: BTreeMap::new(),
            quarantine_order: std::collections::VecDeque::new(),
            quarantine_bytes: 0,
            recent_frees: std::collections::VecDeque::new(),
            init_shadow: None,
            avail_seen: None,
            granted: 0,
        }
    }

    /// Whether the host can back a new allocation of `bytes`, as [`available_memory`] says
    /// (`Err`: what it can back; `Ok` when unknown). Every byte of a new allocation counts,
    /// wherever it is placed: bytes above the high-water mark were never touched, and those
    /// of a reused freed range went back to the host ([`DeviceMemory::free`],
    /// `zero_free_range`), so the host backs none of them until they are written. The
    /// reading is reused until [`AVAILABLE_SLACK`] bytes, or a quarter of what was available,
    /// have been allocated since it was taken: a module's many small globals cost one
    /// reading, not one each.
    fn host_can_back(&mut self, bytes: u64) -> Result<(), u64> {
        if let Some((avail, at)) = self.avail_seen {
            let grown = self.granted.saturating_sub(at).saturating_add(bytes);
            if grown < AVAILABLE_SLACK.min(avail / 4) {
                return Ok(());
            }
        }
        let Some(avail) = available_memory() else {
            self.avail_seen = None;
            return Ok(());
        };
        self.avail_seen = Some((avail, self.granted));
        if bytes > avail {
            return Err(avail);
        }
        Ok(())
    }

    /// Track which bytes have been written, for initcheck (`true`; an error when the shadow's
    /// address range cannot be reserved), or stop tracking. The bytes of allocations live when
    /// tracking starts count as written (what happened to them before is unknown); from then
    /// on an allocation's bytes start unwritten, and [`write`](Self::write),
    /// [`mark_written`](Self::mark_written) and kernel stores write them.
    pub fn set_initcheck(&mut self, on: bool) -> Result<(), String> {
        if !on {
            self.init_shadow = None;
            return Ok(());
        }
        if self.init_shadow.is_none() {
            let s = super::initcheck::ArenaShadow::new(device_memory_limit())?;
            for a in self.allocs.values() {
                s.set(a.offset, a.size, true);
            }
            self.init_shadow = Some(s);
        }
        Ok(())
    }

    /// initcheck's shadow, when tracking is on ([`set_initcheck`](Self::set_initcheck)).
    pub fn init_shadow(&self) -> Option<&super::initcheck::ArenaShadow> {
        self.init_shadow.as_ref()
    }

    /// Count `[p, p + len)` as written (initcheck): the host wrote it without going through
    /// [`write`](Self::write) (the drop-in library's copies and memsets through host
    /// pointers, memory the program writes directly). Nothing when tracking is off.
    pub fn mark_written(&self, p: DevicePtr, len: u64) {
        if let Some(s) = &self.init_shadow {
            s.set(p.0.wrapping_sub(GLOBAL_BASE), len, true);
        }
    }

    /// Memcheck's placement from now on (`true`), or the plain one: allocations made while it
    /// is on keep [`RED_ZONE`] bytes of unallocated space on each side, and allocations freed
    /// while it is on stay in a quarantine ([`QUARANTINE_BYTES`]) where no allocation reuses
    /// them and [`freed_at`](Self::freed_at) names them. Device addresses stay host
    /// addresses in an identity-mapped arena: only where allocations are placed changes.
    pub fn set_checked(&mut self, on: bool) {
        self.checked = on;
        self.recent_frees.clear();
        if !on {
            self.quarantine.clear();
            self.quarantine_order.clear();
            self.quarantine_bytes = 0;
        }
    }

    /// Whether memcheck's placement is on ([`set_checked`](Self::set_checked)).
    pub fn is_checked(&self) -> bool {
        self.checked
    }

    /// The freed allocation that contains device address `addr`, as (allocation, offset in
    /// it): a use after free. With memcheck's placement, a quarantined (still poisoned) one;
    /// with the plain placement, one of the [`RECENT_FREES`] latest frees, at an address no
    /// live allocation holds now.
    pub fn freed_at(&self, addr: u64) -> Option<(&Allocation, u64)> {
        let off = addr.checked_sub(GLOBAL_BASE)?;
        let within = |a: &Allocation| off >= a.offset && off < a.offset + a.size.max(1);
        if let Some((_, a)) = self.quarantine.range(..=off).next_back() {
            if within(a) {
                return Some((a, off - a.offset));
            }
        }
        if self.allocation_at(addr).is_some() {
            return None;
        }
        let a = self.recent_frees.iter().rev().find(|a| within(a))?;
        Some((a, off - a.offset))
    }

    /// An arena reserved now at host address [`GLOBAL_BASE`], so that every device address is
    /// also the host address of the same bytes: the host can dereference device pointers
    /// (managed and mapped memory). One process can hold one such arena at a time.
    ///
    /// Errors: the address range is taken (another such arena, or a mapping of the process).
    pub fn with_identity_mapping() -> Result<DeviceMemory, String> {
        let mut m = DeviceMemory::new();
        m.identity = true;
        m.reserve()?;
        Ok(m)
    }

    /// Whether device addresses are host addresses ([`DeviceMemory::with_identity_mapping`]).
    pub fn is_identity(&self) -> bool {
        self.identity && self.capacity > 0
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

    /// Bytes in live allocations (each rounded up to [`ALLOC_ALIGN`]).
    pub fn used(&self) -> u64 {
        self.allocs
            .values()
            .map(|a| a.size.div_ceil(ALLOC_ALIGN) * ALLOC_ALIGN)
            .sum()
    }

    /// Live allocations in address order.
    pub fn allocations(&self) -> impl Iterator<Item = &Allocation> {
        self.allocs.values()
    }

    /// The live allocation that contains device address `addr`, as (allocation, offset in it).
    pub fn allocation_at(&self, addr: u64) -> Option<(&Allocation, u64)> {
        let off = addr.checked_sub(GLOBAL_BASE)?;
        let (_, a) = self.allocs.range(..=off).next_back()?;
        (off < a.offset + a.size.max(1)).then_some((a, off - a.offset))
    }

    /// Marks the live allocation that starts at `p` as a module's variable (`constant`: in
    /// the `.const` space), for reports. Nothing when no allocation starts there.
    pub fn set_module_variable(&mut self, p: DevicePtr, constant: bool) {
        if let Some(a) = self.allocs.get_mut(&p.0.wrapping_sub(GLOBAL_BASE)) {
            a.kind = AllocKind::ModuleVariable { constant };
        }
    }

    /// Rename the live allocation that starts at `p` to `label` (for reports). Errors: no
    /// live allocation starts at `p` (the message says what is there instead).
    pub fn set_label(&mut self, p: DevicePtr, label: &str) -> Result<(), String> {
        let off = p.0.wrapping_sub(GLOBAL_BASE);
        if let Some(a) = self.allocs.get_mut(&off) {
            a.label = label.to_string();
            return Ok(());
        }
        Err(match self.allocation_at(p.0) {
            Some((a, within)) => format!(
                "{:#x} is {within} bytes into '{}' ({} bytes), not the start of an allocation",
                p.0, a.label, a.size
            ),
            None => format!(
                "{:#x} is not device memory (no live allocation holds it)",
                p.0
            ),
        })
    }

    /// Reserve the address range (once).
    fn reserve(&mut self) -> Result<(), String> {
        if self.capacity > 0 {
            return Ok(());
        }
        let mut size = device_memory_limit();
        // The host places a range wherever it likes (often not 2 MiB-aligned): ask for
        // [`ARENA_ALIGN`] more and give the slack on either side of the aligned start back.
        // `GLOBAL_BASE` is aligned already.
        let slack = if self.identity { 0 } else { ARENA_ALIGN };
        loop {
            // SAFETY: an anonymous private mapping; with a hint of GLOBAL_BASE and
            // MAP_FIXED_NOREPLACE it never replaces an existing mapping.
            let p = unsafe {
                let (hint, fixed) = if self.identity {
                    (GLOBAL_BASE as *mut libc::c_void, libc::MAP_FIXED_NOREPLACE)
                } else {
                    (std::ptr::null_mut(), 0)
                };
                libc::mmap(
                    hint,
                    (size + slack) as usize,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | fixed,
                    -1,
                    0,
                )
            };
            if p != libc::MAP_FAILED {
                if self.identity && p as u64 != GLOBAL_BASE {
                    // An old kernel without MAP_FIXED_NOREPLACE treats the address as a hint.
                    // SAFETY: unmapping the mapping just made.
                    unsafe { libc::munmap(p, size as usize) };
                    return Err(format!(
                        "cannot reserve device memory at {GLOBAL_BASE:#x}: the address range is in use"
                    ));
                }
                let p = if slack > 0 {
                    let start = (p as u64).next_multiple_of(ARENA_ALIGN);
                    let head = start - p as u64;
                    // SAFETY: the head and the tail are the parts of the mapping just made
                    // outside [start, start + size), which nothing uses.
                    unsafe {
                        if head > 0 {
                            libc::munmap(p, head as usize);
                        }
                        if slack > head {
                            libc::munmap(
                                (start + size) as *mut libc::c_void,
                                (slack - head) as usize,
                            );
                        }
                    }
                    start as *mut libc::c_void
                } else {
                    p
                };
                // Transparent huge pages where the host allows them only on request (the
                // usual `madvise` setting): a kernel streaming through buffers of many MiB
                // then takes a TLB miss per 2 MiB instead of per 4 KiB, as a GPU's large
                // pages do. Advice only: the host may ignore it, and nothing depends on it.
                // SAFETY: advice on the mapping just made.
                unsafe { libc::madvise(p, size as usize, libc::MADV_HUGEPAGE) };
                self.base = NonNull::new(p.cast()).ok_or("mmap returned null")?;
                self.capacity = size;
                return Ok(());
            }
            let err = std::io::Error::last_os_error();
            // Strict overcommit accounting refuses large reservations: try smaller ones.
            if size > (256 << 20) && err.raw_os_error() == Some(libc::ENOMEM) {
                size /= 2;
                continue;
            }
            return Err(format!(
                "cannot reserve {size} bytes of address space for device memory: {err}"
            ));
        }
    }

    /// Zero arena bytes `[from, to)`, which no live allocation holds, without backing them:
    /// the whole pages go back to the host (`MADV_DONTNEED` on the private anonymous range,
    /// after which they read as zero) and only the partial pages at either end, which may
    /// share a page with a live allocation, are written. Writing the whole range instead
    /// would make the host back every byte of a large reused range at once, memory a lazy
    /// allocation never touched (a `cudaMalloc` of most of the device after a `cudaFree` of
    /// as much would commit all of it, and the host's out-of-memory killer end the
    /// program).
    fn zero_free_range(&mut self, from: u64, to: u64) {
        // SAFETY: sysconf has no preconditions.
        let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
            p if p > 0 => p as u64,
            _ => 4096,
        };
        let first = from.div_ceil(page) * page;
        let last = to / page * page;
        let base = self.base.as_ptr();
        // SAFETY: [from, to) is inside the reserved range and in no live allocation; the
        // madvise range is whole pages inside it.
        unsafe {
            let released = last > first
                && libc::madvise(
                    base.add(first as usize).cast(),
                    (last - first) as usize,
                    libc::MADV_DONTNEED,
                ) == 0;
            if released {
                std::ptr::write_bytes(base.add(from as usize), 0, (first - from) as usize);
                std::ptr::write_bytes(base.add(last as usize), 0, (to - last) as usize);
            } else {
                std::ptr::write_bytes(base.add(from as usize), 0, (to - from) as usize);
            }
        }
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
    /// Errors: `size` is 0; the arena's range ([`device_memory_limit`]) has no room; the host
    /// cannot back the memory the allocation would newly touch ([`available_memory`]).
    pub fn alloc(&mut self, size: u64, label: Option<&str>) -> Result<DevicePtr, String> {
        if size == 0 {
            return Err("cannot allocate 0 bytes".into());
        }
        let rounded = size
            .checked_add(ALLOC_ALIGN - 1)
            .ok_or("allocation size overflows")?
            / ALLOC_ALIGN
            * ALLOC_ALIGN;
        // First fit between live (and quarantined) allocations; with memcheck's placement a
        // red zone on each side (the gap after an allocation starts at its exact end).
        let rz = if self.checked { RED_ZONE } else { 0 };
        let need = rounded.saturating_add(rz);
        let mut cursor = rz.div_ceil(ALLOC_ALIGN) * ALLOC_ALIGN;
        let mut taken: Vec<&Allocation> = self.allocs.values().collect();
        if !self.quarantine.is_empty() {
            taken.extend(self.quarantine.values());
            taken.sort_by_key(|a| a.offset);
        }
        for a in taken {
            if a.offset >= cursor.saturating_add(need) {
                break;
            }
            cursor = cursor.max((a.offset + a.size + rz).div_ceil(ALLOC_ALIGN) * ALLOC_ALIGN);
        }
        let limit = device_memory_limit();
        let end = cursor
            .checked_add(need)
            .filter(|&e| e <= limit)
            .ok_or_else(|| {
                format!(
                    "out of device memory: {size} bytes requested, {} of the device's {limit} \
                     bytes are in use",
                    self.used()
                )
            })?;
        if let Err(avail) = self.host_can_back(rounded) {
            return Err(format!(
                "out of device memory: {size} bytes requested, but the host can back only \
                 {avail} more bytes now (its available memory, less {HOST_RESERVE} bytes it \
                 keeps)"
            ));
        }
        self.reserve()?;
        if end > self.capacity {
            return Err(format!(
                "out of device memory: {size} bytes requested, the reserved device address \
                 range is {} bytes",
                self.capacity
            ));
        }
        // Bytes below the high-water mark may hold freed data (or a wild store's): zero them.
        // Bytes above it were never touched and read as zero already (not touching them keeps
        // them unbacked).
        let dirty_end = end.min(self.high_water);
        if dirty_end > cursor {
            self.zero_free_range(cursor, dirty_end);
        }
        self.high_water = self.high_water.max(end);
        self.granted = self.granted.saturating_add(rounded);
        if let Some(s) = &self.init_shadow {
            // A new allocation holds nothing written yet (cudaMalloc's memory is undefined).
            s.set(cursor, rounded, false);
        }
        // A remembered free whose bytes this allocation takes whole is no longer freed
        // memory; one it takes in part stays, for its other bytes ([`Self::freed_at`] names
        // only addresses no live allocation holds): a program that frees a buffer and then
        // loads a module (whose variables take the buffer's first bytes) and launches a
        // kernel through the stale pointer gets a use after free, not an address in no
        // allocation.
        let end_new = cursor + size.max(1);
        self.recent_frees
            .retain(|a| a.offset < cursor || a.offset + a.size.max(1) > end_new);
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
                kind: AllocKind::Buffer,
            },
        );
        self.recompute_top();
        Ok(DevicePtr(GLOBAL_BASE + cursor))
    }

    /// Free an allocation made by [`alloc`](Self::alloc). Its whole pages go back to the
    /// host; with memcheck's placement it stays in the quarantine
    /// ([`set_checked`](Self::set_checked)). Errors: not the start of a live allocation
    /// ([`BadFree`]: freed already — known while quarantined or among the latest frees —,
    /// inside one, or unknown).
    pub fn free(&mut self, p: DevicePtr) -> Result<(), BadFree> {
        let off = p.0.wrapping_sub(GLOBAL_BASE);
        let Some(a) = self.allocs.remove(&off) else {
            let freed = self
                .quarantine
                .get(&off)
                .or_else(|| self.recent_frees.iter().rev().find(|a| a.offset == off));
            if let Some(q) = freed {
                return Err(BadFree::Double {
                    label: q.label.clone(),
                    size: q.size,
                });
            }
            return Err(match self.allocation_at(p.0) {
                Some((a, offset)) => BadFree::Interior {
                    label: a.label.clone(),
                    size: a.size,
                    offset,
                },
                None => BadFree::Unknown,
            });
        };
        const PAGE: u64 = 4096;
        let first = a.offset.div_ceil(PAGE) * PAGE;
        let last = (a.offset + a.size) / PAGE * PAGE;
        if last > first {
            // SAFETY: whole pages of the reserved private anonymous range that no live
            // allocation uses; they read as zero afterwards.
            unsafe {
                libc::madvise(
                    self.base.as_ptr().add(first as usize).cast(),
                    (last - first) as usize,
                    libc::MADV_DONTNEED,
                )
            };
        }
        if self.checked {
            self.quarantine_bytes += a.size;
            self.quarantine_order.push_back(a.offset);
            self.quarantine.insert(a.offset, a);
            while self.quarantine_bytes > QUARANTINE_BYTES {
                let Some(old) = self.quarantine_order.pop_front() else {
                    break;
                };
                if let Some(q) = self.quarantine.remove(&old) {
                    self.quarantine_bytes -= q.size;
                }
            }
        } else {
            if self.recent_frees.len() == RECENT_FREES {
                self.recent_frees.pop_front();
            }
            self.recent_frees.push_back(a);
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
                "{len} bytes at {:#x} run past the end of '{}' ({} bytes)",
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
        if let Some(s) = &self.init_shadow {
            s.set(off, src.len() as u64, true);
        }
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

    /// The allocation a fault report names for a faulting global address, with the
    /// address's offset from its start (negative: before it): the one the address is in;
    /// else the nearest of the program's buffers the address is near ([`is_near`]) and the
    /// module variables it is right next to (at most the variable's own size past its end
    /// or before its start). A module's variables (nvcc's string literals among them) sit
    /// between the program's buffers, and an overrun of a buffer is what a program has far
    /// more often, so a variable is named only when the address can hardly mean another
    /// allocation.
    pub fn nearest_for_report(&self, addr: u64) -> Option<(&Allocation, i64)> {
        let off = addr.wrapping_sub(GLOBAL_BASE) as i64;
        let rel = |a: &Allocation| off - a.offset as i64;
        // Bytes outside `a` (0 inside it).
        let outside = |a: &Allocation| {
            let o = i128::from(rel(a));
            if o < 0 {
                -o
            } else {
                (o - i128::from(a.size.max(1)) + 1).max(0)
            }
        };
        if let Some((a, within)) = self.allocation_at(addr) {
            return Some((a, within as i64));
        }
        self.allocs
            .values()
            .filter(|a| match a.kind {
                AllocKind::Buffer => is_near(a, rel(a)),
                AllocKind::ModuleVariable { .. } => outside(a) <= i128::from(a.size),
            })
            .min_by_key(|a| outside(a))
            .map(|a| (a, rel(a)))
    }

    /// The live allocations on either side of a global address: the closest one that ends at
    /// or below it, with how many bytes past its end the address is, and the closest one
    /// that starts above it, with how many bytes before its start the address is. An address
    /// inside an allocation has that one as `below` at a distance of 0 past its start (use
    /// [`nearest`](Self::nearest) for it); an address below the arena has no `below`.
    pub fn neighbours(&self, addr: u64) -> Neighbours<'_> {
        self.neighbours_where(addr, |_| true)
    }

    /// [`neighbours`](Self::neighbours) among the allocations that `keep` accepts: the
    /// closest accepted one on either side.
    pub fn neighbours_where(
        &self,
        addr: u64,
        keep: impl Fn(&Allocation) -> bool,
    ) -> Neighbours<'_> {
        let Some(off) = addr.checked_sub(GLOBAL_BASE) else {
            let above = self
                .allocs
                .values()
                .find(|a| keep(a))
                .map(|a| (a, GLOBAL_BASE - addr + a.offset));
            return Neighbours { below: None, above };
        };
        let below = self
            .allocs
            .range(..=off)
            .rev()
            .find(|(_, a)| keep(a))
            .map(|(_, a)| (a, off.saturating_sub(a.offset + a.size)));
        let above = off
            .checked_add(1)
            .and_then(|o| self.allocs.range(o..).find(|(_, a)| keep(a)))
            .map(|(_, a)| (a, a.offset - off));
        Neighbours { below, above }
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
            // SAFETY: the range reserve() mapped; nothing refers to it once the arena is gone.
            unsafe { libc::munmap(self.base.as_ptr().cast(), self.capacity as usize) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_stay_put_as_the_arena_fills() {
        let mut m = DeviceMemory::new();
        let a = m.alloc(1000, Some("a")).unwrap();
        let base = m.base();
        m.write(a, &[7u8; 1000]).unwrap();
        // Far more than any first reservation of the old growing arena (1 MiB).
        let b = m.alloc(64 << 20, Some("b")).unwrap();
        assert_eq!(m.base(), base, "the arena moved");
        let mut back = [0u8; 1000];
        m.read(a, &mut back).unwrap();
        assert_eq!(back, [7u8; 1000]);
        assert_eq!(b.0 % ALLOC_ALIGN, 0);
    }

    /// The arena's host range starts on a 2 MiB boundary (the host places a plain mapping
    /// on any page; this host put the old arena's 4 KiB pages before its first 2 MiB
    /// boundary, 1.24 MiB of them), and the whole reserved range stays mapped after the
    /// slack around it is given back (`mincore` fails on an unmapped page).
    #[test]
    fn the_arena_starts_on_a_huge_page_boundary() {
        for _ in 0..4 {
            let mut m = DeviceMemory::new();
            m.alloc(1, None).unwrap();
            let base = m.base() as u64;
            assert_eq!(base % ARENA_ALIGN, 0, "arena at {base:#x}");
            let cap = m.capacity as usize;
            for off in [0, cap - 4096] {
                let mut v = [0u8; 1];
                // SAFETY: a page-aligned address inside the reserved range; `v` has its byte.
                let r = unsafe { libc::mincore(m.base().add(off).cast(), 4096, v.as_mut_ptr()) };
                assert_eq!(r, 0, "offset {off:#x}: {}", std::io::Error::last_os_error());
            }
        }
    }

    #[test]
    fn reused_memory_is_zeroed() {
        let mut m = DeviceMemory::new();
        let a = m.alloc(3 * 4096 + 5, None).unwrap();
        m.write(a, &vec![0xAB; 3 * 4096 + 5]).unwrap();
        m.free(a).unwrap();
        let b = m.alloc(3 * 4096 + 5, None).unwrap();
        assert_eq!(a, b, "first fit reuses the freed range");
        let mut back = vec![1u8; 3 * 4096 + 5];
        m.read(b, &mut back).unwrap();
        assert!(back.iter().all(|&x| x == 0));
    }

    /// Pages of `[p, p + len)` the host backs now (`mincore`).
    fn resident_pages(p: *const u8, len: usize) -> usize {
        let mut v = vec![0u8; len.div_ceil(4096)];
        // SAFETY: `p` is page-aligned and the range is mapped; `v` has a byte per page.
        let r = unsafe { libc::mincore(p as *mut libc::c_void, len, v.as_mut_ptr()) };
        assert_eq!(r, 0, "mincore: {}", std::io::Error::last_os_error());
        v.iter().filter(|&&b| b & 1 != 0).count()
    }

    /// A large allocation in a freed range is zeroed without the host backing it (writing
    /// zeros over it would commit every page, as much memory as a lazy allocation of most of
    /// the device would need at once): it comes back unbacked and reads as zero, also where
    /// something wrote the freed bytes after the free.
    #[test]
    fn reused_range_is_zeroed_without_backing_it() {
        let mut m = DeviceMemory::new();
        let keep = m.alloc(100, Some("keep")).unwrap();
        m.write(keep, &[9u8; 100]).unwrap();
        let size: usize = 16 << 20;
        let a = m.alloc(size as u64, None).unwrap();
        m.write(a, &vec![0xAB; size]).unwrap();
        m.free(a).unwrap();
        // Stray writes into the freed range (a kernel's wild stores below the arena's top).
        let base = m.base();
        // SAFETY (of each use): `p` is inside the reserved range.
        let host = |p: DevicePtr| unsafe { base.add((p.0 - GLOBAL_BASE) as usize) };
        for off in (0..size).step_by(1 << 16) {
            // SAFETY: inside the reserved range.
            unsafe { *host(a).add(off) = 0xCD };
        }
        let b = m.alloc(size as u64 + 5, None).unwrap();
        assert_eq!(a, b, "first fit reuses the freed range");
        let start = host(b);
        let page = start as usize % 4096;
        let resident = resident_pages(start.wrapping_sub(page), size + page);
        assert!(
            resident <= 2,
            "{resident} of {} pages backed after the allocation",
            size / 4096
        );
        let mut back = vec![1u8; size + 5];
        m.read(b, &mut back).unwrap();
        assert!(back.iter().all(|&x| x == 0), "reused memory not zeroed");
        let mut k = [0u8; 100];
        m.read(keep, &mut k).unwrap();
        assert_eq!(k, [9u8; 100], "the neighbouring allocation changed");
    }

    /// The rule of [`is_near`], and the allocations either side of an address in none.
    #[test]
    fn near_rule_and_neighbours() {
        let at = |offset, size| Allocation {
            offset,
            size,
            label: String::new(),
            kind: AllocKind::Buffer,
        };
        // A 1-byte allocation: 4 KiB either side.
        assert!(is_near(&at(0, 1), 1 + 4095));
        assert!(!is_near(&at(0, 1), 1 + 4096));
        assert!(is_near(&at(0, 1), -4095));
        assert!(!is_near(&at(0, 1), -4096));
        // A 1 MiB allocation: its own size either side.
        assert!(is_near(&at(0, 1 << 20), (2 << 20) - 1));
        assert!(!is_near(&at(0, 1 << 20), 2 << 20));
        assert!(!is_near(&at(0, 1 << 20), -(1 << 20)));
        assert!(is_near(&at(0, 1 << 20), 5));

        let mut m = DeviceMemory::new();
        let a = m.alloc(16, Some("a")).unwrap();
        let gap = m.alloc(1 << 20, None).unwrap();
        let b = m.alloc(64, Some("b")).unwrap();
        m.free(gap).unwrap();
        let lbl = |x: Option<(&Allocation, u64)>| x.map(|(a, d)| (a.label.clone(), d));
        // 100 bytes past the end of `a`.
        let n = m.neighbours(a.0 + 116);
        assert_eq!(lbl(n.below), Some(("a".into(), 100)));
        assert_eq!(lbl(n.above), Some(("b".into(), b.0 - (a.0 + 116))));
        // Past the last allocation: nothing above.
        let n = m.neighbours(b.0 + 64 + 8);
        assert_eq!(lbl(n.below), Some(("b".into(), 8)));
        assert!(n.above.is_none());
        // Below the arena: nothing below; the first allocation is above.
        let n = m.neighbours(GLOBAL_BASE - 10);
        assert!(n.below.is_none());
        assert_eq!(lbl(n.above), Some(("a".into(), a.0 - GLOBAL_BASE + 10)));
    }

    /// A fault report names a module variable only for an address in or right next to it,
    /// and the program's buffer otherwise, even when the variable is closer.
    #[test]
    fn reports_prefer_buffers_to_module_variables() {
        let mut m = DeviceMemory::new();
        let s = m.alloc(10, Some("$str$1")).unwrap();
        m.set_module_variable(s, false);
        let a = m.alloc(400, Some("a")).unwrap();
        assert_eq!(a.0 - s.0, 256, "the layout this test assumes");
        let c = m.alloc(64, Some("table")).unwrap();
        m.set_module_variable(c, true);
        let name = |addr| {
            m.nearest_for_report(addr)
                .map(|(x, off)| (x.report_name(), off))
        };
        // Inside the string, and 2 bytes past its end (closer to it than to `a`).
        assert_eq!(
            name(s.0 + 4),
            Some(("module variable '$str$1' (const string)".into(), 4))
        );
        assert_eq!(
            name(s.0 + 12),
            Some(("module variable '$str$1' (const string)".into(), 12))
        );
        // 100 bytes past the string (more than its size), 146 before `a`: `a`, although
        // the string is closer.
        assert_eq!(name(s.0 + 110), Some(("'a'".into(), -146)));
        assert_eq!(
            m.nearest(s.0 + 110).map(|(x, _)| x.label.as_str()),
            Some("$str$1")
        );
        // A __constant__ variable.
        assert_eq!(
            name(c.0).map(|(n, _)| n),
            Some("module variable 'table' (__constant__)".into())
        );
    }

    #[test]
    fn checked_placement_keeps_red_zones_and_a_quarantine() {
        let mut m = DeviceMemory::new();
        m.set_checked(true);
        let a = m.alloc(4096, Some("a")).unwrap();
        let b = m.alloc(4096, Some("b")).unwrap();
        // One element past the end of `a` and one before the start of `b` are in no buffer.
        assert!(m.in_allocation(a.0 + 4092, 4));
        assert!(!m.in_allocation(a.0 + 4096, 4), "past the end of a");
        assert!(!m.in_allocation(b.0 - 4, 4), "before the start of b");
        assert!(b.0 - (a.0 + 4096) >= RED_ZONE);
        assert!(
            a.0 - GLOBAL_BASE >= RED_ZONE,
            "a red zone before the first buffer too"
        );
        let (near, off) = m.nearest(a.0 + 4096).unwrap();
        assert_eq!((near.label.as_str(), off), ("a", 4096));
        // Freed: poisoned, named, never reused while quarantined; a second free says so.
        m.free(a).unwrap();
        assert_eq!(
            m.freed_at(a.0 + 8).map(|(x, o)| (x.label.as_str(), o)),
            Some(("a", 8))
        );
        assert!(!m.in_allocation(a.0, 4));
        let c = m.alloc(4096, Some("c")).unwrap();
        assert_ne!(c, a, "a quarantined range is not handed out again");
        assert_eq!(
            m.free(a),
            Err(BadFree::Double {
                label: "a".into(),
                size: 4096
            })
        );
        assert_eq!(
            m.free(b.offset(4)),
            Err(BadFree::Interior {
                label: "b".into(),
                size: 4096,
                offset: 4
            })
        );
        assert_eq!(m.free(DevicePtr(1)), Err(BadFree::Unknown));
    }

    #[test]
    fn plain_placement_packs_buffers() {
        let mut m = DeviceMemory::new();
        let a = m.alloc(4096, None).unwrap();
        let b = m.alloc(4096, None).unwrap();
        assert_eq!(b.0, a.0 + 4096, "no red zone without memcheck");
        m.free(a).unwrap();
        assert_eq!(
            m.free(a),
            Err(BadFree::Double {
                label: "alloc#1".into(),
                size: 4096
            }),
            "a recent free is remembered without memcheck"
        );
        assert_eq!(
            m.freed_at(a.0 + 8).map(|(x, o)| (x.label.as_str(), o)),
            Some(("alloc#1", 8)),
            "an address in a recently freed buffer names it"
        );
        // A new allocation in the freed bytes: they are live memory again, not freed.
        let c = m.alloc(4096, None).unwrap();
        assert_eq!(c, a, "first fit takes the freed place");
        assert_eq!(m.freed_at(a.0 + 8), None);
        m.free(c).unwrap();
        m.free(b).unwrap();
        assert_eq!(
            m.free(a).map_err(|e| matches!(e, BadFree::Double { .. })),
            Err(true)
        );
    }

    #[test]
    fn more_than_the_host_can_back_is_a_clear_error() {
        let Some(avail) = available_memory() else {
            eprintln!("skipped: the host's available memory is unknown");
            return;
        };
        let mut m = DeviceMemory::new();
        let too_big = (avail + (1 << 30)).min(device_memory_limit() - ALLOC_ALIGN);
        let err = m.alloc(too_big, Some("huge")).unwrap_err();
        assert!(err.starts_with("out of device memory"), "{err}");
        // The arena still works afterwards.
        let p = m.alloc(4096, None).unwrap();
        m.write(p, &[1; 4096]).unwrap();
    }

    /// A freed range is not memory the host backs (its pages went back to the host): an
    /// allocation that reuses it is checked against the host's available memory in full, as
    /// `cuMemGetInfo`'s free bytes say, not only for its bytes above the high-water mark.
    #[test]
    fn a_reused_range_counts_against_the_hosts_memory() {
        let Some(avail) = available_memory() else {
            eprintln!("skipped: the host's available memory is unknown");
            return;
        };
        let too_big = avail + (1 << 30);
        if too_big > device_memory_limit() - ALLOC_ALIGN {
            eprintln!("skipped: the host's available memory is near the device memory");
            return;
        }
        let mut m = DeviceMemory::new();
        // Never touched: the host backs none of it.
        let a = m.alloc(avail / 4 * 3, Some("a")).unwrap();
        m.free(a).unwrap();
        let err = m.alloc(too_big, Some("huge")).unwrap_err();
        assert!(err.contains("the host can back only"), "{err}");
    }

    #[test]
    fn small_allocations_share_one_reading_of_the_hosts_memory() {
        if available_memory().is_none() {
            eprintln!("skipped: the host's available memory is unknown");
            return;
        }
        let mut m = DeviceMemory::new();
        m.alloc(4096, None).unwrap();
        let first = m.avail_seen.expect("read at the first allocation");
        assert_eq!(first.1, 0, "read before the arena grew");
        for _ in 0..1000 {
            m.alloc(64, None).unwrap();
        }
        assert_eq!(m.avail_seen, Some(first), "1000 globals, one reading");
        // Growing by more than the slack reads again.
        m.alloc(AVAILABLE_SLACK, None).unwrap();
        let again = m.avail_seen.expect("read again");
        assert!(again.1 > first.1, "{again:?} after {first:?}");
    }

    #[test]
    fn past_the_device_memory_is_a_clear_error() {
        let mut m = DeviceMemory::new();
        let err = m.alloc(device_memory_limit() + 1, None).unwrap_err();
        assert!(err.starts_with("out of device memory"), "{err}");
        assert!(m.alloc(u64::MAX - 10, None).is_err());
    }

    #[test]
    fn identity_mapping_makes_device_addresses_host_addresses() {
        // One per process: other tests never ask for one.
        let mut m = match DeviceMemory::with_identity_mapping() {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        assert!(m.is_identity());
        assert_eq!(m.base() as u64, GLOBAL_BASE);
        let p = m.alloc(16, None).unwrap();
        m.write(p, &42u32.to_le_bytes()).unwrap();
        // SAFETY: p is a live allocation of the identity-mapped arena.
        let v = unsafe { (p.0 as *const u32).read() };
        assert_eq!(v, 42);
        assert!(DeviceMemory::with_identity_mapping().is_err());
    }
}
