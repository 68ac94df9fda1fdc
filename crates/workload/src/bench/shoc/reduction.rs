//! SHOC Reduction (level 1, `reduction_kernel.h`, kernel `reduce<float, 256>`): a sum of
//! `n` floats by 64 blocks of 256 threads. Each thread zeroes its shared slot `sdata[tid]`
//! and accumulates `g_idata[i] + g_idata[i + 256]` into it for `i = blockIdx.x * 512 + tid`
//! stepping by the grid size `2 * 256 * 64` (coalesced, grid-strided; `sdata` is
//! `volatile`, so every step reads and writes the shared slot); then the tree in shared
//! memory: `tid < 128`, `__syncthreads()`, `tid < 64`, `__syncthreads()`, and the
//! warp-synchronous last warp (`+32, +16, .., +1`); thread 0 writes the block's sum to
//! `g_odata[blockIdx.x]`. SHOC's host launches it `--iterations` (256) times on the same
//! input and sums the 64 partial sums on the CPU.
//!
//! Inputs: HMS Table IV (`reduce sdata(S→G)`) gives no size; SHOC's default size class 1
//! (`-s 1`: 1 MiB, 262,144 floats; the classes are 1, 8, 32, 64 MiB) and 256 iterations;
//! the footprint is under the 32 MiB cap, so rule 1 keeps it. Single precision only.
//!
//! Placement: `--param sdata_space=global` is HMS's `sdata(S→G)`: the scratch array lives in
//! global memory at `blockIdx.x * 256 + tid` (HMS §7 item 19), every access an `LDG`/`STG`
//! with its address; `--param idata_space=texture` reads the input through the texture path.

use super::common::{addr_ld, bad, entry, host, kinfo, loop_step, MemSpace, WarpTail};
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, SharedArray, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "shoc-reduction",
    suite: "SHOC",
    category: "-",
    about: "SHOC Reduction kernel reduce<float,256>: 64x256 threads, grid-strided pairs, shared tree + warp-synchronous tail, repeated launches",
    params: &[
        ParamSpec {
            name: "n",
            default: "262144",
            help: "floats to sum (SHOC size class 1 = 1 MiB; multiple of 512)",
        },
        ParamSpec {
            name: "iterations",
            default: "256",
            help: "launches of reduce (SHOC --iterations)",
        },
        ParamSpec {
            name: "blocks",
            default: "64",
            help: "thread blocks (SHOC num_blocks)",
        },
        ParamSpec {
            name: "sdata_space",
            default: "shared",
            help: "space of the scratch array sdata: shared | global (HMS sdata(S→G))",
        },
        ParamSpec {
            name: "idata_space",
            default: "global",
            help: "space the input is read through: global | texture",
        },
    ],
    build,
};

/// `blockSize` (the template argument and `num_threads`).
const BS: u64 = 256;

/// One `reduce<float, 256>` launch.
struct Reduce {
    idata: ObjId,
    odata: ObjId,
    /// `sdata` in global memory (HMS S→G), `None` for shared memory.
    sdata_g: Option<ObjId>,
    n: u64,
    blocks: u64,
    idata_space: MemSpace,
    tail: WarpTail,
}

impl Reduce {
    /// Read `sdata[idx]` of this thread's block.
    #[track_caller]
    fn sd_ld(&self, t: &mut Thread<'_>, idx: u64) -> f32 {
        match self.sdata_g {
            None => t.sh_ld_f32(idx as u32),
            Some(o) => {
                t.alu(1);
                t.ld(o, t.block.x as u64 * BS + idx)
            }
        }
    }
    /// Write `sdata[idx]` of this thread's block.
    #[track_caller]
    fn sd_st(&self, t: &mut Thread<'_>, idx: u64, v: f32) {
        match self.sdata_g {
            None => t.sh_st_f32(idx as u32, v),
            Some(o) => {
                t.alu(1);
                t.st(o, t.block.x as u64 * BS + idx, v)
            }
        }
    }
}

impl Kernel for Reduce {
    fn info(&self) -> KernelInfo {
        let smem = if self.sdata_g.is_none() { BS * 4 } else { 0 };
        kinfo(
            "reduce",
            Dim3::x(self.blocks as u32),
            Dim3::x(BS as u32),
            16,
            smem as u32,
        )
    }
    fn phases(&self) -> u32 {
        4
    }
    /// `__shared__ float sdata[256]` (none with `sdata_space=global`).
    fn shared_arrays(&self) -> Vec<SharedArray> {
        self.sdata_g
            .is_none()
            .then(|| SharedArray {
                name: "sdata".into(),
                offset: 0,
                bytes: BS as u32 * 4,
                elem_bytes: 4,
            })
            .into_iter()
            .collect()
    }
    /// Per thread, the instructions of SHOC's `reduce<float, 256>` (sm_70+ SASS, issue 7 §1
    /// counting). Phase 0: `MOV; S2R x2`, `i` and `gridSize` (`IMAD` x2, `SHF`), the shared
    /// address of `sdata[tid]` (1), `STS` of zero, the loop entry `ISETP; BRA`; per step the
    /// input address (`IMAD.WIDE`; `i + 256` is a constant offset), `LDG` x2, `LDS`, `FADD` x2,
    /// `STS`, loop control (2 int + `BRA`). Phases 1 and 2 (`tid < 128`, `tid < 64`):
    /// `ISETP; BRA`, then `LDS` x2, `FADD`, `STS` for the threads below the bound. Phase 3:
    /// `ISETP; BRA` (`tid < 32`), six steps of `LDS` x2, `FADD`, `STS`, then `ISETP; BRA`
    /// (`tid == 0`) and thread 0's `LDS`, the address and `STG`. With `sdata` in global
    /// memory each shared access becomes its address (1 int) and an `LDG`/`STG`.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let tid = t.tid.x as u64;
        match phase {
            0 => {
                entry(t, 2, 4, false);
                self.sd_st(t, tid, 0.0);
                t.alu(1);
                t.branch(1);
                let grid_size = BS * 2 * self.blocks;
                let mut i = t.block.x as u64 * BS * 2 + tid;
                while i < self.n {
                    let x: f32 = addr_ld(t, self.idata_space, self.idata, i);
                    let y: f32 = super::common::ld_in(t, self.idata_space, self.idata, i + BS);
                    let s = self.sd_ld(t, tid);
                    t.fp(2);
                    self.sd_st(t, tid, s + (x + y));
                    loop_step(t);
                    i += grid_size;
                }
            }
            1 | 2 => {
                let half = if phase == 1 { 128 } else { 64 };
                t.alu(1);
                t.branch(1);
                if tid < half {
                    let a = self.sd_ld(t, tid);
                    let b = self.sd_ld(t, tid + half);
                    t.fp(1);
                    self.sd_st(t, tid, a + b);
                    if phase == 2 {
                        self.tail.set_input(tid, a + b);
                    }
                }
            }
            _ => {
                t.alu(1);
                t.branch(1);
                if tid < 32 {
                    for (k, off) in [32, 16, 8, 4, 2, 1].into_iter().enumerate() {
                        self.sd_ld(t, tid);
                        self.sd_ld(t, tid + off);
                        t.fp(1);
                        // lock-step value (see WarpTail)
                        self.sd_st(t, tid, self.tail.step(0, tid, k));
                    }
                }
                t.alu(1);
                t.branch(1);
                if tid == 0 {
                    let s = self.sd_ld(t, 0);
                    t.alu(1);
                    t.st(self.odata, t.block.x as u64, s);
                }
            }
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("n", 262_144)?;
    let iterations = p.u64("iterations", 256)?;
    let blocks = p.u64("blocks", 64)?;
    let sd = p.str("sdata_space", "shared");
    let global_sdata = match sd.as_str() {
        "shared" => false,
        "global" => true,
        _ => {
            return Err(bad(format!(
                "parameter `sdata_space` = `{sd}`: expected `shared` or `global`"
            )))
        }
    };
    let idata_space = MemSpace::param(
        p,
        "idata_space",
        MemSpace::Global,
        &[MemSpace::Global, MemSpace::Texture],
    )?;
    if n == 0 || n % (2 * BS) != 0 || blocks == 0 || iterations == 0 {
        return Err(bad(
            "shoc-reduction: n must be a positive multiple of 512, blocks and iterations >= 1"
                .into(),
        ));
    }
    // SHOC's input pattern: h_idata[i] = i % 3 (sums exact in float)
    let input: Vec<f32> = (0..n).map(|i| (i % 3) as f32).collect();
    let mut m = Memory::new();
    let idata = m.alloc_from("d_idata", &input, true);
    let odata = m.alloc::<f32>("d_odata", blocks, false);
    let sdata_g = global_sdata.then(|| m.alloc::<f32>("sdata", blocks * BS, false));
    let mut it = 0u64;
    let h = host(move |_m: &mut Memory| {
        if it >= iterations {
            return None;
        }
        it += 1;
        Some(Box::new(Reduce {
            idata,
            odata,
            sdata_g,
            n,
            blocks,
            idata_space,
            tail: WarpTail::new(64, &[32, 16, 8, 4, 2, 1], true),
        }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("shoc-reduction", m, h))
}
