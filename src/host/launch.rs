//! The launch builder: [`Context::launch_builder`] takes the launch shape and typed arguments
//! one call at a time and launches with [`Context::launch`]'s checks.
//!
//! ```no_run
//! use ptxjit::host::{Context, DeviceBuffer, Engine};
//! let ptx = std::fs::read_to_string("saxpy.ptx").unwrap();
//! let mut ctx = Context::new();
//! let module = ctx.load_module(&ptx, "saxpy.ptx", Engine::Jit).unwrap();
//! let kernel = module.kernel("saxpy").unwrap();
//! let x = DeviceBuffer::from_slice(&ctx, &vec![1.0f32; 1024]).unwrap();
//! let y = DeviceBuffer::<f32>::zeroed(&ctx, 1024).unwrap();
//! ctx.launch_builder(&kernel)
//!     .grid(4)
//!     .block(256)
//!     .arg(1024u32)
//!     .arg(2.0f32)
//!     .arg(&x)
//!     .arg(&y)
//!     .launch()
//!     .unwrap();
//! ```

use super::buffer::{ArenaId, DeviceBuffer};
use super::context::{Context, Error, Kernel, KernelArg, LaunchOptions, LaunchReport};
use crate::runtime::launch::LaunchDims;
use crate::runtime::memory::DevicePtr;
use bytemuck::Pod;
use std::marker::PhantomData;
use std::time::Duration;

/// A value a kernel can take as an argument: scalars as the `.param` of their type, device
/// buffers as a pointer to their first element. Checked at launch against the kernel's
/// parameter list as [`Context::launch`] checks [`KernelArg`]s.
pub trait LaunchArg {
    /// The argument as the untyped API takes it.
    fn kernel_arg(&self) -> KernelArg;

    /// For an argument that points into device memory: which context's memory. A launch on
    /// another context refuses it (its addresses would name that context's allocations).
    fn arena(&self) -> Option<ArenaId> {
        None
    }
}

macro_rules! scalar_args {
    ($($t:ty => $v:ident),* $(,)?) => {$(
        impl LaunchArg for $t {
            fn kernel_arg(&self) -> KernelArg {
                KernelArg::$v(*self)
            }
        }
    )*};
}

scalar_args!(
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    i8 => S8, i16 => S16, i32 => S32, i64 => S64,
    f32 => F32, f64 => F64,
);

/// A raw device pointer (a `.u64` parameter).
impl LaunchArg for DevicePtr {
    fn kernel_arg(&self) -> KernelArg {
        KernelArg::Ptr(*self)
    }
}

/// An untyped argument as it is (a struct by value, for one).
impl LaunchArg for KernelArg {
    fn kernel_arg(&self) -> KernelArg {
        self.clone()
    }
}

/// A buffer the kernel reads: the pointer to its element 0.
impl<T: Pod> LaunchArg for &DeviceBuffer<T> {
    fn kernel_arg(&self) -> KernelArg {
        KernelArg::Ptr(self.as_device_ptr())
    }
    fn arena(&self) -> Option<ArenaId> {
        Some(DeviceBuffer::arena(self))
    }
}

/// A buffer the kernel writes: the pointer to its element 0.
impl<T: Pod> LaunchArg for &mut DeviceBuffer<T> {
    fn kernel_arg(&self) -> KernelArg {
        KernelArg::Ptr(self.as_device_ptr())
    }
    fn arena(&self) -> Option<ArenaId> {
        Some(DeviceBuffer::arena(self))
    }
}

/// Grid or block dimensions (CUDA's `dim3`): from `n` (`[n, 1, 1]`), `(x, y)`, `(x, y, z)`
/// or `[x, y, z]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3(pub [u32; 3]);

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3([x, 1, 1])
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3([x, y, 1])
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Dim3 {
        Dim3([x, y, z])
    }
}

impl From<[u32; 3]> for Dim3 {
    fn from(d: [u32; 3]) -> Dim3 {
        Dim3(d)
    }
}

/// One launch being described ([`Context::launch_builder`]): grid and block default to
/// `[1, 1, 1]`, dynamic shared memory to 0, options to [`LaunchOptions::default`]; arguments
/// are added in the kernel's parameter order. Buffers passed as arguments stay borrowed
/// until the launch, so none can be freed before the kernel runs.
#[must_use = "a launch builder does nothing until .launch()"]
pub struct LaunchBuilder<'a> {
    ctx: &'a mut Context,
    kernel: &'a Kernel,
    dims: LaunchDims,
    opts: LaunchOptions,
    args: Vec<KernelArg>,
    /// Index and arena of each argument that points into device memory.
    arenas: Vec<(usize, ArenaId)>,
    _borrows: PhantomData<&'a ()>,
}

impl<'a> LaunchBuilder<'a> {
    pub(crate) fn new(ctx: &'a mut Context, kernel: &'a Kernel) -> LaunchBuilder<'a> {
        LaunchBuilder {
            ctx,
            kernel,
            dims: LaunchDims {
                grid: [1, 1, 1],
                block: [1, 1, 1],
                shared_bytes: 0,
            },
            opts: LaunchOptions::default(),
            args: vec![],
            arenas: vec![],
            _borrows: PhantomData,
        }
    }

    /// Grid dimensions in CTAs (`gridDim`).
    pub fn grid(mut self, d: impl Into<Dim3>) -> Self {
        self.dims.grid = d.into().0;
        self
    }

    /// Block dimensions in threads (`blockDim`).
    pub fn block(mut self, d: impl Into<Dim3>) -> Self {
        self.dims.block = d.into().0;
        self
    }

    /// Dynamic shared memory per CTA in bytes (`sharedMemBytes`; above 48 KiB the kernel must
    /// opt in with [`Kernel::set_max_dynamic_shared_bytes`]).
    pub fn shared_bytes(mut self, bytes: u32) -> Self {
        self.dims.shared_bytes = bytes;
        self
    }

    /// Check global accesses against exact allocation bounds ([`LaunchOptions::memcheck`]).
    pub fn memcheck(mut self, on: bool) -> Self {
        self.opts.memcheck = on;
        self
    }

    /// Stop the launch with [`Error::Timeout`] after `limit` (a limit past what the clock can
    /// hold, such as `Duration::MAX`, is no limit).
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.opts.timeout = Some(limit);
        self
    }

    /// Launch cooperatively ([`LaunchOptions::cooperative`] with the default limits): every
    /// CTA resident at once, so the kernel may synchronise the whole grid
    /// (`cooperative_groups::this_grid().sync()`).
    pub fn cooperative(mut self, on: bool) -> Self {
        self.opts.cooperative = on.then(Default::default);
        self
    }

    /// The next argument: a scalar (`1024u32`, `2.0f32`), a buffer (`&x`, `&mut y`), a
    /// [`DevicePtr`] or a [`KernelArg`].
    pub fn arg<A: LaunchArg + 'a>(mut self, a: A) -> Self {
        if let Some(id) = a.arena() {
            self.arenas.push((self.args.len(), id));
        }
        self.args.push(a.kernel_arg());
        self
    }

    /// Launch and wait ([`Context::launch`]). Errors as [`Context::launch`], and
    /// [`Error::Argument`] for a buffer of another context.
    pub fn launch(self) -> Result<LaunchReport, Error> {
        let mine = self.ctx.arena().id();
        if let Some((i, _)) = self.arenas.iter().find(|(_, id)| *id != mine) {
            return Err(Error::Argument(format!(
                "kernel {} argument {} is a buffer of another context",
                super::kernel_name::quoted(&self.kernel.compiled.name),
                i + 1
            )));
        }
        self.ctx
            .launch(self.kernel, self.dims, &self.args, &self.opts)
    }
}
