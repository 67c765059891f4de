//! The one way verdicts are compared. Every verdict has a place, its [`VerdictKey`] (client,
//! version, column and probe); two sets of verdicts are lined up by place ([`keyed`], [`keyed_by`]) and
//! [`compare`] lists the places where they are not the same by a [`Same`] rule. `matrix diff`
//! (two versions: places without the version), `matrix refresh --check` (outcome and
//! declaration), `probe --repeat` (outcome and the judge's words) and baselines all use it.

use std::collections::BTreeMap;

use probe_server::Verdict;

use super::Record;

/// Where a verdict stands: its client, version, column (the transport, with the server's eras for
/// a one-era pass: `http · legacy-only server`) and probe.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VerdictKey {
    pub client: String,
    pub version: String,
    pub column: String,
    pub probe: String,
}

impl VerdictKey {
    pub fn of(record: &Record, verdict: &Verdict) -> VerdictKey {
        VerdictKey { client: record.client.clone(), version: record.version.clone(), column: record.column_transport(), probe: verdict.probe.clone() }
    }

    /// The same place in whichever version: how two versions of a client line up.
    pub fn any_version(self) -> VerdictKey {
        VerdictKey { version: String::new(), ..self }
    }
}

impl std::fmt::Display for VerdictKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} {} {}", self.client, self.version, self.column, self.probe)
    }
}

/// A verdict with the record it belongs to.
#[derive(Debug, Clone, Copy)]
pub struct Placed<'a> {
    pub record: &'a Record,
    pub verdict: &'a Verdict,
}

/// Every verdict of `records` by its place.
pub fn keyed<'a>(records: impl IntoIterator<Item = &'a Record>) -> BTreeMap<VerdictKey, Placed<'a>> {
    keyed_by(records, |key| key)
}

/// Every verdict of `records` by its place, as `place` makes it of the verdict's own key; where
/// two share a place, the later record's stands.
pub fn keyed_by<'a>(records: impl IntoIterator<Item = &'a Record>, place: impl Fn(VerdictKey) -> VerdictKey) -> BTreeMap<VerdictKey, Placed<'a>> {
    records.into_iter().flat_map(|record| record.verdicts.iter().map(move |verdict| Placed { record, verdict })).map(|p| (place(VerdictKey::of(p.record, p.verdict)), p)).collect()
}

/// What two verdicts at one place must share to be the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Same {
    Outcome,
    OutcomeAndDeclared,
    OutcomeAndDetail,
}

impl Same {
    pub fn holds(self, a: &Verdict, b: &Verdict) -> bool {
        a.outcome == b.outcome
            && match self {
                Same::Outcome => true,
                Same::OutcomeAndDeclared => a.declared == b.declared,
                Same::OutcomeAndDetail => a.detail == b.detail,
            }
    }
}

/// How the verdicts at one place differ.
#[derive(Debug, Clone, Copy)]
pub enum Difference<'a> {
    Changed {
        before: Placed<'a>,
        after: Placed<'a>,
    },
    /// Only before has a verdict here.
    Gone {
        before: Placed<'a>,
    },
    /// Only after has one.
    New {
        after: Placed<'a>,
    },
}

impl<'a> Difference<'a> {
    pub fn before(&self) -> Option<Placed<'a>> {
        match *self {
            Difference::Changed { before, .. } | Difference::Gone { before } => Some(before),
            Difference::New { .. } => None,
        }
    }

    pub fn after(&self) -> Option<Placed<'a>> {
        match *self {
            Difference::Changed { after, .. } | Difference::New { after } => Some(after),
            Difference::Gone { .. } => None,
        }
    }
}

/// The places where `before` and `after` differ by `same`.
pub fn compare<'a>(before: &BTreeMap<VerdictKey, Placed<'a>>, after: &BTreeMap<VerdictKey, Placed<'a>>, same: Same) -> BTreeMap<VerdictKey, Difference<'a>> {
    let mut differences = BTreeMap::new();
    for (key, &b) in before {
        match after.get(key) {
            Some(&a) if same.holds(b.verdict, a.verdict) => {}
            Some(&a) => drop(differences.insert(key.clone(), Difference::Changed { before: b, after: a })),
            None => drop(differences.insert(key.clone(), Difference::Gone { before: b })),
        }
    }
    for (key, &a) in after.iter().filter(|(key, _)| !before.contains_key(*key)) {
        differences.insert(key.clone(), Difference::New { after: a });
    }
    differences
}

/// A record of client `c` over HTTP at `version` with these verdicts (probe, outcome, detail),
/// for tests.
#[cfg(test)]
pub fn test_record(version: &str, column: &str, verdicts: &[(&str, probe_server::probe::Outcome, &str)]) -> Record {
    let mut record: Record = serde_json::from_value(serde_json::json!({
        "format_version": 1, "client": "c", "version": version, "transport": column, "era": "legacy", "protocol_version": "2025-11-25",
        "date": "2026-01-01", "probe_version": "0", "probe_commit": "0", "os": "linux", "verdicts": [], "launches": [], "duration_ms": 0,
        "journal": "j", "model_journal": null, "notes": []
    }))
    .unwrap();
    record.verdicts = verdicts.iter().map(|(probe, outcome, detail)| Verdict { probe: probe.to_string(), ..Verdict::new(*outcome, *detail) }).collect();
    record
}

#[cfg(test)]
mod tests {
    use super::*;
    use probe_server::probe::{Declaration, Outcome};

    fn record(version: &str, verdicts: &[(&str, Outcome, &str)]) -> Record {
        test_record(version, "http", verdicts)
    }

    #[test]
    fn places_line_up_and_each_rule_sees_what_it_compares() {
        let before = record("1", &[("a", Outcome::Yes, "x"), ("b", Outcome::No, "x"), ("c", Outcome::Yes, "x")]);
        let mut after = record("1", &[("a", Outcome::Yes, "y"), ("b", Outcome::Yes, "x"), ("d", Outcome::No, "x")]);
        after.verdicts[0].declared = Declaration::Declared;
        let (b, a) = (keyed([&before]), keyed([&after]));
        let kinds = |same: Same| {
            compare(&b, &a, same)
                .iter()
                .map(|(key, d)| {
                    let kind = match d {
                        Difference::Changed { .. } => "changed",
                        Difference::Gone { .. } => "gone",
                        Difference::New { .. } => "new",
                    };
                    format!("{}:{kind}", key.probe)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(kinds(Same::Outcome), ["b:changed", "c:gone", "d:new"]);
        assert_eq!(kinds(Same::OutcomeAndDetail), ["a:changed", "b:changed", "c:gone", "d:new"]);
        assert_eq!(kinds(Same::OutcomeAndDeclared), ["a:changed", "b:changed", "c:gone", "d:new"]);
        // Two versions line up only without the version in the place.
        let newer = record("2", &[("a", Outcome::Yes, "x")]);
        assert_eq!(compare(&keyed([&before]), &keyed([&newer]), Same::Outcome).len(), 4);
        assert_eq!(compare(&keyed_by([&before], VerdictKey::any_version), &keyed_by([&newer], VerdictKey::any_version), Same::Outcome).len(), 2);
    }
}
