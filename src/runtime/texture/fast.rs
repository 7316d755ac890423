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
//! again; the four-lane bilinear path instead relies on `Fast2d::new`'s one check that the
//! texel at the largest clamped indices ends inside it). When that one translation fails, the warp takes the generic path, which faults
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
    /// Whether the four-lane bilinear path (`bilinear_unorm8x4_clamp_x4`) may run: a
    /// [`Format::Unorm8x4`] texture whose every texel (indices clamped to `dims`) lies in
    /// the `len` bytes at `base`, with dimensions that fit an i32.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    lanes4: bool,
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
        // Every clamped texel's 4 bytes inside the translated level: texel (dims − 1) ends
        // at (h − 1)·row + w·4.
        let (w, h) = (level.dims[0], level.dims[1]);
        let lanes4 = matches!(format, Format::Unorm8x4)
            && (1..=i32::MAX as u32).contains(&w)
            && (1..=i32::MAX as u32).contains(&h)
            && (h as u64 - 1)
                .checked_mul(level.row)
                .and_then(|r| r.checked_add(w as u64 * 4))
                .is_some_and(|end| end <= len as u64);
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
            lanes4,
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
                let put = |out: &mut [[u32; 32]; 4], l: usize, t: [f32; 4]| {
                    let r = if words {
                        t.map(f32::to_bits)
                    } else {
                        result_bits(Texel::F(t), self.ty, self.results)
                    };
                    for k in 0..4 {
                        out[k][l] = r[k];
                    }
                };
                // Groups of four lanes all in the mask, four at once where the path takes
                // them; the other lanes one at a time.
                #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
                let mut rest = mask;
                #[cfg(target_arch = "x86_64")]
                if self.lanes4 {
                    for g in (0..32).step_by(4) {
                        if (mask >> g) & 0xf != 0xf {
                            continue;
                        }
                        let (gx, gy) = (&x[g..g + 4], &y[g..g + 4]);
                        // SAFETY: SSE2 is part of every x86_64 target (the baseline).
                        let t = unsafe { self.bilinear_unorm8x4_clamp_x4(gx, gy) };
                        let Some(t) = t else {
                            continue;
                        };
                        if words {
                            for k in 0..4 {
                                for j in 0..4 {
                                    out[k][g + j] = t[k][j].to_bits();
                                }
                            }
                        } else {
                            for (j, l) in (g..g + 4).enumerate() {
                                put(out, l, t.map(|channel| channel[j]));
                            }
                        }
                        rest &= !(0xf << g);
                    }
                }
                for l in lanes(rest) {
                    let l = l as usize;
                    put(out, l, self.bilinear_unorm8x4_clamp([x[l], y[l]]));
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

    /// [`bilinear_unorm8x4_clamp`](Self::bilinear_unorm8x4_clamp) of four lanes at once
    /// (coordinates `x[j]`, `y[j]`), in SSE2 registers that hold one value of each lane:
    /// the results channel by channel (`[channel][lane]`), or `None` when a lane's texel
    /// coordinate needs [`linear_weight`]'s general case (NaN, infinite, |u| ≥ 2^23), for the
    /// caller to fetch the four lanes one at a time. Only when `lanes4` holds.
    ///
    /// The same bits as the per-lane function, operation for operation: the coordinate
    /// scaling and `− 0.5`; `linear_weight`'s integer case (`cvttps2dq` truncates as
    /// `as i32` does in that range; a coordinate of ±0, which `linear_weight` sends to its
    /// general case, gives (0, +0) both ways); the clamp of `i` and `i + 1` to the edge; the
    /// corner weights `1 · (1 − wx or wx) · (1 − wy or wy)`; `v / 255` per channel
    /// (`divps`, correctly rounded as `divss`); the sums from 0 in corner order. Separate
    /// multiplies and adds (SSE2 has no fused multiply-add).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "sse2")]
    #[inline]
    fn bilinear_unorm8x4_clamp_x4(&self, x: &[f32], y: &[f32]) -> Option<[[f32; 4]; 4]> {
        use core::arch::x86_64::*;
        let mut cx = _mm_setr_ps(x[0], x[1], x[2], x[3]);
        let mut cy = _mm_setr_ps(y[0], y[1], y[2], y[3]);
        if self.normalized {
            cx = _mm_mul_ps(cx, _mm_set1_ps(self.scale[0]));
            cy = _mm_mul_ps(cy, _mm_set1_ps(self.scale[1]));
        }
        let half = _mm_set1_ps(0.5);
        let (i, wx, okx) = linear_weight_x4(_mm_sub_ps(cx, half));
        let (j, wy, oky) = linear_weight_x4(_mm_sub_ps(cy, half));
        if _mm_movemask_ps(_mm_and_ps(okx, oky)) != 0xf {
            return None;
        }
        let one = _mm_set1_epi32(1);
        let (wmax, hmax) = (
            _mm_set1_epi32(self.dims[0] as i32 - 1),
            _mm_set1_epi32(self.dims[1] as i32 - 1),
        );
        // The clamped indices, lane by lane: x as byte offsets in a row, y as row offsets.
        // (Plain loops, no closures: a closure here would not inherit the inlining.)
        let ends = [
            [clamp_x4(i, wmax), clamp_x4(_mm_add_epi32(i, one), wmax)],
            [clamp_x4(j, hmax), clamp_x4(_mm_add_epi32(j, one), hmax)],
        ];
        let mut ix = [[0i32; 4]; 2];
        let mut iy = [[0i32; 4]; 2];
        for h in 0..2 {
            // SAFETY: each array holds 16 bytes; the stores are unaligned.
            unsafe {
                _mm_storeu_si128(ix[h].as_mut_ptr().cast(), ends[0][h]);
                _mm_storeu_si128(iy[h].as_mut_ptr().cast(), ends[1][h]);
            }
        }
        let mut cols = [[0usize; 4]; 2];
        let mut rows = [[0usize; 4]; 2];
        for h in 0..2 {
            for l in 0..4 {
                cols[h][l] = ix[h][l] as usize * 4;
                rows[h][l] = iy[h][l] as usize * self.row as usize;
            }
        }
        let ones = _mm_set1_ps(1.0);
        let byte = _mm_set1_epi32(0xff);
        let unorm = _mm_set1_ps(255.0);
        let mut acc = [_mm_setzero_ps(); 4];
        for c in 0..4 {
            let (hx, hy) = (c & 1, c >> 1);
            let mut weight = ones;
            weight = _mm_mul_ps(weight, if hx == 1 { wx } else { _mm_sub_ps(ones, wx) });
            weight = _mm_mul_ps(weight, if hy == 1 { wy } else { _mm_sub_ps(ones, wy) });
            let mut t = [0i32; 4];
            for l in 0..4 {
                // SAFETY: the indices are clamped to [0, dims), and with `lanes4` every such
                // texel's 4 bytes lie within the `len` bytes translate checked at `base`.
                t[l] = unsafe {
                    self.base
                        .add(rows[hy][l] + cols[hx][l])
                        .cast::<i32>()
                        .read_unaligned()
                };
            }
            let t = _mm_setr_epi32(t[0], t[1], t[2], t[3]);
            for (k, a) in acc.iter_mut().enumerate() {
                // Channel k is byte k of the little-endian texel.
                let v = _mm_and_si128(_mm_srl_epi32(t, _mm_cvtsi32_si128(8 * k as i32)), byte);
                let v = _mm_div_ps(_mm_cvtepi32_ps(v), unorm);
                *a = _mm_add_ps(*a, _mm_mul_ps(weight, v));
            }
        }
        let mut r = [[0f32; 4]; 4];
        for k in 0..4 {
            // SAFETY: `r[k]` holds 16 bytes; the store is unaligned.
            unsafe { _mm_storeu_ps(r[k].as_mut_ptr(), acc[k]) };
        }
        Some(r)
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

/// [`linear_weight`] of four texel coordinates: (index, weight, lanes taken) where a lane is
/// taken when |ub| < 2^23 (not NaN, not infinite); the other lanes' index and weight are
/// meaningless. The integer case of `linear_weight`, lane by lane: `t = trunc(ub)`,
/// `i = t − (t > ub)`, `scaled = (ub − i) · 256`, `r = trunc(scaled)`, the weight
/// `(r + (scaled − r ≥ 0.5)) / 256`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn linear_weight_x4(
    ub: core::arch::x86_64::__m128,
) -> (
    core::arch::x86_64::__m128i,
    core::arch::x86_64::__m128,
    core::arch::x86_64::__m128,
) {
    use core::arch::x86_64::*;
    let magnitude = _mm_and_ps(ub, _mm_castsi128_ps(_mm_set1_epi32(i32::MAX)));
    let taken = _mm_cmplt_ps(magnitude, _mm_set1_ps(8_388_608.0));
    let t = _mm_cvttps_epi32(ub);
    // A true compare is all ones: −1.
    let i = _mm_add_epi32(t, _mm_castps_si128(_mm_cmpgt_ps(_mm_cvtepi32_ps(t), ub)));
    let scaled = _mm_mul_ps(_mm_sub_ps(ub, _mm_cvtepi32_ps(i)), _mm_set1_ps(256.0));
    let r = _mm_cvttps_epi32(scaled);
    let up = _mm_cmpge_ps(_mm_sub_ps(scaled, _mm_cvtepi32_ps(r)), _mm_set1_ps(0.5));
    let q = _mm_div_ps(
        _mm_cvtepi32_ps(_mm_sub_epi32(r, _mm_castps_si128(up))),
        _mm_set1_ps(256.0),
    );
    (i, q, taken)
}

/// `v.clamp(0, hi)` per lane of four i32 (SSE2 has no `pmaxsd`/`pminsd`), for `hi ≥ 0`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn clamp_x4(
    v: core::arch::x86_64::__m128i,
    hi: core::arch::x86_64::__m128i,
) -> core::arch::x86_64::__m128i {
    use core::arch::x86_64::*;
    let v = _mm_and_si128(v, _mm_cmpgt_epi32(v, _mm_setzero_si128()));
    let over = _mm_cmpgt_epi32(v, hi);
    _mm_or_si128(_mm_andnot_si128(over, v), _mm_and_si128(over, hi))
}
