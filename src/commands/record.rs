//! `mcp-scan record`: capture `tools/list` from the stdio servers of MCP client configs.

use std::path::Path;
use std::time::Duration;

use crate::cli::RecordArgs;
use crate::error::Error;
use crate::record::{RecordOptions, record};
use crate::render::count;
use crate::source::display_path;

pub fn run(config: Option<&Path>, args: &RecordArgs) -> Result<u8, Vec<Error>> {
    let options = RecordOptions {
        configs: config
            .map(Path::to_path_buf)
            .into_iter()
            .chain(args.configs.iter().cloned())
            .collect(),
        servers: args.servers.clone(),
        out: args.out.clone(),
        timeout: Duration::from_secs(args.timeout),
        max_bytes: args.max_bytes,
    };
    let recorded = record(&options, &mut |line| eprintln!("{line}"))?;
    eprintln!(
        "recorded {} into {}",
        count(recorded, "server"),
        display_path(&args.out)
    );
    Ok(0)
}
