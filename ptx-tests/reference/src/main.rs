//! Host reference for the real-kernel corpus in `ptx-tests/kernels/`.
//!
//! Generates deterministic inputs (splitmix64, seeded per kernel) and computes the expected
//! outputs on the host, independently of ptxjit, then writes the `.npy` files next to each case.
//!
//! Re-run (from the repository root):
//!
//! ```text
//! CARGO_TARGET_DIR=/tmp/tgt-kernels cargo run --release \
//!     --manifest-path ptx-tests/reference/Cargo.toml -- ptx-tests/kernels
//! ```
//!
//! Floating point mirrors the NVRTC-generated PTX operation by operation: `f32::mul_add` exactly
//! where the PTX has `fma.rn.f32`, plain `*`, `+`, `-` where it has `mul.f32`, `add.f32`,
//! `sub.f32`, and reductions follow the kernel's tree / shuffle order exactly, so every
//! expectation is bit-exact. Sizes and scalar arguments here must agree with the case `.toml`s.

use std::path::{Path, PathBuf};

mod textures;

/// splitmix64 (Steele, Lea, Flood 2014).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed)
    }
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [-1, 1), exactly representable (24 random bits).
    fn f32_pm1(&mut self) -> f32 {
        let m = (self.next_u64() >> 40) as f32; // [0, 2^24)
        m * (2.0 / 16_777_216.0) - 1.0 // exact: power-of-two scale, then exact subtraction
    }
    fn f32_vec(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.f32_pm1()).collect()
    }
}

fn write<T: npyz::AutoSerialize + Copy>(dir: &Path, name: &str, data: &[T]) {
    let path = dir.join(name);
    npyz::to_file_1d(&path, data.iter().copied())
        .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    println!("  wrote {} ({} elements)", path.display(), data.len());
}

fn vector_add(dir: &Path) {
    const N: usize = 100_000;
    let mut rng = Rng::new(1);
    let a = rng.f32_vec(N);
    let b = rng.f32_vec(N);
    // PTX: add.f32
    let c: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    write(dir, "a.npy", &a);
    write(dir, "b.npy", &b);
    write(dir, "c_expected.npy", &c);
}

fn saxpy(dir: &Path) {
    const N: usize = 100_000;
    const A: f32 = 2.5;
    let mut rng = Rng::new(2);
    let x = rng.f32_vec(N);
    let y = rng.f32_vec(N);
    // PTX: fma.rn.f32 %f4, x[i], a, y[i]
    let out: Vec<f32> = x.iter().zip(&y).map(|(&x, &y)| x.mul_add(A, y)).collect();
    write(dir, "x.npy", &x);
    write(dir, "y_in.npy", &y);
    write(dir, "y_expected.npy", &out);
}

/// Both sgemm kernels accumulate acc = fma(A[row,k], B[k,col], acc) for k = 0..K in order,
/// starting from acc = 0.0 (the naive kernel's unroll-by-4 keeps the same order).
fn sgemm_ref(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; m * n];
    for row in 0..m {
        for col in 0..n {
            let mut acc = 0.0f32;
            for kk in 0..k {
                acc = a[row * k + kk].mul_add(b[kk * n + col], acc);
            }
            c[row * n + col] = acc;
        }
    }
    c
}

fn sgemm_naive(dir: &Path) {
    // Not multiples of 16: exercises the row/col guard. grid = [9, 8] of 16x16.
    const M: usize = 124;
    const N: usize = 140;
    const K: usize = 67;
    let mut rng = Rng::new(3);
    let a = rng.f32_vec(M * K);
    let b = rng.f32_vec(K * N);
    write(dir, "A.npy", &a);
    write(dir, "B.npy", &b);
    write(dir, "C_expected.npy", &sgemm_ref(&a, &b, M, N, K));
}

fn sgemm_tiled(dir: &Path) {
    // Multiples of 16, all different. grid = [10, 8] of 16x16.
    const M: usize = 128;
    const N: usize = 160;
    const K: usize = 96;
    let mut rng = Rng::new(4);
    let a = rng.f32_vec(M * K);
    let b = rng.f32_vec(K * N);
    write(dir, "A.npy", &a);
    write(dir, "B.npy", &b);
    write(dir, "C_expected.npy", &sgemm_ref(&a, &b, M, N, K));
}

fn reduce_shared(dir: &Path) {
    const N: usize = 100_000;
    const BLOCK: usize = 256;
    const GRID: usize = (N + 2 * BLOCK - 1) / (2 * BLOCK); // 196
    let mut rng = Rng::new(5);
    let input = rng.f32_vec(N);
    let mut out = vec![0.0f32; GRID];
    for (blk, o) in out.iter_mut().enumerate() {
        let mut s = vec![0.0f32; BLOCK];
        for (tid, st) in s.iter_mut().enumerate() {
            let i = blk * 2 * BLOCK + tid;
            let mut v = 0.0f32;
            if i < N {
                v = input[i];
            }
            if i + BLOCK < N {
                v += input[i + BLOCK]; // add.f32 v, v, in[i+bd]
            }
            *st = v;
        }
        let mut stride = BLOCK / 2;
        while stride > 0 {
            for tid in 0..stride {
                s[tid] = s[tid + stride] + s[tid]; // add.f32 %f9, sdata[tid+s], sdata[tid]
            }
            stride >>= 1;
        }
        *o = s[0];
    }
    write(dir, "in.npy", &input);
    write(dir, "out_expected.npy", &out);
}

/// One warp's `for offset in 16,8,4,2,1: v += shfl.down(v, offset)` on all 32 lanes
/// (a lane whose source lane is out of range gets its own value, as shfl.sync.down with c = 31).
fn warp_sum(mut v: [f32; 32]) -> [f32; 32] {
    let mut offset = 16;
    while offset > 0 {
        let src = v;
        for lane in 0..32 {
            let other = if lane + offset < 32 { src[lane + offset] } else { src[lane] };
            v[lane] = src[lane] + other;
        }
        offset >>= 1;
    }
    v
}

fn reduce_shfl(dir: &Path) {
    const N: usize = 200_000;
    const BLOCK: usize = 256;
    const GRID: usize = 96;
    let mut rng = Rng::new(6);
    let input = rng.f32_vec(N);
    let stride = GRID * BLOCK;
    let mut out = vec![0.0f32; GRID];
    for (blk, o) in out.iter_mut().enumerate() {
        let mut warp_sums = [0.0f32; 32];
        for w in 0..BLOCK / 32 {
            let mut lanes = [0.0f32; 32];
            for (lane, l) in lanes.iter_mut().enumerate() {
                let tid = w * 32 + lane;
                let mut v = 0.0f32;
                let mut i = blk * BLOCK + tid;
                while i < N {
                    v += input[i];
                    i += stride;
                }
                *l = v;
            }
            warp_sums[w] = warp_sum(lanes)[0];
        }
        let nwarps = BLOCK.div_ceil(32);
        let mut lanes = [0.0f32; 32];
        lanes[..nwarps].copy_from_slice(&warp_sums[..nwarps]);
        *o = warp_sum(lanes)[0];
    }
    write(dir, "in.npy", &input);
    write(dir, "out_expected.npy", &out);
}

/// Skewed bytes: a quarter uniform, the rest clustered around 100 (hot bins, atomic contention).
fn histogram_input(seed: u64, n: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let r = rng.next_u64();
            if r & 3 == 0 {
                (r >> 8) as u8
            } else {
                let s: u32 = (0..4).map(|j| ((r >> (8 + 8 * j)) & 31) as u32).sum(); // 0..=124
                (s / 2 + 69) as u8 // 69..=131, peaked at ~100
            }
        })
        .collect()
}

fn histogram(dir: &Path, seed: u64, n: usize) {
    let data = histogram_input(seed, n);
    let mut bins = vec![0u32; 256];
    for &d in &data {
        bins[d as usize] += 1;
    }
    write(dir, "data.npy", &data);
    write(dir, "bins_expected.npy", &bins);
}

fn mandelbrot(dir: &Path) {
    const W: usize = 250;
    const H: usize = 190;
    const X0: f32 = -2.0;
    const Y0: f32 = -1.11328125;
    const DX: f32 = 0.01171875;
    const DY: f32 = 0.01171875;
    const MAX_ITER: i32 = 256;
    let mut out = vec![0u32; W * H];
    for py in 0..H {
        for px in 0..W {
            // cvt.rn.f32.s32 then fma.rn.f32 %f1, px, dx, x0 (same for y)
            let cr = (px as i32 as f32).mul_add(DX, X0);
            let ci = (py as i32 as f32).mul_add(DY, Y0);
            let (mut zr, mut zi) = (0.0f32, 0.0f32);
            let mut it = 0;
            while it < MAX_ITER {
                let zi2 = zi * zi; // mul.f32
                let zr2 = zr * zr; // mul.f32
                if zr2 + zi2 > 4.0 {
                    // add.f32, setp.gt.f32
                    break;
                }
                let t = cr + (zr2 - zi2); // sub.f32, add.f32
                zi = (zr + zr).mul_add(zi, ci); // add.f32 (2*zr), fma.rn.f32
                zr = t;
                it += 1;
            }
            out[py * W + px] = it as u32;
        }
    }
    write(dir, "out_expected.npy", &out);
}

fn main() {
    let root: PathBuf = std::env::args().nth(1).unwrap_or_else(|| "ptx-tests/kernels".into()).into();
    let run = |name: &str, f: &dyn Fn(&Path)| {
        let dir = root.join(name);
        assert!(dir.is_dir(), "{} is not a directory (pass the kernels dir)", dir.display());
        println!("{name}");
        f(&dir);
    };
    run("vector_add", &vector_add);
    run("saxpy", &saxpy);
    run("sgemm_naive", &sgemm_naive);
    run("sgemm_tiled", &sgemm_tiled);
    run("reduce_shared", &reduce_shared);
    run("reduce_shfl", &reduce_shfl);
    run("histogram_global", &|d| histogram(d, 7, 200_000));
    run("histogram_shared", &|d| histogram(d, 8, 262_144));
    run("mandelbrot", &mandelbrot);
    textures::run_all(&root);
}
