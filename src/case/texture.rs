//! Textures and surfaces of a case (`[textures.NAME]`, `[surfaces.NAME]`, `[texrefs.NAME]`):
//! PNG sources are decoded when the case is prepared; the session turns each table into a
//! resource on device memory (a buffer, or a copy of the image) and creates the object, or
//! binds a module's `.texref`/`.samplerref`/`.surfref` variable of that name.

use super::spec::{TexAddress, TexFilter, TexFormat, TexKind, TexReadMode, TexSource, TextureSpec};
use super::{CaseError, DType, HostBuffer};
use crate::host::{Context, DevicePtr, Module};
use crate::runtime::texture::{
    AddressMode, ChannelFormat, ChannelType, FilterMode, ReadMode, ResourceDesc, ResourceKind,
    TextureDesc,
};
use std::path::Path;

/// A decoded PNG: 8-bit channels, row-major, `channels` per pixel (RGB images gain an opaque
/// alpha: textures have 1, 2 or 4 channels).
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// `textures.NAME` (or `surfaces.` / `texrefs.`), for messages and the allocation label.
    pub key: String,
    pub width: u32,
    pub height: u32,
    pub channels: u32,
    pub bytes: Vec<u8>,
}

/// The largest decoded PNG accepted (bytes).
const MAX_PNG_BYTES: u64 = 1 << 30;

/// Read an 8-bit PNG (gray, gray+alpha, RGB, RGBA; palettes are expanded).
pub fn read_png(path: &Path, key: &str) -> Result<Image, String> {
    let file =
        std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut dec = png::Decoder::new(std::io::BufReader::new(file));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec
        .read_info()
        .map_err(|e| format!("{}: not a readable PNG: {e}", path.display()))?;
    let size = reader
        .output_buffer_size()
        .filter(|&s| s as u64 <= MAX_PNG_BYTES)
        .ok_or_else(|| format!("{}: image too large (over 1 GiB decoded)", path.display()))?;
    let mut buf = vec![0u8; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("{}: cannot decode: {e}", path.display()))?;
    buf.truncate(info.buffer_size());
    let (w, h) = (info.width, info.height);
    let (channels, bytes) = match info.color_type {
        png::ColorType::Grayscale => (1, buf),
        png::ColorType::GrayscaleAlpha => (2, buf),
        png::ColorType::Rgb => {
            let mut out = Vec::with_capacity(buf.len() / 3 * 4);
            for px in buf.chunks_exact(3) {
                out.extend_from_slice(px);
                out.push(255);
            }
            (4, out)
        }
        png::ColorType::Rgba => (4, buf),
        png::ColorType::Indexed => {
            return Err(format!("{}: palette not expanded", path.display()));
        }
    };
    Ok(Image {
        key: key.to_string(),
        width: w,
        height: h,
        channels,
        bytes,
    })
}

fn channel_type(f: TexFormat) -> ChannelType {
    match f {
        TexFormat::U8 => ChannelType::U8,
        TexFormat::S8 => ChannelType::S8,
        TexFormat::U16 => ChannelType::U16,
        TexFormat::S16 => ChannelType::S16,
        TexFormat::U32 => ChannelType::U32,
        TexFormat::S32 => ChannelType::S32,
        TexFormat::F16 => ChannelType::F16,
        TexFormat::F32 => ChannelType::F32,
    }
}

fn dtype_channel(t: DType) -> Option<ChannelType> {
    Some(match t {
        DType::U8 => ChannelType::U8,
        DType::S8 => ChannelType::S8,
        DType::U16 => ChannelType::U16,
        DType::S16 => ChannelType::S16,
        DType::U32 => ChannelType::U32,
        DType::S32 => ChannelType::S32,
        DType::F16 => ChannelType::F16,
        DType::F32 => ChannelType::F32,
        _ => return None,
    })
}

fn resource_kind(k: TexKind) -> ResourceKind {
    match k {
        TexKind::Linear => ResourceKind::Linear,
        TexKind::D1 => ResourceKind::D1,
        TexKind::D2 => ResourceKind::D2,
        TexKind::D3 => ResourceKind::D3,
        TexKind::D1Layered => ResourceKind::D1Layered,
        TexKind::D2Layered => ResourceKind::D2Layered,
        TexKind::Cube => ResourceKind::Cube,
        TexKind::CubeLayered => ResourceKind::CubeLayered,
    }
}

/// The sampler state of a spec (CUDA's defaults where a key is missing: clamp, point,
/// unnormalized, element-type reads, black transparent border).
pub fn texture_desc(s: &TextureSpec) -> TextureDesc {
    texture_desc_over(TextureDesc::default(), s)
}

/// The sampler state of a spec, taking what a key does not give from `base` (a `.texref`'s
/// initializer: the case file's keys win).
pub fn texture_desc_over(base: TextureDesc, s: &TextureSpec) -> TextureDesc {
    let mut d = base;
    if let Some(a) = &s.address {
        for (k, m) in a.iter().take(3).enumerate() {
            d.address[k] = match m {
                TexAddress::Wrap => AddressMode::Wrap,
                TexAddress::Mirror => AddressMode::Mirror,
                TexAddress::Clamp => AddressMode::Clamp,
                TexAddress::Border => AddressMode::Border,
            };
        }
    }
    if let Some(c) = &s.border_color {
        for (k, v) in c.iter().take(4).enumerate() {
            d.border_color[k] = *v as f32;
        }
    }
    if let Some(f) = s.filter {
        d.filter = match f {
            TexFilter::Point => FilterMode::Point,
            TexFilter::Linear => FilterMode::Linear,
        };
        d.mip_filter = d.filter;
    }
    if let Some(f) = s.mip_filter {
        d.mip_filter = match f {
            TexFilter::Point => FilterMode::Point,
            TexFilter::Linear => FilterMode::Linear,
        };
    }
    d.mip_lod_bias = s.lod_bias.unwrap_or(d.mip_lod_bias);
    d.min_lod = s.min_lod.unwrap_or(d.min_lod);
    d.max_lod = s.max_lod.unwrap_or(d.max_lod);
    d.normalized_coords = s.normalized_coords.unwrap_or(d.normalized_coords);
    if let Some(r) = s.read_mode {
        d.read_mode = match r {
            TexReadMode::Element => ReadMode::ElementType,
            TexReadMode::NormalizedFloat => ReadMode::NormalizedFloat,
        };
    }
    d
}

/// Where a resource's memory comes from, resolved to the device.
pub struct Source<'a> {
    pub buffers: &'a [(HostBuffer, DevicePtr)],
    pub images: &'a [(Image, DevicePtr)],
}

/// The resource a spec describes. `key` names the table in messages.
pub fn resource_desc(key: &str, s: &TextureSpec, src: &Source) -> Result<ResourceDesc, String> {
    let source = s
        .source
        .as_ref()
        .ok_or_else(|| format!("{key}.source: required (buffer = \"NAME\" or png = \"FILE\")"))?;
    let kind = s.kind.ok_or_else(|| format!("{key}.kind: required"))?;
    let (ptr, def_ty, def_ch, def_w, def_h, bytes) = match source {
        TexSource::Buffer(name) => {
            let (b, p) = src
                .buffers
                .iter()
                .find(|(b, _)| &b.name == name)
                .ok_or_else(|| format!("{key}.source: no buffer named '{name}'"))?;
            (
                *p,
                dtype_channel(b.dtype),
                None,
                None,
                None,
                b.bytes.len() as u64,
            )
        }
        TexSource::Png(_) => {
            let (img, p) = src
                .images
                .iter()
                .find(|(i, _)| i.key == key)
                .ok_or_else(|| format!("{key}.source: image not loaded"))?;
            (
                *p,
                Some(ChannelType::U8),
                Some(img.channels),
                Some(img.width),
                Some(img.height),
                img.bytes.len() as u64,
            )
        }
    };
    let ty = match s.format {
        Some(f) => channel_type(f),
        None => def_ty.ok_or_else(|| {
            format!("{key}.format: required (the source buffer's type is no texel type)")
        })?,
    };
    let channels = s.channels.or(def_ch).unwrap_or(1);
    let dim = |v: Option<u64>, def: Option<u32>, what: &str| -> Result<u32, String> {
        match v.map(|x| u32::try_from(x).map_err(|_| format!("{key}.{what}: too large"))) {
            Some(r) => r,
            None => Ok(def.unwrap_or(1)),
        }
    };
    let format = ChannelFormat { ty, channels };
    let tb = format.texel_bytes() as u64;
    let width = match (s.width, def_w) {
        (None, None) if kind == TexKind::Linear && tb > 0 => {
            u32::try_from(bytes / tb).map_err(|_| format!("{key}.width: too large"))?
        }
        (None, None) => return Err(format!("{key}.width: required")),
        _ => dim(s.width, def_w, "width")?,
    };
    let mut height = dim(s.height, def_h, "height")?;
    if matches!(kind, TexKind::Cube | TexKind::CubeLayered) && s.height.is_none() {
        height = width;
    }
    Ok(ResourceDesc {
        kind: resource_kind(kind),
        ptr,
        format,
        width,
        height,
        depth: dim(s.depth, None, "depth")?,
        layers: dim(s.layers, None, "layers")?,
        pitch_bytes: s.pitch_bytes.unwrap_or(0),
        mip_levels: s.mip_levels.unwrap_or(1),
        samples: match s.num_samples {
            Some(0) => return Err(format!("{key}.num_samples: at least 1")),
            Some(n) => n,
            None => 0,
        },
    })
}

/// Create every texture and surface object of a case (handles by name, for the arguments) and
/// bind every `[texrefs.NAME]` to the module's variable of that name.
pub fn create_objects(
    ctx: &mut Context,
    module: &Module,
    spec: &super::CaseSpec,
    src: &Source,
) -> Result<Vec<(String, u64)>, CaseError> {
    let arg_err = |m: String| CaseError::Case(m);
    let rt = |key: &str, e: crate::host::Error| CaseError::Case(format!("{key}: {e}"));
    let mut handles = vec![];
    for (name, t) in &spec.textures {
        let key = format!("textures.{name}");
        let res = resource_desc(&key, t, src).map_err(arg_err)?;
        let h = ctx
            .create_texture_object(res, texture_desc(t))
            .map_err(|e| rt(&key, e))?;
        handles.push((format!("texture:{name}"), h));
    }
    for (name, t) in &spec.surfaces {
        let key = format!("surfaces.{name}");
        let res = resource_desc(&key, t, src).map_err(arg_err)?;
        let h = ctx.create_surface_object(res).map_err(|e| rt(&key, e))?;
        handles.push((format!("surface:{name}"), h));
    }
    for (name, t) in &spec.texrefs {
        let key = format!("texrefs.{name}");
        let kind = module
            .handle_vars
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, k, _)| *k)
            .ok_or_else(|| {
                CaseError::Case(format!(
                    "{key}: the module has no .texref, .samplerref or .surfref named '{name}'"
                ))
            })?;
        use crate::ir::HandleKind;
        match kind {
            HandleKind::Texture => {
                let res = resource_desc(&key, t, src).map_err(arg_err)?;
                let base = module.texref_sampler(name).unwrap_or_default();
                ctx.bind_texref(module, name, res, texture_desc_over(base, t))
                    .map_err(|e| rt(&key, e))?;
            }
            HandleKind::Sampler => {
                ctx.bind_samplerref(module, name, texture_desc(t))
                    .map_err(|e| rt(&key, e))?;
            }
            HandleKind::Surface => {
                let res = resource_desc(&key, t, src).map_err(arg_err)?;
                ctx.bind_surfref(module, name, res)
                    .map_err(|e| rt(&key, e))?;
            }
        }
    }
    Ok(handles)
}
