//! The browser trap: programs named like the usual URL openers, first on the host's PATH and
//! named by `BROWSER`, that only append their arguments to a log. A host that opens a URL
//! without asking shows up in that log, and nothing is opened.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Names a host may run to open a URL.
const OPENERS: [&str; 9] = ["browser", "xdg-open", "open", "sensible-browser", "x-www-browser", "www-browser", "gnome-open", "kde-open", "wslview"];

/// An installed trap: the directory to put first on PATH, and the opener `BROWSER` names.
#[derive(Debug, Clone)]
pub struct Trap {
    pub bin: PathBuf,
    pub browser: PathBuf,
}

impl Trap {
    /// `PATH` with the trap first (before `path`), and `BROWSER`.
    pub fn env(&self, path: &str) -> [(String, String); 2] {
        [("PATH".into(), format!("{}:{path}", self.bin.display())), ("BROWSER".into(), self.browser.display().to_string())]
    }
}

/// Writes the trap into `dir`.
pub fn install(dir: &Path, log: &Path) -> std::io::Result<Trap> {
    std::fs::create_dir_all(dir)?;
    let quoted = log.display().to_string().replace('\'', r"'\''");
    let script = format!("#!/bin/sh\nprintf '%s\\n' \"$(basename \"$0\") $*\" >> '{quoted}'\n");
    for name in OPENERS {
        let path = dir.join(name);
        std::fs::write(&path, &script)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(Trap { bin: dir.to_path_buf(), browser: dir.join("browser") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opener_run_by_name_lands_in_the_log() {
        let root = tempfile::tempdir().unwrap();
        let log = root.path().join("opened.log");
        let trap = install(&root.path().join("bin"), &log).unwrap();
        let browser = trap.browser.clone();
        let status = std::process::Command::new(trap.bin.join("xdg-open")).arg("http://127.0.0.1:9/x").status().unwrap();
        assert!(status.success());
        std::process::Command::new(browser).arg("http://127.0.0.1:9/y").status().unwrap();
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "xdg-open http://127.0.0.1:9/x\nbrowser http://127.0.0.1:9/y\n");
        let [(path, first), (name, opener)] = trap.env("/usr/bin");
        assert_eq!((path.as_str(), first), ("PATH", format!("{}:/usr/bin", trap.bin.display())));
        assert_eq!((name.as_str(), opener), ("BROWSER", trap.browser.display().to_string()));
    }
}
