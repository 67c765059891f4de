//! Baselines for people who gate their own client's CI on this tool. A baseline lists the verdicts
//! a client is expected to have that are not `yes` (nor `n/a`). A run fails on any unlisted
//! verdict of that kind, and on any listed expectation that no longer holds (a stale entry).
//!
//! ```toml
//! [[expect]]
//! probe = "resources.pagination"
//! transport = "stdio"        # optional: every transport when absent ("stdio · legacy-only server" for that run)
//! outcome = "no"
//! reason = "pagination is not implemented yet"
//! ```

use serde::Deserialize;

use crate::records::Record;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    #[serde(default)]
    pub expect: Vec<Expectation>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expectation {
    pub probe: String,
    pub transport: Option<String>,
    pub outcome: String,
    #[serde(default)]
    pub reason: String,
}

/// A baseline file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("cannot read baseline {}", path.display())]
    Unreadable { path: std::path::PathBuf, source: std::io::Error },
    #[error("baseline {} is not valid", path.display())]
    Invalid { path: std::path::PathBuf, source: toml::de::Error },
}

impl Baseline {
    pub fn load(path: &std::path::Path) -> Result<Baseline, BaselineError> {
        let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Unreadable { path: path.to_path_buf(), source })?;
        toml::from_str(&text).map_err(|source| BaselineError::Invalid { path: path.to_path_buf(), source })
    }
}

/// The baseline that `records` meet exactly: every verdict that is neither yes nor n/a, with the
/// judge's detail as its reason. What `--write-baseline` writes and `--expect` reads back.
pub fn write(records: &[&Record]) -> String {
    use probe_server::probe::Outcome;
    let mut out = String::from("# Written by `mcp-client-probe probe --write-baseline`: the verdicts that are not yes (nor n/a).\n");
    for record in records {
        for verdict in record.verdicts.iter().filter(|v| !matches!(v.outcome, Outcome::Yes | Outcome::NotApplicable)) {
            let quoted = |s: &str| toml::Value::String(s.to_string()).to_string();
            out.push_str(&format!(
                "\n[[expect]]\nprobe = {}\ntransport = {}\noutcome = {}\nreason = {}\n",
                quoted(&verdict.probe),
                quoted(&record.column_transport()),
                quoted(verdict.outcome.label()),
                quoted(&verdict.detail)
            ));
        }
    }
    out
}

/// What does not match the baseline, in plain words; empty when the run matches. Each verdict
/// is matched at its place (`compare::VerdictKey`: probe, and column when the entry names one).
pub fn check(baseline: &Baseline, records: &[&Record]) -> Vec<String> {
    let verdicts = super::compare::keyed(records.iter().copied());
    let applies = |e: &Expectation, key: &super::compare::VerdictKey| e.probe == key.probe && e.transport.as_deref().is_none_or(|t| t == key.column);
    let mut problems = Vec::new();
    for (key, placed) in &verdicts {
        let (verdict, label) = (placed.verdict, placed.verdict.outcome.label());
        match baseline.expect.iter().find(|e| applies(e, key)) {
            Some(e) if e.outcome != label => {
                let why = if e.reason.is_empty() { String::new() } else { format!("; listed because: {}", e.reason) };
                problems.push(format!("stale: {} over {} is now {label}, the baseline expects {} ({}){why}", key.probe, key.column, e.outcome, verdict.detail))
            }
            Some(_) => {}
            None if label != "yes" && label != "n/a" => problems.push(format!("unlisted: {} over {} is {label}: {}", key.probe, key.column, verdict.detail)),
            None => {}
        }
    }
    for e in &baseline.expect {
        if !verdicts.keys().any(|key| applies(e, key)) {
            problems.push(format!("stale: the baseline expects {} to be {}, but the run has no such verdict", e.probe, e.outcome));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use probe_server::probe::Outcome;

    fn record(transport: &str, verdicts: &[(&str, Outcome)]) -> Record {
        let verdicts: Vec<(&str, Outcome, &str)> = verdicts.iter().map(|(probe, outcome)| (*probe, *outcome, "d")).collect();
        super::super::compare::test_record("1", transport, &verdicts)
    }

    #[test]
    fn unlisted_failures_and_stale_entries_both_fail() {
        let baseline: Baseline = toml::from_str("[[expect]]\nprobe = \"a\"\noutcome = \"no\"\n[[expect]]\nprobe = \"gone\"\noutcome = \"no\"\n").unwrap();
        let run = record("stdio", &[("a", Outcome::No), ("b", Outcome::Yes), ("c", Outcome::Partial)]);
        let problems = check(&baseline, &[&run]);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].starts_with("unlisted: c"));
        assert!(problems[1].contains("gone"));
        let fixed = record("stdio", &[("a", Outcome::Yes), ("gone", Outcome::No)]);
        let problems = check(&baseline, &[&fixed]);
        assert_eq!(problems, vec!["stale: a over stdio is now yes, the baseline expects no (d)".to_string()]);
    }

    #[test]
    fn a_written_baseline_is_met_by_the_records_it_was_written_from() {
        let stdio = record("stdio", &[("a", Outcome::No), ("b", Outcome::Yes), ("c", Outcome::NotReached), ("d", Outcome::NotApplicable)]);
        let http = record("http", &[("a", Outcome::Partial), ("b", Outcome::Yes)]);
        let text = write(&[&stdio, &http]);
        let baseline: Baseline = toml::from_str(&text).unwrap();
        assert_eq!(baseline.expect.len(), 3, "{text}");
        assert!(check(&baseline, &[&stdio, &http]).is_empty(), "{text}");
        let changed = record("stdio", &[("a", Outcome::Yes), ("b", Outcome::Yes), ("c", Outcome::NotReached), ("d", Outcome::NotApplicable)]);
        assert_eq!(check(&baseline, &[&changed, &http]).len(), 1);
    }
}
