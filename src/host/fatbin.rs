//! NVIDIA fatbins: the containers nvcc (`-fatbin`, and embedded in every executable it
//! builds) and CUDA's libraries hand to the driver, holding one module as PTX and/or SASS for
//! several architectures.
//!
//! NVIDIA does not document the container; the layout below is the one CUDA 12's and 13's
//! `fatbinary` write, as public decoders describe it and as nvcc 13.5's output (the files of
//! `cuda/tests/data/fatbin`) shows. All fields are little-endian.
//!
//! ```text
//! fatbin   = header entry*                      (entries fill header.payload_size bytes)
//! header   = magic:u32 (0xBA55ED50) version:u16 (1) header_size:u16 (16) payload_size:u64
//! entry    = entry header (header_size bytes, at least 64), then `size` bytes of data
//!   +0  kind:u16 (1 PTX, 2 ELF)    +2  u16 (0x0101)    +4  header_size:u32   +8  size:u64
//!   +16 compressed_size:u32        +20 u32             +24 minor:u16         +26 major:u16
//!   +28 arch:u32 (80 for sm_80)    +32 name offset:u32 +36 name length:u32   +40 flags:u64
//!   +48 u64                        +56 uncompressed_size:u64
//!   [+64 ..header_size: the object's name and other fields of later versions]
//! ```
//!
//! `size` is the data's length padded to 8 bytes. The data is the PTX text (NUL-padded) or the
//! ELF cubin, or, when a compression flag is set, its first `compressed_size` bytes are an LZ4
//! block ([`flags::COMPRESSED_LZ4`], CUDA 12's default) or a zstd frame
//! ([`flags::COMPRESSED_ZSTD`], CUDA 13's) that expand to `uncompressed_size` bytes.
//! `major.minor` is the PTX ISA version of a PTX entry (9.5) and the ELF's code version
//! (1.8) of an ELF one; CUDA 13 writes 80-byte headers for PTX and 64-byte ones for ELF,
//! CUDA 12 64-byte ones, longer when the object's name is kept.
//!
//! nvcc registers a *wrapper* (`__fatBinC_Wrapper_t` of CUDA's `fatbinary_section.h`) with
//! `__cudaRegisterFatBinary`: magic `0x466243B1`, version (1, or 2 when it also lists
//! prelinked fatbins), a pointer to the fatbin, and a pointer to a file name or the prelinked
//! fatbins. [`Wrapper`] reads it; following its pointer is the caller's business.
//!
//! ptxjit runs PTX, so [`Fatbin::select_ptx`] picks the PTX entry the driver would JIT for a
//! device of a given compute capability; SASS entries are never run.

use super::image::ImageError;
use std::borrow::Cow;
use std::io::Read;

/// A fatbin's magic (its first four bytes, little-endian).
pub const MAGIC: u32 = 0xBA55_ED50;
/// A fatbin wrapper's magic (`FATBINC_MAGIC` of `fatbinary_section.h`).
pub const WRAPPER_MAGIC: u32 = 0x4662_43B1;
/// The fatbin header's length in bytes; at least this many bytes must be readable at a
/// pointer to a fatbin.
pub const HEADER_BYTES: usize = 16;
/// The wrapper's length in bytes on a 64-bit host.
pub const WRAPPER_BYTES: usize = 24;
/// The fixed part of an entry header, in bytes.
pub const ENTRY_HEADER_BYTES: usize = 64;

/// The bits of an entry's `flags` that ptxjit reads or names.
pub mod flags {
    /// Code for a 64-bit host.
    pub const ADDRESS_64: u64 = 0x1;
    /// Compiled with debug information (`-G`).
    pub const DEBUG: u64 = 0x2;
    /// For a Linux host.
    pub const LINUX: u64 = 0x10;
    /// A compression of older toolkits that no public source describes; not read.
    pub const COMPRESSED_OTHER: u64 = 0x1000;
    /// The data is one LZ4 block (no frame) of `compressed_size` bytes.
    pub const COMPRESSED_LZ4: u64 = 0x2000;
    /// The data is a zstd frame of `compressed_size` bytes.
    pub const COMPRESSED_ZSTD: u64 = 0x8000;
    /// Architecture-specific code (`compute_90a`): runs only on that exact architecture.
    pub const ARCH_SPECIFIC: u64 = 0x10_0000;
    /// Family-specific code (`compute_100f`): runs on the architectures of its family (the
    /// same major compute capability) from its own on.
    pub const FAMILY_SPECIFIC: u64 = 0x20_0000;
}

fn invalid(what: impl std::fmt::Display) -> ImageError {
    ImageError::Invalid(format!("fatbin: {what}"))
}

/// `N` bytes of `bytes` at `at`, or `None` past its end.
fn read<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at.checked_add(N)?)?.try_into().ok()
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    read(bytes, at).map(u16::from_le_bytes)
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    read(bytes, at).map(u32::from_le_bytes)
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    read(bytes, at).map(u64::from_le_bytes)
}

/// A fatbin's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The container's version: 1 is the only one known.
    pub version: u16,
    /// Bytes from the fatbin's start to its first entry (16).
    pub header_size: u16,
    /// Bytes of entries after the header.
    pub payload_size: u64,
}

impl Header {
    /// Reads the header at the start of `bytes` (at least [`HEADER_BYTES`] long). Errors:
    /// [`ImageError::Invalid`] for a short input, a wrong magic, an unknown version or a
    /// header size under 16.
    pub fn parse(bytes: &[u8]) -> Result<Header, ImageError> {
        let (Some(magic), Some(version), Some(header_size), Some(payload_size)) = (
            u32_at(bytes, 0),
            u16_at(bytes, 4),
            u16_at(bytes, 6),
            u64_at(bytes, 8),
        ) else {
            return Err(invalid(format!(
                "{} bytes, shorter than the {HEADER_BYTES}-byte header",
                bytes.len()
            )));
        };
        if magic != MAGIC {
            return Err(invalid(format!("magic {magic:#010x}, not {MAGIC:#010x}")));
        }
        if version != 1 {
            return Err(invalid(format!(
                "container version {version}; ptxjit reads version 1"
            )));
        }
        if (header_size as usize) < HEADER_BYTES {
            return Err(invalid(format!(
                "header size {header_size}, under {HEADER_BYTES}"
            )));
        }
        Ok(Header {
            version,
            header_size,
            payload_size,
        })
    }

    /// The fatbin's total length in bytes: its header and its entries. Errors: a length
    /// that does not fit the address space.
    pub fn total_size(&self) -> Result<usize, ImageError> {
        usize::try_from(self.payload_size)
            .ok()
            .and_then(|p| p.checked_add(self.header_size as usize))
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or_else(|| invalid(format!("payload size {} is too large", self.payload_size)))
    }
}

/// The total length in bytes of the fatbin whose first bytes are `header` (at least
/// [`HEADER_BYTES`] of them), for a fatbin given by pointer only.
pub fn total_size(header: &[u8]) -> Result<usize, ImageError> {
    Header::parse(header)?.total_size()
}

/// A fatbin wrapper (`__fatBinC_Wrapper_t`), as nvcc registers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wrapper {
    /// 1 (`FATBINC_VERSION`) or 2 (`FATBINC_LINK_VERSION`: `filename_or_fatbins` lists
    /// prelinked fatbins).
    pub version: u32,
    /// The address of the fatbin.
    pub data: u64,
    /// The address of an offline file name (version 1) or of the prelinked fatbins (2).
    pub filename_or_fatbins: u64,
}

impl Wrapper {
    /// Reads a wrapper from its [`WRAPPER_BYTES`] bytes. Errors: a short input, a wrong magic,
    /// an unknown version or a null fatbin pointer.
    pub fn parse(bytes: &[u8]) -> Result<Wrapper, ImageError> {
        let bad = |m: String| ImageError::Invalid(format!("fatbin wrapper: {m}"));
        let (Some(magic), Some(version), Some(data), Some(filename_or_fatbins)) = (
            u32_at(bytes, 0),
            u32_at(bytes, 4),
            u64_at(bytes, 8),
            u64_at(bytes, 16),
        ) else {
            return Err(bad(format!(
                "{} bytes, shorter than {WRAPPER_BYTES}",
                bytes.len()
            )));
        };
        if magic != WRAPPER_MAGIC {
            return Err(bad(format!(
                "magic {magic:#010x}, not {WRAPPER_MAGIC:#010x}"
            )));
        }
        if !(1..=2).contains(&version) {
            return Err(bad(format!(
                "version {version}; ptxjit reads versions 1 and 2"
            )));
        }
        if data == 0 {
            return Err(bad("null fatbin pointer".into()));
        }
        Ok(Wrapper {
            version,
            data,
            filename_or_fatbins,
        })
    }
}

/// What an entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// PTX text (kind 1).
    Ptx,
    /// An ELF cubin: SASS (kind 2).
    Elf,
    /// A kind ptxjit does not know; skipped.
    Other(u16),
}

impl EntryKind {
    fn from_code(code: u16) -> EntryKind {
        match code {
            1 => EntryKind::Ptx,
            2 => EntryKind::Elf,
            other => EntryKind::Other(other),
        }
    }
}

/// How an entry's data is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Lz4,
    Zstd,
}

/// One entry of a fatbin, borrowing its data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// Offset of the entry's header in the fatbin, in bytes.
    pub offset: usize,
    pub kind: EntryKind,
    /// Length of the entry's header in bytes (at least [`ENTRY_HEADER_BYTES`]).
    pub header_size: u32,
    /// Bytes of data after the header (padded to 8).
    pub size: u64,
    /// Bytes of compressed data at the start of the data (0 when not compressed).
    pub compressed_size: u32,
    /// (major, minor): the PTX ISA version of PTX, the code version of an ELF.
    pub version: (u16, u16),
    /// The architecture as its number: 80 for `sm_80`/`compute_80`, 100 for `sm_100`.
    pub arch: u32,
    /// See [`flags`].
    pub flags: u64,
    /// The data's length once decompressed (0 when not compressed).
    pub uncompressed_size: u64,
    /// The object's name, when the header keeps one.
    pub name: Option<&'a [u8]>,
    /// The stored data: `size` bytes, of which the first `compressed_size` are the compressed
    /// stream when compressed.
    pub data: &'a [u8],
}

impl Entry<'_> {
    /// How the data is stored, from the flags. Errors: both LZ4 and zstd set, or a
    /// compression ptxjit does not read.
    pub fn compression(&self) -> Result<Compression, ImageError> {
        let lz4 = self.flags & flags::COMPRESSED_LZ4 != 0;
        let zstd = self.flags & flags::COMPRESSED_ZSTD != 0;
        if self.flags & flags::COMPRESSED_OTHER != 0 {
            return Err(invalid(format!(
                "{}: compressed in a form ptxjit does not read (flags {:#x})",
                self.describe(),
                self.flags
            )));
        }
        match (lz4, zstd) {
            (false, false) => Ok(Compression::None),
            (true, false) => Ok(Compression::Lz4),
            (false, true) => Ok(Compression::Zstd),
            (true, true) => Err(invalid(format!(
                "{}: flags {:#x} say both LZ4 and zstd",
                self.describe(),
                self.flags
            ))),
        }
    }

    /// Whether this SASS entry runs on a device of compute capability `cc` (major, minor):
    /// SASS runs on the devices of its own major version from its minor on (sm_80 SASS on
    /// 8.0, 8.6 and 8.9, not on 9.0), an architecture-specific one only on its own. A PTX
    /// entry is never SASS that runs.
    pub fn sass_runs_on(&self, cc: (u32, u32)) -> bool {
        let device = cc.0 * 10 + cc.1;
        self.kind == EntryKind::Elf
            && if self.flags & flags::ARCH_SPECIFIC != 0 {
                self.arch == device
            } else {
                self.arch / 10 == cc.0 && self.arch <= device
            }
    }

    /// `compute_80 PTX`, `sm_80 SASS`, `compute_90a PTX`, for messages.
    pub fn describe(&self) -> String {
        let suffix = if self.flags & flags::ARCH_SPECIFIC != 0 {
            "a"
        } else if self.flags & flags::FAMILY_SPECIFIC != 0 {
            "f"
        } else {
            ""
        };
        match self.kind {
            EntryKind::Ptx => format!("compute_{}{suffix} PTX", self.arch),
            EntryKind::Elf => format!("sm_{}{suffix} SASS", self.arch),
            EntryKind::Other(k) => format!("entry of kind {k} for arch {}", self.arch),
        }
    }

    /// Whether code of this entry runs on a device of compute capability `cc`
    /// (major, minor): its architecture is not above the device's, and an architecture-
    /// specific entry is for exactly the device's, a family-specific one for its family.
    pub fn runs_on(&self, cc: (u32, u32)) -> bool {
        let device = cc.0 * 10 + cc.1;
        if self.flags & flags::ARCH_SPECIFIC != 0 {
            self.arch == device
        } else if self.flags & flags::FAMILY_SPECIFIC != 0 {
            self.arch / 10 == cc.0 && self.arch <= device
        } else {
            self.arch <= device
        }
    }

    /// The entry's contents, decompressed as its flags say. Errors: a compressed length past
    /// the data, an uncompressed size that the compressed length cannot produce, and a stream
    /// that does not decompress to exactly `uncompressed_size` bytes.
    pub fn contents(&self) -> Result<Cow<'_, [u8]>, ImageError> {
        let what = self.describe();
        let stream = || {
            self.data
                .get(..self.compressed_size as usize)
                .ok_or_else(|| {
                    invalid(format!(
                        "{what}: compressed size {} exceeds the entry's {} bytes",
                        self.compressed_size, self.size
                    ))
                })
        };
        let want = self.uncompressed_size;
        let out = match self.compression()? {
            Compression::None => return Ok(Cow::Borrowed(self.data)),
            Compression::Lz4 => {
                let stream = stream()?;
                // An LZ4 sequence of n bytes expands to at most 255 n bytes (+ the last
                // literals): a larger size is corrupt, and must not be allocated.
                if want > 255 * stream.len() as u64 + 16 {
                    return Err(invalid(format!(
                        "{what}: uncompressed size {want} is more than {} LZ4 bytes can hold",
                        stream.len()
                    )));
                }
                let mut out = vec![0u8; want as usize];
                let n = lz4_flex::block::decompress_into(stream, &mut out)
                    .map_err(|e| invalid(format!("{what}: LZ4 data: {e}")))?;
                out.truncate(n);
                out
            }
            Compression::Zstd => {
                // Read one byte more than expected to see a stream that is too long; the
                // output grows with what the stream really produces.
                let mut out = vec![];
                zstd::stream::read::Decoder::with_buffer(stream()?)
                    .map_err(|e| invalid(format!("{what}: zstd: {e}")))?
                    .single_frame()
                    .take(want.saturating_add(1))
                    .read_to_end(&mut out)
                    .map_err(|e| invalid(format!("{what}: zstd data: {e}")))?;
                out
            }
        };
        if out.len() as u64 != want {
            return Err(invalid(format!(
                "{what}: decompressed to {}{} bytes, the header says {want}",
                out.len(),
                if out.len() as u64 > want { "+" } else { "" }
            )));
        }
        Ok(Cow::Owned(out))
    }
}

/// A parsed fatbin: its header and entries, borrowing the bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fatbin<'a> {
    pub header: Header,
    pub entries: Vec<Entry<'a>>,
}

impl<'a> Fatbin<'a> {
    /// Parses the fatbin at the start of `bytes`; bytes after its end (by its header) are
    /// ignored. Errors: [`ImageError::Invalid`] naming the first field that is out of bounds
    /// or inconsistent.
    pub fn parse(bytes: &'a [u8]) -> Result<Fatbin<'a>, ImageError> {
        let header = Header::parse(bytes)?;
        let total = header.total_size()?;
        let bytes = bytes.get(..total).ok_or_else(|| {
            invalid(format!(
                "truncated: the header says {total} bytes, {} given",
                bytes.len()
            ))
        })?;
        let mut entries = vec![];
        let mut at = header.header_size as usize;
        while at < total {
            let entry = parse_entry(bytes, at)?;
            // The data ends within `total` (checked by parse_entry), so this cannot overflow.
            at += entry.header_size as usize + entry.data.len();
            entries.push(entry);
        }
        Ok(Fatbin { header, entries })
    }

    /// The PTX entry the driver would JIT for a device of compute capability `cc` (major,
    /// minor): of the entries that [run on it](Entry::runs_on), the highest architecture, a
    /// plain one before an architecture- or family-specific one of the same number.
    ///
    /// A fatbin with SASS that [runs on the device](Entry::sass_runs_on) and PTX only for
    /// newer architectures runs on a GPU of that compute capability (as its SASS), so here
    /// the PTX stands in for that SASS: the lowest architecture's plain entry (the same
    /// source compiled for the architecture nearest the device's); [`Self::stand_in_for`]
    /// names the SASS it replaces. CuPy's wheels ship their CUB, Thrust and cuRAND kernels
    /// so: SASS for sm_50 to sm_120, PTX for compute_100 alone.
    ///
    /// Errors: [`ImageError::Sass`] when the fatbin has SASS but no PTX,
    /// [`ImageError::NoPtxForDevice`] when no PTX entry runs on the device and no SASS does
    /// either, [`ImageError::Invalid`] when it holds neither.
    pub fn select_ptx(&self, cc: (u32, u32)) -> Result<&Entry<'a>, ImageError> {
        let ptx: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|e| e.kind == EntryKind::Ptx)
            .collect();
        if ptx.is_empty() {
            let sass = self.list(|k| k == EntryKind::Elf);
            return Err(if sass.is_empty() {
                invalid(format!(
                    "no PTX or SASS entry among its {} entries (the device linker's output \
                     for an nvcc -rdc=true program built with code=compute_XX alone is such \
                     a fatbin: its PTX is in the fatbins its version-2 wrapper lists, which \
                     the driver links when given the wrapper)",
                    self.entries.len()
                ))
            } else {
                ImageError::Sass(format!("the fatbin ({sass})"))
            });
        }
        let specific = |e: &Entry| e.flags & (flags::ARCH_SPECIFIC | flags::FAMILY_SPECIFIC) != 0;
        let stand_in = || {
            self.stand_in_for(cc)?;
            ptx.iter()
                .copied()
                .filter(|e| !specific(e))
                .min_by_key(|e| e.arch)
        };
        ptx.iter()
            .copied()
            .filter(|e| e.runs_on(cc))
            .max_by_key(|e| (e.arch, !specific(e)))
            .or_else(stand_in)
            .ok_or_else(|| {
                ImageError::NoPtxForDevice(format!(
                    "the fatbin has {} and none for compute capability {}.{}",
                    self.list(|k| k == EntryKind::Ptx),
                    cc.0,
                    cc.1
                ))
            })
    }

    /// The SASS entry that runs on a device of compute capability `cc` when no PTX entry
    /// does (the entry a GPU would run, which [`Self::select_ptx`]'s PTX then stands in
    /// for): the highest architecture of those that run on it. `None` when some PTX entry
    /// runs on the device or no SASS entry does.
    pub fn stand_in_for(&self, cc: (u32, u32)) -> Option<&Entry<'a>> {
        let ptx_runs = self
            .entries
            .iter()
            .any(|e| e.kind == EntryKind::Ptx && e.runs_on(cc));
        if ptx_runs {
            return None;
        }
        self.entries
            .iter()
            .filter(|e| e.sass_runs_on(cc))
            .max_by_key(|e| e.arch)
    }

    /// The text of the PTX entry [`select_ptx`](Self::select_ptx) picks, with that entry.
    /// Errors: those of `select_ptx` and [`Entry::contents`], and PTX that is not UTF-8.
    pub fn ptx(&self, cc: (u32, u32)) -> Result<(&Entry<'a>, String), ImageError> {
        let entry = self.select_ptx(cc)?;
        let text = super::image::ptx_text(&entry.contents()?).map_err(|e| match e {
            ImageError::Invalid(m) => invalid(format!("{}: {m}", entry.describe())),
            other => other,
        })?;
        Ok((entry, text))
    }

    fn list(&self, keep: impl Fn(EntryKind) -> bool) -> String {
        let names: Vec<String> = self
            .entries
            .iter()
            .filter(|e| keep(e.kind))
            .map(Entry::describe)
            .collect();
        names.join(", ")
    }
}

/// The entry whose header is at `at` in `bytes` (the whole fatbin).
fn parse_entry(bytes: &[u8], at: usize) -> Result<Entry<'_>, ImageError> {
    let short = || {
        invalid(format!(
            "entry at byte {at}: {} bytes left, shorter than an entry header ({ENTRY_HEADER_BYTES})",
            bytes.len() - at.min(bytes.len())
        ))
    };
    let head = bytes
        .get(at..)
        .and_then(|b| b.get(..ENTRY_HEADER_BYTES))
        .ok_or_else(short)?;
    let field32 = |o| u32_at(head, o).ok_or_else(short);
    let field64 = |o| u64_at(head, o).ok_or_else(short);
    let kind = EntryKind::from_code(u16_at(head, 0).ok_or_else(short)?);
    let header_size = field32(4)?;
    let size = field64(8)?;
    let minor = u16_at(head, 24).ok_or_else(short)?;
    let major = u16_at(head, 26).ok_or_else(short)?;
    if (header_size as usize) < ENTRY_HEADER_BYTES {
        return Err(invalid(format!(
            "entry at byte {at}: header size {header_size}, under {ENTRY_HEADER_BYTES}"
        )));
    }
    let data_start = at
        .checked_add(header_size as usize)
        .filter(|&s| s <= bytes.len())
        .ok_or_else(|| {
            invalid(format!(
                "entry at byte {at}: its {header_size}-byte header runs past the fatbin's end ({})",
                bytes.len()
            ))
        })?;
    let data = usize::try_from(size)
        .ok()
        .and_then(|n| bytes.get(data_start..data_start.checked_add(n)?))
        .ok_or_else(|| {
            invalid(format!(
                "entry at byte {at}: its {size} bytes of data run past the fatbin's end ({})",
                bytes.len()
            ))
        })?;
    let header = &bytes[at..data_start];
    let (name_at, name_len) = (field32(32)? as usize, field32(36)? as usize);
    let name = (name_at != 0)
        .then(|| header.get(name_at..name_at.checked_add(name_len)?))
        .flatten();
    Ok(Entry {
        offset: at,
        kind,
        header_size,
        size,
        compressed_size: field32(16)?,
        version: (major, minor),
        arch: field32(28)?,
        flags: field64(40)?,
        uncompressed_size: field64(56)?,
        name,
        data,
    })
}

#[cfg(test)]
mod tests;
