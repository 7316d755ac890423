//! The sanitizer tools, as compute-sanitizer names them (`--tool memcheck`): what a user asks
//! for on the command line (`ptxjit run --tool`, `ptxjit exec --tool`) and through the
//! drop-in library (`PTXJIT_TOOL`), and the summary line their reports end with.
//!
//! memcheck is implemented: exact bounds of every global access, red zones between
//! allocations and after device-heap blocks, a quarantine of freed memory (use after free,
//! double free), invalid frees, misaligned accesses, and leaks at the exit of a drop-in
//! program ([`crate::host::Context::set_memcheck`]).
//!
//! synccheck is implemented: barriers reached by part of a warp or block, mismatched barrier
//! thread counts, and warp-level synchronizations whose membermasks do not match the lanes
//! that arrive (`runtime::synccheck`, [`crate::host::LaunchOptions::synccheck`]).
//!
//! A finding that stops the kernel is a fault ([`crate::host::Error::Fault`]); synccheck's
//! findings that do not are [`Finding`]s, which a launch returns as
//! [`crate::host::Error::Sanitizer`].
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
//! racecheck is implemented (`runtime::race` has the model): data races on shared memory
//! (static and dynamic, also through generic addresses) between threads of one CTA —
//! write–write, read–write and atomic–write pairs with no barrier or warp-level
//! synchronization between them. Lanes of the same warp count as different threads
//! (independent thread scheduling: legacy warp-synchronous code without `__syncwarp` is
//! reported, as compute-sanitizer reports it); barriers order the accesses of the warps that
//! wait at them, `bar.warp.sync` and the `.sync` collectives those of the lanes taking part,
//! and atomics race with neither atomics nor plain reads (`atomicCAS` loops). As an option
//! ([`crate::host::LaunchOptions::racecheck_global`], `--racecheck-global`), the same on
//! global memory between threads of one CTA. `mbarrier` phases order the accesses of the
//! warps that arrived before the accesses after a successful wait. Release/acquire operations
//! and the fences' release and acquire patterns (`__threadfence()` then a `volatile` or
//! relaxed store of a flag; the flag's load then `__threadfence()`) order the accesses before
//! the release before those after the acquire. Not checked: races between CTAs, and accesses
//! made by the matrix instructions and texture/surface units (a `cp.async` copy counts as a
//! write of its thread when it executes). A race does not stop
//! the kernel: a launch leaves its races in the context
//! ([`crate::host::Context::take_race_reports`]).
//!
//! Every tool compute-sanitizer has is implemented.

/// A sanitizer tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tool {
    /// Out-of-bounds and misaligned accesses, use after free, bad frees, leaks.
    Memcheck,
    /// Shared-memory data races between threads of a CTA (`runtime::race`).
    Racecheck,
    /// Loads of global and shared memory nobody has written (see `runtime::initcheck`).
    Initcheck,
    /// Barrier and warp-mask misuse.
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

    /// The tool named `s`. Errors: an unknown name (the message lists the tools).
    pub fn parse(s: &str) -> Result<Tool, String> {
        Tool::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Tool::ALL.iter().map(|t| t.name()).collect();
                format!("unknown tool '{s}' (tools: {})", names.join(", "))
            })
    }
}

impl std::fmt::Display for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One error a tool found that did not stop the kernel, in kernel terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub tool: Tool,
    /// compute-sanitizer's headline (`Barrier error detected. Divergent thread(s) in warp`).
    pub what: String,
    /// What happened at the first occurrence, in words (lanes, warps, PTX lines).
    pub detail: String,
    pub kernel: String,
    pub ptx_file: super::PtxFile,
    /// PTX location and instruction text.
    pub loc: crate::ir::SrcLoc,
    pub instruction: String,
    /// The source location (`.loc` line info), if the PTX has one.
    pub source: Option<crate::ptx::lineinfo::SourceLoc>,
    /// The first CTA and thread it was seen in (lowest CTA, then thread).
    pub ctaid: [u32; 3],
    pub tid: [u32; 3],
    /// Threads involved over the launch.
    pub threads: u64,
}

impl Finding {
    /// The report as the tool gives it, one fact a line (as
    /// [`crate::host::FaultReport::sanitizer_text`]).
    pub fn sanitizer_text(&self) -> String {
        let mut out = format!("{}\n", self.what);
        out += &site_lines(&Site {
            kernel: &self.kernel,
            source: self.source.as_ref(),
            ptx_file: &self.ptx_file,
            loc: self.loc,
            instruction: &self.instruction,
            ctaid: self.ctaid,
            tid: self.tid,
            count: self.threads,
        });
        out += &format!("    {}\n", self.detail);
        out
    }
}

/// The errors a tool found in one launch that did not stop it ([`Finding`]s, each distinct
/// error once), and the error that stopped the launch after them, if one did (a deadlock).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SanitizerReport {
    pub findings: Vec<Finding>,
    /// The launch's own error (its message), when it did not complete.
    pub stopped: Option<String>,
}

impl SanitizerReport {
    /// Distinct errors: the findings, and the error that stopped the launch.
    pub fn errors(&self) -> u64 {
        self.findings.len() as u64 + u64::from(self.stopped.is_some())
    }

    /// The report's text: each finding ([`Finding::sanitizer_text`]), then the error that
    /// stopped the launch.
    pub fn text(&self) -> String {
        let mut out: String = self.findings.iter().map(Finding::sanitizer_text).collect();
        if let Some(e) = &self.stopped {
            out += &format!("then the launch stopped: {e}\n");
        }
        out
    }
}

impl std::fmt::Display for SanitizerReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text().trim_end())
    }
}

/// Where and who, for [`site_lines`].
pub(crate) struct Site<'a> {
    pub kernel: &'a str,
    pub source: Option<&'a crate::ptx::lineinfo::SourceLoc>,
    pub ptx_file: &'a super::PtxFile,
    pub loc: crate::ir::SrcLoc,
    pub instruction: &'a str,
    pub ctaid: [u32; 3],
    pub tid: [u32; 3],
    /// Threads involved (the first one is named, the others counted).
    pub count: u64,
}

/// The where and who lines of a tool's report: the kernel and source line, the PTX line and
/// instruction, the first thread and block and how many more threads.
pub(crate) fn site_lines(s: &Site) -> String {
    let mut out = match s.source {
        Some(src) => format!(
            "    at kernel {} in {src}\n",
            super::kernel_name::quoted(s.kernel)
        ),
        None => format!("    at kernel {}\n", super::kernel_name::quoted(s.kernel)),
    };
    out += &format!("    PTX {} '{}'\n", s.ptx_file.at(s.loc), s.instruction);
    let [tx, ty, tz] = s.tid;
    let [bx, by, bz] = s.ctaid;
    out += &format!("    by thread ({tx},{ty},{tz}) in block ({bx},{by},{bz})");
    if s.count > 1 {
        out += &format!(" and {} more threads of the block", s.count - 1);
    }
    out += "\n";
    out
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
    fn every_tool_parses_and_unknown_names_list_the_tools() {
        assert_eq!(Tool::parse("memcheck"), Ok(Tool::Memcheck));
        for t in Tool::ALL {
            assert_eq!(Tool::parse(t.name()), Ok(t));
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
