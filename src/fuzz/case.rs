//! Launch descriptions of generated kernels, and writing/reading them as case files.
//!
//! A [`LaunchCase`] is what the differential runner needs: PTX text, kernel name, grid, block,
//! dynamic shared bytes, arguments and buffers with deterministic contents. It is written in
//! the case format of `CASE-FORMAT.md` (`ptx`, `kernel`, `grid`, `block`, `shared_bytes`,
//! `args`, `[buffers.NAME]` with `type = "u32"`, `len`, `init = { values = [...] }`, and
//! `[textures.NAME]`/`[surfaces.NAME]`/`[tensor_maps.NAME]` over a buffer, `cluster`), with
//! **no `[expect]` tables**: a generated kernel's expected output is not known independently,
//! so the check for such a case is that the interpreter and the JIT agree bit for bit on every
//! buffer (and on faults) — what `ptxjit check CASE.toml` does (and the `check::` trials of
//! `tests/ptx_tests.rs`, which pick up every case under `ptx-tests/`).

use std::fmt::Write as _;

use super::gen::{Kernel, TexSetup, TmapSetup, ATOM_BYTES, IN_BYTES, OUT_REGION, SURF_ROW};

/// A kernel argument of a generated case.
#[derive(Clone, Debug, PartialEq)]
pub enum CaseArg {
    /// The device address of a buffer.
    Buffer(String),
    U32(u32),
    /// The handle of the case's texture object of this name (`{ texture = "NAME" }`).
    Texture(String),
    /// The handle of the case's surface object of this name (`{ surface = "NAME" }`).
    Surface(String),
    /// The case's tensor map of this name by value (`{ tensor_map = "NAME" }`).
    TensorMap(String),
}

/// A tile-mode tensor map over a buffer (`[tensor_maps.NAME]` of the case format).
#[derive(Clone, Debug, PartialEq)]
pub struct CaseTensorMap {
    pub name: String,
    /// The buffer whose start is the tensor's global address.
    pub buffer: String,
    /// The map as encoded (a writable map's last dimension already covers every CTA).
    pub setup: TmapSetup,
}

/// A texture or surface object over a whole buffer (`[textures.NAME]` /
/// `[surfaces.NAME]` of the case format): a resource of any kind but linear and
/// multisample (a surface's is 2D), and for a texture the sampler state of [`TexSetup`] (a
/// surface ignores it).
#[derive(Clone, Debug, PartialEq)]
pub struct CaseTexture {
    pub name: String,
    /// The buffer holding the texels (from its start).
    pub buffer: String,
    /// A surface object (else a texture object).
    pub surface: bool,
    pub setup: TexSetup,
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
    /// Texture and surface objects, created after the buffers.
    pub textures: Vec<CaseTexture>,
    /// Tensor maps, built after the buffers.
    pub tensor_maps: Vec<CaseTensorMap>,
    /// The cluster shape (`cluster = [x, y, z]`; `LaunchOptions::cluster`), or none.
    pub cluster: Option<[u32; 3]>,
    /// Run both engines in lockstep order (`lockstep = true` in the case file;
    /// `LaunchOptions::lockstep`); generated kernels target `sm_80`, so otherwise group-major.
    pub lockstep: bool,
}

impl LaunchCase {
    /// The launch of a generated kernel: buffers `in` (the kernel's input words), `out`
    /// ([`OUT_REGION`] bytes per thread) and `atom` ([`ATOM_BYTES`]), then `k`; with
    /// [`Kernel::tex`], also the texture `tex` over `in` and the surface `surf` over the
    /// buffer `surf` ([`SURF_ROW`] bytes per thread of the grid, 2D `u32`), whose handles
    /// follow `k`; with [`Kernel::tmap`], the tensor map `tmap` over `in`; with
    /// [`Kernel::tmap_out`], the buffer `tout` (its initial words from `in`, repeated) and
    /// the tensor map `tmapo` over it, whose last dimension is the kernel's slab times the
    /// CTAs (the last argument); with [`Kernel::cluster`], the cluster launch.
    pub fn of_kernel(k: &Kernel) -> LaunchCase {
        debug_assert_eq!(k.input.len() as u32, IN_BYTES / 4);
        let mut case = LaunchCase {
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
            textures: Vec::new(),
            tensor_maps: Vec::new(),
            cluster: None,
            lockstep: false,
        };
        // Each dimension of the kernel's shape that divides the grid's (the shrinker may
        // have changed the grid); a shape of one CTA is no cluster launch.
        let mut cluster = [1u32; 3];
        for ((c, &want), &g) in cluster.iter_mut().zip(&k.cluster).zip(&k.grid) {
            if want > 0 && g.is_multiple_of(want) {
                *c = want;
            }
        }
        if cluster != [1, 1, 1] {
            case.cluster = Some(cluster);
        }
        if let Some(setup) = k.tex {
            let rows = k.threads();
            let words = SURF_ROW / 4;
            case.buffers.push(CaseBuffer {
                name: "surf".into(),
                len: (rows * words) as usize,
                init: Some(
                    (0..rows * words)
                        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0x00ff_00f0)
                        .collect(),
                ),
            });
            case.textures.push(CaseTexture {
                name: "tex".into(),
                buffer: "in".into(),
                surface: false,
                setup,
            });
            let surf = setup.flat_2d("u32", words, rows);
            case.textures.push(CaseTexture {
                name: "surf".into(),
                buffer: "surf".into(),
                surface: true,
                setup: surf,
            });
            case.args.push(CaseArg::Texture("tex".into()));
            case.args.push(CaseArg::Surface("surf".into()));
        }
        if let Some(setup) = k.tmap {
            case.tensor_maps.push(CaseTensorMap {
                name: "tmap".into(),
                buffer: "in".into(),
                setup,
            });
            case.args.push(CaseArg::TensorMap("tmap".into()));
        }
        if let Some(slab) = k.tmap_out {
            let setup = slab.times_outer(k.grid.iter().product());
            let words = setup.bytes() / 4;
            case.buffers.push(CaseBuffer {
                name: "tout".into(),
                len: words as usize,
                init: Some(
                    (0..words as usize)
                        .map(|i| k.input[i % k.input.len()])
                        .collect(),
                ),
            });
            case.tensor_maps.push(CaseTensorMap {
                name: "tmapo".into(),
                buffer: "tout".into(),
                setup,
            });
            case.args.push(CaseArg::TensorMap("tmapo".into()));
        }
        case
    }

    /// As [`of_kernel`](Self::of_kernel), in lockstep order or not.
    pub fn of_kernel_in(k: &Kernel, lockstep: bool) -> LaunchCase {
        LaunchCase {
            lockstep,
            ..LaunchCase::of_kernel(k)
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
        if self.lockstep {
            let _ = writeln!(s, "lockstep = true");
        }
        if let Some(c) = self.cluster {
            let _ = writeln!(s, "cluster = {}", dims(c));
        }
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| match a {
                CaseArg::Buffer(b) => format!("{{ buffer = {} }}", toml_str(b)),
                CaseArg::U32(v) => format!("{{ u32 = {v} }}"),
                CaseArg::Texture(t) => format!("{{ texture = {} }}", toml_str(t)),
                CaseArg::Surface(t) => format!("{{ surface = {} }}", toml_str(t)),
                CaseArg::TensorMap(t) => format!("{{ tensor_map = {} }}", toml_str(t)),
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
        for t in &self.textures {
            let u = &t.setup;
            let table = if t.surface { "surfaces" } else { "textures" };
            let _ = writeln!(
                s,
                "\n[{table}.{}]\nsource = {{ buffer = {} }}\nkind = \"{}\"\nformat = \"{}\"\nchannels = {}\nwidth = {}\nheight = {}",
                t.name,
                toml_str(&t.buffer),
                u.kind,
                u.format,
                u.channels,
                u.width,
                u.height
            );
            for (key, v) in [
                ("depth", u.depth),
                ("layers", u.layers),
                ("mip_levels", u.mip_levels),
            ] {
                if v != 1 {
                    let _ = writeln!(s, "{key} = {v}");
                }
            }
            if !t.surface {
                let border: Vec<String> = u.border.iter().map(|b| format!("{b:?}")).collect();
                let _ = writeln!(
                    s,
                    "address = [\"{}\", \"{}\", \"{}\"]\nborder_color = [{}]\nfilter = \"{}\"\nnormalized_coords = {}\nread_mode = \"{}\"",
                    u.address[0],
                    u.address[1],
                    u.address[2],
                    border.join(", "),
                    if u.linear { "linear" } else { "point" },
                    u.normalized_coords,
                    if u.read_normalized { "normalized_float" } else { "element" }
                );
            }
        }
        for t in &self.tensor_maps {
            let u = &t.setup;
            let list = |v: &[u32]| {
                let v: Vec<String> = v[..u.rank as usize].iter().map(u32::to_string).collect();
                v.join(", ")
            };
            let _ = writeln!(
                s,
                "\n[tensor_maps.{}]\nbuffer = {}\ntype = \"{}\"\ndims = [{}]\nbox = [{}]\noob_fill = \"{}\"",
                t.name,
                toml_str(&t.buffer),
                u.ty,
                list(&u.dims),
                list(&u.boxd),
                if u.oob_nan { "nan" } else { "zero" }
            );
        }
        s
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
