//! Texture and surface operations on a warp's value slots: the one implementation both engines
//! call (the interpreter through `runtime::warp::exec`, the JIT through
//! `jit::helpers::warp_helper`), once per warp instruction for the lanes of the execution mask.
//! Operand order is the op table's (`ir::ops`); the sampling rules are `runtime::texture`'s.

use super::env::CtaEnv;
use super::texture::fast::Fast2d;
use super::texture::{
    self, GatherRequest, LodInput, SurfRequest, TexFault, TexRequest, TexResults,
};
use super::warp::{lanes, WarpDesc};
use crate::analysis::schedule::WARP_SIZE;
use crate::ir::{Op, TexGeom, TexLod, Type};

const WARP_LANES: usize = WARP_SIZE as usize;

fn f32_of(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

fn record(env: &CtaEnv, d: &WarpDesc, lane: u32, f: TexFault, write: bool) {
    env.fault(lane, d.inst, f.kind, f.space, f.addr, f.size, write);
}

/// A texel offset operand (PTX ISA §9.7.10.3: "in the range of -8 to +7"): the low four bits
/// of the register as a signed value, as the hardware's 4-bit offset fields hold it (an
/// immediate outside the range is a load error, `lower::decode_tex`).
fn texel_offset(v: u64) -> i32 {
    ((v as u32) << 28) as i32 >> 28
}

/// Execute texture or surface operation `d` for the lanes of `mask`.
pub fn exec(d: &WarpDesc, mask: u32, s: &mut [u8], env: &CtaEnv) {
    let table = env.textures();
    match d.op {
        Op::Tex {
            geom,
            lod,
            int_coords,
            sampler,
            opts,
        } => {
            let results = if opts.f16x2 {
                TexResults::F16x2
            } else if opts.f16 {
                TexResults::F16
            } else {
                TexResults::Words
            };
            if geom == TexGeom::D2
                && lod == TexLod::Base
                && !int_coords
                && !opts.offset
                && !opts.compare
                && tex2d_fast(d, mask, s, env, sampler, results)
            {
                return;
            }
            let n = geom.dims() as usize;
            for l in lanes(mask) {
                let mut k = 0;
                let mut next = || {
                    k += 1;
                    d.arg(s, k, l)
                };
                let h = d.arg(s, 0, l);
                let smp = sampler.then(&mut next);
                let layer = if geom.arrayed() { next() as i32 } else { 0 };
                let sample = if geom.multisample() { next() as i32 } else { 0 };
                let mut coords = [0f32; 3];
                let mut ic = [0i32; 3];
                for c in 0..n {
                    let v = next();
                    coords[c] = f32_of(v);
                    ic[c] = v as i32;
                }
                let lod_in = match lod {
                    TexLod::Base => LodInput::Base,
                    TexLod::Level if int_coords => LodInput::Level(next() as i32 as f32),
                    TexLod::Level => LodInput::Level(f32_of(next())),
                    TexLod::Grad => {
                        let mut dx = [0f32; 3];
                        let mut dy = [0f32; 3];
                        for g in dx.iter_mut().take(n) {
                            *g = f32_of(next());
                        }
                        for g in dy.iter_mut().take(n) {
                            *g = f32_of(next());
                        }
                        LodInput::Grad(dx, dy)
                    }
                };
                let mut offset = [0i32; 3];
                if opts.offset {
                    for o in offset.iter_mut().take(n) {
                        *o = texel_offset(next());
                    }
                }
                let compare = opts.compare.then(|| f32_of(next()));
                let req = TexRequest {
                    geom,
                    layer,
                    coords,
                    int_coords: int_coords.then_some(ic),
                    lod: lod_in,
                    offset,
                    compare,
                    sample,
                    results,
                };
                let r = match texture::fetch(table, env, h, smp, &req) {
                    Ok(r) => r,
                    Err(f) => {
                        record(env, d, l, f, false);
                        [0; 4]
                    }
                };
                for (k, v) in r.iter().enumerate() {
                    d.set(s, k, l, *v as u64);
                }
            }
        }
        Op::Tld4 {
            comp,
            geom,
            sampler,
            opts,
        } => {
            for l in lanes(mask) {
                let h = d.arg(s, 0, l);
                let mut k = 1;
                let smp = if sampler {
                    k += 1;
                    Some(d.arg(s, 1, l))
                } else {
                    None
                };
                let layer = if geom.arrayed() {
                    k += 1;
                    d.arg(s, k - 1, l) as i32
                } else {
                    0
                };
                let mut coords = [0f32; 3];
                for c in coords.iter_mut().take(geom.dims() as usize) {
                    *c = f32_of(d.arg(s, k, l));
                    k += 1;
                }
                let mut offset = [0i32; 2];
                if opts.offset {
                    offset = [
                        texel_offset(d.arg(s, k, l)),
                        texel_offset(d.arg(s, k + 1, l)),
                    ];
                    k += 2;
                }
                let req = GatherRequest {
                    comp,
                    layer,
                    coords,
                    offset,
                    compare: opts.compare.then(|| f32_of(d.arg(s, k, l))),
                };
                let r = match texture::gather(table, env, h, smp, &req) {
                    Ok(r) => r,
                    Err(f) => {
                        record(env, d, l, f, false);
                        [0; 4]
                    }
                };
                for (k, v) in r.iter().enumerate() {
                    d.set(s, k, l, *v as u64);
                }
            }
        }
        Op::Txq { attr, level } => {
            for l in lanes(mask) {
                let h = d.arg(s, 0, l);
                let lv = level.then(|| d.arg(s, 1, l) as i32);
                let r = match texture::query(table, h, attr, lv) {
                    Ok(r) => r,
                    Err(f) => {
                        record(env, d, l, f, false);
                        0
                    }
                };
                d.set(s, 0, l, r as u64);
            }
        }
        Op::Suq { attr } => {
            for l in lanes(mask) {
                let h = d.arg(s, 0, l);
                let r = match table.surface(h) {
                    Some(_) => texture::query(table, h, attr, None).unwrap_or(0),
                    None => {
                        record(env, d, l, TexFault::bad_handle(h), false);
                        0
                    }
                };
                d.set(s, 0, l, r as u64);
            }
        }
        Op::Istypep { kind } => {
            for l in lanes(mask) {
                let h = d.arg(s, 0, l);
                d.set(s, 0, l, texture::is_type(table, h, kind) as u64);
            }
        }
        Op::Suld {
            geom,
            clamp,
            formatted,
            vec,
        } => {
            let elem = d.res.first().map_or(4, |r| r.bytes);
            for l in lanes(mask) {
                let (h, req) = surf_req(d, s, l, geom, clamp, formatted);
                let r = match texture::surf_load(table, env, h, &req, elem, vec as u32) {
                    Ok(r) => r,
                    Err(f) => {
                        record(env, d, l, f, false);
                        [0; 4]
                    }
                };
                for (k, v) in r.iter().enumerate().take(vec as usize) {
                    d.set(s, k, l, *v);
                }
            }
        }
        Op::Sust {
            geom,
            clamp,
            formatted,
            vec,
        } => {
            let nc = 1 + geom.arrayed() as usize + geom.dims() as usize;
            let elem = d.args.get(nc).map_or(4, |a| a.bytes);
            for l in lanes(mask) {
                let (h, req) = surf_req(d, s, l, geom, clamp, formatted);
                let mut vals = [0u64; 4];
                for (k, v) in vals.iter_mut().enumerate().take(vec as usize) {
                    *v = d.arg(s, nc + k, l);
                }
                if let Err(f) =
                    texture::surf_store(table, env, h, &req, elem, &vals[..vec as usize])
                {
                    record(env, d, l, f, true);
                }
            }
        }
        Op::Sured {
            op,
            geom,
            clamp,
            formatted,
        } => {
            let nc = 1 + geom.arrayed() as usize + geom.dims() as usize;
            let ty = match d.args.get(nc).map_or(4, |a| a.bytes) {
                8 => Type::I64,
                _ => Type::I32,
            };
            for l in lanes(mask) {
                let (h, req) = surf_req(d, s, l, geom, clamp, formatted);
                let v = d.arg(s, nc, l);
                if let Err(f) = texture::surf_reduce(table, env, h, &req, op, ty, v) {
                    record(env, d, l, f, true);
                }
            }
        }
        _ => {}
    }
}

/// `tex.2d` with float coordinates at the base level, no offsets and no depth compare
/// (operands: handle, sampler when `sampler`, x, y) through [`Fast2d`] when every lane of
/// `mask` names the same live texture (and sampler) and the fast path takes it; false (and
/// nothing done) otherwise, for the generic path to run.
fn tex2d_fast(
    d: &WarpDesc,
    mask: u32,
    s: &mut [u8],
    env: &CtaEnv,
    sampler: bool,
    results: TexResults,
) -> bool {
    let first = mask.trailing_zeros();
    let h = d.arg(s, 0, first);
    let smp = sampler.then(|| d.arg(s, 1, first));
    let uniform =
        d.arg_in_lanes_is(s, 0, mask, h) && smp.is_none_or(|sh| d.arg_in_lanes_is(s, 1, mask, sh));
    if !uniform {
        return false;
    }
    let table = env.textures();
    let Some(t) = table.texture(h) else {
        return false;
    };
    let samp = match smp {
        Some(sh) => match table.sampler(sh) {
            Some(x) => x,
            None => return false,
        },
        None => &t.tex,
    };
    let Some(fast) = Fast2d::new(t, samp, env, results) else {
        return false;
    };
    let k = 1 + sampler as usize;
    let x = d.gather32(s, k, mask).map(f32::from_bits);
    let y = d.gather32(s, k + 1, mask).map(f32::from_bits);
    let mut out = [[0u32; WARP_LANES]; 4];
    fast.fetch_lanes(mask, &x, &y, &mut out);
    for (k, v) in out.iter().enumerate() {
        d.scatter32(s, k, mask, v);
    }
    true
}

/// The surface handle and request of a surface op's leading operands.
fn surf_req(
    d: &WarpDesc,
    s: &[u8],
    l: u32,
    geom: crate::ir::TexGeom,
    clamp: crate::ir::SurfClamp,
    formatted: bool,
) -> (u64, SurfRequest) {
    let h = d.arg(s, 0, l);
    let mut k = 1;
    let layer = if geom.arrayed() {
        k += 1;
        d.arg(s, 1, l) as i32
    } else {
        0
    };
    let mut coords = [0i32; 3];
    for (c, x) in coords.iter_mut().enumerate().take(geom.dims() as usize) {
        *x = d.arg(s, k + c, l) as i32;
    }
    (
        h,
        SurfRequest {
            geom,
            clamp,
            formatted,
            layer,
            coords,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::texel_offset;

    /// Register offsets keep their low four bits as a signed value (-8..=7).
    #[test]
    fn register_offsets_wrap_to_four_bits() {
        for (v, want) in [(0u64, 0), (7, 7), (8, -8), (9, -7), (u32::MAX as u64, -1)] {
            assert_eq!(texel_offset(v), want, "{v}");
        }
        assert_eq!(texel_offset((-9i32) as u32 as u64), 7);
        assert_eq!(texel_offset((-8i32) as u32 as u64), -8);
    }
}
