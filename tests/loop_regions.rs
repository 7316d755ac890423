//! Loop regions (`analysis::region`, on with `PTXJIT_LOOP_REGIONS=1`): the loop_region
//! cases run on both engines with them, compared bit for bit (`ptxjit check`) and against
//! their host-computed expectations (`ptxjit run`), in group-major and lockstep order.

use std::process::Command;

/// Run `ptxjit ARGS` with loop regions on; its exit status and output.
fn ptxjit(args: &[&str]) -> (bool, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ptxjit"))
        .args(args)
        .env("PTXJIT_LOOP_REGIONS", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("ptxjit runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.success(), text)
}

#[test]
fn loop_region_cases_agree_and_match_their_reference() {
    for name in ["mixed", "nested", "written"] {
        for suffix in ["", "_lockstep"] {
            let case = format!("ptx-tests/kernels/loop_region/{name}{suffix}.toml");
            let (ok, out) = ptxjit(&["check", &case]);
            assert!(
                ok && out.contains("identical bit for bit"),
                "check {case}:\n{out}"
            );
            let (ok, out) = ptxjit(&["run", &case]);
            assert!(ok, "run {case}:\n{out}");
        }
    }
}
