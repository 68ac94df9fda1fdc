//! HotSpot3D (Rodinia `hotspot3D`, `hotspotOpt1`): 64x4-thread blocks tile the x-y plane;
//! each thread walks its column through all `nz` layers, reading the 7-point neighbourhood of
//! `tIn` (W, E, N, S clamped at the borders, below/above through registers) and `p[c]`, and
//! writes `tOut[c]`; the host swaps `tIn`/`tOut` between iterations.
//!
//! Page sharing (spec A14): CODA reports HS3D as "sharing". The default input is Rodinia's
//! (512 x 512 x 8; its footprint fits the cap of `crate::scale` unscaled). With Rodinia's
//! row-major block raster the blocks of a page are then consecutive ids, mostly on one GPU,
//! so the measured category need not be the paper's; wider planes (e.g. 2048 columns, a
//! tile row of 32 blocks, more than one GPU's Eq. 1 window of 24) spread a page's blocks
//! and its N/S halo readers over GPUs. `raster = paper` is an
//! optional deviation that rasters blocks column-major over the tiles (`blockIdx.x` walks
//! y-tiles), so the 16 x-tiles of a 4 KB row segment are `ny/4` ids apart and every page is
//! spread over all GPUs regardless of the width; the per-thread code is identical.

use super::common::{bad, entry, host, kinfo, loop_step};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "hs3d",
    suite: "Rodinia",
    category: "sharing",
    about: "HotSpot3D hotspotOpt1: 64x4 blocks over x-y, z loop, 7-point stencil, ping-pong",
    params: &[
        ParamSpec {
            name: "nx",
            default: "512",
            help: "grid columns (multiple of 64; Rodinia's default 512)",
        },
        ParamSpec {
            name: "ny",
            default: "512",
            help: "grid rows (multiple of 4; Rodinia's default 512)",
        },
        ParamSpec {
            name: "nz",
            default: "8",
            help: "layers (>= 2)",
        },
        ParamSpec {
            name: "iterations",
            default: "4",
            help: "launches (spec A28: 4)",
        },
        ParamSpec {
            name: "raster",
            default: "rodinia",
            help: "block raster: rodinia (row-major) or paper (column-major tiles)",
        },
    ],
    build,
};

/// Coefficients of Rodinia's driver (chip 0.016 m, 512x512 defaults folded into constants).
#[derive(Clone, Copy)]
pub(crate) struct Coef {
    pub cc: f32,
    pub cw: f32,
    pub ce: f32,
    pub cn: f32,
    pub cs: f32,
    pub ct: f32,
    pub cb: f32,
    pub sdc: f32,
}

/// The coefficient set used by the benchmark.
pub(crate) const COEF: Coef = Coef {
    cc: 0.4,
    cw: 0.1,
    ce: 0.1,
    cn: 0.1,
    cs: 0.1,
    ct: 0.05,
    cb: 0.05,
    sdc: 0.02,
};
const AMB: f32 = 80.0;

/// `hotspotOpt1(p, tIn, tOut, ...)`.
struct HotspotOpt1 {
    p: ObjId,
    tin: ObjId,
    tout: ObjId,
    nx: u64,
    ny: u64,
    nz: u64,
    paper: bool,
}

impl Kernel for HotspotOpt1 {
    fn info(&self) -> KernelInfo {
        let (tx, ty) = ((self.nx / 64) as u32, (self.ny / 4) as u32);
        let grid = if self.paper {
            Dim3::new(ty, tx, 1)
        } else {
            Dim3::new(tx, ty, 1)
        };
        kinfo("hotspotOpt1", grid, Dim3::new(64, 4, 1), 24, 0)
    }
    /// Per thread, the instructions of Rodinia hotspot3D `hotspotOpt1` (sm_70+ SASS, issue
    /// 7 §1 counting; the grid tiles the plane exactly, so no bound test): entry `MOV; S2R
    /// x4`, `IMAD` x2 (`i`, `j`), `ULDC`, `c`, `xy`, the clamped neighbours `W`, `E`, `N`,
    /// `S` (`ISETP` x4, `SEL` x4, 2 bounds: 10): 20 int. The first plane: 8 addresses
    /// (`tIn[c]`, `tIn[c+xy]`, four neighbours, `p[c]`, `tOut[c]`), `LDG` x7; each further
    /// plane: 7 addresses (6 on the last), `LDG` x6 (5 on the last). Every plane: the
    /// weighted sum (`FMUL` x2, `FFMA` x8), `STG`, the five index updates (`IADD3` x5) and,
    /// but after the last plane, the plane-loop control (3): 32 per middle plane, 7 of them
    /// memory; `EXIT`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let (bx, by) = if self.paper {
            (t.block.y as u64, t.block.x as u64)
        } else {
            (t.block.x as u64, t.block.y as u64)
        };
        let i = 64 * bx + t.tid.x as u64;
        let j = 4 * by + t.tid.y as u64;
        let (nx, ny, nz) = (self.nx, self.ny, self.nz);
        let xy = nx * ny;
        let mut c = i + j * nx;
        let mut w = if i == 0 { c } else { c - 1 };
        let mut e = if i == nx - 1 { c } else { c + 1 };
        let mut n = if j == 0 { c } else { c - nx };
        let mut s = if j == ny - 1 { c } else { c + nx };
        entry(t, 4, 15);
        t.alu(8);
        let k = COEF;
        let mut temp2: f32 = t.ld(self.tin, c);
        let mut temp1 = temp2;
        let mut temp3: f32 = t.ld(self.tin, c + xy);
        for z in 0..nz {
            if z > 0 {
                temp1 = temp2;
                temp2 = temp3;
                if z < nz - 1 {
                    t.alu(7);
                    temp3 = t.ld(self.tin, c + xy);
                } else {
                    t.alu(6);
                }
            }
            let vw: f32 = t.ld(self.tin, w);
            let ve: f32 = t.ld(self.tin, e);
            let vs: f32 = t.ld(self.tin, s);
            let vn: f32 = t.ld(self.tin, n);
            let pc: f32 = t.ld(self.p, c);
            t.fp(10);
            let v = k.cc * temp2
                + k.cw * vw
                + k.ce * ve
                + k.cs * vs
                + k.cn * vn
                + k.cb * temp1
                + k.ct * temp3
                + k.sdc * pc
                + k.ct * AMB;
            t.st(self.tout, c, v);
            t.alu(5);
            c += xy;
            w += xy;
            e += xy;
            n += xy;
            s += xy;
            if z + 1 < nz {
                loop_step(t);
            }
        }
    }
}

/// Host reference of one `hotspotOpt1` sweep (tests).
#[cfg(test)]
pub(crate) fn hs3d_ref(p: &[f32], tin: &[f32], nx: usize, ny: usize, nz: usize) -> Vec<f32> {
    let mut out = vec![0.0; tin.len()];
    let at = |x: usize, y: usize, z: usize| tin[z * nx * ny + y * nx + x];
    let k = COEF;
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let c = at(x, y, z);
                let b = if z == 0 { c } else { at(x, y, z - 1) };
                let tt = if z == nz - 1 { c } else { at(x, y, z + 1) };
                let v = k.cc * c
                    + k.cw * at(x.saturating_sub(1), y, z)
                    + k.ce * at((x + 1).min(nx - 1), y, z)
                    + k.cs * at(x, (y + 1).min(ny - 1), z)
                    + k.cn * at(x, y.saturating_sub(1), z)
                    + k.cb * b
                    + k.ct * tt
                    + k.sdc * p[z * nx * ny + y * nx + x]
                    + k.ct * AMB;
                out[z * nx * ny + y * nx + x] = v;
            }
        }
    }
    out
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let (nx, ny, nz) = (p.u64("nx", 512)?, p.u64("ny", 512)?, p.u64("nz", 8)?);
    let iterations = p.u64("iterations", 4)?;
    let raster = p.str("raster", "rodinia");
    if nx == 0 || nx % 64 != 0 || ny == 0 || ny % 4 != 0 || nz < 2 {
        return Err(bad(
            "hs3d: nx multiple of 64, ny multiple of 4, nz >= 2".into()
        ));
    }
    let paper = match raster.as_str() {
        "paper" => true,
        "rodinia" => false,
        r => {
            return Err(bad(format!(
                "hs3d: raster `{r}` is not `paper` or `rodinia`"
            )))
        }
    };
    let mut rng = Rng::new(p.seed);
    let n = nx * ny * nz;
    let pv: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
    let tv: Vec<f32> = (0..n).map(|_| 300.0 + 30.0 * rng.f32()).collect();
    let mut m = Memory::new();
    let pw = m.alloc_from("p", &pv, true);
    let a = m.alloc_from("tIn", &tv, false);
    let b = m.alloc::<f32>("tOut", n, false);
    let mut it = 0;
    let h = host(move |_m: &mut Memory| {
        if it >= iterations {
            return None;
        }
        let (tin, tout) = if it & 1 == 0 { (a, b) } else { (b, a) };
        it += 1;
        Some(Box::new(HotspotOpt1 {
            p: pw,
            tin,
            tout,
            nx,
            ny,
            nz,
            paper,
        }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("hs3d", m, h))
}
