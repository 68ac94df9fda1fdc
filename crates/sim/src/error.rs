//! Errors of the simulator: all are user-facing (bad configuration, bad workload or trace)
//! and carry a message that says what is wrong and how to fix it.

use locus_workload::WorkloadError;

/// A simulation that could not be set up or run.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// Invalid configuration (preset, file or --set).
    #[error("{0}")]
    Config(String),
    /// The workload or trace could not be generated or read.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    /// A warp needed an instruction past `run.gen_limit`: the run's statistics are not
    /// those of the unlimited run. The caller runs it again with a larger limit or none
    /// ([`crate::simulate_exact`]).
    #[error("a warp ran past run.gen_limit = {0} generated instructions; run again with a larger run.gen_limit or 0")]
    GenLimit(u32),
}
