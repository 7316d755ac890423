//! Cooperative launches through the driver API: `cuLaunchCooperativeKernel` and
//! `cuLaunchKernelEx` with `CU_LAUNCH_ATTRIBUTE_COOPERATIVE` run NVRTC's
//! `cooperative_groups::this_grid().sync()` (ptx-tests/kernels/grid_sync), the largest
//! cooperative grid is max-active-blocks-per-SM × SM count CTAs and one more is
//! `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`, and a grid sync in a plain launch traps
//! (`CUDA_ERROR_LAUNCH_FAILED`, sticky: last). Expected values from host code. One test: the
//! driver's state is per process.

use cuda::device::*;
use cuda::errors::*;
use cuda::launch::*;
use cuda::memory::*;
use std::ffi::c_void;
use std::ptr::null_mut;

mod common;
use common::{arg, function, load, repo_file, setup};

const BLOCK: u32 = 64;
const ROUNDS: u32 = 5;

/// What grid_sync.cu leaves in `a`, `b` and `sums` for `grid` CTAs (host reference: the
/// stencil dst[i] = 3 src[i+1] + src[i-1] + r, indices modulo n, values modulo 2^32).
fn expected(input: &[u32], grid: usize) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let n = input.len();
    let (mut a, mut b) = (input.to_vec(), vec![0u32; n]);
    for r in 0..ROUNDS {
        let (src, dst) = if r & 1 == 1 {
            (&b, &mut a)
        } else {
            (&a, &mut b)
        };
        let next: Vec<u32> = (0..n)
            .map(|i| {
                src[(i + 1) % n]
                    .wrapping_mul(3)
                    .wrapping_add(src[(i + n - 1) % n])
                    .wrapping_add(r)
            })
            .collect();
        dst.copy_from_slice(&next);
    }
    let last = if ROUNDS & 1 == 1 { &b } else { &a };
    let block = BLOCK as usize;
    let mut sums: Vec<u32> = (0..grid)
        .map(|c| {
            last[c * block..(c + 1) * block]
                .iter()
                .fold(0u32, |s, &v| s.wrapping_add(v))
        })
        .collect();
    sums.push(sums.iter().fold(0u32, |s, &v| s.wrapping_add(v)));
    (a, b, sums)
}

/// Device buffers of one run: in, a, b, sums; and the input the host generated.
struct Run {
    ptrs: [u64; 4],
    grid: usize,
    input: Vec<u32>,
}

impl Run {
    fn new(grid: usize) -> Run {
        let n = grid * BLOCK as usize;
        let input: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2654435761) ^ 0x5bd1e995)
            .collect();
        let mut ptrs = [0u64; 4];
        for (p, bytes) in ptrs.iter_mut().zip([4 * n, 4 * n, 4 * n, 4 * (grid + 1)]) {
            assert_eq!(unsafe { cuMemAlloc_v2(p, bytes) }, CUDA_SUCCESS);
        }
        let r = unsafe { cuMemcpyHtoD_v2(ptrs[0], input.as_ptr().cast(), 4 * n) };
        assert_eq!(r, CUDA_SUCCESS);
        Run { ptrs, grid, input }
    }

    fn params(&self, rounds: &u32) -> [*mut c_void; 5] {
        let p = &self.ptrs;
        [arg(&p[0]), arg(&p[1]), arg(&p[2]), arg(&p[3]), arg(rounds)]
    }

    fn read(&self, p: u64, len: usize) -> Vec<u32> {
        let mut v = vec![0u32; len];
        let r = unsafe { cuMemcpyDtoH_v2(v.as_mut_ptr().cast(), p, 4 * len) };
        assert_eq!(r, CUDA_SUCCESS);
        v
    }

    fn check(&self, how: &str) {
        let n = self.grid * BLOCK as usize;
        let (a, b, sums) = expected(&self.input, self.grid);
        assert_eq!(self.read(self.ptrs[1], n), a, "{how}: a");
        assert_eq!(self.read(self.ptrs[2], n), b, "{how}: b");
        assert_eq!(self.read(self.ptrs[3], self.grid + 1), sums, "{how}: sums");
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        for p in self.ptrs {
            unsafe { cuMemFree_v2(p) };
        }
    }
}

#[test]
fn cooperative_launches_synchronise_the_grid() {
    setup();
    let f = function(
        load(&repo_file("ptx-tests/kernels/grid_sync/grid_sync.ptx")),
        "grid_sync",
    );
    unsafe {
        let mut coop = 0;
        assert_eq!(cuDeviceGetAttribute(&mut coop, 95, 0), CUDA_SUCCESS);
        assert_eq!(coop, 1, "CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH");
        let (mut per_sm, mut sms) = (0, 0);
        let r = cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut per_sm, f, BLOCK as i32, 0);
        assert_eq!(r, CUDA_SUCCESS);
        assert_eq!(cuDeviceGetAttribute(&mut sms, 16, 0), CUDA_SUCCESS);
        // 64 threads: 2 warps, so 2048 / 64 = 32 CTAs per SM, CTAs per SM capped at 32.
        assert_eq!(per_sm, 32);
        let max = (per_sm * sms) as u32;
        let rounds = ROUNDS;

        // The largest cooperative grid, with cuLaunchCooperativeKernel.
        let run = Run::new(max as usize);
        let mut params = run.params(&rounds);
        let r = cuLaunchCooperativeKernel(f, max, 1, 1, BLOCK, 1, 1, 0, 0, params.as_mut_ptr());
        assert_eq!(r, CUDA_SUCCESS);
        run.check("cuLaunchCooperativeKernel");

        // One CTA more: too large for every CTA to be resident.
        let r = cuLaunchCooperativeKernel(f, max + 1, 1, 1, BLOCK, 1, 1, 0, 0, params.as_mut_ptr());
        assert_eq!(r, CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
        drop(run);

        // cuLaunchKernelEx with the cooperative attribute (and one it ignores).
        let run = Run::new(7);
        let mut params = run.params(&rounds);
        let mut attrs = [
            CUlaunchAttribute {
                id: 1,
                pad: [0; 4],
                value: [0; 8],
            },
            CUlaunchAttribute {
                id: 2,
                pad: [0; 4],
                value: [1, 0, 0, 0, 0, 0, 0, 0],
            },
        ];
        let config = CUlaunchConfig {
            grid: [7, 1, 1],
            block: [BLOCK, 1, 1],
            shared_mem_bytes: 0,
            stream: 0,
            attrs: attrs.as_mut_ptr().cast(),
            num_attrs: 2,
        };
        let r = cuLaunchKernelEx(&config, f, params.as_mut_ptr(), null_mut());
        assert_eq!(r, CUDA_SUCCESS);
        run.check("cuLaunchKernelEx");

        // The same launch, not cooperative: the grid workspace is null and the sync traps.
        let r = cuLaunchKernel(
            f,
            7,
            1,
            1,
            BLOCK,
            1,
            1,
            0,
            0,
            params.as_mut_ptr(),
            null_mut(),
        );
        assert_eq!(
            r, CUDA_SUCCESS,
            "the launch succeeds; the fault comes with the sync"
        );
        assert_eq!(cuda::context::cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
        std::mem::forget(run); // the context's error is sticky now
    }
}
