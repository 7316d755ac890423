//! Whole-struct accesses: the 32-bit members of lane-strided structs and vectors (`float2`,
//! `float3`, `float4`, `int4`, …) loaded or stored for a whole group of four lanes at once.
//!
//! A `ld.global.v4.f32` (lowered to four 32-bit loads at offsets 0, 4, 8, 12) or a `float3`
//! read as three `ld.global.f32` at offsets 0, 4, 8 of `base + 12 · i` has, per member, a lane
//! stride of 16 or 12 bytes (`affine.rs`), so each member of a group is four scalar loads
//! and three lane inserts (stores: four extracts and four scalar stores). But the four lanes'
//! structs are `4 · S` contiguous bytes (`S` the stride): `S / 4` vector loads, and a transpose
//! of the `S / 4` vectors into the members' vectors (one lane per thread), cover all members;
//! stores transpose back and write `S / 4` vectors.
//!
//! ```text
//! S = 16:  v0 = [x0 y0 z0 w0]  v1 = [x1 y1 z1 w1]  …     x = [x0 x1 x2 x3]   (4×4 transpose,
//!                                                                             8 shuffles)
//! S = 12:  v0 = [x0 y0 z0 x1]  v1 = [y1 z1 x2 y2]  v2 = [z2 x3 y3 z3]
//!          x = perm(blend(v0, v2, v1, v0), 0 3 2 1), y, z alike             (9 shuffles)
//! S = 8:   v0 = [x0 y0 x1 y1]  v1 = [x2 y2 x3 y3]   x = [v0.0 v0.2 v1.0 v1.2]  (2 shuffles)
//! ```
//!
//! # ⚠ Soundness: read before changing
//!
//! A run's members are accessed at the first member (loads) or the last (stores), not at
//! their own place, and bytes that no member of this segment names may be read. This is only
//! correct because:
//! - runs exist only in the full-warp version of a segment's group loop (`fullwarp.rs`), and
//!   of a region's group loop in the blocks every lane of the group runs (`region.rs`: the
//!   lead's blocks and those the version reaches with all lanes, planned per block): all 32
//!   lanes are active, all four lanes of the group run the block, and every hoisted
//!   condition of `affine.rs` holds, among them the bounds check of the members' range for
//!   all 32 lanes, `[lo, hi + 4 + 31 · S)` from lane 0's address, with `lo`/`hi` the lowest
//!   and highest member offsets of the whole block (or segment);
//! - a run's members share their root, stride and hoisted plan (one `ok` value: one bounds
//!   check, one space), are all loads or all stores of 32-bit elements, and lie in
//!   `[a, a + S)` for the run's lowest offset `a`; loads need the highest at `a + S - 4`, so
//!   group `g`'s `4 · S` bytes from `p(a) + 4 g · S` lie in the checked range (`a ≥ lo`,
//!   `a + 32 S = hi_run + 4 + 31 S ≤ hi + 4 + 31 S`); stores need each of the `S / 4`
//!   offsets exactly once, so every byte written is written by one member's lane, as before;
//! - order: between a load run's first and last member the segment has only pure operations
//!   and other loads (no store, atomic or call can change what a member reads when it is
//!   read earlier); between a store run's first and last member only pure operations (no
//!   access can observe a member's store made later). Groups still run one after another, so
//!   the order between lanes of different groups is unchanged;
//! - the transposes move 32-bit lanes only: each member's value in lane `j` is the 32 bits at
//!   `p(a) + (4 g + j) · S + off`, exactly what its own access would read or write;
//! - a store run whose every member stores a load run's member value of the same group (the
//!   same SSA value, not a copy through a slot) at that member's own word stores the load
//!   run's vectors as read: `words_to_structs` is the inverse of `structs_to_words`, and
//!   every word of the struct is stored (a store run names each word once), so the bytes
//!   written are the ones the transposes would produce.

use super::codegen::Gen;
use super::vector::{GVal, Grp};
use crate::ir::{self, Effect, Op};
use cranelift_codegen::ir::{types, ConstantData, InstBuilder, MemFlagsData, Value};
use std::collections::HashMap;

/// Struct strides combined, in bytes: two, three or four 32-bit members.
const WIDE_STRIDES: [u32; 3] = [8, 12, 16];

/// The struct runs of one segment (full-warp version only).
#[derive(Default)]
pub(super) struct WidePlan {
    /// Per member access: its run.
    member: HashMap<ir::Inst, usize>,
    runs: Vec<WideRun>,
}

impl WidePlan {
    /// No struct is accessed whole.
    pub(super) fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Whether access `i` is a member of one of the runs.
    pub(super) fn has_member(&self, i: ir::Inst) -> bool {
        self.member.contains_key(&i)
    }
}

/// A group's state of its struct runs (`Grp::wide`).
#[derive(Default)]
pub(super) struct WideGrp {
    /// Members loaded ahead by their run, and stores kept for their run's last member.
    kept: HashMap<ir::Inst, GVal>,
    /// Per member value a load run produced (both its `i32x4` and its own type): the load
    /// (its index in `raw`) and the member's word.
    src: HashMap<Value, (usize, usize)>,
    /// The group's load runs so far: the vectors each read, in memory order.
    raw: Vec<Vec<Value>>,
}

impl WideGrp {
    /// No member is waiting for its run.
    pub(super) fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }
}

/// The members of one struct access: loaded or stored together for each group.
struct WideRun {
    /// Host address of lane 0's first byte of the struct (its member at the lowest offset).
    p: Value,
    /// Members (32-bit each): `S / 4`, the stride in 32-bit words.
    n: usize,
    /// Each member and its word index in the struct.
    members: Vec<(ir::Inst, usize)>,
    /// Where the run's access is emitted: its first member (loads) or its last (stores).
    lead: ir::Inst,
}

impl Gen<'_, '_> {
    /// Find the struct runs among a segment's instructions (`insts`, in order) from the
    /// block's hoisted plans (`self.fast`); see the module docs for the conditions.
    pub(super) fn plan_wide(&self, insts: &[ir::Inst]) -> WidePlan {
        // Candidates by (plan condition, root, stride, store): (position, inst, offset).
        type Key = (Value, ir::Value, u32, bool);
        type Members = Vec<(usize, ir::Inst, i64)>;
        let mut cands: Vec<(Key, Members)> = vec![];
        for (pos, &i) in insts.iter().enumerate() {
            let Some(fa) = self.fast.access.get(&i).copied() else {
                continue;
            };
            if !WIDE_STRIDES.contains(&fa.stride) {
                continue;
            }
            let d = self.f.inst(i);
            let (et, store) = match d.op {
                Op::Load { .. } => match d.results.first() {
                    Some(&r) => (self.ty(r), false),
                    None => continue,
                },
                Op::Store { .. } => match d.args.get(1) {
                    Some(&x) => (self.ty(x), true),
                    None => continue,
                },
                _ => continue,
            };
            if !matches!(et, ir::Type::I32 | ir::Type::F32) {
                continue;
            }
            let key = (fa.ok, fa.root, fa.stride, store);
            match cands.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push((pos, i, fa.off)),
                None => cands.push((key, vec![(pos, i, fa.off)])),
            }
        }
        let mut plan = WidePlan::default();
        for ((_, _, stride, store), ms) in cands {
            let n = (stride / 4) as usize;
            let a = ms.iter().map(|m| m.2).min().unwrap_or(0);
            let b = ms.iter().map(|m| m.2).max().unwrap_or(0);
            if b - a + 4 != i64::from(stride) {
                continue;
            }
            let words: Option<Vec<usize>> = ms
                .iter()
                .map(|m| {
                    let rel = m.2 - a;
                    (rel % 4 == 0).then_some((rel / 4) as usize)
                })
                .collect();
            let Some(words) = words else { continue };
            if store {
                let mut seen = vec![false; n];
                for &w in &words {
                    if w >= n || seen[w] {
                        seen.clear();
                        break;
                    }
                    seen[w] = true;
                }
                if seen.len() != n || seen.iter().any(|s| !s) {
                    continue;
                }
            }
            // Only pure operations (and, between loads, other loads) in between.
            let (first, last) = (ms[0].0, ms[ms.len() - 1].0);
            let members: Vec<ir::Inst> = ms.iter().map(|m| m.1).collect();
            let clean = insts[first..=last].iter().all(|i| {
                let op = &self.f.inst(*i).op;
                members.contains(i)
                    || op.effect() == Effect::Pure
                    || !store && matches!(op, Op::Load { .. })
            });
            if !clean {
                continue;
            }
            let Some(p) = ms
                .iter()
                .find(|m| m.2 == a)
                .and_then(|m| self.fast.access.get(&m.1))
                .map(|fa| fa.p)
            else {
                continue;
            };
            let lead = if store { ms[ms.len() - 1].1 } else { ms[0].1 };
            let r = plan.runs.len();
            for &i in &members {
                plan.member.insert(i, r);
            }
            plan.runs.push(WideRun {
                p,
                n,
                members: members.into_iter().zip(words).collect(),
                lead,
            });
        }
        plan
    }

    /// A load that is a member of a struct run (`plan_wide`): its group value, loading the
    /// whole run at its first member. `None` when `i` is in no run.
    pub(super) fn wide_load(&mut self, grp: &mut Grp, i: ir::Inst) -> Result<Option<GVal>, String> {
        let Some(&r) = self.fast.wide.member.get(&i) else {
            return Ok(None);
        };
        if let Some(x) = grp.wide.kept.remove(&i) {
            return Ok(Some(x));
        }
        let (p, n, lead, members) = {
            let run = &self.fast.wide.runs[r];
            (run.p, run.n, run.lead, run.members.clone())
        };
        if lead != i {
            return Err(format!(
                "internal: struct member {i} before its run's first"
            ));
        }
        let fl = MemFlagsData::new().with_notrap();
        let base = self.group_elem(grp, p, 4 * n as u32);
        let v: Vec<Value> = (0..n)
            .map(|k| self.b.ins().load(types::I32X4, fl, base, 16 * k as i32))
            .collect();
        let words = self.structs_to_words(&v)?;
        let load = grp.wide.raw.len();
        for (w, &x) in words.iter().enumerate() {
            grp.wide.src.insert(x, (load, w));
        }
        grp.wide.raw.push(v);
        let mut own = None;
        for (m, w) in members {
            let d = self.f.inst(m);
            let t = d
                .results
                .first()
                .map(|&x| self.ty(x))
                .ok_or_else(|| format!("internal: struct load {m} without a result"))?;
            let ct = if t == ir::Type::F32 {
                types::F32X4
            } else {
                types::I32X4
            };
            let x = self.vbitcast(words[w], ct);
            grp.wide.src.insert(x, (load, w));
            let x = GVal::V1(x);
            if m == i {
                own = Some(x);
            } else {
                grp.wide.kept.insert(m, x);
            }
        }
        own.map(Some)
            .ok_or_else(|| format!("internal: {i} missing from its struct run"))
    }

    /// A store that is a member of a struct run (`plan_wide`): kept until the run's last
    /// member, which stores the whole run. `false` when `i` is in no run.
    pub(super) fn wide_store(
        &mut self,
        grp: &mut Grp,
        i: ir::Inst,
        x: GVal,
        t: ir::Type,
    ) -> Result<bool, String> {
        let Some(&r) = self.fast.wide.member.get(&i) else {
            return Ok(false);
        };
        // Where the member's value is a word of a load run, as it was read.
        let from = match x {
            GVal::V1(v) => grp.wide.src.get(&v).copied(),
            GVal::V2(..) | GVal::S4(_) => None,
        };
        let x = match x {
            GVal::V1(v) => v,
            GVal::S4(s) => match self.pack_lanes(s, t) {
                GVal::V1(v) => v,
                _ => return Err(format!("internal: struct store {i} of a 64-bit value")),
            },
            GVal::V2(..) => return Err(format!("internal: struct store {i} of a 64-bit value")),
        };
        let x = self.vbitcast(x, types::I32X4);
        grp.wide.kept.insert(i, GVal::V1(x));
        if let Some(f) = from {
            grp.wide.src.insert(x, f);
        }
        let (p, n, lead, members) = {
            let run = &self.fast.wide.runs[r];
            (run.p, run.n, run.lead, run.members.clone())
        };
        if lead != i {
            return Ok(true);
        }
        let mut words = vec![x; n];
        // The load run every word comes from unchanged, at its own word (a struct copied).
        let mut copied: Option<Option<usize>> = None;
        for (m, w) in members {
            match grp.wide.kept.remove(&m) {
                Some(GVal::V1(v)) => {
                    words[w] = v;
                    let same = match grp.wide.src.get(&v) {
                        Some(&(lr, lw)) if lw == w && copied.is_none_or(|c| c == Some(lr)) => {
                            Some(lr)
                        }
                        _ => None,
                    };
                    copied = Some(same);
                }
                _ => return Err(format!("internal: struct member {m} not stored before {i}")),
            }
        }
        let raw = copied
            .flatten()
            .and_then(|lr| grp.wide.raw.get(lr))
            .filter(|raw| raw.len() == n)
            .cloned();
        let v = match raw {
            // `words_to_structs` of the load's `structs_to_words`: the vectors as read.
            Some(raw) => raw,
            None => self.words_to_structs(&words)?,
        };
        let fl = MemFlagsData::new().with_notrap();
        let base = self.group_elem(grp, p, 4 * n as u32);
        for (k, &x) in v.iter().enumerate() {
            self.b.ins().store(fl, x, base, 16 * k as i32);
        }
        Ok(true)
    }

    /// `[a‖b][idx[0]], …, [a‖b][idx[3]]`: a shuffle of 32-bit lanes (`i32x4`), indices 0..8.
    fn shuffle32(&mut self, a: Value, b: Value, idx: [u8; 4]) -> Value {
        let a8 = self.vbitcast(a, types::I8X16);
        let b8 = self.vbitcast(b, types::I8X16);
        let bytes: Vec<u8> = idx
            .iter()
            .flat_map(|&k| (0..4).map(move |j| 4 * k + j))
            .collect();
        let imm = self.b.func.dfg.immediates.push(ConstantData::from(bytes));
        let r = self.b.ins().shuffle(a8, b8, imm);
        self.vbitcast(r, types::I32X4)
    }

    /// Lane `k` of `src[from[k]]` for each `k` (a blend: every lane keeps its position).
    fn blend32(&mut self, src: [Value; 3], from: [usize; 4]) -> Value {
        let pick = |s: usize| from.map(|f| f == s);
        let ab = pick(1);
        let idx_ab = [0u8, 1, 2, 3].map(|k| if ab[k as usize] { 4 + k } else { k });
        let t = self.shuffle32(src[0], src[1], idx_ab);
        let c = pick(2);
        let idx_c = [0u8, 1, 2, 3].map(|k| if c[k as usize] { 4 + k } else { k });
        self.shuffle32(t, src[2], idx_c)
    }

    /// The 4×4 transpose of 32-bit lanes (its own inverse).
    fn transpose4(&mut self, v: &[Value]) -> Vec<Value> {
        let t0 = self.shuffle32(v[0], v[1], [0, 4, 1, 5]);
        let t1 = self.shuffle32(v[2], v[3], [0, 4, 1, 5]);
        let t2 = self.shuffle32(v[0], v[1], [2, 6, 3, 7]);
        let t3 = self.shuffle32(v[2], v[3], [2, 6, 3, 7]);
        vec![
            self.shuffle32(t0, t1, [0, 1, 4, 5]),
            self.shuffle32(t0, t1, [2, 3, 6, 7]),
            self.shuffle32(t2, t3, [0, 1, 4, 5]),
            self.shuffle32(t2, t3, [2, 3, 6, 7]),
        ]
    }

    /// Four lanes' structs of `n` words (`v`: `n` vectors, memory order) → one vector per
    /// word, lane `j` holding lane `j`'s word.
    fn structs_to_words(&mut self, v: &[Value]) -> Result<Vec<Value>, String> {
        Ok(match v.len() {
            2 => vec![
                self.shuffle32(v[0], v[1], [0, 2, 4, 6]),
                self.shuffle32(v[0], v[1], [1, 3, 5, 7]),
            ],
            3 => {
                let s = [v[0], v[1], v[2]];
                let tx = self.blend32(s, [0, 2, 1, 0]);
                let ty = self.blend32(s, [1, 0, 2, 1]);
                let tz = self.blend32(s, [2, 1, 0, 2]);
                vec![
                    self.shuffle32(tx, tx, [0, 3, 2, 1]),
                    self.shuffle32(ty, ty, [1, 0, 3, 2]),
                    self.shuffle32(tz, tz, [2, 1, 0, 3]),
                ]
            }
            4 => self.transpose4(v),
            n => return Err(format!("internal: struct of {n} words")),
        })
    }

    /// The inverse of [`Self::structs_to_words`]: one vector per word → the four lanes'
    /// structs in memory order.
    fn words_to_structs(&mut self, w: &[Value]) -> Result<Vec<Value>, String> {
        Ok(match w.len() {
            2 => vec![
                self.shuffle32(w[0], w[1], [0, 4, 1, 5]),
                self.shuffle32(w[0], w[1], [2, 6, 3, 7]),
            ],
            3 => {
                // The lane permutations of `structs_to_words` are their own inverses.
                let tx = self.shuffle32(w[0], w[0], [0, 3, 2, 1]);
                let ty = self.shuffle32(w[1], w[1], [1, 0, 3, 2]);
                let tz = self.shuffle32(w[2], w[2], [2, 1, 0, 3]);
                let s = [tx, ty, tz];
                vec![
                    self.blend32(s, [0, 1, 2, 0]),
                    self.blend32([ty, tz, tx], [0, 1, 2, 0]),
                    self.blend32([tz, tx, ty], [0, 1, 2, 0]),
                ]
            }
            4 => self.transpose4(w),
            n => return Err(format!("internal: struct of {n} words")),
        })
    }
}
