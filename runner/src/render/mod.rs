//! Renderers over a [`Matrix`]: a terminal table, JSON, and the `MATRIX.md` document; plus exports
//! of records for other catalogues. Rendering does no I/O and cannot fail.

pub mod exports;
pub mod markdown;

use comfy_table::{presets, Cell as TableCell, ContentArrangement, Table};

use crate::records::matrix::Matrix;

/// A table for people: one section per area, outcome and declaration in each cell.
pub fn terminal(matrix: &Matrix, width: Option<u16>) -> String {
    let mut table = Table::new();
    table.load_preset(presets::UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
    if let Some(width) = width {
        table.set_width(width);
    }
    let mut header = vec![TableCell::new("probe")];
    header.extend(matrix.columns.iter().map(|c| TableCell::new(c.heading())));
    table.set_header(header);
    let mut area = None;
    for row in &matrix.rows {
        if area != Some(row.area) {
            area = Some(row.area);
            let mut line = vec![TableCell::new(format!("— {} —", row.area.title()))];
            line.extend(matrix.columns.iter().map(|_| TableCell::new("")));
            table.add_row(line);
        }
        let mut line = vec![TableCell::new(format!("{}\n{}", row.probe, row.title))];
        for cell in &row.cells {
            let mut text = cell.outcome.label().to_string();
            if cell.declared != probe_server::probe::Declaration::NoCapability {
                text.push_str(&format!(" ({})", cell.declared.label()));
            }
            for ablated in &cell.ablated {
                text.push_str(&format!("\nablated: {}", ablated.outcome.label()));
            }
            line.push(TableCell::new(text));
        }
        table.add_row(line);
    }
    table.to_string()
}

/// The matrix as pretty JSON.
pub fn json(matrix: &Matrix) -> String {
    serde_json::to_string_pretty(matrix).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::matrix;
    use crate::session::run::{judge_recorded, RunResult, RunSpec, Transport};
    use probe_server::Era;

    pub(super) fn recorded(name: &str, transport: Transport, era: Era) -> RunResult {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/journals").join(name);
        let (observations, verdicts) = judge_recorded(&path).unwrap();
        RunResult {
            spec: RunSpec { transport, era, variant: probe_server::Variant::Standard, host: false, ablation: None, variation: None },
            verdicts,
            protocol_version: observations.lifecycle().and_then(|l| l.negotiated_version),
            harness_error: None,
            journal_events: observations.events.len(),
            duration_ms: 0,
        }
    }

    fn fixture_matrix() -> Matrix {
        let runs = [
            recorded("reference-stdio-legacy-full.jsonl", Transport::Stdio, Era::Legacy),
            recorded("reference-http-modern-full.jsonl", Transport::Http, Era::Modern),
            recorded("reference-stdio-legacy-elicit-auto-decline.jsonl", Transport::Stdio, Era::Legacy),
        ];
        matrix::from_runs("reference", &runs.iter().collect::<Vec<_>>())
    }

    #[test]
    fn terminal_rendering_of_recorded_runs() {
        insta::assert_snapshot!(terminal(&fixture_matrix(), Some(140)));
    }

    #[test]
    fn json_rendering_of_recorded_runs() {
        let value: serde_json::Value = serde_json::from_str(&json(&fixture_matrix())).unwrap();
        insta::assert_json_snapshot!(value);
    }
}
