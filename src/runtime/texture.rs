//! The texture and surface units: resource, texture and surface descriptors in the shape of
//! CUDA's (`cudaResourceDesc`, `cudaTextureDesc`), the per-context table of texture, sampler
//! and surface objects behind opaque 64-bit handles, and the sampling rules of the CUDA C++
//! Programming Guide's "Texture Fetching" appendix (PTX ISA §9.7.10 texture instructions,
//! §9.7.11 surface instructions).
//!
//! # The model
//! - A *resource* is device memory with a layout: a linear buffer (`tex1Dfetch`), or 1D, 2D,
//!   3D, layered and cube arrays, optionally pitched (2D) and mipmapped. Level `l` has
//!   `max(1, w >> l)` × `max(1, h >> l)` × `max(1, d >> l)` texels per layer; levels follow each
//!   other densely, each holding all its layers (cube maps: 6 faces per layer, face order +x -x
//!   +y -y +z -z). Level 0's rows are `pitch_bytes` apart when given.
//! - A *texture object* is a resource plus sampler state; a *surface object* a resource alone;
//!   a *sampler* (independent texturing mode's `.samplerref`) sampler state alone.
//! - Handles are `TAG | kind << 48 | generation << 32 | index`. Every use looks the handle up
//!   and checks tag, kind, index and generation, so a forged or destroyed (stale) handle is a
//!   fault of the kernel ([`FaultKind::BadHandle`]), never a host crash.
//! - Texel reads go through [`env::translate`] like every other global access: a resource
//!   whose memory was freed faults (memcheck) or reads whatever the arena holds, never host
//!   memory outside it.
//!
//! # Sampling (CUDA C++ Programming Guide, "Texture Fetching")
//! - Normalized coordinates are scaled by the level's size first: `u = x * N`.
//! - Nearest-point: `i = floor(u)`. Linear: `ub = u - 0.5`, `i = floor(ub)`, `α = frac(ub)`
//!   held in 9-bit fixed point with 8 fractional bits (rounded to the nearest 1/256, so 1.0
//!   is possible); `tex = (1-α)·T[i] + α·T[i+1]`, and the 2D/3D products of the weights, summed
//!   in f32 in texel order (i, j, k), (i+1, j, k), (i, j+1, k), … .
//! - Addressing is applied to each texel index: clamp to `[0, N-1]` (clamp to edge), border
//!   (indices outside read the border colour), wrap (`i mod N`) and mirror (`i mod 2N`, then
//!   `2N-1-m` for `m ≥ N`). Wrap and mirror need normalized coordinates; without them they
//!   act as clamp, as on the hardware.
//! - Read mode normalized-float turns 8- and 16-bit integer channels into `[0, 1]`
//!   (unsigned: `v / (2^n - 1)`) or `[-1, 1]` (signed: `max(v / (2^(n-1) - 1), -1)`) before
//!   filtering; f16 channels always read as f32.
//! - Missing channels read as 0, a missing alpha as 1.
//! - Cube maps: the major axis of (x, y, z) picks the face, as in the guide's table; the face
//!   coordinates `s = (sc/|ma| + 1)/2`, `t = (tc/|ma| + 1)/2` are normalized.
//!   Each face is sampled on its own like a 2D texture, as CUDA's non-seamless cube maps
//!   (`cudaTextureDesc::seamlessCubemap = 0`, the default) do: the sampler's address modes
//!   apply per face (`address[0]` to s, `address[1]` to t: wrap, mirror, clamp to the face's
//!   edge, border colour), never texels of the neighbouring face; `tld4` on a cube map
//!   gathers its footprint on the selected face by the same rule. Seamless filtering across
//!   faces is not modelled (there is no way to request it).
//! - Mipmaps: `tex.level` takes the level of detail; `tex.grad` uses `log2` of the longer
//!   gradient in texels; `tex` uses level 0. Then `lod = clamp(lod + bias, min, max)`;
//!   point mip filtering picks `round(lod)`, linear blends `floor(lod)` and the next level with
//!   weight `frac(lod)` (also 1/256 steps). Levels past the last read the last.
//! - Texel offsets (`tex`/`tld4` operand `e`) are added to the coordinates in texels of the
//!   level read, after normalized coordinates are scaled and before addressing (integer
//!   coordinates: to the indices).
//! - Depth compare (operand `f`): each texel fetched (border texels too) has its first channel
//!   replaced by 1 when `f <= texel` (OpenGL's default `LEQUAL`), else 0, before filtering.
//! - `.f16` results: the four channels rounded to f16 (nearest even; integer channels by
//!   their signedness first); `.f16x2` packs them (r, g) and (b, a), low half first.
//! - Multisample resources (`tex.2dms`/`.a2dms`): 2D (layered) resources with
//!   [`ResourceDesc::samples`] per texel, each texel's samples consecutive; integer
//!   coordinates, and a sample index outside the texel's samples reads 0.
//!
//! Surfaces (`suld`/`sust`/`sured`) address texels by integer coordinates; `.b` forms give x in
//! bytes. Out of range: `.trap` faults ([`FaultKind::SurfaceBounds`]), `.clamp` uses the
//! nearest in-range element, `.zero` loads 0 and drops stores.

use super::env::{self, CtaEnv, FaultKind};
use super::initcheck::InitAccess;
use super::memory::{DeviceMemory, DevicePtr};
use crate::ir::{AtomOp, Sign, Space, TexAttr};

/// The high byte of every handle ptxjit gives out.
const HANDLE_TAG: u64 = 0x7e << 56;

/// Channel data type of a texel (`cudaChannelFormatDesc`'s kind and bit size).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelType {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    F16,
    F32,
}

impl ChannelType {
    /// Bytes per channel.
    pub fn bytes(self) -> u32 {
        match self {
            ChannelType::U8 | ChannelType::S8 => 1,
            ChannelType::U16 | ChannelType::S16 | ChannelType::F16 => 2,
            ChannelType::U32 | ChannelType::S32 | ChannelType::F32 => 4,
        }
    }

    /// The type named `u8`, `s8`, … `f32` in case files.
    pub fn from_name(s: &str) -> Option<ChannelType> {
        Some(match s {
            "u8" => ChannelType::U8,
            "s8" => ChannelType::S8,
            "u16" => ChannelType::U16,
            "s16" => ChannelType::S16,
            "u32" => ChannelType::U32,
            "s32" => ChannelType::S32,
            "f16" => ChannelType::F16,
            "f32" => ChannelType::F32,
            _ => return None,
        })
    }

    fn is_float(self) -> bool {
        matches!(self, ChannelType::F16 | ChannelType::F32)
    }

    /// OpenCL's `cl_channel_type` code that `txq.channel_data_type` reports (PTX ISA §9.7.10.5
    /// names OpenCL's values): element-type reads give the `*_INT*` codes, normalized-float
    /// reads the `UNORM`/`SNORM` ones.
    fn cl_code(self, normalized: bool) -> u32 {
        match (self, normalized) {
            (ChannelType::S8, true) => 0x10D0,
            (ChannelType::S16, true) => 0x10D1,
            (ChannelType::U8, true) => 0x10D2,
            (ChannelType::U16, true) => 0x10D3,
            (ChannelType::S8, false) => 0x10D7,
            (ChannelType::S16, false) => 0x10D8,
            (ChannelType::S32, _) => 0x10D9,
            (ChannelType::U8, false) => 0x10DA,
            (ChannelType::U16, false) => 0x10DB,
            (ChannelType::U32, _) => 0x10DC,
            (ChannelType::F16, _) => 0x10DD,
            (ChannelType::F32, _) => 0x10DE,
        }
    }
}

/// Texel format: channel type and 1, 2 or 4 channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChannelFormat {
    pub ty: ChannelType,
    pub channels: u32,
}

impl ChannelFormat {
    /// Bytes per texel.
    pub fn texel_bytes(self) -> u32 {
        self.ty.bytes() * self.channels
    }
}

/// The shape of a resource (`cudaResourceType` with the array flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    /// Linear memory read with integer indices (`tex1Dfetch`); no filtering or addressing,
    /// out-of-range reads give 0.
    Linear,
    D1,
    D2,
    D3,
    D1Layered,
    D2Layered,
    /// Six faces of `width` × `width` texels.
    Cube,
    CubeLayered,
}

impl ResourceKind {
    /// The kind named in case files (`linear`, `1d`, `2d`, `3d`, `1d_layered`, `2d_layered`,
    /// `cube`, `cube_layered`).
    pub fn from_name(s: &str) -> Option<ResourceKind> {
        Some(match s {
            "linear" => ResourceKind::Linear,
            "1d" => ResourceKind::D1,
            "2d" => ResourceKind::D2,
            "3d" => ResourceKind::D3,
            "1d_layered" => ResourceKind::D1Layered,
            "2d_layered" => ResourceKind::D2Layered,
            "cube" => ResourceKind::Cube,
            "cube_layered" => ResourceKind::CubeLayered,
            _ => return None,
        })
    }

    fn layered(self) -> bool {
        matches!(
            self,
            ResourceKind::D1Layered | ResourceKind::D2Layered | ResourceKind::CubeLayered
        )
    }

    fn cube(self) -> bool {
        matches!(self, ResourceKind::Cube | ResourceKind::CubeLayered)
    }
}

/// Device memory and its layout (`cudaResourceDesc`). Sizes are in texels; unused
/// dimensions are 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResourceDesc {
    pub kind: ResourceKind,
    pub ptr: DevicePtr,
    pub format: ChannelFormat,
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    /// Layers of the layered kinds (cube layered: cubes).
    pub layers: u32,
    /// Bytes between rows of level 0 (pitched 2D memory); 0: `width * texel bytes`.
    pub pitch_bytes: u64,
    /// Mipmap levels (≥ 1).
    pub mip_levels: u32,
    /// Samples per texel of a multisample resource (`tex.2dms`/`.a2dms`, PTX ISA §9.7.10.3;
    /// 2D and 2D layered kinds only): 0 for an ordinary resource. A texel's samples are
    /// consecutive in memory (sample-major within the texel), so a row holds
    /// `width * samples` texels' worth of bytes.
    pub samples: u32,
}

impl ResourceDesc {
    /// A dense resource of `kind` at `ptr` (one level, one layer).
    pub fn new(kind: ResourceKind, ptr: DevicePtr, format: ChannelFormat, dims: [u32; 3]) -> Self {
        ResourceDesc {
            kind,
            ptr,
            format,
            width: dims[0],
            height: dims[1],
            depth: dims[2],
            layers: 1,
            pitch_bytes: 0,
            mip_levels: 1,
            samples: 0,
        }
    }
}

/// Texture address mode of one dimension (`cudaTextureAddressMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AddressMode {
    Wrap,
    #[default]
    Clamp,
    Mirror,
    Border,
}

impl AddressMode {
    /// `wrap`, `clamp`, `mirror`, `border`.
    pub fn from_name(s: &str) -> Option<AddressMode> {
        Some(match s {
            "wrap" => AddressMode::Wrap,
            "clamp" => AddressMode::Clamp,
            "mirror" => AddressMode::Mirror,
            "border" => AddressMode::Border,
            _ => return None,
        })
    }

    /// The code `txq.addr_mode_N` reports (CUDA's enum order: wrap 0, clamp 1, mirror 2,
    /// border 3).
    fn code(self) -> u32 {
        match self {
            AddressMode::Wrap => 0,
            AddressMode::Clamp => 1,
            AddressMode::Mirror => 2,
            AddressMode::Border => 3,
        }
    }
}

/// Filter mode (`cudaTextureFilterMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum FilterMode {
    #[default]
    Point,
    Linear,
}

/// Read mode (`cudaTextureReadMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ReadMode {
    #[default]
    ElementType,
    NormalizedFloat,
}

/// Sampler state (`cudaTextureDesc`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextureDesc {
    /// Address mode of x, y, z.
    pub address: [AddressMode; 3],
    /// Filtering within a level.
    pub filter: FilterMode,
    pub read_mode: ReadMode,
    /// Coordinates in [0, 1) (scaled by each level's size) instead of texels.
    pub normalized_coords: bool,
    /// What border texels read (integer reads: the values truncated to integers).
    pub border_color: [f32; 4],
    /// Filtering between mipmap levels.
    pub mip_filter: FilterMode,
    /// Added to the level of detail before clamping.
    pub mip_lod_bias: f32,
    /// The level of detail is clamped to [min_lod, max_lod].
    pub min_lod: f32,
    pub max_lod: f32,
}

impl Default for TextureDesc {
    fn default() -> Self {
        TextureDesc {
            address: [AddressMode::Clamp; 3],
            filter: FilterMode::Point,
            read_mode: ReadMode::ElementType,
            normalized_coords: false,
            border_color: [0.0; 4],
            mip_filter: FilterMode::Point,
            mip_lod_bias: 0.0,
            min_lod: 0.0,
            max_lod: 1000.0,
        }
    }
}

/// One mipmap level's layout.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Level {
    /// Device address of the level's first texel.
    base: u64,
    dims: [u32; 3],
    row: u64,
    /// Bytes per 2D slice (`row * height`).
    slice: u64,
    /// Bytes per layer (`slice * depth`).
    layer: u64,
}

/// A validated resource with its levels laid out.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    pub desc: ResourceDesc,
    levels: Vec<Level>,
    /// Layers in memory (cube: 6 per cube).
    mem_layers: u32,
}

impl Resource {
    /// Check `desc` and lay out its levels; its memory must lie inside one live allocation of
    /// `mem`. Errors: see [`Resource::layout`], and memory outside one allocation.
    pub fn new(desc: ResourceDesc, mem: &DeviceMemory) -> Result<Resource, String> {
        let r = Resource::layout(desc)?;
        let size = r.size_bytes();
        if !mem.in_allocation(desc.ptr.0, size) {
            return Err(format!(
                "the resource needs {size} bytes at {:#x}, which are not inside one allocation",
                desc.ptr.0
            ));
        }
        Ok(r)
    }

    /// Check `desc` and lay out its levels (no memory check). Errors: zero or inconsistent
    /// sizes, a channel count other than 1, 2, 4, more mip levels than the size allows, and a
    /// pitch smaller than a row or not a multiple of the texel size.
    pub fn layout(desc: ResourceDesc) -> Result<Resource, String> {
        let f = desc.format;
        if ![1, 2, 4].contains(&f.channels) {
            return Err(format!("{} channels: textures have 1, 2 or 4", f.channels));
        }
        let d = &desc;
        let one = |what: &str, v: u32| {
            if v != 1 {
                Err(format!("a {:?} resource has no {what} (got {v})", d.kind))
            } else {
                Ok(())
            }
        };
        if d.width == 0 || d.height == 0 || d.depth == 0 || d.layers == 0 || d.mip_levels == 0 {
            return Err("resource sizes, layers and mip levels must be at least 1".into());
        }
        match d.kind {
            ResourceKind::Linear | ResourceKind::D1 | ResourceKind::D1Layered => {
                one("height", d.height)?;
                one("depth", d.depth)?;
            }
            ResourceKind::D2 | ResourceKind::D2Layered => one("depth", d.depth)?,
            ResourceKind::D3 => {}
            ResourceKind::Cube | ResourceKind::CubeLayered => {
                one("depth", d.depth)?;
                if d.height != d.width {
                    return Err(format!(
                        "cube map faces are square: width {} and height {}",
                        d.width, d.height
                    ));
                }
            }
        }
        if !d.kind.layered() {
            one("layer count", d.layers)?;
        }
        if d.kind == ResourceKind::Linear {
            one("mip level count", d.mip_levels)?;
        }
        if d.samples > 0 {
            if !matches!(d.kind, ResourceKind::D2 | ResourceKind::D2Layered) {
                return Err(format!(
                    "a {:?} resource cannot be multisample (2D and 2D layered only)",
                    d.kind
                ));
            }
            one("mip level count of a multisample resource", d.mip_levels)?;
            if d.samples > 64 {
                return Err(format!("{} samples per texel: at most 64", d.samples));
            }
        }
        let max_dim = d.width.max(d.height).max(d.depth);
        if d.mip_levels > 32 - max_dim.leading_zeros() {
            return Err(format!(
                "{} mip levels for a largest dimension of {max_dim}",
                d.mip_levels
            ));
        }
        let tb = f.texel_bytes() as u64 * d.samples.max(1) as u64;
        let row0 = d.width as u64 * tb;
        if d.pitch_bytes != 0 && (d.pitch_bytes < row0 || !d.pitch_bytes.is_multiple_of(tb)) {
            return Err(format!(
                "pitch of {} bytes: rows of {} texels need at least {row0} bytes, a multiple of {tb}",
                d.pitch_bytes, d.width
            ));
        }
        let mem_layers = d.layers * if d.kind.cube() { 6 } else { 1 };
        let mut levels = vec![];
        let mut off = 0u64;
        for l in 0..d.mip_levels {
            let dims = [
                (d.width >> l).max(1),
                (d.height >> l).max(1),
                (d.depth >> l).max(1),
            ];
            let row = if l == 0 && d.pitch_bytes != 0 {
                d.pitch_bytes
            } else {
                dims[0] as u64 * tb
            };
            let slice = row
                .checked_mul(dims[1] as u64)
                .ok_or("resource too large")?;
            let layer = slice
                .checked_mul(dims[2] as u64)
                .ok_or("resource too large")?;
            levels.push(Level {
                base: d.ptr.0.wrapping_add(off),
                dims,
                row,
                slice,
                layer,
            });
            off = layer
                .checked_mul(mem_layers as u64)
                .and_then(|x| x.checked_add(off))
                .ok_or("resource too large")?;
        }
        Ok(Resource {
            desc,
            levels,
            mem_layers,
        })
    }

    /// Bytes of memory the resource spans (all levels and layers).
    pub fn size_bytes(&self) -> u64 {
        self.levels.last().map_or(0, |l| {
            l.base - self.desc.ptr.0 + l.layer * self.mem_layers as u64
        })
    }

    /// Device address of texel (x, y, z) of memory layer `layer` at level `lvl` (sample 0 of
    /// a multisample texel); the indices must be in range.
    fn texel_addr(&self, lvl: usize, layer: u32, x: u32, y: u32, z: u32) -> u64 {
        let l = &self.levels[lvl];
        l.base
            + layer as u64 * l.layer
            + z as u64 * l.slice
            + y as u64 * l.row
            + x as u64 * self.desc.format.texel_bytes() as u64 * self.desc.samples.max(1) as u64
    }
}

/// A texture object: a resource and its sampler state.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureObject {
    pub res: Resource,
    pub tex: TextureDesc,
}

/// What a handle refers to.
#[derive(Clone, Debug, PartialEq)]
pub enum Object {
    Texture(Box<TextureObject>),
    Surface(Resource),
    Sampler(TextureDesc),
}

impl Object {
    fn kind_code(&self) -> u64 {
        match self {
            Object::Texture(_) => 1,
            Object::Sampler(_) => 2,
            Object::Surface(_) => 3,
        }
    }
}

#[derive(Clone, Debug, Default)]
struct Slot {
    generation: u16,
    obj: Option<Object>,
}

/// The texture, sampler and surface objects of a context, behind opaque handles.
#[derive(Clone, Debug, Default)]
pub struct TextureTable {
    slots: Vec<Slot>,
}

impl TextureTable {
    fn insert(&mut self, obj: Object) -> u64 {
        let kind = obj.kind_code();
        let idx = match self.slots.iter().position(|s| s.obj.is_none()) {
            Some(i) => i,
            None => {
                self.slots.push(Slot::default());
                self.slots.len() - 1
            }
        };
        let s = &mut self.slots[idx];
        s.generation = s.generation.wrapping_add(1);
        s.obj = Some(obj);
        HANDLE_TAG | kind << 48 | (s.generation as u64) << 32 | idx as u64
    }

    /// Create a texture object (`cudaCreateTextureObject`). Errors: an invalid resource (see
    /// [`Resource::new`]), linear filtering of a texture that reads integers, a normalized
    /// read of 32-bit integers, and sampler state a linear resource cannot use.
    pub fn create_texture(
        &mut self,
        mem: &DeviceMemory,
        res: ResourceDesc,
        tex: TextureDesc,
    ) -> Result<u64, String> {
        let r = Resource::new(res, mem)?;
        let t = res.format.ty;
        if tex.read_mode == ReadMode::NormalizedFloat
            && matches!(t, ChannelType::U32 | ChannelType::S32)
        {
            return Err("normalized-float reads need 8- or 16-bit integer channels".into());
        }
        let float = t.is_float() || tex.read_mode == ReadMode::NormalizedFloat;
        if !float && (tex.filter == FilterMode::Linear || tex.mip_filter == FilterMode::Linear) {
            return Err(
                "linear filtering needs a texture that returns floats (a float format or the \
                 normalized-float read mode)"
                    .into(),
            );
        }
        Ok(self.insert(Object::Texture(Box::new(TextureObject { res: r, tex }))))
    }

    /// Create a surface object (`cudaCreateSurfaceObject`). Surfaces have one level.
    pub fn create_surface(&mut self, mem: &DeviceMemory, res: ResourceDesc) -> Result<u64, String> {
        if res.kind == ResourceKind::Linear || res.mip_levels != 1 || res.samples != 0 {
            return Err("surfaces are 1D, 2D, 3D or layered arrays of one level".into());
        }
        let r = Resource::new(res, mem)?;
        Ok(self.insert(Object::Surface(r)))
    }

    /// Create a sampler (independent texturing mode's `.samplerref` state).
    pub fn create_sampler(&mut self, tex: TextureDesc) -> u64 {
        self.insert(Object::Sampler(tex))
    }

    /// Destroy an object; its handle becomes stale. Errors: not a live handle.
    pub fn destroy(&mut self, h: u64) -> Result<(), String> {
        match self.get_mut(h) {
            Some(s) => {
                s.obj = None;
                Ok(())
            }
            None => Err(format!(
                "{h:#x} is not a live texture, sampler or surface handle"
            )),
        }
    }

    fn get_mut(&mut self, h: u64) -> Option<&mut Slot> {
        if h >> 56 != HANDLE_TAG >> 56 {
            return None;
        }
        let s = self.slots.get_mut((h & 0xffff_ffff) as usize)?;
        let obj = s.obj.as_ref()?;
        (s.generation as u64 == (h >> 32) & 0xffff && obj.kind_code() == (h >> 48) & 0xff)
            .then_some(s)
    }

    /// The live object behind handle `h`.
    pub fn get(&self, h: u64) -> Option<&Object> {
        if h >> 56 != HANDLE_TAG >> 56 {
            return None;
        }
        let s = self.slots.get((h & 0xffff_ffff) as usize)?;
        let obj = s.obj.as_ref()?;
        (s.generation as u64 == (h >> 32) & 0xffff && obj.kind_code() == (h >> 48) & 0xff)
            .then_some(obj)
    }

    /// The texture object behind `h`.
    pub fn texture(&self, h: u64) -> Option<&TextureObject> {
        match self.get(h)? {
            Object::Texture(t) => Some(t),
            _ => None,
        }
    }

    /// The surface behind `h`.
    pub fn surface(&self, h: u64) -> Option<&Resource> {
        match self.get(h)? {
            Object::Surface(r) => Some(r),
            _ => None,
        }
    }

    /// The sampler state behind `h` (a sampler, or a texture object's own).
    pub fn sampler(&self, h: u64) -> Option<&TextureDesc> {
        match self.get(h)? {
            Object::Sampler(s) => Some(s),
            Object::Texture(t) => Some(&t.tex),
            Object::Surface(_) => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Texel access.

/// Why a texture or surface access failed; the caller records it as a fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexFault {
    pub kind: FaultKind,
    pub space: Space,
    /// The device address; the handle for [`FaultKind::BadHandle`]; the x coordinate in bytes
    /// for [`FaultKind::SurfaceBounds`].
    pub addr: u64,
    /// Bytes of the access.
    pub size: u32,
}

impl TexFault {
    /// The fault of using `h`, which is not a live handle of the right kind.
    pub fn bad_handle(h: u64) -> TexFault {
        TexFault {
            kind: FaultKind::BadHandle,
            space: Space::Global,
            addr: h,
            size: 8,
        }
    }
}

/// Read `n` (at most 32: a `.v4.b64` surface access) bytes of device memory at `addr` (global
/// rules of `env::translate`).
fn read_mem(env: &CtaEnv, addr: u64, n: u32) -> Result<[u8; 32], TexFault> {
    let p =
        env::translate(env, Space::Global, addr, n, 1, 0).map_err(|(kind, space)| TexFault {
            kind,
            space,
            addr,
            size: n,
        })?;
    let mut b = [0u8; 32];
    // SAFETY: translate checked [p, p+n) inside the arena; at most 32 bytes are copied. The
    // common sizes get a fixed-length copy (no call to memmove).
    unsafe {
        match n {
            1 => b[0] = *p,
            2 => std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), 2),
            4 => std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), 4),
            8 => std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), 8),
            16 => std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), 16),
            _ => std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), n.min(32) as usize),
        }
    }
    Ok(b)
}

/// Write bytes to device memory at `addr`.
fn write_mem(env: &CtaEnv, addr: u64, bytes: &[u8]) -> Result<(), TexFault> {
    let n = bytes.len() as u32;
    let p =
        env::translate(env, Space::Global, addr, n, 1, 0).map_err(|(kind, space)| TexFault {
            kind,
            space,
            addr,
            size: n,
        })?;
    // SAFETY: translate checked [p, p+n) inside the arena.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
    env::init_access(env, Space::Global, addr, n, 0, 0, InitAccess::Write);
    Ok(())
}

/// A texel's channels: floats (float formats, normalized reads) or integer bits.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Texel {
    F([f32; 4]),
    I([u32; 4]),
}

/// Channel `c` of a texel's bytes as its raw value, sign-extended for signed types.
fn channel_raw(ty: ChannelType, b: &[u8], c: usize) -> u32 {
    let n = ty.bytes() as usize;
    let s = &b[c * n..c * n + n];
    match ty {
        ChannelType::U8 => s[0] as u32,
        ChannelType::S8 => s[0] as i8 as i32 as u32,
        ChannelType::U16 | ChannelType::F16 => u16::from_le_bytes([s[0], s[1]]) as u32,
        ChannelType::S16 => i16::from_le_bytes([s[0], s[1]]) as i32 as u32,
        ChannelType::U32 | ChannelType::S32 | ChannelType::F32 => {
            u32::from_le_bytes([s[0], s[1], s[2], s[3]])
        }
    }
}

/// `v / 255` for every byte (the same correctly rounded quotients, looked up).
fn u8_unorm() -> &'static [f32; 256] {
    static TABLE: std::sync::OnceLock<[f32; 256]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| std::array::from_fn(|v| v as f32 / 255.0))
}

/// Convert a raw channel to a float: f16/f32 as is, integers normalized (read mode
/// normalized-float, CUDA guide: unsigned `v / (2^n - 1)`, signed `max(v / (2^(n-1) - 1), -1)`).
fn channel_float(ty: ChannelType, raw: u32) -> f32 {
    match ty {
        ChannelType::U8 => u8_unorm()[(raw & 0xff) as usize],
        ChannelType::S8 => (raw as i32 as f32 / 127.0).max(-1.0),
        ChannelType::U16 => raw as f32 / 65535.0,
        ChannelType::S16 => (raw as i32 as f32 / 32767.0).max(-1.0),
        ChannelType::F16 => half::f16::from_bits(raw as u16).to_f32(),
        ChannelType::F32 => f32::from_bits(raw),
        // Rejected at texture creation; read as plain integers.
        ChannelType::U32 => raw as f32,
        ChannelType::S32 => raw as i32 as f32,
    }
}

/// Decode a texel: missing channels 0, a missing alpha 1.
fn decode(format: ChannelFormat, float: bool, b: &[u8]) -> Texel {
    let n = format.channels as usize;
    if float {
        let mut v = [0.0, 0.0, 0.0, 1.0];
        for (c, x) in v.iter_mut().enumerate().take(n) {
            *x = channel_float(format.ty, channel_raw(format.ty, b, c));
        }
        Texel::F(v)
    } else {
        let mut v = [0, 0, 0, 1];
        for (c, x) in v.iter_mut().enumerate().take(n) {
            *x = channel_raw(format.ty, b, c);
        }
        Texel::I(v)
    }
}

impl Texel {
    fn bits(self) -> [u32; 4] {
        match self {
            Texel::F(v) => v.map(f32::to_bits),
            Texel::I(v) => v,
        }
    }

    fn floats(self) -> [f32; 4] {
        match self {
            Texel::F(v) => v,
            Texel::I(v) => v.map(|x| x as f32),
        }
    }

    /// The channels as f32 values: integer channels converted by their signedness.
    fn to_f32(self, ty: ChannelType) -> [f32; 4] {
        match self {
            Texel::F(v) => v,
            Texel::I(v) => v.map(|x| int_channel_f32(ty, x)),
        }
    }
}

/// An integer channel's value (sign-extended for signed types) as f32.
fn int_channel_f32(ty: ChannelType, x: u32) -> f32 {
    match ty {
        ChannelType::S8 | ChannelType::S16 | ChannelType::S32 => x as i32 as f32,
        _ => x as f32,
    }
}

/// `.f16x2` results (PTX ISA §9.7.10.3): the four channels rounded to f16 (to nearest even),
/// packed two per 32-bit register with the first of each pair in the low half.
fn pack_f16x2(v: [f32; 4]) -> [u32; 4] {
    let h = round_f16(v);
    [h[0] | h[1] << 16, h[2] | h[3] << 16, 0, 0]
}

/// `.v4.f16` results (PTX ISA §9.7.10.3 `.dtype = .f16`): each channel rounded to f16 (to
/// nearest even; overflow gives infinity, NaN stays NaN), the f16 bits in the low half.
fn round_f16(v: [f32; 4]) -> [u32; 4] {
    v.map(|x| half::f16::from_f32(x).to_bits() as u32)
}

/// Apply address mode `m` to texel index `i` of a dimension of `n` texels: `Some(index)`, or
/// `None` for the border.
#[inline]
pub fn address(m: AddressMode, normalized: bool, i: i64, n: u32) -> Option<u32> {
    let n = n as i64;
    let m = match m {
        AddressMode::Wrap | AddressMode::Mirror if !normalized => AddressMode::Clamp,
        m => m,
    };
    Some(match m {
        AddressMode::Clamp => i.clamp(0, n - 1) as u32,
        AddressMode::Border => {
            if i < 0 || i >= n {
                return None;
            }
            i as u32
        }
        AddressMode::Wrap => i.rem_euclid(n) as u32,
        AddressMode::Mirror => {
            let k = i.rem_euclid(2 * n);
            (if k < n { k } else { 2 * n - 1 - k }) as u32
        }
    })
}

/// `x.trunc()` for `|x| < 2^23` (sign kept, so -0.3 gives -0): one conversion each way,
/// exact in that range.
#[inline]
fn trunc_small(x: f32) -> f32 {
    (x as i32 as f32).copysign(x)
}

/// Whether `x` is its own floor and round: ±0, ±∞, |x| ≥ 2^23 (integral already) and NaN.
#[inline]
fn own_integer(x: f32) -> bool {
    x.is_nan() || x.abs() >= 8_388_608.0 || x == 0.0
}

/// `x.floor()`, the same bits for every input but NaN (zeros and infinities included; a NaN
/// gives a NaN), computed inline: without SSE4.1 `floor` is a call into libm, once or twice
/// per texel coordinate.
#[inline]
fn floor_f32(x: f32) -> f32 {
    if own_integer(x) {
        return x;
    }
    let t = trunc_small(x);
    if t > x {
        t - 1.0
    } else {
        t
    }
}

/// `x.round()` (half away from zero), the same bits for every input but NaN (a NaN gives a
/// NaN), computed inline (see [`floor_f32`]).
#[inline]
fn round_f32(x: f32) -> f32 {
    if own_integer(x) {
        return x;
    }
    let t = trunc_small(x);
    // Exact: the fraction of an f32 is an f32.
    let r = x - t;
    if r >= 0.5 {
        t + 1.0
    } else if r <= -0.5 {
        t - 1.0
    } else {
        t
    }
}

/// Linear filtering's weighted sum over the `2^dims` corners (PTX ISA §9.7.10.3 via the
/// CUDA filtering rules): corner `c` takes index `ix[d][(c >> d) & 1]` in dimension `d`
/// (`None`: the border texel) with weight `∏ (w[d] or 1 − w[d])`, multiplied in dimension
/// order and summed in corner order in f32. The one definition for the general path and the
/// fast path (`fast.rs`), which must give the same bits.
#[inline(always)]
fn blend_corners<E>(
    dims: usize,
    ix: &[[Option<u32>; 2]; 3],
    w: &[f32; 3],
    border: Texel,
    mut texel: impl FnMut([u32; 3]) -> Result<Texel, E>,
) -> Result<Texel, E> {
    let mut acc = [0f32; 4];
    for c in 0..1usize << dims {
        let mut p = [0u32; 3];
        let mut inside = true;
        let mut weight = 1f32;
        for d in 0..dims {
            let hi = (c >> d) & 1;
            match ix[d][hi] {
                Some(v) => p[d] = v,
                None => inside = false,
            }
            weight *= if hi == 1 { w[d] } else { 1.0 - w[d] };
        }
        let t = if inside { texel(p)? } else { border }.floats();
        for k in 0..4 {
            acc[k] += weight * t[k];
        }
    }
    Ok(Texel::F(acc))
}

/// A float texel coordinate to an integer index (`floor`, saturated; NaN → 0).
#[inline]
fn floor_index(u: f32) -> i64 {
    let f = floor_f32(u);
    if f.is_nan() {
        0
    } else {
        f.clamp(-(1i64 << 40) as f32, (1i64 << 40) as f32) as i64
    }
}

/// `α = frac(ub)` in 9-bit fixed point with 8 fractional bits: (i, α) with α in 1/256 steps.
#[inline(always)]
pub fn linear_weight(ub: f32) -> (i64, f32) {
    // Texel coordinates (0 < |ub| < 2^23): the same values as `linear_weight_any`, in
    // integers. floor(ub) = i exactly (a zero floor is +0 for ub in (0, 1), as `i as f32`);
    // frac = ub - i is exact and in [0, 1], so frac * 256 is in [0, 256] and rounds half up.
    if ub.abs() < 8_388_608.0 && ub != 0.0 {
        let t = ub as i32;
        let i = t - ((t as f32) > ub) as i32;
        let scaled = (ub - i as f32) * 256.0;
        let r = scaled as i32;
        let q = (r + (scaled - r as f32 >= 0.5) as i32) as f32 / 256.0;
        return (i as i64, q);
    }
    linear_weight_any(ub)
}

/// [`linear_weight`] for every input (NaN and infinities: weight 0, index 0 or saturated).
#[cold]
#[inline(never)]
fn linear_weight_any(ub: f32) -> (i64, f32) {
    let i = floor_index(ub);
    let frac = if ub.is_finite() {
        ub - floor_f32(ub)
    } else {
        0.0
    };
    let q = round_f32(frac * 256.0) / 256.0;
    (i, q)
}

/// One sampling request, coordinates already scaled to texels of level 0 or normalized.
struct Sample<'a> {
    t: &'a TextureObject,
    s: &'a TextureDesc,
    float: bool,
    /// Memory layer (array index, cube face).
    layer: u32,
    /// Dimensions used (1, 2 or 3).
    dims: usize,
    /// Texel offsets added to the coordinates in texels of the level read (`tex`/`tld4`
    /// operand `e`).
    offset: [i32; 3],
    /// The depth-compare value (operand `f`).
    compare: Option<f32>,
    /// The sample read from each texel of a multisample resource.
    sample: u32,
}

impl Sample<'_> {
    /// The texel at integer indices of level `lvl`, after addressing; border texels give the
    /// border colour.
    fn texel(&self, env: &CtaEnv, lvl: usize, idx: [i64; 3]) -> Result<Texel, TexFault> {
        let level = &self.t.res.levels[lvl];
        let mut p = [0u32; 3];
        for d in 0..3 {
            if d >= self.dims {
                continue;
            }
            match address(
                self.s.address[d],
                self.s.normalized_coords,
                idx[d],
                level.dims[d],
            ) {
                Some(v) => p[d] = v,
                None => return Ok(self.border()),
            }
        }
        self.texel_at(env, lvl, p)
    }

    /// The texel at in-range indices `p` of level `lvl`.
    fn texel_at(&self, env: &CtaEnv, lvl: usize, p: [u32; 3]) -> Result<Texel, TexFault> {
        let f = self.t.res.desc.format;
        let addr = self.t.res.texel_addr(lvl, self.layer, p[0], p[1], p[2])
            + self.sample as u64 * f.texel_bytes() as u64;
        let b = read_mem(env, addr, f.texel_bytes())?;
        Ok(self.compared(decode(f, self.float, &b)))
    }

    fn border(&self) -> Texel {
        let c = self.s.border_color;
        self.compared(if self.float {
            Texel::F(c)
        } else {
            Texel::I(c.map(|x| x as i32 as u32))
        })
    }

    /// Depth compare (PTX ISA §9.7.10.3 operand `f`), applied to each texel before
    /// filtering: channel 0 becomes 1 where `f <= texel` (OpenGL's default `LEQUAL`; CUDA
    /// has no compare-function state), else 0; a NaN on either side fails.
    fn compared(&self, t: Texel) -> Texel {
        let Some(f) = self.compare else { return t };
        match t {
            Texel::F(mut v) => {
                v[0] = if f <= v[0] { 1.0 } else { 0.0 };
                Texel::F(v)
            }
            Texel::I(mut v) => {
                v[0] = (f <= int_channel_f32(self.t.res.desc.format.ty, v[0])) as u32;
                Texel::I(v)
            }
        }
    }

    /// Filter at level `lvl`: `u` are coordinates (normalized or texel units).
    fn filtered(&self, env: &CtaEnv, lvl: usize, u: [f32; 3]) -> Result<Texel, TexFault> {
        let level = &self.t.res.levels[lvl];
        let mut x = [0f32; 3];
        for d in 0..self.dims {
            x[d] = if self.s.normalized_coords {
                u[d] * level.dims[d] as f32
            } else {
                u[d]
            };
            if self.offset[d] != 0 {
                x[d] += self.offset[d] as f32;
            }
        }
        if self.s.filter == FilterMode::Point {
            let idx = [floor_index(x[0]), floor_index(x[1]), floor_index(x[2])];
            return self.texel(env, lvl, idx);
        }
        let mut base = [0i64; 3];
        let mut w = [0f32; 3];
        for d in 0..self.dims {
            let (i, a) = linear_weight(x[d] - 0.5);
            base[d] = i;
            w[d] = a;
        }
        // The two addressed indices of each dimension (None: border).
        let mut ix = [[Some(0u32); 2]; 3];
        for d in 0..self.dims {
            for (hi, slot) in ix[d].iter_mut().enumerate() {
                *slot = address(
                    self.s.address[d],
                    self.s.normalized_coords,
                    base[d] + hi as i64,
                    level.dims[d],
                );
            }
        }
        blend_corners(self.dims, &ix, &w, self.border(), |p| {
            self.texel_at(env, lvl, p)
        })
    }

    /// Sample with mipmapping at level of detail `lod` (already biased and clamped).
    fn at_lod(&self, env: &CtaEnv, lod: f32, u: [f32; 3]) -> Result<Texel, TexFault> {
        let last = self.t.res.levels.len() - 1;
        if last == 0 {
            return self.filtered(env, 0, u);
        }
        let lod = if lod.is_nan() { 0.0 } else { lod.max(0.0) };
        if self.s.mip_filter == FilterMode::Point {
            let l = (lod + 0.5).floor().min(last as f32) as usize;
            return self.filtered(env, l, u);
        }
        let (l0, a) = linear_weight(lod);
        let l0 = (l0.max(0) as usize).min(last);
        let l1 = (l0 + 1).min(last);
        let t0 = self.filtered(env, l0, u)?.floats();
        if a == 0.0 || l1 == l0 {
            return Ok(Texel::F(t0));
        }
        let t1 = self.filtered(env, l1, u)?.floats();
        let mut r = [0f32; 4];
        for k in 0..4 {
            r[k] = (1.0 - a) * t0[k] + a * t1[k];
        }
        Ok(Texel::F(r))
    }
}

/// Cube-map face selection (CUDA guide, "Cubemap Textures"): (face, s, t) with normalized
/// face coordinates.
pub fn cube_face(x: f32, y: f32, z: f32) -> (u32, f32, f32) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, ma, sc, tc) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, ax, -z, -y)
        } else {
            (1, ax, z, -y)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, ay, x, z)
        } else {
            (3, ay, x, -z)
        }
    } else if z >= 0.0 {
        (4, az, x, -y)
    } else {
        (5, az, -x, -y)
    };
    if ma == 0.0 || !ma.is_finite() {
        return (face, 0.5, 0.5);
    }
    (face, (sc / ma + 1.0) * 0.5, (tc / ma + 1.0) * 0.5)
}

/// How a fetch picks its level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LodInput {
    Base,
    Level(f32),
    /// Gradients dPdx, dPdy in the texture's coordinates.
    Grad([f32; 3], [f32; 3]),
}

/// A `tex` fetch: `coords` are the geometry's coordinates, `layer` the array index.
pub struct TexRequest {
    pub geom: crate::ir::TexGeom,
    pub layer: i32,
    pub coords: [f32; 3],
    /// Integer coordinates (`tex.*.s32`): texel indices, no filtering.
    pub int_coords: Option<[i32; 3]>,
    pub lod: LodInput,
    /// Texel offsets (operand `e`; 0 when absent).
    pub offset: [i32; 3],
    /// Depth-compare value (operand `f`).
    pub compare: Option<f32>,
    /// Sample index of the multisample geometries.
    pub sample: i32,
    /// The destination type: what [`fetch`] makes of the four channels.
    pub results: TexResults,
}

/// The destination type of a `tex` (PTX ISA §9.7.10.3 `.dtype`, `.f16x2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexResults {
    /// `.u32`, `.s32`, `.f32`: each channel's 32 bits (floats for float and normalized-float
    /// reads, integers otherwise).
    Words,
    /// `.f16`: each channel as f32 (integer channels converted by their signedness), rounded
    /// to f16, nearest even; the f16 bits are the low 16 bits of each result.
    F16,
    /// `.f16x2`: the `.f16` values packed (r, g) and (b, a), low half first, in the first two
    /// results.
    F16x2,
}

/// Whether the texture returns floats to `tex`.
fn returns_float(t: &TextureObject, s: &TextureDesc) -> bool {
    t.res.desc.format.ty.is_float() || s.read_mode == ReadMode::NormalizedFloat
}

/// Perform a `tex` fetch (PTX ISA §9.7.10.3) on texture handle `h` (with sampler handle `smp`
/// in independent mode): the four result registers' bits.
pub fn fetch(
    table: &TextureTable,
    env: &CtaEnv,
    h: u64,
    smp: Option<u64>,
    req: &TexRequest,
) -> Result<[u32; 4], TexFault> {
    let t = table.texture(h).ok_or(TexFault::bad_handle(h))?;
    let s = match smp {
        Some(sh) => table.sampler(sh).ok_or(TexFault::bad_handle(sh))?,
        None => &t.tex,
    };
    let texel = fetch_texel(t, s, env, req)?;
    Ok(result_bits(texel, t.res.desc.format.ty, req.results))
}

/// The result registers' bits of a fetched texel of channel type `ty`.
#[inline]
fn result_bits(texel: Texel, ty: ChannelType, results: TexResults) -> [u32; 4] {
    match results {
        TexResults::Words => texel.bits(),
        TexResults::F16 => round_f16(texel.to_f32(ty)),
        TexResults::F16x2 => pack_f16x2(texel.to_f32(ty)),
    }
}

/// The texel (filtered) a `tex` fetch gives, before any f16 rounding.
fn fetch_texel(
    t: &TextureObject,
    s: &TextureDesc,
    env: &CtaEnv,
    req: &TexRequest,
) -> Result<Texel, TexFault> {
    let res = &t.res;
    let float = returns_float(t, s);
    let f = res.desc.format;
    let sample = Sample {
        t,
        s,
        float,
        layer: 0,
        dims: 1,
        offset: req.offset,
        compare: req.compare,
        sample: 0,
    };
    let zero = if float {
        Texel::F([0.0; 4])
    } else {
        Texel::I([0; 4])
    };
    if res.desc.kind == ResourceKind::Linear {
        // tex1Dfetch: integer index (a float coordinate is truncated), out of range → 0.
        let i = match req.int_coords {
            Some(c) => c[0] as i64,
            None => floor_index(req.coords[0]),
        } + req.offset[0] as i64;
        if i < 0 || i >= res.desc.width as i64 {
            return Ok(sample.compared(zero));
        }
        let b = read_mem(env, res.texel_addr(0, 0, i as u32, 0, 0), f.texel_bytes())?;
        return Ok(sample.compared(decode(f, float, &b)));
    }
    // Multisample reads: a sample outside the texel's reads 0 in every channel.
    let mut sample_idx = 0;
    if req.geom.multisample() {
        let n = res.desc.samples.max(1) as i64;
        if req.sample < 0 || req.sample as i64 >= n {
            return Ok(zero);
        }
        sample_idx = req.sample as u32;
    }
    let (dims, cube) = match res.desc.kind {
        ResourceKind::D1 | ResourceKind::D1Layered | ResourceKind::Linear => (1, false),
        ResourceKind::D2 | ResourceKind::D2Layered => (2, false),
        ResourceKind::D3 => (3, false),
        ResourceKind::Cube | ResourceKind::CubeLayered => (2, true),
    };
    let layers = res.desc.layers as i64;
    let array = req.layer.clamp(0, (layers - 1) as i32) as u32;
    let mut u = req.coords;
    let mut layer = if res.desc.kind.layered() { array } else { 0 };
    let mut samp = *s;
    if cube {
        let (face, fs, ft) = cube_face(u[0], u[1], u[2]);
        u = [fs, ft, 0.0];
        layer = layer * 6 + face;
        // The face coordinates are normalized; the sampler's address modes apply per face.
        samp.normalized_coords = true;
    }
    let sample = Sample {
        s: &samp,
        layer,
        dims,
        sample: sample_idx,
        ..sample
    };
    if let Some(c) = req.int_coords {
        let o = req.offset;
        let idx = [
            c[0] as i64 + o[0] as i64,
            c[1] as i64 + o[1] as i64,
            c[2] as i64 + o[2] as i64,
        ];
        let mut point = samp;
        point.normalized_coords = false;
        let p = Sample {
            s: &point,
            ..sample
        };
        return p.texel(env, 0, idx);
    }
    let lod = match req.lod {
        LodInput::Base => 0.0,
        LodInput::Level(l) => l,
        LodInput::Grad(dx, dy) => {
            let d0 = res.desc.width as f32;
            let sizes = [d0, res.desc.height as f32, res.desc.depth as f32];
            let scale = |g: [f32; 3]| {
                let mut s2 = 0f32;
                for d in 0..dims {
                    let v = if samp.normalized_coords {
                        g[d] * sizes[d]
                    } else {
                        g[d]
                    };
                    s2 += v * v;
                }
                s2.sqrt()
            };
            let rho = scale(dx).max(scale(dy));
            if rho > 0.0 {
                rho.log2()
            } else {
                f32::NEG_INFINITY
            }
        }
    };
    // Bias, then clamp to [min_lod, max_lod] (comparisons, so NaN sampler state cannot panic).
    let mut lod = lod + samp.mip_lod_bias;
    if lod > samp.max_lod {
        lod = samp.max_lod;
    }
    if lod < samp.min_lod {
        lod = samp.min_lod;
    }
    sample.at_lod(env, lod, u)
}

/// A `tld4` fetch (PTX ISA §9.7.10.4): channel, array index, coordinates, texel offsets and
/// depth-compare value.
pub struct GatherRequest {
    /// 0-3: r g b a.
    pub comp: u8,
    pub layer: i32,
    /// x, y (`.2d`, `.a2d`), or the direction x, y, z (`.cube`, `.acube`).
    pub coords: [f32; 3],
    pub offset: [i32; 2],
    pub compare: Option<f32>,
}

/// `tld4.comp.geom` (PTX ISA §9.7.10.4): channel `comp` of the bilinear footprint at (x, y)
/// (plus the texel offsets), counter-clockwise from the lower left: (i, j+1), (i+1, j+1),
/// (i+1, j), (i, j); with a depth-compare value, each texel is compared first.
///
/// Cube maps (`.cube`, `.acube`): the direction selects the face and its normalized (s, t)
/// exactly as `tex.cube` does ([`cube_face`]); the footprint is gathered on that face in the
/// same order, and indices that leave the face follow the sampler's address modes on that
/// face (s: `address[0]`, t: `address[1]`; border texels give the border colour), as the
/// cube-map filter of [`fetch`] does (the ISA does not say; CUDA's non-seamless cube maps,
/// CUDA C++ Programming Guide "Cubemap Textures" and `cudaTextureDesc::seamlessCubemap`; no
/// texels are taken from the neighbouring face). Like `tex`, the resource decides: a cube
/// resource is gathered as a cube map whatever the geometry.
pub fn gather(
    table: &TextureTable,
    env: &CtaEnv,
    h: u64,
    smp: Option<u64>,
    req: &GatherRequest,
) -> Result<[u32; 4], TexFault> {
    let GatherRequest {
        comp,
        layer,
        coords,
        offset,
        compare,
    } = *req;
    let t = table.texture(h).ok_or(TexFault::bad_handle(h))?;
    let s = match smp {
        Some(sh) => table.sampler(sh).ok_or(TexFault::bad_handle(sh))?,
        None => &t.tex,
    };
    let float = returns_float(t, s);
    let res = &t.res;
    let array = if res.desc.kind.layered() {
        layer.clamp(0, res.desc.layers as i32 - 1) as u32
    } else {
        0
    };
    let mut samp = *s;
    let (x, y, layer) = if res.desc.kind.cube() {
        let (face, fs, ft) = cube_face(coords[0], coords[1], coords[2]);
        samp.normalized_coords = true;
        (fs, ft, array * 6 + face)
    } else {
        (coords[0], coords[1], array)
    };
    let sample = Sample {
        t,
        s: &samp,
        float,
        layer,
        dims: 2,
        offset: [offset[0], offset[1], 0],
        compare,
        sample: 0,
    };
    let level = &res.levels[0];
    let (mut ux, mut uy) = (x, y);
    if samp.normalized_coords {
        ux *= level.dims[0] as f32;
        uy *= level.dims[1] as f32;
    }
    if offset[0] != 0 {
        ux += offset[0] as f32;
    }
    if offset[1] != 0 {
        uy += offset[1] as f32;
    }
    let (i, _) = linear_weight(ux - 0.5);
    let (j, _) = linear_weight(uy - 0.5);
    let c = (comp as usize).min(3);
    let order = [(i, j + 1), (i + 1, j + 1), (i + 1, j), (i, j)];
    let mut r = [0u32; 4];
    for (k, &(a, b)) in order.iter().enumerate() {
        r[k] = sample.texel(env, 0, [a, b, 0])?.bits()[c];
    }
    Ok(r)
}

/// `txq` (PTX ISA §9.7.10.5) on a texture or sampler handle; `level` for `txq.level`.
pub fn query(
    table: &TextureTable,
    h: u64,
    attr: TexAttr,
    level: Option<i32>,
) -> Result<u32, TexFault> {
    let obj = table.get(h).ok_or(TexFault::bad_handle(h))?;
    let s = table.sampler(h);
    let sampler_attr = |s: &TextureDesc| -> u32 {
        match attr {
            TexAttr::FilterMode => (s.filter == FilterMode::Linear) as u32,
            TexAttr::AddrMode0 => s.address[0].code(),
            TexAttr::AddrMode1 => s.address[1].code(),
            TexAttr::AddrMode2 => s.address[2].code(),
            TexAttr::ForceUnnormalizedCoords => !s.normalized_coords as u32,
            TexAttr::NormalizedCoords => s.normalized_coords as u32,
            _ => 0,
        }
    };
    match obj {
        Object::Sampler(s) => Ok(sampler_attr(s)),
        Object::Texture(t) => match attr {
            TexAttr::FilterMode
            | TexAttr::AddrMode0
            | TexAttr::AddrMode1
            | TexAttr::AddrMode2
            | TexAttr::ForceUnnormalizedCoords
            | TexAttr::NormalizedCoords => Ok(s.map_or(0, sampler_attr)),
            TexAttr::ChannelDataType => Ok(t
                .res
                .desc
                .format
                .ty
                .cl_code(t.tex.read_mode == ReadMode::NormalizedFloat)),
            _ => Ok(resource_attr(&t.res, attr, level)),
        },
        Object::Surface(r) => Ok(resource_attr(r, attr, level)),
    }
}

/// Size and format attributes of a resource (`txq`, `suq`).
fn resource_attr(r: &Resource, attr: TexAttr, level: Option<i32>) -> u32 {
    let d = &r.desc;
    let lvl = level.map_or(0, |l| l.clamp(0, d.mip_levels as i32 - 1) as usize);
    let dims = r.levels.get(lvl).map_or([0; 3], |l| l.dims);
    match attr {
        TexAttr::Width => dims[0],
        TexAttr::Height => dims[1],
        TexAttr::Depth => dims[2],
        TexAttr::ChannelDataType => d.format.ty.cl_code(false),
        // CL_R, CL_RG, CL_RGBA.
        TexAttr::ChannelOrder => match d.format.channels {
            1 => 0x10B0,
            2 => 0x10B2,
            _ => 0x10B5,
        },
        TexAttr::ArraySize => {
            if d.kind.layered() {
                d.layers
            } else {
                0
            }
        }
        TexAttr::NumMipmapLevels => d.mip_levels,
        TexAttr::NumSamples => d.samples,
        // Surfaces are pitch-linear in memory (`suq.memory_layout`: 1 = linear).
        TexAttr::MemoryLayout => 1,
        TexAttr::NormalizedCoords
        | TexAttr::ForceUnnormalizedCoords
        | TexAttr::FilterMode
        | TexAttr::AddrMode0
        | TexAttr::AddrMode1
        | TexAttr::AddrMode2 => 0,
    }
}

/// `istypep` (PTX ISA §9.7.10.6): whether `h` is a live handle of `kind`.
pub fn is_type(table: &TextureTable, h: u64, kind: crate::ir::HandleKind) -> bool {
    use crate::ir::HandleKind;
    matches!(
        (table.get(h), kind),
        (Some(Object::Texture(_)), HandleKind::Texture)
            | (Some(Object::Sampler(_)), HandleKind::Sampler)
            | (Some(Object::Surface(_)), HandleKind::Surface)
    )
}

// ---------------------------------------------------------------------------------------------
// Surfaces.

/// A resolved surface element: its device address, or none (`.zero` out of range).
fn surface_addr(
    r: &Resource,
    clamp: crate::ir::SurfClamp,
    formatted: bool,
    size: u32,
    layer: i32,
    c: [i32; 3],
    dims: usize,
) -> Result<Option<u64>, TexFault> {
    use crate::ir::SurfClamp;
    let d = &r.desc;
    let tb = d.format.texel_bytes();
    let lvl = &r.levels[0];
    let mut x = c[0] as i64;
    if formatted {
        x *= tb as i64;
    }
    let row_bytes = lvl.dims[0] as i64 * tb as i64;
    let fault = |addr: u64| TexFault {
        kind: FaultKind::SurfaceBounds,
        space: Space::Global,
        addr,
        size,
    };
    // Misaligned byte coordinates are an error on the hardware too.
    if !formatted && x % size as i64 != 0 {
        return Err(TexFault {
            kind: FaultKind::Misaligned,
            space: Space::Global,
            addr: x as u64,
            size,
        });
    }
    let mut idx = [x, c[1] as i64, c[2] as i64];
    let limits = [
        row_bytes - size as i64,
        lvl.dims[1] as i64 - 1,
        lvl.dims[2] as i64 - 1,
    ];
    let mut lay = layer as i64;
    let nlay = if d.kind.layered() { d.layers as i64 } else { 1 };
    let mut out = lay < 0 || lay >= nlay;
    for k in 0..dims {
        if idx[k] < 0 || idx[k] > limits[k] {
            out = true;
        }
    }
    if out {
        match clamp {
            SurfClamp::Trap => return Err(fault(x as u64)),
            SurfClamp::Zero => return Ok(None),
            SurfClamp::Clamp => {
                for k in 0..dims {
                    idx[k] = idx[k].clamp(0, limits[k].max(0));
                }
                idx[0] -= idx[0] % size as i64;
                lay = lay.clamp(0, nlay - 1);
            }
        }
    }
    let mut p = [0u64; 3];
    for k in 0..dims {
        p[k] = idx[k] as u64;
    }
    Ok(Some(
        lvl.base + lay as u64 * lvl.layer + p[2] * lvl.slice + p[1] * lvl.row + p[0],
    ))
}

/// A surface access: handle, array index and coordinates.
pub struct SurfRequest {
    pub geom: crate::ir::TexGeom,
    pub clamp: crate::ir::SurfClamp,
    pub formatted: bool,
    pub layer: i32,
    pub coords: [i32; 3],
}

/// `suld.b` (PTX ISA §9.7.11.1): `n` elements of `elem` bytes at the coordinates; returns the
/// raw bits zero-extended. `suld.p`: one texel's channels as 32-bit values (f32 for float
/// formats, sign- or zero-extended integers otherwise).
pub fn surf_load(
    table: &TextureTable,
    env: &CtaEnv,
    h: u64,
    req: &SurfRequest,
    elem: u32,
    n: u32,
) -> Result<[u64; 4], TexFault> {
    let r = table.surface(h).ok_or(TexFault::bad_handle(h))?;
    let dims = req.geom.dims() as usize;
    let f = r.desc.format;
    let size = if req.formatted {
        f.texel_bytes()
    } else {
        elem * n
    };
    let Some(addr) = surface_addr(
        r,
        req.clamp,
        req.formatted,
        size,
        req.layer,
        req.coords,
        dims,
    )?
    else {
        return Ok([0; 4]);
    };
    let b = read_mem(env, addr, size)?;
    let mut out = [0u64; 4];
    if req.formatted {
        let v = decode(f, f.ty.is_float(), &b).bits();
        for k in 0..(n as usize).min(4) {
            out[k] = v[k] as u64;
        }
    } else {
        let e = elem as usize;
        for (k, o) in out.iter_mut().enumerate().take(n as usize) {
            let mut w = [0u8; 8];
            w[..e].copy_from_slice(&b[k * e..k * e + e]);
            *o = u64::from_le_bytes(w);
        }
    }
    Ok(out)
}

/// `sust.b`/`sust.p` (PTX ISA §9.7.11.2): store `vals` (raw element bits for `.b`; for `.p`
/// one texel's channels as 32-bit values, see [`surf_load`]).
pub fn surf_store(
    table: &TextureTable,
    env: &CtaEnv,
    h: u64,
    req: &SurfRequest,
    elem: u32,
    vals: &[u64],
) -> Result<(), TexFault> {
    let r = table.surface(h).ok_or(TexFault::bad_handle(h))?;
    let dims = req.geom.dims() as usize;
    let f = r.desc.format;
    let n = vals.len() as u32;
    let size = if req.formatted {
        f.texel_bytes()
    } else {
        elem * n
    };
    let Some(addr) = surface_addr(
        r,
        req.clamp,
        req.formatted,
        size,
        req.layer,
        req.coords,
        dims,
    )?
    else {
        return Ok(());
    };
    let mut b = [0u8; 32];
    if req.formatted {
        let cb = f.ty.bytes() as usize;
        for c in 0..f.channels as usize {
            let v = vals.get(c).copied().unwrap_or(0);
            let raw = encode_channel(f.ty, v);
            b[c * cb..c * cb + cb].copy_from_slice(&raw.to_le_bytes()[..cb]);
        }
    } else {
        let e = elem as usize;
        for (k, v) in vals.iter().enumerate() {
            b[k * e..k * e + e].copy_from_slice(&v.to_le_bytes()[..e]);
        }
    }
    write_mem(env, addr, &b[..size as usize])
}

/// A `.p` store's channel value in the surface's channel type: 32-bit f32 bits for float
/// formats (converted to f16 for f16 channels), integers truncated to the channel width.
fn encode_channel(ty: ChannelType, v: u64) -> u32 {
    match ty {
        ChannelType::F16 => half::f16::from_f32(f32::from_bits(v as u32)).to_bits() as u32,
        _ => v as u32,
    }
}

/// `sured.b`/`sured.p` (PTX ISA §9.7.11.3): an atomic read-modify-write of one element.
pub fn surf_reduce(
    table: &TextureTable,
    env: &CtaEnv,
    h: u64,
    req: &SurfRequest,
    op: AtomOp,
    ty: crate::ir::Type,
    v: u64,
) -> Result<(), TexFault> {
    let r = table.surface(h).ok_or(TexFault::bad_handle(h))?;
    // `sured.p` (PTX ISA §9.7.11.3): `.b32`/`.b64` data are signed on a surface of signed
    // integers (SINT), unsigned otherwise.
    let op = match (req.formatted, op) {
        (true, AtomOp::Min(_) | AtomOp::Max(_)) => {
            let sign = match r.desc.format.ty {
                ChannelType::S8 | ChannelType::S16 | ChannelType::S32 => Sign::Signed,
                _ => Sign::Unsigned,
            };
            match op {
                AtomOp::Min(_) => AtomOp::Min(sign),
                _ => AtomOp::Max(sign),
            }
        }
        _ => op,
    };
    let dims = req.geom.dims() as usize;
    // `sured.p` on a format whose channels are narrower than 32 bits reduces into the sample's
    // first (R) channel only: the data converted to the channel as `sust.p` converts it (its
    // low bits), combined at the channel's width (see `reduce_narrow`).
    let channel = r.desc.format.ty.bytes();
    let narrow = req.formatted && channel < 4;
    let size = if narrow { channel } else { ty.bytes() };
    let Some(addr) = surface_addr(
        r,
        req.clamp,
        req.formatted,
        size,
        req.layer,
        req.coords,
        dims,
    )?
    else {
        return Ok(());
    };
    let p = env::translate(env, Space::Global, addr, size, size, 0).map_err(|(kind, space)| {
        TexFault {
            kind,
            space,
            addr,
            size,
        }
    })?;
    if narrow {
        // SAFETY: translate checked [p, p+size) inside the arena, aligned to size.
        unsafe { reduce_narrow(p, op, channel, v) };
    } else {
        // SAFETY: translate checked [p, p+size) inside the arena and aligned to size (the
        // arena base is page-aligned). Surfaces live in global memory (`global = true`).
        unsafe { super::semantics::atomic_rmw(p, op, ty, v, true) };
    }
    // initcheck: a reduction writes its texel (its read of the old value is not checked).
    env::init_access(env, Space::Global, addr, size, 0, 0, InitAccess::Write);
    Ok(())
}

/// `sured.p`'s atomic reduction into a channel of `bytes` (1 or 2) bytes at `p`: `v`'s low
/// bits combined with the channel at its width (`.add` wraps, `.min`/`.max` compare as the
/// channel's signedness says, which `op` carries), touching no other byte.
///
/// # Safety
/// `p` must be valid for reads and writes of `bytes` bytes and aligned to them.
unsafe fn reduce_narrow(p: *mut u8, op: AtomOp, bytes: u32, v: u64) {
    use std::sync::atomic::{AtomicU16, AtomicU8, Ordering::SeqCst};
    let bits = 8 * bytes;
    let m = (1u64 << bits) - 1;
    let sx = |x: u64| ((x << (64 - bits)) as i64) >> (64 - bits);
    let apply = |old: u64| -> u64 {
        let (old, b) = (old & m, v & m);
        let r = match op {
            AtomOp::Add => old.wrapping_add(b),
            AtomOp::And => old & b,
            AtomOp::Or => old | b,
            AtomOp::Min(Sign::Unsigned) => old.min(b),
            AtomOp::Max(Sign::Unsigned) => old.max(b),
            AtomOp::Min(Sign::Signed) => sx(old).min(sx(b)) as u64,
            AtomOp::Max(Sign::Signed) => sx(old).max(sx(b)) as u64,
            // The decoder gives `sured` only the five operations above (PTX ISA §9.7.11.3).
            AtomOp::FAdd
            | AtomOp::Xor
            | AtomOp::Exch
            | AtomOp::Inc
            | AtomOp::Dec
            | AtomOp::HAdd { .. }
            | AtomOp::HMinMax { .. } => unreachable!("sured has no .{op:?}"),
        };
        r & m
    };
    if bytes == 1 {
        // SAFETY: the caller guarantees one valid byte at `p`.
        let a = unsafe { AtomicU8::from_ptr(p) };
        let _ = a.fetch_update(SeqCst, SeqCst, |old| Some(apply(old as u64) as u8));
    } else {
        // SAFETY: the caller guarantees two valid bytes at `p`, 2-byte aligned.
        let a = unsafe { AtomicU16::from_ptr(p as *mut u16) };
        let _ = a.fetch_update(SeqCst, SeqCst, |old| Some(apply(old as u64) as u16));
    }
}

pub mod fast;

#[cfg(test)]
#[path = "texture_tests.rs"]
mod tests;
