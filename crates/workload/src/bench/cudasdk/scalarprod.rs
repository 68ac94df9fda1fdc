//! scalarProd (CUDA samples `0_Introduction/scalarProd`, kernel `scalarProdGPU`): the dot
//! products of `vectorN` pairs of vectors of `elementN` floats,
//! `scalarProdGPU<<<128, 256>>>`.
//!
//! Each block takes vectors `blockIdx.x, blockIdx.x + 128, ...`; per vector its 256
//! threads fill `ACCUM_N` = 1024 partial sums in shared memory (`accumResult[iAccum] =
//! sum over pos = base + iAccum, += 1024 of A[pos] * B[pos]`, four accumulators per thread,
//! coalesced loads), then reduce them by halving strides 512 .. 1, a `__syncthreads()`
//! before each, and after a last `__syncthreads()` thread 0 writes `d_C[vec]`.
//!
//! Input. Paper: NDP Table 1 (ndp.md §5.4), SP with 512 vectors of 32 K elements (A and B:
//! 128 MiB). Rule 1 of `scale.rs` (both counts grow the footprint): factor just under 1/2
//! (`d_C` counts too), element count a multiple of 256: 255 vectors of 16,128 elements
//! (31.4 MiB).

use crate::bench::dense::common::{
    bad, entry, kinfo, loop_step, rolled_loops, seq, Unrolled, LOOPS_PARAM,
};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use crate::scale::{dim, linear_factor};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "scalarprod",
    suite: "CUDA samples",
    category: "-",
    about: "dot products of vector pairs, 1024 shared-memory partial sums per vector and a tree reduction (scalarProdGPU); 31.4 MiB",
    params: &[
        ParamSpec {
            name: "vectors",
            default: "255",
            help: "vector pairs (VECTOR_N)",
        },
        ParamSpec {
            name: "elements",
            default: "16128",
            help: "elements per vector (ELEMENT_N)",
        },
        LOOPS_PARAM,
    ],
    build,
};

const ACCUM_N: u64 = 1024;
const GRID: u64 = 128;
const BLOCK: u64 = 256;
/// Reduction stages (strides 512 .. 1).
const STAGES: u32 = 10;

/// Rule 1 on NDP's 512 x 32 K: (vectors, elements).
pub fn default_dims() -> (u64, u64) {
    let fp = 2 * 512 * 32768 * 4 + 512 * 4;
    let f = linear_factor(fp, 2);
    (dim(512, f, 1), dim(32768, f, BLOCK))
}

struct ScalarProd {
    c: ObjId,
    a: ObjId,
    b: ObjId,
    vectors: u64,
    elements: u64,
    /// `loops=rolled` ([`rolled_loops`]).
    rolled: bool,
}

impl ScalarProd {
    /// Vectors of the busiest block.
    fn rounds(&self) -> u32 {
        self.vectors.div_ceil(GRID) as u32
    }

    /// One accumulator's `sum over pos = first, += ACCUM_N, < end of A[pos] * B[pos]` as
    /// nvcc 13 compiles it for sm_90 (validation/gpu/h200/sass.txt): with `n` iterations,
    /// the `n % 4` first ones straight-line (the first pair of loads alone, the other one
    /// or two pairs together), then the rest in chunks of 16 while more than 12 remain,
    /// one chunk of 8 if more than 4 remain, and a last chunk of 4; each chunk issues all
    /// its loads before its `FFMA`s (the compiler hoists them: nothing is stored in the
    /// loop), so a warp has up to 32 loads in flight instead of 2. Instruction counts per
    /// the SASS: per accumulator 4 int and 2 control (`BSSY`, guard), the trip count 7 int
    /// and 2 control, the remainder's iterations 4 + 2 int (first, with its `LDC`s) or
    /// 2 int and a second `FFMA` (the predicated pair), the remainder's exit 2 control,
    /// the unrolled part's setup 9 int and 2 control, 2 int before the 16s, 8 int and
    /// the back edge per 16 or 8, 2 int and 3 control after the 16s, 1 int and 2 control
    /// after the 8, and the exit's control and 4 int.
    fn accumulate(&self, t: &mut Thread<'_>, first: u64, end: u64) -> f32 {
        let mut sum = 0.0f32;
        t.alu(4);
        t.branch(2);
        if first >= end {
            return sum;
        }
        let n = (end - first).div_ceil(ACCUM_N);
        let mut pos = first;
        let mut chunk = |t: &mut Thread<'_>, k: u64, sum: &mut f32| {
            let mut xy = [(0.0f32, 0.0f32); 16];
            for p in xy.iter_mut().take(k as usize) {
                *p = (t.ld(self.a, pos), t.ld(self.b, pos));
                pos += ACCUM_N;
            }
            t.fp(k as u32);
            for &(x, y) in xy.iter().take(k as usize) {
                *sum += x * y;
            }
        };
        t.alu(7);
        t.branch(2);
        let rem = n % 4;
        if rem >= 1 {
            t.alu(4);
            chunk(t, 1, &mut sum);
            t.alu(2);
            t.branch(1);
        }
        if rem >= 2 {
            t.alu(1);
            chunk(t, rem - 1, &mut sum);
            t.alu(2);
            if rem == 2 {
                t.fp(1); // the predicated-off `FFMA` of the third iteration
            }
        }
        t.branch(2);
        let left = n - rem;
        if left > 0 {
            let u = Unrolled::of(left);
            t.alu(9);
            t.branch(2);
            if u.sixteens > 0 {
                t.alu(2);
            }
            for _ in 0..u.sixteens {
                chunk(t, 16, &mut sum);
                t.alu(8);
                t.branch(1);
            }
            t.alu(2);
            t.branch(3);
            if u.eight {
                chunk(t, 8, &mut sum);
                t.alu(8);
            }
            t.alu(1);
            t.branch(2);
            for _ in 0..u.fours {
                chunk(t, 4, &mut sum);
            }
        }
        t.branch(1);
        t.alu(4);
        sum
    }

    /// The accumulator's loop one iteration at a time, each a marked NDP offload block
    /// (spec ndp.md Table 1: SP, 3 NSU instructions): used while offload markers are
    /// recorded ([`Thread::offload_markers`]) and under `loops=rolled`.
    fn accumulate_rolled(&self, t: &mut Thread<'_>, first: u64, end: u64) -> f32 {
        t.alu(1);
        t.branch(1);
        let mut sum = 0.0f32;
        let mut pos = first;
        while pos < end {
            t.alu(2);
            // NDP offload block 0 (spec ndp.md Table 1: SP, 3 NSU instructions):
            // `LD A; LD B; FMUL@NSU`, the product the one live-out; the running
            // sum stays on the GPU (as km's block: with the sum as live-in and
            // live-out Eq. 1 would score 0 and the block would not be extracted).
            t.ofld_begin(0, 0, 3);
            let x: f32 = t.ld(self.a, pos);
            let y: f32 = t.ld(self.b, pos);
            t.fp(1);
            t.ofld_end(1);
            sum += x * y;
            loop_step(t);
            pos += ACCUM_N;
        }
        sum
    }
}

impl Kernel for ScalarProd {
    fn info(&self) -> KernelInfo {
        kinfo(
            "scalarProdGPU",
            Dim3::x(GRID as u32),
            Dim3::x(BLOCK as u32),
            16,
            (ACCUM_N * 4) as u32,
        )
    }
    /// Per vector: accumulate, then ten reduction stages; thread 0's store of the vector's
    /// result ends the last stage. The kernel has a `__syncthreads()` before that store,
    /// but only thread 0 is active in the last stage (stride 1), so the barrier orders
    /// nothing the model does not already order. Keeping the store out of the next vector's
    /// accumulation phase matters: the warp model aligns lanes position by position, so
    /// three extra operations at the start of lane 0 would shift its whole accumulation
    /// against its 31 neighbours and split every one of warp 0's instructions in two. That
    /// split was found by `locus validate gpu` on an H100 (global loads 6 % over the
    /// measured count; docs/real-gpu.md), and is gone with this layout. A last, empty phase
    /// keeps the kernel's barrier count (11 per vector: 10 stages and the one before the
    /// store).
    fn phases(&self) -> u32 {
        self.rounds() * (STAGES + 1) + 1
    }
    /// Per thread: entry `MOV; S2R x2` (2 int). Per vector: `vectorBase`, `vectorEnd` (2
    /// int) and the accumulator loop (per accumulator: the unrolled element loop of
    /// [`ScalarProd::accumulate`], or one offload block per element while NDP markers
    /// are recorded; then the shared address and `STS`, the accumulator loop step). Per reduction stage: per slot the shared addresses (2
    /// int), `LDS` x2, `FADD`, `STS`, the loop step, then the stage loop step. Thread 0:
    /// `LDS`, `IMAD.WIDE`, `STG`.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let tid = t.tid.x as u64;
        let round = phase / (STAGES + 1);
        let r = phase % (STAGES + 1);
        let vec = t.block.x as u64 + round as u64 * GRID;
        if r == 0 {
            if round == 0 {
                entry(t, 2, 0);
            }
            if vec >= self.vectors {
                return;
            }
            let base = self.elements * vec;
            let end = base + self.elements;
            t.alu(2);
            let mut acc = tid;
            while acc < ACCUM_N {
                let sum = if self.rolled || t.offload_markers() {
                    self.accumulate_rolled(t, base + acc, end)
                } else {
                    self.accumulate(t, base + acc, end)
                };
                t.alu(1);
                t.sh_st_f32(acc as u32, sum);
                loop_step(t);
                acc += BLOCK;
            }
        } else {
            if vec >= self.vectors {
                return;
            }
            let stride = (ACCUM_N / 2) >> (r - 1);
            let mut i = tid;
            while i < stride {
                t.alu(2);
                let x = t.sh_ld_f32(i as u32);
                let y = t.sh_ld_f32((stride + i) as u32);
                t.fp(1);
                t.sh_st_f32(i as u32, x + y);
                loop_step(t);
                i += BLOCK;
            }
            t.alu(2);
            t.branch(1);
            if r == STAGES && tid == 0 {
                // after the last `__syncthreads()`, thread 0 stores the vector's result
                let v = t.sh_ld_f32(0);
                t.alu(1);
                t.st(self.c, vec, v);
            }
        }
    }
}

/// The sample's `scalarProdCPU` (double accumulation).
#[cfg(test)]
pub(crate) fn reference(a: &[f32], b: &[f32], vectors: usize, elements: usize) -> Vec<f64> {
    (0..vectors)
        .map(|v| {
            (v * elements..(v + 1) * elements)
                .map(|i| a[i] as f64 * b[i] as f64)
                .sum()
        })
        .collect()
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let (dv, de) = default_dims();
    let vectors = p.u64("vectors", dv)?;
    let elements = p.u64("elements", de)?;
    if vectors == 0 || elements == 0 {
        return Err(bad(
            "scalarprod: vectors and elements must be positive".into()
        ));
    }
    let n = vectors
        .checked_mul(elements)
        .filter(|&n| n <= crate::registry::MAX_PARAM)
        .ok_or_else(|| bad("scalarprod: vectors * elements is too large (at most 2^28)".into()))?;
    let mut rng = Rng::new(p.seed);
    let av: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
    let bv: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
    let mut m = Memory::new();
    let a = m.alloc_from("d_A", &av, true);
    let b = m.alloc_from("d_B", &bv, true);
    let c = m.alloc::<f32>("d_C", vectors, false);
    let k = ScalarProd {
        c,
        a,
        b,
        vectors,
        elements,
        rolled: rolled_loops(p, "scalarprod")?,
    };
    Ok(ModelWorkload::new("scalarprod", m, seq(vec![Box::new(k)])))
}
