//! Initialization, version and the one device (CUDA driver API: Initialization, Version
//! Management, Device Management).
//!
//! The device is described truthfully: name "ptxjit (CPU)", compute capability 8.0 unless
//! `PTXJIT_CC` says otherwise, CUDA's limits for that capability (the same ones ptxjit's
//! launches enforce), one multiprocessor per CPU core, and the device memory ptxjit gives.

use crate::errors::*;
use crate::state::{self, with_driver};
use crate::{entry, out, DrvResult, Fail};
use std::ffi::{c_char, c_int, c_uint};

/// `CUdevice`: an ordinal.
pub type CUdevice = c_int;

/// The driver version reported by default (CUDA 13.5).
pub const DEFAULT_DRIVER_VERSION: i32 = 13050;

/// The driver version `cuDriverGetVersion` reports: 13050 (`CUDA_VERSION` of CUDA 13.5's
/// cuda.h, the CUDA of cudart/requirements.txt), or `PTXJIT_DRIVER_VERSION`. A driver serves
/// programs built for its own and every older CUDA, and a CUDA 13 runtime (ptxjit's
/// libcudart.so.13 reports 13050; NVIDIA's refuses an older driver with
/// `cudaErrorInsufficientDriver`) needs a driver at least as new, so 13.5 it is; CUDA 12
/// clients (numba-cuda with cuda-bindings 12.9, cudarc) ask `cuGetProcAddress` for their own
/// version and get the CUDA 12 ABIs, whose table comes from CUDA 12.9's headers (functions new
/// in CUDA 13 are not in it and answer `CUDA_ERROR_NOT_FOUND`).
/// A value that is not a version number (`12040` for CUDA 12.4) is reported once on stderr
/// and 13050 reported instead.
pub fn driver_version() -> i32 {
    static VERSION: std::sync::OnceLock<i32> = std::sync::OnceLock::new();
    *VERSION.get_or_init(|| {
        let Ok(v) = std::env::var("PTXJIT_DRIVER_VERSION") else {
            return DEFAULT_DRIVER_VERSION;
        };
        match v.parse::<i32>() {
            Ok(n) if (2000..100_000).contains(&n) => n,
            _ => {
                if !v.is_empty() {
                    eprintln!(
                        "ptxjit: PTXJIT_DRIVER_VERSION={v} is not a driver version such as \
                         12040 (CUDA 12.4); reporting {DEFAULT_DRIVER_VERSION}"
                    );
                }
                DEFAULT_DRIVER_VERSION
            }
        }
    })
}

/// The compute capability reported: `PTXJIT_CC=major.minor`, default 8.0 (the host layer's
/// [`device_compute_capability`](ptxjit::host::occupancy::device_compute_capability), whose
/// launch checks follow the same value).
pub fn compute_capability() -> (i32, i32) {
    let (major, minor) = ptxjit::host::occupancy::device_compute_capability();
    (major as i32, minor as i32)
}

/// Whether the device reports thread block cluster launches
/// (`CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH`): clusters need compute capability 9.0 or higher.
pub fn cluster_launch() -> bool {
    compute_capability().0 >= 9
}

/// Multiprocessors: one per CPU core ptxjit runs CTAs on.
pub fn sm_count() -> i32 {
    ptxjit::host::occupancy::sm_count() as i32
}

/// Shared memory the driver reserves per block (bytes,
/// `CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK`): the CTA's reserved region (PTX
/// ISA §10.29) on compute capability 8.0 and later, none before.
pub fn reserved_shared() -> i32 {
    if compute_capability().0 >= 8 {
        ptxjit::host::occupancy::RESERVED_SHARED_PER_CTA as i32
    } else {
        0
    }
}

/// Shared memory a block may use without opting in (bytes).
pub const SHARED_PER_BLOCK: i32 = 48 * 1024;

/// `CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT`: the alignment in bytes that `cuTexObjectCreate`
/// requires of a linear or pitched resource's `devPtr`.
pub const TEXTURE_ALIGNMENT: i32 = 512;

/// `CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT`: the alignment in bytes that
/// `cuTexObjectCreate` requires of a pitched resource's `pitchInBytes`.
pub const TEXTURE_PITCH_ALIGNMENT: i32 = 32;

/// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH`: the largest `pitchInBytes` of a
/// pitched texture resource, in bytes.
pub const MAX_TEXTURE2D_LINEAR_PITCH: i32 = 2 << 20;

/// (opt-in shared memory per block, shared memory per SM), in bytes, for the reported
/// capability: the host layer's table
/// ([`device_shared_limits`](ptxjit::host::occupancy::device_shared_limits)), which its
/// launch checks and messages use too.
pub fn shared_limits() -> (i32, i32) {
    let l = ptxjit::host::occupancy::device_shared_limits();
    (l.per_block_optin as i32, l.per_sm as i32)
}

/// The value of device attribute `attr` (`CUdevice_attribute`), `None` for unknown ones.
pub fn attribute(attr: i32) -> Option<i32> {
    let (major, minor) = compute_capability();
    let (optin, per_sm) = shared_limits();
    let v = match attr {
        1 => 1024,                          // MAX_THREADS_PER_BLOCK
        2 | 3 => 1024,                      // MAX_BLOCK_DIM_X, _Y
        4 => 64,                            // MAX_BLOCK_DIM_Z
        5 => i32::MAX,                      // MAX_GRID_DIM_X
        6 | 7 => 65535,                     // MAX_GRID_DIM_Y, _Z
        8 => SHARED_PER_BLOCK,              // MAX_SHARED_MEMORY_PER_BLOCK
        9 => 64 * 1024,                     // TOTAL_CONSTANT_MEMORY
        10 => 32,                           // WARP_SIZE
        11 => i32::MAX,                     // MAX_PITCH
        12 => 65536,                        // MAX_REGISTERS_PER_BLOCK
        13 => 1_000_000,                    // CLOCK_RATE (kHz)
        14 => TEXTURE_ALIGNMENT,            // TEXTURE_ALIGNMENT
        15 => 1,                            // GPU_OVERLAP
        16 => sm_count(),                   // MULTIPROCESSOR_COUNT
        17 => 0,                            // KERNEL_EXEC_TIMEOUT
        18 => 0,                            // INTEGRATED: report a discrete device
        19 => 1,                            // CAN_MAP_HOST_MEMORY
        20 => 0,                            // COMPUTE_MODE: default
        21 => 131072,                       // MAXIMUM_TEXTURE1D_WIDTH
        22 => 131072,                       // MAXIMUM_TEXTURE2D_WIDTH
        23 => 65536,                        // MAXIMUM_TEXTURE2D_HEIGHT
        24..=26 => 16384,                   // MAXIMUM_TEXTURE3D_*
        27 | 28 => 32768,                   // MAXIMUM_TEXTURE2D_LAYERED_WIDTH/HEIGHT
        29 => 2048,                         // MAXIMUM_TEXTURE2D_LAYERED_LAYERS
        30 => 512,                          // SURFACE_ALIGNMENT
        31 => 1,                            // CONCURRENT_KERNELS
        32 => 0,                            // ECC_ENABLED
        33..=34 => 0,                       // PCI_BUS_ID, PCI_DEVICE_ID
        35 => 0,                            // TCC_DRIVER
        36 => 1_000_000,                    // MEMORY_CLOCK_RATE (kHz)
        37 => 64,                           // GLOBAL_MEMORY_BUS_WIDTH
        38 => 4 << 20,                      // L2_CACHE_SIZE
        39 => 2048,                         // MAX_THREADS_PER_MULTIPROCESSOR
        40 => 1,                            // ASYNC_ENGINE_COUNT
        41 => 1,                            // UNIFIED_ADDRESSING
        42 => 32768,                        // MAXIMUM_TEXTURE1D_LAYERED_WIDTH
        43 => 2048,                         // MAXIMUM_TEXTURE1D_LAYERED_LAYERS
        44 => 1,                            // CAN_TEX2D_GATHER
        45 | 46 => 32768,                   // MAXIMUM_TEXTURE2D_GATHER_*
        47 | 48 => 8192,                    // MAXIMUM_TEXTURE3D_*_ALTERNATE
        49 => 32768,                        // MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE
        50 => 0,                            // PCI_DOMAIN_ID
        51 => TEXTURE_PITCH_ALIGNMENT,      // TEXTURE_PITCH_ALIGNMENT
        52 | 53 => 32768,                   // MAXIMUM_TEXTURECUBEMAP_*WIDTH
        54 => 2046,                         // MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS
        55 | 56 => 32768,                   // MAXIMUM_SURFACE1D/2D_WIDTH
        57 => 65536,                        // MAXIMUM_SURFACE2D_HEIGHT
        58..=60 => 16384,                   // MAXIMUM_SURFACE3D_*
        61 | 63 | 64 => 32768,              // MAXIMUM_SURFACE1D/2D_LAYERED_*
        62 | 65 => 2048,                    // MAXIMUM_SURFACE*_LAYERED_LAYERS
        66 | 67 => 32768,                   // MAXIMUM_SURFACECUBEMAP_*WIDTH
        68 => 2046,                         // MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS
        69 => 1 << 27,                      // MAXIMUM_TEXTURE1D_LINEAR_WIDTH
        70 | 71 => 131072,                  // MAXIMUM_TEXTURE2D_LINEAR_WIDTH/HEIGHT
        72 => MAX_TEXTURE2D_LINEAR_PITCH,   // MAXIMUM_TEXTURE2D_LINEAR_PITCH
        73 | 74 => 32768,                   // MAXIMUM_TEXTURE2D_MIPMAPPED_*
        75 => major,                        // COMPUTE_CAPABILITY_MAJOR
        76 => minor,                        // COMPUTE_CAPABILITY_MINOR
        77 => 32768,                        // MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH
        78 => 1,                            // STREAM_PRIORITIES_SUPPORTED
        79 | 80 => 1,                       // GLOBAL/LOCAL_L1_CACHE_SUPPORTED
        81 => per_sm,                       // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
        82 => 65536,                        // MAX_REGISTERS_PER_MULTIPROCESSOR
        83 => 1,                            // MANAGED_MEMORY
        84 => 0,                            // MULTI_GPU_BOARD
        85 => 0,                            // MULTI_GPU_BOARD_GROUP_ID
        86 => 1,                            // HOST_NATIVE_ATOMIC_SUPPORTED
        87 => 2,                            // SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO
        88 => 0,                  // PAGEABLE_MEMORY_ACCESS (kernels see only device memory)
        89 => 1,                  // CONCURRENT_MANAGED_ACCESS (work completes when enqueued)
        90 => 0,                  // COMPUTE_PREEMPTION_SUPPORTED
        91 => 0,                  // CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM
        92..=94 => 0,             // stream memory operations v1
        95 => 1,                  // COOPERATIVE_LAUNCH
        96 => 0,                  // COOPERATIVE_MULTI_DEVICE_LAUNCH
        97 => optin,              // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        98 => 0,                  // CAN_FLUSH_REMOTE_WRITES
        99 => 0,                  // HOST_REGISTER_SUPPORTED
        100 => 0,                 // PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES
        101 => 1,                 // DIRECT_MANAGED_MEM_ACCESS_FROM_HOST
        102..=105 => 0,           // virtual memory management, IPC handle types
        106 => 32,                // MAX_BLOCKS_PER_MULTIPROCESSOR
        107..=110 => 0,           // compression, persisting L2, access policy, RDMA
        111 => reserved_shared(), // RESERVED_SHARED_MEMORY_PER_BLOCK
        112..=114 => 0,           // sparse arrays, read-only host registration, timeline semaphores
        115 => 1,                 // MEMORY_POOLS_SUPPORTED
        116..=118 => 0,           // RDMA
        119 => 0,                 // MEMPOOL_SUPPORTED_HANDLE_TYPES
        120 => i32::from(cluster_launch()), // CLUSTER_LAUNCH: compute capability 9.0 up
        121..=128 => 0,           // deferred mapping … fabric handles
        129 => 0,                 // UNIFIED_FUNCTION_POINTERS
        130 => 0,                 // NUMA_CONFIG: none
        131 => -1,                // NUMA_ID
        132 | 133 => 0,           // MULTICAST_SUPPORTED, MPS_ENABLED
        134 => -1,                // HOST_NUMA_ID
        135..=143 => 0,           // interop, decompression, PCI ids, host NUMA
        _ => return None,
    };
    Some(v)
}

/// Checks a device ordinal: ptxjit has one device, 0 (`CUDA_ERROR_INVALID_DEVICE` otherwise).
pub fn check_device(dev: CUdevice) -> DrvResult {
    if dev == 0 {
        Ok(())
    } else {
        Err(Fail::new(
            CUDA_ERROR_INVALID_DEVICE,
            format!("device {dev}: ptxjit has one device, 0"),
        ))
    }
}

fn initialized() -> DrvResult {
    with_driver(|_| Ok(()))
}

#[no_mangle]
pub unsafe extern "C" fn cuInit(flags: c_uint) -> CUresult {
    entry("cuInit", || {
        if flags != 0 {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                "cuInit flags must be 0",
            ));
        }
        state::init()
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDriverGetVersion(version: *mut c_int) -> CUresult {
    entry("cuDriverGetVersion", || unsafe {
        out(version, driver_version())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    entry("cuDeviceGetCount", || {
        initialized()?;
        unsafe { out(count, 1) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult {
    entry("cuDeviceGet", || {
        initialized()?;
        check_device(ordinal)?;
        unsafe { out(device, 0) }
    })
}

/// Copies `s` as a NUL-terminated string into `buf` of `len` bytes (truncated to fit).
///
/// # Safety
/// `buf` is null or valid for `len` bytes.
pub unsafe fn write_c_string(buf: *mut c_char, len: c_int, s: &str) -> DrvResult {
    if buf.is_null() || len <= 0 {
        return Err(Fail::new(
            CUDA_ERROR_INVALID_VALUE,
            "null or empty name buffer",
        ));
    }
    let n = s.len().min(len as usize - 1);
    // SAFETY: buf is valid for len > n bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr().cast(), buf, n);
        buf.add(n).write(0);
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    entry("cuDeviceGetName", || {
        initialized()?;
        check_device(dev)?;
        unsafe { write_c_string(name, len, "ptxjit (CPU)") }
    })
}

/// The device's UUID: fixed bytes ("ptxjit CPU dev 0").
const UUID: [u8; 16] = *b"ptxjit CPU dev 0";

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid(uuid: *mut [u8; 16], dev: CUdevice) -> CUresult {
    entry("cuDeviceGetUuid", || {
        initialized()?;
        check_device(dev)?;
        unsafe { out(uuid, UUID) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid_v2(uuid: *mut [u8; 16], dev: CUdevice) -> CUresult {
    entry("cuDeviceGetUuid_v2", || {
        initialized()?;
        check_device(dev)?;
        unsafe { out(uuid, UUID) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) -> CUresult {
    entry("cuDeviceTotalMem_v2", || {
        initialized()?;
        check_device(dev)?;
        unsafe {
            out(
                bytes,
                ptxjit::runtime::memory::device_memory_limit() as usize,
            )
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetAttribute(
    value: *mut c_int,
    attrib: c_int,
    dev: CUdevice,
) -> CUresult {
    entry("cuDeviceGetAttribute", || {
        initialized()?;
        check_device(dev)?;
        let v = attribute(attrib).ok_or_else(|| {
            Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("unknown device attribute {attrib}"),
            )
        })?;
        unsafe { out(value, v) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceComputeCapability(
    major: *mut c_int,
    minor: *mut c_int,
    dev: CUdevice,
) -> CUresult {
    entry("cuDeviceComputeCapability", || {
        initialized()?;
        check_device(dev)?;
        let (a, b) = compute_capability();
        unsafe {
            out(major, a)?;
            out(minor, b)
        }
    })
}

/// `CUdevprop` (the deprecated `cuDeviceGetProperties`).
#[repr(C)]
pub struct CUdevprop {
    pub max_threads_per_block: c_int,
    pub max_threads_dim: [c_int; 3],
    pub max_grid_size: [c_int; 3],
    pub shared_mem_per_block: c_int,
    pub total_constant_memory: c_int,
    pub simd_width: c_int,
    pub mem_pitch: c_int,
    pub regs_per_block: c_int,
    pub clock_rate: c_int,
    pub texture_align: c_int,
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetProperties(prop: *mut CUdevprop, dev: CUdevice) -> CUresult {
    entry("cuDeviceGetProperties", || {
        initialized()?;
        check_device(dev)?;
        let a = |n| attribute(n).unwrap_or(0);
        unsafe {
            out(
                prop,
                CUdevprop {
                    max_threads_per_block: a(1),
                    max_threads_dim: [a(2), a(3), a(4)],
                    max_grid_size: [a(5), a(6), a(7)],
                    shared_mem_per_block: a(8),
                    total_constant_memory: a(9),
                    simd_width: a(10),
                    mem_pitch: a(11),
                    regs_per_block: a(12),
                    clock_rate: a(13),
                    texture_align: a(14),
                },
            )
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetPCIBusId(
    id: *mut c_char,
    len: c_int,
    dev: CUdevice,
) -> CUresult {
    entry("cuDeviceGetPCIBusId", || {
        initialized()?;
        check_device(dev)?;
        unsafe { write_c_string(id, len, "0000:00:00.0") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetByPCIBusId(dev: *mut CUdevice, id: *const c_char) -> CUresult {
    entry("cuDeviceGetByPCIBusId", || {
        initialized()?;
        if id.is_null() {
            return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null PCI bus id"));
        }
        // SAFETY: a NUL-terminated string by the API's contract.
        let s = unsafe { std::ffi::CStr::from_ptr(id) }.to_string_lossy();
        if s.eq_ignore_ascii_case("0000:00:00.0") || s.eq_ignore_ascii_case("00:00.0") {
            unsafe { out(dev, 0) }
        } else {
            Err(Fail::new(
                CUDA_ERROR_INVALID_DEVICE,
                format!("no device at PCI bus id {s}"),
            ))
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceCanAccessPeer(
    can: *mut c_int,
    dev: CUdevice,
    peer: CUdevice,
) -> CUresult {
    entry("cuDeviceCanAccessPeer", || {
        initialized()?;
        let yes = crate::context::can_access_peer(dev, peer)?;
        unsafe { out(can, c_int::from(yes)) }
    })
}

/// `CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK`, the first `CUdevice_P2PAttribute`.
const P2P_ATTRIBUTE_FIRST: c_int = 1;
/// `CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED`, the last one (CUDA 13).
const P2P_ATTRIBUTE_LAST: c_int = 5;

/// `cuDeviceGetP2PAttribute` (CUDA driver API: Peer Context Memory Access): an attribute of
/// the link from `src` to `dst`. Errors, in the order checked (the documents give no order):
/// `CUDA_ERROR_INVALID_VALUE` for a null `value`; `CUDA_ERROR_INVALID_DEVICE` when either
/// device is not valid or both are the same device (which, with ptxjit's one device, every
/// pair of valid devices is); `CUDA_ERROR_INVALID_VALUE` for an attribute that is none of
/// `CUdevice_P2PAttribute`'s.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetP2PAttribute(
    value: *mut c_int,
    attrib: c_int,
    src: CUdevice,
    dst: CUdevice,
) -> CUresult {
    entry("cuDeviceGetP2PAttribute", || {
        initialized()?;
        if value.is_null() {
            return Err(Fail::new(CUDA_ERROR_INVALID_VALUE, "null value pointer"));
        }
        check_device(src)?;
        check_device(dst)?;
        if src == dst {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_DEVICE,
                format!("source and destination are the same device ({src}): a link joins two"),
            ));
        }
        if !(P2P_ATTRIBUTE_FIRST..=P2P_ATTRIBUTE_LAST).contains(&attrib) {
            return Err(Fail::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("{attrib} is no CUdevice_P2PAttribute (1 to 5)"),
            ));
        }
        // No two devices are linked here: no peer access, atomics or array access over it.
        unsafe { out(value, 0) }
    })
}
