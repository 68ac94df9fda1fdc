//! Per-node block queues: contiguous chunks, or CODA's affinity scheduling (Eq. 1):
//! `affinity(b) = floor(b / N_bpg) mod N_GPUs` with `b` the row-major flattened block id
//! (spec A3: `blockIdx.y * gridDim.x + blockIdx.x`). When an SM frees a slot it takes the
//! next block with affinity to its node; within a node the SM with the most free slots
//! goes first (ties: lowest id). Without work stealing (the paper's choice) a node whose
//! queue is empty idles; with it, it takes from the front of the longest other queue.

use std::collections::VecDeque;

/// The queues.
#[derive(Clone, Debug)]
pub struct NodeQueues {
    q: Vec<VecDeque<u64>>,
    stealing: bool,
}

impl NodeQueues {
    /// Node g gets blocks [g·T/N, (g+1)·T/N).
    pub fn chunked(total: u64, nodes: u32, stealing: bool) -> Self {
        let n = nodes as u64;
        let q = (0..n)
            .map(|g| (g * total / n..(g + 1) * total / n).collect())
            .collect();
        NodeQueues { q, stealing }
    }

    /// Eq. 1 with batches of `nbpg` blocks.
    pub fn affinity(total: u64, nodes: u32, nbpg: u64, stealing: bool) -> Self {
        let mut q: Vec<VecDeque<u64>> = vec![VecDeque::new(); nodes as usize];
        for b in 0..total {
            q[affinity(b, nbpg, nodes) as usize].push_back(b);
        }
        NodeQueues { q, stealing }
    }

    pub fn dispatch(&mut self, free: &mut [u32], spn: u32, out: &mut Vec<(u64, usize)>) {
        let spn = spn as usize;
        for g in 0..self.q.len() {
            loop {
                let sms = &free[g * spn..(g + 1) * spn];
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
                free[g * spn + s] -= 1;
                out.push((b, g * spn + s));
            }
        }
    }

    pub fn remaining(&self) -> u64 {
        self.q.iter().map(|q| q.len() as u64).sum()
    }
}

/// CODA Eq. 1.
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
        let mut q = NodeQueues::affinity(61, 4, 32, false);
        let mut free = vec![8u32; 16];
        let mut out = Vec::new();
        q.dispatch(&mut free, 4, &mut out);
        let mut per_gpu = [0; 4];
        for (_, sm) in &out {
            per_gpu[sm / 4] += 1;
        }
        assert_eq!(per_gpu, [32, 29, 0, 0]);
        let mut q = NodeQueues::affinity(61, 4, 32, true);
        let mut free = vec![1u32; 16];
        let mut out = Vec::new();
        q.dispatch(&mut free, 4, &mut out);
        assert_eq!(out.len(), 16, "stealing keeps every SM busy");
    }

    #[test]
    fn most_free_sm_first() {
        let mut q = NodeQueues::chunked(8, 1, false);
        let mut free = vec![1, 3, 2, 0];
        let mut out = Vec::new();
        q.dispatch(&mut free, 4, &mut out);
        assert_eq!(out[0], (0, 1));
        assert_eq!(out.len(), 6);
        assert_eq!(free, vec![0, 0, 0, 0]);
    }
}
