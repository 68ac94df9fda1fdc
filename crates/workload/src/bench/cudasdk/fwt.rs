//! fastWalshTransform (CUDA samples `5_Domain_Specific/fastWalshTransform`): dyadic
//! convolution of a data vector with a kernel through the Walsh-Hadamard transform.
//!
//! Host (`main`): `fwtBatchGPU(d_Data)`, `fwtBatchGPU(d_Kernel)` (the kernel zero-padded to
//! the data length), `modulateGPU(d_Data, d_Kernel)`, `fwtBatchGPU(d_Data)`. `fwtBatchGPU`
//! runs `fwtBatch2Kernel<<<(N / 1024, 1), 256>>>` (one in-global-memory radix-4 pass, four
//! loads and four stores per thread at stride `N / 4`) while `log2N > 11`, two bits at a
//! time, then `fwtBatch1Kernel<<<M, N / 4, N * 4>>>` over the `M` remaining sub-vectors of
//! `2^log2N <= 2^11` elements: each block stages its sub-vector in shared memory, runs the
//! radix-4 stages (a `__syncthreads()` before each), a radix-2 stage for odd `log2N`, and
//! writes back. `modulateKernel<<<128, 256>>>` is a grid-stride loop `A[i] *= B[i] / N`.
//!
//! Input. Paper: NDP Table 1 (ndp.md §5.4), data 2^22 and kernel 2^17 (two device vectors
//! of 2^22 floats: 32 MiB; NUBA Table 2 gives 269 MB, which rule 1 brings to the same
//! 2^22). Rule 1 of `scale.rs`: the footprint equals the cap, kept as is.

use crate::bench::dense::common::{bad, entry, kinfo, loop_step, seq};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "fwt",
    suite: "CUDA samples",
    category: "-",
    about: "dyadic convolution by fast Walsh transforms: radix-4 global passes, shared-memory radix-4 stages, modulate (fwtBatch2Kernel, fwtBatch1Kernel, modulateKernel); 32 MiB",
    params: &[
        ParamSpec {
            name: "log2data",
            default: "22",
            help: "log2 of the data length (12..=26)",
        },
        ParamSpec {
            name: "log2kernel",
            default: "17",
            help: "log2 of the kernel length (<= log2data)",
        },
    ],
    build,
};

const ELEMENTARY_LOG2SIZE: u32 = 11;
const THREAD_N: u64 = 256;

/// `fwtBatch2Kernel`: one radix-4 pass at `stride` over the whole vector.
struct Batch2 {
    d: ObjId,
    n: u64,
    stride: u64,
}

impl Kernel for Batch2 {
    fn info(&self) -> KernelInfo {
        kinfo(
            "fwtBatch2Kernel",
            Dim3::x((self.n / (4 * THREAD_N)) as u32),
            Dim3::x(THREAD_N as u32),
            16,
            0,
        )
    }
    /// Per thread: entry `MOV; S2R x3`, `pos`, `N`, the `blockIdx.y` offset, `lo`, `i0..i3`
    /// (15 int); four `IMAD.WIDE` + `LDG`, eight `FADD`, four `IMAD.WIDE` + `STG`: 35
    /// instructions, 8 of them memory.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let pos = t.gx();
        entry(t, 3, 11);
        let lo = pos & (self.stride - 1);
        let i0 = ((pos - lo) << 2) + lo;
        let idx = [
            i0,
            i0 + self.stride,
            i0 + 2 * self.stride,
            i0 + 3 * self.stride,
        ];
        t.alu(4);
        // NDP offload block 0 (spec ndp.md Table 1: FWT, 16 NSU instructions): the four
        // loads, the radix-4 butterfly's 8 FADD/FSUB@NSU and the four stores; the store
        // addresses (`IMAD`s) stay on the GPU; no live-in, no live-out
        t.ofld_begin(0, 0, 16);
        let mut d = [0.0f32; 4];
        for (k, &i) in idx.iter().enumerate() {
            d[k] = t.ld(self.d, i);
        }
        t.fp(8);
        let out = radix4(d);
        t.alu(4);
        for (k, &i) in idx.iter().enumerate() {
            t.st(self.d, i, out[k]);
        }
        t.ofld_end(0);
    }
}

/// The radix-4 butterfly of both kernels.
fn radix4(d: [f32; 4]) -> [f32; 4] {
    let (d0, d2) = (d[0] + d[2], d[0] - d[2]);
    let (d1, d3) = (d[1] + d[3], d[1] - d[3]);
    [d0 + d1, d0 - d1, d2 + d3, d2 - d3]
}

/// `fwtBatch1Kernel`: one block per sub-vector of `2^log2n` elements in shared memory.
struct Batch1 {
    d: ObjId,
    log2n: u32,
    blocks: u64,
}

impl Batch1 {
    fn stages(&self) -> u32 {
        self.log2n / 2
    }
}

impl Kernel for Batch1 {
    fn info(&self) -> KernelInfo {
        let n = 1u64 << self.log2n;
        kinfo(
            "fwtBatch1Kernel",
            Dim3::x(self.blocks as u32),
            Dim3::x((n / 4) as u32),
            16,
            (n * 4) as u32,
        )
    }
    /// Load, the radix-4 stages, the radix-2 stage for odd `log2N`, the store: each after a
    /// `__syncthreads()`.
    fn phases(&self) -> u32 {
        self.stages() + (self.log2n & 1) + 2
    }
    /// Per thread: entry `MOV; S2R x2` and `N`, `base`, the two pointers (7 int). The load
    /// loop (4 iterations at 256 threads): entry test `ISETP; BRA`, per element `IMAD.WIDE;
    /// LDG`, the shared address and `STS`, the loop step. Per radix-4 stage: `lo`, `i0..i3`
    /// and four shared addresses (11 int), `LDS` x4, `FADD` x8, `STS` x4, the stage loop
    /// step (`SHF; ISETP; BRA`). Radix-2 stage (odd `log2N`): per pair 2 int, `LDS` x2,
    /// `FADD` x2, `STS` x2 and the loop step. The store loop: per element the shared
    /// address and `LDS`, `IMAD.WIDE; STG`, the loop step.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let n = 1u64 << self.log2n;
        let bd = n / 4;
        let pos = t.tid.x as u64;
        let base = t.block.x as u64 * n;
        let stages = self.stages();
        let last = self.phases() - 1;
        if phase == 0 {
            entry(t, 2, 4);
            t.alu(1);
            t.branch(1);
            let mut p = pos;
            while p < n {
                t.alu(1);
                let v: f32 = t.ld(self.d, base + p);
                t.alu(1);
                t.sh_st_f32(p as u32, v);
                loop_step(t);
                p += bd;
            }
        } else if phase <= stages {
            let stride = n >> (2 * phase);
            let lo = pos & (stride - 1);
            let i0 = ((pos - lo) << 2) + lo;
            let idx = [i0, i0 + stride, i0 + 2 * stride, i0 + 3 * stride];
            t.alu(11);
            let mut d = [0.0f32; 4];
            for (k, &i) in idx.iter().enumerate() {
                d[k] = t.sh_ld_f32(i as u32);
            }
            t.fp(8);
            let out = radix4(d);
            for (k, &i) in idx.iter().enumerate() {
                t.sh_st_f32(i as u32, out[k]);
            }
            t.alu(2);
            t.branch(1);
        } else if phase < last {
            // radix-2 stage of an odd log2N
            let mut p = pos;
            while p < n / 2 {
                let i0 = (p << 1) as u32;
                t.alu(2);
                let d0 = t.sh_ld_f32(i0);
                let d1 = t.sh_ld_f32(i0 + 1);
                t.fp(2);
                t.sh_st_f32(i0, d0 + d1);
                t.sh_st_f32(i0 + 1, d0 - d1);
                loop_step(t);
                p += bd;
            }
        } else {
            t.alu(1);
            t.branch(1);
            let mut p = pos;
            while p < n {
                t.alu(1);
                let v = t.sh_ld_f32(p as u32);
                t.alu(1);
                t.st(self.d, base + p, v);
                loop_step(t);
                p += bd;
            }
        }
    }
}

/// `modulateKernel<<<128, 256>>>`: `a[i] *= b[i] * (1 / N)`, grid-stride.
struct Modulate {
    a: ObjId,
    b: ObjId,
    n: u64,
}

impl Kernel for Modulate {
    fn info(&self) -> KernelInfo {
        kinfo("modulateKernel", Dim3::x(128), Dim3::x(256), 16, 0)
    }
    /// Per thread: entry `MOV; S2R x4; IMAD x2`, `I2F` and the reciprocal (`MUFU.RCP` + 4
    /// FP), the loop entry test; per element `IMAD.WIDE` x2, `LDG` x2, `FMUL` x2, `STG`,
    /// the loop step.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.gx();
        let threads = t.total_threads();
        entry(t, 4, 2);
        t.sfu(2);
        t.fp(4);
        t.alu(1);
        t.branch(1);
        let rcp = 1.0f32 / self.n as f32;
        let mut pos = tid;
        while pos < self.n {
            t.alu(2);
            // NDP offload block 1 (Table 1's FWT "4"; 5 here: `LD; LD; FMUL@NSU x2; ST`),
            // `rcpN` the one live-in, no live-out
            t.ofld_begin(1, 1, 5);
            let x: f32 = t.ld(self.a, pos);
            let y: f32 = t.ld(self.b, pos);
            t.fp(2);
            t.st(self.a, pos, x * (y * rcp));
            t.ofld_end(0);
            loop_step(t);
            pos += threads;
        }
    }
}

/// The launches of `fwtBatchGPU(d, 1, log2n)`.
fn fwt_launches(d: ObjId, log2n: u32, out: &mut Vec<Box<dyn Kernel>>) {
    let n = 1u64 << log2n;
    let (mut l, mut m) = (log2n, 1u64);
    while l > ELEMENTARY_LOG2SIZE {
        out.push(Box::new(Batch2 {
            d,
            n,
            stride: (1u64 << l) / 4,
        }));
        l -= 2;
        m <<= 2;
    }
    out.push(Box::new(Batch1 {
        d,
        log2n: l,
        blocks: m,
    }));
}

/// The sample's `dyadicConvolutionCPU`: `r[i] = sum_j data[i ^ j] * kernel[j]`.
#[cfg(test)]
pub(crate) fn dyadic_convolution(data: &[f32], kernel: &[f32]) -> Vec<f64> {
    (0..data.len())
        .map(|i| {
            kernel
                .iter()
                .enumerate()
                .map(|(j, &k)| data[i ^ j] as f64 * k as f64)
                .sum()
        })
        .collect()
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let ld = p.u64("log2data", 22)?;
    let lk = p.u64("log2kernel", 17)?;
    if !(12..=26).contains(&ld) || lk > ld {
        return Err(bad(format!(
            "fwt: need 12 <= log2data <= 26 and log2kernel <= log2data (got log2data={ld}, \
             log2kernel={lk})"
        )));
    }
    let (n, kn) = (1u64 << ld, 1u64 << lk);
    let mut rng = Rng::new(p.seed);
    let kernel: Vec<f32> = (0..kn).map(|_| rng.f32()).collect();
    let data: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
    let mut m = Memory::new();
    let dk = m.alloc::<f32>("d_Kernel", n, false);
    let dd = m.alloc_from("d_Data", &data, false);
    for (i, &k) in kernel.iter().enumerate() {
        m.set(dk, i as u64, k);
    }
    let mut ks: Vec<Box<dyn Kernel>> = Vec::new();
    fwt_launches(dd, ld as u32, &mut ks);
    fwt_launches(dk, ld as u32, &mut ks);
    ks.push(Box::new(Modulate { a: dd, b: dk, n }));
    fwt_launches(dd, ld as u32, &mut ks);
    Ok(ModelWorkload::new("fwt", m, seq(ks)))
}
