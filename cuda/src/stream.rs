//! Streams, events and host callbacks (CUDA driver API: Stream Management, Event Management).
//!
//! Work runs when it is enqueued, so a stream is always complete: queries succeed, waits
//! return at once, callbacks run in the enqueuing call (after the work before them, as stream
//! order requires), and an event holds the time at which it was recorded.

use crate::errors::*;
use crate::exports;
use crate::state::{with_context, Driver, EventState, Kind, Owned, StreamState};
use crate::{out, Fail};
use std::ffi::{c_float, c_int, c_uint, c_void};
use std::time::Instant;

/// `CU_STREAM_DEFAULT` (0) and `CU_STREAM_NON_BLOCKING` (1), the flags `cuStreamCreate`
/// documents; any other bit is `CUDA_ERROR_INVALID_VALUE`.
fn stream_flags(flags: c_uint) -> Result<(), Fail> {
    if flags & !1 == 0 {
        return Ok(());
    }
    Err(Fail::new(
        CUDA_ERROR_INVALID_VALUE,
        format!(
            "stream flags {flags:#x}: only CU_STREAM_DEFAULT (0) and CU_STREAM_NON_BLOCKING (1) are valid"
        ),
    ))
}

exports! { cuStreamCreate => fn(ps: *mut u64, flags: c_uint) {
    let h = with_context(|d| {
        stream_flags(flags)?;
        let h = d.handle(Kind::Stream);
        d.streams.insert(h, StreamState { flags, priority: 0 });
        d.own(Owned::Stream(h));
        Ok(h)
    })?;
    unsafe { out(ps, h) }
}}

exports! { cuStreamCreateWithPriority => fn(ps: *mut u64, flags: c_uint, priority: c_int) {
    let h = with_context(|d| {
        stream_flags(flags)?;
        let h = d.handle(Kind::Stream);
        d.streams.insert(h, StreamState { flags, priority: priority.clamp(-5, 0) });
        d.own(Owned::Stream(h));
        Ok(h)
    })?;
    unsafe { out(ps, h) }
}}

exports! { cuStreamDestroy_v2 => fn(s: u64) {
    // Also with no current context (`with_owner_context`).
    crate::state::with_owner_context(Owned::Stream(s), |d| match d.streams.remove(&s) {
        Some(_) => {
            d.owners.remove(&Owned::Stream(s));
            d.stream_attrs.retain(|(h, _), _| *h != s);
            Ok(())
        }
        None => Err(Fail::new(CUDA_ERROR_INVALID_HANDLE, format!("{s:#x} is not a live CUstream"))),
    })
}}

exports! { cuStreamSynchronize, cuStreamSynchronize_ptsz => fn(s: u64) {
    with_context(|d| {
        d.check_stream(s)?;
        crate::graph::check_not_capturing(d, s, "cuStreamSynchronize")?;
        d.wait_for_work()?;
        d.flush_printf();
        Ok(())
    })
}}

exports! { cuStreamQuery, cuStreamQuery_ptsz => fn(s: u64) {
    with_context(|d| {
        d.check_stream(s)?;
        crate::graph::check_not_capturing(d, s, "cuStreamQuery")?;
        d.wait_for_work()
    })
}}

/// `CU_EVENT_RECORD_EXTERNAL` and `CU_EVENT_WAIT_EXTERNAL`: during capture, an event
/// record or wait node instead of a dependency inside the graph.
const EVENT_EXTERNAL: c_uint = 1;

/// Errors unless `e` is a live event.
pub fn check_event(d: &Driver, e: u64) -> crate::DrvResult {
    if d.events.contains_key(&e) {
        Ok(())
    } else {
        Err(Fail::new(
            CUDA_ERROR_INVALID_HANDLE,
            format!("{e:#x} is not a live CUevent"),
        ))
    }
}

/// Event `e` completes now (an event-record node runs).
pub fn mark_recorded(d: &mut Driver, e: u64) -> crate::DrvResult {
    check_event(d, e)?;
    if let Some(ev) = d.events.get_mut(&e) {
        ev.recorded = Some(Instant::now());
    }
    d.graphs.event_marks.remove(&e);
    Ok(())
}

exports! { cuStreamWaitEvent, cuStreamWaitEvent_ptsz => fn(s: u64, e: u64, flags: c_uint) {
    if flags & !EVENT_EXTERNAL != 0 {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, format!("unknown event wait flags {flags:#x}")));
    }
    with_context(|d| {
        d.check_stream(s)?;
        check_event(d, e)?;
        if flags & EVENT_EXTERNAL != 0 {
            if !crate::graph::capturing(d, s)? {
                return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "CU_EVENT_WAIT_EXTERNAL is only valid on a capturing stream"));
            }
            return crate::graph::record(d, s, crate::graph::Op::EventWait { e });
        }
        crate::graph::wait_event(d, s, e)
    })
}}

exports! { cuStreamGetFlags, cuStreamGetFlags_ptsz => fn(s: u64, flags: *mut c_uint) {
    let f = with_context(|d| {
        d.check_stream(s)?;
        Ok(d.streams.get(&s).map_or(0, |st| st.flags))
    })?;
    unsafe { out(flags, f) }
}}

exports! { cuStreamGetPriority, cuStreamGetPriority_ptsz => fn(s: u64, p: *mut c_int) {
    let v = with_context(|d| {
        d.check_stream(s)?;
        Ok(d.streams.get(&s).map_or(0, |st| st.priority))
    })?;
    unsafe { out(p, v) }
}}

exports! { cuStreamGetCtx, cuStreamGetCtx_ptsz => fn(s: u64, pctx: *mut u64) {
    let c = crate::state::current_context().unwrap_or(0);
    with_context(|d| d.check_stream(s))?;
    unsafe { out(pctx, c) }
}}

exports! { cuStreamGetId, cuStreamGetId_ptsz => fn(s: u64, id: *mut u64) {
    with_context(|d| d.check_stream(s))?;
    unsafe { out(id, s & 0x00ff_ffff_ffff_ffff) }
}}

// The one device (ordinal 0) is every stream's.
exports! { cuStreamGetDevice, cuStreamGetDevice_ptsz => fn(s: u64, dev: *mut c_int) {
    with_context(|d| d.check_stream(s))?;
    unsafe { out(dev, 0) }
}}

/// `void (*)(CUstream, CUresult, void*)`.
type StreamCallback = Option<unsafe extern "C" fn(u64, CUresult, *mut c_void)>;
/// `void (*)(void*)`.
type HostFn = Option<unsafe extern "C" fn(*mut c_void)>;

exports! { cuStreamAddCallback, cuStreamAddCallback_ptsz => fn(s: u64, cb: StreamCallback, data: *mut c_void, flags: c_uint) {
    let Some(cb) = cb else {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null callback"));
    };
    if flags != 0 {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "flags must be 0"));
    }
    // Not allowed during capture (CUDA: use cuLaunchHostFunc, which becomes a host node).
    with_context(|d| { d.check_stream(s)?; crate::graph::check_not_capturing(d, s, "cuStreamAddCallback") })?;
    // The status the callback sees: the sticky error, if any.
    let status = with_context(|d| { d.check_stream(s)?; Ok(d.sticky.or(d.pending).unwrap_or(CUDA_SUCCESS)) })
        .or_else(|f| if f.code == CUDA_ERROR_INVALID_HANDLE || f.code == CUDA_ERROR_INVALID_CONTEXT { Err(f) } else { Ok(f.code) })?;
    // Called without the driver lock: the callback may not call the driver (CUDA's rule),
    // but a program that does must not deadlock.
    unsafe { cb(s, status, data) };
    Ok(())
}}

exports! { cuLaunchHostFunc, cuLaunchHostFunc_ptsz => fn(s: u64, f: HostFn, data: *mut c_void) {
    let Some(f) = f else {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null host function"));
    };
    crate::graph::enqueue(s, crate::graph::Op::Host { f, data: data as usize })
}}

/// `CUhostTaskSyncMode` values: how the thread running host functions waits for the next one.
const CU_HOST_TASK_BLOCKING: c_uint = 0;
const CU_HOST_TASK_SPINWAIT: c_uint = 1;

// `cuLaunchHostFunc` (CUDA 13.1 ABI): as `cuLaunchHostFunc`, with a `CUhostTaskSyncMode`. The
// function runs on the calling thread when its turn comes, so both modes behave alike.
exports! { cuLaunchHostFunc_v2, cuLaunchHostFunc_v2_ptsz => fn(s: u64, f: HostFn, data: *mut c_void, sync_mode: c_uint) {
    if !matches!(sync_mode, CU_HOST_TASK_BLOCKING | CU_HOST_TASK_SPINWAIT) {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{sync_mode} is not a CUhostTaskSyncMode"),
        ));
    }
    let Some(f) = f else {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null host function"));
    };
    crate::graph::enqueue(s, crate::graph::Op::Host { f, data: data as usize })
}}

exports! { cuEventCreate => fn(pe: *mut u64, flags: c_uint) {
    let h = with_context(|d| {
        // CU_EVENT_BLOCKING_SYNC 1, _DISABLE_TIMING 2, _INTERPROCESS 4, which needs
        // _DISABLE_TIMING beside it (cuEventCreate's documentation).
        if flags & !7 != 0 {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("event flags {flags:#x}: only CU_EVENT_BLOCKING_SYNC (1), CU_EVENT_DISABLE_TIMING (2) and CU_EVENT_INTERPROCESS (4) are valid"),
            ));
        }
        if flags & 6 == 4 {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                "event flags: CU_EVENT_INTERPROCESS must be given with CU_EVENT_DISABLE_TIMING",
            ));
        }
        let h = d.handle(Kind::Event);
        d.events.insert(h, EventState { flags, recorded: None });
        d.own(Owned::Event(h));
        Ok(h)
    })?;
    unsafe { out(pe, h) }
}}

exports! { cuEventDestroy_v2 => fn(e: u64) {
    // Also with no current context (`with_owner_context`).
    crate::state::with_owner_context(Owned::Event(e), |d| match d.events.remove(&e) {
        Some(_) => {
            d.owners.remove(&Owned::Event(e));
            Ok(())
        }
        None => Err(Fail::new(CUDA_ERROR_INVALID_HANDLE, format!("{e:#x} is not a live CUevent"))),
    })
}}

fn record(e: u64, s: u64, flags: c_uint) -> crate::DrvResult {
    if flags & !EVENT_EXTERNAL != 0 {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("unknown event record flags {flags:#x}"),
        ));
    }
    with_context(|d| {
        d.check_stream(s)?;
        if flags & EVENT_EXTERNAL != 0 {
            check_event(d, e)?;
            if !crate::graph::capturing(d, s)? {
                return Err(Fail::new(
                    CUDA_ERROR_INVALID_VALUE,
                    "CU_EVENT_RECORD_EXTERNAL is only valid on a capturing stream",
                ));
            }
            return crate::graph::record(d, s, crate::graph::Op::EventRecord { e });
        }
        let ev = d.events.get_mut(&e).ok_or_else(|| {
            Fail::new(
                CUDA_ERROR_INVALID_HANDLE,
                format!("{e:#x} is not a live CUevent"),
            )
        })?;
        ev.recorded = Some(Instant::now());
        // On a capturing stream the event marks the capture's progress instead.
        if crate::graph::record_event(d, e, s)? {
            if let Some(ev) = d.events.get_mut(&e) {
                ev.recorded = None;
            }
        }
        Ok(())
    })
}

exports! { cuEventRecord, cuEventRecord_ptsz => fn(e: u64, s: u64) { record(e, s, 0) }}

exports! { cuEventRecordWithFlags, cuEventRecordWithFlags_ptsz => fn(e: u64, s: u64, flags: c_uint) { record(e, s, flags) }}

exports! { cuEventQuery => fn(e: u64) {
    with_context(|d| {
        if !d.events.contains_key(&e) {
            return Err(Fail::new(CUDA_ERROR_INVALID_HANDLE, format!("{e:#x} is not a live CUevent")));
        }
        d.wait_for_work()?;
        d.flush_printf();
        Ok(())
    })
}}

exports! { cuEventSynchronize => fn(e: u64) {
    with_context(|d| {
        if !d.events.contains_key(&e) {
            return Err(Fail::new(CUDA_ERROR_INVALID_HANDLE, format!("{e:#x} is not a live CUevent")));
        }
        d.wait_for_work()?;
        d.flush_printf();
        Ok(())
    })
}}

/// `CU_EVENT_DISABLE_TIMING`.
const EVENT_DISABLE_TIMING: u32 = 2;

fn elapsed(ms: *mut c_float, start: u64, end: u64) -> crate::DrvResult {
    let v = with_context(|d| {
        let get = |e: u64| {
            d.events.get(&e).ok_or_else(|| {
                Fail::new(
                    CUDA_ERROR_INVALID_HANDLE,
                    format!("{e:#x} is not a live CUevent"),
                )
            })
        };
        let (a, b) = (get(start)?, get(end)?);
        if (a.flags | b.flags) & EVENT_DISABLE_TIMING != 0 {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_HANDLE,
                "an event was created with CU_EVENT_DISABLE_TIMING",
            ));
        }
        match (a.recorded, b.recorded) {
            (Some(x), Some(y)) => {
                let ms = if y >= x {
                    y.duration_since(x).as_secs_f64() * 1e3
                } else {
                    -(x.duration_since(y).as_secs_f64() * 1e3)
                };
                Ok(ms as c_float)
            }
            _ => Err(Fail::new(
                CUDA_ERROR_INVALID_HANDLE,
                "an event has not been recorded",
            )),
        }
    })?;
    unsafe { out(ms, v) }
}

exports! { cuEventElapsedTime => fn(ms: *mut c_float, start: u64, end: u64) { elapsed(ms, start, end) }}

exports! { cuEventElapsedTime_v2 => fn(ms: *mut c_float, start: u64, end: u64) { elapsed(ms, start, end) }}

/// `CUlaunchAttributeID` values a stream takes (`CUstreamAttrID`): the L2 access-policy
/// window, the synchronisation policy, the priority and the memory synchronisation domain
/// map and domain.
const STREAM_ATTR_ACCESS_POLICY_WINDOW: u32 = 1;
const STREAM_ATTR_SYNCHRONIZATION_POLICY: u32 = 3;
const STREAM_ATTR_PRIORITY: u32 = 8;
const STREAM_ATTR_MEM_SYNC_DOMAIN_MAP: u32 = 9;
const STREAM_ATTR_MEM_SYNC_DOMAIN: u32 = 10;

/// Checks a stream attribute id and, for `cuStreamSetAttribute`, its value: an access-policy
/// window's hit ratio lies in [0, 1] and its properties are `CUaccessProperty` values (0..=2).
fn check_stream_attr(attr: c_uint, value: Option<&[u8; 64]>) -> Result<(), Fail> {
    match attr {
        STREAM_ATTR_ACCESS_POLICY_WINDOW => {
            // CUaccessPolicyWindow: base_ptr, num_bytes, hitRatio (f32), hitProp, missProp.
            if let Some(v) = value {
                let word = |o: usize| u32::from_ne_bytes([v[o], v[o + 1], v[o + 2], v[o + 3]]);
                let ratio = f32::from_bits(word(16));
                if !(0.0..=1.0).contains(&ratio) {
                    return Err(Fail::new(
                        CUDA_ERROR_INVALID_VALUE,
                        format!("accessPolicyWindow.hitRatio {ratio} (0 to 1)"),
                    ));
                }
                for (what, p) in [("hitProp", word(20)), ("missProp", word(24))] {
                    if p > 2 {
                        return Err(Fail::new(
                            CUDA_ERROR_INVALID_VALUE,
                            format!("accessPolicyWindow.{what} {p} is no CUaccessProperty"),
                        ));
                    }
                }
            }
            Ok(())
        }
        STREAM_ATTR_SYNCHRONIZATION_POLICY
        | STREAM_ATTR_PRIORITY
        | STREAM_ATTR_MEM_SYNC_DOMAIN_MAP
        | STREAM_ATTR_MEM_SYNC_DOMAIN => Ok(()),
        other => Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{other} is not a stream attribute"),
        )),
    }
}

exports! { cuStreamSetAttribute, cuStreamSetAttribute_ptsz => fn(s: u64, attr: c_uint, value: *const [u8; 64]) {
    if value.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null attribute value"));
    }
    // SAFETY: a CUstreamAttrValue (64 bytes) by the API's contract.
    let v = unsafe { value.read_unaligned() };
    check_stream_attr(attr, Some(&v))?;
    with_context(|d| {
        d.check_stream(s)?;
        if attr == STREAM_ATTR_PRIORITY {
            let p = i32::from_ne_bytes([v[0], v[1], v[2], v[3]]).clamp(-5, 0);
            if let Some(st) = d.streams.get_mut(&s) {
                st.priority = p;
            }
        }
        d.stream_attrs.insert((s, attr), v);
        Ok(())
    })
}}

exports! { cuStreamGetAttribute, cuStreamGetAttribute_ptsz => fn(s: u64, attr: c_uint, value: *mut [u8; 64]) {
    if value.is_null() {
        return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null attribute value"));
    }
    check_stream_attr(attr, None)?;
    let v = with_context(|d| {
        d.check_stream(s)?;
        let mut v = d.stream_attrs.get(&(s, attr)).copied().unwrap_or([0; 64]);
        if attr == STREAM_ATTR_PRIORITY {
            let p = d.streams.get(&s).map_or(0, |st| st.priority);
            v[..4].copy_from_slice(&p.to_ne_bytes());
        }
        Ok(v)
    })?;
    // SAFETY: a CUstreamAttrValue (64 bytes) by the API's contract.
    unsafe { value.write_unaligned(v) };
    Ok(())
}}

/// `CUmemAttach_flags`: global, host, single.
const MEM_ATTACH_FLAGS: [c_uint; 3] = [1, 2, 4];

exports! { cuStreamAttachMemAsync, cuStreamAttachMemAsync_ptsz => fn(s: u64, p: u64, length: usize, flags: c_uint) {
    // Which streams may touch managed memory matters to a GPU's page migration; here every
    // stream sees one memory, so a valid attachment changes nothing.
    if !MEM_ATTACH_FLAGS.contains(&flags) {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("flags {flags:#x} (CU_MEM_ATTACH_GLOBAL, _HOST or _SINGLE)"),
        ));
    }
    with_context(|d| {
        d.check_stream(s)?;
        let Some(&bytes) = d.managed.get(&p) else {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("{p:#x} is not the start of a managed allocation"),
            ));
        };
        if length != 0 && length as u64 != bytes {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("length {length}: 0 or the allocation's {bytes} bytes"),
            ));
        }
        Ok(())
    })
}}
