//! The PTX text a module was loaded from, as reports name its locations: one text, or the
//! text the driver linked from several inputs (`nvcc -rdc=true`'s translation units,
//! [`image::link_ptx`](super::image::link_ptx)). A user never sees the linked text, so a
//! location in it is named by the input it came from and that input's own line, as
//! `cuobjdump -ptx` prints each input (`… linked fatbin 1 (compute_75 PTX):12:1`).

use crate::ir::SrcLoc;
use std::sync::Arc;

/// One input of a linked text: its name, and where its lines are in the linked text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkedInput {
    /// The input's name in messages.
    pub name: String,
    /// The linked line (1-based) that holds the input's first line.
    pub first_line: u32,
    /// How many lines of the linked text are the input's.
    pub lines: u32,
}

/// A module's PTX text as messages name it: its name, and for a linked text where each input's
/// lines are. Cheap to clone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PtxFile {
    name: Arc<str>,
    /// Empty unless the text was linked from several inputs.
    inputs: Arc<[LinkedInput]>,
}

impl PtxFile {
    /// A text that is itself what the user has (a file, an image's PTX entry).
    pub fn new(name: &str) -> PtxFile {
        PtxFile {
            name: name.into(),
            inputs: Arc::new([]),
        }
    }

    /// A text linked from `inputs`, named `name` as a whole.
    pub fn linked(name: &str, inputs: Vec<LinkedInput>) -> PtxFile {
        PtxFile {
            name: name.into(),
            inputs: inputs.into(),
        }
    }

    /// The name of the whole text.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the text was linked from several inputs (its lines are named by them).
    pub fn is_linked(&self) -> bool {
        !self.inputs.is_empty()
    }

    /// `text` (a message about this text) with every `NAME:LINE` of the whole text, as the
    /// PTX front end's errors give a location (`NAME:LINE:COL: …`), named as
    /// [`locate`](Self::locate) says: the input and its own line. Unchanged for a text that
    /// was not linked.
    pub fn relocate(&self, text: &str) -> String {
        if !self.is_linked() {
            return text.to_string();
        }
        let key = format!("{}:", self.name);
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find(&key) {
            out.push_str(&rest[..at]);
            let after = &rest[at + key.len()..];
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            match after[..digits].parse::<u32>() {
                Ok(line) => {
                    let (input, line) = self.locate(line);
                    out.push_str(&format!("{input}:{line}"));
                    rest = &after[digits..];
                }
                Err(_) => {
                    out.push_str(&key);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// The text a line of this one came from and its line there: the input of a linked text
    /// and the input's own line number, or this text and `line` itself (also for the lines
    /// the linker added: its header and the markers between inputs).
    pub fn locate(&self, line: u32) -> (&str, u32) {
        let input = self
            .inputs
            .iter()
            .find(|i| line >= i.first_line && line - i.first_line < i.lines);
        match input {
            Some(i) => (&i.name, line - i.first_line + 1),
            None => (&self.name, line),
        }
    }

    /// `FILE:LINE:COL` of a location of this text, named as [`locate`](Self::locate) says.
    pub fn at(&self, loc: SrcLoc) -> String {
        let (file, line) = self.locate(loc.line);
        format!("{file}:{line}:{}", loc.col)
    }
}

impl std::fmt::Display for PtxFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

impl From<&str> for PtxFile {
    fn from(name: &str) -> PtxFile {
        PtxFile::new(name)
    }
}

impl From<&String> for PtxFile {
    fn from(name: &String) -> PtxFile {
        PtxFile::new(name)
    }
}

impl From<String> for PtxFile {
    fn from(name: String) -> PtxFile {
        PtxFile::new(&name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linked_lines_name_their_input() {
        let f = PtxFile::linked(
            "a+b",
            vec![
                LinkedInput {
                    name: "a".into(),
                    first_line: 5,
                    lines: 10,
                },
                LinkedInput {
                    name: "b".into(),
                    first_line: 16,
                    lines: 3,
                },
            ],
        );
        assert_eq!(f.locate(5), ("a", 1));
        assert_eq!(f.locate(14), ("a", 10));
        assert_eq!(f.locate(15), ("a+b", 15));
        assert_eq!(f.locate(18), ("b", 3));
        assert_eq!(f.locate(19), ("a+b", 19));
        let loc = SrcLoc {
            line: 17,
            col: 4,
            frame: 0,
        };
        assert_eq!(f.at(loc), "b:2:4");
        assert_eq!(PtxFile::new("k.ptx").at(loc), "k.ptx:17:4");
    }
}
