//! HMG as the REC paper models it (`directory.kind = "hmg"`, rec.md §2.7 / §6.18): one tag
//! and one sharer vector per aligned region of four lines (256 B with 64 B lines), 8K
//! entries, 8-way, FIFO, no GPM level. Coverage is up to 4x the baseline's, but the sharer
//! vector is shared by the four lines: a write to any of them invalidates all four lines at
//! every sharer but the writer (false-positive invalidations for the three lines not
//! written), and an eviction invalidates all four lines at every sharer.

use super::{bit, Cause, DirectoryOrg, Inval, SetTable};

/// Lines per HMG entry (rec.md §2.7: "track four cache lines using a single tag").
pub const LINES: u64 = 4;

/// One home's HMG-style directory.
#[derive(Clone, Debug)]
pub struct Hmg {
    home: u32,
    table: SetTable,
    sharers: Vec<u64>,
    /// Lines of the region actually recorded since allocation (statistics only: the
    /// modelled entry has no per-line bits).
    touched: Vec<u8>,
    hist: [u64; LINES as usize + 1],
}

impl Hmg {
    /// An empty directory of `entries` entries in sets of `ways`, for home node `home`.
    pub fn new(home: u32, entries: usize, ways: usize) -> Hmg {
        let table = SetTable::new(entries, ways, false);
        let n = table.capacity() as usize;
        Hmg {
            home,
            table,
            sharers: vec![0; n],
            touched: vec![0; n],
            hist: [0; LINES as usize + 1],
        }
    }
    /// The sharer mask recorded for `line`'s region (0 when untracked; inspection, scans
    /// every slot).
    pub fn sharers(&self, line: u64) -> u64 {
        self.table
            .find_any(line / LINES)
            .map_or(0, |s| self.sharers[s])
    }
    /// Invalidate every line of region `region` at `mask`: the line `written` (if in the
    /// region) with cause `Write`, the others with `other`.
    fn inval_region(region: u64, mask: u64, written: u64, other: Cause, out: &mut Vec<Inval>) {
        for i in 0..LINES {
            let line = region * LINES + i;
            out.push(Inval {
                line,
                sharers: mask,
                cause: if line == written { Cause::Write } else { other },
            });
        }
    }
    fn allocate(&mut self, line: u64, idx: u64, mask: u64, out: &mut Vec<Inval>) {
        let (slot, old) = self.table.allocate(line / LINES, idx / LINES);
        if old != SetTable::EMPTY {
            self.hist[self.touched[slot].count_ones() as usize] += 1;
            if self.sharers[slot] != 0 {
                Self::inval_region(old, self.sharers[slot], u64::MAX, Cause::Evict, out);
            }
        }
        self.sharers[slot] = mask;
        self.touched[slot] = 1 << (line % LINES);
    }
}

impl DirectoryOrg for Hmg {
    fn read(&mut self, line: u64, idx: u64, node: u32, out: &mut Vec<Inval>) {
        if node == self.home {
            return;
        }
        match self.table.find(line / LINES, idx / LINES) {
            Some(s) => {
                self.sharers[s] |= bit(node);
                self.touched[s] |= 1 << (line % LINES);
            }
            None => self.allocate(line, idx, bit(node), out),
        }
    }

    fn write(&mut self, line: u64, idx: u64, writer: Option<u32>, out: &mut Vec<Inval>) {
        let keep = match writer {
            Some(w) if w != self.home => bit(w),
            _ => 0,
        };
        match self.table.find(line / LINES, idx / LINES) {
            Some(s) => {
                let inv = self.sharers[s] & !keep;
                if inv != 0 {
                    Self::inval_region(line / LINES, inv, line, Cause::FalsePositive, out);
                }
                if keep == 0 {
                    self.sharers[s] = 0;
                    self.table.free(s);
                } else {
                    self.sharers[s] = keep;
                    self.touched[s] |= 1 << (line % LINES);
                }
            }
            None if keep != 0 => self.allocate(line, idx, keep, out),
            None => {}
        }
    }

    fn entries(&self) -> u64 {
        self.table.used()
    }
    fn entry_lines(&self) -> u64 {
        LINES
    }
    fn capacity(&self) -> u64 {
        self.table.capacity()
    }
    fn evictions(&self) -> u64 {
        self.table.evictions()
    }
    fn coalesced(&self) -> &[u64] {
        &self.hist
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// rec.md §2.7 / §3.8: GPU1 reads line 0 and GPU2 line 1 of one region; a home write
    /// of line 1 invalidates all four lines at both, though GPU1 never held line 1 and
    /// nobody held lines 2 and 3 (false positives).
    #[test]
    fn a_write_invalidates_all_four_lines_at_every_sharer() {
        let mut d = Hmg::new(0, 8, 8);
        let mut out = Vec::new();
        d.read(0, 0, 1, &mut out);
        d.read(1, 1, 2, &mut out);
        assert_eq!(d.entries(), 1, "one entry covers the region");
        d.write(1, 1, None, &mut out);
        assert_eq!(out.len(), 4);
        for (i, v) in out.iter().enumerate() {
            assert_eq!(v.line, i as u64);
            assert_eq!(v.sharers, 0b110);
            let want = if i == 1 {
                Cause::Write
            } else {
                Cause::FalsePositive
            };
            assert_eq!(v.cause, want);
        }
        assert_eq!(d.entries(), 0);
    }

    #[test]
    fn eviction_invalidates_the_whole_region() {
        let mut d = Hmg::new(0, 1, 1);
        let mut out = Vec::new();
        d.read(5, 5, 3, &mut out);
        d.read(6, 6, 3, &mut out);
        d.read(9, 9, 1, &mut out); // region 2 evicts region 1
        assert_eq!(out.len(), 4);
        assert!(out
            .iter()
            .all(|v| v.cause == Cause::Evict && v.sharers == 0b1000));
        assert_eq!(
            out.iter().map(|v| v.line).collect::<Vec<_>>(),
            vec![4, 5, 6, 7]
        );
        assert_eq!(d.coalesced(), &[0, 0, 1, 0, 0], "two lines were recorded");
    }
}
