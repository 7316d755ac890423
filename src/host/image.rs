//! Module images as CUDA programs hand them over, and PTX linking.
//!
//! An image (`cuModuleLoadData`'s `image`, `cuLinkComplete`'s output) is one of:
//! - PTX text (NUL-terminated when the caller gives no size);
//! - a *linked image* that [`link_image`] made: the magic [`LINKED_MAGIC`], the total size as a
//!   little-endian `u64`, then one entry per linked input: name length (`u32`), name, PTX length
//!   (`u64`), PTX text. ptxjit's own format, the output of the driver's linker here;
//! - an NVIDIA fatbin ([`super::fatbin`]), or a fatbin wrapper pointing to one: its PTX entry
//!   for the device is loaded ([`super::fatbin::Fatbin::ptx`]);
//! - an ELF cubin: SASS is never run; see [`ImageError::Sass`].
//!
//! Linking PTX ([`link_ptx`]) concatenates the inputs under one header (the highest `.version`,
//! the first `.target`): a `.extern .func` declaration in one input binds to the `.func`
//! definition in another as it does within one module.

use super::ptx_file::{LinkedInput, PtxFile};

/// The first bytes of a linked image.
pub const LINKED_MAGIC: &[u8; 16] = b"PTXJIT-LINKED\0\0\0";

/// The first bytes of an ELF file (an NVIDIA cubin).
const ELF_MAGIC: [u8; 4] = [0x7f, b'E', b'L', b'F'];
/// A fatbin's magic, as bytes.
const FATBIN_MAGIC: [u8; 4] = super::fatbin::MAGIC.to_le_bytes();
/// A fatbin wrapper's magic (what nvcc registers), as bytes.
const FATBIN_WRAPPER_MAGIC: [u8; 4] = super::fatbin::WRAPPER_MAGIC.to_le_bytes();

/// What kind of image the first bytes say this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind {
    Ptx,
    Linked,
    Cubin,
    Fatbin,
    FatbinWrapper,
}

/// Why an image cannot be loaded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    /// SASS only (an ELF cubin, or a fatbin without PTX entries), described by the string:
    /// ptxjit runs PTX. The driver's `CUDA_ERROR_NO_BINARY_FOR_GPU`.
    #[error("{0} holds only SASS (machine code for a GPU); ptxjit runs PTX: build the kernels with PTX (nvcc -gencode arch=compute_80,code=compute_80, NVRTC to PTX, numba without nvJitLink's LTO, CuPy with CUPY_COMPILE_WITH_PTX=1 as `ptxjit exec` sets it)")]
    Sass(String),
    /// A fatbin whose PTX entries are all for architectures above the device's, described by
    /// the string (`CUDA_ERROR_NO_BINARY_FOR_GPU`).
    #[error("{0}: build with PTX for an architecture the device has (nvcc -gencode arch=compute_80,code=compute_80) or raise the device's compute capability (PTXJIT_CC)")]
    NoPtxForDevice(String),
    /// Not an image of any known kind, or a truncated or inconsistent one
    /// (`CUDA_ERROR_INVALID_IMAGE`).
    #[error("invalid image: {0}")]
    Invalid(String),
}

impl ImageError {
    /// The error for an ELF cubin.
    pub fn cubin() -> ImageError {
        ImageError::Sass("the image (an ELF cubin)".into())
    }
}

/// Classifies an image by its first bytes. `peek(i)` reads byte `i` and is called only while
/// every earlier byte matched a magic, so a short NUL-terminated string is never read past its
/// end.
pub fn classify(mut peek: impl FnMut(usize) -> u8) -> ImageKind {
    let magics: [(&[u8], ImageKind); 4] = [
        (&ELF_MAGIC, ImageKind::Cubin),
        (&FATBIN_MAGIC, ImageKind::Fatbin),
        (&FATBIN_WRAPPER_MAGIC, ImageKind::FatbinWrapper),
        (LINKED_MAGIC, ImageKind::Linked),
    ];
    let mut seen: Vec<u8> = vec![];
    for (magic, kind) in magics {
        let mut ok = true;
        for (i, &b) in magic.iter().enumerate() {
            if i == seen.len() {
                seen.push(peek(i));
            }
            if seen[i] != b {
                ok = false;
                break;
            }
        }
        if ok {
            return kind;
        }
    }
    ImageKind::Ptx
}

/// The total size in bytes of a linked image, from its header (`bytes` holds at least 24).
pub fn linked_size(header: &[u8]) -> Option<u64> {
    let n = header.get(16..24)?;
    Some(u64::from_le_bytes(n.try_into().ok()?))
}

/// A linked image of the given (name, PTX) inputs.
pub fn link_image(inputs: &[(String, String)]) -> Vec<u8> {
    let mut out = LINKED_MAGIC.to_vec();
    out.extend_from_slice(&[0; 8]);
    for (name, ptx) in inputs {
        out.extend_from_slice(&(name.len() as u32).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&(ptx.len() as u64).to_le_bytes());
        out.extend_from_slice(ptx.as_bytes());
    }
    let total = out.len() as u64;
    out[16..24].copy_from_slice(&total.to_le_bytes());
    out
}

/// The (name, PTX) inputs of a linked image. Errors: [`ImageError::Invalid`] when truncated
/// or not UTF-8.
pub fn read_linked(image: &[u8]) -> Result<Vec<(String, String)>, ImageError> {
    let bad = |m: &str| ImageError::Invalid(format!("linked image: {m}"));
    if image.len() < 24 || &image[..16] != LINKED_MAGIC {
        return Err(bad("no header"));
    }
    let mut at = 24usize;
    let mut take = |n: usize| -> Result<&[u8], ImageError> {
        let s = image.get(at..at.checked_add(n).ok_or_else(|| bad("size overflows"))?);
        at += n;
        s.ok_or_else(|| bad("truncated"))
    };
    let mut out = vec![];
    let total = image.len();
    let mut consumed = 24usize;
    while consumed < total {
        let name_len = u32::from_le_bytes(take(4)?.try_into().map_err(|_| bad("truncated"))?);
        let name = String::from_utf8(take(name_len as usize)?.to_vec())
            .map_err(|_| bad("name is not UTF-8"))?;
        let ptx_len = u64::from_le_bytes(take(8)?.try_into().map_err(|_| bad("truncated"))?);
        let ptx_len = usize::try_from(ptx_len).map_err(|_| bad("size overflows"))?;
        let ptx =
            String::from_utf8(take(ptx_len)?.to_vec()).map_err(|_| bad("PTX is not UTF-8"))?;
        consumed += 4 + name_len as usize + 8 + ptx_len;
        out.push((name, ptx));
    }
    Ok(out)
}

/// Text of an image that is PTX: up to its first NUL, as UTF-8.
pub fn ptx_text(bytes: &[u8]) -> Result<String, ImageError> {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8(bytes[..end].to_vec()).map_err(|e| {
        ImageError::Invalid(format!(
            "PTX text is not UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The `.version` of a PTX text as (major, minor).
fn ptx_version(ptx: &str) -> Option<(u32, u32)> {
    let line = ptx
        .lines()
        .map(str::trim_start)
        .find(|l| l.starts_with(".version"))?;
    let v = line.trim_start_matches(".version").trim();
    let v = v.split(|c: char| c.is_whitespace() || c == '/').next()?;
    let (a, b) = v.split_once('.')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

fn is_header(line: &str) -> bool {
    let t = line.trim_start();
    [".version", ".target", ".address_size"]
        .iter()
        .any(|d| t.starts_with(d) && t[d.len()..].starts_with(|c: char| c.is_whitespace()))
}

/// The largest file index a `.file` directive of `ptx` declares (0 when none does).
fn max_file_index(ptx: &str) -> u32 {
    ptx.lines()
        .filter_map(|l| {
            let rest = directive_args(l, ".file")?;
            rest.split(|c: char| c.is_whitespace() || c == '"')
                .next()?
                .parse()
                .ok()
        })
        .max()
        .unwrap_or(0)
}

/// What follows directive `name` on `line` (a line that starts with it, after blanks, and a
/// blank after it), or `None` for any other line.
fn directive_args<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let rest = line.trim_start().strip_prefix(name)?;
    rest.starts_with(|c: char| c.is_whitespace())
        .then(|| rest.trim_start())
}

/// `line` with its file indices raised by `offset`: the index of a `.file` directive, and the
/// file of a `.loc` and of its `inlined_at` (PTX ISA "Debugging Directives"); other lines,
/// and an index that does not parse, stay as they are.
fn renumber_files(line: &str, offset: u32) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    // Raises the number that starts `text` (after blanks): (text before it, the new number,
    // text after it).
    fn bump(text: &str, offset: u32) -> Option<(usize, String, usize)> {
        let start = text.len() - text.trim_start().len();
        let digits = text[start..].bytes().take_while(u8::is_ascii_digit).count();
        let n: u32 = text[start..start + digits].parse().ok()?;
        Some((start, n.checked_add(offset)?.to_string(), start + digits))
    }
    let head = line.len() - line.trim_start().len();
    let trimmed = &line[head..];
    let directive = [".file", ".loc"]
        .into_iter()
        .find(|d| directive_args(trimmed, d).is_some());
    let Some(directive) = directive else {
        return Cow::Borrowed(line);
    };
    let args_at = head + directive.len();
    let Some((a, n, b)) = bump(&line[args_at..], offset) else {
        return Cow::Borrowed(line);
    };
    let mut out = format!("{}{n}", &line[..args_at + a]);
    let mut rest = &line[args_at + b..];
    if directive == ".loc" {
        if let Some(i) = rest.find("inlined_at") {
            let after = i + "inlined_at".len();
            if let Some((a, n, b)) = bump(&rest[after..], offset) {
                out.push_str(&rest[..after + a]);
                out.push_str(&n);
                rest = &rest[after + b..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// One PTX module from several: the highest `.version` of the inputs, the first input's
/// `.target` and `.address_size`, then every input's text without its header directives, in
/// order (so a `.extern .func` resolves to a definition in another input). Each input numbers
/// its `.file`s from 1, so the file indices of each input after the first (its `.file`
/// directives, and the files of its `.loc`s) are raised past those of the inputs before it:
/// line info keeps naming each input's own source files. A single input is returned as it
/// is. Gives the text and how reports name its locations: each input's name and its own
/// line numbers (the inputs' names joined by `+` name the whole). Errors: an input without a
/// `.version`.
pub fn link_ptx(inputs: &[(String, String)]) -> Result<(String, PtxFile), ImageError> {
    if let [(name, only)] = inputs {
        return Ok((only.clone(), PtxFile::new(name)));
    }
    let mut version = (0, 0);
    for (name, ptx) in inputs {
        let v = ptx_version(ptx)
            .ok_or_else(|| ImageError::Invalid(format!("{name}: no .version directive")))?;
        version = version.max(v);
    }
    let first = inputs
        .first()
        .ok_or_else(|| ImageError::Invalid("nothing to link".into()))?;
    let mut out = format!(
        "// linked by ptxjit from {} inputs\n.version {}.{}\n",
        inputs.len(),
        version.0,
        version.1
    );
    for l in first.1.lines().filter(|l| is_header(l)) {
        if !l.trim_start().starts_with(".version") {
            out.push_str(l.trim());
            out.push('\n');
        }
    }
    let mut file_offset = 0u32;
    let mut lines = vec![];
    for (name, ptx) in inputs {
        out.push_str(&format!("// ---- {name}\n"));
        lines.push(LinkedInput {
            name: name.clone(),
            first_line: out.matches('\n').count() as u32 + 1,
            lines: ptx.lines().count() as u32,
        });
        for l in ptx.lines() {
            if is_header(l) {
                // Keep line numbers of the rest as in the input.
                out.push('\n');
            } else {
                out.push_str(&renumber_files(l, file_offset));
                out.push('\n');
            }
        }
        file_offset = file_offset.saturating_add(max_file_index(ptx));
    }
    let whole = inputs
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join("+");
    Ok((out, PtxFile::linked(&whole, lines)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_stops_at_the_first_mismatch() {
        let text = b".version 8.0\0";
        let mut read = 0;
        let k = classify(|i| {
            read = read.max(i + 1);
            text[i]
        });
        assert_eq!(k, ImageKind::Ptx);
        assert_eq!(read, 1, "only the first byte of a PTX text is needed");
        assert_eq!(classify(|i| b"\x7fELF\x02"[i]), ImageKind::Cubin);
        assert_eq!(classify(|i| [0x50, 0xED, 0x55, 0xBA][i]), ImageKind::Fatbin);
        let img = link_image(&[("a".into(), "x".into())]);
        assert_eq!(classify(|i| img[i]), ImageKind::Linked);
    }

    #[test]
    fn linked_images_round_trip() {
        let inputs = vec![
            ("a.ptx".to_string(), ".version 7.0\nA".to_string()),
            ("b".to_string(), "B\u{e9}".to_string()),
        ];
        let img = link_image(&inputs);
        assert_eq!(linked_size(&img), Some(img.len() as u64));
        assert_eq!(read_linked(&img).unwrap(), inputs);
        assert!(read_linked(&img[..img.len() - 1]).is_err());
    }

    #[test]
    fn link_takes_the_highest_version_and_drops_headers() {
        let a = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }\n";
        let b = ".version 8.4\n.target sm_90\n.address_size 64\n.visible .func f() { ret; }\n";
        let (out, _) = link_ptx(&[("a".into(), a.into()), ("b".into(), b.into())]).unwrap();
        assert_eq!(out.matches(".version").count(), 1);
        assert!(out.contains(".version 8.4\n"));
        assert!(out.contains(".target sm_80\n"));
        assert!(!out.contains("sm_90"));
        assert!(out.contains(".entry k") && out.contains(".func f"));
    }

    #[test]
    fn link_keeps_each_inputs_files_apart() {
        // nvcc -rdc=true -lineinfo: each translation unit numbers its files from 1.
        let a = ".version 8.0\n.target sm_80\n.address_size 64\n\
                 .visible .entry k() {\n\t.loc\t2 107 3, function_name $L__info_string0, inlined_at 1 7 30\n\tret;\n}\n\
                 \t.file\t1 \"a.cu\"\n\t.file\t2 \"atomics.hpp\", 1700000000, 42\n";
        let b = ".version 8.0\n.target sm_80\n.address_size 64\n\
                 .visible .func f() {\n\t.loc 1 3 5\n\tret;\n}\n.file 1 \"b.cu\"\n";
        let (out, file) = link_ptx(&[("a".into(), a.into()), ("b".into(), b.into())]).unwrap();
        // Each input's lines keep their own numbers in reports.
        let line_of = |text: &str| {
            let at = out.lines().position(|l| l == text);
            at.expect("the line is in the linked text") as u32 + 1
        };
        assert_eq!(file.locate(line_of(".visible .entry k() {")), ("a", 4));
        assert_eq!(file.locate(line_of(".visible .func f() {")), ("b", 4));
        assert_eq!(file.locate(line_of(".file 3 \"b.cu\"")), ("b", 8));
        assert_eq!(file.locate(1), ("a+b", 1));
        assert_eq!(file.name(), "a+b");
        for want in [
            "\t.loc\t2 107 3, function_name $L__info_string0, inlined_at 1 7 30\n",
            "\t.file\t1 \"a.cu\"\n",
            "\t.file\t2 \"atomics.hpp\", 1700000000, 42\n",
            "\t.loc 3 3 5\n",
            ".file 3 \"b.cu\"\n",
        ] {
            assert!(out.contains(want), "missing {want:?} in:\n{out}");
        }
        // The linked header (4 lines), a marker line per input, then each input's lines.
        assert_eq!(
            out.lines().count(),
            4 + 2 + a.lines().count() + b.lines().count()
        );
    }
}
