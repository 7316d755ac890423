//! Run every real kernel of `ptx-tests/kernels` through the interpreter and compare with the
//! host reference's expected outputs (exact, bit for bit). A small case reader covering what
//! those cases use (scalar and buffer args, `file` inits, zero-filled buffers, exact
//! expectations); the full case runner lives with the CLI.

use crate::runtime::{Context, DevicePtr, Engine, KernelArg, LaunchDims, LaunchOptions};
use std::collections::BTreeMap;
use std::path::Path;

/// The raw little-endian data of a `.npy` file (C order), and its dtype descriptor; a `.bin`
/// file is raw little-endian data already (descriptor empty).
fn read_npy(path: &Path) -> Result<(String, Vec<u8>), String> {
    let b = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if path.extension().is_some_and(|e| e == "bin") {
        return Ok((String::new(), b));
    }
    if b.len() < 10 || &b[..6] != b"\x93NUMPY" {
        return Err(format!("{}: not an npy file", path.display()));
    }
    let (hlen, start) = if b[6] == 1 {
        (u16::from_le_bytes([b[8], b[9]]) as usize, 10)
    } else {
        (u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize, 12)
    };
    let header = String::from_utf8_lossy(&b[start..start + hlen]).to_string();
    if header.contains("'fortran_order': True") {
        return Err(format!("{}: Fortran order", path.display()));
    }
    let descr = header
        .split("'descr':")
        .nth(1)
        .and_then(|r| r.split('\'').nth(1))
        .unwrap_or("")
        .to_string();
    Ok((descr, b[start + hlen..].to_vec()))
}

fn elem_size(ty: &str) -> Option<usize> {
    Some(match ty {
        "u8" | "s8" => 1,
        "u16" | "s16" | "f16" | "bf16" => 2,
        "u32" | "s32" | "f32" => 4,
        "u64" | "s64" | "f64" => 8,
        _ => return None,
    })
}

fn dims3(v: Option<&toml::Value>) -> Result<[u32; 3], String> {
    let a = v.and_then(|v| v.as_array()).ok_or("missing grid/block")?;
    let mut d = [1u32; 3];
    for (k, x) in a.iter().enumerate().take(3) {
        d[k] = x.as_integer().ok_or("bad dimension")? as u32;
    }
    Ok(d)
}

/// The little-endian bytes of `v` as one element of type `ty`.
fn elem_bytes(ty: &str, v: f64, i: Option<i128>) -> Vec<u8> {
    let int = i.unwrap_or(v as i128);
    match ty {
        "u8" | "s8" => vec![int as u8],
        "u16" | "s16" => (int as u16).to_le_bytes().to_vec(),
        "u32" | "s32" => (int as u32).to_le_bytes().to_vec(),
        "u64" | "s64" => (int as u64).to_le_bytes().to_vec(),
        "f16" => half::f16::from_f64(v).to_le_bytes().to_vec(),
        "bf16" => half::bf16::from_f64(v).to_le_bytes().to_vec(),
        "f32" => (v as f32).to_le_bytes().to_vec(),
        _ => v.to_le_bytes().to_vec(),
    }
}

fn num(v: &toml::Value) -> Result<(f64, Option<i128>), String> {
    match v {
        toml::Value::Integer(i) => Ok((*i as f64, Some(*i as i128))),
        toml::Value::Float(f) => Ok((*f, None)),
        other => Err(format!("not a number: {other}")),
    }
}

/// The values of a `values = [..]` list as bytes of type `ty`. Strings (`"0x…"`, `"-0.0"`,
/// PTX float bits `"0f…"`) go through the case format's own number parser and encoder.
fn values_bytes(ty: &str, v: &toml::Value) -> Result<Vec<u8>, String> {
    use crate::case::dtype::{DType, Num};
    let a = v.as_array().ok_or("values must be a list")?;
    let mut out = vec![];
    for x in a {
        if let toml::Value::String(text) = x {
            let dt = DType::parse(ty).ok_or(format!("type {ty}"))?;
            dt.encode(Num::parse(text)?, &mut out)?;
            continue;
        }
        let (f, i) = num(x)?;
        out.extend(elem_bytes(ty, f, i));
    }
    Ok(out)
}

fn init_bytes(dir: &Path, ty: &str, b: &toml::Value) -> Result<Vec<u8>, String> {
    let len = b.get("len").and_then(|v| v.as_integer());
    let es = elem_size(ty).ok_or(format!("type {ty}"))?;
    let Some(init) = b.get("init") else {
        return Ok(vec![0u8; len.ok_or("len")? as usize * es]);
    };
    if let Some(f) = init.get("file").and_then(|v| v.as_str()) {
        return Ok(read_npy(&dir.join(f))?.1);
    }
    if let Some(v) = init.get("values") {
        return values_bytes(ty, v);
    }
    let n = len.ok_or("len")? as usize;
    if let Some(v) = init.get("fill") {
        let (f, i) = num(v)?;
        return Ok((0..n).flat_map(|_| elem_bytes(ty, f, i)).collect());
    }
    if let Some(io) = init.get("iota") {
        let (s, si) = num(io.get("start").ok_or("iota start")?)?;
        let (d, di) = num(io.get("step").ok_or("iota step")?)?;
        return Ok((0..n)
            .flat_map(|k| {
                let exact = si.zip(di).map(|(s, d)| s + d * k as i128);
                elem_bytes(ty, s + d * k as f64, exact)
            })
            .collect());
    }
    Err(format!("unsupported init {init}"))
}

/// Run one case; Ok(summary) when every expectation holds.
fn run_case(case: &Path) -> Result<String, String> {
    let dir = case.parent().ok_or("case directory")?;
    let text = std::fs::read_to_string(case).map_err(|e| e.to_string())?;
    let t: toml::Value = toml::from_str(&text).map_err(|e| e.to_string())?;
    let s = |k: &str| {
        t.get(k)
            .and_then(|v| v.as_str())
            .ok_or(format!("missing {k}"))
    };
    let expect_error = t.get("expect_error");
    let memcheck = expect_error
        .and_then(|e| e.get("memcheck"))
        .or(t.get("memcheck"))
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    // Ok(()) or the error (kind, message) of whichever step failed.
    let mut ctx = Context::new();
    let mut bufs: BTreeMap<String, (DevicePtr, usize, String)> = BTreeMap::new();
    let outcome: Result<String, crate::runtime::Error> = (|| {
        let ptx_name = s("ptx").map_err(crate::runtime::Error::Internal)?;
        let ptx = std::fs::read_to_string(dir.join(ptx_name))
            .map_err(|e| crate::runtime::Error::Internal(e.to_string()))?;
        let module = ctx.load_module(&ptx, ptx_name, Engine::Interp)?;
        let kernel = module.kernel(s("kernel").map_err(crate::runtime::Error::Internal)?)?;
        let bad = |m: String| crate::runtime::Error::Internal(m);
        if let Some(tb) = t.get("buffers").and_then(|v| v.as_table()) {
            for (name, b) in tb {
                let ty = b
                    .get("type")
                    .and_then(|v| v.as_str())
                    .ok_or(bad("type".into()))?;
                let data = init_bytes(dir, ty, b).map_err(bad)?;
                let p = ctx.alloc(data.len() as u64, Some(name))?;
                ctx.copy_htod(p, &data)?;
                bufs.insert(name.clone(), (p, data.len(), ty.to_string()));
            }
        }
        let mut args = vec![];
        for a in t
            .get("args")
            .and_then(|v| v.as_array())
            .ok_or(bad("args".into()))?
        {
            let (k, v) = a
                .as_table()
                .and_then(|t| t.iter().next())
                .ok_or(bad("arg".into()))?;
            let (f, i) = num(v).unwrap_or((0.0, None));
            let int = i.unwrap_or(0);
            args.push(match k.as_str() {
                "u8" => KernelArg::U8(int as u8),
                "u16" => KernelArg::U16(int as u16),
                "u32" => KernelArg::U32(int as u32),
                "u64" => KernelArg::U64(int as u64),
                "s8" => KernelArg::S8(int as i8),
                "s16" => KernelArg::S16(int as i16),
                "s32" => KernelArg::S32(int as i32),
                "s64" => KernelArg::S64(int as i64),
                "f32" => KernelArg::F32(f as f32),
                "f64" => KernelArg::F64(f),
                "buffer" => {
                    let name = v.as_str().ok_or(bad("buffer name".into()))?;
                    let off = a.get("offset").and_then(|o| o.as_integer()).unwrap_or(0);
                    let p = bufs.get(name).ok_or(bad(format!("no buffer {name}")))?.0;
                    KernelArg::Ptr(p.offset(off as u64))
                }
                other => return Err(bad(format!("arg kind {other}"))),
            });
        }
        let dims = LaunchDims {
            grid: dims3(t.get("grid")).map_err(bad)?,
            block: dims3(t.get("block")).map_err(bad)?,
            shared_bytes: t
                .get("shared_bytes")
                .and_then(|v| v.as_integer())
                .unwrap_or(0) as u32,
        };
        let opts = LaunchOptions {
            memcheck,
            ..Default::default()
        };
        let report = ctx.launch(&kernel, dims, &args, &opts)?;
        Ok(format!("{:?}", report.elapsed))
    })();
    let mut summary = vec![];
    match (outcome, expect_error) {
        (Ok(time), None) => summary.push(time),
        (Err(e), None) => return Err(format!("{}: {e}", e.kind())),
        (Ok(_), Some(_)) => return Err("expected an error, the launch succeeded".into()),
        (Err(e), Some(want)) => {
            let kind = want.get("kind").and_then(|v| v.as_str()).unwrap_or("");
            let contains = want.get("contains").and_then(|v| v.as_str()).unwrap_or("");
            let msg = e.to_string();
            if e.kind() != kind || !msg.contains(contains) {
                return Err(format!(
                    "expected {kind} error containing '{contains}', got {}: {msg}",
                    e.kind()
                ));
            }
            summary.push(format!("{kind} error as expected"));
        }
    }
    if let Some(expect) = t.get("expect").and_then(|v| v.as_table()) {
        for (name, e) in expect {
            let tol = e
                .get("tolerance")
                .and_then(|v| v.as_str())
                .unwrap_or("exact");
            if tol != "exact" {
                return Err(format!("expect.{name}: tolerance {tol} not supported here"));
            }
            let (p, len, ty) = bufs.get(name).ok_or(format!("no buffer {name}"))?;
            let want = match (e.get("file").and_then(|v| v.as_str()), e.get("values")) {
                (Some(f), _) => read_npy(&dir.join(f))?.1,
                (None, Some(v)) => values_bytes(ty, v)?,
                (None, None) => return Err(format!("expect.{name}: no file or values")),
            };
            let mut got = vec![0u8; *len];
            ctx.copy_dtoh(&mut got, *p).map_err(|e| e.to_string())?;
            if got.len() != want.len() {
                return Err(format!(
                    "{name}: {} bytes, expected {}",
                    got.len(),
                    want.len()
                ));
            }
            let es = elem_size(ty).unwrap_or(1);
            let bad: Vec<usize> = (0..len / es)
                .filter(|&i| got[i * es..(i + 1) * es] != want[i * es..(i + 1) * es])
                .collect();
            if let Some(&i) = bad.first() {
                return Err(format!(
                    "{name}: {} of {} elements differ; first at {i}: got {:02x?}, want {:02x?}",
                    bad.len(),
                    len / es,
                    &got[i * es..(i + 1) * es],
                    &want[i * es..(i + 1) * es]
                ));
            }
            summary.push(format!("{name} ({} elements) exact", len / es));
        }
    }
    Ok(summary.join(", "))
}

/// Every case file under `ptx-tests/{kernels/*, sandbox, errors}`.
fn case_files() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx-tests");
    let mut dirs = vec![root.join("sandbox"), root.join("errors")];
    if let Ok(entries) = std::fs::read_dir(root.join("kernels")) {
        dirs.extend(entries.filter_map(|e| e.ok()).map(|e| e.path()));
    }
    let mut cases = vec![];
    for d in dirs {
        if let Ok(entries) = std::fs::read_dir(&d) {
            cases.extend(
                entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "toml")),
            );
        }
    }
    cases.sort();
    cases
}

#[test]
fn real_kernels_match_expected_outputs() {
    let cases = case_files();
    assert!(!cases.is_empty(), "no cases under ptx-tests");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx-tests");
    let mut failures = vec![];
    for case in cases {
        let name = case
            .strip_prefix(&root)
            .unwrap_or(&case)
            .display()
            .to_string();
        match run_case(&case) {
            Ok(s) => eprintln!("PASS {name}: {s}"),
            Err(e) => {
                eprintln!("FAIL {name}: {e}");
                failures.push(name);
            }
        }
    }
    assert!(failures.is_empty(), "failing cases: {failures:?}");
}
