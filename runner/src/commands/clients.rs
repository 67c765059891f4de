//! `clients install`, `clients list` and `clients outdated`.

use anyhow::Result;

use crate::cli;
use crate::exit::{self, bad_input};
use crate::{clients::install, clients::profile, clients::registry};

pub async fn clients(command: cli::ClientsCommand) -> Result<u8> {
    match command {
        cli::ClientsCommand::Install { client } => {
            let profile = profile::find(&profile::default_dir(), &client).map_err(|e| bad_input(e.to_string()))?;
            let installed = install::ensure_installed(&profile).await?;
            crate::out!("{}@{} {}", profile.name, installed.version, installed.executable.display());
        }
        cli::ClientsCommand::List => {
            for profile in profile::load_all(&profile::default_dir()).map_err(|e| bad_input(e.to_string()))? {
                let installed = install::install_dir(&profile).join(&profile.install.executable).exists();
                let dialect = profile.dialect.map_or("none".to_string(), |d| format!("{d:?}").to_lowercase());
                crate::out!("{:<16} {:<10} {:<10} {:<10} {}", profile.name, profile.install.version, dialect, if installed { "installed" } else { "-" }, profile.description);
            }
        }
        cli::ClientsCommand::Outdated { clients, format } => return outdated(&clients, format.format).await,
    }
    Ok(exit::OK)
}

/// A profile's pin beside what its registry offers now.
#[derive(Debug, serde::Serialize)]
struct Pin {
    client: String,
    pinned: String,
    #[serde(flatten)]
    latest: registry::Latest,
    /// Whether the registry offers a version other than the pinned one.
    outdated: bool,
}

async fn outdated(only: &[String], format: cli::Format) -> Result<u8> {
    let chosen = profile::chosen(&profile::default_dir(), only).map_err(|e| bad_input(e.to_string()))?;
    // A registry that cannot be asked ends the command: a partial list would read as current.
    let newest = registry::latest_of_each(&chosen).await.map_err(|e| exit::Exit { code: exit::HARNESS, message: e.to_string() })?;
    let mut pins = Vec::new();
    for (profile, latest) in chosen.iter().zip(newest) {
        let outdated = latest.version != profile.install.version;
        pins.push(Pin { client: profile.name.clone(), pinned: profile.install.version.clone(), latest, outdated });
    }
    match format {
        cli::Format::Json => crate::out!("{}", serde_json::to_string_pretty(&pins)?),
        cli::Format::Table => {
            crate::out!("{:<20} {:<6} {:<14} {:<14} {:<11} {}", "client", "from", "pinned", "newest", "released", "");
            for pin in &pins {
                let released = pin.latest.released.as_deref().unwrap_or("-");
                crate::out!(
                    "{:<20} {:<6} {:<14} {:<14} {:<11} {}",
                    pin.client,
                    pin.latest.registry,
                    pin.pinned,
                    pin.latest.version,
                    released,
                    if pin.outdated { "outdated" } else { "current" }
                );
            }
            let behind = pins.iter().filter(|p| p.outdated).count();
            crate::out!("{behind} of {} pins behind their registry", pins.len());
        }
    }
    Ok(exit::OK)
}
