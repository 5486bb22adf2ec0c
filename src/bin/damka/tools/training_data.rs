//! The published self-play data: its manifest, and the check that a file `damka tune` reads under a published chunk's name holds that chunk.
//!
//! The chunks are not in main's tree (data/README.md says where they are and how
//! `scripts/get-data.sh` fetches them); the manifest `data/selfplay.sha256` is, compiled in
//! here, so a fit that claims to start from the published data provably does.

use super::sha256::sha256_hex;
use std::path::Path;

/// `sha256sum` lines of every published chunk, decompressed (`HASH  selfplay/NAME.txt`).
const MANIFEST: &str = include_str!("../../../../data/selfplay.sha256");

/// Where a file of positions comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provenance {
    /// It bears a published chunk's name and holds exactly that chunk.
    Published,
    /// Its name is not a published chunk's: the user's own data, not checked.
    Own,
}

/// Checks `bytes`, read from `path`, against the manifest entry of the same file name.
pub fn check(path: &Path, bytes: &[u8]) -> Result<Provenance, String> {
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
        return Ok(Provenance::Own);
    };
    let Some((wanted, entry)) = published_hash(name) else {
        return Ok(Provenance::Own);
    };
    let found = sha256_hex(bytes);
    if found == wanted {
        Ok(Provenance::Published)
    } else {
        Err(format!(
            "{} has the name of the published chunk {entry} but not its content (sha256 {found}, \
             data/selfplay.sha256 has {wanted}): fetch it again with scripts/get-data.sh, or \
             rename it if it is data of your own",
            path.display()
        ))
    }
}

/// The manifest's hash and path of the chunk called `name`, if it is one.
fn published_hash(name: &str) -> Option<(&'static str, &'static str)> {
    MANIFEST.lines().find_map(|line| {
        let (hash, entry) = line.split_once("  ")?;
        let file = entry.rsplit('/').next()?;
        (file == name).then_some((hash, entry))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every manifest line is a 64-digit hash and a chunk of `selfplay/`.
    #[test]
    fn manifest_lines_are_sha256sum_lines() {
        let lines: Vec<&str> = MANIFEST.lines().collect();
        assert!(lines.len() > 400, "{} chunks", lines.len());
        for line in lines {
            let (hash, entry) = line
                .split_once("  ")
                .expect("two spaces, as sha256sum writes");
            assert_eq!(hash.len(), 64, "{line}");
            assert!(
                hash.bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
            );
            assert!(
                entry.starts_with("selfplay/") && entry.ends_with(".txt"),
                "{line}"
            );
        }
    }

    #[test]
    fn a_published_name_with_other_content_is_refused_and_other_names_pass() {
        let error = check(Path::new("/tmp/czech-0000.txt"), b"W:W1:B2;1\n").unwrap_err();
        assert!(error.contains("selfplay/czech-0000.txt"), "{error}");
        assert_eq!(
            check(Path::new("chunk-0000.txt"), b"anything"),
            Ok(Provenance::Own)
        );
    }
}
