//! Gaussian elimination (Rodinia `gaussian`): for each pivot step `t`, `Fan1` (1-D, 512
//! threads per block) computes the multipliers `m[i][t] = a[i][t] / a[t][t]` of the rows
//! below the pivot and `Fan2` (2-D grid of 4x4-thread blocks over the whole matrix, x = row,
//! y = column) updates `a[i][j] -= m[i][t] * a[t][j]` and `b[i] -= m[i][t] * b[t]`. The pivot
//! row `a[t][*]` is read by every block. The host back-substitutes at the end. Only the first
//! `steps` pivot steps are launched by default (spec A28), all of them when `steps >= n-1`.
//! CODA Table 2: core-exclusive; with `n/4` a multiple of 128 (4 GPUs x 32 blocks per GPU),
//! every block of a row group maps to one GPU under Eq. 1.

use super::common::{bad, host, kinfo, prologue};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "ge",
    suite: "Rodinia",
    category: "core-exclusive",
    about: "Gaussian elimination: Fan1 (512 thr) + Fan2 (4x4 thr) per pivot step",
    params: &[
        ParamSpec {
            name: "n",
            default: "1536",
            help: "matrix size (Size)",
        },
        ParamSpec {
            name: "steps",
            default: "2",
            help: "pivot steps launched (n-1 = full solve)",
        },
    ],
    build,
};

const MAXBLOCKSIZE: u32 = 512;
const BLOCK_XY: u32 = 4;

/// `Fan1(m, a, Size, t)`.
struct Fan1 {
    m: ObjId,
    a: ObjId,
    size: u64,
    t: u64,
}

impl Kernel for Fan1 {
    fn info(&self) -> KernelInfo {
        let g = self.size.div_ceil(MAXBLOCKSIZE as u64) as u32;
        kinfo("Fan1", Dim3::x(g), Dim3::x(MAXBLOCKSIZE), 10, 0)
    }
    /// Per thread, the instructions of Rodinia gaussian `Fan1` (sm_70+ SASS, issue 7 §1
    /// counting): entry `MOV; S2R x2; IMAD`, `ULDC` and `IADD3` of `Size-1-t`, `ISETP;
    /// EXIT` (8); the row, the three addresses (`IADD3; IMAD` x3; `IMAD.WIDE` x2 sharing the
    /// offset of the `m_cuda` store: 6), `LDG` x2, the division (`MUFU.RCP` + 4 fp of the
    /// Newton fix-up), `STG`, `EXIT`: 23 instructions, 3 of them memory.
    fn thread(&self, th: &mut Thread<'_>, _phase: u32) {
        let (s, t) = (self.size, self.t);
        let g = th.gx();
        prologue(th, 2, 3);
        if g >= s - 1 - t {
            return;
        }
        th.alu(6);
        let row = g + t + 1;
        let v: f32 = th.ld(self.a, s * row + t);
        let piv: f32 = th.ld(self.a, s * t + t);
        th.sfu(1);
        th.fp(4);
        th.st(self.m, s * row + t, v / piv);
    }
}

/// `Fan2(m, a, b, Size, Size, t)`.
struct Fan2 {
    m: ObjId,
    a: ObjId,
    b: ObjId,
    size: u64,
    t: u64,
}

impl Kernel for Fan2 {
    fn info(&self) -> KernelInfo {
        let g = self.size.div_ceil(BLOCK_XY as u64) as u32;
        kinfo(
            "Fan2",
            Dim3::new(g, g, 1),
            Dim3::new(BLOCK_XY, BLOCK_XY, 1),
            12,
            0,
        )
    }
    /// Per thread, the instructions of Rodinia gaussian `Fan2` (sm_70+ SASS, issue 7 §1
    /// counting): entry `MOV; S2R x4; IMAD x2`, `ULDC`, `IADD3` x2 (`Size-1-t`, `Size-t`),
    /// two `ISETP; EXIT` pairs (14); the row and the three addresses (7), `LDG` x3, `FFMA`,
    /// `STG`; the `yidx == 0` test (`ISETP; BRA`) and for those threads three addresses,
    /// `LDG` x3, `FFMA`, `STG`; `EXIT`. 29 instructions (37 where `yidx == 0`), 4 (8) of
    /// them memory.
    fn thread(&self, th: &mut Thread<'_>, _phase: u32) {
        let (s, t) = (self.size, self.t);
        let (x, y) = (th.gx(), th.gy());
        prologue(th, 4, 5);
        th.alu(1);
        th.branch(1);
        if x >= s - 1 - t || y >= s - t {
            return;
        }
        th.alu(7);
        let row = x + 1 + t;
        let mv: f32 = th.ld(self.m, s * row + t);
        let piv: f32 = th.ld(self.a, s * t + (y + t));
        let av: f32 = th.ld(self.a, s * row + (y + t));
        th.fp(1);
        th.st(self.a, s * row + (y + t), av - mv * piv);
        th.alu(1);
        th.branch(1);
        if y == 0 {
            th.alu(3);
            let mv: f32 = th.ld(self.m, s * row + t);
            let bt: f32 = th.ld(self.b, t);
            let br: f32 = th.ld(self.b, row);
            th.fp(1);
            th.st(self.b, row, br - mv * bt);
        }
    }
}

/// A random, strictly diagonally dominant system (no pivoting needed, like Rodinia's
/// generated matrices) and its right-hand side.
pub(crate) fn ge_system(rng: &mut Rng, n: usize) -> (Vec<f32>, Vec<f32>) {
    let mut a: Vec<f32> = (0..n * n).map(|_| rng.f32() - 0.5).collect();
    for i in 0..n {
        a[i * n + i] = n as f32 * 0.5 + 1.0;
    }
    let b: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
    (a, b)
}

#[cfg(test)]
/// Host `BackSub` of Rodinia: solve the upper-triangular system left in `a`, `b`.
pub(crate) fn back_sub(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    let mut x = vec![0.0f32; n];
    for i in (0..n).rev() {
        let mut s = b[i];
        for j in i + 1..n {
            s -= a[i * n + j] * x[j];
        }
        x[i] = s / a[i * n + i];
    }
    x
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("n", 1536)?;
    let steps = p.u64("steps", 2)?.min(n.saturating_sub(1));
    if n < 2 {
        return Err(bad("ge: n must be >= 2".into()));
    }
    let mut rng = Rng::new(p.seed);
    let (av, bv) = ge_system(&mut rng, n as usize);
    let mut mem = Memory::new();
    let m = mem.alloc::<f32>("m_cuda", n * n, false);
    let a = mem.alloc_from("a_cuda", &av, false);
    let b = mem.alloc_from("b_cuda", &bv, false);
    let mut launch = 0u64;
    let h = host(move |_m: &mut Memory| {
        if launch >= 2 * steps {
            return None;
        }
        let t = launch / 2;
        let k: Box<dyn Kernel> = if launch & 1 == 0 {
            Box::new(Fan1 { m, a, size: n, t })
        } else {
            Box::new(Fan2 {
                m,
                a,
                b,
                size: n,
                t,
            })
        };
        launch += 1;
        Some(k)
    });
    Ok(ModelWorkload::new("ge", mem, h))
}
