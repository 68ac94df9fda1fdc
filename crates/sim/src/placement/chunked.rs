//! Contiguous per-object chunks (issue 7 §4; the "one chunk per GPU" placement multi-GPU
//! studies such as REC and NUMA-GPU compare against): each data object is cut into N equal
//! contiguous chunks of whole pages, chunk `i` on node `i`. Pages outside every named object
//! fall back to VPN mod N.

/// Node of the page starting at byte offset `rel` of an object of `bytes` bytes, over
/// `nodes` nodes, with pages of `page` bytes: chunk = ceil(pages / N) pages.
#[inline]
pub fn node(rel: u64, bytes: u64, page: u64, nodes: u32) -> u32 {
    let pages = bytes.div_ceil(page).max(1);
    let per = pages.div_ceil(nodes as u64).max(1);
    (((rel / page) / per).min(nodes as u64 - 1)) as u32
}

#[cfg(test)]
mod tests {
    use super::node;

    #[test]
    fn equal_contiguous_chunks() {
        // 10 pages over 4 nodes: chunks of 3 pages (3, 3, 3, 1)
        let v: Vec<u32> = (0..10)
            .map(|p| node(p * 4096, 10 * 4096, 4096, 4))
            .collect();
        assert_eq!(v, [0, 0, 0, 1, 1, 1, 2, 2, 2, 3]);
        // a one-page object lives on node 0
        assert_eq!(node(0, 100, 4096, 4), 0);
    }
}
