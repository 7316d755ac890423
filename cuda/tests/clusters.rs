//! Thread block clusters through the driver API at compute capability 9.0: the required
//! cluster shape and the non-portable size set with `cuFuncSetAttribute`, what
//! `cuFuncGetAttribute` reports, and `CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH`. The expected ranks
//! come from the CUDA programming guide's cluster numbering: a 1-D cluster of width `w`
//! holds CTAs `w*k .. w*k+w-1`, whose `%cluster_ctarank` is `ctaid.x % w` (PTX ISA §10.14).
//! (This binary sets `PTXJIT_CC=9.0`; compute capability 8.0 is checked in driver_edges.)

use cuda::device::*;
use cuda::errors::*;
use cuda::launch::*;
use cuda::memory::*;
use cuda::module::*;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

mod common;
use common::{arg, function, load, setup};

const PTX: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry ranks(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %cluster_ctarank;
    mov.u32 %r3, %cluster_nctarank;
    mov.u32 %r4, %tid.x;
    setp.ne.u32 %p1, %r4, 0;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r1, 8;
    add.u64 %rd3, %rd1, %rd2;
    st.global.v2.u32 [%rd3], {%r2, %r3};
DONE:
    ret;
}
.visible .entry fixed(.param .u64 out) .reqnctapercluster 2, 1, 1
{
    ret;
}
.visible .entry must(.param .u64 out) .explicitcluster
{
    ret;
}
"#;

/// Sets `PTXJIT_CC=9.0` once, before any test of this binary uses the driver.
fn setup90() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::env::set_var("PTXJIT_CC", "9.0"));
    setup();
}

fn module() -> u64 {
    load(&CString::new(PTX).unwrap())
}

fn get(f: u64, attrib: i32) -> i32 {
    let mut v = -7;
    assert_eq!(
        unsafe { cuFuncGetAttribute(&mut v, attrib, f) },
        CUDA_SUCCESS
    );
    v
}

fn set(f: u64, attrib: i32, value: i32) -> CUresult {
    unsafe { cuFuncSetAttribute(f, attrib, value) }
}

/// Launches `ranks` on `grid` CTAs of 32 threads with `cuLaunchKernel`; on success, each
/// CTA's (cluster rank, CTAs in its cluster).
fn run_ranks(f: u64, grid: u32) -> Result<Vec<[u32; 2]>, CUresult> {
    unsafe {
        let mut d = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut d, 8 * grid as usize), CUDA_SUCCESS);
        let mut params = [arg(&d)];
        let r = cuLaunchKernel(
            f,
            grid,
            1,
            1,
            32,
            1,
            1,
            0,
            0,
            params.as_mut_ptr(),
            null_mut(),
        );
        if r != CUDA_SUCCESS {
            return Err(r);
        }
        let mut host = vec![[0u32; 2]; grid as usize];
        let r = cuMemcpyDtoH_v2(host.as_mut_ptr().cast::<c_void>(), d, 8 * grid as usize);
        assert_eq!(r, CUDA_SUCCESS);
        Ok(host)
    }
}

/// The host reference: 1-D clusters of `w` CTAs.
fn expected(grid: u32, w: u32) -> Vec<[u32; 2]> {
    (0..grid).map(|i| [i % w, w]).collect()
}

#[test]
fn cluster_launch_is_reported_at_9_0() {
    setup90();
    let mut v = -1;
    // CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH = 120; COMPUTE_CAPABILITY_MAJOR = 75.
    assert_eq!(
        unsafe { cuDeviceGetAttribute(&mut v, 120, 0) },
        CUDA_SUCCESS
    );
    assert_eq!(v, 1);
    assert_eq!(unsafe { cuDeviceGetAttribute(&mut v, 75, 0) }, CUDA_SUCCESS);
    assert_eq!(v, 9);
}

#[test]
fn required_cluster_width_set_at_run_time_shapes_plain_launches() {
    setup90();
    let f = function(module(), "ranks");
    // Unset: clusters of one CTA.
    assert_eq!(run_ranks(f, 8).unwrap(), expected(8, 1));
    // CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 11: height and depth left 0 count as 1.
    assert_eq!(set(f, 11, 2), CUDA_SUCCESS);
    assert_eq!([get(f, 11), get(f, 12), get(f, 13)], [2, 0, 0]);
    assert_eq!(run_ranks(f, 8).unwrap(), expected(8, 2));
    assert_eq!(set(f, 11, 4), CUDA_SUCCESS);
    assert_eq!(run_ranks(f, 8).unwrap(), expected(8, 4));
    // A grid that is not a whole number of clusters is refused, as NVIDIA's driver refuses
    // it: CUDA_ERROR_INVALID_CLUSTER_SIZE.
    assert_eq!(run_ranks(f, 6), Err(CUDA_ERROR_INVALID_CLUSTER_SIZE));
    // All three 0 again: no required shape.
    assert_eq!(set(f, 11, 0), CUDA_SUCCESS);
    assert_eq!(run_ranks(f, 6).unwrap(), expected(6, 1));
}

#[test]
fn non_portable_cluster_size_allows_sixteen() {
    setup90();
    let f = function(module(), "ranks");
    assert_eq!(get(f, 14), 0);
    assert_eq!(set(f, 11, 16), CUDA_SUCCESS);
    // 16 CTAs exceed the portable limit of 8.
    assert_eq!(run_ranks(f, 16), Err(CUDA_ERROR_INVALID_CLUSTER_SIZE));
    // CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14.
    assert_eq!(set(f, 14, 1), CUDA_SUCCESS);
    assert_eq!(get(f, 14), 1);
    assert_eq!(run_ranks(f, 32).unwrap(), expected(32, 16));
    // 32 is over the non-portable limit too.
    assert_eq!(set(f, 11, 32), CUDA_SUCCESS);
    assert_eq!(run_ranks(f, 32), Err(CUDA_ERROR_INVALID_CLUSTER_SIZE));
}

#[test]
fn launch_attribute_must_agree_with_the_required_shape() {
    setup90();
    let f = function(module(), "ranks");
    assert_eq!(set(f, 11, 2), CUDA_SUCCESS);
    unsafe {
        let mut d = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut d, 8 * 8), CUDA_SUCCESS);
        let mut params = [arg(&d)];
        let mut launch = |x: u32| {
            // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4: clusterDim {x, y, z}.
            let mut attrs = [CUlaunchAttribute {
                id: 4,
                pad: [0; 4],
                value: [u64::from(x) | (1 << 32), 1, 0, 0, 0, 0, 0, 0],
            }];
            let config = CUlaunchConfig {
                grid: [8, 1, 1],
                block: [32, 1, 1],
                shared_mem_bytes: 0,
                stream: 0,
                attrs: attrs.as_mut_ptr().cast(),
                num_attrs: 1,
            };
            cuLaunchKernelEx(&config, f, params.as_mut_ptr(), null_mut())
        };
        assert_eq!(launch(2), CUDA_SUCCESS);
        assert_eq!(launch(4), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    }
}

#[test]
fn read_only_and_invalid_values_are_refused() {
    setup90();
    let m = module();
    let f = function(m, "ranks");
    // 10 CLUSTER_SIZE_MUST_BE_SET is read-only.
    assert_eq!(set(f, 10, 1), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(set(f, 11, -1), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(set(f, 13, -2), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(set(f, 14, 2), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(set(f, 15, 3), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(set(f, 9, 101), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(set(f, 9, -2), CUDA_ERROR_INVALID_VALUE);
    // Properties of the compiled kernel and unknown attributes.
    assert_eq!(set(f, 0, 64), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(set(f, 16, 0), CUDA_ERROR_INVALID_VALUE);
    // None of the refused calls changed anything.
    assert_eq!(
        [
            get(f, 9),
            get(f, 10),
            get(f, 11),
            get(f, 12),
            get(f, 13),
            get(f, 14),
            get(f, 15)
        ],
        [-1, 0, 0, 0, 0, 0, 0]
    );
    // The hints are kept and reported.
    assert_eq!(set(f, 9, 50), CUDA_SUCCESS);
    assert_eq!(set(f, 15, 1), CUDA_SUCCESS);
    assert_eq!([get(f, 9), get(f, 15)], [50, 1]);
}

#[test]
fn kernel_directives_are_reported_and_fixed() {
    setup90();
    let m = module();
    let fixed = function(m, "fixed");
    assert_eq!(
        [
            get(fixed, 10),
            get(fixed, 11),
            get(fixed, 12),
            get(fixed, 13)
        ],
        [0, 2, 1, 1]
    );
    // A shape set at compile time cannot be set at run time (driver API: NOT_PERMITTED).
    assert_eq!(set(fixed, 11, 4), CUDA_ERROR_NOT_PERMITTED);
    assert_eq!(get(fixed, 11), 2);
    let must = function(m, "must");
    assert_eq!(get(must, 10), 1);
    // .explicitcluster: a launch needs a shape; the required width gives one.
    let d = 0u64;
    let mut params = [arg(&d)];
    let r = unsafe {
        cuLaunchKernel(
            must,
            2,
            1,
            1,
            32,
            1,
            1,
            0,
            0,
            params.as_mut_ptr(),
            null_mut(),
        )
    };
    assert_eq!(r, CUDA_ERROR_INVALID_VALUE);
    assert_eq!(set(must, 11, 2), CUDA_SUCCESS);
    let r = unsafe {
        cuLaunchKernel(
            must,
            2,
            1,
            1,
            32,
            1,
            1,
            0,
            0,
            params.as_mut_ptr(),
            null_mut(),
        )
    };
    assert_eq!(r, CUDA_SUCCESS);
}
