//! PolyBench/GPU `lu` (`CUDA/LU/lu.cu`): in-place LU decomposition of an N x N row-major
//! float matrix; the host loops `k = 0 .. N-1` and launches, per k, `lu_kernel1` (row k:
//! `A[k][j] /= A[k][k]` for `j > k`, 256x1 blocks) and `lu_kernel2` (the trailing update
//! `A[i][j] -= A[i][k] * A[k][j]` for `i, j > k`, 32x8 blocks).
//!
//! The suite's host sizes both grids from `N - (k+1)` while the kernels index from 0 and
//! test `j > k` (and `i > k`): launch k covers columns (rows) below
//! `ceil((N-k-1)/block) * block` only, so past about `k = N/2` the launched threads all fail
//! the bound test and the trailing matrix is left as is (the suite reports the mismatch
//! against its CPU LU). The model launches exactly those grids (and so computes what the
//! GPU computes: `reference` below). At `k = N-1` both grids are empty, an invalid launch
//! configuration that CUDA refuses without effect; the model skips it: 2(N-1) launches.
//!
//! Input: REC Table 3 (rec.md §4.3) gives LU as 128 MB (rec.md notes it needs porting to
//! MGPUSim); with the suite's one matrix (suite default N = 2048) that is N = 5792 (5792^2
//! floats <= 128 MiB). Rule 1 of `crate::scale` (two dimensions, multiple of the 32-wide
//! block; both grids round up): 2880, 31.6 MiB. Rule 2 applied (O(N^3) threads over 2N
//! launches): halved twice to 704, 1.9 MiB (a `coda-4gpu` run takes 26 s of host CPU time;
//! at 1440 it would take about 8 times that).

use super::common::{bad, blocks, host, kinfo, prologue, side, MIB};
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "lu",
    suite: "PolyBench/GPU",
    category: "-",
    about: "LU decomposition: per k, lu_kernel1 (row scale, 256x1) + lu_kernel2 (trailing update, 32x8), grids sized N-k-1 as the suite's host does; footprint 1.9 MiB",
    params: &[ParamSpec {
        name: "n",
        default: "704",
        help: "N, the side of A (multiple of 32)",
    }],
    build,
};

/// The paper input's side (REC: 128 MB).
pub const PAPER_N: u64 = 5792;
/// Rule 2's halvings of the rule-1 dimensions (`crate::scale`).
pub const HALVINGS: u32 = 2;
/// Bytes the suite's host allocates on the device for an input of these dimensions.
pub fn footprint(n: u64) -> u64 {
    4 * n * n
}
const _: () = assert!(4 * PAPER_N * PAPER_N <= 128 * MIB);

/// `lu_kernel1` (`row`) or `lu_kernel2` for step `k`.
struct Lu {
    a: ObjId,
    n: u64,
    k: u64,
    row: bool,
}

impl Kernel for Lu {
    fn info(&self) -> KernelInfo {
        let rest = self.n - (self.k + 1);
        if self.row {
            kinfo("lu_kernel1", Dim3::x(blocks(rest, 256)), Dim3::x(256), 12)
        } else {
            kinfo(
                "lu_kernel2",
                Dim3::new(blocks(rest, 32), blocks(rest, 8), 1),
                Dim3::new(32, 8, 1),
                14,
            )
        }
    }
    /// Per thread. Kernel1: entry `MOV; S2R x2; IMAD; ULDC k; ISETP x2; EXIT` (8); the two
    /// addresses (`IMAD x2; IMAD.WIDE x2`); `LDG A[k][j]`, `LDG A[k][k]` (broadcast); the
    /// IEEE division (`MUFU.RCP` + 4 fp); `STG`. Kernel2: entry `MOV; S2R x4; IMAD x2; ULDC
    /// k; ISETP x4; EXIT` (13); three addresses (`IMAD x2; IMAD.WIDE x3`); `LDG A[i][j]`,
    /// `LDG A[i][k]` (broadcast), `LDG A[k][j]`; `FFMA`; `STG`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let (n, k) = (self.n, self.k);
        let j = t.gx();
        if self.row {
            prologue(t, 2, 3);
            if !(j > k && j < n) {
                return;
            }
            t.alu(4);
            let x: f32 = t.ld(self.a, k * n + j);
            let d: f32 = t.ld(self.a, k * n + k);
            t.sfu(1);
            t.fp(4);
            t.st(self.a, k * n + j, x / d);
        } else {
            let i = t.gy();
            prologue(t, 4, 6);
            if !(i > k && j > k && i < n && j < n) {
                return;
            }
            t.alu(5);
            let x: f32 = t.ld(self.a, i * n + j);
            let l: f32 = t.ld(self.a, i * n + k);
            let u: f32 = t.ld(self.a, k * n + j);
            t.fp(1);
            t.st(self.a, i * n + j, x - l * u);
        }
    }
}

/// Host reference of what the suite's GPU code computes (the launched grids' coverage).
#[cfg(test)]
pub(crate) fn reference(a: &mut [f32], n: usize) {
    for k in 0..n - 1 {
        let rest = n - (k + 1);
        let c1 = rest.div_ceil(256) * 256;
        for j in k + 1..n.min(c1) {
            a[k * n + j] /= a[k * n + k];
        }
        let (cx, cy) = (rest.div_ceil(32) * 32, rest.div_ceil(8) * 8);
        for i in k + 1..n.min(cy) {
            for j in k + 1..n.min(cx) {
                a[i * n + j] -= a[i * n + k] * a[k * n + j];
            }
        }
    }
}

/// lu.cu's `init_array`: `A[i][j] = (i*j + 1) / N`.
pub(crate) fn init(n: u64) -> Vec<f32> {
    super::gemm::init_mat(n, n, 0, 1.0, n)
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = side(p, "lu", "n", 704, 32)?;
    if n * n > 1 << 26 {
        return Err(bad("lu: n * n must be at most 2^26".into()));
    }
    let mut m = Memory::new();
    let a = m.alloc_from("A", &init(n), false);
    let mut launch = 0u64;
    let h = host(move |_m: &mut Memory| {
        // k = N-1 launches empty grids (refused by CUDA): stop before it
        if launch >= 2 * (n - 1) {
            return None;
        }
        let (k, row) = (launch / 2, launch.is_multiple_of(2));
        launch += 1;
        Some(Box::new(Lu { a, n, k, row }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("lu", m, h))
}
