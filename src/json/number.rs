//! JSON numbers, kept as their source literal so no precision is ever lost.

use std::fmt;

use compact_str::CompactString;

/// A JSON number literal exactly as written; always valid RFC 8259 number syntax.
///
/// Keeping the text (rather than an `f64`) lets canonicalisation stay exact and
/// injective: `9007199254740993` and `9007199254740992` must never collide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Number(CompactString);

/// Why a byte sequence is not a JSON number; each variant carries the offset
/// of the offending byte so the parser can point at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NumberError {
    MissingIntDigit(usize),
    LeadingZero(usize),
    MissingFracDigit(usize),
    MissingExpDigit(usize),
    /// The exponent's value does not fit in an `i64`; offset is the number start.
    ExponentRange(usize),
}

/// Scans one number starting at `start` and returns the offset just past it.
///
/// Shared by the parser and [`Number::parse`] so both accept the same grammar.
pub(super) fn scan(bytes: &[u8], start: usize) -> Result<usize, NumberError> {
    let digit_at = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let skip_digits = |mut i: usize| {
        while digit_at(i) {
            i += 1;
        }
        i
    };
    let mut i = start;
    if bytes.get(i) == Some(&b'-') {
        i += 1;
    }
    match bytes.get(i) {
        Some(b'0') => {
            i += 1;
            if digit_at(i) {
                return Err(NumberError::LeadingZero(i - 1));
            }
        }
        Some(b'1'..=b'9') => i = skip_digits(i + 1),
        _ => return Err(NumberError::MissingIntDigit(i)),
    }
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        if !digit_at(i) {
            return Err(NumberError::MissingFracDigit(i));
        }
        i = skip_digits(i);
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        let negative = match bytes.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        if !digit_at(i) {
            return Err(NumberError::MissingExpDigit(i));
        }
        let digits_start = i;
        i = skip_digits(i);
        let digits = bytes.get(digits_start..i).unwrap_or_default();
        if exponent_value(negative, digits).is_none() {
            return Err(NumberError::ExponentRange(start));
        }
    }
    Ok(i)
}

/// The exponent as an `i64`, or `None` when it does not fit; leading zeros are
/// allowed by the grammar, so they must not count towards the size limit.
fn exponent_value(negative: bool, digits: &[u8]) -> Option<i64> {
    let significant = digits
        .iter()
        .position(|&d| d != b'0')
        .and_then(|p| digits.get(p..))
        .unwrap_or_default();
    // 20 digits always fit in i128, so the accumulation below cannot overflow.
    if significant.len() > 20 {
        return None;
    }
    let magnitude = significant
        .iter()
        .fold(0i128, |acc, d| acc * 10 + i128::from(d - b'0'));
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

/// A number split into exact parts: value = (-1)^negative × digits × 10^exponent,
/// with `digits` free of leading and trailing zeros.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Decomposed {
    Zero,
    NonZero {
        negative: bool,
        digits: String,
        exponent: i128,
    },
}

impl Number {
    /// Validates `raw` against the RFC 8259 number grammar (no surrounding
    /// whitespace) and rejects exponents outside `i64`, as the parser does.
    pub fn parse(raw: &str) -> Option<Number> {
        match scan(raw.as_bytes(), 0) {
            Ok(end) if end == raw.len() => Some(Number(raw.into())),
            _ => None,
        }
    }

    /// Wraps text the caller has already validated with [`scan`].
    pub(super) fn from_validated(raw: CompactString) -> Number {
        Number(raw)
    }

    pub fn from_u64(n: u64) -> Number {
        Number(compact_str::ToCompactString::to_compact_string(&n))
    }

    /// The literal exactly as written in the source.
    pub fn raw(&self) -> &str {
        &self.0
    }

    /// The value as a `u64` when it is a non-negative integer that fits,
    /// whatever its spelling: `10`, `10.0`, `1e1` and `100e-1` all give 10,
    /// and `-0` gives 0. This matches canonical equality, so two literals with
    /// the same canonical form always agree here.
    pub fn as_u64(&self) -> Option<u64> {
        match self.decompose() {
            Decomposed::Zero => Some(0),
            Decomposed::NonZero {
                negative: false,
                digits,
                exponent,
            } => {
                let zeros = usize::try_from(exponent).ok()?;
                // u64::MAX has 20 digits; anything longer cannot fit, and the
                // check keeps huge exponents from allocating.
                if digits.len().checked_add(zeros)? > 20 {
                    return None;
                }
                let mut text = digits;
                text.extend(std::iter::repeat_n('0', zeros));
                text.parse().ok()
            }
            Decomposed::NonZero { negative: true, .. } => None,
        }
    }

    /// The nearest `f64`, or `None` when the magnitude overflows to infinity.
    pub fn as_f64(&self) -> Option<f64> {
        self.0.parse::<f64>().ok().filter(|f| f.is_finite())
    }

    /// Splits the literal into exact parts; the basis of canonical numbers.
    pub(crate) fn decompose(&self) -> Decomposed {
        let bytes = self.0.as_bytes();
        let negative = bytes.first() == Some(&b'-');
        let mut digits = String::with_capacity(bytes.len());
        let mut fraction_len: i128 = 0;
        let mut exponent: i128 = 0;
        let mut exponent_negative = false;
        let mut state = 0u8; // 0 integer part, 1 fraction, 2 exponent
        for &b in bytes {
            match (state, b) {
                (_, b'-') if state == 2 => exponent_negative = true,
                (_, b'-' | b'+') => {}
                (0, b'.') => state = 1,
                (_, b'e' | b'E') => state = 2,
                (2, d) => {
                    // Saturating: validated literals have at most 20
                    // significant exponent digits, so this never saturates.
                    exponent = exponent
                        .saturating_mul(10)
                        .saturating_add(i128::from(d - b'0'));
                }
                (s, d) => {
                    digits.push(char::from(d));
                    if s == 1 {
                        fraction_len += 1;
                    }
                }
            }
        }
        if exponent_negative {
            exponent = -exponent;
        }
        let leading = digits.bytes().take_while(|&d| d == b'0').count();
        let digits = digits.get(leading..).unwrap_or_default();
        let significant = digits.trim_end_matches('0');
        if significant.is_empty() {
            return Decomposed::Zero;
        }
        let trailing = i128::try_from(digits.len() - significant.len()).unwrap_or(i128::MAX);
        Decomposed::NonZero {
            negative,
            digits: significant.to_owned(),
            exponent: exponent - fraction_len + trailing,
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar() {
        let valid = [
            "0",
            "-0",
            "1",
            "-1",
            "10",
            "0.5",
            "-0.5",
            "1e5",
            "1E5",
            "1e+5",
            "1e-5",
            "1.5e10",
            "123456789012345678901234567890",
            "0e0",
            "1e0009223372036854775807",
            "1e-9223372036854775808",
        ];
        for raw in valid {
            assert!(Number::parse(raw).is_some(), "{raw} should be valid");
        }
        let invalid = [
            "",
            "-",
            "+1",
            "01",
            "-01",
            ".5",
            "1.",
            "1.e5",
            "1e",
            "1e+",
            "NaN",
            "Infinity",
            " 1",
            "1 ",
            "0x10",
            "1e9223372036854775808",
            "1e-9223372036854775809",
            "1_000",
        ];
        for raw in invalid {
            assert!(Number::parse(raw).is_none(), "{raw} should be invalid");
        }
    }

    #[test]
    fn scan_errors_point_at_the_problem() {
        let cases = [
            ("-x", NumberError::MissingIntDigit(1)),
            ("012", NumberError::LeadingZero(0)),
            ("1.x", NumberError::MissingFracDigit(2)),
            ("1e+", NumberError::MissingExpDigit(3)),
            ("1e99999999999999999999", NumberError::ExponentRange(0)),
        ];
        for (raw, expected) in cases {
            assert_eq!(scan(raw.as_bytes(), 0), Err(expected), "{raw}");
        }
    }

    #[test]
    fn as_u64() {
        let cases = [
            ("0", Some(0)),
            ("-0", Some(0)),
            ("-0.0e7", Some(0)),
            ("42", Some(42)),
            ("42.0", Some(42)),
            ("4.2e1", Some(42)),
            ("420e-1", Some(42)),
            ("4.25e1", None),
            ("-1", None),
            ("18446744073709551615", Some(u64::MAX)),
            ("18446744073709551616", None),
            ("1e19", Some(10_000_000_000_000_000_000)),
            ("1e20", None),
            ("1e9223372036854775807", None),
            ("0.5", None),
        ];
        for (raw, expected) in cases {
            let n = Number::parse(raw).expect(raw);
            assert_eq!(n.as_u64(), expected, "{raw}");
        }
        assert_eq!(Number::from_u64(7).as_u64(), Some(7));
        assert_eq!(Number::from_u64(7).raw(), "7");
    }

    #[test]
    fn as_f64() {
        let n = |raw: &str| Number::parse(raw).expect(raw);
        assert_eq!(n("1.5").as_f64(), Some(1.5));
        assert_eq!(n("-2e3").as_f64(), Some(-2000.0));
        assert_eq!(n("1e400").as_f64(), None);
        assert_eq!(n("1e-400").as_f64(), Some(0.0));
    }

    #[test]
    fn decompose() {
        let nz = |negative, digits: &str, exponent| Decomposed::NonZero {
            negative,
            digits: digits.to_owned(),
            exponent,
        };
        let cases = [
            ("0", Decomposed::Zero),
            ("-0.000e5", Decomposed::Zero),
            ("100", nz(false, "1", 2)),
            ("-0.0120", nz(true, "12", -3)),
            ("12.5e-3", nz(false, "125", -4)),
            (
                "1e-9223372036854775808",
                nz(false, "1", -9223372036854775808),
            ),
        ];
        for (raw, expected) in cases {
            assert_eq!(
                Number::parse(raw).expect(raw).decompose(),
                expected,
                "{raw}"
            );
        }
    }
}
