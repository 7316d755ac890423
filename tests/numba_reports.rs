//! Reports on kernels that numba compiled, in the words a numba user reads: the kernel by its
//! Python name (with numba's mangled entry name once), no neighbour that is numba's
//! environment object, and a dynamic-shared-memory refusal that says what a numba program
//! does (it cannot call `cudaFuncSetAttribute`). The PTX has the shape numba-cuda 0.30.4
//! writes (its entry and `NumbaEnv` names, copied from its output); the expected texts come
//! from numba's mangling rules (numba-cuda's `itanium_mangler`), not from ptxjit.

use ptxjit::host::{Context, DeviceBuffer, Engine, Error};

const ENGINES: [Engine; 2] = [Engine::Interp, Engine::Jit];

/// numba's second ABI tag on every function of numba-cuda 0.30.4 (a hash of its flags).
const TAG: &str = "B92cw51cXTLSUwv1sDUaKthoaNgoKmjgOR3W3CwAkMXLaJtQYkOIgxJU0gCqOkEJoHkbttqdVhoqlspQGNFHSgJ5BnXagIA";

/// `__main__.scatter(int32[::1], int64)` as numba names it, and its environment object.
fn names() -> (String, String) {
    let args = "E5ArrayIiLi1E1C7mutable7alignedEx";
    (
        format!("_ZN8__main__7scatterB2v1{TAG}{args}"),
        format!("_ZN08NumbaEnv8__main__7scatterB2v1{TAG}{args}"),
    )
}

/// `out[i * stride] = i` without a bounds check (numba's `scatter` of
/// cuda/clients/numba_faults.py), with numba's environment variable in the module and a
/// dynamic shared array (`cuda.shared.array(0, …)`) that the kernel touches.
fn ptx() -> String {
    let (kernel, env) = names();
    format!(
        ".version 8.5\n.target sm_80\n.address_size 64\n\
         .common .global .align 8 .u64 {env};\n\
         .extern .shared .align 4 .b8 _cudapy_dynshared[];\n\
         .visible .entry {kernel}(.param .u64 out, .param .u64 stride)\n{{\n\
         .reg .b32 %r<3>;\n.reg .b64 %rd<6>;\n\
         ld.param.u64 %rd1, [out];\nld.param.u64 %rd2, [stride];\n\
         mov.u32 %r1, %tid.x;\ncvt.u64.u32 %rd3, %r1;\n\
         st.shared.u32 [_cudapy_dynshared], %r1;\n\
         mul.lo.s64 %rd4, %rd3, %rd2;\nshl.b64 %rd4, %rd4, 2;\nadd.s64 %rd5, %rd1, %rd4;\n\
         st.global.u32 [%rd5], %r1;\nret;\n}}\n"
    )
}

#[test]
fn a_numba_kernels_fault_names_its_python_name_and_no_environment() {
    let (mangled, env) = names();
    for engine in ENGINES {
        let mut ctx = Context::new();
        let out = DeviceBuffer::<i32>::zeroed(&ctx, 256).unwrap();
        // Loaded after the buffer: numba's environment variable lies above it, the closest
        // allocation below a wild store past both.
        let module = ctx.load_module(&ptx(), "<cudapy-ptx>", engine).unwrap();
        let kernel = module.kernel(&mangled).unwrap();
        let e = ctx
            .launch_builder(&kernel)
            .block(64)
            .shared_bytes(4)
            .arg(&out)
            .arg(1i64 << 20)
            .launch()
            .unwrap_err();
        let Error::Fault(report) = &e else {
            panic!("{engine}: {e}")
        };
        let text = report.to_string();
        assert!(
            text.contains(&format!("fault in kernel '__main__.scatter' ({mangled}): ")),
            "{engine}: {text}"
        );
        assert_eq!(text.matches(&mangled).count(), 1, "{engine}: {text}");
        assert!(!text.contains("NumbaEnv"), "{engine}: {text}");
        assert!(!text.contains(&env), "{engine}: {text}");
        // The neighbour named is the program's own buffer, 1 KiB long.
        assert!(text.contains("(1024 bytes)"), "{engine}: {text}");
    }
}

#[test]
fn a_numba_kernels_dynamic_shared_refusal_says_what_numba_does() {
    let (mangled, _) = names();
    for engine in ENGINES {
        let mut ctx = Context::new();
        let module = ctx.load_module(&ptx(), "<cudapy-ptx>", engine).unwrap();
        let kernel = module.kernel(&mangled).unwrap();
        let out = DeviceBuffer::<i32>::zeroed(&ctx, 64).unwrap();
        let e = ctx
            .launch_builder(&kernel)
            .block(64)
            .shared_bytes(64 * 1024)
            .arg(&out)
            .arg(1i64)
            .launch()
            .unwrap_err();
        let Error::LaunchConfig(m) = &e else {
            panic!("{engine}: {e}")
        };
        assert!(
            m.contains("65536 bytes of dynamic shared memory exceed the 49152 bytes"),
            "{engine}: {m}"
        );
        assert!(
            m.contains("numba-cuda has no option that raises it: launch with fewer bytes"),
            "{engine}: {m}"
        );
        assert!(
            m.contains(
                "cuda.bindings.driver.cuKernelSetAttribute(CUfunction_attribute.\
                 CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, BYTES, \
                 kernel.overloads[kernel.signatures[0]]._codelibrary.get_cufunc().handle, 0)"
            ),
            "{engine}: {m}"
        );
        assert!(!m.contains("cudaFuncSetAttribute"), "{engine}: {m}");
        // Raised as that call raises it, the launch runs.
        kernel.set_max_dynamic_shared_bytes(64 * 1024).unwrap();
        ctx.launch_builder(&kernel)
            .block(64)
            .shared_bytes(64 * 1024)
            .arg(&out)
            .arg(1i64)
            .launch()
            .unwrap();
        let got = out.to_vec().unwrap();
        assert_eq!(got, (0..64).collect::<Vec<i32>>(), "{engine}");
    }
}
