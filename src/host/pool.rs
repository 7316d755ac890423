//! Memory pools: stream-ordered allocation (`cuMemAllocAsync`, `cuMemAllocFromPoolAsync`,
//! `cuMemFreeAsync`; CUDA Driver API "Stream Ordered Memory Allocator").
//!
//! A [`MemPool`] hands out allocations of its [`Context`]'s device memory and keeps CUDA's
//! accounting of them: used bytes now and at their highest, the release threshold. Streams run
//! every operation when it is enqueued, so an asynchronous allocation or free takes effect at
//! once, and a freed allocation goes straight back to the device: a pool keeps no memory in
//! reserve, whatever its release threshold says, and its reserved bytes are its used bytes
//! ([`MemPool::trim_to`] has nothing to release). Each allocation is a device allocation of its
//! own, so kernels are checked against its exact bounds as for any other.

use super::context::{Context, Error};
use crate::runtime::memory::DevicePtr;
use std::collections::HashMap;

/// One memory pool's allocations and attributes.
#[derive(Debug, Default)]
pub struct MemPool {
    /// Live allocations from this pool: address → bytes requested.
    live: HashMap<u64, u64>,
    used: u64,
    used_high: u64,
    /// `CU_MEMPOOL_ATTR_RELEASE_THRESHOLD` in bytes (kept and reported; nothing is retained).
    pub release_threshold: u64,
    /// The `CU_MEMPOOL_ATTR_REUSE_*` flags (kept and reported; they change nothing here,
    /// where freed memory is never reused behind the program's back).
    pub reuse_follow_event_dependencies: bool,
    pub reuse_allow_opportunistic: bool,
    pub reuse_allow_internal_dependencies: bool,
}

impl MemPool {
    /// A pool with CUDA's defaults: release threshold 0, the reuse flags set.
    pub fn new() -> MemPool {
        MemPool {
            reuse_follow_event_dependencies: true,
            reuse_allow_opportunistic: true,
            reuse_allow_internal_dependencies: true,
            ..MemPool::default()
        }
    }

    /// Allocate `bytes` of `ctx`'s device memory from this pool. Errors as
    /// [`Context::alloc`] ([`Error::Memory`]: zero bytes, out of memory).
    pub fn alloc(
        &mut self,
        ctx: &mut Context,
        bytes: u64,
        label: &str,
    ) -> Result<DevicePtr, Error> {
        let p = ctx.alloc(bytes, Some(label))?;
        self.live.insert(p.0, bytes);
        self.used += bytes;
        self.used_high = self.used_high.max(self.used);
        Ok(p)
    }

    /// Whether `p` is the address of a live allocation from this pool.
    pub fn owns(&self, p: DevicePtr) -> bool {
        self.live.contains_key(&p.0)
    }

    /// Free allocation `p` of this pool. Errors: [`Error::Memory`] when `p` is not a live
    /// allocation of this pool.
    pub fn free(&mut self, ctx: &mut Context, p: DevicePtr) -> Result<(), Error> {
        let Some(bytes) = self.live.remove(&p.0) else {
            return Err(Error::Memory(format!(
                "{:#x} is not a live allocation of this memory pool",
                p.0
            )));
        };
        self.used -= bytes;
        ctx.free(p)
    }

    /// Forget allocation `p` (freed some other way, `cuMemFree`); whether it was this pool's.
    pub fn forget(&mut self, p: DevicePtr) -> bool {
        match self.live.remove(&p.0) {
            Some(bytes) => {
                self.used -= bytes;
                true
            }
            None => false,
        }
    }

    /// `CU_MEMPOOL_ATTR_USED_MEM_CURRENT`: bytes of live allocations.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// `CU_MEMPOOL_ATTR_USED_MEM_HIGH`: the most bytes live at once since the pool was made
    /// or the mark reset.
    pub fn used_high(&self) -> u64 {
        self.used_high
    }

    /// `CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT`: the pool keeps nothing beyond what is live.
    pub fn reserved(&self) -> u64 {
        self.used
    }

    /// Reset `CU_MEMPOOL_ATTR_USED_MEM_HIGH` (and the reserved high mark, the same number) to
    /// the current use, as setting either high attribute to 0 does in CUDA.
    pub fn reset_high(&mut self) {
        self.used_high = self.used;
    }

    /// `cuMemPoolTrimTo(pool, keep)`: release reserved memory above `keep` bytes. A pool keeps
    /// no reserve here, so there is nothing to release.
    pub fn trim_to(&mut self, _keep: u64) {}

    /// The live allocations' addresses (to free them with their context).
    pub fn allocations(&self) -> impl Iterator<Item = DevicePtr> + '_ {
        self.live.keys().map(|&p| DevicePtr(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accounting_follows_allocations() {
        let mut ctx = Context::new();
        let mut pool = MemPool::new();
        let a = pool.alloc(&mut ctx, 1000, "a").unwrap();
        let b = pool.alloc(&mut ctx, 24, "b").unwrap();
        assert_eq!(
            (pool.used(), pool.used_high(), pool.reserved()),
            (1024, 1024, 1024)
        );
        pool.free(&mut ctx, a).unwrap();
        assert_eq!((pool.used(), pool.used_high()), (24, 1024));
        assert!(pool.free(&mut ctx, a).is_err(), "a double free is refused");
        pool.reset_high();
        assert_eq!(pool.used_high(), 24);
        assert!(pool.owns(b) && pool.forget(b) && !pool.owns(b));
        assert_eq!(pool.used(), 0);
        assert!(
            ctx.free(b).is_ok(),
            "forget leaves the allocation to its context"
        );
    }
}
