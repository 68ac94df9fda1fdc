//! PolyBench/GPU `gesummv` (`CUDA/GESUMMV/gesummv.cu`): `y = ALPHA*A*x + BETA*B*x` as one
//! launch of `gesummv_kernel`, one thread per row (256x1 blocks) walking rows of A and B
//! (32 lines per warp load each): per j, `tmp[i] += a[i*N+j]*x[j]; y[i] += b[i*N+j]*x[j]`,
//! then `y[i] = ALPHA*tmp[i] + BETA*y[i]`. Row-major floats.
//!
//! Input: NUBA Table 2 (nuba.md §6.3) lists GESUMMV at 1,073 MB (suite default N = 4096,
//! 128 MiB); with the suite's two N x N matrices that is N = 11585 (2 x 11585^2 floats =
//! 1,073.7 MB). Rule 1 of `crate::scale` (two dimensions, multiple of the 256-thread block):
//! 1792, 24.5 MiB (the exact factor gives 2047, rounded down to the block multiple). Rule 2
//! did not apply.

use super::common::{bad, blocks, kinfo, prologue, seq, side, unrolled_step};
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "gesummv",
    suite: "PolyBench/GPU",
    category: "-",
    about: "y = ALPHA*A*x + BETA*B*x: gesummv_kernel, row per thread over A and B, 256x1 blocks; footprint 24.5 MiB",
    params: &[ParamSpec {
        name: "n",
        default: "1792",
        help: "N, the side of A and B (multiple of 256)",
    }],
    build,
};

/// The paper input's side (NUBA: 1,073 MB).
pub const PAPER_N: u64 = 11585;
/// Bytes the suite's host allocates on the device for an input of these dimensions.
pub fn footprint(n: u64) -> u64 {
    4 * (2 * n * n + 3 * n)
}

/// `ALPHA` and `BETA` of gesummv.cu.
pub(crate) const ALPHA: f32 = 43532.0;
pub(crate) const BETA: f32 = 12313.0;

struct Gesummv {
    a: ObjId,
    b: ObjId,
    x: ObjId,
    y: ObjId,
    tmp: ObjId,
    n: u64,
}

impl Kernel for Gesummv {
    fn info(&self) -> KernelInfo {
        kinfo(
            "gesummv_kernel",
            Dim3::x(blocks(self.n, 256)),
            Dim3::x(256),
            20,
        )
    }
    /// Per thread: entry `MOV; S2R x2; IMAD; ISETP; EXIT` (6); the row pointers of a and b
    /// (`IMAD; IMAD.WIDE x2`), the addresses of `tmp[i]`, `y[i]` (`IMAD.WIDE x2`) and the x
    /// base (`ULDC`) (6 int). Per j, with no `__restrict__` every store may alias every other
    /// array, so nothing stays in registers: `LDG tmp[i]; LDG a; LDG x[j]; FFMA; STG tmp[i];
    /// LDG y[i]; LDG b; LDG x[j]; FFMA; STG y[i]`; per 4 j: 3 pointer increments, `IADD3;
    /// ISETP; BRA`. After the loop: `LDG tmp[i]; FMUL; FFMA; STG y[i]`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let (i, n) = (t.gx(), self.n);
        prologue(t, 2, 1);
        if i >= n {
            return;
        }
        t.alu(6);
        let mut yv = 0f32;
        for j in 0..n {
            let tv: f32 = t.ld(self.tmp, i);
            let av: f32 = t.ld(self.a, i * n + j);
            let xv: f32 = t.ld(self.x, j);
            t.fp(1);
            t.st(self.tmp, i, tv + av * xv);
            yv = t.ld(self.y, i);
            let bv: f32 = t.ld(self.b, i * n + j);
            let xv: f32 = t.ld(self.x, j);
            t.fp(1);
            yv += bv * xv;
            t.st(self.y, i, yv);
            unrolled_step(t, j, n, 3);
        }
        let tv: f32 = t.ld(self.tmp, i);
        t.fp(2);
        t.st(self.y, i, ALPHA * tv + BETA * yv);
    }
}

/// Host reference (the computation the kernel performs, same order).
#[cfg(test)]
pub(crate) fn reference(a: &[f32], b: &[f32], x: &[f32], n: usize) -> (Vec<f32>, Vec<f32>) {
    let (mut tmp, mut y) = (vec![0f32; n], vec![0f32; n]);
    for i in 0..n {
        for j in 0..n {
            tmp[i] += a[i * n + j] * x[j];
            y[i] += b[i * n + j] * x[j];
        }
        y[i] = ALPHA * tmp[i] + BETA * y[i];
    }
    (tmp, y)
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = side(p, "gesummv", "n", 1792, 256)?;
    if n * n > 1 << 27 {
        return Err(bad("gesummv: n * n must be at most 2^27".into()));
    }
    // gesummv.cu's init: x[i] = i/N, A[i][j] = i*j/N; B, y and tmp are copied from host
    // buffers it never initialises (zero here)
    let xv: Vec<f32> = (0..n).map(|i| i as f32 / n as f32).collect();
    let mut m = Memory::new();
    let a = m.alloc_from("A", &super::gemm::init_mat(n, n, 0, 0.0, n), true);
    let b = m.alloc::<f32>("B", n * n, true);
    let x = m.alloc_from("x", &xv, true);
    let y = m.alloc::<f32>("y", n, false);
    let tmp = m.alloc::<f32>("tmp", n, false);
    let k = Gesummv { a, b, x, y, tmp, n };
    Ok(ModelWorkload::new("gesummv", m, seq(vec![Box::new(k)])))
}
