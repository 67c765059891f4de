//! Server variants. Most probes are judged on the standard server; a few need the server to
//! behave differently for a whole session (not advertise a capability, fail a method, expire the
//! session, drop a stream). Each such probe names its variant; a client is run once per variant
//! and each probe is judged on the journal of its own variant.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::journal::Transport;

/// How a variant is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A headless run against a server that behaves differently (or the standard one).
    Server,
    /// A headless run that means anything only over Streamable HTTP.
    HttpOnly,
    /// A run driven through a terminal by the keystroke plan; the server behaves as the standard
    /// one, over stdio (what a person sees does not depend on the transport).
    Interactive,
}

/// Declares the variants once: each one's name, how it is run, and what the server does.
macro_rules! variants {
    ($($(#[$attr:meta])* $variant:ident => $name:literal, $kind:ident, $what:literal;)*) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize, schemars::JsonSchema)]
        pub enum Variant {
            $($(#[$attr])* #[serde(rename = $name)] $variant,)*
        }

        impl Variant {
            pub const ALL: [Variant; [$(Variant::$variant),*].len()] = [$(Variant::$variant),*];

            pub fn as_str(self) -> &'static str {
                match self { $(Variant::$variant => $name),* }
            }

            /// What the server does differently, in plain words.
            pub fn description(self) -> &'static str {
                match self { $(Variant::$variant => $what),* }
            }

            fn kind(self) -> Kind {
                match self { $(Variant::$variant => Kind::$kind),* }
            }
        }
    };
}

variants! {
    /// Everything advertised and served as `surface.rs` describes.
    #[default]
    Standard => "standard", Server, "everything advertised and served";
    /// `resources.subscribe` is not advertised, and `resources/subscribe` is refused.
    SubscribeUnadvertised => "subscribe-unadvertised", Server, "resources.subscribe not advertised; resources/subscribe refused (-32601)";
    /// `resources.subscribe` is advertised, and every `resources/subscribe` fails.
    SubscribeFails => "subscribe-fails", Server, "resources.subscribe advertised; every resources/subscribe fails (-32603)";
    /// Streamable HTTP: the session expires at the client's first request after initialization
    /// (that request and every later one in the session are answered 404).
    SessionExpires => "session-expires", HttpOnly, "HTTP: the session expires at the first request after initialization (404)";
    /// Streamable HTTP: the server ends the first standalone GET stream after its first event
    /// that carries an id, and tells the client to retry soon.
    StreamDrop => "stream-drop", HttpOnly, "HTTP: the first GET stream is ended after its first event with an id (retry: 100 ms)";
    /// The skills extension (SEP-2640) declared with `directoryRead: true`, serving the skills of
    /// `skills.rs`, hostile ones included.
    Skills => "skills", Server, "the skills extension with directoryRead: true; good, idle, hidden, twin and hostile skills";
    /// The same skills, with the extension declared without `directoryRead`.
    SkillsNoDirectoryRead => "skills-no-directory-read", Server, "the skills extension without directoryRead; the same skills";
    /// No resources capability: resources, templates and subscriptions are not served.
    NoResources => "no-resources", Server, "no resources capability (resources/* refused)";
    /// `tools/list` holds only `probe_large_result`, whose text results are 10 KB, 100 KB or 1 MB
    /// (see `sized.rs`): what of a large result reaches the model, in its own run.
    LargeResults => "large-results", Server, "tools/list holds only probe_large_result: text results of 10 KB, 100 KB and 1 MB";
    /// `tools/list` holds only tools named at the edges of the rules (dots, dashes, 128
    /// characters; see `edge_names.rs`): whether the model's calls come back under those names;
    /// and `probe_schema_remote`, offered and never called, whose schema has a `$ref` to a URL
    /// on the fetch trap: whether the host fetches it.
    ToolNames => "tool-names", Server, "tools/list holds only tools named with dots, with dashes and with 128 characters, and one whose schema has a remote $ref";
    /// `tools/list` holds only a call that runs past a host's timeout while it reports progress and
    /// one that never answers (see `long_calls.rs`): the host's effective tool timeout, whether it
    /// cancels, and whether progress keeps a call alive. Its runs are bounded.
    LongCalls => "long-calls", Server, "tools/list holds only a call that reports progress for 8 s and one that never answers";
    /// MCP Apps (`io.modelcontextprotocol/ui`, see `apps.rs`): `tools/list` holds only a tool
    /// with a `ui://` view and a tool for that view alone (`visibility: ["app"]`), and the view
    /// is the one resource: whether a host reads the view, keeps the view's tool from its model,
    /// and hands the view the result.
    Apps => "apps", Server, "MCP Apps: tools/list holds only a tool with a ui:// view and a tool for the view alone; the view is the one resource";
    /// Tasks (the 2026-07-28 extension `io.modelcontextprotocol/tasks`, see `tasks.rs`):
    /// `tools/list` holds only tools whose calls become tasks, for a client that declared the
    /// extension: one that completes, one that asks for input, one that fails and one that runs
    /// long enough to be given up on.
    Tasks => "tasks", Server, "tasks extension: tools/list holds only tools whose calls become tasks (completes, asks for input, fails, runs 20 s)";
    /// The events extension (SEP-3415) for 2026-07-28 sessions: four event types, one per way of
    /// being followed (see `events.rs`).
    Events => "events", Server, "events extension (2026-07-28 sessions): a poll script, a type without replay, a push stream that falls silent, a webhook granted 3 s";
    /// Legacy era only: every `initialize` is answered with an older version than the client asked
    /// for ([`crate::server::DOWNGRADE_VERSION`]): whether the client goes on in it.
    VersionDowngrade => "version-downgrade", Server, "legacy era only: initialize answered with 2025-03-26, older than the client asks for";
    /// Legacy era only, `server/discover` refused with -32601 (method not found), as a server
    /// that predates 2026-07-28 answers: whether a client that opens with it falls back to
    /// `initialize`.
    DiscoverRefused => "discover-refused", Server, "legacy era only: server/discover refused with -32601 (method not found)";
    /// Legacy era only, `server/discover` refused with -32602 (invalid params): the fallback must
    /// not be keyed to one error code.
    DiscoverInvalid => "discover-invalid", Server, "legacy era only: server/discover refused with -32602 (invalid params)";
    /// Legacy era only, `server/discover` never answered: a client falls back after a timeout of
    /// its own. Its runs are bounded.
    DiscoverUnanswered => "discover-unanswered", Server, "legacy era only: server/discover never answered";
    /// 2026-07-28 only: `initialize` refused with -32022 naming the one version served, the
    /// standard surface otherwise. Run only for a client whose standard run opened with
    /// `initialize`: whether it falls forward to `server/discover` or gives up.
    ModernOnly => "modern-only", Server, "2026-07-28 only: initialize refused with -32022 (supported: 2026-07-28); the standard surface otherwise";
    /// Over HTTP, every request whose stream would carry only its answer is answered with an
    /// `application/json` body instead (a stream that opens with a notification or a request to
    /// the client stays a stream), as servers in JSON response mode answer.
    JsonResponses => "json-responses", HttpOnly, "answers are application/json bodies wherever no notification or request comes first";
    /// Legacy era only, over HTTP: `server/discover` answered with HTTP 400 and a plain-text body
    /// that is no JSON-RPC at all, as a web server in front of a legacy MCP server may answer a
    /// method it does not route: the fallback must not need a JSON-RPC error.
    DiscoverHttpError => "discover-http-error", HttpOnly, "legacy era only: server/discover answered with HTTP 400 and a plain-text body";
    /// Legacy era only, `server/discover` refused with -32022 listing only the legacy versions (as
    /// rmcp answers a discover of a version it does not speak): a client retries with a listed
    /// version, which here means `initialize`.
    DiscoverUnsupportedVersion => "discover-unsupported-version", Server, "legacy era only: server/discover refused with -32022, listing only the legacy versions";
    /// Results sent without `resultType` (`"complete"` removed by the taps): a 2026-07-28 client
    /// must take an absent `resultType` as `"complete"`. Legacy results never carry one.
    NoResultType => "no-result-type", Server, "resultType left out of every complete result (2026-07-28 answers)";
    /// OAuth (see `auth.rs`): every MCP request needs a token; a 401 names the protected resource
    /// metadata (served at the path-suffixed and the root well-known locations), whose
    /// authorization server, on a port of its own, offers RFC 8414 metadata, dynamic client
    /// registration, PKCE S256, refresh tokens and the `iss` response parameter.
    Auth => "auth", HttpOnly, "OAuth: 401 naming the resource metadata; an authorization server with RFC 8414 metadata, registration, PKCE and refresh tokens";
    /// OAuth, the metadata only at the root well-known location and the 401 naming none.
    AuthPrmRoot => "auth-prm-root", HttpOnly, "OAuth: the 401 names no metadata; it is served only at /.well-known/oauth-protected-resource";
    /// OAuth, the authorization server's metadata only under OpenID discovery.
    AuthOidc => "auth-oidc", HttpOnly, "OAuth: authorization server metadata only at /.well-known/openid-configuration";
    /// OAuth, no dynamic registration: client ID metadata documents are supported (accepted
    /// unfetched).
    AuthCimd => "auth-cimd", HttpOnly, "OAuth: no registration endpoint; client ID metadata documents supported (accepted unfetched)";
    /// OAuth, `probe_auth_write` needs the `probe:write` scope: a call with a read-only token is
    /// answered 403 `insufficient_scope`.
    AuthStepUp => "auth-step-up", HttpOnly, "OAuth: probe_auth_write needs probe:write; a read-only token gets 403 insufficient_scope";
    /// OAuth, access tokens that live 2 s: a client must refresh.
    AuthRefresh => "auth-refresh", HttpOnly, "OAuth: access tokens expire after 2 s; refresh tokens issued";
    /// OAuth, the authorization response's `iss` names another issuer (RFC 9207).
    AuthWrongIss => "auth-wrong-iss", HttpOnly, "OAuth: the authorization response's iss names another issuer";
    /// OAuth, the authorization server's metadata names another issuer than the one whose
    /// well-known URL served it (RFC 8414 §3.3: such metadata must not be used).
    AuthIssuerMismatch => "auth-issuer-mismatch", HttpOnly, "OAuth: the authorization server's metadata names another issuer than the one it is fetched for";
    /// OAuth, as `auth`, but the authorization response carries no `iss` though the metadata
    /// says it does (RFC 9207 §2.4: the client must refuse it).
    AuthIssMissing => "auth-iss-missing", HttpOnly, "OAuth: the metadata says the authorization response carries iss; it carries none";
    /// OAuth, as `auth`, but the authorization server's metadata names no PKCE method.
    AuthNoPkceMethods => "auth-no-pkce-methods", HttpOnly, "OAuth: the authorization server's metadata has no code_challenge_methods_supported";
    /// OAuth, as `auth`, but the 401 names no scope: the protected resource metadata's
    /// `scopes_supported` is what a client falls back on.
    AuthNoChallengeScope => "auth-no-challenge-scope", HttpOnly, "OAuth: the 401 names no scope; the resource metadata lists scopes_supported";
    /// OAuth, the protected resource metadata names another resource than the one asked.
    AuthResourceMismatch => "auth-resource-mismatch", HttpOnly, "OAuth: the protected resource metadata names another resource";
    /// Streamable HTTP without sessions (see `stateless.rs`): no `Mcp-Session-Id` issued, every
    /// POST served on its own, GET and DELETE refused (405), every answer an `application/json`
    /// body wherever nothing comes first; `tools/list` holds only `probe_stateless`.
    Stateless => "stateless", HttpOnly, "HTTP without sessions: no Mcp-Session-Id, GET and DELETE refused (405), answers as JSON bodies; tools/list holds only probe_stateless";
    /// As `stateless`, every answer an event stream of its own.
    StatelessSse => "stateless-sse", HttpOnly, "HTTP without sessions, every answer an event stream of its own; tools/list holds only probe_stateless";
    /// Interactive (the standard server; a person at a terminal): the form is filled in with
    /// typed values and accepted.
    InteractiveAccept => "interactive-accept", Interactive, "interactive: the form filled in with typed values and accepted";
    /// Interactive: the form is declined.
    InteractiveDecline => "interactive-decline", Interactive, "interactive: the form declined";
    /// Interactive: the form is cancelled with the host's cancel key.
    InteractiveCancel => "interactive-cancel", Interactive, "interactive: the form cancelled";
    /// Interactive: a required field is emptied before accepting.
    InteractiveRequired => "interactive-required", Interactive, "interactive: a required field emptied, then accept pressed";
    /// Interactive: the e-mail field gets a value that is not an e-mail address before accepting.
    InteractiveBadFormat => "interactive-bad-format", Interactive, "interactive: an e-mail field given a non-address, then accept pressed";
    /// Interactive: the bounded integer gets a value above its maximum before accepting.
    InteractiveOutOfBounds => "interactive-out-of-bounds", Interactive, "interactive: an integer field given a value above its maximum, then accept pressed";
    /// Interactive: the enum form, one pick per enum shape, accepted.
    InteractiveEnums => "interactive-enums", Interactive, "interactive: one pick per enum shape, accepted";
    /// Interactive: the URL-mode elicitation is shown and cancelled.
    InteractiveUrl => "interactive-url", Interactive, "interactive: the URL-mode request shown, then cancelled";
    /// Interactive, legacy era only (the server refuses `server/discover`): the server withdraws
    /// its form request (`notifications/cancelled`) after a few seconds; the person answers late.
    InteractiveWithdrawn => "interactive-withdrawn", Interactive, "interactive, legacy era only: the server withdraws its form request after a few seconds; the person answers late";
}

impl Variant {
    /// The interactive runs: each a fresh session driven through a terminal.
    pub fn interactive() -> impl Iterator<Item = Variant> {
        Variant::ALL.into_iter().filter(|v| v.is_interactive())
    }

    /// The transports over which the variant means anything.
    pub fn transports(self) -> &'static [Transport] {
        match self.kind() {
            Kind::HttpOnly => &[Transport::Http],
            Kind::Interactive => &[Transport::Stdio],
            Kind::Server => &[Transport::Stdio, Transport::Http],
        }
    }

    /// Whether the server declares the skills extension.
    pub fn serves_skills(self) -> bool {
        matches!(self, Variant::Skills | Variant::SkillsNoDirectoryRead)
    }

    /// Whether the run is driven through a terminal by the keystroke plan (the server itself
    /// behaves as the standard one).
    pub fn is_interactive(self) -> bool {
        self.kind() == Kind::Interactive
    }

    /// The probe tool an interactive run asks the host to call.
    pub fn interactive_tool(self) -> Option<&'static str> {
        use crate::surface as s;
        match self {
            Variant::InteractiveEnums => Some(s::TOOL_ELICIT_ENUMS),
            Variant::InteractiveUrl => Some(s::TOOL_ELICIT_URL),
            other if other.is_interactive() => Some(s::TOOL_ELICIT_FORM),
            _ => None,
        }
    }

    /// Whether the server speaks only the legacy era in this variant (server→client requests,
    /// which the server can withdraw, and version counter-offers exist only there).
    pub fn legacy_only(self) -> bool {
        matches!(self, Variant::InteractiveWithdrawn | Variant::VersionDowngrade) || self.tests_fallback()
    }

    /// Whether the server refuses `server/discover` in its own way so that a client's fallback to
    /// `initialize` can be seen (a client that opens with `initialize` never meets it).
    pub fn tests_fallback(self) -> bool {
        matches!(self, Variant::DiscoverRefused | Variant::DiscoverInvalid | Variant::DiscoverUnanswered | Variant::DiscoverHttpError | Variant::DiscoverUnsupportedVersion)
    }

    /// Whether the server speaks only the 2026-07-28 era in this variant.
    pub fn modern_only(self) -> bool {
        self == Variant::ModernOnly
    }

    /// Whether the variant is run only after the standard run opened with `initialize` (a client
    /// that opened with `server/discover` never meets what it serves).
    pub fn after_a_legacy_opening(self) -> bool {
        self.modern_only()
    }

    /// Whether the server keeps no session (the stateless variants).
    pub fn is_stateless(self) -> bool {
        matches!(self, Variant::Stateless | Variant::StatelessSse)
    }

    /// Whether the server is an OAuth protected resource (see [`crate::auth::Plan`]).
    pub fn is_auth(self) -> bool {
        matches!(
            self,
            Variant::Auth
                | Variant::AuthPrmRoot
                | Variant::AuthOidc
                | Variant::AuthCimd
                | Variant::AuthStepUp
                | Variant::AuthRefresh
                | Variant::AuthWrongIss
                | Variant::AuthIssuerMismatch
                | Variant::AuthResourceMismatch
                | Variant::AuthIssMissing
                | Variant::AuthNoPkceMethods
                | Variant::AuthNoChallengeScope
        )
    }

    pub fn is_standard(&self) -> bool {
        *self == Variant::Standard
    }

    pub fn applies_to(self, transport: Transport) -> bool {
        self.transports().contains(&transport)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no variant.
#[derive(Debug)]
pub struct UnknownVariant(String);

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Variant::ALL.iter().map(|v| v.as_str()).collect();
        write!(f, "unknown variant {:?}: expected one of {}", self.0, names.join(", "))
    }
}

impl std::error::Error for UnknownVariant {}

impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Variant::ALL.into_iter().find(|sc| sc.as_str() == s).ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for variant in Variant::ALL {
            assert_eq!(variant.as_str().parse::<Variant>().unwrap(), variant);
            assert_eq!(serde_json::to_value(variant).unwrap(), variant.as_str());
        }
        let refused = "sideways".parse::<Variant>().unwrap_err().to_string();
        assert!(refused.contains("\"sideways\"") && refused.contains("interactive-withdrawn"), "{refused}");
        assert_eq!(Variant::interactive().count(), 9);
        assert!(!Variant::StreamDrop.applies_to(Transport::Stdio));
    }
}
