//! `matrix site`: the static site over committed and edited records, its checks, and a real
//! browser following a summary cell to the journal line it cites.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{copy_dir, probe_cmd};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn site(args: &[&str]) -> (i32, String) {
    let output = probe_cmd().arg("matrix").arg("site").args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    (output.status.code().unwrap_or(-1), String::from_utf8(output.stdout).unwrap() + &stderr)
}

/// Two versions of continue-cli on record: the committed one, and an older copy (1.5.9, which
/// sorts after 1.5.47 as text but before it as a version) in which the first "no" of the stdio
/// run was a yes. Returns the records root and the probe that regressed.
fn records_with_history(root: &Path) -> (PathBuf, String) {
    let records = root.join("records");
    copy_dir(&repo().join("matrices/records/continue-cli"), &records.join("continue-cli"));
    copy_dir(&repo().join("matrices/records/codex"), &records.join("codex"));
    let (current, older) = (records.join("continue-cli/1.5.47"), records.join("continue-cli/1.5.9"));
    copy_dir(&current, &older);
    let mut probe = String::new();
    for name in ["stdio.json", "http.json"] {
        let path = older.join(name);
        let mut record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        record["version"] = "1.5.9".into();
        if name == "stdio.json" {
            let verdict = record["verdicts"].as_array_mut().unwrap().iter_mut().find(|v| v["outcome"] == "no").unwrap();
            verdict["outcome"] = "yes".into();
            probe = verdict["probe"].as_str().unwrap().to_string();
        }
        std::fs::write(&path, serde_json::to_string_pretty(&record).unwrap()).unwrap();
    }
    (records, probe)
}

#[test]
fn the_site_shows_history_and_its_checks_catch_broken_and_stale_files() {
    let dir = tempfile::tempdir().unwrap();
    let (records, probe) = records_with_history(dir.path());
    let out = dir.path().join("site");
    let (code, text) = site(&["--records", records.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains(", 0 broken"), "{text}");

    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("<small>1.5.47</small>") && !index.contains("1.5.9"), "the index shows the newest version only");
    let host = std::fs::read_to_string(out.join("hosts/continue-cli.html")).unwrap();
    assert!(host.find("<h2>continue-cli@1.5.47</h2>") < host.find("<h2>continue-cli@1.5.9</h2>"), "newest first");
    assert!(host.contains("<h3>Changed since 1.5.9</h3>"), "the diff between the two versions is on the host's page");
    assert!(host.contains(&format!("<li class=\"regressed\">regressed: <a href=\"../features/{probe}.html\"><code>{probe}</code></a> over stdio")), "{probe}");
    let feature = std::fs::read_to_string(out.join(format!("features/{probe}.html"))).unwrap();
    let history = &feature[feature.find("id=\"history-continue-cli\"").unwrap()..];
    assert!(history.contains("<th>1.5.9</th><th>1.5.47</th>"), "oldest first: {}", &history[..400.min(history.len())]);
    assert!(history.contains("regressed\">✕ no ↓</td>"), "the lost yes is marked");
    assert!(feature.contains("since 0.171.0, the only version on record"), "codex has one version");

    // The written site is current; an edited page makes it stale; a broken link is reported.
    let check = |out: &Path| site(&["--records", records.to_str().unwrap(), "--out", out.to_str().unwrap(), "--check"]);
    let (code, text) = check(&out);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("is up to date"), "{text}");
    std::fs::write(out.join("index.html"), index.replace("href=\"hosts/codex.html\"", "href=\"hosts/nobody.html\"")).unwrap();
    let (code, text) = check(&out);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("is stale (1 files differ)"), "{text}");

    // A directory it did not write is refused, not replaced.
    let foreign = dir.path().join("mine");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "keep me").unwrap();
    let (code, text) = site(&["--records", records.to_str().unwrap(), "--out", foreign.to_str().unwrap()]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("did not write"), "{text}");
    assert_eq!(std::fs::read_to_string(foreign.join("notes.txt")).unwrap(), "keep me");
    let (code, text) = site(&["--records", dir.path().join("none").to_str().unwrap(), "--check"]);
    assert_eq!(code, 2, "{text}");

    // The matrix document shows each client's newest version only.
    let (matrix, rendered) =
        (dir.path().join("MATRIX.md"), probe_cmd().args(["matrix", "render", "--records"]).arg(&records).arg("--out").arg(dir.path().join("MATRIX.md")).output().unwrap());
    assert!(rendered.status.success());
    let matrix = std::fs::read_to_string(matrix).unwrap();
    assert!(matrix.contains("continue-cli@1.5.47") && !matrix.contains("continue-cli@1.5.9"));
}

/// A headless Chromium: `CHROMIUM` when set, else the distribution's names for it.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).flat_map(|dir| ["chromium", "chromium-browser", "google-chrome"].map(|name| dir.join(name))).find(|p| p.is_file())
}

/// The DOM of `url` after its scripts ran, as the browser serialises it.
fn dom(browser: &Path, profile: &Path, url: &str) -> String {
    let output = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--virtual-time-budget=3000"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(url)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// The value of the first `href` after `from` in `html`.
fn href_after<'a>(html: &'a str, from: &str) -> &'a str {
    let start = html.find(from).unwrap_or_else(|| panic!("{from} not in the page")) + from.len();
    let rest = &html[start..];
    let value = &rest[rest.find("href=\"").unwrap() + 6..];
    &value[..value.find('"').unwrap()]
}

/// `base` (a file URL) joined with a relative `href`, as a browser resolves it.
fn follow(base: &str, href: &str) -> String {
    let mut parts: Vec<&str> = base.split('/').collect();
    parts.pop();
    for part in href.split('/') {
        match part {
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    parts.join("/")
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<").replace("&gt;", ">").replace("&nbsp;", "\u{a0}").replace("&amp;", "&")
}

#[test]
fn in_a_browser_a_summary_cell_leads_to_the_journal_line_it_cites() {
    let Some(browser) = chromium() else {
        assert!(std::env::var_os("CI").is_none(), "CI must run the browser test: install chromium");
        eprintln!("skipped: no chromium on PATH (set CHROMIUM); the site was not opened in a browser");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    let (code, text) = site(&["--records", repo().join("matrices/records").to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    let profile = dir.path().join("browser-profile");

    // The index: the first "no" cell of the summary, which opens its probe's page at its host.
    let index_url = format!("file://{}/index.html", out.display());
    let index = dom(&browser, &profile, &index_url);
    let cell = href_after(&index, "<td class=\"o-no\">").to_string();
    let (page, host) = cell.split_once('#').unwrap();
    // The probe's page: that host's section, and the first journal line its verdict cites.
    let feature_url = follow(&index_url, page);
    let feature = dom(&browser, &profile, &feature_url);
    let section = format!("<section id=\"{host}\">");
    let cited = href_after(&feature, &section).to_string();
    let cited = if cited.contains("journals/") { cited } else { href_after(&feature[feature.find(&section).unwrap()..], "class=\"evidence\"").to_string() };
    assert!(cited.contains("journals/") && cited.contains("#L"), "{cited}");
    // The journal's page at that line: the line is marked, and it is the recorded line itself.
    let journal_url = follow(&feature_url, &cited);
    let journal = dom(&browser, &profile, &journal_url);
    let (_, line) = journal_url.rsplit_once("#L").unwrap();
    let row = format!("<tr id=\"L{line}\" class=\"cited\">");
    let at = journal.find(&row).unwrap_or_else(|| panic!("{row} not marked in {journal_url}"));
    let text_cell = &journal[at..];
    let text_cell = &text_cell[text_cell.find("<td class=\"t\">").unwrap() + 14..];
    let shown = unescape(&text_cell[..text_cell.find("</td>").unwrap()]);
    let recorded_path = journal_url.split_once("/journals/").unwrap().1.split_once(".html#").unwrap().0;
    let recorded = std::fs::read_to_string(repo().join("matrices/records").join(recorded_path)).unwrap();
    let expected = recorded.lines().nth(line.parse::<usize>().unwrap() - 1).unwrap();
    assert_eq!(shown, expected, "{journal_url}");
    eprintln!("followed {cell} to {cited}: the marked line is the recorded one");
}
