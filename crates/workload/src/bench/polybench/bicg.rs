//! PolyBench/GPU `bicg` (`CUDA/BICG/bicg.cu`), the BiCG sub-kernel `s = A^T r`, `q = A p`, as
//! two launches with 256x1 blocks: `bicg_kernel1` (thread j: `s[j] = 0`, then `s[j] +=
//! A[i*NY+j] * r[i]` over i: a column walk, coalesced) and `bicg_kernel2` (thread i: `q[i] =
//! 0`, then `q[i] += A[i*NY+j] * p[j]`: a row walk, 32 lines per warp load). Row-major float A.
//!
//! Input: NDP Table 1 (ndp.md §5.4) runs BICG at 6K x 6K (NUBA Table 2 lists 2,013 MB; NDP's
//! dimensions are used since they are given as such; suite default 4096 x 4096): NX = NY =
//! 6144, 151 MB. Rule 1 of `crate::scale` (two dimensions, multiple of the 256-thread
//! block): 2816 x 2816, 31.8 MB. Rule 2 did not apply.

use super::atax::init;
use super::common::{bad, seq, side, MatVec};
use crate::memory::Memory;
use crate::model::ModelWorkload;
use crate::program::WorkloadError;
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "bicg",
    suite: "PolyBench/GPU",
    category: "-",
    about: "s = A^T r, q = A p: bicg_kernel1 (column per thread) + bicg_kernel2 (row per thread, uncoalesced), 256x1 blocks; footprint 30.3 MiB",
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

/// The paper input's side (NDP: 6K x 6K).
pub const PAPER_N: u64 = 6144;
/// Bytes the suite's host allocates on the device for an input of these dimensions.
pub fn footprint(nx: u64, ny: u64) -> u64 {
    4 * (nx * ny + 2 * nx + 2 * ny)
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let nx = side(p, "bicg", "nx", 2816, 256)?;
    let ny = side(p, "bicg", "ny", 2816, 256)?;
    if nx * ny > 1 << 28 {
        return Err(bad("bicg: nx * ny must be at most 2^28".into()));
    }
    // bicg.cu's init_array: r[i] = i * M_PI, A[i][j] = i*j / NX, p[j] = j * M_PI
    let (_, av) = init(nx, ny);
    let rv: Vec<f32> = (0..nx).map(|i| i as f32 * std::f32::consts::PI).collect();
    let pv: Vec<f32> = (0..ny).map(|i| i as f32 * std::f32::consts::PI).collect();
    let mut m = Memory::new();
    let a = m.alloc_from("A", &av, true);
    let r = m.alloc_from("r", &rv, true);
    let s = m.alloc::<f32>("s", ny, false);
    let pp = m.alloc_from("p", &pv, true);
    let q = m.alloc::<f32>("q", nx, false);
    let k1 = MatVec {
        name: "bicg_kernel1",
        threads: ny,
        len: nx,
        stride: ny,
        m: a,
        column: true,
        v: r,
        out: s,
        zero_first: true,
        scale: None,
        add_after: None,
    };
    let k2 = MatVec {
        name: "bicg_kernel2",
        threads: nx,
        len: ny,
        stride: ny,
        m: a,
        column: false,
        v: pp,
        out: q,
        zero_first: true,
        scale: None,
        add_after: None,
    };
    Ok(ModelWorkload::new(
        "bicg",
        m,
        seq(vec![Box::new(k1), Box::new(k2)]),
    ))
}
