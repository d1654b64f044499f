//! The `mcp-scan` binary: everything lives in the library; this only hands over the exit code.

/// A scan builds millions of small tree nodes on every thread at once; glibc's allocator spent
/// a third of a 10k-tool run in malloc/free and their locks (1.38 s -> 0.87 s with mimalloc).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // mimalloc asks for transparent huge pages, and the kernel clears a whole 2 MiB page on the
    // first touch of any byte of it: a 3-file run used 68 MB and a 100k-tool run spent 8 s of
    // system time clearing pages (28 MB, 2 s without). A failure only costs that time again.
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    mcp_scan::cli::main()
}
