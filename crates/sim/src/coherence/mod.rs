//! Coherence of cached remote data (issue 7 §2): the home-side directory station and the
//! coherence checker.
//!
//! The station: every node keeps a [`Directory`] for the lines it is home of. The system
//! calls it at two points (`system/memory.rs`, `System::home_read` and
//! `System::home_write`):
//! - [`Directory::read`] when the home serves a read of a remote node (at the home L2
//!   slice, or at the home's DRAM when the requester-side L2 missed): the requester becomes
//!   a sharer;
//! - [`Directory::write`] when a write, write-back or atomic is performed at the home: every
//!   sharer but the writer must drop its copy.
//!
//! Both push [`Inval`]s (a line and a mask of nodes) into a caller-owned buffer; the system
//! sends one `Msg::Invalidation` packet per target node, and on arrival drops the line from
//! that node's L2 slice and L1s, or marks their in-flight fill so it is not installed.
//! A directory with bounded storage also pushes the invalidations its evictions cause
//! (REC §2.4 "evict-initiated invalidations") from `read` or `write`.
//!
//! Adding a directory organisation (REC, HMG, a FIFO line directory: rec.md §2.3-§3.7) is
//! one new file here implementing [`DirectoryOrg`], plus one variant in
//! `config::DirectoryKind`, one in [`Directory`] and one line in [`Directory::new`]; the
//! `dispatch!` macro forwards every call, so nothing else changes. Give it its own
//! counters through [`DirectoryOrg::entries`] / [`DirectoryOrg::evictions`].

pub mod checker;
pub mod full_map;

use crate::config::{Config, DirectoryKind};
pub use checker::Checker;
pub use full_map::FullMap;

/// Invalidate `line` at every node whose bit is set in `sharers`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inval {
    pub line: u64,
    pub sharers: u64,
}

/// What every directory organisation provides (one per home node).
pub trait DirectoryOrg {
    /// The home served `line` to remote node `node`: record it as a sharer. Push any
    /// evict-initiated invalidations into `out`.
    fn read(&mut self, line: u64, node: u32, out: &mut Vec<Inval>);
    /// A write to `line` was performed at the home. `writer` is the remote node that keeps
    /// an up-to-date copy (a write-through or write-back requester), `None` for atomics and
    /// writes of the home's own SMs. Push the invalidations of every other sharer into
    /// `out`; afterwards the sharers are `{writer}` (or none).
    fn write(&mut self, line: u64, writer: Option<u32>, out: &mut Vec<Inval>);
    /// Entries in use (lines or ranges tracked).
    fn entries(&self) -> u64;
    /// Entries evicted for capacity so far (0 for an unbounded directory).
    fn evictions(&self) -> u64 {
        0
    }
}

/// The directory of one home node: an enum over the organisations (no `dyn` on the hot
/// path).
#[derive(Clone, Debug)]
pub enum Directory {
    FullMap(FullMap),
}

macro_rules! dispatch {
    ($s:expr, $d:ident => $e:expr) => {
        match $s {
            Directory::FullMap($d) => $e,
        }
    };
}

impl Directory {
    /// The directory `cfg.coherence.directory` of home node `home`.
    pub fn new(cfg: &Config, home: u32) -> Directory {
        match cfg.coherence.directory {
            DirectoryKind::FullMap => Directory::FullMap(FullMap::new(home)),
        }
    }
    /// See [`DirectoryOrg::read`].
    #[inline]
    pub fn read(&mut self, line: u64, node: u32, out: &mut Vec<Inval>) {
        dispatch!(self, d => d.read(line, node, out))
    }
    /// See [`DirectoryOrg::write`].
    #[inline]
    pub fn write(&mut self, line: u64, writer: Option<u32>, out: &mut Vec<Inval>) {
        dispatch!(self, d => d.write(line, writer, out))
    }
    /// See [`DirectoryOrg::entries`].
    pub fn entries(&self) -> u64 {
        dispatch!(self, d => d.entries())
    }
    /// See [`DirectoryOrg::evictions`].
    pub fn evictions(&self) -> u64 {
        dispatch!(self, d => d.evictions())
    }
}
