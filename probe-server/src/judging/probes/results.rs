//! What a tool's result delivers to the model: a picture, a sound, embedded resources, an
//! `isError` result and a JSON-RPC error, each from a tool of its own (`surface::RESULT_TOOLS`), and
//! the server's error for a resource it does not have. Judged from the model
//! stub's journal: the stub calls each tool, and every later request's `model_view` says which
//! payloads it carried and where (`payloads`), which tool results the dialect marks as errors
//! (`error_marks`), and the text of every tool result. Evidence lines are those of the model journal.

use serde_json::Value;

use super::{probe, BOTH};
use crate::host_tools::names_tool;
use crate::note::Note;
use crate::observe::Observations;
use crate::probe::{Outcome, Verdict};
use crate::sized;
use crate::surface as s;

/// The model's first call of `tool`: (model journal line, its arguments), or not-reached.
pub(super) fn first_call(o: &Observations, tool: &str) -> Result<(u64, Value), Verdict> {
    o.model_calls()
        .find(|(_, name, _)| names_tool(name, tool))
        .map(|(seq, _, arguments)| (seq, arguments))
        .ok_or_else(|| Verdict::new(Outcome::NotReached, format!("the model never called {tool} (the host did not offer it, or the run ended before)")))
}

/// The model journal line of the model's first call of `tool`, or not-reached.
fn called(o: &Observations, tool: &str) -> Result<u64, Verdict> {
    first_call(o, tool).map(|(seq, _)| seq)
}

/// The first request after `call` that carried payload `name`, and where ("tool_result" or
/// "beside").
fn payload_after<'a>(o: &'a Observations, call: u64, name: &str) -> Option<(u64, Vec<&'a str>)> {
    o.model_views().filter(|(seq, _)| *seq > call).find_map(|(seq, view)| Some((seq, view.payload_places(name)?)))
}

/// How the first request after `call` that carried media payload `name` carried it: as a part of
/// its own (true), only as base64 text (false), or unknown (None: a journal from before the stub
/// said, read as a part).
fn as_part_after(o: &Observations, call: u64, name: &str) -> Option<(u64, bool)> {
    let mut carried = o.model_views().filter(|(seq, _)| *seq > call).filter_map(|(seq, view)| {
        let forms = view.payload_forms_of(name)?;
        Some((seq, forms.iter().any(|f| f == "part")))
    });
    let first = carried.next()?;
    Some(if first.1 { first } else { carried.find(|(_, part)| *part).unwrap_or(first) })
}

/// The tool result holding `canary` in the first request after `call` that has one: (line, its
/// index among the request's tool results, its text).
pub(super) fn result_after(o: &Observations, call: u64, canary: &str) -> Option<(u64, usize, String)> {
    o.model_views().filter(|(seq, _)| *seq > call).find_map(|(seq, view)| {
        let (index, text) = view.tool_results.iter().enumerate().find_map(|(i, r)| r.as_str().filter(|t| t.contains(canary)).map(|t| (i, t)))?;
        Some((seq, index, text.to_string()))
    })
}

/// What the host wrote into a tool result beside the tool's own canary, if it is words (three
/// letters or more), cut to 80 characters for the detail.
fn host_words(text: &str, canary: &str) -> Option<String> {
    let rest = text.replace(canary, " ");
    let rest = rest.trim();
    (rest.chars().filter(|c| c.is_alphabetic()).count() >= 3).then(|| rest.chars().take(80).collect())
}

fn where_said(places: &[&str]) -> &'static str {
    if places.contains(&"tool_result") {
        "in the tool result"
    } else {
        "in a message beside the tool result"
    }
}

/// What the run told the host its model takes (the runner's `model_inputs` note), where the
/// host's configuration could say it; None when it could not or the record predates the note.
fn declared_inputs(o: &Observations) -> Option<Vec<String>> {
    let note = o.notes(Note::ModelInputs).last()?;
    <crate::note::ModelInputs as crate::note::Payload>::of(note)?.ok()?.declared
}

/// A verdict that keeps `input` (a picture, a sound) from the model is the host's doing only when
/// the run told the host its model takes that input: otherwise not reached, saying so.
fn unless_undeclared(o: &Observations, verdict: Verdict, input: &str, what: &str) -> Verdict {
    match declared_inputs(o) {
        Some(declared) if matches!(verdict.outcome, Outcome::No | Outcome::Partial) && !declared.iter().any(|d| d == input) => Verdict::new(
            Outcome::NotReached,
            format!("the harness told the host its model takes {} only, so a host may rightly keep a {what} from it ({})", declared.join(" and "), verdict.detail),
        ),
        _ => verdict,
    }
}

/// The verdict on a binary payload (picture or sound) of `tool`'s result: its bytes anywhere
/// later is yes; the result without them is partial when the host's words stand in for them, no
/// when nothing does; no result at all is no.
fn judge_media(o: &Observations, tool: &str, payload: &str, canary: &str, what: &str) -> Verdict {
    let input = if payload == "wav" { "audio" } else { "image" };
    unless_undeclared(o, judge_media_delivered(o, tool, payload, canary, what), input, what)
}

fn judge_media_delivered(o: &Observations, tool: &str, payload: &str, canary: &str, what: &str) -> Verdict {
    let call = match called(o, tool) {
        Ok(call) => call,
        Err(verdict) => return verdict,
    };
    if let Some((seq, places)) = payload_after(o, call, payload) {
        return match as_part_after(o, call, payload) {
            Some((seq, false)) => Verdict::new(
                Outcome::Partial,
                format!("the {what}'s bytes reached the model only as base64 text {}: a model reads them as characters, not as a {what}", where_said(&places)),
            )
            .evidence([call, seq])
            .opportunity([call]),
            Some((seq, true)) => Verdict::new(Outcome::Yes, format!("the {what} reached the model as a {what} of its own {}", where_said(&places))).evidence([call, seq]),
            None => Verdict::new(Outcome::Yes, format!("the {what}'s bytes reached the model {}", where_said(&places))).evidence([call, seq]),
        };
    }
    match result_after(o, call, canary) {
        Some((seq, _, text)) => match host_words(&text, canary) {
            Some(words) => Verdict::new(Outcome::Partial, format!("words stand in for the {what}: {words:?}")).evidence([call, seq]).opportunity([call]),
            None => Verdict::new(Outcome::No, format!("the result reached the model with nothing of the {what}")).evidence([call, seq]).opportunity([call]),
        },
        None => Verdict::new(Outcome::No, format!("the model never got {tool}'s result")).evidence([call]).opportunity([call]),
    }
}

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] = &[
    &SessionSurvivesRpcError,
    &ImageToModel,
    &AudioToModel,
    &EmbeddedResourceToModel,
    &IsErrorToModel,
    &AudienceUserWithheld,
    &AudienceAssistantDelivered,
    &ImageBesideStructured,
    &RpcErrorToModel,
    &ResourceNotFoundToModel,
    &OutputSchemaEnforced,
    &ResultSizeLimit,
];

probe! {
    /// Evidence (model journal): after the model called `probe_image` (a canary text and a 2×2
    /// PNG), a later request carries the PNG as a picture part of its own (a media part's data or
    /// a `data:` URL), in the tool result or in a message beside it (yes; the detail says where).
    /// The bytes only as base64 text inside a string are partial (the model reads characters, not
    /// a picture); the result without them is partial when the host put words in their place, no
    /// when nothing of the picture is left or no result came. Opportunity: where the host's
    /// configuration can say what its model takes, the run told it the model takes images (the
    /// runner's `model_inputs` note); told otherwise, a picture kept back is not reached.
    ImageToModel {
        id: "affordances.image_to_model", area: Affordances, title: "an image in a tool result reaches the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe_image: a canary text and a PNG",
        judge: |o| judge_media(o, s::TOOL_IMAGE, "png", s::IMAGE_RESULT_CANARY, "picture"), needs_model: true,
    }
}

probe! {
    /// Evidence (model journal): as `affordances.image_to_model`, for `probe_audio`'s WAV sound
    /// (audio content, 2025-03-26); its opportunity, a model the host was told takes audio.
    AudioToModel {
        id: "affordances.audio_to_model", area: Affordances, title: "audio in a tool result reaches the model",
        revisions: ["2025-03-26"], eras: BOTH, serves: "probe_audio: a canary text and a WAV",
        judge: |o| judge_media(o, s::TOOL_AUDIO, "wav", s::AUDIO_RESULT_CANARY, "sound"), needs_model: true,
    }
}

probe! {
    /// Evidence (model journal): after the model called `probe_embedded`, whose result embeds a
    /// text resource (with a canary) and a blob resource (bytes that are not UTF-8), later
    /// requests carry the text and the blob's base64: both is yes, one partial, neither no.
    EmbeddedResourceToModel {
        id: "affordances.embedded_resource_to_model", area: Affordances, title: "embedded resources in a tool result reach the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe_embedded: an embedded text and an embedded blob",
        judge: judge_embedded, needs_model: true,
    }
}

fn judge_embedded(o: &Observations) -> Verdict {
    let call = match called(o, s::TOOL_EMBEDDED) {
        Ok(call) => call,
        Err(verdict) => return verdict,
    };
    let (text, blob) = (payload_after(o, call, "embedded_text"), payload_after(o, call, "embedded_blob"));
    let lines = [text.as_ref(), blob.as_ref()].into_iter().flatten().map(|(seq, _)| *seq);
    let evidence: Vec<u64> = std::iter::once(call).chain(lines).collect();
    match (&text, &blob) {
        (Some(_), Some(_)) => Verdict::new(Outcome::Yes, "the embedded text and the embedded blob's bytes reached the model").evidence(evidence),
        (Some(_), None) => Verdict::new(Outcome::Partial, "the embedded text reached the model, the blob's bytes did not").evidence(evidence).opportunity([call]),
        (None, Some(_)) => Verdict::new(Outcome::Partial, "the embedded blob's bytes reached the model, the text did not").evidence(evidence).opportunity([call]),
        (None, None) => {
            let seen = result_after(o, call, s::EMBEDDED_RESULT_CANARY).map(|(seq, _, _)| seq);
            let detail = if seen.is_some() { "the result reached the model without either embedded resource" } else { "the model never got probe_embedded's result" };
            Verdict::new(Outcome::No, detail).evidence(evidence.into_iter().chain(seen)).opportunity([call])
        }
    }
}

probe! {
    /// Evidence (model journal): after the model called `probe_fault`, whose result is marked
    /// `isError: true` (its only text a canary), the tool result holding the canary reaches the
    /// model marked as an error: by the dialect's own mark (Anthropic `is_error`, a Gemini
    /// `error` response) or by the host's words ("error", "fail") beside the canary (yes). The
    /// result as an ordinary one is partial; no result at all, no.
    IsErrorToModel {
        id: "affordances.is_error_to_model", area: Affordances, title: "an isError result reaches the model as an error",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe_fault: a result marked isError",
        judge: judge_is_error, needs_model: true,
    }
}

fn judge_is_error(o: &Observations) -> Verdict {
    let call = match called(o, s::TOOL_FAULT) {
        Ok(call) => call,
        Err(verdict) => return verdict,
    };
    let Some((seq, index, text)) = result_after(o, call, s::FAULT_RESULT_CANARY) else {
        return Verdict::new(Outcome::No, "the model never got probe_fault's result").evidence([call]).opportunity([call]);
    };
    let marked = o.model_views().find(|(line, _)| *line == seq).map(|(_, view)| view.marks_error(index));
    let words = host_words(&text, s::FAULT_RESULT_CANARY).filter(|w| ["error", "fail"].iter().any(|k| w.to_lowercase().contains(k)));
    match (marked.unwrap_or(false), words) {
        (true, _) => Verdict::new(Outcome::Yes, "marked as an error by the dialect's own mark").evidence([call, seq]),
        (false, Some(words)) => Verdict::new(Outcome::Yes, format!("marked as an error in the host's words: {words:?}")).evidence([call, seq]),
        (false, None) => Verdict::new(Outcome::Partial, "reached the model as an ordinary result").evidence([call, seq]).opportunity([call]),
    }
}

probe! {
    /// Evidence (model journal): after the model called `probe_rpc_error`, which the server
    /// answers with a JSON-RPC error (no result), the model is told: a later tool result holds the
    /// error's message (yes). A result for the call without the message (the host said only that
    /// it failed) is partial; no result for it at all, no.
    RpcErrorToModel {
        id: "affordances.rpc_error_to_model", area: Affordances, title: "a JSON-RPC error on tools/call reaches the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe_rpc_error: a JSON-RPC error with a canary message",
        judge: judge_rpc_error, needs_model: true,
    }
}

/// How many tool results the last request before `line` carried.
pub(super) fn results_before(o: &Observations, line: u64) -> usize {
    o.model_views().filter(|(seq, _)| *seq < line).last().map_or(0, |(_, v)| v.tool_results.len())
}

/// The result of the model's call at model journal line `call`: the first result a later
/// request carries beyond those before the call. (line, its text, whether the dialect marks it as
/// an error.)
pub(super) fn result_of_call(o: &Observations, call: u64) -> Option<(u64, &str, bool)> {
    let index = results_before(o, call);
    o.model_views().filter(|(seq, _)| *seq > call).find_map(|(seq, view)| {
        let text = view.tool_results.get(index)?.as_str()?;
        let marked = view.marks_error(index);
        Some((seq, text, marked))
    })
}

fn judge_rpc_error(o: &Observations) -> Verdict {
    let call = match called(o, s::TOOL_RPC_ERROR) {
        Ok(call) => call,
        Err(verdict) => return verdict,
    };
    // The error the model should be told is the server's answer: a call the server took and never
    // answered (the run ended first) left nothing to tell.
    if let Some(sent) = o.tool_calls(s::TOOL_RPC_ERROR).next().filter(|sent| o.answer_to(sent).is_none()) {
        return Verdict::new(Outcome::NotReached, format!("the server never answered probe_rpc_error's call (server journal line {}): the run ended first", sent.seq))
            .evidence([call]);
    }
    error_told(o, call, s::RPC_ERROR_CANARY)
}

/// Whether the model was told a server error whose message carries `canary`, after its call at
/// model journal line `call`: yes when a later tool result holds the message, partial when the
/// call got a result without it, no when it got none.
fn error_told(o: &Observations, call: u64, canary: &str) -> Verdict {
    if let Some((seq, _, _)) = result_after(o, call, canary) {
        return Verdict::new(Outcome::Yes, "the model was told the server's error message").evidence([call, seq]);
    }
    match result_of_call(o, call).map(|(seq, text, _)| (seq, text.chars().take(80).collect::<String>())) {
        Some((seq, text)) => Verdict::new(Outcome::Partial, format!("the model got a result without the server's message: {text:?}")).evidence([call, seq]).opportunity([call]),
        None => Verdict::new(Outcome::No, "the model never got a result for the call").evidence([call]).opportunity([call]),
    }
}

probe! {
    /// Evidence (model journal): `probe_bad_output` declares an `outputSchema` whose `count` is an
    /// integer and returns `structuredContent` whose `count` is a word. A client SHOULD validate
    /// structured results against the output schema (2025-06-18, Tools): yes when the call's
    /// result reaches the model marked as an error (the dialect's mark, or the host's words
    /// "error", "invalid", "schema", "validat…", "mismatch"); no when the data is handed on as an
    /// ordinary result, or no result comes.
    OutputSchemaEnforced {
        id: "affordances.output_schema_enforced", area: Affordances, title: "structured results that break their output schema are caught",
        revisions: ["2025-06-18"], eras: BOTH, serves: "probe_bad_output: structuredContent against its own outputSchema",
        judge: judge_output_schema, needs_model: true,
    }
}

/// Words a host uses when it rejects a result.
const REJECTION_WORDS: [&str; 5] = ["error", "invalid", "schema", "validat", "mismatch"];

fn judge_output_schema(o: &Observations) -> Verdict {
    let call = match called(o, s::TOOL_BAD_OUTPUT) {
        Ok(call) => call,
        Err(verdict) => return verdict,
    };
    let Some((seq, text, marked)) = result_of_call(o, call) else {
        return Verdict::new(Outcome::No, "the model never got a result for the call").evidence([call]).opportunity([call]);
    };
    let lower = text.to_lowercase();
    let words: Vec<&str> = REJECTION_WORDS.iter().copied().filter(|w| lower.contains(w)).collect();
    let shown: String = text.chars().take(80).collect();
    match (marked, words.is_empty()) {
        (true, _) => Verdict::new(Outcome::Yes, "the result reached the model marked as an error by the dialect's own mark").evidence([call, seq]),
        (false, false) => Verdict::new(Outcome::Yes, format!("the host flagged the result ({}): {shown:?}", words.join(", "))).evidence([call, seq]),
        (false, true) => Verdict::new(Outcome::No, format!("the data went to the model unchecked: {shown:?}")).evidence([call, seq]).opportunity([call]),
    }
}

probe! {
    /// Evidence (model journal, server journal named in the detail): the model reads
    /// `probe://missing/nothing-here` with the host's read tool; the server answers that
    /// `resources/read` with its not-found error (-32002 before 2026-07-28, -32602 in it), whose
    /// message carries a canary the URI does not. Yes when a later tool result holds the
    /// message; a result without it (the host said only that the read failed) is partial; no
    /// result, no. Not reached when the model never read that URI or the host never sent the read
    /// to the server (the server had no error to tell).
    ResourceNotFoundToModel {
        id: "affordances.resource_not_found_to_model", area: Affordances, title: "a resource-not-found error reaches the model",
        revisions: ["2024-11-05", "2026-07-28"], eras: BOTH, serves: "resources/read of an unknown URI: an error whose message carries a canary",
        judge: judge_not_found, needs_model: true,
    }
}

fn judge_not_found(o: &Observations) -> Verdict {
    let asks_missing = |arguments: &Value| arguments.get("uri").and_then(Value::as_str) == Some(s::MISSING_URI);
    let Some((call, _, _)) = o.model_calls().find(|(_, _, arguments)| asks_missing(arguments)) else {
        return Verdict::new(Outcome::NotReached, format!("the model never read {} (no read tool, or the run ended before)", s::MISSING_URI));
    };
    let Some(read) = o.client_requests("resources/read").find(|f| asks_missing(f.params())) else {
        return Verdict::new(Outcome::NotReached, "the host never sent the model's read to the server, so the server had no error to tell").evidence([call]);
    };
    let mut verdict = error_told(o, call, s::NOT_FOUND_CANARY);
    verdict.detail = format!("{} (the read: server journal line {})", verdict.detail, read.seq);
    verdict
}

probe! {
    /// Evidence (model journal): after the model called `probe_audience`, whose result holds its
    /// canary, a text annotated `audience: ["user"]` and one annotated `audience: ["assistant"]`,
    /// the result reached the model without the user's text anywhere in later requests (yes). The
    /// user's text in a later request is no, and so is a result that never came.
    AudienceUserWithheld {
        id: "affordances.audience_user_withheld", area: Affordances, title: "content for the user only is kept from the model",
        revisions: ["2025-06-18"], eras: BOTH, serves: "probe_audience: texts annotated audience [\"user\"] and [\"assistant\"]",
        judge: judge_user_withheld, needs_model: true,
    }
}

fn judge_user_withheld(o: &Observations) -> Verdict {
    let call = match called(o, s::TOOL_AUDIENCE) {
        Ok(call) => call,
        Err(verdict) => return verdict,
    };
    if let Some((seq, _)) = payload_after(o, call, "audience_user") {
        return Verdict::new(Outcome::No, "the text for the user only reached the model").evidence([call, seq]).opportunity([call]);
    }
    match result_after(o, call, s::AUDIENCE_RESULT_CANARY) {
        Some((seq, _, _)) => Verdict::new(Outcome::Yes, "the result reached the model without the text for the user only").evidence([call, seq]),
        None => Verdict::new(Outcome::No, "the model never got probe_audience's result").evidence([call]).opportunity([call]),
    }
}

probe! {
    /// Evidence (model journal): after the model called `probe_audience`, a later request carries
    /// the text annotated `audience: ["assistant"]` (yes); the result without it, or no result, is
    /// no.
    AudienceAssistantDelivered {
        id: "affordances.audience_assistant_delivered", area: Affordances, title: "content for the assistant reaches the model",
        revisions: ["2025-06-18"], eras: BOTH, serves: "probe_audience: texts annotated audience [\"user\"] and [\"assistant\"]",
        judge: judge_assistant_delivered, needs_model: true,
    }
}

fn judge_assistant_delivered(o: &Observations) -> Verdict {
    let call = match called(o, s::TOOL_AUDIENCE) {
        Ok(call) => call,
        Err(verdict) => return verdict,
    };
    if let Some((seq, places)) = payload_after(o, call, "audience_assistant") {
        return Verdict::new(Outcome::Yes, format!("the text for the assistant reached the model {}", where_said(&places))).evidence([call, seq]);
    }
    let seen = result_after(o, call, s::AUDIENCE_RESULT_CANARY).map(|(seq, _, _)| seq);
    let detail = if seen.is_some() { "the result reached the model without the text for the assistant" } else { "the model never got probe_audience's result" };
    Verdict::new(Outcome::No, detail).evidence(std::iter::once(call).chain(seen)).opportunity([call])
}

probe! {
    /// Evidence (model journal): after the model called `probe_picture_data`, whose result has
    /// `structuredContent` (with a canary, also serialized as the first text block) and a picture
    /// of its own, later requests carry both the canary and the picture's base64 (yes); one of
    /// them is partial (the detail says which survived), neither no.
    ImageBesideStructured {
        id: "affordances.image_beside_structured", area: Affordances, title: "a picture beside structuredContent reaches the model",
        revisions: ["2025-06-18"], eras: BOTH, serves: "probe_picture_data: structuredContent, its text and a PNG",
        judge: |o| unless_undeclared(o, judge_image_beside_structured(o), "image", "picture"), needs_model: true,
    }
}

fn judge_image_beside_structured(o: &Observations) -> Verdict {
    let call = match called(o, s::TOOL_PICTURE_DATA) {
        Ok(call) => call,
        Err(verdict) => return verdict,
    };
    let (data, picture) = (payload_after(o, call, "picture_data"), payload_after(o, call, "picture_data_png"));
    let lines = [data.as_ref(), picture.as_ref()].into_iter().flatten().map(|(seq, _)| *seq);
    let evidence: Vec<u64> = std::iter::once(call).chain(lines).collect();
    // Bytes only as base64 text are not a picture the model sees.
    if picture.is_some() && as_part_after(o, call, "picture_data_png").is_some_and(|(_, part)| !part) {
        let data = if data.is_some() { "the structured data reached the model" } else { "the structured data did not reach the model" };
        return Verdict::new(Outcome::Partial, format!("{data}; the picture only as base64 text")).evidence(evidence).opportunity([call]);
    }
    match (&data, &picture) {
        (Some(_), Some(_)) => Verdict::new(Outcome::Yes, "the structured data and the picture both reached the model").evidence(evidence),
        (Some(_), None) => Verdict::new(Outcome::Partial, "the structured data reached the model, the picture did not").evidence(evidence).opportunity([call]),
        (None, Some(_)) => Verdict::new(Outcome::Partial, "the picture reached the model, the structured data did not").evidence(evidence).opportunity([call]),
        (None, None) => Verdict::new(Outcome::No, "neither the structured data nor the picture reached the model").evidence(evidence).opportunity([call]),
    }
}

probe! {
    /// Evidence (model journal, server journal named in the detail): after the JSON-RPC error on
    /// `probe_rpc_error`, the model calls `probe_ping`, and that call reaches the server in the
    /// session that got the error, with no server started since (yes). The call reaching the
    /// server only in a new session or a server started again is partial (the host reconnected);
    /// never reaching it, no. Not reached when the model never asked for the later call.
    SessionSurvivesRpcError {
        id: "tools.session_survives_rpc_error", area: Tools, title: "the session lives on after a JSON-RPC error on tools/call",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe_rpc_error answers with a JSON-RPC error; the model then calls probe_ping",
        judge: judge_session_survives, needs_model: true,
    }
}

fn judge_session_survives(o: &Observations) -> Verdict {
    let call = match called(o, s::TOOL_RPC_ERROR) {
        Ok(call) => call,
        Err(verdict) => return verdict,
    };
    let Some(failed) = o.tool_calls(s::TOOL_RPC_ERROR).next() else {
        return Verdict::new(Outcome::NotReached, "the host never sent probe_rpc_error's call to the server").evidence([call]);
    };
    let Some((later, _, _)) = o.model_calls().find(|(seq, name, _)| *seq > call && names_tool(name, s::TOOL_PING)) else {
        return Verdict::new(Outcome::NotReached, "the model never called a tool after the error").evidence([call]);
    };
    match o.tool_calls(s::TOOL_PING).find(|f| f.seq > failed.seq) {
        Some(f) if o.same_session(failed.seq, f.seq) => {
            Verdict::new(Outcome::Yes, format!("the next call reached the same session (server journal lines {} and {})", failed.seq, f.seq)).evidence([call, later])
        }
        Some(f) => Verdict::new(
            Outcome::Partial,
            format!("the next call reached the server only in a new session or a server started again (server journal lines {} and {})", failed.seq, f.seq),
        )
        .evidence([call, later])
        .opportunity([later]),
        None => Verdict::new(Outcome::No, format!("the model's next call never reached the server (the error: server journal line {})", failed.seq))
            .evidence([call, later])
            .opportunity([later]),
    }
}

probe! {
    /// Evidence (model journal): in the large-results variant the model asks `probe_large_result`
    /// for 10 KB, then for 100 KB and 1 MB, each only once the last size reached it down to its
    /// last line. Every result is lines that name their size and number (`sized.rs`); the stub's
    /// view folds them into ranges, so the judge counts the lines each result brought and reads
    /// the host's words beside them. Yes when every result the model asked for came whole, or cut
    /// with words that say so (truncated, omitted, saved to a file…); partial when one was cut
    /// silently or came back empty; no when none of them brought a line. The detail names the
    /// largest size that came whole and how much of the first cut one came.
    ResultSizeLimit {
        id: "affordances.result_size_limit", area: Affordances, title: "large tool results reach the model whole, or marked as cut",
        revisions: ["2024-11-05"], eras: BOTH, variant: LargeResults, serves: "probe_large_result: text results of 10 KB, 100 KB and 1 MB",
        judge: judge_result_size, needs_model: true,
    }
}

/// "10 KB", "100 KB", "1 MB".
fn size_label(bytes: usize) -> String {
    if bytes >= 1_000_000 {
        format!("{} MB", bytes / 1_000_000)
    } else {
        format!("{} KB", bytes / 1_000)
    }
}

/// What came of one sized result the model asked for.
enum SizedOutcome {
    Whole,
    /// Cut: what came, and whether the host's words say so.
    Cut(sized::Received),
    /// No result for the call at all.
    Missing,
}

fn judge_result_size(o: &Observations) -> Verdict {
    let calls: Vec<(u64, usize)> =
        o.model_calls().filter(|(_, name, _)| names_tool(name, sized::TOOL_LARGE_RESULT)).filter_map(|(seq, _, arguments)| Some((seq, sized::size_asked(&arguments)?))).collect();
    // Each size is judged on its first call; the model asks again when no result came back.
    let asked: Vec<(u64, usize, usize)> = sized::SIZES
        .iter()
        .filter_map(|&size| {
            let mut of_size = calls.iter().filter(|(_, s)| *s == size);
            let (first, _) = of_size.next()?;
            Some((*first, size, 1 + of_size.count()))
        })
        .collect();
    if asked.is_empty() {
        return Verdict::new(Outcome::NotReached, format!("the model never called {} (the host did not offer it, or the run ended before)", sized::TOOL_LARGE_RESULT));
    }
    let (mut evidence, mut parts, mut largest_whole) = (Vec::new(), Vec::new(), None);
    let (mut silent, mut any_line) = (false, false);
    for &(call, size, times) in &asked {
        evidence.push(call);
        let outcome = match result_of_call(o, call) {
            None => SizedOutcome::Missing,
            Some((seq, text, _)) => {
                evidence.push(seq);
                let got = sized::received(text, size);
                if got.whole(size) && !got.says_cut() {
                    SizedOutcome::Whole
                } else {
                    SizedOutcome::Cut(got)
                }
            }
        };
        let label = size_label(size);
        parts.push(match outcome {
            SizedOutcome::Whole => {
                largest_whole = Some(size);
                any_line = true;
                format!("{label} whole")
            }
            SizedOutcome::Missing => {
                silent = true;
                let again = if times > 1 { format!(" (asked {times} times)") } else { String::new() };
                format!("{label}: no result came back{again}")
            }
            SizedOutcome::Cut(got) => {
                any_line |= got.lines > 0;
                let ends = match (got.head, got.tail) {
                    (true, true) => "its first and last lines",
                    (true, false) => "its first lines",
                    (false, true) => "its last lines",
                    (false, false) => "neither end",
                };
                let came = format!("{label}: {} of {} lines ({ends}, about {} bytes)", got.lines, sized::lines_of(size), got.lines * sized::LINE);
                match (got.cut_note(), got.words()) {
                    (Some(note), _) => format!("{came}, marked as cut: {note:?}"),
                    (None, words) => {
                        silent = true;
                        let beside = words.map(|w| format!(", beside words that do not say so: {w:?}")).unwrap_or_default();
                        format!("{came}, cut without a word{beside}")
                    }
                }
            }
        });
    }
    let limit = match largest_whole {
        Some(size) if size == sized::SIZES[sized::SIZES.len() - 1] => "no limit up to 1 MB".to_string(),
        Some(size) => format!("largest whole: {}", size_label(size)),
        None => "none came whole".to_string(),
    };
    let detail = format!("{}; {limit}", parts.join("; "));
    let calls: Vec<u64> = asked.iter().map(|(call, _, _)| *call).collect();
    match (silent, any_line) {
        (false, _) => Verdict::new(Outcome::Yes, detail).evidence(evidence),
        (true, true) => Verdict::new(Outcome::Partial, detail).evidence(evidence).opportunity(calls),
        (true, false) => Verdict::new(Outcome::No, detail).evidence(evidence).opportunity(calls),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_words_are_what_the_host_added_beside_the_canary() {
        assert_eq!(host_words(&format!("{} [image omitted]", s::IMAGE_RESULT_CANARY), s::IMAGE_RESULT_CANARY).as_deref(), Some("[image omitted]"));
        assert_eq!(host_words(&format!("{}\n{{}}", s::IMAGE_RESULT_CANARY), s::IMAGE_RESULT_CANARY), None, "punctuation is not words");
        assert_eq!(host_words(&format!("Error: {}", s::FAULT_RESULT_CANARY), s::FAULT_RESULT_CANARY).as_deref(), Some("Error:"));
    }
}
