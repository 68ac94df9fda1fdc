//! Hybrid sort (Rodinia `hybridsort`): a bucket sort into 1024 float4-aligned divisions
//! followed by a float4 merge sort inside each division. Launch sequence of the public CUDA
//! code (`bucketsort.cu`, `mergesort.cu`):
//!
//! 1. `histogram1024Kernel` (64 x 96 threads): grid-stride loop over the input, per-warp
//!    shared sub-histograms, then `atomicAdd` of the block histogram into `d_Result1024`.
//!    The host turns the histogram into 1024 pivots (`calcPivotPoints`).
//! 2. `bucketcount` (32-thread blocks, `BUCKET_BAND` = 128 elements per thread): grid-stride
//!    loop, binary search of the pivots through texture, shared-memory bucket counters, writes
//!    `d_indice[tid]` and the block's 1024 counters to `d_prefixoffsets`.
//! 3. `bucketprefixoffset` (8 x 128): column prefix sums over the per-block counters.
//! 4. `bucketsort`: grid-stride again, scatter writes of every element to its bucket slot in
//!    `d_output` (every block writes into every bucket).
//! 5. `mergeSortFirst` (256 threads): sort each float4 (texture read, store).
//! 6. `mergeSortPass` (208 threads, `nrElems` doubling until one thread per division): each
//!    thread merges two sorted float4 runs read through texture, with the division bounds in
//!    constant memory; the host swaps the two buffers between passes.
//! 7. `mergepack`: remove the float4 padding, one 2D grid row per division.
//!
//! Page sharing (CODA Table 2 lists HS as "sharing", spec §7 row HS): the grid-stride loops
//! do not spread a page over GPUs under Eq. 1. A 4 KB page of the input holds one grid-stride
//! step of exactly 32 consecutive 32-thread blocks (32 x 32 x 4 B), and 32 is also N_bpg of
//! these blocks (8 per SM x 4 SMs), so the blocks of a page are one aligned Eq. 1 window. The
//! histogram's 64 x 96 grid covers a page with ~11 consecutive blocks, again one window. What
//! is shared across GPUs is the scatter target of `bucketsort` (each output page is written
//! by ~all blocks) and the histogram/offset tables; the merge passes are block-exclusive. The
//! faithful kernels therefore measure core-exclusive, not "sharing" (n = 256k: 91.4% of
//! pages on one GPU, 54.9% on one block; tests `categories_3`). The default size is bounded
//! by the merge passes, whose per-thread sequential float4 walks are uncoalesced: n = 256k
//! (3.5 MB) already gives ~2.6 M line requests.

use super::common::{bad, entry, host, kinfo, loop_step, prologue};
use crate::gen::rng::Rng;
use crate::memory::{Elem, Memory};
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "hs",
    suite: "Rodinia",
    category: "sharing",
    about:
        "hybridsort: histogram, bucketcount/prefix/sort (grid-stride, scatter), float4 merge sort",
    params: &[
        ParamSpec {
            name: "n",
            default: "256k",
            help: "number of floats to sort (Rodinia default 4M; >= 4096)",
        },
        ParamSpec {
            name: "band",
            default: "128",
            help: "BUCKET_BAND: elements per bucketcount/bucketsort thread (sets the grid)",
        },
    ],
    build,
};

/// `DIVISIONS` of `bucketsort.cuh`.
pub const DIVISIONS: u64 = 1024;
const LOG_DIVISIONS: u32 = 10;
/// `BUCKET_THREAD_N` (one warp).
const BUCKET_THREADS: u64 = 32;
/// `histogram1024Kernel`: `BLOCK_N` blocks of `THREAD_N` = 3 warps.
const HIST_BLOCKS: u64 = 64;
const HIST_THREADS: u64 = 96;
const HIST_WARPS: u64 = 3;

/// A `float4`, read and written as one 16-byte access.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct F4(pub [f32; 4]);

impl Elem for F4 {
    const SIZE: usize = 16;
    fn read(b: &[u8]) -> Self {
        let mut v = [0f32; 4];
        for (i, x) in v.iter_mut().enumerate() {
            *x = f32::read(&b[4 * i..]);
        }
        F4(v)
    }
    fn write(self, b: &mut [u8]) {
        for (i, x) in self.0.iter().enumerate() {
            x.write(&mut b[4 * i..]);
        }
    }
}

fn pick(a: f32, b: f32, lt: bool) -> f32 {
    if lt {
        a
    } else {
        b
    }
}

/// `sortElem`: the 4-input sorting network of `mergesort_kernel.cu`.
fn sort_elem(r: F4) -> F4 {
    let [x, y, z, w] = r.0;
    let n = [x.min(y), pick(y, x, y > x), z.min(w), pick(w, z, w > z)];
    let r = [
        pick(n[2], n[0], n[0] > n[2]),
        pick(n[3], n[1], n[1] > n[3]),
        pick(n[2], n[0], n[2] > n[0]),
        pick(n[3], n[1], n[3] > n[1]),
    ];
    F4([
        r[0],
        pick(r[2], r[1], r[1] > r[2]),
        pick(r[2], r[1], r[2] > r[1]),
        r[3],
    ])
}

/// `getLowest(a, b)`.
fn lowest(a: F4, b: F4) -> F4 {
    let (a, b) = (a.0, b.0);
    F4([
        pick(a[0], b[3], a[0] < b[3]),
        pick(a[1], b[2], a[1] < b[2]),
        pick(a[2], b[1], a[2] < b[1]),
        pick(a[3], b[0], a[3] < b[0]),
    ])
}

/// `getHighest(a, b)`.
fn highest(a: F4, b: F4) -> F4 {
    let (a, b) = (a.0, b.0);
    F4([
        pick(a[3], b[0], a[3] >= b[0]),
        pick(a[2], b[1], a[2] >= b[1]),
        pick(a[1], b[2], a[1] >= b[2]),
        pick(a[0], b[3], a[0] >= b[3]),
    ])
}

/// The shared-memory increment of `addData1024` / `addOffset` (tagged retry loop; one
/// round in the model): returns the old count. SASS per round (issue 7 §1 counting): the
/// shared address (1), `LDS`, `LOP3; IADD3; LOP3` (mask, increment, tag), `STS`, `LDS`,
/// the retry test `ISETP; BRA`.
fn shared_inc(t: &mut Thread<'_>, idx: u32) -> u32 {
    t.alu(1);
    let old = t.sh_ld(idx) & 0x07FF_FFFF;
    t.alu(3);
    t.sh_st(idx, old + 1);
    let _check = t.sh_ld(idx);
    t.alu(1);
    t.branch(1);
    old
}

/// `histogram1024Kernel(d_Result, d_Data, minimum, maximum, dataN)`.
struct Histogram {
    input: ObjId,
    result: ObjId,
    n: u64,
    min: f32,
    max: f32,
}

impl Kernel for Histogram {
    fn info(&self) -> KernelInfo {
        let smem = (HIST_WARPS * 1024 * 4) as u32;
        kinfo(
            "histogram1024Kernel",
            Dim3::x(HIST_BLOCKS as u32),
            Dim3::x(HIST_THREADS as u32),
            12,
            smem,
        )
    }
    fn phases(&self) -> u32 {
        3
    }
    /// Per thread, the instructions of Rodinia hybridsort `histogram1024Kernel` (sm_70+
    /// SASS, issue 7 §1 counting): entry `MOV; S2R x2`, `warpBase`, `threadTag`, the
    /// shared base and `ULDC` (7); clearing: per word `STS` and the loop control (3).
    /// After the barrier: the start and the grid stride (`IMAD` x2), then per element the
    /// address (1), `LDG`, `FADD`, the division by `maximum - minimum` (`MUFU.RCP` + 4),
    /// `FMUL`, `F2I` (sfu), the bin mask (1), [`shared_inc`] and the loop control (3).
    /// After the second barrier, per bin: per warp sub-histogram (3, unrolled) `LDS` and
    /// `LOP3; IADD3`, the address (1), `RED`, the loop control (3); `EXIT`.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let lid = t.local_id();
        let mem = (HIST_WARPS * 1024) as u32;
        match phase {
            0 => {
                entry(t, 2, 4);
                for pos in (lid as u32..mem).step_by(HIST_THREADS as usize) {
                    t.sh_st(pos, 0);
                    loop_step(t);
                }
            }
            1 => {
                let warp_base = (lid / 32) as u32 * 1024;
                let step = t.total_threads();
                let mut pos = t.gid();
                t.alu(2);
                while pos < self.n {
                    t.alu(1);
                    let v: f32 = t.ld(self.input, pos);
                    t.fp(1);
                    t.sfu(1);
                    t.fp(5);
                    t.sfu(1);
                    t.alu(1);
                    let d = (((v - self.min) / (self.max - self.min)) * 1024.0) as u32;
                    shared_inc(t, warp_base + (d & 0x3FF));
                    loop_step(t);
                    pos += step;
                }
            }
            _ => {
                for pos in (lid..1024).step_by(HIST_THREADS as usize) {
                    let mut sum = 0u32;
                    for w in 0..HIST_WARPS {
                        sum += t.sh_ld((w * 1024 + pos) as u32) & 0x07FF_FFFF;
                        t.alu(2);
                    }
                    t.alu(1);
                    t.atomic_add_u32(self.result, pos, sum);
                    loop_step(t);
                }
            }
        }
    }
}

/// `bucketcount(input, indice, d_prefixoffsets, size)`; pivots through `texPivot`.
struct BucketCount {
    input: ObjId,
    indice: ObjId,
    prefix: ObjId,
    pivots: ObjId,
    n: u64,
    blocks: u64,
}

impl Kernel for BucketCount {
    fn info(&self) -> KernelInfo {
        kinfo(
            "bucketcount",
            Dim3::x(self.blocks as u32),
            Dim3::x(BUCKET_THREADS as u32),
            14,
            (DIVISIONS * 4) as u32,
        )
    }
    fn phases(&self) -> u32 {
        3
    }
    /// Per thread, the instructions of Rodinia hybridsort `bucketcount` (sm_70+ SASS, issue
    /// 7 §1 counting): entry `MOV; S2R x2`, `threadTag`, `warpBase`, the shared base and
    /// the grid stride (7); clearing: per word `STS` and the loop control (3). After the
    /// barrier: the start (1) and per element the address (1), `LDG`, `TEX` of the middle
    /// pivot, the binary search (`jump` halves from a constant: fully unrolled, 9 steps of
    /// `FSETP; IADD3/SEL; TEX`), the final side (`FSETP; SEL`), [`shared_inc`] and the
    /// `addOffset` result (2), the packed index (`SHF; IADD3`), the address (1), `STG`, the
    /// loop control (3). After the second barrier: `prefixBase` (1), per counter `LDS`,
    /// `LOP3`, the address (1), `STG`, the loop control (3); `EXIT`.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let lid = t.local_id();
        match phase {
            0 => {
                entry(t, 2, 4);
                for i in (lid..DIVISIONS).step_by(BUCKET_THREADS as usize) {
                    t.sh_st(i as u32, 0);
                    loop_step(t);
                }
            }
            1 => {
                let step = t.total_threads();
                let mut tid = t.gid();
                t.alu(1);
                while tid < self.n {
                    t.alu(1);
                    let elem: f32 = t.ld(self.input, tid);
                    let mut idx = DIVISIONS as i64 / 2 - 1;
                    let mut jump = DIVISIONS as i64 / 4;
                    let mut piv: f32 = t.ld_tex(self.pivots, idx as u64);
                    while jump >= 1 {
                        t.fp(1);
                        t.alu(1);
                        idx = if elem < piv { idx - jump } else { idx + jump };
                        piv = t.ld_tex(self.pivots, idx as u64);
                        jump /= 2;
                    }
                    t.fp(1);
                    t.alu(1);
                    let idx = if elem < piv { idx } else { idx + 1 } as u32;
                    let off = shared_inc(t, idx);
                    t.alu(5);
                    t.st(self.indice, tid, ((off << LOG_DIVISIONS) + idx) as i32);
                    loop_step(t);
                    tid += step;
                }
            }
            _ => {
                let base = t.block_id() * DIVISIONS;
                t.alu(1);
                for i in (lid..DIVISIONS).step_by(BUCKET_THREADS as usize) {
                    let v = t.sh_ld(i as u32) & 0x07FF_FFFF;
                    t.alu(2);
                    t.st(self.prefix, base + i, v);
                    loop_step(t);
                }
            }
        }
    }
}

/// `bucketprefixoffset(d_prefixoffsets, d_offsets, blocks)`.
struct BucketPrefix {
    prefix: ObjId,
    offsets: ObjId,
    blocks: u64,
}

impl Kernel for BucketPrefix {
    fn info(&self) -> KernelInfo {
        kinfo(
            "bucketprefixoffset",
            Dim3::x((DIVISIONS / 128) as u32),
            Dim3::x(128),
            10,
            0,
        )
    }
    /// Per thread, the instructions of Rodinia hybridsort `bucketprefixoffset` (sm_70+
    /// SASS, issue 7 §1 counting): entry `MOV; S2R x2; IMAD` and `size` (`IMAD`) (5), the
    /// loop guard (`ISETP; BRA`); per block row the address (1), `LDG`, `STG`, `IADD3`
    /// (the running sum) and the loop control (3); the `d_offsets` address, `STG`, `EXIT`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.gid();
        let size = self.blocks * DIVISIONS;
        entry(t, 2, 2);
        t.alu(1);
        t.branch(1);
        let mut sum = 0u32;
        let mut i = tid;
        while i < size {
            t.alu(1);
            let x: u32 = t.ld(self.prefix, i);
            t.st(self.prefix, i, sum);
            t.alu(1);
            sum = sum.wrapping_add(x);
            i += DIVISIONS;
            loop_step(t);
        }
        t.alu(1);
        t.st(self.offsets, tid, sum);
    }
}

/// `bucketsort(input, indice, output, size, d_prefixoffsets, l_offsets)`.
struct BucketSort {
    input: ObjId,
    indice: ObjId,
    output: ObjId,
    prefix: ObjId,
    l_offsets: ObjId,
    n: u64,
    blocks: u64,
}

impl Kernel for BucketSort {
    fn info(&self) -> KernelInfo {
        kinfo(
            "bucketsort",
            Dim3::x(self.blocks as u32),
            Dim3::x(BUCKET_THREADS as u32),
            12,
            (DIVISIONS * 4) as u32,
        )
    }
    fn phases(&self) -> u32 {
        2
    }
    /// Per thread, the instructions of Rodinia hybridsort `bucketsort` (sm_70+ SASS, issue
    /// 7 §1 counting): entry `MOV; S2R x2`, `prefixBase`, `warpBase`, the shared base and
    /// the grid stride (7); per counter the two addresses (`LOP3; IMAD.WIDE` x2), `LDG` x2,
    /// `IADD3`, `STS`, the loop control (3). After the barrier: the start (1) and per
    /// element the two addresses (2), `LDG` x2, the shared address (`LOP3; LEA`), `LDS`,
    /// the slot (`SHF; IADD3`) and its address (1), `STG`, the loop control (3); `EXIT`.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let lid = t.local_id();
        if phase == 0 {
            entry(t, 2, 4);
            let base = t.block_id() * DIVISIONS;
            for i in (lid..DIVISIONS).step_by(BUCKET_THREADS as usize) {
                t.alu(3);
                let a: u32 = t.ld(self.l_offsets, i);
                let b: u32 = t.ld(self.prefix, base + i);
                t.alu(1);
                t.sh_st(i as u32, a.wrapping_add(b));
                loop_step(t);
            }
            return;
        }
        let step = t.total_threads();
        let mut tid = t.gid();
        t.alu(1);
        while tid < self.n {
            t.alu(2);
            let elem: f32 = t.ld(self.input, tid);
            let id: i32 = t.ld(self.indice, tid);
            t.alu(2);
            let s = t.sh_ld((id as u32) & (DIVISIONS as u32 - 1));
            t.alu(3);
            t.st(
                self.output,
                (s + ((id as u32) >> LOG_DIVISIONS)) as u64,
                elem,
            );
            tid += step;
            loop_step(t);
        }
    }
}

/// `mergeSortFirst(result, listsize)`; input through texture `tex`.
struct MergeFirst {
    src: ObjId,
    dst: ObjId,
    listsize: u64,
}

impl Kernel for MergeFirst {
    fn info(&self) -> KernelInfo {
        kinfo(
            "mergeSortFirst",
            Dim3::x((self.listsize / 4).div_ceil(256).max(1) as u32),
            Dim3::x(256),
            12,
            0,
        )
    }
    /// Per thread, the instructions of Rodinia hybridsort `mergeSortFirst` (sm_70+ SASS,
    /// issue 7 §1 counting): `MOV; S2R x2`, the index (`LEA`), `ULDC` and `listsize/4`
    /// (a shift), `ISETP; EXIT` (8); `TEX` (float4), `sortElem` (10 `FMNMX`), the address
    /// (1), `STG.128`, `EXIT`: 22 instructions, 2 of them memory.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let i = t.gid();
        prologue(t, 2, 3);
        if i < self.listsize / 4 {
            let r: F4 = t.ld_tex(self.src, i);
            t.fp(10);
            t.alu(1);
            t.st(self.dst, i, sort_elem(r));
        }
    }
}

/// `mergeSortPass(result, nrElems, threadsPerDiv)`; input through `tex`, division bounds in
/// `__constant__ constStartAddr`.
struct MergePass {
    src: ObjId,
    dst: ObjId,
    start: ObjId,
    nr: i64,
    per_div: i64,
    grid: u32,
    threads: u32,
}

impl Kernel for MergePass {
    fn info(&self) -> KernelInfo {
        kinfo(
            "mergeSortPass",
            Dim3::x(self.grid),
            Dim3::x(self.threads),
            30,
            0,
        )
    }
    /// Per thread, the instructions of Rodinia hybridsort `mergeSortPass` (sm_70+ SASS,
    /// issue 7 §1 counting): entry `MOV; S2R x2; IMAD`, the division `gid / threadsPerDiv`
    /// by a kernel argument (20 int), `ISETP; EXIT` (25); `int_gid` and the constant-bank
    /// index (2), `LDC` x2, `Astart`, `nrElems/2`, `Bstart`, `resStart` (4); the two range
    /// tests (`ISETP; EXIT`, `ISETP; BRA`). Copy tail: the guard (2) and per float4 the
    /// coordinate and address (2), `TEX`, `STG`, the loop control (3). Merge: `TEX` x2, then
    /// per output float4 the two coordinates (2), `TEX` x2, `getLowest`/`getHighest` (8
    /// `FMNMX`) and two `sortElem` (20), the address (1), `STG`, the `elemsLeftIn*` tests
    /// (`IADD3; ISETP` x3, `PLOP3`) and `outidx++` (7), their branches (2), `FSETP; BRA`
    /// where both runs have elements, the chosen index and the float4 copy (5) and the
    /// back edge; the last `STG` and `EXIT`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.gid() as i64;
        let division = tid / self.per_div;
        prologue(t, 2, 21);
        if division >= DIVISIONS as i64 {
            return;
        }
        let int_tid = tid - division * self.per_div;
        t.alu(2);
        let s0: i32 = t.ld_const(self.start, division as u64);
        let s1: i32 = t.ld_const(self.start, division as u64 + 1);
        t.alu(4);
        let (s0, s1) = (s0 as i64, s1 as i64);
        let a_start = s0 + int_tid * self.nr;
        let b_start = a_start + self.nr / 2;
        t.alu(1);
        t.branch(1);
        if a_start >= s1 {
            return;
        }
        t.alu(1);
        t.branch(1);
        if b_start >= s1 {
            t.alu(1);
            t.branch(1);
            for i in 0..(s1 - a_start) {
                t.alu(2);
                let v: F4 = t.ld_tex(self.src, (a_start + i) as u64);
                t.st(self.dst, (a_start + i) as u64, v);
                loop_step(t);
            }
            return;
        }
        let (mut aidx, mut bidx, mut out) = (0i64, 0i64, 0i64);
        let mut a: F4 = t.ld_tex(self.src, a_start as u64);
        let mut b: F4 = t.ld_tex(self.src, b_start as u64);
        loop {
            t.alu(2);
            let next_a: F4 = t.ld_tex(self.src, (a_start + aidx + 1) as u64);
            let next_b: F4 = t.ld_tex(self.src, (b_start + bidx + 1) as u64);
            t.fp(8 + 2 * 10);
            let na = lowest(a, b);
            let nb = highest(a, b);
            a = sort_elem(na);
            b = sort_elem(nb);
            t.alu(1);
            t.st(self.dst, (a_start + out) as u64, a);
            out += 1;
            t.alu(7);
            t.branch(2);
            let left_a = aidx + 1 < self.nr / 2;
            let left_b = bidx + 1 < self.nr / 2 && b_start + bidx + 1 < s1;
            // recorded in the compiled code's layout, so that the reconverging merge (min-PC,
            // source order) follows its program order: the comparison of the two runs
            // (inside `if (elemsLeftInA) { if (elemsLeftInB)`), then the loop's tail (the
            // chosen index, the float4 copy, the back edge) where every lane still merging
            // reconverges
            if left_a && left_b {
                t.fp(1);
                t.branch(1);
            }
            if !(left_a || left_b) {
                break;
            }
            t.alu(5);
            t.branch(1);
            if left_a && left_b {
                if next_a.0[0] < next_b.0[0] {
                    aidx += 1;
                    a = next_a;
                } else {
                    bidx += 1;
                    a = next_b;
                }
            } else if left_a {
                aidx += 1;
                a = next_a;
            } else {
                bidx += 1;
                a = next_b;
            }
        }
        t.alu(1);
        t.st(self.dst, (a_start + out) as u64, b);
    }
}

/// `mergepack(orig, result)`: 2D grid, `blockIdx.y` = division.
struct MergePack {
    src: ObjId,
    dst: ObjId,
    start: ObjId,
    fin: ObjId,
    nulls: ObjId,
    gx: u32,
}

impl Kernel for MergePack {
    fn info(&self) -> KernelInfo {
        kinfo(
            "mergepack",
            Dim3::new(self.gx, DIVISIONS as u32, 1),
            Dim3::x(256),
            8,
            0,
        )
    }
    /// Per thread, the instructions of Rodinia hybridsort `mergepack` (sm_70+ SASS, issue 7
    /// §1 counting): `MOV; S2R x3; IMAD` and the constant-bank index (6), `LDC` x2, `IADD3;
    /// ISETP; EXIT`, `LDC` x2 (same index), the source index (`LEA; IADD3`) and the two
    /// addresses (`IMAD.WIDE` x2), `LDG`, `STG`, `EXIT`: 20 instructions, 6 of them memory.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let idx = t.gx();
        let d = t.block.y as u64;
        entry(t, 3, 2);
        let f0: i32 = t.ld_const(self.fin, d);
        let f1: i32 = t.ld_const(self.fin, d + 1);
        t.alu(2);
        t.branch(1);
        if f0 as u64 + idx >= f1 as u64 {
            return;
        }
        let s: i32 = t.ld_const(self.start, d);
        let nl: i32 = t.ld_const(self.nulls, d);
        t.alu(4);
        let v: f32 = t.ld(self.src, s as u64 * 4 + nl as u64 + idx);
        t.st(self.dst, f0 as u64 + idx, v);
    }
}

/// `calcPivotPoints` of `bucketsort.cu`: pivots splitting the histogram into `DIVISIONS`
/// slices of about `listsize / DIVISIONS` elements.
fn calc_pivots(hist: &mut [f32], listsize: u64, min: f32, width: f32) -> Vec<f32> {
    let per_slice = listsize as f32 / DIVISIONS as f32;
    let mut piv = Vec::with_capacity(DIVISIONS as usize);
    let (mut starts, mut ends) = (min, min + width);
    let mut need = per_slice;
    // the last bin is never split (`if (i == histosize - 1) break` in Rodinia)
    let bins = hist.len().saturating_sub(1);
    for hv in hist.iter_mut().take(bins) {
        while *hv > need && piv.len() < DIVISIONS as usize {
            let p = starts + (need / *hv) * width;
            piv.push(p);
            starts = p;
            *hv -= need;
            need = per_slice;
        }
        need -= *hv;
        starts = ends;
        ends += width;
    }
    while piv.len() < DIVISIONS as usize {
        let last = piv.last().copied().unwrap_or(min);
        piv.push(last);
    }
    piv
}

/// Host state between launches (the control flow of `cudaSort`).
struct HsHost {
    n: u64,
    blocks: u64,
    min: f32,
    max: f32,
    o: Objs,
    step: u32,
    /// After the bucket phase: float4 sizes of the divisions, largest size in floats.
    largest: i64,
    /// Merge state: current (src, dst) and `nrElems`.
    src: ObjId,
    dst: ObjId,
    nr: i64,
    done_passes: bool,
}

#[derive(Clone, Copy)]
struct Objs {
    input: ObjId,
    output: ObjId,
    indice: ObjId,
    prefix: ObjId,
    offsets: ObjId,
    pivots: ObjId,
    l_offsets: ObjId,
    hist: ObjId,
    start: ObjId,
    fin: ObjId,
    nulls: ObjId,
}

impl HsHost {
    fn next(&mut self, m: &mut Memory) -> Option<Box<dyn Kernel>> {
        let o = self.o;
        self.step += 1;
        match self.step {
            1 => Some(Box::new(Histogram {
                input: o.input,
                result: o.hist,
                n: self.n,
                min: self.min,
                max: self.max,
            })),
            2 => {
                let mut h: Vec<f32> = m.to_vec::<u32>(o.hist).iter().map(|&c| c as f32).collect();
                let width = (self.max - self.min) / 1024.0;
                let piv = calc_pivots(&mut h, self.n, self.min, width);
                for (i, p) in piv.iter().enumerate() {
                    m.set(o.pivots, i as u64, *p);
                }
                m.fill(o.offsets, 0u32);
                Some(Box::new(BucketCount {
                    input: o.input,
                    indice: o.indice,
                    prefix: o.prefix,
                    pivots: o.pivots,
                    n: self.n,
                    blocks: self.blocks,
                }))
            }
            3 => Some(Box::new(BucketPrefix {
                prefix: o.prefix,
                offsets: o.offsets,
                blocks: self.blocks,
            })),
            4 => {
                let h: Vec<u32> = m.to_vec(o.offsets);
                let mut orig = vec![0i32; DIVISIONS as usize + 1];
                let mut nulls = vec![0i32; DIVISIONS as usize];
                let mut sizes = vec![0i64; DIVISIONS as usize];
                let mut aligned = vec![0u32; DIVISIONS as usize];
                for i in 0..DIVISIONS as usize {
                    orig[i + 1] = orig[i] + h[i] as i32;
                    nulls[i] = if !h[i].is_multiple_of(4) {
                        ((h[i] & !3) + 4 - h[i]) as i32
                    } else {
                        0
                    };
                    sizes[i] = (h[i] as i64 + nulls[i] as i64) / 4;
                    aligned[i] = h[i].div_ceil(4) * 4;
                }
                // exclusive prefix sum of the float4-aligned sizes -> l_offsets
                let mut acc = 0u32;
                for (i, a) in aligned.iter().enumerate() {
                    m.set(o.l_offsets, i as u64, acc);
                    acc += a;
                }
                m.fill(o.output, 0f32);
                let mut start = 0i32;
                for (i, s) in sizes.iter().enumerate() {
                    m.set(o.start, i as u64, start);
                    start += *s as i32;
                }
                m.set(o.start, DIVISIONS, start);
                for (i, v) in orig.iter().enumerate() {
                    m.set(o.fin, i as u64, *v);
                }
                for (i, v) in nulls.iter().enumerate() {
                    m.set(o.nulls, i as u64, *v);
                }
                self.largest = sizes.iter().copied().max().unwrap_or(0) * 4;
                Some(Box::new(BucketSort {
                    input: o.input,
                    indice: o.indice,
                    output: o.output,
                    prefix: o.prefix,
                    l_offsets: o.l_offsets,
                    n: self.n,
                    blocks: self.blocks,
                }))
            }
            5 => {
                // d_origList = d_output, d_resultList = d_input
                self.src = o.output;
                self.dst = o.input;
                self.nr = 2;
                let listsize = m.get::<i32>(o.start, DIVISIONS) as u64 * 4;
                Some(Box::new(MergeFirst {
                    src: self.src,
                    dst: self.dst,
                    listsize,
                }))
            }
            _ if !self.done_passes => {
                let per_div = (self.largest as f64 / (self.nr * 4) as f64).ceil().max(1.0) as i64;
                let needed = per_div * DIVISIONS as i64;
                let mut threads = 208i64;
                let mut grid = (needed + threads - 1) / threads;
                if grid < 8 {
                    grid = 8;
                    threads = (needed + 7) / 8;
                }
                std::mem::swap(&mut self.src, &mut self.dst);
                let k = MergePass {
                    src: self.src,
                    dst: self.dst,
                    start: o.start,
                    nr: self.nr,
                    per_div,
                    grid: grid as u32,
                    threads: threads as u32,
                };
                self.nr *= 2;
                if per_div == 1 {
                    self.done_passes = true;
                }
                Some(Box::new(k))
            }
            _ if self.step < 1_000_000 => {
                self.step = 1_000_000;
                // mergepack((float*)d_resultList, (float*)d_origList)
                Some(Box::new(MergePack {
                    src: self.dst,
                    dst: self.src,
                    start: o.start,
                    fin: o.fin,
                    nulls: o.nulls,
                    gx: (self.largest.max(1) as u64).div_ceil(256) as u32,
                }))
            }
            _ => None,
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("n", 256 << 10)?;
    let band = p.u64("band", 128)?;
    if !(4096..=(1 << 26)).contains(&n) || band == 0 {
        return Err(bad("hs: n in 4096..=64M, band > 0".into()));
    }
    let mut rng = Rng::new(p.seed);
    // Rodinia's `r` input: rand() / RAND_MAX in [0, 1]; strictly positive here so the zero
    // padding of each division sorts first, as the kernel's null-element removal assumes.
    let vals: Vec<f32> = (0..n).map(|_| 1e-6 + rng.f32()).collect();
    let (min, max) = vals
        .iter()
        .fold((f32::MAX, f32::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    let blocks = (n - 1) / (BUCKET_THREADS * band) + 1;
    let mut m = Memory::new();
    let mut padded = vals;
    padded.resize((n + DIVISIONS * 4) as usize, 0.0);
    let input = m.alloc_from("d_input", &padded, false);
    let output = m.alloc::<f32>("d_output", n + DIVISIONS * 4, false);
    let indice = m.alloc::<i32>("d_indice", n, false);
    let prefix = m.alloc::<u32>("d_prefixoffsets", blocks * DIVISIONS, false);
    let offsets = m.alloc::<u32>("d_offsets", DIVISIONS, false);
    let pivots = m.alloc::<f32>("l_pivotpoints", DIVISIONS, true);
    let l_offsets = m.alloc::<u32>("l_offsets", DIVISIONS, true);
    let hist = m.alloc::<u32>("d_Result1024", 1024, false);
    let start = m.alloc::<i32>("constStartAddr", DIVISIONS + 1, true);
    let fin = m.alloc::<i32>("finalStartAddr", DIVISIONS + 1, true);
    let nulls = m.alloc::<i32>("nullElems", DIVISIONS, true);
    let o = Objs {
        input,
        output,
        indice,
        prefix,
        offsets,
        pivots,
        l_offsets,
        hist,
        start,
        fin,
        nulls,
    };
    let mut h = HsHost {
        n,
        blocks,
        min,
        max,
        o,
        step: 0,
        largest: 0,
        src: output,
        dst: input,
        nr: 2,
        done_passes: false,
    };
    Ok(ModelWorkload::new(
        "hs",
        m,
        host(move |m: &mut Memory| h.next(m)),
    ))
}
