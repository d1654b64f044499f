//! Characters a reader cannot see, and how reports make them visible.

/// True for characters that render as nothing (or as ordinary space) but change what a model
/// reads or a hash covers: controls, format characters (zero-width, bidi, tags), fillers,
/// variation selectors and unusual spaces.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{a0}' | '\u{ad}' | '\u{34f}' | '\u{61c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
        | '\u{180b}'..='\u{180f}' | '\u{2000}'..='\u{200f}' | '\u{2028}'..='\u{202f}'
        | '\u{205f}'..='\u{206f}' | '\u{3000}' | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}'
        | '\u{ffa0}' | '\u{fff9}'..='\u{fffb}' | '\u{1d173}'..='\u{1d17a}' | '\u{e0000}'..='\u{e007f}'
        | '\u{e0100}'..='\u{e01ef}')
}

/// The Latin letter a Cyrillic or Greek letter is drawn like (`а` and `α` for `a`), lowercase:
/// what a homoglyph passes for.
pub fn latin_lookalike(c: char) -> Option<char> {
    Some(match c {
        'а' | 'А' | 'α' | 'Α' => 'a',
        'в' | 'В' | 'β' | 'Β' => 'b',
        'с' | 'С' | 'ϲ' => 'c',
        'ԁ' => 'd',
        'е' | 'Е' | 'ε' | 'Ε' => 'e',
        'һ' | 'Н' | 'Η' => 'h',
        // Dotted and dotless `i`: the Latin `I` is a Latin `i` too. Palochka `ӏ` has no dot.
        'і' | 'І' | 'ι' | 'Ι' => 'i',
        'ӏ' | 'Ӏ' => 'l',
        'ј' | 'Ј' => 'j',
        'к' | 'К' | 'κ' | 'Κ' => 'k',
        'М' | 'Μ' => 'm',
        'п' | 'ν' | 'Ν' => 'n',
        'о' | 'О' | 'ο' | 'Ο' => 'o',
        'р' | 'Р' | 'ρ' | 'Ρ' => 'p',
        'ѕ' | 'Ѕ' => 's',
        'т' | 'Т' | 'τ' | 'Τ' => 't',
        'υ' => 'u',
        'х' | 'Х' | 'χ' | 'Χ' => 'x',
        'у' | 'У' | 'γ' => 'y',
        'Ζ' => 'z',
        _ => return None,
    })
}

/// Names longer than this (in characters) are cut short in report lines.
const NAME_DISPLAY_CHARS: usize = 120;

/// A name taken from the input (a tool, a server) as a report line shows it: invisible
/// characters made visible, and cut short with its length given, so that a hostile name can
/// neither drive the terminal (an ANSI escape) nor flood the log (a 1 MB name).
pub fn display_name(name: &str) -> String {
    let visible = make_visible(name);
    match visible.char_indices().nth(NAME_DISPLAY_CHARS) {
        Some((cut, _)) => format!(
            "{}… ({} characters)",
            visible.get(..cut).unwrap_or_default(),
            name.chars().count()
        ),
        None => visible,
    }
}

/// The text with every invisible character written as `<U+XXXX>`, and newlines and tabs as
/// `\n` and `\t`, so a diff or message shows exactly what changed.
pub fn make_visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if is_invisible(c) => out.push_str(&format!("<U+{:04X}>", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_invisible_characters() {
        let cases = [
            ("plain text", "plain text"),
            ("a\u{200b}b", "a<U+200B>b"),
            ("line\nnext\tcol", "line\\nnext\\tcol"),
            ("rtl\u{202e}x", "rtl<U+202E>x"),
            ("tag\u{e0041}", "tag<U+E0041>"),
            ("café 中文 😀", "café 中文 😀"),
            ("nb\u{a0}sp", "nb<U+00A0>sp"),
        ];
        for (input, want) in cases {
            assert_eq!(make_visible(input), want);
        }
    }
}
