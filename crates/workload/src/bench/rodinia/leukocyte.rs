//! Rodinia `leukocyte` (cuda/leukocyte/CUDA), registry name `leukocyte`: detection of rolling
//! white blood cells in the first video frame and their tracking through the next frames,
//! with the program's three CUDA kernels launched as its host code does:
//!
//! - `GICOV_kernel<<<grad_n - 44, grad_m - 44>>>` (find_ellipse_kernel.cu): one block per
//!   frame column `i = blockIdx.x + 22`, one thread per row `j = threadIdx.x + 22`; for each
//!   of `NCIRCLES = 7` circles (radii 8, 10, .., 20) and its `NPOINTS = 150` sample points it
//!   reads the column-major x and y gradients through the texture path (`tex1Dfetch`) at the
//!   point's offset (`c_tX`, `c_tY` in constant memory), projects them on the radial
//!   direction (`c_cos_angle`, `c_sin_angle`) and keeps a running mean and variance; the
//!   pixel's score is the largest `mean^2 / var`, stored to `gicov[i * grad_m + j]`.
//! - `dilate_kernel<<<(int)(m n / 176 + 0.5), 176>>>`: grey-level dilation of the GICOV
//!   matrix (read through the texture path) with a disc of radius 12 (`c_strel`, 25 x 25 in
//!   constant memory); thread `tid` is pixel `(tid % m, tid / m)` and writes the row-major
//!   `dilated[i * n + j]` (a strided, uncoalesced store).
//! - `IMGVF_kernel<<<cells, 320>>>` (track_ellipse_kernel.cu), once per tracked frame: one
//!   block per cell; the cell's 41 x 81 matrix is staged in shared memory (`IMGVF[41 *
//!   81]`), and until it converges (mean absolute change below 1e-5) or 500 iterations have
//!   run, the 320 threads sweep it in `ceil(m n / 320)` "virtual thread blocks", each
//!   element updated from its 8 neighbours through the regularised Heaviside function
//!   (`atan`) and the image `I` (a global load), new values buffered in `buffer[320]` and
//!   written back one virtual block later, one `__syncthreads()` per virtual block; then a
//!   tree reduction of the per-thread change over `buffer` (9 barriers) and thread 0's
//!   convergence test. The matrix goes back to global memory at the end.
//!
//! Host (detect_main.c, find_ellipse.c, track_ellipse.c): frame 0 is cropped to the vessel
//! (rows `TOP = 110 ..= BOTTOM = 328`, 219 x 640, unscaled grey levels), its gradients
//! (`gradient_x`/`gradient_y`, central differences) are stored column-major and the two
//! detection kernels run; local maxima (`gicov != 0` and `dilated == gicov`) with
//! `sqrt(gicov) > 1.8`, `crow > 29` and a radius-10 circle at `(ccol, crow - 40)` inside the
//! frame (5-pixel border) are the cells, centred at `(ccol, crow - 40 + TOP)` in the full
//! frame. For each frame `1..=frames` the host cuts a 41 x 81 window around each cell
//! (`u1 = xc - 39.5`, `v1 = yc - 18.5`, clipped), takes its gradient magnitude, normalises
//! it to `[0, 1]` and launches `IMGVF_kernel` over all cells (vx = vy = 1, e = 1e-10).
//!
//! Differences from the program, all on the host side: (1) the video is synthetic (below);
//! (2) the detected centres are used as they are, without the spline snake refinement
//! (`splineenergyform01`, 20 host iterations), which moves a centre by at most a few pixels;
//! (3) the cells keep their centres from frame to frame instead of following
//! `ellipseevolve`'s snake (host code between launches): the windows still read each new
//! frame, where the cells have moved. (4) Phases: the kernel API needs one phase count per
//! launch, so the host finds each cell's iteration count by running the same update on its
//! copy first (`imgvf_host`), and a cell that converged before the slowest one issues one
//! barrier per remaining phase, which the real kernel (its block finished) does not.
//!
//! Input: Rodinia's run is `leukocyte testfile.avi 5` (a 640 x 480 grey video, 5 tracked
//! frames). The video is not in the index, so the frames are generated from the seed: grey
//! level 100 with uniform noise of +-8, and `cells` bright discs (radius 10 +-1, +60 grey
//! levels, one-pixel soft edge) on three rows of the cropped vessel band, moving one pixel
//! per frame along x (rolling leukocytes). 36 cells stand for testfile.avi's first frame
//! (the count we recall Rodinia reporting for it; not checkable here), of which the
//! detection finds 35 in the seed-1 video. NUBA §6.3 Table 2 lists 2 MB for LEU; this
//! input is 3.2 MB (gradients, GICOV and dilated matrices 2.2 MB, the cells' matrices 1.0
//! MB), under the 32 MiB cap, so rule 1 of [`crate::scale`] keeps it ([`PAPER`]).
//!
//! Rule 2 applies: the tracking work grows with cells x frames x iterations (each cell runs
//! 100 to 270 IMGVF iterations on this video, about 30 K warp instructions each), about 1.1
//! G warp instructions for the paper input against 0.12 G for the two detection kernels;
//! the work dimensions `cells` and `frames` halve once ([`scaled_default`]: 18 cells, 2
//! frames; the frame, the detection kernels and the per-cell matrices stay Rodinia's).
//! Measured on `coda-4gpu` with session 23's engine (release, idle, 2026-11-29;
//! BENCHMARKS.md): 18 cells and 2 frames take 49.8 s of host CPU time, so the second
//! halving that sessions 8-22 applied (9 cells, 1 frame: 58.7 s of CPU time on 2026-11-23's
//! engine at load 13, when 18 cells and 2 frames ran over 70 s) no longer holds; the paper
//! input (about 5 times the work) stays over a minute.
//! `--param cells=36 --param frames=5` runs the paper input. Each IMGVF block is a long
//! program (about 29 K warp instructions per iteration, held by the simulator for the
//! block's lifetime), so peak host memory grows with the cells in flight: 2.3 GB for the
//! default on `coda-4gpu` (1.95 GB at 9 cells and 1 frame).

use crate::bench::dense::common::{bad, kinfo};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Host, Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use std::sync::Mutex;

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "leukocyte",
    suite: "Rodinia",
    category: "-",
    about: "Rodinia leukocyte: GICOV_kernel and dilate_kernel (texture and constant memory) \
            detect cells in frame 0, IMGVF_kernel (one 320-thread block per cell, matrix in \
            shared memory, iterated to convergence) tracks them per frame",
    params: &[
        ParamSpec {
            name: "width",
            default: "640",
            help: "video frame width (testfile.avi: 640)",
        },
        ParamSpec {
            name: "height",
            default: "480",
            help: "video frame height (testfile.avi: 480)",
        },
        ParamSpec {
            name: "rows",
            default: "219",
            help: "rows of the cropped vessel band from TOP = 110 (BOTTOM - TOP + 1 = 219)",
        },
        ParamSpec {
            name: "cells",
            default: "18",
            help: "leukocytes drawn in the synthetic video (36; halved once by rule 2)",
        },
        ParamSpec {
            name: "frames",
            default: "2",
            help: "frames tracked after detection (Rodinia's run: 5; halved once by rule 2)",
        },
        ParamSpec {
            name: "iterations",
            default: "500",
            help: "IMGVF iteration limit (MGVF's `iterations = 500`)",
        },
    ],
    build,
};

/// `NPOINTS`: sample points per circle.
pub const NPOINTS: usize = 150;
/// `NCIRCLES`: circle radii `MIN_RAD + 2k`.
pub const NCIRCLES: usize = 7;
/// `MIN_RAD = RADIUS - 2`.
const MIN_RAD: f64 = 8.0;
/// `MAX_RAD + 2`: the border the GICOV kernel leaves out.
pub const MAXR: usize = 22;
/// The structuring element's side (`12 * 2 + 1`).
pub const STREL: usize = 25;
/// `TOP` of find_ellipse.h: the first row of the vessel band.
pub const TOP: usize = 110;
/// misc_math.h's `PI` (the program's own five-digit value, kept for its results).
#[allow(clippy::approx_constant)]
const PI: f64 = 3.14159;
/// `threads_per_block` of the IMGVF kernel and `next_lowest_power_of_two`.
pub const TPB: u32 = 320;
const NLP2: u32 = 256;
/// Shared-memory words: `IMGVF[41 * 81]`, `buffer[320]`, `cell_converged`.
const SH_BUF: u32 = 41 * 81;
const SH_CONV: u32 = SH_BUF + TPB;
/// MU / LAMBDA and 1 / LAMBDA (doubles in the kernel).
const MU_OVER_LAMBDA: f64 = 0.5 / (8.0 * 0.5 + 1.0);
const ONE_OVER_LAMBDA: f64 = 1.0 / (8.0 * 0.5 + 1.0);
/// MGVF's `converge` and `epsilon`.
const CUTOFF: f64 = 0.00001;
const EPSILON: f64 = 0.0000000001;
/// `threshold`, `b` and `radius` of detect_main.c.
const THRESHOLD: f64 = 1.8;
const BORDER: f64 = 5.0;
const RADIUS: f64 = 10.0;
/// `dilate_CUDA`'s block size.
const DILATE_TPB: u32 = 176;

/// The constant-memory tables of `compute_constants`.
pub struct Consts {
    pub sin: Vec<f32>,
    pub cos: Vec<f32>,
    pub tx: Vec<i32>,
    pub ty: Vec<i32>,
    pub strel: Vec<f32>,
}

/// `compute_constants`: the sample angles (float `theta`), the integer offsets of every
/// sample point of every circle and the radius-12 disc.
pub fn constants() -> Consts {
    let theta: Vec<f32> = (0..NPOINTS)
        .map(|n| ((n as f64 * 2.0 * PI) / NPOINTS as f64) as f32)
        .collect();
    let sin = theta.iter().map(|&t| (t as f64).sin() as f32).collect();
    let cos = theta.iter().map(|&t| (t as f64).cos() as f32).collect();
    let mut tx = vec![0i32; NCIRCLES * NPOINTS];
    let mut ty = vec![0i32; NCIRCLES * NPOINTS];
    for k in 0..NCIRCLES {
        let rad = MIN_RAD + 2.0 * k as f64;
        for n in 0..NPOINTS {
            tx[k * NPOINTS + n] = ((theta[n] as f64).cos() * rad) as i32;
            ty[k * NPOINTS + n] = ((theta[n] as f64).sin() * rad) as i32;
        }
    }
    let r = 12i32;
    let strel = (0..STREL * STREL)
        .map(|e| {
            let (i, j) = ((e / STREL) as i32 - r, (e % STREL) as i32 - r);
            if (((i * i + j * j) as f32).sqrt()) <= r as f32 {
                1.0
            } else {
                0.0
            }
        })
        .collect();
    Consts {
        sin,
        cos,
        tx,
        ty,
        strel,
    }
}

/// The input's dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    pub width: usize,
    pub height: usize,
    pub rows: usize,
    pub cells: usize,
    pub frames: usize,
    pub iterations: u32,
}

/// Rodinia's run (`testfile.avi 5`, 36 cells): rule 1 keeps it.
pub const PAPER: Dims = Dims {
    width: 640,
    height: 480,
    rows: 219,
    cells: 36,
    frames: 5,
    iterations: 500,
};

/// The registry default: rule 2 of `scale.rs` halves the tracking work dimensions (`cells`,
/// `frames`) once (see the module doc).
pub fn scaled_default() -> Dims {
    let mut d = PAPER;
    for _ in 0..1 {
        d.cells /= 2;
        d.frames /= 2;
    }
    d
}

/// Where the synthetic video draws each cell in frame 0: (row in the vessel band, column,
/// radius).
pub fn cell_layout(d: &Dims, seed: u64) -> Vec<(f64, f64, f64)> {
    let mut rng = Rng::new(seed ^ 0x1e0c);
    let lo = 60usize;
    let hi = d.rows.saturating_sub(26).max(lo);
    let bands = ((hi - lo) / 45 + 1).max(1);
    let per = d.cells.div_ceil(bands).max(1);
    let span = d.width.saturating_sub(90) as f64;
    let step = span / per as f64;
    let mut v = Vec::new();
    for c in 0..d.cells {
        let (b, k) = (c / per, c % per);
        let row = (lo + 45 * b) as f64 + rng.below(7) as f64 - 3.0;
        let col = 45.0 + step * (k as f64 + 0.5) + rng.below(7) as f64 - 3.0;
        let rad = 9.0 + rng.below(3) as f64;
        v.push((row, col, rad));
    }
    v
}

/// Frame `f` of the synthetic video, `height` x `width` grey levels in the orientation the
/// program works in (after `chop_flip_image`): the cells of [`cell_layout`] moved `f`
/// pixels along x, on noisy background.
pub fn frame(d: &Dims, layout: &[(f64, f64, f64)], seed: u64, f: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed.wrapping_mul(0x9E37_79B9).wrapping_add(f as u64 + 1));
    let mut img: Vec<f64> = (0..d.width * d.height)
        .map(|_| 100.0 + rng.below(17) as f64 - 8.0)
        .collect();
    for &(r, c, rad) in layout {
        let (cy, cx) = (r + TOP as f64, c + f as f64);
        let y0 = (cy - rad - 2.0).max(0.0) as usize;
        let x0 = (cx - rad - 2.0).max(0.0) as usize;
        let y1 = ((cy + rad + 2.0) as usize).min(d.height - 1);
        let x1 = ((cx + rad + 2.0) as usize).min(d.width - 1);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let dist = ((y as f64 - cy).powi(2) + (x as f64 - cx).powi(2)).sqrt();
                let w = (rad + 0.5 - dist).clamp(0.0, 1.0);
                img[y * d.width + x] += 60.0 * w;
            }
        }
    }
    img.iter().map(|&v| v.clamp(0.0, 255.0) as u8).collect()
}

/// misc_math.c's `gradient_x` of a row-major `m` x `n` matrix.
pub fn gradient_x(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    let mut g = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            g[i * n + j] = if j == 0 {
                a[i * n + 1] - a[i * n]
            } else if j == n - 1 {
                a[i * n + j] - a[i * n + j - 1]
            } else {
                (a[i * n + j + 1] - a[i * n + j - 1]) / 2.0
            };
        }
    }
    g
}

/// misc_math.c's `gradient_y`.
pub fn gradient_y(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    let mut g = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            g[i * n + j] = if i == 0 {
                a[n + j] - a[j]
            } else if i == m - 1 {
                a[i * n + j] - a[(i - 1) * n + j]
            } else {
                (a[(i + 1) * n + j] - a[(i - 1) * n + j]) / 2.0
            };
        }
    }
    g
}

/// The detection input: the cropped frame 0's gradients, column-major floats as `GICOV`
/// copies them (`host_grad_x[n * grad_m + m]`).
pub fn detection_gradients(d: &Dims, f0: &[u8]) -> (Vec<f32>, Vec<f32>) {
    let (m, n) = (d.rows, d.width);
    let crop: Vec<f64> = (0..m * n)
        .map(|e| f0[(TOP + e / n) * d.width + e % n] as f64)
        .collect();
    let (gx, gy) = (gradient_x(&crop, m, n), gradient_y(&crop, m, n));
    let mut cx = vec![0f32; m * n];
    let mut cy = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            cx[j * m + i] = gx[i * n + j] as f32;
            cy[j * m + i] = gy[i * n + j] as f32;
        }
    }
    (cx, cy)
}

/// One sample point's radial gradient, as `GICOV_kernel` computes it.
#[inline]
fn radial(gx: f32, gy: f32, c: f32, s: f32) -> f32 {
    gx * c + gy * s
}

/// The running mean/variance update of one sample point (`n` zero-based).
#[inline]
fn welford(p: f32, n: usize, sum: &mut f32, mean: &mut f32, m2: &mut f32) {
    *sum += p;
    let delta = p - *mean;
    *mean += delta / (n + 1) as f32;
    *m2 += delta * (p - *mean);
}

/// A circle's score from its sum and M2 (`mean^2 / var`).
#[inline]
fn score(sum: f32, m2: f32) -> f32 {
    let mean = sum / NPOINTS as f32;
    let var = m2 / (NPOINTS - 1) as f32;
    (mean * mean) / var
}

/// Host reference of `GICOV_kernel` over column-major `m` x `n` gradients: the column-major
/// score matrix (zero on the border the kernel leaves out).
pub fn gicov_host(gx: &[f32], gy: &[f32], m: usize, n: usize, c: &Consts) -> Vec<f32> {
    let mut out = vec![0f32; m * n];
    for i in MAXR..n - MAXR {
        for j in MAXR..m - MAXR {
            let mut best = 0f32;
            for k in 0..NCIRCLES {
                let (mut sum, mut mean, mut m2) = (0f32, 0f32, 0f32);
                for p in 0..NPOINTS {
                    let y = j as i32 + c.ty[k * NPOINTS + p];
                    let x = i as i32 + c.tx[k * NPOINTS + p];
                    let a = (x * m as i32 + y) as usize;
                    let v = radial(gx[a], gy[a], c.cos[p], c.sin[p]);
                    welford(v, p, &mut sum, &mut mean, &mut m2);
                }
                let s = score(sum, m2);
                if s > best {
                    best = s;
                }
            }
            out[i * m + j] = best;
        }
    }
    out
}

/// `dilate_CUDA`'s grid: `(int)((float) m n / 176 + 0.5)` blocks.
pub fn dilate_blocks(m: usize, n: usize) -> u32 {
    ((m * n) as f32 / DILATE_TPB as f32 + 0.5) as u32
}

/// Host reference of `dilate_kernel`: the row-major dilated matrix (pixels past the
/// launched threads stay zero, as they stay unwritten in the program).
pub fn dilate_host(img: &[f32], m: usize, n: usize, strel: &[f32]) -> Vec<f32> {
    let mut out = vec![0f32; m * n];
    let threads = dilate_blocks(m, n) as usize * DILATE_TPB as usize;
    let c = (STREL / 2) as i64;
    for tid in 0..threads.min(m * n) {
        let (i, j) = ((tid % m) as i64, (tid / m) as i64);
        let mut best = 0f32;
        for ei in 0..STREL as i64 {
            let y = i - c + ei;
            if y < 0 || y >= m as i64 {
                continue;
            }
            for ej in 0..STREL as i64 {
                let x = j - c + ej;
                if x >= 0 && x < n as i64 && strel[(ei * STREL as i64 + ej) as usize] != 0.0 {
                    let t = img[(x * m as i64 + y) as usize];
                    if t > best {
                        best = t;
                    }
                }
            }
        }
        out[(i * n as i64 + j) as usize] = best;
    }
    out
}

/// detect_main.c's cell selection from the column-major GICOV and the row-major dilated
/// matrices: the cells' centres `(xc, yc)` in the full frame, in the program's order.
pub fn detect(d: &Dims, gicov: &[f32], dilated: &[f32]) -> Vec<(f64, f64)> {
    let (m, n) = (d.rows, d.width);
    let mut v = Vec::new();
    for crow in 0..m {
        for ccol in 0..n {
            let g = gicov[ccol * m + crow] as f64;
            let dl = dilated[crow * n + ccol] as f64;
            if g.abs() < 1e-6 || (dl - g).abs() >= 1e-6 {
                continue;
            }
            // x_result / y_result, GICOV_spots and the feasibility tests
            if !(crow > 29 && crow < m + 38) {
                continue;
            }
            let gs = g.sqrt();
            if (-THRESHOLD..=THRESHOLD).contains(&gs) {
                continue;
            }
            let (x, y) = (ccol as f64, crow as f64 - 40.0);
            let inside = x - RADIUS > BORDER
                && y - RADIUS > BORDER
                && x + RADIUS < d.width as f64 - BORDER
                && y + RADIUS < d.height as f64 - BORDER;
            if inside {
                v.push((x, y + TOP as f64));
            }
        }
    }
    v
}

/// One cell's tracking input: its window's rows, columns and normalised gradient
/// magnitude (`IE` after `MGVF`'s normalisation), row-major floats.
pub struct CellImage {
    pub m: usize,
    pub n: usize,
    pub i: Vec<f32>,
}

/// The tracking windows of frame `f` around the cells (track_ellipse.c, `R = 10`).
pub fn cell_images(d: &Dims, frame: &[u8], centres: &[(f64, f64)]) -> Vec<CellImage> {
    let (ih, iw) = (d.height as f64, d.width as f64);
    let r = RADIUS;
    centres
        .iter()
        .map(|&(xc, yc)| {
            let u1 = (xc - 4.0 * r + 0.5).max(0.0) as usize;
            let u2 = (xc + 4.0 * r + 0.5).min(iw - 1.0) as usize;
            let v1 = (yc - 2.0 * r + 1.5).max(0.0) as usize;
            let v2 = (yc + 2.0 * r + 1.5).min(ih - 1.0) as usize;
            let (m, n) = (v2 - v1 + 1, u2 - u1 + 1);
            let sub: Vec<f64> = (0..m * n)
                .map(|e| frame[(v1 + e / n) * d.width + u1 + e % n] as f64 / 255.0)
                .collect();
            let (gx, gy) = (gradient_x(&sub, m, n), gradient_y(&sub, m, n));
            let ie: Vec<f64> = gx
                .iter()
                .zip(&gy)
                .map(|(a, b)| (a * a + b * b).sqrt())
                .collect();
            let (mut imax, mut imin) = (ie[0], ie[0]);
            for &t in &ie {
                if t > imax {
                    imax = t;
                } else if t < imin {
                    imin = t;
                }
            }
            let scale = 1.0 / (imax - imin + 2f64.powi(-52));
            let i = ie.iter().map(|&t| ((t - imin) * scale) as f32).collect();
            CellImage { m, n, i }
        })
        .collect()
}

/// The kernel's `heaviside`: `atan(x) * ONE_OVER_PI + 0.5` (the constant is a double, so
/// the product and the sum are double).
#[inline]
fn heaviside(x: f32) -> f32 {
    (x.atan() as f64 * (1.0 / PI) + 0.5) as f32
}

/// The IMGVF kernel's float constants: `vx`, `vy`, `1 / e` and the cutoff.
#[derive(Clone, Copy)]
struct Mgvf {
    vx: f32,
    vy: f32,
    one_over_e: f32,
    cutoff: f32,
}

const MGVF: Mgvf = Mgvf {
    vx: 1.0,
    vy: 1.0,
    one_over_e: (1.0 / (EPSILON as f32) as f64) as f32,
    cutoff: CUTOFF as f32,
};

/// Virtual block `k`'s element of thread `tid`: `(i, j)` as the kernel derives them (`i`
/// through the float reciprocal of `n`, `j` stepped by `320 % n`).
#[inline]
fn element(tid: u32, k: u32, n: usize) -> (i64, i64) {
    let one_nth = 1.0f32 / n as f32;
    let i = ((tid + k * TPB) as f32 * one_nth) as i64;
    let tbsize_mod = (TPB as usize % n) as i64;
    let j = (tid as i64 % n as i64 + k as i64 * tbsize_mod) % n as i64;
    (i, j)
}

/// The new value of element `(i, j)` from the matrix `g` and the image `img`.
#[inline]
fn update(g: &[f32], img: &[f32], m: usize, n: usize, i: i64, j: i64) -> (f32, f32) {
    let (m, n) = (m as i64, n as i64);
    let c = MGVF;
    let row_u = if i == 0 { 0 } else { i - 1 };
    let row_d = if i == m - 1 { m - 1 } else { i + 1 };
    let col_l = if j == 0 { 0 } else { j - 1 };
    let col_r = if j == n - 1 { n - 1 } else { j + 1 };
    let at = |r: i64, q: i64| g[(r * n + q) as usize];
    let old = at(i, j);
    let u = at(row_u, j) - old;
    let dn = at(row_d, j) - old;
    let l = at(i, col_l) - old;
    let r = at(i, col_r) - old;
    let ur = at(row_u, col_r) - old;
    let dr = at(row_d, col_r) - old;
    let ul = at(row_u, col_l) - old;
    let dl = at(row_d, col_l) - old;
    let u_he = heaviside((u * -c.vy) * c.one_over_e);
    let d_he = heaviside((dn * c.vy) * c.one_over_e);
    let l_he = heaviside((l * -c.vx) * c.one_over_e);
    let r_he = heaviside((r * c.vx) * c.one_over_e);
    let ur_he = heaviside((ur * (c.vx - c.vy)) * c.one_over_e);
    let dr_he = heaviside((dr * (c.vx + c.vy)) * c.one_over_e);
    let ul_he = heaviside((ul * (-c.vx - c.vy)) * c.one_over_e);
    let dl_he = heaviside((dl * (-c.vx + c.vy)) * c.one_over_e);
    let lap = u_he * u
        + d_he * dn
        + l_he * l
        + r_he * r
        + ur_he * ur
        + dr_he * dr
        + ul_he * ul
        + dl_he * dl;
    let mut new = (old as f64 + MU_OVER_LAMBDA * lap as f64) as f32;
    let vi = img[(i * n + j) as usize];
    new = (new as f64 - ONE_OVER_LAMBDA * vi as f64 * (new - vi) as f64) as f32;
    (new, old)
}

/// Host reference of one block of `IMGVF_kernel` for one cell: the final matrix and the
/// number of iterations run. The 320 threads are run in thread order inside each virtual
/// block (the order in which the model runs them), so the kernel's benign race (a thread
/// may read a neighbour that a lower thread has just written back from `buffer`) resolves
/// the same way.
pub fn imgvf_host(img: &[f32], m: usize, n: usize, max_iterations: u32) -> (Vec<f32>, u32) {
    let mut g = img.to_vec();
    let mut buffer = [0f32; TPB as usize];
    let max = (m * n).div_ceil(TPB as usize) as u32;
    let mut iterations = 0;
    let mut converged = false;
    while !converged && iterations < max_iterations {
        let mut total = [0f32; TPB as usize];
        for k in 0..max {
            for tid in 0..TPB {
                let (i, j) = element(tid, k, n);
                let (new, old) = if i < m as i64 {
                    update(&g, img, m, n, i, j)
                } else {
                    (0.0, 0.0)
                };
                if k > 0 {
                    let (oi, oj) = element(tid, k - 1, n);
                    if oi < m as i64 {
                        g[(oi * n as i64 + oj) as usize] = buffer[tid as usize];
                    }
                }
                if k < max - 1 {
                    buffer[tid as usize] = new;
                } else if i < m as i64 {
                    g[(i * n as i64 + j) as usize] = new;
                }
                total[tid as usize] += (new - old).abs();
            }
        }
        let mut b = total;
        for t in NLP2..TPB {
            b[(t - NLP2) as usize] += b[t as usize];
        }
        let mut th = NLP2 / 2;
        while th > 0 {
            for t in 0..th {
                b[t as usize] += b[(t + th) as usize];
            }
            th /= 2;
        }
        let mean = b[0] / (m * n) as f32;
        if mean < MGVF.cutoff {
            converged = true;
        }
        iterations += 1;
    }
    (g, iterations)
}

/// The data objects.
#[derive(Clone, Copy)]
struct Objs {
    grad_x: ObjId,
    grad_y: ObjId,
    c_sin: ObjId,
    c_cos: ObjId,
    c_tx: ObjId,
    c_ty: ObjId,
    c_strel: ObjId,
    gicov: ObjId,
    dilated: ObjId,
    imgvf_array: ObjId,
    i_array: ObjId,
    m_array: ObjId,
    n_array: ObjId,
    i_all: ObjId,
    imgvf_all: ObjId,
}

/// `GICOV_kernel`. Per thread (issue 7 §1 counting): entry `S2R` x2 and the two indices (4
/// int); per circle the sums' reset; per sample point the `c_tY`/`c_tX` constant loads, the
/// coordinates and address (3 int), two texture fetches, the `c_cos`/`c_sin` constant
/// loads, the projection (`FMUL; FFMA`), the running sums (`FADD` x3, `FFMA`), the
/// division by `n + 1` (`I2F`, `MUFU.RCP` and 4 fp of the IEEE division: 2 sfu + 5 fp) and
/// the loop control of a loop unrolled by 4 (2 int + `BRA` per 4 points); per circle the
/// two divisions and the ratio (3 `MUFU.RCP` + 13 fp) and the running maximum (`FSETP`,
/// `FSEL`); then the address (2 int) and `STG`.
struct GicovKernel {
    o: Objs,
    m: u32,
    n: u32,
}

impl Kernel for GicovKernel {
    fn info(&self) -> KernelInfo {
        kinfo(
            "GICOV_kernel",
            Dim3::x(self.n - 2 * MAXR as u32),
            Dim3::x(self.m - 2 * MAXR as u32),
            32,
            0,
        )
    }
    fn writes(&self) -> Option<Vec<ObjId>> {
        Some(vec![self.o.gicov])
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let o = self.o;
        let i = t.block.x as i32 + MAXR as i32;
        let j = t.tid.x as i32 + MAXR as i32;
        let m = self.m as i32;
        t.alu(4);
        let mut best = 0f32;
        for k in 0..NCIRCLES {
            let (mut sum, mut mean, mut m2) = (0f32, 0f32, 0f32);
            for p in 0..NPOINTS {
                let e = (k * NPOINTS + p) as u64;
                let ty: i32 = t.ld_const(o.c_ty, e);
                let tx: i32 = t.ld_const(o.c_tx, e);
                t.alu(3);
                let a = ((i + tx) * m + (j + ty)) as u64;
                let gx: f32 = t.ld_tex(o.grad_x, a);
                let gy: f32 = t.ld_tex(o.grad_y, a);
                let c: f32 = t.ld_const(o.c_cos, p as u64);
                let s: f32 = t.ld_const(o.c_sin, p as u64);
                t.fp(2);
                let v = radial(gx, gy, c, s);
                t.fp(4);
                t.sfu(2);
                t.fp(5);
                welford(v, p, &mut sum, &mut mean, &mut m2);
                if p % 4 == 3 || p == NPOINTS - 1 {
                    t.alu(2);
                    t.branch(1);
                }
            }
            t.sfu(3);
            t.fp(13);
            let sc = score(sum, m2);
            t.fp(2);
            if sc > best {
                best = sc;
            }
        }
        t.alu(2);
        t.st(o.gicov, (i * m + j) as u64, best);
    }
}

/// `dilate_kernel`. Per thread: entry (`S2R` x2, `IMAD`), the centre (2 int), `tid % m`
/// and `tid / m` by a run-time divisor (10 int, 2 sfu for the reciprocal); per element row
/// `y` and its bounds test (3 int, `BRA`); per element `x` and its bounds test (3 int,
/// `BRA`), then the `c_strel` constant load (address 1 int) and its test (`FSETP`, `BRA`),
/// and for a disc element the address (1 int), the texture fetch and the maximum (1 fp);
/// the loop control (2 int, `BRA`) of both loops; then the address (2 int) and `STG`.
struct DilateKernel {
    o: Objs,
    m: u32,
    n: u32,
}

impl Kernel for DilateKernel {
    fn info(&self) -> KernelInfo {
        kinfo(
            "dilate_kernel",
            Dim3::x(dilate_blocks(self.m as usize, self.n as usize)),
            Dim3::x(DILATE_TPB),
            24,
            0,
        )
    }
    fn writes(&self) -> Option<Vec<ObjId>> {
        Some(vec![self.o.dilated])
    }
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let o = self.o;
        let (m, n) = (self.m as i64, self.n as i64);
        let tid = t.gid() as i64;
        t.alu(3 + 2 + 10);
        t.sfu(2);
        let (i, j) = (tid % m, tid / m);
        let c = (STREL / 2) as i64;
        let mut best = 0f32;
        for ei in 0..STREL as i64 {
            let y = i - c + ei;
            t.alu(3);
            t.branch(1);
            if y >= 0 && y < m {
                for ej in 0..STREL as i64 {
                    let x = j - c + ej;
                    t.alu(3);
                    t.branch(1);
                    if x >= 0 && x < n {
                        t.alu(1);
                        let s: f32 = t.ld_const(o.c_strel, (ei * STREL as i64 + ej) as u64);
                        t.fp(1);
                        t.branch(1);
                        if s != 0.0 {
                            t.alu(1);
                            let v: f32 = t.ld_tex(o.gicov, (x * m + y) as u64);
                            t.fp(1);
                            if v > best {
                                best = v;
                            }
                        }
                    }
                    t.alu(2);
                    t.branch(1);
                }
            }
            t.alu(2);
            t.branch(1);
        }
        t.alu(2);
        t.st(o.dilated, (i * n + j) as u64, best);
    }
}

/// `IMGVF_kernel` for one frame. Phases: 0 stages the matrix, 1 clears `cell_converged`,
/// then per iteration `maxv + 11` phases (`maxv` virtual blocks, the reduction's store,
/// its odd step, 8 tree steps and thread 0's test), and a last phase stores the matrix.
///
/// Per thread and element of a virtual block (sm_70-class SASS): the element's indices
/// (`IADD` x2, `I2F`, `FMUL`, `F2I`, the `j` step 3 int, the `i < m` test: 6 int, 2 sfu,
/// 1 fp, `BRA`); the clamped neighbours (8 int) and the nine addresses (12 int); 9 `LDS`;
/// 8 `FADD`; eight Heaviside values (2 `FMUL` for the argument, `atanf` with its
/// reciprocal (`MUFU.RCP`) and 14-term polynomial and fixups (14 fp, 1 sfu), `F2F` to
/// double, `DFMA`, `F2F` back: 17 fp and 3 sfu each); the float Laplacian (8 fp), its
/// double update (3 `F2F`, `DFMA`); the image load `I[i n + j]` (2 int, `LDG`) and the
/// double data term (4 `F2F`, 4 fp); the buffered write-back (`LDS buffer`, 2 int, `STS`)
/// and the store of the new value (2 int, `STS`) with their tests (3 int, 3 `BRA`);
/// `|new - old|` (2 fp); the loop control (2 int, `BRA`). About 255 instructions, 12 of
/// them shared-memory and one global.
struct ImgvfKernel {
    o: Objs,
    /// (rows, columns, first element) of each cell's matrix.
    cells: Vec<(u32, u32, u64)>,
    /// Virtual blocks of the largest cell.
    maxv: u32,
    /// Iterations of the slowest cell (the phase count).
    iters: u32,
    max_iterations: u32,
    /// Per-thread `total_diff` (a register across barriers).
    total: Mutex<Vec<f32>>,
    /// The block left the while loop (its threads read `cell_converged` set).
    exited: Mutex<bool>,
}

impl ImgvfKernel {
    fn per_iteration(&self) -> u32 {
        self.maxv + 11
    }

    /// The while test at the top of an iteration: `LDS cell_converged`, the two
    /// compares, `BRA`. True when the block leaves the loop.
    fn while_test(&self, t: &mut Thread<'_>, iteration: u32) -> bool {
        let conv = t.sh_ld(SH_CONV);
        t.alu(2);
        t.branch(1);
        conv != 0 || iteration >= self.max_iterations
    }
}

impl Kernel for ImgvfKernel {
    fn info(&self) -> KernelInfo {
        kinfo(
            "IMGVF_kernel",
            Dim3::x(self.cells.len() as u32),
            Dim3::x(TPB),
            40,
            (SH_CONV + 1) * 4,
        )
    }
    fn phases(&self) -> u32 {
        2 + self.iters * self.per_iteration() + 1
    }
    fn writes(&self) -> Option<Vec<ObjId>> {
        Some(vec![self.o.imgvf_all])
    }
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let o = self.o;
        let tid = t.tid.x;
        let cell = t.block.x as u64;
        let (m, n, _) = self.cells[cell as usize];
        let (m, n) = (m as usize, n as usize);
        let max = (m * n).div_ceil(TPB as usize) as u32;
        if phase == 0 {
            *self.exited.lock().unwrap() = false;
            t.alu(3);
            let base_g: u64 = t.ld(o.imgvf_array, cell);
            let base_i: u64 = t.ld(o.i_array, cell);
            let _m: i32 = t.ld(o.m_array, cell);
            let _n: i32 = t.ld(o.n_array, cell);
            debug_assert_eq!(base_i, base_g);
            t.alu(3);
            for k in 0..max {
                let idx = (tid + k * TPB) as usize;
                let (i, j) = (idx / n, idx % n);
                t.alu(11);
                t.sfu(2);
                t.branch(1);
                if i < m {
                    t.alu(2);
                    let v: f32 = t.ld(o.imgvf_all, base_g + (i * n + j) as u64);
                    t.alu(1);
                    t.sh_st_f32((i * n + j) as u32, v);
                }
                t.alu(2);
                t.branch(1);
            }
            return;
        }
        if phase == 1 {
            t.alu(1);
            t.branch(1);
            if tid == 0 {
                t.sh_st(SH_CONV, 0);
            }
            return;
        }
        let last = self.phases() - 1;
        let base_g = self.cells[cell as usize].2;
        if phase == last {
            if !*self.exited.lock().unwrap() {
                self.while_test(t, self.iters);
            }
            for k in 0..max {
                let idx = (tid + k * TPB) as usize;
                let (i, j) = (idx / n, idx % n);
                t.alu(11);
                t.sfu(2);
                t.branch(1);
                if i < m {
                    t.alu(2);
                    let v = t.sh_ld_f32((i * n + j) as u32);
                    t.st(o.imgvf_all, base_g + (i * n + j) as u64, v);
                }
                t.alu(2);
                t.branch(1);
            }
            return;
        }
        if *self.exited.lock().unwrap() {
            return;
        }
        let q = phase - 2;
        let (it, r) = (q / self.per_iteration(), q % self.per_iteration());
        if r == 0 {
            if it == 0 {
                // one_nth, tid % n, 320 % n, 1.0 / e (double)
                t.sfu(2);
                t.fp(3);
                t.alu(20);
                t.sfu(4);
                t.sfu(2);
                t.fp(8);
            }
            if self.while_test(t, it) {
                *self.exited.lock().unwrap() = true;
                return;
            }
            self.total.lock().unwrap()[tid as usize] = 0.0;
            t.alu(1);
        }
        if r < self.maxv {
            let k = r;
            if k >= max {
                return;
            }
            self.vblock(t, k, max, m, n, base_g);
            return;
        }
        let r = r - self.maxv;
        match r {
            0 => {
                let td = self.total.lock().unwrap()[tid as usize];
                t.sh_st_f32(SH_BUF + tid, td);
            }
            1 => {
                t.alu(1);
                t.branch(1);
                if tid >= NLP2 {
                    let a = t.sh_ld_f32(SH_BUF + tid - NLP2);
                    let b = t.sh_ld_f32(SH_BUF + tid);
                    t.fp(1);
                    t.sh_st_f32(SH_BUF + tid - NLP2, a + b);
                }
            }
            2..=9 => {
                let th = (NLP2 / 2) >> (r - 2);
                t.alu(1);
                t.branch(1);
                if tid < th {
                    let a = t.sh_ld_f32(SH_BUF + tid);
                    let b = t.sh_ld_f32(SH_BUF + tid + th);
                    t.fp(1);
                    t.sh_st_f32(SH_BUF + tid, a + b);
                }
            }
            _ => {
                t.alu(1);
                t.branch(1);
                if tid == 0 {
                    let s = t.sh_ld_f32(SH_BUF);
                    t.alu(1);
                    t.sfu(2);
                    t.fp(5);
                    t.branch(1);
                    let mean = s / (m * n) as f32;
                    if mean < MGVF.cutoff {
                        t.sh_st(SH_CONV, 1);
                    }
                }
                t.alu(1);
            }
        }
    }
}

impl ImgvfKernel {
    /// Virtual block `k` of one thread: update its element, write back the previous one.
    fn vblock(&self, t: &mut Thread<'_>, k: u32, max: u32, m: usize, n: usize, base: u64) {
        let o = self.o;
        let tid = t.tid.x;
        let (i, j) = element(tid, k, n);
        t.alu(6);
        t.sfu(2);
        t.fp(1);
        t.branch(1);
        let (mut new, mut old) = (0f32, 0f32);
        if i < m as i64 {
            let (mi, ni) = (m as i64, n as i64);
            let row_u = if i == 0 { 0 } else { i - 1 };
            let row_d = if i == mi - 1 { mi - 1 } else { i + 1 };
            let col_l = if j == 0 { 0 } else { j - 1 };
            let col_r = if j == ni - 1 { ni - 1 } else { j + 1 };
            t.alu(8 + 12);
            // the nine shared loads, in the kernel's order, feed `update` below
            let sh = |r: i64, q: i64| (r * ni + q) as u32;
            let mut g = [0f32; 9];
            for (v, a) in g.iter_mut().zip([
                sh(i, j),
                sh(row_u, j),
                sh(row_d, j),
                sh(i, col_l),
                sh(i, col_r),
                sh(row_u, col_r),
                sh(row_d, col_r),
                sh(row_u, col_l),
                sh(row_d, col_l),
            ]) {
                *v = t.sh_ld_f32(a);
            }
            t.fp(8);
            t.fp(8 * 17);
            t.sfu(8 * 3);
            t.fp(8 + 1);
            t.sfu(3);
            t.alu(2);
            let vi: f32 = t.ld(o.i_all, base + (i * ni + j) as u64);
            t.sfu(4);
            t.fp(4);
            // the same arithmetic as the host reference, on a 3 x 3 copy of the window
            let mut img = [0f32; 9];
            img[4] = vi;
            let (a, b) = update(&window(&g), &img, 3, 3, 1, 1);
            new = a;
            old = b;
        }
        t.alu(1);
        t.branch(1);
        if k > 0 {
            let (oi, oj) = element(tid, k - 1, n);
            t.alu(1);
            t.branch(1);
            if oi < m as i64 {
                let b = t.sh_ld(SH_BUF + tid);
                t.alu(2);
                t.sh_st((oi * n as i64 + oj) as u32, b);
            }
        }
        t.alu(1);
        t.branch(1);
        if k < max - 1 {
            t.alu(1);
            t.sh_st_f32(SH_BUF + tid, new);
        } else if i < m as i64 {
            t.alu(2);
            t.sh_st_f32((i * n as i64 + j) as u32, new);
        }
        t.fp(2);
        self.total.lock().unwrap()[tid as usize] += (new - old).abs();
        t.alu(2);
        t.branch(1);
    }
}

/// A row-major 3 x 3 copy of an element's neighbourhood from the nine shared loads in the
/// kernel's order (C, U, D, L, R, UR, DR, UL, DL; clamped at the borders as the kernel
/// clamps), so that [`update`] runs unchanged on it at `(1, 1)`.
fn window(v: &[f32; 9]) -> [f32; 9] {
    [v[7], v[1], v[5], v[3], v[0], v[4], v[8], v[2], v[6]]
}

/// The host program: detection kernels, then one IMGVF launch per frame.
struct LeukocyteHost {
    o: Objs,
    d: Dims,
    layout: Vec<(f64, f64, f64)>,
    seed: u64,
    step: usize,
    centres: Vec<(f64, f64)>,
    capacity: usize,
}

impl Host for LeukocyteHost {
    fn next_kernel(&mut self, mem: &mut Memory) -> Option<Box<dyn Kernel>> {
        let (m, n) = (self.d.rows as u32, self.d.width as u32);
        let o = self.o;
        self.step += 1;
        match self.step {
            1 => return Some(Box::new(GicovKernel { o, m, n })),
            2 => return Some(Box::new(DilateKernel { o, m, n })),
            3 => {
                let g: Vec<f32> = mem.to_vec(o.gicov);
                let dl: Vec<f32> = mem.to_vec(o.dilated);
                self.centres = detect(&self.d, &g, &dl);
                self.centres.truncate(self.capacity);
            }
            _ => {}
        }
        let f = self.step - 2;
        if f > self.d.frames || self.centres.is_empty() {
            return None;
        }
        let fr = frame(&self.d, &self.layout, self.seed, f);
        let imgs = cell_images(&self.d, &fr, &self.centres);
        let mut cells = Vec::with_capacity(imgs.len());
        let mut off = 0u64;
        let (mut maxv, mut iters) = (0u32, 0u32);
        for (c, ci) in imgs.iter().enumerate() {
            for (e, &v) in ci.i.iter().enumerate() {
                mem.set(o.i_all, off + e as u64, v);
                mem.set(o.imgvf_all, off + e as u64, v);
            }
            mem.set(o.imgvf_array, c as u64, off);
            mem.set(o.i_array, c as u64, off);
            mem.set(o.m_array, c as u64, ci.m as i32);
            mem.set(o.n_array, c as u64, ci.n as i32);
            cells.push((ci.m as u32, ci.n as u32, off));
            maxv = maxv.max((ci.m * ci.n).div_ceil(TPB as usize) as u32);
            let (_, it) = imgvf_host(&ci.i, ci.m, ci.n, self.d.iterations);
            iters = iters.max(it);
            off += (ci.m * ci.n) as u64;
        }
        Some(Box::new(ImgvfKernel {
            o,
            cells,
            maxv,
            iters,
            max_iterations: self.d.iterations,
            total: Mutex::new(vec![0.0; TPB as usize]),
            exited: Mutex::new(false),
        }))
    }
}

/// The dimensions and the checks of the parameters.
fn dims(p: &Params) -> Result<Dims, WorkloadError> {
    let d = Dims {
        width: p.u64("width", 640)? as usize,
        height: p.u64("height", 480)? as usize,
        rows: p.u64("rows", 219)? as usize,
        cells: p.u64("cells", 9)? as usize,
        frames: p.u64("frames", 1)? as usize,
        iterations: p.u64("iterations", 500)? as u32,
    };
    if d.width < 2 * MAXR + 2 || d.width > 8192 {
        return Err(bad(format!(
            "leukocyte: width = {} must be in {}..=8192",
            d.width,
            2 * MAXR + 2
        )));
    }
    if d.rows < 2 * MAXR + 2 || d.rows > 1024 {
        return Err(bad(format!(
            "leukocyte: rows = {} must be in {}..=1024 (the GICOV block has rows - 44 threads)",
            d.rows,
            2 * MAXR + 2
        )));
    }
    if d.height < TOP + d.rows || d.height > 8192 {
        return Err(bad(format!(
            "leukocyte: height = {} must hold the vessel band (>= 110 + rows = {}, <= 8192)",
            d.height,
            TOP + d.rows
        )));
    }
    if d.cells > 4096 || d.frames > 1000 || d.iterations > 100_000 {
        return Err(bad(
            "leukocyte: cells <= 4096, frames <= 1000, iterations <= 100000".into(),
        ));
    }
    Ok(d)
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let d = dims(p)?;
    let (mem, host) = program(&d, p.seed);
    Ok(ModelWorkload::new("leukocyte", mem, host))
}

/// The host's detection of the cells of frame 0, as the kernels will compute it.
pub fn detected(d: &Dims, seed: u64) -> Vec<(f64, f64)> {
    let layout = cell_layout(d, seed);
    let f0 = frame(d, &layout, seed, 0);
    let (gx, gy) = detection_gradients(d, &f0);
    let c = constants();
    let g = gicov_host(&gx, &gy, d.rows, d.width, &c);
    let dl = dilate_host(&g, d.rows, d.width, &c.strel);
    detect(d, &g, &dl)
}

/// Allocate the program's buffers and return the memory and the host.
fn program(d: &Dims, seed: u64) -> (Memory, Box<dyn Host>) {
    let layout = cell_layout(d, seed);
    let f0 = frame(d, &layout, seed, 0);
    let (gx, gy) = detection_gradients(d, &f0);
    let c = constants();
    // the cell count sizes the tracking buffers (cudaMalloc'd per frame by the program)
    let g = gicov_host(&gx, &gy, d.rows, d.width, &c);
    let dl = dilate_host(&g, d.rows, d.width, &c.strel);
    let capacity = detect(d, &g, &dl).len();
    let cap = capacity.max(1) as u64;
    let mut mem = Memory::new();
    let mn = (d.rows * d.width) as u64;
    let o = Objs {
        grad_x: mem.alloc_from("device_grad_x", &gx, true),
        grad_y: mem.alloc_from("device_grad_y", &gy, true),
        c_sin: mem.alloc_from("c_sin_angle", &c.sin, true),
        c_cos: mem.alloc_from("c_cos_angle", &c.cos, true),
        c_tx: mem.alloc_from("c_tX", &c.tx, true),
        c_ty: mem.alloc_from("c_tY", &c.ty, true),
        c_strel: mem.alloc_from("c_strel", &c.strel, true),
        gicov: mem.alloc::<f32>("device_gicov", mn, false),
        dilated: mem.alloc::<f32>("device_img_dilated", mn, false),
        imgvf_array: mem.alloc::<u64>("device_IMGVF_array", cap, true),
        i_array: mem.alloc::<u64>("device_I_array", cap, true),
        m_array: mem.alloc::<i32>("device_m_array", cap, true),
        n_array: mem.alloc::<i32>("device_n_array", cap, true),
        i_all: mem.alloc::<f32>("device_I_all", cap * 41 * 81, true),
        imgvf_all: mem.alloc::<f32>("device_IMGVF_all", cap * 41 * 81, false),
    };
    let host = LeukocyteHost {
        o,
        d: *d,
        layout,
        seed,
        step: 0,
        centres: Vec::new(),
        capacity,
    };
    (mem, Box::new(host))
}
