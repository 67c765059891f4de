//! The protected resource's side of the auth variants, in the HTTP tap: the well-known documents
//! at the MCP server's origin, and the token check of every request to the MCP endpoint (401
//! with a challenge, 403 `insufficient_scope` for a call that needs more, or passed on). Each
//! decision is journalled (`well_known`, `resource_checked`), and so is every answer the gate
//! makes itself.

use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use crate::auth::{bearer, needs_step_up, Authority, TokenCheck, OAUTH_METADATA_PATH, OIDC_METADATA_PATH, PRM_PATH};
use crate::journal::{Direction, Entry, EventKind, Journal, Transport};
use crate::note::{self, Payload};

use super::http::MCP_PATH;

/// The answer to a request for a well-known document at the MCP server's origin, or `None` for
/// any other path. The resource metadata is served where the variant says; everything else
/// there (authorization server metadata asked of the MCP server, as 2025-03-26 clients do) is 404.
pub fn well_known(authority: &Authority, journal: &Journal, session: &str, path: &str) -> Option<Response> {
    if !path.starts_with("/.well-known/") {
        return None;
    }
    let plan = &authority.plan;
    let at_path = format!("{PRM_PATH}{MCP_PATH}");
    let served = (path == at_path && plan.metadata_at_path) || (path == PRM_PATH && plan.metadata_at_root);
    let kind = match path {
        p if p == at_path => "resource_metadata_at_path",
        PRM_PATH => "resource_metadata_at_root",
        p if p.starts_with(OAUTH_METADATA_PATH) => "oauth_metadata",
        p if p.starts_with(OIDC_METADATA_PATH) => "oidc_metadata",
        p if p.starts_with(PRM_PATH) => "resource_metadata_elsewhere",
        _ => "other",
    };
    journal.log(Entry::note(session, Transport::Http, note::WellKnown { path: path.to_string(), kind: kind.to_string(), served }.detail()));
    Some(if served {
        answer(journal, session, StatusCode::OK, None, authority.resource_metadata())
    } else {
        answer(journal, session, StatusCode::NOT_FOUND, None, json!({"error": "not_found"}))
    })
}

/// The 401 or 403 for a request to the MCP endpoint that may not pass; `None` lets it pass.
pub fn refusal(authority: &Authority, journal: &Journal, session: &str, parts: &Parts, frame: Option<&Value>) -> Option<Response> {
    if !parts.uri.path().starts_with(MCP_PATH) {
        return None;
    }
    // Two Authorization headers are one token too many (RFC 6750 §2): checking only the first
    // would let the second through unread.
    let headers = parts.headers.get_all("authorization").iter().count();
    if headers > 1 {
        let checked = note::ResourceChecked {
            http_method: parts.method.as_str().to_string(),
            rpc_method: None,
            tool: None,
            token: "several".into(),
            presented: None,
            bearer_in_query: false,
            status: 400,
            scope: None,
            audience: None,
            authorization_headers: Some(headers as u64),
        };
        journal.log(Entry::note(session, Transport::Http, checked.detail()));
        return Some(answer(journal, session, StatusCode::BAD_REQUEST, None, json!({"error": "invalid_request", "error_description": "one Authorization header, not several"})));
    }
    let presented = bearer(parts.headers.get("authorization").and_then(|v| v.to_str().ok()));
    let in_query = parts.uri.query().is_some_and(|q| form_urlencoded::parse(q.as_bytes()).any(|(k, _)| k == "access_token"));
    let check = authority.check(presented);
    let rpc_method = frame.and_then(|f| f.get("method")).and_then(Value::as_str);
    let tool = frame.and_then(|f| f.pointer("/params/name")).and_then(Value::as_str).filter(|_| rpc_method == Some("tools/call"));
    let (status, challenge) = match &check {
        TokenCheck::Valid(scope) if needs_step_up(&authority.plan, frame, scope) => (StatusCode::FORBIDDEN, Some(authority.insufficient_scope())),
        TokenCheck::Valid(_) => (StatusCode::OK, None),
        other => (StatusCode::UNAUTHORIZED, Some(authority.challenge(*other != TokenCheck::Absent))),
    };
    let checked = note::ResourceChecked {
        http_method: parts.method.as_str().to_string(),
        rpc_method: rpc_method.map(str::to_string),
        tool: tool.map(str::to_string),
        token: check.word().to_string(),
        presented: presented.map(str::to_string),
        bearer_in_query: in_query,
        status: status.as_u16(),
        scope: match &check {
            TokenCheck::Valid(scope) => Some(scope.to_string()),
            _ => None,
        },
        audience: match &check {
            TokenCheck::OtherAudience(audience) => Some(audience.to_string()),
            _ => None,
        },
        authorization_headers: None,
    };
    journal.log(Entry::note(session, Transport::Http, checked.detail()));
    let challenge = challenge?;
    let error = if status == StatusCode::FORBIDDEN { "insufficient_scope" } else { "invalid_token" };
    Some(answer(journal, session, status, Some(challenge), json!({"error": error, "error_description": "a bearer token for this resource is required"})))
}

/// An answer of the gate's, journalled as it goes out.
fn answer(journal: &Journal, session: &str, status: StatusCode, challenge: Option<String>, body: Value) -> Response {
    let mut headers = json!({"content-type": "application/json"});
    if let Some(challenge) = &challenge {
        headers["www-authenticate"] = json!(challenge);
    }
    let detail = json!({"status": status.as_u16(), "headers": headers, "by": "tap"});
    journal.log(Entry::new(session, Transport::Http, Direction::ServerToClient, EventKind::HttpResponse).with_detail(detail));
    let text = body.to_string();
    let mut response = (status, [("content-type", "application/json")], text).into_response();
    if let Some(value) = challenge.and_then(|c| axum::http::HeaderValue::from_str(&c).ok()) {
        response.headers_mut().insert("www-authenticate", value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::Plan;
    use crate::Variant;

    #[test]
    fn two_authorization_headers_are_refused_whatever_the_first_holds() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::create(&dir.path().join("j.jsonl")).unwrap();
        let authority = Authority::new(Plan::of(Variant::Auth).unwrap(), "http://127.0.0.1:1".into(), "http://127.0.0.1:2/mcp".into(), journal.clone());
        let parts = |values: &[&str]| {
            let mut request = axum::http::Request::builder().method("POST").uri(MCP_PATH);
            for value in values {
                request = request.header("authorization", *value);
            }
            request.body(()).unwrap().into_parts().0
        };
        let refused = refusal(&authority, &journal, "http", &parts(&["Bearer a", "Bearer b"]), None).expect("refused");
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
        let one = refusal(&authority, &journal, "http", &parts(&["Bearer a"]), None).expect("an unknown token is refused too");
        assert_eq!(one.status(), StatusCode::UNAUTHORIZED, "one header is checked as before");
    }
}
