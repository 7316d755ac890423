//! Warp groups with a tensor map (`; tensormap dims=… box=… swizzle=… elem=…`): the map
//! describes the case's global image as a packed row-major tensor (dimension 0 innermost) and
//! is encoded per case by the host API's `cuTensorMapEncodeTiled` (the driver's argument
//! checks included), into 128 bytes after the case's images; an input of type `tmap` holds its
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
    /// Bytes of one element.
    pub elem_bytes: u64,
}

/// Parse the words after `tensormap `.
pub fn parse(spec: &str) -> Result<MapSpec, String> {
    let (mut dims, mut boxes, mut swizzle, mut elem) = (None, None, 0, None);
    for kv in spec.split_whitespace() {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("tensormap field '{kv}' needs KEY=VALUE"))?;
        let list = |v: &str| -> Result<Vec<u64>, String> {
            v.split(',')
                .map(|x| x.parse::<u64>().map_err(|_| format!("bad {k} '{v}'")))
                .collect()
        };
        match k {
            "dims" => dims = Some(list(v)?),
            "box" => boxes = Some(list(v)?.into_iter().map(|b| b as u32).collect::<Vec<_>>()),
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
                    "u8" => (0, 1),
                    "u16" => (1, 2),
                    "u32" => (2, 4),
                    "s32" => (3, 4),
                    "u64" => (4, 8),
                    "f16" => (6, 2),
                    "f32" => (7, 4),
                    _ => {
                        return Err(format!(
                            "element type '{v}' (u8, u16, u32, s32, u64, f16, f32)"
                        ))
                    }
                })
            }
            _ => return Err(format!("tensormap field '{k}' (dims, box, swizzle, elem)")),
        }
    }
    let (Some(dims), Some(boxes), Some((dtype, elem_bytes))) = (dims, boxes, elem) else {
        return Err("tensormap needs dims=, box= and elem=".into());
    };
    if dims.len() != boxes.len() || !(1..=5).contains(&dims.len()) {
        return Err("tensormap: dims and box need the same rank, 1 to 5".into());
    }
    Ok(MapSpec {
        dims,
        boxes,
        swizzle,
        dtype,
        elem_bytes,
    })
}

impl MapSpec {
    /// The bytes of the tensor (the global image must hold them).
    pub fn tensor_bytes(&self) -> u64 {
        self.dims.iter().product::<u64>() * self.elem_bytes
    }

    /// The 128 bytes of the map of a tensor at device address `base`.
    pub fn encode(&self, base: u64) -> Result<[u8; MAP_BYTES], String> {
        let rank = self.dims.len();
        // Packed rows: the stride of dimension d is the bytes of all the inner ones.
        let mut strides = vec![];
        let mut s = self.elem_bytes;
        for d in &self.dims[..rank - 1] {
            s *= d;
            strides.push(s);
        }
        let map = TensorMap::encode_tiled(
            self.dtype,
            rank as u32,
            base,
            &self.dims,
            &strides,
            &self.boxes,
            &vec![1; rank],
            0,
            self.swizzle,
            0,
            0,
        )
        .map_err(|e| format!("tensormap: {e:?}"))?;
        Ok(map.to_bytes())
    }
}
