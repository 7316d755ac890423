//! Every case under `ptx-tests/` (except the `reference/` generator) as tests: one trial per
//! case per engine (`interp::kernels/saxpy`, `jit::kernels/saxpy`) and one trial per case that
//! runs both engines and compares them bit for bit (`check::kernels/saxpy`), and one trial
//! per case that runs it on the JIT with memcheck on (`memcheck::kernels/saxpy`): a correct
//! kernel must pass under memcheck too (no false positives from red zones, the quarantine or
//! exact bounds), and a case that expects an error must still get it. Every case under
//! `kernels/` also runs on the JIT under synccheck (`synccheck::kernels/saxpy`): a correct
//! kernel has no barrier or membermask findings ([`SYNCCHECK_SKIP`] lists the exceptions).
//! `kernels/` also runs on the JIT under initcheck (`initcheck::kernels/saxpy`): a correct
//! kernel reads nothing it has not written or been given (its buffers without `init` start
//! unwritten, as a `cudaMalloc` does), except those [`INITCHECK_EXEMPT`] lists. Every case
//! also runs on the JIT under racecheck with global memory checked too
//! (`racecheck::kernels/saxpy`, as `--tool racecheck --racecheck-global`), the same way as
//! under memcheck: every correct kernel runs clean (no false races from barriers, warp-level
//! synchronizations or atomics, on shared or global memory), and a case that expects a race
//! reports it on the instrumented JIT code.
//!
//! A case with `[expect_error]` passes iff the run fails with that error kind and a message
//! containing `contains`; any other case passes iff every `[expect.*]` holds. Expected values
//! come from the independent host reference, never from ptxjit, so there is no re-blessing.
//!
//! Filter as usual: `cargo test --release --test ptx_tests -- jit::kernels/`.

use libtest_mimic::{Arguments, Failed, Trial};
use ptxjit::case::{check_case, run_case, verdict, Case, RunOptions};
use ptxjit::host::Engine;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A launch that runs longer than this fails its trial instead of hanging the suite.
const TIMEOUT: Duration = Duration::from_secs(300);

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx-tests");
    let mut cases = vec![];
    find_cases(&root, &mut cases);
    cases.sort();
    let mut trials = vec![];
    for engine in [Engine::Interp, Engine::Jit] {
        for path in &cases {
            let p = path.clone();
            trials.push(Trial::test(
                format!("{engine}::{}", trial_name(&root, path)),
                move || run_one(&p, engine),
            ));
        }
    }
    for path in &cases {
        let p = path.clone();
        trials.push(Trial::test(
            format!("check::{}", trial_name(&root, path)),
            move || check_one(&p),
        ));
    }
    for path in &cases {
        let p = path.clone();
        trials.push(Trial::test(
            format!("memcheck::{}", trial_name(&root, path)),
            move || memcheck_one(&p),
        ));
    }
    for path in cases.iter().filter(|p| p.starts_with(root.join("kernels"))) {
        let p = path.clone();
        let name = trial_name(&root, path);
        let skip = SYNCCHECK_SKIP
            .iter()
            .any(|(k, _)| name == format!("kernels/{k}"));
        trials.push(
            Trial::test(format!("synccheck::{name}"), move || synccheck_one(&p))
                .with_ignored_flag(skip),
        );
    }
    for path in &cases {
        let name = trial_name(&root, path);
        if !name.starts_with("kernels/") {
            continue;
        }
        let p = path.clone();
        trials.push(Trial::test(format!("initcheck::{name}"), move || {
            initcheck_one(&p)
        }));
    }
    for path in &cases {
        let p = path.clone();
        let name = trial_name(&root, path);
        trials.push(Trial::test(format!("racecheck::{name}"), move || {
            racecheck_one(&p, &name)
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}

/// Kernels of `ptx-tests/kernels` that synccheck cannot check, with the reason.
const SYNCCHECK_SKIP: &[(&str, &str)] = &[
    (
        "simt/sync_red",
        "a third of the threads exit before __syncthreads_count/and/or on purpose (it tests \
         that exited threads do not hold a barrier up): synccheck rightly reports divergent \
         warps",
    ),
    (
        "ctabar/exit_early",
        "warps and lanes exit before bar.sync on purpose (it tests that exited threads do not \
         hold a barrier up): synccheck rightly reports divergent warps and blocks",
    ),
    (
        "warp_inline/n56",
        "membermasks name lanes that exited on purpose (votes and shuffles must leave them \
         out): synccheck rightly reports each such membermask",
    ),
    (
        "warp_inline/n64",
        "membermasks name lanes that exited on purpose (votes and shuffles must leave them \
         out): synccheck rightly reports each such membermask",
    ),
    (
        "bar_targets/full",
        "warps reach barrier 0 through different `barrier.sync` instructions on purpose (not \
         aligned, which the ISA allows): synccheck requires one instruction per barrier",
    ),
    (
        "bar_targets/partial",
        "warps reach barrier 0 through different `barrier.sync` instructions on purpose (not \
         aligned, which the ISA allows): synccheck requires one instruction per barrier",
    ),
    (
        "bar_defer/ragged_loop",
        "lanes exit before bar.sync on purpose (it tests that rounds completed inside the JIT's \
         call resume only the lanes that did not exit): synccheck rightly reports divergent \
         warps",
    ),
    (
        "bar_defer/split_sites",
        "warps reach barrier 0 through different `barrier.sync` instructions on purpose (not \
         aligned, which the ISA allows): synccheck requires one instruction per barrier",
    ),
];

/// A kernel case under synccheck: it must pass as without the tool (no findings).
fn synccheck_one(path: &Path) -> Result<(), Failed> {
    let case = Case::load(path).map_err(|e| e.to_string())?;
    let opts = RunOptions {
        synccheck: true,
        ..options()
    };
    let r = run_case(&case, Engine::Jit, &opts);
    verdict(&case, &r).map_err(|e| Failed::from(format!("under synccheck: {e}")))
}

/// Cases under `kernels/` that read memory nobody wrote on purpose, with the reason; their
/// initcheck trial expects the finding instead of a clean run.
const INITCHECK_EXEMPT: &[(&str, &str)] = &[
    (
        "kernels/fn_scope_vars/fn_shared",
        "bump(x, 0) loads the function's shared counter before it stores it (the value it \
         returns is unused): a real read of unwritten shared memory, kept as the hand-written \
         test it is",
    ),
    (
        "kernels/cta_batch/stale_shared",
        "reads each shared slot before writing it, to check that every CTA starts with zeroed \
         shared memory",
    ),
    (
        "kernels/grid_stride/grid_stride_fault_loop",
        "reads on past its input through the never-written output buffers until an address \
         leaves the arena (a fault without memcheck, on purpose)",
    ),
];

fn initcheck_one(path: &Path) -> Result<(), Failed> {
    let case = Case::load(path).map_err(|e| e.to_string())?;
    let opts = RunOptions {
        initcheck: true,
        ..options()
    };
    let r = run_case(&case, Engine::Jit, &opts);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx-tests");
    let name = trial_name(&root, path);
    if INITCHECK_EXEMPT.iter().any(|(n, _)| *n == name) {
        return match r.init_reports.is_empty() {
            true => Err("listed in INITCHECK_EXEMPT, but runs clean: remove it".into()),
            false => Ok(()),
        };
    }
    if !r.init_reports.is_empty() {
        let text: Vec<String> = r.init_reports.iter().map(|x| x.to_string()).collect();
        return Err(format!("under initcheck:\n{}", text.join("\n")).into());
    }
    verdict(&case, &r).map_err(|e| Failed::from(format!("under initcheck: {e}")))
}

/// Every `*.toml` below `dir`, skipping the reference generator's own package.
fn find_cases(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        if p.is_dir() {
            if name != "reference" && name != "target" {
                find_cases(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

/// `kernels/saxpy/saxpy.toml` → `kernels/saxpy`; `errors/malformed.toml` → `errors/malformed`.
fn trial_name(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path).with_extension("");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    if parts.len() >= 2 && parts[parts.len() - 1] == parts[parts.len() - 2] {
        parts.pop();
    }
    parts.join("/")
}

fn options() -> RunOptions {
    RunOptions {
        memcheck: false,
        synccheck: false,
        schedule: Default::default(),
        lockstep: false,
        initcheck: false,
        racecheck: false,
        racecheck_global: false,
        repeat: 0,
        timeout: Some(TIMEOUT),
        printf_to_stderr: false,
    }
}

fn run_one(path: &Path, engine: Engine) -> Result<(), Failed> {
    let case = Case::load(path).map_err(|e| e.to_string())?;
    let r = run_case(&case, engine, &options());
    verdict(&case, &r).map_err(Failed::from)
}

fn memcheck_one(path: &Path) -> Result<(), Failed> {
    let case = Case::load(path).map_err(|e| e.to_string())?;
    let opts = RunOptions {
        memcheck: true,
        ..options()
    };
    let r = run_case(&case, Engine::Jit, &opts);
    verdict(&case, &r).map_err(|e| Failed::from(format!("under memcheck: {e}")))
}

/// Cases whose kernels race on shared memory on purpose or by a harmless latent bug, or that
/// synchronize in a way racecheck does not model (a known limitation: a false report), which
/// racecheck must report (instead of running clean), with the access it names and why.
const EXPECTED_RACES: [(&str, &str, &str); 11] = [
    (
        "kernels/uniform_run",
        "Write access and Read access to __shared__ 'sh'",
        "every thread of a row writes the same value to one word and reads it back: tests that a store ends the JIT's runs of group-uniform loads",
    ),
    (
        "kernels/lockstep",
        "Write access and Read access to __shared__ 'warp_reduce::s' (_ZZ11warp_reduceE1s)",
        "legacy warp-synchronous reduction (volatile, no __syncwarp): tests lockstep execution",
    ),
    (
        "kernels/lockstep/rotate",
        "Write access and Read access to __shared__ 's'",
        "lanes read a neighbour's store with no __syncwarp: tests lockstep execution",
    ),
    (
        "kernels/lockstep/rotate_sm60",
        "Write access and Read access to __shared__ 's'",
        "rotate.ptx for sm_60: tests that an older target runs in lockstep by default",
    ),
    (
        "kernels/group_stride/xspace",
        "Write access and Read access to __shared__ 'xspace_sm'",
        "lanes read a neighbour's store with no __syncwarp: tests the JIT's lockstep order",
    ),
    (
        "kernels/regions/racy_order",
        "Write access and Read access to __global__ 'buf'",
        "lanes read a neighbour's store with no __syncwarp: tests the order across a region",
    ),
    (
        "kernels/spin_wait/no_fence",
        "Write access and Read access to __shared__ 'handoff_body(int const*, int*, Fence, Fence)::data'",
        "hands data over through a volatile flag without fences: no release and acquire patterns",
    ),
    (
        "kernels/spin_wait/writer_fence",
        "Write access and Read access to __shared__ 'handoff_body(int const*, int*, Fence, Fence)::data'",
        "the consumer's flag load is not followed by a fence: no acquire pattern",
    ),
    (
        "kernels/handover/relaxed",
        "Write access and Read access to __shared__ 'data'",
        "the flag is read with ld.relaxed, not ld.acquire: the handover is not ordered",
    ),
    (
        "kernels/handover/fence_consumer",
        "Write access and Read access to __shared__ 'data'",
        "the producer's relaxed flag store has no fence before it: no release pattern",
    ),
    (
        "kernels/isspace",
        "Write access and Write access to __shared__ 'isspace::s' (_ZZ7isspaceE1s)",
        "latent bug: s[t % 8] = t is written by several threads (only s's addresses are used)",
    ),
];

fn racecheck_one(path: &Path, name: &str) -> Result<(), Failed> {
    let case = Case::load(path).map_err(|e| e.to_string())?;
    let opts = RunOptions {
        racecheck: true,
        racecheck_global: true,
        ..options()
    };
    let r = run_case(&case, Engine::Jit, &opts);
    if let Some((_, want, why)) = EXPECTED_RACES.iter().find(|(n, ..)| *n == name) {
        let msg = r.error.as_ref().map(|e| e.to_string()).unwrap_or_default();
        return match &r.error {
            Some(e) if e.kind() == "sanitizer" && msg.contains(want) => Ok(()),
            _ => Err(format!("racecheck must report {want:?} ({why}), got: {msg:?}").into()),
        };
    }
    verdict(&case, &r).map_err(|e| Failed::from(format!("under racecheck: {e}")))
}

fn check_one(path: &Path) -> Result<(), Failed> {
    let case = Case::load(path).map_err(|e| e.to_string())?;
    let c = check_case(&case, &options()).map_err(|e| e.to_string())?;
    if c.agree() {
        return Ok(());
    }
    let mut msg = vec![];
    if let Some(e) = &c.error_diff {
        msg.push(format!("errors differ: {e}"));
    }
    for d in &c.diffs {
        let first = d
            .comparison
            .first
            .iter()
            .take(5)
            .map(|m| format!("\n  index {}: interp {}, jit {}", m.index, m.want, m.got));
        msg.push(format!(
            "buffer {}: {} of {} elements differ{}",
            d.buffer,
            d.comparison.mismatches,
            d.comparison.total,
            first.collect::<String>()
        ));
    }
    Err(msg.join("\n").into())
}
