//! Miss-status holding registers: one entry per outstanding missed line, with a list of
//! waiters merged onto it. Waiters live in a shared pool (linked lists), so merging
//! allocates nothing in steady state.

use rustc_hash::FxHashMap;

/// MSHR file with `cap` entries; waiters are opaque `u64` tokens.
#[derive(Clone, Debug)]
pub struct Mshrs {
    /// Line -> entry index (a hash map: an SM's 64 MSHRs are searched on every miss).
    index: FxHashMap<u64, u32>,
    free_entries: Vec<u32>,
    heads: Vec<u32>,
    tails: Vec<u32>,
    /// Per entry: an invalidation crossed the fill in flight, so the fill must not be
    /// installed (issue 7 §2, the fill/invalidation race).
    poisoned: Vec<bool>,
    /// Per entry: the 32-byte chunks its fills bring (sectored caches, `add_sectors`).
    chunks: Vec<u32>,
    /// Per entry: fills still outstanding (sectored caches: a miss the first fill does not
    /// cover adds its own, and the entry completes with the last).
    fills: Vec<u16>,
    pool_tok: Vec<u64>,
    pool_next: Vec<u32>,
    free_pool: u32,
    /// Misses merged onto an existing entry.
    pub merges: u64,
}

const NIL: u32 = u32::MAX;

impl Mshrs {
    pub fn new(cap: usize) -> Self {
        let mut index = FxHashMap::default();
        index.reserve(cap);
        Mshrs {
            index,
            free_entries: (0..cap as u32).rev().collect(),
            heads: vec![NIL; cap],
            tails: vec![NIL; cap],
            poisoned: vec![false; cap],
            chunks: vec![0; cap],
            fills: vec![0; cap],
            pool_tok: Vec::new(),
            pool_next: Vec::new(),
            free_pool: NIL,
            merges: 0,
        }
    }

    pub fn capacity(&self) -> usize {
        self.heads.len()
    }
    pub fn free(&self) -> usize {
        self.free_entries.len()
    }

    fn node(&mut self, tok: u64) -> u32 {
        if self.free_pool != NIL {
            let n = self.free_pool;
            self.free_pool = self.pool_next[n as usize];
            self.pool_tok[n as usize] = tok;
            self.pool_next[n as usize] = NIL;
            n
        } else {
            self.pool_tok.push(tok);
            self.pool_next.push(NIL);
            (self.pool_tok.len() - 1) as u32
        }
    }

    /// Record a miss on `line` by `tok`. Returns `Some(true)` if a new entry was allocated
    /// (the caller sends the request), `Some(false)` if merged, `None` if full.
    #[inline]
    pub fn add(&mut self, line: u64, tok: u64) -> Option<bool> {
        if let Some(&e) = self.index.get(&line) {
            let n = self.node(tok);
            let t = self.tails[e as usize];
            self.pool_next[t as usize] = n;
            self.tails[e as usize] = n;
            self.merges += 1;
            return Some(false);
        }
        let e = self.free_entries.pop()?;
        let n = self.node(tok);
        self.index.insert(line, e);
        self.heads[e as usize] = n;
        self.tails[e as usize] = n;
        Some(true)
    }

    /// Record a miss on chunks `need` of `line` by `tok` (sectored caches): a new entry
    /// whose fill brings `fetch` (the caller sends the request); a merge onto outstanding
    /// fills that bring every chunk of `need`; or outstanding fills that lack some of
    /// them: with `extend`, `tok` becomes a waiter of the entry, which now also waits for a
    /// fill of `fetch` (the caller sends it; the entry completes with its last fill), and
    /// without, nothing is recorded (the caller sends the miss on its own). Or no free
    /// entry.
    #[inline]
    pub fn add_sectors(
        &mut self,
        line: u64,
        tok: u64,
        need: u32,
        fetch: u32,
        extend: bool,
    ) -> SectorAdd {
        if let Some(&e) = self.index.get(&line) {
            let e = e as usize;
            let covered = self.chunks[e] & need == need;
            if !covered && !extend {
                return SectorAdd::Uncovered;
            }
            let n = self.node(tok);
            let t = self.tails[e];
            self.pool_next[t as usize] = n;
            self.tails[e] = n;
            self.merges += 1;
            if covered {
                return SectorAdd::Merged;
            }
            self.chunks[e] |= fetch;
            self.fills[e] += 1;
            return SectorAdd::Uncovered;
        }
        let Some(e) = self.free_entries.pop() else {
            return SectorAdd::Full;
        };
        let n = self.node(tok);
        self.index.insert(line, e);
        self.heads[e as usize] = n;
        self.tails[e as usize] = n;
        self.chunks[e as usize] = fetch;
        self.fills[e as usize] = 1;
        SectorAdd::New
    }

    /// A fill of `line` arrived (sectored caches): true when it was the entry's last
    /// outstanding one (complete the entry now), false while others are on their way.
    #[inline]
    pub fn fill_arrived(&mut self, line: u64) -> bool {
        match self.index.get(&line) {
            Some(&e) if self.fills[e as usize] > 1 => {
                self.fills[e as usize] -= 1;
                false
            }
            _ => true,
        }
    }

    /// The chunks the outstanding fill of `line` brings (0: none outstanding).
    #[inline]
    pub fn chunks(&self, line: u64) -> u32 {
        self.index
            .get(&line)
            .map_or(0, |&e| self.chunks[e as usize])
    }

    /// Is there an entry for `line`?
    pub fn contains(&self, line: u64) -> bool {
        self.index.contains_key(&line)
    }

    /// Mark the outstanding miss on `line` (if any) so its fill is not installed; returns
    /// whether there was one.
    pub fn poison(&mut self, line: u64) -> bool {
        match self.index.get(&line) {
            Some(&e) => {
                self.poisoned[e as usize] = true;
                true
            }
            None => false,
        }
    }

    /// Is the outstanding miss on `line` poisoned (its data predates an invalidation)?
    pub fn is_poisoned(&self, line: u64) -> bool {
        self.index
            .get(&line)
            .is_some_and(|&e| self.poisoned[e as usize])
    }

    /// Release the entry of `line`, appending its waiters to `out` in arrival order.
    /// Returns true when the entry was poisoned (the fill must not be installed).
    #[inline]
    pub fn complete(&mut self, line: u64, out: &mut Vec<u64>) -> bool {
        let Some(e) = self.index.remove(&line) else {
            return false;
        };
        let poisoned = std::mem::take(&mut self.poisoned[e as usize]);
        let mut n = self.heads[e as usize];
        while n != NIL {
            out.push(self.pool_tok[n as usize]);
            let next = self.pool_next[n as usize];
            self.pool_next[n as usize] = self.free_pool;
            self.free_pool = n;
            n = next;
        }
        self.heads[e as usize] = NIL;
        self.tails[e as usize] = NIL;
        self.free_entries.push(e);
        poisoned
    }
}

/// What [`Mshrs::add_sectors`] did with a sectored miss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectorAdd {
    /// A new entry: send the request.
    New,
    /// Merged onto an outstanding fill that brings every chunk needed.
    Merged,
    /// The outstanding fills of the line lack some of the chunks: this miss adds a fill
    /// of its own to the entry (`extend`), or is sent alone.
    Uncovered,
    /// No free entry.
    Full,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sectored_misses_merge_only_onto_fills_that_bring_their_chunks() {
        let mut m = Mshrs::new(2);
        assert_eq!(m.add_sectors(10, 1, 0b0001, 0b0011, true), SectorAdd::New);
        let merged = m.add_sectors(10, 2, 0b0010, 0b0010, true);
        assert_eq!(merged, SectorAdd::Merged, "fetched with the first");
        assert_eq!(
            m.add_sectors(10, 3, 0b0100, 0b0100, false),
            SectorAdd::Uncovered
        );
        assert_eq!(m.chunks(10), 0b0011, "an unrecorded miss adds nothing");
        let one = m.add_sectors(10, 4, 0b0110, 0b1100, true);
        assert_eq!(one, SectorAdd::Uncovered, "one chunk missing is enough");
        assert_eq!(
            m.chunks(10),
            0b1111,
            "the entry waits for the second fill too"
        );
        let merged = m.add_sectors(10, 5, 0b1000, 0b1000, true);
        assert_eq!(merged, SectorAdd::Merged, "onto the second fill");
        assert_eq!(m.chunks(11), 0, "nothing outstanding");
        assert_eq!(m.add_sectors(20, 6, 1, 1, true), SectorAdd::New);
        assert_eq!(m.add_sectors(30, 7, 1, 1, true), SectorAdd::Full);
        assert!(!m.fill_arrived(10), "one of two fills");
        assert!(m.fill_arrived(10), "the last");
        let mut out = Vec::new();
        m.complete(10, &mut out);
        assert_eq!(out, vec![1, 2, 4, 5], "the unrecorded miss is no waiter");
        let again = m.add_sectors(10, 8, 0b0100, 0b0100, true);
        assert_eq!(
            again,
            SectorAdd::New,
            "the entry is reused with its new chunks"
        );
        assert!(m.fill_arrived(10), "one fill");
    }

    #[test]
    fn merging_and_capacity() {
        let mut m = Mshrs::new(2);
        assert_eq!(m.add(10, 1), Some(true));
        assert_eq!(
            m.add(10, 2),
            Some(false),
            "second miss to the same line merges"
        );
        assert_eq!(m.add(20, 3), Some(true));
        assert_eq!(m.add(30, 4), None, "full");
        assert_eq!(m.add(20, 5), Some(false), "merging works when full");
        let mut out = Vec::new();
        m.complete(10, &mut out);
        assert_eq!(out, vec![1, 2]);
        assert_eq!(m.free(), 1);
        assert_eq!(m.add(30, 6), Some(true));
        out.clear();
        m.complete(20, &mut out);
        assert_eq!(out, vec![3, 5]);
        assert_eq!(m.merges, 2);
    }

    #[test]
    fn poison_marks_only_the_outstanding_entry_and_is_cleared() {
        let mut m = Mshrs::new(2);
        assert!(!m.poison(7), "nothing outstanding");
        m.add(7, 1);
        m.add(8, 2);
        assert!(m.poison(7));
        assert!(m.is_poisoned(7) && !m.is_poisoned(8));
        let mut out = Vec::new();
        assert!(m.complete(7, &mut out));
        assert!(!m.complete(8, &mut out));
        // the entry is reused clean
        m.add(9, 3);
        m.add(10, 4);
        assert!(!m.is_poisoned(9) && !m.is_poisoned(10));
        assert!(!m.complete(9, &mut out) && !m.complete(10, &mut out));
    }
}
