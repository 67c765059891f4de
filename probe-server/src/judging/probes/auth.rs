//! OAuth for remote servers (the auth variants, Streamable HTTP only): what a client does when
//! the MCP server answers 401. Everything is judged from the server's journal: the protected
//! resource's `resource_checked` and `well_known` notes, and the loopback authorization
//! server's `auth_request` / `auth_answer` notes. The authorization request itself is made by
//! the person who logs in (the harness), on the URL the client handed them; the person's own
//! steps are journalled too (`/person`), so a flow the person never followed is not-reached, not
//! the client's doing. A client that never starts the flow gets a no that says where it stopped
//! ("gave up at the 401"). Authorization is HTTP-level, so the probes apply in both eras.

use serde_json::Value;

use super::{probe, BOTH, HTTP_ONLY};
use crate::auth::server::query_of;
use crate::auth::{s256, same_resource, OIDC_METADATA_PATH, SCOPE_READ, SCOPE_WRITE, TOOL_WRITE};
use crate::note::{AuthAnswer, AuthRequest, AuthServing, BrowserOpened, Payload, ResourceChecked, SignIn, WellKnown};
use crate::observe::Observations;
use crate::probe::{Outcome, Verdict};

/// The notes of one kind, each read as its payload: line and payload.
fn noted<T: Payload>(o: &Observations) -> Vec<(u64, T)> {
    o.payloads::<T>().map(|(e, payload)| (e.seq, payload)).collect()
}

/// The authorization server's requests at one endpoint.
fn asked(o: &Observations, endpoint: &str) -> Vec<(u64, AuthRequest)> {
    noted::<AuthRequest>(o).into_iter().filter(|(_, d)| d.endpoint == endpoint).collect()
}

/// The answer to the authorization server's request `n`.
fn answer_to(o: &Observations, request: &AuthRequest) -> Option<(u64, AuthAnswer)> {
    noted::<AuthAnswer>(o).into_iter().find(|(_, d)| d.n == request.n)
}

/// The protected resource's decisions.
fn checks(o: &Observations) -> Vec<(u64, ResourceChecked)> {
    noted::<ResourceChecked>(o)
}

/// The MCP server's URL, as the authorization server was told at its start.
fn resource(o: &Observations) -> Option<String> {
    noted::<AuthServing>(o).into_iter().next().map(|(_, d)| d.resource)
}

/// The first 401, or the not-reached verdict: no MCP request reached the server.
fn challenged(o: &Observations) -> Result<u64, Verdict> {
    checks(o)
        .into_iter()
        .find(|(_, d)| d.status == 401)
        .map(|(seq, _)| seq)
        .ok_or_else(|| Verdict::new(Outcome::NotReached, "no MCP request reached the server, so it never asked for a token"))
}

/// How far a client got in the flow, in words, with the lines that show it.
fn progress(o: &Observations) -> (String, Vec<u64>) {
    let mut steps = Vec::new();
    let mut lines = Vec::new();
    let metadata: Vec<_> = noted::<WellKnown>(o).into_iter().filter(|(_, d)| d.served).collect();
    if let Some((seq, _)) = metadata.first() {
        steps.push("read the resource metadata");
        lines.push(*seq);
    }
    let as_metadata: Vec<_> = noted::<AuthRequest>(o).into_iter().filter(|(_, d)| matches!(d.endpoint.as_str(), "oauth_metadata" | "oidc_metadata")).collect();
    if let Some((seq, _)) = as_metadata.first() {
        steps.push("asked for the authorization server's metadata");
        lines.push(*seq);
    }
    if let Some((seq, _)) = asked(o, "register").first() {
        steps.push("registered");
        lines.push(*seq);
    }
    if steps.is_empty() {
        ("gave up at the 401".to_string(), lines)
    } else {
        (format!("{}, and went no further", steps.join(", ")), lines)
    }
}

/// The first authorization request, or the verdict saying why there is none: the host handed
/// the person a URL they never followed (not-reached), or it never got that far (no).
fn first_authorization(o: &Observations) -> Result<(u64, AuthRequest), Verdict> {
    let challenge = challenged(o)?;
    if let Some(first) = asked(o, "authorize").into_iter().next() {
        return Ok(first);
    }
    if let Some(seq) = o.notes(BrowserOpened::NOTE).next().map(|e| e.seq).or_else(|| asked(o, "person").first().map(|(s, _)| *s)) {
        return Err(Verdict::new(Outcome::NotReached, "the host handed the person a sign-in URL, and the person never opened it at the authorization server").evidence([seq]));
    }
    let (how_far, lines) = progress(o);
    Err(Verdict::new(Outcome::No, format!("never sent the person to the authorization endpoint: it {how_far}"))
        .evidence(std::iter::once(challenge).chain(lines))
        .opportunity([challenge]))
}

/// A token request: its line, its detail, and its answer's line and detail.
type TokenRequest = (u64, AuthRequest, Option<(u64, AuthAnswer)>);

/// The not-reached verdict for a flow whose every redirect the person failed to deliver to the
/// client's callback (nothing answered there): the client never had its code.
fn undelivered(o: &Observations) -> Option<Verdict> {
    let reports: Vec<_> = asked(o, "person").into_iter().filter(|(_, d)| d.form_field("step") == Some("delivered")).collect();
    let answered = |d: &AuthRequest| d.form_field("status").is_some_and(|s| s != "0");
    match reports.last() {
        Some((seq, _)) if !reports.iter().any(|(_, d)| answered(d)) => {
            Some(Verdict::new(Outcome::NotReached, "nothing answered at the client's callback when the person followed the redirect: it never had its code").evidence([*seq]))
        }
        _ => None,
    }
}

/// A no from a host that never got as far as the authorization endpoint is not-reached where
/// the harness did not give it its chance: the profile gave the harness no way to sign it in
/// (the runner's `sign_in` note says plan "none"; the host may sign in by a command the harness
/// did not run), or the terminal sign-in waited for a text the screen never showed while the
/// host ran on (the login's `client_exited` note says `unmatched`). A host that said on screen
/// that its sign-in failed keeps its no. The reference client's runs have neither note: it
/// signs in by itself on a 401.
fn fair(o: &Observations, verdict: Verdict) -> Verdict {
    if verdict.outcome != Outcome::No || !asked(o, "authorize").is_empty() {
        return verdict;
    }
    let no_plan = noted::<SignIn>(o).into_iter().find(|(_, d)| d.plan == "none");
    let unmatched = o.payloads::<crate::note::ClientExited>().find_map(|(e, exit)| {
        let login = exit.is_login();
        exit.terminal.filter(|t| login && t.unmatched).map(|terminal| (e.seq, terminal))
    });
    let (seq, why) = match (no_plan, unmatched) {
        (Some((seq, _)), _) => (seq, "its profile gives the harness no way to sign it in".to_string()),
        (None, Some((seq, terminal))) => (
            seq,
            format!(
                "its terminal sign-in stopped where the screen did not show what the plan waits for ({})",
                terminal.stopped.as_deref().unwrap_or("the signed-in text never appeared")
            ),
        ),
        (None, None) => return verdict,
    };
    let detail = format!("{}; {why}, so what a sign-in would show is unknown", verdict.detail);
    Verdict::new(Outcome::NotReached, detail).evidence(verdict.evidence.iter().copied().chain([seq]))
}

/// The token requests with `grant_type`, each with its answer.
fn token_requests(o: &Observations, grant: &str) -> Vec<TokenRequest> {
    asked(o, "token")
        .into_iter()
        .filter(|(_, d)| d.form_field("grant_type") == Some(grant))
        .map(|(seq, d)| {
            let answer = answer_to(o, &d);
            (seq, d, answer)
        })
        .collect()
}

/// The access tokens issued: the line of the answer, the token, and its scope.
fn issued(o: &Observations) -> Vec<(u64, String, String)> {
    noted::<AuthAnswer>(o)
        .into_iter()
        .filter(|(_, d)| d.endpoint == "token" && d.status == 200)
        .filter_map(|(seq, d)| Some((seq, d.json_text("access_token")?.to_string(), d.json_text("scope").unwrap_or("").to_string())))
        .collect()
}

fn scopes(scope: Option<&str>) -> Vec<&str> {
    let mut list: Vec<&str> = scope.unwrap_or("").split_whitespace().collect();
    list.sort_unstable();
    list.dedup();
    list
}

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] = &[
    &PrmDiscovery,
    &PrmWellKnown,
    &AsMetadataOrder,
    &Registration,
    &ApplicationType,
    &ClientIdDocument,
    &PkceS256,
    &PkceVerifierFormat,
    &State,
    &RedirectLoopbackIp,
    &RedirectRegistered,
    &TokenClientId,
    &ResourceIndicator,
    &ScopeSelection,
    &BearerHeader,
    &StepUp,
    &Refresh,
    &RefreshRotated,
    &RefreshGrantRegistered,
    &IssValidated,
    &IssMissingRefused,
    &IssuerValidated,
    &PkceMethodsRequired,
    &ScopeFallback,
    &TokenAudience,
];

probe! {
    /// Evidence: after the 401, whose `WWW-Authenticate` names the protected resource metadata
    /// (`resource_metadata`, RFC 9728 §5.1), a GET of that URL (the path-suffixed well-known
    /// location). The metadata found at the root location instead is partial; no metadata read
    /// at all is no, and the detail says what the client did instead (asked the MCP server's
    /// origin for authorization server metadata, as 2025-03-26 clients do, or gave up).
    PrmDiscovery {
        id: "auth.prm_discovery", area: Auth, title: "the resource metadata the 401 names is read",
        revisions: ["2025-06-18"], eras: BOTH, transports: HTTP_ONLY, variant: Auth,
        serves: "401 with WWW-Authenticate: Bearer resource_metadata=\"…/.well-known/oauth-protected-resource/mcp\", scope=\"probe:read\"",
        judge: |o| fair(o, judge_prm_discovery(o)),
    }
}

/// The line of the first well-known request of `kind` at the MCP origin (a `well_known` note).
fn first_well_known(asks: &[(u64, WellKnown)], kind: &str) -> Option<u64> {
    asks.iter().find(|(_, d)| d.kind == kind).map(|(seq, _)| *seq)
}

fn judge_prm_discovery(o: &Observations) -> Verdict {
    let challenge = match challenged(o) {
        Ok(seq) => seq,
        Err(verdict) => return verdict,
    };
    let asks = noted::<WellKnown>(o);
    let find = |kind: &str| first_well_known(&asks, kind);
    if let Some(seq) = find("resource_metadata_at_path") {
        return Verdict::new(Outcome::Yes, "read the resource metadata at the URL the 401 named").evidence([challenge, seq]);
    }
    if let Some(seq) = find("resource_metadata_at_root") {
        return Verdict::new(Outcome::Partial, "read the resource metadata at the root well-known location, not at the URL the 401 named")
            .evidence([challenge, seq])
            .opportunity([challenge]);
    }
    let detail = match find("oauth_metadata").or_else(|| find("oidc_metadata")) {
        Some(_) => "never read the resource metadata: it asked the MCP server's origin for authorization server metadata (as 2025-03-26 clients do)".to_string(),
        None => format!("never read the resource metadata: it {}", progress(o).0),
    };
    Verdict::new(Outcome::No, detail).evidence(std::iter::once(challenge).chain(asks.iter().map(|(s, _)| *s))).opportunity([challenge])
}

probe! {
    /// Evidence: the 401 names no metadata, and the metadata is served only at the root
    /// well-known location. RFC 9728 and the authorization spec (2025-11-25 on) say to try the
    /// path-suffixed location (`/.well-known/oauth-protected-resource/mcp`) and then the root:
    /// both in that order, the root found, is yes; the root found without trying the
    /// path-suffixed one first is partial; the root never read is no.
    PrmWellKnown {
        id: "auth.prm_well_known", area: Auth, title: "without a resource_metadata, the well-known locations are tried in order",
        revisions: ["2025-11-25"], eras: BOTH, transports: HTTP_ONLY, variant: AuthPrmRoot,
        serves: "401 naming no metadata; metadata only at /.well-known/oauth-protected-resource",
        judge: |o| fair(o, judge_prm_well_known(o)),
    }
}

fn judge_prm_well_known(o: &Observations) -> Verdict {
    let challenge = match challenged(o) {
        Ok(seq) => seq,
        Err(verdict) => return verdict,
    };
    let asks = noted::<WellKnown>(o);
    let find = |kind: &str| first_well_known(&asks, kind);
    match (find("resource_metadata_at_path"), find("resource_metadata_at_root")) {
        (Some(path), Some(root)) if path < root => {
            Verdict::new(Outcome::Yes, "tried the path-suffixed location, then found the metadata at the root").evidence([challenge, path, root])
        }
        (_, Some(root)) => {
            Verdict::new(Outcome::Partial, "found the metadata at the root without trying the path-suffixed location first").evidence([challenge, root]).opportunity([challenge])
        }
        (Some(path), None) => Verdict::new(Outcome::No, "tried the path-suffixed location (404) and never the root").evidence([challenge, path]).opportunity([challenge]),
        (None, None) => Verdict::new(Outcome::No, format!("never looked for the resource metadata: it {}", progress(o).0)).evidence([challenge]).opportunity([challenge]),
    }
}

probe! {
    /// Evidence: the authorization server serves its metadata only under OpenID discovery
    /// (`/.well-known/openid-configuration`). The authorization spec (2025-11-25 on) orders the
    /// attempts: RFC 8414's `oauth-authorization-server` first, then OpenID discovery. OpenID
    /// discovery read after an RFC 8414 attempt is yes; read without one is partial (the order
    /// differs, and an RFC 8414-only server would be missed); never read is no.
    AsMetadataOrder {
        id: "auth.as_metadata_order", area: Auth, title: "authorization server metadata is looked for in the spec's order",
        revisions: ["2025-11-25"], eras: BOTH, transports: HTTP_ONLY, variant: AuthOidc,
        serves: "authorization server metadata only at /.well-known/openid-configuration",
        judge: |o| fair(o, judge_as_metadata_order(o)),
    }
}

fn judge_as_metadata_order(o: &Observations) -> Verdict {
    let challenge = match challenged(o) {
        Ok(seq) => seq,
        Err(verdict) => return verdict,
    };
    let oauth = asked(o, "oauth_metadata").first().map(|(s, _)| *s);
    let oidc = asked(o, "oidc_metadata").first().map(|(s, _)| *s);
    match (oauth, oidc) {
        (Some(first), Some(then)) if first < then => Verdict::new(Outcome::Yes, "asked for RFC 8414 metadata, then read the OpenID discovery document").evidence([first, then]),
        (_, Some(then)) => {
            Verdict::new(Outcome::Partial, "read the OpenID discovery document without asking for RFC 8414 metadata first").evidence([then]).opportunity([challenge])
        }
        (Some(first), None) => {
            Verdict::new(Outcome::No, format!("asked for RFC 8414 metadata (404) and never at {OIDC_METADATA_PATH}")).evidence([challenge, first]).opportunity([challenge])
        }
        (None, None) => {
            Verdict::new(Outcome::No, format!("never asked the authorization server for its metadata: it {}", progress(o).0)).evidence([challenge]).opportunity([challenge])
        }
    }
}

probe! {
    /// Evidence: the authorization server offers dynamic client registration (RFC 7591) and no
    /// client ID metadata documents. A registration (POST to its `registration_endpoint`)
    /// answered 201, and an authorization request with the client id it issued, is yes;
    /// registered and then authorizing as another client is partial; never registered is no
    /// (the detail says which client id it used, if any: a pre-registered one this server
    /// cannot know, or a metadata document URL it does not support).
    Registration {
        id: "auth.registration", area: Auth, title: "the client registers itself (dynamic client registration)",
        revisions: ["2025-03-26"], eras: BOTH, transports: HTTP_ONLY, variant: Auth,
        serves: "registration_endpoint in the authorization server's metadata (RFC 7591); no client ID metadata documents",
        judge: |o| fair(o, judge_registration(o)),
    }
}

fn judge_registration(o: &Observations) -> Verdict {
    // A host may register more than once (each launch afresh): any client id it was issued counts.
    let registered: Vec<_> = asked(o, "register")
        .into_iter()
        .filter_map(|(seq, d)| answer_to(o, &d).filter(|(_, a)| a.status == 201).map(|(a, ad)| (seq, a, ad.json_text("client_id").unwrap_or("").to_string())))
        .collect();
    let authorization = first_authorization(o);
    let issued_to = |ask: &AuthRequest| registered.iter().find(|(_, _, id)| ask.query_field("client_id") == Some(id.as_str()));
    match (registered.first(), authorization) {
        (Some(_), Ok((asked_at, ask))) => match issued_to(&ask) {
            Some((seq, answered, _)) => Verdict::new(Outcome::Yes, "registered, and asked for authorization as a client it was issued").evidence([*seq, *answered, asked_at]),
            None => Verdict::new(Outcome::Partial, "registered, then asked for authorization as a client id it was not issued")
                .evidence([registered[0].0, asked_at])
                .opportunity([registered[0].0]),
        },
        (Some((seq, answered, _)), Err(_)) => Verdict::new(Outcome::Yes, "registered (and never asked for authorization)").evidence([*seq, *answered]),
        (None, Ok((asked_at, ask))) => {
            let challenge = challenged(o).unwrap_or(asked_at);
            let how = match ask.query_field("client_id") {
                Some(id) if id.starts_with("https://") => "with a client ID metadata document URL this server does not support",
                Some(_) => "as a client id of its own (pre-registered, which this server cannot be)",
                None => "without a client id",
            };
            Verdict::new(Outcome::No, format!("never registered: asked for authorization {how}")).evidence([asked_at]).opportunity([challenge])
        }
        (None, Err(verdict)) => verdict,
    }
}

probe! {
    /// Evidence: every dynamic registration's JSON names an `application_type` that fits its
    /// redirect URIs (2026-07-28: clients MUST specify an appropriate one; omitted, OpenID
    /// Connect servers take it as `web`, which refuses a loopback redirect): `native` for loopback
    /// or custom-scheme redirects, `web` for https ones on another host (yes). One that names the
    /// other type is partial; one without it is no. Without a registration it means nothing.
    ApplicationType {
        id: "auth.registration_application_type", area: Auth, title: "a dynamic registration names its application type",
        revisions: ["2026-07-28"], eras: BOTH, transports: HTTP_ONLY, variant: Auth,
        serves: "registration_endpoint in the authorization server's metadata (RFC 7591)",
        judge: judge_application_type, precondition: "auth.registration",
    }
}

/// The `application_type` that fits `redirect_uris`: `native` unless every one is https on a host
/// that is not this machine.
fn fitting_application_type(redirect_uris: &[&str]) -> &'static str {
    let host_of = |rest: &str| -> String {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        authority.rsplit_once(':').filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit())).map_or(authority, |(host, _)| host).to_ascii_lowercase()
    };
    let web = |uri: &&str| uri.strip_prefix("https://").is_some_and(|rest| !matches!(host_of(rest).as_str(), "localhost" | "127.0.0.1" | "[::1]"));
    if !redirect_uris.is_empty() && redirect_uris.iter().all(web) {
        "web"
    } else {
        "native"
    }
}

fn judge_application_type(o: &Observations) -> Verdict {
    let registrations = asked(o, "register");
    let Some((first, _)) = registrations.first() else {
        return Verdict::new(Outcome::NotReached, "never registered");
    };
    // Each registration: its line, the type it names, and the type its redirect URIs fit.
    let judged: Vec<(u64, Option<&str>, &str)> = registrations
        .iter()
        .map(|(seq, d)| {
            let body = d.json.as_ref();
            let named = body.and_then(|b| b.get("application_type")).and_then(Value::as_str);
            let uris: Vec<&str> = body.and_then(|b| b.get("redirect_uris")).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
            (*seq, named, fitting_application_type(&uris))
        })
        .collect();
    if let Some((seq, _, fits)) = judged.iter().find(|(_, named, _)| named.is_none()) {
        return Verdict::new(Outcome::No, format!("registered without an application_type (its redirect URIs are {fits}'s)")).evidence([*seq]).opportunity([*first]);
    }
    if let Some((seq, Some(named), fits)) = judged.iter().find(|(_, named, fits)| *named != Some(*fits)) {
        return Verdict::new(Outcome::Partial, format!("registered as {named:?} with redirect URIs that are {fits}'s")).evidence([*seq]).opportunity([*first]);
    }
    let named = judged.first().and_then(|(_, named, _)| *named).unwrap_or_default();
    Verdict::new(Outcome::Yes, format!("registered as {named:?}, which fits its redirect URIs")).evidence([*first])
}

probe! {
    /// Evidence: the authorization server has no registration endpoint and says
    /// `client_id_metadata_document_supported` (2025-11-25). An authorization request whose
    /// `client_id` is an `https` URL (the client's metadata document; offline the server accepts
    /// it unfetched, and the journal keeps the URL) is yes; any other client id, or none, is no.
    ClientIdDocument {
        id: "auth.client_id_document", area: Auth, title: "a client ID metadata document is used where registration is not offered",
        revisions: ["2025-11-25"], eras: BOTH, transports: HTTP_ONLY, variant: AuthCimd,
        serves: "client_id_metadata_document_supported: true; no registration_endpoint",
        judge: |o| fair(o, judge_client_id_document(o)),
    }
}

fn judge_client_id_document(o: &Observations) -> Verdict {
    let tried_registration = noted::<AuthRequest>(o).into_iter().find(|(_, d)| d.endpoint == "register").map(|(s, _)| s);
    let (seq, ask) = match first_authorization(o) {
        Ok(found) => found,
        Err(verdict) if verdict.outcome == Outcome::No && tried_registration.is_some() => {
            return Verdict::new(Outcome::No, format!("posted to /register, which this authorization server does not offer, and went no further{}", not_given(o)))
                .evidence(tried_registration)
                .opportunity(verdict.opportunity.iter().copied());
        }
        Err(mut verdict) => {
            if verdict.outcome == Outcome::No {
                verdict.detail.push_str(not_given(o));
            }
            return verdict;
        }
    };
    match ask.query_field("client_id") {
        Some(url) if url.starts_with("https://") => Verdict::new(Outcome::Yes, format!("asked for authorization with a client ID metadata document: {url}")).evidence([seq]),
        other => {
            let detail = format!("asked for authorization as {:?}, not with a metadata document URL{}", other.unwrap_or(""), not_given(o));
            Verdict::new(Outcome::No, detail).evidence([seq]).opportunity([seq])
        }
    }
}

/// For a no on client ID metadata documents: that the host's profile handed it no document URL,
/// where the run says so (a host that uses one only when given it was not tried with one).
fn not_given(o: &Observations) -> &'static str {
    let given = noted::<SignIn>(o).into_iter().find_map(|(_, d)| d.client_metadata_given);
    match given {
        Some(false) => "; the harness handed it no metadata document URL (its profile has no client_metadata_args)",
        _ => "",
    }
}

probe! {
    /// Evidence: the first authorization request carries `code_challenge` with
    /// `code_challenge_method=S256` (OAuth 2.1; the authorization spec says clients must use
    /// S256), and the token request that redeems its code carries a `code_verifier` whose S256 is
    /// the challenge. A `plain` challenge, none, or a verifier that does not match is no.
    PkceS256 {
        id: "auth.pkce_s256", area: Auth, title: "PKCE with S256",
        revisions: ["2025-03-26"], eras: BOTH, transports: HTTP_ONLY, variant: Auth,
        serves: "code_challenge_methods_supported [\"S256\"]; the authorization server records, and does not require, a challenge",
        judge: |o| fair(o, judge_pkce(o)),
    }
}

fn judge_pkce(o: &Observations) -> Verdict {
    let (seq, ask) = match first_authorization(o) {
        Ok(found) => found,
        Err(verdict) => return verdict,
    };
    let (challenge, method) = (ask.query_field("code_challenge"), ask.query_field("code_challenge_method"));
    let Some(challenge) = challenge else { return Verdict::new(Outcome::No, "the authorization request has no code_challenge").evidence([seq]).opportunity([seq]) };
    if method != Some("S256") {
        return Verdict::new(Outcome::No, format!("the code challenge's method is {:?}, not S256", method.unwrap_or("plain (absent)"))).evidence([seq]).opportunity([seq]);
    }
    let redeemed = token_requests(o, "authorization_code").into_iter().next();
    match redeemed {
        Some((at, form, _)) => match form.form_field("code_verifier") {
            Some(verifier) if s256(verifier) == challenge => Verdict::new(Outcome::Yes, "an S256 challenge, and the verifier that matches it").evidence([seq, at]),
            Some(_) => Verdict::new(Outcome::No, "the code_verifier does not match the S256 challenge").evidence([seq, at]).opportunity([seq]),
            None => Verdict::new(Outcome::No, "an S256 challenge, and a token request without code_verifier").evidence([seq, at]).opportunity([seq]),
        },
        None => Verdict::new(Outcome::Yes, "an S256 challenge (the code was never redeemed)").evidence([seq]),
    }
}

probe! {
    /// Evidence: the `code_verifier` of the first authorization-code grant: 43 to 128 characters,
    /// each a letter, a digit or one of `-._~` (RFC 7636 §4.1): yes; otherwise no. A code never
    /// redeemed is not-reached; no authorization as `auth.pkce_s256`.
    PkceVerifierFormat {
        id: "auth.pkce_verifier_format", area: Auth, title: "the PKCE code verifier has the length and characters RFC 7636 asks",
        revisions: ["2025-03-26"], eras: BOTH, transports: HTTP_ONLY, variant: Auth,
        serves: "a token endpoint that takes any verifier matching the challenge",
        judge: |o| fair(o, judge_verifier_format(o)),
    }
}

fn judge_verifier_format(o: &Observations) -> Verdict {
    if let Err(verdict) = first_authorization(o) {
        return verdict;
    }
    let Some((seq, form, _)) = token_requests(o, "authorization_code").into_iter().next() else {
        return Verdict::new(Outcome::NotReached, "the code was never redeemed: no code_verifier to see");
    };
    let Some(verifier) = form.form_field("code_verifier") else {
        return Verdict::new(Outcome::No, "the token request carries no code_verifier").evidence([seq]).opportunity([seq]);
    };
    let unreserved = verifier.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b));
    match (verifier.len(), unreserved) {
        (43..=128, true) => Verdict::new(Outcome::Yes, format!("a verifier of {} unreserved characters", verifier.len())).evidence([seq]),
        (len, true) => Verdict::new(Outcome::No, format!("a verifier of {len} characters, outside 43 to 128")).evidence([seq]).opportunity([seq]),
        (_, false) => Verdict::new(Outcome::No, "a verifier with characters outside A-Z a-z 0-9 - . _ ~").evidence([seq]).opportunity([seq]),
    }
}

probe! {
    /// Evidence: the `redirect_uri` of the first authorization request. A loopback IP literal
    /// (`http://127.0.0.1:…` or `http://[::1]:…`, RFC 8252 §7.3) is yes; `localhost`, which RFC
    /// 8252 §8.3 and OAuth 2.1 advise against (a name can resolve elsewhere, and a server must
    /// then allow it too), is partial; another host over plain HTTP is no. An `https` callback or
    /// a private-use scheme is not a loopback one: not applicable.
    RedirectLoopbackIp {
        id: "auth.redirect_loopback_ip", area: Auth, title: "a loopback redirect names the IP, not localhost",
        revisions: ["2025-03-26"], eras: BOTH, transports: HTTP_ONLY, variant: Auth,
        serves: "an authorization endpoint that takes any redirect URI the client registered",
        judge: |o| fair(o, judge_redirect_loopback(o)),
    }
}

fn judge_redirect_loopback(o: &Observations) -> Verdict {
    let (seq, ask) = match first_authorization(o) {
        Ok(found) => found,
        Err(verdict) => return verdict,
    };
    let Some(redirect) = ask.query_field("redirect_uri") else {
        return Verdict::new(Outcome::No, "the authorization request names no redirect_uri").evidence([seq]).opportunity([seq]);
    };
    if !redirect.starts_with("http://") {
        return Verdict::new(Outcome::NotApplicable, format!("the redirect {redirect:?} is not a plain-HTTP loopback one")).evidence([seq]);
    }
    match crate::auth::server::loopback_host(redirect).as_deref() {
        Some("localhost") => Verdict::new(Outcome::Partial, format!("redirects to {redirect}: localhost, not the loopback IP")).evidence([seq]).opportunity([seq]),
        Some(_) => Verdict::new(Outcome::Yes, format!("redirects to {redirect}")).evidence([seq]),
        None => Verdict::new(Outcome::No, format!("redirects over plain HTTP to {redirect}, not a loopback address")).evidence([seq]).opportunity([seq]),
    }
}

probe! {
    /// Evidence: the first authorization-code grant names the `client_id` the authorization
    /// request named (RFC 6749 §4.1.3: a client that does not authenticate must send it): yes;
    /// none, or another, is no. A code never redeemed is not-reached; no authorization as
    /// `auth.pkce_s256`.
    TokenClientId {
        id: "auth.token_client_id", area: Auth, title: "the token request names the client that was authorized",
        revisions: ["2025-03-26"], eras: BOTH, transports: HTTP_ONLY, variant: Auth,
        serves: "a token endpoint that redeems a code whoever asks",
        judge: |o| fair(o, judge_token_client_id(o)),
    }
}

fn judge_token_client_id(o: &Observations) -> Verdict {
    let (authorized_at, ask) = match first_authorization(o) {
        Ok(found) => found,
        Err(verdict) => return verdict,
    };
    let Some((seq, form, _)) = token_requests(o, "authorization_code").into_iter().next() else {
        return Verdict::new(Outcome::NotReached, "the code was never redeemed");
    };
    match (ask.query_field("client_id"), form.form_field("client_id")) {
        (Some(authorized), Some(named)) if authorized == named => Verdict::new(Outcome::Yes, format!("client_id {named:?} in both")).evidence([authorized_at, seq]),
        (authorized, None) => Verdict::new(Outcome::No, format!("the token request names no client_id (the authorization request named {authorized:?})"))
            .evidence([authorized_at, seq])
            .opportunity([seq]),
        (authorized, Some(named)) => Verdict::new(Outcome::No, format!("authorized as {authorized:?}, redeemed as {named:?}")).evidence([authorized_at, seq]).opportunity([seq]),
    }
}

probe! {
    /// Evidence: the client's dynamic registration and its first authorization request: the
    /// request's `redirect_uri` is one of the registered `redirect_uris` (a loopback one with any
    /// port, RFC 8252 §7.3): yes; another is no (an authorization server must refuse it). No
    /// registration (a client ID document, or none) is not applicable.
    RedirectRegistered {
        id: "auth.redirect_registered", area: Auth, title: "the redirect URI is one the client registered",
        revisions: ["2025-03-26"], eras: BOTH, transports: HTTP_ONLY, variant: Auth,
        serves: "registration and authorization endpoints that take any redirect URI",
        judge: |o| fair(o, judge_redirect_registered(o)),
    }
}

fn judge_redirect_registered(o: &Observations) -> Verdict {
    let (seq, ask) = match first_authorization(o) {
        Ok(found) => found,
        Err(verdict) => return verdict,
    };
    let registered: Vec<(u64, Vec<String>)> = asked(o, "register")
        .into_iter()
        .filter(|(at, _)| *at < seq)
        .filter_map(|(at, d)| Some((at, d.json.as_ref()?.get("redirect_uris")?.as_array()?.iter().filter_map(|u| u.as_str().map(str::to_string)).collect())))
        .collect();
    let Some((registered_at, uris)) = registered.last() else {
        return Verdict::new(Outcome::NotApplicable, "no dynamic registration came before the authorization request").evidence([seq]);
    };
    let Some(redirect) = ask.query_field("redirect_uri") else {
        return Verdict::new(Outcome::No, "the authorization request names no redirect_uri").evidence([seq]).opportunity([seq]);
    };
    if uris.iter().any(|u| crate::auth::server::same_redirect(u, redirect)) {
        Verdict::new(Outcome::Yes, format!("{redirect} was registered")).evidence([*registered_at, seq])
    } else {
        Verdict::new(Outcome::No, format!("{redirect} is none of the registered {uris:?}")).evidence([*registered_at, seq]).opportunity([seq])
    }
}

probe! {
    /// Evidence: the first authorization request carries a `state` of at least 8 characters
    /// (RFC 6749 §10.12, RFC 9700: a value the client checks on the way back, against CSRF).
    /// None, or a shorter one, is no.
    State {
        id: "auth.state", area: Auth, title: "the authorization request carries a state",
        revisions: ["2025-03-26"], eras: BOTH, transports: HTTP_ONLY, variant: Auth,
        serves: "an authorization endpoint that returns state as it was sent",
        judge: |o| fair(o, judge_state(o)),
    }
}

fn judge_state(o: &Observations) -> Verdict {
    let (seq, ask) = match first_authorization(o) {
        Ok(found) => found,
        Err(verdict) => return verdict,
    };
    match ask.query_field("state") {
        Some(state) if state.chars().count() >= 8 => Verdict::new(Outcome::Yes, format!("a state of {} characters", state.chars().count())).evidence([seq]),
        Some(state) => Verdict::new(Outcome::No, format!("a state of only {} characters", state.chars().count())).evidence([seq]).opportunity([seq]),
        None => Verdict::new(Outcome::No, "the authorization request has no state").evidence([seq]).opportunity([seq]),
    }
}

probe! {
    /// Evidence: the `resource` parameter (RFC 8707; a must since 2025-06-18) naming the MCP
    /// server's URL, on the first authorization request and on the token request that redeems
    /// its code. Both is yes; one of them partial; neither, or another resource, no.
    ResourceIndicator {
        id: "auth.resource_indicator", area: Auth, title: "the resource parameter names the MCP server",
        revisions: ["2025-06-18"], eras: BOTH, transports: HTTP_ONLY, variant: Auth,
        serves: "resource metadata whose resource is the MCP endpoint's URL",
        judge: |o| fair(o, judge_resource_indicator(o)),
    }
}

fn judge_resource_indicator(o: &Observations) -> Verdict {
    let (seq, ask) = match first_authorization(o) {
        Ok(found) => found,
        Err(verdict) => return verdict,
    };
    let ours = resource(o).unwrap_or_default();
    let redeemed = token_requests(o, "authorization_code").into_iter().next();
    let named = |value: Option<&str>| value.map(|v| same_resource(v, &ours));
    let on_token = redeemed.as_ref().map(|(_, form, _)| named(form.form_field("resource")));
    let lines: Vec<u64> = std::iter::once(seq).chain(redeemed.as_ref().map(|(at, _, _)| *at)).collect();
    let elsewhere = [ask.query_field("resource"), redeemed.as_ref().and_then(|(_, f, _)| f.form_field("resource"))].into_iter().flatten().find(|v| !same_resource(v, &ours));
    if let Some(other) = elsewhere {
        return Verdict::new(Outcome::No, format!("the resource parameter names {other:?}, not {ours:?}")).evidence(lines).opportunity([seq]);
    }
    match (named(ask.query_field("resource")), on_token) {
        (Some(true), Some(Some(true)) | None) => Verdict::new(Outcome::Yes, "resource names the MCP server on the authorization and the token request").evidence(lines),
        (Some(true), Some(None)) => Verdict::new(Outcome::Partial, "resource on the authorization request, not on the token request").evidence(lines).opportunity([seq]),
        (None, Some(Some(true))) => Verdict::new(Outcome::Partial, "resource on the token request, not on the authorization request").evidence(lines).opportunity([seq]),
        _ => Verdict::new(Outcome::No, "no resource parameter").evidence(lines).opportunity([seq]),
    }
}

probe! {
    /// Evidence: the 401's challenge says `scope="probe:read"` and the resource metadata lists
    /// `probe:read probe:write`. The authorization spec (2025-11-25 on) says to ask for the
    /// challenge's scope first, else the metadata's `scopes_supported`. The first authorization
    /// request asking for exactly `probe:read` is yes; for every scope the metadata lists,
    /// partial; for no scope or others, no.
    ScopeSelection {
        id: "auth.scope_selection", area: Auth, title: "the scope asked for is the challenge's",
        revisions: ["2025-11-25"], eras: BOTH, transports: HTTP_ONLY, variant: Auth,
        serves: "scope=\"probe:read\" in the 401; scopes_supported [probe:read, probe:write] in the resource metadata",
        judge: |o| fair(o, judge_scope_selection(o)),
    }
}

fn judge_scope_selection(o: &Observations) -> Verdict {
    let (seq, ask) = match first_authorization(o) {
        Ok(found) => found,
        Err(verdict) => return verdict,
    };
    let asked_for = scopes(ask.query_field("scope"));
    let mut all = vec![SCOPE_READ, SCOPE_WRITE];
    all.sort_unstable();
    if asked_for == [SCOPE_READ] {
        Verdict::new(Outcome::Yes, "asked for the scope the 401 named").evidence([seq])
    } else if asked_for == all {
        Verdict::new(Outcome::Partial, "asked for every scope the resource metadata lists, not the one the 401 named").evidence([seq]).opportunity([seq])
    } else if asked_for.is_empty() {
        Verdict::new(Outcome::No, "asked for no scope").evidence([seq]).opportunity([seq])
    } else {
        Verdict::new(Outcome::No, format!("asked for {:?}", asked_for.join(" "))).evidence([seq]).opportunity([seq])
    }
}

probe! {
    /// Evidence: every MCP request after the first token was issued carries it, or a later one,
    /// in `Authorization: Bearer` (RFC 6750 §2.1), and no request ever carries a token in the
    /// query string (the authorization spec forbids it: a violation). A request without one
    /// after a token was issued is no; no token ever issued is no with where the client stopped.
    BearerHeader {
        id: "auth.bearer_header", area: Auth, title: "the token goes in the Authorization header, never the query",
        revisions: ["2025-03-26"], eras: BOTH, transports: HTTP_ONLY, variant: Auth,
        serves: "a protected resource that accepts a bearer token only in the Authorization header",
        judge: |o| fair(o, judge_bearer_header(o)),
    }
}

fn judge_bearer_header(o: &Observations) -> Verdict {
    let all = checks(o);
    if let Some((seq, _)) = all.iter().find(|(_, d)| d.bearer_in_query) {
        return Verdict::new(Outcome::Violation, "put an access token in the query string").evidence([*seq]).opportunity([*seq]);
    }
    let tokens = issued(o);
    let Some((first, _, _)) = tokens.first() else {
        return match first_authorization(o) {
            Ok((seq, _)) => undelivered(o).unwrap_or_else(|| Verdict::new(Outcome::No, "never obtained a token (its code was never redeemed)").evidence([seq]).opportunity([seq])),
            Err(verdict) => verdict,
        };
    };
    let after: Vec<_> = all.iter().filter(|(seq, _)| seq > first).collect();
    let known = |d: &ResourceChecked| d.presented.as_deref().is_some_and(|p| tokens.iter().any(|(_, t, _)| t == p));
    let bare: Vec<_> = after.iter().filter(|(_, d)| d.presented.is_none()).collect();
    if let Some((seq, _)) = bare.iter().find(|(_, d)| d.rpc_method.is_some()) {
        return Verdict::new(Outcome::No, "sent a JSON-RPC request without its token after it had one").evidence([*first, *seq]).opportunity([*first]);
    }
    if let Some((seq, _)) = bare.first() {
        // A bodiless request without the token (a host checking whether the server wants one)
        // while every JSON-RPC request carried it.
        let detail = "its JSON-RPC requests carried the token; a bodiless request to the endpoint after it had one did not";
        return Verdict::new(Outcome::Partial, detail).evidence([*first, *seq]).opportunity([*first]);
    }
    match after.iter().find(|(_, d)| known(d)) {
        Some((seq, _)) => Verdict::new(Outcome::Yes, "every MCP request after the token was issued carried it in the Authorization header").evidence([*first, *seq]),
        None => Verdict::new(Outcome::No, "never sent the token it was issued").evidence([*first]).opportunity([*first]),
    }
}

probe! {
    /// Evidence: a call of `probe_auth_write` with a token of `probe:read` alone is answered 403
    /// with `error="insufficient_scope", scope="probe:read probe:write"` (the authorization
    /// spec's step-up, 2025-11-25 on). A new authorization request asking for `probe:write` after
    /// the 403, and the call sent again and let through, is yes; re-authorized without the call
    /// let through afterwards is partial; no new authorization is no. No 403 (the tool never
    /// called with a read-only token) is not-reached.
    StepUp {
        id: "auth.step_up", area: Auth, title: "insufficient_scope leads to a new authorization with the wider scope",
        revisions: ["2025-11-25"], eras: BOTH, transports: HTTP_ONLY, variant: AuthStepUp,
        serves: "probe_auth_write needs probe:write: 403 insufficient_scope for a read-only token",
        judge: |o| fair(o, judge_step_up(o)),
    }
}

fn judge_step_up(o: &Observations) -> Verdict {
    let all = checks(o);
    let Some((refused, _)) = all.iter().find(|(_, d)| d.status == 403) else {
        let detail = format!("{TOOL_WRITE} was never called with a token lacking {SCOPE_WRITE}, so the server never asked for more");
        return Verdict::new(Outcome::NotReached, detail);
    };
    let widened = asked(o, "authorize").into_iter().find(|(seq, d)| seq > refused && scopes(d.query_field("scope")).contains(&SCOPE_WRITE));
    let Some((again, _)) = widened else {
        // What it did instead, as far as the authorization server saw.
        let refresh = token_requests(o, "refresh_token").into_iter().find(|(seq, _, _)| seq > refused);
        let refreshed = refresh.as_ref().map(|(seq, _, _)| *seq);
        let reauthorized = asked(o, "authorize").into_iter().find(|(seq, _)| seq > refused).map(|(seq, _)| seq);
        let instead = match (&refresh, reauthorized) {
            (Some((_, form, _)), _) if scopes(form.form_field("scope")).contains(&SCOPE_WRITE) => {
                format!(": it asked for {SCOPE_WRITE} in a refresh grant, which cannot widen what was granted")
            }
            (Some(_), _) => ": it refreshed its token with the scope it had".to_string(),
            (None, Some(_)) => ": it asked for authorization again without it".to_string(),
            (None, None) => String::new(),
        };
        return Verdict::new(Outcome::No, format!("after the 403 it never asked for authorization with {SCOPE_WRITE}{instead}"))
            .evidence(std::iter::once(*refused).chain(refreshed).chain(reauthorized))
            .opportunity([*refused]);
    };
    let through = all.iter().find(|(seq, d)| *seq > again && d.tool.as_deref() == Some(TOOL_WRITE) && d.status == 200);
    match through {
        Some((seq, _)) => Verdict::new(Outcome::Yes, "asked for the wider scope after the 403 and called the tool again with the new token").evidence([*refused, again, *seq]),
        None => {
            Verdict::new(Outcome::Partial, "asked for the wider scope after the 403, and the call never went through with it").evidence([*refused, again]).opportunity([*refused])
        }
    }
}

probe! {
    /// Evidence: access tokens live 2 s (`expires_in: 2`) and come with a refresh token. A
    /// refresh-token grant answered with a new token, and an MCP request let through with it, is
    /// yes (on the 401 of an expired token or ahead of it); a whole new authorization instead is
    /// partial; neither, after an expired token was refused, is no. No request after a token's
    /// lifetime is not-reached.
    Refresh {
        id: "auth.refresh", area: Auth, title: "an expired token is refreshed",
        revisions: ["2025-03-26"], eras: BOTH, transports: HTTP_ONLY, variant: AuthRefresh,
        serves: "access tokens that expire after 2 s; refresh tokens",
        judge: |o| fair(o, judge_refresh(o)),
    }
}

fn judge_refresh(o: &Observations) -> Verdict {
    let all = checks(o);
    let tokens = issued(o);
    let refreshed: Vec<(u64, String)> = token_requests(o, "refresh_token")
        .into_iter()
        .filter_map(|(seq, _, answer)| answer.filter(|(_, a)| a.status == 200).and_then(|(_, a)| Some((seq, a.json_text("access_token")?.to_string()))))
        .collect();
    if let Some((first, _)) = refreshed.first() {
        // A host may refresh again before it uses a token: any refreshed token let through counts.
        let used = all.iter().find(|(_, d)| d.status == 200 && refreshed.iter().any(|(_, t)| d.presented.as_deref() == Some(t.as_str())));
        return match used {
            Some((through, _)) => Verdict::new(Outcome::Yes, "refreshed its token and went on with a refreshed one").evidence([*first, *through]),
            None => Verdict::new(Outcome::Partial, "refreshed its token and never used a refreshed one").evidence([*first]).opportunity([*first]),
        };
    }
    let Some((expired, _)) = all.iter().find(|(_, d)| d.token == "expired") else {
        return match tokens.first() {
            Some(_) => Verdict::new(Outcome::NotReached, "no request came after the token's lifetime, so it never expired in use"),
            None => match first_authorization(o) {
                Ok((seq, _)) => undelivered(o).unwrap_or_else(|| Verdict::new(Outcome::No, "never obtained a token to refresh").evidence([seq]).opportunity([seq])),
                Err(verdict) => verdict,
            },
        };
    };
    let again = asked(o, "authorize").into_iter().nth(1).filter(|(seq, _)| seq > expired);
    match again {
        Some((seq, _)) => Verdict::new(Outcome::Partial, "signed in again instead of using its refresh token").evidence([*expired, seq]).opportunity([*expired]),
        None => Verdict::new(Outcome::No, "its expired token was refused, and it neither refreshed nor signed in again").evidence([*expired]).opportunity([*expired]),
    }
}

probe! {
    /// Evidence: every token answer hands a new refresh token (rotation), so a refresh token is
    /// spent by the grant that presents it. No refresh token presented twice is yes (with one
    /// refresh, the detail says so: how many refreshes a host makes in its run depends on its own
    /// timing, and the verdict must not); one presented again (an old one, or one spent by a
    /// refresh still in flight) is no: a rotating server refuses it and takes the reuse for theft.
    /// No refresh is not-reached.
    RefreshRotated {
        id: "auth.refresh_token_rotated", area: Auth, title: "a rotated refresh token replaces the old one",
        revisions: ["2025-03-26"], eras: BOTH, transports: HTTP_ONLY, variant: AuthRefresh,
        serves: "each token answer hands a new refresh token",
        judge: |o| fair(o, judge_refresh_rotated(o)),
    }
}

fn judge_refresh_rotated(o: &Observations) -> Verdict {
    let grants = token_requests(o, "refresh_token");
    if grants.is_empty() {
        return Verdict::new(Outcome::NotReached, "never refreshed");
    }
    let checked = checks(o);
    let tokens = issued(o);
    // Each refresh token is spent by the grant that presents it (the answer hands a new one).
    let mut spent: Vec<(u64, &str)> = Vec::new();
    for (seq, request, _) in &grants {
        let Some(presented) = request.form_field("refresh_token") else { continue };
        if let Some((first, _)) = spent.iter().find(|(_, token)| *token == presented) {
            // Two refreshes racing on one token (no request let through, in between, with an
            // access token issued after the first) and one from a store that kept the old token
            // are both reuse; the detail says which. How far apart they came is left out: it is
            // the client's timing, and a detail that changes from run to run is a difference to
            // `probe --repeat`.
            let newer = |token: &str| tokens.iter().any(|(at, t, _)| at > first && t == token);
            let used_newer = checked.iter().any(|(at, d)| at > first && at < seq && d.status == 200 && d.presented.as_deref().is_some_and(newer));
            let how = if used_newer { "after using an access token issued since" } else { "before using any token issued since: two refreshes raced" };
            return Verdict::new(Outcome::No, format!("presented a refresh token a second time, {how} (a rotating server takes reuse for theft)"))
                .evidence([*first, *seq])
                .opportunity([*seq]);
        }
        spent.push((*seq, presented));
    }
    let how = if grants.len() == 1 {
        "one refresh, so no token could be presented twice".to_string()
    } else {
        format!("{} refreshes, each presenting a refresh token not spent before", grants.len())
    };
    Verdict::new(Outcome::Yes, how).evidence(grants.iter().map(|(seq, _, _)| *seq).take(3))
}

probe! {
    /// Evidence: a client that registered itself and then used the refresh-token grant named
    /// `refresh_token` among the registration's `grant_types` (RFC 7591 §2: a client keeps to the
    /// grant types it registered; left out, they default to `authorization_code` alone): yes;
    /// otherwise no. Never refreshed is not-reached; no registration is not applicable.
    RefreshGrantRegistered {
        id: "auth.refresh_grant_registered", area: Auth, title: "a client that refreshes registered the refresh_token grant",
        revisions: ["2025-03-26"], eras: BOTH, transports: HTTP_ONLY, variant: AuthRefresh,
        serves: "a registration endpoint that takes any grant types; tokens that expire after 2 s",
        judge: |o| fair(o, judge_refresh_grant_registered(o)),
    }
}

fn judge_refresh_grant_registered(o: &Observations) -> Verdict {
    let Some((refreshed, _, _)) = token_requests(o, "refresh_token").into_iter().next() else {
        return Verdict::new(Outcome::NotReached, "never refreshed");
    };
    let Some((registered, registration)) = asked(o, "register").into_iter().rfind(|(at, _)| *at < refreshed) else {
        return Verdict::new(Outcome::NotApplicable, "no dynamic registration came before the refresh");
    };
    let grants = registration.json.as_ref().and_then(|j| j.get("grant_types")).and_then(Value::as_array).map(|l| l.iter().filter_map(Value::as_str).collect::<Vec<_>>());
    match grants {
        Some(grants) if grants.contains(&"refresh_token") => Verdict::new(Outcome::Yes, format!("registered {grants:?}, then refreshed")).evidence([registered, refreshed]),
        Some(grants) => Verdict::new(Outcome::No, format!("registered {grants:?} and refreshed all the same")).evidence([registered, refreshed]).opportunity([registered]),
        None => {
            Verdict::new(Outcome::No, "registered no grant_types (authorization_code alone) and refreshed all the same").evidence([registered, refreshed]).opportunity([registered])
        }
    }
}

probe! {
    /// Evidence: the authorization server's metadata says
    /// `authorization_response_iss_parameter_supported`, and the redirect after approval carries
    /// an `iss` naming another issuer (RFC 9207 §2.4: the client must then not use the
    /// response). No token request redeeming that code is yes; one is no. A redirect the person
    /// never delivered to the client's callback is not-reached.
    IssValidated {
        id: "auth.iss_validated", area: Auth, title: "an authorization response from the wrong issuer is refused",
        revisions: ["2026-07-28"], eras: BOTH, transports: HTTP_ONLY, variant: AuthWrongIss,
        serves: "authorization_response_iss_parameter_supported: true; the redirect's iss names another issuer",
        judge: |o| fair(o, judge_iss(o)),
    }
}

fn judge_iss(o: &Observations) -> Verdict {
    judge_response_refused(o, "named another issuer")
}

/// Yes when the client took the redirect after approval (whose response `what`) and never
/// redeemed its code; no when it redeemed it; not-reached when the redirect never reached it.
fn judge_response_refused(o: &Observations, what: &str) -> Verdict {
    if let Err(verdict) = first_authorization(o) {
        return verdict;
    }
    let approvals: Vec<_> = noted::<AuthAnswer>(o).into_iter().filter(|(_, d)| d.endpoint == "approve" && d.status == 302).collect();
    let Some((approved, answer)) = approvals.first() else {
        return Verdict::new(Outcome::NotReached, "the person never approved the authorization request");
    };
    let code = query_of(answer.location.as_deref().unwrap_or("")).remove("code").unwrap_or_default();
    let delivered = asked(o, "person").into_iter().find(|(seq, d)| seq > approved && d.form_field("step") == Some("delivered"));
    let Some((delivered_at, report)) = delivered else {
        return Verdict::new(Outcome::NotReached, "the person never delivered the redirect to the client's callback").evidence([*approved]);
    };
    // Any HTTP answer means the callback got the redirect (a client that refuses it may say so
    // with an error page); status 0 means nothing answered there.
    if report.form_field("status").is_none_or(|s| s == "0") {
        return Verdict::new(Outcome::NotReached, "nothing answered at the client's callback when the person followed the redirect").evidence([delivered_at]);
    }
    match token_requests(o, "authorization_code").into_iter().find(|(_, form, _)| form.form_field("code") == Some(code.as_str())) {
        Some((seq, _, _)) => Verdict::new(Outcome::No, format!("redeemed a code whose response {what}")).evidence([*approved, delivered_at, seq]).opportunity([delivered_at]),
        None => Verdict::new(Outcome::Yes, format!("took the redirect and never redeemed a code whose response {what}")).evidence([*approved, delivered_at]),
    }
}

probe! {
    /// Evidence: the authorization server's metadata (RFC 8414 or OpenID discovery) names another
    /// `issuer` than the one whose well-known URL served it; RFC 8414 §3.3 says such metadata
    /// must not be used. Read, and nothing after it that uses it (no registration, no
    /// authorization URL handed to the person, no token request) is yes; any of those is no. A
    /// client that never read the metadata is not-reached. Without a registration in the `auth`
    /// variant, stopping here means nothing.
    IssuerValidated {
        id: "auth.issuer_validated", area: Auth, title: "authorization server metadata naming another issuer is not used",
        revisions: ["2025-03-26"], eras: BOTH, transports: HTTP_ONLY, variant: AuthIssuerMismatch,
        serves: "authorization server metadata whose issuer is http://127.0.0.1:<port>/someone-else",
        judge: |o| fair(o, judge_issuer_validated(o)), precondition: "auth.registration",
    }
}

fn judge_issuer_validated(o: &Observations) -> Verdict {
    judge_metadata_refused(o, "whose issuer names another server", true)
}

/// Yes when the client read the authorization server's metadata (which is `flaw`) and used none
/// of it (no registration where `registering_counts`, no authorization URL, no token request);
/// no when it went on; not-reached when it never read the metadata.
fn judge_metadata_refused(o: &Observations, flaw: &str, registering_counts: bool) -> Verdict {
    let challenge = match challenged(o) {
        Ok(seq) => seq,
        Err(verdict) => return verdict,
    };
    // The requests and answers read once: each use below looks them up.
    let (requests, answers) = (noted::<AuthRequest>(o), noted::<AuthAnswer>(o));
    let served = |ask: &AuthRequest| answers.iter().any(|(_, answer)| answer.n == ask.n && answer.status == 200);
    let metadata = |ask: &AuthRequest| matches!(ask.endpoint.as_str(), "oauth_metadata" | "oidc_metadata");
    let read = requests.iter().filter(|(_, ask)| metadata(ask) && served(ask)).map(|(seq, _)| *seq).min();
    let Some(read) = read else {
        return Verdict::new(Outcome::NotReached, format!("never read the authorization server's metadata, so what it says never came into play: it {}", progress(o).0))
            .evidence([challenge]);
    };
    let after = |endpoint: &str| requests.iter().find(|(seq, ask)| *seq > read && ask.endpoint == endpoint).map(|(seq, _)| *seq);
    let opened = o.notes(BrowserOpened::NOTE).map(|e| e.seq).find(|seq| *seq > read);
    let uses = [("registered", after("register")), ("handed the person an authorization URL", after("authorize").or(opened)), ("asked for a token", after("token"))];
    let counted = uses.iter().filter(|(what, _)| registering_counts || *what != "registered");
    match counted.filter_map(|(what, seq)| seq.map(|seq| (seq, *what))).min() {
        Some((seq, what)) => Verdict::new(Outcome::No, format!("used metadata {flaw}: {what}")).evidence([read, seq]).opportunity([read]),
        None => Verdict::new(Outcome::Yes, format!("read metadata {flaw} and went no further")).evidence([read]),
    }
}

probe! {
    /// Evidence: the authorization server's metadata says
    /// `authorization_response_iss_parameter_supported`, and the redirect after approval carries
    /// no `iss` (RFC 9207 §2.4: the client must then refuse the response). No token request
    /// redeeming that code is yes; one is no. A redirect never delivered is not-reached.
    IssMissingRefused {
        id: "auth.iss_missing_refused", area: Auth, title: "an authorization response without the promised iss is refused",
        revisions: ["2026-07-28"], eras: BOTH, transports: HTTP_ONLY, variant: AuthIssMissing,
        serves: "authorization_response_iss_parameter_supported: true; the redirect carries no iss",
        judge: |o| fair(o, judge_response_refused(o, "carried no iss")),
    }
}

probe! {
    /// Evidence: the authorization server's metadata names no `code_challenge_methods_supported`
    /// (2025-11-25: a client must then refuse to proceed, for it cannot tell the server does
    /// PKCE). Read, and no authorization URL handed to the person and no token request after it,
    /// is yes; either is no. A registration does not count. Never read is not-reached.
    PkceMethodsRequired {
        id: "auth.pkce_support_checked", area: Auth, title: "an authorization server that names no PKCE method is not used",
        revisions: ["2025-11-25"], eras: BOTH, transports: HTTP_ONLY, variant: AuthNoPkceMethods,
        serves: "authorization server metadata without code_challenge_methods_supported",
        judge: |o| fair(o, judge_metadata_refused(o, "that names no PKCE method", false)),
    }
}

probe! {
    /// Evidence: the 401's `WWW-Authenticate` names no scope, and the protected resource metadata
    /// lists `scopes_supported` (`probe:read probe:write`). The first authorization request asks
    /// for exactly those (2025-11-25's scope selection: the challenge's scope, else the
    /// metadata's): yes; no scope at all is no; other scopes are partial. No authorization is as
    /// `auth.pkce_s256`.
    ScopeFallback {
        id: "auth.scope_fallback", area: Auth, title: "without a challenge scope, scopes_supported is asked for",
        revisions: ["2025-11-25"], eras: BOTH, transports: HTTP_ONLY, variant: AuthNoChallengeScope,
        serves: "a 401 without scope; resource metadata with scopes_supported",
        judge: |o| fair(o, judge_scope_fallback(o)),
    }
}

fn judge_scope_fallback(o: &Observations) -> Verdict {
    let (seq, ask) = match first_authorization(o) {
        Ok(found) => found,
        Err(verdict) => return verdict,
    };
    let wanted = scopes(Some(&format!("{SCOPE_READ} {SCOPE_WRITE}"))).join(" ");
    match ask.query_field("scope") {
        None => Verdict::new(Outcome::No, "asked for no scope, though the resource metadata lists scopes_supported").evidence([seq]).opportunity([seq]),
        Some(asked) if scopes(Some(asked)).join(" ") == wanted => Verdict::new(Outcome::Yes, format!("asked for {asked:?}, the metadata's scopes_supported")).evidence([seq]),
        Some(asked) => Verdict::new(Outcome::Partial, format!("asked for {asked:?}, not the metadata's scopes_supported {wanted:?}")).evidence([seq]).opportunity([seq]),
    }
}

probe! {
    /// Evidence: the resource metadata names another resource than the MCP server's URL (RFC 9728
    /// §3.3: a client must not use such metadata). A token issued for that other resource and
    /// sent to this server (the protected resource checks each token's audience) is no; the
    /// metadata read and no such token sent is yes; the metadata never read is inconclusive
    /// (the client never met the other resource; `auth.prm_discovery` says why).
    TokenAudience {
        id: "auth.token_audience", area: Auth, title: "a token for another resource is not sent here",
        revisions: ["2025-06-18"], eras: BOTH, transports: HTTP_ONLY, variant: AuthResourceMismatch,
        serves: "resource metadata naming http://127.0.0.1:<port>/other-mcp",
        judge: |o| fair(o, judge_token_audience(o)),
    }
}

fn judge_token_audience(o: &Observations) -> Verdict {
    let challenge = match challenged(o) {
        Ok(seq) => seq,
        Err(verdict) => return verdict,
    };
    if let Some((seq, d)) = checks(o).into_iter().find(|(_, d)| d.token == "other_audience") {
        // The other resource is named by its path: its port is this run's.
        let audience = d.audience.as_deref().unwrap_or("another resource");
        let ours = resource(o).unwrap_or_default();
        let origin = crate::auth::resource_origin(&ours);
        let shown = audience.strip_prefix(origin).filter(|_| !origin.is_empty()).map_or(audience.to_string(), |path| format!("this server's {path}"));
        return Verdict::new(Outcome::No, format!("sent this server a token issued for {shown}")).evidence([challenge, seq]).opportunity([challenge]);
    }
    match noted::<WellKnown>(o).into_iter().find(|(_, d)| d.served) {
        Some((seq, _)) => {
            let how_far = if issued(o).is_empty() { "and obtained no token" } else { "and sent no token issued for it" };
            Verdict::new(Outcome::Yes, format!("read metadata naming another resource {how_far}")).evidence([challenge, seq])
        }
        None => Verdict::new(Outcome::Inconclusive, "never read the resource metadata, so it never met the other resource").evidence([challenge]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_and_custom_scheme_redirects_are_a_native_applications_and_remote_https_ones_a_webs() {
        assert_eq!(fitting_application_type(&["http://127.0.0.1:3030/callback"]), "native");
        assert_eq!(fitting_application_type(&["http://localhost:7777/oauth/callback"]), "native");
        assert_eq!(fitting_application_type(&["https://localhost:8443/cb", "https://app.example/cb"]), "native");
        assert_eq!(fitting_application_type(&["com.example.app:/callback"]), "native");
        assert_eq!(fitting_application_type(&["https://app.example/cb", "https://APP.example:443/other"]), "web");
        assert_eq!(fitting_application_type(&["https://[::1]/cb"]), "native");
        assert_eq!(fitting_application_type(&[]), "native");
    }

    /// `matrix rejudge` judges an authorization variant's journal of a host with a model without
    /// the model's journal (those runs keep none): no judge here may read it.
    #[test]
    fn the_auth_judges_read_no_model_journal() {
        let source = include_str!("auth.rs");
        let code = &source[..source.find("#[cfg(test)]").unwrap()];
        for reader in ["model_views", "model_calls", "offered_tools", ".model()", "opportunity::", "needs_model", "reads_model"] {
            assert!(!code.contains(reader), "the auth judges read the model journal ({reader})");
        }
    }
}
