//! Thread-block scheduling: which SM runs which block of a kernel (one file per policy).
//! - [`frr`]: fair round-robin over all SMs of all nodes (CODA §2.5 baseline);
//! - [`queues`]: per-node queues filled by contiguous chunks or by CODA's affinity (Eq. 1),
//!   with optional work stealing;
//! - [`mgpusim`]: MGPUSim's unified multi-GPU dispatch (REC's simulator), a whole number of
//!   blocks per SM to each node in node order, into the same per-node queues.
//!
//! Nodes may differ in SM count, and a memory-only node has none (issue 7 §4,
//! `[[node_kinds]]`): every policy gives blocks only to nodes with SMs. FRR's rotation
//! skips SM positions a node lacks; the queue policies spread blocks over the nodes with
//! SMs only (see [`queues`]), so a block whose Eq. 1 node would be SM-less deterministically
//! goes to a node with SMs. With identical nodes every policy is exactly as before.

pub mod frr;
pub mod mgpusim;
pub mod queues;

use crate::config::{SchedPolicy, SchedulingCfg};

/// The scheduler of one kernel launch.
#[derive(Clone, Debug)]
pub enum BlockScheduler {
    Frr(frr::Frr),
    Queues(queues::NodeQueues),
}

/// Which SMs belong to which node: node `g`'s SMs are `first[g]..first[g + 1]` (global SM
/// ids are node-major); a node without SMs has an empty range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    first: Vec<usize>,
}

impl Layout {
    /// The layout of nodes with `node_sms[g]` SMs each.
    pub fn new(node_sms: &[u32]) -> Layout {
        let mut first = Vec::with_capacity(node_sms.len() + 1);
        first.push(0);
        for &n in node_sms {
            first.push(first.last().copied().unwrap_or(0) + n as usize);
        }
        Layout { first }
    }
    /// `nodes` identical nodes of `sms_per_node` SMs.
    pub fn uniform(nodes: u32, sms_per_node: u32) -> Layout {
        Layout::new(&vec![sms_per_node; nodes as usize])
    }
    pub fn nodes(&self) -> usize {
        self.first.len() - 1
    }
    /// Global SM ids of node `g`.
    pub fn sms(&self, g: usize) -> std::ops::Range<usize> {
        self.first[g]..self.first[g + 1]
    }
    /// SMs of node `g`.
    pub fn count(&self, g: usize) -> usize {
        self.first[g + 1] - self.first[g]
    }
    /// SMs of all nodes.
    pub fn total(&self) -> usize {
        self.first[self.nodes()]
    }
}

impl BlockScheduler {
    /// Scheduler for a launch of `blocks` blocks on the nodes of `layout`, where `bps`
    /// blocks run concurrently on one SM (so `bps x` a node's SMs is the node's Eq. 1
    /// N_blocks_per_GPU).
    pub fn new(cfg: &SchedulingCfg, blocks: u64, layout: &Layout, bps: u32) -> Self {
        match cfg.policy {
            SchedPolicy::Frr => BlockScheduler::Frr(frr::Frr::new(blocks, layout)),
            SchedPolicy::Chunk => BlockScheduler::Queues(queues::NodeQueues::chunked(
                blocks,
                layout,
                cfg.work_stealing,
            )),
            SchedPolicy::MgpusimUnified => BlockScheduler::Queues(queues::NodeQueues::from_ranges(
                &mgpusim::ranges(blocks, layout),
                layout,
                cfg.work_stealing,
            )),
            SchedPolicy::Affinity => BlockScheduler::Queues(queues::NodeQueues::affinity(
                blocks,
                layout,
                bps as u64,
                cfg.work_stealing,
                cfg.affinity_balanced,
            )),
        }
    }

    /// Assign blocks to SMs with free slots. `free[sm]` is the number of free block slots of
    /// each SM (global SM id as in the layout); decremented for every assignment pushed to
    /// `out` as (block, sm).
    pub fn dispatch(&mut self, free: &mut [u32], out: &mut Vec<(u64, usize)>) {
        match self {
            BlockScheduler::Frr(f) => f.dispatch(free, out),
            BlockScheduler::Queues(q) => q.dispatch(free, out),
        }
    }

    /// [`BlockScheduler::dispatch`], at most `max` blocks (a block-dispatch rate,
    /// `system.block_dispatch_ps`, lets one block go at a time).
    pub fn dispatch_max(&mut self, free: &mut [u32], out: &mut Vec<(u64, usize)>, max: usize) {
        match self {
            BlockScheduler::Frr(f) => f.dispatch_max(free, out, max),
            BlockScheduler::Queues(q) => q.dispatch_max(free, out, max),
        }
    }

    /// Blocks not yet dispatched.
    pub fn remaining(&self) -> u64 {
        match self {
            BlockScheduler::Frr(f) => f.remaining(),
            BlockScheduler::Queues(q) => q.remaining(),
        }
    }
}
