//! The reference client's OAuth (the authorization spec, 2025-11-25 and 2026-07-28), written
//! here rather than taken from rmcp so that each step can be removed or broken by an ablation.
//!
//! On a 401 it reads the protected resource metadata the challenge names (else the well-known
//! locations, path-suffixed first), checks that the metadata's `resource` is the server it
//! asked, finds the authorization server's metadata (RFC 8414, then OpenID discovery) and checks
//! its issuer, identifies itself (a client ID metadata document URL where the server supports
//! them, else dynamic registration), and sends the person to the authorization endpoint with
//! PKCE S256, a state, the challenge's scope and the resource. On the loopback callback it
//! checks the state and the `iss` (RFC 9207), then redeems the code. An expired token is
//! refreshed; a 403 `insufficient_scope` leads to a new authorization with the wider scope.

use std::time::Duration;

use probe_server::auth::{random_text, s256, same_resource, OAUTH_METADATA_PATH, OIDC_METADATA_PATH, PRM_PATH};
use serde_json::Value;
use tokio::io::AsyncWriteExt;

use crate::drivers::loopback::{origin, path};

use super::ablation::Ablation;

/// The client ID metadata document URL the reference client names itself by. Offline nothing
/// fetches it; the authorization server of the auth-cimd variant accepts it unfetched.
pub const CLIENT_DOCUMENT_URL: &str = "https://mcp-client-probe.invalid/reference-client.json";
/// How long the reference client waits for the person to come back to its callback.
const CALLBACK_WAIT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("no resource metadata found")]
    NoResourceMetadata,
    #[error("the resource metadata names {named:?}, not the server asked ({asked:?})")]
    OtherResource { named: String, asked: String },
    #[error("no authorization server metadata found")]
    NoServerMetadata,
    #[error("the authorization server's metadata names issuer {0:?}")]
    WrongIssuer(String),
    #[error("no way to identify the client: no registration and no client ID metadata documents")]
    NoRegistration,
    #[error("registration failed: {0}")]
    Registration(String),
    #[error("the person could not log in: {0}")]
    Person(#[from] crate::drivers::person::LoginError),
    #[error("the callback never came")]
    NoCallback,
    #[error("the authorization response was refused: {0}")]
    Refused(String),
    #[error("the token request failed: {0}")]
    Token(String),
    #[error("the server wants a wider scope and the client does not step up")]
    NoStepUp,
    #[error("HTTP request to {url} failed")]
    Http {
        url: String,
        #[source]
        source: reqwest::Error,
    },
    #[error("cannot open the loopback callback")]
    Callback(#[source] std::io::Error),
}

/// Whether the full reference client must refuse to sign in against this variant (the
/// authorization response names another issuer or none, the metadata another resource, or no
/// PKCE method), so that it opens no session.
pub fn refuses_sign_in(variant: probe_server::Variant) -> bool {
    matches!(
        variant,
        probe_server::Variant::AuthWrongIss
            | probe_server::Variant::AuthIssuerMismatch
            | probe_server::Variant::AuthResourceMismatch
            | probe_server::Variant::AuthIssMissing
            | probe_server::Variant::AuthNoPkceMethods
    )
}

/// The reference client's session in an auth variant (signed in by the time it opened): it
/// lists the tools and calls `probe_auth_whoami`; in auth-step-up it calls `probe_auth_write`,
/// which needs the wider scope; in auth-refresh it calls again each time its token has expired, twice.
pub async fn script(client: &super::Client, variant: probe_server::Variant) {
    use probe_server::auth::{SHORT_TOKEN_LIFETIME, TOOL_WHOAMI, TOOL_WRITE};
    let _ = client.list_tools(None).await;
    let _ = super::call(client, TOOL_WHOAMI).await;
    match variant {
        probe_server::Variant::AuthStepUp => {
            let _ = super::call(client, TOOL_WRITE).await;
        }
        // Twice: the second refresh shows which refresh token the client kept.
        probe_server::Variant::AuthRefresh => {
            for _ in 0..2 {
                tokio::time::sleep(SHORT_TOKEN_LIFETIME + Duration::from_millis(300)).await;
                let _ = super::call(client, TOOL_WHOAMI).await;
            }
        }
        _ => {}
    }
}

/// An error with its causes, for a transport error's message.
pub fn explain(error: &AuthError) -> String {
    let mut words = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        words.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    words
}

/// What the client learned about the server and its authorization server.
#[derive(Debug, Clone)]
struct Server {
    issuer: String,
    authorization_endpoint: String,
    token_endpoint: String,
    registration_endpoint: Option<String>,
    client_id_documents: bool,
    iss_supported: bool,
    /// The metadata names S256 among `code_challenge_methods_supported`.
    pkce_s256: bool,
    /// The resource to name: the metadata's `resource`.
    resource: String,
    scopes_supported: Vec<String>,
}

#[derive(Debug, Default)]
struct Held {
    server: Option<Server>,
    client_id: Option<String>,
    access: Option<String>,
    refresh: Option<String>,
    scope: Option<String>,
}

/// The reference client's authorization state for one server.
pub struct Authorizer {
    server_url: String,
    ablation: Option<Ablation>,
    http: reqwest::Client,
    held: tokio::sync::Mutex<Held>,
}

/// A parameter of a `WWW-Authenticate` challenge.
pub fn challenge_param(challenge: &str, name: &str) -> Option<String> {
    let at = challenge.find(&format!("{name}=\""))? + name.len() + 2;
    Some(challenge[at..].split('"').next()?.to_string())
}

fn form(pairs: &[(&str, &str)]) -> String {
    form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs.iter().copied()).finish()
}

impl Authorizer {
    pub fn new(server_url: &str, ablation: Option<Ablation>) -> Authorizer {
        let http = crate::drivers::loopback::client(CALLBACK_WAIT);
        Authorizer { server_url: server_url.to_string(), ablation, http, held: tokio::sync::Mutex::default() }
    }

    fn without(&self, ablation: Ablation) -> bool {
        self.ablation != Some(ablation)
    }

    /// The access token to send, if any.
    pub async fn token(&self) -> Option<String> {
        self.held.lock().await.access.clone()
    }

    /// After a 401 to a request sent with `sent`: refreshes, or authorizes afresh.
    pub async fn unauthorized(&self, challenge: &str, sent: Option<&str>) -> Result<(), AuthError> {
        let mut held = self.held.lock().await;
        if held.access.as_deref() != sent {
            return Ok(()); // Renewed while this request was out.
        }
        if sent.is_some() && held.refresh.is_some() && self.without(Ablation::NoRefresh) && self.refresh(&mut held).await.is_ok() {
            return Ok(());
        }
        self.authorize(&mut held, challenge, challenge_param(challenge, "scope"), false).await
    }

    /// After a 403 `insufficient_scope`: a new authorization for the scope it had and the
    /// scope the challenge asks for.
    pub async fn insufficient_scope(&self, challenge: &str, sent: Option<&str>) -> Result<(), AuthError> {
        let mut held = self.held.lock().await;
        if held.access.as_deref() != sent {
            return Ok(());
        }
        if !self.without(Ablation::NoStepUp) {
            return Err(AuthError::NoStepUp);
        }
        let mut wanted: Vec<String> =
            held.scope.iter().chain(challenge_param(challenge, "scope").iter()).flat_map(|s| s.split_whitespace().map(str::to_string).collect::<Vec<_>>()).collect();
        wanted.sort();
        wanted.dedup();
        self.authorize(&mut held, challenge, Some(wanted.join(" ")), true).await
    }

    async fn get_json(&self, url: &str) -> Result<Option<Value>, AuthError> {
        let response = self.http.get(url).send().await.map_err(|source| AuthError::Http { url: url.to_string(), source })?;
        if !response.status().is_success() {
            return Ok(None);
        }
        Ok(response.json::<Value>().await.ok())
    }

    async fn post_form(&self, url: &str, body: String) -> Result<(u16, Value), AuthError> {
        let response = self
            .http
            .post(url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .map_err(|source| AuthError::Http { url: url.to_string(), source })?;
        let status = response.status().as_u16();
        Ok((status, response.json::<Value>().await.unwrap_or(Value::Null)))
    }

    /// The resource metadata: where the challenge says, else at the well-known locations.
    async fn resource_metadata(&self, challenge: &str) -> Result<Value, AuthError> {
        let origin = origin(&self.server_url);
        let named = challenge_param(challenge, "resource_metadata");
        let candidates: Vec<String> = match named {
            Some(url) => vec![url],
            None if !self.without(Ablation::NoWellKnownFallback) => Vec::new(),
            None => {
                let path = path(&self.server_url);
                let mut list = Vec::new();
                if !path.is_empty() {
                    list.push(format!("{origin}{PRM_PATH}{path}"));
                }
                list.push(format!("{origin}{PRM_PATH}"));
                list
            }
        };
        for url in candidates {
            if let Some(metadata) = self.get_json(&url).await? {
                return Ok(metadata);
            }
        }
        Err(AuthError::NoResourceMetadata)
    }

    /// The authorization server's metadata, RFC 8414 first and OpenID discovery after.
    async fn server_metadata(&self, issuer: &str) -> Result<Value, AuthError> {
        let (origin, path) = (origin(issuer), path(issuer));
        let mut candidates = vec![format!("{origin}{OAUTH_METADATA_PATH}{path}")];
        if self.without(Ablation::Rfc8414Only) {
            candidates.push(format!("{origin}{OIDC_METADATA_PATH}{path}"));
            if !path.is_empty() {
                candidates.push(format!("{origin}{path}{OIDC_METADATA_PATH}"));
            }
        }
        for url in candidates {
            if let Some(metadata) = self.get_json(&url).await? {
                if metadata.get("issuer").and_then(Value::as_str) != Some(issuer) && self.without(Ablation::TrustAnyIssuer) {
                    return Err(AuthError::WrongIssuer(metadata.get("issuer").and_then(Value::as_str).unwrap_or("").to_string()));
                }
                return Ok(metadata);
            }
        }
        Err(AuthError::NoServerMetadata)
    }

    /// Learns the server: resource metadata, then its authorization server.
    async fn discover(&self, challenge: &str) -> Result<Server, AuthError> {
        if !self.without(Ablation::LegacyAuthDiscovery) {
            // As 2025-03-26 clients: the MCP server's origin is taken for the authorization server.
            let origin = origin(&self.server_url);
            let _ = self.get_json(&format!("{origin}{OAUTH_METADATA_PATH}")).await?;
            return Err(AuthError::NoServerMetadata);
        }
        let metadata = self.resource_metadata(challenge).await?;
        let resource = metadata.get("resource").and_then(Value::as_str).unwrap_or("").to_string();
        if !same_resource(&resource, &self.server_url) && self.without(Ablation::TrustAnyResource) {
            return Err(AuthError::OtherResource { named: resource, asked: self.server_url.clone() });
        }
        let issuer = metadata.pointer("/authorization_servers/0").and_then(Value::as_str).ok_or(AuthError::NoServerMetadata)?.to_string();
        let server = self.server_metadata(&issuer).await?;
        let text = |key: &str| server.get(key).and_then(Value::as_str).map(str::to_string);
        let list = |value: Option<&Value>| value.and_then(Value::as_array).map(|l| l.iter().filter_map(|s| s.as_str().map(str::to_string)).collect()).unwrap_or_default();
        Ok(Server {
            authorization_endpoint: text("authorization_endpoint").ok_or(AuthError::NoServerMetadata)?,
            token_endpoint: text("token_endpoint").ok_or(AuthError::NoServerMetadata)?,
            registration_endpoint: text("registration_endpoint"),
            client_id_documents: server.get("client_id_metadata_document_supported") == Some(&Value::Bool(true)),
            iss_supported: server.get("authorization_response_iss_parameter_supported") == Some(&Value::Bool(true)),
            pkce_s256: server.get("code_challenge_methods_supported").and_then(Value::as_array).is_some_and(|methods| methods.iter().any(|m| m == "S256")),
            issuer,
            resource,
            scopes_supported: list(metadata.get("scopes_supported")),
        })
    }

    /// The client id: a metadata document URL, a registration, or (ablated) a made-up one.
    async fn identify(&self, server: &Server, redirect_uri: &str) -> Result<String, AuthError> {
        if server.client_id_documents && self.without(Ablation::NoClientIdDocument) {
            return Ok(CLIENT_DOCUMENT_URL.to_string());
        }
        if !self.without(Ablation::NoRegistration) {
            return Ok("mcp-client-probe-reference".to_string());
        }
        // Without a registration endpoint the no-client-id-document client posts where one
        // usually is, as clients of 2025-03-26 did.
        let endpoint = match (&server.registration_endpoint, self.ablation) {
            (Some(endpoint), _) => endpoint.clone(),
            (None, Some(Ablation::NoClientIdDocument)) => format!("{}/register", server.issuer),
            (None, _) => return Err(AuthError::NoRegistration),
        };
        let mut metadata = serde_json::json!({
            "client_name": "mcp-client-probe reference client",
            "redirect_uris": [if self.without(Ablation::UnregisteredRedirect) { redirect_uri.to_string() } else { redirect_uri.replace("/callback", "/registered") }],
            "grant_types": if self.without(Ablation::RegistersCodeGrantOnly) { serde_json::json!(["authorization_code", "refresh_token"]) } else { serde_json::json!(["authorization_code"]) },
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        });
        if self.without(Ablation::NoApplicationType) {
            // Its redirect is a loopback one: a native application's.
            metadata["application_type"] = "native".into();
        }
        let response = self.http.post(&endpoint).json(&metadata).send().await.map_err(|source| AuthError::Http { url: endpoint.clone(), source })?;
        let status = response.status();
        let registered: Value = response.json().await.unwrap_or(Value::Null);
        match registered.get("client_id").and_then(Value::as_str) {
            Some(id) if status.is_success() => Ok(id.to_string()),
            _ => Err(AuthError::Registration(format!("HTTP {status}"))),
        }
    }

    /// A whole authorization: discovery (once), identification (once), the person at the
    /// authorization endpoint, the callback, the code redeemed.
    async fn authorize(&self, held: &mut Held, challenge: &str, scope: Option<String>, step_up: bool) -> Result<(), AuthError> {
        let server = match &held.server {
            Some(server) => server.clone(),
            None => {
                let server = self.discover(challenge).await?;
                held.server = Some(server.clone());
                server
            }
        };
        let callback = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(AuthError::Callback)?;
        let address = callback.local_addr().map_err(AuthError::Callback)?;
        let redirect_uri = if self.without(Ablation::LocalhostRedirect) { format!("http://{address}/callback") } else { format!("http://localhost:{}/callback", address.port()) };
        let client_id = match &held.client_id {
            Some(id) => id.clone(),
            None => {
                let id = self.identify(&server, &redirect_uri).await?;
                held.client_id = Some(id.clone());
                id
            }
        };
        // A server that does not say it does PKCE with S256 cannot be trusted to: no authorization.
        if !server.pkce_s256 && self.without(Ablation::IgnoresPkceSupport) {
            return Err(AuthError::Refused("the authorization server names no S256 among its PKCE methods".into()));
        }
        let joined = server.scopes_supported.join(" ");
        let scope = match scope {
            Some(scope) if step_up || self.without(Ablation::AllScopes) => Some(scope),
            None if !self.without(Ablation::NoScopeFallback) => None,
            _ if !joined.is_empty() => Some(joined),
            other => other,
        };
        // 43 characters at least (RFC 7636 §4.1): two random texts.
        let verifier = if self.without(Ablation::ShortCodeVerifier) { format!("{}{}", random_text(), random_text()) } else { random_text() };
        let state = random_text();
        let (challenge_value, method) = if self.without(Ablation::PkcePlain) { (s256(&verifier), "S256") } else { (verifier.clone(), "plain") };
        let resource = self.without(Ablation::NoResourceIndicator).then(|| server.resource.clone());
        let mut pairs = vec![("response_type", "code"), ("client_id", client_id.as_str()), ("redirect_uri", redirect_uri.as_str())];
        pairs.extend([("code_challenge", challenge_value.as_str()), ("code_challenge_method", method)]);
        if self.without(Ablation::NoState) {
            pairs.push(("state", state.as_str()));
        }
        if let Some(scope) = &scope {
            pairs.push(("scope", scope.as_str()));
        }
        if let Some(resource) = &resource {
            pairs.push(("resource", resource.as_str()));
        }
        let url = format!("{}?{}", server.authorization_endpoint, form(&pairs));
        let (person, returned) = tokio::join!(crate::drivers::person::log_in(&url), tokio::time::timeout(CALLBACK_WAIT, take_callback(&callback, &state, &server, self.ablation)));
        let returned = returned.map_err(|_| AuthError::NoCallback)?;
        person?;
        let code = returned?;
        let mut pairs = vec![
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", redirect_uri.as_str()),
            ("client_id", client_id.as_str()),
            ("code_verifier", verifier.as_str()),
        ];
        if !self.without(Ablation::NoClientIdOnToken) {
            pairs.retain(|(key, _)| *key != "client_id");
        }
        if let Some(resource) = &resource {
            pairs.push(("resource", resource));
        }
        let (status, tokens) = self.post_form(&server.token_endpoint, form(&pairs)).await?;
        self.keep(held, status, tokens)
    }

    /// A refresh-token grant.
    async fn refresh(&self, held: &mut Held) -> Result<(), AuthError> {
        let (Some(server), Some(refresh), Some(client_id)) = (held.server.clone(), held.refresh.clone(), held.client_id.clone()) else {
            return Err(AuthError::Token("nothing to refresh".into()));
        };
        let mut pairs = vec![("grant_type", "refresh_token"), ("refresh_token", refresh.as_str()), ("client_id", client_id.as_str())];
        if self.without(Ablation::NoResourceIndicator) {
            pairs.push(("resource", server.resource.as_str()));
        }
        let (status, tokens) = self.post_form(&server.token_endpoint, form(&pairs)).await?;
        self.keep(held, status, tokens)
    }

    fn keep(&self, held: &mut Held, status: u16, tokens: Value) -> Result<(), AuthError> {
        let access = tokens.get("access_token").and_then(Value::as_str).filter(|_| (200..300).contains(&status));
        let Some(access) = access else { return Err(AuthError::Token(format!("HTTP {status}: {tokens}"))) };
        held.access = Some(access.to_string());
        let keeps_first = !self.without(Ablation::KeepsFirstRefreshToken) && held.refresh.is_some();
        if let Some(refresh) = tokens.get("refresh_token").and_then(Value::as_str).filter(|_| !keeps_first) {
            held.refresh = Some(refresh.to_string());
        }
        held.scope = tokens.get("scope").and_then(Value::as_str).map(str::to_string).or(held.scope.take());
        Ok(())
    }
}

/// Waits for the person at the callback; answers them, and hands back the code once the state
/// and (where the server supports it) the issuer check out.
async fn take_callback(listener: &tokio::net::TcpListener, state: &str, server: &Server, ablation: Option<Ablation>) -> Result<String, AuthError> {
    let (mut stream, _) = listener.accept().await.map_err(AuthError::Callback)?;
    let head = probe_server::fetch_trap::read_head(&mut stream, 16 * 1024).await;
    let target = head.lines().next().and_then(|l| l.split_whitespace().nth(1)).unwrap_or("");
    let query = probe_server::auth::server::query_of(target);
    let verdict = if let Some(error) = query.get("error") {
        Err(AuthError::Refused(format!("the authorization server said {error}")))
    } else if ablation != Some(Ablation::NoState) && query.get("state").map(String::as_str) != Some(state) {
        Err(AuthError::Refused("the state does not match".into()))
    } else if server.iss_supported
        && ablation != Some(Ablation::IgnoreIss)
        && query.get("iss") != Some(&server.issuer)
        && (ablation != Some(Ablation::AcceptsMissingIss) || query.contains_key("iss"))
    {
        Err(AuthError::Refused(format!("iss {:?} is not the issuer {:?}", query.get("iss"), server.issuer)))
    } else {
        query.get("code").cloned().ok_or_else(|| AuthError::Refused("no code".into()))
    };
    let (status, words) = if verdict.is_ok() { ("200 OK", "signed in: this window may be closed") } else { ("400 Bad Request", "sign-in refused") };
    let _ = stream.write_all(format!("HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{words}", words.len()).as_bytes()).await;
    verdict
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenge_parameters_and_url_parts_are_read() {
        let challenge = "Bearer error=\"invalid_token\", resource_metadata=\"http://127.0.0.1:5/.well-known/oauth-protected-resource/mcp\", scope=\"probe:read\"";
        assert_eq!(challenge_param(challenge, "scope").as_deref(), Some("probe:read"));
        assert_eq!(challenge_param(challenge, "resource_metadata").as_deref(), Some("http://127.0.0.1:5/.well-known/oauth-protected-resource/mcp"));
        assert_eq!(challenge_param("Bearer", "scope"), None);
    }
}
