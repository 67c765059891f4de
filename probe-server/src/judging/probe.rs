//! The probe model: a [`Probe`] says what it looks at and judges a run from its journal; a
//! [`Verdict`] is what it found, with what the client declared beside it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::era::Era;
use crate::observe::Observations;
use crate::variant::Variant;

/// The matrix section a probe belongs to, in matrix order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Area {
    Connection,
    Tools,
    Resources,
    Skills,
    Prompts,
    Elicitation,
    Interactive,
    Sampling,
    Roots,
    Utilities,
    Http,
    Affordances,
    Apps,
    Tasks,
    Events,
    Auth,
}

impl Area {
    pub fn title(self) -> &'static str {
        match self {
            Area::Connection => "Connection and lifecycle",
            Area::Tools => "Tools",
            Area::Resources => "Resources",
            Area::Skills => "Skills (SEP-2640)",
            Area::Prompts => "Prompts",
            Area::Elicitation => "Elicitation",
            Area::Interactive => "Elicitation with a person at the terminal",
            Area::Sampling => "Sampling",
            Area::Roots => "Roots",
            Area::Utilities => "Progress, logging and ping",
            Area::Http => "Streamable HTTP",
            Area::Affordances => "Model-facing affordances",
            Area::Apps => "MCP Apps (io.modelcontextprotocol/ui)",
            Area::Tasks => "Tasks (io.modelcontextprotocol/tasks)",
            Area::Events => "Events (io.modelcontextprotocol/events)",
            Area::Auth => "Authorization (OAuth, remote servers)",
        }
    }
}

/// What a probe found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// The feature works as the specification describes.
    Yes,
    /// Some of the feature works.
    Partial,
    /// The feature was exercised and does not work, or was not used.
    No,
    /// Declared in the client's capabilities but never honoured.
    DeclaredOnly,
    /// Answered at once with no person or model involved.
    AutoAnswered,
    /// Used without declaring it, or did what the specification forbids.
    Violation,
    /// The run never got to the point where the probe could see anything.
    NotReached,
    /// The evidence does not decide.
    Inconclusive,
    /// The probe does not exist in the era the client chose.
    NotApplicable,
}

impl Outcome {
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Yes => "yes",
            Outcome::Partial => "partial",
            Outcome::No => "no",
            Outcome::DeclaredOnly => "declared-only",
            Outcome::AutoAnswered => "auto-answered",
            Outcome::Violation => "violation",
            Outcome::NotReached => "not-reached",
            Outcome::Inconclusive => "inconclusive",
            Outcome::NotApplicable => "n/a",
        }
    }
}

/// What the client declared for the feature a probe looks at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Declaration {
    Declared,
    NotDeclared,
    /// The feature has no client capability.
    NoCapability,
}

impl Declaration {
    pub fn from_bool(declared: bool) -> Self {
        if declared {
            Declaration::Declared
        } else {
            Declaration::NotDeclared
        }
    }

    pub fn label(&self) -> &'static str {
        match self {
            Declaration::Declared => "declared",
            Declaration::NotDeclared => "not declared",
            Declaration::NoCapability => "-",
        }
    }
}

/// One probe's judgement of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Verdict {
    pub probe: String,
    pub outcome: Outcome,
    pub declared: Declaration,
    /// One line in plain words.
    pub detail: String,
    /// Journal sequence numbers of the frames that support the verdict.
    pub evidence: Vec<u64>,
    /// The server variant whose journal the evidence refers to.
    #[serde(default, alias = "scenario", skip_serializing_if = "Variant::is_standard")]
    pub variant: Variant,
    /// Whether the evidence lines are those of the model stub's journal.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub model_evidence: bool,
    /// Journal lines (of the same journal as `evidence`) showing that the harness gave the client
    /// its chance: a no, partial or declared-only is the client's doing only with them.
    #[serde(default, skip_serializing_if = "<[u64]>::is_empty")]
    pub opportunity: Box<[u64]>,
    /// Lines of the model stub's journal that belong to the opportunity of a verdict judged on
    /// the server's journal (the model called the tool that reaches the feature, a settled turn).
    #[serde(default, skip_serializing_if = "<[u64]>::is_empty")]
    pub opportunity_model: Box<[u64]>,
}

impl Verdict {
    pub fn new(outcome: Outcome, detail: impl Into<String>) -> Self {
        Verdict {
            probe: String::new(),
            outcome,
            declared: Declaration::NoCapability,
            detail: detail.into(),
            evidence: Vec::new(),
            variant: Variant::Standard,
            model_evidence: false,
            opportunity: Box::default(),
            opportunity_model: Box::default(),
        }
    }

    pub fn declared(mut self, declared: Declaration) -> Self {
        self.declared = declared;
        self
    }

    /// Adds lines of the opportunity (same journal as the evidence).
    pub fn opportunity(mut self, seqs: impl IntoIterator<Item = u64>) -> Self {
        self.opportunity = merged(&self.opportunity, seqs);
        self
    }

    /// Adds model-journal lines of the opportunity.
    pub fn opportunity_model(mut self, seqs: impl IntoIterator<Item = u64>) -> Self {
        self.opportunity_model = merged(&self.opportunity_model, seqs);
        self
    }

    /// Whether the verdict cites any opportunity.
    pub fn has_opportunity(&self) -> bool {
        !self.opportunity.is_empty() || !self.opportunity_model.is_empty()
    }

    /// Whether the verdict blames the client and so must cite its opportunity.
    pub fn blames_client(&self) -> bool {
        matches!(self.outcome, Outcome::No | Outcome::Partial | Outcome::DeclaredOnly)
    }

    pub fn evidence(mut self, seqs: impl IntoIterator<Item = u64>) -> Self {
        self.evidence.extend(seqs);
        self.evidence.sort_unstable();
        self.evidence.dedup();
        self
    }
}

/// `lines` and `more`, sorted, without repeats.
fn merged(lines: &[u64], more: impl IntoIterator<Item = u64>) -> Box<[u64]> {
    let mut all: Vec<u64> = lines.iter().copied().chain(more).collect();
    all.sort_unstable();
    all.dedup();
    all.into_boxed_slice()
}

/// One feature under test. Implementations live in [`crate::probes`], one file per family, and
/// are listed in [`crate::registry`]. `judge` is a pure function of the observations: it never
/// looks at the client's name or version.
pub trait Probe: Send + Sync {
    /// Stable identifier, `area.feature`.
    fn id(&self) -> &'static str;
    fn area(&self) -> Area;
    fn title(&self) -> &'static str;
    /// The protocol revisions that define the feature.
    fn revisions(&self) -> &'static [&'static str];
    /// The eras in which the probe applies.
    fn eras(&self) -> &'static [Era] {
        &Era::ALL
    }
    /// The transports over which the probe can observe anything.
    fn transports(&self) -> &'static [crate::journal::Transport] {
        &[crate::journal::Transport::Stdio, crate::journal::Transport::Http]
    }
    /// The server variant whose run this probe is judged on.
    fn variant(&self) -> crate::variant::Variant {
        crate::variant::Variant::Standard
    }
    /// What the server advertises and serves for this probe, in plain words.
    fn serves(&self) -> &'static str;
    /// The evidence the probe looks for: its doc comment.
    fn evidence(&self) -> &'static str;
    /// Whether the probe judges what a host showed its model (the model stub's journal).
    fn needs_model(&self) -> bool {
        false
    }
    /// Whether the judge reads the model stub's journal where there is one: a probe that needs
    /// it, or one that takes it as further evidence (what a host offered its model) and judges a
    /// client without a model from the wire. The runner keeps that journal with the record.
    fn reads_model(&self) -> bool {
        self.needs_model()
    }
    /// Whether the verdict's evidence lines are the model stub's journal's (by default, those of
    /// a probe that needs the model); a probe that needs the model for its opportunity but rests
    /// on the server's journal cites the model's lines as `opportunity_model`.
    fn evidence_in_model(&self) -> bool {
        self.needs_model()
    }
    /// Whether the probe can be judged from the wire alone (false: needs a model transcript).
    fn wire_judged(&self) -> bool {
        true
    }
    /// Whether the probe judges the runner's check of the client's frames against the official
    /// schemas (`wire_checked`), which a run has only when it was given the schemas.
    fn needs_schemas(&self) -> bool {
        false
    }
    /// A probe whose yes (in another server variant's run of the same client) is what gives
    /// this probe's verdict a meaning: where that probe says no, this one says n/a. For example,
    /// resource tools cannot be withheld from a server without resources by a host that never
    /// offers resource tools at all.
    fn precondition(&self) -> Option<&'static str> {
        None
    }
    fn judge(&self, observations: &Observations) -> Verdict;
}
