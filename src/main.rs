//! The `mcp-scan` binary: everything lives in the library; this only hands over the exit code.

/// A scan builds millions of small tree nodes on every thread at once; glibc's allocator spent
/// a third of a 10k-tool run in malloc/free and their locks (1.38 s -> 0.87 s with mimalloc).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    mcp_scan::cli::main()
}
