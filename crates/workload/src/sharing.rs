//! Page-sharing analysis of CODA §3 / spec §5 (Fig. 5, Table 2): for every (launch, 4 KB
//! page) pair, how many thread blocks and how many GPUs touch it, and the resulting category.
//!
//! Thread-block identity is (launch, block id); the GPU of a block is its Eq. 1 affinity
//! `floor(block / N_bpg) mod N_GPUs` (spec A12); pages are virtual pages touched by the GPU.

use crate::program::{BlockProgram, KernelInfo, Space, Workload, WorkloadError};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Fig. 5 bucket edges (spec A12): 1, 2, 3-4, 5-8, 9-16, 17-64, >64 thread blocks.
pub const BUCKETS: [(&str, u64, u64); 7] = locus_trace::stat::SHARING_BUCKETS;

/// Result of the analysis.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SharingReport {
    /// (launch, page) pairs analysed.
    pub pages: u64,
    /// Pages by number of thread blocks, in [`BUCKETS`] order.
    pub by_blocks: [u64; 7],
    /// Pages by number of GPUs touching them (index 0 = 1 GPU).
    pub by_gpus: Vec<u64>,
    /// Fraction of pages touched by exactly one thread block.
    pub frac_one_block: f64,
    /// Fraction of pages touched by exactly one GPU.
    pub frac_one_gpu: f64,
    /// Fraction of line accesses that go to pages touched by one GPU only.
    pub access_frac_one_gpu: f64,
    /// Category by the paper's rules (spec §5, order BE → CE → BM → CM → Sharing).
    pub category: String,
}

/// Category name from the page fractions (spec §5 classification rules with the \[S\] fix for
/// block-majority: > 60% of pages by one thread block).
pub fn classify(frac_one_block: f64, frac_one_gpu: f64) -> &'static str {
    if frac_one_block > 0.9 {
        "block-exclusive"
    } else if frac_one_gpu > 0.9 {
        "core-exclusive"
    } else if frac_one_block > 0.6 {
        "block-majority"
    } else if frac_one_gpu > 0.6 {
        "core-majority"
    } else {
        "sharing"
    }
}

#[derive(Default, Clone, Copy)]
struct PageUse {
    last_block: u64,
    blocks: u32,
    gpus: u32,
    accesses: u64,
}

/// Run every launch of `w` (functionally, all blocks in order) and measure page sharing.
/// `nbpg(kernel)` gives the concurrent blocks per GPU used by Eq. 1.
pub fn page_sharing(
    w: &mut dyn Workload,
    n_gpus: u32,
    page_bytes: u64,
    line_bytes: u32,
    mut nbpg: impl FnMut(&KernelInfo) -> u64,
    max_launches: usize,
) -> Result<SharingReport, WorkloadError> {
    let mut by_blocks = [0u64; 7];
    let mut by_gpus = vec![0u64; n_gpus as usize];
    let (mut pages, mut one_block, mut one_gpu) = (0u64, 0u64, 0u64);
    let (mut acc_total, mut acc_one_gpu) = (0u64, 0u64);
    let mut bp = BlockProgram::default();
    let mut launches = 0;
    while launches < max_launches {
        let Some(info) = w.begin_launch()? else { break };
        launches += 1;
        let n = nbpg(&info).max(1);
        let mut map: HashMap<u64, PageUse> = HashMap::new();
        for b in 0..info.num_blocks() {
            w.gen_block(b, false, line_bytes, &mut bp)?;
            let gpu = ((b / n) % n_gpus as u64) as u32;
            for wp in &bp.warps {
                for inst in &wp.insts {
                    if !inst.class.is_mem() || inst.space == Space::Shared {
                        continue;
                    }
                    for lr in wp.lines_of(inst) {
                        let e = map.entry(lr.addr / page_bytes).or_insert(PageUse {
                            last_block: u64::MAX,
                            ..Default::default()
                        });
                        e.accesses += 1;
                        if e.last_block != b {
                            e.last_block = b;
                            e.blocks += 1;
                            e.gpus |= 1 << gpu;
                        }
                    }
                }
            }
        }
        for u in map.values() {
            pages += 1;
            let bi = BUCKETS
                .iter()
                .position(|&(_, lo, hi)| (lo..=hi).contains(&(u.blocks as u64)))
                .unwrap_or(6);
            by_blocks[bi] += 1;
            let g = u.gpus.count_ones().max(1) as usize;
            by_gpus[g - 1] += 1;
            one_block += (u.blocks == 1) as u64;
            one_gpu += (g == 1) as u64;
            acc_total += u.accesses;
            if g == 1 {
                acc_one_gpu += u.accesses;
            }
        }
    }
    let f = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let frac_one_block = f(one_block, pages);
    let frac_one_gpu = f(one_gpu, pages);
    Ok(SharingReport {
        pages,
        by_blocks,
        by_gpus,
        frac_one_block,
        frac_one_gpu,
        access_frac_one_gpu: f(acc_one_gpu, acc_total),
        category: classify(frac_one_block, frac_one_gpu).to_string(),
    })
}

/// Concurrent thread blocks per SM under Fermi-like limits (spec A22): the minimum over
/// blocks, threads, warps, registers and shared memory.
pub fn occupancy(
    k: &KernelInfo,
    max_blocks: u32,
    max_threads: u32,
    regs: u32,
    smem_bytes: u32,
) -> u32 {
    let t = k.threads_per_block().max(1);
    let warps_t = k.warps_per_block() * 32;
    let by_threads = max_threads / warps_t.max(t);
    let by_regs = if k.regs_per_thread == 0 {
        u32::MAX
    } else {
        regs / (k.regs_per_thread * warps_t).max(1)
    };
    let by_smem = smem_bytes.checked_div(k.smem_per_block).unwrap_or(u32::MAX);
    max_blocks.min(by_threads).min(by_regs).min(by_smem)
}

/// Page sharing with the coda-4gpu defaults (4 GPUs x 4 SMs, Fermi occupancy limits of spec
/// A22, 4 KB pages, 128 B lines): what the built-in benchmarks' tests check their category
/// against.
pub fn coda_default_sharing(
    w: &mut dyn Workload,
    max_launches: usize,
) -> Result<SharingReport, WorkloadError> {
    page_sharing(
        w,
        4,
        4096,
        128,
        |k| 4 * occupancy(k, 8, 1536, 32768, 49152).max(1) as u64,
        max_launches,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry;
    use std::collections::BTreeMap;

    #[test]
    fn classify_rules() {
        assert_eq!(classify(0.95, 1.0), "block-exclusive");
        assert_eq!(classify(0.5, 0.95), "core-exclusive");
        assert_eq!(classify(0.7, 0.8), "block-majority");
        assert_eq!(classify(0.3, 0.7), "core-majority");
        assert_eq!(classify(0.1, 0.2), "sharing");
    }

    #[test]
    fn vectoradd_pages_are_core_exclusive() {
        // 256 threads x 4 B = 1 KB per block per array: 4 blocks share a page, all on one GPU
        // under affinity, so vectorAdd is core-exclusive.
        let mut ov = BTreeMap::new();
        ov.insert("n".to_string(), "256k".to_string());
        let mut w = registry::build("vectoradd", &ov, 1).unwrap();
        let r = coda_default_sharing(&mut w, 10).unwrap();
        assert_eq!(r.category, "core-exclusive");
        assert_eq!(
            r.by_blocks[2], r.pages,
            "every page is touched by exactly 4 blocks"
        );
    }

    #[test]
    fn fermi_occupancy() {
        let k = KernelInfo {
            name: String::new(),
            grid: crate::Dim3::x(1),
            block: crate::Dim3::x(256),
            regs_per_thread: 16,
            smem_per_block: 0,
        };
        assert_eq!(
            occupancy(&k, 8, 1536, 32768, 49152),
            6,
            "1536 / 256 threads"
        );
    }
}
