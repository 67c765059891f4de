//! `matrix rejudge`: a record's journals judged again by today's judges. Judging is a pure
//! function of the journals, so a change to a judge reaches every committed record without
//! running a client again.
//!
//! A verdict is judged again only where its evidence is all there: the journal of its server
//! variant, and the model stub's journal of that variant when the client had a model (a variant
//! whose model journal was not kept is judged from the model's side by no probe, but its
//! opportunities may read it) — except an authorization variant's, whose judges read the
//! authorization server's notes alone (`auth::tests::the_auth_judges_read_no_model_journal`).
//! Every other verdict stays as recorded.

use std::path::Path;

use probe_server::journal::read_journal;
use probe_server::observe::Observations;
use probe_server::{registry, Variant, Verdict};

use super::Record;
use crate::harness::model_journal_of_variant;

/// A journal beside a record that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the journal {path}")]
pub struct RejudgeError {
    pub path: String,
    #[source]
    pub source: probe_server::JournalError,
}

/// The record's verdicts as today's judges give them: judged again where the journals of their
/// variant are beside the record (`dir`), as recorded elsewhere, in the record's order; then the
/// verdicts of probes the record does not have (probes added since) whose variant's journal is
/// there, in the registry's order.
pub fn rejudge(dir: &Path, record: &Record) -> Result<Vec<Verdict>, RejudgeError> {
    let mut runs: Vec<(Variant, Observations)> = Vec::new();
    let journals = std::iter::once((Variant::Standard, record.journal.clone()))
        .chain(record.variant_journals.iter().filter_map(|(variant, name)| Some((variant.parse::<Variant>().ok()?, name.clone()))));
    for (variant, name) in journals {
        let path = dir.join(&name);
        // As stored: the journal itself, or its compressed form.
        if !probe_server::journal::stored::exists(&path) {
            continue;
        }
        let read = read_journal(&path).map_err(|source| RejudgeError { path: path.display().to_string(), source })?;
        let mut observations = Observations::from_read(read);
        if let Some(standard) = &record.model_journal {
            match model_journal_of_variant(standard, variant).map(|name| dir.join(name)).filter(|p| probe_server::journal::stored::exists(p)) {
                Some(model_path) => {
                    let model = read_journal(&model_path).map_err(|source| RejudgeError { path: model_path.display().to_string(), source })?;
                    observations = observations.with_model(model);
                }
                // A run none of whose judges reads the model stub's journal (the auth variants',
                // the events variant's) is judged without the one it never kept.
                None if variant.is_auth() || registry::judged_on(variant).all(|p| !p.reads_model()) => {}
                None => continue,
            }
        }
        runs.push((variant, observations));
    }
    let observed: Vec<(Variant, &Observations)> = runs.iter().map(|(v, o)| (*v, o)).collect();
    // A one-era pass runs the variants the dual pass does not need again, and a client that
    // opened with server/discover is not run against a server that refuses initialize: their
    // probes are n/a there, as the pass itself said.
    let judged = registry::judge_runs_with(&observed, |variant| {
        registry::Absence::outside_one_era_pass(variant, record.server_eras).or_else(|| registry::Absence::after_a_modern_opening(variant, record.era))
    });
    // A verdict of a variant whose journal is here, or an n/a that needs none (another transport,
    // another era, a variant the pass does not run); in the record of a client that opened no
    // session at all, every verdict (all of them not reached).
    let ran = |v: &&Verdict| v.outcome == probe_server::Outcome::NotApplicable || record.era.is_none() || observed.iter().any(|(variant, _)| *variant == v.variant);
    let mut verdicts: Vec<Verdict> = record
        .verdicts
        .iter()
        .map(|recorded| match judged.iter().find(|v| v.probe == recorded.probe).filter(ran) {
            Some(fresh) => fresh.clone(),
            None => recorded.clone(),
        })
        .collect();
    let added: Vec<Verdict> = judged.iter().filter(ran).filter(|v| !record.verdicts.iter().any(|r| r.probe == v.probe)).cloned().collect();
    verdicts.extend(added);
    Ok(verdicts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A committed record judged again is unchanged (`matrix rejudge` keeps them so); a verdict
    /// edited in it is put back as the journal says.
    #[test]
    fn a_committed_record_judged_again_keeps_its_verdicts_and_mends_an_edited_one() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../matrices/records/codex");
        let version = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).find(|p| p.join("stdio.json").is_file()).unwrap();
        let mut record = super::super::read(&version.join("stdio.json")).unwrap();
        let again = rejudge(&version, &record).unwrap();
        let outcome = |v: &Verdict| (v.probe.clone(), v.outcome, v.declared.clone());
        let differing: Vec<_> = record.verdicts.iter().zip(&again).filter(|(a, b)| outcome(a) != outcome(b)).map(|(a, b)| (a.probe.clone(), a.outcome, b.outcome)).collect();
        assert!(differing.is_empty(), "run `matrix rejudge`: {differing:?}");
        let index = record.verdicts.iter().position(|v| v.probe == "tools.list").unwrap();
        let as_judged = again[index].clone();
        record.verdicts[index].outcome = if as_judged.outcome == probe_server::Outcome::Yes { probe_server::Outcome::No } else { probe_server::Outcome::Yes };
        assert_eq!(rejudge(&version, &record).unwrap()[index].outcome, as_judged.outcome);
        // A probe the record lacks (one added since it was made) gains its verdict from the
        // journals; one judged on a variant whose journal the record does not name stays absent.
        let mut older = record.clone();
        older.verdicts.retain(|v| v.probe != "tools.list" && !v.probe.starts_with("utilities.cancel_on"));
        assert!(older.variant_journals.remove("long-calls").is_some(), "the stdio record names its long-calls journal");
        let added = rejudge(&version, &older).unwrap();
        assert_eq!(added.len(), older.verdicts.len() + 1, "only tools.list is added");
        assert_eq!(added.last().map(|v| (v.probe.as_str(), v.outcome)), Some(("tools.list", as_judged.outcome)));
    }
}
