//! Never-panic target for the PTX front end: any UTF-8 input either parses or yields a
//! `ParseError` whose span lies inside the text and renders to `name:line:col: message`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxjit::ptx::{parse, span::SourceMap};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = parse(text) {
        assert!(e.span.start <= e.span.end);
        assert!(e.span.end as usize <= text.len());
        let rendered = e.render(&SourceMap::new("fuzz.ptx", text));
        assert!(rendered.starts_with("fuzz.ptx:"));
        assert!(!e.message.is_empty());
    }
});
