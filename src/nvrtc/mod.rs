//! CUDA C++ to PTX with NVIDIA's runtime compiler, NVRTC, loaded at run time (never linked:
//! ptxjit builds and runs without it).
//!
//! NVRTC and the CUDA headers come from pip wheels:
//! ```text
//! python3 -m pip install nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12 nvidia-cuda-cccl-cu12
//! ```
//! | wheel | gives | where, under a site-packages directory |
//! |---|---|---|
//! | `nvidia-cuda-nvrtc-cu12` | `libnvrtc.so.12` (and its builtin headers: `assert`, `cuda_fp16.h`'s types, `std::` type traits) | `nvidia/cuda_nvrtc/lib/` |
//! | `nvidia-cuda-runtime-cu12` | the CUDA runtime headers: `cooperative_groups.h`, `cuda_fp16.h`, `cuda_bf16.h`, `cuda_pipeline.h`, `mma.h` … | `nvidia/cuda_runtime/include/` |
//! | `nvidia-cuda-cccl-cu12` | CUB, Thrust, libcu++ (`cub/`, `thrust/`, `cuda/std/`, `nv/target`, which `cooperative_groups.h` needs too) | `nvidia/cuda_cccl/include/` |
//! | `nvidia-cuda-nvcc-cu12` (optional) | the `crt/` headers that `mma.h` (WMMA) includes | `nvidia/cuda_nvcc/include/` |
//!
//! [`locate`] finds them: `PTXJIT_NVRTC=/path/to/libnvrtc.so.12` if set, otherwise the first
//! site-packages directory holding `nvidia/cuda_nvrtc/lib/libnvrtc.so.12`, searched in the
//! active virtual environment (`$VIRTUAL_ENV`) and then in `python3`'s `sys.path`. The header
//! directories are looked up the same way (beside the library first).
//!
//! [`Nvrtc::compile`] runs one compilation; [`compile_file`] compiles a `.cu` file with the
//! options of [`CompileOptions`]; [`cache::compile_cached`] does the same through the PTX
//! cache; [`read_ptx`] is what case files and `ptxjit run --ptx` use to read a module (PTX as
//! is, `.cu` compiled and cached). Compilation errors carry NVRTC's log with `file:line:`
//! locations.

pub mod cache;
mod headers;

use std::ffi::{c_char, c_int, CStr, CString};
use std::path::{Path, PathBuf};

pub use cache::{cache_dir, compile_cached, CachedPtx};

/// The pip command that installs NVRTC and the CUDA headers ptxjit puts on its include path.
pub const PIP_INSTALL: &str =
    "python3 -m pip install nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12 nvidia-cuda-cccl-cu12";

/// The environment variable naming the NVRTC library to load (`/path/to/libnvrtc.so.12`).
pub const NVRTC_ENV: &str = "PTXJIT_NVRTC";

/// Why a compilation did not give PTX.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NvrtcError {
    /// `libnvrtc.so.12` could not be found or loaded; the message says where ptxjit looked and
    /// gives the pip command ([`PIP_INSTALL`]).
    #[error("{0}")]
    NotFound(String),
    /// An NVRTC call failed: the function and NVRTC's own message.
    #[error("NVRTC {call} failed: {message}")]
    Api { call: &'static str, message: String },
    /// The source did not compile: `file: NVRTC compilation failed:` and NVRTC's log, its
    /// locations written `file:line:`.
    #[error("{0}")]
    Compile(String),
    /// A file (the source, the output, a cache entry) could not be read or written.
    #[error("{0}")]
    Io(String),
    /// A bad option (`--arch sm_80` instead of a virtual architecture).
    #[error("{0}")]
    Option(String),
}

/// Where NVRTC and the CUDA headers are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// `libnvrtc.so.12`.
    pub library: PathBuf,
    /// The header directories of the CUDA wheels found, searched in this order after the
    /// user's `-I` directories: `nvidia/cuda_cccl/include`, `nvidia/cuda_runtime/include`,
    /// `nvidia/cuda_nvcc/include` (each where its wheel is installed).
    pub include_dirs: Vec<PathBuf>,
}

/// The wheels' header directories, in search order, relative to a site-packages directory,
/// and the wheel that ships each.
const HEADER_DIRS: [(&str, &str); 3] = [
    ("nvidia/cuda_cccl/include", "nvidia-cuda-cccl-cu12"),
    ("nvidia/cuda_runtime/include", "nvidia-cuda-runtime-cu12"),
    ("nvidia/cuda_nvcc/include", "nvidia-cuda-nvcc-cu12"),
];

const LIBRARY_DIR: &str = "nvidia/cuda_nvrtc/lib";
const LIBRARY_NAME: &str = "libnvrtc.so.12";

/// Find NVRTC and the CUDA headers (see the module docs for the search order).
/// Errors: [`NvrtcError::NotFound`] naming the places searched and the pip command.
pub fn locate() -> Result<Location, NvrtcError> {
    let from_env = std::env::var_os(NVRTC_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    locate_in(from_env.as_deref(), &site_packages())
}

/// [`locate`] with the value of `PTXJIT_NVRTC` and the site-packages directories given.
fn locate_in(from_env: Option<&Path>, sites: &[PathBuf]) -> Result<Location, NvrtcError> {
    let library = match from_env {
        Some(p) => {
            if !p.is_file() {
                return Err(NvrtcError::NotFound(format!(
                    "{NVRTC_ENV}={}: no such file. Point it at libnvrtc.so.12, or unset it and \
                     install NVRTC into the active Python environment: {PIP_INSTALL}",
                    p.display()
                )));
            }
            p.to_path_buf()
        }
        None => sites
            .iter()
            .map(|s| s.join(LIBRARY_DIR).join(LIBRARY_NAME))
            .find(|p| p.is_file())
            .ok_or_else(|| {
                let searched = if sites.is_empty() {
                    "no Python environment found: neither $VIRTUAL_ENV nor `python3` on PATH"
                        .to_string()
                } else {
                    format!(
                        "searched {} in: {}",
                        Path::new(LIBRARY_DIR).join(LIBRARY_NAME).display(),
                        sites
                            .iter()
                            .map(|s| s.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                NvrtcError::NotFound(format!(
                    "NVRTC (libnvrtc.so.12) not found ({searched}). Install it and the CUDA \
                     headers into the active Python environment: {PIP_INSTALL} \
                     (or set {NVRTC_ENV}=/path/to/libnvrtc.so.12)"
                ))
            })?,
    };
    // The site-packages directory the library is in (…/nvidia/cuda_nvrtc/lib/libnvrtc.so.12),
    // if it is a wheel's, is searched for headers first.
    let own_site = library
        .ancestors()
        .nth(4)
        .filter(|s| s.join("nvidia").is_dir())
        .map(Path::to_path_buf);
    let include_dirs = HEADER_DIRS
        .iter()
        .filter_map(|(dir, _)| {
            own_site
                .iter()
                .chain(sites)
                .map(|s| s.join(dir))
                .find(|d| d.is_dir())
        })
        .collect();
    Ok(Location {
        library,
        include_dirs,
    })
}

/// Site-packages directories of the active Python environment: `$VIRTUAL_ENV`'s, then
/// `python3`'s `sys.path` entries (none if `python3` cannot be run).
fn site_packages() -> Vec<PathBuf> {
    let mut sites = vec![];
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV").filter(|v| !v.is_empty()) {
        let lib = Path::new(&venv).join("lib");
        if let Ok(entries) = std::fs::read_dir(&lib) {
            let mut pythons: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("python"))
                })
                .map(|p| p.join("site-packages"))
                .filter(|p| p.is_dir())
                .collect();
            pythons.sort();
            sites.extend(pythons);
        }
    }
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys; print('\\n'.join(p for p in sys.path if p))",
        ])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    if let Some(out) = out.ok().filter(|o| o.status.success()) {
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let p = PathBuf::from(line.trim());
            if p.is_dir() && !sites.contains(&p) {
                sites.push(p);
            }
        }
    }
    sites
}

/// `nvrtcProgram`.
type Program = *mut std::ffi::c_void;
/// `nvrtcResult`: 0 is `NVRTC_SUCCESS`.
type NvrtcResult = c_int;

/// The NVRTC functions ptxjit calls (CUDA NVRTC API, `nvrtc.h`).
struct Api {
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> NvrtcResult,
    get_error_string: unsafe extern "C" fn(NvrtcResult) -> *const c_char,
    create_program: unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> NvrtcResult,
    compile_program: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> NvrtcResult,
    get_program_log_size: unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult,
    get_program_log: unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult,
    get_ptx_size: unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult,
    get_ptx: unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult,
    destroy_program: unsafe extern "C" fn(*mut Program) -> NvrtcResult,
}

/// A loaded NVRTC library and where its headers are.
pub struct Nvrtc {
    api: Api,
    /// Keeps the functions of `api` mapped; declared after it so it is dropped last.
    _library: libloading::Library,
    /// Where the library and the headers were found.
    pub location: Location,
    /// NVRTC's version, `(major, minor)` (`nvrtcVersion`).
    pub version: (i32, i32),
}

/// A successful compilation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    pub ptx: String,
    /// NVRTC's log (warnings), `file:line:` locations; empty when there is nothing to say.
    pub log: String,
}

impl Nvrtc {
    /// Find ([`locate`]) and load NVRTC. Errors: [`NvrtcError::NotFound`] (with the pip
    /// command) when it is missing or does not load.
    pub fn load() -> Result<Nvrtc, NvrtcError> {
        Nvrtc::load_from(locate()?)
    }

    /// Load the NVRTC library at `location`.
    pub fn load_from(location: Location) -> Result<Nvrtc, NvrtcError> {
        let path = &location.library;
        let not_loaded = |e: libloading::Error| {
            NvrtcError::NotFound(format!(
                "cannot load NVRTC from {}: {e}. Reinstall it: {PIP_INSTALL} (or set \
                 {NVRTC_ENV}=/path/to/libnvrtc.so.12)",
                path.display()
            ))
        };
        // SAFETY: loading NVRTC runs its initialisers, which only set up the library itself.
        let library = unsafe { libloading::Library::new(path) }.map_err(not_loaded)?;
        // SAFETY: each symbol is read with the signature `nvrtc.h` declares for it (CUDA 12);
        // the copied function pointers are used only while `library` stays loaded (it is a
        // field of the same `Nvrtc`, dropped after `api`).
        let api = unsafe {
            Api {
                version: *library.get(b"nvrtcVersion\0").map_err(not_loaded)?,
                get_error_string: *library.get(b"nvrtcGetErrorString\0").map_err(not_loaded)?,
                create_program: *library.get(b"nvrtcCreateProgram\0").map_err(not_loaded)?,
                compile_program: *library.get(b"nvrtcCompileProgram\0").map_err(not_loaded)?,
                get_program_log_size: *library
                    .get(b"nvrtcGetProgramLogSize\0")
                    .map_err(not_loaded)?,
                get_program_log: *library.get(b"nvrtcGetProgramLog\0").map_err(not_loaded)?,
                get_ptx_size: *library.get(b"nvrtcGetPTXSize\0").map_err(not_loaded)?,
                get_ptx: *library.get(b"nvrtcGetPTX\0").map_err(not_loaded)?,
                destroy_program: *library.get(b"nvrtcDestroyProgram\0").map_err(not_loaded)?,
            }
        };
        let mut nvrtc = Nvrtc {
            api,
            _library: library,
            location,
            version: (0, 0),
        };
        let (mut major, mut minor) = (0, 0);
        // SAFETY: nvrtcVersion writes two ints through valid pointers.
        let rc = unsafe { (nvrtc.api.version)(&mut major, &mut minor) };
        nvrtc.check(rc, "nvrtcVersion")?;
        nvrtc.version = (major, minor);
        Ok(nvrtc)
    }

    fn check(&self, rc: NvrtcResult, call: &'static str) -> Result<(), NvrtcError> {
        if rc == 0 {
            return Ok(());
        }
        // SAFETY: nvrtcGetErrorString returns a static NUL-terminated string for any code.
        let s = unsafe { (self.api.get_error_string)(rc) };
        let message = if s.is_null() {
            format!("error {rc}")
        } else {
            // SAFETY: non-null, NUL-terminated and static (see above).
            unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
        };
        Err(NvrtcError::Api { call, message })
    }

    /// The NVRTC options for `o` (NVRTC option syntax): the architecture, `-default-device`,
    /// `--std=c++17` (unless `o.extra` gives a standard), `-lineinfo` if asked, `-D`s, the user's
    /// `-I`s, the source's own directory, the wheels' header directories, then `o.extra`.
    pub fn options(&self, source: &Path, o: &CompileOptions) -> Result<Vec<String>, NvrtcError> {
        let arch = &o.arch;
        let digits = arch.strip_prefix("compute_").unwrap_or("");
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(NvrtcError::Option(format!(
                "--arch {arch}: expected a virtual architecture such as compute_80 \
                 (ptxjit runs PTX, so an sm_XY real architecture is not what it needs)"
            )));
        }
        let mut opts = vec![
            format!("--gpu-architecture={arch}"),
            "-default-device".into(),
        ];
        let gives_std = o
            .extra
            .iter()
            .any(|x| x.starts_with("--std") || x.starts_with("-std"));
        if !gives_std {
            opts.push("--std=c++17".into());
        }
        if o.lineinfo {
            opts.push("-lineinfo".into());
        }
        for d in &o.defines {
            if d.is_empty() || d.starts_with('=') {
                return Err(NvrtcError::Option(format!(
                    "-D '{d}': expected NAME or NAME=VALUE"
                )));
            }
            opts.push(format!("-D{d}"));
        }
        let own_dir = match source.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        for dir in o
            .include_dirs
            .iter()
            .chain(std::iter::once(&own_dir))
            .chain(&self.location.include_dirs)
        {
            opts.push(format!("-I{}", dir.display()));
        }
        opts.extend(o.extra.iter().cloned());
        Ok(opts)
    }

    /// Compile CUDA C++ `source` to PTX. `name` is the program's name (what `__FILE__` and the
    /// log's locations say). Errors: [`NvrtcError::Compile`] with the log (locations rewritten
    /// `name:line:`), [`NvrtcError::Api`] for failures of NVRTC itself.
    pub fn compile(
        &self,
        source: &str,
        name: &str,
        options: &[String],
    ) -> Result<Compiled, NvrtcError> {
        let nul = |what: &str| {
            NvrtcError::Option(format!(
                "{what} contains a NUL byte, which NVRTC cannot take"
            ))
        };
        let c_source = CString::new(source).map_err(|_| nul("the source"))?;
        let c_name = CString::new(name).map_err(|_| nul("the file name"))?;
        let c_opts = options
            .iter()
            .map(|o| CString::new(o.as_str()).map_err(|_| nul(&format!("option '{o}'"))))
            .collect::<Result<Vec<_>, _>>()?;
        let opt_ptrs: Vec<*const c_char> = c_opts.iter().map(|c| c.as_ptr()).collect();
        let headers: Vec<(CString, CString)> = headers::MEMORY_HEADERS
            .iter()
            .map(|(n, t)| {
                (
                    CString::new(*t).expect("no NUL in a constant"),
                    CString::new(*n).expect("no NUL in a constant"),
                )
            })
            .collect();
        let header_texts: Vec<*const c_char> = headers.iter().map(|(t, _)| t.as_ptr()).collect();
        let header_names: Vec<*const c_char> = headers.iter().map(|(_, n)| n.as_ptr()).collect();
        let mut prog: Program = std::ptr::null_mut();
        // SAFETY: every pointer is to a live NUL-terminated string; the arrays hold
        // `headers.len()` entries each; NVRTC copies what it keeps.
        let rc = unsafe {
            (self.api.create_program)(
                &mut prog,
                c_source.as_ptr(),
                c_name.as_ptr(),
                headers.len() as c_int,
                header_texts.as_ptr(),
                header_names.as_ptr(),
            )
        };
        self.check(rc, "nvrtcCreateProgram")?;
        let result = self.compile_program(prog, &opt_ptrs, name);
        // SAFETY: `prog` was created above and is destroyed once.
        let rc = unsafe { (self.api.destroy_program)(&mut prog) };
        let compiled = result?;
        self.check(rc, "nvrtcDestroyProgram")?;
        Ok(compiled)
    }

    fn compile_program(
        &self,
        prog: Program,
        opts: &[*const c_char],
        name: &str,
    ) -> Result<Compiled, NvrtcError> {
        // SAFETY: `prog` is live; `opts` holds `opts.len()` live NUL-terminated strings.
        let rc = unsafe { (self.api.compile_program)(prog, opts.len() as c_int, opts.as_ptr()) };
        let mut size = 0usize;
        // SAFETY: `prog` is live; NVRTC writes the log's size (with its NUL) to `size`.
        self.check(
            unsafe { (self.api.get_program_log_size)(prog, &mut size) },
            "nvrtcGetProgramLogSize",
        )?;
        let mut log = vec![0u8; size.max(1)];
        // SAFETY: `log` has room for the `size` bytes NVRTC writes.
        self.check(
            unsafe { (self.api.get_program_log)(prog, log.as_mut_ptr().cast()) },
            "nvrtcGetProgramLog",
        )?;
        let log = render_log(&c_bytes_to_string(&log));
        if rc != 0 {
            // NVRTC_ERROR_COMPILATION is 6; other codes (bad option …) have a log too, or
            // only their own message.
            let why = if log.trim().is_empty() {
                self.check(rc, "nvrtcCompileProgram")
                    .err()
                    .map(|e| e.to_string())
                    .unwrap_or_default()
            } else {
                log
            };
            return Err(NvrtcError::Compile(format!(
                "{name}: NVRTC compilation failed:\n{}{}",
                why.trim_end(),
                self.missing_header_hint(&why)
            )));
        }
        // SAFETY: as above, for the PTX.
        self.check(
            unsafe { (self.api.get_ptx_size)(prog, &mut size) },
            "nvrtcGetPTXSize",
        )?;
        let mut ptx = vec![0u8; size.max(1)];
        // SAFETY: `ptx` has room for the `size` bytes NVRTC writes.
        self.check(
            unsafe { (self.api.get_ptx)(prog, ptx.as_mut_ptr().cast()) },
            "nvrtcGetPTX",
        )?;
        Ok(Compiled {
            ptx: c_bytes_to_string(&ptx),
            log,
        })
    }

    /// When a log says a header could not be opened and a wheel's header directory was not
    /// found, which wheel to install.
    fn missing_header_hint(&self, log: &str) -> String {
        if !log.contains("cannot open source file") && !log.contains("could not open source file") {
            return String::new();
        }
        let missing: Vec<&str> = HEADER_DIRS
            .iter()
            .filter(|(dir, _)| !self.location.include_dirs.iter().any(|d| d.ends_with(dir)))
            .map(|(_, wheel)| *wheel)
            .collect();
        if missing.is_empty() {
            return String::new();
        }
        format!(
            "\nnote: the CUDA headers of {} were not found beside NVRTC or in the Python \
             environment: python3 -m pip install {}",
            missing.join(" and "),
            missing.join(" ")
        )
    }
}

/// The text before the first NUL.
fn c_bytes_to_string(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// NVRTC writes locations `file(line): error: …`; write them `file:line: error: …`, as the
/// rest of ptxjit (and nvcc with gcc-style diagnostics) does.
fn render_log(log: &str) -> String {
    let mut out = String::with_capacity(log.len());
    for line in log.split_inclusive('\n') {
        out.push_str(&relocate(line).unwrap_or_else(|| line.to_string()));
    }
    out
}

/// `file(123): rest` → `file:123: rest`; `None` for other lines.
fn relocate(line: &str) -> Option<String> {
    let (head, rest) = line.split_once("): ")?;
    let open = head.rfind('(')?;
    let (file, num) = (&head[..open], &head[open + 1..]);
    if file.is_empty() || file.starts_with(' ') || file.ends_with(' ') || num.is_empty() {
        return None;
    }
    if !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(format!("{file}:{num}: {rest}"))
}

/// Options of one compilation (`ptxjit compile`'s flags).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// The virtual architecture, `compute_XY` (default `compute_80`).
    pub arch: String,
    /// Emit `.file`/`.loc` line information (`-lineinfo`).
    pub lineinfo: bool,
    /// `-I` directories, searched before the source's own directory and the wheels' headers.
    pub include_dirs: Vec<PathBuf>,
    /// `-D` macros: `NAME` or `NAME=VALUE`.
    pub defines: Vec<String>,
    /// Further NVRTC options, passed as they are, last.
    pub extra: Vec<String>,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            arch: "compute_80".into(),
            lineinfo: false,
            include_dirs: vec![],
            defines: vec![],
            extra: vec![],
        }
    }
}

/// The program name NVRTC gets for `path`: its file name, so the PTX (and `__FILE__`) does
/// not depend on where the file is.
pub fn program_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Read and compile the `.cu` file at `path`. The log's locations in the file name the file
/// by `path` as given. Errors: [`NvrtcError::Io`] (cannot read), or those of
/// [`Nvrtc::options`] and [`Nvrtc::compile`].
pub fn compile_file(
    nvrtc: &Nvrtc,
    path: &Path,
    o: &CompileOptions,
) -> Result<Compiled, NvrtcError> {
    let source = read_source(path)?;
    let options = nvrtc.options(path, o)?;
    compile_source(nvrtc, path, &source, &options)
}

/// Compile `source`, the text of the file at `path`, with the NVRTC `options`
/// ([`Nvrtc::options`]); the log names the file by `path` as given.
/// The note for a program with host code that NVRTC cannot compile.
const HOST_CODE_NOTE: &str = "\nnote: NVRTC compiles device code only (no host C++ standard \
     library, no main): build a program with host code with nvcc (`nvcc -arch=compute_80 \
     --cudart shared -o app app.cu`) and run it with `ptxjit exec -- ./app`";

/// Whether a failed NVRTC compilation of `source` (its log `log`) is that of a program with
/// host code: it defines `main`, or NVRTC found no header of the C or C++ standard library it
/// includes (`cannot open source file "cstring"`, `"stdio.h"`).
fn has_host_code(log: &str, source: &str) -> bool {
    const C_HEADERS: [&str; 8] = [
        "stdio.h", "stdlib.h", "string.h", "assert.h", "time.h", "unistd.h", "math.h", "ctype.h",
    ];
    let missing_std = log.split("cannot open source file \"").skip(1).any(|rest| {
        let header = rest.split('"').next().unwrap_or_default();
        C_HEADERS.contains(&header)
            || (!header.is_empty() && header.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
    });
    let defines_main = source.lines().any(|l| {
        let l = l.trim_start();
        (l.starts_with("int main(") || l.starts_with("int main (")) && !l.ends_with(';')
    });
    missing_std || defines_main
}

fn compile_source(
    nvrtc: &Nvrtc,
    path: &Path,
    source: &str,
    options: &[String],
) -> Result<Compiled, NvrtcError> {
    let name = program_name(path);
    let shown = path.display().to_string();
    let rename = |s: String| name_log(&s, &name, &shown);
    match nvrtc.compile(source, &name, options) {
        Ok(c) => Ok(Compiled {
            ptx: c.ptx,
            log: rename(c.log),
        }),
        Err(NvrtcError::Compile(log)) => {
            let umbrella = cache::includes(source)
                .iter()
                .any(|(_, h)| h == "cub/cub.cuh");
            let note = if umbrella {
                "\nnote: <cub/cub.cuh> includes CUB's device-wide algorithms, which are host code \
                 NVRTC cannot compile (CCCL supports only CUB's block and warp primitives under \
                 NVRTC): include the headers of the primitives used instead, such as \
                 <cub/block/block_reduce.cuh> or <cub/warp/warp_scan.cuh>"
            } else if has_host_code(&log, source) {
                HOST_CODE_NOTE
            } else {
                ""
            };
            Err(NvrtcError::Compile(rename(log) + note))
        }
        Err(e) => Err(e),
    }
}

/// Rewrite lines that start `name:` (NVRTC names the program by its file name) to start
/// `shown:` (the path as the user gave it).
fn name_log(log: &str, name: &str, shown: &str) -> String {
    if name == shown {
        return log.to_string();
    }
    let prefix = format!("{name}:");
    log.split_inclusive('\n')
        .map(|l| match l.strip_prefix(&prefix) {
            Some(rest) => format!("{shown}:{rest}"),
            None => l.to_string(),
        })
        .collect()
}

fn read_source(path: &Path) -> Result<String, NvrtcError> {
    std::fs::read_to_string(path)
        .map_err(|e| NvrtcError::Io(format!("cannot read {}: {e}", path.display())))
}

/// The bytes of PTX file `name` as text. Errors: a cubin (ELF: machine code, which ptxjit
/// does not run) and a fatbin are named as such; other bytes that are not UTF-8 are reported
/// at their line and column (`name:LINE:COL`), as PTX errors are.
fn ptx_text(name: &str, bytes: Vec<u8>) -> Result<String, String> {
    use crate::host::image::{classify, ImageKind};
    let kind = classify(|i| bytes.get(i).copied().unwrap_or(0));
    let what = match kind {
        ImageKind::Ptx => None,
        ImageKind::Cubin => Some("an ELF cubin (machine code for a GPU)"),
        ImageKind::Fatbin | ImageKind::FatbinWrapper => Some("a fatbin"),
        ImageKind::Linked => Some("a linked image of ptxjit's driver"),
    };
    if let Some(what) = what {
        return Err(format!(
            "{name} is {what}, not PTX text: give ptxjit the kernels' PTX (nvcc -ptx \
             makes it from the .cu)"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        // A byte column, as the PTX front end's locations give.
        let col = at - line_start + 1;
        format!(
            "{name}:{line}:{col}: byte {:#04x} is not UTF-8 text: a PTX file is text",
            e.as_bytes()[at]
        )
    })
}

/// Whether `path` names CUDA C++ source (`.cu`) rather than PTX.
pub fn is_cuda_source(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "cu")
}

/// The options `ptxjit run` and `ptxjit check` compile a `.cu` module with when they are given
/// none: [`CompileOptions::default`] with `-lineinfo`, so that a fault names the CUDA source
/// line (line information changes no generated code).
pub fn run_options() -> CompileOptions {
    CompileOptions {
        lineinfo: true,
        ..CompileOptions::default()
    }
}

/// The text of a kernel module file, as `(name for messages, PTX text, NVRTC's time)`: a PTX
/// file is read as it is; a `.cu` file is compiled by NVRTC with the options `o` (for a run:
/// [`run_options`] and the user's `-I`/`-D`), through the cache ([`compile_cached`]), and
/// named by its cache file (where the PTX's line numbers point). The time is how long NVRTC
/// ran (`None` when it did not: a PTX file, or a cache hit). NVRTC's warnings go to stderr.
/// Errors: a message (cannot read, NVRTC missing with the pip command, the compilation log).
pub fn read_ptx(
    path: &Path,
    o: &CompileOptions,
) -> Result<(String, String, Option<std::time::Duration>), String> {
    if !is_cuda_source(path) {
        let name = path.display().to_string();
        if path.is_dir() {
            return Err(format!("{name} is a directory, not a PTX or CUDA C++ file"));
        }
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {name}: {e}"))?;
        let text = ptx_text(&name, bytes)?;
        return Ok((name, text, None));
    }
    let c = compile_cached(path, o).map_err(|e| e.to_string())?;
    if !c.log.trim().is_empty() {
        eprint!("{}", c.log);
    }
    let name = match &c.path {
        Some(p) => p.display().to_string(),
        None => format!("{} (compiled)", path.display()),
    };
    Ok((name, c.ptx, c.nvrtc_time))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binaries_and_bytes_that_are_not_text_are_named() {
        let e = ptx_text("k.cubin", b"\x7fELF\x02\x01\x01\x33".to_vec()).unwrap_err();
        assert!(
            e.starts_with("k.cubin is an ELF cubin (machine code"),
            "{e}"
        );
        let fatbin = [0x50, 0xED, 0x55, 0xBA, 1, 0, 0x10, 0];
        let e = ptx_text("k.fatbin", fatbin.to_vec()).unwrap_err();
        assert!(e.starts_with("k.fatbin is a fatbin, not PTX text"), "{e}");
        // 0xFF on line 2 after "  é" (4 bytes): byte column 5.
        let bytes = b".version 8.0\n  \xc3\xa9\xff x\n".to_vec();
        let e = ptx_text("k.ptx", bytes).unwrap_err();
        assert_eq!(
            e,
            "k.ptx:2:5: byte 0xff is not UTF-8 text: a PTX file is text"
        );
        assert_eq!(ptx_text("k.ptx", b"ret;".to_vec()).unwrap(), "ret;");
    }

    #[test]
    fn host_code_is_told_apart_from_device_code() {
        let missing =
            |h: &str| format!("app.cu(2): catastrophic error: cannot open source file \"{h}\"\n");
        for h in ["cstring", "iostream", "vector", "stdio.h"] {
            assert!(
                has_host_code(&missing(h), "__global__ void k() {}\n"),
                "{h}"
            );
        }
        // A missing header of the program's own (or a library's) is not host code.
        for h in ["my_kernels.cuh", "cub/block/block_scan.cuh"] {
            assert!(
                !has_host_code(&missing(h), "__global__ void k() {}\n"),
                "{h}"
            );
        }
        let with_main = "__global__ void k() {}\nint main() {\n  k<<<1, 1>>>();\n}\n";
        assert!(has_host_code(
            "app.cu(3): error: expected an expression\n",
            with_main
        ));
        assert!(!has_host_code(
            "app.cu(3): error: expected an expression\n",
            "int main();\n__global__ void k() {}\n"
        ));
    }

    #[test]
    fn log_locations_are_file_colon_line() {
        let log = "k.cu(12): error: identifier \"x\" is undefined\n  x = 1;\n  ^\n\n\
                   /inc/cub/a.cuh(3): warning #1-D: w\nRemark (3): not a location\n";
        let r = render_log(log);
        assert!(
            r.starts_with("k.cu:12: error: identifier \"x\" is undefined\n"),
            "{r}"
        );
        assert!(r.contains("\n/inc/cub/a.cuh:3: warning #1-D: w\n"), "{r}");
        assert!(r.contains("Remark (3): not a location"), "{r}");
        let named = name_log(&r, "k.cu", "src/k.cu");
        assert!(named.starts_with("src/k.cu:12: error"), "{named}");
        assert!(named.contains("\n/inc/cub/a.cuh:3:"), "{named}");
    }

    #[test]
    fn locate_searches_the_sites_and_says_what_to_install() {
        let root = std::env::temp_dir().join(format!("ptxjit-locate-{}", std::process::id()));
        let (a, b) = (root.join("a"), root.join("b"));
        for d in [
            b.join(LIBRARY_DIR),
            b.join("nvidia/cuda_runtime/include"),
            a.join("nvidia/cuda_cccl/include"),
            a.join("nvidia/cuda_runtime/include"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        let lib = b.join(LIBRARY_DIR).join(LIBRARY_NAME);
        std::fs::write(&lib, "").unwrap();
        // The library's own site first for headers, then the others in order.
        let l = locate_in(None, &[a.clone(), b.clone()]).unwrap();
        assert_eq!(l.library, lib);
        assert_eq!(
            l.include_dirs,
            vec![
                a.join("nvidia/cuda_cccl/include"),
                b.join("nvidia/cuda_runtime/include")
            ]
        );
        let e = locate_in(None, std::slice::from_ref(&a))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not found") && e.contains(&a.display().to_string()),
            "{e}"
        );
        assert!(e.contains("pip install nvidia-cuda-nvrtc-cu12"), "{e}");
        let e = locate_in(None, &[]).unwrap_err().to_string();
        assert!(
            e.contains("no Python environment") && e.contains(PIP_INSTALL),
            "{e}"
        );
        let missing = root.join("nope/libnvrtc.so.12");
        let e = locate_in(Some(&missing), std::slice::from_ref(&b))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("PTXJIT_NVRTC=") && e.contains(PIP_INSTALL),
            "{e}"
        );
        let l = locate_in(Some(&lib), &[]).unwrap();
        assert_eq!(l.include_dirs, vec![b.join("nvidia/cuda_runtime/include")]);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
