//! SHOC S3D (level 2, `gr_base.h`, kernel `gr_base<float>`): the base step of S3D's
//! chemical rate computation (`getrates`), one thread per grid point, blocks of
//! `BLOCK_SIZE2` = 128 threads. Each thread reads its temperature `T` and pressure `P`,
//! then for the 22 species `C(k) = Y(k) * molwt_inv[k]` (the arrays are species-major:
//! `Y[(k - 1) * N + point]`, coalesced across the warp), storing each `C(k)` and summing
//! them; `SUM = PRES / (SUM * TEMP * R)` (`DIV` as a reciprocal, `REPLACE_DIV_WITH_RCP`);
//! finally `C(k) = max(C(k), FLT_MIN) * SUM` is stored again. The kernel is short (no
//! approximation of its arithmetic is needed); S3D's other 25 kernels per step
//! (`ratt*`, `rdsmh`, `ratx*`, `qssa*`, `rdwdot*`) are not modelled.
//!
//! Inputs: HMS Table IV (`gr_base`: `gpu_p(G→T)`, `gpu_y(G→T)`, both) gives no size; SHOC's
//! default size class 1 in single precision: 24^3 = 13,824 grid points (classes 24^3, 32^3,
//! 40^3, 48^3), SHOC's initial state (P = 1.0132e6, T = 1000, Y = 0 except species 4
//! 0.218, 15 0.064, 22 0.718); footprint 2.6 MB, under the cap (rule 1 keeps it).
//!
//! Placement: `--param p_space=texture`, `t_space=texture` and `y_space=texture` read the
//! pressure, temperature and mass-fraction arrays through the texture path.

use super::common::{addr_ld, bad, entry, kinfo, seq, MemSpace};
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "shoc-s3d",
    suite: "SHOC",
    category: "-",
    about: "SHOC S3D gr_base<float>: per-point species concentrations from mass fractions, species-major arrays",
    params: &[
        ParamSpec {
            name: "side",
            default: "24",
            help: "grid side; points = side^3 (SHOC SP size class 1; points a multiple of 128)",
        },
        ParamSpec {
            name: "iterations",
            default: "1",
            help: "launches",
        },
        ParamSpec {
            name: "p_space",
            default: "global",
            help: "space of gpu_p: global | texture (HMS gpu_p(G→T))",
        },
        ParamSpec {
            name: "t_space",
            default: "global",
            help: "space of gpu_t: global | texture",
        },
        ParamSpec {
            name: "y_space",
            default: "global",
            help: "space of gpu_y: global | texture (HMS gpu_y(G→T))",
        },
    ],
    build,
};

/// `BLOCK_SIZE2`.
const BS: u64 = 128;
/// Species.
const NS: u64 = 22;
/// The reciprocal molecular weights of `gr_base` (`Y(k) * w[k - 1]`), SHOC's literals as
/// written (more digits than an f32 holds).
#[allow(clippy::excessive_precision)]
const W: [f32; 22] = [
    4.96046521e-1,
    9.92093043e-1,
    6.25023433e-2,
    3.12511716e-2,
    5.87980383e-2,
    5.55082499e-2,
    3.02968146e-2,
    2.93990192e-2,
    6.65112065e-2,
    6.23323639e-2,
    3.57008335e-2,
    2.27221341e-2,
    3.33039255e-2,
    3.84050525e-2,
    3.56453112e-2,
    3.32556033e-2,
    2.4372606e-2,
    2.37882046e-2,
    2.26996304e-2,
    2.43467162e-2,
    2.37635408e-2,
    3.56972032e-2,
];

struct GrBase {
    p: ObjId,
    t: ObjId,
    y: ObjId,
    c: ObjId,
    n: u64,
    sp: [MemSpace; 3],
}

/// `gr_base` for one point: the 22 concentrations (host reference and model).
pub(crate) fn gr_point(pres: f32, temp: f32, y: &[f32]) -> [f32; 22] {
    let mut c = [0f32; 22];
    let mut sum = 0f32;
    for k in 0..22 {
        c[k] = y[k] * W[k];
        sum += c[k];
    }
    let sum = pres * (1.0 / (sum * temp * 8.31451e7));
    for x in c.iter_mut() {
        *x = x.max(f32::MIN_POSITIVE) * sum;
    }
    c
}

impl Kernel for GrBase {
    fn info(&self) -> KernelInfo {
        kinfo(
            "gr_base",
            Dim3::x((self.n / BS) as u32),
            Dim3::x(BS as u32),
            32,
            0,
        )
    }
    /// Per thread (sm_70+ SASS, issue 7 §1 counting): `MOV; S2R x2; IMAD` (the point),
    /// `N_GP` (1); `T` and `P` (address each, none through a texture; `LDG`; `FMUL` by
    /// the conversion); per species the address of `Y(k)` (none through a texture), the
    /// load (after the previous `C` store: `C` may alias `Y`), `FMUL`, the address of `C(k)`,
    /// `STG`, `FADD`; `FMUL` x2, the reciprocal (`MUFU.RCP` + 4 fp) and `FMUL`; per species
    /// `FMNMX`, `FMUL`, the address and `STG` (the stored values stay in registers).
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let i = t.gid();
        entry(t, 2, 2, false);
        let temp: f32 = addr_ld(t, self.sp[1], self.t, i);
        let pres: f32 = addr_ld(t, self.sp[0], self.p, i);
        t.fp(2);
        let mut y = [0f32; 22];
        for k in 0..NS {
            y[k as usize] = addr_ld(t, self.sp[2], self.y, k * self.n + i);
            t.fp(1);
            t.alu(1);
            t.st(self.c, k * self.n + i, y[k as usize] * W[k as usize]);
            t.fp(1);
        }
        t.fp(2);
        t.sfu(1);
        t.fp(5);
        let c = gr_point(pres, temp, &y);
        for k in 0..NS {
            t.fp(2);
            t.alu(1);
            t.st(self.c, k * self.n + i, c[k as usize]);
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let side = p.u64("side", 24)?;
    let iterations = p.u64("iterations", 1)?;
    let n = side * side * side;
    use MemSpace::*;
    let sp = [
        MemSpace::param(p, "p_space", Global, &[Global, Texture])?,
        MemSpace::param(p, "t_space", Global, &[Global, Texture])?,
        MemSpace::param(p, "y_space", Global, &[Global, Texture])?,
    ];
    if n == 0 || n % BS != 0 || iterations == 0 {
        return Err(bad(
            "shoc-s3d: side^3 must be a positive multiple of 128 and iterations >= 1".into(),
        ));
    }
    let mut m = Memory::new();
    let pv = vec![1.0132e6f32; n as usize];
    let tv = vec![1000.0f32; n as usize];
    let mut yv = vec![0f32; (NS * n) as usize];
    for (j, v) in [(3usize, 0.218f32), (14, 0.064), (21, 0.718)] {
        for i in 0..n as usize {
            yv[j * n as usize + i] = v;
        }
    }
    let pp = m.alloc_from("gpu_p", &pv, true);
    let tt = m.alloc_from("gpu_t", &tv, true);
    let y = m.alloc_from("gpu_y", &yv, true);
    let c = m.alloc::<f32>("gpu_c", NS * n, false);
    let kernels: Vec<Box<dyn Kernel>> = (0..iterations)
        .map(|_| {
            Box::new(GrBase {
                p: pp,
                t: tt,
                y,
                c,
                n,
                sp,
            }) as Box<dyn Kernel>
        })
        .collect();
    Ok(ModelWorkload::new("shoc-s3d", m, seq(kernels)))
}
