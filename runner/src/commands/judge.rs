//! `judge`: the verdicts of a recorded journal.

use anyhow::Result;

use crate::cli::{self, Format};
use crate::exit::{self, Exit};
use crate::session::run;

pub fn judge(args: cli::JudgeArgs) -> Result<u8> {
    let (observations, verdicts) = run::judge_recorded_with_model(&args.journal, args.model.as_deref()).map_err(|e| Exit { code: exit::BAD_INPUT, message: e.to_string() })?;
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
