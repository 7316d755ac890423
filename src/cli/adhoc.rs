//! The ad-hoc form of `ptxjit run`: build an in-memory case from `--ptx/--kernel/--grid/
//! --block/--arg` and `--expect` (syntax in `ptxjit run --help` and docs/case-format.md).

use crate::case::spec::{Iota, Random};
use crate::case::{
    AdHocNames, Arg, BufferSpec, Case, CaseError, CaseSpec, CheckMode, DType, Dims, ExpectSpec,
    Init, LaunchSpec, Num, Order, Origin, Scalar, Tolerance,
};
use indexmap::IndexMap;
use std::path::Path;

/// The launch as given on the command line.
pub struct AdHoc<'a> {
    pub ptx: &'a Path,
    pub kernel: Option<&'a str>,
    pub grid: Option<&'a str>,
    pub block: Option<&'a str>,
    pub shared_bytes: u32,
    /// `--max-dynamic-shared-bytes`: the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize.
    pub max_dynamic_shared_bytes: Option<u32>,
    pub args: &'a [String],
    /// `NAME=FILE[:TOLERANCE]` expectations.
    pub expect: &'a [String],
}

/// Build the case (named after the PTX file; paths relative to the current directory).
/// Errors are [`CaseError::Case`] naming the option as written (`--arg 3 (buf:x:f32:8=iota): …`,
/// `--expect (y=y.npy): …`), and so are the case's later errors ([`crate::case::Origin::AdHoc`]).
pub fn build(a: &AdHoc) -> Result<Case, CaseError> {
    let need = |v: Option<&str>, flag: &str| {
        v.map(str::to_string)
            .ok_or_else(|| CaseError::Case(format!("--ptx needs {flag} too")))
    };
    let kernel = need(a.kernel, "--kernel NAME")?;
    let grid = parse_dims(&need(a.grid, "--grid X[,Y[,Z]]")?)
        .map_err(|e| CaseError::Case(format!("--grid: {e}")))?;
    let block = parse_dims(&need(a.block, "--block X[,Y[,Z]]")?)
        .map_err(|e| CaseError::Case(format!("--block: {e}")))?;
    let mut buffers = IndexMap::new();
    let mut args = vec![];
    for (i, s) in a.args.iter().enumerate() {
        args.push(
            parse_arg(s, &mut buffers)
                .map_err(|e| CaseError::Case(format!("--arg {} ({s}): {e}", i + 1)))?,
        );
    }
    let mut spec = CaseSpec::single(LaunchSpec {
        ptx: a.ptx.display().to_string(),
        kernel,
        grid,
        block,
        shared_bytes: a.shared_bytes,
        args,
        cooperative: false,
        cluster: None,
    });
    spec.buffers = buffers;
    spec.max_dynamic_shared_bytes = a.max_dynamic_shared_bytes;
    let mut expects = Vec::with_capacity(a.expect.len());
    for s in a.expect {
        let (name, e) =
            parse_expect(s).map_err(|e| CaseError::Case(format!("--expect ({s}): {e}")))?;
        if !spec.buffers.contains_key(&name) {
            let names: Vec<&str> = spec.buffers.keys().map(String::as_str).collect();
            return Err(CaseError::Case(format!(
                "--expect ({s}): no buffer named '{name}' (buffers declared with --arg buf:..: {})",
                names.join(", ")
            )));
        }
        if spec.expect.insert(name.clone(), e).is_some() {
            return Err(CaseError::Case(format!(
                "--expect ({s}): buffer '{name}' has two --expect"
            )));
        }
        expects.push((name, s.clone()));
    }
    let origin = Origin::AdHoc(AdHocNames {
        args: a.args.to_vec(),
        expects,
    });
    Case::from_spec(spec, &a.ptx.display().to_string(), Path::new(""), origin)
}

/// One `--expect NAME=FILE[:TOLERANCE]`: FILE is `.npy` or `.bin` (relative to the current
/// directory); TOLERANCE is the case format's, without the braces: `exact`, `abs=1e-6`,
/// `rel=1e-5,ulp=2` (a TOML inline table's keys; `{ abs = 1e-6 }` works too).
pub fn parse_expect(s: &str) -> Result<(String, ExpectSpec), String> {
    let usage = "expected NAME=FILE.npy[:TOLERANCE] (TOLERANCE: exact, abs=A, rel=R, ulp=U, or several: abs=A,rel=R)";
    let (name, rest) = s.split_once('=').ok_or(usage)?;
    if name.is_empty() || rest.is_empty() {
        return Err(usage.into());
    }
    // The file ends at its extension; a `:` after it starts the tolerance (a path may hold
    // `:` itself, as in `C:/data/y.npy`).
    let (file, tol) = match rest.rsplit_once(':') {
        Some((f, t)) if has_data_ext(f) => (f, Some(t)),
        _ => (rest, None),
    };
    if !has_data_ext(file) {
        return Err(format!("'{file}' is not a .npy or .bin file; {usage}"));
    }
    let tolerance = match tol {
        None => Tolerance::default(),
        Some(t) => parse_tolerance(t)?,
    };
    Ok((
        name.to_string(),
        ExpectSpec {
            file: Some(file.to_string()),
            values: None,
            tolerance,
            order: Order::Index,
            check: CheckMode::Exact,
        },
    ))
}

fn has_data_ext(f: &str) -> bool {
    matches!(
        Path::new(f).extension().and_then(|e| e.to_str()),
        Some("npy" | "bin")
    )
}

/// A tolerance in the case format's syntax: `exact`, or the keys of its table, with or
/// without the braces (`abs=1e-6,rel=1e-5`, `{ ulp = 2 }`).
fn parse_tolerance(t: &str) -> Result<Tolerance, String> {
    let t = t.trim();
    let value = if t == "exact" || t == "\"exact\"" {
        "\"exact\"".to_string()
    } else if t.starts_with('{') {
        t.to_string()
    } else {
        format!("{{ {t} }}")
    };
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct W {
        tolerance: Tolerance,
    }
    toml::from_str::<W>(&format!("tolerance = {value}"))
        .map(|w| w.tolerance)
        .map_err(|e| format!("tolerance '{t}': {}", e.message().trim_end()))
}

/// `X[,Y[,Z]]`.
pub fn parse_dims(s: &str) -> Result<Dims, String> {
    let v = s
        .split(',')
        .map(|d| {
            let d = d.trim();
            d.parse::<u32>().map_err(|e| {
                if *e.kind() == std::num::IntErrorKind::PosOverflow {
                    format!(
                        "dimension '{d}' is out of range: more than {} (a grid or block \
                         dimension is a 32-bit count)",
                        u32::MAX
                    )
                } else {
                    format!("'{d}' is not a dimension (expected X[,Y[,Z]])")
                }
            })
        })
        .collect::<Result<Vec<u32>, String>>()?;
    Dims::from_slice(&v)
}

/// One `--arg`: `TYPE=VALUE`, `buf:NAME:TYPE[:LEN][=INIT]` or `ptr:NAME[+BYTES]`.
pub fn parse_arg(s: &str, buffers: &mut IndexMap<String, BufferSpec>) -> Result<Arg, String> {
    if let Some(rest) = s.strip_prefix("buf:") {
        let (decl, init) = match rest.split_once('=') {
            Some((d, i)) => (d, Some(i)),
            None => (rest, None),
        };
        let parts: Vec<&str> = decl.split(':').collect();
        let (name, ty, len) = match parts[..] {
            [n, t] => (n, t, None),
            [n, t, l] => (n, t, Some(l)),
            _ => return Err("expected buf:NAME:TYPE[:LEN][=INIT]".into()),
        };
        if name.is_empty() {
            return Err("the buffer needs a name".into());
        }
        if buffers.contains_key(name) {
            return Err(format!(
                "buffer '{name}' is declared twice (use ptr:{name} to pass it again)"
            ));
        }
        let dtype = DType::parse(ty).ok_or_else(|| {
            format!(
                "unknown type '{ty}' (types: {})",
                crate::case::dtype::DTYPE_NAMES
            )
        })?;
        let len = len
            .map(|l| {
                l.parse::<u64>()
                    .map_err(|_| format!("'{l}' is not a length"))
            })
            .transpose()?;
        let init = init.map(parse_init).transpose()?.flatten();
        buffers.insert(
            name.to_string(),
            BufferSpec {
                dtype,
                len,
                init,
                symbol: None,
            },
        );
        return Ok(Arg::Buffer {
            name: name.to_string(),
            offset: 0,
        });
    }
    if let Some(rest) = s.strip_prefix("ptr:") {
        let (name, offset) = match rest.split_once('+') {
            Some((n, o)) => (
                n,
                o.parse::<u64>()
                    .map_err(|_| format!("'{o}' is not a byte offset"))?,
            ),
            None => (rest, 0),
        };
        if !buffers.contains_key(name) {
            return Err(format!(
                "no buffer named '{name}' declared before it (declare it with buf:{name}:TYPE:LEN)"
            ));
        }
        return Ok(Arg::Buffer {
            name: name.to_string(),
            offset,
        });
    }
    let (ty, v) = s
        .split_once('=')
        .ok_or("expected TYPE=VALUE, buf:NAME:TYPE[:LEN][=INIT] or ptr:NAME[+BYTES]")?;
    Scalar::new(ty, Num::parse(v)?).map(Arg::Scalar)
}

/// `zero | fill:V | iota[:START[:STEP]] | random:SEED[:MIN:MAX] | values:V,.. | file:PATH`.
fn parse_init(s: &str) -> Result<Option<Init>, String> {
    let (kind, rest) = match s.split_once(':') {
        Some((k, r)) => (k, Some(r)),
        None => (s, None),
    };
    let nums = |r: &str| r.split(',').map(Num::parse).collect::<Result<Vec<_>, _>>();
    let fields = |r: Option<&str>| {
        r.map(|r| r.split(':').map(str::to_string).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    Ok(Some(match kind {
        "zero" if rest.is_none() => return Ok(None),
        "fill" => Init::Fill(Num::parse(rest.ok_or("fill:V needs a value")?)?),
        "iota" => {
            let f = fields(rest);
            if f.len() > 2 {
                return Err("expected iota[:START[:STEP]]".into());
            }
            let get = |i: usize, d: i128| f.get(i).map(|x| Num::parse(x)).unwrap_or(Ok(Num::Int(d)));
            Init::Iota(Iota { start: get(0, 0)?, step: get(1, 1)? })
        }
        "random" => {
            let f = fields(rest);
            let seed = |x: &str| x.parse::<u64>().map_err(|_| format!("'{x}' is not a seed (an integer >= 0)"));
            match &f[..] {
                [s] => Init::Random(Random { seed: seed(s)?, min: None, max: None }),
                [s, lo, hi] => Init::Random(Random {
                    seed: seed(s)?,
                    min: Some(Num::parse(lo)?),
                    max: Some(Num::parse(hi)?),
                }),
                _ => return Err("expected random:SEED or random:SEED:MIN:MAX".into()),
            }
        }
        "values" => Init::Values(nums(rest.ok_or("values:V1,V2,... needs values")?)?),
        "file" => Init::File(rest.filter(|r| !r.is_empty()).ok_or("file:PATH needs a path")?.to_string()),
        _ => return Err(format!("unknown init '{s}' (zero, fill:V, iota[:START[:STEP]], random:SEED[:MIN:MAX], values:V1,V2,.., file:PATH)")),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_and_scalar_specs() {
        let mut b = IndexMap::new();
        assert_eq!(
            parse_arg("u32=1024", &mut b).unwrap(),
            Arg::Scalar(Scalar::U32(1024))
        );
        assert_eq!(
            parse_arg("f32=-2.5", &mut b).unwrap(),
            Arg::Scalar(Scalar::F32(-2.5))
        );
        assert_eq!(
            parse_arg("buf:x:f32:8=iota", &mut b).unwrap(),
            Arg::Buffer {
                name: "x".into(),
                offset: 0
            }
        );
        assert_eq!(
            b["x"].init,
            Some(Init::Iota(Iota {
                start: Num::Int(0),
                step: Num::Int(1)
            }))
        );
        parse_arg("buf:y:f32:8=fill:1.5", &mut b).unwrap();
        assert_eq!(b["y"].init, Some(Init::Fill(Num::Float(1.5))));
        parse_arg("buf:z:s32:4=random:7:-3:3", &mut b).unwrap();
        assert_eq!(
            b["z"].init,
            Some(Init::Random(Random {
                seed: 7,
                min: Some(Num::Int(-3)),
                max: Some(Num::Int(3))
            }))
        );
        parse_arg("buf:v:u8=values:1,2,3", &mut b).unwrap();
        assert_eq!(b["v"].len, None);
        parse_arg("buf:f:f32=file:C:/data/x.npy", &mut b).unwrap();
        assert_eq!(b["f"].init, Some(Init::File("C:/data/x.npy".into())));
        parse_arg("buf:o:u32:4", &mut b).unwrap();
        assert_eq!(b["o"].init, None);
        assert_eq!(
            parse_arg("ptr:x+16", &mut b).unwrap(),
            Arg::Buffer {
                name: "x".into(),
                offset: 16
            }
        );
    }

    #[test]
    fn bad_specs_say_why() {
        let mut b = IndexMap::new();
        let e = |s: &str, b: &mut IndexMap<String, BufferSpec>| parse_arg(s, b).unwrap_err();
        assert!(e("u32=abc", &mut b).contains("not a number"));
        assert!(e("u8=256", &mut b).contains("out of range"));
        assert!(e("q32=1", &mut b).contains("unknown argument type 'q32'"));
        assert!(e("buf:x:f31:4", &mut b).contains("unknown type 'f31'"));
        assert!(e("buf:x:f32:4=sparkle", &mut b).contains("unknown init"));
        assert!(e("ptr:nope", &mut b).contains("no buffer named 'nope'"));
        assert!(e("1024", &mut b).contains("expected TYPE=VALUE"));
        assert_eq!(parse_dims("4,2").unwrap(), Dims([4, 2, 1]));
        assert!(parse_dims("4,x").is_err());
        assert!(parse_dims("1,1,1,1").is_err());
    }

    #[test]
    fn expect_specs() {
        let (n, e) = parse_expect("y=out/y_expected.npy").unwrap();
        assert_eq!(
            (n.as_str(), e.file.as_deref(), e.tolerance),
            ("y", Some("out/y_expected.npy"), Tolerance::default())
        );
        let (_, e) = parse_expect("y=C:/data/y.npy:abs=1e-6,rel=1e-5").unwrap();
        assert_eq!(e.file.as_deref(), Some("C:/data/y.npy"));
        assert_eq!(
            e.tolerance,
            Tolerance {
                abs: Some(1e-6),
                rel: Some(1e-5),
                ulp: None
            }
        );
        let (_, e) = parse_expect("y=y.bin:{ ulp = 2 }").unwrap();
        assert_eq!(e.tolerance.ulp, Some(2));
        let (_, e) = parse_expect("y=y.npy:exact").unwrap();
        assert!(e.tolerance.is_exact());
        let err = |s: &str| parse_expect(s).unwrap_err();
        assert!(err("y").contains("expected NAME=FILE.npy"));
        assert!(err("y=y.txt").contains("not a .npy or .bin file"));
        assert!(
            err("y=y.npy:close").contains("tolerance 'close'"),
            "{}",
            err("y=y.npy:close")
        );
        assert!(
            err("y=y.npy:abs=-1").contains(">= 0"),
            "{}",
            err("y=y.npy:abs=-1")
        );
        assert!(
            err("y=y.npy:abss=1").contains("abss"),
            "{}",
            err("y=y.npy:abss=1")
        );
    }
}
