//! The sanitizer tools, as compute-sanitizer names them (`--tool memcheck`): what a user asks
//! for on the command line (`ptxjit run --tool`, `ptxjit exec --tool`) and through the
//! drop-in library (`PTXJIT_TOOL`), and the summary line their reports end with.
//!
//! memcheck is implemented: exact bounds of every global access, red zones between
//! allocations and after device-heap blocks, a quarantine of freed memory (use after free,
//! double free), invalid frees, misaligned accesses, and leaks at the exit of a drop-in
//! program ([`crate::host::Context::set_memcheck`]).
//!
//! racecheck is implemented (`runtime::race` has the model): data races on shared memory
//! (static and dynamic, also through generic addresses) between threads of one CTA —
//! write–write, read–write and atomic–write pairs with no barrier or warp-level
//! synchronization between them. Lanes of the same warp count as different threads
//! (independent thread scheduling: legacy warp-synchronous code without `__syncwarp` is
//! reported, as compute-sanitizer reports it); barriers order the accesses of the warps that
//! wait at them, `bar.warp.sync` and the `.sync` collectives those of the lanes taking part,
//! and atomics race with neither atomics nor plain reads (`atomicCAS` loops). Not checked:
//! global memory, races between CTAs, synchronization through memory (a `volatile` flag with
//! fences is reported as a race), and accesses made by `cp.async`, the matrix instructions
//! and texture/surface units. A race does not stop the kernel.
//!
//! initcheck and synccheck are accepted names that say they are not implemented yet.

/// A sanitizer tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tool {
    /// Out-of-bounds and misaligned accesses, use after free, bad frees, leaks.
    Memcheck,
    /// Shared-memory data races between threads of a CTA (`runtime::race`).
    Racecheck,
    /// Reads of never-written device memory (not implemented yet).
    Initcheck,
    /// Barrier and warp-mask misuse (not implemented yet).
    Synccheck,
}

impl Tool {
    /// Every tool, in the order help texts list them.
    pub const ALL: [Tool; 4] = [
        Tool::Memcheck,
        Tool::Racecheck,
        Tool::Initcheck,
        Tool::Synccheck,
    ];

    /// The tool's name (`memcheck`).
    pub fn name(self) -> &'static str {
        match self {
            Tool::Memcheck => "memcheck",
            Tool::Racecheck => "racecheck",
            Tool::Initcheck => "initcheck",
            Tool::Synccheck => "synccheck",
        }
    }

    /// Whether ptxjit implements the tool.
    pub fn is_implemented(self) -> bool {
        match self {
            Tool::Memcheck | Tool::Racecheck => true,
            Tool::Initcheck | Tool::Synccheck => false,
        }
    }

    /// The tool named `s`. Errors: an unknown name (the message lists the tools), or a tool
    /// that is not implemented yet (the message says so and names the one that is).
    pub fn parse(s: &str) -> Result<Tool, String> {
        let t = Tool::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Tool::ALL.iter().map(|t| t.name()).collect();
                format!("unknown tool '{s}' (tools: {})", names.join(", "))
            })?;
        if !t.is_implemented() {
            let done: Vec<&str> = Tool::ALL
                .iter()
                .filter(|t| t.is_implemented())
                .map(|t| t.name())
                .collect();
            return Err(format!(
                "the {} tool is not implemented yet (implemented: {})",
                t.name(),
                done.join(", ")
            ));
        }
        Ok(t)
    }
}

impl std::fmt::Display for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// compute-sanitizer's prefix of every report line.
pub const REPORT_PREFIX: &str = "=========";

/// The last line of a tool's report: `========= ERROR SUMMARY: N errors`.
pub fn error_summary(errors: u64) -> String {
    let s = if errors == 1 { "" } else { "s" };
    format!("{REPORT_PREFIX} ERROR SUMMARY: {errors} error{s}")
}

/// `text` as report lines: each line behind [`REPORT_PREFIX`].
pub fn report_lines(text: &str) -> String {
    text.lines()
        .map(|l| format!("{REPORT_PREFIX} {l}\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_unimplemented_tools_say_so() {
        assert_eq!(Tool::parse("memcheck"), Ok(Tool::Memcheck));
        assert_eq!(Tool::parse("racecheck"), Ok(Tool::Racecheck));
        for t in Tool::ALL.into_iter().filter(|t| !t.is_implemented()) {
            let e = Tool::parse(t.name()).unwrap_err();
            assert!(e.contains("tool is not implemented yet"), "{e}");
        }
        let e = Tool::parse("memchek").unwrap_err();
        assert!(
            e.contains("unknown tool 'memchek'") && e.contains("synccheck"),
            "{e}"
        );
        assert_eq!(error_summary(1), "========= ERROR SUMMARY: 1 error");
        assert_eq!(error_summary(0), "========= ERROR SUMMARY: 0 errors");
    }
}
