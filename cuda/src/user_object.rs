//! User objects (CUDA driver API: Graph Management): a pointer and a destructor, reference
//! counted, that graphs can hold references to so a resource lives as long as a graph that
//! uses it. A graph's references are released when it is destroyed; an instantiated graph
//! holds its own copy of its graph's references until it is destroyed. The destructor runs
//! when the count reaches 0, outside the driver lock (it must not call the driver, as in
//! CUDA, but a program that does must not deadlock).

use crate::errors::*;
use crate::graph::HostFnPtr;
use crate::state::{with_context, Driver, Kind};
use crate::{exports, out, DrvResult, Fail};
use std::collections::HashMap;
use std::ffi::{c_uint, c_void};

/// One user object.
pub struct UserObject {
    pub ptr: usize,
    pub destroy: HostFnPtr,
    pub refs: u64,
}

/// User objects and the references graphs and instantiated graphs hold.
#[derive(Default)]
pub struct UserObjects {
    pub objects: HashMap<u64, UserObject>,
    /// Graph or instantiated graph → (object → references held).
    pub held: HashMap<u64, HashMap<u64, u64>>,
}

/// A destructor to call once the lock is released.
pub type Pending = Vec<(HostFnPtr, usize)>;

/// Runs destructors collected under the lock.
pub fn run_pending(p: Pending) {
    for (f, ptr) in p {
        // SAFETY: the program's destructor with its own pointer.
        unsafe { f(ptr as *mut c_void) };
    }
}

/// Drops `n` references to `o`; a destructor due is pushed to `pending`.
pub fn release(d: &mut Driver, o: u64, n: u64, pending: &mut Pending) -> DrvResult {
    let obj = d.user_objects.objects.get_mut(&o).ok_or_else(|| {
        Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{o:#x} is not a live CUuserObject"),
        )
    })?;
    if n > obj.refs {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("releasing {n} references of {o:#x}, which has {}", obj.refs),
        ));
    }
    obj.refs -= n;
    if obj.refs == 0 {
        if let Some(obj) = d.user_objects.objects.remove(&o) {
            pending.push((obj.destroy, obj.ptr));
        }
    }
    Ok(())
}

/// Releases every reference graph or instantiated graph `owner` holds.
pub fn release_all(d: &mut Driver, owner: u64, pending: &mut Pending) -> DrvResult {
    if let Some(held) = d.user_objects.held.remove(&owner) {
        for (o, n) in held {
            release(d, o, n, pending)?;
        }
    }
    Ok(())
}

/// Gives `to` (an instantiated graph) its own copy of `from`'s references.
pub fn copy_refs(d: &mut Driver, from: u64, to: u64) {
    let Some(held) = d.user_objects.held.get(&from).cloned() else {
        return;
    };
    for (&o, &n) in &held {
        if let Some(obj) = d.user_objects.objects.get_mut(&o) {
            obj.refs += n;
        }
    }
    d.user_objects.held.insert(to, held);
}

/// `CU_USER_OBJECT_NO_DESTRUCTOR_SYNC`, the one flag `cuUserObjectCreate` requires.
const NO_DESTRUCTOR_SYNC: c_uint = 1;
/// `CU_GRAPH_USER_OBJECT_MOVE`: the references come from the caller's.
const GRAPH_USER_OBJECT_MOVE: c_uint = 1;

exports! { cuUserObjectCreate => fn(po: *mut u64, ptr: *mut c_void, destroy: Option<HostFnPtr>, refs: c_uint, flags: c_uint) {
    let Some(destroy) = destroy else {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null destructor"));
    };
    if flags != NO_DESTRUCTOR_SYNC || refs == 0 {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "flags must be CU_USER_OBJECT_NO_DESTRUCTOR_SYNC and the initial count positive"));
    }
    let h = with_context(|d| {
        let h = d.handle(Kind::UserObject);
        d.user_objects.objects.insert(h, UserObject { ptr: ptr as usize, destroy, refs: refs.into() });
        Ok(h)
    })?;
    unsafe { out(po, h) }
}}

exports! { cuUserObjectRetain => fn(o: u64, n: c_uint) {
    with_context(|d| match d.user_objects.objects.get_mut(&o) {
        Some(obj) if n > 0 => { obj.refs += u64::from(n); Ok(()) }
        Some(_) => Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "count must be positive")),
        None => Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{o:#x} is not a live CUuserObject"))),
    })
}}

exports! { cuUserObjectRelease => fn(o: u64, n: c_uint) {
    let mut pending = Vec::new();
    with_context(|d| release(d, o, n.into(), &mut pending))?;
    run_pending(pending);
    Ok(())
}}

exports! { cuGraphRetainUserObject => fn(g: u64, o: u64, n: c_uint, flags: c_uint) {
    if flags & !GRAPH_USER_OBJECT_MOVE != 0 || n == 0 {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "unknown flags or a zero count"));
    }
    with_context(|d| {
        if !d.graphs.graphs.contains_key(&g) {
            return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{g:#x} is not a live CUgraph")));
        }
        let obj = d.user_objects.objects.get_mut(&o).ok_or_else(|| Fail::new(CUDA_ERROR_INVALID_VALUE, format!("{o:#x} is not a live CUuserObject")))?;
        if flags & GRAPH_USER_OBJECT_MOVE == 0 {
            obj.refs += u64::from(n);
        }
        *d.user_objects.held.entry(g).or_default().entry(o).or_default() += u64::from(n);
        Ok(())
    })
}}

exports! { cuGraphReleaseUserObject => fn(g: u64, o: u64, n: c_uint) {
    let mut pending = Vec::new();
    with_context(|d| {
        let held = d.user_objects.held.get_mut(&g).and_then(|h| h.get_mut(&o)).ok_or_else(|| Fail::new(CUDA_ERROR_INVALID_VALUE, format!("graph {g:#x} holds no reference to {o:#x}")))?;
        let n = u64::from(n);
        if n > *held {
            return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("graph {g:#x} holds {} references to {o:#x}, not {n}", *held)));
        }
        *held -= n;
        release(d, o, n, &mut pending)
    })?;
    run_pending(pending);
    Ok(())
}}
