//! PolyBench/GPU `gemm` (`CUDA/GEMM/gemm.cu`): one launch of `gemm_kernel`,
//! `C = BETA*C + ALPHA*A*B` with one thread per element of C (`j` from x, `i` from y, 32x8
//! thread blocks) looping over k in global memory: `c[i*NJ+j] *= BETA` then
//! `c[i*NJ+j] += ALPHA * a[i*NK+k] * b[k*NJ+j]` (no shared-memory tiling). Row-major floats.
//!
//! Input: REC Table 3 (rec.md §4.3) gives GEMM as 128 MB; with the suite's three square
//! matrices (suite default 512) that is NI = NJ = NK = 3344 (3 x 3344^2 floats <= 128 MiB).
//! Rule 1 of `crate::scale` (two footprint-growing dimensions, multiple of 32): 1664, 31.7
//! MiB. Rule 2 applied (O(n^3) work): halved once to 832, 7.9 MiB (a `coda-4gpu` run takes
//! 56 s of host CPU time for 54 M L1 requests; at 1664 it would take 8 times that).

use super::common::{acc_loop, bad, blocks, kinfo, prologue, seq, side, MIB};
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "gemm",
    suite: "PolyBench/GPU",
    category: "-",
    about: "C = BETA*C + ALPHA*A*B, one thread per C element looping k in global memory, 32x8 blocks (gemm_kernel); footprint 7.9 MiB",
    params: &[
        ParamSpec {
            name: "ni",
            default: "832",
            help: "rows of A and C (multiple of 8)",
        },
        ParamSpec {
            name: "nj",
            default: "832",
            help: "columns of B and C (multiple of 32)",
        },
        ParamSpec {
            name: "nk",
            default: "832",
            help: "columns of A = rows of B",
        },
    ],
    build,
};

/// The paper input's side (REC: 128 MB).
pub const PAPER_N: u64 = 3344;
/// Rule 2's halvings of the rule-1 dimensions (`crate::scale`).
pub const HALVINGS: u32 = 1;
/// Bytes the suite's host allocates on the device for an input of these dimensions.
pub fn footprint(n: u64) -> u64 {
    3 * 4 * n * n
}
const _: () = assert!(3 * 4 * PAPER_N * PAPER_N <= 128 * MIB);

/// `ALPHA` and `BETA` of gemm.cu.
pub(crate) const ALPHA: f32 = 32412.0;
pub(crate) const BETA: f32 = 2123.0;

/// The suite's naive matrix-multiply kernel shape, shared by `gemm_kernel`, `mm2_kernel1/2`
/// and `mm3_kernel1/2/3`: thread (`j` = x, `i` = y) of 32x8 blocks computes
/// `c[i*nj+j] (*= beta) += (alpha *) a[i*nk+k] * b[k*nj+j]` for k in `0..nk`.
pub(crate) struct Gemm2D {
    pub name: &'static str,
    pub ni: u64,
    pub nj: u64,
    pub nk: u64,
    pub a: ObjId,
    pub b: ObjId,
    pub c: ObjId,
    pub alpha: Option<f32>,
    pub beta: Option<f32>,
}

impl Kernel for Gemm2D {
    fn info(&self) -> KernelInfo {
        kinfo(
            self.name,
            Dim3::new(blocks(self.nj, 32), blocks(self.ni, 8), 1),
            Dim3::new(32, 8, 1),
            24,
        )
    }
    /// Per thread: entry `MOV; S2R x4; IMAD x2; ISETP x2; EXIT` (10); the addresses of
    /// `c[i][j]`, row `i` of `a` and column `j` of `b` (`IMAD x2; IMAD.WIDE x3`); `LDG c`
    /// (gemm: `FMUL` by BETA, `STG`); per k (`acc_loop`, no `__restrict__`): `LDG a` (a
    /// warp-wide broadcast), `LDG b` (one line), gemm's `FMUL` by ALPHA, `FFMA`, `STG c`;
    /// per 4 k: `IADD3 x2` (pointers), `IADD3; ISETP; BRA`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let (j, i) = (t.gx(), t.gy());
        prologue(t, 4, 3);
        if i >= self.ni || j >= self.nj {
            return;
        }
        t.alu(5);
        let o = i * self.nj + j;
        let mut c: f32 = t.ld(self.c, o);
        if let Some(beta) = self.beta {
            t.fp(1);
            c *= beta;
            t.st(self.c, o, c);
        }
        let (nk, nj) = (self.nk, self.nj);
        acc_loop(
            t,
            self.a,
            |k| i * nk + k,
            self.b,
            |k| k * nj + j,
            self.c,
            o,
            c,
            nk,
            self.alpha,
        );
    }
}

/// Host reference of [`Gemm2D`] (same operation order).
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm_ref(
    ni: usize,
    nj: usize,
    nk: usize,
    a: &[f32],
    b: &[f32],
    c: &mut [f32],
    alpha: Option<f32>,
    beta: Option<f32>,
) {
    for i in 0..ni {
        for j in 0..nj {
            let mut acc = c[i * nj + j];
            if let Some(be) = beta {
                acc *= be;
            }
            c[i * nj + j] = super::common::acc_ref(
                acc,
                nk as u64,
                |k| a[i * nk + k as usize],
                |k| b[k as usize * nj + j],
                alpha,
            );
        }
    }
}

/// `((float) i*j + add) / div` over an `r x c` matrix: the suite's matrix initialisers.
pub(crate) fn init_mat(r: u64, c: u64, mul_add: u64, add: f32, div: u64) -> Vec<f32> {
    (0..r * c)
        .map(|q| ((q / c) as f32 * ((q % c) + mul_add) as f32 + add) / div as f32)
        .collect()
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let ni = side(p, "gemm", "ni", 832, 8)?;
    let nj = side(p, "gemm", "nj", 832, 32)?;
    let nk = side(p, "gemm", "nk", 832, 1)?;
    if ni * nk > 1 << 26 || nk * nj > 1 << 26 || ni * nj > 1 << 26 {
        return Err(bad(
            "gemm: each matrix must hold at most 2^26 elements".into()
        ));
    }
    // gemm.cu's init: A = i*j/NI, B = (i*j+1)/NJ, C = (i*j+2)/NJ
    let mut m = Memory::new();
    let a = m.alloc_from("A", &init_mat(ni, nk, 0, 0.0, ni), true);
    let b = m.alloc_from("B", &init_mat(nk, nj, 0, 1.0, nj), true);
    let c = m.alloc_from("C", &init_mat(ni, nj, 0, 2.0, nj), false);
    let k = Gemm2D {
        name: "gemm_kernel",
        ni,
        nj,
        nk,
        a,
        b,
        c,
        alpha: Some(ALPHA),
        beta: Some(BETA),
    };
    Ok(ModelWorkload::new("gemm", m, seq(vec![Box::new(k)])))
}
