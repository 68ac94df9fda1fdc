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
/// Each way is one `(tag, stamp)` pair, a set's ways contiguous, so a lookup reads one
/// run of memory and finds the hit and the LRU victim in the same pass (an empty way
/// has stamp 0, below every used way's, so it is the victim first: the replacement is
/// the plain LRU with empty ways filled in order).
#[derive(Clone, Debug)]
pub struct Cache {
    sets: u64,
    ways: usize,
    line_shift: u32,
    lines: Vec<(u64, u64)>,
    dirty: Vec<bool>,
    clock: u64,
    /// The last key looked up and its slot: the next lookup of the same key is a hit in
    /// that slot (nothing ran in between that could evict it), found without the scan.
    last: (u64, usize),
}

const EMPTY: u64 = u64::MAX;

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
            lines: vec![(EMPTY, 0); sets as usize * ways],
            dirty: vec![false; sets as usize * ways],
            clock: 0,
            last: (EMPTY, 0),
        }
    }

    /// Invalidates every line (dirty ones are dropped, not written back: used for the
    /// read-only texture and constant caches at a launch boundary).
    pub fn clear(&mut self) {
        self.lines.fill((EMPTY, 0));
        self.dirty.fill(false);
        self.last = (EMPTY, 0);
    }

    /// Line size in bytes.
    pub fn line_bytes(&self) -> u64 {
        1 << self.line_shift
    }

    /// Looks up the line holding byte `addr` (or a line key already divided by the line
    /// size when `addr` is a key: see [`Cache::access_key`]); allocates on a miss; a write
    /// marks the line dirty.
    pub fn access(&mut self, addr: u64, write: bool) -> Outcome {
        self.access_key(addr >> self.line_shift, write)
    }

    /// As [`Cache::access`] with a line key (line address / line size).
    #[inline]
    pub fn access_key(&mut self, key: u64, write: bool) -> Outcome {
        self.clock += 1;
        if key == self.last.0 {
            let i = self.last.1;
            self.lines[i].1 = self.clock;
            self.dirty[i] |= write;
            return Outcome::Hit;
        }
        let s = (key % self.sets) as usize * self.ways;
        let set = &mut self.lines[s..s + self.ways];
        let mut v = 0;
        let mut oldest = u64::MAX;
        for (i, l) in set.iter_mut().enumerate() {
            if l.0 == key {
                l.1 = self.clock;
                self.dirty[s + i] |= write;
                self.last = (key, s + i);
                return Outcome::Hit;
            }
            if l.1 < oldest {
                oldest = l.1;
                v = i;
            }
        }
        let old = set[v].0;
        set[v] = (key, self.clock);
        let d = &mut self.dirty[s + v];
        let evicted_dirty = (old != EMPTY && *d).then(|| old << self.line_shift);
        *d = write;
        self.last = (key, s + v);
        Outcome::Miss { evicted_dirty }
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

    /// The one-pass lookup is the plain LRU: against a reference that keeps each set's
    /// keys in recency order (victim: an empty way first, else the least recent), the
    /// same hits, misses and dirty victims on a pseudo-random stream of reads and writes
    /// over 3 sets x 4 ways.
    #[test]
    fn one_pass_lookup_is_plain_lru() {
        let mut c = Cache::new(12 * 64, 4, 64);
        let mut sets: Vec<Vec<(u64, bool)>> = vec![Vec::new(); 3];
        let mut x = 12345u64;
        for _ in 0..20000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let key = (x >> 33) % 40;
            let write = (x >> 20) & 3 == 0;
            let set = &mut sets[(key % 3) as usize];
            let want = if let Some(i) = set.iter().position(|e| e.0 == key) {
                let mut e = set.remove(i);
                e.1 |= write;
                set.push(e);
                Outcome::Hit
            } else {
                let ev = if set.len() == 4 {
                    let v = set.remove(0);
                    v.1.then_some(v.0 * 64)
                } else {
                    None
                };
                set.push((key, write));
                Outcome::Miss { evicted_dirty: ev }
            };
            assert_eq!(c.access_key(key, write), want);
        }
    }
}
