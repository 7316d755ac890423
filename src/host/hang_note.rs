//! The note a launch that runs long prints on stderr: a kernel in an endless loop would
//! otherwise hang the program without a word when no time limit is set (as on a GPU without
//! a watchdog, ptxjit lets the launch run on). After `PTXJIT_HANG_NOTE` seconds (default
//! [`DEFAULT_AFTER`]; `0` turns it off) each launch still running is named once, with the ways
//! to stop it with a report of where its warps are, in the words of the front end that runs
//! it ([`set_front_end`]): a time limit (`--timeout` for `ptxjit run` and `check`,
//! `PTXJIT_TIMEOUT` for the drop-in libraries, `ptxjit exec --timeout`), or Ctrl-C where it
//! is caught (`ptxjit run` and `check`; `PTXJIT_INTERRUPT=1` under `ptxjit exec`).
//!
//! One watcher thread serves every launch: a launch only adds itself to a list and removes
//! itself (a lock each way), so a short launch pays no thread start.

use std::sync::atomic::Ordering;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long a launch runs before its note, unless `PTXJIT_HANG_NOTE` says otherwise.
pub const DEFAULT_AFTER: Duration = Duration::from_secs(10);

/// How often the watcher looks at the running launches.
const POLL: Duration = Duration::from_millis(250);

/// A running launch: its id, when it started, its kernel as messages name it, and whether its
/// note was printed.
struct Running {
    id: u64,
    start: Instant,
    kernel: String,
    noted: bool,
}

static RUNNING: Mutex<Vec<Running>> = Mutex::new(vec![]);

/// The delay before the note: `PTXJIT_HANG_NOTE` in seconds (a decimal number; 0 or `off`: no
/// note), else [`DEFAULT_AFTER`]. A value that is neither is reported once and the default
/// used. Read once per process.
pub fn note_after() -> Option<Duration> {
    static AFTER: OnceLock<Option<Duration>> = OnceLock::new();
    *AFTER.get_or_init(|| {
        let Ok(v) = std::env::var("PTXJIT_HANG_NOTE") else {
            return Some(DEFAULT_AFTER);
        };
        match parse_after(&v) {
            Ok(after) => after,
            Err(()) => {
                eprintln!(
                    "ptxjit: PTXJIT_HANG_NOTE={v} is not a number of seconds (0 or off: no \
                     note); noting launches that run {} s",
                    DEFAULT_AFTER.as_secs()
                );
                Some(DEFAULT_AFTER)
            }
        }
    })
}

/// `PTXJIT_HANG_NOTE`'s value as a delay (`None`: off).
fn parse_after(v: &str) -> Result<Option<Duration>, ()> {
    let v = v.trim();
    if v.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    let secs: f64 = v.parse().map_err(|_| ())?;
    if secs == 0.0 {
        return Ok(None);
    }
    Duration::try_from_secs_f64(secs).map(Some).map_err(|_| ())
}

/// A launch's place in the watcher's list; dropping it (when the launch ends) takes it out.
pub struct Watch(Option<u64>);

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(id) = self.0 {
            let mut list = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
            list.retain(|r| r.id != id);
        }
    }
}

/// Watches a launch of `kernel` (its name as messages give it, quoted) that starts now; a
/// launch with a time limit of its own is not watched (it ends by itself, with a report).
pub fn watch(kernel: impl FnOnce() -> String, has_timeout: bool) -> Watch {
    let Some(after) = note_after().filter(|_| !has_timeout) else {
        return Watch(None);
    };
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    static WATCHER: std::sync::Once = std::sync::Once::new();
    WATCHER.call_once(|| {
        // Without the thread (it could not be started) there are no notes; launches run on.
        let _ = std::thread::Builder::new()
            .name("ptxjit-hang-note".into())
            .spawn(move || loop {
                std::thread::sleep(POLL);
                let mut notes = vec![];
                {
                    let Ok(mut list) = RUNNING.lock() else { return };
                    for r in list.iter_mut().filter(|r| !r.noted) {
                        if r.start.elapsed() >= after {
                            r.noted = true;
                            notes.push(note(&r.kernel, after));
                        }
                    }
                }
                // Printed without the lock, which ending launches take.
                for n in notes {
                    eprintln!("{n}");
                }
            });
    });
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut list = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
    list.push(Running {
        id,
        start: Instant::now(),
        kernel: kernel(),
        noted: false,
    });
    Watch(Some(id))
}

/// How the front end that runs the launches sets a time limit and turns Ctrl-C on, as its
/// user spells them; the note names them ([`set_front_end`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrontEnd {
    /// What sets a launch's time limit (`--timeout SECONDS` for `ptxjit run` and `check`).
    pub limit: &'static str,
    /// What makes Ctrl-C stop a launch with a report where it does not yet (`None`: nothing
    /// the user can set).
    pub interrupt: Option<&'static str>,
}

/// A program that calls ptxjit's host API itself: a time limit is a launch option.
pub const LIBRARY: FrontEnd = FrontEnd {
    limit: "a time limit (LaunchOptions::timeout)",
    interrupt: None,
};

static FRONT_END: OnceLock<FrontEnd> = OnceLock::new();

/// Names the front end whose launches the notes are for (the first call wins; [`LIBRARY`]
/// when none called it): the `ptxjit` command, the drop-in `libcuda.so.1`.
pub fn set_front_end(f: FrontEnd) {
    let _ = FRONT_END.set(f);
}

/// The note for a launch of `kernel` that has run for `after`.
fn note(kernel: &str, after: Duration) -> String {
    let front = FRONT_END.get().copied().unwrap_or(LIBRARY);
    let stop = if crate::runtime::launch::INTERRUPTIBLE.load(Ordering::Relaxed) {
        format!(
            "press Ctrl-C to stop it with a report of where its warps are, or rerun with {}",
            front.limit
        )
    } else {
        match front.interrupt {
            Some(i) => format!(
                "to stop it with a report of where its warps are, rerun with {}, or {i} and \
                 press Ctrl-C",
                front.limit
            ),
            None => format!(
                "to stop it with a report of where its warps are, rerun with {}",
                front.limit
            ),
        }
    };
    format!(
        "ptxjit: kernel {kernel} has been running for {} s and goes on, as on a GPU without a \
         watchdog (an endless loop?); {stop} (PTXJIT_HANG_NOTE=0 turns this note off)",
        after.as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hang_note_values() {
        assert_eq!(parse_after("0"), Ok(None));
        assert_eq!(parse_after("off"), Ok(None));
        assert_eq!(parse_after("2.5"), Ok(Some(Duration::from_millis(2500))));
        assert_eq!(parse_after(" 30 "), Ok(Some(Duration::from_secs(30))));
        assert_eq!(parse_after("-1"), Err(()));
        assert_eq!(parse_after("soon"), Err(()));
    }
}
