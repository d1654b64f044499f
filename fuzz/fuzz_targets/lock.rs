//! Lock parsing: any text is a lock or an error, never a panic; a lock that parses renders to a
//! text that parses back to the same lock (the render is a fixed point).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use mcp_scan::lock::Lock;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("mcp.lock");
    let Ok((lock, _)) = Lock::parse(path, text.to_owned()) else {
        return;
    };
    let rendered = lock.render();
    let (again, _) = Lock::parse(path, rendered.clone())
        .unwrap_or_else(|e| panic!("a rendered lock does not parse: {e}\n{rendered}"));
    assert_eq!(again.render(), rendered, "render is not a fixed point");
});
