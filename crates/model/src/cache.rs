//! A set-associative LRU tag store (GPGPU-Sim-like, spec §3.6 step 4 and §7 #20) used for
//! the texture, constant and L2 cache models run on the rewritten trace. Tags and stamps
//! are allocated once; an access allocates nothing.

/// Result of one access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The line was present.
    Hit,
    /// The line was absent and has been allocated; `evicted_dirty` holds the line address
    /// of a dirty victim (to be written back), if any.
    Miss {
        /// Line-aligned address of the dirty line replaced, if one was.
        evicted_dirty: Option<u64>,
    },
}

/// A set-associative cache of `sets x ways` lines of `line_bytes`, LRU replacement.
/// A set's tags are contiguous (one short run of memory scanned for the hit) and its
/// stamps beside them in their own array, read only on a miss to find the LRU victim (an
/// empty way has stamp 0, below every used way's, so it is the victim first: the
/// replacement is the plain LRU with empty ways filled in order). Most lookups of the
/// model's passes hit, so a hit reads the tags and writes one stamp. Tags are kept in 32
/// bits while every key fits (a 16-way set's tags are one 64-byte host line, compared in
/// one vector step), in 64 bits from the first key that does not.
#[derive(Clone, Debug)]
pub struct Cache {
    sets: u64,
    ways: usize,
    line_shift: u32,
    /// `u64::MAX / sets + 1`: the set of a key below 2^32 is found by two multiplications
    /// (Lemire's "fastmod"), not a division (the K80's L2 has 768 sets, no power of two).
    set_magic: u64,
    /// The tags while every key is below [`NARROW_EMPTY`] (which marks an empty way).
    narrow: Vec<u32>,
    /// The tags once a key is not ([`EMPTY`] marks an empty way); empty before.
    wide: Vec<u64>,
    stamps: Vec<u64>,
    dirty: Vec<bool>,
    clock: u64,
    /// The last key looked up and its slot: the next lookup of the same key is a hit in
    /// that slot (nothing ran in between that could evict it), found without the scan.
    last: (u64, usize),
    /// Tag changes so far (each miss fills a way; [`Cache::clear`] empties them all): a
    /// slot found at one count holds its key while the count is unchanged.
    fills: u64,
    /// Per bank (the caller's stream of groups, see [`Cache::access_group`]), the last
    /// group of keys looked up: see [`Group`].
    groups: Vec<Group>,
    /// The banks whose group has stamps not yet written ([`Group::pending`]).
    pend: Vec<u32>,
}

/// The last group of keys one bank looked up together ([`Cache::access_group`]): the
/// caller's id for it ([`NO_GROUP`] if none), [`Cache::fills`] when its slots were last
/// known to hold its keys (still the count now: they do), and the slot each key was
/// found in.
#[derive(Clone, Debug)]
struct Group {
    id: u32,
    fills: u64,
    len: usize,
    /// When nonzero, the clock before the group's last repeat, whose stamps are not yet
    /// written: key `k`'s slot is owed stamp `pending + k + 1` (a later stamp of the
    /// slot, written since, stays). Written by [`Cache::settle`] before a victim is
    /// chosen or the slots are replaced: stamps are read only to choose a victim, so a
    /// warp repeating its row's lines many times between misses writes them once.
    pending: u64,
    /// Whether the bank is in [`Cache::pend`].
    listed: bool,
    slots: [u32; GROUP_KEYS],
}

impl Group {
    const NONE: Group = Group {
        id: NO_GROUP,
        fills: 0,
        len: 0,
        pending: 0,
        listed: false,
        slots: [0; GROUP_KEYS],
    };
}

/// No group: [`Cache::access_group`]'s `id` and `prev` when the caller has none.
pub const NO_GROUP: u32 = u32::MAX;
/// The most keys of a remembered group: a warp's 32 lanes each in their own line.
pub const GROUP_KEYS: usize = 32;

const EMPTY: u64 = u64::MAX;
const NARROW_EMPTY: u32 = u32::MAX;

/// Bit `i` set where `tags[i] == k`, over `N` tags (a multiple of 4, at most 32): `N / 4`
/// SSE2 compares of four tags each on x86-64 (SSE2 is part of its baseline; the compiler
/// left the plain loop scalar), the plain loop elsewhere. 16 tags: a 16-way set (the
/// presets' L2s); 8 tags: the sets of at most 8 ways (the K80's 6-way texture and 4-way
/// constant caches), whose tags after the set's last way are the next set's (which never
/// hold a key of this set) or [`NARROW_PAD`]'s empty ones, masked off by the caller all
/// the same.
#[inline(always)]
fn eq_mask<const N: usize>(tags: &[u32; N], k: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            _mm_castsi128_ps, _mm_cmpeq_epi32, _mm_loadu_si128, _mm_movemask_ps, _mm_set1_epi32,
        };
        const { assert!(N.is_multiple_of(4) && N <= 32) };
        // SAFETY: SSE2 is always present on x86-64; the unaligned 16-byte loads read
        // `tags[4j..4j + 4]` for `j < N / 4`, all inside the array
        unsafe {
            let kv = _mm_set1_epi32(k as i32);
            let p = tags.as_ptr().cast::<std::arch::x86_64::__m128i>();
            let mut m = 0u32;
            for j in 0..N / 4 {
                m |= (_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(
                    _mm_loadu_si128(p.add(j)),
                    kv,
                ))) as u32)
                    << (4 * j);
            }
            m
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = 0u32;
        for (i, &t) in tags.iter().enumerate() {
            m |= u32::from(t == k) << i;
        }
        m
    }
}

/// Empty tags after the last set, so that [`eq_mask`] may read eight tags from any
/// set's first way.
const NARROW_PAD: usize = 8;

impl Cache {
    /// A cache of `bytes` capacity, `ways`-way, `line_bytes` lines (powers of two; the set
    /// count is at least 1).
    pub fn new(bytes: u64, ways: usize, line_bytes: u32) -> Cache {
        let ways = ways.max(1);
        let lines = (bytes / u64::from(line_bytes)).max(ways as u64);
        let sets = (lines / ways as u64).max(1);
        Cache {
            sets,
            ways,
            line_shift: line_bytes.trailing_zeros(),
            set_magic: (u64::MAX / sets).wrapping_add(1),
            narrow: vec![NARROW_EMPTY; sets as usize * ways + NARROW_PAD],
            wide: Vec::new(),
            stamps: vec![0; sets as usize * ways + NARROW_PAD],
            dirty: vec![false; sets as usize * ways],
            clock: 0,
            last: (EMPTY, 0),
            fills: 0,
            groups: Vec::new(),
            pend: Vec::new(),
        }
    }

    /// Forgets every bank's last group (their ids mean nothing to the next caller: a new
    /// pass). Owed stamps stay owed: they are the cache's state.
    pub fn forget_group(&mut self) {
        for g in &mut self.groups {
            g.id = NO_GROUP;
        }
    }

    /// Invalidates every line (dirty ones are dropped, not written back: used for the
    /// read-only texture and constant caches at a launch boundary).
    pub fn clear(&mut self) {
        self.narrow.fill(NARROW_EMPTY);
        self.wide.fill(EMPTY);
        self.stamps.fill(0);
        self.dirty.fill(false);
        self.last = (EMPTY, 0);
        self.fills += 1;
        // the stamps owed are void: every way is empty (stamp 0)
        for &b in &self.pend {
            let g = &mut self.groups[b as usize];
            g.pending = 0;
            g.listed = false;
        }
        self.pend.clear();
    }

    /// Line size in bytes.
    pub fn line_bytes(&self) -> u64 {
        1 << self.line_shift
    }

    /// Looks up the line holding byte `addr` (or a line key already divided by the line
    /// size when `addr` is a key: see [`Cache::access_key`]); allocates on a miss; a write
    /// marks the line dirty.
    #[inline(always)]
    pub fn access(&mut self, addr: u64, write: bool) -> Outcome {
        self.access_key(addr >> self.line_shift, write)
    }

    /// The set of `key`: `key % sets`, by [`Cache::set_magic`] for keys below 2^32
    /// (every line of a 512 GiB address space at 128-byte lines).
    #[inline]
    fn set_of(&self, key: u64) -> usize {
        if (key | self.sets) >> 32 == 0 {
            let low = self.set_magic.wrapping_mul(key);
            ((u128::from(low) * u128::from(self.sets)) >> 64) as usize
        } else {
            (key % self.sets) as usize
        }
    }

    /// The way of set `s` (its first slot) holding `key`. With 32-bit tags a 16-way set
    /// (the L2s of the presets) compares its 16 tags at once (a key is in a set at most
    /// once, so one match is the hit); other sets scan their tags.
    #[inline(always)]
    fn find(&self, s: usize, key: u64) -> Option<usize> {
        if !self.wide.is_empty() {
            return self.wide[s..s + self.ways].iter().position(|&t| t == key);
        }
        let k = key as u32;
        if self.ways == 16 {
            let tags: &[u32; 16] = self.narrow[s..s + 16].try_into().expect("16 ways");
            let m = eq_mask::<16>(tags, k);
            return (m != 0).then(|| m.trailing_zeros() as usize);
        }
        if self.ways <= 8 {
            let tags: &[u32; 8] = self.narrow[s..s + 8].try_into().expect("8 tags");
            let m = eq_mask::<8>(tags, k) & ((1 << self.ways) - 1);
            return (m != 0).then(|| m.trailing_zeros() as usize);
        }
        self.narrow[s..s + self.ways].iter().position(|&t| t == k)
    }

    /// The way of set `s` (its first slot) with the smallest stamp, the first of them: in
    /// a set of at most eight ways, a pass over eight stamps (those after the set's last
    /// way masked off: the next set's or [`NARROW_PAD`]'s) without a branch on the stamps
    /// (the victim's way is unpredictable: the scan's branch missed once a miss).
    #[inline(always)]
    fn oldest_of(&self, s: usize) -> usize {
        if self.ways <= 8 {
            let st: &[u64; 8] = self.stamps[s..s + 8].try_into().expect("8 stamps");
            let (mut v, mut oldest) = (0, u64::MAX);
            for (i, &x) in st.iter().enumerate() {
                let x = if i < self.ways { x } else { u64::MAX };
                let older = x < oldest;
                oldest = if older { x } else { oldest };
                v = if older { i } else { v };
            }
            return v;
        }
        let mut v = 0;
        let mut oldest = u64::MAX;
        for (i, &st) in self.stamps[s..s + self.ways].iter().enumerate() {
            if st < oldest {
                oldest = st;
                v = i;
            }
        }
        v
    }

    /// Replaces the tag of slot `i` by `key`, returning the old one ([`EMPTY`] if none).
    #[inline(always)]
    fn swap_tag(&mut self, i: usize, key: u64) -> u64 {
        if self.wide.is_empty() {
            let old = std::mem::replace(&mut self.narrow[i], key as u32);
            if old == NARROW_EMPTY {
                EMPTY
            } else {
                u64::from(old)
            }
        } else {
            std::mem::replace(&mut self.wide[i], key)
        }
    }

    /// Moves the tags to 64 bits (a key that 32 bits cannot hold has arrived).
    #[cold]
    fn widen(&mut self) {
        self.wide = self
            .narrow
            .iter()
            .map(|&t| {
                if t == NARROW_EMPTY {
                    EMPTY
                } else {
                    u64::from(t)
                }
            })
            .collect();
        self.narrow = Vec::new();
    }

    /// As [`Cache::access`] with a line key (line address / line size).
    #[inline(always)]
    pub fn access_key(&mut self, key: u64, write: bool) -> Outcome {
        self.clock += 1;
        if key == self.last.0 {
            let i = self.last.1;
            self.stamps[i] = self.clock;
            self.dirty[i] |= write;
            return Outcome::Hit;
        }
        if key >= u64::from(NARROW_EMPTY) && self.wide.is_empty() {
            self.widen();
        }
        let s = self.set_of(key) * self.ways;
        if let Some(i) = self.find(s, key) {
            let i = s + i;
            self.stamps[i] = self.clock;
            self.dirty[i] |= write;
            self.last = (key, i);
            return Outcome::Hit;
        }
        // the victim: the first way of the smallest stamp, every stamp owed written
        if !self.pend.is_empty() {
            self.settle_all();
        }
        let i = s + self.oldest_of(s);
        self.fills += 1;
        let old = self.swap_tag(i, key);
        self.stamps[i] = self.clock;
        let d = &mut self.dirty[i];
        let evicted_dirty = (old != EMPTY && *d).then(|| old << self.line_shift);
        *d = write;
        self.last = (key, i);
        Outcome::Miss { evicted_dirty }
    }

    /// Whether slot `i` holds `key`.
    #[inline(always)]
    fn holds(&self, i: usize, key: u64) -> bool {
        if self.wide.is_empty() {
            key < u64::from(NARROW_EMPTY) && self.narrow[i] == key as u32
        } else {
            self.wide[i] == key
        }
    }

    /// Writes the stamps bank `b`'s group owes ([`Group::pending`]), keeping any later
    /// stamp a slot received since (a key listed twice keeps its last).
    #[inline(never)]
    fn settle(&mut self, b: usize) {
        let g = &mut self.groups[b];
        let base = std::mem::take(&mut g.pending);
        if base == 0 {
            return;
        }
        for (k, &i) in g.slots[..g.len].iter().enumerate() {
            let st = &mut self.stamps[i as usize];
            *st = (*st).max(base + k as u64 + 1);
        }
    }

    /// Writes every stamp owed (before a victim is chosen).
    #[cold]
    fn settle_all(&mut self) {
        for j in 0..self.pend.len() {
            let b = self.pend[j] as usize;
            self.settle(b);
            self.groups[b].listed = false;
        }
        self.pend.clear();
    }

    /// Looks up `keys` (each `>> shift`) in order, exactly as that many
    /// [`Cache::access_key`] calls would, calling `miss(i, evicted_dirty)` for each key
    /// `i` that misses. A bank is one stream of the caller's groups (an object's accesses
    /// on one SM); `id` names this group for the bank's later calls ([`NO_GROUP`]: none
    /// will name it, so its slots are not remembered). When the caller knows the keys
    /// are the same list as group `prev`'s (a warp reading a row per thread asks for the
    /// same lines for several accesses) and `prev` was the bank's last group, each key
    /// is in the slot it was found in then if nothing was filled since or if each slot
    /// still holds its key (checked, not searched): then every key hits there, its dirty
    /// bit is set as the lookups would set it and its stamp is owed (written before the
    /// next victim is chosen), neither searched for nor written now (issue 12's
    /// prediction speed). Exact whatever was looked up in between (hits write their own,
    /// later, stamps; a fill writes every stamp owed before it chooses its victim).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn access_group(
        &mut self,
        keys: &[u64],
        shift: u32,
        write: bool,
        id: u32,
        prev: u32,
        bank: usize,
        mut miss: impl FnMut(usize, Option<u64>),
    ) {
        let n = keys.len();
        // only lists of 2 to GROUP_KEYS keys are remembered
        let fits = (2..=GROUP_KEYS).contains(&n);
        if fits && prev != NO_GROUP {
            if let Some(g) = self.groups.get(bank).filter(|g| {
                prev == g.id
                    && g.len == n
                    && (g.fills == self.fills
                        || (0..n).all(|k| self.holds(g.slots[k] as usize, keys[k] >> shift)))
            }) {
                let slots = &g.slots[..n];
                if write {
                    for &i in slots {
                        self.dirty[i as usize] = true;
                    }
                }
                self.last = (keys[n - 1] >> shift, slots[n - 1] as usize);
                let g = &mut self.groups[bank];
                g.pending = self.clock;
                self.clock += n as u64;
                g.fills = self.fills;
                g.id = id;
                if !g.listed {
                    g.listed = true;
                    self.pend.push(bank as u32);
                }
                return;
            }
        }
        if !fits || id == NO_GROUP {
            // not remembered: a later group names it only if it has 2 to GROUP_KEYS keys
            // and an id (the bank's last group stays, its slots checked when named)
            for (i, &k) in keys.iter().enumerate() {
                if let Outcome::Miss { evicted_dirty } = self.access_key(k >> shift, write) {
                    miss(i, evicted_dirty);
                }
            }
            return;
        }
        if bank >= self.groups.len() {
            self.groups.resize(bank + 1, Group::NONE);
        }
        // the bank's slots are about to be replaced: their stamps first
        if self.groups[bank].pending != 0 {
            self.settle(bank);
        }
        let fills = self.fills;
        let mut slots = [0u32; GROUP_KEYS];
        for (i, &k) in keys.iter().enumerate() {
            if let Outcome::Miss { evicted_dirty } = self.access_key(k >> shift, write) {
                miss(i, evicted_dirty);
            }
            slots[i] = self.last.1 as u32;
        }
        let g = &mut self.groups[bank];
        g.slots = slots;
        g.id = id;
        g.fills = fills;
        g.len = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LRU with 2 ways: a, b, a, c evicts b (not a); a dirty victim is reported.
    #[test]
    fn lru_two_ways() {
        let mut c = Cache::new(256, 2, 128); // one set, two ways
        assert!(matches!(
            c.access(0, true),
            Outcome::Miss {
                evicted_dirty: None
            }
        ));
        assert!(matches!(c.access(128, false), Outcome::Miss { .. }));
        assert_eq!(c.access(5, false), Outcome::Hit);
        assert_eq!(
            c.access(256, false),
            Outcome::Miss {
                evicted_dirty: None
            }
        ); // b clean
        assert_eq!(c.access(0, false), Outcome::Hit);
        // a (dirty) is now LRU-older than 256? no: 0 was just used; 384 evicts 256
        assert_eq!(
            c.access(384, false),
            Outcome::Miss {
                evicted_dirty: None
            }
        );
        assert_eq!(
            c.access(512, false),
            Outcome::Miss {
                evicted_dirty: Some(0)
            }
        );
    }

    /// A working set within capacity misses once per line, then always hits.
    #[test]
    fn fits_then_hits() {
        let mut c = Cache::new(8 << 10, 4, 64);
        let misses = (0..2)
            .flat_map(|_| (0..128u64).map(|i| i * 64))
            .filter(|&a| c.access(a, false) != Outcome::Hit)
            .count();
        assert_eq!(misses, 128);
    }

    /// The lookup is the plain LRU: against a reference that keeps each set's keys in
    /// recency order (victim: an empty way first, else the least recent), the same hits,
    /// misses and dirty victims on a pseudo-random stream of reads and writes over 3
    /// sets of 1, 4 and 6 ways (the eight-tag compare), 12 ways (the tag scan) and 16
    /// ways (the one-step compare of 32-bit tags), with keys spread apart, and keys past 32 bits arriving mid-stream (the
    /// tags widened with lines in the cache).
    #[test]
    fn one_pass_lookup_is_plain_lru() {
        for (ways, spread) in [
            (4usize, 1u64),
            (6, 1),
            (1, 1),
            (12, 1),
            (6, 1 << 40),
            (16, 1),
            (16, (1 << 16) + 1),
            (16, 1 << 40),
        ] {
            let mut c = Cache::new(3 * ways as u64 * 64, ways, 64);
            let mut sets: Vec<Vec<(u64, bool)>> = vec![Vec::new(); 3];
            let mut x = 12345u64;
            for _ in 0..40000 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let r = (x >> 33) % (10 * ways as u64);
                // keys of one set (r % 3) spread apart by `spread`
                let key = (r / 3 * spread) * 3 + r % 3;
                let write = (x >> 20) & 3 == 0;
                let set = &mut sets[(key % 3) as usize];
                let want = if let Some(i) = set.iter().position(|e| e.0 == key) {
                    let mut e = set.remove(i);
                    e.1 |= write;
                    set.push(e);
                    Outcome::Hit
                } else {
                    let ev = if set.len() == ways {
                        let v = set.remove(0);
                        v.1.then_some(v.0 * 64)
                    } else {
                        None
                    };
                    set.push((key, write));
                    Outcome::Miss { evicted_dirty: ev }
                };
                assert_eq!(
                    c.access_key(key, write),
                    want,
                    "{ways} ways, spread {spread}"
                );
            }
        }
    }

    /// `access_group` is `access_key` on each key: on three interleaved streams (banks)
    /// of groups that repeat their bank's group before them (named by `prev`, as the
    /// digest names them; some not to be named again, `id` [`NO_GROUP`]), with single lookups, misses, writes and now and then a clear
    /// in between, the misses reported, their dirty victims and every later lookup equal
    /// the plain lookups'. Fails if a repeated group skipped a dirty bit, repeated over a
    /// slot refilled since, or left a stamp owed when a victim was chosen or its slots
    /// replaced. (Stamps owed at a clear are voided, keeping an empty way's stamp 0; left
    /// owed, they would be older than every stamp after the clear and change no victim.)
    #[test]
    fn group_lookups_are_key_lookups() {
        for ways in [4usize, 6, 16] {
            let mut a = Cache::new(8 * ways as u64 * 64, ways, 64);
            let mut b = a.clone();
            let mut x = 777u64;
            let mut rnd = |m: u64| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 33) % m
            };
            let mut keys: [Vec<u64>; 3] = Default::default();
            let mut prev = [NO_GROUP; 3];
            let (mut repeats, mut owed) = (0, 0);
            for id in 0..30_000u32 {
                let bank = rnd(3) as usize;
                // a new list one time in four, else the bank's list again
                if keys[bank].is_empty() || rnd(4) == 0 {
                    let mut k: Vec<u64> = (0..2 + rnd(12))
                        .map(|i| i * 8 + rnd(8 * ways as u64))
                        .collect();
                    k.sort_unstable();
                    k.dedup();
                    keys[bank] = k;
                    prev[bank] = NO_GROUP;
                }
                let write = rnd(5) == 0;
                let mut want = Vec::new();
                for (i, &k) in keys[bank].iter().enumerate() {
                    if let Outcome::Miss { evicted_dirty } = a.access_key(k, write) {
                        want.push((i, evicted_dirty));
                    }
                }
                let mut got = Vec::new();
                let before = b.clock;
                let g = &keys[bank];
                // one group in six is named by none (not remembered)
                let id = if rnd(6) == 0 { NO_GROUP } else { id };
                b.access_group(g, 0, write, id, prev[bank], bank, |i, e| got.push((i, e)));
                assert_eq!(got, want, "{ways} ways, group {id}");
                assert_eq!(b.clock - before, g.len() as u64);
                if want.is_empty() && prev[bank] != NO_GROUP {
                    repeats += 1;
                }
                owed += usize::from(!b.pend.is_empty());
                prev[bank] = id;
                // a single lookup between groups (a hit or a fill), a clear now and then
                let k = rnd(16 * ways as u64);
                let w = rnd(3) == 0;
                assert_eq!(a.access_key(k, w), b.access_key(k, w));
                if rnd(500) == 0 {
                    a.clear();
                    b.clear();
                }
            }
            assert!(repeats > 1000, "{repeats} repeated groups");
            assert!(owed > 1000, "stamps owed after {owed} groups");
            for k in 0..64 * ways as u64 {
                assert_eq!(a.access_key(k, false), b.access_key(k, false), "probe {k}");
            }
        }
    }

    /// The multiply-based set index is `key % sets` for every set count the model builds
    /// (1, odd, the K80 L2's 768, powers of two) and keys around 2^32, where it hands
    /// over to the division.
    #[test]
    fn set_index_is_the_remainder() {
        let mut x = 99u64;
        for sets in [1u64, 3, 7, 96, 768, 1024, 12_345, (1 << 31) + 11] {
            let c = Cache {
                sets,
                ..Cache::new(128, 1, 128)
            };
            let c = Cache {
                set_magic: (u64::MAX / sets).wrapping_add(1),
                ..c
            };
            let edge = [
                0,
                1,
                sets - 1,
                sets,
                sets + 1,
                u32::MAX as u64 - 1,
                u32::MAX as u64,
            ];
            let above = [1u64 << 32, (1 << 32) + 1, u64::MAX];
            for &k in edge.iter().chain(&above) {
                assert_eq!(c.set_of(k), (k % sets) as usize, "key {k} sets {sets}");
            }
            for _ in 0..20_000 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let k = x >> 32;
                assert_eq!(c.set_of(k), (k % sets) as usize, "key {k} sets {sets}");
            }
        }
    }

    /// The vector compare sets bit `i` exactly where tag `i` equals the key (each
    /// position alone, none, all, and every lane's neighbour differing by one bit).
    #[test]
    fn eq_mask16_marks_equal_tags() {
        for k in [0u32, 7, 0x8000_0000, u32::MAX - 1] {
            assert_eq!(eq_mask::<16>(&[k ^ 1; 16], k), 0);
            assert_eq!(eq_mask::<16>(&[k; 16], k), 0xFFFF);
            for i in 0..16 {
                let mut t = [k.wrapping_add(1); 16];
                t[i] = k;
                assert_eq!(eq_mask::<16>(&t, k), 1 << i, "key {k} way {i}");
            }
            for i in 0..8 {
                let mut t = [k.wrapping_add(1); 8];
                t[i] = k;
                assert_eq!(eq_mask::<8>(&t, k), 1 << i, "key {k} way {i} of 8");
            }
            assert_eq!(eq_mask::<8>(&[k; 8], k), 0xFF);
        }
    }
}
