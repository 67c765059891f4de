//! The skills extension (SEP-2640), judged on the skills server variants. Sections quoted are
//! those of the stable extension page (G2); the G1 draft (d7490ec) has the same rule unless a
//! probe says otherwise. Hostile skills are judged by absence: a host that refuses a skill never
//! reads on from it (its `reference.md`, which the manifest lists and the SKILL.md points to),
//! and, for hosts that install skills, never writes it to disk (the runner journals what it finds
//! in the host's skills directory, and skill files anywhere else, as a `files_on_disk` note).

use serde_json::Value;

use super::{probe, BOTH};
use crate::observe::{Frame, Observations};
use crate::probe::{Outcome, Verdict};
use crate::skills::{self as k, belongs_to, reference_uri, skill_uri};

fn uri(frame: &Frame) -> &str {
    frame.params().get("uri").and_then(Value::as_str).unwrap_or_default()
}

fn reads(o: &Observations) -> impl Iterator<Item = &Frame> + '_ {
    o.client_requests("resources/read")
}

fn read_of<'a>(o: &'a Observations, wanted: &str) -> Option<&'a Frame> {
    reads(o).find(|f| uri(f) == wanted)
}

fn listed(o: &Observations) -> Option<&Frame> {
    o.client_requests("skills/list").next()
}

/// The read that shows the host acts on a good skill: the good skill's `reference.md`.
fn acted_on_good(o: &Observations) -> Option<&Frame> {
    read_of(o, &reference_uri(&skill_uri(k::GOOD)))
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] = &[
    &List,
    &Pagination,
    &Get,
    &GetUnlisted,
    &ReadFiles,
    &NoPrefetch,
    &DirectoryRead,
    &DirectoryUndeclared,
    &DirectoryManifestOnly,
    &VerifyDigest,
    &VerifySize,
    &VerifyFrontmatter,
    &UnlistedFile,
    &PathEscape,
    &ManifestLimits,
    &NameMismatch,
    &SameName,
    &Unadvertised,
];

probe! {
    /// Evidence: `skills/list` after the server declared `io.modelcontextprotocol/skills`
    /// (§Capability Negotiation, §Listing Skills: "Hosts discover skills with skills/list").
    List {
        id: "skills.list", area: Skills, title: "lists skills (skills/list)",
        revisions: ["SEP-2640 d7490ec (G1)", "SEP-2640 stable (G2)"], eras: BOTH, variant: Skills,
        serves: "the skills extension; skills/list over two pages", judge: judge_list,
    }
}

fn judge_list(o: &Observations) -> Verdict {
    super::requested(o, "skills/list", "listed skills", &[])
}

probe! {
    /// Evidence: `skills/list` with the `nextCursor` of the first page (§Listing Skills:
    /// paginated like other lists; an entry is never split across pages).
    Pagination {
        id: "skills.pagination", area: Skills, title: "follows the skills/list cursor",
        revisions: ["SEP-2640 d7490ec (G1)", "SEP-2640 stable (G2)"], eras: BOTH, variant: Skills,
        serves: "5 skills on page one, 6 on page two", judge: judge_pagination,
    }
}

fn judge_pagination(o: &Observations) -> Verdict {
    let Some(first) = listed(o) else { return Verdict::new(Outcome::NotReached, "never listed skills") };
    match o.client_requests("skills/list").find(|f| f.params().get("cursor").and_then(Value::as_str) == Some(k::SKILLS_CURSOR)) {
        Some(second) => Verdict::new(Outcome::Yes, "fetched the second page").evidence([first.seq, second.seq]),
        None => Verdict::new(Outcome::No, "stopped at the first page").evidence([first.seq]).opportunity(o.answer_to(first).map(|a| a.seq)),
    }
}

probe! {
    /// Evidence: `skills/get` for a listed skill's SKILL.md URI (§Getting a Skill: hosts refresh
    /// an entry with skills/get before acting on it).
    Get {
        id: "skills.get", area: Skills, title: "fetches an entry with skills/get",
        revisions: ["SEP-2640 d7490ec (G1)", "SEP-2640 stable (G2)"], eras: BOTH, variant: Skills,
        serves: "skills/get for every served skill; -32602 for others", judge: judge_get,
    }
}

fn judge_get(o: &Observations) -> Verdict {
    let catalogue = k::catalogue();
    let gets: Vec<&Frame> = o.client_requests("skills/get").collect();
    match gets.iter().find(|f| catalogue.by_uri(uri(f)).is_some_and(|s| s.listed)) {
        Some(get) => Verdict::new(Outcome::Yes, format!("{} of listed skills", plural(gets.len(), "skills/get"))).evidence([get.seq]),
        None => match listed(o) {
            None => Verdict::new(Outcome::NotReached, "never listed skills"),
            Some(list) => Verdict::new(Outcome::No, "never used skills/get for a listed skill").evidence([list.seq]).opportunity([list.seq]),
        },
    }
}

probe! {
    /// Evidence: `skills/get` for `skill://probe/hidden/probe-hidden/SKILL.md`, a skill the listing
    /// omits and the server's `instructions` name (§Getting a Skill: "The server MUST answer for
    /// every skill it serves, listed or not"). Reading its SKILL.md without skills/get is partial.
    GetUnlisted {
        id: "skills.get_unlisted", area: Skills, title: "gets a skill named only in instructions",
        revisions: ["SEP-2640 0eb05fe (G1')", "SEP-2640 stable (G2)"], eras: BOTH, variant: Skills,
        serves: "instructions naming an unlisted skill", judge: judge_get_unlisted,
    }
}

fn judge_get_unlisted(o: &Observations) -> Verdict {
    if let Some(get) = o.client_requests("skills/get").find(|f| uri(f) == k::HIDDEN_URI) {
        return Verdict::new(Outcome::Yes, "fetched the unlisted skill by its URI").evidence([get.seq]);
    }
    match read_of(o, k::HIDDEN_URI) {
        Some(read) => Verdict::new(Outcome::Partial, "read the unlisted SKILL.md without skills/get").evidence([read.seq]).opportunity([read.seq]),
        // Opportunity: the session opened, so the server's instructions (naming the skill) were handed over.
        None => {
            let chance = super::opportunity::chance!(super::opportunity::session(o));
            chance.cite(Verdict::new(Outcome::No, "never fetched the skill the instructions name"))
        }
    }
}

probe! {
    /// Evidence: `resources/read` of the good skill's SKILL.md by the exact URI in its manifest
    /// (§Reading Skill Files: files are resources read with resources/read). The detail says how
    /// many skill files were read.
    ReadFiles {
        id: "skills.read_files", area: Skills, title: "reads skill files with resources/read",
        revisions: ["SEP-2640 d7490ec (G1)", "SEP-2640 stable (G2)"], eras: BOTH, variant: Skills,
        serves: "every listed file by exact URI", judge: judge_read_files,
    }
}

fn judge_read_files(o: &Observations) -> Verdict {
    let skill_reads = reads(o).filter(|f| uri(f).starts_with("skill://")).count();
    match read_of(o, &skill_uri(k::GOOD)) {
        Some(read) => Verdict::new(Outcome::Yes, format!("read the good SKILL.md ({} of skill URIs in all)", plural(skill_reads, "read"))).evidence([read.seq]),
        None if skill_reads > 0 => Verdict::new(Outcome::Partial, format!("{} of skill URIs, never the good SKILL.md by its manifest URI", plural(skill_reads, "read")))
            .opportunity(listed(o).map(|f| f.seq)),
        None => match listed(o) {
            None => Verdict::new(Outcome::NotReached, "never listed skills"),
            Some(list) => Verdict::new(Outcome::No, "listed skills, never read a skill file").evidence([list.seq]).opportunity([list.seq]),
        },
    }
}

probe! {
    /// Evidence: no `resources/read` of any file of `probe-idle`, a listed skill nothing asks for
    /// (§Integrity and Verification, lazy retrieval: hosts MUST NOT fetch skill files ahead of
    /// need — on connect, on listing or at approval). Any read of it is a violation.
    NoPrefetch {
        id: "skills.no_prefetch", area: Skills, title: "no prefetch of skill files",
        revisions: ["SEP-2640 stable (G2)"], eras: BOTH, variant: Skills,
        serves: "probe-idle, listed on page one, never asked for", judge: judge_no_prefetch,
    }
}

fn judge_no_prefetch(o: &Observations) -> Verdict {
    let Some(list) = listed(o) else { return Verdict::new(Outcome::NotReached, "never listed skills") };
    let idle = skill_uri(k::IDLE);
    let prefetched: Vec<&Frame> = reads(o).filter(|f| belongs_to(uri(f), &idle)).collect();
    match prefetched.first() {
        None => Verdict::new(Outcome::Yes, "never read the skill nobody asked for").evidence([list.seq]),
        Some(first) => Verdict::new(Outcome::Violation, format!("read {} of a skill nobody asked for", plural(prefetched.len(), "file"))).evidence([list.seq, first.seq]),
    }
}

probe! {
    /// Evidence (variant `skills`, `directoryRead: true`): `resources/directory/read` of the good
    /// skill's `templates` directory, its URI without a trailing slash (§Directory Reads). With a
    /// trailing slash, partial.
    DirectoryRead {
        id: "skills.directory_read", area: Skills, title: "lists a skill directory when allowed",
        revisions: ["SEP-2640 d7490ec (G1)", "SEP-2640 stable (G2)"], eras: BOTH, variant: Skills,
        serves: "directoryRead: true; the good SKILL.md says to pick from templates/", judge: judge_directory_read,
    }
}

fn judge_directory_read(o: &Observations) -> Verdict {
    let calls: Vec<&Frame> = o.client_requests("resources/directory/read").collect();
    let good_root = k::skill_root(&skill_uri(k::GOOD)).to_string();
    if let Some(call) = calls.iter().find(|f| uri(f) == k::TEMPLATES_DIR || uri(f) == good_root) {
        return Verdict::new(Outcome::Yes, format!("listed {}", uri(call))).evidence([call.seq]);
    }
    match calls.first() {
        Some(call) if uri(call).ends_with('/') => Verdict::new(Outcome::Partial, "asked for a directory URI with a trailing slash").evidence([call.seq]).opportunity([call.seq]),
        Some(call) => Verdict::new(Outcome::Partial, "listed some other directory").evidence([call.seq]).opportunity([call.seq]),
        None if listed(o).is_none() => Verdict::new(Outcome::NotReached, "never listed skills"),
        None => Verdict::new(Outcome::No, "never listed a skill directory").evidence(acted_on_good(o).map(|f| f.seq)).opportunity(listed(o).map(|f| f.seq)),
    }
}

probe! {
    /// Evidence (variant `skills-no-directory-read`): no `resources/directory/read` while the
    /// extension is declared without `directoryRead` (§Capability Negotiation: clients MUST NOT
    /// call it unless `directoryRead` is true). A call is a violation.
    DirectoryUndeclared {
        id: "skills.directory_undeclared", area: Skills, title: "no directory read unless declared",
        revisions: ["SEP-2640 d7490ec (G1)", "SEP-2640 stable (G2)"], eras: BOTH, variant: SkillsNoDirectoryRead,
        serves: "the skills extension declared as {} (no directoryRead)", judge: judge_directory_undeclared,
    }
}

fn judge_directory_undeclared(o: &Observations) -> Verdict {
    let Some(list) = listed(o) else { return Verdict::new(Outcome::NotReached, "never listed skills") };
    match o.client_requests("resources/directory/read").next() {
        None => Verdict::new(Outcome::Yes, "never read a directory while directoryRead was not declared").evidence([list.seq]),
        Some(call) => Verdict::new(Outcome::Violation, format!("read directory {} although directoryRead was not declared", uri(call))).evidence([call.seq]),
    }
}

probe! {
    /// Evidence (variant `skills`): after a directory read that lists `templates/extra.md`, a file
    /// the manifest does not list, no read of it (§Integrity and Verification: a directory listing
    /// never extends the manifest; an unlisted read is a verification failure).
    DirectoryManifestOnly {
        id: "skills.directory_manifest_only", area: Skills, title: "reads no directory child outside the manifest",
        revisions: ["SEP-2640 stable (G2)"], eras: BOTH, variant: Skills,
        serves: "templates/ lists letter.md (in the manifest) and extra.md (not)", judge: judge_directory_manifest_only,
    }
}

fn judge_directory_manifest_only(o: &Observations) -> Verdict {
    let Some(call) = o.client_requests("resources/directory/read").find(|f| uri(f) == k::TEMPLATES_DIR) else {
        return Verdict::new(Outcome::NotReached, "never listed the templates directory");
    };
    match read_of(o, k::EXTRA_URI) {
        Some(read) => Verdict::new(Outcome::Violation, "read a listed child that the manifest does not list").evidence([call.seq, read.seq]),
        None => Verdict::new(Outcome::Yes, "read no child outside the manifest").evidence([call.seq]),
    }
}

/// The runner's `files_on_disk` note of a skills run, if the host installs skills.
fn disk_note(o: &Observations) -> Option<(u64, crate::note::FilesOnDisk)> {
    o.payloads::<crate::note::FilesOnDisk>().next().map(|(e, disk)| (e.seq, disk))
}

/// A file the host wrote into its skills directory for skill `name` (its directory named after
/// the skill, or after the name its frontmatter claims).
fn installed(o: &Observations, name: &str) -> Option<(u64, String)> {
    let (seq, note) = disk_note(o)?;
    let names = if name == "misnamed" { vec![name, k::MISNAMED_WIRE_NAME] } else { vec![name] };
    note.in_skills_dir.into_iter().find(|f| f.split('/').next().is_some_and(|dir| names.contains(&dir))).map(|f| (seq, f))
}

/// Yes when the host, which acts on the good skill, never read on from hostile skill `name` (nor
/// any URI `also_bad` accepts); a violation when it did.
fn refused(o: &Observations, name: &str, what: &str, also_bad: impl Fn(&str) -> bool) -> Verdict {
    let Some(good) = acted_on_good(o) else {
        return Verdict::new(Outcome::NotReached, "never acted on the good skill, so refusing a hostile one shows nothing");
    };
    let hostile = skill_uri(name);
    // A host that installs skills shows its decision on disk: fetching every file of a skill to
    // verify it is not using it.
    if let Some((note, _)) = disk_note(o) {
        return match installed(o, name) {
            Some((_, file)) => Verdict::new(Outcome::Violation, format!("installed {name} ({file}) although {what}")).evidence([good.seq, note]),
            None => {
                let fetched = reads(o).filter(|f| belongs_to(uri(f), &hostile)).count();
                Verdict::new(Outcome::Yes, format!("did not install {name} (fetched {} of it first)", plural(fetched, "file"))).evidence([good.seq, note])
            }
        };
    }
    let bad: Vec<&Frame> = reads(o).filter(|f| uri(f) == reference_uri(&hostile) || also_bad(uri(f))).collect();
    if let Some(first) = bad.first() {
        return Verdict::new(Outcome::Violation, format!("read on from {name} ({}) although {what}", uri(first))).evidence([good.seq, first.seq]);
    }
    match read_of(o, &hostile).or_else(|| o.client_requests("skills/get").find(|f| uri(f) == hostile)) {
        Some(touched) => Verdict::new(Outcome::Yes, format!("refused {name}: fetched it, never read on")).evidence([good.seq, touched.seq]),
        None => Verdict::new(Outcome::Yes, format!("never fetched {name}")).evidence([good.seq]),
    }
}

probe! {
    /// Evidence: the host never reads on from `bad-digest`, whose SKILL.md digest in the manifest
    /// is well formed but wrong (§Integrity and Verification: hosts MUST verify the digest of every
    /// listed file they read and never use unverified content).
    VerifyDigest {
        id: "skills.verify_digest", area: Skills, title: "refuses a skill whose digest is wrong",
        revisions: ["SEP-2640 d7490ec (G1)", "SEP-2640 stable (G2)"], eras: BOTH, variant: Skills,
        serves: "bad-digest", judge: |o| refused(o, "bad-digest", "its SKILL.md digest is wrong", |_| false),
    }
}

probe! {
    /// Evidence: the host never reads on from `bad-size`, whose SKILL.md size in the manifest is
    /// wrong (§Integrity and Verification: hosts MUST verify `size`; G2 only, G1 has no size).
    VerifySize {
        id: "skills.verify_size", area: Skills, title: "refuses a skill whose size is wrong",
        revisions: ["SEP-2640 stable (G2)"], eras: BOTH, variant: Skills,
        serves: "bad-size", judge: |o| refused(o, "bad-size", "its SKILL.md size is wrong", |_| false),
    }
}

probe! {
    /// Evidence: the host never reads on from `bad-frontmatter`, whose SKILL.md frontmatter differs
    /// from the listed entry (§Integrity and Verification: parse the fetched frontmatter, compare
    /// it with the entry field by field, and on any discrepancy do not load).
    VerifyFrontmatter {
        id: "skills.verify_frontmatter", area: Skills, title: "refuses a skill whose frontmatter disagrees",
        revisions: ["SEP-2640 stable (G2)"], eras: BOTH, variant: Skills,
        serves: "bad-frontmatter", judge: |o| refused(o, "bad-frontmatter", "its SKILL.md frontmatter disagrees with the listing", |_| false),
    }
}

probe! {
    /// Evidence: no read of `scripts/helper.py`, which the SKILL.md of `unlisted-ref` names but its
    /// manifest does not list (§Integrity and Verification: while acting on a skill, read only URIs
    /// listed in the held entry).
    UnlistedFile {
        id: "skills.unlisted_file", area: Skills, title: "reads no file the manifest omits",
        revisions: ["SEP-2640 stable (G2)"], eras: BOTH, variant: Skills,
        serves: "unlisted-ref", judge: judge_unlisted_file,
    }
}

fn judge_unlisted_file(o: &Observations) -> Verdict {
    let Some(good) = acted_on_good(o) else {
        return Verdict::new(Outcome::NotReached, "never acted on the good skill");
    };
    match read_of(o, k::UNLISTED_URI) {
        Some(read) => Verdict::new(Outcome::Violation, "read a file the SKILL.md names and the manifest omits").evidence([good.seq, read.seq]),
        None => Verdict::new(Outcome::Yes, "read no file outside the manifest").evidence([good.seq]),
    }
}

probe! {
    /// Evidence: the host never reads a URI that escapes the skill (`../`, percent-encoded `../`,
    /// an absolute path), as listed in the manifest of `escape`, nor reads on from that skill, and
    /// (hosts that install) writes nothing of it, inside or outside its skills directory
    /// (§Skill Entries: the manifest lists only files inside the skill directory; an invalid
    /// entry is not loaded).
    PathEscape {
        id: "skills.path_escape", area: Skills, title: "refuses a manifest that escapes the skill",
        revisions: ["SEP-2640 d7490ec (G1)", "SEP-2640 stable (G2)"], eras: BOTH, variant: Skills,
        serves: "escape (placeholders rewritten on the way out)", judge: judge_path_escape,
    }
}

fn judge_path_escape(o: &Observations) -> Verdict {
    if let Some((seq, note)) = disk_note(o) {
        let written = note.elsewhere.iter().find(|p| p.contains(k::ESCAPE_MARK));
        if written.is_some() {
            return Verdict::new(Outcome::Violation, "wrote a file of the escaping manifest outside the skills directory").evidence([seq]);
        }
    }
    refused(o, "escape", "its manifest escapes the skill", |u| u.contains(k::ESCAPE_MARK))
}

probe! {
    /// Evidence: the host never reads on from `oversize`, whose manifest lists 513 files (§Limits:
    /// at most 512 files and 16 MiB per skill; a host that declines beyond them SHOULD tell the user).
    ManifestLimits {
        id: "skills.manifest_limits", area: Skills, title: "refuses a manifest over the limits",
        revisions: ["SEP-2640 stable (G2)"], eras: BOTH, variant: Skills,
        serves: "oversize (513 files)", judge: judge_manifest_limits,
    }
}

/// The most files a manifest may list (SEP-2640 limits).
const MANIFEST_FILE_LIMIT: usize = 512;

fn judge_manifest_limits(o: &Observations) -> Verdict {
    let verdict = refused(o, "oversize", "its manifest lists more than 512 files", |u| u.starts_with("skill://probe/oversize/parts/"));
    // Not installing after fetching every file is not applying the limit: the host read past it.
    let fetched: Vec<&Frame> = reads(o).filter(|f| belongs_to(uri(f), &skill_uri("oversize"))).collect();
    match fetched.get(MANIFEST_FILE_LIMIT) {
        Some(past) if verdict.outcome == Outcome::Yes => Verdict {
            outcome: Outcome::Partial,
            detail: format!("did not install oversize, but fetched {} of its files first: the limit was not applied before reading", fetched.len()),
            ..verdict.clone()
        }
        .evidence([past.seq])
        .opportunity(verdict.evidence.iter().copied()),
        _ => verdict,
    }
}

probe! {
    /// Evidence: the host never reads on from `misnamed`, whose frontmatter name differs from its
    /// URI's final skill-path segment (§Skill URIs: the final segment MUST equal the name).
    NameMismatch {
        id: "skills.name_mismatch", area: Skills, title: "refuses a skill whose name and URI differ",
        revisions: ["SEP-2640 0eb05fe (G1')", "SEP-2640 stable (G2)"], eras: BOTH, variant: Skills,
        serves: "misnamed (name rewritten on the way out)", judge: |o| refused(o, "misnamed", "its name differs from its URI", |_| false),
    }
}

probe! {
    /// Evidence: both skills named `twin` (at `skill://probe/a/twin` and `skill://probe/b/twin`)
    /// are fetched — and, by hosts that install, installed under names that tell them apart:
    /// neither silently shadows the other (§Names: hosts MUST disambiguate collisions within a
    /// listing). Only one is partial.
    SameName {
        id: "skills.same_name", area: Skills, title: "keeps two skills with the same name apart",
        revisions: ["SEP-2640 stable (G2)"], eras: BOTH, variant: Skills,
        serves: "two skills named twin on page two", judge: judge_same_name,
    }
}

/// The model-journal line where the model asked the host to install `skill_md` (a slash command
/// naming it), if it did.
fn install_asked(o: &Observations, skill_md: &str) -> Option<u64> {
    o.model_calls().find(|(_, _, args)| args.get("command").and_then(Value::as_str).is_some_and(|c| c.contains(skill_md))).map(|(seq, _, _)| seq)
}

fn judge_same_name(o: &Observations) -> Verdict {
    // A host that installs skills must end up with both, under names that tell them apart.
    if let Some((seq, note)) = disk_note(o) {
        // Opportunity: the model asked the host to install both twins.
        let asked: Vec<u64> = k::TWIN_URIS.iter().filter_map(|twin| install_asked(o, twin)).collect();
        if asked.len() < k::TWIN_URIS.len() && !o.model().is_empty() {
            return Verdict::new(Outcome::NotReached, "the model never asked the host to install both skills named twin").evidence([seq]);
        }
        let mut dirs: Vec<&str> = note.in_skills_dir.iter().filter_map(|f| f.split('/').next()).filter(|d| d.starts_with(k::TWIN)).collect();
        dirs.dedup();
        return match dirs.len() {
            0 => Verdict::new(Outcome::No, "installed neither skill named twin").evidence([seq]).opportunity([seq]).opportunity_model(asked),
            1 => Verdict::new(Outcome::Partial, "installed one directory for the two skills named twin: one replaced or refused the other")
                .evidence([seq])
                .opportunity([seq])
                .opportunity_model(asked),
            _ => Verdict::new(Outcome::Yes, "installed both skills named twin apart").evidence([seq]),
        };
    }
    let fetched: Vec<&Frame> = k::TWIN_URIS.iter().filter_map(|twin| read_of(o, twin).or_else(|| o.client_requests("skills/get").find(|f| uri(f) == *twin))).collect();
    match fetched.len() {
        2 => Verdict::new(Outcome::Yes, "fetched both skills named twin").evidence(fetched.iter().map(|f| f.seq)),
        1 => Verdict::new(Outcome::Partial, format!("fetched only {}", uri(fetched[0]))).evidence([fetched[0].seq]).opportunity(listed(o).map(|f| f.seq)),
        _ if listed(o).is_none() => Verdict::new(Outcome::NotReached, "never listed skills"),
        _ => Verdict::new(Outcome::NotReached, "fetched neither skill named twin"),
    }
}

probe! {
    /// Evidence (server journal, the standard server, which does not declare the skills
    /// extension): no `skills/*` request: yes. One is no (the extension's methods exist only on
    /// a server that declares it).
    Unadvertised {
        id: "skills.unadvertised_not_asked", area: Skills, title: "no skills/* request to a server that does not offer skills",
        revisions: ["SEP-2640 d7490ec (G1)", "SEP-2640 stable (G2)"], eras: BOTH, serves: "no skills extension: skills/* refused (-32601)",
        judge: |o| super::none_asked(o, "skills/* request", |f| super::method_in(f, "skills/"), "a server that offers no skills"),
    }
}
