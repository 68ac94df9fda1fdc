//! Parboil `lbm` (benchmarks/lbm, CUDA): the D3Q19 lattice-Boltzmann lid-driven cavity.
//! `performStreamCollide_kernel` runs one thread per cell, a block per x-row (`dimBlock.x =
//! SIZE_X`, `dimGrid = (SIZE_Y, SIZE_Z)`). The grid is structure-of-arrays: entry `e` (C, N,
//! S, E, W, T, B, NE, NW, SE, SW, NT, NB, ST, SB, ET, EB, WT, WB, FLAGS) of cell `(x,y,z)` is
//! `TOTAL_PADDED_CELLS*e + x + y*PADDED_X + z*PADDED_X*PADDED_Y` (`PADDED_X = SIZE_X + 8`,
//! `PADDED_Z = SIZE_Z + 4`), behind a two-plane margin. Each thread gathers the 19
//! distributions streaming into its cell from the neighbours (`tempN` from `(x, y-1, z)`,
//! ...), reads its flag word, bounces back (obstacle) or collides (BGK with `OMEGA =
//! 1.95`, the `ACCEL` lid cells forced to `u = (0.005, 0.002, 0)`), and stores the 19 values
//! into its own cell of the destination grid. The host runs `steps` time steps, swapping the
//! source and destination grid pointers after each (`LBM_swapGrids`).
//!
//! Initial state (`LBM_initializeGrid`, `LBM_initializeSpecialCellsForLDC`): every cell at
//! rest (`DFL1`, `DFL2`, `DFL3`), the box faces are obstacles and the planes `z = 1` and
//! `z = SIZE_Z-2` (inner part) are the accelerated lid. The interior obstacles of the input
//! file `120_120_150_ldc.of` are not reproduced (the cavity is empty).
//!
//! Inputs: NUBA §6.3 Table 2 runs LBM at 389 MB, Parboil's only grid (120 x 120 x 150, two
//! grids of 20 x 128 x 120 x 154 floats plus margins: 379 MB) with the `short` dataset's
//! 100 time steps. Rule 1 of [`crate::scale`] shrinks the three sides by one factor (d = 3)
//! to the 32 MiB cap, `SIZE_X` rounded to 8 (the padding keeps rows 32-byte aligned):
//! 48 x 53 x 66 (31.9 MiB). Rule 2 does not apply: on `coda-4gpu` the 100 time steps take
//! 55.2 s of host CPU time (session 23's engine, idle, 2026-11-29; BENCHMARKS.md), so
//! [`STEP_HALVINGS`] = 0. (Sessions 18-22 halved them once, to 50, when 100 took 78.3 s.)

use crate::bench::dense::common::{bad, kinfo};
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use crate::scale;

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "lbm",
    suite: "Parboil",
    category: "-",
    about: "Parboil lbm: performStreamCollide_kernel, D3Q19 SoA grids, one thread per cell, \
            pull (gather) streaming + BGK collision, grid swap per time step",
    params: &[
        ParamSpec {
            name: "sx",
            default: "48",
            help: "SIZE_X, cells per row = threads per block (multiple of 8)",
        },
        ParamSpec {
            name: "sy",
            default: "53",
            help: "SIZE_Y",
        },
        ParamSpec {
            name: "sz",
            default: "66",
            help: "SIZE_Z",
        },
        ParamSpec {
            name: "steps",
            default: "100",
            help: "time steps (Parboil short dataset: 100)",
        },
    ],
    build,
};

/// Entries per cell: 19 distributions and the flag word.
const N_ENTRIES: u64 = 20;
const FLAGS: u64 = 19;
const OBSTACLE: u32 = 1;
const ACCEL: u32 = 2;
const OMEGA: f32 = 1.95;
const DFL1: f32 = 1.0 / 3.0;
const DFL2: f32 = 1.0 / 18.0;
const DFL3: f32 = 1.0 / 36.0;

/// Velocity of each distribution (C, N, S, E, W, T, B, NE, NW, SE, SW, NT, NB, ST, SB, ET,
/// EB, WT, WB): N is +y, E is +x, T is +z.
pub const DIRS: [(i64, i64, i64); 19] = [
    (0, 0, 0),
    (0, 1, 0),
    (0, -1, 0),
    (1, 0, 0),
    (-1, 0, 0),
    (0, 0, 1),
    (0, 0, -1),
    (1, 1, 0),
    (-1, 1, 0),
    (1, -1, 0),
    (-1, -1, 0),
    (0, 1, 1),
    (0, 1, -1),
    (0, -1, 1),
    (0, -1, -1),
    (1, 0, 1),
    (1, 0, -1),
    (-1, 0, 1),
    (-1, 0, -1),
];

/// The bounce-back partner of each distribution (N <-> S, NE <-> SW, ...).
const OPP: [usize; 19] = [
    0, 2, 1, 4, 3, 6, 5, 10, 9, 8, 7, 14, 13, 12, 11, 18, 17, 16, 15,
];

/// The padded layout of one grid.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub sx: u64,
    pub sy: u64,
    pub sz: u64,
}

impl Layout {
    pub fn px(&self) -> u64 {
        self.sx + 8
    }
    pub fn py(&self) -> u64 {
        self.sy
    }
    pub fn pz(&self) -> u64 {
        self.sz + 4
    }
    pub fn total_padded(&self) -> u64 {
        self.px() * self.py() * self.pz()
    }
    /// `CALC_INDEX(0,0,2,0)`: the margin in front of the grid.
    pub fn margin(&self) -> u64 {
        2 * self.px() * self.py()
    }
    /// Floats of one allocated grid.
    pub fn floats(&self) -> u64 {
        self.total_padded() * N_ENTRIES + 2 * self.margin()
    }
    /// Element index of entry `e` of cell `(x, y, z)` (may lie in the padding or margin).
    pub fn idx(&self, x: i64, y: i64, z: i64, e: u64) -> u64 {
        let off = x + y * self.px() as i64 + z * (self.px() * self.py()) as i64;
        (self.margin() as i64 + (self.total_padded() * e) as i64 + off) as u64
    }
}

/// Device bytes of the two grids.
pub fn footprint(l: Layout) -> u64 {
    2 * 4 * l.floats()
}

/// The Parboil `short` dataset's time steps.
pub const PAPER_STEPS: u64 = 100;
/// Rule 2's halvings of the time steps (the grid stays rule 1's).
pub const STEP_HALVINGS: u32 = 0;

/// The default sides: rule 1 (d = 3; x rounded to 8).
pub fn default_sides() -> (u64, u64, u64) {
    let paper = Layout {
        sx: 120,
        sy: 120,
        sz: 150,
    };
    let f = scale::linear_factor(footprint(paper), 3);
    (
        scale::dim(120, f, 8),
        scale::dim(120, f, 1),
        scale::dim(150, f, 1),
    )
}

/// One cell's update: the BGK collision or the bounce-back of the gathered values.
pub fn collide(t: [f32; 19], flags: u32) -> [f32; 19] {
    let mut out = [0f32; 19];
    if flags & OBSTACLE != 0 {
        for i in 0..19 {
            out[i] = t[OPP[i]];
        }
        return out;
    }
    let rho: f32 = t.iter().sum();
    let (mut ux, mut uy, mut uz) = (0f32, 0f32, 0f32);
    for i in 0..19 {
        ux += DIRS[i].0 as f32 * t[i];
        uy += DIRS[i].1 as f32 * t[i];
        uz += DIRS[i].2 as f32 * t[i];
    }
    ux /= rho;
    uy /= rho;
    uz /= rho;
    if flags & ACCEL != 0 {
        ux = 0.005;
        uy = 0.002;
        uz = 0.0;
    }
    let u2 = 1.5 * (ux * ux + uy * uy + uz * uz) - 1.0;
    let base = OMEGA * rho;
    let t2 = 1.0 - OMEGA;
    for i in 0..19 {
        let w = match i {
            0 => DFL1,
            1..=6 => DFL2,
            _ => DFL3,
        };
        let cu = DIRS[i].0 as f32 * ux + DIRS[i].1 as f32 * uy + DIRS[i].2 as f32 * uz;
        out[i] = t2 * t[i] + w * base * (cu * (4.5 * cu + 3.0) - u2);
    }
    out
}

/// `performStreamCollide_kernel` from `src` into `dst`.
struct StreamCollide {
    l: Layout,
    src: ObjId,
    dst: ObjId,
}

impl Kernel for StreamCollide {
    fn info(&self) -> KernelInfo {
        kinfo(
            "performStreamCollide_kernel",
            Dim3::new(self.l.sy as u32, self.l.sz as u32, 1),
            Dim3::x(self.l.sx as u32),
            40,
            0,
        )
    }
    /// Per thread (sm_70-class SASS, issue 7 §1 counting): entry `MOV; S2R` x3, the cell
    /// offset (`IMAD` x2, `ULDC`), then per gathered value its address (`IMAD.WIDE`: the
    /// field offsets `TOTAL_PADDED_CELLS*e*4` exceed the 24-bit immediate) and `LDG`, 19
    /// times, plus the flag word (`IMAD.WIDE`, `LDG`), `LOP3`, `ISETP`, `BRA`. Fluid cells:
    /// rho (18 `FADD`), the three momenta (27 `FADD`), three divisions (`MUFU.RCP` + 4 fp each,
    /// docs/workloads.md), the `ACCEL` test (`LOP3`, `ISETP`, 3 `FSEL`),
    /// `u2` and the bases (6 FP), and per output its velocity sum, `FFMA`, `FMUL`, `FADD`,
    /// `FMUL`, `FFMA` (5 FP, 95); obstacle cells only permute registers (their lanes are
    /// recorded on the collision path, see the body). Then 19 `STG`, each with its
    /// `IMAD.WIDE`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let l = self.l;
        let (x, y, z) = (t.tid.x as i64, t.block.x as i64, t.block.y as i64);
        t.alu(7);
        let mut v = [0f32; 19];
        for (i, d) in DIRS.iter().enumerate() {
            t.alu(1);
            v[i] = t.ld(self.src, l.idx(x - d.0, y - d.1, z - d.2, i as u64));
        }
        t.alu(1);
        let flags: u32 = t.ld(self.src, l.idx(x, y, z, FLAGS));
        t.alu(2);
        t.branch(1);
        // The collision instructions are recorded for every lane: the warp issues them
        // whenever one of its cells is fluid, and lanes are aligned by position, so equal
        // paths keep the 19 stores of obstacle and fluid lanes one reconverged instruction
        // each (obstacle cells only permute registers; their lanes are counted active).
        t.fp(18 + 27);
        for _ in 0..3 {
            t.sfu(1);
            t.fp(4);
        }
        t.alu(2);
        t.fp(3);
        t.fp(6 + 95);
        let out = collide(v, flags);
        for (i, o) in out.iter().enumerate() {
            t.alu(1);
            t.st(self.dst, l.idx(x, y, z, i as u64), *o);
        }
    }
}

/// `LBM_initializeGrid` + `LBM_initializeSpecialCellsForLDC` on a host grid.
pub fn initial_grid(l: Layout) -> Vec<f32> {
    let mut g = vec![0f32; l.floats() as usize];
    for z in -2..l.sz as i64 + 2 {
        for y in 0..l.sy as i64 {
            for x in 0..l.sx as i64 {
                for e in 0..19u64 {
                    let w = match e {
                        0 => DFL1,
                        1..=6 => DFL2,
                        _ => DFL3,
                    };
                    g[l.idx(x, y, z, e) as usize] = w;
                }
                let (sx, sy, sz) = (l.sx as i64, l.sy as i64, l.sz as i64);
                let f = if x == 0 || x == sx - 1 || y == 0 || y == sy - 1 || z == 0 || z == sz - 1 {
                    OBSTACLE
                } else if (z == 1 || z == sz - 2) && x > 1 && x < sx - 2 && y > 1 && y < sy - 2 {
                    ACCEL
                } else {
                    0
                };
                // cells outside 0..SIZE_Z keep their zero flags
                let f = if (0..sz).contains(&z) { f } else { 0 };
                g[l.idx(x, y, z, FLAGS) as usize] = f32::from_bits(f);
            }
        }
    }
    g
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let (dx, dy, dz) = default_sides();
    let l = Layout {
        sx: p.u64("sx", dx)?,
        sy: p.u64("sy", dy)?,
        sz: p.u64("sz", dz)?,
    };
    let steps = p.u64("steps", PAPER_STEPS >> STEP_HALVINGS)?;
    if l.sx == 0 || !l.sx.is_multiple_of(8) || l.sx > 1024 || l.sy < 3 || l.sz < 3 || steps == 0 {
        return Err(bad(format!(
            "lbm: need sx a multiple of 8 in 8..=1024 (one block per row), sy >= 3, sz >= 3, steps >= 1 (got {} x {} x {}, {steps} steps)",
            l.sx, l.sy, l.sz
        )));
    }
    let g = initial_grid(l);
    let mut mem = Memory::new();
    let a = mem.alloc_from("srcGrid", &g, false);
    let b = mem.alloc_from("dstGrid", &g, false);
    let (mut src, mut dst) = (a, b);
    let mut t = 0;
    let host = crate::bench::dense::common::host(move |_m: &mut Memory| {
        if t == steps {
            return None;
        }
        if t > 0 {
            std::mem::swap(&mut src, &mut dst);
        }
        t += 1;
        Some(Box::new(StreamCollide { l, src, dst }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("lbm", mem, host))
}
