//! The matrix as a static site that works from `file://`: an index that answers by feature
//! (features × clients, each feature expanding to its probes, a checklist of the features a
//! server uses), a page per feature, a page per host with roll-ups per area for every version on
//! record and what changed between them, a page per probe with its history across versions, and
//! every journal as a page whose lines can be linked to (the cited line is highlighted). Pure: the same records and journals give the
//! same files, byte for byte; nothing in them depends on when or where the site was built.

mod assets;
mod feature;
mod host;
mod html;
mod index;
mod journal;
pub mod links;
mod probe_page;

use std::collections::BTreeMap;

use crate::records::findings::Finding;
use crate::records::matrix::{self, Matrix};
use crate::records::{compare_versions, Located};
use crate::render::summary::{self, Host};

/// What the site is built from.
pub struct Input<'a> {
    /// Every record on file, every version (as [`crate::records::load`] returns them).
    pub records: &'a [Located],
    /// The journals beside the records, by their path under the records root
    /// (`<client>/<version>/<file>.jsonl`).
    pub journals: &'a BTreeMap<String, String>,
    /// Findings over every record.
    pub findings: &'a [Finding],
}

/// The site's files by path (`/`-separated, relative to the site's root).
#[derive(Debug, Default, PartialEq)]
pub struct Site {
    pub files: BTreeMap<String, String>,
}

impl Site {
    pub fn bytes(&self) -> usize {
        self.files.values().map(String::len).sum()
    }

    /// How many files are journal views.
    pub fn journal_pages(&self) -> usize {
        self.files.keys().filter(|p| p.starts_with("journals/")).count()
    }
}

/// One client version: its records as a matrix, and its hosts (one per kind of server).
pub(crate) struct Release {
    pub client: String,
    pub version: String,
    pub matrix: Matrix,
    pub hosts: Vec<Host>,
    pub records: Vec<Located>,
}

impl Release {
    fn new(records: Vec<Located>) -> Release {
        let first = &records[0].record;
        let (client, version) = (first.client.clone(), first.version.clone());
        // Journal paths relative to the records root: `<client>/<version>/<file>`.
        let matrix = matrix::from_records(&records, "");
        let hosts = summary::hosts(&matrix);
        Release { client, version, matrix, hosts, records }
    }
}

/// Every client's releases, oldest first.
pub(crate) fn releases(records: &[Located]) -> BTreeMap<String, Vec<Release>> {
    let mut grouped: BTreeMap<(String, String), Vec<Located>> = BTreeMap::new();
    for located in records {
        grouped.entry((located.record.client.clone(), located.record.version.clone())).or_default().push(located.clone());
    }
    let mut by_client: BTreeMap<String, Vec<Release>> = BTreeMap::new();
    for ((client, _), records) in grouped {
        by_client.entry(client).or_default().push(Release::new(records));
    }
    for releases in by_client.values_mut() {
        releases.sort_by(|a, b| compare_versions(&a.version, &b.version));
    }
    by_client
}

/// A name made safe for an HTML id and a file name: lowercase letters, digits and dashes.
pub(crate) fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// The page of a host, from a page `root` away from the site's root.
pub(crate) fn host_href(root: &str, client: &str) -> String {
    format!("{root}hosts/{}.html", slug(client))
}

/// The page of a feature.
pub(crate) fn feature_href(root: &str, feature: &str) -> String {
    format!("{root}features/{feature}.html")
}

/// The page of a probe.
pub(crate) fn probe_href(root: &str, probe: &str) -> String {
    format!("{root}probes/{probe}.html")
}

/// A journal line's place in the journal's view (`journal` as the matrix names it).
pub(crate) fn journal_href(root: &str, journal: &str, line: u64) -> String {
    format!("{root}journals/{journal}.html#L{line}")
}

/// Builds every page of the site.
pub fn build(input: &Input) -> Site {
    let releases = releases(input.records);
    let newest: Vec<&Release> = releases.values().filter_map(|r| r.last()).collect();
    let mut site = Site::default();
    site.files.insert("style.css".into(), assets::STYLE.into());
    site.files.insert("site.js".into(), assets::SCRIPT.into());
    // The newest releases together, read per client: the index and the feature pages.
    let newest_records: Vec<Located> = newest.iter().flat_map(|r| r.records.iter().cloned()).collect();
    let newest_matrix = matrix::from_records(&newest_records, "");
    let clients = crate::features::by_client(&newest_matrix);
    site.files.insert("index.html".into(), index::render(&newest, &newest_matrix, &clients));
    for (client, releases) in &releases {
        site.files.insert(host_href("", client), host::render(client, releases, input.findings));
    }
    for feature in crate::features::FEATURES {
        site.files.insert(feature_href("", feature.id), feature::render(feature, &clients));
    }
    for probe in probe_server::registry::probes() {
        site.files.insert(probe_href("", probe.id()), probe_page::render(*probe, &newest, &releases));
    }
    for (path, text) in input.journals {
        site.files.insert(format!("journals/{path}.html"), journal::render(path, text));
    }
    site
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_keep_letters_and_digits_only() {
        assert_eq!(slug("claude-code@2.1.332 · legacy-only server"), "claude-code-2-1-332-legacy-only-server");
        assert_eq!(slug("v1.0"), "v1-0");
    }
}
