//! Gives the shared library the runtime's soname and symbol version (`libcudart.so.13`, as
//! nvcc-built programs import `cudaMalloc@libcudart.so.13`), and puts `libcudart.so.13` and
//! `libcudart.so.12` links beside it, so `LD_LIBRARY_PATH=target/release` finds it as a
//! program's loader expects.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcudart.so.13");
    let map = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("libcudart.map");
    println!("cargo:rerun-if-changed=libcudart.map");
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        map.display()
    );
    // OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out: the library lands in <profile>.
    let Some(out) = std::env::var_os("OUT_DIR") else {
        return;
    };
    let out = std::path::PathBuf::from(out);
    let Some(profile_dir) = out.ancestors().nth(3) else {
        return;
    };
    for name in ["libcudart.so.13", "libcudart.so.12"] {
        let link = profile_dir.join(name);
        if std::fs::symlink_metadata(&link).is_err() {
            // A failure here only means the link must be made by hand (`ptxjit exec` makes its own).
            let _ = std::os::unix::fs::symlink("libcudart.so", &link);
        }
    }
}
