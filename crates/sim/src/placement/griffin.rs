//! Griffin-style page migration, the first of NUBA's alternatives to LAB (NUBA §7.9,
//! nuba.md §7.9 and A23): "page migration uses page access counts over a predefined
//! interval" (Griffin, Baruah et al. HPCA '20). The paper gives neither the interval nor
//! the trigger, so the defaults are the spec's suggestion (A23): at the end of every
//! 100K-cycle interval, a page whose accesses from other partitions are at least twice
//! its accesses from its home partition moves to the partition that accessed it most
//! in that interval; the counts then start again.
//!
//! This is the decision logic, a pure state machine over (page, accessing node) events
//! and interval boundaries. With `placement.migration = "griffin"` the system feeds it
//! every L1 line request at translation (the requesting SM's partition), closes an
//! interval at each of its timer epochs (`placement.migration_interval_cycles`) and moves
//! each decided page through the core's migration path (`System::migrate_page`: the
//! fault and shootdown cost, then the page copied over the network; `locus repro nuba`
//! runs it as §7.9's study). The tests show the mechanism the paper blames for its
//! losses on high-sharing benchmarks: a page shared by several partitions whose majority accessor changes from
//! one interval to the next moves every interval (thrashing).

use std::collections::BTreeMap;

/// The policy's parameters (nuba.md A23).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GriffinCfg {
    /// Length of a counting interval, cycles (A23: 100K).
    pub interval_cycles: u64,
    /// A page migrates when its remote accesses are at least `ratio` times its local
    /// ones in an interval (A23: 2).
    pub ratio: f64,
}

impl Default for GriffinCfg {
    fn default() -> Self {
        GriffinCfg {
            interval_cycles: 100_000,
            ratio: 2.0,
        }
    }
}

/// One migration decided at an interval's end: move page `vpn` from `from` to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Migration {
    pub vpn: u64,
    pub from: u32,
    pub to: u32,
}

/// Per-interval access counts of every page by accessing node.
#[derive(Clone, Debug)]
pub struct Griffin {
    cfg: GriffinCfg,
    nodes: u32,
    /// Cycle at which the current interval began.
    start: u64,
    /// Accesses of each page this interval, by node (ordered: decisions are
    /// deterministic).
    counts: BTreeMap<u64, Vec<u64>>,
    /// Migrations decided so far.
    pub migrations: u64,
}

impl Griffin {
    /// A policy over `nodes` partitions whose first interval starts at cycle 0.
    pub fn new(nodes: u32, cfg: GriffinCfg) -> Griffin {
        Griffin {
            cfg,
            nodes: nodes.max(1),
            start: 0,
            counts: BTreeMap::new(),
            migrations: 0,
        }
    }

    /// Count one access to page `vpn` from node `node`.
    pub fn record(&mut self, vpn: u64, node: u32) {
        let n = self.nodes as usize;
        let c = self.counts.entry(vpn).or_insert_with(|| vec![0; n]);
        if let Some(x) = c.get_mut(node as usize) {
            *x += 1;
        }
    }

    /// At cycle `now`: when the current interval has ended, the migrations it decides
    /// (pages in ascending order; `home` gives a page's node, `None` for an unmapped
    /// page, which is skipped) and a fresh interval; otherwise nothing.
    pub fn tick(&mut self, now: u64, home: impl Fn(u64) -> Option<u32>) -> Vec<Migration> {
        if now < self.start + self.cfg.interval_cycles {
            return Vec::new();
        }
        // a late tick closes one interval and starts the next at its own boundary
        let k = (now - self.start) / self.cfg.interval_cycles;
        self.start += k * self.cfg.interval_cycles;
        self.end_interval(home)
    }

    /// Close the current interval: decide its migrations and reset the counts.
    pub fn end_interval(&mut self, home: impl Fn(u64) -> Option<u32>) -> Vec<Migration> {
        let mut out = Vec::new();
        for (&vpn, c) in &self.counts {
            let Some(h) = home(vpn) else { continue };
            let local = c.get(h as usize).copied().unwrap_or(0);
            let remote: u64 = c.iter().sum::<u64>() - local;
            if remote == 0 || (remote as f64) < self.cfg.ratio * local as f64 {
                continue;
            }
            // the most frequent accessor; ties to the lowest node
            let (to, _) =
                c.iter().enumerate().fold(
                    (0usize, 0u64),
                    |b, (i, &x)| if x > b.1 { (i, x) } else { b },
                );
            if to as u32 != h {
                out.push(Migration {
                    vpn,
                    from: h,
                    to: to as u32,
                });
            }
        }
        self.counts.clear();
        self.migrations += out.len() as u64;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn run(g: &mut Griffin, home: &HashMap<u64, u32>, now: u64) -> Vec<Migration> {
        g.tick(now, |v| home.get(&v).copied())
    }

    #[test]
    fn a_page_used_mostly_elsewhere_moves_to_its_main_user() {
        let mut g = Griffin::new(4, GriffinCfg::default());
        let home = HashMap::from([(7u64, 0u32), (8, 1)]);
        // page 7: 2 local, 3 from node 2, 5 from node 3 -> 8 remote >= 2 x 2
        for (n, k) in [(0, 2), (2, 3), (3, 5)] {
            for _ in 0..k {
                g.record(7, n);
            }
        }
        // page 8: mostly local
        for (n, k) in [(1, 5), (3, 4)] {
            for _ in 0..k {
                g.record(8, n);
            }
        }
        // nothing before the interval ends
        assert!(run(&mut g, &home, 99_999).is_empty());
        let m = run(&mut g, &home, 100_000);
        assert_eq!(
            m,
            vec![Migration {
                vpn: 7,
                from: 0,
                to: 3
            }]
        );
        assert_eq!(g.migrations, 1);
        // counts start again: the next interval, without accesses, moves nothing
        assert!(run(&mut g, &home, 200_000).is_empty());
    }

    #[test]
    fn the_trigger_is_at_least_ratio_times_the_local_accesses() {
        let home = HashMap::from([(1u64, 0u32)]);
        for (remote, moves) in [(7u64, false), (8, true), (9, true)] {
            let mut g = Griffin::new(2, GriffinCfg::default());
            for _ in 0..4 {
                g.record(1, 0);
            }
            for _ in 0..remote {
                g.record(1, 1);
            }
            assert_eq!(
                !g.end_interval(|v| home.get(&v).copied()).is_empty(),
                moves,
                "{remote}"
            );
        }
        // a page never touched remotely, or not mapped, never moves
        let mut g = Griffin::new(2, GriffinCfg::default());
        g.record(1, 0);
        g.record(2, 1);
        assert!(g.end_interval(|v| home.get(&v).copied()).is_empty());
    }

    /// The paper's explanation of migration's losses on high-sharing benchmarks (§7.9):
    /// a page several partitions use, whose main user changes between intervals, moves
    /// every interval.
    #[test]
    fn a_page_shared_in_turns_thrashes() {
        let mut g = Griffin::new(4, GriffinCfg::default());
        let mut home = HashMap::from([(5u64, 0u32)]);
        let mut moves = 0;
        for i in 1..=8u64 {
            let main = (i % 4) as u32;
            for n in 0..4 {
                for _ in 0..if n == main { 10 } else { 2 } {
                    g.record(5, n);
                }
            }
            for m in run(&mut g, &home, i * 100_000) {
                assert_eq!(m.to, main);
                home.insert(m.vpn, m.to);
                moves += 1;
            }
        }
        // every interval whose main user is not the current home moves the page
        assert_eq!(moves, 8);
        assert_eq!(g.migrations, 8);
    }

    #[test]
    fn a_late_tick_closes_one_interval_on_its_boundary() {
        let mut g = Griffin::new(2, GriffinCfg::default());
        let home = HashMap::from([(3u64, 0u32)]);
        g.record(3, 1);
        assert_eq!(run(&mut g, &home, 250_000).len(), 1);
        // the next interval began at 200K, so it ends at 300K
        g.record(3, 1);
        assert!(run(&mut g, &home, 299_999).is_empty());
        assert_eq!(run(&mut g, &home, 300_000).len(), 1);
    }
}
