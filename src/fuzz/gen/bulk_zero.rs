//! `st.bulk` (PTX ISA §9.7.9.13, `sm_100`): zeroes 8-byte-aligned bytes of the thread's own
//! shared slot (a multiple of 8, a constant or a register size), then reads a word of the slot
//! back; only the thread touches its slot, so the statement goes anywhere.

use super::{Class, Gen, Stmt, SHARED_SLOT};

impl Gen<'_> {
    /// One `st.bulk` into the own slot and a load from it.
    pub(super) fn bulk_zero(&mut self) -> Stmt {
        let words = (SHARED_SLOT / 8) as u64;
        let start = self.rng.below(words);
        let len = 8 * self.rng.range(1, words - start);
        let off = 8 * start;
        let mut lines = vec![format!("add.s64 %td0, %so, {off};")];
        let size = if self.rng.chance(30) {
            lines.push(format!("mov.u64 %td1, {len};"));
            "%td1".to_string()
        } else {
            len.to_string()
        };
        let op = if self.rng.chance(50) {
            "st.bulk.weak.shared::cta"
        } else {
            lines.push("cvta.shared.u64 %td0, %td0;".to_string());
            "st.bulk"
        };
        lines.push(format!("{op} [%td0], {size}, 0;"));
        let d = self.data_reg(Class::B32);
        let at = 4 * self.rng.below((SHARED_SLOT / 4) as u64);
        lines.push(format!("ld.shared.b32 {d}, [%so+{at}];"));
        Stmt::Code(lines)
    }
}
