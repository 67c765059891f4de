//! Ablations: one switch per probe that removes or breaks the feature that probe looks at.
//! The self-test proves every probe discriminates by running the reference client with each.

use std::fmt;

macro_rules! ablations {
    ($($variant:ident => $id:literal, $target:literal, $what:literal;)*) => {
        /// A feature of the reference client removed or broken.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Ablation { $($variant),* }

        impl Ablation {
            pub const ALL: &'static [Ablation] = &[$(Ablation::$variant),*];

            /// Stable kebab-case name.
            pub fn id(self) -> &'static str {
                match self { $(Ablation::$variant => $id),* }
            }

            /// The probe this ablation must turn away from yes.
            pub fn target(self) -> &'static str {
                match self { $(Ablation::$variant => $target),* }
            }

            /// What the reference client does differently, in plain words.
            pub fn description(self) -> &'static str {
                match self { $(Ablation::$variant => $what),* }
            }
        }
    };
}

impl Ablation {
    /// Whether the ablated client may fail to open its session at all (the failure is the
    /// ablation's effect, not the harness's).
    pub fn may_break_the_session(self) -> bool {
        matches!(
            self,
            Ablation::ChokeOnPriming
                | Ablation::ChokeOnJson
                | Ablation::RequiresSessionId
                | Ablation::StreamNeedsSession
                | Ablation::AcceptJsonOnly
                | Ablation::NoDiscoverFallback
                | Ablation::NoFallForward
                | Ablation::FallbackOnMethodNotFoundOnly
                | Ablation::FallbackOnJsonRpcErrorOnly
                | Ablation::NoDiscoverTimeout
                | Ablation::RequireResultType
                | Ablation::RetryUnlistedVersion
                | Ablation::LegacyAuthDiscovery
                | Ablation::NoWellKnownFallback
                | Ablation::Rfc8414Only
                | Ablation::NoClientIdDocument
                | Ablation::TokenInQuery
                | Ablation::UnregisteredRedirect
        )
    }
}

ablations! {
    SkipInitialized => "skip-initialized", "connection.initialized", "never sends notifications/initialized";
    BlankClientInfo => "blank-client-info", "connection.client_info", "sends clientInfo with an empty name";
    UntitledClientInfo => "untitled-client-info", "connection.client_title", "sends clientInfo without its title";
    InvalidProgressToken => "invalid-progress-token", "wire.client_frames_valid", "sends tools/list with a progressToken of true (the schema allows a string or an integer)";
    IgnoreDowngrade => "ignore-downgrade", "connection.version_downgrade", "calls server/discover after being offered a legacy version";
    NoDiscoverFallback => "no-discover-fallback", "connection.discover_fallback", "gives up when server/discover is refused instead of sending initialize";
    FallbackOnMethodNotFoundOnly => "fallback-on-method-not-found-only", "connection.discover_fallback_any_error", "falls back to initialize only when server/discover is refused with -32601";
    FallbackOnJsonRpcErrorOnly => "fallback-on-json-rpc-error-only", "connection.discover_http_error_fallback", "falls back to initialize only when server/discover gets a JSON-RPC error, not an HTTP error without one";
    RetryUnlistedVersion => "retry-unlisted-version", "connection.unsupported_version_retry", "after -32022 sends initialize with a version the server did not list";
    RequireResultType => "require-result-type", "connection.result_type_default", "refuses a 2026-07-28 result without resultType (rmcp's own discover does)";
    NoDiscoverTimeout => "no-discover-timeout", "connection.discover_timeout_fallback", "waits for an answer to server/discover without a timeout of its own (and ends its run after 1 s)";
    DropClientInfoMeta => "drop-client-info-meta", "connection.request_meta", "leaves clientInfo out of _meta after the opening request";
    SkipToolsList => "skip-tools-list", "tools.list", "never lists tools";
    ToolsFirstPageOnly => "tools-first-page-only", "tools.pagination", "ignores nextCursor on tools/list";
    IgnoreToolsListChanged => "ignore-tools-list-changed", "tools.list_changed", "does not refetch tools on list_changed";
    SkipResourcesList => "skip-resources-list", "resources.list", "never lists resources";
    ResourcesFirstPageOnly => "resources-first-page-only", "resources.pagination", "ignores nextCursor on resources/list";
    SkipTextRead => "skip-text-read", "resources.read_text", "never reads the text resource";
    SkipBlobRead => "skip-blob-read", "resources.read_blob", "never reads the binary resource";
    SkipTemplatesList => "skip-templates-list", "resources.templates_list", "never lists resource templates";
    SkipTemplateRead => "skip-template-read", "resources.template_read", "never reads an expanded template URI";
    SkipLinkFollow => "skip-link-follow", "resources.link_followed", "does not follow resource_link";
    NeverSubscribe => "never-subscribe", "subscriptions.subscribe", "never subscribes to a resource";
    NoReread => "no-reread", "subscriptions.reread", "ignores notifications/resources/updated";
    NoUnsubscribe => "no-unsubscribe", "subscriptions.unsubscribe", "never unsubscribes";
    SubscribeUnadvertised => "subscribe-unadvertised", "subscriptions.respects_capability", "subscribes although the server does not advertise resources.subscribe";
    SubscribeRetryStorm => "subscribe-retry-storm", "subscriptions.failure_backoff", "retries a failed subscription 30 times at once";
    NeverListSkills => "never-list-skills", "skills.list", "never lists skills";
    SkillsFirstPageOnly => "skills-first-page-only", "skills.pagination", "ignores nextCursor on skills/list";
    SkipSkillsGet => "skip-skills-get", "skills.get", "acts on listed entries without skills/get";
    IgnoreInstructionsSkill => "ignore-instructions-skill", "skills.get_unlisted", "ignores the skill the instructions name";
    NeverReadSkillFiles => "never-read-skill-files", "skills.read_files", "never reads a skill file";
    PrefetchSkills => "prefetch-skills", "skills.no_prefetch", "reads every file of the idle skill right after listing";
    SkipDirectoryRead => "skip-directory-read", "skills.directory_read", "never lists a skill directory";
    DirectoryReadUndeclared => "directory-read-undeclared", "skills.directory_undeclared", "lists a skill directory although directoryRead is not declared";
    ReadDirectoryChildren => "read-directory-children", "skills.directory_manifest_only", "reads every child a directory lists, in the manifest or not";
    SkipDigestCheck => "skip-digest-check", "skills.verify_digest", "does not check SKILL.md digests";
    SkipSizeCheck => "skip-size-check", "skills.verify_size", "does not check SKILL.md sizes";
    SkipFrontmatterCheck => "skip-frontmatter-check", "skills.verify_frontmatter", "does not compare SKILL.md frontmatter with the entry";
    ReadUnlisted => "read-unlisted", "skills.unlisted_file", "reads a file SKILL.md names although the manifest omits it";
    FollowTraversal => "follow-traversal", "skills.path_escape", "accepts manifest paths outside the skill and reads them";
    IgnoreLimits => "ignore-limits", "skills.manifest_limits", "accepts manifests over 512 files or 16 MiB";
    IgnoreNameMismatch => "ignore-name-mismatch", "skills.name_mismatch", "accepts a name that differs from the URI segment";
    OneTwinOnly => "one-twin-only", "skills.same_name", "acts on only the first of two skills with the same name";
    NeverListen => "never-listen", "subscriptions.listen", "never opens subscriptions/listen";
    NoRelisten => "no-relisten", "subscriptions.listen_reopen", "does not listen again when the server ends the stream";
    IgnoreResourcesListChanged => "ignore-resources-list-changed", "resources.list_changed", "does not refetch resources on list_changed";
    SkipPromptsList => "skip-prompts-list", "prompts.list", "never lists prompts";
    SkipPromptsGet => "skip-prompts-get", "prompts.get", "never fetches a prompt";
    IgnorePromptsListChanged => "ignore-prompts-list-changed", "prompts.list_changed", "does not refetch prompts on list_changed";
    ElicitAutoDecline => "elicit-auto-decline", "elicitation.form", "declines the form at once, nobody asked";
    EnumUntitledSingleInvalid => "enum-untitled-single-invalid", "elicitation.enum_untitled_single", "answers a value outside the enum";
    EnumTitledSingleTitle => "enum-titled-single-title", "elicitation.enum_titled_single", "answers the title instead of the const";
    EnumMultiAsString => "enum-multi-as-string", "elicitation.enum_untitled_multi", "answers a multi-select with one string";
    EnumTitledMultiTitle => "enum-titled-multi-title", "elicitation.enum_titled_multi", "answers titles instead of consts";
    EnumLegacyName => "enum-legacy-name", "elicitation.enum_legacy_names", "answers the enumName instead of the value";
    UrlUnsupported => "url-unsupported", "elicitation.url", "answers URL-mode elicitation with an error";
    PrefetchUrl => "prefetch-url", "elicitation.url_not_prefetched", "fetches a URL-mode elicitation's URL itself before it answers";
    StateOnlyIsFinal => "state-only-is-final", "elicitation.mrtr_state_only", "takes an input_required that asks for nothing (a requestState only) as the call's failure";
    AlterRequestState => "alter-request-state", "elicitation.mrtr_retry", "re-encodes requestState on the retry";
    FirstInputOnly => "first-input-only", "elicitation.mrtr_multiple_inputs", "answers only the first of several inputRequests on the retry";
    SamplingError => "sampling-error", "sampling.create_message", "answers sampling with an error";
    RefusesIncludeContext => "refuses-include-context", "sampling.include_context", "declares sampling.context and refuses a sampling request that carries includeContext";
    SamplingRefusePreferences => "sampling-refuse-preferences", "sampling.model_preferences", "answers a sampling request that carries modelPreferences with an error";
    SamplingIgnoreTools => "sampling-ignore-tools", "sampling.tools", "answers with text although a tool is required";
    SamplingDropSystemPrompt => "sampling-drop-system-prompt", "sampling.system_prompt_to_model", "passes sampling requests on to its model without their systemPrompt";
    SamplingIgnoreMaxTokens => "sampling-ignore-max-tokens", "sampling.max_tokens_respected", "lets its model write 4,096 tokens whatever a sampling request's maxTokens";
    RootsNonFile => "roots-non-file", "roots.list", "answers roots with https URIs";
    StripProgressToken => "strip-progress-token", "utilities.progress_token", "sends tools/call without a progressToken";
    SkipSetLevel => "skip-set-level", "utilities.set_level", "never sets the log level";
    PingError => "ping-error", "utilities.ping", "answers ping with an error";
    AcceptJsonOnly => "accept-json-only", "http.post_accept", "POSTs with Accept: application/json alone (and gives up at the 406)";
    NoProtocolVersionHeader => "no-protocol-version-header", "http.protocol_version_header", "leaves MCP-Protocol-Version off its HTTP requests";
    NoGetStream => "no-get-stream", "http.get_stream", "never opens the standalone GET stream";
    NoDelete => "no-delete", "http.delete_on_exit", "leaves without DELETE";
    NoResourceTools => "no-resource-tools", "affordances.read_tool", "offers its model no resource tools";
    NoListTool => "no-list-tool", "affordances.list_tool", "offers no resource-list tool";
    NoTemplateTool => "no-template-tool", "affordances.template_list_tool", "offers no template-list tool";
    ServerOptional => "server-optional", "affordances.server_param", "makes the read tool's server parameter optional";
    ReadFromCache => "read-from-cache", "affordances.read_reaches_server", "answers the model's read of the text resource from its listing";
    DropText => "drop-text", "affordances.text_to_model", "hands the model a placeholder instead of text content";
    DropBlobs => "drop-blobs", "affordances.blob_to_model", "hands the model a placeholder instead of binary content";
    ListedUrisOnly => "listed-uris-only", "affordances.template_read", "refuses to read URIs it never listed";
    NoInstructions => "no-instructions", "connection.instructions", "leaves the server's instructions out of the model's context";
    FetchRemoteRefs => "fetch-remote-refs", "affordances.schema_remote_ref_not_fetched", "fetches every tool schema's network $ref before it offers the tools";
    HideSomeTools => "hide-some-tools", "affordances.tool_names", "offers its model only half of the MCP tools";
    AlterSchemas => "alter-schemas", "affordances.tool_schemas", "changes the input schemas it offers";
    DropDescriptions => "drop-descriptions", "affordances.tool_descriptions", "offers MCP tools without their descriptions";
    DropDualResults => "drop-dual-results", "affordances.structured_content", "hands the model neither content nor structuredContent when a tool returns both";
    ImagePlaceholder => "image-placeholder", "affordances.image_to_model", "hands the model words in place of a tool result's picture";
    ImageAsBase64Text => "image-as-base64-text", "affordances.image_to_model", "hands the model a tool result's picture as its base64 inside the result's text";
    DropAudio => "drop-audio", "affordances.audio_to_model", "drops a tool result's sound without a word";
    DropEmbeddedBlob => "drop-embedded-blob", "affordances.embedded_resource_to_model", "hands the model a tool result's embedded text but not its embedded blob";
    ErrorAsOrdinary => "error-as-ordinary", "affordances.is_error_to_model", "hands the model an isError result as an ordinary one";
    RpcErrorUnsaid => "rpc-error-unsaid", "affordances.rpc_error_to_model", "tells the model a tool call failed without the server's error message";
    ResourceErrorUnsaid => "resource-error-unsaid", "affordances.resource_not_found_to_model", "tells the model a resource read failed without the server's error message";
    SkipOutputValidation => "skip-output-validation", "affordances.output_schema_enforced", "hands the model structuredContent without checking it against the tool's output schema";
    KeepUserAudience => "keep-user-audience", "affordances.audience_user_withheld", "hands the model content annotated for the user only";
    DropAnnotatedBlocks => "drop-annotated-blocks", "affordances.audience_assistant_delivered", "drops every content block that carries annotations";
    StructuredOnly => "structured-only", "affordances.image_beside_structured", "hands the model only structuredContent when a result has it";
    DropSchemaDefs => "drop-schema-defs", "affordances.schema_refs_resolvable", "offers input schemas without their $defs, the $refs into them left dangling";
    CollapseUnions => "collapse-unions", "affordances.schema_union_kept", "offers each anyOf of an input schema as its first branch alone";
    DropFormats => "drop-formats", "affordances.schema_format_kept", "offers input schemas without their format keywords";
    FlattenNested => "flatten-nested", "affordances.schema_nested_kept", "offers objects nested in an input schema's properties without their own properties";
    OpenObjects => "open-objects", "affordances.schema_closed_kept", "offers input schemas without additionalProperties";
    OneOfFirstBranch => "one-of-first-branch", "affordances.schema_one_of_kept", "offers each oneOf of an input schema as its first branch alone";
    DropPrefixItems => "drop-prefix-items", "affordances.schema_tuple_kept", "offers input schemas without their prefixItems keywords";
    DropConsts => "drop-consts", "affordances.schema_const_kept", "offers input schemas without their const keywords";
    DropPatterns => "drop-patterns", "affordances.schema_pattern_kept", "offers input schemas without their pattern keywords";
    DropEnums => "drop-enums", "affordances.schema_enum_kept", "offers input schemas without their enum keywords";
    DropNullArguments => "drop-null-arguments", "affordances.schema_arguments_intact", "leaves the model's null arguments out of the tool call";
    DotsToUnderscores => "dots-to-underscores", "tools.name_dots", "calls the server's tools by their names with every dot made an underscore";
    DashesToUnderscores => "dashes-to-underscores", "tools.name_dashes", "calls the server's tools by their names with every dash made an underscore";
    NamesCutTo64 => "names-cut-to-64", "tools.name_128_chars", "calls the server's tools by their names cut to 64 characters";
    TruncateResultsSilently => "truncate-results-silently", "affordances.result_size_limit", "cuts every tool result to its first 50,000 bytes without a word";
    HideUiTools => "hide-ui-tools", "apps.ui_tool_text_to_model", "keeps every tool that names a ui:// view from its model";
    OfferAppOnlyTools => "offer-app-only-tools", "apps.app_only_tool_hidden", "offers its model the tools whose _meta.ui.visibility leaves out the model";
    NeverReadViews => "never-read-views", "apps.ui_resource_read", "never reads a tool's ui:// view, so it runs none";
    ViewWithoutStructuredContent => "view-without-structured-content", "apps.view_receives_result", "hands a view the tool's result without its structuredContent";
    NoTaskAugmentation => "no-task-augmentation", "tasks.augmented_call", "calls a tool that requires a task without params.task (2025-11-25)";
    IgnoreTasks => "ignore-tasks", "tasks.followed", "takes the task a call is answered with for the call's result and never asks about it";
    BusyPollTasks => "busy-poll-tasks", "tasks.poll_interval", "asks tasks/get every 10 ms, two at once, whatever pollIntervalMs says";
    StopPollingEarly => "stop-polling-early", "tasks.result_fetched", "asks tasks/get about a task once, then stops, without cancelling it";
    IgnoreTaskInput => "ignore-task-input", "tasks.input_answered", "never answers a task's input request";
    NeverCancelTasks => "never-cancel-tasks", "tasks.cancel", "gives up on a task without tasks/cancel";
    TaskResultWithheld => "task-result-withheld", "tasks.result_to_model", "tells its model a task completed without its result";
    TaskFailureHidden => "task-failure-hidden", "tasks.failed_to_model", "hands its model an empty result for a task that failed";
    NoTaskNameHeader => "no-task-name-header", "tasks.mcp_name_header", "leaves Mcp-Name off its tasks/get, tasks/update and tasks/cancel";
    AcceptsMissingIss => "accepts-missing-iss", "auth.iss_missing_refused", "redeems a code whose authorization response carries no iss, though the metadata promised one";
    IgnoresPkceSupport => "ignores-pkce-support", "auth.pkce_support_checked", "authorizes with an authorization server that names no PKCE method";
    NoScopeFallback => "no-scope-fallback", "auth.scope_fallback", "asks for no scope when the 401 names none";
    RegistersCodeGrantOnly => "registers-code-grant-only", "auth.refresh_grant_registered", "registers the authorization_code grant alone, and refreshes all the same";
    UnregisteredRedirect => "unregistered-redirect", "auth.redirect_registered", "registers one redirect URI and authorizes with another";
    NoClientIdOnToken => "no-client-id-on-token", "auth.token_client_id", "leaves client_id off its authorization-code grant";
    ShortCodeVerifier => "short-code-verifier", "auth.pkce_verifier_format", "sends a PKCE code verifier of 22 characters, shorter than RFC 7636's 43";
    LocalhostRedirect => "localhost-redirect", "auth.redirect_loopback_ip", "registers and sends a redirect URI on localhost instead of the loopback IP it listens on";
    KeepsFirstRefreshToken => "keeps-first-refresh-token", "auth.refresh_token_rotated", "keeps presenting the first refresh token it was handed, though each refresh hands a new one";
    BadMetaKey => "bad-meta-key", "connection.meta_keys_well_formed", "sends a ping whose _meta key begins with a dash";
    UnprefixedExtension => "unprefixed-extension", "connection.extension_ids_well_formed", "declares an extension named without a vendor prefix";
    AsksUnadvertisedEvents => "asks-unadvertised-events", "events.unadvertised_not_asked", "asks events/list of a server that offers no events";
    NoEventsList => "no-events-list", "events.listed", "never asks events/list";
    PollsFromMadeUpCursor => "polls-from-made-up-cursor", "events.poll_starts_from_now", "opens its poll subscription with a cursor the server never gave";
    StaleEventCursor => "stale-event-cursor", "events.cursor_carried", "polls with the cursor handed two answers back";
    WaitsOutHasMore => "waits-out-has-more", "events.backlog_drained", "waits nextPollMs after hasMore: true (and stops at an interval past 5 s)";
    IgnoresNextPollMs => "ignores-next-poll-ms", "events.interval_honoured", "polls again as soon as each answer comes";
    NoPollFloor => "no-poll-floor", "events.poll_floor", "takes nextPollMs: 0 at its word and polls again at once";
    ResetsOnTruncated => "resets-on-truncated", "events.truncated_cursor_kept", "starts again from a null cursor after a truncated page";
    ReplaysIntoUnreplayed => "replays-into-unreplayed", "events.null_cursor_kept", "polls the type without replay with a cursor of another type";
    CrossesDeliveryModes => "crosses-delivery-modes", "events.delivery_mode_respected", "polls the push-only event type";
    NoPushResume => "no-push-resume", "events.push_resumed", "closes a push stream that fell silent and never opens it again";
    OmitsEventArguments => "omits-event-arguments", "events.arguments_sent", "polls the type without replay without an arguments object";
    KeepsDeadStream => "keeps-dead-stream", "events.stale_stream_released", "opens a new push stream without cancelling the one that fell silent";
    NoWebhookRefresh => "no-webhook-refresh", "events.webhook_refreshed", "never refreshes its webhook subscription";
    AsksUnadvertisedSkills => "asks-unadvertised-skills", "skills.unadvertised_not_asked", "asks skills/list of a server that offers no skills";
    AsksUnadvertisedCompletion => "asks-unadvertised-completion", "prompts.completion_unadvertised_not_asked", "asks completion/complete of a server that declares tools only";
    AsksUnadvertisedTasks => "asks-unadvertised-tasks", "tasks.unadvertised_not_asked", "asks tasks/list of a server that offers no tasks";
    NoFallForward => "no-fall-forward", "connection.falls_forward", "opens with initialize and gives up when a 2026-07-28-only server refuses it";
    IgnoresServerIcon => "ignores-server-icon", "connection.server_icon_fetched", "never fetches the icon serverInfo names";
    IgnoresToolIcons => "ignores-tool-icons", "tools.icon_fetched", "never fetches the icons the tools list names";
    DropsTitles => "drops-titles", "affordances.tool_title_to_model", "shows its model tool descriptions without the tools' titles";
    LateDiscover => "late-discover", "connection.discover_first", "sends a tools/list ahead of its first server/discover";
    PingsModernServer => "pings-modern-server", "utilities.no_ping_to_modern", "pings a 2026-07-28 server, which has no ping";
    SetsLevelOnModern => "sets-level-on-modern", "utilities.no_set_level_to_modern", "sends logging/setLevel to a 2026-07-28 server";
    BadLogLevel => "bad-log-level", "utilities.log_level_meta_valid", "asks for log level \"verbose\", which is no logging level";
    ForeignOrigin => "foreign-origin", "http.origin_loopback", "sends one POST with Origin https://evil.example";
    CancelsInitialize => "cancels-initialize", "connection.initialize_not_cancelled", "sends notifications/cancelled for its initialize once the session is open";
    ResendsAccepted => "resends-accepted", "http.notification_accepted", "sends every notification answered 202 once more, as if it had not been delivered";
    SendsBatch => "sends-batch", "wire.no_batches", "sends a JSON-RPC batch (one notification in an array) besides its session's messages";
    NoCallTimeout => "no-call-timeout", "utilities.call_timeout", "waits on a tool call however long it takes";
    SilentTimeout => "silent-timeout", "utilities.cancel_on_timeout", "gives up on a tool call at its timeout without telling the server";
    TimeoutIgnoresProgress => "timeout-ignores-progress", "utilities.progress_keepalive", "gives up on a tool call at its timeout although progress for it keeps coming";
    DropServerOnRpcError => "drop-server-on-rpc-error", "tools.session_survives_rpc_error", "stops using a server that answered a tool call with a JSON-RPC error";
    AnswerUnknownRequest => "answer-unknown-request", "utilities.unknown_request_answered", "answers a request it does not know with an empty result";
    ChokeOnUnknownNotification => "choke-on-unknown-notification", "utilities.unknown_notification_tolerated", "ends its session at a notification it does not know";
    ResourceToolsAlways => "resource-tools-always", "affordances.resources_gated", "offers resource tools although the server has no resources";
    NoSessionHeader => "no-session-header", "http.session_id_echoed", "leaves Mcp-Session-Id off its logging/setLevel request";
    NoPromptCompletion => "no-prompt-completion", "prompts.argument_completion", "never asks the server to complete the prompt's argument";
    NoTemplateCompletion => "no-template-completion", "resources.template_completion", "never asks the server to complete the template's variable";
    NoStandardHeaders => "no-standard-headers", "http.standard_headers", "leaves Mcp-Method and Mcp-Name off its prompts/get request";
    StaleVersionHeader => "stale-version-header", "http.version_header_matches_meta", "sends MCP-Protocol-Version: 2025-11-25 on its prompts/get request, whose _meta says 2026-07-28";
    NoReinitialize => "no-reinitialize", "http.session_expiry", "gives up when its session expires";
    NoResumption => "no-resumption", "http.resumption", "reconnects a dropped stream without Last-Event-ID";
    ChokeOnJson => "choke-on-json", "http.json_responses", "refuses an answer sent as application/json, as a client that reads only event streams";
    RequiresSessionId => "requires-session-id", "http.stateless_tools_listed", "gives up when the initialize answer issues no Mcp-Session-Id (rmcp's client with allow_stateless off)";
    CallsNeedSession => "calls-need-session", "http.stateless_tool_called", "lists tools without a session but calls none, as a client that tracks its calls by session";
    InventsSessionId => "invents-session-id", "http.stateless_no_session_id", "sends an Mcp-Session-Id of its own making when the server issued none";
    GivesUpAtGet405 => "gives-up-at-get-405", "http.stateless_get_refused", "opens a GET stream after initialize and ends its session when it is refused (405)";
    VersionHeaderOnlyInSession => "version-header-only-in-session", "http.stateless_version_header", "sends MCP-Protocol-Version only alongside a session id";
    StreamNeedsSession => "stream-needs-session", "http.stateless_sse", "refuses an event-stream answer that no session holds";
    ChokeOnPriming => "choke-on-priming", "http.priming_events", "ends every SSE stream at an event with empty data, as a parser that reads the empty data as JSON does";
    TermNoMessage => "term-no-message", "interactive.form_shown", "terminal host: renders forms without their message";
    TermDropDefaults => "term-drop-defaults", "interactive.defaults_prefilled", "terminal host: every field starts empty, defaults ignored";
    TermValuesAsStrings => "term-values-as-strings", "interactive.accept_typed", "terminal host: sends numbers and booleans as strings";
    TermDeclineAsCancel => "term-decline-as-cancel", "interactive.decline", "terminal host: sends cancel when the person declines";
    TermEscDeclines => "term-esc-declines", "interactive.cancel", "terminal host: sends decline when the person presses Esc";
    TermNoRequiredCheck => "term-no-required-check", "interactive.required_enforced", "terminal host: accepts with a required field empty";
    TermEnumAsTextUntitledSingle => "term-enum-as-text-untitled-single", "interactive.enum_untitled_single", "terminal host: renders enum fields as free text";
    TermEnumAsTextTitledSingle => "term-enum-as-text-titled-single", "interactive.enum_titled_single", "terminal host: renders enum fields as free text";
    TermEnumAsTextUntitledMulti => "term-enum-as-text-untitled-multi", "interactive.enum_untitled_multi", "terminal host: renders enum fields as free text";
    TermEnumAsTextTitledMulti => "term-enum-as-text-titled-multi", "interactive.enum_titled_multi", "terminal host: renders enum fields as free text";
    TermEnumAsTextLegacy => "term-enum-as-text-legacy", "interactive.enum_legacy_names", "terminal host: renders enum fields as free text";
    TermUrlHidden => "term-url-hidden", "interactive.url_shown", "terminal host: shows URL-mode requests without the URL";
    TermOpenUrl => "term-open-url", "interactive.url_consent", "terminal host: opens the URL at once, without asking";
    TermNoFormatCheck => "term-no-format-check", "interactive.format_enforced", "terminal host: accepts a string that breaks its format";
    TermNoBoundsCheck => "term-no-bounds-check", "interactive.bounds_enforced", "terminal host: accepts a number outside its bounds";
    TermKeepsWithdrawnForm => "term-keeps-withdrawn-form", "interactive.form_withdrawn", "terminal host: keeps a withdrawn form on screen and sends the late answer";
    LegacyAuthDiscovery => "legacy-auth-discovery", "auth.prm_discovery", "on a 401 asks the MCP server's origin for authorization server metadata (as 2025-03-26 clients did) and never reads the resource metadata";
    NoWellKnownFallback => "no-well-known-fallback", "auth.prm_well_known", "gives up when the 401 names no resource metadata instead of trying the well-known locations";
    Rfc8414Only => "rfc8414-only", "auth.as_metadata_order", "looks for authorization server metadata only at oauth-authorization-server, never under OpenID discovery";
    NoRegistration => "no-registration", "auth.registration", "never registers: asks for authorization as a client id of its own making";
    NoApplicationType => "no-application-type", "auth.registration_application_type", "registers without an application_type (which OpenID Connect servers take as web)";
    NoClientIdDocument => "no-client-id-document", "auth.client_id_document", "never names itself by a client ID metadata document: posts to /register where no registration is offered";
    PkcePlain => "pkce-plain", "auth.pkce_s256", "sends its PKCE challenge with method plain";
    NoState => "no-state", "auth.state", "sends no state with its authorization request";
    NoResourceIndicator => "no-resource-indicator", "auth.resource_indicator", "leaves the resource parameter out of its authorization and token requests";
    AllScopes => "all-scopes", "auth.scope_selection", "asks for every scope the resource metadata lists, not the one the 401 named";
    TokenInQuery => "token-in-query", "auth.bearer_header", "sends its token as access_token in the query string instead of the Authorization header";
    NoStepUp => "no-step-up", "auth.step_up", "gives up on a 403 insufficient_scope instead of asking for the wider scope";
    NoRefresh => "no-refresh", "auth.refresh", "signs in again when its token expires instead of using its refresh token";
    TrustAnyIssuer => "trust-any-issuer", "auth.issuer_validated", "uses authorization server metadata whatever issuer it names";
    IgnoreIss => "ignore-iss", "auth.iss_validated", "redeems the code of an authorization response whose iss names another issuer";
    TrustAnyResource => "trust-any-resource", "auth.token_audience", "uses resource metadata that names another resource, and sends the token it gets for it";
}

/// Every interactive enum probe: one switch (enum fields as free text) turns them all.
const INTERACTIVE_ENUMS: [&str; 5] =
    ["interactive.enum_untitled_single", "interactive.enum_titled_single", "interactive.enum_untitled_multi", "interactive.enum_titled_multi", "interactive.enum_legacy_names"];

impl Ablation {
    /// The fake terminal host's switch this ablation stands for (interactive probes only).
    pub fn terminal_fault(self) -> Option<crate::reference::terminal_host::Fault> {
        use crate::reference::terminal_host::Fault;
        Some(match self {
            Ablation::TermNoMessage => Fault::NoMessage,
            Ablation::TermDropDefaults => Fault::DropDefaults,
            Ablation::TermValuesAsStrings => Fault::ValuesAsStrings,
            Ablation::TermDeclineAsCancel => Fault::DeclineAsCancel,
            Ablation::TermEscDeclines => Fault::EscDeclines,
            Ablation::TermNoRequiredCheck => Fault::NoRequiredCheck,
            Ablation::TermEnumAsTextUntitledSingle
            | Ablation::TermEnumAsTextTitledSingle
            | Ablation::TermEnumAsTextUntitledMulti
            | Ablation::TermEnumAsTextTitledMulti
            | Ablation::TermEnumAsTextLegacy => Fault::EnumAsText,
            Ablation::TermUrlHidden => Fault::UrlHidden,
            Ablation::TermOpenUrl => Fault::OpenUrl,
            Ablation::TermKeepsWithdrawnForm => Fault::KeepsWithdrawnForm,
            Ablation::TermNoFormatCheck | Ablation::TermNoBoundsCheck => Fault::NoValidation,
            _ => return None,
        })
    }

    /// Probes that depend on the ablated feature and may change with it (you cannot follow a
    /// cursor of a list you never fetch). Every other probe must keep its outcome.
    pub fn collateral(self) -> &'static [&'static str] {
        /// The skills probes that need a host to act on what it read.
        const ACTING_ON_SKILLS: [&str; 10] = [
            "skills.directory_read",
            "skills.directory_manifest_only",
            "skills.verify_digest",
            "skills.verify_size",
            "skills.verify_frontmatter",
            "skills.unlisted_file",
            "skills.path_escape",
            "skills.manifest_limits",
            "skills.name_mismatch",
            "skills.same_name",
        ];
        /// The skills probes that need a listing: paging, getting and reading, and all of the above.
        const LISTING_SKILLS: [&str; 14] = {
            let first = ["skills.pagination", "skills.get", "skills.read_files", "skills.no_prefetch"];
            let mut all = [""; 14];
            let mut i = 0;
            while i < all.len() {
                all[i] = if i < first.len() { first[i] } else { ACTING_ON_SKILLS[i - first.len()] };
                i += 1;
            }
            all
        };
        match self {
            Ablation::SkipToolsList => &["tools.pagination", "tools.icon_fetched"],
            Ablation::SkipResourcesList => &["resources.pagination"],
            // No registration, nothing to name a type in.
            Ablation::NoRegistration => &["auth.registration_application_type", "auth.redirect_registered"],
            Ablation::SamplingError => &["sampling.tools", "sampling.model_preferences", "sampling.include_context"],
            // Every retry's requestState is re-encoded, the state-only round's too.
            Ablation::AlterRequestState => &["elicitation.mrtr_state_only"],
            // probe_sampling's request is the one that carries includeContext.
            Ablation::RefusesIncludeContext => &["sampling.create_message"],
            // Speaking the refused version includes its HTTP header.
            Ablation::IgnoreDowngrade => &["http.protocol_version_header"],
            // Its ping reaches a 2026-07-28 server too.
            Ablation::BadMetaKey => &["utilities.no_ping_to_modern"],
            // The schema knows the eight levels too.
            Ablation::BadLogLevel => &["wire.client_frames_valid"],
            // Without the standalone stream, rmcp's server has nowhere to send list_changed or the
            // unknown notification.
            Ablation::NoGetStream => &["tools.list_changed", "resources.list_changed", "prompts.list_changed", "subscriptions.reread", "utilities.unknown_notification_tolerated"],
            // The session ends at the unknown notification, before the ping is answered: nothing
            // after it happens.
            Ablation::ChokeOnUnknownNotification => &[
                "utilities.ping",
                "utilities.unknown_request_answered",
                "tools.list_changed",
                "resources.list_changed",
                "prompts.list_changed",
                "subscriptions.reread",
                "subscriptions.unsubscribe",
            ],
            // The picture beside structured data goes the way of every picture or dual result.
            Ablation::DropDualResults | Ablation::ImagePlaceholder | Ablation::ImageAsBase64Text => &["affordances.image_beside_structured"],
            // A tool never called leaves a list unused by a client without a model.
            Ablation::CallsNeedSession => &["http.stateless_tools_listed"],
            // After its GET it sends nothing: no list, no call, no header to judge.
            Ablation::GivesUpAtGet405 => &["http.stateless_tools_listed", "http.stateless_tool_called", "http.stateless_no_session_id", "http.stateless_version_header"],
            // Nothing to re-read or unsubscribe from without a subscription.
            Ablation::NeverSubscribe => &["subscriptions.reread", "subscriptions.unsubscribe"],
            // A host that never gives up has nothing to cancel, and no timeout for progress to outlast.
            // Without the tool the model never calls it, so nothing of the apps variant is reached.
            Ablation::HideUiTools => &["apps.app_only_tool_hidden", "apps.ui_resource_read", "apps.view_receives_result"],
            // A view never read is never run.
            Ablation::NeverReadViews => &["apps.view_receives_result"],
            // A call refused for want of params.task hands over no task to follow.
            Ablation::NoTaskAugmentation => &["tasks.followed", "tasks.poll_interval", "tasks.result_fetched", "tasks.cancel"],
            // A task never asked about is never polled, fetched, answered or cancelled.
            Ablation::IgnoreTasks => &["tasks.poll_interval", "tasks.result_fetched", "tasks.input_answered", "tasks.cancel", "tasks.mcp_name_header"],
            // A task asked about once is left working, not cancelled.
            Ablation::StopPollingEarly => &["tasks.cancel"],
            // The server refuses a task request without Mcp-Name: no task is followed.
            Ablation::NoTaskNameHeader => &["tasks.poll_interval", "tasks.result_fetched", "tasks.input_answered", "tasks.cancel"],
            Ablation::NoCallTimeout => &["utilities.cancel_on_timeout", "utilities.progress_keepalive"],
            // A stream never replaced is never released.
            Ablation::NoPushResume => &["events.stale_stream_released"],
            // Never refreshing spends no refresh token: nothing to judge rotation on.
            Ablation::NoRefresh => &["auth.refresh_token_rotated", "auth.refresh_grant_registered"],
            // Polling two answers behind, five polls get no further than the truncated page.
            Ablation::StaleEventCursor => &["events.poll_floor", "events.truncated_cursor_kept"],
            // Stopping at the backlog leaves the later answers unreached.
            Ablation::WaitsOutHasMore => &["events.poll_floor", "events.truncated_cursor_kept"],
            // Never waiting is never waiting a floor either.
            Ablation::IgnoresNextPollMs => &["events.poll_floor"],
            // Its own clock ignores progress too: the slow call is given up on as well.
            Ablation::SilentTimeout => &["utilities.progress_keepalive"],
            // Without a listing there is no skill to page through, get, read or refuse.
            Ablation::NeverListSkills => &LISTING_SKILLS,
            // The twins are on page two.
            Ablation::SkillsFirstPageOnly => &["skills.same_name"],
            // A host that reads nothing acts on nothing: no refusal can be seen, no directory is listed.
            Ablation::NeverReadSkillFiles => &ACTING_ON_SKILLS,
            Ablation::SkipDirectoryRead => &["skills.directory_manifest_only"],
            // Without a read tool the model reads nothing.
            Ablation::NoResourceTools => &[
                "affordances.list_tool",
                "affordances.template_list_tool",
                "affordances.server_param",
                "affordances.read_reaches_server",
                "affordances.text_to_model",
                "affordances.blob_to_model",
                "affordances.template_read",
                "affordances.resource_not_found_to_model",
            ],
            // The missing URI was never listed: the read is refused before it reaches the server.
            Ablation::ListedUrisOnly => &["affordances.resource_not_found_to_model"],
            // The text resource's canary comes only from the server.
            Ablation::ReadFromCache => &["affordances.text_to_model"],
            // The result tools are in the hidden half: the model never calls them.
            Ablation::HideSomeTools => &[
                "affordances.tool_title_to_model",
                "affordances.image_to_model",
                "affordances.audio_to_model",
                "affordances.embedded_resource_to_model",
                "affordances.is_error_to_model",
                "affordances.rpc_error_to_model",
                "affordances.audience_user_withheld",
                "affordances.audience_assistant_delivered",
                "affordances.image_beside_structured",
                "tools.session_survives_rpc_error",
                "affordances.schema_refs_resolvable",
                "affordances.schema_union_kept",
                "affordances.schema_format_kept",
                "affordances.schema_nested_kept",
                "affordances.schema_arguments_intact",
                "affordances.output_schema_enforced",
                "affordances.schema_closed_kept",
                "affordances.schema_one_of_kept",
                "affordances.schema_tuple_kept",
                "affordances.schema_const_kept",
                "affordances.schema_pattern_kept",
                "affordances.schema_enum_kept",
            ],
            // A schema changed in any way is no longer the listed one.
            Ablation::DropSchemaDefs
            | Ablation::CollapseUnions
            | Ablation::DropFormats
            | Ablation::FlattenNested
            | Ablation::OpenObjects
            | Ablation::OneOfFirstBranch
            | Ablation::DropPrefixItems
            | Ablation::DropConsts
            | Ablation::DropPatterns
            | Ablation::DropEnums => &["affordances.tool_schemas"],
            // The templated URI's content is text too.
            Ablation::DropText => &["affordances.template_read"],
            // In 2026-07-28 every change notification travels on the listen stream.
            Ablation::NeverListen => &["tools.list_changed", "resources.list_changed", "prompts.list_changed", "subscriptions.reread", "subscriptions.listen_reopen"],
            // A boolean without its default is toggled from unset to true, not from true to false.
            Ablation::TermDropDefaults => &["interactive.accept_typed"],
            // Numbers sent as strings include the untouched defaults.
            Ablation::TermValuesAsStrings => &["interactive.defaults_prefilled"],
            // Enum fields as free text take every enum shape with them.
            Ablation::TermEnumAsTextUntitledSingle => &INTERACTIVE_ENUMS[1..],
            Ablation::TermEnumAsTextTitledSingle => &[INTERACTIVE_ENUMS[0], INTERACTIVE_ENUMS[2], INTERACTIVE_ENUMS[3], INTERACTIVE_ENUMS[4]],
            Ablation::TermEnumAsTextUntitledMulti => &[INTERACTIVE_ENUMS[0], INTERACTIVE_ENUMS[1], INTERACTIVE_ENUMS[3], INTERACTIVE_ENUMS[4]],
            Ablation::TermEnumAsTextTitledMulti => &[INTERACTIVE_ENUMS[0], INTERACTIVE_ENUMS[1], INTERACTIVE_ENUMS[2], INTERACTIVE_ENUMS[4]],
            Ablation::TermEnumAsTextLegacy => &INTERACTIVE_ENUMS[..4],
            _ => &[],
        }
    }
}

impl fmt::Display for Ablation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A name that is no ablation.
#[derive(Debug, thiserror::Error)]
#[error("unknown ablation {0:?} (`probes --ablations` lists them)")]
pub struct UnknownAblation(String);

impl std::str::FromStr for Ablation {
    type Err = UnknownAblation;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ablation::ALL.iter().copied().find(|a| a.id() == s).ok_or_else(|| UnknownAblation(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use probe_server::registry;

    #[test]
    fn every_ablation_targets_a_probe_and_every_wire_judged_probe_has_one() {
        for ablation in Ablation::ALL {
            assert!(registry::find(ablation.target()).is_some(), "{ablation} targets unknown probe {}", ablation.target());
            assert_eq!(ablation.id().parse::<Ablation>().ok(), Some(*ablation));
            for probe in ablation.collateral() {
                assert!(registry::find(probe).is_some() && *probe != ablation.target());
            }
        }
        for probe in registry::probes().iter().filter(|p| p.wire_judged()) {
            assert!(Ablation::ALL.iter().any(|a| a.target() == probe.id()), "probe {} has no ablation: it is not proven to discriminate", probe.id());
        }
    }
}
