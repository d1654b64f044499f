//! RFC 6901 JSON pointers, used to name locations in findings and lockfiles.
//!
//! Resolution rules: an object token selects the LAST member with that key
//! (the one serde_json and most consumers see); an array token must be a
//! decimal index without leading zeros (`-`, `01`, `+1` resolve to nothing).

use std::fmt;
use std::str::FromStr;

use super::{Node, Span, Value};

/// A pointer in its RFC 6901 string form; `""` is the root.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pointer(String);

impl Pointer {
    pub fn root() -> Pointer {
        Pointer(String::new())
    }

    /// Accepts `""` or a string starting with `/` in which `~` appears only
    /// as `~0` or `~1`.
    pub fn parse(s: &str) -> Result<Pointer, String> {
        if !s.is_empty() && !s.starts_with('/') {
            return Err(format!(
                "JSON pointer `{s}` must be empty or start with `/`"
            ));
        }
        let mut chars = s.char_indices();
        while let Some((i, c)) = chars.next() {
            if c == '~' && !matches!(chars.next(), Some((_, '0' | '1'))) {
                return Err(format!(
                    "JSON pointer `{s}` has `~` at byte {i} not followed by `0` or `1`"
                ));
            }
        }
        Ok(Pointer(s.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The pointer to member `key` of the value this pointer names.
    pub fn key(&self, key: &str) -> Pointer {
        let mut s = String::with_capacity(self.0.len() + key.len() + 1);
        s.push_str(&self.0);
        s.push('/');
        for c in key.chars() {
            match c {
                '~' => s.push_str("~0"),
                '/' => s.push_str("~1"),
                c => s.push(c),
            }
        }
        Pointer(s)
    }

    /// The pointer to element `i` of the array this pointer names.
    pub fn index(&self, i: usize) -> Pointer {
        Pointer(format!("{}/{i}", self.0))
    }

    /// The unescaped reference tokens; empty for the root.
    pub fn tokens(&self) -> Vec<String> {
        self.raw_tokens().map(unescape).collect()
    }

    pub fn parent(&self) -> Option<Pointer> {
        self.0
            .rfind('/')
            .map(|i| Pointer(self.0.get(..i).unwrap_or_default().to_owned()))
    }

    pub fn last_token(&self) -> Option<String> {
        self.0
            .rfind('/')
            .map(|i| unescape(self.0.get(i + 1..).unwrap_or_default()))
    }

    /// Token-wise prefix test: `/a` is a prefix of `/a/b` but not of `/ab`.
    pub fn starts_with(&self, prefix: &Pointer) -> bool {
        match self.0.strip_prefix(prefix.0.as_str()) {
            Some(rest) => rest.is_empty() || rest.starts_with('/'),
            None => false,
        }
    }

    /// Escaped tokens, so that a `/` inside a key (written `~1`) never splits.
    fn raw_tokens(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').skip(1)
    }
}

/// `~1` must be replaced before `~0`, otherwise `~01` would wrongly become `/`.
fn unescape(token: &str) -> String {
    if token.contains('~') {
        token.replace("~1", "/").replace("~0", "~")
    } else {
        token.to_owned()
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Pointer {
    type Err = String;

    fn from_str(s: &str) -> Result<Pointer, String> {
        Pointer::parse(s)
    }
}

/// An array index token: decimal digits without leading zeros.
pub(super) fn array_index(token: &str) -> Option<usize> {
    let well_formed = token == "0"
        || (!token.starts_with('0')
            && !token.is_empty()
            && token.bytes().all(|b| b.is_ascii_digit()));
    if well_formed {
        token.parse().ok()
    } else {
        None
    }
}

fn step<'n>(node: &'n Node, token: &str) -> Option<&'n Node> {
    match &node.value {
        Value::Object(o) => o.get(token),
        Value::Array(items) => items.get(array_index(token)?),
        _ => None,
    }
}

pub(super) fn resolve<'n>(root: &'n Node, p: &Pointer) -> Option<&'n Node> {
    p.raw_tokens()
        .try_fold(root, |node, token| step(node, &unescape(token)))
}

/// The span of the KEY of the member `p` ends at, for findings about property
/// names; `None` for the root, array elements and unresolvable pointers.
pub fn resolve_key_span(root: &Node, p: &Pointer) -> Option<Span> {
    let parent = resolve(root, &p.parent()?)?;
    let key = p.last_token()?;
    parent.as_object()?.get_member(&key).map(|m| m.key_span)
}

/// The span of the n-th (0-based) key named like the last token of `p`, in source order: how
/// an earlier occurrence of a duplicated key is pointed at.
pub fn resolve_nth_key_span(root: &Node, p: &Pointer, n: usize) -> Option<Span> {
    let parent = resolve(root, &p.parent()?)?;
    let key = p.last_token()?;
    parent
        .as_object()?
        .members
        .iter()
        .filter(|m| m.key == key)
        .nth(n)
        .map(|m| m.key_span)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Dialect, Limits, parse};

    fn p(s: &str) -> Pointer {
        Pointer::parse(s).expect(s)
    }

    #[test]
    fn parse_validates() {
        for ok in ["", "/", "/a", "/a/b", "/~0", "/~1", "/a~0b~1c", "//"] {
            assert!(Pointer::parse(ok).is_ok(), "{ok}");
        }
        for bad in ["a", "#/a", "/~", "/~2", "/a~", "/~~0"] {
            assert!(Pointer::parse(bad).is_err(), "{bad}");
        }
        assert_eq!("/x".parse::<Pointer>(), Ok(p("/x")));
    }

    #[test]
    fn building_and_tokens() {
        let ptr = Pointer::root().key("a/b").key("c~d").index(3).key("");
        assert_eq!(ptr.as_str(), "/a~1b/c~0d/3/");
        assert_eq!(ptr.to_string(), "/a~1b/c~0d/3/");
        assert_eq!(ptr.tokens(), ["a/b", "c~d", "3", ""]);
        assert_eq!(p("/~01").tokens(), ["~1"]);
        assert_eq!(Pointer::root().tokens(), Vec::<String>::new());
        assert_eq!(p("").as_str(), Pointer::root().as_str());
    }

    #[test]
    fn parent_and_last_token() {
        let cases = [
            ("", None, None),
            ("/a", Some(""), Some("a")),
            ("/a/b~1c", Some("/a"), Some("b/c")),
            ("/a/", Some("/a"), Some("")),
        ];
        for (ptr, parent, last) in cases {
            assert_eq!(p(ptr).parent(), parent.map(p), "{ptr}");
            assert_eq!(p(ptr).last_token().as_deref(), last, "{ptr}");
        }
    }

    #[test]
    fn starts_with_is_token_wise() {
        let cases = [
            ("/a/b", "/a", true),
            ("/a", "/a", true),
            ("/a", "", true),
            ("", "", true),
            ("/ab", "/a", false),
            ("/a", "/a/b", false),
            ("", "/a", false),
            ("/a~1b", "/a", false),
        ];
        for (ptr, prefix, expected) in cases {
            assert_eq!(
                p(ptr).starts_with(&p(prefix)),
                expected,
                "{ptr} vs {prefix}"
            );
        }
    }

    #[test]
    fn resolution() {
        let text = r#"{"a":{"b":[10,20,{"c/d":1,"e~f":2}]},"a":{"b":[30]},"":{"":5}}"#;
        let root = parse(text, Dialect::Json, &Limits::default()).expect("valid");
        let raw = |ptr: &str| {
            root.pointer(&p(ptr))
                .map(|n| text.get(n.span.start..n.span.end).unwrap_or("?").to_owned())
        };
        let cases = [
            ("", Some(text)),
            ("/a/b/0", Some("30")),
            ("/a/b/1", None),
            ("/a/b/00", None),
            ("/a/b/-", None),
            ("/a/b/+0", None),
            ("/x", None),
            ("//", Some("5")),
            ("/a/b/0/x", None),
        ];
        for (ptr, expected) in cases {
            assert_eq!(raw(ptr).as_deref(), expected, "{ptr}");
        }
        let first =
            parse(r#"[{"c/d":1,"e~f":2}]"#, Dialect::Json, &Limits::default()).expect("valid");
        assert_eq!(first.pointer(&p("/0/c~1d")).and_then(Node::as_u64), Some(1));
        assert_eq!(first.pointer(&p("/0/e~0f")).and_then(Node::as_u64), Some(2));
    }

    #[test]
    fn key_spans() {
        let text = r#"{"a":{"k":1,"k":2},"arr":[{"z":0}]}"#;
        let root = parse(text, Dialect::Json, &Limits::default()).expect("valid");
        let key =
            |ptr: &str| resolve_key_span(&root, &p(ptr)).and_then(|s| text.get(s.start..s.end));
        assert_eq!(key("/a"), Some(r#""a""#));
        assert_eq!(key("/arr/0/z"), Some(r#""z""#));
        let last_k = resolve_key_span(&root, &p("/a/k")).map(|s| s.start);
        assert_eq!(last_k, text.rfind(r#""k""#));
        assert_eq!(key(""), None);
        assert_eq!(key("/arr/0"), None);
        assert_eq!(key("/missing"), None);
    }
}
