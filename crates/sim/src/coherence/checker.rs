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
    /// `completed` at the latest acquire (kernel start), valid when `epoch` is the
    /// checker's; older epochs mean `completed` has not moved since.
    acq: u32,
    epoch: u32,
}

impl LineState {
    /// A version completes once it and every earlier version are finished: a later write
    /// that invalidates nobody (the sharers were already reset) must not complete before
    /// the invalidations of an earlier one reach the stale copies. `epoch` is the
    /// checker's acquire count: the first change after an acquire keeps the old value.
    fn advance(&mut self, epoch: u32) {
        let limit = self
            .pending
            .iter()
            // an eviction's invalidations may hold version 0 (a line never written)
            .map(|&(v, _)| v.saturating_sub(1))
            .min()
            .unwrap_or(u32::MAX);
        let c = self.completed.max(self.finished.min(limit));
        if c != self.completed && self.epoch != epoch {
            self.acq = self.completed;
            self.epoch = epoch;
        }
        self.completed = c;
    }
    /// `completed` as it was at the acquire numbered `epoch`.
    fn at_acquire(&self, epoch: u32) -> u32 {
        if self.epoch == epoch {
            self.acq
        } else {
            self.completed
        }
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
    /// Lines of migrated pages whose copy has not landed yet: line -> landing time (issue
    /// 13's real migration). The page table points at the new frame as soon as the fault
    /// is taken, so anything performed at one of these lines before its landing time would
    /// be overwritten by the copy.
    landing: FxHashMap<u64, Ps>,
    /// Writes performed at the home, in all.
    pub writes_performed: u64,
    /// Writes performed at a frame before its migration copy landed: the copy overwrites
    /// them, so their values are lost (the line keeps the version the copy carries).
    pub lost_writes: u64,
    /// Reads served at a frame before its migration copy landed (they got no valid data).
    pub early_reads: u64,
    /// Acquires (kernel starts) so far; a line stamps `epoch + 1`, so a fresh line's
    /// stamp 0 is always old.
    epoch: u32,
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
    /// An acquire (a kernel starts; every L1 is cleared): from now on
    /// [`Checker::completed_at_acquire`] answers with the versions completed at this moment.
    pub fn acquire(&mut self) {
        self.epoch += 1;
    }
    /// The latest version of `line` completed at the latest acquire: what a software
    /// coherent L1 (invalidated at kernel start only, `coherence.inval_scope = "l2"`) must
    /// at least hold; a write completed since may still be unseen there.
    #[inline]
    pub fn completed_at_acquire(&self, line: u64) -> u32 {
        self.lines
            .get(&line)
            .map_or(0, |l| l.at_acquire(self.epoch + 1))
    }
    /// A write to `line` is performed at its home at `now`: returns the new version. A
    /// write performed at the frame of a page whose migration copy is still in flight is
    /// lost (the copy lands over it): counted in [`Checker::lost_writes`], and the line
    /// keeps the version the copy brings.
    pub fn perform_write(&mut self, line: u64, now: Ps) -> u32 {
        self.writes_performed += 1;
        let lost = self.in_migration(line, now);
        let l = self.lines.entry(line).or_default();
        if lost {
            self.lost_writes += 1;
        } else {
            l.performed += 1;
        }
        l.performed
    }

    /// A read of `line` is served at its home at `now` (an L2 slice or DRAM): counted in
    /// [`Checker::early_reads`] if the line's migration copy has not landed.
    pub fn home_read(&mut self, line: u64, now: Ps) {
        if self.in_migration(line, now) {
            self.early_reads += 1;
        }
    }

    /// Is `line` part of a page whose migration copy lands after `now`?
    fn in_migration(&mut self, line: u64, now: Ps) -> bool {
        if self.landing.is_empty() {
            return false;
        }
        match self.landing.get(&line) {
            Some(&t) if now < t => true,
            Some(_) => {
                self.landing.remove(&line);
                false
            }
            None => false,
        }
    }

    /// A page moves (issue 13's real migration): its `lines` lines at `from..` are copied to
    /// `to..`, landing at `land`. The data (each line's versions) move with the copy, the
    /// old frame is freed, and the new lines are in flight until `land`.
    pub fn page_copy(&mut self, from: u64, to: u64, lines: u64, land: Ps) {
        for i in 0..lines {
            if let Some(st) = self.lines.remove(&(from + i)) {
                self.lines.insert(to + i, st);
            }
            self.landing.insert(to + i, land);
        }
    }

    /// The versions of the data held at the homes, summed over every line: with no lost
    /// write, it equals [`Checker::writes_performed`] (every written value survives).
    pub fn surviving_writes(&self) -> u64 {
        self.lines.values().map(|l| l.performed as u64).sum()
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
        l.advance(self.epoch + 1);
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
                l.advance(self.epoch + 1);
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
        let v = c.perform_write(9, 0);
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
        let v2 = c.perform_write(9, 0);
        c.complete_after(9, v2, 0);
        assert_eq!(c.completed(9), 2);
    }

    #[test]
    fn an_acquire_marks_the_versions_a_software_coherent_l1_owes() {
        let mut c = Checker::default();
        let v1 = c.perform_write(7, 0);
        c.complete_after(7, v1, 0);
        // no acquire yet: the run's start is the mark
        assert_eq!((c.completed(7), c.completed_at_acquire(7)), (1, 0));
        c.acquire();
        assert_eq!(c.completed_at_acquire(7), 1);
        let v2 = c.perform_write(7, 0);
        c.complete_after(7, v2, 1);
        c.inval_delivered(7, v2);
        let v3 = c.perform_write(7, 0);
        c.complete_after(7, v3, 0);
        assert_eq!((c.completed(7), c.completed_at_acquire(7)), (3, 1));
        c.acquire();
        assert_eq!(c.completed_at_acquire(7), 3);
        // a line untouched since an older acquire answers its completed version
        c.acquire();
        assert_eq!(c.completed_at_acquire(7), 3);
        assert_eq!(c.completed_at_acquire(8), 0);
    }

    #[test]
    fn a_later_write_waits_for_the_invalidations_of_an_earlier_one() {
        let mut c = Checker::default();
        let v1 = c.perform_write(3, 0);
        c.complete_after(3, v1, 1);
        // the sharers were reset by v1: v2 invalidates nobody, yet stale copies of v0 may
        // still exist until v1's invalidation lands
        let v2 = c.perform_write(3, 0);
        c.complete_after(3, v2, 0);
        assert_eq!(c.completed(3), 0);
        c.inval_delivered(3, v1);
        assert_eq!(c.completed(3), 2);
    }

    #[test]
    fn a_migration_copy_carries_the_versions_and_overwrites_early_writes() {
        let mut c = Checker::default();
        c.perform_write(100, 0);
        c.perform_write(100, 0);
        c.perform_write(101, 0);
        // page of 2 lines moves from 100.. to 500.., landing at t = 50
        c.page_copy(100, 500, 2, 50);
        assert_eq!((c.performed(500), c.performed(501)), (2, 1));
        assert_eq!(c.performed(100), 0, "the old frame is freed");
        // a write before the copy lands is lost; one after it survives
        c.perform_write(500, 49);
        c.home_read(501, 10);
        assert_eq!((c.lost_writes, c.early_reads, c.performed(500)), (1, 1, 2));
        c.perform_write(500, 50);
        c.home_read(501, 50);
        assert_eq!((c.lost_writes, c.early_reads, c.performed(500)), (1, 1, 3));
        assert_eq!(c.writes_performed, 5);
        assert_eq!(c.surviving_writes(), 4);
    }
}
