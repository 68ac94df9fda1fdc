//! Page sharing degree (NUBA Fig. 3, spec §6.4; issue 8's per-paper classification): how
//! many distinct SMs access each page during a run. Recorded when `run.page_sharing` is on
//! (off by default: one hash lookup per line request), from the simulated schedule itself,
//! so the blocks land on SMs exactly as the configured scheduler puts them.
//!
//! NUBA classifies an application as *low-sharing* when more than 80% of its pages are
//! accessed by a single SM (spec §6.4), measured on its 64-SM baseline with 4 KB pages; the
//! histogram buckets {1, 2-10, 11-25, 26-64} are the ranges the paper quotes (\[S\] in the
//! spec), with one more bucket for machines of more than 64 SMs.

use rustc_hash::FxHashMap;
use serde::Serialize;

/// Upper bounds (inclusive) of the sharer-count buckets: 1, 2-10, 11-25, 26-64, 65+.
pub const BUCKETS: [u32; 5] = [1, 10, 25, 64, u32::MAX];

/// NUBA's low-sharing threshold: more than this fraction of pages touched by one SM.
pub const LOW_SHARING_SINGLE_SM: f64 = 0.8;

/// Per-page SM sets: a bitset of `words` 64-bit words per page, in one arena.
#[derive(Clone, Debug)]
pub struct PageSharers {
    words: usize,
    index: FxHashMap<u64, u32>,
    bits: Vec<u64>,
}

impl PageSharers {
    /// A recorder for a machine of `sms` SMs.
    pub fn new(sms: usize) -> Self {
        PageSharers {
            words: sms.div_ceil(64).max(1),
            index: FxHashMap::default(),
            bits: Vec::new(),
        }
    }

    /// SM `sm` accessed page `vpn`.
    #[inline]
    pub fn touch(&mut self, vpn: u64, sm: usize) {
        let words = self.words;
        let next = (self.bits.len() / words) as u32;
        let i = *self.index.entry(vpn).or_insert(next) as usize;
        if i == next as usize {
            self.bits.resize(self.bits.len() + words, 0);
        }
        self.bits[i * words + sm / 64] |= 1 << (sm % 64);
    }

    /// Number of distinct SMs that touched each page, in no particular order.
    pub fn sharers(&self) -> impl Iterator<Item = u32> + '_ {
        self.bits
            .chunks(self.words)
            .map(|c| c.iter().map(|w| w.count_ones()).sum())
    }

    /// The summary reported in the statistics.
    pub fn stats(&self) -> PageSharingStats {
        let mut pages_by_sharers = [0u64; BUCKETS.len()];
        let mut max_sharers = 0;
        for n in self.sharers() {
            let b = BUCKETS.iter().position(|&hi| n <= hi).unwrap_or(0);
            pages_by_sharers[b] += 1;
            max_sharers = max_sharers.max(n);
        }
        let pages: u64 = pages_by_sharers.iter().sum();
        let single = if pages == 0 {
            0.0
        } else {
            pages_by_sharers[0] as f64 / pages as f64
        };
        PageSharingStats {
            pages,
            pages_by_sharers,
            buckets: ["1", "2-10", "11-25", "26-64", "65+"],
            single_sm_fraction: single,
            max_sharers,
            class: if single > LOW_SHARING_SINGLE_SM {
                "low"
            } else {
                "high"
            },
        }
    }
}

/// Page sharing degree over a run (`run.page_sharing`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PageSharingStats {
    /// Pages touched.
    pub pages: u64,
    /// Pages by the number of distinct SMs that touched them, in [`BUCKETS`].
    pub pages_by_sharers: [u64; 5],
    /// Labels of the buckets.
    pub buckets: [&'static str; 5],
    /// Fraction of pages touched by exactly one SM.
    pub single_sm_fraction: f64,
    /// Most SMs that touched one page.
    pub max_sharers: u32,
    /// NUBA's class (spec §6.4): "low" when more than 80% of pages have one SM, else "high".
    pub class: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_count_distinct_sms_per_page() {
        let mut p = PageSharers::new(130);
        // page 1: SM 3 only (twice); page 2: SMs 0..10 (10 SMs); page 3: 0..26 (26);
        // page 4: every SM (130, across three words)
        p.touch(1, 3);
        p.touch(1, 3);
        for sm in 0..10 {
            p.touch(2, sm);
        }
        for sm in 0..26 {
            p.touch(3, sm);
        }
        for sm in (0..130).rev() {
            p.touch(4, sm);
        }
        let s = p.stats();
        assert_eq!(s.pages, 4);
        assert_eq!(s.pages_by_sharers, [1, 1, 0, 1, 1]);
        assert_eq!(s.max_sharers, 130);
        assert_eq!(s.single_sm_fraction, 0.25);
        assert_eq!(s.class, "high");
    }

    #[test]
    fn more_than_80_percent_single_sm_pages_is_low_sharing() {
        let mut p = PageSharers::new(64);
        for vpn in 0..9 {
            p.touch(vpn, vpn as usize);
        }
        p.touch(9, 0);
        p.touch(9, 1);
        assert_eq!(p.stats().class, "low", "9 of 10 pages single-SM");
        p.touch(8, 7);
        assert_eq!(p.stats().class, "high", "8 of 10 is not more than 80%");
    }
}
