//! Features above probes: what a server author builds on (form elicitation, resource templates,
//! OAuth sign-in, …), each named by the probes that show it, and the rule that rolls a client's
//! verdicts up to one answer per feature.
//!
//! # The roll-up rule
//! 1. **One outcome per probe and client.** A client's columns (each transport, and the runs
//!    against a server that spoke one protocol era only) are merged: the best outcome any of them
//!    showed, ranked yes, partial, a negative (no, declared-only, auto-answered, violation), not
//!    reached or inconclusive, n/a. Where two columns decided differently (yes over stdio, no
//!    over HTTP) the merged outcome says where it held.
//! 2. **One answer per path.** A feature is shown one way or several (form elicitation with a
//!    person at the terminal, or headless). A path's probes that are n/a for the client are left
//!    out. Every remaining probe yes: *supported*. Some yes or partial: *partly*. None, and one
//!    negative: *no*. Nothing decided: *untested*, saying why (not reached, or n/a throughout).
//! 3. **The best path answers**, and names itself when the feature has more than one.
//!
//! A feature's `also` probes are shown beside it and never change its answer.

mod answers;
mod catalogue;
pub mod coverage;

pub use answers::{by_client, split_label, ClientAnswers};

pub use catalogue::FEATURES;

use probe_server::probe::Outcome;
use serde::Serialize;

/// A feature as the catalogue names it.
#[derive(Debug)]
pub struct Feature {
    /// Short, stable, kebab-case: `elicitation-forms`.
    pub id: &'static str,
    pub title: &'static str,
    pub group: Group,
    /// What a server author asks of a client, answered by this feature's roll-up.
    pub question: &'static str,
    /// The ways a client can show the feature, each with the probes that must all say yes.
    pub paths: &'static [Path],
    /// Probes shown with the feature that do not change its answer.
    pub also: &'static [&'static str],
    /// Specification terms and synonyms a search for the feature should match.
    pub terms: &'static [&'static str],
}

/// One way of showing a feature.
#[derive(Debug)]
pub struct Path {
    /// Empty for a feature shown one way only.
    pub name: &'static str,
    /// A word for tables (`person`, `headless`); empty with `name`.
    pub short: &'static str,
    pub probes: &'static [&'static str],
}

/// Where a feature sits in the tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Group {
    Tools,
    Resources,
    Prompts,
    Skills,
    Elicitation,
    Sampling,
    LongCalls,
    Apps,
    Auth,
    Connection,
}

impl Group {
    pub fn title(self) -> &'static str {
        match self {
            Group::Tools => "Tools and what reaches the model",
            Group::Resources => "Resources",
            Group::Prompts => "Prompts",
            Group::Skills => "Skills",
            Group::Elicitation => "Elicitation",
            Group::Sampling => "Sampling and roots",
            Group::LongCalls => "Long calls, tasks and logging",
            Group::Apps => "Apps",
            Group::Auth => "Authorization",
            Group::Connection => "Connection and transport",
        }
    }
}

impl Feature {
    /// Every probe the feature names, paths first, each once.
    pub fn probes(&self) -> Vec<&'static str> {
        let mut all: Vec<&'static str> = Vec::new();
        for probe in self.paths.iter().flat_map(|p| p.probes.iter()).chain(self.also) {
            if !all.contains(probe) {
                all.push(probe);
            }
        }
        all
    }

    /// Whether `probe` is shown beside the feature only (under `also`, in no path).
    pub fn only_also(&self, probe: &str) -> bool {
        self.also.contains(&probe) && !self.paths.iter().any(|p| p.probes.contains(&probe))
    }

    /// Whether a search for `query` (lower case) finds the feature: by id, title, question or term.
    pub fn matches(&self, query: &str) -> bool {
        let query = query.trim().to_lowercase();
        [self.id, self.title, self.question].iter().chain(self.terms).any(|text| text.to_lowercase().contains(&query))
            || query.split_whitespace().count() > 1 && query.split_whitespace().all(|word| self.matches(word))
    }
}

/// The feature with this id or title (case ignored).
pub fn feature(name: &str) -> Option<&'static Feature> {
    let name = name.trim();
    FEATURES.iter().find(|f| f.id.eq_ignore_ascii_case(name) || f.title.eq_ignore_ascii_case(name))
}

/// The features that name a probe.
#[cfg(test)]
pub fn features_of(probe: &str) -> impl Iterator<Item = &'static Feature> + '_ {
    FEATURES.iter().filter(move |f| f.probes().contains(&probe))
}

/// A feature's answer for one client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Answer {
    Supported,
    Partly,
    No,
    Untested,
}

impl Answer {
    pub fn label(self) -> &'static str {
        match self {
            Answer::Supported => "supported",
            Answer::Partly => "partly",
            Answer::No => "no",
            Answer::Untested => "untested",
        }
    }

    /// The answer's mark, for dense tables.
    pub fn symbol(self) -> &'static str {
        match self {
            Answer::Supported => "✓",
            Answer::Partly => "◐",
            Answer::No => "✕",
            Answer::Untested => "?",
        }
    }

    /// A symbol and the word, for tables.
    pub fn badge(self) -> String {
        format!("{} {}", self.symbol(), self.label())
    }

    /// What the answer means, for legends.
    pub fn meaning(self) -> &'static str {
        match self {
            Answer::Supported => "every probe of the feature said yes (those that apply in the protocol era the client spoke)",
            Answer::Partly => "some of the feature's probes said yes or partial, others did not",
            Answer::No => "the feature was exercised and no probe of it said yes",
            Answer::Untested => "the runs never got far enough to tell, or nothing of the feature exists in the era the client spoke",
        }
    }
}

/// One column's verdict on one probe, as the roll-up reads it.
#[derive(Debug, Clone, Copy)]
pub struct Seen<'a> {
    /// The column, as the matrix names its transport (`stdio`, `http · legacy-only server`).
    pub column: &'a str,
    pub outcome: Outcome,
    pub detail: &'a str,
}

/// How strongly an outcome decides: lower is better for the client.
fn rank(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Yes => 0,
        Outcome::Partial => 1,
        Outcome::No | Outcome::DeclaredOnly | Outcome::AutoAnswered | Outcome::Violation => 2,
        Outcome::NotReached | Outcome::Inconclusive => 3,
        Outcome::NotApplicable => 4,
    }
}

fn decided(outcome: Outcome) -> bool {
    rank(outcome) <= 2
}

/// A probe's outcome for a client, its columns merged (rule 1).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Merged {
    pub outcome: Outcome,
    /// The judge's detail of the first column with that outcome.
    pub detail: String,
    /// Where columns decided differently: the columns that showed `outcome`. Empty when they agree.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub only_in: Vec<String>,
}

/// Merges a probe's columns for one client; `None` when no column has the probe.
pub fn merge(seen: &[Seen]) -> Option<Merged> {
    let best = seen.iter().min_by_key(|s| rank(s.outcome))?;
    let decisions: Vec<&Seen> = seen.iter().filter(|s| decided(s.outcome)).collect();
    let differ = decisions.iter().any(|s| s.outcome != best.outcome);
    let only_in = if differ { seen.iter().filter(|s| s.outcome == best.outcome).map(|s| s.column.to_string()).collect() } else { Vec::new() };
    Some(Merged { outcome: best.outcome, detail: best.detail.to_string(), only_in })
}

/// A feature's answer for one client (rules 2 and 3).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeatureAnswer {
    pub answer: Answer,
    /// The path that answered, for a feature shown more than one way.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<&'static str>,
    /// Its word for tables.
    #[serde(skip)]
    pub path_short: Option<&'static str>,
    /// Why, in a few words: the probes that kept it from supported, or why it is untested.
    pub why: String,
}

impl FeatureAnswer {
    /// Why, led by the path that answered where the feature has several.
    pub fn explained(&self) -> String {
        match self.path {
            Some(path) => format!("{path}: {}", self.why),
            None => self.why.clone(),
        }
    }
}

/// The clients (names) whose answer for `feature` is `wanted`, in their order.
pub fn clients_answering<'a>(clients: &'a [ClientAnswers], feature: &str, wanted: Answer) -> Vec<&'a str> {
    clients.iter().filter(|c| c.answer(feature).is_some_and(|a| a.answer == wanted)).map(|c| c.client.as_str()).collect()
}

/// Rolls a client's merged probe outcomes up to the feature's answer. `outcome_of` gives the
/// merged outcome of a probe (none: the client has no verdict on it, read as not reached).
pub fn roll_up<'a>(feature: &Feature, outcome_of: impl Fn(&str) -> Option<&'a Merged>) -> FeatureAnswer {
    let mut best: Option<FeatureAnswer> = None;
    for path in feature.paths {
        let answer = path_answer(path, &outcome_of);
        if best.as_ref().is_none_or(|b| answer.answer < b.answer) {
            best = Some(answer);
        }
    }
    let mut best = best.unwrap_or(FeatureAnswer { answer: Answer::Untested, path: None, path_short: None, why: "the feature names no probe".into() });
    if feature.paths.len() < 2 {
        best.path = None;
        best.path_short = None;
    }
    best
}

fn path_answer<'a>(path: &Path, outcome_of: &impl Fn(&str) -> Option<&'a Merged>) -> FeatureAnswer {
    let outcomes: Vec<(&str, Outcome, &str)> = path
        .probes
        .iter()
        .map(|p| outcome_of(p).map_or((*p, Outcome::NotReached, "no verdict on record"), |m| (*p, m.outcome, m.detail.as_str())))
        .filter(|(_, o, _)| *o != Outcome::NotApplicable)
        .collect();
    let made = |answer: Answer, why: String| FeatureAnswer { answer, path: Some(path.name).filter(|n| !n.is_empty()), path_short: Some(path.short).filter(|n| !n.is_empty()), why };
    if outcomes.is_empty() {
        return made(Answer::Untested, "none of its probes applies in the protocol era the client spoke".into());
    }
    let short = |list: Vec<&(&str, Outcome, &str)>| list.iter().map(|(p, o, _)| format!("{p} {}", o.label())).collect::<Vec<_>>().join(", ");
    let yes = outcomes.iter().filter(|(_, o, _)| *o == Outcome::Yes).count();
    if yes == outcomes.len() {
        return made(Answer::Supported, format!("{yes} of {yes} probes yes"));
    }
    let not_yes: Vec<_> = outcomes.iter().filter(|(_, o, _)| *o != Outcome::Yes).collect();
    if yes > 0 || outcomes.iter().any(|(_, o, _)| *o == Outcome::Partial) {
        return made(Answer::Partly, format!("{yes} of {} probes yes; {}", outcomes.len(), short(not_yes)));
    }
    if let Some((probe, outcome, detail)) = outcomes.iter().find(|(_, o, _)| decided(*o)) {
        return made(Answer::No, format!("{probe} {}: {detail}", outcome.label()));
    }
    let (probe, _, detail) = outcomes[0];
    made(Answer::Untested, format!("not reached: {probe}: {detail}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_probe_belongs_to_a_feature_and_every_named_probe_exists() {
        let registered: Vec<&str> = probe_server::registry::probes().iter().map(|p| p.id()).collect();
        for feature in FEATURES {
            for probe in feature.probes() {
                assert!(registered.contains(&probe), "{} names {probe}, which is no probe", feature.id);
            }
        }
        let orphans: Vec<&&str> = registered.iter().filter(|p| features_of(p).next().is_none()).collect();
        assert!(orphans.is_empty(), "probes in no feature: {orphans:?}");
    }

    #[test]
    fn feature_ids_and_titles_are_unique_and_kebab_case() {
        for (i, a) in FEATURES.iter().enumerate() {
            assert!(a.id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{}", a.id);
            assert!(!a.paths.is_empty() && a.paths.iter().all(|p| !p.probes.is_empty()), "{}", a.id);
            assert!(a.paths.len() == 1 || a.paths.iter().all(|p| !p.name.is_empty() && !p.short.is_empty()), "{}: several paths need names", a.id);
            for b in &FEATURES[i + 1..] {
                assert!(a.id != b.id && !a.title.eq_ignore_ascii_case(b.title), "{} twice", a.id);
            }
        }
        assert!((25..=45).contains(&FEATURES.len()), "{} features", FEATURES.len());
    }

    fn merged(outcome: Outcome) -> Merged {
        Merged { outcome, detail: format!("judged {}", outcome.label()), only_in: Vec::new() }
    }

    #[test]
    fn columns_merge_to_the_best_outcome_and_say_where_it_held() {
        let seen = |column, outcome| Seen { column, outcome, detail: "" };
        let m = merge(&[seen("stdio", Outcome::No), seen("http", Outcome::Yes), seen("stdio · legacy-only server", Outcome::NotApplicable)]).unwrap();
        assert_eq!((m.outcome, m.only_in), (Outcome::Yes, vec!["http".to_string()]));
        // n/a on one side is no disagreement.
        let m = merge(&[seen("stdio", Outcome::Yes), seen("http", Outcome::NotApplicable)]).unwrap();
        assert_eq!((m.outcome, m.only_in.len()), (Outcome::Yes, 0));
        let m = merge(&[seen("stdio", Outcome::NotReached), seen("http", Outcome::NotApplicable)]).unwrap();
        assert_eq!(m.outcome, Outcome::NotReached);
        assert!(merge(&[]).is_none());
    }

    #[test]
    fn a_feature_rolls_up_by_its_documented_rule() {
        let feature = feature("elicitation-forms").unwrap();
        let answer = |outcomes: &[(&str, Outcome)]| {
            let table: Vec<(&str, Merged)> = outcomes.iter().map(|(p, o)| (*p, merged(*o))).collect();
            roll_up(feature, |probe| table.iter().find(|(p, _)| *p == probe).map(|(_, m)| m))
        };
        // Auto-answered headless, but a person at the terminal can answer: supported, by that path.
        let a = answer(&[("elicitation.form", Outcome::AutoAnswered), ("interactive.form_shown", Outcome::Yes), ("interactive.accept_typed", Outcome::Yes)]);
        assert_eq!((a.answer, a.path), (Answer::Supported, Some("with a person at the terminal")));
        // Shown but the typed values were wrong: partly.
        let a = answer(&[("elicitation.form", Outcome::AutoAnswered), ("interactive.form_shown", Outcome::Yes), ("interactive.accept_typed", Outcome::No)]);
        assert_eq!(a.answer, Answer::Partly);
        assert!(a.why.contains("interactive.accept_typed no"), "{}", a.why);
        // Headless only, auto-answered, never driven through a terminal: no.
        let a = answer(&[("elicitation.form", Outcome::AutoAnswered), ("interactive.form_shown", Outcome::NotReached), ("interactive.accept_typed", Outcome::NotReached)]);
        assert_eq!((a.answer, a.path), (Answer::No, Some("headless")));
        // Nothing reached: untested, saying why.
        let a = answer(&[("elicitation.form", Outcome::NotReached)]);
        assert_eq!(a.answer, Answer::Untested);
        assert!(a.why.starts_with("not reached"), "{}", a.why);
        // n/a throughout: untested, for the era.
        let one = super::feature("multi-round-trip").unwrap();
        let na = merged(Outcome::NotApplicable);
        let a = roll_up(one, |_| Some(&na));
        assert_eq!(a.answer, Answer::Untested);
        assert!(a.why.contains("era"), "{}", a.why);
        assert_eq!(a.path, None, "a feature with one path names none");
    }

    #[test]
    fn search_finds_features_by_synonym_and_by_several_words() {
        let found = |q: &str| FEATURES.iter().filter(|f| f.matches(q)).map(|f| f.id).collect::<Vec<_>>();
        let oauth = found("oauth");
        assert!(oauth.contains(&"oauth") && oauth.iter().all(|id| id.starts_with("oauth")), "{oauth:?}");
        assert_eq!(found("elicitation enum"), vec!["enum-elicitation"]);
        assert!(found("SEP-2640").contains(&"skills"));
        assert!(found("no such thing at all").is_empty());
    }
}
