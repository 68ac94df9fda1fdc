//! PolyBench/GPU `mvt` (`CUDA/MVT/mvt.cu`): `x1 += A y_1`, `x2 += A^T y_2` as two launches
//! with 256x1 blocks: `mvt_kernel1` (thread i walks row i: 32 lines per warp load) and
//! `mvt_kernel2` (thread i walks column i: coalesced). Row-major float A of N x N.
//!
//! Input: NUBA Table 2 (nuba.md §6.3) lists MVT at 6,443 MB (suite default N = 4096, 64 MiB);
//! with the suite's one N x N matrix that is N = 40134 (6443e6 / 4 floats). Rule 1 of
//! `crate::scale` (two dimensions, multiple of the 256-thread block): 2816, 31.7 MB. Rule 2
//! did not apply.

use super::common::{bad, seq, side, MatVec};
use super::gemm::init_mat;
use crate::memory::Memory;
use crate::model::ModelWorkload;
use crate::program::WorkloadError;
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "mvt",
    suite: "PolyBench/GPU",
    category: "-",
    about: "x1 += A y1, x2 += A^T y2: mvt_kernel1 (row per thread, uncoalesced) + mvt_kernel2 (column per thread), 256x1 blocks; footprint 30.3 MiB",
    params: &[ParamSpec {
        name: "n",
        default: "2816",
        help: "N, the side of A (multiple of 256)",
    }],
    build,
};

/// The paper input's side (NUBA: 6,443 MB).
pub const PAPER_N: u64 = 40134;
/// Bytes the suite's host allocates on the device for an input of these dimensions.
pub fn footprint(n: u64) -> u64 {
    4 * (n * n + 4 * n)
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = side(p, "mvt", "n", 2816, 256)?;
    if n * n > 1 << 28 {
        return Err(bad("mvt: n * n must be at most 2^28".into()));
    }
    // mvt.cu's init_array: x1 = i/N, x2 = (i+1)/N, y_1 = (i+3)/N, y_2 = (i+4)/N, A = i*j/N
    let vec_of = |add: f32| -> Vec<f32> { (0..n).map(|i| (i as f32 + add) / n as f32).collect() };
    let mut m = Memory::new();
    let a = m.alloc_from("a", &init_mat(n, n, 0, 0.0, n), true);
    let x1 = m.alloc_from("x1", &vec_of(0.0), false);
    let x2 = m.alloc_from("x2", &vec_of(1.0), false);
    let y1 = m.alloc_from("y_1", &vec_of(3.0), true);
    let y2 = m.alloc_from("y_2", &vec_of(4.0), true);
    let mk = |name, column, v, out| MatVec {
        name,
        threads: n,
        len: n,
        stride: n,
        m: a,
        column,
        v,
        out,
        zero_first: false,
        scale: None,
        add_after: None,
    };
    let ks: Vec<Box<dyn crate::model::Kernel>> = vec![
        Box::new(mk("mvt_kernel1", false, y1, x1)),
        Box::new(mk("mvt_kernel2", true, y2, x2)),
    ];
    Ok(ModelWorkload::new("mvt", m, seq(ks)))
}
