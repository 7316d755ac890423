//! The typed host API: `y = a * x + y` with the bundled saxpy kernel
//! (`ptx-tests/kernels/saxpy`, NVRTC's PTX of `saxpy.cu`), typed device buffers and the launch
//! builder, on both engines; the result is checked against the same computation on the host.
//!
//! ```sh
//! cargo run --release --no-default-features --example typed_saxpy
//! ```

use ptxjit::host::{Context, DeviceBuffer, Engine};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/ptx-tests/kernels/saxpy/saxpy.ptx"
    );
    let ptx = std::fs::read_to_string(path)?;
    let n = 100_000usize;
    let a = 2.5f32;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 77) as f32 - 30.0).collect();
    // NVRTC contracts `a * x[i] + y[i]` into one fma.rn.f32: the host's mul_add is the same
    // single rounding, so the results agree bit for bit.
    let want: Vec<f32> = x.iter().zip(&y).map(|(x, y)| a.mul_add(*x, *y)).collect();

    for engine in [Engine::Jit, Engine::Interp] {
        let mut ctx = Context::new();
        let module = ctx.load_module(&ptx, "saxpy.ptx", engine)?;
        let kernel = module.kernel("saxpy")?;
        let x_buf = DeviceBuffer::from_slice(&ctx, &x)?;
        let mut y_buf = DeviceBuffer::from_slice(&ctx, &y)?;
        // saxpy(int n, float a, const float* x, float* y)
        let report = ctx
            .launch_builder(&kernel)
            .grid((n as u32).div_ceil(256))
            .block(256)
            .arg(n as u32)
            .arg(a)
            .arg(&x_buf)
            .arg(&mut y_buf)
            .launch()?;
        let got = y_buf.to_vec()?;
        if let Some(i) = (0..n).find(|&i| got[i].to_bits() != want[i].to_bits()) {
            return Err(format!(
                "{engine}: y[{i}] = {} but the host computes {}",
                got[i], want[i]
            )
            .into());
        }
        println!(
            "{engine}: {n} elements match the host ({:.2?})",
            report.elapsed
        );
    }
    Ok(())
}
