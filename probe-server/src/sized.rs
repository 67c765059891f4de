//! Sized tool results: `probe_large_result` returns exactly the bytes it is asked for (10 KB,
//! 100 KB or 1 MB, served in the large-results variant), as lines of 100 bytes that each say
//! which result and which line they are. The lines hold no letters: whatever words a tool result
//! carries beside them are the host's (a note that it cut the result, say).
//!
//! A line is `#<size>:<index, six digits>:` padded with dots to 99 bytes, then a newline. The
//! model stub folds each run of consecutive whole lines in what a host sent its model into one
//! range (`[#<size>:<first>-<last>]`) before it journals its view of the request, so the view
//! stays small; the judge reads the ranges back. The raw request is journalled as it came.

use std::fmt::Write as _;

/// The tool that returns a result of the size it is asked for.
pub const TOOL_LARGE_RESULT: &str = "probe_large_result";
/// The sizes the scripted model asks for, smallest first: it asks for the next only when the
/// last line of the previous one reached it.
pub const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];
/// Bytes per line, its newline included.
pub const LINE: usize = 100;

/// The tool as `tools/list` shows it in the large-results variant.
pub fn tool() -> serde_json::Value {
    serde_json::json!({
        "name": TOOL_LARGE_RESULT,
        "description": "Returns a text result of exactly the number of bytes asked for",
        "inputSchema": {"type": "object", "properties": {"bytes": {"type": "integer", "enum": SIZES}}, "required": ["bytes"]}
    })
}

fn prefix(size: usize, index: usize) -> String {
    format!("#{size}:{index:06}:")
}

/// Line `index` of the result of `size` bytes, its newline included.
pub fn line(size: usize, index: usize) -> String {
    let mut line = prefix(size, index);
    line.extend(std::iter::repeat_n('.', LINE - 1 - line.len()));
    line.push('\n');
    line
}

/// How many lines the result of `size` bytes has.
pub fn lines_of(size: usize) -> usize {
    size / LINE
}

/// The whole text of the result of `size` bytes (one of [`SIZES`]).
pub fn text(size: usize) -> String {
    (0..lines_of(size)).map(|i| line(size, i)).collect()
}

/// The size asked for by a call's arguments, if it is one of [`SIZES`].
pub fn size_asked(arguments: &serde_json::Value) -> Option<usize> {
    let asked = arguments.get("bytes")?.as_u64()? as usize;
    SIZES.contains(&asked).then_some(asked)
}

/// Whether `text` holds the last line of the result of `size` bytes.
pub fn holds_end(text: &str, size: usize) -> bool {
    text.contains(&prefix(size, lines_of(size) - 1))
}

/// A whole line at the start of `rest` (newline or an escaped `\n` excluded): its size, its
/// index and its length.
fn whole_line_at(rest: &str) -> Option<(usize, usize, usize)> {
    let body = rest.strip_prefix('#')?;
    let (size, after) = body.split_once(':')?;
    let (index, _) = after.split_once(':')?;
    if size.is_empty() || size.len() > 7 || index.len() != 6 || !size.bytes().chain(index.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (size, index): (usize, usize) = (size.parse().ok()?, index.parse().ok()?);
    let head = 1 + size.to_string().len() + 1 + 6 + 1;
    let dots = LINE - 1 - head;
    let line = head + dots;
    (rest.len() >= line && rest.as_bytes()[head..line].iter().all(|&b| b == b'.')).then_some((size, index, line))
}

/// `text` with every run of consecutive whole lines of one result folded into
/// `[#<size>:<first>-<last>]`; anything else (a line cut short, the host's words) as it was.
/// A line's end may be a newline or an escaped one (`\n`, as in JSON a host re-encoded).
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(4096));
    let mut run: Option<(usize, usize, usize)> = None;
    let flush = |out: &mut String, run: &mut Option<(usize, usize, usize)>| {
        if let Some((size, first, last)) = run.take() {
            let _ = write!(out, "[#{size}:{first:06}-{last:06}]");
        }
    };
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        if let Some((size, index, len)) = whole_line_at(rest) {
            match run {
                Some((s, _, last)) if s == size && index == last + 1 => run = run.map(|(s, f, _)| (s, f, index)),
                _ => {
                    flush(&mut out, &mut run);
                    run = Some((size, index, index));
                }
            }
            i += len;
            let after = &text[i..];
            i += if after.starts_with('\n') {
                1
            } else if after.starts_with("\\n") {
                2
            } else {
                0
            };
            continue;
        }
        flush(&mut out, &mut run);
        let step = rest.chars().next().map_or(1, char::len_utf8);
        let next = rest[step..].find('#').map_or(text.len(), |at| i + step + at);
        out.push_str(&text[i..next]);
        i = next;
    }
    flush(&mut out, &mut run);
    out
}

/// What a folded text holds of the result of `size` bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Received {
    /// Whole lines of the result, in the order they came.
    pub lines: usize,
    /// Whether its first and its last line came.
    pub head: bool,
    pub tail: bool,
    /// The folded text without the ranges of any sized result: the host's words and the pieces
    /// of lines it cut, trimmed.
    pub rest: String,
}

impl Received {
    /// Whether every line came, in order, once.
    pub fn whole(&self, size: usize) -> bool {
        self.lines == lines_of(size) && self.head && self.tail
    }

    /// The host's words beside the lines (three letters or more), cut to 100 characters.
    pub fn words(&self) -> Option<String> {
        (self.rest.chars().filter(|c| c.is_alphabetic()).count() >= 3).then(|| self.rest.chars().take(100).collect())
    }

    /// Whether the host's words say the result was cut or kept elsewhere.
    pub fn says_cut(&self) -> bool {
        self.cut_note().is_some()
    }

    /// The host's line that says the result was cut or kept elsewhere (truncated, omitted, too
    /// large, saved to a file…), cut to 100 characters.
    pub fn cut_note(&self) -> Option<String> {
        const SAYS_CUT: [&str; 13] =
            ["truncat", "omit", "too large", "too long", "exceed", "limit", "saved to", "remaining", "more lines", "more characters", "elided", "clipped", "shortened"];
        let rest = self.rest.replace("\\n", "\n");
        let line = rest.lines().find(|line| {
            let line = line.to_lowercase();
            SAYS_CUT.iter().any(|w| line.contains(w))
        })?;
        // The pieces of lines the host cut run into its note on the same line: they go; so do
        // the paths of the files it kept the whole result in (temporary, different every run).
        let line = without_pieces(line);
        let words: Vec<&str> = line.split(' ').map(|w| if w.starts_with('/') && w.len() > 1 { "<path>" } else { w }).collect();
        Some(words.join(" ").chars().take(100).collect())
    }
}

/// `line` without the piece of a numbered line it may start with (a line's end: `…:.....` or
/// dots alone) or end with (a line's start: `#<digits and colons and dots>`, or dots alone).
fn without_pieces(line: &str) -> &str {
    let line = line.trim();
    let is_piece = |c: char| c.is_ascii_digit() || c == ':' || c == '.';
    let line = match line.strip_prefix('#') {
        Some(rest) => rest.trim_start_matches(is_piece),
        None => match line.trim_start_matches(|c: char| c.is_ascii_digit()).strip_prefix(':') {
            Some(rest) => rest.trim_start_matches('.'),
            None => line.trim_start_matches('.'),
        },
    };
    let line = match line.rfind('#') {
        Some(at) if line[at + 1..].chars().all(is_piece) => &line[..at],
        _ => line,
    };
    line.trim_end_matches('.').trim()
}

/// Reads the ranges of the result of `size` bytes back out of a folded text.
pub fn received(folded: &str, size: usize) -> Received {
    let mut got = Received::default();
    let mut rest = String::new();
    let mut tail = folded;
    while let Some(at) = tail.find("[#") {
        rest.push_str(&tail[..at]);
        let after = &tail[at + 2..];
        let Some(end) = after.find(']') else {
            rest.push_str(&tail[at..]);
            tail = "";
            break;
        };
        let range = (|| {
            let (s, span) = after[..end].split_once(':')?;
            let (first, last) = span.split_once('-')?;
            Some((s.parse::<usize>().ok()?, first.parse::<usize>().ok()?, last.parse::<usize>().ok()?))
        })();
        match range {
            Some((s, first, last)) if first <= last => {
                if s == size {
                    got.lines += last - first + 1;
                    got.head |= first == 0;
                    got.tail |= last + 1 == lines_of(size);
                }
            }
            _ => rest.push_str(&tail[at..at + 2 + end + 1]),
        }
        tail = &after[end + 1..];
    }
    rest.push_str(tail);
    got.rest = rest.trim().to_string();
    got
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_result_is_exactly_its_size_in_lines_without_letters() {
        for size in SIZES {
            let text = text(size);
            assert_eq!(text.len(), size);
            assert!(text.lines().all(|l| l.len() == LINE - 1));
            assert!(!text.chars().any(char::is_alphabetic));
            assert!(holds_end(&text, size) && !holds_end(&text[..size - LINE], size));
        }
    }

    #[test]
    fn a_whole_result_folds_to_one_range_and_reads_back_whole() {
        let folded = fold(&text(100_000));
        assert_eq!(folded, "[#100000:000000-000999]");
        let got = received(&folded, 100_000);
        assert!(got.whole(100_000) && got.rest.is_empty() && got.words().is_none(), "{got:?}");
    }

    #[test]
    fn a_cut_result_shows_what_came_and_the_hosts_words() {
        let whole = text(10_000);
        // Head and tail kept, the middle replaced by a note, the head's last line cut short.
        let cut = format!("{}#10000:000030:....\n[... 5000 characters truncated ...]\n{}", &whole[..3000], &whole[8000..]);
        let got = received(&fold(&cut), 10_000);
        assert_eq!(got.lines, 50);
        assert!(got.head && got.tail && !got.whole(10_000));
        assert!(got.says_cut(), "{got:?}");
        assert_eq!(got.cut_note().as_deref(), Some("[... 5000 characters truncated ...]"));
        // Silently cut: no words, only the piece of a line.
        let silent = received(&fold(&whole[..4050]), 10_000);
        assert_eq!((silent.lines, silent.head, silent.tail), (40, true, false));
        assert!(silent.words().is_none() && !silent.says_cut(), "{silent:?}");
    }

    #[test]
    fn text_around_the_lines_is_kept_whatever_its_characters() {
        let text = format!("é☃ before #x {}après", line(10_000, 7));
        assert_eq!(fold(&text), "é☃ before #x [#10000:000007-000007]après");
    }

    #[test]
    fn the_note_loses_the_pieces_of_lines_before_it_and_the_paths_in_it() {
        let got = received(&fold("#10000:000059:.........…2748 tokens truncated…#10000:00\nOutput too large. Full output saved to: /tmp/x/y.txt now"), 10_000);
        assert_eq!(got.cut_note().as_deref(), Some("…2748 tokens truncated…"));
        let cut_bytes = received(&fold("[#100000:000000-000511]\n...48801 bytes truncated...\n"), 100_000);
        assert_eq!(cut_bytes.cut_note().as_deref(), Some("48801 bytes truncated"));
        let tail_piece = received("000059:......Output truncated at 50 lines", 10_000);
        assert_eq!(tail_piece.cut_note().as_deref(), Some("Output truncated at 50 lines"));
        let saved = received("Output too large. Full output saved to: /tmp/x/y.txt now", 10_000);
        assert_eq!(saved.cut_note().as_deref(), Some("Output too large. Full output saved to: <path> now"));
    }

    #[test]
    fn escaped_newlines_fold_too_and_other_sizes_do_not_count() {
        let escaped = text(10_000).replace('\n', "\\n");
        assert_eq!(fold(&escaped), "[#10000:000000-000099]");
        let both = format!("{}{}", text(10_000), text(100_000));
        let got = received(&fold(&both), 10_000);
        assert!(got.whole(10_000) && got.rest.is_empty(), "{got:?}");
        assert_eq!(received(&fold("#12:000001:..."), 10_000), Received { rest: "#12:000001:...".into(), ..Received::default() });
    }
}
