use super::*;

fn parse(text: &str) -> Result<Case, CaseError> {
    Case::parse(text, "t.toml", Path::new("."))
}

const HEAD: &str = "ptx = \"k.ptx\"\nkernel = \"k\"\ngrid = [2]\nblock = [32, 2]\n";

#[test]
fn minimal_case() {
    let c = parse(&format!("{HEAD}args = [{{ u32 = 5 }}, {{ buffer = \"x\", offset = 8 }}, {{ f32 = 2 }}]\n[buffers.x]\ntype = \"f32\"\nlen = 4\n")).unwrap();
    assert_eq!(c.spec.grid, Dims([2, 1, 1]));
    assert_eq!(c.spec.block, Dims([32, 2, 1]));
    assert_eq!(c.threads(), 128);
    assert_eq!(
        c.spec.args,
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
    let e = parse(&format!(
        "{HEAD}[expect_error]\nkind = \"oops\"\ncontains = \"x\"\n"
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("unknown error kind 'oops'"), "{e}");
    let e = parse("ptx = \"k.ptx\"\nkernel = \n")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("t.toml:2:"), "{e}");
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
    assert_eq!(ok.expects[0].bytes, ok.buffers[0].bytes);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn normalize_paths() {
    assert_eq!(
        normalize(Path::new("a/errors/../kernels/./v.ptx")),
        Path::new("a/kernels/v.ptx")
    );
    assert_eq!(normalize(Path::new("../x.ptx")), Path::new("../x.ptx"));
}

#[test]
fn struct_arguments_nest_and_name_their_fields_in_errors() {
    let c = parse(&format!(
        "{HEAD}args = [{{ struct = [{{ f32 = 1 }}, {{ struct = [{{ s8 = -1 }}, {{ buffer = \"x\" }}] }}] }}]\n[buffers.x]\ntype = \"f32\"\nlen = 4\n"
    ))
    .unwrap();
    assert_eq!(
        c.spec.args,
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
