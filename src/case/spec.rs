//! The case file as typed data (`docs/case-format.md`). Deserialised with serde; closed tables
//! reject unknown keys so a typo is an error, not a silently ignored setting.

use super::dtype::{DType, Num};
use indexmap::IndexMap;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// One case: the launches to run in order, the buffers they share and what the buffers must
/// hold after the last launch. Made from a [`CaseFile`] (the TOML as written) by
/// [`CaseFile::into_spec`], or built in code (the ad-hoc CLI form, benches).
#[derive(Clone, Debug)]
pub struct CaseSpec {
    /// The case's PTX file, relative to the case file (in a pipeline without a top-level
    /// `ptx`: the first launch's): where `symbol` buffers and `[texrefs.*]` find their
    /// variables, and the file of every launch that names none.
    pub ptx: String,
    /// The launches, run in order on one context (at least one).
    pub launches: Vec<LaunchSpec>,
    /// Whether the case file used `[[launch]]` tables (a pipeline): keys are then named
    /// `launch[i].…` and runtime errors name the launch.
    pub pipeline: bool,
    /// Extension: the device heap's size in bytes for kernels that call `malloc`
    /// (`cudaDeviceSetLimit(cudaLimitMallocHeapSize, ...)`; default 8 MiB).
    pub heap_bytes: Option<u64>,
    /// Extension: the per-thread call stack of every launch in bytes, for recursion and calls
    /// through function pointers (`cudaDeviceSetLimit(cudaLimitStackSize, ...)`; default 16 KiB,
    /// at most 512 KiB with the kernel's local memory; [`LaunchOptions::stack_bytes`]).
    ///
    /// [`LaunchOptions::stack_bytes`]: crate::host::LaunchOptions::stack_bytes
    pub stack_bytes: Option<u64>,
    /// Extension: `cudaFuncAttributeMaxDynamicSharedMemorySize` of every launched kernel, in
    /// bytes (needed for more than 48 KiB of shared memory).
    pub max_dynamic_shared_bytes: Option<u32>,
    /// Extension: run every launch in lockstep order ([`LaunchOptions::lockstep`]), for
    /// warp-synchronous code without `__syncwarp` in a module that targets `sm_70` or later.
    ///
    /// [`LaunchOptions::lockstep`]: crate::host::LaunchOptions::lockstep
    pub lockstep: bool,
    /// Device buffers, in declaration order (the order they are allocated in).
    pub buffers: IndexMap<String, BufferSpec>,
    /// Expected buffer contents after the last launch, and how `ptxjit check` compares them.
    pub expect: IndexMap<String, ExpectSpec>,
    /// Extension: the run must fail with this error.
    pub expect_error: Option<ExpectError>,
    /// Texture objects (`{ texture = "NAME" }` arguments).
    pub textures: IndexMap<String, TextureSpec>,
    /// Surface objects (`{ surface = "NAME" }` arguments).
    pub surfaces: IndexMap<String, TextureSpec>,
    /// Module `.texref`/`.samplerref`/`.surfref` variables bound by name.
    pub texrefs: IndexMap<String, TextureSpec>,
    /// Extension: tensor maps over buffers (`{ tensor_map = "NAME" }` arguments).
    pub tensor_maps: IndexMap<String, TensorMapSpec>,
}

/// One kernel launch of a case.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchSpec {
    /// PTX file, relative to the case file (the case's `ptx` unless the launch names its own).
    pub ptx: String,
    /// Entry name.
    pub kernel: String,
    /// CTAs per dimension (1 to 3 numbers; missing ones are 1).
    pub grid: Dims,
    /// Threads per CTA (same rule).
    pub block: Dims,
    /// Dynamic shared memory in bytes.
    pub shared_bytes: u32,
    /// Kernel parameters in declaration order.
    pub args: Vec<Arg>,
    /// Extension: a cooperative launch (`cudaLaunchCooperativeKernel`; every CTA resident
    /// at once, grid-wide synchronisation allowed).
    pub cooperative: bool,
    /// Extension: the thread block cluster shape in CTAs (1 to 3 numbers, missing ones 1;
    /// `cuLaunchKernelEx`'s cluster dimension attribute); `None`: the kernel's
    /// `.reqnctapercluster`, else clusters of one CTA.
    pub cluster: Option<Dims>,
}

impl LaunchSpec {
    /// Threads the launch runs (grid × block).
    pub fn threads(&self) -> u64 {
        self.grid.count() * self.block.count()
    }
}

/// The launch keys of the single-launch form, which `[[launch]]` replaces.
const LAUNCH_KEYS: [&str; 7] = [
    "kernel",
    "grid",
    "block",
    "shared_bytes",
    "args",
    "cooperative",
    "cluster",
];

/// A case file as written: either the single-launch form (top-level `kernel`, `grid`, `block`,
/// `shared_bytes`, `args`) or `[[launch]]` tables, never both ([`CaseFile::into_spec`]).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    /// The case's PTX file (see [`CaseSpec::ptx`]).
    #[serde(default)]
    pub ptx: Option<String>,
    /// Single-launch form: the entry name.
    #[serde(default)]
    pub kernel: Option<String>,
    /// Single-launch form: CTAs per dimension.
    #[serde(default)]
    pub grid: Option<Dims>,
    /// Single-launch form: threads per CTA.
    #[serde(default)]
    pub block: Option<Dims>,
    /// Single-launch form: dynamic shared memory in bytes (default 0).
    #[serde(default)]
    pub shared_bytes: Option<u32>,
    /// Single-launch form: the kernel parameters (default none).
    #[serde(default)]
    pub args: Option<Vec<Arg>>,
    /// Single-launch form: a cooperative launch (default false).
    #[serde(default)]
    pub cooperative: Option<bool>,
    /// Single-launch form: the cluster shape (see [`LaunchSpec::cluster`]).
    #[serde(default)]
    pub cluster: Option<Dims>,
    /// Extension: several launches run in order (a pipeline).
    #[serde(default)]
    pub launch: Option<Vec<LaunchFile>>,
    /// As [`CaseSpec::heap_bytes`].
    #[serde(default)]
    pub heap_bytes: Option<u64>,
    /// As [`CaseSpec::stack_bytes`].
    #[serde(default)]
    pub stack_bytes: Option<u64>,
    /// Extension: `cudaFuncAttributeMaxDynamicSharedMemorySize` in bytes, set on every kernel
    /// the case launches; needed for more than 48 KiB of shared memory.
    #[serde(default)]
    pub max_dynamic_shared_bytes: Option<u32>,
    /// As [`CaseSpec::lockstep`] (default false).
    #[serde(default)]
    pub lockstep: Option<bool>,
    /// As [`CaseSpec::buffers`].
    #[serde(default)]
    pub buffers: IndexMap<String, BufferSpec>,
    /// As [`CaseSpec::expect`].
    #[serde(default)]
    pub expect: IndexMap<String, ExpectSpec>,
    /// As [`CaseSpec::expect_error`].
    #[serde(default)]
    pub expect_error: Option<ExpectError>,
    /// As [`CaseSpec::textures`].
    #[serde(default)]
    pub textures: IndexMap<String, TextureSpec>,
    /// As [`CaseSpec::surfaces`].
    #[serde(default)]
    pub surfaces: IndexMap<String, TextureSpec>,
    /// As [`CaseSpec::texrefs`].
    #[serde(default)]
    pub texrefs: IndexMap<String, TextureSpec>,
    /// As [`CaseSpec::tensor_maps`].
    #[serde(default)]
    pub tensor_maps: IndexMap<String, TensorMapSpec>,
}

/// `[tensor_maps.NAME]`: a tensor map over a buffer, as `cuTensorMapEncodeTiled` builds it, or
/// `cuTensorMapEncodeIm2col` with an `im2col` table (`runtime::tensormap`; the same checks
/// apply, the message names the key).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorMapSpec {
    /// The buffer whose device address (plus `offset`) is the tensor's global address.
    pub buffer: String,
    /// Bytes from the buffer's start (default 0).
    #[serde(default)]
    pub offset: u64,
    /// Element type: `u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 f32_ftz tf32 tf32_ftz`.
    #[serde(rename = "type")]
    pub dtype: String,
    /// Elements per dimension, innermost first (1 to 5 numbers: the rank).
    pub dims: Vec<u64>,
    /// Byte strides of dimensions 1.. (rank − 1 numbers); default: dense.
    #[serde(default)]
    pub strides: Option<Vec<u64>>,
    /// Box size per dimension (tile mode; an im2col map has none).
    #[serde(rename = "box", default)]
    pub box_dims: Vec<u32>,
    /// `{ lower = [..], upper = [..], channels = C, pixels = P }`: an im2col-mode map.
    #[serde(default)]
    pub im2col: Option<Im2colSpec>,
    /// Traversal strides per dimension (default all 1).
    #[serde(default)]
    pub element_strides: Option<Vec<u32>>,
    /// `none` (default), `16B`, `32B`.
    #[serde(default)]
    pub interleave: Option<String>,
    /// `none` (default), `32B`, `64B`, `128B`, `128B_atom_32B`, `128B_atom_32B_flip_8B`,
    /// `128B_atom_64B` (`CUtensorMapSwizzle` 0..=6).
    #[serde(default)]
    pub swizzle: Option<String>,
    /// `none` (default), `64B`, `128B`, `256B`.
    #[serde(default)]
    pub l2_promotion: Option<String>,
    /// `zero` (default) or `nan`.
    #[serde(default)]
    pub oob_fill: Option<String>,
}

/// The im2col fields of `[tensor_maps.NAME]` (`cuTensorMapEncodeIm2col`'s arguments, or
/// `cuTensorMapEncodeIm2colWide`'s with `wide`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Im2colSpec {
    /// pixelBoxLowerCorner: rank − 2 numbers, W first (one, W's, with `wide`).
    pub lower: Vec<i32>,
    /// pixelBoxUpperCorner: rank − 2 numbers, W first (one, W's, with `wide`).
    pub upper: Vec<i32>,
    /// channelsPerPixel.
    pub channels: u32,
    /// pixelsPerColumn (ignored with `wide = "w128"`; default 128 there).
    #[serde(default)]
    pub pixels: Option<u32>,
    /// `"w"` or `"w128"`: a `cuTensorMapEncodeIm2colWide` map of that
    /// `CUtensorMapIm2ColWideMode` (for `.im2col::w` / `.im2col::w::128` copies).
    #[serde(default)]
    pub wide: Option<String>,
}

impl TensorMapSpec {
    /// The `cuTensorMapEncodeTiled` arguments but the address: (data type, rank, dims,
    /// strides, box, element strides, interleave, swizzle, L2 promotion, OOB fill).
    #[allow(clippy::type_complexity)]
    pub fn encode_args(
        &self,
    ) -> Result<(u32, u32, Vec<u64>, Vec<u64>, Vec<u32>, Vec<u32>, [u32; 4]), String> {
        let pick = |key: &str, v: &Option<String>, names: &[&str]| -> Result<u32, String> {
            match v {
                None => Ok(0),
                Some(s) => names
                    .iter()
                    .position(|n| n == s)
                    .map(|p| p as u32)
                    .ok_or_else(|| {
                        format!("{key} = \"{s}\": expected one of {}", names.join(", "))
                    }),
            }
        };
        // The CUtensorMapDataType order; "b4x16", "b4x16_p64" and "b6x16_p32" are the packed
        // 16U4_ALIGN8B, 16U4_ALIGN16B and 16U6_ALIGN16B (dimension 0 in 4- or 6-bit elements).
        let types = [
            "u8",
            "u16",
            "u32",
            "s32",
            "u64",
            "s64",
            "f16",
            "f32",
            "f64",
            "bf16",
            "f32_ftz",
            "tf32",
            "tf32_ftz",
            "b4x16",
            "b4x16_p64",
            "b6x16_p32",
        ];
        let dtype = pick("type", &Some(self.dtype.clone()), &types)?;
        let rank = self.dims.len() as u32;
        let ebits: u64 = match dtype {
            0 => 8,
            1 | 6 | 9 => 16,
            4 | 5 | 8 => 64,
            13 | 14 => 4,
            15 => 6,
            _ => 32,
        };
        let strides = match &self.strides {
            Some(s) => s.clone(),
            None => {
                let mut s = vec![];
                let mut acc = ebits;
                for d in self.dims.iter().take(self.dims.len().saturating_sub(1)) {
                    acc = acc.saturating_mul(*d);
                    s.push(acc.div_ceil(8));
                }
                s
            }
        };
        let es = self
            .element_strides
            .clone()
            .unwrap_or_else(|| vec![1; self.dims.len()]);
        let modes = [
            pick("interleave", &self.interleave, &["none", "16B", "32B"])?,
            pick(
                "swizzle",
                &self.swizzle,
                &[
                    "none",
                    "32B",
                    "64B",
                    "128B",
                    "128B_atom_32B",
                    "128B_atom_32B_flip_8B",
                    "128B_atom_64B",
                ],
            )?,
            pick(
                "l2_promotion",
                &self.l2_promotion,
                &["none", "64B", "128B", "256B"],
            )?,
            pick("oob_fill", &self.oob_fill, &["zero", "nan"])?,
        ];
        Ok((
            dtype,
            rank,
            self.dims.clone(),
            strides,
            self.box_dims.clone(),
            es,
            modes,
        ))
    }
}

/// `[[launch]]`: one launch of a pipeline.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchFile {
    /// Default: the case's `ptx`.
    #[serde(default)]
    pub ptx: Option<String>,
    /// The entry name.
    pub kernel: String,
    /// CTAs per dimension.
    pub grid: Dims,
    /// Threads per CTA.
    pub block: Dims,
    /// Dynamic shared memory in bytes.
    #[serde(default)]
    pub shared_bytes: u32,
    /// The kernel parameters in declaration order.
    #[serde(default)]
    pub args: Vec<Arg>,
    /// A cooperative launch (default false).
    #[serde(default)]
    pub cooperative: bool,
    /// The cluster shape (see [`LaunchSpec::cluster`]).
    #[serde(default)]
    pub cluster: Option<Dims>,
}

impl CaseFile {
    /// The case the file describes. `Err` names the keys that are missing or conflict.
    pub fn into_spec(self) -> Result<CaseSpec, String> {
        let single = [
            self.kernel.is_some(),
            self.grid.is_some(),
            self.block.is_some(),
            self.shared_bytes.is_some(),
            self.args.is_some(),
            self.cooperative.is_some(),
            self.cluster.is_some(),
        ];
        let given: Vec<&str> = LAUNCH_KEYS
            .iter()
            .zip(single)
            .filter(|(_, g)| *g)
            .map(|(k, _)| *k)
            .collect();
        let (ptx, launches, pipeline) = match self.launch {
            Some(ls) => {
                if !given.is_empty() {
                    return Err(format!(
                        "a case has either top-level {} or [[launch]] tables, not both (this one has [[launch]] and {}); \
                         move them into the [[launch]] tables",
                        LAUNCH_KEYS.join("/"),
                        given.join(", ")
                    ));
                }
                if ls.is_empty() {
                    return Err("launch: needs at least one [[launch]] table".into());
                }
                let Some(ptx) = self.ptx.clone().or_else(|| ls[0].ptx.clone()) else {
                    return Err("ptx: missing (give the case's ptx, or ptx in [[launch]])".into());
                };
                let mut launches = Vec::with_capacity(ls.len());
                for l in ls {
                    launches.push(LaunchSpec {
                        ptx: l.ptx.unwrap_or_else(|| ptx.clone()),
                        kernel: l.kernel,
                        grid: l.grid,
                        block: l.block,
                        shared_bytes: l.shared_bytes,
                        args: l.args,
                        cooperative: l.cooperative,
                        cluster: l.cluster,
                    });
                }
                (ptx, launches, true)
            }
            None => {
                let missing: Vec<&str> = [
                    ("ptx", self.ptx.is_some()),
                    ("kernel", self.kernel.is_some()),
                    ("grid", self.grid.is_some()),
                    ("block", self.block.is_some()),
                ]
                .iter()
                .filter(|(_, g)| !g)
                .map(|(k, _)| *k)
                .collect();
                let (Some(ptx), Some(kernel), Some(grid), Some(block)) =
                    (self.ptx, self.kernel, self.grid, self.block)
                else {
                    return Err(format!(
                        "missing {} (a case needs ptx, kernel, grid and block, or [[launch]] tables)",
                        missing.join(", ")
                    ));
                };
                let launch = LaunchSpec {
                    ptx: ptx.clone(),
                    kernel,
                    grid,
                    block,
                    shared_bytes: self.shared_bytes.unwrap_or(0),
                    args: self.args.unwrap_or_default(),
                    cooperative: self.cooperative.unwrap_or(false),
                    cluster: self.cluster,
                };
                (ptx, vec![launch], false)
            }
        };
        Ok(CaseSpec {
            ptx,
            launches,
            pipeline,
            heap_bytes: self.heap_bytes,
            stack_bytes: self.stack_bytes,
            max_dynamic_shared_bytes: self.max_dynamic_shared_bytes,
            lockstep: self.lockstep.unwrap_or(false),
            buffers: self.buffers,
            expect: self.expect,
            expect_error: self.expect_error,
            textures: self.textures,
            surfaces: self.surfaces,
            texrefs: self.texrefs,
            tensor_maps: self.tensor_maps,
        })
    }
}

impl CaseSpec {
    /// A single-launch case (the ad-hoc form): no buffers, expectations, textures.
    pub fn single(launch: LaunchSpec) -> CaseSpec {
        CaseSpec {
            ptx: launch.ptx.clone(),
            launches: vec![launch],
            pipeline: false,
            heap_bytes: None,
            stack_bytes: None,
            max_dynamic_shared_bytes: None,
            lockstep: false,
            buffers: IndexMap::new(),
            expect: IndexMap::new(),
            expect_error: None,
            textures: IndexMap::new(),
            surfaces: IndexMap::new(),
            texrefs: IndexMap::new(),
            tensor_maps: IndexMap::new(),
        }
    }

    /// How keys of launch `i` are named: `launch[1].` in a pipeline, nothing otherwise.
    pub fn launch_key(&self, i: usize) -> String {
        if self.pipeline {
            format!("launch[{i}].")
        } else {
            String::new()
        }
    }
}

/// A grid or block shape, always three numbers once parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims(pub [u32; 3]);

impl Dims {
    /// Product of the three dimensions.
    pub fn count(self) -> u64 {
        self.0.iter().map(|&d| d as u64).product()
    }
}

impl fmt::Display for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}x{}", self.0[0], self.0[1], self.0[2])
    }
}

impl<'de> Deserialize<'de> for Dims {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Vec::<u32>::deserialize(d)?;
        Dims::from_slice(&v).map_err(de::Error::custom)
    }
}

impl Dims {
    /// 1 to 3 numbers; missing ones are 1.
    pub fn from_slice(v: &[u32]) -> Result<Dims, String> {
        if v.is_empty() || v.len() > 3 {
            return Err(format!("expected 1 to 3 dimensions, got {}", v.len()));
        }
        let mut d = [1u32; 3];
        d[..v.len()].copy_from_slice(v);
        Ok(Dims(d))
    }
}

/// A kernel argument: a table with exactly one key.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// `{ u32 = 5 }` and the other scalar types.
    Scalar(Scalar),
    /// `{ buffer = "x" }` or `{ buffer = "x", offset = 16 }`: the buffer's device address plus
    /// `offset` bytes.
    Buffer { name: String, offset: u64 },
    /// `{ texture = "img" }`: a texture object handle.
    Texture(String),
    /// `{ surface = "out" }`: a surface object handle.
    Surface(String),
    /// `{ tensor_map = "a" }`: the 128-byte tensor map `[tensor_maps.a]` by value (a
    /// `.param .align 64 .b8 name[128]` parameter, CUDA's `const __grid_constant__
    /// CUtensorMap`).
    TensorMap(String),
    /// `{ struct = [ARG, ...] }`: a struct passed by value (a `.b8 name[N]` parameter), its
    /// fields in declaration order, laid out as a C compiler does (`runtime::KernelArg::Struct`).
    Struct(Vec<Arg>),
}

impl Arg {
    /// Every argument that is not a struct, with its place (`args[2]`, `args[2].struct[0]`),
    /// in order.
    pub fn leaves(args: &[Arg]) -> Vec<(String, &Arg)> {
        fn walk<'a>(a: &'a Arg, path: String, out: &mut Vec<(String, &'a Arg)>) {
            match a {
                Arg::Struct(fields) => {
                    for (j, f) in fields.iter().enumerate() {
                        walk(f, format!("{path}.struct[{j}]"), out);
                    }
                }
                leaf => out.push((path, leaf)),
            }
        }
        let mut out = vec![];
        for (i, a) in args.iter().enumerate() {
            walk(a, format!("args[{i}]"), &mut out);
        }
        out
    }
}

/// A scalar kernel argument (`args = [{ f32 = 2.0 }]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    S8(i8),
    S16(i16),
    S32(i32),
    S64(i64),
    F32(f32),
    F64(f64),
}

/// Scalar argument type names.
pub const SCALAR_NAMES: &str = "u8 u16 u32 u64 s8 s16 s32 s64 f32 f64";

impl Scalar {
    /// Convert `v` to a scalar of type `ty` (a name from [`SCALAR_NAMES`]), range-checked.
    pub fn new(ty: &str, v: Num) -> Result<Scalar, String> {
        let dt = match DType::parse(ty) {
            Some(DType::F16 | DType::BF16) | None => {
                return Err(format!("unknown argument type '{ty}' (scalars: {SCALAR_NAMES}; or buffer, texture, surface)"))
            }
            Some(t) => t,
        };
        let mut b = Vec::with_capacity(8);
        dt.encode(v, &mut b).map_err(|e| format!("{ty}: {e}"))?;
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(&b);
        let raw = u64::from_le_bytes(w);
        Ok(match dt {
            DType::U8 => Scalar::U8(raw as u8),
            DType::U16 => Scalar::U16(raw as u16),
            DType::U32 => Scalar::U32(raw as u32),
            DType::U64 => Scalar::U64(raw),
            DType::S8 => Scalar::S8(raw as i8),
            DType::S16 => Scalar::S16(raw as i16),
            DType::S32 => Scalar::S32(raw as i32),
            DType::S64 => Scalar::S64(raw as i64),
            DType::F32 => Scalar::F32(f32::from_bits(raw as u32)),
            DType::F64 => Scalar::F64(f64::from_bits(raw)),
            DType::F16 | DType::BF16 => unreachable!("rejected above"),
        })
    }
}

impl<'de> Deserialize<'de> for Arg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Arg;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table with one key: a scalar type (u32 = 1), buffer = \"NAME\", texture = \"NAME\", surface = \"NAME\" or struct = [fields]")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Arg, A::Error> {
                let mut entries: Vec<(String, toml::Value)> = vec![];
                while let Some((k, v)) = m.next_entry::<String, toml::Value>()? {
                    entries.push((k, v));
                }
                arg_from_entries(entries).map_err(de::Error::custom)
            }
        }
        d.deserialize_map(V)
    }
}

fn arg_from_entries(e: Vec<(String, toml::Value)>) -> Result<Arg, String> {
    let name_of = |k: &str, v: &toml::Value| match v {
        toml::Value::String(s) => Ok(s.clone()),
        _ => Err(format!("{k} = must be a name (a string)")),
    };
    if e.iter().any(|(k, _)| k == "buffer") {
        let (mut name, mut offset) = (String::new(), 0);
        for (k, v) in &e {
            match (k.as_str(), v) {
                ("buffer", _) => name = name_of("buffer", v)?,
                ("offset", toml::Value::Integer(o)) => {
                    offset =
                        u64::try_from(*o).map_err(|_| format!("offset {o} must not be negative"))?
                }
                ("offset", _) => return Err("offset must be an integer (bytes)".into()),
                (other, _) => {
                    return Err(format!(
                        "unexpected key '{other}' in a buffer argument (keys: buffer, offset)"
                    ))
                }
            }
        }
        return Ok(Arg::Buffer { name, offset });
    }
    let (k, v) = one_key(e, "an argument")?;
    match k.as_str() {
        "struct" => {
            let toml::Value::Array(items) = v else {
                return Err(
                    "struct = must be a list of field arguments ([{ f32 = 1.0 }, ..])".into(),
                );
            };
            if items.is_empty() {
                return Err("struct = needs at least one field".into());
            }
            let fields = items
                .into_iter()
                .enumerate()
                .map(|(j, item)| match item {
                    toml::Value::Table(t) => arg_from_entries(t.into_iter().collect())
                        .map_err(|e| format!("struct field {j}: {e}")),
                    other => Err(format!(
                        "struct field {j} = {other}: a field is an argument table ({{ f32 = 1.0 }})"
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Arg::Struct(fields))
        }
        "texture" => Ok(Arg::Texture(name_of("texture", &v)?)),
        "surface" => Ok(Arg::Surface(name_of("surface", &v)?)),
        "tensor_map" => Ok(Arg::TensorMap(name_of("tensor_map", &v)?)),
        "offset" => Err("offset is only allowed next to buffer = \"NAME\"".into()),
        _ => {
            let num = match &v {
                toml::Value::Integer(i) => Num::Int(*i as i128),
                toml::Value::Float(f) => Num::Float(*f),
                toml::Value::String(s) => Num::parse(s)?,
                other => return Err(format!("{k} = {other}: expected a number")),
            };
            Scalar::new(&k, num).map(Arg::Scalar)
        }
    }
}

/// `[buffers.NAME]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferSpec {
    /// Element type.
    #[serde(rename = "type")]
    pub dtype: DType,
    /// Number of elements; may be omitted when `init` is `values` or `file`.
    #[serde(default)]
    pub len: Option<u64>,
    /// Initial contents; none: zero-filled.
    #[serde(default)]
    pub init: Option<Init>,
    /// The module's `.global` or `.const` variable (a `__device__` or `__constant__` variable)
    /// this buffer is, instead of a new allocation: it is filled before the launch as
    /// `cudaMemcpyToSymbol` would, and expectations read it back.
    #[serde(default)]
    pub symbol: Option<String>,
}

/// How a buffer is filled before the launch: a table with exactly one key.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// Every element = V.
    Fill(Num),
    /// Element i = start + i * step.
    Iota(Iota),
    /// Seeded pseudo-random values (see [`super::data`] for the exact generator).
    Random(Random),
    /// These values (len = their count).
    Values(Vec<Num>),
    /// `.npy` (dtype must match) or `.bin` (raw little-endian), relative to the case file.
    File(String),
}

/// The keys of an `init` table.
const INIT_KEYS: &str = "fill, iota, random, values or file";

impl<'de> Deserialize<'de> for Init {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        init_from_value(v).map_err(de::Error::custom)
    }
}

/// The one entry of a table that must have exactly one key; the error names `what` and the
/// keys it got.
fn one_key(e: Vec<(String, toml::Value)>, what: &str) -> Result<(String, toml::Value), String> {
    let [(k, v)] = <[_; 1]>::try_from(e).map_err(|e: Vec<_>| {
        let keys = e
            .iter()
            .map(|(k, _)| k.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "{what} is a table with exactly one key; got {} ({keys})",
            e.len()
        )
    })?;
    Ok((k, v))
}

/// An `init` value from its TOML form; errors say what an `init` is.
fn init_from_value(v: toml::Value) -> Result<Init, String> {
    let t = match v {
        toml::Value::Table(t) => t,
        toml::Value::String(s)
            if ["fill", "iota", "random", "values", "file"].contains(&s.as_str()) =>
        {
            let example = match s.as_str() {
                "fill" => "{ fill = 0 }",
                "values" => "{ values = [1, 2, 3] }",
                "file" => "{ file = \"x.npy\" }",
                _ => "{ iota = {} }",
            };
            return Err(format!(
                "init is a table with one key ({INIT_KEYS}); write init = {example}, not \"{s}\""
            ));
        }
        other => {
            return Err(format!(
            "init is a table with one key ({INIT_KEYS}), e.g. init = {{ fill = 0 }}; got {other}"
        ))
        }
    };
    let (k, v) = one_key(t.into_iter().collect(), &format!("init ({INIT_KEYS})"))?;
    let inner = |e: toml::de::Error| format!("init.{k}: {}", e.message());
    match k.as_str() {
        "fill" => Ok(Init::Fill(v.try_into().map_err(inner)?)),
        "iota" => Ok(Init::Iota(v.try_into().map_err(inner)?)),
        "random" => Ok(Init::Random(v.try_into().map_err(inner)?)),
        "values" => Ok(Init::Values(v.try_into().map_err(inner)?)),
        "file" => Ok(Init::File(v.try_into().map_err(inner)?)),
        other => Err(format!("unknown init '{other}' (one of {INIT_KEYS})")),
    }
}

/// `{ iota = { start = 0, step = 1 } }` (both optional).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Iota {
    #[serde(default = "zero")]
    pub start: Num,
    #[serde(default = "one")]
    pub step: Num,
}

fn zero() -> Num {
    Num::Int(0)
}
fn one() -> Num {
    Num::Int(1)
}

/// `{ random = { seed = 1, min = -1.0, max = 1.0 } }`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Random {
    #[serde(default)]
    pub seed: u64,
    #[serde(default)]
    pub min: Option<Num>,
    #[serde(default)]
    pub max: Option<Num>,
}

/// `[expect.NAME]`: at most one of `file` / `values` (the expected contents), a tolerance, and
/// how the elements are matched up (`order`) and compared between engines (`check`). A table
/// without `file`/`values` only tells `ptxjit check` how to compare the buffer.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectSpec {
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub values: Option<Vec<Num>>,
    #[serde(default)]
    pub tolerance: Tolerance,
    /// Extension: `"any"` compares the buffer as a multiset (both sides sorted first).
    #[serde(default)]
    pub order: Order,
    /// Extension: how `ptxjit check` compares the engines' contents of the buffer.
    #[serde(default)]
    pub check: CheckMode,
}

impl ExpectSpec {
    /// Whether the table gives expected contents (`file` or `values`).
    pub fn has_data(&self) -> bool {
        self.file.is_some() || self.values.is_some()
    }
}

/// Which element of one side an element of the other side is compared with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Element i with element i (the default).
    #[default]
    Index,
    /// As multisets: both sides are sorted by value, then compared element by element (for
    /// output appended through an atomic counter, whose order depends on thread timing).
    Any,
}

/// How `ptxjit check` compares the interpreter's and the JIT's contents of one buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckMode {
    /// Bit for bit (any NaN equals any NaN), after sorting with `order = "any"` (the default).
    #[default]
    Exact,
    /// Within the table's `tolerance` (for float atomics, whose rounding depends on the order
    /// of the additions).
    Tolerance,
    /// Not compared (contents that legitimately differ from run to run).
    Skip,
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Order::Index => "index",
            Order::Any => "any",
        })
    }
}

/// How close an element must be. All `None`: exact (bitwise; any NaN matches any NaN of the
/// same type). Otherwise an element passes if any given bound holds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tolerance {
    /// |got − want| ≤ abs.
    pub abs: Option<f64>,
    /// |got − want| ≤ rel · |want|.
    pub rel: Option<f64>,
    /// Distance in units in the last place of the buffer's own type ≤ ulp.
    pub ulp: Option<u64>,
}

impl Tolerance {
    pub fn is_exact(&self) -> bool {
        self.abs.is_none() && self.rel.is_none() && self.ulp.is_none()
    }
}

impl fmt::Display for Tolerance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_exact() {
            return f.write_str("exact");
        }
        let mut parts = vec![];
        if let Some(a) = self.abs {
            parts.push(format!("abs {a:e}"));
        }
        if let Some(r) = self.rel {
            parts.push(format!("rel {r:e}"));
        }
        if let Some(u) = self.ulp {
            parts.push(format!("ulp {u}"));
        }
        f.write_str(&parts.join(" or "))
    }
}

impl<'de> Deserialize<'de> for Tolerance {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Table {
            abs: Option<f64>,
            rel: Option<f64>,
            ulp: Option<u64>,
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Tolerance;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("\"exact\" or a table { abs = A, rel = R, ulp = U } (one or more)")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Tolerance, E> {
                match s {
                    "exact" => Ok(Tolerance::default()),
                    _ => Err(E::custom(format!("unknown tolerance '{s}' (expected \"exact\" or {{ abs = .. }}, {{ rel = .. }}, {{ ulp = .. }})"))),
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Tolerance, A::Error> {
                let t = Table::deserialize(de::value::MapAccessDeserializer::new(m))?;
                let tol = Tolerance {
                    abs: t.abs,
                    rel: t.rel,
                    ulp: t.ulp,
                };
                if tol.is_exact() {
                    return Err(de::Error::custom(
                        "an empty tolerance table; write \"exact\" or give abs, rel or ulp",
                    ));
                }
                for (k, v) in [("abs", tol.abs), ("rel", tol.rel)] {
                    if v.is_some_and(|x| x.is_nan() || x < 0.0) {
                        return Err(de::Error::custom(format!(
                            "tolerance {k} must be a number >= 0"
                        )));
                    }
                    if v.is_some_and(f64::is_infinite) {
                        return Err(de::Error::custom(format!(
                            "tolerance {k} = inf accepts every value, so the check could never \
                             fail: give a finite bound"
                        )));
                    }
                }
                Ok(tol)
            }
        }
        d.deserialize_any(V)
    }
}

/// Extension: `[expect_error]` — the run must fail with this error kind and message.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectError {
    /// One of [`ERROR_KINDS`].
    pub kind: String,
    /// A substring the error message must contain.
    pub contains: String,
    /// Run with memcheck (exact allocation bounds), as `--memcheck` does.
    #[serde(default)]
    pub memcheck: bool,
    /// Run under this sanitizer tool (a [`crate::host::tool::Tool`] name), as `--tool` does;
    /// `tool = "memcheck"` is `memcheck = true`.
    #[serde(default)]
    pub tool: Option<String>,
    /// With `tool = "racecheck"`: also races on global memory between threads of one CTA,
    /// as `--racecheck-global` does.
    #[serde(default)]
    pub racecheck_global: bool,
}

impl ExpectError {
    /// Whether the case asks for `tool` (checked by `Case::validate`: the name is a tool's).
    pub fn wants(&self, tool: crate::host::tool::Tool) -> bool {
        self.tool.as_deref() == Some(tool.name())
            || (tool == crate::host::tool::Tool::Memcheck && self.memcheck)
    }
}

/// Every error kind a run can report (`--json` `error.kind`). `case`, `io` come from the
/// case layer; the rest from the runtime's `Error::kind`.
pub const ERROR_KINDS: [&str; 14] = [
    "case",
    "io",
    "parse",
    "unsupported",
    "invalid",
    "unknown_kernel",
    "argument",
    "launch_config",
    "memory",
    "fault",
    "timeout",
    "deadlock",
    "internal",
    "sanitizer",
];

/// `[textures.NAME]`, `[surfaces.NAME]`, `[texrefs.NAME]` (see `case::texture`). `source` and
/// `kind` are required except for a `[texrefs.NAME]` that binds a `.samplerref`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextureSpec {
    #[serde(default)]
    pub source: Option<TexSource>,
    #[serde(default)]
    pub kind: Option<TexKind>,
    #[serde(default)]
    pub format: Option<TexFormat>,
    #[serde(default)]
    pub channels: Option<u32>,
    #[serde(default)]
    pub width: Option<u64>,
    #[serde(default)]
    pub height: Option<u64>,
    #[serde(default)]
    pub depth: Option<u64>,
    #[serde(default)]
    pub layers: Option<u64>,
    #[serde(default)]
    pub pitch_bytes: Option<u64>,
    #[serde(default)]
    pub address: Option<Vec<TexAddress>>,
    #[serde(default)]
    pub border_color: Option<Vec<f64>>,
    #[serde(default)]
    pub filter: Option<TexFilter>,
    #[serde(default)]
    pub normalized_coords: Option<bool>,
    #[serde(default)]
    pub read_mode: Option<TexReadMode>,
    #[serde(default)]
    pub mip_levels: Option<u32>,
    /// Samples per texel of a multisample texture (`tex.2dms`/`.a2dms`; kinds `2d` and
    /// `2d_layered`); absent: an ordinary texture.
    #[serde(default)]
    pub num_samples: Option<u32>,
    /// Filtering between mipmap levels (default: `filter`).
    #[serde(default)]
    pub mip_filter: Option<TexFilter>,
    /// Added to the level of detail (default 0).
    #[serde(default)]
    pub lod_bias: Option<f32>,
    /// The level of detail is clamped to [min_lod, max_lod] (defaults 0 and 1000).
    #[serde(default)]
    pub min_lod: Option<f32>,
    #[serde(default)]
    pub max_lod: Option<f32>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum TexSource {
    Buffer(String),
    Png(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TexKind {
    Linear,
    #[serde(rename = "1d")]
    D1,
    #[serde(rename = "2d")]
    D2,
    #[serde(rename = "3d")]
    D3,
    #[serde(rename = "1d_layered")]
    D1Layered,
    #[serde(rename = "2d_layered")]
    D2Layered,
    Cube,
    CubeLayered,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TexFormat {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    F16,
    F32,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TexAddress {
    Wrap,
    Mirror,
    Clamp,
    Border,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TexFilter {
    Point,
    Linear,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TexReadMode {
    Element,
    NormalizedFloat,
}
