//! Features × clients for a terminal: the answer of `MATRIX.md`'s first table, drawn to the
//! terminal's width the way `probe` draws its table (short column headings explained below, a
//! feature id never broken, as many tables as the width needs).

use comfy_table::{presets, Cell, ColumnConstraint, ContentArrangement, Table, Width};

use crate::features::{Answer, ClientAnswers, FEATURES};

/// The widest a client's cell is: a mark and how the feature was shown (`✕ headless`).
const CELL: usize = 10;

/// A client's cell for one feature: the answer's mark and, for a feature shown several ways, the
/// way that answered.
fn cell(client: &ClientAnswers, feature: &str) -> String {
    let Some(answer) = client.answer(feature) else { return "?".into() };
    let mark = answer.answer.symbol();
    match answer.path_short {
        Some(how) => format!("{mark} {how}"),
        None => mark.to_string(),
    }
}

/// The tables, then one line per client and the legend.
pub fn terminal(clients: &[ClientAnswers], width: Option<u16>) -> String {
    let id_width = FEATURES.iter().map(|f| f.id.len()).max().unwrap_or(8);
    // Borders: one character left of each column and one at the end; a space of padding each side.
    let per_table = match width {
        Some(width) => (usize::from(width).saturating_sub(id_width + 4) / (CELL + 3)).max(1),
        None => clients.len().max(1),
    };
    let indices: Vec<usize> = (0..clients.len()).collect();
    let mut out = String::new();
    for group in indices.chunks(per_table) {
        let mut table = Table::new();
        table.load_preset(presets::UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
        if let Some(width) = width {
            table.set_width(width);
        }
        let mut header = vec![Cell::new("feature")];
        header.extend(group.iter().map(|&i| Cell::new(format!("[{}]", i + 1))));
        table.set_header(header);
        let mut current = None;
        for feature in FEATURES {
            if current != Some(feature.group) {
                current = Some(feature.group);
                let mut line = vec![Cell::new(format!("— {} —", feature.group.title()))];
                line.extend(group.iter().map(|_| Cell::new("")));
                table.add_row(line);
            }
            let mut line = vec![Cell::new(feature.id)];
            line.extend(group.iter().map(|&i| Cell::new(cell(&clients[i], feature.id))));
            table.add_row(line);
        }
        if let Some(column) = table.column_mut(0) {
            column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(id_width as u16 + 2)));
        }
        for index in 1..=group.len() {
            if let Some(column) = table.column_mut(index) {
                column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(CELL as u16 + 2)));
            }
        }
        out.push_str(&table.to_string());
        out.push('\n');
    }
    for (i, client) in clients.iter().enumerate() {
        let count = |wanted: Answer| client.features.iter().filter(|(_, a)| a.answer == wanted).count();
        out.push_str(&format!(
            "[{}] {}@{}: {} supported, {} partly, {} no, {} untested\n",
            i + 1,
            client.client,
            client.version,
            count(Answer::Supported),
            count(Answer::Partly),
            count(Answer::No),
            count(Answer::Untested)
        ));
    }
    let legend = "✓ supported · ◐ partly · ✕ no · ? untested; person: with a person at the terminal, headless: nobody at the \
                  keyboard. `features` lists each feature's probes; `which FEATURE…` answers with why; matrices/probes.md has \
                  every probe.";
    out.push_str(&wrap(legend, width.map_or(usize::MAX, usize::from)));
    out
}

/// `text` in lines of at most `width` characters, broken between words.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Transport;
    use crate::render::tests::recorded;
    use probe_server::Era;

    fn clients() -> Vec<ClientAnswers> {
        let runs = [
            recorded("reference-stdio-legacy-full.jsonl", Transport::Stdio, Era::Legacy),
            recorded("reference-stdio-legacy-elicit-auto-decline.jsonl", Transport::Stdio, Era::Legacy),
        ];
        let mut all = Vec::new();
        for (i, run) in runs.iter().enumerate() {
            let matrix = crate::runs::reference::matrix_of(&format!("client-with-a-long-name-{i}@1.0.{i}"), &[run]);
            all.extend(crate::features::by_client(&matrix));
        }
        // Enough clients that narrow terminals need several tables.
        let copies: Vec<ClientAnswers> = all.iter().cycle().take(7).cloned().collect();
        copies
    }

    /// At any width the tables stay inside it, and no feature id nor cell is broken across lines.
    #[test]
    fn narrow_terminals_get_more_tables_never_broken_words() {
        let clients = clients();
        for width in [60u16, 80, 100, 120, 200] {
            let text = terminal(&clients, Some(width));
            let tables = &text[..text.find("\n[1]").unwrap_or(text.len())];
            // The tables and the legend stay inside the width (a client's line below may not).
            for line in text.lines().filter(|l| !l.starts_with('[')) {
                assert!(line.chars().count() <= usize::from(width), "{width}: {line}");
            }
            for feature in FEATURES {
                assert!(tables.contains(&format!(" {} ", feature.id)), "{width}: {} broken", feature.id);
            }
            for client in &clients {
                for feature in FEATURES {
                    let cell = cell(client, feature.id);
                    assert!(tables.contains(&format!(" {cell} ")), "{width}: {cell:?} broken");
                }
            }
            assert_eq!(text.matches("\n[").count(), clients.len(), "a line per client");
        }
        assert!(terminal(&clients, Some(80)).matches("┌").count() > terminal(&clients, Some(200)).matches("┌").count());
    }
}
