//! docs/runtime-api.md stays in step with the library: every stub (a function answering
//! cudaErrorNotSupported) is listed as not supported there, and no function listed as
//! implemented is a stub. Regenerate with cudart/gen/gen_runtime.py when this fails.

#[test]
fn runtime_api_table_matches_the_stubs() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/runtime-api.md"
    ))
    .expect("docs/runtime-api.md");
    let mut listed = std::collections::HashMap::new();
    for line in doc.lines().filter(|l| l.starts_with("| `")) {
        let cols: Vec<&str> = line.split('|').map(str::trim).collect();
        let (status, symbols) = (cols[2], cols[3]);
        for s in symbols.split(", ") {
            let name = s.split('`').nth(1).expect("a symbol in backquotes");
            let supported =
                status == "implemented" || (status == "partial" && !s.contains("(not supported)"));
            listed.insert(name.to_string(), supported);
        }
    }
    for stub in cudart::stubs::STUBS {
        match listed.get(*stub) {
            None => panic!("{stub} is a stub but docs/runtime-api.md does not list it: rerun cudart/gen/gen_runtime.py"),
            Some(true) => panic!("docs/runtime-api.md lists {stub} as implemented, but it is a stub: rerun cudart/gen/gen_runtime.py"),
            Some(false) => {}
        }
    }
    let unsupported = listed.values().filter(|s| !**s).count();
    assert_eq!(
        unsupported,
        cudart::stubs::STUBS.len(),
        "docs/runtime-api.md lists a different number of unsupported symbols than stubs.rs has: rerun cudart/gen/gen_runtime.py"
    );
}
