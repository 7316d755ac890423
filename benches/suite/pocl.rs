//! The benchmark kernels as OpenCL C (`benches/opencl/<bench>.cl`) run through POCL, the
//! portable OpenCL implementation whose CPU device is the usual yardstick for "GPU kernels on
//! a CPU".
//!
//! A bench's case file drives both sides: the OpenCL kernel has the case's kernel name and
//! takes the same arguments in the same order (a `{ buffer = … }` becomes a `__global`
//! pointer to a copy of the same initial bytes, a scalar the same value, a `{ texture = … }`
//! an `image2d_t` of the same texels; samplers are constants in the `.cl` source, as OpenCL
//! programmers write them). The NDRange is the case's launch: global size grid × block,
//! local size block, one dimension per grid dimension.
//!
//! OpenCL is loaded at run time (`opencl3`'s default `dynamic` feature: `libOpenCL.so.1`
//! through the ICD loader), so building needs no OpenCL library; without one, or without a
//! POCL platform, [`Pocl::open`] says which Debian package to install.
//!
//! Timing matches the engines': the program is built (POCL compiles the OpenCL C) before any
//! timing, every buffer is re-written from its initial bytes outside the timing, and a launch's
//! time is the wall time from `clEnqueueNDRangeKernel` to the end of `clFinish`. POCL
//! specialises a kernel for its work-group size at the first launch, which the warm-up launch
//! takes. POCL's `pthread` CPU device runs work-groups on one thread per core (its compute
//! units; `POCL_MAX_PTHREAD_COUNT` would limit them), as the JIT runs CTAs.

use super::Loaded;
use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{Device, CL_DEVICE_TYPE_ALL};
use opencl3::kernel::Kernel;
use opencl3::memory::{
    Buffer, ClMem, Image, CL_MEM_COPY_HOST_PTR, CL_MEM_OBJECT_IMAGE2D, CL_MEM_READ_ONLY,
    CL_MEM_READ_WRITE, CL_RGBA, CL_UNORM_INT8,
};
use opencl3::program::Program;
use opencl3::types::{cl_image_desc, cl_image_format, cl_mem, CL_BLOCKING};
use ptxjit::case::spec::{TexFormat, TexKind, TexReadMode, TexSource};
use ptxjit::case::{Arg, HostBuffer, Scalar};
use std::path::PathBuf;
use std::ptr;
use std::time::Duration;

/// What to install when OpenCL or POCL is missing.
pub const PACKAGE_HINT: &str =
    "install Debian's pocl-opencl-icd (apt-get install pocl-opencl-icd ocl-icd-libopencl1)";

/// The OpenCL C version of bench `name`.
pub fn source_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("benches/opencl/{name}.cl"))
}

/// POCL's CPU device, a context and an in-order queue on it.
pub struct Pocl {
    context: Context,
    queue: CommandQueue,
    /// "POCL 3.1 …, device …, N compute units": for the table's header.
    pub description: String,
}

impl Pocl {
    /// Find the POCL platform and its first device. `Err` says why not and what to install.
    pub fn open() -> Result<Pocl, String> {
        let platforms = opencl3::platform::get_platforms().map_err(|e| {
            format!("no OpenCL (cannot load libOpenCL.so.1 or list platforms: {e}); {PACKAGE_HINT}")
        })?;
        let mut names = vec![];
        for p in platforms {
            let name = p.name().unwrap_or_default();
            if !name.contains("Portable Computing Language") {
                names.push(name);
                continue;
            }
            let version = p.version().unwrap_or_default();
            let ids = p
                .get_devices(CL_DEVICE_TYPE_ALL)
                .map_err(|e| format!("POCL lists no devices: {e}"))?;
            let Some(&id) = ids.first() else {
                return Err(format!("POCL has no device; {PACKAGE_HINT}"));
            };
            let device = Device::new(id);
            let units = device.max_compute_units().unwrap_or(0);
            let description = format!(
                "{version}; device {}, {units} compute units (worker threads)",
                device.name().unwrap_or_default()
            );
            let context =
                Context::from_device(&device).map_err(|e| format!("POCL context: {e}"))?;
            let queue = CommandQueue::create_default_with_properties(&context, 0, 0)
                .map_err(|e| format!("POCL command queue: {e}"))?;
            return Ok(Pocl {
                context,
                queue,
                description,
            });
        }
        Err(format!(
            "no POCL platform among the OpenCL platforms ({}); {PACKAGE_HINT}",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ))
    }

    /// Build bench `name`'s OpenCL kernel for its case and upload the case's inputs.
    /// `Ok(None)` when the bench has no `.cl` file.
    pub fn prepare(&self, name: &str, l: &Loaded) -> Result<Option<PoclKernel>, String> {
        let path = source_path(name);
        if !path.exists() {
            return Ok(None);
        }
        let src = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let program = Program::create_and_build_from_source(&self.context, &src, "")
            .map_err(|log| format!("{}: POCL's build failed:\n{log}", path.display()))?;
        let launch = l
            .case
            .spec
            .launches
            .first()
            .ok_or("the bench case has no launch")?;
        let kernel = Kernel::create(&program, &launch.kernel)
            .map_err(|e| format!("{}: no kernel '{}' ({e})", path.display(), launch.kernel))?;
        let mut k = PoclKernel {
            kernel,
            buffers: vec![],
            images: vec![],
            global: [0; 3],
            local: [0; 3],
            dims: 1,
        };
        for d in 0..3 {
            k.global[d] = launch.grid.0[d] as usize * launch.block.0[d] as usize;
            k.local[d] = launch.block.0[d] as usize;
        }
        k.dims = if launch.grid.0[2] > 1 || launch.block.0[2] > 1 {
            3
        } else if launch.grid.0[1] > 1 || launch.block.0[1] > 1 {
            2
        } else {
            1
        };
        for (i, arg) in launch.args.iter().enumerate() {
            let index = i as u32;
            let what = |e: opencl3::error_codes::ClError| {
                format!("{}: argument {i} ({arg:?}): {e}", path.display())
            };
            match arg {
                Arg::Scalar(s) => {
                    // SAFETY: each value is the scalar type the kernel parameter has (the
                    // `.cl` file follows the case), and POCL copies it during the call.
                    unsafe {
                        match *s {
                            Scalar::U8(v) => k.kernel.set_arg(index, &v),
                            Scalar::U16(v) => k.kernel.set_arg(index, &v),
                            Scalar::U32(v) => k.kernel.set_arg(index, &v),
                            Scalar::U64(v) => k.kernel.set_arg(index, &v),
                            Scalar::S8(v) => k.kernel.set_arg(index, &v),
                            Scalar::S16(v) => k.kernel.set_arg(index, &v),
                            Scalar::S32(v) => k.kernel.set_arg(index, &v),
                            Scalar::S64(v) => k.kernel.set_arg(index, &v),
                            Scalar::F32(v) => k.kernel.set_arg(index, &v),
                            Scalar::F64(v) => k.kernel.set_arg(index, &v),
                        }
                    }
                    .map_err(what)?;
                }
                Arg::Buffer { name, offset } => {
                    if *offset != 0 {
                        return Err(format!(
                            "argument {i}: buffer '{name}' at offset {offset}: the OpenCL \
                             runner passes whole buffers only"
                        ));
                    }
                    let host = find(l, name)?;
                    let mut bytes = host.bytes.clone();
                    // SAFETY: `bytes` is valid for its length, and COPY_HOST_PTR copies it
                    // during the call.
                    let buf = unsafe {
                        Buffer::<u8>::create(
                            &self.context,
                            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            bytes.len().max(1),
                            bytes.as_mut_ptr().cast(),
                        )
                    }
                    .map_err(what)?;
                    let mem: cl_mem = buf.get();
                    // SAFETY: a `__global` pointer parameter takes a cl_mem.
                    unsafe { k.kernel.set_arg(index, &mem) }.map_err(what)?;
                    k.buffers.push((host.clone(), buf));
                }
                Arg::Texture(name) => {
                    let image = self.image(l, name)?;
                    let mem: cl_mem = image.get();
                    // SAFETY: an `image2d_t` parameter takes a cl_mem.
                    unsafe { k.kernel.set_arg(index, &mem) }.map_err(what)?;
                    k.images.push(image);
                }
                Arg::Surface(_) | Arg::Struct(_) | Arg::TensorMap(_) => {
                    return Err(format!(
                        "argument {i} ({arg:?}): the OpenCL runner passes buffers, scalars \
                         and 2D textures only"
                    ))
                }
            }
        }
        Ok(Some(k))
    }

    /// A read-only `image2d_t` (CL_RGBA / CL_UNORM_INT8) with the texels of texture `name`:
    /// the one kind of texture the benchmark uses (2D, u8 × 4 channels read as normalized
    /// floats, from a buffer); anything else is an error.
    fn image(&self, l: &Loaded, name: &str) -> Result<Image, String> {
        let t = l
            .case
            .spec
            .textures
            .get(name)
            .ok_or_else(|| format!("no texture '{name}' in the case"))?;
        let supported = matches!(t.kind, Some(TexKind::D2))
            && matches!(t.format, Some(TexFormat::U8))
            && t.channels == Some(4)
            && matches!(t.read_mode, Some(TexReadMode::NormalizedFloat))
            && t.pitch_bytes.is_none()
            && t.mip_levels.unwrap_or(1) == 1;
        let (Some(TexSource::Buffer(source)), true) = (&t.source, supported) else {
            return Err(format!(
                "texture '{name}': the OpenCL runner makes 2D u8 RGBA normalized-float images \
                 from a buffer only"
            ));
        };
        let (w, h) = (
            t.width.unwrap_or(0) as usize,
            t.height.unwrap_or(0) as usize,
        );
        let mut bytes = find(l, source)?.bytes.clone();
        if bytes.len() < w * h * 4 {
            return Err(format!(
                "texture '{name}': {w}x{h} RGBA8 needs {} bytes, buffer '{source}' has {}",
                w * h * 4,
                bytes.len()
            ));
        }
        let format = cl_image_format {
            image_channel_order: CL_RGBA,
            image_channel_data_type: CL_UNORM_INT8,
        };
        let desc = cl_image_desc {
            image_type: CL_MEM_OBJECT_IMAGE2D,
            image_width: w,
            image_height: h,
            image_depth: 1,
            image_array_size: 1,
            image_row_pitch: w * 4,
            image_slice_pitch: 0,
            num_mip_levels: 0,
            num_samples: 0,
            buffer: ptr::null_mut(),
        };
        // SAFETY: `format` and `desc` live through the call; `bytes` holds the w × h × 4
        // bytes the descriptor's pitch says, and COPY_HOST_PTR copies them during the call.
        unsafe {
            Image::create(
                &self.context,
                CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                &format,
                &desc,
                bytes.as_mut_ptr().cast(),
            )
        }
        .map_err(|e| format!("texture '{name}': POCL image: {e}"))
    }

    /// Re-write every buffer, then launch once; the launch's wall time (CPU time after
    /// `use_cpu_time`).
    pub fn timed_launch(&self, k: &mut PoclKernel) -> Result<Duration, String> {
        for (host, buf) in &mut k.buffers {
            // SAFETY: a blocking write of `host.bytes`, which the buffer was created with.
            unsafe {
                self.queue
                    .enqueue_write_buffer(buf, CL_BLOCKING, 0, &host.bytes, &[])
            }
            .map_err(|e| format!("resetting buffer '{}': {e}", host.name))?;
        }
        self.queue.finish().map_err(|e| e.to_string())?;
        let t = super::Stopwatch::start();
        // SAFETY: every argument was set in `prepare`; the sizes are arrays of `dims` (≤ 3)
        // entries that live through the call.
        unsafe {
            self.queue.enqueue_nd_range_kernel(
                k.kernel.get(),
                k.dims,
                ptr::null(),
                k.global.as_ptr(),
                k.local.as_ptr(),
                &[],
            )
        }
        .map_err(|e| format!("POCL launch: {e}"))?;
        self.queue
            .finish()
            .map_err(|e| format!("POCL launch: {e}"))?;
        Ok(t.elapsed())
    }

    /// The wall times of `runs` launches of an empty OpenCL kernel (`empty::OPENCL`) of
    /// `ctas` work-groups of `threads` work-items, after `empty::WARM_UP` untimed ones: each
    /// from `clEnqueueNDRangeKernel` to the end of `clFinish`.
    pub fn empty_times(
        &self,
        ctas: u32,
        threads: u32,
        runs: usize,
    ) -> Result<Vec<Duration>, String> {
        let program =
            Program::create_and_build_from_source(&self.context, super::empty::OPENCL, "")
                .map_err(|log| format!("the empty kernel: POCL's build failed:\n{log}"))?;
        let kernel =
            Kernel::create(&program, "empty").map_err(|e| format!("the empty kernel: {e}"))?;
        let global = [ctas as usize * threads as usize];
        let local = [threads as usize];
        let mut times = Vec::with_capacity(runs);
        for i in 0..super::empty::WARM_UP + runs {
            let t = std::time::Instant::now();
            // SAFETY: the kernel has no arguments; the sizes are arrays of one entry that live
            // through the call.
            unsafe {
                self.queue.enqueue_nd_range_kernel(
                    kernel.get(),
                    1,
                    ptr::null(),
                    global.as_ptr(),
                    local.as_ptr(),
                    &[],
                )
            }
            .map_err(|e| format!("POCL launch: {e}"))?;
            self.queue
                .finish()
                .map_err(|e| format!("POCL launch: {e}"))?;
            if i >= super::empty::WARM_UP {
                times.push(t.elapsed());
            }
        }
        Ok(times)
    }

    /// The buffers passed to the kernel as they are now (after a launch).
    pub fn read_back(&self, k: &PoclKernel) -> Result<Vec<HostBuffer>, String> {
        let mut out = vec![];
        for (host, buf) in &k.buffers {
            let mut bytes = vec![0u8; host.bytes.len()];
            // SAFETY: a blocking read of exactly the buffer's size into `bytes`.
            unsafe {
                self.queue
                    .enqueue_read_buffer(buf, CL_BLOCKING, 0, &mut bytes, &[])
            }
            .map_err(|e| format!("reading buffer '{}': {e}", host.name))?;
            out.push(HostBuffer {
                name: host.name.clone(),
                dtype: host.dtype,
                bytes,
            });
        }
        Ok(out)
    }
}

/// A built kernel with its arguments set and its buffers on the device.
pub struct PoclKernel {
    kernel: Kernel,
    /// Each buffer argument: its initial contents (for resets) and its OpenCL buffer.
    buffers: Vec<(HostBuffer, Buffer<u8>)>,
    /// Kept alive while the kernel may use them.
    images: Vec<Image>,
    global: [usize; 3],
    local: [usize; 3],
    dims: u32,
}

fn find<'a>(l: &'a Loaded, name: &str) -> Result<&'a HostBuffer, String> {
    l.prepared
        .buffers
        .iter()
        .find(|b| b.name == name)
        .ok_or_else(|| format!("no buffer '{name}' in the case"))
}
