//! `matrix diff`: what changed between two runs (e.g. two versions of one client), per client,
//! transport and probe: fixed, regressed, changed, new and removed verdicts.

use std::collections::BTreeMap;

use probe_server::probe::Outcome;
use serde::Serialize;

use super::compare::{compare, keyed_by, Placed, Same, VerdictKey};
use crate::records::Record;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Fixed,
    Regressed,
    Changed,
    New,
    Removed,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct DiffLine {
    pub change: Change,
    pub client: String,
    pub transport: String,
    pub probe: String,
    pub before: Option<Outcome>,
    pub after: Option<Outcome>,
    pub before_version: Option<String>,
    pub after_version: Option<String>,
}

/// Every verdict by its place in whichever version, the newest version's where several have one.
fn index<'a>(records: &[&'a Record]) -> BTreeMap<VerdictKey, Placed<'a>> {
    let mut sorted: Vec<&Record> = records.to_vec();
    sorted.sort_by(|a, b| super::compare_versions(&a.version, &b.version));
    keyed_by(sorted, VerdictKey::any_version)
}

/// How many (client, transport, probe) verdicts the two sides both have: none means the records
/// are of different clients or transports, and every line is new or removed.
pub fn lined_up(before: &[&Record], after: &[&Record]) -> usize {
    let old = index(before);
    index(after).keys().filter(|key| old.contains_key(*key)).count()
}

pub fn diff(before: &[&Record], after: &[&Record]) -> Vec<DiffLine> {
    let mut lines: Vec<DiffLine> = compare(&index(before), &index(after), Same::Outcome)
        .into_iter()
        .map(|(key, difference)| {
            let (a, b) = (difference.before(), difference.after());
            let change = match (a.map(|p| p.verdict.outcome), b.map(|p| p.verdict.outcome)) {
                (Some(_), Some(Outcome::Yes)) => Change::Fixed,
                (Some(Outcome::Yes), Some(_)) => Change::Regressed,
                (Some(_), Some(_)) => Change::Changed,
                (None, _) => Change::New,
                (Some(_), None) => Change::Removed,
            };
            DiffLine {
                change,
                client: key.client,
                transport: key.column,
                probe: key.probe,
                before: a.map(|p| p.verdict.outcome),
                after: b.map(|p| p.verdict.outcome),
                before_version: a.map(|p| p.record.version.clone()),
                after_version: b.map(|p| p.record.version.clone()),
            }
        })
        .collect();
    lines.sort();
    lines
}

/// One line per change, and a count.
pub fn text(lines: &[DiffLine]) -> String {
    let mut out = String::new();
    for l in lines {
        let label = |o: Option<Outcome>| o.map_or("-", Outcome::label);
        let versions = match (&l.before_version, &l.after_version) {
            (Some(a), Some(b)) if a != b => format!("{a} → {b}"),
            (Some(a), _) | (None, Some(a)) => a.clone(),
            (None, None) => String::new(),
        };
        out.push_str(&format!(
            "{:<9} {} {} {:<6} {}: {} → {}\n",
            format!("{:?}", l.change).to_lowercase(),
            l.client,
            versions,
            l.transport,
            l.probe,
            label(l.before),
            label(l.after)
        ));
    }
    let count = |c: Change| lines.iter().filter(|l| l.change == c).count();
    out.push_str(&format!(
        "{} fixed, {} regressed, {} changed, {} new, {} removed\n",
        count(Change::Fixed),
        count(Change::Regressed),
        count(Change::Changed),
        count(Change::New),
        count(Change::Removed)
    ));
    out
}
