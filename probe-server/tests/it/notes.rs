//! Every note the committed journals carry reads as its payload type, and would not with a field
//! the type does not know: the typed notes describe what was written, all of it.

use probe_server::note::{AnyNote, Note};
use serde_json::Value;

/// The note details of every journal under `fixtures/journals`, and of the file named by
/// `MCP_NOTE_CORPUS` (one detail per line), when set: the records' journals, decompressed.
fn corpus() -> Vec<(String, Value)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/journals");
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }
    let mut details = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines() {
            let Ok(event) = serde_json::from_str::<Value>(line) else { continue };
            if event["kind"] == "note" && event["detail"].is_object() {
                details.push((file.display().to_string(), event["detail"].clone()));
            }
        }
    }
    if let Some(extra) = std::env::var_os("MCP_NOTE_CORPUS") {
        let text = std::fs::read_to_string(&extra).unwrap();
        details.extend(text.lines().map(|line| (extra.to_string_lossy().into_owned(), serde_json::from_str(line).unwrap())));
    }
    details
}

#[test]
fn every_committed_note_reads_as_its_payload_and_one_with_an_unknown_field_does_not() {
    let details = corpus();
    let mut seen = std::collections::BTreeSet::new();
    for (file, detail) in &details {
        let Some(note) = Note::of_detail(detail) else { panic!("{file}: a note outside the vocabulary: {detail}") };
        match serde_json::from_value::<AnyNote>(detail.clone()) {
            Ok(read) => assert_eq!(read.note(), note),
            Err(e) => panic!("{file}: {note} does not read as its payload ({e}): {detail}"),
        }
        let mut unknown = detail.clone();
        unknown["a_field_no_note_has"] = Value::from(1);
        assert!(serde_json::from_value::<AnyNote>(unknown).is_err(), "{file}: {note} took a field it does not know");
        seen.insert(note.name());
    }
    // The fixtures carry most of the vocabulary; the rest is covered by the writers' own tests.
    assert!(seen.len() >= 30, "{} kinds of note in {} notes: {seen:?}", seen.len(), details.len());
}

/// A payload written through its type reads back as the same value, tagged with its note.
#[test]
fn a_written_payload_reads_back_through_the_tagged_enum() {
    use probe_server::note::{self, Payload};
    let written = note::ListenEnded { by: note::EndedBy::ClientGone };
    let detail = written.detail();
    assert_eq!(detail, serde_json::json!({"event": "listen_ended", "by": "client gone"}));
    assert_eq!(serde_json::from_value::<AnyNote>(detail).unwrap(), AnyNote::ListenEnded(written));
    let discover = note::Discover {}.detail();
    assert_eq!(serde_json::from_value::<AnyNote>(discover).unwrap().note(), Note::Discover);
}
