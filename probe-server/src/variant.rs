//! Server variants. Most probes are judged on the standard server; a few need the server to
//! behave differently for a whole session (not advertise a capability, fail a method, expire the
//! session, drop a stream). Each such probe names its variant; a client is run once per variant
//! and each probe is judged on the journal of its own variant.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::journal::Transport;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// Everything advertised and served as `surface.rs` describes.
    #[default]
    Standard,
    /// `resources.subscribe` is not advertised, and `resources/subscribe` is refused.
    SubscribeUnadvertised,
    /// `resources.subscribe` is advertised, and every `resources/subscribe` fails.
    SubscribeFails,
    /// Streamable HTTP: the session expires at the client's first request after initialization
    /// (that request and every later one in the session are answered 404).
    SessionExpires,
    /// Streamable HTTP: the server ends the first standalone GET stream after its first event
    /// that carries an id, and tells the client to retry soon.
    StreamDrop,
    /// The skills extension (SEP-2640) declared with `directoryRead: true`, serving the skills of
    /// `skills.rs`, hostile ones included.
    Skills,
    /// The same skills, with the extension declared without `directoryRead`.
    SkillsNoDirectoryRead,
    /// No resources capability: resources, templates and subscriptions are not served.
    NoResources,
    /// Interactive (the standard server; a person at a terminal): the form is filled in with
    /// typed values and accepted.
    InteractiveAccept,
    /// Interactive: the form is declined.
    InteractiveDecline,
    /// Interactive: the form is cancelled with the host's cancel key.
    InteractiveCancel,
    /// Interactive: a required field is emptied before accepting.
    InteractiveRequired,
    /// Interactive: the e-mail field gets a value that is not an e-mail address before accepting.
    InteractiveBadFormat,
    /// Interactive: the bounded integer gets a value above its maximum before accepting.
    InteractiveOutOfBounds,
    /// Interactive: the enum form, one pick per enum shape, accepted.
    InteractiveEnums,
    /// Interactive: the URL-mode elicitation is shown and cancelled.
    InteractiveUrl,
    /// Interactive, legacy era only (the server refuses `server/discover`): the server withdraws
    /// its form request (`notifications/cancelled`) after a few seconds; the person answers late.
    InteractiveWithdrawn,
}

impl Variant {
    pub const ALL: [Variant; 17] = [
        Variant::Standard,
        Variant::SubscribeUnadvertised,
        Variant::SubscribeFails,
        Variant::SessionExpires,
        Variant::StreamDrop,
        Variant::Skills,
        Variant::SkillsNoDirectoryRead,
        Variant::NoResources,
        Variant::InteractiveAccept,
        Variant::InteractiveDecline,
        Variant::InteractiveCancel,
        Variant::InteractiveRequired,
        Variant::InteractiveBadFormat,
        Variant::InteractiveOutOfBounds,
        Variant::InteractiveEnums,
        Variant::InteractiveUrl,
        Variant::InteractiveWithdrawn,
    ];

    /// The interactive runs: each a fresh session driven through a terminal.
    pub const INTERACTIVE: [Variant; 9] = [
        Variant::InteractiveAccept,
        Variant::InteractiveDecline,
        Variant::InteractiveCancel,
        Variant::InteractiveRequired,
        Variant::InteractiveBadFormat,
        Variant::InteractiveOutOfBounds,
        Variant::InteractiveEnums,
        Variant::InteractiveUrl,
        Variant::InteractiveWithdrawn,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::SubscribeUnadvertised => "subscribe-unadvertised",
            Variant::SubscribeFails => "subscribe-fails",
            Variant::SessionExpires => "session-expires",
            Variant::StreamDrop => "stream-drop",
            Variant::Skills => "skills",
            Variant::SkillsNoDirectoryRead => "skills-no-directory-read",
            Variant::NoResources => "no-resources",
            Variant::InteractiveAccept => "interactive-accept",
            Variant::InteractiveDecline => "interactive-decline",
            Variant::InteractiveCancel => "interactive-cancel",
            Variant::InteractiveRequired => "interactive-required",
            Variant::InteractiveBadFormat => "interactive-bad-format",
            Variant::InteractiveOutOfBounds => "interactive-out-of-bounds",
            Variant::InteractiveEnums => "interactive-enums",
            Variant::InteractiveUrl => "interactive-url",
            Variant::InteractiveWithdrawn => "interactive-withdrawn",
        }
    }

    /// What the server does differently, in plain words.
    pub fn description(self) -> &'static str {
        match self {
            Variant::Standard => "everything advertised and served",
            Variant::SubscribeUnadvertised => "resources.subscribe not advertised; resources/subscribe refused (-32601)",
            Variant::SubscribeFails => "resources.subscribe advertised; every resources/subscribe fails (-32603)",
            Variant::SessionExpires => "HTTP: the session expires at the first request after initialization (404)",
            Variant::StreamDrop => "HTTP: the first GET stream is ended after its first event with an id (retry: 100 ms)",
            Variant::Skills => "the skills extension with directoryRead: true; good, idle, hidden, twin and hostile skills",
            Variant::SkillsNoDirectoryRead => "the skills extension without directoryRead; the same skills",
            Variant::NoResources => "no resources capability (resources/* refused)",
            Variant::InteractiveAccept => "interactive: the form filled in with typed values and accepted",
            Variant::InteractiveDecline => "interactive: the form declined",
            Variant::InteractiveCancel => "interactive: the form cancelled",
            Variant::InteractiveRequired => "interactive: a required field emptied, then accept pressed",
            Variant::InteractiveBadFormat => "interactive: an e-mail field given a non-address, then accept pressed",
            Variant::InteractiveOutOfBounds => "interactive: an integer field given a value above its maximum, then accept pressed",
            Variant::InteractiveEnums => "interactive: one pick per enum shape, accepted",
            Variant::InteractiveUrl => "interactive: the URL-mode request shown, then cancelled",
            Variant::InteractiveWithdrawn => "interactive, legacy era only: the server withdraws its form request after a few seconds; the person answers late",
        }
    }

    /// The transports over which the variant means anything.
    pub fn transports(self) -> &'static [Transport] {
        match self {
            Variant::SessionExpires | Variant::StreamDrop => &[Transport::Http],
            // What a person sees does not depend on the transport: interactive runs use stdio.
            s if s.is_interactive() => &[Transport::Stdio],
            _ => &[Transport::Stdio, Transport::Http],
        }
    }

    /// Whether the server declares the skills extension.
    pub fn serves_skills(self) -> bool {
        matches!(self, Variant::Skills | Variant::SkillsNoDirectoryRead)
    }

    /// Whether the run is driven through a terminal by the keystroke plan (the server itself
    /// behaves as the standard one).
    pub fn is_interactive(self) -> bool {
        Variant::INTERACTIVE.contains(&self)
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
    /// which the server can withdraw, exist only there).
    pub fn legacy_only(self) -> bool {
        self == Variant::InteractiveWithdrawn
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

#[derive(Debug, thiserror::Error)]
#[error("unknown variant {0:?}: expected one of standard, subscribe-unadvertised, subscribe-fails, session-expires, stream-drop, skills, skills-no-directory-read, no-resources, interactive-accept, interactive-decline, interactive-cancel, interactive-required, interactive-bad-format, interactive-out-of-bounds, interactive-enums, interactive-url, interactive-withdrawn")]
pub struct UnknownVariant(String);

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
        assert!("sideways".parse::<Variant>().is_err());
        assert!(!Variant::StreamDrop.applies_to(Transport::Stdio));
    }
}
