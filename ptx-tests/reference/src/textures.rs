//! Host reference for the texture and surface kernels (`ptx-tests/kernels/tex_*`, `surf_*`).
//!
//! Written from the CUDA C++ Programming Guide's "Texture Fetching" appendix, independently of
//! ptxjit's runtime:
//! - texel coordinates: normalized coordinates are multiplied by the size first;
//! - nearest-point sampling: `T[floor(x)]`;
//! - linear filtering: `xB = x - 0.5`, `i = floor(xB)`, `α = frac(xB)` kept in 9-bit fixed
//!   point with 8 fractional bits (so rounded to a multiple of 1/256), then
//!   `(1-α)T[i] + αT[i+1]` (and the 2D/3D products);
//! - addressing per texel index: clamp to the edge texel, border colour outside, wrap
//!   (index mod N) and mirror (period 2N), the last two only with normalized coordinates;
//! - normalized-float reads of unsigned 8-bit channels: `v / 255`;
//! - missing channels read 0, a missing alpha 1.
//! The cases write every value with `f64` arithmetic and compare with a small absolute
//! tolerance (1e-5): far below the 1/512 effect of the weight quantization, so the tests do
//! tell a quantized lerp from an ideal one.

use super::{write, Rng};
use std::fmt::Write as _;
use std::path::Path;

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Addr {
    Wrap,
    Clamp,
    Mirror,
    Border,
}

impl Addr {
    fn name(self) -> &'static str {
        match self {
            Addr::Wrap => "wrap",
            Addr::Clamp => "clamp",
            Addr::Mirror => "mirror",
            Addr::Border => "border",
        }
    }
}

/// A texture as the reference sees it: channel values already converted to floats.
pub struct RefTex {
    /// Sizes: x, y, z.
    pub size: [usize; 3],
    pub layers: usize,
    pub channels: usize,
    /// `data[(((layer * d + z) * h + y) * w + x) * channels + c]`.
    pub data: Vec<f64>,
    pub addr: [Addr; 3],
    pub linear: bool,
    pub normalized: bool,
    pub border: [f64; 4],
}

/// Round `a` in [0, 1) to 8 fractional bits (the guide's 9-bit fixed-point weight).
fn quantize(a: f64) -> f64 {
    (a * 256.0).round() / 256.0
}

impl RefTex {
    /// Texel (x, y, z) of `layer`, with addressing; `None` → border.
    fn fetch(&self, layer: usize, idx: [i64; 3], dims: usize) -> [f64; 4] {
        let mut p = [0usize; 3];
        for d in 0..dims {
            let n = self.size[d] as i64;
            let i = idx[d];
            let mode = if !self.normalized && matches!(self.addr[d], Addr::Wrap | Addr::Mirror) {
                Addr::Clamp
            } else {
                self.addr[d]
            };
            let v = match mode {
                Addr::Clamp => i.max(0).min(n - 1),
                Addr::Border => {
                    if i < 0 || i >= n {
                        return self.border;
                    }
                    i
                }
                Addr::Wrap => ((i % n) + n) % n,
                Addr::Mirror => {
                    let period = ((i % (2 * n)) + 2 * n) % (2 * n);
                    if period < n {
                        period
                    } else {
                        2 * n - 1 - period
                    }
                }
            };
            p[d] = v as usize;
        }
        let [w, h, dd] = self.size;
        let base = (((layer * dd + p[2]) * h + p[1]) * w + p[0]) * self.channels;
        let mut out = [0.0, 0.0, 0.0, 1.0];
        for c in 0..self.channels {
            out[c] = self.data[base + c];
        }
        out
    }

    /// Sample at coordinates `x` (`dims` of them) in `layer`.
    pub fn sample(&self, layer: usize, x: [f32; 3], dims: usize) -> [f64; 4] {
        let mut t = [0f64; 3];
        for d in 0..dims {
            // The hardware scales in single precision.
            t[d] = if self.normalized {
                (x[d] * self.size[d] as f32) as f64
            } else {
                x[d] as f64
            };
        }
        if !self.linear {
            let idx = [t[0].floor() as i64, t[1].floor() as i64, t[2].floor() as i64];
            return self.fetch(layer, idx, dims);
        }
        let mut i0 = [0i64; 3];
        let mut a = [0f64; 3];
        for d in 0..dims {
            let xb = (t[d] as f32 - 0.5) as f64;
            i0[d] = xb.floor() as i64;
            a[d] = quantize(xb - xb.floor());
        }
        let mut out = [0f64; 4];
        for corner in 0..(1 << dims) {
            let mut idx = i0;
            let mut w = 1.0;
            for d in 0..dims {
                if corner >> d & 1 == 1 {
                    idx[d] += 1;
                    w *= a[d];
                } else {
                    w *= 1.0 - a[d];
                }
            }
            let v = self.fetch(layer, idx, dims);
            for c in 0..4 {
                out[c] += w * v[c];
            }
        }
        out
    }
}

/// A case file, written next to the kernel.
struct CaseFile {
    text: String,
}

impl CaseFile {
    fn new(comment: &str, ptx: &str, kernel: &str, grid: u32, block: u32, args: &str) -> Self {
        let mut text = String::new();
        let _ = writeln!(text, "# {comment}");
        let _ = writeln!(text, "# Written by ptx-tests/reference (textures.rs); expected values from its host reference.");
        let _ = writeln!(text, "ptx = \"{ptx}\"\nkernel = \"{kernel}\"\ngrid = [{grid}]\nblock = [{block}]");
        let _ = writeln!(text, "args = [{args}]");
        CaseFile { text }
    }
    fn add(&mut self, s: &str) {
        self.text.push('\n');
        self.text.push_str(s);
        self.text.push('\n');
    }
    fn write(&self, dir: &Path, name: &str) {
        let p = dir.join(format!("{name}.toml"));
        std::fs::write(&p, &self.text).unwrap_or_else(|e| panic!("writing {}: {e}", p.display()));
        println!("  wrote {}", p.display());
    }
}

fn addr_list(a: [Addr; 3]) -> String {
    format!("[\"{}\", \"{}\", \"{}\"]", a[0].name(), a[1].name(), a[2].name())
}

/// `tex2d`: tex2D<float4> at per-thread coordinates, one case per sampler configuration.
pub fn tex2d(dir: &Path) {
    const N: usize = 256;
    const W: usize = 7;
    const H: usize = 5;
    struct Cfg {
        name: &'static str,
        u8rgba: bool,
        linear: bool,
        normalized: bool,
        addr: [Addr; 3],
    }
    use Addr::*;
    let cfgs = [
        Cfg { name: "point_clamp", u8rgba: false, linear: false, normalized: false, addr: [Clamp; 3] },
        Cfg { name: "point_border", u8rgba: false, linear: false, normalized: false, addr: [Border; 3] },
        Cfg { name: "point_wrap_norm", u8rgba: true, linear: false, normalized: true, addr: [Wrap; 3] },
        Cfg { name: "point_mirror_norm", u8rgba: false, linear: false, normalized: true, addr: [Mirror; 3] },
        Cfg { name: "linear_clamp", u8rgba: false, linear: true, normalized: false, addr: [Clamp; 3] },
        Cfg { name: "linear_border", u8rgba: true, linear: true, normalized: false, addr: [Border; 3] },
        Cfg { name: "linear_clamp_norm", u8rgba: true, linear: true, normalized: true, addr: [Clamp; 3] },
        Cfg { name: "linear_wrap_norm", u8rgba: true, linear: true, normalized: true, addr: [Wrap, Wrap, Wrap] },
        Cfg { name: "linear_mirror_norm", u8rgba: false, linear: true, normalized: true, addr: [Mirror; 3] },
        Cfg { name: "linear_wrap_mirror_norm", u8rgba: true, linear: true, normalized: true, addr: [Wrap, Mirror, Clamp] },
        Cfg { name: "linear_wrap_unnorm_acts_as_clamp", u8rgba: false, linear: true, normalized: false, addr: [Wrap, Mirror, Clamp] },
    ];
    let border = [0.25, 0.5, 0.75, 1.0];
    for (k, c) in cfgs.iter().enumerate() {
        let mut rng = Rng::new(100 + k as u64);
        let channels = if c.u8rgba { 4 } else { 1 };
        let (data, bytes_u8, data_f32): (Vec<f64>, Vec<u8>, Vec<f32>) = if c.u8rgba {
            let b: Vec<u8> = (0..W * H * 4).map(|_| (rng.next_u64() >> 56) as u8).collect();
            (b.iter().map(|&v| v as f64 / 255.0).collect(), b, vec![])
        } else {
            let f = rng.f32_vec(W * H);
            (f.iter().map(|&v| v as f64).collect(), vec![], f)
        };
        let tex = RefTex {
            size: [W, H, 1],
            layers: 1,
            channels,
            data,
            addr: c.addr,
            linear: c.linear,
            normalized: c.normalized,
            border,
        };
        // Coordinates a little past every edge; in texel units or normalized. Values are
        // multiples of 1/64 plus a 1/1024 offset, so no coordinate sits on a rounding tie.
        let (lo, hi) = if c.normalized { (-1.5f32, 2.5f32) } else { (-3.0, W as f32 + 3.0) };
        let (lo_y, hi_y) = if c.normalized { (-1.5f32, 2.5f32) } else { (-3.0, H as f32 + 3.0) };
        let coord = |rng: &mut Rng, lo: f32, hi: f32| {
            let u = (rng.next_u64() >> 40) as f32 / 16_777_216.0;
            let v = lo + (hi - lo) * u;
            (v * 64.0).floor() / 64.0 + 1.0 / 1024.0
        };
        let xs: Vec<f32> = (0..N).map(|_| coord(&mut rng, lo, hi)).collect();
        let ys: Vec<f32> = (0..N).map(|_| coord(&mut rng, lo_y, hi_y)).collect();
        let mut out = Vec::with_capacity(N * 4);
        for i in 0..N {
            let v = tex.sample(0, [xs[i], ys[i], 0.0], 2);
            out.extend(v.iter().map(|&x| x as f32));
        }
        let p = c.name;
        write(dir, &format!("{p}_x.npy"), &xs);
        write(dir, &format!("{p}_y.npy"), &ys);
        write(dir, &format!("{p}_expected.npy"), &out);
        let (fmt, src) = if c.u8rgba {
            write(dir, &format!("{p}_texels.npy"), &bytes_u8);
            ("u8", "channels = 4\nread_mode = \"normalized_float\"")
        } else {
            write(dir, &format!("{p}_texels.npy"), &data_f32);
            ("f32", "channels = 1")
        };
        let mut cf = CaseFile::new(
            &format!(
                "tex2D<float4>, {} filtering, address {:?}, {} coordinates, {} texels",
                if c.linear { "linear" } else { "point" },
                c.addr,
                if c.normalized { "normalized" } else { "texel" },
                if c.u8rgba { "u8 RGBA (normalized-float reads)" } else { "f32 one-channel" }
            ),
            "tex2d.ptx",
            "tex2d",
            (N / 64) as u32,
            64,
            &format!(
                "{{ texture = \"t\" }}, {{ buffer = \"x\" }}, {{ buffer = \"y\" }}, {{ buffer = \"out\" }}, {{ s32 = {N} }}"
            ),
        );
        cf.add(&format!(
            "[buffers.texels]\ntype = \"{fmt}\"\ninit = {{ file = \"{p}_texels.npy\" }}\n\n\
             [buffers.x]\ntype = \"f32\"\ninit = {{ file = \"{p}_x.npy\" }}\n\n\
             [buffers.y]\ntype = \"f32\"\ninit = {{ file = \"{p}_y.npy\" }}\n\n\
             [buffers.out]\ntype = \"f32\"\nlen = {}\n\n\
             [textures.t]\nsource = {{ buffer = \"texels\" }}\nkind = \"2d\"\nformat = \"{fmt}\"\n{src}\n\
             width = {W}\nheight = {H}\naddress = {}\nborder_color = [{}, {}, {}, {}]\n\
             filter = \"{}\"\nnormalized_coords = {}\n\n\
             [expect.out]\nfile = \"{p}_expected.npy\"\ntolerance = {{ abs = 1e-5 }}",
            N * 4,
            addr_list(c.addr),
            border[0],
            border[1],
            border[2],
            border[3],
            if c.linear { "linear" } else { "point" },
            c.normalized
        ));
        cf.write(dir, p);
    }
}

pub fn run_all(root: &Path) {
    let run = |name: &str, f: &dyn Fn(&Path)| {
        let dir = root.join(name);
        assert!(dir.is_dir(), "{} is not a directory", dir.display());
        println!("{name}");
        f(&dir);
    };
    run("tex2d", &tex2d);
}
