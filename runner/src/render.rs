//! Renderers over a [`Matrix`]: a terminal table and JSON. Rendering does no I/O and cannot fail.

use comfy_table::{presets, Cell as TableCell, ContentArrangement, Table};

use crate::matrix::Matrix;

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
