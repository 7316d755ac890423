//! The process-wide kernel cache: a module loaded from PTX text for an engine gets the
//! [`CompiledKernel`]s of an earlier module of the same text and engine, if one is still alive,
//! so each kernel compiles (at its first launch) once per process, whichever contexts and
//! modules launch it. A `CompiledKernel` holds nothing of a context (device addresses come
//! from the launching [`Kernel`](super::Kernel)'s symbol table through the CTA environment),
//! so sharing one across contexts is sound.
//!
//! Memory: the cache holds the kernels *weakly*. A JIT kernel's machine code is freed when the
//! kernel is dropped (`jit::JitKernel`'s `Drop` frees its Cranelift module), so a kernel lives
//! exactly as long as some module or kernel handle holds it; loading its text again after
//! that compiles it anew. A strong cache would keep the code of every module ever loaded for
//! the life of the process — the fuzzer loads thousands. Entries whose kernels have all been
//! dropped are removed at the next load. An entry keeps a copy of its PTX text, compared in
//! full on a hash match, so two texts never share kernels by a hash collision.

use super::context::{CompiledKernel, Engine};
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, LazyLock, Mutex, Weak};

struct Entry {
    engine: Engine,
    ptx: Box<str>,
    kernels: Vec<Weak<CompiledKernel>>,
}

impl Entry {
    /// Whether some module or kernel handle still holds one of the kernels.
    fn alive(&self) -> bool {
        self.kernels.iter().any(|k| k.strong_count() > 0)
    }
}

/// Entries by a hash of (engine, PTX text).
static CACHE: LazyLock<Mutex<HashMap<u64, Vec<Entry>>>> = LazyLock::new(Default::default);

fn key(ptx: &str, engine: Engine) -> u64 {
    let mut h = DefaultHasher::new();
    engine.hash(&mut h);
    ptx.hash(&mut h);
    h.finish()
}

/// The kernels of a module of text `ptx` for `engine`: `fresh` (the front end's results for
/// this load, not compiled), except that a kernel of an earlier module of the same text and
/// engine that something still holds takes the place of its fresh twin. The front end has
/// already run on `ptx`, so its errors surface at every load.
pub(super) fn kernels(
    ptx: &str,
    engine: Engine,
    fresh: Vec<Arc<CompiledKernel>>,
) -> Vec<Arc<CompiledKernel>> {
    // A module without kernels has nothing to share (and its entry would never expire).
    if fresh.is_empty() {
        return fresh;
    }
    let Ok(mut cache) = CACHE.lock() else {
        // A thread panicked while holding the cache: load without it.
        return fresh;
    };
    cache.retain(|_, entries| {
        entries.retain(Entry::alive);
        !entries.is_empty()
    });
    let entries = cache.entry(key(ptx, engine)).or_default();
    let found = entries
        .iter_mut()
        .find(|e| e.engine == engine && *e.ptx == *ptx);
    match found {
        // The same text gives the same kernels, in the same order.
        Some(e) if e.kernels.len() == fresh.len() => {
            let kernels: Vec<_> = e
                .kernels
                .iter()
                .zip(fresh)
                .map(|(old, new)| old.upgrade().unwrap_or(new))
                .collect();
            e.kernels = kernels.iter().map(Arc::downgrade).collect();
            kernels
        }
        Some(e) => {
            e.kernels = fresh.iter().map(Arc::downgrade).collect();
            fresh
        }
        None => {
            entries.push(Entry {
                engine,
                ptx: ptx.into(),
                kernels: fresh.iter().map(Arc::downgrade).collect(),
            });
            fresh
        }
    }
}
