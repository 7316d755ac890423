//! Modules, libraries, kernels and the linker (CUDA driver API: Module Management, Library
//! Management, Execution Control's function attributes).
//!
//! Images are decoded by [`ptxjit::host::image`]: PTX text, ptxjit's linked images (what
//! `cuLinkComplete` returns here), fatbins (or the wrappers nvcc registers), whose PTX entry
//! for the device's compute capability is loaded (for an `nvcc -rdc=true` program's wrapper,
//! the linked PTX of the fatbins it lists: see `wrapper_inputs`), and cubins or SASS-only
//! fatbins, which get
//! `CUDA_ERROR_NO_BINARY_FOR_GPU` with a message saying how to get PTX instead. A `CUlibrary` is a `CUmodule` and a `CUkernel` is a
//! `CUfunction`: the handles are interchangeable.

use crate::errors::*;
use crate::exports;
use crate::state::{
    with_any_context, with_context, Driver, FuncState, Kind, LinkState, ModuleState,
};
use crate::{out, DrvResult, Fail};
use ptxjit::host::fatbin;
use ptxjit::host::image::{self, ImageError, ImageKind};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

/// `CUjit_option` values this library reads.
const JIT_INFO_LOG_BUFFER: c_uint = 3;
const JIT_INFO_LOG_BUFFER_SIZE_BYTES: c_uint = 4;
const JIT_ERROR_LOG_BUFFER: c_uint = 5;
const JIT_ERROR_LOG_BUFFER_SIZE_BYTES: c_uint = 6;

/// `CUjitInputType` values.
const INPUT_CUBIN: c_uint = 0;
const INPUT_PTX: c_uint = 1;
const INPUT_FATBINARY: c_uint = 2;
const INPUT_OBJECT: c_uint = 3;
const INPUT_LIBRARY: c_uint = 4;

/// The info and error log buffers a program passed as JIT options: (buffer, size slot).
#[derive(Clone, Copy, Default)]
pub struct JitLogs {
    info: Option<(*mut c_char, *mut *mut c_void)>,
    error: Option<(*mut c_char, *mut *mut c_void)>,
}

// SAFETY: the pointers are the program's, used only inside the driver call or link that
// received them, under the driver lock.
unsafe impl Send for JitLogs {}

impl JitLogs {
    /// Reads the log options of a JIT option array.
    ///
    /// # Safety
    /// `opts` and `vals` are null or arrays of `n` entries (the API's contract).
    pub unsafe fn parse(n: c_uint, opts: *const c_uint, vals: *mut *mut c_void) -> JitLogs {
        let mut logs = JitLogs::default();
        if opts.is_null() || vals.is_null() {
            return logs;
        }
        let (mut info, mut info_slot, mut err, mut err_slot) = (None, None, None, None);
        for i in 0..n as usize {
            // SAFETY: i < n.
            let (o, slot) = unsafe { (*opts.add(i), vals.add(i)) };
            match o {
                JIT_INFO_LOG_BUFFER => info = Some(unsafe { *slot }.cast::<c_char>()),
                JIT_INFO_LOG_BUFFER_SIZE_BYTES => info_slot = Some(slot),
                JIT_ERROR_LOG_BUFFER => err = Some(unsafe { *slot }.cast::<c_char>()),
                JIT_ERROR_LOG_BUFFER_SIZE_BYTES => err_slot = Some(slot),
                _ => {} // Optimization and target options do not apply to the CPU.
            }
        }
        if let (Some(b), Some(s)) = (info, info_slot) {
            logs.info = Some((b, s));
        }
        if let (Some(b), Some(s)) = (err, err_slot) {
            logs.error = Some((b, s));
        }
        logs
    }

    fn write(target: Option<(*mut c_char, *mut *mut c_void)>, text: &str) {
        let Some((buf, slot)) = target else { return };
        if buf.is_null() || slot.is_null() {
            return;
        }
        // SAFETY: the size slot holds the buffer's size (a size_t in a void*), and the buffer
        // is that large (the API's contract); the driver writes back the bytes it used.
        unsafe {
            let size = *slot as usize;
            if size == 0 {
                return;
            }
            let n = text.len().min(size - 1);
            std::ptr::copy_nonoverlapping(text.as_ptr().cast(), buf, n);
            buf.add(n).write(0);
            *slot = (n + 1) as *mut c_void;
        }
    }

    pub fn error(&self, text: &str) {
        Self::write(self.error, text);
    }

    pub fn info(&self, text: &str) {
        Self::write(self.info, text);
    }
}

fn image_fail(e: ImageError) -> Fail {
    let code = match e {
        ImageError::Sass(_) | ImageError::NoPtxForDevice(_) => CUDA_ERROR_NO_BINARY_FOR_GPU,
        ImageError::Invalid(_) => CUDA_ERROR_INVALID_IMAGE,
    };
    Fail::new(code, e.to_string())
}

/// The PTX entry of a fatbin for the device's compute capability, as one input named after
/// `name` and the entry.
fn fatbin_inputs(bytes: &[u8], name: &str) -> Result<Vec<(String, String)>, Fail> {
    device_ptx(bytes, name, false)?
        .map(|input| vec![input])
        .map_err(image_fail)
}

/// The fatbin at `p`, or the one the fatbin wrapper at `p` points to, its size from its
/// header.
///
/// # Safety
/// `p` points to a fatbin or a wrapper (the API's contract; [`image::classify`] said which).
unsafe fn fatbin_at<'a>(p: *const u8) -> Result<&'a [u8], Fail> {
    let mut p = p;
    // SAFETY: classify reads a byte only while the earlier ones matched a magic.
    let mut kind = image::classify(|i| unsafe { *p.add(i) });
    if kind == ImageKind::FatbinWrapper {
        // SAFETY: a wrapper is WRAPPER_BYTES long.
        let w = unsafe { std::slice::from_raw_parts(p, fatbin::WRAPPER_BYTES) };
        let w = fatbin::Wrapper::parse(w).map_err(image_fail)?;
        p = w.data as usize as *const u8;
        // SAFETY: a valid wrapper points to a fatbin; its first bytes are read as above.
        kind = image::classify(|i| unsafe { *p.add(i) });
    }
    if kind != ImageKind::Fatbin {
        let m = format!("{p:?} is not a fatbin (its first bytes are those of {kind:?})");
        return Err(image_fail(ImageError::Invalid(m)));
    }
    // SAFETY: a fatbin starts with its HEADER_BYTES-byte header, which gives its total size.
    let header = unsafe { std::slice::from_raw_parts(p, fatbin::HEADER_BYTES) };
    let size = fatbin::total_size(header).map_err(image_fail)?;
    // SAFETY: the fatbin is `size` bytes long by its header.
    Ok(unsafe { std::slice::from_raw_parts(p, size) })
}

/// The (name, PTX) inputs of the image at `p` (size unknown: the format says where it ends).
///
/// # Safety
/// `p` points to an image (the API's contract).
unsafe fn read_image(p: *const c_void, name: &str) -> Result<Vec<(String, String)>, Fail> {
    note_library_that_cannot_run();
    // SAFETY: the caller's contract.
    let inputs = unsafe { read_image_kinds(p, name) }.inspect_err(say_no_binary)?;
    Ok(dump_ptx(inputs))
}

/// NVIDIA libraries that load modules through the driver but cannot run on ptxjit, by the
/// start of their file names: (prefix, the library, why). Their failure is the library's own
/// status code (cuBLAS: `CUBLAS_STATUS_INTERNAL_ERROR` from `cublasCreate`), which names
/// nothing missing, so ptxjit says it on stderr.
const LIBRARIES_THAT_CANNOT_RUN: [(&str, &str, &str); 2] = [
    (
        // libcublas.so.12 and libcublasLt.so.12
        "libcublas",
        "cuBLAS",
        "its matrix kernels (in libcublasLt) are SASS alone, machine code for GPUs, and ptxjit \
     runs PTX: cuBLAS calls fail (cublasCreate with CUBLAS_STATUS_INTERNAL_ERROR), and so do \
     the libraries built on it (cuSOLVER; CuPy's dot, matmul and linalg)",
    ),
    (
        // libcufft.so.11
        "libcufft",
        "cuFFT",
        "most of its FFT kernels are SASS alone, machine code for GPUs, and ptxjit runs PTX: \
     cuFFT plans fail (CuPy's cp.fft with CUFFT_INTERNAL_ERROR)",
    ),
];

/// The line ptxjit prints when the loaded object at `path` loads a module and is one of
/// [`LIBRARIES_THAT_CANNOT_RUN`]: `ptxjit: cuBLAS (libcublas.so.12) does not run on ptxjit: …`.
pub fn cannot_run_note(path: &str) -> Option<String> {
    let file = path.rsplit('/').next().unwrap_or(path);
    LIBRARIES_THAT_CANNOT_RUN
        .iter()
        .find(|(prefix, _, _)| file.starts_with(prefix))
        .map(|(_, library, why)| {
            format!("ptxjit: {library} ({file}) does not run on ptxjit: {why}")
        })
}

/// Prints [`cannot_run_note`] for the object that called the driver to load a module, once
/// for each library.
fn note_library_that_cannot_run() {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let Some(note) = crate::proc_address::calling_object().and_then(|o| cannot_run_note(&o)) else {
        return;
    };
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if !said.contains(&note) {
        eprintln!("{note}");
        said.push(note);
    }
}

/// The directory `PTXJIT_DUMP_PTX` names, if set and not empty: each PTX text the program
/// loads from memory is written there ([`dump_ptx`]).
fn dump_dir() -> Option<&'static std::path::Path> {
    static DIR: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        std::env::var_os("PTXJIT_DUMP_PTX")
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
    })
    .as_deref()
}

/// Under `PTXJIT_DUMP_PTX=DIR`, writes each input's PTX to its own file in DIR
/// (`ptxjit-PID-N.ptx`, N counting the texts this process loaded from memory) and names the
/// input by that path, so that fault and error reports point into a file the user can open
/// (`DIR/ptxjit-4242-1.ptx:57:3`) instead of the image (`cuModuleLoadData image (compute_80
/// PTX)`), which exists only in the program's memory. A text that cannot be written keeps
/// its name, and the reason is printed on stderr.
fn dump_ptx(inputs: Vec<(String, String)>) -> Vec<(String, String)> {
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let Some(dir) = dump_dir() else {
        for (name, _) in &inputs {
            note_in_memory(name);
        }
        return inputs;
    };
    inputs
        .into_iter()
        .map(|(name, text)| {
            let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            let path = dir.join(format!("ptxjit-{}-{n}.ptx", std::process::id()));
            let written = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, &text));
            match written {
                Ok(()) => {
                    if !crate::tracing() {
                        eprintln!("ptxjit: PTXJIT_DUMP_PTX: {name} is {}", path.display());
                    }
                    (path.display().to_string(), text)
                }
                Err(e) => {
                    eprintln!(
                        "ptxjit: PTXJIT_DUMP_PTX: {name} not written to {}: {e}",
                        path.display()
                    );
                    note_in_memory(&name);
                    (name, text)
                }
            }
        })
        .collect()
}

/// Prints, once per process and unless tracing, why an image without PTX (or one that is
/// not an image: an empty fatbin, as NVIDIA's static runtime hands over for `-rdc=true`
/// programs) cannot load: the program usually reports only the code (`no kernel image is
/// available`, `device kernel image is invalid`), and a client that loads cubins (Triton's
/// runtime) says nothing of what to do instead.
fn say_no_binary(f: &Fail) {
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if (f.code == CUDA_ERROR_NO_BINARY_FOR_GPU || f.code == CUDA_ERROR_INVALID_IMAGE)
        && !crate::tracing()
        && !SAID.swap(true, std::sync::atomic::Ordering::Relaxed)
    {
        eprintln!("ptxjit: {}", f.message);
    }
}

/// [`read_image`] without the message.
///
/// # Safety
/// As [`read_image`].
unsafe fn read_image_kinds(p: *const c_void, name: &str) -> Result<Vec<(String, String)>, Fail> {
    if p.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null image"));
    }
    let bytes = p.cast::<u8>();
    // SAFETY: classify reads a byte only while the earlier ones matched a magic.
    let kind = image::classify(|i| unsafe { *bytes.add(i) });
    match kind {
        ImageKind::Ptx => {
            // SAFETY: PTX images are NUL-terminated (the API's contract).
            let text = unsafe { CStr::from_ptr(p.cast()) };
            let text = image::ptx_text(text.to_bytes()).map_err(image_fail)?;
            check_text(&text)?;
            Ok(vec![(name.to_string(), text)])
        }
        ImageKind::Linked => {
            // SAFETY: a linked image starts with a 24-byte header giving its size.
            let header = unsafe { std::slice::from_raw_parts(bytes, 24) };
            let size = image::linked_size(header)
                .and_then(|s| usize::try_from(s).ok())
                .ok_or_else(|| image_fail(ImageError::Invalid("linked image size".into())))?;
            // SAFETY: the image is `size` bytes long by its header.
            let all = unsafe { std::slice::from_raw_parts(bytes, size) };
            image::read_linked(all).map_err(image_fail)
        }
        ImageKind::Cubin => Err(image_fail(ImageError::cubin())),
        // SAFETY: classify found a fatbin's magic.
        ImageKind::Fatbin => fatbin_inputs(unsafe { fatbin_at(bytes)? }, name),
        // SAFETY: classify found a wrapper's magic.
        ImageKind::FatbinWrapper => unsafe { wrapper_inputs(bytes, name) },
    }
}

/// The most fatbins a version-2 wrapper's list is read for: a list without its NULL within
/// this many entries is no list nvcc made.
const MAX_PRELINKED: usize = 1 << 16;

/// The (name, PTX) inputs of the fatbin wrapper (`__fatBinC_Wrapper_t`) at `p`: its fatbin's
/// PTX entry for the device or, for a version-2 wrapper whose fatbin holds none, the PTX of
/// each fatbin it lists, to be linked as one module.
///
/// A version-2 wrapper (`FATBINC_LINK_VERSION`) is what an `nvcc -rdc=true` program
/// registers: its fatbin is the device linker's (nvlink's) output, which holds SASS alone
/// (`code=sm_XX`) or, for `code=compute_XX` alone, no entry at all, and its second pointer
/// is a NULL-terminated array of the fatbins given to the device link (crt/link.stub's
/// `__cudaPrelinkedFatbins`): one per translation unit, with that file's PTX, plus the
/// device runtime's (libcudadevrt). NVIDIA's runtime, as nvcc's default `--cudart static`
/// links it into the program, passes the wrapper to `cuLibraryLoadData`; ptxjit's runtime
/// passes it to `cuModuleLoadData`. Listed fatbins without PTX for the device are left out
/// (their kernels cannot be launched), and so is the device runtime's PTX (CUDA 13.5's has
/// compute_121 PTX), as `cudadevrt` link inputs are: ptxjit supplies its helpers itself.
/// When no listed fatbin is left, the first one's error is returned.
///
/// # Safety
/// `p` points to a wrapper (the API's contract: a program hands over the wrapper nvcc
/// registered), whose pointers point to fatbins and, for version 2, to the array.
unsafe fn wrapper_inputs(p: *const u8, name: &str) -> Result<Vec<(String, String)>, Fail> {
    // SAFETY: a wrapper is WRAPPER_BYTES long.
    let w = unsafe { std::slice::from_raw_parts(p, fatbin::WRAPPER_BYTES) };
    let w = fatbin::Wrapper::parse(w).map_err(image_fail)?;
    // SAFETY: a valid wrapper points to a fatbin.
    let own = unsafe { fatbin_at(w.data as usize as *const u8)? };
    let list = w.filename_or_fatbins as usize as *const usize;
    let own_error = match device_ptx(own, name, false)? {
        Ok(input) => return Ok(vec![input]),
        Err(e) if w.version == 2 && !list.is_null() => e,
        Err(e) => return Err(image_fail(e)),
    };
    let (mut inputs, mut first_error) = (vec![], None);
    for i in 0.. {
        if i == MAX_PRELINKED {
            return Err(image_fail(ImageError::Invalid(format!(
                "the version-2 fatbin wrapper at {p:?} lists more than {MAX_PRELINKED} fatbins \
                 (no NULL ends its list at {list:?})"
            ))));
        }
        // SAFETY: a version-2 wrapper's list is NULL-terminated; i is before its NULL.
        let f = unsafe { list.add(i).read_unaligned() };
        if f == 0 {
            break;
        }
        // SAFETY: the list holds fatbin addresses.
        let bytes = unsafe { fatbin_at(f as *const u8)? };
        match device_ptx(bytes, &format!("{name}, linked fatbin {i}"), true)? {
            Ok((n, ptx)) if ptx.contains(DEVICE_RUNTIME_MARK) => {
                if crate::tracing() {
                    eprintln!("ptxjit: {n}: the device runtime (libcudadevrt), left out");
                }
            }
            Ok(input) => inputs.push(input),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if inputs.is_empty() {
        return Err(image_fail(first_error.unwrap_or(own_error)));
    }
    if crate::tracing() {
        eprintln!(
            "ptxjit: {name}: a version-2 fatbin wrapper (nvcc -rdc=true) whose fatbin has no \
             PTX for the device: linking {}",
            inputs
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(inputs)
}

/// What marks the device runtime's PTX among an `-rdc=true` program's linked fatbins
/// (libcudadevrt's `cuda_device_runtime.cu`, which the device link always includes): nvcc
/// names its internal functions after that file (`__nv_static_51__…_cuda_device_runtime_cu_…`).
const DEVICE_RUNTIME_MARK: &str = "_cuda_device_runtime_cu_";

/// The PTX entry of a fatbin for the device, as one input named after `name` and the entry
/// (`Ok(Ok(..))`), or why the fatbin has none that runs on the device (`Ok(Err(..))`: SASS
/// only, PTX for newer architectures only, or no entry at all). Errors: a fatbin that does
/// not parse, or whose chosen entry does not decompress or is not text. With `identify`, the
/// name also gives the entry's object name when it has one (nvcc's translation unit,
/// `cuobjdump -ptx`'s `identifier`), which tells apart the inputs of a link.
fn device_ptx(
    bytes: &[u8],
    name: &str,
    identify: bool,
) -> Result<Result<(String, String), ImageError>, Fail> {
    let (major, minor) = crate::device::compute_capability();
    let cc = (major as u32, minor as u32);
    let fatbin = fatbin::Fatbin::parse(bytes).map_err(image_fail)?;
    match fatbin.select_ptx(cc) {
        Ok(_) => {
            let (entry, ptx) = fatbin.ptx(cc).map_err(image_fail)?;
            let of = entry
                .name
                .filter(|_| identify)
                .and_then(|n| std::str::from_utf8(n).ok())
                .map(|n| n.trim_end_matches('\0'))
                .filter(|n| !n.is_empty() && !n.contains(char::is_control))
                .map(|n| format!(" of {n}"))
                .unwrap_or_default();
            // PTX for a newer architecture standing in for the SASS a GPU would run
            // (CuPy's CUB kernels): the name says so, for reports.
            let instead = fatbin
                .stand_in_for(cc)
                .map(|sass| format!(" in place of {}", sass.describe()))
                .unwrap_or_default();
            Ok(Ok((
                format!("{name} ({}{instead}{of})", entry.describe()),
                ptx,
            )))
        }
        // select_ptx reads no entry's data: every error of its own says what is missing.
        Err(e @ (ImageError::Sass(_) | ImageError::NoPtxForDevice(_) | ImageError::Invalid(_))) => {
            Ok(Err(e))
        }
    }
}

/// An image (or module file) that is neither a cubin, a fatbin nor a linked image must be
/// PTX text: bytes that are not text (not UTF-8, or a control character other than
/// whitespace) are `CUDA_ERROR_INVALID_IMAGE`, as NVIDIA's driver answers data it cannot
/// read as any image; text that fails to compile is `CUDA_ERROR_INVALID_PTX` (from the
/// load).
fn check_text(text: &str) -> Result<(), Fail> {
    let control = text
        .char_indices()
        .find(|&(_, c)| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0b' | '\x0c'));
    match control {
        Some((at, c)) => Err(image_fail(ImageError::Invalid(format!(
            "the image is neither PTX text (byte {at} is the control character {:#04x}), \
             a cubin (ELF) nor a fatbin",
            c as u32
        )))),
        None => Ok(()),
    }
}

/// Loads linked inputs as one module and returns its handle.
fn load(d: &mut Driver, inputs: &[(String, String)], logs: &JitLogs) -> Result<u64, Fail> {
    let (ptx, ptx_file) = image::link_ptx(inputs).map_err(image_fail)?;
    let file = ptx_file.name().to_string();
    let engine = d.config.engine;
    match d.host.load_module(&ptx, ptx_file, engine) {
        Ok(module) => {
            // `__managed__` variables are managed memory (prefetching and advice accept them,
            // pointer attributes report them so); they stay so after an unload, as the
            // variables stay allocated.
            for &p in &module.managed {
                if let Some(&(_, _, bytes)) = module.globals.iter().find(|g| g.1 == p) {
                    crate::memory::managed_added(d, p.0, bytes);
                }
            }
            let h = d.handle(Kind::Module);
            d.modules.insert(
                h,
                ModuleState {
                    module,
                    functions: HashMap::new(),
                },
            );
            d.own(crate::state::Owned::Module(h));
            logs.info(&format!("ptxjit: loaded {file}"));
            Ok(h)
        }
        Err(e) => {
            let f = crate::host_fail(e);
            logs.error(&f.message);
            if !crate::tracing() {
                eprintln!("ptxjit: {}", f.message);
            }
            Err(f)
        }
    }
}

fn module(d: &mut Driver, m: u64) -> Result<&mut ModuleState, Fail> {
    d.modules.get_mut(&m).ok_or_else(|| {
        Fail::new(
            CUDA_ERROR_INVALID_HANDLE,
            format!("{m:#x} is not a live CUmodule"),
        )
    })
}

unsafe fn c_str<'a>(p: *const c_char, what: &str) -> Result<&'a str, Fail> {
    if p.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("null {what}")));
    }
    // SAFETY: NUL-terminated by the API's contract.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{what} is not UTF-8")))
}

/// The function handle for kernel `name` of module `m` (the same handle for the same name).
fn function(d: &mut Driver, m: u64, name: &str) -> Result<u64, Fail> {
    if let Some(&f) = module(d, m)?.functions.get(name) {
        return Ok(f);
    }
    // The driver looks kernels up by their exact (mangled) names; ptxjit's friendlier
    // lookup only improves the message.
    let md = &module(d, m)?.module;
    let kernel = match md.kernel(name) {
        Ok(k) if k.compiled.name == name => k,
        Ok(k) => {
            return Err(Fail::new(
                CUDA_ERROR_NOT_FOUND,
                format!(
                    "no kernel named '{name}' (the driver takes the entry's name: '{}')",
                    k.compiled.name
                ),
            ))
        }
        Err(e) => return Err(crate::host_fail(e)),
    };
    let h = d.handle(Kind::Function);
    let c_name = std::ffi::CString::new(kernel.compiled.name.clone()).unwrap_or_default();
    d.functions.insert(
        h,
        FuncState {
            kernel,
            module: m,
            c_name,
            attrs: Default::default(),
        },
    );
    module(d, m)?.functions.insert(name.to_string(), h);
    Ok(h)
}

exports! { cuModuleLoadData => fn(pmod: *mut u64, img: *const c_void) {
    let inputs = unsafe { read_image(img, "cuModuleLoadData image")? };
    let h = with_context(|d| load(d, &inputs, &JitLogs::default()))?;
    unsafe { out(pmod, h) }
}}

exports! { cuModuleLoadDataEx => fn(pmod: *mut u64, img: *const c_void, n: c_uint, opts: *const c_uint, vals: *mut *mut c_void) {
    let logs = unsafe { JitLogs::parse(n, opts, vals) };
    let inputs = unsafe { read_image(img, "cuModuleLoadDataEx image") }.inspect_err(|f| logs.error(&f.message))?;
    let h = with_context(|d| load(d, &inputs, &logs))?;
    unsafe { out(pmod, h) }
}}

exports! { cuModuleLoadFatBinary => fn(pmod: *mut u64, img: *const c_void) {
    let inputs = unsafe { read_image(img, "cuModuleLoadFatBinary image")? };
    let h = with_context(|d| load(d, &inputs, &JitLogs::default()))?;
    unsafe { out(pmod, h) }
}}

/// Reads a module file (PTX text or an image) as its inputs.
fn read_file(path: &str) -> Result<Vec<(String, String)>, Fail> {
    let bytes = std::fs::read(path)
        .map_err(|e| Fail::new(CUDA_ERROR_FILE_NOT_FOUND, format!("{path}: {e}")))?;
    match image::classify(|i| bytes.get(i).copied().unwrap_or(0)) {
        ImageKind::Ptx => {
            let text = image::ptx_text(&bytes).map_err(image_fail)?;
            check_text(&text)?;
            Ok(vec![(path.to_string(), text)])
        }
        ImageKind::Linked => image::read_linked(&bytes).map_err(image_fail),
        ImageKind::Cubin => Err(image_fail(ImageError::cubin())),
        ImageKind::Fatbin => fatbin_inputs(&bytes, path),
        ImageKind::FatbinWrapper => Err(image_fail(ImageError::Invalid(format!(
            "{path} is a fatbin wrapper, which points to its fatbin in memory: a file must hold the fatbin"
        )))),
    }
}

exports! { cuModuleLoad => fn(pmod: *mut u64, fname: *const c_char) {
    let path = unsafe { c_str(fname, "file name")? };
    let inputs = read_file(path)?;
    let h = with_context(|d| load(d, &inputs, &JitLogs::default()))?;
    unsafe { out(pmod, h) }
}}

exports! { cuModuleUnload => fn(m: u64) {
    // Also with no current context (`with_owner_context`).
    crate::state::with_owner_context(crate::state::Owned::Module(m), |d| {
        d.owners.remove(&crate::state::Owned::Module(m));
        let state = d.modules.remove(&m).ok_or_else(|| Fail::new(CUDA_ERROR_INVALID_HANDLE, format!("{m:#x} is not a live CUmodule")))?;
        for f in state.functions.values() {
            d.functions.remove(f);
        }
        // The module's global variables stay allocated: a kernel launched earlier may still
        // be referenced by the program's handles until they are dropped.
        Ok(())
    })
}}

exports! { cuModuleGetFunction => fn(pf: *mut u64, m: u64, name: *const c_char) {
    let name = unsafe { c_str(name, "kernel name")? };
    let f = with_context(|d| function(d, m, name))?;
    unsafe { out(pf, f) }
}}

exports! { cuModuleGetGlobal_v2 => fn(dptr: *mut u64, bytes: *mut usize, m: u64, name: *const c_char) {
    unsafe { get_global(dptr, bytes, m, name, false) }
}}

/// The body of `cuModuleGetGlobal_v2` and the library API's `cuLibraryGetGlobal` and
/// `cuLibraryGetManaged`, which need no current context (`any_context`).
///
/// # Safety
/// `dptr` and `bytes` are null or valid for writes; `name` is null or NUL-terminated.
unsafe fn get_global(
    dptr: *mut u64,
    bytes: *mut usize,
    m: u64,
    name: *const c_char,
    any_context: bool,
) -> DrvResult {
    let name = unsafe { c_str(name, "variable name")? };
    let find = |d: &mut Driver| {
        module(d, m)?.module.global(name).ok_or_else(|| {
            Fail::new(
                CUDA_ERROR_NOT_FOUND,
                format!("no .global or .const variable '{name}' in the module"),
            )
        })
    };
    let (p, n) = if any_context {
        with_any_context(find)?
    } else {
        with_context(find)?
    };
    let p = p.0;
    if !dptr.is_null() {
        unsafe { out(dptr, p)? };
    }
    if !bytes.is_null() {
        unsafe { out(bytes, n as usize)? };
    }
    Ok(())
}

exports! { cuModuleGetLoadingMode => fn(mode: *mut c_int) {
    // CU_MODULE_LAZY_LOADING = 2: kernels compile on first use.
    unsafe { out(mode, 2) }
}}

/// `CUfunction_attribute` values.
fn function_attribute(d: &Driver, f: &FuncState, attrib: c_int) -> Result<c_int, Fail> {
    let k = &f.kernel.compiled;
    let (major, minor) = crate::device::compute_capability();
    let static_shared = k.static_shared_bytes as c_int;
    let v = match attrib {
        0 => k.max_threads.unwrap_or(1024).min(1024) as c_int,
        1 => static_shared,
        // User constant memory: the module's .const variables (ptxas counts those the
        // function uses; a module from numba or NVRTC holds one kernel's).
        2 => d
            .modules
            .get(&f.module)
            .map_or(0, |m| m.module.const_bytes.min(i32::MAX as u64) as c_int),
        3 => k.local_bytes as c_int,
        4 => 32, // registers per thread: none on a CPU; a typical count
        // CU_FUNC_ATTRIBUTE_PTX_VERSION: the virtual architecture the PTX was generated for
        // (its `.target`: nvcc's default `compute_75` gives 75, not the device's 80). CUB's
        // host-side dispatch reads it (`cudaFuncGetAttributes(...).ptxVersion`) to choose
        // the tuning policy, which must be the one its kernels were compiled with.
        5 => d
            .modules
            .get(&f.module)
            .and_then(|m| m.module.target_sm)
            .map_or(major * 10 + minor, |sm| sm.min(i32::MAX as u32) as c_int),
        // CU_FUNC_ATTRIBUTE_BINARY_VERSION: the code that runs was compiled for this device.
        6 => major * 10 + minor,
        7 => 0,
        8 => f.kernel.max_dynamic_shared_bytes() as c_int,
        9 => f.attrs.carveout,
        10 => c_int::from(k.cluster.explicit),
        11..=13 => {
            let i = (attrib - 11) as usize;
            match k.cluster.reqnctapercluster {
                Some(r) => r[i] as c_int,
                None => f.attrs.required_cluster[i] as c_int,
            }
        }
        14 => c_int::from(f.attrs.non_portable_cluster),
        15 => f.attrs.cluster_scheduling_policy,
        // CU_FUNC_ATTRIBUTE_DEVICE_NODE_UPDATE_SUPPORTED: no kernel node is updated from
        // the device here (ptxjit has no device graph launch).
        16 => 0,
        // CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE: CU_SHARED_MEMORY_MODE_DEFAULT, the only
        // mode (see `set_attribute`).
        17 => 0,
        _ => {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("unknown function attribute {attrib}"),
            ));
        }
    };
    Ok(v)
}

exports! { cuFuncGetAttribute => fn(pi: *mut c_int, attrib: c_int, f: u64) {
    let v = with_context(|d| {
        let fs = d.function(f)?;
        function_attribute(d, fs, attrib)
    })?;
    unsafe { out(pi, v) }
}}

fn set_attribute(d: &mut Driver, f: u64, attrib: c_int, value: c_int) -> DrvResult {
    let fs = d.functions.get_mut(&f).ok_or_else(|| {
        Fail::new(
            CUDA_ERROR_INVALID_HANDLE,
            format!("{f:#x} is not a live CUfunction"),
        )
    })?;
    match attrib {
        8 => {
            let static_shared = fs.kernel.compiled.static_shared_bytes as i64;
            let (optin, _) = crate::device::shared_limits();
            if value < 0 || value as i64 + static_shared > optin as i64 {
                return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{value} bytes of dynamic shared memory (+{static_shared} static) exceed the opt-in limit of {optin}")));
            }
            fs.kernel
                .set_max_dynamic_shared_bytes(value as u32)
                .map_err(crate::host_fail)
        }
        9 => {
            // CU_SHAREDMEM_CARVEOUT_DEFAULT (-1) or a percentage of the shared memory.
            if !(-1..=100).contains(&value) {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!(
                        "shared memory carveout {value}: not -1 (default) or a percentage 0..=100"
                    ),
                ));
            }
            fs.attrs.carveout = value;
            Ok(())
        }
        11..=13 => {
            let what = ["width", "height", "depth"][(attrib - 11) as usize];
            if let Some(r) = fs.kernel.compiled.cluster.reqnctapercluster {
                // The driver API: a cluster shape set at compile time cannot be set at run
                // time (CUDA_ERROR_NOT_PERMITTED).
                return Err(Fail::new(CUDA_ERROR_NOT_PERMITTED, format!("kernel {} declares .reqnctapercluster {r:?}; its required cluster {what} cannot be set at run time", ptxjit::host::kernel_name::quoted(&fs.kernel.compiled.name))));
            }
            if value < 0 {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("required cluster {what} {value}: not 0 (unset) or a number of CTAs"),
                ));
            }
            fs.attrs.required_cluster[(attrib - 11) as usize] = value as u32;
            Ok(())
        }
        14 => {
            if !(0..=1).contains(&value) {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("non-portable cluster size allowed {value}: not 0 or 1"),
                ));
            }
            fs.attrs.non_portable_cluster = value == 1;
            Ok(())
        }
        15 => {
            // CUclusterSchedulingPolicy: default, spread, load balancing.
            if !(0..=2).contains(&value) {
                return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("cluster scheduling policy {value}: not 0 (default), 1 (spread) or 2 (load balancing)")));
            }
            fs.attrs.cluster_scheduling_policy = value;
            Ok(())
        }
        17 => {
            // CUsharedMemoryMode: the default (0) is the only mode, whose limit is
            // MAX_DYNAMIC_SHARED_SIZE_BYTES (8); the portable, non-portable and oversized
            // modes (1-4) would change the launch limits and are not implemented.
            match value {
                0 => Ok(()),
                1..=4 => Err(Fail::new(
                    CUDA_ERROR_NOT_SUPPORTED,
                    format!("shared memory mode {value}: only CU_SHARED_MEMORY_MODE_DEFAULT (0) is implemented"),
                )),
                _ => Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("shared memory mode {value}: not a CUsharedMemoryMode (0..=4)"),
                )),
            }
        }
        // 0-7: properties of the compiled kernel; 10: CLUSTER_SIZE_MUST_BE_SET comes from
        // the kernel's .explicitcluster; 16 (DEVICE_NODE_UPDATE_SUPPORTED) is a property too;
        // 18 and up are no attributes.
        _ => Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("function attribute {attrib} cannot be set"),
        )),
    }
}

exports! { cuFuncSetAttribute => fn(f: u64, attrib: c_int, value: c_int) {
    with_context(|d| set_attribute(d, f, attrib, value))
}}

exports! { cuFuncSetCacheConfig => fn(f: u64, _config: c_int) {
    with_context(|d| d.function(f).map(|_| ()))
}}

exports! { cuFuncSetSharedMemConfig => fn(f: u64, _config: c_int) {
    with_context(|d| d.function(f).map(|_| ()))
}}

exports! { cuFuncGetModule => fn(pm: *mut u64, f: u64) {
    let m = with_context(|d| d.function(f).map(|fs| fs.module))?;
    unsafe { out(pm, m) }
}}

exports! { cuFuncGetName, cuKernelGetName => fn(name: *mut *const c_char, f: u64) {
    let p = with_context(|d| d.function(f).map(|fs| fs.c_name.as_ptr()))?;
    unsafe { out(name, p) }
}}

exports! { cuFuncGetParamCount, cuKernelGetParamCount => fn(f: u64, count: *mut usize) {
    let n = with_context(|d| Ok(d.function(f)?.kernel.compiled.params.len()))?;
    unsafe { out(count, n) }
}}

// The offset and size of a `.param` entry of the kernel's PTX signature in the parameter
// buffer, as laid out for launches (each entry at its alignment).
exports! { cuFuncGetParamInfo, cuKernelGetParamInfo => fn(f: u64, index: usize, offset: *mut usize, size: *mut usize) {
    if offset.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null paramOffset"));
    }
    let (o, n) = with_context(|d| {
        let params = &d.function(f)?.kernel.compiled.params;
        params.get(index).map(|p| (p.offset as usize, p.size as usize)).ok_or_else(|| {
            Fail::new(CUDA_ERROR_INVALID_VALUE, format!("parameter index {index}: the kernel has {} parameters", params.len()))
        })
    })?;
    unsafe { out(offset, o)? };
    if !size.is_null() {
        // SAFETY: non-null, a size_t by the API's contract.
        unsafe { size.write_unaligned(n) };
    }
    Ok(())
}}

exports! { cuFuncIsLoaded => fn(state: *mut c_int, f: u64) {
    with_context(|d| d.function(f).map(|_| ()))?;
    // CU_FUNCTION_LOADING_STATE_LOADED = 1
    unsafe { out(state, 1) }
}}

exports! { cuFuncLoad => fn(f: u64) {
    with_context(|d| d.function(f).map(|_| ()))
}}

// ---- Libraries (a CUlibrary is a CUmodule; a CUkernel is a CUfunction).

/// Loads a library: a module that belongs to no context, as CUDA's context-independent
/// loading has it, so resetting or destroying the context that was current leaves it loaded
/// (NVIDIA's runtime keeps its kernel handles across `cudaDeviceReset`).
fn load_library(d: &mut Driver, inputs: &[(String, String)], logs: &JitLogs) -> Result<u64, Fail> {
    let h = load(d, inputs, logs)?;
    d.owners.remove(&crate::state::Owned::Module(h));
    Ok(h)
}

exports! { cuLibraryLoadData => fn(plib: *mut u64, code: *const c_void, jit_opts: *const c_uint, jit_vals: *mut *mut c_void, n_jit: c_uint, _lib_opts: *const c_uint, _lib_vals: *mut *mut c_void, _n_lib: c_uint) {
    let logs = unsafe { JitLogs::parse(n_jit, jit_opts, jit_vals) };
    let inputs = unsafe { read_image(code, "cuLibraryLoadData image") }.inspect_err(|f| logs.error(&f.message))?;
    let h = with_any_context(|d| load_library(d, &inputs, &logs))?;
    unsafe { out(plib, h) }
}}

exports! { cuLibraryLoadFromFile => fn(plib: *mut u64, fname: *const c_char, _jo: *const c_uint, _jv: *mut *mut c_void, _nj: c_uint, _lo: *const c_uint, _lv: *mut *mut c_void, _nl: c_uint) {
    let path = unsafe { c_str(fname, "file name")? };
    let inputs = read_file(path)?;
    let h = with_any_context(|d| load_library(d, &inputs, &JitLogs::default()))?;
    unsafe { out(plib, h) }
}}

exports! { cuLibraryUnload => fn(lib: u64) {
    with_any_context(|d| {
        d.owners.remove(&crate::state::Owned::Module(lib));
        let state = d.modules.remove(&lib).ok_or_else(|| Fail::new(CUDA_ERROR_INVALID_HANDLE, format!("{lib:#x} is not a live CUlibrary")))?;
        for f in state.functions.values() {
            d.functions.remove(f);
        }
        Ok(())
    })
}}

exports! { cuLibraryGetKernel => fn(pk: *mut u64, lib: u64, name: *const c_char) {
    let name = unsafe { c_str(name, "kernel name")? };
    let f = with_any_context(|d| function(d, lib, name))?;
    unsafe { out(pk, f) }
}}

exports! { cuLibraryGetModule => fn(pm: *mut u64, lib: u64) {
    with_any_context(|d| module(d, lib).map(|_| ()))?;
    unsafe { out(pm, lib) }
}}

exports! { cuKernelGetFunction => fn(pf: *mut u64, k: u64) {
    with_any_context(|d| d.function(k).map(|_| ()))?;
    unsafe { out(pf, k) }
}}

exports! { cuKernelGetLibrary => fn(plib: *mut u64, k: u64) {
    let m = with_any_context(|d| d.function(k).map(|fs| fs.module))?;
    unsafe { out(plib, m) }
}}

exports! { cuLibraryGetGlobal => fn(dptr: *mut u64, bytes: *mut usize, lib: u64, name: *const c_char) {
    unsafe { get_global(dptr, bytes, lib, name, true) }
}}

// A `__managed__` variable's address: device pointers are host addresses of one reserved
// range, so the global's device address is the one the host reads and writes. A variable
// that is not `.attribute(.managed)` is no managed memory: CUDA_ERROR_NOT_FOUND, as for a
// name the library lacks.
exports! { cuLibraryGetManaged => fn(dptr: *mut u64, bytes: *mut usize, lib: u64, name: *const c_char) {
    let (mut p, mut n) = (0u64, 0usize);
    unsafe { get_global(&mut p, &mut n, lib, name, true)? };
    let managed = with_any_context(|d| Ok(d.managed.get(&p) == Some(&(n as u64))))?;
    if !managed {
        // SAFETY: get_global read the name already.
        let name = unsafe { c_str(name, "variable name")? };
        return Err(Fail::new(
            CUDA_ERROR_NOT_FOUND,
            format!("'{name}' is not a __managed__ (.attribute(.managed)) variable"),
        ));
    }
    if !dptr.is_null() {
        unsafe { out(dptr, p)? };
    }
    if !bytes.is_null() {
        unsafe { out(bytes, n)? };
    }
    Ok(())
}}

exports! { cuLibraryGetKernelCount, cuModuleGetFunctionCount => fn(count: *mut c_uint, lib: u64) {
    let n = with_any_context(|d| Ok(module(d, lib)?.module.kernels.len() as c_uint))?;
    unsafe { out(count, n) }
}}

exports! { cuLibraryEnumerateKernels, cuModuleEnumerateFunctions => fn(kernels: *mut u64, n: c_uint, lib: u64) {
    if kernels.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null kernel array"));
    }
    with_any_context(|d| {
        let names: Vec<String> = module(d, lib)?.module.kernels.iter().map(|k| k.name.clone()).collect();
        for (i, name) in names.iter().take(n as usize).enumerate() {
            let f = function(d, lib, name)?;
            // SAFETY: an array of n entries by the API's contract.
            unsafe { kernels.add(i).write(f) };
        }
        Ok(())
    })
}}

exports! { cuKernelGetAttribute => fn(pi: *mut c_int, attrib: c_int, k: u64, _dev: c_int) {
    let v = with_any_context(|d| {
        let fs = d.function(k)?;
        function_attribute(d, fs, attrib)
    })?;
    unsafe { out(pi, v) }
}}

exports! { cuKernelSetAttribute => fn(attrib: c_int, value: c_int, k: u64, _dev: c_int) {
    with_any_context(|d| set_attribute(d, k, attrib, value))
}}

exports! { cuKernelSetCacheConfig => fn(k: u64, _config: c_int, _dev: c_int) {
    with_any_context(|d| d.function(k).map(|_| ()))
}}

// ---- The linker: PTX inputs in, a linked image out.

exports! { cuLinkCreate_v2 => fn(n: c_uint, opts: *const c_uint, vals: *mut *mut c_void, pstate: *mut u64) {
    let logs = unsafe { JitLogs::parse(n, opts, vals) };
    let h = with_context(|d| {
        let h = d.handle(Kind::Link);
        d.links.insert(h, LinkState { inputs: vec![], image: None, logs });
        Ok(h)
    })?;
    unsafe { out(pstate, h) }
}}

fn add_input(d: &mut Driver, state: u64, kind: c_uint, data: &[u8], name: &str) -> DrvResult {
    let link = d.links.get_mut(&state).ok_or_else(|| {
        Fail::new(
            CUDA_ERROR_INVALID_HANDLE,
            format!("{state:#x} is not a live CUlinkState"),
        )
    })?;
    let result = match kind {
        INPUT_PTX => image::ptx_text(data)
            .map(|t| link.inputs.push((name.to_string(), t)))
            .map_err(image_fail),
        INPUT_LIBRARY | INPUT_OBJECT if name.contains("cudadevrt") => {
            // The device runtime's helpers are supplied by ptxjit itself.
            Ok(())
        }
        INPUT_CUBIN => Err(image_fail(ImageError::cubin())),
        INPUT_FATBINARY => fatbin_inputs(data, name).map(|inputs| link.inputs.extend(inputs)),
        other => Err(Fail::new(
            CUDA_ERROR_NOT_SUPPORTED,
            format!("{name}: link input type {other} is not supported by ptxjit (PTX inputs are)"),
        )),
    };
    if let Err(f) = &result {
        link.logs.error(&f.message);
    }
    result
}

exports! { cuLinkAddData_v2 => fn(state: u64, kind: c_uint, data: *mut c_void, size: usize, name: *const c_char, _n: c_uint, _o: *const c_uint, _v: *mut *mut c_void) {
    if data.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null link input"));
    }
    let name = if name.is_null() { "<link input>" } else { unsafe { c_str(name, "input name")? } };
    let p = data.cast::<u8>().cast_const();
    // SAFETY: classify reads a byte only while the earlier ones matched a magic.
    let wrapper = image::classify(|i| unsafe { *p.add(i) }) == ImageKind::FatbinWrapper;
    let bytes = if kind == INPUT_FATBINARY && (size == 0 || wrapper) {
        // Only a pointer: the fatbin's size comes from its header.
        // SAFETY: a fatbin input points to a fatbin or its wrapper (the API's contract).
        unsafe { fatbin_at(p)? }
    } else {
        // SAFETY: `size` bytes by the API's contract.
        unsafe { std::slice::from_raw_parts(p, size) }
    };
    // PTX handed over from memory (numba's `<cudapy-ptx>`) is written out under
    // PTXJIT_DUMP_PTX and named by its file.
    if kind == INPUT_PTX {
        if let Ok(text) = image::ptx_text(bytes) {
            if let Some((named, _)) = dump_ptx(vec![(name.to_string(), text)]).pop() {
                return with_context(|d| add_input(d, state, kind, bytes, &named));
            }
        }
    }
    with_context(|d| add_input(d, state, kind, bytes, name))
}}

/// Names of PTX texts loaded from memory and not written out (`PTXJIT_DUMP_PTX`): no file
/// has them ([`in_memory`]).
static IN_MEMORY: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Remembers that the PTX text named `name` was loaded from memory.
fn note_in_memory(name: &str) {
    if let Ok(mut names) = IN_MEMORY.lock() {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    }
}

/// Whether reports name a PTX text `name` that no file holds: one loaded from memory
/// (`cuModuleLoadData image (compute_80 PTX)`, numba's `<cudapy-ptx>`) and not written out.
pub fn in_memory(name: &str) -> bool {
    IN_MEMORY
        .lock()
        .is_ok_and(|names| names.iter().any(|n| n == name))
}

exports! { cuLinkAddFile_v2 => fn(state: u64, kind: c_uint, path: *const c_char, _n: c_uint, _o: *const c_uint, _v: *mut *mut c_void) {
    let path = unsafe { c_str(path, "file name")? };
    if kind == INPUT_LIBRARY && path.contains("cudadevrt") {
        return with_context(|d| add_input(d, state, kind, &[], path));
    }
    let bytes = std::fs::read(path).map_err(|e| Fail::new(CUDA_ERROR_FILE_NOT_FOUND, format!("{path}: {e}")))?;
    with_context(|d| add_input(d, state, kind, &bytes, path))
}}

exports! { cuLinkComplete => fn(state: u64, cubin: *mut *mut c_void, size: *mut usize) {
    let (p, n) = with_context(|d| {
        let link = d.links.get_mut(&state).ok_or_else(|| Fail::new(CUDA_ERROR_INVALID_HANDLE, format!("{state:#x} is not a live CUlinkState")))?;
        if link.inputs.is_empty() {
            let f = Fail::new(CUDA_ERROR_INVALID_VALUE, "nothing to link: no PTX input was added");
            link.logs.error(&f.message);
            return Err(f);
        }
        let img = image::link_image(&link.inputs);
        link.logs.info(&format!("ptxjit: linked {} PTX inputs", link.inputs.len()));
        let img = link.image.insert(img);
        Ok((img.as_mut_ptr(), img.len()))
    })?;
    unsafe {
        out(cubin, p.cast::<c_void>())?;
        if !size.is_null() {
            out(size, n)?;
        }
    }
    Ok(())
}}

exports! { cuLinkDestroy => fn(state: u64) {
    with_context(|d| match d.links.remove(&state) {
        Some(_) => Ok(()),
        None => Err(Fail::new(CUDA_ERROR_INVALID_HANDLE, format!("{state:#x} is not a live CUlinkState"))),
    })
}}

/// A `CUresult` as a [`DrvResult`](crate::DrvResult), for calls that forward to another entry.
pub trait Check {
    fn check(self) -> DrvResult;
}

impl Check for CUresult {
    fn check(self) -> DrvResult {
        if self == CUDA_SUCCESS {
            Ok(())
        } else {
            Err(Fail::new(self, String::new()))
        }
    }
}
