//! Regressions of verdicts that were the harness's doing, not the host's (issue 13), each judged
//! on the real recorded journals it was found in (`fixtures/journals/recorded`, model journals
//! with the request bodies left out), and the rule that every verdict blaming a client cites
//! the opportunity it had.

use probe_server::journal::parse_journal;
use probe_server::observe::Observations;
use probe_server::probe::{Outcome, Verdict};
use probe_server::{registry, Variant};

fn recorded(name: &str) -> Observations {
    let dir = format!("{}/../fixtures/journals/recorded", env!("CARGO_MANIFEST_DIR"));
    let server = std::fs::read_to_string(format!("{dir}/{name}.journal.jsonl")).unwrap();
    let observations = Observations::from_text(&server).unwrap();
    match std::fs::read_to_string(format!("{dir}/{name}.model.jsonl")) {
        Ok(model) => observations.with_model(parse_journal(&model).unwrap()),
        Err(_) => observations,
    }
}

fn verdict_of(runs: &[(Variant, &Observations)], probe: &str) -> Verdict {
    registry::judge_runs(runs).into_iter().find(|v| v.probe == probe).unwrap()
}

fn standard(name: &str, probe: &str) -> Verdict {
    let o = recorded(name);
    verdict_of(&[(Variant::Standard, &o)], probe)
}

const CODEX: &str = "codex-0.171.0-stdio";
const CLAUDE: &str = "claude-code-2.1.332-stdio";
const FAST_AGENT: &str = "fast-agent-0.10.48-stdio";
/// fast-agent's run after the fixes: every trigger on page one, so sampling is reached.
const FAST_AGENT_REPROBED: &str = "fast-agent-0.10.48-stdio.reprobed";

#[test]
fn codex_namespaced_tools_without_a_separator_are_offered() {
    let names = standard(CODEX, "affordances.tool_names");
    assert_eq!((names.outcome, names.detail.as_str()), (Outcome::Yes, "all 10 listed tools, in namespace mcp__probe"));
    for probe in ["affordances.tool_schemas", "affordances.tool_descriptions"] {
        let v = standard(CODEX, probe);
        assert_eq!(v.outcome, Outcome::Yes, "{probe}: {}", v.detail);
    }
}

#[test]
fn a_tool_that_appeared_after_the_last_model_turn_is_not_counted_missing() {
    let v = standard(CLAUDE, "affordances.tool_names");
    assert_eq!(v.outcome, Outcome::Yes, "{}", v.detail);
    assert!(v.detail.contains("1 listed after the lists changed, with no model turn since, not counted"), "{}", v.detail);
}

#[test]
fn templates_list_is_not_blamed_on_a_host_whose_template_tool_was_never_called() {
    let v = standard(CODEX, "resources.templates_list");
    assert_eq!(v.outcome, Outcome::NotReached, "{}", v.detail);
    assert!(v.detail.contains("list_mcp_resource_templates"), "{}", v.detail);
}

#[test]
fn list_changed_without_a_settled_model_turn_is_not_reached() {
    let v = standard(CODEX, "tools.list_changed");
    assert_eq!(v.outcome, Outcome::NotReached, "{}", v.detail);
    assert!(v.detail.contains("settled turn"), "{}", v.detail);
}

#[test]
fn a_decline_in_a_few_milliseconds_is_auto_answered_for_every_form() {
    for probe in ["elicitation.form", "elicitation.enum_untitled_single", "elicitation.enum_titled_multi", "elicitation.enum_legacy_names"] {
        let v = standard(CODEX, probe);
        assert_eq!(v.outcome, Outcome::AutoAnswered, "{probe}: {}", v.detail);
        assert!(v.detail.starts_with("answered decline in < 100 ms"), "{probe}: {}", v.detail);
    }
}

#[test]
fn resources_gated_means_nothing_for_a_host_that_never_offers_resource_tools() {
    let (standard_run, gated_run) = (recorded(FAST_AGENT), recorded(&format!("{FAST_AGENT}.no-resources")));
    let runs = [(Variant::Standard, &standard_run), (Variant::NoResources, &gated_run)];
    assert_eq!(verdict_of(&runs, "affordances.read_tool").outcome, Outcome::No);
    let v = verdict_of(&runs, "affordances.resources_gated");
    assert_eq!(v.outcome, Outcome::NotApplicable, "{}", v.detail);
    // Judged alone (as the self-test does) the variant's own verdict stands.
    assert_eq!(verdict_of(&[(Variant::NoResources, &gated_run)], "affordances.resources_gated").outcome, Outcome::Yes);
}

/// fast-agent stops at the first tools page; when five of the ten trigger tools were on page two,
/// sampling, roots, ping and every list_changed probe said not-reached for it. Every trigger is on
/// page one now, and only the decoy is on page two.
#[test]
fn every_trigger_tool_is_on_the_first_tools_page() {
    use probe_server::surface as s;
    let tools = s::tools(false);
    let first_page: Vec<&str> = tools.iter().take(s::TOOLS_PAGE_ONE).map(|t| t["name"].as_str().unwrap()).collect();
    for tool in s::TRIGGER_TOOLS {
        assert!(first_page.contains(&tool), "{tool} is not on the first page");
    }
    let second_page: Vec<&str> = tools[s::TOOLS_PAGE_ONE..].iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(second_page, [s::TOOL_PAGE_TWO]);
    // The recorded run shows the coupling this removes: page one only, and sampling never reached.
    let o = recorded(FAST_AGENT);
    assert_eq!(verdict_of(&[(Variant::Standard, &o)], "tools.pagination").outcome, Outcome::No);
    assert_eq!(verdict_of(&[(Variant::Standard, &o)], "sampling.create_message").outcome, Outcome::NotReached);
}

/// The stub answered a forwarded sampling request that offers `probe_weather` with text, so
/// `sampling.tools` could only say the offered tool was ignored. Re-probed, fast-agent forwards
/// the request with the tool, the stub calls it, and the host hands the call back to the server.
#[test]
fn a_forwarded_sampling_request_with_tools_is_answered_with_the_tool() {
    use probe_server::journal::Direction;
    let o = recorded(FAST_AGENT_REPROBED);
    let stub_called_the_tool = o.model().iter().any(|e| e.dir == Direction::ServerToClient && e.raw.as_deref().is_some_and(|r| r.contains(r#""name":"probe_weather""#)));
    assert!(stub_called_the_tool, "the model journal shows the stub calling probe_weather");
    let v = verdict_of(&[(Variant::Standard, &o)], "sampling.tools");
    assert_eq!(v.outcome, Outcome::Yes, "{}", v.detail);
}

/// Every verdict that blames a client (no, partial, declared-only) cites its opportunity, on
/// the recorded real hosts and on every recorded reference journal.
#[test]
fn every_verdict_that_blames_a_client_cites_its_opportunity() {
    let mut checked = 0;
    let mut observations: Vec<(String, Observations)> = [CODEX, CLAUDE, FAST_AGENT, FAST_AGENT_REPROBED].iter().map(|n| (n.to_string(), recorded(n))).collect();
    let top = format!("{}/../fixtures/journals", env!("CARGO_MANIFEST_DIR"));
    for entry in std::fs::read_dir(&top).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            observations.push((path.display().to_string(), Observations::from_text(&std::fs::read_to_string(&path).unwrap()).unwrap()));
        }
    }
    let mut missing = Vec::new();
    for (name, o) in &observations {
        for v in registry::judge_all(o).into_iter().filter(Verdict::blames_client) {
            checked += 1;
            if !v.has_opportunity() {
                missing.push(format!("{name}: {} {}: {}", v.probe, v.outcome.label(), v.detail));
            }
        }
    }
    assert!(missing.is_empty(), "verdicts without opportunity:\n{}", missing.join("\n"));
    assert!(checked > 20, "only {checked} verdicts blamed a client: the fixtures no longer test the rule");
}

#[test]
fn an_answer_in_a_run_with_nobody_at_the_host_is_auto_answered_however_slow() {
    // fast-agent cancels its first form after about 200 ms and the enum forms within 100 ms: by
    // each answer's latency alone the same behaviour read as no once and as auto-answered five
    // times. A host that refused one form at once refused them all by itself: every refusal of a
    // form in the run is auto-answered, even without the note.
    let forms = ["elicitation.form", "elicitation.enum_untitled_single", "elicitation.enum_titled_multi", "elicitation.enum_legacy_names"];
    let o = recorded(FAST_AGENT_REPROBED);
    assert!(o.notes(probe_server::note::Note::Unattended).next().is_none(), "the fixture predates the note");
    let by_latency: Vec<Outcome> = forms.iter().map(|p| verdict_of(&[(Variant::Standard, &o)], p).outcome).collect();
    assert_eq!(by_latency, [Outcome::AutoAnswered; 4]);

    let dir = format!("{}/../fixtures/journals/recorded", env!("CARGO_MANIFEST_DIR"));
    let mut read = probe_server::journal::read_journal(std::path::Path::new(&format!("{dir}/{FAST_AGENT_REPROBED}.journal.jsonl"))).unwrap();
    read.push_note("stdio", probe_server::journal::Transport::Stdio, probe_server::note::Payload::detail(&probe_server::note::Unattended { launches: 1 }));
    let note_line = read.events.last().unwrap().seq;
    let unattended = Observations::from_read(read);
    for probe in forms.iter().chain(&["elicitation.url"]) {
        let verdict = verdict_of(&[(Variant::Standard, &unattended)], probe);
        assert_eq!(verdict.outcome, Outcome::AutoAnswered, "{probe}: {}", verdict.detail);
        assert!(verdict.detail.contains("nobody at the host"), "{probe}: {}", verdict.detail);
        assert!(verdict.evidence.contains(&note_line), "{probe} cites the note");
    }
    assert_eq!(verdict_of(&[(Variant::Standard, &unattended)], "elicitation.mrtr_retry").outcome, verdict_of(&[(Variant::Standard, &o)], "elicitation.mrtr_retry").outcome);
}

/// The MCP Inspector CLI starts a process per step, each opening with `initialize`, which carries
/// no `MCP-Protocol-Version` (the version is not negotiated yet): the stateless version-header
/// judge once counted those and called the Inspector partial. Its GET stream, refused 405, is
/// followed by its list and call.
#[test]
fn a_client_that_opens_per_step_is_judged_on_the_requests_after_each_opening() {
    let o = recorded("mcp-inspector-2.12.0-http.stateless");
    let runs = [(Variant::Stateless, &o)];
    let header = verdict_of(&runs, "http.stateless_version_header");
    assert_eq!(header.outcome, Outcome::Yes, "{}", header.detail);
    let get = verdict_of(&runs, "http.stateless_get_refused");
    assert_eq!((get.outcome, get.detail.as_str()), (Outcome::Yes, "its GET stream was refused (405) 2 times, and it went on"));
    for probe in ["http.stateless_tools_listed", "http.stateless_tool_called", "http.stateless_no_session_id"] {
        let v = verdict_of(&runs, probe);
        assert_eq!(v.outcome, Outcome::Yes, "{probe}: {}", v.detail);
    }
}

/// A host's call against a server that keeps no session is judged on what reached its model:
/// Gemini CLI's model called `probe_stateless` and got its canary back. Its requests carry no
/// `MCP-Protocol-Version`, which a stateless server has no other way to learn.
#[test]
fn a_hosts_stateless_call_is_judged_on_what_reached_its_model() {
    let o = recorded("gemini-cli-0.61.0-http.stateless");
    let runs = [(Variant::Stateless, &o)];
    let called = verdict_of(&runs, "http.stateless_tool_called");
    assert_eq!((called.outcome, called.detail.as_str()), (Outcome::Yes, "the model's call of probe_stateless was answered without a session and its result reached the model"));
    let header = verdict_of(&runs, "http.stateless_version_header");
    assert_eq!(header.outcome, Outcome::No, "{}", header.detail);
    assert!(!header.opportunity.is_empty(), "a no cites its opportunity");
}
