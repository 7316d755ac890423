//! Source locations: byte spans into the PTX text and their line:column rendering.

/// A half-open byte range `[start, end)` into the PTX source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// Maps byte offsets of one source text to 1-based line and column numbers.
#[derive(Clone, Debug)]
pub struct SourceMap {
    /// Name shown in messages (the file path, or `<input>`).
    pub name: String,
    line_starts: Vec<u32>,
}

impl SourceMap {
    pub fn new(name: &str, text: &str) -> SourceMap {
        let mut line_starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        SourceMap {
            name: name.to_string(),
            line_starts,
        }
    }

    /// 1-based (line, column) of a byte offset; columns count bytes.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        (line as u32 + 1, offset - self.line_starts[line] + 1)
    }
}
