use proptest::prelude::*;

use super::*;
use crate::json::{Dialect, Limits, Pointer, parse};

fn canon(text: &str) -> String {
    let node =
        parse(text, Dialect::Json, &Limits::default()).unwrap_or_else(|e| panic!("{text}: {e}"));
    String::from_utf8(to_canonical_vec(&node)).expect("utf-8")
}

fn number(raw: &str) -> String {
    canonical_number(&Number::parse(raw).expect(raw))
}

#[test]
fn numbers() {
    let cases = [
        ("0", "0"),
        ("-0", "0"),
        ("0.000", "0"),
        ("0e5", "0"),
        ("-0.0E-3", "0"),
        ("1", "1"),
        ("1.0", "1"),
        ("1e0", "1"),
        ("10E-1", "1"),
        ("0.1e1", "1"),
        ("-1.50", "-1.5"),
        ("100", "100"),
        ("1e2", "100"),
        ("1e20", "100000000000000000000"),
        ("1e21", "1e+21"),
        ("12e20", "1.2e+21"),
        ("0.000001", "0.000001"),
        ("1e-7", "1e-7"),
        ("12.5e-8", "1.25e-7"),
        ("-0.0000012", "-0.0000012"),
        ("123.456", "123.456"),
        ("0.5", "0.5"),
        ("9007199254740993", "9007199254740993"),
        (
            "123456789012345678901234567890",
            "1.2345678901234567890123456789e+29",
        ),
        ("1e9223372036854775807", "1e+9223372036854775807"),
        ("1e-9223372036854775808", "1e-9223372036854775808"),
        ("12e9223372036854775807", "1.2e+9223372036854775808"),
        ("0.012e-9223372036854775808", "1.2e-9223372036854775810"),
        ("-5e-324", "-5e-324"),
    ];
    for (raw, expected) in cases {
        assert_eq!(number(raw), expected, "{raw}");
    }
}

#[test]
fn distinct_values_stay_distinct() {
    let values = [
        "1",
        "10",
        "0.1",
        "1e21",
        "1e-7",
        "9007199254740992",
        "9007199254740993",
        "-1",
        "1.5",
        "15",
        "0.15",
        "1e+22",
        "1.0000000000000000001",
    ];
    let mut seen = std::collections::HashSet::new();
    for raw in values {
        assert!(seen.insert(number(raw)), "{raw} collided");
    }
}

#[test]
fn strings() {
    let cases = [
        (r#""plain""#, r#""plain""#),
        (r#""q\"b\\s\/""#, r#""q\"b\\s/""#),
        (r#""\b\t\n\f\r""#, r#""\b\t\n\f\r""#),
        (r#""\u0000\u001F\u000b""#, r#""\u0000\u001f\u000b""#),
        (
            r#""\u007f\u2028\u2029\u200b\ufeff""#,
            "\"\u{7f}\u{2028}\u{2029}\u{200b}\u{feff}\"",
        ),
        (r#""\u00e9 é \ud83d\ude00""#, "\"é é 😀\""),
        // Composed and decomposed é stay different: no normalisation.
        ("\"e\u{301}\"", "\"e\u{301}\""),
    ];
    for (text, expected) in cases {
        assert_eq!(canon(text), expected, "{text}");
    }
}

/// The word-at-a-time scan finds every byte to escape wherever it falls in a word.
#[test]
fn escapes_at_every_position() {
    let naive = |s: &str| -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\u{8}' => out.push_str("\\b"),
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                '\u{c}' => out.push_str("\\f"),
                '\r' => out.push_str("\\r"),
                c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    };
    let specials = [
        '"', '\\', '\n', '\u{0}', '\u{1f}', '\u{7f}', ' ', '!', '#', 'é', '\u{2028}',
    ];
    for len in 0..20 {
        for at in 0..len {
            for special in specials {
                for filler in ['a', 'ÿ', '~'] {
                    let s: String = (0..len)
                        .map(|i| if i == at { special } else { filler })
                        .collect();
                    let mut out = Vec::new();
                    write_string(&s, &mut out).unwrap();
                    assert_eq!(String::from_utf8(out).unwrap(), naive(&s), "{s:?}");
                }
            }
        }
    }
}

#[test]
fn member_bytes_are_each_values_canonical_bytes() {
    let node = parse(
        r#"{"b": [1, "x\n"], "a": {"z": 1e2, "y": null}, "b": 2, "c": "\""}"#,
        Dialect::Json,
        &Limits::default(),
    )
    .unwrap();
    let object = node.as_object().unwrap();
    let mut out = Vec::new();
    let members = write_canonical_members(object, &|k| k != "c", &mut out);
    assert_eq!(
        String::from_utf8(out.clone()).unwrap(),
        r#"{"a":{"y":null,"z":100},"b":2}"#
    );
    for m in &members {
        let value = object.get(m.key).unwrap();
        assert_eq!(
            &out[m.value.clone()],
            to_canonical_vec(value).as_slice(),
            "{}",
            m.key
        );
        assert!(out[m.member.clone()].starts_with(format!("\"{}\":", m.key).as_bytes()));
    }
    assert_eq!(
        members.iter().map(|m| m.key).collect::<Vec<_>>(),
        ["a", "b"]
    );
}

#[test]
fn structure_and_key_order() {
    let cases = [
        (
            " { \"b\" : [ 1 , true , null ] , \"a\" : { } } ",
            r#"{"a":{},"b":[1,true,null]}"#,
        ),
        (r#"{"a":1,"b":2,"a":3}"#, r#"{"a":3,"b":2}"#),
        // UTF-16 order puts the emoji (a surrogate, 0xD83D) before U+FB33.
        (
            "{\"\u{FB33}\":1,\"\u{1F600}\":2}",
            "{\"\u{1F600}\":2,\"\u{FB33}\":1}",
        ),
        (
            r#"{"b":1,"a":2,"B":3,"":4,"aa":5,"é":6}"#,
            r#"{"":4,"B":3,"a":2,"aa":5,"b":1,"é":6}"#,
        ),
        ("[]", "[]"),
        ("[{},[]]", "[{},[]]"),
    ];
    for (text, expected) in cases {
        assert_eq!(canon(text), expected, "{text}");
    }
    assert_eq!(compare_keys("\u{1F600}", "\u{FB33}"), Ordering::Less);
    assert_eq!(compare_keys("x\u{1F600}", "x\u{FB33}"), Ordering::Less);
    // Every pair of these in UTF-16 order, whatever they share before they differ.
    let keys = [
        "",
        "a",
        "aa",
        "ab",
        "b",
        "B",
        "é",
        "aé",
        "a\u{FB33}",
        "a\u{1F600}",
        "\u{FB33}",
        "\u{1F600}",
        "\u{E000}",
        "\u{FFFF}",
        "\u{10000}",
        "\u{7F}",
        "\u{80}",
        "a\u{80}b",
    ];
    for a in keys {
        for b in keys {
            assert_eq!(
                compare_keys(a, b),
                a.encode_utf16().cmp(b.encode_utf16()),
                "{a:?} {b:?}"
            );
        }
    }
    assert_eq!("\u{1F600}".cmp("\u{FB33}"), Ordering::Greater);
    assert_eq!(SCHEME, "c14n-v1");
}

#[test]
fn filtered_object() {
    let root = parse(
        r#"{"b":1,"hash":"x","a":{"hash":2}}"#,
        Dialect::Json,
        &Limits::default(),
    )
    .expect("valid");
    let mut out = Vec::new();
    write_canonical_object_filtered(
        root.as_object().expect("object"),
        &|k| k != "hash",
        &mut out,
    )
    .expect("vec write");
    assert_eq!(
        String::from_utf8(out).expect("utf-8"),
        r#"{"a":{"hash":2},"b":1}"#
    );
}

#[test]
fn pretty() {
    let root = parse(
        r#"{"b":[1,{"y":null,"x":"\n"},[]],"a":{},"c":1.0,"b":[true]}"#,
        Dialect::Json,
        &Limits::default(),
    )
    .expect("valid");
    let expected = "{\n  \"a\": {},\n  \"b\": [\n    true\n  ],\n  \"c\": 1\n}";
    assert_eq!(to_pretty_string(&root), expected);
    let nested = parse(r#"[[1,{"k":[]}]]"#, Dialect::Json, &Limits::default()).expect("valid");
    assert_eq!(
        to_pretty_string(&nested),
        "[\n  [\n    1,\n    {\n      \"k\": []\n    }\n  ]\n]"
    );
    assert_eq!(to_pretty_string(&Node::string("é\u{1}")), "\"é\\u0001\"");
}

// ---- property tests ----

fn string_strategy() -> impl Strategy<Value = String> {
    let special = prop_oneof![
        Just('"'),
        Just('\\'),
        Just('/'),
        Just('\n'),
        Just('\u{0}'),
        Just('\u{1f}'),
        Just('\u{7f}'),
        Just('\u{200b}'),
        Just('\u{2028}'),
        Just('\u{feff}'),
        Just('\u{e0041}'),
        Just('\u{1f600}'),
        Just('\u{fb33}'),
        Just('é'),
        // Structural characters inside strings, which no re-indenting may touch.
        Just('{'),
        Just(','),
        Just(':'),
    ];
    let c = prop_oneof![3 => proptest::char::range('a', 'e'), 2 => special, 1 => any::<char>()];
    proptest::collection::vec(c, 0..6).prop_map(|cs| cs.into_iter().collect())
}

fn number_strategy() -> impl Strategy<Value = Number> {
    "-?(0|[1-9][0-9]{0,25})(\\.[0-9]{1,8})?([eE][+-]?[0-9]{1,3})?"
        .prop_map(|raw| Number::parse(&raw).expect("regex matches the grammar"))
}

fn tree_strategy() -> impl Strategy<Value = Node> {
    let leaf = prop_oneof![
        Just(Node::null()),
        any::<bool>().prop_map(Node::bool),
        number_strategy().prop_map(|n| Node::new(Value::Number(n))),
        string_strategy().prop_map(Node::string),
    ];
    leaf.prop_recursive(4, 48, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Node::array),
            // Unique keys, so that reordering members cannot change which
            // duplicate wins.
            proptest::collection::btree_map(string_strategy(), inner, 0..5).prop_map(|map| {
                let mut object = Object::new();
                for (k, v) in map {
                    object.insert(k, v);
                }
                Node::object(object)
            }),
        ]
    })
}

/// A tiny deterministic generator so one proptest seed drives every choice
/// of the noisy serialiser.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn chance(&mut self) -> bool {
        self.next() & 1 == 0
    }
}

/// Serialises `node` with shuffled keys, random whitespace, random string
/// escapes and a random but numerically equal spelling of every number.
fn noisy(node: &Node, rng: &mut Rng, out: &mut String) {
    let ws = |rng: &mut Rng, out: &mut String| {
        for _ in 0..rng.below(3) {
            out.push([' ', '\t', '\n', '\r'][rng.below(4) as usize]);
        }
    };
    ws(rng, out);
    match &node.value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&respell(n, rng)),
        Value::String(s) => noisy_string(s, rng, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                noisy(item, rng, out);
            }
            ws(rng, out);
            out.push(']');
        }
        Value::Object(o) => {
            let mut members: Vec<&Member> = o.members.iter().collect();
            for i in (1..members.len()).rev() {
                members.swap(i, rng.below(i as u64 + 1) as usize);
            }
            out.push('{');
            for (i, m) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ws(rng, out);
                noisy_string(&m.key, rng, out);
                ws(rng, out);
                out.push(':');
                noisy(&m.value, rng, out);
            }
            ws(rng, out);
            out.push('}');
        }
    }
    ws(rng, out);
}

fn noisy_string(s: &str, rng: &mut Rng, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || rng.below(4) == 0 => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    if rng.chance() {
                        out.push_str(&format!("\\u{unit:04x}"));
                    } else {
                        out.push_str(&format!("\\u{unit:04X}"));
                    }
                }
            }
            '/' if rng.chance() => out.push_str("\\/"),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A different literal with the same numeric value.
fn respell(n: &Number, rng: &mut Rng) -> String {
    let Decomposed::NonZero {
        negative,
        digits,
        exponent,
    } = n.decompose()
    else {
        return ["0", "-0", "0.000", "0e5", "-0.0E-2"][rng.below(5) as usize].to_owned();
    };
    // value = all × 10^exp, with extra zeros on both sides of the digits.
    let leading = rng.below(3) as usize;
    let trailing = rng.below(3) as usize;
    let all = format!("{}{digits}{}", "0".repeat(leading), "0".repeat(trailing));
    let exp = exponent - trailing as i128;
    // Put the decimal point after `point` digits of `all`.
    let point = 1 + rng.below(all.len() as u64) as usize;
    let (int, frac) = all.split_at(point);
    let int = int.trim_start_matches('0');
    let written_exp = exp + frac.len() as i128;
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    out.push_str(if int.is_empty() { "0" } else { int });
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    if written_exp != 0 || rng.chance() {
        out.push(if rng.chance() { 'e' } else { 'E' });
        match (written_exp < 0, rng.chance()) {
            (true, _) => out.push('-'),
            (false, true) => out.push('+'),
            (false, false) => {}
        }
        out.push_str(&written_exp.unsigned_abs().to_string());
    }
    out
}

fn count_strings(node: &Node) -> usize {
    match &node.value {
        Value::String(_) => 1,
        Value::Array(items) => items.iter().map(count_strings).sum(),
        Value::Object(o) => o.members.iter().map(|m| 1 + count_strings(&m.value)).sum(),
        _ => 0,
    }
}

/// Applies `edit` to the `target`-th string (keys and values, depth first).
fn edit_nth_string(
    node: &mut Node,
    target: &mut usize,
    edit: &dyn Fn(&mut compact_str::CompactString),
) -> bool {
    let hit = |s: &mut compact_str::CompactString, target: &mut usize| {
        if *target == 0 {
            edit(s);
            return true;
        }
        *target -= 1;
        false
    };
    match &mut node.value {
        Value::String(s) => hit(s, target),
        Value::Array(items) => items
            .iter_mut()
            .any(|item| edit_nth_string(item, target, edit)),
        Value::Object(o) => o
            .members
            .iter_mut()
            .any(|m| hit(&mut m.key, target) || edit_nth_string(&mut m.value, target, edit)),
        _ => false,
    }
}

/// Rendering an object's members apart (two levels down) and joining them gives the bytes of
/// rendering it whole.
fn rendered_in_parts(node: &Node) -> Vec<u8> {
    let Some(object) = node.as_object() else {
        let mut out = Vec::new();
        write_pretty_at(node, 0, &mut out);
        return out;
    };
    let members = object
        .iter_unique()
        .map(|member| {
            let part = match member.value.as_object() {
                Some(inner) => Pretty::Object(
                    inner
                        .iter_unique()
                        .map(|m| {
                            let mut out = Vec::new();
                            write_pretty_at(&m.value, 2, &mut out);
                            (m.key.as_str().into(), Pretty::Rendered(out.into()))
                        })
                        .collect(),
                ),
                // Already in pieces, or rendered whole: both join alike.
                None if member.key.len() % 2 == 0 => {
                    let mut pieces = Pieces::default();
                    let mut out = Vec::new();
                    write_pretty_at(&member.value, 1, &mut out);
                    write_pretty_pieces(Pretty::Rendered(out.into()), 1, &mut pieces);
                    Pretty::Pieces(pieces.finish())
                }
                None => {
                    let mut out = Vec::new();
                    write_pretty_at(&member.value, 1, &mut out);
                    Pretty::Rendered(out.into())
                }
            };
            (member.key.as_str().into(), part)
        })
        .collect();
    let mut pieces = Pieces::default();
    write_pretty_pieces(Pretty::Object(members), 0, &mut pieces);
    pieces.finish().concat()
}

/// Large parts stay pieces of their own (not copied), small ones are joined with what is
/// around them; either way the bytes are those of the whole.
#[test]
fn large_parts_are_pieces_of_their_own() {
    let long = "x".repeat(3 * OWN_PIECE_MIN);
    let text = format!(r#"{{"b": {{"d": "{long}", "c": 1}}, "a": "{long}", "ab": 2}}"#);
    let tree = parse(&text, Dialect::Json, &Limits::default()).unwrap();
    assert_eq!(
        String::from_utf8(rendered_in_parts(&tree)).unwrap(),
        to_pretty_string(&tree)
    );
    let mut pieces = Pieces::default();
    pieces.push_bytes(b"{");
    write_pretty_pieces(
        Pretty::Rendered(Cow::Borrowed(long.as_bytes())),
        0,
        &mut pieces,
    );
    pieces.push_bytes(b"}");
    let pieces = pieces.finish();
    assert_eq!(pieces.len(), 3);
    assert!(matches!(pieces[1], Cow::Borrowed(_)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn pretty_from_canonical_bytes_is_pretty_from_the_tree(tree in tree_strategy(), indent in 0usize..7) {
        let mut from_tree = Vec::new();
        write_pretty_at(&tree, indent, &mut from_tree);
        let mut from_bytes = Vec::new();
        write_pretty_from_canonical(&to_canonical_vec(&tree), indent, &mut from_bytes);
        prop_assert_eq!(String::from_utf8(from_bytes).unwrap(), String::from_utf8(from_tree).unwrap());
    }

    #[test]
    fn rendering_in_parts_gives_the_same_bytes(tree in tree_strategy()) {
        prop_assert_eq!(
            String::from_utf8(rendered_in_parts(&tree)).unwrap(),
            to_pretty_string(&tree)
        );
    }

    #[test]
    fn noisy_spellings_canonicalise_identically(tree in tree_strategy(), seed in 1u64..) {
        let mut text = String::new();
        noisy(&tree, &mut Rng(seed), &mut text);
        let reparsed = parse(&text, Dialect::Json, &Limits::default())
            .map_err(|e| TestCaseError::fail(format!("{e} at {} in {text}", e.offset)))?;
        prop_assert_eq!(to_canonical_vec(&reparsed), to_canonical_vec(&tree), "{}", text);
    }

    /// `json::seek` lives here for the noisy serialiser: whatever the tree resolves every
    /// pointer of a noisily written text to (escaped keys, odd spacing), seeking finds at the
    /// same spans.
    #[test]
    fn seeking_finds_what_the_tree_resolves(tree in tree_strategy(), seed in 1u64..) {
        let mut text = String::new();
        noisy(&tree, &mut Rng(seed), &mut text);
        let root = parse(&text, Dialect::Json, &Limits::default())
            .map_err(|e| TestCaseError::fail(format!("{e} at {} in {text}", e.offset)))?;
        let mut pointers = Vec::new();
        every_pointer(&root, Pointer::root(), &mut pointers);
        for pointer in pointers {
            let want = root.pointer(&pointer).map(|node| crate::json::seek::Found {
                key: crate::json::pointer::resolve_key_span(&root, &pointer),
                value: node.span,
            });
            prop_assert_eq!(crate::json::seek::seek(&text, &pointer), want, "{} in {}", pointer, text);
        }
    }

    #[test]
    fn canonical_bytes_are_idempotent(tree in tree_strategy()) {
        let bytes = to_canonical_vec(&tree);
        let text = String::from_utf8(bytes.clone()).expect("utf-8");
        let reparsed = parse(&text, Dialect::Json, &Limits::default())
            .map_err(|e| TestCaseError::fail(format!("{e} in {text}")))?;
        prop_assert_eq!(to_canonical_vec(&reparsed), bytes);
        let pretty = parse(&to_pretty_string(&tree), Dialect::Json, &Limits::default())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(to_canonical_vec(&pretty), to_canonical_vec(&tree));
    }

    #[test]
    fn any_string_edit_changes_the_bytes(
        // The extra string guarantees there is something to edit.
        tree in (tree_strategy(), string_strategy())
            .prop_map(|(tree, s)| Node::array(vec![tree, Node::string(s)])),
        target in 0usize..64,
        position in 0usize..8,
        kind in 0u8..5,
        replacement in any::<char>(),
    ) {
        let edit = move |s: &mut compact_str::CompactString| {
            let boundaries: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
            let at = boundaries[position % boundaries.len()];
            let current = s[at..].chars().next();
            match (kind, current) {
                (0, _) => s.insert(at, '\u{200B}'),
                (1, _) => s.insert(at, '\u{E0041}'),
                (2, _) => s.insert(at, replacement),
                (3, Some(c)) => {
                    s.replace_range(at..at + c.len_utf8(), "");
                }
                (_, Some(c)) => {
                    let other = if replacement == c { 'x' } else { replacement };
                    let other = if other == c { 'y' } else { other };
                    s.replace_range(at..at + c.len_utf8(), other.encode_utf8(&mut [0; 4]));
                }
                (_, None) => s.push('\u{200B}'),
            }
        };
        let mut edited = tree.clone();
        let mut remaining = target % count_strings(&tree);
        prop_assert!(edit_nth_string(&mut edited, &mut remaining, &edit));
        prop_assert_ne!(to_canonical_vec(&edited), to_canonical_vec(&tree));
    }
}

/// The pointer of every value in `node`, depth first.
fn every_pointer(node: &Node, at: Pointer, out: &mut Vec<Pointer>) {
    match &node.value {
        Value::Object(object) => {
            for member in object.iter_unique() {
                every_pointer(&member.value, at.key(&member.key), out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                every_pointer(item, at.index(i), out);
            }
        }
        _ => {}
    }
    out.push(at);
}
