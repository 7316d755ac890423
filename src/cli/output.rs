//! Reports (text and `--json`) and output files (`--dump`, `--png`).

use crate::case::{CaseError, CaseResult, DType, HostBuffer, TimeStats};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Differences printed per failing buffer in text reports.
const SHOW_MISMATCHES: usize = 5;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// How a comparison names an element: `index 17`, or `sorted index 17` when both sides were
/// sorted first (`order = "any"`).
pub fn index_word(c: &crate::case::Comparison) -> &'static str {
    if c.sorted {
        "sorted index"
    } else {
        "index"
    }
}

/// The text report: `PASS name` / `FAIL name: index I: got G, want W` lines, then times
/// (and, for a pipeline, each launch's). `prefix` starts every line (`check` uses `[jit] `).
pub fn text_report(r: &CaseResult, prefix: &str) -> String {
    let mut s = String::new();
    for e in &r.expectations {
        let c = &e.comparison;
        if c.passed() {
            s += &format!("{prefix}PASS {}\n", e.buffer);
            continue;
        }
        for m in c.first.iter().take(SHOW_MISMATCHES) {
            s += &format!(
                "{prefix}FAIL {}: {} {}: got {}, want {}\n",
                e.buffer,
                index_word(c),
                m.index,
                m.got,
                m.want
            );
        }
        let order = if c.sorted { ", any order" } else { "" };
        s += &format!(
            "{prefix}FAIL {}: {} of {} elements differ (tolerance {}{order})\n",
            e.buffer, c.mismatches, c.total, e.tolerance
        );
    }
    for (buffer, why) in &r.unchecked {
        s += &format!("{prefix}not checked {buffer}: {why}\n");
    }
    if r.error.is_none() && r.expectations.is_empty() {
        s += &format!(
            "{prefix}ran {} ({} threads), no expectations\n",
            r.kernel, r.threads
        );
    }
    if let Some(c) = r.compile_time {
        let nvrtc = match r.nvrtc_time {
            Some(n) => format!("; NVRTC: {:.3} ms", ms(n)),
            None => String::new(),
        };
        s += &format!(
            "{prefix}compile time: {:.3} ms ({}){nvrtc}\n",
            ms(c),
            r.engine
        );
    }
    if let Some(t) = r.kernel_time() {
        let mut cores = match r.workers {
            1 => "CTAs on 1 worker thread".to_string(),
            n => format!("CTAs on {n} worker threads"),
        };
        if r.thread_instructions > 0 && t.min.as_secs_f64() > 0.0 {
            cores += &format!(
                "; {} thread-instructions, {:.1} M/s",
                r.thread_instructions,
                r.thread_instructions as f64 / t.min.as_secs_f64() / 1e6
            );
        }
        let runs = if r.launches.len() > 1 {
            "runs"
        } else {
            "launches"
        };
        if t.launches == 1 {
            s += &format!("{prefix}kernel time: {:.3} ms ({cores})\n", ms(t.min));
        } else {
            s += &format!(
                "{prefix}kernel time: min {:.3} ms, median {:.3} ms, max {:.3} ms ({} {runs} after 1 warm-up; {cores})\n",
                ms(t.min),
                ms(t.median),
                ms(t.max),
                t.launches
            );
        }
    }
    if r.launches.len() > 1 {
        for (i, l) in r.launches.iter().enumerate() {
            let Some(t) = TimeStats::of(&l.times) else {
                continue;
            };
            s += &if t.launches == 1 {
                format!("{prefix}  launch[{i}] {}: {:.3} ms\n", l.kernel, ms(t.min))
            } else {
                format!(
                    "{prefix}  launch[{i}] {}: min {:.3} ms, median {:.3} ms, max {:.3} ms\n",
                    l.kernel,
                    ms(t.min),
                    ms(t.median),
                    ms(t.max)
                )
            };
        }
    }
    s
}

/// `{"min", "median", "max"}` in ms, or null.
fn json_times(t: Option<TimeStats>) -> Value {
    t.map_or(
        Value::Null,
        |t| json!({"min": ms(t.min), "median": ms(t.median), "max": ms(t.max)}),
    )
}

/// The `--json` object, with exactly the keys of the case format:
/// `case, kernel, engine, compile_ms, kernel_ms {min, median, max}, launches [{kernel,
/// kernel_ms}], results [{buffer, pass, mismatches, first {index, got, want}}], error {kind,
/// message}`.
pub fn json_report(r: &CaseResult) -> Value {
    let results: Vec<Value> = r
        .expectations
        .iter()
        .map(|e| {
            let c = &e.comparison;
            json!({
                "buffer": e.buffer,
                "pass": c.passed(),
                "mismatches": c.mismatches,
                "first": c.first.first().map(|m| json!({"index": m.index, "got": m.got, "want": m.want})),
            })
        })
        .collect();
    json!({
        "case": r.case,
        "kernel": r.kernel,
        "engine": r.engine.to_string(),
        "compile_ms": r.compile_time.map(ms),
        "kernel_ms": json_times(r.kernel_time()),
        "launches": r.launches.iter().map(|l| json!({
            "kernel": l.kernel,
            "kernel_ms": json_times(TimeStats::of(&l.times)),
        })).collect::<Vec<_>>(),
        "results": results,
        "error": r.error.as_ref().map(|e| json!({"kind": e.kind(), "message": e.to_string()})),
    })
}

/// A `--dump NAME=PATH` request.
pub struct DumpReq {
    pub buffer: String,
    pub path: PathBuf,
}

/// A `--png NAME=PATH:WIDTHxHEIGHTxCHANNELS` request.
pub struct PngReq {
    pub buffer: String,
    pub path: PathBuf,
    pub width: u32,
    pub height: u32,
    pub channels: u8,
}

/// Whether a file can be written at `path` as far as can be told without writing it: its
/// directory exists and is a directory, and `path` itself is not a directory. The reason
/// otherwise (`directory /nope does not exist`).
pub fn check_writable(path: &Path) -> Result<(), String> {
    if path.is_dir() {
        return Err("it is a directory".into());
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(format!("{} is not a directory", dir.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(format!("directory {} does not exist", dir.display()))
        }
        Err(e) => Err(format!("directory {}: {e}", dir.display())),
    }
}

pub fn parse_dump(s: &str) -> Result<DumpReq, String> {
    let (name, path) = s
        .split_once('=')
        .ok_or_else(|| format!("--dump '{s}': expected NAME=PATH.npy or NAME=PATH.bin"))?;
    let ext = Path::new(path).extension().and_then(|e| e.to_str());
    if name.is_empty() || !matches!(ext, Some("npy" | "bin")) {
        return Err(format!(
            "--dump '{s}': expected NAME=PATH.npy or NAME=PATH.bin"
        ));
    }
    Ok(DumpReq {
        buffer: name.into(),
        path: path.into(),
    })
}

pub fn parse_png(s: &str) -> Result<PngReq, String> {
    let bad = |what: &str| {
        format!(
            "--png '{s}': {what}; expected NAME=PATH:WIDTHxHEIGHTxCHANNELS (e.g. img=out.png:640x480x4)"
        )
    };
    let (name, rest) = s
        .split_once('=')
        .ok_or_else(|| bad("no '=' after the buffer name"))?;
    if name.is_empty() {
        return Err(bad("no buffer name before '='"));
    }
    let (path, dims) = rest
        .rsplit_once(':')
        .ok_or_else(|| bad("no ':' before the size"))?;
    if path.is_empty() {
        return Err(bad("no file name before the size"));
    }
    let parts: Vec<&str> = dims.split('x').collect();
    let [w, h, c] = parts[..] else {
        return Err(bad(&format!(
            "the size '{dims}' has {} of the 3 numbers WIDTH, HEIGHT and CHANNELS",
            parts.len()
        )));
    };
    let num = |what: &str, v: &str| -> Result<u32, String> {
        match v.parse::<u32>() {
            Ok(0) => Err(bad(&format!("{what} must be at least 1"))),
            Ok(n) => Ok(n),
            Err(_) => Err(bad(&format!(
                "{what} '{v}' is not a whole number from 1 to {}",
                u32::MAX
            ))),
        }
    };
    let (width, height, channels) = (num("WIDTH", w)?, num("HEIGHT", h)?, num("CHANNELS", c)?);
    if channels > 4 {
        return Err(format!(
            "--png '{s}': CHANNELS must be 1 (gray), 2 (gray+alpha), 3 (RGB) or 4 (RGBA)"
        ));
    }
    Ok(PngReq {
        buffer: name.into(),
        path: path.into(),
        width,
        height,
        channels: channels as u8,
    })
}

pub fn write_dump(req: &DumpReq, bufs: &[HostBuffer]) -> Result<(), CaseError> {
    let b = find(bufs, &req.buffer)?;
    crate::case::data::write_file(&req.path, b.dtype, &b.bytes)
        .map_err(|e| CaseError::Io(format!("--dump {}: {e}", req.buffer)))
}

pub fn write_png(req: &PngReq, bufs: &[HostBuffer]) -> Result<(), CaseError> {
    let b = find(bufs, &req.buffer)?;
    let io = |m: String| CaseError::Io(format!("--png {}: {m}", req.buffer));
    let n = req.width as usize * req.height as usize * req.channels as usize;
    if n != b.len() {
        return Err(io(format!(
            "{}x{}x{} is {n} elements; the buffer has {} (the image must cover it exactly)",
            req.width,
            req.height,
            req.channels,
            b.len()
        )));
    }
    let pixels: Vec<u8> = match b.dtype {
        DType::U8 => b.bytes[..n].to_vec(),
        DType::F32 => b.bytes[..4 * n]
            .chunks_exact(4)
            .map(|c| {
                let v = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                (v.clamp(0.0, 1.0) * 255.0).round() as u8 // NaN clamps to NaN, which casts to 0
            })
            .collect(),
        t => {
            return Err(io(format!(
                "a PNG needs a u8 buffer or an f32 buffer in [0, 1]; this one is {t}"
            )))
        }
    };
    let file = std::fs::File::create(&req.path)
        .map_err(|e| io(format!("cannot write {}: {e}", req.path.display())))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), req.width, req.height);
    enc.set_color(match req.channels {
        1 => png::ColorType::Grayscale,
        2 => png::ColorType::GrayscaleAlpha,
        3 => png::ColorType::Rgb,
        _ => png::ColorType::Rgba,
    });
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(|e| io(e.to_string()))?;
    w.write_image_data(&pixels).map_err(|e| io(e.to_string()))?;
    w.finish().map_err(|e| io(e.to_string()))
}

fn find<'a>(bufs: &'a [HostBuffer], name: &str) -> Result<&'a HostBuffer, CaseError> {
    bufs.iter()
        .find(|b| b.name == name)
        .ok_or_else(|| CaseError::Io(format!("no buffer named '{name}' to write")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_specs() {
        let d = parse_dump("y=out/y.npy").unwrap();
        assert_eq!(
            (d.buffer.as_str(), d.path.to_str().unwrap()),
            ("y", "out/y.npy")
        );
        assert!(parse_dump("y=out/y.txt").is_err());
        assert!(parse_dump("y").is_err());
        let p = parse_png("img=C:/x/a.png:640x480x4").unwrap();
        assert_eq!(
            (p.path.to_str().unwrap(), p.width, p.height, p.channels),
            ("C:/x/a.png", 640, 480, 4)
        );
        assert!(parse_png("img=a.png:640x480").is_err());
        assert!(parse_png("img=a.png:640x480x5").is_err());
        for (arg, why) in [
            ("a.png:4x4x1", "no '=' after the buffer name"),
            ("=a.png:4x4x1", "no buffer name"),
            ("img=a.png", "no ':' before the size"),
            ("img=:4x4x1", "no file name"),
            ("img=a.png:4x4", "the size '4x4' has 2 of the 3 numbers"),
            ("img=a.png:0x4x1", "WIDTH must be at least 1"),
            ("img=a.png:4x-4x1", "HEIGHT '-4' is not a whole number"),
            (
                "img=a.png:4x4x99999999999",
                "CHANNELS '99999999999' is not a whole number",
            ),
            ("img=a.png:4x4x5", "CHANNELS must be 1 (gray)"),
        ] {
            let e = parse_png(arg).err().unwrap_or_default();
            assert!(
                e.starts_with(&format!("--png '{arg}': ")) && e.contains(why),
                "{arg}: {e}"
            );
        }
    }

    #[test]
    fn png_roundtrip() {
        let dir = std::env::temp_dir().join(format!("ptxjit-png-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.png");
        let bufs = vec![HostBuffer {
            name: "img".into(),
            dtype: DType::F32,
            bytes: [0.0f32, 0.5, 1.0, 2.0]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
        }];
        let req = PngReq {
            buffer: "img".into(),
            path: path.clone(),
            width: 2,
            height: 2,
            channels: 1,
        };
        write_png(&req, &bufs).unwrap();
        let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
        let mut r = dec.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        r.next_frame(&mut buf).unwrap();
        assert_eq!(&buf[..4], &[0, 128, 255, 255]);
        std::fs::remove_dir_all(&dir).ok();
    }
}
