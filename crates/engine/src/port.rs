//! A port (one direction of a link, a crossbar output, a cache's data port): bandwidth is
//! modelled by reserving the port's next free time, latency by the arrival time it returns.
//! A saturated port therefore delays everything queued behind it (FIFO), and the bytes it
//! carries can never exceed `bandwidth x time`.

use crate::time::Ps;
use serde::Serialize;
use std::collections::VecDeque;

/// A serialising port with fixed latency.
#[derive(Clone, Debug)]
pub struct Port {
    /// Picoseconds per byte, in 1/1024 ps fixed point (exact for the usual GB/s figures).
    ps_per_byte_fx: u64,
    /// Fixed one-way latency added after serialisation.
    pub latency: Ps,
    next_free: Ps,
    stats: PortStats,
    /// Busy intervals `[start, end)` reserved ahead, sorted and disjoint, when the port
    /// fills gaps ([`Port::filling_gaps`]); `None`: FIFO on the next free time. A deque:
    /// intervals leave from the front as time passes ([`GAP_WINDOW_PS`]) and new ones are
    /// mostly reserved near the back, so neither moves the whole list (a vector's did: a
    /// tenth of a NUBA run's host time).
    gaps: Option<VecDeque<(Ps, Ps)>>,
    /// Gap-filling ports: the latest end of the busy intervals forgotten so far
    /// ([`GAP_WINDOW_PS`]); no packet starts before it, so a packet arriving later than the
    /// window (behind a reservation made far ahead) queues behind what was forgotten
    /// instead of overlapping it.
    forgotten: Ps,
}

/// How far behind the newest arrival a gap-filling port keeps its past busy intervals: a
/// packet arriving earlier than that starts no earlier than the end of the last interval
/// forgotten (it cannot know the gaps there any more, and it must never overlap a
/// reservation: the port's bandwidth stays exact).
pub const GAP_WINDOW_PS: Ps = 2_000_000;

/// What a port carried.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct PortStats {
    /// Packets sent.
    pub packets: u64,
    /// Bytes sent (serialised onto the port).
    pub bytes_sent: u64,
    /// Bytes received at the far end (counted by the receiver via [`Port::receive`]).
    pub bytes_received: u64,
    /// Picoseconds the port spent serialising.
    pub busy_ps: u64,
    /// Sum of queueing delay (waiting for the port) over packets, in ps.
    pub queue_ps: u64,
}

impl Port {
    /// A port of `gbps` gigabytes per second (1 GB/s = 1 byte/ns) and `latency` ps.
    pub fn new(gbps: f64, latency: Ps) -> Port {
        assert!(gbps > 0.0, "port bandwidth must be positive");
        Port {
            ps_per_byte_fx: ((1000.0 / gbps) * 1024.0).round().max(1.0) as u64,
            latency,
            next_free: 0,
            stats: PortStats::default(),
            gaps: None,
            forgotten: 0,
        }
    }
    /// This port, serialising each packet in the earliest idle gap at or after its arrival
    /// instead of after the last reservation. A multi-hop route reserves its later links
    /// ahead of time (when the packet enters the network); on a FIFO port such a future
    /// reservation would hold back every packet that reaches the link earlier, a queue
    /// that no real link has (NUBA's two-stage crossbar, nuba.md §2.1). Bandwidth stays
    /// exact: reserved intervals never overlap.
    pub fn filling_gaps(mut self) -> Port {
        self.gaps = Some(VecDeque::new());
        self
    }
    /// Serialisation time of `bytes`.
    #[inline]
    pub fn ser(&self, bytes: u32) -> Ps {
        (bytes as u64 * self.ps_per_byte_fx).div_ceil(1024)
    }
    /// Send `bytes` at `now`: returns the arrival time of the last byte at the far end
    /// (queueing + serialisation + latency).
    #[inline]
    pub fn send(&mut self, now: Ps, bytes: u32) -> Ps {
        if self.gaps.is_some() {
            return self.send_in_gap(now, bytes);
        }
        let start = now.max(self.next_free);
        let ser = self.ser(bytes);
        self.next_free = start + ser;
        self.stats.packets += 1;
        self.stats.bytes_sent += bytes as u64;
        self.stats.busy_ps += ser;
        self.stats.queue_ps += start - now;
        start + ser + self.latency
    }
    /// [`Port::send`] of a gap-filling port.
    fn send_in_gap(&mut self, now: Ps, bytes: u32) -> Ps {
        let ser = self.ser(bytes);
        let gaps = self.gaps.as_mut().expect("a gap-filling port");
        // forget intervals that ended well before this arrival
        let horizon = now.saturating_sub(GAP_WINDOW_PS);
        let old = gaps.iter().take_while(|g| g.1 <= horizon).count();
        if old > 0 {
            self.forgotten = self.forgotten.max(gaps[old - 1].1);
            gaps.drain(..old);
        }
        let mut start = now.max(self.forgotten);
        let mut at = gaps.len();
        // intervals are disjoint and sorted, so their ends are too: skip those before now
        let first = first_ending_after(gaps, start);
        for (i, &(s, e)) in gaps.range(first..).enumerate() {
            if s >= start + ser {
                at = first + i;
                break;
            }
            start = e;
        }
        let end = start + ser;
        // insert, merging with touching neighbours so a saturated port keeps one interval
        let joins_prev = at > 0 && gaps[at - 1].1 == start;
        let joins_next = at < gaps.len() && gaps[at].0 == end;
        match (joins_prev, joins_next) {
            (true, true) => {
                gaps[at - 1].1 = gaps[at].1;
                gaps.remove(at);
            }
            (true, false) => gaps[at - 1].1 = end,
            (false, true) => gaps[at].0 = start,
            (false, false) => gaps.insert(at, (start, end)),
        }
        self.next_free = self.next_free.max(end);
        self.stats.packets += 1;
        self.stats.bytes_sent += bytes as u64;
        self.stats.busy_ps += ser;
        self.stats.queue_ps += start - now;
        end + self.latency
    }
    /// Count bytes arriving at the far end (for the conservation check sent == received).
    #[inline]
    pub fn receive(&mut self, bytes: u32) {
        self.stats.bytes_received += bytes as u64;
    }
    /// Earliest time a new packet could start serialising.
    pub fn next_free(&self) -> Ps {
        self.next_free
    }
    pub fn stats(&self) -> &PortStats {
        &self.stats
    }
    /// Bandwidth in GB/s.
    pub fn gbps(&self) -> f64 {
        1000.0 * 1024.0 / self.ps_per_byte_fx as f64
    }
}

/// The index of the first interval of `gaps` (sorted, disjoint, so ends ascending) that
/// ends after `t`: `gaps.partition_point(|g| g.1 <= t)`, found by galloping from the back
/// (most packets start after nearly every interval the window keeps, a hundred or more on
/// a busy port, so this is one or two probes where the binary search was eight).
fn first_ending_after(gaps: &VecDeque<(Ps, Ps)>, t: Ps) -> usize {
    // every interval from `hi` on ends after `t`
    let mut hi = gaps.len();
    let mut step = 1;
    let mut lo = 0;
    while hi > 0 {
        let probe = hi.saturating_sub(step);
        if gaps[probe].1 <= t {
            lo = probe + 1;
            break;
        }
        hi = probe;
        step *= 2;
    }
    // the answer lies in [lo, hi]: every interval before `lo` ends by `t`
    while lo < hi {
        let m = lo + (hi - lo) / 2;
        if gaps[m].1 <= t {
            lo = m + 1;
        } else {
            hi = m;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn the_gallop_finds_what_partition_point_finds() {
        // disjoint sorted intervals with varied gaps; every probe time around them
        for n in 0..40u64 {
            let gaps: VecDeque<(Ps, Ps)> = (0..n)
                .map(|i| (i * 10 + i % 3, i * 10 + 5 + i % 3))
                .collect();
            for t in 0..n * 10 + 12 {
                let want = gaps.partition_point(|g| g.1 <= t);
                assert_eq!(first_ending_after(&gaps, t), want, "n {n} t {t}");
            }
        }
    }

    #[test]
    fn unloaded_packet_costs_serialisation_plus_latency() {
        let mut p = Port::new(16.0, 50_000);
        // 144 B at 16 GB/s = 9 ns
        assert_eq!(p.send(1000, 144), 1000 + 9000 + 50_000);
    }
    #[test]
    fn back_to_back_packets_serialise() {
        let mut p = Port::new(32.0, 0);
        let a = p.send(0, 128);
        let b = p.send(0, 128);
        assert_eq!(a, 4000);
        assert_eq!(b, 8000, "second packet waits for the first");
        assert_eq!(p.stats().queue_ps, 4000);
    }
    #[test]
    fn saturated_port_never_exceeds_bandwidth() {
        let mut p = Port::new(16.0, 100);
        let mut last = 0;
        for i in 0..10_000u64 {
            last = p.send(i * 10, 128); // offered far above 16 GB/s
        }
        let bytes = 10_000.0 * 128.0;
        let achieved = bytes / (last - 100) as f64 * 1000.0; // GB/s
        assert!(achieved <= 16.0 + 1e-9 && achieved > 15.9, "{achieved}");
    }
    #[test]
    fn a_reservation_ahead_blocks_a_fifo_port_but_not_a_gap_filling_one() {
        // 128 B at 32 GB/s = 4 ns; a packet reserved at 100 ns, then one arriving at 0
        let mut fifo = Port::new(32.0, 0);
        fifo.send(100_000, 128);
        assert_eq!(
            fifo.send(0, 128),
            108_000,
            "FIFO: behind the future reservation"
        );
        let mut gap = Port::new(32.0, 0).filling_gaps();
        gap.send(100_000, 128);
        assert_eq!(gap.send(0, 128), 4000, "the idle gap before it is used");
        // a packet that does not fit the remaining gap goes after the reservation
        let mut tight = Port::new(32.0, 0).filling_gaps();
        tight.send(6000, 128); // busy 6..10 ns
        assert_eq!(tight.send(0, 128), 4000); // 0..4 fits
        assert_eq!(
            tight.send(1000, 128),
            14_000,
            "4..6 is too short: after 10 ns"
        );
        assert_eq!(tight.stats().queue_ps, 9000);
    }
    #[test]
    fn gap_filling_never_overlaps_and_never_exceeds_bandwidth() {
        // arrivals out of order (a linear congruential scramble), offered far above 16 GB/s
        let mut p = Port::new(16.0, 0).filling_gaps();
        let mut x = 12345u64;
        let mut spans = Vec::new();
        for _ in 0..5000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let now = (x >> 33) % 2_000_000;
            let end = p.send(now, 128);
            spans.push((end - p.ser(128), end));
            assert!(end - p.ser(128) >= now, "never before its arrival");
        }
        spans.sort_unstable();
        for w in spans.windows(2) {
            assert!(w[0].1 <= w[1].0, "overlap {:?}", w);
        }
        let busy: u64 = spans.iter().map(|s| s.1 - s.0).sum();
        assert_eq!(busy, p.stats().busy_ps);
    }
    #[test]
    fn arrivals_later_than_the_window_never_overlap_forgotten_reservations() {
        // a packet reserved far ahead (more than GAP_WINDOW_PS after the others) makes the
        // port forget the earlier intervals; a packet then arriving at their time must not
        // be placed on top of them (NUBA's inter-switch links ran at 104.7% of their
        // bandwidth when it was)
        let mut p = Port::new(32.0, 0).filling_gaps();
        assert_eq!(p.send(0, 128), 4000); // busy 0..4 ns
        let far = 3 * GAP_WINDOW_PS;
        assert_eq!(p.send(far, 128), far + 4000); // forgets 0..4 ns
        let late = p.send(1000, 128);
        assert!(
            late - p.ser(128) >= 4000,
            "overlaps the forgotten 0..4 ns: {late}"
        );
        // out-of-order arrivals spread over ten windows, offered above the bandwidth
        let mut p = Port::new(16.0, 0).filling_gaps();
        let mut x = 99u64;
        let mut spans = Vec::new();
        for _ in 0..20_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let now = (x >> 33) % (10 * GAP_WINDOW_PS);
            let end = p.send(now, 128);
            spans.push((end - p.ser(128), end));
        }
        spans.sort_unstable();
        for w in spans.windows(2) {
            assert!(w[0].1 <= w[1].0, "overlap {:?}", w);
        }
    }
}
