//! Hetero-Mark PageRank (`src/pr/cuda/pr_cuda_benchmark.cu` / `src/pr/hip`, kernel
//! `pr_cuda` / `pr_hip`): power iterations `y = M x` over a column-normalised sparse matrix
//! in CSR form, one thread per row (64 threads per block, grid `num_nodes / 64`), the host
//! swapping the two rank vectors between launches (`i % 2`).
//!
//! Per thread: `row_offsets[tid]`, `row_offsets[tid + 1]`, then for each entry `j` of the
//! row `new_value += values[j] * mtx_1[column_numbers[j]]`, finally `mtx_2[tid] =
//! new_value`. The ranks start at `1 / num_nodes`.
//!
//! Input: Hetero-Mark reads the matrix from a file; its generator as MGPUSim's port of the
//! benchmark has it (`csr.MakeMatrixGenerator`, the version REC ran): `connections =
//! sparsity * nodes^2` distinct positions drawn uniformly at random, values uniform in
//! [0, 1) and normalised so that each column sums to 1, columns sorted within a row;
//! sparsity 0.001 and 16 iterations (the port's defaults). Paper: REC Table 3 (rec.md
//! §4.3), PR with a 256 MB footprint = 182,681 nodes at sparsity 0.001 (33.4 M
//! connections). Rule 1 of `scale.rs`: the node count and the row length (both grow the
//! footprint; the sparsity stays) shrink by one factor until the footprint fits 32 MiB,
//! nodes a multiple of 64: 64,000 nodes (4.1 M connections, 32 MiB). Rule 2 (work cap)
//! halves the work-only dimension first, the iterations: [`ITER_HALVINGS`] = 1 time, to 8,
//! the graph kept. On `coda-4gpu` 16 iterations took 76.2 s of host CPU time
//! and 8 took 35.0 s (BENCHMARKS.md, 2026-11-29). See [`default_nodes`].

use crate::bench::dense::common::{bad, entry, kinfo, loop_step};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use crate::scale::FOOTPRINT_CAP_BYTES;

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "hm-pagerank",
    suite: "Hetero-Mark",
    category: "-",
    about: "PageRank y = M x, CSR, one thread per row, 16 iterations in the port (8 by default) with swapped rank vectors (pr_cuda); random column-normalised matrix; 32 MiB",
    params: &[
        ParamSpec {
            name: "nodes",
            default: "64000",
            help: "matrix rows = nodes (multiple of 64)",
        },
        ParamSpec {
            name: "sparsity",
            default: "0.001",
            help: "fraction of the nodes^2 positions that are connections",
        },
        ParamSpec {
            name: "iters",
            default: "8",
            help: "PageRank iterations (kernel launches; the port's 16 halved once by rule 2)",
        },
    ],
    build,
};

const BLOCK: u64 = 64;
/// MGPUSim's default sparsity of the port.
const SPARSITY: f64 = 0.001;

/// Device footprint of `n` nodes at `sparsity`: row offsets, columns, values, two vectors.
pub fn footprint(n: u64, sparsity: f64) -> u64 {
    let nnz = connections(n, sparsity);
    (n + 1) * 4 + nnz * 8 + 2 * n * 4
}

/// `int(nodes^2 * sparsity)`, at least `nodes` (MGPUSim's sample).
fn connections(n: u64, sparsity: f64) -> u64 {
    ((n as f64 * n as f64 * sparsity) as u64).max(n)
}

/// The port's iterations.
pub const PAPER_ITERS: u64 = 16;
/// Halvings of rule 2 (work cap) applied to the iterations (measured: see the module
/// documentation); the node count stays rule 1's.
pub const ITER_HALVINGS: u32 = 1;

/// The default node count: the paper's 256 MiB graph (182,681 nodes at sparsity 0.001),
/// rule 1 (the largest multiple of 64 whose footprint fits [`FOOTPRINT_CAP_BYTES`]).
pub fn default_nodes() -> u64 {
    let mut n = 182_681 / BLOCK * BLOCK;
    while footprint(n, SPARSITY) > FOOTPRINT_CAP_BYTES {
        n -= BLOCK;
    }
    n
}

/// `pr_cuda`: one thread per row.
struct PrKernel {
    row_offsets: ObjId,
    cols: ObjId,
    vals: ObjId,
    x: ObjId,
    y: ObjId,
    n: u64,
}

impl Kernel for PrKernel {
    fn info(&self) -> KernelInfo {
        kinfo(
            "pr_cuda",
            Dim3::x((self.n / BLOCK) as u32),
            Dim3::x(BLOCK as u32),
            16,
            0,
        )
    }
    /// Per thread (sm_70+ SASS, docs/workloads.md rules): entry `MOV; S2R x2; IMAD` (no
    /// bound test in the kernel), the row-offset address `IMAD.WIDE` and two `LDG`, the loop
    /// entry test `ISETP; BRA`. Per entry: `IMAD.WIDE` x2 and `LDG` of the column and the
    /// value, `IMAD.WIDE` of `x[col]` and its `LDG`, `FFMA`, the loop step (`IADD3; ISETP;
    /// BRA`). Then `IMAD.WIDE; STG`. 11 + 10 per entry instructions, 3 + 3 per entry memory.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.gx();
        entry(t, 2, 1);
        t.alu(1);
        let start: u32 = t.ld(self.row_offsets, tid);
        let end: u32 = t.ld(self.row_offsets, tid + 1);
        t.alu(1);
        t.branch(1);
        let mut acc = 0.0f32;
        for j in start as u64..end as u64 {
            t.alu(2);
            let c: u32 = t.ld(self.cols, j);
            let v: f32 = t.ld(self.vals, j);
            t.alu(1);
            let xv: f32 = t.ld(self.x, c as u64);
            t.fp(1);
            acc += v * xv;
            loop_step(t);
        }
        t.alu(1);
        t.st(self.y, tid, acc);
    }
}

/// A matrix in CSR form.
pub(crate) struct Csr {
    pub offsets: Vec<u32>,
    pub cols: Vec<u32>,
    pub vals: Vec<f32>,
}

/// MGPUSim's `csr.MatrixGenerator`: `nnz` distinct uniform random positions (row `y`,
/// column `x`), values uniform in [0, 1) normalised per column, columns sorted per row.
pub(crate) fn generate(n: u64, nnz: u64, seed: u64) -> Csr {
    let mut rng = Rng::new(seed);
    let mut keys: Vec<u64> = Vec::with_capacity(nnz as usize);
    // draw, sort, drop duplicates, draw the missing ones again
    while (keys.len() as u64) < nnz {
        let missing = nnz - keys.len() as u64;
        for _ in 0..missing {
            let (x, y) = (rng.below(n), rng.below(n));
            keys.push(y * n + x);
        }
        keys.sort_unstable();
        keys.dedup();
    }
    let mut vals: Vec<f32> = keys.iter().map(|_| rng.f32()).collect();
    let mut colsum = vec![0.0f32; n as usize];
    for (k, v) in keys.iter().zip(&vals) {
        colsum[(k % n) as usize] += v;
    }
    for (k, v) in keys.iter().zip(vals.iter_mut()) {
        let s = colsum[(k % n) as usize];
        if s != 0.0 {
            *v /= s;
        }
    }
    let mut offsets = vec![0u32; n as usize + 1];
    for k in &keys {
        offsets[(k / n) as usize + 1] += 1;
    }
    for i in 0..n as usize {
        offsets[i + 1] += offsets[i];
    }
    let cols = keys.iter().map(|k| (k % n) as u32).collect();
    Csr {
        offsets,
        cols,
        vals,
    }
}

/// The host reference (`PrBenchmark::CpuPageRankUpdate`, `iters` times).
#[cfg(test)]
pub(crate) fn reference(m: &Csr, iters: u64) -> Vec<f32> {
    let n = m.offsets.len() - 1;
    let mut x = vec![1.0f32 / n as f32; n];
    let mut y = vec![0.0f32; n];
    for _ in 0..iters {
        for (i, yi) in y.iter_mut().enumerate() {
            let mut acc = 0.0f32;
            for j in m.offsets[i] as usize..m.offsets[i + 1] as usize {
                acc += m.vals[j] * x[m.cols[j] as usize];
            }
            *yi = acc;
        }
        std::mem::swap(&mut x, &mut y);
    }
    x
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("nodes", default_nodes())?;
    let sparsity = p.f64("sparsity", SPARSITY)?;
    let iters = p.u64("iters", PAPER_ITERS >> ITER_HALVINGS)?;
    if n == 0 || n % BLOCK != 0 || !(sparsity > 0.0 && sparsity <= 1.0) || iters == 0 {
        return Err(bad(format!(
            "hm-pagerank: need nodes a positive multiple of {BLOCK}, 0 < sparsity <= 1 and \
             iters >= 1 (got nodes={n}, sparsity={sparsity}, iters={iters})"
        )));
    }
    let nnz = connections(n, sparsity);
    if nnz > crate::registry::MAX_PARAM {
        return Err(bad(format!(
            "hm-pagerank: {nnz} connections is too many (at most 2^28): lower nodes or sparsity"
        )));
    }
    let csr = generate(n, nnz, p.seed);
    let mut m = Memory::new();
    let row_offsets = m.alloc_from("device_row_offsets", &csr.offsets, true);
    let cols = m.alloc_from("device_column_numbers", &csr.cols, true);
    let vals = m.alloc_from("device_values", &csr.vals, true);
    let mtx1 = m.alloc_from("device_mtx_1", &vec![1.0f32 / n as f32; n as usize], false);
    let mtx2 = m.alloc::<f32>("device_mtx_2", n, false);
    let mut i = 0u64;
    let host = crate::bench::dense::common::host(move |_m| {
        if i == iters {
            return None;
        }
        // i even: mtx_1 -> mtx_2; odd: mtx_2 -> mtx_1
        let (x, y) = if i.is_multiple_of(2) {
            (mtx1, mtx2)
        } else {
            (mtx2, mtx1)
        };
        i += 1;
        Some(Box::new(PrKernel {
            row_offsets,
            cols,
            vals,
            x,
            y,
            n,
        }))
    });
    Ok(ModelWorkload::new("hm-pagerank", m, host))
}
