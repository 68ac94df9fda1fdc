//! Address translation timing: a per-SM L1 TLB and a per-node shared L2 TLB (LRU), with a
//! fixed page-walk latency on an L2 miss (CODA §2: per-SM TLBs and a highly threaded shared
//! MMU). Off by default (ideal translation, CODA spec A6).

use crate::cache::SetAssoc;
use serde::Serialize;

/// TLB hit/miss counters.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct TlbStats {
    pub l1_hits: u64,
    pub l1_misses: u64,
    pub l2_hits: u64,
    pub l2_misses: u64,
}

/// One TLB level.
#[derive(Clone, Debug)]
pub struct Tlb {
    store: SetAssoc,
}

impl Tlb {
    /// A TLB of `entries` entries: fully associative up to 64 entries, else 8-way.
    pub fn new(entries: u32) -> Self {
        let entries = entries.max(1).next_power_of_two() as usize;
        let ways = entries.min(64).min(if entries > 64 { 8 } else { entries });
        Tlb {
            store: SetAssoc::new(entries / ways, ways, 0),
        }
    }
    /// Look `vpn` up, filling on a miss. Returns hit.
    pub fn lookup(&mut self, vpn: u64) -> bool {
        if self.store.access(vpn) {
            true
        } else {
            self.store.insert(vpn, false, 0);
            false
        }
    }
    /// Drop all entries.
    pub fn flush(&mut self) {
        self.store.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    /// TLB reach: a working set within the entry count always hits after warm-up; one page
    /// more than the entries thrashes an LRU fully associative TLB.
    #[test]
    fn reach() {
        let mut t = Tlb::new(64);
        for round in 0..3 {
            let hits = (0..64u64).filter(|&p| t.lookup(p)).count();
            assert_eq!(hits, if round == 0 { 0 } else { 64 });
        }
        let mut t = Tlb::new(64);
        for _ in 0..3 {
            assert_eq!(
                (0..65u64).filter(|&p| t.lookup(p)).count(),
                0,
                "cyclic 65 pages thrash LRU"
            );
        }
    }
}
