//! PolyBench/GPU `fdtd2d` (`CUDA/FDTD-2D/fdtd2d.cu`): 2-D finite-difference time domain;
//! per time step `t < tmax` the host launches three kernels over NX x NY with 32x8 blocks
//! (`j` from x, `i` from y): `fdtd_step1_kernel` (`ey[0][j] = _fict_[t]`, else `ey[i][j] -=
//! 0.5f*(hz[i][j] - hz[i-1][j])`), `fdtd_step2_kernel` (`ex[i][j] -= 0.5f*(hz[i][j] -
//! hz[i][j-1])` for `j > 0`, ex with NY+1 columns) and `fdtd_step3_kernel` (`hz[i][j] -=
//! 0.7f*(ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j])`, ey with NX+1 rows). Row-major
//! floats; the host initialises ex and ey with NY columns per row into their wider buffers,
//! as the suite does.
//!
//! Input: NUBA Table 2 (nuba.md §6.3) lists FDTD-2D at 51 MB, the suite default (NX = NY =
//! 2048, tmax = 500: 50.4 MB). Rule 1 of `crate::scale` (two dimensions, multiple of 32):
//! 1664, 31.7 MiB. Rule 2 applied to the work-only dimension first: tmax halved five times
//! (500, 250, 125, 62, 31, 15), NX = NY = 1664 kept. On `coda-4gpu` tmax = 31 ran past 80 s
//! of host CPU time (stopped) and tmax = 15 took 56.2 s (BENCHMARKS.md, 2026-11-29).

use super::common::{bad, blocks, host, kinfo, prologue, side};
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "fdtd2d",
    suite: "PolyBench/GPU",
    category: "-",
    about: "2-D FDTD: per time step fdtd_step1_kernel, fdtd_step2_kernel, fdtd_step3_kernel, 32x8 blocks; footprint 31.7 MiB",
    params: &[
        ParamSpec {
            name: "nx",
            default: "1664",
            help: "rows NX (multiple of 8)",
        },
        ParamSpec {
            name: "ny",
            default: "1664",
            help: "columns NY (multiple of 32)",
        },
        ParamSpec {
            name: "tmax",
            default: "15",
            help: "time steps (three launches each; the suite's 500 halved five times by rule 2)",
        },
    ],
    build,
};

/// The paper input's side (the suite default, NUBA's 51 MB).
pub const PAPER_N: u64 = 2048;
/// The paper input's time steps (the suite default).
pub const PAPER_TMAX: u64 = 500;
/// Rule 2's halvings of the time steps (`crate::scale`; the sides stay rule 1's).
pub const TMAX_HALVINGS: u32 = 5;
/// Bytes the suite's host allocates on the device for an input of these dimensions.
pub fn footprint(nx: u64, ny: u64, tmax: u64) -> u64 {
    4 * (tmax + nx * (ny + 1) + (nx + 1) * ny + nx * ny)
}

struct Fdtd {
    fict: ObjId,
    ex: ObjId,
    ey: ObjId,
    hz: ObjId,
    nx: u64,
    ny: u64,
    t: u64,
    step: u8,
}

impl Kernel for Fdtd {
    fn info(&self) -> KernelInfo {
        let name = match self.step {
            1 => "fdtd_step1_kernel",
            2 => "fdtd_step2_kernel",
            _ => "fdtd_step3_kernel",
        };
        kinfo(
            name,
            Dim3::new(blocks(self.ny, 32), blocks(self.nx, 8), 1),
            Dim3::new(32, 8, 1),
            16,
        )
    }
    /// Per thread (entry `MOV; S2R x4; IMAD x2; ISETP x2 (step 2: x3); EXIT`). Step 1:
    /// `IMAD; IMAD.WIDE` (ey), `ISETP i == 0; BRA`; row 0: `IMAD.WIDE` (`_fict_[t]`), `LDG`,
    /// `STG`; other rows: `IMAD.WIDE` (hz), `LDG ey; LDG hz; LDG hz[i-1]` (constant offset),
    /// `FADD; FFMA`, `STG`. Step 2: `IMAD x2; IMAD.WIDE x2`, `LDG ex; LDG hz; LDG hz[j-1]`,
    /// `FADD; FFMA`, `STG`. Step 3: `IMAD x2; IMAD.WIDE x3`, `LDG` x5, `FADD` x3, `FFMA`, `STG`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let (j, i, ny) = (t.gx(), t.gy(), self.ny);
        let c = i * ny + j;
        let e = i * (ny + 1) + j;
        match self.step {
            1 => {
                prologue(t, 4, 3);
                if i >= self.nx || j >= ny {
                    return;
                }
                t.alu(3);
                t.branch(1);
                if i == 0 {
                    t.alu(1);
                    let f: f32 = t.ld(self.fict, self.t);
                    t.st(self.ey, c, f);
                } else {
                    t.alu(1);
                    let ey: f32 = t.ld(self.ey, c);
                    let h0: f32 = t.ld(self.hz, c);
                    let h1: f32 = t.ld(self.hz, c - ny);
                    t.fp(2);
                    t.st(self.ey, c, ey - 0.5f32 * (h0 - h1));
                }
            }
            2 => {
                prologue(t, 4, 4);
                if !(i < self.nx && j < ny && j > 0) {
                    return;
                }
                t.alu(4);
                let ex: f32 = t.ld(self.ex, e);
                let h0: f32 = t.ld(self.hz, c);
                let h1: f32 = t.ld(self.hz, c - 1);
                t.fp(2);
                t.st(self.ex, e, ex - 0.5f32 * (h0 - h1));
            }
            _ => {
                prologue(t, 4, 3);
                if i >= self.nx || j >= ny {
                    return;
                }
                t.alu(5);
                let hz: f32 = t.ld(self.hz, c);
                let ex1: f32 = t.ld(self.ex, e + 1);
                let ex0: f32 = t.ld(self.ex, e);
                let ey1: f32 = t.ld(self.ey, c + ny);
                let ey0: f32 = t.ld(self.ey, c);
                t.fp(4);
                t.st(self.hz, c, hz - 0.7f32 * (ex1 - ex0 + ey1 - ey0));
            }
        }
    }
}

/// The suite's initial arrays: `_fict_[t] = t`; for `i < NX, j < NY`, at `i*NY + j` of each
/// buffer (ex and ey are wider; their tails stay zero): `ex = (i*(j+1) + 1)/NX`,
/// `ey = ((i-1)*(j+2) + 2)/NX`, `hz = ((i-9)*(j+4) + 3)/NX`.
pub(crate) fn init(nx: u64, ny: u64, tmax: u64) -> [Vec<f32>; 4] {
    let f = |di: i64, dj: i64, add: f32| -> Vec<f32> {
        (0..nx * ny)
            .map(|q| {
                let (i, j) = ((q / ny) as i64, (q % ny) as i64);
                ((i + di) as f32 * (j + dj) as f32 + add) / nx as f32
            })
            .collect()
    };
    let mut ex = f(0, 1, 1.0);
    ex.resize((nx * (ny + 1)) as usize, 0.0);
    let mut ey = f(-1, 2, 2.0);
    ey.resize(((nx + 1) * ny) as usize, 0.0);
    [(0..tmax).map(|t| t as f32).collect(), ex, ey, f(-9, 4, 3.0)]
}

/// Host reference: the three kernels' updates per time step, in launch order.
#[cfg(test)]
pub(crate) fn reference(
    fict: &[f32],
    ex: &mut [f32],
    ey: &mut [f32],
    hz: &mut [f32],
    nx: usize,
    ny: usize,
) {
    for &f in fict {
        ey[..ny].fill(f);
        for i in 1..nx {
            for j in 0..ny {
                ey[i * ny + j] -= 0.5f32 * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
            }
        }
        for i in 0..nx {
            for j in 1..ny {
                ex[i * (ny + 1) + j] -= 0.5f32 * (hz[i * ny + j] - hz[i * ny + j - 1]);
            }
        }
        for i in 0..nx {
            for j in 0..ny {
                let e = i * (ny + 1) + j;
                let c = i * ny + j;
                hz[c] -= 0.7f32 * (ex[e + 1] - ex[e] + ey[c + ny] - ey[c]);
            }
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let nx = side(p, "fdtd2d", "nx", 1664, 8)?;
    let ny = side(p, "fdtd2d", "ny", 1664, 32)?;
    let tmax = p.u64("tmax", 15)?;
    if nx * ny > 1 << 26 {
        return Err(bad("fdtd2d: nx * ny must be at most 2^26".into()));
    }
    if tmax == 0 {
        return Err(bad("fdtd2d: --param tmax must be at least 1".into()));
    }
    let [fv, exv, eyv, hzv] = init(nx, ny, tmax);
    let mut m = Memory::new();
    let fict = m.alloc_from("_fict_", &fv, true);
    let ex = m.alloc_from("ex", &exv, false);
    let ey = m.alloc_from("ey", &eyv, false);
    let hz = m.alloc_from("hz", &hzv, false);
    let mut launch = 0u64;
    let h = host(move |_m: &mut Memory| {
        if launch >= 3 * tmax {
            return None;
        }
        let (t, step) = (launch / 3, (launch % 3) as u8 + 1);
        launch += 1;
        Some(Box::new(Fdtd {
            fict,
            ex,
            ey,
            hz,
            nx,
            ny,
            t,
            step,
        }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("fdtd2d", m, h))
}
