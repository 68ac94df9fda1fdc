//! `replication.kind = "none"` (NUBA-No-Rep, nuba.md §3.5): remote data is never cached
//! locally; every line lives only in its home slice (the memory-side organisation).

/// The policy that never replicates.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoRep;

impl NoRep {
    /// Never.
    #[inline]
    pub fn replicating(&self) -> bool {
        false
    }
}
