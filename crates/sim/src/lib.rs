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

/// [`simulate`] under `run.gen_limit`: when a warp needs an instruction past its generated
/// prefix ([`SimError::GenLimit`]), run again on a fresh workload from `fresh` without the
/// limit. Either way the report is the unlimited run's (the limit changes no statistic).
pub fn simulate_exact(
    cfg: &Config,
    w: &mut dyn locus_workload::Workload,
    fresh: &mut dyn FnMut() -> Result<Box<dyn locus_workload::Workload>, SimError>,
) -> Result<Report, SimError> {
    match simulate(cfg, w) {
        Err(SimError::GenLimit(_)) => {
            let mut c = cfg.clone();
            c.run.gen_limit = 0;
            let mut again = fresh()?;
            let mut r = simulate(&c, &mut *again)?;
            if let Some(h) = &mut r.host {
                h.gen_reruns = 1;
            }
            Ok(r)
        }
        r => r,
    }
}

/// A `run.gen_limit` for a run capped at `run.max_warp_insts` (0 when it is not capped):
/// eight times the instructions a warp would issue if the cap were shared evenly by every
/// warp slot of the machine, and at least 1024. A warp that runs further ahead only costs
/// the run being made again ([`simulate_exact`]); the statistics never change.
pub fn suggested_gen_limit(cfg: &Config) -> u32 {
    let cap = cfg.run.max_warp_insts;
    if cap == 0 {
        return 0;
    }
    let slots =
        (cfg.system.nodes as u64 * cfg.system.sms_per_node as u64 * cfg.sm.max_warps as u64).max(1);
    (8 * cap / slots).clamp(1024, u32::MAX as u64) as u32
}
