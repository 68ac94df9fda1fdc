//! transpose (CUDA samples `6_Performance/transpose`): matrix transpose with `TILE_DIM` 32
//! and `BLOCK_ROWS` 16, blocks of 32 x 16 threads, each thread moving two elements.
//!
//! Variants (parameter `variant`): `nobankconflicts` (default: `transposeNoBankConflicts`,
//! the coalesced transpose through a padded `tile[32][33]` in shared memory: coalesced row
//! reads of `idata`, `__syncthreads()`, coalesced row writes of `odata` from the tile's
//! columns), `coalesced` (`transposeCoalesced`, the same with an unpadded `tile[32][32]`,
//! whose column reads conflict on the banks), `naive` (`transposeNaive`: `odata[index_out +
//! i] = idata[index_in + i * width]` straight from global memory, as the sample writes it).
//! The host runs one warm-up launch and `NUM_REPS` = 100 timed launches of the kernel.
//!
//! Input. Paper: HMS Table IV (hms-placement-model.md §5.3) runs the sample with its
//! default size, 1024 x 1024 floats (`MATRIX_SIZE_X`, `MATRIX_SIZE_Y`; two matrices: 8 MiB).
//! Rule 1 of `scale.rs`: under the cap, kept as is.

use crate::bench::dense::common::{bad, entry, kinfo, seq};
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "transpose",
    suite: "CUDA samples",
    category: "-",
    about: "matrix transpose through a padded 32x33 shared tile, 1 + 100 launches (transposeNoBankConflicts; transposeCoalesced, transposeNaive by variant); 8 MiB",
    params: &[
        ParamSpec {
            name: "n",
            default: "1024",
            help: "matrix side (multiple of 32)",
        },
        ParamSpec {
            name: "variant",
            default: "nobankconflicts",
            help: "nobankconflicts, coalesced or naive",
        },
        ParamSpec {
            name: "reps",
            default: "100",
            help: "timed launches after one warm-up launch (NUM_REPS)",
        },
    ],
    build,
};

const TILE: u64 = 32;
const ROWS: u64 = 16;

/// The kernel variant.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Variant {
    NoBankConflicts,
    Coalesced,
    Naive,
}

#[derive(Clone, Copy)]
struct Transpose {
    variant: Variant,
    odata: ObjId,
    idata: ObjId,
    n: u64,
}

impl Transpose {
    /// Row pitch of the shared tile in words.
    fn pitch(&self) -> u64 {
        if self.variant == Variant::NoBankConflicts {
            TILE + 1
        } else {
            TILE
        }
    }
}

impl Kernel for Transpose {
    fn info(&self) -> KernelInfo {
        let (name, smem) = match self.variant {
            Variant::NoBankConflicts => ("transposeNoBankConflicts", TILE * (TILE + 1) * 4),
            Variant::Coalesced => ("transposeCoalesced", TILE * TILE * 4),
            Variant::Naive => ("transposeNaive", 0),
        };
        kinfo(
            name,
            Dim3::new((self.n / TILE) as u32, (self.n / TILE) as u32, 1),
            Dim3::new(TILE as u32, ROWS as u32, 1),
            16,
            smem as u32,
        )
    }
    fn phases(&self) -> u32 {
        if self.variant == Variant::Naive {
            1
        } else {
            2
        }
    }
    /// Per thread (the two-iteration loops unrolled): entry `MOV; S2R x4` and the two
    /// indices (`IMAD` x4) and shared addresses (2 int). Tiled: phase 0, per row step
    /// `IMAD.WIDE; LDG; STS`; phase 1, per row step `LDS; IMAD.WIDE; STG`. Naive: per row
    /// step `IMAD.WIDE; LDG; IMAD.WIDE; STG`.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let (tx, ty) = (t.tid.x as u64, t.tid.y as u64);
        let (bx, by) = (t.block.x as u64, t.block.y as u64);
        let n = self.n;
        let index_in = (bx * TILE + tx) + (by * TILE + ty) * n;
        if self.variant == Variant::Naive {
            let index_out = (by * TILE + ty) + n * (bx * TILE + tx);
            entry(t, 4, 4);
            for i in (0..TILE).step_by(ROWS as usize) {
                t.alu(1);
                let v: f32 = t.ld(self.idata, index_in + i * n);
                t.alu(1);
                t.st(self.odata, index_out + i, v);
            }
            return;
        }
        let index_out = (by * TILE + tx) + (bx * TILE + ty) * n;
        let p = self.pitch();
        if phase == 0 {
            entry(t, 4, 6);
            for i in (0..TILE).step_by(ROWS as usize) {
                t.alu(1);
                let v: f32 = t.ld(self.idata, index_in + i * n);
                t.sh_st_f32(((ty + i) * p + tx) as u32, v);
            }
        } else {
            for i in (0..TILE).step_by(ROWS as usize) {
                let v = t.sh_ld_f32((tx * p + ty + i) as u32);
                t.alu(1);
                t.st(self.odata, index_out + i * n, v);
            }
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("n", 1024)?;
    let reps = p.u64("reps", 100)?;
    let variant = match p.str("variant", "nobankconflicts").as_str() {
        "nobankconflicts" => Variant::NoBankConflicts,
        "coalesced" => Variant::Coalesced,
        "naive" => Variant::Naive,
        other => {
            return Err(bad(format!(
                "transpose: variant `{other}` is not one of nobankconflicts, coalesced, naive"
            )))
        }
    };
    if n == 0 || n % TILE != 0 {
        return Err(bad(format!(
            "transpose: n must be a positive multiple of {TILE} (got {n})"
        )));
    }
    // h_idata[i] = i, as the sample
    let idata: Vec<f32> = (0..n * n).map(|i| i as f32).collect();
    let mut m = Memory::new();
    let idata = m.alloc_from("d_idata", &idata, true);
    let odata = m.alloc::<f32>("d_odata", n * n, false);
    let k = Transpose {
        variant,
        odata,
        idata,
        n,
    };
    let ks: Vec<Box<dyn Kernel>> = (0..reps + 1)
        .map(|_| Box::new(k) as Box<dyn Kernel>)
        .collect();
    Ok(ModelWorkload::new("transpose", m, seq(ks)))
}
