//! 128-bit atomics (PTX ISA §9.7.13.5 `atom`, PTX ISA 8.3, `sm_90`):
//! `atom{.sem}{.scope}{.space}.cas.b128 d, [a], b, c` and `atom….exch.b128 d, [a], b`, with
//! `.b128` register operands, each a (low, high) pair of 64-bit halves (`lower::decode`).
//!
//! # Atomicity
//! ptxjit's other atomics on global memory are the host's own atomic instructions
//! (`semantics::atomic_rmw`/`atomic_cas`, and the JIT's inline `atomic_rmw`/`atomic_cas`), so a
//! 128-bit atomic has to be one as well to be atomic with respect to them on the same bytes:
//! it is the host's 16-byte compare-and-swap (`cmpxchg16b` on x86-64, `casp`/LL-SC pairs on
//! AArch64) through `portable_atomic::AtomicU128`, sequentially consistent like the others.
//! A lock-based fallback would not exclude the narrower lock-free atomics, so on a host
//! without a 16-byte compare-and-swap (checked at run time, [`host_has_cas16`]) the
//! instruction faults as unsupported instead of being non-atomic. Shared memory takes the same
//! path (the warps of a CTA run on one host thread, so any order would do there).
//!
//! # Operands
//! The IR op [`Op::Atom128`] is run as a warp operation (`runtime::warp::exec`, one routine
//! for both engines): args (address, b low, b high[, c low, c high]) → (old low, old high),
//! the active lanes one after another, lowest first. The address must be 16-byte aligned
//! (a misaligned one faults as the other atomics' do); a faulting lane's result is 0.

use super::env::{self, CtaEnv, FaultKind};
use super::initcheck::InitAccess;
use super::race::AccessKind;
use super::warp::{lanes, WarpDesc};
use crate::ir::{Op, Space};
use portable_atomic::{AtomicU128, Ordering::SeqCst};

/// Bytes of a 128-bit atomic's operand, and its alignment.
pub const SIZE: u32 = 16;

/// Whether this host has a lock-free 16-byte compare-and-swap, which 128-bit atomics need.
pub fn host_has_cas16() -> bool {
    AtomicU128::is_lock_free()
}

/// Atomic 128-bit compare-and-swap: if `*p == cmp` store `new`; returns the old value.
///
/// # Safety
/// `p` must be valid for reads and writes of 16 bytes and 16-byte aligned, and
/// [`host_has_cas16`] must hold (else the access is not atomic with respect to narrower
/// atomics on the same bytes).
pub unsafe fn cas(p: *mut u8, cmp: u128, new: u128) -> u128 {
    // SAFETY: the caller's promise (valid, aligned, only accessed atomically meanwhile).
    let a = unsafe { AtomicU128::from_ptr(p as *mut u128) };
    match a.compare_exchange(cmp, new, SeqCst, SeqCst) {
        Ok(v) | Err(v) => v,
    }
}

/// Atomic 128-bit exchange: store `new`; returns the old value.
///
/// # Safety
/// As [`cas`].
pub unsafe fn exch(p: *mut u8, new: u128) -> u128 {
    // SAFETY: the caller's promise.
    let a = unsafe { AtomicU128::from_ptr(p as *mut u128) };
    a.swap(new, SeqCst)
}

/// Execute [`Op::Atom128`] (`d.op`) for the lanes of `mask` on warp state `s`.
pub(crate) fn exec(
    d: &WarpDesc,
    cas_op: bool,
    space: Space,
    mask: u32,
    s: &mut [u8],
    env: &CtaEnv,
) {
    let pair = |k: usize, l: u32, s: &[u8]| -> u128 {
        u128::from(d.arg(s, k, l)) | u128::from(d.arg(s, k + 1, l)) << 64
    };
    let lock_free = host_has_cas16();
    for l in lanes(mask) {
        let addr = d.arg(s, 0, l);
        let b = pair(1, l, s);
        let old = match env::translate(env, space, addr, SIZE, SIZE, l) {
            Ok(_) if !lock_free => {
                let detail = "atom .b128 needs a 16-byte compare-and-swap instruction, which \
                              this host lacks (a lock would not be atomic with respect to the \
                              other atomics)"
                    .to_string();
                env.fault_detail(l, d.inst, FaultKind::Unsupported, detail);
                0
            }
            // Host pointers of device memory are aligned as the device addresses are (the
            // arena and shared-memory bases are); check anyway, the host atomic needs it.
            Ok(p) if !(p as usize).is_multiple_of(SIZE as usize) => {
                env.fault(l, d.inst, FaultKind::Misaligned, space, addr, SIZE, true);
                0
            }
            Ok(p) => {
                let access = if cas_op {
                    InitAccess::Atomic
                } else {
                    InitAccess::Exchange
                };
                env::init_access(env, space, addr, SIZE, l, d.inst, access);
                env.race_access(l, d.inst, p, SIZE, AccessKind::Atomic);
                // SAFETY: translate checked 16 bytes at `p` inside the space; `p` is
                // 16-byte aligned (above) and the host's 16-byte CAS is lock-free.
                unsafe {
                    if cas_op {
                        cas(p, b, pair(3, l, s))
                    } else {
                        exch(p, b)
                    }
                }
            }
            Err((kind, sp)) => {
                env.fault(l, d.inst, kind, sp, addr, SIZE, true);
                0
            }
        };
        d.set(s, 0, l, old as u64);
        d.set(s, 1, l, (old >> 64) as u64);
    }
    debug_assert!(matches!(d.op, Op::Atom128 { .. }));
}

/// Execute [`Op::Strong128`] (`d.op`) for the lanes of `mask` on warp state `s`: a 16-byte
/// load (args (address) → (low, high)) or store (args (address, low, high)) of each lane as
/// one access of the host's 16-byte atomics, so no other thread sees half of it. Faults as
/// [`exec`] does (bounds, 16-byte alignment, a host without 16-byte atomics); a faulting
/// lane's load result is 0.
pub(crate) fn exec_strong(
    d: &WarpDesc,
    store: bool,
    space: Space,
    mask: u32,
    s: &mut [u8],
    env: &CtaEnv,
) {
    let lock_free = host_has_cas16();
    let (init, race) = if store {
        (InitAccess::Write, AccessKind::Write)
    } else {
        (InitAccess::Read, AccessKind::Read)
    };
    for l in lanes(mask) {
        let addr = d.arg(s, 0, l);
        let loaded = match env::translate(env, space, addr, SIZE, SIZE, l) {
            Ok(_) if !lock_free => {
                let detail = "a strong 16-byte access needs the host's 16-byte atomics, which \
                              this host lacks (element by element it could tear)"
                    .to_string();
                env.fault_detail(l, d.inst, FaultKind::Unsupported, detail);
                0
            }
            Ok(p) if !(p as usize).is_multiple_of(SIZE as usize) => {
                env.fault(l, d.inst, FaultKind::Misaligned, space, addr, SIZE, store);
                0
            }
            Ok(p) => {
                env::init_access(env, space, addr, SIZE, l, d.inst, init);
                env.race_access(l, d.inst, p, SIZE, race);
                // SAFETY: translate checked 16 bytes at `p` inside the space; `p` is 16-byte
                // aligned (above) and the host's 16-byte atomics are lock-free.
                let a = unsafe { AtomicU128::from_ptr(p as *mut u128) };
                if store {
                    let v = u128::from(d.arg(s, 1, l)) | u128::from(d.arg(s, 2, l)) << 64;
                    a.store(v, SeqCst);
                    0
                } else {
                    a.load(SeqCst)
                }
            }
            Err((kind, sp)) => {
                env.fault(l, d.inst, kind, sp, addr, SIZE, store);
                0
            }
        };
        if !store {
            d.set(s, 0, l, loaded as u64);
            d.set(s, 1, l, (loaded >> 64) as u64);
        }
    }
    debug_assert!(matches!(d.op, Op::Strong128 { .. }));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ISA's semantics of `atom.cas.b128` / `atom.exch.b128` on one 16-byte word, and the
    /// atomicity against 64-bit host atomics on its halves from other threads.
    #[test]
    fn cas_and_exch_on_host_memory() {
        if !host_has_cas16() {
            return;
        }
        #[repr(align(16))]
        struct W([u8; 16]);
        let mut w = W(0x0102_0304_0506_0708_1112_1314_1516_1718u128.to_le_bytes());
        let p = w.0.as_mut_ptr();
        // SAFETY: `w` is 16 bytes, 16-byte aligned, used by this thread only.
        unsafe {
            // A failing compare returns the old value and stores nothing.
            let old = cas(p, 5, 9);
            assert_eq!(old, 0x0102_0304_0506_0708_1112_1314_1516_1718);
            assert_eq!(cas(p, old, u128::MAX - 1), old);
            assert_eq!(exch(p, 7 << 64 | 3), u128::MAX - 1);
        }
        assert_eq!(u128::from_le_bytes(w.0), 7 << 64 | 3);
    }

    /// Threads that add 1 to the low half with 64-bit atomics while others swap the whole
    /// word with 128-bit CAS loops (high half + 1) lose no update of either.
    #[test]
    fn atomic_with_respect_to_64_bit_atomics() {
        use std::sync::atomic::AtomicU64;
        if !host_has_cas16() {
            return;
        }
        #[repr(align(16))]
        struct W(std::cell::UnsafeCell<[u64; 2]>);
        // SAFETY: every access below is atomic.
        unsafe impl Sync for W {}
        let w = W(std::cell::UnsafeCell::new([0, 0]));
        let p = w.0.get() as usize;
        const N: u64 = 20_000;
        std::thread::scope(|sc| {
            for _ in 0..2 {
                sc.spawn(move || {
                    // SAFETY: `p` is 16-byte aligned and outlives the scope.
                    let lo = unsafe { AtomicU64::from_ptr(p as *mut u64) };
                    for _ in 0..N {
                        lo.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                });
                sc.spawn(move || {
                    let mut old = 0u128;
                    for _ in 0..N {
                        loop {
                            let new = old.wrapping_add(1 << 64);
                            // SAFETY: as above; the host CAS is lock-free.
                            let seen = unsafe { cas(p as *mut u8, old, new) };
                            if seen == old {
                                break;
                            }
                            old = seen;
                        }
                        old = old.wrapping_add(1 << 64);
                    }
                });
            }
        });
        // SAFETY: the threads are done.
        let [lo, hi] = unsafe { *w.0.get() };
        assert_eq!((lo, hi), (2 * N, 2 * N));
    }
}
