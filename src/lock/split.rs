//! A lockfile split as it streams in: each server's text handed on alone as soon as it is
//! complete, and the rest of the document (its skeleton) kept with each of those servers'
//! values hollowed out to `{}`. So reading a lock never holds its whole text (370 MB for 100k
//! tools), only one block and the server being read.
//!
//! The split only counts brackets outside strings, and never judges: the skeleton and every
//! server are parsed afterwards, and a document is valid exactly when its skeleton and its
//! servers are (an object value swapped for `{}` leaves the grammar's verdict unchanged). A
//! document it cannot split as mcp-scan writes it (the `servers` key spelled with an escape, a
//! server that is not an object) keeps those parts in the skeleton, whole.
//!
//! A server laid out as mcp-scan writes it (its key starting a line four spaces in) is not
//! walked at all: its end is the next line that is `}` four spaces in, found by a substring
//! search. JSON strings hold no raw newline, so in a lock mcp-scan wrote that line is the
//! server's closing bracket; in any other, the text handed on is not one JSON value, its parse
//! fails, and the lock is read whole instead.

/// One server's value, the text of a member of the top-level `servers` object.
pub struct ServerText {
    pub text: Vec<u8>,
    /// Where it starts in the file.
    pub offset: usize,
    /// Where its hollowed value (`{}`) starts in the skeleton.
    pub hollow: usize,
}

/// The bytes that move the split outside strings.
const STRUCTURAL: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = b"\"{}[]:,";
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// Where a server's key starts when mcp-scan wrote the lock: a line four spaces in.
const SERVER_KEY_LINE: &[u8] = b"\n    ";
/// How mcp-scan closes a server: a line four spaces in.
const SERVER_END: &[u8] = b"\n    }";

/// Splits a document fed to it block by block.
#[derive(Default)]
pub struct Splitter {
    /// Bytes read but not yet moved to the skeleton or handed on, from file offset `base`.
    pending: Vec<u8>,
    base: usize,
    /// How much of `pending` was already moved to the skeleton or handed on (dropped from it
    /// once per block: dropping after each server moved the rest of the block each time).
    consumed: usize,
    /// How far into `pending` the scan has gone.
    pos: usize,
    skeleton: Vec<u8>,
    depth: usize,
    in_string: bool,
    /// At depth 1: whether the next string is a member's value rather than its key.
    after_colon: bool,
    /// Where the string being read starts in `pending`, when it is a key at depth 1.
    key_start: Option<usize>,
    /// The last key at depth 1 was `servers`, and its value has not ended.
    servers_key: bool,
    /// Inside the `servers` object (at depth 2).
    in_servers: bool,
    /// Where the server being read starts in `pending`.
    server_start: Option<usize>,
    /// The last string at depth 2 of `servers` (a server's key, when a `{` follows) started a
    /// line four spaces in.
    pretty_key: bool,
    /// Searching for the end of a server laid out as mcp-scan writes it.
    skipping: bool,
    /// Servers completed by the block being fed.
    done: Vec<ServerText>,
}

impl Splitter {
    /// Takes the next block of the document; gives back every server it completes.
    pub fn feed(&mut self, block: &[u8]) -> Vec<ServerText> {
        self.pending.extend_from_slice(block);
        self.scan();
        // Whatever precedes a server being read, or a key being read, is skeleton.
        let keep = self
            .server_start
            .into_iter()
            .chain(self.key_start)
            .min()
            .unwrap_or(self.pos);
        self.skeleton
            .extend_from_slice(self.pending.get(self.consumed..keep).unwrap_or_default());
        self.pending.drain(..keep);
        self.consumed = 0;
        self.base += keep;
        self.pos -= keep;
        self.server_start = self.server_start.map(|s| s - keep);
        self.key_start = self.key_start.map(|s| s - keep);
        std::mem::take(&mut self.done)
    }

    /// The skeleton as far as it has been split: everything before the server being read.
    pub fn skeleton_so_far(&self) -> &[u8] {
        &self.skeleton
    }

    /// The skeleton, once every block was fed: the document with the values of the servers
    /// handed on hollowed out (and any server left unfinished, whole).
    pub fn finish(mut self) -> Vec<u8> {
        self.skeleton
            .extend_from_slice(self.pending.get(self.consumed..).unwrap_or_default());
        self.skeleton
    }

    fn scan(&mut self) {
        if self.skipping && !self.skip_to_server_end() {
            return;
        }
        while let Some(&byte) = self.pending.get(self.pos) {
            if self.in_string {
                let rest = self.pending.get(self.pos..).unwrap_or_default();
                let Some(at) = memchr::memchr2(b'"', b'\\', rest) else {
                    self.pos = self.pending.len();
                    return;
                };
                self.pos += at;
                if self.pending.get(self.pos) == Some(&b'\\') {
                    if self.pos + 1 >= self.pending.len() {
                        // The escaped byte is in the next block.
                        return;
                    }
                    self.pos += 2;
                    continue;
                }
                self.in_string = false;
                self.pos += 1;
                if let Some(start) = self.key_start.take() {
                    self.servers_key =
                        self.pending.get(start..self.pos) == Some(&b"\"servers\""[..]);
                }
                continue;
            }
            // Most bytes outside strings are indentation: stepped over in a tight loop.
            if !STRUCTURAL[usize::from(byte)] {
                let rest = self.pending.get(self.pos..).unwrap_or_default();
                let skip = rest.iter().position(|&b| STRUCTURAL[usize::from(b)]);
                self.pos += skip.unwrap_or(rest.len());
                continue;
            }
            match byte {
                b'"' => {
                    self.in_string = true;
                    if self.depth == 1 && !self.after_colon {
                        self.key_start = Some(self.pos);
                    } else if self.depth == 2 && self.in_servers {
                        self.pretty_key = self
                            .pos
                            .checked_sub(SERVER_KEY_LINE.len())
                            .and_then(|start| self.pending.get(start..self.pos))
                            == Some(SERVER_KEY_LINE);
                    }
                }
                b':' if self.depth == 1 => self.after_colon = true,
                b',' if self.depth == 1 => {
                    self.after_colon = false;
                    self.servers_key = false;
                }
                b'{' | b'[' => {
                    if self.depth == 1 && byte == b'{' && self.servers_key {
                        self.in_servers = true;
                    } else if self.depth == 2 && byte == b'{' && self.in_servers {
                        self.server_start = Some(self.pos);
                        if self.pretty_key {
                            self.depth += 1;
                            self.pos += 1;
                            self.skipping = true;
                            if !self.skip_to_server_end() {
                                return;
                            }
                            continue;
                        }
                    }
                    self.depth += 1;
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 2
                        && let Some(start) = self.server_start.take()
                    {
                        self.hand_on(start);
                        continue;
                    }
                    if self.depth == 1 {
                        self.in_servers = false;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// In a server laid out as mcp-scan writes it, steps to the bracket of the next line that is
    /// `}` four spaces in (see the module's comment); false when the text read so far ends
    /// first, having stepped over all of it that cannot be the start of that line.
    fn skip_to_server_end(&mut self) -> bool {
        let rest = self.pending.get(self.pos..).unwrap_or_default();
        match memchr::memmem::find(rest, SERVER_END) {
            Some(at) => {
                self.pos += at + SERVER_END.len() - 1;
                self.skipping = false;
                true
            }
            None => {
                let tail = (SERVER_END.len() - 1).min(rest.len());
                self.pos += rest.len() - tail;
                false
            }
        }
    }

    /// Hands on the server from `start` to the closing bracket at `pos`, leaving `{}` in its
    /// place in the skeleton.
    fn hand_on(&mut self, start: usize) {
        self.skeleton
            .extend_from_slice(self.pending.get(self.consumed..start).unwrap_or_default());
        let end = self.pos + 1;
        let text = self.pending.get(start..end).unwrap_or_default().to_vec();
        self.done.push(ServerText {
            text,
            offset: self.base + start,
            hollow: self.skeleton.len(),
        });
        self.skeleton.extend_from_slice(b"{}");
        self.consumed = end;
        self.pos = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Split in blocks of every size from one byte, a document gives the same servers (each
    /// at its offset, its hollow in the skeleton where `{}` is) and the same skeleton.
    #[test]
    fn splits_the_servers_out_whatever_the_blocks() {
        let cases: [(&str, &str, &[&str]); 7] = [
            (
                r#"{"fingerprint": {"a": "}"}, "servers": {"s1": {"tools": {"t": {"d": "{[\"}"}}}, "s\"2": {}}, "version": 1}"#,
                r#"{"fingerprint": {"a": "}"}, "servers": {"s1": {}, "s\"2": {}}, "version": 1}"#,
                &[r#"{"tools": {"t": {"d": "{[\"}"}}}"#, "{}"],
            ),
            // Only the top level's `servers`, and only objects.
            (
                r#"{"x": {"servers": {"a": {}}}, "servers": {"a": [1], "b": {"c": [{}]}}}"#,
                r#"{"x": {"servers": {"a": {}}}, "servers": {"a": [1], "b": {}}}"#,
                &[r#"{"c": [{}]}"#],
            ),
            // A value that reads `servers` is no key.
            (
                r#"{"k": "servers", "v": {"a": {"b": 1}}}"#,
                r#"{"k": "servers", "v": {"a": {"b": 1}}}"#,
                &[],
            ),
            // Spelled with an escape: not split, left whole.
            (
                r#"{"serv\u0065rs": {"a": {"b": 1}}}"#,
                r#"{"serv\u0065rs": {"a": {"b": 1}}}"#,
                &[],
            ),
            // Unfinished: the server stays in the skeleton, for the parse to reject.
            (
                r#"{"servers": {"a": {"b": 1}, "c": {"d": "#,
                r#"{"servers": {"a": {}, "c": {"d": "#,
                &[r#"{"b": 1}"#],
            ),
            // Laid out as mcp-scan writes it (the key four spaces in), a server ends at its
            // closing line, whatever its strings hold (an escaped newline is no line); one
            // whose key is two spaces in is walked bracket by bracket.
            (
                "{\n  \"servers\": {\n    \"one\": {\n      \"a\": \"}\\n    }\",\n      \"b\": {\n        \"c\": [\n          1\n        ]\n      }\n    },\n  \"two\": {\"d\": \"\\\"}\"}\n  },\n  \"version\": 1\n}\n",
                "{\n  \"servers\": {\n    \"one\": {},\n  \"two\": {}\n  },\n  \"version\": 1\n}\n",
                &[
                    "{\n      \"a\": \"}\\n    }\",\n      \"b\": {\n        \"c\": [\n          1\n        ]\n      }\n    }",
                    "{\"d\": \"\\\"}\"}",
                ],
            ),
            ("", "", &[]),
        ];
        for (text, skeleton, servers) in cases {
            for block in 1..=text.len().max(1) {
                let mut splitter = Splitter::default();
                let mut found = Vec::new();
                for piece in text.as_bytes().chunks(block) {
                    found.extend(splitter.feed(piece));
                }
                let got = splitter.finish();
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    skeleton,
                    "{text} in {block}s"
                );
                let texts: Vec<String> = found
                    .iter()
                    .map(|s| String::from_utf8_lossy(&s.text).into_owned())
                    .collect();
                assert_eq!(texts, servers.to_vec(), "{text} in {block}s");
                for server in &found {
                    let at = server.offset..server.offset + server.text.len();
                    assert_eq!(text.as_bytes().get(at), Some(&server.text[..]));
                    assert_eq!(got.get(server.hollow..server.hollow + 2), Some(&b"{}"[..]));
                }
            }
        }
    }

    /// A server whose key is laid out as mcp-scan writes it but whose inside is not: a line
    /// `}` four spaces in closes an object inside it, the split hands on the text up to there,
    /// and that text is not one JSON value, as its parse says (`lock::stream`'s tests read
    /// such locks: they are read whole).
    #[test]
    fn a_server_cut_at_a_line_inside_it_does_not_parse() {
        let ragged = "{\n  \"servers\": {\n    \"one\": {\n      \"b\": {\n    },\n      \"c\": 1\n    }\n  }\n}";
        let mut splitter = Splitter::default();
        let found = splitter.feed(ragged.as_bytes());
        let cut = String::from_utf8_lossy(&found[0].text).into_owned();
        assert_eq!(cut, "{\n      \"b\": {\n    }");
        let limits = crate::json::Limits::default();
        assert!(crate::json::parse(&cut, crate::json::Dialect::Json, &limits).is_err());
        assert!(crate::json::parse(ragged, crate::json::Dialect::Json, &limits).is_ok());
    }
}
