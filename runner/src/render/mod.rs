//! Renderers over a [`Matrix`]: a terminal table, JSON, and the `MATRIX.md` document; plus exports
//! of records for other catalogues. Rendering does no I/O and cannot fail.

pub mod exports;
pub mod features_table;
pub mod markdown;
pub mod md_links;
pub mod site;
pub mod summary;

use comfy_table::{presets, Cell as TableCell, ContentArrangement, Table};

use crate::records::matrix::Matrix;

/// The narrowest a client's column may be (its short heading and a cell such as
/// `declared-only (not declared)` wrapped over two lines).
const MIN_COLUMN: usize = 16;

/// A table for people: one section per area, outcome and declaration in each cell. Columns have
/// short headings (`[1]`, `[2]`, …) explained in a footer with a count of outcomes per column.
/// Probe ids are never broken; when the width cannot hold every column beside them, the columns
/// are split over several tables, each with the probe column.
pub fn terminal(matrix: &Matrix, width: Option<u16>) -> String {
    terminal_in(matrix, width, false)
}

/// As [`terminal`], each outcome in colour where `colour`: red for no and violation, yellow for
/// partial and declared-only, green for yes (the words stay: colour only helps the eye).
pub fn terminal_in(matrix: &Matrix, width: Option<u16>, colour: bool) -> String {
    let probe_width = matrix.rows.iter().map(|r| r.probe.chars().count()).max().unwrap_or(5).max(5);
    // Table borders: one character left of each column and one at the end, and a space of padding each side.
    let per_table = match width {
        Some(width) => ((width as usize).saturating_sub(probe_width + 4) / (MIN_COLUMN + 3)).max(1),
        None => matrix.columns.len().max(1),
    };
    // As few tables as the width allows, the columns shared out evenly (four at three a table
    // make two tables of two, not one of three and one of one).
    let tables = matrix.columns.len().div_ceil(per_table).max(1);
    let per_table = matrix.columns.len().div_ceil(tables).max(1);
    let indices: Vec<usize> = (0..matrix.columns.len()).collect();
    let mut out = String::new();
    for group in indices.chunks(per_table) {
        out.push_str(&table(matrix, group, probe_width, width, colour));
        out.push('\n');
    }
    if matrix.columns.is_empty() {
        out.push_str(&table(matrix, &[], probe_width, width, colour));
        out.push('\n');
    }
    out.push_str(&footer(matrix));
    out
}

fn table(matrix: &Matrix, columns: &[usize], probe_width: usize, width: Option<u16>, colour: bool) -> String {
    use comfy_table::{Color, ColumnConstraint, Width};
    use probe_server::probe::Outcome;
    let mut table = Table::new();
    table.load_preset(presets::UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
    if colour {
        table.enforce_styling();
    }
    let tint = |outcome: Outcome| match outcome {
        Outcome::No | Outcome::Violation => Some(Color::Red),
        Outcome::Partial | Outcome::DeclaredOnly => Some(Color::Yellow),
        Outcome::Yes => Some(Color::Green),
        _ => None,
    };
    if let Some(width) = width {
        table.set_width(width);
    }
    let mut header = vec![TableCell::new("probe")];
    header.extend(columns.iter().map(|&c| TableCell::new(format!("[{}] {}", c + 1, short_heading(matrix, c)))));
    table.set_header(header);
    let mut area = None;
    for row in &matrix.rows {
        if area != Some(row.area) {
            area = Some(row.area);
            let mut line = vec![TableCell::new(format!("— {} —", row.area.title()))];
            line.extend(columns.iter().map(|_| TableCell::new("")));
            table.add_row(line);
        }
        let mut line = vec![TableCell::new(format!("{}\n{}", row.probe, row.title))];
        for &c in columns {
            let cell = &row.cells[c];
            let mut text = cell.outcome.label().to_string();
            if cell.declared != probe_server::probe::Declaration::NoCapability {
                text.push_str(&format!(" ({})", cell.declared.label()));
            }
            for ablated in &cell.ablated {
                text.push_str(&format!("\nablated: {}", ablated.outcome.label()));
            }
            let painted = if colour { tint(cell.outcome) } else { None };
            line.push(match painted {
                Some(tint) => TableCell::new(text).fg(tint),
                None => TableCell::new(text),
            });
        }
        table.add_row(line);
    }
    if let Some(column) = table.column_mut(0) {
        column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(probe_width as u16 + 2)));
    }
    table.to_string()
}

/// `client stdio`: the column's client and transport, and its era where another column has the
/// same client and transport (two columns may not share a heading); the footer says the rest.
fn short_heading(matrix: &Matrix, index: usize) -> String {
    let column = &matrix.columns[index];
    let shared = matrix.columns.iter().enumerate().any(|(i, c)| i != index && c.client == column.client && c.transport == column.transport);
    if shared {
        format!("{} {} {}", column.client, column.transport, column.era)
    } else {
        format!("{} {}", column.client, column.transport)
    }
}

/// One line per column: its heading in full, then how many probes said what.
fn footer(matrix: &Matrix) -> String {
    use probe_server::probe::Outcome;
    let mut out = String::new();
    for (i, column) in matrix.columns.iter().enumerate() {
        let count = |outcome: Outcome| matrix.rows.iter().filter(|r| r.cells[i].outcome == outcome).count();
        let others = matrix.rows.len() - [Outcome::Yes, Outcome::Partial, Outcome::No, Outcome::NotReached, Outcome::NotApplicable].map(count).iter().sum::<usize>();
        out.push_str(&format!(
            "[{}] {} over {}, {} era, protocol {}{}: {} yes, {} partial, {} no, {} not-reached, {} n/a, {} other\n",
            i + 1,
            column.client,
            column.transport,
            column.era,
            column.protocol_version.as_deref().unwrap_or("?"),
            column.date.as_ref().map(|d| format!(", {d}")).unwrap_or_default(),
            count(Outcome::Yes),
            count(Outcome::Partial),
            count(Outcome::No),
            count(Outcome::NotReached),
            count(Outcome::NotApplicable),
            others,
        ));
    }
    out
}

/// The matrix in short: for each area, how many of its probes said what in each column (headings
/// `[1]`, … explained by the footer), then every cell that is not a yes or n/a with the judge's
/// detail. What `probe` prints for the reference client, whose cells are nearly all yes.
pub fn area_summary(matrix: &Matrix, width: Option<u16>) -> String {
    use probe_server::probe::Outcome;
    let mut table = Table::new();
    table.load_preset(presets::UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
    if let Some(width) = width {
        table.set_width(width);
    }
    let mut header = vec![TableCell::new("area")];
    header.extend((0..matrix.columns.len()).map(|c| TableCell::new(format!("[{}]", c + 1))));
    table.set_header(header);
    let mut areas: Vec<probe_server::Area> = Vec::new();
    for row in &matrix.rows {
        if !areas.contains(&row.area) {
            areas.push(row.area);
        }
    }
    let order = [
        Outcome::Yes,
        Outcome::Partial,
        Outcome::No,
        Outcome::DeclaredOnly,
        Outcome::AutoAnswered,
        Outcome::Violation,
        Outcome::NotReached,
        Outcome::Inconclusive,
        Outcome::NotApplicable,
    ];
    for area in areas {
        let rows: Vec<&crate::records::matrix::Row> = matrix.rows.iter().filter(|r| r.area == area).collect();
        let mut line = vec![TableCell::new(area.title())];
        for c in 0..matrix.columns.len() {
            let counts: Vec<String> = order
                .iter()
                .filter_map(|&o| {
                    let n = rows.iter().filter(|r| r.cells[c].outcome == o).count();
                    (n > 0).then(|| format!("{n} {}", o.label()))
                })
                .collect();
            line.push(TableCell::new(counts.join(", ")));
        }
        table.add_row(line);
    }
    let mut out = table.to_string();
    out.push('\n');
    out.push_str(&footer(matrix));
    let not_yes = explain(matrix);
    if not_yes.is_empty() {
        out.push_str("Every probe said yes wherever it applies (n/a: the probe does not exist in that protocol era).\n");
    } else {
        out.push_str("\nCells that are not a yes (n/a left out):\n");
        out.push_str(&not_yes);
    }
    out
}

/// Every cell that is not a yes or n/a, with the judge's detail: what `--explain` adds.
pub fn explain(matrix: &Matrix) -> String {
    use probe_server::probe::Outcome;
    let mut out = String::new();
    for row in &matrix.rows {
        for (i, cell) in row.cells.iter().enumerate().filter(|(_, c)| !matches!(c.outcome, Outcome::Yes | Outcome::NotApplicable)) {
            out.push_str(&format!("{} [{}]: {} — {}\n", row.probe, i + 1, cell.outcome.label(), cell.detail));
        }
    }
    out
}

/// The matrix as JUnit XML for CI systems: one test suite per column, one test case per probe; a
/// no, partial, violation, auto-answered or declared-only is a failure, a not-reached, inconclusive
/// or n/a is skipped, each with the judge's detail.
pub fn junit(matrix: &Matrix) -> String {
    use probe_server::probe::Outcome;
    let escape = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcp-client-probe\">\n");
    for (i, column) in matrix.columns.iter().enumerate() {
        let failed = |o: Outcome| matches!(o, Outcome::No | Outcome::Partial | Outcome::Violation | Outcome::AutoAnswered | Outcome::DeclaredOnly);
        let skipped = |o: Outcome| matches!(o, Outcome::NotReached | Outcome::Inconclusive | Outcome::NotApplicable);
        let outcomes: Vec<Outcome> = matrix.rows.iter().map(|r| r.cells[i].outcome).collect();
        // The era names the suite too (the same client and transport is probed in both), and a
        // column whose name an earlier one took gets its number: CI systems merge equal names.
        let name = format!("{} {} {}", column.client, column.transport, column.era);
        let earlier = matrix.columns[..i].iter().filter(|c| format!("{} {} {}", c.client, c.transport, c.era) == name).count();
        let name = if earlier == 0 { name } else { format!("{name} #{}", earlier + 1) };
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"0\">\n",
            escape(&name),
            outcomes.len(),
            outcomes.iter().filter(|o| failed(**o)).count(),
            outcomes.iter().filter(|o| skipped(**o)).count()
        ));
        for row in &matrix.rows {
            let cell = &row.cells[i];
            let (name, detail) = (escape(&row.probe), escape(&cell.detail));
            out.push_str(&format!("    <testcase classname=\"{}\" name=\"{name}\" time=\"0\"", escape(row.area.title())));
            match cell.outcome {
                o if failed(o) => out.push_str(&format!(">\n      <failure type=\"{}\" message=\"{}: {detail}\">{detail}</failure>\n    </testcase>\n", o.label(), o.label())),
                o if skipped(o) => out.push_str(&format!(">\n      <skipped message=\"{}: {detail}\"/>\n    </testcase>\n", o.label())),
                _ => out.push_str("/>\n"),
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// The matrix as pretty JSON.
pub fn json(matrix: &Matrix) -> String {
    serde_json::to_string_pretty(matrix).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::runs::reference::{judge_recorded_with_model, RunResult, RunSpec, Transport};
    use probe_server::Era;

    pub(crate) fn recorded(name: &str, transport: Transport, era: Era) -> RunResult {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/journals").join(name);
        let (observations, verdicts) = judge_recorded_with_model(&path, None).unwrap();
        RunResult {
            spec: RunSpec { transport, era, variant: probe_server::Variant::Standard, host: false, ablation: None, variation: None },
            verdicts,
            protocol_version: observations.lifecycle().and_then(|l| l.negotiated_version),
            harness_error: None,
            journal_events: observations.events.len(),
            duration_ms: 0,
        }
    }

    fn fixture_runs() -> [RunResult; 3] {
        [
            recorded("reference-stdio-legacy-full.jsonl", Transport::Stdio, Era::Legacy),
            recorded("reference-http-modern-full.jsonl", Transport::Http, Era::Modern),
            recorded("reference-stdio-legacy-elicit-auto-decline.jsonl", Transport::Stdio, Era::Legacy),
        ]
    }

    fn fixture_matrix() -> Matrix {
        crate::runs::reference::matrix_of("reference", &fixture_runs().iter().collect::<Vec<_>>())
    }

    /// The probes the snapshots show (`fixtures/snapshot-probes.txt`): a new probe changes its
    /// family's snapshots only.
    pub(crate) fn snapshot_probes() -> Vec<String> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/snapshot-probes.txt");
        std::fs::read_to_string(path).unwrap().lines().filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_string).collect()
    }

    /// The fixture matrix of the snapshot sample's probes only (the whole one is rendered by the
    /// tests that check every probe shows).
    fn sampled_matrix() -> Matrix {
        let sample = snapshot_probes();
        let mut runs = fixture_runs();
        for run in &mut runs {
            run.verdicts.retain(|v| sample.contains(&v.probe));
            assert_eq!(run.verdicts.len(), sample.len(), "every probe of the sample has a verdict");
        }
        let mut matrix = crate::runs::reference::matrix_of("reference", &runs.iter().collect::<Vec<_>>());
        matrix.rows.retain(|row| sample.contains(&row.probe));
        matrix
    }

    #[test]
    fn terminal_rendering_of_recorded_runs() {
        insta::assert_snapshot!(terminal(&sampled_matrix(), Some(140)));
    }

    #[test]
    fn junit_counts_failures_and_skips_and_escapes_details() {
        let xml = junit(&fixture_matrix());
        assert!(xml.starts_with("<?xml"));
        assert_eq!(xml.matches("<testsuite ").count(), 3);
        assert!(xml.contains("<failure type=\"auto-answered\" message=\"auto-answered"), "the auto-decline column fails elicitation.form");
        assert!(xml.contains("<skipped message=\"n/a"));
        assert!(!xml.contains("< ") && !xml.contains("\"<"), "details are escaped");
        // Every suite is named apart (the era with the transport), and every failure says its type.
        let suites: Vec<&str> = xml.split("<testsuite name=\"").skip(1).map(|rest| rest.split('"').next().unwrap()).collect();
        let unique: std::collections::BTreeSet<&&str> = suites.iter().collect();
        assert_eq!(unique.len(), suites.len(), "{suites:?}");
        assert!(xml.contains("errors=\"0\"") && xml.contains("<failure type=\"auto-answered\""), "{xml}");
    }

    #[test]
    fn outcomes_are_coloured_only_when_asked() {
        let plain = terminal(&fixture_matrix(), Some(140));
        let coloured = terminal_in(&fixture_matrix(), Some(140), true);
        assert!(!plain.contains('\x1b'), "no escape codes unless asked");
        assert!(coloured.contains("\x1b["), "colour when asked");
        let stripped: String = {
            let mut out = String::new();
            let mut chars = coloured.chars();
            while let Some(c) = chars.next() {
                if c == '\x1b' {
                    chars.by_ref().find(|c| c.is_ascii_alphabetic());
                } else {
                    out.push(c);
                }
            }
            out
        };
        assert_eq!(stripped, plain, "colour changes no word");
    }

    /// The JUnit output keeps to the rules of Jenkins' `junit-10.xsd` (the xUnit plugin's JUnit
    /// schema), checked element by element: which elements may hold which, the attributes each
    /// may carry, those it must, and the form of a time; and no two test cases share (suite,
    /// class, name).
    #[test]
    fn junit_keeps_to_the_jenkins_junit_10_schema() {
        let xml = junit(&fixture_matrix());
        let document = roxmltree::Document::parse(&xml).expect("well-formed XML");
        // element: (attributes it must carry, attributes it may carry, elements it may hold)
        let rules = |name: &str| -> (&[&str], &[&str], &[&str]) {
            match name {
                "testsuites" => (&[], &["name", "time", "tests", "failures", "errors"], &["testsuite"]),
                "testsuite" => (
                    &["name", "tests", "failures", "errors"],
                    &["group", "time", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url"],
                    &["testsuite", "properties", "testcase", "system-out", "system-err"],
                ),
                "testcase" => (
                    &["name"],
                    &["time", "classname", "group"],
                    &["skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure", "flakyError", "system-out", "system-err"],
                ),
                "failure" | "error" | "skipped" => (&[], &["type", "message"], &[]),
                "properties" => (&[], &[], &["property"]),
                "property" => (&["name", "value"], &[], &[]),
                "system-out" | "system-err" => (&[], &[], &[]),
                other => panic!("<{other}> is no element of junit-10.xsd"),
            }
        };
        // A time: digits (thousands may be grouped by commas) and an optional fraction.
        let is_time = |t: &str| {
            let (whole, fraction) = t.split_once('.').unwrap_or((t, ""));
            fraction.chars().all(|c| c.is_ascii_digit())
                && whole.split(',').all(|g| g.len() <= 3 && g.chars().all(|c| c.is_ascii_digit()))
                && (whole.len() <= 3 || whole.contains(','))
        };
        let root = document.root_element();
        assert_eq!(root.tag_name().name(), "testsuites");
        let mut cases = std::collections::BTreeSet::new();
        for node in root.descendants().filter(|n| n.is_element()) {
            let name = node.tag_name().name();
            let (must, may, holds) = rules(name);
            for required in must {
                assert!(node.attribute(*required).is_some(), "<{name}> lacks {required}");
            }
            for attribute in node.attributes() {
                assert!(must.contains(&attribute.name()) || may.contains(&attribute.name()), "<{name}> may not carry {}", attribute.name());
            }
            for child in node.children().filter(|c| c.is_element()) {
                assert!(holds.contains(&child.tag_name().name()), "<{name}> may not hold <{}>", child.tag_name().name());
            }
            if matches!(name, "testsuite" | "testsuites") {
                if let Some(time) = node.attribute("time") {
                    assert!(is_time(time), "<{name}> time {time:?}");
                }
            }
            if name == "testcase" {
                let suite = node.parent_element().and_then(|s| s.attribute("name")).unwrap_or_default();
                let key = (suite.to_string(), node.attribute("classname").unwrap_or_default().to_string(), node.attribute("name").unwrap_or_default().to_string());
                assert!(cases.insert(key.clone()), "two test cases are {key:?}");
            }
        }
        assert!(cases.len() > 100, "{} test cases", cases.len());
    }

    #[test]
    fn columns_are_shared_out_evenly_over_the_tables() {
        let runs = [
            recorded("reference-stdio-legacy-full.jsonl", Transport::Stdio, Era::Legacy),
            recorded("reference-http-modern-full.jsonl", Transport::Http, Era::Modern),
            recorded("reference-stdio-legacy-elicit-auto-decline.jsonl", Transport::Stdio, Era::Legacy),
            recorded("reference-stdio-legacy-full.jsonl", Transport::Stdio, Era::Legacy),
        ];
        let four = crate::runs::reference::matrix_of("reference", &runs.iter().collect::<Vec<_>>());
        // Room for three columns beside the probe ids: two tables of two, not three and one.
        let probe_width = four.rows.iter().map(|r| r.probe.chars().count()).max().unwrap();
        let width = (probe_width + 4 + 3 * (MIN_COLUMN + 3)) as u16;
        let out = terminal(&four, Some(width));
        let tables: Vec<&str> = out.split('┌').skip(1).collect();
        assert_eq!(tables.len(), 2, "{out}");
        for table in tables {
            let header = table.lines().nth(1).unwrap_or_default();
            assert_eq!(header.matches("] reference").count(), 2, "{header}");
        }
    }

    #[test]
    fn terminal_at_80_columns() {
        insta::assert_snapshot!(terminal(&sampled_matrix(), Some(80)));
    }

    #[test]
    fn terminal_at_120_columns() {
        insta::assert_snapshot!(terminal(&sampled_matrix(), Some(120)));
    }

    /// At any width the table stays inside it and every probe id is on one line, whole.
    #[test]
    fn narrow_tables_never_break_a_probe_id_nor_overflow() {
        let matrix = fixture_matrix();
        for width in [60u16, 80, 100, 120, 200] {
            let text = terminal(&matrix, Some(width));
            let (tables, footer) = text.split_at(text.find("\n[1]").unwrap_or(text.len()));
            for line in tables.lines() {
                assert!(line.chars().count() <= width as usize, "{width}: {line}");
            }
            for row in &matrix.rows {
                assert!(tables.contains(&row.probe), "{width}: {} broken", row.probe);
            }
            assert!(footer.contains("yes") && footer.contains("not-reached"), "{footer}");
        }
    }

    #[test]
    fn json_rendering_of_recorded_runs() {
        let value: serde_json::Value = serde_json::from_str(&json(&sampled_matrix())).unwrap();
        insta::assert_json_snapshot!(value);
    }
}
