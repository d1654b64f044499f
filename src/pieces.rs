//! Output written in pieces, one after the other, instead of joined first: a large lock or
//! report is never a second whole copy in memory.

use std::io::Write;

/// Writes `pieces` to `out` through a 1 MB buffer: most pieces are a few kilobytes, and
/// buffered they go out in few system calls.
pub fn write_all(out: impl Write, pieces: &[impl AsRef<[u8]>]) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::with_capacity(1 << 20, out);
    for piece in pieces {
        out.write_all(piece.as_ref())?;
    }
    out.flush()
}

/// Whether `pieces`, one after the other, are exactly `bytes`.
pub fn same_bytes(pieces: &[impl AsRef<[u8]>], bytes: &[u8]) -> bool {
    let mut rest = bytes;
    for piece in pieces {
        match rest.strip_prefix(piece.as_ref()) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_and_writes_pieces_as_one() {
        let pieces = ["ab", "", "cd"];
        assert!(same_bytes(&pieces, b"abcd"));
        assert!(!same_bytes(&pieces, b"abc"));
        assert!(!same_bytes(&pieces, b"abcde"));
        assert!(!same_bytes(&pieces, b"abdc"));
        let mut out = Vec::new();
        write_all(&mut out, &pieces).unwrap();
        assert_eq!(out, b"abcd");
    }
}
