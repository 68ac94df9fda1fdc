//! PolyBench/GPU `jacobi2d` (`CUDA/JACOBI2D/jacobi2D.cu`): TSTEPS time steps, each two
//! launches over an N x N row-major float grid with 32x8 thread blocks (`j` from x, `i` from
//! y): `runJacobiCUDA_kernel1` (`B[i][j] = 0.2f * (A[i][j] + A[i][j-1] + A[i][j+1] +
//! A[i+1][j] + A[i-1][j])`) and `runJacobiCUDA_kernel2` (`A[i][j] = B[i][j]`), both on
//! `1 < i < N-1`, `1 < j < N-1` (the suite's bounds: rows and columns 0 and 1 stay fixed).
//!
//! Input: REC Table 3 (rec.md §4.3) gives J2D as 128 MB; with the suite's two grids (suite
//! default N = 1000, TSTEPS = 20) that is N = 4096 (exactly 128 MiB), TSTEPS = 20 kept.
//! Rule 1 of `crate::scale` (two dimensions, multiple of 32): N = 2048, 32 MiB. Rule 2 does
//! not apply: a `coda-4gpu` run of that input (40 launches over the grid) took 55.8 s of
//! host CPU time on an idle machine (BENCHMARKS.md, 2026-11-29; an earlier estimate on a
//! loaded machine had halved it to N = 1024).

use super::common::{bad, blocks, host, kinfo, prologue, side, MIB};
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "jacobi2d",
    suite: "PolyBench/GPU",
    category: "-",
    about: "2-D Jacobi: per step runJacobiCUDA_kernel1 (5-point stencil A->B) + runJacobiCUDA_kernel2 (copy B->A), 32x8 blocks; footprint 32.0 MiB",
    params: &[
        ParamSpec {
            name: "n",
            default: "2048",
            help: "grid side N (multiple of 32)",
        },
        ParamSpec {
            name: "tsteps",
            default: "20",
            help: "time steps (two launches each)",
        },
    ],
    build,
};

/// The paper input's side (REC: 128 MB).
pub const PAPER_N: u64 = 4096;
/// Rule 2's halvings of the rule-1 dimensions (`crate::scale`).
pub const HALVINGS: u32 = 0;
/// Bytes the suite's host allocates on the device for an input of these dimensions.
pub fn footprint(n: u64) -> u64 {
    2 * 4 * n * n
}
const _: () = assert!(2 * 4 * PAPER_N * PAPER_N == 128 * MIB);

/// One of the two kernels of a time step.
struct Jacobi {
    a: ObjId,
    b: ObjId,
    n: u64,
    /// `false`: kernel1 (stencil), `true`: kernel2 (copy back).
    copy: bool,
}

impl Kernel for Jacobi {
    fn info(&self) -> KernelInfo {
        let name = if self.copy {
            "runJacobiCUDA_kernel2"
        } else {
            "runJacobiCUDA_kernel1"
        };
        kinfo(
            name,
            Dim3::new(blocks(self.n, 32), blocks(self.n, 8), 1),
            Dim3::new(32, 8, 1),
            14,
        )
    }
    /// Per thread: entry `MOV; S2R x4; IMAD x2; ISETP x4; EXIT` (12); `IMAD` of `i*N+j` and
    /// the two addresses (`IMAD.WIDE` x2; the neighbours are at constant offsets). Kernel1:
    /// `LDG` x5, `FADD` x4, `FMUL`, `STG`; kernel2: `LDG`, `STG`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let (j, i, n) = (t.gx(), t.gy(), self.n);
        prologue(t, 4, 5);
        if !(i > 1 && i < n - 1 && j > 1 && j < n - 1) {
            return;
        }
        t.alu(3);
        let c = i * n + j;
        if self.copy {
            let v: f32 = t.ld(self.b, c);
            t.st(self.a, c, v);
        } else {
            let v0: f32 = t.ld(self.a, c);
            let v1: f32 = t.ld(self.a, c - 1);
            let v2: f32 = t.ld(self.a, c + 1);
            let v3: f32 = t.ld(self.a, c + n);
            let v4: f32 = t.ld(self.a, c - n);
            t.fp(5);
            t.st(self.b, c, 0.2f32 * (v0 + v1 + v2 + v3 + v4));
        }
    }
}

/// Host reference of one time step (the suite's `runJacobi2DCpu` body).
#[cfg(test)]
pub(crate) fn step_ref(a: &mut [f32], b: &mut [f32], n: usize) {
    for i in 2..n - 1 {
        for j in 2..n - 1 {
            let c = i * n + j;
            b[c] = 0.2f32 * (a[c] + a[c - 1] + a[c + 1] + a[c + n] + a[c - n]);
        }
    }
    for i in 2..n - 1 {
        for j in 2..n - 1 {
            a[i * n + j] = b[i * n + j];
        }
    }
}

/// jacobi2D.cu's `init_array`: `A = (i*(j+2) + 10) / N`, `B = ((i-4)*(j-1) + 11) / N`.
pub(crate) fn init(n: u64) -> (Vec<f32>, Vec<f32>) {
    let a = (0..n * n)
        .map(|q| ((q / n) as f32 * ((q % n) + 2) as f32 + 10.0) / n as f32)
        .collect();
    let b = (0..n * n)
        .map(|q| {
            let (i, j) = ((q / n) as i64, (q % n) as i64);
            ((i - 4) as f32 * (j - 1) as f32 + 11.0) / n as f32
        })
        .collect();
    (a, b)
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = side(p, "jacobi2d", "n", 2048, 32)?;
    let tsteps = p.u64("tsteps", 20)?;
    if n * n > 1 << 26 {
        return Err(bad("jacobi2d: n * n must be at most 2^26".into()));
    }
    if tsteps == 0 {
        return Err(bad("jacobi2d: --param tsteps must be at least 1".into()));
    }
    let (av, bv) = init(n);
    let mut m = Memory::new();
    let a = m.alloc_from("A", &av, false);
    let b = m.alloc_from("B", &bv, false);
    let mut launch = 0u64;
    let h = host(move |_m: &mut Memory| {
        if launch >= 2 * tsteps {
            return None;
        }
        let copy = launch % 2 == 1;
        launch += 1;
        Some(Box::new(Jacobi { a, b, n, copy }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("jacobi2d", m, h))
}
