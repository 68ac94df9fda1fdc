//! PolyBench/GPU `3mm` (`CUDA/3MM/3mm.cu`): `G = (A*B)*(C*D)` as three launches of the
//! suite's naive multiply (one thread per output element, k loop in global memory, 32x8
//! blocks): `mm3_kernel1` (`E += A*B`), `mm3_kernel2` (`F += C*D`), `mm3_kernel3`
//! (`G += E*F`). Row-major floats; E, F, G start from zero.
//!
//! Input: REC Table 3 (rec.md §4.3) gives MM3 as 64 MB; with the suite's seven square
//! matrices (suite default 512) that is N = 1548 (7 x 1548^2 floats <= 64 MiB). Rule 1 of
//! `crate::scale` (multiple of 32): 1088, 31.6 MiB. Rule 2 applied (O(n^3) work): halved
//! once to 544, 7.9 MiB (at 512 a `coda-4gpu` run takes 35 s of host CPU time for 38 M L1
//! requests, so about 42 s at 544; at 1088 it would take 8 times that).

use super::common::{bad, seq, side, MIB};
use super::gemm::{init_mat, Gemm2D};
use crate::memory::Memory;
use crate::model::ModelWorkload;
use crate::program::WorkloadError;
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "3mm",
    suite: "PolyBench/GPU",
    category: "-",
    about: "G = (A*B)*(C*D): mm3_kernel1, mm3_kernel2, mm3_kernel3, one thread per element, 32x8 blocks; footprint 7.9 MiB",
    params: &[ParamSpec {
        name: "n",
        default: "544",
        help: "NI = NJ = NK = NL = NM, the side of every matrix (multiple of 32)",
    }],
    build,
};

/// The paper input's side (REC: 64 MB).
pub const PAPER_N: u64 = 1548;
/// Rule 2's halvings of the rule-1 dimensions (`crate::scale`).
pub const HALVINGS: u32 = 1;
/// Bytes the suite's host allocates on the device for an input of these dimensions.
pub fn footprint(n: u64) -> u64 {
    7 * 4 * n * n
}
const _: () = assert!(7 * 4 * PAPER_N * PAPER_N <= 64 * MIB);

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = side(p, "3mm", "n", 544, 32)?;
    if n * n > 1 << 26 {
        return Err(bad("3mm: n * n must be at most 2^26".into()));
    }
    // 3mm.cu's init: A = i*j/NI, B = i*(j+1)/NJ, C = i*(j+3)/NL, D = i*(j+2)/NK
    let mut m = Memory::new();
    let a = m.alloc_from("A", &init_mat(n, n, 0, 0.0, n), true);
    let b = m.alloc_from("B", &init_mat(n, n, 1, 0.0, n), true);
    let c = m.alloc_from("C", &init_mat(n, n, 3, 0.0, n), true);
    let d = m.alloc_from("D", &init_mat(n, n, 2, 0.0, n), true);
    let e = m.alloc::<f32>("E", n * n, false);
    let f = m.alloc::<f32>("F", n * n, false);
    let g = m.alloc::<f32>("G", n * n, false);
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
    let ks = vec![
        mk("mm3_kernel1", a, b, e),
        mk("mm3_kernel2", c, d, f),
        mk("mm3_kernel3", e, f, g),
    ];
    Ok(ModelWorkload::new("3mm", m, seq(ks)))
}
