//! The exit codes of `mcp-client-probe`, one meaning each, the same in every command.

/// Success: the command did what it was asked.
pub const OK: u8 = 0;
/// A comparison failed: the self-test found a probe that does not discriminate (or a variation
/// that changed a verdict), `--expect` or `--repeat` found different verdicts, `matrix check`
/// found a stale matrix, `matrix refresh --check` found verdicts that differ from the records,
/// `matrix diff --fail-on-regression` found a regression, `matrix site` found a broken link (or,
/// with --check, a stale site).
pub const MISMATCH: u8 = 1;
/// Bad input: a usage error, a file or directory that is missing, unreadable or invalid, an
/// unknown client or version. Nothing was written.
pub const BAD_INPUT: u8 = 2;
/// The harness itself failed: a server, stub or client could not be started, a run broke, or a
/// registry could not be asked (`clients outdated` offline).
pub const HARNESS: u8 = 3;
/// The probed client started but never opened an MCP session in any run: its record (every
/// verdict not-reached) is written to `--records`, never to the committed records, and the tail
/// of its stderr is printed.
pub const NEVER_CONNECTED: u8 = 4;
/// Interrupted by SIGINT (Ctrl-C): every process of the run was killed, temporaries removed, no
/// record written.
pub const INTERRUPTED: u8 = 130;
/// Stopped by SIGTERM, with the same clean-up as [`INTERRUPTED`].
pub const TERMINATED: u8 = 143;

/// Writes one line of a command's output to stdout. A reader that has gone (`… | head`) ends the
/// program quietly with success: there is no one left to tell.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::exit::write_out(format_args!($($arg)*), true)
    };
}

/// As [`out!`], without the newline.
#[macro_export]
macro_rules! out_raw {
    ($($arg:tt)*) => {
        $crate::exit::write_out(format_args!($($arg)*), false)
    };
}

/// The writer behind [`out!`].
pub fn write_out(text: std::fmt::Arguments<'_>, newline: bool) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let written = stdout.write_fmt(text).and_then(|_| if newline { stdout.write_all(b"\n") } else { Ok(()) }).and_then(|_| stdout.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(i32::from(OK)),
        Err(e) => {
            eprintln!("mcp-client-probe: cannot write the output: {e}");
            std::process::exit(i32::from(HARNESS));
        }
    }
}

/// An error that chooses its exit code.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Exit {
    pub code: u8,
    pub message: String,
}

/// A bad-input error (exit 2) with a one-line message.
pub fn bad_input(message: impl Into<String>) -> anyhow::Error {
    Exit { code: BAD_INPUT, message: message.into() }.into()
}

/// A typed error and its causes, on one line.
pub fn one_line(error: impl std::error::Error + Send + Sync + 'static) -> String {
    format!("{:#}", anyhow::Error::new(error))
}

/// A bad-input error (exit 2) from a typed error, its causes on the same line.
pub fn bad_input_from(error: impl std::error::Error + Send + Sync + 'static) -> anyhow::Error {
    bad_input(one_line(error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_input_error_keeps_its_message_on_one_line() {
        let error = bad_input_from(std::io::Error::other("no such file"));
        assert_eq!((error.downcast_ref::<Exit>().map(|e| e.code), error.to_string()), (Some(BAD_INPUT), "no such file".to_string()));
    }
}
