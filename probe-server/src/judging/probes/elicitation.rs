//! Elicitation probes: a form of primitives, each enum shape of 2025-11-25, URL mode, and the
//! modern era's retried call. Legacy sessions are asked with `elicitation/create` requests;
//! modern sessions through `InputRequiredResult` and the client's retry.

use serde_json::Value;

use super::{accepted_content, answered, exchange_evidence, latency_bucket, probe, AUTO_ANSWER_US, BOTH, MODERN};
use crate::observe::{Answer, Exchange, Observations};
use crate::probe::{Declaration, Outcome, Verdict};
use crate::surface::{self, enum_fields};

const ELICIT: &str = "elicitation/create";

fn form_declared(o: &Observations) -> Declaration {
    Declaration::from_bool(o.declares(&["elicitation"]))
}

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] = &[
    &Form,
    &EnumUntitledSingle,
    &EnumTitledSingle,
    &EnumUntitledMulti,
    &EnumTitledMulti,
    &EnumLegacyNames,
    &Url,
    &UrlNotPrefetched,
    &MrtrRetry,
    &MrtrMultipleInputs,
    &MrtrStateOnly,
];

probe! {
    /// Evidence: the form elicitation (string with format, integer and number with bounds,
    /// boolean, all with defaults) answered `accept` with content of the right types within the
    /// bounds, by a person: an answer under 100 ms, a refusal in a run where the host refused
    /// another form under 100 ms (nobody sat at its forms, whatever load slowed the rest), or any
    /// answer in a run the runner journalled as `unattended` (a headless launch), is
    /// auto-answered.
    Form {
        id: "elicitation.form", area: Elicitation, title: "form elicitation answered with typed values",
        revisions: ["2025-06-18", "2026-07-28"], eras: BOTH, serves: "probe_elicit_form asks for a form of primitives with defaults",
        judge: judge_form,
    }
}

fn type_errors(content: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    let get = |k: &str| content.get(k);
    if !get("email").and_then(Value::as_str).is_some_and(|s| s.contains('@')) {
        errors.push("email is not an e-mail string".to_string());
    }
    if !get("count").and_then(Value::as_i64).is_some_and(|n| (1..=10).contains(&n)) || get("count").is_some_and(|v| v.is_f64()) {
        errors.push("count is not an integer in 1..10".to_string());
    }
    if get("ratio").is_some_and(|v| !v.as_f64().is_some_and(|r| (0.0..=1.0).contains(&r))) {
        errors.push("ratio is not a number in 0..1".to_string());
    }
    if !get("agree").is_some_and(Value::is_boolean) {
        errors.push("agree is not a boolean".to_string());
    }
    if get("note").is_some_and(|v| v.as_str().is_none_or(|s| s.chars().count() > 40)) {
        errors.push("note is not a string of at most 40 characters".to_string());
    }
    errors
}

/// Why nobody can have answered: nobody sat at the host (the runner launched it headless, and
/// journalled so), or the answer came faster than a person could. The note's line, if any, is
/// evidence.
enum Nobody {
    AtTheHost(u64),
    SoQuickly,
    /// The host refused another of the server's forms faster than a person could.
    AnotherFormAtOnce,
}

/// An exchange answered with something other than accept (decline, cancel).
fn refused(exchange: &Exchange) -> bool {
    matches!(&exchange.answer, Some(Answer::Result(r)) if r.get("action").and_then(Value::as_str) != Some("accept"))
}

/// The server's forms in the run (the form of primitives and the enum forms), each as asked
/// and answered.
fn form_exchanges(o: &Observations) -> Vec<Exchange> {
    [surface::TOOL_ELICIT_FORM, surface::TOOL_ELICIT_ENUMS].into_iter().filter_map(|tool| o.exchange(tool, ELICIT)).collect()
}

impl Nobody {
    fn asked(o: &Observations, exchange: &Exchange) -> Option<Nobody> {
        let quick = |e: &Exchange| e.latency_us.is_some_and(|us| us < AUTO_ANSWER_US);
        if let Some((note, _)) = o.payloads::<crate::note::Unattended>().next() {
            return Some(Nobody::AtTheHost(note.seq));
        }
        if quick(exchange) {
            return Some(Nobody::SoQuickly);
        }
        // Whether a person sat at the host's forms is a property of the run: a host that refused
        // one form faster than a person could refused them all by itself, however long a loaded
        // machine made the others take.
        let forms = form_exchanges(o);
        let is_form = forms.iter().any(|f| f.asked == exchange.asked);
        (refused(exchange) && is_form && forms.iter().any(|f| refused(f) && quick(f))).then_some(Nobody::AnotherFormAtOnce)
    }

    fn why(&self) -> &'static str {
        match self {
            Nobody::AtTheHost(_) => "with nobody at the host (a headless run)",
            Nobody::SoQuickly => "in < 100 ms, nobody asked",
            Nobody::AnotherFormAtOnce => "by a host that refused another of the server's forms in < 100 ms, nobody asked",
        }
    }

    /// The exchange's lines, and the note that nobody sat at the host.
    fn evidence(&self, exchange: &Exchange) -> Vec<u64> {
        let mut evidence = exchange_evidence(exchange);
        if let Nobody::AtTheHost(seq) = self {
            evidence.push(*seq);
        }
        evidence
    }
}

/// The accepted content of a form, or the verdict saying why there is none: an answer other
/// than accept (decline, cancel) that nobody can have given is auto-answered, the same for every
/// form the server shows.
fn accepted_or_auto(o: &Observations, exchange: Option<Exchange>, declared: Declaration) -> Result<(Value, Exchange), Verdict> {
    let nobody = exchange.as_ref().and_then(|e| Nobody::asked(o, e));
    let action = exchange.as_ref().and_then(|e| match &e.answer {
        Some(Answer::Result(r)) => r.get("action").and_then(Value::as_str).map(str::to_string),
        _ => None,
    });
    match (accepted_content(exchange.clone(), declared), nobody, exchange) {
        (Err(verdict), Some(nobody), Some(exchange)) if action.as_deref().is_some_and(|a| a != "accept") => {
            Err(Verdict { outcome: Outcome::AutoAnswered, detail: format!("{} {}", verdict.detail, nobody.why()), evidence: nobody.evidence(&exchange), ..verdict })
        }
        (other, _, _) => other,
    }
}

fn judge_form(o: &Observations) -> Verdict {
    let declared = form_declared(o);
    let exchange = o.exchange(surface::TOOL_ELICIT_FORM, ELICIT);
    let (content, exchange) = match accepted_or_auto(o, exchange, declared.clone()) {
        Ok(ok) => ok,
        Err(verdict) => return verdict,
    };
    let evidence = exchange_evidence(&exchange);
    let latency = exchange.latency_us.map(latency_bucket).unwrap_or("?");
    let errors = type_errors(&content);
    if !errors.is_empty() {
        return Verdict::new(Outcome::No, format!("accepted with wrong content: {}", errors.join("; "))).declared(declared).opportunity([exchange.asked]).evidence(evidence);
    }
    if let Some(nobody) = Nobody::asked(o, &exchange) {
        return Verdict::new(Outcome::AutoAnswered, format!("accepted {}; answered in {latency}", nobody.why())).declared(declared).evidence(nobody.evidence(&exchange));
    }
    Verdict::new(Outcome::Yes, format!("accepted with typed values; answered in {latency}")).declared(declared).evidence(evidence)
}

/// The values a field's schema allows, and its display titles (which must never come back).
fn allowed_and_titles(field: &str) -> (Vec<String>, Vec<String>) {
    let schema = surface::elicit_enum_schema();
    let options = surface::enum_options(&schema["properties"][field]).map(|(o, _)| o).unwrap_or_default();
    let allowed = options.iter().map(|(value, _)| value.clone()).collect();
    let titles = options.into_iter().filter(|(value, label)| value != label).map(|(_, label)| label).collect();
    (allowed, titles)
}

fn judge_enum(o: &Observations, field: &str, multi: bool) -> Verdict {
    let declared = form_declared(o);
    let (content, exchange) = match accepted_or_auto(o, o.exchange(surface::TOOL_ELICIT_ENUMS, ELICIT), declared.clone()) {
        Ok(ok) => ok,
        Err(verdict) => return verdict,
    };
    let evidence = exchange_evidence(&exchange);
    let no = |detail: String| Verdict::new(Outcome::No, detail).declared(declared.clone()).evidence(evidence.clone()).opportunity([exchange.asked]);
    let (allowed, titles) = allowed_and_titles(field);
    let value = content.get(field).cloned().unwrap_or(Value::Null);
    let picked: Vec<String> = match (&value, multi) {
        (Value::String(s), false) => vec![s.clone()],
        (Value::Array(items), true) => match items.iter().map(|i| i.as_str().map(str::to_string)).collect::<Option<Vec<_>>>() {
            Some(v) => v,
            None => return no("multi-select answered with non-strings".into()),
        },
        (Value::Null, _) => return no("field missing from the answer".into()),
        (other, true) => return no(format!("multi-select answered with {} instead of an array", kind(other))),
        (other, false) => return no(format!("single-select answered with {} instead of a string", kind(other))),
    };
    if let Some(title) = picked.iter().find(|p| titles.contains(p) && !allowed.contains(p)) {
        return no(format!("returned the display title {title:?} instead of its value"));
    }
    if let Some(bad) = picked.iter().find(|p| !allowed.contains(p)) {
        return no(format!("returned {bad:?}, not one of the allowed values"));
    }
    if multi {
        let schema = surface::elicit_enum_schema();
        let prop = &schema["properties"][field];
        let min = prop.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = prop.get("maxItems").and_then(Value::as_u64).map_or(usize::MAX, |m| m as usize);
        if picked.len() < min || picked.len() > max {
            return no(format!("picked {} items outside the bounds", picked.len()));
        }
    }
    Verdict::new(Outcome::Yes, format!("answered {}", serde_json::to_string(&value).unwrap_or_default())).declared(declared).evidence(evidence)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

probe! {
    /// Evidence: the untitled single-select field (`{type: string, enum}`) answered with one of its values.
    EnumUntitledSingle {
        id: "elicitation.enum_untitled_single", area: Elicitation, title: "enum: untitled single-select",
        revisions: ["2025-11-25"], eras: BOTH, serves: "probe_elicit_enums, field untitled_single",
        judge: |o| judge_enum(o, enum_fields::UNTITLED_SINGLE, false),
    }
}

probe! {
    /// Evidence: the titled single-select field (`oneOf` of `const`/`title`) answered with a
    /// `const`, never a title.
    EnumTitledSingle {
        id: "elicitation.enum_titled_single", area: Elicitation, title: "enum: titled single-select",
        revisions: ["2025-11-25"], eras: BOTH, serves: "probe_elicit_enums, field titled_single",
        judge: |o| judge_enum(o, enum_fields::TITLED_SINGLE, false),
    }
}

probe! {
    /// Evidence: the untitled multi-select field (array of `enum` items, 1–2 items) answered with
    /// an array of allowed values within the bounds.
    EnumUntitledMulti {
        id: "elicitation.enum_untitled_multi", area: Elicitation, title: "enum: untitled multi-select",
        revisions: ["2025-11-25"], eras: BOTH, serves: "probe_elicit_enums, field untitled_multi",
        judge: |o| judge_enum(o, enum_fields::UNTITLED_MULTI, true),
    }
}

probe! {
    /// Evidence: the titled multi-select field (`items.anyOf` of `const`/`title`) answered with an
    /// array of `const` values, never titles.
    EnumTitledMulti {
        id: "elicitation.enum_titled_multi", area: Elicitation, title: "enum: titled multi-select",
        revisions: ["2025-11-25"], eras: BOTH, serves: "probe_elicit_enums, field titled_multi",
        judge: |o| judge_enum(o, enum_fields::TITLED_MULTI, true),
    }
}

probe! {
    /// Evidence: the legacy field (`enum` with `enumNames`) answered with an `enum` value, never
    /// its display name.
    EnumLegacyNames {
        id: "elicitation.enum_legacy_names", area: Elicitation, title: "enum: legacy enumNames",
        revisions: ["2025-06-18", "2025-11-25"], eras: BOTH, serves: "probe_elicit_enums, field legacy_enum_names",
        judge: |o| judge_enum(o, enum_fields::LEGACY_NAMES, false),
    }
}

probe! {
    /// Evidence: the URL-mode elicitation answered with an action (accept, decline or cancel)
    /// and no content, by a person (under 100 ms, or in a run journalled as `unattended`, it is
    /// auto-answered). An error
    /// answer is no; content on a URL answer is a violation.
    Url {
        id: "elicitation.url", area: Elicitation, title: "URL-mode elicitation",
        revisions: ["2025-11-25", "2026-07-28"], eras: BOTH, serves: "probe_elicit_url asks the user to open a URL",
        judge: judge_url,
    }
}

fn judge_url(o: &Observations) -> Verdict {
    let declared = Declaration::from_bool(o.declares(&["elicitation", "url"]));
    let (result, exchange) = match answered(o.exchange(surface::TOOL_ELICIT_URL, ELICIT), &declared) {
        Ok(ok) => ok,
        Err(verdict) => return verdict,
    };
    let verdict = |outcome, detail: String| Verdict::new(outcome, detail).declared(declared.clone()).evidence(exchange_evidence(&exchange)).opportunity([exchange.asked]);
    match (result.get("action").and_then(Value::as_str), result.get("content"), Nobody::asked(o, &exchange)) {
        (Some(_), Some(c), _) if !c.is_null() => verdict(Outcome::Violation, "URL answer carries form content".into()),
        (Some(action), _, Some(nobody)) => verdict(Outcome::AutoAnswered, format!("answered {action} {}", nobody.why())).evidence(nobody.evidence(&exchange)),
        (Some(action), _, None) => verdict(Outcome::Yes, format!("answered {action} in {}", exchange.latency_us.map(latency_bucket).unwrap_or("?"))),
        (None, _, _) => verdict(Outcome::No, "answer has no action".into()),
    }
}

probe! {
    /// Evidence: the URL of the URL-mode elicitation is a loopback fetch trap the server opened
    /// for the run; no request reaches it (yes). A request from the client itself (not a browser
    /// it opened, which the terminal runs' browser trap catches instead) is a violation: "clients
    /// MUST NOT automatically pre-fetch the URL or any of its metadata" (2025-11-25 elicitation,
    /// URL mode). Not asked because the tool was never called is not reached; called but never
    /// asked (the client does not take URL mode) is n/a.
    UrlNotPrefetched {
        id: "elicitation.url_not_prefetched", area: Elicitation, title: "URL mode: the URL is not fetched by the client",
        revisions: ["2025-11-25", "2026-07-28"], eras: BOTH, serves: "probe_elicit_url's URL is a loopback trap that journals every request",
        judge: judge_url_not_prefetched,
    }
}

fn judge_url_not_prefetched(o: &Observations) -> Verdict {
    let declared = Declaration::from_bool(o.declares(&["elicitation", "url"]));
    let Some(exchange) = o.exchange(surface::TOOL_ELICIT_URL, ELICIT) else {
        return match o.tool_calls(surface::TOOL_ELICIT_URL).next() {
            Some(call) => Verdict::new(Outcome::NotApplicable, "the tool was called but no URL-mode request went out").declared(declared).evidence([call.seq]),
            None => Verdict::new(Outcome::NotReached, "the server never got to ask: the tool was not called").declared(declared),
        };
    };
    if let Some(fetched) = o.trap_fetches(crate::fetch_trap::TRAP_PATH).next() {
        return Verdict::new(Outcome::Violation, format!("the client fetched the URL itself: {}", crate::fetch_trap::fetcher(fetched)))
            .declared(declared)
            .evidence([exchange.asked, fetched.seq]);
    }
    Verdict::new(Outcome::Yes, "the URL was never fetched").declared(declared).evidence([exchange.asked])
}

probe! {
    /// Evidence (2026-07-28): every retried call after an `InputRequiredResult` uses a new id and
    /// echoes `requestState` byte for byte.
    MrtrRetry {
        id: "elicitation.mrtr_retry", area: Elicitation, title: "MRTR retry: new id, requestState echoed",
        revisions: ["2026-07-28"], eras: MODERN, serves: "InputRequiredResult with a requestState of awkward bytes",
        judge: judge_mrtr,
    }
}

fn judge_mrtr(o: &Observations) -> Verdict {
    let tools = [surface::TOOL_ELICIT_FORM, surface::TOOL_ELICIT_ENUMS, surface::TOOL_ELICIT_URL, surface::TOOL_SAMPLING, surface::TOOL_ROOTS];
    let exchanges: Vec<_> = tools.iter().filter_map(|t| o.exchange(t, ELICIT)).filter(|e| e.answered.is_some()).collect();
    if exchanges.is_empty() {
        return Verdict::new(Outcome::NotReached, "no retried call");
    }
    let evidence: Vec<u64> = exchanges.iter().flat_map(|e| [Some(e.asked), e.answered]).flatten().collect();
    if let Some(bad) = exchanges.iter().find(|e| e.retry_reused_id) {
        return Verdict::new(Outcome::No, "a retry reused the original request id").evidence([bad.asked]).opportunity([bad.asked]);
    }
    let altered = exchanges.iter().filter(|e| e.request_state.as_ref().is_some_and(|(sent, issued)| sent != issued)).count();
    if altered > 0 {
        return Verdict::new(Outcome::No, format!("requestState altered or dropped on {altered} of {} retries", exchanges.len()))
            .opportunity(evidence.first().copied())
            .evidence(evidence);
    }
    Verdict::new(Outcome::Yes, format!("{} retries, each with a new id and the exact requestState", exchanges.len())).evidence(evidence)
}

probe! {
    /// Evidence (2026-07-28 era): a call of `probe_ping` (2026-07-28 has no ping) is answered
    /// `input_required` with a `requestState` and no `inputRequests` (a server shedding load);
    /// the client calls again with a new id and that `requestState` byte for byte (yes). No second
    /// call is no; one without the state, or with it altered, or reusing the id, is no. The tool
    /// not called is not reached; a call answered at once (a server older than this probe) is
    /// not reached too.
    MrtrStateOnly {
        id: "elicitation.mrtr_state_only", area: Elicitation, title: "MRTR: an input_required with only a requestState is retried with it",
        revisions: ["2026-07-28"], eras: MODERN, serves: "probe_ping: a call answered input_required with a requestState and no input request",
        judge: judge_state_only,
    }
}

fn judge_state_only(o: &Observations) -> Verdict {
    let calls: Vec<&crate::observe::Frame> = o.tool_calls(surface::TOOL_PING).collect();
    let Some(first) = calls.first() else {
        return Verdict::new(Outcome::NotReached, "probe_ping was never called");
    };
    let shed = calls.iter().filter_map(|call| o.answer_to(call).map(|a| (*call, a))).find(|(_, a)| a.input_required().is_some());
    let Some((asked_in, shed)) = shed else {
        return Verdict::new(Outcome::NotReached, "the call was answered at once: the server asked for no round with its state only").evidence([first.seq]);
    };
    let issued = shed.input_required().and_then(|r| r.get("requestState")).and_then(Value::as_str);
    let retry = calls.iter().find(|c| c.seq > shed.seq);
    let sent = retry.and_then(|r| r.params().get("requestState")).and_then(Value::as_str);
    let verdict = match retry {
        None => Verdict::new(Outcome::No, "never called again after an input_required with only a requestState"),
        Some(r) if r.id() == asked_in.id() => Verdict::new(Outcome::No, "the retry reused the original request id"),
        Some(_) if sent.is_none() => Verdict::new(Outcome::No, "called again without the requestState"),
        Some(_) if sent != issued => Verdict::new(Outcome::No, "called again with the requestState altered"),
        Some(_) => Verdict::new(Outcome::Yes, "called again with a new id and the exact requestState"),
    };
    let verdict = verdict.evidence([asked_in.seq, shed.seq].into_iter().chain(retry.map(|r| r.seq)));
    if verdict.outcome == Outcome::Yes {
        verdict
    } else {
        verdict.opportunity([shed.seq])
    }
}

probe! {
    /// Evidence (2026-07-28 era): `probe_two_inputs` answers its call with one
    /// `InputRequiredResult` holding two form elicitations; the client's retry of the call carries
    /// `inputResponses` for both keys (yes). One of the two answered is partial; a retry without
    /// `inputResponses`, or no retry, is no. An `InputRequiredResult` may hold several requests and
    /// the retry answers them all (2026-07-28 §Multi-round-trip requests).
    MrtrMultipleInputs {
        id: "elicitation.mrtr_multiple_inputs", area: Elicitation, title: "MRTR: several inputRequests answered in one retry",
        revisions: ["2026-07-28"], eras: MODERN, serves: "probe_two_inputs: one InputRequiredResult with two form elicitations",
        judge: judge_two_inputs,
    }
}

fn judge_two_inputs(o: &Observations) -> Verdict {
    let declared = Declaration::from_bool(o.declares(&["elicitation"]));
    let calls: Vec<&crate::observe::Frame> = o.tool_calls(surface::TOOL_TWO_INPUTS).collect();
    let Some(first) = calls.first() else {
        return Verdict::new(Outcome::NotReached, "the server never got to ask: the tool was not called").declared(declared);
    };
    let asked = calls.iter().filter_map(|call| o.answer_to(call)).find(|a| a.input_required().is_some());
    let Some(asked) = asked else {
        return Verdict::new(Outcome::Inconclusive, "the call was never answered with an InputRequiredResult").evidence([first.seq]).declared(declared);
    };
    let keys = asked.input_required().and_then(|r| r.get("inputRequests")).and_then(Value::as_object).map_or(0, |m| m.len());
    let retry = calls.iter().find(|c| c.seq > asked.seq);
    let answered = retry.and_then(|r| r.params().get("inputResponses")).and_then(Value::as_object).map_or(0, |m| m.len());
    let verdict = match retry {
        None => Verdict::new(Outcome::No, format!("asked {keys} inputs at once, never retried the call")),
        Some(_) if answered >= keys => Verdict::new(Outcome::Yes, format!("the retry answered all {keys} inputs")),
        Some(_) if answered > 0 => Verdict::new(Outcome::Partial, format!("the retry answered {answered} of {keys} inputs")),
        Some(_) => Verdict::new(Outcome::No, format!("the retry carried no inputResponses for the {keys} inputs")),
    };
    let evidence = [asked.seq].into_iter().chain(retry.map(|r| r.seq));
    let verdict = verdict.declared(declared).evidence(evidence);
    if verdict.outcome == Outcome::Yes {
        verdict
    } else {
        verdict.opportunity([asked.seq])
    }
}
