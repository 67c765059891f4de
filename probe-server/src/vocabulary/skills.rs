//! The skills the probe server serves in its skills variants (SEP-2640): one well-formed skill, an
//! idle one nobody asks for (any read of it is a prefetch), one named only in the server's
//! instructions, two skills with the same name, and one hostile skill per integrity rule. Each
//! hostile skill's `SKILL.md` points at a `reference.md` that is in its manifest: a host that
//! refuses the skill never reads it.
//!
//! Everything lives in memory and is looked up by exact URI: no URI, however it is spelled, makes
//! the server touch the file system. Manifests that rmcp refuses to send (paths outside the skill,
//! a name that differs from its URI segment) are sent with placeholders that the transport taps
//! replace on the way out ([`outgoing_rewrites`]).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use rmcp::model::sha256_digest;
use serde_json::{json, Value};

pub const AUTHORITY: &str = "skill://probe";
pub const GOOD: &str = "probe-good";
pub const IDLE: &str = "probe-idle";
pub const HIDDEN: &str = "probe-hidden";
pub const HIDDEN_URI: &str = "skill://probe/hidden/probe-hidden/SKILL.md";
pub const TWIN: &str = "twin";
pub const TWIN_URIS: [&str; 2] = ["skill://probe/a/twin/SKILL.md", "skill://probe/b/twin/SKILL.md"];
/// The good skill's directory that a host may list when `directoryRead` is declared.
pub const TEMPLATES_DIR: &str = "skill://probe/probe-good/templates";
/// A file the templates directory lists that is not in the manifest.
pub const EXTRA_URI: &str = "skill://probe/probe-good/templates/extra.md";
/// The file `unlisted-ref`'s SKILL.md mentions without listing it.
pub const UNLISTED_URI: &str = "skill://probe/unlisted-ref/scripts/helper.py";
/// Every escaping URI of the `escape` skill contains this.
pub const ESCAPE_MARK: &str = "escape-secret";
/// How many files the `oversize` manifest lists (the limit is 512).
pub const OVERSIZE_FILES: usize = 513;
/// The name `misnamed`'s frontmatter carries on the wire (its URI segment says `misnamed`).
pub const MISNAMED_WIRE_NAME: &str = "renamed";
/// Skills per `skills/list` page: the listing has two pages.
pub const SKILLS_PAGE_ONE: usize = 5;
pub const SKILLS_CURSOR: &str = "skills-page-2";

/// One hostile skill: its name and what is wrong with it.
pub const HOSTILE: [(&str, &str); 7] = [
    ("bad-digest", "the SKILL.md digest in the manifest is well formed but wrong (same size)"),
    ("bad-size", "the SKILL.md size in the manifest is 7 bytes too large (digest right)"),
    ("bad-frontmatter", "the SKILL.md frontmatter description differs from the listed one"),
    ("unlisted-ref", "SKILL.md tells the reader to run scripts/helper.py, which the manifest does not list"),
    ("escape", "the manifest lists files outside the skill: ../, percent-encoded ../ and an absolute path"),
    ("oversize", "the manifest lists 513 files (the limit is 512)"),
    ("misnamed", "the frontmatter name (renamed) differs from the URI segment (misnamed)"),
];

/// A served skill: the entry as listed (before outgoing rewrites) and whether `skills/list` shows it.
#[derive(Debug, Clone)]
pub struct ServedSkill {
    pub name: &'static str,
    pub entry: Value,
    pub listed: bool,
}

#[derive(Debug)]
pub struct Catalogue {
    pub skills: Vec<ServedSkill>,
    /// Every file the server serves, by exact URI.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Directory URI → direct children (uri, is a directory).
    pub directories: BTreeMap<String, Vec<(String, bool)>>,
}

pub fn skill_uri(path: &str) -> String {
    format!("{AUTHORITY}/{path}/SKILL.md")
}

/// The root of a skill (its SKILL.md URI without `/SKILL.md`).
pub fn skill_root(uri: &str) -> &str {
    uri.strip_suffix("/SKILL.md").unwrap_or(uri)
}

/// The `reference.md` beside a skill's SKILL.md.
pub fn reference_uri(skill_md: &str) -> String {
    format!("{}/reference.md", skill_root(skill_md))
}

/// A SKILL.md whose frontmatter is valid YAML whatever the description holds: the description
/// is a double-quoted scalar (a hostile skill must be refused for the rule under test, never for
/// a parse error such as an unquoted `: `).
fn skill_md(name: &str, description: &str, body: &str) -> Vec<u8> {
    let quoted = serde_json::to_string(description).expect("a string serializes");
    format!("---\nname: {name}\ndescription: {quoted}\n---\n# {name}\n\n{body}\n").into_bytes()
}

fn file_entry(uri: &str, bytes: &[u8]) -> Value {
    json!({"uri": uri, "digest": sha256_digest(bytes), "size": bytes.len()})
}

fn entry(uri: &str, name: &str, description: &str, manifest: Vec<Value>) -> Value {
    json!({"uri": uri, "frontmatter": {"name": name, "description": description}, "resources": manifest})
}

const READ_REFERENCE: &str = "Read `reference.md` before acting on this skill.";

/// The placeholders rmcp lets through, and what the taps send instead.
pub fn outgoing_rewrites() -> &'static [(&'static str, &'static str)] {
    &[
        ("skill://probe/escape/placeholder-dotdot.md", "skill://probe/escape/../escape-secret.md"),
        ("skill://probe/escape/placeholder-encoded.md", "skill://probe/escape/%2e%2e%2fescape-secret-encoded.md"),
        ("skill://probe/escape/placeholder-absolute.md", "skill:///escape-secret-absolute.md"),
        ("\"name\":\"misnamed\"", "\"name\":\"renamed\""),
    ]
}

/// Applies [`outgoing_rewrites`] to a frame's text; `None` when nothing changed.
pub fn rewrite_outgoing(text: &str) -> Option<String> {
    let rewrites = outgoing_rewrites();
    if !rewrites.iter().any(|(from, _)| text.contains(from)) {
        return None;
    }
    Some(rewrites.iter().fold(text.to_string(), |text, (from, to)| text.replace(from, to)))
}

pub fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(build)
}

fn build() -> Catalogue {
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut skills = Vec::new();
    let mut add = |name: &'static str, entry: Value, listed: bool, served: Vec<(String, Vec<u8>)>| {
        files.extend(served);
        skills.push(ServedSkill { name, entry, listed });
    };

    // The good skill, from fixtures/skills/probe-good.
    let good_uri = skill_uri(GOOD);
    let good_files: Vec<(String, Vec<u8>)> = vec![
        (good_uri.clone(), include_bytes!("../../../fixtures/skills/probe-good/SKILL.md").to_vec()),
        (reference_uri(&good_uri), include_bytes!("../../../fixtures/skills/probe-good/reference.md").to_vec()),
        (format!("{TEMPLATES_DIR}/letter.md"), include_bytes!("../../../fixtures/skills/probe-good/templates/letter.md").to_vec()),
    ];
    let manifest = good_files.iter().map(|(u, b)| file_entry(u, b)).collect();
    let description = "A well-formed skill served by mcp-client-probe. Use it when asked for the good probe skill.";
    add(GOOD, entry(&good_uri, GOOD, description, manifest), true, good_files);

    // Ordinary skills: SKILL.md and reference.md, honest manifest.
    let plain = |name: &str, uri: &str, description: &str| -> (Value, Vec<(String, Vec<u8>)>) {
        let md = skill_md(name, description, READ_REFERENCE);
        let reference = format!("# Reference of {name}\n").into_bytes();
        let served = vec![(uri.to_string(), md), (reference_uri(uri), reference)];
        let manifest = served.iter().map(|(u, b)| file_entry(u, b)).collect();
        (entry(uri, name, description, manifest), served)
    };
    let (idle, served) = plain(IDLE, &skill_uri(IDLE), "A skill nobody asks for; reading it is prefetching.");
    add(IDLE, idle, true, served);

    // Hostile skills, listed in HOSTILE order.
    for (name, _) in HOSTILE {
        let uri = skill_uri(name);
        let description = format!("A hostile skill: {name}.");
        let (mut listed, mut served) = plain(name, &uri, &description);
        match name {
            "bad-digest" => {
                let mut other = served[0].1.clone();
                let last = other.len() - 2;
                other[last] = other[last].wrapping_add(1);
                listed["resources"][0]["digest"] = json!(sha256_digest(&other));
            }
            "bad-size" => listed["resources"][0]["size"] = json!(served[0].1.len() + 7),
            "bad-frontmatter" => {
                // The served SKILL.md says something else than the listing.
                served[0].1 = skill_md(name, "Not the description the listing gave.", READ_REFERENCE);
                listed["resources"][0] = file_entry(&uri, &served[0].1);
            }
            "unlisted-ref" => {
                served[0].1 = skill_md(name, &description, &format!("{READ_REFERENCE} Then run `scripts/helper.py`."));
                listed["resources"][0] = file_entry(&uri, &served[0].1);
                served.push((UNLISTED_URI.to_string(), b"print('helper of unlisted-ref')\n".to_vec()));
            }
            "escape" => {
                let manifest = listed["resources"].as_array_mut().expect("a manifest");
                for placeholder in ["placeholder-dotdot", "placeholder-encoded", "placeholder-absolute"] {
                    manifest.push(file_entry(&format!("skill://probe/escape/{placeholder}.md"), b"secret\n"));
                }
            }
            "oversize" => {
                let manifest = listed["resources"].as_array_mut().expect("a manifest");
                for i in 0..OVERSIZE_FILES - 2 {
                    let part = (format!("{}/parts/{i:03}.md", skill_root(&uri)), format!("part {i}\n").into_bytes());
                    manifest.push(file_entry(&part.0, &part.1));
                    served.push(part);
                }
            }
            "misnamed" => {
                // The file says the name the wire will say after the rewrite.
                served[0].1 = skill_md(MISNAMED_WIRE_NAME, &description, READ_REFERENCE);
                listed["resources"][0] = file_entry(&uri, &served[0].1);
            }
            _ => {}
        }
        add(name, listed, true, served);
    }

    for twin in TWIN_URIS {
        let (listed, served) = plain(TWIN, twin, "One of two skills named twin.");
        add(TWIN, listed, true, served);
    }
    let (hidden, served) = plain(HIDDEN, HIDDEN_URI, "A skill named only in the server instructions.");
    add(HIDDEN, hidden, false, served);

    files.insert(EXTRA_URI.to_string(), b"An extra template that no manifest lists.\n".to_vec());
    let mut directories = BTreeMap::new();
    directories.insert(TEMPLATES_DIR.to_string(), vec![(format!("{TEMPLATES_DIR}/letter.md"), false), (EXTRA_URI.to_string(), false)]);
    directories.insert(skill_root(&good_uri).to_string(), vec![(good_uri.clone(), false), (reference_uri(&good_uri), false), (TEMPLATES_DIR.to_string(), true)]);
    Catalogue { skills, files, directories }
}

impl Catalogue {
    /// The skills `skills/list` shows, in order.
    pub fn listed(&self) -> Vec<&ServedSkill> {
        self.skills.iter().filter(|s| s.listed).collect()
    }

    pub fn by_uri(&self, uri: &str) -> Option<&ServedSkill> {
        self.skills.iter().find(|s| s.entry["uri"] == uri)
    }

    /// The listed skill called `name` (the first, for the twins).
    pub fn named(&self, name: &str) -> Option<&ServedSkill> {
        self.skills.iter().find(|s| s.name == name)
    }
}

/// Whether `uri` belongs to the skill whose SKILL.md is `skill_md` (same root, by prefix).
pub fn belongs_to(uri: &str, skill_md: &str) -> bool {
    uri.strip_prefix(skill_root(skill_md)).is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::Skill;

    #[test]
    fn every_entry_passes_rmcp_validation_before_the_rewrites_and_fails_after_where_meant_to() {
        for skill in &catalogue().skills {
            let typed: Skill = serde_json::from_value(skill.entry.clone()).unwrap();
            typed.validate().unwrap_or_else(|e| panic!("{}: {e}", skill.name));
            let rewritten = rewrite_outgoing(&skill.entry.to_string()).map(|t| serde_json::from_str::<Skill>(&t).unwrap());
            match skill.name {
                "escape" | "misnamed" => assert!(rewritten.expect("rewritten").validate().is_err(), "{}", skill.name),
                _ => assert!(rewritten.is_none(), "{} must go out as served", skill.name),
            }
        }
    }

    #[test]
    fn honest_manifests_match_the_served_bytes_and_hostile_ones_do_not() {
        let catalogue = catalogue();
        let verify = |name: &str| -> Result<(), String> {
            let skill: Skill = serde_json::from_value(catalogue.named(name).unwrap().entry.clone()).unwrap();
            let rmcp::model::SkillResources::Files(files) = &skill.resources else { return Ok(()) };
            files.iter().filter(|f| catalogue.files.contains_key(&f.uri)).try_for_each(|f| f.verify(&catalogue.files[&f.uri]).map_err(|e| e.to_string()))
        };
        for name in [GOOD, IDLE, TWIN, "bad-frontmatter", "unlisted-ref", "oversize", "misnamed"] {
            verify(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert!(verify("bad-digest").unwrap_err().contains("sha256"));
        assert!(verify("bad-size").unwrap_err().contains("bytes"));
        assert_eq!(catalogue.named("oversize").unwrap().entry["resources"].as_array().unwrap().len(), OVERSIZE_FILES);
        assert_eq!(catalogue.listed().len(), 2 + HOSTILE.len() + 2);
        assert!(catalogue.by_uri(HIDDEN_URI).is_some_and(|s| !s.listed));
    }

    /// Every served SKILL.md opens with a frontmatter block that a YAML parser reads, with a
    /// name and description (the hostile skills break one rule each, never YAML).
    #[test]
    fn every_skill_md_has_valid_yaml_frontmatter() {
        let catalogue = catalogue();
        for skill in &catalogue.skills {
            let uri = skill.entry["uri"].as_str().unwrap();
            let text = std::str::from_utf8(&catalogue.files[uri]).unwrap();
            let block = text.strip_prefix("---\n").and_then(|rest| rest.split_once("\n---\n")).map(|(block, _)| block).unwrap_or_else(|| panic!("{uri}: no frontmatter"));
            let docs = yaml_rust2::YamlLoader::load_from_str(block).unwrap_or_else(|e| panic!("{uri}: frontmatter is not YAML: {e}"));
            let description = docs[0]["description"].as_str().unwrap_or_else(|| panic!("{uri}: no description"));
            if skill.name != "bad-frontmatter" {
                assert_eq!(description, skill.entry["frontmatter"]["description"], "{uri}");
            }
            assert!(docs[0]["name"].as_str().is_some(), "{uri}");
        }
        assert!(catalogue.named("oversize").unwrap().entry["frontmatter"]["description"].as_str().unwrap().contains(": "), "the case that needs quoting is served");
    }

    #[test]
    fn files_belong_to_their_skill_by_root() {
        assert!(belongs_to("skill://probe/probe-good/reference.md", "skill://probe/probe-good/SKILL.md"));
        assert!(!belongs_to("skill://probe/probe-goodness/SKILL.md", "skill://probe/probe-good/SKILL.md"));
    }
}
