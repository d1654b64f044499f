//! mcp-scan: an offline scanner and CI linter for MCP tool definitions.
//!
//! It loads recorded `tools/list` snapshots, fingerprints every tool canonically, compares them
//! with the approvals in `mcp.lock`, and reports drift and integrity problems with exact source
//! locations. The binary is a thin wrapper over this library.
//!
//! Flow of a `check`: [`input`] loads and parses → [`state`] fingerprints (via [`fingerprint`]
//! and [`json::canonical`]) → [`checks`] emit drafts → [`scan`] applies [`config`] and
//! [`locate`]s spans → [`render`] prints.

pub mod approve;
pub mod approver;
pub mod atomic_file;
pub mod background;
pub mod byte_size;
pub mod checks;
pub mod cli;
pub mod clients;
pub mod clock;
pub mod commands;
pub mod config;
pub mod decode;
pub mod drift_event;
pub mod embed;
pub mod error;
pub mod finding;
pub mod fingerprint;
pub mod input;
pub mod json;
pub mod locate;
pub mod lock;
pub mod lock_diff;
pub mod lock_merge;
pub mod on_disk;
pub mod prompts;
pub mod prose;
pub mod record;
pub mod render;
pub mod rules;
pub mod scan;
pub mod schema_diff;
pub mod source;
pub mod spill;
pub mod state;
pub mod text_model;
pub mod unicode;

pub use embed::{scan_tools_list, verify_tools_list, verify_tools_list_value};
pub use error::Error;
pub use lock::Lock;
pub use scan::Report;
