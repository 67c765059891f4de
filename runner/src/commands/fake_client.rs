//! A misbehaving MCP client for the runner's tests, the hidden subcommand
//! `mcp-client-probe fake-client MODE PIDFILE [server…]` (part of the one binary, so nothing but
//! the tool is installed):
//! writes its pid (and its children's) to PIDFILE, then behaves as MODE says:
//! `hang` (ignores SIGTERM, sleeps), `crash` (aborts), `garbage` (floods stdout and exits),
//! `orphan` (leaves a detached child running and exits), `no-connect` (exits without connecting),
//! `env` (prints its environment and exits), `linger` (starts the server, closes its input at
//! once, and exits [`LINGER`] after the server has ended).

use std::io::Write;
use std::os::unix::process::CommandExt;

/// How long the `linger` client outlives its server.
pub const LINGER: std::time::Duration = std::time::Duration::from_millis(1_500);

fn record_pid(pidfile: &str, pid: u32) {
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(pidfile).expect("pid file");
    // One write per line: the runs of a probe go at once, and their clients share the file.
    file.write_all(format!("{pid}\n").as_bytes()).expect("write pid");
}

/// Runs the fake client; `args` are its own (after `fake-client`). Never returns.
pub fn run(args: &[String]) -> ! {
    let (Some(mode), Some(pidfile)) = (args.first(), args.get(1)) else {
        eprintln!("usage: fake-client MODE PIDFILE [server...]");
        std::process::exit(2);
    };
    record_pid(pidfile, std::process::id());
    match mode.as_str() {
        "hang" => {
            // SAFETY: ignoring a signal touches no memory.
            unsafe { libc::signal(libc::SIGTERM, libc::SIG_IGN) };
            loop {
                std::thread::sleep(std::time::Duration::from_secs(60));
            }
        }
        "crash" => {
            eprintln!("fake-client: crashing at start");
            std::process::abort();
        }
        "garbage" => {
            let mut out = std::io::stdout().lock();
            let line = [b'\xff', b'{', b'"', b'j', b'u', b'n', b'k', b'\n'];
            for _ in 0..(2 << 20) {
                if out.write_all(&line).is_err() {
                    break;
                }
            }
        }
        "orphan" => {
            let mut child = std::process::Command::new(std::env::current_exe().expect("own executable"));
            child.args(["fake-client", "sleeper", pidfile]);
            // SAFETY: setsid in the child before exec; no allocation happens there.
            unsafe {
                child.pre_exec(|| {
                    libc::setsid();
                    Ok(())
                });
            }
            // Deliberately never waited for: this child is the orphan the runner must sweep.
            #[allow(clippy::zombie_processes)]
            let spawned = child.spawn().expect("spawn the orphan");
            record_pid(pidfile, spawned.id());
            println!("fake-client: left pid {} behind", spawned.id());
        }
        "linger" => {
            let Some((program, server_args)) = args.get(2..).and_then(<[String]>::split_first) else {
                eprintln!("fake-client: linger needs the server's command line");
                std::process::exit(2);
            };
            let server = std::process::Command::new(program).args(server_args).stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::null()).spawn();
            match server {
                // Its input closes as the handle drops: the server journals that and ends.
                Ok(mut server) => {
                    drop(server.stdin.take());
                    let _ = server.wait();
                }
                Err(e) => eprintln!("fake-client: cannot start the server: {e}"),
            }
            std::thread::sleep(LINGER);
        }
        "sleeper" => std::thread::sleep(std::time::Duration::from_secs(600)),
        "no-connect" => println!("fake-client: not connecting to {:?}", args.get(2..).unwrap_or_default()),
        "env" => {
            for (key, value) in std::env::vars() {
                println!("{key}={value}");
            }
        }
        other => {
            eprintln!("fake-client: unknown mode {other}");
            std::process::exit(2);
        }
    }
    std::process::exit(0)
}
