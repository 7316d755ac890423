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
