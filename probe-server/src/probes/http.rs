//! Streamable HTTP behaviour of legacy sessions, judged from the HTTP tap's request events:
//! the `MCP-Protocol-Version` header, the standalone GET stream, and DELETE at the end.

use serde_json::Value;

use super::{probe, HTTP_ONLY, LEGACY};
use crate::journal::Event;
use crate::observe::Observations;
use crate::probe::{Outcome, Verdict};

fn header<'a>(event: &'a Event, name: &str) -> Option<&'a str> {
    event.detail.as_ref()?.get("headers")?.get(name)?.as_str()
}

fn method(event: &Event) -> &str {
    event.detail.as_ref().and_then(|d| d.get("method")).and_then(Value::as_str).unwrap_or("")
}

/// The session the server minted in its initialize answer, and the journal line of that answer.
fn session(o: &Observations) -> Option<(String, u64)> {
    o.events.iter().find_map(|e| {
        let minted = e.kind == crate::journal::EventKind::HttpResponse && header(e, "mcp-session-id").is_some();
        minted.then(|| (header(e, "mcp-session-id").unwrap_or_default().to_string(), e.seq))
    })
}

probe! {
    /// Evidence: every HTTP request inside the session (after the initialize answer, carrying the
    /// session id) has `MCP-Protocol-Version` equal to the negotiated version (required from
    /// 2025-06-18 on). Some without it is partial.
    ProtocolVersionHeader {
        id: "http.protocol_version_header", area: Http, title: "MCP-Protocol-Version on every request",
        revisions: ["2025-06-18"], eras: LEGACY, transports: HTTP_ONLY,
        serves: "Streamable HTTP with sessions", judge: judge_protocol_header,
    }
}

fn judge_protocol_header(o: &Observations) -> Verdict {
    let Some(negotiated) = o.lifecycle().and_then(|l| l.negotiated_version) else { return Verdict::new(Outcome::NotReached, "initialize never answered") };
    if negotiated.as_str() < "2025-06-18" {
        return Verdict::new(Outcome::NotApplicable, format!("not required in {negotiated}"));
    }
    let Some((_, answered)) = session(o) else { return Verdict::new(Outcome::NotReached, "no session was minted") };
    // Requests inside a session (a client that opens several sessions sends each initialize bare).
    let later: Vec<&Event> = o.http_requests().filter(|e| e.seq > answered && header(e, "mcp-session-id").is_some()).collect();
    if later.is_empty() {
        return Verdict::new(Outcome::NotReached, "no request after initialize");
    }
    let wrong: Vec<&Event> = later.iter().copied().filter(|e| header(e, "mcp-protocol-version") != Some(negotiated.as_str())).collect();
    match wrong.len() {
        0 => Verdict::new(Outcome::Yes, format!("all {} requests say {negotiated}", later.len())).evidence([later[0].seq]),
        n if n == later.len() => Verdict::new(Outcome::No, format!("none of {} requests says {negotiated}", later.len())).evidence([wrong[0].seq]),
        n => Verdict::new(Outcome::Partial, format!("{n} of {} requests lack {negotiated} ({} first)", later.len(), method(wrong[0]))).evidence([wrong[0].seq]),
    }
}

probe! {
    /// Evidence: a GET with `Accept: text/event-stream` and the session id, answered 200: the
    /// standalone stream on which a server can reach the client outside a request.
    GetStream {
        id: "http.get_stream", area: Http, title: "standalone GET stream opened",
        revisions: ["2025-03-26"], eras: LEGACY, transports: HTTP_ONLY,
        serves: "GET on the MCP endpoint with a session", judge: judge_get_stream,
    }
}

fn judge_get_stream(o: &Observations) -> Verdict {
    let Some((id, _)) = session(o) else { return Verdict::new(Outcome::NotReached, "no session was minted") };
    let gets: Vec<&Event> = o.http_requests().filter(|e| method(e) == "GET").collect();
    let Some(get) = gets.first() else { return Verdict::new(Outcome::No, "never opened a GET stream") };
    let streams = header(get, "accept").is_some_and(|a| a.contains("text/event-stream"));
    match (streams, header(get, "mcp-session-id") == Some(id.as_str())) {
        (true, true) => Verdict::new(Outcome::Yes, format!("{} GET stream(s) opened", gets.len())).evidence([get.seq]),
        (false, _) => Verdict::new(Outcome::Partial, "GET without Accept: text/event-stream").evidence([get.seq]),
        (true, false) => Verdict::new(Outcome::Partial, "GET without the session id").evidence([get.seq]),
    }
}

probe! {
    /// Evidence: a DELETE carrying the session id, after the client's last request.
    DeleteOnExit {
        id: "http.delete_on_exit", area: Http, title: "DELETE ends the session",
        revisions: ["2025-03-26"], eras: LEGACY, transports: HTTP_ONLY,
        serves: "DELETE on the MCP endpoint", judge: judge_delete,
    }
}

fn judge_delete(o: &Observations) -> Verdict {
    let Some((id, _)) = session(o) else { return Verdict::new(Outcome::NotReached, "no session was minted") };
    let deletes: Vec<&Event> = o.http_requests().filter(|e| method(e) == "DELETE").collect();
    match deletes.iter().find(|e| header(e, "mcp-session-id") == Some(id.as_str())) {
        Some(delete) => Verdict::new(Outcome::Yes, "sent DELETE with its session id").evidence([delete.seq]),
        None if !deletes.is_empty() => Verdict::new(Outcome::Partial, "sent DELETE without its session id").evidence([deletes[0].seq]),
        None => Verdict::new(Outcome::No, "never sent DELETE"),
    }
}
