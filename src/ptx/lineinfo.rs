//! Source lines from debug line information: which CUDA (or other front-end) source location
//! each PTX instruction came from, as `.file`/`.loc` say (PTX ISA §11.4 "Debugging
//! Directives": NVRTC and nvcc `-lineinfo`, numba's and Triton's line info).
//!
//! A `.loc FILE LINE COL` applies to the instructions after it, in text order, up to the next
//! `.loc` or the end of the function; an instruction before any `.loc` of its function has no
//! source location. `inlined_at F L C` on a `.loc` is the call site of the inlined function the
//! following instructions came from.

use super::ast::{Item, Module, Statement};
use super::span::SourceMap;
use std::collections::BTreeMap;

/// A location in the source the PTX was compiled from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLoc {
    /// The file as `.file` names it (`?N` for an index no `.file` declares).
    pub file: String,
    pub line: u32,
    /// 0 where the compiler gave none.
    pub col: u32,
    /// The call site this code was inlined at (file, line, column), if any.
    pub inlined_at: Option<(String, u32, u32)>,
}

impl std::fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if self.col > 0 {
            write!(f, ":{}", self.col)?;
        }
        if let Some((file, line, col)) = &self.inlined_at {
            write!(f, " (inlined at {file}:{line}")?;
            if *col > 0 {
                write!(f, ":{col}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// The source location of each PTX line that holds an instruction under a `.loc`.
#[derive(Clone, Debug, Default)]
pub struct LineTable {
    /// PTX line (1-based) → source location.
    lines: BTreeMap<u32, SourceLoc>,
}

impl LineTable {
    /// The table of module `m`, whose text `map` maps to lines.
    pub fn new(m: &Module, map: &SourceMap) -> LineTable {
        let files: BTreeMap<u32, &str> = m.files.iter().map(|(i, n)| (*i, n.as_str())).collect();
        let name = |i: u32| {
            files
                .get(&i)
                .map_or_else(|| format!("?{i}"), |n| n.to_string())
        };
        let mut t = LineTable::default();
        for item in &m.items {
            let Item::Function(f) = item else { continue };
            let Some(body) = &f.body else { continue };
            let mut cur = None;
            t.walk(body, &mut cur, &name, map);
        }
        t
    }

    fn walk(
        &mut self,
        stmts: &[Statement],
        cur: &mut Option<SourceLoc>,
        name: &dyn Fn(u32) -> String,
        map: &SourceMap,
    ) {
        for s in stmts {
            match s {
                Statement::Loc {
                    file,
                    line,
                    col,
                    inlined_at,
                    ..
                } => {
                    *cur = Some(SourceLoc {
                        file: name(*file),
                        line: *line,
                        col: *col,
                        inlined_at: inlined_at.map(|(f, l, c)| (name(f), l, c)),
                    })
                }
                Statement::Instruction(i) => {
                    if let Some(loc) = cur {
                        let (line, _) = map.line_col(i.span.start);
                        self.lines.entry(line).or_insert_with(|| loc.clone());
                    }
                }
                Statement::Block(inner, _) => self.walk(inner, cur, name, map),
                Statement::Decl(_) | Statement::Label(_) | Statement::Directive(_) => {}
            }
        }
    }

    /// The source location of the instruction on PTX line `line`, if line info covers it.
    pub fn get(&self, line: u32) -> Option<&SourceLoc> {
        self.lines.get(&line)
    }

    /// Whether the module had no line info.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_instruction_takes_the_loc_before_it() {
        let ptx = "\
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
\t.reg .b64 %rd<3>;
\tld.param.u64 %rd1, [p];
\t.loc 1 7 5
\tcvta.to.global.u64 %rd2, %rd1;
\t.loc 2 3 9, function_name $L__info_string0, inlined_at 1 7 5
\tst.global.u64 [%rd2], %rd1;
\t{
\t.loc 1 9 1
\tret;
\t}
}
\t.file 1 \"kernel.cu\"
\t.file 2 \"helper.cuh\"
";
        let m = crate::ptx::parse(ptx).expect("parses");
        let t = LineTable::new(&m, &SourceMap::new("k.ptx", ptx));
        assert_eq!(t.get(7), None, "before any .loc");
        assert_eq!(
            t.get(9).map(|l| l.to_string()).as_deref(),
            Some("kernel.cu:7:5")
        );
        assert_eq!(
            t.get(11).map(|l| l.to_string()).as_deref(),
            Some("helper.cuh:3:9 (inlined at kernel.cu:7:5)")
        );
        assert_eq!(
            t.get(14).map(|l| l.to_string()).as_deref(),
            Some("kernel.cu:9:1")
        );
    }
}
