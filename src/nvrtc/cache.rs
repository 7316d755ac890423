//! The PTX cache of `.cu` files that `ptxjit run` compiles on the fly.
//!
//! An entry is `DIR/KEY.ptx` (and `DIR/KEY.log` when NVRTC had warnings, shown again on a
//! hit). KEY is the SHA-256 of: NVRTC's version, the program name, the full NVRTC option list
//! (which holds the architecture, the macros and every include directory), the source, the
//! standard headers ptxjit gives NVRTC in memory, and the path and contents of every header
//! the source includes from its own directory or a `-I` directory, transitively (found by
//! reading its `#include` lines; headers of the CUDA wheels are not hashed: their directories
//! are in the options, and a wheel's files change only with
//! its version). Any change to these compiles anew; nothing is ever invalidated by time. A
//! source or local header with a computed include (`#include MACRO`), whose file only the
//! preprocessor knows, is never cached: it is compiled on every run, with a note saying why.
//!
//! DIR is `$PTXJIT_CACHE_DIR`, else `$XDG_CACHE_HOME/ptxjit`, else `~/.cache/ptxjit`. An entry
//! is written to a temporary file and renamed into place, so concurrent runs never read half a
//! file. A cache that cannot be written is reported on stderr and the PTX is used all the same.

use super::{compile_source, program_name, read_source, CompileOptions, Nvrtc, NvrtcError};
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The environment variable that overrides the cache directory.
pub const CACHE_ENV: &str = "PTXJIT_CACHE_DIR";

/// A `.cu` file's PTX, compiled now or taken from the cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedPtx {
    pub ptx: String,
    /// NVRTC's warnings (empty when none).
    pub log: String,
    /// The cache entry holding `ptx`; `None` when the cache could not be written.
    pub path: Option<PathBuf>,
    /// Whether `ptx` came from the cache (no compilation ran).
    pub from_cache: bool,
    /// How long NVRTC ran; `None` for a cache hit.
    pub nvrtc_time: Option<std::time::Duration>,
}

/// The cache directory: `$PTXJIT_CACHE_DIR`, `$XDG_CACHE_HOME/ptxjit` (if absolute) or
/// `$HOME/.cache/ptxjit`; `None` when none of them is set.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var(CACHE_ENV)
        .or_else(|| {
            var("XDG_CACHE_HOME")
                .filter(|p| p.is_absolute())
                .map(|p| p.join("ptxjit"))
        })
        .or_else(|| var("HOME").map(|h| h.join(".cache").join("ptxjit")))
}

/// Compile the `.cu` file at `path` with options `o` through the cache (see the module docs).
/// Loading NVRTC is needed even for a hit (its version is part of the key). Errors: those of
/// [`Nvrtc::load`], [`Nvrtc::options`] and [`Nvrtc::compile`]; [`NvrtcError::Io`] if the
/// source cannot be read.
pub fn compile_cached(path: &Path, o: &CompileOptions) -> Result<CachedPtx, NvrtcError> {
    let nvrtc = Nvrtc::load()?;
    let source = read_source(path)?;
    let options = nvrtc.options(path, o)?;
    let name = program_name(path);
    let deps = local_headers(path, &source, &o.include_dirs);
    if let Some((file, line)) = &deps.computed {
        eprintln!(
            "note: {} is compiled on every run, not cached: {}: `{line}` names its header \
             through a macro, which the cache cannot follow",
            path.display(),
            file.display()
        );
        let started = std::time::Instant::now();
        let c = compile_source(&nvrtc, path, &source, &options)?;
        return Ok(CachedPtx {
            ptx: c.ptx,
            log: c.log,
            path: None,
            from_cache: false,
            nvrtc_time: Some(started.elapsed()),
        });
    }
    let key = cache_key(&nvrtc, &name, &options, &source, &deps.headers);
    let dir = cache_dir();
    if let Some(dir) = &dir {
        let entry = dir.join(format!("{key}.ptx"));
        if let Ok(ptx) = std::fs::read_to_string(&entry) {
            // Entries are written whole (renamed into place), so only outside damage (a
            // truncated or edited file) makes one unparsable: compile it again over it.
            match crate::ptx::parse(&ptx) {
                Ok(_) => {
                    let log =
                        std::fs::read_to_string(dir.join(format!("{key}.log"))).unwrap_or_default();
                    return Ok(CachedPtx {
                        ptx,
                        log,
                        path: Some(entry),
                        from_cache: true,
                        nvrtc_time: None,
                    });
                }
                // The entry's line and column say where it was damaged.
                Err(e) => eprintln!(
                    "note: the cached PTX of {} does not parse ({}); compiling it again",
                    path.display(),
                    e.render(&crate::ptx::span::SourceMap::new(
                        &entry.display().to_string(),
                        &ptx
                    ))
                ),
            }
        }
    }
    let started = std::time::Instant::now();
    let c = compile_source(&nvrtc, path, &source, &options)?;
    let nvrtc_time = Some(started.elapsed());
    let stored = match &dir {
        Some(dir) => match store(dir, &key, &c.ptx, &c.log) {
            Ok(p) => Some(p),
            Err(e) => {
                eprintln!(
                    "warning: cannot write the PTX cache in {} ({e}); set {CACHE_ENV} to a \
                     writable directory",
                    dir.display()
                );
                None
            }
        },
        None => {
            eprintln!("warning: no PTX cache directory (set {CACHE_ENV} or HOME)");
            None
        }
    };
    Ok(CachedPtx {
        ptx: c.ptx,
        log: c.log,
        path: stored,
        from_cache: false,
        nvrtc_time,
    })
}

/// Write `KEY.ptx` (and `KEY.log`) through temporary files renamed into place.
fn store(dir: &Path, key: &str, ptx: &str, log: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let put = |name: String, text: &str| -> std::io::Result<PathBuf> {
        let target = dir.join(&name);
        let tmp = dir.join(format!(
            ".{name}.{}.{:?}.tmp",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &target).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })?;
        Ok(target)
    };
    // The log first: a reader that finds the PTX finds its log too.
    if !log.trim().is_empty() {
        put(format!("{key}.log"), log)?;
    }
    put(format!("{key}.ptx"), ptx)
}

/// The cache key, hex SHA-256 (see the module docs). Each field is length-prefixed, so no two
/// different inputs hash the same bytes.
fn cache_key(
    nvrtc: &Nvrtc,
    name: &str,
    options: &[String],
    source: &str,
    headers: &[(PathBuf, Vec<u8>)],
) -> String {
    let mut h = Sha256::new();
    let mut field = |b: &[u8]| {
        h.update((b.len() as u64).to_le_bytes());
        h.update(b);
    };
    field(b"ptxjit nvrtc cache 1");
    field(format!("{}.{}", nvrtc.version.0, nvrtc.version.1).as_bytes());
    field(name.as_bytes());
    field(&(options.len() as u64).to_le_bytes());
    for o in options {
        field(o.as_bytes());
    }
    field(source.as_bytes());
    for (n, text) in super::headers::MEMORY_HEADERS {
        field(n.as_bytes());
        field(text.as_bytes());
    }
    for (p, text) in headers {
        field(p.display().to_string().as_bytes());
        field(text);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// At most this many headers are followed (a guard against include cycles of generated names).
const MAX_HEADERS: usize = 1000;

/// What a source depends on beyond itself ([`local_headers`]).
struct LocalHeaders {
    /// Each header with its contents, in the order first reached.
    headers: Vec<(PathBuf, Vec<u8>)>,
    /// The first computed include (`#include MACRO`) seen: the file and the line.
    computed: Option<(PathBuf, String)>,
}

/// The headers `source` (the file at `path`) includes from its own directory or from
/// `include_dirs`, transitively, each with its contents, in the order first reached, and the
/// first computed include among them. An `#include` that resolves to no such file (a CUDA or
/// NVRTC header) is not followed.
fn local_headers(path: &Path, source: &str, include_dirs: &[PathBuf]) -> LocalHeaders {
    let own_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut found = vec![];
    let mut computed = None;
    let mut seen = HashSet::new();
    let mut work = vec![(own_dir.clone(), path.to_path_buf(), source.to_string())];
    while let Some((dir, file, text)) = work.pop() {
        if computed.is_none() {
            computed = computed_include(&text).map(|l| (file.clone(), l));
        }
        for (quoted, name) in includes(&text) {
            let mut candidates = vec![];
            if quoted {
                candidates.push(dir.join(&name));
            }
            candidates.extend(include_dirs.iter().map(|d| d.join(&name)));
            candidates.push(own_dir.join(&name));
            let Some(hit) = candidates.into_iter().find(|c| c.is_file()) else {
                continue;
            };
            let id = std::fs::canonicalize(&hit).unwrap_or_else(|_| hit.clone());
            if found.len() >= MAX_HEADERS || !seen.insert(id) {
                continue;
            }
            let Ok(bytes) = std::fs::read(&hit) else {
                continue;
            };
            let next_dir = hit.parent().map(Path::to_path_buf).unwrap_or_default();
            work.push((
                next_dir,
                hit.clone(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ));
            found.push((hit, bytes));
        }
    }
    LocalHeaders {
        headers: found,
        computed,
    }
}

/// The first `#include` line of `text` whose operand is neither `"name"` nor `<name>` (a
/// macro the preprocessor expands to the header's name), trimmed.
fn computed_include(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix('#')?.trim_start();
        let rest = rest.strip_prefix("include")?;
        let operand = rest.trim_start();
        let computed = rest.starts_with(char::is_whitespace)
            && !operand.is_empty()
            && !operand.starts_with(['"', '<'])
            && !operand.starts_with("//")
            && !operand.starts_with("/*");
        computed.then(|| l.trim().to_string())
    })
}

/// The `#include "name"` (`true`) and `#include <name>` (`false`) lines of `text`.
pub(super) fn includes(text: &str) -> Vec<(bool, String)> {
    text.lines()
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix('#')?.trim_start();
            let rest = rest.strip_prefix("include")?.trim_start();
            let (close, quoted) = match rest.chars().next()? {
                '"' => ('"', true),
                '<' => ('>', false),
                _ => return None,
            };
            let name = rest[1..].split(close).next()?;
            (!name.is_empty()).then(|| (quoted, name.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_lines() {
        let text = "#include \"a.h\"\n  #  include <cub/cub.cuh>\n// #include \"no.h\"\n\
                    #include MACRO\n#include \"\"\n#define X\n";
        assert_eq!(
            includes(text),
            vec![(true, "a.h".into()), (false, "cub/cub.cuh".into())]
        );
    }

    #[test]
    fn local_headers_are_followed_transitively() {
        let root = std::env::temp_dir().join(format!("ptxjit-cache-deps-{}", std::process::id()));
        let inc = root.join("inc");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(&inc).unwrap();
        std::fs::write(root.join("a.h"), "#include \"sub/b.h\"\n").unwrap();
        std::fs::write(
            root.join("sub/b.h"),
            "#include \"c.h\"\n#include \"../a.h\"\n",
        )
        .unwrap();
        std::fs::write(root.join("sub/c.h"), "int c;\n").unwrap();
        std::fs::write(inc.join("d.h"), "int d;\n").unwrap();
        let src = "#include \"a.h\"\n#include <d.h>\n#include <cuda_fp16.h>\n";
        let deps = local_headers(&root.join("k.cu"), src, std::slice::from_ref(&inc));
        assert_eq!(deps.computed, None);
        let mut names: Vec<String> = deps
            .headers
            .iter()
            .map(|(p, _)| p.strip_prefix(&root).unwrap().display().to_string())
            .collect();
        names.sort();
        // a.h once (the cycle through ../a.h is cut), c.h found beside b.h.
        assert_eq!(names.len(), 4, "{names:?}");
        assert!(names.iter().any(|n| n.ends_with("c.h")), "{names:?}");
        assert!(names.iter().any(|n| n == "inc/d.h"), "{names:?}");
        // A computed include in a local header is found, with its file.
        std::fs::write(root.join("sub/c.h"), "#define H \"d.h\"\n#include H\n").unwrap();
        let deps = local_headers(&root.join("k.cu"), src, std::slice::from_ref(&inc));
        let (file, line) = deps.computed.expect("the computed include in sub/c.h");
        assert!(file.ends_with("sub/c.h"), "{}", file.display());
        assert_eq!(line, "#include H");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn computed_include_lines() {
        assert_eq!(
            computed_include("#include \"a.h\"\n #  include STR(VALHDR) // x\n"),
            Some("#  include STR(VALHDR) // x".into())
        );
        assert_eq!(
            computed_include("#include <a.h>\n#include_next <b.h>\n#includex\n"),
            None
        );
        assert_eq!(
            computed_include("#include\n#include /* c */ \"a.h\"\n"),
            None
        );
    }
}
