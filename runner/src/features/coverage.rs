//! How far the probes cover the client-facing behaviours of the specification and its
//! extensions: one row per behaviour (named as the research map of the specification names it),
//! the probes that judge it, and, where they judge it only in part or not at all, why. PROBES.md
//! opens with this table (`probes --catalogue`).

/// How much of a behaviour its probes judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    /// Its evidence is judged whole.
    Full,
    /// Some of its evidence is judged; the row says what is not.
    Partly,
    /// No probe judges it yet; the row says why.
    Uncovered,
}

/// One client-facing behaviour.
pub struct Behaviour {
    pub id: &'static str,
    /// The revision (or extension) that brought it.
    pub since: &'static str,
    pub probes: &'static [&'static str],
    pub coverage: Coverage,
    /// For `Partly` and `Uncovered`: what is missing and why.
    pub missing: &'static str,
}

macro_rules! behaviours {
    ($($id:literal, $since:literal, [$($probe:literal),*], $coverage:ident, $missing:literal;)*) => {
        /// Every client-facing behaviour, in the order of the specification's map.
        pub const BEHAVIOURS: &[Behaviour] = &[$(Behaviour { id: $id, since: $since, probes: &[$($probe),*], coverage: Coverage::$coverage, missing: $missing }),*];
    };
}

behaviours! {
    "init_legacy", "2024-11-05", ["connection.initialized", "connection.client_info", "connection.client_title"], Full, "";
    "version_counteroffer", "2024-11-05", ["connection.version_downgrade"], Full, "";
    "discover_probe", "2026-07-28", ["connection.discover_first", "connection.discover_fallback", "connection.request_meta"], Full, "";
    "meta_per_request", "2026-07-28", ["connection.request_meta"], Full, "";
    "unsupported_version_retry", "2026-07-28", ["connection.unsupported_version_retry"], Full, "";
    "era_fallback_stdio", "2026-07-28", ["connection.discover_fallback", "connection.discover_fallback_any_error", "connection.discover_timeout_fallback"], Full, "";
    "era_fallback_http", "2026-07-28", ["connection.discover_http_error_fallback", "connection.discover_fallback"], Full, "";
    "legacy_client_vs_modern_server", "2026-07-28", ["connection.falls_forward"], Full, "";
    "result_type_default", "2026-07-28", ["connection.result_type_default"], Full, "";
    "instructions", "2025-03-26", ["connection.instructions"], Full, "";
    "server_info_icons", "2025-11-25", ["connection.server_icon_fetched"], Full, "";
    "extensions_cap_client", "2026-07-28", ["connection.extension_ids_well_formed", "apps.ui_tool_text_to_model", "tasks.followed", "skills.list"], Full, "";
    "extensions_cap_server", "2026-07-28", ["subscriptions.respects_capability", "skills.directory_undeclared", "skills.unadvertised_not_asked", "tasks.unadvertised_not_asked", "events.unadvertised_not_asked"], Full, "";
    "tools_list", "2024-11-05", ["tools.list"], Full, "";
    "tools_call", "2024-11-05", ["affordances.tool_names", "affordances.schema_arguments_intact"], Full, "";
    "tools_pagination", "2024-11-05", ["tools.pagination"], Full, "";
    "tools_list_changed", "2024-11-05", ["tools.list_changed"], Full, "";
    "tool_name_charset", "2025-11-25", ["tools.name_dots", "tools.name_dashes", "tools.name_128_chars"], Full, "";
    "tool_annotations", "2025-03-26", [], Uncovered, "the server serves no annotated tools yet (what a headless host does with a destructive one is the question)";
    "tool_title_icons", "2025-06-18", ["affordances.tool_title_to_model", "tools.icon_fetched"], Full, "";
    "structured_output", "2025-06-18", ["affordances.structured_content"], Full, "";
    "structured_invalid", "2025-06-18", ["affordances.output_schema_enforced"], Full, "";
    "structured_non_object", "2026-07-28", [], Uncovered, "no tool returns a structuredContent that is not an object yet";
    "tool_is_error", "2024-11-05", ["affordances.is_error_to_model"], Full, "";
    "content_image", "2024-11-05", ["affordances.image_to_model", "affordances.image_beside_structured"], Full, "";
    "content_audio", "2025-03-26", ["affordances.audio_to_model"], Full, "";
    "resource_link", "2025-06-18", ["resources.link_followed"], Full, "";
    "embedded_resource", "2024-11-05", ["affordances.embedded_resource_to_model"], Full, "";
    "json_schema_2020", "2025-11-25", ["affordances.schema_refs_resolvable", "affordances.schema_one_of_kept", "affordances.schema_union_kept", "affordances.schema_arguments_intact"], Full, "";
    "x_mcp_header", "2026-07-28", [], Uncovered, "no tool parameter declares x-mcp-header yet";
    "cache_ttl", "2026-07-28", [], Uncovered, "lists carry ttlMs 0 only; a large ttlMs against blind refetching is not probed yet";
    "resources_list", "2024-11-05", ["resources.list"], Full, "";
    "resources_read_text", "2024-11-05", ["resources.read_text", "affordances.text_to_model"], Full, "";
    "resources_read_blob", "2024-11-05", ["resources.read_blob", "affordances.blob_to_model"], Full, "";
    "resources_templates", "2024-11-05", ["resources.templates_list", "resources.template_read"], Full, "";
    "resources_pagination", "2024-11-05", ["resources.pagination"], Full, "";
    "resources_subscribe", "2024-11-05", ["subscriptions.subscribe", "subscriptions.reread", "subscriptions.unsubscribe", "subscriptions.failure_backoff"], Full, "";
    "resources_list_changed", "2024-11-05", ["resources.list_changed"], Full, "";
    "resource_not_found_code", "2024-11-05", ["affordances.resource_not_found_to_model"], Full, "";
    "prompts_list_get", "2024-11-05", ["prompts.list", "prompts.get"], Full, "";
    "prompts_list_changed", "2024-11-05", ["prompts.list_changed"], Full, "";
    "completion", "2024-11-05", ["prompts.argument_completion", "resources.template_completion", "prompts.completion_unadvertised_not_asked"], Full, "";
    "sampling_basic", "2024-11-05", ["sampling.create_message", "sampling.system_prompt_to_model", "sampling.max_tokens_respected", "sampling.model_preferences"], Full, "";
    "sampling_tools", "2025-11-25", ["sampling.tools"], Full, "";
    "sampling_context", "2025-11-25", ["sampling.include_context"], Full, "";
    "elicit_form_primitives", "2025-06-18", ["elicitation.form", "interactive.accept_typed", "interactive.defaults_prefilled", "interactive.required_enforced", "interactive.format_enforced", "interactive.bounds_enforced"], Full, "";
    "elicit_enum_variants", "2025-11-25", ["elicitation.enum_untitled_single", "elicitation.enum_titled_single", "elicitation.enum_untitled_multi", "elicitation.enum_titled_multi", "elicitation.enum_legacy_names"], Full, "";
    "elicit_actions", "2025-06-18", ["interactive.decline", "interactive.cancel"], Full, "";
    "elicit_url", "2025-11-25", ["elicitation.url", "elicitation.url_not_prefetched", "interactive.url_shown", "interactive.url_consent"], Full, "";
    "elicit_url_required_error", "2025-11-25", [], Uncovered, "no tool answers -32042 yet";
    "roots_list", "2024-11-05", ["roots.list"], Full, "";
    "roots_list_changed", "2024-11-05", [], Uncovered, "the harness never changes a host's roots during a run";
    "mrtr_elicit", "2026-07-28", ["elicitation.mrtr_retry"], Full, "";
    "mrtr_multi", "2026-07-28", ["elicitation.mrtr_multiple_inputs"], Full, "";
    "mrtr_state_only", "2026-07-28", ["elicitation.mrtr_state_only"], Full, "";
    "mrtr_on_prompt_resource", "2026-07-28", [], Uncovered, "prompts/get and resources/read never answer input_required yet";
    "mrtr_undeclared_guard", "2026-07-28", [], Uncovered, "no input is asked of a client that did not declare the capability yet";
    "logging_setlevel", "2024-11-05", ["utilities.set_level"], Full, "";
    "logging_messages", "2024-11-05", [], Uncovered, "log messages are sent, but whether a host shows or keeps them is seen by no journal";
    "logging_meta_level", "2026-07-28", ["utilities.log_level_meta_valid", "utilities.no_set_level_to_modern"], Full, "";
    "progress_token", "2024-11-05", ["utilities.progress_token"], Full, "";
    "progress_notifications", "2024-11-05", ["utilities.progress_keepalive"], Partly, "progress keeping a call alive is judged; progress shown to a person is not";
    "cancel_client", "2024-11-05", ["utilities.cancel_on_timeout", "connection.initialize_not_cancelled"], Partly, "a cancel at a timeout and a cancelled initialize are judged; one by the person (Esc in a terminal host) is not yet";
    "cancel_timeout", "2024-11-05", ["utilities.call_timeout", "utilities.cancel_on_timeout"], Full, "";
    "cancel_server", "2024-11-05", ["interactive.form_withdrawn"], Full, "";
    "ping_server_to_client", "2024-11-05", ["utilities.ping"], Full, "";
    "ping_client_to_server", "2024-11-05", ["utilities.no_ping_to_modern"], Full, "";
    "pagination_all", "2024-11-05", ["tools.pagination", "resources.pagination", "skills.pagination"], Full, "";
    "batching", "2025-03-26", ["wire.no_batches"], Full, "";
    "client_meta_keys", "2025-06-18", ["connection.meta_keys_well_formed"], Full, "";
    "tasks_core_tool", "2025-11-25", ["tasks.augmented_call", "tasks.followed", "tasks.result_fetched", "tasks.poll_interval"], Full, "";
    "tasks_core_client_side", "2025-11-25", [], Uncovered, "the server never asks a client to run its own request as a task";
    "tasks_ext", "2026-07-28", ["tasks.followed", "tasks.input_answered", "tasks.cancel", "tasks.result_to_model", "tasks.failed_to_model"], Full, "";
    "tasks_ext_notify", "2026-07-28", [], Uncovered, "task status notifications on a listen stream are not sent yet";
    "events_unadvertised", "events extension", ["events.unadvertised_not_asked"], Full, "";
    "events_list", "events extension", ["events.listed", "events.delivery_mode_respected", "events.arguments_sent"], Partly, "relisting on notifications/events/list_changed is not probed: the listen stream is rmcp's, which does not carry it";
    "events_poll", "events extension", ["events.poll_starts_from_now", "events.cursor_carried", "events.backlog_drained", "events.interval_honoured", "events.poll_floor", "events.truncated_cursor_kept", "events.null_cursor_kept"], Full, "";
    "events_push", "events extension", ["events.push_resumed", "events.stale_stream_released"], Full, "";
    "events_webhook", "events extension", ["events.webhook_refreshed"], Partly, "the refresh is judged; the server posts no signed delivery to the callback yet";
    "events_to_model", "events extension", [], Uncovered, "whether an event reaches the model with nobody present needs a host run kept open past its answer";
    "subs_listen", "2026-07-28", ["subscriptions.listen"], Full, "";
    "subs_resource_updates", "2026-07-28", ["subscriptions.reread"], Full, "";
    "subs_graceful_close", "2026-07-28", ["subscriptions.listen_reopen"], Full, "";
    "http_accept", "2025-03-26", ["http.post_accept"], Full, "";
    "http_json_vs_sse", "2025-03-26", ["http.json_responses"], Full, "";
    "http_session_id", "2025-03-26", ["http.session_id_echoed", "http.session_expiry"], Full, "";
    "http_get_stream", "2025-03-26", ["http.get_stream"], Full, "";
    "http_resume", "2025-03-26", ["http.resumption", "http.priming_events"], Partly, "resuming a GET stream is judged; resuming a POST stream the server closed after priming (SEP-1699) is not yet";
    "http_delete", "2025-03-26", ["http.delete_on_exit"], Full, "";
    "http_protocol_header", "2025-06-18", ["http.protocol_version_header", "http.version_header_matches_meta", "http.stateless_version_header"], Full, "";
    "http_std_headers", "2026-07-28", ["http.standard_headers", "tasks.mcp_name_header"], Full, "";
    "http_notifications_202", "2025-03-26", ["http.notification_accepted"], Full, "";
    "http_sse_legacy", "2024-11-05", [], Uncovered, "the old HTTP+SSE transport is not served";
    "http_origin", "2025-11-25", ["http.origin_loopback"], Full, "";
    "auth_401_prm", "2025-06-18", ["auth.prm_discovery", "auth.prm_well_known"], Full, "";
    "auth_as_metadata", "2025-03-26", ["auth.as_metadata_order", "auth.issuer_validated"], Full, "";
    "auth_registration", "2025-03-26", ["auth.registration", "auth.client_id_document", "auth.registration_application_type", "auth.redirect_registered", "auth.token_client_id"], Full, "";
    "auth_authorize", "2025-03-26", ["auth.pkce_s256", "auth.pkce_verifier_format", "auth.pkce_support_checked", "auth.state", "auth.redirect_loopback_ip", "auth.resource_indicator", "auth.scope_selection", "auth.scope_fallback"], Full, "";
    "auth_iss", "2026-07-28", ["auth.iss_validated", "auth.iss_missing_refused"], Full, "";
    "auth_bearer", "2025-03-26", ["auth.bearer_header", "auth.token_audience"], Full, "";
    "auth_step_up", "2025-11-25", ["auth.step_up"], Full, "";
    "auth_refresh", "2025-03-26", ["auth.refresh", "auth.refresh_token_rotated", "auth.refresh_grant_registered"], Full, "";
    "skills_list", "skills extension", ["skills.list", "skills.pagination"], Full, "";
    "skills_get_unlisted", "skills extension", ["skills.get_unlisted"], Full, "";
    "skills_load", "skills extension", ["skills.get", "skills.read_files"], Full, "";
    "skills_no_prefetch", "skills extension", ["skills.no_prefetch"], Full, "";
    "skills_verify_digest", "skills extension", ["skills.verify_digest"], Full, "";
    "skills_verify_size", "skills extension", ["skills.verify_size"], Full, "";
    "skills_verify_frontmatter", "skills extension", ["skills.verify_frontmatter"], Full, "";
    "skills_unlisted_read", "skills extension", ["skills.unlisted_file", "skills.path_escape"], Full, "";
    "skills_directory_read", "skills extension", ["skills.directory_read", "skills.directory_undeclared", "skills.directory_manifest_only"], Full, "";
    "skills_dynamic", "skills extension", [], Uncovered, "no skill with dynamic resources is served yet";
    "skills_name_collision", "skills extension", ["skills.same_name", "skills.name_mismatch"], Full, "";
    "skills_allowed_tools", "skills extension", [], Uncovered, "no skill's frontmatter names allowed-tools yet";
    "skills_g0_index", "skills extension", [], Uncovered, "the first generation's skill://index.json is not served";
}

/// How many behaviours are covered each way: (full, partly, uncovered).
pub fn counts() -> (usize, usize, usize) {
    let count = |c: Coverage| BEHAVIOURS.iter().filter(|b| b.coverage == c).count();
    (count(Coverage::Full), count(Coverage::Partly), count(Coverage::Uncovered))
}

/// The table PROBES.md opens with.
pub fn markdown() -> String {
    use std::fmt::Write;
    let (full, partly, uncovered) = counts();
    let mut out = format!(
        "\n## Coverage of the specification\n\nOf {} client-facing behaviours (the specification's revisions 2024-11-05 to 2026-07-28 and the skills and events extensions), {full} are judged whole, {partly} in part and {uncovered} not yet.\n\n| behaviour | since | probes | covered | what is missing |\n|---|---|---|---|---|\n",
        BEHAVIOURS.len()
    );
    for b in BEHAVIOURS {
        let probes: Vec<String> = b.probes.iter().map(|p| format!("`{p}`")).collect();
        let covered = match b.coverage {
            Coverage::Full => "fully",
            Coverage::Partly => "partly",
            Coverage::Uncovered => "no",
        };
        let _ = writeln!(out, "| `{}` | {} | {} | {covered} | {} |", b.id, b.since, if probes.is_empty() { "—".to_string() } else { probes.join(", ") }, b.missing);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_probe_exists_and_every_row_says_what_it_lacks() {
        let mut ids = std::collections::BTreeSet::new();
        for b in BEHAVIOURS {
            assert!(ids.insert(b.id), "{} twice", b.id);
            for probe in b.probes {
                assert!(probe_server::registry::find(probe).is_some(), "{}: no probe {probe}", b.id);
            }
            match b.coverage {
                Coverage::Full => assert!(b.missing.is_empty() && !b.probes.is_empty(), "{}", b.id),
                Coverage::Partly => assert!(!b.missing.is_empty() && !b.probes.is_empty(), "{}", b.id),
                Coverage::Uncovered => assert!(!b.missing.is_empty() && b.probes.is_empty(), "{}", b.id),
            }
        }
        let (full, partly, uncovered) = counts();
        assert_eq!(full + partly + uncovered, BEHAVIOURS.len());
        assert!(markdown().lines().filter(|l| l.starts_with("| `")).count() == BEHAVIOURS.len());
    }
}
