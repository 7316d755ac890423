//! The decoder on fatbins nvcc 13 made (`cuda/tests/data/fatbin`, see its README.md) and on
//! ones built here in CUDA 12's layout; expected values come from nvcc's own PTX output, the
//! nvcc options that made each file, and the layout in the module's docs.

use super::*;

macro_rules! data {
    ($name:literal) => {
        (
            $name,
            include_bytes!(concat!("../../../cuda/tests/data/fatbin/", $name)) as &[u8],
        )
    };
}

const PTX_ZSTD: (&str, &[u8]) = data!("ptx-zstd.fatbin");
const PTX_LZ4: (&str, &[u8]) = data!("ptx-lz4.fatbin");
const PTX_PLAIN: (&str, &[u8]) = data!("ptx-plain.fatbin");
const SASS_PTX: (&str, &[u8]) = data!("sass-ptx.fatbin");
const SASS_PTX_ALL: (&str, &[u8]) = data!("sass-ptx-all.fatbin");
const SASS: (&str, &[u8]) = data!("sass.fatbin");
const MULTI: (&str, &[u8]) = data!("multi.fatbin");
const SPECIFIC: (&str, &[u8]) = data!("specific.fatbin");
const SASS_NEWER_PTX: (&str, &[u8]) = data!("sass-newer-ptx.fatbin");
const ALL: [(&str, &[u8]); 9] = [
    PTX_ZSTD,
    PTX_LZ4,
    PTX_PLAIN,
    SASS_PTX,
    SASS_PTX_ALL,
    SASS,
    MULTI,
    SPECIFIC,
    SASS_NEWER_PTX,
];
/// `nvcc -ptx -arch=compute_80 kernels.cu`.
const NVCC_PTX: &str = include_str!("../../../cuda/tests/data/fatbin/kernels.compute_80.ptx");

const SM80: (u32, u32) = (8, 0);

/// PTX lines without comments, with each run of blanks one space: what fatbinary keeps of
/// nvcc's PTX.
fn normalized(ptx: &str) -> Vec<String> {
    ptx.lines()
        .map(|l| {
            let code = l.split("//").next().unwrap_or("");
            code.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

fn parse(file: (&str, &'static [u8])) -> Fatbin<'static> {
    Fatbin::parse(file.1).unwrap_or_else(|e| panic!("{}: {e}", file.0))
}

/// (kind, arch, compression, header size) of an entry.
type Shape = (EntryKind, u32, Compression, u32);

fn shape(f: &Fatbin) -> Vec<Shape> {
    f.entries
        .iter()
        .map(|e| (e.kind, e.arch, e.compression().unwrap(), e.header_size))
        .collect()
}

#[test]
fn nvcc_fatbins_have_the_entries_their_options_ask_for() {
    use Compression::*;
    use EntryKind::*;
    let want: [(_, Vec<Shape>); 9] = [
        (PTX_ZSTD, vec![(Ptx, 80, Zstd, 80)]),
        (PTX_LZ4, vec![(Ptx, 80, Lz4, 80)]),
        (PTX_PLAIN, vec![(Ptx, 80, None, 80)]),
        (SASS_PTX, vec![(Elf, 80, None, 64), (Ptx, 80, Zstd, 80)]),
        (SASS_PTX_ALL, vec![(Elf, 80, Zstd, 64), (Ptx, 80, Zstd, 80)]),
        (SASS, vec![(Elf, 80, None, 64)]),
        (
            MULTI,
            vec![
                (Ptx, 75, Zstd, 80),
                (Ptx, 80, Zstd, 80),
                (Ptx, 90, Zstd, 80),
            ],
        ),
        (
            SPECIFIC,
            vec![
                (Ptx, 90, None, 80),
                (Ptx, 100, None, 80),
                (Ptx, 90, None, 80),
            ],
        ),
        (
            SASS_NEWER_PTX,
            vec![(Elf, 80, None, 64), (Ptx, 100, Zstd, 80)],
        ),
    ];
    for (file, entries) in want {
        let f = parse(file);
        assert_eq!(f.header.version, 1, "{}", file.0);
        assert_eq!(f.header.header_size, 16, "{}", file.0);
        assert_eq!(f.header.total_size().unwrap(), file.1.len(), "{}", file.0);
        assert_eq!(shape(&f), entries, "{}", file.0);
        for e in &f.entries {
            // 64-bit Linux code, and nvcc 13 writes PTX ISA 9.5 and ELF code version 1.8.
            assert_eq!(
                e.flags & (flags::ADDRESS_64 | flags::LINUX),
                0x11,
                "{}",
                file.0
            );
            let version = if e.kind == Ptx { (9, 5) } else { (1, 8) };
            assert_eq!(e.version, version, "{}", file.0);
        }
    }
    let specific = parse(SPECIFIC);
    let names: Vec<String> = specific.entries.iter().map(Entry::describe).collect();
    assert_eq!(
        names,
        ["compute_90a PTX", "compute_100f PTX", "compute_90 PTX"]
    );
}

#[test]
fn compute_80_entries_hold_nvccs_ptx() {
    for file in [PTX_ZSTD, PTX_LZ4, PTX_PLAIN, SASS_PTX, SASS_PTX_ALL, MULTI] {
        let f = parse(file);
        let (entry, text) = f.ptx(SM80).unwrap_or_else(|e| panic!("{}: {e}", file.0));
        assert_eq!((entry.kind, entry.arch), (EntryKind::Ptx, 80), "{}", file.0);
        assert_eq!(normalized(&text), normalized(NVCC_PTX), "{}", file.0);
        assert!(text.contains("mov.u32 %r1, 800;"), "{}", file.0);
    }
}

#[test]
fn compressed_elf_expands_to_the_uncompressed_one() {
    let plain = parse(SASS_PTX);
    let packed = parse(SASS_PTX_ALL);
    let elf = plain.entries[0].contents().unwrap();
    assert_eq!(&elf[..4], b"\x7fELF");
    assert_eq!(packed.entries[0].uncompressed_size, elf.len() as u64);
    assert_eq!(packed.entries[0].contents().unwrap(), elf);
}

#[test]
fn the_highest_ptx_not_above_the_device_is_chosen() {
    let multi = parse(MULTI);
    let specific = parse(SPECIFIC);
    let target = |f: &Fatbin, cc| {
        let (_, text) = f.ptx(cc).unwrap();
        let t = text.lines().find(|l| l.starts_with(".target")).unwrap();
        t.trim_start_matches(".target ").to_string()
    };
    for (cc, want) in [
        ((7, 5), "sm_75"),
        ((8, 0), "sm_80"),
        ((8, 6), "sm_80"),
        ((9, 0), "sm_90"),
        ((12, 0), "sm_90"),
    ] {
        assert_eq!(target(&multi, cc), want, "{cc:?}");
    }
    // Architecture-specific PTX only on its architecture, family-specific on its family; a
    // plain entry before a specific one of the same architecture.
    for (cc, want) in [
        ((9, 0), "sm_90"),
        ((10, 0), "sm_100f"),
        ((10, 3), "sm_100f"),
        ((12, 0), "sm_90"),
    ] {
        assert_eq!(target(&specific, cc), want, "{cc:?}");
    }
    for (f, cc) in [(&multi, (7, 0)), (&specific, (8, 9))] {
        let e = f.select_ptx(cc).unwrap_err();
        assert!(matches!(e, ImageError::NoPtxForDevice(_)), "{e}");
    }
    let e = multi.select_ptx((7, 0)).unwrap_err().to_string();
    assert!(
        e.contains("compute_75 PTX, compute_80 PTX, compute_90 PTX") && e.contains("7.0"),
        "{e}"
    );
}

#[test]
fn newer_ptx_stands_in_for_sass_that_runs_on_the_device() {
    // sm_80 SASS and compute_100 PTX: a GPU of compute capability 8.0, 8.6 or 8.9 runs the
    // SASS (SASS runs within its major version from its minor on), so the PTX stands in.
    let f = parse(SASS_NEWER_PTX);
    for cc in [(8, 0), (8, 6), (8, 9)] {
        let (entry, text) = f.ptx(cc).unwrap_or_else(|e| panic!("{cc:?}: {e}"));
        assert_eq!(entry.describe(), "compute_100 PTX", "{cc:?}");
        assert!(text.contains(".target sm_100"), "{cc:?}");
        let sass = f.stand_in_for(cc).expect("the SASS it stands in for");
        assert_eq!(sass.describe(), "sm_80 SASS", "{cc:?}");
    }
    // sm_80 SASS runs neither on 7.5 nor on 9.0 (nor does compute_100 PTX): refused.
    for cc in [(7, 5), (9, 0)] {
        assert!(f.stand_in_for(cc).is_none(), "{cc:?}");
        let e = f.select_ptx(cc).unwrap_err();
        assert!(matches!(e, ImageError::NoPtxForDevice(_)), "{cc:?}: {e}");
        assert!(e.to_string().contains("compute_100 PTX"), "{e}");
    }
    // From 10.0 on the PTX runs on the device itself: no stand-in.
    assert!(f.stand_in_for((10, 0)).is_none());
    assert_eq!(f.select_ptx((10, 0)).unwrap().arch, 100);
    // PTX that runs on the device is taken before the stand-in rule applies, and of several
    // newer PTX entries the lowest plain one stands in.
    let ptx = |arch, flags| Spec {
        arch,
        flags,
        ..Spec::ptx(b".version 8.0\n.target sm_xx\n.address_size 64\n")
    };
    let sass = |arch, flags| Spec {
        kind: 2,
        ..ptx(arch, flags)
    };
    let img = build(&[
        sass(80, 0x11),
        ptx(120, 0x11),
        ptx(90, 0x11 | flags::ARCH_SPECIFIC),
        ptx(100, 0x11),
    ]);
    let f = Fatbin::parse(&img).unwrap();
    assert_eq!(f.select_ptx(SM80).unwrap().describe(), "compute_100 PTX");
    let img = build(&[sass(80, 0x11), ptx(75, 0x11), ptx(100, 0x11)]);
    let f = Fatbin::parse(&img).unwrap();
    assert_eq!(f.select_ptx(SM80).unwrap().describe(), "compute_75 PTX");
    assert!(f.stand_in_for(SM80).is_none());
    // Architecture-specific SASS runs only on its own architecture.
    let img = build(&[sass(86, 0x11 | flags::ARCH_SPECIFIC), ptx(100, 0x11)]);
    let f = Fatbin::parse(&img).unwrap();
    assert!(f.select_ptx((8, 9)).is_err());
    assert_eq!(f.select_ptx((8, 6)).unwrap().arch, 100);
}

#[test]
fn sass_only_says_how_to_get_ptx() {
    let e = parse(SASS).ptx(SM80).unwrap_err();
    assert!(matches!(e, ImageError::Sass(_)), "{e}");
    let m = e.to_string();
    assert!(m.contains("sm_80 SASS"), "{m}");
    assert!(m.contains("CuPy with CUPY_COMPILE_WITH_PTX=1"), "{m}");
    assert!(
        m.contains("-gencode arch=compute_80,code=compute_80"),
        "{m}"
    );
}

/// One entry of a fatbin built by [`build`].
struct Spec<'a> {
    kind: u16,
    header_size: usize,
    arch: u32,
    flags: u64,
    /// The stored data, padded to 8 bytes by `build`.
    data: &'a [u8],
    /// (compressed_size, uncompressed_size) of a compressed entry.
    sizes: (u32, u64),
    name: Option<&'a [u8]>,
}

impl<'a> Spec<'a> {
    fn ptx(data: &'a [u8]) -> Spec<'a> {
        Spec {
            kind: 1,
            header_size: 64,
            arch: 80,
            flags: 0x11,
            data,
            sizes: (0, 0),
            name: None,
        }
    }
}

/// A fatbin with the given entries, in the layout of the module's docs.
fn build(entries: &[Spec]) -> Vec<u8> {
    let mut body = vec![];
    for e in entries {
        let padded = e.data.len().next_multiple_of(8);
        let mut h = vec![0u8; e.header_size];
        h[0..2].copy_from_slice(&e.kind.to_le_bytes());
        h[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
        h[4..8].copy_from_slice(&(e.header_size as u32).to_le_bytes());
        h[8..16].copy_from_slice(&(padded as u64).to_le_bytes());
        h[16..20].copy_from_slice(&e.sizes.0.to_le_bytes());
        h[24..28].copy_from_slice(&[5, 0, 8, 0]);
        h[28..32].copy_from_slice(&e.arch.to_le_bytes());
        if let Some(name) = e.name {
            h[32..36].copy_from_slice(&64u32.to_le_bytes());
            h[36..40].copy_from_slice(&(name.len() as u32).to_le_bytes());
            h[64..64 + name.len()].copy_from_slice(name);
        }
        h[40..48].copy_from_slice(&e.flags.to_le_bytes());
        h[56..64].copy_from_slice(&e.sizes.1.to_le_bytes());
        body.extend_from_slice(&h);
        body.extend_from_slice(e.data);
        body.resize(body.len() + padded - e.data.len(), 0);
    }
    let mut out = MAGIC.to_le_bytes().to_vec();
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// The compressed stream of nvcc's LZ4 entry, with its sizes.
fn lz4_stream() -> (Vec<u8>, (u32, u64)) {
    let f = parse(PTX_LZ4);
    let e = &f.entries[0];
    let stream = e.data[..e.compressed_size as usize].to_vec();
    (stream, (e.compressed_size, e.uncompressed_size))
}

#[test]
fn cuda_12_layouts_read() {
    // CUDA 12 writes 64-byte entry headers, LZ4-compressed PTX by default, and longer
    // headers that keep the object's name.
    let (stream, sizes) = lz4_stream();
    let lz4 = Spec {
        flags: 0x11 | flags::COMPRESSED_LZ4,
        sizes,
        ..Spec::ptx(&stream)
    };
    let named = Spec {
        header_size: 136,
        name: Some(b"kernels.o\0"),
        arch: 75,
        ..Spec::ptx(b".version 7.0\n.target sm_75\n.address_size 64\n\0\0\0")
    };
    let img = build(&[named, lz4]);
    let f = Fatbin::parse(&img).unwrap();
    assert_eq!(f.entries[0].name, Some(&b"kernels.o\0"[..]));
    assert_eq!(f.entries[0].header_size, 136);
    assert_eq!(f.entries[1].header_size, 64);
    let (entry, text) = f.ptx(SM80).unwrap();
    assert_eq!(entry.offset, 16 + 136 + 48);
    assert_eq!(normalized(&text), normalized(NVCC_PTX));
    let (_, text) = f.ptx((7, 5)).unwrap();
    assert_eq!(text, ".version 7.0\n.target sm_75\n.address_size 64\n");
}

#[test]
fn inconsistent_entries_are_invalid() {
    let (stream, sizes) = lz4_stream();
    let invalid = |spec: Spec, what: &str| {
        let img = build(&[spec]);
        let e = Fatbin::parse(&img).and_then(|f| f.ptx(SM80).map(|_| ()));
        match e {
            Err(ImageError::Invalid(m)) => assert!(m.contains(what), "{m} (want {what})"),
            other => panic!("{other:?} (want {what})"),
        }
    };
    let lz4 = |flags, sizes| Spec {
        flags,
        sizes,
        ..Spec::ptx(&stream)
    };
    invalid(
        lz4(flags::COMPRESSED_LZ4 | flags::COMPRESSED_ZSTD, sizes),
        "both LZ4 and zstd",
    );
    invalid(lz4(flags::COMPRESSED_OTHER, sizes), "does not read");
    // LZ4 data read as zstd, and an uncompressed size the data does not have.
    invalid(lz4(flags::COMPRESSED_ZSTD, sizes), "zstd");
    invalid(lz4(flags::COMPRESSED_LZ4, (sizes.0, sizes.1 - 1)), "LZ4");
    invalid(
        lz4(flags::COMPRESSED_LZ4, (sizes.0, sizes.1 + 1)),
        "decompressed to",
    );
    invalid(
        lz4(flags::COMPRESSED_LZ4, (sizes.0, u64::MAX)),
        "LZ4 bytes can hold",
    );
    invalid(
        lz4(flags::COMPRESSED_LZ4, (sizes.0 + 100, sizes.1)),
        "exceeds the entry",
    );
    let zstd = parse(PTX_ZSTD);
    let e = &zstd.entries[0];
    let stream = &e.data[..e.compressed_size as usize];
    for (size, what) in [
        (e.uncompressed_size - 1, "+ bytes"),
        (e.uncompressed_size + 1, "decompressed to"),
    ] {
        invalid(
            Spec {
                flags: flags::COMPRESSED_ZSTD,
                sizes: (e.compressed_size, size),
                ..Spec::ptx(stream)
            },
            what,
        );
    }
    invalid(Spec::ptx(b"\xff\xfe"), "not UTF-8");
    invalid(
        Spec {
            kind: 7,
            ..Spec::ptx(b"x")
        },
        "no PTX or SASS entry",
    );
}

#[test]
fn headers_and_wrappers_are_checked() {
    let img = PTX_ZSTD.1;
    assert_eq!(total_size(&img[..16]), Ok(img.len()));
    let with = |at: usize, bytes: &[u8]| {
        let mut v = img.to_vec();
        v[at..at + bytes.len()].copy_from_slice(bytes);
        Fatbin::parse(&v).map(|_| ()).unwrap_err().to_string()
    };
    // The entry header's size (at 16 + 4), then the fatbin's header.
    assert!(with(20, &[48]).contains("header size 48, under 64"));
    assert!(with(20, &[0xff, 0xff]).contains("header runs past"));
    assert!(with(24, &[0xff, 0xff]).contains("data run past"));
    assert!(with(0, &[0]).contains("magic"));
    assert!(with(4, &[2]).contains("version 2"));
    assert!(with(6, &[8]).contains("header size 8"));
    assert!(with(8, &[0xff; 8]).contains("too large"));
    assert!(with(8, &[0, 0, 1]).contains("truncated"));
    assert!(Fatbin::parse(&img[..15])
        .unwrap_err()
        .to_string()
        .contains("shorter"));

    let mut w = WRAPPER_MAGIC.to_le_bytes().to_vec();
    w.extend_from_slice(&1u32.to_le_bytes());
    w.extend_from_slice(&0x1234u64.to_le_bytes());
    w.extend_from_slice(&0u64.to_le_bytes());
    assert_eq!(
        Wrapper::parse(&w),
        Ok(Wrapper {
            version: 1,
            data: 0x1234,
            filename_or_fatbins: 0
        })
    );
    assert!(Wrapper::parse(&w[..23]).is_err());
    w[4] = 3;
    assert!(Wrapper::parse(&w)
        .unwrap_err()
        .to_string()
        .contains("version 3"));
    w[4] = 2;
    w[8..16].fill(0);
    assert!(Wrapper::parse(&w).unwrap_err().to_string().contains("null"));
}

/// Decodes `bytes` as the driver does, catching a panic as a test failure at `what`.
fn decode_quietly(bytes: &[u8], what: &str) -> Result<(), ImageError> {
    let r = std::panic::catch_unwind(|| {
        let f = Fatbin::parse(bytes)?;
        for e in &f.entries {
            let _ = e.contents();
        }
        f.ptx(SM80).map(|_| ())
    });
    r.unwrap_or_else(|_| panic!("decoding panicked: {what}"))
}

#[test]
fn truncated_and_corrupted_fatbins_never_panic() {
    for (name, bytes) in ALL {
        assert_eq!(
            decode_quietly(bytes, name).is_ok(),
            // No PTX for sm_80 in these two.
            !matches!(name, "sass.fatbin" | "specific.fatbin"),
            "{name}"
        );
        // Cut anywhere, with the header's payload size cut to match: unless the cut falls
        // between two entries, the last entry is then truncated, which must be an error.
        let starts: Vec<usize> = parse((name, bytes))
            .entries
            .iter()
            .map(|e| e.offset)
            .collect();
        for n in 16..bytes.len() {
            let mut v = bytes[..n].to_vec();
            v[8..16].copy_from_slice(&(n as u64 - 16).to_le_bytes());
            let r = decode_quietly(&v, &format!("{name} cut at {n}"));
            assert!(
                r.is_err() || starts.contains(&n),
                "{name} cut at {n} decoded"
            );
            assert!(decode_quietly(&bytes[..n], name).is_err());
        }
        // Every byte of the small files (headers and data), the headers of the others.
        let span = if bytes.len() <= 2048 {
            bytes.len()
        } else {
            256
        };
        for at in 0..span {
            for value in [0x00, 0xff, bytes[at] ^ 0x80, bytes[at].wrapping_add(1)] {
                let mut v = bytes.to_vec();
                v[at] = value;
                let _ = decode_quietly(&v, &format!("{name} byte {at} = {value:#x}"));
            }
        }
    }
}
