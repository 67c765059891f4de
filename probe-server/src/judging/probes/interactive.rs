//! Interactive elicitation probes: a person at the host's terminal. Each probe is judged on its own
//! run (an `interactive-*` server variant) from two witnesses in one journal: the server's frames
//! (what the answer carried) and the terminal driver's notes (labelled screens, keys pressed,
//! where the keystroke plan stopped, URLs the host tried to open), placed where they happened.
//! When the screen did not show what the plan expected, the verdict is not-reached with that
//! screen as evidence, never a guess — except where the server asked and the form never appeared
//! (a host that answers the request by itself and shows nothing: every probe of the form says no)
//! or showed none of its fields at all (there was nothing to fill in: the probes that need a field
//! say no), and an answer sent after the plan stopped is the driver leaving the form, never the
//! person's.

use serde_json::Value;

use super::{exchange_evidence, probe, BOTH, LEGACY};
use crate::interactive::{self as plan, Input};
use crate::journal::Transport;
use crate::note::{self, Note, Payload};
use crate::observe::{Answer, Exchange, Observations};
use crate::probe::{Declaration, Outcome, Verdict};
use crate::surface::{self, enum_fields};

const ELICIT: &str = "elicitation/create";
const STDIO_ONLY: &[Transport] = &[Transport::Stdio];

/// A labelled copy of the screen the driver saved.
struct Screen {
    seq: u64,
    label: String,
    text: String,
}

fn screens(o: &Observations) -> Vec<Screen> {
    o.payloads::<note::Screen>().map(|(e, screen)| Screen { seq: e.seq, label: screen.label, text: screen.text }).collect()
}

fn screen(o: &Observations, label: &str) -> Option<Screen> {
    screens(o).into_iter().find(|s| s.label == label)
}

/// Where the plan stopped, if it did: the note's line and its reason.
fn stopped(o: &Observations) -> Option<(u64, String)> {
    o.notes(Note::PlanStopped).next().map(|e| (e.seq, note::PlanStopped::of(e).and_then(Result::ok).map_or_else(|| "?".to_string(), |stopped| stopped.reason)))
}

/// The verdict when the run never got as far as `what`: the plan stopped, or no terminal at all.
fn not_reached(o: &Observations, what: &str) -> Verdict {
    match stopped(o) {
        Some((seq, reason)) => Verdict::new(Outcome::NotReached, format!("{what} not reached: the keystroke plan stopped ({reason})")).evidence([seq]),
        None if screens(o).is_empty() => Verdict::new(Outcome::NotReached, "no screen was recorded: the host was not driven through a terminal"),
        None => Verdict::new(Outcome::NotReached, format!("{what} not reached")),
    }
}

/// A no for a host whose form showed none of `tool`'s fields: with nothing to fill in, the person
/// could not go on, and the plan stopped for that reason, not the harness's.
fn fieldless(o: &Observations, tool: &str) -> Option<Verdict> {
    let shown = screen(o, plan::FORM_SHOWN)?;
    let exchange = o.exchange(tool, ELICIT)?;
    let labels = plan::field_labels(tool);
    if labels.is_empty() || labels.iter().any(|l| shows_label(&shown.text, l)) {
        return None;
    }
    let evidence = exchange_evidence(&exchange).into_iter().chain([shown.seq]);
    Some(Verdict::new(Outcome::No, "the form showed none of its fields: there was nothing to fill in").declared(declared(o)).evidence(evidence))
}

/// Whether `text` shows `label` as a word of its own (`ratio` is not shown by "configuration").
fn shows_label(text: &str, label: &str) -> bool {
    let word_char = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    text.match_indices(label).any(|(at, _)| !word_char(text[..at].chars().next_back()) && !word_char(text[at + label.len()..].chars().next()))
}

fn declared(o: &Observations) -> Declaration {
    Declaration::from_bool(o.declares(&["elicitation"]))
}

/// The answer the server received for `tool`'s elicitation, with the exchange. An answer sent
/// after the keystroke plan stopped is not the person's (the driver left the form with the cancel
/// keys): there is none then, and the verdict says where the plan stopped.
fn answer(o: &Observations, tool: &str) -> Option<(Value, Exchange)> {
    let exchange = o.exchange(tool, ELICIT)?;
    if let (Some((stop, _)), Some(answered)) = (stopped(o), exchange.answered) {
        if answered > stop {
            return None;
        }
    }
    match &exchange.answer {
        Some(Answer::Result(r)) => Some((r.clone(), exchange)),
        Some(Answer::Error(e)) => Some((serde_json::json!({"error": e}), exchange)),
        None => None,
    }
}

fn action(result: &Value) -> &str {
    result.get("action").and_then(Value::as_str).unwrap_or(if result.get("error").is_some() { "an error" } else { "no action" })
}

/// `screens` and the lines where the server asked for `tool`'s input and got its answer.
fn with_exchange(o: &Observations, tool: &str, screens: impl IntoIterator<Item = u64>) -> Vec<u64> {
    screens.into_iter().chain(o.exchange(tool, ELICIT).map(|e| exchange_evidence(&e)).unwrap_or_default()).collect()
}

/// Cites the opportunity of a verdict that blames the host: the server asked for the form (the
/// ask's line) and the driver saved the screens it acted on.
fn with_ask(o: &Observations, verdict: Verdict) -> Verdict {
    if !verdict.blames_client() {
        return verdict;
    }
    let asked = [surface::TOOL_ELICIT_FORM, surface::TOOL_ELICIT_ENUMS, surface::TOOL_ELICIT_URL].iter().find_map(|tool| o.exchange(tool, ELICIT)).map(|e| e.asked);
    let first_screen = screens(o).first().map(|s| s.seq);
    verdict.opportunity(asked.into_iter().chain(first_screen))
}

/// The lines that show the field `label`: each line with the label, and the few lines after it
/// (a host may draw the value, and a hint, below the label) up to a blank line or another
/// field's label.
fn field_lines<'a>(text: &'a str, label: &'a str, labels: &'a [String]) -> impl Iterator<Item = &'a str> + 'a {
    let lines: Vec<&'a str> = text.lines().collect();
    let others = move |line: &str| labels.iter().any(|other| other != label && line.contains(other.as_str()));
    let blank = |line: &str| line.chars().all(|c| c.is_whitespace() || matches!(c, '|' | '│' | '┃'));
    let mut shown = Vec::new();
    for (i, line) in lines.iter().enumerate().filter(|(_, l)| l.contains(label)) {
        shown.push(*line);
        shown.extend(lines[i + 1..].iter().take(FIELD_LINES_BELOW).take_while(|l| !blank(l) && !others(l)));
    }
    shown.into_iter()
}

/// How many lines below its label a field's value may be drawn.
const FIELD_LINES_BELOW: usize = 3;

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] = &[
    &FormShown,
    &DefaultsPrefilled,
    &AcceptTyped,
    &Decline,
    &Cancel,
    &RequiredEnforced,
    &FormatEnforced,
    &BoundsEnforced,
    &EnumUntitledSingle,
    &EnumTitledSingle,
    &EnumUntitledMulti,
    &EnumTitledMulti,
    &EnumLegacyNames,
    &UrlShown,
    &UrlNotOpenedUnasked,
    &FormWithdrawn,
];

probe! {
    /// Evidence: the screen saved when the form appeared shows the elicitation's message and the
    /// label (title, else name) of every field.
    FormShown {
        id: "interactive.form_shown", area: Interactive, title: "the form is shown: message and every field",
        revisions: ["2025-06-18", "2026-07-28"], eras: BOTH, transports: STDIO_ONLY, variant: InteractiveAccept,
        serves: "probe_elicit_form, a person at the terminal", judge: |o| with_ask(o, judge_form_shown(o)),
    }
}

/// No screen of `what` was saved: no when the server asked and the plan stopped waiting for it,
/// else not-reached.
fn never_shown(o: &Observations, tool: &str, what: &str, declared: Declaration) -> Verdict {
    match (stopped(o), o.exchange(tool, ELICIT)) {
        (Some((seq, reason)), Some(exchange)) => Verdict::new(Outcome::No, format!("the server asked and the screen never showed {what} ({reason})"))
            .declared(declared)
            .evidence(exchange_evidence(&exchange).into_iter().chain([seq])),
        _ => not_reached(o, what),
    }
}

/// The verdict when the plan never got to `step` of `tool`'s form: no when the form was never
/// shown though the server asked ([`never_shown`]) or showed none of its fields ([`fieldless`]),
/// else not-reached.
fn unreached_step(o: &Observations, tool: &str, step: &str) -> Verdict {
    if screen(o, plan::FORM_SHOWN).is_none() {
        return never_shown(o, tool, "the form", declared(o));
    }
    fieldless(o, tool).unwrap_or_else(|| not_reached(o, step))
}

fn judge_form_shown(o: &Observations) -> Verdict {
    let Some(shown) = screen(o, plan::FORM_SHOWN) else { return never_shown(o, surface::TOOL_ELICIT_FORM, "the form", declared(o)) };
    let schema = surface::elicit_form_schema();
    let message = plan::message_of(surface::TOOL_ELICIT_FORM);
    let mut missing: Vec<String> = plan::labels(&schema).into_iter().map(|(_, label)| label).filter(|l| !shows_label(&shown.text, l)).collect();
    if !shown.text.contains(message) {
        missing.insert(0, "the message".into());
    }
    let evidence = with_exchange(o, surface::TOOL_ELICIT_FORM, [shown.seq]);
    if missing.is_empty() {
        Verdict::new(Outcome::Yes, "message and every field label on screen").declared(declared(o)).evidence(evidence)
    } else {
        Verdict::new(Outcome::No, format!("on screen without: {}", missing.join(", "))).declared(declared(o)).evidence(evidence)
    }
}

probe! {
    /// Evidence: on the screen saved when the form appeared, each field with a text or number
    /// default shows it on the field's line or just below its label, and the fields the person left alone come back
    /// with their defaults.
    DefaultsPrefilled {
        id: "interactive.defaults_prefilled", area: Interactive, title: "defaults pre-filled",
        revisions: ["2025-11-25"], eras: BOTH, transports: STDIO_ONLY, variant: InteractiveAccept,
        serves: "probe_elicit_form: every field has a default", judge: |o| with_ask(o, judge_defaults(o)),
    }
}

fn default_text(default: &Value) -> Option<String> {
    match default {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn judge_defaults(o: &Observations) -> Verdict {
    let Some(shown) = screen(o, plan::FORM_SHOWN) else { return never_shown(o, surface::TOOL_ELICIT_FORM, "the form", declared(o)) };
    if let Some(no) = fieldless(o, surface::TOOL_ELICIT_FORM) {
        return no;
    }
    let schema = surface::elicit_form_schema();
    let mut problems = Vec::new();
    let labels = plan::field_labels(surface::TOOL_ELICIT_FORM);
    for (field, label) in plan::labels(&schema) {
        let Some(text) = default_text(&schema["properties"][&field]["default"]) else { continue };
        if !field_lines(&shown.text, &label, &labels).any(|line| line.contains(&text)) {
            problems.push(format!("{label} does not show {text:?}"));
        }
    }
    let mut evidence = vec![shown.seq];
    match answer(o, surface::TOOL_ELICIT_FORM) {
        Some((result, exchange)) if action(&result) == "accept" => {
            evidence.extend(exchange_evidence(&exchange));
            for field in plan::UNTOUCHED {
                let got = &result["content"][field];
                if *got != schema["properties"][field]["default"] {
                    problems.push(format!("untouched {field} came back as {got}"));
                }
            }
        }
        Some((result, exchange)) => {
            evidence.extend(exchange_evidence(&exchange));
            problems.push(format!("the accept was answered {}", action(&result)));
        }
        None => return not_reached(o, "the accept"),
    }
    let verdict = if problems.is_empty() { Verdict::new(Outcome::Yes, "defaults on screen and sent back untouched") } else { Verdict::new(Outcome::No, problems.join("; ")) };
    verdict.declared(declared(o)).evidence(evidence)
}

probe! {
    /// Evidence: after the person typed an e-mail and an integer and toggled the boolean, the
    /// server received `accept` with exactly those values, each of its schema type (an integer,
    /// not a string or a float; a boolean, not a string).
    AcceptTyped {
        id: "interactive.accept_typed", area: Interactive, title: "accept sends the typed values, correctly typed",
        revisions: ["2025-06-18", "2026-07-28"], eras: BOTH, transports: STDIO_ONLY, variant: InteractiveAccept,
        serves: "probe_elicit_form: the person types person@example.net and 7, and toggles agree", judge: |o| with_ask(o, judge_accept(o)),
    }
}

fn judge_accept(o: &Observations) -> Verdict {
    let Some((result, exchange)) = answer(o, surface::TOOL_ELICIT_FORM) else { return fieldless(o, surface::TOOL_ELICIT_FORM).unwrap_or_else(|| not_reached(o, "the accept")) };
    let evidence: Vec<u64> = exchange_evidence(&exchange).into_iter().chain(screen(o, plan::AFTER_INPUT).map(|s| s.seq)).collect();
    let no = |detail: String| Verdict::new(Outcome::No, detail).declared(declared(o)).evidence(evidence.clone());
    if action(&result) != "accept" {
        return no(format!("answered {}", action(&result)));
    }
    let expected = plan::form_expected();
    let wrong: Vec<String> = plan::form_inputs()
        .iter()
        .filter(|input| result["content"][input.field] != expected[input.field] || type_differs(&result["content"][input.field], &expected[input.field]))
        .map(|input| format!("{} = {} (typed {})", input.field, result["content"][input.field], expected[input.field]))
        .collect();
    if wrong.is_empty() {
        Verdict::new(Outcome::Yes, "accept with the typed values, each of its type").declared(declared(o)).evidence(evidence)
    } else {
        no(format!("accepted with {}", wrong.join(", ")))
    }
}

/// 7 and 7.0 compare equal as JSON values; an integer field must not come back as a float.
fn type_differs(got: &Value, expected: &Value) -> bool {
    got.is_f64() != expected.is_f64()
}

probe! {
    /// Evidence: the person pressed the host's decline control; the server received `decline`.
    Decline {
        id: "interactive.decline", area: Interactive, title: "decline reaches the server as decline",
        revisions: ["2025-06-18", "2026-07-28"], eras: BOTH, transports: STDIO_ONLY, variant: InteractiveDecline,
        serves: "probe_elicit_form, declined", judge: |o| with_ask(o, judge_action(o, "decline")),
    }
}

probe! {
    /// Evidence: the person pressed the host's cancel key (e.g. Esc); the server received `cancel`.
    Cancel {
        id: "interactive.cancel", area: Interactive, title: "cancel reaches the server as cancel",
        revisions: ["2025-06-18", "2026-07-28"], eras: BOTH, transports: STDIO_ONLY, variant: InteractiveCancel,
        serves: "probe_elicit_form, cancelled", judge: |o| with_ask(o, judge_action(o, "cancel")),
    }
}

fn judge_action(o: &Observations, wanted: &str) -> Verdict {
    let Some((result, exchange)) = answer(o, surface::TOOL_ELICIT_FORM) else { return not_reached(o, &format!("the {wanted}")) };
    let screens = [plan::FORM_SHOWN, plan::AFTER_ANSWER].into_iter().filter_map(|label| screen(o, label).map(|s| s.seq));
    let evidence: Vec<u64> = exchange_evidence(&exchange).into_iter().chain(o.notes(Note::Keys).last().map(|k| k.seq)).chain(screens).collect();
    let got = action(&result);
    let verdict = if got == wanted {
        Verdict::new(Outcome::Yes, format!("the server received {wanted}"))
    } else if screen(o, plan::FORM_SHOWN).is_none() {
        Verdict::new(Outcome::No, format!("the host answered {got} by itself and showed no form to {wanted}"))
    } else {
        Verdict::new(Outcome::No, format!("the person chose {wanted}; the server received {got}"))
    };
    verdict.declared(declared(o)).evidence(evidence)
}

probe! {
    /// Evidence: with the required field emptied, pressing accept sends nothing (the screen saved
    /// after the attempt comes before any answer and still shows the form); the answer that
    /// follows carries the field.
    RequiredEnforced {
        id: "interactive.required_enforced", area: Interactive, title: "required fields enforced before accept",
        revisions: ["2025-06-18", "2026-07-28"], eras: BOTH, transports: STDIO_ONLY, variant: InteractiveRequired,
        serves: "probe_elicit_form: count is required; the person empties it and presses accept", judge: |o| with_ask(o, judge_held_back(o, crate::Variant::InteractiveRequired)),
    }
}

probe! {
    /// Evidence: with a non-address in the `format: email` field, pressing accept sends nothing
    /// (as for required fields); the answer that follows carries an address.
    FormatEnforced {
        id: "interactive.format_enforced", area: Interactive, title: "string format (email) enforced before accept",
        revisions: ["2025-06-18", "2026-07-28"], eras: BOTH, transports: STDIO_ONLY, variant: InteractiveBadFormat,
        serves: "probe_elicit_form: the person types not-an-address into E-mail and presses accept", judge: |o| with_ask(o, judge_held_back(o, crate::Variant::InteractiveBadFormat)),
    }
}

probe! {
    /// Evidence: with 11 in the integer field bounded 1..10, pressing accept sends nothing (as for
    /// required fields); the answer that follows carries a value within the bounds.
    BoundsEnforced {
        id: "interactive.bounds_enforced", area: Interactive, title: "integer bounds enforced before accept",
        revisions: ["2025-06-18", "2026-07-28"], eras: BOTH, transports: STDIO_ONLY, variant: InteractiveOutOfBounds,
        serves: "probe_elicit_form: the person types 11 into count (1..10) and presses accept", judge: |o| with_ask(o, judge_held_back(o, crate::Variant::InteractiveOutOfBounds)),
    }
}

/// Whether the host held back an accept that broke a rule of the form (what the person got wrong
/// in `variant`): nothing may reach the server before the screen saved after the attempt, and
/// that screen must still show the form.
fn judge_held_back(o: &Observations, variant: crate::Variant) -> Verdict {
    let Some(invalid) = plan::invalid_input(variant) else { return Verdict::new(Outcome::Inconclusive, "no invalid input is defined for this run") };
    let Some(attempt) = screen(o, plan::AFTER_ACCEPT_ATTEMPT) else { return unreached_step(o, surface::TOOL_ELICIT_FORM, "the accept attempt") };
    let mut evidence = vec![attempt.seq];
    if let Some((result, exchange)) = answer(o, surface::TOOL_ELICIT_FORM) {
        evidence.extend(exchange_evidence(&exchange));
        if exchange.answered.is_some_and(|seq| seq < attempt.seq) {
            let sent = &result["content"][invalid.field];
            let detail = match action(&result) {
                "accept" if sent.is_null() => format!("accepted without {} ({})", invalid.field, invalid.rule),
                "accept" => format!("accepted with {} = {sent} ({})", invalid.field, invalid.rule),
                other => format!("answered {other} at the accept attempt"),
            };
            return Verdict::new(Outcome::No, detail).declared(declared(o)).evidence(evidence);
        }
    }
    if !attempt.text.contains(plan::message_of(surface::TOOL_ELICIT_FORM)) {
        return Verdict::new(Outcome::No, "the form left the screen at the accept attempt, and nothing was sent").declared(declared(o)).evidence(evidence);
    }
    Verdict::new(Outcome::Yes, format!("accept held back ({})", invalid.rule)).declared(declared(o)).evidence(evidence)
}

probe! {
    /// Evidence: the screen saved with the untitled single-select open lists every value, and the
    /// value picked by its label reaches the server.
    EnumUntitledSingle {
        id: "interactive.enum_untitled_single", area: Interactive, title: "enum shown: untitled single-select",
        revisions: ["2025-11-25"], eras: BOTH, transports: STDIO_ONLY, variant: InteractiveEnums,
        serves: "probe_elicit_enums, field untitled_single", judge: |o| with_ask(o, judge_enum(o, enum_fields::UNTITLED_SINGLE)),
    }
}

probe! {
    /// Evidence: the screen saved with the titled single-select open lists every title, and the
    /// option picked by its title reaches the server as its `const`.
    EnumTitledSingle {
        id: "interactive.enum_titled_single", area: Interactive, title: "enum shown: titled single-select",
        revisions: ["2025-11-25"], eras: BOTH, transports: STDIO_ONLY, variant: InteractiveEnums,
        serves: "probe_elicit_enums, field titled_single", judge: |o| with_ask(o, judge_enum(o, enum_fields::TITLED_SINGLE)),
    }
}

probe! {
    /// Evidence: the screen saved with the untitled multi-select open lists every value, and the
    /// two values picked reach the server as an array.
    EnumUntitledMulti {
        id: "interactive.enum_untitled_multi", area: Interactive, title: "enum shown: untitled multi-select",
        revisions: ["2025-11-25"], eras: BOTH, transports: STDIO_ONLY, variant: InteractiveEnums,
        serves: "probe_elicit_enums, field untitled_multi", judge: |o| with_ask(o, judge_enum(o, enum_fields::UNTITLED_MULTI)),
    }
}

probe! {
    /// Evidence: the screen saved with the titled multi-select open lists every title, and the
    /// option picked reaches the server as an array of its `const`.
    EnumTitledMulti {
        id: "interactive.enum_titled_multi", area: Interactive, title: "enum shown: titled multi-select",
        revisions: ["2025-11-25"], eras: BOTH, transports: STDIO_ONLY, variant: InteractiveEnums,
        serves: "probe_elicit_enums, field titled_multi", judge: |o| with_ask(o, judge_enum(o, enum_fields::TITLED_MULTI)),
    }
}

probe! {
    /// Evidence: the screen saved with the legacy field open lists its `enumNames`, and the name
    /// picked reaches the server as its `enum` value.
    EnumLegacyNames {
        id: "interactive.enum_legacy_names", area: Interactive, title: "enum shown: legacy enumNames",
        revisions: ["2025-06-18", "2025-11-25"], eras: BOTH, transports: STDIO_ONLY, variant: InteractiveEnums,
        serves: "probe_elicit_enums, field legacy_enum_names", judge: |o| with_ask(o, judge_enum(o, enum_fields::LEGACY_NAMES)),
    }
}

fn judge_enum(o: &Observations, field: &str) -> Verdict {
    let label = plan::field_open(field);
    let Some(open) = screen(o, &label) else { return unreached_step(o, surface::TOOL_ELICIT_ENUMS, &format!("the {field} options")) };
    let shown = plan::option_labels(field);
    let missing: Vec<&String> = shown.iter().filter(|l| !open.text.contains(l.as_str())).collect();
    let mut evidence = vec![open.seq];
    if !missing.is_empty() {
        return Verdict::new(Outcome::No, format!("options not on screen: {missing:?}")).declared(declared(o)).evidence(evidence);
    }
    let Some((result, exchange)) = answer(o, surface::TOOL_ELICIT_ENUMS) else { return not_reached(o, "the accept") };
    evidence.extend(exchange_evidence(&exchange));
    let expected = plan::enum_expected(field);
    let picked = plan::enum_inputs().into_iter().find(|i| i.field == field).map(|i| i.input);
    let got = &result["content"][field];
    let verdict = match (action(&result), picked) {
        ("accept", Some(Input::Pick(labels))) if *got == expected => Verdict::new(Outcome::Yes, format!("options listed; picked {labels:?}, sent {got}")),
        ("accept", _) => Verdict::new(Outcome::No, format!("options listed; sent {got} instead of {expected}")),
        (other, _) => Verdict::new(Outcome::No, format!("options listed; the accept was answered {other}")),
    };
    verdict.declared(declared(o)).evidence(evidence)
}

probe! {
    /// Evidence: the screen saved when the URL-mode request appeared shows its message and the URL.
    UrlShown {
        id: "interactive.url_shown", area: Interactive, title: "URL mode: the URL is shown",
        revisions: ["2025-11-25", "2026-07-28"], eras: BOTH, transports: STDIO_ONLY, variant: InteractiveUrl,
        serves: "probe_elicit_url, a person at the terminal", judge: |o| with_ask(o, judge_url_shown(o)),
    }
}

fn judge_url_shown(o: &Observations) -> Verdict {
    let declared = Declaration::from_bool(o.declares(&["elicitation", "url"]));
    let Some(shown) = screen(o, plan::FORM_SHOWN) else { return never_shown(o, surface::TOOL_ELICIT_URL, "the URL request", declared) };
    let evidence = with_exchange(o, surface::TOOL_ELICIT_URL, [shown.seq]);
    let url = o.asked_url(surface::TOOL_ELICIT_URL).unwrap_or_else(|| surface::ELICIT_URL.to_string());
    if shown.text.contains(&url) {
        Verdict::new(Outcome::Yes, "the URL is on screen").declared(declared).evidence(evidence)
    } else {
        Verdict::new(Outcome::No, "the request is on screen without its URL").declared(declared).evidence(evidence)
    }
}

probe! {
    /// Evidence: while the URL-mode request was on screen and nobody had consented, the host did
    /// not try to open the URL (the runner's browser trap saw nothing), and did not answer accept
    /// (the person never consents). An open without consent is a violation; an accept sent before
    /// the person pressed any key is auto-answered, one sent later no. A host that answered the
    /// request by itself and showed nothing left nothing to consent to: n/a.
    UrlNotOpenedUnasked {
        id: "interactive.url_consent", area: Interactive, title: "URL mode: not opened without consent",
        revisions: ["2025-11-25", "2026-07-28"], eras: BOTH, transports: STDIO_ONLY, variant: InteractiveUrl,
        serves: "probe_elicit_url; the person never consents, then cancels", judge: |o| with_ask(o, judge_url_consent(o)),
    }
}

fn judge_url_consent(o: &Observations) -> Verdict {
    let declared = Declaration::from_bool(o.declares(&["elicitation", "url"]));
    if let Some((opened, browser)) = o.payloads::<note::BrowserOpened>().next() {
        // The arguments as JSON text (quoted), as verdicts have always shown them.
        let target = Value::from(browser.arguments).to_string();
        return Verdict::new(Outcome::Violation, format!("opened without consent: {target}")).declared(declared).evidence([opened.seq]);
    }
    let answered = answer(o, surface::TOOL_ELICIT_URL);
    // The person never consents: an accept is consent given for them.
    if let Some((_, exchange)) = answered.as_ref().filter(|(result, _)| action(result) == "accept") {
        let person_acted = o.notes(Note::Keys).find(|keys| keys.seq > exchange.asked).map(|keys| keys.seq);
        let before_the_person = exchange.answered.is_some_and(|answered| person_acted.is_none_or(|acted| answered < acted));
        let (outcome, when) = if before_the_person { (Outcome::AutoAnswered, "before the person did anything") } else { (Outcome::No, "though the person never consented") };
        return Verdict::new(outcome, format!("answered accept {when}")).declared(declared).evidence(exchange_evidence(exchange));
    }
    let Some(shown) = screen(o, plan::FORM_SHOWN) else {
        // A host that answers the request by itself and shows nothing leaves the person nothing to
        // consent to: a yes here would hold for a host without URL requests at all.
        return match answered {
            Some((result, exchange)) => {
                Verdict::new(Outcome::NotApplicable, format!("answered {} by itself and showed no request: nothing to consent to (nothing was opened)", action(&result)))
                    .declared(declared)
                    .evidence(exchange_evidence(&exchange))
            }
            None => not_reached(o, "the URL request"),
        };
    };
    Verdict::new(Outcome::Yes, "shown and left unopened until the person answered").declared(declared).evidence(with_exchange(o, surface::TOOL_ELICIT_URL, [shown.seq]))
}

probe! {
    /// Evidence (legacy era: only there can a server withdraw its request): after the server sent
    /// `notifications/cancelled` for the open form, the screen saved next no longer shows the form,
    /// and no answer to the withdrawn request arrives. A form that stays is partial if the person's
    /// late answer is not sent, no if it is; the detail says what reached the server.
    FormWithdrawn {
        id: "interactive.form_withdrawn", area: Interactive, title: "a withdrawn form goes away",
        revisions: ["2025-06-18", "2025-11-25"], eras: LEGACY, transports: STDIO_ONLY, variant: InteractiveWithdrawn,
        serves: "probe_elicit_form; the server cancels its request after 6 s, then the person presses accept",
        judge: |o| with_ask(o, judge_withdrawn(o)),
    }
}

fn judge_withdrawn(o: &Observations) -> Verdict {
    let Some(cancel) = o.server_notifications("notifications/cancelled").next() else {
        return match answer(o, surface::TOOL_ELICIT_FORM) {
            Some((result, exchange)) => Verdict::new(Outcome::NotReached, format!("answered {} before the server withdrew the request", action(&result)))
                .declared(declared(o))
                .evidence(exchange_evidence(&exchange)),
            None => not_reached(o, "the withdrawal"),
        };
    };
    let Some(after) = screens(o).into_iter().find(|s| s.label == plan::AFTER_WITHDRAWAL && s.seq > cancel.seq) else { return not_reached(o, "the screen after the withdrawal") };
    let withdrawn = cancel.params().get("requestId");
    let late = o.frames.iter().find(|f| f.seq > cancel.seq && f.dir == crate::journal::Direction::ClientToServer && f.is_answer() && f.id() == withdrawn);
    let form_gone = !after.text.contains(plan::message_of(surface::TOOL_ELICIT_FORM));
    let mut evidence = vec![cancel.seq, after.seq];
    evidence.extend(late.map(|f| f.seq));
    let sent = late.map(|f| f.result().map_or_else(|| "an error".to_string(), |r| action(r).to_string()));
    let verdict = match (form_gone, sent) {
        (true, None) => Verdict::new(Outcome::Yes, "the form went away when the server withdrew it; nothing was sent for it"),
        (true, Some(what)) => Verdict::new(Outcome::No, format!("the form went away, and {what} was still sent for the withdrawn request")),
        (false, None) => Verdict::new(Outcome::Partial, "the form stayed on screen after the server withdrew it; the late answer was not sent"),
        (false, Some(what)) => Verdict::new(Outcome::No, format!("the form stayed on screen after the server withdrew it, and the late answer ({what}) was sent")),
    };
    verdict.declared(declared(o)).evidence(evidence)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_is_shown_only_as_a_word_of_its_own() {
        assert!(shows_label("│ ratio (min 0.0) │", "ratio"));
        assert!(shows_label("ratio: 0.5", "ratio"));
        assert!(!shows_label("see the configuration", "ratio"));
        assert!(!shows_label("ratios", "ratio"));
        assert!(shows_label("E-mail *", "E-mail"));
    }

    #[test]
    fn a_fields_lines_are_its_label_line_and_the_value_below_it() {
        let labels = ["count".to_string(), "E-mail".into(), "note".into()];
        let beside = "please confirm\n  count: 3\n  E-mail: a@b.c\n  note: hello\n  Accept";
        assert_eq!(field_lines(beside, "count", &labels).collect::<Vec<_>>(), vec!["  count: 3"]);
        let below = "│ count * (min 1)  │\n│ ▎ 3              │\n│                  │\n│ E-mail *         │\n│   Email (hint)   │\n│ ▎ a@b.c          │\n│ note             │\n│ ▎ hello          │";
        assert_eq!(field_lines(below, "count", &labels).collect::<Vec<_>>(), vec!["│ count * (min 1)  │", "│ ▎ 3              │"]);
        assert_eq!(field_lines(below, "E-mail", &labels).last(), Some("│ ▎ a@b.c          │"));
        // The next field's label ends a field's lines.
        assert_eq!(field_lines(below, "note", &labels).count(), 2);
        assert!(!field_lines("count:\nnote: 3", "count", &labels).any(|l| l.contains('3')));
    }
}
