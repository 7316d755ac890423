//! Tensor-map edits (`sm_90a` and `sm_100` kernels with a tensor map: PTX ISA 8.3 forms; CTA-uniform control flow before any
//! exit): thread 0 copies the kernel's tensor-map parameter ([`super::Kernel::tmap`], through
//! its generic address) into `fz_bulk` and, on `sm_90a`/`sm_100a`, edits a field there with
//! `tensormap.replace` (PTX ISA §9.7.9.26, `.shared::cta`); after `bar.sync 0` every thread
//! copies the map into the first 128 bytes of its own `out` region with
//! `tensormap.cp_fenceproxy` (§9.7.13.16, `.sync.aligned`: the whole CTA runs it) and, on
//! `sm_90a`/`sm_100a`, edits a field of its copy (`.global`, at times with a per-thread
//! value), followed at times by `fence.proxy.tensormap::generic.acquire`; a last `bar.sync 0`
//! frees `fz_bulk`. The bytes are the result (ptxjit's layout, docs/tensor-maps.md). Every
//! new value is in the range Table 33 and the field allow (`.swizzle_atomicity` only on
//! `sm_100a`: PTX ISA 8.6), so no edit faults.

use super::{Gen, Stmt};
use crate::runtime::tensormap::TENSOR_MAP_BYTES;

impl Gen<'_> {
    /// A `tensormap.replace` of a random field at `addr` in `space` (`global`, `shared::cta`),
    /// guarded by `guard`; its value is per thread at times where `per_thread`.
    fn tmap_replace(
        &mut self,
        guard: &str,
        space: &str,
        addr: &str,
        per_thread: bool,
    ) -> Vec<String> {
        let mut lines = Vec::new();
        let ord = self.rng.below(5);
        let reg = per_thread && self.rng.chance(50);
        let (field, ty, ord, value) = match self.rng.below(if self.sm100a { 11 } else { 10 }) {
            0 => {
                // 16-byte aligned, any address (the copy is not used for a transfer).
                let v = if reg {
                    lines.push("mul.wide.u32 %td1, %tl, 16;".to_string());
                    lines.push("add.s64 %td1, %gin, %td1;".to_string());
                    "%td1".to_string()
                } else {
                    format!("{:#x}", 16 * self.rng.range(0, 1 << 20))
                };
                ("global_address", "b64", None, v)
            }
            1 => ("rank", "b32", None, self.rng.below(5).to_string()),
            2 | 3 => {
                let v = if reg {
                    lines.push("and.b32 %t1, %tl, 255;".to_string());
                    lines.push("add.u32 %t1, %t1, 1;".to_string());
                    "%t1".to_string()
                } else {
                    self.rng.range(1, 256).to_string()
                };
                ("box_dim", "b32", Some(ord), v)
            }
            4 => {
                let v = if reg {
                    lines.push("add.u32 %t1, %gl, 1;".to_string());
                    "%t1".to_string()
                } else {
                    self.rng.range(1, u32::MAX as u64).to_string()
                };
                ("global_dim", "b32", Some(ord), v)
            }
            5 => (
                "global_stride",
                "b64",
                Some(ord.min(3)),
                (16 * self.rng.range(0, 1 << 20)).to_string(),
            ),
            6 => (
                "element_stride",
                "b32",
                Some(ord),
                self.rng.range(1, 8).to_string(),
            ),
            7 => ("elemtype", "b32", None, self.rng.below(13).to_string()),
            8 => {
                let (f, max) = *self.rng.pick(&[
                    ("interleave_layout", 2),
                    ("swizzle_mode", 3),
                    ("fill_mode", 1),
                ]);
                (f, "b32", None, self.rng.below(max + 1).to_string())
            }
            9 => ("fill_mode", "b32", None, self.rng.below(2).to_string()),
            _ => (
                "swizzle_atomicity",
                "b32",
                None,
                self.rng.below(4).to_string(),
            ),
        };
        let ord = ord.map(|o| format!("{o}, ")).unwrap_or_default();
        lines.push(format!(
            "{guard}tensormap.replace.tile.{field}.{space}.b1024.{ty} [{addr}], {ord}{value};"
        ));
        lines
    }

    /// One tensor-map edit statement (see the module documentation).
    pub(super) fn tmap_edit(&mut self) -> Stmt {
        let edit = self.sm90a || self.sm100a;
        let mut lines = vec![
            "bar.sync 0;".to_string(),
            "setp.eq.u32 %pb, %tl, 0;".to_string(),
        ];
        for off in (0..TENSOR_MAP_BYTES).step_by(8) {
            lines.push(format!("@%pb ld.b64 %td1, [%htmap+{off}];"));
            lines.push(format!("@%pb st.shared.b64 [fz_bulk+{off}], %td1;"));
        }
        if edit && self.rng.chance(60) {
            lines.extend(self.tmap_replace("@%pb ", "shared::cta", "fz_bulk", false));
        }
        lines.push("bar.sync 0;".to_string());
        let scope = *self.rng.pick(&["cta", "cluster", "gpu", "sys"]);
        lines.push(format!(
            "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.{scope}.sync.aligned [%od], [fz_bulk], 128;"
        ));
        if edit && self.rng.chance(70) {
            lines.extend(self.tmap_replace("", "global", "%od", true));
        }
        if self.rng.chance(40) {
            lines.push(format!(
                "fence.proxy.tensormap::generic.acquire.{scope} [%od], 128;"
            ));
        }
        lines.push("bar.sync 0;".to_string());
        Stmt::Code(lines)
    }
}
