//! `locus validate dram`: our HBM2 channel model side by side with DRAMsim3 (needs the
//! `dramsim3` cargo feature, which builds DRAMsim3 with cmake); `locus validate gpu`: the
//! kernel models against real-GPU measurements ([`super::validate_gpu`]).

use anyhow::Result;
use clap::{Args, Subcommand};

#[derive(Subcommand)]
pub enum ValidateCmd {
    /// Streaming and random reads through one HBM2 channel in Locus and in DRAMsim3.
    ///
    /// Needs a locus built with the `dramsim3` cargo feature, which compiles DRAMsim3 (C++)
    /// and so needs cmake and a C++ compiler:
    /// `cargo run --release -p locus-cli --features dramsim3 -- validate dram`.
    Dram(DramArgs),
    /// Built-in kernel models against the same kernels measured on a real GPU.
    ///
    /// Reads a folder written by `validation/gpu/run.sh` on a GPU machine (Nsight Compute
    /// counters per launch, in-kernel latencies), runs the same workloads on a preset with
    /// the profiler's cache flush at each kernel boundary (and once without), and writes the
    /// time per workload, a per-kernel comparison of warp instructions, global and shared
    /// loads and stores, cycles, time and DRAM bytes read, and the measured latencies beside
    /// the same walks simulated (gpu-compare.md, gpu-compare.csv). Needs no GPU. Finished
    /// runs are kept in OUT/runs and reused by name: after changing a preset, use a new
    /// OUT. Default: the H200 measurements on preset h200; the H100 ones:
    /// `locus validate gpu --measured validation/gpu/h100 -p h100 -o out/validate-h100`.
    Gpu(super::validate_gpu::GpuArgs),
}

#[derive(Args)]
pub struct DramArgs {
    /// Requests per pattern.
    #[arg(long, default_value_t = 20_000)]
    pub requests: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(c: ValidateCmd) -> Result<()> {
    match c {
        ValidateCmd::Dram(a) => dram(a),
        ValidateCmd::Gpu(a) => super::validate_gpu::run(a),
    }
}

#[cfg(feature = "dramsim3")]
fn dram(a: DramArgs) -> Result<()> {
    let cfg = locus_dram::DramConfig::default();
    let r =
        locus_dram::validate::cross_check(&cfg, a.requests, a.seed).map_err(anyhow::Error::msg)?;
    println!("{r}");
    Ok(())
}

#[cfg(not(feature = "dramsim3"))]
fn dram(_a: DramArgs) -> Result<()> {
    anyhow::bail!(
        "this locus was built without DRAMsim3; rebuild with `cargo run --release -p locus-cli --features dramsim3 -- validate dram` (needs cmake and a C++ compiler)"
    )
}
