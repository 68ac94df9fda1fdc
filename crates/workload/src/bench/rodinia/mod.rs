//! Rodinia benchmarks beyond those under `dense/` (issue 8, "The four papers' benchmarks"),
//! one file each, modelled after the public CUDA sources of Rodinia 3.1 (thread and block
//! shapes, data layouts, loops, shared-memory staging and the host loops).

use crate::registry::BenchSpec;

pub mod backprop;
pub mod bfs;
pub mod btree;
pub mod lavamd;
pub mod leukocyte;
pub mod streamcluster;

#[cfg(test)]
pub(crate) mod tests;

/// The Rodinia benchmarks of this folder.
pub const SPECS: &[BenchSpec] = &[
    backprop::SPEC,
    streamcluster::SPEC,
    bfs::SPEC,
    btree::SPEC,
    lavamd::SPEC,
    leukocyte::SPEC,
];
