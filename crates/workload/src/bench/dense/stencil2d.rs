//! 2-D 5-point Jacobi stencil: one thread per cell over a 2-D grid of 16x16 blocks,
//! `out = 0.2 * (c + n + s + w + e)` on interior cells (boundary cells copied), ping-pong
//! buffers swapped by the host between iterations (pointer swap, as Rodinia hotspot does).

use super::common::{bad, entry, host, kinfo};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "stencil2d",
    suite: "Locus",
    category: "-",
    about: "2-D 5-point Jacobi over a float grid, 16x16 blocks, ping-pong buffers",
    params: &[
        ParamSpec {
            name: "n",
            default: "1536",
            help: "grid side (cells; multiple of 16)",
        },
        ParamSpec {
            name: "iterations",
            default: "3",
            help: "Jacobi sweeps (one launch each)",
        },
    ],
    build,
};

/// One Jacobi sweep `src -> dst`.
struct Jacobi {
    src: ObjId,
    dst: ObjId,
    n: u64,
}

impl Kernel for Jacobi {
    fn info(&self) -> KernelInfo {
        let g = (self.n / 16) as u32;
        kinfo("jacobi5", Dim3::new(g, g, 1), Dim3::new(16, 16, 1), 14, 0)
    }
    /// Per thread, what nvcc emits for this 5-point Jacobi sweep (sm_70+ SASS, issue 7 §1
    /// counting; a Locus kernel, no public source): entry `MOV; S2R x4`, `IMAD` x3 (`x`,
    /// `y`, `y*n+x`), the source addresses of the centre and of the north and south
    /// neighbours (`IMAD.WIDE` x3; west and east are at constant offsets, 0), the border test
    /// (`ISETP` x4 chained) and its `BRA` (16); `LDG` of the centre; border cells: the
    /// destination address, `STG`, `EXIT`; interior cells: `LDG` x4, `FADD` x4, `FMUL`,
    /// the destination address, `STG`, `EXIT`. Interior: 29 instructions, 6 of them memory.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let (x, y, n) = (t.gx(), t.gy(), self.n);
        let c = y * n + x;
        entry(t, 4, 6);
        t.alu(4);
        t.branch(1);
        let v: f32 = t.ld(self.src, c);
        if x == 0 || y == 0 || x == n - 1 || y == n - 1 {
            t.alu(1);
            t.st(self.dst, c, v);
            return;
        }
        let vn: f32 = t.ld(self.src, c - n);
        let vs: f32 = t.ld(self.src, c + n);
        let vw: f32 = t.ld(self.src, c - 1);
        let ve: f32 = t.ld(self.src, c + 1);
        t.fp(5);
        t.alu(1);
        t.st(self.dst, c, 0.2 * (v + vn + vs + vw + ve));
    }
}

/// Host reference of one sweep (used by tests).
#[cfg(test)]
pub(crate) fn jacobi_ref(src: &[f32], n: usize) -> Vec<f32> {
    let mut out = src.to_vec();
    for y in 1..n - 1 {
        for x in 1..n - 1 {
            let c = y * n + x;
            out[c] = 0.2 * (src[c] + src[c - n] + src[c + n] + src[c - 1] + src[c + 1]);
        }
    }
    out
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("n", 1536)?;
    let iterations = p.u64("iterations", 3)?;
    if n < 16 || n % 16 != 0 {
        return Err(bad("stencil2d: n must be a multiple of 16 (>= 16)".into()));
    }
    let mut rng = Rng::new(p.seed);
    let init: Vec<f32> = (0..n * n).map(|_| rng.f32()).collect();
    let mut m = Memory::new();
    let a = m.alloc_from("grid_a", &init, false);
    let b = m.alloc::<f32>("grid_b", n * n, false);
    let mut it = 0u64;
    let h = host(move |_m: &mut Memory| {
        if it >= iterations {
            return None;
        }
        let (src, dst) = if it & 1 == 0 { (a, b) } else { (b, a) };
        it += 1;
        Some(Box::new(Jacobi { src, dst, n }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("stencil2d", m, h))
}
