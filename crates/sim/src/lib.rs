//! Locus hardware model: SMs, caches, interconnect, DRAM, address maps, and the policies of
//! the five papers, one folder per station of a memory access:
//! `sm` (in [`system`]), [`cache`], [`tlb`], [`mapping`], [`placement`], [`scheduling`],
//! [`noc`] (ports) and [`topology`] (the inter-node network graph), DRAM (crate
//! `locus-dram`). [`System`] wires them from a [`Config`] and runs a workload; [`stats`] is
//! the report it produces.

pub mod cache;
pub mod coherence;
pub mod config;
pub mod energy;
pub mod error;
pub mod mapping;
pub mod ndp;
pub mod noc;
pub mod page_sharing;
pub mod placement;
pub mod preset;
pub mod replication;
pub mod scheduling;
pub mod spaces;
pub mod stats;
pub mod system;
pub mod tlb;
pub mod topology;

pub use config::Config;
pub use error::SimError;
pub use stats::Report;
pub use system::{DramRecord, Progress, System};

/// Build a system from `cfg` and run `w` on it (no progress reporting).
pub fn simulate(cfg: &Config, w: &mut dyn locus_workload::Workload) -> Result<Report, SimError> {
    let mut s = System::new(cfg);
    s.run(w, &mut |_| {})
}
