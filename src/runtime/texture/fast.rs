//! The fast path of `tex.2d` with a warp-uniform texture: everything [`fetch`](super::fetch)
//! looks up per lane and per texel (the object, the sampler state, the level's layout, the
//! format, the host address of the texels) is resolved once per warp instruction, and the
//! lanes then read texels straight from the resource's memory.
//!
//! It takes 2D resources of one level without samples, nearest or linear filtering, any
//! address mode, no texel offsets or depth compare, float coordinates and the base level of
//! detail; anything else is [`fetch`](super::fetch)'s. The arithmetic is the generic path's,
//! operation for operation (the same coordinate scaling, [`linear_weight`], [`address`], the
//! same weight products and the same order of the f32 sums), so the results are the same
//! bits; `texture_tests::fast_path_matches_fetch` compares them.
//!
//! # Memory safety
//! The resource's whole level 0 is translated once ([`env::translate`], global rules, with
//! memcheck's live-allocation check); every texel the path reads lies inside it (addressing
//! keeps indices in range, and each read checks its offset against the translated length
//! again). When that one translation fails, the warp takes the generic path, which faults
//! per texel exactly as before.

use super::{
    address, blend_corners, decode, env, floor_index, linear_weight, result_bits, returns_float,
    u8_unorm, AddressMode, ChannelFormat, ChannelType, CtaEnv, FilterMode, ResourceKind, Space,
    TexResults, Texel, TextureDesc, TextureObject,
};
use crate::runtime::warp::lanes;

/// How the fast path decodes a texel.
#[derive(Clone, Copy, Debug)]
enum Format {
    /// Four u8 channels read as normalized floats (`v / 255`).
    Unorm8x4,
    /// One f32 channel.
    F32x1,
    /// Four f32 channels.
    F32x4,
    /// Any other format: the generic [`decode`].
    Other(ChannelFormat),
}

/// A texture and its sampler state, resolved for one warp's `tex.2d` (see the module docs).
pub struct Fast2d<'a> {
    /// Host address of texel (0, 0) of level 0.
    base: *const u8,
    /// Bytes at `base` that the translation checked (level 0).
    len: u64,
    /// Bytes per row and per texel.
    row: u64,
    texel: u64,
    dims: [u32; 2],
    /// `dims` as f32 (the scale of normalized coordinates).
    scale: [f32; 2],
    address: [AddressMode; 2],
    normalized: bool,
    linear: bool,
    float: bool,
    format: Format,
    ty: ChannelType,
    border: Texel,
    results: TexResults,
    /// The memory `base` points into: the launch's arena, alive while `env` is.
    _env: std::marker::PhantomData<&'a CtaEnv>,
}

impl<'a> Fast2d<'a> {
    /// The fast path for `tex.2d` of texture `t` with sampler state `s` (the texture's own
    /// or an independent sampler's) and destination `results`, or `None` where the generic
    /// path must run: a resource that is not 2D, has mip levels or samples, linear filtering
    /// of integer reads, or a level 0 that is not inside the arena (or, with memcheck, one
    /// live allocation).
    pub fn new(
        t: &TextureObject,
        s: &TextureDesc,
        env: &'a CtaEnv,
        results: TexResults,
    ) -> Option<Fast2d<'a>> {
        let d = &t.res.desc;
        if d.kind != ResourceKind::D2 || d.samples != 0 || t.res.levels.len() != 1 {
            return None;
        }
        let float = returns_float(t, s);
        let linear = s.filter == FilterMode::Linear;
        if linear && !float {
            return None;
        }
        let level = &t.res.levels[0];
        let len = u32::try_from(level.layer).ok()?;
        let base = env::translate(env, Space::Global, level.base, len, 1, 0).ok()?;
        let f = d.format;
        let format = match (f.ty, f.channels, float) {
            (ChannelType::U8, 4, true) => Format::Unorm8x4,
            (ChannelType::F32, 1, _) => Format::F32x1,
            (ChannelType::F32, 4, _) => Format::F32x4,
            _ => Format::Other(f),
        };
        let c = s.border_color;
        let border = if float {
            Texel::F(c)
        } else {
            Texel::I(c.map(|x| x as i32 as u32))
        };
        Some(Fast2d {
            base,
            len: len as u64,
            row: level.row,
            texel: f.texel_bytes() as u64,
            dims: [level.dims[0], level.dims[1]],
            scale: [level.dims[0] as f32, level.dims[1] as f32],
            address: [s.address[0], s.address[1]],
            normalized: s.normalized_coords,
            linear,
            float,
            format,
            ty: f.ty,
            border,
            results,
            _env: std::marker::PhantomData,
        })
    }

    /// Fetch at (`x[l]`, `y[l]`) for each lane `l` of `mask`: the four result registers'
    /// bits, as [`fetch`](super::fetch) gives them, in `out[0..4][l]` (other lanes untouched).
    pub fn fetch_lanes(&self, mask: u32, x: &[f32; 32], y: &[f32; 32], out: &mut [[u32; 32]; 4]) {
        match self.format {
            Format::Unorm8x4 if self.linear && self.address == [AddressMode::Clamp; 2] => {
                // 32-bit results are the floats' bits (`result_bits`' `Words` case), without
                // a call per lane.
                let words = self.results == TexResults::Words;
                for l in lanes(mask) {
                    let l = l as usize;
                    let t = self.bilinear_unorm8x4_clamp([x[l], y[l]]);
                    let r = if words {
                        t.map(f32::to_bits)
                    } else {
                        result_bits(Texel::F(t), self.ty, self.results)
                    };
                    for k in 0..4 {
                        out[k][l] = r[k];
                    }
                }
            }
            Format::Unorm8x4 => {
                let tab = u8_unorm();
                self.run(mask, x, y, out, |p| {
                    // SAFETY: `texel_at` gives 4 readable bytes (the texel of this format).
                    let b = unsafe { p.cast::<[u8; 4]>().read_unaligned() };
                    Texel::F(b.map(|v| tab[v as usize]))
                })
            }
            Format::F32x1 => self.run(mask, x, y, out, |p| {
                // SAFETY: `texel_at` gives 4 readable bytes.
                let b = unsafe { p.cast::<[u8; 4]>().read_unaligned() };
                Texel::F([f32::from_le_bytes(b), 0.0, 0.0, 1.0])
            }),
            Format::F32x4 => self.run(mask, x, y, out, |p| {
                // SAFETY: `texel_at` gives 16 readable bytes.
                let b = unsafe { p.cast::<[[u8; 4]; 4]>().read_unaligned() };
                Texel::F(b.map(f32::from_le_bytes))
            }),
            Format::Other(f) => self.run(mask, x, y, out, |p| {
                let mut b = [0u8; 16];
                let n = (self.texel as usize).min(16);
                // SAFETY: `texel_at` gives `texel` (at most 16: 4 channels of 4 bytes)
                // readable bytes.
                unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), n) };
                decode(f, self.float, &b)
            }),
        }
    }

    /// The lanes' fetches with texel decoder `dec` (given a pointer from `texel_at`), with
    /// addressing specialized for clamp to edge in both dimensions (the default).
    #[inline(always)]
    fn run(
        &self,
        mask: u32,
        x: &[f32; 32],
        y: &[f32; 32],
        out: &mut [[u32; 32]; 4],
        dec: impl Fn(*const u8) -> Texel,
    ) {
        if self.address == [AddressMode::Clamp; 2] {
            self.run_with::<true>(mask, x, y, out, &dec)
        } else {
            self.run_with::<false>(mask, x, y, out, &dec)
        }
    }

    /// [`Fast2d::run`] with `CLAMP`: whether both address modes are clamp to edge.
    #[inline(always)]
    fn run_with<const CLAMP: bool>(
        &self,
        mask: u32,
        x: &[f32; 32],
        y: &[f32; 32],
        out: &mut [[u32; 32]; 4],
        dec: &impl Fn(*const u8) -> Texel,
    ) {
        for l in lanes(mask) {
            let l = l as usize;
            let c = [x[l], y[l]];
            let texel = if self.linear {
                self.bilinear::<CLAMP>(c, dec)
            } else {
                self.nearest::<CLAMP>(c, dec)
            };
            let r = result_bits(texel, self.ty, self.results);
            for k in 0..4 {
                out[k][l] = r[k];
            }
        }
    }

    /// Coordinates in texels of level 0 (`Sample::filtered`'s scaling).
    #[inline(always)]
    fn texels(&self, u: [f32; 2]) -> [f32; 2] {
        if self.normalized {
            [u[0] * self.scale[0], u[1] * self.scale[1]]
        } else {
            u
        }
    }

    /// The texel at in-range indices (x, y), decoded; border texels are the caller's.
    #[inline(always)]
    fn texel_at(&self, x: u32, y: u32, dec: &impl Fn(*const u8) -> Texel) -> Texel {
        let off = y as u64 * self.row + x as u64 * self.texel;
        if off + self.texel > self.len {
            // Unreachable: addressing keeps indices in range, and the level holds them all.
            return Texel::F([0.0; 4]);
        }
        // SAFETY: [base + off, base + off + texel) lies within the `len` bytes translate
        // checked at `base`.
        dec(unsafe { self.base.add(off as usize) })
    }

    /// Texel index `i` of dimension `d` after addressing ([`address`]; with `CLAMP`, both
    /// modes are clamp to edge, whatever the coordinates); `None`: the border.
    #[inline(always)]
    fn index<const CLAMP: bool>(&self, d: usize, i: i64) -> Option<u32> {
        if CLAMP {
            Some(i.clamp(0, self.dims[d] as i64 - 1) as u32)
        } else {
            address(self.address[d], self.normalized, i, self.dims[d])
        }
    }

    /// Nearest-point sampling (`Sample::filtered`'s point case, `Sample::texel`).
    #[inline(always)]
    fn nearest<const CLAMP: bool>(&self, u: [f32; 2], dec: &impl Fn(*const u8) -> Texel) -> Texel {
        let x = self.texels(u);
        let ix = self.index::<CLAMP>(0, floor_index(x[0]));
        let iy = self.index::<CLAMP>(1, floor_index(x[1]));
        match (ix, iy) {
            (Some(i), Some(j)) => self.texel_at(i, j, dec),
            _ => self.border,
        }
    }

    /// [`bilinear`](Self::bilinear) of four u8 channels read as normalized floats, clamp to
    /// edge in both dimensions (the usual image sampler), with a texel's four channels as
    /// one array so that the compiler can keep them in one SIMD register: per channel the
    /// operations of [`blend_corners`] in its order (corner weights `1 · (1 − wx or wx) ·
    /// (1 − wy or wy)`, sums from 0 in corner order, no fused multiply-add) and of
    /// [`u8_unorm`] (`v / 255`, correctly rounded), so the same bits.
    #[inline(always)]
    fn bilinear_unorm8x4_clamp(&self, u: [f32; 2]) -> [f32; 4] {
        let x = self.texels(u);
        let (i, wx) = linear_weight(x[0] - 0.5);
        let (j, wy) = linear_weight(x[1] - 0.5);
        // Clamp to edge: every corner is a texel, never the border (`None`).
        let edge = |d: usize, i: i64| self.index::<true>(d, i).unwrap_or(0);
        let ix = [edge(0, i), edge(0, i + 1)];
        let iy = [edge(1, j), edge(1, j + 1)];
        let mut acc = [0f32; 4];
        for c in 0..4 {
            let (hx, hy) = (c & 1, c >> 1);
            let mut weight = 1f32;
            weight *= if hx == 1 { wx } else { 1.0 - wx };
            weight *= if hy == 1 { wy } else { 1.0 - wy };
            let (tx, ty) = (ix[hx], iy[hy]);
            let off = ty as u64 * self.row + tx as u64 * 4;
            let t = if off + 4 > self.len {
                // Unreachable, as in `texel_at`.
                [0.0; 4]
            } else {
                // SAFETY: [base + off, base + off + 4) lies within the `len` bytes
                // translate checked at `base`.
                let b = unsafe {
                    self.base
                        .add(off as usize)
                        .cast::<[u8; 4]>()
                        .read_unaligned()
                };
                b.map(|v| v as f32 / 255.0)
            };
            for k in 0..4 {
                acc[k] += weight * t[k];
            }
        }
        acc
    }

    /// Bilinear filtering (`Sample::filtered`'s linear case with two dimensions): the same
    /// weights (`linear_weight`) and the same weighted sum (`blend_corners`).
    #[inline(always)]
    fn bilinear<const CLAMP: bool>(&self, u: [f32; 2], dec: &impl Fn(*const u8) -> Texel) -> Texel {
        let x = self.texels(u);
        let (i, wx) = linear_weight(x[0] - 0.5);
        let (j, wy) = linear_weight(x[1] - 0.5);
        let ix = [
            [self.index::<CLAMP>(0, i), self.index::<CLAMP>(0, i + 1)],
            [self.index::<CLAMP>(1, j), self.index::<CLAMP>(1, j + 1)],
            [None; 2],
        ];
        let blended = blend_corners(2, &ix, &[wx, wy, 0.0], self.border, |p| {
            Ok::<_, std::convert::Infallible>(self.texel_at(p[0], p[1], dec))
        });
        match blended {
            Ok(t) => t,
            Err(never) => match never {},
        }
    }
}
