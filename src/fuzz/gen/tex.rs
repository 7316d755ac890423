//! The texture object of a kernel that has one ([`Kernel::tex`](super::Kernel::tex)) and the
//! texture statements on it: every resource kind but the linear and multisample ones (1D, 2D,
//! 3D, 1D and 2D layered, cube, cube layered), mipmapped at times, over the read-only input
//! buffer; `tex` (plain, `.level`, `.grad`; texel offsets, depth compare, the residency
//! predicate; `.v4.f32`/`.s32`/`.u32`, `.v4.f16` and `.v2.f16x2` results), `tld4` and `txq`.
//!
//! Results are determined for any coordinates, levels of detail, gradients, offsets and
//! compare values: addressing, filtering, level selection and comparison are
//! `runtime::texture`'s, which both engines call, and the texels are read-only.

use super::{Class, Gen, Stmt, IN_BYTES};
use crate::fuzz::rng::Rng;

/// The texture object (over the input buffer, read-only) and surface object (`surf`, one
/// [`SURF_ROW`](super::SURF_ROW)-byte row per thread of the grid, 2D `u32` texels) of a
/// kernel that uses them. The case binds both ([`LaunchCase::of_kernel`]); the sampler state
/// is the texture's (unified texturing mode).
///
/// [`LaunchCase::of_kernel`]: crate::fuzz::case::LaunchCase::of_kernel
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TexSetup {
    /// The resource kind as case files name it: `1d`, `2d`, `3d`, `1d_layered`,
    /// `2d_layered`, `cube`, `cube_layered`.
    pub kind: &'static str,
    /// Channel type as case files name it (`u8`, `s8`, `u16`, `s16`, `u32`, `s32`, `f16`,
    /// `f32`).
    pub format: &'static str,
    /// 1, 2 or 4.
    pub channels: u32,
    /// Texels per dimension of level 0 (1 where the kind has no such dimension; a cube's
    /// height is its width); every level, layer and face fits in [`IN_BYTES`].
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    /// Layers of the layered kinds (cube layered: cubes), else 1.
    pub layers: u32,
    /// Mipmap levels (1: none).
    pub mip_levels: u32,
    /// Address mode per dimension (`wrap`, `mirror`, `clamp`, `border`).
    pub address: [&'static str; 3],
    pub border: [f32; 4],
    /// Linear filtering, also between mipmap levels (only where reads return floats).
    pub linear: bool,
    pub normalized_coords: bool,
    /// The normalized-float read mode (8- and 16-bit integer formats only).
    pub read_normalized: bool,
}

impl TexSetup {
    /// Whether `tex`/`tld4` return floats (a float format or normalized-float reads).
    pub fn float_results(&self) -> bool {
        self.format.starts_with('f') || self.read_normalized
    }

    /// The PTX geometry of the kind (`.1d`, `.2d`, `.3d`, `.a1d`, `.a2d`, `.cube`, `.acube`).
    pub fn geom(&self) -> &'static str {
        match self.kind {
            "1d" => "1d",
            "2d" => "2d",
            "3d" => "3d",
            "1d_layered" => "a1d",
            "2d_layered" => "a2d",
            "cube" => "cube",
            _ => "acube",
        }
    }

    /// Spatial coordinates of a lookup (a cube map's are a direction: three).
    fn coords(&self) -> usize {
        match self.geom() {
            "1d" | "a1d" => 1,
            "2d" | "a2d" => 2,
            _ => 3,
        }
    }

    fn layered(&self) -> bool {
        self.kind.ends_with("_layered")
    }

    fn cube(&self) -> bool {
        self.kind.starts_with("cube")
    }

    /// A 2D setup of the same sampler state (the surface's resource).
    pub fn flat_2d(&self, format: &'static str, width: u32, height: u32) -> TexSetup {
        TexSetup {
            kind: "2d",
            format,
            channels: 1,
            width,
            height,
            depth: 1,
            layers: 1,
            mip_levels: 1,
            ..*self
        }
    }

    /// Bytes of the resource with all its levels, layers and faces (as
    /// `runtime::texture::Resource::layout` lays it out), or none if it does not lay out.
    fn bytes(&self) -> Option<u64> {
        use crate::runtime::memory::DevicePtr;
        use crate::runtime::texture::{
            ChannelFormat, ChannelType, Resource, ResourceDesc, ResourceKind,
        };
        let format = ChannelFormat {
            ty: ChannelType::from_name(self.format)?,
            channels: self.channels,
        };
        let mut desc = ResourceDesc::new(
            ResourceKind::from_name(self.kind)?,
            DevicePtr(0),
            format,
            [self.width, self.height, self.depth],
        );
        desc.layers = self.layers;
        desc.mip_levels = self.mip_levels;
        Resource::layout(desc).ok().map(|r| r.size_bytes())
    }

    pub(super) fn random(rng: &mut Rng) -> TexSetup {
        let (format, bytes) = *rng.pick(&[
            ("u8", 1u32),
            ("s8", 1),
            ("u16", 2),
            ("s16", 2),
            ("u32", 4),
            ("s32", 4),
            ("f16", 2),
            ("f32", 4),
        ]);
        let channels = *rng.pick(&[1u32, 2, 4]);
        const KINDS: &[(&str, u32)] = &[
            ("1d", 20),
            ("2d", 40),
            ("3d", 10),
            ("1d_layered", 8),
            ("2d_layered", 8),
            ("cube", 7),
            ("cube_layered", 7),
        ];
        let kind = KINDS[rng.weighted(&KINDS.iter().map(|k| k.1).collect::<Vec<_>>())].0;
        let modes = ["wrap", "mirror", "clamp", "border"];
        let address = [*rng.pick(&modes), *rng.pick(&modes), *rng.pick(&modes)];
        let mut border = [0f32; 4];
        for b in &mut border {
            *b = *rng.pick(&[0.0f32, 1.0, 0.5, -2.25, 7.0, 300.0]);
        }
        let read_normalized = bytes < 4 && format != "f16" && rng.chance(40);
        let float = format.starts_with('f') || read_normalized;
        let mut t = TexSetup {
            kind,
            format,
            channels,
            width: 1,
            height: 1,
            depth: 1,
            layers: 1,
            mip_levels: 1,
            address,
            border,
            linear: float && rng.chance(50),
            normalized_coords: rng.chance(50),
            read_normalized,
        };
        // Sizes until the resource fits the input buffer (smaller each try).
        for attempt in 0..8u64 {
            let most = |full: u64| (full >> attempt).max(1);
            t.width = rng.range(
                1,
                most(match kind {
                    "1d" | "1d_layered" => 64,
                    "cube" | "cube_layered" => 5,
                    _ => 16,
                }),
            ) as u32;
            t.height = match kind {
                "2d" | "2d_layered" | "3d" => rng.range(1, most(16)) as u32,
                "cube" | "cube_layered" => t.width,
                _ => 1,
            };
            t.depth = if kind == "3d" {
                rng.range(1, most(6)) as u32
            } else {
                1
            };
            t.layers = if t.layered() {
                rng.range(1, most(4)) as u32
            } else {
                1
            };
            let max_levels = 32 - t.width.max(t.height).max(t.depth).leading_zeros();
            t.mip_levels = if rng.chance(35) {
                rng.range(1, u64::from(max_levels)) as u32
            } else {
                1
            };
            if t.bytes().is_some_and(|b| b <= u64::from(IN_BYTES)) {
                return t;
            }
        }
        // One texel of one level always fits.
        t.width = 1;
        t.height = 1;
        t.depth = 1;
        t.layers = 1;
        t.mip_levels = 1;
        t
    }
}

impl Gen<'_> {
    /// A texture coordinate into `%tc{c}` (f32) or `%tci{c}` (s32): a data register as is, or a
    /// small value around the texture's extent (normalized: around [0, 1)).
    fn tex_coord(&mut self, c: usize, float: bool, lines: &mut Vec<String>) -> String {
        let t = self.tex.expect("texture statements need Kernel::tex");
        if float {
            if self.rng.chance(25) {
                return self.src_reg(Class::F32);
            }
            let src = self.src_reg(Class::B32);
            // (src & 1023) - 256, scaled by 1/16 (texels) or 1/256 (normalized).
            let scale = if t.normalized_coords {
                "0f3B800000"
            } else {
                "0f3D800000"
            };
            lines.push(format!("and.b32 %t0, {src}, 1023;"));
            lines.push("sub.s32 %t0, %t0, 256;".to_string());
            lines.push(format!("cvt.rn.f32.s32 %tc{c}, %t0;"));
            lines.push(format!("mul.rn.f32 %tc{c}, %tc{c}, {scale};"));
            format!("%tc{c}")
        } else {
            if self.rng.chance(20) {
                return self.src_reg(Class::B32);
            }
            let src = self.src_reg(Class::B32);
            lines.push(format!("and.b32 %tci{c}, {src}, 63;"));
            lines.push(format!("sub.s32 %tci{c}, %tci{c}, 16;"));
            format!("%tci{c}")
        }
    }

    /// The coordinate operand of a lookup: the layer index first for the layered kinds (in
    /// `%tci3`, 0 ..= 7: past the last layer at times), then the spatial coordinates, padded
    /// to a `.v4` where the geometry takes four.
    fn tex_coords(&mut self, float: bool, lines: &mut Vec<String>) -> String {
        let t = self.tex.expect("texture statements need Kernel::tex");
        let mut c = Vec::new();
        if t.layered() {
            let src = self.src_reg(Class::B32);
            lines.push(format!("and.b32 %tci3, {src}, 7;"));
            c.push("%tci3".to_string());
        }
        for i in 0..t.coords() {
            c.push(self.tex_coord(i, float, lines));
        }
        if c.len() == 3 {
            c.push(c[2].clone());
        }
        format!("{{{}}}", c.join(", "))
    }

    /// A texture instruction on the kernel's texture `%htex` (PTX ISA §9.7.10): `tex` of the
    /// texture's geometry (f32 or s32 coordinates; at times `tex.level` or `tex.grad` with
    /// random levels and gradients, texel offsets in -8 ..= 7 but on cube maps, a depth
    /// compare value on the 2D, 2D layered and cube geometries with float coordinates, the residency predicate),
    /// `tld4.{r,g,b,a}` (2D, 2D layered and cube geometries), or `txq`. Results are `.v4.f32`
    /// where the texture returns floats (or `.v4.f16` into 16-bit registers, `.v2.f16x2`),
    /// else `.v4.s32`/`.u32`.
    pub(super) fn texture(&mut self) -> Stmt {
        let t = self.tex.expect("texture statements need Kernel::tex");
        let mut lines = Vec::new();
        let g = self.guard();
        let geom = t.geom();
        let float_res = t.float_results();
        let (dty, class) = if float_res {
            ("f32", Class::F32)
        } else {
            (*self.rng.pick(&["s32", "u32"]), Class::B32)
        };
        // Texel offsets (an `.s32` vector of the coordinates' shape) and a depth compare value.
        let offsets = |gen: &mut Gen| -> Option<String> {
            let n = match geom {
                "1d" | "a1d" => 1,
                "2d" | "a2d" => 2,
                "3d" => 4,
                _ => return None,
            };
            gen.rng.chance(25).then(|| {
                let o: Vec<String> = (0..n)
                    .map(|_| (gen.rng.range(0, 15) as i32 - 8).to_string())
                    .collect();
                format!("{{{}}}", o.join(", "))
            })
        };
        // Depth compare takes float coordinates (ptxas refuses it with `.s32` ones).
        let compare = |gen: &mut Gen, float: bool| -> Option<String> {
            (float && matches!(geom, "2d" | "a2d" | "cube" | "acube") && gen.rng.chance(20))
                .then(|| gen.src_reg(Class::F32))
        };
        let resident = |gen: &mut Gen| -> String {
            if gen.rng.chance(15) {
                format!("|{}", gen.data_reg(Class::Pred))
            } else {
                String::new()
            }
        };
        let tld4 = matches!(geom, "2d" | "a2d" | "cube" | "acube");
        match self.rng.below(10) {
            0..=5 => {
                let float = t.cube() || self.rng.chance(60);
                let coords = self.tex_coords(float, &mut lines);
                let cty = if float { "f32" } else { "s32" };
                let (shape, dst) = if float_res && self.rng.chance(20) {
                    if self.rng.chance(50) {
                        ("v4.f16", self.distinct_regs(Class::B16, 4))
                    } else {
                        ("v2.f16x2", self.distinct_regs(Class::B32, 2))
                    }
                } else {
                    (
                        if dty == "f32" {
                            "v4.f32"
                        } else if dty == "s32" {
                            "v4.s32"
                        } else {
                            "v4.u32"
                        },
                        self.distinct_regs(class, 4),
                    )
                };
                let dst = format!("{{{}}}{}", dst.join(", "), resident(self));
                // `.level`/`.grad` with float coordinates.
                let (how, extra) = match self.rng.below(if float { 10 } else { 1 }) {
                    1 | 2 => ("level.", format!(", {}", self.src_reg(Class::F32))),
                    3 | 4 => {
                        let n = match t.coords() {
                            1 => 1,
                            2 => 2,
                            _ => 4,
                        };
                        let mut grad = || {
                            let v: Vec<String> = (0..n).map(|_| self.src_reg(Class::F32)).collect();
                            format!("{{{}}}", v.join(", "))
                        };
                        let (dx, dy) = (grad(), grad());
                        ("grad.", format!(", {dx}, {dy}"))
                    }
                    _ => ("", String::new()),
                };
                let mut tail = extra;
                if let Some(o) = offsets(self) {
                    tail.push_str(&format!(", {o}"));
                }
                if let Some(f) = compare(self, float) {
                    tail.push_str(&format!(", {f}"));
                }
                lines.push(format!(
                    "{g}tex.{how}{geom}.{shape}.{cty} {dst}, [%htex, {coords}]{tail};"
                ));
            }
            6 | 7 if tld4 => {
                let coords = self.tex_coords(true, &mut lines);
                let comp = self.rng.pick(&["r", "g", "b", "a"]);
                let dst = format!(
                    "{{{}}}{}",
                    self.distinct_regs(class, 4).join(", "),
                    resident(self)
                );
                let mut tail = String::new();
                if let Some(o) = offsets(self) {
                    tail.push_str(&format!(", {o}"));
                }
                if let Some(f) = compare(self, true) {
                    tail.push_str(&format!(", {f}"));
                }
                lines.push(format!(
                    "{g}tld4.{comp}.{geom}.v4.{dty}.f32 {dst}, [%htex, {coords}]{tail};"
                ));
            }
            _ if self.rng.chance(20) => {
                // Handle type tests (§9.7.10.6): the texture and surface objects are what
                // they are.
                let p = self.data_reg(Class::Pred);
                if self.rng.chance(50) {
                    lines.push(format!("{g}istypep.texref {p}, %htex;"));
                } else {
                    lines.push(format!("{g}istypep.surfref {p}, %hsurf;"));
                }
            }
            _ => {
                let attr = self.rng.pick(&[
                    "width",
                    "height",
                    "depth",
                    "channel_data_type",
                    "channel_order",
                    "normalized_coords",
                    "filter_mode",
                    "addr_mode_0",
                    "addr_mode_1",
                    "addr_mode_2",
                    "num_mipmap_levels",
                    "array_size",
                    "num_samples",
                ]);
                let dst = self.data_reg(Class::B32);
                lines.push(format!("{g}txq.{attr}.b32 {dst}, [%htex];"));
            }
        }
        Stmt::Code(lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random setups lay out inside the input buffer, and every kind, mipmaps and layers
    /// come up.
    #[test]
    fn random_textures_fit() {
        let mut rng = Rng::seeded(11);
        let mut kinds = std::collections::BTreeSet::new();
        let (mut mips, mut layers) = (false, false);
        for _ in 0..3000 {
            let t = TexSetup::random(&mut rng);
            let bytes = t
                .bytes()
                .unwrap_or_else(|| panic!("does not lay out: {t:?}"));
            assert!(bytes <= u64::from(IN_BYTES), "{t:?}: {bytes} bytes");
            kinds.insert(t.kind);
            mips |= t.mip_levels > 1;
            layers |= t.layers > 1;
        }
        assert_eq!(kinds.len(), 7, "{kinds:?}");
        assert!(mips && layers);
    }
}
