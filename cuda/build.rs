//! Gives the shared library the driver's soname and puts a `libcuda.so.1` link beside it, so
//! `LD_LIBRARY_PATH=target/release` finds it as a program's loader expects.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
    // OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out: the library lands in <profile>.
    let Some(out) = std::env::var_os("OUT_DIR") else {
        return;
    };
    let out = std::path::PathBuf::from(out);
    let Some(profile_dir) = out.ancestors().nth(3) else {
        return;
    };
    let link = profile_dir.join("libcuda.so.1");
    if std::fs::symlink_metadata(&link).is_err() {
        // A failure here only means the link must be made by hand (`ptxjit exec` makes its own).
        let _ = std::os::unix::fs::symlink("libcuda.so", &link);
    }
}
