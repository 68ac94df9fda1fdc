//! Physical address → (home node, channel, channel-local address) and L2 slice selection.
//!
//! The node is chosen per page by its granularity bit (CODA §3.1, [`dual_mode`]); inside a
//! node, channels are interleaved at `memory.channel_interleave_bytes` on the node-local
//! address, and the channel bits are deleted to form the channel-local address that the DRAM
//! model splits into bank, row and column.

pub mod dual_mode;

pub use dual_mode::{DualModeMap, Mode};

use crate::config::Config;

/// Where a physical line lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub node: u32,
    pub channel: u32,
    /// Address inside the channel (node and channel bits removed).
    pub chan_addr: u64,
}

/// The full address map of a system.
#[derive(Clone, Debug)]
pub struct AddressMap {
    pub dual: DualModeMap,
    ch_shift: u32,
    ch_bits: u32,
    slice_count: u64,
    line_shift: u32,
}

impl AddressMap {
    pub fn new(cfg: &Config) -> Self {
        AddressMap {
            dual: DualModeMap::new(
                cfg.system.nodes,
                cfg.system.page_bytes,
                cfg.mapping.fgp_stripe_bytes,
            ),
            ch_shift: cfg.memory.channel_interleave_bytes.trailing_zeros(),
            ch_bits: cfg.memory.channels_per_node.trailing_zeros(),
            slice_count: cfg.l2.slices_per_node as u64,
            line_shift: cfg.system.line_bytes.trailing_zeros(),
        }
    }

    /// Home node, channel and channel-local address of `pa` under `mode`.
    #[inline]
    pub fn locate(&self, pa: u64, mode: Mode) -> Location {
        let (node, local) = self.dual.route(pa, mode);
        let channel = ((local >> self.ch_shift) & ((1u64 << self.ch_bits) - 1)) as u32;
        let low = local & ((1u64 << self.ch_shift) - 1);
        let high = local >> (self.ch_shift + self.ch_bits);
        Location {
            node,
            channel,
            chan_addr: (high << self.ch_shift) | low,
        }
    }

    /// L2 slice (inside the requesting node) that caches line address `pa`.
    #[inline]
    pub fn slice(&self, pa: u64) -> u32 {
        let line = pa >> self.line_shift;
        // fold higher bits in so power-of-two strides spread over slices
        ((line ^ (line >> 7) ^ (line >> 13)) % self.slice_count) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashSet;

    fn map() -> AddressMap {
        AddressMap::new(&Config::default())
    }

    #[test]
    fn channel_interleave_is_128b_on_local_address() {
        let m = map();
        // node-local addresses 0,128,256.. walk channels 0,1,2..; the 9th wraps to channel 0
        // with chan_addr advanced by one 128 B block
        let m1 = DualModeMap::new(1, 4096, 128);
        let am = AddressMap { dual: m1, ..m };
        for i in 0..8u64 {
            let l = am.locate(i * 128, Mode::Cgp);
            assert_eq!((l.node, l.channel, l.chan_addr), (0, i as u32, 0));
        }
        let l = am.locate(8 * 128 + 5, Mode::Cgp);
        assert_eq!((l.channel, l.chan_addr), (0, 128 + 5));
    }

    proptest! {
        /// On a page-group, each mode is a bijection onto (node, channel, chan_addr).
        #[test]
        fn locate_is_a_bijection_per_group(group in 0u64..1_000_000, cgp in any::<bool>()) {
            let m = map();
            let mode = if cgp { Mode::Cgp } else { Mode::Fgp };
            let base = group * 4 * 4096;
            let mut seen = HashSet::new();
            for off in (0..4 * 4096u64).step_by(64) {
                let l = m.locate(base + off, mode);
                prop_assert!(seen.insert((l.node, l.channel, l.chan_addr)));
            }
        }
    }
}
