//! A rule's pattern widened into the prefilter the combined set runs: pieces that all match
//! somewhere in a string wherever the pattern matches it, while the rule's own regex confirms
//! every hit. Each step only widens (it cannot lose a match), and each removes what made the
//! combined set slow to compile or to run:
//!
//! - the pattern is cut into pieces at its gaps (`[^.\n]{0,80}`, `.*?`): the set reports
//!   each piece, and a pattern is a candidate when all its pieces matched. A lazy DFA running
//!   many patterns with open gaps at once builds a state for every combination of them, which
//!   was most of the time the set spent on a string; pieces without gaps end within a few
//!   characters, so the states stay few;
//! - word-boundary assertions are dropped: Unicode `\b` is what the lazy DFA cannot run on
//!   non-ASCII text;
//! - repetition counts are loosened (`x{2,5}` becomes `x{2,}`, `x{0,9}` becomes `x*`, at most
//!   3 as the lower bound): the DFA tracks a count with one state per step;
//! - negated classes lose case-insensitivity (`[^.\n]` becomes `(?-i:[^.\n])`): case-folding
//!   a class that spans nearly all of Unicode was most of the set's compile time; without
//!   folding the negation excludes fewer characters (`(?i)[^a]` excludes `A` too);
//! - for ASCII text, the non-ASCII members of bracketed classes go: they cannot match ASCII
//!   text (nor, in a negated class, exclude any of it), and a pattern compiled without Unicode
//!   rejects them (`[ \x{3000}]`).
//!
//! A pattern the parser rejects is one piece, as it is; compiling the rule then names the error.

use regex_syntax::ast::{self, Ast};

use super::dfa_set::Text;

/// The largest lower bound a loosened repetition keeps.
const MAX_LOWER_BOUND: u32 = 3;

/// The prefilter pieces of `pattern` for `text`; the same number of pieces for either text.
pub fn pieces(pattern: &str, text: Text) -> Vec<String> {
    let Ok(tree) = ast::parse::Parser::new().parse(pattern) else {
        return vec![pattern.to_string()];
    };
    split_at_gaps(tree)
        .into_iter()
        .map(|mut piece| {
            widen(&mut piece);
            if text == Text::Ascii {
                drop_non_ascii_class_members(&mut piece);
            }
            let mut out = String::with_capacity(pattern.len());
            match ast::print::Printer::new().print(&piece, &mut out) {
                Ok(()) => out,
                Err(_) => pattern.to_string(),
            }
        })
        .collect()
}

/// The top-level sequence cut at its gaps. Flag settings (`(?i)`) apply to everything after
/// them, so each later piece repeats them. A pattern that is all gap is one empty piece (it
/// matches everywhere).
fn split_at_gaps(mut tree: Ast) -> Vec<Ast> {
    if is_gap(&tree) {
        return vec![Ast::empty(*tree.span())];
    }
    let Ast::Concat(concat) = &mut tree else {
        return vec![tree];
    };
    let span = concat.span;
    let asts = std::mem::take(&mut concat.asts);
    let mut pieces = Vec::new();
    let mut flags: Vec<Ast> = Vec::new();
    let mut current: Vec<Ast> = Vec::new();
    let mut finish = |current: &mut Vec<Ast>, flags: &[Ast]| {
        if current.iter().any(|n| !matches!(n, Ast::Flags(_))) {
            let asts = std::mem::replace(current, flags.to_vec());
            pieces.push(Ast::concat(ast::Concat { span, asts }));
        } else {
            *current = flags.to_vec();
        }
    };
    for node in asts {
        if is_gap(&node) {
            finish(&mut current, &flags);
            continue;
        }
        if matches!(node, Ast::Flags(_)) {
            flags.push(node.clone());
        }
        current.push(node);
    }
    finish(&mut current, &flags);
    if pieces.is_empty() {
        pieces.push(Ast::empty(span));
    }
    pieces
}

/// A repetition of "almost anything": a negated class or `.`, more than once.
fn is_gap(node: &Ast) -> bool {
    let Ast::Repetition(repetition) = node else {
        return false;
    };
    let once_at_most = matches!(repetition.op.kind, ast::RepetitionKind::ZeroOrOne)
        || matches!(
            repetition.op.kind,
            ast::RepetitionKind::Range(ast::RepetitionRange::Exactly(0 | 1))
                | ast::RepetitionKind::Range(ast::RepetitionRange::Bounded(_, 0 | 1))
        );
    !once_at_most && is_wide(&repetition.ast)
}

fn is_wide(node: &Ast) -> bool {
    match node {
        Ast::Dot(_) => true,
        Ast::Group(group) if matches!(group.kind, ast::GroupKind::NonCapturing(_)) => {
            is_wide(&group.ast)
        }
        _ => is_negated_class(node),
    }
}

fn widen(node: &mut Ast) {
    if is_negated_class(node) {
        let span = *node.span();
        let class = std::mem::replace(node, Ast::empty(span));
        *node = case_sensitive(span, class);
        return;
    }
    match node {
        Ast::Assertion(assertion) if is_word_boundary(&assertion.kind) => {
            *node = Ast::empty(assertion.span);
        }
        Ast::Repetition(repetition) => {
            if let ast::RepetitionKind::Range(range) = &repetition.op.kind {
                let at_least = match range {
                    ast::RepetitionRange::Exactly(m)
                    | ast::RepetitionRange::AtLeast(m)
                    | ast::RepetitionRange::Bounded(m, _) => *m,
                };
                repetition.op.kind = match at_least.min(MAX_LOWER_BOUND) {
                    0 => ast::RepetitionKind::ZeroOrMore,
                    1 => ast::RepetitionKind::OneOrMore,
                    m => ast::RepetitionKind::Range(ast::RepetitionRange::AtLeast(m)),
                };
            }
            widen(&mut repetition.ast);
        }
        Ast::Group(group) => widen(&mut group.ast),
        Ast::Alternation(alternation) => alternation.asts.iter_mut().for_each(widen),
        Ast::Concat(concat) => concat.asts.iter_mut().for_each(widen),
        _ => {}
    }
}

fn drop_non_ascii_class_members(node: &mut Ast) {
    match node {
        Ast::ClassBracketed(class) => {
            if let ast::ClassSet::Item(item) = &mut class.kind {
                // A class left with no members would not parse: keep it whole instead.
                let mut ascii = item.clone();
                if keep_ascii(&mut ascii) {
                    *item = ascii;
                }
            }
        }
        Ast::Repetition(repetition) => drop_non_ascii_class_members(&mut repetition.ast),
        Ast::Group(group) => drop_non_ascii_class_members(&mut group.ast),
        Ast::Alternation(alternation) => alternation
            .asts
            .iter_mut()
            .for_each(drop_non_ascii_class_members),
        Ast::Concat(concat) => concat
            .asts
            .iter_mut()
            .for_each(drop_non_ascii_class_members),
        _ => {}
    }
}

/// Narrows a class item to ASCII; false when nothing of it is left.
fn keep_ascii(item: &mut ast::ClassSetItem) -> bool {
    match item {
        ast::ClassSetItem::Literal(literal) => literal.c.is_ascii(),
        ast::ClassSetItem::Range(range) => {
            if !range.end.c.is_ascii() {
                range.end.c = '\x7f';
                range.end.kind = ast::LiteralKind::HexBrace(ast::HexLiteralKind::X);
            }
            range.start.c.is_ascii()
        }
        ast::ClassSetItem::Union(union) => {
            union.items.retain_mut(keep_ascii);
            !union.items.is_empty()
        }
        _ => true,
    }
}

fn is_negated_class(node: &Ast) -> bool {
    match node {
        Ast::ClassBracketed(class) => class.negated,
        Ast::ClassPerl(class) => class.negated,
        Ast::ClassUnicode(class) => class.is_negated(),
        _ => false,
    }
}

/// `(?-i:node)`.
pub(super) fn case_sensitive(span: ast::Span, node: Ast) -> Ast {
    let item = |kind| ast::FlagsItem { span, kind };
    Ast::group(ast::Group {
        span,
        kind: ast::GroupKind::NonCapturing(ast::Flags {
            span,
            items: vec![
                item(ast::FlagsItemKind::Negation),
                item(ast::FlagsItemKind::Flag(ast::Flag::CaseInsensitive)),
            ],
        }),
        ast: Box::new(node),
    })
}

fn is_word_boundary(kind: &ast::AssertionKind) -> bool {
    use ast::AssertionKind::*;
    matches!(
        kind,
        WordBoundary
            | NotWordBoundary
            | WordBoundaryStart
            | WordBoundaryEnd
            | WordBoundaryStartAngle
            | WordBoundaryEndAngle
            | WordBoundaryStartHalf
            | WordBoundaryEndHalf
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unicode(pattern: &str) -> Vec<String> {
        pieces(pattern, Text::Unicode)
    }

    #[test]
    fn cuts_at_gaps_and_repeats_flags() {
        let cases: [(&str, &[&str]); 7] = [
            (r"send[^.\n]{0,80}to\s+http", &["send", r"to\s+http"]),
            (r"(?i)a.*b(?s:.)+?c", &["(?i)a", "(?i)b", "(?i)c"]),
            (r"<!--(?s:.)*?(-->|$)", &["<!--", "(-->|$)"]),
            (r"[^x]*", &[""]),
            (r"a|b[^.]*c", &[r"a|b(?-i:[^.])*c"]),
            (r"a[^.]?b", &[r"a(?-i:[^.])?b"]),
            (r"unbalanced(", &["unbalanced("]),
        ];
        for (pattern, want) in cases {
            assert_eq!(unicode(pattern), want, "{pattern}");
        }
    }

    #[test]
    fn drops_word_boundaries_and_loosens_counts() {
        let cases = [
            (r"\bignore\b", "ignore"),
            (r"a\\b", r"a\\b"),
            (r"\Bx\d", r"x\d"),
            (r"(?i)\b(oubliez|ignorez)\s+", r"(?i)(oubliez|ignorez)\s+"),
            (
                r"[a-z]{40}|x{2,5}?|(ab){1,3}|y{0,9}",
                r"[a-z]{3,}|x{2,}?|(ab)+|y*",
            ),
            (r"(?m)^\s*#{1,4}\s*$", r"(?m)^\s*#+\s*$"),
            (
                r"a\S\W\P{L}[^\s]x[a-z]",
                r"a(?-i:\S)(?-i:\W)(?-i:\P{L})(?-i:[^\s])x[a-z]",
            ),
        ];
        for (pattern, want) in cases {
            assert_eq!(unicode(pattern), [want], "{pattern}");
        }
    }

    #[test]
    fn the_ascii_pieces_drop_non_ascii_class_members() {
        let cases = [
            (r"[ \t\x{a0}\x{3000}]{80,}\S", r"[ \t]{3,}(?-i:\S)"),
            (r"[a-é]x[^äb]", r"[a-\x{7F}]x(?-i:[^b])"),
            // Nothing would be left: kept whole (and run in its Unicode form).
            (r"[é]", r"[é]"),
        ];
        for (pattern, want) in cases {
            assert_eq!(pieces(pattern, Text::Ascii), [want], "{pattern}");
        }
    }
}
