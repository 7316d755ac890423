use super::*;

fn parse(text: &str) -> Result<Case, CaseError> {
    Case::parse(text, "t.toml", Path::new("."))
}

const HEAD: &str = "ptx = \"k.ptx\"\nkernel = \"k\"\ngrid = [2]\nblock = [32, 2]\n";

#[test]
fn minimal_case() {
    let c = parse(&format!("{HEAD}args = [{{ u32 = 5 }}, {{ buffer = \"x\", offset = 8 }}, {{ f32 = 2 }}]\n[buffers.x]\ntype = \"f32\"\nlen = 4\n")).unwrap();
    let l = &c.spec.launches[0];
    assert_eq!((c.spec.launches.len(), c.spec.pipeline), (1, false));
    assert_eq!(l.grid, Dims([2, 1, 1]));
    assert_eq!(l.block, Dims([32, 2, 1]));
    assert_eq!(c.threads(), 128);
    assert_eq!(
        l.args,
        vec![
            Arg::Scalar(Scalar::U32(5)),
            Arg::Buffer {
                name: "x".into(),
                offset: 8
            },
            Arg::Scalar(Scalar::F32(2.0))
        ]
    );
}

#[test]
fn errors_name_file_line_and_key() {
    let e = parse(&format!("{HEAD}[buffers.x]\ntype = \"f31\"\nlen = 4\n"))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("t.toml:6:"), "{e}");
    assert!(e.contains("buffers.x.type: unknown type 'f31'"), "{e}");
    let e = parse(&format!("{HEAD}[buffers.x]\ntype = \"f32\"\nlenn = 4\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("buffers.x") && e.contains("lenn"), "{e}");
    // A number beyond TOML's 64-bit integers is a syntax error: the key on its line is named.
    let e = parse(&format!("{HEAD}heap_bytes = 18446744073709551615\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("heap_bytes: number too large"), "{e}");
    // ... under the table whose header precedes it.
    let e = parse(&format!(
        "{HEAD}[buffers.x] # the input\ntype = \"f32\"\nlen = 18446744073709551615\n"
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains(":7:7: buffers.x.len: number too large"), "{e}");
    let e = parse(
        "ptx = \"k.ptx\"\n[[launch]]\nkernel = \"k\"\ngrid = [1]\nblock = [1]\n\
         [[launch]]\nkernel = \"k\"\ngrid = [1]\nblock = [1]\nshared_bytes = 18446744073709551615\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("launch[1].shared_bytes: number too large"),
        "{e}"
    );
    // Inside inline tables and arrays, the whole path to the value.
    for (text, want) in [
        (
            "args = [{ u32 = 1 }, { u64 = 18446744073709551616 }]\n",
            ":5:30: args[1].u64: number too large",
        ),
        (
            "args = [\n  { u32 = 1 }, # n\n  { buffer = \"x,]\" },\n  { s64 = -9223372036854775809 },\n]\n",
            ":8:11: args[2].s64: number too small",
        ),
        (
            "[buffers.x]\ntype = \"u32\"\nlen = 4\ninit = { random = { seed = 99999999999999999999 } }\n",
            ":8:28: buffers.x.init.random.seed: number too large",
        ),
        (
            "[expect.x]\nvalues = [1, [2], 99999999999999999999]\n",
            ":6:19: expect.x.values[2]: number too large",
        ),
        (
            "buffers = { x = { type = \"u8\", len = 99999999999999999999 } }\n",
            ":5:38: buffers.x.len: number too large",
        ),
    ] {
        let e = parse(&format!("{HEAD}{text}")).unwrap_err().to_string();
        assert!(e.contains(want), "{text}: {e}");
    }
    let e = parse("ptx = \"\"\nkernel = \"k\"\ngrid = [1]\nblock = [1]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("t.toml: ptx: must name a PTX or CUDA C++ file"),
        "{e}"
    );
    let e = parse(&format!("{HEAD}gird = [1]\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("gird"), "{e}");
    let e = parse("kernel = \"k\"\ngrid = [1]\nblock = [1]\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("ptx"), "{e}");
    let e = parse(&format!("{HEAD}args = [{{ u8 = 300 }}]\n"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("args[0]") && e.contains("out of range for u8"),
        "{e}"
    );
    let e = parse(&format!("{HEAD}args = [{{ u32 = 1, f32 = 2.0 }}]\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("exactly one key"), "{e}");
    let e = parse(&format!("{HEAD}args = [{{ buffer = \"nope\" }}]\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("args[0]: no buffer named 'nope'"), "{e}");
    let e = parse("ptx = \"k.ptx\"\nkernel = \"k\"\ngrid = [1, 1, 1, 1]\nblock = [1]\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("grid") && e.contains("1 to 3"), "{e}");
    let e = parse(&format!("{HEAD}[buffers.x]\ntype = \"u32\"\nlen = 2\n[expect.x]\nvalues = [1, 2]\ntolerance = \"close\"\n"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("expect.x.tolerance") && e.contains("unknown tolerance 'close'"),
        "{e}"
    );
    let e = parse(&format!("{HEAD}[buffers.x]\ntype = \"f32\"\nlen = 2\n[expect.x]\nvalues = [1, 2]\ntolerance = {{ abs = inf }}\n"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("expect.x.tolerance") && e.contains("abs = inf accepts every value"),
        "{e}"
    );
    let e = parse(&format!(
        "{HEAD}[expect_error]\nkind = \"oops\"\ncontains = \"x\"\n"
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("unknown error kind 'oops'"), "{e}");
    let e = parse(&format!(
        "{HEAD}[expect_error]\nkind = \"sanitizer\"\ncontains = \"x\"\nracecheck_global = true\n"
    ))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("racecheck_global needs tool = \"racecheck\""),
        "{e}"
    );
    let e = parse("ptx = \"k.ptx\"\nkernel = \n")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("t.toml:2:"), "{e}");
    // memcheck = true is tool = "memcheck": another tool with it is a contradiction.
    let e = parse(&format!(
        "{HEAD}[expect_error]\nkind = \"sanitizer\"\ncontains = \"x\"\nmemcheck = true\ntool = \"racecheck\"\n"
    ))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("expect_error.memcheck") && e.contains("tool = \"racecheck\""),
        "{e}"
    );
    parse(&format!(
        "{HEAD}[expect_error]\nkind = \"fault\"\ncontains = \"x\"\nmemcheck = true\ntool = \"memcheck\"\n"
    ))
    .unwrap();
    // `init` is a table with one key; the case format's own words, not serde's.
    let init = |v: &str| {
        parse(&format!(
            "{HEAD}[buffers.x]\ntype = \"f32\"\nlen = 2\ninit = {v}\n"
        ))
        .map_err(|e| e.to_string())
    };
    let e = init("\"iota\"").unwrap_err();
    assert!(
        e.contains("buffers.x.init") && e.contains("write init = { iota = {} }"),
        "{e}"
    );
    let e = init("{ fill = 2.0, values = [1.0] }").unwrap_err();
    assert!(
        e.contains("exactly one key") && e.contains("got 2 (fill, values)"),
        "{e}"
    );
    let e = init("{ bogus = 1 }").unwrap_err();
    assert!(e.contains("unknown init 'bogus'"), "{e}");
    let e = init("{ fill = [1] }").unwrap_err();
    assert!(e.contains("init.fill:"), "{e}");
    let e = init("3").unwrap_err();
    assert!(e.contains("got 3"), "{e}");
    assert_eq!(
        init("{ iota = { step = 2 } }").unwrap().spec.buffers["x"].init,
        Some(Init::Iota(spec::Iota {
            start: dtype::Num::Int(0),
            step: dtype::Num::Int(2)
        }))
    );
    // A name looked up in a section the case does not have says so.
    let e = parse(&format!("{HEAD}args = [{{ texture = \"t\" }}]\n"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no texture named 't' (the case has no [textures.NAME] tables)"),
        "{e}"
    );
}

#[test]
fn init_forms_and_tolerances_parse() {
    let c = parse(&format!(
        "{HEAD}[buffers.a]\ntype = \"f32\"\nlen = 3\ninit = {{ fill = 1.5 }}\n\
         [buffers.b]\ntype = \"u32\"\nlen = 3\ninit = {{ iota = {{ start = 1, step = 2 }} }}\n\
         [buffers.c]\ntype = \"f64\"\nlen = 3\ninit = {{ random = {{ seed = 9, min = -1.0, max = 1.0 }} }}\n\
         [buffers.d]\ntype = \"u64\"\ninit = {{ values = [1, \"0xffffffffffffffff\"] }}\n\
         [expect.a]\nvalues = [1.5, 1.5, 1.5]\ntolerance = {{ abs = 1e-6, rel = 1e-5 }}\n\
         [expect.b]\nvalues = [1, 3, 5]\n\
         [expect.c]\nvalues = [0, 0, 0]\ntolerance = {{ ulp = 2 }}\n"
    ))
    .unwrap();
    let b = &c.spec.buffers;
    assert_eq!(b["a"].init, Some(Init::Fill(Num::Float(1.5))));
    assert_eq!(
        b["d"].init,
        Some(Init::Values(vec![Num::Int(1), Num::Int(u64::MAX as i128)]))
    );
    assert_eq!(
        c.spec.expect["a"].tolerance,
        Tolerance {
            abs: Some(1e-6),
            rel: Some(1e-5),
            ulp: None
        }
    );
    assert!(c.spec.expect["b"].tolerance.is_exact());
    assert_eq!(c.spec.expect["c"].tolerance.ulp, Some(2));
    assert_eq!(b.keys().collect::<Vec<_>>(), ["a", "b", "c", "d"]); // declaration order
}

#[test]
fn texture_tables_are_checked() {
    let dir = std::env::temp_dir().join(format!("ptxjit-tex-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("k.ptx"),
        ".version 7.0\n.target sm_80\n.address_size 64\n",
    )
    .unwrap();
    let text = format!(
        "{HEAD}[buffers.px]\ntype = \"f32\"\nlen = 4\n[textures.img]\nsource = {{ buffer = \"px\" }}\nkind = \"2d\"\n\
         format = \"f32\"\nchannels = 1\nwidth = 2\nheight = 2\naddress = [\"clamp\", \"wrap\"]\nfilter = \"linear\"\n"
    );
    Case::parse(&text, "t.toml", &dir).unwrap();
    let e = Case::parse(&text.replace("\"px\" }", "\"nope\" }"), "t.toml", &dir)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("textures.img.source: no buffer named 'nope'"),
        "{e}"
    );
    let bad = text.replace("\"linear\"", "\"bilinear\"");
    assert!(Case::parse(&bad, "t.toml", &dir)
        .unwrap_err()
        .to_string()
        .contains("textures.img.filter"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn prepare_checks_lengths_and_files() {
    let dir = std::env::temp_dir().join(format!("ptxjit-prep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.ptx"), "").unwrap();
    let p = |extra: &str| {
        Case::parse(&format!("{HEAD}{extra}"), "t.toml", &dir)
            .unwrap()
            .prepare()
    };
    let e = p("[buffers.x]\ntype = \"u32\"\nlen = 3\n[expect.x]\nvalues = [1, 2]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("expect.x: 2 expected elements, but buffer 'x' has 3"),
        "{e}"
    );
    let e = p("[buffers.x]\ntype = \"u32\"\ninit = { file = \"missing.npy\" }\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("buffers.x: cannot read") && e.contains("missing.npy"),
        "{e}"
    );
    let e = p("[buffers.x]\ntype = \"u32\"\ninit = { fill = 1 }\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("'len' is required with fill"), "{e}");
    let ok = p(
        "[buffers.x]\ntype = \"s16\"\ninit = { values = [-1, 2] }\n[expect.x]\nvalues = [-1, 2]\n",
    )
    .unwrap();
    assert_eq!(ok.buffers[0].bytes, [0xff, 0xff, 2, 0]);
    assert_eq!(ok.expects[0].bytes.as_ref(), Some(&ok.buffers[0].bytes));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn normalize_paths() {
    assert_eq!(
        normalize(Path::new("a/errors/../kernels/./v.ptx")),
        Path::new("a/kernels/v.ptx")
    );
    assert_eq!(normalize(Path::new("../x.ptx")), Path::new("../x.ptx"));
    assert_eq!(normalize(Path::new("./a/..")), Path::new("."));
}

#[test]
fn struct_arguments_nest_and_name_their_fields_in_errors() {
    let c = parse(&format!(
        "{HEAD}args = [{{ struct = [{{ f32 = 1 }}, {{ struct = [{{ s8 = -1 }}, {{ buffer = \"x\" }}] }}] }}]\n[buffers.x]\ntype = \"f32\"\nlen = 4\n"
    ))
    .unwrap();
    assert_eq!(
        c.spec.launches[0].args,
        vec![Arg::Struct(vec![
            Arg::Scalar(Scalar::F32(1.0)),
            Arg::Struct(vec![
                Arg::Scalar(Scalar::S8(-1)),
                Arg::Buffer {
                    name: "x".into(),
                    offset: 0
                }
            ])
        ])]
    );
    let e = parse(&format!(
        "{HEAD}args = [{{ struct = [{{ u32 = 1 }}, {{ struct = [{{ buffer = \"y\" }}] }}] }}]\n[buffers.x]\ntype = \"f32\"\nlen = 4\n"
    ))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("args[0].struct[1].struct[0]: no buffer named 'y'"),
        "{e}"
    );
    let e = parse(&format!("{HEAD}args = [{{ struct = [] }}]\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("at least one field"), "{e}");
    let e = parse(&format!("{HEAD}args = [{{ struct = [1] }}]\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("struct field 0"), "{e}");
}

/// C layout of by-value structs: fields at their natural alignment, the size rounded up.
#[test]
fn struct_layout_follows_c() {
    use crate::host::KernelArg as K;
    let inner = K::Struct(vec![K::S8(3), K::F64(0.5)]);
    let outer = K::Struct(vec![
        K::S32(7),
        inner,
        K::S16(-2),
        K::U8(1),
        K::U8(2),
        K::U8(3),
    ]);
    let b = outer.bytes_for_test();
    assert_eq!(b.len(), 32);
    assert_eq!(&b[0..4], &7i32.to_le_bytes());
    assert_eq!(b[8], 3);
    assert_eq!(&b[16..24], &0.5f64.to_le_bytes());
    assert_eq!(&b[24..26], &(-2i16).to_le_bytes());
    assert_eq!(&b[26..29], &[1, 2, 3]);
}

const PIPE: &str = "ptx = \"k.ptx\"\n\
    [[launch]]\nkernel = \"a\"\ngrid = [2]\nblock = [64]\nargs = [{ buffer = \"x\" }]\n\
    [[launch]]\nptx = \"other.ptx\"\nkernel = \"b\"\ngrid = [1, 2]\nblock = [32]\nshared_bytes = 256\nargs = [{ buffer = \"x\" }, { u32 = 7 }]\n\
    [buffers.x]\ntype = \"u32\"\nlen = 4\n";

#[test]
fn pipeline_launches_parse_in_order() {
    let c = parse(PIPE).unwrap();
    let s = &c.spec;
    assert!(s.pipeline);
    assert_eq!(s.ptx, "k.ptx");
    assert_eq!(
        s.launches,
        vec![
            LaunchSpec {
                ptx: "k.ptx".into(),
                kernel: "a".into(),
                grid: Dims([2, 1, 1]),
                block: Dims([64, 1, 1]),
                shared_bytes: 0,
                args: vec![Arg::Buffer {
                    name: "x".into(),
                    offset: 0
                }],
                cooperative: false,
                cluster: None,
            },
            LaunchSpec {
                ptx: "other.ptx".into(),
                kernel: "b".into(),
                grid: Dims([1, 2, 1]),
                block: Dims([32, 1, 1]),
                shared_bytes: 256,
                args: vec![
                    Arg::Buffer {
                        name: "x".into(),
                        offset: 0
                    },
                    Arg::Scalar(Scalar::U32(7))
                ],
                cooperative: false,
                cluster: None,
            },
        ]
    );
    assert_eq!(c.threads(), 128 + 64);
    assert_eq!(c.kernels(), "a, b");
    // Without a top-level ptx, the case's file is the first launch's, and the default of the
    // others.
    let c = parse(
        &PIPE
            .replace("ptx = \"k.ptx\"\n", "")
            .replace("kernel = \"a\"", "ptx = \"first.ptx\"\nkernel = \"a\"")
            .replace("ptx = \"other.ptx\"\n", ""),
    )
    .unwrap();
    let files: Vec<&str> = c.spec.launches.iter().map(|l| l.ptx.as_str()).collect();
    assert_eq!(
        (c.spec.ptx.as_str(), files),
        ("first.ptx", vec!["first.ptx", "first.ptx"])
    );
    let e = parse(&PIPE.replace("ptx = \"k.ptx\"\n", ""))
        .unwrap_err()
        .to_string();
    assert!(e.contains("ptx: missing"), "{e}");
}

#[test]
fn pipeline_errors_name_the_launch_and_the_keys() {
    // Both forms: an error naming the top-level keys given.
    let e = parse(&format!("kernel = \"a\"\nblock = [1]\n{PIPE}"))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("t.toml: a case has either top-level kernel/grid/block/shared_bytes/args/cooperative/cluster or [[launch]] tables, not both")
            && e.contains("has [[launch]] and kernel, block"),
        "{e}"
    );
    let e = parse(&PIPE.replace(
        "args = [{ buffer = \"x\" }, { u32",
        "args = [{ buffer = \"y\" }, { u32",
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("launch[1].args[0]: no buffer named 'y'"), "{e}");
    let e = parse(&PIPE.replace("grid = [1, 2]\n", ""))
        .unwrap_err()
        .to_string();
    assert!(e.contains("launch[1]") && e.contains("grid"), "{e}");
    let e = parse(&PIPE.replace("shared_bytes = 256", "shared = 256"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("launch[1]") && e.contains("shared"), "{e}");
    let e = parse("ptx = \"k.ptx\"\nlaunch = []\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("needs at least one [[launch]]"), "{e}");
    // The single-launch form names what it misses.
    let e = parse("ptx = \"k.ptx\"\ngrid = [1]\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing kernel, block"), "{e}");
}

#[test]
fn pipeline_prepare_reads_each_file_once() {
    let dir = std::env::temp_dir().join(format!("ptxjit-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.ptx"), "// k").unwrap();
    std::fs::write(dir.join("other.ptx"), "// other").unwrap();
    let text = PIPE.replace(
        "[buffers.x]",
        "[[launch]]\nptx = \"./k.ptx\"\nkernel = \"c\"\ngrid = [1]\nblock = [1]\n[buffers.x]",
    );
    let p = Case::parse(&text, "t.toml", &dir)
        .unwrap()
        .prepare()
        .unwrap();
    let texts: Vec<&str> = p.modules.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["// k", "// other"]);
    assert_eq!(p.launch_modules, [0, 1, 0]);
    std::fs::remove_file(dir.join("other.ptx")).unwrap();
    let e = Case::parse(&text, "t.toml", &dir)
        .unwrap()
        .prepare()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("launch[1].ptx: cannot read") && e.contains("other.ptx"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn expect_tables_take_order_and_check() {
    let c = parse(&format!(
        "{HEAD}[buffers.a]\ntype = \"u32\"\nlen = 2\n[buffers.b]\ntype = \"f32\"\nlen = 2\n\
         [buffers.c]\ntype = \"u8\"\nlen = 2\n\
         [expect.a]\nvalues = [1, 2]\norder = \"any\"\n\
         [expect.b]\ntolerance = {{ rel = 1e-5 }}\ncheck = \"tolerance\"\n\
         [expect.c]\ncheck = \"skip\"\n"
    ))
    .unwrap();
    let e = &c.spec.expect;
    assert_eq!((e["a"].order, e["a"].check), (Order::Any, CheckMode::Exact));
    assert_eq!(
        (e["b"].order, e["b"].check),
        (Order::Index, CheckMode::Tolerance)
    );
    assert_eq!(e["c"].check, CheckMode::Skip);
    let bad = |t: &str| {
        parse(&format!(
            "{HEAD}[buffers.a]\ntype = \"f32\"\nlen = 2\n[expect.a]\n{t}"
        ))
        .unwrap_err()
        .to_string()
    };
    let e = bad("order = \"sorted\"\nvalues = [1, 2]\n");
    assert!(e.contains("expect.a.order") && e.contains("sorted"), "{e}");
    let e = bad("check = false\n");
    assert!(e.contains("expect.a.check"), "{e}");
    let e = bad("check = \"tolerance\"\nvalues = [1, 2]\n");
    assert!(
        e.contains("expect.a: check = \"tolerance\" needs a tolerance"),
        "{e}"
    );
    let e = bad("tolerance = { abs = 1 }\n");
    assert!(
        e.contains("expect.a: a tolerance without file or values only applies with check"),
        "{e}"
    );
    let e = bad("tolerance = \"exact\"\n");
    assert!(e.contains("expect.a: give file"), "{e}");
    let e = bad("values = [1, 2]\nfile = \"a.npy\"\n");
    assert!(e.contains("not both"), "{e}");
}

/// `ptxjit check`'s comparison of the engines' buffers, on buffers made here: a permutation
/// differs in index order and agrees as a multiset; a tolerance and `skip` as the table says.
#[test]
fn engines_compare_as_expect_tables_say() {
    let u32s = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let buf = |name: &str, dtype, bytes| HostBuffer {
        name: name.into(),
        dtype,
        bytes,
    };
    let interp = vec![
        buf("out", DType::U32, u32s(&[4, 9, 1, 7])),
        buf("sum", DType::F32, f32s(&[1.0, 2.0])),
        buf("log", DType::U32, u32s(&[1])),
    ];
    let jit = vec![
        buf("out", DType::U32, u32s(&[9, 1, 7, 4])),
        buf("sum", DType::F32, f32s(&[1.0000001, 2.0])),
        buf("log", DType::U32, u32s(&[2])),
    ];
    let rule = |b: &str, dtype, order, check, rel| Expected {
        buffer: b.into(),
        dtype,
        bytes: None,
        tolerance: Tolerance {
            rel,
            ..Default::default()
        },
        order,
        check,
    };
    let names = |d: &[BufferDiff]| d.iter().map(|d| d.buffer.clone()).collect::<Vec<_>>();
    // No tables: every buffer bit for bit, in index order.
    let (d, skipped) = compare_engines(&interp, &jit, &[]);
    assert_eq!(
        (names(&d), skipped.len()),
        (vec!["out".into(), "sum".into(), "log".into()], 0)
    );
    assert_eq!(d[0].comparison.mismatches, 4);
    let rules = vec![
        rule("out", DType::U32, Order::Any, CheckMode::Exact, None),
        rule(
            "sum",
            DType::F32,
            Order::Index,
            CheckMode::Tolerance,
            Some(1e-6),
        ),
        rule("log", DType::U32, Order::Index, CheckMode::Skip, None),
    ];
    let (d, skipped) = compare_engines(&interp, &jit, &rules);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(skipped, ["log"]);
    // A different multiset still differs, at its sorted position.
    let mut other = jit.clone();
    other[0].bytes = u32s(&[9, 1, 7, 5]);
    let (d, _) = compare_engines(&interp, &other, &rules);
    assert_eq!(names(&d), ["out"]);
    assert!(d[0].comparison.sorted);
    assert_eq!(
        d[0].comparison.first[0],
        Mismatch {
            index: 1,
            got: "5".into(),
            want: "4".into()
        }
    );
    // Beyond the tolerance.
    other[1].bytes = f32s(&[1.0001, 2.0]);
    let (d, _) = compare_engines(&interp, &other, &rules);
    assert_eq!(names(&d), ["out", "sum"]);
}

/// A kernel `k(.param .u64 out)` writing 1 to `out[tid]`, tagged so that no other test's
/// module shares its compiled kernel (the cache is keyed by the text).
fn one_param_kernel(tag: &str) -> String {
    format!(
        "// {tag}\n.version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n.reg .b32 %r<3>;\n.reg .b64 %rd<4>;\n\
         ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd2, %r1, 4;\n\
         add.s64 %rd3, %rd1, %rd2;\nmov.u32 %r2, 1;\nst.global.u32 [%rd3], %r2;\nret;\n}}\n"
    )
}

/// Arguments that do not match the kernel's parameters, and a launch shape outside the
/// limits, are errors before the kernel is compiled: a module of the same text held
/// elsewhere (which shares the compiled kernel) sees it still uncompiled. Shape errors name
/// the case file and the key, and keep the runtime's kind.
#[test]
fn mismatches_are_found_before_compiling_and_shapes_name_their_key() {
    use crate::host::{Context, Engine};
    let dir = std::env::temp_dir().join(format!("ptxjit-early-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = one_param_kernel("checked before compiling");
    std::fs::write(dir.join("k.ptx"), &text).unwrap();
    let mut held = Context::new();
    let m = held.load_module(&text, "held.ptx", Engine::Jit).unwrap();
    let run = |body: &str| {
        let case = Case::parse(
            &format!(
                "ptx = \"k.ptx\"\nkernel = \"k\"\n{body}[buffers.out]\ntype = \"u32\"\nlen = 64\n"
            ),
            "c.toml",
            &dir,
        )
        .unwrap();
        run_case(&case, Engine::Jit, &RunOptions::default())
            .error
            .expect("an error")
    };
    let e = run("grid = [1]\nblock = [32]\nargs = [{ buffer = \"out\" }, { u32 = 3 }]\n");
    assert_eq!(e.kind(), "argument");
    assert!(
        e.to_string()
            .contains("kernel 'k' expects 1 arguments (out: .u64), got 2"),
        "{e}"
    );
    let e = run("grid = [1]\nblock = [32]\nargs = [{ f64 = 1.0 }]\n");
    assert!(
        e.to_string().contains(
            "kernel 'k' argument 1 ('out') is a .u64 parameter of 8 bytes, but the value given is"
        ),
        "{e}"
    );
    let e = run("grid = [0]\nblock = [32]\nargs = [{ buffer = \"out\" }]\n");
    assert_eq!(e.kind(), "launch_config");
    assert!(
        e.to_string()
            .starts_with("c.toml: grid: kernel 'k': invalid grid [0, 1, 1]"),
        "{e}"
    );
    let e = run("grid = [1]\nblock = [2048]\nargs = [{ buffer = \"out\" }]\n");
    assert!(
        e.to_string()
            .starts_with("c.toml: block: kernel 'k': invalid block [2048, 1, 1]"),
        "{e}"
    );
    let e = run("grid = [1]\nblock = [32]\nshared_bytes = 49153\nargs = [{ buffer = \"out\" }]\n");
    assert!(
        e.to_string().starts_with(
            "c.toml: shared_bytes: kernel 'k': 49153 bytes of dynamic shared memory exceed the 49152 bytes"
        ),
        "{e}"
    );
    let e = run("grid = [3]\nblock = [32]\ncluster = [2]\nargs = [{ buffer = \"out\" }]\n");
    assert!(
        e.to_string()
            .starts_with("c.toml: cluster: kernel 'k': the grid [3, 1, 1] is not a whole number"),
        "{e}"
    );
    assert!(!m.kernels[0].is_compiled(), "the kernel was compiled");
    // A pipeline names the launch in the key.
    let case = Case::parse(
        "ptx = \"k.ptx\"\n[[launch]]\nkernel = \"k\"\ngrid = [1]\nblock = [32]\n\
         args = [{ buffer = \"out\" }]\n[[launch]]\nkernel = \"k\"\ngrid = [1]\nblock = [0]\n\
         args = [{ buffer = \"out\" }]\n[buffers.out]\ntype = \"u32\"\nlen = 64\n",
        "p.toml",
        &dir,
    )
    .unwrap();
    let e = run_case(&case, Engine::Interp, &RunOptions::default())
        .error
        .expect("an error");
    assert!(
        e.to_string()
            .starts_with("p.toml: launch[1].block: kernel 'k': invalid block [0, 1, 1]"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// An ad-hoc launch's errors name the options, not case keys.
#[test]
fn ad_hoc_places_name_the_options() {
    let names = AdHocNames {
        args: vec!["u32=4".into(), "buf:x:f32:8=iota".into(), "ptr:x+4".into()],
        expects: vec![("x".into(), "x=x.npy:exact".into())],
    };
    let at = |k: &str| names.option_for(k);
    assert_eq!(at("args[0]").as_deref(), Some("--arg 1 (u32=4)"));
    assert_eq!(at("args[2]").as_deref(), Some("--arg 3 (ptr:x+4)"));
    assert_eq!(at("args[3]"), None);
    assert_eq!(
        at("buffers.x").as_deref(),
        Some("--arg 2 (buf:x:f32:8=iota)")
    );
    assert_eq!(
        at("buffers.x.len").as_deref(),
        Some("--arg 2 (buf:x:f32:8=iota)")
    );
    assert_eq!(at("expect.x").as_deref(), Some("--expect (x=x.npy:exact)"));
    assert_eq!(at("ptx").as_deref(), Some("--ptx"));
    assert_eq!(at("grid").as_deref(), Some("--grid"));
    assert_eq!(at("shared_bytes").as_deref(), Some("--shared-bytes"));
    assert_eq!(at("texrefs.t"), None);
}
