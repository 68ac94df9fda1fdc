//! Coherence of cached remote data (issue 7 §2): the home-side directory station and the
//! coherence checker.
//!
//! The station: every node keeps a [`Directory`] for the lines it is home of. The system
//! calls it at two points (`system/memory.rs`, `System::home_read` and
//! `System::home_write`):
//! - [`Directory::read`] when the home serves a read of a remote node (at the home L2
//!   slice, or at the home's DRAM when the requester-side L2 missed): the requester becomes
//!   a sharer;
//! - [`Directory::write`] when a write, write-back or atomic is performed at the home: every
//!   sharer but the writer must drop its copy.
//!
//! Both push [`Inval`]s (a line, a mask of nodes and a [`Cause`]) into a caller-owned
//! buffer; the system sends one `Msg::Invalidation` packet per target node, and on arrival
//! drops the line from that node's L2 slice and L1s, or marks their in-flight fill so it is
//! not installed. A directory with bounded storage also pushes the invalidations its
//! evictions cause (REC §2.4 "evict-initiated invalidations", [`Cause::Evict`]) from `read`
//! or `write`.
//!
//! Organisations (`[directory] kind`, rec.md §2.3-§3.7):
//! - `ideal` ([`FullMap`], alias `full-map`): exact unbounded per-line sharer sets, only
//!   writes invalidate (rec.md §2.8);
//! - `line-fifo` ([`LineFifo`]): the paper's baseline, one line per entry, set-associative,
//!   FIFO, every eviction invalidates the sharers (rec.md §2.3);
//! - `hmg` ([`Hmg`]): one tag + one sharer vector per aligned 4-line region, writes and
//!   evictions invalidate all 4 lines (false positives, rec.md §2.7);
//! - `rec` ([`Rec`]): a base + per-line position and sharer bits over an aligned range,
//!   per-line write invalidations, LRU-like replacement (rec.md §3).
//!
//! Adding an organisation is one new file here implementing [`DirectoryOrg`], plus one
//! variant in `config::DirectoryKind`, one in [`Directory`] and one line in
//! [`Directory::new`]; the `dispatch!` macro forwards every call, so nothing else changes.
//! The bounded ones share [`SetTable`] (tags, validity and replacement order of a
//! set-associative array, allocated once: no allocation per access).

pub mod checker;
pub mod full_map;
pub mod hmg;
pub mod line_fifo;
pub mod rec;
pub mod storage;

use crate::config::{Config, DirectoryKind, Replacement};
pub use checker::Checker;
pub use full_map::FullMap;
pub use hmg::Hmg;
pub use line_fifo::LineFifo;
pub use rec::Rec;

/// Why an invalidation is sent (REC §2.5, Fig. 5; §2.7 for false positives).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// A write to this very line: needed for correctness.
    Write,
    /// A write to another line covered by the same coarse entry (HMG's 4-line entries): the
    /// line was not written, so the invalidation is unnecessary (a false positive).
    FalsePositive,
    /// A directory eviction: the line is no longer traceable, its data is still valid
    /// (unnecessary / premature, REC §2.5).
    Evict,
}

impl Cause {
    /// Number of causes.
    pub const COUNT: usize = 3;
    /// Dense index (per-cause counters).
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Invalidate `line` at every node whose bit is set in `sharers`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inval {
    pub line: u64,
    pub sharers: u64,
    pub cause: Cause,
}

/// What every directory organisation provides (one per home node).
///
/// `line` is the global physical line number (the entry's tag, and what invalidations
/// name); `idx` is the set-index line: the home-local line number of the first line of the
/// entry covering `line` (see [`Directory::entry_lines`]). A bounded organisation picks its
/// set from `idx / entry_lines`, never from `line`: rec.md §2.1 partitions the physical
/// address space among the GPUs, so a home's directory sees its own local addresses
/// (§6.5: `set = address mod sets` on them). Locus interleaves physical pages over the
/// nodes (`mapping::dual_mode`), so the global line's bits just above the page offset name
/// the home: indexing with them would leave each home all but 1/N of its sets unused
/// (measured on 16 GPUs: 6% occupancy, every read of `atax` evicting). An organisation
/// that keeps no sets (the ideal one) ignores `idx`.
pub trait DirectoryOrg {
    /// The home served `line` to remote node `node`: record it as a sharer. Push any
    /// evict-initiated invalidations into `out`.
    fn read(&mut self, line: u64, idx: u64, node: u32, out: &mut Vec<Inval>);
    /// A write to `line` was performed at the home. `writer` is the remote node that keeps
    /// an up-to-date copy (a write-through or write-back requester), `None` for atomics and
    /// writes of the home's own SMs. Push the invalidations of every other sharer into
    /// `out`; afterwards the sharers are `{writer}` (or none).
    fn write(&mut self, line: u64, idx: u64, writer: Option<u32>, out: &mut Vec<Inval>);
    /// Lines one entry covers (a power of two; 1 for line entries): the system computes
    /// `idx` from the first of them.
    fn entry_lines(&self) -> u64 {
        1
    }
    /// Entries in use (lines or ranges tracked).
    fn entries(&self) -> u64;
    /// Entries the organisation can hold (`u64::MAX` when unbounded).
    fn capacity(&self) -> u64 {
        u64::MAX
    }
    /// Entries evicted for capacity so far (0 for an unbounded directory).
    fn evictions(&self) -> u64 {
        0
    }
    /// Histogram of the lines each evicted entry tracked (index = lines, REC Fig. 12);
    /// empty for an organisation that never evicts.
    fn coalesced(&self) -> &[u64] {
        &[]
    }
    /// Distinct lines remote nodes have read so far (the remote lines touched at this home,
    /// which a directory needs that much reach to track at once; issue 9). Counted by the
    /// ideal directory only (it keeps every line); 0 for the bounded organisations.
    fn touched(&self) -> u64 {
        0
    }
    /// Entries in use now by the number of lines each tracks (index = lines): REC's
    /// coalescing of live entries, a second reading of Fig. 12 for runs that never evict
    /// (the paper's histogram is taken at eviction). Empty for the other organisations.
    fn live_coalesced(&self) -> Vec<u64> {
        Vec::new()
    }
}

/// The directory of one home node: an enum over the organisations (no `dyn` on the hot
/// path).
#[derive(Clone, Debug)]
pub enum Directory {
    FullMap(FullMap),
    LineFifo(LineFifo),
    Hmg(Hmg),
    Rec(Rec),
}

macro_rules! dispatch {
    ($s:expr, $d:ident => $e:expr) => {
        match $s {
            Directory::FullMap($d) => $e,
            Directory::LineFifo($d) => $e,
            Directory::Hmg($d) => $e,
            Directory::Rec($d) => $e,
        }
    };
}

impl Directory {
    /// The directory `cfg.directory.kind` of home node `home`.
    pub fn new(cfg: &Config, home: u32) -> Directory {
        let d = &cfg.directory;
        let nodes = cfg.system.nodes;
        let (entries, ways) = (d.entries as usize, d.ways as usize);
        match d.kind {
            DirectoryKind::Ideal => Directory::FullMap(FullMap::new(home)),
            DirectoryKind::LineFifo => Directory::LineFifo(LineFifo::new(home, entries, ways)),
            DirectoryKind::Hmg => Directory::Hmg(Hmg::new(home, entries, ways)),
            DirectoryKind::Rec => {
                let lines = (d.range_bytes / cfg.system.line_bytes as u64) as u32;
                let lru = d.replacement == Replacement::Lru;
                Directory::Rec(Rec::new(home, nodes, entries, ways, lines, lru))
            }
        }
    }
    /// See [`DirectoryOrg::read`].
    #[inline]
    pub fn read(&mut self, line: u64, idx: u64, node: u32, out: &mut Vec<Inval>) {
        dispatch!(self, d => d.read(line, idx, node, out))
    }
    /// See [`DirectoryOrg::write`].
    #[inline]
    pub fn write(&mut self, line: u64, idx: u64, writer: Option<u32>, out: &mut Vec<Inval>) {
        dispatch!(self, d => d.write(line, idx, writer, out))
    }
    /// See [`DirectoryOrg::entry_lines`].
    #[inline]
    pub fn entry_lines(&self) -> u64 {
        dispatch!(self, d => d.entry_lines())
    }
    /// See [`DirectoryOrg::entries`].
    pub fn entries(&self) -> u64 {
        dispatch!(self, d => d.entries())
    }
    /// See [`DirectoryOrg::capacity`].
    pub fn capacity(&self) -> u64 {
        dispatch!(self, d => d.capacity())
    }
    /// See [`DirectoryOrg::evictions`].
    pub fn evictions(&self) -> u64 {
        dispatch!(self, d => d.evictions())
    }
    /// See [`DirectoryOrg::coalesced`].
    pub fn coalesced(&self) -> &[u64] {
        dispatch!(self, d => d.coalesced())
    }
    /// See [`DirectoryOrg::touched`].
    pub fn touched(&self) -> u64 {
        dispatch!(self, d => d.touched())
    }
    /// See [`DirectoryOrg::live_coalesced`].
    pub fn live_coalesced(&self) -> Vec<u64> {
        dispatch!(self, d => d.live_coalesced())
    }
}

/// Tags, validity and replacement order of a set-associative directory array (rec.md
/// §2.3: 8K entries, 8-way; §6.5: set = index mod sets, the index being the entry's
/// home-local address in entry units, see [`DirectoryOrg`]; the key, compared in the set,
/// is the global one). Slots are `set * ways + way`; the
/// organisation keeps its payload in its own arrays indexed by slot. Replacement: an
/// invalid way first, else the oldest stamp; FIFO stamps at allocation only (§2.3, hits do
/// not refresh), LRU also at every [`SetTable::touch`] (§3.7, §6.6).
#[derive(Clone, Debug)]
pub struct SetTable {
    sets: usize,
    ways: usize,
    /// Key of each slot, [`SetTable::EMPTY`] when invalid.
    tag: Vec<u64>,
    stamp: Vec<u64>,
    clock: u64,
    lru: bool,
    used: u64,
    evictions: u64,
}

impl SetTable {
    /// Key of an invalid slot.
    pub const EMPTY: u64 = u64::MAX;

    /// `entries` slots in sets of `ways` (entries a multiple of ways, checked by
    /// `Config::validate`).
    pub fn new(entries: usize, ways: usize, lru: bool) -> SetTable {
        let ways = ways.max(1);
        let sets = (entries / ways).max(1);
        SetTable {
            sets,
            ways,
            tag: vec![Self::EMPTY; sets * ways],
            stamp: vec![0; sets * ways],
            clock: 0,
            lru,
            used: 0,
            evictions: 0,
        }
    }
    /// First slot of the set of index `ix`.
    #[inline]
    fn first(&self, ix: u64) -> usize {
        (ix % self.sets as u64) as usize * self.ways
    }
    /// The slot holding `key` in the set of index `ix`, if any (no recency update).
    #[inline]
    pub fn find(&self, key: u64, ix: u64) -> Option<usize> {
        let f = self.first(ix);
        (f..f + self.ways).find(|&i| self.tag[i] == key)
    }
    /// The slot holding `key` in any set (inspection and tests; a scan of every slot).
    pub fn find_any(&self, key: u64) -> Option<usize> {
        self.tag.iter().position(|&t| t == key)
    }
    /// A hit: LRU refreshes the slot's recency, FIFO does nothing.
    #[inline]
    pub fn touch(&mut self, slot: usize) {
        if self.lru {
            self.clock += 1;
            self.stamp[slot] = self.clock;
        }
    }
    /// Allocate a slot for `key` (not present) in the set of index `ix`: an invalid way,
    /// else the victim by the policy. Returns the slot and the evicted key
    /// ([`SetTable::EMPTY`] if none); the caller reads the victim's payload before
    /// overwriting it.
    #[inline]
    pub fn allocate(&mut self, key: u64, ix: u64) -> (usize, u64) {
        let f = self.first(ix);
        let mut slot = f;
        for i in f..f + self.ways {
            if self.tag[i] == Self::EMPTY {
                slot = i;
                break;
            }
            if self.stamp[i] < self.stamp[slot] {
                slot = i;
            }
        }
        let old = self.tag[slot];
        if old == Self::EMPTY {
            self.used += 1;
        } else {
            self.evictions += 1;
        }
        self.clock += 1;
        self.tag[slot] = key;
        self.stamp[slot] = self.clock;
        (slot, old)
    }
    /// The entry of `slot` became empty (its last line was written away): free it.
    #[inline]
    pub fn free(&mut self, slot: usize) {
        if self.tag[slot] != Self::EMPTY {
            self.tag[slot] = Self::EMPTY;
            self.used -= 1;
        }
    }
    /// Key of `slot` ([`SetTable::EMPTY`] when invalid).
    #[inline]
    pub fn key(&self, slot: usize) -> u64 {
        self.tag[slot]
    }
    /// Valid entries.
    pub fn used(&self) -> u64 {
        self.used
    }
    /// Slots in all.
    pub fn capacity(&self) -> u64 {
        (self.sets * self.ways) as u64
    }
    /// Evictions so far.
    pub fn evictions(&self) -> u64 {
        self.evictions
    }
}

/// Bit of node `g` in a sharer mask.
#[inline]
pub(crate) fn bit(g: u32) -> u64 {
    1u64 << g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_table_fifo_ignores_hits_and_lru_does_not() {
        for lru in [false, true] {
            let mut t = SetTable::new(2, 2, lru);
            let (a, _) = t.allocate(10, 10);
            t.allocate(20, 20);
            t.touch(a); // 10 is now most recent under LRU
            let (_, old) = t.allocate(30, 30);
            assert_eq!(old, if lru { 20 } else { 10 }, "lru = {lru}");
            assert_eq!((t.used(), t.evictions()), (2, 1));
        }
        let mut t = SetTable::new(4, 2, true);
        let (s, _) = t.allocate(1, 1);
        t.free(s);
        assert_eq!(t.used(), 0);
        assert_eq!(t.find(1, 1), None);
        // keys 0 and 2 go to set 0, 1 and 3 to set 1: no conflict across sets
        for k in 0..4 {
            t.allocate(k, k);
        }
        assert_eq!((t.used(), t.evictions()), (4, 0));
    }

    /// The set comes from the index, not from the key: keys 0, 2, 4, 6 (all of set 0 by
    /// their own value) spread over both sets of a 2 x 2 table when their indices do, and
    /// a key is found only through its own index.
    #[test]
    fn set_table_indexes_by_the_index_not_the_key() {
        let mut t = SetTable::new(4, 2, false);
        for (k, ix) in [(0, 0), (2, 1), (4, 2), (6, 3)] {
            let (_, old) = t.allocate(k, ix);
            assert_eq!(old, SetTable::EMPTY, "key {k} found a free way");
        }
        assert_eq!((t.used(), t.evictions()), (4, 0));
        assert!(t.find(2, 1).is_some() && t.find(2, 0).is_none());
        assert_eq!(t.find_any(6), t.find(6, 3));
        // by the keys alone (index = key) the four collide in set 0 and two are evicted
        let mut u = SetTable::new(4, 2, false);
        for k in [0, 2, 4, 6] {
            u.allocate(k, k);
        }
        assert_eq!(u.evictions(), 2);
    }

    use proptest::prelude::*;
    use rustc_hash::FxHashMap;

    /// One directory access of a generated sequence: (line, node, op) with op 0 = remote
    /// read, 1 = write keeping the writer's copy, 2 = local write / atomic.
    type Op = (u64, u32, u8);

    /// Every organisation, small enough that the sequences evict (4 nodes, home 0).
    fn orgs() -> Vec<(&'static str, Directory)> {
        vec![
            ("ideal", Directory::FullMap(FullMap::new(0))),
            ("line-fifo", Directory::LineFifo(LineFifo::new(0, 8, 2))),
            ("hmg", Directory::Hmg(Hmg::new(0, 8, 2))),
            ("rec", Directory::Rec(Rec::new(0, 4, 8, 2, 4, true))),
            ("rec-fifo", Directory::Rec(Rec::new(0, 4, 8, 2, 4, false))),
        ]
    }

    /// Play `ops` on `d` against the truth: the nodes that may hold each line (they read
    /// it and no invalidation of it reached them since). Checks safety (after a write no
    /// node but the writer may still hold the line), capacity, and returns the
    /// invalidations that targeted a node not holding the line (false positives) and the
    /// evict-initiated invalidations.
    fn play(d: &mut Directory, ops: &[Op]) -> Result<(u64, u64), TestCaseError> {
        play_ix(d, ops, |first| first)
    }

    /// [`play`] with set indices `ix(first line of the entry)`, as the system computes
    /// them from home-local addresses.
    fn play_ix(
        d: &mut Directory,
        ops: &[Op],
        ix: impl Fn(u64) -> u64,
    ) -> Result<(u64, u64), TestCaseError> {
        let mut truth: FxHashMap<u64, u64> = FxHashMap::default();
        let mut out = Vec::new();
        let (mut false_pos, mut evict) = (0, 0);
        for &(line, node, op) in ops {
            out.clear();
            let idx = ix(line & !(d.entry_lines() - 1));
            let writer = match op {
                0 => {
                    d.read(line, idx, node, &mut out);
                    None
                }
                1 => {
                    d.write(line, idx, Some(node), &mut out);
                    Some(node)
                }
                _ => {
                    d.write(line, idx, None, &mut out);
                    None
                }
            };
            for v in &out {
                let t = truth.entry(v.line).or_default();
                false_pos += (v.sharers & !*t).count_ones() as u64;
                evict += (v.cause == Cause::Evict) as u64 * v.sharers.count_ones() as u64;
                *t &= !v.sharers;
                prop_assert_eq!(v.sharers & 1, 0, "the home is never invalidated");
            }
            let keep = writer.filter(|&w| w != 0).map_or(0, bit);
            if op == 0 {
                if node != 0 {
                    *truth.entry(line).or_default() |= bit(node);
                }
            } else {
                let t = truth.entry(line).or_default();
                prop_assert_eq!(
                    *t & !keep,
                    0,
                    "a copy survived a write to line {} (op {:?})",
                    line,
                    (line, node, op)
                );
                *t = keep;
            }
            prop_assert!(d.entries() <= d.capacity(), "entries above capacity");
        }
        Ok((false_pos, evict))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Over random read/write sequences, every organisation: never exceeds its
        /// capacity, never leaves a stale copy after a write; REC and the line directory
        /// never invalidate a line at a node that does not hold it (no false positives);
        /// the ideal directory never sends an evict-initiated invalidation.
        #[test]
        fn directories_are_safe_and_bounded(
            ops in proptest::collection::vec((0u64..64, 0u32..4, 0u8..3), 1..300)
        ) {
            // the identity index, and one unrelated to the key's value (a home-local
            // address differs from the global line)
            for scramble in [false, true] {
                for (name, mut d) in orgs() {
                    let (fp, ev) = if scramble {
                        play_ix(&mut d, &ops, |f| f.wrapping_mul(0x9e37_79b9) >> 3)?
                    } else {
                        play(&mut d, &ops)?
                    };
                    if name != "hmg" {
                        prop_assert_eq!(fp, 0, "{} sent a false-positive invalidation", name);
                    }
                    if name == "ideal" {
                        prop_assert_eq!(ev, 0, "the ideal directory evicted");
                    }
                }
            }
        }
    }

    /// HMG does send false positives (rec.md §2.7), REC does not, on the same sequence:
    /// GPU1 reads line 0, GPU2 line 1 of one 4-line region; the home writes line 1.
    #[test]
    fn hmg_false_positive_rec_none() {
        let ops = [(0, 1, 0), (1, 2, 0), (1, 0, 2)];
        let mut h = Directory::Hmg(Hmg::new(0, 8, 2));
        let mut r = Directory::Rec(Rec::new(0, 4, 8, 2, 4, true));
        assert_eq!(
            play(&mut h, &ops).unwrap().0,
            6,
            "4 lines x 2 sharers, of which GPU1 held line 0 and GPU2 line 1"
        );
        assert_eq!(play(&mut r, &ops).unwrap().0, 0);
    }
}
