//! docs/driver-api.md and the generated tables agree with the functions written by hand, found
//! here by scanning cuda/src for `#[no_mangle]` functions (as cuda/gen/gen_procs.py does, but
//! independently of its output): a hand-written function added or removed without rerunning
//! the script fails here.

use cuda::procs::{HAND_WRITTEN, LEGACY, PROCS, STUBS};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Files the script writes.
const GENERATED: [&str; 3] = ["errors.rs", "procs.rs", "stubs.rs"];

/// Legacy symbols written by hand on purpose (their own old ABI; see gen_procs.py).
const LEGACY_BY_HAND: [&str; 4] = [
    "cuGetProcAddress",
    "cuDevicePrimaryCtxRelease",
    "cuDevicePrimaryCtxReset",
    "cuDevicePrimaryCtxSetFlags",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("cuda/src")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `#[no_mangle]` function names in the hand-written sources.
fn hand_written() -> BTreeSet<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut found = BTreeSet::new();
    for f in files {
        let rel = f.strip_prefix(&src).expect("under src");
        if GENERATED.iter().any(|g| rel == Path::new(g)) {
            continue;
        }
        let text = std::fs::read_to_string(&f).expect("source");
        let attrs = text
            .match_indices("#[no_mangle]")
            .chain(text.match_indices("#[unsafe(no_mangle)]"));
        for (at, _) in attrs {
            let rest = &text[at..];
            let Some(fn_at) = rest.find("fn ") else {
                continue;
            };
            let name: String = rest[fn_at + 3..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                continue; // `fn $name` in the `exports!` macro's definition
            }
            assert!(found.insert(name.clone()), "{name} defined twice");
        }
        // `exports! { cuA, cuA_ptsz => fn(...) {...} }` at the start of a line defines each name.
        for (at, _) in text.match_indices("\nexports! {") {
            let rest = &text[at + "\nexports! {".len()..];
            let Some(end) = rest.find("=>") else {
                continue;
            };
            for name in rest[..end].split(',').map(str::trim) {
                assert!(found.insert(name.to_string()), "{name} defined twice");
            }
        }
    }
    found
}

#[test]
fn generated_tables_match_the_sources() {
    let hand = hand_written();
    let recorded: BTreeSet<String> = HAND_WRITTEN.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        hand, recorded,
        "rerun cuda/gen/gen_procs.py: the hand-written functions changed"
    );
    // cuGetProcAddress binary-searches both.
    assert!(PROCS.windows(2).all(|w| w[0].name < w[1].name));
    assert!(HAND_WRITTEN.windows(2).all(|w| w[0] < w[1]));
    for s in STUBS {
        assert!(!hand.contains(*s), "{s} is both a stub and written by hand");
    }
    for s in &hand {
        assert!(
            !LEGACY.contains(&s.as_str()) || LEGACY_BY_HAND.contains(&s.as_str()),
            "{s} is a legacy symbol (old ABI): export the current one instead"
        );
    }
    for p in PROCS {
        for abi in p.abis {
            for s in std::iter::once(abi.symbol).chain(abi.per_thread.as_ref().map(|t| t.symbol)) {
                let exported = hand.contains(s) || STUBS.contains(&s);
                assert_eq!(exported, !LEGACY.contains(&s) || hand.contains(s), "{s}");
            }
        }
    }
}

/// Function -> status, from the Markdown tables of docs/driver-api.md.
fn doc_statuses() -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/driver-api.md");
    let text = std::fs::read_to_string(&path).expect("docs/driver-api.md");
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let name = cells[1].trim_matches('`').to_string();
        assert!(
            out.insert(name.clone(), cells[2].to_string()).is_none(),
            "{name} twice"
        );
    }
    out
}

#[test]
fn driver_api_doc_is_current() {
    let hand = hand_written();
    let docs = doc_statuses();
    let mut expected = BTreeMap::new();
    for p in PROCS {
        let symbols = p
            .abis
            .iter()
            .flat_map(|a| std::iter::once(a.symbol).chain(a.per_thread.as_ref().map(|t| t.symbol)));
        let exported: Vec<&str> = symbols
            .filter(|s| !LEGACY.contains(s) || hand.contains(*s))
            .collect();
        let real = exported.iter().filter(|s| hand.contains(**s)).count();
        let status = match real {
            0 => "not supported",
            n if n == exported.len() => "implemented",
            _ => "partial",
        };
        expected.insert(p.name.to_string(), status.to_string());
    }
    assert_eq!(
        docs, expected,
        "rerun cuda/gen/gen_procs.py: docs/driver-api.md is stale"
    );
}
