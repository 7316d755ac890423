//! NVIDIA's private export tables (`cuGetExportTable`), as far as NVIDIA's own CUDA runtime
//! needs them: the copy of the runtime that nvcc links into a program by default
//! (`--cudart static`) and that libraries such as CuPy carry inside them asks this library
//! for these tables, by UUID, on its first call, and works through them.
//!
//! The tables are undocumented. What they hold is known from public observation (the ZLUDA
//! project's notes on the "dark API") and from watching which slots the runtime calls:
//! each table is an array of pointers whose slot 0 is, in most tables, the table's size in
//! bytes. A slot whose meaning is unknown holds a function of its own that says which table
//! and slot was called (on stderr, once per slot) and answers `CUDA_ERROR_NOT_SUPPORTED`,
//! so a runtime that reaches one fails cleanly and the message says where.
//!
//! | UUID | table | slots used |
//! | --- | --- | --- |
//! | `6bd5fb6c-5bf4-e74a-8987-d93912fd9df9` | runtime interface | module from fatbin (1, 6, 8), primary context (2), 7 |
//! | `a094798c-2e74-2e74-93f2-0800200c0a66` | tools callback hooks | two buffers (2, 6) |
//! | `42d85a81-23f6-cb47-8298-f6e78a3aecdc` | tools thread-local storage | size only |
//! | `c693336e-1121-df11-a8c3-68f355d89593` | context-local storage | put (0), delete (1), get (2) |
//! | `263e8860-7cd2-6143-92f6-bbd5006dfa7e` | context checks | 2, 3 |
//! | `d4082055-bde6-704b-8d34-ba123c66e1f2` | integrity check | 1 ([`integrity_hash`]) |
//!
//! # The integrity check
//! During initialization the runtime calls slot 1 of the integrity table with
//! `(version, unix_seconds, *mut [u8; 16])` three times, `version` stepping up from its CUDA
//! version (13000, 13001, 13002 for CUDA 13.0). Steps 0 and 1 answer fixed values; from step 2
//! the answer is an HMAC (RFC 2104) over MD2 (RFC 1319, 16-byte blocks) keyed with
//! [`INTEGRITY_KEY`], of a record of what the runtime can check itself: the driver version
//! it was told, `version`, the process and thread ids, the addresses of the runtime
//! interface table, of the integrity table and of the slot-1 function, `unix_seconds`, and
//! per device its UUID and PCI domain, bus and device numbers. A runtime that gets a wrong
//! answer fails every call with `cudaErrorSoftwareValidityNotEstablished`.

use crate::errors::*;
use crate::{entry, out, Fail};
use std::cell::UnsafeCell;
use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::Mutex;

/// The runtime interface table's id: `6bd5fb6c-5bf4-e74a-8987-d93912fd9df9`.
pub const CUDART_INTERFACE_ID: [u8; 16] = [
    0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9,
];
/// The tools callback hooks table's id: `a094798c-2e74-2e74-93f2-0800200c0a66`.
pub const TOOLS_HOOKS_ID: [u8; 16] = [
    0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66,
];
/// The tools thread-local storage table's id: `42d85a81-23f6-cb47-8298-f6e78a3aecdc`.
pub const TOOLS_TLS_ID: [u8; 16] = [
    0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc,
];
/// The context-local storage table's id: `c693336e-1121-df11-a8c3-68f355d89593`.
pub const CONTEXT_STORAGE_ID: [u8; 16] = [
    0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93,
];
/// The context checks table's id: `263e8860-7cd2-6143-92f6-bbd5006dfa7e`.
pub const CONTEXT_CHECKS_ID: [u8; 16] = [
    0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e,
];
/// The integrity check table's id: `d4082055-bde6-704b-8d34-ba123c66e1f2`.
pub const INTEGRITY_ID: [u8; 16] = [
    0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2,
];

/// An export table: `N` pointer-sized slots, handed out by address.
#[repr(C)]
pub struct Table<const N: usize>([*const c_void; N]);

// SAFETY: the slots are immutable function addresses and integers.
unsafe impl<const N: usize> Sync for Table<N> {}

/// Slot 0 of most tables: the table's size in bytes.
const fn size_slot<const N: usize>() -> *const c_void {
    (N * std::mem::size_of::<usize>()) as *const c_void
}

/// The names of the tables, as [`unknown_slot`] reports them, by its `TABLE` parameter.
const TABLE_NAMES: [&str; 7] = [
    "runtime interface",
    "tools callback hooks",
    "tools thread-local storage",
    "context-local storage",
    "context checks",
    "integrity check",
    "tools context",
];

/// A slot whose meaning is unknown, slot `SLOT` of table `TABLE` (an index into
/// [`TABLE_NAMES`]); each instance is a function of its own. It names its table and slot on
/// stderr (the first time) and with `PTXJIT_TRACE`, and answers `CUDA_ERROR_NOT_SUPPORTED`.
/// The six arguments are the integer argument registers, shown to tell what the caller passed.
unsafe extern "C" fn unknown_slot<const TABLE: usize, const SLOT: usize>(
    a: usize,
    b: usize,
    c: usize,
    d: usize,
    e: usize,
    f: usize,
) -> CUresult {
    static SAID: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());
    entry("cuGetExportTable slot", || {
        let message = format!(
            "{} table slot {SLOT} is not implemented (called with {a:#x}, {b:#x}, {c:#x}, \
             {d:#x}, {e:#x}, {f:#x})",
            TABLE_NAMES[TABLE]
        );
        let first = {
            let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
            let first = !said.contains(&(TABLE, SLOT));
            if first {
                said.push((TABLE, SLOT));
            }
            first
        };
        if first {
            eprintln!("ptxjit: cuGetExportTable: {message}");
        }
        Err(Fail::new(CUDA_ERROR_NOT_SUPPORTED, message))
    })
}

/// [`unknown_slot`]'s address.
macro_rules! unknown {
    ($table:literal, $slot:literal) => {
        unknown_slot::<$table, $slot> as *const c_void
    };
}

/// `CUmodule` as this library hands it out.
type CUmodule = u64;

/// Loads the fatbin (or the fatbin wrapper nvcc registers) at `image` as a module in the
/// current context, as `cuModuleLoadData` does.
unsafe fn load_fatbin(module: *mut CUmodule, image: *const c_void) -> CUresult {
    if module.is_null() || image.is_null() {
        return entry("cuGetExportTable module load", || {
            Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null module or fatbin"))
        });
    }
    // SAFETY: the caller's pointers, passed on with the same promise.
    unsafe { crate::module::cuModuleLoadData(module, image) }
}

/// Runtime interface slot 1: `(CUmodule*, fatbin wrapper*)`, a module from the fatbin that
/// nvcc registered (`__cudaRegisterFatBinary`'s argument).
unsafe extern "C" fn rt_module_from_wrapper(
    module: *mut CUmodule,
    wrapper: *const c_void,
) -> CUresult {
    // SAFETY: the caller's pointers, passed on.
    unsafe { load_fatbin(module, wrapper) }
}

/// Runtime interface slot 6: `(CUmodule*, fatbin wrapper*, options, option values, count)`.
/// Options are not taken: a non-null list answers `CUDA_ERROR_NOT_SUPPORTED`.
unsafe extern "C" fn rt_module_from_wrapper_ext(
    module: *mut CUmodule,
    wrapper: *const c_void,
    options: *const c_void,
    values: *const c_void,
    _count: u32,
) -> CUresult {
    if !options.is_null() || !values.is_null() {
        return entry("cuGetExportTable module load", || {
            Err(Fail::new(CUDA_ERROR_NOT_SUPPORTED, "module load options"))
        });
    }
    // SAFETY: the caller's pointers, passed on.
    unsafe { load_fatbin(module, wrapper) }
}

/// Runtime interface slot 8: `(fatbin*, CUmodule*, options, option values, count)`, the
/// fatbin itself rather than its wrapper.
unsafe extern "C" fn rt_module_from_fatbin_ext(
    fatbin: *const c_void,
    module: *mut CUmodule,
    options: *const c_void,
    values: *const c_void,
    count: u32,
) -> CUresult {
    // SAFETY: the caller's pointers, passed on.
    unsafe { rt_module_from_wrapper_ext(module, fatbin, options, values, count) }
}

/// Runtime interface slot 2: `(CUcontext*, CUdevice)`, the device's primary context
/// (retained, as `cuDevicePrimaryCtxRetain`).
unsafe extern "C" fn rt_primary_context(
    pctx: *mut crate::context::CUcontext,
    dev: c_int,
) -> CUresult {
    // SAFETY: the caller's pointer, passed on.
    unsafe { crate::context::cuDevicePrimaryCtxRetain(pctx, dev) }
}

/// Runtime interface slot 7: one integer argument, its meaning unknown; the runtime
/// goes on when it succeeds.
unsafe extern "C" fn rt_slot7(_arg: usize) -> CUresult {
    CUDA_SUCCESS
}

/// The runtime interface table.
static CUDART_INTERFACE: Table<10> = Table([
    size_slot::<10>(),
    rt_module_from_wrapper as *const c_void,
    rt_primary_context as *const c_void,
    unknown!(0, 3),
    unknown!(0, 4),
    unknown!(0, 5),
    rt_module_from_wrapper_ext as *const c_void,
    rt_slot7 as *const c_void,
    rt_module_from_fatbin_ext as *const c_void,
    unknown!(0, 9),
]);

/// Memory the runtime's tools hooks live in: zeroed, never read by this library.
struct HookSpace<const N: usize>(UnsafeCell<[usize; N]>);

// SAFETY: this library never touches the contents; the runtime owns them.
unsafe impl<const N: usize> Sync for HookSpace<N> {}

static HOOKS_1: HookSpace<1024> = HookSpace(UnsafeCell::new([0; 1024]));
static HOOKS_2: HookSpace<2> = HookSpace(UnsafeCell::new([0; 2]));

/// Tools hooks slot 2: `(void**, size_t*)`, a buffer for the runtime's callback records.
unsafe extern "C" fn hooks_buffer_1(ptr: *mut *mut c_void, size: *mut usize) {
    if !ptr.is_null() && !size.is_null() {
        // SAFETY: non-null, valid for writes by the caller's promise.
        unsafe {
            ptr.write_unaligned(HOOKS_1.0.get().cast());
            size.write_unaligned(1024);
        }
    }
}

/// Tools hooks slot 6: `(void**, size_t*)`, a second, small buffer (14 bytes used).
unsafe extern "C" fn hooks_buffer_2(ptr: *mut *mut c_void, size: *mut usize) {
    if !ptr.is_null() && !size.is_null() {
        // SAFETY: as in hooks_buffer_1.
        unsafe {
            ptr.write_unaligned(HOOKS_2.0.get().cast());
            size.write_unaligned(14);
        }
    }
}

/// The tools callback hooks table.
static TOOLS_HOOKS: Table<7> = Table([
    size_slot::<7>(),
    unknown!(1, 1),
    hooks_buffer_1 as *const c_void,
    unknown!(1, 3),
    unknown!(1, 4),
    unknown!(1, 5),
    hooks_buffer_2 as *const c_void,
]);

/// The tools thread-local storage table: the runtime reads its size only.
static TOOLS_TLS: Table<4> = Table([
    size_slot::<4>(),
    unknown!(2, 1),
    unknown!(2, 2),
    unknown!(2, 3),
]);

/// `void (*)(CUcontext, void* key, void* value)`: called when the context an entry belongs to
/// is destroyed or reset.
type StorageDestructor = Option<unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_void)>;

/// Context-local storage: (context handle, key) to value and destructor.
type Storage = HashMap<(u64, usize), (usize, StorageDestructor)>;

static CONTEXT_STORAGE: Mutex<Option<Storage>> = Mutex::new(None);

/// The context a storage call means: `ctx`, or the current one when null.
fn storage_context(ctx: crate::context::CUcontext) -> Result<u64, Fail> {
    if !ctx.is_null() {
        return Ok(ctx as u64);
    }
    crate::state::current_context()
        .ok_or_else(|| Fail::new(CUDA_ERROR_INVALID_CONTEXT, "no current context"))
}

/// Drops the context-local storage of context `ctx`, calling each entry's destructor, as the
/// driver does when the context is destroyed (`cuCtxDestroy`) or reset
/// (`cuDevicePrimaryCtxReset`): the runtime that stored its state there then starts afresh
/// (loads its modules again) on the context's next use. Call without the driver lock held: a
/// destructor may call the driver.
pub fn context_gone(ctx: u64) {
    let gone: Vec<((u64, usize), (usize, StorageDestructor))> = {
        let mut map = CONTEXT_STORAGE.lock().unwrap_or_else(|e| e.into_inner());
        let Some(map) = map.as_mut() else {
            return;
        };
        let keys: Vec<(u64, usize)> = map.keys().filter(|(c, _)| *c == ctx).copied().collect();
        keys.into_iter()
            .filter_map(|k| map.remove(&k).map(|v| (k, v)))
            .collect()
    };
    for ((c, key), (value, destructor)) in gone {
        if let Some(destructor) = destructor {
            // SAFETY: the function the runtime registered with the entry, called with the
            // arguments it registered it for.
            unsafe { destructor(c as *mut c_void, key as *mut c_void, value as *mut c_void) };
        }
    }
}

/// Context-local storage slot 0: `(CUcontext, key, value, destructor)` stores `value` under
/// `key` in the context (the current one for null); the destructor is called when the context
/// is destroyed or reset ([`context_gone`]).
unsafe extern "C" fn storage_put(
    ctx: crate::context::CUcontext,
    key: *mut c_void,
    value: *mut c_void,
    destructor: StorageDestructor,
) -> CUresult {
    entry("cuGetExportTable context storage put", || {
        let ctx = storage_context(ctx)?;
        let mut map = CONTEXT_STORAGE.lock().unwrap_or_else(|e| e.into_inner());
        map.get_or_insert_with(HashMap::new)
            .insert((ctx, key as usize), (value as usize, destructor));
        Ok(())
    })
}

/// Context-local storage slot 1: `(key, value)`, the key's entries are dropped from every
/// context.
unsafe extern "C" fn storage_delete(key: *mut c_void, _value: *mut c_void) -> CUresult {
    entry("cuGetExportTable context storage delete", || {
        let mut map = CONTEXT_STORAGE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(map) = map.as_mut() {
            map.retain(|(_, k), _| *k != key as usize);
        }
        Ok(())
    })
}

/// Context-local storage slot 2: `(void** value, CUcontext, key)` reads what was stored;
/// `CUDA_ERROR_INVALID_VALUE` when nothing was (the runtime then stores its state).
unsafe extern "C" fn storage_get(
    value: *mut *mut c_void,
    ctx: crate::context::CUcontext,
    key: *mut c_void,
) -> CUresult {
    entry("cuGetExportTable context storage get", || {
        let ctx = storage_context(ctx)?;
        let map = CONTEXT_STORAGE.lock().unwrap_or_else(|e| e.into_inner());
        let found = map
            .as_ref()
            .and_then(|m| m.get(&(ctx, key as usize)).map(|(v, _)| *v))
            .ok_or_else(|| Fail::new(CUDA_ERROR_INVALID_VALUE, "nothing stored"))?;
        // SAFETY: valid for a write by the caller's promise (null is refused by `out`).
        unsafe { out(value, found as *mut c_void) }
    })
}

/// The context-local storage table (no size slot: slot 0 is a function).
static CONTEXT_STORAGE_TABLE: Table<4> = Table([
    storage_put as *const c_void,
    storage_delete as *const c_void,
    storage_get as *const c_void,
    unknown!(3, 3),
]);

/// Context checks slot 2: `(CUcontext, u32*, void**)`; writes 0 (the context is one of
/// this library's own).
unsafe extern "C" fn checks_context(
    _ctx: crate::context::CUcontext,
    result: *mut u32,
    _other: *mut *const c_void,
) -> CUresult {
    entry("cuGetExportTable context check", || {
        // SAFETY: valid for a write by the caller's promise (null is refused by `out`).
        unsafe { out(result, 0) }
    })
}

/// Context checks slot 3: no arguments, answers 0.
unsafe extern "C" fn checks_slot3() -> u32 {
    0
}

/// The context checks table.
static CONTEXT_CHECKS: Table<4> = Table([
    size_slot::<4>(),
    unknown!(4, 1),
    checks_context as *const c_void,
    checks_slot3 as *const c_void,
]);

/// The HMAC key of the integrity answer.
pub const INTEGRITY_KEY: [u8; 16] = [
    0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52, 0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f,
];

/// MD2's substitution table, RFC 1319 section 3.2 (a permutation of 0..=255 built from pi).
const MD2_S: [u8; 256] = [
    41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19, 98, 167, 5, 243, 192, 199,
    115, 140, 152, 147, 43, 217, 188, 76, 130, 202, 30, 155, 87, 60, 253, 212, 224, 22, 103, 66,
    111, 24, 138, 23, 229, 18, 190, 78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47,
    238, 122, 169, 104, 121, 145, 21, 178, 7, 63, 148, 194, 16, 137, 11, 34, 95, 33, 128, 127, 93,
    154, 90, 144, 50, 39, 53, 62, 204, 231, 191, 247, 151, 3, 255, 25, 48, 179, 72, 165, 181, 209,
    215, 94, 146, 42, 172, 86, 170, 198, 79, 184, 56, 210, 150, 164, 125, 182, 118, 252, 107, 226,
    156, 116, 4, 241, 69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207, 101, 230, 45, 168, 2, 27,
    96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15, 85, 71, 163, 35, 221, 81,
    175, 58, 195, 92, 249, 206, 186, 197, 234, 38, 44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205,
    244, 65, 129, 77, 82, 106, 220, 55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74,
    120, 136, 149, 139, 227, 99, 232, 109, 233, 203, 213, 254, 59, 0, 29, 57, 242, 239, 183, 14,
    102, 88, 208, 228, 166, 119, 114, 248, 235, 117, 75, 10, 49, 68, 80, 180, 143, 237, 31, 26,
    219, 153, 141, 51, 159, 17, 131, 20,
];

/// MD2 (RFC 1319) over `parts` concatenated.
pub fn md2(parts: &[&[u8]]) -> [u8; 16] {
    let mut x = [0u8; 48];
    let mut checksum = [0u8; 16];
    let mut last = 0u8;
    let mut block = [0u8; 16];
    let mut used = 0usize;
    let mut compress = |block: &[u8; 16], x: &mut [u8; 48], checksum: &mut [u8; 16]| {
        for j in 0..16 {
            x[16 + j] = block[j];
            x[32 + j] = block[j] ^ x[j];
            checksum[j] ^= MD2_S[usize::from(block[j] ^ last)];
            last = checksum[j];
        }
        let mut t = 0u8;
        for round in 0..18u8 {
            for v in x.iter_mut() {
                *v ^= MD2_S[usize::from(t)];
                t = *v;
            }
            t = t.wrapping_add(round);
        }
    };
    for &byte in parts.iter().flat_map(|p| p.iter()) {
        block[used] = byte;
        used += 1;
        if used == 16 {
            compress(&block, &mut x, &mut checksum);
            used = 0;
        }
    }
    let pad = (16 - used) as u8;
    block[used..].fill(pad);
    compress(&block, &mut x, &mut checksum);
    let tail = checksum;
    compress(&tail, &mut x, &mut checksum);
    x[..16].try_into().expect("16 bytes")
}

/// HMAC (RFC 2104) with MD2 (block and digest 16 bytes) of `message` under a 16-byte `key`.
pub fn hmac_md2(key: &[u8; 16], message: &[u8]) -> [u8; 16] {
    let inner_key = key.map(|b| b ^ 0x36);
    let outer_key = key.map(|b| b ^ 0x5c);
    let inner = md2(&[&inner_key, message]);
    md2(&[&outer_key, &inner])
}

/// What one device contributes to the integrity record.
#[derive(Clone, Copy, Debug)]
pub struct DeviceIdentity {
    /// `cuDeviceGetUuid`.
    pub uuid: [u8; 16],
    /// `CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID`, `_PCI_BUS_ID`, `_PCI_DEVICE_ID`.
    pub pci: [i32; 3],
}

/// The integrity record's fields other than the devices (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub struct IntegrityInput {
    pub driver_version: u32,
    pub version: u32,
    pub process: u32,
    pub thread: u32,
    pub runtime_table: u64,
    pub integrity_table: u64,
    pub function: u64,
    pub unix_seconds: u64,
}

/// The 16 bytes slot 1 of the integrity table answers for `input` and `devices`.
pub fn integrity_hash(input: &IntegrityInput, devices: &[DeviceIdentity]) -> [u8; 16] {
    let fixed = |first: u64| {
        let mut r = [0u8; 16];
        r[..8].copy_from_slice(&first.to_le_bytes());
        r[8..].copy_from_slice(&0x8ED3_83AA_1F4C_D1E8u64.to_le_bytes());
        r
    };
    match input.version % 10 {
        0 => return fixed(0x3341_181C_03CB_675C),
        1 => return fixed(0x1841_181C_03CB_675C),
        _ => {}
    }
    let mut record = Vec::with_capacity(48 + 28 * devices.len());
    for v in [
        input.driver_version,
        input.version,
        input.process,
        input.thread,
    ] {
        record.extend_from_slice(&v.to_le_bytes());
    }
    for v in [
        input.runtime_table,
        input.integrity_table,
        input.function,
        input.unix_seconds,
    ] {
        record.extend_from_slice(&v.to_le_bytes());
    }
    for d in devices {
        record.extend_from_slice(&d.uuid);
        for v in d.pci {
            record.extend_from_slice(&v.to_le_bytes());
        }
    }
    hmac_md2(&INTEGRITY_KEY, &record)
}

/// This library's devices as the integrity record lists them.
fn device_identities() -> Result<Vec<DeviceIdentity>, Fail> {
    let check = |r: CUresult, what: &str| {
        if r == CUDA_SUCCESS {
            Ok(())
        } else {
            Err(Fail::new(r, format!("integrity check: {what} failed")))
        }
    };
    let mut count: c_int = 0;
    // SAFETY: a valid pointer to a local.
    check(
        unsafe { crate::device::cuDeviceGetCount(&mut count) },
        "cuDeviceGetCount",
    )?;
    (0..count)
        .map(|dev| {
            let mut uuid = [0u8; 16];
            // SAFETY: valid pointers to locals.
            check(
                unsafe { crate::device::cuDeviceGetUuid(&mut uuid, dev) },
                "cuDeviceGetUuid",
            )?;
            let mut pci = [0i32; 3];
            // CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, _PCI_BUS_ID, _PCI_DEVICE_ID.
            for (slot, attribute) in pci.iter_mut().zip([50, 33, 34]) {
                // SAFETY: as above.
                let r = unsafe { crate::device::cuDeviceGetAttribute(slot, attribute, dev) };
                check(r, "cuDeviceGetAttribute")?;
            }
            Ok(DeviceIdentity { uuid, pci })
        })
        .collect()
}

/// Integrity table slot 1: `(version, unix_seconds, *mut [u8; 16])`.
unsafe extern "C" fn integrity_check(
    version: u32,
    unix_seconds: u64,
    result: *mut [u8; 16],
) -> CUresult {
    entry("cuGetExportTable integrity check", || {
        let devices = device_identities()?;
        // The low 32 bits of the calling thread's `pthread_t`.
        // SAFETY: pthread_self has no preconditions.
        let thread = unsafe { libc::pthread_self() } as u32;
        let input = IntegrityInput {
            driver_version: crate::device::driver_version() as u32,
            version,
            process: std::process::id(),
            thread,
            runtime_table: &CUDART_INTERFACE as *const Table<10> as u64,
            integrity_table: &INTEGRITY as *const Table<3> as u64,
            function: INTEGRITY.0[1] as u64,
            unix_seconds,
        };
        // SAFETY: valid for a write by the caller's promise (null is refused by `out`).
        unsafe { out(result, integrity_hash(&input, &devices)) }
    })
}

/// The integrity check table.
static INTEGRITY: Table<3> = Table([
    size_slot::<3>(),
    integrity_check as *const c_void,
    unknown!(5, 2),
]);

/// The tools context table's id: `21318c60-9714-3248-8ca6-41ff7324c8f2`.
pub const TOOLS_CONTEXT_ID: [u8; 16] = [
    0x21, 0x31, 0x8c, 0x60, 0x97, 0x14, 0x32, 0x48, 0x8c, 0xa6, 0x41, 0xff, 0x73, 0x24, 0xc8, 0xf2,
];

/// The tools context table.
static TOOLS_CONTEXT: Table<95> = Table([
    size_slot::<95>(),
    unknown!(6, 1),
    unknown!(6, 2),
    unknown!(6, 3),
    unknown!(6, 4),
    unknown!(6, 5),
    unknown!(6, 6),
    unknown!(6, 7),
    unknown!(6, 8),
    unknown!(6, 9),
    unknown!(6, 10),
    unknown!(6, 11),
    unknown!(6, 12),
    unknown!(6, 13),
    unknown!(6, 14),
    unknown!(6, 15),
    unknown!(6, 16),
    unknown!(6, 17),
    unknown!(6, 18),
    unknown!(6, 19),
    unknown!(6, 20),
    unknown!(6, 21),
    unknown!(6, 22),
    unknown!(6, 23),
    unknown!(6, 24),
    unknown!(6, 25),
    unknown!(6, 26),
    unknown!(6, 27),
    unknown!(6, 28),
    unknown!(6, 29),
    unknown!(6, 30),
    unknown!(6, 31),
    unknown!(6, 32),
    unknown!(6, 33),
    unknown!(6, 34),
    unknown!(6, 35),
    unknown!(6, 36),
    unknown!(6, 37),
    unknown!(6, 38),
    unknown!(6, 39),
    unknown!(6, 40),
    unknown!(6, 41),
    unknown!(6, 42),
    unknown!(6, 43),
    unknown!(6, 44),
    unknown!(6, 45),
    unknown!(6, 46),
    unknown!(6, 47),
    unknown!(6, 48),
    unknown!(6, 49),
    unknown!(6, 50),
    unknown!(6, 51),
    unknown!(6, 52),
    unknown!(6, 53),
    unknown!(6, 54),
    unknown!(6, 55),
    unknown!(6, 56),
    unknown!(6, 57),
    unknown!(6, 58),
    unknown!(6, 59),
    unknown!(6, 60),
    unknown!(6, 61),
    unknown!(6, 62),
    unknown!(6, 63),
    unknown!(6, 64),
    unknown!(6, 65),
    unknown!(6, 66),
    unknown!(6, 67),
    unknown!(6, 68),
    unknown!(6, 69),
    unknown!(6, 70),
    unknown!(6, 71),
    unknown!(6, 72),
    unknown!(6, 73),
    unknown!(6, 74),
    unknown!(6, 75),
    unknown!(6, 76),
    unknown!(6, 77),
    unknown!(6, 78),
    unknown!(6, 79),
    unknown!(6, 80),
    unknown!(6, 81),
    unknown!(6, 82),
    unknown!(6, 83),
    unknown!(6, 84),
    unknown!(6, 85),
    unknown!(6, 86),
    unknown!(6, 87),
    unknown!(6, 88),
    unknown!(6, 89),
    unknown!(6, 90),
    unknown!(6, 91),
    unknown!(6, 92),
    unknown!(6, 93),
    unknown!(6, 94),
]);

/// The table with id `id`, if this library has it, and its name.
pub fn lookup(id: &[u8; 16]) -> Option<(&'static str, *const c_void)> {
    let found: (&'static str, *const c_void) = match *id {
        CUDART_INTERFACE_ID => (
            TABLE_NAMES[0],
            (&CUDART_INTERFACE as *const Table<10>).cast(),
        ),
        TOOLS_HOOKS_ID => (TABLE_NAMES[1], (&TOOLS_HOOKS as *const Table<7>).cast()),
        TOOLS_TLS_ID => (TABLE_NAMES[2], (&TOOLS_TLS as *const Table<4>).cast()),
        CONTEXT_STORAGE_ID => (
            TABLE_NAMES[3],
            (&CONTEXT_STORAGE_TABLE as *const Table<4>).cast(),
        ),
        CONTEXT_CHECKS_ID => (TABLE_NAMES[4], (&CONTEXT_CHECKS as *const Table<4>).cast()),
        INTEGRITY_ID => (TABLE_NAMES[5], (&INTEGRITY as *const Table<3>).cast()),
        TOOLS_CONTEXT_ID => (TABLE_NAMES[6], (&TOOLS_CONTEXT as *const Table<95>).cast()),
        _ => return None,
    };
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(d: [u8; 16]) -> String {
        d.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// RFC 1319's test suite (appendix A.5).
    #[test]
    fn md2_matches_rfc_1319() {
        let cases = [
            ("", "8350e5a3e24c153df2275c9f80692773"),
            ("a", "32ec01ec4a6dac72c0ab96fb34c0b5d1"),
            ("abc", "da853b0d3f88d99b30283a69e6ded6bb"),
            ("message digest", "ab4f496bfb2a530b219ff33031fe06b0"),
            (
                "abcdefghijklmnopqrstuvwxyz",
                "4e8ddff3650292ab5a4108c3aa47940b",
            ),
            (
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                "da33def2a42df13975352846c30338cd",
            ),
            (
                "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
                "d5976f79d83d3a0dc9806c3c66f3efd8",
            ),
        ];
        for (text, digest) in cases {
            assert_eq!(hex(md2(&[text.as_bytes()])), digest, "MD2({text:?})");
        }
        // Split input gives the same digest as whole input.
        assert_eq!(md2(&[b"mess", b"age digest"]), md2(&[b"message digest"]));
    }

    #[test]
    fn table_sizes_and_ids() {
        assert_eq!(size_slot::<10>() as usize, 80);
        assert!(lookup(&CUDART_INTERFACE_ID).is_some());
        assert!(lookup(&INTEGRITY_ID).is_some());
        assert!(lookup(&[0; 16]).is_none());
    }

    #[test]
    fn integrity_early_steps_are_fixed() {
        let input = IntegrityInput {
            driver_version: 13050,
            version: 13000,
            process: 1,
            thread: 1,
            runtime_table: 0,
            integrity_table: 0,
            function: 0,
            unix_seconds: 0,
        };
        let r = integrity_hash(&input, &[]);
        assert_eq!(&r[..8], &0x3341_181C_03CB_675Cu64.to_le_bytes());
        let changed = IntegrityInput {
            version: 13002,
            ..input
        };
        let other = IntegrityInput {
            unix_seconds: 1,
            ..changed
        };
        assert_ne!(integrity_hash(&changed, &[]), integrity_hash(&other, &[]));
    }
}
