//! The coherence checker (issue 7 §2): shadow versions that catch any cache returning the
//! old value of a line after a write to it completed.
//!
//! Every line has, at its home, the version of its latest data (`performed`, bumped when a
//! write, write-back or atomic is performed at the home) and the latest version whose write
//! has *completed*: performed and every invalidation it caused delivered (no invalidation
//! acknowledgements are modelled, REC §2.4, so completion is the last delivery; a write
//! that invalidates nobody completes when performed), and every earlier version completed. Every copy in an L1 or L2 remembers
//! the version it was filled with (a side table keyed by (cache, line), kept only when
//! checking). A load that issues after version `v` completed must get data of version
//! `>= v`: the checker compares at every L1 hit (against the completed version at that
//! moment) and at every delivery of data to an SM (against the completed version captured
//! when the load issued), which covers L2 hits at the requester or the home and fills.

use locus_engine::Ps;
use rustc_hash::FxHashMap;
use serde::Serialize;

/// How many violations are kept as examples.
pub const EXAMPLES: usize = 8;

/// One stale read.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Violation {
    /// "l1-hit" or "delivered" (data reaching the SM from an L2 or memory).
    pub at: &'static str,
    pub sm: u32,
    pub line: u64,
    /// Version the data had.
    pub version: u32,
    /// Version completed before the load issued.
    pub completed: u32,
    pub time_ns: f64,
}

/// Shadow state of one line at its home.
#[derive(Clone, Debug, Default)]
struct LineState {
    performed: u32,
    completed: u32,
    /// Highest version whose own invalidations were all delivered.
    finished: u32,
    /// Versions with invalidations in flight: (version, count).
    pending: Vec<(u32, u32)>,
    /// Writes that updated a requester's copy on their way to the home, not yet performed.
    in_flight: u32,
}

impl LineState {
    /// A version completes once it and every earlier version are finished: a later write
    /// that invalidates nobody (the sharers were already reset) must not complete before
    /// the invalidations of an earlier one reach the stale copies.
    fn advance(&mut self) {
        let limit = self
            .pending
            .iter()
            // an eviction's invalidations may hold version 0 (a line never written)
            .map(|&(v, _)| v.saturating_sub(1))
            .min()
            .unwrap_or(u32::MAX);
        self.completed = self.completed.max(self.finished.min(limit));
    }
}

/// Shadow state of the checker.
#[derive(Clone, Debug, Default)]
pub struct Checker {
    lines: FxHashMap<u64, LineState>,
    copies: FxHashMap<(u32, u64), u32>,
    /// Reads checked.
    pub checks: u64,
    /// Reads that returned data older than a completed write.
    pub violations: u64,
    /// The first [`EXAMPLES`] violations.
    pub examples: Vec<Violation>,
}

impl Checker {
    /// Version of the data now at the home of `line`.
    #[inline]
    pub fn performed(&self, line: u64) -> u32 {
        self.lines.get(&line).map_or(0, |l| l.performed)
    }
    /// Latest completed version of `line`.
    #[inline]
    pub fn completed(&self, line: u64) -> u32 {
        self.lines.get(&line).map_or(0, |l| l.completed)
    }
    /// A write to `line` is performed at its home: returns the new version.
    pub fn perform_write(&mut self, line: u64) -> u32 {
        let l = self.lines.entry(line).or_default();
        l.performed += 1;
        l.performed
    }
    /// A write-through write updated a requester-side copy of `line` and travels to the
    /// home: returns the version it is expected to get there (the copy's new label, so L1
    /// fills from that copy carry the write before the home performs it).
    pub fn write_issued(&mut self, line: u64) -> u32 {
        let l = self.lines.entry(line).or_default();
        l.in_flight += 1;
        l.performed + l.in_flight
    }
    /// A write counted by [`Checker::write_issued`] reached the home (call before
    /// [`Checker::perform_write`]).
    pub fn write_arrived(&mut self, line: u64) {
        if let Some(l) = self.lines.get_mut(&line) {
            l.in_flight = l.in_flight.saturating_sub(1);
        }
    }
    /// Version `ver` of `line` is finished once `invals` invalidations are delivered (now
    /// if 0); it completes when every earlier version has too.
    pub fn complete_after(&mut self, line: u64, ver: u32, invals: u32) {
        let l = self.lines.entry(line).or_default();
        if invals == 0 {
            l.finished = l.finished.max(ver);
        } else {
            l.pending.push((ver, invals));
        }
        l.advance();
    }
    /// One invalidation caused by version `ver` of `line` was delivered.
    pub fn inval_delivered(&mut self, line: u64, ver: u32) {
        let Some(l) = self.lines.get_mut(&line) else {
            return;
        };
        if let Some(i) = l.pending.iter().position(|&(v, _)| v == ver) {
            l.pending[i].1 -= 1;
            if l.pending[i].1 == 0 {
                l.pending.swap_remove(i);
                l.finished = l.finished.max(ver);
                l.advance();
            }
        }
    }
    /// Cache `cache` now holds `line` at version `ver`.
    #[inline]
    pub fn install(&mut self, cache: u32, line: u64, ver: u32) {
        self.copies.insert((cache, line), ver);
    }
    /// Version of the copy of `line` in `cache` (0 if never installed).
    #[inline]
    pub fn copy(&self, cache: u32, line: u64) -> u32 {
        self.copies.get(&(cache, line)).copied().unwrap_or(0)
    }
    /// A read by SM `sm` got version `have` of `line` while `need` had completed before it
    /// issued.
    pub fn check(&mut self, at: &'static str, sm: u32, line: u64, have: u32, need: u32, now: Ps) {
        self.checks += 1;
        if have < need {
            self.violations += 1;
            if self.examples.len() < EXAMPLES {
                self.examples.push(Violation {
                    at,
                    sm,
                    line,
                    version: have,
                    completed: need,
                    time_ns: now as f64 / 1000.0,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_completes_when_its_last_invalidation_is_delivered() {
        let mut c = Checker::default();
        c.install(0, 9, c.performed(9));
        let v = c.perform_write(9);
        assert_eq!((v, c.completed(9)), (1, 0));
        c.complete_after(9, v, 2);
        // still in flight: the old copy may be read without a violation
        c.check("l1-hit", 0, 9, c.copy(0, 9), c.completed(9), 0);
        assert_eq!(c.violations, 0);
        c.inval_delivered(9, v);
        assert_eq!(c.completed(9), 0);
        c.inval_delivered(9, v);
        assert_eq!(c.completed(9), 1);
        c.check("l1-hit", 0, 9, c.copy(0, 9), c.completed(9), 5);
        assert_eq!((c.checks, c.violations), (2, 1));
        assert_eq!(c.examples[0].version, 0);
        assert_eq!(c.examples[0].completed, 1);
        // a write that invalidates nobody completes at once
        let v2 = c.perform_write(9);
        c.complete_after(9, v2, 0);
        assert_eq!(c.completed(9), 2);
    }

    #[test]
    fn a_later_write_waits_for_the_invalidations_of_an_earlier_one() {
        let mut c = Checker::default();
        let v1 = c.perform_write(3);
        c.complete_after(3, v1, 1);
        // the sharers were reset by v1: v2 invalidates nobody, yet stale copies of v0 may
        // still exist until v1's invalidation lands
        let v2 = c.perform_write(3);
        c.complete_after(3, v2, 0);
        assert_eq!(c.completed(3), 0);
        c.inval_delivered(3, v1);
        assert_eq!(c.completed(3), 2);
    }
}
