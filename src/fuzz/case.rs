//! Launch descriptions of generated kernels, and writing/reading them as case files.
//!
//! A [`LaunchCase`] is what the differential runner needs: PTX text, kernel name, grid, block,
//! dynamic shared bytes, arguments and buffers with deterministic contents. It is written in
//! the case format of `CASE-FORMAT.md` (`ptx`, `kernel`, `grid`, `block`, `shared_bytes`,
//! `args`, `[buffers.NAME]` with `type = "u32"`, `len`, `init = { values = [...] }`), with
//! **no `[expect]` tables**: a generated kernel's expected output is not known independently,
//! so the check for such a case is that the interpreter and the JIT agree bit for bit on every
//! buffer (and on faults) — what `ptxjit check CASE.toml` does. [`LaunchCase::from_toml`]
//! reads back the subset written here (the regression tests use it).

use std::fmt::Write as _;
use std::path::Path;

use super::gen::{Kernel, ATOM_BYTES, IN_BYTES, OUT_REGION};

/// A kernel argument of a generated case.
#[derive(Clone, Debug, PartialEq)]
pub enum CaseArg {
    /// The device address of a buffer.
    Buffer(String),
    U32(u32),
}

/// A `u32` device buffer: `len` words, `init` values or zero-filled.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseBuffer {
    pub name: String,
    pub len: usize,
    pub init: Option<Vec<u32>>,
}

/// One launch of one kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchCase {
    pub ptx: String,
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    pub args: Vec<CaseArg>,
    pub buffers: Vec<CaseBuffer>,
}

impl LaunchCase {
    /// The launch of a generated kernel: buffers `in` (the kernel's input words), `out`
    /// ([`OUT_REGION`] bytes per thread) and `atom` ([`ATOM_BYTES`]), then `k`.
    pub fn of_kernel(k: &Kernel) -> LaunchCase {
        debug_assert_eq!(k.input.len() as u32, IN_BYTES / 4);
        LaunchCase {
            ptx: k.render(),
            kernel: k.name.clone(),
            grid: k.grid,
            block: k.block,
            shared_bytes: k.dynamic_shared_bytes(),
            args: vec![
                CaseArg::Buffer("in".into()),
                CaseArg::Buffer("out".into()),
                CaseArg::Buffer("atom".into()),
                CaseArg::U32(k.k),
            ],
            buffers: vec![
                CaseBuffer {
                    name: "in".into(),
                    len: k.input.len(),
                    init: Some(k.input.clone()),
                },
                CaseBuffer {
                    name: "out".into(),
                    len: (k.threads() * OUT_REGION / 4) as usize,
                    init: None,
                },
                CaseBuffer {
                    name: "atom".into(),
                    len: (ATOM_BYTES / 4) as usize,
                    init: None,
                },
            ],
        }
    }

    /// The case file text; `ptx_file` is the PTX file name relative to the case file, and
    /// `comment` lines go first as `#` comments.
    pub fn to_toml(&self, ptx_file: &str, comment: &str) -> String {
        let mut s = String::new();
        for line in comment.lines() {
            let _ = writeln!(s, "# {line}");
        }
        let _ = writeln!(s, "ptx = {}", toml_str(ptx_file));
        let _ = writeln!(s, "kernel = {}", toml_str(&self.kernel));
        let dims = |d: [u32; 3]| format!("[{}, {}, {}]", d[0], d[1], d[2]);
        let _ = writeln!(s, "grid = {}", dims(self.grid));
        let _ = writeln!(s, "block = {}", dims(self.block));
        let _ = writeln!(s, "shared_bytes = {}", self.shared_bytes);
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| match a {
                CaseArg::Buffer(b) => format!("{{ buffer = {} }}", toml_str(b)),
                CaseArg::U32(v) => format!("{{ u32 = {v} }}"),
            })
            .collect();
        let _ = writeln!(s, "args = [{}]", args.join(", "));
        for b in &self.buffers {
            let _ = writeln!(s, "\n[buffers.{}]\ntype = \"u32\"\nlen = {}", b.name, b.len);
            if let Some(v) = &b.init {
                s.push_str("init = { values = [");
                for (i, w) in v.iter().enumerate() {
                    if i % 8 == 0 {
                        s.push_str("\n  ");
                    }
                    let _ = write!(s, "{w}, ");
                }
                s.push_str("\n] }\n");
            }
        }
        s
    }

    /// Reads a case written by [`LaunchCase::to_toml`] (PTX loaded relative to `dir`).
    /// Errors name what is missing or unsupported.
    pub fn from_toml(text: &str, dir: &Path) -> Result<LaunchCase, String> {
        let v: toml::Table = text.parse().map_err(|e| format!("bad TOML: {e}"))?;
        let get_str = |k: &str| -> Result<String, String> {
            v.get(k)
                .and_then(|x| x.as_str())
                .map(str::to_string)
                .ok_or_else(|| format!("missing string key '{k}'"))
        };
        let u32_of = |x: &toml::Value, what: &str| -> Result<u32, String> {
            x.as_integer()
                .and_then(|i| u32::try_from(i).ok())
                .ok_or_else(|| format!("{what}: expected a u32"))
        };
        let dims = |k: &str| -> Result<[u32; 3], String> {
            let a = v
                .get(k)
                .and_then(|x| x.as_array())
                .ok_or_else(|| format!("missing '{k}'"))?;
            let mut d = [1u32; 3];
            if a.is_empty() || a.len() > 3 {
                return Err(format!("'{k}' needs 1 to 3 numbers"));
            }
            for (i, x) in a.iter().enumerate() {
                d[i] = u32_of(x, k)?;
            }
            Ok(d)
        };
        let ptx_path = dir.join(get_str("ptx")?);
        let ptx = std::fs::read_to_string(&ptx_path)
            .map_err(|e| format!("{}: {e}", ptx_path.display()))?;
        let mut args = Vec::new();
        for a in v
            .get("args")
            .and_then(|x| x.as_array())
            .into_iter()
            .flatten()
        {
            let t = a.as_table().ok_or("an argument must be a table")?;
            if let Some(b) = t.get("buffer").and_then(|x| x.as_str()) {
                args.push(CaseArg::Buffer(b.to_string()));
            } else if let Some(x) = t.get("u32") {
                args.push(CaseArg::U32(u32_of(x, "u32 argument")?));
            } else {
                return Err(format!("unsupported argument {a} (only buffer and u32)"));
            }
        }
        let mut buffers = Vec::new();
        if let Some(bs) = v.get("buffers").and_then(|x| x.as_table()) {
            for (name, b) in bs {
                let ty = b.get("type").and_then(|x| x.as_str()).unwrap_or("");
                if ty != "u32" {
                    return Err(format!("buffer '{name}': only type u32 is supported here"));
                }
                let init = match b.get("init") {
                    None => None,
                    Some(i) => {
                        let vals = i
                            .get("values")
                            .and_then(|x| x.as_array())
                            .ok_or_else(|| format!("buffer '{name}': only init.values"))?;
                        Some(
                            vals.iter()
                                .map(|x| u32_of(x, name))
                                .collect::<Result<Vec<_>, _>>()?,
                        )
                    }
                };
                let len = match (b.get("len"), &init) {
                    (Some(l), _) => u32_of(l, "len")? as usize,
                    (None, Some(v)) => v.len(),
                    (None, None) => return Err(format!("buffer '{name}': no len")),
                };
                buffers.push(CaseBuffer {
                    name: name.clone(),
                    len,
                    init,
                });
            }
        }
        Ok(LaunchCase {
            ptx,
            kernel: get_str("kernel")?,
            grid: dims("grid")?,
            block: dims("block")?,
            shared_bytes: v
                .get("shared_bytes")
                .map(|x| u32_of(x, "shared_bytes"))
                .transpose()?
                .unwrap_or(0),
            args,
            buffers,
        })
    }
}

fn toml_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}
