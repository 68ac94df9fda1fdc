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
    st_shift: u32,
    st_bits: u32,
    slice_count: u64,
    line_shift: u32,
    /// Channels per node when not a power of two (K80's 6 GDDR5 controllers): interleave
    /// units go to channels by modulo; 0 = the bit-field map.
    ch_mod: u64,
    /// `memory.channel_xor`: XOR the stack and channel bits with folded higher bits (PAE).
    xor: bool,
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
            ch_bits: (cfg.memory.channels_per_node / cfg.memory.stacks_per_node).trailing_zeros(),
            st_shift: cfg.memory.stack_interleave_bytes.trailing_zeros(),
            st_bits: cfg.memory.stacks_per_node.trailing_zeros(),
            slice_count: cfg.l2.slices_per_node as u64,
            line_shift: cfg.system.line_bytes.trailing_zeros(),
            ch_mod: if cfg.memory.channels_per_node.is_power_of_two() {
                0
            } else {
                cfg.memory.channels_per_node as u64
            },
            xor: cfg.memory.channel_xor,
        }
    }

    /// Home node, channel and channel-local address of `pa` under `mode`.
    #[inline]
    pub fn locate(&self, pa: u64, mode: Mode) -> Location {
        let (node, local) = self.dual.route(pa, mode);
        if self.ch_mod != 0 {
            // unit u of the interleave goes to channel u mod C at unit u / C of it (a
            // bijection; one stack, checked by `Config::validate`)
            let unit = local >> self.ch_shift;
            let low = local & ((1u64 << self.ch_shift) - 1);
            return Location {
                node,
                channel: (unit % self.ch_mod) as u32,
                chan_addr: ((unit / self.ch_mod) << self.ch_shift) | low,
            };
        }
        // stack bits first (deleted), then the channel bits inside the stack (deleted)
        let (stack, local) = take_bits(local, self.st_shift, self.st_bits);
        let (cis, chan_addr) = take_bits(local, self.ch_shift, self.ch_bits);
        let mut channel = (stack << self.ch_bits) | cis;
        if self.xor {
            // PAE: fold the address bits above both interleave units (what is left of
            // chan_addr there: independent of the channel bits, so the map stays a
            // bijection) into the channel index
            let bits = self.st_bits + self.ch_bits;
            let mut high = chan_addr >> self.ch_shift.max(self.st_shift);
            let mut h = 0;
            while high != 0 && bits > 0 {
                h ^= high & ((1u64 << bits) - 1);
                high >>= bits;
            }
            channel ^= h;
        }
        Location {
            node,
            channel: channel as u32,
            chan_addr,
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

/// How a slice numbers its own lines for `l2.set_index = "partition"`: the line-number bit
/// fields `(lo, n)` that `SetAssoc::bank_local` deletes before the linear set index, and
/// a divisor applied after (1: none); or why this machine has no such numbering. The
/// fields are the ones that pick the line's home node and its L2 slice there, so the lines
/// one slice holds are numbered by their place in the node's memory, as GPGPU-Sim 3.x
/// indexes an L2 bank by the address without its partition bits and MGPUSim by the bank's
/// internal address (a GPU's memory there is a range of its own, so its node bits are
/// high bits outside the index).
///
/// - The node: with more than one node, the bits above the page offset that pick a CGP
///   page's node (`PPN mod nodes`, [`DualModeMap::route`]; every preset that uses this
///   index places whole pages). Without them a partition's own lines, which all share
///   those bits, would use a fraction of the sets.
/// - Without `l2.slices_per_channel`: the slice is a hash of the line number,
///   `(l ^ l >> 7 ^ l >> 13) mod slices` ([`AddressMap::slice`]), which for a power-of-two
///   count of at most 128 slices is one-to-one on the low log2(slices) bits of every
///   aligned group of that many lines: those bits are a field. Other counts (REC's
///   NVIDIA-like 36 slices) divide the rest by the count instead, which numbers a slice's
///   lines densely only on average (the hash is not one-to-one on the groups).
/// - With it: the bits that change the line's channel (probed on the map without
///   `memory.channel_xor`, pages in CGP mode), and the low log2(per channel) bits that
///   pick the slice among its channel's.
///
/// Adjacent fields are merged; at most three separate ones are modelled.
pub fn slice_select_fields(cfg: &Config) -> Result<(Vec<(u32, u32)>, u64), String> {
    let spn = cfg.l2.slices_per_node as u64;
    let spc = cfg.l2.slices_per_channel as u64;
    if cfg.l2.memory_side {
        return Err("not modelled with l2.memory_side = true (use linear or xor)".into());
    }
    let line_shift = cfg.system.line_bytes.trailing_zeros();
    let mut fields: Vec<(u32, u32)> = Vec::new();
    let mut div = 1;
    if spc == 0 {
        if spn.is_power_of_two() && spn <= 128 {
            fields.push((0, spn.trailing_zeros()));
        } else {
            div = spn.max(1);
        }
    } else {
        if !spc.is_power_of_two() || !cfg.memory.channels_per_node.is_power_of_two() {
            return Err(format!(
                "l2.slices_per_channel = {spc} with memory.channels_per_node = {}: both must be powers of two",
                cfg.memory.channels_per_node
            ));
        }
        let mut c = cfg.clone();
        c.memory.channel_xor = false;
        let m = AddressMap::new(&c);
        let ch = |line: u64| m.locate(line << line_shift, Mode::Cgp).channel;
        let base = ch(0);
        let sub = spc.trailing_zeros();
        if sub > 0 {
            fields.push((0, sub));
        }
        for b in 0..48u32 {
            if ch(1u64 << b) != base {
                if b < sub {
                    return Err(format!(
                        "the channel bits start at line bit {b}, below the {sub} bit(s) that pick one of a channel's {spc} slices; raise memory.channel_interleave_bytes"
                    ));
                }
                fields.push((b, 1));
            }
        }
    }
    let nodes = cfg.system.nodes;
    if nodes > 1 {
        let lo = cfg.system.page_bytes.trailing_zeros() - line_shift;
        let n = nodes.trailing_zeros();
        if fields.iter().any(|&(a, k)| a < lo + n && lo < a + k) {
            return Err(format!(
                "the node bits (line bits {lo}..{}) overlap the slice-select bits; raise system.page_bytes",
                lo + n
            ));
        }
        fields.push((lo, n));
    }
    fields.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::new();
    for (lo, n) in fields.into_iter().filter(|f| f.1 > 0) {
        match merged.last_mut() {
            Some((a, k)) if *a + *k == lo => *k += n,
            _ => merged.push((lo, n)),
        }
    }
    if merged.len() > 3 {
        return Err(format!(
            "the node and slice are picked by {} separate bit fields of the line number (at most 3 are modelled)",
            merged.len()
        ));
    }
    Ok((merged, div))
}

/// Extract `bits` bits at `shift` from `a`, and `a` with them deleted.
#[inline]
fn take_bits(a: u64, shift: u32, bits: u32) -> (u64, u64) {
    let v = (a >> shift) & ((1u64 << bits) - 1);
    let low = a & ((1u64 << shift) - 1);
    let high = a >> (shift + bits);
    (v, (high << shift) | low)
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
    fn pae_channel_xor_is_a_bijection_that_spreads_strides() {
        // nuba-mem-uba's memory: 4 stacks x 8 channels, 4 KB interleave
        let mut c = Config::default();
        c.system.nodes = 1;
        c.memory.channels_per_node = 32;
        c.memory.stacks_per_node = 4;
        c.memory.channel_interleave_bytes = 4096;
        c.memory.stack_interleave_bytes = 4096;
        let fixed = AddressMap::new(&c);
        c.memory.channel_xor = true;
        let pae = AddressMap::new(&c);
        let mut seen = std::collections::HashSet::new();
        for i in 0..4096u64 {
            let l = pae.locate(i * 4096, Mode::Cgp);
            assert!(
                seen.insert((l.channel, l.chan_addr)),
                "not a bijection at {i}"
            );
            assert_eq!(l.chan_addr, fixed.locate(i * 4096, Mode::Cgp).chan_addr);
        }
        // a 128 KB stride (32 pages) hits one channel under the fixed map, many under PAE
        let chans = |m: &AddressMap| {
            (0..64u64)
                .map(|i| m.locate(i * 32 * 4096, Mode::Cgp).channel)
                .collect::<std::collections::HashSet<_>>()
                .len()
        };
        assert_eq!(chans(&fixed), 1);
        assert!(chans(&pae) >= 32, "{}", chans(&pae));
    }

    #[test]
    fn six_channels_interleave_by_modulo_as_a_bijection() {
        let mut c = Config::default();
        c.system.nodes = 1;
        c.memory.channels_per_node = 6;
        c.validate().unwrap();
        let m = AddressMap::new(&c);
        let mut seen = HashSet::new();
        for i in 0..600u64 {
            let l = m.locate(i * 128, Mode::Cgp);
            assert_eq!(l.channel as u64, i % 6);
            assert_eq!(l.chan_addr, (i / 6) * 128);
            assert!(seen.insert((l.channel, l.chan_addr)));
        }
        c.memory.stacks_per_node = 2;
        assert!(c.validate().is_err());
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

    /// Fig. 14 centralized GPU: 4 stacks x 8 channels; 4 KB across stacks keeps a page in
    /// one stack, 128 B spreads it over all four.
    #[test]
    fn stack_interleave() {
        let mut c = Config::default();
        c.system.nodes = 1;
        c.memory.channels_per_node = 32;
        c.memory.stacks_per_node = 4;
        c.memory.stack_interleave_bytes = 4096;
        let m = AddressMap::new(&c);
        let stacks: HashSet<u32> = (0..32u64)
            .map(|i| m.locate(i * 128, Mode::Cgp).channel / 8)
            .collect();
        assert_eq!(stacks.len(), 1, "one page, one stack");
        let chans: HashSet<u32> = (0..32u64)
            .map(|i| m.locate(i * 128, Mode::Cgp).channel)
            .collect();
        assert_eq!(chans.len(), 8, "spread over the stack's 8 channels");
        assert_eq!(
            m.locate(4096, Mode::Cgp).channel / 8,
            1,
            "next page, next stack"
        );
        c.memory.stack_interleave_bytes = 128;
        let m = AddressMap::new(&c);
        let stacks: HashSet<u32> = (0..4u64)
            .map(|i| m.locate(i * 128, Mode::Cgp).channel / 8)
            .collect();
        assert_eq!(stacks.len(), 4, "128 B stripes rotate over stacks");
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
