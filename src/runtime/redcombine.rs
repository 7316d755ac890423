//! Global reductions combined per worker thread: the pending table of integer `red`s (and
//! `atom`s whose result is dead) that the JIT's code adds into instead of performing one
//! host atomic each (`jit::combine`; docs/performance.md, "Global reductions combined per
//! worker"; docs/isa-notes.md's row on them).
//!
//! A reduction without `.acquire`/`.release`/`.acq_rel`/`.sc` is `.relaxed` (PTX ISA §8,
//! "Memory Consistency Model"): no other thread can tell when it is performed unless
//! something orders it. The table holds, per address, one pending operand of one operation
//! and width; [`flush`] performs each entry with one host atomic. It is flushed before
//! anything that could observe the difference: at the end of every call into a kernel's
//! code (a CTA, a batch of CTAs or a round ends, a fault, an abort, a yield), at fences,
//! strong accesses and atomics it does not combine (the code's own calls), and before any
//! other access of the thread through the runtime ([`super::env::translate`]) or through the
//! JIT's inline global paths that may touch a pending address (`[lo, hi)`, the pending
//! addresses' range).
//!
//! # Invariants
//! - Entries never overlap: an entry is added only after every entry whose bytes overlap
//!   the new one's (or that holds its slot) is performed ([`red_miss`]), so the pending
//!   operations of one location stay in program order and any two pending entries commute.
//! - Every entry's address passed the inline global window check of its instruction (in
//!   the arena, aligned, memcheck off), and global memory is not freed while a kernel's code
//!   runs, so [`flush`] translates it without a check.

use super::env::CtaEnv;
use super::memory::GLOBAL_BASE;
use std::cell::UnsafeCell;

/// Slots of the direct-mapped table (a power of two): slot `(addr >> 2) % SLOTS`, at byte
/// `(addr % (4 * SLOTS)) * 4` of [`RedTable::slots`] (16-byte entries).
pub const SLOTS: usize = 1024;

/// How many slot indices [`RedTable::order`] holds before a miss flushes the whole table.
pub const ORDER_CAP: usize = 4 * SLOTS;

/// An entry's key: `addr | code << KEY_SHIFT` ([`op_code`]; device addresses are below
/// 2^KEY_SHIFT); 0 is an empty slot.
pub const KEY_SHIFT: u32 = 59;

/// The address bits of a key.
const ADDR_MASK: u64 = (1 << KEY_SHIFT) - 1;

// Every global device address fits below the code's bits.
const _: () = assert!(GLOBAL_BASE + super::memory::MAX_ARENA < 1 << KEY_SHIFT);

/// Offsets the JIT reads (`#[repr(C)]` fields).
pub const OFF_LO: i32 = 0;
/// See [`OFF_LO`].
pub const OFF_HI: i32 = 8;
/// See [`OFF_LO`].
pub const OFF_COUNT: i32 = 16;
/// See [`OFF_LO`].
pub const OFF_ALO: i32 = 24;
/// See [`OFF_LO`].
pub const OFF_AHI: i32 = 32;
/// Byte offset of [`RedTable::win`].
pub const OFF_WIN: i32 = std::mem::offset_of!(RedTable, win) as i32;
/// Byte offset of [`RedTable::slots`].
pub const OFF_SLOTS: i32 = std::mem::offset_of!(RedTable, slots) as i32;

/// One pending reduction: its key and the operand combined so far (the low 4 bytes for a
/// 32-bit one).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct RedEntry {
    /// `addr | code << KEY_SHIFT`, 0 when the slot is empty.
    pub key: u64,
    /// The combined operand.
    pub val: u64,
}

/// A worker thread's pending reductions (see the module's comment).
#[repr(C)]
pub struct RedTable {
    /// The lowest pending device address (`u64::MAX` when none).
    pub lo: u64,
    /// One past the highest pending byte (0 when none).
    pub hi: u64,
    /// Entries of [`RedTable::order`] in use (0: nothing pending).
    pub count: u64,
    /// The hull `[alo, ahi)` of the global ranges the code checked once for many accesses
    /// in this call (`jit::affine::window_ok`: a warp's or a CTA's accesses, checked against
    /// the pending range then): a reduction inside it is performed at once, never made
    /// pending, so those accesses, which test nothing more, cannot miss one. Reset when a
    /// call ends ([`end_call`]), kept by the flushes within one.
    pub alo: u64,
    /// See [`RedTable::alo`].
    pub ahi: u64,
    /// Per key code ([`op_code`], index 0 unused): the dense window `[lo, lo + size)`
    /// every one of whose aligned addresses has its slot keyed for that code ([`make_dense`]),
    /// as `lo` and the mask `!(size - 1) | (bytes - 1)` (`size` a power of two at most
    /// `4 * SLOTS`, `bytes` the operand's), so a group of lanes whose addresses `a` all give
    /// `(a - lo) & mask == 0` (in the window, aligned) adds into its slots without comparing
    /// keys or checking the window. A code without a window has lo 0 and mask `u64::MAX`:
    /// the JIT's tests also require lo ≠ 0 (a window lies in the arena, above
    /// `GLOBAL_BASE`), so no address passes, the null address included.
    pub win: [[u64; 2]; 17],
    /// The code whose window is set in [`RedTable::win`] (0: none).
    pub dcode: u64,
    /// Misses ([`red_miss`]) since the last flush: a window is tried at every power of two.
    pub misses: u64,
    /// The slots, indexed by `(addr >> 2) % SLOTS`.
    pub slots: [RedEntry; SLOTS],
    /// The slots filled, in order (a slot emptied and filled again is listed again; a flush
    /// skips empty ones).
    pub order: [u16; ORDER_CAP],
}

/// The operations a table entry holds, in code order ([`op_code`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedOp {
    /// `.add` (wrapping, of any signedness).
    Add,
    /// `.and` (`.b32`/`.b64`).
    And,
    /// `.or` (`.b32`/`.b64`).
    Or,
    /// `.xor` (`.b32`/`.b64`).
    Xor,
    /// `.min` of `.u32`/`.u64`.
    UMin,
    /// `.max` of `.u32`/`.u64`.
    UMax,
    /// `.min` of `.s32`/`.s64`.
    SMin,
    /// `.max` of `.s32`/`.s64`.
    SMax,
}

const OPS: [RedOp; 8] = [
    RedOp::Add,
    RedOp::And,
    RedOp::Or,
    RedOp::Xor,
    RedOp::UMin,
    RedOp::UMax,
    RedOp::SMin,
    RedOp::SMax,
];

impl RedOp {
    /// The `atom` operation this is (`runtime::semantics::atomic_rmw` performs it).
    pub fn atom_op(self) -> crate::ir::AtomOp {
        use crate::ir::{AtomOp, Sign};
        match self {
            RedOp::Add => AtomOp::Add,
            RedOp::And => AtomOp::And,
            RedOp::Or => AtomOp::Or,
            RedOp::Xor => AtomOp::Xor,
            RedOp::UMin => AtomOp::Min(Sign::Unsigned),
            RedOp::UMax => AtomOp::Max(Sign::Unsigned),
            RedOp::SMin => AtomOp::Min(Sign::Signed),
            RedOp::SMax => AtomOp::Max(Sign::Signed),
        }
    }
}

/// The key code of `op` on `bytes`-byte operands (4 or 8): 1 to 16.
pub fn op_code(op: RedOp, bytes: u32) -> u64 {
    let k = OPS.iter().position(|&o| o == op).unwrap_or(0) as u64;
    1 + 2 * k + u64::from(bytes == 8)
}

/// The operation and operand bytes of key code `code`.
fn of_code(code: u64) -> (RedOp, u32) {
    let k = ((code - 1) / 2) as usize % OPS.len();
    (OPS[k], if (code - 1) % 2 == 1 { 8 } else { 4 })
}

/// The operand that leaves a location as it is under the operation of key code `code` (its
/// low 4 bytes for a 32-bit one): the value of a slot keyed for a dense window that no lane
/// has added to, skipped by the flush.
fn identity(code: u64) -> u64 {
    let (op, bytes) = of_code(code);
    let wide = bytes == 8;
    match op {
        RedOp::Add | RedOp::Or | RedOp::Xor | RedOp::UMax => 0,
        RedOp::And | RedOp::UMin => u64::MAX,
        RedOp::SMin if wide => i64::MAX as u64,
        RedOp::SMin => i32::MAX as u64,
        RedOp::SMax if wide => i64::MIN as u64,
        RedOp::SMax => i32::MIN as u32 as u64,
    }
}

/// Whether `val` is `identity(code)` in the operand's bytes.
fn is_identity(code: u64, val: u64) -> bool {
    let (_, bytes) = of_code(code);
    let m = if bytes == 8 {
        u64::MAX
    } else {
        u64::from(u32::MAX)
    };
    (val ^ identity(code)) & m == 0
}

impl RedTable {
    fn reset_range(&mut self) {
        self.lo = u64::MAX;
        self.hi = 0;
        self.count = 0;
        self.misses = 0;
        self.clear_dense();
    }

    /// Forget the dense window (its slots stay ordinary entries).
    fn clear_dense(&mut self) {
        let c = self.dcode as usize;
        if c != 0 {
            self.win[c] = [0, u64::MAX];
            self.dcode = 0;
        }
    }
}

struct Holder(UnsafeCell<Box<RedTable>>);

thread_local! {
    static TABLE: Holder = {
        let mut t: Box<RedTable> = Box::new(RedTable {
            lo: 0,
            hi: 0,
            count: 0,
            alo: u64::MAX,
            ahi: 0,
            win: [[0, u64::MAX]; 17],
            dcode: 0,
            misses: 0,
            slots: [RedEntry::default(); SLOTS],
            order: [0; ORDER_CAP],
        });
        t.reset_range();
        Holder(UnsafeCell::new(t))
    };
}

/// The calling thread's table (its address is stable for the thread's life). Only code
/// running on this thread may use it.
pub fn table() -> *mut RedTable {
    TABLE.with(|h| {
        // SAFETY: the box lives as long as the thread; only a pointer is taken.
        unsafe { &mut **h.0.get() as *mut RedTable }
    })
}

/// Perform entry `e` on global memory at host base `base`.
///
/// # Safety
/// `e`'s address is in the arena whose offset 0 is `base` (the module's invariants).
unsafe fn apply(base: *mut u8, e: RedEntry) {
    let addr = e.key & ADDR_MASK;
    let (op, bytes) = of_code(e.key >> KEY_SHIFT);
    // SAFETY: the caller's contract; the address is aligned to its operand (checked when
    // the entry was made).
    let p = unsafe { base.add((addr - GLOBAL_BASE) as usize) };
    let ty = if bytes == 4 {
        crate::ir::Type::I32
    } else {
        crate::ir::Type::I64
    };
    // SAFETY: as above; `atomic_rmw` is the one definition of `atom`'s operations.
    unsafe { super::semantics::atomic_rmw(p, op.atom_op(), ty, e.val, true) };
}

/// Perform the entry of slot `s` (if any) and empty it; an operand that changes nothing
/// ([`identity`]: a dense window's slot no lane added to, whose address need not be in the
/// arena) is dropped. Emptying a slot of the dense window ends the window.
///
/// # Safety
/// As [`apply`].
unsafe fn evict(t: &mut RedTable, base: *mut u8, s: usize) {
    let e = t.slots[s];
    if e.key != 0 {
        t.slots[s].key = 0;
        let code = e.key >> KEY_SHIFT;
        if t.dcode != 0 {
            let [lo, mask] = t.win[t.dcode as usize];
            if (e.key & ADDR_MASK).wrapping_sub(lo) & mask == 0 {
                t.clear_dense();
            }
        }
        if !is_identity(code, e.val) {
            // SAFETY: the caller's.
            unsafe { apply(base, e) };
        }
    }
}

/// Try to make the pending range a dense window (see [`RedTable::win`]): when every pending
/// entry has key code `code`, the range `[lo, hi)` rounded up to a power of two `size` from
/// `lo` fits in `4 * SLOTS` bytes (so each aligned address in it has a slot of its own),
/// lies in `env`'s accessible arena, misses the checked hull and memcheck is off, every
/// empty slot of `[lo, lo + size)` is keyed with the operation's identity as its operand and
/// the pending range becomes that window. A group of lanes inside the window (aligned: the
/// mask keeps the operand's low address bits) therefore passes the instruction's own window
/// check, which the JIT's code skips for it.
fn make_dense(t: &mut RedTable, env: &CtaEnv, code: u64) {
    let (_, bytes) = of_code(code);
    let step = u64::from(bytes);
    if t.count == 0 || !t.lo.is_multiple_of(step) || env.memcheck != 0 {
        return;
    }
    let Some(size) = (t.hi - t.lo).checked_next_power_of_two() else {
        return;
    };
    let lo = t.lo;
    let end = lo + size;
    // The whole window in the accessible arena: a group in it skips the instruction's
    // window check (`global_top` does not shrink while the code runs).
    if size > 4 * SLOTS as u64
        || lo < GLOBAL_BASE
        || end - GLOBAL_BASE > env.global_top
        || t.count + size / step > ORDER_CAP as u64
        || t.alo < end && lo < t.ahi
    {
        return;
    }
    let n = t.count as usize;
    if t.order[..n].iter().any(|&s| {
        let k = t.slots[s as usize].key;
        k != 0 && k >> KEY_SHIFT != code
    }) {
        return;
    }
    t.clear_dense();
    let mut a = lo;
    while a < end {
        let s = (a >> 2) as usize % SLOTS;
        if t.slots[s].key == 0 {
            t.slots[s] = RedEntry {
                key: a | code << KEY_SHIFT,
                val: identity(code),
            };
            t.order[t.count as usize] = s as u16;
            t.count += 1;
        }
        a += step;
    }
    t.hi = t.hi.max(end);
    t.win[code as usize] = [lo, !(size - 1) | (step - 1)];
    t.dcode = code;
}

/// Perform every pending entry of `t` (in the order they were made) and empty it.
///
/// # Safety
/// `t` is the calling thread's table and `base` the host address of the arena its entries
/// were made in (`CtaEnv::global_base` of the launch).
pub unsafe fn flush_table(t: &mut RedTable, base: *mut u8) {
    for k in 0..(t.count as usize).min(ORDER_CAP) {
        let s = t.order[k] as usize;
        // SAFETY: the caller's.
        unsafe { evict(t, base, s) };
    }
    t.reset_range();
}

/// Flush `env`'s table when anything is pending.
pub fn flush(env: &CtaEnv) {
    let t = env.red_table;
    if t.is_null() {
        return;
    }
    // SAFETY: `env.red_table` is this thread's table (set where the environment is made,
    // on the thread that runs it) and its entries were made with this launch's arena.
    unsafe {
        if (*t).count != 0 {
            flush_table(&mut *t, env.global_base);
        }
    }
}

/// The end of a call into a kernel's code: flush `env`'s table and forget the ranges the
/// call's code checked ([`RedTable::alo`]).
pub fn end_call(env: &CtaEnv) {
    flush(env);
    let t = env.red_table;
    if !t.is_null() {
        // SAFETY: as in [`flush`].
        unsafe {
            (*t).alo = u64::MAX;
            (*t).ahi = 0;
        }
    }
}

/// Flush `env`'s table when `size` bytes at global address `addr` may touch a pending
/// entry (before an access through the runtime, [`super::env::translate`]).
#[inline]
pub fn flush_overlap(env: &CtaEnv, addr: u64, size: u64) {
    let t = env.red_table;
    if t.is_null() {
        return;
    }
    // SAFETY: as in [`flush`].
    unsafe {
        if (*t).count != 0 && addr < (*t).hi && addr.saturating_add(size) > (*t).lo {
            flush_table(&mut *t, env.global_base);
        }
    }
}

/// Called by the JIT's code where something must see every pending reduction (a fence, a
/// strong access, an atomic it does not combine) and the table is not empty.
///
/// # Safety
/// `env` is the running warp's environment.
pub unsafe extern "C" fn red_flush(env: *const CtaEnv) {
    // SAFETY: the JIT passes its own environment.
    flush(unsafe { &*env });
}

/// The JIT's slow path of a combined reduction (its slot holds another key): perform the
/// entries the new one would overlap (its slot's, and a neighbour's 8-byte entry or the
/// entry in the upper half of a new 8-byte one), then make the entry `key` with operand
/// `val`, or perform it at once when it lies in the checked hull ([`RedTable::alo`]).
///
/// # Safety
/// `env` is the running warp's environment; `key`'s address passed the inline global
/// window check of its instruction.
pub unsafe extern "C" fn red_miss(env: *const CtaEnv, key: u64, val: u64) {
    // SAFETY: the JIT passes its own environment, whose table is this thread's.
    let (env, t) = unsafe { (&*env, &mut *(*env).red_table) };
    let base = env.global_base;
    if t.count as usize >= ORDER_CAP {
        // SAFETY: this thread's table, this launch's arena.
        unsafe { flush_table(t, base) };
    }
    let addr = key & ADDR_MASK;
    let (_, bytes) = of_code(key >> KEY_SHIFT);
    let s = (addr >> 2) as usize % SLOTS;
    // SAFETY (the evictions): as above.
    unsafe { evict(t, base, s) };
    for n in [(s + SLOTS - 1) % SLOTS, (s + 1) % SLOTS] {
        let e = t.slots[n];
        if e.key == 0 {
            continue;
        }
        let ea = e.key & ADDR_MASK;
        let (_, eb) = of_code(e.key >> KEY_SHIFT);
        if ea < addr + u64::from(bytes) && addr < ea + u64::from(eb) {
            // SAFETY: as above.
            unsafe { evict(t, base, n) };
        }
    }
    if t.alo < addr + u64::from(bytes) && addr < t.ahi {
        // Inside a range the code checked once for many accesses: performed now.
        // SAFETY: as above.
        unsafe { apply(base, RedEntry { key, val }) };
        return;
    }
    t.slots[s] = RedEntry { key, val };
    t.order[t.count as usize] = s as u16;
    t.count += 1;
    t.lo = t.lo.min(addr);
    t.hi = t.hi.max(addr + u64::from(bytes));
    t.misses += 1;
    if t.misses >= DENSE_AFTER && t.misses.is_power_of_two() {
        make_dense(t, env, key >> KEY_SHIFT);
    }
}

/// The number of misses since a flush after which (and at every power of two after it) a
/// dense window is tried ([`make_dense`]).
pub const DENSE_AFTER: u64 = 16;

#[cfg(test)]
mod tests {
    use super::*;

    /// `a op b` on the low `bytes` (4 or 8) bytes of each, by host integer arithmetic, zero
    /// extended: the reference for the identities.
    fn host_op(op: RedOp, bytes: u32, a: u64, b: u64) -> u64 {
        let mask = u64::MAX >> (64 - 8 * bytes);
        let (a, b) = (a & mask, b & mask);
        // The signed value of the low `bytes` bytes.
        let signed = |v: u64| ((v << (64 - 8 * bytes)) as i64) >> (64 - 8 * bytes);
        let r = match op {
            RedOp::Add => a.wrapping_add(b),
            RedOp::And => a & b,
            RedOp::Or => a | b,
            RedOp::Xor => a ^ b,
            RedOp::UMin => a.min(b),
            RedOp::UMax => a.max(b),
            RedOp::SMin => signed(a).min(signed(b)) as u64,
            RedOp::SMax => signed(a).max(signed(b)) as u64,
        };
        r & mask
    }

    /// Every operation's identity leaves every value as it is (host arithmetic on the
    /// operand's width), and is recognised as such.
    #[test]
    fn identities_change_nothing() {
        let samples: [u64; 6] = [
            0,
            1,
            0x7fff_ffff,
            0x8000_0000,
            0xdead_beef_0123_4567,
            u64::MAX,
        ];
        for op in OPS {
            for bytes in [4u32, 8] {
                let code = op_code(op, bytes);
                let id = identity(code);
                assert!(is_identity(code, id));
                for x in samples {
                    let mask = u64::MAX >> (64 - 8 * bytes);
                    let (got, want) = (host_op(op, bytes, x, id), x & mask);
                    assert_eq!(got, want, "{op:?} {bytes} bytes on {x:#x}");
                }
            }
        }
    }

    #[test]
    fn codes_round_trip() {
        for op in OPS {
            for bytes in [4, 8] {
                let c = op_code(op, bytes);
                assert!((1..32).contains(&c));
                assert_eq!(of_code(c), (op, bytes));
            }
        }
    }
}
