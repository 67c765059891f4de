//! Records the commit the binary is built from, so a record names the probe code that made it
//! without running git at run time (an installed binary has no repository beside it).

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let commit = std::process::Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=MCP_CLIENT_PROBE_COMMIT={commit}");
    embed_profiles(&root.join("fixtures/clients"));
    // Build again when HEAD moves (a commit, a checkout).
    for path in [".git/HEAD", ".git/refs/heads", ".git/packed-refs"] {
        let path = root.join(path);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}

/// A copy of the client profiles compiled in, for a binary installed away from the repository.
fn embed_profiles(dir: &std::path::Path) {
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut entries: Vec<_> = std::fs::read_dir(dir).map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect()).unwrap_or_default();
    entries.retain(|p| p.extension().is_some_and(|e| e == "toml"));
    entries.sort();
    let mut code = String::from("/// The client profiles of the repository the binary was built from: (file name, text).\npub const EMBEDDED: &[(&str, &str)] = &[\n");
    for path in entries {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        code.push_str(&format!("    ({name:?}, include_str!({:?})),\n", path.display().to_string()));
    }
    code.push_str("];\n");
    let out = std::path::Path::new(&std::env::var("OUT_DIR").unwrap_or_default()).join("embedded_profiles.rs");
    if let Err(e) = std::fs::write(&out, code) {
        println!("cargo:warning=cannot write {}: {e}", out.display());
    }
}
