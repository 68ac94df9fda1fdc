//! The ideal directory (`directory.kind = "ideal"`, alias `full-map`; REC §2.8 / rec.md
//! §6.17, "zero unnecessary invalidations"): exact, unbounded per-line sharer sets, so only
//! writes invalidate and no eviction ever does. A map from line to a sharer bit mask (one
//! bit per node, up to 64 nodes; the home's own bit is never set). The map grows with the
//! lines shared (amortised; the bounded organisations allocate nothing per access).

use super::{Cause, DirectoryOrg, Inval};
use rustc_hash::{FxHashMap, FxHashSet};

/// Exact sharer sets of the lines homed at one node.
#[derive(Clone, Debug, Default)]
pub struct FullMap {
    home: u32,
    sharers: FxHashMap<u64, u64>,
    /// Every line a remote node has read so far (kept after writes drop its sharers): the
    /// directory reach a bounded organisation would need (REC §2.5, issue 9).
    touched: FxHashSet<u64>,
}

impl FullMap {
    /// An empty directory for home node `home`.
    pub fn new(home: u32) -> FullMap {
        FullMap {
            home,
            sharers: FxHashMap::default(),
            touched: FxHashSet::default(),
        }
    }
    /// The sharer mask of `line` (0 when untracked).
    pub fn sharers(&self, line: u64) -> u64 {
        self.sharers.get(&line).copied().unwrap_or(0)
    }
}

impl DirectoryOrg for FullMap {
    fn read(&mut self, line: u64, _idx: u64, node: u32, _out: &mut Vec<Inval>) {
        if node != self.home {
            *self.sharers.entry(line).or_insert(0) |= 1u64 << node;
            self.touched.insert(line);
        }
    }

    fn write(&mut self, line: u64, _idx: u64, writer: Option<u32>, out: &mut Vec<Inval>) {
        let keep = match writer {
            Some(w) if w != self.home => 1u64 << w,
            _ => 0,
        };
        let old = if keep == 0 {
            self.sharers.remove(&line).unwrap_or(0)
        } else {
            self.sharers.insert(line, keep).unwrap_or(0)
        };
        let inv = old & !keep;
        if inv != 0 {
            out.push(Inval {
                line,
                sharers: inv,
                cause: Cause::Write,
            });
        }
    }

    fn entries(&self) -> u64 {
        self.sharers.len() as u64
    }

    fn touched(&self) -> u64 {
        self.touched.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_add_sharers_and_writes_invalidate_all_but_the_writer() {
        let mut d = FullMap::new(0);
        let mut out = Vec::new();
        d.read(5, 5, 1, &mut out);
        d.read(5, 5, 3, &mut out);
        d.read(5, 5, 0, &mut out); // the home is never its own sharer
        d.read(6, 6, 2, &mut out);
        assert!(out.is_empty(), "an unbounded directory never evicts");
        assert_eq!(d.sharers(5), 0b1010);
        assert_eq!(
            d.touched(),
            2,
            "lines 5 and 6; the home's own read is not remote"
        );
        d.write(5, 5, Some(3), &mut out);
        assert_eq!(
            out,
            vec![Inval {
                line: 5,
                sharers: 0b0010,
                cause: Cause::Write,
            }]
        );
        assert_eq!(d.sharers(5), 0b1000, "the writer stays a sharer");
        out.clear();
        d.write(5, 5, None, &mut out);
        assert_eq!(
            out[0].sharers, 0b1000,
            "an atomic invalidates even the issuer"
        );
        assert_eq!(d.sharers(5), 0);
        out.clear();
        d.write(7, 7, None, &mut out);
        assert!(out.is_empty(), "untracked line: nothing to invalidate");
        assert_eq!(d.entries(), 1, "only line 6 is tracked");
        assert_eq!(d.sharers(6), 0b0100, "other lines untouched");
    }
}
