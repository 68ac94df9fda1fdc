//! Random placement per page with a seed (NDP §5.2, spec ndp.md: "pages placed randomly
//! across stacks at 4 KB"): each page's node is a hash of (seed, VPN), so the choice is
//! reproducible, independent of touch order, and uniform over nodes.

/// Node of page `vpn` under `seed`, over `nodes` nodes (SplitMix64 finaliser).
#[inline]
pub fn node(vpn: u64, seed: u64, nodes: u32) -> u32 {
    let mut z = vpn ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z % nodes as u64) as u32
}

#[cfg(test)]
mod tests {
    use super::node;

    #[test]
    fn uniform_reproducible_and_seeded() {
        let mut count = [0u32; 8];
        for v in 0..80_000 {
            count[node(v, 7, 8) as usize] += 1;
        }
        for c in count {
            assert!((9_000..11_000).contains(&c), "{count:?}");
        }
        assert_eq!(node(12345, 7, 8), node(12345, 7, 8));
        let differ = (0..64).filter(|&v| node(v, 1, 8) != node(v, 2, 8)).count();
        assert!(differ > 32, "the seed changes the placement");
    }
}
