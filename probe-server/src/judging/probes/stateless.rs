//! Streamable HTTP against a server that keeps no session (the `stateless` and `stateless-sse`
//! variants, see `stateless.rs`): whether a client opens without an `Mcp-Session-Id`, lists and
//! calls tools, invents no session, survives the 405 to a GET stream, and says its protocol
//! version on every request (all a stateless server has to know it by). Judged on the legacy era:
//! in 2026-07-28 there are no sessions at all, so every client of that era is stateless by design.

use serde_json::Value;

use super::http::{first_seen, header, method as http_method, use_of_list, version_header_not_required, version_header_said, ListUse};
use super::{probe, HTTP_ONLY, LEGACY};
use crate::host_tools::names_tool;
use crate::journal::{Direction, Event, EventKind};
use crate::observe::{Frame, Observations};
use crate::probe::{Outcome, Verdict};
use crate::stateless::{RESULT_CANARY, TOOL_STATELESS};

/// The server's answer (a result) to the client's opening `initialize`: what every stateless
/// judge starts from.
fn opened(o: &Observations) -> Result<&Frame, Verdict> {
    o.client_requests("initialize")
        .find_map(|asked| o.answer_to(asked).filter(|a| a.result().is_some()))
        .ok_or_else(|| Verdict::new(Outcome::NotReached, "no initialize was answered: the client never opened with the server"))
}

/// `judge` given the opening answer, or not-reached where there was none.
fn after_opening(o: &Observations, judge: impl FnOnce(&Frame) -> Verdict) -> Verdict {
    match opened(o) {
        Ok(answer) => judge(answer),
        Err(verdict) => verdict,
    }
}

/// The HTTP requests after the opening answer (line `after`), but those that open again (a
/// client that starts a process per step sends `initialize` each time, which carries no
/// version header and needs no session).
fn requests_after(o: &Observations, after: u64) -> Vec<&Event> {
    let mut reopening = std::collections::HashSet::new();
    let mut last_request = None;
    for event in &o.events {
        if event.kind == EventKind::HttpRequest {
            last_request = Some(event.seq);
        } else if event.kind == EventKind::Frame && event.dir == Direction::ClientToServer && event.method.as_deref() == Some("initialize") {
            reopening.extend(last_request);
        }
    }
    o.http_requests().filter(|e| e.seq > after && !reopening.contains(&e.seq)).collect()
}

/// Yes when, after an opening answered without a session, the client listed tools and then
/// called one or offered one to its model; `how` names the answers' form for the detail.
fn listed_and_used(o: &Observations, how: &str) -> Verdict {
    after_opening(o, |answer| {
        let listed = o.client_requests("tools/list").find(|f| f.seq > answer.seq && o.answer_to(f).is_some_and(|a| a.result().is_some()));
        let Some(listed) = listed else {
            let after = first_seen(o.frames.iter().filter(|f| f.seq > answer.seq && f.dir == Direction::ClientToServer).filter_map(Frame::method));
            let did = if after.is_empty() { "sent nothing more".to_string() } else { format!("sent {}", after.join(", ")) };
            return Verdict::new(Outcome::No, format!("opened without a session id ({how}), then never listed tools: it {did}")).evidence([answer.seq]).opportunity([answer.seq]);
        };
        match use_of_list(o, listed.seq, o.tool_calls(TOOL_STATELESS)) {
            ListUse::Called(call) => {
                Verdict::new(Outcome::Yes, format!("opened without a session id, listed tools and called {TOOL_STATELESS} ({how})")).evidence([listed.seq, call.seq])
            }
            ListUse::Offered => Verdict::new(Outcome::Yes, format!("opened without a session id and listed tools, which reached the model ({how})")).evidence([listed.seq]),
            ListUse::Unused => Verdict::new(Outcome::No, format!("listed tools without a session id ({how}), then neither called one nor offered one to a model"))
                .evidence([listed.seq])
                .opportunity([listed.seq]),
        }
    })
}

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] =
    &[&StatelessToolsListed, &StatelessToolCalled, &StatelessNoSessionId, &StatelessGetRefused, &StatelessVersionHeader, &StatelessSse];

probe! {
    /// Evidence (server journal, `stateless` variant): the server answered `initialize` without an
    /// `Mcp-Session-Id`; the client then sent `tools/list` and called `probe_stateless` or offered
    /// it to its model (yes). Opened and never listed tools, or listed and did nothing with them:
    /// no (the MCP Inspector CLI 2.12.0 against the conformance suite's stateless servers never
    /// listed). No initialize answered: not-reached.
    StatelessToolsListed {
        id: "http.stateless_tools_listed", area: Http, title: "lists tools from a server that keeps no session",
        revisions: ["2025-03-26"], eras: LEGACY, transports: HTTP_ONLY, variant: Stateless,
        serves: "Streamable HTTP without sessions, answers as JSON bodies; tools/list holds only probe_stateless", judge: |o| listed_and_used(o, "answers as JSON bodies"), reads_model: true,
    }
}

probe! {
    /// Evidence (server journal, `stateless-sse` variant): as `http.stateless_tools_listed`, with
    /// every answer an event stream of its own that no session holds (yes when tools were listed
    /// and called or offered to the model; no when the client opened and never listed, or did
    /// nothing with the list).
    StatelessSse {
        id: "http.stateless_sse", area: Http, title: "takes one event stream per request from a server that keeps no session",
        revisions: ["2025-03-26"], eras: LEGACY, transports: HTTP_ONLY, variant: StatelessSse,
        serves: "Streamable HTTP without sessions, every answer its own event stream; tools/list holds only probe_stateless", judge: |o| listed_and_used(o, "answers as event streams"), reads_model: true,
    }
}

probe! {
    /// Evidence (server journal, `stateless` variant): a `tools/call` of `probe_stateless` reached
    /// the server and was answered, and where the client has a model its result (the canary)
    /// reached the model in a later request (yes). The model called the tool and the server never
    /// saw the call, or saw it and the model never got the result: no. A client without a model
    /// that never called it was not asked to (not-reached).
    StatelessToolCalled {
        id: "http.stateless_tool_called", area: Http, title: "a tool call goes through a server that keeps no session",
        revisions: ["2025-03-26"], eras: LEGACY, transports: HTTP_ONLY, variant: Stateless,
        serves: "Streamable HTTP without sessions; probe_stateless answers with a canary", judge: judge_tool_called, reads_model: true,
    }
}

fn judge_tool_called(o: &Observations) -> Verdict {
    after_opening(o, |answer| {
        let model_call = o.model_calls().find(|(_, name, _)| names_tool(name, TOOL_STATELESS)).map(|(seq, _, _)| seq);
        let answered = o.tool_calls(TOOL_STATELESS).find_map(|call| o.answer_to(call).filter(|a| a.result().is_some()).map(|a| (call, a)));
        match (answered, model_call) {
            (Some((call, result)), Some(model_call)) => match super::results::result_after(o, model_call, RESULT_CANARY) {
                Some(_) => Verdict::new(Outcome::Yes, format!("the model's call of {TOOL_STATELESS} was answered without a session and its result reached the model"))
                    .evidence([call.seq, result.seq]),
                None => Verdict::new(Outcome::No, format!("{TOOL_STATELESS} was answered without a session, and its result never reached the model"))
                    .evidence([call.seq, result.seq])
                    .opportunity([result.seq]),
            },
            (Some((call, result)), None) => Verdict::new(Outcome::Yes, format!("{TOOL_STATELESS} was called without a session and answered")).evidence([call.seq, result.seq]),
            (None, Some(_)) => match o.tool_calls(TOOL_STATELESS).next() {
                Some(call) => Verdict::new(Outcome::No, format!("the model's call of {TOOL_STATELESS} reached the server and was never answered")).evidence([call.seq]),
                None => {
                    Verdict::new(Outcome::No, format!("the model called {TOOL_STATELESS}, and the call never reached the server")).evidence([answer.seq]).opportunity([answer.seq])
                }
            },
            (None, None) if !o.model().is_empty() => {
                Verdict::new(Outcome::NotReached, format!("the model never called {TOOL_STATELESS} (the host did not offer it, or the run ended before)"))
            }
            (None, None) => Verdict::new(Outcome::NotReached, format!("{TOOL_STATELESS} was never called, and no model asked for it")),
        }
    })
}

probe! {
    /// Evidence (server journal, `stateless` variant): no HTTP request after the initialize answer
    /// (which carried no `Mcp-Session-Id`) carries an `Mcp-Session-Id` header: the client invents
    /// no session and reuses none (yes). Any that does: no, its detail naming the first. Nothing
    /// sent after the opening: not-reached.
    StatelessNoSessionId {
        id: "http.stateless_no_session_id", area: Http, title: "sends no session id the server never issued",
        revisions: ["2025-03-26"], eras: LEGACY, transports: HTTP_ONLY, variant: Stateless,
        serves: "Streamable HTTP without sessions: no Mcp-Session-Id is ever issued", judge: judge_no_session_id,
    }
}

fn judge_no_session_id(o: &Observations) -> Verdict {
    after_opening(o, |answer| {
        let later = requests_after(o, answer.seq);
        let Some(first) = later.first() else { return Verdict::new(Outcome::NotReached, "the client sent nothing after the opening") };
        let carrying: Vec<&&Event> = later.iter().filter(|e| header(e, "mcp-session-id").is_some()).collect();
        match carrying.first() {
            None => Verdict::new(Outcome::Yes, format!("none of {} requests after the opening carries an Mcp-Session-Id", later.len())).evidence([first.seq]),
            Some(bad) => Verdict::new(
                Outcome::No,
                format!(
                    "{} of {} requests carry an Mcp-Session-Id the server never issued (the first: {:?})",
                    carrying.len(),
                    later.len(),
                    header(bad, "mcp-session-id").unwrap_or_default()
                ),
            )
            .evidence([bad.seq])
            .opportunity([answer.seq]),
        }
    })
}

probe! {
    /// Evidence (server journal, `stateless` variant): the client opened no standalone GET stream
    /// (which the server never offers), or it did, got 405, and went on: a JSON-RPC request after
    /// the 405 (yes). A 405 to its GET after which the client sent no request: no. Nothing sent
    /// after the opening: not-reached.
    StatelessGetRefused {
        id: "http.stateless_get_refused", area: Http, title: "opens no GET stream, or goes on after its 405",
        revisions: ["2025-03-26"], eras: LEGACY, transports: HTTP_ONLY, variant: Stateless,
        serves: "Streamable HTTP without sessions: GET is answered 405", judge: judge_get_refused,
    }
}

fn judge_get_refused(o: &Observations) -> Verdict {
    after_opening(o, |answer| {
        // The 405s that answered a GET: each response answers the last request before it.
        let mut last_request = "";
        let refused: Vec<&Event> = o
            .events
            .iter()
            .filter(|e| {
                if e.kind == EventKind::HttpRequest {
                    last_request = http_method(e);
                }
                e.kind == EventKind::HttpResponse && last_request == "GET" && e.detail.as_ref().and_then(|d| d.get("status")).and_then(Value::as_u64) == Some(405)
            })
            .collect();
        let later_request = |after: u64| o.frames.iter().find(|f| f.seq > after && f.dir == Direction::ClientToServer && f.is_request());
        let Some(last_refusal) = refused.last() else {
            return match later_request(answer.seq) {
                Some(request) => Verdict::new(Outcome::Yes, "opened no GET stream").evidence([request.seq]),
                None => Verdict::new(Outcome::NotReached, "the client sent no request after the opening"),
            };
        };
        let times = if refused.len() == 1 { "once".to_string() } else { format!("{} times", refused.len()) };
        match later_request(refused[0].seq) {
            Some(request) => Verdict::new(Outcome::Yes, format!("its GET stream was refused (405) {times}, and it went on")).evidence([refused[0].seq, request.seq]),
            None => Verdict::new(Outcome::No, format!("its GET stream was refused (405) {times}, and it sent no request after"))
                .evidence([last_refusal.seq])
                .opportunity([last_refusal.seq]),
        }
    })
}

probe! {
    /// Evidence (server journal, `stateless` variant): every HTTP request after the initialize
    /// answer carries `MCP-Protocol-Version` equal to the negotiated version, which a server
    /// without sessions has no other way to know (required from 2025-06-18). All: yes; some:
    /// partial; none: no. An older negotiated version: n/a.
    StatelessVersionHeader {
        id: "http.stateless_version_header", area: Http, title: "MCP-Protocol-Version on every request to a server that keeps no session",
        revisions: ["2025-06-18"], eras: LEGACY, transports: HTTP_ONLY, variant: Stateless,
        serves: "Streamable HTTP without sessions: only the header says a request's version", judge: judge_version_header,
    }
}

fn judge_version_header(o: &Observations) -> Verdict {
    after_opening(o, |answer| {
        let Some(negotiated) = answer.result().and_then(|r| r.get("protocolVersion")).and_then(Value::as_str) else {
            return Verdict::new(Outcome::NotReached, "the initialize answer named no version");
        };
        version_header_not_required(negotiated).unwrap_or_else(|| version_header_said(&requests_after(o, answer.seq), negotiated, answer.seq))
    })
}
