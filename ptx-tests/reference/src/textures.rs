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
        self.sample_ext(layer, x, dims, [0; 3], None)
    }

    /// `fetch` with the depth compare of PTX ISA §9.7.10.3 (operand `f`): the first channel
    /// becomes 1.0 when `f <= texel` (OpenGL's default LEQUAL), else 0.0.
    fn fetch_cmp(&self, layer: usize, idx: [i64; 3], dims: usize, cmp: Option<f32>) -> [f64; 4] {
        let mut v = self.fetch(layer, idx, dims);
        if let Some(f) = cmp {
            v[0] = if f as f64 <= v[0] { 1.0 } else { 0.0 };
        }
        v
    }

    /// `sample` with texel offsets (PTX ISA §9.7.10.3 operand `e`: added in texels, after
    /// normalized coordinates are scaled, in single precision) and a depth-compare value
    /// (each texel is compared before filtering).
    pub fn sample_ext(
        &self,
        layer: usize,
        x: [f32; 3],
        dims: usize,
        off: [i32; 3],
        cmp: Option<f32>,
    ) -> [f64; 4] {
        let mut t = [0f64; 3];
        for d in 0..dims {
            // The hardware scales in single precision.
            let s = if self.normalized { x[d] * self.size[d] as f32 } else { x[d] };
            t[d] = (s + off[d] as f32) as f64;
        }
        if !self.linear {
            let idx = [t[0].floor() as i64, t[1].floor() as i64, t[2].floor() as i64];
            return self.fetch_cmp(layer, idx, dims, cmp);
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
            let v = self.fetch_cmp(layer, idx, dims, cmp);
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
        if p == "linear_clamp" {
            // The same with n = 200: the last warp runs with 8 of its 32 lanes, the rest of
            // the output stays zero.
            let mut partial = out.clone();
            partial[200 * 4..].fill(0.0);
            write(dir, "partial_warp_expected.npy", &partial);
        }
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

/// A coordinate in [lo, hi) on a 1/64 grid plus 1/1024: never on a rounding tie.
fn coord(rng: &mut Rng, lo: f32, hi: f32) -> f32 {
    let u = (rng.next_u64() >> 40) as f32 / 16_777_216.0;
    let v = lo + (hi - lo) * u;
    (v * 64.0).floor() / 64.0 + 1.0 / 1024.0
}

/// `tex_fetch`: tex1Dfetch on linear memory (f32, u8x4 normalized, s32 element reads).
pub fn tex_fetch(dir: &Path) {
    const N: usize = 128;
    const W: usize = 50;
    let mut rng = Rng::new(200);
    let tf = rng.f32_vec(W);
    let tu: Vec<u8> = (0..W * 4).map(|_| (rng.next_u64() >> 56) as u8).collect();
    let ti: Vec<i32> = (0..W).map(|_| rng.next_u64() as i32).collect();
    let idx: Vec<i32> = (0..N).map(|_| (rng.next_u64() % 60) as i32 - 5).collect();
    let mut of = vec![];
    let mut ou = vec![];
    let mut oi = vec![];
    for &k in &idx {
        let inside = k >= 0 && (k as usize) < W;
        of.push(if inside { tf[k as usize] } else { 0.0 });
        for c in 0..4 {
            ou.push(if inside { tu[k as usize * 4 + c] as f32 / 255.0 } else { 0.0 });
        }
        oi.push(if inside { ti[k as usize] } else { 0 });
    }
    write(dir, "tf.npy", &tf);
    write(dir, "tu.npy", &tu);
    write(dir, "ti.npy", &ti);
    write(dir, "idx.npy", &idx);
    write(dir, "of_expected.npy", &of);
    write(dir, "ou_expected.npy", &ou);
    write(dir, "oi_expected.npy", &oi);
}

/// Cube-map face and face coordinates, from the guide's table ("Cubemap Textures").
fn cube_lookup(x: f64, y: f64, z: f64) -> (usize, f64, f64) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, m, s, t) = if ax >= ay && ax >= az {
        if x > 0.0 { (0, ax, -z, -y) } else { (1, ax, z, -y) }
    } else if ay >= az {
        if y > 0.0 { (2, ay, x, z) } else { (3, ay, x, -z) }
    } else if z > 0.0 {
        (4, az, x, -y)
    } else {
        (5, az, -x, -y)
    };
    (face, (s / m + 1.0) / 2.0, (t / m + 1.0) / 2.0)
}

/// `tex_shapes`: 1D, 3D, 1D/2D layered, cube and cube layered.
pub fn tex_shapes(dir: &Path) {
    const N: usize = 160;
    let mut rng = Rng::new(300);
    use Addr::*;
    let mk = |rng: &mut Rng, size: [usize; 3], layers: usize, addr: [Addr; 3], linear: bool| {
        let n = size[0] * size[1] * size[2] * layers;
        let d = rng.f32_vec(n);
        (
            d.clone(),
            RefTex {
                size,
                channels: 1,
                data: d.iter().map(|&v| v as f64).collect(),
                addr,
                linear,
                normalized: true,
                border: [0.5, 0.0, 0.0, 0.0],
            },
        )
    };
    let (d1, t1) = mk(&mut rng, [9, 1, 1], 1, [Wrap; 3], true);
    let (d3, t3) = mk(&mut rng, [5, 4, 3], 1, [Clamp, Mirror, Wrap], true);
    let (dl1, l1) = mk(&mut rng, [6, 1, 1], 3, [Mirror; 3], false);
    let (dl2, l2) = mk(&mut rng, [4, 5, 1], 3, [Border; 3], true);
    let (dc, cube) = mk(&mut rng, [4, 4, 1], 6, [Clamp; 3], true);
    let (dcl, cubel) = mk(&mut rng, [3, 3, 1], 18, [Clamp; 3], false);
    let mut c = vec![];
    let mut out = vec![];
    for _ in 0..N {
        let (mut x, mut y, mut z);
        loop {
            x = coord(&mut rng, -0.25, 1.25);
            y = coord(&mut rng, -0.25, 1.25);
            z = coord(&mut rng, -0.25, 1.25);
            let (a, b, cc) = ((x - 0.5).abs(), (y - 0.5).abs(), (z - 0.5).abs());
            if a != b && b != cc && a != cc {
                break;
            }
        }
        let layer = (rng.next_u64() % 3) as usize;
        c.extend([x, y, z, layer as f32 + 0.25]);
        out.push(t1.sample(0, [x, 0.0, 0.0], 1)[0]);
        out.push(t3.sample(0, [x, y, z], 3)[0]);
        out.push(l1.sample(layer, [x, 0.0, 0.0], 1)[0]);
        out.push(l2.sample(layer, [x, y, 0.0], 2)[0]);
        let (cx, cy, cz) = ((x - 0.5) as f64, (y - 0.5) as f64, (z - 0.5) as f64);
        let (f, s, t) = cube_lookup(cx, cy, cz);
        out.push(cube.sample(f, [s as f32, t as f32, 0.0], 2)[0]);
        out.push(cubel.sample(layer * 6 + f, [s as f32, t as f32, 0.0], 2)[0]);
    }
    write(dir, "c.npy", &c);
    for (name, d) in [("t1", &d1), ("t3", &d3), ("l1", &dl1), ("l2", &dl2), ("cube", &dc), ("cubel", &dcl)] {
        write(dir, &format!("{name}.npy"), d);
    }
    let out: Vec<f32> = out.iter().map(|&v| v as f32).collect();
    write(dir, "out_expected.npy", &out);
}

/// `tex_lod`: a mipmapped 16x8 texture (5 levels), linear filtering within and between levels.
pub fn tex_lod(dir: &Path) {
    const N: usize = 128;
    const LEVELS: usize = 5;
    let mut rng = Rng::new(400);
    let mut levels = vec![];
    let mut all = vec![];
    for l in 0..LEVELS {
        let size = [(16 >> l).max(1), (8 >> l).max(1), 1];
        let d = rng.f32_vec(size[0] * size[1]);
        all.extend_from_slice(&d);
        levels.push(RefTex {
            size,
            channels: 1,
            data: d.iter().map(|&v| v as f64).collect(),
            addr: [Addr::Clamp; 3],
            linear: true,
            normalized: true,
            border: [0.0; 4],
        });
    }
    // Level of detail → the blend of floor(lod) and the next level, weight frac(lod) in 1/256
    // steps, clamped to the levels there are.
    let at_lod = |lod: f64, x: f32, y: f32| -> f64 {
        let lod = lod.max(0.0).min((LEVELS - 1) as f64);
        let l0 = lod.floor() as usize;
        let a = quantize(lod - lod.floor());
        let l1 = (l0 + 1).min(LEVELS - 1);
        let v0 = levels[l0].sample(0, [x, y, 0.0], 2)[0];
        if a == 0.0 {
            return v0;
        }
        let v1 = levels[l1].sample(0, [x, y, 0.0], 2)[0];
        (1.0 - a) * v0 + a * v1
    };
    let mut c = vec![];
    let mut out = vec![];
    for _ in 0..N {
        let x = coord(&mut rng, -0.2, 1.2);
        let y = coord(&mut rng, -0.2, 1.2);
        let lod = coord(&mut rng, -0.5, 5.0);
        // Gradients: dPdx = (g, 0), dPdy = (0, g/2) → ρ = max(16g, 4g) = 16g texels: with g a
        // power of two over 16 the level is an exact integer (log2).
        let e = (rng.next_u64() % 7) as i32 - 1;
        let g = 2f32.powi(e) / 16.0;
        c.extend([x, y, lod, g]);
        out.push(at_lod(lod as f64, x, y));
        out.push(at_lod(e as f64, x, y));
    }
    // A second case on the same texture and coordinates: nearest-level mip filtering, lod bias
    // 0.75, lod clamped to [1, 3] (the gradient half is the same lods through the same rule).
    let at_lod_point = |lod: f64, x: f32, y: f32| -> f64 {
        let lod = (lod + 0.75).max(1.0).min(3.0);
        let l = (lod + 0.5).floor() as usize;
        levels[l.min(LEVELS - 1)].sample(0, [x, y, 0.0], 2)[0]
    };
    let mut out_point = vec![];
    for k in 0..N {
        let (x, y, lod, g) = (c[4 * k], c[4 * k + 1], c[4 * k + 2], c[4 * k + 3]);
        out_point.push(at_lod_point(lod as f64, x, y) as f32);
        out_point.push(at_lod_point((g * 16.0).log2() as f64, x, y) as f32);
    }
    write(dir, "point_bias_clamp_expected.npy", &out_point);
    write(dir, "c.npy", &c);
    write(dir, "mips.npy", &all);
    let out: Vec<f32> = out.iter().map(|&v| v as f32).collect();
    write(dir, "out_expected.npy", &out);
}

/// `tex_gather`: tld4 of each component, u8 RGBA read as normalized floats, border addressing.
pub fn tex_gather(dir: &Path) {
    const N: usize = 96;
    const W: usize = 6;
    const H: usize = 5;
    let mut rng = Rng::new(500);
    let b: Vec<u8> = (0..W * H * 4).map(|_| (rng.next_u64() >> 56) as u8).collect();
    let tex = RefTex {
        size: [W, H, 1],
        channels: 4,
        data: b.iter().map(|&v| v as f64 / 255.0).collect(),
        addr: [Addr::Border; 3],
        linear: false,
        normalized: false,
        border: [0.125, 0.25, 0.375, 0.5],
    };
    let xs: Vec<f32> = (0..N).map(|_| coord(&mut rng, -2.0, W as f32 + 2.0)).collect();
    let ys: Vec<f32> = (0..N).map(|_| coord(&mut rng, -2.0, H as f32 + 2.0)).collect();
    let mut out = vec![];
    for i in 0..N {
        // The 2x2 footprint of linear filtering, counter-clockwise from the lower left.
        let i0 = (xs[i] - 0.5).floor() as i64;
        let j0 = (ys[i] - 0.5).floor() as i64;
        let corners = [(i0, j0 + 1), (i0 + 1, j0 + 1), (i0 + 1, j0), (i0, j0)];
        for comp in 0..4 {
            for &(a, bb) in &corners {
                out.push(tex.fetch(0, [a, bb, 0], 2)[comp] as f32);
            }
        }
    }
    write(dir, "texels.npy", &b);
    write(dir, "x.npy", &xs);
    write(dir, "y.npy", &ys);
    write(dir, "out_expected.npy", &out);
}

/// `surf`: surface reads with zero/clamp boundary modes, writes with zero, 1D and 3D.
pub fn surf(dir: &Path) {
    const GW: usize = 16;
    const GH: usize = 12;
    const SW: usize = 13;
    const SH: usize = 10;
    let mut rng = Rng::new(600);
    let src: Vec<u8> = (0..SW * SH * 4).map(|_| (rng.next_u64() >> 56) as u8).collect();
    let dst_in: Vec<u8> = vec![0xAB; SW * SH * 4];
    let s1: Vec<i32> = (0..10).map(|_| rng.next_u64() as i32).collect();
    let s3_in: Vec<f32> = vec![-1.0; 14 * 3 * 3];
    let texel = |x: usize, y: usize| -> [u8; 4] {
        let o = (y * SW + x) * 4;
        [src[o], src[o + 1], src[o + 2], src[o + 3]]
    };
    let pack = |t: [u8; 4]| i32::from_le_bytes(t);
    let mut clamped = vec![0i32; GW * GH];
    let mut zeroed = vec![0i32; GW * GH];
    let mut dst = dst_in.clone();
    let mut one_d = vec![0i32; GW];
    let mut s3 = s3_in.clone();
    for y in 0..GH {
        for x in 0..GW {
            let inside = x < SW && y < SH;
            zeroed[y * GW + x] = if inside { pack(texel(x, y)) } else { 0 };
            let c = texel(x.min(SW - 1), y.min(SH - 1));
            clamped[y * GW + x] = pack(c);
            if inside {
                let o = (y * SW + x) * 4;
                dst[o..o + 4].copy_from_slice(&[c[3], c[2], c[1], c[0]]);
            }
            if y == 0 {
                let k = (x as i64 - 2).clamp(0, 9) as usize;
                one_d[x] = s1[k];
            }
            let (zy, zz) = (y % 3, y / 3);
            if x < 14 && zz < 3 {
                s3[(zz * 3 + zy) * 14 + x] = x as f32 + 100.0 * y as f32;
            }
        }
    }
    write(dir, "src.npy", &src);
    write(dir, "dst_in.npy", &dst_in);
    write(dir, "s1.npy", &s1);
    write(dir, "s3_in.npy", &s3_in);
    write(dir, "clamped_expected.npy", &clamped);
    write(dir, "zeroed_expected.npy", &zeroed);
    write(dir, "dst_expected.npy", &dst);
    write(dir, "one_d_expected.npy", &one_d);
    write(dir, "s3_expected.npy", &s3);
}

/// `texref`: hand-written PTX with module-scope texture references in both texturing modes.
pub fn texref(dir: &Path) {
    const N: usize = 64;
    let mut rng = Rng::new(700);
    // Unified: a 6x4 texture bound with its own sampler state (linear, clamp, texel coords).
    let d = rng.f32_vec(6 * 4);
    let tex = RefTex {
        size: [6, 4, 1],
        channels: 1,
        data: d.iter().map(|&v| v as f64).collect(),
        addr: [Addr::Clamp; 3],
        linear: true,
        normalized: false,
        border: [0.0; 4],
    };
    let xs: Vec<f32> = (0..N).map(|_| coord(&mut rng, -1.0, 7.0)).collect();
    let ys: Vec<f32> = (0..N).map(|_| coord(&mut rng, -1.0, 5.0)).collect();
    let mut out = vec![];
    let mut info = vec![];
    let mut surf = vec![];
    for i in 0..N {
        let v = tex.sample(0, [xs[i], ys[i], 0.0], 2);
        out.extend(v.iter().map(|&x| x as f32));
        // txq width, height, filter_mode (1: linear), addr_mode_0 (1: clamp, CUDA's
        // numbering), normalized_coords; suq width; istypep.texref / .surfref of a texture
        // object handle.
        info.extend([6, 4, 1, 1, 0, N as i32, 1, 0]);
        surf.push(7 * i as i32 + 1);
    }
    write(dir, "unified_texels.npy", &d);
    write(dir, "unified_x.npy", &xs);
    write(dir, "unified_y.npy", &ys);
    write(dir, "unified_out_expected.npy", &out);
    write(dir, "unified_info_expected.npy", &info);
    write(dir, "unified_surf_expected.npy", &surf);
    // Independent: a 5x7 texture; the sampler (linear, wrap, normalized) comes from smp.
    let d = rng.f32_vec(5 * 7);
    let tex = RefTex {
        size: [5, 7, 1],
        channels: 1,
        data: d.iter().map(|&v| v as f64).collect(),
        addr: [Addr::Wrap; 3],
        linear: true,
        normalized: true,
        border: [0.0; 4],
    };
    let xs: Vec<f32> = (0..N).map(|_| coord(&mut rng, -1.5, 2.5)).collect();
    let ys: Vec<f32> = (0..N).map(|_| coord(&mut rng, -1.5, 2.5)).collect();
    let mut out = vec![];
    let mut info = vec![];
    for i in 0..N {
        let v = tex.sample(0, [xs[i], ys[i], 0.0], 2);
        out.extend(v.iter().map(|&x| x as f32));
        // txq width, height (texture); filter_mode 1, addr_mode_1 0 (wrap),
        // force_unnormalized_coords 0 (sampler); channel_data_type CL_FLOAT (0x10DE);
        // istypep.samplerref / .texref of a texture object handle.
        info.extend([5, 7, 1, 0, 0, 0x10DE, 0, 1]);
    }
    write(dir, "independent_texels.npy", &d);
    // Initialized sampler: border in x, mirror in y, linear, normalized coordinates (border
    // colour: the default transparent black).
    let d2 = rng.f32_vec(5 * 7);
    let tex2 = RefTex {
        size: [5, 7, 1],
        channels: 1,
        data: d2.iter().map(|&v| v as f64).collect(),
        addr: [Addr::Border, Addr::Mirror, Addr::Clamp],
        linear: true,
        normalized: true,
        border: [0.0; 4],
    };
    let xs2: Vec<f32> = (0..N).map(|_| coord(&mut rng, -1.5, 2.5)).collect();
    let ys2: Vec<f32> = (0..N).map(|_| coord(&mut rng, -1.5, 2.5)).collect();
    let mut out2 = vec![];
    let mut info2 = vec![];
    for i in 0..N {
        let v = tex2.sample(0, [xs2[i], ys2[i], 0.0], 2);
        out2.extend(v.iter().map(|&x| x as f32));
        // addr_mode_1: mirror (2 in CUDA's numbering).
        info2.extend([5, 7, 1, 2, 0, 0x10DE, 0, 1]);
    }
    write(dir, "sampler_init_texels.npy", &d2);
    write(dir, "sampler_init_x.npy", &xs2);
    write(dir, "sampler_init_y.npy", &ys2);
    write(dir, "sampler_init_out_expected.npy", &out2);
    write(dir, "sampler_init_info_expected.npy", &info2);
    write(dir, "independent_x.npy", &xs);
    write(dir, "independent_y.npy", &ys);
    write(dir, "independent_out_expected.npy", &out);
    write(dir, "independent_info_expected.npy", &info);
}

/// `texref/init`: initialized `.texref` variables (PTX ISA §5.3). `tin` takes its sampler
/// state from the initializer (linear, wrap in x, mirror in y, normalized coordinates);
/// `tov`'s initializer (linear, border in x, normalized) is overridden by its binding's
/// `filter = "point"`, the other fields staying the initializer's (clamp in y: unnamed).
pub fn texref_init(dir: &Path) {
    const N: usize = 64;
    let mut rng = Rng::new(1300);
    let d = rng.f32_vec(6 * 4);
    let tin = RefTex {
        size: [6, 4, 1],
        channels: 1,
        data: d.iter().map(|&v| v as f64).collect(),
        addr: [Addr::Wrap, Addr::Mirror, Addr::Clamp],
        linear: true,
        normalized: true,
        border: [0.0; 4],
    };
    let tov = RefTex {
        addr: [Addr::Border, Addr::Clamp, Addr::Clamp],
        linear: false,
        data: tin.data.clone(),
        ..tin
    };
    let xs: Vec<f32> = (0..N).map(|_| coord(&mut rng, -1.5, 2.5)).collect();
    let ys: Vec<f32> = (0..N).map(|_| coord(&mut rng, -1.5, 2.5)).collect();
    let mut out = vec![];
    let mut info = vec![];
    for i in 0..N {
        out.extend(tin.sample(0, [xs[i], ys[i], 0.0], 2).map(|x| x as f32));
        out.extend(tov.sample(0, [xs[i], ys[i], 0.0], 2).map(|x| x as f32));
        // filter_mode (linear 1), addr_mode_0, addr_mode_1 (CUDA's numbering: wrap 0, clamp
        // 1, mirror 2, border 3), normalized_coords; tin then tov.
        info.extend([1u32, 0, 2, 1, 0, 3, 1, 1]);
    }
    write(dir, "init_texels.npy", &d);
    write(dir, "init_x.npy", &xs);
    write(dir, "init_y.npy", &ys);
    write(dir, "init_out_expected.npy", &out);
    write(dir, "init_info_expected.npy", &info);
}

/// Write 8-bit RGBA pixels as a PNG.
fn write_png(path: &Path, w: u32, h: u32, rgba: &[u8]) {
    let f = std::fs::File::create(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut enc = png::Encoder::new(std::io::BufWriter::new(f), w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut wr = enc.write_header().expect("png header");
    wr.write_image_data(rgba).expect("png data");
    println!("  wrote {}", path.display());
}

/// `upscale`: bilinear 4x upscaling of a 24x16 RGBA image (PNG in, PNG out in the README).
pub fn upscale(dir: &Path) {
    const W: usize = 24;
    const H: usize = 16;
    const S: usize = 4;
    // A test card: colour ramps, a hard-edged disc and a one-pixel checker strip, so edges
    // and ramps both show.
    let mut img = vec![0u8; W * H * 4];
    for y in 0..H {
        for x in 0..W {
            let o = (y * W + x) * 4;
            let (dx, dy) = (x as f64 - 15.5, y as f64 - 7.5);
            let disc = dx * dx + dy * dy < 30.0;
            let checker = y >= 13 && (x + y) % 2 == 0;
            let (r, g, b) = if checker {
                (255, 255, 255)
            } else if disc {
                (250, 200, 40)
            } else {
                ((x * 255 / (W - 1)) as u8, (y * 255 / (H - 1)) as u8, 160u8)
            };
            img[o..o + 4].copy_from_slice(&[r, g, b, 255]);
        }
    }
    write_png(&dir.join("in.png"), W as u32, H as u32, &img);
    let tex = RefTex {
        size: [W, H, 1],
        channels: 4,
        data: img.iter().map(|&v| v as f64 / 255.0).collect(),
        addr: [Addr::Clamp; 3],
        linear: true,
        normalized: true,
        border: [0.0; 4],
    };
    let (ow, oh) = (W * S, H * S);
    let mut out = vec![0u8; ow * oh * 4];
    for y in 0..oh {
        for x in 0..ow {
            // PTX: add.f32, div.rn.f32 (exact IEEE in f32).
            let u = (x as f32 + 0.5) / ow as f32;
            let v = (y as f32 + 0.5) / oh as f32;
            let c = tex.sample(0, [u, v, 0.0], 2);
            for k in 0..4 {
                // cvt.sat, mul.f32 by 255, cvt.rni (round half to even).
                let s = (c[k] as f32).clamp(0.0, 1.0) * 255.0;
                out[(y * ow + x) * 4 + k] = s.round_ties_even() as u8;
            }
        }
    }
    write(dir, "out_expected.npy", &out);
}

/// `tex_formats`: channel formats and read modes on 5x4 textures, texel coordinates.
pub fn tex_formats(dir: &Path) {
    const N: usize = 96;
    const W: usize = 5;
    const H: usize = 4;
    let mut rng = Rng::new(800);
    let mk = |data: Vec<f64>, channels, addr, linear, border| RefTex {
        size: [W, H, 1],
        channels,
        data,
        addr: [addr; 3],
        linear,
        normalized: false,
        border,
    };
    let u8e: Vec<u8> = (0..W * H * 4).map(|_| (rng.next_u64() >> 56) as u8).collect();
    let s16: Vec<i16> = (0..W * H * 2).map(|_| rng.next_u64() as i16).collect();
    let s8: Vec<i8> = (0..W * H).map(|_| rng.next_u64() as i8).collect();
    // Normal f16 numbers: sign, exponent 1..=30, any mantissa.
    let f16: Vec<u16> = (0..W * H * 2)
        .map(|_| {
            let r = rng.next_u64();
            ((r & 1) << 15 | (1 + (r >> 1) % 30) << 10 | (r >> 8) & 0x3ff) as u16
        })
        .collect();
    let f16_value = |b: u16| {
        let sign = if b >> 15 == 1 { -1.0 } else { 1.0 };
        let e = ((b >> 10) & 31) as i32;
        let m = (b & 0x3ff) as f64;
        sign * 2f64.powi(e - 15) * (1.0 + m / 1024.0)
    };
    // Pitched: rows of 5 u16 texels 16 bytes apart (3 unused texels per row, filled with junk).
    const PITCH: usize = 8;
    let u16p: Vec<u16> = (0..PITCH * H).map(|_| rng.next_u64() as u16).collect();
    let s32: Vec<i32> = (0..W * H).map(|_| rng.next_u64() as i32).collect();
    let t_u8 = mk(u8e.iter().map(|&v| v as f64).collect(), 4, Addr::Clamp, false, [0.0; 4]);
    let t_s16 = mk(
        s16.iter().map(|&v| (v as f64 / 32767.0).max(-1.0)).collect(),
        2,
        Addr::Border,
        true,
        [0.5, -0.5, 0.0, 0.0],
    );
    let t_s8 = mk(
        s8.iter().map(|&v| (v as f64 / 127.0).max(-1.0)).collect(),
        1,
        Addr::Clamp,
        true,
        [0.0; 4],
    );
    let t_f16 = mk(f16.iter().map(|&b| f16_value(b)).collect(), 2, Addr::Clamp, true, [0.0; 4]);
    let dense_u16: Vec<f64> = (0..W * H)
        .map(|k| u16p[(k / W) * PITCH + k % W] as f64 / 65535.0)
        .collect();
    let t_u16 = mk(dense_u16, 1, Addr::Clamp, false, [0.0; 4]);
    let t_s32 = mk(s32.iter().map(|&v| v as f64).collect(), 1, Addr::Clamp, false, [0.0; 4]);
    let mut c = vec![];
    let (mut ou, mut of, mut oi) = (vec![], vec![], vec![]);
    for _ in 0..N {
        let x = coord(&mut rng, -1.5, W as f32 + 1.5);
        let y = coord(&mut rng, -1.5, H as f32 + 1.5);
        c.extend([x, y]);
        let p = [x, y, 0.0];
        let a = t_u8.sample(0, p, 2);
        ou.extend(a.iter().map(|&v| v as u32));
        let b = t_s16.sample(0, p, 2);
        let h = t_f16.sample(0, p, 2);
        of.extend([
            b[0],
            b[1],
            t_s8.sample(0, p, 2)[0],
            h[0],
            h[1],
            t_u16.sample(0, p, 2)[0],
        ]);
        oi.push(t_s32.sample(0, p, 2)[0] as i32);
    }
    let of: Vec<f32> = of.iter().map(|&v| v as f32).collect();
    write(dir, "c.npy", &c);
    write(dir, "u8e.npy", &u8e);
    write(dir, "s16.npy", &s16);
    write(dir, "s8.npy", &s8);
    write(dir, "f16.npy", &f16);
    write(dir, "u16p.npy", &u16p);
    write(dir, "s32.npy", &s32);
    write(dir, "ou_expected.npy", &ou);
    write(dir, "of_expected.npy", &of);
    write(dir, "oi_expected.npy", &oi);
}

/// `surf_ops`: sured, sust.p, layered suld with .zero, txq/suq attributes (hand-written PTX).
pub fn surf_ops(dir: &Path) {
    const T: usize = 64;
    let mut rng = Rng::new(900);
    let fin = rng.f32_vec(4 * 3 * 4);
    let arr: Vec<i32> = (0..3 * 2 * 4).map(|_| rng.next_u64() as i32).collect();
    let mut cnt = vec![0u32; 4 * 3];
    let mut fout = vec![0f32; 4 * 3 * 4];
    let mut loaded = vec![0i32; T];
    let mut info = vec![0i32; T * 12];
    for t in 0..T {
        let (x, y) = (t % 4, (t / 4) % 3);
        cnt[y * 4 + x] += 1;
        for c in 0..4 {
            fout[(y * 4 + x) * 4 + c] = fin[(y * 4 + x) * 4 + 3 - c];
        }
        let (layer, ax, ay) = (t % 5, t % 3, t % 2);
        loaded[t] = if layer < 4 { arr[(layer * 2 + ay) * 3 + ax] } else { 0 };
        let lvl = t % 5;
        // txq.level.width/.height of a 16x8 texture; 5 levels; array size 6 of the layered
        // texture; suq of the 3x2x4-layer surface: height 2, depth 1, array size 4; suq of the
        // f32x4 surface: CL_RGBA (0x10B5), CL_FLOAT (0x10DE); istypep.surfref 1, .texref 0.
        let row = [
            (16 >> lvl).max(1),
            (8 >> lvl).max(1),
            5,
            6,
            2,
            1,
            4,
            0x10B5,
            0x10DE,
            1,
            0,
            lvl as i32,
        ];
        info[t * 12..t * 12 + 12].copy_from_slice(&row);
    }
    // sured.b.max.2d.s32.clamp at x = 100 bytes: the last column of each row of mx holds the
    // largest thread index of that row.
    let mut mx = vec![0i32; 4 * 3];
    for y in 0..3 {
        mx[y * 4 + 3] = (0..T).filter(|t| (t / 4) % 3 == y).max().unwrap_or(0) as i32;
    }
    write(dir, "mx_expected.npy", &mx);
    write(dir, "fin.npy", &fin);
    write(dir, "arr.npy", &arr);
    write(dir, "cnt_expected.npy", &cnt);
    write(dir, "fout_expected.npy", &fout);
    write(dir, "loaded_expected.npy", &loaded);
    write(dir, "info_expected.npy", &info);
}

/// `tex_misc`: integer-coordinate tex.a2d and tld4.r.a2d on a layered texture (hand-written).
pub fn tex_misc(dir: &Path) {
    const T: usize = 64;
    const W: usize = 5;
    const H: usize = 3;
    let mut rng = Rng::new(1000);
    let d = rng.f32_vec(W * H * 2);
    let tex = RefTex {
        size: [W, H, 1],
        channels: 1,
        data: d.iter().map(|&v| v as f64).collect(),
        addr: [Addr::Clamp; 3],
        linear: false,
        normalized: false,
        border: [0.0; 4],
    };
    // RefTex stores layers after each other; `fetch` takes the layer index.
    let mut c = vec![];
    let mut out = vec![];
    for t in 0..T {
        let layer = t % 2;
        let (ix, iy) = ((t % 7) as i64 - 1, (t % 5) as i64 - 1);
        let v = tex.fetch(layer, [ix, iy, 0], 2);
        out.extend(v.iter().map(|&x| x as f32));
        let x = coord(&mut rng, -1.0, W as f32 + 1.0);
        let y = coord(&mut rng, -1.0, H as f32 + 1.0);
        c.extend([x, y]);
        let i0 = (x - 0.5).floor() as i64;
        let j0 = (y - 0.5).floor() as i64;
        for (a, b) in [(i0, j0 + 1), (i0 + 1, j0 + 1), (i0 + 1, j0), (i0, j0)] {
            out.push(tex.fetch(layer, [a, b, 0], 2)[0] as f32);
        }
    }
    write(dir, "texels.npy", &d);
    write(dir, "c.npy", &c);
    write(dir, "out_expected.npy", &out);
}

/// An f32 rounded to the nearest f16 (ties to even), as bits (IEEE 754 binary16).
fn f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    let round = |v: u32, shift: u32| -> u32 {
        let q = v >> shift;
        let rem = v & ((1 << shift) - 1);
        let half = 1 << (shift - 1);
        if rem > half || (rem == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        // Subnormal: units of 2^-24.
        return sign | round(man | 0x80_0000, (14 - e) as u32) as u16;
    }
    // A carry out of the mantissa moves into the exponent (up to infinity), as it should.
    sign | (((e as u32) << 10) + round(man, 13)) as u16
}

/// `tex_ext`: texel offsets, depth compare, the residency predicate and `.f16x2` results of
/// `tex`/`tld4` (hand-written PTX; see its header).
pub fn tex_ext(dir: &Path) {
    const T: usize = 64;
    const W: usize = 6;
    const H: usize = 5;
    let mut rng = Rng::new(1100);
    let d = rng.f32_vec(W * H * 4);
    let t = RefTex {
        size: [W, H, 1],
        channels: 4,
        data: d.iter().map(|&v| v as f64).collect(),
        addr: [Addr::Clamp; 3],
        linear: true,
        normalized: false,
        border: [0.0; 4],
    };
    let u = RefTex {
        addr: [Addr::Wrap; 3],
        linear: false,
        normalized: true,
        data: t.data.clone(),
        ..t
    };
    let f32s = |v: [f64; 4]| v.map(|x| x as f32);
    let mut c = vec![];
    let mut out = vec![];
    let mut h = vec![];
    for i in 0..T {
        let x = coord(&mut rng, -1.0, W as f32 + 1.0);
        let y = coord(&mut rng, -1.0, H as f32 + 1.0);
        let z = rng.f32_pm1();
        c.extend([x, y, z, 0.0]);
        let off = [(i % 5) as i32 - 2, (i % 3) as i32 - 1, 0];
        let (ix, iy) = ((i % 8) as i64 - 1, (i % 7) as i64 - 1);
        out.extend(f32s(t.sample_ext(0, [x, y, 0.0], 2, off, None)));
        out.extend(f32s(t.sample_ext(0, [x, y, 0.0], 2, [1, -2, 0], None)));
        out.extend(f32s(t.sample_ext(0, [x, y, 0.0], 2, [0; 3], Some(z))));
        out.extend(f32s(t.sample_ext(0, [x, y, 0.0], 2, off, Some(z))));
        // tld4.r: the footprint of (x + ox, y + oy), counter-clockwise from the lower left.
        let i0 = (x + off[0] as f32 - 0.5).floor() as i64;
        let j0 = (y + off[1] as f32 - 0.5).floor() as i64;
        for (a, b) in [(i0, j0 + 1), (i0 + 1, j0 + 1), (i0 + 1, j0), (i0, j0)] {
            out.push(t.fetch_cmp(0, [a, b, 0], 2, Some(z))[0] as f32);
        }
        let (xn, yn) = (x * 0.125, y * 0.125);
        out.extend(f32s(u.sample_ext(0, [xn, yn, 0.0], 2, off, None)));
        let ti = t.fetch(0, [ix + off[0] as i64, iy + off[1] as i64, 0], 2);
        out.extend(f32s(ti));
        // .f16x2: (r, g) and (b, a), the first of each pair in the low half.
        let pack = |v: [f64; 4]| {
            let b = v.map(|x| f16_bits(x as f32) as u32);
            [b[0] | b[1] << 16, b[2] | b[3] << 16]
        };
        h.extend(pack(u.sample_ext(0, [xn, yn, 0.0], 2, [0; 3], None)));
        h.extend(pack(u.sample_ext(0, [xn, yn, 0.0], 2, [1, 0, 0], None)));
        // The residency predicate: every texture is resident.
        h.extend([1u32, 0, 0, 0]);
    }
    write(dir, "texels.npy", &d);
    write(dir, "c.npy", &c);
    write(dir, "out_expected.npy", &out);
    write(dir, "h_expected.npy", &h);
}

/// `tex_ms`: multisample textures (`tex.2dms`, `tex.a2dms`, `txq.num_samples`; hand-written).
/// A multisample texel holds its samples one after the other (ptxjit's case format,
/// docs/case-format.md); texel indices are clamped to the edge, the layer to the layers, and a
/// sample index past the texel's samples reads zeros in every channel.
pub fn tex_ms(dir: &Path) {
    const T: usize = 64;
    let mut rng = Rng::new(1200);
    // (width, height, layers, samples, channels)
    let (mw, mh, ms, mc) = (4usize, 3usize, 4usize, 2usize);
    let (aw, ah, al, as_, ac) = (3usize, 2usize, 2usize, 3usize, 1usize);
    let m = rng.f32_vec(mw * mh * ms * mc);
    let a = rng.f32_vec(aw * ah * al * as_ * ac);
    // Sample `s` of texel (x, y) of `layer`: channels (missing 0, missing alpha 1).
    let texel = |d: &[f32], (w, h, l, ns, nc): (usize, usize, usize, usize, usize),
                 layer: i64, s: i64, x: i64, y: i64| -> [f32; 4] {
        if s < 0 || s >= ns as i64 {
            return [0.0; 4];
        }
        let cl = |v: i64, n: usize| v.max(0).min(n as i64 - 1) as usize;
        let (layer, x, y) = (cl(layer, l), cl(x, w), cl(y, h));
        let base = ((((layer * h + y) * w + x) * ns) + s as usize) * nc;
        let mut v = [0.0, 0.0, 0.0, 1.0];
        v[..nc].copy_from_slice(&d[base..base + nc]);
        v
    };
    let mut out = vec![];
    let mut q = vec![];
    for i in 0..T as i64 {
        let (x, y) = (i % 6 - 1, i % 4 - 1);
        let mshape = (mw, mh, 1, ms, mc);
        out.extend(texel(&m, mshape, 0, i % 5, x, y));
        out.extend(texel(&m, mshape, 0, i % 5, x + (i % 3 - 1), y));
        out.extend(texel(&a, (aw, ah, al, as_, ac), i % 3, (i / 3) % 4, x, y));
        q.extend([ms as i32, as_ as i32]);
    }
    write(dir, "m.npy", &m);
    write(dir, "a.npy", &a);
    write(dir, "out_expected.npy", &out);
    write(dir, "q_expected.npy", &q);
}

/// `tex_ext/layered`: texel offsets and depth compare on a layered texture with border
/// addressing (the border colour is compared too) and on a normalized 1D texture, also with
/// `tex.level` (hand-written PTX; see its header).
pub fn tex_ext_layered(dir: &Path) {
    const T: usize = 64;
    let mut rng = Rng::new(1400);
    let dl = rng.f32_vec(5 * 4 * 3);
    let dd = rng.f32_vec(16);
    let l = RefTex {
        size: [5, 4, 1],
        channels: 1,
        data: dl.iter().map(|&v| v as f64).collect(),
        addr: [Addr::Border; 3],
        linear: true,
        normalized: false,
        border: [0.25; 4],
    };
    let d = RefTex {
        size: [16, 1, 1],
        channels: 1,
        data: dd.iter().map(|&v| v as f64).collect(),
        addr: [Addr::Clamp; 3],
        linear: true,
        normalized: true,
        border: [0.0; 4],
    };
    let f32s = |v: [f64; 4]| v.map(|x| x as f32);
    let mut c = vec![];
    let mut out = vec![];
    for i in 0..T {
        let x = coord(&mut rng, -1.0, 6.0);
        let y = coord(&mut rng, -1.0, 5.0);
        let z = rng.f32_pm1();
        let xn = coord(&mut rng, -0.3, 1.3);
        c.extend([x, y, z, xn]);
        let layer = (i % 4).min(2);
        let off = [(i % 7) as i32 - 3, (i % 5) as i32 - 2, 0];
        out.extend(f32s(l.sample_ext(layer, [x, y, 0.0], 2, off, Some(z))));
        out.extend(f32s(d.sample_ext(0, [xn, 0.0, 0.0], 1, [off[0], 0, 0], None)));
        out.extend(f32s(d.sample_ext(0, [xn, 0.0, 0.0], 1, [off[0], 0, 0], Some(z))));
    }
    write(dir, "layered_l.npy", &dl);
    write(dir, "layered_d.npy", &dd);
    write(dir, "layered_c.npy", &c);
    write(dir, "layered_out_expected.npy", &out);
}

/// `tex_resident`: tex2D / tex2DLod with CUDA's `isResident` out-parameter (the residency
/// predicate); every texture is resident, the texels are an ordinary linear fetch's.
pub fn tex_resident(dir: &Path) {
    const N: usize = 100;
    let mut rng = Rng::new(1500);
    let d = rng.f32_vec(6 * 5 * 2);
    let t = RefTex {
        size: [6, 5, 1],
        channels: 2,
        data: d.iter().map(|&v| v as f64).collect(),
        addr: [Addr::Clamp; 3],
        linear: true,
        normalized: false,
        border: [0.0; 4],
    };
    let xs: Vec<f32> = (0..N).map(|_| coord(&mut rng, -1.0, 7.0)).collect();
    let ys: Vec<f32> = (0..N).map(|_| coord(&mut rng, -1.0, 7.0)).collect();
    let mut out = vec![];
    for i in 0..N {
        out.extend(t.sample(0, [xs[i], ys[i], 0.0], 2).map(|x| x as f32));
        out.extend(t.sample(0, [ys[i], xs[i], 0.0], 2).map(|x| x as f32));
    }
    write(dir, "texels.npy", &d);
    write(dir, "x.npy", &xs);
    write(dir, "y.npy", &ys);
    write(dir, "out_expected.npy", &out);
    write(dir, "resident_expected.npy", &vec![1i32; 2 * N]);
}

/// A direction whose major axis selects `face` (+x -x +y -y +z -z) with face coordinates
/// `sc`, `tc` and major-axis magnitude `ma`: the guide's cube-map table read backwards. With
/// |sc|, |tc| < ma there is no tie between axes.
fn cube_direction(face: usize, ma: f32, sc: f32, tc: f32) -> [f32; 3] {
    match face {
        0 => [ma, -tc, -sc],
        1 => [-ma, -tc, sc],
        2 => [sc, ma, tc],
        3 => [sc, -ma, -tc],
        4 => [sc, -tc, ma],
        _ => [-sc, -tc, -ma],
    }
}

/// `tex.cube`/`.acube` (CUDA C++ Programming Guide, "Cubemap Textures" and "Texture
/// Fetching"): the face and its normalized (s, t) from the guide's table ([`cube_lookup`]),
/// then that face sampled as a 2D texture of `tex.size[0]`² texels with the texture's filter
/// and address modes (`addr[0]` for s, `addr[1]` for t), as CUDA's non-seamless cube maps
/// (`cudaTextureDesc::seamlessCubemap = 0`, the default) do: [`RefTex::fetch`] applies wrap
/// (index mod N), mirror (period 2N), clamp to the edge texel or the border colour to each
/// texel index of the face; no texel of a neighbouring face is read.
fn cube_sample(tex: &RefTex, cube: usize, d: [f32; 3]) -> [f64; 4] {
    assert!(tex.normalized && tex.size[0] == tex.size[1], "cube faces are square, normalized");
    let (f, s, t) = cube_lookup(d[0] as f64, d[1] as f64, d[2] as f64);
    tex.sample(cube * 6 + f, [s as f32, t as f32, 0.0], 2)
}

/// `tld4` on a cube map (PTX ISA §9.7.10.4 `.cube`/`.acube`): the face and its normalized
/// (s, t) from the guide's table ([`cube_lookup`]), then the 2x2 footprint of linear
/// filtering on that face, counter-clockwise from the lower left, channel `comp` (depth
/// compared first when `cmp` is given). Each face is addressed on its own like a 2D texture
/// (no seamless filtering across faces), as in [`cube_sample`]: an index that leaves the face
/// is wrapped, mirrored, clamped to the edge or reads the border colour by the texture's
/// address mode of that axis (docs/isa-notes.md).
fn cube_gather(tex: &RefTex, cube: usize, d: [f32; 3], comp: usize, cmp: Option<f32>) -> [f64; 4] {
    let (f, s, t) = cube_lookup(d[0] as f64, d[1] as f64, d[2] as f64);
    let n = tex.size[0] as f64;
    let i0 = (s * n - 0.5).floor() as i64;
    let j0 = (t * n - 0.5).floor() as i64;
    let mut out = [0.0; 4];
    for (k, (a, b)) in [(i0, j0 + 1), (i0 + 1, j0 + 1), (i0 + 1, j0), (i0, j0)].into_iter().enumerate() {
        out[k] = tex.fetch_cmp(cube * 6 + f, [a, b, 0], 2, cmp)[comp];
    }
    out
}

/// `tex_cube`: tld4 on `.cube` and `.acube` (every face, footprints that leave the face, an
/// array index past the last cube, depth compare) and `tex ... .v4.f16` results (a point-sampled
/// cube map, s32 element reads with f16 rounding ties and overflow, u8 normalized-float reads);
/// hand-written PTX, see its header.
pub fn tex_cube(dir: &Path) {
    const T: usize = 64;
    const N: usize = 4; // cube face size
    const M: usize = 3; // cube-array face size, 2 cubes
    let mut rng = Rng::new(1600);
    let cd = rng.f32_vec(N * N * 6 * 4);
    let ad = rng.f32_vec(M * M * 12 * 2);
    let cube = RefTex {
        size: [N, N, 1],
        channels: 4,
        data: cd.iter().map(|&v| v as f64).collect(),
        addr: [Addr::Clamp; 3],
        linear: false,
        normalized: true,
        border: [0.0; 4],
    };
    let arr = RefTex {
        size: [M, M, 1],
        channels: 2,
        data: ad.iter().map(|&v| v as f64).collect(),
        ..cube
    };
    // s32 pairs (a 4x2 texture, 2 channels): exact values, f16 ties to even (2049 → 2048,
    // 2051 → 2052, 4098 → 4096, -6146 → -6144), a value that rounds (12345 → 12344), the
    // largest value below the overflow threshold and the threshold itself (65519 → 65504,
    // 65520 → inf) and one past it (-70000 → -inf).
    let sd: Vec<i32> = vec![
        1, -3, 2049, 2051, 4098, -6146, 65519, 65520, -70000, 0, 1000, -1024, 2047, 3, -65536, 12345,
    ];
    let ud: Vec<u8> = (0..4 * 4 * 4).map(|_| (rng.next_u64() >> 56) as u8).collect();
    let mut c = vec![];
    let mut out = vec![];
    let mut h: Vec<u16> = vec![];
    for i in 0..T {
        let face = i % 6;
        // Odd multiples of 1/256 in (-1, 1): exact in f32 and on no filtering boundary; the
        // major axis a power of two, so sc/ma is exact too.
        let sc = ((rng.next_u64() % 256) as f32 * 2.0 - 255.0) / 256.0;
        let tc = ((rng.next_u64() % 256) as f32 * 2.0 - 255.0) / 256.0;
        let ma = [0.5f32, 1.0, 2.0, 4.0][(i / 6) % 4];
        let dir3 = cube_direction(face, ma, sc * ma, tc * ma);
        let z = rng.f32_pm1();
        c.extend([dir3[0], dir3[1], dir3[2], z]);
        let layer = i % 3; // 2 → clamped to the last cube (1)
        let lc = layer.min(1);
        out.extend(cube_gather(&cube, 0, dir3, 0, None).map(|x| x as f32));
        out.extend(cube_gather(&cube, 0, dir3, 3, None).map(|x| x as f32));
        out.extend(cube_gather(&arr, lc, dir3, 1, None).map(|x| x as f32));
        out.extend(cube_gather(&arr, lc, dir3, 0, Some(z)).map(|x| x as f32));
        // .v4.f16: the point-sampled cube texel, then the s32 and u8 texels at (i % 4, i / 4 % 2).
        let (fc, s, t) = cube_lookup(dir3[0] as f64, dir3[1] as f64, dir3[2] as f64);
        let v = cube.sample(fc, [s as f32, t as f32, 0.0], 2);
        h.extend(v.map(|x| f16_bits(x as f32)));
        let (ix, iy) = (i % 4, (i / 4) % 2);
        let k = (iy * 4 + ix) * 2;
        // Two channels: the missing blue reads 0, the missing alpha 1.
        h.extend([sd[k] as f32, sd[k + 1] as f32, 0.0, 1.0].map(f16_bits));
        let k = (iy * 4 + ix) * 4;
        h.extend([0, 1, 2, 3].map(|q| f16_bits(ud[k + q] as f32 / 255.0)));
    }
    write(dir, "cube.npy", &cd);
    write(dir, "arr.npy", &ad);
    write(dir, "s.npy", &sd);
    write(dir, "u.npy", &ud);
    write(dir, "c.npy", &c);
    write(dir, "out_expected.npy", &out);
    write(dir, "h_expected.npy", &h);
}

/// `tex_cube_addr`: the address modes applied per face of a non-seamless cube map, with
/// directions near face edges and corners (hand-written PTX, see its header). Four 4x4 RGBA
/// f32 cube maps over the same texels, linear filtering: wrap, border, wrap in s with border
/// in t (the axes must not be swapped), mirror; and a cube array of two 3x3 cubes with border
/// in s and wrap in t. On a face (coordinates in [0, 1], no texel offsets on cube maps) a
/// footprint leaves the face by at most one texel, where mirror reads the edge texel as clamp
/// does: mirror is checked to give that, wrap and border differ from clamp. Last, `tex.level`
/// at level 1 of a mipmapped cube (4x4 then 2x2 faces; wrap in s, border in t): level 1's
/// faces sampled as a cube map of their own.
pub fn tex_cube_addr(dir: &Path) {
    use Addr::*;
    const T: usize = 64;
    const N: usize = 4;
    const M: usize = 3;
    let mut rng = Rng::new(1700);
    let cd = rng.f32_vec(N * N * 6 * 4);
    let ad = rng.f32_vec(M * M * 12 * 4);
    let mk = |data: &[f32], n: usize, addr: [Addr; 3], border: [f64; 4]| RefTex {
        size: [n, n, 1],
        channels: 4,
        data: data.iter().map(|&v| v as f64).collect(),
        addr,
        linear: true,
        normalized: true,
        border,
    };
    let wrap = mk(&cd, N, [Wrap, Wrap, Clamp], [0.0; 4]);
    let border = mk(&cd, N, [Border, Border, Clamp], [0.25, -2.0, 3.0, 0.5]);
    let mixed = mk(&cd, N, [Wrap, Border, Clamp], [-1.0, 0.75, 2.0, -0.5]);
    let mirror = mk(&cd, N, [Mirror, Mirror, Clamp], [0.0; 4]);
    let arr = mk(&ad, M, [Border, Wrap, Clamp], [1.5, -0.25, 0.125, 4.0]);
    // Level 0 (unread: the fetch asks for level 1) then level 1, each face dense.
    let ld = rng.f32_vec((N * N + 2 * 2) * 6 * 4);
    let lev1 = mk(&ld[N * N * 6 * 4..], 2, [Wrap, Border, Clamp], [0.5, 0.25, -0.75, 2.0]);
    // An odd multiple of 1/256 in (-1, 1) (exact in f32, on no filtering boundary), near an
    // edge of the face (|v| > 0.75, so s or t is below 1/8 or above 7/8: the footprint of a
    // 4x4 or 3x3 face leaves it) or anywhere.
    let pick = |rng: &mut Rng, edge: bool| -> f32 {
        let k = rng.next_u64() % if edge { 32 } else { 256 };
        let k = if edge && rng.next_u64() % 2 == 1 { 255 - k } else { k };
        (k as f32 * 2.0 - 255.0) / 256.0
    };
    let mut c = vec![];
    let mut out: Vec<f32> = vec![];
    for i in 0..T {
        // 0: s near an edge, 1: t near an edge, 2: both (a corner), 3: anywhere.
        let kind = i % 4;
        let face = (i / 4) % 6;
        let sc = pick(&mut rng, kind == 0 || kind == 2);
        let tc = pick(&mut rng, kind == 1 || kind == 2);
        let ma = [0.5f32, 1.0, 2.0, 4.0][(i / 24) % 4];
        let d = cube_direction(face, ma, sc * ma, tc * ma);
        let w = rng.f32_pm1();
        c.extend([d[0], d[1], d[2], w]);
        let layer = i % 3; // 2 → clamped to the last cube (1)
        let lc = layer.min(1);
        let mut push = |v: [f64; 4]| out.extend(v.map(|x| x as f32));
        for t in [&wrap, &border, &mixed, &mirror] {
            push(cube_sample(t, 0, d));
        }
        push(cube_gather(&wrap, 0, d, 0, None));
        push(cube_gather(&border, 0, d, 3, None));
        push(cube_gather(&mixed, 0, d, 1, None));
        push(cube_gather(&mirror, 0, d, 2, None));
        push(cube_sample(&arr, lc, d));
        push(cube_gather(&arr, lc, d, 0, None));
        push(cube_gather(&border, 0, d, 0, Some(w)));
        push(cube_sample(&lev1, 0, d));
    }
    write(dir, "cube.npy", &cd);
    write(dir, "arr.npy", &ad);
    write(dir, "lev.npy", &ld);
    write(dir, "c.npy", &c);
    write(dir, "out_expected.npy", &out);
}

pub fn run_all(root: &Path) {
    let run = |name: &str, f: &dyn Fn(&Path)| {
        let dir = root.join(name);
        assert!(dir.is_dir(), "{} is not a directory", dir.display());
        println!("{name}");
        f(&dir);
    };
    run("tex2d", &tex2d);
    run("tex_fetch", &tex_fetch);
    run("tex_shapes", &tex_shapes);
    run("tex_lod", &tex_lod);
    run("tex_gather", &tex_gather);
    run("surf", &surf);
    run("texref", &texref);
    run("texref", &texref_init);
    run("upscale", &upscale);
    run("tex_formats", &tex_formats);
    run("surf_ops", &surf_ops);
    run("tex_misc", &tex_misc);
    run("tex_ext", &tex_ext);
    run("tex_ext", &tex_ext_layered);
    run("tex_ms", &tex_ms);
    run("tex_resident", &tex_resident);
    run("tex_cube", &tex_cube);
    run("tex_cube_addr", &tex_cube_addr);
}
