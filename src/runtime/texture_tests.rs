//! Unit tests of the texture unit against hand-computed values (CUDA guide formulas).

use super::*;
use crate::ir::HandleKind;

fn f32_tex(mem: &mut DeviceMemory, vals: &[f32], w: u32, h: u32) -> ResourceDesc {
    let p = mem.alloc(vals.len() as u64 * 4, Some("t")).unwrap();
    let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    mem.write(p, &bytes).unwrap();
    let f = ChannelFormat {
        ty: ChannelType::F32,
        channels: 1,
    };
    ResourceDesc::new(ResourceKind::D2, p, f, [w, h, 1])
}

#[test]
fn addressing_modes_by_hand() {
    use AddressMode::*;
    // n = 4: wrap -1 → 3, 5 → 1; mirror -1 → 0, 4 → 3, 5 → 2, 8 → 0; clamp; border.
    assert_eq!(address(Wrap, true, -1, 4), Some(3));
    assert_eq!(address(Wrap, true, 5, 4), Some(1));
    assert_eq!(address(Mirror, true, -1, 4), Some(0));
    assert_eq!(address(Mirror, true, 4, 4), Some(3));
    assert_eq!(address(Mirror, true, 5, 4), Some(2));
    assert_eq!(address(Mirror, true, 8, 4), Some(0));
    assert_eq!(address(Clamp, false, -7, 4), Some(0));
    assert_eq!(address(Clamp, false, 9, 4), Some(3));
    assert_eq!(address(Border, false, 4, 4), None);
    assert_eq!(address(Border, false, -1, 4), None);
    // Wrap and mirror need normalized coordinates; otherwise they clamp.
    assert_eq!(address(Wrap, false, 5, 4), Some(3));
    assert_eq!(address(Mirror, false, -1, 4), Some(0));
}

#[test]
fn weights_are_quantized_to_1_256() {
    // frac = 0.3 → round(76.8) = 77 → 77/256.
    let (i, a) = linear_weight(2.3);
    assert_eq!(i, 2);
    assert_eq!(a, 77.0 / 256.0);
    // frac = 0.999 → 256/256: the 9-bit weight can be 1.
    assert_eq!(linear_weight(0.999).1, 1.0);
    assert_eq!(linear_weight(-0.25), (-1, 0.75));
}

#[test]
fn cube_faces_follow_the_guide_table() {
    // +x major: face 0, s = (-z/|x| + 1)/2, t = (-y/|x| + 1)/2.
    assert_eq!(cube_face(1.0, 0.5, -0.5), (0, 0.75, 0.25));
    assert_eq!(cube_face(-1.0, 0.0, 0.0), (1, 0.5, 0.5));
    assert_eq!(cube_face(0.5, 1.0, 0.5), (2, 0.75, 0.75));
    assert_eq!(cube_face(0.5, -1.0, 0.5), (3, 0.75, 0.25));
    assert_eq!(cube_face(0.0, 0.0, 2.0), (4, 0.5, 0.5));
    assert_eq!(cube_face(0.5, 0.0, -1.0), (5, 0.25, 0.5));
}

#[test]
fn handles_are_checked() {
    let mut mem = DeviceMemory::new();
    let mut t = TextureTable::default();
    let res = f32_tex(&mut mem, &[1.0, 2.0, 3.0, 4.0], 2, 2);
    let h = t.create_texture(&mem, res, TextureDesc::default()).unwrap();
    assert!(t.texture(h).is_some());
    assert!(t.surface(h).is_none(), "a texture is not a surface");
    assert!(is_type(&t, h, HandleKind::Texture));
    assert!(!is_type(&t, h, HandleKind::Sampler));
    // Forged: wrong tag, index, generation.
    assert!(t.get(h & 0xffff_ffff).is_none());
    assert!(t.get(h + 1).is_none());
    assert!(t.get(h ^ (1 << 32)).is_none());
    t.destroy(h).unwrap();
    assert!(t.get(h).is_none(), "stale after destroy");
    assert!(t.destroy(h).is_err());
    // The slot is reused with a new generation: the old handle stays stale.
    let h2 = t.create_texture(&mem, res, TextureDesc::default()).unwrap();
    assert_ne!(h, h2);
    assert!(t.get(h).is_none());
    assert!(t.get(h2).is_some());
}

#[test]
fn resources_are_validated() {
    let mut mem = DeviceMemory::new();
    let mut t = TextureTable::default();
    let res = f32_tex(&mut mem, &[0.0; 6], 3, 2);
    // Larger than the allocation.
    let big = ResourceDesc { height: 3, ..res };
    assert!(t.create_texture(&mem, big, TextureDesc::default()).is_err());
    // Pitch smaller than a row.
    let pitched = ResourceDesc {
        pitch_bytes: 8,
        ..res
    };
    assert!(t
        .create_texture(&mem, pitched, TextureDesc::default())
        .is_err());
    // Linear filtering of integer element reads.
    let ints = ResourceDesc {
        format: ChannelFormat {
            ty: ChannelType::S32,
            channels: 1,
        },
        ..res
    };
    let lin = TextureDesc {
        filter: FilterMode::Linear,
        ..TextureDesc::default()
    };
    assert!(t.create_texture(&mem, ints, lin).is_err());
    // Three channels.
    let three = ResourceDesc {
        format: ChannelFormat {
            ty: ChannelType::U8,
            channels: 3,
        },
        ..res
    };
    assert!(t
        .create_texture(&mem, three, TextureDesc::default())
        .is_err());
    // Mip levels beyond 1x1.
    let mips = ResourceDesc {
        mip_levels: 3,
        ..res
    };
    assert!(t
        .create_texture(&mem, mips, TextureDesc::default())
        .is_err());
    assert!(t.create_texture(&mem, res, lin).is_ok());
}

#[test]
fn normalized_reads_by_hand() {
    assert_eq!(channel_float(ChannelType::U8, 255), 1.0);
    assert_eq!(channel_float(ChannelType::U8, 51), 0.2);
    assert_eq!(channel_float(ChannelType::S8, (-128i32) as u32), -1.0);
    assert_eq!(channel_float(ChannelType::S8, 127), 1.0);
    assert_eq!(channel_float(ChannelType::U16, 65535), 1.0);
    assert_eq!(channel_float(ChannelType::S16, (-32768i32) as u32), -1.0);
    assert_eq!(channel_float(ChannelType::F16, 0x3c00), 1.0);
}

#[test]
fn arrays_are_laid_out_densely() {
    let mut ctx = crate::host::Context::new();
    let f = ChannelFormat {
        ty: ChannelType::U8,
        channels: 4,
    };
    // A cube map of 4x4 faces with 2 levels: (16 + 4) texels per face, 6 faces, 4 bytes.
    let d = ctx
        .alloc_array(ResourceKind::Cube, f, [4, 4, 1], 1, 2, Some("cube"))
        .unwrap();
    let r = Resource::new(d, &ctx.memory()).unwrap();
    assert_eq!(r.size_bytes(), (16 + 4) * 6 * 4);
    // Level 1 starts after all six faces of level 0.
    assert_eq!(r.texel_addr(1, 0, 0, 0, 0) - d.ptr.0, 16 * 6 * 4);
    // A 3D array: one layer of 5x3x2.
    let d = ctx
        .alloc_array(ResourceKind::D3, f, [5, 3, 2], 1, 1, None)
        .unwrap();
    let r = Resource::new(d, &ctx.memory()).unwrap();
    assert_eq!(r.texel_addr(0, 0, 1, 2, 1) - d.ptr.0, ((3 + 2) * 5 + 1) * 4);
    assert!(ctx
        .alloc_array(ResourceKind::Cube, f, [4, 3, 1], 1, 1, None)
        .is_err());
}

/// `.f16x2` packing (PTX ISA §9.7.10.3): round to nearest even, first channel of each pair in
/// the low half; overflow gives infinity.
#[test]
fn f16x2_packing_rounds_to_nearest_even() {
    let tie_down = 1.0 + 1.0 / 2048.0; // halfway between 1.0 and the next f16: even is 1.0
    let tie_up = 1.0 + 3.0 / 2048.0; // halfway between two f16s: even is 1 + 2^-9
    let p = pack_f16x2([1.0, -2.0, tie_down, tie_up]);
    assert_eq!(p, [0xc000_3c00, 0x3c02_3c00, 0, 0]);
    let q = pack_f16x2([65520.0, 0.0, -0.0, f32::NAN]);
    assert_eq!(q[0], 0x0000_7c00);
    assert_eq!(q[1] & 0xffff, 0x8000);
    assert_eq!((q[1] >> 16) & 0x7c00, 0x7c00);
    assert_ne!((q[1] >> 16) & 0x3ff, 0, "NaN stays NaN");
}

/// `.v4.f16` results (PTX ISA §9.7.10.3): each channel rounded to f16 on its own (nearest
/// even), in the low 16 bits; overflow gives infinity, NaN stays NaN.
#[test]
fn f16_results_round_each_channel() {
    let tie_down = 1.0 + 1.0 / 2048.0;
    let tie_up = 1.0 + 3.0 / 2048.0;
    assert_eq!(
        round_f16([tie_down, tie_up, -2.0, 65520.0]),
        [0x3c00, 0x3c02, 0xc000, 0x7c00]
    );
    let n = round_f16([f32::NAN, 0.0, -0.0, 6.0e-8]);
    assert_eq!(n[0] & 0x7c00, 0x7c00);
    assert_ne!(n[0] & 0x3ff, 0, "NaN stays NaN");
    assert_eq!(&n[1..], &[0x0000, 0x8000, 0x0001]);
}

/// Multisample resources: 2D (layered) only, one level, at most 64 samples; a texel's samples
/// are consecutive, so rows are `width * samples` texels long.
#[test]
fn multisample_layout_checks() {
    let f = ChannelFormat {
        ty: ChannelType::F32,
        channels: 2,
    };
    let mut d = ResourceDesc::new(ResourceKind::D2, DevicePtr(0x1000), f, [4, 3, 1]);
    d.samples = 4;
    let r = Resource::layout(d).unwrap();
    assert_eq!(r.size_bytes(), 4 * 3 * 4 * 8);
    assert_eq!(r.texel_addr(0, 0, 1, 2, 0), 0x1000 + (2 * 4 + 1) * 4 * 8);
    let bad = |k: ResourceKind, samples: u32, mips: u32| {
        let mut d = ResourceDesc::new(k, DevicePtr(0x1000), f, [4, 4, 1]);
        d.samples = samples;
        d.mip_levels = mips;
        Resource::layout(d).is_err()
    };
    assert!(bad(ResourceKind::D1, 2, 1));
    assert!(bad(ResourceKind::Cube, 2, 1));
    assert!(bad(ResourceKind::D2, 2, 2));
    assert!(bad(ResourceKind::D2, 65, 1));
    assert!(!bad(ResourceKind::D2Layered, 2, 1));
}

/// The inline `floor` and `round` of the linear weights give `f32::floor`'s and
/// `f32::round`'s bits for every kind of input (NaN: a NaN; the weights never round one).
#[test]
fn inline_floor_and_round_match_std() {
    let mut x = 0x1234_5678u32;
    let mut vals = vec![
        0.0f32,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.499_999_97,
        -0.499_999_97,
        8_388_607.5,
        -8_388_607.5,
        8_388_608.0,
        16_777_215.0,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        1e-45,
        -1e-45,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    for _ in 0..200_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        vals.push(f32::from_bits(x));
        // Also values of texel-coordinate size.
        vals.push((x >> 8) as f32 / 4096.0 - 2048.0);
    }
    for v in vals {
        if v.is_nan() {
            assert!(floor_f32(v).is_nan() && round_f32(v).is_nan());
            continue;
        }
        assert_eq!(floor_f32(v).to_bits(), v.floor().to_bits(), "floor {v:e}");
        assert_eq!(round_f32(v).to_bits(), v.round().to_bits(), "round {v:e}");
    }
}

/// A CTA environment over `mem` and `table` for calling the texture unit directly (no
/// memcheck; faults are recorded in `sink`).
fn test_env(
    mem: &DeviceMemory,
    table: &TextureTable,
    sink: &env::FaultSink,
    control: &env::AbortControl,
    flag: &std::sync::atomic::AtomicU32,
    count: &std::sync::atomic::AtomicU64,
) -> CtaEnv {
    let null = std::ptr::null_mut();
    CtaEnv {
        global_base: mem.base(),
        global_top: mem.top(),
        shared_base: null,
        shared_size: 0,
        param_base: null,
        param_size: 0,
        local_base: null,
        local_size: 0,
        symbols: std::ptr::null(),
        nsymbols: 0,
        abort: flag,
        control,
        sink,
        memory: mem,
        ctaid: [0; 3],
        nctaid: [1; 3],
        ntid: [32, 1, 1],
        warp: 0,
        nwarps: 1,
        memcheck: super::env::CHECK_BOUNDS,
        init: std::ptr::null(),
        shared_init: std::ptr::null(),
        dynamic_smem: 0,
        nsmid: 1,
        gridid: 0,
        grid_workspace: 0,
        launch_start: std::time::Instant::now(),
        thread_instructions: count,
        tid_table: std::ptr::null(),
        tid_stride: 32,
        tid_x_linear: 1,
        textures: table,
        heap: std::ptr::null(),
        printf: std::ptr::null(),
        synccheck: std::ptr::null(),
        synccheck_lanes: 0,
        tmem: std::ptr::null(),
        cluster_dims: [1, 1, 1],
        cluster_explicit: 0,
        cluster: std::ptr::null(),
        launch_control: std::ptr::null(),
        mbar_waits: std::ptr::null(),
        complete_in_call: 0,
        rounds_in_call: 0,
        reserved_base: std::ptr::null_mut(),
        batch: std::ptr::null_mut(),
        stack_base: 0,
        stack_high: Default::default(),
        red_table: std::ptr::null_mut(),
        race: std::ptr::null(),
        race_sink: std::ptr::null(),
    }
}

/// The per-warp fast path of `tex.2d` ([`fast::Fast2d`]) gives the bits the generic
/// [`fetch`] gives, for every format, filter, address mode, coordinate mode and destination
/// type it takes, at coordinates inside, outside and on the edges of the texture and its
/// texels, at the filtering weights' rounding ties, around 2^23 and at NaN and infinite ones;
/// for full warps (the four-lane bilinear path) and partial masks (lanes outside untouched);
/// with an independent sampler too.
#[test]
fn fast_path_matches_fetch() {
    use crate::ir::TexGeom;
    use std::sync::atomic::{AtomicU32, AtomicU64};
    let (w, h) = (7u32, 5u32);
    let mut mem = DeviceMemory::new();
    let mut table = TextureTable::default();
    // Random texel bytes, with a pitch wider than a row (16-byte texels at most).
    let pitch = (w as u64 + 3) * 16;
    let bytes = pitch * h as u64;
    let p = mem.alloc(bytes, Some("texels")).unwrap();
    let mut x = 0x9e37_79b9u32;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let data: Vec<u8> = (0..bytes)
        .map(|i| {
            // Odd bytes (the high bytes of f16 and f32 channels) stay small, so float
            // channels are finite and moderate.
            let r = rnd() as u8;
            if i % 2 == 1 {
                r & 0x3f
            } else {
                r
            }
        })
        .collect();
    mem.write(p, &data).unwrap();
    use AddressMode::*;
    use ChannelType as C;
    let formats = [
        (C::U8, 4, ReadMode::NormalizedFloat),
        (C::F32, 1, ReadMode::ElementType),
        (C::F32, 4, ReadMode::ElementType),
        (C::U16, 2, ReadMode::NormalizedFloat),
        (C::S8, 1, ReadMode::NormalizedFloat),
        (C::F16, 4, ReadMode::ElementType),
        (C::U8, 4, ReadMode::ElementType),
        (C::S32, 2, ReadMode::ElementType),
    ];
    let modes = [Wrap, Clamp, Mirror, Border];
    let results = [TexResults::Words, TexResults::F16, TexResults::F16x2];
    let mut coords: Vec<f32> = vec![
        0.0,
        -0.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e30,
        -1e30,
    ];
    for k in -20..=20 {
        coords.push(k as f32 * 0.5);
        coords.push(k as f32 / w as f32);
        coords.push(k as f32 / h as f32);
        coords.push((k as f32 + 0.5) / 7.0);
        // Filtering weights of exactly half a 1/256 step (the rounding's tie) and next to it.
        coords.push(k as f32 * 0.5 + 1.0 / 512.0);
        coords.push(k as f32 * 0.5 + 0.5 + 3.0 / 512.0);
        coords.push(k as f32 * 0.5 + 0.5 - 1.0 / 1024.0);
    }
    // Around 2^23 (where a texel coordinate has no fraction left), tiny and huge values.
    coords.extend([
        8_388_607.0,
        8_388_608.0,
        8_388_608.5,
        -8_388_607.5,
        -8_388_608.5,
        1e-40,
        -1e-40,
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::MIN,
    ]);
    // Full warps, and partial ones: groups of four lanes full, partly full and empty.
    let masks = [u32::MAX, 0x0f0f_f0f1, 0x7fff_fffe, 0x0000_00f0, 0xffff_0000];
    let sink = env::FaultSink::default();
    let control = env::AbortControl::new(1);
    let flag = AtomicU32::new(0);
    let count = AtomicU64::new(0);
    let mut checked = 0u64;
    for (ty, channels, read_mode) in formats {
        let format = ChannelFormat { ty, channels };
        let mut res = ResourceDesc::new(ResourceKind::D2, p, format, [w, h, 1]);
        res.pitch_bytes = pitch;
        let float = ty.is_float() || read_mode == ReadMode::NormalizedFloat;
        for filter in [FilterMode::Point, FilterMode::Linear] {
            if filter == FilterMode::Linear && !float {
                continue;
            }
            for (a0, a1) in modes
                .iter()
                .flat_map(|&a| modes.iter().map(move |&b| (a, b)))
            {
                for normalized_coords in [true, false] {
                    let tex = TextureDesc {
                        address: [a0, a1, Clamp],
                        filter,
                        read_mode,
                        normalized_coords,
                        border_color: [0.25, -1.5, 3.0, 0.75],
                        ..TextureDesc::default()
                    };
                    let th = table.create_texture(&mem, res, tex).unwrap();
                    // An independent sampler with the texture's state but other modes.
                    let sh = table.create_sampler(TextureDesc {
                        address: [a1, a0, Clamp],
                        ..tex
                    });
                    let env = test_env(&mem, &table, &sink, &control, &flag, &count);
                    for smp in [None, Some(sh)] {
                        let t = table.texture(th).unwrap();
                        let s = smp.map_or(&t.tex, |sh| table.sampler(sh).unwrap());
                        for r in results {
                            let fast = fast::Fast2d::new(t, s, &env, r).expect("fast path");
                            let n = coords.len();
                            for (i, v) in (0..n).flat_map(|i| [(i, 0), (i, 1)]) {
                                // Lane j: (coords[i], coords[(i * 7 + j * 3) % n]) in every
                                // lane of the warp, then x varying by lane too under a mask.
                                let xs: [f32; 32] = std::array::from_fn(|j| {
                                    coords[if v == 0 { i } else { (i * 5 + j * 11) % n }]
                                });
                                let ys: [f32; 32] =
                                    std::array::from_fn(|j| coords[(i * 7 + j * 3) % n]);
                                let mask = if v == 0 {
                                    u32::MAX
                                } else {
                                    masks[i % masks.len()]
                                };
                                // Lanes outside the mask keep what they held.
                                let mut out = [[0xdead_beefu32; 32]; 4];
                                fast.fetch_lanes(mask, &xs, &ys, &mut out);
                                for l in 0..32 {
                                    let got = [out[0][l], out[1][l], out[2][l], out[3][l]];
                                    if mask >> l & 1 == 0 {
                                        assert_eq!(
                                            got, [0xdead_beef; 4],
                                            "lane {l} not in {mask:#x}"
                                        );
                                        continue;
                                    }
                                    let req = TexRequest {
                                        geom: TexGeom::D2,
                                        layer: 0,
                                        coords: [xs[l], ys[l], 0.0],
                                        int_coords: None,
                                        lod: LodInput::Base,
                                        offset: [0; 3],
                                        compare: None,
                                        sample: 0,
                                        results: r,
                                    };
                                    let want = fetch(&table, &env, th, smp, &req).unwrap();
                                    assert_eq!(
                                        got, want,
                                        "{format:?} {read_mode:?} {filter:?} {a0:?}/{a1:?} \
                                         normalized {normalized_coords} sampler {smp:?} {r:?} \
                                         mask {mask:#x} at ({}, {})",
                                        xs[l], ys[l]
                                    );
                                    checked += 1;
                                }
                            }
                        }
                    }
                    table.destroy(sh).unwrap();
                    table.destroy(th).unwrap();
                }
            }
        }
    }
    assert!(checked > 1_000_000, "{checked} fetches compared");
    assert!(sink.take().is_none(), "no fault expected");
}

/// The fast path declines what it does not take, so the generic path runs: layered, mipmapped
/// and multisample resources, linear filtering of integer reads (an independent sampler can
/// ask for it), and texels outside the arena's live allocations (with memcheck).
#[test]
fn fast_path_declines_other_resources() {
    use std::sync::atomic::{AtomicU32, AtomicU64};
    let mut mem = DeviceMemory::new();
    let mut table = TextureTable::default();
    let f = ChannelFormat {
        ty: ChannelType::U8,
        channels: 4,
    };
    let p = mem.alloc(4096, Some("t")).unwrap();
    let sink = env::FaultSink::default();
    let control = env::AbortControl::new(1);
    let flag = AtomicU32::new(0);
    let count = AtomicU64::new(0);
    let mut d2 = ResourceDesc::new(ResourceKind::D2, p, f, [8, 8, 1]);
    let base = table
        .create_texture(&mem, d2, TextureDesc::default())
        .unwrap();
    d2.mip_levels = 2;
    let mips = table
        .create_texture(&mem, d2, TextureDesc::default())
        .unwrap();
    d2.mip_levels = 1;
    d2.samples = 2;
    let ms = table
        .create_texture(&mem, d2, TextureDesc::default())
        .unwrap();
    let mut layered = ResourceDesc::new(ResourceKind::D2Layered, p, f, [8, 8, 1]);
    layered.layers = 2;
    let lay = table
        .create_texture(&mem, layered, TextureDesc::default())
        .unwrap();
    let linear = TextureDesc {
        filter: FilterMode::Linear,
        ..TextureDesc::default()
    };
    {
        let env = test_env(&mem, &table, &sink, &control, &flag, &count);
        let t = |h| table.texture(h).unwrap();
        let w = TexResults::Words;
        assert!(fast::Fast2d::new(t(base), &t(base).tex, &env, w).is_some());
        assert!(fast::Fast2d::new(t(mips), &t(mips).tex, &env, w).is_none());
        assert!(fast::Fast2d::new(t(ms), &t(ms).tex, &env, w).is_none());
        assert!(fast::Fast2d::new(t(lay), &t(lay).tex, &env, w).is_none());
        assert!(fast::Fast2d::new(t(base), &linear, &env, w).is_none());
    }
    // The memory is freed: memcheck's translation of the level fails, so the generic path
    // runs (and faults per texel).
    mem.free(p).unwrap();
    let env = test_env(&mem, &table, &sink, &control, &flag, &count);
    let t = table.texture(base).unwrap();
    assert!(fast::Fast2d::new(t, &t.tex, &env, TexResults::Words).is_none());
}

/// `linear_weight`'s integer shortcut for texel coordinates gives the general computation's
/// index and weight bits.
#[test]
fn linear_weight_shortcut_matches_general() {
    let mut x = 0x2545_f491u32;
    let mut vals = vec![
        0.0f32,
        -0.0,
        0.5,
        -0.5,
        1.0,
        -1.0,
        8_388_607.5,
        -8_388_607.5,
    ];
    vals.extend([
        0.001_953_125f32,
        0.998_046_9,
        -0.001_953_125,
        1.0 - f32::EPSILON / 2.0,
    ]);
    vals.extend([
        -1e-9,
        1e-9,
        f32::MIN_POSITIVE,
        -1e-45,
        8_388_608.0,
        f32::NAN,
    ]);
    for _ in 0..500_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        vals.push(f32::from_bits(x));
        vals.push((x >> 4) as f32 / 65536.0 - 16384.0);
        // Near the halfway points of the 1/256 steps.
        let k = (x >> 20) as f32;
        vals.push(k / 512.0 + (x & 7) as f32 * 1e-7 - 4e-7);
    }
    for v in vals {
        let (i, a) = linear_weight(v);
        let (j, b) = linear_weight_any(v);
        assert_eq!((i, a.to_bits()), (j, b.to_bits()), "{v:e}");
    }
}
