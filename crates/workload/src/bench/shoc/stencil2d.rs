//! SHOC Stencil2D (level 1, CUDA `StencilKernel<float>` of `CUDAStencilKernel.cu`): a
//! 9-point weighted stencil over a 2-D float matrix with a one-cell halo, iterated with the
//! two device buffers swapped by the host after every launch.
//!
//! SHOC's launch: `dimBlock(1, lCols)`, `dimGrid(gRows / lRows, gCols / lCols)` with the
//! default `--lsize 8,256` (`lRows` = 8 strip rows per thread, `lCols` = 256 threads, one
//! matrix column each; `.x` is the row and `.y` the column). Each thread copies its column
//! of the block's `(lRows + 2)`-row strip from global memory into the shared tile
//! `sh[(lRows + 2) * (lCols + 2)]`; the first and last thread of the block also copy the
//! left and right halo columns; `__syncthreads()`; then every thread computes its `lRows`
//! cells from the tile: `wCenter * c + wCardinal * (n + s + e + w) + wDiagonal * (ne + se +
//! nw + sw)` (weights 0.25, 0.15, 0.05) and stores them to the new buffer. The matrix has
//! `gRows + 2` rows of `gCols + 2` columns padded to a multiple of 16 (`Matrix2D`'s pad).
//! The halo cells are never written, so both buffers carry the same halo (SHOC copies it
//! with `cudaMemcpy2D` once before the iterations).
//!
//! Inputs: REC Table 3 (rec.md §4.3) runs SHOC Stencil 2D with a 128 MB footprint: SHOC's
//! size class 4 (4096 x 4096, single precision, two buffers: 2 x 4098 x 4112 x 4 B =
//! 134.8 MB). Rule 1 of `scale.rs` (footprint cap 32 MiB) shrinks both sides by
//! `linear_factor(134.8 MB, 2)` = 0.499, rounded down to the tile multiples (8 rows,
//! 256 columns): 2040 x 1792 (29.5 MB). Iterations: REC gives none; SHOC's default is
//! `--num-iters 1000`, MGPUSim's sample (which REC ran) 1; rule 2 (work cap) halves 1000
//! down to 31 so a `coda-4gpu` run stays under a minute (4.4 M warp instructions and 0.55 M
//! L1 requests per iteration): 31 iterations take 50.4 s of host CPU, 62 would take about
//! twice that (idle machine, 2026-11-29, engine of commit dc2af3d; until then the default
//! was 15, from a run of 31 timed on a loaded machine). REC's capped runs stop inside the
//! first launch, so they do not depend on it. Only the single-precision pass is modelled
//! (SHOC also runs a double-precision one).
//!
//! Placement (HMS Table IV: `StencilKernel data(G→T)`): `--param data_space=texture` reads
//! the source buffer through the texture path (`tex1Dfetch`, no address arithmetic).

use super::common::{addr_ld, bad, entry, host, kinfo, loop_step, MemSpace};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use crate::scale::{dim, linear_factor};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "shoc-stencil2d",
    suite: "SHOC",
    category: "-",
    about: "SHOC Stencil2D StencilKernel<float>: 9-point stencil, shared tile + halo, 8x256 strips, buffer swap per iteration",
    params: &[
        ParamSpec {
            name: "rows",
            default: "2040",
            help: "interior rows gRows (multiple of lrows; REC 128 MB = 4096, scaled by rule 1)",
        },
        ParamSpec {
            name: "cols",
            default: "1792",
            help: "interior columns gCols (multiple of lcols; REC = 4096, scaled by rule 1)",
        },
        ParamSpec {
            name: "iterations",
            default: "31",
            help: "stencil iterations, one launch each (SHOC --num-iters 1000; halved 5 times by rule 2)",
        },
        ParamSpec {
            name: "lrows",
            default: "8",
            help: "rows per thread strip (SHOC --lsize first value)",
        },
        ParamSpec {
            name: "lcols",
            default: "256",
            help: "threads per block = columns per block (SHOC --lsize second value)",
        },
        ParamSpec {
            name: "data_space",
            default: "global",
            help: "space the source buffer is read through: global | texture (HMS data(G→T))",
        },
    ],
    build,
};

/// SHOC's default weights.
const W_CENTER: f32 = 0.25;
const W_CARDINAL: f32 = 0.15;
const W_DIAGONAL: f32 = 0.05;
/// `Matrix2D`'s default column pad.
const PAD: u64 = 16;

/// Padded row pitch of a matrix with `cols` interior columns.
fn pitch(cols: u64) -> u64 {
    (cols + 2).div_ceil(PAD) * PAD
}

/// Bytes of the two device buffers for an interior of `rows` x `cols` floats.
pub fn footprint(rows: u64, cols: u64) -> u64 {
    2 * (rows + 2) * pitch(cols) * 4
}

/// Default interior dimensions: REC's 4096 x 4096 scaled by rule 1 (see the module doc).
pub fn default_dims() -> (u64, u64) {
    let f = linear_factor(footprint(4096, 4096), 2);
    (dim(4096, f, 8), dim(4096, f, 256))
}

/// One `StencilKernel` launch `data -> new_data`.
struct Stencil {
    data: ObjId,
    new_data: ObjId,
    rows: u64,
    cols: u64,
    lrows: u64,
    lcols: u64,
    space: MemSpace,
}

impl Stencil {
    /// Shared tile index of logical (row, col), halo offset 1 (SHOC `ToFlatIdx`).
    fn lidx(&self, row: i64, col: i64) -> u32 {
        ((row + 1) * (self.lcols as i64 + 2) + col + 1) as u32
    }
    /// Global index of logical (row, col), halo offset 1.
    fn gidx(&self, row: i64, col: i64) -> u64 {
        ((row + 1) * pitch(self.cols) as i64 + col + 1) as u64
    }
}

impl Kernel for Stencil {
    fn info(&self) -> KernelInfo {
        kinfo(
            "StencilKernel",
            Dim3::new(
                (self.rows / self.lrows) as u32,
                (self.cols / self.lcols) as u32,
                1,
            ),
            Dim3::new(1, self.lcols as u32, 1),
            24,
            ((self.lrows + 2) * (self.lcols + 2) * 4) as u32,
        )
    }
    fn phases(&self) -> u32 {
        2
    }
    /// Per thread, the instructions of SHOC's `StencilKernel<float>` (sm_70+ SASS, issue 7
    /// §1 counting). Phase 0: entry `MOV; S2R x4`, `gRow`, `gCol`, `nCols` (`IMAD` x3), the
    /// pad `nCols % alignment` (a remainder by a kernel parameter, about 20 int), its select
    /// (`ISETP; SEL; IADD3`), `gRowWidth`, the shared and global strip bases (2): 29 int; the
    /// loop entry `ISETP; BRA`. Per copied cell (the trip count `lRows + 2` is a parameter,
    /// so the loop stays rolled): the global address (`IMAD.WIDE`; none through a texture),
    /// `LDG`, `STS` at the strided shared address, loop control (2 int + `BRA`). The halo
    /// tests `lidCol == 0` and `lidCol == lszCol - 1` (`ISETP; BRA` each); the two edge
    /// threads copy one more column. Phase 1: loop entry (`ISETP; BRA`); per output row the
    /// tile base (1 int), 9 `LDS` at constant offsets, `FADD` x6, `FMUL`, `FFMA` x2, the
    /// destination address (`IMAD.WIDE`), `STG`, loop control.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let g_row = (t.block.x as u64 * self.lrows + t.tid.x as u64) as i64;
        let l_row = t.tid.x as i64;
        let l_col = t.tid.y as i64;
        let g_col = (t.block.y as u64 * self.lcols) as i64 + l_col;
        let strip = self.lrows as i64;
        if phase == 0 {
            entry(t, 4, 29, false);
            t.alu(1);
            t.branch(1);
            for i in 0..strip + 2 {
                let v: f32 = addr_ld(t, self.space, self.data, self.gidx(g_row - 1 + i, g_col));
                t.sh_st_f32(self.lidx(l_row - 1 + i, l_col), v);
                loop_step(t);
            }
            t.alu(1);
            t.branch(1);
            let side = if l_col == 0 {
                Some(-1)
            } else {
                t.alu(1);
                t.branch(1);
                (l_col == self.lcols as i64 - 1).then_some(1)
            };
            if let Some(d) = side {
                for i in 0..strip + 2 {
                    let v: f32 = addr_ld(
                        t,
                        self.space,
                        self.data,
                        self.gidx(g_row - 1 + i, g_col + d),
                    );
                    t.sh_st_f32(self.lidx(l_row - 1 + i, l_col + d), v);
                    loop_step(t);
                }
            }
        } else {
            t.alu(1);
            t.branch(1);
            for i in 0..strip {
                let r = l_row + i;
                t.alu(1);
                let c = t.sh_ld_f32(self.lidx(r, l_col));
                let n = t.sh_ld_f32(self.lidx(r - 1, l_col));
                let s = t.sh_ld_f32(self.lidx(r + 1, l_col));
                let e = t.sh_ld_f32(self.lidx(r, l_col + 1));
                let w = t.sh_ld_f32(self.lidx(r, l_col - 1));
                let ne = t.sh_ld_f32(self.lidx(r - 1, l_col + 1));
                let se = t.sh_ld_f32(self.lidx(r + 1, l_col + 1));
                let nw = t.sh_ld_f32(self.lidx(r - 1, l_col - 1));
                let sw = t.sh_ld_f32(self.lidx(r + 1, l_col - 1));
                t.fp(9);
                let v = stencil_point(c, n + s + e + w, ne + se + nw + sw);
                t.alu(1);
                t.st(self.new_data, self.gidx(g_row + i, g_col), v);
                loop_step(t);
            }
        }
    }
}

/// SHOC's point update, in the kernel's order of operations.
fn stencil_point(center: f32, cardinal: f32, diagonal: f32) -> f32 {
    W_CENTER * center + W_CARDINAL * cardinal + W_DIAGONAL * diagonal
}

/// Host reference (SHOC's `HostStencil`): `iterations` sweeps over a padded matrix of
/// `rows + 2` rows and pitch `pitch(cols)`; the halo is left unchanged.
#[cfg(test)]
pub(crate) fn host_stencil(m: &[f32], rows: usize, cols: usize, iterations: usize) -> Vec<f32> {
    let p = pitch(cols as u64) as usize;
    let mut cur = m.to_vec();
    let mut next = m.to_vec();
    for _ in 0..iterations {
        for r in 1..=rows {
            for c in 1..=cols {
                let at = |dr: isize, dc: isize| {
                    cur[(r as isize + dr) as usize * p + (c as isize + dc) as usize]
                };
                next[r * p + c] = stencil_point(
                    at(0, 0),
                    at(-1, 0) + at(1, 0) + at(0, 1) + at(0, -1),
                    at(-1, 1) + at(1, 1) + at(-1, -1) + at(1, -1),
                );
            }
        }
        std::mem::swap(&mut cur, &mut next);
    }
    cur
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let (dr, dc) = default_dims();
    let lrows = p.u64("lrows", 8)?;
    let lcols = p.u64("lcols", 256)?;
    let rows = p.u64("rows", dr)?;
    let cols = p.u64("cols", dc)?;
    let iterations = p.u64("iterations", 31)?;
    let space = MemSpace::param(
        p,
        "data_space",
        MemSpace::Global,
        &[MemSpace::Global, MemSpace::Texture],
    )?;
    if lrows == 0 || !(32..=1024).contains(&lcols) || lcols % 32 != 0 {
        return Err(bad(
            "shoc-stencil2d: need lrows >= 1 and lcols a multiple of 32 in 32..=1024".into(),
        ));
    }
    if rows == 0 || cols == 0 || rows % lrows != 0 || cols % lcols != 0 {
        return Err(bad(format!(
            "shoc-stencil2d: rows must be a positive multiple of lrows ({lrows}) and cols of lcols ({lcols})"
        )));
    }
    if (lrows + 2) * (lcols + 2) * 4 > 48 << 10 {
        return Err(bad(
            "shoc-stencil2d: the shared tile (lrows+2)*(lcols+2)*4 B exceeds 48 KiB".into(),
        ));
    }
    if iterations == 0 {
        return Err(bad("shoc-stencil2d: iterations must be >= 1".into()));
    }
    let pt = pitch(cols);
    let mut rng = Rng::new(p.seed);
    let mut init = vec![0f32; ((rows + 2) * pt) as usize];
    for r in 1..=rows {
        for c in 1..=cols {
            init[(r * pt + c) as usize] = rng.f32();
        }
    }
    let mut m = Memory::new();
    let a = m.alloc_from("data_a", &init, false);
    // the halo of the second buffer is copied from the first (cudaMemcpy2D), all zero here
    let b = m.alloc::<f32>("data_b", (rows + 2) * pt, false);
    let mut it = 0u64;
    let h = host(move |_m: &mut Memory| {
        if it >= iterations {
            return None;
        }
        let (data, new_data) = if it & 1 == 0 { (a, b) } else { (b, a) };
        it += 1;
        Some(Box::new(Stencil {
            data,
            new_data,
            rows,
            cols,
            lrows,
            lcols,
            space,
        }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("shoc-stencil2d", m, h))
}
