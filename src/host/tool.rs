//! The sanitizer tools, as compute-sanitizer names them (`--tool memcheck`): what a user asks
//! for on the command line (`ptxjit run --tool`, `ptxjit exec --tool`) and through the
//! drop-in library (`PTXJIT_TOOL`), and the summary line their reports end with.
//!
//! memcheck is implemented: exact bounds of every global access, red zones between
//! allocations and after device-heap blocks, a quarantine of freed memory (use after free,
//! double free), invalid frees, misaligned accesses, and leaks at the exit of a drop-in
//! program ([`crate::host::Context::set_memcheck`]).
//!
//! initcheck is implemented: loads of global memory (byte by byte) that neither the host nor a
//! kernel has written since the allocation, and loads of shared memory the CTA has not
//! written, each distinct one reported once with its count ([`crate::host::initcheck`]).
//! Tracked writes: host copies, memsets and the host API's buffer writes (a case file's
//! `init`), module variables' initial values, kernel stores, `atom.exch`, surface stores.
//! Other atomics read (an atomic on never-written memory is a finding, and leaves the memory
//! unwritten). Managed, page-locked and registered host memory count as written (the program
//! writes it without API calls). Device-heap (`malloc`) blocks start unwritten, like any
//! allocation. Not tracked: local memory, parameters, texture and surface reads.
//!
//! racecheck and synccheck are accepted names that say they are not implemented yet.

/// A sanitizer tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tool {
    /// Out-of-bounds and misaligned accesses, use after free, bad frees, leaks.
    Memcheck,
    /// Shared-memory data races between threads of a CTA (not implemented yet).
    Racecheck,
    /// Loads of global and shared memory nobody has written (see `runtime::initcheck`).
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
            Tool::Memcheck => true,
            Tool::Initcheck => true,
            Tool::Racecheck | Tool::Synccheck => false,
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
            return Err(format!(
                "the {} tool is not implemented yet (memcheck is)",
                t.name()
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
        let e = Tool::parse("racecheck").unwrap_err();
        assert!(e.contains("racecheck tool is not implemented yet"), "{e}");
        let e = Tool::parse("memchek").unwrap_err();
        assert!(
            e.contains("unknown tool 'memchek'") && e.contains("synccheck"),
            "{e}"
        );
        assert_eq!(error_summary(1), "========= ERROR SUMMARY: 1 error");
        assert_eq!(error_summary(0), "========= ERROR SUMMARY: 0 errors");
    }
}
