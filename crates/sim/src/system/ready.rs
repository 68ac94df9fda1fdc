//! A per-SM timing wheel of warp ready times (issue 7, Performance).
//!
//! The scheduler needs, on every SM tick, the warps whose ready time (`System::wready`) has
//! come, and, when nothing issues, the earliest ready time of the others. Scanning every
//! eligible warp for that on every tick cost a tenth of a bfs run (most eligible warps
//! wait for an 18-cycle ALU result, so a tick looked at a dozen warps to find one or two).
//! The wheel keeps the answer incrementally: a warp's ready time is filed, when it is set,
//! under the SM cycle at which it is reached (`ceil(t / period)`), in one of 64 per-cycle
//! buckets (a bit per warp slot); a tick merges the buckets of the cycles it has passed
//! into the `ready` mask.
//!
//! Exact, not an approximation: ticks run only at cycle edges of the SM's clock
//! ([`super::System::wake_sm`] rounds up to one), and at an edge `now = k * period` a time
//! `t` has come (`t <= now`) exactly when `ceil(t / period) <= k`. The earliest pending
//! cycle `c` stands for the earliest pending time `t` because the SM is woken at
//! `next_edge(t) = c * period` either way.

use super::System;
use locus_engine::Ps;

impl System {
    /// Set the ready time of warp `wg` (a warp of SM `sm`) to `t`: the scheduler skips
    /// it until then. Every write of `System::wready` goes through here so the SM's
    /// [`ReadyWheel`] mirrors it (`sm` is passed, not divided out of `wg`: this runs
    /// several times per issued instruction).
    #[inline]
    pub(crate) fn set_wready(&mut self, sm: usize, wg: usize, t: Ps) {
        debug_assert_eq!(wg / self.max_warps, sm);
        self.wready[wg] = t;
        self.sms[sm].wheel.set(wg - sm * self.max_warps, t);
    }

    /// [`System::set_wready`] for a warp of SM `sm` that the running tick found ready
    /// (a candidate: its bit is in the wheel's ready mask): the same update without
    /// looking for where the warp was filed. The scheduler calls this on every issue and
    /// every deferral.
    #[inline]
    pub(crate) fn defer_ready_warp(&mut self, sm: usize, wg: usize, t: Ps) {
        debug_assert_eq!(wg / self.max_warps, sm);
        self.wready[wg] = t;
        self.sms[sm].wheel.defer(wg - sm * self.max_warps, t);
    }
}

/// Ready times of the (up to 64) warp slots of one SM, bucketed by SM cycle.
#[derive(Clone, Debug)]
pub(crate) struct ReadyWheel {
    /// The SM's clock period (ps).
    period: Ps,
    /// Every cycle up to and including `cur` has been merged into `ready`.
    cur: u64,
    /// Slots whose ready time is at or before cycle `cur`.
    ready: u64,
    /// `buckets[c % 64]`: slots whose ready time falls in cycle `c`, for `cur < c < cur + 64`.
    buckets: [u64; 64],
    /// Bit `i` set when `buckets[i]` is not empty.
    occ: u64,
    /// Slots whose ready cycle lay 64 or more cycles ahead when it was set (checked one by
    /// one at each advance; rare: a long load/store-unit backlog, replays).
    far: u64,
    /// Each slot's ready cycle (where to find it when it changes).
    cyc: [u64; 64],
}

impl ReadyWheel {
    /// An empty wheel for an SM of clock period `period` (ps); every slot is ready at 0.
    pub fn new(period: Ps) -> ReadyWheel {
        ReadyWheel {
            period: period.max(1),
            cur: 0,
            ready: u64::MAX,
            buckets: [0; 64],
            occ: 0,
            far: 0,
            cyc: [0; 64],
        }
    }

    /// Slot `w`'s ready time is now `t` (ps); replaces its previous one.
    #[inline]
    pub fn set(&mut self, w: usize, t: Ps) {
        let bit = 1u64 << w;
        // take the slot out of wherever it was
        let old = self.cyc[w];
        if self.ready & bit != 0 {
            self.ready &= !bit;
        } else if self.far & bit != 0 {
            self.far &= !bit;
        } else {
            let i = (old % 64) as usize;
            self.buckets[i] &= !bit;
            if self.buckets[i] == 0 {
                self.occ &= !(1u64 << i);
            }
        }
        self.file(w, t);
    }

    /// [`ReadyWheel::set`] for a slot that is in the ready mask now.
    #[inline]
    pub fn defer(&mut self, w: usize, t: Ps) {
        debug_assert!(self.ready & (1u64 << w) != 0, "slot {w} is not ready");
        self.ready &= !(1u64 << w);
        self.file(w, t);
    }

    /// File slot `w` (in no set now) under the cycle of time `t`.
    #[inline]
    fn file(&mut self, w: usize, t: Ps) {
        let bit = 1u64 << w;
        // the common case (an issue: ready one cycle after the current edge) skips the
        // division
        let c = if t == (self.cur + 1) * self.period {
            self.cur + 1
        } else {
            t.div_ceil(self.period)
        };
        self.cyc[w] = c;
        if c <= self.cur {
            self.ready |= bit;
        } else if c - self.cur < 64 {
            let i = (c % 64) as usize;
            self.buckets[i] |= bit;
            self.occ |= 1u64 << i;
        } else {
            self.far |= bit;
        }
    }

    /// Advance to the edge `now` (ps, a cycle edge, not before the last advance) and
    /// return the slots whose ready time has come (`wready <= now`).
    #[inline]
    pub fn advance(&mut self, now: Ps) -> u64 {
        // ticks mostly come one cycle apart (or again at the same edge): no division then
        let k = if now == (self.cur + 1) * self.period {
            self.cur + 1
        } else if now == self.cur * self.period {
            self.cur
        } else {
            now / self.period
        };
        debug_assert_eq!(k * self.period, now, "SM ticks run at cycle edges");
        if k > self.cur {
            let n = k - self.cur;
            let m = if n >= 64 {
                u64::MAX
            } else {
                ((1u64 << n) - 1).rotate_left(((self.cur + 1) % 64) as u32)
            };
            let mut hit = self.occ & m;
            self.occ &= !m;
            while hit != 0 {
                let i = hit.trailing_zeros() as usize;
                hit &= hit - 1;
                self.ready |= self.buckets[i];
                self.buckets[i] = 0;
            }
            self.cur = k;
            let mut far = self.far;
            while far != 0 {
                let w = far.trailing_zeros() as usize;
                far &= far - 1;
                // come: ready; within the horizon now: into its bucket; else stays
                let c = self.cyc[w];
                if c <= k {
                    self.far &= !(1u64 << w);
                    self.ready |= 1u64 << w;
                } else if c - k < 64 {
                    self.far &= !(1u64 << w);
                    let i = (c % 64) as usize;
                    self.buckets[i] |= 1u64 << w;
                    self.occ |= 1u64 << i;
                }
            }
        }
        self.ready
    }

    /// The earliest ready time (a cycle edge, ps) among slots in `mask` whose time has not
    /// come yet, or `Ps::MAX`: `next_edge` of the minimum of their `wready`.
    #[inline]
    pub fn next_of(&self, mask: u64) -> Ps {
        let mut best = u64::MAX;
        // buckets in cycle order, starting at cycle cur + 1
        let mut occ = self.occ.rotate_right(((self.cur + 1) % 64) as u32);
        while occ != 0 {
            let d = occ.trailing_zeros() as u64;
            occ &= occ - 1;
            let i = ((self.cur + 1 + d) % 64) as usize;
            if self.buckets[i] & mask != 0 {
                best = self.cur + 1 + d;
                break;
            }
        }
        let mut far = self.far & mask;
        while far != 0 {
            let w = far.trailing_zeros() as usize;
            far &= far - 1;
            best = best.min(self.cyc[w]);
        }
        if best == u64::MAX {
            Ps::MAX
        } else {
            best * self.period
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference: the slots with `t <= now`, and next_edge(min t > now) over `mask`.
    fn naive(ts: &[Ps; 64], now: Ps, mask: u64, p: Ps) -> (u64, Ps) {
        let mut ready = 0;
        let mut next = Ps::MAX;
        for (w, &t) in ts.iter().enumerate() {
            if t <= now {
                ready |= 1 << w;
            } else if mask & (1 << w) != 0 {
                next = next.min(t.div_ceil(p) * p);
            }
        }
        (ready, next)
    }

    #[test]
    fn wheel_matches_a_scan_of_the_ready_times() {
        // pseudo-random ready times near and far (beyond the 64-cycle horizon), set at
        // random edges, advanced by small and large steps: the wheel must agree with a scan
        // after every step (a bucket index off by one, a missed far slot or a stale slot
        // left in its old bucket makes it disagree)
        let p = 500;
        let mut wh = ReadyWheel::new(p);
        let mut ts = [0 as Ps; 64];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut rnd = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut now: Ps = 0;
        for step in 0..20_000 {
            let r = rnd();
            now += p * match r % 10 {
                0 => 0,
                1..=6 => 1,
                7 | 8 => r % 40,
                _ => r % 300,
            };
            let ready = wh.advance(now);
            let mask = rnd();
            assert_eq!(
                (ready, wh.next_of(mask)),
                naive(&ts, now, mask, p),
                "step {step}"
            );
            for _ in 0..(rnd() % 4) {
                let w = (rnd() % 64) as usize;
                let r = rnd();
                let t = match r % 5 {
                    0 => now + p,
                    1 => now.saturating_sub(r % 3000),
                    2 => now + r % 40_000,
                    3 => now + r % 100_000,
                    _ => now + (r % 20) * p,
                };
                // a ready slot may go through `defer` (what the scheduler uses)
                if wh.ready & (1u64 << w) != 0 && r % 3 == 0 {
                    wh.defer(w, t);
                } else {
                    wh.set(w, t);
                }
                ts[w] = t;
            }
            let ready = wh.advance(now);
            assert_eq!(
                (ready, wh.next_of(mask)),
                naive(&ts, now, mask, p),
                "step {step} after set"
            );
        }
    }
}
