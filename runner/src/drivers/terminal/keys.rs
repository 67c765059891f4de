//! Key names used in profiles and the bytes a terminal sends for them.

/// The bytes for a key name, or `None` for a name this table does not know.
pub fn bytes(name: &str) -> Option<&'static [u8]> {
    Some(match name {
        "Enter" => b"\r",
        "Esc" => b"\x1b",
        "Tab" => b"\t",
        "Space" => b" ",
        "Backspace" => b"\x7f",
        "Up" => b"\x1b[A",
        "Down" => b"\x1b[B",
        "Right" => b"\x1b[C",
        "Left" => b"\x1b[D",
        "Ctrl-C" => b"\x03",
        "Ctrl-U" => b"\x15",
        "Ctrl-D" => b"\x04",
        "Home" => b"\x1b[H",
        "End" => b"\x1b[F",
        _ => return None,
    })
}

/// A key a terminal sent, as the fake terminal host reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Enter,
    Esc,
    Tab,
    Backspace,
    Up,
    Down,
    Left,
    Right,
    CtrlC,
    CtrlU,
    CtrlD,
    Home,
    End,
}

/// Splits what a terminal sent into keys. A lone ESC is the Esc key; ESC `[` X is an arrow.
#[cfg(test)]
pub fn parse(input: &str) -> Vec<Key> {
    let mut reader = KeyReader::default();
    let mut keys = reader.feed(input.as_bytes());
    keys.extend(reader.flush());
    keys
}

/// Turns a terminal's input into keys as it arrives, read by read. A read can end inside a key: an
/// arrow's `ESC [ B` or a character's UTF-8 bytes split between two reads are held until the
/// next read completes them; [`KeyReader::flush`] gives up on them (a lone ESC is then the Esc key).
#[derive(Debug, Default)]
pub struct KeyReader {
    held: Vec<u8>,
}

impl KeyReader {
    /// The keys `bytes` complete, with whatever an earlier read left unfinished before them.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Key> {
        self.held.extend_from_slice(bytes);
        let mut keys = Vec::new();
        let mut at = 0;
        while at < self.held.len() {
            match next_key(&self.held[at..]) {
                Read::Key(key, used) => {
                    keys.extend(key);
                    at += used;
                }
                Read::Unfinished => break,
            }
        }
        self.held.drain(..at);
        keys
    }

    /// Whether a key is waiting for the rest of its bytes.
    pub fn holds(&self) -> bool {
        !self.held.is_empty()
    }

    /// The keys held back, taken as they are: a lone ESC is Esc, an unfinished sequence or
    /// character nothing.
    pub fn flush(&mut self) -> Vec<Key> {
        let held = std::mem::take(&mut self.held);
        match held.as_slice() {
            [0x1b] => vec![Key::Esc],
            _ => Vec::new(),
        }
    }
}

/// What the start of a terminal's input holds.
enum Read {
    /// A key (none for bytes that name no key) and how many bytes it took.
    Key(Option<Key>, usize),
    /// The start of a key whose other bytes have not arrived.
    Unfinished,
}

fn next_key(bytes: &[u8]) -> Read {
    let key = match bytes[0] {
        b'\r' | b'\n' => Key::Enter,
        b'\t' => Key::Tab,
        0x7f | 0x08 => Key::Backspace,
        0x03 => Key::CtrlC,
        0x15 => Key::CtrlU,
        0x04 => Key::CtrlD,
        0x1b => {
            return match bytes.get(1) {
                None => Read::Unfinished,
                Some(b'[') => match bytes.get(2) {
                    None => Read::Unfinished,
                    Some(b'A') => Read::Key(Some(Key::Up), 3),
                    Some(b'B') => Read::Key(Some(Key::Down), 3),
                    Some(b'C') => Read::Key(Some(Key::Right), 3),
                    Some(b'D') => Read::Key(Some(Key::Left), 3),
                    Some(b'H') => Read::Key(Some(Key::Home), 3),
                    Some(b'F') => Read::Key(Some(Key::End), 3),
                    Some(_) => Read::Key(None, 3),
                },
                Some(_) => Read::Key(Some(Key::Esc), 1),
            };
        }
        first => {
            let len = match first {
                0x00..=0x7f => 1,
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf7 => 4,
                _ => return Read::Key(None, 1),
            };
            let Some(encoded) = bytes.get(..len) else { return Read::Unfinished };
            return match std::str::from_utf8(encoded).ok().and_then(|s| s.chars().next()) {
                Some(c) if !c.is_control() => Read::Key(Some(Key::Char(c)), len),
                Some(_) => Read::Key(None, len),
                None => Read::Key(None, 1),
            };
        }
    };
    Read::Key(Some(key), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_key_parses_back_to_one_key() {
        for name in ["Enter", "Esc", "Tab", "Space", "Backspace", "Up", "Down", "Right", "Left", "Ctrl-C", "Ctrl-U", "Ctrl-D", "Home", "End"] {
            let sent = std::str::from_utf8(bytes(name).unwrap()).unwrap();
            assert_eq!(parse(sent).len(), 1, "{name}");
        }
        assert_eq!(parse("a\x1b[Bb\x1b"), vec![Key::Char('a'), Key::Down, Key::Char('b'), Key::Esc]);
        assert!(bytes("Hyper-Z").is_none());
    }

    #[test]
    fn a_key_split_between_reads_is_held_until_it_is_whole() {
        let mut reader = KeyReader::default();
        assert_eq!(reader.feed(b"a\x1b"), vec![Key::Char('a')]);
        assert!(reader.holds());
        assert_eq!(reader.feed(b"["), vec![]);
        assert_eq!(reader.feed(b"Bb"), vec![Key::Down, Key::Char('b')]);
        assert!(!reader.holds());
        // A character's UTF-8 bytes across two reads.
        let e = "é".as_bytes();
        assert_eq!(reader.feed(&e[..1]), vec![]);
        assert_eq!(reader.feed(&e[1..]), vec![Key::Char('é')]);
        // An ESC nothing follows is the Esc key once the reader gives up waiting.
        assert_eq!(reader.feed(b"\x1b"), vec![]);
        assert_eq!(reader.flush(), vec![Key::Esc]);
        assert!(!reader.holds());
        // ESC followed by anything but `[` is Esc, then that key.
        assert_eq!(reader.feed(b"\x1bx"), vec![Key::Esc, Key::Char('x')]);
    }
}
