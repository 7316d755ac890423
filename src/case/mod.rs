//! Cases: kernel launches described in a TOML file (the public format of
//! `docs/case-format.md`): one launch, or several run in order on shared buffers (a pipeline);
//! and the runner behind `ptxjit run`, `ptxjit check` and the tests.
//!
//! ```text
//! Case::load(path) ──prepare──▶ Prepared (PTX texts, buffer bytes, expected bytes)
//!                                   │
//!            run_case / run_prepared ──▶ Session (Context + Modules + buffers) ──launch…──▶ CaseResult
//!            check_case: the same Prepared on both engines, every buffer compared (bit for
//!            bit unless its [expect.NAME] says otherwise)
//! ```
//! Errors are [`CaseError`]s; their [`CaseError::kind`] is the `--json` error kind. A bad case
//! file names the file and the key (`saxpy.toml:12:8: buffers.x.type: unknown type 'f31' …`).

pub mod check;
pub mod compare;
pub mod data;
pub mod dtype;
pub mod notes;
pub mod run;
pub mod spec;
pub mod texture;

pub use check::{check_case, check_prepared, compare_engines, BufferDiff, CheckResult};
pub use compare::{compare, compare_ordered, Comparison, Mismatch};
pub use dtype::{DType, Num};
pub use run::{
    run_case, run_prepared, verdict, CaseResult, ExpectResult, LaunchResult, PipelineReport,
    RunOptions, Session, SessionLaunch, TimeStats,
};
pub use spec::{
    Arg, BufferSpec, CaseFile, CaseSpec, CheckMode, Dims, ExpectError, ExpectSpec, Init,
    LaunchSpec, Order, Scalar, Tolerance,
};

use std::path::{Component, Path, PathBuf};

/// Why a case could not run. The runtime's own errors (PTX, arguments, faults) pass through.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CaseError {
    /// The case file, or a file it names, is missing or malformed.
    #[error("{0}")]
    Case(String),
    /// The case uses something ptxjit does not support yet (textures, surfaces).
    #[error("{0}")]
    Unsupported(String),
    /// Writing an output (`--dump`, `--png`) failed.
    #[error("{0}")]
    Io(String),
    /// Loading the PTX or launching the kernel failed.
    #[error("{0}")]
    Runtime(#[from] crate::host::Error),
    /// Loading the PTX of, or running, one launch of a pipeline failed: `at` names the launch
    /// (`launch[2] (add_offsets)`).
    #[error("{at}: {error}")]
    InLaunch {
        at: String,
        error: crate::host::Error,
    },
    /// A sanitizer tool found errors that did not stop the kernel (initcheck's
    /// uninitialised reads): the tool's report, one error after another.
    #[error("{0}")]
    Sanitizer(String),
}

impl CaseError {
    /// The error kind of `--json` and `[expect_error]`: `case`, `io`, or the runtime's
    /// [`crate::host::Error::kind`] (`parse`, `unsupported`, `argument`, `fault`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            CaseError::Case(_) => "case",
            CaseError::Unsupported(_) => "unsupported",
            CaseError::Io(_) => "io",
            CaseError::Sanitizer(_) => "sanitizer",
            CaseError::Runtime(e) | CaseError::InLaunch { error: e, .. } => e.kind(),
        }
    }

    /// The runtime's error, if this is one (with or without the launch named).
    pub fn runtime(&self) -> Option<&crate::host::Error> {
        match self {
            CaseError::Runtime(e) | CaseError::InLaunch { error: e, .. } => Some(e),
            CaseError::Case(_)
            | CaseError::Unsupported(_)
            | CaseError::Io(_)
            | CaseError::Sanitizer(_) => None,
        }
    }
}

/// A case ready to prepare: its spec, a display name and the directory relative paths start from.
#[derive(Clone, Debug)]
pub struct Case {
    /// How messages name the case (the path as given, or a description for ad-hoc runs).
    pub name: String,
    /// Relative `ptx` / `file` paths are resolved against this directory.
    pub dir: PathBuf,
    pub spec: CaseSpec,
    /// How errors name the places of the case: case-file keys, or the ad-hoc options.
    pub origin: Origin,
    /// How a `.cu` module of the case is compiled (NVRTC): by default with `-lineinfo`, so
    /// that faults name the CUDA source line ([`crate::nvrtc::run_options`]).
    pub nvrtc: crate::nvrtc::CompileOptions,
}

/// Where a case came from, which decides how its errors name a place in it: a case file's
/// errors name the file and the key (`saxpy.toml: buffers.x: …`); an ad-hoc launch's name the
/// command-line option the user wrote (`--arg 3 (buf:x:f32:8=iota): …`), since its user never
/// wrote those keys.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Origin {
    /// A case file, or a spec built in code that stands for one.
    #[default]
    File,
    /// `ptxjit run --ptx .. --arg ..`: the options each key stands for.
    AdHoc(AdHocNames),
}

/// The command-line options of an ad-hoc launch, by the case keys they became.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AdHocNames {
    /// Each `--arg` as written, in order (`args[i]` is the `i`-th, named `--arg i+1`).
    pub args: Vec<String>,
    /// Each `--expect` as written, by buffer name (`expect.NAME`).
    pub expects: Vec<(String, String)>,
}

impl AdHocNames {
    /// The option a case key stands for (`args[2]` → `--arg 3 (ptr:x+16)`, `buffers.x.len`
    /// → the `--arg buf:x:..` that declared `x`, `expect.y` → `--expect (y=y.npy)`, `grid` →
    /// `--grid`); `None` for a key no option makes.
    pub fn option_for(&self, key: &str) -> Option<String> {
        let arg = |i: usize| {
            self.args
                .get(i)
                .map(|text| format!("--arg {} ({text})", i + 1))
        };
        let head = key.split('.').next().unwrap_or(key);
        if let Some(i) = head.strip_prefix("args[").and_then(|r| r.strip_suffix(']')) {
            return arg(i.parse().ok()?);
        }
        if let Some(rest) = key.strip_prefix("buffers.") {
            let name = rest.split('.').next().unwrap_or(rest);
            let decl = format!("buf:{name}:");
            let i = self.args.iter().position(|a| a.starts_with(&decl))?;
            return arg(i);
        }
        if let Some(name) = key.strip_prefix("expect.") {
            let (_, text) = self.expects.iter().find(|(n, _)| n == name)?;
            return Some(format!("--expect ({text})"));
        }
        Some(
            match key {
                "ptx" => "--ptx",
                "kernel" => "--kernel",
                "grid" => "--grid",
                "block" => "--block",
                "shared_bytes" => "--shared-bytes",
                "max_dynamic_shared_bytes" => "--max-dynamic-shared-bytes",
                "buffers" | "args" => "--arg",
                _ => return None,
            }
            .to_string(),
        )
    }
}

/// Host-side contents of one buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct HostBuffer {
    pub name: String,
    pub dtype: DType,
    /// Little-endian elements.
    pub bytes: Vec<u8>,
}

impl HostBuffer {
    pub fn len(&self) -> usize {
        self.bytes.len() / self.dtype.size()
    }
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// One `[expect.NAME]`: the expected contents of a buffer after the last launch (if the
/// table gives them) and how it is compared.
#[derive(Clone, Debug)]
pub struct Expected {
    pub buffer: String,
    pub dtype: DType,
    /// Little-endian elements; `None`: the table only says how `ptxjit check` compares.
    pub bytes: Option<Vec<u8>>,
    pub tolerance: Tolerance,
    pub order: Order,
    pub check: CheckMode,
}

/// One PTX file a case loads.
#[derive(Clone, Debug)]
pub struct PtxSource {
    /// The file's path as messages show it (`file:line:col`).
    pub name: String,
    pub text: String,
    /// How long NVRTC took to compile a `.cu` module into this PTX; `None` for a PTX file or
    /// PTX from the cache.
    pub nvrtc_time: Option<std::time::Duration>,
}

/// A case with every file read and every buffer materialised: run it any number of times, on
/// any engine, from identical inputs.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// Each distinct PTX file, the case's own `ptx` first (its module holds the `symbol`
    /// buffers and `[texrefs.*]`).
    pub modules: Vec<PtxSource>,
    /// For each launch, the index of its file in `modules`.
    pub launch_modules: Vec<usize>,
    /// Initial contents, in declaration (allocation) order.
    pub buffers: Vec<HostBuffer>,
    pub expects: Vec<Expected>,
    /// Decoded PNG sources of textures and surfaces.
    pub images: Vec<texture::Image>,
}

impl Case {
    /// Read and check a case file. Errors ([`CaseError::Case`]) name the file, the line and the key.
    pub fn load(path: &Path) -> Result<Case, CaseError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| CaseError::Case(format!("cannot read case file {name}: {e}")))?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Case::parse(&text, &name, &dir)
    }

    /// Parse case-file text; `name` is used in messages, `dir` resolves relative paths.
    pub fn parse(text: &str, name: &str, dir: &Path) -> Result<Case, CaseError> {
        let de = toml::Deserializer::new(text);
        let file: CaseFile = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let at = inner
                .span()
                .map(|s| line_col(text, s.start))
                .map(|(l, c)| format!(":{l}:{c}"))
                .unwrap_or_default();
            // Errors of the TOML syntax itself (a number too large for TOML's 64-bit signed
            // integers) have no key path: name the key the value at the error belongs to, from
            // the structure written before it (`buffers.x.len`, `launch[1].shared_bytes`,
            // `args[2].u64`, `buffers.x.init.random.seed`).
            let line_key = || key_path_at(text, inner.span()?.start);
            let key = if path.is_empty() || path == "." {
                line_key().map(|k| format!(" {k}:")).unwrap_or_default()
            } else {
                format!(" {path}:")
            };
            let msg = inner.message().trim_end();
            // TOML's words for an integer literal beyond its 64-bit signed range.
            let hint = if msg == "number too large to fit in target type"
                || msg == "number too small to fit in target type"
            {
                " (a TOML integer is from -9223372036854775808 to 9223372036854775807: \
                 write a wider number as a string, \"18446744073709551615\", a float as 1e30)"
            } else {
                ""
            };
            CaseError::Case(format!("{name}{at}:{key} {msg}{hint}"))
        })?;
        let spec = file
            .into_spec()
            .map_err(|m| CaseError::Case(format!("{name}: {m}")))?;
        Case::from_spec(spec, name, dir, Origin::File)
    }

    /// A case from a spec built in code (the ad-hoc CLI form, with `origin` naming its
    /// options), checked like a file.
    pub fn from_spec(
        spec: CaseSpec,
        name: &str,
        dir: &Path,
        origin: Origin,
    ) -> Result<Case, CaseError> {
        let case = Case {
            name: name.to_string(),
            dir: dir.to_path_buf(),
            spec,
            origin,
            nvrtc: crate::nvrtc::run_options(),
        };
        case.validate()?;
        Ok(case)
    }

    /// The case with its `.cu` modules compiled with the NVRTC options `o` instead of
    /// [`crate::nvrtc::run_options`] (`ptxjit run -I DIR -D NAME`).
    pub fn with_nvrtc(mut self, o: crate::nvrtc::CompileOptions) -> Case {
        self.nvrtc = o;
        self
    }

    /// Where `key` is, as the user wrote it: `case.toml: buffers.x` for a case file, the
    /// option (`--arg 2 (buf:x:f32:8)`) for an ad-hoc launch.
    pub fn place(&self, key: &str) -> String {
        match &self.origin {
            Origin::AdHoc(names) => names
                .option_for(key)
                .unwrap_or_else(|| format!("{}: {key}", self.name)),
            Origin::File => format!("{}: {key}", self.name),
        }
    }

    /// A [`CaseError::Case`] at `key` ([`Case::place`]).
    pub(crate) fn err(&self, key: &str, msg: impl std::fmt::Display) -> CaseError {
        CaseError::Case(format!("{}: {msg}", self.place(key)))
    }

    /// Cross-references the types cannot express.
    fn validate(&self) -> Result<(), CaseError> {
        let s = &self.spec;
        let names = || defined("buffers", s.buffers.keys());
        if s.launches.is_empty() {
            return Err(self.err("launch", "needs at least one launch"));
        }
        for (i, l) in s.launches.iter().enumerate() {
            let lk = s.launch_key(i);
            if l.kernel.is_empty() {
                return Err(self.err(&format!("{lk}kernel"), "must not be empty"));
            }
            if l.ptx.trim().is_empty() {
                let key = if l.ptx == s.ptx {
                    "ptx".to_string()
                } else {
                    format!("{lk}ptx")
                };
                return Err(self.err(&key, "must name a PTX or CUDA C++ file"));
            }
            for (at, a) in Arg::leaves(&l.args) {
                let (table, what, name) = match a {
                    Arg::Buffer { name, .. } => {
                        if !s.buffers.contains_key(name) {
                            return Err(self.err(
                                &format!("{lk}{at}"),
                                format!(
                                    "no buffer named '{name}' ({})",
                                    defined("buffers", s.buffers.keys())
                                ),
                            ));
                        }
                        continue;
                    }
                    Arg::Texture(n) => (&s.textures, "texture", n),
                    Arg::Surface(n) => (&s.surfaces, "surface", n),
                    Arg::TensorMap(n) => {
                        if !s.tensor_maps.contains_key(n) {
                            return Err(self.err(
                                &format!("{lk}{at}"),
                                format!(
                                    "no tensor map named '{n}' ({})",
                                    defined("tensor_maps", s.tensor_maps.keys())
                                ),
                            ));
                        }
                        continue;
                    }
                    Arg::Scalar(_) | Arg::Struct(_) => continue,
                };
                if !table.contains_key(name) {
                    return Err(self.err(
                        &format!("{lk}{at}"),
                        format!(
                            "no {what} named '{name}' ({})",
                            defined(&format!("{what}s"), table.keys())
                        ),
                    ));
                }
            }
        }
        for (name, b) in &s.buffers {
            if name.is_empty() {
                return Err(self.err("buffers", "a buffer name must not be empty"));
            }
            if b.len == Some(0) {
                return Err(self.err(
                    &format!("buffers.{name}.len"),
                    "a buffer needs at least one element",
                ));
            }
        }
        for (name, t) in &s.tensor_maps {
            if !s.buffers.contains_key(&t.buffer) {
                return Err(self.err(
                    &format!("tensor_maps.{name}.buffer"),
                    format!("no buffer named '{}' ({})", t.buffer, names()),
                ));
            }
            t.encode_args()
                .map_err(|e| self.err(&format!("tensor_maps.{name}"), e))?;
        }
        for (group, table) in [
            ("textures", &s.textures),
            ("surfaces", &s.surfaces),
            ("texrefs", &s.texrefs),
        ] {
            for (name, t) in table {
                if let Some(spec::TexSource::Buffer(b)) = &t.source {
                    if !s.buffers.contains_key(b) {
                        return Err(self.err(
                            &format!("{group}.{name}.source"),
                            format!("no buffer named '{b}' ({})", names()),
                        ));
                    }
                }
            }
        }
        for (name, e) in &s.expect {
            let key = format!("expect.{name}");
            if !s.buffers.contains_key(name) {
                return Err(self.err(&key, format!("no buffer named '{name}' ({})", names())));
            }
            validate_expect(e).map_err(|m| self.err(&key, m))?;
        }
        if let Some(ee) = &s.expect_error {
            if !spec::ERROR_KINDS.contains(&ee.kind.as_str()) {
                return Err(self.err(
                    "expect_error.kind",
                    format!(
                        "unknown error kind '{}' (kinds: {})",
                        ee.kind,
                        spec::ERROR_KINDS.join(", ")
                    ),
                ));
            }
            if let Some(t) = &ee.tool {
                let tool = crate::host::tool::Tool::parse(t)
                    .map_err(|m| self.err("expect_error.tool", m))?;
                if ee.memcheck && tool != crate::host::tool::Tool::Memcheck {
                    return Err(self.err(
                        "expect_error.memcheck",
                        format!(
                            "memcheck = true is tool = \"memcheck\"; it cannot be combined with \
                             tool = \"{t}\" (one tool per run)"
                        ),
                    ));
                }
            }
            if ee.racecheck_global && !ee.wants(crate::host::tool::Tool::Racecheck) {
                return Err(self.err(
                    "expect_error.racecheck_global",
                    "racecheck_global needs tool = \"racecheck\" (it widens racecheck to global memory)",
                ));
            }
        }
        Ok(())
    }

    /// The case's PTX file (`ptx`), relative to the current directory where possible.
    pub fn ptx_path(&self) -> PathBuf {
        normalize(&self.dir.join(&self.spec.ptx))
    }

    /// Read the PTX and every data file, and materialise every buffer and expectation.
    pub fn prepare(&self) -> Result<Prepared, CaseError> {
        let s = &self.spec;
        let mut modules: Vec<(PathBuf, PtxSource)> = vec![];
        let mut launch_modules = Vec::with_capacity(s.launches.len());
        // The case's own file first, then each launch's (once per distinct path).
        let files = std::iter::once((String::from("ptx"), &s.ptx)).chain(
            s.launches
                .iter()
                .enumerate()
                .map(|(i, l)| (format!("{}ptx", s.launch_key(i)), &l.ptx)),
        );
        for (n, (key, file)) in files.enumerate() {
            let path = normalize(&self.dir.join(file));
            let at = match modules.iter().position(|(p, _)| *p == path) {
                Some(at) => at,
                None => {
                    // PTX as it is, or a `.cu` file compiled by NVRTC (cached).
                    let (name, text, nvrtc_time) = crate::nvrtc::read_ptx(&path, &self.nvrtc)
                        .map_err(|e| self.err(&key, e))?;
                    modules.push((
                        path,
                        PtxSource {
                            name,
                            text,
                            nvrtc_time,
                        },
                    ));
                    modules.len() - 1
                }
            };
            if n > 0 {
                launch_modules.push(at);
            }
        }
        let mut buffers = Vec::with_capacity(s.buffers.len());
        for (name, b) in &s.buffers {
            let bytes = data::materialize(b.dtype, b.len, b.init.as_ref(), &self.dir)
                .map_err(|e| self.err(&format!("buffers.{name}"), e))?;
            if bytes.is_empty() {
                return Err(self.err(
                    &format!("buffers.{name}"),
                    "a buffer needs at least one element",
                ));
            }
            buffers.push(HostBuffer {
                name: name.clone(),
                dtype: b.dtype,
                bytes,
            });
        }
        let find = |name: &str| {
            buffers
                .iter()
                .find(|b| b.name == name)
                .expect("validated: the buffer exists")
        };
        for (i, l) in s.launches.iter().enumerate() {
            for (at, a) in Arg::leaves(&l.args) {
                if let Arg::Buffer { name, offset } = a {
                    let b = find(name);
                    if *offset > b.bytes.len() as u64 {
                        return Err(self.err(
                            &format!("{}{at}", s.launch_key(i)),
                            format!(
                                "offset {offset} is past the end of buffer '{name}' ({} bytes)",
                                b.bytes.len()
                            ),
                        ));
                    }
                }
            }
        }
        let mut expects = Vec::with_capacity(s.expect.len());
        for (name, e) in &s.expect {
            let key = format!("expect.{name}");
            let b = find(name);
            let bytes = match (&e.file, &e.values) {
                (Some(f), _) => Some(
                    data::read_file(&self.dir.join(f), b.dtype).map_err(|m| self.err(&key, m))?,
                ),
                (None, Some(vs)) => {
                    let init = Init::Values(vs.clone());
                    Some(
                        data::materialize(b.dtype, None, Some(&init), &self.dir)
                            .map_err(|m| self.err(&key, m))?,
                    )
                }
                (None, None) => None,
            };
            if let Some(bytes) = &bytes {
                if bytes.len() != b.bytes.len() {
                    return Err(self.err(
                        &key,
                        format!(
                            "{} expected elements, but buffer '{name}' has {}",
                            bytes.len() / b.dtype.size(),
                            b.len()
                        ),
                    ));
                }
            }
            expects.push(Expected {
                buffer: name.clone(),
                dtype: b.dtype,
                bytes,
                tolerance: e.tolerance,
                order: e.order,
                check: e.check,
            });
        }
        let mut images = vec![];
        for (group, table) in [
            ("textures", &s.textures),
            ("surfaces", &s.surfaces),
            ("texrefs", &s.texrefs),
        ] {
            for (name, t) in table {
                if let Some(spec::TexSource::Png(f)) = &t.source {
                    let key = format!("{group}.{name}");
                    let img = texture::read_png(&self.dir.join(f), &key)
                        .map_err(|m| self.err(&format!("{key}.source"), m))?;
                    images.push(img);
                }
            }
        }
        Ok(Prepared {
            modules: modules.into_iter().map(|(_, m)| m).collect(),
            launch_modules,
            buffers,
            expects,
            images,
        })
    }

    /// Threads all launches run together (the sum of grid × block).
    pub fn threads(&self) -> u64 {
        self.spec.launches.iter().map(LaunchSpec::threads).sum()
    }

    /// The kernels the case launches, in order, separated by `, `.
    pub fn kernels(&self) -> String {
        self.spec
            .launches
            .iter()
            .map(|l| l.kernel.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The rules of one `[expect.NAME]` table that its types cannot express.
/// `"SECTION: a, b"`, or that the case has no `[SECTION.NAME]` tables.
fn defined<'a>(section: &str, names: impl Iterator<Item = &'a String>) -> String {
    let names: Vec<&str> = names.map(String::as_str).collect();
    if names.is_empty() {
        format!("the case has no [{section}.NAME] tables")
    } else {
        format!("{section}: {}", names.join(", "))
    }
}

fn validate_expect(e: &ExpectSpec) -> Result<(), String> {
    if e.file.is_some() && e.values.is_some() {
        return Err("give one of file = \"NAME.npy\" or values = [..], not both".into());
    }
    if e.check == CheckMode::Tolerance && e.tolerance.is_exact() {
        return Err(
            "check = \"tolerance\" needs a tolerance (tolerance = { abs = .., rel = .., ulp = .. })"
                .into(),
        );
    }
    if !e.has_data() {
        if !e.tolerance.is_exact() && e.check != CheckMode::Tolerance {
            return Err(
                "a tolerance without file or values only applies with check = \"tolerance\"".into(),
            );
        }
        if e.order == Order::Index && e.check == CheckMode::Exact {
            return Err(
                "give file = \"NAME.npy\" or values = [..] (or, for ptxjit check only, \
                 order = \"any\" or check = \"tolerance\"/\"skip\")"
                    .into(),
            );
        }
    }
    Ok(())
}

/// 1-based line and column (in characters) of byte offset `at`.
/// The table of the last header line (`[buffers.x]`, `[[launch]]`) in `before`, as the
/// error paths name it: `buffers.x`, `launch[N]` for the N-th (from 0) array-of-tables
/// entry. `None` before the first header (top-level keys). A line counts as a header when,
/// without its comment, it is `[NAME]` or `[[NAME]]` with NAME starting with a letter, `_`
/// or a quote (so an array value's row such as `[1, 2]` is not one).
/// The key path of the value that starts at byte `at` of case-file text, as
/// `serde_path_to_error` spells paths: tables joined by `.`, array elements as `[I]`, an
/// array-of-tables header by its index (`launch[1].grid[0]`, `args[2].u64`,
/// `buffers.x.init.random.seed`). A scan of the TOML structure before `at` (headers, keys,
/// inline tables, arrays, strings, comments); `None` where `at` is not inside a value.
fn key_path_at(text: &str, at: usize) -> Option<String> {
    /// An open inline array (elements before the current one) or inline table (the key
    /// being assigned, once its `=` is read).
    enum Open {
        Array(usize),
        Table(Option<String>),
    }
    let dotted = |k: &str| -> String {
        k.split('.')
            .map(|p| p.trim().trim_matches(|c| c == '"' || c == '\''))
            .collect::<Vec<_>>()
            .join(".")
    };
    let b = text.as_bytes();
    let end = at.min(b.len());
    let mut table = String::new();
    let mut headers: Vec<(String, usize)> = vec![];
    let mut key: Option<String> = None;
    let mut open: Vec<Open> = vec![];
    // Where the key of the current inline-table entry starts.
    let mut seg = 0;
    let mut i = 0;
    while i < end {
        let c = b[i];
        if key.is_none() {
            // Between statements: a header, a comment, or `key =`.
            match c {
                b' ' | b'\t' | b'\r' | b'\n' => i += 1,
                b'#' => i = text[i..].find('\n').map_or(b.len(), |n| i + n),
                b'[' => {
                    let line_end = text[i..].find('\n').map_or(b.len(), |n| i + n);
                    let line = text[i..line_end].split('#').next().unwrap_or("").trim();
                    if let Some(name) = line.strip_prefix("[[").and_then(|l| l.strip_suffix("]]")) {
                        let name = dotted(name);
                        let n = match headers.iter_mut().find(|(h, _)| *h == name) {
                            Some((_, n)) => {
                                *n += 1;
                                *n
                            }
                            None => {
                                headers.push((name.clone(), 0));
                                0
                            }
                        };
                        table = format!("{name}[{n}]");
                    } else {
                        let name = line.strip_prefix('[')?.strip_suffix(']')?;
                        table = dotted(name);
                    }
                    i = line_end;
                }
                _ => {
                    let eq = i + text[i..].find('=')?;
                    if text[i..eq].contains('\n') {
                        return None;
                    }
                    key = Some(dotted(&text[i..eq]));
                    i = eq + 1;
                }
            }
            continue;
        }
        match c {
            b'"' | b'\'' => {
                let triple = [c; 3];
                if b[i..].starts_with(&triple) {
                    let close = text
                        .get(i + 3..)?
                        .find(std::str::from_utf8(&triple).ok()?)?;
                    i += 3 + close + 3;
                } else {
                    i += 1;
                    while i < b.len() && b[i] != c && b[i] != b'\n' {
                        i += if c == b'"' && b[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
                continue;
            }
            b'#' => {
                i = text[i..].find('\n').map_or(b.len(), |n| i + n);
                continue;
            }
            b'[' => open.push(Open::Array(0)),
            b'{' => {
                open.push(Open::Table(None));
                seg = i + 1;
            }
            b']' | b'}' => {
                open.pop();
            }
            b',' => match open.last_mut() {
                Some(Open::Array(n)) => *n += 1,
                Some(Open::Table(k)) => {
                    *k = None;
                    seg = i + 1;
                }
                None => {}
            },
            b'=' => {
                if let Some(Open::Table(k)) = open.last_mut() {
                    *k = Some(dotted(&text[seg..i]));
                }
            }
            b'\n' if open.is_empty() => key = None,
            _ => {}
        }
        i += 1;
    }
    let mut path = table;
    let push_key = |path: &mut String, k: &str| {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(k);
    };
    push_key(&mut path, key.as_deref()?);
    for o in &open {
        match o {
            Open::Array(n) => path.push_str(&format!("[{n}]")),
            Open::Table(Some(k)) => push_key(&mut path, k),
            Open::Table(None) => return None,
        }
    }
    Some(path)
}

fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Remove `.` and `name/..` pairs lexically (no file-system access).
fn normalize(p: &Path) -> PathBuf {
    let mut out: Vec<Component> = vec![];
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            _ => out.push(c),
        }
    }
    if out.is_empty() {
        // `.` or `a/..`: the directory itself, named so in messages (not as an empty path).
        return PathBuf::from(".");
    }
    out.iter().collect()
}

#[cfg(test)]
mod tests;
