//! Whole families of instruction forms, enumerated by `tests/ptxas_forms/gen.py` with the
//! verdict of ptxas 13.5 on each (`ok` or `no`, in `tests/ptxas_forms/FAMILY.tsv`): ptxjit's
//! front end loads every form ptxas takes (or, for a form ptxjit does not run yet, refuses it
//! as unsupported) and refuses every form ptxas refuses with an "invalid" error at the
//! instruction's line:column. With `PTXAS` set, the recorded verdicts are checked against
//! that ptxas too.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The kernel of `gen.py`'s `frame`: `inst` on line 7 (where `inst` has a tab, what stands
/// before its last tab is module-scope text on line 3). `target` is `sm_NN` (PTX ISA 9.1) or
/// `sm_NN@X.Y` (PTX ISA X.Y).
fn frame(target: &str, inst: &str) -> String {
    let (target, version) = target.split_once('@').unwrap_or((target, "9.1"));
    let (prelude, inst) = inst.rsplit_once('\t').unwrap_or(("", inst));
    format!(
        ".version {version}\n.target {target}\n.address_size 64 {prelude}\n.visible .entry k(.param .u64 p)\n{{\n\
         .reg .b8 %b<16>; .reg .b16 %h<16>; .reg .b32 %r<16>; .reg .f32 %f<8>; .reg .f64 %fd<4>; \
         .reg .b64 %rd<8>; .reg .pred %p<4>;\n{inst}\nret;\n}}\n"
    )
}

/// (accepted by ptxas, target, instruction) of each line of `FAMILY.tsv`.
fn forms(family: &str) -> Vec<(bool, String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/ptxas_forms")
        .join(format!("{family}.tsv"));
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .map(|l| {
            let mut f = l.splitn(3, '\t');
            let (v, t, i) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
            assert!(v == "ok" || v == "no", "{l}");
            (v == "ok", t.to_string(), i.to_string())
        })
        .collect()
}

fn ptxas() -> Option<PathBuf> {
    std::env::var_os("PTXAS").map(PathBuf::from)
}

/// Check every form of `family`; `unsupported_ok` says which accepted forms ptxjit may still
/// refuse as unsupported (a form it does not run yet).
fn check(family: &str, unsupported_ok: impl Fn(&str) -> bool) {
    let mut bad = Vec::new();
    let all = forms(family);
    assert!(all.len() > 100, "{family}: {} forms", all.len());
    for (ok, target, inst) in &all {
        let text = frame(target, inst);
        match (ok, ptxjit::host::front_end(&text, "k.ptx")) {
            (true, Ok(_)) => {}
            (true, Err(e)) => {
                let msg = e.to_string();
                if !(msg.contains("unsupported instruction") && unsupported_ok(inst)) {
                    bad.push(format!("ptxas takes `{inst}`; ptxjit: {msg}"));
                }
            }
            (false, Ok(_)) => bad.push(format!("ptxas refuses `{inst}`; ptxjit loads it")),
            (false, Err(e)) => {
                let msg = e.to_string();
                // The instruction's line (the column of the instruction or of the operand).
                if !msg.contains("k.ptx:7:") || msg.contains("unsupported instruction") {
                    bad.push(format!("ptxas refuses `{inst}`; ptxjit says: {msg}"));
                }
            }
        }
    }
    if let Some(ptxas) = ptxas() {
        let dir =
            std::env::temp_dir().join(format!("ptxjit-forms-{family}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("k.ptx");
        for (ok, target, inst) in &all {
            std::fs::write(&file, frame(target, inst)).unwrap();
            let arch = target.split_once('@').map_or(target.as_str(), |(t, _)| t);
            let out = Command::new(&ptxas)
                .arg(format!("-arch={arch}"))
                .arg(&file)
                .args(["-o", "/dev/null"])
                .output()
                .unwrap();
            if out.status.success() != *ok {
                bad.push(format!(
                    "recorded {ok} for `{inst}`, but ptxas now says otherwise"
                ));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        eprintln!("SKIPPED the ptxas half: set PTXAS to check the recorded verdicts");
    }
    assert!(
        bad.is_empty(),
        "{} of {} forms:\n{}",
        bad.len(),
        all.len(),
        bad.join("\n")
    );
}

/// `tcgen05.mma{.sp,.ws}` with `.collector::a::*` and `.ashift`, every kind, A from a
/// descriptor or tensor memory, both CTA groups.
#[test]
fn tcgen05_collector_and_ashift() {
    check("tcgen05_collector", |_| false);
}

/// `tcgen05.mma.sp` and `tcgen05.mma.ws.sp`: each kind, A from a descriptor or tensor memory,
/// both CTA groups, the `.ws` collector buffers and zero-column mask, `.ws.sp` and `.sp.ws`,
/// the metadata as an address or a register.
#[test]
fn tcgen05_sparse_forms() {
    check("tcgen05_sparse", |_| false);
}

/// `tcgen05.mma{.sp}` with the disable-output-lane vector (4 words, 8 with `.cta_group::2`)
/// (registers only) and scale-input-d: each kind, A from a descriptor or tensor memory, both
/// CTA groups.
#[test]
fn tcgen05_lane_mask_forms() {
    // ptxas takes scale-input-d with .kind::i8; the ISA defines it for the float kinds only.
    check("tcgen05_lane_mask", |inst| {
        inst.contains(".kind::i8") && inst.ends_with(", 3;")
    });
}

/// `tcgen05.mma.ws` (dense): each kind (the block-scaled ones refused), both CTA groups
/// (`.cta_group::1` only), A from a descriptor or tensor memory, the collector buffers and
/// the zero-column mask.
#[test]
fn tcgen05_ws_forms() {
    check("tcgen05_ws", |_| false);
}

/// `setmaxnreg`: the count's range and step, the targets, and a `.dec` above the kernel's
/// `.inc` (ptxas's C7406, `lower::maxnreg`).
#[test]
fn setmaxnreg_counts_and_targets() {
    check("setmaxnreg", |_| false);
}

/// `setmaxnreg.dec` against the `.inc` of the functions a kernel reaches through calls,
/// taken addresses, module variables' initializers and indirect calls (ptxas's C7406 rule,
/// `lower::maxnreg`).
#[test]
fn setmaxnreg_through_calls_and_addresses() {
    check("setmaxnreg_calls", |_| false);
}

/// `multimem.ld_reduce`, `multimem.st` and `multimem.red`: every operation, type, vector
/// width and accumulation precision.
#[test]
fn multimem_types_and_operations() {
    check("multimem", |_| false);
}

/// `mma` with block scaling (`.kind::mxf8f6f4`/`::mxf4`/`::mxf4nvf4 .block_scale`): each kind,
/// `.scale_vec`, scale type and shape, the byte-id/thread-id selectors, the element and
/// accumulator types, the targets, and `mma.sp{::ordered_metadata}` with `.kind::f8f6f4` and
/// the block-scaled kinds (`.kind::mxf4`/`::mxf4nvf4` at `.m16n8k128`).
#[test]
fn mma_block_scale_kinds_and_selectors() {
    check("mma_block_scale", |_| false);
}

/// The sparse FP8/FP6/FP4 `mma.sp` forms (`.e4m3`/`.e5m2` without a `.kind`,
/// `.kind::f8f6f4`, and the block-scaled kinds) on every target from sm_80 to sm_121f under
/// each PTX ISA version from 8.4 to 9.1 the target exists in: the targets and versions
/// ptxas 13.5 takes each on.
#[test]
fn mma_sparse_narrow_float_targets_and_versions() {
    check("mma_sparse_targets", |_| false);
}
