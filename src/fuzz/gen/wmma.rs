//! `wmma` (PTX ISA §9.7.14.4, `sm_80` forms): `wmma.load` of A, B and C from the read-only
//! input buffer (`.row` or `.col`, the default or a larger stride, at 32-byte-aligned offsets
//! that keep the matrix inside the buffer), `wmma.mma`, and the result folded into data
//! registers; where the kernel has shared memory, at times `wmma.store` of D into the warp's
//! own 32 slots (a 16×16 matrix of 32-bit elements fills them exactly) and, after
//! `bar.warp.sync`, a load of a word of the thread's own slot. A warp collective: it appears
//! where `shfl.sync` may (CTA-uniform control flow, full warps). The fragment layout is
//! ptxjit's (`runtime::mma`), which both engines share; raw input bits (NaNs, infinities,
//! subnormals) are inputs like any.

use super::{Class, Gen, Stmt, IN_BYTES, SHARED_SLOT};

/// One `wmma` form: its shape, the element types of A/B (loads) and C/D, the fragment
/// registers of A, B and C/D (their count and whether they are `.f32`/`.f64`), and the
/// type list of `wmma.mma` after the shape.
struct WForm {
    shape: &'static str,
    /// Rows, columns and depth (m, n, k).
    mnk: (u32, u32, u32),
    ab: &'static str,
    /// Bytes of one A/B element.
    ab_bytes: u32,
    /// Fragment registers of A and B.
    ab_regs: (usize, usize),
    cd: &'static str,
    cd_bytes: u32,
    cd_regs: usize,
    cd_class: Class,
    types: &'static str,
}

const WFORMS: &[WForm] = &[
    WForm {
        shape: "m16n16k16",
        mnk: (16, 16, 16),
        ab: "f16",
        ab_bytes: 2,
        ab_regs: (8, 8),
        cd: "f32",
        cd_bytes: 4,
        cd_regs: 8,
        cd_class: Class::F32,
        types: "f32.f32",
    },
    WForm {
        shape: "m16n16k16",
        mnk: (16, 16, 16),
        ab: "f16",
        ab_bytes: 2,
        ab_regs: (8, 8),
        cd: "f16",
        cd_bytes: 2,
        cd_regs: 4,
        cd_class: Class::B32,
        types: "f16.f16",
    },
    WForm {
        shape: "m16n16k16",
        mnk: (16, 16, 16),
        ab: "bf16",
        ab_bytes: 2,
        ab_regs: (4, 4),
        cd: "f32",
        cd_bytes: 4,
        cd_regs: 8,
        cd_class: Class::F32,
        types: "f32.bf16.bf16.f32",
    },
    WForm {
        shape: "m16n16k8",
        mnk: (16, 16, 8),
        ab: "tf32",
        ab_bytes: 4,
        ab_regs: (4, 4),
        cd: "f32",
        cd_bytes: 4,
        cd_regs: 8,
        cd_class: Class::F32,
        types: "f32.tf32.tf32.f32",
    },
    WForm {
        shape: "m16n16k16",
        mnk: (16, 16, 16),
        ab: "s8",
        ab_bytes: 1,
        ab_regs: (2, 2),
        cd: "s32",
        cd_bytes: 4,
        cd_regs: 8,
        cd_class: Class::B32,
        types: "s32.s8.s8.s32",
    },
    WForm {
        shape: "m16n16k16",
        mnk: (16, 16, 16),
        ab: "u8",
        ab_bytes: 1,
        ab_regs: (2, 2),
        cd: "s32",
        cd_bytes: 4,
        cd_regs: 8,
        cd_class: Class::B32,
        types: "s32.u8.u8.s32",
    },
    WForm {
        shape: "m8n8k4",
        mnk: (8, 8, 4),
        ab: "f64",
        ab_bytes: 8,
        ab_regs: (1, 1),
        cd: "f64",
        cd_bytes: 8,
        cd_regs: 2,
        cd_class: Class::F64,
        types: "f64.f64.f64.f64",
    },
];

/// The fragment registers `first..first + n` of a class (`%wm` `.b32`, `%wmf` `.f32`,
/// `%wmd` `.f64`, declared by the renderer) as a vector operand.
fn frag(class: Class, first: usize, n: usize) -> String {
    let prefix = match class {
        Class::F32 => "%wmf",
        Class::F64 => "%wmd",
        _ => "%wm",
    };
    let regs: Vec<String> = (first..first + n).map(|i| format!("{prefix}{i}")).collect();
    format!("{{{}}}", regs.join(", "))
}

impl Gen<'_> {
    /// `wmma.load` of a `rows` × `cols` matrix of `bytes`-byte elements from the input buffer
    /// into `dst`, with a random layout and stride.
    fn wmma_load(
        &mut self,
        what: &str,
        shape: &str,
        dims: (u32, u32),
        (ty, bytes): (&str, u32),
        dst: &str,
    ) -> Vec<String> {
        let col = self.rng.chance(50);
        let layout = if col { "col" } else { "row" };
        let (outer, inner) = if col { (dims.1, dims.0) } else { dims };
        // The stride in elements: the leading dimension, or up to 8 more (written out).
        let span_of = |stride: u32| ((outer - 1) * stride + inner) * bytes;
        let mut extra = if self.rng.chance(30) {
            self.rng.range(1, 8) as u32
        } else {
            0
        };
        if span_of(inner + extra) > IN_BYTES {
            extra = 0;
        }
        let stride = inner + extra;
        let span = span_of(stride);
        let mut lines = Vec::new();
        self.masked("%gin", (IN_BYTES - span) & !31, &mut lines);
        let stride_op = if extra > 0 || self.rng.chance(30) {
            format!(", {stride}")
        } else {
            String::new()
        };
        lines.push(format!(
            "wmma.load.{what}.sync.aligned.{layout}.{shape}.global.{ty} {dst}, [%td0]{stride_op};"
        ));
        lines
    }

    /// One `wmma` statement (see the module documentation).
    pub(super) fn wmma(&mut self) -> Stmt {
        let f = &WFORMS[self.rng.below(WFORMS.len() as u64) as usize];
        let (m, n, k) = f.mnk;
        // Registers: A `%wm0..`, B `%wm8..`, C `%wm16..`, D `%wm24..` (`.b32`); C `%wmf0..`
        // and D `%wmf8..` (`.f32`); A `%wmd0`, B `%wmd1`, C `%wmd2..`, D `%wmd4..` (`.f64`).
        let (a, b) = if f.ab == "f64" {
            (frag(Class::F64, 0, 1), frag(Class::F64, 1, 1))
        } else {
            (
                frag(Class::B32, 0, f.ab_regs.0),
                frag(Class::B32, 8, f.ab_regs.1),
            )
        };
        let (c_first, d_first) = match f.cd_class {
            Class::F32 => (0, 8),
            Class::F64 => (2, 4),
            _ => (16, 24),
        };
        let c = frag(f.cd_class, c_first, f.cd_regs);
        let d = frag(f.cd_class, d_first, f.cd_regs);
        let mut lines = Vec::new();
        let ab = (f.ab, f.ab_bytes);
        lines.extend(self.wmma_load("a", f.shape, (m, k), ab, &a));
        lines.extend(self.wmma_load("b", f.shape, (k, n), ab, &b));
        lines.extend(self.wmma_load("c", f.shape, (m, n), (f.cd, f.cd_bytes), &c));
        let al = *self.rng.pick(&["row", "col"]);
        let bl = *self.rng.pick(&["row", "col"]);
        let extra = match f.cd {
            "s32" if self.rng.chance(50) => ".satfinite",
            "f64" => *self.rng.pick(&["", ".rn", ".rz", ".rm", ".rp"]),
            _ => "",
        };
        let (rnd, sat) = if f.cd == "f64" {
            (extra, "")
        } else {
            ("", extra)
        };
        lines.push(format!(
            "wmma.mma.sync.aligned.{al}.{bl}.{}{rnd}.{}{sat} {d}, {a}, {b}, {c};",
            f.shape, f.types
        ));
        // Fold D's registers into data registers (bit patterns, so nothing is rounded).
        let d_regs: Vec<String> = d
            .trim_matches(|ch| ch == '{' || ch == '}')
            .split(", ")
            .map(str::to_string)
            .collect();
        for reg in d_regs {
            match f.cd_class {
                Class::F64 => {
                    let dst = self.data_reg(Class::B64);
                    lines.push(format!("mov.b64 %td0, {reg};"));
                    lines.push(format!("xor.b64 {dst}, {dst}, %td0;"));
                }
                Class::F32 => {
                    let dst = self.data_reg(Class::B32);
                    lines.push(format!("mov.b32 %t0, {reg};"));
                    lines.push(format!("xor.b32 {dst}, {dst}, %t0;"));
                }
                _ => {
                    let dst = self.data_reg(Class::B32);
                    lines.push(format!("xor.b32 {dst}, {dst}, {reg};"));
                }
            }
        }
        // D into the warp's own slots (a 16×16 of 32-bit elements fills them; the others
        // less), then a word of the thread's own slot.
        if self.shared && self.rng.chance(60) {
            let layout = *self.rng.pick(&["row", "col"]);
            lines.push(format!("mul.wide.u32 %td0, %ln, {SHARED_SLOT};"));
            lines.push("sub.s64 %td0, %so, %td0;".to_string());
            lines.push(format!(
                "wmma.store.d.sync.aligned.{layout}.{}.shared.{} [%td0], {d};",
                f.shape, f.cd
            ));
            lines.push("bar.warp.sync -1;".to_string());
            let dst = self.data_reg(Class::B32);
            let at = 4 * self.rng.below((SHARED_SLOT / 4) as u64);
            lines.push(format!("ld.shared.b32 {dst}, [%so+{at}];"));
        }
        Stmt::Code(lines)
    }
}
