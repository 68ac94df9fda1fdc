//! MGPUSim's unified multi-GPU workgroup dispatch (the simulator REC was evaluated on,
//! REC §4; rec.md §6.16). `Driver.distributeWGToGPUs` (`amd/driver/driver.go`,
//! github.com/sarchlab/mgpusim) computes `wgPerCU = ceil(workgroups / all CUs)` and gives
//! GPU `g` the flattened workgroup ids (`z·X·Y + y·X + x`) `[c_g·w, (c_g + s_g)·w)`, with
//! `s_g` its CUs and `c_g` the CUs of the GPUs before it; each GPU's `WGFilter` then keeps
//! only its own range. Every GPU's share is a whole number of workgroups per CU, so unless
//! the workgroups are a multiple of all CUs the last GPUs get fewer, or none (REC's 4 R9
//! Nano GPUs, 256 CUs: 100 workgroups run 64 on GPU 0, 36 on GPU 1, none on GPUs 2 and 3).
//! Locus's blocks are numbered row-major (x fastest), as MGPUSim flattens them.

use super::Layout;

/// The block range `[start, end)` of each node, clamped to `blocks`.
pub fn ranges(blocks: u64, layout: &Layout) -> Vec<std::ops::Range<u64>> {
    let all = layout.total() as u64;
    let w = blocks.div_ceil(all.max(1));
    (0..layout.nodes())
        .map(|g| {
            let (c, s) = (layout.sms(g).start as u64, layout.count(g) as u64);
            (c * w).min(blocks)..((c + s) * w).min(blocks)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The module's example and the even case: 4 GPUs of 64 CUs.
    #[test]
    fn whole_workgroups_per_cu_fill_the_first_gpus() {
        let l = Layout::uniform(4, 64);
        assert_eq!(ranges(100, &l), [0..64, 64..100, 100..100, 100..100]);
        assert_eq!(ranges(1024, &l), [0..256, 256..512, 512..768, 768..1024]);
        // 1000 = 3.9 per CU -> 4 per CU: 256, 256, 256, 232
        assert_eq!(ranges(1000, &l), [0..256, 256..512, 512..768, 768..1000]);
        // every block is given exactly once
        for t in [0u64, 1, 255, 257, 4097] {
            let r = ranges(t, &l);
            assert_eq!(r.iter().map(|x| x.end - x.start).sum::<u64>(), t);
            assert!(r.windows(2).all(|p| p[0].end == p[1].start));
        }
    }

    /// Nodes of unequal SMs take shares in proportion; an SM-less node takes none.
    #[test]
    fn shares_follow_sm_counts() {
        let l = Layout::new(&[2, 0, 6]);
        // w = ceil(20 / 8) = 3: node 0 blocks 0..6, node 2 blocks 6..20
        assert_eq!(ranges(20, &l), [0..6, 6..6, 6..20]);
    }
}
