//! Parboil `stencil` (benchmarks/stencil, CUDA), registry name `parboil-stencil`: the 7-point
//! Jacobi stencil `Anext = (left + right + up + down + top + bottom) * c1 - centre * c0` on
//! an `nx x ny x nz` grid (`Index3D = i + nx*(j + ny*k)`), kernel
//! `block2D_hybrid_coarsen_x`. Blocks of `tx x ty = 32 x 4` threads cover `2*tx x ty`
//! columns (thread coarsening along x: each thread owns columns `i` and `i2 = i + tx`); the
//! block walks up the z axis keeping the current plane in shared memory (`sh_A0`,
//! `2*tx*ty` floats) and the planes below and above in registers (`bottom`, `top`: z-loop
//! register blocking). Neighbours inside the tile come from shared memory, those across the
//! tile edge (`threadIdx.x == 0` left, `threadIdx.x == tx-1` right of `i2`, first and last
//! row) from global memory. Per z step: load `top`, compute and store both columns,
//! `__syncthreads()`, rotate (`bottom = sh; sh = top`), `__syncthreads()`. The host runs
//! `iterations` launches, swapping `d_A0` and `d_Anext` after each; only interior points are
//! written (`d_Anext` starts zeroed).
//!
//! Inputs: NDP §5.4 Table 1 runs STN on a 512 x 512 x 64 grid (Parboil's `default` dataset,
//! 100 iterations): 128 MiB of two grids, so rule 1 of [`crate::scale`] shrinks the three
//! sides by 4^(1/3) (d = 3), rounded to the tile (x to 64, y to 4): 320 x 320 x 40,
//! 31.25 MiB. Rule 2 halves the work-only dimension first, the 100 launches:
//! [`ITER_HALVINGS`] = 2 times, to 25, the grid kept. On `coda-4gpu` 50 iterations ran
//! past 80 s of host CPU time (stopped) and 25 took 43.5 s (BENCHMARKS.md, 2026-11-29).

use crate::bench::dense::common::{bad, kinfo, Regs};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use crate::scale;

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "parboil-stencil",
    suite: "Parboil",
    category: "-",
    about: "Parboil stencil: block2D_hybrid_coarsen_x 7-point 3-D Jacobi, 32x4 threads on \
            64x4 columns, current plane in shared memory, z-loop register blocking, \
            buffer swap per iteration",
    params: &[
        ParamSpec {
            name: "nx",
            default: "320",
            help: "grid x (NDP: 512; rule 1)",
        },
        ParamSpec {
            name: "ny",
            default: "320",
            help: "grid y (NDP: 512; rule 1)",
        },
        ParamSpec {
            name: "nz",
            default: "40",
            help: "grid z (NDP: 64; rule 1)",
        },
        ParamSpec {
            name: "iterations",
            default: "25",
            help: "launches (Parboil default dataset: 100; halved twice by rule 2)",
        },
        ParamSpec {
            name: "kernel",
            default: "hybrid",
            help: "hybrid (cuda: block2D_hybrid_coarsen_x) or naive (cuda_base: naive_kernel, the NDP paper's STN)",
        },
    ],
    build,
};

const TX: u64 = 32;
const TY: u64 = 4;
/// Parboil's coefficients: `c0 = 1/6`, `c1 = 1/6/6`.
pub const C0: f32 = 1.0 / 6.0;
pub const C1: f32 = 1.0 / 6.0 / 6.0;

/// Device bytes of the two grids.
pub fn footprint(nx: u64, ny: u64, nz: u64) -> u64 {
    2 * 4 * nx * ny * nz
}

/// The sides by rule 1 (d = 3).
pub fn rule1_sides() -> (u64, u64, u64) {
    let f = scale::linear_factor(footprint(512, 512, 64), 3);
    (
        scale::dim(512, f, 2 * TX),
        scale::dim(512, f, TY),
        scale::dim(64, f, 1),
    )
}

/// The Parboil default dataset's launches.
pub const PAPER_ITERATIONS: u64 = 100;
/// Rule 2's halvings of the launches (the grid stays rule 1's).
pub const ITER_HALVINGS: u32 = 2;

/// `block2D_hybrid_coarsen_x`: phase 0 clears the shared tile, 1 loads the first planes,
/// then per z step `k` phase `2k` computes and `2k + 1` rotates the planes.
struct Coarsen {
    a0: ObjId,
    anext: ObjId,
    nx: u64,
    ny: u64,
    nz: u64,
    /// bottom, bottom2, top, top2 of every thread of the block being run.
    regs: Regs,
}

impl Coarsen {
    fn idx(&self, i: u64, j: u64, k: u64) -> u64 {
        i + self.nx * (j + self.ny * k)
    }
    /// One neighbour of the tile's edge choice `edge ? A0[at] : sh_A0[sh_at]` as the
    /// compiled kernel has it: a predicated `LDG` for the edge lanes and a predicated
    /// `LDS` for the others, both issued by the warp. `uniform`: every lane of the warp
    /// takes the same side (a warp is one row of the tile, so the row choices are
    /// uniform), and the other side's instruction issues with all lanes off: one issue
    /// slot, modelled as one int instruction that the caller issues after the column's
    /// loads (the model's first compute instruction after a load waits for it; the
    /// predicated-off one waits for nothing). Returns the value and the slots owed. Its
    /// loads take the caller's call site (`track_caller`), so that each neighbour is an
    /// instruction of its own.
    #[track_caller]
    fn neighbour(
        &self,
        t: &mut Thread<'_>,
        edge: bool,
        uniform: bool,
        at: u64,
        sh_at: u32,
    ) -> (f32, u32) {
        let v = if edge {
            t.ld(self.a0, at)
        } else {
            t.sh_ld_f32(sh_at)
        };
        (v, uniform as u32)
    }

    /// The loads and arithmetic of one column's update (`second`: the coarsened column
    /// `i2`) after its region test and set-up ([`Coarsen::step`]): every load of the
    /// update together, as the compiled kernel issues them before their first use (the
    /// inner side and the centre from shared memory, the side, down and up neighbours by
    /// [`Coarsen::neighbour`]), then `FADD` x5, `FMUL`, `FFMA`, `STG`.
    #[allow(clippy::too_many_arguments)]
    fn column(
        &self,
        t: &mut Thread<'_>,
        i: u64,
        j: u64,
        k: u64,
        sh: u32,
        second: bool,
        bottom: f32,
        top: f32,
    ) {
        let (tx, ty) = (t.tid.x as u64, t.tid.y as u64);
        let w = 2 * TX as u32;
        let other = if second {
            t.sh_ld_f32(sh - 1)
        } else {
            t.sh_ld_f32(sh + 1)
        };
        // the side neighbour across the tile edge: left of i (tx == 0), right of i2; the
        // shared index of an edge lane is not used (it would leave the tile: wrapping)
        let (lr, _) = if !second {
            self.neighbour(t, tx == 0, false, self.idx(i - 1, j, k), sh.wrapping_sub(1))
        } else {
            self.neighbour(t, tx == TX - 1, false, self.idx(i + 1, j, k), sh + 1)
        };
        let (down, s1) =
            self.neighbour(t, ty == 0, true, self.idx(i, j - 1, k), sh.wrapping_sub(w));
        let (up, s2) = self.neighbour(t, ty == TY - 1, true, self.idx(i, j + 1, k), sh + w);
        let c = t.sh_ld_f32(sh);
        t.alu(s1 + s2);
        t.fp(7);
        let v = (lr + other + up + down + top + bottom) * C1 - c * C0;
        t.st(self.anext, self.idx(i, j, k), v);
    }

    /// One column's part of a z step: `top`'s address (2 int), the region branch (`BSSY;
    /// BRA`; for the second column after the first's `BSYNC; BSSY; BRA`), the update's
    /// set-up (12 int for the first column, 11 for the second: the edge predicates, the
    /// constant-bank pointer loads, the predicated addresses), `top`'s `LDG`, and the
    /// update ([`Coarsen::column`]). In the compiled kernel none of the int or control
    /// instructions waits for `top` (`BSSY`, `BRA` and the addresses do not use it); the
    /// model's rule makes the first compute instruction after a load wait for it, so
    /// they are issued before it. Returns `top` (the register of the next step).
    fn step(&self, t: &mut Thread<'_>, i: u64, j: u64, k: u64, sh: u32, second: bool) -> f32 {
        let local = t.local_id();
        let slot = if second { 1 } else { 0 };
        t.alu(2);
        t.branch(if second { 3 } else { 2 });
        let writes = self.writes(i, j, second);
        if writes {
            t.alu(if second { 11 } else { 12 });
        }
        let mut top = self.regs.get(local, 2 + slot);
        if i < self.nx && j < self.ny {
            top = t.ld(self.a0, self.idx(i, j, k + 1));
        }
        if writes {
            let bottom = self.regs.get(local, slot);
            self.column(t, i, j, k, sh, second, bottom, top);
        }
        top
    }

    /// Whether column `i` of row `j` is updated (the kernel's region test).
    fn writes(&self, i: u64, j: u64, second: bool) -> bool {
        (second || i > 0) && j > 0 && i + 1 < self.nx && j + 1 < self.ny
    }
}

impl Kernel for Coarsen {
    fn info(&self) -> KernelInfo {
        kinfo(
            "block2D_hybrid_coarsen_x",
            Dim3::new(
                self.nx.div_ceil(2 * TX) as u32,
                self.ny.div_ceil(TY) as u32,
                1,
            ),
            Dim3::new(TX as u32, TY as u32, 1),
            30,
            (2 * TX * TY * 4) as u32,
        )
    }
    fn phases(&self) -> u32 {
        2 + 2 * (self.nz.saturating_sub(2)) as u32
    }
    /// Per thread, the instructions of the kernel as nvcc 13 compiles it for sm_90
    /// (validation/gpu/h200/sass.txt, 88 per warp per z step). Phase 0: entry, indices,
    /// predicates and the shared addresses (33 int), `STS` x2. Phase 1: 7 int, `LDG` x4
    /// (bottom and current plane of both columns), `STS` x2. The first z step begins with
    /// the `EXIT` test and the loop's set-up (37 int, 1 control). Per z step, per column
    /// [`Coarsen::step`], a `BSYNC` after each.
    /// Rotation phase: `LDS; STS` per column, 11 int (the loop counter and test, the
    /// eight plane addresses advanced) and the back edge; the two `BAR`s are the phase
    /// ends. Every load of a column's update issues before its first use: the side and
    /// row neighbours across the tile edge are in flight together with `top`.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let (tx, ty) = (t.tid.x as u64, t.tid.y as u64);
        let (bx, by) = (t.block.x as u64, t.block.y as u64);
        let i = bx * TX * 2 + tx;
        let i2 = i + TX;
        let j = by * TY + ty;
        let sh = (tx + ty * 2 * TX) as u32;
        let sh2 = sh + TX as u32;
        let local = t.local_id();
        let (nx, ny) = (self.nx, self.ny);
        match phase {
            0 => {
                t.alu(33);
                t.sh_st_f32(sh, 0.0);
                t.sh_st_f32(sh2, 0.0);
            }
            1 => {
                t.alu(7);
                let (mut b, mut b2, mut c, mut c2) = (0f32, 0f32, 0f32, 0f32);
                if i < nx && j < ny {
                    c = t.ld(self.a0, self.idx(i, j, 1));
                }
                if i2 < nx && j < ny {
                    c2 = t.ld(self.a0, self.idx(i2, j, 1));
                }
                if i < nx && j < ny {
                    b = t.ld(self.a0, self.idx(i, j, 0));
                }
                if i2 < nx && j < ny {
                    b2 = t.ld(self.a0, self.idx(i2, j, 0));
                }
                if i < nx && j < ny {
                    t.sh_st_f32(sh, c);
                }
                if i2 < nx && j < ny {
                    t.sh_st_f32(sh2, c2);
                }
                self.regs.set(local, 0, b);
                self.regs.set(local, 1, b2);
                self.regs.set(local, 2, 0.0);
                self.regs.set(local, 3, 0.0);
            }
            p => {
                let k = ((p - 2) / 2 + 1) as u64;
                if p.is_multiple_of(2) {
                    if k == 1 {
                        t.branch(1);
                        t.alu(37);
                    }
                    let top = self.step(t, i, j, k, sh, false);
                    t.branch(1);
                    let top2 = self.step(t, i2, j, k, sh2, true);
                    t.branch(1);
                    self.regs.set(local, 2, top);
                    self.regs.set(local, 3, top2);
                } else {
                    let b = t.sh_ld_f32(sh);
                    t.sh_st_f32(sh, self.regs.get(local, 2));
                    let b2 = t.sh_ld_f32(sh2);
                    t.sh_st_f32(sh2, self.regs.get(local, 3));
                    self.regs.set(local, 0, b);
                    self.regs.set(local, 1, b2);
                    t.alu(11);
                    t.branch(1);
                }
            }
        }
    }
}

/// Parboil `cuda_base`'s `naive_kernel`: one thread per point of an x row (`i =
/// threadIdx.x` over `nx - 1` threads, `j = blockIdx.x + 1`, `k = blockIdx.y + 1`), the
/// points with `i > 0` updated from 7 global loads. Its body is the NDP paper's STN offload
/// block (spec ndp.md Table 1: 15 NSU instructions, `LDG` x7, 5 `FADD`, `FMUL`, `FFMA`,
/// `STG`), no live-in (c0, c1 from the constant bank) or live-out.
struct Naive {
    a0: ObjId,
    anext: ObjId,
    nx: u64,
    ny: u64,
    nz: u64,
}

impl Kernel for Naive {
    fn info(&self) -> KernelInfo {
        kinfo(
            "naive_kernel",
            Dim3::new((self.ny - 2) as u32, (self.nz - 2) as u32, 1),
            Dim3::x((self.nx - 1) as u32),
            16,
            0,
        )
    }
    /// Per thread: `S2R` x3 and `j`, `k` (2 `IADD3`), `ISETP; EXIT`; active lanes the
    /// point's index (2 `IMAD`) and the neighbours' addresses (2 `IADD3`: the others are
    /// immediate offsets of the `LDG`s), the block, `EXIT`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let i = t.tid.x as u64;
        let (j, k) = (t.block.x as u64 + 1, t.block.y as u64 + 1);
        t.alu(5);
        t.branch(1);
        if i == 0 {
            return;
        }
        let (nx, ny) = (self.nx, self.ny);
        let id = |i: u64, j: u64, k: u64| i + nx * (j + ny * k);
        t.alu(4);
        // lane 0 of every block is idle: the instance holds the other lanes (`merge_warp`)
        t.ofld_begin(0, 0, 15);
        let mut sum = 0f32;
        for at in [
            id(i, j, k + 1),
            id(i, j, k - 1),
            id(i, j + 1, k),
            id(i, j - 1, k),
            id(i + 1, j, k),
            id(i - 1, j, k),
        ] {
            let v: f32 = t.ld(self.a0, at);
            sum += v;
        }
        let c: f32 = t.ld(self.a0, id(i, j, k));
        t.fp(7);
        t.st(self.anext, id(i, j, k), sum * C1 - C0 * c);
        t.ofld_end(0);
    }
}

/// Parboil's host reference sweep (interior points only) of `a` into `next`.
pub fn host_sweep(a: &[f32], next: &mut [f32], nx: usize, ny: usize, nz: usize) {
    let id = |i: usize, j: usize, k: usize| i + nx * (j + ny * k);
    for k in 1..nz - 1 {
        for j in 1..ny - 1 {
            for i in 1..nx - 1 {
                next[id(i, j, k)] = (a[id(i, j, k + 1)]
                    + a[id(i, j, k - 1)]
                    + a[id(i, j + 1, k)]
                    + a[id(i, j - 1, k)]
                    + a[id(i + 1, j, k)]
                    + a[id(i - 1, j, k)])
                    * C1
                    - C0 * a[id(i, j, k)];
            }
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let (dx, dy, dz) = rule1_sides();
    let nx = p.u64("nx", dx)?;
    let ny = p.u64("ny", dy)?;
    let nz = p.u64("nz", dz)?;
    let iters = p.u64("iterations", PAPER_ITERATIONS >> ITER_HALVINGS)?;
    let naive = match p.str("kernel", "hybrid").as_str() {
        "hybrid" => false,
        "naive" => true,
        k => {
            return Err(bad(format!(
                "parboil-stencil: kernel={k}: use hybrid (block2D_hybrid_coarsen_x) or naive (naive_kernel)"
            )))
        }
    };
    if nx < 3 || ny < 3 || nz < 3 || iters == 0 {
        return Err(bad(format!(
            "parboil-stencil: need nx, ny, nz >= 3 and iterations >= 1 (got {nx} x {ny} x {nz}, {iters})"
        )));
    }
    let mut rng = Rng::new(p.seed);
    let a: Vec<f32> = (0..nx * ny * nz).map(|_| rng.f32()).collect();
    let mut mem = Memory::new();
    let a0 = mem.alloc_from("d_A0", &a, false);
    let anext = mem.alloc::<f32>("d_Anext", nx * ny * nz, false);
    let (mut src, mut dst) = (a0, anext);
    let mut t = 0;
    let host = crate::bench::dense::common::host(move |_m: &mut Memory| {
        if t == iters {
            return None;
        }
        if t > 0 {
            std::mem::swap(&mut src, &mut dst);
        }
        t += 1;
        if naive {
            return Some(Box::new(Naive {
                a0: src,
                anext: dst,
                nx,
                ny,
                nz,
            }) as Box<dyn Kernel>);
        }
        Some(Box::new(Coarsen {
            a0: src,
            anext: dst,
            nx,
            ny,
            nz,
            regs: Regs::new((TX * TY) as usize, 4),
        }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("parboil-stencil", mem, host))
}
