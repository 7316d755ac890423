//! Loop regions (`analysis::region`, on by default; the tests set `PTXJIT_LOOP_REGIONS=1`):
//! the loop_region cases run on both engines with them, compared bit for bit (`ptxjit check`) and against
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

/// Loops polling `%globaltimer` or `%clock64` for 20 ms end on both engines (they are no
/// loop regions: the JIT reads a region's clock once), well inside a 20 s limit.
#[test]
fn a_loop_polling_a_clock_ends() {
    for name in ["poll_timer", "poll_clock"] {
        let case = format!("ptx-tests/kernels/loop_region/{name}.toml");
        for engine in ["jit", "interp"] {
            let (ok, out) = ptxjit(&["run", &case, "--engine", engine, "--timeout", "20"]);
            assert!(ok && out.contains("PASS out"), "{engine} {case}:\n{out}");
        }
    }
}

/// `ptx-tests/kernels/loop_region/spin.ptx` (CTA 0: a loop of `n` trips, then a fault; the
/// other CTAs: an endless loop, a loop region) run with `ARGS` appended, on `engine`.
fn spin(engine: &str, grid: &str, n: u32, limit: &str) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ptxjit"))
        .args([
            "run",
            "--ptx",
            "ptx-tests/kernels/loop_region/spin.ptx",
            "--kernel",
            "spin",
            "--grid",
            grid,
            "--block",
            "64",
            "--arg",
            "buf:a:u32:1",
            "--arg",
            &format!("u32={n}"),
            "--engine",
            engine,
            "--timeout",
            limit,
        ])
        .env("PTXJIT_LOOP_REGIONS", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("ptxjit runs");
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into())
}

/// An endless loop inside a loop region stops at the time limit, as a loop through the
/// dispatcher does (the JIT's passes read the abort flag before each further pass), and the
/// report says where the warps were.
#[test]
fn an_endless_loop_region_stops_at_the_time_limit() {
    for engine in ["jit", "interp"] {
        // CTA 1 spins; CTA 0 never faults (its count is out of reach within the limit).
        let t = std::time::Instant::now();
        let (code, err) = spin(engine, "2,1,1", u32::MAX, "1");
        assert_eq!(code, Some(2), "{engine}: {err}");
        assert!(
            err.contains("time limit") && err.contains("line 20"),
            "{engine}: {err}"
        );
        assert!(
            t.elapsed() < std::time::Duration::from_secs(30),
            "{engine}: {:?}",
            t.elapsed()
        );
    }
}

/// A fault in another CTA stops a warp spinning in a loop region: CTA 0 counts for a while
/// (CTA 1 starts its endless loop meanwhile, on the second worker) and then stores out of
/// bounds; the launch ends with that fault, well before its time limit.
#[test]
fn a_fault_elsewhere_stops_an_endless_loop_region() {
    for (engine, n) in [("jit", 3_000_000), ("interp", 100_000)] {
        let (code, err) = spin(engine, "2,1,1", n, "120");
        assert_eq!(code, Some(2), "{engine}: {err}");
        assert!(
            err.contains("fault in kernel 'spin'") && !err.contains("time limit"),
            "{engine}: {err}"
        );
    }
}

/// The switch forms loop regions: the `mixed` kernel's loop is one (`Regions::new`, which
/// reads `PTXJIT_LOOP_REGIONS`; the cases above would pass without any loop region), unless
/// the environment running the tests turned the switch off.
#[test]
fn the_switch_forms_a_loop_region() {
    use ptxjit::analysis::{region::Regions, schedule::priorities, segment::WarpOrder};
    if !ptxjit::switches::switches().loop_regions {
        eprintln!("PTXJIT_LOOP_REGIONS is off here: nothing to check");
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let ptx = std::fs::read_to_string(dir.join("ptx-tests/kernels/loop_region/loop_region.ptx"))
        .expect("read the PTX");
    let (_, fs) = ptxjit::host::front_end(&ptx, "loop_region.ptx").expect("front end");
    let f = fs.iter().find(|f| f.name == "mixed").expect("kernel");
    let (blocks, prio) = priorities(f).expect("schedules");
    let r = Regions::new(f, &blocks, &prio, WarpOrder::GroupMajor);
    let loops: Vec<u32> = (0..blocks.len() as u32).filter(|&p| r.is_loop(p)).collect();
    assert_eq!(loops.len(), 1, "{loops:?}");
    assert_eq!(r.len[loops[0] as usize], 2);

    // Loops polling a clock are none: the JIT would read the clock once per region.
    let ptx = std::fs::read_to_string(dir.join("ptx-tests/kernels/loop_region/clock.ptx"))
        .expect("read the PTX");
    let (_, fs) = ptxjit::host::front_end(&ptx, "clock.ptx").expect("front end");
    for name in ["poll_timer", "poll_clock"] {
        let f = fs.iter().find(|f| f.name == name).expect("kernel");
        let (blocks, prio) = priorities(f).expect("schedules");
        let r = Regions::new(f, &blocks, &prio, WarpOrder::GroupMajor);
        assert!(
            !(0..blocks.len() as u32).any(|p| r.is_loop(p)),
            "{name}: a loop region"
        );
    }
}

/// Faults inside a grid-stride loop whose exit test the JIT decides for a whole warp
/// (`ptx-tests/kernels/grid_stride`). `grid_stride_fault`: n = 1001 over a 1000-element
/// buffer, so the one access out of bounds is in[1000], by global thread 1000 mod 240 = 40
/// (CTA 0, thread 40) in its fifth trip, its warp's last (the JIT's general version, after
/// decided trips). `grid_stride_fault_stay`: n = 2000 over 980 elements, so CTA 0's warp 0,
/// which runs first, reads past the end first, lanes 20..31 in their fifth trip (index
/// gid + 960), a trip after which every lane stays (gid + 1200 < 2000: the JIT's decided
/// version). Both engines name that thread and the load's PTX line.
#[test]
fn a_fault_in_a_decided_loop_names_the_thread_on_both_engines() {
    for (case, thread) in [("grid_stride_fault", 40), ("grid_stride_fault_stay", 20)] {
        for engine in ["jit", "interp"] {
            let path = format!("ptx-tests/kernels/grid_stride/{case}.toml");
            // Exit code 2 (the run's error), with the case's verdict on it.
            let (_, out) = ptxjit(&["run", &path, "--engine", engine]);
            assert!(
                out.contains("PASS [expect_error]"),
                "{case}, {engine}: the case expects the fault:\n{out}"
            );
            for want in [
                "grid_stride.ptx:41:2: fault in kernel 'grid_stride': out of bounds".to_string(),
                format!("by CTA (0,0,0) thread ({thread},0,0) in 'ld.global.f32'"),
            ] {
                assert!(
                    out.contains(&want),
                    "{case}, {engine}: no '{want}' in:\n{out}"
                );
            }
        }
    }
}

/// A fault after register-carried trips of the JIT's decided loop
/// (`ptx-tests/kernels/grid_stride/grid_stride_fault_loop`): without memcheck, n = 4 000 000
/// over a 980-element buffer, so every warp's trips stay decided while its addresses read
/// on past the buffers inside the arena, until one leaves it. Where the arena ends is the
/// allocator's, so the expected fault is the interpreter's and the JIT must name the same
/// CTA, thread and address at the load's PTX line (41); the trip that faults is one the
/// loop leaves for the per-trip code, whose slots it must have written.
#[test]
fn a_fault_after_decided_loop_trips_names_the_same_thread_on_both_engines() {
    let path = "ptx-tests/kernels/grid_stride/grid_stride_fault_loop.toml";
    let fault = |engine: &str| {
        let (_, out) = ptxjit(&["run", path, "--engine", engine]);
        assert!(
            out.contains("PASS [expect_error]"),
            "{engine}: the case expects the fault:\n{out}"
        );
        let line = out
            .lines()
            .find(|l| l.contains("fault in kernel 'grid_stride'"))
            .unwrap_or_else(|| panic!("{engine}: no fault in:\n{out}"))
            .to_string();
        assert!(
            line.contains("grid_stride.ptx:41:2:") && line.contains("in 'ld.global.f32'"),
            "{engine}: not the load's line: {line}"
        );
        line
    };
    assert_eq!(fault("jit"), fault("interp"));
}
