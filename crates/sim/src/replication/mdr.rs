//! `replication.kind = "mdr"`: Model-Driven Replication (NUBA §5.4, nuba.md §5.4, A5-A7).
//!
//! Time is cut into epochs of `replication.epoch_cycles` (20K). During an epoch the
//! sampled slice (partition 0, slice 0) profiles `replication.sample_sets` (8) of its sets
//! with dynamic set sampling: the real tag array gives the hit rate of the policy in
//! force; a shadow tag directory ([`Atd`], 8 sets x ways, LRU) fed with the request stream
//! the other policy would see gives the alternative's hit rate (running NoRep it also sees
//! the local SMs' read-only requests to remote homes, the would-be replicas; running
//! FullRep it does not). `Frac_local` is the share of the SMs' L1-miss reads whose home is
//! their own partition. At the boundary the analytical model ([`bw_norep`],
//! [`bw_fullrep`]) compares the effective bandwidths; replication is adopted for the next
//! epoch iff `BW_FullRep > BW_NoRep` (a tie does not replicate), `decision_cycles` (116)
//! after the boundary. Epochs count from each kernel's start (the system restarts the
//! epoch timer at every launch); the first epoch of each kernel runs NoRep and the ATD is
//! reset at kernel boundaries (A7). One global decision (A5).
//!
//! Constants per partition (A5, §3.2 \[D\]), in GB/s (units cancel): `BW_LLC` = local slices
//! x slice port, `BW_NoC` = the partition's NoC port, `BW_MEM` = its channels' peak
//! bandwidth; 89.6 : 44.8 : 22.4 on the `nuba` preset, the paper's 64 : 32 : 16 B/cycle.

use locus_engine::Ps;

/// The model's microarchitectural constants (any one unit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bw {
    pub llc: f64,
    pub noc: f64,
    pub mem: f64,
}

/// §5.4 "No replication": `Frac_local BW_local + Frac_remote BW_remote` with
/// `BW_local = h BW_LLC + min((1-h) BW_LLC, BW_MEM)` and
/// `BW_remote = min(BW_NoC, h BW_LLC + min((1-h) BW_LLC, BW_MEM))`.
pub fn bw_norep(b: Bw, frac_local: f64, h: f64) -> f64 {
    let local = h * b.llc + ((1.0 - h) * b.llc).min(b.mem);
    let remote = b.noc.min(local);
    frac_local * local + (1.0 - frac_local) * remote
}

/// §5.4 "Full replication": every L1 miss reads the local slices,
/// `h' BW_LLC + min((1-h') BW_LLC, BW_local/remote)` with
/// `BW_local/remote = Frac_local BW_MEM + Frac_remote min(BW_NoC, BW_MEM)`.
pub fn bw_fullrep(b: Bw, frac_local: f64, h_full: f64) -> f64 {
    let mem = frac_local * b.mem + (1.0 - frac_local) * b.noc.min(b.mem);
    h_full * b.llc + ((1.0 - h_full) * b.llc).min(mem)
}

/// Shadow (auxiliary) tag directory of the sampled sets: `sets` x `ways` full tags with
/// LRU stamps, allocated once.
#[derive(Clone, Debug)]
pub struct Atd {
    ways: usize,
    tags: Vec<u64>,
    stamp: Vec<u64>,
    clock: u64,
}

impl Atd {
    pub fn new(sets: usize, ways: usize) -> Self {
        Atd {
            ways,
            tags: vec![u64::MAX; sets * ways],
            stamp: vec![0; sets * ways],
            clock: 0,
        }
    }

    /// Look `line` up in shadow set `set`, filling on a miss (LRU victim). Returns hit.
    pub fn access(&mut self, set: usize, line: u64) -> bool {
        self.clock += 1;
        let b = set * self.ways;
        let ways = b..b + self.ways;
        if let Some(i) = ways.clone().find(|&i| self.tags[i] == line) {
            self.stamp[i] = self.clock;
            return true;
        }
        let v = ways.min_by_key(|&i| self.stamp[i]).unwrap_or(b);
        self.tags[v] = line;
        self.stamp[v] = self.clock;
        false
    }

    /// Forget everything (kernel boundary).
    pub fn reset(&mut self) {
        self.tags.iter_mut().for_each(|t| *t = u64::MAX);
        self.stamp.iter_mut().for_each(|s| *s = 0);
    }
}

/// MDR's profiling state and decision.
#[derive(Clone, Debug)]
pub struct Mdr {
    pub bw: Bw,
    /// Set index stride of the sampled sets (`sets / sample_sets`) and their count.
    stride: usize,
    samples: usize,
    atd: Atd,
    decision_delay: Ps,
    /// Decision in force before `switch_at`, and from then on.
    prev: bool,
    next: bool,
    switch_at: Ps,
    // the current epoch's counters
    real: (u64, u64),
    shadow: (u64, u64),
    local: (u64, u64),
    /// Epochs decided, and those that chose replication.
    pub epochs: u64,
    pub epochs_replicating: u64,
    /// The last evaluation: (h NoRep, h FullRep, Frac_local, BW_NoRep, BW_FullRep).
    pub last: Option<[f64; 5]>,
}

impl Mdr {
    /// `sets` x `ways` sampled slice, `samples` sampled sets, decision after `delay` ps.
    pub fn new(bw: Bw, sets: usize, ways: usize, samples: usize, delay: Ps) -> Self {
        let samples = samples.clamp(1, sets.max(1));
        Mdr {
            bw,
            stride: (sets / samples).max(1),
            samples,
            atd: Atd::new(samples, ways),
            decision_delay: delay,
            prev: false,
            next: false,
            switch_at: 0,
            real: (0, 0),
            shadow: (0, 0),
            local: (0, 0),
            epochs: 0,
            epochs_replicating: 0,
            last: None,
        }
    }

    /// The decision in force at `now`.
    #[inline]
    pub fn replicating(&self, now: Ps) -> bool {
        if now >= self.switch_at {
            self.next
        } else {
            self.prev
        }
    }

    /// Shadow set of real set `set`, if it is sampled.
    #[inline]
    pub fn sampled(&self, set: usize) -> Option<usize> {
        (set.is_multiple_of(self.stride) && set / self.stride < self.samples)
            .then_some(set / self.stride)
    }

    /// An L1-miss read from an SM reached its partition's slice: home local or not.
    #[inline]
    pub fn note_request(&mut self, local: bool) {
        self.local.1 += 1;
        self.local.0 += local as u64;
    }

    /// A read at the sampled slice in shadow set `k`: `real_hit` when it looked the real
    /// array up (the policy in force), `to_shadow` when the other policy would look it up.
    pub fn sample(&mut self, k: usize, line: u64, real_hit: Option<bool>, to_shadow: bool) {
        if let Some(h) = real_hit {
            self.real.1 += 1;
            self.real.0 += h as u64;
        }
        if to_shadow {
            self.shadow.1 += 1;
            self.shadow.0 += self.atd.access(k, line) as u64;
        }
    }

    /// A write allocated `line` in sampled set `k` of the real array: the shadow follows
    /// (not a hit-rate sample).
    pub fn touch(&mut self, k: usize, line: u64) {
        self.atd.access(k, line);
    }

    /// Epoch boundary at `now`: decide the next epoch's policy from this one's profile
    /// and reset the counters. Without samples of both policies, no replication.
    pub fn epoch(&mut self, now: Ps) {
        let cur = self.replicating(now);
        let rate = |(h, n): (u64, u64)| (n > 0).then(|| h as f64 / n as f64);
        let (real, shadow) = (rate(self.real), rate(self.shadow));
        let frac_local = rate(self.local).unwrap_or(1.0);
        let decide = match (real, shadow) {
            (Some(r), Some(s)) => {
                let (h_no, h_full) = if cur { (s, r) } else { (r, s) };
                let (no, full) = (
                    bw_norep(self.bw, frac_local, h_no),
                    bw_fullrep(self.bw, frac_local, h_full),
                );
                self.last = Some([h_no, h_full, frac_local, no, full]);
                full > no
            }
            _ => false,
        };
        self.prev = cur;
        self.next = decide;
        self.switch_at = now + self.decision_delay;
        self.epochs += 1;
        self.epochs_replicating += decide as u64;
        self.real = (0, 0);
        self.shadow = (0, 0);
        self.local = (0, 0);
    }

    /// A kernel starts: NoRep for its first epoch, a fresh ATD and counters (A7).
    pub fn kernel_start(&mut self) {
        self.prev = false;
        self.next = false;
        self.switch_at = 0;
        self.atd.reset();
        self.real = (0, 0);
        self.shadow = (0, 0);
        self.local = (0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: Bw = Bw {
        llc: 64.0,
        noc: 32.0,
        mem: 16.0,
    };

    /// nuba.md §5.4's worked example: h = 0.8, Frac_local = 0.5 gives BW_NoRep = 48;
    /// FullRep with h' = 0.7 gives 60.8 (replicate), with h' = 0.5 gives 48 (a tie: no).
    #[test]
    fn worked_example() {
        assert!((bw_norep(B, 0.5, 0.8) - 48.0).abs() < 1e-9);
        assert!((bw_fullrep(B, 0.5, 0.7) - 60.8).abs() < 1e-9);
        assert!((bw_fullrep(B, 0.5, 0.5) - 48.0).abs() < 1e-9);
        // [D]: BW_FullRep = 64 h' + min(64 (1 - h'), 16) whatever the fractions
        for fl in [0.0, 0.3, 1.0] {
            let h = 0.9;
            assert!(
                (bw_fullrep(B, fl, h) - (64.0 * h + (64.0 * (1.0 - h)).min(16.0))).abs() < 1e-9
            );
        }
    }

    fn mdr() -> Mdr {
        Mdr::new(B, 64, 4, 8, 116)
    }

    /// Running NoRep, a profile whose shadow (FullRep) hit rate is high and real (NoRep)
    /// one low picks replication; the reverse (replicas only thrash) does not; the switch
    /// applies `decision_cycles` after the boundary; a kernel start returns to NoRep.
    #[test]
    fn decision_follows_the_model() {
        let mut m = mdr();
        assert_eq!(m.sampled(0), Some(0));
        assert_eq!(m.sampled(8), Some(1));
        assert_eq!(m.sampled(4), None);
        for i in 0..100 {
            m.note_request(false);
            // the same 2 lines again and again in the shadow: hits; the real array misses
            m.sample(0, i % 2, Some(false), true);
        }
        m.epoch(1000);
        assert!(!m.replicating(1000) && m.replicating(1116));
        let [h_no, h_full, fl, no, full] = m.last.unwrap();
        assert!(h_no == 0.0 && h_full > 0.9 && fl == 0.0 && full > no);
        // replicating now: the real array is FullRep; a streaming profile with no hits in
        // either gives a tie (BW = BW_MEM both ways): back to NoRep
        for i in 0..100 {
            m.sample(0, 100 + i, Some(false), true);
        }
        m.epoch(2000);
        assert!(!m.replicating(2116));
        m.epoch(3000);
        assert!(!m.replicating(4000), "no samples: no replication");
        m.kernel_start();
        assert!(!m.replicating(0));
    }

    #[test]
    fn atd_is_lru() {
        let mut a = Atd::new(1, 2);
        assert!(!a.access(0, 1));
        assert!(!a.access(0, 2));
        assert!(a.access(0, 1));
        assert!(!a.access(0, 3)); // evicts 2, the least recent
        assert!(a.access(0, 1));
        assert!(!a.access(0, 2));
    }
}
