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
}
