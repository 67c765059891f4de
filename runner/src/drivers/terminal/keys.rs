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
pub fn parse(input: &str) -> Vec<Key> {
    let mut keys = Vec::new();
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        let key = match c {
            '\r' | '\n' => Key::Enter,
            '\t' => Key::Tab,
            '\x7f' | '\x08' => Key::Backspace,
            '\x03' => Key::CtrlC,
            '\x15' => Key::CtrlU,
            '\x04' => Key::CtrlD,
            '\x1b' if chars.peek() == Some(&'[') => {
                chars.next();
                match chars.next() {
                    Some('A') => Key::Up,
                    Some('B') => Key::Down,
                    Some('C') => Key::Right,
                    Some('D') => Key::Left,
                    Some('H') => Key::Home,
                    Some('F') => Key::End,
                    _ => continue,
                }
            }
            '\x1b' => Key::Esc,
            c if !c.is_control() => Key::Char(c),
            _ => continue,
        };
        keys.push(key);
    }
    keys
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
}
