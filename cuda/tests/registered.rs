//! Host memory registered with `cuMemHostRegister(CU_MEMHOSTREGISTER_DEVICEMAP)`: kernels
//! reach it through `cuMemHostGetDevicePointer`'s address, and see host writes made before
//! a launch; the host sees the kernel's writes once the launch returns; copies and memsets
//! through the device address act on the host memory; bytes a kernel does not write keep what
//! another host thread writes during the launch. Expected values are host computations.

use cuda::errors::*;
use cuda::launch::*;
use cuda::memory::*;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::time::Duration;

mod common;
use common::{arg, function, load, setup, AXPC_PTX as PTX};

const DEVICEMAP: u32 = 2;

/// Kernel `slow_half`: waits until `%globaltimer` reaches `until` (nanoseconds since the Unix
/// epoch), then thread `i < n / 2` of one CTA writes `x[i] = i + 7000`; the other half of `x`
/// is not written.
const SLOW_HALF_PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry slow_half(.param .u64 x, .param .u32 n, .param .u64 until)
{
    .reg .u32 %r<6>;
    .reg .u64 %rd<6>;
    .reg .pred %p;
    ld.param.u64 %rd2, [until];
wait:
    mov.u64 %rd3, %globaltimer;
    setp.lt.u64 %p, %rd3, %rd2;
    @%p bra wait;
    mov.u32 %r1, %tid.x;
    ld.param.u32 %r2, [n];
    shr.u32 %r2, %r2, 1;
    setp.ge.u32 %p, %r1, %r2;
    @%p ret;
    ld.param.u64 %rd4, [x];
    mul.wide.u32 %rd5, %r1, 4;
    add.u64 %rd4, %rd4, %rd5;
    add.u32 %r3, %r1, 7000;
    st.global.u32 [%rd4], %r3;
    ret;
}
"#;

#[test]
fn mapped_registered_memory() {
    setup();
    let f = function(load(&CString::new(PTX).unwrap()), "axpc");
    let n = 1000u32;
    let mut host: Vec<u32> = (0..n).collect();
    // From here on the memory is reached only through `hp` (the driver writes it too).
    let hp = host.as_mut_ptr().cast::<c_void>();
    let view = |i: usize, len: usize| unsafe {
        std::slice::from_raw_parts(hp.cast::<u32>().add(i), len).to_vec()
    };
    let bytes = n as usize * 4;
    unsafe {
        let mut dp = 0u64;
        assert_eq!(
            cuMemHostGetDevicePointer_v2(&mut dp, hp, 0),
            CUDA_ERROR_INVALID_VALUE,
            "not registered yet"
        );
        assert_eq!(cuMemHostRegister_v2(hp, bytes, DEVICEMAP), CUDA_SUCCESS);
        assert_eq!(
            cuMemHostRegister_v2(hp, 4, DEVICEMAP),
            CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
        );
        assert_eq!(cuMemHostGetDevicePointer_v2(&mut dp, hp, 0), CUDA_SUCCESS);
        let mut dp8 = 0u64;
        assert_eq!(
            cuMemHostGetDevicePointer_v2(&mut dp8, hp.cast::<u8>().add(8).cast(), 0),
            CUDA_SUCCESS
        );
        assert_eq!(dp8, dp + 8, "an interior pointer maps to the same offset");

        let launch = |x: u64, m: u32, c: u32| {
            let mut params = [arg(&x), arg(&m), arg(&c), arg(&n)];
            cuLaunchKernel(
                f,
                n.div_ceil(128),
                1,
                1,
                128,
                1,
                1,
                0,
                0,
                params.as_mut_ptr(),
                null_mut(),
            )
        };
        assert_eq!(launch(dp, 3, 1), CUDA_SUCCESS);
        let mut want: Vec<u32> = (0..n).map(|i| i * 3 + 1).collect();
        assert_eq!(
            view(0, n as usize),
            want,
            "the kernel's writes reach the host"
        );
        // A host write before the next launch is seen by it.
        *hp.cast::<u32>().add(5) = 100;
        want[5] = 100;
        assert_eq!(launch(dp, 2, 0), CUDA_SUCCESS);
        for v in &mut want {
            *v *= 2;
        }
        assert_eq!(view(0, n as usize), want);
        // Copies and memsets through the device address act on the host memory.
        let mut back = vec![0u32; n as usize];
        assert_eq!(
            cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), dp, bytes),
            CUDA_SUCCESS
        );
        assert_eq!(back, want);
        assert_eq!(cuMemsetD32_v2(dp + 4, 7, 2), CUDA_SUCCESS);
        assert_eq!(view(0, 4), [want[0], 7, 7, want[3]]);
        let src = [11u32, 12];
        assert_eq!(cuMemcpyHtoD_v2(dp8, src.as_ptr().cast(), 8), CUDA_SUCCESS);
        assert_eq!(view(2, 2), [11, 12]);

        // Another host thread writes the half the kernel leaves alone while the kernel runs
        // (it waits until 400 ms from now first): those writes stay, the kernel's half arrives.
        let slow = function(load(&CString::new(SLOW_HALF_PTX).unwrap()), "slow_half");
        let half = n as usize / 2;
        let started = AtomicBool::new(false);
        let addr = hp as usize;
        std::thread::scope(|scope| {
            scope.spawn(|| {
                while !started.load(SeqCst) {
                    std::thread::yield_now();
                }
                std::thread::sleep(Duration::from_millis(100));
                for i in half..n as usize {
                    // Inside the registered vector, which outlives the scope.
                    (addr as *mut u32).add(i).write_volatile(i as u32 + 9000);
                }
            });
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap();
            let until = (now + Duration::from_millis(400)).as_nanos() as u64;
            let mut params = [arg(&dp), arg(&n), arg(&until)];
            started.store(true, SeqCst);
            let r = cuLaunchKernel(
                slow,
                1,
                1,
                1,
                n.min(1024),
                1,
                1,
                0,
                0,
                params.as_mut_ptr(),
                null_mut(),
            );
            assert_eq!(r, CUDA_SUCCESS);
        });
        let got = view(0, n as usize);
        let want: Vec<u32> = (0..n)
            .map(|i| {
                if (i as usize) < half {
                    i + 7000
                } else {
                    i + 9000
                }
            })
            .collect();
        let lost = (half..n as usize).filter(|&i| got[i] != want[i]).count();
        assert_eq!(lost, 0, "host writes made during the launch lost");
        assert_eq!(got, want);

        assert_eq!(cuMemHostUnregister(hp), CUDA_SUCCESS);
        assert_eq!(
            cuMemHostGetDevicePointer_v2(&mut dp, hp, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuMemHostUnregister(hp),
            CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED
        );
    }
    drop(host);
}
