//! Round-robin placement in allocation order (NUBA §7.9 "RR", spec nuba.md §4.1): whole
//! pages, the k-th page mapped (first touched) anywhere in the program goes to node
//! `k mod N`. Unlike [`super::PlacementPolicy::Cgp`] (node = VPN mod N) the node follows
//! the order in which pages are allocated, as a demand-paging driver hands out frames.

/// Node of the `k`-th page allocated, over `nodes` nodes.
#[inline]
pub fn node(k: u64, nodes: u32) -> u32 {
    (k % nodes as u64) as u32
}

#[cfg(test)]
mod tests {
    #[test]
    fn cycles_over_nodes_in_allocation_order() {
        let v: Vec<u32> = (0..9).map(|k| super::node(k, 4)).collect();
        assert_eq!(v, [0, 1, 2, 3, 0, 1, 2, 3, 0]);
    }
}
