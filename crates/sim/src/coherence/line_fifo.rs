//! The paper's baseline directory (`directory.kind = "line-fifo"`, rec.md §2.3-§2.4): one
//! line per entry (a tag + one sharer bit per node), set-associative (`directory.entries`,
//! `directory.ways`; 8K entries, 8-way by default), FIFO replacement (the oldest entry of
//! the set, hits do not refresh). Every eviction sends invalidations to the victim's
//! sharers (the "evict-initiated invalidations" REC removes). A bigger baseline ("2x
//! entries", Fig. 6/11) is just a larger `directory.entries`.

use super::{bit, Cause, DirectoryOrg, Inval, SetTable};

/// One home's line directory.
#[derive(Clone, Debug)]
pub struct LineFifo {
    home: u32,
    table: SetTable,
    /// Sharer mask of each slot (absolute node bits; the home's never set).
    sharers: Vec<u64>,
    /// Evicted entries by lines tracked (always 1 line).
    hist: [u64; 2],
}

impl LineFifo {
    /// An empty directory of `entries` entries in sets of `ways`, for home node `home`.
    pub fn new(home: u32, entries: usize, ways: usize) -> LineFifo {
        let table = SetTable::new(entries, ways, false);
        let n = table.capacity() as usize;
        LineFifo {
            home,
            table,
            sharers: vec![0; n],
            hist: [0; 2],
        }
    }
    /// The sharer mask of `line` (0 when untracked; inspection, scans every slot).
    pub fn sharers(&self, line: u64) -> u64 {
        self.table.find_any(line).map_or(0, |s| self.sharers[s])
    }
    /// Allocate an entry for `line` (set index `idx`) with sharers `mask`, evicting (and
    /// invalidating) a victim if the set is full.
    fn allocate(&mut self, line: u64, idx: u64, mask: u64, out: &mut Vec<Inval>) {
        let (slot, old) = self.table.allocate(line, idx);
        if old != SetTable::EMPTY {
            self.hist[1] += 1;
            if self.sharers[slot] != 0 {
                out.push(Inval {
                    line: old,
                    sharers: self.sharers[slot],
                    cause: Cause::Evict,
                });
            }
        }
        self.sharers[slot] = mask;
    }
}

impl DirectoryOrg for LineFifo {
    fn read(&mut self, line: u64, idx: u64, node: u32, out: &mut Vec<Inval>) {
        if node == self.home {
            return;
        }
        match self.table.find(line, idx) {
            Some(s) => self.sharers[s] |= bit(node),
            None => self.allocate(line, idx, bit(node), out),
        }
    }

    fn write(&mut self, line: u64, idx: u64, writer: Option<u32>, out: &mut Vec<Inval>) {
        let keep = match writer {
            Some(w) if w != self.home => bit(w),
            _ => 0,
        };
        match self.table.find(line, idx) {
            Some(s) => {
                let inv = self.sharers[s] & !keep;
                if inv != 0 {
                    out.push(Inval {
                        line,
                        sharers: inv,
                        cause: Cause::Write,
                    });
                }
                if keep == 0 {
                    // a local write or atomic: the entry goes to I
                    self.sharers[s] = 0;
                    self.table.free(s);
                } else {
                    self.sharers[s] = keep;
                }
            }
            // a remote write keeps the writer's copy: track it (rec.md §6.7)
            None if keep != 0 => self.allocate(line, idx, keep, out),
            None => {}
        }
    }

    fn entries(&self) -> u64 {
        self.table.used()
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

    /// rec.md §3.9 vector 4, baseline half: a 2-entry (1 set x 2 ways) FIFO directory, home
    /// GPU0, GPU1 reads 0x1000, 0x1040, 0x1080, 0x1000 (64 B lines).
    #[test]
    fn fig8_baseline_evicts_the_oldest_line() {
        let mut d = LineFifo::new(0, 2, 2);
        let mut out = Vec::new();
        let l = |a: u64| a / 64;
        d.read(l(0x1000), l(0x1000), 1, &mut out);
        d.read(l(0x1040), l(0x1040), 1, &mut out);
        assert!(out.is_empty());
        d.read(l(0x1080), l(0x1080), 1, &mut out);
        assert_eq!(
            out,
            vec![Inval {
                line: l(0x1000),
                sharers: 0b10,
                cause: Cause::Evict
            }],
            "the third line evicts the first (FIFO), invalidating GPU1"
        );
        out.clear();
        d.read(l(0x1000), l(0x1000), 1, &mut out);
        assert_eq!(
            out[0].line,
            l(0x1040),
            "the re-inserted 0x1000 evicts 0x1040"
        );
        assert_eq!((d.entries(), d.evictions()), (2, 2));
        assert_eq!(d.coalesced(), &[0, 2]);
    }

    #[test]
    fn fifo_hits_do_not_refresh_and_writes_invalidate_all_but_the_writer() {
        let mut d = LineFifo::new(0, 2, 2);
        let mut out = Vec::new();
        d.read(1, 1, 1, &mut out);
        d.read(2, 2, 2, &mut out);
        d.read(1, 1, 3, &mut out); // hit: 1 stays the oldest
        d.read(0, 0, 0, &mut out); // the home itself: not tracked
        assert_eq!(d.sharers(1), 0b1010);
        d.write(1, 1, Some(3), &mut out);
        assert_eq!(out[0].sharers, 0b0010);
        assert_eq!(out[0].cause, Cause::Write);
        assert_eq!(d.sharers(1), 0b1000);
        out.clear();
        d.read(5, 5, 1, &mut out);
        assert_eq!(out[0].line, 1, "FIFO: line 1 was allocated first");
        out.clear();
        d.write(2, 2, None, &mut out);
        assert_eq!(out[0].sharers, 0b100);
        assert_eq!(d.entries(), 1, "a local write frees the entry");
    }
}
