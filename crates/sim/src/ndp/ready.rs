//! The SM's ready packet buffer (spec ndp.md §3.5, §3.8; paper §4.1.1 and Table 2: 64
//! entries of 8 B per SM) as a bounded stage of its own.
//!
//! A packet of an instance whose target NSU is known and whose NSU entries are granted
//! is queued in the ready buffer and leaves it when the GPU link takes it (the paper: "A
//! packet in the ready buffer can be sent to the destination HMC"). One entry holds one
//! packet descriptor (§3.8 \[DEFAULT\]). The buffer is a set of `cap` slots, each a chain
//! of non-overlapping stays `[enter, depart)`: a packet that finds every slot taken
//! enters when the earliest stay ends, so at no instant are more than `cap` packets in
//! it. A full buffer stalls the issue of further offload-block memory instructions of
//! the SM (§3.8 \[DEFAULT\]); [`ReadyBuffer::room`] is that check.

use locus_engine::Ps;

/// One SM's ready packet buffer: the departure times of the packets in it.
#[derive(Clone, Debug)]
pub struct ReadyBuffer {
    cap: usize,
    /// Departure time of each packet entered and not yet known to have left.
    departs: Vec<Ps>,
    /// Most packets in the buffer at one time.
    pub peak: usize,
}

impl ReadyBuffer {
    /// An empty buffer of `cap` entries (`ndp.ready_entries`; Table 2: 64). `cap >= 1`.
    pub fn new(cap: u32) -> ReadyBuffer {
        ReadyBuffer {
            cap: cap.max(1) as usize,
            departs: Vec::new(),
            peak: 0,
        }
    }

    /// Forget the packets that left by `now`.
    fn settle(&mut self, now: Ps) {
        self.departs.retain(|&d| d > now);
    }

    /// Packets in the buffer at `now`, or entered for a later time and not yet departed
    /// (packets waiting to enter count: they hold their slot already).
    pub fn occupancy(&mut self, now: Ps) -> usize {
        self.settle(now);
        self.departs.len()
    }

    /// Can an instruction of `k` packets issue at `now`? There must be room for all of
    /// them; an instruction with more packets than the buffer has entries needs it empty.
    pub fn room(&mut self, now: Ps, k: usize) -> bool {
        let occ = self.occupancy(now);
        occ == 0 || occ + k.min(self.cap) <= self.cap
    }

    /// The earliest time after `now` at which a packet leaves (`None`: empty).
    pub fn next_departure(&mut self, now: Ps) -> Option<Ps> {
        self.settle(now);
        self.departs.iter().copied().min()
    }

    /// A packet wants to enter at `t` (>= `now`): the time it enters, `t` or, when every
    /// slot is taken at `t`, the end of the earliest stay (whose slot it takes). Call
    /// [`ReadyBuffer::depart`] with its departure next.
    pub fn enter(&mut self, now: Ps, t: Ps) -> Ps {
        self.settle(now);
        if self.departs.len() < self.cap {
            return t;
        }
        let (k, &d) = self
            .departs
            .iter()
            .enumerate()
            .min_by_key(|&(_, d)| *d)
            .expect("a full buffer has a packet");
        self.departs.swap_remove(k);
        t.max(d)
    }

    /// The packet that last called [`ReadyBuffer::enter`] leaves at `d`.
    pub fn depart(&mut self, d: Ps) {
        self.departs.push(d);
        self.peak = self.peak.max(self.departs.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two entries, three packets wanting in at 0 that each stay 10 ps: the third enters
    /// when the first leaves; at no time are more than two inside; an instruction of two
    /// packets waits until both slots are free, one of five (more than the buffer) until
    /// it is empty.
    #[test]
    fn a_full_ready_buffer_pushes_back() {
        let mut b = ReadyBuffer::new(2);
        assert!(b.room(0, 2));
        let e0 = b.enter(0, 0);
        b.depart(e0 + 10);
        let e1 = b.enter(0, 0);
        b.depart(e1 + 12);
        assert_eq!((e0, e1), (0, 0));
        assert!(!b.room(0, 1), "full: issue stalls");
        assert_eq!(b.next_departure(0), Some(10));
        // the third packet takes the slot freed at 10
        let e2 = b.enter(0, 0);
        assert_eq!(e2, 10);
        b.depart(e2 + 10);
        assert_eq!(b.peak, 2);
        assert_eq!(
            b.occupancy(11),
            2,
            "the second until 12, the third until 20"
        );
        assert!(!b.room(11, 1));
        assert!(b.room(12, 1) && !b.room(12, 2));
        assert!(b.room(20, 2));
        // an instruction wider than the buffer needs it empty
        let mut w = ReadyBuffer::new(4);
        let e = w.enter(0, 5);
        w.depart(e + 7);
        assert!(!w.room(6, 5));
        assert!(w.room(12, 5));
    }

    /// Many packets through a buffer of 3 with fixed stays: the k-th packet enters at
    /// floor(k / 3) x stay (closed form of a 3-server queue with equal service times).
    #[test]
    fn entry_times_are_the_closed_form() {
        let mut b = ReadyBuffer::new(3);
        for k in 0..30u64 {
            let e = b.enter(0, 0);
            assert_eq!(e, (k / 3) * 100, "packet {k}");
            b.depart(e + 100);
            assert!(b.peak <= 3);
        }
    }
}
