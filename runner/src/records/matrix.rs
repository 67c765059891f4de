//! Verdicts arranged for reading: one row per probe in registry order, one column per run.
//! Pure data; renderers turn it into text.

use probe_server::probe::{Declaration, Outcome};
use probe_server::{registry, Area, Variant, Verdict};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Matrix {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Column {
    pub client: String,
    pub transport: String,
    pub era: String,
    pub protocol_version: Option<String>,
    /// The day the column was probed (records only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Where the record and its journal live, relative to the matrices directory (records only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub journal: Option<String>,
    /// The journals of the other server variants, by variant name (records only).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub variant_journals: std::collections::BTreeMap<String, String>,
    /// The model stub's journal of the standard run (records of hosts with a model only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_journal: Option<String>,
    /// Whether the journals are stored compressed (`<journal>.zst`), so that a link names that file.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub compressed: bool,
    /// Whether every launch of the standard run was stopped at its bound: a host that never ended
    /// its run by itself (records only).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub never_ended: bool,
}

impl Column {
    /// The model stub's journal of the server variant a cell was judged on.
    pub fn model_journal_of(&self, cell: &Cell) -> Option<String> {
        crate::harness::model_journal_of_variant(self.model_journal.as_ref()?, cell.variant)
    }

    /// The journal a cell's evidence lines refer to.
    pub fn journal_of(&self, cell: &Cell) -> Option<String> {
        if cell.model_evidence {
            return self.model_journal_of(cell);
        }
        if cell.variant.is_standard() {
            self.journal.clone()
        } else {
            self.variant_journals.get(cell.variant.as_str()).cloned()
        }
    }
}

/// How many of a verdict's evidence lines are linked; the record keeps them all.
pub const MAX_EVIDENCE_LINKS: usize = 4;

/// One link of a cell's evidence: a line of one of the run's journals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceLink {
    /// Whether the line shows the client had its chance rather than what the verdict rests on.
    pub chance: bool,
    /// The journal, as the column names it.
    pub journal: String,
    pub line: u64,
}

impl Column {
    /// Where a cell's evidence is: the lines the verdict rests on (the first
    /// [`MAX_EVIDENCE_LINKS`]) and, for a verdict that blames the client, the line that shows it
    /// had its chance.
    pub fn evidence_links(&self, cell: &Cell) -> Vec<EvidenceLink> {
        let mut links = Vec::new();
        if let Some(journal) = self.journal_of(cell) {
            links.extend(cell.evidence.iter().take(MAX_EVIDENCE_LINKS).map(|&line| EvidenceLink { chance: false, journal: journal.clone(), line }));
        }
        let chance = match (cell.opportunity.first(), cell.opportunity_model.first()) {
            (Some(&line), _) => self.journal_of(cell).map(|j| (j, line)),
            (None, Some(&line)) => self.model_journal_of(cell).map(|j| (j, line)),
            (None, None) => None,
        };
        let blames = matches!(cell.outcome, Outcome::No | Outcome::Partial | Outcome::DeclaredOnly);
        if let Some((journal, line)) = chance.filter(|_| blames) {
            links.push(EvidenceLink { chance: true, journal, line });
        }
        links
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub probe: String,
    pub area: Area,
    pub title: String,
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub outcome: Outcome,
    pub declared: Declaration,
    pub detail: String,
    pub evidence: Vec<u64>,
    /// The server variant whose journal the evidence refers to.
    #[serde(skip_serializing_if = "Variant::is_standard")]
    pub variant: Variant,
    /// Whether the evidence lines are those of the model stub's journal.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub model_evidence: bool,
    /// Lines (of the evidence's journal) showing the client had its chance.
    #[serde(skip_serializing_if = "<[u64]>::is_empty")]
    pub opportunity: Box<[u64]>,
    /// Model-journal lines of the opportunity, for a cell judged on the server's journal.
    #[serde(skip_serializing_if = "<[u64]>::is_empty")]
    pub opportunity_model: Box<[u64]>,
    /// Self-test only: the outcome under this probe's ablation(s).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ablated: Vec<AblatedCell>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AblatedCell {
    pub ablation: String,
    pub outcome: Outcome,
    pub detail: String,
}

impl Cell {
    pub(crate) fn from_verdict(verdict: Option<&Verdict>) -> Cell {
        match verdict {
            Some(v) => Cell {
                outcome: v.outcome,
                declared: v.declared.clone(),
                detail: v.detail.clone(),
                evidence: v.evidence.clone(),
                variant: v.variant,
                model_evidence: v.model_evidence,
                opportunity: v.opportunity.clone(),
                opportunity_model: v.opportunity_model.clone(),
                ablated: Vec::new(),
            },
            None => Cell {
                outcome: Outcome::NotReached,
                declared: Declaration::NoCapability,
                detail: "the run produced no verdict".into(),
                evidence: Vec::new(),
                variant: Variant::Standard,
                model_evidence: false,
                opportunity: Box::default(),
                opportunity_model: Box::default(),
                ablated: Vec::new(),
            },
        }
    }
}

/// Builds a matrix with one column per record. `prefix` is the records directory as seen from
/// where the matrix will be read (e.g. `records` for `matrices/MATRIX.md`).
pub fn from_records(records: &[crate::records::Located], prefix: &str) -> Matrix {
    let columns = records
        .iter()
        .map(|located| {
            let r = &located.record;
            let dir = located.relative.parent().map(|p| p.display().to_string()).unwrap_or_default();
            let join = |file: &str| [prefix, dir.as_str(), file].iter().filter(|s| !s.is_empty()).copied().collect::<Vec<_>>().join("/");
            Column {
                client: format!("{}@{}", r.client, r.version),
                transport: r.column_transport(),
                era: r.era.map_or("-".into(), |e| e.to_string()),
                protocol_version: r.protocol_version.clone(),
                date: Some(r.date.clone()),
                record: Some(join(&located.relative.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default())),
                journal: Some(join(&r.journal)),
                variant_journals: r.variant_journals.iter().map(|(variant, file)| (variant.clone(), join(file))).collect(),
                model_journal: r.model_journal.as_deref().map(join),
                compressed: false,
                never_ended: r.never_ended(),
            }
        })
        .collect();
    Matrix { columns, rows: rows(&records.iter().map(|l| l.record.verdicts.as_slice()).collect::<Vec<_>>()) }
}

/// One row per registered probe, one cell per column's verdicts.
pub fn rows(columns: &[&[Verdict]]) -> Vec<Row> {
    registry::probes()
        .iter()
        .map(|p| Row {
            probe: p.id().into(),
            area: p.area(),
            title: p.title().into(),
            cells: columns.iter().map(|verdicts| Cell::from_verdict(verdicts.iter().find(|v| v.probe == p.id()))).collect(),
        })
        .collect()
}
