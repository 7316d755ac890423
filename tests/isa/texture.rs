//! Warp groups with textures, samplers and surfaces (`tex`, `tld4`, `txq`, `suld`, `sust`,
//! `sured`, `suq`, `istypep`): clauses of a `>>>` header that describe objects made by the
//! host API (`Context::create_texture_object`, `create_surface_object`, `create_sampler`, or
//! bound to module variables with `bind_texref`/`bind_samplerref`/`bind_surfref`) over the
//! case's global image, whose texels the table's `init global` lines give:
//!
//! ```text
//! ; texture NAME kind=2d fmt=f32x4 size=4x3 filter=linear addr=wrap,clamp norm=1 at=0x40
//! ; surface NAME kind=a2d fmt=u8x4 size=4x2 layers=3
//! ; sampler NAME filter=point addr=border border=1,0.5,0,1 ref
//! ```
//!
//! - `kind`: `1d 2d 3d a1d a2d cube acube` (the PTX geometries; `a…` are layered), or
//!   `linear` (linear memory read by `tex.1d` with integer coordinates, `tex1Dfetch`).
//! - `fmt`: channel type and count, `u8 s8 u16 s16 u32 s32 f16 f32` × `1 2 4` (`u8x4`).
//! - `size=W[xH[xD]]` in texels (cube maps: `size=W`, square faces), `layers=L` (layered
//!   kinds; cubes for `acube`), `levels=M` (mipmap levels, packed after each other as
//!   `src/runtime/texture.rs` lays them out: level by level, each with all its layers, cube
//!   faces +x −x +y −y +z −z, rows dense).
//! - Sampler state (textures and samplers): `filter=point|linear`, `mipfilter=point|linear`,
//!   `addr=M[,M[,M]]` (`wrap clamp mirror border`, x y z; one mode stands for all),
//!   `norm=0|1` (normalized coordinates), `read=elem|float` (element type or normalized
//!   float), `border=r,g,b,a`, `lod=bias,min,max`.
//! - `at=OFF`: where the texels start in the case's global image (default 0; the image must
//!   hold the whole resource).
//! - `ref`: instead of an object whose handle a register holds, a module variable named NAME
//!   (`.global .texref`, `.samplerref` or `.surfref`) bound before the launch; the PTX names
//!   it. A group with a `ref` clause has one case (a module variable holds one binding).
//!
//! An input of type `obj` holds a handle: its value k names the header's k-th object clause
//! (0 first, `ref` clauses counted too), and the register holds the handle of that object made
//! for the row's case. The expected values come from `ptx-tests/isa/gen_texture.py` (the ISA's
//! and the CUDA Programming Guide's texture fetching formulas), never from this code.

use ptxjit::host::{Context, DevicePtr, Module};
use ptxjit::runtime::texture::{
    AddressMode, ChannelFormat, ChannelType, FilterMode, ReadMode, ResourceDesc, ResourceKind,
    TextureDesc,
};

/// What an object clause makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjKind {
    Texture,
    Surface,
    Sampler,
}

/// One `; texture`, `; surface` or `; sampler` clause.
#[derive(Clone, Debug)]
pub struct ObjSpec {
    pub kind: ObjKind,
    pub name: String,
    /// The resource (textures and surfaces); its `ptr` is the offset into the global image.
    pub res: Option<ResourceDesc>,
    /// The sampler state (textures and samplers).
    pub tex: TextureDesc,
    /// A module variable (`ref`) rather than a handle in a register.
    pub is_ref: bool,
}

/// `texture …`, `surface …` or `sampler …` in a `>>>` header's clauses: `Some(spec)`;
/// another clause: `None`.
pub fn clause(clause: &str, line: usize) -> Result<Option<ObjSpec>, String> {
    let (kind, rest) = match clause.split_once(' ') {
        Some(("texture", r)) => (ObjKind::Texture, r),
        Some(("surface", r)) => (ObjKind::Surface, r),
        Some(("sampler", r)) => (ObjKind::Sampler, r),
        _ => return Ok(None),
    };
    parse(kind, rest)
        .map(Some)
        .map_err(|e| format!("line {line}: {e}"))
}

fn parse(kind: ObjKind, spec: &str) -> Result<ObjSpec, String> {
    let mut words = spec.split_whitespace();
    let name = words
        .next()
        .filter(|n| !n.contains('='))
        .ok_or("an object clause starts with its name")?
        .to_string();
    let mut tex = TextureDesc::default();
    let (mut geom, mut fmt, mut size, mut layers, mut levels, mut at) =
        (None, None, None, 1, 1, 0u64);
    let mut is_ref = false;
    for kv in words {
        if kv == "ref" {
            is_ref = true;
            continue;
        }
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("field '{kv}' needs KEY=VALUE (or 'ref')"))?;
        let num = |v: &str| -> Result<u32, String> {
            v.parse::<u32>().map_err(|_| format!("bad {k} '{v}'"))
        };
        let floats = |v: &str| -> Result<Vec<f32>, String> {
            v.split(',')
                .map(|x| x.parse::<f32>().map_err(|_| format!("bad {k} '{v}'")))
                .collect()
        };
        let sampler_key = matches!(
            k,
            "filter" | "mipfilter" | "addr" | "norm" | "read" | "border" | "lod"
        );
        if kind == ObjKind::Surface && sampler_key {
            return Err(format!("a surface has no sampler state ('{k}')"));
        }
        if kind == ObjKind::Sampler && !sampler_key {
            return Err(format!("a sampler has no resource ('{k}')"));
        }
        match k {
            "kind" => {
                geom = Some(match v {
                    "1d" => ResourceKind::D1,
                    "2d" => ResourceKind::D2,
                    "3d" => ResourceKind::D3,
                    "a1d" => ResourceKind::D1Layered,
                    "a2d" => ResourceKind::D2Layered,
                    "cube" => ResourceKind::Cube,
                    "acube" => ResourceKind::CubeLayered,
                    "linear" => ResourceKind::Linear,
                    _ => return Err(format!("kind '{v}' (1d 2d 3d a1d a2d cube acube linear)")),
                })
            }
            "fmt" => {
                let (ty, n) = v
                    .split_once('x')
                    .ok_or_else(|| format!("fmt '{v}' is TYPExCHANNELS (u8x4)"))?;
                let ty = ChannelType::from_name(ty).ok_or_else(|| {
                    format!("channel type '{ty}' (u8 s8 u16 s16 u32 s32 f16 f32)")
                })?;
                fmt = Some(ChannelFormat {
                    ty,
                    channels: num(n)?,
                });
            }
            "size" => {
                let d: Vec<u32> = v.split('x').map(num).collect::<Result<_, _>>()?;
                if d.is_empty() || d.len() > 3 {
                    return Err(format!("size '{v}' is W, WxH or WxHxD"));
                }
                size = Some(d);
            }
            "layers" => layers = num(v)?,
            "levels" => levels = num(v)?,
            "at" => {
                at = if let Some(h) = v.strip_prefix("0x") {
                    u64::from_str_radix(h, 16).map_err(|_| format!("bad at '{v}'"))?
                } else {
                    v.parse().map_err(|_| format!("bad at '{v}'"))?
                }
            }
            "filter" | "mipfilter" => {
                let f = match v {
                    "point" => FilterMode::Point,
                    "linear" => FilterMode::Linear,
                    _ => return Err(format!("{k} '{v}' (point or linear)")),
                };
                if k == "filter" {
                    tex.filter = f;
                } else {
                    tex.mip_filter = f;
                }
            }
            "addr" => {
                let modes: Vec<AddressMode> = v
                    .split(',')
                    .map(|m| {
                        AddressMode::from_name(m)
                            .ok_or_else(|| format!("address mode '{m}' (wrap clamp mirror border)"))
                    })
                    .collect::<Result<_, _>>()?;
                match modes.len() {
                    1 => tex.address = [modes[0]; 3],
                    2 | 3 => {
                        for (d, m) in modes.iter().enumerate() {
                            tex.address[d] = *m;
                        }
                    }
                    _ => return Err(format!("addr '{v}': one to three modes")),
                }
            }
            "norm" => {
                tex.normalized_coords = match v {
                    "0" => false,
                    "1" => true,
                    _ => return Err(format!("norm '{v}' (0 or 1)")),
                }
            }
            "read" => {
                tex.read_mode = match v {
                    "elem" => ReadMode::ElementType,
                    "float" => ReadMode::NormalizedFloat,
                    _ => return Err(format!("read '{v}' (elem or float)")),
                }
            }
            "border" => {
                let c = floats(v)?;
                tex.border_color = c
                    .try_into()
                    .map_err(|_| format!("border '{v}' needs four values"))?;
            }
            "lod" => {
                let c = floats(v)?;
                let [bias, min, max]: [f32; 3] = c
                    .try_into()
                    .map_err(|_| format!("lod '{v}' is bias,min,max"))?;
                (tex.mip_lod_bias, tex.min_lod, tex.max_lod) = (bias, min, max);
            }
            _ => return Err(format!("object field '{k}'")),
        }
    }
    let res = if kind == ObjKind::Sampler {
        None
    } else {
        let (Some(geom), Some(fmt), Some(size)) = (geom, fmt, size) else {
            return Err("a texture or surface needs kind=, fmt= and size=".into());
        };
        let cube = matches!(geom, ResourceKind::Cube | ResourceKind::CubeLayered);
        let dims = match (size.as_slice(), cube) {
            ([w], true) => [*w, *w, 1],
            ([w], false) => [*w, 1, 1],
            ([w, h], false) => [*w, *h, 1],
            ([w, h, d], false) => [*w, *h, *d],
            _ => return Err("a cube map's size is its face width alone".into()),
        };
        let mut desc = ResourceDesc::new(geom, DevicePtr(at), fmt, dims);
        desc.layers = layers;
        desc.mip_levels = levels;
        ptxjit::runtime::texture::Resource::layout(desc)?;
        Some(desc)
    };
    Ok(ObjSpec {
        kind,
        name,
        res,
        tex,
        is_ref,
    })
}

impl ObjSpec {
    /// The bytes past the start of the global image the resource needs (0: none).
    pub fn end(&self) -> u64 {
        self.res.map_or(0, |r| {
            r.ptr.0
                + ptxjit::runtime::texture::Resource::layout(r)
                    .map(|l| l.size_bytes())
                    .unwrap_or(0)
        })
    }

    /// The module-scope declaration of a `ref` clause's variable ("" for an object).
    fn declaration(&self) -> String {
        if !self.is_ref {
            return String::new();
        }
        let kind = match self.kind {
            ObjKind::Texture => "texref",
            ObjKind::Surface => "surfref",
            ObjKind::Sampler => "samplerref",
        };
        format!(".global .{kind} {};\n", self.name)
    }

    /// Make the object over the global image at `image` (or bind the module variable); its
    /// handle.
    fn make(&self, ctx: &mut Context, m: &Module, image: u64) -> Result<u64, String> {
        let res = self.res.map(|mut r| {
            r.ptr = DevicePtr(image + r.ptr.0);
            r
        });
        let e = |e: ptxjit::host::Error| format!("{} '{}': {e}", self.kind_name(), self.name);
        match (self.kind, res, self.is_ref) {
            (ObjKind::Texture, Some(r), false) => ctx.create_texture_object(r, self.tex),
            (ObjKind::Texture, Some(r), true) => ctx.bind_texref(m, &self.name, r, self.tex),
            (ObjKind::Surface, Some(r), false) => ctx.create_surface_object(r),
            (ObjKind::Surface, Some(r), true) => ctx.bind_surfref(m, &self.name, r),
            (ObjKind::Sampler, _, false) => Ok(ctx.create_sampler(self.tex)),
            (ObjKind::Sampler, _, true) => ctx.bind_samplerref(m, &self.name, self.tex),
            (ObjKind::Texture | ObjKind::Surface, None, _) => {
                unreachable!("parse gives textures and surfaces a resource")
            }
        }
        .map_err(e)
    }

    fn kind_name(&self) -> &'static str {
        match self.kind {
            ObjKind::Texture => "texture",
            ObjKind::Surface => "surface",
            ObjKind::Sampler => "sampler",
        }
    }
}

/// Check a group's objects against its global image once its header is read.
pub fn check(objs: &[ObjSpec], global: usize, line: usize) -> Result<(), String> {
    for o in objs {
        if o.res.is_some() && o.end() > global as u64 {
            return Err(format!(
                "line {line}: {} '{}' needs {} bytes of the global image, which has {global}",
                o.kind_name(),
                o.name,
                o.end()
            ));
        }
    }
    Ok(())
}

/// The module-scope declarations of a group's `ref` clauses.
pub fn declarations(objs: &[ObjSpec]) -> String {
    objs.iter().map(ObjSpec::declaration).collect()
}

/// Make each case's objects over its global image (`images[c]`, the device address) and put
/// their handles into the `obj` inputs of the rows: `rows[c][lane]` is the byte offset of the
/// lane's first input in `inb`, `obj_inputs` the indexes of the `obj` inputs.
pub fn bind(
    ctx: &mut Context,
    m: &Module,
    objs: &[ObjSpec],
    images: &[u64],
    obj_inputs: &[usize],
    rows: &[Vec<Option<usize>>],
    inb: &mut [u8],
) -> Result<(), String> {
    if objs.is_empty() {
        return Ok(());
    }
    if objs.iter().any(|o| o.is_ref) && images.len() != 1 {
        return Err("a group with a 'ref' object clause has exactly one case".into());
    }
    for (c, &image) in images.iter().enumerate() {
        let handles = objs
            .iter()
            .map(|o| o.make(ctx, m, image))
            .collect::<Result<Vec<u64>, String>>()?;
        for at in rows[c].iter().flatten() {
            for &k in obj_inputs {
                let o = at + 8 * k;
                let idx = u64::from_le_bytes(inb[o..o + 8].try_into().expect("8 bytes"));
                let h = handles.get(idx as usize).ok_or_else(|| {
                    format!(
                        "obj input {idx}: the header has {} object clauses",
                        objs.len()
                    )
                })?;
                inb[o..o + 8].copy_from_slice(&h.to_le_bytes());
            }
        }
    }
    Ok(())
}
