//! The reference client as a conforming SEP-2640 skills host: lists every page, refreshes each
//! entry with `skills/get`, validates the manifest (`Skill::validate`, the 512-file and 16 MiB
//! limits), reads SKILL.md and verifies its size and digest, compares its frontmatter with the
//! entry, and only then reads on — the files its manifest lists, never others. It reads lazily:
//! `probe-idle` is never asked for, so never read. Each check has an ablation.

use probe_server::skills as k;
use rmcp::model::{
    sha256_digest, ClientRequest, GetSkillRequestParams, PaginatedRequestParams, ReadResourceDirectoryRequest, ReadResourceDirectoryRequestParams, ReadResourceRequestParams,
    ResourceContents, ServerResult, Skill, SkillResources, SkillValidationError,
};

use super::{Ablation, Client};

/// The SEP-2640 limits a host must accept up to.
const MAX_FILES: usize = 512;
const MAX_BYTES: u64 = 16 * 1024 * 1024;
/// How many manifest files the host reads on from an accepted skill (the oversize one has 513).
const READ_ON_AT_MOST: usize = 8;

/// Runs the skills part of the script when the server declares the extension.
pub async fn run(client: &Client, ablation: Option<Ablation>) {
    let skip = |a: Ablation| ablation == Some(a);
    let Some(capabilities) = client.peer_info().map(|i| i.capabilities.clone()) else { return };
    let directory_read = capabilities.supports_directory_read() || skip(Ablation::DirectoryReadUndeclared);
    if !capabilities.supports_skills() {
        return;
    }
    let mut listed: Vec<Skill> = Vec::new();
    let mut cursor = None;
    while !skip(Ablation::NeverListSkills) {
        let params = cursor.take().map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
        let Ok(page) = client.list_skills(params).await else { break };
        listed.extend(page.skills);
        match page.next_cursor {
            Some(next) if !skip(Ablation::SkillsFirstPageOnly) => cursor = Some(next),
            _ => break,
        }
    }
    if skip(Ablation::PrefetchSkills) {
        if let Some(idle) = listed.iter().find(|s| s.name() == k::IDLE) {
            for file in files(idle) {
                let _ = read(client, &file).await;
            }
        }
    }
    let mut twins = 0;
    for skill in listed.iter().filter(|s| s.name() != k::IDLE) {
        if skill.name() == k::TWIN {
            twins += 1;
            if twins > 1 && skip(Ablation::OneTwinOnly) {
                continue;
            }
        }
        let entry = if skip(Ablation::SkipSkillsGet) { Some(skill.clone()) } else { get(client, &skill.uri).await };
        if let Some(entry) = entry {
            act(client, &entry, directory_read, ablation).await;
        }
    }
    // The server's instructions name a skill the listing leaves out.
    let instructions = client.peer_info().and_then(|i| i.instructions.clone()).unwrap_or_default();
    if !skip(Ablation::IgnoreInstructionsSkill) {
        for uri in instructions.split_whitespace().map(|w| w.trim_end_matches(['.', ','])).filter(|w| w.starts_with("skill://") && w.ends_with("/SKILL.md")) {
            if let Some(entry) = get(client, uri).await {
                act(client, &entry, directory_read, ablation).await;
            }
        }
    }
}

async fn get(client: &Client, uri: &str) -> Option<Skill> {
    client.get_skill(GetSkillRequestParams::new(uri)).await.ok().map(|r| r.skill)
}

fn files(skill: &Skill) -> Vec<String> {
    match &skill.resources {
        SkillResources::Files(files) => files.iter().map(|f| f.uri.clone()).collect(),
        _ => vec![skill.uri.clone()],
    }
}

async fn read(client: &Client, uri: &str) -> Option<Vec<u8>> {
    let result = client.read_resource(ReadResourceRequestParams::new(uri)).await.ok()?;
    result.contents.into_iter().next().and_then(|c| match c {
        ResourceContents::TextResourceContents { text, .. } => Some(text.into_bytes()),
        ResourceContents::BlobResourceContents { blob, .. } => Some(blob.into_bytes()),
        _ => None,
    })
}

/// Whether the manifest passes the structural rules this host enforces.
fn manifest_acceptable(skill: &Skill, ablation: Option<Ablation>) -> bool {
    match skill.validate() {
        Ok(()) => {}
        Err(SkillValidationError::ResourceOutsideSkill { .. }) if ablation == Some(Ablation::FollowTraversal) => {}
        Err(SkillValidationError::NameMismatch { .. }) if ablation == Some(Ablation::IgnoreNameMismatch) => {}
        Err(_) => return false,
    }
    let SkillResources::Files(files) = &skill.resources else { return true };
    let within_limits = files.len() <= MAX_FILES && files.iter().map(|f| f.size).sum::<u64>() <= MAX_BYTES;
    within_limits || ablation == Some(Ablation::IgnoreLimits)
}

/// A YAML scalar's value: a double-quoted one unescaped, a plain one as it is.
fn unquote(value: &str) -> String {
    match value.starts_with('"') {
        true => serde_json::from_str(value).unwrap_or_else(|_| value.to_string()),
        false => value.to_string(),
    }
}

/// `name` and `description` from a SKILL.md's frontmatter.
fn frontmatter(text: &str) -> Option<(String, String)> {
    let body = text.strip_prefix("---\n")?;
    let block = &body[..body.find("\n---")?];
    let field = |key: &str| block.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(':').map(|v| unquote(v.trim())));
    Some((field("name")?, field("description")?))
}

/// Acts on one skill entry: checks it, reads and verifies SKILL.md, then reads on.
async fn act(client: &Client, skill: &Skill, directory_read: bool, ablation: Option<Ablation>) {
    let skip = |a: Ablation| ablation == Some(a);
    if !manifest_acceptable(skill, ablation) || skip(Ablation::NeverReadSkillFiles) {
        return;
    }
    let Some(bytes) = read(client, &skill.uri).await else { return };
    if let SkillResources::Files(files) = &skill.resources {
        let Some(listed) = files.iter().find(|f| f.uri == skill.uri) else { return };
        if listed.size != bytes.len() as u64 && !skip(Ablation::SkipSizeCheck) {
            return;
        }
        if listed.digest != sha256_digest(&bytes) && !skip(Ablation::SkipDigestCheck) {
            return;
        }
    }
    let text = String::from_utf8_lossy(&bytes);
    let agrees = frontmatter(&text).is_some_and(|(name, description)| name == skill.frontmatter.name && description == skill.frontmatter.description);
    if !agrees && !skip(Ablation::SkipFrontmatterCheck) {
        return;
    }
    // Accepted: read on, the listed files only.
    for uri in files(skill).into_iter().filter(|u| *u != skill.uri).take(READ_ON_AT_MOST) {
        let _ = read(client, &uri).await;
    }
    if skip(Ablation::ReadUnlisted) && text.contains("scripts/helper.py") {
        let _ = read(client, &format!("{}/scripts/helper.py", k::skill_root(&skill.uri))).await;
    }
    if skill.name() == k::GOOD && directory_read && !skip(Ablation::SkipDirectoryRead) {
        let listing = list_directory(client, k::TEMPLATES_DIR, ablation).await;
        let listed = files(skill);
        for child in listing.unwrap_or_default() {
            if listed.contains(&child.uri) || skip(Ablation::ReadDirectoryChildren) {
                let _ = read(client, &child.uri).await;
            }
        }
    }
}

/// `resources/directory/read`. rmcp's client refuses locally when the server did not declare
/// `directoryRead`; the `directory-read-undeclared` ablation sends it anyway.
async fn list_directory(client: &Client, uri: &str, ablation: Option<Ablation>) -> Option<Vec<rmcp::model::Resource>> {
    let params = ReadResourceDirectoryRequestParams::new(uri);
    if ablation != Some(Ablation::DirectoryReadUndeclared) {
        return client.read_resource_directory(params).await.ok().map(|l| l.resources);
    }
    let request = ClientRequest::ReadResourceDirectoryRequest(ReadResourceDirectoryRequest::new(params));
    match client.send_request(request).await.ok()? {
        ServerResult::ListResourcesResult(listing) => Some(listing.resources),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_fields_are_read_from_the_leading_block_only() {
        let text = "---\nname: a\ndescription: the a skill\n---\n# a\n\nname: not this\n";
        assert_eq!(frontmatter(text), Some(("a".into(), "the a skill".into())));
        assert_eq!(frontmatter("# no frontmatter"), None);
    }
}
