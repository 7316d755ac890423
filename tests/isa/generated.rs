//! Generated checks: exhaustive over small input spaces, or seeded random inputs, with
//! expected values from host computations written here independently of the engines.

use super::harness::{Expect, Group, Row, Ty};

/// A named generated check.
pub type Check = (&'static str, fn() -> Vec<Group>);

/// Every generated check.
pub const ALL: &[Check] = &[];

#[allow(dead_code)]
fn group(
    ptx: &str,
    outs: &[(&str, Ty)],
    ins: &[(&str, Ty)],
    rows: Vec<(Vec<u64>, Vec<u64>)>,
) -> Group {
    Group {
        ptx: ptx.to_string(),
        outs: outs.iter().map(|(n, t)| (n.to_string(), *t)).collect(),
        ins: ins.iter().map(|(n, t)| (n.to_string(), *t)).collect(),
        tol: None,
        rows: rows
            .into_iter()
            .map(|(i, o)| Row {
                ins: i,
                outs: o.into_iter().map(Expect::Bits).collect(),
                line: 0,
            })
            .collect(),
        line: 0,
    }
}
