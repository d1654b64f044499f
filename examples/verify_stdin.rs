//! Verifies one `tools/list` response read on standard input against `mcp.lock`, as a gateway
//! would before handing the tools to an agent:
//!
//! ```sh
//! cargo run --example verify_stdin -- weather mcp.lock < response.json
//! ```
//!
//! Prints each finding and exits 1 when the tools must not be used, 2 on bad input.

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use mcp_scan::{Lock, verify_tools_list};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(server), lock_path) = (args.next(), args.next()) else {
        eprintln!("usage: verify_stdin SERVER [LOCKFILE] < tools-list.json");
        return ExitCode::from(2);
    };
    let lock_path = lock_path.unwrap_or_else(|| "mcp.lock".to_string());
    match run(&server, Path::new(&lock_path)) {
        Ok(blocked) => ExitCode::from(u8::from(blocked)),
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

fn run(server: &str, lock_path: &Path) -> Result<bool, mcp_scan::Error> {
    let Some((lock, _)) = Lock::load(lock_path)? else {
        return Err(mcp_scan::Error::in_file(lock_path, "no lockfile"));
    };
    let mut response = String::new();
    std::io::stdin()
        .read_to_string(&mut response)
        .map_err(|e| mcp_scan::Error::new(format!("cannot read standard input: {e}")))?;
    let report = verify_tools_list(&lock, server, &response)?;
    for finding in report.active() {
        println!(
            "{}[{}]: {}",
            finding.severity, finding.rule, finding.message
        );
    }
    Ok(report.blocks())
}
