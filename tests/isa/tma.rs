//! Warp groups with a tensor map (`; tensormap dims=… box=… swizzle=… elem=…`): the map
//! describes the case's global image as a packed row-major tensor (dimension 0 innermost) and
//! is encoded per case by the host API's `cuTensorMapEncodeTiled`, `cuTensorMapEncodeIm2col`
//! or `cuTensorMapEncodeIm2colWide` (`mode=`; the driver's argument checks included), into 128
//! bytes after the case's images; an input of type `tmap` holds its
//! address. The copies' expected bytes come from the table's generator, never from this code.

use ptxjit::runtime::tensormap::TensorMap;

/// The bytes a case's tensor map takes after its images.
pub const MAP_BYTES: usize = 128;

/// A `; tensormap` clause.
#[derive(Clone, Debug)]
pub struct MapSpec {
    /// The tensor's extent in each dimension, dimension 0 innermost.
    pub dims: Vec<u64>,
    /// The box (the tile a copy moves) in each dimension.
    pub boxes: Vec<u32>,
    /// `CUtensorMapSwizzle`: 0 none, 1 32B, 2 64B, 3 128B.
    pub swizzle: u32,
    /// `CUtensorMapDataType` of the elements.
    pub dtype: u32,
    /// Bits of one element in global memory (4 for the packed `b4x16`).
    pub elem_bits: u64,
    /// The map's mode (`mode=`, default tile).
    pub mode: Mode,
    /// Traversal (element) strides per dimension (`estride=`, default all 1).
    pub estrides: Vec<u32>,
    /// Im2col modes: the pixel-box lower corner of the spatial dimensions (`lower=`; W
    /// first; one value, W's, in the W-only modes).
    pub lower: Vec<i32>,
    /// Im2col modes: the pixel-box upper corner (`upper=`), as `lower`.
    pub upper: Vec<i32>,
    /// Im2col modes: channels per pixel (`channels=`).
    pub channels: u32,
    /// Im2col modes: pixels per column (`pixels=`; ignored in the W128 mode).
    pub pixels: u32,
}

/// How a `; tensormap` clause's map is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `cuTensorMapEncodeTiled` (`mode=tile`, the default).
    Tile,
    /// `cuTensorMapEncodeIm2col` (`mode=im2col`).
    Im2col,
    /// `cuTensorMapEncodeIm2colWide` in its W mode (`mode=w`).
    W,
    /// `cuTensorMapEncodeIm2colWide` in its W128 mode (`mode=w128`).
    W128,
}

/// Parse the words after `tensormap `.
pub fn parse(spec: &str) -> Result<MapSpec, String> {
    let (mut dims, mut boxes, mut swizzle, mut elem) = (None, None, 0, None);
    let (mut mode, mut estrides, mut lower, mut upper) = (Mode::Tile, None, vec![], vec![]);
    let (mut channels, mut pixels) = (0, 0);
    for kv in spec.split_whitespace() {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("tensormap field '{kv}' needs KEY=VALUE"))?;
        let list = |v: &str| -> Result<Vec<u64>, String> {
            v.split(',')
                .map(|x| x.parse::<u64>().map_err(|_| format!("bad {k} '{v}'")))
                .collect()
        };
        let signed = |v: &str| -> Result<Vec<i32>, String> {
            v.split(',')
                .map(|x| x.parse::<i32>().map_err(|_| format!("bad {k} '{v}'")))
                .collect()
        };
        let count = |v: &str| v.parse::<u32>().map_err(|_| format!("bad {k} '{v}'"));
        match k {
            "dims" => dims = Some(list(v)?),
            "box" => boxes = Some(list(v)?.into_iter().map(|b| b as u32).collect::<Vec<_>>()),
            "estride" => {
                estrides = Some(list(v)?.into_iter().map(|b| b as u32).collect::<Vec<_>>())
            }
            "mode" => {
                mode = match v {
                    "tile" => Mode::Tile,
                    "im2col" => Mode::Im2col,
                    "w" => Mode::W,
                    "w128" => Mode::W128,
                    _ => return Err(format!("mode '{v}' (tile, im2col, w or w128)")),
                }
            }
            "lower" => lower = signed(v)?,
            "upper" => upper = signed(v)?,
            "channels" => channels = count(v)?,
            "pixels" => pixels = count(v)?,
            "swizzle" => {
                swizzle = match v {
                    "none" | "0" => 0,
                    "32" => 1,
                    "64" => 2,
                    "128" => 3,
                    _ => return Err(format!("swizzle '{v}' (none, 32, 64 or 128)")),
                }
            }
            "elem" => {
                elem = Some(match v {
                    "u8" => (0, 8),
                    "u16" => (1, 16),
                    "u32" => (2, 32),
                    "s32" => (3, 32),
                    "u64" => (4, 64),
                    "s64" => (5, 64),
                    "f16" => (6, 16),
                    "f32" => (7, 32),
                    "f64" => (8, 64),
                    "bf16" => (9, 16),
                    "b4x16" => (13, 4),
                    _ => {
                        return Err(format!(
                            "element type '{v}' (u8, u16, u32, s32, u64, s64, f16, f32, f64, bf16, b4x16)"
                        ))
                    }
                })
            }
            _ => {
                return Err(format!(
                    "tensormap field '{k}' (dims, box, swizzle, elem, estride, mode, lower, upper, channels, pixels)"
                ))
            }
        }
    }
    let (Some(dims), Some((dtype, elem_bits))) = (dims, elem) else {
        return Err("tensormap needs dims= and elem=".into());
    };
    let boxes = match (mode, boxes) {
        (Mode::Tile, Some(b)) => b,
        (Mode::Tile, None) => return Err("a tile-mode tensormap needs box=".into()),
        (_, Some(_)) => return Err("an im2col tensormap has no box= (channels=, pixels=)".into()),
        (_, None) => vec![1; dims.len()],
    };
    if dims.len() != boxes.len() || !(1..=5).contains(&dims.len()) {
        return Err("tensormap: dims and box need the same rank, 1 to 5".into());
    }
    let estrides = estrides.unwrap_or_else(|| vec![1; dims.len()]);
    if estrides.len() != dims.len() {
        return Err("tensormap: estride needs one entry per dimension".into());
    }
    let corners = match mode {
        Mode::Tile => 0,
        Mode::Im2col => dims.len().saturating_sub(2),
        Mode::W | Mode::W128 => 1,
    };
    if lower.len() != corners || upper.len() != corners {
        return Err(format!(
            "tensormap: lower= and upper= need {corners} entries in this mode"
        ));
    }
    if mode != Mode::Tile && (channels == 0 || (pixels == 0 && mode != Mode::W128)) {
        return Err("an im2col tensormap needs channels= and pixels=".into());
    }
    Ok(MapSpec {
        dims,
        boxes,
        swizzle,
        dtype,
        elem_bits,
        mode,
        estrides,
        lower,
        upper,
        channels,
        pixels,
    })
}

impl MapSpec {
    /// The bytes of the tensor (the global image must hold them).
    pub fn tensor_bytes(&self) -> u64 {
        (self.dims.iter().product::<u64>() * self.elem_bits).div_ceil(8)
    }

    /// The 128 bytes of the map of a tensor at device address `base`.
    pub fn encode(&self, base: u64) -> Result<[u8; MAP_BYTES], String> {
        let rank = self.dims.len();
        // Packed rows: the stride of dimension d is the bytes of all the inner ones.
        let mut strides = vec![];
        let mut s = self.elem_bits;
        for d in &self.dims[..rank - 1] {
            s *= d;
            strides.push(s / 8);
        }
        let (dt, r, es) = (self.dtype, rank as u32, &self.estrides);
        let map = match self.mode {
            Mode::Tile => TensorMap::encode_tiled(
                dt,
                r,
                base,
                &self.dims,
                &strides,
                &self.boxes,
                es,
                0,
                self.swizzle,
                0,
                0,
            ),
            Mode::Im2col => TensorMap::encode_im2col(
                dt,
                r,
                base,
                &self.dims,
                &strides,
                &self.lower,
                &self.upper,
                self.channels,
                self.pixels,
                es,
                0,
                self.swizzle,
                0,
                0,
            ),
            Mode::W | Mode::W128 => TensorMap::encode_im2col_wide(
                dt,
                r,
                base,
                &self.dims,
                &strides,
                self.lower[0],
                self.upper[0],
                self.channels,
                self.pixels,
                es,
                0,
                u32::from(self.mode == Mode::W128),
                self.swizzle,
                0,
                0,
            ),
        }
        .map_err(|e| format!("tensormap: {e:?}"))?;
        Ok(map.to_bytes())
    }
}
