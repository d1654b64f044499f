//! One integration binary (linked once, so test builds stay fast): runs the real `mcp-scan`
//! over the scenarios in `testdata/cases/*` and snapshots everything it prints.

// A failing test should panic with the value it did not expect.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod action;
mod cases;
mod common;
mod diff_base;
mod hostile;
mod no_surprises;
mod record;
mod safe_write;
mod sarif_schema;
