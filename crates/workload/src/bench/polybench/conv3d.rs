//! PolyBench/GPU `3DCONV` (`CUDA/3DCONV/3DConvolution.cu`): a 3x3x3-neighbourhood
//! convolution of an NI x NJ x NK row-major float volume; the host launches
//! `convolution3D_kernel` once per plane `i = 1 .. NI-2`, each a 2-D grid over the plane
//! (`k` from x, `j` from y, 32x8 blocks). The kernel's sum is the suite's as written: 15
//! terms of which six repeat two addresses (`A[i-1][j-1][k-1]` three times,
//! `A[i+1][j-1][k-1]` three times), so the compiled kernel loads 11 distinct elements.
//!
//! Input: NUBA Table 2 (nuba.md §6.3) lists 3DCONV at 1,074 MB (suite default 256^3, 128 MiB);
//! with the suite's two cubes that is NI = NJ = NK = 512 (1 GiB). Rule 1 of `crate::scale`
//! (three dimensions, multiple of 32): 160^3, 31.3 MiB. Rule 2 did not apply.

use super::common::{bad, blocks, host, kinfo, prologue, side};
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "3dconv",
    suite: "PolyBench/GPU",
    category: "-",
    about: "3-D convolution, one convolution3D_kernel launch per plane i, 32x8 blocks over (k, j); footprint 31.2 MiB",
    params: &[ParamSpec {
        name: "n",
        default: "160",
        help: "NI = NJ = NK, the side of the volume (multiple of 32)",
    }],
    build,
};

/// The paper input's side (NUBA: 1,074 MB).
pub const PAPER_N: u64 = 512;
/// Bytes the suite's host allocates on the device for an input of these dimensions.
pub fn footprint(n: u64) -> u64 {
    2 * 4 * n * n * n
}

/// The 15 terms of the kernel's sum in source order: coefficient and offsets (di, dj, dk).
pub(crate) const TERMS: [(f32, i64, i64, i64); 15] = [
    (2.0, -1, -1, -1),
    (4.0, 1, -1, -1),
    (5.0, -1, -1, -1),
    (7.0, 1, -1, -1),
    (-8.0, -1, -1, -1),
    (10.0, 1, -1, -1),
    (-3.0, 0, -1, 0),
    (6.0, 0, 0, 0),
    (-9.0, 0, 1, 0),
    (2.0, -1, -1, 1),
    (4.0, 1, -1, 1),
    (5.0, -1, 0, 1),
    (7.0, 1, 0, 1),
    (-8.0, -1, 1, 1),
    (10.0, 1, 1, 1),
];

struct Conv3D {
    a: ObjId,
    b: ObjId,
    n: u64,
    i: u64,
}

impl Kernel for Conv3D {
    fn info(&self) -> KernelInfo {
        kinfo(
            "convolution3D_kernel",
            Dim3::new(blocks(self.n, 32), blocks(self.n, 8), 1),
            Dim3::new(32, 8, 1),
            24,
        )
    }
    /// Per thread: entry `MOV; S2R x4; IMAD x2; ULDC i; ISETP x6; EXIT` (15); the centre
    /// index and the two bases (`IMAD x2; IMAD.WIDE x2`; every tap is at a constant offset);
    /// `LDG` x11 (the distinct addresses, first-use order); `FMUL` + `FFMA` x14; `STG`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let (k, j, i, n) = (t.gx() as i64, t.gy() as i64, self.i as i64, self.n as i64);
        prologue(t, 4, 8);
        if !(i < n - 1 && j < n - 1 && k < n - 1 && i > 0 && j > 0 && k > 0) {
            return;
        }
        t.alu(4);
        let at = |d: (i64, i64, i64)| (((i + d.0) * n + j + d.1) * n + k + d.2) as u64;
        let mut seen: [(u64, f32); 11] = [(u64::MAX, 0.0); 11];
        let mut ns = 0;
        for &(_, di, dj, dk) in &TERMS {
            let q = at((di, dj, dk));
            if !seen[..ns].iter().any(|s| s.0 == q) {
                let v: f32 = t.ld(self.a, q);
                seen[ns] = (q, v);
                ns += 1;
            }
        }
        debug_assert_eq!(ns, 11);
        t.fp(15);
        let val = |q: u64| seen[..ns].iter().find(|s| s.0 == q).unwrap().1;
        let mut s = 0f32;
        for (x, &(c, di, dj, dk)) in TERMS.iter().enumerate() {
            let v = c * val(at((di, dj, dk)));
            s = if x == 0 { v } else { s + v };
        }
        t.st(self.b, at((0, 0, 0)), s);
    }
}

/// Host reference (the kernel's sum over the interior, same order).
#[cfg(test)]
pub(crate) fn reference(a: &[f32], n: usize) -> Vec<f32> {
    let mut b = vec![0f32; n * n * n];
    let n_ = n as i64;
    for i in 1..n_ - 1 {
        for j in 1..n_ - 1 {
            for k in 1..n_ - 1 {
                let at =
                    |di: i64, dj: i64, dk: i64| (((i + di) * n_ + j + dj) * n_ + k + dk) as usize;
                let mut s = 0f32;
                for (x, &(c, di, dj, dk)) in TERMS.iter().enumerate() {
                    let v = c * a[at(di, dj, dk)];
                    s = if x == 0 { v } else { s + v };
                }
                b[at(0, 0, 0)] = s;
            }
        }
    }
    b
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = side(p, "3dconv", "n", 160, 32)?;
    if n * n * n > 1 << 27 {
        return Err(bad("3dconv: n^3 must be at most 2^27".into()));
    }
    // 3DConvolution.cu's init: A[i][j][k] = i%12 + 2*(j%7) + 3*(k%13); B from an
    // uninitialised host buffer (zero here)
    let av: Vec<f32> = (0..n * n * n)
        .map(|q| {
            let (i, j, k) = (q / (n * n), (q / n) % n, q % n);
            (i % 12 + 2 * (j % 7) + 3 * (k % 13)) as f32
        })
        .collect();
    let mut m = Memory::new();
    let a = m.alloc_from("A", &av, true);
    let b = m.alloc::<f32>("B", n * n * n, false);
    let mut i = 1u64;
    let h = host(move |_m: &mut Memory| {
        if i + 1 >= n {
            return None;
        }
        i += 1;
        Some(Box::new(Conv3D { a, b, n, i: i - 1 }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("3dconv", m, h))
}
