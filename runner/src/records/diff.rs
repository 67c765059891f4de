//! `matrix diff`: what changed between two runs (e.g. two versions of one client), per client,
//! transport and probe: fixed, regressed, changed, new and removed verdicts.

use std::collections::BTreeMap;

use probe_server::probe::Outcome;
use serde::Serialize;

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

type Key = (String, String, String);

fn index<'a>(records: &[&'a Record]) -> BTreeMap<Key, (&'a str, Outcome)> {
    let mut sorted: Vec<&&Record> = records.iter().collect();
    sorted.sort_by(|a, b| super::compare_versions(&a.version, &b.version));
    let mut map = BTreeMap::new();
    for record in sorted {
        for verdict in &record.verdicts {
            map.insert((record.client.clone(), record.column_transport(), verdict.probe.clone()), (record.version.as_str(), verdict.outcome));
        }
    }
    map
}

/// How many (client, transport, probe) verdicts the two sides both have: none means the records
/// are of different clients or transports, and every line is new or removed.
pub fn lined_up(before: &[&Record], after: &[&Record]) -> usize {
    let old = index(before);
    index(after).keys().filter(|key| old.contains_key(*key)).count()
}

pub fn diff(before: &[&Record], after: &[&Record]) -> Vec<DiffLine> {
    let (old, new) = (index(before), index(after));
    let mut keys: Vec<&Key> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut lines = Vec::new();
    for key in keys {
        let (a, b) = (old.get(key), new.get(key));
        let change = match (a.map(|x| x.1), b.map(|x| x.1)) {
            (Some(x), Some(y)) if x == y => continue,
            (Some(_), Some(Outcome::Yes)) => Change::Fixed,
            (Some(Outcome::Yes), Some(_)) => Change::Regressed,
            (Some(_), Some(_)) => Change::Changed,
            (None, Some(_)) => Change::New,
            (Some(_), None) => Change::Removed,
            (None, None) => continue,
        };
        lines.push(DiffLine {
            change,
            client: key.0.clone(),
            transport: key.1.clone(),
            probe: key.2.clone(),
            before: a.map(|x| x.1),
            after: b.map(|x| x.1),
            before_version: a.map(|x| x.0.to_string()),
            after_version: b.map(|x| x.0.to_string()),
        });
    }
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
