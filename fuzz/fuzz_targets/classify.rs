//! Snapshot loading: any bytes the loader accepts as UTF-8 parse (both dialects) to a tree or
//! an error, and any tree classifies to a shape or an error, never a panic.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use mcp_scan::decode::Decoder;
use mcp_scan::input::snapshot::classify;
use mcp_scan::json::{Dialect, Limits, parse};

fuzz_target!(|data: &[u8]| {
    // The loader rejects invalid UTF-8 before parsing (`input::read_text`).
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for dialect in [Dialect::Json, Dialect::Jsonc] {
        if let Ok(root) = parse(text, dialect, &Limits::default()) {
            let decoder = Decoder::new(Path::new("fuzz.json"), text);
            let _ = classify(&root, &decoder);
        }
    }
});
