//! The endgame-table file format: a checked header, a block index and run-length-coded blocks, written atomically.
//!
//! Layout (all integers little-endian):
//! ```text
//!  0  magic "DAMKATB\0"         8 bytes
//!  8  version (1)               u16
//! 10  variant family            u8   (index in Variant::ALL)
//! 11  material                  4 x u8 (white men, white kings, black men, black kings)
//! 15  reserved (0)              u8
//! 16  positions                 u64  (the slice's perfect-index size)
//! 24  values per block          u32
//! 28  blocks                    u32
//! 32  checksum                  u64  (FNV-1a 64 of every other byte of the file)
//! 40  longest distance (plies)  u16
//! 42  reserved (0)              6 bytes
//! 48  block offsets             (blocks + 1) x u64, from the start of the data
//!     data                      the blocks
//! ```
//! A block codes `values per block` one-byte values (see [`super::Value::code`]) either raw
//! (first byte 0) or as runs (first byte 1, then pairs of a value byte and a LEB128 run
//! length), whichever is shorter. The index gives random access to any block; a value is
//! found by decoding at most one block.

use super::Material;
use crate::rules::Variant;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"DAMKATB\0";
/// The format version this build reads and writes.
pub const VERSION: u16 = 1;
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

fn fnv1a(hash: u64, bytes: &[u8]) -> u64 {
    let mut h = hash;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

const FNV_OFFSET: u64 = 0xCBF2_9CE4_8422_2325;

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

/// Decodes a block into `out` (cleared first); `None` when the block is malformed.
fn decode_block(block: &[u8], expected: usize, out: &mut Vec<u8>) -> Option<()> {
    out.clear();
    let (&mode, rest) = block.split_first()?;
    match mode {
        0 => out.extend_from_slice(rest),
        1 => {
            let mut i = 0;
            while i < rest.len() {
                let (value, length) = next_run(rest, &mut i)?;
                if out.len() + length > expected {
                    return None;
                }
                out.resize(out.len() + length, value);
            }
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

/// Encodes a slice's values as a complete file image.
pub fn encode(variant: Variant, material: Material, values: &[u8]) -> Vec<u8> {
    let blocks = values.len().div_ceil(BLOCK);
    let mut data = Vec::new();
    let mut offsets = Vec::with_capacity(blocks + 1);
    for chunk in values.chunks(BLOCK) {
        offsets.push(data.len() as u64);
        encode_block(chunk, &mut data);
    }
    offsets.push(data.len() as u64);
    let longest = values
        .iter()
        .map(|&c| u16::from(c).saturating_sub(1))
        .max()
        .unwrap_or(0);
    let mut file = Vec::with_capacity(HEADER + offsets.len() * 8 + data.len());
    file.extend_from_slice(MAGIC);
    file.extend_from_slice(&VERSION.to_le_bytes());
    file.push(variant_code(variant));
    file.extend_from_slice(&[
        material.white_men,
        material.white_kings,
        material.black_men,
        material.black_kings,
        0,
    ]);
    file.extend_from_slice(&(values.len() as u64).to_le_bytes());
    file.extend_from_slice(&(BLOCK as u32).to_le_bytes());
    file.extend_from_slice(&(blocks as u32).to_le_bytes());
    file.extend_from_slice(&0u64.to_le_bytes());
    file.extend_from_slice(&longest.to_le_bytes());
    file.extend_from_slice(&[0; 6]);
    for offset in &offsets {
        file.extend_from_slice(&offset.to_le_bytes());
    }
    file.extend_from_slice(&data);
    let sum = checksum(&file);
    file[32..40].copy_from_slice(&sum.to_le_bytes());
    file
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

/// A checked slice file in memory.
#[derive(Debug)]
pub struct SliceFile {
    bytes: Vec<u8>,
    positions: u64,
    block: usize,
    blocks: usize,
    longest: u16,
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
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
        let fail = |reason: String| FileError {
            path: path.to_path_buf(),
            reason,
        };
        if bytes.len() < HEADER {
            return Err(fail(format!(
                "truncated: {} bytes, shorter than the {HEADER}-byte header",
                bytes.len()
            )));
        }
        if &bytes[..8] != MAGIC {
            return Err(fail("not a damka endgame table (bad magic)".into()));
        }
        let version = u16::from_le_bytes([bytes[8], bytes[9]]);
        if version != VERSION {
            return Err(fail(format!(
                "format version {version}, this build reads version {VERSION}"
            )));
        }
        if bytes[10] != variant_code(variant) {
            let found = Variant::ALL
                .get(usize::from(bytes[10]))
                .map_or("an unknown variant", |v| v.name());
            return Err(fail(format!("made for {found}, not {}", variant.name())));
        }
        let stored = Material::new(bytes[11], bytes[12], bytes[13], bytes[14]);
        if stored != material {
            return Err(fail(format!("holds slice {stored}, not {material}")));
        }
        let count = u64_at(&bytes, 16);
        if count != positions {
            return Err(fail(format!(
                "holds {count} positions, the slice has {positions}"
            )));
        }
        let block = u32::from_le_bytes(bytes[24..28].try_into().expect("4 bytes")) as usize;
        let blocks = u32::from_le_bytes(bytes[28..32].try_into().expect("4 bytes")) as usize;
        if block == 0 || blocks != (positions as usize).div_ceil(block) {
            return Err(fail(format!(
                "bad block layout ({blocks} blocks of {block})"
            )));
        }
        let data_start = HEADER + (blocks + 1) * 8;
        if bytes.len() < data_start {
            return Err(fail(format!(
                "truncated: {} bytes, the block index alone needs {data_start}",
                bytes.len()
            )));
        }
        let data_len = u64_at(&bytes, HEADER + blocks * 8);
        if bytes.len() as u64 != data_start as u64 + data_len {
            return Err(fail(format!(
                "truncated or padded: {} bytes, the index says {}",
                bytes.len(),
                data_start as u64 + data_len
            )));
        }
        let stored_sum = u64_at(&bytes, 32);
        if checksum(&bytes) != stored_sum {
            return Err(fail("checksum mismatch (the file is corrupt)".into()));
        }
        let mut previous = 0;
        for b in 0..=blocks {
            let offset = u64_at(&bytes, HEADER + b * 8);
            if offset < previous || offset > data_len {
                return Err(fail(format!("block index entry {b} out of order")));
            }
            previous = offset;
        }
        let longest = u16::from_le_bytes([bytes[40], bytes[41]]);
        Ok(SliceFile {
            bytes,
            positions,
            block,
            blocks,
            longest,
        })
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

    /// The longest win or loss in the slice, plies.
    pub fn longest(&self) -> u16 {
        self.longest
    }

    /// Bytes the file takes.
    pub fn file_size(&self) -> usize {
        self.bytes.len()
    }

    fn block_bytes(&self, block: usize) -> &[u8] {
        let data = HEADER + (self.blocks + 1) * 8;
        let start = u64_at(&self.bytes, HEADER + block * 8) as usize;
        let end = u64_at(&self.bytes, HEADER + (block + 1) * 8) as usize;
        &self.bytes[data + start..data + end]
    }

    fn block_len(&self, block: usize) -> usize {
        (self.positions as usize - block * self.block).min(self.block)
    }

    /// One value, decoding only its block (random access without a full decode).
    pub fn value_code(&self, index: u64) -> Option<u8> {
        let block = index as usize / self.block;
        let mut offset = index as usize % self.block;
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
        let mut values = Vec::with_capacity(self.positions as usize);
        let mut block_values = Vec::with_capacity(self.block);
        for block in 0..self.blocks {
            decode_block(
                self.block_bytes(block),
                self.block_len(block),
                &mut block_values,
            )
            .ok_or_else(|| FileError {
                path: path.to_path_buf(),
                reason: format!("block {block} is malformed"),
            })?;
            values.extend_from_slice(&block_values);
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        (0..10_000u32)
            .map(|i| if i % 7 == 0 { (i % 200) as u8 } else { 3 })
            .collect()
    }

    #[test]
    fn encode_then_parse_gives_the_values_back() {
        let values = sample();
        let m = Material::new(0, 1, 0, 2);
        let bytes = encode(Variant::English, m, &values);
        let path = Path::new("x.dtm");
        let file =
            SliceFile::parse(path, bytes, Variant::English, m, values.len() as u64).expect("valid");
        assert_eq!(file.decode_all(path).unwrap(), values);
        for (i, &v) in values.iter().enumerate().step_by(13) {
            assert_eq!(file.value_code(i as u64), Some(v));
        }
    }

    #[test]
    fn damaged_files_are_refused() {
        let values = sample();
        let m = Material::new(0, 1, 0, 2);
        let good = encode(Variant::English, m, &values);
        let path = Path::new("x.dtm");
        let n = values.len() as u64;
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
}
