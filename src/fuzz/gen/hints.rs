//! Cache and scheduling hints, which change no result: `createpolicy` (fractional and range
//! policies, PTX ISA §9.7.9.18) feeding the `.L2::cache_hint` operand of loads from the input
//! buffer and stores into the thread's own `out` bytes (and of the atomics of
//! `Gen::atomic`, which draw their policy here), `applypriority` (§9.7.9.16) and
//! `prefetchu` (§9.7.9.15) on the input buffer, `nanosleep` (§9.7.19.2) of a few nanoseconds
//! and `pmevent` (§9.7.19.3), `brkpt` (§9.7.19.1: ptxjit has no debugger to suspend for) and
//! (`sm_90`) `griddepcontrol` (§9.7.13.12: a case is one launch, so there is no prerequisite
//! grid to wait for and no dependent one to launch), and (`sm_100`, with `brkpt`) the
//! `fabric` submits and waits, which have nothing to order here. `discard` (§9.7.9.17) leaves "unstable indeterminate values",
//! so it runs only on the first 128 bytes of the thread's own `out` region, which the same
//! statement then overwrites whole. The policy stays in a scratch register (its bits are the
//! implementation's). `applypriority` and `discard` addresses are 128-byte aligned (the
//! buffers are; the offsets are multiples of 128).

use super::{Class, Gen, Stmt, IN_BYTES};

impl Gen<'_> {
    /// One hint statement.
    pub(super) fn hint(&mut self) -> Stmt {
        let mut lines = Vec::new();
        match self.rng.below(9) {
            7 => {
                lines.push("brkpt;".to_string());
                if self.sm100 {
                    // The fabric submits and waits (PTX ISA 9.3/9.5, sm_100): no effect, as
                    // ptxjit issues no fabric operation; the kernel then says `.version 9.5`.
                    // No draw, so the other kernels' streams stay as they were.
                    lines.extend(
                        [
                            "fabric.submit;",
                            "fabric.submit.op_restrict::fetching;",
                            "fabric.submit.commit_group;",
                            "fabric.wait.sync_restrict::reads;",
                            "fabric.wait.sync_restrict::read 0;",
                        ]
                        .map(String::from),
                    );
                }
            }
            8 if self.sm90 => lines.push(
                self.rng
                    .pick(&["griddepcontrol.wait;", "griddepcontrol.launch_dependents;"])
                    .to_string(),
            ),
            0 | 1 => self.cache_hint_access(&mut lines),
            2 => {
                self.masked("%gin", (IN_BYTES - 128) & !127, &mut lines);
                lines.push("applypriority.global.L2::evict_normal [%td0], 128;".to_string());
            }
            3 => {
                lines.push("discard.global.L2 [%od], 128;".to_string());
                for i in 0..8 {
                    let regs: Vec<String> = (0..4).map(|_| self.src_reg(Class::B32)).collect();
                    lines.push(format!(
                        "st.global.v4.b32 [%od+{}], {{{}}};",
                        16 * i,
                        regs.join(", ")
                    ));
                }
            }
            4 => {
                self.masked("%gin", IN_BYTES - 4, &mut lines);
                // A generic address (the only kind `prefetchu` takes).
                lines.push("cvta.global.u64 %td0, %td0;".to_string());
                lines.push("prefetchu.L1 [%td0];".to_string());
            }
            5 | 8 => {
                if self.rng.chance(50) {
                    lines.push(format!("nanosleep.u32 {};", self.rng.range(0, 100)));
                } else {
                    let src = self.src_reg(Class::B32);
                    lines.push(format!("and.b32 %t0, {src}, 63;"));
                    lines.push("nanosleep.u32 %t0;".to_string());
                }
            }
            _ => {
                if self.rng.chance(50) {
                    lines.push(format!("pmevent {};", self.rng.range(0, 15)));
                } else {
                    lines.push(format!("pmevent.mask {:#x};", self.rng.range(1, 0xffff)));
                }
            }
        }
        Stmt::Code(lines)
    }

    /// A policy into `%td1`, then a load from the input buffer or a store into the thread's own
    /// `out` bytes with `.L2::cache_hint`.
    fn cache_hint_access(&mut self, lines: &mut Vec<String>) {
        self.policy_td1(lines);
        let (ty, size, class, n) = self.mem_type(true);
        let total = size * n;
        let v = Self::vprefix(n);
        if self.rng.chance(60) {
            self.masked("%gin", (IN_BYTES - total) & !(total - 1), lines);
            let nc = if self.rng.chance(30) { ".nc" } else { "" };
            let dst = self.vec_dst(class, n);
            lines.push(format!(
                "ld.global{nc}.L2::cache_hint{v}.{ty} {dst}, [%td0], %td1;"
            ));
        } else {
            self.masked("%od", (64 - total) & !(total - 1), lines);
            let src = self.vec_src(class, n);
            lines.push(format!(
                "st.global.L2::cache_hint{v}.{ty} [%td0], {src}, %td1;"
            ));
        }
    }

    /// A cache policy into `%td1` (`createpolicy.fractional` with or without its fraction, or
    /// `createpolicy.range` over the input), for a `.L2::cache_hint` operand.
    pub(super) fn policy_td1(&mut self, lines: &mut Vec<String>) {
        let prim = *self.rng.pick(&[
            "evict_last",
            "evict_normal",
            "evict_first",
            "evict_unchanged",
        ]);
        let sec = *self
            .rng
            .pick(&["", ".L2::evict_first", ".L2::evict_unchanged"]);
        match self.rng.below(3) {
            0 => {
                let frac = *self.rng.pick(&["1.0", "0.5", "0f3E800000"]);
                lines.push(format!(
                    "createpolicy.fractional.L2::{prim}{sec}.b64 %td1, {frac};"
                ));
            }
            1 => lines.push(format!("createpolicy.fractional.L2::{prim}{sec}.b64 %td1;")),
            _ => {
                let prim = if prim == "evict_normal" {
                    "evict_last"
                } else {
                    prim
                };
                let primary = *self.rng.pick(&[128u32, 256, IN_BYTES]);
                lines.push(format!(
                    "createpolicy.range.L2::{prim}{sec}.b64 %td1, [%gin], {primary}, {IN_BYTES};"
                ));
            }
        }
    }
}
