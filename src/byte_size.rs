//! Byte sizes as people write them (`64MiB`, `2G`, `1048576`), for the file-size cap.

use std::fmt;

use serde::Deserialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ByteSize(pub u64);

/// Suffixes are binary multiples whether or not they say `i`: a size cap is about memory, and
/// `64M` meaning 64 000 000 would surprise nobody less than `64MiB` meaning 64 × 2^20.
const UNITS: [(&str, u64); 4] = [
    ("K", 1 << 10),
    ("M", 1 << 20),
    ("G", 1 << 30),
    ("T", 1 << 40),
];

impl ByteSize {
    pub fn parse(s: &str) -> Result<ByteSize, String> {
        let text = s.trim();
        let digits_end = text
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len());
        let (digits, suffix) = text.split_at(digits_end);
        let invalid = || {
            format!("`{s}` is not a size: write bytes (1048576) or 64K, 64M, 2G (KiB, MiB, GiB)")
        };
        let number: u64 = digits.parse().map_err(|_| invalid())?;
        let unit = suffix.trim().trim_end_matches(['B', 'b']);
        let unit = unit.strip_suffix('i').unwrap_or(unit);
        let multiplier = if unit.is_empty() {
            1
        } else {
            UNITS
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(unit))
                .map(|&(_, m)| m)
                .ok_or_else(invalid)?
        };
        let bytes = number
            .checked_mul(multiplier)
            .ok_or_else(|| format!("`{s}` is too large"))?;
        if bytes == 0 {
            return Err("a size limit of 0 would reject every file".to_owned());
        }
        Ok(ByteSize(bytes))
    }
}

impl fmt::Display for ByteSize {
    /// The largest unit that divides the size exactly, so `64MiB` prints as it was written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, multiplier) in UNITS.iter().rev() {
            if self.0.is_multiple_of(*multiplier) {
                return write!(f, "{}{name}iB", self.0 / multiplier);
            }
        }
        write!(f, "{} bytes", self.0)
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ByteSize, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Bytes(u64),
            Text(String),
        }
        match Written::deserialize(d)? {
            Written::Bytes(n) => ByteSize::parse(&n.to_string()),
            Written::Text(s) => ByteSize::parse(&s),
        }
        .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bytes_and_binary_units() {
        for (text, bytes) in [
            ("1048576", 1 << 20),
            ("64MiB", 64 << 20),
            ("64M", 64 << 20),
            ("64 mb", 64 << 20),
            ("2G", 2 << 30),
            ("3k", 3 << 10),
            ("1TiB", 1 << 40),
        ] {
            assert_eq!(ByteSize::parse(text), Ok(ByteSize(bytes)), "{text}");
        }
    }

    #[test]
    fn rejects_nonsense_zero_and_overflow() {
        for text in ["", "MiB", "12X", "1.5M", "-1", "0", "99999999999T"] {
            assert!(ByteSize::parse(text).is_err(), "{text}");
        }
    }

    #[test]
    fn displays_in_the_largest_exact_unit() {
        assert_eq!(ByteSize(64 << 20).to_string(), "64MiB");
        assert_eq!(ByteSize(1536).to_string(), "1536 bytes");
        assert_eq!(ByteSize(3 << 10).to_string(), "3KiB");
    }
}
