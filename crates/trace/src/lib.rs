//! Accel-Sim trace reader (placeholder; being written).
use std::path::PathBuf;

/// A trace that cannot be read: which file, which line, what was expected.
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}: {msg}")]
pub struct TraceError {
    pub file: PathBuf,
    pub line: u64,
    pub msg: String,
}
