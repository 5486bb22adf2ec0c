//! Endgame tables for the engine: a directory's tables opened and checked for one variant.

use crate::egtb::probe::Tables;
use crate::rules::Variant;
use crate::with_variant;
use std::sync::Arc;

/// Endgame tables loaded from a directory for one variant (compared by directory and
/// identity, so a [`Setting`](super::Setting) stays comparable).
#[derive(Clone, Debug)]
pub struct LoadedTables {
    /// The directory, as given.
    pub path: String,
    /// The tables.
    pub tables: Arc<Tables>,
}

impl PartialEq for LoadedTables {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path && Arc::ptr_eq(&self.tables, &other.tables)
    }
}

impl Eq for LoadedTables {}

/// Opens the tables of `variant` under `path` for the engine, probed from their files
/// through a cache of `cache_mb` MB: every file's header and block index must be valid (a
/// bad one refuses the whole directory with one message naming it) and at least one slice
/// must be there. Only headers and indexes are read, so this takes milliseconds.
pub fn load_tables(path: &str, variant: Variant, cache_mb: usize) -> Result<LoadedTables, String> {
    let dir = std::path::Path::new(path);
    if !dir.is_dir() {
        return Err(format!("no directory '{path}'"));
    }
    let cache_bytes = cache_mb.saturating_mul(1 << 20);
    let (tables, errors) =
        with_variant!(variant, R => Tables::open_on_demand::<R>(dir, cache_bytes));
    if let Some(first) = errors.first() {
        return Err(if errors.len() > 1 {
            format!("{first} (and {} more bad files)", errors.len() - 1)
        } else {
            first.to_string()
        });
    }
    if tables.is_empty() {
        return Err(format!(
            "no {} tables under '{path}' (expected {path}/{}/*.dtm, see docs/egtb.md)",
            variant.name(),
            crate::egtb::family(variant).unwrap_or(variant.name())
        ));
    }
    Ok(LoadedTables {
        path: path.to_string(),
        tables: Arc::new(tables),
    })
}

/// The tables of `variant` in the default directory ([`crate::egtb::default_dir`]), if it
/// holds any and `cache_mb` is not 0. Nothing there is not an error; a bad file there is
/// logged and leaves the engine without tables.
pub(super) fn default_tables(variant: Variant, cache_mb: usize) -> Option<LoadedTables> {
    let dir = crate::egtb::default_dir()?;
    let family = crate::egtb::family(variant)?;
    if cache_mb == 0 || !dir.join(family).is_dir() {
        return None;
    }
    let path = dir.to_str()?;
    load_tables(path, variant, cache_mb)
        .inspect_err(|error| log::warn!("the default table directory: {error}"))
        .ok()
}

/// True when `path` has no table directory of `variant`'s family but one of another
/// family holding at least one table file (`*.dtm`).
pub(super) fn holds_other_tables(path: &str, variant: Variant) -> bool {
    let own = crate::egtb::family(variant).unwrap_or(variant.name());
    let dir = std::path::Path::new(path);
    if dir.join(own).is_dir() {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        std::fs::read_dir(entry.path()).is_ok_and(|files| {
            files
                .flatten()
                .any(|file| file.path().extension().is_some_and(|ext| ext == "dtm"))
        })
    })
}
