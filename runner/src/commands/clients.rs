//! `clients install` and `clients list`.

use anyhow::Result;

use crate::cli;
use crate::exit::{self, bad_input};
use crate::{clients::install, clients::profile};

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
    }
    Ok(exit::OK)
}
