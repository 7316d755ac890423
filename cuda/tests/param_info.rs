//! `cuFuncGetParamCount`/`cuFuncGetParamInfo` and their `cuKernel*` twins: the offsets and
//! sizes of a kernel's `.param` entries. Expected values follow the PTX ISA's layout of the
//! parameter space (each entry at its alignment: `.align` where given, else its type's size),
//! worked out by hand for the signature below.

use cuda::errors::*;
use cuda::module::*;
use std::ffi::CString;
use std::ptr::null_mut;

mod common;
use common::{function, load, setup};

const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 x, .param .u32 m, .param .align 8 .b8 s[12], .param .u16 h, .param .f64 d)
{
    ret;
}
"#;

#[test]
fn offsets_and_sizes_of_kernel_parameters() {
    setup();
    let f = function(load(&CString::new(PTX).unwrap()), "k");
    // x: 0 (8 bytes); m: 8 (4); s: aligned to 8 → 16 (12); h: 28 (2); d: aligned to 8 → 32 (8).
    let want = [(0usize, 8usize), (8, 4), (16, 12), (28, 2), (32, 8)];
    unsafe {
        let mut n = 0usize;
        assert_eq!(cuFuncGetParamCount(f, &mut n), CUDA_SUCCESS);
        assert_eq!(n, want.len());
        assert_eq!(cuKernelGetParamCount(f, &mut n), CUDA_SUCCESS);
        assert_eq!(n, want.len());
        for (i, &(o, s)) in want.iter().enumerate() {
            let (mut off, mut size) = (99usize, 99usize);
            assert_eq!(cuFuncGetParamInfo(f, i, &mut off, &mut size), CUDA_SUCCESS);
            assert_eq!((off, size), (o, s), "parameter {i}");
            off = 99;
            // The size is optional.
            assert_eq!(
                cuKernelGetParamInfo(f, i, &mut off, null_mut()),
                CUDA_SUCCESS
            );
            assert_eq!(off, o);
        }
        let mut off = 0usize;
        assert_eq!(
            cuFuncGetParamInfo(f, 5, &mut off, null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuFuncGetParamInfo(f, 0, null_mut(), null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuFuncGetParamCount(f, null_mut()), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(
            cuFuncGetParamCount(0xdead, &mut n),
            CUDA_ERROR_INVALID_HANDLE
        );
    }
}
