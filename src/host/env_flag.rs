//! On/off settings from the environment (`PTXJIT_MEMCHECK`, `PTXJIT_LOCKSTEP`,
//! `PTXJIT_TRACE` …), read the same way by the drop-in libraries.

/// Whether the environment variable `name` turns its setting on: `1`, `true`, `yes` or `on`
/// (any case) do; unset, empty, `0`, `false`, `no` and `off` do not. Any other value is
/// reported on stderr (naming the variable and the accepted values) and counts as off.
pub fn env_flag(name: &str) -> bool {
    let Some(v) = std::env::var_os(name) else {
        return false;
    };
    let v = v.to_string_lossy();
    match parse_flag(&v) {
        Some(on) => on,
        None => {
            eprintln!(
                "ptxjit: {name}={v} is not one of 1, true, yes, on (on) or 0, false, no, off \
                 (off); treated as off"
            );
            false
        }
    }
}

/// `Some(on)` for the accepted spellings of [`env_flag`], `None` for anything else.
fn parse_flag(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "" | "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::parse_flag;

    #[test]
    fn spellings() {
        for on in ["1", "true", "TRUE", "yes", "On", " 1 "] {
            assert_eq!(parse_flag(on), Some(true), "{on}");
        }
        for off in ["", "0", "false", "False", "no", "OFF"] {
            assert_eq!(parse_flag(off), Some(false), "{off}");
        }
        for bad in ["2", "y", "enable", "-1"] {
            assert_eq!(parse_flag(bad), None, "{bad}");
        }
    }
}

/// Parses a compute capability `MAJOR.MINOR` as the drop-in driver reports it (`ptxjit exec
/// --cc`, `PTXJIT_CC`): a major version from 5 to 12 and a one-digit minor version, so 5.0 to
/// 12.9. Errors: a message naming the value and the accepted form.
pub fn parse_compute_capability(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("'{s}' is not a compute capability MAJOR.MINOR from 5.0 to 12.9");
    let (a, b) = s.split_once('.').ok_or_else(bad)?;
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    if !digits(a) || !digits(b) || b.len() != 1 {
        return Err(bad());
    }
    let major: u32 = a.parse().map_err(|_| bad())?;
    let minor: u32 = b.parse().map_err(|_| bad())?;
    if !(5..=12).contains(&major) {
        return Err(bad());
    }
    Ok((major, minor))
}

#[cfg(test)]
mod cc_tests {
    use super::parse_compute_capability as p;

    #[test]
    fn compute_capability_forms() {
        assert_eq!(p("9.0"), Ok((9, 0)));
        assert_eq!(p("8.6"), Ok((8, 6)));
        assert_eq!(p("12.9"), Ok((12, 9)));
        assert_eq!(p("5.0"), Ok((5, 0)));
        for bad in [
            "", "abc", "9", "99.9", "4.0", "13.0", "9.", ".0", "9.10", "+9.0", "9.0.0",
        ] {
            assert!(p(bad).is_err(), "{bad:?} accepted");
        }
    }
}
