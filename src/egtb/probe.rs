//! A set of endgame tables: opening a directory (whole in memory, or block by block on demand through a bounded cache), looking positions up, and the value of a position from its successors.

use super::cache::{BlockCache, Lookup};
use super::file::{BlockFile, FileError, SliceFile, slice_path};
use super::{Indexer, Material, Placement, Value, ValueKind, family};
use crate::position::Position;
use crate::rules::{Rules, Variant};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// Slots of the material table: each count below 9.
const SLOTS: usize = 9 * 9 * 9 * 9;

fn slot(m: Material) -> usize {
    usize::from(m.white_men)
        + 9 * (usize::from(m.white_kings)
            + 9 * (usize::from(m.black_men) + 9 * usize::from(m.black_kings)))
}

/// Where a slice's values are.
#[derive(Debug)]
pub enum Codes {
    /// One code (of [`Value::code`]) per index, in memory; atomics so the generator can fill
    /// a slice from several threads while others read it (relaxed loads cost what plain
    /// loads cost).
    Memory(Vec<AtomicU8>),
    /// In the slice's file, read a block at a time through the tables' [`BlockCache`].
    Blocks {
        /// The open file.
        file: BlockFile,
        /// The slice's number among the tables' files: the high part of its blocks' keys.
        id: u64,
        /// The first failure to read a block (logged once when it happens).
        failed: std::sync::OnceLock<String>,
    },
}

/// One slice's values.
#[derive(Debug)]
pub struct Slice {
    /// The slice's index.
    pub indexer: Indexer,
    /// The values.
    pub codes: Codes,
    /// What the codes are: distances or win/draw/loss.
    pub kind: ValueKind,
    /// Bytes of the file it came from (0 while being generated).
    pub file_size: usize,
    /// False when loaded from a file: positions with a capture pending hold no value there
    /// (see [`super::file`]) and are worked out from their successors on lookup.
    pub captures_stored: bool,
}

impl Slice {
    /// A slice of unknown values (all 0), in memory, to hold codes of `kind`.
    pub fn empty(indexer: Indexer, kind: ValueKind) -> Slice {
        let values = (0..indexer.size()).map(|_| AtomicU8::new(0)).collect();
        Slice {
            indexer,
            codes: Codes::Memory(values),
            kind,
            file_size: 0,
            captures_stored: true,
        }
    }

    /// The values of a slice held in memory: the generator's and verifier's slices, which
    /// they build or load whole (never those read from their files on demand).
    pub fn memory(&self) -> &[AtomicU8] {
        match &self.codes {
            Codes::Memory(values) => values,
            Codes::Blocks { .. } => {
                panic!("generation and verification hold their slices in memory")
            }
        }
    }

    /// The codes of a slice in memory as plain bytes.
    pub fn snapshot(&self) -> Vec<u8> {
        self.memory()
            .iter()
            .map(|v| v.load(Ordering::Relaxed))
            .collect()
    }
}

/// Where [`Tables::locate`] finds a position's value.
enum Located<'a> {
    /// The side to move has no piece: the game is over, lost for it.
    NoPiece,
    /// A capture is pending in a slice that does not store such positions: the value comes
    /// from the successors.
    Capture(&'a Slice),
    /// Stored in the slice at this index.
    Stored(&'a Slice, u64),
}

/// The tables of one variant.
#[derive(Debug)]
pub struct Tables {
    variant: Variant,
    slices: Vec<Option<Arc<Slice>>>,
    max_pieces: usize,
    /// The decoded blocks of slices read on demand.
    cache: Option<BlockCache>,
}

/// What a successor is worth while a slice is being generated: a known code, or unknown
/// (still 0 in a slice of the pair being solved, which may yet become a win or loss).
pub const UNKNOWN: u8 = 0;

impl Tables {
    /// No tables.
    pub fn new(variant: Variant) -> Tables {
        Tables {
            variant,
            slices: vec![None; SLOTS],
            max_pieces: 0,
            cache: None,
        }
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The most pieces of any slice held.
    pub fn max_pieces(&self) -> usize {
        self.max_pieces
    }

    /// Slices held.
    pub fn len(&self) -> usize {
        self.slices.iter().flatten().count()
    }

    /// True when no slice is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The slices held, in no particular order.
    pub fn slices(&self) -> impl Iterator<Item = &Arc<Slice>> {
        self.slices.iter().flatten()
    }

    /// Adds (or replaces) a slice.
    pub fn insert(&mut self, slice: Arc<Slice>) {
        let m = slice.indexer.material();
        self.max_pieces = self.max_pieces.max(m.total());
        self.slices[slot(m)] = Some(slice);
    }

    /// The slice of a material, if held.
    pub fn slice(&self, material: Material) -> Option<&Arc<Slice>> {
        self.slices.get(slot(material))?.as_ref()
    }

    /// Loads and checks one slice file.
    pub fn load_slice<R: Rules>(dir: &Path, material: Material) -> Result<Slice, FileError> {
        let family = family(R::VARIANT).unwrap_or("none");
        let path = slice_path(dir, family, material);
        let indexer = Indexer::new::<R>(material);
        let file = SliceFile::open(&path, R::VARIANT, material, indexer.size())?;
        let codes = file.decode_all(&path)?;
        Ok(Slice {
            indexer,
            codes: Codes::Memory(codes.into_iter().map(AtomicU8::new).collect()),
            kind: file.kind(),
            file_size: file.file_size(),
            captures_stored: false,
        })
    }

    /// The slice materials of `R`'s family that have a file under `dir`
    /// (`dir/FAMILY/*.dtm`), fewer pieces first; an error when the folder cannot be read.
    pub fn materials_in<R: Rules>(dir: &Path) -> Result<Vec<Material>, FileError> {
        let Some(family) = family(R::VARIANT) else {
            return Ok(Vec::new());
        };
        let folder = dir.join(family);
        let entries = std::fs::read_dir(&folder).map_err(|e| FileError {
            path: folder.clone(),
            reason: format!("cannot read the directory: {e}"),
        })?;
        let mut materials: Vec<Material> = entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                Material::parse(name.strip_suffix(".dtm")?)
            })
            .filter(|m| Material::all::<R>(super::MAX_PIECES).contains(m))
            .collect();
        materials.sort_by_key(|m| (m.total(), m.men(), *m));
        Ok(materials)
    }

    /// Loads every slice file of `R`'s family under `dir` whole into memory (one byte a
    /// position; what generation and verification need). A bad file is left out and
    /// reported in the returned list; the others are used.
    pub fn open<R: Rules>(dir: &Path) -> (Tables, Vec<FileError>) {
        let mut tables = Tables::new(R::VARIANT);
        let materials = match Tables::materials_in::<R>(dir) {
            Ok(materials) => materials,
            Err(e) => return (tables, vec![e]),
        };
        let mut errors = Vec::new();
        for material in materials {
            match Tables::load_slice::<R>(dir, material) {
                Ok(slice) => tables.insert(Arc::new(slice)),
                Err(e) => errors.push(e),
            }
        }
        (tables, errors)
    }

    /// Opens every slice file of `R`'s family under `dir` for probing on demand: only the
    /// headers and block indexes are read now, values are read a block at a time as
    /// lookups need them and kept in a cache of at most `cache_bytes` (what the engine
    /// does: memory and start-up time do not grow with the tables). A bad header or index
    /// is left out and reported; a block that fails later (I/O, checksum) makes its
    /// lookups answer "not covered" and is logged once.
    pub fn open_on_demand<R: Rules>(dir: &Path, cache_bytes: usize) -> (Tables, Vec<FileError>) {
        let mut tables = Tables::new(R::VARIANT);
        tables.set_cache(cache_bytes);
        let materials = match Tables::materials_in::<R>(dir) {
            Ok(materials) => materials,
            Err(e) => return (tables, vec![e]),
        };
        let mut errors = Vec::new();
        for material in materials {
            match Tables::slice_on_demand::<R>(dir, material) {
                Ok(slice) => tables.insert(Arc::new(slice)),
                Err(e) => errors.push(e),
            }
        }
        (tables, errors)
    }

    /// Gives the tables a block cache of at most `cache_bytes` for the slices read on
    /// demand (replacing any cache and what it held).
    pub fn set_cache(&mut self, cache_bytes: usize) {
        self.cache = Some(BlockCache::new(cache_bytes, super::file::BLOCK));
    }

    /// One slice file opened for probing on demand (header and block index read and
    /// checked); its blocks go through the tables' cache (see [`Tables::set_cache`]).
    pub fn slice_on_demand<R: Rules>(dir: &Path, material: Material) -> Result<Slice, FileError> {
        let family = family(R::VARIANT).unwrap_or("none");
        let path = slice_path(dir, family, material);
        let indexer = Indexer::new::<R>(material);
        let file = BlockFile::open(&path, R::VARIANT, material, indexer.size())?;
        let file_size = file.file_size() as usize;
        let kind = file.kind();
        Ok(Slice {
            indexer,
            kind,
            codes: Codes::Blocks {
                file,
                // The slot of the material is unique among the tables' slices.
                id: slot(material) as u64,
                failed: std::sync::OnceLock::new(),
            },
            file_size,
            captures_stored: false,
        })
    }

    /// True when the slice of `material` is held in memory (not read on demand).
    pub fn in_memory(&self, material: Material) -> bool {
        self.slice(material)
            .is_some_and(|slice| matches!(slice.codes, Codes::Memory(_)))
    }

    /// The files of tables opened on demand that failed to give a block (I/O, checksum,
    /// structure), each with its first failure: lookups there answered "not covered".
    pub fn failures(&self) -> Vec<FileError> {
        self.slices()
            .filter_map(|slice| match &slice.codes {
                Codes::Blocks { file, failed, .. } => failed.get().map(|reason| FileError {
                    path: file.path().to_path_buf(),
                    reason: reason.clone(),
                }),
                Codes::Memory(_) => None,
            })
            .collect()
    }

    /// The block cache of tables opened on demand: lookups answered from memory and
    /// lookups that read a block, and the blocks it can hold.
    pub fn cache_counts(&self) -> Option<(u64, u64, usize)> {
        self.cache.as_ref().map(|cache| {
            let (hits, misses) = cache.counts();
            (hits, misses, cache.capacity())
        })
    }

    /// The code stored at `index` of one of these tables' slices (in memory or read on
    /// demand); `None` when its block cannot be read.
    #[inline]
    pub fn code_at(&self, slice: &Slice, index: u64) -> Option<u8> {
        match &slice.codes {
            Codes::Memory(values) => Some(values[index as usize].load(Ordering::Relaxed)),
            Codes::Blocks { file, id, failed } => {
                let cache = self.cache.as_ref()?;
                let block_size = file.block_size() as u64;
                let block = index / block_size;
                let key = (*id << 32) | block;
                let lookup = cache.get(key, (index % block_size) as usize, |out| {
                    file.read_block(block as usize, &mut Vec::new(), out)
                });
                match lookup {
                    Lookup::Value(code) => Some(code),
                    Lookup::Failed(reason) => {
                        if failed.set(reason).is_ok() {
                            log::warn!(
                                "endgame table {}: {}; its positions are searched instead",
                                file.path().display(),
                                failed.get().map_or("", String::as_str)
                            );
                        }
                        None
                    }
                }
            }
        }
    }

    /// The code of a position (any side to move) in its slice's kind (see [`ValueKind`]);
    /// `Some(1)` (loss in 0, or lost) when the side to move has no piece; `None` when its
    /// slice is not held.
    #[inline]
    pub fn code<R: Rules>(&self, position: &Position<R>) -> Option<u8> {
        match self.locate(position)? {
            Located::NoPiece => Some(1),
            // Not stored: a capture leads to a smaller slice, so this recursion ends.
            Located::Capture(slice) => slice.kind.code(self.value_from_successors(position)?),
            Located::Stored(slice, index) => self.code_at(slice, index),
        }
    }

    /// Where a position's value is found (`None` when its slice is not held).
    #[inline]
    fn locate<R: Rules>(&self, position: &Position<R>) -> Option<Located<'_>> {
        let placement = Placement::of(position);
        if placement.white_men | placement.white_kings == 0 {
            return Some(Located::NoPiece);
        }
        let slice = self.slice(placement.material())?;
        if !slice.captures_stored && position.has_capture() {
            return Some(Located::Capture(slice));
        }
        Some(Located::Stored(slice, slice.indexer.index(&placement)))
    }

    /// The value of a position (any side to move): `Loss(0)` when the side to move has no
    /// piece; `None` when its slice is not held.
    #[inline]
    fn value_of<R: Rules>(&self, position: &Position<R>) -> Option<Value> {
        match self.locate(position)? {
            Located::NoPiece => Some(Value::Loss(0)),
            // A successor's distance is kept, where `code` reduces it to the slice's kind.
            Located::Capture(_) => self.value_from_successors(position),
            Located::Stored(slice, index) => Some(slice.kind.value(self.code_at(slice, index)?)),
        }
    }

    /// The value of a position for the side to move, or `None` when not covered (its slice
    /// is not held, or the side not to move has no piece: the game is already over).
    #[inline]
    pub fn probe<R: Rules>(&self, position: &Position<R>) -> Option<Value> {
        let opponent = position.side_to_move().opponent();
        if position.pieces(opponent) == 0 {
            return None;
        }
        self.value_of(position)
    }

    /// [`Tables::probe`] for a position the search and the data generator take as settled:
    /// no more pieces than the tables hold and no capture pending (a position with a capture
    /// is about to change, and its value is not stored but worked out, which costs more than
    /// searching it).
    #[inline]
    pub fn probe_settled<R: Rules>(&self, position: &Position<R>) -> Option<Value> {
        if position.occupied().count_ones() as usize > self.max_pieces || position.has_capture() {
            return None;
        }
        self.probe(position)
    }

    /// The value a position must have given its successors' values in these tables (the
    /// consistency rule every stored value obeys): `None` when a successor is not covered.
    /// A win or loss through a successor whose distance is not stored (a win/draw/loss
    /// slice) has no distance either, unless a quicker win with a distance exists.
    pub fn value_from_successors<R: Rules>(&self, position: &Position<R>) -> Option<Value> {
        let moves = position.legal_moves();
        if moves.is_empty() {
            return Some(Value::Loss(0));
        }
        let mut best_win: Option<u32> = None;
        let mut won = false;
        let mut slowest_loss: Option<u32> = None;
        let mut lost = false;
        let mut all_lose = true;
        for mv in moves.iter() {
            let child = position.play(mv);
            let value = self.value_of(&child)?.for_parent();
            match value {
                Value::Win(n) => best_win = Some(best_win.map_or(n, |b| b.min(n))),
                Value::Won => won = true,
                Value::Loss(n) => slowest_loss = Some(slowest_loss.map_or(n, |s| s.max(n))),
                Value::Lost => lost = true,
                Value::Draw => {}
            }
            if !value.is_loss() {
                all_lose = false;
            }
        }
        Some(match (best_win, won, all_lose) {
            (Some(n), false, _) => Value::Win(n),
            (_, true, _) => Value::Won,
            (None, false, true) if lost => Value::Lost,
            (None, false, true) => Value::Loss(slowest_loss.expect("a move was played")),
            (None, false, false) => Value::Draw,
        })
    }

    /// The legal moves of a covered position with their values for the side to move, best
    /// first: quickest win, then draws, then slowest loss.
    pub fn rank_moves<R: Rules>(
        &self,
        position: &Position<R>,
    ) -> Option<Vec<(crate::position::Move, Value)>> {
        let mut ranked = Vec::new();
        for mv in position.legal_moves().iter() {
            let child = position.play(mv);
            let value = self.value_of(&child)?.for_parent();
            ranked.push((*mv, value));
        }
        // Wins without a distance after those with one; losses without a distance before
        // those with one (they may be the slowest).
        ranked.sort_by_key(|(_, v)| match v {
            Value::Win(n) => -1_000_000 + i64::from(*n),
            Value::Won => -500_000,
            Value::Draw => 0,
            Value::Lost => 500_000,
            Value::Loss(n) => 1_000_000 - i64::from(*n),
        });
        Some(ranked)
    }
}
