//! What a person does in each interactive run, as data shared by the terminal driver (which types
//! it) and the interactive probes (which judge what reached the server and what the screen showed).
//!
//! The driver journals what it saw and did as notes beside the server's frames, placed where they
//! happened in the server's journal: [`Note::Screen`](crate::note::Note::Screen) (a labelled copy
//! of the screen), `Keys` (what was pressed and why), `PlanStopped` (the screen did not show what
//! the plan expected) and `BrowserOpened` (the host tried to open a URL).

use serde_json::{json, Value};

use crate::surface::{self, enum_fields};

/// Screen labels.
pub const FORM_SHOWN: &str = "form shown";
pub const AFTER_INPUT: &str = "after input";
pub const AFTER_ACCEPT_ATTEMPT: &str = "after accept attempt";
pub const AFTER_ANSWER: &str = "after answer";
pub const AFTER_WITHDRAWAL: &str = "after the server withdrew the request";
pub const AFTER_LATE_ANSWER: &str = "after a late answer";

/// The label of the screen taken while an enum field's options are open.
pub fn field_open(field: &str) -> String {
    format!("field open: {field}")
}

/// The required field emptied in the interactive-required run.
pub const REQUIRED_FIELD: &str = "count";

/// A value the person enters that breaks a rule of the form, and the valid value that fixes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Invalid {
    pub field: &'static str,
    /// `None`: the field is emptied.
    pub bad: Option<&'static str>,
    pub fixed: &'static str,
    /// The rule, in words.
    pub rule: &'static str,
}

/// What the person gets wrong in each validation run.
pub fn invalid_input(variant: crate::Variant) -> Option<Invalid> {
    use crate::Variant as S;
    match variant {
        S::InteractiveRequired => Some(Invalid { field: REQUIRED_FIELD, bad: None, fixed: "7", rule: "required" }),
        S::InteractiveBadFormat => Some(Invalid { field: "email", bad: Some("not-an-address"), fixed: "person@example.net", rule: "format: email" }),
        S::InteractiveOutOfBounds => Some(Invalid { field: "count", bad: Some("11"), fixed: "7", rule: "maximum: 10" }),
        _ => None,
    }
}

/// What the person does to one field.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Clear the field and type this.
    Text(&'static str),
    /// Toggle a boolean once.
    Toggle,
    /// Open the field and pick the options shown with these labels.
    Pick(Vec<String>),
}

/// One field of a form and what the person does to it.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldInput {
    pub field: &'static str,
    /// What the host is expected to show for the field: its title, else its name.
    pub label: String,
    pub input: Input,
    pub multi: bool,
}

/// The text a host is expected to show for a field: its `title`, else its name.
pub fn field_label(schema: &Value, field: &str) -> String {
    schema["properties"][field].get("title").and_then(Value::as_str).unwrap_or(field).to_string()
}

/// Every field of a schema and its label, in the schema's order.
pub fn labels(schema: &Value) -> Vec<(String, String)> {
    schema["properties"].as_object().map(|p| p.keys().map(|k| (k.clone(), field_label(schema, k))).collect()).unwrap_or_default()
}

/// The form's fields the person changes in the interactive-accept run; the others keep their defaults.
pub fn form_inputs() -> Vec<FieldInput> {
    let schema = surface::elicit_form_schema();
    let field = |field: &'static str, input| FieldInput { field, label: field_label(&schema, field), input, multi: false };
    vec![field("email", Input::Text("person@example.net")), field("count", Input::Text("7")), field("agree", Input::Toggle)]
}

/// The content the server must receive in the interactive-accept run: the typed values with their
/// types, the toggled default, and the untouched defaults.
pub fn form_expected() -> Value {
    json!({"email": "person@example.net", "count": 7, "agree": false, "ratio": 0.5, "note": "hello"})
}

/// The fields the person leaves alone (their defaults must come back).
pub const UNTOUCHED: [&str; 2] = ["ratio", "note"];

/// The labels a host is expected to show for an enum field's options: titles where the schema
/// gives them (`oneOf`/`anyOf` titles, legacy `enumNames`), else the values.
pub fn option_labels(field: &str) -> Vec<String> {
    let schema = surface::elicit_enum_schema();
    surface::enum_options(&schema["properties"][field]).map(|(options, _)| options.into_iter().map(|(_, label)| label).collect()).unwrap_or_default()
}

/// One pick per enum shape: (field, labels picked, value the server must receive).
fn enum_picks() -> Vec<(&'static str, Vec<&'static str>, Value)> {
    vec![
        (enum_fields::UNTITLED_SINGLE, vec!["blue"], json!("blue")),
        (enum_fields::TITLED_SINGLE, vec!["Large"], json!("l")),
        (enum_fields::UNTITLED_MULTI, vec!["tea", "water"], json!(["tea", "water"])),
        (enum_fields::TITLED_MULTI, vec!["Option one"], json!(["x1"])),
        (enum_fields::LEGACY_NAMES, vec!["High"], json!("hi")),
    ]
}

/// What the person picks in the interactive-enums run.
pub fn enum_inputs() -> Vec<FieldInput> {
    let schema = surface::elicit_enum_schema();
    enum_picks()
        .into_iter()
        .map(|(field, picks, _)| FieldInput {
            field,
            label: field_label(&schema, field),
            input: Input::Pick(picks.iter().map(|p| p.to_string()).collect()),
            multi: schema["properties"][field]["type"] == "array",
        })
        .collect()
}

/// The value the server must receive for an enum field in the interactive-enums run.
pub fn enum_expected(field: &str) -> Value {
    enum_picks().into_iter().find(|(f, _, _)| *f == field).map(|(_, _, v)| v).unwrap_or(Value::Null)
}

/// The message of the elicitation a tool asks for.
pub fn message_of(tool: &str) -> &'static str {
    match tool {
        surface::TOOL_ELICIT_ENUMS => "mcp-client-probe: pick one of each",
        surface::TOOL_ELICIT_URL => "mcp-client-probe: open this page to continue",
        _ => "mcp-client-probe: please confirm these details",
    }
}

/// The schema of the form a tool asks for (none for URL mode).
pub fn schema_of(tool: &str) -> Option<Value> {
    match tool {
        surface::TOOL_ELICIT_ENUMS => Some(surface::elicit_enum_schema()),
        surface::TOOL_ELICIT_FORM => Some(surface::elicit_form_schema()),
        _ => None,
    }
}

/// The labels a host is expected to show for `tool`'s form fields, in the schema's order (none
/// for a tool without a form).
pub fn field_labels(tool: &str) -> Vec<String> {
    schema_of(tool).map(|schema| labels(&schema).into_iter().map(|(_, label)| label).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_match_what_the_server_sends() {
        assert_eq!(surface::elicit_form_params()["message"], message_of(surface::TOOL_ELICIT_FORM));
        assert_eq!(surface::elicit_enum_params()["message"], message_of(surface::TOOL_ELICIT_ENUMS));
        assert_eq!(surface::elicit_url_params(None, surface::ELICIT_URL)["message"], message_of(surface::TOOL_ELICIT_URL));
    }

    #[test]
    fn every_enum_shape_has_a_pick_among_its_options_and_titles_are_shown() {
        for input in enum_inputs() {
            let Input::Pick(picks) = &input.input else { panic!("{input:?}") };
            let shown = option_labels(input.field);
            assert!(picks.iter().all(|p| shown.contains(p)), "{input:?} {shown:?}");
        }
        assert_eq!(option_labels(enum_fields::TITLED_SINGLE), vec!["Small", "Medium", "Large"]);
        assert_eq!(option_labels(enum_fields::LEGACY_NAMES), vec!["Low", "High"]);
        assert_eq!(enum_expected(enum_fields::TITLED_MULTI), json!(["x1"]));
    }

    #[test]
    fn the_typed_form_differs_from_the_defaults_where_the_person_typed() {
        let schema = surface::elicit_form_schema();
        let expected = form_expected();
        for input in form_inputs() {
            assert_ne!(schema["properties"][input.field]["default"], expected[input.field], "{}", input.field);
        }
        for field in UNTOUCHED {
            assert_eq!(schema["properties"][field]["default"], expected[field]);
        }
        assert_eq!(field_label(&schema, "email"), "E-mail");
    }
}
