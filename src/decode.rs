//! Typed reads from a parsed JSON document, each failure an error at the offending value's line
//! and column. Snapshots and the lockfile are read through this, never through a serde struct that
//! would drop unknown fields or lose positions.

use std::cell::Cell;
use std::path::Path;

use crate::error::Error;
use crate::finding::Span;
use crate::json::lines::LineCursor;
use crate::json::{Node, Number, Object, Pointer};

pub struct Decoder<'a> {
    pub path: &'a Path,
    pub text: &'a str,
    /// For a decoder that places values ([`Decoder::placing`]), where [`Decoder::place`] last
    /// placed one: values placed in the order of the text take one pass over it.
    cursor: Option<Cell<LineCursor>>,
}

impl<'a> Decoder<'a> {
    pub fn new(path: &'a Path, text: &'a str) -> Decoder<'a> {
        Decoder {
            path,
            text,
            cursor: None,
        }
    }

    /// A decoder whose [`Decoder::place`] places values: for a run that reports on them.
    pub fn placing(path: &'a Path, text: &'a str) -> Decoder<'a> {
        Decoder {
            cursor: Some(Cell::default()),
            ..Decoder::new(path, text)
        }
    }

    /// Where `node` sits in the text, in lines and columns (see [`crate::locate::place`]), when
    /// this decoder places values. Boxed: most runs place nothing, and a tool's record holds it.
    pub fn place(&self, node: &Node) -> Option<Box<Span>> {
        let cell = self.cursor.as_ref()?;
        let mut cursor = cell.get();
        let span = crate::locate::place(self.text, &mut cursor, node.span);
        cell.set(cursor);
        Some(Box::new(span))
    }

    pub fn error(&self, node: &Node, message: impl Into<String>) -> Error {
        Error::at_offset(self.path, self.text, node.span.start, message)
    }

    pub fn object<'n>(&self, node: &'n Node, what: &str) -> Result<&'n Object, Error> {
        node.as_object().ok_or_else(|| {
            self.error(
                node,
                format!("{what} must be an object, found {}", article(node)),
            )
        })
    }

    pub fn array<'n>(&self, node: &'n Node, what: &str) -> Result<&'n [Node], Error> {
        node.as_array().map(Vec::as_slice).ok_or_else(|| {
            self.error(
                node,
                format!("{what} must be an array, found {}", article(node)),
            )
        })
    }

    pub fn string<'n>(&self, node: &'n Node, what: &str) -> Result<&'n str, Error> {
        node.as_str().ok_or_else(|| {
            self.error(
                node,
                format!("{what} must be a string, found {}", article(node)),
            )
        })
    }

    pub fn u64(&self, node: &Node, what: &str) -> Result<u64, Error> {
        node.as_number().and_then(Number::as_u64).ok_or_else(|| {
            self.error(
                node,
                format!(
                    "{what} must be a non-negative integer, found {}",
                    article(node)
                ),
            )
        })
    }

    /// The string member `key` as one of `choices` (name, value): "unknown {key} `x` (expected
    /// a or b)" otherwise.
    pub fn one_of<T: Copy>(
        &self,
        node: &Node,
        key: &str,
        choices: &[(&str, T)],
    ) -> Result<T, Error> {
        let found = self.string(node, &format!("`{key}`"))?;
        match choices.iter().find(|(name, _)| *name == found) {
            Some((_, value)) => Ok(*value),
            None => {
                let names: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
                Err(self.error(
                    node,
                    format!("unknown {key} `{found}` (expected {})", names.join(" or ")),
                ))
            }
        }
    }

    /// A required member of `obj` (whose node is `parent`, for the error position).
    pub fn required<'n>(
        &self,
        parent: &Node,
        obj: &'n Object,
        key: &str,
        what: &str,
    ) -> Result<&'n Node, Error> {
        obj.get(key)
            .ok_or_else(|| self.error(parent, format!("{what} has no `{key}`")))
    }

    /// Rejects members outside `allowed`: in the lockfile an unknown key means corruption or a
    /// newer format, never something to ignore.
    pub fn only_keys(&self, obj: &Object, allowed: &[&str], what: &str) -> Result<(), Error> {
        match obj
            .members
            .iter()
            .find(|m| !allowed.contains(&m.key.as_str()))
        {
            Some(member) => Err(Error::at_offset(
                self.path,
                self.text,
                member.key_span.start,
                format!("unknown key `{}` in {what}", member.key),
            )),
            None => Ok(()),
        }
    }
}

/// "an array", "a string", … for error messages.
pub fn article(node: &Node) -> String {
    let kind = node.kind_name();
    match kind.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {kind}"),
        _ => format!("a {kind}"),
    }
}

/// Convenience for building pointers from a sequence of keys.
pub fn pointer_of(keys: &[&str]) -> Pointer {
    keys.iter().fold(Pointer::root(), |p, k| p.key(k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Dialect, Limits, parse};

    #[test]
    fn one_of_names_the_choices_it_expected() {
        let text = r#"{"approval": "manual", "kind": "auto", "n": 1}"#;
        let root = parse(text, Dialect::Json, &Limits::default()).unwrap();
        let d = Decoder::new(Path::new("x.lock"), text);
        let choices = [("auto", 1), ("explicit", 2)];
        assert_eq!(
            d.one_of(root.get("kind").unwrap(), "kind", &choices)
                .unwrap(),
            1
        );
        let unknown = d.one_of(root.get("approval").unwrap(), "approval", &choices);
        assert!(
            unknown
                .unwrap_err()
                .to_string()
                .contains("unknown approval `manual` (expected auto or explicit)")
        );
        let not_a_string = d.one_of(root.get("n").unwrap(), "n", &choices);
        assert!(
            not_a_string
                .unwrap_err()
                .to_string()
                .contains("`n` must be a string")
        );
    }
}
