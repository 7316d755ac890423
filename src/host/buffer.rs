//! Typed device buffers: [`DeviceBuffer<T>`] owns one allocation of `len` elements of a
//! plain-old-data type and frees it when dropped.
//!
//! Ownership: a context's device memory lives in an [`Arena`] that the context and each of
//! its buffers share (`Arc<RwLock<..>>`), so a buffer can free its allocation on drop without
//! borrowing the context, and the untyped API (`Context::alloc`, `copy_htod`, …) keeps taking
//! `&mut self` as before. The lock is what keeps launches sound: a launch holds it exclusively
//! while kernel code reads and writes the arena on the worker threads, so a host copy or a
//! buffer's drop on another thread waits for the launch to end (as CUDA's legacy default
//! stream orders them), and never touches memory a kernel is using. A buffer keeps the arena
//! alive: dropping the context first is allowed, and the memory goes with the last buffer.

use super::context::{Context, Error};
use crate::runtime::memory::{DeviceMemory, DevicePtr};
use bytemuck::Pod;
use std::collections::HashSet;
use std::marker::PhantomData;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// A context's device memory and which of its allocations typed buffers own.
#[derive(Default)]
pub(crate) struct Arena {
    pub(crate) memory: DeviceMemory,
    /// Start addresses of the allocations owned by a [`DeviceBuffer`]: only the buffer's drop
    /// frees them, never [`Context::free`].
    owned: HashSet<u64>,
}

impl Arena {
    /// Free `p` for the untyped API. Errors: `p` belongs to a [`DeviceBuffer`], or is not the
    /// start of a live allocation.
    pub(crate) fn free_untyped(&mut self, p: DevicePtr) -> Result<(), Error> {
        if self.owned.contains(&p.0) {
            return Err(Error::Memory(format!(
                "free of {:#x}: the allocation belongs to a DeviceBuffer, which frees it when \
                 dropped",
                p.0
            )));
        }
        self.memory
            .free(p)
            .map_err(|e| Error::Memory(format!("free of {:#x}: {e}", p.0)))
    }
}

/// The shared handle to an [`Arena`]. Lock poisoning is ignored: every arena update is a
/// call into `DeviceMemory` that leaves it consistent, so a panic elsewhere (a kernel
/// engine's, a printf writer's) does not make the memory unusable.
#[derive(Clone, Default)]
pub(crate) struct SharedArena(Arc<RwLock<Arena>>);

impl SharedArena {
    pub(crate) fn read(&self) -> RwLockReadGuard<'_, Arena> {
        self.0.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn write(&self) -> RwLockWriteGuard<'_, Arena> {
        self.0.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether both handles name the same arena (the same context's memory).
    pub(crate) fn same(&self, other: &SharedArena) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// An identity for [`ArenaId`].
    pub(crate) fn id(&self) -> ArenaId {
        ArenaId(Arc::as_ptr(&self.0) as usize)
    }
}

/// Which context's memory a launch argument points into (see
/// [`LaunchArg::arena`](super::LaunchArg::arena)); opaque.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArenaId(usize);

/// A read-only view of a context's device memory ([`Context::memory`]); launches and writes
/// wait while it is held.
pub struct MemoryView<'a>(pub(crate) RwLockReadGuard<'a, Arena>);

impl std::ops::Deref for MemoryView<'_> {
    type Target = DeviceMemory;
    fn deref(&self) -> &DeviceMemory {
        &self.0.memory
    }
}

/// `len` elements of `T` in a context's device memory (`cuMemAlloc` of `len *
/// size_of::<T>()` bytes, zero-filled), freed when dropped (`cuMemFree`). `T` is plain old
/// data ([`bytemuck::Pod`]: no padding, no pointers, every bit pattern valid), so the bytes a
/// kernel leaves are always a valid `T`; elements are laid out as in a Rust slice
/// (`size_of::<T>()` apart, little-endian as on the host).
///
/// Pass a buffer to a kernel with [`LaunchBuilder::arg`](super::LaunchBuilder::arg) (it
/// becomes the pointer to element 0) or take its address with
/// [`as_device_ptr`](Self::as_device_ptr) for the untyped API. Copies and the drop wait for
/// a launch running on the context to end.
///
/// ```no_run
/// use ptxjit::host::{Context, DeviceBuffer};
/// let ctx = Context::new();
/// let mut x = DeviceBuffer::from_slice(&ctx, &[1.0f32, 2.0, 3.0]).unwrap();
/// x.copy_from(&[4.0, 5.0, 6.0]).unwrap();
/// assert_eq!(x.to_vec().unwrap(), vec![4.0, 5.0, 6.0]);
/// ```
pub struct DeviceBuffer<T: Pod> {
    arena: SharedArena,
    ptr: DevicePtr,
    len: usize,
    _elem: PhantomData<fn() -> T>,
}

impl<T: Pod> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .field("elem", &std::any::type_name::<T>())
            .finish()
    }
}

impl<T: Pod> DeviceBuffer<T> {
    /// `len` zeroed elements in `ctx`'s memory. Errors ([`Error::Memory`]): `len` is 0 (as
    /// `cuMemAlloc` of 0 bytes), the size overflows, or the device memory is exhausted.
    pub fn zeroed(ctx: &Context, len: usize) -> Result<DeviceBuffer<T>, Error> {
        Self::alloc(ctx, len, None)
    }

    /// As [`zeroed`](Self::zeroed), with `label` naming the allocation in memcheck and fault
    /// reports (`nearest allocation 'label'`).
    pub fn zeroed_labeled(
        ctx: &Context,
        len: usize,
        label: &str,
    ) -> Result<DeviceBuffer<T>, Error> {
        Self::alloc(ctx, len, Some(label))
    }

    /// A buffer holding a copy of `data` (`cuMemAlloc` + `cuMemcpyHtoD`). Errors as
    /// [`zeroed`](Self::zeroed).
    pub fn from_slice(ctx: &Context, data: &[T]) -> Result<DeviceBuffer<T>, Error> {
        let mut b = Self::alloc(ctx, data.len(), None)?;
        b.copy_from(data)?;
        Ok(b)
    }

    fn alloc(ctx: &Context, len: usize, label: Option<&str>) -> Result<DeviceBuffer<T>, Error> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .and_then(|b| u64::try_from(b).ok())
            .ok_or_else(|| {
                Error::Memory(format!(
                    "a buffer of {len} elements of {} bytes overflows the address space",
                    std::mem::size_of::<T>()
                ))
            })?;
        let arena = ctx.arena().clone();
        let ptr = {
            let mut a = arena.write();
            let p = a.memory.alloc(bytes, label).map_err(Error::Memory)?;
            a.owned.insert(p.0);
            p
        };
        Ok(DeviceBuffer {
            arena,
            ptr,
            len,
            _elem: PhantomData,
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements (never: allocations are at least one element).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes (`len * size_of::<T>()`).
    pub fn byte_len(&self) -> u64 {
        (self.len * std::mem::size_of::<T>()) as u64
    }

    /// The device address of element 0 (a `CUdeviceptr`), for the untyped API and for
    /// pointer arithmetic (`ptr.offset(i * size_of::<T>())`). Valid while the buffer lives.
    pub fn as_device_ptr(&self) -> DevicePtr {
        self.ptr
    }

    /// Which context's memory the buffer is in.
    pub fn arena(&self) -> ArenaId {
        self.arena.id()
    }

    fn check_len(&self, what: &str, n: usize) -> Result<(), Error> {
        if n == self.len {
            return Ok(());
        }
        Err(Error::Memory(format!(
            "{what}: the buffer at {:#x} has {} elements, the host slice {n}",
            self.ptr.0, self.len
        )))
    }

    /// Copy `src` into the buffer (`cuMemcpyHtoD`). Errors ([`Error::Memory`]): `src` has
    /// another length than the buffer.
    pub fn copy_from(&mut self, src: &[T]) -> Result<(), Error> {
        self.check_len("copy to the device", src.len())?;
        self.arena
            .write()
            .memory
            .write(self.ptr, bytemuck::cast_slice(src))
            .map_err(Error::Memory)
    }

    /// Copy the buffer into `dst` (`cuMemcpyDtoH`). Errors ([`Error::Memory`]): `dst` has
    /// another length than the buffer.
    pub fn copy_to(&self, dst: &mut [T]) -> Result<(), Error> {
        self.check_len("copy to the host", dst.len())?;
        self.arena
            .read()
            .memory
            .read(self.ptr, bytemuck::cast_slice_mut(dst))
            .map_err(Error::Memory)
    }

    /// The buffer's contents as a new vector (`cuMemcpyDtoH`).
    pub fn to_vec(&self) -> Result<Vec<T>, Error> {
        let mut v = vec![T::zeroed(); self.len];
        self.copy_to(&mut v)?;
        Ok(v)
    }

    /// Copy another buffer of the same context and length into this one
    /// (`cuMemcpyDtoD`). Errors ([`Error::Memory`]): the lengths differ, or `src` is in
    /// another context's memory.
    pub fn copy_from_buffer(&mut self, src: &DeviceBuffer<T>) -> Result<(), Error> {
        self.check_len("device-to-device copy", src.len)?;
        if !self.arena.same(&src.arena) {
            return Err(Error::Memory(
                "device-to-device copy between buffers of different contexts".into(),
            ));
        }
        copy_dtod(
            &mut self.arena.write().memory,
            self.ptr,
            src.ptr,
            self.byte_len(),
        )
    }
}

impl<T: Pod> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        let mut a = self.arena.write();
        a.owned.remove(&self.ptr.0);
        // The allocation is live: only this drop frees it (`Arena::free_untyped` refuses).
        let _ = a.memory.free(self.ptr);
    }
}

/// Copy `bytes` bytes from `src` to `dst` in one arena (`cuMemcpyDtoD`); the ranges may
/// overlap (the copy goes through a host buffer, so it acts as `memmove`). Errors
/// ([`Error::Memory`]): either range is not inside one live allocation; nothing is written
/// then.
pub(crate) fn copy_dtod(
    mem: &mut DeviceMemory,
    dst: DevicePtr,
    src: DevicePtr,
    bytes: u64,
) -> Result<(), Error> {
    let len = usize::try_from(bytes)
        .map_err(|_| Error::Memory(format!("copy of {bytes} bytes is too large")))?;
    let mut tmp = vec![0u8; len];
    mem.read(src, &mut tmp).map_err(Error::Memory)?;
    mem.write(dst, &tmp).map_err(Error::Memory)
}

/// Fill `count` elements of `width` bytes at `dst` with `pattern`'s low `width` bytes,
/// little-endian (`cuMemsetD8/D16/D32`). Errors ([`Error::Memory`]): `dst` is not aligned to
/// `width` (CUDA requires it for D16 and D32), or the range is not inside one live
/// allocation; nothing is written then.
pub(crate) fn memset(
    mem: &mut DeviceMemory,
    dst: DevicePtr,
    pattern: u32,
    width: usize,
    count: usize,
) -> Result<(), Error> {
    if !dst.0.is_multiple_of(width as u64) {
        return Err(Error::Memory(format!(
            "memset of {width}-byte values at {:#x}: the address is not {width}-byte aligned",
            dst.0
        )));
    }
    let len = count
        .checked_mul(width)
        .ok_or_else(|| Error::Memory(format!("memset of {count} {width}-byte values overflows")))?;
    let one = &pattern.to_le_bytes()[..width];
    let bytes: Vec<u8> = one.iter().copied().cycle().take(len).collect();
    mem.write(dst, &bytes).map_err(Error::Memory)
}
