//! Parts of a slice pair made of whole placements of the men, in order of how far the men stand from their crowning rows, so that generation can solve a pair of any size a part at a time.
//!
//! A slice's index is men-major ([`Indexer`]): the positions that share one placement of
//! the men (a *unit*) are [`Indexer::unit_size`] consecutive indexes, one for each placement
//! of the kings. A quiet king move keeps the unit; a quiet man move takes one man a row
//! nearer its crowning row, so the unit's *distance* (the rows every man of both sides
//! stands from its crowning row, summed) drops by exactly one; every other move (a capture,
//! a promotion) leaves the pair. The units of a pair sorted by distance and cut into runs
//! of at most a given number of positions are therefore parts that can be solved in
//! order: a part's moves stay in it or lead into parts solved before it, and its
//! predecessors lie in it or in parts solved after it. Each unit of a slice goes into the
//! same part as its colour-reversed unit in the twin slice (where its quiet moves lead).
//!
//! Chinook's and Kingsrow's databases subdivide their slices by the rank of each side's
//! leading checker (Lake, Schaeffer and Lu, "Solving large retrograde analysis problems
//! using a network of workstations", 1994) so that one part fits in memory; ordering by the
//! summed distance carries the same idea down to single placements of the men, so that a
//! part can be as small as the memory bound needs.

use super::{Indexer, Material, Placement, turned};
use crate::board::Geometry;
use crate::rules::Rules;

/// The rows each man of a placement stands from its crowning row, summed over both sides
/// (White crowns on row 0, the top; Black on the last row).
pub fn distance<R: Rules>(p: &Placement) -> u32 {
    type G<R> = <R as Rules>::Geometry;
    let per_row = G::<R>::PER_ROW;
    let rows = G::<R>::SQUARES / per_row;
    let row_squares = (1u64 << per_row) - 1;
    (0..rows)
        .map(|row| {
            let mask = row_squares << (row * per_row);
            (p.white_men & mask).count_ones() * row as u32
                + (p.black_men & mask).count_ones() * (rows - 1 - row) as u32
        })
        .sum()
}

/// The placement seen from the other side: the one of the twin slice that is the same
/// position with the other side to move ([`Placement::of`] turns the board so).
pub fn flipped<R: Rules>(p: &Placement) -> Placement {
    let n = R::Geometry::SQUARES;
    Placement {
        white_men: turned(p.black_men, n),
        white_kings: turned(p.black_kings, n),
        black_men: turned(p.white_men, n),
        black_kings: turned(p.white_kings, n),
    }
}

/// One slice's share of the parts of a pair.
#[derive(Clone, Debug)]
struct SliceUnits {
    /// The part of each unit of the slice.
    part_of: Vec<u32>,
    /// The place of each unit among its part's units in this slice.
    place: Vec<u32>,
    /// Where each part's units start in `units` (one more entry than parts).
    starts: Vec<u32>,
    /// Every unit, part after part, each part's in index order.
    units: Vec<u32>,
}

/// The parts of one slice pair: a slice and its colour-reversed twin, or a slice that is
/// its own twin (see the module's introduction).
#[derive(Clone, Debug)]
pub struct UnitParts {
    /// Positions of one unit: the placements of the kings, the same in both slices.
    unit_size: u64,
    slices: Vec<SliceUnits>,
    /// The largest distance of each part's units: a man's step taken back adds one to the
    /// distance, so from a unit of this distance it always leads to a later part.
    top_distance: Vec<u32>,
}

impl UnitParts {
    /// The parts of `pair` (one slice, or a slice and its twin) on the board of `R`, each of
    /// at most `target` positions in all its slices, except that a unit with its twin
    /// always makes a part alone when that is more.
    pub fn new<R: Rules>(pair: &[Material], target: u64) -> UnitParts {
        let indexers: Vec<Indexer> = pair.iter().map(|&m| Indexer::new::<R>(m)).collect();
        let unit_size = indexers[0].unit_size();
        debug_assert!(indexers.iter().all(|ix| ix.unit_size() == unit_size));
        let count = |ix: &Indexer| (ix.size() / unit_size) as usize;
        let twin_slice = pair.len() - 1;
        let mut part_of: Vec<Vec<u32>> = indexers
            .iter()
            .map(|ix| vec![u32::MAX; count(ix)])
            .collect();
        let units = count(&indexers[0]);
        let first_of = |unit: usize| indexers[0].placement(unit as u64 * unit_size);
        let twin_of =
            |p: &Placement| (indexers[twin_slice].index(&flipped::<R>(p)) / unit_size) as usize;
        let mut order: Vec<(u32, u32)> = (0..units)
            .map(|unit| (distance::<R>(&first_of(unit)), unit as u32))
            .collect();
        order.sort_unstable();
        let (mut part, mut filled) = (0u32, 0u64);
        let mut top_distance = Vec::new();
        for (distance, unit) in order {
            let unit = unit as usize;
            if part_of[0][unit] != u32::MAX {
                // A slice that is its own twin: given its part with its twin unit.
                continue;
            }
            let twin = twin_of(&first_of(unit));
            let positions = if pair.len() == 1 && twin == unit {
                unit_size
            } else {
                2 * unit_size
            };
            if filled > 0 && filled + positions > target {
                part += 1;
                filled = 0;
            }
            part_of[0][unit] = part;
            part_of[twin_slice][twin] = part;
            filled += positions;
            // The units come in order of distance: the part's last is its largest.
            if top_distance.len() == part as usize {
                top_distance.push(distance);
            } else {
                top_distance[part as usize] = distance;
            }
        }
        let parts = if units == 0 { 0 } else { part as usize + 1 };
        let slices = part_of
            .into_iter()
            .map(|part_of| {
                debug_assert!(part_of.iter().all(|&p| p != u32::MAX));
                let mut starts = vec![0u32; parts + 1];
                for &p in &part_of {
                    starts[p as usize + 1] += 1;
                }
                for p in 0..parts {
                    starts[p + 1] += starts[p];
                }
                let mut next = starts.clone();
                let mut units = vec![0u32; part_of.len()];
                let mut place = vec![0u32; part_of.len()];
                for (unit, &p) in part_of.iter().enumerate() {
                    let at = &mut next[p as usize];
                    place[unit] = *at - starts[p as usize];
                    units[*at as usize] = unit as u32;
                    *at += 1;
                }
                SliceUnits {
                    part_of,
                    place,
                    starts,
                    units,
                }
            })
            .collect();
        UnitParts {
            unit_size,
            slices,
            top_distance,
        }
    }

    /// The largest distance ([`distance`]) of the units of part `part`: a man's step taken
    /// back from a position of this distance or more leads out of the part.
    pub fn top_distance(&self, part: usize) -> u32 {
        self.top_distance[part]
    }

    /// The parts, in the order they are solved.
    pub fn parts(&self) -> usize {
        self.slices[0].starts.len() - 1
    }

    /// Positions of one unit.
    pub fn unit_size(&self) -> u64 {
        self.unit_size
    }

    /// Positions of part `part` in slice `slice` of the pair (0, or 1 for the twin).
    pub fn size(&self, slice: usize, part: usize) -> u64 {
        let starts = &self.slices[slice].starts;
        u64::from(starts[part + 1] - starts[part]) * self.unit_size
    }

    /// The part's index of the position of slice index `index`, or `None` when it lies in
    /// another part.
    #[inline]
    pub fn local(&self, slice: usize, part: usize, index: u64) -> Option<u64> {
        let units = &self.slices[slice];
        let unit = (index / self.unit_size) as usize;
        (units.part_of[unit] as usize == part)
            .then(|| u64::from(units.place[unit]) * self.unit_size + index % self.unit_size)
    }

    /// The slice index of the part's index `local`.
    #[inline]
    pub fn whole(&self, slice: usize, part: usize, local: u64) -> u64 {
        let units = &self.slices[slice];
        let unit = units.units[units.starts[part] as usize + (local / self.unit_size) as usize];
        u64::from(unit) * self.unit_size + local % self.unit_size
    }

    /// The slice index of the part's index `local` and how many positions from there on
    /// follow it in both (the rest of its unit): a run of the part that is a run of the
    /// slice, so that copying a part's values needs no index a position.
    #[inline]
    pub fn run(&self, slice: usize, part: usize, local: u64) -> (u64, u64) {
        (
            self.whole(slice, part, local),
            self.unit_size - local % self.unit_size,
        )
    }

    /// Bytes the tables of the parts of a pair take at most (see [`UnitParts::new`]): three
    /// 4-byte entries a unit of each slice, and 8 bytes a unit of the first slice while its
    /// units are sorted.
    pub fn bytes<R: Rules>(pair: &[Material]) -> u64 {
        let units = |m: Material| {
            let ix = Indexer::new::<R>(m);
            ix.size() / ix.unit_size()
        };
        pair.iter().map(|&m| units(m) * 12).sum::<u64>() + units(pair[0]) * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{English, International};

    /// Every position of the pair lies in exactly one part, whose index round-trips; each
    /// unit's twin lies in the same part; and every quiet move leads into the same part or
    /// one before it (captures and promotions leave the pair).
    fn check<R: Rules>(material: Material, target: u64) {
        let twin = material.flipped();
        let pair = if twin == material {
            vec![material]
        } else {
            vec![material, twin]
        };
        let parts = UnitParts::new::<R>(&pair, target);
        let indexers: Vec<Indexer> = pair.iter().map(|&m| Indexer::new::<R>(m)).collect();
        let mut largest = 0;
        for part in 0..parts.parts() {
            let size: u64 = (0..pair.len()).map(|s| parts.size(s, part)).sum();
            assert!(size > 0, "{material}: part {part} is empty");
            largest = largest.max(size);
            for slice in 0..pair.len() {
                let size = parts.size(slice, part);
                for local in 0..size {
                    let index = parts.whole(slice, part, local);
                    assert_eq!(parts.local(slice, part, index), Some(local), "{material}");
                    // A run goes on in the slice as in the part.
                    let (start, run) = parts.run(slice, part, local);
                    assert_eq!(start, index, "{material}");
                    assert!(run >= 1, "{material}");
                    if run > 1 && local + 1 < size {
                        assert_eq!(parts.whole(slice, part, local + 1), index + 1);
                    }
                }
            }
        }
        assert!(largest <= target.max(2 * parts.unit_size()), "{material}");
        let total: u64 = (0..parts.parts())
            .flat_map(|part| (0..pair.len()).map(move |s| (s, part)))
            .map(|(s, part)| parts.size(s, part))
            .sum();
        let whole: u64 = indexers.iter().map(Indexer::size).sum();
        assert_eq!(total, whole, "{material}: the parts cover the pair");
        let part_of = |slice: usize, index: u64| {
            (0..parts.parts())
                .find(|&part| parts.local(slice, part, index).is_some())
                .expect("in a part")
        };
        let twin_slice = pair.len() - 1;
        for (slice, ix) in indexers.iter().enumerate() {
            let step = (ix.size() / 300).max(1);
            let mut index = 0;
            while index < ix.size() {
                let placement = ix.placement(index);
                let part = part_of(slice, index);
                let other = if slice == 0 { twin_slice } else { 0 };
                let twin_index = indexers[other].index(&flipped::<R>(&placement));
                assert_eq!(part_of(other, twin_index), part, "{material} twin");
                let position = placement.position::<R>();
                for mv in position.legal_moves().iter() {
                    if mv.is_capture() || mv.promotes {
                        continue;
                    }
                    let child = Placement::of(&position.play(mv));
                    assert_eq!(child.material(), pair[other], "{material}");
                    let reached = part_of(other, indexers[other].index(&child));
                    assert!(reached <= part, "{material}: a move leads to a later part");
                }
                index += step;
            }
        }
    }

    #[test]
    fn parts_partition_pairs_in_solving_order() {
        for target in [1, 5_000, 100_000] {
            check::<English>(Material::new(2, 1, 2, 0), target);
            check::<English>(Material::new(1, 1, 1, 1), target);
            check::<English>(Material::new(0, 2, 3, 0), target);
            check::<International>(Material::new(2, 0, 1, 0), target);
        }
        // One part when the target holds the pair.
        let all = UnitParts::new::<English>(&[Material::new(1, 0, 1, 0)], u64::MAX);
        assert_eq!(all.parts(), 1);
    }

    #[test]
    fn distances_count_rows_to_the_crowning_row() {
        // English: White's man on square 5 stands on row 1 (1 row to go), on 21 row 5; Black's
        // on square 28 on row 6 (1 to go), on 3 row 0 (7 to go).
        let p = Placement {
            white_men: 1 << 4 | 1 << 20,
            white_kings: 0,
            black_men: 1 << 27 | 1 << 2,
            black_kings: 0,
        };
        assert_eq!(distance::<English>(&p), 1 + 5 + 1 + 7);
        assert_eq!(distance::<English>(&flipped::<English>(&p)), 14);
    }
}
