//! SHOC Scan (level 1, `scan_kernel.h`): an inclusive
//! prefix sum of `n` floats in three kernels per iteration, as `Scan.cu` launches them:
//! 1. `reduce<float, 256>` (64 blocks x 256): block `b` sums its contiguous region of
//!    `n / 64` elements (thread stride 256, a register sum), then the shared tree and the
//!    warp-synchronous tail as in Reduction; thread 0 writes `g_block_sums[b]`;
//! 2. `scan_single_block<float, 256>` (1 block): an exclusive Kogge-Stone scan of the 64
//!    block sums in shared memory (`scanLocalMem`: the lower half of `s_data` zeroed, the
//!    value at `tid + 256`, then for `off` = 1, 2, .., 128: read `s_data[idx - off]`,
//!    `__syncthreads()`, add, `__syncthreads()`), written back in place;
//! 3. `bottom_scan<float, float4, 256>` (64 x 256): thread 0 loads the block's seed into
//!    `s_seed`; per window of 256 `float4`s each thread loads one `float4`, scans it
//!    serially in registers, exclusive-scans the vector sums with `scanLocalMem`, adds the
//!    result and the seed, stores the `float4`, `__syncthreads()`, and the last thread
//!    carries its total into `s_seed` for the next window.
//!
//! Inputs: HMS Table IV (`reduce g_idata(G→2T)`) gives no size; SHOC's default size class 1
//! (1 MiB: 262,144 floats; classes 1, 8, 32, 64 MiB) and SHOC's `--iterations 256` of the
//! three kernels (768 launches, 65 M warp instructions, about 20 s on an idle machine, so
//! rule 2 does not apply). The footprint (2 MiB) is under the cap. The input pattern is
//! SHOC's `i % 2`. Single precision only.
//!
//! Placement: `--param idata_space=texture` reads `g_idata` of the reduce kernel through the
//! texture path (HMS moves it to a 2-D texture; Locus has one texture path, no 2-D layout).

use super::common::{addr_ld, bad, entry, host, kinfo, loop_step, MemSpace, Regs, WarpTail};
use crate::bench::dense::hs::F4;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "shoc-scan",
    suite: "SHOC",
    category: "-",
    about: "SHOC Scan: reduce<float,256> + scan_single_block (Kogge-Stone in shared) + bottom_scan<float4> per iteration",
    params: &[
        ParamSpec {
            name: "n",
            default: "262144",
            help: "floats to scan (SHOC size class 1 = 1 MiB; multiple of 4 * blocks)",
        },
        ParamSpec {
            name: "iterations",
            default: "256",
            help: "iterations of the three kernels (SHOC --iterations)",
        },
        ParamSpec {
            name: "blocks",
            default: "64",
            help: "thread blocks of reduce and bottom_scan (SHOC num_blocks; at most 256)",
        },
        ParamSpec {
            name: "idata_space",
            default: "global",
            help: "space reduce reads g_idata through: global | texture (HMS g_idata(G→2T))",
        },
    ],
    build,
};

/// `blockSize`.
const BS: u64 = 256;
/// Shared word of bottom_scan's `s_seed` (after `s_data[2 * 256]`).
const SEED: u32 = 512;

/// Scan's `reduce<float, 256>`: contiguous regions, register sum, shared tree.
struct ScanReduce {
    idata: ObjId,
    sums: ObjId,
    n: u64,
    blocks: u64,
    space: MemSpace,
    tail: WarpTail,
}

impl Kernel for ScanReduce {
    fn info(&self) -> KernelInfo {
        kinfo(
            "reduce",
            Dim3::x(self.blocks as u32),
            Dim3::x(BS as u32),
            16,
            (BS * 4) as u32,
        )
    }
    fn phases(&self) -> u32 {
        4
    }
    /// Per thread (sm_70+ SASS, issue 7 §1 counting): `MOV; S2R x2`, `region_size` (a
    /// division by `gridDim.x`, about 20 int, and the `* 4`), `block_start`, `block_stop`
    /// (`ISETP; SEL; IADD3`), `i`: 26 int; loop entry `ISETP; BRA`; per element the address
    /// (`IMAD.WIDE`; none through a texture), `LDG`, `FADD`, loop control; the shared
    /// address and `STS` of the sum. Phases 1-3 as Reduction's tree and tail.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let tid = t.tid.x as u64;
        let b = t.block.x as u64;
        match phase {
            0 => {
                entry(t, 2, 26, false);
                t.alu(1);
                t.branch(1);
                let region = ((self.n / 4) / self.blocks) * 4;
                let start = b * region;
                let stop = if b == self.blocks - 1 {
                    self.n
                } else {
                    start + region
                };
                let mut sum = 0f32;
                let mut i = start + tid;
                while i < stop {
                    let x: f32 = addr_ld(t, self.space, self.idata, i);
                    t.fp(1);
                    sum += x;
                    loop_step(t);
                    i += BS;
                }
                t.alu(1);
                t.sh_st_f32(tid as u32, sum);
            }
            1 | 2 => {
                let half = if phase == 1 { 128 } else { 64 };
                t.alu(1);
                t.branch(1);
                if tid < half {
                    let x = t.sh_ld_f32(tid as u32);
                    let y = t.sh_ld_f32((tid + half) as u32);
                    t.fp(1);
                    t.sh_st_f32(tid as u32, x + y);
                    if phase == 2 {
                        self.tail.set_input(tid, x + y);
                    }
                }
            }
            _ => {
                t.alu(1);
                t.branch(1);
                if tid < 32 {
                    for (k, off) in [32u64, 16, 8, 4, 2, 1].into_iter().enumerate() {
                        t.sh_ld_f32(tid as u32);
                        t.sh_ld_f32((tid + off) as u32);
                        t.fp(1);
                        t.sh_st_f32(tid as u32, self.tail.step(0, tid, k));
                    }
                }
                t.alu(1);
                t.branch(1);
                if tid == 0 {
                    let s = t.sh_ld_f32(0);
                    t.alu(1);
                    t.st(self.sums, b, s);
                }
            }
        }
    }
}

/// Sub-phase `k` (0..=17) of `scanLocalMem<float, 256>` for thread `tid`: 0 writes the
/// zero and `val`, odd `k` reads `s_data[idx - off]` into `tmp`, even `k` adds it, 17
/// returns the exclusive result `s_data[idx - 1]`. Per thread: the upper-half address (1
/// int) and `STS` x2; per step `LDS`, `BAR`, `LDS`, `FADD`, `STS`, `BAR`; the final `LDS`.
fn scan_local(t: &mut Thread<'_>, tmp: &Regs<f32>, k: u32, val: f32) -> Option<f32> {
    let tid = t.tid.x as u64;
    let idx = (tid + BS) as u32;
    match k {
        0 => {
            t.alu(1);
            t.sh_st_f32(tid as u32, 0.0);
            t.sh_st_f32(idx, val);
            None
        }
        17 => Some(t.sh_ld_f32(idx - 1)),
        k if k % 2 == 1 => {
            let off = 1u32 << ((k - 1) / 2);
            let v = t.sh_ld_f32(idx - off);
            tmp.set(tid, 0, v);
            None
        }
        _ => {
            let s = t.sh_ld_f32(idx);
            t.fp(1);
            t.sh_st_f32(idx, s + tmp.get(tid, 0));
            None
        }
    }
}

/// `scan_single_block<float, 256>` over the `n` block sums, in place.
struct ScanSingle {
    sums: ObjId,
    n: u64,
    tmp: Regs<f32>,
}

impl Kernel for ScanSingle {
    fn info(&self) -> KernelInfo {
        kinfo(
            "scan_single_block",
            Dim3::x(1),
            Dim3::x(BS as u32),
            16,
            (2 * BS * 4) as u32,
        )
    }
    fn phases(&self) -> u32 {
        18
    }
    /// Per thread: `MOV; S2R`, the bound test `ISETP` and the predicated load's address and
    /// `LDG` (threads below `n`), `scanLocalMem`, then `ISETP; BRA` and the store.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let tid = t.tid.x as u64;
        let mut val = 0f32;
        if phase == 0 {
            entry(t, 1, 1, false);
            if tid < self.n {
                t.alu(1);
                val = t.ld(self.sums, tid);
            }
        }
        if let Some(r) = scan_local(t, &self.tmp, phase, val) {
            t.alu(1);
            t.branch(1);
            if tid < self.n {
                t.alu(1);
                t.st(self.sums, tid, r);
            }
        }
    }
}

/// `bottom_scan<float, float4, 256>`: phase 0 seeds, then 18 phases per window and one
/// final phase (the last window's carry).
struct BottomScan {
    idata: ObjId,
    odata: ObjId,
    sums: ObjId,
    /// `n / 4` (float4 count).
    n4: u64,
    blocks: u64,
    windows: u32,
    /// Per thread: the float4 being scanned (4 slots) and the step temporary (slot 4 via
    /// `tmp`).
    vals: Regs<F4>,
    tmp: Regs<f32>,
}

impl BottomScan {
    fn bounds(&self, b: u64) -> (u64, u64) {
        let region = self.n4 / self.blocks;
        let start = b * region;
        let stop = if b == self.blocks - 1 {
            self.n4
        } else {
            start + region
        };
        (start, stop)
    }
}

impl Kernel for BottomScan {
    fn info(&self) -> KernelInfo {
        kinfo(
            "bottom_scan",
            Dim3::x(self.blocks as u32),
            Dim3::x(BS as u32),
            24,
            (2 * BS * 4 + 4) as u32,
        )
    }
    fn phases(&self) -> u32 {
        2 + 18 * self.windows
    }
    /// Per thread (sm_70+ SASS, issue 7 §1 counting): entry `MOV; S2R x2`, `n / 4`, the
    /// region (a division by `gridDim.x`, about 20 int), bounds (`ISETP; SEL; IADD3`), `i`,
    /// `window` (26 int), `ISETP; BRA` of `threadIdx.x == 0` and thread 0's address, `LDG`,
    /// `STS` of the seed. Per window: the loop test (`ISETP; BRA`), the bound test (`ISETP;
    /// BRA`), the address (`IMAD.WIDE`) and `LDG.128`, `FADD` x3 (serial scan),
    /// `scanLocalMem`, `LDS` of the seed, `FADD` x5 (res + seed once, four adds), the store
    /// address, `STG.128`, `BAR`, `ISETP; BRA` of the last thread and its `STS`, `window`
    /// and `i` updates (2 int).
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let tid = t.tid.x as u64;
        let b = t.block.x as u64;
        let (start, stop) = self.bounds(b);
        if phase == 0 {
            entry(t, 2, 26, false);
            t.alu(1);
            t.branch(1);
            if tid == 0 {
                t.alu(1);
                let s: f32 = t.ld(self.sums, b);
                t.sh_st_f32(SEED, s);
            }
            return;
        }
        let w = (phase - 1) / 18;
        let k = (phase - 1) % 18;
        if k == 0 && w > 0 {
            // the tail of the previous window: the carry of the last thread
            t.alu(1);
            t.branch(1);
            if tid == BS - 1 {
                let v = self.vals.get(tid, 0);
                t.sh_st_f32(SEED, v.0[3]);
            }
            t.alu(2);
        }
        let window = start + w as u64 * BS;
        if w == self.windows || window >= stop {
            // loop exit test
            if k == 0 {
                t.alu(1);
                t.branch(1);
            }
            return;
        }
        let i = window + tid;
        let mut val = F4::default();
        if k == 0 {
            t.alu(1);
            t.branch(1);
            t.alu(1);
            t.branch(1);
            if i < stop {
                t.alu(1);
                val = t.ld(self.idata, i);
            }
            t.fp(3);
            val.0[1] += val.0[0];
            val.0[2] += val.0[1];
            val.0[3] += val.0[2];
            self.vals.set(tid, 0, val);
        }
        if let Some(res) = scan_local(t, &self.tmp, k, val.0[3]) {
            let seed = t.sh_ld_f32(SEED);
            t.fp(5);
            let mut v = self.vals.get(tid, 0);
            for x in v.0.iter_mut() {
                *x += res + seed;
            }
            self.vals.set(tid, 0, v);
            t.alu(1);
            t.branch(1);
            if i < stop {
                t.alu(1);
                t.st(self.odata, i, v);
            }
        }
    }
}

/// Host reference: SHOC's `scanCPU` (inclusive prefix sum).
#[cfg(test)]
pub(crate) fn host_scan(x: &[f32]) -> Vec<f32> {
    let mut s = 0f32;
    x.iter()
        .map(|v| {
            s += v;
            s
        })
        .collect()
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("n", 262_144)?;
    let iterations = p.u64("iterations", 256)?;
    let blocks = p.u64("blocks", 64)?;
    let space = MemSpace::param(
        p,
        "idata_space",
        MemSpace::Global,
        &[MemSpace::Global, MemSpace::Texture],
    )?;
    if blocks == 0 || blocks > BS || n == 0 || n % (4 * blocks) != 0 || iterations == 0 {
        return Err(bad(
            "shoc-scan: need 1 <= blocks <= 256, n a positive multiple of 4 * blocks, iterations >= 1"
                .into(),
        ));
    }
    let input: Vec<f32> = (0..n).map(|i| (i % 2) as f32).collect();
    let mut m = Memory::new();
    let idata = m.alloc_from("d_idata", &input, true);
    let odata = m.alloc::<f32>("d_odata", n, false);
    let sums = m.alloc::<f32>("d_block_sums", blocks, false);
    let n4 = n / 4;
    let windows = (n4 / blocks).div_ceil(BS).max(1) as u32;
    let mut step = 0u64;
    let h = host(move |_m: &mut Memory| {
        if step >= 3 * iterations {
            return None;
        }
        let k: Box<dyn Kernel> = match step % 3 {
            0 => Box::new(ScanReduce {
                idata,
                sums,
                n,
                blocks,
                space,
                tail: WarpTail::new(64, &[32, 16, 8, 4, 2, 1], true),
            }),
            1 => Box::new(ScanSingle {
                sums,
                n: blocks,
                tmp: Regs::new(BS as usize, 1),
            }),
            _ => Box::new(BottomScan {
                idata,
                odata,
                sums,
                n4,
                blocks,
                windows,
                vals: Regs::new(BS as usize, 1),
                tmp: Regs::new(BS as usize, 1),
            }),
        };
        step += 1;
        Some(k)
    });
    Ok(ModelWorkload::new("shoc-scan", m, h))
}
