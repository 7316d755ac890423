//! The PTX ISA instruction tables (`ptx-tests/isa/*.isa`, one trial per file) and the
//! generated checks (exhaustive 8/16-bit forms, seeded random inputs against independent host
//! references), each run on every engine. See `tests/isa/harness.rs` for the table format.

#[path = "isa/generated.rs"]
mod generated;
#[path = "isa/harness.rs"]
mod harness;

use libtest_mimic::{Arguments, Trial};
use std::path::PathBuf;

fn main() {
    let args = Arguments::from_args();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ptx-tests/isa");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "isa"));
    files.sort();
    let mut trials = vec![];
    for f in files {
        let name = format!(
            "isa/{}",
            f.file_stem().and_then(|s| s.to_str()).unwrap_or("?")
        );
        trials.push(Trial::test(name, move || {
            let text = std::fs::read_to_string(&f).map_err(|e| e.to_string())?;
            let t = harness::parse_file(&text).map_err(|e| format!("{}: {e}", f.display()))?;
            let scalar = harness::run_groups(&t.groups);
            let warp = harness::run_warp_groups(&t.warps);
            match (scalar, warp) {
                (Ok(()), Ok(())) => Ok(()),
                (Err(a), Ok(())) | (Ok(()), Err(a)) => Err(a.into()),
                (Err(a), Err(b)) => Err(format!("{a}\n\n{b}").into()),
            }
        }));
    }
    for (name, make) in generated::ALL {
        trials.push(Trial::test(format!("gen/{name}"), move || {
            harness::run_groups(&make()).map_err(Into::into)
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}
