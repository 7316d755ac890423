//! Notes for `ptxjit check` on atomics whose order can legitimately change results.
//!
//! Threads reach an atomic in an order the hardware does not fix (PTX ISA §8, the memory
//! consistency model: atomic operations on one location are totally ordered, but which order
//! is left open). Most atomics leave the same final value in any order (integer `add`, `and`,
//! `min` … commute), but three kinds do not:
//! - **float additions** (`atom.add.f32/.f64`, `.f16/.bf16` and their pairs, `red` too, and
//!   `sured` with such an operation): addition of floats is not associative, so the rounding of
//!   the sum depends on the order;
//! - **`exch`**: the last exchange wins;
//! - **an atomic whose returned (old) value is used**: what each thread gets back depends on
//!   how many reached the atomic before it — the slot of atomically appended output
//!   (`out[atomicAdd(&count, 1)] = v`), a ticket, a CAS loop's retries.
//!
//! Both engines and a GPU may therefore leave different (equally right) buffers. These notes
//! find such atomics in the IR of the kernels a case launches and say so, so a `DIFF` can be
//! read for what it is; `[expect.NAME]`'s `order = "any"` and `check = "tolerance"`/`"skip"`
//! are how a case says to compare such buffers. A note is information, never a failure.

use super::{Case, Prepared};
use crate::ir::{AtomOp, Function, Op, Terminator, Value};
use std::collections::HashSet;

/// One note per launched kernel that has order-dependent atomics, naming each kind once with
/// its PTX lines. Kernels launched more than once are noted once. A module that does not load
/// gives no notes (the run reports its error).
pub fn order_notes(case: &Case, prepared: &Prepared) -> Vec<String> {
    let mut fronts: Vec<Option<Vec<crate::ir::verify::VerifiedFunction>>> =
        prepared.modules.iter().map(|_| None).collect();
    let mut seen: HashSet<(usize, &str)> = HashSet::new();
    let mut notes = vec![];
    for (l, &m) in case.spec.launches.iter().zip(&prepared.launch_modules) {
        if !seen.insert((m, l.kernel.as_str())) {
            continue;
        }
        if fronts[m].is_none() {
            let src = &prepared.modules[m];
            fronts[m] = Some(
                crate::host::front_end(&src.text, &src.name)
                    .map(|(_, fs)| fs)
                    .unwrap_or_default(),
            );
        }
        let Some(f) = fronts[m]
            .as_ref()
            .and_then(|fs| fs.iter().find(|f| f.name == l.kernel))
        else {
            continue;
        };
        notes.extend(kernel_notes(f));
    }
    notes
}

/// Why an atomic's order matters, one per kind (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Reason {
    FloatAdd,
    Exchange,
    ResultUsed,
}

impl Reason {
    fn explain(self) -> &'static str {
        match self {
            Reason::FloatAdd => {
                "float additions in whatever order threads arrive: the sum's rounding can differ \
                 between runs and engines (compare with check = \"tolerance\")"
            }
            Reason::Exchange => {
                "the last exchange wins: which value is left can differ between runs and engines"
            }
            Reason::ResultUsed => {
                "the returned old value is used: it depends on the order threads arrive (the \
                 slot of atomically appended output, a ticket), so what is written with it can \
                 differ between runs and engines (compare such output with order = \"any\")"
            }
        }
    }
}

/// Whether the final value an atomic operation leaves depends on the order of the operations
/// (exhaustive over [`AtomOp`]: a new operation must be decided here).
fn op_reason(op: AtomOp) -> Option<Reason> {
    match op {
        AtomOp::FAdd | AtomOp::HAdd { .. } => Some(Reason::FloatAdd),
        AtomOp::Exch => Some(Reason::Exchange),
        // Commutative and associative: the same final value in any order. `inc`/`dec` with one
        // bound for all threads also end the same (each is a step on one cycle); `min`/`max`
        // on halves follow `min`/`max` (a NaN gives the other input: order-free).
        AtomOp::Add
        | AtomOp::And
        | AtomOp::Or
        | AtomOp::Xor
        | AtomOp::Min(_)
        | AtomOp::Max(_)
        | AtomOp::Inc
        | AtomOp::Dec
        | AtomOp::HMinMax { .. } => None,
    }
}

/// The notes for one kernel: `kernel NAME: atom.global.add.f32 (PTX lines 31, 40): …`.
fn kernel_notes(f: &Function) -> Vec<String> {
    let used = used_values(f);
    // (reason, PTX instruction text) → PTX lines.
    let mut found: Vec<((Reason, String), Vec<u32>)> = vec![];
    for (i, inst) in f.insts.iter().enumerate() {
        // Only atomics combine several threads' values in one location; every other op
        // writes memory by a plain store or not at all (plain stores racing on one location
        // are a bug of the kernel, not an order the hardware may choose).
        let (op, returns) = match inst.op {
            Op::Atom { op, .. } => (Some(op), true),
            Op::AtomCas { .. } | Op::Atom128 { .. } => (None, true),
            Op::Sured { op, .. } => (Some(op), false),
            _ => continue,
        };
        let result_used = returns && inst.results.iter().any(|r| used.contains(r));
        let reasons = op
            .and_then(op_reason)
            .into_iter()
            .chain(result_used.then_some(Reason::ResultUsed));
        for reason in reasons {
            let key = (reason, f.inst_ptx[i].clone());
            let line = f.inst_locs[i].line;
            match found.iter_mut().find(|(k, _)| *k == key) {
                Some((_, lines)) => lines.push(line),
                None => found.push((key, vec![line])),
            }
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
        .into_iter()
        .map(|((reason, ptx), mut lines)| {
            lines.sort_unstable();
            lines.dedup();
            let lines: Vec<String> = lines.iter().map(u32::to_string).collect();
            let s = if lines.len() == 1 { "" } else { "s" };
            format!(
                "kernel {}: {ptx} (PTX line{s} {}): {}",
                f.name,
                lines.join(", "),
                reason.explain()
            )
        })
        .collect()
}

/// Every value some instruction or terminator reads.
fn used_values(f: &Function) -> HashSet<Value> {
    let mut used: HashSet<Value> = f
        .insts
        .iter()
        .flat_map(|i| i.args.iter().copied())
        .collect();
    for b in &f.blocks {
        if let Terminator::Branch { cond, .. } = &b.term {
            used.insert(*cond);
        }
        for t in b.term.targets() {
            used.extend(t.args.iter().copied());
        }
    }
    used
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notes(ptx: &str) -> Vec<String> {
        let (_, fs) = crate::host::front_end(ptx, "t.ptx").expect("valid PTX");
        fs.iter().flat_map(|f| kernel_notes(f)).collect()
    }

    const HEAD: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

    #[test]
    fn order_dependent_atomics_are_noted() {
        let ptx = format!(
            "{HEAD}.visible .entry k(.param .u64 p)\n{{\n.reg .b64 %rd<4>;\n.reg .b32 %r<4>;\n.reg .f32 %f<3>;\n\
             ld.param.u64 %rd1, [p];\n\
             atom.global.add.u32 %r1, [%rd1], 1;\n\
             atom.global.add.u32 %r2, [%rd1], 1;\n\
             mul.wide.u32 %rd2, %r2, 4;\n\
             add.s64 %rd3, %rd1, %rd2;\n\
             st.global.u32 [%rd3], %r2;\n\
             red.global.add.f32 [%rd1], 0f3F800000;\n\
             red.global.max.u32 [%rd1], 7;\n\
             atom.global.exch.b32 %r3, [%rd1], 5;\n\
             ret;\n}}\n"
        );
        let n = notes(&ptx);
        assert_eq!(n.len(), 3, "{n:#?}");
        assert!(
            n[0].starts_with("kernel k: red.global.add.f32 (PTX line 15): float additions"),
            "{n:#?}"
        );
        assert!(
            n[1].starts_with("kernel k: atom.global.exch.b32 (PTX line 17): the last exchange"),
            "{n:#?}"
        );
        // The first atom.add's result is unused: only the second (line 11) is noted.
        assert!(
            n[2].starts_with(
                "kernel k: atom.global.add.u32 (PTX line 11): the returned old value is used"
            ),
            "{n:#?}"
        );
    }

    #[test]
    fn order_free_atomics_give_no_note() {
        let ptx = format!(
            "{HEAD}.visible .entry k(.param .u64 p)\n{{\n.reg .b64 %rd<2>;\n.reg .b32 %r<3>;\n\
             ld.param.u64 %rd1, [p];\n\
             atom.global.add.u32 %r1, [%rd1], 1;\n\
             red.global.or.b32 [%rd1], 2;\n\
             atom.global.min.s32 %r2, [%rd1], -3;\n\
             ret;\n}}\n"
        );
        assert_eq!(notes(&ptx), Vec::<String>::new());
    }
}
