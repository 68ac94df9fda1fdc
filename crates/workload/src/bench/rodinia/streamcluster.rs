//! Rodinia `streamcluster` (cuda/streamcluster, from PARSEC): online k-median clustering.
//! The GPU part is `pgain`: for a candidate centre `x`, `kernel_compute_cost` runs one
//! thread per point (512 threads per block) that computes the weighted squared distance to
//! `x` over the `dim` coordinates (`coord_d` is dimension-major, `coord_d[i*num + p]`, so a
//! warp's loads coalesce and the centre's coordinate is a broadcast), reads its `Point`
//! (32-byte AoS records: weight, coordinate pointer, `long assign`, cost) and either marks
//! `switch_membership_d[tid]` and adds the saving to `work_mem_d[tid*stride + K]`, or adds
//! the loss to `work_mem_d[tid*stride + center_table[assign]]`. The host then sums the
//! `work_mem` columns per centre, decides whether opening `x` pays, reassigns points and
//! closes centres (pgain's serial part).
//!
//! Host program (streamcluster.cpp): random points (`dim` floats in [0,1), weight 1), then
//! `pkmedian`'s start: `hiz` = the cost of one centre at point 0, `z = hiz/2`, `pspeedy`
//! (halving `z` until it opens at least `kmin` centres), `selectfeasible_fast`
//! (`ITER*kmin*ln(kmin)` candidates) and the first `pFL`: rounds of `ITER*kmax*ln(kmax)`
//! pgain calls over the shuffled candidates, repeated while the round's improvement exceeds
//! `e = 0.1` of the cost. Each pgain call is one launch. The later `pFL` calls of
//! pkmedian's bisection on `z` are not modelled (the first pFL has the same kernel and
//! host loop).
//!
//! `work_mem_d` is cudaMalloc'ed per call with `stride = K + 1`; here it is one object sized
//! for the largest `K` a pFL can reach (the initial centres plus every candidate), indexed
//! with the call's `stride`.
//!
//! Inputs: NDP §5.4 Table 1 runs STCL with 16K points per block and one block (Rodinia's
//! run: `sc_gpu 10 20 256 65536 65536 1000`, so `kmin 10, kmax 20, dim 256`): `n = 16384`,
//! `dim = 256` (16.9 MB) fits the 32 MiB cap, so rule 1 keeps it. That input makes 358
//! launches (two pFL rounds) of 322 M warp instructions and 95 M memory instructions, well
//! over a minute on `coda-4gpu`, so rule 2 of [`crate::scale`] halves both dimensions
//! once: `n = 8192`, `dim = 128` (the paper input stays available as `--param n=16384
//! --param dim=256`).

use crate::bench::dense::common::{bad, kinfo};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "streamcluster",
    suite: "Rodinia",
    category: "-",
    about: "Rodinia streamcluster: kernel_compute_cost per pgain call (distance to the \
            candidate centre, cost/switch arrays), host pspeedy + first pFL loop",
    params: &[
        ParamSpec {
            name: "n",
            default: "8192",
            help: "points (NDP: 16K points per block, one block; halved by rule 2)",
        },
        ParamSpec {
            name: "dim",
            default: "128",
            help: "coordinates per point (Rodinia's run: 256; halved by rule 2)",
        },
        ParamSpec {
            name: "kmin",
            default: "10",
            help: "minimum centres (Rodinia's run: 10)",
        },
        ParamSpec {
            name: "kmax",
            default: "20",
            help: "maximum centres (Rodinia's run: 20)",
        },
    ],
    build,
};

/// `THREADS_PER_BLOCK`.
const TPB: u64 = 512;
/// `ITER` of streamcluster.cpp.
const ITER: f32 = 3.0;
/// 32-bit words of one `Point` record (x86-64 layout: `float weight; float *coord; long
/// assign; float cost;` = 32 bytes).
const PT_WORDS: u64 = 8;

/// `kernel_compute_cost` for one candidate `x`.
struct ComputeCost {
    num: u64,
    dim: u64,
    x: u64,
    k: u64,
    stride: u64,
    p: ObjId,
    coord: ObjId,
    work_mem: ObjId,
    center_table: ObjId,
    switch_membership: ObjId,
}

impl Kernel for ComputeCost {
    fn info(&self) -> KernelInfo {
        kinfo(
            "kernel_compute_cost",
            Dim3::x(self.num.div_ceil(TPB) as u32),
            Dim3::x(TPB as u32),
            20,
            0,
        )
    }
    /// Per thread (sm_70-class SASS, issue 7 §1 counting): entry `MOV; S2R` x3, `bid` and
    /// `tid` (2 `IMAD`), the bound `ISETP` and its `EXIT`. `d_dist`: per coordinate the two
    /// addresses (`IMAD.WIDE` x2), `LDG` x2, `FADD`, `FFMA`; nvcc unrolls the runtime-bound
    /// loop by 4, so every 4th coordinate adds the loop control (`IADD3`, `ISETP`, `BRA`).
    /// Then `IMAD.WIDE` (`&p[tid]`), `LDG weight`, `FMUL`, `LDG cost`, `FSETP` and the
    /// branch. Saving: `STG` of the switch byte, the row address (`IMAD`, `IMAD.WIDE`),
    /// `LDG lower[K]`, `FADD` x2, `STG`. Loss: `LDG.64 assign`, `IMAD.WIDE`, `LDG
    /// center_table`, the row address (2), `LDG lower[c]`, `FADD` x2, `STG`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.gid();
        t.alu(6);
        t.branch(1);
        if tid >= self.num {
            return;
        }
        let mut d = 0f32;
        for i in 0..self.dim {
            t.alu(2);
            // NDP offload block 0 (Table 1's STCL "3"): both coordinates and their
            // difference on the NSU (`LD; LD; FADD@NSU`), the difference the one
            // live-out; the accumulating FFMA stays on the GPU (as km's block)
            t.ofld_begin(0, 0, 3);
            let a: f32 = t.ld(self.coord, i * self.num + tid);
            let b: f32 = t.ld(self.coord, i * self.num + self.x);
            t.fp(2);
            t.ofld_end(1);
            let tmp = a - b;
            d += tmp * tmp;
            if i % 4 == 3 || i + 1 == self.dim {
                t.alu(2);
                t.branch(1);
            }
        }
        t.alu(1);
        let w: f32 = t.ld(self.p, tid * PT_WORDS);
        t.fp(1);
        let x_cost = d * w;
        let cost: f32 = t.ld(self.p, tid * PT_WORDS + 6);
        t.fp(1);
        t.branch(1);
        let row = tid * self.stride;
        if x_cost < cost {
            // NDP offload block 1 (Table 1's STCL "9"; ours 5 in SASS counting): the saving's
            // update `STG switch; LDG lower[K]; FADD x2; STG` with `x_cost` and `cost`
            // live-in; the lanes that take the branch form the instance
            t.ofld_begin(1, 2, 5);
            t.st(self.switch_membership, tid, 1u8);
            t.alu(2);
            let l: f32 = t.ld(self.work_mem, row + self.k);
            t.fp(2);
            t.st(self.work_mem, row + self.k, l + (x_cost - cost));
            t.ofld_end(0);
        } else {
            let assign: i64 = t.ld(self.p, tid * (PT_WORDS / 2) + 2);
            t.alu(1);
            // NDP blocks 2 and 3 (Table 1's STCL "1, 1", spec §3.3 rule 4): the single
            // indirect loads `center_table[assign]` and `work_mem[row + c]`, each value the
            // one live-out; the store stays on the GPU
            t.ofld_begin(2, 0, 1);
            let c: i32 = t.ld(self.center_table, assign as u64);
            t.ofld_end(1);
            t.alu(2);
            t.ofld_begin(3, 0, 1);
            let l: f32 = t.ld(self.work_mem, row + c as u64);
            t.ofld_end(1);
            t.fp(2);
            t.st(self.work_mem, row + c as u64, l + (cost - x_cost));
        }
    }
}

/// Host-side points (streamcluster's `Points`).
#[derive(Clone)]
pub(crate) struct Pts {
    pub dim: usize,
    pub coord: Vec<f32>,
    pub weight: Vec<f32>,
    pub assign: Vec<i64>,
    pub cost: Vec<f32>,
}

impl Pts {
    fn num(&self) -> usize {
        self.weight.len()
    }
    pub(crate) fn dist(&self, a: usize, b: usize) -> f32 {
        let (pa, pb) = (
            &self.coord[a * self.dim..(a + 1) * self.dim],
            &self.coord[b * self.dim..(b + 1) * self.dim],
        );
        let mut r = 0f32;
        for i in 0..self.dim {
            r += (pa[i] - pb[i]) * (pa[i] - pb[i]);
        }
        r
    }
}

/// `lrand48() / (float)INT_MAX`: a uniform float in [0, 1).
fn frand(rng: &mut Rng) -> f32 {
    rng.f32()
}

/// `pspeedy` (single thread): open a centre at point 0, then at each later point with
/// probability `cost / z`. Returns (total cost, number of centres).
fn speedy(pts: &mut Pts, z: f32, rng: &mut Rng) -> (f32, u64) {
    let n = pts.num();
    for k in 0..n {
        pts.cost[k] = pts.dist(k, 0) * pts.weight[k];
        pts.assign[k] = 0;
    }
    let mut kc = 1;
    for i in 1..n {
        if frand(rng) < pts.cost[i] / z {
            kc += 1;
            for k in 0..n {
                let d = pts.dist(i, k) * pts.weight[k];
                if d < pts.cost[k] {
                    pts.cost[k] = d;
                    pts.assign[k] = i as i64;
                }
            }
        }
    }
    let total = z * kc as f32 + pts.cost.iter().sum::<f32>();
    (total, kc)
}

/// The host state of pkmedian's first pFL.
pub(crate) struct ScHost {
    pub pts: Pts,
    pub is_center: Vec<bool>,
    pub center_table: Vec<i32>,
    pub feasible: Vec<usize>,
    pub z: f32,
    pub k: u64,
    pub cost: f32,
    /// pgain calls per pFL round (`ITER*kmax*ln(kmax)`).
    pub iter: u64,
    /// Calls made in the current round, and the round's accumulated change.
    pub i: u64,
    pub change: f32,
    pub rng: Rng,
    /// The candidate of the launch in flight (its serial part runs before the next one).
    pub pending: Option<u64>,
    pub launches: u64,
}

impl ScHost {
    /// pgain's serial part after the kernel: `work_mem` is the kernel's output (`stride`
    /// floats per point plus the `gl_lower` row), `switch_m` its switch flags. Returns the
    /// gain (`-gl_cost_of_opening_x`).
    pub(crate) fn pgain_serial(&mut self, x: usize, work_mem: &mut [f32], switch_m: &[u8]) -> f32 {
        let num = self.pts.num();
        let kk = self.k as usize;
        let stride = kk + 1;
        let mut to_close = 0u64;
        let mut gl_cost = self.z;
        let gl = stride * num;
        for i in 0..num {
            if self.is_center[i] {
                let c = self.center_table[i] as usize;
                let mut low = self.z;
                for j in 0..num {
                    low += work_mem[j * stride + c];
                }
                work_mem[gl + c] = low;
                if low > 0.0 {
                    to_close += 1;
                    work_mem[i * stride + kk] -= low;
                }
            }
            gl_cost += work_mem[i * stride + kk];
        }
        if gl_cost < 0.0 {
            for i in 0..num {
                let close =
                    work_mem[gl + self.center_table[self.pts.assign[i] as usize] as usize] > 0.0;
                if switch_m[i] != 0 || close {
                    self.pts.cost[i] = self.pts.dist(i, x) * self.pts.weight[i];
                    self.pts.assign[i] = x as i64;
                }
            }
            for i in 0..num {
                if self.is_center[i] && work_mem[gl + self.center_table[i] as usize] > 0.0 {
                    self.is_center[i] = false;
                }
            }
            self.is_center[x] = true;
            self.k = self.k + 1 - to_close;
        } else {
            gl_cost = 0.0;
        }
        -gl_cost
    }

    /// pgain's preparation: the centre table (`center_table[i]` = rank of centre `i`).
    pub(crate) fn prepare(&mut self) {
        let mut count = 0;
        for i in 0..self.pts.num() {
            if self.is_center[i] {
                self.center_table[i] = count;
                count += 1;
            }
        }
    }

    /// `intshuffle(feasible, numfeasible)`.
    pub(crate) fn shuffle_feasible(&mut self) {
        let len = self.feasible.len();
        for i in 0..len {
            let j = self.rng.below((len - i) as u64) as usize + i;
            self.feasible.swap(i, j);
        }
    }

    /// The next candidate of pFL, or `None` when pFL ends (`change / cost <= e`).
    pub(crate) fn next_candidate(&mut self) -> Option<u64> {
        if self.i == self.iter {
            self.cost -= self.change;
            if self.change / self.cost <= 0.1 {
                return None;
            }
            self.i = 0;
            self.change = 0.0;
        }
        if self.i == 0 {
            self.shuffle_feasible();
        }
        let x = self.feasible[(self.i % self.feasible.len() as u64) as usize] as u64;
        self.i += 1;
        Some(x)
    }
}

/// Build the host state: points, pspeedy until `kmin` centres, the feasible candidates.
pub(crate) fn host_state(n: u64, dim: u64, kmin: u64, kmax: u64, seed: u64) -> ScHost {
    let mut rng = Rng::new(seed);
    let (nu, du) = (n as usize, dim as usize);
    let coord: Vec<f32> = (0..nu * du).map(|_| frand(&mut rng)).collect();
    let mut pts = Pts {
        dim: du,
        coord,
        weight: vec![1.0; nu],
        assign: vec![0; nu],
        cost: vec![0.0; nu],
    };
    // pkmedian: hiz = cost of one centre at point 0, z = (hiz + loz) / 2
    let mut hiz: f32 = (0..nu).map(|k| pts.dist(k, 0) * pts.weight[k]).sum();
    let loz = 0f32;
    let mut z = (hiz + loz) / 2.0;
    let (mut cost, mut k) = speedy(&mut pts, z, &mut rng);
    let mut i = 0;
    while k < kmin && i < 1 {
        (cost, k) = speedy(&mut pts, z, &mut rng);
        i += 1;
    }
    while k < kmin {
        if i >= 1 {
            hiz = z;
            z = (hiz + loz) / 2.0;
            i = 0;
        }
        (cost, k) = speedy(&mut pts, z, &mut rng);
        i += 1;
    }
    // selectfeasible_fast: ITER*kmin*ln(kmin) candidates drawn by weight
    let nf_cap = (ITER * kmin as f32 * (kmin as f32).ln()) as usize;
    let feasible: Vec<usize> = if nu <= nf_cap {
        (0..nu).collect()
    } else {
        let mut acc = vec![0f32; nu];
        acc[0] = pts.weight[0];
        for i in 1..nu {
            acc[i] = acc[i - 1] + pts.weight[i];
        }
        let total = acc[nu - 1];
        (0..nf_cap)
            .map(|_| {
                let w = frand(&mut rng) * total;
                if acc[0] > w {
                    return 0;
                }
                let (mut l, mut r) = (0usize, nu - 1);
                while l + 1 < r {
                    let m = (l + r) / 2;
                    if acc[m] > w {
                        r = m;
                    } else {
                        l = m;
                    }
                }
                r
            })
            .collect()
    };
    let mut is_center = vec![false; nu];
    for a in &pts.assign {
        is_center[*a as usize] = true;
    }
    ScHost {
        pts,
        is_center,
        center_table: vec![0; nu],
        feasible,
        z,
        k,
        cost,
        iter: (ITER * kmax as f32 * (kmax as f32).ln()) as u64,
        i: 0,
        change: 0.0,
        rng,
        pending: None,
        launches: 0,
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("n", 8192)?;
    let dim = p.u64("dim", 128)?;
    let kmin = p.u64("kmin", 10)?;
    let kmax = p.u64("kmax", 20)?;
    if n < 2 || dim == 0 || kmin < 2 || kmax < kmin || kmax >= n {
        return Err(bad(format!(
            "streamcluster: need n >= 2, dim >= 1, 2 <= kmin <= kmax < n (got n {n}, dim {dim}, kmin {kmin}, kmax {kmax})"
        )));
    }
    let mut st = host_state(n, dim, kmin, kmax, p.seed);
    let nu = n as usize;
    let mut mem = Memory::new();
    // coord_d is dimension-major (the host transposes `points->p[j].coord[i]`)
    let mut coord_t = vec![0f32; nu * dim as usize];
    for j in 0..nu {
        for i in 0..dim as usize {
            coord_t[i * nu + j] = st.pts.coord[j * dim as usize + i];
        }
    }
    // K never exceeds the initial centres plus the candidates
    let kcap = st.k + st.feasible.len() as u64 + 1;
    let work_mem = mem.alloc::<f32>("work_mem_d", kcap * (n + 1), false);
    let center_table = mem.alloc::<i32>("center_table_d", n, true);
    let switch_m = mem.alloc::<u8>("switch_membership_d", n, false);
    let pobj = mem.alloc::<u32>("p", n * PT_WORDS, true);
    let coord = mem.alloc_from("coord_d", &coord_t, true);
    let host = crate::bench::dense::common::host(move |m: &mut Memory| {
        if let Some(x) = st.pending.take() {
            let stride = (st.k + 1) as usize;
            let mut wm: Vec<f32> = (0..stride * (nu + 1))
                .map(|i| m.get::<f32>(work_mem, i as u64))
                .collect();
            let sw: Vec<u8> = (0..nu).map(|i| m.get::<u8>(switch_m, i as u64)).collect();
            let g = st.pgain_serial(x as usize, &mut wm, &sw);
            st.change += g;
        }
        let x = st.next_candidate()?;
        // pgain's preparation and copies: centre table, points, memsets
        st.prepare();
        let stride = st.k + 1;
        for i in 0..nu {
            m.set(center_table, i as u64, st.center_table[i]);
            let b = i as u64 * PT_WORDS;
            m.set(pobj, b, st.pts.weight[i]);
            m.set::<i64>(pobj, b / 2 + 2, st.pts.assign[i]);
            m.set(pobj, b + 6, st.pts.cost[i]);
            m.set(switch_m, i as u64, 0u8);
        }
        for i in 0..stride * (n + 1) {
            m.set(work_mem, i, 0f32);
        }
        st.pending = Some(x);
        st.launches += 1;
        Some(Box::new(ComputeCost {
            num: n,
            dim,
            x,
            k: st.k,
            stride,
            p: pobj,
            coord,
            work_mem,
            center_table,
            switch_membership: switch_m,
        }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("streamcluster", mem, host))
}
