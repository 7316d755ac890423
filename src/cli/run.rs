//! `ptxjit run`: a case file or an ad-hoc launch, reported as text or JSON.

use super::adhoc::{self, AdHoc};
use super::output::{self, DumpReq, PngReq};
use super::{fail, RunArgs};
use crate::case::{run_case, Case, CaseError, CaseResult, DType, RunOptions};
use crate::host::tool::{self, Tool};

/// What to write after the run, checked before it.
struct Outputs {
    dumps: Vec<DumpReq>,
    pngs: Vec<PngReq>,
}

pub fn run(a: &RunArgs) -> u8 {
    let case = match &a.case {
        Some(path) if is_kernel_file(path) => Err(CaseError::Case(format!(
            "{} is a {} file, not a case file: run it with --ptx {} --kernel NAME --grid .. \
             --block .. --arg .. (see ptxjit run --help), or write a case file",
            path.display(),
            kernel_file_kind(path),
            path.display()
        ))),
        Some(path) => Case::load(path),
        None => adhoc::build(&AdHoc {
            ptx: a
                .ptx
                .as_deref()
                .expect("clap: CASE.toml or --ptx is required"),
            kernel: a.kernel.as_deref(),
            grid: a.grid.as_deref(),
            block: a.block.as_deref(),
            shared_bytes: a.shared_bytes.unwrap_or(0),
            max_dynamic_shared_bytes: a.max_dynamic_shared_bytes,
            args: &a.args,
            expect: &a.expect,
        }),
    };
    let name = a
        .case
        .as_ref()
        .or(a.ptx.as_ref())
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let case = match case {
        Ok(c) => c.with_nvrtc(a.cuda.options()),
        Err(e) => return report_early(a, &name, e),
    };
    if a.racecheck_global && a.tool != Some(Tool::Racecheck) {
        let e = CaseError::Case(super::RACECHECK_GLOBAL_ALONE.into());
        return report_early(a, &case.name, e);
    }
    let (outputs, timeout) = match parse_outputs(a, &case)
        .and_then(|o| Ok((o, super::timeout(a.timeout).map_err(CaseError::Case)?)))
    {
        Ok(x) => x,
        Err(e) => return report_early(a, &case.name, e),
    };
    let opts = RunOptions {
        memcheck: a.memcheck || a.tool == Some(Tool::Memcheck),
        synccheck: a.tool == Some(Tool::Synccheck),
        schedule: a.schedule,
        lockstep: a.lockstep,
        initcheck: a.tool == Some(Tool::Initcheck),
        racecheck: a.tool == Some(Tool::Racecheck),
        racecheck_global: a.racecheck_global,
        repeat: a.repeat,
        timeout,
        // With --json, stdout is one JSON object: device printf output goes to stderr.
        printf_to_stderr: a.json,
    };
    super::print_schedule(a.schedule);
    let mut r = run_case(&case, a.engine.into(), &opts);
    // Outputs are written whenever the buffers could be read back (also after a mismatch or a fault).
    if !r.buffers.is_empty() {
        let written = outputs
            .dumps
            .iter()
            .try_for_each(|d| output::write_dump(d, &r.buffers))
            .and_then(|_| {
                outputs
                    .pngs
                    .iter()
                    .try_for_each(|p| output::write_png(p, &r.buffers))
            });
        if let (Err(e), None) = (written, &r.error) {
            r.error = Some(e);
        }
    }
    // A case with `[expect_error]` passes when the run fails that way. The exit status stays
    // the run's (2 after an error, as the case format documents); a run that succeeded where
    // an error was expected is a mismatch (1).
    let expected = case
        .spec
        .expect_error
        .as_ref()
        .map(|_| crate::case::verdict(&case, &r));
    let code = report(a, &r, expected.as_ref(), a.lockstep || case.spec.lockstep);
    match expected {
        None => code,
        Some(v) => {
            if !a.json {
                match &v {
                    Ok(()) => println!("PASS [expect_error]: the run failed as the case expects"),
                    Err(why) => println!("FAIL [expect_error]: {why}"),
                }
            }
            if code == 0 && v.is_err() {
                1
            } else {
                code
            }
        }
    }
}

/// `PTX` or `CUDA C++`, for a kernel file given where a case file goes.
/// Whether `path` names a kernel source (`.ptx`, `.cu`) rather than a case file.
pub(super) fn is_kernel_file(path: &std::path::Path) -> bool {
    path.extension().is_some_and(|e| e == "ptx" || e == "cu")
}

/// "PTX" or "CUDA C++", for messages about a kernel source given where a case file belongs.
pub(super) fn kernel_file_kind(path: &std::path::Path) -> &'static str {
    if crate::nvrtc::is_cuda_source(path) {
        "CUDA C++"
    } else {
        "PTX"
    }
}

/// `--dump` / `--png` requests, each naming a buffer of the case.
fn parse_outputs(a: &RunArgs, case: &Case) -> Result<Outputs, CaseError> {
    let dumps = a
        .dump
        .iter()
        .map(|s| output::parse_dump(s))
        .collect::<Result<Vec<_>, _>>();
    let pngs = a
        .png
        .iter()
        .map(|s| output::parse_png(s))
        .collect::<Result<Vec<_>, _>>();
    let o = Outputs {
        dumps: dumps.map_err(CaseError::Case)?,
        pngs: pngs.map_err(CaseError::Case)?,
    };
    for (option, b) in o
        .dumps
        .iter()
        .map(|d| ("--dump", &d.buffer))
        .chain(o.pngs.iter().map(|p| ("--png", &p.buffer)))
    {
        if !case.spec.buffers.contains_key(b) {
            let names: Vec<&str> = case.spec.buffers.keys().map(String::as_str).collect();
            return Err(CaseError::Case(format!(
                "{option} {b}: no buffer named '{b}' to write (buffers: {})",
                names.join(", ")
            )));
        }
    }
    // Where each file goes: its directory must exist, so that a typo fails before the launch
    // (which may be long), not after it.
    for (option, b, path) in o
        .dumps
        .iter()
        .map(|d| ("--dump", &d.buffer, &d.path))
        .chain(o.pngs.iter().map(|p| ("--png", &p.buffer, &p.path)))
    {
        output::check_writable(path).map_err(|m| {
            CaseError::Case(format!(
                "{option} {b}: cannot write {}: {m}",
                path.display()
            ))
        })?;
    }
    // What can be told before the launch: the element type, and the count where `len`, the
    // `values` or the data file's header or size says it.
    for (arg, p) in a.png.iter().zip(&o.pngs) {
        let b = &case.spec.buffers[&p.buffer];
        let bad = |m: String| CaseError::Case(format!("--png '{arg}': {m}"));
        if !matches!(b.dtype, DType::U8 | DType::F32) {
            return Err(bad(format!(
                "a PNG needs a u8 buffer or an f32 buffer in [0, 1]; '{}' is {}",
                p.buffer, b.dtype
            )));
        }
        let n = u64::from(p.width) * u64::from(p.height) * u64::from(p.channels);
        let len = crate::case::data::known_len(b.dtype, b.len, b.init.as_ref(), &case.dir);
        if let Some(len) = len.filter(|&l| l != n) {
            return Err(bad(format!(
                "{}x{}x{} is {n} elements; buffer '{}' has {len} (the image must cover it exactly)",
                p.width, p.height, p.channels, p.buffer
            )));
        }
    }
    Ok(o)
}

/// Print a result; the exit code.
/// Print the result; `expected` is the `[expect_error]` verdict of a case that has one (in
/// `--json` it is the object's `expect_error`: `{"pass": bool, "detail": why}`); `lockstep`
/// whether lockstep order was asked for (`--json`'s `lockstep`).
fn report(
    a: &RunArgs,
    r: &CaseResult,
    expected: Option<&Result<(), String>>,
    lockstep: bool,
) -> u8 {
    let code = match (&r.error, r.passed()) {
        (Some(_), _) => 2,
        (None, true) => 0,
        (None, false) => 1,
    };
    // Under a tool, a fault is the tool's error (one, with the count of threads in it); a
    // tool's report of findings that did not stop the kernel counts each (synccheck's in the
    // error, initcheck's and racecheck's beside it).
    let in_error = match r.error.as_ref().and_then(|e| e.runtime()) {
        Some(crate::host::Error::Fault(_)) => 1,
        Some(crate::host::Error::Sanitizer(rep)) => rep.errors(),
        _ => 0,
    };
    let errors = in_error + r.init_reports.len() as u64 + r.race_reports.len() as u64;
    if a.json {
        let mut j = output::json_report(r);
        if let (Some(t), Some(obj)) = (a.tool, j.as_object_mut()) {
            obj.insert(
                "sanitizer".into(),
                serde_json::json!({"tool": t.name(), "errors": errors}),
            );
        }
        if let Some(obj) = j.as_object_mut() {
            // What repeats the run, where it is not the default: the shuffled schedule with
            // its seed, and lockstep order when asked for (by --lockstep or the case).
            if a.schedule != crate::host::Schedule::Fixed {
                obj.insert("schedule".into(), a.schedule.to_string().into());
            }
            if lockstep {
                obj.insert("lockstep".into(), true.into());
            }
        }
        if let (Some(v), Some(obj)) = (expected, j.as_object_mut()) {
            obj.insert(
                "expect_error".into(),
                serde_json::json!({"pass": v.is_ok(), "detail": v.as_ref().err()}),
            );
        }
        println!("{j}");
    } else {
        print!("{}", output::text_report(r, ""));
        for n in &r.notes {
            eprintln!("{n}");
        }
        if let Some(t) = a.tool {
            // The banner once, before the first report (as compute-sanitizer's), then each
            // report's lines.
            let mut banner = Some(format!("PTXJIT SANITIZER ({t})\n"));
            let mut emit = |text: &str| {
                let head = banner.take().unwrap_or_default();
                eprint!("{}", tool::report_lines(&format!("{head}{text}")));
            };
            // Findings that did not stop the kernel, then a fault that did.
            for f in &r.init_reports {
                emit(&f.sanitizer_text());
            }
            for f in &r.race_reports {
                emit(&f.sanitizer_text());
            }
            // The tool's report takes the place of the error line.
            if let Some(e) = r.error.as_ref().filter(|_| in_error > 0) {
                let text = match e.runtime() {
                    Some(crate::host::Error::Fault(f)) => f.sanitizer_text(),
                    Some(crate::host::Error::Sanitizer(rep)) => rep.text(),
                    _ => e.to_string(),
                };
                // A pipeline's launch is named first.
                let at = match e {
                    CaseError::InLaunch { at, .. } => format!("in {at}\n"),
                    _ => String::new(),
                };
                emit(&format!("{at}{text}"));
                eprintln!("{}", tool::error_summary(errors));
                return 2;
            }
            eprintln!("{}", tool::error_summary(errors));
            if r.error.as_ref().is_some_and(|e| e.kind() == "sanitizer") {
                return 2;
            }
        }
        if let Some(e) = &r.error {
            // Arguments come from the case file's `args` (a launch's, in a pipeline) or the
            // `--arg` list: say which.
            if e.kind() == "argument" {
                return match e {
                    CaseError::InLaunch { at, .. } => {
                        fail(format!("{}: {e} (see the `args` of {at})", r.case))
                    }
                    _ if r.case.ends_with(".toml") => {
                        fail(format!("{}: {e} (see the case's `args`)", r.case))
                    }
                    // An ad-hoc launch's argument errors name the `--arg` at fault.
                    _ => fail(e),
                };
            }
            return fail(e);
        }
    }
    code
}

/// An error before anything ran (bad case file, bad options).
fn report_early(a: &RunArgs, name: &str, e: CaseError) -> u8 {
    if a.json {
        let r = CaseResult::early_error(name, a.engine.into(), e);
        println!("{}", output::json_report(&r));
        2
    } else {
        fail(e)
    }
}
