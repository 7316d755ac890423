//! Run every real kernel of `ptx-tests/kernels` through the interpreter and compare with the
//! host reference's expected outputs (exact, bit for bit). A small case reader covering what
//! those cases use (scalar and buffer args, `file` inits, zero-filled buffers, exact
//! expectations); the full case runner lives with the CLI.

use crate::runtime::{Context, DevicePtr, Engine, KernelArg, LaunchDims, LaunchOptions};
use std::collections::BTreeMap;
use std::path::Path;

/// The raw little-endian data of a `.npy` file (C order), and its dtype descriptor.
fn read_npy(path: &Path) -> Result<(String, Vec<u8>), String> {
    let b = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
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

/// Run one case; Ok(summary) when every expectation holds.
fn run_case(dir: &Path, case: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(case).map_err(|e| e.to_string())?;
    let t: toml::Value = toml::from_str(&text).map_err(|e| e.to_string())?;
    let s = |k: &str| {
        t.get(k)
            .and_then(|v| v.as_str())
            .ok_or(format!("missing {k}"))
    };
    let ptx_name = s("ptx")?;
    let ptx = std::fs::read_to_string(dir.join(ptx_name)).map_err(|e| e.to_string())?;
    let mut ctx = Context::new();
    let module = ctx
        .load_module(&ptx, ptx_name, Engine::Interp)
        .map_err(|e| format!("load: {e}"))?;
    let kernel = module.kernel(s("kernel")?).map_err(|e| e.to_string())?;

    let mut bufs: BTreeMap<String, (DevicePtr, usize, String)> = BTreeMap::new();
    if let Some(tb) = t.get("buffers").and_then(|v| v.as_table()) {
        for (name, b) in tb {
            let ty = b
                .get("type")
                .and_then(|v| v.as_str())
                .ok_or("buffer type")?;
            let es = elem_size(ty).ok_or(format!("type {ty}"))?;
            let data = match b.get("init") {
                None => {
                    let len = b.get("len").and_then(|v| v.as_integer()).ok_or("len")?;
                    vec![0u8; len as usize * es]
                }
                Some(init) => {
                    let f = init
                        .get("file")
                        .and_then(|v| v.as_str())
                        .ok_or(format!("buffer {name}: only file inits are supported here"))?;
                    read_npy(&dir.join(f))?.1
                }
            };
            let p = ctx
                .alloc(data.len() as u64, Some(name))
                .map_err(|e| e.to_string())?;
            ctx.copy_htod(p, &data).map_err(|e| e.to_string())?;
            bufs.insert(name.clone(), (p, data.len(), ty.to_string()));
        }
    }
    let mut args = vec![];
    for a in t.get("args").and_then(|v| v.as_array()).ok_or("args")? {
        let (k, v) = a.as_table().and_then(|t| t.iter().next()).ok_or("arg")?;
        let int = || v.as_integer().ok_or(format!("arg {k}"));
        let float = || {
            v.as_float()
                .or(v.as_integer().map(|i| i as f64))
                .ok_or(format!("arg {k}"))
        };
        args.push(match k.as_str() {
            "u8" => KernelArg::U8(int()? as u8),
            "u16" => KernelArg::U16(int()? as u16),
            "u32" => KernelArg::U32(int()? as u32),
            "u64" => KernelArg::U64(int()? as u64),
            "s8" => KernelArg::S8(int()? as i8),
            "s16" => KernelArg::S16(int()? as i16),
            "s32" => KernelArg::S32(int()? as i32),
            "s64" => KernelArg::S64(int()?),
            "f32" => KernelArg::F32(float()? as f32),
            "f64" => KernelArg::F64(float()?),
            "buffer" => {
                let name = v.as_str().ok_or("buffer name")?;
                KernelArg::Ptr(bufs.get(name).ok_or(format!("no buffer {name}"))?.0)
            }
            other => return Err(format!("arg kind {other}")),
        });
    }
    let dims = LaunchDims {
        grid: dims3(t.get("grid"))?,
        block: dims3(t.get("block"))?,
        shared_bytes: t
            .get("shared_bytes")
            .and_then(|v| v.as_integer())
            .unwrap_or(0) as u32,
    };
    let report = ctx
        .launch(&kernel, dims, &args, &LaunchOptions::default())
        .map_err(|e| format!("launch: {e}"))?;
    let mut summary = vec![];
    for (name, e) in t.get("expect").and_then(|v| v.as_table()).ok_or("expect")? {
        let tol = e
            .get("tolerance")
            .and_then(|v| v.as_str())
            .unwrap_or("exact");
        if tol != "exact" {
            return Err(format!("expect.{name}: tolerance {tol} not supported here"));
        }
        let f = e
            .get("file")
            .and_then(|v| v.as_str())
            .ok_or("expect file")?;
        let (_, want) = read_npy(&dir.join(f))?;
        let (p, len, ty) = bufs.get(name).ok_or(format!("no buffer {name}"))?;
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
        summary.push(format!("{name} ({} elements)", len / es));
    }
    Ok(format!("{} in {:?}", summary.join(", "), report.elapsed))
}

#[test]
fn real_kernels_match_expected_outputs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx-tests/kernels");
    let Ok(entries) = std::fs::read_dir(&root) else {
        panic!("no kernel corpus at {}", root.display());
    };
    let mut dirs: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    dirs.sort();
    let mut failures = vec![];
    for dir in dirs {
        let Some(name) = dir.file_name().and_then(|n| n.to_str()).map(str::to_string) else {
            continue;
        };
        let case = dir.join(format!("{name}.toml"));
        if !case.exists() {
            continue;
        }
        match run_case(&dir, &case) {
            Ok(s) => eprintln!("PASS {name}: {s}"),
            Err(e) => {
                eprintln!("FAIL {name}: {e}");
                failures.push(name);
            }
        }
    }
    assert!(failures.is_empty(), "failing kernels: {failures:?}");
}
