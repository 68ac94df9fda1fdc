//! MGPUSim's unified multi-GPU page allocation (the simulator REC was evaluated on, REC §4;
//! rec.md §6.16 asks for "MGPUSim-style unified multi-GPU mode"). In MGPUSim
//! (github.com/sarchlab/mgpusim, `amd/driver`) a benchmark run with `-unified-gpus` sees one
//! device whose `AllocateMemory` goes to `memoryAllocatorImpl.allocatePages`, which asks the
//! unified device for one page at a time (`Device.allocatePage` ->
//! `allocateUnifiedGPUPage`, `internal/device.go`). That function rotates a counter over
//! the actual GPUs, one step per page and across all buffers, and takes the last GPU with
//! free memory of the rotation it scans, so the k-th page allocated lands on GPU
//! `(k + N - 1) mod N`. `Driver.Distribute` returns at once for a one-device list
//! (`api.go`), so the benchmarks' own `Distribute` calls leave this interleaving alone.
//!
//! Locus allocates objects page-aligned and back to back in program order
//! (`locus_workload::memory`), so the allocation index of a page is its page number
//! counted from the first object's first page.

/// Node of the page with allocation index `k` (0 = the first page allocated), over `nodes`.
#[inline]
pub fn node(k: u64, nodes: u32) -> u32 {
    let n = nodes as u64;
    ((k % n + n - 1) % n) as u32
}

#[cfg(test)]
mod tests {
    /// `allocateUnifiedGPUPage` with 4 GPUs and the counter at 0 scans GPUs 0, 1, 2, 3 and
    /// keeps the last: the first page is on GPU 3, then 0, 1, 2, 3, ...
    #[test]
    fn pages_rotate_from_the_last_gpu() {
        let v: Vec<u32> = (0..9).map(|k| super::node(k, 4)).collect();
        assert_eq!(v, [3, 0, 1, 2, 3, 0, 1, 2, 3]);
        assert!((0..5).all(|k| super::node(k, 1) == 0));
    }
}
