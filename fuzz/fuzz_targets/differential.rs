//! Differential target: a kernel generated from the bytes (`ptxjit::fuzz::gen`) runs on the
//! interpreter and on the JIT from identical inputs; any difference in buffers or faults, a
//! panic in either engine, or a generated kernel that does not load, is a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxjit::fuzz::case::LaunchCase;
use ptxjit::fuzz::diff::{compare_with, Verdict};
use ptxjit::fuzz::gen::{generate, GenConfig};
use ptxjit::fuzz::rng::Rng;
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    let size = data.first().map_or(10, |&b| 1 + b as usize % 40);
    let mut rng = Rng::from_bytes(data);
    let kernel = generate(&mut rng, GenConfig { size });
    let case = LaunchCase::of_kernel(&kernel);
    match compare_with(&case, Duration::from_secs(30)) {
        Verdict::Agree => {}
        v => panic!(
            "{}\n{v:?}\n--- PTX (grid {:?}, block {:?})\n{}",
            ptxjit::fuzz::headline(&v),
            case.grid,
            case.block,
            case.ptx
        ),
    }
});
