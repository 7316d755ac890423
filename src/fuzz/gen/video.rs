//! The video instructions (PTX ISA §9.7.18) as straight-line statements: the scalar `vadd vsub
//! vabsdiff vmin vmax vshl vshr vmad vset` with operand selectors (`.b0`-`.b3`, `.h0`/`.h1`),
//! `.sat`, a secondary operation (`.add`/`.min`/`.max` with `c`) or a data merge (`d.b1`,
//! `d.h0`, ... keeping `c`'s other bits), `vmad`'s negations, `.po` and scales; and the SIMD
//! `vadd2 … vset2` / `vadd4 … vset4` forms with lane selectors, destination masks and `.add`
//! accumulation. Every operand is a 32-bit register and every result is a function of the
//! operands the ISA defines, so the statements go anywhere. Forms follow what ptxas 13.5
//! accepts: `vmad` negates `a` or `b` (not both) or `c`, and `.po` negates nothing.

use super::{Class, Gen, Stmt};

/// The scalar operations with the common operand shape (§9.7.18.1.1).
const SCALAR: &[&str] = &["vadd", "vsub", "vabsdiff", "vmin", "vmax"];
/// The two-way and four-way SIMD operations (§9.7.18.2.1, §9.7.18.3.1), without the digit.
const SIMD: &[&str] = &["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"];
const SIGNS: &[&str] = &["u32", "s32"];
const CMPS: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge"];
const SCALAR_SELS: &[&str] = &[".b0", ".b1", ".b2", ".b3", ".h0", ".h1"];

impl Gen<'_> {
    /// One video instruction.
    pub(super) fn video(&mut self) -> Stmt {
        let line = match self.rng.below(10) {
            0..=2 => self.video_scalar(),
            3 => self.video_shift(),
            4 => self.video_mad(),
            5 => self.video_set(),
            _ => self.video_simd(),
        };
        let g = self.guard();
        Stmt::Code(vec![format!("{g}{line}")])
    }

    /// A 32-bit source register, with a scalar selector at times.
    fn video_src(&mut self) -> String {
        let r = self.src_reg(Class::B32);
        if self.rng.chance(50) {
            let s = *self.rng.pick(SCALAR_SELS);
            format!("{r}{s}")
        } else {
            r
        }
    }

    fn video_types(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| format!(".{}", self.rng.pick(SIGNS)))
            .collect()
    }

    /// The three operand forms of §9.7.18.1 after the opcode and types (`.sat` allowed
    /// where `sat`): plain, with a secondary operation, and with a data merge.
    fn video_tail(&mut self, sat: bool, mode: &str) -> String {
        let d = self.data_reg(Class::B32);
        let a = self.video_src();
        let b = self.video_src();
        let sat = if sat && self.rng.chance(40) {
            ".sat"
        } else {
            ""
        };
        match self.rng.below(3) {
            0 => format!("{sat}{mode} {d}, {a}, {b};"),
            1 => {
                let op2 = *self.rng.pick(&[".add", ".min", ".max"]);
                let c = self.src_reg(Class::B32);
                format!("{sat}{mode}{op2} {d}, {a}, {b}, {c};")
            }
            _ => {
                let dsel = *self.rng.pick(SCALAR_SELS);
                let c = self.src_reg(Class::B32);
                format!("{sat}{mode} {d}{dsel}, {a}, {b}, {c};")
            }
        }
    }

    fn video_scalar(&mut self) -> String {
        let op = *self.rng.pick(SCALAR);
        let tys = self.video_types(3);
        let tail = self.video_tail(true, "");
        format!("{op}{tys}{tail}")
    }

    /// `vshl`/`vshr`: `b` is `.u32` and a mode (`.clamp`/`.wrap`) is required.
    fn video_shift(&mut self) -> String {
        let op = *self.rng.pick(&["vshl", "vshr"]);
        let tys = self.video_types(2);
        let mode = *self.rng.pick(&[".clamp", ".wrap"]);
        let tail = self.video_tail(true, mode);
        format!("{op}{tys}.u32{tail}")
    }

    /// `vmad`: `d = a * b + c` with negations, `.po` (plus one), saturation and a final shift.
    fn video_mad(&mut self) -> String {
        let tys = self.video_types(3);
        let d = self.data_reg(Class::B32);
        let mut a = self.video_src();
        let mut b = self.video_src();
        let mut c = self.src_reg(Class::B32);
        let sat = if self.rng.chance(40) { ".sat" } else { "" };
        let scale = *self.rng.pick(&["", "", ".shr7", ".shr15"]);
        if self.rng.chance(25) {
            return format!("vmad{tys}.po{sat}{scale} {d}, {a}, {b}, {c};");
        }
        match self.rng.below(4) {
            0 => a = format!("-{a}"),
            1 => b = format!("-{b}"),
            2 => c = format!("-{c}"),
            _ => {}
        }
        format!("vmad{tys}{sat}{scale} {d}, {a}, {b}, {c};")
    }

    /// `vset`: a comparison whose 0/1 result may go through a secondary operation or merge.
    fn video_set(&mut self) -> String {
        let tys = self.video_types(2);
        let cmp = format!(".{}", self.rng.pick(CMPS));
        let tail = self.video_tail(false, &cmp);
        format!("vset{tys}{tail}")
    }

    /// A SIMD form: lanes of 16 bits (`2`) or 8 bits (`4`), lane selectors on `a` and `b`
    /// (digits index the pair `{b, a}`), a destination mask (the lanes written; the others
    /// keep `c`'s), and `.sat` or `.add` (the lanes' results summed with `c`).
    fn video_simd(&mut self) -> String {
        let lanes: u64 = if self.rng.chance(50) { 2 } else { 4 };
        let set = self.rng.chance(20);
        let d = self.data_reg(Class::B32);
        let a = self.src_reg(Class::B32);
        let b = self.src_reg(Class::B32);
        let c = self.src_reg(Class::B32);
        let (kind, top) = if lanes == 2 { ('h', 3) } else { ('b', 7) };
        let lane_sel = |rng: &mut crate::fuzz::rng::Rng| {
            if rng.chance(50) {
                let digits: String = (0..lanes)
                    .map(|_| char::from(b'0' + rng.range(0, top) as u8))
                    .collect();
                format!(".{kind}{digits}")
            } else {
                String::new()
            }
        };
        let asel = lane_sel(self.rng);
        let bsel = lane_sel(self.rng);
        let mask = if self.rng.chance(50) {
            // A non-empty set of lanes, highest first (`.h10`, `.b310`).
            let bits = self.rng.range(1, (1 << lanes) - 1);
            let digits: String = (0..lanes)
                .rev()
                .filter(|l| bits >> l & 1 == 1)
                .map(|l| char::from(b'0' + l as u8))
                .collect();
            format!(".{kind}{digits}")
        } else {
            String::new()
        };
        let acc = self.rng.below(3);
        let (op, tys, extra) = if set {
            let tys = self.video_types(2);
            let cmp = format!(".{}", self.rng.pick(CMPS));
            let add = if acc == 0 { ".add" } else { "" };
            (format!("vset{lanes}"), tys, format!("{cmp}{add}"))
        } else {
            let op = format!("{}{lanes}", self.rng.pick(SIMD));
            let tys = self.video_types(3);
            let extra = match acc {
                0 => ".add",
                1 => ".sat",
                _ => "",
            };
            (op, tys, extra.to_string())
        };
        format!("{op}{tys}{extra} {d}{mask}, {a}{asel}, {b}{bsel}, {c};")
    }
}
