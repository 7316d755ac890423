//! The tensor-memory-accelerator statements of the `sm_90` flavour: tile-mode tensor maps of
//! rank 1 to 5 ([`TmapSetup`]), `cp.async.bulk.tensor` loads through the read-only map over
//! the input buffer ([`Kernel::tmap`](super::Kernel::tmap)), and stores and reductions
//! (`cp.async.bulk.tensor` shared → global, `cp.reduce.async.bulk.tensor`) through the
//! writable map over the `tout` buffer ([`Kernel::tmap_out`](super::Kernel::tmap_out)).
//!
//! # Why the results are determined
//! - Loads: thread 0 issues the copy into `fz_bulk` with the box's bytes expected on
//!   `fz_mbar`; every thread waits for the phase before reading, and a `bar.sync 0` comes
//!   before anything overwrites `fz_bulk`. Out-of-bounds elements read the map's fill.
//! - Stores and reductions: each CTA owns a *slab* of the writable tensor, the outermost
//!   dimension's [`TmapSetup::dims`] entry (the case's map has that many times the CTAs along
//!   it): the outermost coordinate is `%cl` × slab + an offset that keeps the box inside the
//!   slab, while the inner coordinates may put the box partly or wholly out of bounds (those
//!   elements are not written). Every thread fills its 16-byte units of `fz_bulk`
//!   (`fence.proxy.async.shared::cta`, `bar.sync 0`), thread 0 issues one to three
//!   operations, each waited for (`cp.async.bulk.wait_group 0`) before the next, so they
//!   apply in program order even where their boxes overlap (a floating-point `add` included);
//!   a `bar.sync 0` ends the statement before `fz_bulk` is filled again.

use super::{Class, Gen, Stmt, BULK_BYTES};
use crate::fuzz::rng::Rng;

/// Bytes of each CTA's slab of the writable tensor at most.
pub const SLAB_BYTES: u32 = 512;

/// A tile-mode tensor map (`cuTensorMapEncodeTiled`; the case's `[tensor_maps.NAME]`) of
/// rank 1 to 5: dense (no padding between rows), no swizzle or interleave, element strides
/// 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TmapSetup {
    /// Element type as case files name it.
    pub ty: &'static str,
    /// Its `CUtensorMapDataType` number.
    pub code: u32,
    /// Bytes per element.
    pub elem: u32,
    /// Dimensions, 1 to 5.
    pub rank: u32,
    /// Elements per dimension, innermost first (`rank` of them; the rest 1): a row (dimension
    /// 0) is a multiple of 16 bytes. For the writable map, the last is one CTA's slab.
    pub dims: [u32; 5],
    /// The box a copy moves (`rank` entries; the rest 1): dimension 0 × element size a
    /// multiple of 16 bytes, at most [`BULK_BYTES`] in all, each dimension at most the
    /// tensor's.
    pub boxd: [u32; 5],
    /// Out-of-bounds elements read as NaN (float types) instead of zero.
    pub oob_nan: bool,
}

impl TmapSetup {
    /// Bytes one copy moves (the whole box, out-of-bounds elements included).
    pub fn box_bytes(&self) -> u32 {
        self.boxd.iter().product::<u32>() * self.elem
    }

    /// Bytes of the tensor (dense).
    pub fn bytes(&self) -> u32 {
        self.dims.iter().product::<u32>() * self.elem
    }

    /// The byte strides of dimensions 1 .. `rank` (dense rows).
    pub fn strides(&self) -> Vec<u64> {
        let mut s = Vec::new();
        let mut acc = u64::from(self.elem);
        for d in 0..self.rank as usize - 1 {
            acc *= u64::from(self.dims[d]);
            s.push(acc);
        }
        s
    }

    /// The same map with the last dimension `n` times as long (the writable map over all the
    /// CTAs' slabs).
    pub fn times_outer(&self, n: u32) -> TmapSetup {
        let mut t = *self;
        t.dims[t.rank as usize - 1] *= n;
        t
    }

    /// A random map of at most `max_bytes` (the read-only one: [`IN_BYTES`](super::IN_BYTES); the writable
    /// one's slab: [`SLAB_BYTES`]).
    pub(super) fn random(rng: &mut Rng, max_bytes: u32) -> TmapSetup {
        let (ty, code, elem, float) = *rng.pick(&[
            ("u8", 0u32, 1u32, false),
            ("u16", 1, 2, false),
            ("u32", 2, 4, false),
            ("s32", 3, 4, false),
            ("u64", 4, 8, false),
            ("s64", 5, 8, false),
            ("f16", 6, 2, true),
            ("f32", 7, 4, true),
            ("f64", 8, 8, true),
            ("bf16", 9, 2, true),
        ]);
        let rank = *rng.pick(&[1u32, 2, 2, 2, 3, 3, 4, 5]);
        let row = (*rng.pick(&[16u32, 32, 48, 64, 128])).min(max_bytes);
        let box_row = (*rng.pick(&[16u32, 32, 64])).min(row);
        let mut dims = [1u32; 5];
        let mut boxd = [1u32; 5];
        dims[0] = row / elem;
        boxd[0] = box_row / elem;
        let (mut bytes, mut box_bytes) = (row, box_row);
        let most = match rank {
            2 => 16,
            3 => 6,
            _ => 4,
        };
        for d in 1..rank as usize {
            let n = (rng.range(1, most) as u32).min(max_bytes / bytes);
            dims[d] = n;
            bytes *= n;
            boxd[d] = (rng.range(1, u64::from(n)) as u32).min(BULK_BYTES / box_bytes);
            box_bytes *= boxd[d];
        }
        TmapSetup {
            ty,
            code,
            elem,
            rank,
            dims,
            boxd,
            oob_nan: float && rng.chance(40),
        }
    }

    /// The reductions `cp.reduce.async.bulk.tensor` takes on this element type (PTX ISA
    /// §9.7.9.25.5.2: `.add` on u32 s32 u64 f32 f16 bf16; `.min`/`.max` on u32 s32 u64 s64
    /// f16 bf16; `.inc`/`.dec` on u32; `.and`/`.or`/`.xor` on 32- and 64-bit integers).
    fn reductions(&self) -> &'static [&'static str] {
        match self.ty {
            "u32" => &["add", "min", "max", "inc", "dec", "and", "or", "xor"],
            "s32" => &["add", "min", "max", "and", "or", "xor"],
            "u64" => &["add", "min", "max", "and", "or", "xor"],
            "s64" => &["min", "max", "and", "or", "xor"],
            "f32" => &["add"],
            "f16" | "bf16" => &["add", "min", "max"],
            _ => &[],
        }
    }
}

impl Gen<'_> {
    /// Coordinates of a box of `t` into `%tk0 ..` (one per dimension, as a `{..}` list):
    /// each a data register masked so that the box lies inside the tensor along that
    /// dimension (three times in four), else to a small range around the tensor's extent
    /// (the box partly or wholly out of bounds). With `slab`, the outermost one is `%cl` ×
    /// the slab + a masked offset that keeps the box inside the CTA's slab.
    fn tmap_coords(&mut self, t: &TmapSetup, slab: bool, lines: &mut Vec<String>) -> String {
        // The largest 2^j - 1 <= room.
        let inside = |room: u32| {
            if room == 0 {
                0
            } else {
                u32::MAX >> ((room + 1).leading_zeros() + 1)
            }
        };
        let rank = t.rank as usize;
        let mut regs = Vec::new();
        for d in 0..rank {
            let src = self.src_reg(Class::B32);
            let (n, b) = (t.dims[d], t.boxd[d]);
            if slab && d == rank - 1 {
                lines.push(format!("and.b32 %tk{d}, {src}, {};", inside(n - b)));
                lines.push(format!("mad.lo.u32 %tk{d}, %cl, {n}, %tk{d};"));
            } else if self.rng.chance(75) {
                lines.push(format!("and.b32 %tk{d}, {src}, {};", inside(n - b)));
            } else {
                let mask = (n + b + 2).next_power_of_two() - 1;
                lines.push(format!("and.b32 %tk{d}, {src}, {mask};"));
                lines.push(format!("sub.s32 %tk{d}, %tk{d}, {b};"));
            }
            regs.push(format!("%tk{d}"));
        }
        format!("{{{}}}", regs.join(", "))
    }

    /// `cp.async.bulk.tensor.Nd` (PTX ISA §9.7.9.25.5.1, `sm_90`) of the read-only map's box
    /// into `fz_bulk`, completing on `fz_mbar` as [`Gen::bulk_copy`] does: thread 0 arrives
    /// with the box's bytes expected, every thread waits for the phase, reads the copied
    /// bytes, and passes `bar.sync 0` before another copy may overwrite them. At times a
    /// `cp.async.bulk.prefetch.tensor` (§9.7.9.25.5.3, a hint) of the same box first.
    pub(super) fn tensor_copy(&mut self) -> Stmt {
        let t = self.tmap.expect("tensor copies need Kernel::tmap");
        let bytes = t.box_bytes();
        let mut lines = Vec::new();
        let coords = self.tmap_coords(&t, false, &mut lines);
        let r = t.rank;
        lines.extend([
            "setp.eq.u32 %pb, %tl, 0;".to_string(),
            "@%pb fence.proxy.async.shared::cta;".to_string(),
            format!("@%pb mbarrier.arrive.expect_tx.shared::cta.b64 %tdm, [fz_mbar], {bytes};"),
            "@!%pb mbarrier.arrive.shared::cta.b64 %tdm, [fz_mbar];".to_string(),
        ]);
        if self.rng.chance(30) {
            lines.push(format!(
                "@%pb cp.async.bulk.prefetch.tensor.{r}d.L2.global.tile [%htmap, {coords}];"
            ));
        }
        // A `.shared::cta` destination needs PTX ISA 8.6 (the `sm_100` flavour's 8.8).
        let dst = if self.sm100 && self.rng.chance(50) {
            "shared::cta"
        } else {
            "shared::cluster"
        };
        lines.push(format!(
            "@%pb cp.async.bulk.tensor.{r}d.{dst}.global.tile.mbarrier::complete_tx::bytes [fz_bulk], [%htmap, {coords}], [fz_mbar];"
        ));
        self.mbarrier_wait(&mut lines, "t");
        for _ in 0..self.rng.range(1, 3) {
            let (ty, size, class) = *self.rng.pick(&[
                ("u32", 4u32, Class::B32),
                ("f32", 4, Class::F32),
                ("u64", 8, Class::B64),
                ("f64", 8, Class::F64),
                ("u16", 2, Class::B16),
            ]);
            if size > bytes {
                continue;
            }
            let within = self.src_reg(Class::B32);
            let dst = self.data_reg(class);
            lines.push("mov.u64 %td0, fz_bulk;".to_string());
            lines.push(format!("and.b32 %t0, {within}, {};", bytes - size));
            lines.push("cvt.u64.u32 %td1, %t0;".to_string());
            lines.push("add.s64 %td0, %td0, %td1;".to_string());
            lines.push(format!("ld.shared.{ty} {dst}, [%td0];"));
        }
        lines.push("bar.sync 0;".to_string());
        Stmt::Code(lines)
    }

    /// Stores and reductions through the writable map (`sm_90`, CTA-uniform control flow
    /// before any exit; see the module docs): every thread fills its 16-byte units of
    /// `fz_bulk` from data registers, `fence.proxy.async.shared::cta`, `bar.sync 0`; thread 0
    /// issues one to three `cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group`
    /// stores (§9.7.9.25.5.1) or `cp.reduce.async.bulk.tensor` reductions (§9.7.9.25.5.2) of
    /// a box in its CTA's slab, each committed and waited for; `bar.sync 0`.
    pub(super) fn tensor_store(&mut self) -> Stmt {
        let t = self.tmap_out.expect("tensor stores need Kernel::tmap_out");
        let units = t.box_bytes().div_ceil(16);
        let regs: Vec<String> = (0..4).map(|_| self.src_reg(Class::B32)).collect();
        let mut lines = vec![
            "mov.u32 %t0, %tl;".to_string(),
            "$L__tf$ID$:".to_string(),
            format!("setp.ge.u32 %pb, %t0, {units};"),
            "@%pb bra $L__tg$ID$;".to_string(),
            "mul.wide.u32 %td1, %t0, 16;".to_string(),
            "mov.u64 %td0, fz_bulk;".to_string(),
            "add.s64 %td0, %td0, %td1;".to_string(),
            format!("xor.b32 %t1, {}, %t0;", regs[0]),
            format!(
                "st.shared.v4.b32 [%td0], {{%t1, {}, {}, {}}};",
                regs[1], regs[2], regs[3]
            ),
            "add.u32 %t0, %t0, $NT$;".to_string(),
            "bra $L__tf$ID$;".to_string(),
            "$L__tg$ID$:".to_string(),
            "fence.proxy.async.shared::cta;".to_string(),
            "bar.sync 0;".to_string(),
        ];
        let r = t.rank;
        let reds = t.reductions();
        for _ in 0..self.rng.range(1, 3) {
            let coords = self.tmap_coords(&t, true, &mut lines);
            lines.push("setp.eq.u32 %pb, %tl, 0;".to_string());
            let op = if !reds.is_empty() && self.rng.chance(50) {
                let red = self.rng.pick(reds);
                format!("cp.reduce.async.bulk.tensor.{r}d.global.shared::cta.{red}.tile.bulk_group")
            } else {
                format!("cp.async.bulk.tensor.{r}d.global.shared::cta.tile.bulk_group")
            };
            lines.push(format!("@%pb {op} [%htmo, {coords}], [fz_bulk];"));
            lines.push("@%pb cp.async.bulk.commit_group;".to_string());
            if self.rng.chance(30) {
                lines.push("@%pb cp.async.bulk.wait_group.read 0;".to_string());
            }
            lines.push("@%pb cp.async.bulk.wait_group 0;".to_string());
        }
        lines.push("bar.sync 0;".to_string());
        Stmt::Code(lines)
    }
}

#[cfg(test)]
mod tests {
    use super::super::IN_BYTES;
    use super::*;

    /// Random maps keep the encoder's rules and the generator's budgets.
    #[test]
    fn random_maps_fit() {
        let mut rng = Rng::seeded(7);
        for _ in 0..2000 {
            for max in [IN_BYTES, SLAB_BYTES] {
                let t = TmapSetup::random(&mut rng, max);
                let r = t.rank as usize;
                assert!((1..=5).contains(&t.rank));
                assert!(t.bytes() <= max, "{t:?}");
                assert!(t.box_bytes() <= BULK_BYTES, "{t:?}");
                assert_eq!(t.dims[0] * t.elem % 16, 0, "{t:?}");
                assert_eq!(t.boxd[0] * t.elem % 16, 0, "{t:?}");
                for d in 0..5 {
                    assert!(t.boxd[d] >= 1 && t.boxd[d] <= t.dims[d], "{t:?}");
                    assert!(d < r || (t.dims[d] == 1 && t.boxd[d] == 1), "{t:?}");
                }
            }
        }
    }
}
