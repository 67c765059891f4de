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

/// The version a profile pins.
fn pinned_version(client: &str) -> String {
    let profile: toml::Value = toml::from_str(&std::fs::read_to_string(repo().join(format!("fixtures/clients/{client}.toml"))).unwrap()).unwrap();
    profile["install"]["version"].as_str().unwrap().to_string()
}

/// Two versions of continue-cli on record: the committed one, and an older copy (1.5.9, which
/// sorts after 1.5.47 as text but before it as a version) in which the first "no" of the stdio
/// run was a yes. Returns the records root and the probe that regressed.
fn records_with_history(root: &Path) -> (PathBuf, String) {
    let records = root.join("records");
    copy_dir(&repo().join("matrices/records/continue-cli"), &records.join("continue-cli"));
    // codex at its pinned version only: one version on record.
    let pinned = pinned_version("codex");
    copy_dir(&repo().join("matrices/records/codex").join(&pinned), &records.join("codex").join(&pinned));
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
    assert!(host.contains(&format!("<li class=\"regressed\">regressed: <a href=\"../probes/{probe}.html\"><code>{probe}</code></a> over stdio")), "{probe}");
    let feature = std::fs::read_to_string(out.join(format!("probes/{probe}.html"))).unwrap();
    let history = &feature[feature.find("id=\"history-continue-cli\"").unwrap()..];
    assert!(history.contains("<th>1.5.9</th><th>1.5.47</th>"), "oldest first: {}", &history[..400.min(history.len())]);
    assert!(history.contains("regressed\">✕ no ↓</td>"), "the lost yes is marked");
    assert!(feature.contains(&format!("since {}, the only version on record", pinned_version("codex"))), "codex has one version");

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
    assert!(matrix.contains("[continue-cli](clients/continue-cli.md)<br>1.5.47") && !matrix.contains("1.5.9"));
}

/// A headless Chromium: `CHROMIUM` when set, else the distribution's names for it.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).flat_map(|dir| ["chromium", "chromium-browser", "google-chrome"].map(|name| dir.join(name))).find(|p| p.is_file())
}

/// A headless Chromium and a directory holding the committed records' site (`site/`); `None`,
/// said on stderr, when there is no browser (under `CI=true` that fails instead).
fn browser_and_site() -> Option<(PathBuf, tempfile::TempDir)> {
    let Some(browser) = chromium() else {
        assert!(std::env::var_os("CI").is_none(), "CI must run the browser test: install chromium");
        eprintln!("skipped: no chromium on PATH (set CHROMIUM); the site was not opened in a browser");
        return None;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    let (code, text) = site(&["--records", repo().join("matrices/records").to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    Some((browser, dir))
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
    let Some((browser, dir)) = browser_and_site() else { return };
    let (out, profile) = (dir.path().join("site"), dir.path().join("browser-profile"));

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
    let row = format!("<li id=\"L{line}\" class=\"cited\">");
    let at = journal.find(&row).unwrap_or_else(|| panic!("{row} not marked in {journal_url}"));
    let shown = &journal[at..];
    let shown = &shown[shown.find("<pre>").unwrap() + 5..];
    let shown = unescape(&shown[..shown.find("</pre>").unwrap()]);
    let recorded_path = journal_url.split_once("/journals/").unwrap().1.split_once(".html#").unwrap().0;
    let recorded = probe_server::journal::stored::read_text(&repo().join("matrices/records").join(recorded_path)).unwrap();
    let expected: serde_json::Value = serde_json::from_str(recorded.lines().nth(line.parse::<usize>().unwrap() - 1).unwrap()).unwrap();
    // What the line carried, once: the frame's JSON itself (not the escaped string the journal
    // keeps it in), or the note's detail.
    let carried = match expected["raw"].as_str() {
        Some(raw) => serde_json::from_str(raw).unwrap(),
        None => expected["detail"].clone(),
    };
    assert_eq!(serde_json::from_str::<serde_json::Value>(&shown).unwrap(), carried, "{journal_url}");
    eprintln!("followed {cell} to {cited}: the marked line is the recorded one");
}

/// Where the browser tests leave their screenshots: `target/screenshots`, kept by CI.
fn screenshots() -> PathBuf {
    let dir = repo().join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn screenshot(browser: &Path, profile: &Path, url: &str, size: &str, name: &str) {
    let path = screenshots().join(name);
    let output = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars", "--virtual-time-budget=3000"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--window-size={size}"))
        .arg(format!("--screenshot={}", path.display()))
        .arg(url)
        .output()
        .unwrap();
    assert!(output.status.success() && path.is_file(), "{}", String::from_utf8_lossy(&output.stderr));
}

/// Opens the index in a frame of `width`×`height`, does what `script` says with its window `w`
/// and document `d`, and returns what the script put in `result` (JSON).
fn in_frame(browser: &Path, profile: &Path, site: &Path, width: u32, height: u32, script: &str) -> serde_json::Value {
    let harness = site.parent().unwrap().join(format!("harness-{width}.html"));
    let page = format!(
        "<!doctype html><html><body style=\"margin:0\"><iframe id=\"f\" src=\"site/index.html\" style=\"width:{width}px;height:{height}px;border:0\"></iframe><pre id=\"result\"></pre>\
         <script>var f = document.getElementById('f'); f.onload = function () {{ var w = f.contentWindow, d = f.contentDocument, result = {{}};\
         {script} }};</script></body></html>"
    );
    std::fs::write(&harness, page).unwrap();
    let output = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--allow-file-access-from-files", "--virtual-time-budget=5000"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--window-size={},{}", width + 20, height + 400))
        .arg("--dump-dom")
        .arg(format!("file://{}", harness.display()))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let dom = String::from_utf8(output.stdout).unwrap();
    let start = dom.find("<pre id=\"result\">").unwrap() + "<pre id=\"result\">".len();
    let text = unescape(&dom[start..start + dom[start..].find("</pre>").unwrap()]);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text:?}"))
}

/// The script that scrolls the index 3000 px down and 600 px right, every probe shown, and
/// measures where the grid's header cells and first column are.
const SCROLLED: &str = "var grid = d.getElementById('grid'); result.gridTop = grid.getBoundingClientRect().top;\
    result.before = Array.prototype.slice.call(d.querySelectorAll('main > *')).indexOf(grid);\
    result.beforeTags = Array.prototype.slice.call(d.querySelectorAll('main > *')).slice(0, result.before).map(function (e) { return e.tagName; });\
    d.getElementById('expand').click(); w.scrollTo(600, 3000);\
    setTimeout(function () { result.x = w.scrollX; result.y = w.scrollY; var vw = w.innerWidth, vh = w.innerHeight;\
    result.maxX = d.documentElement.scrollWidth - d.documentElement.clientWidth;\
    var inside = function (r) { return r.top >= 0 && r.bottom <= vh && r.left >= 0 && r.right <= vw && r.width > 0; };\
    result.headers = Array.prototype.slice.call(d.querySelectorAll('#grid thead th[data-client]')).filter(function (th) { return inside(th.getBoundingClientRect()); }).map(function (th) { return th.getAttribute('data-client'); });\
    var labels = Array.prototype.slice.call(d.querySelectorAll('#grid tbody tr:not([hidden]) th.first')).filter(function (th) { var r = th.getBoundingClientRect(); return r.top > 60 && r.bottom < vh; });\
    result.labels = labels.map(function (th) { var r = th.getBoundingClientRect(); return { text: th.textContent.trim().slice(0, 40), left: r.left, inside: inside(r) }; });\
    document.getElementById('result').textContent = JSON.stringify(result); }, 200);";

/// Typing "oauth" into the filter: which rows and groups are left.
const FILTERED: &str = "var box = d.getElementById('filter'); box.value = 'oauth'; box.dispatchEvent(new Event('input'));\
    var shown = function (selector) { return Array.prototype.slice.call(d.querySelectorAll(selector)).filter(function (r) { return !r.hidden; }); };\
    result.features = shown('#grid tr.feature').map(function (r) { return r.getAttribute('data-feature'); });\
    result.probes = shown('#grid tr.probe').map(function (r) { return r.querySelector('th').textContent.trim(); });\
    result.groups = shown('#grid tr.group').map(function (r) { return r.textContent.trim(); });\
    document.getElementById('result').textContent = JSON.stringify(result);";

#[test]
fn in_a_browser_the_index_answers_by_feature_at_both_sizes() {
    let Some((browser, dir)) = browser_and_site() else { return };
    let (out, profile) = (dir.path().join("site"), dir.path().join("browser-profile"));
    for (width, height) in [(1280, 800), (390, 844)] {
        // The grid is the first thing after the title, the one-line lead and the filter, and
        // starts on the first screen.
        let scrolled = in_frame(&browser, &profile, &out, width, height, SCROLLED);
        assert_eq!(scrolled["beforeTags"], serde_json::json!(["H1", "P", "P"]), "{width}: {scrolled}");
        assert!(scrolled["gridTop"].as_f64().unwrap() < f64::from(height) / 2.0, "{width}: {scrolled}");
        // Scrolled 3000 px down and 600 px right, a client's header and the first column's labels
        // are still in view.
        // The page is as wide as the grid: it scrolls right as far as the grid reaches (600 px, or
        // less on a wide screen).
        let right = scrolled["maxX"].as_f64().unwrap().min(600.0);
        assert!(right > 0.0, "{width}: the grid fits the screen, nothing to scroll: {scrolled}");
        assert_eq!((scrolled["x"].as_f64(), scrolled["y"].as_f64()), (Some(right), Some(3000.0)), "{width}: the page scrolls both ways: {scrolled}");
        assert!(!scrolled["headers"].as_array().unwrap().is_empty(), "{width}: no client header in view: {scrolled}");
        let labels = scrolled["labels"].as_array().unwrap();
        assert!(!labels.is_empty() && labels.iter().all(|l| l["inside"] == true && l["left"].as_f64().unwrap().abs() < 1.0), "{width}: {scrolled}");
        // "oauth" leaves the authorization features and their probes, and no empty group.
        let filtered = in_frame(&browser, &profile, &out, width, height, FILTERED);
        let features = filtered["features"].as_array().unwrap();
        assert!(!features.is_empty() && features.iter().all(|f| f.as_str().unwrap().starts_with("oauth")), "{filtered}");
        let probes = filtered["probes"].as_array().unwrap();
        assert!(!probes.is_empty() && probes.iter().all(|p| p.as_str().unwrap().starts_with("auth.")), "{filtered}");
        assert_eq!(filtered["groups"], serde_json::json!(["Authorization"]), "{filtered}");
        let name = if width > 600 { "index-1280x800.png" } else { "index-390x844.png" };
        screenshot(&browser, &profile, &format!("file://{}/index.html", out.display()), &format!("{width},{height}"), name);
    }
    // A verdict with two evidence lines has two links, each to its own line.
    let records = repo().join("matrices/records");
    let (probe, client, lines) = two_line_verdict(&records);
    let page_url = format!("file://{}/probes/{probe}.html", out.display());
    let page = dom(&browser, &profile, &page_url);
    let section = &page[page.find(&format!("<section id=\"{client}")).unwrap_or_else(|| panic!("{client} on {probe}"))..];
    let section = &section[..section.find("</section>").unwrap()];
    for line in &lines[..2] {
        assert!(section.contains(&format!("#L{line}\" title=\"the line the verdict rests on\">line {line} ↗</a>")), "line {line} of {probe} at {client}: {section}");
    }
    screenshot(&browser, &profile, &page_url, "1280,800", "probe-page.png");
    screenshot(&browser, &profile, &format!("file://{}/features/elicitation-forms.html", out.display()), "1280,800", "feature-page.png");
    let journal = out.join("journals").join(format!("{}/stdio.journal.jsonl.html", client_dir(&records, &client)));
    // (A screenshot of a page opened at a fragment comes out blank in headless Chromium.)
    screenshot(&browser, &profile, &format!("file://{}", journal.display()), "390,844", "journal-page-390x844.png");
}

/// `<client>/<version>` of the record directory whose client's anchor is `client`.
fn client_dir(records: &Path, anchor: &str) -> String {
    for entry in std::fs::read_dir(records).unwrap() {
        let client = entry.unwrap().file_name().to_string_lossy().into_owned();
        for version in std::fs::read_dir(records.join(&client)).unwrap() {
            let version = version.unwrap().file_name().to_string_lossy().into_owned();
            let slug: String = format!("{client}-{version}").chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
            if slug == anchor {
                return format!("{client}/{version}");
            }
        }
    }
    panic!("no record directory for {anchor}")
}

/// A committed verdict of a client's dual-era stdio run that cites two evidence lines or more: its
/// probe, the client's anchor (`client-version`) and the lines.
fn two_line_verdict(records: &Path) -> (String, String, Vec<u64>) {
    let mut clients: Vec<_> = std::fs::read_dir(records).unwrap().map(|e| e.unwrap().path()).collect();
    clients.sort();
    for client in clients {
        let mut versions: Vec<_> = std::fs::read_dir(&client).unwrap().map(|e| e.unwrap().path()).collect();
        versions.sort();
        let Some(version) = versions.last() else { continue };
        let Ok(text) = std::fs::read_to_string(version.join("stdio.json")) else { continue };
        let record: serde_json::Value = serde_json::from_str(&text).unwrap();
        for verdict in record["verdicts"].as_array().unwrap() {
            let lines: Vec<u64> = verdict["evidence"].as_array().map(|a| a.iter().filter_map(|l| l.as_u64()).collect()).unwrap_or_default();
            let standard = verdict.get("variant").is_none_or(|v| v == "standard");
            if lines.len() >= 2 && lines[0] != lines[1] && standard && verdict.get("model_evidence").is_none_or(|m| m == false) {
                let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
                let anchor: String = format!("{}-{}", name(&client), name(version)).chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
                return (verdict["probe"].as_str().unwrap().to_string(), anchor, lines);
            }
        }
    }
    panic!("no committed verdict cites two evidence lines")
}
