//! A recursive-descent JSON parser that records spans and keeps duplicates.
//!
//! It works on bytes: every delimiter is ASCII, so slicing the `&str` at
//! delimiter positions always lands on character boundaries, and runs of
//! unescaped string content are copied as whole slices.

use std::fmt;

use compact_str::CompactString;

use super::number::{self, NumberError};
use super::{Member, Node, Number, Object, Span, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Strict RFC 8259.
    Json,
    /// JSON plus `//` and `/* */` comments and trailing commas (VS Code configs).
    Jsonc,
}

#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Arrays and objects nested deeper than this are rejected, which bounds
    /// the recursion of the parser and of everything that walks its trees.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_depth: 256 }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset into the original text (BOM included).
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

const TRUNCATED: &str = "unexpected end of input: the JSON is truncated";
const BOM: &str = "\u{FEFF}";

pub fn parse(text: &str, dialect: Dialect, limits: &Limits) -> Result<Node, ParseError> {
    parse_deferring(text, dialect, limits, None)
}

/// Object members whose value [`parse_deferring`] does not build: those `path` leads to from
/// the value parsed, through objects only, when their value is an object. `[Key("servers"),
/// Any]` names every member of the top-level object's `servers` member.
#[derive(Clone, Copy, Debug)]
pub struct Deferral {
    pub path: &'static [Step],
}

/// One step of a [`Deferral`]'s path.
#[derive(Clone, Copy, Debug)]
pub enum Step {
    /// The member with this key.
    Key(&'static str),
    /// Every member.
    Any,
}

impl Step {
    fn matches(self, key: &str) -> bool {
        match self {
            Step::Key(k) => k == key,
            Step::Any => true,
        }
    }
}

/// [`parse`], except that each value `deferral` names is only skipped over: it becomes an empty
/// object whose span covers the value, to parse later with [`parse_value_at`] (in parallel, or
/// never). The skip only balances braces outside strings; the later parse validates it.
pub fn parse_deferring(
    text: &str,
    dialect: Dialect,
    limits: &Limits,
    deferral: Option<Deferral>,
) -> Result<Node, ParseError> {
    let mut parser = Parser::new(text, dialect, limits);
    parser.deferral = deferral;
    parser.pos = if text.starts_with(BOM) { BOM.len() } else { 0 };
    parser.skip_ws()?;
    if parser.pos >= parser.bytes.len() {
        return Err(parser.error_at(parser.pos, "empty input".to_owned()));
    }
    let node = parser.value()?;
    parser.skip_ws()?;
    if parser.pos < parser.bytes.len() {
        return Err(parser.unexpected("trailing characters after the JSON value"));
    }
    Ok(node)
}

/// The one value at `span` of `text` (a span [`parse_deferring`] deferred), with spans into
/// the whole text, deferring what `deferral` names within it; an error unless it ends exactly
/// at `span.end`.
pub fn parse_value_at(
    text: &str,
    span: Span,
    dialect: Dialect,
    limits: &Limits,
    deferral: Option<Deferral>,
) -> Result<Node, ParseError> {
    let mut parser = Parser::new(text, dialect, limits);
    parser.deferral = deferral;
    parser.pos = span.start;
    let node = parser.value()?;
    if parser.pos != span.end {
        return Err(parser.unexpected("expected the end of the value"));
    }
    Ok(node)
}

/// The offset just past the closing quote of the string literal whose opening quote is at
/// `start`, stepping over escapes without decoding or checking them; `None` if it never ends.
pub fn raw_string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    loop {
        i += memchr::memchr2(b'"', b'\\', text.get(i..)?)?;
        if text.get(i) == Some(&b'"') {
            return Some(i + 1);
        }
        i += 2;
    }
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    dialect: Dialect,
    max_depth: usize,
    depth: usize,
    /// Members and items of the objects and arrays being parsed, innermost last: each is moved
    /// into an exact-size vector when it closes, so no vector in the tree carries the spare
    /// capacity that growing by pushes leaves (a quarter of a large tree's memory).
    open_members: Vec<Member>,
    open_items: Vec<Node>,
    deferral: Option<Deferral>,
    /// How many steps of the deferral's path lead to the object being parsed; `None` off the
    /// path (under a member the path does not name, or in an array).
    on_path: Option<usize>,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, dialect: Dialect, limits: &Limits) -> Parser<'a> {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            dialect,
            max_depth: limits.max_depth,
            depth: 0,
            open_members: Vec::new(),
            open_items: Vec::new(),
            deferral: None,
            on_path: Some(0),
        }
    }

    /// How many steps of the deferral's path lead to the value of member `key` of the object
    /// being parsed; `None` when it is off the path (or nothing is deferred).
    fn path_to_member(&self, key: &str) -> Option<usize> {
        let steps = self.on_path?;
        self.deferral?
            .path
            .get(steps)
            .filter(|step| step.matches(key))
            .map(|_| steps + 1)
    }

    /// The end of the object value at the current position, when the member it belongs to
    /// is at the end of the deferral's path (`path_to_member`) and its braces balance.
    fn deferred_object_end(&self, on_path: Option<usize>) -> Option<usize> {
        let deferral = self.deferral?;
        if on_path != Some(deferral.path.len()) || self.peek() != Some(b'{') {
            return None;
        }
        // Only braces are counted: in valid JSON the brace that closes the object is the same
        // whether brackets are counted or not, and anything else fails the later parse of the
        // span. Three bytes let memchr jump over the indentation and values between them.
        let mut open = 0usize;
        let mut i = self.pos;
        loop {
            i += memchr::memchr3(b'"', b'{', b'}', self.bytes.get(i..)?)?;
            match self.bytes.get(i)? {
                b'"' => {
                    i = raw_string_end(self.bytes, i)?;
                    continue;
                }
                b'{' => open += 1,
                _ => {
                    open = open.checked_sub(1)?;
                    if open == 0 {
                        return Some(i + 1);
                    }
                }
            }
            i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn error_at(&self, offset: usize, message: String) -> ParseError {
        ParseError { offset, message }
    }

    /// "`{what}`, found X" at the current position, or the truncation error
    /// when there is nothing left to find.
    fn unexpected(&self, what: &str) -> ParseError {
        self.unexpected_at(self.pos, what)
    }

    fn unexpected_at(&self, offset: usize, what: &str) -> ParseError {
        let Some(c) = self.text.get(offset..).and_then(|s| s.chars().next()) else {
            return self.error_at(offset, TRUNCATED.to_owned());
        };
        let mut message = format!("{what}, found {}", describe(c));
        if c == '/' && self.dialect == Dialect::Json {
            message.push_str(" (comments are not allowed in strict JSON)");
        }
        self.error_at(offset, message)
    }

    /// A `&str` slice between two delimiter positions. The positions always
    /// sit on ASCII bytes, so `None` would mean a parser bug; it is reported
    /// as an error instead of panicking.
    fn slice(&self, start: usize, end: usize) -> Result<&'a str, ParseError> {
        self.text
            .get(start..end)
            .ok_or_else(|| self.error_at(start, "internal error: bad string boundary".to_owned()))
    }

    fn skip_ws(&mut self) -> Result<(), ParseError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => {
                    self.pos += 1;
                    self.skip_spaces();
                }
                Some(b'/') if self.dialect == Dialect::Jsonc => self.skip_comment()?,
                _ => return Ok(()),
            }
        }
    }

    /// Skips runs of spaces eight at a time: the indentation of pretty-printed JSON (what
    /// servers' recordings and the lockfile are) was a few percent of a scan's instructions
    /// one byte at a time.
    fn skip_spaces(&mut self) {
        const SPACES: [u8; 8] = [b' '; 8];
        while self.bytes.get(self.pos..self.pos + 8) == Some(SPACES.as_slice()) {
            self.pos += 8;
        }
    }

    fn skip_comment(&mut self) -> Result<(), ParseError> {
        let start = self.pos;
        let rest = self.bytes.get(start + 2..).unwrap_or_default();
        match self.bytes.get(start + 1) {
            Some(b'/') => {
                let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                self.pos = start + 2 + len;
                Ok(())
            }
            Some(b'*') => match rest.windows(2).position(|w| w == b"*/") {
                Some(len) => {
                    self.pos = start + 2 + len + 2;
                    Ok(())
                }
                None => Err(self.error_at(start, "unterminated `/*` comment".to_owned())),
            },
            _ => Err(self.unexpected_at(start + 1, "expected `/` or `*` to start a comment")),
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(self.error_at(
                self.pos,
                format!("nesting is deeper than {} levels", self.max_depth),
            ));
        }
        Ok(())
    }

    fn value(&mut self) -> Result<Node, ParseError> {
        let start = self.pos;
        let value = match self.peek() {
            Some(b'{') => Value::Object(self.object()?),
            Some(b'[') => Value::Array(self.array()?),
            Some(b'"') => Value::String(self.string()?),
            Some(b't') => self.literal("true", Value::Bool(true))?,
            Some(b'f') => self.literal("false", Value::Bool(false))?,
            Some(b'n') => self.literal("null", Value::Null)?,
            Some(b'-' | b'0'..=b'9') => Value::Number(self.number()?),
            _ => return Err(self.unexpected("expected a JSON value")),
        };
        Ok(Node {
            value,
            span: Span {
                start,
                end: self.pos,
            },
        })
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, ParseError> {
        let start = self.pos;
        let end = start + word.len();
        if self.bytes.get(start..end) == Some(word.as_bytes()) {
            self.pos = end;
            return Ok(value);
        }
        let rest = self.bytes.get(start..).unwrap_or_default();
        if word.as_bytes().starts_with(rest) {
            return Err(self.error_at(self.bytes.len(), TRUNCATED.to_owned()));
        }
        let found: String = self
            .text
            .get(start..)
            .unwrap_or_default()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .take(24)
            .collect();
        Err(self.error_at(start, format!("expected `{word}`, found `{found}`")))
    }

    fn number(&mut self) -> Result<Number, ParseError> {
        let start = self.pos;
        match number::scan(self.bytes, start) {
            Ok(end) => {
                self.pos = end;
                Ok(Number::from_validated(CompactString::from(
                    self.slice(start, end)?,
                )))
            }
            Err(NumberError::MissingIntDigit(at)) => {
                Err(self.unexpected_at(at, "invalid number: expected a digit after `-`"))
            }
            Err(NumberError::LeadingZero(at)) => Err(self.error_at(
                at,
                "invalid number: leading zeros are not allowed".to_owned(),
            )),
            Err(NumberError::MissingFracDigit(at)) => Err(self.unexpected_at(
                at,
                "invalid number: expected a digit after the decimal point",
            )),
            Err(NumberError::MissingExpDigit(at)) => {
                Err(self.unexpected_at(at, "invalid number: expected a digit in the exponent"))
            }
            Err(NumberError::ExponentRange(at)) => {
                Err(self.error_at(at, "number out of supported range".to_owned()))
            }
        }
    }

    fn object(&mut self) -> Result<Object, ParseError> {
        self.enter()?;
        self.pos += 1;
        self.skip_ws()?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Object::new());
        }
        let first = self.open_members.len();
        let mut expected_key = "expected a string key or `}`";
        loop {
            if self.peek() != Some(b'"') {
                return Err(self.unexpected(expected_key));
            }
            let key_start = self.pos;
            let key = self.string()?;
            let key_span = Span {
                start: key_start,
                end: self.pos,
            };
            self.skip_ws()?;
            if self.peek() != Some(b':') {
                return Err(self.unexpected("expected `:` after an object key"));
            }
            self.pos += 1;
            self.skip_ws()?;
            let on_path = self.path_to_member(&key);
            let value = match self.deferred_object_end(on_path) {
                Some(end) => {
                    let span = Span {
                        start: self.pos,
                        end,
                    };
                    self.pos = end;
                    Node {
                        value: Value::Object(Object::new()),
                        span,
                    }
                }
                None => {
                    let outer = std::mem::replace(&mut self.on_path, on_path);
                    let value = self.value()?;
                    self.on_path = outer;
                    value
                }
            };
            self.open_members.push(Member {
                key,
                key_span,
                value,
            });
            if !self.another(b'}', "after an object member")? {
                break;
            }
            expected_key = "expected a string key after `,`";
        }
        self.depth -= 1;
        Ok(Object {
            members: self.open_members.split_off(first),
        })
    }

    fn array(&mut self) -> Result<Vec<Node>, ParseError> {
        self.enter()?;
        self.pos += 1;
        self.skip_ws()?;
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Vec::new());
        }
        let first = self.open_items.len();
        // A deferral's path runs through objects only.
        let outer = self.on_path.take();
        loop {
            let item = self.value()?;
            self.open_items.push(item);
            if !self.another(b']', "after an array element")? {
                break;
            }
        }
        self.on_path = outer;
        self.depth -= 1;
        Ok(self.open_items.split_off(first))
    }

    /// After a member or an element (`after` says which): past a `,` when another follows,
    /// `false` past the `close` bracket that ends the container. A trailing comma before it is
    /// an error in strict JSON only.
    fn another(&mut self, close: u8, after: &str) -> Result<bool, ParseError> {
        self.skip_ws()?;
        match self.peek() {
            Some(b',') => {
                let comma = self.pos;
                self.pos += 1;
                self.skip_ws()?;
                if self.peek() != Some(close) {
                    return Ok(true);
                }
                if self.dialect == Dialect::Json {
                    let close = char::from(close);
                    return Err(self.error_at(
                        comma,
                        format!("trailing comma before `{close}` is not allowed in strict JSON"),
                    ));
                }
                self.pos += 1;
                Ok(false)
            }
            Some(b) if b == close => {
                self.pos += 1;
                Ok(false)
            }
            _ => {
                let close = char::from(close);
                Err(self.unexpected(&format!("expected `,` or `{close}` {after}")))
            }
        }
    }

    /// The end of the run of bytes at `from` that need no decoding.
    fn plain_run_end(&self, from: usize) -> usize {
        from + super::canonical::clean_prefix(self.bytes.get(from..).unwrap_or_default())
    }

    /// Parses the string literal at the current `"` and returns it decoded.
    fn string(&mut self) -> Result<CompactString, ParseError> {
        let content_start = self.pos + 1;
        let mut i = self.plain_run_end(content_start);
        // Most strings have no escapes: copied inline when short, else one exact-size copy.
        if self.bytes.get(i) == Some(&b'"') {
            self.pos = i + 1;
            return Ok(CompactString::from(self.slice(content_start, i)?));
        }
        let mut out = String::with_capacity(i - content_start + 16);
        out.push_str(self.slice(content_start, i)?);
        loop {
            match self.bytes.get(i) {
                None => return Err(self.error_at(i, TRUNCATED.to_owned())),
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(CompactString::from(out));
                }
                Some(b'\\') => i = self.escape(i, &mut out)?,
                Some(&b) if b < 0x20 => {
                    return Err(self.error_at(
                        i,
                        format!("control character U+{b:04X} must be escaped in a string"),
                    ));
                }
                Some(_) => {
                    let end = self.plain_run_end(i);
                    out.push_str(self.slice(i, end)?);
                    i = end;
                }
            }
        }
    }

    /// Decodes the escape whose backslash is at `at`; returns the offset after it.
    fn escape(&self, at: usize, out: &mut String) -> Result<usize, ParseError> {
        let simple = match self.bytes.get(at + 1) {
            None => return Err(self.error_at(at + 1, TRUNCATED.to_owned())),
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => return self.unicode_escape(at, out),
            Some(_) => {
                let c = self
                    .text
                    .get(at + 1..)
                    .and_then(|s| s.chars().next())
                    .unwrap_or(char::REPLACEMENT_CHARACTER);
                let shown = if c.is_control() {
                    format!("U+{:04X}", u32::from(c))
                } else {
                    c.to_string()
                };
                return Err(self.error_at(at, format!("invalid escape `\\{shown}`")));
            }
        };
        out.push(simple);
        Ok(at + 2)
    }

    /// Decodes `\uXXXX` at `at`, joining a UTF-16 surrogate pair when present.
    fn unicode_escape(&self, at: usize, out: &mut String) -> Result<usize, ParseError> {
        let first = self.hex4(at + 2)?;
        let code = match first {
            0xD800..=0xDBFF => {
                let is_pair =
                    self.bytes.get(at + 6) == Some(&b'\\') && self.bytes.get(at + 7) == Some(&b'u');
                let second = if is_pair {
                    Some(self.hex4(at + 8)?)
                } else {
                    None
                };
                match second {
                    Some(low @ 0xDC00..=0xDFFF) => {
                        0x10000 + ((u32::from(first) - 0xD800) << 10) + (u32::from(low) - 0xDC00)
                    }
                    _ => return Err(self.lone_surrogate(at)),
                }
            }
            0xDC00..=0xDFFF => return Err(self.lone_surrogate(at)),
            _ => u32::from(first),
        };
        let c = char::from_u32(code).ok_or_else(|| self.lone_surrogate(at))?;
        out.push(c);
        Ok(if code > 0xFFFF { at + 12 } else { at + 6 })
    }

    fn lone_surrogate(&self, at: usize) -> ParseError {
        let escape = self.text.get(at..at + 6).unwrap_or("\\u????");
        self.error_at(at, format!("lone surrogate `{escape}` in a string escape"))
    }

    fn hex4(&self, at: usize) -> Result<u16, ParseError> {
        let mut value: u16 = 0;
        for i in at..at + 4 {
            let digit = match self.bytes.get(i) {
                None => return Err(self.error_at(i, TRUNCATED.to_owned())),
                Some(&b) => char::from(b).to_digit(16),
            };
            let Some(digit) = digit else {
                return Err(self.unexpected_at(
                    i,
                    "invalid unicode escape: expected 4 hex digits after `\\u`",
                ));
            };
            // At most 4 digits of at most 15, so this stays within u16.
            value = (value << 4) | digit as u16;
        }
        Ok(value)
    }
}

/// How an unexpected character is shown in messages: invisible and control
/// characters by code point, since printing them literally shows nothing.
fn describe(c: char) -> String {
    if c.is_control() || c.is_whitespace() || c == '\u{FEFF}' || c == '\u{200B}' {
        format!("U+{:04X}", u32::from(c))
    } else {
        format!("`{c}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Result<Node, ParseError> {
        parse(text, Dialect::Json, &Limits::default())
    }

    fn jsonc(text: &str) -> Result<Node, ParseError> {
        parse(text, Dialect::Jsonc, &Limits::default())
    }

    /// Renders a tree compactly so tests can compare structure at a glance.
    fn show(node: &Node) -> String {
        match &node.value {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => n.raw().to_owned(),
            Value::String(s) => format!("{s:?}"),
            Value::Array(items) => {
                format!("[{}]", items.iter().map(show).collect::<Vec<_>>().join(","))
            }
            Value::Object(o) => format!(
                "{{{}}}",
                o.members
                    .iter()
                    .map(|m| format!("{:?}:{}", m.key, show(&m.value)))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        }
    }

    #[test]
    fn accepts_valid_json() {
        let cases = [
            ("null", "null"),
            (" true ", "true"),
            ("false", "false"),
            ("-12.5e+3", "-12.5e+3"),
            (
                r#""a\"b\\c\/d\b\f\n\r\t""#,
                r#""a\"b\\c/d\u{8}\u{c}\n\r\t""#,
            ),
            (r#""\u0041\u00e9\u4e2d\ud83d\ude00""#, r#""Aé中😀""#),
            (r#""héllo 中 😀""#, r#""héllo 中 😀""#),
            ("[1, [2, []], {}]", "[1,[2,[]],{}]"),
            (
                r#"{"a":1,"a":2,"b":{"c":null}}"#,
                r#"{"a":1,"a":2,"b":{"c":null}}"#,
            ),
            ("\u{FEFF}[1]", "[1]"),
            (" \t\r\n[ 1 , 2 ]\n", "[1,2]"),
            (r#""\u2028 \u200b""#, r#""\u{2028} \u{200b}""#),
        ];
        for (text, expected) in cases {
            let node = json(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(show(&node), expected, "{text}");
        }
    }

    #[test]
    fn rejects_invalid_json_with_precise_errors() {
        let cases = [
            ("", 0, "empty input"),
            ("  \n", 3, "empty input"),
            ("\u{FEFF}", 3, "empty input"),
            ("[1,2", 4, TRUNCATED),
            (r#"{"a":1"#, 6, TRUNCATED),
            (r#""abc"#, 4, TRUNCATED),
            (r#""ab\"#, 4, TRUNCATED),
            (r#""\u12"#, 5, TRUNCATED),
            ("tr", 2, TRUNCATED),
            ("-", 1, TRUNCATED),
            (
                r#"{"a":1]"#,
                6,
                "expected `,` or `}` after an object member, found `]`",
            ),
            (
                "[1}",
                2,
                "expected `,` or `]` after an array element, found `}`",
            ),
            (
                "[1 2]",
                3,
                "expected `,` or `]` after an array element, found `2`",
            ),
            (
                r#"{"a" 1}"#,
                5,
                "expected `:` after an object key, found `1`",
            ),
            ("{1:2}", 1, "expected a string key or `}`, found `1`"),
            (
                r#"{"a":1,2}"#,
                7,
                "expected a string key after `,`, found `2`",
            ),
            (
                "[1,]",
                2,
                "trailing comma before `]` is not allowed in strict JSON",
            ),
            (
                r#"{"a":1,}"#,
                6,
                "trailing comma before `}` is not allowed in strict JSON",
            ),
            ("[,1]", 1, "expected a JSON value, found `,`"),
            ("'a'", 0, "expected a JSON value, found `'`"),
            ("+1", 0, "expected a JSON value, found `+`"),
            (".5", 0, "expected a JSON value, found `.`"),
            ("NaN", 0, "expected a JSON value, found `N`"),
            (
                "[1] // c",
                4,
                "trailing characters after the JSON value, found `/` (comments are not allowed in strict JSON)",
            ),
            (
                "\"a\nb\"",
                2,
                "control character U+000A must be escaped in a string",
            ),
            (
                "\"a\u{1}\"",
                2,
                "control character U+0001 must be escaped in a string",
            ),
            (r#""\x""#, 1, "invalid escape `\\x`"),
            (r#""\é""#, 1, "invalid escape `\\é`"),
            (
                r#""\ud800""#,
                1,
                "lone surrogate `\\ud800` in a string escape",
            ),
            (
                r#""\uD800x""#,
                1,
                "lone surrogate `\\uD800` in a string escape",
            ),
            (
                r#""\ud800\u0041""#,
                1,
                "lone surrogate `\\ud800` in a string escape",
            ),
            (
                r#""\udc00\ud800""#,
                1,
                "lone surrogate `\\udc00` in a string escape",
            ),
            (
                r#""\u12g4""#,
                5,
                "invalid unicode escape: expected 4 hex digits after `\\u`, found `g`",
            ),
            (
                "truex",
                4,
                "trailing characters after the JSON value, found `x`",
            ),
            ("trve", 0, "expected `true`, found `trve`"),
            ("nul]", 0, "expected `null`, found `nul`"),
            ("01", 0, "invalid number: leading zeros are not allowed"),
            (
                "-a",
                1,
                "invalid number: expected a digit after `-`, found `a`",
            ),
            (
                "1.e3",
                2,
                "invalid number: expected a digit after the decimal point, found `e`",
            ),
            (
                "1e+]",
                3,
                "invalid number: expected a digit in the exponent, found `]`",
            ),
            (
                "[1e9223372036854775808]",
                1,
                "number out of supported range",
            ),
            (
                "1 2",
                2,
                "trailing characters after the JSON value, found `2`",
            ),
            (
                "{} {}",
                3,
                "trailing characters after the JSON value, found `{`",
            ),
            ("[\u{A0}1]", 1, "expected a JSON value, found U+00A0"),
            (
                "\u{FEFF}\u{FEFF}1",
                3,
                "expected a JSON value, found U+FEFF",
            ),
        ];
        for (text, offset, message) in cases {
            let err = json(text).expect_err(text);
            assert_eq!(
                (err.offset, err.message.as_str()),
                (offset, message),
                "{text:?}"
            );
            assert_eq!(err.to_string(), message);
        }
    }

    #[test]
    fn jsonc_allows_comments_and_trailing_commas() {
        let text = "// header\n{ /* a */ \"a\": [1, 2, ], // x\n \"b\": {\"c\": 1,}, } /* end */";
        let node = jsonc(text).expect("valid jsonc");
        assert_eq!(show(&node), r#"{"a":[1,2],"b":{"c":1}}"#);
        assert!(json(text).is_err());
        let errors = [
            ("[1 /* x", 3, "unterminated `/*` comment"),
            (
                "[1 / 2]",
                4,
                "expected `/` or `*` to start a comment, found U+0020",
            ),
            ("[,]", 1, "expected a JSON value, found `,`"),
            ("{,}", 1, "expected a string key or `}`, found `,`"),
            ("[1,,]", 3, "expected a JSON value, found `,`"),
            ("// only a comment", 17, "empty input"),
            ("/**/", 4, "empty input"),
        ];
        for (text, offset, message) in errors {
            let err = jsonc(text).expect_err(text);
            assert_eq!(
                (err.offset, err.message.as_str()),
                (offset, message),
                "{text:?}"
            );
        }
        assert_eq!(
            jsonc("/**/1/**/").map(|n| n.span),
            Ok(Span { start: 4, end: 5 })
        );
    }

    #[test]
    fn spans_cover_values_and_keys() {
        let text = "\u{FEFF} {\"ké\\n\" : [1, \"x\\u0041\", true], \"z\":{}}";
        let root = json(text).expect("valid");
        let slice = |s: Span| text.get(s.start..s.end).expect("span in bounds");
        assert_eq!(
            slice(root.span),
            "{\"ké\\n\" : [1, \"x\\u0041\", true], \"z\":{}}"
        );
        let object = root.as_object().expect("object");
        let first = object.members.first().expect("member");
        assert_eq!(first.key, "ké\n");
        assert_eq!(slice(first.key_span), "\"ké\\n\"");
        assert_eq!(slice(first.value.span), "[1, \"x\\u0041\", true]");
        let items = first.value.as_array().expect("array");
        let spans: Vec<&str> = items.iter().map(|n| slice(n.span)).collect();
        assert_eq!(spans, ["1", "\"x\\u0041\"", "true"]);
        assert_eq!(items.get(1).and_then(Node::as_str), Some("xA"));
        assert_eq!(object.get("z").map(|n| slice(n.span)), Some("{}"));
    }

    #[test]
    fn deferred_values_are_skipped_then_parsed_in_place() {
        let text = r#"{"a": {"d": {"x": "}{\"]", "y": [1, {"z": null}]}, "e": 1}, "d": {"k": 2}}"#;
        let deferral = Deferral {
            path: &[Step::Key("a"), Step::Key("d")],
        };
        let root =
            parse_deferring(text, Dialect::Json, &Limits::default(), Some(deferral)).unwrap();
        let full = json(text).unwrap();
        // Only the member at the end of the path is deferred, as an empty object over its span.
        let deferred = root.get("a").unwrap().get("d").unwrap();
        assert_eq!(deferred.as_object().unwrap().members.len(), 0);
        let original = full.get("a").unwrap().get("d").unwrap();
        assert_eq!(deferred.span, original.span);
        assert_eq!(
            root.get("a").unwrap().get("e"),
            full.get("a").unwrap().get("e")
        );
        assert_eq!(root.get("d"), full.get("d"));
        let parsed = parse_value_at(text, deferred.span, Dialect::Json, &Limits::default(), None);
        assert_eq!(parsed.as_ref(), Ok(original));
        // Invalid JSON inside a deferred value is found by the later parse, at its offset.
        let bad = r#"{"a": {"d": {"x": tru}}}"#;
        let root = parse_deferring(bad, Dialect::Json, &Limits::default(), Some(deferral)).unwrap();
        let span = root.get("a").unwrap().get("d").unwrap().span;
        let error = parse_value_at(bad, span, Dialect::Json, &Limits::default(), None).unwrap_err();
        assert_eq!(error.offset, bad.find("tru").unwrap());
        // Unbalanced braces: the skip runs to the end of the text, so the whole parse fails.
        let open = r#"{"a": {"d": {"x": {"y": 1}}"#;
        assert!(parse_deferring(open, Dialect::Json, &Limits::default(), Some(deferral)).is_err());
        // Brackets are not counted by the skip: a mismatched one is found by the later parse.
        let mismatched = r#"{"a": {"d": {"x": [1}}}"#;
        let root = parse_deferring(
            mismatched,
            Dialect::Json,
            &Limits::default(),
            Some(deferral),
        )
        .unwrap();
        let span = root.get("a").unwrap().get("d").unwrap().span;
        let error =
            parse_value_at(mismatched, span, Dialect::Json, &Limits::default(), None).unwrap_err();
        assert_eq!(error.offset, mismatched.find("1}").unwrap() + 1);
    }

    /// `Any` defers every member of the object the path leads to; a path runs through objects
    /// only (the same keys inside an array are parsed); a deferred value is parsed later with
    /// a deferral of its own, relative to it.
    #[test]
    fn deferral_paths_name_every_member_and_run_through_objects() {
        let text =
            r#"{"s": {"p": {"q": {"z": 1}, "w": 2}, "r": {}, "n": 3}, "l": [{"s": {"p": {}}}]}"#;
        let full = json(text).unwrap();
        let servers = Deferral {
            path: &[Step::Key("s"), Step::Any],
        };
        let root = parse_deferring(text, Dialect::Json, &Limits::default(), Some(servers)).unwrap();
        let s = root.get("s").unwrap();
        let p = s.get("p").unwrap();
        assert!(p.as_object().unwrap().members.is_empty());
        assert_eq!(p.span, full.get("s").unwrap().get("p").unwrap().span);
        assert_eq!(s.get("r"), full.get("s").unwrap().get("r"));
        assert_eq!(s.get("n"), full.get("s").unwrap().get("n"));
        assert_eq!(root.get("l"), full.get("l"));
        let inner = Deferral {
            path: &[Step::Key("q")],
        };
        let p =
            parse_value_at(text, p.span, Dialect::Json, &Limits::default(), Some(inner)).unwrap();
        let q = p.get("q").unwrap();
        assert!(q.as_object().unwrap().members.is_empty());
        assert_eq!(q.span.start, text.find(r#"{"z""#).unwrap());
        assert_eq!(
            p.get("w"),
            full.get("s").unwrap().get("p").unwrap().get("w")
        );
        // Without a deferral nothing is skipped.
        assert_eq!(
            parse_deferring(text, Dialect::Json, &Limits::default(), None),
            Ok(full)
        );
    }

    #[test]
    fn depth_limit() {
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            let nested = |depth: usize| format!("{}1{}", open.repeat(depth), close.repeat(depth));
            assert!(json(&nested(256)).is_ok());
            let err = json(&nested(257)).expect_err("too deep");
            assert_eq!(err.message, "nesting is deeper than 256 levels");
            assert_eq!(err.offset, 256 * open.len());
            let err = json(&open.repeat(100_000)).expect_err("too deep");
            assert_eq!(err.message, "nesting is deeper than 256 levels");
            let small = Limits { max_depth: 2 };
            assert!(parse(&nested(2), Dialect::Json, &small).is_ok());
            assert!(parse(&nested(3), Dialect::Json, &small).is_err());
        }
        let zero = Limits { max_depth: 0 };
        assert!(parse("1", Dialect::Json, &zero).is_ok());
        assert!(parse("[]", Dialect::Json, &zero).is_err());
    }

    #[test]
    fn duplicate_keys_are_kept() {
        let root = json(r#"{"a":1,"b":2,"a":3}"#).expect("valid");
        let object = root.as_object().expect("object");
        assert_eq!(object.members.len(), 3);
        assert_eq!(object.get("a").and_then(Node::as_u64), Some(3));
        assert_eq!(object.duplicate_keys().len(), 1);
    }

    #[test]
    fn never_panics_on_any_prefix_or_mutation() {
        let text = "\u{FEFF}{\"a\\u00e9\": [1.5e-3, -0, \"\\ud83d\\ude00 中\", true, null, {\"\": false}]} ";
        for dialect in [Dialect::Json, Dialect::Jsonc] {
            for (end, _) in text.char_indices() {
                let _ = parse(
                    text.get(..end).unwrap_or_default(),
                    dialect,
                    &Limits::default(),
                );
            }
            for (at, _) in text.char_indices() {
                for insert in ["\"", "\\", "/", "*", ",", "]", "}", "\u{0}", "é", "u"] {
                    let mut mutated = text.to_owned();
                    mutated.insert_str(at, insert);
                    let _ = parse(&mutated, dialect, &Limits::default());
                }
            }
        }
    }
}
