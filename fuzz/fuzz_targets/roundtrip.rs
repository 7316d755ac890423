//! Printer round trip: `parse(print(m))` is `m` up to spans.
//!
//! The bytes seed the kernel generator (`ptxjit::fuzz::gen`), whose PTX is parsed, printed and
//! parsed again. When the bytes are themselves PTX that parses, that text goes round too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxjit::fuzz::gen::{generate, GenConfig};
use ptxjit::fuzz::rng::Rng;
use ptxjit::ptx::parse;
use ptxjit::ptx::print::{first_difference, print_module};

fn round_trip(text: &str) {
    let Ok(m) = parse(text) else {
        return;
    };
    let printed = print_module(&m);
    let back = match parse(&printed) {
        Ok(b) => b,
        Err(e) => panic!("printed text does not parse: {e}\n--- input\n{text}\n--- printed\n{printed}"),
    };
    if let Some((line, a, b)) = first_difference(&m, &back) {
        panic!("round trip differs at AST dump line {line}:\n  {a}\n  {b}\n--- printed\n{printed}");
    }
}

fuzz_target!(|data: &[u8]| {
    let size = data.first().map_or(20, |&b| 1 + b as usize % 80);
    let mut rng = Rng::from_bytes(data);
    let kernel = generate(&mut rng, GenConfig { size });
    let text = kernel.render();
    assert!(parse(&text).is_ok(), "generated PTX does not parse:\n{text}");
    round_trip(&text);
    if let Ok(s) = std::str::from_utf8(data) {
        round_trip(s);
    }
});
