//! Parts of a slice by how far each side's most advanced man stands from its crowning row: their index and walk, so that generation can solve a large slice one part at a time.
//!
//! Men only move forward, so a quiet move never takes a side's most advanced man further
//! from its crowning row: it keeps the *lead* (that distance, in rows) or shortens it. A
//! slice therefore splits into parts by the two sides' leads, and a quiet move leads from a
//! part either into the twin's part with the same leads or into one with a smaller sum,
//! which is solved first. Chinook's and Kingsrow's databases subdivide their slices the same
//! way (by the rank of each side's leading checker; Lake, Schaeffer and Lu, "Solving large
//! retrograde analysis problems using a network of workstations", 1994), so that the
//! working set of one part fits in memory.
//!
//! A part's index is perfect like the slice's ([`super::Indexer`]): white men are ranked
//! (colex) over their squares at the lead's distance or further in the order furthest first,
//! where the placements with no man on the lead's row are exactly the lowest ranks and are
//! skipped; black men likewise over theirs minus the white men; the kings as in the slice.

use super::{Blocks, Indexer, unrank_within};
use super::{
    Material, Placement, binomial, first_kings, next_kings, next_within, rank_within, turned,
};
use crate::board::Geometry;
use crate::rules::Rules;

/// How far each side's most advanced man stands from its crowning row, in rows (from 1 to
/// the rows of the board less one); 0 for a side without men.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lead {
    /// White's lead (White moves up, towards square 1).
    pub white: u8,
    /// Black's lead.
    pub black: u8,
}

impl Lead {
    /// The leads of a placement on the board of `R`.
    #[inline]
    pub fn of<R: Rules>(p: &Placement) -> Lead {
        let per_row = R::Geometry::PER_ROW as u32;
        let rows = (R::Geometry::SQUARES as u32 / per_row) as u8;
        let white = if p.white_men == 0 {
            0
        } else {
            (p.white_men.trailing_zeros() / per_row) as u8
        };
        let black = if p.black_men == 0 {
            0
        } else {
            rows - 1 - ((63 - p.black_men.leading_zeros()) / per_row) as u8
        };
        Lead { white, black }
    }

    /// The leads seen from the other side: those of the twin slice's part that quiet moves
    /// lead into.
    pub fn flipped(self) -> Lead {
        Lead {
            white: self.black,
            black: self.white,
        }
    }

    /// Every lead the men of `material` may have on the board of `R`, in the order parts
    /// are solved: smaller sums first (a quiet move only ever shortens a lead).
    pub fn all<R: Rules>(material: Material) -> Vec<Lead> {
        let rows = (R::Geometry::SQUARES / R::Geometry::PER_ROW) as u8;
        let leads = |men: u8| {
            if men == 0 {
                vec![0]
            } else {
                (1..rows).collect()
            }
        };
        let mut all: Vec<Lead> = leads(material.white_men)
            .into_iter()
            .flat_map(|white| {
                leads(material.black_men)
                    .into_iter()
                    .map(move |black| Lead { white, black })
            })
            .collect();
        all.sort_by_key(|lead| (lead.white + lead.black, *lead));
        all
    }
}

/// The squares of the rows from `first` to `last` (PDN order, row 0 at the top).
pub(super) fn rows_mask<G: Geometry>(first: usize, last: usize) -> u64 {
    if first > last {
        return 0;
    }
    let per_row = G::PER_ROW;
    let below = |row: usize| {
        let squares = row * per_row;
        if squares >= 64 {
            u64::MAX
        } else {
            (1u64 << squares) - 1
        }
    };
    below(last + 1) & !below(first)
}

/// The perfect index of one part of a slice: the placements whose leads are [`Lead`].
#[derive(Clone, Debug)]
pub struct LeadIndexer {
    blocks: Blocks,
    lead: Lead,
    squares: usize,
    /// White men's squares at the lead's distance or further, turned (furthest first).
    white_turned: u64,
    /// White-men placements with no man on the lead's row: the colex ranks skipped.
    white_skip: u64,
    /// Black men's squares at the lead's distance or further.
    black_reach: u64,
    /// Black men's squares further than the lead.
    black_beyond: u64,
    size: u64,
}

impl LeadIndexer {
    /// The index of the part of `material` with leads `lead` on the board of `R` (a part
    /// may be empty: [`LeadIndexer::size`] 0).
    pub fn new<R: Rules>(material: Material, lead: Lead) -> LeadIndexer {
        type G<R> = <R as Rules>::Geometry;
        let squares = G::<R>::SQUARES;
        let rows = squares / G::<R>::PER_ROW;
        let wm = usize::from(material.white_men);
        let bm = usize::from(material.black_men);
        // White's row r is r rows from its crown; Black's row r is rows - 1 - r from its own.
        let (white_reach, white_beyond) = if wm == 0 {
            (0, 0)
        } else {
            let a = usize::from(lead.white);
            (
                rows_mask::<G<R>>(a, rows - 1),
                rows_mask::<G<R>>(a + 1, rows - 1),
            )
        };
        let (black_reach, black_beyond) = if bm == 0 {
            (0, 0)
        } else {
            let last = rows - 1 - usize::from(lead.black);
            let beyond = if last == 0 {
                0
            } else {
                rows_mask::<G<R>>(0, last - 1)
            };
            (rows_mask::<G<R>>(0, last), beyond)
        };
        let white_skip = if wm == 0 {
            0
        } else {
            binomial(white_beyond.count_ones() as usize, wm)
        };
        let white_ranks = if wm == 0 {
            1
        } else {
            binomial(white_reach.count_ones() as usize, wm) - white_skip
        };
        let white_turned = turned(white_reach, squares);
        let white_at = |rank: u64| {
            if wm == 0 {
                0
            } else {
                turned(unrank_within(rank + white_skip, wm, white_turned), squares)
            }
        };
        let black_counts = (0..white_ranks).map(|rank| {
            let white = white_at(rank);
            black_count(black_reach & !white, black_beyond & !white, bm)
        });
        let blocks = Blocks::new(material, squares, black_counts);
        LeadIndexer {
            size: blocks.size(),
            blocks,
            lead,
            squares,
            white_turned,
            white_skip,
            black_reach,
            black_beyond,
        }
    }

    /// The slice.
    pub fn material(&self) -> Material {
        self.blocks.material
    }

    /// The part's leads.
    pub fn lead(&self) -> Lead {
        self.lead
    }

    /// Positions in the part.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The index of a placement of this part (its leads must be the part's).
    #[inline]
    pub fn index(&self, p: &Placement) -> u64 {
        let m = self.blocks.material;
        let white_rank = if m.white_men == 0 {
            0
        } else {
            rank_within(turned(p.white_men, self.squares), self.white_turned) - self.white_skip
        };
        let black_rank = if m.black_men == 0 {
            0
        } else {
            let beyond = (self.black_beyond & !p.white_men).count_ones() as usize;
            rank_within(p.black_men, self.black_reach & !p.white_men)
                - binomial(beyond, usize::from(m.black_men))
        };
        self.blocks.index(p, white_rank, black_rank)
    }

    /// The placement with index `index` (below [`LeadIndexer::size`]).
    pub fn placement(&self, index: u64) -> Placement {
        let (white_rank, black_rank, kings_rank) = self.blocks.ranks(index);
        let white_men = self.white_men_at(white_rank);
        let black_men = self.black_men_at(black_rank, white_men);
        self.blocks.placement(white_men, black_men, kings_rank)
    }

    fn white_men_at(&self, rank: u64) -> u64 {
        let wm = usize::from(self.blocks.material.white_men);
        if wm == 0 {
            return 0;
        }
        turned(
            unrank_within(rank + self.white_skip, wm, self.white_turned),
            self.squares,
        )
    }

    /// The black men of rank `rank` among the placements the white men `white` leave (the
    /// part's first when `rank` is 0).
    fn black_men_at(&self, rank: u64, white: u64) -> u64 {
        let bm = usize::from(self.blocks.material.black_men);
        if bm == 0 {
            return 0;
        }
        let beyond = (self.black_beyond & !white).count_ones() as usize;
        unrank_within(rank + binomial(beyond, bm), bm, self.black_reach & !white)
    }
}

/// The black-men placements of `men` men over `reach` with at least one outside `beyond`
/// (a subset of `reach` made of its lowest squares).
fn black_count(reach: u64, beyond: u64, men: usize) -> u64 {
    if men == 0 {
        return 1;
    }
    binomial(reach.count_ones() as usize, men) - binomial(beyond.count_ones() as usize, men)
}

/// The placements of a part in index order, each found from the one before by a colex step
/// (see [`super::Walker`]).
#[derive(Clone, Debug)]
pub struct LeadWalker<'a> {
    indexer: &'a LeadIndexer,
    current: Placement,
}

impl<'a> LeadWalker<'a> {
    /// A walk that starts at `index` (below [`LeadIndexer::size`]).
    pub fn new(indexer: &'a LeadIndexer, index: u64) -> LeadWalker<'a> {
        LeadWalker {
            indexer,
            current: indexer.placement(index),
        }
    }

    /// The placement at the walk's index.
    #[inline(always)]
    pub fn placement(&self) -> &Placement {
        &self.current
    }

    /// Moves to the next index; `false` after the last placement of the part.
    #[inline]
    pub fn advance(&mut self) -> bool {
        let ix = self.indexer;
        let (m, all_squares) = (ix.blocks.material, ix.blocks.all_squares);
        let p = &mut self.current;
        if next_kings(p, all_squares, m) {
            return true;
        }
        // The colex successor of a set with a man on the lead's row has one too: the
        // placements of a part are the tail of the colex order.
        if let Some(bm) = next_within(p.black_men, ix.black_reach & !p.white_men) {
            p.black_men = bm;
        } else {
            // The next white men that leave the black men a placement.
            let mut white = p.white_men;
            loop {
                let Some(next) = next_within(turned(white, ix.squares), ix.white_turned) else {
                    return false;
                };
                white = turned(next, ix.squares);
                let bm = usize::from(m.black_men);
                if black_count(ix.black_reach & !white, ix.black_beyond & !white, bm) > 0 {
                    break;
                }
            }
            p.white_men = white;
            p.black_men = ix.black_men_at(0, white);
        }
        first_kings(p, all_squares, m);
        true
    }
}

/// True when the parts of `material` add up to its slice (each placement lies in the one
/// part [`Lead::of`] names, so no two overlap).
pub fn parts_cover<R: Rules>(material: Material) -> bool {
    let whole = Indexer::new::<R>(material).size();
    let parts: u64 = Lead::all::<R>(material)
        .into_iter()
        .map(|lead| LeadIndexer::new::<R>(material, lead).size())
        .sum();
    whole == parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{English, International};

    /// Every part's index round-trips, its walk follows its index, and every placement of
    /// the slice falls in the part its leads name.
    fn check<R: Rules>(material: Material) {
        assert!(parts_cover::<R>(material), "{material}");
        for lead in Lead::all::<R>(material) {
            let part = LeadIndexer::new::<R>(material, lead);
            if part.size() == 0 {
                continue;
            }
            let mut walker = LeadWalker::new(&part, 0);
            let mut index = 0;
            loop {
                let p = *walker.placement();
                assert_eq!(p.material(), material);
                assert_eq!(Lead::of::<R>(&p), lead, "{material} {index}");
                assert_eq!(part.index(&p), index, "{material} {lead:?} {index}");
                if index % 37 == 0 {
                    assert_eq!(part.placement(index), p, "{material} {lead:?} {index}");
                }
                index += 1;
                if !walker.advance() {
                    break;
                }
            }
            assert_eq!(index, part.size(), "{material} {lead:?}");
        }
        let whole = Indexer::new::<R>(material);
        let step = (whole.size() / 500).max(1);
        let mut index = 0;
        while index < whole.size() {
            let p = whole.placement(index);
            let part = LeadIndexer::new::<R>(material, Lead::of::<R>(&p));
            assert_eq!(part.placement(part.index(&p)), p, "{material} {index}");
            index += step;
        }
    }

    #[test]
    fn parts_partition_every_small_slice() {
        Material::all::<English>(4)
            .into_iter()
            .for_each(check::<English>);
        Material::all::<International>(3)
            .into_iter()
            .for_each(check::<International>);
        check::<English>(Material::new(2, 1, 2, 0));
        check::<International>(Material::new(2, 0, 2, 0));
    }

    #[test]
    fn leads_name_the_most_advanced_men() {
        // English: White's man on square 5 stands on row 1; Black's on square 28 on row 6.
        let p = Placement {
            white_men: 1 << 4 | 1 << 20,
            white_kings: 0,
            black_men: 1 << 27 | 1 << 2,
            black_kings: 0,
        };
        assert_eq!(Lead::of::<English>(&p), Lead { white: 1, black: 1 });
        let kings_only = Placement {
            white_kings: 1,
            black_kings: 2,
            ..Placement::default()
        };
        assert_eq!(
            Lead::of::<English>(&kings_only),
            Lead { white: 0, black: 0 }
        );
        assert_eq!(Lead::all::<English>(Material::new(0, 2, 0, 1)).len(), 1);
        assert_eq!(Lead::all::<English>(Material::new(1, 0, 1, 0)).len(), 49);
    }
}
