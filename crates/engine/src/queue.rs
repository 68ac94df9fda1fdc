//! A deterministic priority queue of events ordered by `(time, insertion sequence)`, so two
//! runs with the same inputs pop events in exactly the same order.
//!
//! It is a calendar queue: a ring of buckets, each covering 2^`SHIFT` picoseconds, holds the
//! events of the near future; events beyond the ring's horizon wait in a binary heap and
//! move into the ring as time advances. A bucket is sorted once when time reaches it, so a
//! pop is O(1) amortised instead of a heap's O(log n) cache-missing sift. Almost every event
//! of a GPU simulation lies within a few microseconds of now.
//!
//! Buckets are kept in ascending `(time, seq)` order and drained from a head index: events
//! are mostly pushed in that order already (increasing `seq`, and an SM's next tick after
//! the ticks queued before it), so sorting a bucket is a linear check (insertion sort on
//! sorted input), and an event pushed into the bucket being drained usually lands at its
//! end. (A descending bucket drained from its end reversed that: every sort of a bucket of up
//! to 20 events was insertion sort's quadratic worst case and every insertion moved the
//! whole bucket.) The order popped is the same `(time, seq)` order either way.

use crate::time::Ps;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[derive(Clone, Copy)]
struct Entry<E> {
    time: Ps,
    seq: u64,
    ev: E,
}

impl<E> Entry<E> {
    #[inline]
    fn key(&self) -> (Ps, u64) {
        (self.time, self.seq)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, o: &Self) -> Ordering {
        // reversed: BinaryHeap is a max-heap, we want the earliest first
        o.key().cmp(&self.key())
    }
}

/// Bucket width: 2^9 = 512 ps (about one cycle of a 2 GHz clock).
const SHIFT: u32 = 9;
/// Buckets in the ring: 1024 x 512 ps = 524 ns of horizon (DRAM and link round trips fit;
/// longer waits go to the heap). Each bucket keeps its own vector's storage, and the ring
/// is walked round and round, so its size is the host cache footprint of the near future:
/// with 8192 buckets (4.2 us) that spread over megabytes and most pushes missed the host
/// caches. Best of 256, 512, 1024, 2048 and 8192 on bfs (`coda-4gpu`; 1024 against 8192:
/// +15 % simulated L1 requests per host second, median of 7 interleaved runs, issue 7).
/// The pop order does not depend on it.
const NB: u64 = 1024;

/// Min-queue of events of type `E` (keep `E` a small `Copy` enum: no allocation per event).
pub struct EventQueue<E> {
    buckets: Vec<Vec<Entry<E>>>,
    /// Absolute index of the bucket being drained (time >> SHIFT).
    cur: u64,
    /// The current bucket is sorted ascending from `head` on (its entries before `head`
    /// were popped already).
    cur_sorted: bool,
    /// Next entry of the current bucket to pop (0 while it is unsorted).
    head: usize,
    in_ring: usize,
    /// Events pushed into the bucket being drained once it is sorted: a min-heap beside
    /// the sorted rest of the bucket, so such a push costs O(log k) instead of moving the
    /// bucket's tail (a sorted insert's memmove); [`EventQueue::pop`] takes the smaller
    /// of the two heads, so the pop order (time, then push order) is unchanged.
    cur_heap: BinaryHeap<Entry<E>>,
    far: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Ps,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            buckets: (0..NB).map(|_| Vec::new()).collect(),
            cur: 0,
            cur_sorted: true,
            head: 0,
            in_ring: 0,
            cur_heap: BinaryHeap::new(),
            far: BinaryHeap::new(),
            seq: 0,
            now: 0,
            popped: 0,
        }
    }
    /// Current time: the time of the last popped event.
    #[inline]
    pub fn now(&self) -> Ps {
        self.now
    }

    #[inline]
    fn insert_ring(&mut self, e: Entry<E>) {
        let b = e.time >> SHIFT;
        let slot = &mut self.buckets[(b % NB) as usize];
        if b == self.cur && self.cur_sorted {
            // the bucket being drained stays as sorted; the newcomer waits in the heap
            self.cur_heap.push(e);
        } else {
            slot.push(e);
        }
        self.in_ring += 1;
    }

    /// Schedule `ev` at `time` (clamped to now: the past cannot be scheduled).
    #[inline]
    pub fn push(&mut self, time: Ps, ev: E) {
        let time = time.max(self.now);
        self.seq += 1;
        let e = Entry {
            time,
            seq: self.seq,
            ev,
        };
        if (time >> SHIFT) < self.cur + NB {
            self.insert_ring(e);
        } else {
            self.far.push(e);
        }
    }

    /// Pop the earliest event and advance time to it.
    #[inline]
    pub fn pop(&mut self) -> Option<(Ps, E)> {
        loop {
            if self.in_ring == 0 {
                let t = self.far.peek()?.time;
                // the bucket being drained holds only popped entries: drop them
                self.buckets[(self.cur % NB) as usize].clear();
                self.head = 0;
                self.cur = t >> SHIFT;
                self.cur_sorted = false;
            }
            // bring far events that entered the horizon into the ring
            while let Some(top) = self.far.peek() {
                if (top.time >> SHIFT) < self.cur + NB {
                    let e = self.far.pop().expect("peeked");
                    self.insert_ring(e);
                } else {
                    break;
                }
            }
            let idx = (self.cur % NB) as usize;
            let bucket = &mut self.buckets[idx];
            if !self.cur_sorted {
                bucket.sort_unstable_by_key(|e| e.key());
                self.cur_sorted = true;
                self.head = 0;
            }
            let from_bucket = match (bucket.get(self.head), self.cur_heap.peek()) {
                (Some(a), Some(h)) => a.key() < h.key(),
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => {
                    bucket.clear();
                    self.head = 0;
                    self.cur += 1;
                    self.cur_sorted = false;
                    continue;
                }
            };
            let e = if from_bucket {
                self.head += 1;
                bucket[self.head - 1]
            } else {
                self.cur_heap.pop().expect("peeked")
            };
            self.in_ring -= 1;
            self.now = e.time;
            self.popped += 1;
            return Some((e.time, e.ev));
        }
    }
    /// Drop every pending event without advancing time (a run whose remaining events are
    /// only periodic timers ends here, at the time of its last real event).
    pub fn clear(&mut self) {
        if self.in_ring > 0 {
            for b in &mut self.buckets {
                b.clear();
            }
        } else {
            // the bucket being drained may still hold popped entries (behind `head`)
            self.buckets[(self.cur % NB) as usize].clear();
        }
        self.head = 0;
        self.in_ring = 0;
        self.cur_heap.clear();
        self.far.clear();
    }
    pub fn is_empty(&self) -> bool {
        self.in_ring == 0 && self.far.is_empty()
    }
    pub fn len(&self) -> usize {
        self.in_ring + self.far.len()
    }
    /// Events popped so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn pops_in_time_then_fifo_order() {
        let mut q = EventQueue::new();
        q.push(10, 'a');
        q.push(5, 'b');
        q.push(10, 'c');
        q.push(5, 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|x| x.1)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
        assert_eq!(q.now(), 10);
    }

    #[test]
    fn clear_drops_events_and_keeps_time() {
        let mut q = EventQueue::new();
        q.push(10, 1u32);
        q.push(20, 2);
        q.push(1_000_000_000_000, 3);
        assert_eq!(q.pop(), Some((10, 1)));
        q.clear();
        assert!(q.is_empty());
        assert_eq!(q.len(), 0);
        assert_eq!(q.now(), 10);
        assert_eq!(q.pop(), None);
        q.push(15, 4);
        assert_eq!(q.pop(), Some((15, 4)));
    }

    #[test]
    fn past_is_clamped_to_now() {
        let mut q = EventQueue::new();
        q.push(100, 1);
        q.pop();
        q.push(50, 2);
        assert_eq!(q.pop(), Some((100, 2)));
    }

    #[test]
    fn far_events_and_long_gaps() {
        let mut q = EventQueue::new();
        q.push(1 << 40, 3);
        q.push(7, 1);
        q.push((NB << SHIFT) + 5, 2);
        assert_eq!(q.pop(), Some((7, 1)));
        assert_eq!(q.pop(), Some(((NB << SHIFT) + 5, 2)));
        q.push((1 << 40) - 1, 9);
        assert_eq!(q.pop(), Some(((1 << 40) - 1, 9)));
        assert_eq!(q.pop(), Some((1 << 40, 3)));
        assert!(q.pop().is_none() && q.is_empty());
    }

    #[test]
    fn a_ring_slot_reused_after_a_jump_holds_no_popped_event() {
        // bucket 0 is drained (its popped entry stays behind the head), the ring empties,
        // and the next event lies exactly one ring length later: the same slot
        let mut q = EventQueue::new();
        q.push(7, 1u32);
        q.push(9, 2);
        assert_eq!(q.pop(), Some((7, 1)));
        assert_eq!(q.pop(), Some((9, 2)));
        q.push((NB << SHIFT) + 7, 3);
        q.push((NB << SHIFT) + 3, 4);
        assert_eq!(q.pop(), Some(((NB << SHIFT) + 3, 4)));
        assert_eq!(q.pop(), Some(((NB << SHIFT) + 7, 3)));
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn clear_after_the_ring_drained_forgets_popped_events() {
        // only a far event is left (a periodic timer's): clear, then go on in the bucket
        // whose popped entries lie behind the head
        let mut q = EventQueue::new();
        q.push(10, 1u32);
        q.push(1 << 40, 2);
        assert_eq!(q.pop(), Some((10, 1)));
        q.clear();
        q.push(15, 3);
        assert_eq!(q.pop(), Some((15, 3)));
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn pushes_into_the_bucket_being_drained_keep_time_then_fifo_order() {
        let mut q = EventQueue::new();
        for (t, v) in [(100, 1u32), (300, 2), (100, 3), (200, 4)] {
            q.push(t, v);
        }
        assert_eq!(q.pop(), Some((100, 1)));
        // same bucket: at now (after the queued event of that time), between, at the end
        q.push(100, 5);
        q.push(250, 6);
        q.push(400, 7);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop().map(|x| x.1)).collect();
        assert_eq!(order, vec![3, 5, 4, 6, 2, 7]);
    }

    proptest! {
        /// Same order as a plain (time, seq) binary heap, with pushes interleaved with pops
        /// (pushes relative to the current time, as a simulator does).
        #[test]
        fn matches_a_binary_heap(ops in proptest::collection::vec((0u64..20_000_000, any::<bool>()), 1..2000)) {
            let mut q = EventQueue::new();
            let mut reference: BinaryHeap<Entry<u32>> = BinaryHeap::new();
            let mut seq = 0u64;
            let mut now = 0u64;
            for (i, (dt, pop)) in ops.iter().enumerate() {
                if *pop {
                    let a = q.pop();
                    let b = reference.pop().map(|e| (e.time, e.ev));
                    prop_assert_eq!(a, b);
                    if let Some((t, _)) = a { now = t; }
                } else {
                    let t = match i % 4 {
                        0 => now + dt % 20_000_000,
                        1 => now,
                        2 => now + dt % 600,
                        _ => now + dt % 3000,
                    };
                    q.push(t, i as u32);
                    seq += 1;
                    reference.push(Entry { time: t, seq, ev: i as u32 });
                }
            }
            while let Some(b) = reference.pop() {
                prop_assert_eq!(q.pop(), Some((b.time, b.ev)));
            }
            prop_assert!(q.pop().is_none());
        }
    }
}
