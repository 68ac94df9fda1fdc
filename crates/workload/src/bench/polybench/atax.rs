//! PolyBench/GPU `atax` (Grauer-Gray et al., InPar 2012; `CUDA/ATAX/atax.cu`): `y = A^T (A x)`
//! as two launches, `atax_kernel1` (`tmp[i] += A[i*NY+j] * x[j]`, one thread per row: a warp
//! load touches 32 rows, 32 lines) then `atax_kernel2` (`y[j] += A[i*NY+j] * tmp[i]`, one
//! thread per column: coalesced), 256x1 thread blocks, row-major float `A` of NX x NY.
//!
//! Input: REC Table 3 (rec.md §4.3) gives ATAX only as a 128 MB footprint; with the suite's
//! square `A` (suite default NX = NY = 4096, 64 MiB) that is NX = NY = 5792 (5792^2 floats =
//! 128 MiB; the three vectors add 70 kB). Rule 1 of `crate::scale` (two footprint-growing
//! dimensions, multiple of the 256-thread block): 2816 x 2816, 31.7 MB. Rule 2 did not apply.

use super::common::{bad, seq, side, MatVec, MIB};
use crate::memory::Memory;
use crate::model::ModelWorkload;
use crate::program::WorkloadError;
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "atax",
    suite: "PolyBench/GPU",
    category: "-",
    about: "y = A^T(Ax): atax_kernel1 (row per thread, uncoalesced) + atax_kernel2 (column per thread), 256x1 blocks; footprint 30.3 MiB",
    params: &[
        ParamSpec {
            name: "nx",
            default: "2816",
            help: "rows of A (multiple of 256)",
        },
        ParamSpec {
            name: "ny",
            default: "2816",
            help: "columns of A (multiple of 256)",
        },
    ],
    build,
};

/// The paper input's side (REC: 128 MB).
pub const PAPER_N: u64 = 5792;
/// Bytes the suite's host allocates on the device for an input of these dimensions.
pub fn footprint(nx: u64, ny: u64) -> u64 {
    4 * (nx * ny + 2 * ny + nx)
}
const _: () = assert!(PAPER_N * PAPER_N * 4 <= 128 * MIB);

/// The suite's `init_array`: `x[i] = i * M_PI` (math.h's pi), `A[i][j] = i*j / NX`.
pub(crate) fn init(nx: u64, ny: u64) -> (Vec<f32>, Vec<f32>) {
    let x: Vec<f32> = (0..ny).map(|i| i as f32 * std::f32::consts::PI).collect();
    let a: Vec<f32> = (0..nx * ny)
        .map(|k| ((k / ny) as f32 * (k % ny) as f32) / nx as f32)
        .collect();
    (x, a)
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let nx = side(p, "atax", "nx", 2816, 256)?;
    let ny = side(p, "atax", "ny", 2816, 256)?;
    if nx * ny > 1 << 28 {
        return Err(bad("atax: nx * ny must be at most 2^28".into()));
    }
    let (xv, av) = init(nx, ny);
    let mut m = Memory::new();
    let a = m.alloc_from("A", &av, true);
    let x = m.alloc_from("x", &xv, true);
    let y = m.alloc::<f32>("y", ny, false);
    let tmp = m.alloc::<f32>("tmp", nx, false);
    let k1 = MatVec {
        name: "atax_kernel1",
        threads: nx,
        len: ny,
        stride: ny,
        m: a,
        column: false,
        v: x,
        out: tmp,
        zero_first: false,
        scale: None,
        add_after: None,
    };
    let k2 = MatVec {
        name: "atax_kernel2",
        threads: ny,
        len: nx,
        stride: ny,
        m: a,
        column: true,
        v: tmp,
        out: y,
        zero_first: false,
        scale: None,
        add_after: None,
    };
    Ok(ModelWorkload::new(
        "atax",
        m,
        seq(vec![Box::new(k1), Box::new(k2)]),
    ))
}
