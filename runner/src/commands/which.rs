//! `which ITEM…`: which clients support every item (a feature or a probe), from the records: one
//! row per client at its newest version, the answer per item, and since which version the
//! answer has held where older versions are on record.

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use crate::cli::{Format, WhichArgs};
use crate::exit::{self, bad_input};
use crate::features::{self, Answer, ClientAnswers, Feature};
use crate::records::{self, compare_versions};

/// What an item names.
#[derive(Debug, Clone, Copy)]
enum Item {
    Feature(&'static Feature),
    Probe(&'static str),
}

impl Item {
    fn name(self) -> &'static str {
        match self {
            Item::Feature(f) => f.id,
            Item::Probe(p) => p,
        }
    }

    /// The item's answer for a client: a feature's roll-up, or a probe's merged outcome.
    fn answer(self, client: &ClientAnswers) -> (String, bool) {
        match self {
            Item::Feature(f) => match client.answer(f.id) {
                Some(a) => (a.answer.label().to_string(), a.answer == Answer::Supported),
                None => (Answer::Untested.label().to_string(), false),
            },
            Item::Probe(p) => match client.probes.get(p) {
                Some(m) => (m.outcome.label().to_string(), m.outcome == probe_server::probe::Outcome::Yes),
                None => ("not-reached".to_string(), false),
            },
        }
    }

    /// The detail behind the answer, for JSON.
    fn why(self, client: &ClientAnswers) -> String {
        match self {
            Item::Feature(f) => client.answer(f.id).map(|a| a.explained()),
            Item::Probe(p) => client.probes.get(p).map(|m| m.detail.clone()),
        }
        .unwrap_or_default()
    }
}

/// An item `which` was asked about that is neither a feature nor a probe, with the hint it gets.
#[derive(Debug, thiserror::Error)]
#[error("{name:?} is neither a feature nor a probe: {hint}")]
struct UnknownItem {
    name: String,
    hint: String,
}

fn resolve(name: &str) -> Result<Item, UnknownItem> {
    if let Some(feature) = features::feature(name) {
        return Ok(Item::Feature(feature));
    }
    if let Some(probe) = probe_server::registry::find(name.trim()) {
        return Ok(Item::Probe(probe.id()));
    }
    let close = close_matches(name);
    let hint = if close.is_empty() {
        let ids: Vec<&str> = features::FEATURES.iter().map(|f| f.id).collect();
        format!("the features are {} (`mcp-client-probe features` lists them with their probes; `probes` lists the probe ids)", ids.join(", "))
    } else {
        format!("did you mean {}?", close.join(", "))
    };
    Err(UnknownItem { name: name.to_string(), hint })
}

/// Features and probes whose names are near `name`, or whose terms it matches; at most six.
pub fn close_matches(name: &str) -> Vec<String> {
    let query = name.trim().to_lowercase();
    let mut scored: Vec<(usize, String)> = Vec::new();
    let candidates = features::FEATURES.iter().map(|f| (f.id, Some(f))).chain(probe_server::registry::probes().iter().map(|p| (p.id(), None)));
    for (id, feature) in candidates {
        let distance = edit_distance(&query, id);
        let score = if id.contains(&query) || (query.len() >= 3 && query.contains(id)) {
            0
        } else if feature.is_some_and(|f| f.matches(&query)) {
            1
        } else if distance <= 2.max(query.len() / 3) {
            1 + distance
        } else {
            continue;
        };
        scored.push((score, id.to_string()));
    }
    scored.sort();
    scored.into_iter().take(6).map(|(_, id)| id).collect()
}

/// Levenshtein distance, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[derive(Debug, Serialize)]
struct Report {
    items: Vec<ItemHeading>,
    /// Clients at their newest version that support every item.
    supporting_all: usize,
    clients: Vec<ClientRow>,
}

#[derive(Debug, Serialize)]
struct ItemHeading {
    item: String,
    kind: &'static str,
    title: String,
}

#[derive(Debug, Serialize)]
struct ClientRow {
    client: String,
    version: String,
    /// Whether every item is supported (a feature) or yes (a probe).
    all: bool,
    items: Vec<ItemAnswer>,
}

#[derive(Debug, Serialize)]
struct ItemAnswer {
    item: String,
    answer: String,
    /// The oldest version on record from which the answer has held, when older versions are on record.
    #[serde(skip_serializing_if = "Option::is_none")]
    since: Option<String>,
    /// Where an older version supported the item (a feature supported, a probe yes) and the newest
    /// does not: the first version after the last that did.
    #[serde(skip_serializing_if = "Option::is_none")]
    lost_in: Option<String>,
    why: String,
}

fn report(items: &[Item], records_dir: &Path) -> Result<Report> {
    let located = records::load(records_dir).map_err(exit::bad_input_from)?;
    if located.is_empty() {
        return Err(bad_input(format!("no records under {}", records_dir.display())));
    }
    let matrix = crate::records::matrix::from_records(&located, "");
    let mut versions = features::by_client(&matrix);
    versions.sort_by(|a, b| a.client.cmp(&b.client).then_with(|| compare_versions(&a.version, &b.version)));
    let mut clients = Vec::new();
    for group in versions.chunk_by(|a, b| a.client == b.client) {
        let newest = &group[group.len() - 1];
        let answers: Vec<ItemAnswer> = items
            .iter()
            .map(|item| {
                let (answer, _) = item.answer(newest);
                // Walk back through older versions while they answered the same; a version whose
                // runs never got there (untested, not reached) says nothing either way and is
                // passed over, so `since` is the oldest version seen answering so.
                let unknown = |word: &str| matches!(word, "untested" | "not-reached" | "inconclusive");
                let held = group.iter().rev().map(|v| (v, item.answer(v).0)).filter(|(_, word)| !unknown(word)).take_while(|(_, word)| *word == answer).last().map(|(v, _)| v);
                let since = held.filter(|_| group.len() > 1).map(|v| v.version.clone());
                let lost_in =
                    if item.answer(newest).1 { None } else { group.iter().rposition(|v| item.answer(v).1).and_then(|last| group.get(last + 1)).map(|v| v.version.clone()) };
                ItemAnswer { item: item.name().to_string(), answer, since, lost_in, why: item.why(newest) }
            })
            .collect();
        let all = items.iter().all(|item| item.answer(newest).1);
        clients.push(ClientRow { client: newest.client.clone(), version: newest.version.clone(), all, items: answers });
    }
    clients.sort_by(|a, b| b.all.cmp(&a.all).then_with(|| a.client.cmp(&b.client)));
    let headings = items
        .iter()
        .map(|item| match item {
            Item::Feature(f) => ItemHeading { item: f.id.into(), kind: "feature", title: f.title.into() },
            Item::Probe(p) => ItemHeading { item: (*p).into(), kind: "probe", title: probe_server::registry::find(p).map(|x| x.title().to_string()).unwrap_or_default() },
        })
        .collect();
    Ok(Report { items: headings, supporting_all: clients.iter().filter(|c| c.all).count(), clients })
}

pub fn which(args: WhichArgs) -> Result<u8> {
    let mut items = Vec::new();
    let mut unknown = Vec::new();
    for name in &args.items {
        match resolve(name) {
            Ok(item) => items.push(item),
            Err(message) => unknown.push(message),
        }
    }
    if !unknown.is_empty() {
        return Err(bad_input(unknown.iter().map(UnknownItem::to_string).collect::<Vec<_>>().join("; ")));
    }
    let report = report(&items, &args.records)?;
    match args.format.format {
        Format::Json => crate::out!("{}", serde_json::to_string_pretty(&report)?),
        Format::Table => crate::out_raw!("{}", table(&report, super::terminal_width())),
    }
    Ok(exit::OK)
}

/// The table `which ITEMS` prints at `width` columns, for the README's example (`matrix render`
/// keeps it current).
pub fn example(items: &[&str], records_dir: &Path, width: u16) -> Result<String> {
    let items: Vec<Item> = items.iter().map(|name| resolve(name).map_err(|e| bad_input(e.to_string()))).collect::<Result<_>>()?;
    Ok(table(&report(&items, records_dir)?, Some(width)))
}

fn table(report: &Report, width: Option<u16>) -> String {
    use comfy_table::{presets, ContentArrangement, Table};
    let mut table = Table::new();
    table.load_preset(presets::UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
    if let Some(width) = width {
        table.set_width(width);
    }
    let mut header = vec!["client".to_string()];
    header.extend(report.items.iter().map(|i| i.item.clone()));
    header.push("all".into());
    table.set_header(header);
    for client in &report.clients {
        let mut row = vec![format!("{}@{}", client.client, client.version)];
        row.extend(client.items.iter().map(|a| {
            let mut text = a.answer.clone();
            if let Some(since) = &a.since {
                text.push_str(&format!(" since {since}"));
            }
            if let Some(lost) = &a.lost_in {
                text.push_str(&format!(" (lost in {lost})"));
            }
            text
        }));
        row.push(if client.all { "yes".into() } else { "no".into() });
        table.add_row(row);
    }
    let names: Vec<String> = report.items.iter().map(|i| format!("{} ({} {:?})", i.item, i.kind, i.title)).collect();
    format!("{table}\n{} of {} clients, each at its newest version on record, support all of: {}\n", report.supporting_all, report.clients.len(), names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_resolve_by_feature_id_title_and_probe_id() {
        assert!(matches!(resolve("elicitation-forms"), Ok(Item::Feature(f)) if f.id == "elicitation-forms"));
        assert!(matches!(resolve("Form elicitation"), Ok(Item::Feature(f)) if f.id == "elicitation-forms"));
        assert!(matches!(resolve("elicitation.form"), Ok(Item::Probe("elicitation.form"))));
        let error = resolve("elicitaton.form").unwrap_err().to_string();
        assert!(error.contains("elicitation.form"), "{error}");
        let error = resolve("oauth2").unwrap_err().to_string();
        assert!(error.contains("oauth"), "{error}");
        let error = resolve("zzzzzzzzzzzzzzzzzzzz").unwrap_err().to_string();
        assert!(error.contains("the features are tools, tool-names,"), "{error}");
    }

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
