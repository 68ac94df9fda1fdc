//! The one error type of the crate: every failure names the file, the 1-based line and what
//! was expected there, so a user can open the trace at the offending spot.

use std::path::{Path, PathBuf};

/// A trace that cannot be read: which file, which line, what was expected.
///
/// `line` is 1-based; 0 means the error concerns the whole file (it is missing, unreadable).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{file}:{line}: {msg}")]
pub struct TraceError {
    /// The file the error is in (kernelslist.g or a kernel file).
    pub file: PathBuf,
    /// 1-based line number, 0 for whole-file errors.
    pub line: u64,
    /// What went wrong / what was expected.
    pub msg: String,
}

impl TraceError {
    /// Build an error for `file` at `line` with message `msg`.
    pub fn new(file: impl AsRef<Path>, line: u64, msg: impl Into<String>) -> Self {
        TraceError {
            file: file.as_ref().to_path_buf(),
            line,
            msg: msg.into(),
        }
    }
}
