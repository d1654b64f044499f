//! Config parsing: any text is a config or an error (with a location), never a panic or a stack
//! overflow.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use mcp_scan::config::Config;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = Config::parse(text, Path::new("mcp-scan.yaml"));
});
