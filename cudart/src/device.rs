//! Device management (CUDA Runtime API: Device Management): the driver's one device, its
//! `cudaDeviceProp` filled from the driver's attributes.

use crate::errors::*;
use crate::{cu, exports, Fail};
use std::ffi::{c_char, c_int, c_uint};

exports! { cudaGetDeviceCount => fn(count: *mut c_int) {
    let mut n = 0;
    if let Err(e) = cu!(cuDeviceGetCount(&mut n)) {
        // No driver: no devices, as NVIDIA's runtime answers.
        let _ = unsafe { crate::out(count, 0) };
        return Err(e);
    }
    unsafe { crate::out(count, n) }
}}

exports! { cudaDeviceGetAttribute => fn(value: *mut c_int, attr: c_int, dev: c_int) {
    // cudaDeviceAttr and CUdevice_attribute share their values.
    cu!(cuDeviceGetAttribute(value, attr, dev))
}}

/// `struct cudaDeviceProp` of CUDA 13 (driver_types.h; 1008 bytes).
#[repr(C)]
pub struct DeviceProp {
    pub name: [c_char; 256],
    pub uuid: [u8; 16],
    pub luid: [c_char; 8],
    pub luid_device_node_mask: c_uint,
    pub total_global_mem: usize,
    pub shared_mem_per_block: usize,
    pub regs_per_block: c_int,
    pub warp_size: c_int,
    pub mem_pitch: usize,
    pub max_threads_per_block: c_int,
    pub max_threads_dim: [c_int; 3],
    pub max_grid_size: [c_int; 3],
    pub total_const_mem: usize,
    pub major: c_int,
    pub minor: c_int,
    pub texture_alignment: usize,
    pub texture_pitch_alignment: usize,
    pub multi_processor_count: c_int,
    pub integrated: c_int,
    pub can_map_host_memory: c_int,
    pub max_texture_1d: c_int,
    pub max_texture_1d_mipmap: c_int,
    pub max_texture_2d: [c_int; 2],
    pub max_texture_2d_mipmap: [c_int; 2],
    pub max_texture_2d_linear: [c_int; 3],
    pub max_texture_2d_gather: [c_int; 2],
    pub max_texture_3d: [c_int; 3],
    pub max_texture_3d_alt: [c_int; 3],
    pub max_texture_cubemap: c_int,
    pub max_texture_1d_layered: [c_int; 2],
    pub max_texture_2d_layered: [c_int; 3],
    pub max_texture_cubemap_layered: [c_int; 2],
    pub max_surface_1d: c_int,
    pub max_surface_2d: [c_int; 2],
    pub max_surface_3d: [c_int; 3],
    pub max_surface_1d_layered: [c_int; 2],
    pub max_surface_2d_layered: [c_int; 3],
    pub max_surface_cubemap: c_int,
    pub max_surface_cubemap_layered: [c_int; 2],
    pub surface_alignment: usize,
    /// From `concurrentKernels` to `hostNumaMultinodeIpcSupported` (49 ints), in the order
    /// of [`INT_FIELDS`] (the header's order); ints and unsigned ints alike.
    pub ints_a: [c_int; 15],
    pub shared_mem_per_multiprocessor: usize,
    pub ints_b: [c_int; 10],
    pub shared_mem_per_block_optin: usize,
    pub ints_c: [c_int; 4],
    pub reserved_shared_mem_per_block: usize,
    pub ints_d: [c_int; 20],
    pub reserved: [c_int; 56],
}

/// The `cudaDevAttr` value of each int field after `surfaceAlignment`, in header order, split
/// where a `size_t` field interrupts them; 0 for a field no attribute gives (left 0).
const INTS_A: [c_int; 15] = [
    31,  // concurrentKernels
    32,  // ECCEnabled
    33,  // pciBusID
    34,  // pciDeviceID
    50,  // pciDomainID
    35,  // tccDriver
    40,  // asyncEngineCount
    41,  // unifiedAddressing
    37,  // memoryBusWidth
    38,  // l2CacheSize
    108, // persistingL2CacheMaxSize
    39,  // maxThreadsPerMultiProcessor
    78,  // streamPrioritiesSupported
    79,  // globalL1CacheSupported
    80,  // localL1CacheSupported
];
const INTS_B: [c_int; 10] = [
    82, // regsPerMultiprocessor
    83, // managedMemory
    84, // isMultiGpuBoard
    85, // multiGpuBoardGroupID
    86, // hostNativeAtomicSupported
    88, // pageableMemoryAccess
    89, // concurrentManagedAccess
    90, // computePreemptionSupported
    91, // canUseHostPointerForRegisteredMem
    95, // cooperativeLaunch
];
const INTS_C: [c_int; 4] = [
    100, // pageableMemoryAccessUsesHostPageTables
    101, // directManagedMemAccessFromHost
    106, // maxBlocksPerMultiProcessor
    109, // accessPolicyMaxWindowSize
];
const INTS_D: [c_int; 20] = [
    99,  // hostRegisterSupported
    112, // sparseCudaArraySupported
    113, // hostRegisterReadOnlySupported
    114, // timelineSemaphoreInteropSupported
    115, // memoryPoolsSupported
    116, // gpuDirectRDMASupported
    117, // gpuDirectRDMAFlushWritesOptions
    118, // gpuDirectRDMAWritesOrdering
    119, // memoryPoolSupportedHandleTypes
    121, // deferredMappingCudaArraySupported
    125, // ipcEventSupported
    120, // clusterLaunch
    0,   // unifiedFunctionPointers
    130, // deviceNumaConfig
    131, // deviceNumaId
    133, // mpsEnabled
    134, // hostNumaId
    139, // gpuPciDeviceID
    140, // gpuPciSubsystemID
    143, // hostNumaMultinodeIpcSupported
];

fn attr(a: c_int, dev: c_int) -> Result<c_int, Fail> {
    if a == 0 {
        return Ok(0);
    }
    let mut v = 0;
    match cu!(cuDeviceGetAttribute(&mut v, a, dev)) {
        Ok(()) => Ok(v),
        // An attribute the driver does not know (a newer one) reads as 0, not a failure.
        Err(e) if e.code == cudaErrorInvalidValue => Ok(0),
        Err(e) => Err(e),
    }
}

fn fill<const N: usize>(ids: &[c_int; N], dev: c_int) -> Result<[c_int; N], Fail> {
    let mut out = [0; N];
    for (o, &a) in out.iter_mut().zip(ids) {
        *o = attr(a, dev)?;
    }
    Ok(out)
}

/// The properties of device `dev`, from the driver's name, UUID, memory and attributes.
pub fn properties(dev: c_int) -> Result<DeviceProp, Fail> {
    let mut name = [0 as c_char; 256];
    cu!(cuDeviceGetName(name.as_mut_ptr(), 256, dev))?;
    let mut uuid = [0u8; 16];
    cu!(cuDeviceGetUuid_v2(&mut uuid, dev))?;
    let mut total = 0usize;
    cu!(cuDeviceTotalMem_v2(&mut total, dev))?;
    let a = |id| attr(id, dev);
    let ints_d = fill(&INTS_D, dev)?;
    let mut p = DeviceProp {
        name,
        uuid,
        luid: [0; 8],
        luid_device_node_mask: 0,
        total_global_mem: total,
        shared_mem_per_block: a(8)? as usize,
        regs_per_block: a(12)?,
        warp_size: a(10)?,
        mem_pitch: a(11)? as usize,
        max_threads_per_block: a(1)?,
        max_threads_dim: [a(2)?, a(3)?, a(4)?],
        max_grid_size: [a(5)?, a(6)?, a(7)?],
        total_const_mem: a(9)? as usize,
        major: a(75)?,
        minor: a(76)?,
        texture_alignment: a(14)? as usize,
        texture_pitch_alignment: a(51)? as usize,
        multi_processor_count: a(16)?,
        integrated: a(18)?,
        can_map_host_memory: a(19)?,
        max_texture_1d: a(21)?,
        max_texture_1d_mipmap: a(77)?,
        max_texture_2d: [a(22)?, a(23)?],
        max_texture_2d_mipmap: [a(73)?, a(74)?],
        max_texture_2d_linear: [a(70)?, a(71)?, a(72)?],
        max_texture_2d_gather: [a(45)?, a(46)?],
        max_texture_3d: [a(24)?, a(25)?, a(26)?],
        max_texture_3d_alt: [a(47)?, a(48)?, a(49)?],
        max_texture_cubemap: a(52)?,
        max_texture_1d_layered: [a(42)?, a(43)?],
        max_texture_2d_layered: [a(27)?, a(28)?, a(29)?],
        max_texture_cubemap_layered: [a(53)?, a(54)?],
        max_surface_1d: a(55)?,
        max_surface_2d: [a(56)?, a(57)?],
        max_surface_3d: [a(58)?, a(59)?, a(60)?],
        max_surface_1d_layered: [a(61)?, a(62)?],
        max_surface_2d_layered: [a(63)?, a(64)?, a(65)?],
        max_surface_cubemap: a(66)?,
        max_surface_cubemap_layered: [a(67)?, a(68)?],
        surface_alignment: a(30)? as usize,
        ints_a: fill(&INTS_A, dev)?,
        shared_mem_per_multiprocessor: a(81)? as usize,
        ints_b: fill(&INTS_B, dev)?,
        shared_mem_per_block_optin: a(97)? as usize,
        ints_c: fill(&INTS_C, dev)?,
        reserved_shared_mem_per_block: a(111)? as usize,
        ints_d,
        reserved: [0; 56],
    };
    p.name[255] = 0;
    Ok(p)
}

exports! { cudaGetDeviceProperties => fn(prop: *mut DeviceProp, dev: c_int) {
    let p = properties(dev)?;
    unsafe { crate::out(prop, p) }
}}

#[cfg(test)]
mod tests {
    use super::DeviceProp;
    use std::mem::{offset_of, size_of};

    /// Sizes and offsets as a C compiler lays out `struct cudaDeviceProp` from CUDA 13.5's
    /// driver_types.h (`sizeof`, `offsetof` printed by a C program including the header).
    #[test]
    fn device_prop_layout_is_cuda_13s() {
        assert_eq!(size_of::<DeviceProp>(), 1008);
        assert_eq!(offset_of!(DeviceProp, total_global_mem), 288);
        assert_eq!(offset_of!(DeviceProp, multi_processor_count), 384);
        // l2CacheSize is ints_a[9].
        assert_eq!(offset_of!(DeviceProp, ints_a) + 9 * 4, 596);
        // hostNumaMultinodeIpcSupported is ints_d[19].
        assert_eq!(offset_of!(DeviceProp, ints_d) + 19 * 4, 780);
        assert_eq!(offset_of!(DeviceProp, reserved), 784);
    }
}
