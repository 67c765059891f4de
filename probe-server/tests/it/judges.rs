//! Judges over recorded journals in `fixtures/journals`: what each journal is (era, versions,
//! whether it was cut) in one snapshot, and the verdicts of every journal in one snapshot per
//! probe family (the matrix area), so that a new probe changes its family's snapshot only.
//! Adding a case means adding a journal file.

use std::collections::BTreeMap;

use probe_server::observe::Observations;
use probe_server::registry;

#[test]
fn verdicts_of_recorded_journals() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/journals");
    let mut names: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.ends_with(".jsonl")).collect();
    names.sort();
    assert!(names.len() >= 50, "{} recorded journals", names.len());
    let mut journals = BTreeMap::new();
    let mut families: BTreeMap<probe_server::Area, BTreeMap<&str, Vec<probe_server::Verdict>>> = BTreeMap::new();
    for name in &names {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let observations = Observations::from_text(&text).unwrap();
        let lifecycle = observations.lifecycle().map(|l| (l.era, l.requested_version, l.negotiated_version));
        journals.insert(name.as_str(), serde_json::json!({"truncated": observations.truncated, "lifecycle": lifecycle}));
        for verdict in registry::judge_all(&observations) {
            let area = registry::find(&verdict.probe).expect("every verdict names a registered probe").area();
            families.entry(area).or_default().entry(name.as_str()).or_default().push(verdict);
        }
    }
    insta::assert_json_snapshot!("journals", journals);
    for (area, verdicts) in &families {
        let family = serde_json::to_value(area).unwrap();
        insta::assert_json_snapshot!(format!("verdicts_of_{}", family.as_str().unwrap()), verdicts);
    }
}

#[test]
fn ablated_journals_flip_their_target_probe() {
    let cases = [
        ("reference-stdio-legacy-elicit-auto-decline", "elicitation.form", "auto-answered"),
        ("reference-stdio-modern-alter-request-state", "elicitation.mrtr_retry", "no"),
        ("reference-stdio-legacy-enum-titled-single-title", "elicitation.enum_titled_single", "no"),
        ("reference-stdio-legacy-skip-initialized", "connection.initialized", "no"),
        ("reference-stdio-legacy-version-downgrade-ignore-downgrade", "connection.version_downgrade", "no"),
        ("reference-stdio-modern-url-unsupported", "elicitation.url", "no"),
        ("reference-stdio-legacy-strip-progress-token", "utilities.progress_token", "no"),
        ("reference-stdio-legacy-subscribe-fails-subscribe-retry-storm", "subscriptions.failure_backoff", "violation"),
        ("reference-stdio-legacy-subscribe-unadvertised-subscribe-unadvertised", "subscriptions.respects_capability", "violation"),
        ("reference-http-legacy-stream-drop-no-resumption", "http.resumption", "partial"),
        ("reference-http-legacy-skills-skip-digest-check", "skills.verify_digest", "violation"),
        ("reference-stdio-legacy-skills-no-directory-read-directory-read-undeclared", "skills.directory_undeclared", "violation"),
        ("reference-stdio-modern-skills-full", "skills.verify_digest", "yes"),
        // A real host that installs skills: judged with what it left on disk.
        ("fast-agent-stdio-skills", "skills.verify_frontmatter", "yes"),
        ("fast-agent-stdio-skills", "skills.same_name", "partial"),
        // It fetched all 513 files of the oversize skill before leaving it uninstalled: the limit
        // was not applied before reading (once judged yes).
        ("fast-agent-stdio-skills", "skills.manifest_limits", "partial"),
        // Interactive runs: the fake terminal host, full and with a fault, and Claude Code's terminal UI.
        ("reference-stdio-modern-interactive-enums-full", "interactive.enum_legacy_names", "yes"),
        ("reference-stdio-modern-interactive-enums-term-enum-as-text-titled-single", "interactive.enum_titled_single", "not-reached"),
        ("reference-stdio-modern-interactive-url-term-open-url", "interactive.url_consent", "violation"),
        ("reference-stdio-legacy-interactive-withdrawn-full", "interactive.form_withdrawn", "yes"),
        ("reference-stdio-legacy-interactive-withdrawn-term-keeps-withdrawn-form", "interactive.form_withdrawn", "partial"),
        ("claude-code-stdio-interactive-accept", "interactive.accept_typed", "yes"),
        // Long calls: Codex with its tool timeout at 5 s cancels the call that never answers, and
        // the slow call although progress kept coming; Continue's CLI waited until it was stopped
        // (its stdio server killed with it: the server's pending notes show how long).
        ("codex-stdio-long-calls", "utilities.cancel_on_timeout", "yes"),
        ("codex-stdio-long-calls", "utilities.progress_keepalive", "no"),
        ("continue-cli-stdio-long-calls", "utilities.call_timeout", "not-reached"),
        // Era fallback: Claude Code gives an unanswered server/discover 3 s, then sends
        // initialize; the reference client ablated to fall back only on -32601, or to wait
        // without a timeout of its own, never does.
        ("claude-code-stdio-discover-unanswered", "connection.discover_timeout_fallback", "yes"),
        ("reference-http-modern-discover-unanswered-full", "connection.discover_timeout_fallback", "yes"),
        ("reference-http-modern-discover-invalid-fallback-on-method-not-found-only", "connection.discover_fallback_any_error", "no"),
        // An HTTP 400 with a plain-text body is a refusal too, unless a client waits for JSON-RPC.
        ("reference-http-modern-discover-http-error-full", "connection.discover_http_error_fallback", "yes"),
        ("reference-http-modern-discover-http-error-fallback-on-json-rpc-error-only", "connection.discover_http_error_fallback", "no"),
        // Answers sent as JSON bodies: taken, or refused by a client that reads only event streams.
        ("reference-http-legacy-json-responses-full", "http.json_responses", "yes"),
        ("reference-http-legacy-json-responses-choke-on-json", "http.json_responses", "no"),
        // Two inputRequests in one result: both answered in the retry, or only the first.
        ("reference-stdio-modern-full", "elicitation.mrtr_multiple_inputs", "yes"),
        ("reference-stdio-modern-first-input-only", "elicitation.mrtr_multiple_inputs", "partial"),
        // The URL-mode elicitation's URL is a fetch trap: untouched, or fetched by the client itself.
        ("reference-stdio-legacy-full", "elicitation.url_not_prefetched", "yes"),
        ("reference-stdio-legacy-prefetch-url", "elicitation.url_not_prefetched", "violation"),
        // A sampling request with modelPreferences: answered, or refused for carrying them.
        ("reference-stdio-legacy-full", "sampling.model_preferences", "yes"),
        ("reference-stdio-legacy-sampling-refuse-preferences", "sampling.model_preferences", "no"),
        ("reference-stdio-legacy-sampling-refuse-preferences", "sampling.create_message", "yes"),
        // Every POST accepts JSON and an event stream, or one accepts JSON alone (and meets a 406).
        ("reference-http-legacy-full", "http.post_accept", "yes"),
        // A refused initialize (406 for an Accept without event streams) opened nothing to acknowledge.
        ("reference-http-legacy-accept-json-only", "connection.initialized", "not-reached"),
        ("reference-http-legacy-accept-json-only", "http.post_accept", "no"),
        // A tool schema's remote $ref: left alone, or fetched by the host before it offers its tools.
        ("reference-stdio-legacy-tool-names-host-full", "affordances.schema_remote_ref_not_fetched", "yes"),
        ("reference-stdio-legacy-tool-names-host-fetch-remote-refs", "affordances.schema_remote_ref_not_fetched", "no"),
        // The client's frames against the official schemas (the runner's wire_checked note):
        // all fit, or tools/list carries a progressToken of true.
        ("reference-stdio-legacy-full", "wire.client_frames_valid", "yes"),
        ("reference-http-modern-full", "wire.client_frames_valid", "yes"),
        ("reference-stdio-legacy-invalid-progress-token", "wire.client_frames_valid", "no"),
        // A journal from a run without the schemas says so.
        ("claude-code-stdio-discover-unanswered", "wire.client_frames_valid", "not-reached"),
        // MCP Apps: the reference host keeps the view's own tool from its model, reads the view
        // and hands it the result; each ablation breaks one of these.
        ("reference-stdio-legacy-apps-host-full", "apps.ui_tool_text_to_model", "yes"),
        ("reference-stdio-legacy-apps-host-full", "apps.app_only_tool_hidden", "yes"),
        ("reference-stdio-legacy-apps-host-full", "apps.ui_resource_read", "yes"),
        ("reference-stdio-legacy-apps-host-full", "apps.view_receives_result", "yes"),
        ("reference-stdio-legacy-apps-host-offer-app-only-tools", "apps.app_only_tool_hidden", "violation"),
        ("reference-stdio-legacy-apps-host-never-read-views", "apps.ui_resource_read", "no"),
        ("reference-stdio-legacy-apps-host-never-read-views", "apps.view_receives_result", "no"),
        ("reference-stdio-modern-apps-host-view-without-structured-content", "apps.view_receives_result", "no"),
        ("reference-stdio-modern-apps-host-view-without-structured-content", "apps.ui_resource_read", "yes"),
        // Tasks (2026-07-28 extension): the reference client follows, polls at the asked interval,
        // answers input and cancels what it gives up on; each ablation breaks one of these.
        ("reference-http-modern-tasks-full", "tasks.followed", "yes"),
        ("reference-http-modern-tasks-full", "tasks.poll_interval", "yes"),
        ("reference-http-modern-tasks-full", "tasks.result_fetched", "yes"),
        ("reference-http-modern-tasks-full", "tasks.input_answered", "yes"),
        ("reference-http-modern-tasks-full", "tasks.cancel", "yes"),
        ("reference-http-modern-tasks-full", "tasks.mcp_name_header", "yes"),
        ("reference-http-modern-tasks-no-task-name-header", "tasks.mcp_name_header", "no"),
        ("reference-stdio-modern-tasks-never-cancel-tasks", "tasks.cancel", "no"),
        ("reference-stdio-modern-tasks-ignore-tasks", "tasks.followed", "declared-only"),
        // 2025-11-25's experimental tasks, served by the taps: a task-augmented call followed to
        // tasks/result, or a call without params.task refused.
        ("reference-stdio-legacy-tasks-full", "tasks.augmented_call", "yes"),
        ("reference-stdio-legacy-tasks-full", "tasks.followed", "yes"),
        ("reference-stdio-legacy-tasks-full", "tasks.result_fetched", "yes"),
        ("reference-stdio-legacy-tasks-full", "tasks.cancel", "yes"),
        ("reference-stdio-legacy-tasks-full", "tasks.poll_interval", "yes"),
        ("reference-stdio-legacy-tasks-no-task-augmentation", "tasks.augmented_call", "no"),
        ("reference-stdio-legacy-tasks-no-task-augmentation", "tasks.followed", "no"),
        // A host whose SDK refuses, on its own side, to call a tool that requires a task: the
        // model's call never reaches the server, which the model journal shows.
        ("continue-cli-stdio-tasks", "tasks.augmented_call", "no"),
        ("continue-cli-stdio-tasks", "tasks.followed", "no"),
        ("reference-stdio-legacy-tasks-host-full", "tasks.result_to_model", "yes"),
        ("reference-stdio-legacy-tasks-host-full", "tasks.failed_to_model", "yes"),
        ("reference-stdio-modern-tasks-host-full", "tasks.result_to_model", "yes"),
        ("reference-stdio-modern-tasks-host-full", "tasks.failed_to_model", "yes"),
        ("reference-stdio-modern-tasks-host-task-failure-hidden", "tasks.failed_to_model", "no"),
        // OAuth: the reference client signs in by itself; each ablation breaks one step.
        ("reference-http-legacy-auth-full", "auth.prm_discovery", "yes"),
        ("reference-http-legacy-auth-full", "auth.registration", "yes"),
        ("reference-http-legacy-auth-full", "auth.pkce_s256", "yes"),
        ("reference-http-legacy-auth-full", "auth.state", "yes"),
        ("reference-http-legacy-auth-full", "auth.resource_indicator", "yes"),
        ("reference-http-legacy-auth-full", "auth.scope_selection", "yes"),
        ("reference-http-legacy-auth-full", "auth.bearer_header", "yes"),
        ("reference-http-legacy-auth-legacy-auth-discovery", "auth.prm_discovery", "no"),
        ("reference-http-legacy-auth-legacy-auth-discovery", "auth.pkce_s256", "no"),
        ("reference-http-legacy-auth-token-in-query", "auth.bearer_header", "violation"),
        ("reference-http-modern-auth-step-up-full", "auth.step_up", "yes"),
        ("reference-http-legacy-auth-refresh-no-refresh", "auth.refresh", "partial"),
        ("reference-http-modern-auth-wrong-iss-full", "auth.iss_validated", "yes"),
        ("reference-http-modern-auth-resource-mismatch-trust-any-resource", "auth.token_audience", "no"),
        // Codex signs in with its login command, then checks with a bodiless GET without the
        // token whether the server wants one, and refreshes a short-lived token before using it.
        ("codex-http-auth", "auth.registration", "yes"),
        ("codex-http-auth", "auth.bearer_header", "partial"),
        ("codex-http-auth-refresh", "auth.refresh", "yes"),
        // Claude Code reads both metadata documents in a headless run and signs in no further;
        // its profile gives the harness no way to sign it in.
        ("claude-code-http-auth", "auth.prm_discovery", "yes"),
        ("claude-code-http-auth", "auth.pkce_s256", "not-reached"),
        // A host that meets the 403 insufficient_scope with a refresh of the token it had.
        ("opencode-http-auth-step-up", "auth.step_up", "no"),
        ("reference-stdio-modern-discover-unanswered-no-discover-timeout", "connection.discover_timeout_fallback", "no"),
        ("reference-stdio-modern-discover-unsupported-version-retry-unlisted-version", "connection.unsupported_version_retry", "no"),
        // A client that refuses a discover result without resultType (as rmcp's own does).
        ("reference-stdio-modern-no-result-type-require-result-type", "connection.result_type_default", "no"),
    ];
    for (journal, probe, expected) in cases {
        let path = format!("{}/../fixtures/journals/{journal}.jsonl", env!("CARGO_MANIFEST_DIR"));
        let mut observations = Observations::from_text(&std::fs::read_to_string(path).unwrap()).unwrap();
        // A host's run comes with the model stub's journal where a probe is judged from both.
        let model = format!("{}/../fixtures/journals/models/{journal}.jsonl", env!("CARGO_MANIFEST_DIR"));
        if let Ok(text) = std::fs::read_to_string(model) {
            observations = observations.with_model(probe_server::journal::parse_journal(&text).unwrap());
        }
        let verdict = registry::judge_all(&observations).into_iter().find(|v| v.probe == probe).unwrap();
        assert_eq!(verdict.outcome.label(), expected, "{journal}: {probe}: {}", verdict.detail);
    }
}

#[test]
fn a_host_that_never_reached_the_authorization_endpoint_is_judged_by_the_chance_it_had() {
    // Continue CLI's headless run, which gave up at the 401: as recorded (no sign-in plan), then
    // as if a terminal sign-in had run first and stopped, with and without the plan's cue missing.
    let recorded = std::fs::read_to_string(format!("{}/../fixtures/journals/continue-cli-http-auth.jsonl", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let verdict = |text: &str| {
        let observations = Observations::from_text(text).unwrap();
        registry::judge_all(&observations).into_iter().find(|v| v.probe == "auth.pkce_s256").unwrap()
    };
    let no_plan = verdict(&recorded);
    assert_eq!(no_plan.outcome.label(), "not-reached");
    assert!(no_plan.detail.ends_with("its profile gives the harness no way to sign it in, so what a sign-in would show is unknown"), "{}", no_plan.detail);
    let login = |unmatched: bool| {
        let terminal = format!(r#"{{"signed_in":false,"stopped":"step 1 (wait for \"run /mcp\"): the screen never showed it","unmatched":{unmatched},"screen":"","exit_code":0}}"#);
        let note = format!(
            r#"{{"format_version":1,"seq":1,"t_us":1,"session":"http","transport":"http","dir":"note","kind":"note","raw_len":0,"detail":{{"ending":{{"code":0,"kind":"exited"}},"event":"client_exited","launch":"login","terminal":{terminal}}}}}"#
        );
        let lines: Vec<String> = recorded.lines().map(|l| l.replace(r#""plan":"none""#, r#""plan":"terminal""#)).collect();
        format!("{}\n{note}\n{}\n", lines[..2].join("\n"), lines[2..].join("\n"))
    };
    let unmatched = verdict(&login(true));
    assert_eq!(unmatched.outcome.label(), "not-reached", "{}", unmatched.detail);
    assert!(unmatched.detail.contains("its terminal sign-in stopped where the screen did not show what the plan waits for (step 1"), "{}", unmatched.detail);
    // A terminal sign-in that did what its plan says leaves the host's no standing.
    assert_eq!(verdict(&login(false)).outcome.label(), "no");
}

#[test]
fn a_step_up_refused_says_what_the_host_did_instead() {
    let verdict = registry::judge_all(&recorded("opencode-http-auth-step-up")).into_iter().find(|v| v.probe == "auth.step_up").unwrap();
    assert_eq!(verdict.detail, "after the 403 it never asked for authorization with probe:write: it refreshed its token with the scope it had");
    assert_eq!(verdict.evidence.len(), 2, "the 403 and the refresh: {:?}", verdict.evidence);
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

fn recorded(journal: &str) -> Observations {
    let path = format!("{}/../fixtures/journals/{journal}.jsonl", env!("CARGO_MANIFEST_DIR"));
    Observations::from_text(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn each_probe_is_judged_on_the_journal_of_its_own_server_variant() {
    let standard = recorded("reference-http-legacy-full");
    let expires = recorded("reference-http-legacy-session-expires-full");
    let drop = recorded("reference-http-legacy-stream-drop-full");
    assert_eq!(expires.variant(), probe_server::Variant::SessionExpires);
    // Alone, the standard journal cannot judge the probes of other variants.
    let alone = registry::judge_all(&standard);
    let expiry = alone.iter().find(|v| v.probe == "http.session_expiry").unwrap();
    assert_eq!(expiry.outcome.label(), "not-reached", "{}", expiry.detail);
    // Together, each probe takes its verdict (and its evidence) from its own variant's journal.
    let merged = registry::judge_runs(&[(standard.variant(), &standard), (expires.variant(), &expires), (drop.variant(), &drop)]);
    let verdict = |id: &str| merged.iter().find(|v| v.probe == id).unwrap().clone();
    assert_eq!(verdict("http.session_expiry").outcome.label(), "yes");
    assert_eq!(verdict("http.session_expiry").variant, probe_server::Variant::SessionExpires);
    assert_eq!(verdict("http.resumption").outcome.label(), "yes");
    assert_eq!(verdict("http.get_stream"), alone.iter().find(|v| v.probe == "http.get_stream").unwrap().clone());
    // Probes of variants that were not run say so.
    assert_eq!(verdict("subscriptions.failure_backoff").outcome.label(), "not-reached");
}

/// The text of a recorded model journal (`fixtures/journals/model`).
fn model_journal_text(journal: &str) -> String {
    std::fs::read_to_string(format!("{}/../fixtures/journals/model/{journal}.jsonl", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn with_model(journal: &str) -> Observations {
    recorded(journal).with_model(probe_server::journal::parse_journal(&model_journal_text(journal)).unwrap())
}

#[test]
fn affordances_are_judged_from_the_model_journal_beside_the_server_journal() {
    let verdict = |o: &Observations, id: &str| registry::judge_all(o).into_iter().find(|v| v.probe == id).unwrap();
    // Without the model's side nothing can be said.
    let alone = recorded("reference-stdio-legacy-host-full");
    assert_eq!(verdict(&alone, "affordances.read_tool").outcome.label(), "not-reached");
    let full = with_model("reference-stdio-legacy-host-full");
    // The recorded run predates the titled tool: its tools lists carry no title, and the verdict
    // says so instead of blaming the host.
    let untitled = verdict(&full, "affordances.tool_title_to_model");
    assert_eq!(untitled.outcome.label(), "not-reached", "{}", untitled.detail);
    assert!(untitled.detail.contains("held the titled tool"), "{}", untitled.detail);
    for probe in registry::probes().iter().filter(|p| p.needs_model() && p.variant().is_standard() && p.id() != "affordances.tool_title_to_model") {
        let v = verdict(&full, probe.id());
        assert_eq!(v.outcome.label(), "yes", "{}: {}", v.probe, v.detail);
        assert!(v.model_evidence && !v.evidence.is_empty(), "{v:?}");
    }
    let dropped = with_model("reference-stdio-legacy-host-drop-blobs");
    assert_eq!(verdict(&dropped, "affordances.blob_to_model").outcome.label(), "partial");
    assert_eq!(verdict(&dropped, "affordances.text_to_model").outcome.label(), "yes");
}

#[test]
fn interactive_verdicts_cite_the_screen_and_what_the_server_received() {
    let observations = recorded("claude-code-stdio-interactive-accept");
    let verdict = registry::judge_all(&observations).into_iter().find(|v| v.probe == "interactive.accept_typed").unwrap();
    let cited: Vec<&probe_server::journal::Event> = verdict.evidence.iter().filter_map(|seq| observations.event(*seq)).collect();
    let screen = cited.iter().find(|e| e.detail.as_ref().is_some_and(|d| d["event"] == "screen")).expect("a screen is cited");
    assert!(screen.detail.as_ref().unwrap()["text"].as_str().unwrap().contains("person@example.net"));
    let answer = cited.iter().find(|e| e.raw.as_deref().is_some_and(|r| r.contains("inputResponses"))).expect("the answer is cited");
    assert!(answer.raw.as_deref().unwrap().contains(r#""count":7"#), "{:?}", answer.raw);
    // The plan that stopped is cited with its screen, and the probe does not guess.
    let stopped = recorded("reference-stdio-modern-interactive-enums-term-enum-as-text-titled-single");
    let verdict = registry::judge_all(&stopped).into_iter().find(|v| v.probe == "interactive.enum_titled_single").unwrap();
    assert!(verdict.detail.contains("keystroke plan stopped"), "{}", verdict.detail);
    let note = stopped.event(verdict.evidence[0]).unwrap();
    assert!(note.detail.as_ref().unwrap()["screen"].as_str().unwrap().contains("untitled_single"));
}

/// Every `clientInfo` object in `value` (however deep) renamed to an anonymous client.
fn anonymise(value: &mut serde_json::Value) -> bool {
    let mut changed = false;
    match value {
        serde_json::Value::Object(map) => {
            if let Some(info) = map.get_mut("clientInfo").and_then(serde_json::Value::as_object_mut) {
                info.insert("name".into(), "anonymous-client".into());
                info.insert("version".into(), "0.0.0".into());
                info.remove("title");
                changed = true;
            }
            for child in map.values_mut() {
                changed |= anonymise(child);
            }
        }
        serde_json::Value::Array(items) => {
            for child in items {
                changed |= anonymise(child);
            }
        }
        _ => {}
    }
    changed
}

/// Principle 1: a verdict never branches on who the client says it is. Each recorded journal is
/// judged again with every `clientInfo` renamed; every verdict must come out the same.
#[test]
fn verdicts_do_not_depend_on_the_clients_name_or_version() {
    let mut renamed = 0;
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/journals")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let anonymous: Vec<String> = text
            .lines()
            .map(|line| {
                let Ok(mut event) = serde_json::from_str::<serde_json::Value>(line) else { return line.to_string() };
                let Some(mut frame) = event["raw"].as_str().and_then(|raw| serde_json::from_str::<serde_json::Value>(raw).ok()) else { return line.to_string() };
                if !anonymise(&mut frame) {
                    return line.to_string();
                }
                renamed += 1;
                event["raw"] = frame.to_string().into();
                event.to_string()
            })
            .collect();
        let judge = |text: &str| registry::judge_all(&Observations::from_text(text).unwrap());
        let ending = if text.ends_with('\n') { "\n" } else { "" };
        let (named, nameless) = (judge(&text), judge(&(anonymous.join("\n") + ending)));
        assert_eq!(named.len(), nameless.len());
        for (a, b) in named.iter().zip(&nameless) {
            assert_eq!((&a.probe, a.outcome, &a.evidence), (&b.probe, b.outcome, &b.evidence), "{}", path.display());
            // A detail may quote what the client said its name is; otherwise it is the same.
            if !b.detail.contains("anonymous-client") {
                assert_eq!(a.detail, b.detail, "{} {}", path.display(), a.probe);
            }
        }
    }
    assert!(renamed > 20, "the journals name their clients in {renamed} frames only");
}

/// A host that defers its resource tools behind a tool search, as a model journal: the first
/// request offers only the search and names `ReadMcpResourceTool` in its text; the model asks the
/// search for it; the second request carries the search's `answer` and offers `offered`.
fn deferred_search(answer: &str, offered: &[&str]) -> Observations {
    let tool = |name: &str, properties: serde_json::Value| serde_json::json!({"name": name, "namespace": null, "schema": {"type": "object", "properties": properties}});
    let search = tool("ToolSearch", serde_json::json!({"query": {"type": "string"}}));
    let mut second: Vec<serde_json::Value> = vec![search.clone()];
    second.extend(offered.iter().map(|n| tool(n, serde_json::json!({"server": {}, "uri": {}}))));
    let view = |seq: u64, tools: &[serde_json::Value], results: &[&str]| {
        serde_json::json!({"format_version": 1, "seq": seq, "t_us": seq * 1000, "session": "model-stub", "transport": "http", "dir": "note", "kind": "note", "raw_len": 0,
            "detail": {"event": "model_view", "dialect": "anthropic", "tools": tools, "deferred": ["ReadMcpResourceTool"], "tool_results": results, "error_marks": [], "payloads": {}, "mentions": {}}})
    };
    let call = serde_json::json!({"format_version": 1, "seq": 2, "t_us": 2000, "session": "model-stub", "transport": "http", "dir": "s2c", "kind": "http_response", "raw_len": 0,
        "detail": {"dialect": "anthropic", "step": {"Call": {"tool": search, "arguments": {"query": "select:ReadMcpResourceTool"}, "purpose": "load the deferred tools"}}}});
    let lines = [view(1, std::slice::from_ref(&search), &[]), call, view(3, &second, &[answer])].map(|l| l.to_string()).join("\n");
    recorded("reference-stdio-legacy-host-full").with_model(probe_server::journal::parse_journal(&lines).unwrap())
}

#[test]
fn a_deferred_tool_the_hosts_search_failed_to_load_is_not_reached_and_one_never_offered_is_a_no() {
    let verdict = |o: &Observations| registry::judge_all(o).into_iter().find(|v| v.probe == "affordances.read_tool").unwrap();
    let refused = verdict(&deferred_search("Error: max_results must be at most 20", &[]));
    assert_eq!(refused.outcome.label(), "not-reached", "{}", refused.detail);
    assert!(refused.detail.contains("did not load ReadMcpResourceTool") && refused.detail.contains("at most 20"), "{}", refused.detail);
    assert_eq!(refused.evidence.as_ref(), [2], "the search call is cited");
    // The search loaded it and the host offered it: yes. It loaded it, and the host still never
    // offered a read tool: that is the host's doing.
    let loaded = verdict(&deferred_search("<functions><function>{\"name\": \"ReadMcpResourceTool\"}</function></functions>", &["ReadMcpResourceTool"]));
    assert_eq!(loaded.outcome.label(), "yes", "{}", loaded.detail);
    let withheld = verdict(&deferred_search("ReadMcpResourceTool loaded", &[]));
    assert_eq!(withheld.outcome.label(), "no", "{}", withheld.detail);
}

#[test]
fn the_tools_offered_to_the_model_are_found_once_and_follow_the_model_journal() {
    let names = |o: &Observations| o.offered_tools().into_iter().map(|(seq, t)| format!("{seq} {}", t["name"])).collect::<Vec<_>>();
    let full = with_model("reference-stdio-legacy-host-full");
    let everything = names(&full);
    assert!(everything.len() > 10, "{everything:?}");
    assert_eq!(names(&full), everything, "asked again");
    // Another model journal given to the same observations: its own tools, not the first's.
    let server = recorded("reference-stdio-legacy-host-full");
    let text = model_journal_text("reference-stdio-legacy-host-full");
    // Its first request alone, offering its first tool twice and then its second.
    let mut view: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    let tools = view["detail"]["tools"].as_array().unwrap().clone();
    view["detail"]["tools"] = serde_json::json!([tools[0], tools[0], tools[1]]);
    let other = format!("{}\n{view}\n", text.lines().next().unwrap());
    let again = full.with_model(probe_server::journal::parse_journal(&other).unwrap());
    let fresh = server.with_model(probe_server::journal::parse_journal(&other).unwrap());
    assert_eq!(names(&again), names(&fresh));
    assert_eq!(names(&again), [format!("2 {}", tools[0]["name"]), format!("2 {}", tools[1]["name"])]);
}

#[test]
fn a_settled_turn_lasts_as_long_as_the_stub_meant_it_to_and_a_real_clients_a_second() {
    use probe_server::probes::opportunity::{settled_turn, HELD_BACK_KEY, SETTLE_KEY, SETTLE_MS};
    let text = model_journal_text("reference-stdio-legacy-host-full");
    // The recorded journal's settled turn, held back `held` ms, with the settle the stub meant.
    let settled = |held: u64, meant: Option<u64>| {
        let lines: Vec<String> = text
            .lines()
            .map(|line| {
                let mut event: serde_json::Value = serde_json::from_str(line).unwrap();
                if let Some(detail) = event["detail"].as_object_mut().filter(|d| d.contains_key(HELD_BACK_KEY)) {
                    detail.insert(HELD_BACK_KEY.into(), held.into());
                    if let Some(meant) = meant {
                        detail.insert(SETTLE_KEY.into(), meant.into());
                    }
                }
                format!("{event}\n")
            })
            .collect();
        let model = probe_server::journal::parse_journal(&lines.concat()).unwrap();
        settled_turn(&recorded("reference-stdio-legacy-host-full").with_model(model)).is_ok()
    };
    assert!(text.contains(HELD_BACK_KEY) && settled(SETTLE_MS, None), "as recorded");
    assert!(!settled(600, None), "a journal that says no settle was meant a second");
    assert!(settled(600, Some(600)));
    assert!(!settled(500, Some(600)), "held back less than the settle meant");
}

#[test]
fn polls_are_judged_against_the_interval_each_task_asked_for() {
    let text = std::fs::read_to_string(format!("{}/../fixtures/journals/reference-stdio-legacy-tasks-full.jsonl", env!("CARGO_MANIFEST_DIR"))).unwrap();
    // The recorded run polled every 200 ms, as its tasks asked; the same polls judged against
    // tasks that asked for another interval.
    let judged = |interval_ms: u64| {
        let asked = text.replace(r#"pollInterval\":200"#, &format!(r#"pollInterval\":{interval_ms}"#));
        assert!(interval_ms == 200 || asked != text, "the recorded tasks ask for 200 ms");
        let observations = Observations::from_text(&asked).unwrap();
        registry::judge_all(&observations).into_iter().find(|v| v.probe == "tasks.poll_interval").unwrap()
    };
    let as_recorded = judged(200);
    assert_eq!(as_recorded.outcome.label(), "yes", "{}", as_recorded.detail);
    assert!(as_recorded.detail.ends_with("0 of them less than 100 ms after the one before"), "{}", as_recorded.detail);
    let quicker = judged(100);
    assert_eq!(quicker.outcome.label(), "yes", "{}", quicker.detail);
    assert!(quicker.detail.ends_with("less than 50 ms after the one before"), "{}", quicker.detail);
    // Asked for a second, every poll after the first about a task came too soon.
    let slower = judged(1000);
    assert_eq!(slower.outcome.label(), "no", "{}", slower.detail);
    assert!(slower.detail.contains("less than 500 ms"), "{}", slower.detail);
}

/// A recorded journal's events, each changed by `edit` (which drops an event by returning false),
/// as journal text.
fn edited(text: &str, mut edit: impl FnMut(&mut serde_json::Value) -> bool) -> String {
    text.lines()
        .filter_map(|line| {
            let mut event: serde_json::Value = serde_json::from_str(line).unwrap();
            edit(&mut event).then(|| format!("{event}\n"))
        })
        .collect()
}

fn fixture_text(journal: &str) -> String {
    std::fs::read_to_string(format!("{}/../fixtures/journals/{journal}.jsonl", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn verdict_of(o: &Observations, id: &str) -> probe_server::Verdict {
    registry::judge_all(o).into_iter().find(|v| v.probe == id).unwrap()
}

/// Issue 49, item 2: a host that negotiated 2024-11-05 was judged no on every task probe; tasks
/// do not exist in that revision.
#[test]
fn tasks_are_not_applicable_to_a_session_that_negotiated_a_revision_without_them() {
    let text = fixture_text("reference-stdio-legacy-tasks-full");
    let older = text.replace(r#"protocolVersion\":\"2025-11-25"#, r#"protocolVersion\":\"2024-11-05"#);
    assert_ne!(older, text, "the recorded session negotiated 2025-11-25");
    let (as_recorded, downgraded) = (Observations::from_text(&text).unwrap(), Observations::from_text(&older).unwrap());
    assert_eq!(downgraded.lifecycle().unwrap().negotiated_version.as_deref(), Some("2024-11-05"));
    assert_eq!(verdict_of(&as_recorded, "tasks.followed").outcome.label(), "yes");
    // (Those judged from the model's side have nothing to judge without the model's journal;
    // tasks.unadvertised_not_asked is judged on the standard server, not this journal's.)
    let on_tasks_variant = |id: &str| registry::find(id).is_some_and(|p| p.variant() == probe_server::Variant::Tasks);
    for verdict in
        registry::judge_all(&downgraded).into_iter().filter(|v| v.probe.starts_with("tasks.") && on_tasks_variant(&v.probe) && !v.detail.starts_with("no model transcript"))
    {
        assert_eq!(verdict.outcome.label(), "n/a", "{}: {}", verdict.probe, verdict.detail);
        // (The 2026-07-28-only and HTTP-only ones are n/a here whatever was negotiated.)
        assert!(verdict.detail.contains("2024-11-05") || verdict.detail.contains("era") || verdict.detail.contains("transport"), "{}", verdict.detail);
    }
}

/// Issue 49, item 4: the tool-name probes said no when the model was offered no MCP tool at all;
/// the host never showed the server's catalogue, so nothing says a name was the trouble.
#[test]
fn a_tool_name_is_not_blamed_when_the_model_was_offered_no_mcp_tool() {
    let journal = "reference-stdio-legacy-tool-names-host-full";
    let model = std::fs::read_to_string(format!("{}/../fixtures/journals/models/{journal}.jsonl", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let judged = |model: &str| {
        let o = recorded(journal).with_model(probe_server::journal::parse_journal(model).unwrap());
        ["tools.name_dots", "tools.name_dashes", "tools.name_128_chars"].map(|id| verdict_of(&o, id))
    };
    for verdict in judged(&model) {
        assert_eq!(verdict.outcome.label(), "yes", "{}: {}", verdict.probe, verdict.detail);
    }
    // The model offered only a host tool of its own.
    let bare = edited(&model, |event| {
        if let Some(tools) = event.pointer_mut("/detail/tools") {
            *tools = serde_json::json!([{"name": "Bash", "namespace": null, "schema": {"type": "object", "properties": {"command": {"type": "string"}}}}]);
        }
        true
    });
    for verdict in judged(&bare) {
        assert_eq!(verdict.outcome.label(), "not-reached", "{}: {}", verdict.probe, verdict.detail);
        assert_eq!(verdict.detail, "no MCP tool was offered to the model");
    }
    // Offered the probe's other tools but never the edge one: that is the host's doing.
    let without_dots = edited(&model, |event| {
        if let Some(tools) = event.pointer_mut("/detail/tools").and_then(serde_json::Value::as_array_mut) {
            tools.retain(|t| !t["name"].as_str().unwrap_or_default().contains("dotted"));
        }
        true
    });
    let dots = &judged(&without_dots)[0];
    assert_eq!(dots.outcome.label(), "no", "{}", dots.detail);
}

/// Issue 49, item 5: `http.delete_on_exit` was judged no on a run the harness stopped at its
/// bound: the client never got to exit by itself.
#[test]
fn a_client_stopped_at_the_bound_is_not_blamed_for_a_missing_delete() {
    let text = fixture_text("reference-http-legacy-full");
    let without_delete = edited(&text, |event| event.pointer("/detail/method").and_then(serde_json::Value::as_str) != Some("DELETE"));
    assert_ne!(without_delete.lines().count(), text.lines().count(), "the recorded client sent DELETE");
    let last = without_delete.lines().count() as u64;
    let stopped = format!(
        "{without_delete}{}\n",
        serde_json::json!({"format_version": 1, "seq": last + 1, "t_us": 9_000_000, "session": "", "transport": "http", "dir": "note", "kind": "note", "raw_len": 0,
            "detail": {"event": "client_exited", "launch": 1, "ending": {"kind": "timed_out"}}})
    );
    let verdict = |text: &str| verdict_of(&Observations::from_text(text).unwrap(), "http.delete_on_exit");
    assert_eq!(verdict(&text).outcome.label(), "yes");
    assert_eq!(verdict(&without_delete).outcome.label(), "no", "{}", verdict(&without_delete).detail);
    let at_bound = verdict(&stopped);
    assert_eq!(at_bound.outcome.label(), "not-reached", "{}", at_bound.detail);
    assert!(at_bound.detail.contains("bound"), "{}", at_bound.detail);
}

/// Issue 49, item 8: 2026-07-28 defines `Mcp-Method` for requests; a notification's POST
/// without it is not judged.
#[test]
fn standard_headers_are_judged_on_requests_only() {
    let text = fixture_text("reference-http-modern-full");
    let verdict = |text: &str| verdict_of(&Observations::from_text(text).unwrap(), "http.standard_headers");
    let as_recorded = verdict(&text);
    assert_eq!(as_recorded.outcome.label(), "yes", "{}", as_recorded.detail);
    // A notification posted without Mcp-Method (2026-07-28 has few of them; the reference sends none).
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let session = text.lines().filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()).rfind(|e| e["kind"] == "frame").unwrap()["session"].clone();
    let raw = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
    let notification = serde_json::json!({"format_version": 1, "seq": last["seq"].as_u64().unwrap() + 1, "t_us": last["t_us"].as_u64().unwrap() + 1, "session": session,
        "transport": "http", "dir": "c2s", "kind": "frame", "raw": raw, "raw_len": raw.len(), "method": "notifications/cancelled",
        "detail": {"headers": {"content-type": "application/json", "mcp-protocol-version": "2026-07-28"}}});
    let with_notification = format!("{text}{notification}\n");
    let judged = verdict(&with_notification);
    assert_eq!(judged.outcome.label(), "yes", "{}", judged.detail);
    // A request without its header counts.
    let mut stripped = 0;
    let bare_request = edited(&text, |event| {
        if stripped == 0 && event["kind"] == "frame" && event["dir"] == "c2s" && event.get("id").is_some() && event.get("method").is_some() {
            stripped += usize::from(event.pointer_mut("/detail/headers").and_then(serde_json::Value::as_object_mut).and_then(|h| h.remove("mcp-method")).is_some());
        }
        true
    });
    assert_eq!(stripped, 1);
    assert_eq!(verdict(&bare_request).outcome.label(), "partial", "{}", verdict(&bare_request).detail);
}

/// Issue 49, item 17: each form's refusal was judged automatic only when it came under 100 ms,
/// so on a loaded machine one host's refusals, all automatic, were judged two ways (one form
/// auto-answered, the next declined by a person). Whether a person sat at the forms is the run's:
/// a refusal of one form under 100 ms makes every refusal of a form in the run automatic.
#[test]
fn one_form_refused_at_once_makes_every_refused_form_automatic() {
    let text = fixture_text("reference-stdio-legacy-elicit-auto-decline");
    // The enum forms (asked at line 48) refused 160 ms later, as a loaded machine may make an
    // automatic refusal take; the form of primitives (line 44) was refused in 6 ms.
    let enums_refused = edited(&text, |event| {
        if event["seq"] == 49 {
            let raw = r#"{"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}"#;
            event["raw"] = raw.into();
            event["raw_len"] = raw.len().into();
        }
        true
    });
    let judged = |text: &str, id: &str| verdict_of(&Observations::from_text(text).unwrap(), id);
    for id in ["elicitation.form", "elicitation.enum_untitled_single", "elicitation.enum_titled_multi"] {
        let verdict = judged(&enums_refused, id);
        assert_eq!(verdict.outcome.label(), "auto-answered", "{id}: {}", verdict.detail);
    }
    // With the form's refusal slow too, no refusal came faster than a person: declines, each a no.
    let all_slow = edited(&enums_refused, |event| {
        if event["seq"] == 45 {
            event["t_us"] = (event["t_us"].as_u64().unwrap() + 250_000).into();
        }
        true
    });
    for id in ["elicitation.form", "elicitation.enum_untitled_single"] {
        let verdict = judged(&all_slow, id);
        assert_eq!(verdict.outcome.label(), "no", "{id}: {}", verdict.detail);
    }
    // The URL request is no form: its person's decline stays the person's.
    assert_eq!(judged(&enums_refused, "elicitation.url").outcome.label(), "yes");
}

/// Issue 49, item 7: a host that lists resources only when its model asks (its resource-list tool
/// lists live) refetches after `list_changed` only if the model asks again. Without that ask the
/// harness gave it no chance: not reached; asked and still no new `resources/list`, no.
#[test]
fn a_host_listing_resources_on_request_is_asked_again_before_it_is_blamed() {
    let journal = "reference-stdio-legacy-host-full";
    let text = model_journal_text(journal);
    let judged = |model: &str| verdict_of(&recorded(journal).with_model(probe_server::journal::parse_journal(model).unwrap()), "resources.list_changed");
    let unasked = judged(&text);
    assert_eq!(unasked.outcome.label(), "not-reached", "{}", unasked.detail);
    assert!(unasked.detail.contains("never called list_resources again after probe_list_changed"), "{}", unasked.detail);
    // The model's last call made a call of the resource-list tool: the host had its chance.
    let list_tool = text.lines().find_map(|line| {
        let event: serde_json::Value = serde_json::from_str(line).ok()?;
        event.pointer("/detail/step/Call/tool").filter(|t| t["name"] == "list_resources").cloned()
    });
    let asked = edited(&text, |event| {
        if event.pointer("/detail/step/Call/purpose").and_then(serde_json::Value::as_str) == Some("call probe_ping after the JSON-RPC error") {
            event["detail"]["step"]["Call"]["tool"] = list_tool.clone().unwrap();
        }
        true
    });
    let blamed = judged(&asked);
    assert_eq!(blamed.outcome.label(), "no", "{}", blamed.detail);
}

/// Renames the client's request at journal line `seq` to `method` (its raw text and its summary).
fn renamed(text: &str, seq: u64, method: &str) -> String {
    edited(text, |event| {
        if event["seq"] == seq {
            let mut frame: serde_json::Value = serde_json::from_str(event["raw"].as_str().unwrap()).unwrap();
            frame["method"] = method.into();
            event["raw"] = frame.to_string().into();
            event["method"] = method.into();
        }
        true
    })
}

/// A 2026-07-28 client's discover must open its connection; asking again later is no fault.
#[test]
fn only_the_first_discover_of_a_connection_must_come_first() {
    let text = fixture_text("reference-http-modern-full");
    let o = Observations::from_text(&text).unwrap();
    assert_eq!(verdict_of(&o, "connection.discover_first").outcome.label(), "yes");
    let requests: Vec<u64> = o.frames.iter().filter(|f| f.dir == probe_server::journal::Direction::ClientToServer && f.is_request()).map(|f| f.seq).collect();
    assert_eq!(o.frames.iter().find(|f| f.seq == requests[0]).unwrap().method(), Some("server/discover"));
    // A second discover later in the connection.
    let again = Observations::from_text(&renamed(&text, requests[3], "server/discover")).unwrap();
    assert_eq!(verdict_of(&again, "connection.discover_first").outcome.label(), "yes");
    // The first request no discover, the only one after it.
    let late = Observations::from_text(&renamed(&renamed(&text, requests[0], "tools/list"), requests[3], "server/discover")).unwrap();
    let verdict = verdict_of(&late, "connection.discover_first");
    assert_eq!(verdict.outcome.label(), "no", "{}", verdict.detail);
    assert!(verdict.detail.contains("after tools/list"), "{}", verdict.detail);
}

/// A refresh token presented twice is no either way; the detail tells a race from a stale store,
/// and carries no timing (a detail that changes from run to run is a difference to `--repeat`).
#[test]
fn a_refresh_token_presented_twice_is_no_and_says_whether_refreshes_raced() {
    let text = fixture_text("codex-http-auth-refresh");
    let o = Observations::from_text(&text).unwrap();
    assert_eq!(verdict_of(&o, "auth.refresh_token_rotated").outcome.label(), "yes");
    let presented = |event: &serde_json::Value| event["detail"]["form"]["refresh_token"].as_str().map(str::to_string);
    let events: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let refreshes: Vec<&serde_json::Value> = events.iter().filter(|e| e["detail"]["form"]["grant_type"] == "refresh_token").collect();
    assert!(refreshes.len() >= 3, "the recording refreshed {} times", refreshes.len());
    let first_token = presented(refreshes[0]).unwrap();
    let reuse_at = |index: usize| {
        let seq = refreshes[index]["seq"].clone();
        edited(&text, |event| {
            if event["seq"] == seq {
                event["detail"]["form"]["refresh_token"] = first_token.clone().into();
            }
            true
        })
    };
    // The second refresh follows the first at once (this client refreshes twice in a row): a race.
    let raced = verdict_of(&Observations::from_text(&reuse_at(1)).unwrap(), "auth.refresh_token_rotated");
    assert_eq!(raced.outcome.label(), "no");
    assert!(raced.detail.contains("two refreshes raced"), "{}", raced.detail);
    // The third comes after a request let through with a token issued since: a stale store.
    let stale = verdict_of(&Observations::from_text(&reuse_at(2)).unwrap(), "auth.refresh_token_rotated");
    assert_eq!(stale.outcome.label(), "no");
    assert!(stale.detail.contains("after using an access token issued since"), "{}", stale.detail);
    assert!(!stale.detail.contains(" ms"), "{}", stale.detail);
}
