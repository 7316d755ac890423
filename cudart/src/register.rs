//! What nvcc's generated host code registers at start-up (`crt/host_runtime.h`): each
//! translation unit's fatbin (`__cudaRegisterFatBinary`, the `__fatBinC_Wrapper_t` whose
//! address it passes), its kernels by the address of their host stubs
//! (`__cudaRegisterFunction`) and its `__device__`/`__constant__`/`__managed__` variables by
//! the address of their host shadows (`__cudaRegisterVar`, `__cudaRegisterManagedVar`).
//!
//! Registration only records: it runs before `main`, and touches no driver. A fatbin is
//! loaded (`cuModuleLoadData`, which picks its PTX for the device, LZ4/zstd included) into
//! the primary context when one of its kernels or variables is first used; `cudaDeviceReset`
//! forgets the loaded modules, which are loaded again on next use.

use crate::errors::*;
use crate::{cu, exports, Fail};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::{Mutex, MutexGuard};

/// One registered fatbin: the wrapper nvcc passed and, once loaded, its module.
struct Fatbin {
    wrapper: usize,
    module: Option<u64>,
    /// The load failed: its code and why (what failed and where, as the driver said it
    /// under a tool), answered again at each use without a second load.
    failed: Option<(cudaError_t, String)>,
}

/// A registered kernel or variable: its fatbin and its name in the PTX.
#[derive(Clone)]
pub struct Entity {
    fatbin: usize,
    pub name: CString,
    /// For `__managed__` variables: where the host code reads the variable's address.
    managed_slot: Option<usize>,
}

#[derive(Default)]
struct Registry {
    fatbins: Vec<Fatbin>,
    functions: HashMap<usize, Entity>,
    vars: HashMap<usize, Entity>,
    /// Kernel handles by host stub, once resolved in the loaded module.
    handles: HashMap<usize, u64>,
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);

fn registry() -> MutexGuard<'static, Option<Registry>> {
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

fn with<T>(f: impl FnOnce(&mut Registry) -> T) -> T {
    f(registry().get_or_insert_with(Registry::default))
}

/// The index of the fatbin whose handle nvcc passes back (`void **`): a leaked box holding
/// the index, so the handle is a unique valid pointer.
unsafe fn fatbin_index(handle: *mut *mut c_void) -> Option<usize> {
    if handle.is_null() {
        return None;
    }
    // SAFETY: handles are the boxes `__cudaRegisterFatBinary` leaked.
    Some(unsafe { *handle.cast::<usize>() })
}

/// `__cudaRegisterFatBinary(void *fatCubin)`: records the fatbin wrapper; returns its handle.
#[no_mangle]
pub unsafe extern "C" fn __cudaRegisterFatBinary(fat_cubin: *mut c_void) -> *mut *mut c_void {
    crate::guard("__cudaRegisterFatBinary", std::ptr::null_mut(), || {
        let index = with(|r| {
            r.fatbins.push(Fatbin {
                wrapper: fat_cubin as usize,
                module: None,
                failed: None,
            });
            r.fatbins.len() - 1
        });
        if crate::tracing() {
            eprintln!("ptxjit: __cudaRegisterFatBinary({fat_cubin:?}) -> fatbin {index}");
        }
        Box::into_raw(Box::new(index)).cast()
    })
}

#[no_mangle]
pub unsafe extern "C" fn __cudaRegisterFatBinaryEnd(_handle: *mut *mut c_void) {}

/// `__cudaUnregisterFatBinary`: at exit. Modules stay loaded until the process ends (the
/// driver may already be shutting down), as NVIDIA's runtime leaves them to the driver.
#[no_mangle]
pub unsafe extern "C" fn __cudaUnregisterFatBinary(_handle: *mut *mut c_void) {}

unsafe fn name_of(p: *const c_char) -> Option<CString> {
    if p.is_null() {
        return None;
    }
    // SAFETY: nvcc passes NUL-terminated names.
    Some(unsafe { CStr::from_ptr(p) }.to_owned())
}

/// `__cudaRegisterFunction(handle, hostFun, deviceFun, deviceName, ...)`: kernel
/// `deviceName` (its mangled PTX name) is launched through host stub `hostFun`.
#[no_mangle]
pub unsafe extern "C" fn __cudaRegisterFunction(
    handle: *mut *mut c_void,
    host_fun: *const c_char,
    _device_fun: *mut c_char,
    device_name: *const c_char,
    _thread_limit: c_int,
    _tid: *mut c_void,
    _bid: *mut c_void,
    _bdim: *mut c_void,
    _gdim: *mut c_void,
    _wsize: *mut c_int,
) {
    crate::guard("__cudaRegisterFunction", (), || {
        // SAFETY: nvcc passes its handle and a NUL-terminated name.
        let (Some(fatbin), Some(name)) = (unsafe { fatbin_index(handle) }, unsafe {
            name_of(device_name)
        }) else {
            return;
        };
        if crate::tracing() {
            eprintln!("ptxjit: __cudaRegisterFunction({host_fun:?}, {name:?}) in fatbin {fatbin}");
        }
        with(|r| {
            r.functions.insert(
                host_fun as usize,
                Entity {
                    fatbin,
                    name,
                    managed_slot: None,
                },
            )
        });
    })
}

/// `__cudaRegisterVar(handle, hostVar, deviceAddress, deviceName, ext, size, constant,
/// global)`: the `__device__`/`__constant__` variable `deviceName` has host shadow `hostVar`
/// (the `symbol` of `cudaMemcpyToSymbol` and friends).
#[no_mangle]
pub unsafe extern "C" fn __cudaRegisterVar(
    handle: *mut *mut c_void,
    host_var: *mut c_char,
    _device_address: *mut c_char,
    device_name: *const c_char,
    _ext: c_int,
    _size: usize,
    _constant: c_int,
    _global: c_int,
) {
    crate::guard("__cudaRegisterVar", (), || {
        // SAFETY: as in __cudaRegisterFunction.
        let (Some(fatbin), Some(name)) = (unsafe { fatbin_index(handle) }, unsafe {
            name_of(device_name)
        }) else {
            return;
        };
        with(|r| {
            r.vars.insert(
                host_var as usize,
                Entity {
                    fatbin,
                    name,
                    managed_slot: None,
                },
            )
        });
    })
}

/// `__cudaRegisterManagedVar(handle, hostVarPtrAddress, ...)`: a `__managed__` variable; the
/// host reaches it through the pointer at `hostVarPtrAddress`, which `__cudaInitModule`
/// sets to the variable's address (device and host addresses are the same).
#[no_mangle]
pub unsafe extern "C" fn __cudaRegisterManagedVar(
    handle: *mut *mut c_void,
    host_var_ptr_address: *mut *mut c_void,
    _device_address: *mut c_char,
    device_name: *const c_char,
    _ext: c_int,
    _size: usize,
    _constant: c_int,
    _global: c_int,
) {
    crate::guard("__cudaRegisterManagedVar", (), || {
        // SAFETY: as in __cudaRegisterFunction.
        let (Some(fatbin), Some(name)) = (unsafe { fatbin_index(handle) }, unsafe {
            name_of(device_name)
        }) else {
            return;
        };
        with(|r| {
            r.vars.insert(
                host_var_ptr_address as usize,
                Entity {
                    fatbin,
                    name,
                    managed_slot: Some(host_var_ptr_address as usize),
                },
            )
        });
    })
}

/// `__cudaInitModule(handle)`: loads the fatbin now (host code reading a `__managed__`
/// variable calls it first). Returns 1 on success, 0 on failure.
#[no_mangle]
pub unsafe extern "C" fn __cudaInitModule(handle: *mut *mut c_void) -> c_char {
    // SAFETY: nvcc passes its handle.
    let Some(fatbin) = (unsafe { fatbin_index(handle) }) else {
        return 0;
    };
    let code = crate::entry("__cudaInitModule", || module(fatbin).map(|_| ()));
    (code == cudaSuccess) as c_char
}

/// Loads fatbin `index` if needed (into the current context) and returns its module; sets
/// the host pointers of its `__managed__` variables.
fn module(index: usize) -> Result<u64, Fail> {
    crate::state::context()?;
    let Some((wrapper, loaded, failed)) = with(|r| {
        r.fatbins
            .get(index)
            .map(|f| (f.wrapper, f.module, f.failed.clone()))
    }) else {
        return Err(Fail::new(
            cudaErrorInvalidResourceHandle,
            format!("fatbin handle {index} was not registered"),
        ));
    };
    if let Some(m) = loaded {
        return Ok(m);
    }
    if let Some((code, why)) = failed {
        return Err(Fail::new(
            code,
            format!("fatbin {index} did not load: {why}"),
        ));
    }
    let mut m = 0u64;
    // The driver reads the wrapper: the PTX of its fatbin for the device or, for a
    // `-rdc=true` program's version-2 wrapper, that of the fatbins it lists, linked; it says
    // why an image without PTX does not load (once per process).
    let loaded = cu!(cuModuleLoadData(&mut m, wrapper as *const c_void));
    if let Err(e) = loaded {
        // The driver's message names the image and where its PTX failed (kept from the
        // tool's detail of this call; without a tool, the driver printed it once).
        let why = crate::driver::runtime_call_detail().unwrap_or_else(|| e.message.clone());
        with(|r| r.fatbins[index].failed = Some((e.code, why)));
        return Err(e);
    }
    let managed: Vec<(usize, CString)> = with(|r| {
        r.fatbins[index].module = Some(m);
        r.vars
            .values()
            .filter(|v| v.fatbin == index)
            .filter_map(|v| v.managed_slot.map(|s| (s, v.name.clone())))
            .collect()
    });
    for (slot, name) in managed {
        let (mut dptr, mut size) = (0u64, 0usize);
        cu!(cuModuleGetGlobal_v2(&mut dptr, &mut size, m, name.as_ptr()))?;
        // SAFETY: the slot is the host pointer nvcc registered for this variable.
        unsafe { *(slot as *mut u64) = dptr };
    }
    Ok(m)
}

/// The driver's function handle for the kernel whose host stub is at `host_fun`. Errors:
/// `cudaErrorInvalidDeviceFunction` for an address no registration named.
pub fn function(host_fun: *const c_void) -> Result<u64, Fail> {
    // The calling thread needs a current context even when the handle is known already
    // (another thread may have resolved it).
    crate::state::context()?;
    let key = host_fun as usize;
    if let Some(h) = with(|r| r.handles.get(&key).copied()) {
        return Ok(h);
    }
    let Some(entity) = with(|r| r.functions.get(&key).cloned()) else {
        return driver_kernel(host_fun);
    };
    let m = module(entity.fatbin)?;
    let mut f = 0u64;
    cu!(cuModuleGetFunction(&mut f, m, entity.name.as_ptr()))?;
    with(|r| r.handles.insert(key, f));
    Ok(f)
}

/// A `cudaKernel_t` from `cudaLibraryGetKernel` or a `cudaFunction_t` (the driver's
/// `CUkernel`/`CUfunction`, which the runtime's launch and attribute calls accept in place of
/// a host stub): the driver checks the handle (a foreign value is an error, never
/// dereferenced). Errors: `cudaErrorInvalidDeviceFunction` when it is no kernel either.
fn driver_kernel(f: *const c_void) -> Result<u64, Fail> {
    crate::state::context()?;
    let mut v = 0;
    // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (0): any attribute read checks the handle.
    match cu!(cuFuncGetAttribute(&mut v, 0, f as u64)) {
        Ok(()) => Ok(f as u64),
        Err(_) => Err(Fail::new(
            cudaErrorInvalidDeviceFunction,
            format!("{f:?} is neither a registered kernel nor a kernel handle"),
        )),
    }
}

/// The host stub whose kernel resolved to the driver's function `f` (the reverse of
/// [`function`]), if any did.
pub fn host_stub(f: u64) -> Option<*const c_void> {
    with(|r| {
        r.handles
            .iter()
            .find(|&(_, &h)| h == f)
            .map(|(&stub, _)| stub as *const c_void)
    })
}

/// The registered name of the kernel whose host stub is at `host_fun`: a C string that lives
/// as long as the registration (entries are never removed: for the life of the process).
pub fn function_name(host_fun: *const c_void) -> Option<*const c_char> {
    with(|r| {
        r.functions
            .get(&(host_fun as usize))
            .map(|e| e.name.as_ptr())
    })
}

/// The device address and size of the variable whose host shadow is at `symbol`. Errors:
/// `cudaErrorInvalidSymbol` for an address no registration named.
pub fn symbol(symbol: *const c_void) -> Result<(u64, usize), Fail> {
    let entity = with(|r| r.vars.get(&(symbol as usize)).cloned());
    let Some(entity) = entity else {
        return Err(Fail::new(
            cudaErrorInvalidSymbol,
            format!("{symbol:?} is not a registered __device__ or __constant__ variable"),
        ));
    };
    let m = module(entity.fatbin)?;
    let (mut dptr, mut size) = (0u64, 0usize);
    cu!(cuModuleGetGlobal_v2(
        &mut dptr,
        &mut size,
        m,
        entity.name.as_ptr()
    ))?;
    Ok((dptr, size))
}

/// Forgets every loaded module (`cudaDeviceReset` destroys the context that held them).
pub fn forget_modules() {
    with(|r| {
        for f in &mut r.fatbins {
            f.module = None;
            f.failed = None;
        }
        r.handles.clear();
    });
}

exports! { cudaGetSymbolAddress => fn(dptr: *mut *mut c_void, sym: *const c_void) {
    let (p, _) = symbol(sym)?;
    unsafe { crate::out(dptr, p as *mut c_void) }
}}

exports! { cudaGetSymbolSize => fn(size: *mut usize, sym: *const c_void) {
    let (_, n) = symbol(sym)?;
    unsafe { crate::out(size, n) }
}}
