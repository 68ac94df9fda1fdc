//! CODA dual-mode address mapping (Kim et al., TACO 2018, §4.2; spec §3.1).
//!
//! With `N = 2^n` nodes, page `P = 2^p` and FGP stripe `F = 2^f` (f + n <= p):
//! - FGP (fine-grained page, G = 0): node = PA[f+n-1:f]; the page is striped over all nodes.
//! - CGP (coarse-grained page, G = 1): node = PA[p+n-1:p] (the low PPN bits); the whole page
//!   lives on one node, and consecutive CGP frames lie on consecutive nodes.
//!
//! With more nodes than stripes in a page (f + n > p: 64 nodes x 128 B > 4 KB, NUBA's MCM
//! and 8-16 GPU systems), FGP still selects the node from PA[f+n-1:f]: each page is striped
//! over P/F nodes and a page-group over all N, and everything below still holds.
//!
//! The node-local address deletes the node-select bits, so in both modes the page-group
//! `PA >> (p+n)` (N adjacent frames) maps onto the same local range `[Gp·P, (Gp+1)·P)` of
//! every node: each mode is a bijection on the group and groups never collide. That is why
//! the OS switches whole page-groups between modes (§3.2, [`crate::placement::frames`]).

/// Granularity bit of a page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Mode {
    /// Fine-grained: striped across nodes.
    Fgp,
    /// Coarse-grained: the whole page on one node.
    Cgp,
}

/// The bit-level map for one system shape.
#[derive(Clone, Copy, Debug)]
pub struct DualModeMap {
    n: u32,
    p: u32,
    f: u32,
}

impl DualModeMap {
    /// `nodes`, `page` and `stripe` must be powers of two with stripe <= page.
    pub fn new(nodes: u32, page: u64, stripe: u64) -> Self {
        DualModeMap {
            n: nodes.trailing_zeros(),
            p: page.trailing_zeros(),
            f: stripe.trailing_zeros(),
        }
    }

    /// Number of nodes.
    pub fn nodes(&self) -> u32 {
        1 << self.n
    }

    /// (node, node-local address) of physical address `pa` under `mode`.
    #[inline]
    pub fn route(&self, pa: u64, mode: Mode) -> (u32, u64) {
        let mask = (1u64 << self.n) - 1;
        let sel = match mode {
            Mode::Fgp => self.f,
            Mode::Cgp => self.p,
        };
        let node = ((pa >> sel) & mask) as u32;
        let local = ((pa >> (sel + self.n)) << sel) | (pa & ((1u64 << sel) - 1));
        (node, local)
    }

    /// Node on which CGP frame `ppn` lives (= PPN mod N).
    #[inline]
    pub fn cgp_node(&self, ppn: u64) -> u32 {
        (ppn & ((1u64 << self.n) - 1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test vectors of spec §3.1 (N = 4, P = 4 KB, F = 128 B).
    #[test]
    fn spec_test_vectors() {
        let m = DualModeMap::new(4, 4096, 128);
        let v = [
            (0x0000, (0, 0x000), (0, 0x000)),
            (0x0080, (1, 0x000), (0, 0x080)),
            (0x0200, (0, 0x080), (0, 0x200)),
            (0x1000, (0, 0x400), (1, 0x000)),
            (0x4000, (0, 0x1000), (0, 0x1000)),
        ];
        for (pa, fgp, cgp) in v {
            assert_eq!(m.route(pa, Mode::Fgp), fgp, "FGP {pa:#x}");
            assert_eq!(m.route(pa, Mode::Cgp), cgp, "CGP {pa:#x}");
        }
    }

    /// The paper's bit example: 1 KB stripes (bits [11:10]) and 2 MB pages (bits [22:21]).
    #[test]
    fn paper_bit_examples() {
        let m = DualModeMap::new(4, 4096, 1024);
        assert_eq!(m.route(0x0C00, Mode::Fgp), (3, 0));
        assert_eq!(m.route(0x3000, Mode::Cgp).0, 3, "CGP bits [13:12]");
        let big = DualModeMap::new(4, 2 << 20, 128);
        assert_eq!(
            big.route(3 << 21, Mode::Cgp).0,
            3,
            "2 MB pages: bits [22:21]"
        );
        let eight = DualModeMap::new(8, 4096, 128);
        assert_eq!(
            eight.route(7 << 7, Mode::Fgp).0,
            7,
            "8 GPUs: FGP bits [9:7]"
        );
        assert_eq!(
            eight.route(7 << 12, Mode::Cgp).0,
            7,
            "8 GPUs: CGP bits [14:12]"
        );
    }

    /// Both modes map a page-group onto the same local range of every node (Fig. 8).
    #[test]
    fn group_maps_to_same_local_range_in_both_modes() {
        let m = DualModeMap::new(4, 4096, 128);
        for gp in [0u64, 1, 77] {
            for mode in [Mode::Fgp, Mode::Cgp] {
                let mut per_node = [[false; 4096 / 128]; 4];
                for off in (0..16384u64).step_by(128) {
                    let (node, local) = m.route(gp * 16384 + off, mode);
                    assert!(local >= gp * 4096 && local < (gp + 1) * 4096);
                    let slot = ((local - gp * 4096) / 128) as usize;
                    assert!(!per_node[node as usize][slot], "collision");
                    per_node[node as usize][slot] = true;
                }
            }
        }
    }

    /// More nodes than stripes per page (128 nodes x 128 B = 16 KB > 4 KB): a page-group of
    /// 128 frames still maps one-to-one onto the same local page of every node in both
    /// modes, and FGP spreads the group's lines evenly over all 128 nodes.
    #[test]
    fn many_nodes_keep_the_group_bijection() {
        let (n, page, stripe) = (128u64, 4096u64, 128u64);
        let m = DualModeMap::new(n as u32, page, stripe);
        let group = n * page;
        for gp in [0u64, 3] {
            for mode in [Mode::Fgp, Mode::Cgp] {
                let mut seen = vec![false; (n * page / stripe) as usize];
                let mut per_node = vec![0u32; n as usize];
                for off in (0..group).step_by(stripe as usize) {
                    let (node, local) = m.route(gp * group + off, mode);
                    assert!(local >= gp * page && local < (gp + 1) * page, "{mode:?}");
                    let slot = node as u64 * (page / stripe) + (local - gp * page) / stripe;
                    assert!(!seen[slot as usize], "collision");
                    seen[slot as usize] = true;
                    per_node[node as usize] += 1;
                }
                assert!(per_node.iter().all(|&c| c == (page / stripe) as u32));
            }
        }
        // one FGP page covers page/stripe = 32 consecutive nodes
        let nodes: std::collections::BTreeSet<u32> = (0..page)
            .step_by(stripe as usize)
            .map(|o| m.route(o, Mode::Fgp).0)
            .collect();
        assert_eq!(nodes.len(), (page / stripe) as usize);
    }

    /// Fig. 8: FGP page k's 1 KB sub-block s sits on GPU s mod 4; converting the group
    /// puts frame k wholly on GPU k.
    #[test]
    fn fig8_page_group() {
        let m = DualModeMap::new(4, 4096, 1024);
        for s in 0..16u64 {
            assert_eq!(m.route(s * 1024, Mode::Fgp).0 as u64, s % 4);
        }
        for k in 0..4u64 {
            for off in (0..4096u64).step_by(512) {
                assert_eq!(m.route(k * 4096 + off, Mode::Cgp).0 as u64, k);
            }
        }
    }
}
