//! `st.async` (PTX ISA §9.7.9.12) and `red.async` (§9.7.13.7) between the CTAs of a cluster
//! (`sm_90`, shared memory; top level before any exit, as a cluster exchange: every thread of
//! every CTA of the cluster runs the statement, in the same order). Each CTA receives from the
//! CTA `d` ranks before it and sends to the one `d` ranks after it (a bijection, so every CTA
//! has one sender); without a cluster launch the CTA sends to itself.
//!
//! - Thread 0 initialises the CTA's `fz_mbc` for all its threads (`mbarrier.init`, at times
//!   `fence.mbarrier_init.release.cluster`); `barrier.cluster.arrive`/`wait` makes the object
//!   valid before any peer completes a transaction on it (and ends every earlier access of
//!   the CTA's shared memory before a peer writes it).
//! - Every thread's arrival carries the bytes its slot will receive, as expect-tx (on its own
//!   `arrive.expect_tx`, a separate `expect_tx`, or thread 0's for the whole CTA), before the
//!   cluster barrier, after it, or after the thread's own sends: a peer's complete-tx may come
//!   first (the tx-count goes below zero, §9.7.13.15.4), but the phase cannot complete before
//!   the CTA's last arrival, which comes after all its expect-tx.
//! - Thread `t` sends to the slot `t` of the peer (`mapa` of its own slot address; one writer
//!   per slot): `st.async` of scalars and `.v2`/`.v4` vectors and `red.async` of any
//!   operation into disjoint bytes of the slot's first [`SINGLE`], and `red.async` of a
//!   commutative, associative operation (integer `add`, `min`, `max`, `and`, `or`, `xor`)
//!   into the rest of slot `t & !3`, where four threads reduce into the same words with the
//!   same operation: the result does not depend on their order. Every op completes its bytes
//!   on the peer's `fz_mbc` (its `mapa` address).
//! - Every thread waits for the phase (by parity 0 or by its arrive's state), so every byte
//!   sent to the CTA is in; loads of any of its slots read them into data registers; a
//!   `bar.sync 0` (nobody waits on the object any more) and thread 0's `mbarrier.inval` end
//!   the statement.

use super::{Class, Gen, Stmt, SHARED_SLOT};

/// The bytes of a slot that its one sender writes; the multi-writer reductions go to the
/// rest.
const SINGLE: u32 = 24;

/// `st.async` element types (PTX ISA §9.7.9.12), the register class holding one, its bytes.
const ST_TYPES: &[(&str, Class, u32)] = &[
    ("b32", Class::B32, 4),
    ("u32", Class::B32, 4),
    ("s32", Class::B32, 4),
    ("f32", Class::F32, 4),
    ("b64", Class::B64, 8),
    ("u64", Class::B64, 8),
    ("s64", Class::B64, 8),
    ("f64", Class::F64, 8),
];

/// `red.async` operations and types (PTX ISA §9.7.13.7) and the bytes of one; whether the
/// operation commutes (several writers of a word may use it).
const RED_OPS: &[(&str, &str, u32, bool)] = &[
    ("add", "u32", 4, true),
    ("add", "s32", 4, true),
    ("add", "u64", 8, true),
    ("min", "u32", 4, true),
    ("min", "s32", 4, true),
    ("max", "u32", 4, true),
    ("max", "s32", 4, true),
    ("inc", "u32", 4, false),
    ("dec", "u32", 4, false),
    ("and", "b32", 4, true),
    ("or", "b32", 4, true),
    ("xor", "b32", 4, true),
];

/// The `red.async` prefix (its only semantics and scope, §9.7.13.7), with or without the
/// optional `.shared::cluster`.
fn red_prefix(space: bool, op: &str, ty: &str) -> String {
    let sp = if space { ".shared::cluster" } else { "" };
    format!("red.async.relaxed.cluster{sp}.mbarrier::complete_tx::bytes.{op}.{ty}")
}

impl Gen<'_> {
    /// A source operand of `n` registers of class `c` (a vector operand where `n > 1`).
    fn async_src(&mut self, c: Class, n: usize) -> String {
        if n == 1 {
            return self.src_reg(c);
        }
        let regs: Vec<String> = (0..n).map(|_| self.data_reg(c)).collect();
        format!("{{{}}}", regs.join(", "))
    }

    /// One `st.async`/`red.async` statement between the CTAs of a cluster (see the module
    /// documentation).
    pub(super) fn cluster_async(&mut self) -> Stmt {
        let d = self.rng.below(4);
        let mut sends = Vec::new();
        // Loads after the phase: (type, class, offset) of bytes a send wrote.
        let mut written: Vec<(&str, Class, u32)> = Vec::new();
        let mut at = 0u32;
        // Bytes each thread sends (and its slot receives).
        let mut total = 0u32;
        for _ in 0..self.rng.range(1, 3) {
            let space = self.rng.chance(60);
            if self.rng.chance(60) {
                let (ty, class, size) = *self.rng.pick(ST_TYPES);
                let n: u32 = match self.rng.below(3) {
                    0 if size == 4 => 4,
                    1 => 2,
                    _ => 1,
                };
                let bytes = size * n;
                let off = at.next_multiple_of(bytes);
                if off + bytes > SINGLE {
                    continue;
                }
                at = off + bytes;
                total += bytes;
                let sem = *self.rng.pick(&["", ".weak", ".cluster"]);
                let sp = if space { ".shared::cluster" } else { "" };
                let vec = if n > 1 {
                    format!(".v{n}")
                } else {
                    String::new()
                };
                let src = self.async_src(class, n as usize);
                sends.push(format!(
                    "st.async{sem}{sp}.mbarrier::complete_tx::bytes{vec}.{ty} [%td0+{off}], {src}, [%td1];"
                ));
                written.push((ty, class, off + size * self.rng.below(n as u64) as u32));
            } else {
                let (op, ty, bytes, _) = *self.rng.pick(RED_OPS);
                let off = at.next_multiple_of(bytes);
                if off + bytes > SINGLE {
                    continue;
                }
                at = off + bytes;
                total += bytes;
                let class = if bytes == 8 { Class::B64 } else { Class::B32 };
                let src = self.src_reg(class);
                sends.push(format!(
                    "{} [%td0+{off}], {src}, [%td1];",
                    red_prefix(space, op, ty)
                ));
                written.push((ty, class, off));
            }
        }
        // Reductions of four senders into one word of slot `t & !3` (same op per word).
        let mut shared_words = Vec::new();
        if self.rng.chance(50) {
            let commuting: Vec<_> = RED_OPS.iter().filter(|r| r.3).collect();
            let &&(op, ty, bytes, _) = self.rng.pick(&commuting);
            let space = self.rng.chance(60);
            let class = if bytes == 8 { Class::B64 } else { Class::B32 };
            let mut words = vec![(op, ty, class, SINGLE)];
            if bytes == 4 && self.rng.chance(50) {
                let &&(op2, ty2, bytes2, _) = self.rng.pick(&commuting);
                if bytes2 == 4 {
                    words.push((op2, ty2, Class::B32, SINGLE + 4));
                }
            }
            for (op, ty, class, off) in words {
                total += if class == Class::B64 { 8 } else { 4 };
                let src = self.src_reg(class);
                shared_words.push(format!(
                    "{} [%td0+{off}], {src}, [%td1];",
                    red_prefix(space, op, ty)
                ));
                written.push((ty, class, off));
            }
        }
        let mut lines = Vec::new();
        if self.rng.chance(40) {
            // A store of the own slot first: the bytes the peer's reductions start from.
            let (ty, _, off, src) = self.slot_word();
            lines.push(format!("st.shared.{ty} [%so+{off}], {src};"));
        }
        lines.push("setp.eq.u32 %pb, %tl, 0;".to_string());
        lines.push("@%pb mbarrier.init.shared::cta.b64 [fz_mbc], $NT$;".to_string());
        if self.rng.chance(50) {
            lines.push("@%pb fence.mbarrier_init.release.cluster;".to_string());
        }
        let (arrive, wait) = *self.rng.pick(&[
            ("barrier.cluster.arrive", "barrier.cluster.wait"),
            (
                "barrier.cluster.arrive.release.aligned",
                "barrier.cluster.wait.acquire.aligned",
            ),
        ]);
        // The expect-tx and arrival: 0 before the cluster barrier (after a `bar.sync 0`
        // that makes the initialisation visible to the CTA), 1 after it, 2 after the sends.
        let when = self.rng.below(3);
        let expect = self.async_expect(total);
        if when == 0 {
            lines.push("bar.sync 0;".to_string());
            lines.extend(expect.iter().cloned());
        }
        lines.push(format!("{arrive};"));
        lines.push(format!("{wait};"));
        if when == 1 {
            lines.extend(expect.iter().cloned());
        }
        lines.extend([
            "mov.u32 %t0, %cluster_ctarank;".to_string(),
            "mov.u32 %t1, %cluster_nctarank;".to_string(),
            format!("add.u32 %t0, %t0, {d};"),
            "rem.u32 %t0, %t0, %t1;".to_string(),
            "mapa.shared::cluster.u64 %td0, %so, %t0;".to_string(),
            "mov.u64 %td1, fz_mbc;".to_string(),
            "mapa.shared::cluster.u64 %td1, %td1, %t0;".to_string(),
        ]);
        lines.extend(sends);
        if !shared_words.is_empty() {
            lines.extend([
                "and.b32 %t1, %tl, -4;".to_string(),
                format!("mul.wide.u32 %td0, %t1, {SHARED_SLOT};"),
                "add.s64 %td0, %sb, %td0;".to_string(),
                "mapa.shared::cluster.u64 %td0, %td0, %t0;".to_string(),
            ]);
            lines.extend(shared_words);
        }
        if when == 2 {
            lines.extend(expect);
        }
        let sem = *self.rng.pick(&["", ".acquire.cta", ".acquire.cluster"]);
        let wait = match self.rng.below(3) {
            0 => format!("mbarrier.try_wait{sem}.shared::cta.b64 %pb, [fz_mbc], %tdm;"),
            1 => format!("mbarrier.test_wait{sem}.shared::cta.b64 %pb, [fz_mbc], %tdm;"),
            _ => format!("mbarrier.try_wait.parity{sem}.shared::cta.b64 %pb, [fz_mbc], 0;"),
        };
        lines.push("$L__ca$ID$:".to_string());
        lines.push(wait);
        lines.push("@!%pb bra $L__ca$ID$;".to_string());
        // Read back: bytes of the own slot a peer wrote, and a word of any slot.
        if !written.is_empty() {
            let &(ty, class, off) = self.rng.pick(&written);
            let dst = self.data_reg(class);
            if off >= SINGLE {
                // The multi-writer words lie in slot `t & !3`.
                lines.extend([
                    "and.b32 %t1, %tl, -4;".to_string(),
                    format!("mul.wide.u32 %td0, %t1, {SHARED_SLOT};"),
                    "add.s64 %td0, %sb, %td0;".to_string(),
                    format!("ld.shared.{ty} {dst}, [%td0+{off}];"),
                ]);
            } else {
                lines.push(format!("ld.shared.{ty} {dst}, [%so+{off}];"));
            }
        }
        let (ty, class, off, _) = self.slot_word();
        let who = self.src_reg(Class::B32);
        let dst = self.data_reg(class);
        lines.extend([
            format!("rem.u32 %t2, {who}, $NT$;"),
            format!("mul.wide.u32 %td0, %t2, {SHARED_SLOT};"),
            "add.s64 %td0, %sb, %td0;".to_string(),
            format!("ld.shared.{ty} {dst}, [%td0+{off}];"),
            "bar.sync 0;".to_string(),
            "setp.eq.u32 %pb, %tl, 0;".to_string(),
            "@%pb mbarrier.inval.shared::cta.b64 [fz_mbc];".to_string(),
        ]);
        Stmt::Code(lines)
    }

    /// The expect-tx of `bytes` per thread on `fz_mbc` and every thread's arrival there (its
    /// state in `%tdm`): each thread's own `arrive.expect_tx`, a separate `expect_tx` then
    /// the arrival, or thread 0's `arrive.expect_tx` for the whole CTA.
    fn async_expect(&mut self, bytes: u32) -> Vec<String> {
        let sem = *self.rng.pick(&["", ".release.cta", ".release.cluster"]);
        match self.rng.below(3) {
            0 => vec![format!(
                "mbarrier.arrive.expect_tx{sem}.shared::cta.b64 %tdm, [fz_mbc], {bytes};"
            )],
            1 => vec![
                format!("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [fz_mbc], {bytes};"),
                format!("mbarrier.arrive{sem}.shared::cta.b64 %tdm, [fz_mbc];"),
            ],
            _ => vec![
                "mov.u32 %t2, $NT$;".to_string(),
                format!("mul.lo.u32 %t2, %t2, {bytes};"),
                "setp.eq.u32 %pu, %tl, 0;".to_string(),
                format!("@%pu mbarrier.arrive.expect_tx{sem}.shared::cta.b64 %tdm, [fz_mbc], %t2;"),
                format!("@!%pu mbarrier.arrive{sem}.shared::cta.b64 %tdm, [fz_mbc];"),
            ],
        }
    }
}
