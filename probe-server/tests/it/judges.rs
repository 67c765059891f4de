//! Judges over recorded journals in `fixtures/journals`: one insta snapshot of the verdicts per
//! journal. Adding a case means adding a journal file.

use probe_server::observe::Observations;
use probe_server::registry;

#[test]
fn verdicts_of_recorded_journals() {
    insta::glob!("../../../fixtures/journals", "*.jsonl", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let observations = Observations::from_text(&text).unwrap();
        let lifecycle = observations.lifecycle().map(|l| (l.era, l.requested_version, l.negotiated_version));
        let verdicts = registry::judge_all(&observations);
        insta::assert_json_snapshot!(serde_json::json!({
            "truncated": observations.truncated,
            "lifecycle": lifecycle,
            "verdicts": verdicts,
        }));
    });
}

#[test]
fn ablated_journals_flip_their_target_probe() {
    let cases = [
        ("reference-stdio-legacy-elicit-auto-decline", "elicitation.form", "auto-answered"),
        ("reference-stdio-modern-alter-request-state", "elicitation.mrtr_retry", "no"),
        ("reference-stdio-legacy-enum-titled-single-title", "elicitation.enum_titled_single", "no"),
        ("reference-stdio-legacy-skip-initialized", "connection.initialized", "no"),
        ("reference-stdio-legacy-ignore-downgrade", "connection.version_downgrade", "no"),
        ("reference-stdio-modern-url-unsupported", "elicitation.url", "no"),
        ("reference-stdio-legacy-strip-progress-token", "utilities.progress_token", "no"),
    ];
    for (journal, probe, expected) in cases {
        let path = format!("{}/../fixtures/journals/{journal}.jsonl", env!("CARGO_MANIFEST_DIR"));
        let observations = Observations::from_text(&std::fs::read_to_string(path).unwrap()).unwrap();
        let verdict = registry::judge_all(&observations).into_iter().find(|v| v.probe == probe).unwrap();
        assert_eq!(verdict.outcome.label(), expected, "{journal}: {probe}: {}", verdict.detail);
    }
}

#[test]
fn a_journal_cut_mid_line_is_still_judged() {
    let path = format!("{}/../fixtures/journals/crashed-writer.jsonl", env!("CARGO_MANIFEST_DIR"));
    let observations = Observations::from_text(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(observations.truncated);
    assert_eq!(observations.events.len(), 30);
    let verdicts = registry::judge_all(&observations);
    assert_eq!(verdicts.len(), registry::probes().len());
}
