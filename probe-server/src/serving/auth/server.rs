//! The loopback authorization server of the auth variants, on a port of its own. Every request
//! is journalled as an `auth_request` note (endpoint, method, path, query, form or JSON body,
//! user agent, and the `Authorization` header: every secret here is fake) before it is
//! answered, and every answer as an `auth_answer` note with the same `n`.
//!
//! The consent page is a form: the person who logs in posts it to [`APPROVE_PATH`] and is
//! redirected to the client's callback with `code`, `state` and `iss`.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::note;

/// The largest request body read.
const MAX_BODY: usize = 64 * 1024;
/// How long a request head, and a whole request body, may take to arrive at most (a sign-in's
/// forms are a few hundred bytes).
const READ_DEADLINE: std::time::Duration = std::time::Duration::from_secs(10);
/// The session label of the authorization server's notes.
pub const SESSION: &str = "authorization-server";

/// Opens the authorization server on an ephemeral loopback port; its origin is the issuer. The
/// `Authority` it shares with the protected resource is made by `authority`, which is handed the
/// issuer. A request head, and a whole body, may take `reading` (at most 10 s). It stops when
/// `closing` is cancelled.
pub async fn open(closing: CancellationToken, reading: std::time::Duration, authority: impl FnOnce(String) -> Authority) -> std::io::Result<Arc<Authority>> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let issuer = format!("http://{}", listener.local_addr()?);
    let mut made = authority(issuer);
    made.read_deadline = reading.min(READ_DEADLINE);
    let authority = Arc::new(made);
    authority.note(SESSION, &note::AuthServing { issuer: authority.issuer.clone(), resource: authority.resource.clone(), named_resource: authority.named_resource().to_string() });
    let app = axum::Router::new().fallback(handle).with_state(authority.clone());
    // The MCP port's own connection handling: a cap on open connections, a deadline for each
    // request head, and every refused connection journalled.
    let (journal, limits) = (authority.journal().clone(), crate::net::connections::Limits { read_timeout: authority.read_deadline, half_close: true });
    tokio::spawn(crate::net::connections::serve(listener, app, journal, limits, closing));
    Ok(authority)
}

/// A request as the endpoints read it.
struct Asked {
    method: Method,
    path: String,
    query: Map<String, Value>,
    form: Map<String, Value>,
    json: Option<Value>,
}

impl Asked {
    fn query(&self, key: &str) -> Option<&str> {
        self.query.get(key).and_then(Value::as_str)
    }

    fn form(&self, key: &str) -> Option<&str> {
        self.form.get(key).and_then(Value::as_str)
    }
}

/// `k=v&…` as an object (a repeated key keeps its first value, and the repeat is kept under
/// `key[n]` so nothing is lost).
///
/// Linear in the pairs: each key remembers how often it was seen, so the thousandth repeat is named
/// at once rather than after trying `key[2]` … `key[999]` (a 64 KB form of one repeated key cost
/// minutes that way, and stalled the MCP endpoint on the same runtime).
fn pairs(text: &str) -> Map<String, Value> {
    let mut map = Map::new();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (key, value) in form_urlencoded::parse(text.as_bytes()) {
        let count = seen.entry(key.to_string()).or_insert(0);
        *count += 1;
        let mut name = if *count == 1 { key.to_string() } else { format!("{key}[{count}]") };
        // A key sent literally as `a[2]` earlier keeps its value; the repeat goes further on.
        while map.contains_key(&name) {
            *count += 1;
            name = format!("{key}[{count}]");
        }
        map.insert(name, Value::from(value.to_string()));
    }
    map
}

/// Which endpoint a path is, for the journal.
fn endpoint(path: &str) -> &'static str {
    match path {
        OAUTH_METADATA_PATH => "oauth_metadata",
        OIDC_METADATA_PATH => "oidc_metadata",
        REGISTER_PATH => "register",
        AUTHORIZE_PATH => "authorize",
        APPROVE_PATH => "approve",
        TOKEN_PATH => "token",
        JWKS_PATH => "jwks",
        PERSON_PATH => "person",
        _ => "other",
    }
}

fn header_text(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

async fn handle(State(authority): State<Arc<Authority>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let deadline = authority.read_deadline;
    let (bytes, body_error) = match tokio::time::timeout(deadline, axum::body::to_bytes(body, MAX_BODY)).await {
        Ok(Ok(bytes)) => (bytes, None),
        // Over the limit, cut short or too slow: said in the journal and answered, never dropped unsaid.
        Ok(Err(error)) => (Default::default(), Some(format!("the body could not be read whole (the limit is {MAX_BODY} bytes): {error}"))),
        Err(_) => (Default::default(), Some(format!("the body did not arrive whole within {} s", deadline.as_secs_f32()))),
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let content_type = header_text(&parts.headers, header::CONTENT_TYPE).unwrap_or("");
    let asked = Asked {
        method: parts.method.clone(),
        path: parts.uri.path().to_string(),
        query: pairs(parts.uri.query().unwrap_or("")),
        form: if content_type.starts_with("application/x-www-form-urlencoded") { pairs(&text) } else { Map::new() },
        json: serde_json::from_slice(&bytes).ok(),
    };
    let n = authority.next_serial();
    let endpoint = endpoint(&asked.path);
    authority.note(
        SESSION,
        &note::AuthRequest {
            n,
            endpoint: endpoint.to_string(),
            method: asked.method.as_str().to_string(),
            path: asked.path.clone(),
            query: asked.query.clone(),
            form: asked.form.clone(),
            json: asked.json.clone(),
            body_bytes: bytes.len() as u64,
            body_error: body_error.clone(),
            user_agent: header_text(&parts.headers, header::USER_AGENT).map(str::to_string),
            authorization: header_text(&parts.headers, header::AUTHORIZATION).map(str::to_string),
        },
    );
    // The MCP port's rule for who may ask (N8): a Host on this machine, and an Origin, if any, too
    // (the consent form posts from the server's own page; a client's token request has none).
    let from_here = crate::net::loopback::loopback_request(&parts.headers);
    let answer = match &body_error {
        _ if !from_here => Answer::error(StatusCode::FORBIDDEN, "access_denied", "a foreign Host or Origin is refused"),
        Some(error) => Answer::error(StatusCode::BAD_REQUEST, "invalid_request", error),
        None => answer(&authority, &asked),
    };
    let (json, location) = match &answer.body {
        Payload::Json(value) => (Some(value.clone()), None),
        Payload::Redirect(location) => (None, Some(location.clone())),
        Payload::Page(_) | Payload::Empty => (None, None),
    };
    authority.note(SESSION, &note::AuthAnswer { n, endpoint: endpoint.to_string(), status: answer.status.as_u16(), json, location });
    answer.into_response()
}

enum Payload {
    Json(Value),
    Page(String),
    Redirect(String),
    Empty,
}

struct Answer {
    status: StatusCode,
    body: Payload,
}

impl Answer {
    fn json(status: StatusCode, value: Value) -> Answer {
        Answer { status, body: Payload::Json(value) }
    }

    fn error(status: StatusCode, error: &str, description: &str) -> Answer {
        Answer::json(status, json!({"error": error, "error_description": description}))
    }

    fn not_found() -> Answer {
        Answer::error(StatusCode::NOT_FOUND, "not_found", "nothing is served here")
    }

    fn into_response(self) -> Response {
        let no_store = [(header::CACHE_CONTROL, "no-store")];
        match self.body {
            Payload::Json(value) => (self.status, no_store, [(header::CONTENT_TYPE, "application/json")], value.to_string()).into_response(),
            Payload::Page(html) => (self.status, no_store, [(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response(),
            Payload::Redirect(location) => (StatusCode::FOUND, no_store, [(header::LOCATION, location)], Body::empty()).into_response(),
            Payload::Empty => (self.status, no_store).into_response(),
        }
    }
}

fn answer(authority: &Authority, asked: &Asked) -> Answer {
    let plan = &authority.plan;
    match (&asked.method, asked.path.as_str()) {
        (&Method::GET, OAUTH_METADATA_PATH) if plan.oauth_metadata => Answer::json(StatusCode::OK, metadata(authority, false)),
        (&Method::GET, OIDC_METADATA_PATH) if plan.oidc_metadata => Answer::json(StatusCode::OK, metadata(authority, true)),
        (&Method::GET, JWKS_PATH) if plan.oidc_metadata => Answer::json(StatusCode::OK, json!({"keys": []})),
        (&Method::POST, REGISTER_PATH) if plan.registration => register(authority, asked),
        (&Method::GET, AUTHORIZE_PATH) => authorize(authority, asked),
        (&Method::POST, APPROVE_PATH) => approve(authority, asked),
        (&Method::POST, TOKEN_PATH) => token(authority, asked),
        (&Method::POST, PERSON_PATH) => Answer { status: StatusCode::NO_CONTENT, body: Payload::Empty },
        _ => Answer::not_found(),
    }
}

/// RFC 8414 metadata, with the OpenID discovery fields where `oidc`.
fn metadata(authority: &Authority, oidc: bool) -> Value {
    let issuer = &authority.issuer;
    // In auth-issuer-mismatch the document says it is another server's; its endpoints are this one's.
    let named = if authority.plan.issuer_mismatch { format!("{issuer}{WRONG_ISS_SUFFIX}") } else { issuer.clone() };
    let mut document = json!({
        "issuer": named,
        "authorization_endpoint": format!("{issuer}{AUTHORIZE_PATH}"),
        "token_endpoint": format!("{issuer}{TOKEN_PATH}"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
        "scopes_supported": [SCOPE_READ, SCOPE_WRITE],
        "authorization_response_iss_parameter_supported": true,
    });
    if authority.plan.no_pkce_methods {
        document.as_object_mut().map(|d| d.remove("code_challenge_methods_supported"));
    }
    if authority.plan.registration {
        document["registration_endpoint"] = json!(format!("{issuer}{REGISTER_PATH}"));
    }
    if authority.plan.client_id_documents {
        document["client_id_metadata_document_supported"] = json!(true);
    }
    if oidc {
        document["jwks_uri"] = json!(format!("{issuer}{JWKS_PATH}"));
        document["subject_types_supported"] = json!(["public"]);
        document["id_token_signing_alg_values_supported"] = json!(["RS256"]);
    }
    document
}

/// RFC 7591: a client with at least one redirect URI is registered as a public client (or
/// given a secret where it asks for client authentication).
fn register(authority: &Authority, asked: &Asked) -> Answer {
    let Some(metadata) = asked.json.as_ref().filter(|m| m.is_object()) else {
        return Answer::error(StatusCode::BAD_REQUEST, "invalid_client_metadata", "the body is not a JSON object");
    };
    let has_redirect = metadata.get("redirect_uris").and_then(Value::as_array).is_some_and(|l| l.iter().any(Value::is_string));
    if !has_redirect {
        return Answer::error(StatusCode::BAD_REQUEST, "invalid_redirect_uri", "redirect_uris is required");
    }
    let redirect_uris = metadata["redirect_uris"].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect();
    let client_id = authority.register(redirect_uris);
    let mut registered = metadata.clone();
    registered["client_id"] = json!(client_id);
    registered["client_id_issued_at"] = json!(chrono::Utc::now().timestamp());
    let method = metadata.get("token_endpoint_auth_method").and_then(Value::as_str).unwrap_or("client_secret_basic");
    if method == "none" {
        registered["token_endpoint_auth_method"] = json!("none");
    } else {
        registered["client_secret"] = json!(opaque("probe-secret"));
        registered["client_secret_expires_at"] = json!(0);
    }
    Answer::json(StatusCode::CREATED, registered)
}

/// Whether a redirect URI points at this machine: the person follows no other. Strict, as RFC
/// 8252's loopback redirects are: `http` or `https`, a host that is exactly `127.0.0.1`,
/// `localhost` or `[::1]`, an optional port of digits, and nothing a browser reads another way —
/// no user information (`evil.example\@127.0.0.1` sends a browser to evil.example), no backslash,
/// no whitespace or control character (a CR/LF would split the `Location` header), and no
/// fragment (RFC 6749 §3.1.2 forbids one).
pub fn loopback_redirect(uri: &str) -> bool {
    loopback_host(uri).is_some()
}

/// The host of `uri`, lower-cased, where it is a loopback one as [`loopback_redirect`] says:
/// `127.0.0.1`, `[::1]` or `localhost`.
pub fn loopback_host(uri: &str) -> Option<String> {
    if uri.chars().any(|c| c.is_control() || c.is_whitespace() || c == '\\' || c == '#') {
        return None;
    }
    let rest = uri.strip_prefix("http://").or_else(|| uri.strip_prefix("https://"))?;
    let authority = rest.split(['/', '?']).next().unwrap_or("");
    if authority.contains('@') {
        return None;
    }
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => {
            let (address, after) = v6.split_once(']')?;
            (format!("[{address}]"), after.strip_prefix(':'))
        }
        None => match authority.split_once(':') {
            Some((host, port)) => (host.to_string(), Some(port)),
            None => (authority.to_string(), None),
        },
    };
    let port_ok = port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.chars().all(|c| c.is_ascii_digit()));
    let host = host.to_ascii_lowercase();
    (port_ok && matches!(host.as_str(), "127.0.0.1" | "localhost" | "[::1]")).then_some(host)
}

/// Whether `asked` is the registered redirect `registered`: the same text, but that the port of a
/// loopback redirect may differ.
pub(crate) fn same_redirect(registered: &str, asked: &str) -> bool {
    fn without_port(uri: &str) -> Option<String> {
        let (scheme, rest) = uri.split_once("://")?;
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(end);
        let host = match authority.strip_prefix('[') {
            Some(v6) => format!("[{}]", v6.split_once(']')?.0),
            None => authority.split(':').next()?.to_string(),
        };
        Some(format!("{scheme}://{}{tail}", host.to_ascii_lowercase()))
    }
    registered == asked || (loopback_redirect(registered) && loopback_redirect(asked) && without_port(registered).is_some_and(|r| Some(r) == without_port(asked)))
}

/// `text` safe inside HTML element content and attribute values.
fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

fn authorize(authority: &Authority, asked: &Asked) -> Answer {
    let page = |status: StatusCode, words: &str| Answer { status, body: Payload::Page(format!("<!doctype html><title>probe sign-in</title><p>{words}</p>")) };
    if asked.query("response_type") != Some("code") {
        return page(StatusCode::BAD_REQUEST, "unsupported_response_type: response_type must be code");
    }
    let Some(client_id) = asked.query("client_id") else { return page(StatusCode::BAD_REQUEST, "invalid_request: client_id is missing") };
    let Some(redirect_uri) = asked.query("redirect_uri") else { return page(StatusCode::BAD_REQUEST, "invalid_request: redirect_uri is missing") };
    if !loopback_redirect(redirect_uri) {
        return page(StatusCode::BAD_REQUEST, "invalid_request: the redirect_uri is not on this machine");
    }
    // A registered client's redirect must be one it registered: exactly, but for the port of a
    // loopback redirect (RFC 8252 §7.3: a native app's port is picked when it runs).
    if let Some(registered) = authority.registered_redirects(client_id) {
        if !registered.iter().any(|r| same_redirect(r, redirect_uri)) {
            return page(StatusCode::BAD_REQUEST, "invalid_request: the redirect_uri is not one this client registered");
        }
    }
    let is_document = client_id.starts_with("https://");
    if is_document && !authority.plan.client_id_documents {
        return page(StatusCode::BAD_REQUEST, "invalid_client: client ID metadata documents are not supported here");
    }
    let ask = Ask {
        redirect_uri: redirect_uri.to_string(),
        state: asked.query("state").map(str::to_string),
        challenge: asked.query("code_challenge").map(str::to_string),
        challenge_method: asked.query("code_challenge_method").map(str::to_string),
        scope: asked.query("scope").map(str::to_string),
        resource: asked.query("resource").map(str::to_string),
    };
    let known = if is_document || authority.is_registered(client_id) { "" } else { " (a client this server did not register)" };
    let request = authority.hold(ask);
    // What the client sent is shown as text, never as markup.
    let (client_id, request) = (html_escape(client_id), html_escape(&request));
    let html = format!(
        "<!doctype html><title>probe sign-in</title><p>Sign in to the probe server as {client_id}{known}?</p>\
         <form method=\"post\" action=\"{APPROVE_PATH}\"><input type=\"hidden\" name=\"{APPROVE_FIELD}\" value=\"{request}\"><button type=\"submit\">Approve</button></form>"
    );
    Answer { status: StatusCode::OK, body: Payload::Page(html) }
}

fn approve(authority: &Authority, asked: &Asked) -> Answer {
    let Some((code, ask)) = asked.form(APPROVE_FIELD).and_then(|r| authority.approve(r)) else {
        return Answer::error(StatusCode::BAD_REQUEST, "invalid_request", "no pending authorization of that id");
    };
    let iss = if authority.plan.wrong_iss { format!("{}{WRONG_ISS_SUFFIX}", authority.issuer) } else { authority.issuer.clone() };
    let mut query = form_urlencoded::Serializer::new(String::new());
    query.append_pair("code", &code);
    if let Some(state) = &ask.state {
        query.append_pair("state", state);
    }
    if !authority.plan.no_iss {
        query.append_pair("iss", &iss);
    }
    let separator = if ask.redirect_uri.contains('?') { '&' } else { '?' };
    Answer { status: StatusCode::FOUND, body: Payload::Redirect(format!("{}{separator}{}", ask.redirect_uri, query.finish())) }
}

fn token(authority: &Authority, asked: &Asked) -> Answer {
    let grant_error = |description: &str| Answer::error(StatusCode::BAD_REQUEST, "invalid_grant", description);
    let (scope, audience) = match asked.form("grant_type") {
        Some("authorization_code") => {
            let Some(ask) = asked.form("code").and_then(|c| authority.redeem(c)) else { return grant_error("unknown or used code") };
            if asked.form("redirect_uri").is_some_and(|r| r != ask.redirect_uri) {
                return grant_error("redirect_uri differs from the authorization request's");
            }
            if let Some(challenge) = &ask.challenge {
                let Some(verifier) = asked.form("code_verifier") else { return grant_error("code_verifier is missing") };
                let derived = if ask.challenge_method.as_deref() == Some("plain") { verifier.to_string() } else { s256(verifier) };
                if &derived != challenge {
                    return grant_error("code_verifier does not match the challenge");
                }
            }
            let audience = asked.form("resource").or(ask.resource.as_deref()).map(str::to_string).unwrap_or_else(|| authority.named_resource());
            (ask.scope.clone().unwrap_or_else(|| SCOPE_READ.to_string()), audience)
        }
        Some("refresh_token") => {
            let Some((scope, audience)) = asked.form("refresh_token").and_then(|r| authority.renews(r)) else { return grant_error("unknown refresh token") };
            (scope, asked.form("resource").map(str::to_string).unwrap_or(audience))
        }
        _ => return Answer::error(StatusCode::BAD_REQUEST, "unsupported_grant_type", "authorization_code and refresh_token are supported"),
    };
    let (access, refresh, lifetime) = authority.issue(&scope, &audience);
    Answer::json(StatusCode::OK, json!({"access_token": access, "token_type": "Bearer", "expires_in": lifetime.as_secs(), "refresh_token": refresh, "scope": scope}))
}

/// The query of a URL as a map (for judges and the person).
pub fn query_of(url: &str) -> BTreeMap<String, String> {
    let query = url.split_once('?').map(|(_, q)| q.split('#').next().unwrap_or("")).unwrap_or("");
    form_urlencoded::parse(query.as_bytes()).map(|(k, v)| (k.into_owned(), v.into_owned())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_redirects_are_followed() {
        for uri in ["http://127.0.0.1:5/cb", "http://localhost/cb?x=1", "http://[::1]:9/", "https://LOCALHOST:1"] {
            assert!(loopback_redirect(uri), "{uri}");
        }
        for uri in ["http://example.com/cb", "http://127.0.0.1.example.com/", "myapp://cb", "http://evil@example.com/", "ftp://127.0.0.1/"] {
            assert!(!loopback_redirect(uri), "{uri}");
        }
        // What a browser reads another way than a naive split does: user information before a
        // loopback host (with a backslash, the browser's authority ends at evil.example), a CR/LF
        // that would split the Location header, a fragment, a port that is no port.
        for uri in [
            "http://evil.example\\@127.0.0.1/cb",
            "http://evil.example@127.0.0.1/cb",
            "http://127.0.0.1\\@evil.example/cb",
            "http://127.0.0.1/cb\r\nSet-Cookie: x=1",
            "http://127.0.0.1/cb#frag",
            "http://127.0.0.1:80x/cb",
            "http://127.0.0.1:/cb",
            "http://[::1/cb",
            "http://127.0.0.1 /cb",
        ] {
            assert!(!loopback_redirect(uri), "{uri:?}");
        }
    }

    #[test]
    fn repeated_query_keys_are_all_kept() {
        let map = pairs("a=1&b=2&a=3");
        assert_eq!(map.get("a"), Some(&json!("1")));
        assert_eq!(map.get("a[2]"), Some(&json!("3")));
        // A key sent as `a[2]` itself keeps its value; the next repeat of `a` goes past it.
        let map = pairs("a=1&a%5B2%5D=x&a=2");
        assert_eq!((map.get("a[2]"), map.get("a[3]")), (Some(&json!("x")), Some(&json!("2"))));
        // Twenty thousand repeats of one key, each named at once (naming them by trying every
        // earlier number took minutes for a 64 KB form).
        let form = "k=v&".repeat(20_000);
        let map = pairs(&form);
        assert_eq!(map.len(), 20_000);
        assert_eq!(map.get("k[20000]"), Some(&json!("v")));
        assert_eq!(query_of("http://h/cb?code=x&state=y#f").get("state").map(String::as_str), Some("y"));
    }

    #[test]
    fn a_registered_redirect_is_matched_exactly_but_for_a_loopback_port() {
        let registered = "http://127.0.0.1:45869/callback";
        assert!(same_redirect(registered, registered));
        assert!(same_redirect(registered, "http://127.0.0.1:5000/callback"), "a loopback port is picked at run time");
        assert!(same_redirect("http://[::1]:1/cb", "http://[::1]:2/cb") && same_redirect("http://localhost/cb", "http://localhost:80/cb"));
        for other in ["http://127.0.0.1:45869/other", "http://localhost:45869/callback", "http://127.0.0.1:45869/callback?x=1", "https://127.0.0.1:45869/callback"] {
            assert!(!same_redirect(registered, other), "{other}");
        }
        assert!(!same_redirect("https://app.example/cb", "https://app.example:8443/cb"), "only a loopback port may vary");
        let authority =
            Authority::new(Plan::of(Variant::Auth).unwrap(), "http://127.0.0.1:1".into(), "http://127.0.0.1:2/mcp".into(), Journal::from_writer(Box::new(std::io::sink())));
        let client = authority.register(vec![registered.into()]);
        let ask = |redirect: &str| Asked {
            method: Method::GET,
            path: AUTHORIZE_PATH.into(),
            query: pairs(&format!("response_type=code&client_id={client}&redirect_uri={}", redirect.replace(':', "%3A").replace('/', "%2F"))),
            form: Map::new(),
            json: None,
        };
        assert_eq!(authorize(&authority, &ask("http://127.0.0.1:5000/callback")).status, StatusCode::OK);
        assert_eq!(authorize(&authority, &ask("http://127.0.0.1:5000/elsewhere")).status, StatusCode::BAD_REQUEST, "a redirect it never registered");
    }

    /// The authorization server of the auth variant on a loopback port, journalling to `j.jsonl`
    /// in the directory returned: that directory, what stops it, and its address.
    async fn serving() -> (tempfile::TempDir, CancellationToken, String) {
        serving_with(READ_DEADLINE).await
    }

    /// As [`serving`], waiting `reading` for a head and a whole body.
    async fn serving_with(reading: std::time::Duration) -> (tempfile::TempDir, CancellationToken, String) {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::create(&dir.path().join("j.jsonl")).unwrap();
        let closing = CancellationToken::new();
        let plan = Plan::of(Variant::Auth).unwrap();
        let authority = open(closing.clone(), reading, move |issuer| Authority::new(plan, issuer, "http://127.0.0.1:2/mcp".into(), journal)).await.unwrap();
        let address = authority.issuer.trim_start_matches("http://").to_string();
        (dir, closing, address)
    }

    /// The authorization server answers only requests for this machine, from this machine.
    #[tokio::test]
    async fn a_foreign_host_or_origin_is_refused_and_journalled() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (dir, closing, address) = serving().await;
        let path = dir.path().join("j.jsonl");
        let status_of = |head: String| {
            let address = address.clone();
            async move {
                let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
                stream.write_all(head.as_bytes()).await.unwrap();
                let mut answer = String::new();
                stream.read_to_string(&mut answer).await.unwrap();
                answer.split(' ').nth(1).unwrap_or_default().to_string()
            }
        };
        let get = |extra: &str| format!("GET {OAUTH_METADATA_PATH} HTTP/1.1\r\nHost: {address}\r\n{extra}Connection: close\r\n\r\n");
        assert_eq!(status_of(get("")).await, "200");
        assert_eq!(status_of(get(&format!("Origin: http://{address}\r\n"))).await, "200");
        assert_eq!(status_of(get("Origin: https://evil.example\r\n")).await, "403");
        assert_eq!(status_of(format!("GET {OAUTH_METADATA_PATH} HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")).await, "403");
        closing.cancel();
        let read = crate::journal::read_journal(&path).unwrap();
        let refused = read.events.iter().filter(|e| e.detail.as_ref().is_some_and(|d| d["event"] == "auth_answer" && d["status"] == 403)).count();
        assert_eq!(refused, 2, "each refusal is journalled");
    }

    /// Issue 52, N8: the authorization server's port had none of the MCP port's protections (300
    /// stalled connections were all still open after 40 s). Now a head that does not come whole
    /// in time closes its connection, a body still trickling at the deadline is refused, and a
    /// connection over the cap is closed at once; each is journalled.
    #[tokio::test]
    async fn stalled_heads_slow_bodies_and_connections_over_the_cap_are_cut_and_journalled() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (dir, closing, address) = serving_with(std::time::Duration::from_secs(1)).await;
        let path = dir.path().join("j.jsonl");
        let mut stalled = tokio::net::TcpStream::connect(&address).await.unwrap();
        stalled.write_all(b"POST /token HTTP/1.1\r\nHo").await.unwrap();
        let mut rest = Vec::new();
        tokio::time::timeout(std::time::Duration::from_secs(30), stalled.read_to_end(&mut rest)).await.expect("a stalled head is closed").unwrap();

        // A byte every 100 ms never pauses long, but the whole body takes far longer than 1 s.
        let mut slow = tokio::net::TcpStream::connect(&address).await.unwrap();
        let head = format!("POST {TOKEN_PATH} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n");
        slow.write_all(head.as_bytes()).await.unwrap();
        let trickle = async {
            for _ in 0..1000 {
                if slow.write_all(b"a").await.is_err() {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
        };
        let _ = tokio::time::timeout(std::time::Duration::from_secs(30), trickle).await;
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("did not arrive whole within 1 s"), "{text}");

        let mut open = Vec::new();
        for _ in 0..crate::transport::MAX_CONNECTIONS {
            open.push(tokio::net::TcpStream::connect(&address).await.unwrap());
        }
        let mut over = tokio::net::TcpStream::connect(&address).await.unwrap();
        let mut nothing = Vec::new();
        tokio::time::timeout(std::time::Duration::from_secs(30), over.read_to_end(&mut nothing)).await.expect("the connection over the cap is closed").unwrap();
        drop(open);
        closing.cancel();
        let read = crate::journal::read_journal(&path).unwrap();
        let refused: Vec<String> =
            read.events.iter().filter(|e| e.kind == crate::journal::EventKind::Refused).map(|e| e.detail.as_ref().unwrap()["connection"].to_string()).collect();
        assert!(refused.iter().any(|r| r.contains("timed out") || r.contains("timeout")), "{refused:?}");
        assert!(refused.iter().any(|r| r.contains("limit")), "{refused:?}");
    }

    #[tokio::test]
    async fn a_body_over_the_limit_is_journalled_and_refused() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (dir, closing, address) = serving().await;
        let path = dir.path().join("j.jsonl");
        let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
        let body = vec![b'a'; MAX_BODY + 1];
        let head = format!("POST {TOKEN_PATH} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n", body.len());
        stream.write_all(head.as_bytes()).await.unwrap();
        // The server may answer before it has read everything.
        let _ = stream.write_all(&body).await;
        let mut answer = vec![0u8; 12];
        let _ = stream.read_exact(&mut answer).await;
        assert_eq!(String::from_utf8_lossy(&answer), "HTTP/1.1 400");
        closing.cancel();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"body_error\":\"the body could not be read whole"), "{text}");
    }

    #[tokio::test]
    async fn a_code_flow_with_pkce_and_refresh_goes_through() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::create(&dir.path().join("j.jsonl")).unwrap();
        let authority = Authority::new(Plan::of(Variant::Auth).unwrap(), "http://127.0.0.1:1".into(), "http://127.0.0.1:2/mcp".into(), journal);
        let ask = |method: Method, path: &str, query: &str, form: &str| Asked { method, path: path.into(), query: pairs(query), form: pairs(form), json: None };
        let mut registering = ask(Method::POST, REGISTER_PATH, "", "");
        registering.json = Some(json!({"redirect_uris": ["http://127.0.0.1:7/cb"], "token_endpoint_auth_method": "none"}));
        let Payload::Json(registered) = answer(&authority, &registering).body else { panic!() };
        let client = registered["client_id"].as_str().unwrap().to_string();
        let challenge = s256("verifier-verifier-verifier-verifier-verifier");
        let query = format!(
            "response_type=code&client_id={client}&redirect_uri=http%3A%2F%2F127.0.0.1%3A7%2Fcb&state=s1&code_challenge={challenge}&code_challenge_method=S256&scope=probe%3Aread"
        );
        let Payload::Page(page) = answer(&authority, &ask(Method::GET, AUTHORIZE_PATH, &query, "")).body else { panic!() };
        let request = page.split(&format!("name=\"{APPROVE_FIELD}\" value=\"")).nth(1).unwrap().split('"').next().unwrap().to_string();
        let Payload::Redirect(location) = answer(&authority, &ask(Method::POST, APPROVE_PATH, "", &format!("{APPROVE_FIELD}={request}"))).body else { panic!() };
        let back = query_of(&location);
        assert_eq!((back["state"].as_str(), back["iss"].as_str()), ("s1", "http://127.0.0.1:1"));
        let wrong = ask(Method::POST, TOKEN_PATH, "", &format!("grant_type=authorization_code&code={}&code_verifier=nope", back["code"]));
        assert_eq!(answer(&authority, &wrong).status, StatusCode::BAD_REQUEST, "a wrong verifier is refused, and the code is spent");
        let again =
            |q: &str| format!("response_type=code&client_id={client}&redirect_uri=http%3A%2F%2F127.0.0.1%3A7%2Fcb&code_challenge={challenge}&code_challenge_method=S256{q}");
        let Payload::Page(page) = answer(&authority, &ask(Method::GET, AUTHORIZE_PATH, &again(""), "")).body else { panic!() };
        let request = page.split(&format!("name=\"{APPROVE_FIELD}\" value=\"")).nth(1).unwrap().split('"').next().unwrap().to_string();
        let Payload::Redirect(location) = answer(&authority, &ask(Method::POST, APPROVE_PATH, "", &format!("{APPROVE_FIELD}={request}"))).body else { panic!() };
        let code = query_of(&location)["code"].clone();
        let redeem = ask(Method::POST, TOKEN_PATH, "", &format!("grant_type=authorization_code&code={code}&code_verifier=verifier-verifier-verifier-verifier-verifier"));
        let Payload::Json(tokens) = answer(&authority, &redeem).body else { panic!() };
        let access = tokens["access_token"].as_str().unwrap();
        assert_eq!(authority.check(Some(access)), TokenCheck::Valid(SCOPE_READ.into()));
        let refresh = ask(Method::POST, TOKEN_PATH, "", &format!("grant_type=refresh_token&refresh_token={}", tokens["refresh_token"].as_str().unwrap()));
        let Payload::Json(renewed) = answer(&authority, &refresh).body else { panic!() };
        assert_ne!(renewed["access_token"], tokens["access_token"]);
        assert_eq!(
            answer(&authority, &ask(Method::GET, AUTHORIZE_PATH, "response_type=code&client_id=x&redirect_uri=http%3A%2F%2Fexample.com%2F", "")).status,
            StatusCode::BAD_REQUEST
        );
        // What the client sent is shown on the consent page as text, never as markup.
        let hostile = "response_type=code&client_id=%3Cscript%3Ealert(1)%3C%2Fscript%3E%22&redirect_uri=http%3A%2F%2F127.0.0.1%3A7%2Fcb";
        let Payload::Page(page) = answer(&authority, &ask(Method::GET, AUTHORIZE_PATH, hostile, "")).body else { panic!() };
        assert!(!page.contains("<script>") && page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;"), "{page}");
        // A redirect_uri a browser would read as another host is refused before anything is held.
        let open_redirect = "response_type=code&client_id=x&redirect_uri=http%3A%2F%2Fevil.example%5C%40127.0.0.1%2Fcb";
        assert_eq!(answer(&authority, &ask(Method::GET, AUTHORIZE_PATH, open_redirect, "")).status, StatusCode::BAD_REQUEST);
    }
}
