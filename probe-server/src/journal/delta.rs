//! Compact storage of frames that repeat an earlier frame.
//!
//! An agent host sends its model the whole conversation again with every request, so the model
//! stub's journal holds the same tens of kilobytes of prompt and tool catalogue over and over. In a
//! compacted journal such a frame is stored as a change to the last frame of the same session,
//! direction and kind: how many bytes of that frame's start and end it keeps, and the text between.
//! The reader puts every frame back exactly as it was written ([`expand`]); [`compact`] checks that
//! before it hands anything back, so compaction can never lose a byte.

use serde::{Deserialize, Serialize};

use super::{Event, FORMAT_VERSION};

/// The line format of an event stored as a change. A reader that knows only [`FORMAT_VERSION`]
/// refuses such lines rather than reading a frame without its text.
pub const DELTA_FORMAT_VERSION: u32 = 2;

/// Only a change that saves at least this many bytes is stored as one.
const MIN_SAVING: usize = 1024;
/// How many earlier frames of the stream are tried as the base (a host's side requests, such as a
/// title for the conversation, come between the requests of the conversation itself).
const BASES_TRIED: usize = 8;

/// A frame's text as a change to an earlier frame of the same journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawDelta {
    /// How many events back the earlier frame is (1: the line before).
    pub back: usize,
    /// Bytes kept from the start of the earlier frame's text.
    pub head: usize,
    /// Bytes kept from its end.
    pub tail: usize,
    /// The text between them.
    pub middle: String,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DeltaError {
    #[error("journal line {line}: its change refers to a line that is not there or holds no text")]
    MissingBase { line: usize },
    #[error("journal line {line}: its change keeps more bytes than the earlier frame has, or cuts a character")]
    OutOfRange { line: usize },
    #[error("journal line {line}: its change gives {found} bytes where the frame had {expected}")]
    Length { line: usize, expected: usize, found: usize },
    #[error("compacting changed the frame of journal line {line}")]
    NotLossless { line: usize },
}

/// The events a frame's text may be stored against: same session, direction and kind.
fn same_stream(a: &Event, b: &Event) -> bool {
    a.session == b.session && a.dir == b.dir && a.kind == b.kind
}

/// Text kept whole (not summarised) and valid UTF-8: the only frames a change can describe.
fn plain_text(event: &Event) -> Option<&str> {
    event.raw.as_deref().filter(|_| event.raw_base64.is_none() && event.raw_delta.is_none())
}

/// The longest common start and end of `base` and `text` (not overlapping), on character boundaries.
fn common_ends(base: &str, text: &str) -> (usize, usize) {
    let (b, t) = (base.as_bytes(), text.as_bytes());
    let mut head = b.iter().zip(t).take_while(|(x, y)| x == y).count();
    while !text.is_char_boundary(head) || !base.is_char_boundary(head) {
        head -= 1;
    }
    let room = b.len().min(t.len()) - head;
    let mut tail = b.iter().rev().zip(t.iter().rev()).take(room).take_while(|(x, y)| x == y).count();
    while !text.is_char_boundary(t.len() - tail) || !base.is_char_boundary(b.len() - tail) {
        tail -= 1;
    }
    (head, tail)
}

/// The events with every frame that largely repeats a recent frame of its stream stored as a change
/// to the one it repeats most. `events` are as the reader hands them, every text in place.
pub fn compact(events: &[Event]) -> Result<Vec<Event>, DeltaError> {
    let mut out = events.to_vec();
    for index in 0..events.len() {
        let Some(text) = plain_text(&events[index]) else { continue };
        let bases = (1..=index).filter(|&back| same_stream(&events[index - back], &events[index])).take(BASES_TRIED);
        let best = bases
            .filter_map(|back| plain_text(&events[index - back]).map(|base| (back, common_ends(base, text))))
            .max_by_key(|(back, (head, tail))| (head + tail, std::cmp::Reverse(*back)));
        let Some((back, (head, tail))) = best.filter(|(_, (head, tail))| head + tail >= MIN_SAVING) else { continue };
        let middle = &text[head..text.len() - tail];
        let event = &mut out[index];
        event.raw = None;
        event.format_version = DELTA_FORMAT_VERSION;
        event.raw_delta = Some(RawDelta { back, head, tail, middle: middle.to_string() });
    }
    let mut check = out.clone();
    expand(&mut check)?;
    match check.iter().zip(events).position(|(a, b)| a != b) {
        Some(index) => Err(DeltaError::NotLossless { line: index + 1 }),
        None => Ok(out),
    }
}

/// Puts back the text of every event stored as a change, in place.
pub fn expand(events: &mut [Event]) -> Result<(), DeltaError> {
    for index in 0..events.len() {
        let Some(delta) = events[index].raw_delta.take() else { continue };
        let line = index + 1;
        let base = index.checked_sub(delta.back).and_then(|at| events[at].raw.as_deref()).ok_or(DeltaError::MissingBase { line })?;
        let fits = delta.head + delta.tail <= base.len() && base.is_char_boundary(delta.head) && base.is_char_boundary(base.len() - delta.tail);
        if !fits {
            return Err(DeltaError::OutOfRange { line });
        }
        let text = [&base[..delta.head], &delta.middle, &base[base.len() - delta.tail..]].concat();
        let event = &mut events[index];
        if text.len() != event.raw_len {
            return Err(DeltaError::Length { line, expected: event.raw_len, found: text.len() });
        }
        event.raw = Some(text);
        event.format_version = FORMAT_VERSION;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::{Direction, EventKind, Transport};

    fn request(seq: u64, body: &str) -> Event {
        Event {
            format_version: FORMAT_VERSION,
            seq,
            t_us: seq * 10,
            session: "model-stub".into(),
            transport: Transport::Http,
            dir: Direction::ClientToServer,
            kind: EventKind::HttpRequest,
            raw: Some(body.into()),
            raw_len: body.len(),
            sha256: None,
            head: None,
            raw_base64: None,
            raw_delta: None,
            method: Some("POST /v1/messages".into()),
            id: None,
            detail: None,
        }
    }

    fn conversation(turns: usize) -> String {
        let prompt = "ü system prompt ".repeat(200);
        let messages: Vec<String> = (0..turns).map(|i| format!("{{\"turn\":{i},\"text\":\"é{}\"}}", "x".repeat(50))).collect();
        format!("{{\"system\":\"{prompt}\",\"messages\":[{}],\"tools\":\"{}\"}}", messages.join(","), "tool ".repeat(300))
    }

    #[test]
    fn a_growing_conversation_is_stored_as_changes_and_read_back_exactly() {
        let mut events: Vec<Event> = (1..=4).map(|i| request(i, &conversation(i as usize))).collect();
        events.insert(2, request(9, "a side request"));
        let compacted = compact(&events).unwrap();
        let deltas: Vec<_> = compacted.iter().filter_map(|e| e.raw_delta.as_ref()).collect();
        assert_eq!(deltas.len(), 3, "every request after the first repeats an earlier one");
        assert_eq!(deltas[1].back, 2, "the side request between them is not the base");
        assert!(deltas.iter().all(|d| d.middle.len() < 100));
        assert!(compacted.iter().filter(|e| e.raw_delta.is_some()).all(|e| e.format_version == DELTA_FORMAT_VERSION && e.raw.is_none()));
        let mut read = compacted.clone();
        expand(&mut read).unwrap();
        assert_eq!(read, events);
        assert_eq!(compact(&read).unwrap(), compacted, "compacting what was read back gives the same lines");
    }

    #[test]
    fn common_ends_never_cut_a_character() {
        // 'é' and 'è' share their first byte: the common start stops before both.
        assert_eq!(common_ends("abé", "abè"), (2, 0));
        assert_eq!(common_ends("éab", "èab"), (0, 2));
        // The end is never counted into the start.
        assert_eq!(common_ends("aaa", "aaaa"), (3, 0));
    }

    #[test]
    fn a_change_that_points_nowhere_or_past_its_base_is_an_error() {
        let mut events = vec![request(1, "short"), request(2, "")];
        events[1].raw = None;
        events[1].raw_delta = Some(RawDelta { back: 1, head: 3, tail: 3, middle: String::new() });
        assert_eq!(expand(&mut events.clone()), Err(DeltaError::OutOfRange { line: 2 }));
        events[1].raw_delta = Some(RawDelta { back: 1, head: 2, tail: 1, middle: "x".into() });
        assert_eq!(expand(&mut events.clone()), Err(DeltaError::Length { line: 2, expected: 0, found: 4 }), "the frame's recorded length is checked");
        events[1].raw_delta = Some(RawDelta { back: 2, head: 0, tail: 0, middle: String::new() });
        assert_eq!(expand(&mut events), Err(DeltaError::MissingBase { line: 2 }));
    }

    #[test]
    fn frames_of_another_stream_are_never_a_base() {
        let mut reply = request(2, &conversation(3));
        reply.dir = Direction::ServerToClient;
        let events = vec![request(1, &conversation(3)), reply];
        assert!(compact(&events).unwrap().iter().all(|e| e.raw_delta.is_none()));
    }
}
