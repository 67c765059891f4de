//! The browser trap: programs named like the usual URL openers, first on the host's PATH and
//! named by `BROWSER`, that only append their arguments to a log. A host that opens a URL
//! without asking shows up in that log, and nothing is opened.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Names a host may run to open a URL.
const OPENERS: [&str; 9] = ["browser", "xdg-open", "open", "sensible-browser", "x-www-browser", "www-browser", "gnome-open", "kde-open", "wslview"];

/// Writes the trap into `dir`; returns the directory to put first on PATH and the `BROWSER` value.
pub fn install(dir: &Path, log: &Path) -> std::io::Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(dir)?;
    let quoted = log.display().to_string().replace('\'', r"'\''");
    let script = format!("#!/bin/sh\nprintf '%s\\n' \"$(basename \"$0\") $*\" >> '{quoted}'\n");
    for name in OPENERS {
        let path = dir.join(name);
        std::fs::write(&path, &script)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok((dir.to_path_buf(), dir.join("browser")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opener_run_by_name_lands_in_the_log() {
        let root = tempfile::tempdir().unwrap();
        let log = root.path().join("opened.log");
        let (bin, browser) = install(&root.path().join("bin"), &log).unwrap();
        let status = std::process::Command::new(bin.join("xdg-open")).arg("http://127.0.0.1:9/x").status().unwrap();
        assert!(status.success());
        std::process::Command::new(browser).arg("http://127.0.0.1:9/y").status().unwrap();
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "xdg-open http://127.0.0.1:9/x\nbrowser http://127.0.0.1:9/y\n");
    }
}
