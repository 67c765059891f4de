//! Journals at rest: a committed journal (and a run's stdout and stderr) is kept compressed with
//! zstd beside the name its record gives it (`stdio.journal.jsonl` is stored as
//! `stdio.journal.jsonl.zst`). Readers ask for the name; [`read_bytes`] finds whichever form is
//! there, so records, judges and pages never see the difference.

use std::path::{Path, PathBuf};

/// What a stored file's name ends with.
pub const SUFFIX: &str = "zst";

/// How hard to compress: slow to write once, fast to read always.
const LEVEL: i32 = 19;

/// `path` with the compressed form's suffix.
pub fn compressed_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(".");
    name.push(SUFFIX);
    PathBuf::from(name)
}

/// Whether `path` (as a record names it) exists in either form.
pub fn exists(path: &Path) -> bool {
    path.is_file() || compressed_path(path).is_file()
}

/// The contents of `path`, from the file itself or, when it is not there, from its compressed
/// form; a path that names the compressed form is read decompressed.
pub fn read_bytes(path: &Path) -> std::io::Result<Vec<u8>> {
    if path.extension().is_some_and(|e| e == SUFFIX) {
        return zstd::decode_all(std::fs::File::open(path)?);
    }
    match std::fs::read(path) {
        Ok(bytes) => Ok(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match std::fs::File::open(compressed_path(path)) {
            Ok(file) => zstd::decode_all(file),
            Err(_) => Err(e),
        },
        Err(e) => Err(e),
    }
}

/// As [`read_bytes`], as text (invalid UTF-8 replaced).
pub fn read_text(path: &Path) -> std::io::Result<String> {
    read_bytes(path).map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}

/// Stores `path` compressed: writes `<path>.zst` (through a temporary file beside it), checks it
/// reads back to the same bytes, and removes `path`. Returns the bytes saved.
pub fn compress(path: &Path) -> std::io::Result<u64> {
    let original = std::fs::read(path)?;
    let packed = zstd::encode_all(original.as_slice(), LEVEL)?;
    if zstd::decode_all(packed.as_slice())? != original {
        return Err(std::io::Error::other(format!("{}: the compressed form does not read back whole", path.display())));
    }
    let target = compressed_path(path);
    let mut partial = target.clone().into_os_string();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    std::fs::write(&partial, &packed)?;
    std::fs::rename(&partial, &target)?;
    std::fs::remove_file(path)?;
    Ok((original.len() as u64).saturating_sub(packed.len() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compressed_file_reads_as_the_original_by_its_own_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stdio.journal.jsonl");
        let text = "{\"seq\":1}\n".repeat(1000);
        std::fs::write(&path, &text).unwrap();
        assert_eq!(read_text(&path).unwrap(), text);
        let saved = compress(&path).unwrap();
        assert!(!path.exists() && compressed_path(&path).is_file());
        assert!(saved > 9000, "{saved}");
        assert_eq!(read_text(&path).unwrap(), text, "read by the record's name");
        assert_eq!(read_text(&compressed_path(&path)).unwrap(), text, "read by the stored name");
        assert!(exists(&path));
        assert!(!exists(&dir.path().join("other.jsonl")));
        assert_eq!(read_bytes(&dir.path().join("other.jsonl")).unwrap_err().kind(), std::io::ErrorKind::NotFound);
    }
}
