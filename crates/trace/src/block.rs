//! A decoded thread block: its index and, per warp, the instructions and lane addresses.
//! Buffers are reused from block to block to avoid allocation in the hot path.

use crate::inst::TraceInst;

/// The instructions of one warp of a traced block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceWarp {
    /// Whether the trace holds this warp (a block may lack warps its shape implies).
    pub present: bool,
    /// Instructions in trace order.
    pub insts: Vec<TraceInst>,
    /// Lane addresses of the memory instructions, one per active lane, in lane order.
    pub addrs: Vec<u64>,
}

impl TraceWarp {
    /// The lane addresses of `inst` (empty for non-memory instructions).
    pub fn addrs_of(&self, inst: &TraceInst) -> &[u64] {
        let s = inst.addr_start as usize;
        self.addrs
            .get(s..s.saturating_add(inst.naddrs as usize))
            .unwrap_or(&[])
    }
    fn clear(&mut self) {
        self.present = false;
        self.insts.clear();
        self.addrs.clear();
    }
}

/// One thread block of a kernel trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceBlock {
    /// Block index (x, y, z).
    pub index: [u32; 3],
    /// Row-major linear id (x fastest).
    pub linear: u64,
    /// 1-based line of its `#BEGIN_TB`.
    pub line: u64,
    /// Byte offset of its `#BEGIN_TB` line in the (decompressed) file.
    pub offset: u64,
    /// One entry per warp of the block shape (ceil(threads / 32)).
    pub warps: Vec<TraceWarp>,
}

impl TraceBlock {
    /// Make room for `nwarps` empty warps, reusing buffers.
    pub fn reset(&mut self, nwarps: usize) {
        self.warps.truncate(nwarps);
        for w in &mut self.warps {
            w.clear();
        }
        if self.warps.len() < nwarps {
            self.warps.resize_with(nwarps, TraceWarp::default);
        }
    }
    /// Total instructions.
    pub fn num_insts(&self) -> usize {
        self.warps.iter().map(|w| w.insts.len()).sum()
    }
    /// Warps present in the trace.
    pub fn num_present_warps(&self) -> usize {
        self.warps.iter().filter(|w| w.present).count()
    }
}
