//! Tiled matrix multiply in the style of the CUDA samples `matrixMulCUDA` (BLOCK_SIZE 16):
//! each 16x16 block computes a 16x16 tile of `C = A * B`; per tile step the threads stage one
//! element of A and of B in shared memory, `__syncthreads()`, run the 16-step inner product
//! from shared memory, `__syncthreads()` again. Row-major matrices.
//!
//! Default input: NUBA's MM (nuba.md §6.3, Table 2: an 8 MB footprint; the paper gives no
//! shape) in the CUDA sample's own shape (`dimsA` = 10 x 10 blocks, `dimsB` = 20 x 10
//! blocks: `m = k`, `n = 2k`) scaled to that footprint: `k = 640` (each dimension twice the
//! sample's 320), 8,192,000 bytes; rule 1 keeps it (under the cap).

use super::common::{bad, kinfo, prologue, seq, Regs};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "matmul",
    suite: "CUDA samples",
    category: "-",
    about: "C = A*B with 16x16 shared-memory tiles (matrixMulCUDA)",
    params: &[
        ParamSpec {
            name: "m",
            default: "640",
            help: "rows of A and C (multiple of 16; default: NUBA's 8 MB in the sample's shape)",
        },
        ParamSpec {
            name: "k",
            default: "640",
            help: "columns of A = rows of B (multiple of 16)",
        },
        ParamSpec {
            name: "n",
            default: "1280",
            help: "columns of B and C (multiple of 16)",
        },
    ],
    build,
};

const BS: u64 = 16;

/// `matrixMulCUDA<16>`: phases `2i` (stage tile `i`) and `2i+1` (multiply tile `i`).
struct MatMul {
    a: ObjId,
    b: ObjId,
    c: ObjId,
    /// wA
    k: u64,
    /// wB
    n: u64,
    grid: Dim3,
    acc: Regs,
}

impl Kernel for MatMul {
    fn info(&self) -> KernelInfo {
        kinfo(
            "matrixMulCUDA",
            self.grid,
            Dim3::new(16, 16, 1),
            24,
            2 * 16 * 16 * 4,
        )
    }
    fn phases(&self) -> u32 {
        2 * (self.k / BS) as u32
    }
    /// Per thread, the instructions of the CUDA sample `MatrixMulCUDA<16>` (sm_70+ SASS,
    /// issue 7 §1 counting). Entry (first phase only): `MOV; S2R x4`, `ULDC` of `wA`, the
    /// loop bounds `aBegin`, `aEnd`, `bBegin` (3), the row offsets `wA*ty+tx`, `wB*ty+tx`
    /// (2) and the four shared-memory bases of `As[ty][tx]`, `Bs[ty][tx]`, `As[ty]`,
    /// `Bs[..][tx]` (4), the loop-entry `ISETP; BRA` (17). Per tile: two global addresses
    /// (`IADD3; IMAD.WIDE` x2), `LDG` x2, `STS` x2, `BAR`; the 16 products fully unrolled
    /// (`#pragma unroll`): per product one `LDS` of `Bs[k][tx]` and one `FFMA`, and per four
    /// products one `LDS.128` of `As[ty][k .. k + 4]` (the H100 SASS of the sample reads the
    /// row that way: validation/gpu/h100/sass.txt; `locus validate gpu`), shared addresses at
    /// constant offsets (0 int); the loop control `IADD3` x2 (`a`, `b`), `ISETP`, `BRA` (4).
    /// After the last tile: the output index (`IMAD` x2, `IMAD.WIDE`), `STG`, `EXIT`. 50
    /// instructions per tile (its two `BAR` included), 24 of them memory, as the measured
    /// loop body.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let (tx, ty) = (t.tid.x as u64, t.tid.y as u64);
        let (bx, by) = (t.block.x as u64, t.block.y as u64);
        let local = t.local_id();
        let tile = (phase / 2) as u64;
        let sa = (ty * BS + tx) as u32;
        if phase & 1 == 0 {
            if tile == 0 {
                self.acc.set(local, 0, 0.0);
                prologue(t, 4, 10);
            }
            t.alu(4);
            let av: f32 = t.ld(self.a, (by * BS + ty) * self.k + tile * BS + tx);
            let bv: f32 = t.ld(self.b, (tile * BS + ty) * self.n + bx * BS + tx);
            t.sh_st_f32(sa, av);
            t.sh_st_f32(256 + sa, bv);
        } else {
            let mut acc = self.acc.get(local, 0);
            for q in 0..BS / 4 {
                // `As[ty][4q .. 4q + 4]` in one LDS.128, as the compiled kernel reads it
                let xs = t.sh_ld_f32x4((ty * BS + 4 * q) as u32);
                for (j, x) in xs.into_iter().enumerate() {
                    let kk = 4 * q + j as u64;
                    let y = t.sh_ld_f32((256 + kk * BS + tx) as u32);
                    t.fp(1);
                    acc += x * y;
                }
            }
            self.acc.set(local, 0, acc);
            t.alu(3);
            t.branch(1);
            if tile + 1 == self.k / BS {
                t.alu(3);
                t.st(self.c, (by * BS + ty) * self.n + bx * BS + tx, acc);
            }
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let (m, k, n) = (p.u64("m", 1024)?, p.u64("k", 512)?, p.u64("n", 1024)?);
    if m == 0 || k == 0 || n == 0 || m % BS != 0 || k % BS != 0 || n % BS != 0 {
        return Err(bad(
            "matmul: m, k, n must be positive multiples of 16".into()
        ));
    }
    let mut rng = Rng::new(p.seed);
    let mut mem = Memory::new();
    let av: Vec<f32> = (0..m * k).map(|_| rng.f32() - 0.5).collect();
    let bv: Vec<f32> = (0..k * n).map(|_| rng.f32() - 0.5).collect();
    let a = mem.alloc_from("A", &av, true);
    let b = mem.alloc_from("B", &bv, true);
    let c = mem.alloc::<f32>("C", m * n, false);
    let grid = Dim3::new((n / BS) as u32, (m / BS) as u32, 1);
    let kern = MatMul {
        a,
        b,
        c,
        k,
        n,
        grid,
        acc: Regs::new(256, 1),
    };
    Ok(ModelWorkload::new("matmul", mem, seq(vec![Box::new(kern)])))
}
