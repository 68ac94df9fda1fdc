//! SHOC QTC (level 2, `qtclustering/QTC.cu`, `kernels_common.h`, `kernels_full_storage.h`):
//! quality-threshold clustering of synthetic 2-D points with the full-storage distance
//! matrix. Kernels: `compute_degrees` (once), then per found cluster `QTC_device`,
//! `reduce_card_device` (when more than one block ran), `trim_ungrouped_pnts_indr_array`
//! and `update_clustered_pnts_mask`, as `QTC()`'s `do { .. } while (max_card > 1 &&
//! point_count)` loop launches them on one GPU (`THREADSPERBLOCK` 64, `SM_COUNT *
//! OVR_SBSCR_FACTOR` = 256 blocks while at least 256 points are left, else one block per
//! point; `grid2D` keeps them in one row).
//!
//! `QTC_device`: block `b` takes seeds `ungrpd_pnts_indr[b], [b + 256], ..`; a seed whose
//! degree does not beat the block's best so far is skipped; otherwise the block grows the
//! seed's candidate cluster (`generate_candidate_cluster_full_storage`, the cardinality-only
//! path): it clears its row of `Ai_mask` (chars) and of `dist_to_clust`, marks the seed,
//! `__syncthreads()`, prefetches up to 12 of the seed's neighbours per thread from
//! `indr_mtrx` into registers (`cand_pnt_1..12`, slots `k * 64 + tid`), `__syncthreads()`,
//! then per added point checks every candidate (`CHECK_POINT_FOR_PROXIMITY`: a candidate
//! already in the cluster or clustered earlier is dropped for good; else its distance to
//! the latest point `dist_matrix[cand * N0 + latest]` raises the candidate's diameter, kept
//! in a register for the 12 prefetched slots and in `dist_to_clust` beyond them) and picks
//! the smallest diameter by `closest_point_reduction` (shared `dist_array` and
//! `point_index_array`, `__syncthreads()`, thread 0 scans the 64 entries, ties to the lower
//! index, `__syncthreads()`); thread 0 marks the winner and a `__syncthreads()` ends the
//! step, until no candidate is within the threshold; a last `__syncthreads()`. Thread 0
//! stores the block's best cardinality and seed. `trim_ungrouped_pnts_indr_array` (one
//! block) regrows the winner's cluster with its members (`find_closest_point_to_cluster`:
//! every slot up to `max_degree`, diameters in `dist_to_clust`) into block 0's `Ai_mask`
//! row and `result`, then compacts `ungrpd_pnts_indr` in chunks of 64 (`tmp_pnts`,
//! `cnt_sh`, `flag_sh` in shared memory, thread 0 fixes a chunk holding clustered points);
//! `update_clustered_pnts_mask` ORs that row into `clustered_pnts_mask`.
//!
//! The barriers sit inside data-dependent loops whose trip counts every thread of a block
//! agrees on. The host precomputes each block's sequence of barrier-separated segments with
//! a plain replica of the algorithm ([`grow`]) and the kernel declares the longest sequence
//! as its phases; the threads compute every value themselves from what they load (their
//! registers across barriers are kept per block), and the replica only decides which code
//! runs in which phase (a debug assertion checks they agree).
//!
//! Input. HMS Table IV (training set, `QTC_device`, `distance_matrix_txt` G→2T) gives no
//! size; SHOC's size class 1: 4096 points, threshold 1, distance matrix in global memory
//! (`TextureMem` 0), full storage. Points as `generate_synthetic_data`: groups of `random()
//! % (N / 30)` points around random centres in the 20 x 20 square, radius up to 10.
//! Rule 1 of `scale.rs` with the N x N matrix as two dimensions (footprint of the 4096
//! points with the data of seed 1, maximum degree 137: 70.6 MB, factor 0.689), stepped down
//! until the linear buffers fit too: 2789 points ([`rule1_points`]). Rule 2 applied twice
//! (work grows faster than the footprint: every found cluster relaunches the clustering of
//! all points left): 1394 points took 929 launches, 305 M warp instructions, 14.5 M L1
//! requests and 81 s of host CPU on `coda-4gpu` (269 s wall on the loaded machine), so
//! the count halves again to 697 ([`default_points`]). `dist_space` = `texture` reads the matrix through
//! `tex2D` (HMS's 2T placement; the texture's tiled layout is approximated by the row-major
//! address).

use super::common::{bad, entry, kinfo, loop_step, MemSpace};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Host, Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use crate::scale::{dim, linear_factor};
use std::sync::Mutex;

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "shoc-qtc",
    suite: "SHOC",
    category: "-",
    about: "SHOC QTC quality-threshold clustering, full storage: compute_degrees, QTC_device, reduce_card_device, trim_ungrouped_pnts_indr_array, update_clustered_pnts_mask",
    params: &[
        ParamSpec {
            name: "points",
            default: "697",
            help: "points (SHOC size 1: 4096; rule 1, then rule 2 twice)",
        },
        ParamSpec {
            name: "threshold",
            default: "1",
            help: "cluster diameter threshold (SHOC: 1)",
        },
        ParamSpec {
            name: "dist_space",
            default: "global",
            help: "space of the distance matrix: global | texture (HMS G->2T)",
        },
    ],
    build,
};

/// `THREADSPERBLOCK`.
const TPB: u64 = 64;
/// `SM_COUNT * OVR_SBSCR_FACTOR`.
const MAX_BLOCKS: u64 = 256;
/// Prefetched candidates per thread.
const PREF: u64 = 12;
/// Shared words: `dist_array`, `point_index_array`, then trim's `tmp_pnts`, `cnt_sh`,
/// `flag_sh`.
const SH_PIDX: u32 = TPB as u32;
const SH_TMP: u32 = 2 * TPB as u32;
const SH_CNT: u32 = 3 * TPB as u32;
const SH_FLAG: u32 = SH_CNT + 1;
/// `INVALID_POINT_MARKER`.
const INVALID: i32 = -42;

/// The synthetic input of `generate_synthetic_data`.
pub struct QtcData {
    /// Points.
    pub n: u64,
    /// `max_degree`: the most neighbours within the threshold of any point.
    pub max_degree: u64,
    /// N x N distances, `f32::MAX` beyond the threshold.
    pub dist: Vec<f32>,
    /// N x max_degree neighbour indices, -1 padded.
    pub indr: Vec<i32>,
}

/// `generate_synthetic_data`'s points, with our generator in place of `random()`.
pub fn points(n: u64, seed: u64) -> Vec<(f32, f32)> {
    let mut rng = Rng::new(seed);
    let (w, h) = (20f32, 20f32);
    let mut pts: Vec<(f32, f32)> = Vec::with_capacity(n as usize);
    let group_max = (n / 30).max(1);
    while (pts.len() as u64) < n {
        let cx = rng.f32() * w;
        let cy = rng.f32() * h;
        let r_max = rng.f32() * w.min(h) / 2.0;
        let mut group = rng.below(group_max).min(n - pts.len() as u64);
        while group > 0 {
            let sign = if rng.f32() < 0.5 { -1.0 } else { 1.0 };
            let r = rng.f32() * r_max;
            let dx = (2.0 * rng.f32() - 1.0) * r;
            let dy = (r * r - dx * dx).max(0.0).sqrt() * sign;
            let (x, y) = (cx + dx, cy + dy);
            if !(0.0..=w).contains(&x) || !(0.0..=h).contains(&y) {
                continue;
            }
            pts.push((x, y));
            group -= 1;
        }
    }
    pts
}

/// Each point's neighbours within `threshold` (index, distance), in index order.
fn neighbours(pts: &[(f32, f32)], threshold: f32) -> Vec<Vec<(usize, f32)>> {
    let t2 = threshold * threshold;
    (0..pts.len())
        .map(|i| {
            let a = pts[i];
            (0..pts.len())
                .filter(|&j| j != i)
                .filter_map(|j| {
                    let b = pts[j];
                    let d2 = (a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1);
                    (d2 < t2).then(|| (j, (d2 as f64).sqrt() as f32))
                })
                .collect()
        })
        .collect()
}

/// The full-storage input of `generate_synthetic_data`.
pub fn generate(n: u64, threshold: f32, seed: u64) -> QtcData {
    let lists = neighbours(&points(n, seed), threshold);
    let nn = n as usize;
    let d = lists.iter().map(|l| l.len()).max().unwrap_or(0).max(1);
    let mut dist = vec![f32::MAX; nn * nn];
    let mut indr = vec![-1i32; nn * d];
    for (i, l) in lists.iter().enumerate() {
        for (k, &(j, v)) in l.iter().enumerate() {
            indr[i * d + k] = j as i32;
            dist[i * nn + j] = v;
            dist[j * nn + i] = v;
        }
    }
    QtcData {
        n,
        max_degree: d as u64,
        dist,
        indr,
    }
}

/// Bytes of the device objects for `n` points of maximum degree `d` (`QTC()`'s buffers
/// with 256 blocks).
pub fn footprint(n: u64, d: u64) -> u64 {
    n * n * 4 + n * d * 4 + 4 * n * 4 + MAX_BLOCKS * n + MAX_BLOCKS * d * 4 + n + MAX_BLOCKS * 8
}

/// Rule 1 on SHOC's 4096 points: the matrix is N x N, so two dimensions shrink by
/// `linear_factor`; the buffers linear in N do not shrink with it, so the count then steps
/// down until the footprint (with the maximum degree of the 4096-point data of seed 1)
/// fits.
pub fn rule1_points() -> u64 {
    let lists = neighbours(&points(4096, 1), 1.0);
    let d = lists.iter().map(|l| l.len()).max().unwrap_or(1) as u64;
    let f = linear_factor(footprint(4096, d), 2);
    let mut n = dim(4096, f, 1);
    while footprint(n, d) > crate::scale::FOOTPRINT_CAP_BYTES {
        n -= 1;
    }
    n
}

/// The default point count: [`rule1_points`] halved [`RULE2_HALVINGS`] times.
pub fn default_points() -> u64 {
    rule1_points() >> RULE2_HALVINGS
}

/// Times rule 2 of `scale.rs` halved the point count.
pub const RULE2_HALVINGS: u32 = 2;

/// A host replica's view of device state for one candidate-cluster growth.
pub struct Ctx<'a> {
    /// N0.
    pub n0: usize,
    /// `max_degree`.
    pub maxd: usize,
    /// Threshold.
    pub threshold: f32,
    /// Distances.
    pub dist: &'a [f32],
    /// Neighbour lists.
    pub indr: &'a [i32],
    /// `clustered_pnts_mask`.
    pub clustered: &'a [u8],
}

/// The replica of `generate_candidate_cluster_full_storage` / `find_closest_point_to_
/// cluster`: candidate slots `s < degree` are owned by thread `s % 64` in slot order; each
/// thread keeps the first smallest diameter of its slots (`<`), thread 0 scans the 64
/// partial minima (ties to the lower index) and rejects a minimum above the threshold.
/// Returns the members in order (seed first) and whether the growth ended on an empty
/// step (the `flag = false` iteration) rather than on `cnt == point_count`.
pub fn grow(c: &Ctx<'_>, seed: usize, degree: usize, point_count: usize) -> (Vec<i32>, bool) {
    let mut in_cluster = vec![false; c.n0];
    in_cluster[seed] = true;
    let mut members = vec![seed as i32];
    let mut diam = vec![0f32; degree];
    let mut latest = seed;
    while members.len() < point_count {
        let mut best = [(2.0 * c.threshold, -1i32); TPB as usize];
        for s in 0..degree {
            let cand = c.indr[seed * c.maxd + s];
            if cand < 0 || in_cluster[cand as usize] || c.clustered[cand as usize] != 0 {
                continue;
            }
            let d = c.dist[cand as usize * c.n0 + latest];
            if d > diam[s] {
                diam[s] = d;
            }
            let b = &mut best[s % TPB as usize];
            if diam[s] < b.0 {
                *b = (diam[s], cand);
            }
        }
        let (mut md, mut pi) = best[0];
        for &(dj, pj) in &best[1..] {
            if dj < md || (dj == md && pj < pi) {
                md = dj;
                pi = pj;
            }
        }
        if md > c.threshold || pi < 0 {
            return (members, true);
        }
        in_cluster[pi as usize] = true;
        members.push(pi);
        latest = pi as usize;
    }
    (members, false)
}

/// What a block's threads do in one barrier-separated phase.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Act {
    /// Kernel entry.
    Entry,
    /// `QTC_device`'s loop head at seed position `i`; `skip`: its degree does not beat
    /// the block's best.
    Seed { i: u32, skip: bool },
    /// Clear the block's `Ai_mask` row and `dist_to_clust`, mark the seed.
    Clean,
    /// Prefetch the seed's first `12 * 64` neighbours into registers.
    Prefetch,
    /// One proximity check (prefetched slots, then the rest) and the shared stores.
    Check,
    /// The trim kernel's `find_closest_point_to_cluster` loop over `max_degree`.
    Find,
    /// Thread 0's scan of the 64 partial minima.
    Scan,
    /// Read the winner, thread 0 marks it.
    Decide,
    /// After the growth: keep the best cardinality, next seed.
    Update,
    /// Thread 0 stores the block's cardinality and seed.
    Card,
    /// Trim: thread 0 initialises `cnt_sh`, `flag_sh`.
    CompactInit,
    /// Trim: copy a chunk of 64 ungrouped points, flag the clustered ones.
    CompactCopy { i: u32 },
    /// Trim: thread 0 fixes a flagged chunk.
    CompactFix { i: u32 },
}

/// Per-thread registers kept across barriers.
#[derive(Clone, Copy, Debug, Default)]
struct TRegs {
    seed: i32,
    degree: i32,
    cand: [i32; PREF as usize],
    cpd: [f32; PREF as usize],
    min_dist: f32,
    pidx: i32,
    latest: i32,
    cnt: i32,
    flag: bool,
    max_card: i32,
    max_idx: i32,
}

/// The buffers of `QTC()`.
#[derive(Clone, Copy, Debug)]
struct Objs {
    dist: ObjId,
    ai_mask: ObjId,
    clustered: ObjId,
    indr: ObjId,
    cardnl: ObjId,
    ungrpd: ObjId,
    dist_to_clust: ObjId,
    degrees: ObjId,
    result: ObjId,
}

/// Launch constants shared by the clustering kernels.
#[derive(Clone, Copy, Debug)]
struct Shape {
    n0: u64,
    maxd: u64,
    point_count: u64,
    threshold: f32,
    space: MemSpace,
}

/// The growth kernels' common code (`QTC_device` and the trim kernel).
struct Grower {
    o: Objs,
    s: Shape,
    /// Acts per block and phase.
    script: Vec<Vec<Vec<Act>>>,
    /// Registers of the block being generated (one block at a time).
    regs: Mutex<Vec<TRegs>>,
    /// `Ai_mask` and `dist_to_clust` row of the block (trim: block 0).
    trim: bool,
}

impl Grower {
    fn reg(&self, tid: u64) -> TRegs {
        self.regs.lock().unwrap()[tid as usize]
    }
    fn set(&self, tid: u64, r: TRegs) {
        self.regs.lock().unwrap()[tid as usize] = r;
    }
    fn row(&self, t: &Thread<'_>) -> u64 {
        if self.trim {
            0
        } else {
            t.block_id()
        }
    }

    /// `dist_matrix[cand * N0 + latest]` (`tex2D(texDistance, latest + .5, cand + .5)` in
    /// texture): global 2 int (`IMAD`, `IMAD.WIDE`); texture two `I2F` and two `FADD`.
    fn dist(&self, t: &mut Thread<'_>, cand: i32, latest: i32) -> f32 {
        let idx = cand as u64 * self.s.n0 + latest as u64;
        match self.s.space {
            MemSpace::Texture => {
                t.alu(2);
                t.fp(2);
                t.ld_tex(self.o.dist, idx)
            }
            _ => {
                t.alu(2);
                t.ld(self.o.dist, idx)
            }
        }
    }

    /// `CHECK_POINT_FOR_PROXIMITY` on one candidate with diameter `cur`: `ISETP; BRA`
    /// (`cand >= 0`); the two mask addresses and `LDG.U8`s, `ISETP` x2 and `BRA`; a
    /// clustered candidate is dropped (`MOV`); else the distance, `FSETP; FSEL` (diameter),
    /// `FSETP` and two `SEL`s (minimum). Returns the candidate (-1 when dropped) and the
    /// new diameter; `stored`: the diameter lives in `dist_to_clust[slot]` (address,
    /// `LDG`, and a `STG` when it grows).
    fn check(
        &self,
        t: &mut Thread<'_>,
        r: &mut TRegs,
        cand: i32,
        cur: f32,
        stored: Option<u64>,
        row: u64,
    ) -> (i32, f32) {
        t.alu(1);
        t.branch(1);
        if cand < 0 {
            return (cand, cur);
        }
        t.alu(1);
        let a: u8 = t.ld(self.o.ai_mask, row * self.s.n0 + cand as u64);
        t.alu(1);
        let c: u8 = t.ld(self.o.clustered, cand as u64);
        t.alu(2);
        t.branch(1);
        if a != 0 || c != 0 {
            t.alu(1);
            return (-1, cur);
        }
        let cur = match stored {
            Some(slot) => {
                t.alu(1);
                t.ld(self.o.dist_to_clust, row * self.s.maxd + slot)
            }
            None => cur,
        };
        let d = self.dist(t, cand, r.latest);
        t.fp(2);
        let diam = if d > cur {
            if let Some(slot) = stored {
                t.st(self.o.dist_to_clust, row * self.s.maxd + slot, d);
            }
            d
        } else {
            cur
        };
        t.fp(1);
        t.alu(2);
        if diam < r.min_dist {
            r.min_dist = diam;
            r.pidx = cand;
        }
        (cand, diam)
    }

    fn act(&self, t: &mut Thread<'_>, act: Act) {
        let tid = t.tid.x as u64;
        let row = self.row(t);
        let mut r = self.reg(tid);
        let o = self.o;
        match act {
            Act::Entry => {
                r = TRegs {
                    max_card: -1,
                    ..TRegs::default()
                };
                if self.trim {
                    entry(t, 1, 0, false);
                    r.seed = t.peek::<i32>(o.cardnl, 1);
                    t.alu(1);
                    r.degree = t.ld(o.degrees, r.seed as u64);
                } else {
                    entry(t, 3, 4, false);
                    t.alu(1);
                    t.branch(1);
                }
            }
            Act::Seed { i, skip } => {
                t.alu(1);
                r.seed = t.ld(o.ungrpd, i as u64);
                t.alu(1);
                r.degree = t.ld(o.degrees, r.seed as u64);
                t.alu(1);
                t.branch(1);
                debug_assert_eq!(skip, r.degree <= r.max_card);
                if skip {
                    loop_step(t);
                }
            }
            Act::Clean => {
                // thread 0 marks the seed right after the clearing loops, with no barrier
                // between: on the GPU the mark lands after the clearing store of the seed's
                // slot (same warp, program order); the model runs the lanes one after the
                // other, so the clearing store of that slot writes the final value
                let mut j = tid;
                while j < self.s.n0 {
                    t.alu(1);
                    let v = (j == r.seed as u64) as u8;
                    t.st(o.ai_mask, row * self.s.n0 + j, v);
                    loop_step(t);
                    j += TPB;
                }
                let mut j = tid;
                while j < self.s.maxd {
                    t.alu(1);
                    t.st(o.dist_to_clust, row * self.s.maxd + j, 0f32);
                    loop_step(t);
                    j += TPB;
                }
                r.cnt = 1;
                r.flag = true;
                r.latest = r.seed;
                t.alu(1);
                t.branch(1);
                if tid == 0 {
                    if self.trim {
                        t.alu(1);
                        t.st(o.result, 0, r.seed);
                    }
                    t.alu(1);
                    t.st(o.ai_mask, row * self.s.n0 + r.seed as u64, 1u8);
                }
            }
            Act::Prefetch => {
                r.cand = [-1; PREF as usize];
                r.cpd = [0.0; PREF as usize];
                for k in 0..PREF {
                    t.alu(1);
                    t.branch(1);
                    let s = k * TPB + tid;
                    if s >= r.degree as u64 {
                        break;
                    }
                    t.alu(1);
                    r.cand[k as usize] = t.ld(o.indr, r.seed as u64 * self.s.maxd + s);
                }
            }
            Act::Check => {
                r.min_dist = 2.0 * self.s.threshold;
                r.pidx = -1;
                t.alu(1);
                for k in 0..PREF as usize {
                    let (c0, d0) = (r.cand[k], r.cpd[k]);
                    let (c, d) = self.check(t, &mut r, c0, d0, None, row);
                    r.cand[k] = c;
                    r.cpd[k] = d;
                }
                t.alu(1);
                t.branch(1);
                let mut s = PREF * TPB + tid;
                while s < r.degree as u64 {
                    t.alu(1);
                    let c: i32 = t.ld(o.indr, r.seed as u64 * self.s.maxd + s);
                    self.check(t, &mut r, c, 0.0, Some(s), row);
                    loop_step(t);
                    s += TPB;
                }
                t.alu(1);
                t.sh_st_f32(tid as u32, r.min_dist);
                t.sh_st(SH_PIDX + tid as u32, r.pidx as u32);
            }
            Act::Find => {
                r.min_dist = 2.0 * self.s.threshold;
                r.pidx = -1;
                t.alu(1);
                t.branch(1);
                let mut s = tid;
                while s < self.s.maxd {
                    t.alu(1);
                    let c: i32 = t.ld(o.indr, r.seed as u64 * self.s.maxd + s);
                    self.check(t, &mut r, c, 0.0, Some(s), row);
                    loop_step(t);
                    s += TPB;
                }
                t.alu(1);
                t.sh_st_f32(tid as u32, r.min_dist);
                t.sh_st(SH_PIDX + tid as u32, r.pidx as u32);
            }
            Act::Scan => {
                t.alu(1);
                t.branch(1);
                if tid == 0 {
                    let mut md = r.min_dist;
                    for j in 1..TPB as u32 {
                        let dj = t.sh_ld_f32(j);
                        t.fp(1);
                        t.branch(1);
                        if dj <= md {
                            let pj = t.sh_ld(SH_PIDX + j) as i32;
                            let p0 = t.sh_ld(SH_PIDX) as i32;
                            t.alu(1);
                            if dj < md || pj < p0 {
                                md = dj;
                                t.sh_st(SH_PIDX, pj as u32);
                            }
                        }
                        loop_step(t);
                    }
                    t.fp(1);
                    t.branch(1);
                    if md > self.s.threshold {
                        t.sh_st(SH_PIDX, -1i32 as u32);
                    }
                }
            }
            Act::Decide => {
                let g = t.sh_ld(SH_PIDX) as i32;
                t.alu(1);
                t.branch(1);
                if g >= 0 {
                    t.alu(1);
                    t.branch(1);
                    if tid == 0 {
                        t.alu(1);
                        t.st(o.ai_mask, row * self.s.n0 + g as u64, 1u8);
                        if self.trim {
                            t.alu(1);
                            t.st(o.result, r.cnt as u64, g);
                        }
                    }
                    r.latest = g;
                    r.cnt += 1;
                } else {
                    r.flag = false;
                }
                t.alu(2);
                t.branch(1);
            }
            Act::Update => {
                t.alu(1);
                t.branch(1);
                if r.cnt > r.max_card {
                    t.alu(2);
                    r.max_card = r.cnt;
                    r.max_idx = r.seed;
                }
                loop_step(t);
            }
            Act::Card => {
                t.alu(1);
                t.branch(1);
                if tid == 0 {
                    let b = t.block_id();
                    t.alu(1);
                    t.st(o.cardnl, 2 * b, r.max_card);
                    t.st(o.cardnl, 2 * b + 1, r.max_idx);
                }
            }
            Act::CompactInit => {
                t.alu(1);
                t.branch(1);
                if tid == 0 {
                    t.sh_st(SH_CNT, 0);
                    t.sh_st(SH_FLAG, 0);
                }
            }
            Act::CompactCopy { i } => {
                let k = i as u64 + tid;
                if k < self.s.point_count {
                    t.alu(1);
                    let pnt: i32 = t.ld(o.ungrpd, k);
                    t.alu(1);
                    t.sh_st(SH_TMP + tid as u32, pnt as u32);
                    t.alu(1);
                    let a: u8 = t.ld(o.ai_mask, pnt as u64);
                    t.alu(1);
                    t.branch(1);
                    if a == 1 {
                        t.sh_st(SH_FLAG, 1);
                        t.sh_st(SH_TMP + tid as u32, INVALID as u32);
                    } else {
                        let cnt = t.sh_ld(SH_CNT) as u64;
                        t.alu(2);
                        t.st(o.ungrpd, cnt + tid, pnt);
                    }
                }
            }
            Act::CompactFix { i } => {
                let k = i as u64 + tid;
                if k < self.s.point_count {
                    t.alu(1);
                    t.branch(1);
                    if tid == 0 {
                        let flag = t.sh_ld(SH_FLAG);
                        let cnt_sh = t.sh_ld(SH_CNT);
                        t.alu(1);
                        t.branch(1);
                        if flag != 0 {
                            let mut cnt = cnt_sh;
                            let mut j = 0u64;
                            while j < TPB && i as u64 + j < self.s.point_count {
                                let p = t.sh_ld(SH_TMP + j as u32) as i32;
                                t.alu(1);
                                t.branch(1);
                                if p != INVALID {
                                    t.alu(1);
                                    t.st(o.ungrpd, cnt as u64, p);
                                    cnt += 1;
                                }
                                loop_step(t);
                                j += 1;
                            }
                            t.sh_st(SH_CNT, cnt);
                        } else {
                            t.alu(1);
                            t.sh_st(SH_CNT, cnt_sh + TPB as u32);
                        }
                        t.sh_st(SH_FLAG, 0);
                    }
                }
            }
        }
        self.set(tid, r);
    }

    fn run(&self, t: &mut Thread<'_>, phase: u32) {
        if let Some(acts) = self.script[t.block_id() as usize].get(phase as usize) {
            for &a in acts {
                self.act(t, a);
            }
        }
    }

    fn phases(&self) -> u32 {
        self.script
            .iter()
            .map(|s| s.len())
            .max()
            .unwrap_or(1)
            .max(1) as u32
    }
}

/// Append one growth (acts between its barriers) to `segs`, whose last segment is open.
fn script_growth(segs: &mut Vec<Vec<Act>>, steps: usize, trim: bool) {
    segs.last_mut().unwrap().push(Act::Clean);
    segs.push(vec![]);
    if !trim {
        segs.last_mut().unwrap().push(Act::Prefetch);
        segs.push(vec![]);
    }
    for _ in 0..steps {
        segs.last_mut()
            .unwrap()
            .push(if trim { Act::Find } else { Act::Check });
        segs.push(vec![Act::Scan]);
        segs.push(vec![Act::Decide]);
        segs.push(vec![]);
    }
    // the `__syncthreads()` after the loop
    segs.push(vec![]);
}

/// The kernel wrapper of a [`Grower`].
struct GrowKernel {
    name: &'static str,
    blocks: u64,
    g: Grower,
}

impl Kernel for GrowKernel {
    fn info(&self) -> KernelInfo {
        kinfo(
            self.name,
            Dim3::x(self.blocks as u32),
            Dim3::x(TPB as u32),
            40,
            (SH_FLAG + 1) * 4,
        )
    }
    fn phases(&self) -> u32 {
        self.g.phases()
    }
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        self.g.run(t, phase);
    }
}

/// `compute_degrees`: neighbours per point.
struct Degrees {
    o: Objs,
    n0: u64,
    maxd: u64,
}

impl Kernel for Degrees {
    fn info(&self) -> KernelInfo {
        kinfo(
            "compute_degrees",
            Dim3::x(MAX_BLOCKS as u32),
            Dim3::x(TPB.min(self.n0) as u32),
            16,
            0,
        )
    }
    /// Per thread: `MOV; S2R x3`, the block's range (6 int); per point its row loop:
    /// per slot the address, `LDG`, `ISETP` and `IADD` (predicated), loop control; the
    /// address and `STG` of the degree, the point loop control.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        entry(t, 3, 6, false);
        let tid = t.tid.x as u64;
        let local = self.n0.div_ceil(MAX_BLOCKS);
        let start = t.block_id() * local;
        let count = if (t.block_id() + 1) * local > self.n0 {
            self.n0.saturating_sub(start)
        } else {
            local
        };
        let mut i = tid;
        t.alu(1);
        t.branch(1);
        while i < count {
            let mut cnt = 0i32;
            for j in 0..self.maxd {
                t.alu(1);
                let v: i32 = t.ld(self.o.indr, (start + i) * self.maxd + j);
                t.alu(2);
                cnt += (v >= 0) as i32;
                loop_step(t);
            }
            t.alu(1);
            t.st(self.o.degrees, start + i, cnt);
            loop_step(t);
            i += TPB.min(self.n0);
        }
    }
}

/// `reduce_card_device<<<1, 1>>>`: the best of the blocks' cardinalities.
struct ReduceCard {
    o: Objs,
    blocks: u64,
}

impl Kernel for ReduceCard {
    fn info(&self) -> KernelInfo {
        kinfo("reduce_card_device", Dim3::x(1), Dim3::x(1), 12, 0)
    }
    /// Per block entry: the address and `LDG` of its cardinality, `ISETP; BRA`, the seed's
    /// `LDG` when better, loop control; two `STG`s.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        entry(t, 0, 1, false);
        let (mut best, mut idx) = (-1i32, 0i32);
        for b in 0..self.blocks {
            t.alu(1);
            let c: i32 = t.ld(self.o.cardnl, 2 * b);
            t.alu(1);
            t.branch(1);
            if c > best {
                best = c;
                idx = t.ld(self.o.cardnl, 2 * b + 1);
            }
            loop_step(t);
        }
        t.st(self.o.cardnl, 0, best);
        t.st(self.o.cardnl, 1, idx);
    }
}

/// `update_clustered_pnts_mask<<<1, 64>>>`: `clustered |= Ai_mask` (row 0).
struct UpdateMask {
    o: Objs,
    n0: u64,
}

impl Kernel for UpdateMask {
    fn info(&self) -> KernelInfo {
        kinfo(
            "update_clustered_pnts_mask",
            Dim3::x(1),
            Dim3::x(TPB as u32),
            10,
            0,
        )
    }
    /// Per thread: `MOV; S2R`; per element the two addresses, `LDG.U8` x2, `LOP3`,
    /// `STG.U8`, loop control.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        entry(t, 1, 0, false);
        let mut i = t.tid.x as u64;
        while i < self.n0 {
            t.alu(1);
            let c: u8 = t.ld(self.o.clustered, i);
            t.alu(1);
            let a: u8 = t.ld(self.o.ai_mask, i);
            t.alu(1);
            t.st(self.o.clustered, i, c | a);
            loop_step(t);
            i += TPB;
        }
    }
}

/// `QTC()`'s loop.
struct QtcHost {
    o: Objs,
    n0: u64,
    maxd: u64,
    threshold: f32,
    space: MemSpace,
    point_count: u64,
    stage: u8,
    blocks: u64,
    max_card: i32,
    done: bool,
}

impl QtcHost {
    fn shape(&self) -> Shape {
        Shape {
            n0: self.n0,
            maxd: self.maxd,
            point_count: self.point_count,
            threshold: self.threshold,
            space: self.space,
        }
    }
    fn grower(&self, script: Vec<Vec<Vec<Act>>>, trim: bool) -> Grower {
        Grower {
            o: self.o,
            s: self.shape(),
            script,
            regs: Mutex::new(vec![TRegs::default(); TPB as usize]),
            trim,
        }
    }

    /// `QTC_device`'s segments per block, from the replica.
    fn main_kernel(&self, mem: &Memory) -> Box<dyn Kernel> {
        let dist: Vec<f32> = mem.to_vec(self.o.dist);
        let indr: Vec<i32> = mem.to_vec(self.o.indr);
        let clustered: Vec<u8> = mem.to_vec(self.o.clustered);
        let ungrpd: Vec<i32> = mem.to_vec(self.o.ungrpd);
        let degrees: Vec<i32> = mem.to_vec(self.o.degrees);
        let c = Ctx {
            n0: self.n0 as usize,
            maxd: self.maxd as usize,
            threshold: self.threshold,
            dist: &dist,
            indr: &indr,
            clustered: &clustered,
        };
        let pc = self.point_count as usize;
        let script = (0..self.blocks)
            .map(|b| {
                let mut segs = vec![vec![Act::Entry]];
                let mut max_card = -1i32;
                let mut i = b as usize;
                while i < pc {
                    let seed = ungrpd[i] as usize;
                    let degree = degrees[seed];
                    let skip = degree <= max_card;
                    segs.last_mut()
                        .unwrap()
                        .push(Act::Seed { i: i as u32, skip });
                    if !skip {
                        let (m, empty_end) = grow(&c, seed, degree as usize, pc);
                        let steps = m.len() - 1 + empty_end as usize;
                        script_growth(&mut segs, steps, false);
                        segs.last_mut().unwrap().push(Act::Update);
                        max_card = max_card.max(m.len() as i32);
                    }
                    i += self.blocks as usize;
                }
                segs.last_mut().unwrap().push(Act::Card);
                segs
            })
            .collect();
        Box::new(GrowKernel {
            name: "QTC_device",
            blocks: self.blocks,
            g: self.grower(script, false),
        })
    }

    fn trim_kernel(&self, mem: &Memory) -> Box<dyn Kernel> {
        let dist: Vec<f32> = mem.to_vec(self.o.dist);
        let indr: Vec<i32> = mem.to_vec(self.o.indr);
        let clustered: Vec<u8> = mem.to_vec(self.o.clustered);
        let degrees: Vec<i32> = mem.to_vec(self.o.degrees);
        let seed: i32 = mem.get(self.o.cardnl, 1);
        let c = Ctx {
            n0: self.n0 as usize,
            maxd: self.maxd as usize,
            threshold: self.threshold,
            dist: &dist,
            indr: &indr,
            clustered: &clustered,
        };
        let pc = self.point_count as usize;
        let (m, empty_end) = grow(&c, seed as usize, degrees[seed as usize] as usize, pc);
        let mut segs = vec![vec![Act::Entry]];
        script_growth(&mut segs, m.len() - 1 + empty_end as usize, true);
        segs.last_mut().unwrap().push(Act::CompactInit);
        let mut i = 0;
        while i < pc {
            segs.push(vec![Act::CompactCopy { i: i as u32 }]);
            segs.push(vec![Act::CompactFix { i: i as u32 }]);
            i += TPB as usize;
        }
        Box::new(GrowKernel {
            name: "trim_ungrouped_pnts_indr_array",
            blocks: 1,
            g: self.grower(vec![segs], true),
        })
    }
}

impl Host for QtcHost {
    fn next_kernel(&mut self, mem: &mut Memory) -> Option<Box<dyn Kernel>> {
        loop {
            if self.done {
                return None;
            }
            match self.stage {
                0 => {
                    self.stage = 1;
                    return Some(Box::new(Degrees {
                        o: self.o,
                        n0: self.n0,
                        maxd: self.maxd,
                    }));
                }
                1 => {
                    // calculate_participants on one node
                    self.blocks = if self.point_count >= MAX_BLOCKS {
                        MAX_BLOCKS
                    } else {
                        self.point_count
                    };
                    self.stage = 2;
                    return Some(self.main_kernel(mem));
                }
                2 => {
                    self.stage = 3;
                    if self.blocks > 1 {
                        return Some(Box::new(ReduceCard {
                            o: self.o,
                            blocks: self.blocks,
                        }));
                    }
                }
                3 => {
                    self.max_card = mem.get(self.o.cardnl, 0);
                    self.stage = 4;
                    return Some(self.trim_kernel(mem));
                }
                _ => {
                    self.point_count -= self.max_card.max(0) as u64;
                    self.stage = 1;
                    if !(self.max_card > 1 && self.point_count > 0) {
                        self.done = true;
                    }
                    return Some(Box::new(UpdateMask {
                        o: self.o,
                        n0: self.n0,
                    }));
                }
            }
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("points", default_points())?;
    let threshold = p.f64("threshold", 1.0)? as f32;
    let space = MemSpace::param(
        p,
        "dist_space",
        MemSpace::Global,
        &[MemSpace::Global, MemSpace::Texture],
    )?;
    if !(30..=16384).contains(&n) {
        return Err(bad(
            "shoc-qtc: parameter `points` must be in 30 ..= 16384 (SHOC's generator needs N / 30 >= 1)"
                .into(),
        ));
    }
    if threshold.is_nan() || threshold <= 0.0 || threshold > 40.0 {
        return Err(bad(
            "shoc-qtc: parameter `threshold` must be in (0, 40]".into()
        ));
    }
    let data = generate(n, threshold, p.seed);
    let maxd = data.max_degree;
    let mut m = Memory::new();
    let ungrpd: Vec<i32> = (0..n as i32).collect();
    let o = Objs {
        dist: m.alloc_from("distance_matrix", &data.dist, true),
        indr: m.alloc_from("indr_mtrx", &data.indr, true),
        degrees: m.alloc::<i32>("degrees", n, false),
        ungrpd: m.alloc_from("ungrpd_pnts_indr", &ungrpd, false),
        ai_mask: m.alloc::<u8>("Ai_mask", MAX_BLOCKS * n, false),
        dist_to_clust: m.alloc::<f32>("dist_to_clust", MAX_BLOCKS * maxd, false),
        clustered: m.alloc::<u8>("clustered_pnts_mask", n, false),
        cardnl: m.alloc::<i32>("cardnl", MAX_BLOCKS * 2, false),
        result: m.alloc::<i32>("result", n, false),
    };
    let h = QtcHost {
        o,
        n0: n,
        maxd,
        threshold,
        space,
        point_count: n,
        stage: 0,
        blocks: 0,
        max_card: 0,
        done: false,
    };
    Ok(ModelWorkload::new("shoc-qtc", m, Box::new(h)))
}
