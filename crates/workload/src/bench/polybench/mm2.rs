//! PolyBench/GPU `2mm` (`CUDA/2MM/2mm.cu`): `E = (A*B)*D` as two launches of the suite's
//! naive multiply (one thread per output element, k loop in global memory, 32x8 blocks):
//! `mm2_kernel1` (`C[i][j] += A[i][k] * B[k][j]`) then `mm2_kernel2` (`E[i][j] += C[i][k] *
//! D[k][j]`). Row-major floats; C starts from the host's initial values, E from zero.
//!
//! Input: REC Table 3 (rec.md §4.3) gives MM2 as 128 MB (NUBA Table 2: 84 MB, the suite
//! default 2048); with the suite's five square matrices that is NI = NJ = NK = NL = 2590
//! (5 x 2590^2 floats <= 128 MiB). Rule 1 of `crate::scale` (multiple of 32): 1280, 31.3 MiB.
//! Rule 2 applied (O(n^3) work): halved once to 640, 7.8 MiB (at 320 a `coda-4gpu` run
//! takes 5.4 s of host CPU time; at 1280 it would take 64 times that).

use super::common::{bad, seq, side, MIB};
use super::gemm::{init_mat, Gemm2D};
use crate::memory::Memory;
use crate::model::ModelWorkload;
use crate::program::WorkloadError;
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "2mm",
    suite: "PolyBench/GPU",
    category: "-",
    about: "E = (A*B)*D: mm2_kernel1, mm2_kernel2, one thread per element, 32x8 blocks; footprint 7.8 MiB",
    params: &[ParamSpec {
        name: "n",
        default: "640",
        help: "NI = NJ = NK = NL, the side of every matrix (multiple of 32)",
    }],
    build,
};

/// The paper input's side (REC: 128 MB).
pub const PAPER_N: u64 = 2590;
/// Rule 2's halvings of the rule-1 dimensions (`crate::scale`).
pub const HALVINGS: u32 = 1;
/// Bytes the suite's host allocates on the device for an input of these dimensions.
pub fn footprint(n: u64) -> u64 {
    5 * 4 * n * n
}
const _: () = assert!(5 * 4 * PAPER_N * PAPER_N <= 128 * MIB);

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = side(p, "2mm", "n", 640, 32)?;
    if n * n > 1 << 26 {
        return Err(bad("2mm: n * n must be at most 2^26".into()));
    }
    // 2mm.cu's init: A = i*j/NI, B = i*(j+1)/NJ, C = i*(j+3)/NL, D = i*(j+2)/NK; E zero
    let mut m = Memory::new();
    let a = m.alloc_from("A", &init_mat(n, n, 0, 0.0, n), true);
    let b = m.alloc_from("B", &init_mat(n, n, 1, 0.0, n), true);
    let c = m.alloc_from("C", &init_mat(n, n, 3, 0.0, n), false);
    let d = m.alloc_from("D", &init_mat(n, n, 2, 0.0, n), true);
    let e = m.alloc::<f32>("E", n * n, false);
    let mk = |name, a, b, c| {
        Box::new(Gemm2D {
            name,
            ni: n,
            nj: n,
            nk: n,
            a,
            b,
            c,
            alpha: None,
            beta: None,
        }) as Box<dyn crate::model::Kernel>
    };
    let ks = vec![mk("mm2_kernel1", a, b, c), mk("mm2_kernel2", c, d, e)];
    Ok(ModelWorkload::new("2mm", m, seq(ks)))
}
