//! `judge`: the verdicts of a recorded journal.

use anyhow::Result;

use crate::cli::{self, Format};
use crate::exit::{self, Exit};
use crate::harness::wire;
use crate::runs::reference as run;
use probe_server::journal::{Event, Transport};
use probe_server::note::Note;

pub fn judge(args: cli::JudgeArgs) -> Result<u8> {
    let (mut observations, mut verdicts) =
        run::judge_recorded_with_model(&args.journal, args.model.as_deref()).map_err(|e| Exit { code: exit::BAD_INPUT, message: e.to_string() })?;
    // A file with no journal line in it is no journal: nothing was recorded to judge.
    if observations.events.is_empty() {
        return Err(exit::bad_input(format!("{} holds no journal line: nothing to judge", args.journal.display())));
    }
    // Given the official schemas, a journal recorded without its check gets one now.
    if observations.notes(Note::WireChecked).next().is_none() {
        if let Some(note) = wire::check_note(&observations).map_err(exit::bad_input_from)? {
            let transport = observations.events.last().map_or(Transport::Stdio, |last| last.transport);
            let note = Event::note_after(&observations.events, transport.as_str(), transport, note);
            observations.events.push(note);
            verdicts = probe_server::registry::judge_all(&observations);
        }
    }
    match args.format.format {
        Format::Json => crate::out!("{}", serde_json::to_string_pretty(&verdicts)?),
        Format::Table => {
            if let Some(life) = observations.lifecycle() {
                crate::out!("era {} · requested {} · negotiated {}", life.era, life.requested_version.unwrap_or_default(), life.negotiated_version.unwrap_or_default());
            }
            if observations.truncated {
                crate::out!("note: the journal's last line was cut off (the writer stopped mid-line)");
            }
            for v in &verdicts {
                crate::out!("{:<36} {:<14} {}", v.probe, v.outcome.label(), v.detail);
            }
        }
    }
    Ok(exit::OK)
}
