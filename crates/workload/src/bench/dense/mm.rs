//! Parboil SGEMM (`mysgemmNT`): `C = alpha * A * B^T + beta * C`, column-major. A block of
//! 16x8 threads computes a 128x16 tile of C: per k-step of 8 it stages an 8x16 slice of B in
//! shared memory, `__syncthreads()`, then each thread streams 8 elements of its row of A
//! (`A[m + (i+j)*lda]`, 128 contiguous floats per block) and accumulates 16 outputs in
//! registers; finally it reads and writes its 16 C elements `C[t + i*ldc]`.
//!
//! Page sharing (spec §7 MM row): a C column segment of 1024 rows (one 4 KB page) is touched
//! by the 8 blocks with consecutive `blockIdx.x` of one `blockIdx.y`, i.e. consecutive
//! flattened ids on one GPU; A and B pages are read by every block. The default shape keeps
//! `k` small relative to `m`, `n` so C pages dominate and MM is core-exclusive as in CODA
//! Table 2 (spec \[S\]: "keep C dominant in page count").

use super::common::{bad, kinfo, loop_step, prologue, seq, Regs};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "mm",
    suite: "Parboil",
    category: "core-exclusive",
    about: "Parboil sgemm mysgemmNT: 16x8 threads per 128x16 C tile, B slice in shared memory",
    params: &[
        ParamSpec {
            name: "m",
            default: "2048",
            help: "rows of A and C (multiple of 128)",
        },
        ParamSpec {
            name: "n",
            default: "2048",
            help: "columns of C = rows of B^T (multiple of 16)",
        },
        ParamSpec {
            name: "k",
            default: "64",
            help: "inner dimension (multiple of 8)",
        },
    ],
    build,
};

const TILE_N: u64 = 16;
const TILE_TB_HEIGHT: u64 = 8;
const TILE_M: u64 = TILE_N * TILE_TB_HEIGHT;

/// `mysgemmNT` with alpha = 1, beta = 0 (Parboil's driver).
struct SgemmNT {
    a: ObjId,
    b: ObjId,
    c: ObjId,
    m: u64,
    n: u64,
    k: u64,
    acc: Regs,
}

impl Kernel for SgemmNT {
    fn info(&self) -> KernelInfo {
        let grid = Dim3::new((self.m / TILE_M) as u32, (self.n / TILE_N) as u32, 1);
        kinfo(
            "mysgemmNT",
            grid,
            Dim3::new(16, 8, 1),
            32,
            (TILE_TB_HEIGHT * TILE_N * 4) as u32,
        )
    }
    fn phases(&self) -> u32 {
        2 * (self.k / TILE_TB_HEIGHT) as u32
    }
    /// Per thread, the instructions of Parboil sgemm `mysgemmNT` (sm_70+ SASS, issue 7 §1
    /// counting). Entry (first phase): `MOV; S2R x4`, `ULDC` and the indices `mid`, `m`,
    /// `n` and the `b_s[ty][tx]` shared address (4), the 16 zeroed accumulators (`CS2R` x8),
    /// the `k` loop guard `ISETP; BRA` (19). Per tile of 8 rows: the `B` address (`IMAD;
    /// IMAD.WIDE`), `LDG`, `STS`, `BAR`; the `j` and `kk` loops have constant trip counts and
    /// are fully unrolled: per `j` one `IMAD.WIDE` (stride `lda`), `LDG` of `A`, four
    /// `LDS.128` and 16 `FFMA`; the tile loop control (3). After the last tile: the output
    /// base (`IMAD` x2) and, unrolled over 16 rows, `IMAD.WIDE; LDG; FMUL; FFMA; STG`, then
    /// `EXIT`. 185 instructions per tile (its two `BAR` included), 42 of them memory.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let (tx, ty) = (t.tid.x as u64, t.tid.y as u64);
        let mid = ty * 16 + tx;
        let m = t.block.x as u64 * TILE_M + mid;
        let n = t.block.y as u64 * TILE_N + tx;
        let (lda, ldb, ldc) = (self.m, self.n, self.m);
        let i = (phase / 2) as u64 * TILE_TB_HEIGHT;
        if phase & 1 == 0 {
            if i == 0 {
                for s in 0..16 {
                    self.acc.set(mid, s, 0.0);
                }
                prologue(t, 4, 12);
            }
            t.alu(2);
            let bv: f32 = t.ld(self.b, n + (i + ty) * ldb);
            t.sh_st_f32((ty * 16 + tx) as u32, bv);
            return;
        }
        let mut c = [0.0f32; 16];
        for (s, cv) in c.iter_mut().enumerate() {
            *cv = self.acc.get(mid, s);
        }
        for j in 0..TILE_TB_HEIGHT {
            t.alu(1);
            let a: f32 = t.ld(self.a, m + (i + j) * lda);
            // b_s[j][0..16] read as four 128-bit shared loads (a broadcast to the warp); the
            // values staged in phase 2s are B[by*16 + kk + (i+j)*ldb], read back unrecorded
            let mut bs = [0.0f32; 16];
            for q in 0..4u64 {
                let first = t.sh_ld_f32((j * 16 + q * 4) as u32);
                bs[(q * 4) as usize] = first;
                for r in 1..4u64 {
                    let kk = q * 4 + r;
                    bs[kk as usize] =
                        t.peek(self.b, t.block.y as u64 * TILE_N + kk + (i + j) * ldb);
                }
            }
            t.fp(16);
            for kk in 0..16 {
                c[kk] += a * bs[kk];
            }
        }
        for (s, cv) in c.iter().enumerate() {
            self.acc.set(mid, s, *cv);
        }
        loop_step(t);
        if i + TILE_TB_HEIGHT == self.k {
            let tc = ldc * t.block.y as u64 * TILE_N + m;
            t.alu(2);
            for (ii, cv) in c.iter().enumerate() {
                t.alu(1);
                let old: f32 = t.ld(self.c, tc + ii as u64 * ldc);
                t.fp(2);
                t.st(self.c, tc + ii as u64 * ldc, old * 0.0 + *cv);
            }
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let (m, n, k) = (p.u64("m", 2048)?, p.u64("n", 2048)?, p.u64("k", 64)?);
    if m == 0 || n == 0 || k == 0 || m % TILE_M != 0 || n % TILE_N != 0 || k % TILE_TB_HEIGHT != 0 {
        return Err(bad(
            "mm: m multiple of 128, n multiple of 16, k multiple of 8".into(),
        ));
    }
    let mut rng = Rng::new(p.seed);
    let av: Vec<f32> = (0..m * k).map(|_| rng.f32() - 0.5).collect();
    let bv: Vec<f32> = (0..n * k).map(|_| rng.f32() - 0.5).collect();
    let mut mem = Memory::new();
    let a = mem.alloc_from("A", &av, true);
    let b = mem.alloc_from("B", &bv, true);
    let c = mem.alloc::<f32>("C", m * n, false);
    let kern = SgemmNT {
        a,
        b,
        c,
        m,
        n,
        k,
        acc: Regs::new(128, 16),
    };
    Ok(ModelWorkload::new("mm", mem, seq(vec![Box::new(kern)])))
}
