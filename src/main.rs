//! The `ptxjit` command; everything lives in [`ptxjit::cli`].

fn main() -> std::process::ExitCode {
    ptxjit::cli::main()
}
