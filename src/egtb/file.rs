//! The endgame-table file format: a checked header, a block index with a checksum per block, and run-length-coded blocks, written atomically.
//!
//! Layout (all integers little-endian):
//! ```text
//!  0  magic "DAMKATB\0"         8 bytes
//!  8  version (2 or 3)          u16
//! 10  variant family            u8   (index in Variant::ALL)
//! 11  material                  4 x u8 (white men, white kings, black men, black kings)
//! 15  value kind                u8   (0: distances, version 2; 1: win/draw/loss, version 3)
//! 16  positions                 u64  (the slice's perfect-index size)
//! 24  values per block          u32
//! 28  blocks                    u32
//! 32  checksum                  u64  (FNV-1a 64 of every other byte of the file)
//! 40  longest distance (plies)  u16
//! 42  reserved (0)              6 bytes
//! 48  block offsets             (blocks + 1) x u64, from the start of the data
//!     block checksums           blocks x u32 (low half of FNV-1a 64 of the block's bytes)
//!     data                      the blocks
//! ```
//! A block codes `values per block` one-byte values (see [`super::ValueKind`]: distance codes
//! of [`super::Value::code`], or win/draw/loss codes) either raw
//! (first byte 0) or as runs (first byte 1, then pairs of a value byte and a LEB128 run
//! length), whichever is shorter. The index gives random access to any block; a value is
//! found by decoding at most one block. The whole-file checksum guards a file read whole
//! ([`SliceFile`]); the block checksums guard a block read alone ([`BlockFile`], the
//! engine's reader, which never reads a whole file and sums a block the first time it
//! reads it). Version 1 files (no block checksums) are still read: whole with their file
//! checksum, block by block with the blocks' structure checked only (`damka egtb upgrade`
//! rewrites them as version 2). A win/draw/loss file is version 3, which builds that read
//! only versions 1 and 2 refuse by name instead of misreading its codes as distances; a
//! distance file stays version 2.

use super::{Material, ValueKind};
use crate::rules::Variant;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const MAGIC: &[u8; 8] = b"DAMKATB\0";
/// The format version this build writes for a distance slice (it also reads version 1,
/// without block checksums).
pub const VERSION: u16 = 2;
/// The format version of a win/draw/loss slice, and the newest this build reads.
pub const VERSION_WDL: u16 = 3;
const HEADER: usize = 48;
/// Values per block.
pub const BLOCK: usize = 4096;

/// Why a table file was refused.
#[derive(Debug)]
pub struct FileError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "endgame table {}: {}", self.path.display(), self.reason)
    }
}

impl std::error::Error for FileError {}

impl FileError {
    /// Makes the errors of one file from their reasons.
    fn about(path: &Path) -> impl Fn(String) -> FileError + Copy + '_ {
        |reason| FileError {
            path: path.to_path_buf(),
            reason,
        }
    }
}

fn fnv1a(hash: u64, bytes: &[u8]) -> u64 {
    let mut h = hash;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

const FNV_OFFSET: u64 = 0xCBF2_9CE4_8422_2325;

/// The checksum of one block's bytes (version 2).
fn block_checksum(block: &[u8]) -> u32 {
    fnv1a(FNV_OFFSET, block) as u32
}

fn checksum(file: &[u8]) -> u64 {
    let h = fnv1a(FNV_OFFSET, &file[..32]);
    fnv1a(h, &file[40..])
}

fn encode_block(values: &[u8], out: &mut Vec<u8>) {
    let mut runs = vec![1u8];
    let mut i = 0;
    while i < values.len() {
        let value = values[i];
        let mut j = i + 1;
        while j < values.len() && values[j] == value {
            j += 1;
        }
        runs.push(value);
        let mut length = (j - i) as u64;
        loop {
            let byte = (length & 0x7F) as u8;
            length >>= 7;
            if length == 0 {
                runs.push(byte);
                break;
            }
            runs.push(byte | 0x80);
        }
        i = j;
        if runs.len() > values.len() {
            break;
        }
    }
    if runs.len() <= values.len() {
        out.extend_from_slice(&runs);
    } else {
        out.push(0);
        out.extend_from_slice(values);
    }
}

/// Reads one run (a value byte and a LEB128 length) at `*at`, moving past it; `None` when
/// the bytes end inside it or the length is absurd.
#[inline]
fn next_run(bytes: &[u8], at: &mut usize) -> Option<(u8, usize)> {
    let value = *bytes.get(*at)?;
    *at += 1;
    let mut length = 0usize;
    let mut shift = 0;
    loop {
        let byte = *bytes.get(*at)?;
        *at += 1;
        length |= usize::from(byte & 0x7F) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return Some((value, length));
        }
        if shift > 28 {
            return None;
        }
    }
}

/// The longest run [`decode_block`] writes with one fixed-size store.
const SHORT_RUN: usize = 16;

/// Decodes a block into `out` (cleared first); `None` when the block is malformed.
fn decode_block(block: &[u8], expected: usize, out: &mut Vec<u8>) -> Option<()> {
    out.clear();
    let (&mode, rest) = block.split_first()?;
    match mode {
        0 => out.extend_from_slice(rest),
        1 => {
            // Filled in place: a block holds thousands of short runs, and growing the
            // vector run by run cost more than reading the block. A short run is one
            // fixed-size store of `SHORT_RUN` bytes (the next run writes over what passes
            // its end, the slack past the block's end is cut off): a call to fill each
            // run was a quarter of a block read's time.
            out.resize(expected + SHORT_RUN, 0);
            let (mut filled, mut i) = (0, 0);
            while i < rest.len() {
                let (value, length) = next_run(rest, &mut i)?;
                let end = filled + length;
                if end > expected {
                    return None;
                }
                if length <= SHORT_RUN {
                    out[filled..filled + SHORT_RUN].copy_from_slice(&[value; SHORT_RUN]);
                } else {
                    out[filled..end].fill(value);
                }
                filled = end;
            }
            out.truncate(expected);
            return (filled == expected).then_some(());
        }
        _ => return None,
    }
    (out.len() == expected).then_some(())
}

/// The file of a slice under a table directory: `DIR/FAMILY/wm..wk..bm..bk...dtm`.
pub fn slice_path(dir: &Path, family: &str, material: Material) -> PathBuf {
    dir.join(family).join(format!("{}.dtm", material.name()))
}

fn variant_code(variant: Variant) -> u8 {
    Variant::ALL
        .iter()
        .position(|&v| v == variant)
        .expect("every variant is listed") as u8
}

/// Encodes a slice's values (codes of `kind`) as a complete file image.
pub fn encode(variant: Variant, material: Material, values: &[u8], kind: ValueKind) -> Vec<u8> {
    encode_blocks(
        variant,
        material,
        values.len() as u64,
        kind,
        |range, out| {
            out.extend_from_slice(&values[range]);
        },
    )
}

/// [`encode`] of `positions` values that `fill` gives a block at a time (it appends the
/// values of the index range it is given to its buffer), so that the values need not be
/// held as one more copy.
pub fn encode_blocks(
    variant: Variant,
    material: Material,
    positions: u64,
    kind: ValueKind,
    fill: impl FnMut(std::ops::Range<usize>, &mut Vec<u8>),
) -> Vec<u8> {
    // The header and the block index come first; their size is known, so the blocks are
    // coded straight after them into the one image and the index is filled in at the end.
    let mut file = vec![0u8; data_start(positions)];
    let head = code_blocks(variant, material, positions, kind, fill, |bytes| {
        file.extend_from_slice(bytes);
        Ok(())
    })
    .expect("a vector takes every byte");
    file[..head.len()].copy_from_slice(&head);
    let sum = checksum(&file);
    file[32..40].copy_from_slice(&sum.to_le_bytes());
    file
}

/// Where the blocks of a file of `positions` values start: after the header, the block
/// offsets and the block checksums.
fn data_start(positions: u64) -> usize {
    let blocks = (positions as usize).div_ceil(BLOCK);
    HEADER + (blocks + 1) * 8 + blocks * 4
}

/// Codes the values `fill` gives a block at a time, handing each block's bytes to `put` as
/// soon as it is coded; returns what comes before the blocks (header, block offsets, block
/// checksums), with the whole-file checksum left 0 for the caller, who has every byte.
fn code_blocks(
    variant: Variant,
    material: Material,
    positions: u64,
    kind: ValueKind,
    mut fill: impl FnMut(std::ops::Range<usize>, &mut Vec<u8>),
    mut put: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<Vec<u8>> {
    let count = positions as usize;
    let blocks = count.div_ceil(BLOCK);
    let index_start = HEADER;
    let sums_start = index_start + (blocks + 1) * 8;
    let mut head = vec![0u8; data_start(positions)];
    let mut chunk = Vec::with_capacity(BLOCK);
    let mut coded = Vec::with_capacity(BLOCK);
    let mut highest = 0u8;
    let mut offset = 0u64;
    for block in 0..blocks {
        chunk.clear();
        fill(block * BLOCK..((block + 1) * BLOCK).min(count), &mut chunk);
        highest = highest.max(chunk.iter().copied().max().unwrap_or(0));
        coded.clear();
        encode_block(&chunk, &mut coded);
        head[index_start + block * 8..][..8].copy_from_slice(&offset.to_le_bytes());
        let sum = block_checksum(&coded);
        head[sums_start + block * 4..][..4].copy_from_slice(&sum.to_le_bytes());
        put(&coded)?;
        offset += coded.len() as u64;
    }
    head[index_start + blocks * 8..][..8].copy_from_slice(&offset.to_le_bytes());
    let longest = match kind {
        ValueKind::Distance => u16::from(highest).saturating_sub(1),
        ValueKind::WinDrawLoss => 0,
    };
    let (version, kind_code) = match kind {
        ValueKind::Distance => (VERSION, 0),
        ValueKind::WinDrawLoss => (VERSION_WDL, 1),
    };
    let mut fields = Vec::with_capacity(HEADER);
    fields.extend_from_slice(MAGIC);
    fields.extend_from_slice(&version.to_le_bytes());
    fields.push(variant_code(variant));
    fields.extend_from_slice(&[
        material.white_men,
        material.white_kings,
        material.black_men,
        material.black_kings,
        kind_code,
    ]);
    fields.extend_from_slice(&positions.to_le_bytes());
    fields.extend_from_slice(&(BLOCK as u32).to_le_bytes());
    fields.extend_from_slice(&(blocks as u32).to_le_bytes());
    fields.extend_from_slice(&0u64.to_le_bytes());
    fields.extend_from_slice(&longest.to_le_bytes());
    fields.extend_from_slice(&[0; 6]);
    debug_assert_eq!(fields.len(), HEADER);
    head[..HEADER].copy_from_slice(&fields);
    Ok(head)
}

/// [`encode_blocks`] written to `path` as it is coded, atomically (as
/// [`write_atomically`]): the process holds the block index and one block, not the file,
/// whose blocks are read back once from the page cache for the whole-file checksum.
/// Returns the file's size.
pub fn write_blocks_atomically(
    path: &Path,
    variant: Variant,
    material: Material,
    positions: u64,
    kind: ValueKind,
    fill: impl FnMut(std::ops::Range<usize>, &mut Vec<u8>),
) -> std::io::Result<u64> {
    use std::io::{Read, Seek, SeekFrom};
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let temp = path.with_extension(format!("tmp{}", std::process::id()));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&temp)?;
    let start = data_start(positions);
    let mut writer = std::io::BufWriter::with_capacity(1 << 16, file);
    writer.write_all(&vec![0u8; start])?;
    let head = code_blocks(variant, material, positions, kind, fill, |bytes| {
        writer.write_all(bytes)
    })?;
    let mut file = writer.into_inner().map_err(|e| e.into_error())?;
    let size = file.stream_position()?;
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&head)?;
    // The checksum covers every byte but its own, in file order: the blocks come after
    // the index, which was known only once they were coded.
    let mut sum = fnv1a(fnv1a(FNV_OFFSET, &head[..32]), &head[40..]);
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        sum = fnv1a(sum, &buffer[..read]);
    }
    file.seek(SeekFrom::Start(32))?;
    file.write_all(&sum.to_le_bytes())?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&temp, path)?;
    Ok(size)
}

/// The whole-file checksum a slice file's header holds (offset 32; what
/// `damka egtb verify` records, so that a later run knows the file it checked is unchanged).
pub fn stored_checksum(path: &Path) -> std::io::Result<u64> {
    use std::io::Read;
    let mut header = [0u8; 40];
    std::fs::File::open(path)?.read_exact(&mut header)?;
    Ok(u64::from_le_bytes(
        header[32..40].try_into().expect("eight bytes"),
    ))
}

/// Writes a file atomically: to a temporary name in the same directory, synced, then
/// renamed over the final name, so a killed run leaves either the old file or the new one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let temp = path.with_extension(format!("tmp{}", std::process::id()));
    {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
    }
    std::fs::rename(&temp, path)
}

/// The header and block index of a slice file, checked against what its name promises.
#[derive(Debug)]
struct Layout {
    version: u16,
    kind: ValueKind,
    positions: u64,
    block: usize,
    blocks: usize,
    longest: u16,
    /// Where the blocks start, from the start of the file.
    data_start: u64,
    /// Block `b` spans `offsets[b]..offsets[b + 1]` of the data.
    offsets: Vec<u64>,
    /// Version 2: each block's checksum.
    sums: Option<Vec<u32>>,
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

impl Layout {
    /// Checks the fixed header (`head`, at least [`HEADER`] bytes) and returns the layout
    /// without its index, and how many bytes the index takes after the header.
    fn header(
        head: &[u8],
        file_len: u64,
        variant: Variant,
        material: Material,
        positions: u64,
    ) -> Result<(Layout, usize), String> {
        if head.len() < HEADER {
            return Err(format!(
                "truncated: {file_len} bytes, shorter than the {HEADER}-byte header"
            ));
        }
        if &head[..8] != MAGIC {
            return Err("not a damka endgame table (bad magic)".into());
        }
        let version = u16::from_le_bytes([head[8], head[9]]);
        if !(1..=VERSION_WDL).contains(&version) {
            return Err(format!(
                "format version {version}, this build reads versions 1 to {VERSION_WDL}"
            ));
        }
        let kind = match (version, head[15]) {
            (1 | 2, 0) => ValueKind::Distance,
            (VERSION_WDL, 1) => ValueKind::WinDrawLoss,
            (_, code) => {
                return Err(format!(
                    "value kind {code} in a version {version} file (0 in versions 1 and 2, 1 in 3)"
                ));
            }
        };
        if head[10] != variant_code(variant) {
            let found = Variant::ALL
                .get(usize::from(head[10]))
                .map_or("an unknown variant", |v| v.name());
            return Err(format!("made for {found}, not {}", variant.name()));
        }
        let stored = Material::new(head[11], head[12], head[13], head[14]);
        if stored != material {
            return Err(format!("holds slice {stored}, not {material}"));
        }
        let count = u64_at(head, 16);
        if count != positions {
            return Err(format!(
                "holds {count} positions, the slice has {positions}"
            ));
        }
        let block = u32_at(head, 24) as usize;
        let blocks = u32_at(head, 28) as usize;
        if block == 0 || blocks != (positions as usize).div_ceil(block) {
            return Err(format!("bad block layout ({blocks} blocks of {block})"));
        }
        let index_len = (blocks + 1) * 8 + if version >= 2 { blocks * 4 } else { 0 };
        let layout = Layout {
            version,
            kind,
            positions,
            block,
            blocks,
            longest: u16::from_le_bytes([head[40], head[41]]),
            data_start: (HEADER + index_len) as u64,
            offsets: Vec::new(),
            sums: None,
        };
        Ok((layout, index_len))
    }

    /// Reads the block index (`index`, the bytes right after the header) and checks it
    /// against the file's length.
    fn read_index(&mut self, index: &[u8], file_len: u64) -> Result<(), String> {
        if (HEADER + index.len()) as u64 != self.data_start {
            return Err(format!(
                "truncated: {file_len} bytes, the block index alone needs {}",
                self.data_start
            ));
        }
        let offsets: Vec<u64> = (0..=self.blocks).map(|b| u64_at(index, b * 8)).collect();
        let data_len = offsets[self.blocks];
        if file_len != self.data_start + data_len {
            return Err(format!(
                "truncated or padded: {file_len} bytes, the index says {}",
                self.data_start + data_len
            ));
        }
        if let Some(b) = offsets.windows(2).position(|pair| pair[0] > pair[1]) {
            return Err(format!("block index entry {b} out of order"));
        }
        if self.version >= 2 {
            let sums_at = (self.blocks + 1) * 8;
            self.sums = Some(
                (0..self.blocks)
                    .map(|b| u32_at(index, sums_at + b * 4))
                    .collect(),
            );
        }
        self.offsets = offsets;
        Ok(())
    }

    /// The byte range of a block, from the start of the file.
    fn block_range(&self, block: usize) -> std::ops::Range<u64> {
        self.data_start + self.offsets[block]..self.data_start + self.offsets[block + 1]
    }

    /// Values in a block (the last one may be short).
    fn block_len(&self, block: usize) -> usize {
        (self.positions as usize - block * self.block).min(self.block)
    }

    /// Decodes a block's bytes into `out`, after checking its checksum (version 2) when
    /// `check`.
    fn decode(
        &self,
        block: usize,
        bytes: &[u8],
        out: &mut Vec<u8>,
        check: bool,
    ) -> Result<(), String> {
        if check
            && let Some(sums) = &self.sums
            && block_checksum(bytes) != sums[block]
        {
            return Err(format!(
                "block {block}: checksum mismatch (the file is corrupt)"
            ));
        }
        decode_block(bytes, self.block_len(block), out)
            .ok_or_else(|| format!("block {block} is malformed"))
    }
}

/// A checked slice file in memory.
#[derive(Debug)]
pub struct SliceFile {
    bytes: Vec<u8>,
    layout: Layout,
}

impl SliceFile {
    /// Checks a file image against what its name promises (variant, material and the
    /// slice's size): magic, version, header fields, block index and checksum.
    pub fn parse(
        path: &Path,
        bytes: Vec<u8>,
        variant: Variant,
        material: Material,
        positions: u64,
    ) -> Result<SliceFile, FileError> {
        let fail = FileError::about(path);
        let file_len = bytes.len() as u64;
        let (mut layout, index_len) =
            Layout::header(&bytes, file_len, variant, material, positions).map_err(fail)?;
        let index_end = (HEADER + index_len).min(bytes.len());
        layout
            .read_index(&bytes[HEADER..index_end], file_len)
            .map_err(fail)?;
        let stored_sum = u64_at(&bytes, 32);
        if checksum(&bytes) != stored_sum {
            return Err(fail("checksum mismatch (the file is corrupt)".into()));
        }
        Ok(SliceFile { bytes, layout })
    }

    /// Reads and checks a file.
    pub fn open(
        path: &Path,
        variant: Variant,
        material: Material,
        positions: u64,
    ) -> Result<SliceFile, FileError> {
        let bytes = std::fs::read(path).map_err(|e| FileError {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        SliceFile::parse(path, bytes, variant, material, positions)
    }

    /// The longest win or loss in the slice, plies (0 in a win/draw/loss slice).
    pub fn longest(&self) -> u16 {
        self.layout.longest
    }

    /// What the file's codes are.
    pub fn kind(&self) -> ValueKind {
        self.layout.kind
    }

    /// Bytes the file takes.
    pub fn file_size(&self) -> usize {
        self.bytes.len()
    }

    /// The file's format version.
    pub fn version(&self) -> u16 {
        self.layout.version
    }

    fn block_bytes(&self, block: usize) -> &[u8] {
        let range = self.layout.block_range(block);
        &self.bytes[range.start as usize..range.end as usize]
    }

    /// One value, decoding only its block (random access without a full decode).
    pub fn value_code(&self, index: u64) -> Option<u8> {
        let block = index as usize / self.layout.block;
        let mut offset = index as usize % self.layout.block;
        let bytes = self.block_bytes(block);
        match bytes.first()? {
            0 => bytes.get(1 + offset).copied(),
            _ => {
                let mut i = 1;
                while i < bytes.len() {
                    let (value, length) = next_run(bytes, &mut i)?;
                    if offset < length {
                        return Some(value);
                    }
                    offset -= length;
                }
                None
            }
        }
    }

    /// Every value, decoded; an error names the first malformed block.
    pub fn decode_all(&self, path: &Path) -> Result<Vec<u8>, FileError> {
        let mut values = Vec::with_capacity(self.layout.positions as usize);
        let mut block_values = Vec::with_capacity(self.layout.block);
        for block in 0..self.layout.blocks {
            self.layout
                .decode(block, self.block_bytes(block), &mut block_values, true)
                .map_err(|reason| FileError {
                    path: path.to_path_buf(),
                    reason,
                })?;
            values.extend_from_slice(&block_values);
        }
        Ok(values)
    }
}

/// Reads `buf.len()` bytes of `file` at `offset`, without moving a shared cursor (several
/// search threads read the same file).
fn read_exact_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        let mut done = 0;
        while done < buf.len() {
            let read = std::os::windows::fs::FileExt::seek_read(
                file,
                &mut buf[done..],
                offset + done as u64,
            )?;
            if read == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            done += read;
        }
        Ok(())
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = (file, buf, offset);
        Err(std::io::ErrorKind::Unsupported.into())
    }
}

/// A slice file read block by block on demand: opening it reads and checks the header and
/// the block index only (a few bytes per 4,096 positions), so start-up does not read the
/// tables and memory holds no more of them than the caller's cache.
#[derive(Debug)]
pub struct BlockFile {
    path: PathBuf,
    file: std::fs::File,
    layout: Layout,
    size: u64,
    /// A bit per block: set once the block's checksum has matched. A block read again
    /// (after the cache let it go) is not summed again: the sum was half of the decoding's
    /// time, and the first read has already caught a corrupt block.
    checked: Vec<AtomicU64>,
}

impl BlockFile {
    /// Opens a file and checks its header and block index against what its name promises.
    pub fn open(
        path: &Path,
        variant: Variant,
        material: Material,
        positions: u64,
    ) -> Result<BlockFile, FileError> {
        let fail = FileError::about(path);
        let file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
        let size = file.metadata().map_err(|e| fail(e.to_string()))?.len();
        let mut head = vec![0u8; HEADER.min(size as usize)];
        read_exact_at(&file, &mut head, 0).map_err(|e| fail(e.to_string()))?;
        let (mut layout, index_len) =
            Layout::header(&head, size, variant, material, positions).map_err(fail)?;
        let mut index = vec![0u8; index_len.min(size.saturating_sub(HEADER as u64) as usize)];
        read_exact_at(&file, &mut index, HEADER as u64).map_err(|e| fail(e.to_string()))?;
        layout.read_index(&index, size).map_err(fail)?;
        let checked = (0..layout.blocks.div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        Ok(BlockFile {
            path: path.to_path_buf(),
            file,
            layout,
            size,
            checked,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes the file takes on disk.
    pub fn file_size(&self) -> u64 {
        self.size
    }

    /// The file's format version (1: blocks without checksums).
    pub fn version(&self) -> u16 {
        self.layout.version
    }

    /// What the file's codes are.
    pub fn kind(&self) -> ValueKind {
        self.layout.kind
    }

    /// Values per block.
    pub fn block_size(&self) -> usize {
        self.layout.block
    }

    /// Reads block `block` from the file and decodes it into `out` (cleared first), using
    /// `raw` for the coded bytes; an error says what is wrong (I/O, checksum, structure).
    pub fn read_block(
        &self,
        block: usize,
        raw: &mut Vec<u8>,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        if block >= self.layout.blocks {
            return Err(format!("block {block} past the end"));
        }
        let range = self.layout.block_range(block);
        raw.resize((range.end - range.start) as usize, 0);
        read_exact_at(&self.file, raw, range.start).map_err(|e| format!("block {block}: {e}"))?;
        let (word, bit) = (&self.checked[block / 64], 1u64 << (block % 64));
        let check = word.load(Ordering::Relaxed) & bit == 0;
        self.layout.decode(block, raw, out, check)?;
        if check {
            word.fetch_or(bit, Ordering::Relaxed);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values of an English slice (a white king against two black kings) and their
    /// count.
    fn sample() -> (Vec<u8>, Material, u64) {
        let values: Vec<u8> = (0..10_000u32)
            .map(|i| if i % 7 == 0 { (i % 200) as u8 } else { 3 })
            .collect();
        let count = values.len() as u64;
        (values, Material::new(0, 1, 0, 2), count)
    }

    /// A file written as it is coded is the file coded in memory, byte for byte, for both
    /// kinds of values, and it parses.
    #[test]
    fn files_written_as_coded_equal_files_coded_in_memory() {
        let (values, m, n) = sample();
        let dir = std::env::temp_dir().join(format!("damka-stream-{}", std::process::id()));
        for kind in [ValueKind::Distance, ValueKind::WinDrawLoss] {
            let values: Vec<u8> = match kind {
                ValueKind::Distance => values.clone(),
                ValueKind::WinDrawLoss => values.iter().map(|&v| ValueKind::wdl_code(v)).collect(),
            };
            let path = dir.join("x.dtm");
            let size =
                write_blocks_atomically(&path, Variant::English, m, n, kind, |range, out| {
                    out.extend_from_slice(&values[range]);
                })
                .expect("written");
            let written = std::fs::read(&path).unwrap();
            assert_eq!(size, written.len() as u64);
            assert!(
                written == encode(Variant::English, m, &values, kind),
                "{kind:?}"
            );
            let file = SliceFile::parse(&path, written, Variant::English, m, n).expect("valid");
            assert_eq!(file.decode_all(&path).unwrap(), values);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn encode_then_parse_gives_the_values_back() {
        let (values, m, n) = sample();
        let bytes = encode(Variant::English, m, &values, ValueKind::Distance);
        let path = Path::new("x.dtm");
        let file = SliceFile::parse(path, bytes, Variant::English, m, n).expect("valid");
        assert_eq!(file.decode_all(path).unwrap(), values);
        for (i, &v) in values.iter().enumerate().step_by(13) {
            assert_eq!(file.value_code(i as u64), Some(v));
        }
    }

    /// The same values as a version 1 file (no block checksums), as earlier builds wrote.
    fn version_1(values: &[u8], m: Material) -> Vec<u8> {
        let current = encode(Variant::English, m, values, ValueKind::Distance);
        let blocks = values.len().div_ceil(BLOCK);
        let sums_at = HEADER + (blocks + 1) * 8;
        let mut old = current[..sums_at].to_vec();
        old.extend_from_slice(&current[sums_at + blocks * 4..]);
        old[8..10].copy_from_slice(&1u16.to_le_bytes());
        let sum = checksum(&old);
        old[32..40].copy_from_slice(&sum.to_le_bytes());
        old
    }

    fn scratch_file(name: &str, bytes: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("damka-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn blocks_read_alone_give_the_values_back_in_both_versions() {
        let (values, m, n) = sample();
        for (version, bytes) in [
            (2, encode(Variant::English, m, &values, ValueKind::Distance)),
            (1, version_1(&values, m)),
        ] {
            let path = scratch_file(&format!("v{version}.dtm"), &bytes);
            let whole = SliceFile::open(&path, Variant::English, m, n).expect("valid");
            assert_eq!(whole.version(), version);
            assert_eq!(whole.decode_all(&path).unwrap(), values);
            let file = BlockFile::open(&path, Variant::English, m, n).expect("valid");
            assert_eq!(file.version(), version);
            let (mut raw, mut out) = (Vec::new(), Vec::new());
            let mut all = Vec::new();
            for block in 0..values.len().div_ceil(BLOCK) {
                file.read_block(block, &mut raw, &mut out).unwrap();
                all.extend_from_slice(&out);
            }
            assert_eq!(all, values);
            assert!(file.read_block(99, &mut raw, &mut out).is_err());
        }
    }

    #[test]
    fn a_damaged_block_is_caught_when_read_alone() {
        let (values, m, n) = sample();
        let mut bytes = encode(Variant::English, m, &values, ValueKind::Distance);
        // A value byte of the last block: the header and index stay valid.
        let last = bytes.len() - 2;
        bytes[last] ^= 0x40;
        let path = scratch_file("damaged.dtm", &bytes);
        let file = BlockFile::open(&path, Variant::English, m, n).expect("header and index valid");
        let (mut raw, mut out) = (Vec::new(), Vec::new());
        file.read_block(0, &mut raw, &mut out)
            .expect("the first block is intact");
        let error = file
            .read_block(values.len().div_ceil(BLOCK) - 1, &mut raw, &mut out)
            .expect_err("the last block is damaged");
        assert!(error.contains("checksum"), "{error}");
        // A block that failed is checked again when read again (only a clean one is not).
        let error = file
            .read_block(values.len().div_ceil(BLOCK) - 1, &mut raw, &mut out)
            .expect_err("the last block is still damaged");
        assert!(error.contains("checksum"), "{error}");
        // Whole, the same file is refused by its file checksum.
        let error = SliceFile::open(&path, Variant::English, m, n).expect_err("refused");
        assert!(error.reason.contains("checksum"), "{error}");
        // A truncated file is refused on opening, before any block is read.
        let path = scratch_file("short.dtm", &bytes[..bytes.len() - 3]);
        let error = BlockFile::open(&path, Variant::English, m, n).expect_err("refused");
        assert!(error.reason.contains("truncated"), "{error}");
    }

    #[test]
    fn runs_of_every_length_decode_exactly_and_overlong_runs_are_refused() {
        // Runs of 1 to 40 values, around the short-run store's length, back to back.
        let values: Vec<u8> = (1..=40usize)
            .flat_map(|length| std::iter::repeat_n(length as u8, length))
            .collect();
        let mut coded = Vec::new();
        encode_block(&values, &mut coded);
        assert_eq!(coded[0], 1, "coded as runs");
        let mut out = Vec::new();
        assert_eq!(decode_block(&coded, values.len(), &mut out), Some(()));
        assert_eq!(out, values);
        // Fewer values expected than the runs hold: malformed, whatever the run's length.
        for expected in [values.len() - 1, values.len() - 30, 3] {
            assert_eq!(decode_block(&coded, expected, &mut out), None, "{expected}");
        }
        // More expected than the runs hold: malformed too.
        assert_eq!(decode_block(&coded, values.len() + 1, &mut out), None);
    }

    #[test]
    fn damaged_files_are_refused() {
        let (values, m, n) = sample();
        let good = encode(Variant::English, m, &values, ValueKind::Distance);
        let path = Path::new("x.dtm");
        let reason = |bytes: Vec<u8>, variant: Variant| {
            SliceFile::parse(path, bytes, variant, m, n)
                .expect_err("refused")
                .reason
        };
        assert!(reason(good[..good.len() - 1].to_vec(), Variant::English).contains("truncated"));
        assert!(reason(good[..20].to_vec(), Variant::English).contains("truncated"));
        let mut flipped = good.clone();
        let last = flipped.len() - 5;
        flipped[last] ^= 1;
        assert!(reason(flipped, Variant::English).contains("checksum"));
        let mut magic = good.clone();
        magic[0] = b'X';
        assert!(reason(magic, Variant::English).contains("magic"));
        assert!(reason(good.clone(), Variant::Russian).contains("made for english"));
    }

    /// A win/draw/loss file says so (version 3, kind 1) and reads back; a kind byte that
    /// does not match its version is refused.
    #[test]
    fn win_draw_loss_files_carry_their_kind() {
        let (_, m, n) = sample();
        let values: Vec<u8> = (0..n).map(|i| [0, 1, 2][(i / 100 % 3) as usize]).collect();
        let bytes = encode(Variant::English, m, &values, ValueKind::WinDrawLoss);
        let path = scratch_file("wdl.dtm", &bytes);
        let whole = SliceFile::open(&path, Variant::English, m, n).expect("valid");
        assert_eq!(
            (whole.version(), whole.kind(), whole.longest()),
            (3, ValueKind::WinDrawLoss, 0)
        );
        assert_eq!(whole.decode_all(&path).unwrap(), values);
        let file = BlockFile::open(&path, Variant::English, m, n).expect("valid");
        assert_eq!(file.kind(), ValueKind::WinDrawLoss);
        let distance = encode(Variant::English, m, &values, ValueKind::Distance);
        let file =
            SliceFile::parse(&path, distance.clone(), Variant::English, m, n).expect("valid");
        assert_eq!((file.version(), file.kind()), (2, ValueKind::Distance));
        for (version, kind) in [(2u16, 1u8), (3, 0)] {
            let mut bad = distance.clone();
            bad[8..10].copy_from_slice(&version.to_le_bytes());
            bad[15] = kind;
            let sum = checksum(&bad);
            bad[32..40].copy_from_slice(&sum.to_le_bytes());
            let error = SliceFile::parse(&path, bad, Variant::English, m, n).expect_err("refused");
            assert!(error.reason.contains("value kind"), "{error}");
        }
    }
}
