//! PolyBench/GPU `gemver` (`CUDA/GEMVER/gemver.cu`): three launches,
//! `gemver_kernel1` (`A[i][j] += u1[i]*v1[j] + u2[i]*v2[j]`, one thread per element, 32x8
//! blocks), `gemver_kernel2` (`x[i] += BETA * A[j][i] * y[j]` over j, then `x[i] += z[i]`:
//! one thread per column of A, coalesced, 256x1 blocks) and `gemver_kernel3`
//! (`w[i] += ALPHA * A[i][j] * x[j]`: one thread per row, 32 lines per warp load, 256x1).
//! The host also allocates and copies an N x N matrix `B` that no kernel touches; it is
//! allocated here too (it counts in the footprint, never in the traffic).
//!
//! Input: REC Table 3 (rec.md §4.3) gives GEMV (= PolyBench gemver, rec.md §7 item 23) as
//! 256 MB; with the suite's two N x N matrices (suite default N = 4096) that is N = 5792
//! (2 x 5792^2 floats = 256 MiB; the 8 vectors add 185 kB). Rule 1 of `crate::scale` (two
//! dimensions, multiple of the 256-thread block; the suite's grid is `N / 256` truncated):
//! 1792, 24.5 MiB. Rule 2 did not apply.

use super::common::{bad, blocks, kinfo, prologue, seq, side, MatVec, MIB};
use super::gemm::init_mat;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "gemver",
    suite: "PolyBench/GPU",
    category: "-",
    about: "A += u1 v1^T + u2 v2^T; x = BETA A^T y + z; w = ALPHA A x: gemver_kernel1 (32x8), gemver_kernel2, gemver_kernel3 (256x1); footprint 24.6 MiB",
    params: &[ParamSpec {
        name: "n",
        default: "1792",
        help: "N, the side of A (multiple of 256)",
    }],
    build,
};

/// The paper input's side (REC: 256 MB).
pub const PAPER_N: u64 = 5792;
/// Bytes the suite's host allocates on the device for an input of these dimensions.
pub fn footprint(n: u64) -> u64 {
    4 * (2 * n * n + 8 * n)
}
const _: () = assert!(2 * 4 * PAPER_N * PAPER_N <= 256 * MIB);

/// `ALPHA` and `BETA` of gemver.cu.
pub(crate) const ALPHA: f32 = 43532.0;
pub(crate) const BETA: f32 = 12313.0;

/// `gemver_kernel1`: the rank-2 update of A.
struct Gemver1 {
    a: ObjId,
    v1: ObjId,
    v2: ObjId,
    u1: ObjId,
    u2: ObjId,
    n: u64,
}

impl Kernel for Gemver1 {
    fn info(&self) -> KernelInfo {
        kinfo(
            "gemver_kernel1",
            Dim3::new(blocks(self.n, 32), blocks(self.n, 8), 1),
            Dim3::new(32, 8, 1),
            16,
        )
    }
    /// Per thread: entry `MOV; S2R x4; IMAD x2; ISETP x2; EXIT` (10); `IMAD` of `i*N+j` and
    /// five addresses (`IMAD.WIDE` x5); `LDG` x5 (`a`, `u1[i]` broadcast, `v1[j]`, `u2[i]`,
    /// `v2[j]`); `FMUL; FFMA; FADD`; `STG`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let (j, i) = (t.gx(), t.gy());
        prologue(t, 4, 3);
        if i >= self.n || j >= self.n {
            return;
        }
        t.alu(6);
        let o = i * self.n + j;
        let a: f32 = t.ld(self.a, o);
        let u1: f32 = t.ld(self.u1, i);
        let v1: f32 = t.ld(self.v1, j);
        let u2: f32 = t.ld(self.u2, i);
        let v2: f32 = t.ld(self.v2, j);
        t.fp(3);
        t.st(self.a, o, a + (u1 * v1 + u2 * v2));
    }
}

/// gemver.cu's `init`: `u1[i] = i`, and with C's integer division `(i+1)/N` (0 except for
/// the last element): `u2 = (i+1)/N/2`, `v1 = /4`, `v2 = /6`, `y = /8`, `z = /9`; x = w = 0;
/// `A[i][j] = i*j/N`. Returns `[u1, u2, v1, v2, y, z]`.
pub(crate) fn init_vectors(n: u64) -> [Vec<f32>; 6] {
    let q = |d: f32| -> Vec<f32> { (0..n).map(|i| ((i + 1) / n) as f32 / d).collect() };
    [
        (0..n).map(|i| i as f32).collect(),
        q(2.0),
        q(4.0),
        q(6.0),
        q(8.0),
        q(9.0),
    ]
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = side(p, "gemver", "n", 1792, 256)?;
    if n * n > 1 << 26 {
        return Err(bad("gemver: n * n must be at most 2^26".into()));
    }
    let [u1v, u2v, v1v, v2v, yv, zv] = init_vectors(n);
    let mut m = Memory::new();
    let a = m.alloc_from("A", &init_mat(n, n, 0, 0.0, n), false);
    let _b = m.alloc::<f32>("B", n * n, true);
    let x = m.alloc::<f32>("x", n, false);
    let y = m.alloc_from("y", &yv, true);
    let z = m.alloc_from("z", &zv, true);
    let w = m.alloc::<f32>("w", n, false);
    let v1 = m.alloc_from("v1", &v1v, true);
    let v2 = m.alloc_from("v2", &v2v, true);
    let u1 = m.alloc_from("u1", &u1v, true);
    let u2 = m.alloc_from("u2", &u2v, true);
    let k1 = Gemver1 {
        a,
        v1,
        v2,
        u1,
        u2,
        n,
    };
    let k2 = MatVec {
        name: "gemver_kernel2",
        threads: n,
        len: n,
        stride: n,
        m: a,
        column: true,
        v: y,
        out: x,
        zero_first: false,
        scale: Some(BETA),
        add_after: Some(z),
    };
    let k3 = MatVec {
        name: "gemver_kernel3",
        threads: n,
        len: n,
        stride: n,
        m: a,
        column: false,
        v: x,
        out: w,
        zero_first: false,
        scale: Some(ALPHA),
        add_after: None,
    };
    Ok(ModelWorkload::new(
        "gemver",
        m,
        seq(vec![Box::new(k1), Box::new(k2), Box::new(k3)]),
    ))
}
