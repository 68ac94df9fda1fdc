//! `replication.kind = "full"` (Full-Rep, NUBA Fig. 12, nuba.md §5.3): every read of a
//! line that is read-only in the current kernel and homed in another partition is cached
//! in the requester's local slice (on demand, per line, like any other line for LRU).

/// The policy that always replicates read-only remote lines.
#[derive(Clone, Copy, Debug, Default)]
pub struct FullRep;

impl FullRep {
    /// Always.
    #[inline]
    pub fn replicating(&self) -> bool {
        true
    }
}
