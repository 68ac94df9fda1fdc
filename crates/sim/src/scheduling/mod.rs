//! Thread-block scheduling: which SM runs which block of a kernel (one file per policy).
//! - [`frr`]: fair round-robin over all SMs of all nodes (CODA §2.5 baseline);
//! - [`queues`]: per-node queues filled by contiguous chunks or by CODA's affinity (Eq. 1),
//!   with optional work stealing.

pub mod frr;
pub mod queues;

use crate::config::{SchedPolicy, SchedulingCfg};

/// The scheduler of one kernel launch.
#[derive(Clone, Debug)]
pub enum BlockScheduler {
    Frr(frr::Frr),
    Queues(queues::NodeQueues),
}

impl BlockScheduler {
    /// Scheduler for a launch of `blocks` blocks on `nodes` x `sms_per_node` SMs, where
    /// `nbpg` blocks run concurrently on one node (Eq. 1's N_blocks_per_GPU).
    pub fn new(cfg: &SchedulingCfg, blocks: u64, nodes: u32, sms_per_node: u32, nbpg: u64) -> Self {
        match cfg.policy {
            SchedPolicy::Frr => BlockScheduler::Frr(frr::Frr::new(blocks, nodes, sms_per_node)),
            SchedPolicy::Chunk => BlockScheduler::Queues(queues::NodeQueues::chunked(
                blocks,
                nodes,
                cfg.work_stealing,
            )),
            SchedPolicy::Affinity => BlockScheduler::Queues(queues::NodeQueues::affinity(
                blocks,
                nodes,
                nbpg,
                cfg.work_stealing,
            )),
        }
    }

    /// Assign blocks to SMs with free slots. `free[sm]` is the number of free block slots of
    /// each SM (global SM id = node * sms_per_node + s); decremented for every assignment
    /// pushed to `out` as (block, sm).
    pub fn dispatch(&mut self, free: &mut [u32], sms_per_node: u32, out: &mut Vec<(u64, usize)>) {
        match self {
            BlockScheduler::Frr(f) => f.dispatch(free, sms_per_node, out),
            BlockScheduler::Queues(q) => q.dispatch(free, sms_per_node, out),
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
