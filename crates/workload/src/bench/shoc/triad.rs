//! SHOC Triad (level 1, `Triad.cu`, kernel `triad`): the STREAM triad `C[i] = A[i] + s *
//! B[i]` (s = 1.75), one element per thread, 128 threads per block, no bound test. SHOC's
//! host streams a 16 MiB vector (`numMaxFloats` = 4 Mi floats) through the GPU in chunks
//! of `blockSizes[i]` KB (64 KB .. 16384 KB): chunk `k` is copied into buffer set `k % 2`
//! (`d_memA0/B0/C0` or `d_memA1/B1/C1`, two CUDA streams) and one `triad` launch of
//! `chunk / 128` blocks processes it. The model runs one chunk size (`chunk`, elements) and
//! `chunks` launches, the host writing each chunk's A and B into its buffer set before the
//! launch (the `cudaMemcpyAsync` of the source; copies are not timed) and the two sets
//! alternating as SHOC's streams do (here one after the other).
//!
//! Inputs: HMS Table IV (training set, `triad B(G→S)`) gives no size; SHOC runs every chunk
//! size per pass, the largest being one launch over the whole 4 Mi-float vector (three 16
//! MiB vectors, 48 MiB). Rule 1 (32 MiB cap) shrinks the one footprint dimension by
//! `linear_factor(48 MiB, 1)` = 2/3, rounded down to the 128-thread block: 2,796,160
//! elements, one launch (32 MiB).
//!
//! Placement: `--param b_space=texture` reads B through the texture path; `b_space=shared`
//! is HMS's `B(G→S)`: each thread first copies its element of B into the block's shared
//! array (`__syncthreads()`), then reads it back from shared memory.

use super::common::{bad, entry, host, kinfo, MemSpace};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use crate::scale::{dim, linear_factor};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "shoc-triad",
    suite: "SHOC",
    category: "-",
    about: "SHOC Triad kernel triad: C = A + s*B, 128 threads/block, chunks alternating two buffer sets",
    params: &[
        ParamSpec {
            name: "chunk",
            default: "2796160",
            help: "elements per launch (SHOC blockSizes[i]*256; 16384 KB = 4Mi, scaled by rule 1; multiple of 128)",
        },
        ParamSpec {
            name: "chunks",
            default: "1",
            help: "launches (SHOC numMaxFloats / elemsInBlock)",
        },
        ParamSpec {
            name: "b_space",
            default: "global",
            help: "space B is read through: global | texture | shared (HMS B(G→S))",
        },
    ],
    build,
};

/// Threads per block (`blockSize` in SHOC's host code).
const BLOCK: u64 = 128;
/// The scalar `s`.
const SCALAR: f32 = 1.75;

/// Default elements per launch: SHOC's largest chunk (4 Mi floats, three vectors of 16
/// MiB) scaled by rule 1.
pub fn default_chunk() -> u64 {
    let paper = 4u64 << 20;
    dim(paper, linear_factor(3 * 4 * paper, 1), BLOCK)
}

/// Where B comes from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum BSpace {
    Mem(MemSpace),
    Shared,
}

struct Triad {
    a: ObjId,
    b: ObjId,
    c: ObjId,
    n: u64,
    b_space: BSpace,
}

impl Kernel for Triad {
    fn info(&self) -> KernelInfo {
        let smem = if self.b_space == BSpace::Shared {
            (BLOCK * 4) as u32
        } else {
            0
        };
        kinfo(
            "triad",
            Dim3::x((self.n / BLOCK) as u32),
            Dim3::x(BLOCK as u32),
            10,
            smem,
        )
    }
    fn phases(&self) -> u32 {
        if self.b_space == BSpace::Shared {
            2
        } else {
            1
        }
    }
    /// Per thread, the instructions of SHOC's `triad` (sm_70+ SASS, issue 7 §1 counting):
    /// `MOV; S2R x2; IMAD` (gid), the addresses of A and B (`IMAD.WIDE` x2; B through a
    /// texture needs none), `LDG` x2, `FFMA`, the address of C (`IMAD.WIDE`), `STG`: 10
    /// instructions, 3 of them memory. With B in shared memory: phase 0 copies B (`IMAD.WIDE;
    /// LDG; STS`), phase 1 reads it back (`LDS`) with the kernel's own loads and store.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let i = t.gid();
        let tid = t.tid.x;
        match (self.b_space, phase) {
            (BSpace::Shared, 0) => {
                entry(t, 2, 1, false);
                t.alu(1);
                let v: f32 = t.ld(self.b, i);
                t.sh_st_f32(tid, v);
            }
            (BSpace::Shared, _) => {
                t.alu(1);
                let a: f32 = t.ld(self.a, i);
                let b = t.sh_ld_f32(tid);
                t.fp(1);
                t.alu(1);
                t.st(self.c, i, a + SCALAR * b);
            }
            (BSpace::Mem(sp), _) => {
                entry(t, 2, 1, false);
                t.alu(1 + sp.addr_insts());
                let a: f32 = t.ld(self.a, i);
                let b: f32 = super::common::ld_in(t, sp, self.b, i);
                t.fp(1);
                t.alu(1);
                t.st(self.c, i, a + SCALAR * b);
            }
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("chunk", default_chunk())?;
    let chunks = p.u64("chunks", 1)?;
    let bs = p.str("b_space", "global");
    let b_space = if bs == "shared" {
        BSpace::Shared
    } else {
        BSpace::Mem(
            MemSpace::param(
                p,
                "b_space",
                MemSpace::Global,
                &[MemSpace::Global, MemSpace::Texture],
            )
            .map_err(|_| {
                bad(format!(
                    "parameter `b_space` = `{bs}`: expected `global`, `texture` or `shared`"
                ))
            })?,
        )
    };
    if n == 0 || n % BLOCK != 0 || chunks == 0 {
        return Err(bad(
            "shoc-triad: chunk must be a positive multiple of 128 and chunks >= 1".into(),
        ));
    }
    let sets = if chunks > 1 { 2 } else { 1 };
    let mut m = Memory::new();
    let mut bufs = Vec::new();
    for s in 0..sets {
        bufs.push((
            m.alloc::<f32>(&format!("d_memA{s}"), n, true),
            m.alloc::<f32>(&format!("d_memB{s}"), n, true),
            m.alloc::<f32>(&format!("d_memC{s}"), n, false),
        ));
    }
    // SHOC's host vector: drand48() * 10 (here seeded), the whole stream
    let mut rng = Rng::new(p.seed);
    let src: Vec<f32> = (0..n * chunks).map(|_| rng.f32() * 10.0).collect();
    let mut k = 0u64;
    let h = host(move |mem: &mut Memory| {
        if k >= chunks {
            return None;
        }
        let (a, b, c) = bufs[(k % 2) as usize];
        // cudaMemcpyAsync of chunk k into A and B of its set (SHOC copies the same data)
        for j in 0..n {
            let v = src[(k * n + j) as usize];
            mem.set(a, j, v);
            mem.set(b, j, v);
        }
        k += 1;
        Some(Box::new(Triad {
            a,
            b,
            c,
            n,
            b_space,
        }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("shoc-triad", m, h))
}
