//! The seeded shuffled schedule (`--schedule shuffle:SEED`): CTAs and warps run in an order
//! drawn from a seed instead of in index order, so that results that depend on the order
//! (a race the fixed order hides) show up as different answers for different seeds, and a
//! seed reproduces its answer. Both engines run on the same CTA scheduler
//! (`runtime::launch`), which takes every order from here, so they follow the same one.
//!
//! The orders, exactly (so a test can compute them on its own):
//! - a generator is SplitMix64 (Steele, Lea, Flood 2014): state `s`; each draw adds
//!   `0x9E3779B97F4A7C15` to `s` and returns `mix(s)`, where `mix(z)` is
//!   `z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
//!   z ^ (z >> 31)` (wrapping);
//! - a permutation of `0..n` from a generator: start from `[0, 1, …, n-1]`; for `i` from
//!   `n-1` down to 1, draw `r` and swap elements `i` and `r % (i + 1)` (Fisher–Yates);
//! - CTAs: the permutation of the grid's linear CTA indices from a generator seeded with
//!   `seed`; the launch runs them one at a time in that order (one host thread, so the order
//!   is the order the CTAs' memory accesses happen in). A grid of more than
//!   [`MAX_SHUFFLED_CTAS`] CTAs runs in blocks of that many consecutive CTAs, the blocks in
//!   order and each block's CTAs permuted by a generator seeded with `seed ^ mix(block + 1)`.
//!   A cooperative grid starts its CTAs in the permuted order;
//! - warps: in each round of a CTA (every warp runs until it stops; then barriers complete),
//!   the warps run in the permutation from a generator seeded with
//!   `seed ^ mix(cta + 1) ^ mix(mix(round + 1))`, where `cta` is the linear CTA index and
//!   `round` counts from 0 at the CTA's start.

/// How a launch orders its CTAs and warps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schedule {
    /// CTAs in parallel in index order, warps in index order (the default).
    #[default]
    Fixed,
    /// The seeded order of the module documentation.
    Shuffle(u64),
}

impl Schedule {
    /// Parse `fixed`, `shuffle` (a seed from the clock) or `shuffle:SEED` (decimal or
    /// `0x` hex). Errors: anything else, with the accepted forms.
    pub fn parse(s: &str) -> Result<Schedule, String> {
        let bad = || format!("bad schedule '{s}' (expected fixed, shuffle or shuffle:SEED)");
        match s.split_once(':') {
            None if s == "fixed" => Ok(Schedule::Fixed),
            None if s == "shuffle" => Ok(Schedule::Shuffle(clock_seed())),
            Some(("shuffle", n)) => {
                let v = match n.strip_prefix("0x") {
                    Some(h) => u64::from_str_radix(h, 16),
                    None => n.parse::<u64>(),
                };
                v.map(Schedule::Shuffle).map_err(|_| bad())
            }
            _ => Err(bad()),
        }
    }
}

impl std::fmt::Display for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Schedule::Fixed => f.write_str("fixed"),
            Schedule::Shuffle(seed) => write!(f, "shuffle:{seed}"),
        }
    }
}

/// A seed for `shuffle` without one: the clock's nanoseconds, mixed.
fn clock_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    mix(t ^ u64::from(std::process::id()))
}

/// Grids of more CTAs than this are shuffled in blocks of this many (see the module docs).
pub const MAX_SHUFFLED_CTAS: u64 = 1 << 16;

/// SplitMix64's output function.
pub fn mix(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// SplitMix64.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }
}

/// The permutation of `0..n` from a generator seeded with `seed` (Fisher–Yates).
pub fn permutation(seed: u64, n: usize) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n as u32).collect();
    let mut g = SplitMix(seed);
    for i in (1..n).rev() {
        let r = (g.next() % (i as u64 + 1)) as usize;
        v.swap(i, r);
    }
    v
}

/// The order of the CTAs `start..start + n` of a shuffled grid (`start` a multiple of
/// [`MAX_SHUFFLED_CTAS`], `n` at most that): linear CTA indices.
pub fn cta_block_order(seed: u64, start: u64, n: usize) -> Vec<u64> {
    let block = start / MAX_SHUFFLED_CTAS;
    let s = if block == 0 {
        seed
    } else {
        seed ^ mix(block + 1)
    };
    permutation(s, n)
        .into_iter()
        .map(|i| start + u64::from(i))
        .collect()
}

/// The order of the `n` warps of CTA `cta` (linear index) in round `round` of a shuffled
/// launch.
pub fn warp_order(seed: u64, cta: u64, round: u64, n: usize) -> Vec<u32> {
    permutation(seed ^ mix(cta + 1) ^ mix(mix(round + 1)), n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_published_sequence_and_permutations_are_permutations() {
        // SplitMix64 seeded with 0: the first outputs of the reference implementation.
        let mut g = SplitMix(0);
        assert_eq!(g.next(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(g.next(), 0x6E78_9E6A_A1B9_65F4);
        for n in [0, 1, 2, 7, 100] {
            let mut p = permutation(42, n);
            p.sort();
            assert_eq!(p, (0..n as u32).collect::<Vec<_>>());
        }
        assert_ne!(permutation(1, 8), permutation(2, 8));
        assert_eq!(permutation(1, 8), permutation(1, 8));
    }

    #[test]
    fn schedules_parse_and_print() {
        assert_eq!(Schedule::parse("fixed"), Ok(Schedule::Fixed));
        assert_eq!(Schedule::parse("shuffle:7"), Ok(Schedule::Shuffle(7)));
        assert_eq!(Schedule::parse("shuffle:0x10"), Ok(Schedule::Shuffle(16)));
        assert!(matches!(
            Schedule::parse("shuffle"),
            Ok(Schedule::Shuffle(_))
        ));
        assert!(Schedule::parse("random").is_err());
        assert!(Schedule::parse("shuffle:x").is_err());
        assert_eq!(Schedule::Shuffle(7).to_string(), "shuffle:7");
    }
}
