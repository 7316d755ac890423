//! The differential runner: one [`LaunchCase`] on the interpreter and on the JIT from
//! identical inputs, compared bit for bit.
//!
//! Each engine gets a fresh [`Context`], the same allocations in the same order and the same
//! initial bytes, the same texture and surface objects and tensor maps over them, and the
//! same launch (cluster shape included, with a time limit). The JIT runs twice when its first
//! run agrees: as a program's first launch runs (the quick tier), then with its optimized
//! tier compiled before the launch. The outcomes agree when:
//! - both launches succeed and every buffer is byte-for-byte equal; or
//! - both fault with the same report (kind, space, address, size, load/store, CTA, thread,
//!   PTX line and instruction, nearest allocation) — the fault *count* is not compared (an
//!   engine may stop a warp at a different point once the launch is aborted), and buffers are
//!   not compared after a fault (the launch stops part-way); or
//! - both fail with the same other error (same kind and message), but for a time limit or a
//!   deadlock.
//!
//! A generated kernel always ends (bounded loops, every wait satisfied: `super::gen`), so a
//! launch that runs past its time limit on both engines is not agreement but a finding
//! ([`Verdict::Timeout`]): the generator made a kernel that does not end, or the runtime keeps
//! waiting where a GPU would not (a trap in one CTA of a cluster whose other CTAs wait for it
//! was one); nothing was compared, as the limit stopped both engines at arbitrary points. The
//! same deadlock reported by both engines is a finding too ([`Verdict::Deadlock`]).
//!
//! A panic inside an engine is caught and is a mismatch, and so is an error compiling either
//! JIT tier (Cranelift's IR verifier, on for these runs unless `PTXJIT_VERIFY_CLIF` turns it
//! off, rejecting a function included) where the interpreter runs the kernel. A kernel both engines reject at load
//! time is [`Verdict::Rejected`]: for generated kernels that is a generator (or front-end) bug.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use super::case::{CaseArg, CaseTensorMap, CaseTexture, LaunchCase};
use crate::host::{Context, DevicePtr, Engine, Error, KernelArg, LaunchDims, LaunchOptions};

/// What one engine produced.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The launch completed; the final contents of every buffer, in case order.
    Done(Vec<Vec<u8>>),
    /// Loading the module failed.
    LoadError(Error),
    /// The launch failed (fault, timeout, argument error …).
    LaunchError(Error),
    /// The engine panicked (message).
    Panic(String),
}

/// The kind of a disagreement, used to keep the same bug while shrinking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MismatchKind {
    /// Both completed, some buffer differs.
    Buffers,
    /// Both faulted, reports differ.
    Faults,
    /// One completed or failed differently from the other, neither by running past the
    /// launch's time limit.
    Outcome,
    /// One ran past the launch's time limit (`Error::Timeout`) and the other did not.
    Timeout,
    /// An engine panicked.
    Panic,
}

impl MismatchKind {
    /// Whether a mismatch of this kind is the same failure as one of `other` while shrinking:
    /// the same kind, where a one-sided time limit ([`MismatchKind::Timeout`]) counts as a
    /// different outcome ([`MismatchKind::Outcome`]), so that a candidate that ends on both
    /// engines with different outcomes is kept (the shrinker tells time limits apart with
    /// [`Verdict::hit_time_limit`]).
    pub fn same_failure(self, other: MismatchKind) -> bool {
        use MismatchKind::{Outcome, Timeout};
        self == other || matches!((self, other), (Outcome, Timeout) | (Timeout, Outcome))
    }
}

/// The result of comparing the two engines on a case.
#[derive(Clone, Debug)]
pub enum Verdict {
    Agree,
    /// Both engines rejected the module with the same error (the message).
    Rejected(String),
    /// Both engines hit the time limit (where each engine's warps were): a generated kernel
    /// that does not end, a generator or runtime bug.
    Timeout(String),
    /// Both engines reported the same deadlock (the report): a wait the generator should
    /// have satisfied, a generator or runtime bug.
    Deadlock(String),
    Mismatch {
        kind: MismatchKind,
        /// Human-readable: which buffer, index and both values, or both outcomes.
        detail: String,
    },
}

impl Verdict {
    /// Whether this verdict is a failure of the same kind as `other` (for shrinking).
    pub fn same_failure(&self, other: &Verdict) -> bool {
        match (self, other) {
            (Verdict::Mismatch { kind: a, .. }, Verdict::Mismatch { kind: b, .. }) => {
                a.same_failure(*b)
            }
            (Verdict::Rejected(a), Verdict::Rejected(b)) => first_line(a) == first_line(b),
            (Verdict::Timeout(_), Verdict::Timeout(_))
            | (Verdict::Deadlock(_), Verdict::Deadlock(_)) => true,
            _ => false,
        }
    }

    /// Whether an engine ran past the launch's time limit: both ([`Verdict::Timeout`]), or
    /// one ([`MismatchKind::Timeout`]).
    pub fn hit_time_limit(&self) -> bool {
        match self {
            Verdict::Timeout(_)
            | Verdict::Mismatch {
                kind: MismatchKind::Timeout,
                ..
            } => true,
            Verdict::Agree
            | Verdict::Rejected(_)
            | Verdict::Deadlock(_)
            | Verdict::Mismatch { .. } => false,
        }
    }

    /// Whether the engines agreed.
    pub fn is_agree(&self) -> bool {
        matches!(self, Verdict::Agree)
    }
}

/// An error message without its `file:line:col:` prefix (which shrinking changes).
fn first_line(msg: &str) -> &str {
    let m = msg.lines().next().unwrap_or("");
    // "file:line:col: message" → "message"
    let mut parts = m.splitn(4, ':');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(_), Some(l), Some(c), Some(rest))
            if l.chars().all(|ch| ch.is_ascii_digit())
                && c.chars().all(|ch| ch.is_ascii_digit()) =>
        {
            rest.trim()
        }
        _ => m,
    }
}

/// Runs `case` on `engine` with the time limit `timeout` (the JIT: its quick tier, or the
/// optimized one where the background thread has compiled it before the launch).
pub fn run_engine(case: &LaunchCase, engine: Engine, timeout: Duration) -> Outcome {
    run_tier(case, engine, false, timeout)
}

/// [`run_engine`]; with `optimized`, the JIT's optimized tier is compiled before the launch
/// (`Kernel::compile_optimized_for`), so the launch runs it: a compiler error there is a load
/// error, a compiler panic a panic.
fn run_tier(case: &LaunchCase, engine: Engine, optimized: bool, timeout: Duration) -> Outcome {
    let run = || -> Result<Vec<Vec<u8>>, (bool, Error)> {
        let mut ctx = Context::new();
        let module = ctx
            .load_module(&case.ptx, "fuzz.ptx", engine)
            .map_err(|e| (true, e))?;
        let kernel = module.kernel(&case.kernel).map_err(|e| (true, e))?;
        let mut ptrs = Vec::new();
        for b in &case.buffers {
            let bytes = (b.len * 4) as u64;
            let p = ctx
                .alloc(bytes.max(4), Some(&b.name))
                .map_err(|e| (false, e))?;
            let mut init = vec![0u8; b.len * 4];
            if let Some(v) = &b.init {
                for (i, w) in v.iter().take(b.len).enumerate() {
                    init[i * 4..i * 4 + 4].copy_from_slice(&w.to_le_bytes());
                }
            }
            ctx.copy_htod(p, &init).map_err(|e| (false, e))?;
            ptrs.push((b.name.clone(), p));
        }
        let mut handles = Vec::new();
        for t in &case.textures {
            let h = make_texture(&mut ctx, t, &ptrs).map_err(|e| (false, e))?;
            handles.push((t.name.clone(), t.surface, h));
        }
        let handle = |name: &str, surface: bool| {
            handles
                .iter()
                .find(|(n, s, _)| n == name && *s == surface)
                .map(|&(_, _, h)| KernelArg::U64(h))
                .ok_or_else(|| {
                    let what = if surface { "surface" } else { "texture" };
                    (
                        false,
                        Error::Argument(format!("no {what} named '{name}' in the case")),
                    )
                })
        };
        let mut args = Vec::new();
        for a in &case.args {
            args.push(match a {
                CaseArg::U32(v) => KernelArg::U32(*v),
                CaseArg::Buffer(name) => match ptrs.iter().find(|(n, _)| n == name) {
                    Some((_, p)) => KernelArg::Ptr(*p),
                    None => {
                        return Err((
                            false,
                            Error::Argument(format!("no buffer named '{name}' in the case")),
                        ))
                    }
                },
                CaseArg::Texture(name) => handle(name, false)?,
                CaseArg::Surface(name) => handle(name, true)?,
                CaseArg::TensorMap(name) => {
                    let t = case
                        .tensor_maps
                        .iter()
                        .find(|t| t.name == *name)
                        .ok_or_else(|| {
                            (
                                false,
                                Error::Argument(format!(
                                    "no tensor map named '{name}' in the case"
                                )),
                            )
                        })?;
                    make_tensor_map(t, &ptrs).map_err(|e| (false, e))?
                }
            });
        }
        let dims = LaunchDims {
            grid: case.grid,
            block: case.block,
            shared_bytes: case.shared_bytes,
        };
        let opts = LaunchOptions {
            memcheck: false,
            synccheck: false,
            schedule: Default::default(),
            initcheck: false,
            racecheck: false,
            lockstep: case.lockstep,
            racecheck_global: false,
            timeout: Some(timeout),
            cooperative: None,
            cluster: case.cluster,
            cluster_non_portable: false,
            stack_bytes: None,
        };
        if optimized {
            kernel.compile_optimized_for(&opts).map_err(|e| (true, e))?;
        }
        ctx.launch(&kernel, dims, &args, &opts)
            .map_err(|e| (false, e))?;
        let mut out = Vec::new();
        for (b, (_, p)) in case.buffers.iter().zip(&ptrs) {
            let mut bytes = vec![0u8; b.len * 4];
            ctx.copy_dtoh(&mut bytes, *p).map_err(|e| (false, e))?;
            out.push(bytes);
        }
        Ok(out)
    };
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(Ok(bufs)) => Outcome::Done(bufs),
        Ok(Err((true, e))) => Outcome::LoadError(e),
        Ok(Err((false, e))) => Outcome::LaunchError(e),
        Err(p) => Outcome::Panic(
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "non-string panic payload".to_string()),
        ),
    }
}

/// Creates the texture or surface object `t` over its buffer (one of `ptrs`, by name), as
/// the case runner does for `[textures.NAME]`/`[surfaces.NAME]`; returns its handle.
fn make_texture(
    ctx: &mut Context,
    t: &CaseTexture,
    ptrs: &[(String, DevicePtr)],
) -> Result<u64, Error> {
    use crate::runtime::texture::{
        AddressMode, ChannelFormat, ChannelType, FilterMode, ReadMode, ResourceDesc, ResourceKind,
        TextureDesc,
    };
    let u = &t.setup;
    let ptr = buffer_ptr(ptrs, &t.buffer)?;
    let ty = ChannelType::from_name(u.format)
        .ok_or_else(|| Error::Argument(format!("unknown texel format '{}'", u.format)))?;
    let kind = ResourceKind::from_name(u.kind)
        .ok_or_else(|| Error::Argument(format!("unknown resource kind '{}'", u.kind)))?;
    let format = ChannelFormat {
        ty,
        channels: u.channels,
    };
    let mut res = ResourceDesc::new(kind, ptr, format, [u.width, u.height, u.depth]);
    res.layers = u.layers;
    res.mip_levels = u.mip_levels;
    if t.surface {
        return ctx.create_surface_object(res);
    }
    let mode = |m: &str| {
        AddressMode::from_name(m)
            .ok_or_else(|| Error::Argument(format!("unknown address mode '{m}'")))
    };
    let filter = if u.linear {
        FilterMode::Linear
    } else {
        FilterMode::Point
    };
    let tex = TextureDesc {
        address: [
            mode(u.address[0])?,
            mode(u.address[1])?,
            mode(u.address[2])?,
        ],
        filter,
        read_mode: if u.read_normalized {
            ReadMode::NormalizedFloat
        } else {
            ReadMode::ElementType
        },
        normalized_coords: u.normalized_coords,
        border_color: u.border,
        mip_filter: filter,
        ..TextureDesc::default()
    };
    ctx.create_texture_object(res, tex)
}

/// The device pointer of the case buffer `name` among `ptrs`.
fn buffer_ptr(ptrs: &[(String, DevicePtr)], name: &str) -> Result<DevicePtr, Error> {
    ptrs.iter()
        .find(|(n, _)| n == name)
        .map(|&(_, p)| p)
        .ok_or_else(|| Error::Argument(format!("no buffer named '{name}' in the case")))
}

/// Encodes the tile-mode tensor map `t` over its buffer (one of `ptrs`) as the case runner
/// does for `[tensor_maps.NAME]`: dense rows, no interleave, swizzle or L2 promotion.
fn make_tensor_map(t: &CaseTensorMap, ptrs: &[(String, DevicePtr)]) -> Result<KernelArg, Error> {
    use crate::runtime::tensormap::TensorMap;
    let u = &t.setup;
    let ptr = buffer_ptr(ptrs, &t.buffer)?;
    let r = u.rank as usize;
    let dims: Vec<u64> = u.dims[..r].iter().map(|&d| u64::from(d)).collect();
    TensorMap::encode_tiled(
        u.code,
        u.rank,
        ptr.0,
        &dims,
        &u.strides(),
        &u.boxd[..r],
        &[1; 5][..r],
        0,
        0,
        0,
        u.oob_nan as u32,
    )
    .map(KernelArg::TensorMap)
    .map_err(|e| Error::Argument(format!("tensor map '{}': {e}", t.name)))
}

/// The default per-launch time limit.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// Runs `case` on both engines and compares (see the module docs).
pub fn compare(case: &LaunchCase) -> Verdict {
    compare_with(case, TIMEOUT)
}

/// [`compare`] with an explicit time limit per launch. Turns Cranelift's IR verifier on for
/// the JIT unless `PTXJIT_VERIFY_CLIF` turns it off (and the process has not compiled
/// anything yet: [`crate::switches::verify_clif_by_default`]).
pub fn compare_with(case: &LaunchCase, timeout: Duration) -> Verdict {
    crate::switches::verify_clif_by_default();
    let interp = run_engine(case, Engine::Interp, timeout);
    let jit = run_engine(case, Engine::Jit, timeout);
    let first = compare_outcomes(case, &interp, &jit);
    if !first.is_agree() {
        return first;
    }
    // The quick tier usually runs the first launch; the optimized one, compiled on a
    // background thread that swallows its panics, would otherwise go untested.
    let optimized = run_tier(case, Engine::Jit, true, timeout);
    match compare_outcomes(case, &interp, &optimized) {
        Verdict::Mismatch { kind, detail } => Verdict::Mismatch {
            kind,
            detail: format!(
                "{detail}\n(the JIT's optimized tier, compiled before the launch: \
                 PTXJIT_TIER=optimized ptxjit check reproduces it)"
            ),
        },
        v => v,
    }
}

fn describe(o: &Outcome) -> String {
    match o {
        Outcome::Done(_) => "completed".to_string(),
        Outcome::LoadError(e) => format!("load error ({}): {e}", e.kind()),
        Outcome::LaunchError(e) => format!("launch error ({}): {e}", e.kind()),
        Outcome::Panic(m) => format!("panic: {m}"),
    }
}

/// Compares two outcomes of `case` (interpreter first).
pub fn compare_outcomes(case: &LaunchCase, interp: &Outcome, jit: &Outcome) -> Verdict {
    let outcome = |kind| Verdict::Mismatch {
        kind,
        detail: format!("interp: {}\njit:    {}", describe(interp), describe(jit)),
    };
    match (interp, jit) {
        (Outcome::Panic(_), _) | (_, Outcome::Panic(_)) => outcome(MismatchKind::Panic),
        (Outcome::Done(a), Outcome::Done(b)) => compare_buffers(case, a, b),
        (Outcome::LoadError(a), Outcome::LoadError(b)) if a == b => {
            Verdict::Rejected(a.to_string())
        }
        // The same first fault and the same faulting threads of its CTA (`FaultReport::count`).
        (Outcome::LaunchError(Error::Fault(a)), Outcome::LaunchError(Error::Fault(b))) => {
            if a == b {
                Verdict::Agree
            } else {
                outcome(MismatchKind::Faults)
            }
        }
        (Outcome::LaunchError(Error::Timeout(..)), Outcome::LaunchError(Error::Timeout(..))) => {
            Verdict::Timeout(format!(
                "interp: {}\njit:    {}",
                describe(interp),
                describe(jit)
            ))
        }
        (Outcome::LaunchError(a @ Error::Deadlock(_)), Outcome::LaunchError(b)) if a == b => {
            Verdict::Deadlock(a.to_string())
        }
        (Outcome::LaunchError(a), Outcome::LaunchError(b)) if a == b => Verdict::Agree,
        (Outcome::LaunchError(Error::Timeout(..)), _)
        | (_, Outcome::LaunchError(Error::Timeout(..))) => outcome(MismatchKind::Timeout),
        _ => outcome(MismatchKind::Outcome),
    }
}

fn compare_buffers(case: &LaunchCase, a: &[Vec<u8>], b: &[Vec<u8>]) -> Verdict {
    let mut detail = String::new();
    let mut total = 0usize;
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        let name = case.buffers.get(k).map_or("?", |b| b.name.as_str());
        let mut diffs = 0usize;
        for (w, (cx, cy)) in x.chunks(4).zip(y.chunks(4)).enumerate() {
            if cx != cy {
                diffs += 1;
                if diffs <= 4 {
                    let word = |c: &[u8]| {
                        let mut v = [0u8; 4];
                        v[..c.len()].copy_from_slice(c);
                        u32::from_le_bytes(v)
                    };
                    detail.push_str(&format!(
                        "buffer {name}: word {w} (byte {}): interp {:#010x}, jit {:#010x}{}\n",
                        w * 4,
                        word(cx),
                        word(cy),
                        locate(case, name, w)
                    ));
                }
            }
        }
        if diffs > 4 {
            detail.push_str(&format!("buffer {name}: {diffs} words differ in all\n"));
        }
        total += diffs;
    }
    if total == 0 && a.len() == b.len() {
        Verdict::Agree
    } else {
        Verdict::Mismatch {
            kind: MismatchKind::Buffers,
            detail,
        }
    }
}

/// Where a word of `out` comes from in a generated kernel (thread and what the epilogue
/// stores there), for messages; empty for other buffers.
fn locate(case: &LaunchCase, buffer: &str, word: usize) -> String {
    use super::gen::OUT_REGION;
    if buffer != "out" || case.kernel != "fuzz_kernel" {
        return String::new();
    }
    let per = (OUT_REGION / 4) as usize;
    let nt = case.block.iter().product::<u32>() as usize;
    let (thread, w) = (word / per, word % per);
    let what = match w * 4 {
        o if o < 128 => "stores/private atomics area".to_string(),
        o if o < 160 => format!("%r{}", (o - 128) / 4),
        o if o < 192 => format!("%rd{}", (o - 160) / 8),
        o if o < 208 => format!("%f{}", (o - 192) / 4),
        o if o < 240 => format!("%fd{}", (o - 208) / 8),
        o if o < 248 => format!("%h{}..", (o - 240) / 2),
        o if o < 252 => "%p0..%p3".to_string(),
        _ => "shared atomic readback".to_string(),
    };
    format!(
        " [CTA {}, thread {}: {what}]",
        thread / nt.max(1),
        thread % nt.max(1)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::gen::{generate, GenConfig};
    use crate::fuzz::rng::Rng;

    /// An error compiling a JIT tier (the verifier's message, say) or a compiler panic, where
    /// the interpreter completes, is a failure, not an agreement or a rejection.
    #[test]
    fn compile_errors_and_panics_are_failures() {
        let case = LaunchCase::of_kernel(&generate(&mut Rng::seeded(1), GenConfig { size: 4 }));
        let done = Outcome::Done(vec![vec![0; 4]]);
        let verifier = Outcome::LoadError(Error::Internal(
            "kernel 'fuzz_kernel': Verifier errors: inst42: uses value v7 from non-dominating block"
                .to_string(),
        ));
        let panic = Outcome::Panic("index out of bounds".to_string());
        for (jit, kind) in [
            (&verifier, MismatchKind::Outcome),
            (&panic, MismatchKind::Panic),
        ] {
            match compare_outcomes(&case, &done, jit) {
                Verdict::Mismatch { kind: k, detail } => {
                    assert_eq!(k, kind);
                    assert!(detail.contains("jit:"), "{detail}");
                }
                v => panic!("{v:?}"),
            }
        }
        assert!(matches!(
            compare_outcomes(&case, &panic, &done),
            Verdict::Mismatch {
                kind: MismatchKind::Panic,
                ..
            }
        ));
    }

    /// A time limit on one engine or both is told apart from other outcomes (the shrinker
    /// keeps a candidate that ran past its limit only for a kernel that did not end).
    #[test]
    fn time_limits_are_recognised() {
        use super::super::case::CaseBuffer;
        // One warp spinning until `in[0]`, which stays zero, is not.
        let spin = LaunchCase {
            ptx: ".version 7.0\n.target sm_80\n.address_size 64\n\
                  .visible .entry spin(.param .u64 in)\n{\n\
                  .reg .u64 %rd<2>;\n.reg .u32 %r<2>;\n.reg .pred %p<2>;\n\
                  ld.param.u64 %rd1, [in];\n\
                  WAIT:\nld.volatile.global.u32 %r1, [%rd1];\nsetp.eq.u32 %p1, %r1, 0;\n\
                  @%p1 bra WAIT;\nret;\n}\n"
                .to_string(),
            kernel: "spin".to_string(),
            grid: [1, 1, 1],
            block: [32, 1, 1],
            shared_bytes: 0,
            args: vec![CaseArg::Buffer("in".to_string())],
            buffers: vec![CaseBuffer {
                name: "in".to_string(),
                len: 1,
                init: None,
            }],
            textures: vec![],
            tensor_maps: vec![],
            cluster: None,
            lockstep: false,
        };
        let timeout = run_engine(&spin, Engine::Interp, Duration::from_millis(200));
        assert!(
            matches!(&timeout, Outcome::LaunchError(Error::Timeout(..))),
            "{timeout:?}"
        );
        let case = LaunchCase::of_kernel(&generate(&mut Rng::seeded(1), GenConfig { size: 4 }));
        let done = Outcome::Done(vec![vec![0; 4]]);
        let other = Outcome::LaunchError(Error::Argument("no buffer".to_string()));
        let both = compare_outcomes(&case, &timeout, &timeout);
        assert!(matches!(both, Verdict::Timeout(_)) && both.hit_time_limit());
        // A one-sided time limit is its own kind, whatever the other engine did.
        for (a, b) in [(&timeout, &done), (&done, &timeout), (&other, &timeout)] {
            let v = compare_outcomes(&case, a, b);
            assert!(
                matches!(
                    v,
                    Verdict::Mismatch {
                        kind: MismatchKind::Timeout,
                        ..
                    }
                ) && v.hit_time_limit(),
                "{v:?}"
            );
        }
        let v = compare_outcomes(&case, &other, &done);
        assert!(
            matches!(
                v,
                Verdict::Mismatch {
                    kind: MismatchKind::Outcome,
                    ..
                }
            ) && !v.hit_time_limit(),
            "{v:?}"
        );
        // A mismatch whose text names a time limit is no time limit unless it is one: the
        // kind decides, not the text.
        let named = Verdict::Mismatch {
            kind: MismatchKind::Outcome,
            detail: "interp: launch error (timeout): …".to_string(),
        };
        assert!(!named.hit_time_limit());
        // Shrinking a one-sided time limit keeps candidates with other outcome mismatches.
        let one_sided = compare_outcomes(&case, &timeout, &done);
        assert!(v.same_failure(&one_sided) && one_sided.same_failure(&v));
        assert!(!compare_outcomes(&case, &done, &done).hit_time_limit());
    }
}
