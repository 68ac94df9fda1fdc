//! Carrefour-style page replication, the second of NUBA's alternatives to LAB (NUBA §7.9,
//! nuba.md §7.9 and A23): "page replication replicates pages when there is enough free
//! memory" (Carrefour, Dashti et al. ASPLOS '13). The paper gives no thresholds, so the
//! defaults are the spec's suggestion (A23): at the end of every counting interval, a
//! page that has only ever been read gets a replica in every partition that read it
//! remotely in that interval, while that partition's free memory exceeds 10%; a write to
//! a replicated page collapses it back to its home copy (the replicas are dropped), and
//! a page once written is never replicated again.
//!
//! This is the decision logic, a pure state machine over (page, node, read/write) events
//! and interval boundaries. With `placement.migration = "carrefour"` the system feeds it
//! every line request of a coarse page at translation, closes an interval at each timer
//! epoch (`placement.migration_interval_cycles`), makes the decided replicas in the page
//! table's per-partition replica frames ([`crate::placement::Replicas`]; the page copied
//! over the network) and serves reads from them; a write collapses them first
//! (`System::translate`). Collapse on write is the paper's Carrefour (Dashti et al.: a
//! write to a replicated page faults and the replicas are merged back), chosen over
//! refusing replication up front because only a write shows a page is not read-only.
//! Unlike MDR ([`crate::replication`]), which replicates single read-only cache lines in
//! the LLC, this replicates whole pages in memory, which the paper blames for severe
//! cache thrashing on high-sharing benchmarks (§7.9).

use std::collections::{BTreeMap, BTreeSet};

/// The policy's parameters (nuba.md A23).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CarrefourCfg {
    /// Replicate into a node only while its free memory is above this fraction (A23: 10%).
    pub min_free_fraction: f64,
}

impl Default for CarrefourCfg {
    fn default() -> Self {
        CarrefourCfg {
            min_free_fraction: 0.10,
        }
    }
}

/// What an interval's end decided.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decisions {
    /// (page, node): a replica of the page is made in the node's memory.
    pub replicate: Vec<(u64, u32)>,
}

/// Replication state: which pages were ever written, which nodes read which page remotely
/// this interval, and the replicas made.
#[derive(Clone, Debug, Default)]
pub struct Carrefour {
    cfg: CarrefourCfg,
    written: BTreeSet<u64>,
    readers: BTreeMap<u64, BTreeSet<u32>>,
    replicas: BTreeMap<u64, BTreeSet<u32>>,
    /// Replicas made and pages collapsed so far.
    pub made: u64,
    pub collapses: u64,
}

impl Carrefour {
    pub fn new(cfg: CarrefourCfg) -> Carrefour {
        Carrefour {
            cfg,
            ..Carrefour::default()
        }
    }

    /// Count one access to page `vpn` (homed at `home`) from node `node`. A write
    /// collapses the page's replicas (returned: the nodes whose replica is dropped) and
    /// marks it never to be replicated again.
    pub fn record(&mut self, vpn: u64, home: u32, node: u32, write: bool) -> Vec<u32> {
        if write {
            self.written.insert(vpn);
            self.readers.remove(&vpn);
            let dropped: Vec<u32> = self
                .replicas
                .remove(&vpn)
                .map(|s| s.into_iter().collect())
                .unwrap_or_default();
            if !dropped.is_empty() {
                self.collapses += 1;
            }
            return dropped;
        }
        if node != home && !self.written.contains(&vpn) {
            self.readers.entry(vpn).or_default().insert(node);
        }
        Vec::new()
    }

    /// Has page `vpn` ever been written?
    pub fn is_written(&self, vpn: u64) -> bool {
        self.written.contains(&vpn)
    }

    /// The replica of `vpn` on `node` could not be made (no frame): drop it from the
    /// state, so a later interval may try again.
    pub fn forget(&mut self, vpn: u64, node: u32) {
        if let Some(s) = self.replicas.get_mut(&vpn) {
            if s.remove(&node) {
                self.made -= 1;
            }
            if s.is_empty() {
                self.replicas.remove(&vpn);
            }
        }
    }

    /// The node that serves a read of page `vpn` (homed at `home`) from `node`: its own
    /// replica if it has one, else the home.
    pub fn serve(&self, vpn: u64, home: u32, node: u32) -> u32 {
        match self.replicas.get(&vpn) {
            Some(s) if s.contains(&node) => node,
            _ => home,
        }
    }

    /// Close an interval: replicate every read-only page into each node that read it
    /// remotely, while that node's free memory fraction (`free(node)`, updated by the
    /// caller as frames are taken: one call per decision) stays above the threshold.
    pub fn end_interval(&mut self, mut free: impl FnMut(u32) -> f64) -> Decisions {
        let mut d = Decisions::default();
        for (vpn, nodes) in std::mem::take(&mut self.readers) {
            for n in nodes {
                let has = self.replicas.get(&vpn).is_some_and(|s| s.contains(&n));
                if has || free(n) <= self.cfg.min_free_fraction {
                    continue;
                }
                self.replicas.entry(vpn).or_default().insert(n);
                d.replicate.push((vpn, n));
                self.made += 1;
            }
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_pages_are_replicated_where_they_are_read() {
        let mut c = Carrefour::new(CarrefourCfg::default());
        // page 1 (home 0) read by nodes 0, 2 and 3; page 2 (home 1) read only at home
        for n in [0, 2, 3, 2] {
            c.record(1, 0, n, false);
        }
        c.record(2, 1, 1, false);
        assert_eq!(c.serve(1, 0, 2), 0);
        let d = c.end_interval(|_| 0.5);
        assert_eq!(d.replicate, vec![(1, 2), (1, 3)]);
        assert_eq!(
            (c.serve(1, 0, 2), c.serve(1, 0, 3), c.serve(1, 0, 1)),
            (2, 3, 0)
        );
        // an existing replica is not made again
        c.record(1, 0, 2, false);
        assert!(c.end_interval(|_| 0.5).replicate.is_empty());
        assert_eq!(c.made, 2);
    }

    #[test]
    fn a_write_collapses_the_replicas_and_forbids_new_ones() {
        let mut c = Carrefour::new(CarrefourCfg::default());
        c.record(4, 0, 1, false);
        c.end_interval(|_| 0.5);
        assert_eq!(c.serve(4, 0, 1), 1);
        assert_eq!(c.record(4, 0, 3, true), vec![1]);
        assert_eq!(c.collapses, 1);
        assert_eq!(c.serve(4, 0, 1), 0);
        c.record(4, 0, 1, false);
        assert!(c.end_interval(|_| 0.5).replicate.is_empty());
        // a page written before it was ever read is never replicated
        let mut c = Carrefour::new(CarrefourCfg::default());
        assert!(c.record(9, 0, 0, true).is_empty());
        c.record(9, 0, 1, false);
        assert!(c.end_interval(|_| 0.5).replicate.is_empty());
        assert_eq!(c.collapses, 0);
    }

    #[test]
    fn replication_stops_at_the_free_memory_threshold() {
        let mut c = Carrefour::new(CarrefourCfg::default());
        for p in 0..5u64 {
            c.record(p, 0, 1, false);
            c.record(p, 0, 2, false);
        }
        // node 1 has 13% free and each replica takes 1%: three replicas, then 10% stops it;
        // node 2 is at the threshold from the start
        let mut free1 = 13u32; // free frames out of 100
        let d = c.end_interval(|n| {
            if n == 1 {
                let f = free1 as f64 / 100.0;
                free1 -= 1;
                f
            } else {
                0.10
            }
        });
        let on1: Vec<u64> = d
            .replicate
            .iter()
            .filter(|r| r.1 == 1)
            .map(|r| r.0)
            .collect();
        assert_eq!(on1, vec![0, 1, 2]);
        assert!(d.replicate.iter().all(|r| r.1 == 1));
    }
}
