//! CFD solver (Rodinia `cfd`, `euler3d.cu`): an unstructured-grid finite-volume Euler solver
//! in structure-of-arrays layout (`variables[i + v*nelr]`, 5 variables;
//! `normals[i + (j + d*NNB)*nelr]`; `elements_surrounding_elements[i + j*nelr]`, 4
//! neighbours). Each iteration runs `compute_step_factor`, then per Runge-Kutta stage
//! `compute_flux` (own state plus the 4 neighbours' states read indirectly; -1 = wing,
//! -2 = far field) and `time_step`; 192 threads per block. The generated mesh is numbered so
//! neighbours are mostly near (a few far ones and boundary faces), like Rodinia's
//! `missile.domn.0.2M` (232,536 elements). CODA Table 2: core-exclusive ("CFD-M").
//!
//! Page sharing: a 192-thread block covers 768 B of every SoA segment, so a 4 KB page is
//! shared by ~5 blocks, and a page straddles two GPUs wherever an Eq. 1 window
//! (`N_bpg * 768` B) boundary falls inside it (spec A9). The default input is the suite's:
//! the missile mesh's 232,536 elements (padded to whole blocks like Rodinia's `nelr`), whose
//! footprint fits the cap of `crate::scale` unscaled. The category is measured, not chosen:
//! the CODA report shows it beside the paper's (core-exclusive).

use super::common::{bad, entry, host, kinfo};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "cfd",
    suite: "Rodinia",
    category: "core-exclusive",
    about: "euler3d: cuda_compute_step_factor, cuda_compute_flux with SoA neighbour reads, \
            cuda_time_step; 192 thr/block",
    params: &[
        ParamSpec {
            name: "elements",
            default: "232536",
            help: "mesh elements (default: Rodinia missile.domn.0.2M, 232536)",
        },
        ParamSpec {
            name: "iterations",
            default: "1",
            help: "solver iterations (3 RK stages each)",
        },
        ParamSpec {
            name: "far",
            default: "0.0005",
            help: "fraction of far (random) neighbours",
        },
    ],
    build,
};

const BLOCK: u64 = 192;
const NNB: u64 = 4;
const NVAR: u64 = 5;
const RK: u64 = 3;
const GAMMA: f32 = 1.4;
const SMOOTH: f32 = 0.2;

/// Conserved state of one element and its derived quantities.
#[derive(Clone, Copy)]
pub(crate) struct St {
    d: f32,
    m: [f32; 3],
    de: f32,
    v: [f32; 3],
    speed_sqd: f32,
    p: f32,
    c: f32,
}

impl St {
    pub(crate) fn new(d: f32, m: [f32; 3], de: f32) -> St {
        let v = [m[0] / d, m[1] / d, m[2] / d];
        let speed_sqd = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        let p = (GAMMA - 1.0) * (de - 0.5 * d * speed_sqd);
        let c = (GAMMA * p / d).abs().sqrt();
        St {
            d,
            m,
            de,
            v,
            speed_sqd,
            p,
            c,
        }
    }
    /// Squared speed (tests).
    #[cfg(test)]
    pub(crate) fn speed_sqd_pub(&self) -> f32 {
        self.speed_sqd
    }
    /// Speed of sound (tests).
    #[cfg(test)]
    pub(crate) fn c_pub(&self) -> f32 {
        self.c
    }
    /// `compute_flux_contribution`: momentum x/y/z rows and density-energy flux.
    #[allow(clippy::needless_range_loop)]
    fn fc(&self) -> ([[f32; 3]; 3], [f32; 3]) {
        let mut fm = [[0.0; 3]; 3];
        for a in 0..3 {
            for b in 0..3 {
                fm[a][b] = self.v[a] * self.m[b] + if a == b { self.p } else { 0.0 };
            }
        }
        let dep = self.de + self.p;
        (fm, [self.v[0] * dep, self.v[1] * dep, self.v[2] * dep])
    }
}

/// Far-field state (Rodinia: Mach 1.2, angle of attack 0, density 1.4, pressure 1).
pub(crate) fn far_field() -> St {
    let (d, p, mach) = (1.4f32, 1.0f32, 1.2f32);
    let c = (GAMMA * p / d).sqrt();
    let m = [d * mach * c, 0.0, 0.0];
    let de = 0.5 * d * (mach * c) * (mach * c) + p / (GAMMA - 1.0);
    St::new(d, m, de)
}

/// Flux of element `i` given its state, neighbours and normals (shared by the kernel and the
/// host reference so both compute identical values).
#[allow(clippy::needless_range_loop)]
pub(crate) fn flux(si: &St, nbs: &[(i32, [f32; 3], Option<St>)]) -> [f32; 5] {
    let (fi_m, fi_de) = si.fc();
    let ff = far_field();
    let (ff_m, ff_de) = ff.fc();
    let mut fd = 0.0f32;
    let mut fm = [0.0f32; 3];
    let mut fde = 0.0f32;
    let speed_i = si.speed_sqd.sqrt();
    for (nb, nrm, snb) in nbs {
        let nlen = (nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]).sqrt();
        if let Some(sn) = snb {
            let (fn_m, fn_de) = sn.fc();
            let f = -nlen * SMOOTH * 0.5 * (speed_i + sn.speed_sqd.sqrt() + si.c + sn.c);
            fd += f * (si.d - sn.d);
            fde += f * (si.de - sn.de);
            for a in 0..3 {
                fm[a] += f * (si.m[a] - sn.m[a]);
            }
            for (dim, &nd) in nrm.iter().enumerate() {
                let f = 0.5 * nd;
                fd += f * (sn.m[dim] + si.m[dim]);
                fde += f * (fn_de[dim] + fi_de[dim]);
                for a in 0..3 {
                    fm[a] += f * (fn_m[a][dim] + fi_m[a][dim]);
                }
            }
        } else if *nb == -1 {
            for a in 0..3 {
                fm[a] += nrm[a] * si.p;
            }
        } else if *nb == -2 {
            for (dim, &nd) in nrm.iter().enumerate() {
                let f = 0.5 * nd;
                fd += f * (ff.m[dim] + si.m[dim]);
                fde += f * (ff_de[dim] + fi_de[dim]);
                for a in 0..3 {
                    fm[a] += f * (ff_m[a][dim] + fi_m[a][dim]);
                }
            }
        }
    }
    [fd, fm[0], fm[1], fm[2], fde]
}

/// Device buffers.
#[derive(Clone, Copy)]
struct Bufs {
    variables: ObjId,
    old_variables: ObjId,
    fluxes: ObjId,
    normals: ObjId,
    ese: ObjId,
    areas: ObjId,
    step_factors: ObjId,
    nelr: u64,
}

/// Load an element's five conserved variables and derive its state, as Rodinia's
/// `compute_velocity`, `compute_speed_sqd`, `compute_pressure` and
/// `compute_speed_of_sound` compile (sm_70+ SASS, issue 7 §1 counting): the five addresses
/// `i + k*nelr` (`IMAD.WIDE` x5), `LDG` x5, three IEEE divisions for the velocity (3 x
/// `MUFU.RCP` + 4 fp), the squared speed (3 fp), the pressure (3 fp), `GAMMA*p` (1), its
/// division by the density (`MUFU.RCP` + 4) and `sqrtf` (`MUFU.RSQ` + 2): 5 int, 5 memory,
/// 5 sfu, 25 fp.
fn load_state(t: &mut Thread<'_>, vars: ObjId, i: u64, nelr: u64) -> St {
    t.alu(5);
    let d: f32 = t.ld(vars, i);
    let mx: f32 = t.ld(vars, i + nelr);
    let my: f32 = t.ld(vars, i + 2 * nelr);
    let mz: f32 = t.ld(vars, i + 3 * nelr);
    let de: f32 = t.ld(vars, i + 4 * nelr);
    t.sfu(3);
    t.fp(12);
    t.fp(7);
    t.sfu(1);
    t.fp(4);
    t.sfu(1);
    t.fp(2);
    St::new(d, [mx, my, mz], de)
}

enum Which {
    StepFactor,
    Flux,
    TimeStep(u64),
}

struct Cfd {
    b: Bufs,
    which: Which,
}

impl Kernel for Cfd {
    fn info(&self) -> KernelInfo {
        let g = Dim3::x((self.b.nelr / BLOCK) as u32);
        let (name, regs) = match self.which {
            Which::StepFactor => ("cuda_compute_step_factor", 20),
            Which::Flux => ("cuda_compute_flux", 21),
            Which::TimeStep(_) => ("cuda_time_step", 16),
        };
        kinfo(name, g, Dim3::x(BLOCK as u32), regs, 0)
    }
    /// Per thread, the instructions of Rodinia cfd's kernels (sm_70+ SASS, issue 7 §1
    /// counting; `nelr` is padded to whole blocks, so no bound test). Entry of each: `MOV;
    /// S2R x2; IMAD`, `ULDC` of `nelr` (5).
    /// - `cuda_compute_step_factor`: [`load_state`], the `areas` address, `LDG`, two
    ///   `sqrtf` (2 x (`MUFU.RSQ` + 2 fp)), `FADD; FMUL`, the division of 0.5 (`MUFU.RCP` +
    ///   4), the destination address, `STG`, `EXIT`: 63 instructions, 7 memory.
    /// - `cuda_compute_flux`: [`load_state`] of element `i`, `sqrtf` of its speed and its
    ///   flux contribution (13 fp); per neighbour (`#pragma unroll`, 4): four addresses and
    ///   `LDG` x4 (neighbour id, normal), the normal's length (3 fp + `sqrtf`), the
    ///   `nb >= 0` test (`ISETP; BRA`); a real neighbour: [`load_state`], its flux
    ///   contribution (13 fp), `sqrtf` of its speed, the viscosity factor (5 fp) and the
    ///   accumulations (10 + 33 fp); otherwise the `nb == -1` test and 3 `FFMA` (wing) or
    ///   the `nb == -2` test and 33 fp (far field, constants read as `c[3][..]` operands);
    ///   finally five addresses and `STG` x5, `EXIT`.
    /// - `cuda_time_step`: the `step_factors` address, `LDG`, `RK+1-j` (`IADD3; I2F`), the
    ///   division (`MUFU.RCP` + 4 fp); per variable (5, unrolled) three addresses, `LDG` x2,
    ///   `FFMA`, `STG`; `EXIT`: 50 instructions, 16 memory.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let b = self.b;
        let i = t.gx();
        let nelr = b.nelr;
        entry(t, 2, 2);
        match self.which {
            Which::StepFactor => {
                let s = load_state(t, b.variables, i, nelr);
                t.alu(1);
                let area: f32 = t.ld(b.areas, i);
                t.sfu(1);
                t.fp(2);
                t.sfu(1);
                t.fp(4);
                t.sfu(1);
                t.fp(4);
                t.alu(1);
                t.st(
                    b.step_factors,
                    i,
                    0.5 / (area.sqrt() * (s.speed_sqd.sqrt() + s.c)),
                );
            }
            Which::Flux => {
                let si = load_state(t, b.variables, i, nelr);
                t.sfu(1);
                t.fp(15);
                let mut nbs = Vec::with_capacity(NNB as usize);
                for j in 0..NNB {
                    t.alu(4);
                    let nb: i32 = t.ld(b.ese, i + j * nelr);
                    let nx: f32 = t.ld(b.normals, i + j * nelr);
                    let ny: f32 = t.ld(b.normals, i + (j + NNB) * nelr);
                    let nz: f32 = t.ld(b.normals, i + (j + 2 * NNB) * nelr);
                    t.fp(3);
                    t.sfu(1);
                    t.fp(2);
                    t.alu(1);
                    t.branch(1);
                    let sn = if nb >= 0 {
                        let sn = load_state(t, b.variables, nb as u64, nelr);
                        t.fp(13);
                        t.sfu(1);
                        t.fp(50);
                        Some(sn)
                    } else {
                        t.alu(1);
                        t.branch(1);
                        if nb == -1 {
                            t.fp(3);
                        } else {
                            t.alu(1);
                            t.branch(1);
                            if nb == -2 {
                                t.fp(33);
                            }
                        }
                        None
                    };
                    nbs.push((nb, [nx, ny, nz], sn));
                }
                let f = flux(&si, &nbs);
                for (v, fv) in f.iter().enumerate() {
                    t.alu(1);
                    t.st(b.fluxes, i + v as u64 * nelr, *fv);
                }
            }
            Which::TimeStep(j) => {
                t.alu(1);
                let sf: f32 = t.ld(b.step_factors, i);
                t.alu(1);
                t.sfu(2);
                t.fp(4);
                let factor = sf / (RK + 1 - j) as f32;
                for v in 0..NVAR {
                    t.alu(3);
                    let old: f32 = t.ld(b.old_variables, i + v * nelr);
                    let fl: f32 = t.ld(b.fluxes, i + v * nelr);
                    t.fp(1);
                    t.st(b.variables, i + v * nelr, old + factor * fl);
                }
            }
        }
    }
}

/// The generated mesh: neighbours, normals and areas (SoA, padded to `nelr`).
pub(crate) struct Mesh {
    pub nelr: u64,
    pub ese: Vec<i32>,
    pub normals: Vec<f32>,
    pub areas: Vec<f32>,
    pub vars: Vec<f32>,
}

/// Generate a mesh-ordered neighbour structure: mostly near ids (|offset| <= 64), a fraction
/// `far` of random ids, about 1% wing (-1) and 1% far-field (-2) faces. Padding elements
/// copy the last real element, as euler3d does.
pub(crate) fn gen_mesh(rng: &mut Rng, nel: u64, far: f64) -> Mesh {
    let nelr = nel.div_ceil(BLOCK) * BLOCK;
    let mut ese = vec![0i32; (nelr * NNB) as usize];
    let mut normals = vec![0f32; (nelr * NNB * 3) as usize];
    let mut areas = vec![0f32; nelr as usize];
    let mut vars = vec![0f32; (nelr * NVAR) as usize];
    let ff = far_field();
    let ffv = [ff.d, ff.m[0], ff.m[1], ff.m[2], ff.de];
    let seed_base = rng.next_u64();
    for i in 0..nelr {
        let src = i.min(nel - 1);
        let mut r = Rng::new(seed_base ^ src.wrapping_mul(0x9E37_79B9));
        for j in 0..NNB {
            let u = r.f64();
            let nb = if u < 0.01 {
                -1
            } else if u < 0.02 {
                -2
            } else if u < 0.02 + far {
                r.below(nel) as i64
            } else {
                let off = r.below(64) as i64 + 1;
                let s = if j % 2 == 0 { off } else { -off };
                (src as i64 + s).clamp(0, nel as i64 - 1)
            };
            ese[(i + j * nelr) as usize] = nb as i32;
            for d in 0..3 {
                normals[(i + (j + d * NNB) * nelr) as usize] = r.f32() - 0.5;
            }
        }
        areas[i as usize] = 0.5 + r.f32();
        for v in 0..NVAR {
            vars[(i + v * nelr) as usize] = ffv[v as usize] * (1.0 + 0.05 * (r.f32() - 0.5));
        }
    }
    Mesh {
        nelr,
        ese,
        normals,
        areas,
        vars,
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let nel = p.u64("elements", 232_536)?;
    let iterations = p.u64("iterations", 1)?;
    let far = p.f64("far", 0.0005)?;
    if nel == 0 || !(0.0..=0.98).contains(&far) {
        return Err(bad("cfd: elements > 0, 0 <= far <= 0.98".into()));
    }
    let mut rng = Rng::new(p.seed);
    let mesh = gen_mesh(&mut rng, nel, far);
    let nelr = mesh.nelr;
    let mut m = Memory::new();
    let b = Bufs {
        areas: m.alloc_from("areas", &mesh.areas, true),
        ese: m.alloc_from("elements_surrounding_elements", &mesh.ese, true),
        normals: m.alloc_from("normals", &mesh.normals, true),
        variables: m.alloc_from("variables", &mesh.vars, false),
        old_variables: m.alloc::<f32>("old_variables", nelr * NVAR, false),
        fluxes: m.alloc::<f32>("fluxes", nelr * NVAR, false),
        step_factors: m.alloc::<f32>("step_factors", nelr, false),
        nelr,
    };
    let per_iter = 1 + 2 * RK;
    let mut n = 0u64;
    let h = host(move |mem: &mut Memory| {
        if n >= iterations * per_iter {
            return None;
        }
        let s = n % per_iter;
        let which = if s == 0 {
            // cudaMemcpy old_variables <- variables (device to device), then the step factor
            for e in 0..nelr * NVAR {
                let v: f32 = mem.get(b.variables, e);
                mem.set(b.old_variables, e, v);
            }
            Which::StepFactor
        } else if s & 1 == 1 {
            Which::Flux
        } else {
            Which::TimeStep((s - 2) / 2)
        };
        n += 1;
        Some(Box::new(Cfd { b, which }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("cfd", m, h))
}
