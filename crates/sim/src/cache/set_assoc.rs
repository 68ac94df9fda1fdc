//! A set-associative cache tag store with true LRU replacement, dirty bits and one byte of
//! per-line metadata (the L2 keeps the line's home node there, so a write-back finds its
//! target with the granularity bit stored at fill time, CODA §4.2). Optionally sectored
//! (`system.sector_bytes`): each line keeps a valid and a dirty mask of its 32-byte chunks
//! ([`locus_workload::LineReq::sectors`]), so a line can be present with part of its data.

/// A line pushed out by an insertion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evicted {
    pub line: u64,
    pub dirty: bool,
    pub meta: u8,
    /// Its dirty 32-byte chunks (a sectored store); `u32::MAX` (all) otherwise.
    pub sectors: u32,
}

/// Tag store. Lines are identified by their line number (address / line size).
#[derive(Clone, Debug)]
pub struct SetAssoc {
    ways: usize,
    set_mask: u64,
    set_shift: u32,
    /// Hash the set index ([`SetAssoc::hashed`]); 0 = linear, else the number of set bits.
    fold: u32,
    /// Bank-local index ([`SetAssoc::bank_local`]): line-number bit fields `(lo, n)`
    /// deleted before `set_shift`, highest first (`ncut` of them).
    cut: [(u8, u8); 3],
    ncut: u8,
    /// Bank-local index: divide by this after the deletions (1: not).
    div: u64,
    /// line + 1 (0 = invalid), per set `ways` entries.
    tags: Vec<u64>,
    stamp: Vec<u32>,
    dirty: Vec<bool>,
    meta: Vec<u8>,
    clock: u32,
    /// Sectored stores only (empty otherwise): per entry, the valid and the dirty chunks.
    valid: Vec<u32>,
    dmask: Vec<u32>,
}

impl SetAssoc {
    /// `sets` must be a power of two. `set_shift` skips low line-number bits used elsewhere
    /// (e.g. slice selection) so they do not alias the set index.
    pub fn new(sets: usize, ways: usize, set_shift: u32) -> Self {
        assert!(sets.is_power_of_two() && ways > 0);
        SetAssoc {
            ways,
            set_mask: sets as u64 - 1,
            set_shift,
            fold: 0,
            cut: [(0, 0); 3],
            ncut: 0,
            div: 1,
            tags: vec![0; sets * ways],
            stamp: vec![0; sets * ways],
            dirty: vec![false; sets * ways],
            meta: vec![0; sets * ways],
            clock: 0,
            valid: Vec::new(),
            dmask: Vec::new(),
        }
    }

    /// The same store with a hashed set index (`l2.set_index = "xor"`): set =
    /// `(l ^ h(l >> b)) mod sets`, `l` the line number after `set_shift`, `b` the set bits
    /// and `h` a multiplicative (Fibonacci) hash of the bits above the set bits, so strides
    /// of a power of two lines spread over the sets while any `sets` consecutive values of
    /// `l` still fill every set once. (A plain XOR fold, `l ^ l >> b ^ l >> 2b`, was tried
    /// first: it correlates with the L2's own slice hash, `l ^ l >> 7 ^ l >> 13`, and on a
    /// machine with 128 sets per slice left three quarters of the (slice, set) pairs unused.)
    /// A one-set store stays one set.
    pub fn hashed(mut self) -> Self {
        self.fold = self.set_mask.count_ones();
        self
    }

    /// The same store indexed by the bank-local line number (`l2.set_index = "partition"`):
    /// the bit fields `fields` (`(lo, n)`: `n` line-number bits from bit `lo`; at most three,
    /// not overlapping) are deleted from the line number, the bits above each moving down,
    /// and the rest divided by `div` (1: not; a slice count that is not a power of two),
    /// before the linear index (`set_shift`, then the low set bits). The fields are the
    /// ones that select the home node and the slice (`mapping::slice_select_fields`), so
    /// the lines one slice holds are numbered densely and a contiguous range fills its sets
    /// in turn, as
    /// GPGPU-Sim 3.x indexes an L2 bank by the address without its partition bits
    /// (`l2_cache_config::set_index`) and MGPUSim by the bank's internal address.
    pub fn bank_local(mut self, fields: &[(u32, u32)], div: u64) -> Self {
        self.div = div.max(1);
        assert!(
            fields.len() <= self.cut.len(),
            "at most three deleted fields"
        );
        let mut f: Vec<(u32, u32)> = fields.iter().copied().filter(|f| f.1 > 0).collect();
        f.sort_unstable_by_key(|x| std::cmp::Reverse(x.0));
        for (i, &(lo, n)) in f.iter().enumerate() {
            assert!(lo + n < 64, "field past the line number");
            self.cut[i] = (lo as u8, n as u8);
        }
        // (a divisor alone still takes the bank-local path)
        self.ncut = f.len() as u8;
        if self.ncut == 0 && self.div > 1 {
            self.cut[0] = (0, 0);
            self.ncut = 1;
        }
        self
    }

    /// `line` with the bank-local fields deleted ([`SetAssoc::bank_local`]).
    #[inline]
    fn local(&self, line: u64) -> u64 {
        let mut l = line;
        for &(lo, n) in &self.cut[..self.ncut as usize] {
            let (lo, n) = (lo as u32, n as u32);
            l = ((l >> (lo + n)) << lo) | (l & ((1u64 << lo) - 1));
        }
        if self.div > 1 {
            l / self.div
        } else {
            l
        }
    }

    /// The same store, sectored: every line keeps which of its 32-byte chunks are valid
    /// and which dirty (NVIDIA's L1 and L2: 32-byte sectors of a 128-byte line).
    pub fn sectored(mut self) -> Self {
        self.valid = vec![0; self.tags.len()];
        self.dmask = vec![0; self.tags.len()];
        self
    }

    /// Is this store sectored ([`SetAssoc::sectored`])?
    #[inline]
    pub fn is_sectored(&self) -> bool {
        !self.valid.is_empty()
    }

    #[inline]
    fn dirty_chunks(&self, i: usize) -> u32 {
        if self.valid.is_empty() {
            u32::MAX
        } else {
            self.dmask[i]
        }
    }

    /// Sectored look-up of the chunks `need` of `line`: the chunks not valid here (0: a
    /// hit; `need` when the line is absent). A present line is touched (LRU) even when
    /// some of its chunks are missing (a sector miss).
    #[inline]
    pub fn access_sectors(&mut self, line: u64, need: u32) -> u32 {
        match self.find(line) {
            Some(i) => {
                self.stamp[i] = self.tick();
                need & !self.valid[i]
            }
            None => need,
        }
    }

    /// Install chunks `valid` of `line` (of which `dirty` are dirty), allocating the line
    /// if it is absent (the LRU victim is returned) or adding them to the present copy.
    pub fn fill_sectors(&mut self, line: u64, valid: u32, dirty: u32, meta: u8) -> Option<Evicted> {
        let (i, out) = self.place(line);
        self.dirty[i] |= dirty != 0;
        self.meta[i] = meta;
        self.valid[i] |= valid | dirty;
        self.dmask[i] |= dirty;
        out
    }

    /// A write of chunks `mask` to a present `line`: they become valid and dirty (false,
    /// nothing changed, when the line is absent).
    pub fn write_sectors(&mut self, line: u64, mask: u32) -> bool {
        match self.find(line) {
            Some(i) => {
                self.dirty[i] = true;
                self.valid[i] |= mask;
                self.dmask[i] |= mask;
                self.stamp[i] = self.tick();
                true
            }
            None => false,
        }
    }

    /// The entry of `line`, allocated (with no valid chunks) if absent, and the valid line
    /// it pushed out; the entry is touched (LRU).
    fn place(&mut self, line: u64) -> (usize, Option<Evicted>) {
        let s = self.tick();
        if let Some(i) = self.find(line) {
            self.stamp[i] = s;
            return (i, None);
        }
        let b = self.base(line);
        let mut v = b;
        for i in b..b + self.ways {
            if self.tags[i] == 0 {
                v = i;
                break;
            }
            if self.stamp[i] < self.stamp[v] {
                v = i;
            }
        }
        let out = (self.tags[v] != 0).then(|| Evicted {
            line: self.tags[v] - 1,
            dirty: self.dirty[v],
            meta: self.meta[v],
            sectors: self.dirty_chunks(v),
        });
        self.tags[v] = line + 1;
        self.dirty[v] = false;
        self.meta[v] = 0;
        self.stamp[v] = s;
        if !self.valid.is_empty() {
            self.valid[v] = 0;
            self.dmask[v] = 0;
        }
        (v, out)
    }

    /// Set index of `line` (for set sampling, NUBA MDR).
    #[inline]
    pub fn set_of(&self, line: u64) -> usize {
        let l = if self.ncut == 0 {
            line
        } else {
            self.local(line)
        } >> self.set_shift;
        let h = if self.fold == 0 {
            l
        } else {
            l ^ ((l >> self.fold).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.fold))
        };
        (h & self.set_mask) as usize
    }

    #[inline]
    fn base(&self, line: u64) -> usize {
        self.set_of(line) * self.ways
    }

    #[inline]
    fn tick(&mut self) -> u32 {
        self.clock = self.clock.wrapping_add(1);
        if self.clock == 0 {
            // renormalise on wrap: each line's rank among all stamps (so every set keeps
            // its order: no two lines share a stamp), restarting from small numbers
            let mut idx: Vec<usize> = (0..self.stamp.len()).collect();
            idx.sort_by_key(|&i| self.stamp[i]);
            for (r, i) in idx.into_iter().enumerate() {
                self.stamp[i] = r as u32;
            }
            self.clock = self.stamp.len() as u32 + 1;
        }
        self.clock
    }

    #[inline]
    fn find(&self, line: u64) -> Option<usize> {
        let b = self.base(line);
        let t = line + 1;
        (b..b + self.ways).find(|&i| self.tags[i] == t)
    }

    /// Is `line` present? Updates LRU on a hit.
    #[inline]
    pub fn access(&mut self, line: u64) -> bool {
        match self.find(line) {
            Some(i) => {
                self.stamp[i] = self.tick();
                true
            }
            None => false,
        }
    }

    /// Present, without touching LRU.
    pub fn contains(&self, line: u64) -> bool {
        self.find(line).is_some()
    }

    /// Mark a present line dirty (returns false if absent).
    pub fn set_dirty(&mut self, line: u64) -> bool {
        match self.find(line) {
            Some(i) => {
                self.dirty[i] = true;
                self.stamp[i] = self.tick();
                true
            }
            None => false,
        }
    }

    /// Insert `line` (or refresh it if present), returning the LRU victim if one was valid.
    /// A sectored store installs every chunk (valid; dirty ones too when `dirty`).
    pub fn insert(&mut self, line: u64, dirty: bool, meta: u8) -> Option<Evicted> {
        let (i, out) = self.place(line);
        self.dirty[i] |= dirty;
        self.meta[i] = meta;
        if !self.valid.is_empty() {
            self.valid[i] = u32::MAX;
            if dirty {
                self.dmask[i] = u32::MAX;
            }
        }
        out
    }

    /// Remove `line` if present, returning it (with its dirty flag and metadata) so a dirty
    /// copy can be written back or dropped by the caller. Looks up only the line's set
    /// (a coherence invalidation, issue 7 §2), never scans the cache.
    pub fn invalidate(&mut self, line: u64) -> Option<Evicted> {
        let i = self.find(line)?;
        let out = Evicted {
            line,
            dirty: self.dirty[i],
            meta: self.meta[i],
            sectors: self.dirty_chunks(i),
        };
        self.tags[i] = 0;
        self.dirty[i] = false;
        Some(out)
    }

    /// Clean the dirty lines for which `f(line, meta)` is true, keeping them valid; returns
    /// them (write back and keep clean at a release, REC §2.4).
    pub fn clean_where(&mut self, mut f: impl FnMut(u64, u8) -> bool) -> Vec<Evicted> {
        let mut out = Vec::new();
        for i in 0..self.tags.len() {
            if self.tags[i] != 0 && self.dirty[i] && f(self.tags[i] - 1, self.meta[i]) {
                out.push(Evicted {
                    line: self.tags[i] - 1,
                    dirty: true,
                    meta: self.meta[i],
                    sectors: self.dirty_chunks(i),
                });
                self.dirty[i] = false;
                if !self.dmask.is_empty() {
                    self.dmask[i] = 0;
                }
            }
        }
        out
    }

    /// Every valid line with its dirty flag and metadata (debug queries and tests; a scan).
    pub fn lines(&self) -> impl Iterator<Item = Evicted> + '_ {
        (0..self.tags.len())
            .filter(|&i| self.tags[i] != 0)
            .map(|i| Evicted {
                line: self.tags[i] - 1,
                dirty: self.dirty[i],
                meta: self.meta[i],
                sectors: self.dirty_chunks(i),
            })
    }

    /// Remove lines for which `f(line, dirty, meta)` is true; returns the removed dirty ones.
    pub fn invalidate_where(&mut self, mut f: impl FnMut(u64, bool, u8) -> bool) -> Vec<Evicted> {
        let mut out = Vec::new();
        for i in 0..self.tags.len() {
            if self.tags[i] != 0 && f(self.tags[i] - 1, self.dirty[i], self.meta[i]) {
                if self.dirty[i] {
                    out.push(Evicted {
                        line: self.tags[i] - 1,
                        dirty: true,
                        meta: self.meta[i],
                        sectors: self.dirty_chunks(i),
                    });
                }
                self.tags[i] = 0;
                self.dirty[i] = false;
            }
        }
        out
    }

    /// Drop every line (L1 invalidation at a kernel boundary).
    pub fn clear(&mut self) {
        self.tags.iter_mut().for_each(|t| *t = 0);
        self.dirty.iter_mut().for_each(|d| *d = false);
    }

    /// Valid lines.
    pub fn occupancy(&self) -> usize {
        self.tags.iter().filter(|&&t| t != 0).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_least_recently_used() {
        let mut c = SetAssoc::new(1, 4, 0);
        for l in 0..4 {
            assert_eq!(c.insert(l, false, 0), None);
        }
        assert!(c.access(0)); // 1 is now LRU
        let e = c.insert(10, false, 0).unwrap();
        assert_eq!(e.line, 1);
        assert!(c.contains(0) && c.contains(10) && !c.contains(1));
        let e = c.insert(11, false, 0).unwrap();
        assert_eq!(e.line, 2);
    }

    /// A column walk whose stride is 48 lines (Rodinia Gaussian's 1536-float rows) uses
    /// `gcd`-many sets of a linear 64-set index: 4 sets, 64 lines of a 16-way store, so a
    /// second pass over 256 such lines misses everything; the hashed index spreads them
    /// over the sets (256 lines in a 1024-line store) and the second pass hits every one.
    /// The hash changes where lines go, not what a set holds: a one-set store is the same.
    #[test]
    fn hashed_index_spreads_a_strided_walk_the_linear_one_crowds() {
        let walk = |mut c: SetAssoc| {
            let lines: Vec<u64> = (0..256u64).map(|r| 7 + 48 * r).collect();
            let mut pass = || {
                let mut hits = 0;
                for &l in &lines {
                    if c.access(l) {
                        hits += 1;
                    } else {
                        c.insert(l, false, 0);
                    }
                }
                hits
            };
            assert_eq!(pass(), 0, "cold");
            let hits = pass();
            let sets: std::collections::HashSet<usize> =
                lines.iter().map(|&l| c.set_of(l)).collect();
            (sets.len(), hits)
        };
        assert_eq!(walk(SetAssoc::new(64, 16, 0)), (4, 0));
        let (sets, hits) = walk(SetAssoc::new(64, 16, 0).hashed());
        assert!(sets >= 48, "{sets} sets");
        assert_eq!(hits, 256);
        let one = SetAssoc::new(1, 4, 0).hashed();
        assert!((0..1000).all(|l| one.set_of(l) == 0));
    }

    /// The bank-local index deletes the given fields and indexes the rest linearly: with
    /// line bits 5..10 (a 4 KB channel interleave of 128-byte lines over 32 channels) and
    /// bit 0 (two sub-partitions) deleted, the lines one slice holds (channel 0, bit 0 = 0)
    /// in the first 16 channel rows go to consecutive sets, while the linear index puts
    /// them in 16 of its 64 sets only.
    #[test]
    fn the_bank_local_index_numbers_a_slices_lines_densely() {
        let c = SetAssoc::new(64, 4, 0).bank_local(&[(0, 1), (5, 5)], 1);
        assert_eq!(c.local(0b1_00000_11110), 0b1_1111);
        assert_eq!(c.local(0b1_11111_11111), 0b1_1111);
        // channel 0, sub-partition 0: 16 lines per 4 KB row, rows 1024 lines apart
        let lines: Vec<u64> = (0..4u64)
            .flat_map(|row| (0..16u64).map(move |i| row * 1024 + 2 * i))
            .collect();
        let sets: Vec<usize> = lines.iter().map(|&l| c.set_of(l)).collect();
        assert_eq!(sets, (0..64).collect::<Vec<_>>());
        let lin = SetAssoc::new(64, 4, 0);
        let used: std::collections::HashSet<usize> = lines.iter().map(|&l| lin.set_of(l)).collect();
        assert_eq!(used.len(), 16);
        // no field: the linear index
        let none = SetAssoc::new(64, 4, 3).bank_local(&[], 1);
        assert!((0..5000).all(|l| none.set_of(l) == SetAssoc::new(64, 4, 3).set_of(l)));
        // a divisor alone: the line number over it
        let by3 = SetAssoc::new(64, 4, 0).bank_local(&[], 3);
        assert!((0..5000u64).all(|l| by3.set_of(l) == ((l / 3) % 64) as usize));
    }

    /// The LRU clock wrapping renumbers the stamps without changing any set's order (it
    /// gave lines of one set equal stamps, rank / ways, so the victim after a wrap could be
    /// a recently used line).
    #[test]
    fn lru_order_survives_the_clock_wrapping() {
        let mut c = SetAssoc::new(1, 16, 0);
        c.clock = u32::MAX - 20;
        for l in 0..16 {
            c.insert(l, false, 0);
        }
        // recency, oldest first: 0, 2, 4, ..., 14, 1, 3, ..., 15; the wrap happens on the way
        for l in (1..16).step_by(2) {
            assert!(c.access(l));
        }
        assert!(c.clock < 100, "the clock wrapped");
        for want in (0..16).step_by(2).chain((1..16).step_by(2)) {
            assert_eq!(c.insert(100 + want, false, 0).unwrap().line, want);
        }
    }

    /// A sectored line hits only on its valid chunks, gains chunks from fills and writes,
    /// and is written back with its dirty chunks only.
    #[test]
    fn sectored_lines_hit_on_valid_chunks_and_write_back_dirty_ones() {
        let mut c = SetAssoc::new(1, 1, 0).sectored();
        assert!(c.is_sectored() && !SetAssoc::new(1, 1, 0).is_sectored());
        assert_eq!(
            c.access_sectors(5, 0b0011),
            0b0011,
            "absent: everything missing"
        );
        assert_eq!(c.fill_sectors(5, 0b0001, 0, 7), None);
        assert_eq!(c.access_sectors(5, 0b0001), 0, "a hit");
        assert_eq!(c.access_sectors(5, 0b0011), 0b0010, "a sector miss");
        assert!(c.write_sectors(5, 0b1000), "present");
        assert!(!c.write_sectors(6, 0b1000), "absent: nothing written");
        assert_eq!(c.access_sectors(5, 0b1001), 0, "a written chunk is valid");
        c.fill_sectors(5, 0b0010, 0, 7);
        assert_eq!(c.access_sectors(5, 0b1011), 0);
        let v = c.fill_sectors(9, 0b0100, 0, 0).expect("one way: 5 goes");
        assert_eq!((v.line, v.dirty, v.meta, v.sectors), (5, true, 7, 0b1000));
        assert_eq!(
            c.access_sectors(9, 0b0001),
            0b0001,
            "the new line starts empty"
        );
        let v = c.invalidate(9).unwrap();
        assert_eq!((v.dirty, v.sectors), (false, 0), "clean: no dirty chunk");
        // a whole-line insert into a sectored store validates every chunk
        c.insert(3, true, 0);
        assert_eq!(c.access_sectors(3, u32::MAX), 0);
        assert_eq!(c.lines().next().unwrap().sectors, u32::MAX);
    }

    #[test]
    fn dirty_victim_is_reported_with_meta() {
        let mut c = SetAssoc::new(2, 1, 0);
        c.insert(0, true, 3);
        let e = c.insert(2, false, 0).unwrap(); // same set (even lines)
        assert_eq!(
            e,
            Evicted {
                line: 0,
                dirty: true,
                meta: 3,
                sectors: u32::MAX
            }
        );
        assert!(c.insert(1, false, 0).is_none(), "odd set is separate");
    }

    #[test]
    fn invalidate_one_line_keeps_the_rest_of_its_set() {
        // 2 sets x 4 ways: even lines share set 0
        let mut c = SetAssoc::new(2, 4, 0);
        for l in [0u64, 2, 4, 6] {
            c.insert(l, l == 4, l as u8);
        }
        c.insert(1, true, 9);
        assert_eq!(
            c.invalidate(4),
            Some(Evicted {
                line: 4,
                dirty: true,
                meta: 4,
                sectors: u32::MAX
            }),
            "the dirty flag and meta come back"
        );
        assert_eq!(
            c.invalidate(2),
            Some(Evicted {
                line: 2,
                dirty: false,
                meta: 2,
                sectors: u32::MAX
            })
        );
        assert_eq!(c.invalidate(4), None, "already gone");
        assert_eq!(c.invalidate(8), None, "never present (same set)");
        assert!(c.contains(0) && c.contains(6) && c.contains(1));
        assert!(!c.contains(2) && !c.contains(4));
        assert_eq!(c.occupancy(), 3);
        // the freed ways are reused before any victim is chosen
        assert_eq!(c.insert(10, false, 0), None);
        assert_eq!(c.insert(12, false, 0), None);
        assert!(c.insert(14, false, 0).is_some(), "set full again");
        // the other set kept its dirty line
        assert_eq!(c.lines().filter(|e| e.dirty).count(), 1);
    }

    #[test]
    fn clean_where_keeps_lines_valid() {
        let mut c = SetAssoc::new(4, 2, 0);
        for l in 0..8 {
            c.insert(l, true, (l % 2) as u8);
        }
        let w = c.clean_where(|_, m| m == 1);
        assert_eq!(w.len(), 4);
        assert_eq!(c.occupancy(), 8, "cleaned lines stay");
        assert_eq!(c.lines().filter(|e| e.dirty).count(), 4);
        assert!(c.clean_where(|_, m| m == 1).is_empty());
    }

    #[test]
    fn invalidate_where_returns_dirty_lines() {
        let mut c = SetAssoc::new(4, 2, 0);
        for l in 0..8 {
            c.insert(l, l % 2 == 0, (l % 4) as u8);
        }
        let d = c.invalidate_where(|_, _, m| m != 0);
        assert_eq!(d.len(), 2, "lines 2 and 6 are dirty with meta 2");
        assert_eq!(c.occupancy(), 2);
    }
}
