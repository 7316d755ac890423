//! Buffer contents: the initialisers of a case file (`fill`, `iota`, `random`, `values`,
//! `file`), and `.npy` / `.bin` files in and out.
//!
//! # The `random` generator (a public contract: other tools reproduce it)
//! SplitMix64 (Steele, Lea, Flood 2014) seeded with `seed`; element `i` uses the `i`-th output
//! (`x`), starting from the first:
//! ```text
//! state = state + 0x9E3779B97F4A7C15 (wrapping);  z = state
//! z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;  z = (z ^ (z >> 27)) * 0x94D049BB133111EB
//! x = z ^ (z >> 31)
//! ```
//! - float types: `min + (max - min) * ((x >> 11) as f64 / 2^53)`, computed in f64 (uniform
//!   in `[min, max)`), then rounded to nearest (even) into the buffer type — so f16/bf16/f32
//!   values may round up to `max`. Defaults `min = 0`, `max = 1`.
//! - integer types: `min + ((x as u128 * (max - min + 1)) >> 64)`: uniform in `[min, max]`
//!   inclusive (multiply-high range reduction). Defaults: the type's whole range.

use super::dtype::{DType, Num};
use super::spec::{Init, Iota, Random};
use std::path::Path;

/// SplitMix64, the generator behind `init = { random = .. }`.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// A buffer's bytes and element count as an initialiser produces them. `len` is the declared
/// length (`None`: take it from `values` or the file). `base` resolves a relative file path.
pub fn materialize(
    dtype: DType,
    len: Option<u64>,
    init: Option<&Init>,
    base: &Path,
) -> Result<Vec<u8>, String> {
    let need_len = |what: &str| len.ok_or_else(|| format!("'len' is required with {what}"));
    let n = |l: u64| -> Result<usize, String> {
        let limit = crate::runtime::memory::device_memory_limit();
        let bytes = usize::try_from(l)
            .ok()
            .and_then(|x| x.checked_mul(dtype.size()))
            .filter(|&b| b as u64 <= limit)
            .ok_or_else(|| {
                format!("len {l} is too large: more than the device memory of {limit} bytes")
            })?;
        // The buffer lives on the host (its initial contents), on the device, and on the host
        // again when read back: refuse what the host cannot hold three times now, with a clear
        // error, rather than be killed for it part way.
        if let Some(avail) = crate::runtime::memory::available_memory() {
            let need = (bytes as u64).saturating_mul(3);
            if need > avail {
                return Err(format!(
                    "len {l} ({bytes} bytes) is more than this machine can hold now: the \
                     initial contents, the device copy and the read-back need {need} bytes, \
                     the host has {avail} available"
                ));
            }
        }
        Ok(bytes / dtype.size())
    };
    let mut out = Vec::new();
    match init {
        None => {
            let bytes = n(need_len("no init (zero-filled)")?)? * dtype.size();
            out = host_vec(bytes)?;
            out.resize(bytes, 0);
        }
        Some(Init::Fill(v)) => {
            let count = n(need_len("fill")?)?;
            let mut one = Vec::new();
            dtype
                .encode(*v, &mut one)
                .map_err(|e| format!("fill: {e}"))?;
            out = host_vec(count * one.len())?;
            for _ in 0..count {
                out.extend_from_slice(&one);
            }
        }
        Some(Init::Iota(Iota { start, step })) => {
            let count = n(need_len("iota")?)?;
            out = host_vec(count * dtype.size())?;
            if dtype.is_float() {
                let (s, d) = (start.as_f64(), step.as_f64());
                for i in 0..count {
                    dtype.encode_f64(s + i as f64 * d, &mut out);
                }
            } else {
                let s = start
                    .as_int()
                    .ok_or("iota: start must be an integer for an integer type")?;
                let d = step
                    .as_int()
                    .ok_or("iota: step must be an integer for an integer type")?;
                for i in 0..count as i128 {
                    dtype.encode_wrapping(s.wrapping_add(i.wrapping_mul(d)), &mut out);
                }
            }
        }
        Some(Init::Random(r)) => {
            let count = n(need_len("random")?)?;
            out = random(dtype, count, r)?;
        }
        Some(Init::Values(vs)) => {
            for (i, v) in vs.iter().enumerate() {
                dtype
                    .encode(*v, &mut out)
                    .map_err(|e| format!("values[{i}]: {e}"))?;
            }
            check_len(len, vs.len() as u64, "values")?;
        }
        Some(Init::File(f)) => {
            let path = base.join(f);
            out = read_file(&path, dtype)?;
            check_len(len, (out.len() / dtype.size()) as u64, &format!("file {f}"))?;
        }
    }
    Ok(out)
}

/// An empty vector with room for `bytes` bytes of a buffer's host copy. Errors, instead of
/// the process aborting, when the host cannot give them (a process memory limit such as
/// `ulimit -v`, which [`available_memory`](crate::runtime::memory::available_memory) does not
/// see, or the machine).
pub fn host_vec(bytes: usize) -> Result<Vec<u8>, String> {
    let mut v = Vec::new();
    v.try_reserve_exact(bytes).map_err(|_| {
        format!(
            "cannot allocate {bytes} bytes of host memory for the buffer's contents (the \
             process's memory limit, e.g. `ulimit -v`, or the machine's memory is too small)"
        )
    })?;
    Ok(v)
}

fn check_len(len: Option<u64>, got: u64, what: &str) -> Result<(), String> {
    match len {
        Some(l) if l != got => Err(format!("len is {l} but {what} holds {got} elements")),
        _ => Ok(()),
    }
}

/// `count` elements from the documented SplitMix64 recipe (module docs).
pub fn random(dtype: DType, count: usize, r: &Random) -> Result<Vec<u8>, String> {
    let mut g = SplitMix64(r.seed);
    let mut out = host_vec(count * dtype.size())?;
    if dtype.is_float() {
        let lo = r.min.map_or(0.0, Num::as_f64);
        let hi = r.max.map_or(1.0, Num::as_f64);
        if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
            return Err(format!(
                "random: need finite min <= max (got min {lo}, max {hi})"
            ));
        }
        for _ in 0..count {
            let u = (g.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            dtype.encode_f64(lo + (hi - lo) * u, &mut out);
        }
    } else {
        let (tlo, thi) = dtype.int_range().unwrap_or((0, 0));
        let int = |v: Option<Num>, default: i128, what: &str| -> Result<i128, String> {
            match v {
                None => Ok(default),
                Some(n) => n
                    .as_int()
                    .filter(|i| (tlo..=thi).contains(i))
                    .ok_or_else(|| format!("random: {what} {n} is not a {} value", dtype.name())),
            }
        };
        let lo = int(r.min, tlo, "min")?;
        let hi = int(r.max, thi, "max")?;
        if lo > hi {
            return Err(format!("random: min {lo} > max {hi}"));
        }
        let span = (hi - lo + 1) as u128;
        for _ in 0..count {
            let x = g.next_u64() as u128;
            dtype.encode_wrapping(lo + ((x * span) >> 64) as i128, &mut out);
        }
    }
    Ok(out)
}

/// A buffer's element count as far as it can be told without reading its data: the
/// declared `len`, the count of `values`, a `.bin` file's size over the element size, or the
/// product of a `.npy` file's shape from its header. `None` where it cannot be told (an
/// unreadable file, a bad header, a `.bin` size that is no whole number of elements): loading
/// the buffer reports that.
pub fn known_len(dtype: DType, len: Option<u64>, init: Option<&Init>, base: &Path) -> Option<u64> {
    if len.is_some() {
        return len;
    }
    match init? {
        Init::Values(vs) => Some(vs.len() as u64),
        Init::File(f) => {
            let path = base.join(f);
            match path.extension().and_then(|e| e.to_str()) {
                Some("npy") => {
                    let file = std::fs::File::open(&path).ok()?;
                    let npy = npyz::NpyFile::new(std::io::BufReader::new(file)).ok()?;
                    npy.shape().iter().try_fold(1u64, |n, &d| n.checked_mul(d))
                }
                Some("bin") => {
                    let bytes = std::fs::metadata(&path).ok()?.len();
                    let size = dtype.size() as u64;
                    (bytes % size == 0).then_some(bytes / size)
                }
                _ => None,
            }
        }
        Init::Fill(_) | Init::Iota(_) | Init::Random(_) => None,
    }
}

/// Read a `.npy` (dtype must match) or `.bin` (raw little-endian) file as buffer bytes.
pub fn read_file(path: &Path, dtype: DType) -> Result<Vec<u8>, String> {
    let shown = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    match path.extension().and_then(|e| e.to_str()) {
        Some("npy") => read_npy(&bytes, dtype).map_err(|e| format!("{shown}: {e}")),
        Some("bin") => {
            if bytes.len() % dtype.size() != 0 {
                return Err(format!(
                    "{shown}: {} bytes is not a whole number of {} elements ({} bytes each)",
                    bytes.len(),
                    dtype,
                    dtype.size()
                ));
            }
            Ok(bytes)
        }
        _ => Err(format!("{shown}: data files must end in .npy or .bin")),
    }
}

/// The length of a `.npy` file's preamble and header, where its data begins: the magic
/// string and version (8 bytes), the header length (2 bytes in format version 1.0, 4 in 2.0
/// and 3.0) and the header itself (numpy's NEP 1 "A Simple File Format for NumPy Arrays").
/// `bytes` has been parsed as a `.npy` file already; a short file gives its own length.
fn npy_header_len(bytes: &[u8]) -> u64 {
    let len_at = |at: usize, n: usize| {
        bytes.get(at..at + n).map(|b| {
            b.iter()
                .rev()
                .fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
        })
    };
    let header = match bytes.get(6) {
        Some(1) => len_at(8, 2).map(|h| 10 + h),
        _ => len_at(8, 4).map(|h| 12 + h),
    };
    header.unwrap_or(bytes.len() as u64)
}

fn read_npy(bytes: &[u8], dtype: DType) -> Result<Vec<u8>, String> {
    let npy = npyz::NpyFile::new(bytes).map_err(|e| format!("not a valid .npy file: {e}"))?;
    let descr = match npy.dtype() {
        npyz::DType::Plain(ts) => ts.to_string(),
        other => return Err(format!("unsupported .npy dtype {}", other.descr())),
    };
    let want = dtype.npy_descr().ok_or_else(|| {
        format!("type {dtype} has no .npy dtype (numpy has no bfloat16); use a .bin file")
    })?;
    // One-byte types may be written with '|' or '<'; native '=' is little-endian on every host we run.
    let norm = |d: &str| d.replacen(['|', '='], "<", 1);
    if norm(&descr) != norm(want) {
        return Err(format!(
            "dtype '{descr}' does not match the buffer type {dtype} ('{want}')"
        ));
    }
    if npy.order() == npyz::Order::Fortran && npy.shape().iter().filter(|&&d| d > 1).count() > 1 {
        return Err("Fortran-order arrays are not supported; save with C order".into());
    }
    // The header's shape must match the data that follows (no allocation from the header).
    // The element count is the shape's product, checked: a forged header's product can pass
    // 2^64 and wrap (to 0, or to a small count that the data seems to hold).
    let payload = (bytes.len() as u64).saturating_sub(npy_header_len(bytes));
    let need = npy
        .shape()
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .and_then(|n| n.checked_mul(dtype.size() as u64));
    if need.is_none_or(|b| b > payload) {
        let need = need.map_or("more than 2^64".into(), |b| b.to_string());
        return Err(format!(
            "the header's shape {:?} needs {need} bytes of data, the file holds {payload} \
             after its header (a truncated file?)",
            npy.shape()
        ));
    }
    let mut out = host_vec(npy.len() as usize * dtype.size())?;
    macro_rules! rd {
        ($t:ty) => {
            for v in npy.into_vec::<$t>().map_err(|e| e.to_string())? {
                out.extend_from_slice(&v.to_le_bytes());
            }
        };
    }
    match dtype {
        DType::U8 => rd!(u8),
        DType::S8 => rd!(i8),
        DType::U16 => rd!(u16),
        DType::S16 => rd!(i16),
        DType::U32 => rd!(u32),
        DType::S32 => rd!(i32),
        DType::U64 => rd!(u64),
        DType::S64 => rd!(i64),
        DType::F16 => rd!(half::f16),
        DType::F32 => rd!(f32),
        DType::F64 => rd!(f64),
        DType::BF16 => unreachable!("rejected above: no .npy dtype"),
    }
    Ok(out)
}

/// Write buffer bytes to `path`: `.npy` (1-D, the buffer's dtype) or `.bin` (raw little-endian).
pub fn write_file(path: &Path, dtype: DType, bytes: &[u8]) -> Result<(), String> {
    let shown = path.display();
    match path.extension().and_then(|e| e.to_str()) {
        Some("bin") => {
            std::fs::write(path, bytes).map_err(|e| format!("cannot write {shown}: {e}"))
        }
        Some("npy") => {
            write_npy(path, dtype, bytes).map_err(|e| format!("cannot write {shown}: {e}"))
        }
        _ => Err(format!("{shown}: output files must end in .npy or .bin")),
    }
}

fn write_npy(path: &Path, dtype: DType, bytes: &[u8]) -> Result<(), String> {
    macro_rules! wr {
        ($t:ty) => {{
            let vals = bytes
                .chunks_exact(dtype.size())
                .map(|c| <$t>::from_le_bytes(c.try_into().expect("chunk of the element size")));
            npyz::to_file_1d(path, vals).map_err(|e| e.to_string())
        }};
    }
    match dtype {
        DType::U8 => wr!(u8),
        DType::S8 => wr!(i8),
        DType::U16 => wr!(u16),
        DType::S16 => wr!(i16),
        DType::U32 => wr!(u32),
        DType::S32 => wr!(i32),
        DType::U64 => wr!(u64),
        DType::S64 => wr!(i64),
        DType::F16 => wr!(half::f16),
        DType::F32 => wr!(f32),
        DType::F64 => wr!(f64),
        DType::BF16 => {
            Err("bf16 has no .npy dtype (numpy has no bfloat16); write a .bin file".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // First outputs of SplitMix64 seeded with 1234567 (the reference implementation's test vector).
        let mut g = SplitMix64(1234567);
        assert_eq!(g.next_u64(), 6457827717110365317);
        assert_eq!(g.next_u64(), 3203168211198807973);
    }

    #[test]
    fn random_ranges() {
        let r = Random {
            seed: 7,
            min: Some(Num::Int(-3)),
            max: Some(Num::Int(3)),
        };
        let b = random(DType::S8, 1000, &r).unwrap();
        assert!(b.iter().all(|&x| (-3..=3).contains(&(x as i8))));
        assert!((-3..=3).all(|v| b.iter().any(|&x| x as i8 == v)));
        let r = Random {
            seed: 7,
            min: Some(Num::Float(-1.0)),
            max: Some(Num::Float(1.0)),
        };
        let b = random(DType::F64, 1000, &r).unwrap();
        assert!(b
            .chunks(8)
            .all(|c| (-1.0..1.0).contains(&f64::from_le_bytes(c.try_into().unwrap()))));
        let r = Random {
            seed: 1,
            min: None,
            max: None,
        };
        assert_eq!(
            random(DType::U64, 1, &r).unwrap(),
            SplitMix64(1).next_u64().to_le_bytes()
        );
    }

    #[test]
    fn npy_roundtrip_and_dtype_check() {
        let dir = std::env::temp_dir().join(format!("ptxjit-data-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.npy");
        let bytes: Vec<u8> = [1.5f32, -2.0, f32::NAN]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        write_file(&p, DType::F32, &bytes).unwrap();
        assert_eq!(read_file(&p, DType::F32).unwrap(), bytes);
        let e = read_file(&p, DType::U32).unwrap_err();
        assert!(e.contains("does not match the buffer type u32"), "{e}");
        let p = dir.join("h.npy");
        let h: Vec<u8> = [1u16, 2, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
        write_file(&p, DType::F16, &h).unwrap();
        assert_eq!(read_file(&p, DType::F16).unwrap(), h);
        // A file cut short after its header (4 of its 6 data bytes): an error that says so.
        let t = dir.join("t.npy");
        let full = std::fs::read(&p).unwrap();
        std::fs::write(&t, &full[..full.len() - 2]).unwrap();
        let e = read_file(&t, DType::F16).unwrap_err();
        assert!(
            e.contains("needs 6 bytes of data, the file holds 4 after its header"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A `.npy` file (format 1.0, NEP 1) of `descr` with `shape` (a Python tuple) over `data`.
    fn npy_bytes(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        let mut header =
            format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend_from_slice(&(header.len() as u16).to_le_bytes());
        b.extend_from_slice(header.as_bytes());
        b.extend_from_slice(data);
        b
    }

    #[test]
    fn npy_shape_product_past_2_64_is_an_error() {
        // (2^62 + 1) x 4 elements is 2^64 + 4, which wraps to the 4 bytes the file holds; and
        // (2^32)^3 wraps to 0. Both headers claim more data than any file can hold.
        for (shape, data) in [
            ("(4611686018427387905, 4)", &[1u8, 2, 3, 4][..]),
            ("(4294967296, 4294967296, 4294967296)", &[][..]),
        ] {
            let e = read_npy(&npy_bytes("|u1", shape, data), DType::U8).unwrap_err();
            assert!(
                e.contains("needs more than 2^64 bytes of data"),
                "{shape}: {e}"
            );
        }
        // The same header with an honest shape reads.
        let ok = read_npy(&npy_bytes("|u1", "(1, 4)", &[1, 2, 3, 4]), DType::U8).unwrap();
        assert_eq!(ok, [1, 2, 3, 4]);
    }

    #[test]
    fn iota_and_fill() {
        let it = Init::Iota(Iota {
            start: Num::Int(250),
            step: Num::Int(3),
        });
        let b = materialize(DType::U8, Some(3), Some(&it), Path::new(".")).unwrap();
        assert_eq!(b, [250, 253, 0]); // wraps modulo 2^8
        let f = Init::Fill(Num::Float(0.5));
        let b = materialize(DType::F32, Some(2), Some(&f), Path::new(".")).unwrap();
        assert_eq!(b, [0.5f32.to_le_bytes(), 0.5f32.to_le_bytes()].concat());
        assert!(materialize(DType::F32, None, Some(&f), Path::new(".")).is_err());
        let v = Init::Values(vec![Num::Int(1), Num::Int(2)]);
        assert!(materialize(DType::U32, Some(3), Some(&v), Path::new(".")).is_err());
        assert_eq!(
            materialize(DType::U32, None, Some(&v), Path::new("."))
                .unwrap()
                .len(),
            8
        );
    }
}
