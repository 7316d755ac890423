//! Differential fuzzing in `cargo test`: a seeded smoke run of generated kernels through the
//! interpreter and the JIT, the committed fuzz regressions, and a sample of generated kernels
//! checked by NVIDIA's `ptxas` (skipped, saying so, where ptxas is not installed).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use ptxjit::fuzz::case::LaunchCase;
use ptxjit::fuzz::diff::{compare, Verdict};
use ptxjit::fuzz::{case_name, case_seed, kernel_for_seed, write_case};

/// `PTXAS` from the environment, or `../shared/tools/ptxas` next to the repository.
fn ptxas() -> Option<PathBuf> {
    let p = std::env::var_os("PTXAS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/ptxas"));
    let ok = Command::new(&p)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(p)
}

/// ptxas's `-arch` option for a generated kernel's target.
fn arch_of(k: &ptxjit::fuzz::gen::Kernel) -> &'static str {
    if k.sm100a {
        "-arch=sm_100a"
    } else if k.sm120a {
        "-arch=sm_120a"
    } else if k.sm100 {
        "-arch=sm_100"
    } else if k.sm90a {
        "-arch=sm_90a"
    } else if k.sm90 {
        "-arch=sm_90"
    } else {
        "-arch=sm_80"
    }
}

#[test]
fn generated_kernels_pass_ptxas() {
    let Some(ptxas) = ptxas() else {
        eprintln!("SKIPPED: ptxas not found (set PTXAS or install ../shared/tools/ptxas)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("ptxjit-fuzz-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    let mut too_new = 0;
    for i in 0..50 {
        let seed = case_seed(0x5eed, i);
        let k = kernel_for_seed(seed, 60);
        let case = LaunchCase::of_kernel(&k);
        let file = dir.join(format!("{}.ptx", case_name(seed)));
        std::fs::write(&file, &case.ptx).unwrap();
        let arch = arch_of(&k);
        let out = Command::new(&ptxas)
            .args([arch, "-o", "/dev/null"])
            .arg(&file)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() && err.contains("Unsupported .version") {
            // An older ptxas than the kernel's PTX version (the sm_100 bulk multimem forms
            // need PTX 9.1): not a verdict on the kernel.
            eprintln!("{}: not checked: {}", file.display(), err.trim());
            too_new += 1;
        } else if !out.status.success() {
            failures.push(format!("{}: {err}", file.display()));
        } else {
            let _ = std::fs::remove_file(&file);
        }
    }
    assert!(
        too_new < 10,
        "{too_new} of 50 kernels newer than this ptxas: use a newer one (PTXAS)"
    );
    assert!(
        failures.is_empty(),
        "ptxas rejected generated kernels:\n{}",
        failures.join("\n")
    );
    let _ = std::fs::remove_dir(&dir);
}

/// Kernels with the `tcgen05` forms the plain sample has few of (a third of the `sm_100a`
/// kernels, themselves a small share): CTA pairs (`.cta_group::2`), the collector buffer for A
/// (`.collector::a::…`) and `.ashift`. 60 of them pass ptxas (when installed) for `sm_100a`;
/// 6 run on both engines, agree, and fault only at a generated `trap`.
#[test]
fn generated_tcgen05_pair_and_collector_kernels() {
    let ptxas = ptxas();
    let dir = std::env::temp_dir().join(format!("ptxjit-fuzz-tc05-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut found, mut ran) = (0, 0);
    let (mut pair, mut collector, mut ashift) = (0, 0, 0);
    let mut failures = Vec::new();
    for i in 0..20_000 {
        if found == 60 {
            break;
        }
        let seed = case_seed(0x7c05, i);
        let k = kernel_for_seed(seed, 40);
        if !k.sm100a {
            continue;
        }
        let case = LaunchCase::of_kernel(&k);
        let has = |s: &str| case.ptx.contains(s);
        if !(has("cta_group::2") || has("collector::a::") || has(".ashift")) {
            continue;
        }
        found += 1;
        pair += usize::from(has("cta_group::2"));
        collector += usize::from(has("collector::a::use") || has("collector::a::lastuse"));
        ashift += usize::from(has(".ashift"));
        if let Some(ptxas) = &ptxas {
            let file = dir.join(format!("{}.ptx", case_name(seed)));
            if let Some(err) = ptxas_error(ptxas, &file, &case.ptx, "-arch=sm_100a") {
                failures.push(format!("{}: ptxas: {err}", file.display()));
            }
        }
        if ran < 6 {
            ran += 1;
            check_both_engines(&case, seed, trap_fault, &mut failures);
        }
    }
    if ptxas.is_none() {
        eprintln!(
            "SKIPPED the ptxas half: ptxas not found (set PTXAS or install ../shared/tools/ptxas)"
        );
    }
    let _ = std::fs::remove_dir(&dir);
    assert_eq!(found, 60, "only {found} kernels with the forms");
    assert!(
        pair > 0 && collector > 0 && ashift > 0,
        "pairs {pair}, collector uses {collector}, .ashift {ashift}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Kernels with the block-scaled `mma` forms and the sparse `.kind` forms (`sm_120a` kernels,
/// a small share of the plain sample): 40 of them pass ptxas (when installed) for `sm_120a`,
/// each kind among them; 8 run on both engines, agree, and fault only at a generated `trap` or
/// at the generator's deliberately non-uniform thread-id-a selector.
#[test]
fn generated_block_scaled_and_sparse_kind_kernels() {
    let ptxas = ptxas();
    let dir = std::env::temp_dir().join(format!("ptxjit-fuzz-mx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut found, mut ran) = (0, 0);
    let mut kinds = [0usize; 5];
    let mut failures = Vec::new();
    for i in 0..40_000 {
        if found == 40 {
            break;
        }
        let seed = case_seed(0x3f4e, i);
        let k = kernel_for_seed(seed, 40);
        if !k.sm120a {
            continue;
        }
        let case = LaunchCase::of_kernel(&k);
        let needles = [
            ".kind::mxf8f6f4.block_scale",
            ".kind::mxf4.block_scale",
            ".kind::mxf4nvf4.block_scale",
            "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4",
            "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4",
        ];
        let has: Vec<bool> = needles.iter().map(|n| case.ptx.contains(n)).collect();
        if !has.contains(&true) {
            continue;
        }
        found += 1;
        for (n, h) in kinds.iter_mut().zip(&has) {
            *n += usize::from(*h);
        }
        if let Some(ptxas) = &ptxas {
            let file = dir.join(format!("{}.ptx", case_name(seed)));
            if let Some(err) = ptxas_error(ptxas, &file, &case.ptx, "-arch=sm_120a") {
                failures.push(format!("{}: ptxas: {err}", file.display()));
            }
        }
        if ran < 8 {
            ran += 1;
            check_both_engines(&case, seed, expected_fault, &mut failures);
        }
    }
    if ptxas.is_none() {
        eprintln!(
            "SKIPPED the ptxas half: ptxas not found (set PTXAS or install ../shared/tools/ptxas)"
        );
    }
    let _ = std::fs::remove_dir(&dir);
    assert_eq!(found, 40, "only {found} kernels with the forms");
    assert!(!kinds.contains(&0), "kernels per form: {kinds:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Writes `text` to `file` and runs ptxas for `arch` (`-arch=sm_XX`) on it: `None` where
/// ptxas accepts it (the file removed), else ptxas's message (the file kept to look at).
fn ptxas_error(ptxas: &Path, file: &Path, text: &str, arch: &str) -> Option<String> {
    std::fs::write(file, text).unwrap();
    let out = Command::new(ptxas)
        .args([arch, "-o", "/dev/null"])
        .arg(file)
        .output()
        .unwrap();
    if out.status.success() {
        let _ = std::fs::remove_file(file);
        None
    } else {
        Some(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Compares `case` (of `seed`) on both engines and runs it on the interpreter: a
/// disagreement, a load error, a launch error that `fault_ok` does not accept, or a panic is
/// added to `failures`.
fn check_both_engines(
    case: &LaunchCase,
    seed: u64,
    fault_ok: fn(&str) -> bool,
    failures: &mut Vec<String>,
) {
    use ptxjit::fuzz::diff::{run_engine, Outcome};
    use ptxjit::host::Engine;
    let v = compare(case);
    if !v.is_agree() {
        failures.push(format!(
            "case seed {seed:#x}: {}",
            ptxjit::fuzz::headline(&v)
        ));
    }
    match run_engine(case, Engine::Interp, Duration::from_secs(120)) {
        Outcome::Done(_) => {}
        Outcome::LaunchError(e) if fault_ok(&e.to_string()) => {}
        Outcome::LoadError(e) | Outcome::LaunchError(e) => {
            failures.push(format!("case seed {seed:#x}: {e}"))
        }
        Outcome::Panic(m) => failures.push(format!("case seed {seed:#x}: panic: {m}")),
    }
}

/// The fault every generated kernel may end with: its conditional `trap`.
fn trap_fault(e: &str) -> bool {
    e.contains("trap by CTA") && e.contains("in 'trap'")
}

/// The faults a generated kernel may end with: its conditional `trap`, and the block-scaled
/// `mma` whose thread-id-a the generator makes differ across the warp on purpose
/// (`src/fuzz/gen/mma_kind.rs`).
fn expected_fault(e: &str) -> bool {
    trap_fault(e)
        || (e.contains("mma block_scale: thread-id-a is 0 in lane 0 but 1 in lane 1")
            && e.contains(".block_scale"))
}

#[test]
fn generated_kernels_load_on_both_engines() {
    use ptxjit::host::{Context, Engine};
    for i in 0..40 {
        let seed = case_seed(0x10ad, i);
        let case = LaunchCase::of_kernel(&kernel_for_seed(seed, 60));
        for engine in [Engine::Jit, Engine::Interp] {
            let mut ctx = Context::new();
            // Loading runs the front end; compiling every kernel, the engine.
            let loaded = ctx
                .load_module(&case.ptx, "gen.ptx", engine)
                .and_then(|m| m.compile_all());
            if let Err(e) = loaded {
                panic!("case seed {seed:#x} on {engine}: {e}\n{}", case.ptx);
            }
        }
    }
}

/// Generated kernels run to the end: the generator keeps every access in range, every wait
/// satisfied and every matrix operand defined (src/fuzz/gen.rs), so a fault or a time limit is
/// a generator bug that the differential run would hide, since both engines faulting with the
/// same report counts as agreement there. The faults expected are the generated conditional
/// `trap` (a trap fault reported at a `trap` instruction) and the deliberate one of
/// [`expected_fault`].
#[test]
fn generated_kernels_run_without_faults() {
    use ptxjit::fuzz::diff::{run_engine, Outcome};
    use ptxjit::host::Engine;
    let mut failures = Vec::new();
    for i in 0..80 {
        let seed = case_seed(0xfa17, i);
        let case = LaunchCase::of_kernel(&kernel_for_seed(seed, 24));
        match run_engine(&case, Engine::Interp, Duration::from_secs(60)) {
            Outcome::Done(_) => {}
            Outcome::LaunchError(e) if expected_fault(&e.to_string()) => {}
            Outcome::LoadError(e) | Outcome::LaunchError(e) => {
                failures.push(format!("case seed {seed:#x}: {e}"))
            }
            Outcome::Panic(m) => failures.push(format!("case seed {seed:#x}: panic: {m}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A few hundred small kernels on both engines (a few seconds).
#[test]
fn smoke_differential() {
    let mut failures = Vec::new();
    let dir = std::env::temp_dir().join(format!("ptxjit-fuzz-smoke-{}", std::process::id()));
    for i in 0..300 {
        let seed = case_seed(0x5a0e, i);
        let kernel = kernel_for_seed(seed, 24);
        let case = LaunchCase::of_kernel(&kernel);
        let v = compare(&case);
        if !v.is_agree() {
            let f = ptxjit::fuzz::shrink_and_write(
                &kernel,
                seed,
                &v,
                &dir,
                Duration::from_secs(20),
                Duration::from_secs(2),
                false,
            );
            failures.push(format!(
                "case seed {seed:#x}: {}\n{}\n  shrunk case: {:?}",
                ptxjit::fuzz::headline(&f.verdict),
                match &f.verdict {
                    Verdict::Mismatch { detail, .. }
                    | Verdict::Rejected(detail)
                    | Verdict::Timeout(detail)
                    | Verdict::Deadlock(detail) => detail.clone(),
                    Verdict::Agree => String::new(),
                },
                f.file
            ));
            if failures.len() >= 3 {
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A hand-written launch in the shape of a generated one (`k` only), one CTA of `block`
/// threads with a one-word buffer `in` (zero).
fn hand_case(ptx: &str, kernel: &str, block: u32) -> LaunchCase {
    use ptxjit::fuzz::case::{CaseArg, CaseBuffer};
    LaunchCase {
        ptx: ptx.into(),
        kernel: kernel.into(),
        grid: [1, 1, 1],
        block: [block, 1, 1],
        shared_bytes: 0,
        args: vec![CaseArg::Buffer("in".into())],
        buffers: vec![CaseBuffer {
            name: "in".into(),
            len: 1,
            init: None,
        }],
        textures: vec![],
        tensor_maps: vec![],
        cluster: None,
        lockstep: false,
    }
}

/// A kernel that does not end is a finding, never agreement, though both engines report the
/// same time limit: the generator makes only kernels that end (docs in `src/fuzz/diff.rs`),
/// so one that runs past the limit is a generator or runtime bug. So is a deadlock both
/// engines report alike; and `ptxjit check` (how committed regressions run) does not call
/// two time limits agreement either.
#[test]
fn a_kernel_that_does_not_end_is_a_finding() {
    use ptxjit::case::{check_case, Case, RunOptions};
    use ptxjit::fuzz::diff::compare_with;
    // Every thread spins until `in[0]` is non-zero; it stays zero.
    let spin = hand_case(
        ".version 7.0\n.target sm_80\n.address_size 64\n\
         .visible .entry spin(.param .u64 in)\n{\n\
         .reg .u64 %rd<2>;\n.reg .u32 %r<2>;\n.reg .pred %p<2>;\n\
         ld.param.u64 %rd1, [in];\n\
         WAIT:\nld.volatile.global.u32 %r1, [%rd1];\nsetp.eq.u32 %p1, %r1, 0;\n\
         @%p1 bra WAIT;\nret;\n}\n",
        "spin",
        32,
    );
    let v = compare_with(&spin, Duration::from_secs(1));
    assert!(
        matches!(&v, Verdict::Timeout(d) if d.contains("time limit") && d.contains("jit:")),
        "{v:?}"
    );
    assert!(!v.is_agree());
    assert!(ptxjit::fuzz::headline(&v).contains("time limit"));
    // Thread 1 never arrives on an mbarrier that expects both threads; both wait on it.
    let stuck = hand_case(
        ".version 7.8\n.target sm_80\n.address_size 64\n\
         .visible .entry stuck(.param .u64 in)\n{\n\
         .reg .u64 %rd<2>;\n.reg .u32 %r<2>;\n.reg .pred %p<3>;\n\
         .shared .align 8 .b64 bar;\n\
         mov.u32 %r1, %tid.x;\nsetp.ne.u32 %p1, %r1, 0;\n\
         @%p1 bra READY;\nmbarrier.init.shared.b64 [bar], 2;\n\
         READY:\nbar.sync 0;\n@%p1 bra WAIT;\nmbarrier.arrive.shared.b64 %rd1, [bar];\n\
         WAIT:\nmbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;\n@!%p2 bra WAIT;\nret;\n}\n",
        "stuck",
        2,
    );
    let v = compare_with(&stuck, Duration::from_secs(20));
    assert!(
        matches!(&v, Verdict::Deadlock(d) if d.contains("deadlock")),
        "{v:?}"
    );
    assert!(!v.is_agree());
    // The spinning kernel written as a case: `ptxjit check` finds no agreement in it.
    let dir = std::env::temp_dir().join(format!("ptxjit-fuzz-spin-{}", std::process::id()));
    let toml = write_case(&dir, "spin", &spin, "a kernel that does not end").unwrap();
    let case = Case::load(&toml).unwrap();
    let c = check_case(
        &case,
        &RunOptions {
            timeout: Some(Duration::from_secs(1)),
            ..Default::default()
        },
    )
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!c.agree());
    assert!(
        c.error_diff
            .as_deref()
            .is_some_and(|e| e.contains("nothing was compared")),
        "{:?}",
        c.error_diff
    );
}

/// Shrinking a kernel that does not end keeps to its time budget: each candidate's launches
/// run under the shorter limit of `candidate_limit` (not the 20 s one that found it), and
/// none starts that could not end within the budget, so the shrink ends in time (it took
/// over 40 s for a 10 s budget when every candidate ran under the 20 s limit), still
/// shrinks, and writes a kernel that does not end.
#[test]
fn shrinking_a_kernel_that_does_not_end_keeps_to_its_budget() {
    use ptxjit::fuzz::diff::compare_with;
    use ptxjit::fuzz::gen::Stmt;
    use ptxjit::fuzz::{candidate_limit, shrink_and_write};
    use std::time::Instant;
    // A small generated kernel with no `trap` (which could end it first), led by a statement
    // in which every thread spins on a word of the input that is never zero after `or 1`.
    let (seed, mut k) = (0..200)
        .map(|i| {
            let seed = case_seed(0x5b1d, i);
            (seed, kernel_for_seed(seed, 8))
        })
        .find(|(_, k)| !k.sm90 && !k.render().contains("trap"))
        .expect("a kernel without trap");
    k.body.insert(
        0,
        Stmt::Code(vec![
            "$L__spin$ID$:".to_string(),
            "ld.volatile.global.u32 %t0, [%gin];".to_string(),
            "or.b32 %t0, %t0, 1;".to_string(),
            "setp.ne.u32 %pu, %t0, 0;".to_string(),
            "@%pu bra $L__spin$ID$;".to_string(),
        ]),
    );
    let verdict = compare_with(&LaunchCase::of_kernel(&k), Duration::from_secs(1));
    assert!(matches!(verdict, Verdict::Timeout(_)), "{verdict:?}");
    let limit = candidate_limit(&verdict, Duration::from_secs(40));
    assert!(limit < Duration::from_secs(20), "{limit:?}");
    let dir = std::env::temp_dir().join(format!("ptxjit-fuzz-budget-{}", std::process::id()));
    let budget = Duration::from_secs(10);
    let start = Instant::now();
    let f = shrink_and_write(
        &k,
        seed,
        &verdict,
        &dir,
        budget,
        Duration::from_secs(40),
        false,
    );
    let took = start.elapsed();
    let written = f.file.as_ref().map(std::fs::read_to_string);
    let _ = std::fs::remove_dir_all(&dir);
    // Compiles are not under the launch limit: a few seconds of slack for them.
    assert!(took < budget + Duration::from_secs(5), "{took:?}");
    assert!(matches!(f.verdict, Verdict::Timeout(_)), "{:?}", f.verdict);
    assert!(f.statements.1 < f.statements.0, "{:?}", f.statements);
    let toml = written
        .expect("a case written")
        .expect("the written case reads back");
    assert!(toml.contains("time limit"), "{toml}");
}

/// A written case is a valid case file for the case library, and `ptxjit check` (interpreter
/// vs JIT) agrees on it. (Committed regressions under `ptx-tests/fuzz-regressions/` run as
/// `check::` trials of `tests/ptx_tests.rs`.)
#[test]
fn emitted_case_is_a_valid_case_file() {
    let seed = case_seed(1, 2);
    check_written_case(&LaunchCase::of_kernel(&kernel_for_seed(seed, 20)), "k");
}

/// Cases with a texture and a surface (`[textures.tex]`, `[surfaces.surf]`, handle
/// arguments), with a cluster launch (`cluster = [...]`) and distributed shared memory, and
/// with a tensor map (`[tensor_maps.tmap]`, a by-value argument), and with a writable tensor
/// map that TMA stores and reductions write (`[tensor_maps.tmapo]` over the `tout` buffer,
/// its last dimension one slab per CTA) are valid case files, and the case library's run
/// agrees across the engines.
#[test]
fn emitted_texture_cluster_and_tensor_map_cases_are_valid_case_files() {
    let (mut tex, mut cluster, mut tmap, mut tstore) = (false, false, false, false);
    for i in 0..400 {
        let case = LaunchCase::of_kernel(&kernel_for_seed(case_seed(3, i), 30));
        if !tex && !case.textures.is_empty() && case.ptx.contains("tex.") {
            assert!(case.ptx.contains("_surf"), "{}", case.ptx);
            check_written_case(&case, "t");
            tex = true;
        }
        if !cluster && case.cluster.is_some() && case.ptx.contains("mapa") {
            check_written_case(&case, "c");
            cluster = true;
        }
        if !tmap && !case.tensor_maps.is_empty() && case.ptx.contains("bulk.tensor") {
            check_written_case(&case, "m");
            tmap = true;
        }
        if !tstore && case.grid.iter().product::<u32>() > 1 && case.ptx.contains("%htmo, {") {
            check_written_case(&case, "s");
            tstore = true;
        }
        if tex && cluster && tmap && tstore {
            return;
        }
    }
    panic!(
        "in 400 seeds: a texture case {tex}, a cluster exchange {cluster}, a tensor copy {tmap}, a tensor store {tstore}"
    );
}

fn check_written_case(case: &LaunchCase, name: &str) {
    use ptxjit::case::{check_case, Case, RunOptions};
    let dir = std::env::temp_dir().join(format!("ptxjit-fuzz-emit-{name}-{}", std::process::id()));
    let toml = write_case(&dir, name, case, "a comment\nover two lines").unwrap();
    let loaded = Case::load(&toml);
    let checked = loaded.as_ref().map(|c| {
        check_case(
            c,
            &RunOptions {
                memcheck: false,
                synccheck: false,
                schedule: Default::default(),
                lockstep: false,
                initcheck: false,
                racecheck: false,
                racecheck_global: false,
                repeat: 0,
                timeout: Some(Duration::from_secs(60)),
                printf_to_stderr: false,
            },
        )
    });
    let _ = std::fs::remove_dir_all(&dir);
    let checked = checked.unwrap_or_else(|e| panic!("case library rejects the case: {e}"));
    let c = checked.unwrap_or_else(|e| panic!("case cannot be prepared: {e}"));
    assert!(
        c.agree(),
        "engines disagree: {:?} {:?}",
        c.diffs,
        c.error_diff
    );
}

/// Every form of the generator's instruction table, with every type and modifier
/// combination, is accepted by ptxas (when installed) and by ptxjit's front end.
#[test]
fn instruction_table_matches_ptxas_and_lowering() {
    let ptxas = ptxas();
    if ptxas.is_none() {
        eprintln!(
            "SKIPPED the ptxas half: ptxas not found (set PTXAS or install ../shared/tools/ptxas)"
        );
    }
    let dir = std::env::temp_dir().join(format!("ptxjit-fuzz-forms-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    use ptxjit::fuzz::forms::{FORMS, FORMS_SM90};
    use ptxjit::fuzz::gen::{form_coverage_kernel, form_coverage_kernel_sm90};
    let sm80 = FORMS.iter().enumerate().map(|(i, f)| {
        let text = form_coverage_kernel(i, i as u64);
        (format!("form {i}"), f, text, "-arch=sm_80")
    });
    let sm90 = FORMS_SM90.iter().enumerate().map(|(i, f)| {
        let text = form_coverage_kernel_sm90(i, i as u64);
        (format!("sm_90 form {i}"), f, text, "-arch=sm_90")
    });
    for (i, (what, f, text, arch)) in sm80.chain(sm90).enumerate() {
        if let Err(e) = ptxjit::host::front_end(&text, "forms.ptx") {
            failures.push(format!("{what} ({}): ptxjit: {e}", f.op));
        }
        if let Some(ptxas) = &ptxas {
            let file = dir.join(format!("form{i}.ptx"));
            if let Some(err) = ptxas_error(ptxas, &file, &text, arch) {
                failures.push(format!("{what} ({}): ptxas: {err}", f.op));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The instruction tokens (first word, guard removed, `;` trimmed) of `lines`.
fn line_tokens<'a>(lines: impl IntoIterator<Item = &'a String>, into: &mut BTreeSet<String>) {
    for l in lines {
        let l = l.trim();
        let l = match l.strip_prefix('@') {
            Some(rest) => rest.split_once(char::is_whitespace).map_or("", |p| p.1),
            None => l,
        };
        if let Some(tok) = l.split_whitespace().next() {
            if !tok.ends_with(':') {
                into.insert(tok.trim_end_matches(';').to_string());
            }
        }
    }
}

/// Walks a generated kernel's tree: the tokens of every statement into `all`, and those of the
/// statements inside a loop whose trip count differs per lane (`Trip::PerLane`, at any depth
/// above) into `divergent_loop`.
fn walk_tokens(
    body: &[ptxjit::fuzz::gen::Stmt],
    in_divergent_loop: bool,
    all: &mut BTreeSet<String>,
    divergent_loop: &mut BTreeSet<String>,
) {
    use ptxjit::fuzz::gen::{Stmt, Trip};
    let code = |lines: &[String], all: &mut BTreeSet<String>, dl: &mut BTreeSet<String>| {
        line_tokens(lines, all);
        if in_divergent_loop {
            line_tokens(lines, dl);
        }
    };
    for s in body {
        match s {
            Stmt::Code(lines) => code(lines, all, divergent_loop),
            Stmt::Barrier(b) => code(std::slice::from_ref(b), all, divergent_loop),
            Stmt::Exchange { store, load } => {
                code(store, all, divergent_loop);
                code(load, all, divergent_loop);
            }
            Stmt::Exit { cond, .. } => code(&cond.setup, all, divergent_loop),
            Stmt::If { cond, then, els } => {
                code(&cond.setup, all, divergent_loop);
                walk_tokens(then, in_divergent_loop, all, divergent_loop);
                walk_tokens(els, in_divergent_loop, all, divergent_loop);
            }
            Stmt::Switch { setup, arms, .. } => {
                code(setup, all, divergent_loop);
                for a in arms {
                    walk_tokens(a, in_divergent_loop, all, divergent_loop);
                }
            }
            Stmt::Loop {
                trip, body, brk, ..
            } => {
                let per_lane = matches!(trip, Trip::PerLane(_));
                walk_tokens(body, in_divergent_loop || per_lane, all, divergent_loop);
                if let Some(c) = brk {
                    code(&c.setup, all, divergent_loop);
                }
            }
        }
    }
}

/// The forms the differential fuzzer must draw (a zero weight, an impossible condition or a
/// generator edit would silently drop one): warp-synchronous points inside loops whose trip
/// count differs per lane (`bar.warp.sync`, `shfl.sync`, `vote.sync`, `match.sync`,
/// `redux.sync`, `activemask`, `elect.sync` on the lanes still looping), the bit-manipulation
/// helper ops with each of their modifiers and types, and the tensor-core and asynchronous
/// forms. Generation alone: no engine runs. The first kernels with `lop3.and`/`.or` (a form
/// only the PTX ISA 8.2 flavours draw, which the plain ptxas sample has few of) pass ptxas
/// where it is installed.
#[test]
fn required_forms_are_drawn() {
    let ptxas = ptxas();
    let dir = std::env::temp_dir().join(format!("ptxjit-fuzz-required-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    let (mut all, mut divergent_loop) = (BTreeSet::new(), BTreeSet::new());
    let (mut sm100a, mut kernels, mut lop3_checked) = (0, 0, 0);
    for i in 0..20_000u64 {
        let seed = case_seed(0xf0f5, i);
        let k = kernel_for_seed(seed, 40);
        if i >= 1500 && !k.sm100a {
            continue;
        }
        sm100a += usize::from(k.sm100a);
        kernels += 1;
        walk_tokens(&k.body, false, &mut all, &mut divergent_loop);
        for f in &k.funcs {
            line_tokens(f, &mut all);
        }
        let text = k.render();
        if lop3_checked < 8 && (text.contains("lop3.and.") || text.contains("lop3.or.")) {
            lop3_checked += 1;
            if let Some(ptxas) = &ptxas {
                let file = dir.join(format!("{}.ptx", case_name(seed)));
                if let Some(err) = ptxas_error(ptxas, &file, &text, arch_of(&k)) {
                    failures.push(format!("{}: ptxas: {err}", file.display()));
                }
            }
        }
        if sm100a >= 300 {
            break;
        }
    }
    if ptxas.is_none() {
        eprintln!(
            "SKIPPED the ptxas half: ptxas not found (set PTXAS or install ../shared/tools/ptxas)"
        );
    }
    let _ = std::fs::remove_dir(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let has = |set: &BTreeSet<String>, name: &str| {
        set.iter()
            .any(|t| t == name || t.starts_with(&format!("{name}.")))
    };
    let mut missing = Vec::new();
    for name in [
        "bar.warp.sync",
        "shfl.sync.up",
        "shfl.sync.down",
        "shfl.sync.bfly",
        "shfl.sync.idx",
        "vote.sync.all",
        "vote.sync.any",
        "vote.sync.uni",
        "vote.sync.ballot",
        "match.any.sync",
        "match.all.sync",
        "redux.sync",
        "activemask",
        "elect.sync",
    ] {
        if !has(&divergent_loop, name) {
            missing.push(format!("{name} (inside a per-lane loop)"));
        }
    }
    for name in [
        // Helper ops, each modifier and type.
        "prmt.b32",
        "prmt.f4e.b32",
        "prmt.b4e.b32",
        "prmt.rc8.b32",
        "prmt.ecl.b32",
        "prmt.ecr.b32",
        "prmt.rc16.b32",
        "lop3.b32",
        "lop3.and.b32",
        "lop3.or.b32",
        "bfe.u32",
        "bfe.s32",
        "bfe.u64",
        "bfe.s64",
        "bfi.b32",
        "bfi.b64",
        "shf.l.clamp.b32",
        "shf.l.wrap.b32",
        "shf.r.clamp.b32",
        "shf.r.wrap.b32",
        "brev.b32",
        "brev.b64",
        "popc.b32",
        "popc.b64",
        // Tensor-core forms.
        "mma.sync.aligned",
        "mma.sp.sync.aligned",
        "mma.sp::ordered_metadata.sync.aligned",
        "ldmatrix.sync.aligned",
        "stmatrix.sync.aligned",
        "movmatrix.sync.aligned",
        "wmma.load.a.sync.aligned",
        "wmma.load.b.sync.aligned",
        "wmma.load.c.sync.aligned",
        "wmma.mma.sync.aligned",
        "wmma.store.d.sync.aligned",
        "wgmma.fence.sync.aligned",
        "wgmma.mma_async.sync.aligned",
        "wgmma.mma_async.sp.sync.aligned",
        "wgmma.commit_group.sync.aligned",
        "wgmma.wait_group.sync.aligned",
        "tcgen05.alloc",
        "tcgen05.dealloc",
        "tcgen05.relinquish_alloc_permit",
        "tcgen05.mma",
        "tcgen05.mma.ws",
        "tcgen05.mma.sp",
        "tcgen05.cp",
        "tcgen05.shift",
        "tcgen05.commit",
        "tcgen05.ld",
        "tcgen05.st",
        "tcgen05.wait::ld",
        "tcgen05.wait::st",
        "tcgen05.fence::before_thread_sync",
        "tcgen05.fence::after_thread_sync",
        // Asynchronous copies, stores and reductions and what completes them.
        "cp.async.ca.shared.global",
        "cp.async.cg.shared.global",
        "cp.async.commit_group",
        "cp.async.wait_group",
        "cp.async.wait_all",
        "cp.async.mbarrier.arrive",
        "cp.async.bulk.shared::cluster.global",
        "cp.async.bulk.global.shared::cta",
        "cp.async.bulk.tensor",
        "cp.reduce.async.bulk.global.shared::cta",
        "cp.reduce.async.bulk.tensor",
        "cp.async.bulk.commit_group",
        "cp.async.bulk.wait_group",
        "cp.async.bulk.wait_group.read",
        "st.async",
        "red.async",
        "mbarrier.expect_tx",
        "mbarrier.arrive.expect_tx",
        "mbarrier.try_wait",
        "mbarrier.test_wait",
        "fence.proxy.async",
    ] {
        if !has(&all, name) {
            missing.push(name.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "in {kernels} kernels ({sm100a} sm_100a) never drawn: {missing:?}"
    );
}
