//! Span-preserving JSON: one parse gives values, byte spans and duplicate keys.
//!
//! The tree keeps what a security linter needs and serde_json throws away:
//! byte spans for every value and key, every duplicate key, and numbers as
//! their exact literal text.

pub mod canonical; // canonical bytes (scheme "c14n-v1") and the sorted pretty printer
pub mod escape_map; // decoded-string byte range -> raw source byte range
pub mod lines; // byte offset -> 1-based line/column
mod node;
mod number;
mod object;
mod parse; // the parser
pub mod pointer; // RFC 6901 JSON pointers
pub mod seek; // a pointer's value in a text, without its tree
pub mod walk; // every object of a tree, with a borrowed path to it

pub use node::{Node, Value};
pub use number::Number;
pub use object::{Member, Object};
pub use parse::{
    Deferral, Dialect, Limits, ParseError, Step, parse, parse_deferring, parse_value_at,
    raw_string_end,
};
pub use pointer::Pointer;

/// Byte offsets into the source text, end exclusive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }

    pub fn as_range(&self) -> std::ops::Range<usize> {
        self.start..self.end
    }
}
