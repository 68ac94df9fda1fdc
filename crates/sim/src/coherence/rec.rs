//! REC: range-based directory entry coalescing (`directory.kind = "rec"`, rec.md §3).
//!
//! An entry covers an aligned range of `directory.range_bytes` (1 KB default: 16 lines of
//! 64 B). It keeps the range's base (§3.3: `BASE = tag >> log2(range)`) as its key and a bit
//! vector of `lines x N` bits in the paper's layout (§3.2, Fig. 9): sub-entry `k` (the
//! line's index in the range) occupies bits `k*N .. k*N+N-1`, bit `k*N` is the position bit
//! `P_k` (the line is tracked) and bit `k*N + sidx(g)` is remote node `g`'s sharer bit, with
//! `sidx(g) = ((g - h - 1) mod N) + 1` for home `h` (§6.4; bit `p + g` for home 0).
//!
//! Flows (§3.6): a remote read ORs in `P_k` and the sharer bit (allocating on a miss, which
//! may evict a victim); a local write or atomic invalidates only line `k`'s recorded
//! sharers and clears only sub-entry `k` (the entry is freed when it was the last one); a
//! remote write from `g` either adds line `k` like a read (`P_k` clear) or invalidates the
//! other sharers of line `k` and leaves `g` alone (`P_k` set). No false positives. An
//! eviction reconstructs every tracked line address `(BASE << log2(range)) | k*line` and
//! sends each its per-line invalidations, in one burst (§6.26). Replacement: LRU-like
//! (§3.7, true LRU per set, recency on allocation and remote read/write hits; local writes
//! do not touch), FIFO selectable (`directory.replacement = "fifo"`, Fig. 18).
//!
//! The bits live in one flat array allocated at construction (no allocation per access).

use super::{Cause, DirectoryOrg, Inval, SetTable};

/// `(base, k)` of byte address `addr` for a range of `range_bytes` and lines of
/// `line_bytes` (rec.md §3.3: `BASE = tag >> log2(range)`, `k = (tag mod range) / line`).
pub fn decompose(addr: u64, range_bytes: u64, line_bytes: u64) -> (u64, u64) {
    (addr / range_bytes, (addr % range_bytes) / line_bytes)
}

/// Position bit of line `k` with `nodes` GPUs (rec.md §3.3: `p = k x (n_s + 1)`).
pub fn position_bit(k: u64, nodes: u32) -> u64 {
    k * nodes as u64
}

/// One home's REC directory.
#[derive(Clone, Debug)]
pub struct Rec {
    home: u32,
    nodes: u32,
    /// Lines per range and its log2.
    lines: u32,
    shift: u32,
    /// 64-bit words per entry (`lines x nodes` bits).
    words: usize,
    table: SetTable,
    bits: Vec<u64>,
    /// Evicted entries by the number of lines they tracked (REC Fig. 12).
    hist: Vec<u64>,
}

impl Rec {
    /// An empty REC directory for home `home` of `nodes` nodes: `entries` entries in sets
    /// of `ways`, each covering `lines` lines (a power of two), LRU or FIFO.
    pub fn new(home: u32, nodes: u32, entries: usize, ways: usize, lines: u32, lru: bool) -> Rec {
        let lines = lines.max(1);
        let words = (lines as usize * nodes as usize).div_ceil(64);
        let table = SetTable::new(entries, ways, lru);
        let n = table.capacity() as usize;
        Rec {
            home,
            nodes,
            lines,
            shift: lines.trailing_zeros(),
            words,
            table,
            bits: vec![0; n * words],
            hist: vec![0; lines as usize + 1],
        }
    }
    #[inline]
    fn sidx(&self, g: u32) -> u64 {
        ((g + self.nodes - self.home - 1) % self.nodes) as u64 + 1
    }
    #[inline]
    fn node_of(&self, j: u64) -> u32 {
        (self.home + j as u32) % self.nodes
    }
    #[inline]
    fn get(&self, slot: usize, b: u64) -> bool {
        self.bits[slot * self.words + (b / 64) as usize] >> (b % 64) & 1 == 1
    }
    #[inline]
    fn put(&mut self, slot: usize, b: u64, v: bool) {
        let w = &mut self.bits[slot * self.words + (b / 64) as usize];
        if v {
            *w |= 1 << (b % 64);
        } else {
            *w &= !(1 << (b % 64));
        }
    }
    /// Absolute sharer mask of sub-entry `k`, leaving out `except` (a node mask).
    #[inline]
    fn sharers_of(&self, slot: usize, k: u64, except: u64) -> u64 {
        let p = k * self.nodes as u64;
        let mut m = 0;
        for j in 1..self.nodes as u64 {
            if self.get(slot, p + j) {
                m |= 1u64 << self.node_of(j);
            }
        }
        m & !except
    }
    /// Clear the sharer bits of sub-entry `k` (and its position bit if `all`).
    #[inline]
    fn clear_sub(&mut self, slot: usize, k: u64, all: bool) {
        let p = k * self.nodes as u64;
        for j in (if all { 0 } else { 1 })..self.nodes as u64 {
            self.put(slot, p + j, false);
        }
    }
    #[inline]
    fn empty(&self, slot: usize) -> bool {
        self.bits[slot * self.words..(slot + 1) * self.words]
            .iter()
            .all(|&w| w == 0)
    }
    /// Set `P_k` and `g`'s sharer bit of the entry for `line`, allocating it (and evicting
    /// a victim, §3.6 Ⓙ-Ⓜ) when absent; touch it (LRU).
    fn record(&mut self, line: u64, idx: u64, g: u32, out: &mut Vec<Inval>) {
        let base = line >> self.shift;
        let ix = idx >> self.shift;
        let k = line & (self.lines as u64 - 1);
        let slot = match self.table.find(base, ix) {
            Some(s) => {
                self.table.touch(s);
                s
            }
            None => {
                let (s, old) = self.table.allocate(base, ix);
                if old != SetTable::EMPTY {
                    self.evict(s, old, out);
                }
                s
            }
        };
        let p = position_bit(k, self.nodes);
        self.put(slot, p, true);
        let sb = p + self.sidx(g);
        self.put(slot, sb, true);
    }
    /// The entry in `slot` (range `base`) is evicted: rebuild each tracked line address and
    /// invalidate it at its recorded sharers (§3.6 Ⓜ); clear the entry.
    fn evict(&mut self, slot: usize, base: u64, out: &mut Vec<Inval>) {
        let mut n = 0;
        for k in 0..self.lines as u64 {
            if self.get(slot, position_bit(k, self.nodes)) {
                n += 1;
                let m = self.sharers_of(slot, k, 0);
                if m != 0 {
                    out.push(Inval {
                        line: base << self.shift | k,
                        sharers: m,
                        cause: Cause::Evict,
                    });
                }
            }
        }
        self.hist[n] += 1;
        self.bits[slot * self.words..(slot + 1) * self.words].fill(0);
    }
    /// The raw bit vector of the entry covering range `base` (tests; rec.md §3.9; scans
    /// every slot).
    pub fn entry_bits(&self, base: u64) -> Option<&[u64]> {
        self.table
            .find_any(base)
            .map(|s| &self.bits[s * self.words..(s + 1) * self.words])
    }
    /// The sharer mask recorded for `line` (0 when untracked; inspection, scans every
    /// slot).
    pub fn sharers(&self, line: u64) -> u64 {
        let k = line & (self.lines as u64 - 1);
        match self.table.find_any(line >> self.shift) {
            Some(s) if self.get(s, position_bit(k, self.nodes)) => self.sharers_of(s, k, 0),
            _ => 0,
        }
    }
}

impl DirectoryOrg for Rec {
    fn read(&mut self, line: u64, idx: u64, node: u32, out: &mut Vec<Inval>) {
        if node != self.home {
            self.record(line, idx, node, out);
        }
    }

    fn write(&mut self, line: u64, idx: u64, writer: Option<u32>, out: &mut Vec<Inval>) {
        let writer = writer.filter(|&w| w != self.home);
        let k = line & (self.lines as u64 - 1);
        let p = position_bit(k, self.nodes);
        let Some(slot) = self.table.find(line >> self.shift, idx >> self.shift) else {
            // a remote write allocates like a read (§3.6 Ⓖ, miss); a local one does nothing
            if let Some(g) = writer {
                self.record(line, idx, g, out);
            }
            return;
        };
        match writer {
            None => {
                // local write or atomic (§3.6 Ⓓ-Ⓕ, §6.15): invalidate line k's sharers,
                // clear only sub-entry k; no recency update
                if self.get(slot, p) {
                    let m = self.sharers_of(slot, k, 0);
                    if m != 0 {
                        out.push(Inval {
                            line,
                            sharers: m,
                            cause: Cause::Write,
                        });
                    }
                    self.clear_sub(slot, k, true);
                    if self.empty(slot) {
                        self.table.free(slot);
                    }
                }
            }
            Some(g) => {
                if self.get(slot, p) {
                    // case (2): Ⓗ keep g, clear the others, Ⓘ invalidate them
                    let m = self.sharers_of(slot, k, 1u64 << g);
                    if m != 0 {
                        out.push(Inval {
                            line,
                            sharers: m,
                            cause: Cause::Write,
                        });
                    }
                    self.clear_sub(slot, k, false);
                }
                // case (1), or after case (2): P_k and g's bit set
                self.put(slot, p, true);
                let sb = p + self.sidx(g);
                self.put(slot, sb, true);
                self.table.touch(slot);
            }
        }
    }

    fn entries(&self) -> u64 {
        self.table.used()
    }
    fn entry_lines(&self) -> u64 {
        self.lines as u64
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
    fn live_coalesced(&self) -> Vec<u64> {
        let mut h = vec![0; self.lines as usize + 1];
        for slot in 0..self.table.capacity() as usize {
            if self.table.key(slot) == SetTable::EMPTY {
                continue;
            }
            let n = (0..self.lines as u64)
                .filter(|&k| self.get(slot, position_bit(k, self.nodes)))
                .count();
            h[n] += 1;
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: &[u64]) -> Vec<u64> {
        (0..v.len() as u64 * 64)
            .filter(|&b| v[(b / 64) as usize] >> (b % 64) & 1 == 1)
            .collect()
    }

    /// rec.md §3.9 vector 1: offset 0x340 of a 1 KB range is line 13, position bit 52; a
    /// remote read from GPU1 to home GPU0 sets bits 52 and 53.
    #[test]
    fn address_decomposition_and_entry_bits() {
        let (base, k) = decompose(0x1_0340, 1024, 64);
        assert_eq!((base, k), (0x40, 13));
        assert_eq!(position_bit(k, 4), 52);
        let mut d = Rec::new(0, 4, 8192, 8, 16, true);
        let mut out = Vec::new();
        d.read(0x1_0340 / 64, 0x1_0340 / 64, 1, &mut out);
        assert_eq!(bits(d.entry_bits(0x40).unwrap()), vec![52, 53]);
        // home GPU2: GPU3 is sharer index 1, GPU1 index 3 (§6.4)
        let mut d = Rec::new(2, 4, 8192, 8, 16, true);
        d.read(13, 13, 3, &mut out);
        d.read(13, 13, 1, &mut out);
        assert_eq!(bits(d.entry_bits(0).unwrap()), vec![52, 53, 55]);
        assert_eq!(d.sharers(13), 0b1010);
        assert!(out.is_empty());
    }

    /// rec.md §3.9 vectors 2 and 3 (Fig. 10, home GPU0): the entry holds line 0 shared by
    /// GPU1 (bits 0, 1) and line 14 by GPU3 (bits 56, 59).
    #[test]
    fn per_line_write_invalidations() {
        let fig10 = || {
            let mut d = Rec::new(0, 4, 16, 8, 16, true);
            let mut out = Vec::new();
            d.read(0, 0, 1, &mut out);
            d.read(14, 14, 3, &mut out);
            assert_eq!(bits(d.entry_bits(0).unwrap()), vec![0, 1, 56, 59]);
            d
        };
        let mut d = fig10();
        let mut out = Vec::new();
        d.write(0, 0, None, &mut out);
        assert_eq!(
            out,
            vec![Inval {
                line: 0,
                sharers: 0b10,
                cause: Cause::Write
            }],
            "a local write to line 0 invalidates GPU1 only"
        );
        assert_eq!(bits(d.entry_bits(0).unwrap()), vec![56, 59]);
        assert_eq!(d.entries(), 1, "the entry stays valid");
        // vector 3: GPU2 writes line 14: set 58, clear 59, invalidate GPU3
        let mut d = fig10();
        out.clear();
        d.write(14, 14, Some(2), &mut out);
        assert_eq!(
            out,
            vec![Inval {
                line: 14,
                sharers: 0b1000,
                cause: Cause::Write
            }]
        );
        assert_eq!(bits(d.entry_bits(0).unwrap()), vec![0, 1, 56, 58]);
        // case (1): a remote write to an untracked line of the entry only adds it
        out.clear();
        d.write(5, 5, Some(3), &mut out);
        assert!(out.is_empty());
        assert_eq!(d.sharers(5), 0b1000);
        // the last line written away frees the entry
        let mut d = fig10();
        d.write(0, 0, None, &mut out);
        d.write(14, 14, None, &mut out);
        assert_eq!(d.entries(), 0);
    }

    /// rec.md §3.9 vector 4, REC half: reads of 0x1000, 0x1040, 0x1080, 0x1000 from GPU1
    /// merge into one entry with base 0x4 and bits {0,1,4,5,8,9}; no eviction.
    #[test]
    fn fig8_reads_in_one_range_merge() {
        let mut d = Rec::new(0, 4, 2, 2, 16, true);
        let mut out = Vec::new();
        for a in [0x1000u64, 0x1040, 0x1080, 0x1000] {
            d.read(a / 64, a / 64, 1, &mut out);
        }
        assert!(out.is_empty());
        assert_eq!((d.entries(), d.evictions()), (1, 0));
        assert_eq!(bits(d.entry_bits(0x4).unwrap()), vec![0, 1, 4, 5, 8, 9]);
    }

    /// rec.md §3.9: an eviction rebuilds every tracked line address and invalidates each
    /// at its own sharers only.
    #[test]
    fn eviction_reconstructs_the_line_addresses() {
        let mut d = Rec::new(0, 4, 1, 1, 16, true);
        let mut out = Vec::new();
        let base = 0x4u64;
        d.read(base * 16 + 2, base * 16 + 2, 1, &mut out);
        d.read(base * 16 + 9, base * 16 + 9, 3, &mut out);
        d.read(base * 16 + 9, base * 16 + 9, 2, &mut out);
        d.read(0x9 * 16, 0x9 * 16, 1, &mut out); // another range: evicts
        assert_eq!(
            out,
            vec![
                Inval {
                    line: 0x1000 / 64 + 2,
                    sharers: 0b0010,
                    cause: Cause::Evict
                },
                Inval {
                    line: 0x1000 / 64 + 9,
                    sharers: 0b1100,
                    cause: Cause::Evict
                },
            ]
        );
        let mut h = [0u64; 17];
        h[2] = 1;
        assert_eq!(d.coalesced(), &h[..], "two lines coalesced at eviction");
        assert_eq!(
            bits(d.entry_bits(0x9).unwrap()),
            vec![0, 1],
            "new entry clean"
        );
    }

    #[test]
    fn lru_keeps_the_recently_used_range_and_fifo_does_not() {
        for lru in [true, false] {
            let mut d = Rec::new(0, 4, 2, 2, 16, lru);
            let mut out = Vec::new();
            d.read(0, 0, 1, &mut out); // range 0
            d.read(16, 16, 1, &mut out); // range 1
            d.read(1, 1, 2, &mut out); // hit on range 0
            d.read(32, 32, 1, &mut out); // range 2 evicts
            let evicted = out[0].line >> 4;
            assert_eq!(evicted, if lru { 1 } else { 0 }, "lru = {lru}");
        }
    }

    /// Wide entries: 4 KB ranges (64 lines x 4 nodes = 256 bits) and 16 nodes.
    #[test]
    fn multi_word_entries() {
        let mut d = Rec::new(0, 4, 8, 8, 64, true);
        let mut out = Vec::new();
        d.read(63, 63, 3, &mut out);
        assert_eq!(bits(d.entry_bits(0).unwrap()), vec![252, 255]);
        let mut d = Rec::new(5, 16, 8, 8, 16, true);
        d.read(15, 15, 4, &mut out);
        assert_eq!(d.sharers(15), 1 << 4);
        d.write(15, 15, None, &mut out);
        assert_eq!(out[0].sharers, 1 << 4);
    }

    /// Live entries at the end of a run, by the lines each tracks (issue 9's second reading
    /// of Fig. 12, for runs that never evict): two lines of one range and one of another.
    #[test]
    fn live_entries_count_their_tracked_lines() {
        let mut d = Rec::new(0, 4, 8, 2, 16, true);
        let mut out = Vec::new();
        d.read(16, 16, 1, &mut out);
        d.read(17, 17, 2, &mut out);
        d.read(17, 17, 3, &mut out); // a second sharer of line 17: still one line
        d.read(40, 40, 1, &mut out);
        assert!(out.is_empty());
        let h = d.live_coalesced();
        assert_eq!(h.len(), 17);
        assert_eq!(h[1], 1, "range 2: line 40");
        assert_eq!(h[2], 1, "range 1: lines 16 and 17");
        assert_eq!(h.iter().sum::<u64>(), d.entries());
    }
}
