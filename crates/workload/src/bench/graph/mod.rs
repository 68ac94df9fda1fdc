//! GraphBIG-style graph benchmarks (spec §7, Table 2): CSR inputs with u64 vertex/edge
//! indices and u32 properties, topology-driven kernels with one thread per vertex (CC's
//! hooking: two edges per thread) and GraphBIG's `min(|V|, 1024)` threads per block, each
//! driven by a host loop that reads the device flags between launches, as `gpu_bench` does.

use crate::registry::BenchSpec;

pub mod bc;
pub mod bfs;
pub mod bfs_grid;
pub mod cc;
pub mod common;
pub mod dc;
pub mod gc;
pub mod pr;
pub mod sssp;
pub mod tc;
#[cfg(test)]
mod tests;

/// The graph benchmarks, in listing order.
pub const SPECS: &[BenchSpec] = &[
    bfs::SPEC,
    bfs_grid::SPEC,
    dc::SPEC,
    pr::SPEC,
    sssp::SPEC,
    bc::SPEC,
    gc::SPEC,
    cc::SPEC,
    tc::SPEC,
];
