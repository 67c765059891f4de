//! Variations: legal behaviours seen in real hosts that the probes must take in their stride.
//! Each one changes how the reference client or the reference host does something the
//! specification allows either way; the self-test runs it and fails when any verdict differs from
//! the full run, apart from the probes a variation declares as its effects.

use std::fmt;

use probe_server::Outcome;

use crate::harness::Transport;

/// Which reference runner a variation changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    /// The reference client (judged on the wire probes).
    Client,
    /// The reference host (client plus model loop; judged on the affordance probes).
    Host,
    /// The fake terminal host (a person at its forms; judged on the interactive probes).
    Terminal,
}

macro_rules! variations {
    ($($variant:ident => $id:literal, $runner:ident, $what:literal;)*) => {
        /// A legal behaviour of a real host, played by the reference client or host.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Variation { $($variant),* }

        impl Variation {
            pub const ALL: &'static [Variation] = &[$(Variation::$variant),*];

            /// Stable kebab-case name.
            pub fn id(self) -> &'static str {
                match self { $(Variation::$variant => $id),* }
            }

            pub fn runner(self) -> Runner {
                match self { $(Variation::$variant => Runner::$runner),* }
            }

            /// What the reference client or host does differently, in plain words.
            pub fn description(self) -> &'static str {
                match self { $(Variation::$variant => $what),* }
            }
        }
    };
}

variations! {
    NamespaceWithoutSeparator => "namespace-without-separator", Host, "offers MCP tools in a namespace mcp__probe under their bare names (no trailing separator)";
    DeferredTools => "deferred-tools", Host, "defers MCP tools behind a tool_search tool, naming them only in the prompt";
    CodeMode => "code-mode", Host, "offers MCP tools only as functions found with search_tool_functions and called from a program the model writes for run_typescript";
    SingleUnderscorePrefix => "single-underscore-prefix", Host, "names MCP tools mcp_probe_<name>";
    DoubleUnderscorePrefix => "double-underscore-prefix", Host, "names MCP tools mcp__probe__<name>";
    DigestSuffix => "digest-suffix", Host, "names MCP tools probe_<name>_<12 hex digits of a digest>";
    SanitizedNames => "sanitized-names", Host, "shows its model tool names with each character outside A-Z a-z 0-9 _ made an underscore and names over 64 characters cut with a digest, and maps the model's calls back";
    TruncateResultsMarked => "truncate-results-marked", Host, "keeps the first 40,000 and the last 10,000 bytes of a tool result over 50,000, and says how many it left out";
    TextOnlyModel => "text-only-model", Host, "is told its model takes text only (a text-only model entry), and hands that model words in place of pictures and sounds";
    ListFromCache => "list-from-cache", Host, "answers the model's resource-list tool from the listing it made when it connected";
    LateRefetch => "late-refetch", Host, "refetches tools 300 ms after list_changed and offers the new tool from its next model turn";
    PrefetchViews => "prefetch-views", Host, "reads every ui:// view the listed tools name as soon as it has listed them, and runs a view from that copy";
    RefetchAfter300Ms => "refetch-after-300ms", Client, "refetches the changed lists 300 ms after the notifications arrived";
    FirstToolsPageOnly => "first-tools-page-only", Client, "stops at the first tools/list page";
    GetBeforeSession => "get-before-session", Client, "sends a reachability GET with Accept: */* before initialize";
    PostsToAnotherPath => "posts-to-another-path", Client, "posts a ping to a path under the endpoint (<url>/rpc) before it connects, and is answered 404";
    DeclineIn3Ms => "decline-in-3ms", Client, "declines every form in 3 ms, nobody asked";
    UnattendedSlowCancel => "unattended-slow-cancel", Client, "cancels every form and URL request after 300 ms in a run the runner journals as unattended (a headless host with nobody at it)";
    CancelAfterCompletedCalls => "cancel-after-completed-calls", Client, "sends notifications/cancelled for every tools/call that already completed";
    PingsServer => "pings-server", Client, "pings the server before its script";
    NeverAnswersPing => "never-answers-ping", Client, "never answers the server's ping (the server gives it up and goes on)";
    ExperimentalCapability => "experimental-capability", Client, "declares an experimental capability of its own";
    ReadsResourcesTwice => "reads-resources-twice", Client, "reads each resource it needs twice, as a host without a cache does";
    RelistsToolsBeforeCalls => "relists-tools-before-calls", Client, "lists the tools again (first page) before it calls any";
    VendorMeta => "vendor-meta", Client, "adds a key of its own (com.example.host/trace) to every request's _meta";
    StringProgressTokens => "string-progress-tokens", Client, "sends its progress tokens as strings, not integers";
    Negotiates20241105 => "negotiates-2024-11-05", Client, "asks for protocol version 2024-11-05 in initialize (the server agrees to it)";
    CursorFocusLabelsAbove => "cursor-focus-labels-above", Terminal, "draws each form label above its value and shows the focus only by the terminal's cursor";
}

impl Variation {
    /// The probes a variation may change, with the reason. Every other probe must keep the full
    /// run's outcome.
    pub fn effects(self) -> &'static [&'static str] {
        /// The probes of every form the server shows, then the URL request's.
        const FORMS: [&str; 7] = [
            "elicitation.form",
            "elicitation.enum_untitled_single",
            "elicitation.enum_titled_single",
            "elicitation.enum_untitled_multi",
            "elicitation.enum_titled_multi",
            "elicitation.enum_legacy_names",
            "elicitation.url",
        ];
        match self {
            // A client that stops at the first page misses only what is on page two.
            Variation::FirstToolsPageOnly => &["tools.pagination"],
            // The ping itself goes unanswered; the rest of probe_ping must not be judged on it.
            Variation::NeverAnswersPing => &["utilities.ping"],
            // What 2024-11-05 lacks is n/a: priming events, the version header, resource links,
            // sampling with tools and with context (which such a client does not declare), a client's
            // title, icons.
            Variation::Negotiates20241105 => &[
                "http.priming_events",
                "http.protocol_version_header",
                "resources.link_followed",
                "sampling.tools",
                "sampling.include_context",
                "connection.client_title",
                "connection.server_icon_fetched",
                "tools.icon_fetched",
            ],
            // A picture or a sound kept from a model said to take text only is no one's fault.
            Variation::TextOnlyModel => &["affordances.image_to_model", "affordances.audio_to_model", "affordances.image_beside_structured"],
            // Every form answered at once: each is auto-answered, and they must agree.
            Variation::DeclineIn3Ms => &FORMS[..6],
            // Every form and URL request cancelled with nobody at the host: each is auto-answered,
            // however long the host took.
            Variation::UnattendedSlowCancel => &FORMS,
            _ => &[],
        }
    }

    /// Whether the probes a variation changes must all end with one and the same outcome.
    pub fn effects_agree(self) -> bool {
        matches!(self, Variation::DeclineIn3Ms | Variation::UnattendedSlowCancel | Variation::TextOnlyModel)
    }

    /// The one outcome the probes a variation changes must end with, where the behaviour it plays
    /// has only one right reading whatever the machine's load. (A 3 ms decline reads as
    /// auto-answered only while it stays under 100 ms, which a loaded machine does not promise:
    /// its effects need only agree.)
    pub fn effects_outcome(self) -> Option<Outcome> {
        match self {
            Variation::UnattendedSlowCancel => Some(Outcome::AutoAnswered),
            Variation::TextOnlyModel => Some(Outcome::NotReached),
            _ => None,
        }
    }

    /// Whether the runner journals the run as one with nobody at the host.
    pub fn unattended(self) -> bool {
        self == Variation::UnattendedSlowCancel
    }

    /// The one server variant the variation means anything against, where it has one (else the
    /// standard variant, or each interactive one for the terminal host's).
    pub fn variant(self) -> Option<probe_server::Variant> {
        match self {
            Variation::TruncateResultsMarked => Some(probe_server::Variant::LargeResults),
            Variation::SanitizedNames => Some(probe_server::Variant::ToolNames),
            Variation::PrefetchViews => Some(probe_server::Variant::Apps),
            _ => None,
        }
    }

    /// The eras in which the variation means anything (asking for a legacy revision means
    /// nothing to a 2026-07-28 session).
    pub fn applies_in(self, era: probe_server::Era) -> bool {
        match self {
            // 2026-07-28 has no ping: pinging there is no legal behaviour to vary.
            Variation::Negotiates20241105 | Variation::PingsServer => era == probe_server::Era::Legacy,
            _ => true,
        }
    }

    /// The transports over which the variation means anything.
    pub fn applies_over(self, transport: Transport) -> bool {
        match self {
            Variation::GetBeforeSession | Variation::PostsToAnotherPath => transport == Transport::Http,
            _ => true,
        }
    }
}

impl fmt::Display for Variation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use probe_server::registry;

    #[test]
    fn variations_have_unique_names_and_known_effects() {
        let mut seen = std::collections::HashSet::new();
        for variation in Variation::ALL {
            assert!(seen.insert(variation.id()), "duplicate {variation}");
            for probe in variation.effects() {
                assert!(registry::find(probe).is_some(), "{variation}: unknown probe {probe}");
            }
        }
        assert!(Variation::ALL.len() >= 12);
        assert!(Variation::ALL.iter().any(|v| v.runner() == Runner::Terminal));
    }
}
