//! PolyBench/GPU `2DCONV` (`CUDA/2DCONV/2DConvolution.cu`): one launch of
//! `Convolution2D_kernel`, a 3x3 convolution `B[i][j] = sum c * A[i+di][j+dj]` with constant
//! coefficients over the interior of an NI x NJ row-major float image, one thread per output
//! (`j` from x, `i` from y), 32x8 thread blocks.
//!
//! Input: REC Table 3 (rec.md §4.3) gives C2D as 512 MB; with the suite's two square images
//! (suite default 4096 x 4096) that is NI = NJ = 8192 (exactly 512 MiB; NUBA Table 2 lists
//! 1,074 MB, twice that; REC's figure is the one used here). Rule 1 of
//! `crate::scale` (two dimensions, multiple of the 32-wide block): 2048 x 2048, 32 MiB.
//! Rule 2 did not apply.

use super::common::{bad, blocks, kinfo, prologue, seq, side, MIB};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "2dconv",
    suite: "PolyBench/GPU",
    category: "-",
    about: "3x3 2-D convolution, one thread per pixel, 32x8 blocks (Convolution2D_kernel); footprint 32.0 MiB",
    params: &[
        ParamSpec {
            name: "ni",
            default: "2048",
            help: "image rows (multiple of 8)",
        },
        ParamSpec {
            name: "nj",
            default: "2048",
            help: "image columns (multiple of 32)",
        },
    ],
    build,
};

/// The paper input's side (REC: 512 MB).
pub const PAPER_N: u64 = 8192;
/// Bytes the suite's host allocates on the device for an input of these dimensions.
pub fn footprint(ni: u64, nj: u64) -> u64 {
    2 * 4 * ni * nj
}
const _: () = assert!(2 * 4 * PAPER_N * PAPER_N == 512 * MIB);

/// The kernel's coefficients `c11, c21, c31, c12, c22, c32, c13, c23, c33` in the order its
/// sum reads `A[i-1][j-1], A[i-1][j], A[i-1][j+1], A[i][j-1], .., A[i+1][j+1]`.
pub(crate) const COEF: [f32; 9] = [0.2, 0.5, -0.8, -0.3, 0.6, -0.9, 0.4, 0.7, 0.10];

struct Conv2D {
    a: ObjId,
    b: ObjId,
    ni: u64,
    nj: u64,
}

impl Kernel for Conv2D {
    fn info(&self) -> KernelInfo {
        kinfo(
            "Convolution2D_kernel",
            Dim3::new(blocks(self.nj, 32), blocks(self.ni, 8), 1),
            Dim3::new(32, 8, 1),
            20,
        )
    }
    /// Per thread: entry `MOV; S2R x4; IMAD x2` and the four-way bound test (`ISETP` x4,
    /// `EXIT`) (12); the centre index and the two base addresses (`IMAD; IMAD.WIDE x2`; the
    /// nine taps are at constant offsets since NJ is a compile-time constant); `LDG` x9;
    /// `FMUL` + `FFMA` x8; `STG`. 32 instructions, 10 of them memory.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let (j, i) = (t.gx(), t.gy());
        prologue(t, 4, 5);
        if !(i > 0 && j > 0 && i < self.ni - 1 && j < self.nj - 1) {
            return;
        }
        t.alu(3);
        let nj = self.nj;
        let mut v = [0f32; 9];
        for (q, x) in v.iter_mut().enumerate() {
            let (di, dj) = (q as u64 / 3, q as u64 % 3);
            *x = t.ld(self.a, (i + di - 1) * nj + j + dj - 1);
        }
        t.fp(9);
        let mut s = COEF[0] * v[0];
        for q in 1..9 {
            s += COEF[q] * v[q];
        }
        t.st(self.b, i * nj + j, s);
    }
}

/// Host reference (the suite's `conv2D`, same summation order as the kernel).
#[cfg(test)]
pub(crate) fn reference(a: &[f32], ni: usize, nj: usize) -> Vec<f32> {
    let mut b = vec![0f32; ni * nj];
    for i in 1..ni - 1 {
        for j in 1..nj - 1 {
            let at = |q: usize| a[(i + q / 3 - 1) * nj + j + q % 3 - 1];
            let mut s = COEF[0] * at(0);
            for (q, c) in COEF.iter().enumerate().skip(1) {
                s += c * at(q);
            }
            b[i * nj + j] = s;
        }
    }
    b
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let ni = side(p, "2dconv", "ni", 2048, 8)?;
    let nj = side(p, "2dconv", "nj", 2048, 32)?;
    if ni * nj > 1 << 28 {
        return Err(bad("2dconv: ni * nj must be at most 2^28".into()));
    }
    // the suite's init: A[i][j] = rand() / RAND_MAX
    let mut rng = Rng::new(p.seed);
    let av: Vec<f32> = (0..ni * nj).map(|_| rng.f32()).collect();
    let mut m = Memory::new();
    let a = m.alloc_from("A", &av, true);
    let b = m.alloc::<f32>("B", ni * nj, false);
    Ok(ModelWorkload::new(
        "2dconv",
        m,
        seq(vec![Box::new(Conv2D { a, b, ni, nj })]),
    ))
}
