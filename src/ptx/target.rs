//! PTX ISA versions and `.target` architectures (PTX ISA §11.1.2 "PTX Module Directives:
//! .version", §11.1.3 ".target", and the release history in the ISA's release notes).
//!
//! A module opens with `.version MAJOR.MINOR` and `.target`; the version must be one the ISA
//! released, at most [`NEWEST`], and at least the version that introduced each architecture
//! the `.target` names (ptxas: "PTX .version 7.0 does not support .target sm_90"). The
//! instruction requirements of the decoder (`src/lower/decode_table.rs`) are checked against
//! the [`Header`] built here.

use std::fmt;

/// A PTX ISA version, `.version MAJOR.MINOR`; ordered as (major, minor).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(pub u32, pub u32);

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

/// The newest PTX ISA version ptxjit accepts: PTX ISA 9.5 (CUDA 13.5). Instructions and forms
/// introduced after PTX ISA 9.1 that ptxjit decodes are listed with their versions in the
/// decoder's table.
pub const NEWEST: Version = Version(9, 5);

/// The last minor version of each major version the ISA released (release history: 1.0-1.4
/// with CUDA 1.0-2.2, 1.5 accepted by ptxas, 2.0-2.3, 3.0-3.2, 4.0-4.3, 5.0, 6.0-6.5, 7.0-7.8,
/// 8.0-8.8, 9.0-9.5 with CUDA 13.0-13.5). ptxas rejects the others ("Unsupported .version
/// 7.9").
const LAST_MINOR: &[(u32, u32)] = &[
    (1, 5),
    (2, 3),
    (3, 2),
    (4, 3),
    (5, 0),
    (6, 5),
    (7, 8),
    (8, 8),
    (9, NEWEST.1),
];

/// Whether `v` is a PTX ISA version that was released and that ptxjit accepts.
pub fn is_released(v: Version) -> bool {
    LAST_MINOR
        .iter()
        .any(|&(major, last)| v.0 == major && v.1 <= last)
}

/// The suffix of an architecture-specific target (PTX ISA §11.1.3): `sm_90a` (only that
/// architecture) or `sm_100f` (that architecture's family).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Suffix {
    /// `sm_NN`: the feature set of NN, portable to later architectures.
    None,
    /// `sm_NNa`: NN's architecture-specific features, runs on NN only.
    A,
    /// `sm_NNf`: the features of NN's family (for example sm_100f: sm_100 and sm_103).
    F,
}

/// An architecture of `.target` (`sm_90a` is `Arch { sm: 90, suffix: Suffix::A }`);
/// `compute_NN` names the same architecture as `sm_NN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arch {
    /// The architecture number (`sm_90` → 90).
    pub sm: u32,
    /// The architecture-specific suffix.
    pub suffix: Suffix,
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self.suffix {
            Suffix::None => "",
            Suffix::A => "a",
            Suffix::F => "f",
        };
        write!(f, "sm_{}{s}", self.sm)
    }
}

/// Each architecture of `.target` and the PTX ISA version that introduced it (PTX ISA §11.1.3
/// "Target ISA Notes" and the release notes; checked against ptxas 12.9 for the versions it
/// knows). Architecture-specific `a` targets come with sm_90 at 8.0, sm_100/sm_101 at 8.6,
/// sm_120 at 8.7 and sm_103/sm_121 at 8.8; the family `f` targets with 8.8.
const ARCHS: &[(u32, Version)] = &[
    (10, Version(1, 0)),
    (11, Version(1, 0)),
    (12, Version(1, 2)),
    (13, Version(1, 2)),
    (20, Version(2, 0)),
    (21, Version(2, 0)),
    (30, Version(3, 0)),
    (32, Version(4, 0)),
    (35, Version(3, 1)),
    (37, Version(4, 1)),
    (50, Version(4, 0)),
    (52, Version(4, 1)),
    (53, Version(4, 2)),
    (60, Version(5, 0)),
    (61, Version(5, 0)),
    (62, Version(5, 0)),
    (70, Version(6, 0)),
    (72, Version(6, 1)),
    (75, Version(6, 3)),
    (80, Version(7, 0)),
    (86, Version(7, 1)),
    (87, Version(7, 4)),
    (88, Version(9, 0)),
    (89, Version(7, 8)),
    (90, Version(7, 8)),
    (100, Version(8, 6)),
    (101, Version(8, 6)),
    (103, Version(8, 8)),
    (110, Version(9, 0)),
    (120, Version(8, 7)),
    (121, Version(8, 8)),
];

/// The PTX ISA version that introduced `arch`, or `None` for an architecture PTX does not
/// have (or a suffix it does not have: `a` from sm_90, `f` from sm_100).
pub fn arch_since(arch: Arch) -> Option<Version> {
    let base = ARCHS.iter().find(|(sm, _)| *sm == arch.sm)?.1;
    match arch.suffix {
        Suffix::None => Some(base),
        Suffix::A if arch.sm >= 90 => Some(if arch.sm == 90 { Version(8, 0) } else { base }),
        Suffix::F if arch.sm >= 100 => Some(base.max(Version(8, 8))),
        Suffix::A | Suffix::F => None,
    }
}

/// The architecture a `.target` entry names (`sm_90a`, `compute_80`), or `None` for the
/// other entries (`texmode_independent`, `debug`, `map_f64_to_f32`) and for names that are
/// not of the `sm_NN`/`compute_NN` shape.
pub fn parse_arch(t: &str) -> Option<Arch> {
    let rest = t
        .strip_prefix("sm_")
        .or_else(|| t.strip_prefix("compute_"))?;
    let (digits, suffix) = match rest.strip_suffix('a') {
        Some(d) => (d, Suffix::A),
        None => match rest.strip_suffix('f') {
            Some(d) => (d, Suffix::F),
            None => (rest, Suffix::None),
        },
    };
    if digits.is_empty() || digits.starts_with('0') || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(Arch {
        sm: digits.parse().ok()?,
        suffix,
    })
}

/// The other entries `.target` may list (PTX ISA §11.1.3).
pub const MODIFIERS: &[&str] = &[
    "texmode_unified",
    "texmode_independent",
    "debug",
    "map_f64_to_f32",
];

/// A module's header as the decoder checks instructions against it: the `.version` and the
/// architecture of `.target` (the first `sm_NN`/`compute_NN` entry; `None` when the list
/// names only modifiers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub version: Version,
    pub arch: Option<Arch>,
}

impl Header {
    /// The header of a parsed module.
    pub fn of(m: &super::ast::Module) -> Header {
        Header {
            version: m.version,
            arch: m.target.iter().find_map(|t| parse_arch(t)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn released_versions() {
        for v in [
            (1, 0),
            (1, 5),
            (2, 3),
            (5, 0),
            (6, 5),
            (7, 8),
            (8, 8),
            (9, 0),
            (9, 5),
        ] {
            assert!(is_released(Version(v.0, v.1)), "{v:?}");
        }
        // ptxas 12.9: "Unsupported .version 7.9" (and 2.4, 6.6, 10.0).
        for v in [
            (0, 9),
            (1, 6),
            (2, 4),
            (5, 2),
            (6, 6),
            (7, 9),
            (8, 9),
            (9, 6),
            (10, 0),
        ] {
            assert!(!is_released(Version(v.0, v.1)), "{v:?}");
        }
    }

    #[test]
    fn architectures_and_their_versions() {
        let a = |t: &str| parse_arch(t).and_then(arch_since);
        // ptxas 12.9: "PTX .version 7.7 does not support .target sm_90" and so on.
        assert_eq!(a("sm_90"), Some(Version(7, 8)));
        assert_eq!(a("sm_90a"), Some(Version(8, 0)));
        assert_eq!(a("compute_90a"), Some(Version(8, 0)));
        assert_eq!(a("sm_100a"), Some(Version(8, 6)));
        assert_eq!(a("sm_100f"), Some(Version(8, 8)));
        assert_eq!(a("sm_120"), Some(Version(8, 7)));
        assert_eq!(a("sm_80"), Some(Version(7, 0)));
        assert_eq!(a("sm_80a"), None);
        assert_eq!(a("sm_90f"), None);
        assert_eq!(a("sm_99"), None);
        assert_eq!(a("sm_090"), None);
        assert_eq!(parse_arch("texmode_independent"), None);
    }
}
