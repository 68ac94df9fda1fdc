//! A deterministic priority queue of events ordered by `(time, insertion sequence)`, so two
//! runs with the same inputs pop events in exactly the same order.

use crate::time::Ps;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: Ps,
    seq: u64,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
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
        o.time.cmp(&self.time).then(o.seq.cmp(&self.seq))
    }
}

/// Min-queue of events of type `E` (keep `E` a small `Copy` enum: no allocation per event).
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Ps,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1 << 12),
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
    /// Schedule `ev` at `time` (clamped to now: the past cannot be scheduled).
    #[inline]
    pub fn push(&mut self, time: Ps, ev: E) {
        let time = time.max(self.now);
        self.seq += 1;
        self.heap.push(Entry {
            time,
            seq: self.seq,
            ev,
        });
    }
    /// Pop the earliest event and advance time to it.
    #[inline]
    pub fn pop(&mut self) -> Option<(Ps, E)> {
        let e = self.heap.pop()?;
        self.now = e.time;
        self.popped += 1;
        Some((e.time, e.ev))
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    /// Events popped so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
    fn past_is_clamped_to_now() {
        let mut q = EventQueue::new();
        q.push(100, 1);
        q.pop();
        q.push(50, 2);
        assert_eq!(q.pop(), Some((100, 2)));
    }
}
