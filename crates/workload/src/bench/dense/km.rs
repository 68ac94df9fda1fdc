//! K-means (Rodinia `kmeans`, CUDA version): `invert_mapping` transposes the AoS features to
//! SoA once, then each iteration launches `kmeansPoint` (one thread per point over a square
//! 2-D grid of 256-thread blocks; features through the texture path at
//! `features[l*npoints+pid]`, cluster centres from constant memory, writes `membership[pid]`)
//! and the host recomputes the centres from the memberships, as `kmeans_clustering` does.
//! CODA Table 2: core-exclusive (spec §7 KM row).
//!
//! `layout=point-major` is the other K-means the papers cite: the feature array in its
//! original row layout, `features[pid*nfeatures+l]`, read with global loads (through the
//! L1 data cache) and no transpose, as Rodinia's OpenMP `kmeans_clustering`
//! (`find_nearest_point(feature[i], ...)`) and the cache-sensitive KMN of CCWS (Rogers et
//! al., MICRO'12, cited with Rodinia by NDP's Table 1, spec ndp.md §5.4) read it. A warp's
//! load then touches one line per lane (`nfeatures*4 >= 128` B apart) and the thread's next
//! features reuse those lines from L1: the intra-warp locality CCWS calls cache-sensitive.
//! Same grid, blocks, instruction counts, offload block and results as `feature-major`.

use super::common::{bad, host, kinfo, loop_step, prologue, rolled_loops, LOOPS_PARAM};
use super::kmeans_transpose::{gen_points, km_sizes, InvertMapping, KM_THREADS};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "km",
    suite: "Rodinia",
    category: "core-exclusive",
    about: "K-means: invert_mapping, then kmeansPoint iterations with host centre updates",
    params: &[
        ParamSpec {
            name: "npoints",
            default: "64k",
            help: "points",
        },
        ParamSpec {
            name: "nfeatures",
            default: "34",
            help: "features per point",
        },
        ParamSpec {
            name: "nclusters",
            default: "5",
            help: "clusters (Rodinia default 5)",
        },
        ParamSpec {
            name: "iterations",
            default: "3",
            help: "kmeansPoint launches (spec: 2-3)",
        },
        ParamSpec {
            name: "layout",
            default: "feature-major",
            help: "feature-major (Rodinia CUDA: invert_mapping, texture loads of features[l*npoints+pid]) | point-major (CCWS / Rodinia OpenMP: global loads of features[pid*nfeatures+l], no transpose)",
        },
        LOOPS_PARAM,
    ],
    build,
};

/// Layout and memory space of the feature array `kmeansPoint` reads (the `layout`
/// parameter; spec ndp.md §5.4 KMN).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Rodinia CUDA: transposed by `invert_mapping`, `features[l*npoints+pid]` through
    /// the texture path (a warp's load is one line).
    FeatureMajor,
    /// CCWS / Rodinia OpenMP: the input rows, `features[pid*nfeatures+l]` through the L1
    /// data cache (a warp's load is one line per lane when `nfeatures*4 >= 128`).
    PointMajor,
}

impl Layout {
    /// Parse the `layout` parameter.
    pub(crate) fn parse(s: &str) -> Result<Layout, WorkloadError> {
        match s {
            "feature-major" => Ok(Layout::FeatureMajor),
            "point-major" => Ok(Layout::PointMajor),
            o => Err(bad(format!(
                "km: layout={o}: use feature-major (Rodinia CUDA) or point-major (CCWS, Rodinia OpenMP)"
            ))),
        }
    }
}

/// Rodinia `kmeansPoint`: nearest centre per point.
pub(crate) struct KmeansPoint {
    /// Feature-major `[nfeatures][npoints]` or point-major `[npoints][nfeatures]`
    /// (`layout`).
    pub features: ObjId,
    pub layout: Layout,
    pub clusters: ObjId,
    pub membership: ObjId,
    pub npoints: u64,
    pub nfeatures: u64,
    pub nclusters: u64,
    /// `loops=rolled` ([`rolled_loops`]).
    pub rolled: bool,
}

impl KmeansPoint {
    fn grid(&self) -> Dim3 {
        let blocks = self.npoints.div_ceil(KM_THREADS as u64);
        let per_dim = (blocks as f64).sqrt() as u32 + 1;
        Dim3::new(per_dim, per_dim, 1)
    }
}

impl Kernel for KmeansPoint {
    fn info(&self) -> KernelInfo {
        kinfo("kmeansPoint", self.grid(), Dim3::x(KM_THREADS), 16, 0)
    }
    /// Per thread, the instructions of Rodinia kmeans `kmeansPoint`: the compiled schedule
    /// of [`KmeansPoint::thread_unrolled`], or while NDP offload markers are recorded the
    /// loop one feature at a time (sm_70+ SASS, issue 7 §1 counting): entry `MOV; S2R x3` (`blockIdx.y`, `blockIdx.x`, `threadIdx.x`), `ULDC`
    /// and three `IMAD` (block id, `blockDim.x*blockDim.y`, point id), `ISETP; EXIT` (10),
    /// the cluster-loop guard (2); per cluster the base `i*nfeatures` (1), per feature the
    /// texture coordinate and the constant-bank index (2 int), `TEX`, `LDC`, `FADD; FFMA`
    /// (2 fp) and the loop control (3), then `FSETP; FSEL; SEL` (the running minimum and its
    /// index, no branch) and the cluster-loop control (3); finally `IMAD.WIDE; STG; EXIT`.
    /// With 5 clusters of 34 features: 1,580 warp instructions, 341 of them memory.
    /// `Layout::PointMajor` keeps every count and replaces the `TEX` by an `LDG` of
    /// `features[pid*nfeatures+j]` (its two address instructions the same number).
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        // block_id = gridDim.x*blockIdx.y + blockIdx.x; point_id = block_id*blockDim + tid
        let pid = t.block_id() * KM_THREADS as u64 + t.tid.x as u64;
        prologue(t, 3, 4);
        if pid >= self.npoints {
            return;
        }
        if self.rolled || t.offload_markers() {
            self.thread_rolled(t, pid)
        } else {
            self.thread_unrolled(t, pid)
        }
    }
}

impl KmeansPoint {
    /// The feature of point `pid` of the `j`-th feature (texture or global load by
    /// `layout`).
    #[inline]
    fn feature(&self, t: &mut Thread<'_>, pid: u64, j: u64) -> f32 {
        match self.layout {
            Layout::FeatureMajor => t.ld_tex(self.features, pid + j * self.npoints),
            Layout::PointMajor => t.ld(self.features, pid * self.nfeatures + j),
        }
    }

    /// `kmeansPoint` after its bound test as nvcc 13 compiles it for sm_90
    /// (validation/gpu/h200/sass.txt): the cluster-loop guards (6 int, 2 control) and
    /// set-up (7 int); per cluster its base and guard (5 int, 1 control), the feature
    /// loop unrolled by 4 (6 int before it; per chunk the four texture fetches and the
    /// four constant loads issued together ahead of the `FADD`/`FFMA` pairs that use
    /// them, 10 int and 3 control: `DEPBAR` x2 and the back edge), then the `nfeatures %
    /// 4` remaining features (the first with 7 int and 1 control, the other one or two
    /// together with 5 int, their predicated `FADD`/`FFMA` pairs issued either way), then
    /// `FSETP; FSEL` (2 fp), 4 int and the back edge; finally `LDC; IMAD.WIDE; STG`.
    /// With 5 clusters of 34 features: 1,403 warp instructions (the prologue included),
    /// 341 of them memory.
    fn thread_unrolled(&self, t: &mut Thread<'_>, pid: u64) {
        t.alu(13);
        t.branch(2);
        let mut best = f32::MAX;
        let mut index: i32 = -1;
        let nf = self.nfeatures;
        let rem = nf % 4;
        for c in 0..self.nclusters {
            t.alu(5);
            t.branch(1);
            let mut ans = 0.0f32;
            let chunk = |t: &mut Thread<'_>, j0: u64, k: u64, ans: &mut f32| {
                let mut f = [0.0f32; 4];
                let mut cv = [0.0f32; 4];
                for (i, x) in f.iter_mut().take(k as usize).enumerate() {
                    *x = self.feature(t, pid, j0 + i as u64);
                }
                for (i, x) in cv.iter_mut().take(k as usize).enumerate() {
                    *x = t.ld_const(self.clusters, c * nf + j0 + i as u64);
                }
                for i in 0..k as usize {
                    let d = f[i] - cv[i];
                    *ans += d * d;
                }
            };
            if nf >= 4 {
                t.alu(6);
            }
            let mut j = 0;
            while j + 4 <= nf {
                t.alu(3);
                chunk(t, j, 4, &mut ans);
                t.fp(8);
                t.alu(7);
                t.branch(3);
                j += 4;
            }
            t.branch(1);
            if rem >= 1 {
                t.alu(4);
                chunk(t, j, 1, &mut ans);
                t.fp(2);
                t.alu(3);
                t.branch(1);
            }
            if rem >= 2 {
                t.alu(4);
                chunk(t, j + 1, rem - 1, &mut ans);
                t.fp(4);
                t.alu(1);
            }
            t.fp(2);
            t.alu(4);
            if ans < best {
                best = ans;
                index = c as i32;
            }
            t.branch(1);
        }
        t.alu(2);
        t.st(self.membership, pid, index);
    }

    /// The kernel one feature at a time, each iteration a marked NDP offload block: used
    /// while offload markers are recorded ([`Thread::offload_markers`]) and under
    /// `loops=rolled`.
    fn thread_rolled(&self, t: &mut Thread<'_>, pid: u64) {
        t.alu(1);
        t.branch(1);
        let mut best = f32::MAX;
        let mut index: i32 = -1;
        // NDP offload block (spec ndp.md §3.3, Table 1: KMN, 3 NSU instructions): a block
        // may not span basic blocks (§3.3 rule 3), and the feature loop's body is a basic
        // block of its own (entered once per iteration through the loop's back edge), so the
        // block is one iteration's `ans += (f - c) * (f - c)`: `TEX; FADD; FFMA` on the NSU
        // (the centre an operand from the NSU's constant cache, §7.13), the texture
        // coordinate and the constant index (address arithmetic) and the loop control on
        // the GPU. The running sum `ans` is carried by the loop: one live-in and one
        // live-out per instance.
        for c in 0..self.nclusters {
            t.alu(1);
            let mut ans = 0.0f32;
            for j in 0..self.nfeatures {
                t.ofld_begin(0, 1, 3);
                t.alu(2);
                let f: f32 = match self.layout {
                    Layout::FeatureMajor => t.ld_tex(self.features, pid + j * self.npoints),
                    Layout::PointMajor => t.ld(self.features, pid * self.nfeatures + j),
                };
                let cv: f32 = t.ld_const(self.clusters, c * self.nfeatures + j);
                t.fp(2);
                let d = f - cv;
                ans += d * d;
                t.ofld_end(1);
                loop_step(t);
            }
            t.fp(2);
            t.alu(1);
            if ans < best {
                best = ans;
                index = c as i32;
            }
            loop_step(t);
        }
        t.alu(1);
        t.st(self.membership, pid, index);
    }
}

/// Host-side centre update of `kmeans_clustering`: mean of the members of each cluster (a
/// cluster without members keeps its centre).
pub(crate) fn update_centres(
    feats_aos: &[f32],
    membership: &[i32],
    nfeatures: usize,
    centres: &mut [f32],
) {
    let k = centres.len() / nfeatures;
    let mut sum = vec![0.0f64; k * nfeatures];
    let mut cnt = vec![0u64; k];
    for (p, &c) in membership.iter().enumerate() {
        if c < 0 {
            continue;
        }
        let c = c as usize;
        cnt[c] += 1;
        for f in 0..nfeatures {
            sum[c * nfeatures + f] += feats_aos[p * nfeatures + f] as f64;
        }
    }
    for c in 0..k {
        if cnt[c] > 0 {
            for f in 0..nfeatures {
                centres[c * nfeatures + f] = (sum[c * nfeatures + f] / cnt[c] as f64) as f32;
            }
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let (npoints, nfeatures) = km_sizes(p, 64 << 10)?;
    let nclusters = p.u64("nclusters", 5)?.clamp(1, npoints);
    let iterations = p.u64("iterations", 3)?;
    let layout = Layout::parse(&p.str("layout", "feature-major"))?;
    let rolled = rolled_loops(p, "km")?;
    let mut rng = Rng::new(p.seed);
    let pts = gen_points(&mut rng, npoints, nfeatures, nclusters);
    // initial centres: random points, as kmeans_clustering does
    let mut centres = Vec::with_capacity((nclusters * nfeatures) as usize);
    for _ in 0..nclusters {
        let n = rng.below(npoints);
        centres.extend_from_slice(&pts[(n * nfeatures) as usize..((n + 1) * nfeatures) as usize]);
    }
    let mut m = Memory::new();
    let input = m.alloc_from("feature_flipped_d", &pts, true);
    // point-major reads the input rows themselves: no transpose, no second array
    let (features, first) = match layout {
        Layout::FeatureMajor => (m.alloc::<f32>("feature_d", npoints * nfeatures, false), 1),
        Layout::PointMajor => (input, 0),
    };
    let membership = m.alloc::<i32>("membership_d", npoints, false);
    let clusters = m.alloc_from("c_clusters", &centres, true);
    let mut launched = 0u64;
    let h = host(move |mem: &mut Memory| {
        let k: Box<dyn Kernel> = if launched < first {
            Box::new(InvertMapping {
                input,
                output: features,
                npoints,
                nfeatures,
                rolled,
            })
        } else if launched < first + iterations {
            if launched > first {
                // host: copy membership back, recompute centres, copy them to the symbol
                let memb: Vec<i32> = mem.to_vec(membership);
                update_centres(&pts, &memb, nfeatures as usize, &mut centres);
                for (i, &c) in centres.iter().enumerate() {
                    mem.set(clusters, i as u64, c);
                }
            }
            Box::new(KmeansPoint {
                features,
                layout,
                clusters,
                membership,
                npoints,
                nfeatures,
                nclusters,
                rolled,
            })
        } else {
            return None;
        };
        launched += 1;
        Some(k)
    });
    Ok(ModelWorkload::new("km", m, h))
}
