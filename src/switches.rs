//! The engines' diagnostic switches: environment variables that turn an optimization off or
//! print what the compiler did, for measurements and diagnosis (docs/switches.md lists them
//! with what each switches off). Read once per process, here and nowhere else: code asks
//! [`switches`] for the values.
//!
//! None of them changes results: with a switch, the engines run the general code, as correct
//! as the optimized one (and slower), or print more.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// The switches' values (see the module comment and docs/switches.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Switches {
    /// `PTXJIT_NO_REGIONS`: no regions (`analysis::region`); both engines run block by block.
    pub no_regions: bool,
    /// `PTXJIT_LOOP_REGIONS`: loop regions (`analysis::region`): each group of four lanes
    /// runs an innermost loop's trips to the end before the next group (the JIT runs four
    /// groups' passes side by side). On unless set to an off word (`0`, `false`, `no`,
    /// `off`; docs/performance.md, "Loop regions").
    pub loop_regions: bool,
    /// `PTXJIT_NO_WARP_CONDS`: the JIT's full-warp region versions decide no branch when the
    /// code is generated (`jit::region`).
    pub no_warp_conds: bool,
    /// `PTXJIT_NO_STREAM`: the JIT runs no stream loop over a call's fresh full warps
    /// (`jit::stream`; for measurements and comparisons).
    pub no_stream: bool,
    /// `PTXJIT_COMPILE_TIMES`: print, per compiled kernel, the time of each compilation step.
    pub compile_times: bool,
    /// `PTXJIT_DISASM`: print each compiled kernel's machine code.
    pub disasm: bool,
    /// `PTXJIT_CODE_DIR`: a folder into which each compiled kernel's machine code is written,
    /// one file per function named `<kernel>.<tier>.<load address in hex>.bin`, to match a
    /// profile's per-address counts (callgrind `--dump-instr=yes`) with the instructions
    /// (`objdump -b binary --adjust-vma`). Unset or empty: none written.
    pub code_dir: Option<&'static std::path::Path>,
    /// `PTXJIT_TIER`: compile JIT kernels with one tier only, `quick` or `optimized`
    /// (`jit::Tier`), instead of the quick tier for the first launch and the optimized one on
    /// a background thread (`host::tiers`). Unset (or any other value, reported once): both.
    pub tier: Option<crate::jit::Tier>,
    /// `PTXJIT_VERIFY_CLIF`: run Cranelift's IR verifier on every function the JIT builds,
    /// as debug builds do; a function it rejects fails to compile with the verifier's errors
    /// (for fuzzing and bug reports; compiles take longer).
    pub verify_clif: bool,
}

/// The switches, read from the environment at the first call.
pub fn switches() -> &'static Switches {
    static S: OnceLock<Switches> = OnceLock::new();
    S.get_or_init(|| Switches {
        no_regions: set_not_off("PTXJIT_NO_REGIONS"),
        loop_regions: !set_off("PTXJIT_LOOP_REGIONS"),
        no_warp_conds: set_not_off("PTXJIT_NO_WARP_CONDS"),
        no_stream: set_not_off("PTXJIT_NO_STREAM"),
        compile_times: std::env::var_os("PTXJIT_COMPILE_TIMES").is_some(),
        disasm: std::env::var_os("PTXJIT_DISASM").is_some(),
        code_dir: std::env::var_os("PTXJIT_CODE_DIR")
            .filter(|v| !v.is_empty())
            .map(|v| &*Box::leak(std::path::PathBuf::from(v).into_boxed_path())),
        tier: std::env::var("PTXJIT_TIER").ok().and_then(|v| {
            let t = tier_word(&v);
            if t.is_none() && !v.trim().is_empty() {
                eprintln!(
                    "ptxjit: PTXJIT_TIER={v:?} is neither `quick` nor `optimized`; \
                     compiling both tiers"
                );
            }
            t
        }),
        verify_clif: match std::env::var("PTXJIT_VERIFY_CLIF") {
            Ok(v) => !off_word(&v),
            Err(_) => VERIFY_CLIF_DEFAULT.load(Ordering::Relaxed),
        },
    })
}

/// Whether an unset `PTXJIT_VERIFY_CLIF` means on ([`verify_clif_by_default`]).
static VERIFY_CLIF_DEFAULT: AtomicBool = AtomicBool::new(false);

/// Makes an unset `PTXJIT_VERIFY_CLIF` mean on, as the differential fuzzer wants (a verifier
/// error is a JIT bug found); set to an off word (`0`, `off`, …) it stays off. The switches
/// are read once per process, so this takes effect only before the first compilation (as
/// `ptxjit fuzz` calls it). Returns whether the verifier is on.
pub fn verify_clif_by_default() -> bool {
    VERIFY_CLIF_DEFAULT.store(true, Ordering::Relaxed);
    switches().verify_clif
}

/// The tier `PTXJIT_TIER` value `v` forces: `quick` or `optimized` (any case, surrounding
/// blanks ignored); `None` for anything else.
fn tier_word(v: &str) -> Option<crate::jit::Tier> {
    match v.trim().to_ascii_lowercase().as_str() {
        "quick" => Some(crate::jit::Tier::Quick),
        "optimized" => Some(crate::jit::Tier::Optimized),
        _ => None,
    }
}

/// Whether variable `name` is set to something other than empty, `0`, `false`, `no` or `off`
/// (any case, surrounding blanks ignored).
fn set_not_off(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !off_word(&v))
}

/// Whether switch `name` is set to an off word (a switch that is on by default).
fn set_off(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.trim().is_empty() && off_word(&v))
}

/// Whether `v` is one of the spellings of off: empty, `0`, `false`, `no`, `off`.
fn off_word(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "" | "0" | "false" | "no" | "off"
    )
}

#[cfg(test)]
mod tests {
    use super::{off_word, tier_word};
    use crate::jit::Tier;

    #[test]
    fn tier_spellings() {
        assert_eq!(tier_word(" Quick "), Some(Tier::Quick));
        assert_eq!(tier_word("optimized"), Some(Tier::Optimized));
        for both in ["", "both", "fast", "1"] {
            assert_eq!(tier_word(both), None, "{both:?}");
        }
    }

    #[test]
    fn off_spellings() {
        for off in ["", "0", "false", "No", " OFF "] {
            assert!(off_word(off), "{off:?}");
        }
        for on in ["1", "true", "yes", "2"] {
            assert!(!off_word(on), "{on:?}");
        }
    }
}
