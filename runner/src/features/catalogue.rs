//! The features a server author builds on, each named by the probes that show it. Every page,
//! table and query that speaks of features reads this list.

use super::{Feature, Group, Path};

/// The paths of a feature shown one way only: one, without a name.
macro_rules! one {
    ($probes:expr) => {
        &[Path { name: "", short: "", probes: $probes }]
    };
}

/// Every feature, in the order the matrix shows them.
pub const FEATURES: &[Feature] = &[
    // Tools
    Feature {
        id: "tools",
        title: "Tools listed and called",
        group: Group::Tools,
        question: "Are the server's tools listed (every page) and called?",
        paths: one!(&["tools.list", "tools.pagination"]),
        also: &["affordances.tool_names", "tools.session_survives_rpc_error"],
        terms: &["tools/list", "tools/call", "function calling"],
    },
    Feature {
        id: "tool-names",
        title: "Tool names with dots, dashes, 128 characters",
        group: Group::Tools,
        question: "Can tool names use dots, dashes and the full 128 characters?",
        paths: one!(&["tools.name_dots", "tools.name_dashes", "tools.name_128_chars"]),
        also: &[],
        terms: &["naming", "namespace"],
    },
    Feature {
        id: "tool-schemas",
        title: "Tool input schemas reach the model intact",
        group: Group::Tools,
        question: "Does the model see the tool's JSON Schema as written ($ref, unions, oneOf, tuples, formats, patterns)?",
        paths: one!(&[
            "affordances.tool_schemas",
            "affordances.schema_refs_resolvable",
            "affordances.schema_union_kept",
            "affordances.schema_format_kept",
            "affordances.schema_nested_kept",
            "affordances.schema_closed_kept",
            "affordances.schema_one_of_kept",
            "affordances.schema_tuple_kept",
            "affordances.schema_const_kept",
            "affordances.schema_pattern_kept",
            "affordances.schema_enum_kept",
            "affordances.schema_arguments_intact",
        ]),
        also: &["affordances.tool_descriptions", "affordances.schema_remote_ref_not_fetched"],
        terms: &["inputSchema", "json schema", "arguments"],
    },
    Feature {
        id: "structured-content",
        title: "Structured tool results",
        group: Group::Tools,
        question: "Do structuredContent results reach the model, and are results that break their outputSchema caught?",
        paths: one!(&["affordances.structured_content", "affordances.output_schema_enforced"]),
        also: &["affordances.image_beside_structured"],
        terms: &["structuredContent", "outputSchema"],
    },
    Feature {
        id: "images-to-model",
        title: "Images in tool results",
        group: Group::Tools,
        question: "Does an image a tool returns reach the model as an image?",
        paths: one!(&["affordances.image_to_model", "affordances.image_beside_structured"]),
        also: &[],
        terms: &["image content", "vision", "picture"],
    },
    Feature {
        id: "audio-to-model",
        title: "Audio in tool results",
        group: Group::Tools,
        question: "Does audio a tool returns reach the model?",
        paths: one!(&["affordances.audio_to_model"]),
        also: &[],
        terms: &["audio content", "sound"],
    },
    Feature {
        id: "embedded-resources",
        title: "Embedded resources in tool results",
        group: Group::Tools,
        question: "Does an embedded resource in a tool result reach the model?",
        paths: one!(&["affordances.embedded_resource_to_model"]),
        also: &[],
        terms: &["EmbeddedResource", "resource content"],
    },
    Feature {
        id: "tool-errors",
        title: "Tool errors reach the model",
        group: Group::Tools,
        question: "Does the model learn that a call failed (isError, a JSON-RPC error, a missing resource)?",
        paths: one!(&["affordances.is_error_to_model", "affordances.rpc_error_to_model", "affordances.resource_not_found_to_model"]),
        also: &["tools.session_survives_rpc_error"],
        terms: &["isError", "error handling"],
    },
    Feature {
        id: "content-audience",
        title: "Content annotated for the user or the assistant",
        group: Group::Tools,
        question: "Is content marked for the user only kept from the model, and content for the assistant delivered?",
        paths: one!(&["affordances.audience_user_withheld"]),
        also: &["affordances.audience_assistant_delivered"],
        terms: &["annotations", "audience"],
    },
    Feature {
        id: "large-results",
        title: "Large tool results",
        group: Group::Tools,
        question: "Does a large tool result reach the model whole, or marked as cut?",
        paths: one!(&["affordances.result_size_limit"]),
        also: &[],
        terms: &["truncation", "size limit"],
    },
    // Resources
    Feature {
        id: "resources",
        title: "Resources listed and read",
        group: Group::Resources,
        question: "Are the server's resources listed (every page) and read?",
        paths: one!(&["resources.list", "resources.pagination", "resources.read_text"]),
        also: &[],
        terms: &["resources/list", "resources/read"],
    },
    Feature {
        id: "resources-to-model",
        title: "The model can read resources",
        group: Group::Resources,
        question: "Does the host give its model a tool that reads the server's resources, and does the text reach the model?",
        paths: one!(&["affordances.read_tool", "affordances.read_reaches_server", "affordances.text_to_model"]),
        also: &["affordances.list_tool", "affordances.server_param", "affordances.resources_gated"],
        terms: &["resource tool", "read_resource", "context"],
    },
    Feature {
        id: "binary-resources",
        title: "Binary resources",
        group: Group::Resources,
        question: "Are binary (blob) resources read, and do their bytes reach the model?",
        paths: one!(&["resources.read_blob", "affordances.blob_to_model"]),
        also: &[],
        terms: &["blob", "base64", "binary"],
    },
    Feature {
        id: "resource-templates",
        title: "Resource templates",
        group: Group::Resources,
        question: "Are resource templates listed, and can an expanded templated URI be read (by the client or its model)?",
        paths: &[
            Path { name: "by the client", short: "client", probes: &["resources.templates_list", "resources.template_read"] },
            Path { name: "by the model", short: "model", probes: &["resources.templates_list", "affordances.template_read"] },
        ],
        also: &["affordances.template_list_tool"],
        terms: &["resourceTemplates", "uri template", "RFC 6570"],
    },
    Feature {
        id: "resource-links",
        title: "Resource links in tool results",
        group: Group::Resources,
        question: "Is a resource_link a tool returns followed?",
        paths: one!(&["resources.link_followed"]),
        also: &[],
        terms: &["resource_link", "ResourceLink"],
    },
    Feature {
        id: "subscriptions",
        title: "Resource subscriptions",
        group: Group::Resources,
        question: "Does the client subscribe to a resource (or listen, 2026-07-28) and re-read it when told it changed?",
        paths: one!(&["subscriptions.subscribe", "subscriptions.reread", "subscriptions.listen"]),
        also: &["subscriptions.unsubscribe", "subscriptions.listen_reopen", "subscriptions.respects_capability", "subscriptions.failure_backoff"],
        terms: &["resources/subscribe", "notifications/resources/updated", "subscriptions/listen"],
    },
    Feature {
        id: "list-changed",
        title: "List changes followed",
        group: Group::Resources,
        question: "When the server says its tools, resources or prompts changed, are they fetched again?",
        paths: one!(&["tools.list_changed", "resources.list_changed", "prompts.list_changed"]),
        also: &[],
        terms: &["listChanged", "list_changed", "notifications/tools/list_changed"],
    },
    // Prompts
    Feature {
        id: "prompts",
        title: "Prompts",
        group: Group::Prompts,
        question: "Are the server's prompts listed and fetched with arguments?",
        paths: one!(&["prompts.list", "prompts.get"]),
        also: &[],
        terms: &["prompts/list", "prompts/get", "slash command"],
    },
    // Skills
    Feature {
        id: "skills",
        title: "Skills (SEP-2640)",
        group: Group::Skills,
        question: "Does the client list the server's skills, get one and read its files?",
        paths: one!(&["skills.list", "skills.get", "skills.read_files"]),
        also: &["skills.pagination", "skills.get_unlisted", "skills.no_prefetch", "skills.directory_read", "skills.directory_undeclared", "skills.directory_manifest_only"],
        terms: &["SEP-2640", "skills/list", "skills/get", "agent skills"],
    },
    Feature {
        id: "skills-integrity",
        title: "Skill integrity checks",
        group: Group::Skills,
        question: "Does the client refuse a skill whose manifest lies (digest, size, frontmatter, paths, limits, names)?",
        paths: one!(&[
            "skills.verify_digest",
            "skills.verify_size",
            "skills.verify_frontmatter",
            "skills.unlisted_file",
            "skills.path_escape",
            "skills.manifest_limits",
            "skills.name_mismatch",
            "skills.same_name",
        ]),
        also: &[],
        terms: &["SEP-2640", "digest", "manifest", "security"],
    },
    // Elicitation
    Feature {
        id: "elicitation-forms",
        title: "Form elicitation",
        group: Group::Elicitation,
        question: "Can the server ask for input with a form and get typed values back?",
        paths: &[
            Path { name: "with a person at the terminal", short: "person", probes: &["interactive.form_shown", "interactive.accept_typed"] },
            Path { name: "headless", short: "headless", probes: &["elicitation.form"] },
        ],
        also: &["interactive.defaults_prefilled", "interactive.decline", "interactive.cancel", "interactive.form_withdrawn"],
        terms: &["elicitation/create", "elicitation", "form", "user input"],
    },
    Feature {
        id: "enum-elicitation",
        title: "Enum elicitation (single and multi-select)",
        group: Group::Elicitation,
        question: "Are enum fields (titled or not, single or multi-select, legacy enumNames) shown and sent as their values?",
        paths: &[
            Path {
                name: "with a person at the terminal",
                short: "person",
                probes: &[
                    "interactive.enum_untitled_single",
                    "interactive.enum_titled_single",
                    "interactive.enum_untitled_multi",
                    "interactive.enum_titled_multi",
                    "interactive.enum_legacy_names",
                ],
            },
            Path {
                name: "headless",
                short: "headless",
                probes: &[
                    "elicitation.enum_untitled_single",
                    "elicitation.enum_titled_single",
                    "elicitation.enum_untitled_multi",
                    "elicitation.enum_titled_multi",
                    "elicitation.enum_legacy_names",
                ],
            },
        ],
        also: &[],
        terms: &["elicitation enum", "enum", "select", "enumNames", "oneOf"],
    },
    Feature {
        id: "form-validation",
        title: "Form answers checked before they are sent",
        group: Group::Elicitation,
        question: "Does the host enforce required fields, string formats and number bounds before accepting?",
        paths: one!(&["interactive.required_enforced", "interactive.format_enforced", "interactive.bounds_enforced"]),
        also: &[],
        terms: &["elicitation validation", "required", "format", "minimum", "maximum"],
    },
    Feature {
        id: "url-elicitation",
        title: "URL elicitation",
        group: Group::Elicitation,
        question: "Can the server send the user to a URL (shown, opened only with consent, not fetched by the client)?",
        paths: &[
            Path { name: "with a person at the terminal", short: "person", probes: &["interactive.url_shown", "interactive.url_consent"] },
            Path { name: "headless", short: "headless", probes: &["elicitation.url"] },
        ],
        also: &["elicitation.url_not_prefetched"],
        terms: &["elicitation url", "url mode", "consent"],
    },
    Feature {
        id: "multi-round-trip",
        title: "Multi round-trip requests (2026-07-28)",
        group: Group::Elicitation,
        question: "Does the client answer an InputRequiredResult by retrying with the inputs and the request state?",
        paths: one!(&["elicitation.mrtr_retry", "elicitation.mrtr_multiple_inputs"]),
        also: &[],
        terms: &["MRTR", "InputRequiredResult", "requestState"],
    },
    // Sampling and roots
    Feature {
        id: "sampling",
        title: "Sampling",
        group: Group::Sampling,
        question: "Does the client answer sampling/createMessage with its model, honouring the request?",
        paths: one!(&["sampling.create_message", "sampling.model_preferences", "sampling.system_prompt_to_model", "sampling.max_tokens_respected"]),
        also: &[],
        terms: &["sampling/createMessage", "llm", "completion"],
    },
    Feature {
        id: "sampling-tools",
        title: "Sampling with tools",
        group: Group::Sampling,
        question: "Does sampling honour tools the server passes along (2025-11-25)?",
        paths: one!(&["sampling.tools"]),
        also: &[],
        terms: &["sampling tools", "toolChoice"],
    },
    Feature {
        id: "roots",
        title: "Roots",
        group: Group::Sampling,
        question: "Does the client tell the server its roots?",
        paths: one!(&["roots.list"]),
        also: &[],
        terms: &["roots/list", "workspace", "directories"],
    },
    // Long calls
    Feature {
        id: "progress",
        title: "Progress",
        group: Group::LongCalls,
        question: "Does the client ask for progress, and does progress keep a long call alive?",
        paths: one!(&["utilities.progress_token", "utilities.progress_keepalive"]),
        also: &[],
        terms: &["progressToken", "notifications/progress"],
    },
    Feature {
        id: "timeouts",
        title: "Timeouts",
        group: Group::LongCalls,
        question: "Does the client give up on a call that never answers?",
        paths: one!(&["utilities.call_timeout"]),
        also: &["utilities.progress_keepalive"],
        terms: &["timeout", "hang"],
    },
    Feature {
        id: "cancellation",
        title: "Cancellation",
        group: Group::LongCalls,
        question: "Is a call the client gave up on cancelled at the server?",
        paths: one!(&["utilities.cancel_on_timeout"]),
        also: &[],
        terms: &["notifications/cancelled", "cancel"],
    },
    Feature {
        id: "tasks",
        title: "Tasks",
        group: Group::LongCalls,
        question: "Does the client call a task-requiring tool as a task and follow it to its result?",
        paths: one!(&["tasks.augmented_call", "tasks.followed", "tasks.result_fetched", "tasks.result_to_model"]),
        also: &["tasks.poll_interval", "tasks.input_answered", "tasks.cancel", "tasks.failed_to_model", "tasks.mcp_name_header"],
        terms: &["tasks/get", "tasks/result", "long-running", "async"],
    },
    Feature {
        id: "logging",
        title: "Logging level",
        group: Group::LongCalls,
        question: "Does the client set the server's logging level?",
        paths: one!(&["utilities.set_level"]),
        also: &[],
        terms: &["logging/setLevel", "log"],
    },
    // Apps
    Feature {
        id: "apps",
        title: "MCP Apps (ui:// views)",
        group: Group::Apps,
        question: "Does the host show a tool's ui:// view and hand it the result, keeping view-only tools from the model?",
        paths: one!(&["apps.ui_resource_read", "apps.view_receives_result"]),
        also: &["apps.ui_tool_text_to_model", "apps.app_only_tool_hidden"],
        terms: &["MCP Apps", "ui://", "SEP-1865", "widget", "view"],
    },
    // Authorization
    Feature {
        id: "oauth",
        title: "OAuth sign-in",
        group: Group::Auth,
        question: "Does the client sign in to a protected server (metadata discovery, registration, PKCE, bearer token)?",
        paths: &[
            Path {
                name: "dynamic client registration",
                short: "DCR",
                probes: &["auth.prm_discovery", "auth.as_metadata_order", "auth.registration", "auth.pkce_s256", "auth.resource_indicator", "auth.bearer_header"],
            },
            Path {
                name: "client ID metadata document",
                short: "CIMD",
                probes: &["auth.prm_discovery", "auth.as_metadata_order", "auth.client_id_document", "auth.pkce_s256", "auth.resource_indicator", "auth.bearer_header"],
            },
        ],
        also: &["auth.prm_well_known", "auth.state", "auth.scope_selection"],
        terms: &["oauth", "auth", "authorization", "login", "sign in", "token", "PKCE", "DCR", "CIMD"],
    },
    Feature {
        id: "oauth-refresh-step-up",
        title: "Token refresh and step-up",
        group: Group::Auth,
        question: "Is an expired token refreshed, and does insufficient_scope lead to a wider authorization?",
        paths: one!(&["auth.refresh", "auth.step_up"]),
        also: &[],
        terms: &["oauth", "auth", "refresh_token", "insufficient_scope", "scope"],
    },
    Feature {
        id: "oauth-safety",
        title: "OAuth safety checks",
        group: Group::Auth,
        question: "Does the client refuse a wrong issuer and keep tokens to the server they were issued for?",
        paths: one!(&["auth.iss_validated", "auth.token_audience"]),
        also: &[],
        terms: &["oauth", "auth", "iss", "audience", "mix-up", "security"],
    },
    // Connection and transport
    Feature {
        id: "instructions",
        title: "Server instructions",
        group: Group::Connection,
        question: "Do the server's instructions reach the model?",
        paths: one!(&["connection.instructions"]),
        also: &[],
        terms: &["instructions", "system prompt"],
    },
    Feature {
        id: "protocol-basics",
        title: "Protocol basics",
        group: Group::Connection,
        question: "Does the client open and keep a session as the specification says (valid frames, ping, unknown messages)?",
        paths: one!(&[
            "connection.initialized",
            "connection.client_info",
            "wire.client_frames_valid",
            "utilities.ping",
            "utilities.unknown_request_answered",
            "utilities.unknown_notification_tolerated",
        ]),
        also: &["connection.request_meta", "connection.result_type_default"],
        terms: &["initialize", "lifecycle", "schema", "json-rpc", "handshake"],
    },
    Feature {
        id: "version-negotiation",
        title: "Version negotiation",
        group: Group::Connection,
        question: "Does the client go on in the older version a server offers, and (a 2026-07-28 client) fall back to initialize when server/discover fails?",
        paths: one!(&[
            "connection.version_downgrade",
            "connection.discover_fallback",
            "connection.discover_fallback_any_error",
            "connection.discover_http_error_fallback",
            "connection.discover_timeout_fallback",
            "connection.unsupported_version_retry",
        ]),
        also: &[],
        terms: &["protocolVersion", "server/discover", "2026-07-28", "downgrade"],
    },
    Feature {
        id: "streamable-http",
        title: "Streamable HTTP",
        group: Group::Connection,
        question: "Does the client speak Streamable HTTP as specified (headers, session id, streams, JSON answers)?",
        paths: one!(&[
            "http.post_accept",
            "http.protocol_version_header",
            "http.session_id_echoed",
            "http.get_stream",
            "http.json_responses",
            "http.priming_events",
            "http.standard_headers",
        ]),
        also: &["http.delete_on_exit"],
        terms: &["http", "sse", "Mcp-Session-Id", "MCP-Protocol-Version", "transport"],
    },
    Feature {
        id: "http-recovery",
        title: "HTTP session recovery",
        group: Group::Connection,
        question: "Does the client start again after the session expires, and resume a dropped stream?",
        paths: one!(&["http.session_expiry", "http.resumption"]),
        also: &[],
        terms: &["Last-Event-ID", "resumability", "404", "reconnect"],
    },
];

#[cfg(test)]
mod tests {
    use super::FEATURES;

    /// A path's probes are evidence that the feature works. A probe that says yes when the client
    /// does nothing (a URL not fetched, user-only content not shown to a model that got nothing)
    /// belongs under `also`, or a client without the feature would read as partly supporting it.
    #[test]
    fn no_path_rests_on_a_probe_that_holds_when_nothing_is_done() {
        let holds_when_idle = [
            "elicitation.url_not_prefetched",
            "skills.no_prefetch",
            "affordances.audience_assistant_delivered",
            "apps.app_only_tool_hidden",
            "affordances.schema_remote_ref_not_fetched",
            "subscriptions.respects_capability",
        ];
        for feature in FEATURES {
            for path in feature.paths {
                for probe in path.probes {
                    assert!(!holds_when_idle.contains(probe), "{}: {probe} belongs under also", feature.id);
                }
            }
        }
    }
}
