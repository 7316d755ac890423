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
    let mut ctx = crate::runtime::Context::new();
    let f = ChannelFormat {
        ty: ChannelType::U8,
        channels: 4,
    };
    // A cube map of 4x4 faces with 2 levels: (16 + 4) texels per face, 6 faces, 4 bytes.
    let d = ctx
        .alloc_array(ResourceKind::Cube, f, [4, 4, 1], 1, 2, Some("cube"))
        .unwrap();
    let r = Resource::new(d, &ctx.memory).unwrap();
    assert_eq!(r.size_bytes(), (16 + 4) * 6 * 4);
    // Level 1 starts after all six faces of level 0.
    assert_eq!(r.texel_addr(1, 0, 0, 0, 0) - d.ptr.0, 16 * 6 * 4);
    // A 3D array: one layer of 5x3x2.
    let d = ctx
        .alloc_array(ResourceKind::D3, f, [5, 3, 2], 1, 1, None)
        .unwrap();
    let r = Resource::new(d, &ctx.memory).unwrap();
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
