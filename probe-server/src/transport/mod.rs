//! Transports that record every frame before anything interprets it.

use sha2::{Digest, Sha256};

use crate::journal::{RawText, HEAD_BYTES};

pub mod http;
pub mod stdio;

/// The largest frame either transport parses: a stdio line (a CRLF ending's CR aside) or an HTTP
/// POST body. A longer one is journalled as length + sha256 + head, never held whole, and
/// answered with a JSON-RPC error (-32600) before anything parses it. It is the SDK's own limit
/// for HTTP bodies, so both transports refuse the same frames.
pub const MAX_FRAME: usize = 4 * 1024 * 1024;

/// The most JSON values a frame may hold. Parsing multiplies small values (an array of a million
/// zeros is 2 MB of text and over 100 MB as a tree, held several times over on its way into the
/// SDK's types), so a frame with more is refused before it is parsed, like an oversize one.
pub const MAX_VALUES: usize = 128 * 1024;

/// How many JSON values `bytes` holds at least (commas, colons and openings outside strings,
/// plus one), if that is more than `limit`: a linear scan that allocates nothing.
pub fn too_many_values(bytes: &[u8], limit: usize) -> Option<usize> {
    let (mut count, mut in_string, mut escaped) = (1usize, false, false);
    for &b in bytes {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b',' | b':' | b'[' | b'{' => count += 1,
            _ => {}
        }
    }
    (count > limit).then_some(count)
}

/// A line over the limit, summarised as it streams by: length, digest and head of its bytes
/// (without the CR of a CRLF ending, as a line that fits is kept).
pub(crate) struct Summary {
    hasher: Sha256,
    len: usize,
    head: Vec<u8>,
    /// A CR ended the last piece: it belongs to the line unless the LF comes next.
    held_cr: bool,
}

impl Summary {
    pub(crate) fn new() -> Summary {
        Summary { hasher: Sha256::new(), len: 0, head: Vec::new(), held_cr: false }
    }

    pub(crate) fn absorb(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
        self.len += bytes.len();
        let room = HEAD_BYTES.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..room.min(bytes.len())]);
    }

    /// Takes the next piece of the line; `last` when the LF follows it.
    pub(crate) fn feed(&mut self, piece: &[u8], last: bool) {
        if std::mem::take(&mut self.held_cr) && !(last && piece.is_empty()) {
            self.absorb(b"\r");
        }
        let (body, cr) = match piece.split_last() {
            Some((b'\r', rest)) => (rest, true),
            _ => (piece, false),
        };
        self.absorb(body);
        self.held_cr = cr && !last;
    }

    /// Length, sha256 (hex) and head of everything taken.
    pub(crate) fn finish(mut self) -> (usize, String, Vec<u8>) {
        if std::mem::take(&mut self.held_cr) {
            self.absorb(b"\r");
        }
        let sha256 = self.hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
        (self.len, sha256, self.head)
    }

    pub(crate) fn raw(self) -> RawText {
        let (len, sha256, head) = self.finish();
        RawText::summary(len, &sha256, &head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_counted_outside_strings_only() {
        assert_eq!(too_many_values(b"[0,0,0,0]", 3), Some(5));
        assert_eq!(too_many_values(b"[0,0,0,0]", 5), None);
        assert_eq!(too_many_values(br#"{"a":"[,,,:{\",,,"}"#, 2), Some(3));
        assert_eq!(too_many_values(br#"{"a":"[,,,:{\",,,"}"#, 3), None);
    }
}
