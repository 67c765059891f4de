//! OAuth for remote servers, served in the auth variants (Streamable HTTP only).
//!
//! The probe server is an OAuth protected resource: an MCP request without a valid token is
//! answered 401 with `WWW-Authenticate: Bearer resource_metadata=…, scope=…`, and the
//! protected resource metadata (RFC 9728) is served at the well-known locations the variant
//! says. Beside it, on a loopback port of its own, runs an authorization server
//! ([`server`]): metadata (RFC 8414, or OpenID discovery), dynamic client registration
//! (RFC 7591), client ID metadata documents (accepted unfetched: offline they cannot be
//! fetched), the authorization endpoint with PKCE and the `iss` response parameter (RFC 9207),
//! and the token endpoint with refresh tokens. Tokens are opaque random strings, issued for one
//! resource (RFC 8707) and a set of scopes.
//!
//! What this module holds is what both sides share: the [`Plan`] of each variant, the
//! [`Authority`] (issued clients, codes and tokens), the check of a request's token
//! ([`Authority::check`]), and the two tools of the auth variants. Every request to the
//! authorization server is journalled (`auth_request`, then `auth_answer`), and so is every
//! decision about a request to the protected resource (`resource_checked`) and every
//! well-known request there (`well_known`).
//!
//! The authorization server is lenient where a client's mistake is what a probe measures (a
//! missing PKCE challenge, state or resource is recorded, not refused) so that one mistake does
//! not hide the rest of the flow.

pub mod server;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{json, Value};

use crate::journal::{Entry, Journal, Transport};
use crate::note::Payload;
use crate::variant::Variant;

/// The scope every tool needs.
pub const SCOPE_READ: &str = "probe:read";
/// The scope the step-up tool needs in the auth-step-up variant.
pub const SCOPE_WRITE: &str = "probe:write";
/// The tool a signed-in client calls.
pub const TOOL_WHOAMI: &str = "probe_auth_whoami";
/// The tool that needs [`SCOPE_WRITE`] in the auth-step-up variant.
pub const TOOL_WRITE: &str = "probe_auth_write";

/// The protected resource metadata's well-known prefix (RFC 9728).
pub const PRM_PATH: &str = "/.well-known/oauth-protected-resource";
/// Authorization server metadata (RFC 8414).
pub const OAUTH_METADATA_PATH: &str = "/.well-known/oauth-authorization-server";
/// OpenID Connect discovery.
pub const OIDC_METADATA_PATH: &str = "/.well-known/openid-configuration";
pub const AUTHORIZE_PATH: &str = "/authorize";
/// Where the consent page's form is posted.
pub const APPROVE_PATH: &str = "/authorize/approve";
pub const TOKEN_PATH: &str = "/token";
pub const REGISTER_PATH: &str = "/register";
pub const JWKS_PATH: &str = "/jwks";
/// Where the person who logs in reports what they were handed and where the redirect went: the
/// harness's own steps, journalled beside the client's.
pub const PERSON_PATH: &str = "/person";
/// The consent form's hidden field that names the pending authorization.
pub const APPROVE_FIELD: &str = "request";
/// The path of the other resource the auth-resource-mismatch variant's metadata names.
pub const OTHER_RESOURCE_PATH: &str = "/other-mcp";
/// What the auth-wrong-iss variant puts after the issuer in the `iss` response parameter, and
/// the auth-issuer-mismatch variant in its metadata's `issuer`.
pub const WRONG_ISS_SUFFIX: &str = "/someone-else";
/// An access token's lifetime, and the auth-refresh variant's.
pub const TOKEN_LIFETIME: Duration = Duration::from_secs(3600);
pub const SHORT_TOKEN_LIFETIME: Duration = Duration::from_secs(2);
/// How long an authorization waits for the person's approval, and a code for its redemption
/// (RFC 6749 §4.1.2 recommends ten minutes at most for a code).
pub const PENDING_LIFETIME: Duration = Duration::from_secs(600);
/// The most authorizations waiting at once: the oldest is forgotten for a new one.
pub const MAX_PENDING: usize = 1024;

/// Whether an authorization asked, or a code issued, at `since` is still good at `now`.
fn still_good(since: Instant, now: Instant) -> bool {
    now.saturating_duration_since(since) < PENDING_LIFETIME
}

/// What one auth variant serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// The 401's `WWW-Authenticate` names the metadata (`resource_metadata`).
    pub metadata_in_challenge: bool,
    /// The metadata is served at `/.well-known/oauth-protected-resource/mcp`.
    pub metadata_at_path: bool,
    /// The metadata is served at `/.well-known/oauth-protected-resource`.
    pub metadata_at_root: bool,
    /// RFC 8414 metadata is served.
    pub oauth_metadata: bool,
    /// OpenID discovery is served.
    pub oidc_metadata: bool,
    /// Dynamic client registration is offered.
    pub registration: bool,
    /// `client_id_metadata_document_supported`.
    pub client_id_documents: bool,
    /// `probe_auth_write` needs [`SCOPE_WRITE`].
    pub step_up: bool,
    /// Access tokens live [`SHORT_TOKEN_LIFETIME`].
    pub short_tokens: bool,
    /// The authorization response's `iss` names another issuer.
    pub wrong_iss: bool,
    /// The metadata's `resource` names another resource.
    pub other_resource: bool,
    /// The authorization server's metadata names another `issuer` than its own.
    pub issuer_mismatch: bool,
    /// The authorization response carries no `iss` (the metadata still says it does).
    pub no_iss: bool,
    /// The authorization server's metadata names no `code_challenge_methods_supported`.
    pub no_pkce_methods: bool,
    /// The 401's `WWW-Authenticate` names no scope.
    pub no_challenge_scope: bool,
}

impl Plan {
    const BASE: Plan = Plan {
        metadata_in_challenge: true,
        metadata_at_path: true,
        metadata_at_root: true,
        oauth_metadata: true,
        oidc_metadata: false,
        registration: true,
        client_id_documents: false,
        step_up: false,
        short_tokens: false,
        wrong_iss: false,
        other_resource: false,
        issuer_mismatch: false,
        no_iss: false,
        no_pkce_methods: false,
        no_challenge_scope: false,
    };

    /// The plan of an auth variant; `None` for every other variant.
    pub fn of(variant: Variant) -> Option<Plan> {
        let base = Plan::BASE;
        Some(match variant {
            Variant::Auth => base,
            Variant::AuthPrmRoot => Plan { metadata_in_challenge: false, metadata_at_path: false, ..base },
            Variant::AuthOidc => Plan { oauth_metadata: false, oidc_metadata: true, ..base },
            Variant::AuthCimd => Plan { registration: false, client_id_documents: true, ..base },
            Variant::AuthStepUp => Plan { step_up: true, ..base },
            Variant::AuthRefresh => Plan { short_tokens: true, ..base },
            Variant::AuthWrongIss => Plan { wrong_iss: true, ..base },
            Variant::AuthResourceMismatch => Plan { other_resource: true, ..base },
            Variant::AuthIssuerMismatch => Plan { issuer_mismatch: true, ..base },
            Variant::AuthIssMissing => Plan { no_iss: true, ..base },
            Variant::AuthNoPkceMethods => Plan { no_pkce_methods: true, ..base },
            Variant::AuthNoChallengeScope => Plan { no_challenge_scope: true, ..base },
            _ => return None,
        })
    }

    pub fn token_lifetime(&self) -> Duration {
        if self.short_tokens {
            SHORT_TOKEN_LIFETIME
        } else {
            TOKEN_LIFETIME
        }
    }
}

/// 32 characters of base64url from 24 random bytes (a PKCE verifier's and a state's alphabet).
pub fn random_text() -> String {
    let mut bytes = [0u8; 24];
    if getrandom::fill(&mut bytes).is_err() {
        // No entropy source: the clock's nanoseconds and a serial still tell values apart.
        static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        bytes[..8].copy_from_slice(&nanos.to_le_bytes());
        bytes[8..16].copy_from_slice(&SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed).to_le_bytes());
    }
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// An opaque random string: `prefix`, a dash and [`random_text`].
pub fn opaque(prefix: &str) -> String {
    format!("{prefix}-{}", random_text())
}

/// `S256` of a PKCE code verifier.
pub fn s256(verifier: &str) -> String {
    use sha2::Digest;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()))
}

/// The origin of this server's resource URI (`http://127.0.0.1:port`, the MCP path cut off).
pub fn resource_origin(resource: &str) -> &str {
    resource.strip_suffix(crate::surface::MCP_PATH).unwrap_or(resource)
}

/// A resource URI compared as RFC 8707 and RFC 9728 compare them, give or take a trailing slash.
pub fn same_resource(a: &str, b: &str) -> bool {
    a.trim_end_matches('/').eq_ignore_ascii_case(b.trim_end_matches('/'))
}

/// What an authorization request asked for, kept from the request to the code's redemption.
#[derive(Debug, Clone)]
pub struct Ask {
    pub redirect_uri: String,
    pub state: Option<String>,
    pub challenge: Option<String>,
    pub challenge_method: Option<String>,
    pub scope: Option<String>,
    pub resource: Option<String>,
}

/// An access token issued.
#[derive(Debug, Clone)]
struct Token {
    access: String,
    scope: String,
    audience: String,
    issued: Instant,
    lifetime: Duration,
}

/// What a request's token is, to the protected resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenCheck {
    Absent,
    Unknown,
    Expired,
    /// Issued for another resource: the audience it was issued for.
    OtherAudience(String),
    /// Valid, with its scopes.
    Valid(String),
}

impl TokenCheck {
    /// The word the `resource_checked` note uses.
    pub fn word(&self) -> &'static str {
        match self {
            TokenCheck::Absent => "absent",
            TokenCheck::Unknown => "unknown",
            TokenCheck::Expired => "expired",
            TokenCheck::OtherAudience(_) => "other_audience",
            TokenCheck::Valid(_) => "valid",
        }
    }
}

#[derive(Default)]
struct Book {
    /// Registered client ids, with the redirect URIs each registered.
    clients: HashMap<String, Vec<String>>,
    /// Authorization requests the person has not approved yet, by request id, with when each
    /// was asked.
    pending: HashMap<String, (Ask, Instant)>,
    /// Codes issued and not yet redeemed, with when each was issued.
    codes: HashMap<String, (Ask, Instant)>,
    /// Refresh tokens, each with the scope and audience it renews.
    refresh: HashMap<String, (String, String)>,
    tokens: Vec<Token>,
}

/// The authorization server's and the protected resource's shared state for one server.
pub struct Authority {
    pub plan: Plan,
    /// The authorization server's origin, which is its issuer identifier.
    pub issuer: String,
    /// The protected resource: the MCP endpoint's URL.
    pub resource: String,
    journal: Journal,
    book: Mutex<Book>,
    serial: std::sync::atomic::AtomicU64,
    /// How long the authorization server waits for a request head, and for a whole body.
    pub(crate) read_deadline: Duration,
}

impl Authority {
    pub fn new(plan: Plan, issuer: String, resource: String, journal: Journal) -> Authority {
        Authority { plan, issuer, resource, journal, book: Mutex::default(), serial: Default::default(), read_deadline: Duration::from_secs(10) }
    }

    fn book(&self) -> std::sync::MutexGuard<'_, Book> {
        self.book.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The journal the authorization server writes to (the MCP server's).
    pub(crate) fn journal(&self) -> &Journal {
        &self.journal
    }

    pub(crate) fn note(&self, session: &str, payload: &impl Payload) {
        self.journal.log(Entry::note(session, Transport::Http, payload.detail()));
    }

    pub(crate) fn next_serial(&self) -> u64 {
        self.serial.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
    }

    /// The resource the metadata names: this one, or another in auth-resource-mismatch.
    pub fn named_resource(&self) -> String {
        if self.plan.other_resource {
            format!("{}{OTHER_RESOURCE_PATH}", resource_origin(&self.resource))
        } else {
            self.resource.clone()
        }
    }

    /// The protected resource metadata document.
    pub fn resource_metadata(&self) -> Value {
        json!({
            "resource": self.named_resource(),
            "authorization_servers": [self.issuer],
            "scopes_supported": [SCOPE_READ, SCOPE_WRITE],
            "bearer_methods_supported": ["header"],
            "resource_name": "mcp-client-probe"
        })
    }

    /// The metadata URL a 401 names: the path-suffixed well-known location.
    pub fn metadata_url(&self) -> String {
        format!("{}{PRM_PATH}{}", resource_origin(&self.resource), crate::surface::MCP_PATH)
    }

    /// `WWW-Authenticate` of a 401: the metadata URL (where the variant names it) and the scope to
    /// ask for; `error="invalid_token"` when a token was presented.
    pub fn challenge(&self, presented: bool) -> String {
        let mut parts = Vec::new();
        if presented {
            parts.push("error=\"invalid_token\"".to_string());
        }
        if self.plan.metadata_in_challenge {
            parts.push(format!("resource_metadata=\"{}\"", self.metadata_url()));
        }
        if !self.plan.no_challenge_scope {
            parts.push(format!("scope=\"{SCOPE_READ}\""));
        }
        format!("Bearer {}", parts.join(", "))
    }

    /// `WWW-Authenticate` of a 403 for a call that needs [`SCOPE_WRITE`].
    pub fn insufficient_scope(&self) -> String {
        let mut challenge = format!("Bearer error=\"insufficient_scope\", scope=\"{SCOPE_READ} {SCOPE_WRITE}\"");
        if self.plan.metadata_in_challenge {
            challenge.push_str(&format!(", resource_metadata=\"{}\"", self.metadata_url()));
        }
        challenge
    }

    /// What `token` is to this resource.
    pub fn check(&self, token: Option<&str>) -> TokenCheck {
        let Some(token) = token else { return TokenCheck::Absent };
        let book = self.book();
        let Some(issued) = book.tokens.iter().find(|t| t.access == token) else { return TokenCheck::Unknown };
        if issued.issued.elapsed() >= issued.lifetime {
            TokenCheck::Expired
        } else if !same_resource(&issued.audience, &self.resource) {
            TokenCheck::OtherAudience(issued.audience.clone())
        } else {
            TokenCheck::Valid(issued.scope.clone())
        }
    }

    /// Issues a client id for a registration of `redirect_uris`.
    pub(crate) fn register(&self, redirect_uris: Vec<String>) -> String {
        let client_id = opaque("probe-client");
        self.book().clients.insert(client_id.clone(), redirect_uris);
        client_id
    }

    pub(crate) fn is_registered(&self, client_id: &str) -> bool {
        self.book().clients.contains_key(client_id)
    }

    /// The redirect URIs a registered client registered (None for a client this server did not
    /// register: its redirect is held to the loopback rule alone).
    pub(crate) fn registered_redirects(&self, client_id: &str) -> Option<Vec<String>> {
        self.book().clients.get(client_id).cloned()
    }

    pub(crate) fn hold(&self, ask: Ask) -> String {
        self.hold_at(ask, Instant::now())
    }

    /// Holds an authorization for the person's approval, asked at `now`; expired ones go, and
    /// past [`MAX_PENDING`] the oldest.
    fn hold_at(&self, ask: Ask, now: Instant) -> String {
        let request = opaque("probe-request");
        let mut book = self.book();
        book.pending.retain(|_, (_, asked)| still_good(*asked, now));
        if book.pending.len() >= MAX_PENDING {
            if let Some(oldest) = book.pending.iter().min_by_key(|(_, (_, asked))| *asked).map(|(id, _)| id.clone()) {
                book.pending.remove(&oldest);
            }
        }
        book.pending.insert(request.clone(), (ask, now));
        request
    }

    /// Approves a pending authorization: its code and what was asked.
    pub(crate) fn approve(&self, request: &str) -> Option<(String, Ask)> {
        self.approve_at(request, Instant::now())
    }

    fn approve_at(&self, request: &str, now: Instant) -> Option<(String, Ask)> {
        let mut book = self.book();
        let (ask, asked) = book.pending.remove(request)?;
        if !still_good(asked, now) {
            return None;
        }
        let code = opaque("probe-code");
        book.codes.retain(|_, (_, issued)| still_good(*issued, now));
        book.codes.insert(code.clone(), (ask.clone(), now));
        Some((code, ask))
    }

    pub(crate) fn redeem(&self, code: &str) -> Option<Ask> {
        self.redeem_at(code, Instant::now())
    }

    fn redeem_at(&self, code: &str, now: Instant) -> Option<Ask> {
        let (ask, issued) = self.book().codes.remove(code)?;
        still_good(issued, now).then_some(ask)
    }

    /// Issues an access token and a refresh token for `scope` and `audience`.
    pub(crate) fn issue(&self, scope: &str, audience: &str) -> (String, String, Duration) {
        let lifetime = self.plan.token_lifetime();
        let (access, refresh) = (opaque("probe-access"), opaque("probe-refresh"));
        let mut book = self.book();
        book.tokens.push(Token { access: access.clone(), scope: scope.to_string(), audience: audience.to_string(), issued: Instant::now(), lifetime });
        book.refresh.insert(refresh.clone(), (scope.to_string(), audience.to_string()));
        (access, refresh, lifetime)
    }

    pub(crate) fn renews(&self, refresh: &str) -> Option<(String, String)> {
        self.book().refresh.get(refresh).cloned()
    }
}

/// Whether a call needs [`SCOPE_WRITE`] its token lacks (auth-step-up).
pub fn needs_step_up(plan: &Plan, frame: Option<&Value>, scope: &str) -> bool {
    let calls_write = frame.is_some_and(|f| f.get("method").and_then(Value::as_str) == Some("tools/call") && f.pointer("/params/name").and_then(Value::as_str) == Some(TOOL_WRITE));
    plan.step_up && calls_write && !scope.split_whitespace().any(|s| s == SCOPE_WRITE)
}

/// The bearer token of an `Authorization` header, if it is one.
pub fn bearer(authorization: Option<&str>) -> Option<&str> {
    let value = authorization?.trim();
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim()).filter(|t| !t.is_empty())
}

/// The tools of the auth variants.
pub fn tools() -> Vec<Value> {
    vec![
        json!({
            "name": TOOL_WHOAMI,
            "description": "Says who the server takes the caller for",
            "inputSchema": {"type": "object", "properties": {}}
        }),
        json!({
            "name": TOOL_WRITE,
            "description": "Writes a note; needs the probe:write scope",
            "inputSchema": {"type": "object", "properties": {"note": {"type": "string"}}}
        }),
    ]
}

/// The text `probe_auth_whoami` answers with.
pub const WHOAMI_TEXT: &str = "signed in to the probe server (auth-whoami-7e2a)";
/// The text `probe_auth_write` answers with.
pub const WRITE_TEXT: &str = "the note is written (auth-write-91c4)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_auth_variants_are_exactly_those_with_a_plan() {
        for variant in Variant::ALL {
            assert_eq!(variant.is_auth(), Plan::of(variant).is_some(), "{variant}");
        }
    }

    #[test]
    fn bearer_tokens_are_read_from_the_header_alone() {
        assert_eq!(bearer(Some("Bearer abc")), Some("abc"));
        assert_eq!(bearer(Some("bearer  abc ")), Some("abc"));
        assert_eq!(bearer(Some("Basic abc")), None);
        assert_eq!(bearer(Some("Bearer ")), None);
        assert_eq!(bearer(None), None);
    }

    #[test]
    fn s256_is_base64url_sha256_without_padding() {
        // Computed independently (Python's hashlib and base64).
        assert_eq!(s256("probe-verifier-0123456789-abcdefghijklmnopq"), "BNRf7YrA94qVFUlKO3qztuFwij-P4TiHtqFmmYK1f-c");
    }

    #[test]
    fn tokens_are_checked_for_lifetime_audience_and_scope() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::create(&dir.path().join("j.jsonl")).unwrap();
        let authority = Authority::new(Plan::of(Variant::Auth).unwrap(), "http://127.0.0.1:1".into(), "http://127.0.0.1:2/mcp".into(), journal);
        let (ours, _, _) = authority.issue(SCOPE_READ, "http://127.0.0.1:2/mcp/");
        let (theirs, _, _) = authority.issue(SCOPE_READ, "http://127.0.0.1:2/other-mcp");
        assert_eq!(authority.check(Some(&ours)), TokenCheck::Valid(SCOPE_READ.into()));
        assert_eq!(authority.check(Some(&theirs)), TokenCheck::OtherAudience("http://127.0.0.1:2/other-mcp".into()));
        assert_eq!(authority.check(Some("made-up")), TokenCheck::Unknown);
        assert_eq!(authority.check(None), TokenCheck::Absent);
        assert!(authority.challenge(false).contains("resource_metadata=\"http://127.0.0.1:2/.well-known/oauth-protected-resource/mcp\""));
        let step_up = Plan::of(Variant::AuthStepUp).unwrap();
        let call = json!({"method": "tools/call", "params": {"name": TOOL_WRITE}});
        assert!(needs_step_up(&step_up, Some(&call), SCOPE_READ));
        assert!(!needs_step_up(&step_up, Some(&call), "probe:read probe:write"));
        assert!(!needs_step_up(&Plan::of(Variant::Auth).unwrap(), Some(&call), SCOPE_READ));
    }

    #[test]
    fn authorizations_and_codes_expire_and_waiting_ones_are_capped() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::create(&dir.path().join("j.jsonl")).unwrap();
        let authority = Authority::new(Plan::of(Variant::Auth).unwrap(), "http://127.0.0.1:1".into(), "http://127.0.0.1:2/mcp".into(), journal);
        let ask = || Ask { redirect_uri: "http://127.0.0.1:9/cb".into(), state: None, challenge: None, challenge_method: None, scope: None, resource: None };
        let t0 = Instant::now();
        let late = t0 + PENDING_LIFETIME + Duration::from_secs(1);
        // Approved in time, redeemed in time: a code, once.
        let request = authority.hold_at(ask(), t0);
        let (code, _) = authority.approve_at(&request, t0 + Duration::from_secs(5)).expect("approved in time");
        assert!(authority.redeem_at(&code, t0 + Duration::from_secs(6)).is_some());
        assert!(authority.redeem_at(&code, t0 + Duration::from_secs(7)).is_none(), "a code is redeemed once");
        // Approved too late, or a code redeemed too late: nothing.
        let waited = authority.hold_at(ask(), t0);
        assert!(authority.approve_at(&waited, late).is_none());
        let request = authority.hold_at(ask(), t0);
        let (stale, _) = authority.approve_at(&request, t0).unwrap();
        assert!(authority.redeem_at(&stale, late).is_none());
        // However many are asked, at most MAX_PENDING wait; the oldest go first.
        let first = authority.hold_at(ask(), t0);
        for i in 0..MAX_PENDING {
            authority.hold_at(ask(), t0 + Duration::from_millis(1 + i as u64));
        }
        assert!(authority.book().pending.len() <= MAX_PENDING);
        assert!(authority.approve_at(&first, t0 + Duration::from_secs(2)).is_none(), "the oldest was forgotten");
        // Expired ones leave when a new one comes.
        authority.hold_at(ask(), late + PENDING_LIFETIME);
        assert_eq!(authority.book().pending.len(), 1);
    }
}
