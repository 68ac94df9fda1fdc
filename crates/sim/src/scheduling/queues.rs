//! Per-node block queues: contiguous chunks, or CODA's affinity scheduling (Eq. 1):
//! `affinity(b) = floor(b / N_bpg) mod N_GPUs` with `b` the row-major flattened block id
//! (spec A3: `blockIdx.y * gridDim.x + blockIdx.x`). When an SM frees a slot it takes the
//! next block with affinity to its node; within a node the SM with the most free slots
//! goes first (ties: lowest id). Without work stealing (the paper's choice) a node whose
//! queue is empty idles; with it, it takes from the front of the longest other queue.
//!
//! Heterogeneous machines (issue 7 §4): only nodes with SMs get queues filled. Eq. 1 is
//! applied over them with each node's own N_bpg (blocks per SM x its SMs), i.e. block `b`
//! goes to the node whose batch holds `b mod Σ N_bpg` in node order; chunks are sized in
//! proportion to the nodes' SMs. With identical nodes both are exactly Eq. 1 and equal
//! chunks, and a block Eq. 1 would give an SM-less node goes to the next node with SMs in
//! this deterministic rotation.

use super::Layout;
use std::collections::VecDeque;

/// The queues.
#[derive(Clone, Debug)]
pub struct NodeQueues {
    q: Vec<VecDeque<u64>>,
    layout: Layout,
    stealing: bool,
}

impl NodeQueues {
    /// Node g gets blocks [c_g·T/S, (c_g + s_g)·T/S), with s_g its SMs, c_g the SMs of the
    /// nodes before it and S all SMs: [g·T/N, (g+1)·T/N) for identical nodes.
    pub fn chunked(total: u64, layout: &Layout, stealing: bool) -> Self {
        let all = layout.total() as u64;
        let q = (0..layout.nodes())
            .map(|g| {
                let (c, s) = (layout.sms(g).start as u64, layout.count(g) as u64);
                (c * total / all..(c + s) * total / all).collect()
            })
            .collect();
        NodeQueues {
            q,
            layout: layout.clone(),
            stealing,
        }
    }

    /// Node g gets the blocks of `ranges[g]` (e.g. [`super::mgpusim::ranges`]).
    pub fn from_ranges(ranges: &[std::ops::Range<u64>], layout: &Layout, stealing: bool) -> Self {
        NodeQueues {
            q: ranges.iter().map(|r| r.clone().collect()).collect(),
            layout: layout.clone(),
            stealing,
        }
    }

    /// Eq. 1 with batches of `bps` x the node's SMs blocks, over the nodes with SMs.
    ///
    /// `balanced` caps each node's batch at ceil(total / nodes with SMs)
    /// (`scheduling.affinity_balanced`, beyond the paper): a kernel of few blocks spreads
    /// over every GPU instead of filling the first.
    pub fn affinity(total: u64, layout: &Layout, bps: u64, stealing: bool, balanced: bool) -> Self {
        let mut q: Vec<VecDeque<u64>> = vec![VecDeque::new(); layout.nodes()];
        let with_sms = (0..layout.nodes()).filter(|&g| layout.count(g) > 0).count() as u64;
        let cap = if balanced {
            total.div_ceil(with_sms.max(1)).max(1)
        } else {
            u64::MAX
        };
        // (node, end of its batch within one rotation)
        let mut ends = Vec::new();
        let mut cycle = 0;
        for g in 0..layout.nodes() {
            if layout.count(g) > 0 {
                cycle += (bps.max(1) * layout.count(g) as u64).min(cap);
                ends.push((g, cycle));
            }
        }
        if cycle > 0 {
            for b in 0..total {
                let r = b % cycle;
                let i = ends.partition_point(|&(_, e)| e <= r);
                q[ends[i].0].push_back(b);
            }
        }
        NodeQueues {
            q,
            layout: layout.clone(),
            stealing,
        }
    }

    pub fn dispatch(&mut self, free: &mut [u32], out: &mut Vec<(u64, usize)>) {
        self.dispatch_max(free, out, usize::MAX)
    }

    /// [`NodeQueues::dispatch`], at most `max` blocks.
    pub fn dispatch_max(&mut self, free: &mut [u32], out: &mut Vec<(u64, usize)>, max: usize) {
        let start = out.len();
        for g in 0..self.q.len() {
            let first = self.layout.sms(g).start;
            loop {
                if out.len() - start >= max {
                    return;
                }
                let sms = &free[self.layout.sms(g)];
                let Some((s, _)) = sms
                    .iter()
                    .enumerate()
                    .filter(|(_, &f)| f > 0)
                    .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(&a.0)))
                else {
                    break;
                };
                let b = match self.q[g].pop_front() {
                    Some(b) => b,
                    None if self.stealing => {
                        let Some(v) = (0..self.q.len())
                            .max_by_key(|&i| (self.q[i].len(), std::cmp::Reverse(i)))
                        else {
                            break;
                        };
                        match self.q[v].pop_front() {
                            Some(b) => b,
                            None => break,
                        }
                    }
                    None => break,
                };
                free[first + s] -= 1;
                out.push((b, first + s));
            }
        }
    }

    pub fn remaining(&self) -> u64 {
        self.q.iter().map(|q| q.len() as u64).sum()
    }
}

/// CODA Eq. 1 (identical nodes).
pub fn affinity(block: u64, nbpg: u64, nodes: u32) -> u32 {
    ((block / nbpg.max(1)) % nodes as u64) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eq. 1 example: N_bpg = 24 → blocks 0..23 on GPU 0, 24..47 on GPU 1, 96.. on GPU 0.
    #[test]
    fn eq1_mapping() {
        assert_eq!(affinity(0, 24, 4), 0);
        assert_eq!(affinity(23, 24, 4), 0);
        assert_eq!(affinity(24, 24, 4), 1);
        assert_eq!(affinity(95, 24, 4), 3);
        assert_eq!(affinity(96, 24, 4), 0);
    }

    /// With few blocks (SAD: 61 blocks, N_bpg = 32) GPUs 2 and 3 idle without stealing.
    #[test]
    fn affinity_idles_gpus_when_blocks_are_few() {
        let l = Layout::uniform(4, 4);
        let mut q = NodeQueues::affinity(61, &l, 8, false, false);
        let mut free = vec![8u32; 16];
        let mut out = Vec::new();
        q.dispatch(&mut free, &mut out);
        let mut per_gpu = [0; 4];
        for (_, sm) in &out {
            per_gpu[sm / 4] += 1;
        }
        assert_eq!(per_gpu, [32, 29, 0, 0]);
        let mut q = NodeQueues::affinity(61, &l, 8, true, false);
        let mut free = vec![1u32; 16];
        let mut out = Vec::new();
        q.dispatch(&mut free, &mut out);
        assert_eq!(out.len(), 16, "stealing keeps every SM busy");
    }

    #[test]
    fn most_free_sm_first() {
        let mut q = NodeQueues::chunked(8, &Layout::uniform(1, 4), false);
        let mut free = vec![1, 3, 2, 0];
        let mut out = Vec::new();
        q.dispatch(&mut free, &mut out);
        assert_eq!(out[0], (0, 1));
        assert_eq!(out.len(), 6);
        assert_eq!(free, vec![0, 0, 0, 0]);
    }

    /// With identical nodes the general queues are exactly Eq. 1 and equal chunks.
    #[test]
    fn uniform_layout_is_eq1_and_equal_chunks() {
        let l = Layout::uniform(4, 3);
        let q = NodeQueues::affinity(500, &l, 2, false, false);
        for (g, blocks) in q.q.iter().enumerate() {
            assert!(blocks.iter().all(|&b| affinity(b, 6, 4) == g as u32));
        }
        let q = NodeQueues::chunked(10, &l, false);
        let got: Vec<Vec<u64>> = q.q.iter().map(|d| d.iter().copied().collect()).collect();
        assert_eq!(got, [vec![0, 1], vec![2, 3, 4], vec![5, 6], vec![7, 8, 9]]);
    }

    /// Issue 7 §4: a memory-only node (1 of [2, 0, 2] SMs) gets no blocks under either
    /// policy, with or without stealing; Eq. 1 batches rotate over nodes 0 and 2 only.
    #[test]
    fn sm_less_nodes_get_no_blocks() {
        let l = Layout::new(&[2, 0, 2]);
        for stealing in [false, true] {
            for mut q in [
                NodeQueues::affinity(40, &l, 1, stealing, false),
                NodeQueues::chunked(40, &l, stealing),
            ] {
                assert!(q.q[1].is_empty());
                let mut free = vec![1u32; 4];
                let mut out = Vec::new();
                q.dispatch(&mut free, &mut out);
                assert_eq!(out.len(), 4);
                assert!(out.iter().all(|&(_, sm)| sm < 4));
            }
        }
        let q = NodeQueues::affinity(8, &l, 1, false, false);
        let node0: Vec<u64> = q.q[0].iter().copied().collect();
        let node2: Vec<u64> = q.q[2].iter().copied().collect();
        assert_eq!((node0, node2), (vec![0, 1, 4, 5], vec![2, 3, 6, 7]));
    }
}
